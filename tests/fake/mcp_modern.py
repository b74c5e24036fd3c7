#!/usr/bin/env python3
"""mcp_modern.py: a Streamable HTTP MCP server of the modern era (MCP
2026-07-28: per-request _meta, no initialize, no sessions), strict on
purpose, for the mcpfs mount tests. Standard library only; written from the
specification (basic/index.mdx, basic/versioning.mdx,
basic/transports/streamable-http.mdx, basic/patterns/mrtr.mdx and
subscriptions.mdx, server/discover.mdx). tests/fake/README.md says what it
does; in short:

* POST /mcp takes one JSON-RPC message. A modern request must carry
  params._meta io.modelcontextprotocol/protocolVersion (2026-07-28) and
  clientCapabilities (else 400, -32602), the headers MCP-Protocol-Version
  (equal to the _meta version), Mcp-Method (equal to method) and, for
  tools/call, prompts/get and resources/read, Mcp-Name (equal to
  params.name / params.uri, a =?base64?...?= value decoded first); a missing
  or mismatched one is 400 with HeaderMismatch -32020. An unknown version
  is 400 with -32022 and data.supported; an unknown method 404 with -32601.
  Accept must list application/json and text/event-stream (else 400).
* --era modern (default): initialize is refused (400, -32022 naming the
  versions), GET and DELETE /mcp are 405. --era dual: initialize also opens
  a legacy session (Mcp-Session-Id) served the 2025-11-25 way. --era
  legacy: any request that is not an initialize or a request of a legacy
  session gets 400 with an empty body (a legacy server's answer to a modern
  request, the HTTP fallback path); initialize opens a legacy session.
* Tasks (SEP-2663): `research` answers with a task when the request
  declares io.modelcontextprotocol/tasks; tasks/get, tasks/update and
  tasks/cancel follow it (tests/fake/README.md).
* --header-tools: also the tool `query`, whose arguments region, limit,
  dry and opts.zone are marked x-mcp-header (the request must carry each
  as Mcp-Param-*, equal after decoding, and none for an absent argument,
  else 400 HeaderMismatch -32020; it answers with the headers it got), and
  four tools whose annotations break the rules (bad_token, bad_number,
  bad_items, bad_twice), which a client must leave out; `late`, whose
  region is listed with its annotation only from the second tools/list
  on, and `never`, listed without it always, both checked as annotated.
* GET /log: every request to /mcp so far as a JSON array (n, t, method,
  path, headers with lower-cased names, body, json, status, note).

The free port is printed as the first line of stdout.
"""

import argparse
import base64
import json
import queue
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import fakehttp

MODERN = '2026-07-28'
LEGACY = '2025-11-25'
META_VERSION = 'io.modelcontextprotocol/protocolVersion'
META_CAPS = 'io.modelcontextprotocol/clientCapabilities'
META_INFO = 'io.modelcontextprotocol/clientInfo'
META_SERVER = 'io.modelcontextprotocol/serverInfo'
META_SUB = 'io.modelcontextprotocol/subscriptionId'
NAMED = ('tools/call', 'prompts/get', 'resources/read')
ASK_KEYS = {'elicitation': 'answer', 'sampling': 'model', 'roots': 'roots'}

OPTS = None
LOCK = threading.Lock()
LOG = []
STATE = {'counter': 0, 'states': {}, 'added': [], 'listens': [],
         'sessions': {}, 'tasks': {}}
TASKS_EXT = 'io.modelcontextprotocol/tasks'
TASK_METHODS = ('tasks/get', 'tasks/update', 'tasks/cancel')

ECHO_SCHEMA = {'type': 'object', 'properties': {'text': {'type': 'string'}}}
TOOLS = [
    {'name': 'echo', 'description': 'Return text.',
     'inputSchema': {'type': 'object',
                     'properties': {'text': {'type': 'string'}},
                     'required': ['text']}},
    {'name': 'counter', 'description': 'Increment the server-wide counter '
     'and return it.', 'inputSchema': {'type': 'object', 'properties': {}}},
    {'name': 'sleep', 'description': 'Answer "slept MS" after ms.',
     'inputSchema': {'type': 'object',
                     'properties': {'ms': {'type': 'integer'}}}},
    {'name': 'ask', 'description': 'Ask the client for text through an '
     'input_required result; the retry answers "you said: <content>".',
     'inputSchema': {'type': 'object', 'properties': {
         'message': {'type': 'string'},
         'kinds': {'type': 'array', 'items': {
             'type': 'string', 'enum': ['elicitation', 'sampling',
                                        'roots']}}}}},
    {'name': 'research', 'description': 'Run as a task (the tasks '
     'extension, SEP-2663) when the client declares it, else -32021: '
     'steps of ms each, then "researched TOPIC in N steps"; ask: an '
     'input_required step first; fail: the task fails.',
     'inputSchema': {'type': 'object', 'properties': {
         'topic': {'type': 'string'}, 'steps': {'type': 'integer'},
         'ms': {'type': 'integer'}, 'ask': {'type': 'boolean'},
         'fail': {'type': 'boolean'}, 'id': {'type': 'string'}}}},
    {'name': 'add_tool', 'description': 'Add an echoing tool and send '
     'notifications/tools/list_changed on the subscriptions/listen '
     'streams.', 'inputSchema': {'type': 'object',
                                 'properties': {'name': {'type': 'string'}}}},
]

# --header-tools: a tool whose arguments are mirrored into Mcp-Param-*
# headers (basic/transports/streamable-http.mdx, "Custom Headers from Tool
# Parameters"), and four whose x-mcp-header annotations break a rule there
# (a client must leave each out of tools/list)
HEADER_TOOLS = [
    {'name': 'query', 'description': 'Answer with the Mcp-Param-* headers '
     'it got, as JSON: {"NAME": [raw, decoded]}.',
     'inputSchema': {'type': 'object', 'properties': {
         'region': {'type': 'string', 'x-mcp-header': 'Region'},
         'limit': {'type': 'integer', 'x-mcp-header': 'Limit'},
         'dry': {'type': 'boolean', 'x-mcp-header': 'Dry'},
         'opts': {'type': 'object', 'properties': {
             'zone': {'type': 'string', 'x-mcp-header': 'Zone'}}},
         'sql': {'type': 'string'}}}},
    {'name': 'bad_token', 'description': 'Not a token.',
     'inputSchema': {'type': 'object', 'properties': {
         'a': {'type': 'string', 'x-mcp-header': 'a b'}}}},
    {'name': 'bad_number', 'description': 'On a number.',
     'inputSchema': {'type': 'object', 'properties': {
         'a': {'type': 'number', 'x-mcp-header': 'A'}}}},
    {'name': 'bad_items', 'description': 'Under items.',
     'inputSchema': {'type': 'object', 'properties': {
         'a': {'type': 'array', 'items': {'type': 'string',
                                          'x-mcp-header': 'A'}}}}},
    {'name': 'bad_twice', 'description': 'One name twice.',
     'inputSchema': {'type': 'object', 'properties': {
         'a': {'type': 'string', 'x-mcp-header': 'Same'},
         'b': {'type': 'string', 'x-mcp-header': 'same'}}}},
]

# --header-tools: `late` is listed without its annotation the first time
# (as a server redeployed meanwhile), `never` always: the server checks
# both against REQUIRED, so a client that lists again gets `late` right
# and `never` refused twice
REQUIRED = {'late': {'type': 'object', 'properties': {
    'region': {'type': 'string', 'x-mcp-header': 'Region'}}}}
REQUIRED['never'] = REQUIRED['late']


def header_tools():
    """HEADER_TOOLS with late and never as this listing shows them."""
    with LOCK:
        STATE['header_lists'] = STATE.get('header_lists', 0) + 1
        first = STATE['header_lists'] == 1
    plain = {'type': 'object', 'properties': {'region': {'type': 'string'}}}
    return HEADER_TOOLS + [
        {'name': 'late', 'description': 'Answers like query.',
         'inputSchema': plain if first else REQUIRED['late']},
        {'name': 'never', 'description': 'Answers like query.',
         'inputSchema': plain}]


def header_paths(schema, path=()):
    """(path of properties keys, header name) of each x-mcp-header."""
    for key, sub in (schema.get('properties') or {}).items():
        if not isinstance(sub, dict):
            continue
        if isinstance(sub.get('x-mcp-header'), str):
            yield path + (key,), sub['x-mcp-header']
        yield from header_paths(sub, path + (key,))


def header_value(v):
    """What a client puts in Mcp-Param-* for v, None when it sends none."""
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, int):
        return str(v)
    return v if isinstance(v, str) else None


def supported():
    return [OPTS.supported, LEGACY] if OPTS.era == 'dual' \
        else [OPTS.supported]


def server_info():
    return {'name': 'mcp_modern', 'version': '1.0'}


def complete(result):
    result.setdefault('resultType', 'complete')
    result.setdefault('_meta', {}).setdefault(META_SERVER, server_info())
    return result


def text_result(t):
    return {'content': [{'type': 'text', 'text': t}]}


def rpc_error(rid, code, message, data=None):
    e = {'code': code, 'message': message}
    if data is not None:
        e['data'] = data
    return {'jsonrpc': '2.0', 'id': rid, 'error': e}


def decode_header(v):
    if v is not None and v.startswith('=?base64?') and v.endswith('?='):
        try:
            return base64.b64decode(v[9:-2], validate=True).decode()
        except ValueError:
            return None
    return v


class Refused(Exception):
    """A request refused with HTTP status and a JSON-RPC error body (None:
    an empty body)."""

    def __init__(self, status, body):
        super().__init__(status)
        self.status = status
        self.body = body


class Handler(fakehttp.Sending, BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'mcp_modern'

    def log_message(self, *args):
        pass

    # -- plumbing

    def record(self, body=b''):
        try:
            j = json.loads(body) if body else None
        except ValueError:
            j = None
        rec = {'t': time.monotonic(), 'method': self.command,
               'path': self.path.split('?')[0],
               'headers': {k.lower(): v for k, v in self.headers.items()},
               'body': body.decode(errors='replace'), 'json': j,
               'status': None, 'note': None}
        with LOCK:
            rec['n'] = len(LOG)
            LOG.append(rec)
        self.rec = rec
        return rec

    def send_body(self, code, body, ctype, headers=()):
        self.rec['status'] = code
        super().send_body(code, body, ctype, headers)

    def sse_start(self):
        self.rec['status'] = 200
        self.send_response(200)
        self.send_header('Content-Type', 'text/event-stream')
        self.send_header('Cache-Control', 'no-cache')
        self.send_header('X-Accel-Buffering', 'no')
        self.send_header('Transfer-Encoding', 'chunked')
        self.end_headers()

    def chunk(self, data):
        self.wfile.write(b'%x\r\n%s\r\n' % (len(data), data))
        self.wfile.flush()

    def event(self, msg):
        self.chunk(b'event: message\ndata: ' + json.dumps(msg).encode() +
                   b'\n\n')

    # -- GET, DELETE

    def do_GET(self):
        if self.path.split('?')[0] == '/log':
            with LOCK:
                body = json.dumps(LOG).encode()
            self.rec = {}
            self.send_response(200)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.record()
        self.send_body(405, b'GET is not part of MCP ' + MODERN.encode(),
                       'text/plain', [('Allow', 'POST')])

    def do_DELETE(self):
        self.record()
        sid = self.headers.get('Mcp-Session-Id')
        if OPTS.era != 'modern' and sid in STATE['sessions']:
            with LOCK:
                STATE['sessions'].pop(sid, None)
            self.send_body(200, b'', None)
            return
        self.send_body(405, b'', None, [('Allow', 'POST')])

    # -- POST

    def do_POST(self):
        n = int(self.headers.get('Content-Length') or 0)
        body = self.rfile.read(n) if n else b''
        self.record(body)
        if self.path.split('?')[0] != '/mcp':
            self.send_body(404, b'not found', 'text/plain')
            return
        msg = self.rec['json']
        try:
            if not isinstance(msg, dict):
                raise Refused(400, rpc_error(None, -32700 if msg is None
                                             else -32600, 'Parse error'))
            if self.legacy(msg):
                return
            self.modern(msg)
        except Refused as r:
            if r.body is None:
                self.send_body(r.status, b'', None)
            else:
                self.send_json(r.status, r.body)

    # -- the legacy era (--era legacy|dual): initialize and its sessions

    def legacy(self, msg):
        """Serves msg the 2025-11-25 way if it belongs to that era here;
        returns True if it did."""
        method, rid = msg.get('method'), msg.get('id')
        sid = self.headers.get('Mcp-Session-Id')
        if OPTS.era == 'modern':
            return False
        if method == 'initialize':
            sid = secrets.token_hex(8)
            with LOCK:
                STATE['sessions'][sid] = True
            self.rec['note'] = f'session {sid}'
            v = (msg.get('params') or {}).get('protocolVersion') or LEGACY
            self.send_json(200, {'jsonrpc': '2.0', 'id': rid, 'result': {
                'protocolVersion': v if v in (LEGACY, '2025-06-18',
                                              '2025-03-26') else LEGACY,
                'capabilities': {'tools': {}},
                'serverInfo': server_info()}},
                [('Mcp-Session-Id', sid)])
            return True
        if sid not in STATE['sessions']:
            if OPTS.era == 'legacy':
                raise Refused(400, None)   # what a legacy server says
            return False                   # dual: served as modern
        if rid is None or 'method' not in msg:
            self.send_body(202, b'', None)
            return True
        params = msg.get('params') or {}
        if method == 'tools/list':
            res = {'tools': [t for t in TOOLS
                             if t['name'] in ('echo', 'counter')]}
        elif method == 'tools/call' and params.get('name') == 'echo':
            res = text_result(str((params.get('arguments') or {})
                                  .get('text', '')))
        elif method == 'tools/call' and params.get('name') == 'counter':
            with LOCK:
                STATE['counter'] += 1
                res = text_result(str(STATE['counter']))
        elif method == 'ping':
            res = {}
        else:
            self.send_json(200, rpc_error(rid, -32601, 'Method not found'))
            return True
        self.send_json(200, {'jsonrpc': '2.0', 'id': rid, 'result': res})
        return True

    # -- the modern era

    def check(self, msg):
        """Refuses msg unless _meta and the headers are as the modern era
        wants them."""
        rid, method = msg.get('id'), msg.get('method')
        params = msg.get('params')
        if method == 'initialize':
            raise Refused(400, rpc_error(
                rid, -32022, 'initialize is not supported: this server '
                f'speaks only MCP {", ".join(supported())} (per-request '
                '_meta, no initialize)',
                {'supported': supported(),
                 'requested': (params or {}).get('protocolVersion')}))
        accept = self.headers.get('Accept', '')
        if 'application/json' not in accept or \
                'text/event-stream' not in accept:
            raise Refused(400, rpc_error(
                rid, -32600, 'Accept must list application/json and '
                f'text/event-stream (got {accept!r})'))
        meta = params.get('_meta') if isinstance(params, dict) else None
        if not isinstance(meta, dict) or \
                not isinstance(meta.get(META_VERSION), str) or \
                not isinstance(meta.get(META_CAPS), dict):
            raise Refused(400, rpc_error(
                rid, -32602, f'Invalid params: _meta needs {META_VERSION} '
                f'(string) and {META_CAPS} (object)'))
        info = meta.get(META_INFO)
        if info is not None and not (
                isinstance(info, dict) and isinstance(info.get('name'), str)
                and isinstance(info.get('version'), str)):
            raise Refused(400, rpc_error(
                rid, -32602, f'Invalid params: {META_INFO} needs name and '
                'version'))
        hv = self.headers.get('MCP-Protocol-Version')
        if hv is None:
            raise Refused(400, rpc_error(
                rid, -32020, 'Header mismatch: no MCP-Protocol-Version '
                'header'))
        if hv != meta[META_VERSION]:
            raise Refused(400, rpc_error(
                rid, -32020, f'Header mismatch: MCP-Protocol-Version {hv!r} '
                f'is not the _meta version {meta[META_VERSION]!r}'))
        if hv != OPTS.supported:
            raise Refused(400, rpc_error(
                rid, -32022, 'Unsupported protocol version',
                {'supported': supported(), 'requested': hv}))
        hm = self.headers.get('Mcp-Method')
        if hm != method:
            raise Refused(400, rpc_error(
                rid, -32020, f'Header mismatch: Mcp-Method {hm!r} is not '
                f'the method {method!r}'))
        if method in NAMED or method in TASK_METHODS:
            want = params.get('uri' if method == 'resources/read'
                              else 'taskId' if method in TASK_METHODS
                              else 'name')
            got = self.headers.get('Mcp-Name')
            if got is None or decode_header(got) != want:
                raise Refused(400, rpc_error(
                    rid, -32020, f'Header mismatch: Mcp-Name {got!r} is '
                    f'not {want!r}'))
        return params, meta

    def modern(self, msg):
        rid, method = msg.get('id'), msg.get('method')
        if method is None:
            raise Refused(400, rpc_error(None, -32600, 'a client sends no '
                                         'responses in ' + MODERN))
        params, meta = self.check(msg)
        if rid is None:
            self.send_body(202, b'', None)
            return
        if method == 'server/discover':
            res = {'resultType': 'complete',
                   'supportedVersions': supported(),
                   'capabilities': {'tools': {'listChanged': True},
                                    'extensions': {TASKS_EXT: {}}},
                   '_meta': {META_SERVER: server_info()}}
        elif method == 'ping':
            res = {}
        elif method == 'tools/list':
            res = {'tools': TOOLS + [
                {'name': a, 'description': 'Added by add_tool.',
                 'inputSchema': ECHO_SCHEMA} for a in STATE['added']] +
                (header_tools() if OPTS.header_tools else [])}
        elif method == 'subscriptions/listen':
            self.listen(rid, params)
            return
        elif method == 'tools/call':
            res = self.tool(rid, params, meta)
        elif method in TASK_METHODS:
            res = task_request(rid, method, params)
        else:
            raise Refused(404, rpc_error(rid, -32601, 'Method not found'))
        if isinstance(res, dict) and 'error' in res and 'jsonrpc' in res:
            self.send_json(200, res)
            return
        self.send_json(200, {'jsonrpc': '2.0', 'id': rid,
                             'result': complete(res)})

    def params_checked(self, rid, name, args):
        """Server Validation: each Mcp-Param-* header of the tool's
        schema, decoded, equals the argument at its path, and is absent
        when the argument is; else 400 HeaderMismatch. The headers got."""
        tool = [t['inputSchema'] for t in HEADER_TOOLS if t['name'] == name]
        got = {}
        for path, hname in header_paths(tool[0] if tool else
                                        REQUIRED.get(name, {})):
            v = args
            for k in path:
                v = v.get(k) if isinstance(v, dict) else None
            want = header_value(v)
            raw = self.headers.get('Mcp-Param-' + hname)
            if raw is not None:
                got[hname] = [raw, decode_header(raw)]
            if (raw is None) != (want is None) or \
                    (raw is not None and decode_header(raw) != want):
                raise Refused(400, rpc_error(
                    rid, -32020, f'Header mismatch: Mcp-Param-{hname} '
                    f'{raw!r} is not {want!r}'))
        return got

    def tool(self, rid, params, meta):
        name = params.get('name')
        args = params.get('arguments') or {}
        got = self.params_checked(rid, name, args)
        if name in ('query', 'late', 'never') and OPTS.header_tools:
            return text_result(json.dumps(got, sort_keys=True))
        if name == 'echo' or name in STATE['added']:
            return text_result(str(args.get('text', '')))
        if name == 'counter':
            with LOCK:
                STATE['counter'] += 1
                return text_result(str(STATE['counter']))
        if name == 'sleep':
            ms = args.get('ms', 0)
            time.sleep(ms / 1000 if isinstance(ms, int) and ms > 0 else 0)
            return text_result(f'slept {ms}')
        if name == 'ask':
            return self.ask(rid, params, meta)
        if name == 'research':
            if not isinstance((meta[META_CAPS].get('extensions') or {})
                              .get(TASKS_EXT), dict):
                raise Refused(400, rpc_error(
                    rid, -32021, 'Missing required client capability',
                    {'requiredCapabilities': {'extensions':
                                              {TASKS_EXT: {}}}}))
            return task_start(args)
        if name == 'add_tool':
            added = args.get('name') or f'added{len(STATE["added"]) + 1}'
            with LOCK:
                STATE['added'].append(added)
                listens = list(STATE['listens'])
            for q in listens:
                q.put('notifications/tools/list_changed')
            return text_result(f'added {added}; notified {len(listens)} '
                               'subscription(s)')
        return rpc_error(rid, -32602, f'Unknown tool: {name}')

    def ask(self, rid, params, meta):
        st, ir = params.get('requestState'), params.get('inputResponses')
        args = params.get('arguments') or {}
        message = args.get('message') or 'What do you say?'
        kinds = args.get('kinds', ['elicitation'])
        if not isinstance(kinds, list) or not kinds or \
                not all(k in ASK_KEYS for k in kinds):
            return rpc_error(rid, -32602, 'ask: kinds must be a non-empty '
                             'array of elicitation, sampling, roots')
        if st is None:
            if ir is not None:
                return rpc_error(rid, -32602, 'ask: inputResponses without '
                                 'requestState')
            missing = {k: {} for k in kinds
                       if not isinstance(meta[META_CAPS].get(k), dict)}
            if missing:
                raise Refused(400, rpc_error(
                    rid, -32021, 'Missing required client capability',
                    {'requiredCapabilities': missing}))
            st = 'fake-state-' + secrets.token_hex(8)
            with LOCK:
                STATE['states'][st] = rid
            return self.input_required(st, kinds, message)
        with LOCK:
            known = st in STATE['states']
            first = STATE['states'].get(st)
        if not known:
            return rpc_error(rid, -32602, 'ask: unknown requestState')
        if first == rid:
            return rpc_error(rid, -32600, 'ask: the retry reuses the '
                             'JSON-RPC id of the request that got '
                             'input_required')
        ir = ir if isinstance(ir, dict) else {}
        if not all(isinstance(ir.get(ASK_KEYS[k]), dict) for k in kinds):
            return self.input_required(st, kinds, message)
        ans = ir.get('answer')
        if 'elicitation' in kinds and not isinstance(ans.get('action'), str):
            return rpc_error(rid, -32602, 'ask: inputResponses.answer has '
                             'no action')
        with LOCK:
            STATE['states'].pop(st, None)
        out = []
        if 'elicitation' in kinds:
            out.append('you said: ' + json.dumps(
                ans.get('content'), separators=(',', ':'))
                if ans['action'] == 'accept'
                else f'you did not answer: {ans["action"]}')
        if 'sampling' in kinds:
            c = ir['model'].get('content')
            out.append('the model said: ' + (
                c['text'] if isinstance(c, dict) and
                isinstance(c.get('text'), str)
                else json.dumps(c, separators=(',', ':'))))
        if 'roots' in kinds:
            out.append('roots: ' + json.dumps(ir['roots'].get('roots'),
                                              separators=(',', ':')))
        return text_result('; '.join(out))

    @staticmethod
    def input_required(st, kinds, message):
        reqs = {}
        if 'elicitation' in kinds:
            reqs['answer'] = {
                'method': 'elicitation/create',
                'params': {'mode': 'form', 'message': message,
                           'requestedSchema': {
                               'type': 'object',
                               'properties': {'text': {'type': 'string'}},
                               'required': ['text']}}}
        if 'sampling' in kinds:
            reqs['model'] = {
                'method': 'sampling/createMessage',
                'params': {'messages': [{'role': 'user', 'content': {
                    'type': 'text', 'text': 'Say something.'}}],
                    'maxTokens': 50}}
        if 'roots' in kinds:
            reqs['roots'] = {'method': 'roots/list'}
        return {'resultType': 'input_required', 'requestState': st,
                'inputRequests': reqs}

    def listen(self, rid, params):
        f = params.get('notifications')
        if not isinstance(f, dict):
            raise Refused(400, rpc_error(rid, -32602, 'subscriptions/listen '
                                         'needs a notifications object'))
        tools = f.get('toolsListChanged') is True
        q = queue.Queue()
        ack = {'notifications': {'toolsListChanged': True} if tools else {},
               '_meta': {META_SUB: rid}}
        if tools:
            with LOCK:
                STATE['listens'].append(q)
        self.rec['note'] = 'listen'     # once add_tool would reach it
        try:
            self.sse_start()
            self.event({'jsonrpc': '2.0', 'method':
                        'notifications/subscriptions/acknowledged',
                        'params': ack})
            while True:
                try:
                    m = q.get(timeout=2)
                except queue.Empty:
                    self.chunk(b':\n\n')    # keep-alive; fails once closed
                    continue
                self.event({'jsonrpc': '2.0', 'method': m,
                            'params': {'_meta': {META_SUB: rid}}})
        except OSError:
            pass
        finally:
            with LOCK:
                if q in STATE['listens']:
                    STATE['listens'].remove(q)
        self.close_connection = True


def now_iso():
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()) \
        .replace('Z', '.%03dZ' % (int(time.time() * 1000) % 1000))


def task_start(args):
    """A research task (SEP-2663): its CreateTaskResult; a thread runs it."""
    # id: the server reuses that taskId (a later task takes its place)
    tid = args.get('id') or 'task-' + secrets.token_hex(6)
    t = {'taskId': tid, 'status': 'working', 'statusMessage': 'starting',
         'createdAt': now_iso(), 'lastUpdatedAt': now_iso(),
         'ttlMs': 600000, 'pollIntervalMs': 100,
         'cancel': threading.Event(), 'answers': {}}
    with LOCK:
        STATE['tasks'][tid] = t
    threading.Thread(target=task_run, args=(t, args), daemon=True).start()
    return {'resultType': 'task', **task_view(t)}


def task_view(t):
    return {k: v for k, v in t.items() if k not in ('cancel', 'answers')}


def task_set(t, **kw):
    with LOCK:
        t.update(kw, lastUpdatedAt=now_iso())


def task_run(t, args):
    steps = args.get('steps', 3)
    ms = args.get('ms', 200)
    said = None
    if args.get('ask'):
        key = 'confirm-' + t['taskId'][-4:]
        task_set(t, status='input_required', statusMessage='confirm?',
                 inputRequests={key: {
                     'method': 'elicitation/create',
                     'params': {'mode': 'form', 'message': 'Go on?',
                                'requestedSchema': {
                                    'type': 'object', 'properties': {
                                        'text': {'type': 'string'}}}}}})
        while key not in t['answers'] and not t['cancel'].is_set():
            time.sleep(0.02)
        said = t['answers'].get(key)
        # eventually consistent (SEP-2663): polls still see the answered
        # request for a while, which a client must not ask again
        time.sleep(0.5)
        with LOCK:
            t.pop('inputRequests', None)
    for i in range(steps):
        if t['cancel'].wait(ms / 1000):
            task_set(t, status='cancelled',
                     statusMessage=f'cancelled at step {i + 1}')
            return
        task_set(t, status='working',
                 statusMessage=f'step {i + 1} of {steps}')
    if args.get('fail'):
        task_set(t, status='failed', statusMessage='no sources',
                 error={'code': -32000, 'message': 'research failed: no '
                        'sources'})
        return
    text = f'researched {args.get("topic", "")} in {steps} steps'
    if said is not None:
        text += '; confirmed: ' + json.dumps(said, separators=(',', ':'))
    task_set(t, status='completed', statusMessage='done',
             result=complete(text_result(text)))


def task_request(rid, method, params):
    """tasks/get, tasks/update, tasks/cancel of SEP-2663."""
    with LOCK:
        t = STATE['tasks'].get(params.get('taskId'))
    if t is None:
        return rpc_error(rid, -32602, 'unknown task')
    if method == 'tasks/get':
        with LOCK:
            return task_view(t)
    if method == 'tasks/update':
        ir = params.get('inputResponses')
        if not isinstance(ir, dict):
            return rpc_error(rid, -32602, 'tasks/update needs '
                             'inputResponses')
        with LOCK:
            want = (t.get('inputRequests') or {}).keys()
            t['answers'].update({k: v for k, v in ir.items()
                                 if k in want})
        return {}
    t['cancel'].set()
    return {}


class Server(ThreadingHTTPServer):
    daemon_threads = True


def main(argv=None):
    global OPTS
    ap = argparse.ArgumentParser(description='fake modern-era Streamable '
                                 'HTTP MCP server (see the docstring)')
    ap.add_argument('--era', choices=('modern', 'dual', 'legacy'),
                    default='modern')
    ap.add_argument('--supported', default=MODERN)
    ap.add_argument('--header-tools', action='store_true',
                    help='the x-mcp-header tools (HEADER_TOOLS)')
    OPTS = ap.parse_args(argv)
    srv = Server(('127.0.0.1', 0), Handler)
    fakehttp.serve(srv)


if __name__ == '__main__':
    sys.exit(main())
