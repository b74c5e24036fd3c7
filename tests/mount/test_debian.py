"""The Debian package (debian/): dpkg-buildpackage -us -uc -b in a temporary
copy of the tree, lintian without an error, dpkg -i, then the installed
mcpfs the way a user mounts it (mount -t fuse.mcpfs CONFIG MOUNTPOINT,
which finds /usr/bin/mcpfs on the system PATH), one demo call run under
the installed supervisor, umount, dpkg --purge, and nothing of the package
left on disk. Root only (dpkg -i); run alone (meson suite 'debian',
tests/run-all.sh runs it after the other suites) since it installs into
the system. About a minute: the build is bounded at 15 minutes, each
dpkg and lintian step at 5."""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, call, read_file, text
from test_install import mcpfs_pids_on, mounted, plain_env, server_of

PKG = 'mcpfs'
# what the package must hold (paths under /)
FILES = ['usr/bin/mcpfs', 'usr/libexec/mcpfs/mcpfs-exec',
         'usr/libexec/mcpfs/demo-server', 'usr/share/man/man1/mcpfs.1.gz',
         'usr/lib/systemd/user/mcpfs.service']
# the HTTP client's module and the HTTP door's (--serve)
MODULES = [re.compile(r'^/usr/lib/[^/]+/mcpfs/mcpfs-http\.so$'),
           re.compile(r'^/usr/lib/[^/]+/mcpfs/mcpfs-serve\.so$')]

pytestmark = pytest.mark.skipif(os.geteuid() != 0,
                                reason='dpkg -i needs root')


def run(cmd, timeout, cwd=None, ok=True):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    if ok:
        assert r.returncode == 0, f'{cmd} exited {r.returncode}:\n' \
            f'{r.stdout[-3000:]}\n{r.stderr[-3000:]}'
    return r


def meson_version():
    m = re.search(r"^\s*version:\s*'([^']+)'",
                  (REPO / 'meson.build').read_text(), re.M)
    assert m, 'meson.build has no project version'
    return m.group(1)


def installed():
    r = run(['dpkg-query', '-W', '-f=${Status}', PKG], 30, ok=False)
    return r.returncode == 0 and 'installed' in r.stdout.split()


@pytest.fixture(scope='module')
def deb(tmp_path_factory):
    """The .deb built from a copy of the tree (without build directories,
    node_modules and .git)."""
    if installed():
        pytest.fail(f'{PKG} is installed already: the test would purge it')
    top = tmp_path_factory.mktemp('deb')
    src = top / 'mcpfs'

    def ignore(d, names):
        if Path(d) == REPO:
            return [n for n in names if n.startswith('build') or
                    n in ('node_modules', '.git')]
        return []
    shutil.copytree(REPO, src, symlinks=True, ignore=ignore)
    run(['dpkg-buildpackage', '-us', '-uc', '-b'], 900, cwd=src)
    v = meson_version()
    arch = run(['dpkg', '--print-architecture'], 30).stdout.strip()
    path = top / f'{PKG}_{v}_{arch}.deb'
    assert path.exists(), sorted(p.name for p in top.iterdir())
    return path


def test_changelog_carries_the_meson_version():
    """The version is meson's; debian/changelog follows (and debian/rules
    stops the build when it does not)."""
    r = run(['dpkg-parsechangelog', '-l', str(REPO / 'debian/changelog'),
             '-S', 'Version'], 30)
    assert r.stdout.strip().split('-')[0] == meson_version()


def test_lintian_reports_no_error(deb):
    changes = deb.with_name(deb.name[:-len('.deb')] + '.changes')
    r = run(['lintian', '--fail-on', 'error', str(changes)], 300, ok=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not [ln for ln in r.stdout.splitlines() if ln.startswith('E:')]


def test_install_mount_call_purge(deb, tmp_path):
    listing = run(['dpkg-deb', '-c', str(deb)], 60).stdout
    paths = ['/' + ln.split()[-1].lstrip('./') for ln in listing.splitlines()]
    for f in FILES:
        assert '/' + f in paths, f'{f} not in the package:\n{listing}'
    for module in MODULES:
        assert any(module.match(p) for p in paths), listing
    # /usr/local/bin comes first on mount(8)'s PATH: it must not hide the
    # package's mcpfs
    assert not os.path.lexists('/usr/local/bin/mcpfs'), \
        '/usr/local/bin/mcpfs (meson install?) would run instead of the ' \
        "package's /usr/bin/mcpfs"
    files = []
    try:
        run(['dpkg', '-i', str(deb)], 300)
        files = [ln for ln in run(['dpkg', '-L', PKG], 30).stdout.splitlines()
                 if os.path.isfile(ln)]
        assert '/usr/bin/mcpfs' in files
        r = run(['/usr/bin/mcpfs', '--version'], 30)
        assert meson_version() in r.stdout + r.stderr
        cfg = tmp_path / 'servers.json'
        cfg.write_text(json.dumps({'mcpServers': {
            'demo': {'command': 'demo-server'}}}))
        mnt = tmp_path / 'mnt'
        mnt.mkdir()
        cmd = ['mount', '-t', 'fuse.mcpfs', str(cfg), str(mnt)]
        with mounted(cmd, mnt, env=plain_env(tmp_path), cwd=tmp_path,
                     how='umount'):
            t = mnt / 'demo' / 't'
            os.mkdir(t)
            assert text(call(t, {'name': 'incr', 'arguments': {}})) == '1'
            sup = json.loads(read_file(t / 'status'))['pid']
            assert os.readlink(f'/proc/{sup}/exe') == \
                '/usr/libexec/mcpfs/mcpfs-exec'
            assert os.readlink(f'/proc/{server_of(sup)}/exe') == \
                '/usr/libexec/mcpfs/demo-server'
            exes = [os.readlink(f'/proc/{p}/exe') for p in mcpfs_pids_on(mnt)]
            assert exes == ['/usr/bin/mcpfs'], exes
            os.rmdir(t)
    finally:
        if installed() or run(['dpkg-query', '-W', PKG], 30,
                              ok=False).returncode == 0:
            run(['dpkg', '--purge', PKG], 300)
    r = run(['dpkg-query', '-W', PKG], 30, ok=False)
    assert r.returncode != 0 or not r.stdout.strip(), r.stdout
    r = run(['dpkg', '-L', PKG], 30, ok=False)
    assert r.returncode == 1, r.stdout
    left = [f for f in files if os.path.lexists(f)]
    assert not left, f'left after dpkg --purge: {left}'
    for d in ('/usr/libexec/mcpfs', '/usr/share/doc/mcpfs'):
        assert not os.path.exists(d), d
