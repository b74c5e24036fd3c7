"""Sizes are real (spec 12): a reply or a resource's content that is in
memory gives `call`, `tools/X`, `prompts/X` and `resources/X` their
length in stat, the length of what a fresh read by the process that asks
would return (spec 4's rule), so that `tar`, which reads as many bytes as
stat says, keeps what `cat` reads. On main `tar cf` stored these files
empty while `cp -r` copied their bytes. A stat sends nothing (spec 3): a
call in flight or never made is 0, and stat, find and tar of an idle
thread start no request."""

import json
import os
import subprocess

from conftest import (demo, everything, needs_everything, read_file,
                      status, wait_until, write_file)
from help_util import calls, scripted, sh

SPEC = {
    'tools': [{'name': 'greet', 'description': 'd',
               'inputSchema': {'type': 'object',
                               'properties': {'who': {'type': 'string'}}}},
              {'name': 'other', 'description': 'd',
               'inputSchema': {'type': 'object'}}],
    'prompts': [{'name': 'ask'}],
    'resources': [{'uri': 'mem://notes', 'name': 'notes'},
                  {'uri': 'mem://never', 'name': 'never'}],
    'contents': {'mem://notes': 'line one\nline two\n',
                 'mem://never': 'not read yet\n'},
    'log_all': True,
}

# the files whose content a call or a read puts in memory
REPLIES = ['call', 'tools/greet', 'prompts/ask', 'resources/mem:%2F%2Fnotes']


def requests(t):
    """The requests mcpfs sent on thread t, from its trace."""
    out = []
    for line in read_file(t / 'trace').splitlines():
        m = json.loads(line)
        if m['dir'] == 'out' and 'id' in m['msg'] and 'method' in m['msg']:
            out.append(m['msg']['method'])
    return out


def sizes(t, names):
    return {n: os.stat(t / n).st_size for n in names}


def tar_x(src, name, dest):
    """tar cf of src/name, extracted into dest: (tar's stderr, rc)."""
    tarball = dest.with_suffix('.tar')
    r = subprocess.run(['tar', 'cf', str(tarball), name], cwd=src,
                       capture_output=True, text=True, timeout=60)
    dest.mkdir()
    subprocess.run(['tar', 'xf', str(tarball)], cwd=dest, check=True,
                   timeout=60)
    return r.stderr, r.returncode


def test_tar_keeps_what_cat_reads(mcpfs_mount, tmp_path):
    entry, log = scripted(tmp_path, SPEC)
    m = mcpfs_mount({'s': entry})
    srv = m.path / 's'
    t = srv / 't1'
    os.mkdir(t)
    wait_until(lambda: status(t)['state'] == 'ready', what='ready')
    # the listings, once, so what follows is reads of what is known
    for d in ('tools', 'prompts', 'resources'):
        os.listdir(t / d)
    for f in ('tools.json', 'prompts.json', 'resources.json'):
        read_file(t / f)
    before = requests(t)
    # nothing called yet: every reply file is 0, and stat, find, ls -l
    # and tar of the idle thread send no request
    assert sizes(t, REPLIES + ['tools/other']) == dict.fromkeys(
        REPLIES + ['tools/other'], 0)
    rc, out, err = sh('bash', 'stat call tools/* prompts/* resources/* '
                      '>/dev/null && find . -type f | wc -l && '
                      'ls -lR . >/dev/null', cwd=t)
    assert rc == 0, err
    assert requests(t) == before, requests(t)[len(before):]
    # tar opens a file of size 0 whose mode lacks a read bit of group or
    # others (GNU tar's file_dumpable_p) to see that it reads, so it
    # opens each resources/ file, and that open is a resources/read (spec
    # 9); call, tools/X and prompts/X open without a request
    err, rc = tar_x(srv, 't1', tmp_path / 'idle')
    assert rc == 0, err
    assert requests(t)[len(before):] == ['resources/read'] * 2
    assert [c['method'] for c in calls(log)
            if c['method'] in ('tools/call', 'prompts/get')] == []
    for f in REPLIES[:3]:
        assert (tmp_path / 'idle/t1' / f).read_bytes() == b'', f
    # ... and takes the size fstat gives the open file: the read's
    assert (tmp_path / 'idle/t1/resources/mem:%2F%2Fnotes').read_bytes() \
        == b'line one\nline two\n'

    # a call, a tools/X call, a prompts/X get, a resources/X read
    rc, out, err = sh('bash', """
        echo '{"name":"other","arguments":{}}' > call
        echo who=ann > tools/greet
        : > prompts/ask
        cat 'resources/mem:%2F%2Fnotes' >/dev/null
        cat call tools/greet prompts/ask >/dev/null""", cwd=t)
    assert rc == 0, err
    cats = {f: read_file(t / f) for f in REPLIES}
    assert json.loads(cats['tools/greet'])['content'][0]['text'] == \
        'called greet {"who": "ann"}'
    assert b'prompt ask' in cats['prompts/ask']
    assert cats['call'] == cats['prompts/ask']  # the latest reply
    assert cats['resources/mem:%2F%2Fnotes'] == b'line one\nline two\n'
    # stat and ls -l say the length cat reads; the unread one says 0
    assert sizes(t, REPLIES) == {f: len(b) for f, b in cats.items()}
    # the other resource was read by that tar's open
    assert os.stat(t / 'resources/mem:%2F%2Fnever').st_size == \
        len(b'not read yet\n')
    # a tools/call written to call is a call of that tool (spec 9)
    other = read_file(t / 'tools/other')
    assert b'called other' in other
    assert os.stat(t / 'tools/other').st_size == len(other)
    rc, out, err = sh('bash', 'ls -l tools/greet', cwd=t)
    assert f' {len(cats["tools/greet"])} ' in out, out

    # tar, cp -r and cat agree, byte for byte
    n = len(requests(t))
    err, rc = tar_x(srv, 't1', tmp_path / 'x')
    assert rc == 0 and 'changed' not in err and 'shrank' not in err, err
    subprocess.run(['cp', '-r', str(t), str(tmp_path / 'cp')], check=True,
                   timeout=60)
    for f, data in cats.items():
        assert (tmp_path / 'x/t1' / f).read_bytes() == data, f
        assert (tmp_path / 'cp' / f).read_bytes() == data, f
    # all of it, but for status and trace, which tar's own reads of the
    # resources change (their calls count and their lines)
    r = subprocess.run(['diff', '-r', '-x', 'status', '-x', 'trace',
                        str(tmp_path / 'x/t1'), str(tmp_path / 'cp')],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    # tar and cp read each of the two resources again (spec 9: a read is
    # a resources/read), and called nothing
    assert requests(t)[n:] == ['resources/read'] * 4, requests(t)[n:]


def test_refused_and_in_flight(mcpfs_mount, tmp_path):
    entry, _ = scripted(tmp_path, SPEC)
    m = mcpfs_mount({'s': entry, 'd': demo()})
    t = m.path / 's' / 't1'
    os.mkdir(t)
    # a refused request is a call whose reply is the error: its length
    rc, out, err = sh('bash', "echo '{\"nope\": 1}' > call; "
                      "stat -c %s call; cat call", cwd=t)
    size, reply = out.split('\n', 1)
    assert rc == 0 and int(size) == len(reply.encode()) > 0, (out, err)
    assert 'request refused' in reply, reply
    # a call in flight is 0, and stat neither waits for it nor asks
    d = m.path / 'd' / 't1'
    os.mkdir(d)
    rc, out, err = sh('bash', 'echo ms=600000 > tools/sleep && '
                      'stat -c %s call tools/sleep', cwd=d)
    assert (rc, out) == (0, '0\n0\n'), (out, err)
    sent = requests(d)
    assert sent.count('tools/call') == 1, sent
    rc, out, err = sh('bash', 'stat -c %s call tools/sleep; ls -l; '
                      'find . >/dev/null', cwd=d)
    assert rc == 0 and out.startswith('0\n0\n'), (out, err)
    assert requests(d) == sent
    write_file(d / 'ctl', b'cancel\n')
    wait_until(lambda: os.stat(d / 'call').st_size > 0, what='cancelled')
    reply = read_file(d / 'call')
    assert b'cancel' in reply, reply
    assert os.stat(d / 'call').st_size == len(reply)
    assert os.stat(d / 'tools/sleep').st_size == len(reply)


def test_tail_reads_the_end(mcpfs_mount):
    """tail seeks from the size stat gives: an open file that sent
    nothing reads its reply at the offset, so tail -c and tail -n give
    the reply's end (with the size 0 of main, tail read it as a stream;
    with a size and the offset ignored it printed the reply's head)."""
    m = mcpfs_mount({'d': demo()})
    t = m.path / 'd' / 't1'
    os.mkdir(t)
    text = ''.join('line %05d\n' % i for i in range(3000))
    write_file(t / 'tools/echo', json.dumps({'text': text}).encode())
    whole = read_file(t / 'tools/echo')
    assert len(whole) > 32768 and os.stat(t / 'call').st_size == \
        len(whole)
    for f in ('call', 'tools/echo'):
        for cmd, want in ((f'tail -c 100 {f}', whole[-100:]),
                          (f'tail -c 20000 {f}', whole[-20000:]),
                          (f'tail -n 1 {f}', whole),
                          (f'tail -c +5 {f}', whole[4:]),
                          (f'dd if={f} bs=1000 skip=30 status=none',
                           whole[30000:])):
            r = subprocess.run(['sh', '-c', cmd], cwd=t, capture_output=True,
                               timeout=60)
            assert r.returncode == 0 and r.stdout == want, (cmd, r)


@needs_everything
def test_everything_tar_matches_cat(mcpfs_mount, tmp_path):
    m = mcpfs_mount({'e': everything()})
    srv = m.path / 'e'
    t = srv / 't1'
    os.mkdir(t)
    wait_until(lambda: status(t)['state'] == 'ready', timeout=30,
               what='ready')
    uri = 'demo://resource/static/document/architecture.md'
    res = [r['uri'] for r in
           json.loads(read_file(t / 'resources.json'))['resources']]
    if uri not in res:
        uri = res[0]
    enc = uri.replace('%', '%25').replace('/', '%2F')
    rc, out, err = sh('bash', f"""
        echo '{{"name":"echo","arguments":{{"message":"hi"}}}}' > call
        echo message=there > tools/echo
        cat 'resources/{enc}' > /dev/null""", cwd=t, timeout=120)
    assert rc == 0, err
    files = ['call', 'tools/echo', 'resources/' + enc]
    cats = {f: read_file(t / f) for f in files}
    assert all(cats.values()), cats
    assert sizes(t, files) == {f: len(b) for f, b in cats.items()}
    x = tmp_path / 'x'
    x.mkdir()
    r = subprocess.run(['tar', 'cf', str(tmp_path / 'x.tar')] + files,
                       cwd=t, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    subprocess.run(['tar', 'xf', str(tmp_path / 'x.tar')], cwd=x,
                   check=True, timeout=60)
    subprocess.run(['cp', '-r', str(t), str(tmp_path / 'cp')], check=True,
                   timeout=120)
    for f, data in cats.items():
        assert (x / f).read_bytes() == data, f
        assert (tmp_path / 'cp' / f).read_bytes() == data, f
