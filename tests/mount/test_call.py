"""The call file (spec 4) and the files of a thread directory:
transactions, state across calls, isolation, one-shot calls, multiplexing,
bad requests, tools.json, stderr, events and ctl."""

import concurrent.futures
import contextlib
import errno
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import (call, call_raw, cancelled_ids, demo, error_text, fake,
                      interrupted_read, open_call, pid_gone, proc_stat,
                      read_all, read_file, recv, run_with_deadline, send,
                      status, supervisor_of, text, thread, tool, wait_blocked,
                      wait_until, write_all, write_file)
from test_http import entry, fake_http, sid_of  # noqa: F401 - a fixture


# ---------------------------------------------------------------- basics

def test_round_trip(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    raw = call_raw(t, {'name': 'echo', 'arguments': {'text': 'hello'}})
    # one JSON document plus a newline
    assert raw.endswith(b'\n') and raw.count(b'\n') == 1
    reply = json.loads(raw)
    assert text(reply) == 'hello'
    assert not reply.get('isError')


def test_demo_state_survives(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo')
    assert text(tool(t, 'incr')) == '1'
    pid = status(t)['pid']
    assert text(tool(t, 'incr')) == '2'
    assert text(tool(t, 'incr', by=5)) == '7'
    assert text(tool(t, 'get_count')) == '7'
    assert text(tool(t, 'set', key='k', value='v')) == 'ok'
    assert text(tool(t, 'get', key='k')) == 'v'
    assert 'k' in text(tool(t, 'keys'))
    assert text(tool(t, 'echo', text='e')) == 'e'
    assert status(t)['pid'] == pid
    assert status(t)['calls'] >= 8


def test_fake_counter_same_pid(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    assert [text(tool(t, 'counter')) for _ in range(3)] == ['1', '2', '3']
    assert int(text(tool(t, 'pid'))) == pid
    assert status(t)['pid'] == supervisor_of(pid)


def test_threads_isolated(mcpfs_mount):
    m = mcpfs_mount({'a': fake(), 'demo': demo()})
    t1, t2 = thread(m, 'a', 't1'), thread(m, 'a', 't2')
    assert text(tool(t1, 'counter')) == '1'
    assert text(tool(t1, 'counter')) == '2'
    assert text(tool(t2, 'counter')) == '1'
    assert text(tool(t1, 'counter')) == '3'
    p1, p2 = int(text(tool(t1, 'pid'))), int(text(tool(t2, 'pid')))
    assert p1 != p2
    assert status(t1)['pid'] == supervisor_of(p1) and \
        status(t2)['pid'] == supervisor_of(p2)
    d1, d2 = thread(m, 'demo', 'x'), thread(m, 'demo', 'y')
    tool(d1, 'set', key='k', value='one')
    assert text(tool(d2, 'get', key='k')) != 'one'
    assert text(tool(d1, 'get', key='k')) == 'one'


class OneShotStdio:
    """Server `a` on stdio (the fake): a session is a process, its pid."""

    def __init__(self, mcpfs_mount, fake_http):
        self.m = mcpfs_mount({'a': fake(), 'demo': demo()})

    def call(self, word):
        a = self.m.path / 'a'
        assert text(tool(a, 'echo', text=word)) == word
        assert text(tool(a, 'counter')) == '1'             # no state kept
        assert text(tool(self.m.path / 'demo', 'incr')) == '1'
        return int(text(tool(a, 'pid')))

    def closed(self, pid):
        return pid_gone(pid) and not self.m.pids()

    def check(self, ids, words):
        pass


class OneShotHTTP:
    """Server `a` on Streamable HTTP (the fake): a session is an
    Mcp-Session-Id, closed by a DELETE."""

    def __init__(self, mcpfs_mount, fake_http):
        self.srv = fake_http()
        self.m = mcpfs_mount({'a': entry(self.srv)})

    def call(self, word):
        assert text(tool(self.m.path / 'a', 'echo', text=word)) == word
        return self.srv.sessions()[-1]

    def closed(self, sid):
        return any(sid_of(r) == sid for r in self.srv.requests('DELETE'))

    def check(self, sids, words):
        assert self.srv.sessions() == sids
        for sid, word in zip(sids, words):
            mine = [r for r in self.srv.mcp() if sid_of(r) == sid]
            # (their order: test_http's test_requests_wait_for_initialized)
            posts = {r['json']['method']: r['json'] for r in mine
                     if r['method'] == 'POST'}
            assert sorted(posts) == ['notifications/initialized',
                                     'tools/call']
            assert posts['tools/call']['params']['arguments'] == \
                {'text': word}
            seen = [(r['method'], r['status'],
                     (r['json'] or {}).get('method')) for r in mine]
            dels = [i for i, r in enumerate(mine) if r['method'] == 'DELETE']
            assert len(dels) == 1 and mine[dels[0]]['status'] == 200, seen
            # the fake logs a request when the thread of its connection
            # reads it: the GET stream, sent on a connection of its own
            # before the call, can be logged after the DELETE that ended
            # the session (seen once at load 20: a GET last). Nothing but
            # that GET may come after the DELETE (http.c opens no GET
            # stream once the session is closing).
            assert all(r['method'] == 'GET' for r in mine[dels[0] + 1:]), \
                seen


@pytest.mark.parametrize('side', [OneShotStdio, OneShotHTTP],
                         ids=['stdio', 'http'])
def test_server_level_call_is_one_shot(mcpfs_mount, fake_http, side):
    """SERVER/call (spec 3): each call runs on a session of its own, closed
    right after; no thread appears and none is left."""
    one = side(mcpfs_mount, fake_http)
    words = ('first', 'second', 'third')
    ids = [one.call(w) for w in words]
    assert len(set(ids)) == len(words), ids
    wait_until(lambda: all(one.closed(i) for i in ids), 7,
               'each one-shot session to close')
    one.check(ids, words)
    a = one.m.path / 'a'
    assert [d for d in os.listdir(a) if (a / d).is_dir()] == ['help']
    assert one.m.status()['sessions'] == 0


def test_unmount_leaves_no_process(mcpfs_mount):
    m = mcpfs_mount({'a': fake(), 'demo': demo()})
    for n in ('t1', 't2', 't3'):
        tool(thread(m, 'a', n), 'counter')
    tool(thread(m, 'demo', 'd'), 'incr')
    pids = m.pids()
    assert len(m.server_pids()) == 4 and len(pids) == 8
    m.unmount()  # asserts exit 0, no tagged process, no zombie
    assert all(pid_gone(p) for p in pids)


def test_server_level_transactions_and_concurrency(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    srv = m.path / 'a'
    fd = open_call(srv)
    pids = []
    for _ in range(2):
        send(fd, {'name': 'pid'})
        pids.append(int(text(recv(fd))))
    os.close(fd)
    fds = [open_call(srv) for _ in range(4)]
    for i, fd in enumerate(fds):
        send(fd, {'name': 'sleep', 'arguments': {'ms': 600 - 100 * i}})
    for i, fd in enumerate(fds):
        assert text(recv(fd)) == f'slept {600 - 100 * i}'
        os.close(fd)
    assert len(set(pids)) == 2
    wait_until(lambda: not m.pids(), 7, 'one-shot processes to end')


def test_read_with_nothing_sent_does_not_hang(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    for d in (t, m.path / 'a'):
        raw = read_file(d / 'call', 3)
        assert raw == b'' or json.loads(raw), raw


def test_call_after_rmdir_on_open_file(mcpfs_mount):
    # The directory is gone; an old descriptor must not reach a process.
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    tool(t, 'pid')
    fd = open_call(t)
    os.rmdir(t)
    wait_until(lambda: not m.pids(), 7, 'the process to end')
    try:
        send(fd, {'name': 'pid'})
    except OSError:
        pass
    else:
        assert 'error' in recv(fd, 5)
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    assert m.pids() == []
    assert text(tool(m.path / 'a', 'echo', text='ok')) == 'ok'


def test_big_reply(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    n = 3 * 1024 * 1024 + 17
    assert text(tool(t, 'big', bytes=n)) == 'x' * n
    assert text(tool(t, 'echo', text='after')) == 'after'


def test_structured_content(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    reply = tool(thread(m), 'structured')
    assert reply['structuredContent'] == {'a': 1, 'b': [1, 2]}
    assert json.loads(text(reply)) == {'a': 1, 'b': [1, 2]}


def test_call_before_handshake_waits(mcpfs_mount, tmp_path):
    # the server answers initialize only once the test opens its gate:
    # mkdir returns before that, a call written meanwhile waits for the
    # handshake and is answered after it
    gate = tmp_path / 'gate'
    m = mcpfs_mount({'a': fake('--start-gate', gate)})
    t = thread(m)                          # mkdir did not wait
    assert status(t)['state'] == 'starting'
    fd = open_call(t)
    send(fd, {'name': 'echo', 'arguments': {'text': 'early'}})
    assert status(t)['state'] == 'starting' and \
        status(t)['in_flight'] == 1
    gate.touch()
    assert text(recv(fd)) == 'early'
    assert status(t)['state'] == 'ready'
    os.close(fd)


# ---------------------------------------------------------------- multiplexing

def test_16_concurrent_open_files(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    tool(t, 'echo', text='warm')
    fds, want = [], []
    for i in range(16):
        fd = open_call(t)
        fds.append(fd)
        if i % 2 == 0:
            # sent first, answered last; the first one far last (6 s), so
            # that a test process starved for a second on a loaded machine
            # cannot read its reply before the others' (it did: 0.2 ms
            # after the 1,300 ms one, at load 30)
            ms = 6000 if i == 0 else 100 + (15 - i) * 80
            send(fd, {'name': 'sleep', 'arguments': {'ms': ms}})
            want.append(f'slept {ms}')
        else:
            send(fd, {'name': 'echo', 'arguments': {'text': f'echo-{i}'}})
            want.append(f'echo-{i}')
    assert status(t)['in_flight'] >= 1
    finished = {}

    def one(i):
        r = json.loads(read_all(fds[i]))
        finished[i] = time.monotonic()
        return text(r)

    def all_reads():
        with concurrent.futures.ThreadPoolExecutor(16) as ex:
            return list(ex.map(one, range(16)))
    got = run_with_deadline(all_reads, 20, '16 concurrent reads')
    for fd in fds:
        os.close(fd)
    assert got == want
    # no read waits behind another open file's call: every echo, and the
    # shortest sleep (100 ms), is read before the longest sleep (6 s)
    # ends (the order within 80 ms of each other is the scheduler's on a
    # loaded machine, not mcpfs's)
    assert max(finished[i] for i in (*range(1, 16, 2), 14)) < finished[0]
    assert status(t)['in_flight'] == 0


def test_write_returns_at_once(mcpfs_mount):
    # the write returns while its call runs (a minute): the call is in
    # flight then, and the reply is read later (here, that of the cancel)
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    tool(t, 'echo', text='warm')
    fd = open_call(t)
    send(fd, {'name': 'sleep', 'arguments': {'ms': 60000}})
    assert status(t)['in_flight'] == 1
    write_file(t / 'ctl', 'cancel\n')
    assert 'cancel' in error_text(recv(fd)).lower()
    os.close(fd)


def test_one_byte_writes(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    req = json.dumps({'name': 'echo',
                      'arguments': {'text': 'byte by byte \u00e9\u65e5'}},
                     ensure_ascii=False).encode()
    fd = open_call(t)

    def dribble():
        for i in range(len(req)):
            assert os.write(fd, req[i:i + 1]) == 1
    run_with_deadline(dribble, 10, 'one-byte writes')
    assert text(recv(fd)) == 'byte by byte \u00e9\u65e5'
    os.close(fd)


def sh_ok(cwd, script):
    """Run script with sh in cwd; it must succeed: its stdout (bytes)."""
    r = subprocess.run(['sh', '-c', script], cwd=cwd, capture_output=True,
                       timeout=20)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_shell_echo_then_cat(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    out = sh_ok(t, 'echo \'{"name":"echo","arguments":{"text":"from sh"}}\''
                ' > call; cat call')
    assert text(json.loads(out)) == 'from sh'
    # and at the server level, one-shot
    out = sh_ok(m.path / 'a', 'echo \'{"name":"counter"}\' > call; cat call')
    assert text(json.loads(out)) == '1'


def test_latest_reply_for_reader_that_sent_nothing(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    first = call_raw(t, {'name': 'echo', 'arguments': {'text': 'latest'}})
    assert read_file(t / 'call') == first
    assert read_file(t / 'call') == first   # not consumed


def test_latest_waits_for_most_recently_sent(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    # the most recently sent call finishes first ...
    f1 = open_call(t)
    send(f1, {'name': 'sleep', 'arguments': {'ms': 1200}})
    f2 = open_call(t)
    send(f2, {'name': 'sleep', 'arguments': {'ms': 400}})
    assert text(json.loads(read_file(t / 'call'))) == 'slept 400'
    # ... or last: a fresh reader waits for it, not for the first to end
    f3 = open_call(t)
    send(f3, {'name': 'sleep', 'arguments': {'ms': 1000}})
    assert text(json.loads(read_file(t / 'call'))) == 'slept 1000'
    assert text(recv(f1)) == 'slept 1200'
    assert text(recv(f2)) == 'slept 400'
    assert text(recv(f3)) == 'slept 1000'
    for fd in (f1, f2, f3):
        os.close(fd)


def test_several_transactions_on_one_open_file(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    fd = open_call(t)
    for i in range(4):
        send(fd, {'name': 'echo', 'arguments': {'text': f'tx{i}'}})
        assert text(recv(fd)) == f'tx{i}'
    send(fd, {'name': 'counter'})
    assert text(recv(fd)) == '1'
    os.close(fd)


def test_open_with_trunc(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    fd = open_call(t, os.O_RDWR | os.O_TRUNC)
    send(fd, {'name': 'echo', 'arguments': {'text': 'trunc'}})
    assert text(recv(fd)) == 'trunc'
    os.close(fd)
    fd = open_call(t, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    send(fd, {'name': 'echo', 'arguments': {'text': 'shell-like'}})
    os.close(fd)
    assert text(json.loads(read_file(t / 'call'))) == 'shell-like'


def test_close_does_not_cancel(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    fd = open_call(t)
    send(fd, {'name': 'sleep', 'arguments': {'ms': 800}})
    os.close(fd)
    t0 = time.monotonic()
    assert text(json.loads(read_file(t / 'call'))) == 'slept 800'
    assert time.monotonic() - t0 >= 0.3   # the read waited for it
    assert cancelled_ids(t) == []


def test_head_closes_early(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    out = sh_ok(t, 'echo \'{"name":"big","arguments":{"bytes":300000}}\''
                ' > call; head -c 10 call')
    assert len(out) == 10 and out.startswith(b'{')
    assert text(tool(t, 'echo', text='still here')) == 'still here'
    pid = status(t)['pid']
    fd = os.open(t / 'call', os.O_RDONLY)
    assert len(os.read(fd, 5)) == 5
    os.close(fd)
    assert text(tool(t, 'counter')) == '1'
    assert status(t)['pid'] == pid


# ---------------------------------------------------------------- bad requests

def expect_write_errno(t, data, want):
    fd = open_call(t)
    try:
        with pytest.raises(OSError) as e:
            run_with_deadline(lambda: write_all(fd, data), 10, 'write')
        assert e.value.errno == want, (data[:60], e.value)
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


@pytest.mark.parametrize('data', [b'{"name": x', b'{"name":"echo"}}',
                                  b'{"name":"echo",,}', b'\xff\xfe',
                                  b'{"name":"\xc3\x28"}', b'}'])
def test_malformed_json_einval(mcpfs_mount, data):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    expect_write_errno(t, data, errno.EINVAL)
    assert text(tool(t, 'echo', text='fine')) == 'fine'
    assert int(text(tool(t, 'pid'))) == pid


@pytest.mark.parametrize('data', [b'[1, 2]', b'"echo"', b'null', b'true',
                                  b'{"foo": 1}', b'{"name": 5}',
                                  b'{"method": 7}'])
def test_request_not_a_request_einval(mcpfs_mount, data):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    expect_write_errno(t, data, errno.EINVAL)
    assert text(tool(t, 'echo', text='fine')) == 'fine'


def test_two_values_in_one_request_einval(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    expect_write_errno(t, b'{"name":"echo"} {"name":"echo"}', errno.EINVAL)
    assert text(tool(t, 'echo', text='fine')) == 'fine'


@pytest.mark.parametrize('req', [
    {'method': 'initialize', 'params': {}},
    {'method': 'notifications/initialized'},
    {'method': 'notifications/cancelled', 'params': {'requestId': 1}},
    {'method': 'notifications/roots/list_changed'},
])
def test_initialize_and_notifications_einval(mcpfs_mount, req):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    expect_write_errno(t, json.dumps(req).encode(), errno.EINVAL)
    expect_write_errno(m.path / 'a', json.dumps(req).encode(), errno.EINVAL)
    assert text(tool(t, 'echo', text='fine')) == 'fine'


def test_request_over_16mib_efbig(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    fd = open_call(t)
    chunk = b'x' * (1 << 20)

    def flood():
        write_all(fd, b'{"name":"echo","arguments":{"text":"')
        total = 0
        while total < 20 << 20:
            total += os.write(fd, chunk)
        return total
    try:
        # a writer that retries short writes (cat, write_all) must see
        # EFBIG, not some later error
        with pytest.raises(OSError) as e:
            run_with_deadline(flood, 30, 'writing 20 MiB')
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    assert e.value.errno == errno.EFBIG
    assert text(tool(t, 'echo', text='fine')) == 'fine'


def test_incomplete_request_close_einval(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    fd = open_call(t)
    send(fd, b'{"name": "echo", "argu')
    with pytest.raises(OSError) as e:
        os.close(fd)
    assert e.value.errno == errno.EINVAL
    # nothing reached the server, and the thread says why
    st = status(t)
    assert (st['calls'], st['in_flight']) == (0, 0), st
    assert 'incomplete' in st['last_error'], st
    assert text(tool(t, 'echo', text='fine')) == 'fine'


def test_unknown_tool_is_jsonrpc_error(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    reply = tool(t, 'no_such_tool')
    assert set(reply) == {'error'}
    assert reply['error']['code'] == -32602
    assert 'Unknown tool' in reply['error']['message']
    assert status(t)['state'] == 'ready'
    assert int(text(tool(t, 'pid'))) == pid
    reply = tool(m.path / 'a', 'no_such_tool')
    assert reply['error']['code'] == -32602


def test_is_error_result(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    reply = tool(t, 'fail')
    assert reply['isError'] is True
    assert text(reply) == 'tool failed'
    assert int(text(tool(t, 'pid'))) == pid


def test_method_tools_list(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    for where in (t, m.path / 'a'):
        reply = call(where, {'method': 'tools/list'})
        assert 'echo' in [x['name'] for x in reply['tools']]
        reply = call(where, {'method': 'tools/list', 'params': {}})
        assert 'echo' in [x['name'] for x in reply['tools']]


def test_method_ping(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert call(t, {'method': 'ping'}) == {}
    assert call(t, {'method': 'ping', 'params': {}}) == {}


def test_unknown_method_is_jsonrpc_error(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    reply = call(t, {'method': 'no/such', 'params': {}})
    assert reply['error']['code'] == -32601


# ---------------------------------------------------------------- tools.json

def tool_names(raw):
    doc = json.loads(raw)
    # tools.json is the tools/list result with every page merged
    assert isinstance(doc, dict) and 'nextCursor' not in doc, raw[:200]
    return [x['name'] for x in doc['tools']]


@pytest.mark.parametrize('level', ['server', 'thread'])
def test_tools_json_all_pages(mcpfs_mount, level):
    m = mcpfs_mount({'a': fake('--tools', 30, '--page-size', 7)})
    d = m.path / 'a' if level == 'server' else thread(m)
    names = tool_names(read_file(d / 'tools.json', 20))
    assert len(names) == len(set(names))
    assert {f't{i}' for i in range(30)} <= set(names)
    assert {'echo', 'counter', 'hang', 'crash'} <= set(names)
    assert tool_names(read_file(d / 'tools.json', 20)) == names


def test_server_tools_json_process_is_short_lived(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    assert 'echo' in tool_names(read_file(m.path / 'a' / 'tools.json', 20))
    wait_until(lambda: not m.pids(), 7, 'the tools.json process to end')
    assert set(os.listdir(m.path / 'a')) == {'call', 'help', 'tools.json'}
    # cached: a second read does not start anything new and still works
    assert 'echo' in tool_names(read_file(m.path / 'a' / 'tools.json', 5))


# ---------------------------------------------------------------- stderr, events

def test_stderr_file(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--stderr-lines', 5)})
    t = thread(m)
    wait_until(lambda: b'stderr line 4\n' in read_file(t / 'stderr'), 5,
               'stderr lines')
    data = read_file(t / 'stderr').decode()
    assert all(f'stderr line {i}\n' in data for i in range(5))


def test_stderr_keeps_last_64k(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--stderr-lines', 10000)})
    t = thread(m)
    wait_until(lambda: b'stderr line 9999\n' in read_file(t / 'stderr'), 5,
               'the last stderr line')
    data = read_file(t / 'stderr')
    assert len(data) <= 64 * 1024
    assert len(data) >= 60 * 1024
    assert data.endswith(b'stderr line 9999\n')
    assert b'stderr line 10\n' not in data


def events_lines(t):
    raw = read_file(t / 'events', 5)
    return [json.loads(line) for line in raw.splitlines() if line.strip()]


def test_events_log_notifications(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    tool(t, 'echo', text='start')
    before = read_file(t / 'events', 30)  # reads never block: a hang fails
    size0 = os.stat(t / 'events').st_size
    assert text(tool(t, 'log', level='info', data='hello-events')) == 'logged'
    wait_until(lambda: os.stat(t / 'events').st_size > size0, 3,
               'events to grow')
    evs = events_lines(t)
    msgs = [e for e in evs if 'hello-events' in json.dumps(e)]
    assert msgs, evs
    assert 'notifications/message' in json.dumps(msgs[0])
    size1 = os.stat(t / 'events').st_size
    tool(t, 'log', level='warning', data={'n': 2})
    wait_until(lambda: os.stat(t / 'events').st_size > size1, 3,
               'events to grow again')
    raw = read_file(t / 'events')
    assert raw.startswith(before) and raw.endswith(b'\n')
    assert len(raw) == os.stat(t / 'events').st_size
    # reading from an offset returns the tail (tail -f)
    fd = os.open(t / 'events', os.O_RDONLY)
    assert os.pread(fd, 100000, size1) == raw[size1:]
    os.close(fd)


def test_events_keeps_last_mib(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    for i in range(5):
        tool(t, 'log', level='info', data=f'big-{i}-' + 'y' * 300000)
    wait_until(lambda: os.stat(t / 'events').st_size > 1500000, 3,
               'events to pass 1.5 MB')
    size = os.stat(t / 'events').st_size
    raw = read_file(t / 'events')
    # cat events: the last MiB, each byte once (what stands for the
    # discarded start, if anything, is left open: NUL or newline filler)
    kept = raw.lstrip(b'\0\n')
    assert len(kept) <= 1024 * 1024, len(kept)
    assert kept.endswith(b'\n') and b'big-0-' not in kept
    assert kept.count(b'big-4-') == 1 and kept.count(b'big-3-') == 1
    fd = os.open(t / 'events', os.O_RDONLY)
    tail = os.pread(fd, 1 << 20, size - 1000)
    os.close(fd)
    assert tail == raw[-1000:]


def test_events_list_changed(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert text(tool(t, 'list_changed')) == 'ok'
    wait_until(lambda: b'list_changed' in read_file(t / 'events'), 3,
               'list_changed in events')


# ---------------------------------------------------------------- ctl

def test_ctl_restart(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    p1 = int(text(tool(t, 'pid')))
    assert text(tool(t, 'counter')) == '1'
    g1 = status(t)['generation']
    write_file(t / 'ctl', 'restart\n')
    wait_until(lambda: pid_gone(p1), 7, 'the old process to end')
    p2 = int(text(tool(t, 'pid')))
    assert p2 != p1
    assert status(t)['generation'] == g1 + 1
    assert status(t)['pid'] == supervisor_of(p2)
    assert text(tool(t, 'counter')) == '1'


def ctl_on_a_hung_call(mcpfs_mount, verb):
    """Write verb to ctl of a thread while a call hangs on it; returns
    (thread, its server's pid before, the hung call's reply)."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    fd = open_call(t)
    send(fd, {'name': 'hang'})
    wait_until(lambda: status(t)['in_flight'] == 1, 5, 'the call in flight')
    write_file(t / 'ctl', verb)
    try:
        return t, pid, recv(fd, 5)
    finally:
        os.close(fd)


def test_ctl_restart_fails_calls_in_flight(mcpfs_mount):
    t, p1, reply = ctl_on_a_hung_call(mcpfs_mount, 'restart')
    assert 'error' in reply
    assert int(text(tool(t, 'pid'))) != p1


def test_ctl_close(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    write_file(t / 'ctl', 'close')
    wait_until(lambda: not t.exists(), 5, 'the directory to go')
    assert 't' not in os.listdir(m.path / 'a')
    wait_until(lambda: pid_gone(pid), 7, 'the process to end')
    os.mkdir(t)   # the name is free again
    assert int(text(tool(t, 'pid'))) != pid


def test_ctl_cancel(mcpfs_mount):
    t, pid, reply = ctl_on_a_hung_call(mcpfs_mount, 'cancel\n')
    assert 'cancel' in error_text(reply).lower()
    assert status(t)['in_flight'] == 0
    wait_until(lambda: len(cancelled_ids(t)) == 1, 3,
               'notifications/cancelled at the server')
    assert int(text(tool(t, 'pid'))) == pid


def test_ctrl_c_cat_cancels(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    p = subprocess.Popen(['sh', '-c', 'echo \'{"name":"hang"}\' > call;'
                          ' exec cat call'], cwd=t, start_new_session=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: status(t)['in_flight'] == 1, 30, 'hang in flight')
        wait_blocked(p.pid)
        os.killpg(p.pid, signal.SIGINT)
        # the call never ends by itself: cat ends only by the signal (the
        # deadline only turns a hang into a failure, it times nothing)
        p.wait(60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    wait_until(lambda: len(cancelled_ids(t)) == 1, 30,
               'notifications/cancelled at the server')
    assert int(text(tool(t, 'pid'))) == pid
    assert text(tool(t, 'echo', text='alive')) == 'alive'


def test_interrupted_read_fails_eintr(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    interrupted_read(t / 'call', '{"name": "hang"}',
                     lambda: status(t)['in_flight'] == 1, 5)
    wait_until(lambda: len(cancelled_ids(t)) == 1, 3,
               'notifications/cancelled at the server')
    assert int(text(tool(t, 'pid'))) == pid
