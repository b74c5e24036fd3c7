"""An answer written to requests/N is checked against question N's own
schema, not another open question's (spec 10). (Checked to fail on
a copy of mcpfs broken on purpose.)"""

import errno
import json

from conftest import fake, text, thread
from test_ask import Background, answer, open_questions, wait_questions


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
