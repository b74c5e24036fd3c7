"""The tree (spec 3): mount/unmount, .status, listings, thread
directories and their names, modes and owners, rm -r, read-only files."""

import errno
import json
import os
import stat
import subprocess
import time

import pytest

from conftest import (MCPFS, call, fake, demo, pid_gone, read_file, status,
                      supervisor_of, text, tool, wait_until, write_file)

THREAD_FILES = {'call', 'status', 'tools.json', 'stderr', 'events', 'trace', 'ctl',
                'resources.json', 'prompts.json'}
THREAD_DIRS = {'tools', 'result', 'resources', 'prompts',
               'requests',   # requests/: the server's questions (test_ask)
               'tasks',      # tasks/: calls run as tasks (test_tasks)
               'skills',     # skills/: the server's skills (test_skills)
               'help'}       # help/: how to call each tool (test_guide)


def test_mount_and_unmount(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    assert os.path.ismount(m.path)
    m.unmount()
    assert not os.path.ismount(m.path)
    assert m.proc.returncode == 0
    m.unmount()  # idempotent


def test_version_option():
    r = subprocess.run([str(MCPFS), '--version'], capture_output=True,
                       text=True, timeout=10)
    assert r.returncode == 0
    assert '0.1.0' in r.stdout + r.stderr


def test_help_option():
    r = subprocess.run([str(MCPFS), '--help'], capture_output=True,
                       text=True, timeout=10)
    assert r.returncode == 0
    out = r.stdout + r.stderr
    for opt in ('--idle-timeout', '--max-sessions', '--call-timeout',
                '--log'):
        assert opt in out


def test_root_status(mcpfs_mount):
    m = mcpfs_mount({'a': fake(), 'b': demo()}, args=['--max-sessions', '7'])
    st = m.status()
    r = subprocess.run([str(MCPFS), '--version'], capture_output=True,
                       text=True, timeout=10)
    assert st['version'] in r.stdout + r.stderr
    assert str(m.config) in json.dumps(st['config'])
    names = json.dumps(st['servers'])
    assert '"a"' in names and '"b"' in names
    assert st['sessions'] == 0
    assert st['max_sessions'] == 7
    assert not st.get('config_error')
    os.mkdir(m.path / 'a' / 't1')
    os.mkdir(m.path / 'b' / 't2')
    assert m.status()['sessions'] == 2
    os.rmdir(m.path / 'a' / 't1')
    wait_until(lambda: m.status()['sessions'] == 1, 5, 'session count 1')


def test_ls_root_lists_servers(mcpfs_mount):
    m = mcpfs_mount({'alpha': fake(), 'beta': fake(), 'gamma': demo()})
    # .status is a dotfile: `ls` hides it, `ls -a` (readdir) shows it.
    assert set(os.listdir(m.path)) == {'.status', 'README.md', 'alpha',
                                       'beta', 'gamma'}
    r = subprocess.run(['ls', str(m.path)], capture_output=True, text=True,
                       timeout=10)
    assert r.stdout.split() == ['README.md', 'alpha', 'beta', 'gamma']
    for name in ('alpha', 'beta', 'gamma'):
        assert stat.S_ISDIR(os.stat(m.path / name).st_mode)
    with pytest.raises(FileNotFoundError):
        os.stat(m.path / 'nope')


def test_ls_server_and_thread(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    srv = m.path / 'a'
    assert set(os.listdir(srv)) == {'call', 'tools.json', 'help'}
    os.mkdir(srv / 't1')
    os.mkdir(srv / 't2')
    assert set(os.listdir(srv)) == {'call', 'tools.json', 'help', 't1', 't2'}
    assert set(os.listdir(srv / 't1')) == THREAD_FILES | THREAD_DIRS
    os.rmdir(srv / 't1')
    assert set(os.listdir(srv)) == {'call', 'tools.json', 'help', 't2'}
    with pytest.raises(FileNotFoundError):
        os.stat(srv / 't1')


def test_mkdir_starts_process_rmdir_ends_it(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    # mkdir starts the process in the background and returns at once
    # (test_call's test of the handshake gate shows it without a clock)
    pids = wait_until(m.server_pids, 30, 'the server process')
    assert len(pids) == 1 and len(m.session_groups()) == 1
    os.rmdir(t)
    assert not t.exists()
    wait_until(lambda: pid_gone(pids[0]), 7, 'the process to end')


@pytest.mark.parametrize('name', ['a', 'A-b_c.9', '-x', '_', 'x' * 128,
                                  'a..b', '0'])
def test_valid_thread_names(mcpfs_mount, name):
    m = mcpfs_mount({'a': fake()})
    os.mkdir(m.path / 'a' / name)
    assert name in os.listdir(m.path / 'a')
    assert text(tool(m.path / 'a' / name, 'echo', text='hi')) == 'hi'
    os.rmdir(m.path / 'a' / name)


@pytest.mark.parametrize('name', ['a b', '.x', '.hidden', 'x' * 129, 'héllo',
                                  'a\tb', 'a:b', 'a*b', 'tab\n', '日本'])
def test_invalid_thread_names(mcpfs_mount, name):
    m = mcpfs_mount({'a': fake()})
    with pytest.raises(OSError) as e:
        os.mkdir(m.path / 'a' / name)
    assert e.value.errno == errno.EINVAL
    assert set(os.listdir(m.path / 'a')) == {'call', 'tools.json', 'help'}
    assert m.pids() == []


def test_mkdir_existing_is_eexist(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    os.mkdir(m.path / 'a' / 't')
    with pytest.raises(FileExistsError):
        os.mkdir(m.path / 'a' / 't')
    # and the existing session is untouched
    assert text(tool(m.path / 'a' / 't', 'echo', text='still')) == 'still'
    assert len(m.server_pids()) == 1


def test_mkdir_outside_server_refused(mcpfs_mount):
    # The spec has no way to create servers or nested threads: refused.
    m = mcpfs_mount({'a': fake()})
    with pytest.raises(OSError) as e:
        os.mkdir(m.path / 'newserver')
    assert e.value.errno in (errno.EPERM, errno.EACCES, errno.EROFS)
    os.mkdir(m.path / 'a' / 't')
    with pytest.raises(OSError) as e:
        os.mkdir(m.path / 'a' / 't' / 'sub')
    assert e.value.errno in (errno.EPERM, errno.EACCES, errno.EROFS)
    with pytest.raises(OSError) as e:
        os.open(m.path / 'a' / 't' / 'newfile', os.O_WRONLY | os.O_CREAT)
    assert e.value.errno in (errno.EPERM, errno.EACCES, errno.EROFS)


def test_modes_and_owner(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    os.mkdir(m.path / 'a' / 't')
    want = {
        '': 0o700, '.status': 0o400,
        'a': 0o700, 'a/call': 0o600, 'a/tools.json': 0o400,
        'a/t': 0o700, 'a/t/call': 0o600, 'a/t/ctl': 0o600,
        'a/t/status': 0o400, 'a/t/tools.json': 0o400, 'a/t/stderr': 0o400,
        'a/t/events': 0o400,
    }
    for rel, mode in want.items():
        st = os.stat(m.path / rel)
        assert stat.S_IMODE(st.st_mode) == mode, rel
        assert stat.S_ISDIR(st.st_mode) == (mode == 0o700), rel
        assert st.st_uid == os.getuid(), rel
        assert st.st_gid == os.getgid(), rel
    # stat and readdir did not start anything (no tool call, no tools.json)
    assert len(m.session_groups()) == 1


def test_no_process_without_mkdir(mcpfs_mount):
    # No read, stat, readdir or lookup ever calls a tool or starts a process
    # (only tools.json may).
    m = mcpfs_mount({'a': fake(), 'b': demo()})
    for srv in ('a', 'b'):
        os.listdir(m.path / srv)
        os.stat(m.path / srv / 'call')
        os.stat(m.path / srv / 'tools.json')
        with pytest.raises(FileNotFoundError):
            os.stat(m.path / srv / 'nothread')
    m.status()
    time.sleep(0.3)
    assert m.pids() == []


def test_thread_times(mcpfs_mount):
    # A thread directory's mtime is its last use, ctime its creation.
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    before = time.time()
    os.mkdir(t)
    st = os.stat(t)
    assert before - 2 <= st.st_ctime <= time.time() + 2
    time.sleep(1.2)
    tool(t, 'echo', text='x')
    st2 = os.stat(t)
    assert st2.st_ctime == pytest.approx(st.st_ctime, abs=0.01)
    assert st2.st_mtime >= st.st_ctime + 1


def test_rm_r_thread(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    pid = int(text(tool(t, 'pid')))
    r = subprocess.run(['rm', '-r', str(t)], capture_output=True, text=True,
                       timeout=20)
    assert r.returncode == 0, r.stderr
    assert not t.exists()
    wait_until(lambda: pid_gone(pid), 7, 'the process to end')


def test_unlink_inside_thread_does_nothing(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    pid = int(text(tool(t, 'pid')))
    for f in THREAD_FILES:
        os.unlink(t / f)
    os.unlink(t / 'tools' / 'echo')
    assert set(os.listdir(t)) == THREAD_FILES | THREAD_DIRS
    assert 'echo' in os.listdir(t / 'tools')
    assert int(text(tool(t, 'pid'))) == pid


def test_rmdir_missing_is_enoent(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    with pytest.raises(FileNotFoundError):
        os.rmdir(m.path / 'a' / 'nothere')


@pytest.mark.parametrize('rel', ['.status', 'a/tools.json', 'a/t/status',
                                 'a/t/tools.json', 'a/t/stderr', 'a/t/events'])
def test_readonly_files_refuse_write(mcpfs_mount, rel):
    # Mode 0400 files. We run as root, which bypasses mode bits unless
    # default_permissions is on, so this checks that mcpfs itself refuses
    # an open for writing, with EACCES.
    m = mcpfs_mount({'a': fake()})
    os.mkdir(m.path / 'a' / 't')
    for flags in (os.O_WRONLY, os.O_RDWR, os.O_WRONLY | os.O_TRUNC):
        with pytest.raises(OSError) as e:
            fd = os.open(m.path / rel, flags)
            os.close(fd)
        assert e.value.errno == errno.EACCES, (rel, flags)
    # and nothing broke
    assert text(tool(m.path / 'a' / 't', 'echo', text='ok')) == 'ok'


def test_status_file_is_json(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    st = status(t)
    assert st['state'] in ('starting', 'ready')
    pid = int(text(tool(t, 'pid')))
    st = status(t)
    assert st['state'] == 'ready'
    assert st['pid'] == supervisor_of(pid)   # its parent
    assert st['generation'] >= 1
    assert st['calls'] >= 1
    assert st['in_flight'] == 0
    assert isinstance(st['protocolVersion'], str) and st['protocolVersion']
    assert isinstance(st['serverInfo'], dict)
    assert isinstance(st['capabilities'], dict)
    for k in ('created', 'last_used', 'last_error'):
        assert k in st


def test_ctl_bad_verb_einval(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = m.path / 'a' / 't'
    os.mkdir(t)
    with pytest.raises(OSError) as e:
        write_file(t / 'ctl', 'explode\n')
    assert e.value.errno == errno.EINVAL
    assert text(tool(t, 'echo', text='ok')) == 'ok'


def test_other_users_refused(mcpfs_mount):
    # Only the mounting user can use the mount (no allow_other). The child
    # starts inside the mount (cwd) and then drops to nobody, so only FUSE's
    # own check stands in the way, not the permissions of the path to it.
    m = mcpfs_mount({'a': fake()})

    def drop():
        os.chdir(m.path)
        os.setgid(65534)
        os.setuid(65534)
    for cmd in (['ls', '.'], ['cat', '.status'], ['ls', 'a']):
        r = subprocess.run(cmd, preexec_fn=drop, capture_output=True,
                           text=True, timeout=10)
        assert r.returncode != 0, cmd
        assert 'Permission denied' in r.stderr, (cmd, r.stderr)
    r = subprocess.run(['ls', '.'], preexec_fn=lambda: os.chdir(m.path),
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and 'a' in r.stdout.split()
