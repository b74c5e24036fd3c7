"""Fault injection (spec 6: running out of anything fails the one operation
that hit it; mcpfs never aborts). mcpfs runs with Debian's libfiu preloaded
(what fiu-run -x sets up: fiu_run_preload.so with its control FIFO and
fiu_posix_preload.so) plus tests/fake/fiushim.so, which adds failure
points for the calls libfiu does not wrap (pipe, socketpair, socket,
accept, dup) and for the allocations of mcpfs's own code. Once mounted, fiu-ctrl switches failure points on in the
mcpfs process alone, each at a small probability with the errno that
exhaustion gives (EMFILE, ENOMEM, EAGAIN, ENOSPC), while a workload of
core operations runs: mkdir, calls on stdio and HTTP sessions, .status,
tools.json, status, ctl restart, rmdir.

Asserted: every operation returns (under a deadline: no hang) with a
result or an error; mcpfs is up and answers .status throughout; with the
faults off again, every session is closed and then mcpfs holds no more
fds than before the faults (/proc/PID/fd) and no process is left (the
test's tag in /proc/*/environ, no child of mcpfs). A summary line gives
the figures."""

import errno
import json
import os
import random
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import conftest
from conftest import BUILD, fake, read_file, status, text, tool, wait_until
from test_http import fake_http  # noqa: F401 - a fixture

FIU_LIB = Path('/usr/lib/fiu')
SHIM = BUILD / 'tests/fake/fiushim.so'


def asan_runtime():
    """The ASan runtime mcpfs links, when it is a sanitized build: it must
    come first in LD_PRELOAD, before libfiu's libraries."""
    out = subprocess.run(['ldd', str(conftest.MCPFS)], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if 'libasan' in line and '=>' in line:
            return [line.split('=>')[1].split()[0]]
    return []
SECONDS = float(os.environ.get('MCPFS_FAULT_SECONDS', 60))

# (failure point, probability, errno given): out of fds, memory,
# processes, disk
POINTS = [
    ('fiushim/pipe', 0.05, errno.EMFILE),
    ('fiushim/socketpair', 0.05, errno.EMFILE),
    ('fiushim/socket', 0.05, errno.EMFILE),
    ('fiushim/accept', 0.05, errno.EMFILE),
    ('fiushim/dup', 0.02, errno.EMFILE),
    ('posix/io/oc/open', 0.05, errno.EMFILE),
    ('posix/proc/fork', 0.05, errno.EAGAIN),
    # read and write fail with EINTR only (libuv asserts on any other
    # errno from its own descriptors, the inotify fd and the eventfd that
    # wakes the loop, which exhaustion never gives there), 2% of them:
    # the shim's signal-safe point, always on, its failinfo the rate in
    # millionths (libfiu's posix/io/rw wrappers allocate, and libuv's
    # signal handler writes)
    ('fiushim/rw', 1, 20000),
    # memory: the allocations of mcpfs's own code and of cJSON
    # (fiushim.c says which, and why not libuv's or libcurl's); in the
    # plain build only, ASan's allocator comes first
    ('fiushim/malloc', 0.002, errno.ENOMEM),
]
# libfiu's libc/mm points fail every caller's allocations, libcurl's and
# libuv's too: MCPFS_FAULT_MALLOC=P adds them to hunt in those.
if os.environ.get('MCPFS_FAULT_MALLOC'):
    POINTS += [(f'libc/mm/{f}', float(os.environ['MCPFS_FAULT_MALLOC']),
                errno.ENOMEM) for f in ('malloc', 'calloc', 'realloc')]

pytestmark = pytest.mark.skipif(
    shutil.which('fiu-ctrl') is None or
    not (FIU_LIB / 'fiu_posix_preload.so').exists(),
    reason='libfiu (Debian fiu-utils) is not installed')


def pooled(pid, port):
    """Inodes of the TCP sockets connected to port: curl's connection
    pool keeps some to the HTTP server (not a leak: bounded, reused)."""
    out = set()
    for name in ('tcp', 'tcp6'):
        try:
            lines = open(f'/proc/{pid}/net/{name}').read().splitlines()[1:]
        except OSError:
            continue
        for ln in lines:
            f = ln.split()
            if int(f[2].rsplit(':', 1)[1], 16) == port:
                out.add(f[9])
    return out


def fds_of(pid, port=None):
    """The fds mcpfs holds, leaving out curl's pooled connections to port
    and the read rule's kept /proc/TID/stat files of recent callers (a
    bounded set, at most 16: fs/writers.c; checked here)."""
    pool = pooled(pid, port) if port else set()
    n = kept = 0
    for fd in os.listdir(f'/proc/{pid}/fd'):
        try:
            link = os.readlink(f'/proc/{pid}/fd/{fd}')
        except OSError:
            continue
        if link.startswith('socket:[') and link[8:-1] in pool:
            continue
        if re.fullmatch(r'/proc/\d+/stat', link):
            kept += 1
            continue
        n += 1
    assert kept <= 16, f'{kept} /proc stat files kept (at most 16)'
    return n


def fiu_ctrl(prefix, pid, *cmds):
    args = ['fiu-ctrl', '-f', str(prefix)]
    for c in cmds:
        args += ['-c', c]
    r = subprocess.run(args + [str(pid)], capture_output=True, text=True,
                       timeout=20)
    assert r.returncode == 0, (args, r.stdout, r.stderr)


class Tally:
    def __init__(self):
        self.ops = self.ok = self.failed = 0
        self.kinds = {}
        self.causes = {}    # the errno messages the errors named

    def run(self, what, fn):
        self.ops += 1
        try:
            fn()
            self.ok += 1
        except conftest.pytest.fail.Exception:
            raise
        except (OSError, ValueError, AssertionError, KeyError,
                TypeError) as e:
            # an error is an answer; a hang is not (run_with_deadline)
            if 'did not return' in str(e) or 'deadline' in str(e):
                raise
            self.failed += 1
            k = f'{what}: {type(e).__name__}'
            self.kinds[k] = self.kinds.get(k, 0) + 1
            msg = str(e)
            for cause in ('Too many open files', 'Resource temporarily '
                          'unavailable', 'Interrupted system call',
                          'timed out', 'Cannot allocate memory',
                          'out of memory'):
                if cause in msg:
                    self.causes[cause] = self.causes.get(cause, 0) + 1


def present(p):
    """p exists (a lookup that fails with an injected error counts as
    there: rmdir is tried again at the end)."""
    try:
        os.stat(p)
        return True
    except FileNotFoundError:
        return False
    except OSError:
        return True


def answered(reply):
    """A call's reply: a result or an {"error": ...}; both are answers."""
    assert isinstance(reply, dict), reply
    if 'error' in reply:
        raise ValueError(reply['error'].get('message'))
    return reply


def stacks(m):
    """On a failure with mcpfs still running (a hang): where it is."""
    if m.proc.poll() is not None or not shutil.which('gdb'):
        return
    r = subprocess.run(['gdb', '-p', str(m.proc.pid), '-batch', '-ex',
                        'thread apply all bt'], capture_output=True,
                       text=True, timeout=60)
    print('\nmcpfs stacks:\n' + r.stdout[-6000:])


def test_faults_injected_mcpfs_stays_up(mcpfs_mount, monkeypatch, tmp_path,
                                        fake_http):
    srv = fake_http()
    prefix = tmp_path / 'fiu' / 'ctl'
    prefix.parent.mkdir()
    preload = ' '.join(asan_runtime() + [
        str(SHIM),  # its malloc before libfiu's
        str(FIU_LIB / 'fiu_run_preload.so'),
        str(FIU_LIB / 'fiu_posix_preload.so')])
    m = mcpfs_mount({'a': fake(), 'h': {'url': srv.url}},
                    args=('--max-sessions', 64, '--call-timeout', 10),
                    env={'LD_PRELOAD': preload, 'FIU_ENABLE': '',
                         'FIU_CTRL_FIFO': str(prefix)})
    pid = m.proc.pid
    rnd = random.Random(26)

    def cycle(name, server='a'):
        t = m.path / server / name
        os.mkdir(t)
        try:
            assert text(tool(t, 'echo', text=name)) == name
        finally:
            os.rmdir(t)

    # warm up (libuv's thread pool, curl's caches), then the baseline
    cycle('warm')
    cycle('warmh', 'h')
    read_file(m.path / 'a' / 'tools.json')
    wait_until(lambda: status(m.path / '.status')['sessions'] == 0, 15,
               'the warm-up sessions to close')
    time.sleep(0.5)
    base_fds = fds_of(pid, srv.port)

    try:
        fiu_ctrl(prefix, pid, *[f'enable_random name={n},probability={p},'
                                f'failinfo={e}' for n, p, e in POINTS])
        tally = Tally()
        live = []
        end = time.monotonic() + SECONDS
        i = 0
        while time.monotonic() < end:
            i += 1
            server = 'h' if i % 4 == 0 else 'a'
            op = rnd.choice(['mkdir', 'mkdir', 'call', 'call', 'call', 'status',
                             'tools', 'thread-status', 'restart', 'rmdir'])
            if op == 'mkdir' or not live:
                t = m.path / server / f't{i}'
                tally.run('mkdir', lambda: os.mkdir(t))
                if present(t):
                    live.append(t)
            elif op == 'call':
                t = rnd.choice(live)
                tally.run('call', lambda: answered(tool(t, 'echo', text='x',
                                                        timeout=30)))
            elif op == 'status':
                tally.run('.status', lambda: json.loads(
                    read_file(m.path / '.status')))
            elif op == 'tools':
                tally.run('tools.json', lambda: json.loads(
                    read_file(m.path / 'a' / 'tools.json', timeout=30)))
            elif op == 'thread-status':
                t = rnd.choice(live)
                tally.run('status', lambda: json.loads(read_file(t / 'status')))
            elif op == 'restart':
                t = rnd.choice(live)
                tally.run('ctl', lambda: conftest.write_file(t / 'ctl',
                                                             b'restart'))
            else:
                t = live.pop(rnd.randrange(len(live)))
                tally.run('rmdir', lambda: os.rmdir(t))
                if present(t):
                    live.append(t)
            assert m.proc.poll() is None, \
                f'mcpfs ended ({m.proc.returncode}) after {tally.ops} ' \
                f'operations:\n{m.output()[-3000:]}'
            if len(live) > 24:
                t = live.pop(0)
                tally.run('rmdir', lambda: os.rmdir(t))
        fiu_ctrl(prefix, pid, *[f'disable name={n}' for n, _, _ in POINTS])

        # faults off: mcpfs answers, closes everything, and leaks nothing
        assert m.proc.poll() is None, m.output()[-3000:]
        st = m.status()
        for t in list(live):
            for _ in range(3):
                try:
                    os.rmdir(t)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.2)
        wait_until(lambda: status(m.path / '.status')['sessions'] == 0, 20,
                   'every session to close')
        wait_until(lambda: not m.pids(), 15, 'every server process to end')
        cycle('after')
        cycle('afterh', 'h')
        wait_until(lambda: status(m.path / '.status')['sessions'] == 0, 15,
                   'the last sessions to close')
        try:
            wait_until(lambda: fds_of(pid, srv.port) <= base_fds, 10,
                       f'mcpfs to hold no more fds than before ({base_fds})')
        except BaseException:
            os.system(f'ls -l /proc/{pid}/fd; cat /proc/{pid}/net/tcp')
            raise
        leaked_fds = max(0, fds_of(pid, srv.port) - base_fds)
        leaked_procs = len(m.pids()) + len(m.children())
        print(f'\nfault injection: {tally.ops} operations under injection '
              f'({len(POINTS)} failure points), {tally.failed} failed with an '
              f'error, {tally.ok} succeeded, aborts 0, hangs 0, fds leaked '
              f'{leaked_fds}, processes leaked {leaked_procs}; '
              f'failures by kind: {tally.kinds}; causes named: {tally.causes}; '
              f'.status sessions at the end '
              f'of the faults {st["sessions"]}')
        assert tally.failed > 0, 'no injected failure reached an operation'
        assert tally.ok > 0
        assert leaked_fds == 0 and leaked_procs == 0
    except BaseException:
        stacks(m)
        raise
