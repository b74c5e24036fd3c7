"""The call file under signals and seeks (spec 4).

A handled signal that does not stop the reader (a no-op SIGWINCH handler
with SA_RESTART, what a terminal resize does to a reader with a handler)
interrupts a waiting read of call with EINTR, but the call goes on: the
restarted read on the same open file returns the real reply and the server
never sees notifications/cancelled. Only a reader that dies of the signal
(Ctrl-C on cat; see test_call.py) cancels.

call is seekable: lseek(fd, 0, SEEK_CUR) answers, so `head -n1 call`,
bash's `read` and Python's open(path, "r+") work. Seeks are accepted and
ignored (doc/decisions.md): reads return the transaction's reply from
where they left off whatever the offset.
"""

import json
import os
import signal
import subprocess
import sys
import time

from conftest import (call, cancelled_ids, fake, proc_stat, read_all,
                      run_with_deadline, status, text, thread, wait_until)


# The reader: a no-op SIGWINCH handler installed with SA_RESTART
# (siginterrupt False), one open file, write the request, read to EOF.
# "os" reads with os.read, which Python restarts on EINTR itself (PEP 475);
# "libc" reads with read(2) through ctypes and restarts by hand, counting
# the EINTRs so the test knows the signals reached mcpfs as interrupts.
_READER = r'''
import ctypes, errno, json, os, signal, sys
handled = [0]
def on_winch(signum, frame):
    handled[0] += 1
signal.signal(signal.SIGWINCH, on_winch)
signal.siginterrupt(signal.SIGWINCH, False)
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDWR)
os.write(fd, sys.argv[2].encode())
print("ready", flush=True)
out, eintr = b"", 0
buf = ctypes.create_string_buffer(1 << 16)
while True:
    if sys.argv[3] == "os":
        b = os.read(fd, 1 << 16)
    else:
        n = libc.read(fd, buf, 1 << 16)
        if n < 0:
            if ctypes.get_errno() != errno.EINTR:
                raise OSError(ctypes.get_errno(), "read")
            eintr += 1
            continue
        b = buf.raw[:n]
    if not b:
        break
    out += b
os.close(fd)
print(json.dumps({"handled": handled[0], "eintr": eintr,
                  "reply": out.decode()}), flush=True)
'''


def blocked_in_read(pid):
    st = proc_stat(pid)
    return st and st[0] in 'SD'


def winched_read(t, how, ms=2500, signals=5):
    req = json.dumps({'name': 'sleep', 'arguments': {'ms': ms}})
    p = subprocess.Popen([sys.executable, '-c', _READER, str(t / 'call'),
                          req, how], stdout=subprocess.PIPE, text=True)
    try:
        assert run_with_deadline(p.stdout.readline, 10, 'ready') == 'ready\n'
        wait_until(lambda: status(t)['in_flight'] == 1, 5, 'sleep in flight')
        wait_until(lambda: blocked_in_read(p.pid), 5, 'the read to block')
        time.sleep(0.3)   # let the read reach mcpfs and wait there
        for _ in range(signals):
            p.send_signal(signal.SIGWINCH)
            time.sleep(0.15)
        assert status(t)['in_flight'] == 1, 'the call ended early'
        line = run_with_deadline(p.stdout.readline, ms / 1000 + 10,
                                 'the reply after the signals')
        assert p.wait(5) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stdout.close()
    return json.loads(line)


def test_sigwinch_keeps_call_os_read(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    got = winched_read(t, 'os')
    assert got['handled'] >= 1
    reply = json.loads(got['reply'])
    assert 'error' not in reply, reply
    assert text(reply) == 'slept 2500'
    assert cancelled_ids(t) == []
    assert status(t)['in_flight'] == 0


def test_sigwinch_eintr_then_restarted_read_gets_reply(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    got = winched_read(t, 'libc')
    # every signal interrupted the waiting read (EINTR) ...
    assert got['handled'] >= 1 and got['eintr'] >= 1, got
    # ... and each restarted read on the same open file waited on
    reply = json.loads(got['reply'])
    assert 'error' not in reply, reply
    assert text(reply) == 'slept 2500'
    assert cancelled_ids(t) == []


def test_sigwinch_to_cat_keeps_call(mcpfs_mount):
    """cat ignores SIGWINCH (default action): the read is not even
    interrupted, and the reply arrives."""
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    p = subprocess.Popen(['sh', '-c', 'echo \'{"name":"sleep","arguments":'
                          '{"ms":1500}}\' > call; exec cat call'], cwd=t,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: status(t)['in_flight'] == 1, 5, 'sleep in flight')
        time.sleep(0.3)
        for _ in range(3):
            p.send_signal(signal.SIGWINCH)
            time.sleep(0.1)
        out, err = p.communicate(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0 and err == b''
    assert text(json.loads(out)) == 'slept 1500'
    assert cancelled_ids(t) == []


# Two threads wait in pread(2) on one open file of call (a, then b: read(2)
# would wait for the file position's lock instead, pread takes none); a
# SIGWINCH to b alone: b's read fails EINTR, a's goes on waiting and gets
# the reply (the cancel's error) once the test cancels the call. Prints
# one JSON line after the signal and one at the end.
_TWO_READERS = r"""
import ctypes, errno, json, os, signal, sys, threading, time
signal.signal(signal.SIGWINCH, lambda *a: None)
signal.siginterrupt(signal.SIGWINCH, False)
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDWR)
os.write(fd, sys.argv[2].encode())
got, tids = {}, {}
def reader(name):
    tids[name] = threading.get_native_id()
    buf = ctypes.create_string_buffer(1 << 16)
    n = libc.pread(fd, buf, 1 << 16, ctypes.c_long(0))
    got[name] = "EINTR" if n < 0 and ctypes.get_errno() == errno.EINTR \
        else buf.raw[:n].decode() if n > 0 else n
def waiting(name):
    try:
        with open(f"/proc/self/task/{tids[name]}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        with open(f"/proc/self/task/{tids[name]}/syscall") as f:
            return state == "S" and f.read().split()[0] == "17"
    except (KeyError, OSError, IndexError):
        return False
def until(pred):
    end = time.monotonic() + 20
    while not pred() and time.monotonic() < end:
        time.sleep(0.02)
    return pred()
threads = {}
for name in ("a", "b"):
    threads[name] = threading.Thread(target=reader, args=(name,),
                                     daemon=True)
    threads[name].start()
    assert until(lambda: waiting(name)), name
signal.pthread_kill(threads["b"].ident, signal.SIGWINCH)
until(lambda: got)
print(json.dumps(got), flush=True)
sys.stdin.readline()
threads["a"].join(20)
print(json.dumps(got), flush=True)
os._exit(0)
"""


def test_signal_interrupts_only_the_read_it_reached(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)
    p = subprocess.Popen([sys.executable, '-c', _TWO_READERS,
                          str(t / 'call'), json.dumps({'name': 'hang'})],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    try:
        first = run_with_deadline(p.stdout.readline, 60, 'the signal')
        assert json.loads(first) == {'b': 'EINTR'}
        assert status(t)['in_flight'] == 1
        (t / 'ctl').write_bytes(b'cancel')
        p.stdin.write('go\n')
        p.stdin.flush()
        last = json.loads(run_with_deadline(p.stdout.readline, 60,
                                            'the reply'))
        assert p.wait(10) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert last['b'] == 'EINTR'
    assert 'error' in json.loads(last['a']), last


# ---------------------------------------------------------------- seeks

def out_of_sh(t, script, shell='sh'):
    """Run script in thread t; it must exit 0 with nothing on stderr: its
    stdout (bytes)."""
    p = subprocess.run([shell, '-c', script], cwd=t, capture_output=True,
                       timeout=15)
    assert (p.returncode, p.stderr) == (0, b'')
    return p.stdout


def test_head_n1_after_call(mcpfs_mount):
    t = thread(mcpfs_mount({'a': fake()}))
    out = out_of_sh(t, 'echo \'{"name":"echo","arguments":'
                    '{"text":"first"}}\' > call; head -n1 call')
    assert out.count(b'\n') == 1
    assert text(json.loads(out)) == 'first'


def test_head_n1_on_own_open_file(mcpfs_mount):
    """head on a descriptor that wrote the request (sh's <> on call)."""
    t = thread(mcpfs_mount({'a': fake()}))
    out = out_of_sh(t, 'exec 3<>call; printf %s \'{"name":"echo",'
                    '"arguments":{"text":"own"}}\' >&3; head -n1 <&3')
    assert text(json.loads(out)) == 'own'


def test_bash_read_line(mcpfs_mount):
    t = thread(mcpfs_mount({'a': fake()}))
    out = out_of_sh(t, 'echo \'{"name":"echo","arguments":'
                    '{"text":"line"}}\' > call; IFS= read -r l < call;'
                    ' printf "%s\\n" "$l"', shell='bash')
    assert text(json.loads(out)) == 'line'


def test_python_open_r_plus(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)

    def io():
        with open(t / 'call', 'r+') as f:
            f.write(json.dumps({'name': 'echo',
                                'arguments': {'text': 'r+'}}))
            f.flush()
            first = f.read()
            f.write(json.dumps({'name': 'echo',
                                'arguments': {'text': 'again'}}))
            f.flush()
            return first, f.read()
    first, second = run_with_deadline(io, 10, 'open(call, "r+")')
    assert text(json.loads(first)) == 'r+'
    assert text(json.loads(second)) == 'again'


def test_lseek_cur_answers_and_seeks_are_ignored(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    t = thread(m)

    def io():
        fd = os.open(t / 'call', os.O_RDWR)
        try:
            before = os.lseek(fd, 0, os.SEEK_CUR)
            req = json.dumps({'name': 'echo', 'arguments': {'text': 'seek'}})
            os.write(fd, req.encode())
            after_write = os.lseek(fd, 0, os.SEEK_CUR)
            head = os.read(fd, 5)
            # a seek elsewhere is accepted and ignored: the read goes on
            # from where this transaction's reply left off
            assert os.lseek(fd, 0, os.SEEK_SET) == 0
            rest = read_all(fd, 1 << 16)
            os.lseek(fd, 0, os.SEEK_SET)
            eof = os.read(fd, 1 << 16)
            return before, after_write, head + rest, eof
        finally:
            os.close(fd)
    before, after_write, raw, eof = run_with_deadline(io, 10, 'lseek')
    # the write moved the offset by what it wrote, as on any file
    assert (before, after_write) == (0, len(json.dumps(
        {'name': 'echo', 'arguments': {'text': 'seek'}})))
    assert text(json.loads(raw)) == 'seek'
    assert eof == b''


def test_truncating_write_still_works(mcpfs_mount):
    t = thread(mcpfs_mount({'a': fake()}))
    out = out_of_sh(t, 'for i in 1 2 3; do echo "{\\"name\\":\\"echo\\",'
                    '\\"arguments\\":{\\"text\\":\\"n$i\\"}}" > call;'
                    ' cat call; done')
    assert [text(json.loads(ln)) for ln in out.splitlines()] == \
        ['n1', 'n2', 'n3']
    assert text(call(t, {'name': 'echo', 'arguments': {'text': 'x'}})) == 'x'
