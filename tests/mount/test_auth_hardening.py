"""OAuth hardening (spec 8; spec 6 for the secrets): what an authorization or resource
server sends is checked before use, and the token store is opened without
following links or blocking. Each test is a finding reproduced on the base
code: a token carrying CR LF injected a header into every later request;
a FIFO at the store path froze the whole mount; a symlinked store
directory was followed (its target chmod'ed 0700 and given tokens); a
remote server's 401 made mcpfs GET a loopback URL; expires_in 1e308 or
-5 were taken as they came; a store file over 64 KiB was overwritten."""

import http.server
import json
import os
import stat
import sys
import threading
import time
from datetime import datetime, timezone

import pytest

from auth_util import (authserver, store_dir, store_file,  # noqa: F401
                       store_name)
from conftest import REPO, read_file, run_with_deadline
from test_auth import (assert_ok, auth, echo, first_sign_in, mount, thread,
                       wait_auth)

sys.path.insert(0, str(REPO / 'tests/fake'))
from fakehttp import non_loopback_ipv4  # noqa: E402 (the fakes' folder)

REQUIRED = -32001


def expires_in_seconds(a):
    t = datetime.strptime(a['expiresAt'], '%Y-%m-%dT%H:%M:%SZ')
    return t.replace(tzinfo=timezone.utc).timestamp() - time.time()


# ------------------------------------------------------------ the tokens

def test_token_with_crlf_refused_no_header_injected(mcpfs_mount, authserver,
                                                    tmp_path):
    srv = authserver('--token-value', 'tok\r\nX-Injected: yes')
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    reply = echo(t)
    assert reply['error']['code'] == REQUIRED, reply
    a = wait_auth(m, ('pending', 'required'), srv=srv)
    from auth_util import authorize_redirect, open_callback
    loc = authorize_redirect(a['authorizationUrl'])
    open_callback(loc)
    a = wait_auth(m, 'failed', srv=srv)
    assert 'RFC 6750' in a['error'], a
    reply = echo(t)
    assert reply['error']['code'] == REQUIRED, reply
    for r in srv.log():
        hdrs = {k.lower() for k in (r.get('headers') or {})}
        assert 'x-injected' not in hdrs, r
    assert 'tok\r\n' not in m.output() and 'X-Injected' not in m.output()


@pytest.mark.parametrize('value,low,high', [
    ('1e308', 300 * 86400, 367 * 86400),   # clamped to a year or so
    ('-5', 0, 60),                         # soon, not never
])
def test_expires_in_clamped(mcpfs_mount, authserver, tmp_path, value, low,
                            high):
    srv = authserver('--expires-in-json', value)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    _, _, done = first_sign_in(m, srv, t)
    assert done.get('expiresAt'), done
    left = expires_in_seconds(done)
    assert low <= left <= high, (value, done)


# ------------------------------------------------------------ the store

def test_fifo_at_store_path_refused_mount_answers(mcpfs_mount, authserver,
                                                  tmp_path):
    srv = authserver()
    d = store_dir(tmp_path / 'state')
    d.mkdir(parents=True, mode=0o700)
    fifo = d / store_name(srv.url)
    os.mkfifo(fifo, 0o600)
    m = mount(mcpfs_mount, tmp_path, srv,
              extra={'a': {'command': 'true'}})
    t = thread(m, 'h')
    reply = run_with_deadline(lambda: echo(t), 20, 'a call with a FIFO store')
    assert reply['error']['code'] == REQUIRED, reply
    assert 'regular file' in reply['error']['message'], reply
    a = auth(m)
    assert a['state'] == 'failed' and 'regular file' in a['error'], a
    assert read_file(m.path / '.status', 5)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def assert_store_refused(m, why):
    """A call gets REQUIRED and auth.json says failed, both saying why (the
    token store was refused)."""
    reply = echo(thread(m, 'h'))
    assert reply['error']['code'] == REQUIRED, reply
    assert why in reply['error']['message'], reply
    a = auth(m)
    assert a['state'] == 'failed' and why in a['error'], a


@pytest.mark.parametrize('link', ['auth', 'mcpfs'])
def test_symlinked_store_directory_not_followed(mcpfs_mount, authserver,
                                                tmp_path, link):
    srv = authserver('--expires-in', 600)
    target = tmp_path / 'elsewhere'
    target.mkdir(mode=0o755)
    os.chmod(target, 0o755)
    state = tmp_path / 'state'
    if link == 'auth':
        (state / 'mcpfs').mkdir(parents=True, mode=0o700)
        os.symlink(target, state / 'mcpfs' / 'auth')
    else:
        state.mkdir()
        os.symlink(target, state / 'mcpfs')
    m = mount(mcpfs_mount, tmp_path, srv)
    assert_store_refused(m, 'symbolic link')
    # the target is untouched: mode kept, no token in it
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o755
    assert not any(target.rglob('*.json')), list(target.rglob('*'))


def test_store_over_64k_refused_not_overwritten(mcpfs_mount, authserver,
                                                tmp_path):
    srv = authserver('--expires-in', 600)
    d = store_dir(tmp_path / 'state')
    d.mkdir(parents=True, mode=0o700)
    f = d / store_name(srv.url)
    big = json.dumps({'url': srv.url, 'pad': 'x' * 70000}).encode()
    f.write_bytes(big)
    os.chmod(f, 0o600)
    m = mount(mcpfs_mount, tmp_path, srv)
    assert_store_refused(m, '64 KiB')
    assert f.read_bytes() == big


# ------------------------------------------------------------ discovery

class Trap(http.server.BaseHTTPRequestHandler):
    hits = []

    def do_GET(self):
        Trap.hits.append(self.path)
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.end_headers()
        self.wfile.write(b'{}')

    do_POST = do_GET

    def log_message(self, *args):
        pass


@pytest.mark.parametrize('host', ['localhost', '127.0.0.1'])
def test_discovery_into_loopback_refused(mcpfs_mount, authserver, tmp_path,
                                         host):
    ip = non_loopback_ipv4()
    if not ip:
        pytest.skip('no non-loopback address to put the server on')
    trap = http.server.HTTPServer(('127.0.0.1', 0), Trap)
    threading.Thread(target=trap.serve_forever, daemon=True).start()
    Trap.hits = []
    try:
        evil = (f'http://{host}:{trap.server_address[1]}'
                '/internal-admin?action=delete')
        srv = authserver('--public-host', ip, '--resource-metadata', evil)
        e = {'url': f'http://{ip}:{srv.port}/mcp', 'timeout': 30}
        m = mcpfs_mount({'h': e}, env={'XDG_STATE_HOME':
                                       str(tmp_path / 'state')})
        t = thread(m, 'h')
        reply = echo(t)
        assert reply['error']['code'] == REQUIRED, reply
        a = wait_auth(m, 'failed', srv=srv)
        assert Trap.hits == [], Trap.hits     # no blind GET into loopback
        assert a['error'] == (
            f'refused http://{host}:{trap.server_address[1]}: it points '
            'at a loopback address and the MCP server is not on one'), a
        assert '/internal-admin' not in m.output()
    finally:
        trap.shutdown()
        trap.server_close()


def test_discovery_on_loopback_server_still_works(mcpfs_mount, authserver,
                                                  tmp_path):
    """The check does not get in the way of a server on loopback: its
    metadata on loopback is used as before."""
    srv = authserver('--expires-in', 600)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    first_sign_in(m, srv, t)
    assert_ok(echo(t), 'hi')


# ------------------------------------------------------------ the listener

def recv_all(sock, timeout):
    """Bytes until EOF (b'' when closed at once); None when the deadline
    passes with the connection still open."""
    import socket as so
    sock.settimeout(timeout)
    out = b''
    try:
        while True:
            b = sock.recv(4096)
            if not b:
                return out
            out += b
    except so.timeout:
        return None
    except ConnectionResetError:
        return out


def test_loopback_listener_bounded(mcpfs_mount, authserver, tmp_path):
    import socket
    from urllib.parse import urlsplit
    from test_auth import sign_in
    srv = authserver('--expires-in', 600)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    assert echo(t)['error']['code'] == REQUIRED
    a = wait_auth(m, ('pending', 'required'), srv=srv)
    port = urlsplit(a['redirectUri']).port
    base_fds = len(os.listdir(f'/proc/{m.proc.pid}/fd'))
    # a flood of half-sent requests: mcpfs holds a bounded number
    held = []
    for _ in range(60):
        s = socket.create_connection(('127.0.0.1', port), timeout=5)
        s.sendall(b'GET /callback?code=x HTTP/1.1\r\nHost: a')
        held.append(s)
    time.sleep(0.5)
    fds = len(os.listdir(f'/proc/{m.proc.pid}/fd'))
    assert fds <= base_fds + 20, (base_fds, fds)
    # a request with a NUL byte is answered
    s = socket.create_connection(('127.0.0.1', port), timeout=5)
    s.sendall(b'GET /call\0back HTTP/1.1\r\n\r\n')
    got = recv_all(s, 8)
    s.close()
    assert got is not None and got.startswith(b'HTTP/1.1 400'), got
    # every held connection is answered or closed within its deadline
    for s in held:
        got = recv_all(s, 10)
        assert got is not None, 'a half-sent connection was held open'
        assert got == b'' or got.startswith(b'HTTP/1.1 408'), got
        s.close()
    # the browser still gets through; connections held then are closed
    # when the flow ends
    late = [socket.create_connection(('127.0.0.1', port), timeout=5)
            for _ in range(3)]
    sign_in(m, srv)
    for s in late:
        got = recv_all(s, 3)
        assert got is not None, 'a connection outlived the listener'
        s.close()
    assert_ok(echo(t), 'hi')


def test_store_on_a_full_disk_names_enospc(mcpfs_mount, authserver,
                                           tmp_path):
    """A token store write that hits a full disk logs the errno's own
    message (the base code logged "Input/output error"); the session goes
    on with the tokens in memory."""
    import subprocess
    if os.getuid() != 0:
        pytest.skip('mounting a small tmpfs needs root')
    state = tmp_path / 'state'
    state.mkdir()
    r = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=64k,mode=0700',
                        'tmpfs', str(state)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f'cannot mount a tmpfs: {r.stderr!r}')
    try:
        store_dir(state).mkdir(parents=True, mode=0o700)
        fd = os.open(state / 'filler', os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b'x' * 1024)
        except OSError:
            pass
        finally:
            os.close(fd)
        srv = authserver('--expires-in', 600)
        m = mount(mcpfs_mount, tmp_path, srv)
        t = thread(m, 'h')
        first_sign_in(m, srv, t)
        assert_ok(echo(t), 'hi')
        log = m.log.read_text()
        assert 'cannot write the token store' in log, log[-2000:]
        line = [ln for ln in log.splitlines()
                if 'cannot write the token store' in ln][0]
        assert 'No space left on device' in line, line
        m.unmount()
    finally:
        subprocess.run(['umount', '-l', str(state)])


def test_store_token_with_crlf_not_used(mcpfs_mount, authserver, tmp_path):
    srv = authserver()
    d = store_dir(tmp_path / 'state')
    d.mkdir(parents=True, mode=0o700)
    f = d / store_name(srv.url)
    f.write_text(json.dumps({'url': srv.url,
                             'access_token': 'tok\r\nX-Injected: yes'}))
    os.chmod(f, 0o600)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    reply = echo(t)
    assert reply['error']['code'] == REQUIRED, reply
    for r in srv.log():
        hdrs = {k.lower() for k in (r.get('headers') or {})}
        assert 'x-injected' not in hdrs, r
