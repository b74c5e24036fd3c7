"""OAuth 2.1 for HTTP servers (spec 8):
real mounts of mcpfs against tests/fake/authserver.py, a fake
authorization server that is also the MCP resource (proven on its own by
test_authserver.py). Each test gets its own XDG_STATE_HOME, so the token
store is $tmp/state/mcpfs/auth/.

The browser is played by the test: read MOUNT/<server>/auth, GET the
authorizationUrl without following the redirect (the fake answers 302 at
once), then GET the Location, which is mcpfs's loopback listener."""

import concurrent.futures
import errno
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from auth_util import (authorize_redirect, authserver, mode_of,  # noqa: F401
                       open_callback, query_of, s256, store_dir, store_file,
                       store_name, with_query)
from conftest import (call, fake, read_file, REPO, run_mcpfs_expect_exit,
                      run_with_deadline, text, thread, wait_until, write_file)

REQUIRED = -32001
WAITING = ('required', 'pending')
FAKE_HTTP = REPO / 'tests/fake/mcp_http.py'


# ---------------------------------------------------------------- helpers

def mount(mcpfs_mount, tmp_path, srv, oauth=None, extra=None, name='h'):
    """mcpfs with one url server `name` (plus extra entries), its token
    store under tmp_path/state."""
    e = {'url': srv.url, 'timeout': 30}
    if oauth is not None:
        e['oauth'] = oauth
    servers = {name: e}
    servers.update(extra or {})
    return mcpfs_mount(servers, env={'XDG_STATE_HOME':
                                     str(tmp_path / 'state')})


def auth(m, server='h'):
    raw = read_file(m.path / server / 'auth')
    assert raw.endswith(b'\n') and raw.count(b'\n') == 1, raw
    try:
        return json.loads(raw)
    except ValueError:
        pytest.fail(f'{server}/auth is not JSON: {raw!r}')


def wait_auth(m, states, server='h', timeout=15, srv=None):
    """Wait until auth shows one of states; returns it."""
    if isinstance(states, str):
        states = (states,)
    seen = []

    def shows():
        a = auth(m, server)
        seen[:] = [a]
        return a if a['state'] in states else None
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        a = shows()
        if a:
            return a
        time.sleep(0.05)
    pytest.fail(f'{server}/auth never showed {states}: last {seen}\n'
                + (srv.diag() if srv else '') + '\n' + m.output()[-2000:])


def echo(t, msg='hi', timeout=30):
    return call(t, {'name': 'echo', 'arguments': {'text': msg}}, timeout)


def counter(t, tag, timeout=30):
    return call(t, {'name': 'counter', 'arguments': {'thread': tag}},
                timeout)


def assert_required(reply, server='h'):
    """reply is the -32001 authorization-required error; returns it."""
    assert isinstance(reply, dict) and 'error' in reply, \
        f'expected -32001, got {reply!r}'
    e = reply['error']
    assert e.get('code') == REQUIRED, e
    assert e.get('message', '').startswith('authorization required'), e
    data = e.get('data') or {}
    assert data.get('auth') == f'{server}/auth', e
    assert isinstance(data.get('authorizationUrl'), str), e
    return e


def assert_refused(reply, *words, server='h'):
    """A -32001 whose message names the cause (each of words)."""
    assert isinstance(reply, dict) and 'error' in reply, \
        f'expected -32001, got {reply!r}'
    e = reply['error']
    assert e.get('code') == REQUIRED, e
    for w in words:
        assert w in e.get('message', ''), (w, e)
    return e


def assert_ok(reply, want):
    assert isinstance(reply, dict) and 'error' not in reply, reply
    assert text(reply) == want, reply


def redirect_uri_ok(uri):
    return re.fullmatch(r'http://127\.0\.0\.1:\d+/callback', uri or '')


def listening(uri):
    u = urlsplit(uri)
    try:
        with socket.create_connection((u.hostname, u.port), timeout=2):
            return True
    except OSError:
        return False


def sign_in(m, srv, server='h'):
    """The browser step on a waiting flow; returns (auth shown before,
    the Location it was redirected to, auth shown after)."""
    a = wait_auth(m, WAITING, server, srv=srv)
    loc = authorize_redirect(a['authorizationUrl'])
    assert loc.startswith(a['redirectUri'] + '?'), (loc, a)
    st, body = open_callback(loc)
    assert st == 200, (st, body)
    done = wait_auth(m, 'authorized', server, srv=srv)
    return a, loc, done


def first_sign_in(m, srv, t, server='h'):
    """A call on t fails with -32001, then the browser step: signed in."""
    assert_required(echo(t), server)
    return sign_in(m, srv, server)


def mount_files(m):
    """(path, bytes) of every file of the mount that can be read."""
    out = []
    for d, dirs, files in os.walk(m.path, onerror=lambda e: None):
        for f in files:
            p = Path(d) / f
            try:
                out.append((p, read_file(p, 15)))
            except OSError:
                pass
    return out


def assert_no_secret(m, secrets):
    """None of secrets in any file of the mount, the log, stderr, stdout."""
    assert secrets
    blobs = mount_files(m)
    for p in (m.log, m.stderr, m.stdout):
        if p.exists():
            blobs.append((p, p.read_bytes()))
    for p, b in blobs:
        for s in secrets:
            assert s.encode() not in b, f'a secret ({s[:6]}...) is in {p}'
    return blobs


# ---------------------------------------------------------------- the flow

def test_call_before_sign_in_fails_at_once(mcpfs_mount, authserver,
                                           tmp_path):
    srv = authserver()
    m = mount(mcpfs_mount, tmp_path, srv,
              extra={'s': fake()})
    st = os.stat(m.path / 'h' / 'auth')
    assert st.st_mode & 0o777 == 0o600
    assert not (m.path / 's' / 'auth').exists()   # stdio: no auth file
    t = thread(m, 'h')
    reply = echo(t)
    e = assert_required(reply)
    assert t.is_dir()     # the thread stays a directory
    reply = call(m.path / 'h', {'name': 'echo', 'arguments': {'text': 'x'}})
    assert_required(reply)
    a = auth(m)
    assert a['state'] in WAITING, a
    assert redirect_uri_ok(a['redirectUri']), a
    assert listening(a['redirectUri'])
    url = a['authorizationUrl']
    assert url.startswith(srv.base + '/authorize?'), a
    q = query_of(url)
    assert q['response_type'] == 'code'
    assert q['code_challenge_method'] == 'S256' and q['code_challenge']
    assert q['state'] and q['resource'] == srv.url, q
    assert q['redirect_uri'] == a['redirectUri'], q
    assert e['data']['authorizationUrl'].startswith(srv.base +
                                                    '/authorize?'), e
    assert set(a) == {'state', 'authorizationUrl', 'redirectUri'}, a
    assert not srv.tokens()    # nothing was exchanged


def test_browser_sign_in_then_call_goes_through(mcpfs_mount, authserver,
                                               tmp_path):
    srv = authserver('--expires-in', 600)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    before, loc, done = first_sign_in(m, srv, t)
    assert set(done) == {'state', 'scopes', 'expiresAt'}, done
    assert done['scopes'] == ['mcp:read'], done   # the challenge's scope
    assert done['expiresAt'].endswith('Z'), done   # RFC 3339 UTC
    exp = datetime.fromisoformat(done['expiresAt'].replace('Z', '+00:00'))
    assert abs(exp.timestamp() - (time.time() + 600)) < 60, done
    assert_ok(echo(t, 'after'), 'after')          # the same thread
    assert_ok(echo(thread(m, 'h', 'u'), 'new'), 'new')  # and a new one
    assert_ok(call(m.path / 'h', {'name': 'echo',
                                  'arguments': {'text': 'one'}}), 'one')
    tools = json.loads(read_file(m.path / 'h' / 'tools.json', 20))
    assert 'counter' in json.dumps(tools)   # its short-lived session too
    # what went over the wire
    [az] = srv.authorizes()
    p = az['params']
    assert p['code_challenge_method'] == 'S256' and p['state']
    assert p['resource'] == srv.url
    assert query_of(loc)['state'] == p['state']
    assert p['scope'].split() == ['mcp:read'], p   # no offline_access
    [tk] = srv.tokens('authorization_code')
    f = tk['form']
    assert tk['status'] == 200, tk
    assert s256(f['code_verifier']) == p['code_challenge']
    assert f['resource'] == srv.url
    assert f['redirect_uri'] == p['redirect_uri'] == before['redirectUri']
    assert f['code'] == query_of(loc)['code']
    # every MCP request after sign-in carried the bearer token
    issued = tk['response']['access_token']
    later = [r for r in srv.mcp() if r['n'] > tk['n']]
    assert later
    for r in later:
        assert r['headers'].get('authorization') == f'Bearer {issued}', r
    # a line in the log and in the thread's events for the state change
    wait_until(lambda: b'authorized' in read_file(t / 'events'), 5,
               'an events line for the sign-in')
    for line in read_file(t / 'events').decode().splitlines():
        json.loads(line)
    assert 'authorized' in m.output()
    # the listener is gone once the flow is over
    wait_until(lambda: not listening(before['redirectUri']), 5,
               'the loopback listener to close')


@pytest.mark.parametrize('how', ['expiry', 'revoked'])
def test_refresh_under_8_threads_shares_one_refresh(mcpfs_mount, authserver,
                                                    tmp_path, how):
    # expiry: expires_in 2, mcpfs may refresh ahead of time or on the 401;
    # revoked: expires_in says an hour but the resource refuses the token
    # after 2 s, so all 8 threads get the 401 at once and must share one
    # refresh; the 401s come 200 ms late, so some arrive after the new
    # token did (a 401 for a token already replaced sends again, without
    # another refresh)
    life = 2
    srv = authserver(*(['--expires-in', life] if how == 'expiry' else
                       ['--expires-in', 3600, '--revoke-after', life,
                        '--delay-401', 200]))
    m = mount(mcpfs_mount, tmp_path, srv)
    t0 = thread(m, 'h', 't0')
    first_sign_in(m, srv, t0)
    threads = [t0] + [thread(m, 'h', f't{i}') for i in range(1, 8)]
    counts = {}
    for t in threads:
        assert_ok(counter(t, t.name), '1')
        counts[t.name] = 1
    [code_grant] = srv.tokens('authorization_code')
    stop_at = time.monotonic() + 4.3 * life     # 4 expiries at least
    errors = []
    lock = threading.Lock()

    def loop(t):
        while time.monotonic() < stop_at and not errors:
            r = counter(t, t.name)
            want = str(counts[t.name] + 1)
            if not isinstance(r, dict) or 'error' in r or \
                    text(r) != want:
                with lock:
                    errors.append((t.name, want, r))
                return
            counts[t.name] += 1
            time.sleep(0.02)

    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        list(ex.map(loop, threads))
    assert not errors, f'{errors[:3]}\n{srv.diag()}'
    assert all(c > 5 for c in counts.values()), counts
    refreshes = srv.tokens('refresh_token')
    assert len(refreshes) >= 3, f'{len(refreshes)} refreshes\n{srv.diag()}'
    for r in refreshes:
        assert r['status'] == 200, srv.diag()
    used = [r['form']['refresh_token'] for r in refreshes]
    assert len(set(used)) == len(used), 'a refresh token was used twice'
    # one refresh per expiry: never two within half a token's lifetime
    times = [code_grant['t']] + [r['t'] for r in refreshes]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert min(gaps) >= life / 2, f'refreshes {gaps} s apart (not one ' \
        f'per expiry)\n{srv.diag()}'
    # no other grant, no new authorization
    assert len(srv.tokens()) == 1 + len(refreshes), srv.diag()
    assert len(srv.authorizes()) == 1
    # the refreshes kept every MCP session: one session id per thread
    by_thread = {}
    for r in srv.tool_calls('counter'):
        tag = r['json']['params']['arguments']['thread']
        by_thread.setdefault(tag, set()).add(r['headers'].get(
            'mcp-session-id'))
    assert set(by_thread) == {t.name for t in threads}
    for tag, sids in by_thread.items():
        assert len(sids) == 1 and None not in sids, (tag, sids)
    assert len(set().union(*by_thread.values())) == 8
    assert not [r for r in srv.mcp() if r['method'] == 'DELETE']


def login_waiting(mcpfs_mount, authserver, tmp_path):
    """A fresh authorization server and mount whose first call was refused
    (REQUIRED), auth.json waiting for the user: (srv, mount, thread,
    auth.json)."""
    srv = authserver()
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    assert_required(echo(t))
    return srv, m, t, wait_auth(m, WAITING)


def test_forged_callback_refused(mcpfs_mount, authserver, tmp_path):
    srv, m, t, a = login_waiting(mcpfs_mount, authserver, tmp_path)
    cb = a['redirectUri']
    for forged in (f'{cb}?code=forged&state=not-the-state',
                   f'{cb}?code=forged'):
        st, body = open_callback(forged)
        assert st == 400, (forged, st, body)
        assert auth(m)['state'] in WAITING
    assert not srv.tokens(), 'a forged callback reached the token endpoint'
    assert_required(echo(t))
    loc = authorize_redirect(a['authorizationUrl'])
    # the right code with a wrong state is refused too
    st, _ = open_callback(with_query(loc, state='x' + query_of(loc)['state']))
    assert st == 400
    assert auth(m)['state'] in WAITING
    st, body = open_callback(loc)
    assert st == 200, (st, body)
    wait_auth(m, 'authorized', srv=srv)
    assert_ok(echo(t, 'real'), 'real')
    assert len(srv.tokens('authorization_code')) == 1


def test_pasted_redirect_url(mcpfs_mount, authserver, tmp_path):
    srv, m, t, a = login_waiting(mcpfs_mount, authserver, tmp_path)
    loc = authorize_redirect(a['authorizationUrl'])   # the "other browser"
    bad = with_query(loc, state='forged-' + query_of(loc)['state'])
    with pytest.raises(OSError) as ei:
        write_file(m.path / 'h' / 'auth', bad)
    assert ei.value.errno == errno.EINVAL
    assert auth(m)['state'] in WAITING
    assert not srv.tokens()
    write_file(m.path / 'h' / 'auth', loc)
    wait_auth(m, 'authorized', srv=srv)
    assert_ok(echo(t, 'pasted'), 'pasted')
    [tk] = srv.tokens('authorization_code')
    assert tk['form']['code'] == query_of(loc)['code']


@pytest.mark.parametrize('opts', [['--no-resource-metadata-header'],
                                  ['--issuer-path', '/tenant1']],
                         ids=['well-known-prm', 'issuer-path'])
def test_discovery_variants(mcpfs_mount, authserver, tmp_path, opts):
    # the resource metadata from its well-known path (no resource_metadata
    # in the challenge); an issuer with a path (RFC 8414 path-aware URL)
    srv = authserver(*opts)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    first_sign_in(m, srv, t)
    assert_ok(echo(t, 'found'), 'found')
    paths = [r['path'] for r in srv.log()]
    assert '/.well-known/oauth-protected-resource/mcp' in paths or \
        '/.well-known/oauth-protected-resource' in paths, paths
    if '--issuer-path' in opts:
        assert any(p.endswith('/tenant1') or p.startswith('/tenant1/')
                   for p in paths if p.startswith('/.well-known/') or
                   p.startswith('/tenant1')), paths


@pytest.mark.parametrize('iss', ['--send-iss', '--bad-iss'])
def test_iss_in_the_authorization_response(mcpfs_mount, authserver, tmp_path,
                                           iss):
    # RFC 9207: an iss in the response must be the issuer's
    srv = authserver(iss)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    assert_required(echo(t))
    a = wait_auth(m, WAITING)
    loc = authorize_redirect(a['authorizationUrl'])
    assert 'iss=' in loc
    st, body = open_callback(loc)
    if iss == '--send-iss':
        assert st == 200, (st, body)
        wait_auth(m, 'authorized', srv=srv)
        assert_ok(echo(t, 'iss'), 'iss')
        return
    time.sleep(0.5)
    assert auth(m)['state'] != 'authorized'
    assert not srv.tokens(), 'the code of a response from another issuer ' \
        'was exchanged'
    assert echo(t)['error']['code'] == REQUIRED


def test_login_logout_and_bad_verbs(mcpfs_mount, authserver, tmp_path):
    srv = authserver()
    m = mount(mcpfs_mount, tmp_path, srv)
    f = m.path / 'h' / 'auth'
    assert auth(m) == {'state': 'none'}
    for bad in ('bogus', 'log in', 'ftp://x/'):
        with pytest.raises(OSError) as ei:
            write_file(f, bad)
        assert ei.value.errno == errno.EINVAL, bad
    t = thread(m, 'h')
    before, _, _ = first_sign_in(m, srv, t)
    assert_ok(echo(t), 'hi')
    store = store_file(tmp_path / 'state', srv.url)
    assert store.exists()
    # login: a fresh flow
    write_file(f, 'login\n')
    a = wait_auth(m, WAITING)
    # the registration is kept and reused
    assert query_of(a['authorizationUrl'])['client_id'] == \
        query_of(before['authorizationUrl'])['client_id']
    assert len(srv.registrations()) == 1
    assert a['redirectUri'] == before['redirectUri']   # a stable port
    assert a['authorizationUrl'] != before['authorizationUrl']
    assert query_of(a['authorizationUrl'])['state'] != \
        query_of(before['authorizationUrl'])['state']
    sign_in(m, srv)
    assert len(srv.tokens('authorization_code')) == 2
    # logout: tokens and registration forgotten, the store file removed
    regs = len(srv.registrations())
    write_file(f, 'logout')
    assert wait_auth(m, 'none') == {'state': 'none'}
    wait_until(lambda: not store.exists(), 5, 'the store file to go')
    e = assert_required(echo(t))
    a = wait_auth(m, WAITING)
    assert e['data']['authorizationUrl'].startswith(srv.base + '/authorize')
    assert len(srv.registrations()) == regs + 1, 'registration not forgotten'
    assert query_of(a['authorizationUrl'])['client_id'] != \
        query_of(before['authorizationUrl'])['client_id']
    # the log has a line for the state changes
    out = m.output()
    assert re.search(r'auth.*authorized', out), out[-2000:]


def test_configured_client_scopes_and_redirect_port(mcpfs_mount, authserver,
                                                    tmp_path):
    srv = authserver('--client', 'preset-client')      # public: no secret
    with socket.socket() as so:
        so.bind(('127.0.0.1', 0))
        port = so.getsockname()[1]
    m = mount(mcpfs_mount, tmp_path, srv, oauth={
        'clientId': 'preset-client', 'redirectPort': port,
        'scopes': 'mcp:read mcp:write'})
    t = thread(m, 'h')
    assert_required(echo(t))
    a = wait_auth(m, WAITING)
    assert a['redirectUri'] == f'http://127.0.0.1:{port}/callback', a
    q = query_of(a['authorizationUrl'])
    assert q['client_id'] == 'preset-client'
    assert {'mcp:read', 'mcp:write'} <= set(q['scope'].split()), q
    sign_in(m, srv)
    assert_ok(echo(t, 'preset'), 'preset')
    assert not srv.registrations()
    [tk] = srv.tokens('authorization_code')
    assert tk['client_auth'] == 'none' and tk['client_id'] == 'preset-client'


def test_insufficient_scope_steps_up(mcpfs_mount, authserver, tmp_path):
    srv = authserver('--tool-scope', 'echo=mcp:write')
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    assert_required(counter(t, 't'))
    _, _, done = sign_in(m, srv)
    assert done['scopes'] == ['mcp:read'], done
    assert_ok(counter(t, 't'), '1')
    # echo needs mcp:write: a new authorization with the union of scopes
    e = assert_required(echo(t, 'up'))
    a = wait_auth(m, WAITING)
    want = {'mcp:read', 'mcp:write'}
    assert set(query_of(a['authorizationUrl'])['scope'].split()) == want, a
    assert set(query_of(e['data']['authorizationUrl'])['scope'].split()) \
        == want, e
    _, _, done = sign_in(m, srv)
    assert set(done['scopes']) == want, done
    assert_ok(echo(t, 'up'), 'up')
    r = counter(t, 't')    # the same session or a fresh start (both allowed)
    assert 'error' not in r and text(r) in ('1', '2'), r
    assert len([r for r in srv.tool_calls('echo') if r['status'] == 403]) \
        <= 3


# ---------------------------------------------------------------- the store

def test_remount_reuses_stored_tokens(mcpfs_mount, authserver, tmp_path):
    srv = authserver('--expires-in', 600)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    first_sign_in(m, srv, t)
    assert_ok(echo(t, 'one'), 'one')
    m.unmount()
    store = store_file(tmp_path / 'state', srv.url)
    assert store.exists()
    n_log = len(srv.log())
    m2 = mount(mcpfs_mount, tmp_path, srv)
    reply = echo(thread(m2, 'h'), 'two')
    assert_ok(reply, 'two')
    assert len(srv.authorizes()) == 1, 'a new authorization after remount'
    assert len(srv.tokens('authorization_code')) == 1
    assert auth(m2)['state'] == 'authorized'
    later = [r for r in srv.log()[n_log:] if r['path'] == '/mcp']
    issued = srv.tokens('authorization_code')[0]['response']['access_token']
    assert any(r['headers'].get('authorization') == f'Bearer {issued}'
               for r in later)


@pytest.mark.parametrize('how', ['mode', 'owner'])
def test_store_file_with_wrong_permissions_refused(mcpfs_mount, authserver,
                                                   tmp_path, how):
    srv = authserver('--expires-in', 600)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    first_sign_in(m, srv, t)
    assert_ok(echo(t), 'hi')
    m.unmount()
    store = store_file(tmp_path / 'state', srv.url)
    if how == 'mode':
        os.chmod(store, 0o644)
    else:
        if os.getuid() != 0:
            pytest.skip('chown to another user needs root')
        os.chown(store, 65534, 65534)
    before = (store.read_bytes(), os.stat(store))
    n_log = len(srv.log())
    m2 = mount(mcpfs_mount, tmp_path, srv)
    t2 = thread(m2, 'h')
    reply = echo(t2)
    e = assert_refused(reply, 'permissions', store.name)
    a = wait_auth(m2, 'failed')
    assert 'permissions' in a['error'] and store.name in a['error'], a
    assert set(a) == {'state', 'error'}, a
    st = os.stat(store)
    assert store.read_bytes() == before[0]
    assert (st.st_mode, st.st_uid, st.st_mtime_ns, st.st_ino) == \
        (before[1].st_mode, before[1].st_uid, before[1].st_mtime_ns,
         before[1].st_ino)
    # the tokens in it were not used
    issued = srv.tokens('authorization_code')[0]['response']['access_token']
    for r in srv.log()[n_log:]:
        assert issued not in json.dumps(r.get('headers')), r
    assert e['code'] == REQUIRED


def test_store_layout_and_no_secret_anywhere(mcpfs_mount, authserver,
                                             tmp_path):
    srv = authserver('--expires-in', 2, '--auth-methods',
                     'client_secret_post client_secret_basic')
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    first_sign_in(m, srv, t)
    assert_ok(echo(t, 'a'), 'a')
    time.sleep(2.3)                                # the token expires
    assert_ok(echo(t, 'b'), 'b')
    wait_until(lambda: srv.tokens('refresh_token'), 5, 'a refresh')
    assert_ok(echo(t, 'c'), 'c')
    d = store_dir(tmp_path / 'state')
    assert mode_of(d) == 0o700
    assert sorted(os.listdir(d)) == [store_name(srv.url)], os.listdir(d)
    f = d / store_name(srv.url)
    assert mode_of(f) == 0o600 and os.stat(f).st_uid == os.getuid()
    secrets = srv.secrets()
    [reg] = [r for r in srv.registrations() if r['status'] == 201]
    kinds = {'client_secret': reg['response'].get('client_secret'),
             'code': srv.tokens('authorization_code')[0]['form']['code'],
             'verifier': srv.tokens('authorization_code')[0]['form'][
                 'code_verifier'],
             'refresh': srv.tokens('refresh_token')[0]['form'][
                 'refresh_token'],
             'access': srv.tokens('refresh_token')[0]['response'][
                 'access_token']}
    assert kinds['client_secret'], 'expected a confidential registration'
    assert all(kinds.values()) and set(kinds.values()) <= secrets, kinds
    blobs = assert_no_secret(m, secrets)
    names = {p.name for p, _ in blobs}
    assert {'auth', 'events', 'status', '.status'} <= names, names
    assert 'client_secret' not in read_file(m.path / 'h' / 'auth').decode()


# ---------------------------------------------------------------- refusals

@pytest.mark.parametrize('endpoint', ['authorization', 'registration',
                                      'token'])
def test_insecure_endpoint_refused(mcpfs_mount, authserver, tmp_path,
                                   endpoint):
    srv = authserver('--insecure-endpoint', endpoint)
    md = srv.metadata()
    bad = md[{'authorization': 'authorization_endpoint',
              'registration': 'registration_endpoint',
              'token': 'token_endpoint'}[endpoint]]
    assert bad.startswith('http://') and not bad.startswith(srv.base)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    reply = echo(t)
    a = auth(m)
    if endpoint == 'token' and a['state'] in WAITING:
        # refused when the code would go to it, at the latest
        assert not a['authorizationUrl'].startswith(bad)
        loc = authorize_redirect(a['authorizationUrl'])
        open_callback(loc)
        reply = echo(t)
    else:
        assert a['state'] not in WAITING, \
            f'a flow was offered with {bad}: {a}'
    a = wait_auth(m, 'failed', srv=srv)
    assert 'http://' in a['error'] and 'refused' in a['error'], a
    assert_refused(reply, 'refused')
    assert_refused(echo(t), 'refused')
    assert not srv.traps(), 'a request reached the insecure endpoint'
    assert auth(m)['state'] == 'failed'


def test_issuer_mismatch_refused(mcpfs_mount, authserver, tmp_path):
    srv = authserver('--bad-issuer')
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    reply = echo(t)
    assert_refused(reply, 'issuer mismatch')
    a = wait_auth(m, 'failed', srv=srv)
    assert 'issuer mismatch' in a['error'], a
    assert not srv.registrations() and not srv.authorizes() and \
        not srv.tokens(), srv.diag()


# ---------------------------------------------------------------- config

@pytest.mark.parametrize('method', ['client_secret_basic',
                                    'client_secret_post'])
def test_client_credentials(mcpfs_mount, authserver, tmp_path, method):
    secret = 'cc-secret-' + os.urandom(6).hex()
    srv = authserver('--client', f'cc-client:{secret}', '--auth-methods',
                     method, '--expires-in', 2)
    oauth = {'grant': 'client_credentials', 'clientId': 'cc-client',
             'clientSecret': secret}
    if method == 'client_secret_post':     # ${VAR} as in other strings
        oauth['clientSecret'] = '${MCPFS_TEST_CC_SECRET}'
    os.environ['MCPFS_TEST_CC_SECRET'] = secret
    try:
        m = mount(mcpfs_mount, tmp_path, srv, oauth=oauth)
    finally:
        del os.environ['MCPFS_TEST_CC_SECRET']
    t = thread(m, 'h')
    reply = echo(t, 'cc')
    assert_ok(reply, 'cc')
    info = json.loads(text(call(t, {'name': 'token_info', 'arguments': {}})))
    assert info['client_id'] == 'cc-client'
    assert info['grant'] == 'client_credentials'
    assert auth(m)['state'] == 'authorized'
    assert not srv.authorizes() and not srv.registrations()
    grants = srv.tokens()
    assert grants and all(r['form'].get('grant_type') ==
                          'client_credentials' for r in grants), srv.diag()
    ok = [r for r in grants if r['status'] == 200]
    assert ok and all(r['client_auth'] == method.replace(
        'client_secret_', '') for r in ok), srv.diag()
    time.sleep(2.3)              # expired; no refresh token: a new grant
    assert_ok(echo(t, 'later'), 'later')
    assert len([r for r in srv.tokens() if r['status'] == 200]) >= 2
    assert_no_secret(m, srv.secrets() | {secret})


def test_oauth_false_never_authorizes(mcpfs_mount, authserver, tmp_path):
    srv = authserver()
    m = mount(mcpfs_mount, tmp_path, srv, oauth=False)
    t = thread(m, 'h')
    reply = echo(t, timeout=40)
    assert 'error' in reply and reply['error'].get('code') != REQUIRED, reply
    assert auth(m) == {'state': 'none'}
    assert [r['path'] for r in srv.log() if r['path'] != '/mcp'] == []
    assert not (tmp_path / 'state' / 'mcpfs' / 'auth').exists() or \
        not os.listdir(tmp_path / 'state' / 'mcpfs' / 'auth')


def test_unprotected_server_stays_none(mcpfs_mount, tmp_path):
    p = subprocess.Popen([sys.executable, str(FAKE_HTTP)],
                         stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        port = int(run_with_deadline(p.stdout.readline, 10, 'mcp_http'))

        class Srv:
            url = f'http://127.0.0.1:{port}/mcp'
        m = mount(mcpfs_mount, tmp_path, Srv)
        assert auth(m) == {'state': 'none'}
        assert_ok(echo(thread(m, 'h'), 'open'), 'open')
        assert auth(m) == {'state': 'none'}
        with urllib.request.urlopen(f'http://127.0.0.1:{port}/log') as r:
            log = json.load(r)
        assert {r['path'] for r in log} == {'/mcp'}
    finally:
        p.terminate()
        p.wait(5)
        p.stdout.close()


@pytest.mark.parametrize('oauth', [{'clientId': 'x', 'bogusKey': 1},
                                   {'grant': 'client_credentials',
                                    'clientid': 'x'}])
def test_unknown_oauth_key_is_a_config_error(tmp_path, oauth):
    bad = [k for k in oauth if k not in ('clientId', 'grant')][0]
    doc = {'mcpServers': {'h': {'url': 'http://127.0.0.1:9/mcp',
                                'oauth': oauth}}}
    rc, out = run_mcpfs_expect_exit(tmp_path, json.dumps(doc, indent=1))
    assert rc == 1
    assert bad in out, out
