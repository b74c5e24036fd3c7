"""The config files of more MCP clients (spec 11): each sample
under examples/configs/ (Codex TOML, OpenCode, Zed JSON with comments,
Gemini CLI, Goose YAML, Windsurf, Cline) is mounted as it is with -c; its
servers run the project's demo server and fake server (the samples name
them as ${MCPFS_BUILD}/...). What a dialect says that mcpfs has (a tool
filter, disabled, a timeout) is kept; the rest is a warning."""

import json
import os
import pytest

from conftest import (BUILD, REPO, read_file, run_mcpfs_expect_exit, text,
                      tool)

SAMPLES = REPO / 'examples' / 'configs'

# sample: (servers, demo's tools, fake's tools (None: all), greeting,
#          words that must be in the warnings)
CASES = {
    'codex.toml': ({'demo', 'fake'},
                   {'echo', 'incr', 'get_count', 'set', 'get', 'keys'},
                   {'echo', 'env', 't0', 't1'}, 'hello from codex',
                   ['startup_timeout_sec']),
    'opencode.json': ({'demo', 'fake'}, None, None, 'hello from opencode',
                      []),
    'zed-settings.json': ({'demo', 'fake'}, None, None, 'hello from zed',
                          ['mcp-server-github']),
    'gemini-settings.json': ({'demo', 'fake'}, {'incr', 'get', 'keys'},
                             None, 'hello from gemini',
                             ['trust', 'left-out']),
    'goose.yaml': ({'demo', 'fake'}, None, {'echo', 'env', 't0'},
                   'hello from goose', ['developer', 'env_keys']),
    'windsurf.json': ({'demo', 'fake'}, None, None, 'hello from windsurf',
                      []),
    'cline.json': ({'demo', 'fake'}, None, None, 'hello from cline',
                   ['mcpServers.demo.autoApprove']),
}


def tool_names(t):
    return {x['name'] for x in json.loads(read_file(t / 'tools.json'))
            ['tools']}


@pytest.mark.parametrize('sample', sorted(CASES))
def test_sample_mounts(mcpfs_mount, sample):
    servers, demo_tools, fake_tools, greeting, warned = CASES[sample]
    m = mcpfs_mount(None, args=['-c', SAMPLES / sample], use_config=False,
                    env={'MCPFS_BUILD': str(BUILD)})
    st = m.status()
    assert st['config_error'] is None
    assert {s['name'] for s in st['servers']} == servers
    assert set(os.listdir(m.path)) >= servers
    warnings = '\n'.join(st['warnings'])
    for w in warned:
        assert w in warnings, (w, st['warnings'])
    if not warned:
        assert st['warnings'] == []

    demo = m.path / 'demo' / 't'
    os.mkdir(demo)
    if demo_tools:
        assert tool_names(demo) == demo_tools
        assert set(os.listdir(demo / 'tools')) == demo_tools
    if not demo_tools or 'incr' in demo_tools:
        assert text(tool(demo, 'incr')) == '1'
        assert text(tool(demo, 'incr')) == '2'  # the same process
    fake = m.path / 'fake' / 't'
    os.mkdir(fake)
    if fake_tools:
        assert tool_names(fake) == fake_tools
    assert text(tool(fake, 'env', name='GREETING')) == greeting


def test_codex_policy_and_timeout_in_status(mcpfs_mount):
    m = mcpfs_mount(None, args=['-c', SAMPLES / 'codex.toml'],
                    use_config=False, env={'MCPFS_BUILD': str(BUILD)})
    by = {s['name']: s for s in m.status()['servers']}
    assert by['demo']['policy'] == {'denyTools': ['sleep'],
                                    'readOnly': False}
    assert by['fake']['policy'] == {'allowTools': ['echo', 'env', 't*'],
                                    'readOnly': False}
    t = m.path / 'demo' / 't'
    os.mkdir(t)
    reply = tool(t, 'sleep', ms=1)
    assert reply['error']['code'] == -32602
    assert reply['error']['message'] == ('tool sleep is not allowed by the '
                                         'policy of server demo (denyTools)')


def test_bad_toml_names_line(tmp_path):
    bad = tmp_path / 'config.toml'
    bad.write_text('[mcp_servers.x]\ncommand = "a"\nargs = [1,\n')
    rc, out = run_mcpfs_expect_exit(tmp_path, '', args=['-c', bad],
                                    use_config=False)
    assert rc == 1
    assert f'{bad}:4:1: invalid TOML' in out, out


def test_files_of_several_dialects_merge_by_name(mcpfs_mount):
    """-c codex.toml -c goose.yaml: both have demo and fake; Goose's (the
    later) win, with their own tool filter and environment."""
    m = mcpfs_mount(None, args=['-c', SAMPLES / 'codex.toml',
                                '-c', SAMPLES / 'goose.yaml'],
                    use_config=False, env={'MCPFS_BUILD': str(BUILD)})
    by = {s['name']: s for s in m.status()['servers']}
    assert set(by) == {'demo', 'fake'}
    assert by['demo']['policy'] is None   # Codex's denyTools is gone
    assert by['fake']['policy'] == {'allowTools': ['echo', 'env', 't0'],
                                    'readOnly': False}
    t = m.path / 'fake' / 't'
    os.mkdir(t)
    assert text(tool(t, 'env', name='GREETING')) == 'hello from goose'
    assert tool_names(t) == {'echo', 'env', 't0'}
