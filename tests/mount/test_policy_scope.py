"""What the tool policy decides (spec 13): tools/call requests only, in
either form; any other request written to call (ping, tools/list, ...)
goes to the server whatever allowTools, denyTools and readOnly say. Under
readOnly, the first call of a tool annotated readOnlyHint: true, with no
listing read before, is let through once mcpfs has the annotations;
without readOnly a call waits for no listing (none is fetched)."""

import json
import os

from conftest import DEMO, call, text, tool
from test_policy import calls_in, fake, lists_in, refused


def test_policy_leaves_other_requests_alone(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'f': fake(log, allowTools=['pid'], denyTools=['t*'],
                               readOnly=True)})
    t = m.path / 'f' / 't'
    os.mkdir(t)
    assert call(t, {'method': 'ping'}) == {}
    got = call(t, {'method': 'tools/list', 'params': {}})
    assert 'tools' in got, got
    refused(call(t, {'method': 'tools/call', 'params': {'name': 'pid'}}),
            'pid', 'f', 'readOnly')
    assert calls_in(log) == []


def test_read_only_first_call_of_a_read_only_tool_runs(mcpfs_mount):
    m = mcpfs_mount({'demo': {'command': str(DEMO), 'readOnly': True}})
    t = m.path / 'demo' / 't'
    os.mkdir(t)
    # no listing read first: the call waits for it, then runs
    assert json.loads(text(tool(t, 'keys'))) == []
    refused(tool(t, 'set', key='k', value='v'), 'set', 'demo', 'readOnly')


def test_without_read_only_a_call_fetches_no_listing(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'f': fake(log, denyTools=['t0'])})
    t = m.path / 'f' / 't'
    os.mkdir(t)
    assert text(tool(t, 'echo', text='x')) == 'x'
    refused(tool(t, 't0'), 't0', 'f', 'denyTools')
    assert len(calls_in(log, 'echo')) == 1
    assert lists_in(log) == 0
