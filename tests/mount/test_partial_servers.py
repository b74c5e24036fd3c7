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

from conftest import fake, status, thread

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
