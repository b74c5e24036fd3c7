"""A crash fails the calls in flight and replays none of them, the
bystanders included (spec 5), on stdio; the HTTP test is in test_http.py.
(Checked to fail on
a copy of mcpfs broken on purpose.)"""

from conftest import error_text, fake, status, text, thread, tool, wait_until
from test_ask import Background, open_questions, wait_questions


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
