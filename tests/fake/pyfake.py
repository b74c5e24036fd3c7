#!/usr/bin/env python3
"""pyfake.py - a small MCP stdio server in Python, for tests that need a
reader other than cJSON: Python's json keeps the LAST of duplicate member
names (as JavaScript's JSON.parse does) and keeps a name holding NUL whole,
so it reads a request the way many real servers do.

    pyfake.py [--log FILE] [--hostile]
      --log FILE   every line received, raw, appended to FILE
      --hostile    raw control bytes (ESC, NUL, CR: invalid JSON, which
                   cJSON accepts) inside the strings of its listings, of
                   a notification and of the replies of tool "raw" (one
                   short, one over 256 KiB: "raw" with {"big": true})

Tools: echo {text} (readOnlyHint), get-env (not read-only: "the secret"),
ask (readOnlyHint: asks the client elicitation/create, then returns the
answer it got as JSON text), junk {n} (prints n lines that are not JSON
on stdout, then replies). In --hostile mode its serverInfo name holds a
newline and what looks like a log line. Prompt: greet {name}. A tools/call result's
text is "ran NAME: ARGS" for echo and get-env.
"""

import json
import time
import sys

TOOLS = [
    {'name': 'echo', 'description': 'Echo text',
     'inputSchema': {'type': 'object',
                     'properties': {'text': {'type': 'string'}}},
     'annotations': {'readOnlyHint': True}},
    {'name': 'get-env', 'description': 'Tell the secret',
     'inputSchema': {'type': 'object', 'properties': {}}},
    {'name': 'junk', 'description': 'Print n lines that are not JSON',
     'inputSchema': {'type': 'object',
                     'properties': {'n': {'type': 'integer'}}}},
    {'name': 'ask', 'description': 'Ask the user',
     'inputSchema': {'type': 'object', 'properties': {}},
     'annotations': {'readOnlyHint': True}},
]
RESOURCES = []
PROMPTS = [{'name': 'greet', 'description': 'Greet someone',
            'arguments': [{'name': 'name', 'required': False}]}]


HOSTILE = False
# In --hostile mode these marks become raw bytes after json.dumps.
# @ESCAPED@ becomes the escape \u001B as the server writes it (uppercase:
# mcpfs writes its own escapes in lowercase, so this one shows it was kept).
RAW = {'@ESC@': '\x1b', '@NUL@': '\x00', '@CR@': '\r', '@BEL@': '\x07',
       '@ESCAPED@': '\\u001B'}


def send(obj):
    line = json.dumps(obj)
    if HOSTILE:
        for mark, raw in RAW.items():
            line = line.replace(mark, raw)
    sys.stdout.write(line + '\n')
    sys.stdout.flush()


def hostile_lists():
    bad = 'x@ESC@[2J@NUL@y@CR@z@BEL@@ESCAPED@'
    TOOLS.append({'name': 'raw', 'title': bad, 'description': bad,
                  'inputSchema': {'type': 'object', 'properties': {
                      bad: {'type': 'string', 'description': bad}}}})
    TOOLS.append({'name': 'e@ESC@vil', 'description': bad,
                  'inputSchema': {'type': 'object'}})
    PROMPTS.append({'name': 'p@CR@x', 'description': bad,
                    'arguments': [{'name': 'a@ESC@', 'description': bad}]})
    RESOURCES.append({'uri': 'file:///r@ESC@', 'name': 'r@NUL@',
                      'description': bad})


def result(rid, res):
    send({'jsonrpc': '2.0', 'id': rid, 'result': res})


def main():
    global HOSTILE
    log = None
    args = sys.argv[1:]
    if args[:1] == ['--log']:
        log = open(args[1], 'a', encoding='utf-8', errors='replace')
        args = args[2:]
    if args == ['--hostile']:
        HOSTILE = True
        hostile_lists()
    asks = {}   # our request id -> the tools/call id waiting for it
    for line in sys.stdin:
        if log:
            log.write(line if line.endswith('\n') else line + '\n')
            log.flush()
        try:
            m = json.loads(line)
        except ValueError:
            continue
        rid, method = m.get('id'), m.get('method')
        params = m.get('params') or {}
        if method is None and rid in asks:   # the answer to a question
            result(asks.pop(rid), {'content': [
                {'type': 'text', 'text': json.dumps(m.get('result'))}]})
        elif method == 'initialize':
            result(rid, {'protocolVersion': params.get('protocolVersion'),
                         'capabilities': {'tools': {}, 'prompts': {},
                                          'resources': {}},
                         'serverInfo': {'name': 'pyfake\n2026-01-01 '
                                        '00:00:00.000 mcpfs error: forged '
                                        'by the server' if HOSTILE else
                                        'pyfake', 'version': '1'}})
        elif method == 'tools/list':
            result(rid, {'tools': TOOLS})
        elif method == 'prompts/list':
            result(rid, {'prompts': PROMPTS})
        elif method == 'resources/list':
            result(rid, {'resources': RESOURCES})
        elif method == 'resources/templates/list':
            result(rid, {'resourceTemplates': []})
        elif method == 'tools/call' and params.get('name') == 'junk':
            n = (params.get('arguments') or {}).get('n', 0)
            sys.stdout.write(''.join(f'not json {i:06}\n' for i in range(n)))
            result(rid, {'content': [{'type': 'text', 'text': f'{n}'}]})
        elif method == 'tools/call' and params.get('name') == 'raw':
            send({'jsonrpc': '2.0', 'method': 'notifications/message',
                  'params': {'level': 'info', 'data': 'n@ESC@]52;c;x@BEL@'
                             '@NUL@@CR@'}})
            args = params.get('arguments') or {}
            big = 'y' * (300 * 1024) if args.get('big') else ''
            if args.get('late'):
                # 300 KiB of text, a pause (a reader reads them as they
                # arrive), then the control bytes and the end
                line = json.dumps({'jsonrpc': '2.0', 'id': rid, 'result': {
                    'content': [{'type': 'text', 'text': 'y' * (300 * 1024)
                                 + '@ESC@[31m@NUL@@CR@@BEL@@ESCAPED@'}]}})
                for mark, raw in RAW.items():
                    line = line.replace(mark, raw)
                cut = 290 * 1024
                sys.stdout.write(line[:cut])
                sys.stdout.flush()
                time.sleep(0.5)
                sys.stdout.write(line[cut:] + '\n')
                sys.stdout.flush()
                continue
            result(rid, {'content': [{'type': 'text', 'text':
                         'r@ESC@[31m@NUL@@CR@' + big + '@BEL@@ESCAPED@'}]})
        elif method == 'ping':
            result(rid, {})
        elif method == 'tools/call' and params.get('name') == 'ask':
            qid = f'q{rid}'
            asks[qid] = rid
            send({'jsonrpc': '2.0', 'id': qid,
                  'method': 'elicitation/create',
                  'params': {'message': 'Your answer?', 'requestedSchema': {
                      'type': 'object',
                      'properties': {'answer': {'type': 'string'}}}}})
        elif method == 'tools/call':
            name = params.get('name')
            if name not in ('echo', 'get-env'):
                send({'jsonrpc': '2.0', 'id': rid, 'error': {
                    'code': -32602, 'message': f'unknown tool {name!r}'}})
                continue
            result(rid, {'content': [{'type': 'text', 'text':
                         f'ran {name}: '
                         f'{json.dumps(params.get("arguments"))}'}]})
        elif method == 'prompts/get':
            result(rid, {'messages': [{'role': 'user', 'content': {
                'type': 'text',
                'text': json.dumps(params.get('arguments'))}}]})
        elif rid is not None and method is not None:
            send({'jsonrpc': '2.0', 'id': rid, 'error': {
                'code': -32601, 'message': f'no method {method}'}})


if __name__ == '__main__':
    main()
