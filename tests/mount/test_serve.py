"""The mount as an MCP server (spec 14): `mcpfs serve` over stdio, driven
by MCP clients no one here wrote (the official TypeScript SDK's client,
tests/serve/sdk_client.mjs, and mcporter 0.12.3 from npm), with the shell
in the same thread between their calls.
"""
import json
import os
import shutil
import subprocess

import pytest

from conftest import (MCPFS, REPO, everything, fake, needs_everything,
                      read_file, run_with_deadline, status, text, tool,
                      wait_until, write_file)

SDK_CLIENT = REPO / 'tests/serve/sdk_client.mjs'
MCPORTER = REPO / 'node_modules/mcporter/dist/cli.js'
NODE22 = REPO / 'node_modules/.bin/node'

needs_sdk = pytest.mark.skipif(
    not (REPO / 'node_modules/@modelcontextprotocol/sdk').exists() or
    not shutil.which('node'), reason='the SDK missing (npm ci) or no node')


class Client:
    """The SDK's client, through `mcpfs serve [--thread NAME] MOUNT`, or
    (Client.http) over the mount's --serve Streamable HTTP."""

    def __init__(self, m, thread_name=None, answer=None):
        self._start([str(MCPFS), str(m.path)] +
                    ([thread_name] if thread_name else []), answer)

    @classmethod
    def http(cls, url, auth, answer=None):
        c = cls.__new__(cls)
        c._start(['--http', url, auth[len('Bearer '):]], answer)
        return c

    def _start(self, args, answer):
        env = dict(os.environ)
        if answer is not None:  # it declares elicitation and sampling
            env['SDK_ANSWER'] = answer if answer in ('error', 'slow') \
                else json.dumps(answer)
        self.p = subprocess.Popen(
            ['node', str(SDK_CLIENT)] + args,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            cwd=str(REPO), env=env)
        hello = self._line(60)
        assert hello.get('ok') == 'connected', hello
        assert hello['server']['name'] == 'mcpfs', hello

    def _line(self, timeout=60):
        line = run_with_deadline(self.p.stdout.readline, timeout,
                                 'a line from the SDK client')
        assert line, 'the SDK client ended'
        return json.loads(line)

    def send(self, **cmd):
        self.p.stdin.write(json.dumps(cmd) + '\n')
        self.p.stdin.flush()

    def do(self, timeout=60, **cmd):
        self.send(**cmd)
        return self._line(timeout)

    def ok(self, **cmd):
        r = self.do(**cmd)
        assert 'ok' in r, r
        return r['ok']

    def close(self):
        r = self.do(op='close')
        assert r == {'ok': 'closed'}, r
        assert self.p.wait(30) == 0


def result_text(r):
    return r['result']['content'][0]['text']


@needs_sdk
def test_tools_of_every_server_are_listed(mcpfs_mount):
    # a listing through serve asks every server of the mount: 257 of them
    # (it stopped at 256, and said nothing)
    m = mcpfs_mount({f's{i:03}': fake() for i in range(257)})
    c = Client(m, 'agent')
    r = c.do(timeout=240, op='tools')
    assert 'ok' in r, r
    tools = set(r['ok'])
    assert {f's{i:03}__echo' for i in range(257)} <= tools, \
        sorted(t for t in tools if t.endswith('__echo'))[-3:]
    c.close()


@needs_sdk
def test_an_agent_and_the_shell_share_a_thread(mcpfs_mount):
    m = mcpfs_mount({'a': fake(), 'b': fake()})
    c = Client(m, 'agent')
    tools = c.ok(op='tools')
    assert {'a__counter', 'a__echo', 'b__counter'} <= set(tools), tools
    assert result_text(c.ok(op='call', name='a__counter')) == '1'
    # the agent's thread is a directory of the mount, made on first use
    assert os.listdir(m.path / 'a') and 'agent' in os.listdir(m.path / 'a')
    assert 'agent' not in os.listdir(m.path / 'b')
    t = m.path / 'a' / 'agent'
    assert text(tool(t, 'counter')) == '2'          # the shell's call
    assert result_text(c.ok(op='call', name='a__counter')) == '3'
    # the agent's calls are the thread's calls: result/ shows the last
    assert read_file(t / 'result' / 'text') == b'3\n'
    pid = text(tool(t, 'pid'))                      # the server's own
    assert result_text(c.ok(op='call', name='a__pid')) == pid
    c.close()
    # a named thread stays when its client leaves
    assert text(tool(t, 'pid')) == pid
    assert text(tool(t, 'counter')) == '4'
    # a second client of the same name joins the same live process
    c = Client(m, 'agent')
    assert result_text(c.ok(op='call', name='a__counter')) == '5'
    c.close()


@needs_sdk
def test_a_client_without_a_name_gets_threads_of_its_own(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    one, two = Client(m), Client(m)
    assert result_text(one.ok(op='call', name='a__counter')) == '1'
    assert result_text(two.ok(op='call', name='a__counter')) == '1'
    own = sorted(n for n in os.listdir(m.path / 'a') if n.startswith('serve-'))
    assert len(own) == 2, os.listdir(m.path / 'a')
    assert result_text(one.ok(op='call', name='a__counter')) == '2'
    one.close()
    # the client's serve-N thread closes with its session; the other stays
    wait_until(lambda: len([n for n in os.listdir(m.path / 'a')
                            if n.startswith('serve-')]) == 1, 20,
               'the first client\'s thread to close')
    assert result_text(two.ok(op='call', name='a__counter')) == '2'
    two.close()


@needs_sdk
def test_the_tool_policy_applies_through_serve(mcpfs_mount):
    m = mcpfs_mount({'a': dict(fake(), denyTools=['echo'])})
    c = Client(m, 'agent')
    tools = c.ok(op='tools')
    assert 'a__counter' in tools and 'a__echo' not in tools, tools
    r = c.do(op='call', name='a__echo', arguments={'text': 'x'})
    assert 'error' in r and 'not allowed by the policy' in r['error'], r
    r = c.do(op='call', name='nosuch__tool')
    assert 'error' in r and 'SERVER__TOOL' in r['error'], r
    c.close()


def progress_and_cancel(c, t):
    """Through client c of thread t (a of the fake): a call's progress
    comes before its reply, and a cancel reaches the server."""
    r = c.ok(op='call', name='a__progress', arguments={'steps': 3, 'ms': 50},
             progress=True)
    assert result_text(r) == 'done', r
    # in order, each with the client's own token; the SDK drops the last
    # when the reply comes right behind it (it runs a notification's
    # handler a turn later, after the reply removed it), so 2 or 3
    got = [p['progress'] for p in r['progress']]
    assert got in ([1, 2], [1, 2, 3]), r
    # the client's cancel reaches the server as notifications/cancelled
    r = c.do(op='call', name='a__sleep', arguments={'ms': 20000},
             abortMs=300)
    assert 'error' in r and 'abort' in r['error'].lower(), r
    wait_until(lambda: b'notifications/cancelled' in read_file(t / 'trace'),
               20, 'the cancel in the thread\'s trace')
    assert result_text(c.ok(op='call', name='a__echo',
                            arguments={'text': 'still'})) == 'still'


@needs_sdk
def test_progress_and_cancellation_pass_through(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    c = Client(m, 'agent')
    progress_and_cancel(c, m.path / 'a' / 'agent')
    c.close()


@needs_sdk
@needs_everything
def test_prompts_and_resources_of_server_everything(mcpfs_mount):
    m = mcpfs_mount({'ev': everything(timeout=60)})
    c = Client(m, 'agent')
    prompts = c.ok(op='prompts')
    assert 'ev__simple-prompt' in prompts, prompts
    p = c.ok(op='prompt', name='ev__simple-prompt')
    assert p['messages'][0]['role'] == 'user', p
    uris = c.ok(op='resources')
    assert uris and all('://' in u for u in uris), uris
    got = c.ok(op='read', uri=uris[0])
    assert got['contents'][0]['uri'] == uris[0], got
    r = c.do(op='read', uri='nowhere://x')
    assert 'error' in r and 'not found' in r['error'].lower(), r
    # the shell sees the agent's thread and its server's process
    assert status(m.path / 'ev' / 'agent')['state'] == 'ready'
    c.close()


@needs_sdk
@needs_everything
def test_server_everything_through_serve(mcpfs_mount):
    # the brief's list: tools, echo, get-sum, progress of the
    # long-running operation by the client's token, a cancelled call, and
    # an elicitation the client answers, all on the real server
    m = mcpfs_mount({'everything': everything(timeout=120)})
    c = Client(m, answer={'action': 'accept', 'content': {'name': 'Ada'}})
    tools = c.ok(op='tools')
    assert {'everything__echo', 'everything__get-sum',
            'everything__trigger-long-running-operation'} <= set(tools), \
        tools
    assert result_text(c.ok(op='call', name='everything__echo',
                            arguments={'message': 'hi'})) == 'Echo: hi'
    assert '5' in result_text(c.ok(op='call', name='everything__get-sum',
                                   arguments={'a': 2, 'b': 3}))
    r = c.ok(op='call', name='everything__trigger-long-running-operation',
             arguments={'duration': 1, 'steps': 3}, progress=True)
    assert 'completed' in result_text(r), r
    got = [(p['progress'], p['total']) for p in r['progress']]
    assert got in ([(1, 3), (2, 3)], [(1, 3), (2, 3), (3, 3)]), r
    r = c.do(op='call', name='everything__trigger-long-running-operation',
             arguments={'duration': 60, 'steps': 2}, abortMs=500)
    assert 'error' in r and 'abort' in r['error'].lower(), r
    own = [n for n in os.listdir(m.path / 'everything')
           if n.startswith('serve-')]
    assert len(own) == 1, own
    t = m.path / 'everything' / own[0]
    wait_until(lambda: b'notifications/cancelled' in read_file(t / 'trace'),
               20, 'the cancel in the thread\'s trace')
    # mcpfs declares elicitation (spec 10), so the server offers this
    c.send(op='call', name='everything__trigger-elicitation-request')
    assert c._line(60)['asked']['method'] == 'elicitation/create'
    r = c._line(60)
    assert 'Ada' in json.dumps(r), r
    c.close()
    wait_until(lambda: own[0] not in os.listdir(m.path / 'everything'), 20,
               'the serve-N thread to close')


ELICIT = {'method': 'elicitation/create', 'params': {
    'message': 'your name?', 'requestedSchema': {
        'type': 'object', 'properties': {'name': {'type': 'string'}}}}}


def questions(t):
    try:
        return sorted(os.listdir(t / 'requests'), key=int)
    except FileNotFoundError:  # the client's thread is not made yet
        return []


def shell_accepts(m, what):
    """The shell answers the first question of thread agent (waited for as
    what): accept, name "sh"."""
    t = m.path / 'a' / 'agent'
    q = wait_until(lambda: questions(t), 30, what)
    write_file(t / 'requests' / q[0],
               json.dumps({'action': 'accept', 'content': {'name': 'sh'}}))


@needs_sdk
def test_a_question_goes_to_a_client_that_can_answer(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    c = Client(m, 'agent', answer={'action': 'accept',
                                   'content': {'name': 'Ada'}})
    c.send(op='call', name='a__ask', arguments=ELICIT)
    asked = c._line(60)
    assert asked == {'asked': {'method': 'elicitation/create',
                               'params': ELICIT['params']}}, asked
    r = c._line(60)
    assert 'ok' in r, r
    got = json.loads(result_text(r['ok']))
    assert got == {'result': {'action': 'accept',
                              'content': {'name': 'Ada'}}}, got
    t = m.path / 'a' / 'agent'
    assert questions(t) == []
    assert b'"state":"answered"' in read_file(t / 'events')
    c.close()


@needs_sdk
def test_a_sampling_request_goes_to_the_client(mcpfs_mount):
    m = mcpfs_mount({'a': dict(fake(), sampling=True)})
    msg = {'role': 'assistant', 'content': {'type': 'text', 'text': 'hi'},
           'model': 'the-client'}
    c = Client(m, answer=msg)
    params = {'messages': [{'role': 'user', 'content': {
        'type': 'text', 'text': 'say hi'}}], 'maxTokens': 5}
    c.send(op='call', name='a__ask', arguments={
        'method': 'sampling/createMessage', 'params': params})
    assert c._line(60) == {'asked': {'method': 'sampling/createMessage',
                                     'params': params}}
    got = json.loads(result_text(c._line(60)['ok']))
    assert got == {'result': msg}, got
    c.close()


@pytest.mark.parametrize('answer', [None, 'error'])
@needs_sdk
def test_a_question_the_client_cannot_answer_waits_for_the_shell(
        mcpfs_mount, answer):
    # None: the client declares no elicitation; 'error': it answers with
    # an error. Either way the question waits under requests/.
    m = mcpfs_mount({'a': fake()})
    c = Client(m, 'agent', answer=answer)
    c.send(op='call', name='a__ask', arguments=ELICIT)
    if answer == 'error':
        assert 'asked' in c._line(60)
    t = m.path / 'a' / 'agent'
    q = wait_until(lambda: questions(t), 30, 'a question in requests/')
    if answer == 'error':
        wait_until(lambda: b'this client says no' in
                   read_file(t / 'requests' / q[0]), 30,
                   'the client\'s error in the question')
    write_file(t / 'requests' / q[0],
               json.dumps({'action': 'accept', 'content': {'name': 'sh'}}))
    r = c._line(60)
    got = json.loads(result_text(r['ok']))
    assert got == {'result': {'action': 'accept',
                              'content': {'name': 'sh'}}}, got
    c.close()


@needs_sdk
def test_an_answer_that_does_not_fit_leaves_the_question(mcpfs_mount):
    # the client's answer is checked as a shell's: content without the
    # required name does not fit, the question stays for the shell
    m = mcpfs_mount({'a': fake()})
    c = Client(m, 'agent', answer={'action': 'accept', 'content': {}})
    form = {'method': 'elicitation/create', 'params': {
        'message': 'your name?', 'requestedSchema': {
            'type': 'object', 'properties': {'name': {'type': 'string'}},
            'required': ['name']}}}
    c.send(op='call', name='a__ask', arguments=form)
    assert 'asked' in c._line(60)
    shell_accepts(m, 'the question left to the shell')
    got = json.loads(result_text(c._line(60)['ok']))
    assert got['result']['content'] == {'name': 'sh'}, got
    c.close()


@needs_sdk
def test_a_question_the_shell_answers_first_is_withdrawn(mcpfs_mount):
    # the client got the question but the shell answered: the client is
    # told (notifications/cancelled) and the call ends with the shell's
    m = mcpfs_mount({'a': fake()})
    c = Client(m, 'agent', answer='slow')
    c.send(op='call', name='a__ask', arguments=ELICIT)
    assert 'asked' in c._line(60)
    shell_accepts(m, 'the question in requests/')
    r = c._line(60)
    assert r == {'cancelled': 'mcpfs-ask-' + r['cancelled'][10:]}, r
    got = json.loads(result_text(c._line(60)['ok']))
    assert got['result']['content'] == {'name': 'sh'}, got
    c.close()


@pytest.mark.skipif(not MCPORTER.exists() or not NODE22.exists(),
                    reason='mcporter or node 22 missing (npm ci)')
def test_mcporter_calls_through_serve(mcpfs_mount, tmp_path):
    m = mcpfs_mount({'a': fake()})

    def mcporter(*args):
        r = subprocess.run(
            [str(NODE22), str(MCPORTER), 'call', '--stdio', str(MCPFS),
             '--stdio-arg', 'serve', '--stdio-arg', '--thread',
             '--stdio-arg', 'agent', '--stdio-arg', str(m.path),
             '--name', 'mcpfs', *args],
            capture_output=True, text=True, timeout=120, cwd=str(tmp_path),
            env=dict(os.environ, HOME=str(tmp_path)))
        assert r.returncode == 0, (r.stdout, r.stderr)
        return r.stdout
    r = subprocess.run(
        [str(NODE22), str(MCPORTER), 'list', '--stdio', str(MCPFS),
         '--stdio-arg', 'serve', '--stdio-arg', str(m.path),
         '--name', 'mcpfs', '--schema'],
        capture_output=True, text=True, timeout=120, cwd=str(tmp_path),
        env=dict(os.environ, HOME=str(tmp_path)))
    assert r.returncode == 0 and 'a__counter' in r.stdout and \
        'a__echo' in r.stdout, (r.stdout, r.stderr)
    assert mcporter('--tool', 'a__counter').strip() == '1'
    t = m.path / 'a' / 'agent'
    assert text(tool(t, 'counter')) == '2'          # the shell, between
    assert mcporter('--tool', 'a__counter').strip() == '3'
    assert mcporter('--tool', 'a__echo', '--args',
                    '{"text": "hi there"}').strip() == \
        'hi there'


def test_serve_needs_a_mount(tmp_path):
    r = subprocess.run([str(MCPFS), 'serve', str(tmp_path)],
                       capture_output=True, text=True, timeout=20)
    assert r.returncode == 1, r
    assert 'no mcpfs is mounted at' in r.stderr, r.stderr
    r = subprocess.run([str(MCPFS), 'serve'], capture_output=True,
                       text=True, timeout=20)
    assert r.returncode == 2 and 'usage: mcpfs serve' in r.stderr, r


def test_the_socket_is_private(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    log = m.output()
    path = log.split('serve: `mcpfs serve ')[1].split(' joins at ')[1]
    path = path.split()[0]
    st = os.stat(os.path.dirname(path))
    assert st.st_mode & 0o077 == 0 and st.st_uid == os.getuid()
    # a first line that is not serve's own ends the connection
    import socket
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n')
    s.settimeout(20)
    assert s.recv(100) == b''
    s.close()
    assert 'without a valid first line' in m.output()
    m.unmount()
    assert not os.path.exists(path)
