"""A long skill (spec 6: every listing's names indexed, counts and sizes
bounded; spec 15: skills): one skill of 100,000 files, from
tests/fake/skills_server.py --many, is listed whole and in linear time,
each file name once, while another server's thread answers as usual.

The figures (the `ls -R` time, and the slowest `cat status` of the other
server meanwhile) are printed, never asserted (run with -s to see them):
a timed assertion fails on a loaded machine.
"""

import subprocess
import sys
import threading
import time

from conftest import REPO, fake, slacked, status, thread

SERVER = REPO / 'tests/fake/skills_server.py'
FILES = 100000


def test_a_skill_of_100000_files(mcpfs_mount, tmp_path):
    (tmp_path / 'none').mkdir()             # no skill on disk
    m = mcpfs_mount({
        'k': {'command': sys.executable,
              'args': [str(SERVER), str(tmp_path / 'none'), '--many',
                       str(FILES)]},
        'a': fake()})
    other = thread(m, 'a')
    status(other)
    t = thread(m, 'k')
    slowest = [0.0]
    stop = threading.Event()

    def poll_other():
        while not stop.is_set():
            t0 = time.monotonic()
            with open(other / 'status', 'rb') as f:
                f.read()
            slowest[0] = max(slowest[0], time.monotonic() - t0)
            time.sleep(0.01)

    poller = threading.Thread(target=poll_other, daemon=True)
    poller.start()
    t0 = time.monotonic()
    try:
        r = subprocess.run(['ls', '-R', 'skills/'], cwd=t,
                           capture_output=True, timeout=slacked(300))
    finally:
        took = time.monotonic() - t0
        stop.set()
        poller.join()
    print(f'\nls -R skills/ of a {FILES}-file skill: {took:.2f} s; the '
          f'other server\'s slowest cat status meanwhile: '
          f'{slowest[0] * 1000:.0f} ms')
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.decode().splitlines()
    names = [ln for ln in lines if ln.startswith('f') and ln.endswith('.md')]
    # every file once, SKILL.md too
    assert len(names) == FILES, len(names)
    assert len(set(names)) == FILES
    assert lines.count('SKILL.md') == 1
    # a file opens, and is what the server serves
    assert (t / 'skills/many/f054321.md').read_bytes() == b'file 54321\n'
    assert (t / 'skills/many/SKILL.md').read_text().startswith(
        '---\nname: many\n')
    assert status(other)['state'] == 'ready'
