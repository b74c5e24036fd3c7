"""Spare sessions (config "warm": N, spec 2 and
5): started before any mkdir,
adopted by mkdir (its first call runs on a process that was already
there), refilled in the background, never counted against the cap nor
closed by it, resized or closed by a reload, and never restarted in a loop
when the server cannot start."""

import json
import os
import time

import pytest

from conftest import (fake as fake_entry, run_mcpfs_expect_exit, status,
                      text, tool, wait_until)


def fake(*opts, warm):
    return dict(fake_entry(*opts), warm=warm)


def spares(m, server='a'):
    [s] = [s for s in m.status()['servers'] if s['name'] == server]
    return s['spares']


def ready_spares(m, n, server='a'):
    wait_until(lambda: spares(m, server) == n and
               len(m.server_pids()) >= n, what=f'{n} spares')


def test_spares_start_before_mkdir_and_are_adopted(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--slow-start', '300', warm=2)})
    ready_spares(m, 2)
    before = set(m.server_pids())
    assert len(before) == 2
    assert sorted(os.listdir(m.path / 'a')) == ['call', 'help', 'tools.json']
    t = m.path / 'a' / 't1'
    os.mkdir(t)
    pid = int(text(tool(t, 'pid')))
    assert pid in before, (pid, before)
    st = status(t / 'status')
    assert st['thread'] == 't1' and st['generation'] == 1
    # refilled (a second later): two spares again, one more process, and
    # the thread keeps its own
    wait_until(lambda: spares(m) == 2 and len(m.server_pids()) == 3,
               what='the spare refilled')
    assert pid in m.server_pids()
    assert 'adopted a spare session' in m.output()


def test_threads_of_adopted_spares_are_separate(mcpfs_mount):
    m = mcpfs_mount({'a': fake(warm=2)})
    ready_spares(m, 2)
    pids = set()
    for n in ('t1', 't2', 't3'):
        os.mkdir(m.path / 'a' / n)
        pids.add(int(text(tool(m.path / 'a' / n, 'pid'))))
        assert text(tool(m.path / 'a' / n, 'counter')) == '1'
    assert len(pids) == 3
    os.rmdir(m.path / 'a' / 't2')
    wait_until(lambda: len(m.server_pids()) == 4, what='t2 closed, '
               'two threads and two spares left')


def test_spares_do_not_count_against_the_cap(mcpfs_mount):
    m = mcpfs_mount({'a': fake(warm=3)}, args=['--max-sessions', '2'])
    ready_spares(m, 3)
    for n in ('t1', 't2'):
        os.mkdir(m.path / 'a' / n)
        assert text(tool(m.path / 'a' / n, 'echo', text=n)) == n
    wait_until(lambda: spares(m) == 3, what='spares refilled')
    assert sorted(os.listdir(m.path / 'a')) == ['call', 'help', 't1', 't2',
                                                'tools.json']
    assert m.status()['sessions'] == 2
    # the cap still works between threads, and spares are never its pick
    os.mkdir(m.path / 'a' / 't3')
    assert text(tool(m.path / 'a' / 't3', 'echo', text='t3')) == 't3'
    names = set(os.listdir(m.path / 'a')) - {'call', 'help', 'tools.json'}
    assert len(names) == 2 and 't3' in names
    wait_until(lambda: spares(m) == 3, what='spares refilled again')
    assert m.status()['sessions'] == 2


def test_reload_resizes_and_closes_spares(mcpfs_mount):
    m = mcpfs_mount({'a': fake(warm=2)})
    ready_spares(m, 2)
    old = set(m.server_pids())
    m.reload({'a': fake(warm=1)})
    wait_until(lambda: spares(m) == 1 and len(m.server_pids()) == 1,
               what='one spare left')
    assert set(m.server_pids()) <= old
    m.reload({'a': fake(warm=0)})
    wait_until(lambda: spares(m) == 0 and not m.server_pids(),
               what='no spare left')
    m.reload({'a': fake(warm=1)})
    ready_spares(m, 1)
    # a launch change closes the spares and starts new ones
    before = set(m.server_pids())
    m.reload({'a': fake('--tools', '1', warm=1)})
    wait_until(lambda: spares(m) == 1 and len(m.server_pids()) == 1 and
               not set(m.server_pids()) & before, what='a new spare')


def test_a_spare_that_cannot_start_is_not_restarted(mcpfs_mount):
    m = mcpfs_mount({'a': fake('--exit-at-start', '3', warm=2)})
    wait_until(lambda: 'spare session lost' in m.output() or
               'spare failed to start' in m.output(), what='spares fail')
    wait_until(lambda: spares(m) == 0 and not m.pids(), what='no spares')
    starts = m.output().count('started fakeserver')
    time.sleep(1.5)  # a loop would start more; none may come
    assert m.output().count('started fakeserver') == starts
    assert starts <= 2
    # mkdir still works as without spares, and reports the failure
    os.mkdir(m.path / 'a' / 't')
    reply = tool(m.path / 'a' / 't', 'echo', text='x')
    assert 'error' in reply


@pytest.mark.parametrize('bad', [-1, 17, 1.5, 'two'])
def test_bad_warm_value_is_refused(tmp_path, bad):
    doc = {'mcpServers': {'a': fake(warm=bad)}}
    rc, out = run_mcpfs_expect_exit(tmp_path, json.dumps(doc))
    assert rc == 1
    assert 'warm' in out and 'from 0 to 16' in out, out
