"""Replies to user calls pass through without cJSON
(sessions/protocol/inbound.c)
whatever the order of the envelope's members and with members the client
does not know: the fake's big tool writes jsonrpc/id/result (order "id"),
result first with id last (as the TypeScript SDK does, "result"), and an
unknown member before result ("extra"), short and past the 256 KiB where
the structure alone is checked."""

import errno
import json
import os

import pytest

from conftest import (call, fake, open_call, read_all, read_file,
                      run_with_deadline, status, text, thread)


@pytest.mark.parametrize('order', ['id', 'result', 'extra'])
@pytest.mark.parametrize('size', [1000, 300 * 1024, 3 << 20])
def test_reply_whole_in_any_member_order(mcpfs_mount, order, size):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    reply = call(t, {'name': 'big', 'arguments': {'bytes': size,
                                                  'order': order}})
    assert set(reply) == {'content'}, list(reply)[:4]
    body = text(reply)
    assert len(body) == size and body == 'x' * size
    assert read_file(t / 'result' / '0.txt') == b'x' * size
    # the session goes on
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'ok'}})) \
        == 'ok'


def read_while_paused(t, gate, **big):
    """Call `big` (these arguments) on a fresh open file of t: read the
    first MiB of the reply while the server waits before the rest (until
    the file gate exists: the call is still in flight then, whatever the
    load), then the rest; returns the whole."""
    fd = open_call(t)
    try:
        os.write(fd, json.dumps({'name': 'big', 'arguments': dict(
            big, gate=str(gate))}).encode())
        got = b''
        while len(got) < (1 << 20):
            got += run_with_deadline(lambda: os.read(fd, 1 << 20), 30,
                                     'the first half of the reply')
        assert status(t / 'status')['in_flight'] == 1
        gate.touch()
        return got + run_with_deadline(lambda: read_all(fd), 30,
                                       'the rest of the reply')
    finally:
        os.close(fd)


def test_long_reply_is_readable_as_it_arrives(mcpfs_mount, tmp_path):
    """The reader gets the first half of a long reply while the server is
    still waiting before the second: the call is still in flight then."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    size = 4 << 20
    got = read_while_paused(t, tmp_path / 'gate', bytes=size)
    assert got.startswith(b'{"content":[{"type":"text","text":"xxx')
    reply = json.loads(got)
    assert text(reply) == 'x' * size
    assert status(t / 'status')['in_flight'] == 0
    # a reader that comes later reads the same reply, whole
    assert json.loads(read_file(t / 'call')) == reply


def test_streamed_line_that_is_no_reply_fails_the_reader(mcpfs_mount,
                                                         tmp_path):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    gate = tmp_path / 'gate'   # the rest of the line once the reader read
    fd = open_call(t)
    try:
        os.write(fd, json.dumps({'name': 'big', 'arguments': {
            'bytes': 4 << 20, 'gate': str(gate), 'order': 'bad'}}).encode())
        first = run_with_deadline(lambda: os.read(fd, 1 << 20), 30,
                                  'the first part')
        assert first.startswith(b'{"content"')
        gate.touch()
        with pytest.raises(OSError) as e:
            while run_with_deadline(lambda: os.read(fd, 1 << 20), 30,
                                    'the rest'):
                pass
        assert e.value.errno == errno.EIO
    finally:
        os.close(fd)
    # the session goes on, and a fresh reader sees what happened
    assert 'error' in json.loads(read_file(t / 'call'))
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'ok'}})) \
        == 'ok'


# The fake's "esc" text as sent: escaped quotes after odd runs of 1, 5 and
# 7 backslashes, even runs, and three closers after each quote, which end
# the result where a scan takes such a quote for the string's end (26
# bytes, 18 characters).
ESC_UNIT = ('\\"' + '}]}' + '\\\\' * 2 + '\\"' + '}]}' + '\\\\' * 3 + '\\"' +
            '}]}q')


def esc_text(size):
    return json.loads('"' + ESC_UNIT + '"') * (size // len(ESC_UNIT))


@pytest.mark.parametrize('order', ['id', 'result', 'extra'])
@pytest.mark.parametrize('size', [300 * 1024, (1 << 20) + 1000, 3 << 20])
def test_escaped_reply_is_byte_exact_in_any_member_order(mcpfs_mount, order,
                                                         size):
    """A text full of escapes and braces, short of and past 1 MiB, where
    the frame's buffer leaves malloc'd growth for its one big block: the
    reply is the server's, byte for byte, in every member order."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    reply = call(t, {'name': 'big', 'arguments': {
        'bytes': size, 'order': order, 'text': 'esc'}})
    assert set(reply) == {'content'}, list(reply)[:4]
    assert text(reply) == esc_text(size)
    # as sent: the result's bytes were passed through, not re-encoded
    raw = read_file(t / 'call')
    units = size // len(ESC_UNIT)
    assert raw == (b'{"content":[{"type":"text","text":"' +
                   ESC_UNIT.encode() * units + b'"}]}\n')


def test_escaped_reply_streams_to_its_end(mcpfs_mount, tmp_path):
    """Read as it arrives, an id-first reply whose text is all escapes and
    braces: the first half comes while the server pauses (so the scan that
    follows the result's structure did not take an escaped quote or a brace
    in the text for the result's end), the whole is byte-exact."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    size = 4 << 20
    got = read_while_paused(t, tmp_path / 'gate', bytes=size, text='esc')
    units = size // len(ESC_UNIT)
    assert got == (b'{"content":[{"type":"text","text":"' +
                   ESC_UNIT.encode() * units + b'"}]}\n')
    assert text(json.loads(got)) == esc_text(size)


def test_call_blksize_follows_the_reply(mcpfs_mount, tmp_path):
    """st_blksize of call, the read size `cat` takes: 1 MiB (one FUSE
    request's most) while a long reply arrives in pieces and once a reply
    of 1 MiB or more is done; 4096 for a small reply, whose reader would
    otherwise pay for a 1 MiB buffer it does not fill."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert os.stat(t / 'call').st_blksize == 4096   # no reply yet
    call(t, {'name': 'echo', 'arguments': {'text': 'ok'}})
    assert os.stat(t / 'call').st_blksize == 4096
    gate = tmp_path / 'gate'   # the rest of the reply once it exists
    fd = open_call(t)
    try:
        os.write(fd, json.dumps({'name': 'big', 'arguments': {
            'bytes': 4 << 20, 'gate': str(gate)}}).encode())
        got = run_with_deadline(lambda: os.read(fd, 1 << 20), 30,
                                'the first piece of the reply')
        assert got and status(t / 'status')['in_flight'] == 1
        assert os.stat(t / 'call').st_blksize == 1 << 20   # arriving
        gate.touch()
        read_all(fd)
    finally:
        os.close(fd)
    assert os.stat(t / 'call').st_blksize == 1 << 20   # done, 4 MiB
    reply = call(t, {'name': 'big', 'arguments': {'bytes': 1000}})
    assert len(text(reply)) == 1000
    assert os.stat(t / 'call').st_blksize == 4096
