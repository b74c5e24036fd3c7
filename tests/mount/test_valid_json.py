"""Every .json file the mount shows is valid JSON (spec 6), even when the
server's own JSON is not: raw control bytes (ESC, NUL, CR, BEL) inside its
strings, which cJSON accepts and RFC 8259 does not, are escaped (\\u001b)
where mcpfs keeps what the server sent (spec 5, Fidelity: replies,
tools.json, resources.json, prompts.json, events), while escapes the server
wrote itself stay byte for byte (its "\\u001B" in upper case, which mcpfs
never writes)."""

import json
import os
import sys

from conftest import REPO, call_raw, read_file, thread, tool

PYFAKE = REPO / 'tests/fake/pyfake.py'


def strict(raw, what):
    """raw parsed by Python's json, which refuses raw control characters
    in strings (strict mode)."""
    try:
        return json.loads(raw.decode('utf-8'), strict=True)
    except ValueError as e:
        raise AssertionError(f'{what} is not valid JSON ({e}): '
                             f'{raw[:300]!r}') from None


def json_files(root):
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith('.json'):
                yield os.path.join(d, f)


def test_hostile_listing_every_json_file_valid(mcpfs_mount):
    m = mcpfs_mount({'s': {'command': sys.executable,
                           'args': [str(PYFAKE), '--hostile']}})
    t = thread(m, 's', 't')
    # replies: a short one (parsed) and one over 256 KiB (passed through)
    for big in (False, True):
        raw = call_raw(t, {'name': 'raw', 'arguments': {'big': big}})
        reply = strict(raw, f'the reply (big={big})')
        assert b'\\u001B' in raw  # the server's own escape, as sent
        got = reply['content'][0]['text']
        assert got.startswith('r\x1b[31m\x00\r') and \
            got.endswith('\x07\x1b'), got[:40]
        assert len(got) > 300 * 1024 if big else len(got) < 100
    # the listings mcpfs keeps as sent, thread and server, and the rest
    for d, names in ((t, ('tools.json', 'prompts.json', 'resources.json')),
                     (m.path / 's', ('tools.json',))):
        for name in names:
            assert strict(read_file(d / name), d / name)
        for path in json_files(d):
            strict(read_file(path), path)
    tools = strict(read_file(t / 'tools.json'), 'tools.json')['tools']
    raw_tool = [x for x in tools if x['name'] == 'raw'][0]
    assert raw_tool['description'] == 'x\x1b[2J\x00y\rz\x07\x1b'
    assert b'\\u001B' in read_file(t / 'tools.json')
    assert 'e\x1bvil' in {x['name'] for x in tools}
    prompts = strict(read_file(t / 'prompts.json'), 'prompts.json')
    assert 'p\rx' in {p['name'] for p in prompts['prompts']}
    # events: one JSON document a line
    lines = read_file(t / 'events').splitlines()
    notes = [strict(line, 'an events line') for line in lines]
    assert any(n.get('method') == 'notifications/message' and
               n['params']['data'] == 'n\x1b]52;c;x\x07\x00\r'
               for n in notes), notes
    assert tool(t, 'echo', text='ok')['content'][0]['text'].endswith('ok"}')


def test_a_reply_read_as_it_arrives_stays_valid(mcpfs_mount):
    # 290 KiB arrive and a reader reads them as they come; the rest holds
    # raw control bytes, which the reply has escaped: what was read is a
    # prefix of it, and the reader gets the whole valid reply (never EIO)
    m = mcpfs_mount({'s': {'command': sys.executable,
                           'args': [str(PYFAKE), '--hostile']}})
    t = thread(m, 's', 't')
    for _ in range(2):
        raw = call_raw(t, {'name': 'raw', 'arguments': {'late': True}})
        got = strict(raw, 'the late reply')['content'][0]['text']
        assert got == 'y' * (300 * 1024) + '\x1b[31m\x00\r\x07\x1b'
        assert b'\\u001B' in raw  # the server's own escape, as sent
