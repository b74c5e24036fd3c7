"""The fake authorization server (tests/fake/authserver.py) on its own,
without mcpfs: a full PKCE authorization code flow by hand, refresh,
client_credentials, and its refusals, so that test_auth.py's outcomes rest
on a fake that is known to behave."""

import json
import secrets
import time
from urllib.parse import urlsplit

from auth_util import (authserver, basic, http_get, http_request,  # noqa: F401
                       post_form, post_json, query_of, s256)

REDIRECT = 'http://127.0.0.1:45678/callback'


def mcp_init(srv, token=None):
    h = {'Content-Type': 'application/json',
         'Accept': 'application/json, text/event-stream'}
    if token:
        h['Authorization'] = f'Bearer {token}'
    body = json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                       'params': {'protocolVersion': '2025-11-25',
                                  'capabilities': {},
                                  'clientInfo': {'name': 't',
                                                 'version': '0'}}})
    return http_request(srv.url, 'POST', body.encode(), h)


def mcp_call(srv, token, sid, name, rid=2, **args):
    h = {'Content-Type': 'application/json',
         'Accept': 'application/json, text/event-stream',
         'Authorization': f'Bearer {token}', 'Mcp-Session-Id': sid,
         'MCP-Protocol-Version': '2025-11-25'}
    body = json.dumps({'jsonrpc': '2.0', 'id': rid, 'method': 'tools/call',
                       'params': {'name': name, 'arguments': args}})
    return http_request(srv.url, 'POST', body.encode(), h)


def register(srv, method='none', uris=(REDIRECT,)):
    st, _, reg = post_json(srv.base + '/register', {
        'redirect_uris': list(uris), 'client_name': 'selfcheck',
        'token_endpoint_auth_method': method,
        'grant_types': ['authorization_code', 'refresh_token']})
    assert st == 201, reg
    return reg


def authorize(srv, cid, verifier, redirect=REDIRECT, **over):
    q = {'response_type': 'code', 'client_id': cid, 'redirect_uri': redirect,
         'code_challenge': s256(verifier), 'code_challenge_method': 'S256',
         'state': 'st-' + secrets.token_hex(4), 'resource': srv.url,
         'scope': 'mcp:read'}
    q.update(over)
    q = {k: v for k, v in q.items() if v is not None}
    from urllib.parse import urlencode
    return http_get(srv.base + '/authorize?' + urlencode(q)), q


def code_flow(srv, cid, verifier):
    (st, hd, body), q = authorize(srv, cid, verifier)
    assert st == 302, body
    back = query_of(hd['location'])
    assert hd['location'].startswith(REDIRECT + '?'), hd
    assert back['state'] == q['state'] and back['code'], back
    return back['code']


def test_discovery_documents(authserver):
    srv = authserver('--scopes', 'mcp:read mcp:write')
    st, hd, _ = mcp_init(srv)
    assert st == 401
    ch = hd['www-authenticate']
    assert ch.startswith('Bearer ')
    assert f'resource_metadata="{srv.base}/.well-known/' \
           'oauth-protected-resource/mcp"' in ch, ch
    assert 'scope="mcp:read"' in ch, ch
    prm = srv.get_json('/.well-known/oauth-protected-resource/mcp')
    assert prm['resource'] == srv.url
    assert prm['authorization_servers'] == [srv.base]
    md = srv.metadata()
    assert md['issuer'] == srv.base
    assert md['authorization_endpoint'] == srv.base + '/authorize'
    assert md['token_endpoint'] == srv.base + '/token'
    assert md['registration_endpoint'] == srv.base + '/register'
    assert md['code_challenge_methods_supported'] == ['S256']
    assert set(md['token_endpoint_auth_methods_supported']) == {
        'client_secret_basic', 'client_secret_post', 'none'}
    assert md['scopes_supported'] == ['mcp:read', 'mcp:write']
    assert 'refresh_token' in md['grant_types_supported']
    assert srv.get_json('/.well-known/openid-configuration') == md


def test_misbehaving_metadata(authserver):
    srv = authserver('--bad-issuer')
    assert srv.metadata()['issuer'] != srv.base
    for ep, key in (('authorization', 'authorization_endpoint'),
                    ('token', 'token_endpoint'),
                    ('registration', 'registration_endpoint')):
        srv = authserver('--insecure-endpoint', ep)
        md = srv.metadata()
        host = md[key].split('/')[2].split(':')[0]
        assert md[key].startswith('http://'), md
        assert host not in ('127.0.0.1', 'localhost', '[::1]'), md
        for other in ('authorization_endpoint', 'token_endpoint',
                      'registration_endpoint'):
            if other != key:
                assert md[other].startswith(srv.base + '/'), md
        if host != 'trap.invalid':   # the trap listener records and refuses
            st, _, _ = http_get(md[key])
            assert st == 403
            assert [r['path'] for r in srv.traps()] == \
                ['trap:' + urlsplit(md[key]).path]
    srv = authserver('--issuer-path', '/tenant')
    md = srv.get_json('/.well-known/oauth-authorization-server/tenant')
    assert md['issuer'] == srv.base + '/tenant'
    assert srv.get_json('/.well-known/oauth-protected-resource/mcp')[
        'authorization_servers'] == [srv.base + '/tenant']


def test_pkce_code_flow_refresh_and_resource(authserver):
    srv = authserver('--expires-in', 2)
    reg = register(srv)
    assert 'client_secret' not in reg
    cid = reg['client_id']
    verifier = secrets.token_urlsafe(48)
    code = code_flow(srv, cid, verifier)
    st, _, tok = post_form(srv.base + '/token', {
        'grant_type': 'authorization_code', 'code': code,
        'redirect_uri': REDIRECT, 'code_verifier': verifier,
        'client_id': cid, 'resource': srv.url})
    assert st == 200, tok
    assert tok['token_type'] == 'Bearer' and tok['expires_in'] == 2
    assert tok['scope'] == 'mcp:read' and tok['refresh_token']
    # the code is single-use
    st, _, again = post_form(srv.base + '/token', {
        'grant_type': 'authorization_code', 'code': code,
        'redirect_uri': REDIRECT, 'code_verifier': verifier,
        'client_id': cid, 'resource': srv.url})
    assert st == 400 and again['error'] == 'invalid_grant'
    # the resource accepts the token, refuses a wrong one
    st, hd, _ = mcp_init(srv, tok['access_token'])
    assert st == 200
    sid = hd['mcp-session-id']
    st, _, body = mcp_call(srv, tok['access_token'], sid, 'counter')
    assert st == 200 and json.loads(body)['result']['content'][0][
        'text'] == '1'
    st, hd, _ = mcp_init(srv, 'not-a-token')
    assert st == 401 and 'error="invalid_token"' in hd['www-authenticate']
    # expiry, then refresh (rotating) keeps the MCP session
    time.sleep(2.2)
    st, hd, _ = mcp_call(srv, tok['access_token'], sid, 'counter', 3)
    assert st == 401 and 'invalid_token' in hd['www-authenticate']
    st, _, new = post_form(srv.base + '/token', {
        'grant_type': 'refresh_token', 'refresh_token': tok['refresh_token'],
        'client_id': cid, 'resource': srv.url})
    assert st == 200, new
    assert new['access_token'] != tok['access_token']
    assert new['refresh_token'] != tok['refresh_token']
    st, _, body = mcp_call(srv, new['access_token'], sid, 'counter', 4)
    assert st == 200 and json.loads(body)['result']['content'][0][
        'text'] == '2'
    st, _, reuse = post_form(srv.base + '/token', {
        'grant_type': 'refresh_token', 'refresh_token': tok['refresh_token'],
        'client_id': cid})
    assert st == 400 and reuse['error'] == 'invalid_grant'
    # the log holds what a test needs to check
    [a] = srv.authorizes()
    assert a['params']['code_challenge_method'] == 'S256'
    assert a['params']['resource'] == srv.url
    [t] = srv.tokens('authorization_code')[:1]
    assert t['form']['code_verifier'] == verifier
    assert t['client_auth'] == 'none' and t['status'] == 200
    assert len(srv.tokens('refresh_token')) == 2
    assert {tok['access_token'], new['refresh_token'], code,
            verifier} <= srv.secrets()


def test_code_flow_refusals(authserver):
    srv = authserver()
    cid = register(srv)['client_id']
    v = secrets.token_urlsafe(48)
    # before the redirect URI is trusted: 400, no redirect
    (st, _, _), _ = authorize(srv, 'nobody', v)
    assert st == 400
    (st, _, _), _ = authorize(srv, cid, v,
                              redirect='http://127.0.0.1:1/elsewhere')
    assert st == 400
    # any loopback port is accepted (RFC 8252 7.3)
    (st, _, _), _ = authorize(srv, cid, v,
                              redirect='http://127.0.0.1:2/callback')
    assert st == 302
    # then errors go back to the client with the state
    for over, code in (({'code_challenge_method': 'plain'},
                        'invalid_request'),
                       ({'code_challenge': None}, 'invalid_request'),
                       ({'state': None}, 'invalid_request'),
                       ({'response_type': 'token'},
                        'unsupported_response_type'),
                       ({'resource': None}, 'invalid_target'),
                       ({'resource': 'http://127.0.0.1:1/mcp'},
                        'invalid_target'),
                       ({'scope': 'admin'}, 'invalid_scope')):
        (st, hd, _), q = authorize(srv, cid, v, **over)
        assert st == 302, over
        back = query_of(hd['location'])
        assert back['error'] == code, (over, back)
        assert 'code' not in back
    code = code_flow(srv, cid, v)
    for form, err in (({'code_verifier': secrets.token_urlsafe(48)},
                       'invalid_grant'),
                      ({'redirect_uri': 'http://127.0.0.1:45678/other'},
                       'invalid_grant'),
                      ({'resource': 'http://127.0.0.1:1/mcp'},
                       'invalid_target')):
        c = code_flow(srv, cid, v)
        f = {'grant_type': 'authorization_code', 'code': c,
             'redirect_uri': REDIRECT, 'code_verifier': v, 'client_id': cid}
        f.update(form)
        st, _, out = post_form(srv.base + '/token', f)
        assert st == 400 and out['error'] == err, (form, out)
    st, _, out = post_form(srv.base + '/token', {
        'grant_type': 'authorization_code', 'code': code,
        'redirect_uri': REDIRECT, 'code_verifier': v, 'client_id': 'nobody'})
    assert st == 401 and out['error'] == 'invalid_client'
    st, _, out = post_form(srv.base + '/token', {'grant_type': 'password',
                                                 'client_id': cid})
    assert st == 400 and out['error'] == 'unsupported_grant_type'


def test_client_auth_methods_and_client_credentials(authserver):
    srv = authserver('--client', 'cc:s3cret', '--auth-methods',
                     'client_secret_post', '--tool-scope', 'echo=mcp:write')
    st, _, out = post_form(srv.base + '/token', {
        'grant_type': 'client_credentials'},
        {'Authorization': basic('cc', 's3cret')})
    assert st == 401 and out['error'] == 'invalid_client'   # basic not listed
    st, _, out = post_form(srv.base + '/token', {
        'grant_type': 'client_credentials', 'client_id': 'cc',
        'client_secret': 'wrong'})
    assert st == 401 and out['error'] == 'invalid_client'
    st, _, out = post_form(srv.base + '/token', {
        'grant_type': 'client_credentials', 'client_id': 'cc'})
    assert st == 401 and out['error'] == 'invalid_client'   # no secret
    st, _, tok = post_form(srv.base + '/token', {
        'grant_type': 'client_credentials', 'client_id': 'cc',
        'client_secret': 's3cret', 'scope': 'mcp:read',
        'resource': srv.url})
    assert st == 200 and 'refresh_token' not in tok, tok
    st, hd, _ = mcp_init(srv, tok['access_token'])
    assert st == 200
    sid = hd['mcp-session-id']
    st, _, body = mcp_call(srv, tok['access_token'], sid, 'token_info')
    info = json.loads(json.loads(body)['result']['content'][0]['text'])
    assert info == {'client_id': 'cc', 'scopes': ['mcp:read'],
                    'grant': 'client_credentials'}
    st, hd, _ = mcp_call(srv, tok['access_token'], sid, 'echo', text='x')
    assert st == 403
    assert 'error="insufficient_scope"' in hd['www-authenticate']
    assert 'mcp:write' in hd['www-authenticate']
    [ok] = [r for r in srv.tokens('client_credentials')
            if r['status'] == 200]
    assert ok['client_auth'] == 'post' and ok['client_id'] == 'cc'

    srv = authserver('--auth-methods', 'client_secret_basic')
    reg = register(srv, 'client_secret_basic')
    assert reg['client_secret']
    _, out = post_json(srv.base + '/register', {
        'redirect_uris': [REDIRECT], 'token_endpoint_auth_method': 'none'}
    )[::2]
    assert out['error'] == 'invalid_client_metadata'
    st, _, out = post_json(srv.base + '/register', {
        'redirect_uris': ['http://example.com/cb']})
    assert st == 400 and out['error'] == 'invalid_redirect_uri'
    v = secrets.token_urlsafe(48)
    code = code_flow(srv, reg['client_id'], v)
    st, _, out = post_form(srv.base + '/token', {
        'grant_type': 'authorization_code', 'code': code,
        'redirect_uri': REDIRECT, 'code_verifier': v},
        {'Authorization': basic(reg['client_id'], reg['client_secret'])})
    assert st == 200 and out['access_token'], out
    assert srv.tokens()[-1]['client_auth'] == 'basic'


def test_revoke_after(authserver):
    srv = authserver('--client', 'c:s', '--revoke-after', 1)
    st, _, tok = post_form(srv.base + '/token', {
        'grant_type': 'client_credentials', 'client_id': 'c',
        'client_secret': 's'})
    assert st == 200 and tok['expires_in'] == 3600
    st, hd, _ = mcp_init(srv, tok['access_token'])
    assert st == 200
    time.sleep(1.1)
    st, hd, _ = mcp_init(srv, tok['access_token'])
    assert st == 401 and 'error="invalid_token"' in hd['www-authenticate']


def test_iss_in_the_response(authserver):
    for opt, want in (('--send-iss', ''), ('--bad-iss', '/not-this-one')):
        srv = authserver(opt, '--client', 'pub')
        (st, hd, _), _ = authorize(srv, 'pub', secrets.token_urlsafe(48))
        assert st == 302
        assert query_of(hd['location'])['iss'] == srv.base + want
