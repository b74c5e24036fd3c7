"""A reload applies exactly the tool policy it gives (spec 13): a list that
grows, one of the same length with another glob, an empty allowTools
(which allows nothing, unlike none at all) each take effect at once on the
running session, and the log says so once per change; a reload that
leaves the policy as it was keeps the session's tools listing (no new
tools/list reaches the server) and logs no change."""

import os

from conftest import status, wait_until
from test_policy import fake, lists_in, names


def test_reload_applies_the_policy_it_gives(mcpfs_mount, tmp_path):
    log = tmp_path / 'fake.log'
    m = mcpfs_mount({'f': fake(log, denyTools=['t0'])})
    t = m.path / 'f' / 't'
    os.mkdir(t)

    def reload(want, **policy):
        m.reload({'f': fake(log, **policy)})
        wait_until(lambda: status(t)['policy'] == want, 20, f'{want}')
        return names(t / 'tools.json')

    assert {'t1', 't2', 'echo'} <= names(t / 'tools.json')
    assert 't0' not in names(t / 'tools.json')
    # a longer list
    got = reload({'denyTools': ['t0', 't1'], 'readOnly': False},
                 denyTools=['t0', 't1'])
    assert not {'t0', 't1'} & got and {'t2', 'echo'} <= got
    # as long, another glob
    got = reload({'denyTools': ['t0', 't2'], 'readOnly': False},
                 denyTools=['t0', 't2'])
    assert not {'t0', 't2'} & got and {'t1', 'echo'} <= got
    # allowTools: [] allows no tool at all
    got = reload({'allowTools': [], 'denyTools': ['t0', 't2'],
                  'readOnly': False}, allowTools=[], denyTools=['t0', 't2'])
    assert got == set()
    got = reload({'denyTools': ['t0', 't2'], 'readOnly': False},
                 denyTools=['t0', 't2'])
    assert {'t1', 'echo'} <= got
    # the same policy again (roots changed, not a launch field): the
    # listing is kept
    before = lists_in(log)
    m.reload({'f': dict(fake(log, denyTools=['t0', 't2']), roots=['/tmp'])})
    wait_until(lambda: 'roots changed' in m.output(), 20, 'the reload')
    assert names(t / 'tools.json') == got
    assert lists_in(log) == before
    # four changes, four lines: the same policy again was none
    assert m.log.read_text().count('server f: tool policy changed') == 4
