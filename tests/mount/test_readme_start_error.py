"""README.md says why a server cannot start (spec 12), where it used to
suggest `ls SERVER/help`, which fails with ENOTCONN for such a server: the
start error (`cannot run X: No such file or directory`), or the exit
status and the last stderr line."""

import errno
import os

import pytest

from conftest import fake, read_file


def section(readme, server):
    return readme.split(f'### {server}\n', 1)[1].split('\n### ', 1)[0]


def test_readme_says_why_a_server_cannot_start(mcpfs_mount):
    m = mcpfs_mount({'gone': {'command': 'mcpfs-no-such-command'},
                     'dies': fake('--stderr-lines', 2, '--exit-at-start', 3)})
    for name in ('gone', 'dies'):
        with pytest.raises(OSError) as e:
            os.listdir(m.path / name / 'help')
        assert e.value.errno == errno.ENOTCONN
    readme = read_file(m.path / 'README.md').decode()
    gone, dies = section(readme, 'gone'), section(readme, 'dies')
    assert '- cannot start: ' in gone, gone
    assert 'cannot run mcpfs-no-such-command: No such file or directory' \
        in gone, gone
    assert 'exited with status 3' in dies, dies
    assert 'fakeserver: exiting at start' in dies, dies
    for part in (gone, dies):
        assert '/help' not in part and 'tools.json' not in part, part
