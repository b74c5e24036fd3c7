"""mcpfs against the real @cyanheads/git-mcp-server (pinned in package.json,
run from node_modules) over Streamable HTTP on a loopback port: two threads
(two MCP sessions on the one server) init, stage and commit in two real
repositories through its tools, and git sees the commits.

What a direct session (curl) showed:
* Entry point: node_modules/.bin/git-mcp-server with MCP_TRANSPORT_TYPE=http
  and MCP_HTTP_PORT=P serves http://127.0.0.1:P/mcp (MCP_HTTP_HOST,
  default 127.0.0.1; MCP_SESSION_MODE auto: stateful when the client sends
  initialize). It needs no network; it runs git from PATH.
* initialize (2025-06-18) -> an event stream with the result: serverInfo
  {"name": "@cyanheads/git-mcp-server", "version": "2.15.3"}, capabilities
  logging, resources, tools, prompts (listChanged); an Mcp-Session-Id.
* The sessionless server/discover probe of the 2026 era is answered HTTP
  500 with a -32603 error ("Error in httpTransport"); the entry leaves
  "era" at auto, so this proves that the probe falls back (spec 5) and
  that the thread's stderr stays free of the probe's failure.
* tools/list (one page, about 70 KiB): git_add, git_blame, git_branch,
  git_checkout, git_commit, git_diff, git_init, git_log, git_set_working_dir,
  git_show, git_status, git_tag, ... Every tool has "path" (default ".":
  the working directory set by git_set_working_dir {path}, which the
  server keeps per tenant: without auth, one for all its sessions).
  git_init {path} makes the repository (git_set_working_dir's
  initializeIfNotPresent did not, in a test).
"""

import json
import os
import shutil
import signal
import socket
import subprocess

import pytest

from conftest import (REPO, free_port, read_file, status, tool,
                      wait_until)

GITMCP = REPO / 'node_modules/.bin/git-mcp-server'

pytestmark = pytest.mark.skipif(
    not GITMCP.exists() or not shutil.which('node') or
    not shutil.which('git'),
    reason=f'{GITMCP} missing (run npm ci in the repository), or no node '
           'or git')

WHO = {'GIT_AUTHOR_NAME': 'Mount Tester', 'GIT_AUTHOR_EMAIL': 'mt@example.org',
       'GIT_COMMITTER_NAME': 'Mount Tester',
       'GIT_COMMITTER_EMAIL': 'mt@example.org'}


def listening(port):
    with socket.socket() as s:
        return s.connect_ex(('127.0.0.1', port)) == 0


@pytest.fixture
def git_server(tmp_path):
    """The server on a free loopback port; its URL. Killed at teardown."""
    port = free_port()
    home = tmp_path / 'home'
    home.mkdir()
    env = dict(os.environ, MCP_TRANSPORT_TYPE='http',
               MCP_HTTP_PORT=str(port), MCP_HTTP_HOST='127.0.0.1',
               MCP_LOG_LEVEL='error', HOME=str(home), **WHO)
    log = open(tmp_path / 'git-mcp-server.log', 'wb')
    p = subprocess.Popen([str(GITMCP)], cwd=home, env=env,
                         stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                         start_new_session=True)
    try:
        wait_until(lambda: listening(port) or p.poll() is not None, 30,
                   'git-mcp-server to listen')
        assert p.poll() is None, (tmp_path / 'git-mcp-server.log').read_text()
        yield f'http://127.0.0.1:{port}/mcp'
    finally:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        log.close()


def ok(reply):
    assert isinstance(reply, dict) and 'content' in reply, reply
    assert reply.get('isError') is not True, reply
    return reply


def git(repo, *args):
    return subprocess.run(['git', '-C', str(repo), *args], check=True,
                          capture_output=True, text=True).stdout


def test_commits_through_its_tools(mcpfs_mount,
                                                        git_server, tmp_path):
    r1, r2 = tmp_path / 'one', tmp_path / 'two'
    r1.mkdir()
    r2.mkdir()
    m = mcpfs_mount({'git': {'url': git_server,
                             'timeout': 60}})
    t1, t2 = m.path / 'git' / 't1', m.path / 'git' / 't2'
    os.mkdir(t1)
    os.mkdir(t2)
    names = set(os.listdir(t1 / 'tools'))
    assert {'git_set_working_dir', 'git_add', 'git_commit', 'git_log',
            'git_status', 'git_init'} <= names, names
    tools = json.loads(read_file(t1 / 'tools.json'))
    assert len(tools['tools']) == len(names), (len(tools['tools']), names)
    # the probe's HTTP 500 fell back and is not shown as the server's
    assert b'HTTP 500' not in read_file(t1 / 'stderr')

    # t1 works in its working directory, t2 names its repository
    for t, r in ((t1, r1), (t2, r2)):
        ok(tool(t, 'git_init', timeout=60, path=str(r)))
        assert (r / '.git').is_dir()
    ok(tool(t1, 'git_set_working_dir', timeout=60, path=str(r1)))
    (r1 / 'a.txt').write_text('from thread one\n')
    (r2 / 'b.txt').write_text('from thread two\n')

    st = ok(tool(t1, 'git_status', timeout=60))['structuredContent']
    assert st['untrackedFiles'] == ['a.txt'] and not st['isClean'], st
    ok(tool(t1, 'git_add', timeout=60, paths=['a.txt']))
    ok(tool(t2, 'git_add', timeout=60, path=str(r2), paths=['b.txt']))
    st = ok(tool(t1, 'git_status', timeout=60))['structuredContent']
    assert st['untrackedFiles'] == [] and st['stagedChanges'], st
    ok(tool(t1, 'git_commit', timeout=60, message='first from thread one'))
    ok(tool(t2, 'git_commit', timeout=60, path=str(r2), message='first from thread two'))
    ok(tool(t1, 'git_commit', timeout=60, message='empty second', allowEmpty=True))
    assert ok(tool(t1, 'git_status', timeout=60))['structuredContent']['isClean']

    # real commits, each in its repository
    assert git(r1, 'log', '--format=%s').splitlines() == \
        ['empty second', 'first from thread one']
    assert git(r2, 'log', '--format=%s').splitlines() == \
        ['first from thread two']
    assert git(r1, 'log', '-1', '--format=%an <%ae>').strip() == \
        'Mount Tester <mt@example.org>'
    assert git(r1, 'ls-files').split() == ['a.txt']

    log1 = json.dumps(ok(tool(t1, 'git_log', timeout=60)))
    assert 'first from thread one' in log1 and 'empty second' in log1
    assert 'thread two' not in log1
    log2 = json.dumps(ok(tool(t2, 'git_log', timeout=60, path=str(r2))))
    assert 'first from thread two' in log2 and 'thread one' not in log2
    # the reply file of the last call holds the same text
    assert 'first from thread two' in \
        read_file(t2 / 'result' / 'text').decode()

    for t in (t1, t2):
        st = status(t)
        assert st['transport'] == 'http' and st['state'] == 'ready', st
        assert st['generation'] == 1, st
    m.unmount()
