"""The config files MCP users already have (spec 11), written here
in their real formats: Claude Desktop's claude_desktop_config.json, Claude
Code's ~/.claude.json (--project) and .mcp.json, Cursor's ~/.cursor/mcp.json
and VS Code's .vscode/mcp.json (servers, type, envFile, ${workspaceFolder},
${env:VAR}, ${input:ID}); -c repeating with later files winning by name,
the reload of a second file; unknown keys as warnings; and the rule that
servers start in the directory mcpfs was started from."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from test_install import server_of
from conftest import (DEMO, FAKESERVER, MCPFS, fusermount, is_mounted,
                      pid_alive, read_file, run_mcpfs_expect_exit, text, tool,
                      wait_until)


def write(path, doc):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2))
    return path


def servers_of(m):
    return {s['name']: s for s in m.status()['servers']}


def session(m, server, name='t'):
    t = m.path / server / name
    os.mkdir(t)
    return t


def server_pid(t):
    """The pid of the server process of thread t (not its supervisor's)."""
    assert text(tool(t, 'echo', text='up')) == 'up'
    return server_of(json.loads(read_file(t / 'status'))['pid'])


def environ_of(pid):
    raw = Path(f'/proc/{pid}/environ').read_bytes().split(b'\0')
    return dict(e.decode().split('=', 1) for e in raw if b'=' in e)


def fake_entry(**extra):
    return dict({'command': str(FAKESERVER)}, **extra)


def test_claude_desktop_file(mcpfs_mount, tmp_path):
    cfg = write(tmp_path / 'Claude/claude_desktop_config.json', {
        'globalShortcut': 'Ctrl+Space',
        'mcpServers': {'demo': {'command': str(DEMO), 'args': []},
                       'fake': fake_entry(env={'X': '1'})}})
    m = mcpfs_mount(None, args=['-c', cfg], use_config=False)
    assert set(servers_of(m)) == {'demo', 'fake'}
    assert m.status()['warnings'] == []
    t = session(m, 'demo')
    assert text(tool(t, 'incr')) == '1'


def claude_json(tmp_path, proj):
    return write(tmp_path / 'home/.claude.json', {
        'numStartups': 12, 'theme': 'dark', 'hasCompletedOnboarding': True,
        'mcpServers': {'user1': fake_entry(type='stdio', env={'W': 'user'}),
                       'shared': fake_entry(env={'W': 'user'})},
        'projects': {
            str(proj): {'allowedTools': [], 'history': [],
                        'mcpServers': {'shared': fake_entry(
                            env={'W': 'project'}), 'projonly': fake_entry()}},
            '/elsewhere': {'mcpServers': {'other': fake_entry()}}}})


def test_claude_code_user_file(mcpfs_mount, tmp_path):
    proj = tmp_path / 'proj'
    proj.mkdir()
    m = mcpfs_mount(None, args=['-c', claude_json(tmp_path, proj)],
                    use_config=False)
    assert set(servers_of(m)) == {'user1', 'shared'}
    assert environ_of(server_pid(session(m, 'shared')))['W'] == 'user'


def test_claude_code_project(mcpfs_mount, tmp_path):
    proj = tmp_path / 'proj'
    proj.mkdir()
    cfg = claude_json(tmp_path, proj)
    # --project takes a relative DIR too (made absolute)
    m = mcpfs_mount(None, args=['-c', cfg, '--project',
                                os.path.relpath(proj, tmp_path / 'm0')],
                    use_config=False)
    assert set(servers_of(m)) == {'user1', 'shared', 'projonly'}
    assert environ_of(server_pid(session(m, 'shared')))['W'] == 'project'


def test_claude_json_without_servers_warns(mcpfs_mount, tmp_path):
    cfg = write(tmp_path / '.claude.json', {'numStartups': 1,
                                            'projects': {}})
    m = mcpfs_mount(None, args=['-c', cfg], use_config=False)
    assert servers_of(m) == {}
    assert any('--project' in w for w in m.status()['warnings'])


def test_mcp_json_and_cursor_file(mcpfs_mount, tmp_path):
    mcp = write(tmp_path / 'repo/.mcp.json', {'mcpServers': {
        'local': {'type': 'stdio', 'command': str(FAKESERVER), 'args': [],
                  'env': {}}}})
    cursor = write(tmp_path / 'home/.cursor/mcp.json', {'mcpServers': {
        'remote': {'url': 'http://127.0.0.1:9/mcp',
                   'headers': {'Authorization': 'Bearer x'}}}})
    m = mcpfs_mount(None, args=['-c', mcp, '-c', cursor], use_config=False)
    got = servers_of(m)
    assert got['local']['transport'] == 'stdio'
    assert got['remote']['transport'] == 'http'
    assert m.status()['configs'] == [str(mcp), str(cursor)]


def vscode_workspace(tmp_path, env_lines):
    ws = tmp_path / 'ws'
    (ws / 'bin').mkdir(parents=True)
    (ws / 'bin/server').symlink_to(FAKESERVER)
    (ws / '.env').write_text(env_lines)
    return ws


def test_vscode_file(mcpfs_mount, tmp_path):
    ws = vscode_workspace(tmp_path, '# secrets\nexport A=from-file\n'
                          'B = "quoted value"\nC=\'single\'\n\nD=plain  \n')
    cfg = write(ws / '.vscode/mcp.json', {
        'inputs': [{'type': 'promptString', 'id': 'tok',
                    'description': 'a token', 'password': True}],
        'servers': {
            'v': {'type': 'stdio', 'command': '${workspaceFolder}/bin/server',
                  'envFile': '${workspaceFolder}/.env',
                  'env': {'C': 'env-wins', 'H': '${env:MCPFS_T_HOME}'},
                  'dev': {'watch': 'src/**/*.ts'}},
            'h': {'type': 'http', 'url': 'http://127.0.0.1:9/mcp'},
            's': {'type': 'sse', 'url': 'http://127.0.0.1:9/sse'}}})
    m = mcpfs_mount(None, args=['-c', cfg], use_config=False,
                    env={'MCPFS_T_HOME': '/home/x'})
    got = servers_of(m)
    assert {'v', 'h'} <= set(got) <= {'v', 'h', 's'}
    warnings = m.status()['warnings']
    assert any('servers.v.dev' in w and 'unknown key' in w
               for w in warnings), warnings
    # type sse: served, or (before that transport) left out with a warning
    assert 's' in got or any('server s' in w and 'sse' in w
                             for w in warnings), warnings
    env = environ_of(server_pid(session(m, 'v')))
    assert env['A'] == 'from-file'
    assert env['B'] == 'quoted value'
    assert env['C'] == 'env-wins'
    assert env['D'] == 'plain'
    assert env['H'] == '/home/x'
    # no value of the env file in what mcpfs shows or logs
    assert 'from-file' not in json.dumps(m.status())
    assert 'from-file' not in m.output()


def test_vscode_input_leaves_only_that_server_out(mcpfs_mount):
    """spec 11 and 12: a ${input:ID} that mcpfs cannot prompt for leaves that
    server out with a warning naming the input; the others run."""
    m = mcpfs_mount(None, config_extra={
        'inputs': [{'type': 'promptString', 'id': 'api-key'}],
        'servers': {'v': {'command': str(FAKESERVER),
                          'env': {'KEY': '${input:api-key}'}},
                    'w': {'command': str(FAKESERVER)}}})
    assert sorted(os.listdir(m.path)) == ['.status', 'README.md', 'w']
    warnings = m.status()['warnings']
    assert any('server v left out' in w and '${input:api-key}' in w
               for w in warnings), warnings
    assert 'server v left out' in m.output()


@pytest.mark.parametrize('env_text, why', [
    (None, 'No such file'),
    ('GOOD=1\nthis line has no equals\n', ':2: expected NAME=VALUE'),
    ('A="unclosed\n', ':1: expected NAME=VALUE'),
], ids=['missing', 'no-equals', 'open-quote'])
def test_bad_env_file(tmp_path, env_text, why):
    if env_text is not None:
        (tmp_path / 'vars.env').write_text(env_text)
    doc = {'servers': {'v': {'command': str(FAKESERVER),
                             'envFile': str(tmp_path / 'vars.env')}}}
    rc, out = run_mcpfs_expect_exit(tmp_path, json.dumps(doc))
    assert rc == 1
    assert 'servers.v.envFile' in out and why in out, out
    assert 'unclosed' not in out


def test_unknown_keys_warn_never_fail(mcpfs_mount):
    m = mcpfs_mount({'a': fake_entry(autoApprove=['echo'], alwaysAllow=[]),
                     'b': fake_entry()})
    warnings = m.status()['warnings']
    assert any('mcpServers.a.autoApprove' in w for w in warnings), warnings
    assert any('mcpServers.a.alwaysAllow' in w for w in warnings), warnings
    assert set(servers_of(m)) == {'a', 'b'}
    assert 'autoApprove' in m.output()   # and in the log


def test_later_file_wins_and_second_file_reloads(mcpfs_mount, tmp_path):
    one = write(tmp_path / 'one.json', {'mcpServers': {
        'a': fake_entry(), 'b': fake_entry(env={'W': 'one'})}})
    two = write(tmp_path / 'two/two.json', {'mcpServers': {
        'b': fake_entry(env={'W': 'two'}), 'c': fake_entry()}})
    m = mcpfs_mount(None, args=['-c', one, '-c', two], use_config=False)
    assert list(servers_of(m)) == ['a', 'b', 'c']
    tb = session(m, 'b')
    pid = server_pid(tb)
    assert environ_of(pid)['W'] == 'two'
    ta = session(m, 'a')
    pid_a = server_pid(ta)
    # edit the second file (another folder): c goes, d comes, b changes
    tmp = two.with_name('two.json.new')
    tmp.write_text(json.dumps({'mcpServers': {
        'b': fake_entry(env={'W': 'two-changed'}), 'd': fake_entry()}}))
    os.replace(tmp, two)
    wait_until(lambda: set(servers_of(m)) == {'a', 'b', 'd'}, 20,
               'the reload of the second file')
    wait_until(lambda: not pid_alive(pid), 20, 'b closed on its change')
    assert pid_alive(pid_a)          # a did not change: kept
    tb = session(m, 'b', 't2')
    assert environ_of(server_pid(tb))['W'] == 'two-changed'
    # and the first file is watched too
    write(one, {'mcpServers': {'a': fake_entry(), 'e': fake_entry()}})
    wait_until(lambda: set(servers_of(m)) == {'a', 'b', 'd', 'e'}, 20,
               'the reload of the first file')
    # an error in either file keeps the merged config
    two.write_text('{"mcpServers": {"b": ')
    wait_until(lambda: m.status()['config_error'], 20, 'the bad reload')
    assert str(two) in m.status()['config_error']
    assert set(servers_of(m)) == {'a', 'b', 'd', 'e'}


# ---------------------------------------------------------------- cwd

def daemon_mount(tmp_path, cfg, cwd):
    """mcpfs started in cwd without -f (it daemonizes); returns mnt."""
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    r = subprocess.run([str(MCPFS), '-c', str(cfg), str(mnt)], cwd=cwd,
                       capture_output=True, text=True, timeout=20,
                       env=dict(os.environ,
                                XDG_CONFIG_HOME=str(tmp_path / 'x')))
    assert r.returncode == 0, r.stderr
    wait_until(lambda: is_mounted(mnt), 20, 'the mount')
    return mnt


def test_servers_start_where_mcpfs_was_started(tmp_path):
    start = tmp_path / 'here'
    (start / 'sub').mkdir(parents=True)
    other = tmp_path / 'other'
    other.mkdir()
    cfg = write(tmp_path / 'servers.json', {'mcpServers': {
        'plain': fake_entry(), 'rel': fake_entry(cwd='sub'),
        'abs': fake_entry(cwd=str(other))}})
    mnt = daemon_mount(tmp_path, cfg, start)
    try:
        cwds = {}
        for name in ('plain', 'rel', 'abs'):
            t = mnt / name / 't'
            os.mkdir(t)
            cwds[name] = os.readlink(f'/proc/{server_pid(t)}/cwd')
            os.rmdir(t)
        assert cwds == {'plain': str(start), 'rel': str(start / 'sub'),
                        'abs': str(other)}
    finally:
        r = fusermount('-u', str(mnt))
        if r.returncode:
            fusermount('-uz', str(mnt))
    assert not is_mounted(mnt)
