"""mcpfs against the real @modelcontextprotocol/server-sequential-thinking
(pinned in package.json, run from node_modules): a server whose whole
point is state kept across calls, driven the ways people drive the mount.

What a direct session showed (explored through mcpfs, December 2026):
* Entry point: node node_modules/@modelcontextprotocol/server-sequential-
  thinking/dist/index.js, no argument; capabilities tools only.
* One tool, sequentialthinking {thought, nextThoughtNeeded, thoughtNumber,
  totalThoughts (required), isRevision, revisesThought, branchFromThought,
  branchId, needsMoreThoughts} with an outputSchema: structuredContent
  {thoughtNumber, totalThoughts, nextThoughtNeeded, branches,
  thoughtHistoryLength}, the same as pretty JSON text. The history is the
  process's: each call adds one thought, so thoughtHistoryLength counts
  the calls the process has seen.
* Each thought is also drawn in a box on its stderr ("Thought 2/3").
"""

import json
import os
import shutil
import signal
import subprocess

import pytest

from conftest import REPO, read_file, slacked, status, wait_until
from test_serve_doors import Raw

THINK = REPO / ('node_modules/@modelcontextprotocol/'
                'server-sequential-thinking/dist/index.js')

pytestmark = pytest.mark.skipif(
    not THINK.exists() or not shutil.which('node'),
    reason=f'{THINK} missing (run npm ci in the repository) or no node')


def mount(mcpfs_mount):
    return mcpfs_mount({'think': {'command': 'node', 'args': [str(THINK)]}})


def sh(shell, script, cwd):
    r = subprocess.run([*shell, '-c', script], cwd=cwd, capture_output=True,
                       text=True, timeout=slacked(60))
    assert r.returncode == 0, (shell, script, r.stderr)
    return r.stdout


def history(reply_text):
    """thoughtHistoryLength of a sequentialthinking reply (JSON text)."""
    r = json.loads(reply_text)
    assert 'isError' not in r, r
    return r['structuredContent']['thoughtHistoryLength']


def lines(n, total=4, more='true'):
    return (f'thought=step {n}\nthoughtNumber:={n}\n'
            f'totalThoughts:={total}\nnextThoughtNeeded:={more}\n')


TOOL = 'tools/sequentialthinking'


def two_thoughts(mcpfs_mount):
    """A mount, its thread think/t1, and two thoughts written there from
    bash: (mount, thread directory)."""
    m = mount(mcpfs_mount)
    t = m.path / 'think' / 't1'
    os.mkdir(t)
    for n in (1, 2):
        assert history(sh(['bash'], f'echo "{lines(n)}" > {TOOL}; '
                          f'cat {TOOL}', t)) == n
    return m, t


def test_thoughts_accumulate_in_one_thread_whatever_writes_them(
        mcpfs_mount):
    """Four thoughts, each written by another writer (a bash heredoc, dash
    printf, busybox sh `exec 3>`, Python): the one process of the thread
    counts 1, 2, 3, 4; a second thread is a process of its own and starts
    at 1; the first goes on at 5."""
    m = mount(mcpfs_mount)
    t = m.path / 'think' / 't1'
    os.mkdir(t)
    tool = 'tools/sequentialthinking'
    out = sh(['bash'], f'cat > {tool} <<EOF\n{lines(1)}EOF\ncat {tool}', t)
    assert history(out) == 1
    body = lines(2).replace('\n', '\\n')
    out = sh(['dash'], f"printf '{body}' > {tool}; cat {tool}", t)
    assert history(out) == 2
    body = json.dumps({'thought': 'step 3', 'thoughtNumber': 3,
                       'totalThoughts': 4, 'nextThoughtNeeded': True})
    out = sh(['busybox', 'sh'], f"exec 3> {tool}; echo '{body}' >&3; "
             f"exec 3>&-; cat {tool}", t)
    assert history(out) == 3
    with open(t / tool, 'w') as f:
        f.write(lines(4, more='false'))
    assert history(read_file(t / tool)) == 4
    assert status(t)['calls'] == 4
    # the server's own stderr, as it drew each thought (read from its
    # pipe on the loop beside the replies: the last box may come after)
    wait_until(lambda: read_file(t / 'stderr').decode().count('Thought ')
               == 4, slacked(10), "the server's four boxes in stderr")

    t2 = m.path / 'think' / 't2'
    os.mkdir(t2)
    assert history(sh(['bash'], f'echo "{lines(1)}" > {tool}; cat {tool}',
                      t2)) == 1
    assert status(t2)['pid'] != status(t)['pid']
    assert history(sh(['bash'], f'echo "{lines(5, 5)}" > {tool}; '
                      f'cat {tool}', t)) == 5
    assert {'t1', 't2'} <= set(os.listdir(m.path / 'think'))


def test_an_agent_and_the_shell_share_the_history(mcpfs_mount):
    """`mcpfs serve --thread t1`, spoken to as a client would, calls
    think__sequentialthinking in the thread the shell made: its thought
    is the shell's third, and the shell's next is the fourth."""
    m, t = two_thoughts(mcpfs_mount)
    tool = TOOL
    raw = Raw(m, 't1')
    try:
        raw.hello()
        r = raw.ask(1, 'tools/call', {
            'name': 'think__sequentialthinking',
            'arguments': {'thought': 'from the agent', 'thoughtNumber': 3,
                          'totalThoughts': 4, 'nextThoughtNeeded': True}})
        assert r['result']['structuredContent'][
            'thoughtHistoryLength'] == 3, r
    finally:
        raw.close()
    assert history(sh(['bash'], f'echo "{lines(4)}" > {tool}; cat {tool}',
                      t)) == 4
    assert status(t)['calls'] == 4


def test_a_crash_loses_the_history_and_says_so(mcpfs_mount):
    """The server killed between calls: its thoughts are gone with it, and
    the next call says so (-32002, spec 5) instead of answering from a
    fresh process as if nothing happened; the call after that is the
    first thought of a new process (generation 2)."""
    m, t = two_thoughts(mcpfs_mount)
    tool = TOOL
    st = status(t)
    os.kill(st['pid'], signal.SIGKILL)
    wait_until(lambda: status(t)['state'] == 'exited', slacked(10),
               'the thread to see its process gone')
    r = subprocess.run(['bash', '-c', f'echo "{lines(3)}" > {tool}; '
                        f'cat {tool}'], cwd=t, capture_output=True,
                       text=True, timeout=slacked(60))
    err = json.loads(r.stdout)['error']
    assert err['code'] == -32002, err
    assert err['message'].startswith("the server's state is gone: "
                                     "generation 1 was lost"), err
    assert 'killed by signal 9' in err['message'], err
    assert 'Thought 2/4' in err['data']['stderr'], err  # its last words
    assert status(t)['lost'] is not None
    assert history(sh(['bash'], f'echo "{lines(1)}" > {tool}; cat {tool}',
                      t)) == 1
    assert status(t)['generation'] == st['generation'] + 1


def test_help_shows_the_schemas_numbers_as_written(mcpfs_mount):
    """The tool's integers are zod's (bounded by 2^53 - 1): help/ shows
    the bound as the schema has it, not cJSON's 9.00719925474099e+15,
    which is another number; its example line is one the server takes."""
    m = mount(mcpfs_mount)
    t = m.path / 'think' / 't1'
    os.mkdir(t)
    h = read_file(t / 'help' / 'sequentialthinking').decode()
    assert 'thoughtNumber (integer, required, minimum 1, maximum ' \
        '9007199254740991)' in h, h
    assert 'e+15' not in h
    run = [ln.strip() for ln in h.splitlines()
           if ln.strip().startswith("printf '%s\\n'")]
    assert run, h
    assert 'thoughtHistoryLength' in sh(['sh'], run[0], t)
