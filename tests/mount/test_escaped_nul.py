"""A NUL inside a JSON string stays one (spec 5, Fidelity): the demo
server gets and gives back "\\u0000" escaped, never a raw NUL nor the
overlong C0 80, and a key or tool name with a NUL in it is not the
shorter name before it."""

import json

from conftest import call, call_raw, demo, text, thread, tool

def test_demo_server_keeps_an_escaped_nul(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo')
    raw = call_raw(t, b'{"name":"echo","arguments":{"text":"a\\u0000b"}}')
    assert b'a\\u0000b' in raw, raw   # escaped again, never a raw NUL
    assert b'\0' not in raw and b'\xc0' not in raw
    assert text(json.loads(raw)) == 'a\0b'
    s = 'x\0y\0\0z\\u0000 \u00e9'
    assert text(tool(t, 'echo', text=s)) == s
    # keys and values keep their NULs, and "k" is not "k\0..."
    assert text(tool(t, 'set', key='k\0one', value='v\0w')) == 'ok'
    assert text(tool(t, 'set', key='k', value='plain')) == 'ok'
    assert text(tool(t, 'get', key='k\0one')) == 'v\0w'
    assert text(tool(t, 'get', key='k')) == 'plain'
    assert json.loads(text(tool(t, 'keys'))) == ['k\0one', 'k']
    r = tool(t, 'get', key='k\0two')
    assert r.get('isError') is True and text(r) == 'no such key: k\0two'
    # a tool name with a NUL in it is not a shorter tool's name
    # (mcpfs reprints JSON-RPC errors with cJSON, which cuts the message
    # at the NUL: only the start of it is checked)
    r = call(t, {'name': 'echo\0x', 'arguments': {'text': 'no'}})
    assert 'content' not in r and r['error']['code'] == -32602, r
    assert r['error']['message'].startswith('Unknown tool: echo'), r
