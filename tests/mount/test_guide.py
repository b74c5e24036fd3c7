"""Finding one's way with ls and cat (spec 12): README.md, help/,
NAME=VALUE request lines, real sizes, the -o form of every option,
.status's closed threads, and errors where people look. Driven the way
users do: bash redirections, cat, ls, Python file I/O."""

import errno
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from test_http import fake_http  # noqa: F401 - the fixture
from conftest import (DEMO, FAKESERVER, MCPFS, demo, everything, fake,
                      fusermount, needs_everything,
                      is_mounted, read_file, run_mcpfs_expect_exit,
                      run_with_deadline, slacked, status, thread,
                      wait_until, write_file)

REPO = Path(__file__).resolve().parents[2]


def sh(script, cwd, timeout=30):
    r = subprocess.run(['bash', '-c', script], cwd=cwd, capture_output=True,
                       text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def close_error(path, data):
    """Write data with Python and return the errno of the close (0)."""
    def go():
        f = open(path, 'w')
        f.write(data)
        try:
            f.close()
        except OSError as e:
            return e.errno
        return 0
    return run_with_deadline(go, 30)


# ---------------------------------------------------------------- README.md

def test_readme_lists_servers_and_how_to(mcpfs_mount):
    m = mcpfs_mount({'demo': demo(), 'f': fake()})
    assert 'README.md' in os.listdir(m.path)
    st = os.stat(m.path / 'README.md')
    text = read_file(m.path / 'README.md').decode()
    assert st.st_size == len(text.encode())
    assert st.st_mode & 0o777 == 0o400
    for words in ('mkdir SERVER/t1', "echo 'NAME=VALUE' > SERVER/t1/tools/",
                  'NAME:=JSON', 'result/', 'requests/', 'rmdir SERVER/t1',
                  'SERVER/help/TOOL', '.status'):
        assert words in text, words
    assert '### demo\n\n- transport: stdio\n' in text
    assert '- tools: not listed yet' in text  # nothing started by a read
    assert not m.server_pids()
    assert len(os.listdir(m.path / 'demo' / 'help')) == 7
    text = read_file(m.path / 'README.md').decode()
    demo_part = text.split('### demo\n')[1].split('###')[0]
    assert '- tools: 7 (ls demo/help)' in demo_part
    assert '- server: mcpfs-demo 0.1.0' in demo_part
    assert 'A demo server: a counter' in demo_part  # its instructions


def test_server_named_readme_refused(tmp_path):
    cfg = json.dumps({'mcpServers': {'README.md': {'command': str(DEMO)}}})
    rc, out = run_mcpfs_expect_exit(tmp_path, cfg)
    assert rc == 1
    assert 'README.md' in out and 'taken' in out, out


# ---------------------------------------------------------------- help/

def test_help_per_server_and_thread(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    srv = m.path / 'demo'
    assert 'help' in os.listdir(srv)
    # a stat of help/ waits for nothing (it may start the server's probe
    # in the background, so that `ls MOUNT/*/help` starts the probes side
    # by side: spec 12); listing it lists the tools
    os.stat(srv / 'help')
    names = sorted(os.listdir(srv / 'help'))
    assert names == ['echo', 'get', 'get_count', 'incr', 'keys', 'set',
                     'sleep']
    h = read_file(srv / 'help' / 'incr').decode()
    assert h.startswith('tool incr\n  | Increment the counter\n  |\n'
                        '  | Add `by`')
    assert '  by (integer, optional, default 1)\n' in h
    assert '      | How much to add' in h
    assert '  : > tools/incr; cat tools/incr\n' in h
    assert "  echo '{}' > tools/incr; cat tools/incr\n" in h
    assert 'Annotations: may change things' in h
    h = read_file(srv / 'help' / 'set').decode()
    # set may change things: no value made up, a placeholder instead
    assert ("  printf '%s\\n' 'key=<string>' 'value=<string>' > tools/set; "
            "cat tools/set\n") in h
    assert ("""  echo '{"key":<string>,"value":<string>}' > tools/set; """
            "cat tools/set\n") in h
    assert os.stat(srv / 'help' / 'set').st_size == len(h.encode())
    # the ready-to-run lines run as they are, in a thread: set's fail
    # (EINVAL, nothing stored) until its placeholders are filled in
    os.mkdir(srv / 't1')
    line = re.search(r'^  (printf .*)$', h, re.M).group(1)
    rc, out, err = sh(line, srv / 't1')
    assert 'Invalid argument' in err and 'placeholder' in out, (out, err)
    rc, out, err = sh(line.replace('key=<string>', 'key=KEY').replace(
        'value=<string>', 'value=VALUE'), srv / 't1')
    assert rc == 0, err
    assert json.loads(out)['content'][0]['text'] == 'ok'
    # get only reads: its made-up key is filled in
    line = re.search(r'^  (echo .*)$', read_file(
        srv / 't1' / 'help' / 'get').decode(), re.M).group(1)
    rc, out, err = sh(line, srv / 't1')
    assert json.loads(out)['content'][0]['text'] == 'VALUE'
    assert sorted(os.listdir(srv / 't1' / 'help')) == names
    with pytest.raises(FileNotFoundError):
        os.stat(srv / 'help' / 'nosuch')
    with pytest.raises(FileExistsError):
        os.mkdir(srv / 'help')   # not a thread name
    with pytest.raises(PermissionError):
        open(srv / 'help' / 'incr', 'w')


@needs_everything
def test_help_prompts_and_schemas_everything(mcpfs_mount):
    m = mcpfs_mount({'ev': everything()})
    t = thread(m, 'ev', 't1')
    names = os.listdir(t / 'help')
    assert 'prompt:args-prompt' in names and 'get-sum' in names, names
    assert 'prompt:args-prompt' in os.listdir(m.path / 'ev' / 'help')
    assert 'prompt args-prompt' in read_file(
        m.path / 'ev' / 'help' / 'prompt:args-prompt').decode()
    h = read_file(t / 'help' / 'prompt:args-prompt').decode()
    assert h.startswith('prompt args-prompt')
    assert '  city (string, required)' in h
    assert "  echo 'city=CITY' > prompts/args-prompt; " in h or \
        "'city=CITY'" in h, h
    h = read_file(t / 'help' / 'get-structured-content').decode()
    assert 'Output schema (result/structured.json):' in h
    assert 'one of ["New York","Chicago","Los Angeles"]' in h
    rc, out, err = sh("echo 'location=Chicago' > tools/get-structured-content;"
                      " cat tools/get-structured-content", t)
    assert json.loads(out)['structuredContent']['temperature'] == 36
    rc, out, err = sh("printf '%s\\n' city=Paris > prompts/args-prompt; "
                      "cat prompts/args-prompt", t)
    assert 'Paris' in out, out


# ---------------------------------------------------------------- NAME=VALUE

def test_name_value_lines(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo', 't1')
    # (Python's open-write-close: a shell's echo > also sends {} at its
    # first close on this tree, a bug of callfile.c's flush being fixed
    # on its own branch; set and get do not mind it)
    assert close_error(t / 'tools' / 'incr', 'by=5\n') == 0
    assert json.loads(read_file(t / 'tools' / 'incr'))['content'][0][
        'text'] == '5'
    assert close_error(t / 'tools' / 'incr', '\n  by:=-2\n\n') == 0
    assert json.loads(read_file(t / 'tools' / 'incr'))['content'][0][
        'text'] == '3'
    # values taken as they are: spaces, '=', quotes, no JSON quoting
    rc, out, err = sh("""printf 'key=a b\\n\\nvalue=x="y" = z\\r\\n' """
                      "> tools/set; cat tools/set; "
                      "echo 'key=a b' > tools/get; cat tools/get", t)
    assert out.splitlines()[1] == \
        '{"content":[{"type":"text","text":"x=\\"y\\" = z"}]}'
    # a value that does not fit its type: close fails, reads back naming it
    assert close_error(t / 'tools' / 'incr', 'by=1\nby=abc\n') == \
        errno.EINVAL
    reply = json.loads(read_file(t / 'tools' / 'incr'))
    assert reply['error']['message'] == \
        'request refused: line 2: by=abc: by is an integer'
    assert status(t)['last_error'] == reply['error']['message']
    assert close_error(t / 'tools' / 'echo', 'just words\n') == errno.EINVAL
    assert "line 1: 'just words' is not NAME=VALUE or NAME:=JSON" in \
        read_file(t / 'tools' / 'echo').decode()
    # JSON still works, and the counter was not touched by the refusals
    assert close_error(t / 'tools' / 'incr', '{"by": 1}') == 0
    assert json.loads(read_file(t / 'tools' / 'incr'))['content'][0][
        'text'] == '4'


def test_name_value_lines_in_several_writes(mcpfs_mount):
    """Each echo of a { ...; } > tools/x group is a write of its own: each
    line is checked once, when the write that ends it arrives, and a
    refusal names the line where it is in the request."""
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo', 't1')
    rc, out, err = sh('{ echo by=2; echo; echo by:=3; } > tools/incr; '
                      'cat tools/incr', t)
    assert rc == 0, err
    assert json.loads(out)['content'][0]['text'] == '3'
    rc, out, err = sh('{ echo by=1; echo by:=2; echo by=abc; } > tools/incr',
                      t)
    assert rc != 0 and 'Invalid argument' in err, (rc, err)
    assert json.loads(read_file(t / 'tools' / 'incr'))['error'][
        'message'] == 'request refused: line 3: by=abc: by is an integer'
    # a last line without its newline is checked at close: close fails
    assert close_error(t / 'tools' / 'incr', 'by=1\nby=abc') == errno.EINVAL
    assert json.loads(read_file(t / 'tools' / 'incr'))['error'][
        'message'] == 'request refused: line 2: by=abc: by is an integer'


def test_tool_file_over_the_limit_stays_refused(mcpfs_mount):
    """A tools/x request over 16 MiB, as JSON or as NAME=VALUE lines,
    written with Python's buffered file (one write() the kernel cuts in
    parts: the part past the limit fails EFBIG, the write returns short
    and Python writes the rest): the rest is refused EFBIG too, never
    taken as a request of its own, and the reply stays the refusal (spec
    9, as test_hardening's call file). Before, the rest was read as
    NAME=VALUE lines: close failed EINVAL with "line 1: 'aaa...' is not
    NAME=VALUE" in place of the refusal."""
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo', 't1')
    path = t / 'tools' / 'echo'
    for head in ('text=', '{"text":"'):
        def go():
            with pytest.raises(OSError) as e:
                with open(path, 'w') as f:
                    f.write(head + 'a' * (17 << 20))
            return e.value.errno
        assert run_with_deadline(go, 60) == errno.EFBIG, head
        assert json.loads(read_file(path))['error']['message'] == \
            'request refused: request over 16 MiB', head
        # on one open file: every later write is EFBIG too, close is ok
        def raw():
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, head.encode())
                with pytest.raises(OSError) as e:
                    for _ in range(17):
                        os.write(fd, b'a' * (1 << 20))
                assert e.value.errno == errno.EFBIG
                for more in (b'aaa\n', b'text=small\n', b'{"text":"x"}'):
                    with pytest.raises(OSError) as e:
                        os.write(fd, more)
                    assert e.value.errno == errno.EFBIG, more
            finally:
                os.close(fd)
        run_with_deadline(raw, 60)
        assert json.loads(read_file(path))['error']['message'] == \
            'request refused: request over 16 MiB', head
    # a fresh open file takes a request
    assert close_error(path, 'text=fresh\n') == 0
    assert json.loads(read_file(path))['content'][0]['text'] == 'fresh'


# ---------------------------------------------------------------- sizes

def test_sizes_are_real(mcpfs_mount):
    m = mcpfs_mount({'f': fake('--stderr-lines', 3)})
    t = thread(m, 'f', 't1')
    rc, out, err = sh('''echo level=info > tools/log; cat tools/log >/dev/null
                         echo text=hello > tools/echo; cat tools/echo''', t)
    assert 'hello' in out
    wait_until(lambda: os.stat(t / 'stderr').st_size > 0, what='stderr')
    files = ['status', 'stderr', 'events', 'tools.json', 'result/0.txt',
             'result/text', 'help/echo']
    for rel in files + ['../tools.json', '../../.status', '../../README.md']:
        data = read_file(t / rel)
        size = os.stat(t / rel).st_size
        assert size == len(data) and size > 0, (rel, size, len(data))
    # call: the reply a fresh read by this process would return (the
    # echo's, written by its child sh), complete (test_real_sizes.py)
    assert os.stat(t / 'call').st_size == len(read_file(t / 'call')) > 0
    assert os.stat(t / 'ctl').st_size == 0
    out = subprocess.run(['ls', '-l', str(t)], capture_output=True,
                         text=True).stdout
    assert re.search(r' [1-9]\d* \w+ +\d+ [\d:]+ events$', out, re.M), out


# ---------------------------------------------------------------- -o

def test_every_option_as_o(tmp_path, mcpfs_mount):
    log = tmp_path / 'o.log'
    m = mcpfs_mount({'demo': demo()}, args=[
        '-o', f'idle_timeout=7,call_timeout=9,max_sessions=5,log={log}',
        '-o', f'project={tmp_path}'])
    st = m.status()
    assert (st['idle_timeout'], st['call_timeout'], st['max_sessions']) == \
        (7, 9, 5)
    os.mkdir(m.path / 'demo' / 't1')
    wait_until(lambda: 'thread t1: ready' in log.read_text(errors='replace'),
               what='the -o log file')


def test_unknown_o_option_named(tmp_path):
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    r = subprocess.run([str(MCPFS), '-f', '-o', 'idle_timeout=5,bogus_opt=1',
                        str(mnt)], capture_output=True, text=True,
                       timeout=10)
    assert r.returncode == 2  # a usage error, as a bad value (mcpfs(1))
    assert 'bogus_opt' in r.stderr, r.stderr
    assert not is_mounted(mnt)
    r = subprocess.run([str(MCPFS), '-f', '-o', 'idle_timeout=soon',
                        str(mnt)], capture_output=True, text=True,
                       timeout=10)
    assert r.returncode == 2 and "'soon'" in r.stderr, r.stderr


def test_mount_fuse3_with_o_options(tmp_path):
    """mount.fuse3 CONFIG MNT -t fuse.mcpfs -o idle_timeout=...,log=...:
    what mount -t fuse.mcpfs and an fstab line pass."""
    helper = shutil.which('mount.fuse3') or '/sbin/mount.fuse3'
    if os.geteuid() != 0 or not os.path.exists(helper):
        pytest.skip('mount.fuse3 as root is needed')
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    (bindir / 'mcpfs').symlink_to(MCPFS)
    cfg = tmp_path / 'servers.json'
    cfg.write_text(json.dumps({'mcpServers': {'demo': demo()}}))
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    log = tmp_path / 'fstab.log'
    env = dict(os.environ, PATH=f'{bindir}:/usr/sbin:/usr/bin:/sbin:/bin')
    r = subprocess.run([helper, str(cfg), str(mnt), '-t', 'fuse.mcpfs', '-o',
                        f'noatime,idle_timeout=11,max_sessions=3,'
                        f'call_timeout=0,log={log}'],
                       env=env, cwd=tmp_path, capture_output=True, text=True,
                       timeout=20)
    try:
        assert r.returncode == 0, r.stderr
        wait_until(lambda: is_mounted(mnt), what='mounted')
        st = json.loads(read_file(mnt / '.status'))
        assert (st['idle_timeout'], st['max_sessions'],
                st['call_timeout']) == (11, 3, 0)
        wait_until(lambda: log.exists() and 'mounted on' in log.read_text(),
                   what='log=')
    finally:
        if is_mounted(mnt):
            subprocess.run(['umount', str(mnt)], timeout=20)
        wait_until(lambda: 'exit' in (log.read_text() if log.exists()
                                      else ''), what='mcpfs exit')


# ---------------------------------------------------------------- closed

def test_closed_threads_in_status(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()}, args=['--idle-timeout', slacked(1),
                                            '--max-sessions', '2'])
    d = m.path / 'demo'
    assert m.status()['closed'] == []
    os.mkdir(d / 'gone')
    os.rmdir(d / 'gone')
    os.mkdir(d / 'byctl')
    write_file(d / 'byctl' / 'ctl', b'close\n')
    os.mkdir(d / 'idle')
    wait_until(lambda: 'idle' not in os.listdir(d), timeout=15,
               what='the idle thread closed')
    closed = {(c['thread'], c['reason']) for c in m.status()['closed']}
    assert {('gone', 'rmdir'), ('byctl', 'ctl'), ('idle', 'idle')} <= closed
    for c in m.status()['closed']:
        assert c['server'] == 'demo'
        assert re.match(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$', c['closed'])


def test_closed_threads_keep_64_newest_first(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    d = m.path / 'demo'
    for i in range(70):
        os.mkdir(d / f't{i}')
        os.rmdir(d / f't{i}')
    closed = m.status()['closed']
    assert len(closed) == 64
    assert closed[0]['thread'] == 't69' and closed[-1]['thread'] == 't6'


def test_idle_default_1800(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    assert m.status()['idle_timeout'] == 1800


# ---------------------------------------------------------------- errors

def test_exec_failure_in_last_error_and_ls_tools(mcpfs_mount):
    m = mcpfs_mount({'gone': {'command': 'mcpfs-no-such-command'}})
    t = thread(m, 'gone', 't1')
    with pytest.raises(OSError) as e:
        os.listdir(t / 'tools')
    assert e.value.errno == errno.ENOTCONN
    rc, out, err = sh('ls tools', t)
    assert rc == 2 and 'Transport endpoint is not connected' in err, err
    st = status(t)
    assert 'cannot run mcpfs-no-such-command: No such file or directory' \
        in st['last_error'], st
    assert 'tools/ cannot be listed' in m.output()
    for d in (t / 'help', m.path / 'gone' / 'help'):
        with pytest.raises(OSError) as e:
            os.listdir(d)
        assert e.value.errno == errno.ENOTCONN, d


def test_timeout_and_cancel_in_last_error(mcpfs_mount):
    m = mcpfs_mount({'f': fake()}, args=['--call-timeout', '1'])
    t = thread(m, 'f', 't1')
    rc, out, err = sh(': > tools/hang; cat tools/hang', t)
    assert 'timed out' in out
    assert status(t)['last_error'].startswith(
        'timeout: call timed out after 1 s')


def test_cancel_in_last_error(mcpfs_mount):
    m = mcpfs_mount({'f': fake()})
    t = thread(m, 'f', 't1')
    fd = os.open(t / 'tools' / 'hang', os.O_RDWR)
    try:
        os.write(fd, b'{}')
        wait_until(lambda: status(t)['in_flight'] == 1, what='in flight')
        write_file(t / 'ctl', b'cancel\n')
        assert 'cancelled' in os.read(fd, 65536).decode()
    finally:
        os.close(fd)
    assert status(t)['last_error'].startswith('call cancelled (ctl cancel')


def test_write_to_missing_tool_is_enoent(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo', 't1')
    os.listdir(t / 'tools')
    rc, out, err = sh('echo by=1 > tools/incrr', t)
    assert rc == 1 and 'No such file or directory' in err, err
    with pytest.raises(FileNotFoundError):
        open(t / 'tools' / 'nosuch', 'w')
    assert 'no such tool on server demo' in m.output()


def test_unset_variable_is_a_warning(mcpfs_mount):
    env = dict(os.environ)
    env.pop('MCPFS_T_UNSET_TOKEN', None)
    m = mcpfs_mount({'gh': fake() | {'env': {
        'TOKEN': '${MCPFS_T_UNSET_TOKEN}', 'OK': '${MCPFS_T_UNSET_X:-d}'}}},
        env=env)
    warnings = m.status()['warnings']
    w = [x for x in warnings if 'MCPFS_T_UNSET_TOKEN' in x]
    assert len(w) == 1 and w[0].startswith('server gh: ') and \
        'is not set and has no default' in w[0], warnings
    assert not [x for x in warnings if 'MCPFS_T_UNSET_X' in x]
    assert 'MCPFS_T_UNSET_TOKEN' in m.output()


def test_daemon_without_log_goes_to_syslog(tmp_path):
    """No -f and no --log: the daemon logs to syslog as mcpfs[PID] with
    facility daemon. The machine has no syslog socket here, so the test
    binds /dev/log itself (and removes it after)."""
    import socket
    if os.path.exists('/dev/log'):
        pytest.skip('/dev/log exists: a system logger owns it')
    if os.geteuid() != 0:
        pytest.skip('binding /dev/log needs root')
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind('/dev/log')
    sock.settimeout(10)
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    cfg = tmp_path / 'servers.json'
    cfg.write_text(json.dumps({'mcpServers': {'demo': demo()}}))
    try:
        r = subprocess.run([str(MCPFS), '-c', str(cfg), str(mnt)],
                           capture_output=True, text=True, timeout=20)
        assert r.returncode == 0, r.stderr
        got = []
        while not any('mounted on' in g for g in got):
            got.append(sock.recv(4096).decode(errors='replace'))
        line = [g for g in got if 'mounted on' in g][0]
        m = re.match(r'^<(\d+)>.*mcpfs\[(\d+)\]: mcpfs \S+ mounted on (.*)$',
                     line)
        assert m, line
        assert int(m.group(1)) == 3 * 8 + 6   # LOG_DAEMON | LOG_INFO
        pid = int(m.group(2))
        assert Path(f'/proc/{pid}/exe').resolve() == MCPFS.resolve()
        assert m.group(3) == str(mnt)
    finally:
        if is_mounted(mnt):
            fusermount('-u', str(mnt))
        sock.close()
        os.unlink('/dev/log')


def test_http_status_in_last_error(mcpfs_mount, fake_http):
    from conftest import tool
    from test_http import entry
    srv = fake_http()
    m = mcpfs_mount({'h': entry(srv)})
    t = thread(m, 'h', 't')
    assert tool(t, 'http500')['error']['code'] == -32007
    assert status(t)['last_error'] == \
        'HTTP 500 from the server: internal failure: the fake says no'


def test_cap_and_unmount_reasons(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()}, args=['--max-sessions', '2'])
    d = m.path / 'demo'
    for n in ('c1', 'c2', 'c3'):
        os.mkdir(d / n)
    wait_until(lambda: ('c1', 'cap') in {(c['thread'], c['reason'])
                                         for c in m.status()['closed']},
               what='c1 closed for the cap')
    m.unmount()
    assert re.search(r'thread c[23]: session closed \(shutting down[:)]',
                     m.log.read_text()), 'unmount closes and says why'


def test_man_page_tells(tmp_path):
    page = (REPO / 'doc' / 'mcpfs.1').read_text()
    for words in ('README.md', 'help/TOOL', 'NAME=VALUE', 'NAME:=JSON',
                  'idle_timeout=SEC', 'call_timeout=SEC', 'max_sessions=N',
                  'log=FILE', 'project=DIR', 'syslog', 'last_error',
                  'ENOTCONN', 'default 1800', 'closed threads'):
        assert words in page, words
