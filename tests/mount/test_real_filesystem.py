"""mcpfs against the real @modelcontextprotocol/server-filesystem (pinned in
package.json, run from node_modules): files written and edited through its
tools are on the disk, and its allowed directories follow the roots of the
config, live (spec 5, "Roots are live").

What a direct stdio session showed:
* Entry point: node node_modules/@modelcontextprotocol/server-filesystem/
  dist/index.js [DIR...]; with no DIR it waits for the client's roots. It
  logs "Secure MCP Filesystem Server running on stdio" to stderr.
* initialize -> serverInfo {"name": "secure-filesystem-server"},
  capabilities tools (listChanged).
* When the client declares roots (mcpfs does), it asks roots/list after
  notifications/initialized, and again on each
  notifications/roots/list_changed; each answer replaces its allowed
  directories and logs "Updated allowed directories from MCP roots: N
  valid directories" to stderr.
* Tools: read_file, read_text_file, read_media_file, read_multiple_files,
  write_file, edit_file, create_directory, list_directory,
  list_directory_with_sizes, directory_tree, move_file, search_files,
  get_file_info, list_allowed_directories.
* A path outside the allowed directories -> isError, text "Access denied -
  path outside allowed directories: PATH not in DIRS".
"""

import json
import os
import shutil

import pytest

from conftest import (REPO, read_file, status, text, thread, tool,
                      wait_until, write_file)

FILESYSTEM = REPO / \
    'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js'

pytestmark = pytest.mark.skipif(
    not FILESYSTEM.exists() or not shutil.which('node'),
    reason=f'{FILESYSTEM} missing (run npm ci in the repository) or no node')

UPDATED = 'Updated allowed directories from MCP roots: {} valid directories'


def entry(roots):
    return {'command': 'node', 'args': [str(FILESYSTEM)],
            'roots': [str(r) for r in roots]}


def ok(reply):
    assert isinstance(reply, dict) and 'content' in reply, reply
    assert reply.get('isError') is not True, reply
    return reply


def updates(t, n):
    """How many times the server of t logged that it took n roots."""
    return read_file(t / 'stderr').decode().count(UPDATED.format(n))


def test_files_through_its_tools(mcpfs_mount, tmp_path):
    root = tmp_path / 'root'
    root.mkdir()
    (root / 'old.txt').write_text('one\ntwo\nthree\n')
    m = mcpfs_mount({'fs': entry([root])})
    t = thread(m, 'fs', 't')
    wait_until(lambda: updates(t, 1), 20, 'the roots to reach the server')
    names = set(os.listdir(t / 'tools'))
    assert {'read_text_file', 'write_file', 'edit_file', 'list_directory',
            'list_allowed_directories', 'move_file'} <= names, names
    assert text(ok(tool(t, 'list_allowed_directories'))) == \
        f'Allowed directories:\n{root}'

    # a write through tools/write_file, then a fresh read of its reply
    write_file(t / 'tools' / 'write_file',
               json.dumps({'path': f'{root}/new.txt',
                           'content': 'made by mcpfs'}))
    r = read_file(t / 'tools' / 'write_file')
    assert b'Successfully wrote to' in r, r
    assert (root / 'new.txt').read_text() == 'made by mcpfs'

    r = ok(tool(t, 'edit_file', path=str(root / 'old.txt'),
                edits=[{'oldText': 'two', 'newText': 'deux'}]))
    assert (root / 'old.txt').read_text() == 'one\ndeux\nthree\n'
    assert '-two' in text(r) and '+deux' in text(r), r

    r = ok(tool(t, 'list_directory', path=str(root)))
    assert sorted(text(r).splitlines()) == \
        ['[FILE] new.txt', '[FILE] old.txt'], r
    ok(tool(t, 'move_file', source=str(root / 'new.txt'),
            destination=str(root / 'moved.txt')))
    assert not (root / 'new.txt').exists()
    assert text(ok(tool(t, 'read_text_file', path=str(root / 'moved.txt'),
                        ))) == 'made by mcpfs'
    # outside the roots: refused by the server, the session stays
    r = tool(t, 'read_text_file', path='/etc/hostname')
    assert r.get('isError') is True and 'Access denied' in text(r), r
    st = status(t)
    assert st['state'] == 'ready' and st['generation'] == 1, st
    m.unmount()


@pytest.mark.parametrize('how', ['sighup', 'file'])
def test_removed_root_is_gone_from_live_sessions(mcpfs_mount, tmp_path, how):
    a, b = tmp_path / 'A', tmp_path / 'B'
    a.mkdir()
    b.mkdir()
    (a / 'a.txt').write_text('in A')
    (b / 'b.txt').write_text('in B')
    m = mcpfs_mount({'fs': entry([a, b])})
    t1, t2 = thread(m, 'fs', 't1'), thread(m, 'fs', 't2')
    for t in (t1, t2):
        wait_until(lambda: updates(t, 2), 20, f'{t}: its two roots')
        assert text(ok(tool(t, 'read_text_file', path=str(b / 'b.txt')))) \
            == 'in B'
    pids = [status(t)['pid'] for t in (t1, t2)]

    if how == 'sighup':
        m.reload({'fs': entry([a])})
    else:
        m.write_config({'fs': entry([a])})
    for t in (t1, t2):
        wait_until(lambda: updates(t, 1), 20, f'{t}: the one root left')
        r = tool(t, 'read_text_file', path=str(b / 'b.txt'))
        assert r.get('isError') is True, r
        assert text(r).startswith('Access denied - path outside allowed '
                                  'directories'), r
        assert text(ok(tool(t, 'read_text_file', path=str(a / 'a.txt')))) \
            == 'in A'
        assert text(ok(tool(t, 'list_allowed_directories'))) == \
            f'Allowed directories:\n{a}'
    # no restart: the same processes, generation 1
    assert [status(t)['pid'] for t in (t1, t2)] == pids
    assert [status(t)['generation'] for t in (t1, t2)] == [1, 1]
    m.unmount()
