"""Resource subscriptions through ctl (spec 15): `subscribe URI` sends
resources/subscribe to a server that offers it (EOPNOTSUPP otherwise),
status.subscriptions lists them, a restart renews them, `unsubscribe URI`
ends one, and the server's updates are lines in events."""
import errno
import json
import os
import select
import subprocess
import threading
import time


from conftest import (events, everything, fake, needs_everything, status,
                      text, thread, tool, wait_until)


def sh(cmd, cwd):
    r = subprocess.run(['bash', '-c', cmd], cwd=cwd, capture_output=True,
                       text=True, timeout=30)
    return r.stdout, r.stderr


def seen(log, method):
    """The requests of method the fake logged (--log), in order."""
    if not log.exists():
        return []
    return [j for j in map(json.loads, log.read_text().splitlines())
            if j.get('method') == method]


def subscribable(log, *more):
    return fake('--resources', 2, '--declare', 'resources.subscribe',
                '--log', log, *more)


def test_subscribe_and_unsubscribe_from_the_shell(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'a': subscribable(log)})
    t = thread(m)
    tool(t, 'pid')
    out, err = sh('echo "subscribe fake://r/0" > ctl; echo rc=$?', t)
    assert out == 'rc=0\n', err
    assert status(t)['subscriptions'] == ['fake://r/0']
    wait_until(lambda: seen(log, 'resources/subscribe'), 10,
               'resources/subscribe')
    assert [r['params'] for r in seen(log, 'resources/subscribe')] == \
        [{'uri': 'fake://r/0'}]
    # twice is once
    sh('echo "subscribe fake://r/0" > ctl', t)
    assert status(t)['subscriptions'] == ['fake://r/0']
    out, err = sh('echo "unsubscribe fake://r/0" > ctl; echo rc=$?', t)
    assert out == 'rc=0\n', err
    assert status(t)['subscriptions'] == []
    wait_until(lambda: seen(log, 'resources/unsubscribe'), 10,
               'resources/unsubscribe')
    # not subscribed: ENOENT
    out, err = sh('echo "unsubscribe fake://r/0" > ctl; echo rc=$?', t)
    assert out == 'rc=1\n' and 'No such file' in err, (out, err)


def test_a_restart_renews_them(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'a': subscribable(log)})
    t = thread(m)
    # before the handshake is done: kept, and sent once ready
    with open(t / 'ctl', 'w') as f:
        f.write('subscribe fake://r/1\n')
    with open(t / 'ctl', 'w') as f:
        f.write('subscribe fake://r/0\n')
    pid = int(text(tool(t, 'pid')))
    wait_until(lambda: len(seen(log, 'resources/subscribe')) == 2, 10,
               'two subscriptions sent')
    sh('echo restart > ctl', t)
    assert int(text(tool(t, 'pid'))) != pid
    wait_until(lambda: len(seen(log, 'resources/subscribe')) == 4, 10,
               'the subscriptions renewed')
    assert [r['params']['uri'] for r in seen(log, 'resources/subscribe')] \
        == ['fake://r/1', 'fake://r/0'] * 2
    assert status(t)['subscriptions'] == ['fake://r/1', 'fake://r/0']


def test_a_server_without_subscribe_is_eopnotsupp(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'a': fake('--resources', 2, '--log', log)})
    t = thread(m)
    tool(t, 'pid')
    out, err = sh('echo "subscribe fake://r/0" > ctl; echo rc=$?', t)
    assert out == 'rc=1\n' and 'not supported' in err, (out, err)
    assert status(t)['subscriptions'] == []
    assert seen(log, 'resources/subscribe') == []


def test_a_server_that_declares_it_and_refuses_loses_it(mcpfs_mount,
                                                        tmp_path):
    # the partial shape (spec 9): declared, answered -32601
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'a': subscribable(log, '--fail',
                                       'resources/subscribe')})
    t = thread(m)
    tool(t, 'pid')
    sh('echo "subscribe fake://r/0" > ctl', t)
    wait_until(lambda: status(t)['subscriptions'] == [], 10,
               'the refused subscription dropped')
    st = status(t)
    assert 'resources/subscribe of fake://r/0 failed' in st['last_error']
    assert '-32601' in st['last_error'], st['last_error']
    assert st['state'] == 'ready'
    assert len(seen(log, 'resources/subscribe')) == 1


@needs_everything
def test_server_everything_updates_reach_events(mcpfs_mount):
    m = mcpfs_mount({'e': everything(timeout=30)})
    t = thread(m, 'e')
    uri = 'demo://resource/static/document/architecture.md'
    listed = json.loads((t / 'resources.json').read_bytes())
    uris = [r['uri'] for r in listed['resources']]
    if uri not in uris:
        uri = uris[0]
    out, err = sh(f'echo "subscribe {uri}" > ctl; echo rc=$?', t)
    assert out == 'rc=0\n', err
    assert status(t)['subscriptions'] == [uri]
    r = tool(t, 'toggle-subscriber-updates', timeout=30)
    assert r.get('isError') is not True, r

    def updated():
        return [e for e in events(t)
                if e.get('method') == 'notifications/resources/updated'
                and e['params'].get('uri') == uri]
    got = wait_until(updated, 30, f'an update of {uri} in events')
    assert got
    # tail -f events | grep updated: the shell idiom finds it too
    out, _ = sh('grep -c resources/updated events', t)
    assert int(out) >= 1
    tool(t, 'toggle-subscriber-updates', timeout=30)
    os.stat(t / 'events')


def blocked_in_poll(tid):
    """True once thread tid of this process sleeps in poll(2) (x86_64
    syscall 7, /proc/self/task/TID/syscall)."""
    with open(f'/proc/self/task/{tid}/syscall') as f:
        return f.read().split()[0] == '7'


def test_poll_on_events_wakes_when_a_line_comes(mcpfs_mount):
    """inotify cannot see FUSE files; poll(2) on events can: readable while
    there is more than this open file has read, and a poll that waits is
    woken by the next line (spec 15)."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    tool(t, 'log', data='first')
    fd = os.open(t / 'events', os.O_RDONLY)
    try:
        p = select.poll()
        p.register(fd, select.POLLIN)
        assert p.poll(0) == [(fd, select.POLLIN)]   # unread lines
        while os.read(fd, 65536):
            pass
        assert p.poll(300) == []                    # read up: it waits
        got = {}

        def wait():
            got['tid'] = threading.get_native_id()
            got['events'] = p.poll(30000)
        waiter = threading.Thread(target=wait)
        waiter.start()
        wait_until(lambda: 'tid' in got and blocked_in_poll(got['tid']), 10,
                   'the poll to sleep')
        tool(t, 'log', data='second')
        waiter.join(20)
        assert not waiter.is_alive(), 'poll(2) was not woken'
        assert got['events'] == [(fd, select.POLLIN)], got
        line = json.loads(os.read(fd, 65536))
        assert line['params']['data'] == 'second', line
        assert p.poll(300) == []
    finally:
        os.close(fd)


SUBS_MAX = 1024          # subscribe.c's cap on a thread's subscriptions


def test_20000_subscribes_stop_at_the_cap(mcpfs_mount, tmp_path):
    """A thread keeps at most SUBS_MAX subscriptions: the next subscribe
    is ENOSPC ("No space left on device", as inotify_add_watch past its
    limit), said in status.last_error; status stays small. The figures
    (the loop's time, the size of status) are printed, never asserted."""
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'a': subscribable(log)})
    t = thread(m)
    tool(t, 'pid')
    t0 = time.monotonic()
    r = subprocess.run(
        ['bash', '-c', 'for i in $(seq 20000); do '
         'echo "subscribe fake://r/$i" > ctl || { echo "stop=$i"; break; }; '
         'done'], cwd=t, capture_output=True, text=True, timeout=600)
    took = time.monotonic() - t0
    size = len((t / 'status').read_bytes())
    print(f'\n20000 subscribe lines: {took:.2f} s; status {size} bytes')
    assert f'stop={SUBS_MAX + 1}' in r.stdout, (r.stdout, r.stderr[-500:])
    assert 'No space left on device' in r.stderr, r.stderr[-500:]
    st = status(t)
    assert len(st['subscriptions']) == SUBS_MAX
    assert st['subscriptions'][0] == 'fake://r/1'
    assert f'fake://r/{SUBS_MAX + 1}' not in st['subscriptions']
    assert 'subscriptions' in st['last_error'] and \
        str(SUBS_MAX) in st['last_error'], st['last_error']
    assert size < 200 * 1024, size
    # one more of a URI already kept is no new one: still fine
    out, err = sh('echo "subscribe fake://r/5" > ctl; echo rc=$?', t)
    assert out == 'rc=0\n', err
    # an unsubscribe makes room for one
    out, err = sh('echo "unsubscribe fake://r/5" > ctl && '
                  'echo "subscribe fake://r/99999" > ctl; echo rc=$?', t)
    assert out == 'rc=0\n', err
    assert 'fake://r/99999' in status(t)['subscriptions']
    assert st['state'] == 'ready'


def test_a_uri_longer_than_one_write_is_einval(mcpfs_mount, tmp_path):
    """A subscribe line that comes in several writes (dd bs=100) is
    refused with EINVAL at the write that continues it: never cut to what
    the first write held and subscribed truncated."""
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'a': subscribable(log)})
    t = thread(m)
    tool(t, 'pid')
    uri = 'fake://r/' + 'x' * 10000
    out, err = sh(f'printf "subscribe {uri}\\n" | dd of=ctl bs=100 '
                  f'2>&1; echo rc=$?', t)
    assert 'Invalid argument' in out and out.endswith('rc=1\n'), out
    st = status(t)
    assert st['subscriptions'] == [], st['subscriptions'][:1]
    # in one write, a URI past the bound is EINVAL too, not cut
    out, err = sh(f'printf "subscribe {uri}\\n" > ctl; echo rc=$?', t)
    assert out == 'rc=1\n' and 'Invalid argument' in err, (out, err)
    assert status(t)['subscriptions'] == []
    assert seen(log, 'resources/subscribe') == []
    # the thread's ctl goes on: a short one is kept whole
    out, err = sh('printf "subscribe fake://r/0" > ctl; echo rc=$?', t)
    assert out == 'rc=0\n', err
    assert status(t)['subscriptions'] == ['fake://r/0']


def test_a_uri_with_control_characters_is_einval(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'a': subscribable(log)})
    t = thread(m)
    tool(t, 'pid')
    for bad in (b'subscribe fake://r/\x1b[2J\n', b'subscribe fake://\x7fr\n',
                b'subscribe fake://r/\xc2\x9b1m\n', b'subscribe  \n'):
        fd = os.open(t / 'ctl', os.O_WRONLY)
        try:
            try:
                os.write(fd, bad)
                raise AssertionError(f'{bad!r} was taken')
            except OSError as e:
                assert e.errno == errno.EINVAL, (bad, e)
        finally:
            os.close(fd)
    assert status(t)['subscriptions'] == []
    assert seen(log, 'resources/subscribe') == []


def test_kept_before_the_handshake_then_dropped_if_not_offered(mcpfs_mount,
                                                               tmp_path):
    """A subscribe written before the handshake is kept; a server whose
    capabilities then offer no subscriptions drops it, and says so in
    status.last_error (never sent: resources/subscribe to a server that
    does not offer it)."""
    log = tmp_path / 'fake.log'
    gate = tmp_path / 'gate'
    m = mcpfs_mount({'a': fake('--resources', 2, '--start-gate', gate,
                               '--log', log)})
    t = thread(m)
    out, err = sh('echo "subscribe fake://r/0" > ctl; '
                  'echo "subscribe fake://r/1" > ctl; echo rc=$?', t)
    assert out == 'rc=0\n', err
    st = status(t)
    assert st['state'] != 'ready', st['state']
    assert st['subscriptions'] == ['fake://r/0', 'fake://r/1']
    gate.touch()
    wait_until(lambda: status(t)['state'] == 'ready', 10, 'ready')
    st = status(t)
    assert st['subscriptions'] == []
    assert 'does not offer resource subscriptions: 2 dropped' in \
        st['last_error'], st['last_error']
    tool(t, 'pid')
    assert seen(log, 'resources/subscribe') == []
