"""Stress: many client processes, many sessions, churn and crashes at once,
then mcpfs's memory, descriptors and children back to where they started.

50 client processes (separate python workers) make 200 calls each, spread
over 10 sessions of the fake server; every call echoes a text unique to it
and the reply must be that call's own text (none lost, none swapped).
Meanwhile two threads create and remove sessions in a loop (mkdir, one
call, rmdir) in the same server directory, and another session is crashed
every second (its next call restarts it). Afterwards every session is
removed and mcpfs's VmRSS and open descriptors are compared with a
baseline taken after a warm-up: descriptors within 2, RSS within 20 MiB,
and no zombie child.

Runs in the normal suite; bounded: the client phase has a time budget
(MCPFS_STRESS_SECONDS, default 60, times MCPFS_TEST_SLACK like every
deadline of the suite: it bounds a hang, it is no speed target) and the
sizes can be changed with MCPFS_STRESS_CLIENTS / MCPFS_STRESS_CALLS.
The figures are printed (pytest -s shows them).
"""

import inspect
import json
import os
import subprocess
import sys
import threading
import time

from conftest import (SLACK, error_text, fake, proc_read, read_all, status,
                      text, tool, wait_until)
from hardening_util import fd_count, vm_rss_kib, zombie_children

CLIENTS = int(os.environ.get('MCPFS_STRESS_CLIENTS', 50))
CALLS = int(os.environ.get('MCPFS_STRESS_CALLS', 200))
SESSIONS = 10
BUDGET = float(os.environ.get('MCPFS_STRESS_SECONDS', 60))
FD_SLACK = 2
RSS_SLACK_KIB = 20 * 1024

# One client: CALLS transactions (open, write, read to EOF, close), each on
# the next session in turn, each with its own text. Prints one JSON line.
WORKER = inspect.getsource(read_all) + r'''
import json, os, sys, time, uuid
dirs, wid, n, deadline = json.loads(sys.argv[1])
ok, bad, errors, done = 0, [], [], 0
lat = []
for i in range(n):
    if time.time() > deadline:
        break
    d = dirs[(wid + i) % len(dirs)]
    want = f"w{wid}-c{i}-{uuid.uuid4().hex}"
    req = json.dumps({"name": "echo", "arguments": {"text": want}}).encode()
    t0 = time.monotonic()
    try:
        fd = os.open(d + "/call", os.O_RDWR)
        try:
            os.write(fd, req)
            out = read_all(fd, 1 << 16)
        finally:
            os.close(fd)
        lat.append(time.monotonic() - t0)
        done += 1
        try:
            r = json.loads(out)
            got = "".join(c.get("text", "") for c in r.get("content", []))
        except Exception as e:
            got = f"unparsable {out[:200]!r}"
        if got == want:
            ok += 1
        elif len(bad) < 5:
            bad.append([d, want, got[:300]])
        else:
            bad.append(None)
    except OSError as e:
        done += 1
        errors.append(f"{d}: {e}")
lat.sort()
print(json.dumps({"wid": wid, "ok": ok, "done": done, "bad": bad,
                  "errors": errors[:5], "n_errors": len(errors),
                  "p50": lat[len(lat) // 2] if lat else None,
                  "max": lat[-1] if lat else None}))
'''


def run_clients(dirs, clients, calls, budget):
    """Start the client processes, wait for them (within budget + 30 s,
    both times SLACK), return (results, wall seconds)."""
    budget *= SLACK
    deadline = time.time() + budget
    t0 = time.monotonic()
    procs = [subprocess.Popen(
        [sys.executable, '-c', WORKER,
         json.dumps([[str(d) for d in dirs], w, calls, deadline])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for w in range(clients)]
    results = []
    try:
        for p in procs:
            left = max(1.0, deadline + 30 * SLACK - time.time())
            out, err = p.communicate(timeout=left)
            assert p.returncode == 0, err.decode(errors='replace')[-2000:]
            results.append(json.loads(out))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        for p in procs:
            p.wait()
    return results, time.monotonic() - t0


class Loop(threading.Thread):
    """Run step() until stopped; keep the first exception."""

    def __init__(self, name, step, pause=0.0):
        super().__init__(name=name, daemon=True)
        self.step, self.pause = step, pause
        self.stop = threading.Event()
        self.error = None
        self.count = 0

    def run(self):
        while not self.stop.is_set():
            try:
                self.step(self)
                self.count += 1
            except BaseException as e:  # noqa: B902 - reported by the test
                self.error = e
                return
            if self.pause:
                self.stop.wait(self.pause)

    def finish(self, timeout=30):
        self.stop.set()
        self.join(timeout * SLACK)
        assert not self.is_alive(), f'{self.name} did not stop'
        if self.error:
            raise self.error


def sanitized(pid):
    """True if mcpfs runs under AddressSanitizer (its quarantine keeps
    freed memory resident: RSS says nothing about leaks there, and
    LeakSanitizer checks those at exit)."""
    return b'libasan' in proc_read(pid, 'maps')


def fd_targets(pid):
    out = {}
    for fd in os.listdir(f'/proc/{pid}/fd'):
        try:
            out[int(fd)] = os.readlink(f'/proc/{pid}/fd/{fd}')
        except OSError:
            pass
    return out


def remove_all(m, server='a'):
    for name in os.listdir(m.path / server):
        if name not in ('call', 'tools.json', 'help'):
            os.rmdir(m.path / server / name)
    wait_until(lambda: m.status()['sessions'] == 0, 15, 'no session left')
    wait_until(lambda: not m.pids(), 15, 'every server process to end')


def settle(m, seconds=1.0):
    """Let mcpfs finish closing (timers, handles), then sample it."""
    time.sleep(seconds)
    pid = m.proc.pid
    return vm_rss_kib(pid), fd_count(pid)


def test_stress_many_clients_churn_and_crashes(mcpfs_mount):
    m = mcpfs_mount({'a': fake()},
                    args=['--max-sessions', '100', '--idle-timeout', '0'])
    srv = m.path / 'a'
    pid = m.proc.pid

    def make_sessions():
        dirs = [srv / f's{i}' for i in range(SESSIONS)]
        for d in dirs:
            os.mkdir(d)
        os.mkdir(srv / 'crashy')
        return dirs

    # ---- warm-up, then the baseline with no session at all
    dirs = make_sessions()
    res, _ = run_clients(dirs, 10, 20, 30)
    assert sum(r['ok'] for r in res) == 200, res
    tool(srv / 'crashy', 'crash', code=3, timeout=10)
    assert text(tool(srv / 'crashy', 'echo', text='up')) == 'up'
    for _ in range(3):
        os.mkdir(srv / 'w')
        tool(srv / 'w', 'echo', text='x')
        os.rmdir(srv / 'w')
    remove_all(m)
    rss0, fds0 = settle(m)

    # ---- the run
    dirs = make_sessions()
    for d in dirs:
        assert text(tool(d, 'echo', text='ready')) == 'ready'
    crashy = srv / 'crashy'
    assert text(tool(crashy, 'echo', text='ready')) == 'ready'

    def churn(k):
        def step(loop):
            d = srv / f'churn{k}-{loop.count}'
            os.mkdir(d)
            assert text(tool(d, 'echo', text=d.name)) == d.name
            os.rmdir(d)
        return step

    crashes = {'n': 0, 'restarts': 0}

    def crash_step(loop):
        g = status(crashy)['generation']
        err = error_text(tool(crashy, 'crash', code=3, timeout=10))
        assert 'exit' in err.lower() and '3' in err, err
        crashes['n'] += 1
        assert text(tool(crashy, 'echo', text='back')) == 'back'
        assert status(crashy)['generation'] == g + 1
        crashes['restarts'] += 1

    peak = {'rss': 0, 'fds': 0, 'zombie_age': 0.0}
    first_seen = {}

    def sample(loop):
        peak['rss'] = max(peak['rss'], vm_rss_kib(pid))
        peak['fds'] = max(peak['fds'], fd_count(pid))
        now = time.monotonic()
        for z in zombie_children(pid):
            age = now - first_seen.setdefault(z, now)
            peak['zombie_age'] = max(peak['zombie_age'], age)

    loops = [Loop('churn0', churn(0)), Loop('churn1', churn(1)),
             Loop('crasher', crash_step, pause=1.0),
             Loop('sampler', sample, pause=0.2)]
    for lp in loops:
        lp.start()
    try:
        results, wall = run_clients(dirs, CLIENTS, CALLS, BUDGET)
    finally:
        for lp in loops:
            lp.stop.set()
    for lp in loops:
        lp.finish()

    done = sum(r['done'] for r in results)
    ok = sum(r['ok'] for r in results)
    bad = [b for r in results for b in r['bad'] if b]
    errors = [e for r in results for e in r['errors']]
    n_errors = sum(r['n_errors'] for r in results)
    p50 = sorted(r['p50'] for r in results if r['p50'] is not None)
    worst = max((r['max'] for r in results if r['max'] is not None),
                default=None)
    for d in dirs:
        st = status(d)
        assert st['state'] == 'ready' and st['generation'] == 1, (d, st)
        assert st['in_flight'] == 0, (d, st)

    # ---- everything removed: back to the baseline
    remove_all(m)
    rss1, fds1 = settle(m)
    wait_until(lambda: not zombie_children(pid), 5, 'no zombie child')
    zombies = zombie_children(pid)

    print(f'\nstress: {CLIENTS} clients x {CALLS} calls over {SESSIONS} '
          f'sessions: {done} done, {ok} ok, {len(bad)} wrong, {n_errors} '
          f'errors in {wall:.1f} s = {done / wall:.0f} calls/s; '
          f'per-call latency p50 (median of clients) '
          f'{p50[len(p50) // 2] * 1000 if p50 else 0:.1f} ms, '
          f'max {worst * 1000 if worst else 0:.0f} ms')
    print(f'stress: churn sessions {loops[0].count + loops[1].count}, '
          f'crashes {crashes["n"]}, restarts {crashes["restarts"]}')
    print(f'stress: mcpfs RSS baseline {rss0 / 1024:.1f} MiB, peak '
          f'{peak["rss"] / 1024:.1f} MiB, after {rss1 / 1024:.1f} MiB '
          f'(+{(rss1 - rss0) / 1024:.1f}'
          f'{"; ASan: not checked" if sanitized(pid) else ""}); '
          f'fds baseline {fds0}, peak '
          f'{peak["fds"]}, after {fds1}; zombies seen during the run '
          f'{len(first_seen)} (longest seen {peak["zombie_age"]:.1f} s), '
          f'after {zombies}')

    assert not bad, bad[:5]
    assert not n_errors, errors[:5]
    assert done == CLIENTS * CALLS, \
        f'only {done} of {CLIENTS * CALLS} calls done in the ' \
        f'{BUDGET * SLACK} s budget'
    assert ok == CLIENTS * CALLS
    assert crashes['n'] >= 2, crashes
    assert loops[0].count + loops[1].count >= 4
    assert abs(fds1 - fds0) <= FD_SLACK, (fds0, fds1, fd_targets(pid))
    if not sanitized(pid):
        assert rss1 - rss0 <= RSS_SLACK_KIB, (rss0, rss1)
    assert not zombies
    # a crashed or closed server is reaped promptly, even under load
    assert peak['zombie_age'] < 5, peak
    assert m.proc.poll() is None
