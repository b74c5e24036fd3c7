"""The 2024-11-05 HTTP+SSE transport (sessions/httpsse.c) and the fallback
to it from Streamable HTTP (sessions/fallback.c), through the files only.

Against the real @modelcontextprotocol/server-everything in its `sse` mode
(`node dist/index.js sse`, PORT from the environment): GET /sse opens the
event stream, whose first event, `endpoint`, names /message?sessionId=ID;
each message is POSTed there (202 "Accepted") and the replies come on the
stream as `message` events. A POST to /sse is answered 404 (express has no
such route), so a bare url of /sse shows the fallback: the initialize POST
gets 404, and the GET of the same url gives the event stream. The server
writes "Client Connected: ID" and "Client Disconnected: ID" to stderr.

The rest run against tests/fake/mcp_http.py --legacy-sse (see its
docstring), which records what mcpfs sent: the fallback on 405 resending
the same initialize, headers on the GET and on the POSTs, an endpoint of
another origin, messages waiting for a late endpoint, an HTTP error on one
POST, server requests on the stream, a stream the server closes, a
fallback that fails too; and timeouts and Ctrl-C as notifications/cancelled
on both HTTP transports (parametrized: Streamable HTTP and HTTP+SSE).

Failure codes (doc/decisions.md): -32002 exited or connection lost, -32004
startup failed, -32005 protocol error, -32007 HTTP error.
"""

import json
import os
import re
import signal
import subprocess
import uuid

import pytest

from conftest import (call, free_port, interrupted_read, read_file, status,
                      stop_group, text, tool, wait_state, wait_until)
from test_http import (EVERYTHING, TOGGLE, echo_and_log_events,  # noqa: F401
                       entry, err, events, fake_http, open_call, recv, send,
                       sid_of, thread, toggled, two_sessions)

FALLBACK = ('HTTP 404 from the server on the initialize POST: trying the '
            '2024-11-05 HTTP+SSE transport')
CONNECTED = re.compile(r'Client Connected:\s+([0-9a-f-]{36})')


class EverythingSSE:
    """server-everything in sse mode; restart() brings it back on the same
    port."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.n = 0
        for _ in range(3):   # the port may be taken between bind and listen
            self.port = free_port()
            if self.start():
                self.url = f'http://127.0.0.1:{self.port}/sse'
                return
        pytest.fail(f'server-everything (sse) did not start: {self.log()}')

    def start(self):
        self.n += 1
        self.err = self.tmp / f'everything-sse-{self.n}.stderr'
        with open(self.err, 'wb') as e:
            self.proc = subprocess.Popen(
                ['node', str(EVERYTHING), 'sse'],
                env=dict(os.environ, PORT=str(self.port)),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=e, start_new_session=True)
        wait_until(lambda: self.proc.poll() is not None or
                   'Server is running on port' in self.log(), 30,
                   'server-everything (sse) to listen')
        return self.proc.poll() is None

    def log(self):
        """The stderr of the server started last."""
        return self.err.read_text(errors='replace')

    def connected(self):
        return CONNECTED.findall(self.log())

    def kill(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def restart(self):
        self.kill()
        if not self.start():
            pytest.fail(f'server-everything (sse) did not restart on port '
                        f'{self.port}: {self.log()}')

    def stop(self):
        stop_group(self.proc)


@pytest.fixture
def everything_sse(tmp_path):
    if not EVERYTHING.exists():
        pytest.skip(f'{EVERYTHING} missing (run npm ci)')
    ev = EverythingSSE(tmp_path)
    yield ev
    ev.stop()


def stderr_of(t):
    return read_file(t / 'stderr').decode()


# ---------------------------------------------------------------- real server

def test_state_isolation_status_and_rmdir(mcpfs_mount, everything_sse):
    m = mcpfs_mount({'ev': {'type': 'sse', 'url': everything_sse.url}})
    a, b, sid_a, sid_b = two_sessions(m)
    assert toggled(call(a, TOGGLE), 'Started') == sid_a
    assert toggled(call(b, TOGGLE), 'Stopped') == sid_b
    st = status(a)
    assert (st['state'], st['transport'], st['pid'], st['generation']) == \
        ('ready', 'sse', None, 1), st
    assert st['serverInfo']['name'] == 'mcp-servers/everything', st
    assert 'command' not in st, st
    assert [s['transport'] for s in m.status()['servers']] == ['sse']
    assert sorted(everything_sse.connected()) == sorted([sid_a, sid_b])
    # the server-level call is one-shot: a fresh session each time
    once = toggled(call(m.path / 'ev' / 'call', TOGGLE), 'Started')
    assert once not in (sid_a, sid_b)
    assert stderr_of(a) == ''                 # nothing went wrong
    os.rmdir(a)                               # ends a's event stream
    wait_until(lambda: f'Client Disconnected:  {sid_a}'
               in everything_sse.log(), 10, 'a disconnected at the server')
    assert f'Client Disconnected:  {sid_b}' not in everything_sse.log()
    assert toggled(call(b, TOGGLE), 'Started') == sid_b
    m.unmount()  # closes b's stream; the server logs it when it sees it
    wait_until(lambda: f'Client Disconnected:  {sid_b}'
               in everything_sse.log(), 10, 'b disconnected at the server')


def test_server_messages_go_to_events(mcpfs_mount, everything_sse):
    m = mcpfs_mount({'ev': {'type': 'sse', 'url': everything_sse.url}})
    echo_and_log_events(thread(m, 'ev', 't'))


@pytest.mark.parametrize('typed', [{}, {'type': 'http'}])
def test_bare_url_falls_back_and_remembers(mcpfs_mount, everything_sse,
                                           typed):
    m = mcpfs_mount({'ev': dict({'url': everything_sse.url}, **typed)})
    a = thread(m, 'ev', 'a')
    sid_a = toggled(call(a, TOGGLE), 'Started')
    assert toggled(call(a, TOGGLE), 'Stopped') == sid_a
    st = status(a)
    assert (st['state'], st['transport'], st['generation']) == \
        ('ready', 'sse', 1), st
    # era auto: server/discover was refused first (a 404 without a modern
    # error: legacy, and not the server's error: not in stderr), then the
    # initialize, then HTTP+SSE
    assert stderr_of(a) == FALLBACK + '\n'
    assert [s['transport'] for s in m.status()['servers']] == ['sse']
    # the next start goes straight to HTTP+SSE: no probe this time
    b = thread(m, 'ev', 'b')
    sid_b = toggled(call(b, TOGGLE), 'Started')
    assert sid_b != sid_a
    assert status(b)['transport'] == 'sse'
    assert stderr_of(b) == ''
    assert toggled(call(a, TOGGLE), 'Started') == sid_a


def test_streamable_http_type_does_not_fall_back(mcpfs_mount, everything_sse):
    m = mcpfs_mount({'ev': {'type': 'streamable-http',
                            'url': everything_sse.url}})
    t = thread(m, 'ev', 't')
    st = wait_state(t, 'exited')
    assert st['last_error'].startswith(
        'startup failed: HTTP 404 from the server'), st
    assert st['transport'] == 'http', st
    e = err(call(t, TOGGLE))
    assert e['code'] == -32004, e
    assert everything_sse.connected() == []


@pytest.mark.parametrize('typed', [{'type': 'sse'}, {}])
def test_killed_server_fails_the_call_and_next_is_a_new_generation(
        mcpfs_mount, everything_sse, typed):
    m = mcpfs_mount({'ev': dict({'url': everything_sse.url}, **typed)})
    t = thread(m, 'ev', 't')
    sid1 = toggled(call(t, TOGGLE), 'Started')
    fd = open_call(t)
    try:
        send(fd, {'name': 'trigger-long-running-operation',
                  'arguments': {'duration': 60, 'steps': 60},
                  '_meta': {'progressToken': 'long-1'}})
        # its first progress: the server runs it (and took its POST)
        wait_until(lambda: any(
            e.get('method') == 'notifications/progress' and
            e['params'].get('progressToken') == 'long-1' for e in events(t)),
            20, 'progress of the long call in events', interval=0.2)
        everything_sse.kill()
        e = err(recv(fd))
    finally:
        os.close(fd)
    assert e['code'] == -32002, e
    assert 'the event stream failed' in e['message'], e
    st = wait_state(t, 'exited')
    assert st['generation'] == 1 and 'event stream' in st['last_error'], st
    assert 'the event stream failed' in stderr_of(t)
    everything_sse.restart()
    # the next call: a new event stream and session, generation + 1
    sid2 = toggled(call(t, TOGGLE), 'Started')
    assert sid2 != sid1
    st = status(t)
    assert (st['state'], st['transport'], st['generation']) == \
        ('ready', 'sse', 2), st
    assert everything_sse.connected() == [sid2]


def test_server_down_fails_the_start_until_it_is_back(mcpfs_mount,
                                                      everything_sse):
    m = mcpfs_mount({'ev': {'type': 'sse', 'url': everything_sse.url}})
    t = thread(m, 'ev', 't')
    toggled(call(t, TOGGLE), 'Started')
    everything_sse.kill()
    wait_state(t, 'exited')
    # the first call hears that the session's state is gone (spec 5)
    e = err(call(t, TOGGLE))
    assert e['code'] == -32002 and 'event stream' in e['message'], e
    assert "the server's state is gone" in e['message'], e
    # the next ones try a new session, and fail while the server is down
    e = err(call(t, TOGGLE))
    assert e['code'] == -32004, e
    assert 'startup failed: connection to the server failed' \
        in e['message'], e
    everything_sse.restart()
    sid = wait_until(lambda: new_session(t), 30, 'a call after the restart')
    assert everything_sse.connected() == [sid]
    assert status(t)['state'] == 'ready'


def new_session(t):
    """Toggle on t once it starts again; its session id (None while the
    start backs off)."""
    reply = call(t, TOGGLE)
    if 'error' in reply:
        return None
    return toggled(reply, 'Started')


# ---------------------------------------------------------------- the fake

def legacy(fake_http, *opts):
    srv = fake_http('--legacy-sse', *opts)
    srv.url = f'http://127.0.0.1:{srv.port}/sse'
    return srv


def records(srv, method, path):
    return [r for r in srv.log() if r['method'] == method and
            r['path'] == path]


def test_fallback_on_405_resends_the_same_initialize(mcpfs_mount, fake_http):
    # era legacy: the initialize is the first POST (no server/discover)
    srv = legacy(fake_http)
    m = mcpfs_mount({'h': {'url': srv.url, 'era': 'legacy'}})
    t = thread(m, 'h', 't')
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'x'}})) == 'x'
    assert stderr_of(t) == FALLBACK.replace('404', '405') + '\n'
    assert status(t)['transport'] == 'sse'
    [probe] = records(srv, 'POST', '/sse')
    assert probe['status'] == 405 and \
        probe['json']['method'] == 'initialize', probe
    [get] = records(srv, 'GET', '/sse')
    posts = records(srv, 'POST', '/message')
    assert [p['json'].get('method') for p in posts[:2]] == \
        ['initialize', 'notifications/initialized'], posts
    assert posts[0]['body'] == probe['body']       # the same line, resent
    sid = get['note'].split()[1]
    assert {p['query'] for p in posts} == {f'sessionId={sid}'}
    assert all(p['status'] == 202 for p in posts), posts


def test_headers_on_get_and_posts_never_shown(mcpfs_mount, fake_http):
    secret = 'tok-' + uuid.uuid4().hex
    srv = legacy(fake_http, '--require-header',
                 f'Authorization: Bearer {secret}')
    m = mcpfs_mount({'h': {'type': 'sse', 'url': srv.url, 'headers': {
        'Authorization': 'Bearer ${MCPFS_SSE_T}'}}},
        env={'MCPFS_SSE_T': secret})
    t = thread(m, 'h', 't')
    shown = [call(t, {'name': 'echo', 'arguments': {'text': 'x'}})]
    assert text(shown[0]) == 'x'
    # an HTTP error on one POST fails that call only
    e = err(call(t, {'name': 'http500', 'arguments': {}}))
    assert (e['code'], e['message']) == \
        (-32007, 'HTTP 500 from the server: internal failure: the fake '
         'says no'), e
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'y'}})) == 'y'
    st = status(t)
    assert (st['state'], st['generation']) == ('ready', 1), st
    shown += [e, st, stderr_of(t), read_file(t / 'events').decode(),
              m.status()]
    assert 'HTTP 500 from the server' in stderr_of(t)
    log = [r for r in srv.log() if r['path'] in ('/sse', '/message')]
    assert {(r['method'], r['path']) for r in log} == \
        {('GET', '/sse'), ('POST', '/message')}
    assert all(r['headers'].get('authorization') == f'Bearer {secret}'
               for r in log), log
    assert all(r['headers'].get('content-type') == 'application/json'
               for r in log if r['method'] == 'POST')
    [get] = records(srv, 'GET', '/sse')
    assert get['headers']['accept'] == 'text/event-stream'
    m.unmount()
    assert secret not in repr(shown) and secret not in m.output()


@pytest.mark.parametrize('endpoint', ['http://mcp.example.invalid/message',
                                      '//mcp.example.invalid/message',
                                      'https://127.0.0.1/message'])
def test_endpoint_of_another_origin_is_refused(mcpfs_mount, fake_http,
                                               endpoint):
    srv = legacy(fake_http, '--endpoint', endpoint)
    m = mcpfs_mount({'h': {'type': 'sse', 'url': srv.url}})
    t = thread(m, 'h', 't')
    st = wait_state(t, 'exited')
    why = ("the server's endpoint event names another origin (its scheme, "
           "host and port must be the url's); refused")
    assert st['last_error'] == 'startup failed: ' + why, st
    assert stderr_of(t) == why + '\n'
    e = err(call(t, {'name': 'echo', 'arguments': {'text': 'x'}}))
    assert e['code'] == -32004 and why in e['message'], e
    assert records(srv, 'POST', '/message') == []
    assert endpoint not in m.output()


def test_an_absolute_endpoint_of_the_same_origin_is_used(mcpfs_mount,
                                                         fake_http):
    srv = fake_http('--legacy-sse', '--endpoint', '/elsewhere')
    srv.url = f'http://127.0.0.1:{srv.port}/sse'
    m = mcpfs_mount({'h': {'type': 'sse', 'url': srv.url}})
    t = thread(m, 'h', 't')
    st = wait_state(t, 'exited', 20)
    # /elsewhere is 404 at the fake: the initialize POST went there
    assert st['last_error'] == \
        'startup failed: HTTP 404 from the server: no such path', st
    [p] = records(srv, 'POST', '/elsewhere')
    assert p['json']['method'] == 'initialize'


def test_messages_wait_for_the_endpoint(mcpfs_mount, fake_http):
    srv = legacy(fake_http, '--endpoint-delay', 1500)
    m = mcpfs_mount({'h': {'type': 'sse', 'url': srv.url}})
    t = thread(m, 'h', 't')
    assert status(t)['state'] == 'starting'
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'x'}})) == 'x'
    [get] = records(srv, 'GET', '/sse')
    posts = records(srv, 'POST', '/message')
    assert posts and all(p['t'] >= get['t'] + 1.5 for p in posts), posts


@pytest.mark.parametrize('delay', [0, 300])
def test_server_requests_on_the_stream_are_answered(mcpfs_mount, fake_http,
                                                    delay):
    # 300: the request comes when the call's POST has its 202 and libcurl
    # its connection back, so the answer goes on that kept-alive one (the
    # fake once held it and let the answer wait its 10 s: a loaded run
    # gave the 0 case that order)
    srv = legacy(fake_http, '--roots-delay', delay)
    m = mcpfs_mount({'h': {'type': 'sse', 'url': srv.url,
                           'roots': ['/tmp/mcpfs-sse-root']}})
    t = thread(m, 'h', 't')
    got = text(call(t, {'name': 'roots', 'arguments': {}}))
    assert got == '{"result": {"roots": [{"uri": ' \
        '"file:///tmp/mcpfs-sse-root"}]}}', got
    [answer] = [r for r in records(srv, 'POST', '/message')
                if 'method' not in r['json']]
    assert answer['status'] == 202 and answer['json']['id'] == 'srv-1'


def test_stream_closed_fails_the_call_without_replay(mcpfs_mount, fake_http):
    srv = legacy(fake_http)
    m = mcpfs_mount({'h': {'type': 'sse', 'url': srv.url}})
    t = thread(m, 'h', 't')
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'x'}})) == 'x'
    e = err(call(t, {'name': 'close_stream', 'arguments': {}}))
    msg = 'the server closed the event stream; the next call connects again'
    assert (e['code'], e['message']) == (-32002, msg), e
    st = wait_state(t, 'exited')
    assert (st['generation'], st['last_error']) == (1, msg), st
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'y'}})) == 'y'
    st = status(t)
    assert (st['state'], st['generation']) == ('ready', 2), st
    gets = records(srv, 'GET', '/sse')
    assert len(gets) == 2, gets
    closes = [r for r in records(srv, 'POST', '/message')
              if (r['json'].get('params') or {}).get('name') ==
              'close_stream']
    assert len(closes) == 1, closes                 # never replayed
    assert closes[0]['query'] == f"sessionId={gets[0]['note'].split()[1]}"


def test_failed_fallback_names_both_failures(mcpfs_mount, fake_http):
    srv = legacy(fake_http)
    m = mcpfs_mount({'h': {'url': f'http://127.0.0.1:{srv.port}/nothing',
                           'era': 'legacy'}})   # no server/discover first
    t = thread(m, 'h', 't')
    st = wait_state(t, 'exited')
    assert st['last_error'] == (
        'startup failed: HTTP 404 from the server on the initialize, and the '
        'HTTP+SSE transport failed too: HTTP 404 from the server on the '
        'event stream: no such path'), st
    assert stderr_of(t) == (
        FALLBACK + '\nHTTP 404 from the server on the event stream: no such '
        'path\n')
    # nothing remembered: the entry is still probed over Streamable HTTP
    assert [s['transport'] for s in m.status()['servers']] == ['http']
    assert st['transport'] == 'http', st
    assert [(r['method'], r['path']) for r in srv.log()
            if r['path'] == '/nothing'] == [('POST', '/nothing'),
                                            ('GET', '/nothing')]


# ---------------------------------------------------------------- cancel

class CancelHTTP:
    """Streamable HTTP (the fake): a call held by `sleep`, its session the
    Mcp-Session-Id."""

    request = {'name': 'sleep', 'arguments': {'ms': 30000}}

    def __init__(self, fake_http, **extra):
        self.srv = fake_http()
        self.entry = entry(self.srv, **extra)

    def held(self):
        return self.srv.posts(tool='sleep')

    def cancels(self):
        return self.srv.posts('notifications/cancelled')

    def same_session(self, a, b):
        return sid_of(a) == sid_of(b)

    def sessions(self):
        return len(self.srv.sessions())


class CancelSSE:
    """HTTP+SSE (the fake, --legacy-sse): a call held by `hang`, its
    session the sessionId of the endpoint's query."""

    request = {'name': 'hang', 'arguments': {}}

    def __init__(self, fake_http, **extra):
        self.srv = legacy(fake_http)
        self.entry = dict({'type': 'sse', 'url': self.srv.url}, **extra)

    def _posts(self):
        return records(self.srv, 'POST', '/message')

    def held(self):
        return [r for r in self._posts()
                if (r['json'].get('params') or {}).get('name') == 'hang']

    def cancels(self):
        return [r for r in self._posts()
                if r['json'].get('method') == 'notifications/cancelled']

    def same_session(self, a, b):
        return a['query'] == b['query']

    def sessions(self):
        return len(records(self.srv, 'GET', '/sse'))


CANCEL_SIDES = pytest.mark.parametrize('side', [CancelHTTP, CancelSSE],
                                       ids=['http', 'sse'])


@CANCEL_SIDES
def test_timeout_sends_cancelled(mcpfs_mount, fake_http, side):
    """A call past its timeout (spec 5) fails with -32001 and the server
    gets notifications/cancelled on the same session, which goes on."""
    one = side(fake_http, timeout=1)
    m = mcpfs_mount({'h': one.entry})
    t = thread(m, 'h')
    e = err(call(t, one.request))
    assert (e['code'], e['message']) == \
        (-32001, 'timeout: call timed out after 1 s'), e
    [held] = one.held()
    [c] = wait_until(one.cancels, 5, 'notifications/cancelled')
    assert c['json']['params'] == {'requestId': held['json']['id'],
                                   'reason': 'timeout'}
    assert c['status'] == 202 and one.same_session(c, held)
    assert text(tool(t, 'echo', text='on')) == 'on'
    st = status(t)
    assert (st['state'], st['generation']) == ('ready', 1), st
    assert one.sessions() == 1


@CANCEL_SIDES
def test_interrupted_read_sends_cancelled(mcpfs_mount, fake_http, side):
    """Ctrl-C on a reader (spec 4: an interrupted read cancels its call):
    notifications/cancelled on the same session, which goes on."""
    one = side(fake_http)
    m = mcpfs_mount({'h': one.entry})
    t = thread(m, 'h')
    wait_state(t, 'ready')
    [held] = interrupted_read(t / 'call', json.dumps(one.request), one.held,
                              10)
    [c] = wait_until(one.cancels, 5, 'notifications/cancelled')
    assert c['json']['params']['requestId'] == held['json']['id']
    assert one.same_session(c, held)
    assert text(tool(t, 'echo', text='on')) == 'on'
    assert status(t)['generation'] == 1 and one.sessions() == 1
