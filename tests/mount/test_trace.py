"""trace (spec 15): a thread's JSON-RPC messages, both ways, one JSON line
each ({"at", "dir", "msg"}), in a window of the last 1 MiB of whole lines
read like events; no secret in it; -o notrace turns it off."""
import json
import os
import subprocess

import pytest

from conftest import fake, read_file, slacked, status, text, thread, tool
from test_auth import authserver, echo, mount  # noqa: F401 (a fixture)
from test_http import entry, fake_http  # noqa: F401 (a fixture)


def trace(t):
    """The trace's lines, each parsed (every one must be JSON)."""
    raw = read_file(t / 'trace')
    assert raw == b'' or raw.endswith(b'\n'), raw[-200:]
    return [json.loads(line) for line in raw.decode().splitlines()]


def messages(t, direction, pred):
    return [e['msg'] for e in trace(t)
            if e['dir'] == direction and 'msg' in e and pred(e['msg'])]


def test_a_call_and_its_reply_are_in_the_trace(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert text(tool(t, 'echo', text='traced')) == 'traced'
    out = messages(t, 'out', lambda j: j.get('method') == 'tools/call')
    assert len(out) == 1
    assert out[0]['params']['name'] == 'echo'
    assert out[0]['params']['arguments'] == {'text': 'traced'}
    back = messages(t, 'in', lambda j: j.get('id') == out[0]['id'])
    assert back[0]['result']['content'][0]['text'] == 'traced'
    # the handshake is there too (after the era probe), in order, each
    # line with its time
    entries = trace(t)
    methods = [e['msg'].get('method') for e in entries if 'msg' in e]
    assert methods[0] == 'server/discover'
    i = methods.index('initialize')
    assert methods[i + 1:i + 3] == [None, 'notifications/initialized']
    assert all(e['at'].endswith('Z') and e['dir'] in ('in', 'out')
               for e in entries)
    # its size is what a read gives (ls -l, tail -f)
    assert os.stat(t / 'trace').st_size == len(read_file(t / 'trace'))


def test_the_shell_reads_it_with_jq_like_tools(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    tool(t, 'echo', text='one')
    r = subprocess.run(
        ['sh', '-c', 'grep -c \'"dir":"out"\' trace; tail -n 1 trace'],
        cwd=t, capture_output=True, text=True, timeout=20)
    count, last = r.stdout.splitlines()
    assert int(count) >= 3
    assert json.loads(last)['msg']['result']['content'][0]['text'] == 'one'


def test_what_is_not_a_message_is_noted_not_copied(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--garbage')})
    t = thread(m)
    n = 100 * 1024
    assert len(text(tool(t, 'big', bytes=n))) == n
    notes = [e for e in trace(t) if 'msg' not in e]
    assert {'dir': 'in', 'bytes': len('this is not json'),
            'note': 'not JSON'}.items() <= notes[0].items()
    big = [e for e in notes if e['bytes'] > n]
    assert big and 'not kept' in big[0]['note']


def test_the_window_keeps_the_last_mib_of_whole_lines(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    for i in range(40):
        tool(t, 'echo', text=f'{i:03d}' + 'y' * 60000)
    size = os.stat(t / 'trace').st_size
    assert size > 4 * 1024 * 1024
    entries = trace(t)       # whole lines only: every one parses
    raw = read_file(t / 'trace')
    assert 1024 * 1024 - 200 * 1024 < len(raw) <= 1024 * 1024
    last = [e for e in entries if e['dir'] == 'in' and 'msg' in e][-1]
    assert last['msg']['result']['content'][0]['text'].startswith('039')


def test_notrace_turns_it_off(mcpfs_mount):
    m = mcpfs_mount({'a': fake()}, args=['-o', 'notrace'])
    t = thread(m)
    assert text(tool(t, 'echo', text='quiet')) == 'quiet'
    assert read_file(t / 'trace') == b''
    assert os.stat(t / 'trace').st_size == 0


def test_no_configured_header_reaches_the_trace(mcpfs_mount, fake_http):
    secret = 'hdr-secret-' + os.urandom(6).hex()
    srv = fake_http()
    m = mcpfs_mount({'h': entry(srv, headers={
        'Authorization': f'Bearer {secret}', 'X-Api-Key': secret})})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='via http')) == 'via http'
    raw = read_file(t / 'trace')
    assert b'"method":"tools/call"' in raw
    assert secret.encode() not in raw
    assert status(t)['state'] == 'ready'


def test_no_oauth_secret_reaches_the_trace(mcpfs_mount, authserver,
                                           tmp_path):
    secret = 'cc-secret-' + os.urandom(6).hex()
    srv = authserver('--client', f'cc-client:{secret}')
    m = mount(mcpfs_mount, tmp_path, srv,
              oauth={'grant': 'client_credentials', 'clientId': 'cc-client',
                     'clientSecret': secret})
    t = thread(m, 'h')
    echo(t, 'signed in')
    raw = read_file(t / 'trace')
    assert b'"method":"tools/call"' in raw
    for s in srv.secrets() | {secret}:
        assert s.encode() not in raw, s[:6]


def test_a_poll_waiting_on_the_trace_wakes_at_a_record(mcpfs_mount):
    """poll(2) on trace, read to its end, wakes when a message goes or
    comes (a `tail -f`-like loop). Records other than notes were added
    without waking a waiting poll: it slept until its own timeout."""
    import select
    import threading
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert text(tool(t, 'echo', text='one')) == 'one'
    fd = os.open(t / 'trace', os.O_RDONLY)
    try:
        while os.read(fd, 1 << 16):
            pass
        p = select.poll()
        p.register(fd, select.POLLIN)
        assert p.poll(0) == [], 'readable with nothing unread'
        got = []
        waiter = threading.Thread(
            target=lambda: got.append(p.poll(slacked(120) * 1000)),
            daemon=True)
        waiter.start()
        threading.Event().wait(0.3)     # let it block; no timing claim
        assert text(tool(t, 'echo', text='two')) == 'two'
        waiter.join(slacked(20))        # a hang detector
        assert got == [[(fd, select.POLLIN)]], 'the poll was not woken'

        new = trace_lines(os.read(fd, 1 << 16))
        assert [e['msg'].get('method') for e in new][:1] == ['tools/call']
    finally:
        os.close(fd)


def trace_lines(raw):
    return [json.loads(line) for line in raw.decode().splitlines()]
