"""Roots are live for spare sessions too (spec 5): a reload that changes a
server's roots sends notifications/roots/list_changed to each of its
ready spares, as to its threads, so that the thread that later adopts a
spare is not left with roots it listed before the reload."""

import json
import os

from conftest import fake, text, tool, wait_until
from test_warm import ready_spares

CHANGED = 'notifications/roots/list_changed'


def received(log, method):
    if not log.exists():
        return 0
    return sum(json.loads(line).get('method') == method
               for line in log.read_text().splitlines() if line)


def test_roots_change_is_sent_to_warm_spares(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    entry = dict(fake('--log', log), warm=1, roots=['/tmp/ra', '/tmp/rb'])
    m = mcpfs_mount({'a': entry})
    ready_spares(m, 1)
    [spare] = m.server_pids()
    # its handshake is over (mcpfs sends initialized as it ends)
    wait_until(lambda: received(log, 'notifications/initialized') == 1,
               20, 'the spare ready')
    m.reload({'a': dict(entry, roots=['/tmp/ra'])})
    wait_until(lambda: 'roots changed' in m.output(), 20, 'the reload')
    # the thread adopts the spare; its call comes after anything mcpfs
    # sent the spare at the reload, on the same pipe
    os.mkdir(m.path / 'a' / 't')
    t = m.path / 'a' / 't'
    assert int(text(tool(t, 'pid'))) == spare
    assert received(log, CHANGED) == 1
    got = json.loads(text(tool(t, 'ask', method='roots/list', params={})))
    assert [r['uri'] for r in got['result']['roots']] == ['file:///tmp/ra']
