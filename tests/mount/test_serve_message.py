"""`mcpfs serve` against a mount it cannot reach (spec 14): the message
names the socket path it looked for. The path was an uninitialized
buffer when the socket's directory was missing (serve_socket_path failed
before writing it), so the message showed stack memory: another mount's
path read from /proc/self/mountinfo a moment before."""
import os
import subprocess

from conftest import MCPFS, fake


def test_missing_socket_names_the_path(mcpfs_mount, tmp_path):
    rt = tmp_path / 'rt'
    rt.mkdir(mode=0o700)
    m = mcpfs_mount({'a': fake()}, env={'XDG_RUNTIME_DIR': str(rt)})
    assert (rt / 'mcpfs').is_dir()
    # a relay whose runtime directory is another: no socket there
    other = tmp_path / 'other'
    env = dict(os.environ, XDG_RUNTIME_DIR=str(other))
    r = subprocess.run([str(MCPFS), 'serve', str(m.path)],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=20, env=env)
    assert r.returncode == 1, r
    assert 'does not listen (No such file or directory at ' + \
        str(other / 'mcpfs') + '/mcpfs-' in r.stderr, r.stderr
    # and where the directory is there but holds no socket
    (other / 'mcpfs').mkdir(parents=True, mode=0o700)
    other.chmod(0o700)
    r = subprocess.run([str(MCPFS), 'serve', str(m.path)],
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=20, env=env)
    assert r.returncode == 1, r
    assert 'at ' + str(other / 'mcpfs') + '/mcpfs-' in r.stderr, r.stderr
    assert r.stderr.count('\n') == 1, r.stderr
