"""The latest-reply table is per thread (spec 4): a shell that writes on
thread A and reads thread B from a fresh open reads B's reply, and a thread
nobody used reads nothing, not another thread's reply. (Checked to fail on
a copy of mcpfs broken on purpose.)"""

import json
import os
import subprocess

from conftest import echo_req, fake, run_with_deadline, text, thread, tool


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


def test_first_write_on_another_thread_keeps_this_threads_writers(mcpfs_mount):
    """mcpfs remembers who wrote which call per thread; the first write on
    a thread nobody wrote on before forgets the threads that are gone,
    and only those. A shell writes X on B, the test writes Y on B, the
    shell then writes on the fresh thread A and reads B: its own X, not Y
    (the latest of B)."""
    m = mcpfs_mount({'a': fake()})
    a, b = thread(m, 'a', 'A'), thread(m, 'a', 'B')
    p = subprocess.Popen(['sh', '-c', 'echo "$1" > B/call && echo sent && '
                          'read go && echo "$2" > A/call && cat B/call',
                          'sh', echo_req('X'), echo_req('on A')],
                         cwd=m.path / 'a', stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert run_with_deadline(p.stdout.readline, 30,
                                 'the shell writes X') == b'sent\n'
        assert text(tool(b, 'echo', text='Y')) == 'Y'
        out, err = p.communicate(b'go\n', timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert (p.returncode, err) == (0, b'')
    assert text(json.loads(out)) == 'X'
    assert text(tool(a, 'echo', text='A again')) == 'A again'
