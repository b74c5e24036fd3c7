"""Shell loops that share a thread read their own replies (spec 4):
a fresh open of call that sent nothing reads the newest call
written by the reading process, else within its parent's subtree, else its
grandparent's, and so on, else the session's latest reply.

`echo "$req" > call; cat call`: the echo builtin writes from the shell,
cat (its child) reads. Each loop here sends requests no other loop sends
(the fake server's echo of "L<loop>-<iteration>"), so a reply read by the
wrong loop is seen at once."""

import json
import os
import subprocess

import pytest

from conftest import (echo_req, fake, read_file, run_together,
                      run_with_deadline, status, text, thread, wait_until,
                      write_file)

LOOP = r'''
call=$1 loop=$2 n=$3 out=$4
i=1
while [ $i -le $n ]; do
	req="{\"name\":\"echo\",\"arguments\":{\"text\":\"L$loop-$i\"}}"
	echo "$req" > "$call"
	cat "$call" >> "$out"
	i=$((i + 1))
done
'''


def run_loops(call_path, tmp, loops, n, timeout):
    """Run `loops` concurrent bash loops of n iterations each; return
    {loop: [texts read, in order]}."""
    outs = {k: tmp / f'loop{k}.out' for k in range(loops)}
    for path in outs.values():
        path.write_text('')
    run_together([['bash', '-c', LOOP, 'loop', str(call_path), str(k),
                   str(n), str(path)] for k, path in outs.items()], timeout)
    got = {}
    for k, path in outs.items():
        lines = path.read_text().splitlines()
        assert len(lines) == n, (k, len(lines), lines[:5])
        got[k] = [text(json.loads(line)) for line in lines]
    return got


def crossed(got, n):
    """Replies a loop read that were not its own, as (loop, i, text)."""
    return [(k, i + 1, t) for k, texts in got.items()
            for i, t in enumerate(texts) if t != f'L{k}-{i + 1}']


@pytest.mark.parametrize('loops', [2, 8])
def test_concurrent_shell_loops_on_one_thread(mcpfs_mount, tmp_path, loops):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    n = 100
    got = run_loops(t / 'call', tmp_path, loops, n, 240)
    bad = crossed(got, n)
    assert bad == [], f'{len(bad)} crossed replies, e.g. {bad[:5]}'
    assert json.loads(read_file(t / 'status'))['calls'] == loops * n


def test_concurrent_shell_loops_on_the_oneshot_call(mcpfs_mount, tmp_path):
    m = mcpfs_mount({'a': fake()})
    n = 25
    got = run_loops(m.path / 'a' / 'call', tmp_path, 2, n, 240)
    bad = crossed(got, n)
    assert bad == [], f'{len(bad)} crossed replies, e.g. {bad[:5]}'


def sh(script, *args, timeout=30):
    p = subprocess.run(['bash', '-c', script, 'sh', *map(str, args)],
                       capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_reader_without_a_writing_ancestor_reads_the_latest(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    # the writer exits; this test process (cat's parent) wrote nothing
    sh('echo "$2" > "$1"', t / 'call', echo_req('first'))
    sh('echo "$2" > "$1"', t / 'call', echo_req('second'))
    out = run_with_deadline(
        lambda: subprocess.run(['cat', str(t / 'call')], capture_output=True,
                               text=True, timeout=20).stdout, 30, 'cat')
    assert text(json.loads(out)) == 'second'
    # the same for the server's one-shot call
    sh('echo "$2" > "$1"', m.path / 'a' / 'call', echo_req('one-shot'))
    assert text(json.loads(read_file(m.path / 'a' / 'call'))) == 'one-shot'


def test_own_write_beats_a_later_one_of_another_process(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    # written by a thread of this process, read by another of its threads
    write_file(t / 'call', echo_req('mine'))
    assert text(json.loads(sh('echo "$2" > "$1"; cat "$1"', t / 'call',
                              echo_req('theirs')))) == 'theirs'
    assert text(json.loads(read_file(t / 'call'))) == 'mine'
    # a child of this process that wrote nothing reads the newest call of
    # its parent's subtree: the one the other child wrote (spec 4)
    assert text(json.loads(sh('cat "$1"', t / 'call'))) == 'theirs'
    # a grandchild too: cat in a subshell of a shell that wrote nothing
    assert text(json.loads(sh('(cat "$1"; true)', t / 'call'))) == 'theirs'
    # and when this process writes again, its children read that
    write_file(t / 'call', echo_req('mine again'))
    assert text(json.loads(sh('cat "$1"', t / 'call'))) == 'mine again'


def test_writer_waits_for_its_own_call_in_flight(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    slow = json.dumps({'name': 'sleep', 'arguments': {'ms': 1500}})
    p = subprocess.Popen(['bash', '-c', 'echo "$2" > "$1"; read x; cat "$1"',
                          'sh', str(t / 'call'), slow],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    try:
        # the sleep is in flight; another shell's calls come and go
        wait_until(lambda: status(t)['in_flight'] == 1, 20,
                   'the sleep in flight')
        assert text(json.loads(sh('echo "$2" > "$1"; cat "$1"', t / 'call',
                                  echo_req('quick')))) == 'quick'
        # and a refused request of a third one is the session's latest
        refused = json.loads(sh('printf %s "$2" > "$1"; cat "$1"',
                                t / 'call', '{"name":"echo"'))
        assert 'incomplete JSON' in refused['error']['message'], refused
        out, _ = p.communicate('go\n', timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert text(json.loads(out)) == 'slept 1500'


NS_LAST_PID = '/proc/sys/kernel/ns_last_pid'


def spawn_as(pid, argv, tries=30):
    """Start argv (which waits for a line on stdin first) as process pid,
    through ns_last_pid; None if another process took the pid each time."""
    for _ in range(tries):
        with open(NS_LAST_PID, 'w') as f:
            f.write(str(pid - 1))
        p = subprocess.Popen(argv, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
        if p.pid == pid:
            return p
        p.kill()
        p.communicate()
    return None


def test_a_reused_pid_is_not_the_writer(mcpfs_mount):
    # A child A of this process writes Y and exits; then this process
    # writes X; a new child B that gets A's pid reads: it has not written,
    # so it reads the newest call of its parent's subtree, X, not A's Y
    if not os.access(NS_LAST_PID, os.W_OK):
        pytest.skip(f'{NS_LAST_PID} not writable: cannot reuse a pid')
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    # A's pid may be taken at once by a process that lives on (a loaded
    # CI run's other suites fork all the time): then no try of spawn_as
    # can have it, and a new A is the way to a pid that can be reused
    for _ in range(5):
        a = subprocess.Popen(['bash', '-c', 'echo "$2" > "$1"', 'sh',
                              str(t / 'call'), echo_req('Y')])
        assert a.wait(30) == 0
        write_file(t / 'call', echo_req('X'))
        b = spawn_as(a.pid, ['bash', '-c', 'read x; exec cat "$1"', 'sh',
                             str(t / 'call')])
        if b is not None:
            break
    else:
        pytest.skip(f'pid {a.pid} was taken by another process each time')
    out, _ = b.communicate('go\n', timeout=30)
    assert text(json.loads(out)) == 'X'
