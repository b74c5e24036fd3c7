"""Errors are where the user looks (spec 9, 12): tools/X and prompts/X
read back the JSON error that call gives whatever the state of the
transport (an HTTP server that is not listening, a command that does not
exist); a resource read that fails is EIO for the reader and the server's
message in status.last_error; every last_error has its last_error_at; a
wrong ctl verb is EINVAL and status.last_error names it and the verbs."""
import errno
import json
import os
import re
import shutil
import socket
import subprocess
from datetime import datetime, timezone

import pytest

from conftest import read_file, shapes, status, write_file

STAMP = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$')


def sh(script, cwd):
    r = subprocess.run(['bash', '-c', script], cwd=cwd, capture_output=True,
                       text=True, timeout=30)
    return r.returncode, r.stdout, r.stderr


def closed_port():
    """A port of 127.0.0.1 on which nothing listens."""
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def same_error(a, b):
    """Two {"error": ...} replies of a server that cannot start say the
    same: the code, the exit status, the last stderr line, and the
    startup failure in the message. (The rest moves with time, not with
    the file: while mcpfs backs off the message is "server keeps failing
    to start (attempt N); next try in T s; last error: ...", and stderr
    gathers a line per attempt.)"""
    def gist(reply):
        e = reply['error']
        data = e.get('data') or {}
        return (e['code'], data.get('exitStatus'),
                (data.get('stderr') or '').splitlines()[-1:],
                'startup failed' in e['message'])
    return gist(a) == gist(b)


def in_time(stamp, before):
    """stamp (status's time format) is no earlier than before, a second
    granted for its truncation, and not in the future."""
    assert STAMP.match(stamp), stamp
    t = datetime.strptime(stamp, '%Y-%m-%dT%H:%M:%SZ').replace(
        tzinfo=timezone.utc).timestamp()
    return before - 1 <= t <= datetime.now(timezone.utc).timestamp()


@pytest.mark.parametrize('kind', ['http', 'stdio'])
def test_tool_and_prompt_files_read_the_error_call_reads(mcpfs_mount, kind):
    entry = ({'url': f'http://127.0.0.1:{closed_port()}/mcp'}
             if kind == 'http' else {'command': '/nonexistent/mcp-server'})
    m = mcpfs_mount({'down': entry})
    t = m.path / 'down' / 't1'
    os.mkdir(t)
    rc, out, err = sh('''
        echo '{"name":"echo","arguments":{"text":"hi"}}' > call; cat call
        echo; echo text=hi > tools/echo; cat tools/echo
        echo; echo '{"text":"hi"}' > tools/echo; cat tools/echo
        echo; echo name=x > prompts/greet; cat prompts/greet''', t)
    assert 'Input/output error' not in err, err
    replies = [json.loads(x) for x in out.split('\n\n')]
    assert len(replies) == 4 and 'error' in replies[0], out
    for r in replies[1:]:
        assert same_error(r, replies[0]), (r, replies[0])
    st = status(t)
    assert st['last_error'] and in_time(st['last_error_at'],
                                        datetime.now().timestamp() - 60)


def test_failed_resource_read_sets_last_error(mcpfs_mount, tmp_path):
    m = mcpfs_mount({'s': shapes()})
    t = m.path / 's' / 't1'
    os.mkdir(t)
    st = status(t)
    assert st['last_error'] is None and st['last_error_at'] is None, st
    assert read_file(t / 'resources' / 'shapes:%2F%2Fok') == b'fine'
    before = datetime.now(timezone.utc).timestamp()
    with pytest.raises(OSError) as e:
        shutil.copy(t / 'resources' / 'shapes:%2F%2Fbroken',
                    tmp_path / 'out')
    assert e.value.errno == errno.EIO
    st = status(t)
    assert st['last_error'] == 'resources/read of shapes://broken failed: ' \
        'the disk is on fire (-32603)', st
    assert in_time(st['last_error_at'], before), st
    # a missing one is ENOENT, and says so there too
    with pytest.raises(OSError) as e:
        read_file(t / 'resources' / 'shapes:%2F%2Fmissing')
    assert e.value.errno == errno.ENOENT
    assert 'Resource not found' in status(t)['last_error']


def test_wrong_ctl_verb_names_the_verbs_in_status(mcpfs_mount):
    m = mcpfs_mount({'s': shapes()})
    t = m.path / 's' / 't1'
    os.mkdir(t)
    before = datetime.now(timezone.utc).timestamp()
    rc, out, err = sh('echo explode > ctl; echo "rc=$?"', t)
    assert out == 'rc=1\n' and 'Invalid argument' in err, (out, err)
    st = status(t)
    assert st['last_error'] == "ctl: unknown verb 'explode' (the verbs are " \
        'cancel, restart, close, subscribe URI and unsubscribe URI)', st
    assert in_time(st['last_error_at'], before), st
    assert st['state'] != 'exited'  # the session is untouched


def test_every_last_error_has_its_time(mcpfs_mount):
    """A refused request, a JSON-RPC error and a failed start each stamp
    last_error_at."""
    m = mcpfs_mount({'s': shapes(),
                     'gone': {'command': '/nonexistent/mcp-server'}})
    t = m.path / 's' / 't1'
    os.mkdir(t)
    before = datetime.now(timezone.utc).timestamp()
    with pytest.raises(OSError):
        write_file(t / 'call', '{"name": 1}')
    st = status(t)
    assert st['last_error'] and in_time(st['last_error_at'], before), st
    g = m.path / 'gone' / 't1'
    os.mkdir(g)
    sh('echo \'{"method":"ping"}\' > call; cat call', g)
    st = status(g)
    assert 'No such file or directory' in st['last_error'], st
    assert in_time(st['last_error_at'], before), st
