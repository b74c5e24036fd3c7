"""What a server's names and replies can make of the tree (spec 6, last
bullet; spec 9, tools/ and result/): inode numbers that never alias
between sessions, file names that are short enough, distinct and
unique, and help for every listed name.

The server is tests/fake/hostile.py: its listings are raw bytes from a
file, and its tool `blocks` answers with any number of content blocks.
"""
import errno
import json
import os
import sys
from pathlib import Path

import pytest

from conftest import read_file, status, text, thread, tool, write_file

HOSTILE = Path(__file__).resolve().parents[1] / 'fake' / 'hostile.py'


def hostile(tmp, tools=b'[]', prompts=b'[]'):
    """A config entry for hostile.py listing the raw arrays given."""
    tf = tmp / f'tools-{len(list(tmp.glob("tools-*")))}.json'
    pf = tmp / f'prompts-{len(list(tmp.glob("prompts-*")))}.json'
    tf.write_bytes(tools)
    pf.write_bytes(prompts)
    return {'command': sys.executable,
            'args': [str(HOSTILE), '--tools', str(tf), '--prompts', str(pf)]}


def via_file(t, f):
    """The text of a call of {} through tools/f (a fresh read after the
    write reads the writer's call, spec 4)."""
    write_file(t / 'tools' / f, b'{}')
    return text(json.loads(read_file(t / 'tools' / f)))


def listing(*names):
    """A raw tools array of the given raw (bytes) JSON string literals."""
    return b'[' + b','.join(b'{"name":' + n + b',"inputSchema":'
                            b'{"type":"object"}}' for n in names) + b']'


def test_result_parts_never_alias_another_sessions(mcpfs_mount, tmp_path):
    # spec 6: inode numbers never alias between sessions, whatever the
    # number of result parts. Part 1,048,576 used to carry the next
    # session's part 0 in its inode.
    m = mcpfs_mount({'evil': hostile(tmp_path), 'good': hostile(tmp_path)})
    # inode numbers are or'ed: the overflow lands on the next session when
    # the evil one's id is even; make a thread or two first, to try both
    thread(m, 'evil', 'f')
    g = thread(m, 'evil', 'g')
    s = thread(m, 'good', 's')
    tool(s, 'secret', text='SECRET-of-another-server')
    assert read_file(s / 'result' / '0.txt') == b'SECRET-of-another-server'
    tool(g, 'blocks', timeout=120, n=1048577, block='{}')
    secret = os.stat(s / 'result' / '0.txt').st_ino
    for name in ('0.json', '1048575.json', '1048576.json'):
        try:
            assert os.stat(g / 'result' / name).st_ino != secret, name
            assert b'SECRET' not in read_file(g / 'result' / name), name
        except FileNotFoundError:
            pass  # past the limit: not a file
    assert (g / 'result' / '0.json').exists()
    # the parts past the limit are not files; status says so
    st = status(g)
    assert any('result/' in w for w in st.get('warnings', [])), st


def test_long_names_get_short_unique_files(mcpfs_mount, tmp_path):
    # spec 6: a name too long for a directory entry gets a shortened unique
    # name, and never fails the listing
    long1 = 'a' * 300
    long2 = 'a' * 299 + 'b'
    huge = 'x/' * 1500
    m = mcpfs_mount({'h': hostile(tmp_path, listing(
        json.dumps(long1).encode(), json.dumps(long2).encode(),
        json.dumps(huge).encode(), b'"ok"'))})
    t = thread(m, 'h')
    files = os.listdir(t / 'tools')
    assert len(files) == 4 and len(set(files)) == 4, files
    assert 'ok' in files
    assert all(len(f.encode()) <= 255 for f in files), files
    helps = os.listdir(t / 'help')
    assert sorted(helps) == sorted(files)
    named = {}
    for f in files:
        got = via_file(t, f)
        named[got] = f
        # the help file names the tool in full
        assert read_file(t / 'help' / f).split(b'\n')[0].endswith(
            got[len('called '):].encode())
    assert set(named) == {f'called {n}' for n in (long1, long2, huge, 'ok')}
    assert os.listdir(m.path / 'h' / 'help') == os.listdir(t / 'help')


def test_nul_and_invalid_utf8_never_share_a_file(mcpfs_mount, tmp_path):
    # spec 9: distinct names stay distinct files. "\u0000" is %00. A
    # listing whose bytes are not UTF-8 is not JSON text (RFC 8259), and
    # what a server sends is passed on only as valid JSON (spec 6): that
    # page is refused whole, said where the user looks, and the thread
    # goes on (its calls still run).
    m = mcpfs_mount({'h': hostile(tmp_path, listing(b'"a\\u0000b"', b'"c"')),
                     'bad': hostile(tmp_path, listing(
                         b'"a\\u0000b"', b'"a\xc0\x80b"', b'"c"'))})
    t = thread(m, 'h')
    files = os.listdir(t / 'tools')
    assert sorted(files) == ['a%00b', 'c'], files
    assert via_file(t, 'a%00b') == 'called a\x00b'
    b = thread(m, 'bad')
    with pytest.raises(OSError) as e:
        os.listdir(b / 'tools')
    assert e.value.errno == errno.EIO
    assert 'not valid JSON' in (status(b).get('last_error') or ''), \
        status(b)
    write_file(b / 'call', b'{"name":"c","arguments":{}}')
    assert text(json.loads(read_file(b / 'call'))) == 'called c'
    assert status(b)['state'] == 'ready'


def test_duplicate_names_listed_once(mcpfs_mount, tmp_path):
    # spec 9: a duplicate tool name is listed once, with a warning in status
    m = mcpfs_mount({'h': hostile(tmp_path, listing(
        b'"dup"', b'"x"', b'"dup"'))})
    t = thread(m, 'h')
    assert sorted(os.listdir(t / 'tools')) == ['dup', 'x']
    assert sorted(os.listdir(t / 'help')) == ['dup', 'x']
    st = status(t)
    assert any('dup' in w for w in st.get('warnings', [])), st


def test_help_opens_for_every_listed_name(mcpfs_mount, tmp_path):
    # spec 12: help/ has a file per tool and per prompt; a tool named like
    # a prompt's help file still has its own
    m = mcpfs_mount({'h': hostile(
        tmp_path, listing(b'"prompt:x"', b'"y"'),
        b'[{"name":"x","description":"the prompt"}]')})
    t = thread(m, 'h')
    for d in (t / 'help', m.path / 'h' / 'help'):
        files = os.listdir(d)
        assert len(files) == 3, files
        texts = {f: read_file(d / f) for f in files}
        assert texts['prompt:x'].startswith(b'prompt x')
        tools = [f for f in files if f not in ('prompt:x', 'y')]
        assert len(tools) == 1, files
        assert texts[tools[0]].startswith(b'tool prompt:x')

