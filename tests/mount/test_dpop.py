"""DPoP (SEP-1932, RFC 9449; doc/oauth.md) against the fake authorization
server (tests/fake/authserver.py --dpop): tokens the server types DPoP are
sent with the DPoP scheme and a fresh proof per request, "dpop": false
keeps Bearer, and a resource server that answers use_dpop_nonce to every
proof cannot make mcpfs send a call forever. The proofs themselves (claims,
signature, the nonce honoured) are checked by the conformance suite
(test_conformance.py: auth/dpop, auth/dpop-nonce) and test_oauth.c."""

import json

from auth_util import authserver  # noqa: F401
from test_auth import echo, first_sign_in, mount, thread


def mcp_posts(srv):
    return [r for r in srv.log()
            if r.get('path') == '/mcp' and r.get('method') == 'POST']


def hdr(r, name):
    for k, v in (r.get('headers') or {}).items():
        if k.lower() == name.lower():
            return v
    return None


def test_dpop_token_sent_with_fresh_proofs(mcpfs_mount, authserver,
                                           tmp_path):
    srv = authserver('--dpop', 'bind')
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    first_sign_in(m, srv, t)
    for i in range(3):
        r = echo(t, f'hi {i}')
        assert 'error' not in r and not r.get('isError'), r
    tok = [r for r in srv.log() if r.get('path') == '/token']
    assert tok and all(hdr(r, 'DPoP') for r in tok), tok
    sent = [r for r in mcp_posts(srv)
            if (hdr(r, 'Authorization') or '').startswith('DPoP ')]
    assert len(sent) >= 3, mcp_posts(srv)
    proofs = [hdr(r, 'DPoP') for r in sent]
    assert all(proofs) and len(set(proofs)) == len(proofs), proofs
    assert not any((hdr(r, 'Authorization') or '').startswith('Bearer ')
                   for r in mcp_posts(srv))


def test_dpop_false_keeps_bearer(mcpfs_mount, authserver, tmp_path):
    srv = authserver('--dpop', 'bind')
    m = mount(mcpfs_mount, tmp_path, srv, oauth={'dpop': False})
    t = thread(m, 'h')
    first_sign_in(m, srv, t)
    r = echo(t)
    assert 'error' not in r and not r.get('isError'), r
    assert not any(hdr(r, 'DPoP') for r in srv.log()), srv.log()
    assert any((hdr(r, 'Authorization') or '').startswith('Bearer ')
               for r in mcp_posts(srv))


def test_nonce_demanded_forever_is_bounded(mcpfs_mount, authserver,
                                           tmp_path):
    """Every proof answered 401 use_dpop_nonce (the same nonce): the call
    fails in the end (the session's start fails, "HTTP 401 from the
    server", with the start back-off), after a bounded number of sends."""
    srv = authserver('--dpop', 'nonce-loop')
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    first_sign_in(m, srv, t)
    before = len(mcp_posts(srv))
    r = echo(t, timeout=60)
    assert 'error' in r or r.get('isError'), r
    sent = mcp_posts(srv)[before:]
    looped = [x for x in sent if x.get('note') == 'use_dpop_nonce']
    assert looped and all(hdr(x, 'DPoP') for x in looped), sent
    # each request (the session's start, server/discover then initialize,
    # as the era is detected) sent at most 5 times: once, and 4 more at
    # most (the HTTP transport's bound on sending again for authorization)
    per = {}
    for x in looped:
        k = (x.get('json') or {}).get('method')
        per[k] = per.get(k, 0) + 1
    assert all(n <= 5 for n in per.values()), per
    n = len(mcp_posts(srv))  # nothing sends on its own afterwards
    r = echo(t, timeout=60)
    assert 'error' in r or r.get('isError'), r
    again = mcp_posts(srv)[n:]
    assert len(again) <= 10, len(again)
