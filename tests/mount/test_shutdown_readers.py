"""Readers waiting on a call when mcpfs is told to stop (spec 1, 5): each
reads the JSON error naming the shutdown, not ECONNABORTED (the base code
unmounted first, so the kernel aborted the waiting reads), and a timed out
call leaves its message in status.last_error (the base code left null)."""

import json
import os
import signal
import threading

import pytest

from conftest import fake, status, tool, wait_until


@pytest.mark.parametrize('how', [signal.SIGTERM, signal.SIGINT])
def test_waiting_readers_get_the_shutdown_error(mcpfs_mount, how):
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    tool(t, 'echo', text='up')
    got = {}

    def reader(k):
        fd = os.open(t / 'call', os.O_RDWR)
        try:
            os.write(fd, json.dumps({'name': 'sleep',
                                     'arguments': {'ms': 30000}}).encode())
            got[k] = os.read(fd, 1 << 16)
        except OSError as e:
            got[k] = e
        finally:
            try:
                os.close(fd)
            except OSError:
                pass    # the mount is gone by now
    th = [threading.Thread(target=reader, args=(k,)) for k in range(3)]
    for x in th:
        x.start()
    wait_until(lambda: status(t)['in_flight'] == 3, 10, 'three calls')
    m.unmount(how)
    for x in th:
        x.join(20)
    assert len(got) == 3, got
    for k, v in got.items():
        assert isinstance(v, bytes), (k, v)
        e = json.loads(v)['error']
        assert 'shutting down' in e['message'], e
        assert signal.Signals(how).name in e['message'], e


def test_timeout_sets_last_error(mcpfs_mount):
    m = mcpfs_mount({'a': fake()}, args=('--call-timeout', 1))
    t = m.path / 'a' / 't'
    os.mkdir(t)
    r = tool(t, 'sleep', ms=3000, timeout=10)
    assert 'timed out' in r['error']['message'], r
    assert 'timed out' in (status(t)['last_error'] or ''), status(t)
