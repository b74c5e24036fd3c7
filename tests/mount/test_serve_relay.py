"""`mcpfs serve`'s two ways to the mount (serve/unix.c, spec 14): a
client's pipes handed to the mount, which then reads and writes them
itself (the relay stays out of the path of each message), and the copy
through the relay for what cannot be handed (a file)."""
import json
import os
import resource
import subprocess

from conftest import MCPFS, fake, run_with_deadline, slacked, wait_until

INIT = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {
    'protocolVersion': '2025-06-18', 'capabilities': {},
    'clientInfo': {'name': 'relay-test', 'version': '0'}}}
CALL = {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call', 'params': {
    'name': 'a__echo', 'arguments': {'text': 'through'}}}


def line(msg):
    return json.dumps(msg) + '\n'


def held_pipes(pid):
    """The pipe inodes process pid has open, as /proc names them."""
    d = f'/proc/{pid}/fd'
    out = set()
    for fd in os.listdir(d):
        try:
            out.add(os.readlink(f'{d}/{fd}'))
        except OSError:
            pass  # closed meanwhile
    return out


def reply_to(rid, readline):
    while True:
        got = run_with_deadline(readline, slacked(30), 'a line')
        assert got.endswith('\n'), got
        m = json.loads(got)
        if m.get('id') == rid and 'method' not in m:
            return m


def test_pipes_are_handed_to_the_mount(mcpfs_mount):
    m = mcpfs_mount({'a': fake()})
    p = subprocess.Popen([str(MCPFS), 'serve', '--thread', 'h', str(m.path)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    pin = f'pipe:[{os.fstat(p.stdin.fileno()).st_ino}]'
    pout = f'pipe:[{os.fstat(p.stdout.fileno()).st_ino}]'
    p.stdin.write(line(INIT))
    p.stdin.flush()
    assert reply_to(1, p.stdout.readline)['result']['serverInfo'][
        'name'] == 'mcpfs'
    # the mount itself holds the client's two pipes
    held = held_pipes(m.proc.pid)
    assert pin in held and pout in held, (pin, pout, held)
    p.stdin.write(line(CALL))
    p.stdin.flush()
    r = reply_to(2, p.stdout.readline)
    assert r['result']['content'] == [{'type': 'text', 'text': 'through'}]
    # the client's end of stdin ends the session, and the relay
    p.stdin.close()
    assert p.wait(slacked(30)) == 0
    assert p.stdout.read() == ''
    p.stdout.close()
    wait_until(lambda: pin not in held_pipes(m.proc.pid), slacked(30),
               'the mount to let go of the client\'s stdin')


def test_a_file_is_copied_by_the_relay(mcpfs_mount, tmp_path):
    m = mcpfs_mount({'a': fake()})
    out = tmp_path / 'out'
    with open(out, 'w') as o:
        p = subprocess.Popen([str(MCPFS), 'serve', str(m.path)],
                             stdin=subprocess.PIPE, stdout=o, text=True)
    pin = f'pipe:[{os.fstat(p.stdin.fileno()).st_ino}]'
    p.stdin.write(line(INIT) + line(CALL))
    p.stdin.flush()

    def lines():
        return [json.loads(x) for x in out.read_text().splitlines()]
    wait_until(lambda: any(x.get('id') == 2 for x in lines()), slacked(30),
               'the reply in the file')
    # stdout is a file: nothing was handed, the relay copies both ways
    assert pin not in held_pipes(m.proc.pid)
    r = [x for x in lines() if x.get('id') == 2][0]
    assert r['result']['content'] == [{'type': 'text', 'text': 'through'}]
    p.stdin.close()
    assert p.wait(slacked(30)) == 0


def test_clients_past_the_most_are_refused_and_nothing_else_is(
        mcpfs_mount):
    """Each `mcpfs serve` client may hold three of the mount's descriptors
    (its socket and the stdin and stdout it hands over): at ulimit -n 64
    the mount serves 5 (64 / 12, a quarter of them), the sixth is refused
    with the reason and exit 1, the files go on, and when a client ends a
    new one is served."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
    try:
        m = mcpfs_mount({'a': fake()})
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    def client():
        p = subprocess.Popen([str(MCPFS), 'serve', str(m.path)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            p.stdin.write(line(INIT))
            p.stdin.flush()
        except BrokenPipeError:
            # refused and gone before it read its stdin (the refusal
            # answers the relay's own first line): its exit says why
            try:
                p.stdin.close()
            except BrokenPipeError:
                pass
        return p

    held = [client() for _ in range(5)]
    for p in held:
        assert reply_to(1, p.stdout.readline)['result']['serverInfo'][
            'name'] == 'mcpfs'
    sixth = client()
    assert sixth.wait(slacked(30)) == 1
    err = sixth.stderr.read()
    assert 'the mount serves 5 clients, its most' in err, err
    # the files go on, through bash
    t = m.path / 'a' / 'sh'
    os.mkdir(t)
    out = subprocess.run(
        ['bash', '-c', 'echo \'{"name":"echo","arguments":{"text":"on"}}\''
         ' > "$1/call" && cat "$1/call"', 'sh', str(t)],
        capture_output=True, text=True, timeout=slacked(30))
    assert json.loads(out.stdout)['content'][0]['text'] == 'on', out
    # a client that ends makes room, once the mount has closed it
    pin = f'pipe:[{os.fstat(held[0].stdin.fileno()).st_ino}]'
    held[0].stdin.close()
    assert held[0].wait(slacked(30)) == 0
    wait_until(lambda: pin not in held_pipes(m.proc.pid), slacked(30),
               'the mount to let go of the ended client')
    again = client()
    assert reply_to(1, again.stdout.readline)['result']['serverInfo'][
        'name'] == 'mcpfs'
    for p in held[1:] + [again]:
        p.stdin.close()
        assert p.wait(slacked(30)) == 0
