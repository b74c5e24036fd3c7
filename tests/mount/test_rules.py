"""Rules of the contract that no other test guarded (issue 29 item 5): each
of these was broken on purpose in a copy of mcpfs and the whole suite
stayed green, so each test here was checked to fail on such a build.

* The latest-reply table is per thread: a shell that writes on thread A
  and reads thread B from a fresh open reads B's reply (spec 4).
* A configured header value (an API key, "Authorization: Bearer ...") is
  shown in no file of the mount, the server's auth file, result/,
  resources.json and prompts.json included (spec 6).
* An answer written to requests/N is checked against question N's own
  schema, not another open question's (spec 10).
* A crash fails the calls in flight and replays none of them, the
  bystanders included, on stdio (spec 5; the HTTP test is in test_http).
* A refused start is a clean exit 1, not a crash after the message
  (run_mcpfs_expect_exit checks the status of every refusal test).
"""

import errno
import json
import os
import subprocess

from conftest import (echo_req, error_text, fake, run_mcpfs_expect_exit,
                      status, text, thread, tool, wait_until)
from test_ask import Background, answer, open_questions, wait_questions
from test_auth import mount_files
from test_http import entry, fake_http  # noqa: F401 - the fixture


def test_latest_reply_is_per_thread(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    a, b = thread(m, 'a', 'A'), thread(m, 'a', 'B')
    assert text(tool(b, 'echo', text='from B')) == 'from B'
    assert sorted(os.listdir(a.parent)) == ['A', 'B', 'call', 'help',
                                          'tools.json']
    # the shell wrote on A; cat reads B on a fresh open: B's reply
    r = subprocess.run(['sh', '-c', 'echo "$1" > A/call && cat B/call && '
                        'cat A/call', 'sh', echo_req('from A')],
                       cwd=m.path / 'a', capture_output=True, timeout=30)
    assert (r.returncode, r.stderr) == (0, b'')
    assert [text(json.loads(ln)) for ln in r.stdout.splitlines()] == \
        ['from B', 'from A']
    # and a thread nobody used reads nothing, not another thread's reply
    thread(m, 'a', 'C')
    r = subprocess.run(['sh', '-c', 'echo "$1" > A/call && cat C/call',
                        'sh', echo_req('again A')], cwd=m.path / 'a',
                       capture_output=True, timeout=30)
    assert (r.returncode, r.stdout, r.stderr) == (0, b'', b'')


def test_configured_header_values_are_shown_nowhere(mcpfs_mount, fake_http,
                                                     tmp_path):
    srv = fake_http()
    token = 'tok-' + os.urandom(8).hex()
    key = 'key-' + os.urandom(8).hex()
    m = mcpfs_mount({'h': entry(srv, headers={
        'Authorization': f'Bearer {token}', 'X-Api-Key': key})})
    t = thread(m, 'h')
    assert text(tool(t, 'echo', text='hi')) == 'hi'
    # the server got them
    posts = srv.mcp()
    assert posts and all(r['headers'].get('x-api-key') == key and
                         r['headers'].get('authorization') ==
                         f'Bearer {token}' for r in posts), posts
    blobs = dict(mount_files(m))
    for must in (m.path / 'h' / 'auth', t / 'status', t / 'resources.json',
                 t / 'prompts.json', m.path / 'h' / 'tools.json'):
        assert must in blobs, f'{must} not read: {sorted(blobs)}'
    assert any(p.parent == t / 'result' for p in blobs), sorted(blobs)
    for p in (m.log, m.stderr, m.stdout):
        if p.exists():
            blobs[p] = p.read_bytes()
    for p, b in blobs.items():
        for s in (token, key):
            assert s.encode() not in b, f'a header value is in {p}'


def test_answer_is_checked_against_its_own_question(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m, 'a')

    def form(msg, name, typ):
        return {'name': 'ask', 'arguments': {
            'method': 'elicitation/create', 'params': {
                'message': msg, 'requestedSchema': {
                    'type': 'object', 'required': [name],
                    'properties': {name: {'type': typ}}}}}}
    first = Background(t, form('number?', 'n', 'integer'))
    wait_questions(t, 1)
    second = Background(t, form('word?', 'w', 'string'))
    assert wait_questions(t, 2) == ['1', '2']
    # each answer fits the other question only
    assert answer(t, '1', {'action': 'accept',
                           'content': {'w': 'x'}}) == errno.EINVAL
    assert answer(t, '2', {'action': 'accept',
                           'content': {'n': 3}}) == errno.EINVAL
    assert open_questions(t) == ['1', '2']
    assert answer(t, '2', {'action': 'accept', 'content': {'w': 'x'}}) == 0
    assert json.loads(text(second.result())) == \
        {'result': {'action': 'accept', 'content': {'w': 'x'}}}
    assert answer(t, '1', {'action': 'accept', 'content': {'n': 3}}) == 0
    assert json.loads(text(first.result())) == \
        {'result': {'action': 'accept', 'content': {'n': 3}}}


def test_crash_replays_no_bystander_stdio(mcpfs_mount):
    """A bystander that asked a question: replayed into the fresh process,
    it would ask again."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m, 'a')
    q = {'message': 'still there?', 'requestedSchema': {'type': 'object'}}
    bystander = Background(t, {'name': 'ask', 'arguments': {
        'method': 'elicitation/create', 'params': q}})
    wait_questions(t, 1)
    slow = Background(t, {'name': 'sleep', 'arguments': {'ms': 20000}})
    wait_until(lambda: status(t)['in_flight'] == 2, 10, '2 calls in flight')
    err = error_text(tool(t, 'crash', code=3, timeout=10))
    assert 'exit' in err.lower() and '3' in err, err
    for bg in (bystander, slow):
        e = error_text(bg.result(10))
        assert 'exit' in e.lower() and '3' in e, e
    # the fresh process saw the new calls only
    assert text(tool(t, 'counter')) == '1'
    st = status(t)
    assert (st['generation'], st['in_flight'], st['questions']) == \
        (2, 0, 0), st
    assert open_questions(t) == []
    assert text(tool(t, 'echo', text='after')) == 'after'
    assert open_questions(t) == [] and status(t)['questions'] == 0


def test_config_error_exits_1_not_a_crash(tmp_path):
    rc, out = run_mcpfs_expect_exit(tmp_path, '{"mcpServers": {"a": 5}}')
    assert rc == 1
    assert str(tmp_path / 'bad.json') in out, out
