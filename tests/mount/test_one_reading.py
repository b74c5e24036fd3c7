"""One reading for mcpfs and the server (spec 13, I-JSON RFC 7493): a
request, arguments object or answer with two members of the same name at
any depth, or a member name holding NUL or another control character
(escaped or raw), is refused with EINVAL before anything is sent, and reads
back as the error naming why.

Readers disagree on such text: cJSON keeps the first of two names and cuts
a name at NUL, Python's json and JavaScript's JSON.parse keep the last, so
mcpfs would check one tool and the server would run another. Each form is
tried on every file that sends (a thread's call, the server's one-shot
call, tools/X and prompts/X with their arguments object, NAME:=JSON lines,
requests/<id> answers), under each policy mode (denyTools, allowTools,
readOnly), against a Python server (tests/fake/pyfake.py) and the Node
server-everything. Every line each server received is logged (pyfake's
--log; tee in front of node), which shows the denied tool never ran:
nothing at all reached the server for a refused write."""

import errno
import json
import os
import shutil
import sys

import pytest

from conftest import (EVERYTHING, REPO, read_file, text, thread, tool,
                      write_file)
from test_ask import ELICIT, Background, answer, question, wait_questions

PYFAKE = REPO / 'tests/fake/pyfake.py'

needs_node = pytest.mark.skipif(
    not EVERYTHING.exists() or not shutil.which('node'),
    reason=f'{EVERYTHING} missing (run npm ci) or no node')

# (policy, the tool it allows, the tool it denies) per server
MODES = {
    'denyTools': ({'denyTools': ['get-env']}, 'echo',
                  {'py': 'get-env', 'node': 'get-env'}),
    'allowTools': ({'allowTools': ['echo', 'ask',
                                   'trigger-elicitation-request',
                                   'args-prompt', 'greet']}, 'echo',
                   {'py': 'get-env', 'node': 'get-env'}),
    # server-everything's get-env is read-only; this one is not
    'readOnly': ({'readOnly': True}, 'echo',
                 {'py': 'get-env', 'node': 'toggle-simulated-logging'}),
}

# Whole requests for call files; A is the allowed tool, D the denied one.
CALL_FORMS = {
    'nul-name': (b'{"method":"tools/call","params":{"name\\u0000":"A",'
                 b'"name":"D","arguments":{}}}', 'U+0000'),
    'control-name': (b'{"method":"tools/call","params":{"name\\u001b":"A",'
                     b'"name":"D","arguments":{}}}', 'U+001B'),
    'raw-control-name': (b'{"method":"tools/call","params":{"name\x7f":"A",'
                         b'"name":"D","arguments":{}}}', 'U+007F'),
    'duplicate': (b'{"method":"tools/call","params":{"name":"A",'
                  b'"arguments":{},"name":"D"}}', 'two members named "name"'),
    'escaped-duplicate': (b'{"method":"tools/call","params":{"name":"A",'
                          b'"arguments":{},"n\\u0061me":"D"}}',
                          'two members named "name"'),
    'duplicate-tool': (b'{"name":"A","name":"D"}', 'two members named "name"'),
    'nested-duplicate': (b'{"name":"A","arguments":{"text":"x",'
                         b'"o":{"k":1,"p":[{"k":1,"k":"D"}]}}}',
                         'two members named "k"'),
    'nul-in-arguments': (b'{"name":"A","arguments":{"text\\u0000":"D",'
                         b'"text":"x"}}', 'U+0000'),
}

# Arguments objects for tools/X and prompts/X.
ARG_FORMS = {
    'nul-name': (b'{"text\\u0000":"D","text":"x"}', 'U+0000'),
    'control-name': (b'{"te\\nxt":"D"}', 'U+000A'),
    'duplicate': (b'{"text":"x","text":"D"}', 'two members named "text"'),
    'nested-duplicate': (b'{"o":{"a":[{"k":1,"\\u006b":"D"}]}}',
                         'two members named "k"'),
}

# Answers to a question (requests/<id>).
ANSWER_FORMS = {
    'nul-name': (b'{"action":"accept","content":{"answer\\u0000":"D",'
                 b'"answer":"x"}}', 'U+0000'),
    'control-name': (b'{"action":"accept","content":{"answer\\u0007":"D"}}',
                     'U+0007'),
    'duplicate': (b'{"action":"accept","action":"decline"}',
                  'two members named "action"'),
    'nested-duplicate': (b'{"action":"accept","content":{"answer":"x",'
                         b'"answer":"D"}}', 'two members named "answer"'),
}


def entry(kind, log, policy):
    if kind == 'py':
        return dict({'command': sys.executable,
                     'args': [str(PYFAKE), '--log', str(log)]}, **policy)
    return dict({'command': 'sh',
                 'args': ['-c', 'tee -a "$0" | exec node "$1" stdio',
                          str(log), str(EVERYTHING)]}, **policy)


def received(log):
    """The lines the server received so far that run something or answer
    a question: tools/call, prompts/get, and answers (an "action"); what
    mcpfs sends on its own (listings for NAME=VALUE lines, roots/list
    answers, pings) is left out."""
    lines = log.read_text(errors='replace').splitlines() if log.exists() \
        else []
    return [line for line in lines if '"tools/call"' in line or
            '"prompts/get"' in line or '"action"' in line]


def refused_write(path, data):
    """Write data to path (one write, then close): it must fail with
    EINVAL, at the write or, for NAME=VALUE lines, at the close."""
    with pytest.raises(OSError) as e:
        write_file(path, data)
    assert e.value.errno == errno.EINVAL, (path, data, e.value)


def reads_back(path, why):
    """The file reads back the refusal, naming why."""
    reply = json.loads(read_file(path))
    assert reply.get('error', {}).get('code') == -32600, reply
    msg = reply['error']['message']
    assert why in msg and 'I-JSON' in msg, reply




@pytest.mark.parametrize('kind', ['py', pytest.param('node',
                                                     marks=needs_node)])
@pytest.mark.parametrize('mode', sorted(MODES))
def test_one_reading_on_every_file(mcpfs_mount, tmp_path, kind, mode):
    policy, allowed, denied = MODES[mode]
    denied = denied[kind]
    log = tmp_path / 'received.log'
    m = mcpfs_mount({'s': entry(kind, log, policy)})
    t = thread(m, 's', 't')
    # the session works and the log shows what it got
    assert 'x' in text(tool(t, allowed, text='x'))
    prompt = 'greet' if kind == 'py' else 'args-prompt'
    assert prompt in os.listdir(t / 'prompts')
    before = received(log)
    assert any('"tools/call"' in line for line in before)

    for path in (t / 'call', m.path / 's' / 'call'):
        for form, (raw, why) in CALL_FORMS.items():
            data = raw.replace(b'"A"', json.dumps(allowed).encode()) \
                .replace(b'"D"', json.dumps(denied).encode())
            refused_write(path, data)
            reads_back(path, why)
    for path in (t / 'tools' / allowed, t / 'prompts' / prompt):
        for form, (raw, why) in ARG_FORMS.items():
            refused_write(path, raw.replace(b'"D"',
                                            json.dumps(denied).encode()))
            reads_back(path, why)
        # NAME:=JSON lines become an arguments object checked the same way
        refused_write(path, b'o:={"k":1,"k":2}\n')
        reads_back(path, 'two members named "k"')

    # nothing reached the server: not the denied tool, no other call
    assert received(log) == before
    assert 'x' in text(tool(t, allowed, text='x'))  # and it still works


# every mode with the Python fake; with node, the modes under which
# server-everything's asking tool may run (it is not read-only, so
# readOnly hides it: there is no question to answer)
ANSWER_CASES = [
    pytest.param(kind, mode, id=f'{mode}-{kind}',
                 marks=needs_node if kind == 'node' else ())
    for mode in sorted(MODES) for kind in ('py', 'node')
    if not (kind == 'node' and mode == 'readOnly')]


@pytest.mark.parametrize('kind,mode', ANSWER_CASES)
def test_one_reading_of_answers(mcpfs_mount, tmp_path, kind, mode):
    req = {'name': 'ask', 'arguments': {}} if kind == 'py' else ELICIT
    log = tmp_path / 'received.log'
    m = mcpfs_mount({'s': entry(kind, log, MODES[mode][0])})
    t = thread(m, 's', 't')
    bg = Background(t, req)
    q = wait_questions(t)[0]
    before = received(log)
    try:
        for form, (raw, why) in ANSWER_FORMS.items():
            assert answer(t, q, raw) == errno.EINVAL, form
            refusal = question(t, q).get('refused', '')
            assert why in refusal and 'I-JSON' in refusal, (form, refusal)
        assert received(log) == before  # no answer reached the server
    finally:
        declined = answer(t, q, {'action': 'decline'})
        reply = bg.result()
    assert declined == 0
    assert 'decline' in json.dumps(reply), reply
    assert not any('"D"' in line for line in received(log))
