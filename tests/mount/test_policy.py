"""The tool policy (spec 13): allowTools / denyTools (shell globs, deny
wins) and readOnly. A hidden tool is absent from tools.json (thread and
server), tools/ and status shows the policy; a request for it by any path
never reaches the server, which the fake server's request log (--log)
shows, and fails with {"error": {"code": -32602, "message": "tool X is not
allowed by the policy of server S (RULE)"}}. A policy change on reload
applies at once to the running session, without a restart."""

import json
import os

import pytest

from conftest import (DEMO, FAKESERVER, call, call_raw, read_file, status,
                      text, tool, wait_until, write_file)


def calls_in(log, name=None):
    """The tools/call requests the fake server received (for tool name)."""
    if not log.exists():
        return []
    out = []
    for line in log.read_text().splitlines():
        m = json.loads(line)
        if m.get('method') == 'tools/call' and \
                (name is None or m['params'].get('name') == name):
            out.append(m)
    return out


def lists_in(log):
    """How many tools/list requests the fake server received."""
    return sum(json.loads(line).get('method') == 'tools/list'
               for line in log.read_text().splitlines() if line)


def names(path):
    return {t['name'] for t in json.loads(read_file(path))['tools']}


def refused(reply, tool_name, server, rule):
    assert reply == {'error': {
        'code': -32602,
        'message': f'tool {tool_name} is not allowed by the policy of '
                   f'server {server} ({rule})'}}, reply


def fake(log, *more, **policy):
    return dict({'command': str(FAKESERVER),
                 'args': ['--log', str(log), '--tools', '3', *more]},
                **policy)


@pytest.mark.parametrize('era', ['legacy', 'modern'])
def test_deny_hides_and_refuses_every_path(mcpfs_mount, tmp_path, era):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'f': fake(log, '--era', era,
                               denyTools=['ech?', 't[01]'])})
    t = m.path / 'f' / 't'
    os.mkdir(t)
    listed = names(t / 'tools.json')
    assert 'echo' not in listed and 't0' not in listed and 't1' not in listed
    assert {'pid', 'env', 't2'} <= listed
    assert 'echo' not in names(m.path / 'f' / 'tools.json')
    assert 'echo' not in os.listdir(t / 'tools')
    assert 'pid' in os.listdir(t / 'tools')

    refused(tool(t, 'echo', text='x'), 'echo', 'f', 'denyTools')
    refused(call(t, {'method': 'tools/call',
                     'params': {'name': 't0', 'arguments': {}}}),
            't0', 'f', 'denyTools')
    # the method written with an escape is still tools/call
    refused(json.loads(call_raw(t, b'{"method":"tools\\/call","params":'
                                   b'{"name":"echo","arguments":{}}}')),
            'echo', 'f', 'denyTools')
    refused(tool(m.path / 'f', 'echo', text='x'), 'echo', 'f', 'denyTools')
    with pytest.raises(FileNotFoundError):
        write_file(t / 'tools' / 'echo', b'text=x')
    st = status(t)
    assert st['policy'] == {'denyTools': ['ech?', 't[01]'],
                            'readOnly': False}
    assert 'not allowed by the policy' in st['last_error']
    # and the log says it, where an operator looks (spec 12)
    assert ('server f: tool echo is not allowed by the policy of server f '
            '(denyTools)') in m.log.read_text()

    assert text(tool(t, 'env', name='HOME')) == os.environ['HOME']
    assert len(calls_in(log, 'env')) == 1   # the log works ...
    assert calls_in(log, 'echo') == []      # ... and saw no hidden call
    assert calls_in(log, 't0') == []


def test_allow_list(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'f': fake(log, allowTools=['pid', 't*'],
                               denyTools=['t2'])})
    t = m.path / 'f' / 't'
    os.mkdir(t)
    assert names(t / 'tools.json') == {'pid', 't0', 't1'}
    refused(tool(t, 'counter'), 'counter', 'f', 'allowTools')
    refused(tool(t, 't2'), 't2', 'f', 'denyTools')  # deny wins
    assert text(tool(t, 't0', text='hi')) == 'hi'
    assert calls_in(log, 'counter') == [] and calls_in(log, 't2') == []
    assert len(calls_in(log)) == 1
    srv = {s['name']: s for s in m.status()['servers']}['f']
    assert srv['policy'] == {'allowTools': ['pid', 't*'],
                             'denyTools': ['t2'], 'readOnly': False}


def test_read_only(mcpfs_mount):
    m = mcpfs_mount({'demo': {'command': str(DEMO), 'readOnly': True}})
    t = m.path / 'demo' / 't'
    os.mkdir(t)
    # incr and set change state; the demo marks the rest readOnlyHint
    listed = names(t / 'tools.json')
    assert 'set' not in listed and 'incr' not in listed
    assert {'get', 'keys'} <= listed
    refused(tool(t, 'set', key='k', value='v'), 'set', 'demo', 'readOnly')
    refused(tool(m.path / 'demo', 'incr'), 'incr', 'demo', 'readOnly')
    # set never reached the server: no key was stored
    assert json.loads(text(tool(t, 'keys'))) == []


def test_read_only_first_call_waits_for_listing(mcpfs_mount, tmp_path):
    """Without a listing read first, a readOnly call still fetches the
    annotations before deciding (the fake annotates nothing: all hidden)."""
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'f': fake(log, readOnly=True)})
    t = m.path / 'f' / 't'
    os.mkdir(t)
    refused(tool(t, 'echo', text='x'), 'echo', 'f', 'readOnly')
    assert calls_in(log) == []
    assert names(t / 'tools.json') == set()


def test_reload_changes_policy_without_restart(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'f': fake(log)})
    t = m.path / 'f' / 't'
    os.mkdir(t)
    assert text(tool(t, 'echo', text='a')) == 'a'
    pid = status(t)['pid']
    assert 'echo' in names(t / 'tools.json')
    assert 'echo' in os.listdir(t / 'tools')
    m.reload({'f': fake(log, denyTools=['echo'])})
    wait_until(lambda: status(t)['policy'] is not None, 20, 'the reload')
    assert 'echo' not in names(t / 'tools.json')
    assert 'echo' not in os.listdir(t / 'tools')
    assert not (t / 'tools' / 'echo').exists()
    assert 'echo' not in names(m.path / 'f' / 'tools.json')
    refused(tool(t, 'echo', text='b'), 'echo', 'f', 'denyTools')
    assert status(t)['pid'] == pid          # the same process
    assert len(calls_in(log, 'echo')) == 1  # only the first one
    m.reload({'f': fake(log)})
    wait_until(lambda: status(t)['policy'] is None, 20, 'the reload back')
    assert text(tool(t, 'echo', text='c')) == 'c'
    assert status(t)['pid'] == pid
    assert len(calls_in(log, 'echo')) == 2


def test_bad_policy_is_refused(tmp_path):
    from conftest import run_mcpfs_expect_exit
    rc, out = run_mcpfs_expect_exit(tmp_path, json.dumps(
        {'mcpServers': {'f': {'command': 'x', 'denyTools': 'echo'}}}))
    assert rc == 1
    assert 'mcpServers.f.denyTools: must be an array of strings' in out
