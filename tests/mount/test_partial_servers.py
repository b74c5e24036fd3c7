"""Servers as they are (spec 9): a server that declares a capability and
implements part of it. A request mcpfs makes on its own that the server
answers with an error is "none" for the session, noted once in status and
not asked again until a list_changed or a restart; no read of the tree
hangs or loops, and mcpfs asks only for what the server declares.

The fake server's partial options (tests/fake/README.md) make each
variant; its --log file counts the requests it saw, by method. Every read
runs in a subprocess under a generous time bound (a hang guard, not a
speed assertion)."""

import collections
import json
import os
import subprocess
import time

import pytest

from conftest import (fake, read_file, status, text, thread, tool,
                      wait_until)

BOUND = 30  # seconds: a read past this has hung


def seen(log):
    """The requests (with an id) the fake servers logged, by method."""
    n = collections.Counter()
    if not log.exists():
        return n
    for line in log.read_text().splitlines():
        msg = json.loads(line)
        if 'id' in msg and 'method' in msg:
            n[msg['method']] += 1
    return n


def run(script, cwd):
    """script in bash at cwd under the hang guard: (rc, stdout, stderr,
    seconds)."""
    t0 = time.monotonic()
    r = subprocess.run(['bash', '-c', script], cwd=cwd, capture_output=True,
                       timeout=BOUND)
    return r.returncode, r.stdout, r.stderr, time.monotonic() - t0


def partial(m_factory, tmp_path, *opts, args=()):
    """A mount of server `p`: the fake with opts, logging to a file."""
    log = tmp_path / 'fake.log'
    m = m_factory({'p': fake('--log', log, *opts)}, args=args)
    return m, log


# ------------------------------------------------ the listing of templates

def test_templates_method_not_found_is_none(mcpfs_mount, tmp_path):
    m, log = partial(mcpfs_mount, tmp_path, '--resources', 2,
                     '--fail', 'resources/templates/list')
    t = thread(m, 'p', 't1')
    rc, out, err, _ = run('cat resources.json', t)
    assert rc == 0, err
    doc = json.loads(out)
    assert [r['uri'] for r in doc['resources']] == ['fake://r0', 'fake://r1']
    assert doc['resourceTemplates'] == []
    for _ in range(3):
        assert run('cat resources.json', t)[0] == 0
    assert seen(log)['resources/templates/list'] == 1
    st = status(t)
    assert st['unsupported']['resources/templates/list']['code'] == -32601


# ------------------------------------------------------------ the matrix

# Every read of the tree: each file kind of a thread and a server
# directory, then whole-tree walks. Run from the mount's root; DEST is a
# scratch directory outside it.
READS = [
    'cat p/t1/status', 'cat p/t1/stderr', 'cat p/t1/events',
    'cat p/t1/tools.json', 'cat p/t1/resources.json',
    'cat p/t1/prompts.json', 'ls -l p/t1/tools', 'ls -l p/t1/resources',
    'ls -l p/t1/prompts', 'ls -l p/t1/result', 'ls -l p/t1/requests',
    'ls -l p/t1/help', 'cat p/t1/help/*',
    'find p/t1/resources p/t1/prompts -type f -exec cat {} +',
    'cat p/t1/call p/t1/tools/echo',
    'ls -l p', 'ls -l p/help', 'cat p/help/*', 'cat p/tools.json',
    'cat README.md', 'cat .status',
    'find . >/dev/null', 'grep -r x . >/dev/null; [ $? -le 1 ]',
    'cp -r p/t1 "$DEST/cp"',
    # tar exits 1 when a file changed as it read it (events, while a
    # storm of notifications arrives), 2 on an error
    'tar cf "$DEST/t.tar" p/t1; [ $? -le 1 ]',
]

# What mcpfs never asks on its own, whatever the server declares.
NEVER = ('completion/complete', 'logging/setLevel', 'resources/subscribe',
         'resources/unsubscribe')

# variant: (fake options, {method: the most requests the server may see}).
# Two sessions ask: the server's probe (tools, prompts) and thread t1
# (every listing); a listing answered with an error is asked once by each.
VARIANTS = {
    'templates-32601': (['--resources', 2,
                         '--fail', 'resources/templates/list'],
                        {'resources/templates/list': 1,
                         'resources/list': 1}),
    'templates-32603': (['--resources', 2,
                         '--fail', 'resources/templates/list=-32603'],
                        {'resources/templates/list': 1}),
    'resources-declared-only': (['--declare', 'resources'],
                                {'resources/list': 1,
                                 'resources/templates/list': 1}),
    'prompts-declared-only': (['--declare', 'prompts'],
                              {'prompts/list': 2}),
    'prompts-32000': (['--prompts', 2, '--fail', 'prompts/list=-32000'],
                      {'prompts/list': 2}),
    'completion': (['--declare', 'completions',
                    '--fail', 'completion/complete'], {}),
    'logging': (['--fail', 'logging/setLevel'], {}),
    'subscribe': (['--resources', 2, '--declare', 'resources.subscribe',
                   '--fail', 'resources/subscribe'], {}),
    'next-page-error': (['--page-fail', 'tools/list'], {'tools/list': 4}),
    'repeated-cursor': (['--page-repeat', 'tools/list'], {'tools/list': 4}),
    'endless-pages': (['--resources', 0, '--page-endless',
                       'resources/list'], {'resources/list': 1000}),
    'list-changed-storm': (['--resources', 2, '--prompts', 2,
                            '--storm', 20], None),
}

# variant: the note in t1's status (member, method).
NOTES = {
    'templates-32601': ('unsupported', 'resources/templates/list'),
    'templates-32603': ('unsupported', 'resources/templates/list'),
    'resources-declared-only': ('unsupported', 'resources/list',
                                'resources/templates/list'),
    'prompts-declared-only': ('unsupported', 'prompts/list'),
    'prompts-32000': ('unsupported', 'prompts/list'),
    'next-page-error': ('partial', 'tools/list'),
    'repeated-cursor': ('partial', 'tools/list'),
    'endless-pages': ('partial', 'resources/list'),
}


@pytest.mark.parametrize('variant', sorted(VARIANTS))
def test_every_read_ends(mcpfs_mount, tmp_path, variant):
    opts, most = VARIANTS[variant]
    m, log = partial(mcpfs_mount, tmp_path, *opts,
                     args=['--call-timeout', 0])
    dest = tmp_path / 'dest'
    dest.mkdir()
    os.mkdir(m.path / 'p' / 't1')
    slowest = (0, None)
    for script in READS:
        rc, out, err, secs = run(f'DEST={dest}; {script}', m.path)
        assert rc == 0, (script, err)
        slowest = max(slowest, (secs, script))
    n = seen(log)
    print(f'\n{variant}: slowest {slowest[0]:.2f} s ({slowest[1]}); '
          f'requests {dict(sorted(n.items()))}')
    for method in NEVER:
        assert n[method] == 0, (method, n)
    st = status(m.path / 'p' / 't1')
    assert st['state'] == 'ready' and st['generation'] == 1, st
    if most is None:
        # the storm: every listing is stale at once, so each lookup may
        # list again (and the server's help/ start a new probe), but no
        # read loops: bounded by the number of files read
        assert n['initialize'] <= 10 and max(n.values()) <= 1000, n
        return
    assert n['initialize'] == 2, n      # the probe and t1: no restart
    if variant in NOTES:
        member, *methods = NOTES[variant]
        assert sorted(st[member]) == methods, st
        other = 'partial' if member == 'unsupported' else 'unsupported'
        assert st[other] == {}, st
    else:
        assert st['unsupported'] == {} and st['partial'] == {}, st
    for method, k in most.items():
        assert n[method] == k, (method, n)


def test_pages_stop_with_what_they_have(mcpfs_mount, tmp_path):
    """A next page that fails, or a cursor that repeats: the listing has
    the first page's tools, and status says why it ends there."""
    m, log = partial(mcpfs_mount, tmp_path, '--page-repeat', 'tools/list',
                     '--page-fail', 'prompts/list', '--prompts', 1,
                     args=['--call-timeout', 0])
    t = thread(m, 'p', 't1')
    assert sorted(os.listdir(t / 'tools')) == ['echo']
    assert sorted(os.listdir(t / 'prompts')) == ['p0']
    st = status(t)
    tools = st['partial']['tools/list']
    assert tools['pages'] == 2 and tools['items'] == 1
    assert 'repeats a cursor' in tools['reason']
    prompts = st['partial']['prompts/list']
    assert prompts['error']['code'] == -32603 and prompts['pages'] == 1
    assert seen(log)['tools/list'] == 2   # two pages, asked once


def test_asked_again_after_list_changed_or_restart(mcpfs_mount, tmp_path):
    """A listing taken as none is asked again after a list_changed of its
    kind, and after a restart; not before."""
    m, log = partial(mcpfs_mount, tmp_path, '--fail', 'tools/list')
    t = thread(m, 'p', 't1')
    for _ in range(3):
        assert os.listdir(t / 'tools') == []
    assert seen(log)['tools/list'] == 1
    assert status(t)['unsupported']['tools/list']['code'] == -32601
    assert text(tool(t, 'list_changed')) == 'ok'
    wait_until(lambda: b'list_changed' in read_file(t / 'events'), 10,
               'list_changed in events')
    assert os.listdir(t / 'tools') == []
    assert os.listdir(t / 'tools') == []
    assert seen(log)['tools/list'] == 2
    (t / 'ctl').write_text('restart\n')
    assert os.listdir(t / 'tools') == []
    assert seen(log)['tools/list'] == 3
