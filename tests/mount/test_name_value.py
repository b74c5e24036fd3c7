"""NAME=VALUE request lines that do not fit (spec 9): the write that
completes the line fails with EINVAL, so every shell prints its write
error and exits non-zero; nothing is sent; the tool file then reads back
the error naming the line. Values are checked against the schema's type,
bounds and enum. Driven the ways people write: bash, dash and busybox
`echo >`, printf, a heredoc, `exec 3>`, and a program whose last line has
no newline (its close fails)."""
import errno
import json
import os
import subprocess

import pytest

from conftest import read_file, run_with_deadline, shapes, status

SHELLS = {
    'bash': ['bash', '-c'],
    'dash': ['dash', '-c'],
    'busybox': ['busybox', 'sh', '-c'],
}


def run(argv, script, cwd):
    r = subprocess.run(argv + [script], cwd=cwd, capture_output=True,
                       text=True, timeout=30)
    return r.returncode, r.stdout, r.stderr


def calls(log):
    """The tools/call requests the server got."""
    if not log.exists():
        return []
    return [m for m in map(json.loads, log.read_text().splitlines())
            if m.get('method') == 'tools/call']


@pytest.fixture
def bounded(tmp_path, mcpfs_mount):
    """A thread of the shapes server: (thread path, server log)."""
    log = tmp_path / 'shapes.log'
    m = mcpfs_mount({'s': shapes(log)})
    t = m.path / 's' / 't1'
    os.mkdir(t)
    assert 'bounded' in os.listdir(t / 'tools')
    return t, log


@pytest.mark.parametrize('shell', sorted(SHELLS))
def test_echo_of_a_bad_line_fails_in_every_shell(bounded, shell):
    t, log = bounded
    rc, out, err = run(SHELLS[shell], 'echo n=abc > tools/bounded; '
                       'echo "rc=$?"; cat tools/bounded', t)
    lines = out.splitlines()
    assert lines[0] != 'rc=0', (shell, out, err)
    # dash says "I/O error" of any failed write, whatever its errno
    assert ('I/O error' if shell == 'dash' else 'Invalid argument') in err, \
        (shell, err)
    reply = json.loads(lines[1])
    assert reply['error']['message'] == \
        'request refused: line 1: n=abc: n is an integer', reply
    assert calls(log) == []
    assert status(t)['last_error'] == reply['error']['message']


@pytest.mark.parametrize('script, why', [
    ("printf 'n=5\\nx=true\\n' > tools/bounded",
     'line 2: x=true: x is a number'),
    ("cat > tools/bounded <<'EOF'\ns=ok\n\nn=0\nEOF",
     'line 3: n=0: n is at least 1'),
    ("exec 3> tools/bounded; echo n=11 >&3", 'line 1: n=11: n is at most 10'),
    ("printf 'x=1\\n' > tools/bounded", 'line 1: x=1: x is less than 1'),
    ("printf 'x=0\\n' > tools/bounded", 'line 1: x=0: x is more than 0'),
    ("printf 'e=blue\\n' > tools/bounded",
     'line 1: e=blue: e is one of ["red","green"]'),
    ("printf 'b=yes\\n' > tools/bounded",
     'line 1: b=yes: b is a boolean (true or false)'),
    ("printf 'just words\\n' > tools/bounded",
     "line 1: 'just words' is not NAME=VALUE or NAME:=JSON"),
])
def test_bad_line_fails_its_write(bounded, script, why):
    t, log = bounded
    rc, out, err = run(['bash', '-c'], script + '\necho "rc=$?"; '
                       'cat tools/bounded', t)
    lines = out.splitlines()
    assert lines[0] == 'rc=1', (out, err)
    assert 'Invalid argument' in err, err
    assert why in json.loads(lines[1])['error']['message'], out
    assert calls(log) == []


def test_after_a_bad_line_the_rest_of_the_request_fails(bounded):
    """On one descriptor, with no close between, a good line after a
    refused one is not sent on its own: each write fails, and so does the
    close; the next open file is a new request."""
    t, log = bounded

    def go():
        errs = []
        fd = os.open(t / 'tools' / 'bounded', os.O_WRONLY)
        for data in (b'n=abc\n', b'n=5\n'):
            try:
                os.write(fd, data)
                errs.append(0)
            except OSError as e:
                errs.append(e.errno)
        try:
            os.close(fd)
            errs.append(0)
        except OSError as e:
            errs.append(e.errno)
        return errs
    assert run_with_deadline(go, 30) == [errno.EINVAL] * 3
    assert calls(log) == []
    rc, out, err = run(['bash', '-c'], 'echo n=5 > tools/bounded; '
                       'echo "rc=$?"; cat tools/bounded', t)
    lines = out.splitlines()
    assert lines[0] == 'rc=0', (out, err)
    assert json.loads(lines[1])['content'][0]['text'] == '{"n":5}'
    assert [c['params']['arguments'] for c in calls(log)] == [{'n': 5}]


def test_good_lines_reach_the_server_typed(bounded):
    t, log = bounded
    rc, out, err = run(['bash', '-c'], '''printf 'n=10\\nx=0.25\\ne=red\\n' \\
        > tools/bounded; echo "rc=$?"; cat tools/bounded''', t)
    lines = out.splitlines()
    assert lines[0] == 'rc=0', (out, err)
    assert json.loads(json.loads(lines[1])['content'][0]['text']) == \
        {'n': 10, 'x': 0.25, 'e': 'red'}
    assert [c['params']['arguments'] for c in calls(log)] == \
        [{'n': 10, 'x': 0.25, 'e': 'red'}]


def test_last_line_without_newline_fails_the_close(bounded):
    t, log = bounded

    def go():
        fd = os.open(t / 'tools' / 'bounded', os.O_WRONLY)
        os.write(fd, b'n=5\nn=abc')  # the second line is not complete
        try:
            os.close(fd)
        except OSError as e:
            return e.errno
        return 0
    assert run_with_deadline(go, 30) == errno.EINVAL
    reply = json.loads(read_file(t / 'tools' / 'bounded'))
    assert reply['error']['message'] == \
        'request refused: line 2: n=abc: n is an integer'
    assert calls(log) == []


def test_a_line_split_across_writes_is_checked_when_complete(bounded):
    t, log = bounded

    def go():
        fd = os.open(t / 'tools' / 'bounded', os.O_WRONLY)
        try:
            os.write(fd, b'n=')  # nothing to check yet
            try:
                os.write(fd, b'ab')
            except OSError as e:
                return 'early', e.errno
            try:
                os.write(fd, b'c\n')
            except OSError as e:
                return 'at newline', e.errno
            return 'never', 0
        finally:
            try:
                os.close(fd)
            except OSError:
                pass
    assert run_with_deadline(go, 30) == ('at newline', errno.EINVAL)
    assert calls(log) == []
