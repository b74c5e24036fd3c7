"""The HTTP door bounded (spec 14, `--serve`): sessions that end without
DELETE (-o serve_idle) and at most 256 of them, the connections
(-o serve_connections, idle ones under a lowered RLIMIT_NOFILE), the
deadlines of headers and bodies, the bodies held at once, Host and Origin,
the listen address (--serve PORT, serve_remote) and the token kept across
remounts. Past a bound: 503 with Retry-After, a log line naming the bound,
and nobody else notices.
"""
import http.client
import json
import threading
import os
import resource
import socket
import stat
import time
import urllib.request

import pytest

from conftest import (REPO, demo, fake, free_port, read_file,
                      run_mcpfs_expect_exit, run_with_deadline, slacked, text,
                      tool, wait_until)
from test_faults import asan_runtime
from test_serve import Client
from test_serve_http import INIT, entry, post
from test_shell_idioms import own_leaks

SDK = REPO / 'node_modules/@modelcontextprotocol/sdk'


def port_of(url):
    return int(url.rsplit(':', 1)[1].split('/')[0])


def session(url, auth):
    """A new MCP session: the headers of its requests."""
    s, h, body = post(url, INIT, {'Authorization': auth})
    assert s == 200, body
    sid = {'Authorization': auth, 'Mcp-Session-Id': h['Mcp-Session-Id']}
    assert post(url, {'jsonrpc': '2.0', 'method':
                      'notifications/initialized'}, sid)[0] == 202
    return sid


def call(url, sid, name, i=2, **args):
    s, _, body = post(url, {'jsonrpc': '2.0', 'id': i, 'method':
                            'tools/call', 'params': {
                                'name': name, 'arguments': args}}, sid)
    assert s == 200, body
    if not body.startswith(b'{'):  # an event stream: the reply is last
        body = [ln for ln in body.split(b'\n')
                if ln.startswith(b'data: ')][-1][6:]
    return json.loads(body)


def serve_threads(m, server='demo'):
    return sorted(n for n in os.listdir(m.path / server)
                  if n.startswith('serve-'))


def raw(port, data, timeout=30):
    """Send data on a new connection; what comes back until it closes."""
    with socket.create_connection(('127.0.0.1', port), timeout=timeout) \
            as s:
        s.sendall(data)
        out = b''
        while True:
            b = s.recv(65536)
            if not b:
                return out
            out += b


def test_clients_that_never_delete(mcpfs_mount):
    """20 clients initialize, call a tool and vanish without DELETE: after
    serve_idle their serve-N threads and server processes are gone; a
    named thread (/mcp/NAME) stays."""
    idle = slacked(2)
    m = mcpfs_mount({'demo': demo()}, args=[
        '--serve', '127.0.0.1:0', '-o', f'serve_idle={idle}'])
    url, auth = entry(m)
    for _ in range(20):  # each its own thread: a fresh counter
        reply = call(url, session(url, auth), 'demo__incr')
        assert text(reply['result']) == '1', reply
    named = session(url + '/kept', auth)
    call(url + '/kept', named, 'demo__incr')
    # (the first may have ended already on a slow machine: no count here)
    assert m.output().count('in thread serve-') == 20
    wait_until(lambda: not serve_threads(m), idle + 10,
               'the serve-N threads of clients gone without DELETE')
    wait_until(lambda: len(m.server_pids()) == 1, 10,
               'their server processes to exit')
    assert 'kept' in os.listdir(m.path / 'demo') and not serve_threads(m)
    assert 'idle for' in m.output()
    # the named thread keeps its state for the next client
    sid = session(url + '/kept', auth)
    assert text(call(url + '/kept', sid, 'demo__incr')['result']) == '2'


def test_delete_ends_at_once(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    sid = session(url, auth)
    call(url, sid, 'demo__incr')
    assert len(serve_threads(m)) == 1
    time.sleep(2.5)  # two sweeps: a session used within serve_idle stays
    assert len(serve_threads(m)) == 1
    assert post(url, {'jsonrpc': '2.0', 'id': 3, 'method': 'ping'},
                sid)[0] == 200
    req = urllib.request.Request(url, method='DELETE', headers=sid)
    with urllib.request.urlopen(req, timeout=30) as d:
        assert d.status == 200
    wait_until(lambda: not serve_threads(m), 5, 'the thread closed')
    assert post(url, {'jsonrpc': '2.0', 'id': 3, 'method': 'ping'},
                sid)[0] == 404


def test_an_open_stream_keeps_its_session(mcpfs_mount):
    """A session with its GET stream open, or a call running, outlives
    serve_idle; once the stream is gone it ends."""
    idle = slacked(2)
    m = mcpfs_mount({'a': fake()}, args=[
        '--serve', '127.0.0.1:0', '-o', f'serve_idle={idle}'])
    url, auth = entry(m)
    sid = session(url, auth)
    c = http.client.HTTPConnection('127.0.0.1', port_of(url), timeout=60)
    c.request('GET', '/mcp', headers=dict(sid, Accept='text/event-stream'))
    r = run_with_deadline(c.getresponse, 30, 'the GET stream')
    assert r.status == 200
    busy = session(url, auth)  # a call that outlasts serve_idle
    reply = call(url, busy, 'a__sleep', ms=(idle + 2) * 1000)
    assert text(reply['result']) == f'slept {(idle + 2) * 1000}', reply
    ping = {'jsonrpc': '2.0', 'id': 3, 'method': 'ping'}
    assert post(url, ping, sid)[0] == 200
    assert post(url, ping, busy)[0] == 200
    r.close()
    c.close()
    # (a ping would be a request: watch the log)
    wait_until(lambda: f"HTTP session {sid['Mcp-Session-Id'][:8]}... idle"
               in m.output(), idle + 10,
               'the session of the closed stream to end')
    assert post(url, ping, sid)[0] == 404


def test_a_header_too_big(mcpfs_mount):
    """libmicrohttpd's own bound (its 32 KiB per connection): 431, and its
    line in the log."""
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    out = raw(port_of(url), b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n'
              b'X-Big: ' + b'a' * 70000 + b'\r\n\r\n')
    assert out.startswith(b'HTTP/1.1 431'), out[:100]
    line = wait_until(lambda: [ln for ln in m.output().splitlines()
                               if 'serve: libmicrohttpd: ' in ln], 10,
                      "libmicrohttpd's line in the log")[0]
    assert '431' in line and not line.endswith('\\x0a'), line
    assert post(url, INIT, {'Authorization': auth})[0] == 200


def test_idle_connections_do_not_starve_the_mount(mcpfs_mount):
    """1,100 TCP connections that send nothing, mcpfs at ulimit -n 1024:
    its descriptors stay a quarter of the limit and under, a real client's
    initialize is answered at once (the oldest connection that waits for
    a request makes room), and a new stdio thread starts and answers a
    call through the files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < 1200:
        pytest.skip(f'ulimit -Hn {hard}: the test needs 1,200 descriptors')
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
    try:  # mcpfs inherits the lowered limit
        m = mcpfs_mount({'demo': demo()}, args=['--serve', '127.0.0.1:0'])
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    url, auth = entry(m)
    port = port_of(url)
    pid = m.proc.pid
    socks = []
    try:
        for _ in range(1100):
            socks.append(socket.create_connection(('127.0.0.1', port),
                                                  timeout=30))
        # mcpfs took them in (the first 64 are held, the rest closed)
        wait_until(lambda: 'over the bound of connections' in m.output(),
                   10, 'the connection bound in the log')
        fds = len(os.listdir(f'/proc/{pid}/fd'))
        assert fds <= 256, fds
        s, _, body = run_with_deadline(lambda: post(url, INIT, {
            'Authorization': auth}), 30, 'initialize under the flood')
        assert s == 200, body
        t = m.path / 'demo' / 'fresh'
        os.mkdir(t)
        reply = tool(t, 'incr')
        assert text(reply) == '1', reply
        if SDK.exists():  # and `mcpfs serve` over stdio
            c = Client(m, 'agent')
            r = c.ok(op='call', name='demo__incr')
            assert r['result']['content'][0]['text'] == '1', r
            c.close()
        assert len(os.listdir(f'/proc/{pid}/fd')) <= 256
    finally:
        for s_ in socks:
            s_.close()


def test_a_connection_over_the_limit_when_all_are_busy(mcpfs_mount):
    """-o serve_connections=2, both connections with an open stream: the
    third gets 503 with Retry-After; once a stream ends it is served."""
    m = mcpfs_mount({'a': fake()}, args=[
        '--serve', '127.0.0.1:0', '-o', 'serve_connections=2'])
    url, auth = entry(m)
    port = port_of(url)
    streams = []
    for name in ('one', 'two'):
        sid = session(f'{url}/{name}', auth)
        c = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
        c.request('GET', f'/mcp/{name}',
                  headers=dict(sid, Accept='text/event-stream'))
        r = run_with_deadline(c.getresponse, 30, 'the GET stream')
        assert r.status == 200
        streams.append((c, r, sid, name))
    s, h, body = post(url, INIT, {'Authorization': auth})
    assert s == 503, body
    assert int(h['Retry-After']) > 0
    assert 'connections' in json.loads(body)['error']['message']
    assert 'over the bound of connections (-o serve_connections)' in \
        m.output()
    # a stream whose client left ends at its next keep-alive
    c, r = streams.pop()[:2]
    r.close()
    c.close()
    wait_until(lambda: post(url, INIT, {'Authorization': auth})[0] == 200,
               10, 'a connection slot')
    streams[0][1].close()
    streams[0][0].close()


def test_the_257th_session(mcpfs_mount):
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    ids = []
    for _ in range(256):
        s, h, body = post(url, INIT, {'Authorization': auth})
        assert s == 200, body
        ids.append(h['Mcp-Session-Id'])
    # a client that keeps its connection alive is told it closes
    c = http.client.HTTPConnection('127.0.0.1', port_of(url), timeout=30)
    c.request('POST', '/mcp', json.dumps(INIT), {
        'Authorization': auth, 'Content-Type': 'application/json',
        'Accept': 'application/json, text/event-stream'})
    r = c.getresponse()
    body = r.read()
    assert r.status == 503, body
    assert 0 < int(r.getheader('Retry-After')) <= 301
    assert r.getheader('Connection') == 'close'
    assert r.getheader('Content-Type') == 'application/json'
    assert 'MCP sessions' in json.loads(body)['error']['message']
    c.close()
    assert 'over the bound of 256 MCP sessions' in m.output()
    # the sessions there go on; one that ends makes room
    ping = {'jsonrpc': '2.0', 'id': 2, 'method': 'ping'}
    sid = {'Authorization': auth, 'Mcp-Session-Id': ids[0]}
    assert post(url, ping, sid)[0] == 200
    req = urllib.request.Request(url, method='DELETE', headers=sid)
    with urllib.request.urlopen(req, timeout=30) as d:
        assert d.status == 200
    assert post(url, INIT, {'Authorization': auth})[0] == 200


def test_the_bodies_held_at_once(mcpfs_mount):
    """--max-message 4K: 16K of bodies held at once. Four bodies sent but
    for their end hold 15,600 bytes; a fifth of 4,000 gets 503 at its
    headers, and a chunked one that passes the bound 503 at its end; the
    four are answered once they are in."""
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0',
                                         '--max-message', '4K'])
    url, auth = entry(m)
    port = port_of(url)
    sid = session(url, auth)
    hold = []
    for i in range(4):
        msg = json.dumps({'jsonrpc': '2.0', 'id': 10 + i, 'method': 'ping',
                          'params': {'pad': 'x' * 3900}}).encode()
        s = socket.create_connection(('127.0.0.1', port), timeout=30)
        s.sendall(b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n'
                  b'Authorization: ' + auth.encode() + b'\r\n'
                  b'Mcp-Session-Id: ' + sid['Mcp-Session-Id'].encode() +
                  b'\r\nContent-Type: application/json\r\n'
                  b'Accept: application/json, text/event-stream\r\n'
                  b'Content-Length: %d\r\n\r\n' % len(msg) + msg[:3900])
        hold.append((s, msg))
    time.sleep(0.5)  # nothing to wait on: the bytes are read when they come
    ping = {'jsonrpc': '2.0', 'id': 3, 'method': 'ping',
            'params': {'pad': 'y' * 3900}}
    s, h, body = wait_until(lambda: (lambda r: r if r[0] == 503 else None)(
        post(url, ping, sid)), 10, 'the bound of bodies held')
    assert int(h['Retry-After']) > 0, h
    s, h, body = post(url, (b'{"jsonrpc": "2.0", "id": 4, "method": "ping",',
                            b'"params": {"pad": "' + b'z' * 3000 + b'"}}'),
                      sid)
    assert s == 503 and 'Retry-After' in h, body
    assert 'over the bound of request bodies held' in m.output()
    for s_, msg in hold:
        s_.sendall(msg[3900:])
        out = b''
        while b'"result"' not in out:
            b = run_with_deadline(lambda: s_.recv(65536), 30, 'a reply')
            assert b, out
            out += b
        assert out.startswith(b'HTTP/1.1 200'), out
        s_.close()
    assert post(url, ping, sid)[0] == 200


def test_late_headers_and_late_bodies(mcpfs_mount):
    """Headers not in within 10 s, a body not in within 30 s: 503 with
    Retry-After and the connection closed; the door goes on."""
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    port = port_of(url)
    out = {}

    def slow(key, data):
        out[key] = raw(port, data, timeout=slacked(60))

    ts = [threading.Thread(target=slow, args=('headers', b'POST /mcp HTTP/'
                                              b'1.1\r\nHost: 127.0.0.1\r\n')),
          threading.Thread(target=slow, args=(
              'body', b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n'
              b'Authorization: ' + auth.encode() + b'\r\n'
              b'Content-Type: application/json\r\n'
              b'Content-Length: 100\r\n\r\n{"jsonrpc"'))]
    for t in ts:
        t.start()
    for t in ts:
        t.join(slacked(60))
    assert set(out) == {'headers', 'body'}, out
    for k in out:
        assert out[k].startswith(b'HTTP/1.1 503'), (k, out[k])
        assert b'Retry-After: ' in out[k], out[k]
    log = m.output()
    assert 'over the bound of headers within 10 s' in log
    assert 'over the bound of a body within 30 s' in log
    assert post(url, INIT, {'Authorization': auth})[0] == 200


def test_host_and_origin(mcpfs_mount):
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    port = port_of(url)
    a = {'Authorization': auth}
    for host in ('evil.example', f'evil.example:{port}', '127.0.0.2',
                 'localhost.evil', '[::2]', f'127.0.0.1:{port}x'):
        s, _, body = post(url, INIT, dict(a, Host=host))
        assert s == 421, (host, body)
    for host in ('localhost', f'localhost:{port}', f'127.0.0.1:{port}',
                 '[::1]:9', 'LocalHost'):
        assert post(url, INIT, dict(a, Host=host))[0] == 200, host
    for origin in ('http://127.0.0.1:1@evil', 'http://evil.example',
                   'null', 'http://localhost.evil', 'http://localhost:3000/x',
                   'file://', 'http://127.0.0.1:99999',
                   'http://localhost@127.0.0.1', 'ftp://localhost'):
        s, _, body = post(url, INIT, dict(a, Origin=origin))
        assert s == 403, (origin, body)
    for origin in ('http://localhost:3000', 'https://127.0.0.1',
                   'http://[::1]:8080'):
        assert post(url, INIT, dict(a, Origin=origin))[0] == 200, origin
    # 421 and 403 before the token: no token needed to be refused
    assert post(url, INIT, {'Host': 'evil.example'})[0] == 421


def test_the_listen_address(mcpfs_mount, tmp_path):
    """--serve PORT is 127.0.0.1:PORT; a port taken, or a non-loopback
    address without -o serve_remote, does not mount, and says why."""
    port = free_port()
    m = mcpfs_mount({'a': fake()}, args=['--serve', str(port)])
    url, auth = entry(m)
    assert url == f'http://127.0.0.1:{port}/mcp'
    assert post(url, INIT, {'Authorization': auth})[0] == 200
    # a second mount on the same port: it says so and exits 1
    rc, out = run_mcpfs_expect_exit(
        tmp_path, json.dumps({'mcpServers': {'a': fake()}}),
        args=['--serve', str(port)], expect_rc=1)
    assert f'--serve {port}: cannot listen there' in out, out
    rc, out = run_mcpfs_expect_exit(
        tmp_path, json.dumps({'mcpServers': {'a': fake()}}),
        args=['--serve', f'0.0.0.0:{free_port()}'], expect_rc=2)
    assert 'not a loopback address' in out and 'serve_remote' in out, out
    assert 'ssh -L' in out, out


def test_the_token_is_kept(mcpfs_mount):
    """The token survives a remount (the client entry stays valid);
    deleting its file rotates it; a file others may read is not used."""
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    first = entry(m)[1]
    store = m.tmp / 'state' / 'mcpfs' / 'serve'
    files = os.listdir(store)
    assert len(files) == 1 and files[0].endswith('.json'), files
    f = store / files[0]
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o700
    kept = json.loads(f.read_text())
    assert kept['token'] == first[len('Bearer '):]
    assert kept['mountpoint'] == os.path.realpath(m.path)
    assert str(f) in m.output()

    def remount():
        m.unmount()
        m.done = False
        m.start()
        return entry(m)[1]

    assert remount() == first
    assert post(entry(m)[0], INIT, {'Authorization': first})[0] == 200
    f.unlink()
    second = remount()
    assert second != first and f.exists()
    os.chmod(f, 0o644)
    third = remount()
    assert third != second
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o600
    assert 'is not used' in m.output()
    read_file(m.path / '.status')


def test_what_the_door_holds_is_freed_at_exit(mcpfs_mount):
    """At unmount the door gives back what it held: its sessions (one
    left open here, one ended by DELETE), their replies, and the client
    entry of MOUNT/.serve.json, which sessions/core/registry.c keeps for
    the door. Under an ASan build, LeakSanitizer with use_globals=0 does
    not scan the statics, so a client entry the door never cleared at
    stop is reported as a leak (as test_shell_idioms.py's
    test_every_process_node_is_freed_at_exit does for process nodes;
    exitcode=0 and own_leaks leave the libraries' own statics out). Its
    libuv handles are closed too: mcpfs logs each one left open at exit
    (the sweep timer's uv_close forgotten, say)."""
    m = mcpfs_mount({'demo': demo()}, args=['--serve', '127.0.0.1:0'], env={
        'ASAN_OPTIONS': os.environ.get('ASAN_OPTIONS', '') +
        ':detect_leaks=1:abort_on_error=1',
        'LSAN_OPTIONS': os.environ.get('LSAN_OPTIONS', '') +
        ':use_globals=0:exitcode=0'})
    url, auth = entry(m)
    kept = session(url, auth)
    assert text(call(url, kept, 'demo__incr')['result']) == '1'
    ended = session(url, auth)
    assert text(call(url, ended, 'demo__incr')['result']) == '1'
    req = urllib.request.Request(url, method='DELETE', headers=ended)
    with urllib.request.urlopen(req, timeout=slacked(30)) as r:
        assert r.status == 200
    m.unmount()
    assert 'left open' not in m.output(), m.output()[-3000:]
    if not asan_runtime():
        return  # no leak report to read
    report = m.stderr.read_text(errors='replace')
    assert 'ERROR: AddressSanitizer' not in report, report[-3000:]
    leaks = own_leaks(report)
    assert not leaks, '\n\n'.join(leaks)[:4000]
