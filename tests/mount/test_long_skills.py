"""A long skill (spec 6: every listing's names indexed, counts and sizes
bounded; spec 15: skills): one skill of 100,000 files, from
tests/fake/skills_server.py --many, is listed whole and in linear time,
each file name once, while another server's thread answers as usual.

The figures (the `ls -R` time, and the slowest `cat status` of the other
server meanwhile) are printed, never asserted (run with -s to see them):
a timed assertion fails on a loaded machine.
"""

import ctypes
import os
import subprocess
import sys
import threading
import time

from conftest import REPO, fake, slacked, status, thread, wait_until

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


class _Dirent(ctypes.Structure):
    _fields_ = [('d_ino', ctypes.c_uint64), ('d_off', ctypes.c_int64),
                ('d_reclen', ctypes.c_ushort), ('d_type', ctypes.c_ubyte),
                ('d_name', ctypes.c_char * 256)]


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.opendir.restype = ctypes.c_void_p
    libc.opendir.argtypes = [ctypes.c_char_p]
    libc.readdir64.restype = ctypes.POINTER(_Dirent)
    libc.readdir64.argtypes = [ctypes.c_void_p]
    libc.telldir.restype = ctypes.c_long
    libc.telldir.argtypes = [ctypes.c_void_p]
    libc.seekdir.argtypes = [ctypes.c_void_p, ctypes.c_long]
    libc.closedir.argtypes = [ctypes.c_void_p]
    return libc


def _read(libc, d, n):
    """Up to n names read from the open directory d."""
    out = []
    while len(out) < n:
        e = libc.readdir64(d)
        if not e:
            break
        out.append(e.contents.d_name.decode())
    return out


def test_a_folder_read_a_part_at_a_time(mcpfs_mount, tmp_path):
    """A folder of 20,000 files is added to at each readdir, from where
    the last one ended: libc's readdir gives each name once, a seekdir
    back gives the same names again, and a restart of the thread between
    two reads (a new listing, the old one's tree still read) changes
    nothing of what the open folder lists."""
    n = 20000
    (tmp_path / 'none').mkdir()
    m = mcpfs_mount({'k': {'command': sys.executable,
                           'args': [str(SERVER), str(tmp_path / 'none'),
                                    '--many', str(n)]}})
    t = thread(m, 'k')
    gen = status(t)['generation']
    libc = _libc()
    d = libc.opendir(str(t / 'skills/many').encode())
    assert d, ctypes.get_errno()
    try:
        first = _read(libc, d, 2000)
        pos = libc.telldir(d)
        second = _read(libc, d, 3000)
        subprocess.run(['sh', '-c', 'echo restart > ctl'], cwd=t,
                       check=True)
        wait_until(lambda: status(t)['generation'] == gen + 1, 30,
                   'restart')
        rest = _read(libc, d, n + 10)
        libc.seekdir(d, pos)
        again = _read(libc, d, 3000)
    finally:
        libc.closedir(d)
    names = first + second + rest
    assert len(names) == n + 3, len(names)      # ., .., SKILL.md
    assert len(set(names)) == len(names)
    assert set(names) == ({'.', '..', 'SKILL.md'} |
                          {f'f{i:06d}.md' for i in range(n)})
    assert again == second
    # the restarted thread lists its new listing the same
    assert len(os.listdir(t / 'skills/many')) == n + 1
