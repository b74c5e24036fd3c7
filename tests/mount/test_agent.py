"""An agent that knows nothing of mcpfs but what the mount tells it (spec
12): it lists directories and reads and writes files (os.listdir,
open().read(), open('w').write()), plus the one mkdir that README.md tells
it to run to start a session. From `ls MOUNT` it reads README.md, finds the
server and its help/, picks a tool, takes the NAME=VALUE line of the
tool's help/ file as written there, fills its placeholders with sensible
values, runs it and checks the reply, against the demo server,
@modelcontextprotocol/server-everything and @modelcontextprotocol/server-
memory. Each run prints its transcript (pytest -s shows it): the files
read, the line run and the reply.
"""

import json
import os
import re
import shlex
import shutil

import pytest

from conftest import REPO, demo, run_with_deadline

NODE = REPO / 'node_modules/@modelcontextprotocol'
EVERYTHING = NODE / 'server-everything/dist/index.js'
MEMORY = NODE / 'server-memory/dist/index.js'


class Agent:
    """File I/O only, with a transcript."""

    def __init__(self, mount):
        self.mount = mount
        self.lines = []

    def say(self, what, body=''):
        body = body if len(body) <= 700 else body[:700] + ' [...]'
        self.lines.append(f'--- {what}\n{body}'.rstrip())

    def ls(self, rel):
        names = sorted(run_with_deadline(
            lambda: os.listdir(self.mount / rel), 30, f'ls {rel}'))
        self.say(f'ls {rel or "MOUNT"}', '  '.join(names))
        return names

    def cat(self, rel):
        def go():
            with open(self.mount / rel) as f:
                return f.read()
        text = run_with_deadline(go, 60, f'cat {rel}')
        self.say(f'cat {rel}', text)
        return text

    def write(self, rel, data):
        def go():
            with open(self.mount / rel, 'w') as f:
                f.write(data)
        run_with_deadline(go, 60, f'write {rel}')
        self.say(f'write {rel}', data)

    def mkdir(self, rel):
        os.mkdir(self.mount / rel)
        self.say(f'mkdir {rel} (as README.md says)')

    def show(self):
        print('\n'.join(['', f'=== agent transcript ({self.mount})'] +
                        self.lines))


def sensible(name, value, hints):
    """A value for a placeholder of the help line: the agent's own for
    this name, else the example as written when it is not a placeholder."""
    if name in hints:
        return hints[name]
    if value == re.sub(r'[^A-Za-z0-9]', '_', name).upper() or \
            re.fullmatch(r'<[a-z]+>', value):   # capitals or <string>
        return f'agent-{name}'
    return value


def run_tool(agent, server, pick, hints, thread='t1'):
    """The whole walk: README.md, help/, the help's NAME=VALUE line, the
    call. Returns (reply as parsed JSON, result/text)."""
    assert 'README.md' in agent.ls('')
    readme = agent.cat('README.md')
    assert f'### {server}\n' in readme, readme
    section = readme.split(f'### {server}\n', 1)[1].split('\n### ', 1)[0]
    agent.say(f'(README.md, the part on {server})', section)
    assert '- transport: ' in section
    mkdir = re.search(r'^\s+mkdir (\S+)/(\S+)', readme, re.M)
    assert mkdir, 'README.md says how to start a session'
    tools = agent.ls(f'{server}/help')
    tool = pick(tools)
    assert tool in tools, tools
    help_text = agent.cat(f'{server}/help/{tool}')
    m = re.search(r'^  ((?:echo|printf|:).*?) > (tools/\S+); cat \2$',
                  help_text, re.M)
    assert m, f'no NAME=VALUE line in help/{tool}:\n{help_text}'
    words = shlex.split(m.group(1))
    pairs = [w for w in words if re.match(r'^[^=\s]+:?=', w)]
    lines = []
    for p in pairs:
        name, sep, value = re.match(r'^([^=:]+)(:?=)(.*)$', p).groups()
        lines.append(f'{name}{sep}{sensible(name, value, hints)}')
    agent.say('the line from help, filled', '\n'.join(lines))
    agent.mkdir(f'{server}/{thread}')
    target = f'{server}/{thread}/{m.group(2)}'
    agent.write(target, ''.join(f'{l}\n' for l in lines))
    reply = json.loads(agent.cat(target))
    assert 'content' in reply and reply.get('isError') is not True, reply
    assert 'result' in agent.ls(f'{server}/{thread}')
    return reply, agent.cat(f'{server}/{thread}/result/text').rstrip('\n')


def test_agent_demo(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    agent = Agent(m.path)
    try:
        reply, text = run_tool(agent, 'demo',
                               lambda tools: 'set', {'value': 'blue'})
        assert text == 'ok'
        # the state lives on: the agent reads it back the same way
        help_get = agent.cat('demo/help/get')
        line = re.search(r"^  echo '(key=\w+)' > tools/get", help_get,
                         re.M).group(1)
        agent.write('demo/t1/tools/get', 'key=agent-key\n')
        assert line == 'key=KEY'
        got = json.loads(agent.cat('demo/t1/tools/get'))
        assert got['content'][0]['text'] == 'blue'
    finally:
        agent.show()


@pytest.mark.skipif(not EVERYTHING.exists() or not shutil.which('node'),
                    reason=f'{EVERYTHING} missing (npm ci) or no node')
def test_agent_everything(mcpfs_mount):
    m = mcpfs_mount({'everything': {'command': 'node',
                                    'args': [str(EVERYTHING), 'stdio']}})
    agent = Agent(m.path)
    try:
        reply, text = run_tool(agent, 'everything', lambda tools: 'get-sum',
                               {'a': '2', 'b': '40'})
        assert text == 'The sum of 2 and 40 is 42.', reply
        readme = agent.cat('README.md')
        agent.say('(README.md, the part on everything, now)',
                  readme.split('### everything\n', 1)[1])
        assert 'mcp-servers/everything' in readme  # known once started
        assert re.search(r'- tools: \d+ \(ls everything/help\)', readme)
    finally:
        agent.show()


@pytest.mark.skipif(not MEMORY.exists() or not shutil.which('node'),
                    reason=f'{MEMORY} missing (npm ci) or no node')
def test_agent_memory(mcpfs_mount, tmp_path):
    m = mcpfs_mount({'memory': {
        'command': 'node', 'args': [str(MEMORY)],
        'env': {'MEMORY_FILE_PATH': str(tmp_path / 'memory.jsonl')}}})
    agent = Agent(m.path)
    try:
        # create_entities takes an array: its help line is NAME:=JSON
        reply, text = run_tool(
            agent, 'memory', lambda tools: 'create_entities',
            {'entities': json.dumps([{'name': 'mcpfs', 'entityType': 'fs',
                                      'observations': ['keeps sessions']}])})
        assert 'mcpfs' in text
        helps = agent.ls('memory/t1/help')
        assert 'search_nodes' in helps
        h = agent.cat('memory/t1/help/search_nodes')
        assert re.search(r"^  echo 'query=QUERY' > tools/search_nodes; "
                         r"cat tools/search_nodes$", h, re.M), h
        agent.write('memory/t1/tools/search_nodes', 'query=mcpfs\n')
        found = json.loads(agent.cat('memory/t1/tools/search_nodes'))
        assert 'keeps sessions' in found['content'][0]['text'], found
    finally:
        agent.show()
