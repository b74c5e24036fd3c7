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
                      wait_until)
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
    r = c.do(op='call', name='a__sleep', arguments={'ms': 20000},
             abortMs=300, abortReason='the user pressed stop')

    assert 'error' in r, r

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
                       text=True, timeout=30)
    assert p.returncode == 1, p
    assert p.stderr.startswith(f'mcpfs serve: --thread {name}: '), p.stderr
    assert p.stdout == ''
    # mkdir refuses the same names
    with pytest.raises(OSError):
        (m.path / 'a' / name).mkdir()
    assert sorted(os.listdir(m.path / 'a')) == before
