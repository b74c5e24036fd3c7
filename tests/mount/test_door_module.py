"""The HTTP door is a module (mcpfs-serve.so, spec 14: "loaded only when
--serve is given"): an idle mount without --serve maps no HTTP server or
TLS library; with --serve the door is loaded and answers; an mcpfs that
cannot load it refuses to mount with --serve (exit 1, the reason on
stderr) and mounts without it."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import conftest
from conftest import fake, text, thread, tool
from test_serve_http import INIT, entry, post

DOOR = 'mcpfs-serve.so'
# what libmicrohttpd brings (Debian's is built with HTTPS)
SERVER_LIBS = ('libmicrohttpd', 'libgnutls', 'libp11-kit', 'libnettle')


def mapped(pid):
    """The files mapped into process pid."""
    with open(f'/proc/{pid}/maps') as f:
        return {line.split()[-1] for line in f if '/' in line}


def loaded(pid, name):
    return any(name in p for p in mapped(pid))


def test_an_idle_mount_maps_no_http_server(mcpfs_mount):
    m = mcpfs_mount({'s': fake()})
    t = thread(m, 's')
    assert text(tool(t, 'echo', text='stdio')) == 'stdio'
    for lib in (DOOR,) + SERVER_LIBS:
        assert not loaded(m.proc.pid, lib), (lib, sorted(mapped(m.proc.pid)))


def test_serve_loads_the_door_and_it_answers(mcpfs_mount):
    m = mcpfs_mount({'s': fake()}, args=['--serve', '127.0.0.1:0'])
    assert loaded(m.proc.pid, DOOR)
    assert loaded(m.proc.pid, 'libmicrohttpd')
    url, auth = entry(m)
    s, h, body = post(url, INIT, {'Authorization': auth})
    assert s == 200, body
    assert json.loads(body)['result']['serverInfo']['name'] == 'mcpfs'
    sid = h['Mcp-Session-Id']
    call = {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call',
            'params': {'name': 's__echo', 'arguments': {'text': 'door'}}}
    s, h, body = post(url, call, {'Authorization': auth,
                                  'Mcp-Session-Id': sid})
    assert s == 200, body
    if h['Content-Type'] == 'text/event-stream':  # the reply, last
        body = [ln for ln in body.split(b'\n')
                if ln.startswith(b'data: ')][-1][6:]
    assert json.loads(body)['result']['content'][0]['text'] == 'door'
    # the module's log lines go to the mount's log
    conftest.wait_until(lambda: 'serve: MCP over HTTP at' in m.output(), 10,
                        "the door's line in the log")


def installed_door():
    """The module where an installed mcpfs of this build would find it
    (MCPFS_MODULE_DIR): there, a lone mcpfs finds it too."""
    conf = (conftest.BUILD / 'buildconfig.h').read_text()
    d = re.search(r'#define MCPFS_MODULE_DIR "([^"]*)"', conf).group(1)
    return Path(d) / DOOR


@pytest.fixture
def lone_mcpfs(tmp_path, monkeypatch):
    """mcpfs copied alone into a directory of its own (no module beside
    it): the directory."""
    if installed_door().exists():
        pytest.skip(f'{installed_door()} is installed: a lone mcpfs '
                    'loads it')
    lonely = tmp_path / 'bin'
    lonely.mkdir()
    shutil.copy2(conftest.MCPFS, lonely / 'mcpfs')
    monkeypatch.setattr(conftest, 'MCPFS', lonely / 'mcpfs')
    return lonely


def test_a_missing_door_refuses_the_mount(lone_mcpfs, tmp_path,
                                          mcpfs_mount):
    cfg = json.dumps({'mcpServers': {'s': fake()}})
    rc, out = conftest.run_mcpfs_expect_exit(
        tmp_path, cfg, args=['--serve', '127.0.0.1:0'], expect_rc=1)
    assert f'mcpfs: --serve 127.0.0.1:0: cannot load the HTTP door: no ' \
        f'{DOOR} beside mcpfs nor in' in out, out
    # without --serve the same mcpfs mounts and works
    m = mcpfs_mount({'s': fake()})
    assert text(tool(thread(m, 's'), 'echo', text='still')) == 'still'


def test_a_broken_door_beside_mcpfs_is_named(lone_mcpfs, tmp_path):
    cfg = json.dumps({'mcpServers': {'s': fake()}})
    (lone_mcpfs / DOOR).write_bytes(b'not a shared object\n')
    rc, out = conftest.run_mcpfs_expect_exit(
        tmp_path, cfg, args=['--serve', '127.0.0.1:0'], expect_rc=1)
    assert f'cannot load the HTTP door {lone_mcpfs / DOOR}: ' in out, out
    # a shared object that is not the door (the HTTP client's module)
    shutil.copy2(conftest.BUILD / 'mcpfs-http.so', lone_mcpfs / DOOR)
    rc, out = conftest.run_mcpfs_expect_exit(
        tmp_path, cfg, args=['--serve', '127.0.0.1:0'], expect_rc=1)
    assert f'cannot load the HTTP door: {DOOR} is no mcpfs module' in out, \
        out


def defined(path):
    out = subprocess.run(['nm', '-D', '--defined-only', str(path)],
                         capture_output=True, text=True, check=True).stdout
    # (an ASan build adds its ODR indicator __odr_asan.NAME beside NAME)
    return [ln.split()[-1] for ln in out.splitlines()
            if not ln.split()[-1].startswith('__odr_asan')]


@pytest.mark.skipif(not shutil.which('nm'), reason='no nm (binutils)')
def test_the_door_boundary_is_an_interface():
    """The module exports its entry alone and needs no symbol of mcpfs
    (what it uses of the core comes in struct door_env); mcpfs links no
    libmicrohttpd."""
    so = conftest.MCPFS.parent / DOOR
    assert defined(so) == ['mcpfs_door'], defined(so)
    undef = subprocess.run(['nm', '-D', '--undefined-only', str(so)],
                           capture_output=True, text=True,
                           check=True).stdout.split()
    for core in ('mlog', 'mlogv', 'serve_peer_new', 'serve_peer_input',
                 'mcp_set_client_entry', 'mcp_thread_name_check'):
        assert core not in undef, core
    needed = subprocess.run(['readelf', '-d', str(conftest.MCPFS)],
                            capture_output=True, text=True,
                            check=True).stdout
    assert 'libmicrohttpd' not in needed and 'libgnutls' not in needed
