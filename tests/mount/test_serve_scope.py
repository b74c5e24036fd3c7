"""What one serve client sees (spec 14): scoped clients (`mcpfs serve
--servers a,b`, `/mcp?servers=a,b`) and the search surface (`--tools
search`, `?tools=search`, `-o serve_tools=search`), driven by the official
TypeScript SDK's client (tests/serve/sdk_client.mjs) over stdio and over
Streamable HTTP, with the shell reading the thread the calls ran in.
"""
import json
import os
import subprocess
import urllib.parse

import pytest

from conftest import (MCPFS, REPO, demo, everything, fake, needs_everything,
                      read_file, run_with_deadline, wait_until)
from test_serve import SDK_CLIENT, Client, needs_sdk, result_text
from test_serve_http import INIT, entry, post

MEMORY = REPO / 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'
SEARCH = ['mcpfs__search_tools', 'mcpfs__describe_tool', 'mcpfs__call_tool']


class Scoped(Client):
    """The SDK's client with `mcpfs serve` arguments (stdio) or a URL
    with a query (HTTP); hello: its first line (connected, or the error
    of a refused connection)."""

    def __init__(self, m, thread=None, serve_args=(), url=None, auth=None,
                 answer=None):
        self._env = {'SDK_SERVE_ARGS': json.dumps(list(serve_args))}
        if answer is not None:
            self._env['SDK_ANSWER'] = json.dumps(answer)
        args = ['--http', url, auth[len('Bearer '):]] if url else \
            [str(MCPFS), str(m.path)] + ([thread] if thread else [])
        self.p = subprocess.Popen(
            ['node', str(SDK_CLIENT)] + args, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=str(REPO), env=dict(os.environ, **self._env))
        self.hello = self._line(60)

    def connected(self):
        assert self.hello.get('ok') == 'connected', self.hello
        return self

    def refused(self):
        assert 'error' in self.hello, self.hello
        assert self.p.wait(30) == 1
        return self.hello['error']


def url_of(m, path='/mcp', **query):
    url, auth = entry(m)
    base = url[:-len('/mcp')] + path
    return (base + ('?' + urllib.parse.urlencode(query) if query else ''),
            auth)


def client(m, door, thread=None, **scope):
    """A connected client of m through door ('stdio' or 'http') with scope
    (servers=, tools=) given as that door takes it."""
    if door == 'stdio':
        args = [a for k, v in scope.items() for a in (f'--{k}', v)]
        return Scoped(m, thread, args).connected()
    url, auth = url_of(m, f'/mcp/{thread}' if thread else '/mcp', **scope)
    return Scoped(m, url=url, auth=auth).connected()


def listing_bytes(tools):
    """The bytes of a tools/list result holding tools, as sent."""
    return len(json.dumps({'tools': tools}, separators=(',', ':'),
                          ensure_ascii=False).encode())


DOORS = ['stdio', 'http']


@needs_sdk
@needs_everything
@pytest.mark.parametrize('door', DOORS)
def test_a_scoped_client_sees_and_reaches_its_servers_only(mcpfs_mount,
                                                           door):
    m = mcpfs_mount({'a': fake(), 'b': fake(), 'ev': everything(timeout=60)},
                    args=['--serve', '127.0.0.1:0'])
    c = client(m, door, 'agent', servers='a,ev')
    tools = c.ok(op='tools')
    assert 'a__echo' in tools and 'ev__echo' in tools, tools
    assert not [t for t in tools if t.startswith('b__')], tools
    assert result_text(c.ok(op='call', name='a__echo',
                            arguments={'text': 'mine'})) == 'mine'
    # a server outside the scope is no server to it: the error of a tool
    # that does not exist, and no thread made there
    r = c.do(op='call', name='b__echo', arguments={'text': 'theirs'})
    assert 'error' in r and 'no such tool' in r['error'], r
    assert 'agent' not in os.listdir(m.path / 'b')
    c.close()
    # prompts and resources are scoped too: a client of a alone sees none
    # of ev's, and a read of ev's resource is not found
    full = client(m, door)
    uris = full.ok(op='resources')
    assert uris, uris
    full.close()
    c = client(m, door, servers='a')
    assert not [p for p in c.ok(op='prompts') if p.startswith('ev__')]
    assert c.ok(op='resources') == []
    r = c.do(op='read', uri=uris[0])
    assert 'error' in r and 'not found' in r['error'].lower(), r
    c.close()


@needs_sdk
def test_an_unknown_server_is_refused_saying_which_there_are(mcpfs_mount):
    m = mcpfs_mount({'a': fake(), 'b': fake()},
                    args=['--serve', '127.0.0.1:0'])
    # stdio: `mcpfs serve` says why and exits 1, before any MCP
    p = subprocess.run([str(MCPFS), 'serve', '--servers', 'a,nope',
                        str(m.path)], input='', capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 1, p
    assert p.stderr == 'mcpfs serve: no server nope in this mount (its ' \
        'servers: a, b)\n', p.stderr
    assert p.stdout == ''
    p = subprocess.run([str(MCPFS), 'serve', '--tools', 'some',
                        str(m.path)], input='', capture_output=True,
                       text=True, timeout=30)
    assert (p.returncode, p.stderr) == \
        (1, 'mcpfs serve: --tools some: all or search\n'), p
    err = Scoped(m, serve_args=['--servers', 'nope']).refused()
    assert 'closed' in err.lower(), err
    # HTTP: 400 with the JSON-RPC error of the initialize request
    url, auth = url_of(m, servers='a,nope')
    s, h, body = post(url, INIT, {'Authorization': auth})
    assert s == 400, (s, body)
    assert h['Content-Type'] == 'application/json'
    assert 'Mcp-Session-Id' not in h
    e = json.loads(body)
    assert e['id'] == INIT['id'] and e['error']['code'] == -32602, e
    assert e['error']['message'] == \
        'no server nope in this mount (its servers: a, b)', e
    url, auth = url_of(m, servers='a,')
    s, _, body = post(url, INIT, {'Authorization': auth})
    assert s == 400 and b'a name is empty' in body, body
    url, auth = url_of(m, tools='some')
    s, _, body = post(url, INIT, {'Authorization': auth})
    assert s == 400 and b'tools=some: all or search' in body, body
    url, auth = url_of(m, '/mcp/agent', servers='nope')
    err = Scoped(m, url=url, auth=auth).refused()
    assert 'no server nope' in err, err
    assert 'agent' not in os.listdir(m.path / 'a')


def search(c, query, **kw):
    return c.ok(op='call', name='mcpfs__search_tools',
                arguments=dict(query=query, **kw))['result']


def describe(c, name):
    return c.ok(op='call', name='mcpfs__describe_tool',
                arguments={'name': name})['result']


@needs_sdk
@needs_everything
@pytest.mark.skipif(not MEMORY.exists(), reason=f'{MEMORY} missing')
@pytest.mark.parametrize('door', DOORS)
def test_search_describe_and_call(mcpfs_mount, door):
    m = mcpfs_mount({'demo': demo(), 'everything': everything(timeout=60),
                     'memory': {'command': 'node', 'args': [str(MEMORY)]},
                     'a': fake()},
                    args=['--serve', '127.0.0.1:0'])
    full = client(m, door)
    every = full.ok(op='toolsfull')
    full.close()
    c = client(m, door, 'agent', tools='search')
    assert 'mcpfs__search_tools' in c.hello['instructions']
    three = c.ok(op='toolsfull')
    assert [t['name'] for t in three] == SEARCH, three
    # the surface is a small part of the full listing, a for each server:
    # demo, everything and memory (the fake a counted in neither)
    of3 = [t for t in every if not t['name'].startswith('a__')]
    small, big = listing_bytes(three), listing_bytes(of3)
    print(f'listing bytes: full {big} ({len(of3)} tools), search {small} '
          f'({100 * small / big:.1f}%)')
    assert small <= 0.15 * big, (small, big)
    # a search finds server-everything's echo, one line each: every
    # echo by its name (the config's order in a tie), then by more words
    r = search(c, 'echo')
    lines = result_text({'result': r}).splitlines()
    assert [x.split(':')[0] for x in lines] == \
        ['demo__echo', 'everything__echo', 'a__echo'], lines
    assert lines[1] == 'everything__echo: Echoes back the input string'
    assert not r.get('isError'), r
    r = search(c, 'ECHO back-input', limit=1)
    lines = result_text({'result': r}).splitlines()
    assert lines == ['everything__echo: Echoes back the input string',
                     '(2 more: a larger limit, or more words)'], lines
    # a describe is the entry of the full listing
    d = json.loads(result_text({'result': describe(c, 'everything__echo')}))
    assert d == next(t for t in every if t['name'] == 'everything__echo')
    # the call runs in the client's thread, as a direct call: its trace
    r = c.ok(op='call', name='mcpfs__call_tool',
             arguments={'name': 'everything__echo',
                        'arguments': {'message': 'through-search-42'}})
    assert 'through-search-42' in result_text(r), r
    t = m.path / 'everything' / 'agent'
    trace = read_file(t / 'trace').decode()
    sent = [json.loads(x) for x in trace.splitlines()
            if 'through-search-42' in x]
    assert sent, trace[-2000:]
    assert b'through-search-42' in read_file(t / 'result' / 'text')
    # progress and cancel pass as for a direct call
    r = c.ok(op='call', name='mcpfs__call_tool', progress=True,
             arguments={'name': 'a__progress',
                        'arguments': {'steps': 3, 'ms': 50}})
    assert result_text(r) == 'done', r
    assert [p['progress'] for p in r['progress']] in ([1, 2], [1, 2, 3]), r
    r = c.do(op='call', name='mcpfs__call_tool', abortMs=300,
             arguments={'name': 'a__sleep', 'arguments': {'ms': 20000}})
    assert 'error' in r and 'abort' in r['error'].lower(), r
    wait_until(lambda: b'notifications/cancelled' in
               read_file(m.path / 'a' / 'agent' / 'trace'), 20,
               'the cancel in the thread\'s trace')
    # a direct call still goes: the surface is what is listed
    assert result_text(c.ok(op='call', name='a__echo',
                            arguments={'text': 'direct'})) == 'direct'
    # bad input
    r = search(c, ' ,. ')
    assert r.get('isError') and 'no words' in result_text({'result': r})
    r = search(c, 'zzzqqq')
    assert result_text({'result': r}).startswith('no tool matches'), r
    r = describe(c, 'everything__nope')
    assert r.get('isError'), r
    assert 'no tool everything__nope' in result_text({'result': r})
    # an unknown tool: what a direct call of it gets, the server's answer
    # or mcpfs's when no server has the name
    for name in ('everything__nope', 'nowhere__x'):
        r = c.do(op='call', name='mcpfs__call_tool',
                 arguments={'name': name})
        assert r == c.do(op='call', name=name), r
    assert 'error' in r and 'no such tool' in r['error'], r
    r = c.do(op='call', name='mcpfs__call_tool', arguments={})
    assert 'error' in r and 'needs a name' in r['error'], r
    c.close()


@needs_sdk
@needs_everything
@pytest.mark.parametrize('door', DOORS)
def test_search_within_a_scope(mcpfs_mount, door):
    m = mcpfs_mount({'a': fake(), 'everything': everything(timeout=60)},
                    args=['--serve', '127.0.0.1:0'])
    c = client(m, door, 'agent', servers='a', tools='search')
    assert c.ok(op='tools') == SEARCH
    text = result_text({'result': search(c, 'echo')})
    assert text.splitlines()[0].startswith('a__echo'), text
    assert 'everything__' not in text, text
    r = describe(c, 'everything__echo')
    assert r.get('isError'), r
    r = c.do(op='call', name='mcpfs__call_tool',
             arguments={'name': 'everything__echo',
                        'arguments': {'message': 'x'}})
    assert 'error' in r and 'no such tool' in r['error'], r
    assert not os.path.exists(m.path / 'everything' / 'agent')
    c.close()


@needs_sdk
@pytest.mark.parametrize('door', DOORS)
def test_search_as_the_mount_default(mcpfs_mount, door):
    m = mcpfs_mount({'a': fake()}, args=['--serve', '127.0.0.1:0',
                                         '-o', 'serve_tools=search'])
    c = client(m, door)
    assert c.ok(op='tools') == SEARCH
    c.close()
    c = client(m, door, tools='all')
    tools = c.ok(op='tools')
    assert 'a__echo' in tools and 'mcpfs__search_tools' not in tools
    c.close()


def test_a_bad_serve_tools_is_refused(tmp_path):
    p = subprocess.run([str(MCPFS), '-o', 'serve_tools=most', '-f',
                        str(tmp_path)], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 2, p
    assert 'serve_tools=most: all or search' in p.stderr, p.stderr
