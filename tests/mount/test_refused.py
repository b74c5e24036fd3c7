"""A refused request never leaves an older answer in its place (spec
4: a refused or incomplete request counts as a call whose reply
is the error naming why). The shell drops close's error, so `cat call` is
how a shell user learns why."""
import json
import subprocess

from conftest import (call, fake, read_file, status, text, thread)


def sh(cmd, timeout=20):
    return subprocess.run(['sh', '-c', cmd], capture_output=True, text=True,
                          timeout=timeout)


def test_refused_request_is_the_latest_reply(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'old'}})) == 'old'
    # the shell that wrote reads (a reader reads its own writer's call)
    r = sh(f"echo '{{\"name\":\"echo\",\"arguments\":\"str\"}}' > {t}/call;"
           f" e=$?; cat {t}/call; exit $e")
    assert r.returncode != 0  # the write itself fails with EINVAL
    reply = json.loads(r.stdout)
    assert 'old' not in json.dumps(reply)
    assert reply['error']['code'] == -32600
    assert 'request refused' in reply['error']['message']
    assert 'arguments' in reply['error']['message']
    assert 'request refused' in status(t)['last_error']


def test_incomplete_request_via_shell_redirect(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'old'}})) == 'old'
    # printf's write succeeds; the error of close is dropped by the shell
    reply = json.loads(sh(f"printf '{{\"name\":\"echo\"' > {t}/call; "
                          f"cat {t}/call").stdout)
    assert reply['error']['message'] == \
        'request refused: incomplete JSON at close'
    # the next good call is the latest again
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'new'}})) == 'new'
    assert text(json.loads(read_file(t / 'call'))) == 'new'


def test_invalid_json_names_the_reason(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    r = sh(f"echo '{{\"name\":]' > {t}/call")
    assert r.returncode != 0
    reply = json.loads(read_file(t / 'call'))
    assert reply['error']['message'].startswith('request refused: invalid JSON')
    # the session is intact
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'ok'}})) == 'ok'


def test_refusal_on_server_level_call(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    r = sh(f"echo '{{\"method\":\"initialize\"}}' > {m.path}/a/call")
    assert r.returncode != 0
    reply = json.loads(read_file(m.path / 'a' / 'call'))
    assert 'request refused' in reply['error']['message']
