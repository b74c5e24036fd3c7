"""events after a flood (spec 3): the size grows with every event (tail -f
follows it), reads never block, the last 1 MiB is kept, and a read from
before the window starts at its oldest whole line, so `cat events` gives at
most the window (the base code padded the dropped part with newlines:
cat produced the whole history's size, almost all '\\n')."""

import json
import os
import subprocess

from conftest import fake, tool, text, run_with_deadline

WINDOW = 1 << 20


def flood(t, n, size, tag):
    for i in range(n):
        r = tool(t, 'log', data=f'{tag}-{i}-' + 'x' * size)
        assert text(r) == 'logged', r


def test_events_after_a_flood(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    ev = t / 'events'
    flood(t, 30, 100_000, 'a')
    size = os.stat(ev).st_size
    assert size > 3_000_000, size            # the whole history's size
    out = run_with_deadline(lambda: subprocess.run(
        ['cat', str(ev)], capture_output=True, timeout=20), 30).stdout
    assert 0 < len(out) <= WINDOW, len(out)  # at most the window
    assert out.endswith(b'\n') and not out.startswith(b'\n'), out[:40]
    lines = out.decode().splitlines()
    got = [json.loads(ln)['params']['data'].split('-')[1] for ln in lines]
    assert got[-1] == '29' and len(got) >= 9, got   # the newest kept
    assert got == [str(int(got[0]) + k) for k in range(len(got))], got
    # a read at offset 0 starts at the oldest kept line too
    fd = os.open(ev, os.O_RDONLY)
    try:
        first = os.pread(fd, 200, 0)
        assert first.startswith(b'{"') and first.startswith(out[:200]), \
            first[:60]
    finally:
        os.close(fd)
    # tail -f: from the end, an event appended later is read there; the
    # read at the end returns at once with nothing
    fd = os.open(ev, os.O_RDONLY)
    try:
        end = os.stat(ev).st_size
        assert end == size
        os.lseek(fd, end, os.SEEK_SET)
        assert run_with_deadline(lambda: os.read(fd, 4096), 5) == b''
        flood(t, 1, 10, 'b')
        assert os.stat(ev).st_size > end
        new = run_with_deadline(lambda: os.read(fd, 1 << 16), 5)
        assert json.loads(new)['params']['data'] == 'b-0-' + 'x' * 10
    finally:
        os.close(fd)


def test_poll_after_a_flood_waits_for_a_new_line(mcpfs_mount):
    """poll(2) on events once the window has dropped lines: readable only
    while there is something unread (a `tail -f`-like loop that polls then
    reads). mcpfs took the end of the log for the oldest kept line's
    offset plus the whole history's size, so after 1 MiB of events every
    poll said readable and such a loop spun on empty reads."""
    import select
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    ev = t / 'events'
    flood(t, 15, 100_000, 'a')
    fd = os.open(ev, os.O_RDONLY)
    try:
        while run_with_deadline(lambda: os.read(fd, 1 << 16), 30):
            pass                                     # read to the end
        p = select.poll()
        p.register(fd, select.POLLIN)
        assert p.poll(0) == [], 'readable with nothing unread'
        flood(t, 1, 10, 'b')
        assert p.poll(0) == [(fd, select.POLLIN)]    # a new line
        new = run_with_deadline(lambda: os.read(fd, 1 << 16), 5)
        assert json.loads(new)['params']['data'] == 'b-0-' + 'x' * 10
        assert p.poll(0) == []
    finally:
        os.close(fd)
