#!/usr/bin/env python3
"""A stdio MCP server (legacy era, newline-delimited JSON-RPC) whose
self-description and listings come from a JSON file, for the tests of what
a server's text and names can do to help/, README.md and the status files.

    scripted.py SPEC.json [CALLS.log]

SPEC.json: {"serverInfo": {...}, "instructions": "...", "tools": [...],
"prompts": [...], "resources": [...]}, each list as tools/list,
prompts/list and resources/list return it (one page); "contents": {URI:
TEXT} the text resources/read of URI returns (unknown URIs: -32002);
"stderr": text written to stderr at start (a hostile terminal's bytes);
"log_all": true logs every request (its method alone, but for the
two below). tools/call checks the arguments against the tool's inputSchema
as a strict server would (required, type, enum, const, minimum, maximum,
exclusiveMinimum/Maximum, multipleOf, minLength, maxLength, pattern, the
usual formats, minItems, items, nested required properties) and answers a
mismatch with JSON-RPC error -32602 "Invalid params: ..."; an unknown tool
or prompt is -32602 too. Otherwise the reply is the text
"called NAME ARGUMENTS-JSON". prompts/get checks the required arguments.
Every tools/call and prompts/get is appended to CALLS.log as one JSON line
{"method", "name", "arguments"}. Exits 0 at stdin EOF.
"""

import json
import re
import sys

FORMATS = {
    'uri': r'^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$',
    'email': r'^[^@\s]+@[^@\s]+\.[^@\s]+$',
    'date': r'^\d{4}-\d\d-\d\d$',
    'date-time': r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$',
    'time': r'^\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$',
    'uuid': r'^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-'
            r'[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    'ipv4': r'^\d{1,3}(\.\d{1,3}){3}$',
    'hostname': r'^[A-Za-z0-9.-]+$',
}

TYPES = {
    'string': lambda v: isinstance(v, str),
    'integer': lambda v: isinstance(v, int) and not isinstance(v, bool) or
    isinstance(v, float) and v.is_integer(),
    'number': lambda v: isinstance(v, (int, float)) and
    not isinstance(v, bool),
    'boolean': lambda v: isinstance(v, bool),
    'array': lambda v: isinstance(v, list),
    'object': lambda v: isinstance(v, dict),
    'null': lambda v: v is None,
}


def check(schema, v, where):
    """The first way v does not fit schema, or None."""
    if not isinstance(schema, dict):
        return None
    t = schema.get('type')
    if t is not None:
        types = t if isinstance(t, list) else [t]
        if not any(TYPES[x](v) for x in types if x in TYPES):
            return f'{where}: expected {t}'
    if 'enum' in schema and v not in schema['enum']:
        return f'{where}: not one of {schema["enum"]}'
    if 'const' in schema and v != schema['const']:
        return f'{where}: not {schema["const"]}'
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        lo, hi = schema.get('minimum'), schema.get('maximum')
        xlo, xhi = schema.get('exclusiveMinimum'), \
            schema.get('exclusiveMaximum')
        if lo is not None and v < lo:
            return f'{where}: below minimum {lo}'
        if hi is not None and v > hi:
            return f'{where}: above maximum {hi}'
        if isinstance(xlo, (int, float)) and not isinstance(xlo, bool) \
                and v <= xlo:
            return f'{where}: not above {xlo}'
        if isinstance(xhi, (int, float)) and not isinstance(xhi, bool) \
                and v >= xhi:
            return f'{where}: not below {xhi}'
        m = schema.get('multipleOf')
        if m and abs(v / m - round(v / m)) > 1e-9:
            return f'{where}: not a multiple of {m}'
    if isinstance(v, str):
        if len(v) < schema.get('minLength', 0):
            return f'{where}: shorter than {schema["minLength"]}'
        if 'maxLength' in schema and len(v) > schema['maxLength']:
            return f'{where}: longer than {schema["maxLength"]}'
        if 'pattern' in schema and not re.search(schema['pattern'], v):
            return f'{where}: does not match {schema["pattern"]}'
        f = FORMATS.get(schema.get('format'))
        if f and not re.match(f, v):
            return f'{where}: not a {schema["format"]}'
    if isinstance(v, list):
        if len(v) < schema.get('minItems', 0):
            return f'{where}: fewer than {schema["minItems"]} items'
        for i, x in enumerate(v):
            why = check(schema.get('items'), x, f'{where}[{i}]')
            if why:
                return why
    if isinstance(v, dict):
        for r in schema.get('required', []):
            if r not in v:
                return f'{where}: {r!r} is required'
        for k, x in v.items():
            why = check(schema.get('properties', {}).get(k), x,
                        f'{where}.{k}')
            if why:
                return why
    return None


def main():
    spec = json.load(open(sys.argv[1]))
    log = open(sys.argv[2], 'a') if len(sys.argv) > 2 else None
    tools = {t['name']: t for t in spec.get('tools', [])}
    prompts = {p['name']: p for p in spec.get('prompts', [])}
    contents = spec.get('contents', {})
    if 'stderr' in spec:
        sys.stderr.write(spec['stderr'])
        sys.stderr.flush()

    def send(o):
        sys.stdout.write(json.dumps(o) + '\n')
        sys.stdout.flush()

    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        mid, method = msg.get('id'), msg.get('method')
        params = msg.get('params') or {}
        if mid is None:
            continue
        if log and spec.get('log_all') and \
                method not in ('tools/call', 'prompts/get'):
            log.write(json.dumps({'method': method}) + '\n')
            log.flush()

        def ok(result):
            send({'jsonrpc': '2.0', 'id': mid, 'result': result})

        def bad(text):
            send({'jsonrpc': '2.0', 'id': mid, 'error': {
                'code': -32602, 'message': 'Invalid params: ' + text}})

        if method == 'initialize':
            caps = {'tools': {}}
            if prompts:
                caps['prompts'] = {}
            if 'resources' in spec:
                caps['resources'] = {}
            r = {'protocolVersion': params.get('protocolVersion'),
                 'capabilities': caps,
                 'serverInfo': spec.get('serverInfo',
                                        {'name': 'scripted', 'version': '1'})}
            if 'instructions' in spec:
                r['instructions'] = spec['instructions']
            ok(r)
        elif method == 'tools/list':
            ok({'tools': spec.get('tools', [])})
        elif method == 'prompts/list':
            ok({'prompts': spec.get('prompts', [])})
        elif method == 'resources/list':
            ok({'resources': spec.get('resources', [])})
        elif method == 'resources/templates/list':
            ok({'resourceTemplates': []})
        elif method == 'resources/read':
            uri = params.get('uri')
            if uri in contents:
                ok({'contents': [{'uri': uri, 'mimeType': 'text/plain',
                                  'text': contents[uri]}]})
            else:
                send({'jsonrpc': '2.0', 'id': mid, 'error': {
                    'code': -32002, 'message': 'Resource not found'}})
        elif method in ('tools/call', 'prompts/get'):
            name, args = params.get('name'), params.get('arguments', {})
            if log:
                log.write(json.dumps({'method': method, 'name': name,
                                      'arguments': args}) + '\n')
                log.flush()
            if method == 'tools/call':
                if name not in tools:
                    bad(f'unknown tool {name!r}')
                    continue
                why = check(tools[name].get('inputSchema'), args,
                            'arguments')
                if why:
                    bad(why)
                    continue
                ok({'content': [{'type': 'text', 'text': 'called ' + name +
                                 ' ' + json.dumps(args, sort_keys=True)}]})
            else:
                if name not in prompts:
                    bad(f'unknown prompt {name!r}')
                    continue
                for a in prompts[name].get('arguments', []):
                    if a.get('required') and a['name'] not in args:
                        bad(f'{a["name"]!r} is required')
                        break
                else:
                    ok({'messages': [{'role': 'user', 'content': {
                        'type': 'text', 'text': 'prompt ' + name}}]})
        elif method == 'ping':
            ok({})
        else:
            send({'jsonrpc': '2.0', 'id': mid, 'error': {
                'code': -32601, 'message': 'Method not found'}})


if __name__ == '__main__':
    main()
