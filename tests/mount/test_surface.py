"""The MCP surface as files (spec 9): tools/, result/, resources/,
prompts/, resources.json, prompts.json, and the request keys of call.

Against the project's fake server (tools, no resources or prompts) and the
real server-everything (tools, resources with templates, prompts, images,
task-augmented tools)."""

import base64
import concurrent.futures
import errno
import json
import os
import subprocess

import pytest

from conftest import (call, everything, fake, needs_everything, read_file,
                      run_with_deadline, status, text, thread, tool,
                      wait_until, write_file)


def listdir(path, timeout=30):
    return sorted(run_with_deadline(lambda: os.listdir(path), timeout,
                                    f'listdir {path}'))


def read_json(path, timeout=30):
    return json.loads(read_file(path, timeout))


def write_only(path, data=b''):
    """Open path O_WRONLY|O_TRUNC (a shell's ">"), write data, close."""
    def io():
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
        try:
            if data:
                os.write(fd, data)
        finally:
            os.close(fd)
    run_with_deadline(io, 30, f'write {path}')


def encode(name):
    """mcpfs's file name for a tool, prompt or resource URI."""
    out = ''
    for i, ch in enumerate(name):
        if ch in '%/' or ord(ch) < 0x20 or ch == '\x7f' or \
                (i == 0 and name in ('.', '..')):
            out += '%%%02X' % ord(ch)
        else:
            out += ch
    return out


# ---------------------------------------------------------------- tools/

def test_thread_directory_has_the_surface(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    names = listdir(t)
    for d in ('tools', 'result', 'resources', 'prompts'):
        assert d in names
        assert os.path.isdir(t / d)
    for f in ('resources.json', 'prompts.json'):
        assert f in names and os.path.isfile(t / f)


def test_tools_dir_lists_every_tool(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--tools', '3', '--page-size', '2')})
    t = thread(m)
    listed = [x['name'] for x in read_json(t / 'tools.json')['tools']]
    assert {'t0', 't1', 't2', 'echo', 'pid'} <= set(listed)
    assert listdir(t / 'tools') == sorted(listed)
    st = os.stat(t / 'tools' / 'echo')
    assert st.st_mode & 0o777 == 0o600
    with pytest.raises(FileNotFoundError):
        os.stat(t / 'tools' / 'no-such-tool')


def test_tool_file_is_a_transaction(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    f = t / 'tools' / 'echo'
    fd = os.open(f, os.O_RDWR)
    try:
        os.write(fd, json.dumps({'text': 'from a tool file'}).encode())
        reply = json.loads(run_with_deadline(
            lambda: b''.join(iter(lambda: os.read(fd, 65536), b'')), 30))
    finally:
        os.close(fd)
    assert text(reply) == 'from a tool file'
    # a fresh open that sent nothing reads the latest reply, as call does
    assert text(read_json(f)) == 'from a tool file'
    assert text(read_json(t / 'call')) == 'from a tool file'


def test_empty_write_only_open_sends_empty_arguments(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    counter = t / 'tools' / 'counter'
    write_only(counter)                       # ": > tools/counter"
    assert text(read_json(counter)) == '1'
    write_only(counter, b'\n')                # "echo > tools/counter"
    assert text(read_json(counter)) == '2'
    # reading (O_RDONLY) sends nothing: the counter is still 2
    for _ in range(3):
        assert text(read_json(counter)) == '2'
    assert text(tool(t, 'counter')) == '3'


def test_tool_file_refuses_non_object_arguments(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    with pytest.raises(OSError) as e:
        write_only(t / 'tools' / 'echo', b'["not", "an object"]')
    assert e.value.errno == errno.EINVAL
    err = read_json(t / 'call')['error']
    assert 'arguments must be a JSON object' in err['message']
    assert 'arguments must be a JSON object' in status(t / 'status')[
        'last_error']


def test_tool_file_takes_blanks_before_the_arguments(mcpfs_mount):
    """A here-document or printf that puts blank lines, spaces or tabs
    before the object: the object is the arguments, not a refusal."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    echo = t / 'tools' / 'echo'
    run_with_deadline(lambda: subprocess.run(
        ['sh', '-c', 'printf "\\n \\t\\r\\n  {\\"text\\": \\"indented\\"}\\n"'
         ' > "$1"', 'sh', str(echo)], check=True), 30, 'printf > tools/echo')
    assert text(read_json(echo)) == 'indented'
    assert status(t / 'status')['last_error'] is None


def test_listing_runs_no_tool_and_waits_on_no_call(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert text(tool(t, 'counter')) == '1'
    pool = concurrent.futures.ThreadPoolExecutor(1)
    hung = pool.submit(call, t, {'name': 'hang'}, 60)
    wait_until(lambda: status(t / 'status')['in_flight'] == 1,
               what='hang in flight')
    out = run_with_deadline(lambda: subprocess.run(
        ['find', str(t)], capture_output=True, check=True).stdout, 30,
        'find over the thread')
    assert str(t / 'tools' / 'counter').encode() in out
    for p in (t / 'tools' / 'counter', t / 'result', t / 'resources.json'):
        os.stat(p)
    write_file(t / 'ctl', b'cancel')
    hung.result(timeout=30)
    pool.shutdown()
    # find, stat and ls ran no tool
    assert text(tool(t, 'counter')) == '2'


# ---------------------------------------------------------------- result/

def test_result_unpacks_the_latest_reply(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert listdir(t / 'result') == []
    tool(t, 'echo', text='first')
    assert listdir(t / 'result') == ['0.txt', 'text']
    assert read_file(t / 'result' / '0.txt') == b'first'
    assert read_file(t / 'result' / 'text') == b'first\n'
    for name in ('0.txt', 'text'):
        p = t / 'result' / name
        assert os.stat(p).st_size == len(read_file(p))
    tool(t, 'structured')
    assert listdir(t / 'result') == ['0.txt', 'structured.json', 'text']
    assert read_json(t / 'result' / 'structured.json') == {'a': 1,
                                                           'b': [1, 2]}
    assert not os.path.exists(t / 'result' / 'error')


def test_result_error_for_iserror_and_jsonrpc_errors(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    tool(t, 'fail')
    assert os.path.exists(t / 'result' / 'error')
    assert read_file(t / 'result' / 'error') == b'tool failed\n'
    tool(t, 'echo', text='fine')
    assert not os.path.exists(t / 'result' / 'error')
    reply = call(t, {'method': 'no/such/method'})
    assert 'error' in reply
    assert listdir(t / 'result') == ['error']
    assert read_json(t / 'result' / 'error')['code'] == \
        reply['error']['code']


def test_result_never_blocks_and_changes_only_on_completion(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    tool(t, 'echo', text='before')
    pool = concurrent.futures.ThreadPoolExecutor(1)
    hung = pool.submit(call, t, {'name': 'hang'}, 60)
    wait_until(lambda: status(t / 'status')['in_flight'] == 1,
               what='hang in flight')
    # a call that never ends changes nothing, and reading does not wait
    # for it (it would wait forever: the deadline would fail the test)
    assert read_file(t / 'result' / '0.txt', timeout=30) == b'before'
    assert listdir(t / 'result') == ['0.txt', 'text']
    write_file(t / 'ctl', b'cancel')
    assert 'cancelled' in hung.result(timeout=30)['error']['message']
    pool.shutdown()
    assert listdir(t / 'result') == ['error']


def test_open_result_file_keeps_its_bytes(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    tool(t, 'echo', text='kept')
    with open(t / 'result' / '0.txt', 'rb') as f:
        tool(t, 'echo', text='replaced')
        assert f.read() == b'kept'
    assert read_file(t / 'result' / '0.txt') == b'replaced'


# ------------------------------------------ resources/, prompts/ (none)

def test_no_capability_means_empty(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert listdir(t / 'resources') == []
    assert listdir(t / 'prompts') == []
    assert read_json(t / 'resources.json') == {'resources': [],
                                               'resourceTemplates': []}
    assert read_json(t / 'prompts.json') == {'prompts': []}


# ----------------------------------------------------- request members

def test_unknown_request_member_is_refused_by_name(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    with pytest.raises(OSError) as e:
        write_file(t / 'call', json.dumps(
            {'name': 'echo', 'arguments': {'text': 'x'},
             'tsak': {}}).encode())
    assert e.value.errno == errno.EINVAL
    msg = read_json(t / 'call')['error']['message']
    assert 'unknown member "tsak"' in msg
    assert 'unknown member "tsak"' in m.output()
    # id and jsonrpc are still accepted
    reply = call(t, {'jsonrpc': '2.0', 'id': 7, 'name': 'echo',
                     'arguments': {'text': 'ok'}})
    assert text(reply) == 'ok'


# ------------------------------------------------ server-everything

@needs_everything
def test_everything_tools_resources_prompts(mcpfs_mount):
    m = mcpfs_mount({'e': everything()})
    t = thread(m, 'e')
    tools = [x['name'] for x in read_json(t / 'tools.json')['tools']]
    assert listdir(t / 'tools') == sorted(encode(x) for x in tools)

    res = read_json(t / 'resources.json')
    uris = [r['uri'] for r in res['resources']]
    assert uris and res['resourceTemplates']
    names = listdir(t / 'resources')
    assert names == sorted(encode(u) for u in uris)
    assert all('/' not in n for n in names)
    doc = next(r for r in res['resources']
               if r.get('mimeType', '').startswith('text/'))
    body = read_file(t / 'resources' / encode(doc['uri']))
    got = call(t, {'method': 'resources/read',
                   'params': {'uri': doc['uri']}})
    assert body.decode() == got['contents'][0]['text']
    # a template URI that is not listed is looked up on demand
    dyn = 'demo://resource/dynamic/text/7'
    assert dyn not in uris
    assert b'Resource 7' in read_file(t / 'resources' / encode(dyn))
    with pytest.raises(FileNotFoundError):
        read_file(t / 'resources' / encode('demo://resource/no/such'))

    prompts = [p['name'] for p in read_json(t / 'prompts.json')['prompts']]
    assert 'simple-prompt' in prompts
    assert listdir(t / 'prompts') == sorted(encode(p) for p in prompts)
    write_only(t / 'prompts' / 'simple-prompt')
    reply = read_json(t / 'prompts' / 'simple-prompt')
    assert reply['messages'][0]['content']['type'] == 'text'
    assert read_file(t / 'result' / '0.txt').decode() == \
        reply['messages'][0]['content']['text']
    # resources/ reads are not the latest reply
    read_file(t / 'resources' / encode(doc['uri']))
    assert 'messages' in read_json(t / 'call')


@needs_everything
def test_everything_image_and_embedded_resource(mcpfs_mount):
    m = mcpfs_mount({'e': everything()})
    t = thread(m, 'e')
    write_only(t / 'tools' / 'get-tiny-image')
    reply = read_json(t / 'tools' / 'get-tiny-image')
    img = next(i for i, b in enumerate(reply['content'])
               if b['type'] == 'image')
    png = read_file(t / 'result' / f'{img}.png')
    assert png.startswith(b'\x89PNG\r\n\x1a\n')
    assert png == base64.b64decode(reply['content'][img]['data'])
    assert os.stat(t / 'result' / f'{img}.png').st_size == len(png)

    write_only(t / 'tools' / 'get-resource-reference',
               b'{"resourceType": "Text", "resourceId": 2}')
    reply = read_json(t / 'tools' / 'get-resource-reference')
    i = next(i for i, b in enumerate(reply['content'])
             if b['type'] == 'resource')
    assert read_file(t / 'result' / f'{i}.txt').decode() == \
        reply['content'][i]['resource']['text']

    write_only(t / 'tools' / 'get-resource-links', b'{"count": 2}')
    reply = read_json(t / 'tools' / 'get-resource-links')
    links = [(i, b) for i, b in enumerate(reply['content'])
             if b['type'] == 'resource_link']
    assert len(links) == 2
    for i, b in links:
        assert read_file(t / 'result' / f'{i}.uri') == \
            (b['uri'] + '\n').encode()


@needs_everything
def test_everything_task_member_is_forwarded(mcpfs_mount):
    m = mcpfs_mount({'e': everything()})
    t = thread(m, 'e')
    reply = call(t, {'name': 'simulate-research-query',
                     'arguments': {'topic': 'files'},
                     'task': {'ttl': 60000}})
    assert reply['task']['taskId'] and reply['task']['status']


RESEARCH = {'name': 'simulate-research-query', 'arguments': {'topic': 'fs'}}


def task_statuses(t):
    return {x['taskId']: x['status']
            for x in call(t, {'method': 'tasks/list'})['tasks']}


@needs_everything
def test_everything_required_task_runs_transparently(mcpfs_mount):
    m = mcpfs_mount({'e': everything()})
    t = thread(m, 'e')
    # sent before the handshake is done, on a thread, in the plain form
    reply = call(t, RESEARCH, timeout=60)
    assert 'Research Report: fs' in text(reply), reply
    assert 'task' not in reply
    assert list(task_statuses(t).values()) == ['completed']
    # the same through the tool's file, and as a one-shot call
    write_only(t / 'tools' / 'simulate-research-query',
               b'{"topic": "files"}')
    assert 'Research Report: files' in text(
        read_json(t / 'tools' / 'simulate-research-query', timeout=60))
    assert 'Research Report: fs' in text(call(m.path / 'e', RESEARCH,
                                              timeout=60))
    assert 'runs as task' in m.output()


@needs_everything
def test_everything_cancelled_task_is_cancelled_on_the_server(mcpfs_mount):
    m = mcpfs_mount({'e': everything()})
    t = thread(m, 'e')
    assert text(call(t, {'name': 'echo', 'arguments': {'message': 'up'}}))
    pool = concurrent.futures.ThreadPoolExecutor(1)
    running = pool.submit(call, t, RESEARCH, 60)
    wait_until(lambda: 'working' in task_statuses(t).values(),
               what='the task is working')
    write_file(t / 'ctl', b'cancel')
    assert running.result(timeout=30)['error']['message'] == \
        'call cancelled'
    pool.shutdown()
    wait_until(lambda: list(task_statuses(t).values()) == ['cancelled'],
               what='tasks/cancel reached the server')


def test_resources_json_stat_size_is_its_length(mcpfs_mount, tmp_path):
    """tar copies as many bytes as stat says: resources.json's size is its
    document's once its listings are there (it said 0, and tar archived
    it empty)."""
    m = mcpfs_mount({'a': fake('--resources', 2)})
    t = thread(m)
    body = read_file(t / 'resources.json')
    assert b'fake://r1' in body
    assert os.stat(t / 'resources.json').st_size == len(body)
    r = subprocess.run(['tar', 'cf', '-', 'resources.json'], cwd=t,
                       capture_output=True, timeout=30)
    assert r.returncode == 0, r.stderr
    out = subprocess.run(['tar', 'xOf', '-'], input=r.stdout,
                         capture_output=True, timeout=30)
    assert out.stdout == body
