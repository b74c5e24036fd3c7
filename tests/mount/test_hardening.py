r"""Hardening (spec 3 and 6, doc/decisions.md): who may use the
mount, secrets never shown (test_secrets.py), and bad input of every kind: each gets its
errno, a clear message in the log, and leaves every session intact (the
same server process answers afterwards).

Cases already covered elsewhere are not repeated here: test_call.py has
malformed JSON (a few), non-object requests, initialize/notifications,
over 16 MiB, an incomplete request at close, unknown tools and head -c 10
on a thread's call; test_tree.py has modes and owners of a root mount,
invalid thread names (unicode, spaces, 129 bytes, leading dot), read-only
files opened for writing, mkdir outside a server and another uid without
allow_other (ls, cat).

Bad input -> errno -> what mcpfs logs (--log, level info), as seen on
the build these tests were written against (the log names neither the
server nor the thread of the refused call):

  input written to a call file                 errno   log message ("call refused: ...")
  -------------------------------------------  ------  ------------------------------------------------
  10000 x '[', 300 x '{"a":', 257 levels        EINVAL  invalid JSON (nesting too deep)
  NUL byte: leading, alone, in a string,        EINVAL  invalid JSON (NUL byte)
    between tokens
  NUL right after a complete request            EINVAL  invalid JSON (trailing data)
  C0 80, lone 80, truncated E6 97, FF in a      EINVAL  invalid JSON (invalid UTF-8)
    key, Latin-1 E9
  E0 80 AF (overlong '/')                       EINVAL  invalid JSON (invalid UTF-8 (overlong))
  ED A0 80 (UTF-8-encoded surrogate)            EINVAL  invalid JSON (invalid UTF-8 (surrogate))
  F4 90 80 80 (above U+10FFFF)                  EINVAL  invalid JSON (invalid UTF-8 (above U+10FFFF))
  "\ud800" (unpaired surrogate escape)           EINVAL  invalid JSON (unpaired surrogate in \u escape)
  raw 0x01 or raw newline in a string           EINVAL  invalid JSON (control character in string)
  "\x41"                                        EINVAL  invalid JSON (invalid escape in string)
  BOM, NaN                                      EINVAL  invalid JSON (unexpected character)
  -Infinity                                     EINVAL  invalid JSON (invalid number)
  01                                            EINVAL  invalid JSON (leading zero in number)
  {"name":"echo",}                              EINVAL  invalid JSON (trailing comma)
  {'name':'echo'}, {name:"echo"}                EINVAL  invalid JSON (expected a string key)
  {"name":"echo"/* hi */}                       EINVAL  invalid JSON (expected ',' or a closing bracket)
  "arguments": [1] / "text"                     EINVAL  "arguments" must be an object
  both "name" and "method"                      EINVAL  request has both "name" (a tool call) and "method"
  "name": "" / null                             EINVAL  "name" must be a non-empty string (the tool)
  "_meta": 5                                    EINVAL  "_meta" must be an object
  "params": "x" / 5                             EINVAL  "params" must be an object or an array
  "method": ""                                  EINVAL  "method" must be a non-empty string
  {}                                            EINVAL  request needs "name" (a tool call) or "method"
  123, then close                     write ok, close EINVAL: request must be a JSON object
  truncated (in a string, mid-escape,   write ok, close EINVAL: incomplete request at close
    mid-UTF-8, after a key/colon, '[', tru)
  over 16 MiB                                   EFBIG   request over 16777216 bytes (once; every later
                                                        write on that open file is EFBIG too, close is ok)
  unknown tool (either form)    reply {"error": {"code": -32602, "message": "Unknown tool: X"}}, no log line

  other operations                              errno   log message
  -------------------------------------------  ------  ------------------------------------------------
  ctl: two verbs, NUL, 1 MiB, binary,           EINVAL  ctl: unknown verb (want cancel, restart, close, subscribe or unsubscribe)
    "restart now"
  mkdir of b'a\xffb' (and every bad name)       EINVAL  mkdir refused: bad thread name
  mkdir named call / tools.json                 EEXIST  (none)
  create (O_CREAT) anywhere, mknod, mkfifo,     EPERM   (none)
    rename, link, symlink, chmod (even to the
    same mode), chown, truncate(2) of a 0400
    file, rmdir <server>, unlink of .status,
    <server>/call, <server>/tools.json
  open O_CREAT|O_EXCL of an existing file       EEXIST  (none)
  open O_WRONLY of a 0400 file                  EACCES  (none)
  another uid without allow_other               EACCES  (none; refused by the kernel)
  second request on one fd while one is in      accepted: the fd reads the second reply; the first
    flight                                      call goes on (not cancelled), becomes the latest
  second read on one fd while one waits         the kernel serialises read() on one open file (f_pos
                                                lock): it waits, then reads 0 (doc/decisions.md says EBUSY)
"""

import contextlib
import errno
import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import (call, call_raw, cancelled_ids, error_text, fake,
                      proc_stat, read_all, read_file, run_with_deadline,
                      status, text, thread, tool, wait_until, write_all,
                      write_file)
from hardening_util import (UserMount, assert_alive, errno_of, isolate_mcpfs,
                            log_lines_since, log_mark, message_of, need_root,
                            other_user, run_as)

DENIED = ('EACCES', 'EPERM')


def ready_thread(m, server='a', name='t'):
    """A thread directory whose server answered once; returns (t, pid)."""
    t = thread(m, server, name)
    return t, int(text(tool(t, 'pid')))


def write_errno(path, data, flags=os.O_RDWR):
    """Write data on a fresh open file of path; returns (write result,
    close result), each 'ok' or an errno name."""
    fd = os.open(path, flags)
    res = {}

    def io():
        res['write'] = errno_of(lambda: write_all(fd, data))
    try:
        run_with_deadline(io, 15, f'write {data[:40]!r}')
    finally:
        res['close'] = errno_of(lambda: os.close(fd))
    return res['write'], res['close']


def refused_logged(m, mark, needle='refused'):
    """The log lines since mark that mention needle (waits briefly: the
    log is written by mcpfs's loop)."""
    lines = []

    def got():
        lines[:] = log_lines_since(m, mark, needle)
        return lines
    wait_until(got, 3, f'a log line with {needle!r}')
    return [message_of(ln) for ln in lines]


# ================================================================ 1. who

def test_other_uid_refused_without_allow_other(mcpfs_mount):
    """Another uid gets nothing: not a stat of the mount point, not a
    listing, not a call, not a ctl verb, not a mkdir/rmdir; and nothing it
    tried reached a server."""
    need_root()
    uid, gid, _ = other_user()
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    mark = log_mark(m)
    req = json.dumps({'name': 'echo', 'arguments': {'text': 'intruder'}})
    # from the directory that holds the mount point (0755): only FUSE can
    # say no to the mount point itself
    res = run_as(uid, gid, m.tmp, [
        ['stat', 'mnt', None], ['listdir', 'mnt', None],
        ['read', 'mnt/.status', None], ['listdir', 'mnt/a', None],
        ['read', 'mnt/a/tools.json', None], ['call', 'mnt/a/call', req],
        ['call', 'mnt/a/t/call', req], ['write', 'mnt/a/t/ctl', 'close\n'],
        ['mkdir', 'mnt/a/u', None], ['rmdir', 'mnt/a/t', None]])
    for op, (r, v) in zip(['stat mnt', 'ls mnt', 'cat .status', 'ls a',
                           'cat a/tools.json', 'call a/call', 'call a/t/call',
                           'ctl close', 'mkdir a/u', 'rmdir a/t'], res):
        assert r in DENIED, (op, r, v)
    # from inside the thread directory (entered as root before the drop)
    res = run_as(uid, gid, t, [
        ['stat', '.', None], ['listdir', '.', None], ['read', 'status', None],
        ['read', 'call', None], ['call', 'call', req],
        ['write', 'ctl', 'restart\n']])
    assert all(r in DENIED for r, _ in res), res
    # setpriv + ls / cat / sh, as a user would type it
    for cmd in (['ls', '.'], ['cat', 'status'],
                ['sh', '-c', f"echo '{req}' > call"]):
        r = subprocess.run(['setpriv', f'--reuid={uid}', f'--regid={gid}',
                            '--clear-groups', *cmd], cwd=t,
                           capture_output=True, text=True, timeout=10)
        assert r.returncode != 0 and 'denied' in r.stderr.lower(), (cmd, r)
    assert_alive(t, pid)
    assert sorted(os.listdir(m.path / 'a')) == \
        ['call', 'help', 't', 'tools.json']
    assert m.server_pids() == [pid]
    assert status(t)['calls'] == 2      # ours only (pid, echo)
    assert not log_lines_since(m, mark, 'one-shot')
    assert 'intruder' not in read_file(t / 'call').decode()


def test_other_uid_with_allow_other_kept_out_by_modes(mcpfs_mount):
    """With -o allow_other mcpfs adds default_permissions: the other uid
    may now stat the mount point (allow_other took effect) but the 0700
    directories and 0600/0400 files keep it out."""
    need_root()
    uid, gid, _ = other_user()
    m = mcpfs_mount({'a': fake()}, args=['-o', 'allow_other'])
    t, pid = ready_thread(m)
    opts = [ln for ln in open('/proc/self/mountinfo')
            if f' {m.path} ' in ln]
    assert opts and 'allow_other' in opts[0] and \
        'default_permissions' in opts[0], opts
    req = json.dumps({'name': 'echo', 'arguments': {'text': 'intruder'}})
    res = run_as(uid, gid, m.tmp, [['stat', 'mnt', None],
                                   ['listdir', 'mnt', None],
                                   ['read', 'mnt/.status', None]])
    assert res[0] == ('ok', [0o700, os.getuid(), os.getgid()]), res
    assert res[1][0] == 'EACCES' and res[2][0] == 'EACCES', res
    res = run_as(uid, gid, m.path, [
        ['listdir', '.', None], ['stat', 'a', None], ['stat', '.status', None],
        ['call', 'a/call', req]])
    assert [r for r, _ in res] == ['EACCES'] * 4, res
    res = run_as(uid, gid, m.path / 'a', [
        ['listdir', '.', None], ['read', 'tools.json', None],
        ['call', 'call', req], ['mkdir', 'u', None], ['rmdir', 't', None]])
    assert [r for r, _ in res] == ['EACCES'] * 5, res
    res = run_as(uid, gid, t, [
        ['listdir', '.', None], ['read', 'status', None],
        ['read', 'call', None], ['open_rw', 'call', None],
        ['call', 'call', req], ['write', 'ctl', 'close\n'],
        ['read', 'stderr', None], ['read', 'events', None]])
    assert [r for r, _ in res] == ['EACCES'] * 8, res
    # the mounting user is unaffected
    assert_alive(t, pid)
    assert sorted(os.listdir(m.path / 'a')) == \
        ['call', 'help', 't', 'tools.json']
    assert m.server_pids() == [pid]


def test_mount_by_unprivileged_user_owned_by_that_user():
    """Everything is owned by the mounting user (not by root, not by
    mcpfs's idea of a fixed uid), with the spec's modes, and root itself
    is kept out without allow_other."""
    need_root()
    uid, gid, _ = other_user()
    with UserMount(uid, gid, {'a': fake()}) as um:
        req = json.dumps({'name': 'echo', 'arguments': {'text': 'mine'}})
        res = run_as(uid, gid, um.dir, [['mkdir', 'mnt/a/t', None],
                                        ['call', 'mnt/a/t/call', req]])
        assert res[0][0] == 'ok', res
        assert res[1][0] == 'ok', res
        assert text(json.loads(res[1][1])) == 'mine', res
        want = {'mnt': 0o700, 'mnt/.status': 0o400, 'mnt/a': 0o700,
                'mnt/a/call': 0o600, 'mnt/a/tools.json': 0o400,
                'mnt/a/t': 0o700, 'mnt/a/t/call': 0o600,
                'mnt/a/t/ctl': 0o600, 'mnt/a/t/status': 0o400,
                'mnt/a/t/tools.json': 0o400, 'mnt/a/t/stderr': 0o400,
                'mnt/a/t/events': 0o400}
        res = run_as(uid, gid, um.dir, [['stat', p, None] for p in want])
        for (p, mode), (r, v) in zip(want.items(), res):
            assert (r, v) == ('ok', [mode, uid, gid]), (p, r, v)
        # root is "another user" here
        for fn in (lambda: os.stat(um.path), lambda: os.listdir(um.path),
                   lambda: os.stat(um.path / 'a' / 't' / 'call')):
            assert errno_of(fn) in DENIED
        # the server runs as the mounting user
        res = run_as(uid, gid, um.dir, [
            ['call', 'mnt/a/t/call', json.dumps({'name': 'pid'})]])
        spid = int(json.loads(res[0][1])['content'][0]['text'])
        assert os.stat(f'/proc/{spid}').st_uid == uid


def test_started_where_the_user_may_not_enter_servers_start_in_root(
        tmp_path):
    """`sudo -u USER mcpfs MNT` from a directory USER may not enter (root's
    home, a mktemp -d checkout): the servers, which start where mcpfs was
    started, would each fail with "Permission denied"; mcpfs says so once
    and starts them in / instead."""
    need_root()
    uid, gid, _ = other_user()
    closed = tmp_path / 'closed'
    closed.mkdir(mode=0o700)
    with UserMount(uid, gid, {'a': fake()}, cwd=closed) as um:
        res = run_as(uid, gid, um.dir, [
            ['mkdir', 'mnt/a/t', None],
            ['call', 'mnt/a/t/call', json.dumps({'name': 'pid'})]])
        assert res[1][0] == 'ok', res
        spid = int(text(json.loads(res[1][1])))
        assert os.readlink(f'/proc/{spid}/cwd') == '/'
        assert f'the current directory {closed} is not accessible' in \
            um.output(), um.output()


# ================================================================ 2. secrets

# test_secrets.py (one test for stdio and HTTP)


# ================================================================ 3. bad input

# --- bytes that can never become JSON: the write fails with EINVAL

NEVER_JSON = {
    'deep-10000-arrays': b'[' * 10000,
    'deep-300-objects': b'{"a":' * 300,
    'deep-257-inside-request': b'{"name":"echo","arguments":{"x":' +
                               b'[' * 255 + b']' * 255 + b'}}',
    'nul-leading': b'\0{"name":"echo"}',
    'nul-alone': b'\0',
    'nul-in-string': b'{"name":"echo","arguments":{"text":"a\0b"}}',
    'nul-between-tokens': b'{"name":"echo",\0"arguments":{}}',
    'nul-after-request': b'{"name":"echo"}\0',
    'utf8-overlong': b'{"name":"echo","arguments":{"text":"\xc0\x80"}}',
    'utf8-overlong-slash': b'{"name":"echo","arguments":{"text":"\xe0\x80\xaf"}}',
    'utf8-surrogate': b'{"name":"echo","arguments":{"text":"\xed\xa0\x80"}}',
    'utf8-above-max': b'{"name":"echo","arguments":{"text":"\xf4\x90\x80\x80"}}',
    'utf8-lone-continuation': b'{"name":"echo","arguments":{"text":"\x80"}}',
    'utf8-truncated-seq': b'{"name":"echo","arguments":{"text":"\xe6\x97"}}',
    'utf8-in-key': b'{"name":"echo","arguments":{"\xff":"x"}}',
    'utf8-latin1': b'{"name":"echo","arguments":{"text":"caf\xe9"}}',
    'control-char': b'{"name":"echo","arguments":{"text":"a\x01b"}}',
    'raw-newline-in-string': b'{"name":"echo","arguments":{"text":"a\nb"}}',
    'bad-escape': b'{"name":"echo","arguments":{"text":"\\x41"}}',
    'unpaired-surrogate-escape': b'{"name":"echo","arguments":{"text":"\\ud800"}}',
    'bom': b'\xef\xbb\xbf{"name":"echo"}',
    'nan': b'{"name":"echo","arguments":{"x":NaN}}',
    'infinity': b'{"name":"echo","arguments":{"x":-Infinity}}',
    'single-quotes': b"{'name':'echo'}",
    'comment': b'{"name":"echo"/* hi */}',
    'leading-zero': b'{"name":"echo","arguments":{"x":01}}',
    'trailing-comma': b'{"name":"echo",}',
    'unquoted-key': b'{name:"echo"}',
}


def refused_on(mcpfs_mount, data, want, server_call=False):
    """Write data on a fresh open of a thread's call (and of its server's
    call): each gives want, (write result, close result); the refusals
    count as calls of none in flight and the server process is the same.
    Returns (the thread, the refusals logged)."""
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    mark = log_mark(m)
    for f in (t / 'call', m.path / 'a' / 'call')[:1 + server_call]:
        assert write_errno(f, data) == want, f
    st = status(t)
    assert (st['calls'], st['in_flight']) == (1, 0), st
    assert_alive(t, pid)
    return t, refused_logged(m, mark)


@pytest.mark.parametrize('data', NEVER_JSON.values(), ids=NEVER_JSON.keys())
def test_never_json_einval(mcpfs_mount, data):
    _, msgs = refused_on(mcpfs_mount, data, ('EINVAL', 'ok'))
    assert any('invalid JSON' in s for s in msgs), msgs


@pytest.mark.parametrize('where', ['thread', 'server'])
def test_never_json_one_byte_at_a_time(mcpfs_mount, where):
    """Deep nesting and a NUL fed one byte per write: the write of the
    offending byte fails, those before it succeed."""
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    f = (t if where == 'thread' else m.path / 'a') / 'call'
    for data, bad_at in ((b'[' * 300, 256), (b'{"name":"e\0', 10)):
        fd = os.open(f, os.O_RDWR)
        try:
            results = [errno_of(lambda: os.write(fd, data[i:i + 1]))
                       for i in range(bad_at + 1)]
        finally:
            os.close(fd)
        assert results[:bad_at] == ['ok'] * bad_at, results
        assert results[bad_at] == 'EINVAL', results
    assert_alive(t, pid)


def test_deep_but_allowed_nesting_is_sent(mcpfs_mount):
    """Nesting below the limit is a valid request and reaches the server
    (mcpfs neither refuses it nor falls over building the line)."""
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    req = (b'{"name":"echo","arguments":{"text":"deep","x":' + b'[' * 250 +
           b'{"k":"v"}' + b']' * 250 + b'}}')
    assert text(call(t, req)) == 'deep'
    assert_alive(t, pid)


# --- valid JSON that is not a valid request: EINVAL

NOT_A_REQUEST = {
    'arguments-array': b'{"name":"echo","arguments":[1]}',
    'arguments-string': b'{"name":"echo","arguments":"text"}',
    'name-and-method': b'{"name":"echo","method":"ping"}',
    'empty-name': b'{"name":""}',
    'name-null': b'{"name":null}',
    'meta-number': b'{"name":"echo","_meta":5}',
    'params-string': b'{"method":"ping","params":"x"}',
    'params-number': b'{"method":"ping","params":5}',
    'empty-method': b'{"method":""}',
    'empty-object': b'{}',
}


@pytest.mark.parametrize('data', NOT_A_REQUEST.values(),
                         ids=NOT_A_REQUEST.keys())
def test_not_a_request_einval(mcpfs_mount, data):
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    mark = log_mark(m)
    assert write_errno(t / 'call', data) == ('EINVAL', 'ok')
    assert refused_logged(m, mark)
    assert write_errno(m.path / 'a' / 'call', data) == ('EINVAL', 'ok')
    assert status(t)['calls'] == 1
    assert_alive(t, pid)
    wait_until(lambda: m.server_pids() == [pid], 5, 'no one-shot process')


# --- incomplete at close: the writes succeed, close fails with EINVAL

TRUNCATED = {
    'in-string': b'{"name":"echo","arguments":{"text":"abc',
    'mid-escape': b'{"name":"echo","arguments":{"text":"\\u00',
    'mid-utf8': b'{"name":"echo","arguments":{"text":"\xe6\x97',
    'after-key': b'{"name"',
    'after-colon': b'{"name":',
    'open-array': b'[',
    'mid-literal': b'{"name":"echo","arguments":{"x":tru',
    'top-level-number': b'123',
}


@pytest.mark.parametrize('data', TRUNCATED.values(), ids=TRUNCATED.keys())
def test_truncated_request_close_einval(mcpfs_mount, data):
    t, msgs = refused_on(mcpfs_mount, data, ('ok', 'EINVAL'),
                         server_call=True)
    assert len(msgs) == 2, msgs
    # the abandoned bytes are not glued to the next request
    fd = os.open(t / 'call', os.O_RDWR)
    write_all(fd, data[:5])
    with contextlib.suppress(OSError):
        os.close(fd)
    assert text(tool(t, 'echo', text='clean')) == 'clean'


# --- size

def test_efbig_sticks_to_the_open_file(mcpfs_mount):
    """After EFBIG every further write on that open file fails with EFBIG
    (even a small complete request: nothing half-read is sent); close
    succeeds, a fresh open file works, on a thread and a server call."""
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    mark = log_mark(m)
    for f in (t / 'call', m.path / 'a' / 'call'):
        fd = os.open(f, os.O_RDWR)
        chunk = b'x' * (1 << 20)

        def flood():
            write_all(fd, b'{"name":"echo","arguments":{"text":"')
            for _ in range(17):
                write_all(fd, chunk)
        try:
            e = errno_of(lambda: run_with_deadline(flood, 30, 'flood'))
            assert e == 'EFBIG', e
            assert errno_of(lambda: os.write(fd, b'"}}')) == 'EFBIG'
            assert errno_of(lambda: os.write(
                fd, b'{"name":"echo","arguments":{"text":"small"}}')) == \
                'EFBIG'
        finally:
            assert errno_of(lambda: os.close(fd)) == 'ok'
    msgs = refused_logged(m, mark, 'over')
    assert len(msgs) == 2, msgs
    assert_alive(t, pid)
    assert text(tool(m.path / 'a', 'echo', text='one-shot ok')) == \
        'one-shot ok'


def test_request_just_under_16mib_is_sent(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    head = b'{"name":"echo","arguments":{"text":"'
    tail = b'"}}'
    n = (16 << 20) - len(head) - len(tail)
    reply = json.loads(call_raw(t, head + b'y' * n + tail, timeout=60))
    assert len(text(reply)) == n
    assert_alive(t, pid)


# --- unknown tools through the generic method form

def test_unknown_tool_via_method_form_is_jsonrpc_error(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    r = call(t, {'method': 'tools/call', 'params': {'name': 'no_such'}})
    assert set(r) == {'error'} and r['error']['code'] == -32602, r
    r = call(t, {'method': 'tools/call',
                 'params': {'name': 'echo', 'arguments': {'text': 'via'}}})
    assert text(r) == 'via'
    assert_alive(t, pid)


# --- the namespace: nothing can be created, renamed, linked or chmod-ed

def _ns_ops(P, t):
    a = P / 'a'
    return {
        'create-in-root': (lambda: os.close(os.open(
            P / 'new', os.O_WRONLY | os.O_CREAT, 0o600)), 'EPERM'),
        'create-in-server': (lambda: os.close(os.open(
            a / 'new', os.O_WRONLY | os.O_CREAT, 0o600)), 'EPERM'),
        'create-in-thread': (lambda: os.close(os.open(
            t / 'new', os.O_WRONLY | os.O_CREAT, 0o600)), 'EPERM'),
        'create-excl-existing': (lambda: os.close(os.open(
            t / 'call', os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)),
            'EEXIST'),
        'mknod': (lambda: os.mknod(t / 'node', 0o600 | stat.S_IFREG),
                  'EPERM'),
        'mkfifo': (lambda: os.mkfifo(a / 'fifo'), 'EPERM'),
        'rename-thread': (lambda: os.rename(t, a / 't2'), 'EPERM'),
        'rename-thread-to-other-server': (lambda: os.rename(t, P / 'b' / 't'),
                                          'EPERM'),
        'rename-file': (lambda: os.rename(t / 'status', t / 's2'), 'EPERM'),
        'rename-over-file': (lambda: os.rename(t / 'status', t / 'call'),
                             'EPERM'),
        'rename-server': (lambda: os.rename(a, P / 'c'), 'EPERM'),
        'rename-status': (lambda: os.rename(P / '.status', P / 'x'),
                          'EPERM'),
        'link': (lambda: os.link(t / 'status', t / 'l'), 'EPERM'),
        'link-server-call': (lambda: os.link(a / 'call', a / 'l'), 'EPERM'),
        'symlink-thread': (lambda: os.symlink('/etc/passwd', t / 'l'),
                           'EPERM'),
        'symlink-root': (lambda: os.symlink('a', P / 'l'), 'EPERM'),
        'chmod-call': (lambda: os.chmod(t / 'call', 0o666), 'EPERM'),
        'chmod-status': (lambda: os.chmod(t / 'status', 0o644), 'EPERM'),
        'chmod-same-mode': (lambda: os.chmod(t / 'call', 0o600), 'EPERM'),
        'chmod-thread-dir': (lambda: os.chmod(t, 0o755), 'EPERM'),
        'chmod-root': (lambda: os.chmod(P, 0o777), 'EPERM'),
        'chown-call': (lambda: os.chown(t / 'call', 65534, 65534), 'EPERM'),
        'chown-dir': (lambda: os.chown(a, 65534, 65534), 'EPERM'),
        'truncate-status': (lambda: os.truncate(t / 'status', 0), 'EPERM'),
        'truncate-root-status': (lambda: os.truncate(P / '.status', 0),
                                 'EPERM'),
        'rmdir-server': (lambda: os.rmdir(a), 'EPERM'),
        'unlink-status': (lambda: os.unlink(P / '.status'), 'EPERM'),
        'unlink-server-call': (lambda: os.unlink(a / 'call'), 'EPERM'),
        'unlink-server-tools': (lambda: os.unlink(a / 'tools.json'),
                                'EPERM'),
        'mkdir-named-call': (lambda: os.mkdir(a / 'call'), 'EEXIST'),
        'mkdir-named-tools.json': (lambda: os.mkdir(a / 'tools.json'),
                                   'EEXIST'),
        'mkdir-bad-utf8-name': (lambda: os.mkdir(os.fsencode(a) +
                                                 b'/a\xffb'), 'EINVAL'),
    }


NS_CASES = list(_ns_ops(Path('/'), Path('/')))


@pytest.mark.parametrize('case', NS_CASES)
def test_namespace_changes_refused(mcpfs_mount, case):
    m = mcpfs_mount({'a': fake(), 'b': fake()})
    t, pid = ready_thread(m)
    fn, want = _ns_ops(m.path, t)[case]
    before = {d: sorted(os.listdir(d)) for d in (m.path, m.path / 'a',
                                                 m.path / 'b', t)}
    modes = {p: os.stat(p).st_mode for p in (m.path, m.path / 'a', t,
                                             t / 'call', t / 'status')}
    got = run_with_deadline(lambda: errno_of(fn), 10, case)
    assert got == want, (case, got)
    assert {d: sorted(os.listdir(d)) for d in before} == before
    assert {p: os.stat(p).st_mode for p in modes} == modes
    assert_alive(t, pid, case)
    assert m.server_pids() == [pid]


# --- ctl

@pytest.mark.parametrize('data', [b'cancel\ncancel\n', b'cancel\0',
                                  b'cancel' + b' ' * (1 << 20),
                                  b'\xff\xfe', b'restart now'],
                         ids=['two-verbs', 'nul', 'one-mib', 'binary',
                              'verb-and-more'])
def test_ctl_garbage_einval(mcpfs_mount, data):
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    mark = log_mark(m)
    w, c = write_errno(t / 'ctl', data, os.O_WRONLY)
    assert 'EINVAL' in (w, c), (w, c)
    assert refused_logged(m, mark, 'ctl')
    assert_alive(t, pid)
    assert status(t)['generation'] == 1


# --- reading call: small buffers, closing early

def test_small_buffer_reads_whole_reply(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    whole = call_raw(t, {'name': 'big', 'arguments': {'bytes': 5000}})
    for where in (t, m.path / 'a'):
        fd = os.open(where / 'call', os.O_RDWR)
        try:
            write_all(fd, json.dumps({'name': 'big',
                                      'arguments': {'bytes': 5000}}).encode())

            def dribble():
                parts = []
                while True:
                    b = os.read(fd, 7)
                    if not b:
                        return b''.join(parts)
                    assert len(b) <= 7
                    parts.append(b)
            got = run_with_deadline(dribble, 20, '7-byte reads')
        finally:
            os.close(fd)
        assert got == whole, where
    assert_alive(t, pid)


def test_new_write_after_partial_read_keeps_both(mcpfs_mount):
    """Reading part of a reply and then writing the next request on the
    same open file: the rest of the old reply is read first, then its read
    of 0, then the new reply (spec 4: pipelined replies are none dropped);
    a reply read to its last byte is over even before its read of 0."""
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    fd = os.open(t / 'call', os.O_RDWR)
    try:
        write_all(fd, b'{"name":"big","arguments":{"bytes":100000}}')
        assert run_with_deadline(lambda: os.read(fd, 10), 10, 'read') == \
            b'{"content"'
        write_all(fd, b'{"name":"echo","arguments":{"text":"next"}}')
        rest = run_with_deadline(lambda: read_all(fd), 10, 'read')
        reply = run_with_deadline(lambda: read_all(fd), 10, 'read')
        assert len(text(json.loads(b'{"content"' + rest))) == 100000
        assert text(json.loads(reply)) == 'next'
        # read up to its newline only, then write: the new reply follows
        write_all(fd, b'{"name":"echo","arguments":{"text":"a"}}')
        first = run_with_deadline(lambda: os.read(fd, 1 << 16), 10, 'read')
        write_all(fd, b'{"name":"echo","arguments":{"text":"b"}}')
        second = run_with_deadline(lambda: read_all(fd), 10, 'read')
    finally:
        os.close(fd)
    assert text(json.loads(first)) == 'a' and first.endswith(b'\n')
    assert text(json.loads(second)) == 'b'
    assert_alive(t, pid)


def test_close_early_one_shot_and_in_flight(mcpfs_mount):
    """head -c 10 on a one-shot call, and closing before the reply came:
    the one-shot process still ends, nothing leaks, the session is fine."""
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    r = subprocess.run(
        ['sh', '-c', 'echo \'{"name":"big","arguments":{"bytes":300000}}\''
         ' > call; head -c 10 call'], cwd=m.path / 'a', capture_output=True,
        timeout=20)
    assert r.returncode == 0 and r.stdout == b'{"content"', r
    fd = os.open(t / 'call', os.O_RDWR)
    write_all(fd, b'{"name":"sleep","arguments":{"ms":300}}')
    os.close(fd)
    fd = os.open(m.path / 'a' / 'call', os.O_RDWR)
    write_all(fd, b'{"name":"sleep","arguments":{"ms":300}}')
    os.close(fd)
    wait_until(lambda: m.server_pids() == [pid], 10, 'the one-shot processes to end')
    assert text(json.loads(read_file(t / 'call'))) == 'slept 300'
    assert cancelled_ids(t) == []
    assert_alive(t, pid)


# --- two requests / two readers on one open file

def test_second_request_while_first_in_flight(mcpfs_mount):
    """The second write on the same open file is accepted; the file then
    reads the first reply, its read of 0, then the second (spec 4:
    pipelining); the first call is not cancelled."""
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    fd = os.open(t / 'call', os.O_RDWR)
    try:
        write_all(fd, b'{"name":"sleep","arguments":{"ms":1000}}')
        assert errno_of(lambda: write_all(
            fd, b'{"name":"echo","arguments":{"text":"second"}}')) == 'ok'
        assert status(t)['in_flight'] in (1, 2)   # the sleep goes on
        reply = run_with_deadline(lambda: read_all(fd), 10, 'read')
        assert text(json.loads(reply)) == 'slept 1000'
        reply = run_with_deadline(lambda: read_all(fd), 10, 'read')
        assert text(json.loads(reply)) == 'second'
    finally:
        os.close(fd)
    wait_until(lambda: status(t)['in_flight'] == 0, 5, 'the first to end')
    # a fresh open reads this process's own latest call (spec 4)
    assert text(json.loads(read_file(t / 'call'))) == 'second'
    assert cancelled_ids(t) == []
    assert_alive(t, pid)


def test_second_reader_on_one_open_file(mcpfs_mount):
    """Two threads read one open call file while its reply is pending: the
    first gets the whole reply, the second EBUSY or end of file, never a
    piece of the reply and never a hang."""
    m = mcpfs_mount({'a': fake()})
    t, pid = ready_thread(m)
    fd = os.open(t / 'call', os.O_RDWR)
    try:
        write_all(fd, b'{"name":"sleep","arguments":{"ms":800}}')
        box = {}
        th = threading.Thread(target=lambda: box.setdefault(
            'first', read_all(fd)), daemon=True)
        th.start()
        wait_until(lambda: status(t)['in_flight'] == 1, 5, 'in flight')
        time.sleep(0.2)

        def second():
            try:
                return os.read(fd, 1 << 16)
            except OSError as e:
                return errno.errorcode[e.errno]
        got = run_with_deadline(second, 10, 'the second read')
        th.join(10)
        assert text(json.loads(box['first'])) == 'slept 800'
        assert got in ('EBUSY', b''), got
    finally:
        os.close(fd)
    assert_alive(t, pid)


# --- launch failures that must not take mcpfs down

def test_nonexistent_cwd_fails_the_call_not_mcpfs(mcpfs_mount, monkeypatch):
    """A server whose cwd does not exist cannot start: the call fails with
    a startup error; mcpfs and every other session stay up. (mcpfs runs in
    its own process group here: a failed uv_spawn must not make it
    kill(0, SIGKILL) its own group - which would also kill pytest.)"""
    isolate_mcpfs(monkeypatch)
    m = mcpfs_mount({'a': fake(),
                     'nocwd': dict(fake(), cwd='/nonexistent/mcpfs-cwd')})
    t, pid = ready_thread(m)
    bad = m.path / 'nocwd' / 'x'
    got = []

    def died(what, res):
        try:       # a failed step: give a dying mcpfs time to be seen dead
            m.proc.wait(2 if res != 'ok' else 0.2)
        except subprocess.TimeoutExpired:
            return
        out = m.output()[-2000:]
        m.abandon()
        pytest.fail(f'mcpfs died (exit {m.proc.returncode}) at {what} '
                    f'({what}: {res}):\n{out}')
    res = errno_of(lambda: os.mkdir(bad))
    died('mkdir', res)
    assert res == 'ok', res
    res = errno_of(lambda: got.append(tool(bad, 'echo', text='x',
                                           timeout=15)))
    died('the first call', res)
    assert res == 'ok', res
    err = error_text(got[0])
    assert 'its working directory /nonexistent/mcpfs-cwd: No such file' \
        in err, err
    res = errno_of(lambda: got.append(tool(m.path / 'nocwd', 'echo', text='x',
                                           timeout=15)))
    died('a one-shot call', res)
    assert res == 'ok' and 'error' in got[-1], (res, got)
    assert bad.exists()
    assert_alive(t, pid)


# --- mcpfs closing a session while others look names up

LOOKER = r'''
import os, sys, time
d, end, i = sys.argv[1], time.monotonic() + float(sys.argv[2]), 0
while time.monotonic() < end:
    i += 1
    try:
        os.stat(f"{d}/nx-{os.getpid()}-{i}")
    except FileNotFoundError:
        pass
'''


@pytest.mark.parametrize('how', ['ctl-close', 'idle'])
def test_session_close_while_lookups_no_deadlock(mcpfs_mount, how):
    """Sessions that mcpfs closes itself (ctl close, idle timeout) make it
    invalidate the kernel's dentry while other processes look up names in
    the same server directory: mcpfs must not block on the directory lock
    that those lookups hold while they wait for mcpfs (a deadlock). On a
    hang the lookers are killed, which frees mcpfs, and the test fails."""
    args = ['--idle-timeout', '1'] if how == 'idle' else []
    m = mcpfs_mount({'a': fake()}, args=args)
    srv = m.path / 'a'
    # the lookers run until killed below (600 s is only their bound)
    lookers = [subprocess.Popen([sys.executable, '-c', LOOKER, str(srv),
                                 '600']) for _ in range(2)]
    hung, rounds, deadlock = None, 0, False
    end = time.monotonic() + 6
    try:
        # 6 s of rounds, and two at least however slow the machine
        while (time.monotonic() < end or rounds < 2) and hung is None:
            rounds += 1
            d = srv / f'x{rounds}'
            try:
                run_with_deadline(lambda: os.mkdir(d), 5, 'mkdir')
                if how == 'ctl-close':
                    run_with_deadline(lambda: write_file(d / 'ctl', 'close'),
                                      5, 'ctl close')
                run_with_deadline(lambda: wait_until(
                    lambda: not d.exists(), 4, 'the session to go'), 6,
                    'lookup')
            except BaseException as e:  # noqa: B902 - pytest.fail too
                st = proc_stat(m.proc.pid)
                if st and st[0] == 'D':
                    deadlock = True
                try:
                    stack = open(f'/proc/{m.proc.pid}/stack').read()
                except OSError:
                    stack = '?'
                hung = (f'round {rounds}: {e!r:.200}; mcpfs state {st}; '
                        f'kernel stack:\n{stack}')
    finally:
        for p in lookers:          # all at once: one of them holds the lock
            p.kill()
        for p in lookers:
            p.wait()
    if hung:
        wait_until(lambda: (proc_stat(m.proc.pid) or 'S')[0] != 'D', 10,
                   'mcpfs to come out of D state after killing the lookers')
        pytest.fail(('mcpfs deadlocked (D state in the kernel)' if deadlock
                     else 'a session did not close') +
                    f' while lookups ran: {hung}')
    if how == 'idle':
        # a thread would close after its 1 s idle between the mkdir and
        # the call on a loaded machine (a stress run saw ENOENT on
        # t/call): the server's one-shot call file has no idle to race
        assert text(tool(srv, 'echo', text='after')) == 'after'
        return
    t, pid = ready_thread(m)
    assert_alive(t, pid)
