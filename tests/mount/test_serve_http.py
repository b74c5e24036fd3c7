"""The mount as an MCP server over Streamable HTTP (spec 14, `--serve`):
the bearer token, the Origin check, loopback only, MOUNT/.serve.json, what
is refused before the peer (413, 400, MCP-Protocol-Version), the GET
stream, a closed connection cancelling its call, and the official
TypeScript SDK's Streamable HTTP client sharing a thread with the shell,
seeing progress, cancelling and answering a server's question.
"""
import http.client
import json
import os
import socket
import stat
import subprocess
import urllib.error
import urllib.request

import pytest

from conftest import MCPFS, fake, read_file, run_with_deadline, text, tool, \
    wait_until
from test_serve import (ELICIT, Client, needs_sdk, progress_and_cancel,
                        result_text)


def entry(m):
    e = json.loads(read_file(m.path / '.serve.json'))['mcpServers']['mcpfs']
    assert e['type'] == 'http', e
    return e['url'], e['headers']['Authorization']


def post(url, body, headers=None):
    """(status, headers, body) of a POST (body: JSON, bytes as they are,
    or a tuple of bytes sent chunked)."""
    data = body if isinstance(body, bytes) else iter(body) \
        if isinstance(body, tuple) else json.dumps(body).encode()
    if isinstance(body, tuple):
        headers = dict(headers or {}, **{'Transfer-Encoding': 'chunked'})
    req = urllib.request.Request(url, data=data,
                                 method='POST', headers=dict(
                                     {'Content-Type': 'application/json',
                                      'Accept': 'application/json, '
                                      'text/event-stream'},
                                     **(headers or {})))
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


INIT = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
        'params': {'protocolVersion': '2025-06-18', 'capabilities': {},
                   'clientInfo': {'name': 'test', 'version': '0'}}}


def test_the_token_and_the_origin(mcpfs_mount):
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    assert url.startswith('http://127.0.0.1:') and url.endswith('/mcp')
    assert auth.startswith('Bearer ') and len(auth) == 7 + 64
    st = os.stat(m.path / '.serve.json')
    assert stat.S_IMODE(st.st_mode) == 0o400, oct(st.st_mode)
    # a dot file: hidden from ls, there for ls -a
    ls = subprocess.run(['ls', str(m.path)], capture_output=True,
                        text=True, timeout=20).stdout.split()
    assert '.serve.json' not in ls and '.serve.json' in os.listdir(m.path)
    assert post(url, INIT)[0] == 401
    s, h, _ = post(url, INIT, {'Authorization': 'Bearer ' + '0' * 64})
    assert s == 401 and h['WWW-Authenticate'] == 'Bearer'
    s, _, body = post(url, INIT, {'Authorization': auth,
                                  'Origin': 'http://evil.example'})
    assert s == 403, body
    s, h, body = post(url, INIT, {'Authorization': auth,
                                  'Origin': 'http://localhost:5173'})
    assert s == 200, body
    assert json.loads(body)['result']['serverInfo']['name'] == 'mcpfs'
    assert len(h['Mcp-Session-Id']) == 32
    # a request of no session, and of an unknown one
    call = {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'}
    assert post(url, call, {'Authorization': auth})[0] == 400
    assert post(url, call, {'Authorization': auth,
                            'Mcp-Session-Id': 'f' * 32})[0] == 404


def test_loopback_only(mcpfs_mount):
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    port = int(entry(m)[0].rsplit(':', 1)[1].split('/')[0])
    with socket.create_connection(('127.0.0.1', port), timeout=10):
        pass
    addrs = subprocess.run(['hostname', '-I'], capture_output=True,
                           text=True).stdout.split()
    addrs = [a for a in addrs if ':' not in a and not a.startswith('127.')]
    if not addrs:
        pytest.skip('no address but loopback on this machine')
    with pytest.raises(OSError):
        socket.create_connection((addrs[0], port), timeout=5).close()


def test_no_serve_no_entry_and_a_bad_address(mcpfs_mount, tmp_path):
    m = mcpfs_mount({'a': fake()})
    assert not (m.path / '.serve.json').exists()
    assert '.serve.json' not in os.listdir(m.path)
    r = subprocess.run([str(MCPFS), '-f', '--serve', 'nowhere', str(tmp_path)],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode == 2 and '--serve nowhere' in r.stderr, r


def test_the_limits_of_a_post(mcpfs_mount):
    """What is not an MCP message gets a 4xx at once: a body over the
    mount's --max-message is 413, what is not JSON 400 (a parse error),
    JSON that is no JSON-RPC message 400, an MCP-Protocol-Version mcpfs
    does not speak 400 (MCP's words); a version it speaks is served."""
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0',
                                         '--max-message', '4K'])
    url, auth = entry(m)
    a = {'Authorization': auth}
    s, h, _ = post(url, INIT, a)
    assert s == 200
    sid = dict(a, **{'Mcp-Session-Id': h['Mcp-Session-Id']})
    ping = {'jsonrpc': '2.0', 'id': 2, 'method': 'ping'}
    s, _, body = post(url, b'{"jsonrpc": "2.0", "id": 3, "meth', sid)
    assert s == 400 and json.loads(body)['error']['code'] == -32700, body
    s, _, body = post(url, b'[1, 2]', sid)
    assert s == 400 and 'error' in json.loads(body), body
    s, _, body = post(url, {'jsonrpc': '2.0', 'id': 4, 'method': 'ping',
                            'params': {'pad': 'x' * 5000}}, sid)
    assert s == 413, body
    s, _, body = post(url, (b'{"jsonrpc": "2.0", "id": 5, "method": "ping",',
                            b'"params": {"pad": "' + b'x' * 5000 + b'"}}'),
                      sid)
    assert s == 413, body
    s, _, body = post(url, ping, dict(sid, **{
        'MCP-Protocol-Version': '1999-01-01'}))
    assert s == 400 and b'MCP-Protocol-Version' in body, body
    s, _, body = post(url, ping, dict(sid, **{
        'MCP-Protocol-Version': '2025-06-18'}))
    assert s == 200 and json.loads(body)['id'] == 2, body
    # the session is still served after all that
    s, _, body = post(url, ping, sid)
    assert s == 200 and json.loads(body)['result'] == {}, body


def test_the_standalone_event_stream(mcpfs_mount):
    """GET with the session's id is its event stream of what belongs to no
    request: the server's list_changed and its thread's log messages; a
    second one is 409; DELETE ends it."""
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    url += '/agent'
    s, h, _ = post(url, INIT, {'Authorization': auth})
    assert s == 200
    sid = {'Authorization': auth, 'Mcp-Session-Id': h['Mcp-Session-Id']}
    assert post(url, {'jsonrpc': '2.0', 'method':
                      'notifications/initialized'}, sid)[0] == 202
    port = int(url.rsplit(':', 1)[1].split('/')[0])
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
    c.request('GET', '/mcp/agent', headers=dict(
        sid, Accept='text/event-stream'))
    r = run_with_deadline(c.getresponse, 30, 'the GET stream')
    assert r.status == 200
    assert r.getheader('Content-Type') == 'text/event-stream'
    c2 = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
    c2.request('GET', '/mcp/agent', headers=sid)
    assert c2.getresponse().status == 409

    def message():
        while True:
            line = run_with_deadline(r.readline, 60, 'an event')
            assert line, 'the stream ended'
            if line.startswith(b'data: '):
                return json.loads(line[6:])

    def call(i, name, args):
        s, _, body = post(url, {'jsonrpc': '2.0', 'id': i, 'method':
                                'tools/call', 'params': {
                                    'name': name, 'arguments': args}}, sid)
        assert s == 200, body
        return body

    call(2, 'a__list_changed', {})
    assert message()['method'] == 'notifications/tools/list_changed'
    call(3, 'a__log', {'level': 'error', 'data': 'seen on the stream'})
    n = message()
    assert n['method'] == 'notifications/message', n
    assert n['params']['data'] == 'seen on the stream'
    req = urllib.request.Request(url, method='DELETE', headers=sid)
    with urllib.request.urlopen(req, timeout=30) as d:
        assert d.status == 200
    assert run_with_deadline(r.read, 30, 'the end of the stream').strip() \
        == b''


HttpClient = Client.http


@needs_sdk
def test_the_sdk_over_http_shares_a_thread_with_the_shell(mcpfs_mount):
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    c = HttpClient(url + '/agent', auth)
    assert 'a__counter' in c.ok(op='tools')
    assert result_text(c.ok(op='call', name='a__counter')) == '1'
    t = m.path / 'a' / 'agent'
    assert text(tool(t, 'counter')) == '2'
    assert result_text(c.ok(op='call', name='a__counter')) == '3'
    c.close()
    assert text(tool(t, 'counter')) == '4'      # a named thread stays
    # /mcp: a thread of the client's own, closed when its session ends
    c = HttpClient(url, auth)
    assert result_text(c.ok(op='call', name='a__counter')) == '1'
    assert [n for n in os.listdir(m.path / 'a') if n.startswith('serve-')]
    c.close()
    wait_until(lambda: not [n for n in os.listdir(m.path / 'a')
                            if n.startswith('serve-')], 20,
               'the client\'s thread to close with its session')


@needs_sdk
def test_progress_and_cancel_over_http(mcpfs_mount):
    # a reply that is not there at once comes as an event stream: the
    # call's progress first, then the reply
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    c = HttpClient(url + '/agent', auth)
    progress_and_cancel(c, m.path / 'a' / 'agent')
    c.close()


@needs_sdk
def test_a_question_goes_to_the_http_client(mcpfs_mount):
    """A server's elicitation during a call reaches the SDK client on that
    call's event stream, and its answer (a POSTed response, 202) is the
    server's answer."""
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    c = HttpClient(url + '/agent', auth,
                   answer={'action': 'accept', 'content': {'name': 'Ada'}})
    c.send(op='call', name='a__ask', arguments=ELICIT)
    asked = c._line()
    assert asked == {'asked': {'method': 'elicitation/create',
                               'params': ELICIT['params']}}, asked
    r = c._line()
    assert 'ok' in r, r
    got = json.loads(result_text(r['ok']))
    assert got == {'result': {'action': 'accept',
                              'content': {'name': 'Ada'}}}, got
    assert b'"state":"answered"' in read_file(m.path / 'a/agent/events')
    c.close()


def test_a_closed_connection_cancels_its_call(mcpfs_mount):
    """A client that goes away before its reply (the POST's connection
    closed, no notifications/cancelled) has its call cancelled at the
    server; the session goes on."""
    # no call timeout: only the client's leaving may cancel the call (the
    # timeout's own cancel, at 60 s, hid a door that cancelled nothing)
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0',
                                         '--call-timeout', '0'])
    url, auth = entry(m)
    url += '/agent'
    s, h, _ = post(url, INIT, {'Authorization': auth})
    sid = {'Authorization': auth, 'Mcp-Session-Id': h['Mcp-Session-Id'],
           'Content-Type': 'application/json',
           'Accept': 'application/json, text/event-stream'}
    port = int(url.rsplit(':', 1)[1].split('/')[0])
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
    c.request('POST', '/mcp/agent', body=json.dumps(
        {'jsonrpc': '2.0', 'id': 7, 'method': 'tools/call', 'params': {
            'name': 'a__sleep', 'arguments': {'ms': 60000}}}), headers=sid)
    r = run_with_deadline(c.getresponse, 30, 'the call\'s event stream')
    assert r.status == 200
    assert r.getheader('Content-Type') == 'text/event-stream'
    t = m.path / 'a' / 'agent'
    assert b'notifications/cancelled' not in read_file(t / 'trace')
    c.sock.shutdown(socket.SHUT_RDWR)
    c.close()
    wait_until(lambda: b'notifications/cancelled' in read_file(t / 'trace'),
               30, 'the cancel in the thread\'s trace')
    s, _, body = post(url, {'jsonrpc': '2.0', 'id': 8, 'method': 'ping'},
                      sid)
    assert s == 200 and json.loads(body)['result'] == {}, body


def test_a_long_reply_on_the_event_stream(mcpfs_mount):
    """A reply that comes before anything else of its call is one
    application/json body, however long (Streamable HTTP lets the server
    choose; the TypeScript SDK's calls take about a third less time so);
    a call whose progress comes first is an event stream, and a stream
    longer than its 16 KiB blocks comes whole."""
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    s, h, _ = post(url, INIT, {'Authorization': auth})
    sid = {'Authorization': auth, 'Mcp-Session-Id': h['Mcp-Session-Id']}
    s, h, body = post(url, {'jsonrpc': '2.0', 'id': 2, 'method':
                            'tools/call', 'params': {
                                'name': 'a__big',
                                'arguments': {'bytes': 100000}}}, sid)
    assert s == 200 and h['Content-Type'] == 'application/json', h
    assert text(json.loads(body)['result']) == 'x' * 100000
    s, h, body = post(url, {'jsonrpc': '2.0', 'id': 3, 'method':
                            'tools/call', 'params': {
                                '_meta': {'progressToken': 'p'},
                                'name': 'a__progress',
                                'arguments': {'steps': 300, 'ms': 0}}},
                      sid)
    assert s == 200 and h['Content-Type'] == 'text/event-stream', h
    assert len(body) > 2 * 16384, len(body)
    data = [json.loads(ln[6:]) for ln in body.split(b'\n')
            if ln.startswith(b'data: ')]
    assert [d['params']['progress'] for d in data[:-1]] == \
        list(range(1, 301)), data[:3]
    assert data[-1]['id'] == 3 and text(data[-1]['result']) == 'done'
