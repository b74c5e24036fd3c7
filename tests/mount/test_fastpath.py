"""Replies to user calls pass through without cJSON (sessions/inbound.c)
whatever the order of the envelope's members and with members the client
does not know: the fake's big tool writes jsonrpc/id/result (order "id"),
result first with id last (as the TypeScript SDK does, "result"), and an
unknown member before result ("extra"), short and past the 256 KiB where
the structure alone is checked."""

import os

import pytest

from conftest import call, fake, read_file, text


@pytest.mark.parametrize('order', ['id', 'result', 'extra'])
@pytest.mark.parametrize('size', [1000, 300 * 1024, 3 << 20])
def test_reply_whole_in_any_member_order(mcpfs_mount, order, size):
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    reply = call(t, {'name': 'big', 'arguments': {'bytes': size,
                                                  'order': order}})
    assert set(reply) == {'content'}, list(reply)[:4]
    body = text(reply)
    assert len(body) == size and body == 'x' * size
    assert read_file(t / 'result' / '0.txt') == b'x' * size
    # the session goes on
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'ok'}})) \
        == 'ok'
