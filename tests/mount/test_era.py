"""The two eras of MCP (spec 5, the era probe): modern = 2026-07-28 (per-request _meta,
no initialize, input_required, subscriptions/listen), legacy = 2025-11-25
and earlier (the initialize handshake). The config key `era` per server:
auto (default: stdio probes server/discover, HTTP tries a modern request,
falling back as basic/versioning.mdx says), modern, legacy; a thread's
status shows `era` and `protocolVersion`.

The servers: tests/fake/fakeserver --era modern|dual|legacy (fakeera.c),
tests/fake/mcp_modern.py (HTTP, --era modern|dual|legacy) and the real
server-everything (a legacy server). Both fakes are strict: they refuse a
request without the _meta fields (and, over HTTP, without the right
MCP-Protocol-Version, Mcp-Method and Mcp-Name headers), and they log what
they got, so the tests check what mcpfs sends. The first tests drive the
fakes by hand, proving them without mcpfs.

FAKE_BUILD (default MCPFS_BUILD) names the build whose fakeserver is used,
so these tests can run one build's mcpfs with another's fakes.
"""

import base64
import contextlib
import errno
import json
import os
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import (BUILD, EVERYTHING, call, events, fake_factory,
                      FakeProcess, needs_everything,
                      read_file, REPO, run_with_deadline, slacked, status, text,
                      thread, tool, wait_ready, wait_until, write_file)
from test_http import everything  # noqa: F401 - a fixture

FAKE_BUILD = Path(os.environ.get('FAKE_BUILD', BUILD))
FAKE = FAKE_BUILD / 'tests/fake/fakeserver'
MODERN_HTTP = REPO / 'tests/fake/mcp_modern.py'

MODERN = '2026-07-28'
V = 'io.modelcontextprotocol/protocolVersion'
CAPS = 'io.modelcontextprotocol/clientCapabilities'
INFO = 'io.modelcontextprotocol/clientInfo'
SUB = 'io.modelcontextprotocol/subscriptionId'
META = {V: MODERN, CAPS: {'elicitation': {}},
        INFO: {'name': 'selfcheck', 'version': '1'}}
ASK = {'name': 'ask', 'arguments': {}}



@pytest.fixture(autouse=True)
def _fake_built():
    if not FAKE.exists():
        pytest.fail(f'{FAKE} does not exist (set FAKE_BUILD or build first)')


# ---------------------------------------------------------------- helpers

def efake(*opts, **extra):
    """A config entry running FAKE_BUILD's fakeserver with these options."""
    return dict({'command': str(FAKE), 'args': [str(o) for o in opts]},
                **extra)


def logged(path):
    """The messages a fakeserver --log FILE received, in order."""
    try:
        raw = Path(path).read_text()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in raw.splitlines() if line]


def methods(msgs):
    return [m.get('method') for m in msgs if 'method' in m]


def assert_modern_meta(msg):
    """A request as basic/index.mdx wants it in the modern era."""
    meta = (msg.get('params') or {}).get('_meta')
    assert isinstance(meta, dict), f'no params._meta: {msg}'
    assert meta.get(V) == MODERN, msg
    assert isinstance(meta.get(CAPS), dict), msg
    # basic/index.mdx: clients SHOULD send clientInfo on every request
    assert isinstance(meta.get(INFO), dict), msg
    assert isinstance(meta[INFO].get('name'), str), msg
    assert isinstance(meta[INFO].get('version'), str), msg


class HTTPFake(FakeProcess):
    """One running tests/fake/mcp_modern.py."""

    script = MODERN_HTTP

    def posts(self):
        return [r for r in self.log()
                if r['path'] == '/mcp' and r['method'] == 'POST']

    def post(self, body, headers=None, accept=True, timeout=10):
        """(status, parsed body or b'') of one POST to /mcp."""
        h = {'Content-Type': 'application/json'}
        if accept:
            h['Accept'] = 'application/json, text/event-stream'
        h.update(headers or {})
        req = urllib.request.Request(self.url, method='POST', headers=h,
                                     data=json.dumps(body).encode())
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                code, raw = r.status, r.read()
        except urllib.error.HTTPError as e:
            code, raw = e.code, e.read()
        return code, (json.loads(raw) if raw else b'')


@pytest.fixture
def modern_http(tmp_path):
    yield from fake_factory(HTTPFake, tmp_path)


def stdio_session(opts, msgs, timeout=10):
    """Feeds msgs to a fakeserver with opts; returns every line it wrote,
    parsed."""
    p = subprocess.run([str(FAKE), *map(str, opts)], capture_output=True,
                       text=True,
                       timeout=timeout,
                       input=''.join(json.dumps(m) + '\n' for m in msgs))
    return [json.loads(line) for line in p.stdout.splitlines()]


def req(rid, method, params=None, meta=META):
    p = dict(params or {})
    if meta is not None:
        p['_meta'] = meta
    return {'jsonrpc': '2.0', 'id': rid, 'method': method, 'params': p}


def by_id(out):
    return {m['id']: m for m in out if 'id' in m}


# ---------------------------------------------------------------- the fakes

def test_fake_stdio_modern_selfcheck():
    out = stdio_session(['--era', 'modern'], [
        req(1, 'server/discover'),
        req(2, 'tools/call', {'name': 'counter', 'arguments': {}}, None),
        req(3, 'tools/call', {'name': 'counter', 'arguments': {}},
            {V: MODERN}),
        req(4, 'tools/call', {'name': 'counter', 'arguments': {}},
            {CAPS: {}}),
        req(5, 'tools/call', {'name': 'counter', 'arguments': {}}),
        {'jsonrpc': '2.0', 'id': 6, 'method': 'initialize', 'params': {
            'protocolVersion': '2025-11-25', 'capabilities': {},
            'clientInfo': {'name': 'x', 'version': '1'}}},
        req(7, 'tools/call', {'name': 'counter'},
            dict(META, **{V: '1900-01-01'})),
        req(8, 'subscriptions/listen',
            {'notifications': {'toolsListChanged': True}}),
        req(9, 'tools/call', {'name': 'add_tool', 'arguments': {'name': 'z'}}),
        req(10, 'tools/list'),
        req(11, 'tools/call', ASK),
        req(12, 'tools/call', ASK, dict(META, **{CAPS: {}})),
    ])
    r = by_id(out)
    d = r[1]['result']
    assert d['supportedVersions'] == [MODERN] and d['resultType'] == \
        'complete' and d['capabilities']['tools']['listChanged'] is True
    for i in (2, 3, 4):
        assert r[i]['error']['code'] == -32602, r[i]
    assert r[5]['result']['content'][0]['text'] == '1'
    assert r[5]['result']['resultType'] == 'complete'
    assert r[6]['error']['data']['supported'] == [MODERN]
    assert MODERN in r[6]['error']['message']
    assert r[7]['error']['code'] == -32022
    assert r[7]['error']['data'] == {'supported': [MODERN],
                                     'requested': '1900-01-01'}
    notes = [m for m in out if 'id' not in m]
    assert [n['method'] for n in notes] == [
        'notifications/subscriptions/acknowledged',
        'notifications/tools/list_changed']
    assert all(n['params']['_meta'][SUB] == 8 for n in notes)
    assert 8 not in r   # the listen stream stays open
    assert 'z' in [t['name'] for t in r[10]['result']['tools']]
    ir = r[11]['result']
    assert ir['resultType'] == 'input_required'
    assert ir['inputRequests']['answer']['method'] == 'elicitation/create'
    assert ir['requestState']
    assert r[12]['error']['code'] == -32021   # elicitation not declared


@contextlib.contextmanager
def modern_fake():
    """The fake stdio server in the modern era, talked to directly: yields
    rpc(msg), which sends one message and returns the answer's line."""
    p = subprocess.Popen([str(FAKE), '--era', 'modern'], text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def rpc(msg):
        p.stdin.write(json.dumps(msg) + '\n')
        p.stdin.flush()
        return json.loads(run_with_deadline(p.stdout.readline, 10,
                                            'the fake to answer'))
    try:
        yield rpc
    finally:
        p.stdin.close()
        p.wait(5)
        p.stdout.close()


def test_fake_stdio_ask_retry_selfcheck():
    with modern_fake() as rpc:
        state = rpc(req(1, 'tools/call', ASK))['result']['requestState']
        good = {'answer': {'action': 'accept', 'content': {'text': 'hi'}}}
        same_id = rpc(req(1, 'tools/call', dict(
            ASK, requestState=state, inputResponses=good)))
        forged = rpc(req(2, 'tools/call', dict(
            ASK, requestState='forged', inputResponses=good)))
        again = rpc(req(3, 'tools/call', dict(ASK, requestState=state)))
        done = rpc(req(4, 'tools/call', dict(
            ASK, requestState=state, inputResponses=good)))
        used = rpc(req(5, 'tools/call', dict(
            ASK, requestState=state, inputResponses=good)))
    assert same_id['error']['code'] == -32600   # the id of the first
    assert forged['error']['code'] == -32602    # wrong requestState
    assert again['result']['resultType'] == 'input_required'
    assert done['result']['content'] == [
        {'type': 'text', 'text': 'you said: {"text":"hi"}'}]
    assert used['error']['code'] == -32602      # used up


def test_fake_stdio_ask_kinds_selfcheck():
    caps = {'elicitation': {}, 'sampling': {}, 'roots': {}}
    meta = dict(META, **{CAPS: caps})
    both = dict(ASK, arguments={'kinds': ['elicitation', 'sampling',
                                          'roots']})
    first = by_id(stdio_session(['--era', 'modern'], [
        req(1, 'tools/call', both, meta),
        req(2, 'tools/call', both),                 # sampling not declared
        req(3, 'tools/call', dict(ASK, arguments={'kinds': ['x']}), meta)]))
    reqs = first[1]['result']['inputRequests']
    assert {k: v['method'] for k, v in reqs.items()} == {
        'answer': 'elicitation/create', 'model': 'sampling/createMessage',
        'roots': 'roots/list'}
    assert first[2]['error']['code'] == -32021
    assert first[2]['error']['data']['requiredCapabilities'] == {
        'sampling': {}, 'roots': {}}
    assert first[3]['error']['code'] == -32602
    with modern_fake() as rpc:
        st = rpc(req(1, 'tools/call', both, meta))['result']['requestState']
        ans = {'answer': {'action': 'accept', 'content': {'text': 'a'}},
               'model': {'role': 'assistant', 'model': 'm',
                         'content': {'type': 'text', 'text': 'hi'}}}
        part = rpc(req(2, 'tools/call', dict(both, requestState=st,
                                             inputResponses=ans), meta))
        ans['roots'] = {'roots': [{'uri': 'file:///r'}]}
        done = rpc(req(3, 'tools/call', dict(both, requestState=st,
                                             inputResponses=ans), meta))
    assert part['result']['resultType'] == 'input_required'
    assert done['result']['content'][0]['text'] == (
        'you said: {"text":"a"}; the model said: hi; '
        'roots: [{"uri":"file:///r"}]')


def test_fake_stdio_legacy_and_dual_selfcheck(tmp_path):
    init = {'jsonrpc': '2.0', 'id': 2, 'method': 'initialize', 'params': {
        'protocolVersion': '2025-11-25', 'capabilities': {},
        'clientInfo': {'name': 'x', 'version': '1'}}}
    log = tmp_path / 'f.log'
    r = by_id(stdio_session(['--log', log], [req(1, 'server/discover'),
                                             init]))
    assert r[1]['error']['code'] == -32601
    assert r[2]['result']['protocolVersion'] == '2025-11-25'
    assert methods(logged(log)) == ['server/discover', 'initialize']
    r = by_id(stdio_session(['--discover-silent'],
                            [req(1, 'server/discover'), init]))
    assert 1 not in r and 'result' in r[2]
    r = by_id(stdio_session(['--era', 'modern', '--supported', '2099-01-01'],
                            [req(1, 'server/discover')]))
    assert r[1]['error']['code'] == -32022
    assert r[1]['error']['data']['supported'] == ['2099-01-01']
    r = by_id(stdio_session(['--era', 'dual'], [req(1, 'server/discover')]))
    assert r[1]['result']['supportedVersions'] == [MODERN, '2025-11-25']
    r = by_id(stdio_session(['--era', 'dual'], [
        init, req(3, 'tools/call', {'name': 'echo',
                                    'arguments': {'text': 'x'}}, None)]))
    assert 'result' in r[2] and r[3]['result']['content'][0]['text'] == 'x'


def test_fake_http_selfcheck(modern_http):
    srv = modern_http()
    call_ = req(1, 'tools/call', {'name': 'echo', 'arguments': {'text': 'a'}})
    hdr = {'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call',
           'Mcp-Name': 'echo'}
    code, body = srv.post(call_, hdr)
    assert code == 200 and body['result']['content'][0]['text'] == 'a'
    assert body['result']['resultType'] == 'complete'
    b64 = '=?base64?' + base64.b64encode(b'echo').decode() + '?='
    assert srv.post(call_, dict(hdr, **{'Mcp-Name': b64}))[0] == 200
    for drop in hdr:
        h = {k: v for k, v in hdr.items() if k != drop}
        code, body = srv.post(call_, h)
        assert (code, body['error']['code']) == (400, -32020), (drop, body)
    for k, v in (('Mcp-Name', 'pid'), ('Mcp-Method', 'tools/list'),
                 ('MCP-Protocol-Version', '2025-11-25')):
        code, body = srv.post(call_, dict(hdr, **{k: v}))
        assert (code, body['error']['code']) == (400, -32020), (k, body)
    code, body = srv.post(req(1, 'tools/call', {'name': 'echo'}, None), hdr)
    assert (code, body['error']['code']) == (400, -32602)
    code, body = srv.post(req(1, 'tools/call', {'name': 'echo'},
                              {V: MODERN}), hdr)
    assert (code, body['error']['code']) == (400, -32602)
    assert srv.post(call_, hdr, accept=False)[0] == 400
    code, body = srv.post({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                           'params': {'protocolVersion': '2025-11-25'}})
    assert code == 400 and body['error']['data']['supported'] == [MODERN]
    code, body = srv.post(req(1, 'nope/nope'), dict(hdr, **{
        'Mcp-Method': 'nope/nope'}))
    assert (code, body['error']['code']) == (404, -32601)
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(srv.url, timeout=5)
    assert e.value.code == 405
    # ask: input_required, then the retry
    ah = dict(hdr, **{'Mcp-Name': 'ask'})
    code, body = srv.post(req(2, 'tools/call', ASK), ah)
    st = body['result']['requestState']
    assert body['result']['resultType'] == 'input_required'
    code, body = srv.post(req(3, 'tools/call', dict(
        ASK, requestState=st, inputResponses={'answer': {
            'action': 'accept', 'content': {'text': 'yo'}}})), ah)
    assert body['result']['content'][0]['text'] == 'you said: {"text":"yo"}'
    two = dict(ASK, arguments={'kinds': ['elicitation', 'sampling']})
    code, body = srv.post(req(5, 'tools/call', two), ah)
    assert (code, body['error']['data']) == (400, {
        'requiredCapabilities': {'sampling': {}}})
    meta = dict(META, **{CAPS: {'elicitation': {}, 'sampling': {}}})
    code, body = srv.post(req(6, 'tools/call', two, meta), ah)
    st = body['result']['requestState']
    assert set(body['result']['inputRequests']) == {'answer', 'model'}
    code, body = srv.post(req(7, 'tools/call', dict(
        two, requestState=st, inputResponses={
            'answer': {'action': 'decline'},
            'model': {'content': {'type': 'text', 'text': 'hi'}}}), meta),
        ah)
    assert body['result']['content'][0]['text'] == \
        'you did not answer: decline; the model said: hi'
    # subscriptions/listen: a stream that gets add_tool's notification
    listen = urllib.request.Request(srv.url, method='POST', headers={
        'Content-Type': 'application/json', 'MCP-Protocol-Version': MODERN,
        'Accept': 'application/json, text/event-stream',
        'Mcp-Method': 'subscriptions/listen'}, data=json.dumps(req(
            9, 'subscriptions/listen',
            {'notifications': {'toolsListChanged': True}})).encode())
    with urllib.request.urlopen(listen, timeout=10) as stream:
        assert stream.headers['Content-Type'] == 'text/event-stream'

        def next_data():
            while True:
                line = stream.readline().decode()
                if line.startswith('data: '):
                    return json.loads(line[6:])
        ack = next_data()
        assert ack['method'] == 'notifications/subscriptions/acknowledged'
        assert ack['params']['_meta'][SUB] == 9
        code, body = srv.post(req(4, 'tools/call', {
            'name': 'add_tool', 'arguments': {'name': 'fresh'}}),
            dict(hdr, **{'Mcp-Name': 'add_tool'}))
        assert 'notified 1' in body['result']['content'][0]['text']
        n = next_data()
        assert n['method'] == 'notifications/tools/list_changed'
        assert n['params']['_meta'][SUB] == 9
    assert all('mcp-session-id' not in r['headers'] for r in srv.posts())


def test_fake_http_legacy_and_dual_selfcheck(modern_http):
    hdr = {'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/call',
           'Mcp-Name': 'echo'}
    call_ = req(1, 'tools/call', {'name': 'echo', 'arguments': {'text': 'a'}})
    init = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {
        'protocolVersion': '2025-11-25', 'capabilities': {},
        'clientInfo': {'name': 'x', 'version': '1'}}}
    old = modern_http('--era', 'legacy')
    assert old.post(call_, hdr) == (400, b'')
    assert old.post(init)[0] == 200
    assert old.posts()[-1]['note'].startswith('session ')
    new = modern_http('--supported', '2099-01-01')
    code, body = new.post(call_, hdr)
    assert (code, body['error']['code']) == (400, -32022)
    assert body['error']['data']['supported'] == ['2099-01-01']
    dual = modern_http('--era', 'dual')
    assert dual.post(call_, hdr)[0] == 200
    assert dual.post(init)[1]['result']['protocolVersion'] == '2025-11-25'


# ---------------------------------------------------------------- modern stdio

@pytest.mark.parametrize('era', [None, 'auto', 'modern'])
def test_modern_stdio_server(mcpfs_mount, tmp_path, era):
    log = tmp_path / 'fake.log'
    extra = {} if era is None else {'era': era}
    m = mcpfs_mount({'s': efake('--era', 'modern', '--log', log, **extra)})
    a, b = thread(m, 's', 'a'), thread(m, 's', 'b')
    assert text(tool(a, 'echo', text='hello')) == 'hello'
    assert [text(tool(a, 'counter')) for _ in range(3)] == ['1', '2', '3']
    assert text(tool(b, 'counter')) == '1'      # its own process
    assert text(tool(a, 'counter')) == '4'
    st = status(a)
    assert st['state'] == 'ready'
    assert st.get('era') == 'modern', st
    assert st['protocolVersion'] == MODERN, st
    assert status(b).get('era') == 'modern'
    assert st['pid'] != status(b)['pid']
    got = logged(log)
    assert 'initialize' not in methods(got), methods(got)
    assert 'notifications/initialized' not in methods(got)
    reqs = [x for x in got if 'method' in x and 'id' in x]
    assert len([x for x in reqs if x['method'] == 'tools/call']) >= 6
    for x in reqs:
        assert_modern_meta(x)


@needs_everything
def test_legacy_server_everything_auto(mcpfs_mount):
    m = mcpfs_mount({'ev': {'command': 'node', 'era': 'auto',
                            'args': [str(EVERYTHING), 'stdio']}})
    t = thread(m, 'ev')
    reply = tool(t, 'echo', message='old times', timeout=60)
    assert 'old times' in text(reply), reply
    st = status(t)
    assert st.get('era') == 'legacy', st
    assert st['protocolVersion'] != MODERN and \
        st['protocolVersion'].startswith('20'), st
    assert st['serverInfo']['name'] == 'mcp-servers/everything'


def test_dual_stdio_server_auto_is_modern(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'d': efake('--era', 'dual', '--log', log)})
    t = thread(m, 'd')
    assert text(tool(t, 'counter')) == '1'
    st = status(t)
    assert (st.get('era'), st['protocolVersion']) == ('modern', MODERN), st
    got = logged(log)
    assert 'initialize' not in methods(got), methods(got)
    assert methods(got)[0] == 'server/discover', methods(got)
    for x in got:
        if 'id' in x and 'method' in x:
            assert_modern_meta(x)


# ---------------------------------------------------------------- fallbacks

def test_fallback_discover_unanswered(mcpfs_mount, tmp_path):
    """A legacy server that never answers server/discover: the probe times
    out and mcpfs falls back to initialize."""
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'q': efake('--discover-silent', '--log', log)})
    t = thread(m, 'q')
    st0 = status(t)
    assert 'era' in st0, st0
    if st0['state'] == 'starting':    # still probing: not known yet
        assert st0['era'] is None, st0
    st = wait_ready(t, 60)
    assert st.get('era') == 'legacy', st
    assert st['protocolVersion'] != MODERN
    assert text(tool(t, 'echo', text='late', timeout=60)) == 'late'
    ms = methods(logged(log))
    assert ms[0] == 'server/discover', ms
    assert 'initialize' in ms and 'notifications/initialized' in ms, ms


def test_fallback_discover_method_not_found(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'l': efake('--log', log)})
    t = thread(m, 'l')
    assert text(tool(t, 'counter')) == '1'
    st = status(t)
    assert (st['state'], st.get('era')) == ('ready', 'legacy'), st
    assert st['protocolVersion'] != MODERN
    ms = methods(logged(log))
    assert ms[:2] == ['server/discover', 'initialize'], ms


def test_era_legacy_never_probes(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'l': efake('--log', log, era='legacy')})
    t = thread(m, 'l')
    assert text(tool(t, 'counter')) == '1'
    assert status(t).get('era') == 'legacy'
    ms = methods(logged(log))
    assert 'server/discover' not in ms and ms[0] == 'initialize', ms


def test_era_modern_never_initializes(mcpfs_mount, tmp_path):
    """era modern against a modern server: no initialize even where auto
    would probe first; era is a config key mcpfs accepts."""
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'s': efake('--era', 'dual', '--log', log,
                                era='modern')})
    t = thread(m, 's')
    assert text(tool(t, 'echo', text='x')) == 'x'
    assert status(t).get('era') == 'modern'
    assert 'initialize' not in methods(logged(log))


def test_unsupported_version_is_no_fallback_stdio(mcpfs_mount, tmp_path):
    """A modern server that does not speak 2026-07-28 answers the probe with
    UnsupportedProtocolVersionError: a recognized modern error, so no
    fallback to initialize (versioning.mdx); the call fails."""
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'n': efake('--era', 'modern', '--supported',
                                '2099-01-01', '--log', log)})
    t = thread(m, 'n')
    reply = tool(t, 'echo', text='x', timeout=60)
    assert 'error' in reply, reply
    ms = methods(logged(log))
    assert ms and ms[0] == 'server/discover', ms
    assert 'initialize' not in ms, ms
    assert status(t).get('era') != 'legacy'


def test_unsupported_version_is_no_fallback_http(mcpfs_mount, modern_http):
    srv = modern_http('--supported', '2099-01-01')
    m = mcpfs_mount({'n': {'url': srv.url}})
    t = thread(m, 'n')
    reply = tool(t, 'echo', text='x', timeout=60)
    assert 'error' in reply, reply
    posts = srv.posts()
    assert posts and posts[0]['status'] == 400, posts
    assert not [p for p in posts if p['json'].get('method') ==
                'initialize'], [p['json'] for p in posts]
    assert not [r for r in srv.log() if r['method'] == 'GET']
    assert status(t).get('era') != 'legacy'


def test_era_must_be_one_of_three(tmp_path):
    from conftest import run_mcpfs_expect_exit
    rc, out = run_mcpfs_expect_exit(tmp_path, json.dumps(
        {'mcpServers': {'a': {'command': 'x', 'era': 'future'}}}))
    assert rc == 1
    assert 'mcpServers.a.era' in out, out


def test_fallback_http_400_empty_body(mcpfs_mount, modern_http):
    srv = modern_http('--era', 'legacy')
    m = mcpfs_mount({'h': {'url': srv.url}})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='fallback')) == 'fallback'
    st = status(t)
    assert st.get('era') == 'legacy', st
    assert st['protocolVersion'] != MODERN
    posts = srv.posts()
    first = posts[0]
    assert first['json'].get('method') != 'initialize', first
    assert first['status'] == 400
    assert_modern_meta(first['json'])
    assert any(p['json'].get('method') == 'initialize' for p in posts[1:])


def test_fallback_http_400_legacy_error(mcpfs_mount, tmp_path):
    """tests/fake/mcp_http.py (a 2025-11-25 server) answers the modern
    request 400 with JSON-RPC error -32000 (no session id): not a modern
    error, so mcpfs falls back to initialize."""
    from test_http import FakeHTTP
    srv = FakeHTTP(tmp_path, [])
    try:
        m = mcpfs_mount({'h': {'url': srv.url}})
        t = thread(m, 'h')
        assert text(tool(t, 'echo', text='older')) == 'older'
        st = status(t)
        assert st.get('era') == 'legacy', st
        posts = srv.posts()
        assert posts[0]['status'] == 400, posts[0]
        assert_modern_meta(posts[0]['json'])
        assert posts[1]['json']['method'] == 'initialize', posts[1]
    finally:
        srv.stop()


@pytest.mark.parametrize('answer', ['400', '500', 'close'])
def test_fallback_http_probe_failure(mcpfs_mount, tmp_path, answer):
    """spec 5: a sessionless server/discover POST answered 400 (JSON-RPC
    -32000), 500 with JSON-RPC -32603 and id null (the TypeScript SDK's
    server) or a closed connection is no modern error: mcpfs falls back
    to initialize, and the probe's failure is not left in the thread's
    stderr as if the server had written it."""
    from test_http import FakeHTTP
    srv = FakeHTTP(tmp_path, [] if answer == '400' else
                   ['--no-session', answer])
    try:
        m = mcpfs_mount({'h': {'url': srv.url}})
        t = thread(m, 'h')
        assert 'echo' in os.listdir(t / 'tools')
        assert text(tool(t, 'echo', text='probed')) == 'probed'
        st = status(t)
        assert (st['state'], st.get('era'), st['generation']) == \
            ('ready', 'legacy', 1), st
        posts = srv.posts()
        assert posts[0]['status'] == {'400': 400, '500': 500,
                                      'close': 'dropped'}[answer], posts[0]
        assert_modern_meta(posts[0]['json'])
        assert posts[1]['json']['method'] == 'initialize', posts[1]
        assert read_file(t / 'stderr') == b''
    finally:
        srv.stop()


@needs_everything
def test_legacy_server_everything_http_auto(mcpfs_mount, everything):
    m = mcpfs_mount({'ev': {'url': everything.url}})
    t = thread(m, 'ev')
    reply = tool(t, 'echo', message='old http', timeout=60)
    assert 'old http' in text(reply), reply
    st = status(t)
    assert st.get('era') == 'legacy', st
    assert st['protocolVersion'] != MODERN
    # its 400 to server/discover is the probe's, not the server's
    assert read_file(t / 'stderr') == b''


def test_modern_http_server(mcpfs_mount, modern_http):
    srv = modern_http()
    m = mcpfs_mount({'h': {'url': srv.url}})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='over http')) == 'over http'
    assert [text(tool(t, 'counter')) for _ in range(2)] == ['1', '2']
    st = status(t)
    assert (st.get('era'), st['protocolVersion']) == ('modern', MODERN), st
    posts = srv.posts()
    assert posts and all(p['status'] == 200 for p in posts
                         if p['note'] != 'listen'), \
        [(p['json'], p['status']) for p in posts]
    for p in posts:
        h, j = p['headers'], p['json']
        assert j.get('method') != 'initialize', j
        assert 'mcp-session-id' not in h, h
        assert h.get('mcp-protocol-version') == MODERN, h
        assert h.get('mcp-method') == j['method'], (h, j)
        if j['method'] == 'tools/call':
            assert h.get('mcp-name') == j['params']['name'], (h, j)
        assert_modern_meta(j)
    assert [p['json']['params']['name'] for p in posts
            if p['json']['method'] == 'tools/call'] == \
        ['echo', 'counter', 'counter']
    # no GET stream in the modern era (subscriptions/listen replaces it)
    assert not [r for r in srv.log() if r['method'] == 'GET'], srv.log()


def test_dual_http_server_era_legacy(mcpfs_mount, modern_http):
    """era legacy over HTTP: initialize first, a legacy session, no modern
    request."""
    srv = modern_http('--era', 'dual')
    m = mcpfs_mount({'h': {'url': srv.url, 'era': 'legacy'}})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='l')) == 'l'
    st = status(t)
    assert st.get('era') == 'legacy' and st['protocolVersion'] != MODERN, st
    posts = srv.posts()
    assert posts[0]['json']['method'] == 'initialize', posts[0]
    for p in posts:
        meta = (p['json'].get('params') or {}).get('_meta') or {}
        assert V not in meta, p['json']
        assert p['json'].get('method') != 'server/discover'
    sid = posts[0]['note'].split()[1]
    assert all(p['headers'].get('mcp-session-id') == sid
               for p in posts[1:]), [p['headers'] for p in posts]


def test_dual_http_server_auto_is_modern(mcpfs_mount, modern_http):
    srv = modern_http('--era', 'dual')
    m = mcpfs_mount({'h': {'url': srv.url}})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='d')) == 'd'
    assert status(t).get('era') == 'modern'
    assert not [p for p in srv.posts()
                if p['json'].get('method') == 'initialize']


# ---------------------------------------------------------- input_required

def _stdio_ask(mcpfs_mount, tmp_path, modern_http):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'s': efake('--era', 'modern', '--log', log)})
    return m, 's', lambda: [x for x in logged(log)
                            if x.get('method') == 'tools/call']


def _http_ask(mcpfs_mount, tmp_path, modern_http):
    srv = modern_http()
    m = mcpfs_mount({'s': {'url': srv.url}})
    return m, 's', lambda: [p['json'] for p in srv.posts()
                            if p['json'].get('method') == 'tools/call']


@pytest.mark.parametrize('transport', [_stdio_ask, _http_ask],
                         ids=['stdio', 'http'])
def test_input_required_through_requests(mcpfs_mount, tmp_path, modern_http,
                                         transport):
    m, server, calls = transport(mcpfs_mount, tmp_path, modern_http)
    t = thread(m, server)
    wait_ready(t, 30)
    sh = subprocess.Popen(
        ['sh', '-c', f"echo '{json.dumps(ASK)}' > call; cat call"],
        cwd=t, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        names = wait_until(lambda: os.listdir(t / 'requests') or
                           sh.poll() is not None, 30, 'a file in requests/')
        assert names is not True, \
            f'the call ended without a question: {sh.communicate()}'
        assert len(names) == 1, names
        q = json.loads(read_file(t / 'requests' / names[0]))
        assert q['method'] == 'elicitation/create', q
        assert q['message'] == 'What do you say?', q
        assert q['requestedSchema']['required'] == ['text'], q
        assert status(t)['questions'] == 1
        with pytest.raises(OSError) as e:
            write_file(t / 'requests' / names[0],
                       json.dumps({'action': 'accept',
                                   'content': {'text': 5}}))
        assert e.value.errno == errno.EINVAL
        with pytest.raises(OSError) as e:
            write_file(t / 'requests' / names[0], '{"action": "maybe"}')
        assert e.value.errno == errno.EINVAL
        assert os.listdir(t / 'requests') == names   # the question stays
        assert sh.poll() is None                     # the call waits
        write_file(t / 'requests' / names[0], json.dumps(
            {'action': 'accept', 'content': {'text': 'hello'}}))
        out, err = run_with_deadline(lambda: sh.communicate(timeout=30), 40,
                                     'the call to end')
    finally:
        if sh.poll() is None:
            sh.kill()
            sh.wait()
    assert sh.returncode == 0, err
    reply = json.loads(out)
    assert reply['content'] == [
        {'type': 'text', 'text': 'you said: {"text":"hello"}'}], reply
    assert reply.get('resultType') in (None, 'complete'), reply
    assert 'inputRequests' not in reply and 'requestState' not in reply
    assert os.listdir(t / 'requests') == []
    asks = [c for c in calls() if c['params'].get('name') == 'ask']
    assert len(asks) == 2, asks
    first, retry = asks
    assert 'requestState' not in first['params']
    assert 'inputResponses' not in first['params']
    assert retry['id'] != first['id']
    assert retry['params']['inputResponses'] == {
        'answer': {'action': 'accept', 'content': {'text': 'hello'}}}
    assert retry['params']['requestState'].startswith('fake-state-')
    assert retry['params']['arguments'] == {}
    for c in asks:
        assert_modern_meta(c)
    # the thread is still usable, and result/ shows the final reply
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'next'}})) \
        == 'next'


def test_input_required_decline_and_timeout(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'s': efake('--era', 'modern', '--log', log, timeout=3)})
    t = thread(m, 's')
    wait_ready(t, 30)
    box = {}
    th = threading.Thread(target=lambda: box.update(r=call(t, ASK)),
                          daemon=True)
    th.start()
    names = wait_until(lambda: os.listdir(t / 'requests'), 20,
                       'a file in requests/')
    write_file(t / 'requests' / names[0], '{"action": "decline"}')
    th.join(20)
    assert 'r' in box, 'the call did not end after the answer'
    assert text(box['r']) == 'you did not answer: decline', box
    asks = [x for x in logged(log) if x.get('method') == 'tools/call' and
            x['params'].get('name') == 'ask']
    assert asks[-1]['params']['inputResponses'] == {
        'answer': {'action': 'decline'}}
    # unanswered: the call keeps its timeout (3 s) and the question goes
    reply = call(t, ASK, timeout=30)
    assert reply['error']['code'] == -32001, reply
    wait_until(lambda: os.listdir(t / 'requests') == [], 20,
               'the question to expire')
    st = status(t)
    assert (st['questions'], st['state']) == (0, 'ready'), st


@pytest.mark.parametrize('transport', ['stdio', 'http'])
def test_input_required_two_questions(mcpfs_mount, tmp_path, modern_http,
                                      transport):
    """One input_required result with an elicitation and a sampling
    request: two requests/ files; the retry waits for both answers."""
    if transport == 'stdio':
        log = tmp_path / 'fake.log'
        m = mcpfs_mount({'s': efake('--era', 'modern', '--log', log,
                                    sampling=True)})

        def asks():
            return [x for x in logged(log) if x.get('method') ==
                    'tools/call' and x['params'].get('name') == 'ask']
    else:
        srv = modern_http()
        m = mcpfs_mount({'s': {'url': srv.url, 'sampling': True}})

        def asks():
            return [p['json'] for p in srv.posts() if p['json'].get(
                'method') == 'tools/call' and
                p['json']['params'].get('name') == 'ask']
    t = thread(m, 's')
    wait_ready(t, 30)
    box = {}
    req_ = {'name': 'ask', 'arguments': {'kinds': ['elicitation',
                                                   'sampling']}}
    th = threading.Thread(target=lambda: box.update(r=call(t, req_, 60)),
                          daemon=True)
    th.start()
    names = wait_until(lambda: (lambda n: n if len(n) >= 2 or 'r' in box
                                else None)(os.listdir(t / 'requests')),
                       30, 'two files in requests/')
    assert len(names) == 2, (names, box)
    qs = {json.loads(read_file(t / 'requests' / n))['method']: n
          for n in names}
    assert set(qs) == {'elicitation/create', 'sampling/createMessage'}, qs
    assert status(t)['questions'] == 2
    write_file(t / 'requests' / qs['elicitation/create'], json.dumps(
        {'action': 'accept', 'content': {'text': 'one'}}))
    th.join(1.0)
    assert th.is_alive(), box          # still waiting for the second
    assert len(asks()) == 1            # no retry yet
    assert os.listdir(t / 'requests') == [qs['sampling/createMessage']]
    write_file(t / 'requests' / qs['sampling/createMessage'], json.dumps(
        {'role': 'assistant', 'model': 'me', 'stopReason': 'endTurn',
         'content': {'type': 'text', 'text': 'two'}}))
    th.join(30)
    assert 'r' in box, 'the call did not end after both answers'
    assert text(box['r']) == 'you said: {"text":"one"}; the model said: two'
    a = asks()
    assert len(a) == 2, a
    got = a[1]['params']['inputResponses']
    assert set(got) == {'answer', 'model'}, got
    assert got['answer'] == {'action': 'accept', 'content': {'text': 'one'}}
    assert got['model']['content'] == {'type': 'text', 'text': 'two'}
    assert a[1]['id'] != a[0]['id']


def test_input_required_two_calls_at_once(mcpfs_mount, tmp_path):
    """Two calls on one thread each get an input_required result: each
    question is its own requests/ file, and each retry carries its own
    requestState and answer back to its own reader."""
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'s': efake('--era', 'modern', '--log', log)})
    t = thread(m, 's')
    wait_ready(t, 30)
    box = {}
    ths = [threading.Thread(target=lambda w=w: box.update({w: call(t, {
        'name': 'ask', 'arguments': {'message': w}}, 60)}), daemon=True)
        for w in ('first', 'second')]
    for th in ths:
        th.start()
    names = wait_until(lambda: (lambda n: n if len(n) >= 2 else None)(
        os.listdir(t / 'requests')), 30, 'two files in requests/')
    by_msg = {json.loads(read_file(t / 'requests' / n))['message']: n
              for n in names}
    assert set(by_msg) == {'first', 'second'}, by_msg
    write_file(t / 'requests' / by_msg['second'], json.dumps(
        {'action': 'accept', 'content': {'text': 'two'}}))
    ths[1].join(30)
    assert text(box['second']) == 'you said: {"text":"two"}', box
    assert 'first' not in box
    write_file(t / 'requests' / by_msg['first'], json.dumps(
        {'action': 'accept', 'content': {'text': 'one'}}))
    ths[0].join(30)
    assert text(box['first']) == 'you said: {"text":"one"}', box
    asks = [x for x in logged(log) if x.get('method') == 'tools/call' and
            x['params'].get('name') == 'ask']
    assert len(asks) == 4 and len({x['id'] for x in asks}) == 4, asks
    states = [x['params']['requestState'] for x in asks
              if 'requestState' in x['params']]
    assert len(set(states)) == 2, states


def test_input_required_roots_from_the_config(mcpfs_mount, tmp_path):
    """A roots/list input request is answered with the configured roots,
    no question file."""
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'s': efake('--era', 'modern', '--log', log,
                                roots=['/tmp/mcpfs-root-a'])})
    t = thread(m, 's')
    reply = call(t, {'name': 'ask', 'arguments': {'kinds': ['roots']}})
    assert text(reply).startswith('roots: ['), reply
    assert 'file:///tmp/mcpfs-root-a' in text(reply), reply
    asks = [x for x in logged(log) if x.get('method') == 'tools/call' and
            x['params'].get('name') == 'ask']
    assert len(asks) == 2, asks
    roots = asks[1]['params']['inputResponses']['roots']['roots']
    assert [r['uri'] for r in roots] == ['file:///tmp/mcpfs-root-a'], roots


# ---------------------------------------------------------------- listen

@pytest.mark.parametrize('transport', ['stdio', 'http'])
def test_listen_feeds_events_and_tools(mcpfs_mount, tmp_path, modern_http,
                                       transport):
    if transport == 'stdio':
        log = tmp_path / 'fake.log'
        m = mcpfs_mount({'s': efake('--era', 'modern', '--log', log)})

        def listens():
            return [x for x in logged(log)
                    if x.get('method') == 'subscriptions/listen']
    else:
        srv = modern_http()
        m = mcpfs_mount({'s': {'url': srv.url}})

        def listens():
            return [p['json'] for p in srv.posts()
                    if p['json'].get('method') == 'subscriptions/listen'
                    and p['note'] == 'listen']
    t = thread(m, 's')
    before = set(os.listdir(t / 'tools'))
    assert 'echo' in before and 'fresh' not in before
    got = wait_until(listens, 20, 'mcpfs to send subscriptions/listen')
    assert got[0]['params']['notifications'].get('toolsListChanged') is True
    assert_modern_meta(got[0])
    reply = tool(t, 'add_tool', name='fresh')
    assert 'notified 1 subscription' in text(reply), reply
    wait_until(lambda: [e for e in events(t) if e.get('method') ==
                        'notifications/tools/list_changed'], 20,
               'list_changed in events')
    wait_until(lambda: 'fresh' in os.listdir(t / 'tools'), 20,
               'the new tool in tools/')
    write_file(t / 'tools' / 'fresh', '{"text": "new"}')
    assert text(json.loads(read_file(t / 'tools' / 'fresh', 30))) == 'new'


def test_listen_again_after_restart(mcpfs_mount, tmp_path):
    """stdio: a new process holds no subscription, so mcpfs sends
    subscriptions/listen again (subscriptions.mdx, Graceful Closure)."""
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'s': efake('--era', 'modern', '--log', log)})
    t = thread(m, 's')

    def listens():
        return [x for x in logged(log)
                if x.get('method') == 'subscriptions/listen']
    wait_until(listens, 20, 'the first subscriptions/listen')
    pid = wait_ready(t, 30)['pid']
    write_file(t / 'ctl', 'restart\n')
    wait_until(lambda: (lambda st: st['state'] == 'ready' and
                        st['pid'] != pid)(status(t)), 20,
               'the restarted process')
    wait_until(lambda: len(listens()) >= 2, 20,
               'subscriptions/listen on the new process')
    assert 'notified 1 subscription' in text(tool(t, 'add_tool',
                                                  name='after'))
    wait_until(lambda: 'after' in os.listdir(t / 'tools'), 20,
               'the new tool in tools/')


def test_no_listen_without_list_changed(mcpfs_mount, tmp_path):
    """subscriptions/listen only when the capabilities offer list_changed
    (spec 9: a listing is refreshed by list_changed)."""
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'s': efake('--era', 'modern', '--no-list-changed',
                                '--log', log)})
    t = thread(m, 's')
    assert text(tool(t, 'echo', text='x')) == 'x'
    assert 'echo' in os.listdir(t / 'tools')
    time.sleep(1)
    ms = methods(logged(log))
    assert 'server/discover' in ms and 'tools/list' in ms, ms
    assert 'subscriptions/listen' not in ms, ms


def test_modern_timeout_cancels_and_crash_restarts(mcpfs_mount, tmp_path):
    """spec 5 holds in the modern era: a call past its timeout gets
    notifications/cancelled and fails, the session stays; a crashed process
    is replaced by a fresh one on the next call, still modern."""
    log = tmp_path / 'fake.log'
    # its calls include the server's start (the first, and the one after
    # the crash): 2 s unless the machine is loaded
    m = mcpfs_mount({'s': efake('--era', 'modern', '--log', log,
                                timeout=slacked(2))})
    t = thread(m, 's')
    assert text(tool(t, 'counter')) == '1'
    reply = tool(t, 'hang', timeout=30)
    assert reply['error']['code'] == -32001, reply
    hang = [x for x in logged(log) if x.get('method') == 'tools/call' and
            x['params'].get('name') == 'hang'][0]
    got = wait_until(lambda: [x for x in logged(log) if x.get('method') ==
                              'notifications/cancelled'], 10,
                     'notifications/cancelled')
    assert got[0]['params']['requestId'] == hang['id'], got
    assert text(tool(t, 'counter')) == '2'          # same process
    gen = status(t)['generation']
    assert 'error' in tool(t, 'crash', code=3)
    assert text(tool(t, 'counter', timeout=30)) == '1'   # a fresh one
    st = status(t)
    assert st['generation'] == gen + 1, st
    assert (st.get('era'), st['protocolVersion']) == ('modern', MODERN), st
    assert 'initialize' not in methods(logged(log))


def test_modern_http_timeout_closes_instead_of_notifying(mcpfs_mount,
                                                        modern_http):
    """Over modern HTTP closing the request is the cancellation: no
    notifications/cancelled POST (streamable-http.mdx, Cancellation)."""
    srv = modern_http()
    m = mcpfs_mount({'h': {'url': srv.url, 'timeout': 2}})
    t = thread(m, 'h')
    reply = tool(t, 'sleep', ms=4000, timeout=30)
    assert reply['error']['code'] == -32001, reply
    assert text(tool(t, 'echo', text='after')) == 'after'
    time.sleep(2.5)         # past the end of the sleep on the server
    ms = [p['json'].get('method') for p in srv.posts()]
    assert 'notifications/cancelled' not in ms, ms
    assert status(t).get('era') == 'modern'
