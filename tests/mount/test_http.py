"""Streamable HTTP servers (config entries with a url; MCP 2025-11-25,
"Transports"; sessions/http.c), through the files only.

Most tests run against tests/fake/mcp_http.py (see tests/fake/README.md),
which records every request it gets, so the tests check what mcpfs sent
(methods, headers, session ids, bodies) as well as what the files show. The
last ones run the real @modelcontextprotocol/server-everything in its
streamableHttp mode.

Failure codes (doc/decisions.md): -32001 timeout, -32002 exited or
connection lost, -32003 cancelled, -32004 startup failed, -32005 protocol
error, -32006 closed, -32007 HTTP error.
"""

import concurrent.futures
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from conftest import (call, events, fake_factory, FakeProcess, free_port,
                      open_call, read_file, recv, REPO,
                      run_mcpfs_expect_exit, send, status, stop_group, text,
                      thread, tool, wait_ready, wait_state, wait_until)

FAKE_HTTP = REPO / 'tests/fake/mcp_http.py'
EVERYTHING = REPO / \
    'node_modules/@modelcontextprotocol/server-everything/dist/index.js'

sys.path.insert(0, str(FAKE_HTTP.parent))  # mcp_http imports fakehttp
_spec = importlib.util.spec_from_file_location('mcp_http', FAKE_HTTP)
fake_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_mod)

LOST = ('the server ended the session (HTTP 404); the next call starts a '
        'new one')


# ---------------------------------------------------------------- the fake

class FakeHTTP(FakeProcess):
    """One running tests/fake/mcp_http.py."""

    script = FAKE_HTTP

    def posts(self, method=None, tool=None):
        """POSTs of JSON-RPC messages, optionally of one method / tool."""
        out = []
        for r in self.mcp():
            j = r['json'] if isinstance(r['json'], dict) else {}
            if r['method'] != 'POST':
                continue
            if method and j.get('method') != method:
                continue
            if tool and (j.get('method') != 'tools/call' or
                         j['params'].get('name') != tool):
                continue
            out.append(r)
        return out

    def requests(self, method):
        return [r for r in self.mcp() if r['method'] == method]

    def sessions(self):
        """The session ids the server gave out, in order."""
        return [r['note'].split()[1] for r in self.posts('initialize')
                if (r['note'] or '').startswith('session ')]


@pytest.fixture
def fake_http(tmp_path):
    """Factory: srv = fake_http(*options) starts tests/fake/mcp_http.py;
    every server started is killed at teardown."""
    yield from fake_factory(FakeHTTP, tmp_path)


def entry(srv, **extra):
    return dict({'url': srv.url}, **extra)


def assert_tool_error(t, name, code, message):
    """Calling tool name (no arguments) in t replies this error."""
    e = err(tool(t, name))
    assert (e['code'], e['message']) == (code, message), e


def fake_thread(mcpfs_mount, fake_http):
    """A fake HTTP server with default options, mounted as h, and a thread
    of it: (srv, mount, thread)."""
    srv = fake_http()
    m = mcpfs_mount({'h': entry(srv)})
    return srv, m, thread(m, 'h')


def err(reply):
    """The error object of an {"error": ...} reply."""
    assert isinstance(reply, dict) and set(reply) == {'error'}, reply
    return reply['error']


def sid_of(rec):
    return rec['headers'].get('mcp-session-id')


# ---------------------------------------------------------------- handshake

@pytest.mark.parametrize('protocol', [None, '2025-06-18'])
def test_handshake_headers_and_status(mcpfs_mount, fake_http, protocol):
    srv = fake_http(*(['--protocol', protocol] if protocol else []))
    version = protocol or '2025-11-25'
    m = mcpfs_mount({'h': entry(srv, era='legacy')})  # the legacy wire
    t = thread(m, 'h')
    st = wait_ready(t)
    assert st['transport'] == 'http' and st['pid'] is None, st
    assert 'command' not in st, st
    assert st['generation'] == 1 and st['protocolVersion'] == version, st
    assert st['serverInfo'] == {'name': 'mcp-http-fake', 'version': '1.0.0'}
    assert st['last_error'] is None and st['exit'] is None, st
    [srv_st] = [s for s in m.status()['servers'] if s['name'] == 'h']
    assert srv_st['transport'] == 'http' and 'command' not in srv_st, srv_st
    assert srv_st['sessions'] == 1

    assert text(tool(t, 'echo', text='hello')) == 'hello'
    [sid] = srv.sessions()
    log = srv.mcp()
    init = log[0]
    assert (init['method'], init['json']['method']) == ('POST', 'initialize')
    assert init['json']['params']['protocolVersion'] == '2025-11-25'
    assert init['headers']['accept'] == 'application/json, text/event-stream'
    assert init['headers']['content-type'] == 'application/json'
    assert 'mcp-session-id' not in init['headers']
    assert 'mcp-protocol-version' not in init['headers']
    [inited] = srv.posts('notifications/initialized')
    assert inited['status'] == 202 and inited['n'] > init['n']
    gets = srv.requests('GET')
    assert len(gets) == 1 and gets[0]['status'] == 200, gets
    assert gets[0]['headers']['accept'] == 'text/event-stream'
    assert 'last-event-id' not in gets[0]['headers']
    [echo] = srv.posts(tool='echo')
    assert echo['headers']['accept'] == 'application/json, text/event-stream'
    assert echo['headers']['content-type'] == 'application/json'
    for r in log[1:]:   # everything after initialize: the id and version
        assert sid_of(r) == sid, r
        assert r['headers']['mcp-protocol-version'] == version, r
    assert [r['method'] for r in log].count('POST') == 3   # no stray request


def test_type_field_variants(mcpfs_mount, fake_http):
    srv = fake_http()
    m = mcpfs_mount({'plain': entry(srv),
                     'typed': entry(srv, type='http'),
                     'sh': entry(srv, type='streamable-http')})
    servers = {s['name']: s for s in m.status()['servers']}
    assert set(servers) == {'plain', 'typed', 'sh'}
    for name in servers:
        assert servers[name]['transport'] == 'http', servers[name]
        assert 'command' not in servers[name]
        assert text(tool(m.path / name / 'call', 'echo', text=name)) == name
    assert len(set(srv.sessions())) == 3


def test_requests_wait_for_initialized(mcpfs_mount, fake_http):
    srv = fake_http('--initialized-delay', 500)
    m = mcpfs_mount({'h': entry(srv)})
    # the one-shot call and a call written right after mkdir are both
    # queued behind the handshake
    assert text(tool(m.path / 'h' / 'call', 'echo', text='one')) == 'one'
    t = m.path / 'h' / 't'
    os.mkdir(t)
    assert text(tool(t, 'echo', text='two')) == 'two'
    for sid in srv.sessions():
        mine = [r for r in srv.posts() if sid_of(r) == sid]
        assert [r['json']['method'] for r in mine][:2] == \
            ['notifications/initialized', 'tools/call']


def test_initialize_answered_as_an_event_stream(mcpfs_mount, fake_http):
    srv = fake_http('--sse-init')
    m = mcpfs_mount({'h': entry(srv)})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='x')) == 'x'
    assert wait_ready(t)['serverInfo']['name'] == 'mcp-http-fake'
    [sid] = srv.sessions()
    assert sid_of(srv.posts(tool='echo')[0]) == sid


# ---------------------------------------------------------------- replies

def test_sse_reply_and_its_notifications(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    reply = tool(t, 'sse_echo', text='over sse')
    assert reply == {'content': [{'type': 'text', 'text': 'over sse'}]}
    [req] = srv.posts(tool='sse_echo')
    token = req['json']['params']['_meta']['progressToken']
    ev = events(t)
    assert {'jsonrpc': '2.0', 'method': 'notifications/progress',
            'params': {'progressToken': token, 'progress': 1, 'total': 2}} \
        in ev, ev
    assert {'jsonrpc': '2.0', 'method': 'notifications/message',
            'params': {'level': 'info', 'logger': 'fake',
                       'data': 'sse_echo over sse'}} in ev, ev
    assert text(tool(t, 'echo', text='after')) == 'after'
    assert status(t)['calls'] == 2


@pytest.mark.parametrize('retry, delay', [(200, 0.2), (None, 1.0)])
def test_stream_resumed_with_last_event_id(mcpfs_mount, fake_http, retry,
                                           delay):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    assert text(tool(t, 'sse_drop_resume', text='r1', retry=retry)) == \
        'resumed r1'
    [post] = srv.posts(tool='sse_drop_resume')
    primed = post['note'].split()[1]
    resumes = [g for g in srv.requests('GET')
               if 'last-event-id' in g['headers']]
    assert len(resumes) == 1, resumes
    g = resumes[0]
    assert g['headers']['last-event-id'] == primed
    assert g['headers']['accept'] == 'text/event-stream'
    assert sid_of(g) == sid_of(post) and g['status'] == 200
    assert g['headers']['mcp-protocol-version'] == '2025-11-25'
    # not before the retry delay (default 1000 ms) after the stream ended
    assert g['t'] - post['t'] >= delay - 0.01, (g['t'] - post['t'])
    st = status(t)
    assert st['state'] == 'ready' and st['generation'] == 1, st
    assert text(tool(t, 'echo', text='next')) == 'next'


def test_resumed_again_up_to_ten_times(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)

    def resumes():
        return [g for g in srv.requests('GET')
                if 'last-event-id' in g['headers']]
    # the resumed stream ends before the reply twice more: resumed again
    assert text(tool(t, 'sse_drop_resume', text='r', retry=20, times=3)) \
        == 'resumed r'
    assert len(resumes()) == 3
    # one more end than mcpfs resumes: the call fails after 10 resumptions
    e = err(tool(t, 'sse_drop_resume', text='r', retry=20, times=12))
    assert e['code'] == -32002
    assert e['message'] == \
        'the server closed the event stream before the reply'
    assert len(resumes()) == 3 + 10
    assert len(srv.posts(tool='sse_drop_resume')) == 2
    assert text(tool(t, 'echo', text='on')) == 'on'


def assert_same_session(t, srv, word):
    """The thread is still ready in its first generation, a call works
    (echo of word) and the server saw one session only."""
    st = status(t)
    assert st['state'] == 'ready' and st['generation'] == 1, st
    assert text(tool(t, 'echo', text=word)) == word
    assert len(srv.sessions()) == 1


def test_stream_closed_without_event_ids(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    assert_tool_error(t, 'sse_drop_noid', -32002,
                      'the server closed the event stream before the reply')
    assert not [g for g in srv.requests('GET')
                if 'last-event-id' in g['headers']]
    assert any(x.get('params', {}).get('data') == 'sse_drop_noid'
               for x in events(t))
    assert_same_session(t, srv, 'still')


def test_dropped_connection_fails_that_call_only(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    assert text(tool(t, 'echo', text='before')) == 'before'
    e = err(tool(t, 'drop'))
    prefix = 'connection to the server failed: '
    assert e['code'] == -32002 and e['message'].startswith(prefix), e
    lines = read_file(t / 'stderr').decode().splitlines()
    assert any(ln.startswith(prefix) and e['message'].startswith(ln)
               for ln in lines), lines
    assert_same_session(t, srv, 'after')


def test_dropped_call_is_not_replayed(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    # the echo leaves an idle keep-alive connection, which the drop reuses
    assert text(tool(t, 'echo', text='before')) == 'before'
    assert err(tool(t, 'drop'))['code'] == -32002
    assert len(srv.posts(tool='drop')) == 1


def test_http_500(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    assert_tool_error(t, 'http500', -32007, 'HTTP 500 from the server: '
                      'internal failure: the fake says no')
    assert 'HTTP 500 from the server: internal failure: the fake says no' \
        in read_file(t / 'stderr').decode().splitlines()
    # a JSON-RPC error body for the request is the reply
    assert tool(t, 'rpc_error_500') == {'error': {
        'code': -32603, 'message': 'fake internal error',
        'data': {'tool': 'rpc_error_500'}}}
    assert_same_session(t, srv, 'fine')


def test_large_replies_whole(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    n = 8 << 20
    for sse in (False, True):
        r = tool(t, 'big', timeout=60, bytes=n, sse=sse)
        got = text(r)
        assert len(got) == n and got.count('x') == n, (sse, len(got))


def test_concurrent_calls_get_their_own_replies(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    wait_ready(t)
    reqs = [('sleep', {'ms': 900}, 'slept 900'),
            ('sleep', {'ms': 300}, 'slept 300'),
            ('sse_echo', {'text': 'c'}, 'c'),
            ('echo', {'text': 'd'}, 'd')]
    fds = [open_call(t) for _ in reqs]
    try:
        for fd, (name, args, _) in zip(fds, reqs):
            send(fd, {'name': name, 'arguments': args})
        wait_until(lambda: len(srv.posts('tools/call')) == 4, 10,
                   'four calls at the server')
        got = [text(recv(fd)) for fd in fds]
    finally:
        for fd in fds:
            os.close(fd)
    assert got == [want for _, _, want in reqs]
    ids = [r['json']['id'] for r in srv.posts('tools/call')]
    assert len(set(ids)) == 4, ids
    assert status(t)['in_flight'] == 0


def test_many_sessions_at_once(mcpfs_mount, fake_http):
    srv = fake_http()
    m = mcpfs_mount({'h': entry(srv)})
    names = [f't{i}' for i in range(8)]
    for n in names:
        os.mkdir(m.path / 'h' / n)

    def work(n):
        return [text(tool(m.path / 'h' / n, 'sse_echo' if i % 2 else 'echo',
                          text=f'{n}-{i}')) for i in range(3)]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        got = list(pool.map(work, names))
    assert got == [[f'{n}-{i}' for i in range(3)] for n in names]
    sids = srv.sessions()
    assert len(set(sids)) == 8
    by_text = {r['json']['params']['arguments']['text']: sid_of(r)
               for r in srv.posts('tools/call')}
    for n in names:   # each thread's calls on one session, its own
        assert len({by_text[f'{n}-{i}'] for i in range(3)}) == 1
    assert len(set(by_text.values())) == 8


# ---------------------------------------------------------------- sessions

def test_404_loses_the_session_and_the_next_call_starts_one(mcpfs_mount,
                                                           fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    assert text(tool(t, 'echo', text='one')) == 'one'
    [sid1] = srv.sessions()
    fd = open_call(t)
    try:
        send(fd, {'name': 'sleep', 'arguments': {'ms': 30000}})
        wait_until(lambda: srv.posts(tool='sleep'), 10, 'sleep at the server')
        e = err(tool(t, 'expire'))
        assert (e['code'], e['message']) == (-32002, LOST), e
        e = err(recv(fd))   # the call in flight fails the same way
        assert (e['code'], e['message']) == (-32002, LOST), e
    finally:
        os.close(fd)
    assert os.listdir(m.path / 'h') and 't' in os.listdir(m.path / 'h')
    st = status(t)
    assert st['state'] == 'exited' and st['last_error'] == LOST, st
    assert text(tool(t, 'echo', text='two')) == 'two'
    st = status(t)
    assert st['state'] == 'ready' and st['generation'] == 2, st
    sids = srv.sessions()
    assert len(sids) == 2 and sids[0] == sid1 and sids[1] != sid1
    echo2 = [r for r in srv.posts(tool='echo')
             if r['json']['params']['arguments']['text'] == 'two']
    assert [sid_of(r) for r in echo2] == [sids[1]]
    # never replayed
    assert len(srv.posts(tool='sleep')) == 1
    assert len(srv.posts(tool='expire')) == 1


def test_rmdir_and_unmount_delete_the_session(mcpfs_mount, fake_http):
    srv = fake_http()
    m = mcpfs_mount({'h': entry(srv, headers={'X-Api-Key': 'k-1'})})
    a, b = thread(m, 'h', 'a'), thread(m, 'h', 'b')
    assert text(tool(a, 'echo', text='a')) == 'a'
    assert text(tool(b, 'echo', text='b')) == 'b'
    by_text = {r['json']['params']['arguments']['text']: sid_of(r)
               for r in srv.posts(tool='echo')}
    sid_a, sid_b = by_text['a'], by_text['b']
    assert sid_a != sid_b and set(srv.sessions()) == {sid_a, sid_b}
    os.rmdir(a)
    assert sorted(os.listdir(m.path / 'h')) == ['auth', 'b', 'call', 'help',
                                                 'tools.json']
    [d] = wait_until(lambda: srv.requests('DELETE'), 5, 'DELETE after rmdir')
    assert sid_of(d) == sid_a and d['status'] == 200, d
    assert d['headers']['x-api-key'] == 'k-1'
    m.unmount()
    deletes = srv.requests('DELETE')
    assert [sid_of(x) for x in deletes] == [sid_a, sid_b], deletes
    assert deletes[1]['headers']['x-api-key'] == 'k-1'
    # configured headers went on every request
    assert all(r['headers'].get('x-api-key') == 'k-1' for r in srv.mcp())


def test_delete_carries_the_protocol_version(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    assert text(tool(t, 'echo', text='a')) == 'a'
    os.rmdir(t)
    assert text(tool(m.path / 'h' / 'call', 'echo', text='b')) == 'b'
    wait_until(lambda: len(srv.requests('DELETE')) == 2, 5, 'two DELETEs')
    deletes = srv.requests('DELETE')
    assert [d['headers'].get('mcp-protocol-version') for d in deletes] == \
        ['2025-11-25'] * 2, deletes


def test_ctl_restart_starts_a_new_session(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    assert text(tool(t, 'echo', text='a')) == 'a'
    [sid1] = srv.sessions()
    with open(t / 'ctl', 'w') as f:
        f.write('restart\n')
    wait_until(lambda: status(t)['generation'] == 2, 10, 'the restart')
    wait_ready(t)
    [d] = wait_until(lambda: srv.requests('DELETE'), 5, 'the old DELETE')
    assert sid_of(d) == sid1 and d['status'] == 200
    assert text(tool(t, 'echo', text='b')) == 'b'
    sids = srv.sessions()
    assert len(sids) == 2
    assert sid_of(srv.posts(tool='echo')[-1]) == sids[1] != sid1


def test_idle_session_closed_and_deleted(mcpfs_mount, fake_http):
    srv = fake_http()
    m = mcpfs_mount({'h': entry(srv, idleTimeout=1)})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='a')) == 'a'
    [sid] = srv.sessions()
    wait_until(lambda: not os.path.exists(t), 10, 'the idle close')
    [d] = wait_until(lambda: srv.requests('DELETE'), 5, 'the DELETE')
    assert sid_of(d) == sid and d['status'] == 200


def test_reload_with_new_headers_closes_sessions(mcpfs_mount, fake_http):
    srv = fake_http()
    m = mcpfs_mount({'h': entry(srv, headers={'X-V': '1'})})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='a')) == 'a'
    [sid1] = srv.sessions()
    # only the timeout changes: the session stays
    m.reload({'h': entry(srv, headers={'X-V': '1'}, timeout=30)})
    wait_until(lambda: m.output().count('config reloaded') == 1, 5,
               'the first reload')
    assert text(tool(t, 'echo', text='kept')) == 'kept'
    assert srv.sessions() == [sid1] and not srv.requests('DELETE')
    m.reload({'h': entry(srv, headers={'X-V': '2'})})
    wait_until(lambda: not os.path.exists(t), 10, 'the session closed')
    [d] = wait_until(lambda: srv.requests('DELETE'), 5, 'the DELETE')
    assert sid_of(d) == sid1 and d['headers']['x-v'] == '1'
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='b')) == 'b'
    assert srv.posts(tool='echo')[-1]['headers']['x-v'] == '2'
    assert len(srv.sessions()) == 2


def test_tools_json_reads_every_page(mcpfs_mount, fake_http):
    srv = fake_http('--page-size', 3)
    m = mcpfs_mount({'h': entry(srv)})
    doc = json.loads(read_file(m.path / 'h' / 'tools.json', 20))
    assert [x['name'] for x in doc['tools']] == list(fake_mod.TOOLS)
    lists = srv.posts('tools/list')
    assert [(r['json'].get('params') or {}).get('cursor') for r in lists] \
        == [None] + [f'c{i}' for i in range(3, len(fake_mod.TOOLS), 3)]
    [sid] = srv.sessions()
    assert {sid_of(r) for r in lists} == {sid}
    wait_until(lambda: [d for d in srv.requests('DELETE')
                        if sid_of(d) == sid], 5, 'DELETE of the lister')
    t = thread(m, 'h')
    doc = json.loads(read_file(t / 'tools.json', 20))
    assert [x['name'] for x in doc['tools']] == list(fake_mod.TOOLS)


def test_get_stream_reopened_with_last_event_id(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    assert text(tool(t, 'notify', params={'data': 1})) == 'notified'
    assert text(tool(t, 'end_get')) == 'ended'
    first = srv.requests('GET')[0]
    assert first['note'].startswith('event get-'), first
    g = wait_until(lambda: srv.requests('GET')[1:], 5, 'the GET reopened')[0]
    assert g['headers']['last-event-id'] == first['note'].split()[1]
    assert sid_of(g) == sid_of(first)
    assert g['headers']['mcp-protocol-version'] == '2025-11-25'
    assert text(tool(t, 'notify', params={'data': 2})) == 'notified'
    wait_until(lambda: [e['params'] for e in events(t)] ==
               [{'data': 1}, {'data': 2}], 5, 'both notifications in events')


def test_stateless_server(mcpfs_mount, fake_http):
    srv = fake_http('--stateless')
    m = mcpfs_mount({'h': entry(srv, era='legacy')})  # the legacy wire
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='s')) == 's'
    assert text(tool(t, 'sse_echo', text='e')) == 'e'
    os.rmdir(t)
    m.unmount()   # waits for any DELETE in flight
    log = srv.mcp()
    assert not [r for r in log if 'mcp-session-id' in r['headers']], log
    assert not srv.requests('DELETE')
    assert all(r['headers']['mcp-protocol-version'] == '2025-11-25'
               for r in log[1:])


def test_get_stream_refused_with_405_is_not_retried(mcpfs_mount, fake_http):
    srv = fake_http('--no-get')
    m = mcpfs_mount({'h': entry(srv)})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='x')) == 'x'
    wait_until(lambda: srv.requests('GET'), 5, 'the GET')
    time.sleep(1.5)   # a retry would come after 1 s; nothing to wait for
    assert text(tool(t, 'echo', text='y')) == 'y'
    gets = srv.requests('GET')
    assert [g['status'] for g in gets] == [405], gets


# ---------------------------------------------------------------- failures

def test_startup_401_backs_off(mcpfs_mount, fake_http):
    # "oauth": false: a 401 is a failed start (with OAuth it is a sign-in,
    # tests/mount/test_auth.py)
    srv = fake_http('--init-status', 401)
    m = mcpfs_mount({'h': entry(srv, oauth=False)})
    t = thread(m, 'h')
    why = 'startup failed: HTTP 401 from the server: initialize refused (401)'
    st = wait_state(t, 'exited')
    assert st['last_error'] == why and st['generation'] == 1, st
    backing_off = re.compile(
        r'server keeps failing to start \(attempt (\d+)\); next try in '
        r'([0-9.]+) s; last error: ' + re.escape(why) + '$')
    seen = 0
    for _ in range(10):
        e = err(tool(t, 'echo', text='x'))
        assert e['code'] == -32004, e
        mt = backing_off.match(e['message'])
        if not mt:
            assert e['message'] == why, e
            continue
        seen += 1
        attempt, wait = int(mt.group(1)), float(mt.group(2))
        # no new attempt during the back-off: one initialize per attempt
        assert len(srv.posts('initialize')) == attempt
        assert 0 <= wait <= 0.5 * 2 ** (attempt - 1), e
        if seen == 3:
            break
    assert seen, 'no call came during a back-off'
    assert not srv.sessions()
    assert status(t)['state'] == 'exited'


def test_connection_refused_at_start(mcpfs_mount):
    m = mcpfs_mount({
        'h': {'url': f'http://127.0.0.1:{free_port()}/mcp'}})
    t = thread(m, 'h')
    st = wait_state(t, 'exited')
    prefix = 'startup failed: connection to the server failed: '
    assert st['last_error'].startswith(prefix), st
    e = err(tool(t, 'echo'))
    assert e['code'] == -32004 and prefix in e['message'], e
    assert os.path.isdir(t)


def test_missing_required_header_is_401(mcpfs_mount, fake_http):
    srv = fake_http('--require-header', 'Authorization: Bearer right')
    m = mcpfs_mount({'h': entry(srv, headers={'Authorization':
                                              'Bearer wrong'})})
    t = thread(m, 'h')
    st = wait_state(t, 'exited')
    assert st['last_error'] == \
        'startup failed: HTTP 401 from the server: unauthorized', st
    assert err(tool(t, 'echo'))['code'] == -32004


@pytest.mark.parametrize('bad, field, problem', [
    ({'url': 'ftp://127.0.0.1/mcp'}, 'url',
     'must start with http:// or https://'),
    ({'url': '127.0.0.1:80/mcp'}, 'url',
     'must start with http:// or https://'),
    ({'type': 'http'}, 'url', 'missing'),
    ({'url': 'http://127.0.0.1/mcp', 'env': {'A': 'b'}}, 'env',
     'only for stdio servers'),
    ({'url': 'http://127.0.0.1/mcp', 'headers': {'X': 'a\nb'}}, 'X',
     'must not hold CR or LF'),
])
def test_bad_http_entry_refused(tmp_path, bad, field, problem):
    rc, out = run_mcpfs_expect_exit(tmp_path,
                                    json.dumps({'mcpServers': {'h': bad}}))
    assert rc == 1
    assert str(tmp_path / 'bad.json') in out, out
    assert field in out and problem in out, out


# ---------------------------------------------------------------- cancel

def test_ctl_cancel_sends_cancelled(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    fd = open_call(t)
    try:
        send(fd, {'name': 'sleep', 'arguments': {'ms': 30000}})
        [sleep] = wait_until(lambda: srv.posts(tool='sleep'), 10,
                             'sleep at the server')
        with open(t / 'ctl', 'w') as f:
            f.write('cancel\n')
        e = err(recv(fd))
    finally:
        os.close(fd)
    assert (e['code'], e['message']) == (-32003, 'call cancelled'), e
    [c] = wait_until(lambda: srv.posts('notifications/cancelled'), 5,
                     'notifications/cancelled')
    assert c['json']['params'] == {'requestId': sleep['json']['id'],
                                   'reason': 'cancelled by user'}
    assert text(tool(t, 'echo', text='on')) == 'on'
    assert status(t)['generation'] == 1 and len(srv.sessions()) == 1


# ---------------------------------------------------------------- server side

def test_server_requests_are_answered(mcpfs_mount, fake_http):
    srv = fake_http()
    m = mcpfs_mount({'h': entry(srv, roots=['/tmp/mcpfs-http-root'],
                                elicitation=False)})
    t = thread(m, 'h')
    # inside the POST's event stream
    assert json.loads(text(tool(t, 'ask_roots'))) == \
        {'result': {'roots': [{'uri': 'file:///tmp/mcpfs-http-root'}]}}
    # on the GET stream
    assert json.loads(text(tool(t, 'ask', method='ping', via='get'))) == \
        {'result': {}}
    for method, via in (('sampling/createMessage', 'get'),
                        ('elicitation/create', 'post')):
        got = json.loads(text(tool(t, 'ask', method=method, params={},
                                   via=via)))
        what = method.split('/')[0]
        assert got == {'error': {
            'code': -32601, 'message': f'{what} is off for server h (set '
            f'"{what}": true in its config entry)'}}
    answers = [r for r in srv.posts() if 'method' not in r['json']]
    assert len(answers) == 4, answers
    [sid] = srv.sessions()
    for a in answers:
        assert a['status'] == 202 and sid_of(a) == sid, a
        assert a['headers']['mcp-protocol-version'] == '2025-11-25'
        assert a['json']['id'].startswith('srv-')


def test_notification_on_the_get_stream(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    note = {'level': 'warning', 'logger': 'fake', 'data': 'from GET'}
    assert text(tool(t, 'notify', params=note)) == 'notified'
    wait_until(lambda: {'jsonrpc': '2.0', 'method': 'notifications/message',
                        'params': note} in events(t), 5,
               'the notification in events')


# ---------------------------------------------------------------- secrets

# ---------------------------------------------------------------- real server

class Everything:
    def __init__(self, tmp):
        self.out = tmp / 'everything.stdout'
        self.err = tmp / 'everything.stderr'
        for _ in range(3):   # the port may be taken between bind and listen
            self.port = free_port()
            with open(self.out, 'wb') as o, open(self.err, 'wb') as e:
                self.proc = subprocess.Popen(
                    ['node', str(EVERYTHING), 'streamableHttp'],
                    env=dict(os.environ, PORT=str(self.port)),
                    stdin=subprocess.DEVNULL, stdout=o, stderr=e,
                    start_new_session=True)
            wait_until(lambda: self.proc.poll() is not None or
                       'listening on port' in self.err.read_text(), 30,
                       'server-everything to listen')
            if self.proc.poll() is None:
                self.url = f'http://127.0.0.1:{self.port}/mcp'
                return
        pytest.fail(f'server-everything did not start: '
                    f'{self.err.read_text()}')

    def stdout(self):
        return self.out.read_text(errors='replace')

    def stop(self):
        stop_group(self.proc)


@pytest.fixture
def everything(tmp_path):
    if not EVERYTHING.exists() or not shutil.which('node'):
        pytest.skip(f'{EVERYTHING} missing (run npm ci) or no node')
    ev = Everything(tmp_path)
    yield ev
    ev.stop()


TOGGLE = {'name': 'toggle-simulated-logging', 'arguments': {}}
SESSION_IN = re.compile(r'for session ([0-9a-f-]{36})\b')


def toggled(reply, word):
    t = text(reply)
    assert t.startswith(word) and not reply.get('isError'), reply
    return SESSION_IN.search(t).group(1)


def two_sessions(m):
    """Threads a and b of server-everything (mounted as ev), each with its
    own session, whose logging state each keeps: (a, b, sid_a, sid_b)."""
    a, b = thread(m, 'ev', 'a'), thread(m, 'ev', 'b')
    sid_a = toggled(call(a, TOGGLE), 'Started')
    assert toggled(call(a, TOGGLE), 'Stopped') == sid_a     # state survives
    sid_b = toggled(call(b, TOGGLE), 'Started')              # its own session
    assert sid_b != sid_a
    return a, b, sid_a, sid_b


def test_everything_state_isolation_oneshot_rmdir(mcpfs_mount, everything):
    m = mcpfs_mount({'ev': {'type': 'http', 'url': everything.url}})
    a, b, sid_a, sid_b = two_sessions(m)
    st = status(a)
    assert (st['state'], st['transport'], st['pid']) == ('ready', 'http', None)
    assert st['serverInfo']['name'] == 'mcp-servers/everything', st
    oneshots = {toggled(call(m.path / 'ev' / 'call', TOGGLE), 'Started')
                for _ in range(2)}
    assert len(oneshots) == 2 and not oneshots & {sid_a, sid_b}
    assert toggled(call(a, TOGGLE), 'Started') == sid_a
    assert toggled(call(b, TOGGLE), 'Stopped') == sid_b
    os.rmdir(a)
    wait_until(lambda: f'termination request for session {sid_a}'
               in everything.stdout(), 5, 'the DELETE of a at the server')
    assert f'termination request for session {sid_b}' \
        not in everything.stdout()
    wait_until(lambda: all(f'termination request for session {sid}'
                           in everything.stdout() for sid in oneshots),
               5, 'the one-shot sessions ended too')
    m.unmount()
    assert f'termination request for session {sid_b}' in everything.stdout()


def echo_and_log_events(t):
    """On a thread t of server-everything (any transport): echo answers,
    and the server's log messages, once started, are lines in events."""
    assert call(t, {'name': 'echo', 'arguments': {'message': 'hi there'}}) \
        == {'content': [{'type': 'text', 'text': 'Echo: hi there'}]}
    toggled(call(t, TOGGLE), 'Started')
    msgs = wait_until(lambda: [e for e in events(t) if e.get('method') ==
                               'notifications/message'], 20,
                      'a notifications/message line in events', interval=0.2)
    assert msgs[0]['params']['level'] and 'data' in msgs[0]['params']
    toggled(call(t, TOGGLE), 'Stopped')


def test_everything_echo_and_log_events(mcpfs_mount, everything):
    m = mcpfs_mount({'ev': {'url': everything.url}})
    echo_and_log_events(thread(m, 'ev'))
    m.unmount()


NOT_JSON = ('HTTP 200 from the server (application/json, but the body is '
            'not JSON): ')


def test_json_reply_that_is_not_json_fails_at_once(mcpfs_mount, fake_http):
    # timeout 0: no timer would ever end a call that waits on this reply
    srv = fake_http()
    m = mcpfs_mount({'h': entry(srv, timeout=0)})
    t = thread(m, 'h')
    e = err(tool(t, 'not_json', timeout=10))
    assert e['code'] == -32007, e
    assert e['message'] == NOT_JSON + '<html>oops: not json</html>', e
    assert NOT_JSON + '<html>oops: not json</html>' in \
        read_file(t / 'stderr').decode().splitlines()
    log = m.output()
    assert 'stdout line' not in log, log
    st = status(t)
    assert st['state'] == 'ready' and st['generation'] == 1, st
    assert text(tool(t, 'echo', text='fine')) == 'fine'


def test_initialize_answered_not_json_fails_the_start(mcpfs_mount,
                                                      fake_http):
    srv = fake_http('--init-not-json')
    m = mcpfs_mount({'h': entry(srv, timeout=0)})
    t = thread(m, 'h')
    st = wait_state(t, 'exited')
    why = 'startup failed: ' + NOT_JSON + '<html>not json</html>'
    assert st['last_error'] == why, st
    e = err(tool(t, 'echo', text='x', timeout=10))
    assert e['code'] == -32004 and why in e['message'], e
    assert 'stdout line' not in m.output()


def test_batch_answer_messages_as_sent(mcpfs_mount, fake_http):
    srv, m, t = fake_thread(mcpfs_mount, fake_http)
    assert text(tool(t, 'batch')) == 'batched'
    lines = read_file(t / 'events').splitlines()
    assert [x for x in lines if b'"logger":"batch"' in x] == [
        b'{"jsonrpc":"2.0","method":"notifications/message","params":'
        b'{"level":"info","logger":"batch","data":'
        b'{"v":12345678901234567890,"s":"a\\u0000b"}}}'], lines
