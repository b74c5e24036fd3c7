#!/usr/bin/env python3
"""hostile.py - an MCP stdio server whose listings and replies are given as
raw bytes, for the tests of what a server can make mcpfs do (spec 6).

    hostile.py [--tools FILE] [--prompts FILE]

FILE holds the raw bytes of the listing's array (tools/list's "tools",
prompts/list's "prompts"), written into the reply as they are (a literal
invalid UTF-8 byte stays one). Tools, whatever the listing says:

* blocks {n, block}: a reply of n content blocks, each the JSON text
  block (default {"type":"text","text":""}), written without building it
  in memory twice;
* secret {text}: one text block, text;
* anything else: text "called NAME".
"""
import json
import sys


def arg(flag):
    if flag in sys.argv:
        return sys.argv[sys.argv.index(flag) + 1]
    return None


def raw(flag, dflt=b'[]'):
    path = arg(flag)
    if not path:
        return dflt
    with open(path, 'rb') as f:
        return f.read()


TOOLS = raw('--tools')
PROMPTS = raw('--prompts')
out = sys.stdout.buffer


def send(b):
    out.write(b + b'\n')
    out.flush()


def reply(i, result):
    send(b'{"jsonrpc":"2.0","id":' + json.dumps(i).encode() +
         b',"result":' + result + b'}')


def call(i, params):
    name = params.get('name')
    a = params.get('arguments') or {}
    if name == 'blocks':
        n = int(a.get('n', 1))
        blk = a.get('block', '{"type":"text","text":""}').encode()
        head = b'{"jsonrpc":"2.0","id":' + json.dumps(i).encode() + \
            b',"result":{"content":['
        out.write(head)
        chunk = 4096
        done = 0
        while done < n:
            k = min(chunk, n - done)
            out.write(b','.join([blk] * k) + (b',' if done + k < n else b''))
            done += k
        out.write(b']}}\n')
        out.flush()
        return
    if name == 'secret':
        reply(i, json.dumps({'content': [
            {'type': 'text', 'text': a.get('text', '')}]}).encode())
        return
    reply(i, json.dumps({'content': [
        {'type': 'text', 'text': f'called {name}'}]}).encode())


for line in sys.stdin.buffer:
    if not line.strip():
        continue
    msg = json.loads(line)
    method, i = msg.get('method'), msg.get('id')
    if i is None:
        continue
    if method == 'initialize':
        reply(i, json.dumps({
            'protocolVersion': msg['params']['protocolVersion'],
            'capabilities': {'tools': {}, 'prompts': {}},
            'serverInfo': {'name': 'hostile', 'version': '1'}}).encode())
    elif method == 'tools/list':
        reply(i, b'{"tools":' + TOOLS + b'}')
    elif method == 'prompts/list':
        reply(i, b'{"prompts":' + PROMPTS + b'}')
    elif method == 'tools/call':
        call(i, msg.get('params') or {})
    elif method == 'prompts/get':
        reply(i, b'{"messages":[]}')
    else:
        send(json.dumps({'jsonrpc': '2.0', 'id': i, 'error': {
            'code': -32601, 'message': 'no such method'}}).encode())
