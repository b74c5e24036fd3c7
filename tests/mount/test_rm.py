"""What rm does on the tree (spec 3: a thread is closed by rmdir; the
files of a thread and of a server directory are not removable): rm of a
thread file succeeds and removes nothing, rm -r of a thread closes it, rm
-r of a server directory closes its threads and says EPERM for the rest."""

import os
import subprocess

from conftest import (fake, pid_alive, pid_gone, status, text, thread, tool,
                      wait_until)

THREAD_FILES = {'call', 'status', 'tools.json', 'stderr', 'events', 'ctl'}


def rm(*args):
    return subprocess.run(['rm', *map(str, args)], capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL)


# ---------------------------------------------------------------- rm

def test_rm_of_a_thread_file_succeeds_and_removes_nothing(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    pid = int(text(tool(t, 'pid')))
    before = set(os.listdir(t))
    assert THREAD_FILES <= before
    for f in sorted(THREAD_FILES) + ['tools/echo']:
        r = rm(t / f)
        assert r.returncode == 0, (f, r.stderr)
    r = rm('-f', t / 'call')
    assert r.returncode == 0, r.stderr
    assert set(os.listdir(t)) == before
    assert 'echo' in os.listdir(t / 'tools')
    # the thread is untouched: same process, and it still answers
    assert int(text(tool(t, 'pid'))) == pid
    assert status(t)['state'] == 'ready'
    # a name that is not a file of the thread is ENOENT
    r = rm(t / 'nothere')
    assert r.returncode != 0 and 'No such file' in r.stderr, r.stderr


def test_rm_r_of_a_thread_closes_it(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t, u = thread(m), thread(m, 'a', 'u')
    pt, pu = int(text(tool(t, 'pid'))), int(text(tool(u, 'pid')))
    r = rm('-r', t)
    assert r.returncode == 0, r.stderr
    assert not t.exists()
    wait_until(lambda: pid_gone(pt), 10, 'the thread process to end')
    # -rf too, and the other thread is left alone until then
    assert pid_alive(pu)
    r = rm('-rf', u)
    assert r.returncode == 0, r.stderr
    wait_until(lambda: pid_gone(pu), 10, 'the second process to end')
    assert sorted(os.listdir(m.path / 'a')) == ['call', 'help', 'tools.json']


def test_rm_r_of_a_server_closes_its_threads_and_says_eperm(mcpfs_mount):
    m = mcpfs_mount({'a': fake(), 'b': fake()})
    a = m.path / 'a'
    t1, t2, other = thread(m, 'a', 't1'), thread(m, 'a', 't2'), thread(m, 'b', 'o')
    pids = [int(text(tool(d, 'pid'))) for d in (t1, t2)]
    po = int(text(tool(other, 'pid')))
    r = rm('-r', a)
    assert r.returncode != 0
    # the errors name what stayed, and why
    for f in ('call', 'tools.json'):
        assert f"cannot remove '{a / f}': Operation not permitted" in \
            r.stderr, r.stderr
    # every thread is closed; the server directory and its files stay
    for pid in pids:
        wait_until(lambda: pid_gone(pid), 10, 'a thread process to end')
    assert sorted(os.listdir(a)) == ['call', 'help', 'tools.json']
    assert 'a' in os.listdir(m.path)
    assert 'refused' in m.log.read_text()
    # another server is not touched, and the server still works
    assert int(text(tool(other, 'pid'))) == po
    t3 = thread(m, 'a', 't1')
    assert text(tool(t3, 'echo', text='again')) == 'again'
    assert text(tool(a, 'echo', text='one-shot')) == 'one-shot'
