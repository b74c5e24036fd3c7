"""The latest-reply table is per thread (spec 4): a shell that writes on
thread A and reads thread B from a fresh open reads B's reply, and a thread
nobody used reads nothing, not another thread's reply. (Checked to fail on
a copy of mcpfs broken on purpose.)"""

import json
import os
import subprocess

from conftest import echo_req, fake, text, thread, tool


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
