"""Fixtures and helpers for the mcpfs mount tests.

Every test mounts a real mcpfs (BUILD/mcpfs, run in the foreground) on a
temporary directory with a servers.json written from a dict, drives it with
plain file I/O and checks the contract in doc/spec.md.

Leak checking: every configured server gets MCPFS_TEST_TAG=<unique tag> in
its env, so the live processes of one mount are found through
/proc/*/environ (Mount.pids(): the servers, what they started and the
supervisor each one runs under; Mount.server_pids() leaves the
supervisors out). This pytest process makes itself a child
subreaper, so a child that mcpfs leaves behind when it exits (running or a
zombie) is re-parented to us and can be reported and reaped instead of
vanishing into init.

Blocking I/O on the mount always runs under a deadline (run_with_deadline):
a hung mcpfs fails the test instead of hanging the suite.
"""

import ctypes
import copy
import errno
import json
import os
import signal
import subprocess
import sys
import shutil
import socket
import threading
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get('MCPFS_BUILD', REPO / 'build'))
MCPFS = BUILD / 'mcpfs'
FAKESERVER = BUILD / 'tests/fake/fakeserver'
DEMO = BUILD / 'examples/demo-server'

TAG_VAR = 'MCPFS_TEST_TAG'

# Watchdog: a test (with its teardown) that runs longer than this has hung
# on the mount, usually in a syscall that no Python deadline can interrupt
# (a deadlocked mcpfs holds a directory lock, say). Its FUSE connections are
# then aborted through fusectl, which fails every pending syscall with
# ENOTCONN, and the test fails instead of hanging the suite.
TEST_DEADLINE = float(os.environ.get('MCPFS_TEST_DEADLINE', 90))
FUSECTL = Path('/sys/fs/fuse/connections')


def _become_subreaper():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


_become_subreaper()


def _default_ctrl_c():
    """Let the processes the tests start take Ctrl-C and Ctrl-\\ as a
    terminal's would. A pytest started in the background of a
    non-interactive shell (`pytest ... &` in sh, as tests/stress.sh does)
    inherits SIGINT and SIGQUIT ignored, and an ignored signal stays
    ignored across fork and exec: a `cat call` the test sends SIGINT
    then never ends (test_ctrl_c_cat_cancels failed so, in both builds,
    in two loaded stress runs). A handled signal is reset to its default
    by exec, so Python's own handler (and the default for SIGQUIT) here
    gives every child the default."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGQUIT) == signal.SIG_IGN:
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)


_default_ctrl_c()


# ---------------------------------------------------------------- servers

EVERYTHING = REPO / \
    'node_modules/@modelcontextprotocol/server-everything/dist/index.js'
# server-everything is in package.json: a test that needs it is skipped
# only where npm ci was not run (CI fails such a skip: expected-skips.txt)
needs_everything = pytest.mark.skipif(
    not EVERYTHING.exists() or not shutil.which('node'),
    reason=f'{EVERYTHING} missing (run npm ci) or no node')


def everything(**extra):
    """A config entry running server-everything over stdio."""
    return dict({'command': 'node', 'args': [str(EVERYTHING), 'stdio']},
                **extra)


def fake(*opts):
    """A config entry running the fake MCP server with these options."""
    return {'command': str(FAKESERVER), 'args': [str(o) for o in opts]}


def demo():
    """A config entry running the demo server built from examples/."""
    return {'command': str(DEMO)}


def shapes(log=None):
    """A config entry running tests/fake/mcp_shapes.py (bounded schemas,
    blocks of any mimeType, a resource that fails), logging every message
    it gets to log when given."""
    return {'command': sys.executable,
            'args': [str(REPO / 'tests/fake/mcp_shapes.py')] +
            (['--log', str(log)] if log else [])}


# ---------------------------------------------------------------- deadlines

# Every deadline of a wait or of I/O here is a hang detector, never a
# claim that something is fast: tests/stress.sh multiplies them all by
# MCPFS_TEST_SLACK (10 there), so that a machine at load 40 fails a test
# only for a hang or a wrong answer. 1 otherwise.
SLACK = float(os.environ.get('MCPFS_TEST_SLACK') or 1)


def slacked(seconds):
    """A time the test sets up that races its own steps (an idle timeout
    a thread must outlive from its mkdir to its call, a sleep that must
    outlast it), times SLACK like the deadlines, so that a loaded machine
    runs the same sequence; an int stays an int (the options take whole
    seconds)."""
    return type(seconds)(seconds * SLACK)


def run_with_deadline(fn, timeout, what='I/O on the mount'):
    """Run fn() in a daemon thread; return its value or re-raise its
    exception. Fails the test if it has not finished after timeout seconds
    (times SLACK; the thread is left blocked; the mount teardown deals
    with the rest)."""
    timeout *= SLACK
    box = {}

    def target():
        try:
            box['value'] = fn()
        except BaseException as e:  # noqa: B902 - re-raised in the caller
            box['error'] = e

    t = threading.Thread(target=target, name=what, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        pytest.fail(f'{what}: no answer after {timeout} s (mcpfs hung?)')
    if 'error' in box:
        raise box['error']
    return box.get('value')



class FakeProcess:
    """One running fake server of tests/fake written in Python (script),
    which prints its port as its first line of stdout; url is its /mcp.
    Subclasses add what they know of their fake's /log."""

    script = None

    def __init__(self, tmp, opts):
        name = Path(self.script).stem
        self.errpath = tmp / f'{name}-{uuid.uuid4().hex[:8]}.stderr'
        self.opts = [str(o) for o in opts]
        with open(self.errpath, 'wb') as err:
            self.proc = subprocess.Popen(
                [sys.executable, str(self.script), *self.opts],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err)
        line = run_with_deadline(self.proc.stdout.readline, 10,
                                 f'{name} to print its port')
        if not line.strip().isdigit():
            self.stop()
            pytest.fail(f'{name} did not start: {line!r} '
                        f'{self.errpath.read_text()}')
        self.port = int(line)
        self.base = f'http://127.0.0.1:{self.port}'
        self.url = self.base + '/mcp'

    def log(self):
        """Every request the fake got so far (GET /log)."""
        with urllib.request.urlopen(self.base + '/log', timeout=10) as r:
            return json.load(r)

    def mcp(self):
        return [r for r in self.log() if r['path'] == '/mcp']

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()


def stop_group(proc, grace=5):
    """End proc's process group (it was started with start_new_session):
    SIGTERM, then SIGKILL if it is not gone within grace seconds."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def fake_factory(cls, tmp):
    """A fixture's body: yields start(*opts), which starts a cls; every one
    started is stopped at teardown."""
    started = []

    def start(*opts):
        srv = cls(tmp, opts)
        started.append(srv)
        return srv

    yield start
    for srv in started:
        srv.stop()


def free_port():
    """A TCP port of 127.0.0.1 that nothing listens on (bound, then
    released: a server started on it may still find it taken)."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def wait_until(pred, timeout=10.0, what='condition', interval=0.05):
    """Poll pred() until it returns a true value (returned) or fail (after
    timeout seconds, times SLACK)."""
    timeout *= SLACK
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > end:
            pytest.fail(f'timed out after {timeout} s waiting for {what}')
        time.sleep(interval)


def wait_state(t, state, timeout=10):
    """Wait until thread t's status shows state; returns that status."""
    def shows():
        st = status(t)
        return st if st['state'] == state else None
    return wait_until(shows, timeout, f'{t} {state}')


def wait_ready(t, timeout=10):
    """Wait until thread t is ready (its server started and answered the
    handshake); returns its status."""
    return wait_state(t, 'ready', timeout)


def wait_blocked(pid, name='call', timeout=5):
    """Wait until pid sleeps in read(2) of its file `name` (by
    /proc/PID/syscall: x86-64's read is 0, its first argument the fd). A
    process that is only `cat` by its comm may still be loading itself or
    opening the file, and a Ctrl-C then ends it before any read was
    waiting, which cancels nothing. (This was taken for the cause of the
    test's failures in the stress runs; the cause was SIGINT ignored,
    conftest.py's _default_ctrl_c.)"""
    def blocked():
        try:
            with open(f'/proc/{pid}/syscall') as f:
                sc = f.read().split()
            return len(sc) > 1 and sc[0] == '0' and os.readlink(
                f'/proc/{pid}/fd/{int(sc[1], 16)}').endswith('/' + name)
        except (OSError, ValueError):
            return False
    wait_until(blocked, timeout, f'the read of {name} to block')


def run_together(argvs, timeout):
    """Start every command (a list of argv lists) at once and wait for
    each within timeout s: a non-zero exit fails the test with its stderr;
    whatever is still running at the end is killed."""
    procs = [subprocess.Popen(a, stdin=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
             for a in argvs]
    try:
        for p in procs:
            _, err = p.communicate(timeout=timeout)
            assert p.returncode == 0, err
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


# ---------------------------------------------------------------- Ctrl-C

_EINTR_SCRIPT = r'''
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
signal.signal(signal.SIGUSR1, lambda *a: None)
fd = os.open(sys.argv[1], os.O_RDWR)
os.write(fd, sys.argv[2].encode())
print("ready", flush=True)
buf = ctypes.create_string_buffer(1 << 16)
n = libc.read(fd, buf, 1 << 16)
print(n, ctypes.get_errno(), flush=True)
'''


def interrupted_read(call_path, request, in_flight, timeout):
    """Write request (JSON text) to call_path in another process, let its
    read wait in mcpfs once in_flight() returns a true value (within
    timeout s), interrupt the read with a signal (what Ctrl-C does) and
    assert it failed with EINTR. Returns what in_flight() returned."""
    p = subprocess.Popen([sys.executable, '-c', _EINTR_SCRIPT,
                          str(call_path), request],
                         stdout=subprocess.PIPE, text=True)
    try:
        assert run_with_deadline(p.stdout.readline, 10, 'ready') == 'ready\n'
        got = wait_until(in_flight, timeout, 'the request in flight')
        time.sleep(0.3)   # let the read reach mcpfs and wait there
        p.send_signal(signal.SIGUSR1)
        line = run_with_deadline(p.stdout.readline, 5, 'interrupted read')
        assert line.split() == ['-1', str(errno.EINTR)]
        p.wait(5)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stdout.close()
    return got


# ---------------------------------------------------------------- file I/O

def write_all(fd, data):
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def read_all(fd, bufsize=1 << 20):
    chunks = []
    while True:
        b = os.read(fd, bufsize)
        if not b:
            return b''.join(chunks)
        chunks.append(b)


def read_file(path, timeout=10):
    """Whole content of a file on the mount (bytes), under a deadline."""
    def io():
        fd = os.open(path, os.O_RDONLY)
        try:
            return read_all(fd)
        finally:
            os.close(fd)
    return run_with_deadline(io, timeout, f'read {path}')


def on_fd(path, flags, fn):
    """Open path, return fn(fd), close: the close's own error counts (a
    call file reports a refused request there) unless fn failed first."""
    fd = os.open(path, flags)
    try:
        out = fn(fd)
    except BaseException:
        try:
            os.close(fd)
        except OSError:
            pass
        raise
    os.close(fd)
    return out


def write_file(path, data, timeout=10):
    """Open path O_WRONLY, write data, close (errors propagate)."""
    if isinstance(data, str):
        data = data.encode()

    run_with_deadline(lambda: on_fd(path, os.O_WRONLY,
                                    lambda fd: write_all(fd, data)),
                      timeout, f'write {path}')


def _call_file(path):
    p = Path(path)
    return p if p.name == 'call' else p / 'call'


def _request_bytes(obj):
    if isinstance(obj, bytes):
        return obj
    if isinstance(obj, str):
        return obj.encode()
    return json.dumps(obj).encode()


def call_raw(path, obj, timeout=30):
    """One transaction on a call file (path is a directory holding `call`
    or the call file itself): open O_RDWR, write the request (bytes and str
    are sent as they are, anything else as json.dumps), read to EOF, close.
    Returns the raw reply bytes."""
    f = _call_file(path)
    data = _request_bytes(obj)

    def io(fd):
        write_all(fd, data)
        return read_all(fd)
    return run_with_deadline(lambda: on_fd(f, os.O_RDWR, io), timeout,
                             f'call {f} {data[:80]!r}')


def call(path, obj, timeout=30):
    """call_raw, then the reply parsed as JSON."""
    raw = call_raw(path, obj, timeout)
    try:
        return json.loads(raw)
    except ValueError:
        pytest.fail(f'reply is not JSON: {raw[:300]!r}')


def tool(path, name, /, timeout=30, **arguments):
    """Shorthand: call tool `name` with keyword arguments (which may
    include one called name)."""
    return call(path, {'name': name, 'arguments': arguments}, timeout)


def text(reply):
    """The concatenated text of the content items of a CallToolResult."""
    assert isinstance(reply, dict) and 'content' in reply, \
        f'not a tool result: {reply!r}'
    return ''.join(c.get('text', '') for c in reply['content']
                   if c.get('type') == 'text')


def status(path, timeout=10):
    """JSON of a status file: a thread directory's `status`, or the file
    itself when path names `status` or `.status`."""
    p = Path(path)
    if p.name not in ('status', '.status'):
        p = p / 'status'
    raw = read_file(p, timeout)
    try:
        return json.loads(raw)
    except ValueError:
        pytest.fail(f'{p} is not JSON: {raw[:300]!r}')


def error_text(reply):
    """The whole error object of an {"error": ...} reply as one string, for
    substring checks where the spec leaves the wording open."""
    assert isinstance(reply, dict) and 'error' in reply, \
        f'expected an error reply, got {reply!r}'
    return json.dumps(reply['error'])


# ---------------------------------------------------------------- processes

def proc_stat(pid):
    """(state, ppid) of pid, or None if it does not exist."""
    try:
        s = Path(f'/proc/{pid}/stat').read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = s[s.rindex(')') + 2:].split()
    return fields[0], int(fields[1])


def pid_alive(pid):
    """True if pid exists and is not a zombie."""
    st = proc_stat(pid)
    return st is not None and st[0] != 'Z'


def pid_gone(pid):
    """True if pid no longer exists at all (exited and reaped)."""
    return proc_stat(pid) is None


def tagged_pids(tag):
    """Live (non-zombie) processes whose environment carries the tag."""
    needle = f'{TAG_VAR}={tag}'.encode()
    return sorted(pid for pid, env in proc_files('environ')
                  if needle in env.split(b'\0') and pid_alive(pid))


def proc_files(name):
    """(pid, contents of /proc/PID/name) of every process whose file could
    be read (one gone meanwhile, or not ours to read, is left out)."""
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            yield int(d), Path(f'/proc/{d}/{name}').read_bytes()
        except OSError:
            continue


def is_supervisor(pid):
    """True if pid is a server's supervisor: mcpfs-exec or mcpfs run as
    `... --mcpfs-exec PPID COMMAND ARGS` (sessions/supervise.c). Its
    status.pid is a session's; the server is its child."""
    try:
        argv = Path(f'/proc/{pid}/cmdline').read_bytes().split(b'\0')
    except OSError:
        return False
    return len(argv) > 1 and argv[1] == b'--mcpfs-exec'


def supervisor_of(pid):
    """The supervisor pid runs under (its parent, when that is one), the
    pid a thread's status shows for it; None otherwise."""
    st = proc_stat(pid)
    return st[1] if st and is_supervisor(st[1]) else None


def server_pids(tag):
    """tagged_pids(tag) without the supervisors: the servers and whatever
    they started. A process that exits between the two reads has an empty
    cmdline, which is no supervisor's: it is left out, not counted as a
    server (test_warm saw a closing spare's supervisor counted so under
    ASan and load)."""
    out = []
    for p in tagged_pids(tag):
        try:
            argv = Path(f'/proc/{p}/cmdline').read_bytes().split(b'\0')
        except OSError:
            continue
        if argv != [b''] and not (len(argv) > 1 and
                                  argv[1] == b'--mcpfs-exec'):
            out.append(p)  # one read decides: is_supervisor's own test
    return out


def proc_read(pid, name):
    """The bytes of /proc/PID/name; b'' if it cannot be read (gone, or not
    ours)."""
    try:
        return Path(f'/proc/{pid}/{name}').read_bytes()
    except OSError:
        return b''


def procs():
    """{pid: (state, ppid, pgrp, starttime)} of every process (one walk of
    /proc; a process gone while it is read is left out)."""
    out = {}
    for pid, s in proc_files('stat'):
        f = s[s.rindex(b')') + 2:].decode().split()
        out[pid] = (f[0], int(f[1]), int(f[2]), int(f[19]))
    return out


def children_of(ppid, state=None):
    """The pids whose parent is ppid (only those in state, if given)."""
    return sorted(p for p, st in procs().items()
                  if st[1] == ppid and (state is None or st[0] == state))


def reap_adopted(pids):
    """Of pids, those that were re-parented to this process (left behind by
    a parent that exited): returns [(pid, state)], killing and reaping them."""
    me = os.getpid()
    left = []
    for pid in pids:
        st = proc_stat(pid)
        if st and st[1] == me:
            left.append((pid, st[0]))
            if st[0] != 'Z':
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
    return left


def close_fds_into(path):
    """Close this process's descriptors for files under path (a test that
    failed half-way leaves them open, which keeps the mount busy)."""
    prefix = str(path) + '/'
    closed = []
    for fd in os.listdir('/proc/self/fd'):
        try:
            target = os.readlink(f'/proc/self/fd/{fd}')
        except OSError:
            continue
        if target.startswith(prefix) or target == str(path):
            try:
                os.close(int(fd))
                closed.append(target)
            except OSError:
                pass
    return closed


def ensure_fusectl():
    if not any(FUSECTL.glob('*')) and FUSECTL.is_dir():
        subprocess.run(['mount', '-t', 'fusectl', 'none', str(FUSECTL)],
                       capture_output=True, timeout=10)


def mount_device(path):
    """The minor device number of the FUSE mount at path (its fusectl
    directory name), or None."""
    with open('/proc/self/mountinfo') as f:
        for line in f:
            fields = line.split()
            if fields[4].encode().decode('unicode_escape') == str(path):
                major, minor = fields[2].split(':')
                return int(minor) if major == '0' else None
    return None


def mountinfo_points():
    pts = set()
    with open('/proc/self/mountinfo') as f:
        for line in f:
            mp = line.split()[4]
            pts.add(mp.encode().decode('unicode_escape'))
    return pts


def is_mounted(path):
    return str(path) in mountinfo_points()


def fusermount(*args):
    return subprocess.run(['fusermount3', *args], capture_output=True,
                          text=True, timeout=20)


# ---------------------------------------------------------------- mounts

class Mount:
    """One running mcpfs, mounted on .path."""

    def __init__(self, tmp, servers, args, config_extra, env, use_config):
        self.tmp = tmp
        self.path = tmp / 'mnt'
        self.path.mkdir()
        self.log = tmp / 'mcpfs.log'
        self.config = tmp / 'servers.json'
        self.stdout = tmp / 'mcpfs.stdout'
        self.stderr = tmp / 'mcpfs.stderr'
        self.tag = f'mcpfs-test-{uuid.uuid4().hex}'
        self.args = [str(a) for a in args]
        self.env = dict(os.environ)
        self.env.setdefault('XDG_CONFIG_HOME', str(tmp / 'xdg'))
        # the token store: each mount its own, so files can run side by side
        self.env.setdefault('XDG_STATE_HOME', str(tmp / 'state'))
        self.env.update(env or {})
        self.use_config = use_config
        self.done = False
        self.proc = None
        self.device = None
        if use_config:
            self.write_config(servers, config_extra)

    # -- config

    def _tagged(self, servers):
        servers = copy.deepcopy(servers)
        for entry in servers.values():
            # http entries start no process (and take no env)
            if isinstance(entry, dict) and 'url' not in entry:
                env = entry.get('env')
                if env is None or isinstance(env, dict):
                    entry['env'] = dict(env or {}, **{TAG_VAR: self.tag})
        return servers

    def config_doc(self, servers, config_extra=None):
        doc = {}
        if servers is not None:
            doc['mcpServers'] = self._tagged(servers)
        for k, v in (config_extra or {}).items():
            doc[k] = self._tagged(v) if k == 'servers' and \
                isinstance(v, dict) else v
        return doc

    def write_config(self, servers, config_extra=None, atomic=True,
                     raw=None):
        """Write the config file (raw text when given). atomic: write a
        temp file and rename it over the config; else rewrite in place."""
        data = raw if raw is not None else \
            json.dumps(self.config_doc(servers, config_extra), indent=2)
        if atomic:
            tmp = self.config.with_name(self.config.name + '.new')
            tmp.write_text(data)
            os.replace(tmp, self.config)
        else:
            with open(self.config, 'r+' if self.config.exists() else 'w') \
                    as f:
                f.seek(0)
                f.truncate()
                f.write(data)

    def reload(self, servers, config_extra=None, raw=None):
        """Rewrite the config atomically and send SIGHUP."""
        self.write_config(servers, config_extra, raw=raw)
        self.proc.send_signal(signal.SIGHUP)

    # -- running

    def command(self):
        cmd = [str(MCPFS), '-f', '-d', '--log', str(self.log)]
        if self.use_config:
            cmd += ['-c', str(self.config)]
        return cmd + self.args + [str(self.path)]

    def start(self, timeout=10):
        with open(self.stdout, 'wb') as out, open(self.stderr, 'wb') as err:
            self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=err, env=self.env,
                                         cwd=self.tmp)
        end = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                self.done = True
                if is_mounted(self.path):
                    fusermount('-uz', str(self.path))
                pytest.fail(f'mcpfs exited {self.proc.returncode} at start:'
                            f'\n{self.output()}')
            if is_mounted(self.path):
                try:
                    self.device = mount_device(self.path)
                    read_file(self.path / '.status', timeout=5)
                    return self
                except FileNotFoundError:
                    pass
            if time.monotonic() > end:
                self.kill()
                pytest.fail(f'{self.path}/.status not readable after '
                            f'{timeout} s:\n{self.output()}')
            time.sleep(0.05)

    def output(self):
        """mcpfs's stderr and log, for failure messages and checks."""
        parts = []
        for p in (self.stderr, self.log):
            try:
                parts.append(p.read_text(errors='replace'))
            except FileNotFoundError:
                pass
        return '\n'.join(parts)

    def status(self, timeout=10):
        """JSON of MOUNT/.status."""
        return status(self.path / '.status', timeout)

    def pids(self):
        """Live processes carrying this mount's tag (supervisors too)."""
        return tagged_pids(self.tag)

    def server_pids(self):
        """Live processes carrying this mount's tag, but no supervisor."""
        return server_pids(self.tag)

    def session_groups(self):
        """The process groups of the live tagged processes: one per
        session, led by its supervisor, there from the spawn on (the server
        itself is forked a moment later)."""
        out = set()
        for pid in self.pids():
            try:
                out.add(os.getpgid(pid))
            except ProcessLookupError:
                pass
        return sorted(out)

    def children(self):
        """Direct children of mcpfs."""
        return children_of(self.proc.pid) if self.proc else []

    def zombies(self):
        """Children of mcpfs that exited and were not reaped."""
        return [p for p in self.children()
                if (proc_stat(p) or ('', 0))[0] == 'Z']

    def abort(self):
        """Abort the FUSE connection: every pending and future syscall on
        the mount fails with ENOTCONN; mcpfs sees its device close."""
        if self.device is None:
            return False
        try:
            (FUSECTL / str(self.device) / 'abort').write_text('1')
            return True
        except OSError:
            return False

    def kill(self):
        """Emergency stop: SIGKILL mcpfs, detach the mount lazily."""
        self.done = True
        kids = self.children()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if is_mounted(self.path):
            fusermount('-uz', str(self.path))
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        reap_adopted(kids)

    def abandon(self, kids=()):
        """After a test killed mcpfs on purpose: detach the dead mount and
        reap what we adopted, without the clean-exit checks."""
        self.done = True
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if is_mounted(self.path):
            fusermount('-uz', str(self.path))
        reap_adopted(kids)

    def unmount(self, how=None):
        """Unmount (fusermount3 -u, or send signal `how` to mcpfs) and check
        the clean exit: mcpfs exits 0 within 20 s, the mount is gone, within
        10 s no tagged process remains and mcpfs left no child behind
        (running or zombie). Idempotent."""
        if self.done:
            return
        self.done = True
        kids = self.children()
        problems = []
        wait = 20
        if how is None:
            end = time.monotonic() + 3
            while True:
                r = fusermount('-u', str(self.path))
                if r.returncode == 0 or self.proc.poll() is not None:
                    break
                if time.monotonic() > end:
                    problems.append(f'fusermount3 -u failed: {r.stderr.strip()}')
                    fusermount('-uz', str(self.path))
                    wait = 5   # busy and detached: mcpfs cannot see it end
                    break
                time.sleep(0.2)
        else:
            self.proc.send_signal(how)
        try:
            rc = self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            self.done = False
            self.kill()
            pytest.fail('; '.join(problems + [
                        f'mcpfs did not exit within {wait} s of '
                        f'{"unmount" if how is None else signal.Signals(how).name}'
                        '; killed it']) + '\n' + self.output()[-3000:])
        if rc != 0:
            problems.append(f'mcpfs exited with {rc}')
        if is_mounted(self.path):
            problems.append('still mounted after mcpfs exited')
            fusermount('-uz', str(self.path))
        left = reap_adopted(kids)
        for pid, state in left:
            problems.append(f'mcpfs exited leaving child {pid} '
                            f'{"as a zombie" if state == "Z" else "running"}')
        end = time.monotonic() + 10
        while self.pids() and time.monotonic() < end:
            time.sleep(0.05)
        stray = self.pids()
        if stray:
            problems.append(f'server processes left after exit: {stray}')
            for pid in stray:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if problems:
            pytest.fail('; '.join(problems) + '\n' + self.output()[-3000:])


@pytest.fixture
def mcpfs_mount(tmp_path, request):
    """Factory: m = mcpfs_mount(servers, args=(), config_extra=None,
    env=None, use_config=True). servers: {name: entry}; None leaves the
    mcpServers key out. use_config=False runs mcpfs without -c."""
    mounts = []
    fired = []

    def watchdog():
        fired.append(time.monotonic())
        import faulthandler
        import sys
        sys.stderr.write(f'\n*** {request.node.nodeid}: still running after '
                         f'{TEST_DEADLINE} s; aborting its FUSE connections\n')
        faulthandler.dump_traceback(all_threads=True)
        for m in mounts:
            if not m.done:
                m.abort()

    timer = threading.Timer(TEST_DEADLINE, watchdog)
    timer.daemon = True
    timer.start()
    ensure_fusectl()

    def factory(servers, args=(), config_extra=None, env=None,
                use_config=True):
        if not MCPFS.exists():
            pytest.fail(f'{MCPFS} does not exist (set MCPFS_BUILD or build '
                        'mcpfs first)')
        for entry in (servers or {}).values():
            cmd = entry.get('command') if isinstance(entry, dict) else None
            if cmd in (str(FAKESERVER), str(DEMO)) and not Path(cmd).exists():
                pytest.fail(f'{cmd} does not exist')
        d = tmp_path / f'm{len(mounts)}'
        d.mkdir()
        m = Mount(d, servers, args, config_extra, env, use_config)
        mounts.append(m)
        return m.start()

    yield factory

    failures = []
    for m in mounts:
        if m.done:
            continue
        try:
            leaked = close_fds_into(m.path)
            m.unmount()
            if leaked:
                failures.append(f'{m.path}: the test left open: {leaked}')
        except BaseException as e:  # noqa: B902 - collect, fail once below
            failures.append(f'{m.path}: {e}')
            if not m.done or (m.proc and m.proc.poll() is None):
                m.kill()
    timer.cancel()
    if fired:
        failures.insert(0, f'watchdog: the test hung for {TEST_DEADLINE} s '
                        'and its FUSE connections were aborted')
    if failures:
        pytest.fail('at teardown: ' + '\n'.join(failures))


def run_mcpfs_expect_exit(tmp, config_text, args=(), timeout=10, env=None,
                          use_config=True, expect_rc=1):
    """Start mcpfs with this config text expecting it to refuse to start:
    exit status expect_rc (1, a clean refusal; a crash after the message
    is not one). Returns (returncode, stderr + log text). If it mounted
    instead, it is unmounted and the test fails."""
    tmp = Path(tmp)
    cfg = tmp / 'bad.json'
    cfg.write_text(config_text)
    mnt = tmp / 'mnt-bad'
    mnt.mkdir(exist_ok=True)
    log = tmp / 'bad.log'
    e = dict(os.environ, **(env or {}))
    if not MCPFS.exists():
        pytest.fail(f'{MCPFS} does not exist')
    cmd = [str(MCPFS), '-f', '--log', str(log)]
    if use_config:
        cmd += ['-c', str(cfg)]
    p = subprocess.Popen(cmd + [*map(str, args), str(mnt)],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=e)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        fusermount('-u', str(mnt))
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        if is_mounted(mnt):
            fusermount('-uz', str(mnt))
        pytest.fail(f'mcpfs accepted config {config_text!r} and args {args} '
                    'and kept running')
    text_out = out.decode(errors='replace')
    try:
        text_out += '\n' + log.read_text(errors='replace')
    except FileNotFoundError:
        pass
    if is_mounted(mnt):
        fusermount('-uz', str(mnt))
    if expect_rc is not None:
        assert p.returncode == expect_rc, \
            f'mcpfs exited {p.returncode}, not {expect_rc}:\n{text_out}'
    return p.returncode, text_out


def thread(m, server='a', name='t'):
    """mkdir MOUNT/server/name: a new thread (session) of server on mount
    m; returns its path."""
    t = m.path / server / name
    os.mkdir(t)
    return t


def open_call(d, flags=os.O_RDWR):
    """An open file on d/call (the caller closes it)."""
    return os.open(d / 'call', flags)


def send(fd, obj):
    """Write one request on an open call file: bytes as they are, anything
    else as json.dumps."""
    data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    run_with_deadline(lambda: write_all(fd, data), 10, 'write to call')


def recv(fd, timeout=20):
    """Read one reply to EOF from an open call file, parsed."""
    return json.loads(run_with_deadline(lambda: read_all(fd), timeout,
                                        'read call'))


def echo_req(s):
    """The request text of the echo tool (fake and demo servers)."""
    return json.dumps({'name': 'echo', 'arguments': {'text': s}})


def cancelled_ids(t):
    """The request ids the fake server saw in notifications/cancelled."""
    return json.loads(text(tool(t, 'cancelled')))


def events(t):
    """The lines of a thread's events file, parsed (it ends with a whole
    line)."""
    raw = read_file(t / 'events').decode()
    assert raw == '' or raw.endswith('\n'), f'events ends mid-line: {raw!r}'
    return [json.loads(line) for line in raw.splitlines() if line]
