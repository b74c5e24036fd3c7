"""The cached tools.json and notifications/tools/list_changed (spec 3
and 9): a list fetched while (or after) a list_changed arrives is kept; a
list that was complete before one is dropped and fetched again.

Processes are counted from mcpfs's log, one "thread (one-shot): started
... pid N" line per one-shot process, so a process that came and went
between two looks is counted too."""

import json
import os
import re
import shutil

import pytest

from conftest import fake, read_file, text, tool, wait_until
from test_real_everything import EVERYTHING, everything

STARTED = re.compile(r'thread \(one-shot\): started .* pid (\d+)')


def oneshot_pids(m):
    return STARTED.findall(m.log.read_text(errors='replace'))


def tool_names(raw):
    doc = json.loads(raw)
    assert isinstance(doc, dict) and isinstance(doc.get('tools'), list), \
        raw[:200]
    return {t['name'] for t in doc['tools']}


@pytest.mark.skipif(not EVERYTHING.exists() or not shutil.which('node'),
                    reason=f'{EVERYTHING} missing (npm ci) or no node')
def test_everything_server_tools_json_starts_one_process(mcpfs_mount):
    # server-everything sends list_changed while it starts, while mcpfs's
    # tools/list is in flight; that list has the change and is kept
    m = mcpfs_mount({'ev': everything()})
    first = tool_names(read_file(m.path / 'ev' / 'tools.json', 30))
    assert {'echo', 'get-sum'} <= first
    assert len(oneshot_pids(m)) == 1, oneshot_pids(m)
    wait_until(lambda: not m.pids(), 10, 'the tools.json process to end')
    for _ in range(3):
        assert tool_names(read_file(m.path / 'ev' / 'tools.json', 30)) \
            == first
    assert len(oneshot_pids(m)) == 1, oneshot_pids(m)
    assert not m.pids()


def test_list_changed_after_the_list_drops_it(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    assert 'echo' in tool_names(read_file(m.path / 'a' / 'tools.json', 20))
    assert 'echo' in tool_names(read_file(m.path / 'a' / 'tools.json', 20))
    assert len(oneshot_pids(m)) == 1
    t = m.path / 'a' / 't'
    os.mkdir(t)
    # a list_changed that arrives after the list was complete: stale
    assert text(tool(t, 'list_changed')) == 'ok'
    wait_until(lambda: b'list_changed' in read_file(t / 'events'), 5,
               'list_changed in events')
    assert 'echo' in tool_names(read_file(m.path / 'a' / 'tools.json', 20))
    assert len(oneshot_pids(m)) == 2, oneshot_pids(m)
    assert 'echo' in tool_names(read_file(m.path / 'a' / 'tools.json', 20))
    assert len(oneshot_pids(m)) == 2, oneshot_pids(m)
