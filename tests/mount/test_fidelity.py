"""Fidelity (spec 5): what a server sent reaches the user unchanged. The fake
server's --exact mode (tests/fake/fakeexact.c) writes its texts byte for
byte: numbers a double cannot hold (2^53-1 and past it, 20 digits), 0.1
and 1E+2, and strings with an escaped NUL, in tools/list pages, a reply,
an error, a notification and a question. tools.json, the reply files,
events and requests/ must show them as written; a tool named "a\\u0000b"
is tools/a%00b; an answer is checked on its real length."""

import errno
import json
import os
import re
import threading

from conftest import (call, call_raw, fake, read_file, thread, wait_until,
                      write_file)
from test_ask import answer

# the numbers and strings --exact sends, as their JSON text
TOKENS = [b'9007199254740991', b'-9007199254740991', b'12345678901234567890',
          b'-12345678901234567890', b'0.1', b'1E+2', b'"a\\u0000b"',
          b'"x\\u0000y"']
EXACT_TOOLS = ['exact', 'a\x00b', 'e20', 'exact_error', 'exact_ask',
               'exact_notify']


def exact_json(raw):
    """raw parsed with every number kept as its text."""
    return json.loads(raw, parse_int=str, parse_float=str)


def test_tools_json_keeps_every_number_and_string_over_pages(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--exact', '--page-size', 4)})
    t = thread(m)
    for doc in (t / 'tools.json', m.path / 'a' / 'tools.json'):
        raw = read_file(doc)
        for tok in TOKENS:
            assert tok in raw, (tok, raw[:2000])
        assert b'e+' not in raw and b'e+19' not in raw, raw[:2000]
        tools = exact_json(raw)['tools']
        names = [x['name'] for x in tools]
        # both exact pages first, then every usual page, nothing lost
        assert names[:6] == EXACT_TOOLS, names
        assert {'echo', 'pid', 'ask', 'cwd'} <= set(names), names
        assert len(names) == len(set(names)), names
        byname = {x['name']: x for x in tools}
        assert byname['exact']['inputSchema']['properties']['n'] == {
            'type': 'integer', 'minimum': '-9007199254740991',
            'maximum': '9007199254740991'}
        assert byname['e20']['inputSchema']['properties'] == {
            'v': {'type': 'integer',
                  'enum': ['12345678901234567890', '-12345678901234567890']},
            'f': {'type': 'number', 'multipleOf': '0.1', 'default': '1E+2'}}
        assert byname['a\x00b']['description'] == 'x\x00y'


def test_nul_in_a_tool_name_is_percent_encoded(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--exact')})
    t = thread(m)
    names = os.listdir(t / 'tools')
    assert 'a%00b' in names and 'a' not in names, names
    assert os.path.isfile(t / 'tools' / 'a%00b')
    write_file(t / 'tools' / 'a%00b', '{}')
    reply = json.loads(read_file(t / 'tools' / 'a%00b'))
    assert reply['content'][0]['text'] == 'called a\x00b', reply
    # the name went to the server whole: a call of "a" is unknown
    r = call(t, {'name': 'a', 'arguments': {}})
    assert r['error']['message'] == 'Unknown tool: a', r


def test_reply_and_error_as_sent(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--exact')})
    t = thread(m)
    raw = call_raw(t, {'name': 'exact', 'arguments': {}})
    assert raw == (b'{"content":[{"type":"text","text":"ab\\u0000cd '
                   b'9007199254740993"}],"structuredContent":{"n":'
                   b'9007199254740993,"v":12345678901234567890,"f":0.1,'
                   b'"s":"ab\\u0000cd"}}\n'), raw
    # result/: the text with its NUL, structured.json with its numbers
    assert read_file(t / 'result' / '0.txt') == b'ab\x00cd 9007199254740993'
    assert read_file(t / 'result' / 'text') == b'ab\x00cd 9007199254740993\n'
    st = read_file(t / 'result' / 'structured.json')
    assert exact_json(st) == {'n': '9007199254740993',
                              'v': '12345678901234567890', 'f': '0.1',
                              's': 'ab\x00cd'}, st
    raw = call_raw(t, {'name': 'exact_error', 'arguments': {}})
    assert exact_json(raw) == {'error': {
        'code': '-32000', 'message': 'bad\x00thing',
        'data': {'v': '12345678901234567890', 'f': '0.1'}}}, raw
    assert b'"bad\\u0000thing"' in raw and b'12345678901234567890' in raw
    assert exact_json(read_file(t / 'result' / 'error')) == \
        exact_json(raw)['error']
    # the same through tools/: the file reads the reply as sent
    write_file(t / 'tools' / 'exact_error', '{}')
    assert read_file(t / 'tools' / 'exact_error') == raw


def test_events_keep_the_notification(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--exact')})
    t = thread(m)
    assert call(t, {'name': 'exact_notify', 'arguments': {}})[
        'content'][0]['text'] == 'notified'
    lines = read_file(t / 'events').splitlines()
    note = [x for x in lines if b'"logger":"exact"' in x]
    assert note == [b'{"jsonrpc":"2.0","method":"notifications/message",'
                    b'"params":{"level":"info","logger":"exact","data":'
                    b'{"v":12345678901234567890,"f":0.1,'
                    b'"s":"a\\u0000b"}}}'], lines


def test_question_as_sent_and_answers_on_their_real_length(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--exact')})
    t = thread(m)
    box = {}
    th = threading.Thread(target=lambda: box.update(r=call(
        t, {'name': 'exact_ask', 'arguments': {}}, timeout=60)), daemon=True)
    th.start()
    wait_until(lambda: os.listdir(t / 'requests') == ['1'], 10,
               'the question')
    raw = read_file(t / 'requests' / '1')
    assert b'"m\\u0000n 12345678901234567890"' in raw, raw
    assert re.search(rb'"maximum":\s*12345678901234567890\b', raw), raw
    q = exact_json(raw)
    assert q['message'] == 'm\x00n 12345678901234567890', q
    opened = [x for x in read_file(t / 'events').splitlines()
              if b'"state":"open"' in x]
    assert len(opened) == 1 and \
        b'"message":"m\\u0000n 12345678901234567890"' in opened[0], opened
    # 10 characters, a NUL among them: over maxLength 5
    long = b'{"action":"accept","content":{"s":"ab\\u0000cdefghij"}}'
    assert answer(t, '1', long) == errno.EINVAL
    assert 'maxLength 5' in json.loads(read_file(t / 'requests' / '1'))[
        'refused']
    assert os.listdir(t / 'requests') == ['1']
    # 4 characters: taken, and the server gets all 4
    assert answer(t, '1', b'{"action":"accept","content":'
                          b'{"s":"ab\\u0000c"}}') == 0
    th.join(30)
    got = json.loads(box['r']['content'][0]['text'], strict=False)
    assert got == {'result': {'action': 'accept',
                              'content': {'s': 'ab\x00c'}}}, got
