"""The log file (spec 6): created 0600, never opened through a symbolic
link (the base code created it 0644 and followed a link), and a URL is
logged by its origin only, never its path or query (the base code's -d log
showed the OAuth endpoints' paths, where hosted servers put keys)."""

import os
import stat

from auth_util import authserver  # noqa: F401 - a fixture
from conftest import fake, text, tool
from test_auth import echo, first_sign_in, mount, thread


def test_log_created_0600(mcpfs_mount, tmp_path):
    log = tmp_path / 'fresh.log'
    old = os.umask(0o022)
    try:
        m = mcpfs_mount({'a': fake()}, args=('--log', str(log)))
    finally:
        os.umask(old)
    os.mkdir(m.path / 'a' / 't')
    assert text(tool(m.path / 'a' / 't', 'echo', text='x')) == 'x'
    assert log.stat().st_size > 0
    assert stat.S_IMODE(log.stat().st_mode) == 0o600


def test_log_symlink_not_followed(mcpfs_mount, tmp_path):
    target = tmp_path / 'target'
    target.write_text('keep\n')
    os.chmod(target, 0o644)
    link = tmp_path / 'link.log'
    os.symlink(target, link)
    m = mcpfs_mount({'a': fake()}, args=('--log', str(link)))
    os.mkdir(m.path / 'a' / 't')
    assert text(tool(m.path / 'a' / 't', 'echo', text='x')) == 'x'
    assert target.read_text() == 'keep\n'
    assert 'symbolic link' in m.stderr.read_text()


def test_log_names_urls_by_origin(mcpfs_mount, authserver, tmp_path):
    srv = authserver('--expires-in', 600)
    m = mount(mcpfs_mount, tmp_path, srv)
    t = thread(m, 'h')
    first_sign_in(m, srv, t)
    echo(t)
    log = m.log.read_text()
    assert srv.base in log                     # origins are there
    for path in ('/.well-known/', '/token', '/register', '/authorize',
                 '/mcp'):
        assert srv.base + path not in log, path
