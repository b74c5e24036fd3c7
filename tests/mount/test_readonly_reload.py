"""readOnly turned on by a reload (spec 13): the tool policy applies at
once to the running session, so a tool that is not annotated
readOnlyHint: true is refused from the next call on, even when the
session's tools listing was read (and cached) before the reload and
denyTools did not change; the call never reaches the server. Turned off
again, the tool is called as before, by the same process."""

import json
import os

from conftest import call, read_file, status, text, tool, wait_until
from test_policy import calls_in, fake, names, refused


def test_reload_turning_on_read_only_refuses_at_once(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'f': fake(log, denyTools=['t0'])})
    t = m.path / 'f' / 't'
    os.mkdir(t)
    # the listing is read (and cached) and the tool works before
    assert 'echo' in names(t / 'tools.json')
    assert 'echo' in names(m.path / 'f' / 'tools.json')
    assert text(tool(t, 'echo', text='a')) == 'a'
    pid = status(t)['pid']
    m.reload({'f': fake(log, denyTools=['t0'], readOnly=True)})
    wait_until(lambda: status(t)['policy'] == {'denyTools': ['t0'],
                                               'readOnly': True},
               20, 'the reload')
    # the fake annotates nothing: readOnly hides every tool
    refused(tool(t, 'echo', text='b'), 'echo', 'f', 'readOnly')
    refused(call(t, {'method': 'tools/call',
                     'params': {'name': 'echo', 'arguments': {}}}),
            'echo', 'f', 'readOnly')
    refused(tool(m.path / 'f', 'echo', text='c'), 'echo', 'f', 'readOnly')
    assert names(t / 'tools.json') == set()
    assert json.loads(read_file(m.path / 'f' / 'tools.json'))['tools'] == []
    assert len(calls_in(log, 'echo')) == 1   # only the call before
    assert status(t)['pid'] == pid           # the same process
    m.reload({'f': fake(log, denyTools=['t0'])})
    wait_until(lambda: status(t)['policy'] == {'denyTools': ['t0'],
                                               'readOnly': False},
               20, 'the reload back')
    assert text(tool(t, 'echo', text='d')) == 'd'
    assert len(calls_in(log, 'echo')) == 2
    assert status(t)['pid'] == pid
