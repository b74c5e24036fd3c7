"""The HTTP transports are a module (mcpfs-http.so, README Architecture):
an mcpfs that has run no HTTP session has not loaded it, nor libcurl; the
first HTTP session loads it; an mcpfs that cannot find it fails HTTP
starts with a clear message and keeps serving stdio."""

import shutil

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
