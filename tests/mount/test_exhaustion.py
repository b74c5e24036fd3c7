"""Running out of file descriptors (spec 6: exhaustion fails the one
operation with its errno's own message; mcpfs never aborts). mcpfs runs
under a low RLIMIT_NOFILE (prlimit in front of its command), and the core
operations go on past the limit: mkdir of sessions, calls, .status,
rmdir, mkdir again once fds are free.

The base code aborted here (uv_close of a process handle that uv_spawn
never initialised, when the stdin pipe could not be made).

A write to call with no descriptor left in mcpfs (its RLIMIT_NOFILE
lowered while it runs) is refused EMFILE and sends nothing: the writer of
a call is looked up (a pidfd, /proc/TID/stat: fs/writers.c) before the
call is sent, so that its reply reaches its reader."""

import errno
import json
import os
import resource
import shutil

import pytest

import conftest
from conftest import (fake, open_call, read_file, recv, run_with_deadline,
                      send, status, text, thread, tool)
from test_faults import fds_of
from test_http import fake_http  # noqa: F401 - a fixture

pytestmark = pytest.mark.skipif(shutil.which('prlimit') is None,
                                reason='prlimit (util-linux) is missing')


def limited(monkeypatch, nofile):
    """Run every mcpfs this test mounts with RLIMIT_NOFILE = nofile."""
    orig = conftest.Mount.command
    monkeypatch.setattr(conftest.Mount, 'command', lambda self: [
        'prlimit', f'--nofile={nofile}:{nofile}', '--'] + orig(self))


def echo_reply(t):
    try:
        return tool(t, 'echo', text='x', timeout=20)
    except OSError as e:
        return {'oserror': os.strerror(e.errno)}


def test_sessions_past_the_fd_limit_fail_alone(mcpfs_mount, monkeypatch,
                                               fake_http):
    # stdio sessions take fds in threes, HTTP ones one at a time: mixed,
    # the limit is met at each step of a start (the stdin pipe, stdout,
    # stderr, a socket)
    srv = fake_http()
    limited(monkeypatch, 64)
    m = mcpfs_mount({'a': fake(), 'h': {'url': srv.url}},
                    args=('--max-sessions', 100))
    made, ok, refused = [], [], []
    for i in range(36):
        t = m.path / ('h' if i % 3 == 2 else 'a') / f't{i}'
        try:
            os.mkdir(t)
        except OSError as e:
            # refused at mkdir: the errno's own message in .status/log
            refused.append(os.strerror(e.errno))
            continue
        made.append(t)
        r = echo_reply(t)
        if isinstance(r, dict) and 'error' in r:
            refused.append(json.dumps(r))
        elif 'oserror' in r:
            refused.append(r['oserror'])
        else:
            assert text(r) == 'x', r
            ok.append(t)
        assert m.proc.poll() is None, \
            f'mcpfs died at session {i}:\n{m.output()[-3000:]}'
    assert ok, 'no session worked at all under 64 fds'
    assert refused, 'the fd limit was never reached: raise the count'
    assert any('Too many open files' in r for r in refused), refused
    # mcpfs answers, every session that worked still works
    st = m.status()
    assert st['sessions'] >= len(ok), st
    for t in ok:
        assert text(tool(t, 'echo', text='again')) == 'again'
    # free fds: a new session starts and answers
    for t in made:
        if t not in ok:
            os.rmdir(t)
    for t in ok[len(ok) // 2:]:
        os.rmdir(t)
    conftest.wait_until(lambda: status(m.path / '.status')['sessions']
                        <= len(ok) // 2 + 1, 15, 'sessions to close')
    # a closed session leaves .status at once but gives its fds back only
    # once its process is reaped: a start before that fails again and
    # backs off (0.5 s, 1 s, 2 s, ...), which under load outlasted the
    # wait below (a clean-clone CI). Wait for room for a stdio start.
    fds = f'/proc/{m.proc.pid}/fd'
    conftest.wait_until(lambda: len(os.listdir(fds)) <= 64 - 8, 30,
                        'the closed sessions\' fds to be free')
    t = m.path / 'a' / 'after'
    os.mkdir(t)
    conftest.wait_until(lambda: 'error' not in echo_reply(t), 10,
                        'a new session to answer once fds are free')
    assert text(tool(t, 'echo', text='after')) == 'after'
    assert read_file(m.path / '.status')


def test_write_to_call_without_a_descriptor_is_refused_and_sends_nothing(
        mcpfs_mount):
    # fs/callfile.c ready(): the writer's process is looked up (pidfd_open,
    # open of /proc/TID/stat) before its call is sent; when that fails for
    # want of a descriptor, even after the kept /proc files are closed,
    # the write fails EMFILE and the call is not sent (sent without its
    # writer's record, its reply could go to another reader)
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert text(tool(t, 'counter')) == '1'
    pid = m.proc.pid
    before = fds_of(pid)
    soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    fd = open_call(t)
    rd = open_call(t, os.O_RDONLY)
    try:
        # soft limit 0: no new descriptor at all in mcpfs (a fresh thread
        # of this process writes: send() runs it in one, never looked up
        # before, so no kept /proc file answers for it)
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (0, hard))
        try:
            with pytest.raises(OSError) as e:
                send(fd, {'name': 'counter', 'arguments': {}})
            # a fresh read cannot tell which call is its reader's own
            # either: it fails with the same errno (not another's reply)
            with pytest.raises(OSError) as r:
                run_with_deadline(lambda: os.read(rd, 1 << 16), 10,
                                  'read call')
        finally:
            resource.prlimit(pid, resource.RLIMIT_NOFILE, (soft, hard))
        assert e.value.errno == errno.EMFILE, e.value
        assert r.value.errno == errno.EMFILE, r.value
        # room again: the same open file sends; the refused call was never
        # sent (the server's counter went from 1 to 2, not 3)
        send(fd, {'name': 'counter', 'arguments': {}})
        assert text(recv(fd)) == '2'
        # and the open file whose read failed reads this process's call
        assert text(recv(rd)) == '2'
    finally:
        os.close(fd)
        os.close(rd)
    assert text(tool(t, 'counter')) == '3'
    assert m.proc.poll() is None
    assert fds_of(pid) <= before, (before, os.listdir(f'/proc/{pid}/fd'))
