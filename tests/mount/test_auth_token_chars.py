"""Tokens outside RFC 6750's characters are refused (spec 8): a token
response whose refresh token holds CR LF (or any character a b64token
does not allow) is refused as a whole, like one whose access token does:
the sign-in fails naming RFC 6750, the calls keep failing with -32001,
and neither token is kept in memory or in the token store."""

from auth_util import (authorize_redirect, authserver,  # noqa: F401
                       open_callback, store_file)
from test_auth import echo, mount, thread, wait_auth

REQUIRED = -32001
MESSAGE = ('token request: the server sent a token with characters '
           'outside RFC 6750\'s (refused)')


def test_refresh_token_with_crlf_refused(mcpfs_mount, authserver, tmp_path):
    srv = authserver('--refresh-value', 'ref\r\nX-Injected: yes')
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    assert echo(t)['error']['code'] == REQUIRED
    a = wait_auth(m, ('pending', 'required'), srv=srv)
    open_callback(authorize_redirect(a['authorizationUrl']))
    a = wait_auth(m, 'failed', srv=srv)
    assert a['error'] == MESSAGE, a
    reply = echo(t)
    assert reply['error']['code'] == REQUIRED, reply
    # the access token of that response was not used either
    assert not [r for r in srv.log() if r['path'] == '/mcp' and
                (r.get('headers') or {}).get('authorization')], srv.log()
    store = store_file(tmp_path / 'state', srv.url)
    if store.exists():
        assert b'ref\\r\\n' not in store.read_bytes()
        assert b'X-Injected' not in store.read_bytes()
    assert 'X-Injected' not in m.output()
