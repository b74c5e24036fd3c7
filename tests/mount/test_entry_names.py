"""Directory entries and stderr cannot drive a terminal (spec 6): a name
a server gives (a tool, prompt or resource, and help/ of each) never holds
a C0 or C1 control or a bidi control (U+202E RIGHT-TO-LEFT OVERRIDE turns
`ls` output around) in a directory entry: it is percent-encoded, byte by
byte of its UTF-8, as '%' and '/' are, and the encoded name opens that
very tool. A thread's `stderr` shows the server's control characters as
escapes, as status does: newline and tab kept, CR as \\r, ESC as \\x1b, C1
and bidi controls as \\u0080..."""

import json
import os
import sys

from conftest import REPO, read_file, status, wait_until
from help_util import calls, controls, scripted, sh

# one of each class lib/ctlesc.h calls unsafe, and a plain name
NAMES = [
    'rlo\u202eevil.exe',      # RIGHT-TO-LEFT OVERRIDE
    'csi\u009b2J',            # C1 CSI: clear screen
    'esc\x1b[31mred',         # C0 ESC
    'bell\x07cr\rtab\tdel\x7f',
    'nel\u0085',              # C1 NEXT LINE
    'marks\u200e\u200f\u061c',  # LRM, RLM, ALM
    'iso\u2066x\u2069',       # LRI ... PDI
    'lines\u2028\u2029',      # line and paragraph separators
    'pct%41/slash',
    'plain-\u00e9t\u00e9',    # not unsafe: kept as it is
]

UNSAFE = set(range(0x20)) | {0x7f} | set(range(0x80, 0xa0)) | \
    {0x61c, 0x200e, 0x200f} | set(range(0x2028, 0x202f)) | \
    set(range(0x2066, 0x206a))


def encoded(name):
    """The file name mcpfs gives name (sessions/protocol/surface.c)."""
    out = ''
    for c in name:
        if ord(c) in UNSAFE or c in '%/':
            out += ''.join('%%%02X' % b for b in c.encode())
        else:
            out += c
    return out


def unsafe(name):
    return sorted(hex(ord(c)) for c in name if ord(c) in UNSAFE)


STDERR = ('boot \x1b[2J\x1b[Hcleared\rFAKE: all good\tok\n'
          'c1 \u009b31m bidi \u202eabc nul? bell\x07\n')


def spec():
    tool = {'inputSchema': {'type': 'object',
                            'properties': {'x': {'type': 'integer'}}}}
    return {
        'tools': [dict(tool, name=n, description='d') for n in NAMES],
        'prompts': [{'name': 'p\u202eq\u009b'}],
        'resources': [{'uri': 'mem://r\u202e\x1b/1', 'name': 'r'}],
        'contents': {'mem://r\u202e\x1b/1': 'the resource\n'},
        'stderr': STDERR,
    }


def test_names_are_encoded_and_open_their_tool(mcpfs_mount, tmp_path):
    entry, log = scripted(tmp_path, spec())
    m = mcpfs_mount({'h': entry})
    srv = m.path / 'h'
    t = srv / 't1'
    os.mkdir(t)
    want = sorted(encoded(n) for n in NAMES)
    for d in (t / 'tools', t / 'help', srv / 'help', t / 'prompts',
              t / 'resources'):
        for f in os.listdir(d):
            assert not unsafe(f), (d, f, unsafe(f))
    assert sorted(os.listdir(t / 'tools')) == want
    helps = sorted(os.listdir(t / 'help'))
    assert helps == sorted(want + ['prompt:p%E2%80%AEq%C2%9B']), helps
    assert sorted(os.listdir(srv / 'help')) == helps
    assert os.listdir(t / 'prompts') == ['p%E2%80%AEq%C2%9B']
    assert os.listdir(t / 'resources') == ['mem:%2F%2Fr%E2%80%AE%1B%2F1']
    # each encoded name is its tool: echo args > tools/X; cat tools/X
    for i, name in enumerate(NAMES):
        f = encoded(name)
        rc, out, err = sh('bash', f"echo '{{\"x\": {i}}}' > 'tools/{f}' "
                          f"&& cat 'tools/{f}'", cwd=t)
        assert rc == 0, (name, err)
        reply = json.loads(out)['content'][0]['text']
        assert reply == f'called {name} {{"x": {i}}}', (name, out)
    got = [(c['name'], c['arguments']) for c in calls(log)]
    assert got == [(n, {'x': i}) for i, n in enumerate(NAMES)], got
    # a help/ file of an encoded name is that tool's help
    for name in NAMES:
        h = read_file(t / 'help' / encoded(name))
        assert not controls(h), (name, controls(h))
        assert h.startswith(b'tool '), h
    rc, out, err = sh('bash', ": > 'prompts/p%E2%80%AEq%C2%9B' && "
                      "cat 'prompts/p%E2%80%AEq%C2%9B'", cwd=t)
    assert rc == 0 and 'prompt p' in out, (out, err)
    assert read_file(t / 'resources' / 'mem:%2F%2Fr%E2%80%AE%1B%2F1') == \
        b'the resource\n'
    # the raw name is no entry (only the encoded one is)
    assert not os.path.exists(t / 'tools' / NAMES[0])


def test_stderr_shows_controls_as_escapes(mcpfs_mount, tmp_path):
    entry, _ = scripted(tmp_path, spec())
    m = mcpfs_mount({'h': entry})
    t = m.path / 'h' / 't1'
    os.mkdir(t)
    wait_until(lambda: status(t)['state'] == 'ready', what='ready')
    wait_until(lambda: b'bell' in read_file(t / 'stderr'),
               what='the server wrote to stderr')
    data = read_file(t / 'stderr')
    assert not controls(data), (controls(data), data)
    assert b'\x1b' not in data and b'\r' not in data and \
        '\u202e'.encode() not in data, data
    assert data == (b'boot \\x1b[2J\\x1b[Hcleared\\rFAKE: all good\tok\n'
                    b'c1 \\u009b31m bidi \\u202eabc nul? bell\\x07\n'), data
    # its size is what a read gives (spec 12)
    assert os.stat(t / 'stderr').st_size == len(data)


def test_skill_files_with_unsafe_names_are_left_out(mcpfs_mount, tmp_path):
    """skills/ paths come from resource URIs: one holding an unsafe code
    point is left out with a warning (skills.c), as one with a C0 control
    byte was; the others are there."""
    root = tmp_path / 'skills-src'
    (root / 'tidy').mkdir(parents=True)
    (root / 'tidy/SKILL.md').write_text(
        '---\nname: tidy\ndescription: d\n---\n')
    (root / 'tidy/ok.md').write_text('fine\n')
    for bad in ('rlo\u202eevil.md', 'csi\u009bx.md', 'alm\u061c.md'):
        (root / 'tidy' / bad).write_text('hidden\n')
    m = mcpfs_mount({'k': {'command': sys.executable, 'args': [
        str(REPO / 'tests/fake/skills_server.py'), str(root)]}})
    t = m.path / 'k' / 't1'
    os.mkdir(t)
    wait_until(lambda: status(t)['state'] == 'ready', what='ready')
    assert sorted(os.listdir(t / 'skills/tidy')) == ['SKILL.md', 'ok.md']
    assert read_file(t / 'skills/tidy/ok.md') == b'fine\n'
    warnings = ' '.join(status(t).get('warnings') or [])
    # one warning counts the files left out and names the first
    assert 'skills: 3 files left out' in warnings, warnings
