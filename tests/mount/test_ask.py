"""Questions from the server as files (spec 10; sessions/base/ask.c,
sessions/base/askcheck.c, fs/askfile.c): elicitation/create and
sampling/createMessage become <thread>/requests/<n>, read to see the
question, written with one JSON value to answer it.

Most tests run the real @modelcontextprotocol/server-everything (pinned in
package.json), whose tools ask the client only when it declared the
capability:
* trigger-elicitation-request {} sends a form (mode omitted) whose schema
  has name (string, required), check (boolean), firstLine (string, default
  "It was a dark and stormy night."), email (format email), homepage
  (format uri), birthdate (format date), integer (1..100, default 42),
  number (0..1000, default 3.14), single-select enums (enum, oneOf, legacy
  enumNames) and multi-select arrays (items enum / anyOf, 1..3 items), each
  with a default; it waits up to 10 minutes and answers text with the
  action and "Raw result: " + the JSON it got.
* trigger-url-elicitation {url, message?, elicitationId?} sends mode url;
  "✅ User completed the URL elicitation flow." on accept.
* trigger-sampling-request {prompt, maxTokens?} sends sampling/createMessage
  with messages [{role user, text "Resource trigger-sampling-request
  context: PROMPT"}], systemPrompt, maxTokens, temperature; answers "LLM
  sampling result: " + the JSON of the result, or an error result when the
  client answered with an error.
The fake servers (tests/fake) ask any request with their `ask` tool and
return the answer they got, so what mcpfs sent is checked exactly; the HTTP
fake also records the POST that carried it. The last tests run
server-everything over Streamable HTTP and HTTP+SSE.
"""

import errno
import json
import os
import subprocess
import threading
import time

import pytest

from conftest import (call, everything, fake, needs_everything, read_file,
                      run_with_deadline, SLACK, slacked, status, text, thread,
                      tool, wait_until, write_file)
from test_http import Everything, FakeHTTP, sid_of
from test_sse import EverythingSSE


ELICIT = {'name': 'trigger-elicitation-request', 'arguments': {}}
DEFAULTS = {
    'firstLine': 'It was a dark and stormy night.', 'integer': 42,
    'number': 3.14, 'untitledSingleSelectEnum': 'Monica',
    'untitledMultipleSelectEnum': ['Guitar'],
    'titledSingleSelectEnum': 'hero-1', 'titledMultipleSelectEnum': ['fish-1'],
    'legacyTitledEnum': 'pet-1'}


class Background:
    """A call running in a thread while the test answers its question."""

    def __init__(self, path, obj, timeout=60):
        self.box = {}
        self.th = threading.Thread(target=self._run,
                                   args=(path, obj, timeout), daemon=True)
        self.th.start()

    def _run(self, path, obj, timeout):
        try:
            self.box['reply'] = call(path, obj, timeout)
        except BaseException as e:  # noqa: B902 - re-raised in result
            self.box['error'] = e

    def result(self, timeout=60):
        self.th.join(timeout * SLACK)  # a deadline, as conftest's
        assert not self.th.is_alive(), 'the call did not end'
        if 'error' in self.box:
            raise self.box['error']
        return self.box['reply']


def open_questions(t):
    return sorted(os.listdir(t / 'requests'), key=int)


def wait_questions(t, n=1, timeout=30):
    return wait_until(lambda: (lambda q: q if len(q) >= n else None)(
        open_questions(t)), timeout, f'{n} question(s) in {t}/requests')


def question(t, name):
    return json.loads(read_file(t / 'requests' / name))


def answer(t, name, obj):
    """Write one answer; returns 0 or the errno of the write (or close)."""
    data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    try:
        write_file(t / 'requests' / name, data)
    except OSError as e:
        return e.errno
    return 0


def ask_events(t):
    raw = read_file(t / 'events').decode()
    assert raw == '' or raw.endswith('\n'), raw
    return [e['params'] for e in map(json.loads, raw.splitlines())
            if e.get('method') == 'mcpfs/request']


def raw_result(reply):
    """The JSON server-everything got, from its "Raw result: " text."""
    return json.loads(text(reply).split('Raw result: ', 1)[1])


def names(t):
    return {x['name'] for x in
            json.loads(read_file(t / 'tools.json', 30))['tools']}


# ---------------------------------------------------------------- capabilities

@needs_everything
def test_capabilities_follow_the_config(mcpfs_mount):
    m = mcpfs_mount({'dflt': everything(), 'off': everything(elicitation=False),
                     'both': everything(sampling=True)})
    asking = {'trigger-elicitation-request', 'trigger-url-elicitation'}
    got = {s: names(thread(m, s)) for s in ('dflt', 'off', 'both')}
    assert asking <= got['dflt'] and 'trigger-sampling-request' \
        not in got['dflt'], got['dflt']
    assert not (asking | {'trigger-sampling-request'}) & got['off']
    assert asking | {'trigger-sampling-request'} <= got['both']
    assert status(m.path / 'dflt' / 't')['questions'] == 0


def test_config_keys_must_be_booleans(tmp_path):
    from conftest import run_mcpfs_expect_exit
    for key in ('elicitation', 'sampling'):
        rc, out = run_mcpfs_expect_exit(tmp_path, json.dumps(
            {'mcpServers': {'a': {'command': 'x', key: 'yes'}}}))
        assert rc == 1
        assert f'mcpServers.a.{key}: must be true or false' in out, out


# ---------------------------------------------------------------- forms

@needs_everything
def test_form_accept_gets_the_defaults(mcpfs_mount):
    m = mcpfs_mount({'ev': everything()})
    t = thread(m, 'ev')
    bg = Background(t, ELICIT)
    assert wait_questions(t) == ['1']
    st = os.stat(t / 'requests' / '1')
    assert st.st_mode & 0o777 == 0o600
    q = question(t, '1')
    assert q['id'] == 1 and q['method'] == 'elicitation/create'
    assert q['mode'] == 'form' and q['server'] == 'ev'
    assert q['message'] == 'Please provide inputs for the following fields:'
    assert q['requestedSchema']['required'] == ['name']
    assert q['requestedSchema']['properties']['integer']['maximum'] == 100
    assert 'accept' in q['answer'] and 'refused' not in q
    assert st.st_size == len(read_file(t / 'requests' / '1'))
    assert status(t)['questions'] == 1
    assert ask_events(t) == [{
        'request': 1, 'state': 'open', 'method': 'elicitation/create',
        'mode': 'form',
        'message': 'Please provide inputs for the following fields:'}]
    assert answer(t, '1', {'action': 'accept',
                           'content': {'name': 'Ada', 'check': True,
                                       'integer': 7}}) == 0
    with pytest.raises(FileNotFoundError):   # gone with the answer
        os.stat(t / 'requests' / '1')
    assert open_questions(t) == []
    assert answer(t, '1', {'action': 'cancel'}) in (errno.ENOENT,
                                                    errno.EPERM)
    reply = bg.result()
    assert text(reply).startswith('✅ User provided the requested')
    assert raw_result(reply) == {'action': 'accept', 'content': dict(
        DEFAULTS, name='Ada', check=True, integer=7)}
    assert status(t)['questions'] == 0
    assert ask_events(t)[1:] == [{'request': 1, 'state': 'answered',
                                  'method': 'elicitation/create',
                                  'action': 'accept'}]


BAD_ANSWERS = [
    ({'action': 'accept', 'content': {'email': 'a@b.org'}},
     'field "name": required'),
    ({'action': 'accept', 'content': {'name': 'A', 'email': 'nobody'}},
     'field "email": format email'),
    ({'action': 'accept', 'content': {'name': 'A', 'homepage': 'not a uri'}},
     'field "homepage": format uri'),
    ({'action': 'accept', 'content': {'name': 'A', 'birthdate': '2023-02-30'}},
     'field "birthdate": format date'),
    ({'action': 'accept', 'content': {'name': 'A', 'integer': 500}},
     'field "integer": maximum 100'),
    ({'action': 'accept', 'content': {'name': 'A', 'integer': 4.5}},
     'field "integer": must be an integer'),
    ({'action': 'accept', 'content': {'name': 'A', 'number': -1}},
     'field "number": minimum 0'),
    ({'action': 'accept', 'content': {'name': 7}},
     'field "name": must be a string'),
    ({'action': 'accept', 'content': {'name': 'A', 'check': 'yes'}},
     'field "check": must be true or false'),
    ({'action': 'accept', 'content': {'name': 'A',
                                      'untitledSingleSelectEnum': 'Gunther'}},
     'field "untitledSingleSelectEnum": not one of the allowed values'),
    ({'action': 'accept', 'content': {'name': 'A',
                                      'titledSingleSelectEnum': 'hero-9'}},
     'field "titledSingleSelectEnum": not one of the allowed values'),
    ({'action': 'accept', 'content': {'name': 'A',
                                      'untitledMultipleSelectEnum': []}},
     'field "untitledMultipleSelectEnum": minItems 1'),
    ({'action': 'accept', 'content': {'name': 'A',
                                      'titledMultipleSelectEnum': ['fish-9']}},
     'field "titledMultipleSelectEnum": item 0 is not one of'),
    ({'action': 'accept', 'content': {'name': 'A', 'color': 'red'}},
     'field "color": not in the requested schema'),
    ({'action': 'accept', 'content': ['A']}, 'content must be an object'),
    ({'action': 'maybe'}, 'action: must be'),
    ({'name': 'A'}, 'unknown key "name"'),
    ('"accept"', 'must be a JSON object'),
]


@needs_everything
def test_form_answers_that_do_not_fit_are_refused(mcpfs_mount):
    m = mcpfs_mount({'ev': everything()})
    t = thread(m, 'ev')
    bg = Background(t, ELICIT)
    wait_questions(t)
    for bad, why in BAD_ANSWERS:
        data = bad.encode() if isinstance(bad, str) else json.dumps(bad)\
            .encode()
        assert answer(t, '1', data) == errno.EINVAL, bad
        assert open_questions(t) == ['1'], bad   # the question stays
        assert why in question(t, '1')['refused'], (bad, why)
        assert why in m.output(), why             # and the log says why
    # not JSON, JSON and more, unfinished at close: EINVAL too
    for data in (b'{"action" "accept"}', b'{"action": "decline"} {}',
                 b'{"action": "decline"'):
        assert answer(t, '1', data) == errno.EINVAL, data
        assert open_questions(t) == ['1']
    assert status(t)['questions'] == 1
    # an answer may come in pieces; blank writes before it are nothing
    fd = os.open(t / 'requests' / '1', os.O_WRONLY)
    try:
        for piece in (b'\n', b'{"act', b'ion": "dec', b'line"}', b'\n'):
            os.write(fd, piece)
    finally:
        os.close(fd)
    reply = bg.result()
    assert text(reply).startswith('❌ User declined')
    assert raw_result(reply) == {'action': 'decline'}


@needs_everything
def test_an_answer_over_the_limit_stays_refused(mcpfs_mount):
    """An answer over 16 MiB written with Python's buffered file (one
    write() the kernel cuts in parts: the part past the limit fails
    EFBIG, the write returns short and Python writes the rest): the rest
    is EFBIG too, never read as a new answer, so the user sees EFBIG and
    the question's "refused" says why; the question stays and a fresh
    open file answers it. Before, the rest failed EINVAL and "refused"
    named invalid JSON."""
    m = mcpfs_mount({'ev': everything()})
    t = thread(m, 'ev')
    bg = Background(t, ELICIT)
    wait_questions(t)
    big = '{"action":"accept","content":{"name":"' + 'a' * (17 << 20) + '"}}'

    def go():
        with pytest.raises(OSError) as e:
            with open(t / 'requests' / '1', 'w') as f:
                f.write(big)
        return e.value.errno
    assert run_with_deadline(go, 60) == errno.EFBIG
    assert open_questions(t) == ['1']
    assert 'over 16 MiB' in question(t, '1')['refused']
    assert answer(t, '1', {'action': 'decline'}) == 0
    assert text(bg.result()).startswith('❌ User declined')


@needs_everything
def test_cancel_with_cat_and_echo(mcpfs_mount):
    m = mcpfs_mount({'ev': everything()})
    t = thread(m, 'ev')
    bg = Background(t, ELICIT)
    wait_questions(t)
    r = subprocess.run(
        ['sh', '-c', 'cat requests/1 && echo \'{"action": "cancel"}\' > '
         'requests/1 && ls requests'], cwd=t, capture_output=True,
        text=True, timeout=20)
    assert r.returncode == 0, r.stderr
    shown, listing = r.stdout.rsplit('}\n', 1)
    assert json.loads(shown + '}')['method'] == 'elicitation/create'
    assert listing == ''
    reply = bg.result()
    assert text(reply).startswith('⚠️ User cancelled')
    assert raw_result(reply) == {'action': 'cancel'}


# ---------------------------------------------------------------- url mode

@needs_everything
def test_url_elicitation_shows_url_and_host(mcpfs_mount):
    m = mcpfs_mount({'ev': everything()})
    t = thread(m, 'ev')
    url = 'https://someone@auth.example.org:8443/consent?next=%2Fhome'
    bg = Background(t, {'name': 'trigger-url-elicitation',
                        'arguments': {'url': url, 'elicitationId': 'e-42',
                                      'message': 'Sign in to Example'}})
    wait_questions(t)
    q = question(t, '1')
    assert (q['mode'], q['url'], q['host']) == ('url', url,
                                               'auth.example.org')
    assert q['elicitationId'] == 'e-42'
    assert q['message'] == 'Sign in to Example'
    assert 'requestedSchema' not in q
    assert ask_events(t)[0]['host'] == 'auth.example.org'
    assert answer(t, '1', {'action': 'accept',
                           'content': {'x': 1}}) == errno.EINVAL
    assert 'content: none in url mode' in question(t, '1')['refused']
    assert answer(t, '1', {'action': 'accept'}) == 0
    reply = bg.result()
    assert text(reply).startswith('✅ User completed the URL elicitation')
    assert 'Elicitation ID: e-42' in text(reply)
    assert raw_result(reply) == {'action': 'accept'}


# ---------------------------------------------------------------- sampling

@needs_everything
def test_sampling_answered_by_the_test_as_the_model(mcpfs_mount):
    m = mcpfs_mount({'ev': everything(sampling=True)})
    t = thread(m, 'ev')
    bg = Background(t, {'name': 'trigger-sampling-request',
                        'arguments': {'prompt': 'capital of France?',
                                      'maxTokens': 50}})
    wait_questions(t)
    q = question(t, '1')
    assert q['method'] == 'sampling/createMessage' and 'mode' not in q
    assert q['maxTokens'] == 50
    assert q['systemPrompt'] == 'You are a helpful test server.'
    assert q['messages'] == [{'role': 'user', 'content': {
        'type': 'text', 'text': 'Resource trigger-sampling-request '
        'context: capital of France?'}}]
    result = {'role': 'assistant', 'model': 'the-test',
              'content': {'type': 'text', 'text': 'Paris.'},
              'stopReason': 'endTurn'}
    for bad, why in (({k: v for k, v in result.items() if k != 'model'},
                      'model: required'),
                     (dict(result, role='robot'), 'role: must be'),
                     (dict(result, content={'text': 'Paris.'}),
                      'content: must be an object with a string type'),
                     ({'action': 'accept'}, 'action must be decline')):
        assert answer(t, '1', bad) == errno.EINVAL, bad
        assert why in question(t, '1')['refused']
    assert answer(t, '1', result) == 0
    reply = bg.result()
    assert not reply.get('isError')
    got = json.loads(text(reply).split('LLM sampling result: ', 1)[1])
    assert got == result
    # a declined one reaches the server as an error
    bg = Background(t, {'name': 'trigger-sampling-request',
                        'arguments': {'prompt': 'again'}})
    assert wait_questions(t) == ['2']
    assert answer(t, '2', {'action': 'decline'}) == 0
    reply = bg.result()
    assert reply.get('isError') is True
    assert 'User rejected sampling request' in text(reply)


@pytest.mark.parametrize('key', ['sampling', 'elicitation'])
def test_off_is_declined_with_an_error(mcpfs_mount, key):
    m = mcpfs_mount({'a': dict(fake(), **{key: False})})
    t = thread(m)
    method = {'sampling': 'sampling/createMessage',
              'elicitation': 'elicitation/create'}[key]
    got = json.loads(text(tool(t, 'ask', method=method, params={
        'messages': [], 'maxTokens': 5, 'message': 'hi',
        'requestedSchema': {'type': 'object', 'properties': {}}})))
    assert got == {'error': {'code': -32601, 'message':
                             f'{key} is off for server a (set "{key}": '
                             'true in its config entry)'}}
    assert open_questions(t) == [] and ask_events(t) == []


def test_malformed_requests_and_one_shots_get_answered_at_once(mcpfs_mount):
    m = mcpfs_mount({'a': dict(fake(), sampling=True)})
    t = thread(m)

    def ask(path, method, params):
        return json.loads(text(tool(path, 'ask', method=method,
                                    params=params)))
    for params, why in (({'mode': 'phone', 'message': 'x'},
                         'unsupported elicitation mode'),
                        ({'message': 'x'}, 'a form needs a requestedSchema'),
                        ({'mode': 'url', 'message': 'x', 'url': 'nowhere'},
                         'url mode needs an absolute url')):
        got = ask(t, 'elicitation/create', params)
        assert got['error']['code'] == -32602 and \
            why in got['error']['message'], got
    assert ask(t, 'sampling/createMessage', {'maxTokens': 5})['error'][
        'code'] == -32602
    assert open_questions(t) == []
    # the server-level call is one-shot: no directory, no one to answer
    form = {'message': 'x', 'requestedSchema': {'type': 'object'}}
    assert ask(m.path / 'a', 'elicitation/create', form) == \
        {'result': {'action': 'cancel'}}
    got = ask(m.path / 'a', 'sampling/createMessage', {'messages': []})
    assert got['error']['code'] == -1 and 'one-shot' in \
        got['error']['message']


# ---------------------------------------------------------------- several

@needs_everything
def test_two_questions_on_two_threads(mcpfs_mount):
    m = mcpfs_mount({'ev': everything()})
    a, b = thread(m, 'ev', 'a'), thread(m, 'ev', 'b')
    bga = Background(a, ELICIT)
    bgb = Background(b, {'name': 'trigger-url-elicitation',
                         'arguments': {'url': 'https://b.example/'}})
    assert wait_questions(a) == ['1'] and wait_questions(b) == ['1']
    assert question(a, '1')['mode'] == 'form'
    assert question(b, '1')['host'] == 'b.example'
    assert status(a)['questions'] == 1 and status(b)['questions'] == 1
    # an answer that fits the other thread's question does not fit here
    assert answer(b, '1', {'action': 'accept',
                           'content': {'name': 'A'}}) == errno.EINVAL
    assert answer(b, '1', {'action': 'decline'}) == 0
    assert raw_result(bgb.result()) == {'action': 'decline'}
    assert open_questions(a) == ['1']   # untouched
    assert answer(a, '1', {'action': 'accept',
                           'content': {'name': 'Bo'}}) == 0
    assert raw_result(bga.result())['content']['name'] == 'Bo'
    # numbers go on in a thread, they are not reused
    bga = Background(a, ELICIT)
    assert wait_questions(a) == ['2']
    assert answer(a, '2', {'action': 'cancel'}) == 0
    assert raw_result(bga.result()) == {'action': 'cancel'}


def test_two_questions_at_once_on_one_thread(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    form = {'message': 'Pick', 'requestedSchema': {
        'type': 'object', 'properties': {'n': {'type': 'integer',
                                               'default': 5}}}}
    first = Background(t, {'name': 'ask', 'arguments': {
        'method': 'elicitation/create', 'params': form}})
    wait_questions(t, 1)
    second = Background(t, {'name': 'ask', 'arguments': {
        'method': 'elicitation/create', 'params': dict(form, message='Two')}})
    assert wait_questions(t, 2) == ['1', '2']
    assert question(t, '2')['message'] == 'Two'
    assert status(t)['questions'] == 2
    assert answer(t, '2', {'action': 'accept', 'content': {'n': 9}}) == 0
    assert json.loads(text(second.result())) == \
        {'result': {'action': 'accept', 'content': {'n': 9}}}
    assert answer(t, '1', {'action': 'accept'}) == 0   # no content: defaults
    assert json.loads(text(first.result())) == \
        {'result': {'action': 'accept', 'content': {'n': 5}}}


# ---------------------------------------------------------------- endings

@needs_everything
def test_unanswered_question_is_cancelled_at_the_timeout(mcpfs_mount):
    q = slacked(3)  # the question must be seen open before it expires
    m = mcpfs_mount({'ev': everything(timeout=q)})
    t = thread(m, 'ev')
    # the call timeout runs from the write, the server's start included
    # (spec 5): wait for the session to be up (mkdir starts it), so that
    # the 3 s are the question's alone (under load a cold start of node
    # took them all, the call timed out before the server asked, and no
    # question ever came)
    wait_until(lambda: status(t)['state'] == 'ready', 60, 'the server up')
    bg = Background(t, ELICIT)
    wait_questions(t)
    # the call keeps its own timeout while the question is open
    reply = bg.result(30)
    assert reply['error']['code'] == -32001, reply
    wait_until(lambda: open_questions(t) == [], 30,
               'the question to expire')
    assert {'request': 1, 'state': 'expired', 'method':
            'elicitation/create', 'after': q} in ask_events(t)
    assert f'question 1 (elicitation/create) unanswered after {q} s: ' \
        'cancel' in m.output()
    assert status(t)['questions'] == 0 and status(t)['state'] == 'ready'


def test_questions_are_dropped_with_the_server(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    form = {'message': 'x', 'requestedSchema': {'type': 'object'}}
    bg = Background(t, {'name': 'ask', 'arguments': {
        'method': 'elicitation/create', 'params': form}})
    wait_questions(t)
    write_file(t / 'ctl', 'restart\n')
    assert open_questions(t) == []
    assert bg.result()['error']['message'] == 'session restarted'
    assert ask_events(t)[-1] == {'request': 1, 'state': 'dropped',
                                 'method': 'elicitation/create',
                                 'reason': 'server gone or restarted'}
    # rm -r of a thread with a question open: the question file and the
    # requests directory are "removed" (nothing happens), the thread goes
    bg = Background(t, {'name': 'ask', 'arguments': {
        'method': 'elicitation/create', 'params': form}})
    assert wait_questions(t) == ['2']
    r = subprocess.run(['rm', '-r', str(t)], capture_output=True, text=True,
                       timeout=20)
    assert r.returncode == 0, r.stderr
    assert not t.exists()
    assert 'error' in bg.result()


# ---------------------------------------------------------------- over HTTP

def test_http_answers_go_back_by_post(mcpfs_mount, tmp_path):
    srv = FakeHTTP(tmp_path, ())
    try:
        m = mcpfs_mount({'h': {'url': srv.url, 'sampling': True}})
        t = thread(m, 'h')
        form = {'message': 'x', 'requestedSchema': {
            'type': 'object', 'properties': {
                'ok': {'type': 'boolean', 'default': True}}}}
        for n, via in ((1, 'post'), (2, 'get')):
            bg = Background(t, {'name': 'ask', 'arguments': {
                'method': 'elicitation/create', 'params': form, 'via': via}})
            assert wait_questions(t) == [str(n)]
            assert answer(t, str(n), {'action': 'accept'}) == 0
            assert json.loads(text(bg.result())) == {'result': {
                'action': 'accept', 'content': {'ok': True}}}
        bg = Background(t, {'name': 'ask', 'arguments': {
            'method': 'sampling/createMessage', 'params': {'messages': []},
            'via': 'get'}})
        assert wait_questions(t) == ['3']
        msg = {'role': 'assistant', 'model': 'm',
               'content': {'type': 'text', 'text': 'hi'}}
        assert answer(t, '3', msg) == 0
        assert json.loads(text(bg.result())) == {'result': msg}
        answers = [r for r in srv.posts() if 'method' not in r['json']]
        [sid] = srv.sessions()
        assert len(answers) == 3, answers
        assert len({a['json']['id'] for a in answers}) == 3
        for a in answers:
            assert a['status'] == 202 and sid_of(a) == sid, a
            assert a['json']['id'].startswith('srv-')
    finally:
        srv.stop()


def test_http_timeout_answers_cancel_or_an_error(mcpfs_mount, tmp_path):
    srv = FakeHTTP(tmp_path, ())
    try:
        # both questions must be seen open at once before they expire, and
        # expire before the fake's own 10 s wait for their answers ends
        q = min(slacked(2), 8)
        m = mcpfs_mount({'h': {'url': srv.url, 'timeout': q,
                               'sampling': True}})
        t = thread(m, 'h')
        bg = Background(t, {'name': 'ask', 'arguments': {
            'method': 'elicitation/create', 'via': 'post', 'params': {
                'message': 'x', 'requestedSchema': {'type': 'object'}}}})
        wait_questions(t, 1)
        bg2 = Background(t, {'name': 'ask', 'arguments': {
            'method': 'sampling/createMessage', 'via': 'get', 'params': {
                'messages': []}}})
        wait_questions(t, 2)
        assert bg.result(30)['error']['code'] == -32001
        assert bg2.result(30)['error']['code'] == -32001
        got = wait_until(lambda: (lambda a: a if len(a) == 2 else None)(
            [r['json'] for r in srv.posts() if 'method' not in r['json']]),
            30, 'the answers of the expired questions')
        assert {'action': 'cancel'} in [a.get('result') for a in got]
        expired = f'timeout: no answer within {q} s'
        assert {'code': -32001, 'message': expired} in \
            [a.get('error') for a in got]
        assert open_questions(t) == []
    finally:
        srv.stop()


@needs_everything
def test_real_everything_over_streamable_http(mcpfs_mount, tmp_path):
    ev = Everything(tmp_path)
    try:
        m = mcpfs_mount({'ev': {'url': ev.url, 'sampling': True}})
        t = thread(m, 'ev')
        bg = Background(t, ELICIT)
        assert wait_questions(t) == ['1']
        assert answer(t, '1', {'action': 'accept',
                               'content': {'name': 'Http'}}) == 0
        assert raw_result(bg.result()) == {'action': 'accept', 'content':
                                           dict(DEFAULTS, name='Http')}
        bg = Background(t, {'name': 'trigger-sampling-request',
                            'arguments': {'prompt': 'over http'}})
        assert wait_questions(t) == ['2']
        assert 'over http' in json.dumps(question(t, '2')['messages'])
        msg = {'role': 'assistant', 'model': 'm',
               'content': {'type': 'text', 'text': 'ok'}}
        assert answer(t, '2', msg) == 0
        got = json.loads(text(bg.result()).split('LLM sampling result: ')[1])
        assert got == msg
    finally:
        ev.stop()


def test_question_withdrawn_by_the_server(mcpfs_mount, tmp_path):
    srv = FakeHTTP(tmp_path, ())
    try:
        m = mcpfs_mount({'h': {'url': srv.url}})
        t = thread(m, 'h')
        bg = Background(t, {'name': 'ask', 'arguments': {
            'method': 'elicitation/create', 'via': 'post', 'params': {
                'message': 'x', 'requestedSchema': {'type': 'object'}}}})
        wait_questions(t)
        # the fake's ids are srv-N from a counter it shares with its
        # streams: cancel candidates until the question goes (mcpfs
        # ignores a requestId it does not know)
        for k in range(1, 11):
            r = tool(t, 'notify', method='notifications/cancelled', params={
                'requestId': f'srv-{k}', 'reason': 'changed my mind'})
            assert text(r) == 'notified'
            if not open_questions(t):
                break
        assert open_questions(t) == []
        assert ask_events(t)[-1] == {'request': 1, 'state': 'withdrawn',
                                     'method': 'elicitation/create',
                                     'reason': 'changed my mind'}
        assert status(t)['questions'] == 0
        # nothing was answered: the fake gives up after its 10 s
        assert json.loads(text(bg.result(30))) == \
            {'error': 'no answer within 10 s'}
        assert [r for r in srv.posts() if 'method' not in r['json']] == []
    finally:
        srv.stop()


@needs_everything
def test_real_everything_over_http_sse(mcpfs_mount, tmp_path):
    ev = EverythingSSE(tmp_path)
    try:
        m = mcpfs_mount({'ev': {'type': 'sse', 'url': ev.url}})
        t = thread(m, 'ev')
        assert status(t)['transport'] == 'sse'
        bg = Background(t, {'name': 'trigger-url-elicitation',
                            'arguments': {'url': 'https://sse.example/go'}})
        assert wait_questions(t) == ['1']
        assert question(t, '1')['host'] == 'sse.example'
        assert answer(t, '1', {'action': 'decline'}) == 0
        assert raw_result(bg.result()) == {'action': 'decline'}
        bg = Background(t, ELICIT)
        assert wait_questions(t) == ['2']
        assert answer(t, '2', {'action': 'accept',
                               'content': {'name': 'Sse'}}) == 0
        assert raw_result(bg.result()) == {'action': 'accept', 'content':
                                           dict(DEFAULTS, name='Sse')}
    finally:
        ev.stop()


def test_an_open_question_keeps_an_idle_thread(mcpfs_mount, tmp_path):
    # the call that brought the question is cancelled; the question (the
    # server's own request) stays for its timeout, and the idle timeout,
    # shorter, must not close the thread under it
    srv = FakeHTTP(tmp_path, ())
    try:
        m = mcpfs_mount({'h': {'url': srv.url, 'idleTimeout': slacked(1),
                               'timeout': slacked(8)}})
        t = thread(m, 'h')
        bg = Background(t, {'name': 'ask', 'arguments': {
            'method': 'elicitation/create', 'via': 'get', 'params': {
                'message': 'x', 'requestedSchema': {'type': 'object'}}}})
        assert wait_questions(t) == ['1']
        write_file(t / 'ctl', b'cancel')
        assert bg.result(30)['error']['code'] == -32003
        time.sleep(slacked(2.5))  # past the idle timeout
        assert t.exists() and open_questions(t) == ['1']
        assert answer(t, '1', {'action': 'accept'}) == 0
        wait_until(lambda: [r for r in srv.posts()
                            if 'method' not in r['json']], 10,
                   'the answer at the server')
        # answered, the thread is idle again: the timeout closes it
        wait_until(lambda: not t.exists(), 10, 'the idle close')
    finally:
        srv.stop()
