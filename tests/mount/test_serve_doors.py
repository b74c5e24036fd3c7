"""Both doors alike (spec 14, "One server for all"): what `mcpfs serve`
tells an MCP client and where its requests go is what the files do. Driven
by the official TypeScript SDK's client (tests/serve/sdk_client.mjs):

* a resources/read of a URI no server lists but whose resource template
  matches it goes to that server, as `cat resources/URI` reads it;
* a tool whose server requires tasks is offered to a client that declared
  no tasks as one it may call plainly, and the call gives the final result;
* the client's cancel reason reaches the server;
* a name two servers would both give (server a__b with tool c, server a
  with tool b__c; prompts; a URI two servers list) is the first server's
  in the config, listed once, and `.status` lists the collision;
* a thread name mkdir refuses is refused by `mcpfs serve --thread`.
"""
import json
import os
import re
import subprocess

import pytest

from conftest import (MCPFS, everything, fake, needs_everything, read_file,
                      run_with_deadline, slacked, status, wait_until)
from help_util import calls, scripted
from test_serve import Client, needs_sdk, result_text


@needs_sdk
@needs_everything
def test_a_template_resource_is_read_as_the_files_read_it(mcpfs_mount):
    # demo://resource/dynamic/text/{resourceId} is a template of
    # server-everything; no listing has .../3 (it was -32002 "no server
    # lists it" while `cat resources/...` read it)
    uri = 'demo://resource/dynamic/text/3'
    m = mcpfs_mount({'a': fake(), 'ev': everything(timeout=60)})
    c = Client(m, 'agent')
    assert uri not in c.ok(op='resources')
    got = c.ok(op='read', uri=uri)
    assert got['contents'][0]['uri'] == uri, got
    (m.path / 'ev' / 'sh').mkdir()
    cat = read_file(m.path / 'ev' / 'sh' / 'resources' /
                    uri.replace('/', '%2F'))
    # the same resource (its text ends in the time it was made)
    made = re.compile(r' created at [^\n]*$')
    assert made.sub('', got['contents'][0]['text']) == \
        made.sub('', cat.decode()) == \
        'Resource 3: This is a plaintext resource', (got, cat)
    # a URI that neither a listing nor a template gives is still not found
    r = c.do(op='read', uri='demo://resource/elsewhere/3')
    assert 'error' in r and 'not found' in r['error'].lower(), r
    c.close()


@needs_sdk
@needs_everything
def test_a_task_tool_is_callable_by_a_client_without_tasks(mcpfs_mount):
    # simulate-research-query is registered with execution.taskSupport
    # "required"; the SDK's client (no tasks capability) refused to call it
    m = mcpfs_mount({'ev': everything(timeout=120)})
    c = Client(m, 'agent')
    tools = {t['name']: t for t in c.ok(op='toolsfull')}
    t = tools['ev__simulate-research-query']
    assert 'taskSupport' not in t.get('execution', {}), t
    r = c.ok(op='call', name='ev__simulate-research-query',
             arguments={'topic': 'doors'}, timeout=120)
    text = result_text(r)
    assert 'doors' in text and 'Stage' in text, r
    assert not r['result'].get('isError'), r
    c.close()


@needs_sdk
def test_the_clients_cancel_reason_reaches_the_server(mcpfs_mount, tmp_path):
    log = tmp_path / 'a.log'
    m = mcpfs_mount({'a': fake('--log', log)})
    c = Client(m, 'agent')
    assert c.ok(op='start', key='s', name='a__sleep',
                arguments={'ms': 20000}) == 'started'
    # the cancel once the server has the call (before, mcpfs drops the
    # call it holds and the server hears of neither)
    wait_until(lambda: log.exists() and '"sleep"' in log.read_text(), 20,
               'the call at the server')
    c.send(op='abort', key='s', reason='the user pressed stop')
    got = sorted([c._line(), c._line()], key=lambda x: 'done' in x)
    assert got[0] == {'ok': 'aborted'}, got
    assert got[1]['done'] == 's' and 'error' in got[1], got

    def cancels():
        return [json.loads(x) for x in log.read_text().splitlines()
                if 'notifications/cancelled' in x]
    got = wait_until(cancels, 20, 'the cancel at the server')
    assert got[0]['params']['reason'] == 'the user pressed stop', got
    c.close()


def collide(tmp_path, first, second):
    """Servers a (tool b__c, prompt b__p) and a__b (tool c, prompt p) in
    the config in the order first, second."""
    a, alog = scripted(tmp_path, {
        'tools': [{'name': 'b__c', 'inputSchema': {'type': 'object'}}],
        'prompts': [{'name': 'b__p'}]}, 'a')
    ab, ablog = scripted(tmp_path, {
        'tools': [{'name': 'c', 'inputSchema': {'type': 'object'}}],
        'prompts': [{'name': 'p'}]}, 'ab')
    servers = {'a': a, 'a__b': ab}
    return {k: servers[k] for k in (first, second)}, {'a': alog,
                                                      'a__b': ablog}


@needs_sdk
@pytest.mark.parametrize('first,second', [('a', 'a__b'), ('a__b', 'a')])
def test_a_name_two_servers_give_is_the_first_servers(mcpfs_mount, tmp_path,
                                                      first, second):
    conf, logs = collide(tmp_path, first, second)
    conf['r1'] = fake('--resources', '2')
    conf['r2'] = fake('--resources', '1')
    m = mcpfs_mount(conf)
    c = Client(m, 'agent')
    tools = c.ok(op='tools')
    assert tools.count('a__b__c') == 1, tools
    prompts = c.ok(op='prompts')
    assert prompts.count('a__b__p') == 1, prompts
    uris = c.ok(op='resources')
    assert uris.count('fake://r0') == 1 and 'fake://r1' in uris, uris
    # the call reaches the first server's tool, whatever the names' length
    r = c.ok(op='call', name='a__b__c')
    want = 'b__c' if first == 'a' else 'c'
    assert result_text(r).startswith('called ' + want), r
    assert [x['name'] for x in calls(logs[first])] == [want]
    assert calls(logs[second]) == []
    p = c.ok(op='prompt', name='a__b__p')
    assert p['messages'], p
    assert [x['name'] for x in calls(logs[first])][-1] == \
        ('b__p' if first == 'a' else 'p')
    assert calls(logs[second]) == []
    # .status says which name is whose
    col = m.status()['collisions']
    assert {'kind': 'tool', 'name': 'a__b__c', 'server': first,
            'shadowed': second} in col, col
    assert {'kind': 'prompt', 'name': 'a__b__p', 'server': first,
            'shadowed': second} in col, col
    assert {'kind': 'resource', 'name': 'fake://r0', 'server': 'r1',
            'shadowed': 'r2'} in col, col
    assert len(col) == 3, col
    c.close()


@pytest.mark.parametrize('name', ['help', 'auth', 'call', 'tools.json',
                                  '.hidden', 'a b'])
def test_a_thread_name_mkdir_refuses_is_refused_by_serve(mcpfs_mount, name):
    m = mcpfs_mount({'a': fake()})
    before = sorted(os.listdir(m.path / 'a'))
    p = subprocess.run([str(MCPFS), 'serve', '--thread', name, str(m.path)],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=slacked(30))
    assert p.returncode == 1, p
    assert p.stderr.startswith(f'mcpfs serve: --thread {name}: '), p.stderr
    assert p.stdout == ''
    # mkdir refuses the same names
    with pytest.raises(OSError):
        (m.path / 'a' / name).mkdir()
    assert sorted(os.listdir(m.path / 'a')) == before


class Raw:
    """`mcpfs serve --thread NAME MOUNT` spoken to line by line, as a
    client no SDK smooths over: every byte it sends and gets is the
    test's."""

    def __init__(self, m, thread_name='raw'):
        self.p = subprocess.Popen(
            [str(MCPFS), 'serve', '--thread', thread_name, str(m.path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.seen = []  # what came while waiting for something else

    def send(self, obj):
        self.p.stdin.write((obj if isinstance(obj, str)
                            else json.dumps(obj)) + '\n')
        self.p.stdin.flush()

    def line(self, timeout=30):
        got = run_with_deadline(self.p.stdout.readline, timeout,
                                'a line from mcpfs serve')
        assert got.endswith('\n'), got
        return json.loads(got)

    def reply(self, rid, timeout=30):
        """The reply to id rid; what comes before it is kept in seen."""
        while True:
            m = self.line(timeout)
            if 'method' not in m and m.get('id') == rid:
                return m
            self.seen.append(m)

    def ask(self, rid, method, params=None, timeout=30):
        self.send({'jsonrpc': '2.0', 'id': rid, 'method': method,
                   **({'params': params} if params is not None else {})})
        return self.reply(rid, timeout)

    def hello(self, version='2025-06-18', caps=None):
        r = self.ask(0, 'initialize', {'protocolVersion': version,
                                       'capabilities': caps or {},
                                       'clientInfo': {'name': 'raw',
                                                      'version': '0'}})
        self.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
        return r

    def close(self):
        self.p.stdin.close()
        assert self.p.wait(slacked(30)) == 0
        self.p.stdout.close()


def test_what_serve_declares_and_the_versions_it_speaks(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    c = Raw(m)
    r = c.hello('2025-03-26')['result']
    assert r['protocolVersion'] == '2025-03-26'
    assert r['capabilities'] == {
        'tools': {'listChanged': True}, 'prompts': {'listChanged': True},
        'resources': {'listChanged': True}, 'logging': {}}, r
    assert r['serverInfo']['name'] == 'mcpfs', r
    assert 'SERVER__TOOL' in r['instructions'], r
    c.close()
    # a version mcpfs does not speak gets the newest it does
    c = Raw(m)
    assert c.hello('1999-01-01')['result']['protocolVersion'] == \
        '2025-11-25'
    assert c.ask('p', 'ping') == {'jsonrpc': '2.0', 'id': 'p',
                                  'result': {}}
    assert c.ask(7, 'logging/setLevel', {'level': 'info'})['result'] == {}
    c.close()


def test_what_a_client_gets_wrong_is_answered(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    c = Raw(m)
    c.hello()
    c.send('this is not json')
    assert c.line() == {'jsonrpc': '2.0', 'id': None, 'error': {
        'code': -32700, 'message': 'parse error: not a JSON-RPC message'}}
    assert c.ask(1, 'nope/nothing')['error'] == {
        'code': -32601, 'message': 'method not found'}
    assert c.ask(2, 'tools/call', {'name': 'nosep'})['error']['code'] == \
        -32602
    assert c.ask(3, 'tools/call', {})['error']['code'] == -32602
    e = c.ask(4, 'prompts/get', {'name': 'b__greet'})['error']
    assert e['code'] == -32602 and 'SERVER__PROMPT' in e['message'], e
    assert c.ask(5, 'resources/read', {'uri': 7})['error'] == {
        'code': -32602, 'message': 'resources/read needs a uri'}
    # a response to nothing, a notification with an id of null: no reply
    c.send({'jsonrpc': '2.0', 'id': 'x', 'result': {}})
    c.send({'jsonrpc': '2.0', 'id': None, 'method': 'ping'})
    # ids of every JSON kind come back as they were
    for rid in ('s', 12, 1.5, {'k': [1]}):
        assert c.ask(rid, 'ping')['id'] == rid
    assert c.seen == []
    c.close()


def test_numbers_pass_serve_as_they_are(mcpfs_mount):
    """Numbers of 16 and 17 significant digits (a timestamp in
    microseconds, 2^53 - 1, 0.1 + 0.2) reach the server through serve
    as the file door sends them, and a 16-digit id comes back as sent.
    cJSON's printing, which serve went through, made 9007199254740991
    9.00719925474099e+15 (9007199254740990: another number) and
    0.30000000000000004 0.3."""
    m = mcpfs_mount({'a': fake()})
    c = Raw(m, 't1')
    c.hello()
    for n, rid in ((1733540123456789, 1733540123456789),
                   (9007199254740991, 2)):
        r = c.ask(rid, 'tools/call', {'name': 'a__echo', 'arguments': {
            'text': 'x', 'n': n, 'f': 0.30000000000000004}})
        assert r['id'] == rid, r
        assert result_text(r) == 'x', r
    c.close()
    trace = read_file(m.path / 'a' / 't1' / 'trace').decode()
    sent = [json.loads(ln)['msg'] for ln in trace.splitlines()
            if '"tools/call"' in ln and '"dir":"out"' in ln]
    assert [s['params']['arguments']['n'] for s in sent] == \
        [1733540123456789, 9007199254740991], trace
    assert '"n":1733540123456789,' in trace
    assert '"f":0.30000000000000004' in trace


def test_strings_pass_serve_as_they_are(mcpfs_mount):
    """An escaped NUL in an argument reaches the server (spec 5: the file
    door keeps it), where serve cut the string there ("a\\u0000b" went
    as "a"); a request that is JSON but holds a string no C string can
    (an unpaired surrogate escape) is answered with an error of its id,
    where serve answered an id of null and the client waited for ever."""
    m = mcpfs_mount({'a': fake()})
    c = Raw(m, 't1')
    c.hello()
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
           '{"name":"a__echo","arguments":{"text":"a\\u0000b"}}}')
    assert c.reply(1)['result']['content'][0]['text'] == 'a\x00b'
    c.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":'
           '{"name":"a__echo","arguments":{"text":"\\ud800x"}}}')
    e = c.reply(2)['error']
    assert e['code'] == -32600 and 'cannot read' in e['message'], e
    assert c.ask(3, 'ping')['result'] == {}  # and the session goes on
    c.close()
    trace = read_file(m.path / 'a' / 't1' / 'trace').decode()
    assert '"text":"a\\u0000b"' in trace


def test_a_call_the_core_refuses_is_answered_with_its_code(mcpfs_mount):
    """A call the core refuses before it is sent: arguments that are not
    an object are the client's error (-32602, with the reason); no room
    for the client's thread (--max-sessions, the one place held by a call
    in flight) is mcpfs's own (-32603, saying so)."""
    m = mcpfs_mount({'a': fake()}, args=['--max-sessions', '1'])
    c = Raw(m)
    c.hello()
    e = c.ask(1, 'tools/call', {'name': 'a__echo', 'arguments': 5})['error']
    assert e['code'] == -32602 and 'arguments' in e['message'], e
    c.send({'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call', 'params': {
        'name': 'a__sleep', 'arguments': {'ms': 60000}}})
    wait_until(lambda: status(m.path / 'a' / 'raw')['in_flight'] >= 1,
               what='the sleep in flight')
    d = Raw(m, 'other')
    d.hello()
    e = d.ask(3, 'tools/call', {'name': 'a__echo',
                                'arguments': {'text': 'x'}})['error']
    assert e['code'] == -32603 and 'too many threads' in e['message'], e
    d.close()
    c.close()


def test_a_servers_error_reaches_the_client_whole(mcpfs_mount):
    # the server's JSON-RPC error to a call is the client's, code and
    # message; a result is passed as the server sent it
    m = mcpfs_mount({'a': fake()})
    c = Raw(m)
    c.hello()
    e = c.ask(1, 'tools/call', {'name': 'a__no-such-tool'})['error']
    shell = read_file(m.path / 'a' / 'raw' / 'call')
    assert e == json.loads(shell)['error'], (e, shell)
    r = c.ask(2, 'tools/call', {'name': 'a__echo',
                                'arguments': {'text': 'x\ny'}})
    assert r['result']['content'] == [{'type': 'text', 'text': 'x\ny'}], r
    c.close()


def test_progress_goes_to_its_own_call(mcpfs_mount):
    # two calls in flight in one thread, each with its own token: each
    # gets its own progress, and only that
    m = mcpfs_mount({'a': fake()})
    c = Raw(m)
    c.hello()
    for rid, tok in ((1, 'one'), (2, 'two')):
        c.send({'jsonrpc': '2.0', 'id': rid, 'method': 'tools/call',
                'params': {'name': 'a__progress',
                           'arguments': {'steps': 2, 'ms': 30},
                           '_meta': {'progressToken': tok}}})
    c.send({'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call',
            'params': {'name': 'a__progress',
                       'arguments': {'steps': 2, 'ms': 30}}})
    done = {}
    while len(done) < 3:
        x = c.line()
        if 'id' in x:
            done[x['id']] = x
        else:
            c.seen.append(x)
    toks = sorted(x['params']['progressToken'] for x in c.seen
                  if x['method'] == 'notifications/progress')
    assert toks == ['one', 'one', 'two', 'two'], c.seen
    c.close()


def test_list_changed_and_log_messages_pass_through(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    c, other = Raw(m), Raw(m, 'other')
    c.hello()
    other.hello()
    c.ask(1, 'tools/call', {'name': 'a__list_changed'})
    c.ask(2, 'tools/call', {'name': 'a__log',
                            'arguments': {'level': 'info', 'data': 'hi'}})
    methods = [x['method'] for x in c.seen]
    assert 'notifications/tools/list_changed' in methods, c.seen
    assert 'notifications/message' in methods, c.seen
    # list_changed goes to every client, a thread's log to its own only
    other.ask(3, 'ping')
    x = other.line() if not other.seen else other.seen[0]
    assert x['method'] == 'notifications/tools/list_changed', x
    assert other.ask(4, 'ping')['result'] == {}
    assert [y for y in other.seen
            if y.get('method') == 'notifications/message'] == []
    c.close()
    other.close()


def test_a_cancelled_call_gets_no_reply(mcpfs_mount, tmp_path):
    log = tmp_path / 'a.log'
    m = mcpfs_mount({'a': fake('--log', log)})
    c = Raw(m)
    c.hello()
    c.send({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
            'params': {'name': 'a__sleep', 'arguments': {'ms': 20000}}})
    wait_until(lambda: log.exists() and '"sleep"' in log.read_text(), 20,
               'the call sent')
    c.send({'jsonrpc': '2.0', 'method': 'notifications/cancelled',
            'params': {'requestId': 1}})
    assert c.ask(2, 'ping')['result'] == {}
    assert c.seen == []
    got = wait_until(lambda: [json.loads(x) for x in
                              log.read_text().splitlines()
                              if 'notifications/cancelled' in x],
                     20, 'the cancel at the server')
    # without a reason of the client's, mcpfs gives its own
    assert got[0]['params']['reason'] == 'cancelled by user', got
    c.close()


def test_the_http_door_refuses_the_same_thread_names(mcpfs_mount):
    from test_serve_http import INIT, entry, post
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0'])
    url, auth = entry(m)
    for name in ('help', 'auth', 'call', 'tools.json', '.x', 'a%20b'):
        s, _, body = post(url + '/' + name, INIT, {'Authorization': auth})
        assert s == 404, (name, s, body)
        assert json.loads(body)['error']['code'] == -32600, body
    s, _, body = post(url + '/agent', INIT, {'Authorization': auth})
    assert s == 200, body
    assert json.loads(body)['result']['serverInfo']['name'] == 'mcpfs'
    assert 'help' not in [t for t in os.listdir(m.path / 'a')
                          if (m.path / 'a' / t / 'status').exists()]


def test_the_log_says_what_serve_did(mcpfs_mount):
    # a client's coming and going, its thread made, a server whose
    # listing failed left out of the client's (the others listed)
    m = mcpfs_mount({'a': fake(), 'z': fake('--exit-at-start', '3')})
    c = Raw(m)
    r = c.ask(0, 'initialize', {'capabilities': {}})  # no version: newest
    assert r['result']['protocolVersion'] == '2025-11-25', r
    tools = c.ask(1, 'tools/list')['result']['tools']
    assert [t['name'] for t in tools if t['name'].startswith('z__')] == []
    assert 'a__echo' in [t['name'] for t in tools]
    c.ask(2, 'tools/call', {'name': 'a__echo', 'arguments': {'text': 'x'}})
    c.close()
    log = wait_until(lambda: 'the client of thread raw left' in
                     m.log.read_text() and m.log.read_text(), 20,
                     'the client\'s leaving in the log')
    assert 'serve: a client (protocol 2025-11-25) in thread raw' in log
    assert 'serve: tools of server z left out: it failed' in log, log
    assert 'serve: thread raw of server a made for a client' in log


def test_a_servers_withdrawal_reaches_the_client_with_its_reason(
        mcpfs_mount, tmp_path):
    # the other direction: the server cancels the question it asked the
    # serve client, and says why
    from test_http import FakeHTTP
    srv = FakeHTTP(tmp_path, ())
    try:
        m = mcpfs_mount({'h': {'url': srv.url}})
        c = Raw(m)
        c.hello(caps={'elicitation': {}})
        c.send({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
                'params': {'name': 'h__ask', 'arguments': {
                    'method': 'elicitation/create', 'via': 'post',
                    'params': {'message': 'x',
                               'requestedSchema': {'type': 'object'}}}}})
        q = c.line(30)
        assert q['method'] == 'elicitation/create', q
        # the fake's ids are srv-N of a counter it shares with its
        # streams: cancel candidates until the question goes (mcpfs
        # ignores a requestId it does not know); the withdrawal may come
        # after the reply to the notify that made it (another stream)
        assert os.listdir(m.path / 'h' / 'raw' / 'requests') == ['1']
        for k in range(1, 11):
            c.ask(10 + k, 'tools/call', {'name': 'h__notify', 'arguments': {
                'method': 'notifications/cancelled', 'params': {
                    'requestId': f'srv-{k}', 'reason': 'changed my mind'}}})
            if not (m.path / 'h' / 'raw' / 'requests' / '1').exists():
                break

        def withdrawn():
            got = [x for x in c.seen
                   if x.get('method') == 'notifications/cancelled']
            if not got:
                c.seen.append(c.line(30))
            return got
        gone = wait_until(withdrawn, 30, 'the withdrawal at the client')
        assert gone == [{'jsonrpc': '2.0',
                         'method': 'notifications/cancelled',
                         'params': {'requestId': q['id'],
                                    'reason': 'changed my mind'}}], c.seen
        c.close()
    finally:
        srv.stop()
