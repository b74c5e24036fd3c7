#!/usr/bin/env python3
"""mcp_http.py - a fake Streamable HTTP MCP server (MCP 2025-11-25,
"Transports"), or with --legacy-sse one of the 2024-11-05 HTTP+SSE
transport, for the mount tests. Python 3 standard library only.

    python3 tests/fake/mcp_http.py [options]

Serves the MCP endpoint /mcp on 127.0.0.1, on a free port that it prints
as the first line of stdout. HTTP/1.1 with keep-alive; JSON bodies carry a
Content-Length, event streams are chunked. Every request gets its own
thread, so slow calls and long-lived GET streams do not block the others.

Every request to /mcp is recorded; GET /log returns the records as a JSON
array, oldest first, each {"n", "t" (time.monotonic() of the server at
arrival), "method", "path" (without the query), "query" (or null),
"headers" (names lower-cased), "body" (text or null), "json" (the body
parsed, or null), "status" (HTTP status sent, or "dropped" when the
connection was closed without a response), "note"}.
The note says what the server did besides answering: "session SID" on the
initialize it answered, "event ID" for the first event id given on a
stream, "cancelled" for a sleep ended by notifications/cancelled.

Options:
  --init-status CODE      answer initialize with this HTTP status and a text
                          body (start-up failure, e.g. 401)
  --require-header 'N: V' every /mcp request without header N equal to V
                          gets 401
  --protocol V            protocolVersion to answer (default: the client's)
  --page-size K           tools/list page size, with nextCursor (default 3)
  --extra-tools N         N more tools t0 ... listed (calling one fails)
  --sse-init              answer initialize as an event stream
  --no-get                answer GET /mcp with 405 (no server stream)
  --initialized-delay MS  answer notifications/initialized only after MS;
                          until then a request other than ping gets the
                          JSON-RPC error -32600 "request before
                          notifications/initialized" (as the Python SDK's
                          server does)
  --stateless             give no session id: every request is served by
                          one shared session; DELETE gets 405
  --no-session ANSWER     how a request other than initialize without a
                          session id is answered instead of 400: "500"
                          is HTTP 500 with the JSON-RPC error -32603 and
                          id null (as the TypeScript SDK's server does),
                          "close" closes the connection without a response
  --init-not-json         answer initialize with HTTP 200, Content-Type
                          application/json and the body
                          "<html>not json</html>"

  --legacy-sse            serve the 2024-11-05 HTTP+SSE transport instead
                          (below)
  --endpoint URL          (--legacy-sse) the endpoint event's data instead
                          of /message?sessionId=SID
  --endpoint-delay MS     (--legacy-sse) send the endpoint event MS after
                          the stream opened
  --roots-delay MS        (--legacy-sse) the roots tool asks MS after its
                          202, when the client has its connection back

HTTP+SSE (--legacy-sse): GET /sse opens a session's event stream (note
"session SID") whose first event, of type endpoint, names
/message?sessionId=SID; then the server's messages follow as `message`
events, with keep-alive comments. POST /message?sessionId=SID takes one
message: 202 "Accepted" (404 for an unknown session, 400 for a body that
is not a JSON object), and its reply goes on the stream. POST /sse gets
405, as a legacy server does for the Streamable HTTP initialize. Answers
to the server's requests are taken (202) and dropped. --require-header
holds for /sse and /message. Tools: echo {text}; http500 (its POST is
answered HTTP 500 "internal failure: the fake says no", nothing on the
stream); close_stream (202, then the stream ends without a reply); hang
(202, never a reply); roots (asks roots/list on the stream and replies
text: the JSON of the answer it got within 10 s; it waits on a thread of
its own, as a server must: its POST was answered, so the client may send
the next request, the answer, on that same kept-alive connection).

Sessions: initialize creates one with a random id (Mcp-Session-Id on its
response; none with --stateless). Any other request without a session id
gets 400, with an unknown one 404. DELETE ends the session. A request whose
MCP-Protocol-Version is not one the server knows gets 400; one without it
is served (the spec's backwards compatibility; the tests check the header
in the log).

Tools (tools/call; tools/list lists them all, in pages):
  echo {text}             JSON reply, text `text`
  sse_echo {text}         event stream: a comment, a progress notification
                          (when the request has a progressToken), a
                          notifications/message with data "sse_echo TEXT",
                          then the reply (text `text`) split over two data
                          lines; every event has an id
  sse_drop_resume {text, retry, times}
                          event stream: a priming event (id, `retry: R`,
                          R = retry, default 200; retry null leaves the
                          field out), then the stream ends without the
                          reply. A GET with that Last-Event-ID replays the
                          reply: text "resumed TEXT"; with times N (default
                          1) the first N - 1 such GETs get the priming
                          event again and end without it
  sse_drop_noid           event stream: a notifications/message without an
                          id, then the stream ends without the reply
  drop                    closes the connection without any response
  batch                   HTTP 200, application/json: a batch array of a
                          notifications/message (data {"v":
                          12345678901234567890, "s": "a\\u0000b"}, as that
                          text) and the reply (text "batched")
  not_json                HTTP 200, Content-Type application/json, body
                          "<html>oops: not json</html>"
  http500                 HTTP 500, text/plain body
                          "internal failure: the fake says no"
  rpc_error_500           HTTP 500 with a JSON-RPC error body for the request:
                          code -32603, "fake internal error",
                          data {"tool": "rpc_error_500"}
  expire                  HTTP 404 and the session is forgotten
  sleep {ms}              replies text "slept MS" after ms; a
                          notifications/cancelled for it drops the
                          connection without a reply; the end of the
                          session (DELETE, expire) answers 404
  big {bytes, sse}        text of exactly `bytes` bytes of "x", as JSON or,
                          with sse true, as one event
  ask {method, params, via}
                          sends the request `method` to the client on this
                          POST's event stream (via "post", the default) or
                          on the GET stream (via "get"), waits (10 s) for the
                          answer the client POSTs back (answered 202) and
                          replies text: the JSON of {"result": ...} or
                          {"error": ...} it got
  ask_roots               ask {method: "roots/list"} on the POST stream
  end_get                 ends the GET stream with an event holding only
                          `retry: 100`; replies text "ended" once done. A
                          GET with a Last-Event-ID of the GET stream opens a
                          new GET stream (nothing is replayed)
  notify {method, params} sends a notification (default notifications/message
                          {level info, logger fake, data "notified"}) on the
                          GET stream; replies text "notified" once it was
                          written there, an isError result if no GET stream
                          took it within 5 s

ping answers {}; other methods -32601; an unknown tool -32602.
"""

import argparse
import json
import queue
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import fakehttp

PROTOCOLS = ('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05')
TOOLS = ('echo', 'sse_echo', 'sse_drop_resume', 'sse_drop_noid', 'drop',
         'http500', 'rpc_error_500', 'expire', 'sleep', 'big', 'ask',
         'ask_roots', 'notify', 'end_get', 'not_json', 'batch', 'embed')
SERVER_INFO = {'name': 'mcp-http-fake', 'version': '1.0.0'}

OPTS = None
LOCK = threading.Lock()
LOG = []
SESSIONS = {}
SHARED = None     # the one session of a --stateless server
END_GET = object()


class Dropped(Exception):
    """The handler closes the connection without a (further) response."""


class Session:
    def __init__(self):
        self.sid = uuid.uuid4().hex
        self.ended = threading.Event()
        self.outbox = queue.Queue()   # (message, written Event) for GET
        self.waiting = {}             # server request id -> [Event, answer]
        self.cancels = {}             # client request id -> Event
        self.streams = {}             # stream id -> {msgs, drops, retry}
        self.initialized = threading.Event()
        self.count = 0

    def answered(self, msg):
        """msg answers one of our requests: wake its waiter, if any."""
        with LOCK:
            w = self.waiting.get(msg.get('id'))
        if w:
            w[1] = msg
            w[0].set()

    def next(self, prefix):
        with LOCK:
            self.count += 1
            return f'{prefix}{self.count}'

    def end(self):
        self.ended.set()
        with LOCK:
            for ev in self.cancels.values():
                ev.set()
            for w in self.waiting.values():
                w[0].set()


def text_result(t, is_error=False):
    r = {'content': [{'type': 'text', 'text': t}]}
    if is_error:
        r['isError'] = True
    return r


def reply(rid, result):
    return {'jsonrpc': '2.0', 'id': rid, 'result': result}


def rpc_error(rid, code, message):
    return {'jsonrpc': '2.0', 'id': rid,
            'error': {'code': code, 'message': message}}


class Handler(fakehttp.Sending, BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'mcp-http-fake/1'

    def log_message(self, *args):
        pass

    # ---- recording and plain responses

    def record(self):
        n = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(n).decode('utf-8', 'replace') if n else None
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        headers = {}
        for k, v in self.headers.items():
            k = k.lower()
            headers[k] = f'{headers[k]}, {v}' if k in headers else v
        self.rec = {'t': time.monotonic(), 'method': self.command,
                    'path': self.path.split('?')[0], 'query': self.query(),
                    'headers': headers, 'body': body, 'json': parsed,
                    'status': None, 'note': None}
        with LOCK:
            self.rec['n'] = len(LOG)
            LOG.append(self.rec)

    def query(self):
        return self.path.partition('?')[2] or None

    def send_response(self, code, message=None):
        if getattr(self, 'rec', None) is not None:
            self.rec['status'] = code
        super().send_response(code, message)

    def drop(self):
        self.rec['status'] = 'dropped'
        self.close_connection = True
        raise Dropped()

    # ---- event streams

    def sse_start(self, headers=()):
        self.send_response(200)
        self.send_header('Content-Type', 'text/event-stream')
        self.send_header('Cache-Control', 'no-cache')
        self.send_header('Transfer-Encoding', 'chunked')
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()

    def chunk(self, data):
        if isinstance(data, str):
            data = data.encode()
        self.wfile.write(b'%x\r\n%s\r\n' % (len(data), data))
        self.wfile.flush()

    def sse_end(self):
        self.wfile.write(b'0\r\n\r\n')
        self.wfile.flush()

    def event(self, msg, eid=None, split=False):
        """One event carrying msg (split: its JSON over two data lines)."""
        data = json.dumps(msg)
        if split:
            cut = data.index(',') + 1
            lines = f'data: {data[:cut]}\ndata: {data[cut:]}\n'
        else:
            lines = f'data: {data}\n'
        if eid is not None:
            lines = f'id: {eid}\n' + lines
            if self.rec['note'] is None:
                self.rec['note'] = f'event {eid}'
        self.chunk(lines + '\n')

    # ---- dispatch

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except Dropped:
            self.close_connection = True
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def answered_before_mcp(self, legacy):
        """Record the request and answer it here (True) when it is not an
        authorized one of /mcp: legacy SSE mode (legacy answers), another
        path (404) or refused by authorized()."""
        self.record()
        if OPTS.legacy_sse:
            legacy()
            return True
        if self.rec['path'] != '/mcp':
            self.send_text(404, 'no such path')
            return True
        return not self.authorized()

    def authorized(self):
        if not OPTS.require_header:
            return True
        name, _, value = OPTS.require_header.partition(':')
        if self.headers.get(name.strip()) == value.strip():
            return True
        self.send_text(401, 'unauthorized',
                       [('WWW-Authenticate', 'Bearer realm="fake"')])
        return False

    def session(self):
        """The request's session, or None after answering 400/404."""
        sid = self.headers.get('Mcp-Session-Id')
        if OPTS.stateless:
            return SHARED
        with LOCK:
            sess = SESSIONS.get(sid) if sid else None
        if not sid and OPTS.no_session == '500':
            self.send_json(500, rpc_error(None, -32603,
                                          'Internal server error'))
        elif not sid and OPTS.no_session == 'close':
            self.drop()
        elif not sid:
            self.send_json(400, rpc_error(None, -32000, 'no session id'))
        elif not sess:
            self.send_text(404, 'session not found')
        elif self.headers.get('MCP-Protocol-Version', PROTOCOLS[2]) \
                not in PROTOCOLS:
            self.send_text(400, 'unsupported MCP-Protocol-Version')
        else:
            return sess
        return None

    def do_GET(self):
        if self.path.split('?')[0] == '/log':
            with LOCK:
                body = json.dumps(LOG).encode()
            return self.send_body(200, body, 'application/json')
        if self.answered_before_mcp(self.legacy_get):
            return
        if OPTS.no_get:
            return self.send_text(405, 'no GET stream',
                                  [('Allow', 'POST, DELETE')])
        sess = self.session()
        if not sess:
            return
        if 'text/event-stream' not in self.headers.get('Accept', ''):
            return self.send_text(406, 'Accept must hold text/event-stream')
        last = self.headers.get('Last-Event-ID')
        if last:
            return self.replay(sess, last)
        self.get_stream(sess)

    def replay(self, sess, last):
        stream, _, k = last.rpartition('-')
        with LOCK:
            st = sess.streams.get(stream)
        if stream == 'get':
            return self.get_stream(sess)
        if st is None or not k.isdigit():
            return self.send_text(400, f'unknown event id {last}')
        self.sse_start()
        with LOCK:
            drop = st['drops'] > 0
            st['drops'] -= drop
        if drop:
            self.prime(stream, st['retry'])
        else:
            for i, m in enumerate(st['msgs'][int(k):], int(k) + 1):
                self.event(m, f'{stream}-{i}')
        self.sse_end()

    def get_stream(self, sess):
        self.sse_start()
        self.chunk(': the server stream\n\n')
        idle = 0.0
        while not sess.ended.is_set():
            try:
                msg, written = sess.outbox.get(timeout=0.2)
            except queue.Empty:
                idle += 0.2
                if idle >= 1:   # find out whether the client is still there
                    idle = 0.0
                    try:
                        self.chunk(': keep-alive\n\n')
                    except OSError:
                        return
                continue
            try:
                if msg is END_GET:
                    self.chunk('retry: 100\n\n')
                else:
                    self.event(msg, sess.next('get-'))
            except OSError:
                sess.outbox.put((msg, written))   # for the next GET stream
                raise
            if written:
                written.set()
            if msg is END_GET:
                break
        self.sse_end()

    def do_DELETE(self):
        self.record()
        if not self.authorized():
            return
        if OPTS.stateless:
            return self.send_text(405, 'no sessions here')
        sess = self.session()
        if not sess:
            return
        with LOCK:
            SESSIONS.pop(sess.sid, None)
        sess.end()
        self.send_body(200, b'', 'text/plain')

    def do_POST(self):
        if self.answered_before_mcp(self.legacy_post):
            return
        msg = self.rec['json']
        if not isinstance(msg, dict):
            return self.send_json(400, rpc_error(None, -32700,
                                                 'not a JSON object'))
        if msg.get('method') == 'initialize':
            return self.initialize(msg)
        sess = self.session()
        if not sess:
            return
        if 'method' not in msg:   # an answer to one of our requests
            sess.answered(msg)
            return self.send_body(202, b'', 'text/plain')
        if 'id' not in msg:       # a notification
            if msg['method'] == 'notifications/initialized':
                time.sleep((OPTS.initialized_delay or 0) / 1000)
                sess.initialized.set()
            if msg['method'] == 'notifications/cancelled':
                rid = (msg.get('params') or {}).get('requestId')
                with LOCK:
                    ev = sess.cancels.setdefault(rid, threading.Event())
                ev.set()
            return self.send_body(202, b'', 'text/plain')
        self.dispatch(sess, msg)

    def initialize(self, msg):
        if OPTS.init_status:
            return self.send_text(OPTS.init_status,
                                  f'initialize refused ({OPTS.init_status})')
        if getattr(OPTS, 'init_not_json', False):  # authserver.py's OPTS
            return self.send_body(200, b'<html>not json</html>',
                                  'application/json')
        offered = (msg.get('params') or {}).get('protocolVersion')
        if OPTS.stateless:
            sess, hdr = SHARED, []
        else:
            sess = Session()
            with LOCK:
                SESSIONS[sess.sid] = sess
            self.rec['note'] = f'session {sess.sid}'
            hdr = [('Mcp-Session-Id', sess.sid)]
        res = reply(msg.get('id'), {
            'protocolVersion': OPTS.protocol or offered,
            'capabilities': {'tools': {'listChanged': False},
                             'logging': {}},
            'serverInfo': SERVER_INFO})
        if not OPTS.sse_init:
            return self.send_json(200, res, hdr)
        self.sse_start(hdr)
        self.chunk(': initialize\n\n')
        self.event(res)
        self.sse_end()

    def dispatch(self, sess, msg):
        rid, method = msg['id'], msg['method']
        params = msg.get('params') or {}
        if method == 'ping':
            return self.send_json(200, reply(rid, {}))
        if OPTS.initialized_delay and not sess.initialized.is_set():
            return self.send_json(200, rpc_error(
                rid, -32600, 'request before notifications/initialized'))
        if method == 'tools/list':
            return self.tools_list(rid, params)
        if method != 'tools/call':
            return self.send_json(200, rpc_error(rid, -32601,
                                                 f'Unknown method {method}'))
        name = params.get('name')
        if name not in TOOLS:
            return self.send_json(200, rpc_error(rid, -32602,
                                                 f'Unknown tool: {name}'))
        getattr(self, 'tool_' + name)(sess, rid,
                                      params.get('arguments') or {}, params)

    def tools_list(self, rid, params):
        cursor = params.get('cursor') or 'c0'
        extra = getattr(OPTS, 'extra_tools', 0)  # authserver.py: none
        if not cursor.startswith('c') or not cursor[1:].isdigit() or \
                int(cursor[1:]) >= len(TOOLS) + extra:
            return self.send_json(200, rpc_error(rid, -32602,
                                                 f'bad cursor {cursor}'))
        at = int(cursor[1:])
        page = (TOOLS + tuple(f't{i}' for i in range(extra))
                )[at:at + OPTS.page_size]
        res = {'tools': [{'name': t, 'description': f'fake tool {t}',
                          'inputSchema': {'type': 'object'}} for t in page]}
        if at + OPTS.page_size < len(TOOLS) + extra:
            res['nextCursor'] = f'c{at + OPTS.page_size}'
        self.send_json(200, reply(rid, res))

    # ---- the 2024-11-05 HTTP+SSE transport (--legacy-sse)

    def legacy_get(self):
        if self.rec['path'] != '/sse':
            return self.send_text(404, 'no such path')
        if not self.authorized():
            return
        sess = Session()
        with LOCK:
            SESSIONS[sess.sid] = sess
        self.rec['note'] = f'session {sess.sid}'
        try:
            self.sse_start()
            time.sleep((OPTS.endpoint_delay or 0) / 1000)
            ep = OPTS.endpoint or f'/message?sessionId={sess.sid}'
            self.chunk(f'event: endpoint\ndata: {ep}\n\n')
            while not sess.ended.is_set():
                try:
                    msg, _ = sess.outbox.get(timeout=0.5)
                except queue.Empty:
                    self.chunk(': keep-alive\n\n')
                    continue
                if msg is END_GET:
                    break
                self.chunk(f'event: message\ndata: {json.dumps(msg)}\n\n')
            self.sse_end()
        finally:
            with LOCK:
                SESSIONS.pop(sess.sid, None)
            sess.end()

    def legacy_post(self):
        if self.rec['path'] == '/sse':
            return self.send_text(405, 'POST is not served here',
                                  [('Allow', 'GET')])
        if self.rec['path'] != '/message':
            return self.send_text(404, 'no such path')
        if not self.authorized():
            return
        sid = dict(kv.partition('=')[::2] for kv in
                   (self.query() or '').split('&')).get('sessionId')
        with LOCK:
            sess = SESSIONS.get(sid)
        msg = self.rec['json']
        if not sess:
            return self.send_text(404, 'unknown session')
        if not isinstance(msg, dict):
            return self.send_text(400, 'not a JSON object')
        params = msg.get('params') or {}
        tool = params.get('name') if msg.get('method') == 'tools/call' \
            else None
        if tool == 'http500':
            return self.send_text(500, 'internal failure: the fake says no\n')
        self.send_body(202, b'Accepted', 'text/plain')
        if 'method' not in msg:       # an answer to one of our requests
            sess.answered(msg)
            return
        if 'id' not in msg:
            return
        rid, method = msg['id'], msg['method']
        if method == 'initialize':
            out = reply(rid, {
                'protocolVersion': OPTS.protocol or params.get(
                    'protocolVersion'),
                'capabilities': {'tools': {}}, 'serverInfo': SERVER_INFO})
        elif method == 'ping':
            out = reply(rid, {})
        elif tool == 'echo':
            out = reply(rid, text_result(
                (params.get('arguments') or {}).get('text', '')))
        elif tool == 'close_stream':
            out = END_GET
        elif tool == 'roots':
            threading.Thread(target=self.legacy_roots, args=(sess, rid),
                             daemon=True).start()
            return
        elif tool == 'hang':
            return
        else:
            out = rpc_error(rid, -32601, f'not served: {method} {tool}')
        sess.outbox.put((out, None))

    def legacy_roots(self, sess, rid):
        sid = sess.next('srv-')
        w = [threading.Event(), None]
        with LOCK:
            sess.waiting[sid] = w
        time.sleep((OPTS.roots_delay or 0) / 1000)
        sess.outbox.put(({'jsonrpc': '2.0', 'id': sid,
                          'method': 'roots/list'}, None))
        w[0].wait(10)
        got = w[1] or {'error': 'no answer within 10 s'}
        out = {k: v for k, v in got.items() if k in ('result', 'error')}
        sess.outbox.put((reply(rid, text_result(json.dumps(out))), None))

    # ---- tools

    def tool_batch(self, sess, rid, args, params):
        note = (b'{"jsonrpc":"2.0","method":"notifications/message",'
                b'"params":{"level":"info","logger":"batch","data":'
                b'{"v":12345678901234567890,"s":"a\\u0000b"}}}')
        body = b'[' + note + b', ' + \
            json.dumps(reply(rid, text_result('batched'))).encode() + b']'
        self.send_body(200, body, 'application/json')

    def tool_embed(self, sess, rid, args, params):
        res = {'uri': args.get('uri', 'fake://embedded'),
               'mimeType': args.get('mimeType', 'text/plain'),
               'text': args.get('text', '')}
        self.send_json(200, reply(rid, {'content': [
            {'type': 'resource', 'resource': res}]}))

    def tool_not_json(self, sess, rid, args, params):
        self.send_body(200, b'<html>oops: not json</html>',
                       'application/json')

    def tool_echo(self, sess, rid, args, params):
        self.send_json(200, reply(rid, text_result(args.get('text', ''))))

    def tool_sse_echo(self, sess, rid, args, params):
        t = args.get('text', '')
        stream = sess.next('s')
        token = (params.get('_meta') or {}).get('progressToken')
        self.sse_start()
        self.chunk(': sse_echo\n\n')
        if token is not None:
            self.event({'jsonrpc': '2.0', 'method': 'notifications/progress',
                        'params': {'progressToken': token, 'progress': 1,
                                   'total': 2}}, f'{stream}-1')
        self.event({'jsonrpc': '2.0', 'method': 'notifications/message',
                    'params': {'level': 'info', 'logger': 'fake',
                               'data': f'sse_echo {t}'}}, f'{stream}-2')
        self.event(reply(rid, text_result(t)), f'{stream}-3', split=True)
        self.sse_end()

    def tool_sse_drop_resume(self, sess, rid, args, params):
        stream = sess.next('s')
        retry = args.get('retry', 200)
        with LOCK:
            sess.streams[stream] = {
                'msgs': [reply(rid, text_result('resumed ' +
                                                args.get('text', '')))],
                'drops': int(args.get('times', 1)) - 1, 'retry': retry}
        self.sse_start()
        self.prime(stream, retry)
        self.sse_end()

    def prime(self, stream, retry):
        """The priming event of a stream: an id, no data."""
        self.rec['note'] = f'event {stream}-0'
        self.chunk(f'id: {stream}-0\n' +
                   (f'retry: {retry}\n' if retry is not None else '') +
                   'data: \n\n')

    def tool_sse_drop_noid(self, sess, rid, args, params):
        self.sse_start()
        self.event({'jsonrpc': '2.0', 'method': 'notifications/message',
                    'params': {'level': 'info', 'logger': 'fake',
                               'data': 'sse_drop_noid'}})
        self.sse_end()

    def tool_drop(self, sess, rid, args, params):
        self.drop()

    def tool_http500(self, sess, rid, args, params):
        self.send_text(500, 'internal failure: the fake says no\n')

    def tool_rpc_error_500(self, sess, rid, args, params):
        err = rpc_error(rid, -32603, 'fake internal error')
        err['error']['data'] = {'tool': 'rpc_error_500'}
        self.send_json(500, err)

    def tool_expire(self, sess, rid, args, params):
        with LOCK:
            SESSIONS.pop(sess.sid, None)
        sess.end()
        self.send_text(404, 'session expired')

    def tool_sleep(self, sess, rid, args, params):
        ms = int(args.get('ms', 0))
        with LOCK:
            ev = sess.cancels.setdefault(rid, threading.Event())
        if ev.wait(ms / 1000):
            if sess.ended.is_set():
                return self.send_text(404, 'session ended')
            self.rec['note'] = 'cancelled'
            self.drop()
        self.send_json(200, reply(rid, text_result(f'slept {ms}')))

    def tool_big(self, sess, rid, args, params):
        res = reply(rid, text_result('x' * int(args['bytes'])))
        if not args.get('sse'):
            return self.send_json(200, res)
        data = f'data: {json.dumps(res)}\n\n'.encode()
        self.sse_start()
        for i in range(0, len(data), 1 << 20):
            self.chunk(data[i:i + (1 << 20)])
        self.sse_end()

    def tool_ask(self, sess, rid, args, params):
        sid = sess.next('srv-')
        ask = {'jsonrpc': '2.0', 'id': sid, 'method': args['method']}
        if 'params' in args:
            ask['params'] = args['params']
        w = [threading.Event(), None]
        with LOCK:
            sess.waiting[sid] = w
        via_get = args.get('via') == 'get'
        if via_get:
            sess.outbox.put((ask, None))
        else:
            self.sse_start()
            self.event(ask, f'{sid}-0')
        w[0].wait(10)
        got = w[1] or {'error': 'no answer within 10 s'}
        out = {k: v for k, v in got.items() if k in ('result', 'error')}
        res = reply(rid, text_result(json.dumps(out)))
        if via_get:
            return self.send_json(200, res)
        self.event(res, f'{sid}-1')
        self.sse_end()

    def tool_ask_roots(self, sess, rid, args, params):
        self.tool_ask(sess, rid, {'method': 'roots/list'}, params)

    def tool_end_get(self, sess, rid, args, params):
        written = threading.Event()
        sess.outbox.put((END_GET, written))
        ok = written.wait(5)
        self.send_json(200, reply(rid, text_result(
            'ended' if ok else 'no GET stream took it', not ok)))

    def tool_notify(self, sess, rid, args, params):
        n = {'jsonrpc': '2.0',
             'method': args.get('method', 'notifications/message'),
             'params': args.get('params', {'level': 'info', 'logger': 'fake',
                                           'data': 'notified'})}
        written = threading.Event()
        sess.outbox.put((n, written))
        ok = written.wait(5)
        self.send_json(200, reply(rid, text_result(
            'notified' if ok else 'no GET stream took it', not ok)))


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64


def main(argv=None):
    global OPTS, SHARED
    ap = argparse.ArgumentParser(description='fake Streamable HTTP MCP '
                                 'server (see the docstring)')
    ap.add_argument('--init-status', type=int)
    ap.add_argument('--require-header')
    ap.add_argument('--protocol')
    ap.add_argument('--page-size', type=int, default=3)
    ap.add_argument('--extra-tools', type=int, default=0)
    ap.add_argument('--sse-init', action='store_true')
    ap.add_argument('--no-get', action='store_true')
    ap.add_argument('--stateless', action='store_true')
    ap.add_argument('--no-session', choices=('500', 'close'))
    ap.add_argument('--init-not-json', action='store_true')
    ap.add_argument('--initialized-delay', type=int)
    ap.add_argument('--legacy-sse', action='store_true')
    ap.add_argument('--endpoint')
    ap.add_argument('--endpoint-delay', type=int)
    ap.add_argument('--roots-delay', type=int)
    OPTS = ap.parse_args(argv)
    if OPTS.page_size < 1:
        ap.error('--page-size must be at least 1')
    SHARED = Session()
    srv = Server(('127.0.0.1', 0), Handler)
    fakehttp.serve(srv)


if __name__ == '__main__':
    sys.exit(main())
