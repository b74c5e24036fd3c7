"""The probe of a server (spec 12): listing a server's help/, tools.json
or README.md before any thread exists starts one short probe session per
server, never one per listing; it asks only for what the server declares,
and its result is cached."""

import collections
import json
import subprocess

from conftest import fake

BOUND = 30  # seconds: a hang guard, not a speed assertion


def seen(log):
    """The requests the fake servers logged, by method (initialize: one
    per process started)."""
    n = collections.Counter()
    if log.exists():
        for line in log.read_text().splitlines():
            msg = json.loads(line)
            if 'id' in msg and 'method' in msg:
                n[msg['method']] += 1
    return n


def walk(m):
    r = subprocess.run(['bash', '-c', 'ls p/help; cat p/tools.json; '
                        'cat README.md'], cwd=m.path, capture_output=True,
                       text=True, timeout=BOUND)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_one_probe_without_prompts(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'p': fake('--log', log)})
    out = walk(m)
    assert 'echo' in out and '"tools"' in out
    n = seen(log)
    assert n['initialize'] == 1, n
    assert n['tools/list'] == 1, n
    assert n['prompts/list'] == 0, n    # not declared: not asked


def test_one_probe_with_prompts(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'p': fake('--log', log, '--prompts', 2)})
    out = walk(m)
    assert 'prompt:p0' in out and 'prompt:p1' in out
    walk(m)     # cached: asks nothing more
    n = seen(log)
    assert n['initialize'] == 1, n
    assert n['tools/list'] == 1, n
    assert n['prompts/list'] == 1, n
