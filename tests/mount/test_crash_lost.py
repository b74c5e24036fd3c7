"""A thread's state dies with its process, and that is never silent (spec
5): a process killed between two calls fails the next call on the thread
once, by any door (call, tools/X, a serve client's tools/call), with
-32002 naming the exit and saying that the server's state is gone; the
call after goes to a fresh process (generation + 1). status.lost keeps
when, which generation and why. `ctl restart` and a server entry with
"restart": "silent" report nothing. And spec 12: status.last_call_error
names the last call that failed (a JSON-RPC error, or isError), and
last_error after a failed call is that failure.

The kill is what a user (or the OOM killer) does: SIGKILL to status.pid
(the server's supervisor, which takes the server with it)."""

import json
import os
import re
import signal
import subprocess
from datetime import datetime, timezone

import pytest

from conftest import (MCPFS, call, demo, fake, read_file, run_with_deadline,
                      shapes, status, thread, wait_ready, wait_state,
                      wait_until, write_file)
from test_real_playwright import (PAGE_RGB, _missing, colour_fraction,
                                  page_url, playwright, screenshot_png)

assert page_url  # a fixture, used by name below

STAMP = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$')
INCR = '''echo '{"name":"incr","arguments":{}}' > call; cat call; echo\n'''


def sh(script, cwd, timeout=30):
    r = run_with_deadline(lambda: subprocess.run(
        ['bash', '-c', script], cwd=cwd, capture_output=True, text=True,
        timeout=timeout), timeout + 5, script[:60])
    assert r.stderr == '', r.stderr
    return r.stdout


def replies(script, cwd):
    """Each line of what script printed, as JSON."""
    return [json.loads(x) for x in sh(script, cwd).splitlines() if x]


def text(reply):
    assert 'content' in reply, reply
    return reply['content'][0]['text']


def in_time(stamp, before):
    """stamp (status's time format) is no earlier than before (a second
    granted for its truncation) and not in the future."""
    assert STAMP.match(stamp), stamp
    t = datetime.strptime(stamp, '%Y-%m-%dT%H:%M:%SZ').replace(
        tzinfo=timezone.utc).timestamp()
    return before - 1 <= t <= datetime.now(timezone.utc).timestamp()


def kill_server(t):
    """SIGKILL the process of thread t (status.pid) with no call in flight
    and wait until mcpfs has seen it go; returns the generation killed."""
    st = wait_ready(t)
    assert st['in_flight'] == 0 and st['pid'], st
    os.kill(st['pid'], signal.SIGKILL)
    wait_state(t, 'exited')
    return st['generation']


def assert_lost(reply, gen):
    """reply is the one error that reports generation gen's loss."""
    e = reply.get('error')
    assert e and e['code'] == -32002, reply
    assert 'signal 9' in e['message'], e
    assert "the server's state is gone" in e['message'], e
    assert f'generation {gen}' in e['message'], e
    assert e['data']['signal'] == 9, e


# ---------------------------------------------------------------- the loss

def test_a_kill_between_calls_fails_the_next_call_once(mcpfs_mount):
    m = mcpfs_mount({'d': demo()})
    t = thread(m, 'd', 't1')
    assert [text(r) for r in replies(INCR + INCR, t)] == ['1', '2']
    assert status(t)['lost'] is None
    before = datetime.now(timezone.utc).timestamp()
    gen = kill_server(t)
    st = status(t)
    lost = st['lost']
    assert (lost['generation'], lost['pending']) == (gen, True), st
    assert 'signal 9' in lost['why'] and in_time(lost['at'], before), st
    # the next call: the loss, once; it was not sent anywhere
    r, = replies(INCR, t)
    assert_lost(r, gen)
    st = status(t)
    assert (st['state'], st['generation']) == ('exited', gen), st
    assert st['lost']['pending'] is False, st
    # the call after: a fresh process, which counts from 1
    assert [text(r) for r in replies(INCR + INCR, t)] == ['1', '2']
    st = status(t)
    assert (st['state'], st['generation']) == ('ready', gen + 1), st
    assert st['lost']['generation'] == gen, st


def test_the_loss_reaches_tools_x_and_names_the_stderr_tail(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--stderr-lines', 2)})
    t = thread(m, 'a', 't1')
    tx = 'echo text=hi > tools/echo; cat tools/echo; echo\n'
    assert text(replies(tx, t)[0]) == 'hi'
    gen = kill_server(t)
    r, = replies(tx, t)
    assert_lost(r, gen)
    assert 'stderr line 1' in r['error']['data']['stderr'], r
    # the failed call is the latest reply of call too, and result/
    assert json.loads(read_file(t / 'call')) == r
    assert text(replies(tx, t)[0]) == 'hi'
    assert status(t)['generation'] == gen + 1


def test_a_listing_does_not_take_the_news(mcpfs_mount):
    """tools.json after the loss starts the fresh process, but the next
    call still reports the loss, once."""
    m = mcpfs_mount({'d': demo()})
    t = thread(m, 'd', 't1')
    assert text(replies(INCR, t)[0]) == '1'
    gen = kill_server(t)
    tools = json.loads(read_file(t / 'tools.json'))
    assert 'incr' in [x['name'] for x in tools['tools']]
    assert status(t)['generation'] == gen + 1
    assert status(t)['lost']['pending'] is True
    r, = replies(INCR, t)
    assert_lost(r, gen)
    assert [text(r) for r in replies(INCR + INCR, t)] == ['1', '2']
    assert status(t)['generation'] == gen + 1   # the listing's process


def test_a_resource_read_leaves_the_news_to_prompts_x(mcpfs_mount):
    """A read of resources/ is the tree's own request: it runs on the
    fresh process and leaves the news; prompts/X is a call, and hears
    it."""
    m = mcpfs_mount({'s': shapes()})
    t = thread(m, 's', 't1')
    px = 'echo name=x > prompts/greet; cat prompts/greet; echo\n'
    assert replies(px, t)[0]['messages'][0]['content']['text'] == 'hello x'
    gen = kill_server(t)
    assert read_file(t / 'resources' / 'shapes:%2F%2Fok') == b'fine'
    st = status(t)
    assert st['generation'] == gen + 1 and st['lost']['pending'], st
    r, = replies(px, t)
    assert_lost(r, gen)
    assert replies(px, t)[0]['messages'][0]['content']['text'] == 'hello x'


def test_a_call_in_flight_carries_the_news(mcpfs_mount):
    """A crash during a call fails that call (test_lifecycle): no second
    error for the next one; status.lost says so."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m, 'a', 't1')
    wait_ready(t)
    r, = replies('''echo '{"name":"crash","arguments":{"signal":9}}' '''
                 '> call; cat call; echo\n', t)
    assert r['error']['code'] == -32002 and 'signal 9' in \
        r['error']['message'], r
    st = status(t)
    assert (st['lost']['generation'], st['lost']['pending']) == (1, False)
    r, = replies('''echo '{"name":"counter"}' > call; cat call; echo\n''', t)
    assert text(r) == '1'


def test_ctl_restart_is_asked_for(mcpfs_mount):
    m = mcpfs_mount({'d': demo()})
    t = thread(m, 'd', 't1')
    assert [text(r) for r in replies(INCR + INCR, t)] == ['1', '2']
    gen = wait_ready(t)['generation']
    sh('echo restart > ctl', t)
    wait_until(lambda: status(t)['generation'] == gen + 1, 10, 'restart')
    assert text(replies(INCR, t)[0]) == '1'
    assert status(t)['lost'] is None
    # a loss already pending is forgotten by a restart the user asks for
    gen = kill_server(t)
    sh('echo restart > ctl', t)
    assert text(replies(INCR, t)[0]) == '1'
    st = status(t)
    assert st['generation'] == gen + 1 and st['lost']['pending'] is False


def test_restart_silent_keeps_the_old_way(mcpfs_mount):
    m = mcpfs_mount({'d': dict(demo(), restart='silent')})
    t = thread(m, 'd', 't1')
    assert [text(r) for r in replies(INCR + INCR, t)] == ['1', '2']
    gen = kill_server(t)
    assert status(t)['lost']['pending'] is False
    assert text(replies(INCR, t)[0]) == '1'
    assert status(t)['generation'] == gen + 1
    assert not [w for w in m.status()['warnings'] if 'restart' in w]


def test_restart_value_unknown_is_a_warning(mcpfs_mount):
    m = mcpfs_mount({'d': dict(demo(), restart='sometimes')})
    warns = ' '.join(m.status()['warnings'])
    assert 'restart' in warns and 'sometimes' in warns, warns
    t = thread(m, 'd', 't1')
    assert text(replies(INCR, t)[0]) == '1'
    gen = kill_server(t)          # reported, the default
    assert_lost(replies(INCR, t)[0], gen)


# ---------------------------------------------------------------- serve

class Serve:
    """A raw JSON-RPC client of `mcpfs serve --thread NAME MOUNT`."""

    def __init__(self, m, name):
        self.p = subprocess.Popen(
            [str(MCPFS), 'serve', '--thread', name, str(m.path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.id = 0
        r = self.ask('initialize', {
            'protocolVersion': '2025-11-25', 'capabilities': {},
            'clientInfo': {'name': 'test_crash_lost', 'version': '0'}})
        assert r['result']['serverInfo']['name'] == 'mcpfs', r
        self.p.stdin.write(json.dumps({
            'jsonrpc': '2.0', 'method': 'notifications/initialized'}) + '\n')
        self.p.stdin.flush()

    def ask(self, method, params):
        self.id += 1
        self.p.stdin.write(json.dumps({'jsonrpc': '2.0', 'id': self.id,
                                       'method': method,
                                       'params': params}) + '\n')
        self.p.stdin.flush()
        while True:
            line = run_with_deadline(self.p.stdout.readline, 30,
                                     'a line from mcpfs serve')
            assert line, 'mcpfs serve ended'
            msg = json.loads(line)
            if msg.get('id') == self.id and 'method' not in msg:
                return msg

    def call(self, name, **args):
        return self.ask('tools/call', {'name': name, 'arguments': args})

    def close(self):
        self.p.stdin.close()
        assert self.p.wait(30) == 0
        self.p.stdout.close()


def test_the_loss_reaches_a_serve_client(mcpfs_mount):
    m = mcpfs_mount({'d': demo()})
    c = Serve(m, 'agent')
    try:
        for n in ('1', '2'):
            assert text(c.call('d__incr')['result']) == n
        gen = kill_server(m.path / 'd' / 'agent')
        r = c.call('d__incr')
        assert 'result' not in r, r
        assert_lost(r, gen)
        assert text(c.call('d__incr')['result']) == '1'
        # the shell shares the thread: it saw the same, once
        t = m.path / 'd' / 'agent'
        assert status(t)['generation'] == gen + 1
        assert text(replies(INCR, t)[0]) == '2'
    finally:
        c.close()


# ---------------------------------------------------------------- spec 12

def test_last_call_error_and_last_error(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m, 'a', 't1')
    wait_ready(t)
    st = status(t)
    assert st['last_call_error'] is None and st['last_call_error_at'] is None
    # an older, unrelated failure
    subprocess.run(['bash', '-c', 'echo explode > ctl'], cwd=t,
                   capture_output=True)
    assert 'unknown verb' in status(t)['last_error']
    # a JSON-RPC error from the server
    before = datetime.now(timezone.utc).timestamp()
    r, = replies('''echo '{"name":"nosuch"}' > call; cat call; echo\n''', t)
    assert r['error']['code'] == -32602, r
    st = status(t)
    e = st['last_call_error']
    assert e['tool'] == 'nosuch' and e['code'] == -32602, st
    assert e['message'] == 'Unknown tool: nosuch' and e['id'] >= 1, st
    assert e['method'] == 'tools/call', st
    assert in_time(st['last_call_error_at'], before), st
    assert 'Unknown tool: nosuch' in st['last_error'], st
    assert 'nosuch' in st['last_error'] and \
        st['last_error_at'] == st['last_call_error_at'], st
    # a result with isError: true
    r, = replies('''echo '{"name":"fail"}' > call; cat call; echo\n''', t)
    assert r['isError'] is True, r
    st = status(t)
    e = st['last_call_error']
    assert e['tool'] == 'fail' and e['isError'] is True, st
    assert e['message'] == r['content'][0]['text'], (e, r)
    assert e['id'] > 1 and 'code' not in e, st
    assert r['content'][0]['text'] in st['last_error'], st
    # a call that succeeds changes neither
    r, = replies('''echo '{"name":"counter"}' > call; cat call; echo\n''', t)
    assert text(r) == '1'
    assert status(t)['last_call_error'] == e
    # a request of another method that fails
    r, = replies('''echo '{"method":"nope/nope"}' > call; cat call; echo\n''',
                 t)
    assert r['error']['code'] == -32601, r
    e = status(t)['last_call_error']
    assert (e['method'], e['tool'], e['code']) == ('nope/nope', None,
                                                   -32601), e


def test_the_loss_is_the_last_call_error(mcpfs_mount):
    m = mcpfs_mount({'d': demo()})
    t = thread(m, 'd', 't1')
    assert text(replies(INCR, t)[0]) == '1'
    gen = kill_server(t)
    r, = replies(INCR, t)
    assert_lost(r, gen)
    st = status(t)
    e = st['last_call_error']
    assert (e['tool'], e['code'], e['id']) == ('incr', -32002, None), st
    assert e['message'] == r['error']['message'], st
    assert r['error']['message'] in st['last_error'], st


def test_a_refused_request_is_a_call_error(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m, 'a', 't1')
    try:
        write_file(t / 'call', '{"name": 1}')
    except OSError:
        pass
    st = status(t)
    assert st['last_error'].startswith('request refused'), st
    e = st['last_call_error']
    assert e['message'] == st['last_error'] and e['code'] == -32600, st


# ---------------------------------------------------------------- a browser

def test_a_browser_killed_between_calls(mcpfs_mount, tmp_path, page_url):
    """The case that shows why (issue 48): a screenshot after the browser
    server was killed showed about:blank, with no error. The call after
    the kill fails with the loss instead; the one after runs a fresh
    browser, which shows no page."""
    if _missing():
        pytest.skip(_missing())
    m = mcpfs_mount({'pw': playwright(tmp_path / 'out')})
    t = thread(m, 'pw', 'a')
    nav = call(t, {'name': 'browser_navigate',
                   'arguments': {'url': page_url}}, timeout=60)
    assert nav.get('isError') is not True and page_url in text(nav), nav
    gen = kill_server(t)
    shot = call(t, {'name': 'browser_take_screenshot', 'arguments': {}},
                timeout=60)
    assert 'content' not in shot, str(shot)[:300]
    assert_lost(shot, gen)
    shot = call(t, {'name': 'browser_take_screenshot', 'arguments': {}},
                timeout=60)
    assert colour_fraction(screenshot_png(shot), PAGE_RGB) < 0.5
    assert status(t)['generation'] == gen + 1
