"""result/ holds what the server sent (spec 9, Fidelity in spec 5): the
text of an embedded resource is written to its part file byte for byte,
an escaped NUL as the NUL byte it stands for (never the C0 80 that mcpfs
uses inside), like the text of a text block."""

import json
import os

from conftest import call_raw, read_file, text, thread
from test_http import fake_http  # noqa: F401 - the fixture


def part(t, index):
    """The bytes of result/<index>.* (the one part of that block)."""
    [name] = [n for n in os.listdir(t / 'result')
              if n.split('.')[0] == str(index)]
    return name, read_file(t / 'result' / name)


def test_embedded_resource_text_with_nul_kept(mcpfs_mount, fake_http):
    srv = fake_http()
    m = mcpfs_mount({'h': {'url': srv.url}})
    t = thread(m, 'h')
    raw = call_raw(t, b'{"name":"embed","arguments":'
                      b'{"text":"a\\u0000b \\u00e9 \\u0000"}}')
    assert b'a\\u0000b' in raw, raw          # the reply as sent
    name, data = part(t, 0)
    assert name == '0.txt'
    assert data == 'a\0b \u00e9 \0'.encode()
    assert b'\xc0\x80' not in data


def test_embedded_resource_text_without_nul_kept(mcpfs_mount, fake_http):
    srv = fake_http()
    m = mcpfs_mount({'h': {'url': srv.url}})
    t = thread(m, 'h')
    reply = json.loads(call_raw(t, {'name': 'embed', 'arguments': {
        'text': 'plain \u00e9', 'mimeType': 'application/json'}}))
    assert reply['content'][0]['resource']['text'] == 'plain \u00e9'
    assert text(reply) == ''                   # no text block
    name, data = part(t, 0)
    assert name == '0.json'
    assert data == 'plain \u00e9'.encode()
