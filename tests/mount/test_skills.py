"""Skills as folders (spec 15, the skills extension SEP-2640): a server that
offers skills shows them as skills/NAME/ with SKILL.md and its files, read
through resources/read and checked against the listing's digests, so that
an agent's skills folder can be a symlink into the mount.

The server is tests/fake/skills_server.py (written from the SEP's text)
serving a folder of skills made here.
"""

import errno
import hashlib
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, status, thread, wait_until

SERVER = REPO / 'tests/fake/skills_server.py'
EXT = 'io.modelcontextprotocol/skills'

SKILLS = {
    'git-workflow/SKILL.md': '---\nname: git-workflow\ndescription: Follow '
                             'the team\'s Git conventions\n---\n\nBranch '
                             'from main.\n',
    'pdf-processing/SKILL.md': '---\nname: pdf-processing\ndescription: '
                               'Fill PDF forms\nlicense: Apache-2.0\n---\n'
                               '\nSee references/FORMS.md.\n',
    'pdf-processing/references/FORMS.md': '# Forms\n\nField by field.\n',
    'pdf-processing/scripts/extract.py': 'print("extract")\n',
    'acme/billing/refunds/SKILL.md': '---\nname: refunds\ndescription: '
                                     'Refunds per billing policy\n---\n',
    'acme/billing/refunds/examples/email.md': 'Dear customer, refund.\n',
    'acme/support/refunds/SKILL.md': '---\nname: refunds\ndescription: '
                                     'Refunds as support does them\n---\n',
    'tampered/SKILL.md': '---\nname: tampered\ndescription: One file is '
                         'changed after listing\n---\n',
    'tampered/TAMPERED.md': 'the listed bytes\n',
    'tampered/LONGER.md': 'the listed size\n',
    'live-report/SKILL.md': '---\nname: live-report\ndescription: Made on '
                            'the fly\ndynamic: true\n---\n',
    'live-report/extra.md': 'not listed: the skill has no resources\n',
}
BINARY = bytes(range(256)) * 4    # pdf-processing/assets/logo.bin

NAMES = {'git-workflow', 'pdf-processing', 'acme.billing.refunds',
         'acme.support.refunds', 'tampered', 'live-report'}


@pytest.fixture
def skills_dir(tmp_path):
    root = tmp_path / 'skills-src'
    for rel, text in SKILLS.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (root / 'pdf-processing/assets').mkdir()
    (root / 'pdf-processing/assets/logo.bin').write_bytes(BINARY)
    return root


def server(root, *opts, log=None):
    args = [str(SERVER), str(root), *opts]
    if log:
        args += ['--log', str(log)]
    return {'command': sys.executable, 'args': args}


def sh(cmd, cwd):
    return subprocess.run(['bash', '-c', cmd], cwd=cwd, capture_output=True,
                          timeout=60)


def requests(log):
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_skills_are_folders_the_shell_reads(mcpfs_mount, skills_dir,
                                            tmp_path):
    log = tmp_path / 'requests.log'
    m = mcpfs_mount({'k': server(skills_dir, log=log)})
    t = thread(m, 'k')
    assert set(os.listdir(t / 'skills')) == NAMES
    # mcpfs declared the extension; the listing came in pages
    init, = [r for r in requests(log) if r['method'] == 'initialize']
    assert init['params']['capabilities']['extensions'][EXT] == {}
    pages = [r for r in requests(log) if r['method'] == 'skills/list']
    assert len(pages) == 3, pages           # 6 skills, 2 a page
    # cat skills/*/SKILL.md in bash: each skill's instructions
    r = sh('cat skills/*/SKILL.md', t)
    assert r.returncode == 0, r.stderr
    for rel, text in SKILLS.items():
        if rel.endswith('/SKILL.md'):
            assert text.encode() in r.stdout, rel
    # two skills named refunds: told apart by their skill paths
    assert (t / 'skills/acme.billing.refunds/SKILL.md').read_text() == \
        SKILLS['acme/billing/refunds/SKILL.md']
    assert (t / 'skills/acme.support.refunds/SKILL.md').read_text() == \
        SKILLS['acme/support/refunds/SKILL.md']
    # find: the files of each skill, in their subfolders
    r = sh('cd skills && find . -type f | sort', t)
    assert r.stdout.decode().split() == sorted([
        './acme.billing.refunds/SKILL.md',
        './acme.billing.refunds/examples/email.md',
        './acme.support.refunds/SKILL.md',
        './git-workflow/SKILL.md',
        './live-report/SKILL.md',            # made on the fly: SKILL.md only
        './pdf-processing/SKILL.md',
        './pdf-processing/assets/logo.bin',
        './pdf-processing/references/FORMS.md',
        './pdf-processing/scripts/extract.py',
        './tampered/LONGER.md',
        './tampered/SKILL.md',
        './tampered/TAMPERED.md'])
    assert (t / 'skills/pdf-processing/references').is_dir()
    # grep -r finds text in them
    r = sh('grep -rl "Field by field" skills', t)
    assert r.stdout.decode().split() == \
        ['skills/pdf-processing/references/FORMS.md'], r
    # cp -r, then diff -r against the source: byte for byte, binary too
    r = sh(f'cp -r skills/pdf-processing {tmp_path}/copy && '
           f'diff -r {skills_dir}/pdf-processing {tmp_path}/copy', t)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert (tmp_path / 'copy/assets/logo.bin').read_bytes() == BINARY
    # tar reads as many bytes as stat says: the sizes are the files'
    r = sh('stat -c %s skills/pdf-processing/assets/logo.bin', t)
    assert r.stdout == b'%d\n' % len(BINARY), r
    r = sh(f'mkdir {tmp_path}/untar && tar cf - skills/pdf-processing '
           f'skills/git-workflow | tar xf - -C {tmp_path}/untar && '
           f'diff -r {skills_dir}/pdf-processing '
           f'{tmp_path}/untar/skills/pdf-processing && '
           f'diff -r {skills_dir}/git-workflow '
           f'{tmp_path}/untar/skills/git-workflow', t)
    assert r.returncode == 0, (r.stdout, r.stderr)
    # read-only
    r = sh('echo x > skills/git-workflow/SKILL.md', t)
    assert r.returncode != 0 and b'Permission denied' in r.stderr, r


def test_a_file_that_does_not_match_its_digest_is_eio(mcpfs_mount,
                                                       skills_dir):
    m = mcpfs_mount({'k': server(skills_dir)})
    t = thread(m, 'k')
    r = sh('cat skills/tampered/TAMPERED.md', t)
    assert r.returncode == 1 and b'Input/output error' in r.stderr, r
    assert r.stdout == b''                  # never the unverified bytes
    warnings = json.dumps(status(t).get('warnings'))
    assert 'TAMPERED.md does not match its digest' in warnings, warnings
    # stat says the listed size; more bytes than that are refused too
    assert os.stat(t / 'skills/tampered/LONGER.md').st_size == \
        len(SKILLS['tampered/LONGER.md'])
    r = sh('cat skills/tampered/LONGER.md', t)
    assert r.returncode == 1 and b'Input/output error' in r.stderr, r
    assert r.stdout == b''
    warnings = json.dumps(status(t).get('warnings'))
    assert 'LONGER.md does not match its size' in warnings, warnings
    # the other files of that skill, and the thread, go on
    assert (t / 'skills/tampered/SKILL.md').read_text() == \
        SKILLS['tampered/SKILL.md']
    assert status(t)['state'] == 'ready'


def test_a_skills_folder_through_a_symlink(mcpfs_mount, skills_dir,
                                           tmp_path):
    m = mcpfs_mount({'k': server(skills_dir)})
    t = thread(m, 'k')
    agent = tmp_path / 'agent/.claude'
    agent.mkdir(parents=True)
    (agent / 'skills').symlink_to(t / 'skills')
    r = sh('ls .claude/skills/ && cat .claude/skills/git-workflow/SKILL.md',
           tmp_path / 'agent')
    assert r.returncode == 0, r.stderr
    assert set(r.stdout.decode().split()[:len(NAMES)]) == NAMES
    assert r.stdout.decode().endswith(SKILLS['git-workflow/SKILL.md'])


@pytest.mark.parametrize('opt', ['--partial', '--no-ext'])
def test_partial_or_no_extension_is_an_empty_skills_dir(mcpfs_mount,
                                                        skills_dir,
                                                        tmp_path, opt):
    log = tmp_path / 'requests.log'
    m = mcpfs_mount({'k': server(skills_dir, opt, log=log)})
    t = thread(m, 'k')
    assert os.listdir(t / 'skills') == []
    assert not (t / 'skills/git-workflow').exists()
    asked = [r for r in requests(log) if r['method'] == 'skills/list']
    if opt == '--no-ext':
        assert asked == []                  # not declared: never asked
    else:
        assert len(asked) >= 1
        wait_until(lambda: 'skills/list' in status(t).get('unsupported',
                                                          {}),
                   10, 'the failed listing in status')
    # the thread goes on
    assert status(t)['state'] == 'ready'


def entry(uri, name, files, digest=True):
    """A skill entry of skills/list for --extra: files {uri: text}."""
    res = []
    for u, text in files.items():
        r = {'uri': u}
        if digest:
            r['digest'] = 'sha256:' + hashlib.sha256(text.encode()).hexdigest()
            r['size'] = len(text.encode())
        res.append(r)
    return {'uri': uri, 'frontmatter': {'name': name, 'description': 'x'},
            'resources': res}


def md(name):
    # the name as a JSON string, which YAML reads as its double-quoted
    # scalar: the frontmatter check (skillfm.c) compares it with the
    # entry's, NUL and ESC included
    return f'---\nname: {json.dumps(name)}\ndescription: x\n---\n'


def test_hostile_skill_names_are_listed_once_each(mcpfs_mount, skills_dir,
                                                  tmp_path):
    """Names that break the Agent Skills rules (dotted, 400 bytes, a NUL,
    ESC), a dotted name that spells another pair's path, and a skill
    listed twice: each shown once, under a name a directory entry can
    hold (spec 6), and its SKILL.md opens."""
    long_ = 'a' * 400
    skills, files = [], {}

    def add(uri, name):
        f = {uri: md(name)}
        files.update(f)
        skills.append(entry(uri, name, f))
    add('skill://acme.billing.refunds/SKILL.md', 'acme.billing.refunds')
    add(f'skill://long/{long_}/SKILL.md', long_)
    add('skill://nul\u0000x/SKILL.md', 'nul\u0000x')
    add('skill://esc\u001b[31m/SKILL.md', 'esc\u001b[31m')
    add('skill://twice/SKILL.md', 'twice')
    skills.append(skills[-1])               # the same entry again
    extra = tmp_path / 'extra.json'
    extra.write_text(json.dumps({'skills': skills, 'files': files}))
    m = mcpfs_mount({'k': server(skills_dir, '--extra', str(extra))})
    t = thread(m, 'k')
    r = sh('ls skills', t)
    assert r.returncode == 0, r.stderr
    names = r.stdout.decode().split('\n')[:-1]
    assert len(names) == len(set(names)), names           # never twice
    assert len(names) == len(NAMES) + len(skills), names
    for n in names:
        assert len(n.encode()) <= 255, n
        assert not any(ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f
                       for ch in n), repr(n)
        assert '\u0000' not in n and b'\xc0\x80' not in n.encode()
    # the two refunds are told apart by their paths; the dotted name that
    # spells one of them is a third folder, not the same
    assert {'acme.billing.refunds', 'acme.support.refunds'} <= set(names)
    dotted = [n for n in names if n.startswith('acme.billing.refunds~')]
    assert len(dotted) == 1, names
    assert (t / 'skills' / dotted[0] / 'SKILL.md').read_text() == \
        md('acme.billing.refunds')
    assert (t / 'skills/acme.billing.refunds/SKILL.md').read_text() == \
        SKILLS['acme/billing/refunds/SKILL.md']
    # 400 bytes: cut and made unique, as a long tool name is
    long_dir, = [n for n in names if n.startswith('long.aaaa')]
    assert len(long_dir) <= 240 and '~' in long_dir, long_dir
    assert (t / 'skills' / long_dir / 'SKILL.md').read_text() == md(long_)
    # a NUL and an ESC percent-encoded
    assert 'nul%00x' in names and 'esc%1B[31m' in names, names
    assert (t / 'skills/esc%1B[31m/SKILL.md').read_text() == \
        md('esc\u001b[31m')
    # the frontmatter check (SEP-2640) reads SKILL.md's YAML, which holds
    # no NUL: its name never equals the entry's, so it is not loaded
    with pytest.raises(OSError) as e:
        (t / 'skills/nul%00x/SKILL.md').read_text()
    assert e.value.errno == errno.EIO
    # listed twice: two folders, each once
    twice = sorted(n for n in names if n.startswith('twice'))
    assert len(twice) == 2 and twice[0] == 'twice' and \
        twice[1].startswith('twice~'), names


def test_a_file_without_digest_is_left_out(mcpfs_mount, skills_dir,
                                           tmp_path):
    """SEP-2640: every file of a skill carries its digest and size, and
    unverified content is never used: a file listed without them is not
    shown (said in status); an entry whose resources is neither a list
    nor "dynamic" is not shown at all."""
    files = {'skill://plain/SKILL.md': md('plain'),
             'skill://plain/extra.md': 'no digest for me\n'}
    good = entry('skill://plain/SKILL.md', 'plain',
                 {'skill://plain/SKILL.md': md('plain')})
    good['resources'] += entry('', '', {'skill://plain/extra.md':
                                        files['skill://plain/extra.md']},
                               digest=False)['resources']
    bad = entry('skill://nores/SKILL.md', 'nores', {})
    del bad['resources']
    files['skill://nores/SKILL.md'] = md('nores')
    extra = tmp_path / 'extra.json'
    extra.write_text(json.dumps({'skills': [good, bad], 'files': files}))
    m = mcpfs_mount({'k': server(skills_dir, '--extra', str(extra))})
    t = thread(m, 'k')
    assert os.listdir(t / 'skills/plain') == ['SKILL.md']
    assert not (t / 'skills/plain/extra.md').exists()
    assert (t / 'skills/plain/SKILL.md').read_text() == md('plain')
    assert 'nores' not in os.listdir(t / 'skills')
    warnings = json.dumps(status(t).get('warnings'))
    assert 'without a sha256 digest and size left out' in warnings, warnings
    assert 'skill://plain/extra.md' in warnings, warnings
    assert 'skill://nores/SKILL.md' in warnings, warnings
