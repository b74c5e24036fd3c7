"""Tasks on both eras (spec 15): a call the server runs as a task is
transparent to call and tools/X, and visible while it runs as tasks/ID.

2026-07-28 (the tasks extension, SEP-2663): tests/fake/mcp_modern.py's
`research` tool answers with {"resultType": "task"} when the request
declares the extension (else -32021), and serves tasks/get, tasks/update
and tasks/cancel. 2025-11-25 (SEP-1686): server-everything's
simulate-research-query, whose listing says taskSupport "required".
"""

import concurrent.futures
import json
import os
import subprocess

import pytest

from conftest import (call, events, everything, fake_factory, FakeProcess,
                      needs_everything, read_file, REPO, run_with_deadline,
                      status, text, thread, wait_until, write_file)

TASKS_EXT = 'io.modelcontextprotocol/tasks'
CAPS = 'io.modelcontextprotocol/clientCapabilities'


class ModernFake(FakeProcess):
    script = REPO / 'tests/fake/mcp_modern.py'

    def posts(self, method=None):
        return [r for r in self.log()
                if r['path'] == '/mcp' and r['method'] == 'POST' and
                (method is None or (r['json'] or {}).get('method') == method)]


@pytest.fixture
def modern_fake(tmp_path):
    yield from fake_factory(ModernFake, tmp_path)


@pytest.fixture
def modern(modern_fake, mcpfs_mount):
    """(mount, thread dir, fake) of a modern-era HTTP server."""
    srv = modern_fake()
    m = mcpfs_mount({'h': {'url': srv.url}})
    t = thread(m, 'h')
    wait_until(lambda: status(t)['state'] == 'ready', 30, 'ready')
    return m, t, srv


def research(**args):
    return {'name': 'research', 'arguments': {'topic': 'fs', **args}}


def shell_call(t, req):
    """`echo REQ > call; cat call` in sh, started: the Popen."""
    return subprocess.Popen(
        ['sh', '-c', f"echo '{json.dumps(req)}' > call; cat call"], cwd=t,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(sh, timeout=30):
    out, err = run_with_deadline(lambda: sh.communicate(timeout=timeout),
                                 timeout + 10, 'the call to end')
    assert sh.returncode == 0, err
    return json.loads(out)


def one_task(t):
    """The name of the one task in tasks/, once there is one."""
    names = wait_until(lambda: os.listdir(t / 'tasks'), 30,
                       'a task in tasks/')
    assert len(names) == 1, names
    return names[0]


def test_modern_task_is_transparent_and_listed_while_it_runs(modern):
    m, t, srv = modern
    assert os.listdir(t / 'tasks') == []
    sh = shell_call(t, research(steps=8, ms=150))
    try:
        name = one_task(t)
        st = json.loads(read_file(t / 'tasks' / name))
        assert st['taskId'] == name and st['status'] == 'working', st
        assert 'result' not in st and 'resultType' not in st, st
        # updated as it goes: a later step shows in the file
        wait_until(lambda: 'step 3 of 8' <= json.loads(read_file(
            t / 'tasks' / name)).get('statusMessage', ''), 30,
            'tasks/ID updated by the polls')
        reply = finish(sh)
    finally:
        if sh.poll() is None:
            sh.kill()
    assert text(reply) == 'researched fs in 8 steps', reply
    assert 'taskId' not in reply and reply.get('resultType') != 'task'
    assert os.listdir(t / 'tasks') == []      # gone once it ended
    # the wire: one tools/call declaring the extension, then tasks/get
    # polls routed by Mcp-Name = the task id (SEP-2663)
    calls = srv.posts('tools/call')
    assert len(calls) == 1, calls
    meta = calls[0]['json']['params']['_meta']
    assert meta[CAPS]['extensions'][TASKS_EXT] == {}, meta
    gets = srv.posts('tasks/get')
    assert len(gets) >= 2, gets
    for g in gets:
        assert g['json']['params']['taskId'] == name, g['json']
        assert g['headers'].get('mcp-name') == name, g['headers']
        assert g['headers'].get('mcp-method') == 'tasks/get'
        assert g['status'] == 200, g
    # and the same through the tool's file
    write_file(t / 'tools' / 'research', b'{"topic": "bash", "steps": 1}')
    assert text(json.loads(read_file(t / 'tools' / 'research',
                                     timeout=30))) == \
        'researched bash in 1 steps'
    assert os.listdir(t / 'tasks') == []


def test_a_reused_task_id_is_one_entry(modern):
    """A server that answers three calls with one taskId: tasks/ shows one
    entry for it (spec 6: one name never listed twice), the latest call's,
    with one inode; each call still ends with the task's result."""
    m, t, srv = modern
    shs = [shell_call(t, research(steps=15, ms=100, id='same'))
           for _ in range(3)]
    try:
        wait_until(lambda: len(srv.posts('tools/call')) == 3, 30,
                   'the three calls sent')
        wait_until(lambda: srv.posts('tasks/get'), 30, 'a poll')
        names = os.listdir(t / 'tasks')
        assert names == ['same'], names
        r = subprocess.run(['ls', '-i', 'tasks'], cwd=t, capture_output=True,
                           text=True, timeout=30)
        assert len(r.stdout.split('\n')) == 2, r.stdout   # one line
        st = json.loads(read_file(t / 'tasks/same'))
        assert st['taskId'] == 'same', st
        replies = [finish(sh) for sh in shs]
    finally:
        for sh in shs:
            if sh.poll() is None:
                sh.kill()
    for reply in replies:
        assert text(reply) == 'researched fs in 15 steps', reply
    wait_until(lambda: os.listdir(t / 'tasks') == [], 10, 'tasks/ empty')


def test_modern_task_input_goes_through_requests(modern):
    m, t, srv = modern
    sh = shell_call(t, research(steps=1, ms=10, ask=True))
    try:
        q = wait_until(lambda: os.listdir(t / 'requests') or
                       sh.poll() is not None, 30, 'a question')
        assert q is not True, sh.communicate()
        asked = json.loads(read_file(t / 'requests' / q[0]))
        assert asked['message'] == 'Go on?', asked
        name = one_task(t)
        assert json.loads(read_file(t / 'tasks' / name))['status'] == \
            'input_required'
        write_file(t / 'requests' / q[0], json.dumps(
            {'action': 'accept', 'content': {'text': 'yes'}}))
        reply = finish(sh)
    finally:
        if sh.poll() is None:
            sh.kill()
    assert text(reply) == ('researched fs in 1 steps; confirmed: '
                           '{"action":"accept","content":{"text":"yes"}}')
    updates = srv.posts('tasks/update')
    # asked once although polls saw the answered request for 0.5 s more
    assert len(updates) == 1, updates
    opened = [e['params']['request'] for e in events(t)
              if e.get('method') == 'mcpfs/request' and
              e['params'].get('state') == 'open']
    assert len(opened) == 1, events(t)
    assert updates[0]['headers'].get('mcp-name') == name
    assert list(updates[0]['json']['params']['inputResponses']) == \
        ['confirm-' + name[-4:]]


def test_modern_failed_task_is_the_call_error(modern):
    m, t, srv = modern
    reply = call(t, research(steps=1, ms=10, fail=True))
    assert reply['error']['message'] == 'research failed: no sources', reply
    assert os.listdir(t / 'tasks') == []
    assert status(t)['state'] == 'ready'


def test_modern_task_cancelled_by_ctl(modern):
    m, t, srv = modern
    pool = concurrent.futures.ThreadPoolExecutor(1)
    running = pool.submit(call, t, research(steps=200, ms=100), 60)
    name = one_task(t)
    write_file(t / 'ctl', b'cancel')
    reply = running.result(timeout=30)
    assert reply['error']['message'] == 'call cancelled', reply
    pool.shutdown()
    cancels = wait_until(lambda: srv.posts('tasks/cancel'), 10,
                         'tasks/cancel reached the server')
    assert [c['json']['params']['taskId'] for c in cancels] == [name]
    assert cancels[0]['headers'].get('mcp-name') == name
    # SEP-2663: notifications/cancelled is not used for a task
    assert not srv.posts('notifications/cancelled')
    assert os.listdir(t / 'tasks') == []
    # the thread goes on
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'on'}})) == \
        'on'


def test_tasks_dir_is_read_only_and_rm_r_closes_the_thread(modern):
    m, t, srv = modern
    pool = concurrent.futures.ThreadPoolExecutor(1)
    running = pool.submit(call, t, research(steps=100, ms=100), 60)
    name = one_task(t)
    with pytest.raises(OSError) as e:
        write_file(t / 'tasks' / name, b'x')
    assert e.value.errno in (13, 1), e.value     # EACCES/EPERM
    os.unlink(t / 'tasks' / name)                # removes nothing
    assert os.listdir(t / 'tasks') == [name]
    assert not (t / 'tasks' / 'no-such-task').exists()
    # rm -r of the thread, a task running, closes it (GNU rm unlinks
    # every file first and skips the rmdir of a directory it could not
    # empty)
    r = subprocess.run(['rm', '-r', str(t)], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert running.result(timeout=30)['error'], 'the call ended'
    pool.shutdown()
    assert not t.exists()


@needs_everything
def test_legacy_task_is_listed_while_it_runs(mcpfs_mount):
    m = mcpfs_mount({'e': everything()})
    t = thread(m, 'e')
    sh = shell_call(t, {'name': 'simulate-research-query',
                        'arguments': {'topic': 'fs'}})
    try:
        name = one_task(t)
        st = json.loads(read_file(t / 'tasks' / name))
        assert st['taskId'] == name, st
        assert st['status'] in ('working', 'input_required'), st
        reply = finish(sh, 60)
    finally:
        if sh.poll() is None:
            sh.kill()
    assert 'Research Report: fs' in text(reply), reply
    assert os.listdir(t / 'tasks') == []
