"""The HTTP transports are a module (mcpfs-http.so, doc/architecture.md):
an mcpfs that has run no HTTP session has not loaded it, nor libcurl; the
first HTTP session loads it; an mcpfs that cannot find it fails HTTP
starts with a clear message and keeps serving stdio."""

import shutil
import subprocess

import pytest

import conftest
from conftest import fake, text, thread, tool
from test_http import entry, fake_http  # noqa: F401 (fixture)


def mapped(m):
    """The files mapped into the running mcpfs."""
    with open(f'/proc/{m.proc.pid}/maps') as f:
        return {line.split()[-1] for line in f if '/' in line}


def loaded(m, name):
    return any(name in p for p in mapped(m))


def test_module_and_libcurl_load_at_the_first_http_session(mcpfs_mount,
                                                           fake_http):
    srv = fake_http()
    m = mcpfs_mount({'s': fake(), 'h': entry(srv)})
    t = thread(m, 's')
    assert text(tool(t, 'echo', text='stdio')) == 'stdio'
    assert b'"h"' in conftest.read_file(m.path / '.status')
    # listing the url server (its auth file among the names) loads nothing
    assert 'auth' in [p.name for p in (m.path / 'h').iterdir()]
    assert 'auth' not in [p.name for p in (m.path / 's').iterdir()]
    assert not loaded(m, 'mcpfs-http.so')
    assert not loaded(m, 'libcurl')
    assert not loaded(m, 'libcrypto')  # the OAuth client's, in the module
    h = thread(m, 'h')
    assert text(tool(h, 'echo', text='http')) == 'http'
    assert loaded(m, 'mcpfs-http.so')
    assert loaded(m, 'libcurl')
    assert loaded(m, 'libcrypto')


def test_missing_module_fails_http_clearly(mcpfs_mount, fake_http,
                                           tmp_path, monkeypatch):
    lonely = tmp_path / 'bin'
    lonely.mkdir()
    shutil.copy2(conftest.MCPFS, lonely / 'mcpfs')
    monkeypatch.setattr(conftest, 'MCPFS', lonely / 'mcpfs')
    srv = fake_http()
    m = mcpfs_mount({'s': fake(), 'h': entry(srv)})
    h = thread(m, 'h')
    reply = conftest.call(h, {'name': 'echo', 'arguments': {'text': 'x'}})
    assert 'cannot load the HTTP module mcpfs-http.so' in \
        reply['error']['message'], reply
    st = conftest.status(h / 'status')
    assert 'cannot load the HTTP module' in st['last_error']
    t = thread(m, 's')
    assert text(tool(t, 'echo', text='still here')) == 'still here'


def defined_functions(path):
    """The functions a binary exports (nm -D --defined-only)."""
    out = subprocess.run(['nm', '-D', '--defined-only', str(path)],
                         capture_output=True, text=True, check=True).stdout
    return [ln.split()[-1] for ln in out.splitlines()
            if len(ln.split()) == 3 and ln.split()[1] in 'TtWiu']


@pytest.mark.skipif(not shutil.which('nm'), reason='no nm (binutils)')
def test_module_boundary_is_an_interface():
    """The module reaches the core through struct transport_env only:
    mcpfs exports (next to) nothing, the module exports its entry alone
    and needs no symbol of mcpfs."""
    exe = conftest.MCPFS
    so = exe.parent / 'mcpfs-http.so'
    assert len(defined_functions(exe)) <= 10, defined_functions(exe)
    assert defined_functions(so) == [], defined_functions(so)
    out = subprocess.run(['nm', '-D', '--defined-only', str(so)],
                         capture_output=True, text=True, check=True).stdout
    # (an ASan build adds its ODR indicator __odr_asan.NAME beside NAME)
    assert [ln.split()[-1] for ln in out.splitlines()
            if not ln.split()[-1].startswith('__odr_asan')] == \
        ['mcpfs_module']
    undef = subprocess.run(['nm', '-D', '--undefined-only', str(so)],
                           capture_output=True, text=True,
                           check=True).stdout.split()
    for core in ('mlog', 'mcp_auth_note', 'mcp_oauth_conf_dup'):
        assert core not in undef, core
