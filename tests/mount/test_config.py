"""Configuration (spec 2) and secrets (section 6): start-up errors,
server names, url entries, ${VAR} expansion, the default config, and live
reload by SIGHUP and by editing the file."""

import json
import os
import subprocess

import pytest

from conftest import (BUILD, error_text, fake, FAKESERVER, MCPFS, pid_gone,
                      read_file, run_mcpfs_expect_exit, status, text, thread,
                      tool, wait_until)


def servers_listed(m):
    return {n for n in os.listdir(m.path) if n not in ('.status',
                                                       'README.md')}


# ---------------------------------------------------------------- start-up errors

def test_invalid_json_names_file_and_line(tmp_path):
    rc, out = run_mcpfs_expect_exit(
        tmp_path, '{\n  "mcpServers": {\n    "a": {"command": }\n  }\n}\n')
    assert rc == 1
    assert f'{tmp_path / "bad.json"}:3' in out, out


@pytest.mark.parametrize('doc, field', [
    ({'mcpServers': {'a': {'command': 5}}}, 'command'),
    ({'mcpServers': {'a': {'args': ['x']}}}, 'command'),
    ({'mcpServers': {'a': {'command': 'x', 'args': 'notalist'}}}, 'args'),
    ({'mcpServers': {'a': {'command': 'x', 'args': [1]}}}, 'args'),
    ({'mcpServers': {'a': {'command': 'x', 'env': {'K': 1}}}}, 'env'),
    ({'mcpServers': {'a': {'command': 'x', 'env': ['K=1']}}}, 'env'),
    ({'mcpServers': {'a': {'command': 'x', 'cwd': 7}}}, 'cwd'),
    ({'mcpServers': {'a': {'command': 'x', 'timeout': 'soon'}}}, 'timeout'),
    ({'mcpServers': {'a': {'command': 'x', 'timeout': -5}}}, 'timeout'),
    ({'mcpServers': {'a': {'command': 'x', 'disabled': 'no'}}}, 'disabled'),
    ({'mcpServers': {'a': {'command': '${UNCLOSED'}}}, 'command'),
    ({'mcpServers': {'a': 'fakeserver'}}, 'a'),
    ({'mcpServers': []}, 'mcpServers'),
])
def test_invalid_field_names_file_and_field(tmp_path, doc, field):
    rc, out = run_mcpfs_expect_exit(tmp_path, json.dumps(doc, indent=1))
    assert rc == 1
    assert str(tmp_path / 'bad.json') in out, out
    assert field in out, out


def test_not_an_object(tmp_path):
    rc, out = run_mcpfs_expect_exit(tmp_path, '[1, 2]')
    assert rc == 1
    assert str(tmp_path / 'bad.json') in out, out


@pytest.mark.parametrize('name', ['.hidden', '..', '.', 'a/b', ''])
def test_bad_server_name_refused(tmp_path, name):
    doc = {'mcpServers': {name: fake(), 'ok': fake()}}
    rc, out = run_mcpfs_expect_exit(tmp_path, json.dumps(doc))
    assert rc == 1
    assert str(tmp_path / 'bad.json') in out, out
    # the message itself says it is about the name (the temp path, which
    # holds the test's name, does not count)
    assert 'name' in out.replace(str(tmp_path), '').lower(), out
    if name:
        assert name in out


def test_missing_config_file(tmp_path):
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    missing = tmp_path / 'nope.json'
    r = subprocess.run([str(MCPFS), '-f', '-c', str(missing), str(mnt)],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 1, r
    assert str(missing) in r.stdout + r.stderr


@pytest.mark.parametrize('args', [['--idle-timeout', 'abc'],
                                  ['--max-sessions', '-1'],
                                  ['--call-timeout', 'x'],
                                  ['--call-timeout', '-3'],
                                  ['--no-such-option']])
def test_bad_option_values(tmp_path, args):
    rc, out = run_mcpfs_expect_exit(
        tmp_path, json.dumps({'mcpServers': {'a': fake()}}), args=args,
        expect_rc=2)
    assert rc == 2   # bad options (mcpfs(1), EXIT STATUS)
    # a message that says what is wrong: names the option or its subject
    assert args[0] in out or args[0].split('-')[-1] in out.lower(), out


# ---------------------------------------------------------------- entries

def test_url_entries_listed_with_their_transport(mcpfs_mount):
    m = mcpfs_mount({'ok': fake(),
                     'remote': {'url': 'http://127.0.0.1:9/mcp'},
                     'ssesrv': {'type': 'sse', 'url': 'http://127.0.0.1:9/s'},
                     'httpsrv': {'type': 'http',
                                 'url': 'http://127.0.0.1:9/h'},
                     'strict': {'type': 'streamable-http',
                                'url': 'http://127.0.0.1:9/x'}})
    assert servers_listed(m) == {'ok', 'remote', 'ssesrv', 'httpsrv',
                                 'strict'}
    st = m.status()
    assert st['warnings'] == [], st
    kinds = {s['name']: s['transport'] for s in st['servers']}
    assert kinds == {'ok': 'stdio', 'remote': 'http', 'ssesrv': 'sse',
                     'httpsrv': 'http', 'strict': 'http'}, kinds
    assert text(tool(m.path / 'ok', 'echo', text='x')) == 'x'


def test_disabled_entry_left_out(mcpfs_mount):
    m = mcpfs_mount({'on': fake(), 'off': dict(fake(), disabled=True)})
    assert servers_listed(m) == {'on'}


def test_vscode_servers_key(mcpfs_mount):
    m = mcpfs_mount(None, config_extra={'servers': {'vs': fake()}})
    assert servers_listed(m) == {'vs'}
    assert text(tool(thread(m, 'vs'), 'echo', text='vs')) == 'vs'


def test_var_expansion(mcpfs_mount, tmp_path):
    wd = tmp_path / 'work dir'
    wd.mkdir()
    env = {'MCPFS_T_A': 'alpha', 'MCPFS_T_DIR': str(wd), 'MCPFS_T_N': '3',
           'MCPFS_T_BUILD': str(BUILD)}
    os.environ.pop('MCPFS_T_UNSET', None)
    m = mcpfs_mount({'a': {
        'command': '${MCPFS_T_BUILD}/tests/fake/fakeserver',
        'args': ['--stderr-lines', '${MCPFS_T_N}'],
        'env': {'X': '${MCPFS_T_A}', 'Y': '${MCPFS_T_UNSET:-dflt}',
                'Z': '${MCPFS_T_A:-dflt}', 'W': 'pre-${MCPFS_T_A}-post',
                'V': '${MCPFS_T_UNSET:-a b/c}', 'D': '$MCPFS_T_A'},
        'cwd': '${MCPFS_T_DIR}'}}, env=env)
    t = thread(m)
    got = {k: text(tool(t, 'env', name=k)) for k in 'XYZWVD'}
    assert got == {'X': 'alpha', 'Y': 'dflt', 'Z': 'alpha',
                   'W': 'pre-alpha-post', 'V': 'a b/c',
                   'D': '$MCPFS_T_A'}   # "$" without "{" is kept
    # the child inherits mcpfs's environment plus env
    assert text(tool(t, 'env', name='MCPFS_T_A')) == 'alpha'
    assert text(tool(t, 'cwd')) == str(wd)
    err = read_file(t / 'stderr').decode()
    assert 'stderr line 2\n' in err and 'stderr line 3' not in err


def test_default_config_is_demo(mcpfs_mount, tmp_path):
    xdg = tmp_path / 'emptyxdg'
    xdg.mkdir()
    m = mcpfs_mount(None, use_config=False, env={'XDG_CONFIG_HOME': str(xdg)})
    assert servers_listed(m) == {'demo'}
    t = thread(m, 'demo')
    assert text(tool(t, 'incr')) == '1'
    assert text(tool(t, 'incr')) == '2'


def test_xdg_config_used(mcpfs_mount, tmp_path):
    xdg = tmp_path / 'xdg2'
    (xdg / 'mcpfs').mkdir(parents=True)
    cfg = xdg / 'mcpfs' / 'servers.json'
    cfg.write_text(json.dumps({'mcpServers': {'fromxdg': fake()}}))
    m = mcpfs_mount(None, use_config=False, env={'XDG_CONFIG_HOME': str(xdg)})
    assert servers_listed(m) == {'fromxdg'}
    assert str(cfg) in json.dumps(m.status())
    assert text(tool(thread(m, 'fromxdg'), 'echo', text='x')) == 'x'


def test_secrets_not_shown(mcpfs_mount):
    secret = 's3cr3t-value-7f3a9'
    m = mcpfs_mount({'a': dict(fake('--page-size', '987654321'),
                               env={'API_TOKEN': secret})})
    t = thread(m)
    assert text(tool(t, 'env', name='API_TOKEN')) == secret
    tool(t, 'crash', code=2, timeout=10)
    tool(t, 'pid')
    tool(m.path / 'a', 'pid')
    read_file(m.path / 'a' / 'tools.json', 20)
    shown = [read_file(m.path / '.status'), read_file(t / 'status'),
             m.output().encode()]
    for blob in shown:
        assert secret.encode() not in blob
        assert b'987654321' not in blob
        assert str(FAKESERVER).encode() not in blob
    assert b'fakeserver' in shown[0] + shown[1]   # the basename is shown


# ---------------------------------------------------------------- reload

def test_reload_sighup_adds_server(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    m.reload({'a': fake(), 'b': fake()})
    wait_until(lambda: 'b' in servers_listed(m), 5, 'server b to appear')
    assert text(tool(thread(m, 'b'), 'echo', text='b')) == 'b'
    assert int(text(tool(t, 'pid'))) == pid   # unchanged entry kept
    assert 'b' in json.dumps(m.status()['servers'])


@pytest.mark.parametrize('how', ['removed', 'disabled'])
def test_reload_removes_server(mcpfs_mount, how):
    m = mcpfs_mount({'a': fake(), 'b': fake()})
    tb = thread(m, 'b')
    pb = int(text(tool(tb, 'pid')))
    ta = thread(m)
    pa = int(text(tool(ta, 'pid')))
    new = {'a': fake()}
    if how == 'disabled':
        new['b'] = dict(fake(), disabled=True)
    m.reload(new)
    wait_until(lambda: servers_listed(m) == {'a'}, 5, 'server b to go')
    assert not tb.exists()
    wait_until(lambda: pid_gone(pb), 7, "b's process to end")
    assert int(text(tool(ta, 'pid'))) == pa
    assert m.status()['sessions'] == 1


@pytest.mark.parametrize('atomic', [True, False], ids=['rename', 'in-place'])
def test_reload_on_file_change(mcpfs_mount, atomic):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    m.write_config({'a': fake(), 'c': fake()}, atomic=atomic)
    wait_until(lambda: 'c' in servers_listed(m), 5, 'the edit to be seen')
    assert int(text(tool(t, 'pid'))) == pid
    m.write_config({'c': fake()}, atomic=atomic)
    wait_until(lambda: servers_listed(m) == {'c'}, 5,
               'the second edit to be seen')
    wait_until(lambda: pid_gone(pid), 7, "a's process to end")


ALT_FAKESERVER = str(BUILD / 'tests' / 'fake' / '..' / 'fake' / 'fakeserver')


@pytest.mark.parametrize('change', ['args', 'env', 'cwd', 'command'])
def test_reload_launch_change_closes_sessions(mcpfs_mount, change):
    m = mcpfs_mount({'a': fake(), 'b': fake()})
    t = thread(m)
    tb = thread(m, 'b')
    pid = int(text(tool(t, 'pid')))
    pb = int(text(tool(tb, 'pid')))
    entry = {'args': fake('--stderr-lines', '1'),
             'env': dict(fake(), env={'NEWVAR': 'nv'}),
             'cwd': dict(fake(), cwd='/tmp'),
             'command': dict(fake(), command=ALT_FAKESERVER)}[change]
    m.reload({'a': entry, 'b': fake()})
    wait_until(lambda: not t.exists(), 5, 'the session to be closed')
    wait_until(lambda: pid_gone(pid), 7, 'its process to end')
    assert servers_listed(m) == {'a', 'b'}
    assert int(text(tool(tb, 'pid'))) == pb   # other server untouched
    t2 = thread(m, 'a', 't2')
    if change == 'env':
        assert text(tool(t2, 'env', name='NEWVAR')) == 'nv'
    elif change == 'cwd':
        assert text(tool(t2, 'cwd')) == '/tmp'
    else:
        assert text(tool(t2, 'echo', text='new')) == 'new'


def test_reload_timeout_change_keeps_session(mcpfs_mount):
    m = mcpfs_mount({'a': fake()}, args=['--call-timeout', '30'])
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    gen = status(t)['generation']
    m.reload({'a': dict(fake(), timeout=1, idleTimeout=100)})

    def timed_out():
        r = tool(t, 'sleep', ms=1500, timeout=10)
        if 'error' in r:
            assert 'timed out' in error_text(r) or 'timeout' in error_text(r)
            return True
    wait_until(timed_out, 8, 'the new timeout to apply', interval=0.2)
    assert t.exists()
    assert int(text(tool(t, 'pid'))) == pid
    assert status(t)['generation'] == gen


def test_reload_invalid_keeps_old_config(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    m.reload(None, raw='{"mcpServers": {"a": {"command": 5}, "z": ')

    def shows_error():
        st = m.status()
        err = st.get('config_error')
        return err and str(m.config) in json.dumps(err) and st
    wait_until(shows_error, 5, 'the config error in .status')
    assert servers_listed(m) == {'a'}
    assert t.exists() and int(text(tool(t, 'pid'))) == pid
    assert str(m.config) in m.output()
    m.reload({'a': fake(), 'z': fake()})
    wait_until(lambda: 'z' in servers_listed(m), 5, 'the fixed config')
    assert not m.status().get('config_error')
    assert int(text(tool(t, 'pid'))) == pid


def test_reload_refreshes_tools_json(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--tools', 2)})

    def names():
        raw = read_file(m.path / 'a' / 'tools.json', 20)
        return {x['name'] for x in json.loads(raw)['tools']}
    assert {'t0', 't1'} <= names() and 't2' not in names()
    m.reload({'a': fake('--tools', 3)})
    wait_until(lambda: 't2' in names(), 8, 'tools.json to be refetched')


def test_reload_adds_http_and_sse_entries(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    m.reload({'a': fake(), 'later': {'url': 'http://127.0.0.1:9/mcp'},
              'old': {'type': 'sse', 'url': 'http://127.0.0.1:9/sse'}})
    wait_until(lambda: servers_listed(m) == {'a', 'later', 'old'}, 5,
               'the http and sse entries to appear')
    kinds = {s['name']: s['transport'] for s in m.status()['servers']}
    assert kinds == {'a': 'stdio', 'later': 'http', 'old': 'sse'}, kinds


def test_error_reply_names_server_not_argv(mcpfs_mount):
    # Section 6: failures name the server, never leak argv/env.
    m = mcpfs_mount({'a': dict(fake('--exit-at-start', '7'),
                               env={'TOKEN': 'tok-93jd'})})
    err = error_text(tool(thread(m), 'echo', text='x', timeout=15))
    assert 'tok-93jd' not in err
    assert str(FAKESERVER) not in err


# ---------------------------------------------------------------- roots are live

def roots_asked(t):
    """The roots the server gets from its roots/list to mcpfs now."""
    got = json.loads(text(tool(t, 'ask', method='roots/list', params={})))
    return [r['uri'] for r in got['result']['roots']]


def received(log, method):
    """How many messages of method the fake servers logged in log."""
    if not log.exists():
        return 0
    return sum(json.loads(line).get('method') == method
               for line in log.read_text().splitlines() if line)


@pytest.mark.parametrize('how', ['sighup', 'file'])
def test_reload_roots_change_is_sent_to_live_sessions(mcpfs_mount, tmp_path,
                                                      how):
    loga, logb = tmp_path / 'a.log', tmp_path / 'b.log'
    a = dict(fake('--log', loga), roots=['/tmp/ra', '/tmp/rb'])
    b = dict(fake('--log', logb), roots=['/tmp/ra'])
    m = mcpfs_mount({'a': a, 'b': b})
    t1, t2, tb = thread(m), thread(m, name='t2'), thread(m, 'b')
    pids = [int(text(tool(t, 'pid'))) for t in (t1, t2, tb)]
    assert roots_asked(t1) == ['file:///tmp/ra', 'file:///tmp/rb']
    changed = 'notifications/roots/list_changed'
    assert received(loga, changed) == 0
    new = {'a': dict(a, roots=['/tmp/ra']), 'b': b}
    if how == 'sighup':
        m.reload(new)
    else:
        m.write_config(new)
    wait_until(lambda: received(loga, changed) == 2, 5,
               'roots/list_changed to both sessions of a')
    assert roots_asked(t1) == ['file:///tmp/ra']
    assert roots_asked(t2) == ['file:///tmp/ra']
    # b's roots did not change: its session heard nothing (its call comes
    # after anything mcpfs sent it at the reload, on the same pipe)
    assert roots_asked(tb) == ['file:///tmp/ra']
    assert received(logb, changed) == 0
    assert received(loga, changed) == 2
    # the sessions stayed: roots are not a launch field
    assert [int(text(tool(t, 'pid'))) for t in (t1, t2, tb)] == pids
    assert status(t1)['generation'] == 1
