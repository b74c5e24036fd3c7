"""The roots capability (spec 5): mcpfs declares `roots` in initialize
only to a server that has `roots` configured; with none, the server keeps
the directories its own command line gave it (an empty roots list would
take them away)."""

import json

from conftest import fake, text, thread, tool


def initialize_capabilities(log):
    """The capabilities of every initialize the fake servers logged."""
    return [json.loads(line)['params']['capabilities']
            for line in log.read_text().splitlines()
            if json.loads(line).get('method') == 'initialize']


def test_no_roots_configured_no_roots_capability(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'a': fake('--log', log)})
    assert text(tool(thread(m), 'echo', text='x')) == 'x'
    caps = initialize_capabilities(log)
    assert caps and all('roots' not in c for c in caps), caps


def test_roots_configured_roots_capability(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'a': dict(fake('--log', log),
                               roots=['file:///tmp'])})
    t = thread(m)
    assert text(tool(t, 'echo', text='x')) == 'x'
    caps = initialize_capabilities(log)
    assert caps and all(c.get('roots') == {'listChanged': True}
                        for c in caps), caps
    got = json.loads(text(tool(t, 'ask', method='roots/list', params={})))
    assert got['result']['roots'] == [{'uri': 'file:///tmp'}]
