"""The core behaviours (issue 2) against the real reference server,
@modelcontextprotocol/server-everything from node_modules (pinned in
package.json): state on one thread, isolation between threads, the one-shot
server-level call, rmdir and unmount ending the processes.

toggle-simulated-logging answers "Started ..." the first time and
"Stopped ..." the second time in one process: the state under test."""

import os
import shutil

import pytest

from conftest import REPO, call, status, text, wait_until, pid_gone

EVERYTHING = REPO / 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'

pytestmark = pytest.mark.skipif(
    not EVERYTHING.exists() or not shutil.which('node'),
    reason='server-everything not installed (npm ci) or no node')


def everything():
    return {'command': 'node', 'args': [str(EVERYTHING), 'stdio']}


TOGGLE = {'name': 'toggle-simulated-logging', 'arguments': {}}


def test_state_isolation_oneshot_rmdir_unmount(mcpfs_mount):
    m = mcpfs_mount({'ev': everything()})
    a, b = m.path / 'ev' / 'a', m.path / 'ev' / 'b'
    os.mkdir(a)
    os.mkdir(b)
    assert text(call(a, TOGGLE)).startswith('Started')
    assert text(call(a, TOGGLE)).startswith('Stopped')
    assert text(call(b, TOGGLE)).startswith('Started')
    pa, pb = status(a)['pid'], status(b)['pid']
    assert pa and pb and pa != pb
    assert status(a)['serverInfo']['name']
    # the server-level call is one-shot: always a fresh process
    for _ in range(2):
        assert text(call(m.path / 'ev', TOGGLE)).startswith('Started')
    assert text(call(a, TOGGLE)).startswith('Started')  # a kept its state
    assert status(a)['pid'] == pa
    os.rmdir(a)
    wait_until(lambda: pid_gone(pa), 10, 'rmdir to end the process')
    assert sorted(os.listdir(m.path / 'ev')) == ['b', 'call', 'tools.json']
    m.unmount()  # asserts exit 0 and that no tagged process is left
    assert pid_gone(pb)
