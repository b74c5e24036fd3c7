"""Installing and fitting in (spec 11): meson install into a
temporary DESTDIR and the installed mcpfs run from there (the example
config's bare "demo-server" and the built-in config find the installed
demo server without PATH), the mcpfs(1) page (groff and man -l clean, every
option of --help in it), the systemd user unit (systemd-analyze verify), and
mounting the way mount(8) and mount.fuse3 do it (CONFIG MOUNTPOINT -o ...,
an fstab line)."""

import contextlib
import fcntl
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import (BUILD, MCPFS, REPO, call, children_of, fusermount,
                      is_mounted, is_supervisor, pid_alive, read_file, text,
                      wait_until)

EXAMPLE = REPO / 'examples/servers.json'
MANPAGE = REPO / 'doc/mcpfs.1'


@pytest.fixture(scope='module')
def installed(tmp_path_factory):
    """meson install of the build under test into a temporary DESTDIR.
    Returns {name: path} of the installed files that matter."""
    dest = tmp_path_factory.mktemp('destdir')
    r = subprocess.run(['meson', 'install', '-C', str(BUILD), '--destdir',
                        str(dest), '--no-rebuild', '--quiet'],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    found = {}
    for p in dest.rglob('*'):
        if p.is_file():
            rel = str(p.relative_to(dest))
            for key, pat in (('mcpfs', r'/bin/mcpfs$'),
                             ('exec', r'/libexec/mcpfs/mcpfs-exec$'),
                             ('demo', r'/libexec/mcpfs/demo-server$'),
                             ('door', r'/lib/[^/]*/?mcpfs/mcpfs-serve\.so$'),
                             ('man', r'/share/man/man1/mcpfs\.1$'),
                             ('unit', r'/systemd/user/mcpfs\.service$')):
                if re.search(pat, '/' + rel):
                    found[key] = p
    found['dest'] = dest
    return found


def test_install_puts_every_file_in_place(installed):
    for key in ('mcpfs', 'exec', 'demo', 'door', 'man', 'unit'):
        assert key in installed, f'meson install did not install {key}: ' \
            f'{sorted(str(p) for p in installed["dest"].rglob("*"))}'
    assert os.access(installed['mcpfs'], os.X_OK)
    assert os.access(installed['demo'], os.X_OK)
    # the demo server is a helper of mcpfs, not a command on PATH
    assert not (installed['mcpfs'].parent / 'demo-server').exists()
    assert installed['man'].read_bytes() == MANPAGE.read_bytes()


def mcpfs_pids_on(mnt):
    """Processes whose command line names mnt (the mcpfs serving it)."""
    out = []
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                argv = Path(f'/proc/{d}/cmdline').read_bytes().split(b'\0')
            except OSError:
                continue
            if str(mnt).encode() in argv and b'--mcpfs-exec' not in argv:
                out.append(int(d))
    return out


@contextlib.contextmanager
def mounted(cmd, mnt, env=None, cwd=None, how=None):
    """Run cmd (which mounts mnt, in the foreground or not), wait for
    mnt/.status, yield, then unmount (with umount(8) when how='umount')
    and check that the mcpfs serving it exited."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         env=env, cwd=cwd)
    try:
        def up():
            if is_mounted(mnt):
                return True
            if p.poll() is not None and p.returncode != 0:
                pytest.fail(f'{cmd} exited {p.returncode}: '
                            f'{p.stdout.read().decode(errors="replace")}')
            return False
        wait_until(up, 20, f'{mnt} mounted')
        read_file(mnt / '.status', timeout=10)
        pids = mcpfs_pids_on(mnt)
        yield p
    finally:
        if is_mounted(mnt):
            if how == 'umount':
                r = subprocess.run(['umount', str(mnt)], capture_output=True,
                                   text=True, timeout=30)
            else:
                r = fusermount('-u', str(mnt))
            if r.returncode != 0:
                fusermount('-uz', str(mnt))
        if p.poll() is None:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        p.stdout.close()
    wait_until(lambda: not any(pid_alive(q) for q in pids), 20,
               'the mcpfs of the mount to exit')
    assert not is_mounted(mnt)


def server_of(pid):
    """The server process of a thread whose status shows pid (its
    supervisor's, whose one child is the server)."""
    if not is_supervisor(pid):
        return pid
    kids = wait_until(lambda: children_of(pid), 10, 'the server under '
                      f'supervisor {pid}')
    assert len(kids) == 1, kids
    return kids[0]


def demo_counts(mnt, thread='t'):
    """The demo server counts 1, 2 in one thread; returns its exe path."""
    t = mnt / 'demo' / thread
    os.mkdir(t)
    assert text(call(t, {'name': 'incr', 'arguments': {}})) == '1'
    assert text(call(t, {'name': 'incr', 'arguments': {}})) == '2'
    pid = server_of(json.loads(read_file(t / 'status'))['pid'])
    exe = os.readlink(f'/proc/{pid}/exe')
    os.rmdir(t)
    return exe


def plain_env(tmp):
    """An environment with a PATH that holds neither the build tree nor an
    installed mcpfs, and no user config."""
    return {'PATH': '/usr/bin:/bin', 'HOME': str(tmp),
            'XDG_CONFIG_HOME': str(tmp / 'xdg')}


def test_installed_mcpfs_runs_the_example_config(installed, tmp_path):
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    cmd = [str(installed['mcpfs']), '-f', '-c', str(EXAMPLE), str(mnt)]
    with mounted(cmd, mnt, env=plain_env(tmp_path), cwd=tmp_path):
        st = json.loads(read_file(mnt / '.status'))
        assert st['config'] == str(EXAMPLE)
        assert {'demo', 'everything', 'memory', 'playwright'} <= \
            {s['name'] for s in st['servers']}
        # "command": "demo-server" ran the installed helper, found without
        # PATH
        assert demo_counts(mnt) == str(installed['demo'])


def test_installed_mcpfs_builtin_config(installed, tmp_path):
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    cmd = [str(installed['mcpfs']), str(mnt)]   # daemonizes
    with mounted(cmd, mnt, env=plain_env(tmp_path), cwd=tmp_path):
        st = json.loads(read_file(mnt / '.status'))
        assert st['config'] == '(built-in)'
        assert [s['name'] for s in st['servers']] == ['demo']
        assert demo_counts(mnt) == str(installed['demo'])


def test_build_tree_runs_the_example_config_as_written(tmp_path):
    """The README's first command builds; then examples/servers.json
    works from the build tree: demo-server is build/examples'."""
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    cmd = [str(MCPFS), '-c', str(EXAMPLE), str(mnt)]
    with mounted(cmd, mnt, env=plain_env(tmp_path), cwd=tmp_path):
        assert demo_counts(mnt) == str(BUILD / 'examples/demo-server')


# ---------------------------------------------------------------- man page

def test_manpage_formats_without_warnings():
    r = subprocess.run(['groff', '-man', '-Tutf8', '-ww', '-z',
                        str(MANPAGE)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stderr == '', r.stderr


def man_text(page):
    if not shutil.which('man'):
        pytest.skip('man (man-db) is not installed')
    r = subprocess.run(['man', '-l', str(page)], capture_output=True,
                       text=True, timeout=60,
                       env=dict(os.environ, MANWIDTH='1000', MAN_KEEP_FORMATTING='',
                                MANPAGER='cat', PAGER='cat'))
    assert r.returncode == 0 and r.stderr == '', r.stderr
    return re.sub(r'.\x08', '', r.stdout)


def test_manpage_covers_every_option_and_topic():
    page = man_text(MANPAGE)
    for section in ('NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS',
                    'THE TREE', 'CONFIGURATION', 'TRANSPORTS',
                    'AUTHORIZATION', 'EXIT STATUS', 'FILES', 'EXAMPLES',
                    'SEE ALSO'):
        assert re.search(rf'^{section}$', page, re.M), section
    helptext = subprocess.run([str(MCPFS), '--help'], capture_output=True,
                              text=True, timeout=10).stdout
    options = set(re.findall(r'(?<![\w-])(--?[A-Za-z][\w-]*)', helptext))
    options -= {'-u'}   # of fusermount3 in the last line
    assert {'-c', '--config', '--project', '-f', '--log', '--idle-timeout',
            '--call-timeout', '--max-sessions', '-o', '--version',
            '--help'} <= options
    for opt in sorted(options):
        assert re.search(rf'(?<![\w-]){re.escape(opt)}(?![\w-])', page), \
            f'{opt} (from --help) is not in mcpfs(1)'
    # the tree, spec 9 and 10
    for name in ('.status', 'call', 'tools.json', 'status', 'stderr',
                 'events', 'ctl', 'tools/', 'result/', 'resources/',
                 'prompts/', 'requests/', 'resources.json', 'prompts.json',
                 'auth'):
        assert name in page, name
    # the config keys and the dialects
    for key in ('mcpServers', 'servers', 'command', 'args', 'env', 'envFile',
                'cwd', 'url', 'headers', 'type', 'roots', 'timeout',
                'idleTimeout', 'disabled', 'warm', 'elicitation', 'sampling',
                'oauth', 'era', '${VAR:-default}', '${env:VAR}',
                '${workspaceFolder}', '${input:ID}',
                'claude_desktop_config.json', '~/.claude.json', '.mcp.json',
                '~/.cursor/mcp.json', '.vscode/mcp.json', 'fuse.mcpfs',
                '/etc/fstab', 'mcpfs.service'):
        assert re.search(rf'(?<![\w-]){re.escape(key)}(?![\w-])', page), \
            f'{key} is not in mcpfs(1)'


def test_installed_manpage_reads_with_man(installed):
    assert 'mcpfs - MCP servers as files' in man_text(installed['man'])


# ---------------------------------------------------------------- systemd

def test_systemd_user_unit_verifies(installed, tmp_path):
    if not shutil.which('systemd-analyze'):
        pytest.skip('systemd-analyze is not installed (no systemd here)')
    unit = installed['unit'].read_text()
    bindir = os.path.dirname(str(installed['mcpfs'])[len(
        str(installed['dest'])):])
    assert f'ExecStart={bindir}/mcpfs -f %h/mcp' in unit, unit
    assert '[Install]' in unit and 'WantedBy=default.target' in unit
    # verify checks that ExecStart exists: point it at the DESTDIR copy
    d = tmp_path / 'units'
    d.mkdir()
    (d / 'mcpfs.service').write_text(
        unit.replace(f'{bindir}/mcpfs', str(installed['mcpfs'])))
    rt = tmp_path / 'run'
    rt.mkdir(mode=0o700)
    r = subprocess.run(['systemd-analyze', '--user', 'verify',
                        str(d / 'mcpfs.service')], capture_output=True,
                       text=True, timeout=120,
                       env=dict(os.environ, XDG_RUNTIME_DIR=str(rt),
                                MANPATH=str(installed['man'].parents[1])))
    assert r.returncode == 0 and r.stdout + r.stderr == '', \
        r.stdout + r.stderr


# ---------------------------------------------------------------- mount -t

def need_root_mount():
    if os.geteuid() != 0:
        pytest.skip('mount(8) of a FUSE type needs root here')
    if not shutil.which('mount.fuse3') and not os.path.exists(
            '/sbin/mount.fuse3'):
        pytest.skip('mount.fuse3 (Debian: fuse3) is not installed')


def test_two_positionals_are_config_and_mountpoint(tmp_path):
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    cmd = [str(MCPFS), '-f', str(EXAMPLE), str(mnt), '-o',
           'rw,noatime,nosuid,nodev,defaults,noauto,nofail,_netdev,user,'
           'x-systemd.automount,comment=mcp']
    with mounted(cmd, mnt, env=plain_env(tmp_path), cwd=tmp_path):
        st = json.loads(read_file(mnt / '.status'))
        assert st['config'] == str(EXAMPLE)
        assert demo_counts(mnt).endswith('/demo-server')


def test_three_positionals_refused(tmp_path):
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    r = subprocess.run([str(MCPFS), '-f', str(EXAMPLE), str(mnt), 'extra'],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 2
    assert 'extra' in r.stderr
    assert not is_mounted(mnt)


def test_mount_fuse3_type_fuse_mcpfs(tmp_path):
    """mount.fuse3 CONFIG MNT -t fuse.mcpfs: what mount -t fuse.mcpfs and
    an fstab line run; mount.fuse3 finds mcpfs on PATH (a symlink here:
    mount(8) itself resets PATH to the system's)."""
    need_root_mount()
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    (bindir / 'mcpfs').symlink_to(MCPFS)
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    helper = shutil.which('mount.fuse3') or '/sbin/mount.fuse3'
    env = dict(plain_env(tmp_path), PATH=f'{bindir}:/usr/sbin:/usr/bin:'
               '/sbin:/bin')
    cmd = [helper, str(EXAMPLE), str(mnt), '-t', 'fuse.mcpfs', '-o',
           'rw,noatime,nosuid,nodev,nofail,_netdev']
    with mounted(cmd, mnt, env=env, cwd=tmp_path, how='umount'):
        line = [m for m in Path('/proc/mounts').read_text().splitlines()
                if m.split()[1] == str(mnt)]
        assert line and line[0].split()[2] == 'fuse.mcpfs', line
        assert 'noatime' in line[0].split()[3].split(','), line
        assert demo_counts(mnt).endswith('/demo-server')


def test_mount_and_fstab_line(tmp_path):
    """mount(8) -t fuse with PROGRAM#CONFIG (mount resets PATH, so the
    build's mcpfs is named in the source), then the same as an fstab line
    read with mount --fstab; umount ends mcpfs."""
    need_root_mount()
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    src = f'{MCPFS}#{EXAMPLE}'
    cmd = ['mount', '-t', 'fuse', src, str(mnt), '-o',
           'defaults,noauto,nofail,_netdev,noatime']
    with mounted(cmd, mnt, env=plain_env(tmp_path), cwd=tmp_path,
                 how='umount'):
        assert demo_counts(mnt).endswith('/demo-server')
    fstab = tmp_path / 'fstab'
    fstab.write_text(f'# test\n{src} {mnt} fuse defaults,noauto,nofail 0 0\n')
    cmd = ['mount', '--fstab', str(fstab), str(mnt)]
    with mounted(cmd, mnt, env=plain_env(tmp_path), cwd=tmp_path,
                 how='umount'):
        st = json.loads(read_file(mnt / '.status'))
        assert st['config'] == str(EXAMPLE)
        assert demo_counts(mnt).endswith('/demo-server')


@contextlib.contextmanager
def on_system_path(mcpfs):
    """mcpfs on mount(8)'s PATH: the system's own if it has one, else a
    symlink /usr/local/bin/mcpfs to this one (root only) while the block
    runs, under a lock (the plain and the ASan suites run side by side)."""
    sys_path = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    link = Path('/usr/local/bin/mcpfs')
    with open('/run/lock/mcpfs-test-system-path', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if shutil.which('mcpfs', path=sys_path):
            yield shutil.which('mcpfs', path=sys_path)
            return
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(mcpfs)
        try:
            yield str(link)
        finally:
            link.unlink()


def test_mount_t_fuse_mcpfs_from_system_path(installed, tmp_path):
    """The real `mount -t fuse.mcpfs`, with an mcpfs on the system PATH that
    mount(8) uses (this build's, installed into a DESTDIR)."""
    need_root_mount()
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    cmd = ['mount', '-t', 'fuse.mcpfs', str(EXAMPLE), str(mnt)]
    with on_system_path(installed['mcpfs']) as exe:
        with mounted(cmd, mnt, env=plain_env(tmp_path), cwd=tmp_path,
                     how='umount') as p:
            assert (mnt / 'demo').is_dir()
            # mount(8) names mnt too, and the mount is there before it
            # has exited (under load it was still running here, and was
            # counted as a server): wait for it, as the shell would
            assert p.wait(20) == 0
            pids = mcpfs_pids_on(mnt)
            assert [os.path.realpath(f'/proc/{p}/exe') for p in pids] == \
                [os.path.realpath(exe)]
            assert demo_counts(mnt) == str(installed['demo'])


# ---------------------------------------------------------------- deps

def build_packages():
    """The packages of `sh tests/setup-deps.sh build`."""
    src = (REPO / 'tests/setup-deps.sh').read_text()
    m = re.search(r'^BUILD_PKGS="([^"]*)"', src, re.M)
    assert m, 'tests/setup-deps.sh has no BUILD_PKGS'
    return m.group(1).split()


def test_build_deps_alone_build_and_run_the_demo(tmp_path):
    """The README's first command: with only the .pc files of the build
    packages visible (and no cmake fallback), meson configures, mcpfs and
    demo-server build, and examples/demo.sh runs against the built-in
    config."""
    if not shutil.which('dpkg'):
        pytest.skip('not a Debian system (no dpkg)')
    pc = tmp_path / 'pc'
    pc.mkdir()
    for pkg in build_packages():
        r = subprocess.run(['dpkg', '-L', pkg], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, f'{pkg} is not installed: {r.stderr}'
        for f in r.stdout.split():
            if f.endswith('.pc') and not (pc / os.path.basename(f)).exists():
                (pc / os.path.basename(f)).symlink_to(f)
    native = tmp_path / 'native.ini'
    native.write_text("[binaries]\ncmake = '/bin/false'\n")
    bd = tmp_path / 'build'
    env = dict(os.environ, PKG_CONFIG_LIBDIR=str(pc))
    r = subprocess.run(['meson', 'setup', '--native-file', str(native),
                        str(bd), str(REPO)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    assert 'cmocka found: NO' in r.stdout
    r = subprocess.run(['ninja', '-C', str(bd), 'mcpfs',
                        'examples/demo-server'], capture_output=True,
                       text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    mnt = tmp_path / 'mnt'
    mnt.mkdir()
    with mounted([str(bd / 'mcpfs'), str(mnt)], mnt,
                 env=plain_env(tmp_path), cwd=tmp_path):
        r = subprocess.run(['sh', str(REPO / 'examples/demo.sh'), str(mnt)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        assert '"text":"42"' in r.stdout.replace(' ', ''), r.stdout
