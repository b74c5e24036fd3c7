"""How real programs write a transaction file (spec 4 and
9): every way of writing a request sends it exactly once, and the
reader (`cat`) reads its own reply.

* The idiom matrix: bash, dash, busybox sh and zsh, each writing with `>`,
  `printf >`, `>>`, a heredoc, `exec 3>`, `dd of=`, `tee`,
  `/usr/bin/printf`, `cp`, Python and Node, on `call` and on
  `tools/incr` of the demo server, after the shell itself wrote an earlier
  call with its builtin echo. The demo's counter and the thread's `calls`
  show how many calls the server saw: exactly two (the shell's, then the
  idiom's), and cat reads the idiom's reply (1000 + 7), not the shell's.
* Concurrent shell loops (8, 24, 64) on one thread, each writing its own
  call (builtin echo or /usr/bin/printf, on call or tools/echo) and
  reading it back: no loop reads another loop's reply.
* Pipelining: several requests on one open file before reading keep every
  reply, in order, each ending in a read of 0.
* The session cap with held files: mkdir fails with EAGAIN instead of
  closing a busy session, and a new session is not closed right after its
  first call.
* Under an ASan build: the writer lookups of `: > tools/incr` leave no
  process node behind at exit, even one a static still points at.
"""

import concurrent.futures
import errno
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from conftest import (SLACK, demo, fake, open_call, read_all, run_together,
                      run_with_deadline, status, text, thread, wait_until,
                      write_all)
from test_faults import asan_runtime

PY = sys.executable

SHELLS = {
    'bash': ['bash', '-c'],
    'dash': ['dash', '-c'],
    'busybox': ['busybox', 'sh', '-c'],
    'zsh': ['zsh', '-c'],
}

# $F: the file, $R: the request, $T: a scratch file, $PY: python
IDIOMS = {
    'echo >': 'echo "$R" > "$F"',
    'printf >': 'printf "%s\\n" "$R" > "$F"',
    '>>': 'echo "$R" >> "$F"',
    'heredoc': 'cat > "$F" <<EOF\n$R\nEOF',
    'exec 3>': 'exec 3> "$F"\necho "$R" >&3\nexec 3>&-',
    'dd of=': 'printf %s "$R" | dd of="$F" 2>/dev/null',
    'tee': 'printf "%s\\n" "$R" | tee "$F" > /dev/null',
    '/usr/bin/printf': '/usr/bin/printf %s "$R" > "$F"',
    'cp': 'printf %s "$R" > "$T"; cp "$T" "$F"',
    'python': '"$PY" -c "import sys; open(sys.argv[1], \'w\')'
              '.write(sys.argv[2])" "$F" "$R"',
    'node': 'node -e "require(\'fs\').writeFileSync(process.argv[1], '
            'process.argv[2])" "$F" "$R"',
}

CASE = '''F=$1 R0=$2 R=$3 T=$4 PY=$5
echo "$R0" > "$F"
{idiom}
cat "$F"
'''


def requests(target):
    """(file, the shell's own earlier request, the idiom's request)."""
    if target == 'call':
        return ('call', json.dumps({'name': 'incr',
                                    'arguments': {'by': 1000}}),
                json.dumps({'name': 'incr', 'arguments': {'by': 7}}))
    return ('tools/incr', '{"by":1000}', '{"by":7}')


def run_case(shell, idiom, t, target, tmp):
    fname, r0, r = requests(target)
    script = CASE.format(idiom=IDIOMS[idiom])
    p = run_with_deadline(lambda: subprocess.run(
        SHELLS[shell] + [script, 'sh', str(t / fname), r0, r,
                         str(tmp / 'req.json'), PY],
        capture_output=True, text=True, timeout=30), 40,
        f'{shell} {idiom} on {fname}')
    try:
        got = text(json.loads(p.stdout))
    except (ValueError, AssertionError):
        got = f'rc {p.returncode} out {p.stdout!r} err {p.stderr!r}'
    return got, status(t)['calls']


@pytest.mark.parametrize('shell', list(SHELLS))
def test_idiom_matrix(mcpfs_mount, tmp_path, shell):
    if not shutil.which(SHELLS[shell][0]):
        pytest.skip(f'{SHELLS[shell][0]} is not installed')
    idioms = list(IDIOMS)
    if not shutil.which('node'):
        idioms.remove('node')
    m = mcpfs_mount({'demo': demo()})
    rows, bad = [], []
    for target in ('call', 'tools'):
        for i, idiom in enumerate(idioms):
            t = m.path / 'demo' / f'{target}{i}'
            os.mkdir(t)
            got, calls = run_case(shell, idiom, t, target, tmp_path)
            rows.append(f'{shell:8} {target:5} {idiom:16} read {got!r:8} '
                        f'server saw {calls - 1} call(s) after the '
                        "shell's own")
            if got != '1007' or calls != 2:
                bad.append(rows[-1])
            os.rmdir(t)
    print('\n' + '\n'.join(rows))
    assert bad == [], '\n'.join(bad)


def test_empty_request_at_last_close_only(mcpfs_mount):
    # ": > tools/incr" sends {} once; "echo > tools/incr" (whitespace)
    # too; each shell's dup2-and-close flush sends nothing more
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo', 't')
    for shell in SHELLS:
        if not shutil.which(SHELLS[shell][0]):
            continue
        before = status(t)['calls']
        out = subprocess.run(SHELLS[shell] + [
            ': > "$1/tools/incr"; cat "$1/tools/incr"; '
            'echo > "$1/tools/incr"; cat "$1/tools/incr"', 'sh', str(t)],
            capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        replies = [text(json.loads(line)) for line in
                   out.stdout.splitlines()]
        assert status(t)['calls'] - before == 2, (shell, replies)
        assert int(replies[1]) == int(replies[0]) + 1, (shell, replies)


def test_fresh_read_of_a_tool_never_reads_another_tools_reply(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo', 't')
    sh = ['bash', '-c']
    # a tool never called reads as empty, even after another tool's call
    out = subprocess.run(sh + ['echo "{\\"by\\":5}" > "$1/tools/incr"; '
                               'cat "$1/tools/get_count"; echo END',
                               'sh', str(t)],
                         capture_output=True, text=True, timeout=30)
    assert out.stdout == 'END\n', out
    # and once called, its own reply, not the newer incr
    out = subprocess.run(sh + [': > "$1/tools/get_count"; '
                               'echo "{\\"by\\":1}" > "$1/tools/incr"; '
                               'cat "$1/tools/get_count"; '
                               'cat "$1/tools/incr"', 'sh', str(t)],
                         capture_output=True, text=True, timeout=30)
    lines = out.stdout.splitlines()
    assert [text(json.loads(x)) for x in lines] == ['5', '6'], out


# ---------------------------------------------------------------- loops

LOOP = r'''
dir=$1 loop=$2 n=$3 out=$4 how=$5
i=1
while [ $i -le $n ]; do
	case $how in
	echo-call)
		echo "{\"name\":\"echo\",\"arguments\":{\"text\":\"L$loop-$i\"}}" \
			> "$dir/call"
		cat "$dir/call" >> "$out" ;;
	printf-call)
		/usr/bin/printf '{"name":"echo","arguments":{"text":"L%s-%s"}}' \
			"$loop" "$i" > "$dir/call"
		cat "$dir/call" >> "$out" ;;
	echo-tool)
		echo "{\"text\":\"L$loop-$i\"}" > "$dir/tools/echo"
		cat "$dir/tools/echo" >> "$out" ;;
	printf-tool)
		/usr/bin/printf '{"text":"L%s-%s"}' "$loop" "$i" \
			> "$dir/tools/echo"
		cat "$dir/tools/echo" >> "$out" ;;
	esac
	i=$((i + 1))
done
'''
HOWS = ['echo-call', 'printf-call', 'echo-tool', 'printf-tool']


@pytest.mark.parametrize('loops,n', [(8, 40), (24, 25), (64, 10)])
def test_concurrent_loops_read_their_own(mcpfs_mount, tmp_path, loops, n):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    outs = {k: tmp_path / f'loop{k}.out' for k in range(loops)}
    for path in outs.values():
        path.write_text('')
    run_together([['bash', '-c', LOOP, 'loop', str(t), str(k), str(n),
                   str(path), HOWS[k % len(HOWS)]]
                  for k, path in outs.items()], 80)
    foreign, missing = [], []
    for k, path in outs.items():
        lines = path.read_text().splitlines()
        if len(lines) != n:
            missing.append((k, len(lines)))
        for i, line in enumerate(lines):
            got = text(json.loads(line))
            if got != f'L{k}-{i + 1}':
                foreign.append((k, i + 1, got))
    print(f'\n{loops} loops x {n} calls: {len(foreign)} foreign replies')
    assert foreign == [] and missing == [], \
        f'{len(foreign)} foreign replies, e.g. {foreign[:5]}; {missing}'
    assert status(t)['calls'] == loops * n


# ---------------------------------------------------------------- pipelining

def echo(s):
    return json.dumps({'name': 'echo', 'arguments': {'text': s}}).encode()


def test_two_requests_then_reads_keep_both_replies(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    fd = open_call(t)
    try:
        slow = json.dumps({'name': 'sleep', 'arguments': {'ms': 300}})
        write_all(fd, slow.encode())
        write_all(fd, echo('second'))
        first = run_with_deadline(lambda: read_all(fd), 20, 'first reply')
        second = run_with_deadline(lambda: read_all(fd), 20, 'second')
        assert text(json.loads(first)) == 'slept 300'
        assert text(json.loads(second)) == 'second'
        assert os.read(fd, 100) == b''
        # then the file goes on as usual: write, read
        write_all(fd, echo('third'))
        assert text(json.loads(read_all(fd))) == 'third'
    finally:
        os.close(fd)


def test_threads_sharing_one_fd_lose_no_reply(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    fd = open_call(t)

    def one(i):
        write_all(fd, echo(f'T{i}'))
        return read_all(fd)

    try:
        with concurrent.futures.ThreadPoolExecutor(64) as ex:
            got = run_with_deadline(
                lambda: list(ex.map(one, range(64))), 60, '64 threads')
        while True:  # what no thread read is still there
            more = run_with_deadline(lambda: read_all(fd), 20, 'drain')
            if not more:
                break
            got.append(more)
    finally:
        os.close(fd)
    texts = sorted(text(json.loads(line)) for chunk in got
                   for line in chunk.splitlines())
    assert texts == sorted(f'T{i}' for i in range(64))


def test_write_only_file_sends_each_request(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo', 't')
    fd = os.open(t / 'tools' / 'incr', os.O_WRONLY)
    try:
        for _ in range(3):
            write_all(fd, b'{"by":2}')
    finally:
        os.close(fd)
    wait_until(lambda: status(t)['calls'] == 3 and
               not status(t)['in_flight'], 10, 'three calls')
    out = subprocess.run(['cat', str(t / 'tools' / 'incr')],
                         capture_output=True, text=True, timeout=30)
    assert text(json.loads(out.stdout)) == '6'


# ---------------------------------------------------------------- the cap

def test_cap_with_held_files(mcpfs_mount):
    m = mcpfs_mount({'a': fake()}, args=['--max-sessions', '2'])
    a = m.path / 'a'
    os.mkdir(a / 's1')
    os.mkdir(a / 's2')
    held = [os.open(a / 's1' / 'call', os.O_RDWR),
            os.open(a / 's2' / 'status', os.O_RDONLY)]
    try:
        with pytest.raises(OSError) as e:
            os.mkdir(a / 's3')
        assert e.value.errno == errno.EAGAIN
        assert not (a / 's3').exists()
        assert 'max-sessions' in json.dumps(m.status())
        assert 'max-sessions' in m.output()
        # s2 let go: it is idle, the LRU, and makes room for s3
        os.close(held.pop())
        os.mkdir(a / 's3')
        write_all(held[0], echo('s1'))
        assert text(json.loads(read_all(held[0]))) == 's1'
        fd = os.open(a / 's3' / 'call', os.O_RDWR)
        write_all(fd, echo('s3'))
        assert text(json.loads(read_all(fd))) == 's3'
        os.close(fd)
        time.sleep(0.5)  # the closes reach mcpfs; nothing may follow
        assert sorted(d for d in os.listdir(a)
                      if d not in ('call', 'tools.json', 'help')) == ['s1', 's3']
        assert 'thread s3: closing' not in m.output()
        assert status(a / 's3')['state'] == 'ready'
    finally:
        for fd in held:
            os.close(fd)


def test_records_of_gone_writers_are_pruned(mcpfs_mount, tmp_path):
    # 4 loops x 80 calls, each written by a new /usr/bin/printf: the
    # writers are gone at once and each loop's next call supersedes its
    # last, so what is remembered stays at about one call per loop
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    procs = [subprocess.Popen(['bash', '-c', LOOP, 'loop', str(t), str(k),
                               '80', str(tmp_path / f'l{k}'),
                               'printf-call'], stdin=subprocess.DEVNULL)
             for k in range(4)]
    for p in procs:
        assert p.wait(120) == 0
    kept = [int(line.split('writers: ')[1].split()[0])
            for line in m.output().splitlines() if 'writers: ' in line]
    assert len(kept) >= 4, kept   # 320 records: pruned at 65, 65, ...
    assert max(kept) <= 8, kept


def test_a_reply_is_read_by_another_thread_of_the_writer(mcpfs_mount):
    """The writer of a request is the process, not the thread (spec 4): a
    program that writes from a worker thread and reads from its main
    thread gets its own reply, though another process wrote since."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m)

    def write_mine():
        with open(t / 'call', 'wb') as f:
            f.write(echo('mine'))

    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        ex.submit(write_mine).result(timeout=30)
    r = subprocess.run(['sh', '-c', "echo '" + echo('theirs').decode() +
                        "' > call; cat call"], cwd=t, capture_output=True,
                       timeout=30)
    assert text(json.loads(r.stdout)) == 'theirs', r
    got = run_with_deadline(lambda: (t / 'call').read_text(), 30, 'read')
    assert text(json.loads(got)) == 'mine'


_THREADED_WRITER = r'''
import sys, threading
def write(i):
    with open(sys.argv[1], "wb") as f:
        f.write(b'{"name":"echo","arguments":{"text":"%d"}}' % i)
for i in range(int(sys.argv[2])):
    th = threading.Thread(target=write, args=(i,))
    th.start()
    th.join()
'''


def test_threads_that_write_leave_no_descriptor_open_in_mcpfs(mcpfs_mount):
    """Each new writing thread of a process with several threads makes
    mcpfs look its thread group up in /proc (status, Tgid): what it opens
    for that is closed again. 64 threads, one after another, each writing
    a call: mcpfs holds about as many descriptors after as before (it
    keeps at most 16 /proc files of recent callers open)."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    before = len(os.listdir(f'/proc/{m.proc.pid}/fd'))
    subprocess.run([PY, '-c', _THREADED_WRITER, str(t / 'call'), '64'],
                   check=True, timeout=60)
    assert text(json.loads(run_with_deadline(
        lambda: (t / 'call').read_text(), 30, 'read'))) == '63'
    after = len(os.listdir(f'/proc/{m.proc.pid}/fd'))
    assert after <= before + 24, (before, after)


# ---------------------------------------------------------------- leaks

# An ASan build: LeakSanitizer at exit. By default it does not report
# what a static variable still points at, such as a process node left in
# fs/writers.c's hash by a reference never dropped.
OWN_CODE = re.compile(r'[ /](fs|sessions|lib|serve)/[\w/-]+\.c:\d+')


def own_leaks(report):
    """The blocks of a LeakSanitizer report whose stack passes through
    mcpfs's own code (the libraries' allocations held by their statics
    are left out)."""
    return [b for b in report.split('\n\n')
            if ' leak of ' in b and OWN_CODE.search(b)]


def test_every_process_node_is_freed_at_exit(mcpfs_mount):
    # ": > tools/incr" sends {} at its close, for the writer looked up
    # then (the closer: a reference on its process node). Each shell reads
    # its own reply. Under an ASan build, LeakSanitizer with use_globals=0
    # does not scan the statics, so a process node still in fs/writers.c's
    # hash at exit (after writers_clear), one whose reference was never
    # dropped, is reported as a leak. exitcode=0: the libraries keep
    # allocations under their own statics (libfuse's buffer, gnutls,
    # libuv's default loop, tzset), reported too and not this test's
    # business (own_leaks leaves them out).
    m = mcpfs_mount({'demo': demo()}, env={
        'ASAN_OPTIONS': os.environ.get('ASAN_OPTIONS', '') +
        ':detect_leaks=1:abort_on_error=1',
        'LSAN_OPTIONS': os.environ.get('LSAN_OPTIONS', '') +
        ':use_globals=0:exitcode=0'})
    t = thread(m, 'demo', 't')
    counts = []
    for _ in range(3):
        out = subprocess.run(['sh', '-c', ': > "$1/tools/incr"; '
                              'cat "$1/tools/incr"', 'sh', str(t)],
                             capture_output=True, text=True,
                             timeout=30 * SLACK)
        assert out.returncode == 0, out.stderr
        counts.append(int(text(json.loads(out.stdout))))
    assert counts == [counts[0], counts[0] + 1, counts[0] + 2], counts
    m.unmount()
    if not asan_runtime():
        return  # no leak report to read
    report = m.stderr.read_text(errors='replace')
    assert 'ERROR: AddressSanitizer' not in report, report[-3000:]
    leaks = own_leaks(report)
    assert not leaks, '\n\n'.join(leaks)[:4000]
