"""No orphans, however mcpfs goes (SPEC section 5, issue 19): every server
runs under the supervisor (sessions/supervise.c), which leads the server's
process group and takes the whole group down when mcpfs is SIGKILLed, when
the session closes and when the server exits on its own.

The servers here keep a grandchild alive the way `npx` does: a shell stays
in between (tests/fake/wrap-ignore-eof.sh) and the server under it ignores
stdin EOF and SIGTERM, so only a SIGKILL to every process ends it. What is
left is counted twice: the processes carrying the mount's tag and the
members of each session's process group (the status pid leads it)."""

import os
import shutil
import time

import pytest

from conftest import (FAKESERVER, REPO, call, fake, read_file, status, text,
                      tool, wait_until)

WRAP = REPO / 'tests/fake/wrap-ignore-eof.sh'
EVERYTHING_BIN = REPO / 'node_modules/.bin/mcp-server-everything'
GRACE = 6   # s after mcpfs's death: the supervisor needs 2 s + a SIGKILL


def wrapped(*opts):
    return {'command': str(WRAP),
            'args': [str(FAKESERVER), '--ignore-stdin-eof',
                     '--ignore-sigterm', *map(str, opts)]}


def group_members(pgid):
    """Live (non-zombie) processes in process group pgid."""
    out = []
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            s = open(f'/proc/{d}/stat').read()
        except OSError:
            continue
        f = s[s.rindex(')') + 2:].split()
        if int(f[2]) == pgid and f[0] not in 'ZX':
            out.append(int(d))
    return out


def left(m, groups):
    """Live processes of this mount: tagged, or in one of the groups."""
    pids = set(m.pids())
    for g in groups:
        pids.update(group_members(g))
    return sorted(pids)


def start_sessions(m, server, n):
    """n threads of server, each with a first call done; returns the
    status pids (the group leaders)."""
    leads = []
    for i in range(n):
        t = m.path / server / f't{i}'
        os.mkdir(t)
        assert text(tool(t, 'echo', text='hi')) == 'hi'
        leads.append(status(t)['pid'])
    return leads


def kill_mcpfs(m, groups):
    """SIGKILL mcpfs; wait up to GRACE s for every process of its sessions
    to be gone; detach the dead mount. Returns what was still left."""
    kids = m.children()
    m.proc.kill()
    m.proc.wait()
    end = time.monotonic() + GRACE
    while left(m, groups) and time.monotonic() < end:
        time.sleep(0.1)
    stray = left(m, groups)
    m.abandon(kids)   # fusermount3 -uz, reap the supervisors we adopted
    return stray


def test_wrapped_server_has_grandchildren(mcpfs_mount):
    m = mcpfs_mount({'w': wrapped()})
    (lead,) = start_sessions(m, 'w', 1)
    server = int(text(tool(m.path / 'w' / 't0', 'pid')))
    members = group_members(lead)
    # supervisor, sh, sleep, fakeserver: the server is a grandchild
    assert len(members) == 4 and server in members and lead in members, \
        members
    assert server != lead
    m.unmount()


def test_sigkill_mcpfs_leaves_no_process(mcpfs_mount):
    m = mcpfs_mount({'w': wrapped(), 'f': fake('--ignore-stdin-eof')})
    groups = start_sessions(m, 'w', 3) + start_sessions(m, 'f', 1)
    assert len(left(m, groups)) == 3 * 4 + 2
    stray = kill_mcpfs(m, groups)
    assert stray == [], f'left {GRACE} s after SIGKILL of mcpfs: {stray}'


def test_rmdir_leaves_no_process(mcpfs_mount):
    m = mcpfs_mount({'w': wrapped()})
    groups = start_sessions(m, 'w', 2)
    os.rmdir(m.path / 'w' / 't0')
    wait_until(lambda: not group_members(groups[0]), GRACE,
               'the closed session to be gone')
    assert len(group_members(groups[1])) == 4   # the other one lives on
    m.unmount()
    assert left(m, groups) == []


def test_unmount_leaves_no_process(mcpfs_mount):
    m = mcpfs_mount({'w': wrapped()})
    groups = start_sessions(m, 'w', 3)
    m.unmount()   # checks the tagged processes itself
    assert left(m, groups) == []


def test_server_exit_takes_its_group(mcpfs_mount):
    """The server crashes under its shell: the sleep beside it is killed
    and status shows the server's own exit status."""
    m = mcpfs_mount({'w': wrapped()})
    (lead,) = start_sessions(m, 'w', 1)
    t = m.path / 'w' / 't0'
    reply = tool(t, 'crash', code=3, timeout=10)
    assert 'error' in reply
    wait_until(lambda: not group_members(lead), 5, 'the group to be gone')
    st = status(t)
    assert st['state'] == 'exited', st
    assert 'status 3' in read_file(t / 'events').decode() or \
        st.get('exit', {}).get('status') == 3 or '3' in str(st), st
    m.unmount()


@pytest.mark.skipif(not shutil.which('node') or not shutil.which('npm'),
                    reason='node or npm missing')
@pytest.mark.skipif(not EVERYTHING_BIN.exists(),
                    reason=f'{EVERYTHING_BIN} missing (run npm ci)')
def test_sigkill_mcpfs_with_npm_exec_everything(mcpfs_mount):
    """server-everything started through `npm exec` (npm, sh, node), with
    simulated subscription updates on (live timers): SIGKILL mcpfs, and
    within GRACE s nothing of it is left."""
    m = mcpfs_mount({'ev': {
        'command': 'npm',
        'args': ['exec', '--offline', '--yes', '--',
                 'mcp-server-everything', 'stdio'],
        'cwd': str(REPO)}})
    groups = []
    for i in range(2):
        t = m.path / 'ev' / f't{i}'
        os.mkdir(t)
        names = {x['name'] for x in call(t, {'method': 'tools/list'},
                                         timeout=60).get('tools', [])}
        toggle = 'toggle-subscriber-updates' \
            if 'toggle-subscriber-updates' in names \
            else 'toggle-simulated-logging'
        r = call(t, {'name': toggle, 'arguments': {}}, timeout=60)
        assert r.get('isError') is not True, r
        groups.append(status(t)['pid'])
    before = left(m, groups)
    assert len(before) >= 2 * 3, before   # supervisor, npm, (sh,) node
    stray = kill_mcpfs(m, groups)
    assert stray == [], f'left {GRACE} s after SIGKILL of mcpfs: {stray}'
