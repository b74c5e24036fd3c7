#!/usr/bin/env python3
"""mcp_shapes.py: a small MCP stdio server (2025-11-25, newline-delimited
JSON-RPC) whose tools have argument schemas with bounds and enums, whose
replies carry content blocks of any mimeType, and one of whose resources
fails to read. Standard library only.

    python3 tests/fake/mcp_shapes.py [--log FILE]

--log FILE appends every message received, as one JSON line, before it is
handled (as fakeserver's --log).

Tools:
  bounded   n integer 1..10, x number in (0, 1), e one of "red" "green",
            b boolean, s string: text, the arguments as compact JSON
  blocks    types (array of mimeType strings): one block per type, in
            order: image/* and audio/* as image and audio blocks, text/*
            as an embedded text resource, anything else as an embedded
            blob resource; the data of block i is the bytes "block i"
Resources: shapes://ok (text "fine"), shapes://broken (error -32603 "the
disk is on fire"); any other URI is -32002 "Resource not found".
Prompts: greet (name): one user message "hello NAME".
"""
import base64
import json
import sys

BOUNDED = {
    'type': 'object',
    'properties': {
        'n': {'type': 'integer', 'minimum': 1, 'maximum': 10},
        'x': {'type': 'number', 'exclusiveMinimum': 0,
              'exclusiveMaximum': 1},
        'e': {'type': 'string', 'enum': ['red', 'green']},
        'b': {'type': 'boolean'},
        's': {'type': 'string'},
    },
}
BLOCKS = {
    'type': 'object',
    'properties': {'types': {'type': 'array', 'items': {'type': 'string'}}},
    'required': ['types'],
}
TOOLS = [
    {'name': 'bounded', 'description': 'Echo bounded arguments.',
     'inputSchema': BOUNDED},
    {'name': 'blocks', 'description': 'One content block per mimeType.',
     'inputSchema': BLOCKS},
    {'name': 'error_member', 'description': 'A result named error first.',
     'inputSchema': {'type': 'object'}},
]
RESOURCES = [{'uri': 'shapes://ok', 'name': 'ok'},
             {'uri': 'shapes://broken', 'name': 'broken'},
             {'uri': 'shapes://error-member', 'name': 'error-member'}]


def block(i, mime):
    data = f'block {i}'.encode()
    b64 = base64.b64encode(data).decode()
    kind = mime.split('/')[0]
    if kind in ('image', 'audio'):
        return {'type': kind, 'data': b64, 'mimeType': mime}
    uri = f'shapes://block/{i}'
    if kind == 'text':
        return {'type': 'resource', 'resource': {
            'uri': uri, 'mimeType': mime, 'text': data.decode()}}
    return {'type': 'resource', 'resource': {
        'uri': uri, 'mimeType': mime, 'blob': b64}}


def answer(msg):
    method, params = msg.get('method'), msg.get('params') or {}
    if method == 'initialize':
        return {'protocolVersion': params.get('protocolVersion',
                                              '2025-11-25'),
                'capabilities': {'tools': {}, 'resources': {},
                                 'prompts': {}},
                'serverInfo': {'name': 'mcp-shapes', 'version': '1.0'}}
    if method == 'ping':
        return {}
    if method == 'tools/list':
        return {'tools': TOOLS}
    if method == 'resources/list':
        return {'resources': RESOURCES}
    if method == 'resources/templates/list':
        return {'resourceTemplates': []}
    if method == 'prompts/list':
        return {'prompts': [{'name': 'greet',
                             'arguments': [{'name': 'name'}]}]}
    if method == 'prompts/get':
        name = (params.get('arguments') or {}).get('name', '')
        return {'messages': [{'role': 'user', 'content': {
            'type': 'text', 'text': f'hello {name}'}}]}
    if method == 'resources/read':
        uri = params.get('uri')
        if uri == 'shapes://ok':
            return {'contents': [{'uri': uri, 'text': 'fine'}]}
        if uri == 'shapes://error-member':
            return {'error': 'stale', 'contents': [{'uri': uri,
                                                    'text': 'still here'}]}
        if uri == 'shapes://broken':
            raise RpcError(-32603, 'the disk is on fire')
        raise RpcError(-32002, 'Resource not found')
    if method == 'tools/call':
        args = params.get('arguments') or {}
        if params.get('name') == 'bounded':
            return {'content': [{'type': 'text', 'text': json.dumps(
                args, separators=(',', ':'), sort_keys=True)}]}
        if params.get('name') == 'blocks':
            return {'content': [block(i, t) for i, t in
                                enumerate(args.get('types', []))]}
        if params.get('name') == 'error_member':
            return {'error': 'the disk is on fire',
                    'content': [{'type': 'text', 'text': 'partial'}],
                    'isError': True}
        raise RpcError(-32602, f'Unknown tool: {params.get("name")}')
    raise RpcError(-32601, f'Method not found: {method}')


class RpcError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def main():
    log = None
    if len(sys.argv) == 3 and sys.argv[1] == '--log':
        log = open(sys.argv[2], 'a')
    elif len(sys.argv) != 1:
        sys.stderr.write('usage: mcp_shapes.py [--log FILE]\n')
        sys.exit(2)
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if log:
            log.write(json.dumps(msg) + '\n')
            log.flush()
        if 'id' not in msg or 'method' not in msg:
            continue
        try:
            out = {'jsonrpc': '2.0', 'id': msg['id'], 'result': answer(msg)}
        except RpcError as e:
            out = {'jsonrpc': '2.0', 'id': msg['id'],
                   'error': {'code': e.code, 'message': str(e)}}
        sys.stdout.write(json.dumps(out) + '\n')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
