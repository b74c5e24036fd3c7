"""Long listings (spec 6, "the loop never busy for long"; spec 9, tools/
and tools.json; spec 13): a listing page of hundreds of kilobytes is read
an item at a time and a listing of thousands printed an item at a time
(sessions/protocol/pages.c), so that other threads answer meanwhile.
What a user sees must not change: the document, its order, its numbers as sent, the
tool policy, pagination, over stdio and HTTP; and a thread restarted in
the middle of one is no crash and no leak (the ASan run).

How long another server's status waits meanwhile is a benchmark row
(tests/bench, row 9b), not a timed test.
"""
import json
import os
import threading
import time

from conftest import fake, read_file, slacked, status, text, thread, tool, \
    wait_until, write_file
from test_http import fake_http  # noqa: F401 - a fixture
from test_names_and_inodes import hostile

NTOOLS = 20000
# A listing is one call, its pages, printing and index included, under
# mcpfs's call timeout (60 s by default). Tens of thousands of tools take
# seconds, but near a minute under ASan on a loaded machine (a stress run
# saw the 60,000 below time out): every mount here gives its listings as
# long as the test waits for them.
LONG = ('--call-timeout', slacked(120))


def names(t):
    doc = json.loads(read_file(t / 'tools.json', timeout=120))
    # the listing, or what it failed with (and the thread's state) if not
    assert 'tools' in doc, (doc, status(t))
    return [x['name'] for x in doc['tools']]


def test_long_pages_make_the_document_short_pages_make(mcpfs_mount):
    # the same 20,000 tools in pages of 7,000 (each line about 1.3 MB:
    # read a slice at a time) and in pages of 40 (each a short line,
    # parsed whole): the two tools.json are the same bytes
    m = mcpfs_mount({'big': fake('--tools', NTOOLS, '--page-size', 7000),
                     'small': fake('--tools', NTOOLS, '--page-size', 40)},
                    args=LONG)
    b, s = thread(m, 'big'), thread(m, 'small')
    doc = read_file(b / 'tools.json', timeout=120)
    assert doc == read_file(s / 'tools.json', timeout=120)
    listed = [x['name'] for x in json.loads(doc)['tools']]
    assert len(listed) >= NTOOLS and listed[-1] == f't{NTOOLS - 1}'
    assert len(set(listed)) == len(listed)
    assert len(os.listdir(b / 'tools')) == len(listed)
    # a tool from the last page runs
    assert text(tool(b, f't{NTOOLS - 1}', text='end')) == 'end'
    assert 'notes' not in status(b) or not status(b)['notes']
    # the long pages took the sliced path, the short ones did not
    log = m.output()
    assert 'server big thread t: tools/list page 3 (' in log
    assert 'server small thread t: tools/list page' not in log


def test_the_policy_applies_to_a_long_page(mcpfs_mount):
    m = mcpfs_mount({'a': dict(fake('--tools', NTOOLS, '--page-size',
                                    NTOOLS + 100),
                               denyTools=['t1?', 't19999'])}, args=LONG)
    t = thread(m)
    listed = names(t)
    assert 't5' in listed and 't100' in listed
    assert not {'t10', 't15', 't19', 't19999'} & set(listed)
    assert 't19998' in listed
    assert not (t / 'tools' / 't19999').exists()


def test_a_long_page_keeps_numbers_and_strings_as_sent(mcpfs_mount,
                                                       tmp_path):
    # one page of 6,000 tools (about 600 KB), raw: numbers the way the
    # server wrote them, an escaped NUL in a description
    items = [b'{"name":"n%d","description":"a\\u0000b","inputSchema":'
             b'{"type":"object","properties":{"x":{"type":"number",'
             b'"maximum":1.50,"minimum":9007199254740993}}}}' % i
             for i in range(6000)]
    m = mcpfs_mount({'h': hostile(tmp_path, b'[' + b','.join(items) + b']')},
                    args=LONG)
    t = thread(m, 'h')
    doc = read_file(t / 'tools.json', timeout=60)
    assert doc.count(b'"maximum":\t1.50') == 6000
    assert doc.count(b'9007199254740993') == 6000
    assert doc.count(b'"a\\u0000b"') == 6000
    tools = json.loads(doc)['tools']
    assert [x['name'] for x in tools] == [f'n{i}' for i in range(6000)]
    assert text(tool(t, 'n5999')) == 'called n5999'


def test_a_long_page_over_http(mcpfs_mount, fake_http):  # noqa: F811
    srv = fake_http('--extra-tools', NTOOLS, '--page-size', 9000)
    m = mcpfs_mount({'h': {'url': srv.url}}, args=LONG)
    t = thread(m, 'h')
    listed = names(t)
    assert listed[-1] == f't{NTOOLS - 1}' and 'echo' in listed
    assert len(listed) == len(set(listed)) >= NTOOLS
    assert len(os.listdir(t / 'tools')) == len(listed)


def test_a_restart_in_the_middle_of_a_long_listing(mcpfs_mount):
    # the listing under way when its thread restarts fails or completes,
    # never crashes mcpfs; the thread lists again after. Where the restart
    # lands (reading a page, printing, indexing) varies run to run: every
    # outcome must hold.
    m = mcpfs_mount({'a': fake('--tools', 60000, '--page-size', 30000)},
                    args=LONG)
    t = thread(m)
    for delay in (0.0, 0.05, 0.2, 0.5):
        box = {}

        def reader():
            try:
                box['doc'] = read_file(t / 'tools.json', timeout=120)
            except OSError as e:
                box['err'] = e.errno
        th = threading.Thread(target=reader)
        th.start()
        if delay:
            time.sleep(delay)  # where the restart lands, not a wait
        write_file(t / 'ctl', 'restart\n')
        th.join(120)
        assert not th.is_alive()
        if 'doc' in box:  # the listing, or why it failed
            doc = json.loads(box['doc'])
            assert len(doc.get('tools', ())) >= 60000 or \
                doc['error']['message'] == 'session restarted', doc
        else:
            assert box['err'], box
    wait_until(lambda: status(t)['state'] in ('ready', 'exited'), 30,
               'the thread to settle')
    assert len(names(t)) >= 60000
    assert text(tool(t, 'echo', text='after')) == 'after'
