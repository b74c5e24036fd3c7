"""Helpers for test_hardening.py and test_stress.py (they build on
conftest.py and do not change it).

* other_user(): the uid/gid of an unprivileged user to act as "someone
  else" (mcpfs-test if it exists, else nobody).
* run_as(uid, gid, cwd, ops): run file operations in a child that dropped
  to that user with setpriv, and get back what each one did (its errno
  name, or "ok"). The child starts in cwd (entered as root, before the
  drop), so only mcpfs and FUSE decide, not the modes of the path to the
  mount (pytest's tmp directories are 0700 root).
* UserMount: mcpfs mounted by an unprivileged user (fusermount3 is setuid),
  for the ownership checks that a root mount cannot make.
* isolate_mcpfs(monkeypatch): run the fixture's mcpfs in its own session
  and process group, so that an mcpfs that signals its own process group
  cannot take pytest down with it.
* errno_of(fn), assert_alive(t), log_mark(m) / log_since(m, mark),
  read_everything(root): small checks shared by the tests.
"""

import errno
import inspect
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import conftest
from conftest import (FAKESERVER, MCPFS, TAG_VAR, is_mounted,
                      read_all, reap_adopted, run_with_deadline, slacked,
                      status, tagged_pids, text, tool)


# ---------------------------------------------------------------- errnos

def errno_name(e):
    return errno.errorcode.get(e, str(e))


def errno_of(fn):
    """'ok' if fn() returns, else the errno name of the OSError it raised."""
    try:
        fn()
        return 'ok'
    except OSError as e:
        return errno_name(e.errno)


def assert_alive(t, pid=None, what=''):
    """The session in thread directory t still answers (echo), is ready,
    and (when pid is given: the server's own) still runs the same
    process. Returns the status pid (the supervisor's)."""
    assert text(tool(t, 'echo', text='still-alive')) == 'still-alive', what
    st = status(t)
    assert st['state'] == 'ready', (what, st)
    if pid is not None:
        # pid is the server's; status shows its supervisor's
        assert st['pid'] == conftest.supervisor_of(pid), \
            (what, 'the server process changed', st)
    return st['pid']


# ---------------------------------------------------------------- the log

def log_mark(m):
    try:
        return m.log.stat().st_size
    except FileNotFoundError:
        return 0


def log_since(m, mark):
    try:
        with open(m.log, 'rb') as f:
            f.seek(mark)
            return f.read().decode(errors='replace')
    except FileNotFoundError:
        return ''


def log_lines_since(m, mark, needle=None):
    lines = [ln for ln in log_since(m, mark).splitlines() if ln.strip()]
    if needle is not None:
        lines = [ln for ln in lines if needle in ln]
    return lines


def message_of(line):
    """The message part of a log line ('2026-... mcpfs info: MSG')."""
    for level in ('debug: ', 'info: ', 'warn: ', 'error: '):
        i = line.find(' mcpfs ' + level)
        if i >= 0:
            return line[i + len(' mcpfs ' + level):]
    return line


# ---------------------------------------------------------------- reading

def read_everything(root, timeout=60):
    """{relative path: bytes} for every regular file under root (a
    mount), read to EOF. call files of threads return the latest reply
    (they never block for long here: nothing is in flight when this
    runs)."""
    def walk():
        out = {}
        for dirpath, dirnames, filenames in os.walk(root):
            for name in filenames:
                p = Path(dirpath) / name
                fd = os.open(p, os.O_RDONLY)
                try:
                    out[str(p.relative_to(root))] = read_all(fd)
                finally:
                    os.close(fd)
        return out
    return run_with_deadline(walk, timeout, f'reading every file of {root}')


# ---------------------------------------------------------------- users

def other_user():
    """(uid, gid, name) of an unprivileged user that is not us."""
    for name in ('mcpfs-test', 'nobody'):
        try:
            pw = pwd.getpwnam(name)
        except KeyError:
            continue
        if pw.pw_uid != os.getuid():
            return pw.pw_uid, pw.pw_gid, name
    pytest.skip('no unprivileged user (mcpfs-test or nobody) to test with')


def need_root():
    if os.getuid() != 0:
        pytest.skip('needs root (to switch to another user)')
    if not shutil.which('setpriv'):
        pytest.skip('setpriv (util-linux) is not installed')


# Run in the dropped child: perform ops, print one JSON list of results.
# Each op is [kind, path, arg]; paths are relative to the child's cwd.
# (conftest.read_all comes first: the child runs with -I -S.)
_AS_SCRIPT = inspect.getsource(conftest.read_all) + r'''
import errno, json, os, sys

def one(kind, path, arg):
    if kind == 'listdir':
        return sorted(os.listdir(path))
    if kind == 'stat':
        st = os.stat(path)
        return [st.st_mode & 0o7777, st.st_uid, st.st_gid]
    if kind == 'read':
        fd = os.open(path, os.O_RDONLY)
        try:
            return os.read(fd, 1 << 16).decode(errors='replace')
        finally:
            os.close(fd)
    if kind == 'open_rw':
        os.close(os.open(path, os.O_RDWR))
        return None
    if kind == 'write':
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
        try:
            os.write(fd, arg.encode())
        finally:
            os.close(fd)
        return None
    if kind == 'call':
        fd = os.open(path, os.O_RDWR)
        try:
            os.write(fd, arg.encode())
            return read_all(fd, 1 << 16).decode(errors='replace')
        finally:
            os.close(fd)
    if kind == 'mkdir':
        os.mkdir(path)
        return None
    if kind == 'rmdir':
        os.rmdir(path)
        return None
    if kind == 'chdir':
        os.chdir(path)
        return None
    raise ValueError(kind)

res = []
for kind, path, arg in json.loads(sys.argv[1]):
    try:
        res.append(['ok', one(kind, path, arg)])
    except OSError as e:
        res.append([errno.errorcode.get(e.errno, str(e.errno)), None])
print(json.dumps(res))
'''


def run_as(uid, gid, cwd, ops, timeout=20):
    """Run ops ([kind, relpath, arg], see _AS_SCRIPT) as uid:gid starting
    in cwd. Returns [(result, value)]: result 'ok' or an errno name."""
    cmd = ['setpriv', f'--reuid={uid}', f'--regid={gid}', '--clear-groups',
           sys.executable, '-I', '-S', '-c', _AS_SCRIPT, json.dumps(ops)]
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                       timeout=slacked(timeout))
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    return [tuple(x) for x in json.loads(r.stdout)]


# ---------------------------------------------------------------- mounts

def isolate_mcpfs(monkeypatch):
    """From now on the fixture runs mcpfs through setsid(1): its own
    session and process group (setsid execs in place: same pid). An mcpfs
    that kill()s its own process group then only hurts itself."""
    orig = conftest.Mount.command

    def command(self):
        return ['setsid'] + orig(self)
    monkeypatch.setattr(conftest.Mount, 'command', command)


class UserMount:
    """mcpfs mounted by an unprivileged user. Files live in a fresh
    directory under /tmp owned by that user; use as a context manager."""

    def __init__(self, uid, gid, servers, args=(), cwd=None):
        self.uid, self.gid, self.cwd = uid, gid, cwd
        self.dir = Path(tempfile.mkdtemp(prefix='mcpfs-usermount-'))
        os.chmod(self.dir, 0o755)
        self.path = self.dir / 'mnt'
        self.path.mkdir()
        self.log = self.dir / 'mcpfs.log'
        self.config = self.dir / 'servers.json'
        self.tag = f'mcpfs-test-user-{os.getpid()}-{time.monotonic_ns()}'
        # The binaries are copied next to the mount: the build tree may sit
        # under a directory that only root can enter (a mktemp -d clone).
        bindir = self.dir / 'bin'
        bindir.mkdir()
        os.chmod(bindir, 0o755)
        self.mcpfs = shutil.copy2(MCPFS, bindir / 'mcpfs')
        shutil.copy2(MCPFS.parent / 'mcpfs-http.so', bindir)
        fake = shutil.copy2(FAKESERVER, bindir / 'fakeserver')
        doc = {'mcpServers': {}}
        for name, entry in servers.items():
            entry = dict(entry)
            if entry.get('command') == str(FAKESERVER):
                entry['command'] = str(fake)
            entry['env'] = dict(entry.get('env') or {}, **{TAG_VAR: self.tag})
            doc['mcpServers'][name] = entry
        self.config.write_text(json.dumps(doc))
        for p in (self.dir, self.path, self.config):
            os.chown(p, uid, gid)
        self.args = [str(a) for a in args]
        self.proc = None

    def _as(self, *cmd):
        return ['setpriv', f'--reuid={self.uid}', f'--regid={self.gid}',
                '--clear-groups', *cmd]

    def __enter__(self):
        env = dict(os.environ, HOME=str(self.dir),
                   XDG_CONFIG_HOME=str(self.dir / 'xdg'))
        self.out = open(self.dir / 'mcpfs.out', 'wb')
        self.proc = subprocess.Popen(
            self._as(str(self.mcpfs), '-f', '-d', '--log', str(self.log),
                     '-c',
                     str(self.config), *self.args, str(self.path)),
            stdin=subprocess.DEVNULL, stdout=self.out,
            stderr=subprocess.STDOUT, env=env, start_new_session=True,
            cwd=self.cwd)
        limit = slacked(10)
        end = time.monotonic() + limit
        while not is_mounted(self.path):
            if self.proc.poll() is not None:
                out = (self.dir / 'mcpfs.out').read_text(errors='replace')
                self._cleanup()
                if 'fusermount' in out or 'Operation not permitted' in out:
                    pytest.skip(f'an unprivileged user cannot mount: {out}')
                pytest.fail(f'mcpfs as uid {self.uid} exited '
                            f'{self.proc.returncode}: {out}')
            if time.monotonic() > end:
                self._cleanup()
                pytest.fail(f'mcpfs as another user did not mount in '
                            f'{limit} s')
            time.sleep(0.05)
        return self

    def output(self):
        parts = []
        for p in (self.dir / 'mcpfs.out', self.log):
            try:
                parts.append(p.read_text(errors='replace'))
            except FileNotFoundError:
                pass
        return '\n'.join(parts)

    def _cleanup(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if is_mounted(self.path):
            subprocess.run(['fusermount3', '-uz', str(self.path)],
                           capture_output=True, timeout=20)
        for pid in tagged_pids(self.tag):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if getattr(self, 'out', None):
            self.out.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __exit__(self, *exc):
        problems = []
        try:
            r = subprocess.run(self._as('fusermount3', '-u', str(self.path)),
                               capture_output=True, text=True,
                               timeout=slacked(20))
            if r.returncode != 0:
                problems.append(f'fusermount3 -u as uid {self.uid}: '
                                f'{r.stderr.strip()}')
            limit = slacked(20)
            try:
                rc = self.proc.wait(limit)
                if rc != 0:
                    problems.append(f'mcpfs exited {rc}')
            except subprocess.TimeoutExpired:
                problems.append(f'mcpfs did not exit {limit} s after '
                                'unmount')
            end = time.monotonic() + slacked(10)
            while tagged_pids(self.tag) and time.monotonic() < end:
                time.sleep(0.05)
            if tagged_pids(self.tag):
                problems.append(f'server processes left: '
                                f'{tagged_pids(self.tag)}')
        finally:
            out = self.output()
            self._cleanup()
        if problems and exc[0] is None:
            pytest.fail('; '.join(problems) + '\n' + out[-2000:])
        return False


def zombie_children(pid):
    """Children of pid in state Z."""
    return conftest.children_of(pid, 'Z')


def vm_rss_kib(pid):
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1])
    return 0


def fd_count(pid):
    return len(os.listdir(f'/proc/{pid}/fd'))


__all__ = ['FAKESERVER', 'UserMount', 'assert_alive', 'errno_name',
           'errno_of', 'fd_count', 'isolate_mcpfs', 'log_lines_since',
           'log_mark', 'log_since', 'message_of', 'need_root', 'other_user',
           'read_everything', 'reap_adopted', 'run_as', 'vm_rss_kib',
           'zombie_children']
