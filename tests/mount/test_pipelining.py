"""Pipelined requests on one open call file (spec 4): however many
requests are written before the first read, and in whatever order the
server answers them, the reads return the replies in the order the
requests were written, each one ending in a read of 0; then a read of 0
says nothing is left."""

import json
import os

import pytest

from conftest import (fake, read_all, run_with_deadline, status, text,
                      wait_until, write_all)


def sleep_req(ms):
    return json.dumps({'name': 'sleep', 'arguments': {'ms': ms}}).encode()


def echo_req(s):
    return json.dumps({'name': 'echo', 'arguments': {'text': s}}).encode()


@pytest.mark.parametrize('n', [3, 5])
def test_pipelined_replies_read_in_write_order(mcpfs_mount, n):
    """The server answers the last request first and the first one last
    (the sleeps shrink): the reads still follow the writes."""
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    fd = os.open(t / 'call', os.O_RDWR)
    try:
        for i in range(n - 1):
            write_all(fd, sleep_req(100 * (n - 1 - i)))
        write_all(fd, echo_req('last'))
        got = [run_with_deadline(lambda: read_all(fd), 20, f'reply {i}')
               for i in range(n)]
        want = [f'slept {100 * (n - 1 - i)}' for i in range(n - 1)] + \
            ['last']
        assert [text(json.loads(r)) for r in got] == want
        assert all(r.endswith(b'\n') and r.count(b'\n') == 1 for r in got)
        assert os.read(fd, 100) == b''
    finally:
        os.close(fd)


def test_pipelined_replies_already_done_read_in_order(mcpfs_mount):
    """Every reply is in before the first read: the reads still take them
    one by one, in order."""
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    fd = os.open(t / 'call', os.O_RDWR)
    try:
        for w in ('one', 'two', 'three', 'four'):
            write_all(fd, echo_req(w))
        wait_until(lambda: status(t)['calls'] == 4 and
                   not status(t)['in_flight'], 10, 'four replies in')
        got = [run_with_deadline(lambda: read_all(fd), 20, 'reply')
               for _ in range(4)]
        assert [text(json.loads(r)) for r in got] == \
            ['one', 'two', 'three', 'four']
        assert os.read(fd, 100) == b''
    finally:
        os.close(fd)


def test_reply_in_but_unread_is_kept_when_the_next_request_is_written(
        mcpfs_mount):
    """Write, let the reply come in, write again, then read: the first
    reply, unread, was not dropped for the second."""
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    fd = os.open(t / 'call', os.O_RDWR)
    try:
        for i, w in enumerate(('one', 'two'), 1):
            write_all(fd, echo_req(w))
            wait_until(lambda: status(t)['calls'] == i and
                       not status(t)['in_flight'], 10, f'reply {i} in')
        got = [run_with_deadline(lambda: read_all(fd), 20, 'reply')
               for _ in range(2)]
        assert [text(json.loads(r)) for r in got] == ['one', 'two']
        assert os.read(fd, 100) == b''
    finally:
        os.close(fd)
