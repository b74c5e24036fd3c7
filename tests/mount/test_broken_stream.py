"""Spec 4: a reply read as it streams that turns out to be no reply (the
line ends as something else) fails the reader with EIO, whichever read
the end falls in. The kernel splits one read() on a direct-I/O file into
requests of at most 1 MiB and, when a later request of the same read()
fails, returns the bytes of the earlier ones and drops the error: so the
EIO must never come second within one read()."""

import errno
import json
import mmap
import os

from conftest import fake, read_file, run_with_deadline

MIB = 1 << 20
# what a streamed read returns before the text: the result's opening
PREFIX = len('{"content":[{"type":"text","text":"')


def test_a_read_spanning_the_end_of_a_broken_stream_fails(mcpfs_mount):
    # the fake writes the text up to split, pauses, then the last bytes
    # and an "error" member that makes the line no reply, at once; split
    # is sized so that what streams before the pause is exactly one 1 MiB
    # kernel request
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    half = MIB - PREFIX
    fd = os.open(t / 'call', os.O_RDWR)
    try:
        os.write(fd, json.dumps({'name': 'big', 'arguments': {
            'bytes': half + 10, 'split': half, 'pause_ms': 3000,
            'order': 'bad'}}).encode())
        # a second reader of the same call shows when the first half is in
        spy = os.open(t / 'call', os.O_RDONLY)
        try:
            got = 0
            while got < MIB:
                got += len(run_with_deadline(
                    lambda: os.read(spy, MIB - got), 30, 'the first half'))
        finally:
            os.close(spy)
        # one read() of 2 MiB into a page-aligned buffer: its first
        # request (1 MiB) is what has streamed, its second one waits for
        # the rest, which ends the line as no reply
        buf = mmap.mmap(-1, 2 * MIB)
        total, failed = 0, None
        try:
            while True:
                n = run_with_deadline(lambda: os.readv(fd, [buf]), 30,
                                      'the rest')
                if not n:
                    break
                total += n
        except OSError as e:
            failed = e.errno
        assert failed == errno.EIO, f'read {total} bytes, then EOF'
    finally:
        os.close(fd)
    assert 'error' in json.loads(read_file(t / 'call'))
