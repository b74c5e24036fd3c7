"""No orphans, however a session ends (spec 5): every
server runs under its supervisor (sessions/supervise.c, the mcpfs-exec
binary), which leads the session's process group, and every process of
the session is gone GRACE s after mcpfs is SIGKILLed, after rmdir, after
unmount, after the idle timeout closed it and after `restart` on ctl.

Two servers that keep a grandchild alive the way `npx` does:

* wrapped: a shell stays in between (tests/fake/wrap-ignore-eof.sh), a
  sleep runs beside the server and another one that left the process
  group (setsid), and the server under the shell ignores stdin EOF and
  SIGTERM, so only a SIGKILL to every process ends it;
* npx: the real `npx -y @modelcontextprotocol/server-everything` (npm
  exec, sh, node; offline, from the repository's node_modules) after
  `toggle-subscriber-updates`, whose live timers keep node running past
  stdin EOF.

What a session is made of is taken before it ends: its supervisor (the
status pid, which leads the group), every member of that group and every
descendant of the supervisor, each as (pid, start time) so that a reused
pid is not mistaken for a survivor. What is left is that set's live
processes, the live members of the same groups and descendants of the same
supervisors, and, when the whole mount went, every live process with the
mount's tag. Every test asserts that count is 0."""

import os
import shutil
import signal
import time

import pytest

import conftest
from conftest import (FAKESERVER, MCPFS, REPO, call, fake, is_supervisor,
                      pid_gone, procs, reap_adopted, status, text, tool,
                      wait_until, write_file)

WRAP = REPO / 'tests/fake/wrap-ignore-eof.sh'
EVERYTHING = REPO / 'node_modules/@modelcontextprotocol/server-everything'
GRACE = 6   # s: the supervisor's 2 s + a SIGKILL after mcpfs's death;
#             the close sequence's 2 s + 2 s after rmdir, idle, restart
KINDS = ['sigkill', 'rmdir', 'unmount', 'idle', 'restart']
IDLE = 3    # s, --idle-timeout of the idle tests


def wrapped(*opts):
    return {'command': str(WRAP),
            'args': [str(FAKESERVER), '--ignore-stdin-eof',
                     '--ignore-sigterm', *map(str, opts)]}


def npx_everything():
    return {'command': 'npx',
            'args': ['--offline', '-y', '@modelcontextprotocol/server-everything',
                     'stdio'],
            'cwd': str(REPO)}


need_npx = [
    pytest.mark.skipif(not shutil.which('node') or not shutil.which('npx'),
                       reason='node or npx missing'),
    pytest.mark.skipif(not (EVERYTHING / 'package.json').exists(),
                       reason=f'{EVERYTHING} missing (run npm ci)')]

SERVERS = {'wrapped': (wrapped, 5),     # supervisor, sh, 2 sleeps, fakeserver
           'npx': (npx_everything, 4)}  # supervisor, npm exec, sh, node


# ---------------------------------------------------------------- /proc

def live(info):
    return info[0] not in 'ZX'


def session_set(lead, table=None):
    """{(pid, starttime)} of the live processes of the session whose
    supervisor is lead: lead, its process group, its descendants."""
    table = table if table is not None else procs()
    kids = {}
    for pid, info in table.items():
        kids.setdefault(info[1], []).append(pid)
    below = set()
    todo = [lead] if lead in table else []
    while todo:
        p = todo.pop()
        below.add(p)
        todo.extend(k for k in kids.get(p, ()) if k not in below)
    found = below | {p for p, info in table.items() if info[2] == lead}
    return {(p, table[p][3]) for p in found if live(table[p])}


def left(snapshot, leads, tag=None):
    """Live processes of these sessions now: of the snapshot (same pid and
    start time), of the same groups and below the same supervisors, and
    with tag when given."""
    table = procs()
    now = {p for p, st in snapshot
           if p in table and table[p][3] == st and live(table[p])}
    for lead in leads:
        now.update(p for p, _ in session_set(lead, table))
    if tag:
        now.update(conftest.tagged_pids(tag))
    return sorted(now)


def wait_gone(snapshot, leads, tag=None, grace=GRACE):
    """Poll up to grace s for left() to be empty; returns what is left."""
    end = time.monotonic() + grace
    while left(snapshot, leads, tag) and time.monotonic() < end:
        time.sleep(0.1)
    return left(snapshot, leads, tag)


def report(kind, server, stray, snap):
    """One line per test (shown with -s or -rA): how many were left. Then
    SIGKILL what was left (all of it this test's: of the snapshot, of its
    sessions' groups or with its tag) and reap what this process adopted,
    so that a failure does not leak into the next test."""
    print(f'\norphans: {server} after {kind}: {len(stray)} left')
    for pid in stray:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    reap_adopted(sorted({p for p, _ in snap} | set(stray)))


# ---------------------------------------------------------------- sessions

def start_session(m, server, name):
    """A thread of server with a first call done (for npx: the live timers
    of toggle-subscriber-updates on). Returns (thread, supervisor pid)."""
    t = m.path / server / name
    os.mkdir(t)
    if server == 'npx':
        names = {x['name'] for x in call(t, {'method': 'tools/list'},
                                         timeout=60).get('tools', [])}
        assert 'toggle-subscriber-updates' in names, names
        r = call(t, {'name': 'toggle-subscriber-updates', 'arguments': {}},
                 timeout=60)
        assert r.get('isError') is not True, r
    else:
        assert text(tool(t, 'echo', text='hi')) == 'hi'
    lead = status(t)['pid']
    assert is_supervisor(lead), lead
    return t, lead


def start_sessions(m, server, n):
    return [start_session(m, server, f't{i}') for i in range(n)]


def snapshot_of(leads, members):
    table = procs()
    snap = set()
    for lead in leads:
        s = session_set(lead, table)
        assert len(s) >= members, (lead, s)
        snap |= s
    return snap


def kill_mcpfs(m):
    """SIGKILL mcpfs; returns its children (the supervisors, adopted by
    this process now) for abandon()."""
    kids = m.children()
    m.proc.kill()
    m.proc.wait()
    return kids


# ---------------------------------------------------------------- the tests

def test_wrapped_server_has_grandchildren(mcpfs_mount):
    m = mcpfs_mount({'w': wrapped()})
    ((t, lead),) = start_sessions(m, 'w', 1)
    server = int(text(tool(t, 'pid')))
    members = [p for p, _ in session_set(lead)]
    # supervisor, sh, 2 sleeps, fakeserver: the server is a grandchild
    assert len(members) == 5 and server in members and lead in members, \
        members
    assert os.getpgid(server) == lead
    # one sleep leaves the group (setsid, a moment after the shell forked
    # it): a kill of the group would miss it
    wait_until(lambda: sorted(os.getpgid(p) == lead for p in members) ==
               [False, True, True, True, True], 10, 'the setsid sleep')
    # mcpfs-exec, the supervisor alone, runs beside the mcpfs built here
    argv0 = open(f'/proc/{lead}/cmdline', 'rb').read().split(b'\0')[0]
    assert argv0 == bytes(MCPFS.with_name('mcpfs-exec')), argv0
    m.unmount()


def run_death(mcpfs_mount, kind, server):
    """Two sessions of server end by kind; the processes of those that
    ended must all be gone within GRACE s. Returns what was left."""
    make, members = SERVERS[server]
    args = ['--idle-timeout', str(IDLE)] if kind == 'idle' else []
    m = mcpfs_mount({server: make()}, args=args)
    # each session's processes are taken right after its start: under load
    # npx's second start took longer than the idle timeout, and the first
    # session had been closed (rightly) before a snapshot taken after both
    sessions, each = [], {}
    for i in range(2):
        t, lead = start_session(m, server, f't{i}')
        sessions.append((t, lead))
        each[lead] = snapshot_of([lead], members)
    leads = [lead for _, lead in sessions]
    snap = set().union(*each.values())
    (t0, lead0), (t1, lead1) = sessions
    if kind == 'sigkill':
        kids = kill_mcpfs(m)
        stray = wait_gone(snap, leads, m.tag)
        m.abandon(kids)
    elif kind == 'unmount':
        m.unmount()   # checks mcpfs's exit and the tagged processes itself
        stray = wait_gone(snap, leads, m.tag)
    elif kind == 'idle':
        wait_until(lambda: not t0.exists() and not t1.exists(), IDLE + 15,
                   'the idle sessions to be closed')
        stray = wait_gone(snap, leads, m.tag)
        m.unmount()
    elif kind == 'rmdir':
        os.rmdir(t0)
        stray = wait_gone(each[lead0], [lead0])
        # the other session lives on, all of it
        assert each[lead1] <= session_set(lead1)
        assert status(t1)['state'] == 'ready'
        m.unmount()
        stray += wait_gone(snap, leads, m.tag)
    elif kind == 'restart':
        write_file(t0 / 'ctl', 'restart\n')
        stray = wait_gone(each[lead0], [lead0])
        # a fresh process in the same thread, under a new supervisor
        if server == 'npx':
            assert call(t0, {'method': 'tools/list'}, timeout=60)['tools']
        else:
            assert text(tool(t0, 'echo', text='again')) == 'again'
        st = status(t0)
        assert st['state'] == 'ready' and st['pid'] != lead0, st
        assert is_supervisor(st['pid'])
        m.unmount()
        stray += wait_gone(snap | session_set(st['pid']), leads + [st['pid']],
                           m.tag)
    report(kind, server, stray, snap)
    return stray


@pytest.mark.parametrize('kind', KINDS)
def test_wrapped_server_leaves_no_process(mcpfs_mount, kind):
    stray = run_death(mcpfs_mount, kind, 'wrapped')
    assert len(stray) == 0, f'{GRACE} s after {kind}: {stray} left'


@pytest.mark.parametrize('kind', KINDS)
@need_npx[0]
@need_npx[1]
def test_npx_everything_leaves_no_process(mcpfs_mount, kind):
    stray = run_death(mcpfs_mount, kind, 'npx')
    assert len(stray) == 0, f'{GRACE} s after {kind}: {stray} left'


def test_sigkill_mcpfs_many_sessions(mcpfs_mount):
    """Three wrapped sessions and a plain one that ignores stdin EOF."""
    m = mcpfs_mount({'w': wrapped(), 'f': fake('--ignore-stdin-eof')})
    leads = [lead for _, lead in start_sessions(m, 'w', 3)]
    ((_, flead),) = start_sessions(m, 'f', 1)
    snap = snapshot_of(leads, 5) | snapshot_of([flead], 2)
    assert len(snap) == 3 * 5 + 2
    kids = kill_mcpfs(m)
    stray = wait_gone(snap, leads + [flead], m.tag)
    m.abandon(kids)
    report('sigkill', 'wrapped x3 + fake', stray, snap)
    assert len(stray) == 0, f'{GRACE} s after SIGKILL of mcpfs: {stray}'


def test_sigkill_mcpfs_without_mcpfs_exec(mcpfs_mount, tmp_path,
                                          monkeypatch):
    """An mcpfs with no mcpfs-exec beside it runs itself as the
    supervisor (`mcpfs --mcpfs-exec`), with the same guarantees."""
    alone = tmp_path / 'bin'
    alone.mkdir()
    shutil.copy2(MCPFS, alone / 'mcpfs')
    monkeypatch.setattr(conftest, 'MCPFS', alone / 'mcpfs')
    m = mcpfs_mount({'w': wrapped()})
    sessions = start_sessions(m, 'w', 2)
    leads = [lead for _, lead in sessions]
    for lead in leads:
        argv0 = open(f'/proc/{lead}/cmdline', 'rb').read().split(b'\0')[0]
        assert argv0 == bytes(alone / 'mcpfs'), argv0
    snap = snapshot_of(leads, 5)
    kids = kill_mcpfs(m)
    stray = wait_gone(snap, leads, m.tag)
    m.abandon(kids)
    report('sigkill', 'wrapped under mcpfs --mcpfs-exec', stray, snap)
    assert len(stray) == 0, f'{GRACE} s after SIGKILL of mcpfs: {stray}'


def test_server_exit_takes_its_group(mcpfs_mount):
    """The server crashes under its shell: the sleep beside it is killed
    and status shows the server's own exit status."""
    m = mcpfs_mount({'w': wrapped()})
    ((t, lead),) = start_sessions(m, 'w', 1)
    snap = snapshot_of([lead], 5)
    reply = tool(t, 'crash', code=3, timeout=10)
    assert 'error' in reply
    stray = wait_gone(snap, [lead])
    report('server exit', 'wrapped', stray, snap)
    assert len(stray) == 0, stray
    st = status(t)
    assert st['state'] == 'exited' and st['exit'] == {'status': 3}, st
    m.unmount()


@pytest.mark.parametrize('sig', [signal.SIGQUIT, signal.SIGUSR2])
def test_supervisor_passes_on_the_signal(mcpfs_mount, sig):
    """A server killed by a signal (SIGQUIT would dump a core): the
    supervisor dies of the same one, without a core, so status names it."""
    m = mcpfs_mount({'f': fake()})
    ((t, lead),) = start_sessions(m, 'f', 1)
    server = int(text(tool(t, 'pid')))
    assert 'error' in tool(t, 'crash', signal=sig.name, timeout=10)
    wait_until(lambda: status(t)['state'] == 'exited', 10, 'the exit')
    st = status(t)
    assert st['exit'] == {'signal': sig}, st
    assert wait_gone(set(), [lead]) == []
    wait_until(lambda: pid_gone(server) and pid_gone(lead), 5, 'reaped')
    m.unmount()
