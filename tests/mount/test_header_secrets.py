"""A configured header value (an API key, "Authorization: Bearer ...") is
shown in no file of the mount (spec 6): the server's auth file, result/,
resources.json and prompts.json included. (Checked to fail on
a copy of mcpfs broken on purpose.)"""

import os

from conftest import text, thread, tool
from test_auth import mount_files
from test_http import entry, fake_http  # noqa: F401 - the fixture


def test_configured_header_values_are_shown_nowhere(mcpfs_mount, fake_http,
                                                     tmp_path):
    srv = fake_http()
    token = 'tok-' + os.urandom(8).hex()
    key = 'key-' + os.urandom(8).hex()
    m = mcpfs_mount({'h': entry(srv, headers={
        'Authorization': f'Bearer {token}', 'X-Api-Key': key})})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='hi')) == 'hi'
    # the server got them
    posts = srv.mcp()
    assert posts and all(r['headers'].get('x-api-key') == key and
                         r['headers'].get('authorization') ==
                         f'Bearer {token}' for r in posts), posts
    blobs = dict(mount_files(m))
    for must in (m.path / 'h' / 'auth', t / 'status', t / 'resources.json',
                 t / 'prompts.json', m.path / 'h' / 'tools.json'):
        assert must in blobs, f'{must} not read: {sorted(blobs)}'
    assert any(p.parent == t / 'result' for p in blobs), sorted(blobs)
    for p in (m.log, m.stderr, m.stdout):
        if p.exists():
            blobs[p] = p.read_bytes()
    for p, b in blobs.items():
        for s in (token, key):
            assert s.encode() not in b, f'a header value is in {p}'
