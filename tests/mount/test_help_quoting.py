"""help/'s ready-to-run lines run the tool and nothing else (spec 12):
every name or value a server puts in them is quoted for the shell. A fake
server lists tools, prompts and arguments named with `;`, `$()`,
backticks, quotes, spaces, newlines and `*`; every printed line is run
with bash and with dash in a scratch directory (tools/ and prompts/ there
are links to the thread's), and no file appears but the calls the server
sees, one per line, with the names it listed. The tools say they only
read (readOnlyHint), so that help fills in the values it has to make up
too; one that may change things gets placeholders (<string>) instead,
and its lines, quoted as well, fail with nothing sent."""

import os
import shutil
from urllib.parse import unquote

import pytest

from conftest import read_file
from help_util import calls, run_lines, scripted, sh

HOSTILE = [
    'search;cd;touch PWNED_BY_HELP;:',
    '$(touch PWNED_DOLLAR)',
    '`touch PWNED_TICK`',
    "it's'; touch PWNED_QUOTE; '",
    'say "hi" "$(touch PWNED_DQ)"',
    'two words > PWNED_REDIR',
    'star*',
    'new\ntouch PWNED_NEWLINE',
    '-n',
    '~root',
]

# a tool that may change things: its invented values are placeholders
WRITES = "w'; touch PWNED_W; '"

# argument names, each with a value the server gives (default, enum,
# examples) or none (a placeholder)
ARGS = [
    ('a;touch PWNED_ARG1', {'type': 'string'}),
    ('$(touch PWNED_ARG2)', {'type': 'string',
                             'default': "'; touch PWNED_ARG3; '"}),
    ("b'c", {'type': 'string', 'enum': ['$(touch PWNED_ARG4)', 'x']}),
    ('d"e `touch PWNED_ARG5`', {'type': 'string',
                                'examples': ['"; touch PWNED_ARG6; "']}),
    ('e f*', {'type': 'integer', 'minimum': 2}),
    ('h=i', {'type': 'string', 'default': 'back\\slash \\n'}),
    ('j:', {'type': 'string'}),
]


def spec():
    tools = []
    for i, name in enumerate(HOSTILE):
        # one tool per name with all the arguments, one with none
        props = dict(ARGS) if i % 2 == 0 else {}
        tools.append({'name': name, 'annotations': {'readOnlyHint': True},
                      'inputSchema': {
                          'type': 'object', 'properties': props,
                          'required': list(props)}})
    tools.append({'name': WRITES, 'inputSchema': {
        'type': 'object', 'properties': dict(ARGS),
        'required': list(dict(ARGS))}})
    prompts = [{'name': name, 'arguments': [
        {'name': a, 'required': True} for a, _ in ARGS[:4]]}
        for name in HOSTILE[:5]]
    # an argument name with a newline: no request may carry it (spec 13),
    # so help prints no line to run
    tools.append({'name': 'ctl-arg', 'inputSchema': {
        'type': 'object', 'properties': {
            'g\ntouch PWNED_ARG7': {'type': 'string'}},
        'required': ['g\ntouch PWNED_ARG7']}})
    return {'tools': tools, 'prompts': prompts}


@pytest.mark.parametrize('shell', ['bash', 'dash'])
def test_help_lines_run_only_the_tool(mcpfs_mount, tmp_path, shell):
    if not shutil.which(shell):
        pytest.skip(f'no {shell}')
    entry, log = scripted(tmp_path, spec())
    m = mcpfs_mount({'s': entry})
    t = m.path / 's' / 't1'
    os.mkdir(t)
    scratch = tmp_path / 'scratch'
    scratch.mkdir()
    (scratch / 'tools').symlink_to(t / 'tools')
    (scratch / 'prompts').symlink_to(t / 'prompts')
    env = dict(os.environ, HOME=str(scratch))  # where a bare cd goes
    helps = sorted(os.listdir(t / 'help'))
    assert len(helps) == len(HOSTILE) + 7, helps
    expected, failed = [], []
    for h in helps:
        text = read_file(t / 'help' / h).decode()
        prompt = h.startswith('prompt:')
        for line in run_lines(text):
            rc, out, err = sh(shell, line, scratch, env)
            if unquote(h) == WRITES:   # placeholders: refused, not sent
                if 'error' not in err or 'request refused' not in out:
                    failed.append((h, line, rc, out, err))
                continue
            if rc != 0 or '"error"' in out:
                failed.append((h, line, rc, out, err))
            expected.append(('prompts/get' if prompt else 'tools/call', h))
    # nothing ran but the tool: no file made (a bare cd goes here too)
    assert sorted(os.listdir(scratch)) == ['prompts', 'tools']
    assert not failed, failed
    for h in helps:
        text = read_file(t / 'help' / h).decode()
        lines = run_lines(text)
        assert all(line.startswith(('echo ', 'printf ', ': '))
                   for line in lines), text
        # one line per form, unless NAME=VALUE cannot name an argument,
        # none when no request can (a control character in a name)
        if h == 'ctl-arg':
            assert 'Run it: it cannot be called' in text and not lines, text
            continue
        assert len(lines) == 2 or \
            '# (NAME=VALUE cannot name every argument' in text, text
    # one call per line run, of the tool or prompt the help is about
    seen = calls(log)
    assert sorted((c['method'], c['name']) for c in seen) == \
        sorted((method, unquote(h.removeprefix('prompt:')))
               for method, h in expected)
    for c in seen:
        if c['method'] == 'tools/call' and c['name'] in HOSTILE[::2]:
            assert set(c['arguments']) == {a for a, _ in ARGS}, c
            assert c['arguments']['$(touch PWNED_ARG2)'] == \
                "'; touch PWNED_ARG3; '"
            assert c['arguments']["b'c"] == '$(touch PWNED_ARG4)'
            assert c['arguments']['h=i'] == 'back\\slash \\n'
            assert c['arguments']['e f*'] == 2
