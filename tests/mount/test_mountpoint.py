"""A second mcpfs on a mountpoint that already has one is refused (spec
1): a message naming the mountpoint and a non-zero exit before it
daemonizes, and the first mount goes on as before."""

import json
import subprocess
import time

import pytest

from conftest import MCPFS, fake, read_file, slacked, text, tool


def mounts_on(path):
    n = 0
    with open('/proc/self/mountinfo') as f:
        for line in f:
            if line.split()[4].encode().decode('unicode_escape') == str(path):
                n += 1
    return n


def second_mount(path, config, foreground=True):
    cmd = [str(MCPFS), *(['-f'] if foreground else []), '-c', str(config),
           str(path)]
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=slacked(20),
                          stdin=subprocess.DEVNULL)


class Manual:
    """An mcpfs run by hand on a path of our choosing (-f)."""

    def __init__(self, path, config):
        self.path = path
        self.p = subprocess.Popen([str(MCPFS), '-f', '-c', str(config),
                                   str(path)], stdin=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        end = time.monotonic() + slacked(15)
        while mounts_on(path) == 0 and self.p.poll() is None and \
                time.monotonic() < end:
            time.sleep(0.05)

    def stop(self):
        subprocess.run(['fusermount3', '-u', str(self.path)],
                       timeout=slacked(20))
        try:
            self.p.wait(slacked(20))
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        err = self.p.stderr.read()
        self.p.stderr.close()
        return self.p.returncode, err


@pytest.mark.parametrize('foreground', [True, False])
def test_second_mount_on_a_mounted_point_is_refused(mcpfs_mount, foreground):
    m = mcpfs_mount({'a': fake()})
    assert mounts_on(m.path) == 1
    p = second_mount(m.path, m.config, foreground)
    assert p.returncode != 0, p
    assert 'already mounted' in p.stderr and str(m.path) in p.stderr, \
        p.stderr
    assert mounts_on(m.path) == 1
    # the first mount is untouched
    assert json.loads(read_file(m.path / '.status'))
    assert text(tool(m.path / 'a', 'echo', text='still here')) == \
        'still here'


def test_escaped_mountpoint_and_a_prefix_of_it(mcpfs_mount, tmp_path):
    m = mcpfs_mount({'a': fake()})
    spaced = tmp_path / 'mnt with space'   # \040 in mountinfo
    prefix = tmp_path / 'mnt with'         # a prefix of it: not mounted
    spaced.mkdir()
    prefix.mkdir()
    first = Manual(spaced, m.config)
    try:
        assert first.p.poll() is None and mounts_on(spaced) == 1
        p = second_mount(spaced, m.config)
        assert p.returncode != 0 and 'already mounted' in p.stderr, p
        assert mounts_on(spaced) == 1
        other = Manual(prefix, m.config)
        try:
            assert other.p.poll() is None, other.p.stderr.read()
            assert mounts_on(prefix) == 1
        finally:
            rc, err = other.stop()
        assert rc == 0, err
    finally:
        rc, err = first.stop()
    assert rc == 0, err
