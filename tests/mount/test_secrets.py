"""Secrets are never shown (spec 6), on stdio and on HTTP (one test,
parametrized): a secret in a server's env, in its args and one that comes
in through ${VAR} expansion (stdio), a configured header value (an API
key, "Authorization: Bearer ${VAR}") and a key in the URL's query (HTTP)
appear in no file of the mount (the auth file, result/, resources.json
and prompts.json included), in no reply, in the -d log or in mcpfs's
stdout and stderr, not even ten characters of one: after plain calls,
errors, a crash or a dropped connection, a timeout, one-shot calls,
events, ctl restart, a server that fails at start, reloads (one valid,
two invalid with the secret at the syntax error) and rmdir. The servers
did get them (the test is not vacuous)."""

import json
import os
import time
import uuid

import pytest

from conftest import (call, fake, read_file, text, thread, tool, wait_until,
                      write_file)
from hardening_util import read_everything
from test_http import entry, fake_http  # noqa: F401 - the fixture


class StdioSecrets:
    """The fake stdio server with secrets in its env, args and ${VAR}."""

    def __init__(self, mcpfs_mount, fake_http):
        env_secret = f'envsecret-{uuid.uuid4().hex}'
        # the fake server refuses unknown options: the arg secret is the
        # value of one that has no visible effect (a page size no listing
        # reaches)
        self.arg_secret = str(10 ** 17 + uuid.uuid4().int % (8 * 10 ** 17))
        var_secret = f'varsecret-{uuid.uuid4().hex}'
        self.new_secret = f'newsecret-{uuid.uuid4().hex}'
        self.secrets = [env_secret, self.arg_secret, var_secret,
                        self.new_secret]
        self.m = mcpfs_mount(self.servers(env_secret),
                             env={'MCPFS_SEC': var_secret})

    def servers(self, token):
        arg = self.arg_secret
        return {
            'a': dict(fake('--page-size', arg), timeout=1,
                      env={'API_TOKEN': token, 'FROM_VAR': '${MCPFS_SEC}'}),
            'b': dict(fake('--stderr-lines', 3, '--page-size', arg),
                      env={'API_TOKEN': token}),
            'dead': dict(fake('--exit-at-start', 6, '--page-size', arg),
                         env={'API_TOKEN': token}),
        }

    def exercise(self, keep):
        m = self.m
        t, tb = thread(m), thread(m, 'b', 'tb')
        pid = int(text(tool(t, 'pid')))
        assert text(keep(tool(t, 'echo', text='hello'))) == 'hello'
        assert keep(tool(t, 'fail'))['isError'] is True
        assert 'error' in keep(tool(t, 'no_such_tool'))
        assert text(keep(tool(t, 'log', level='info', data='ev'))) == \
            'logged'
        keep(tool(t, 'structured'))
        assert 'crashing now' in json.dumps(
            keep(tool(t, 'crash', code=3, timeout=10)))
        assert int(text(keep(tool(t, 'pid')))) != pid       # restarted
        err = json.dumps(keep(tool(t, 'hang', timeout=10))).lower()
        assert 'timeout' in err or 'timed out' in err, err
        keep(call(t, {'method': 'tools/list'}))
        keep(tool(m.path / 'a', 'echo', text='one-shot'))
        keep(tool(m.path / 'b', 'crash', code=2, timeout=10))
        td = thread(m, 'dead', 'td')
        assert 'error' in keep(tool(td, 'echo', text='x', timeout=15))
        assert 'error' in keep(tool(m.path / 'dead', 'echo', text='x',
                                    timeout=15))
        for d in (m.path / 'a', m.path / 'b', t, tb):
            json.loads(read_file(d / 'tools.json', 20))
        write_file(tb / 'ctl', 'restart\n')
        assert text(keep(tool(tb, 'echo', text='again'))) == 'again'
        # a reload that changes the env (the sessions of a and b close)
        m.reload(self.servers(self.new_secret))
        wait_until(lambda: not (m.path / 'a' / 't').exists(), 10,
                   'the changed server\'s sessions to close')
        self.t2 = thread(m, 'a', 't2')
        keep(tool(self.t2, 'echo', text='after reload'))
        # invalid reloads with a secret right at the syntax error: a value
        # whose quotes were forgotten, a missing comma before an argument
        good = json.dumps({'mcpServers': self.servers(self.new_secret)},
                          indent=1)
        for bad in (good.replace(f'"{self.new_secret}"', self.new_secret, 1),
                    good.replace(f'"{self.arg_secret}"',
                                 f'"x" "{self.arg_secret}"', 1)):
            assert bad != good
            before = m.status().get('config_error')
            m.reload(None, raw=bad)
            wait_until(lambda: m.status().get('config_error') not in
                       (None, '', before), 10, 'the reload error in .status')
        keep(tool(self.t2, 'echo', text='old config kept'))
        time.sleep(0.3)

    def read(self, blobs):
        assert any(k.startswith('file a/t2/') for k in blobs), sorted(blobs)

    def served(self):
        assert text(tool(self.t2, 'env', name='API_TOKEN')) == \
            self.new_secret


class HTTPSecrets:
    """The fake HTTP server requiring a bearer token from ${VAR}, with an
    API key header and a key in the URL's query."""

    def __init__(self, mcpfs_mount, fake_http):
        self.token = 'tok-' + uuid.uuid4().hex
        self.key = 'key-' + uuid.uuid4().hex
        self.in_url = 'url-' + uuid.uuid4().hex   # doc/decisions.md
        self.secrets = [self.token, self.key, self.in_url]
        self.srv = fake_http('--require-header',
                             f'Authorization: Bearer {self.token}')
        e = entry(self.srv, headers={'Authorization': 'Bearer ${MCPFS_HTTP_T}',
                                     'X-Api-Key': self.key})
        e['url'] = f'{self.srv.url}?k={self.in_url}'
        self.m = mcpfs_mount({'h': e}, env={'MCPFS_HTTP_T': self.token})

    def exercise(self, keep):
        t = self.t = thread(self.m, 'h')
        shown = [keep(tool(t, 'echo', text='x')),
                 keep(tool(t, 'sse_echo', text='y')),
                 keep(tool(t, 'http500')), keep(tool(t, 'drop')),
                 keep(tool(t, 'sse_drop_noid')), keep(tool(t, 'notify'))]
        assert text(shown[0]) == 'x' and text(shown[-1]) == 'notified'
        keep(call(self.m.path / 'h' / 'call',
                  {'name': 'echo', 'arguments': {'text': 'z'}}))

    def read(self, blobs):
        for must in ('h/auth', 'h/t/status', 'h/t/resources.json',
                     'h/t/prompts.json', 'h/tools.json', 'h/t/events'):
            assert f'file {must}' in blobs, sorted(blobs)
        assert any(k.startswith('file h/t/result/') for k in blobs), \
            sorted(blobs)
        os.rmdir(self.t)
        wait_until(lambda: len(self.srv.requests('DELETE')) >= 2, 5,
                   'the DELETEs')

    def served(self):
        log = self.srv.mcp()
        assert {r['method'] for r in log} == {'POST', 'GET', 'DELETE'}
        assert all(r['headers'].get('authorization') ==
                   f'Bearer {self.token}' and
                   r['headers'].get('x-api-key') == self.key
                   for r in log), [r for r in log if r['status'] == 401]
        assert {r['query'] for r in log} == {f'k={self.in_url}'}


@pytest.mark.parametrize('side', [StdioSecrets, HTTPSecrets],
                         ids=['stdio', 'http'])
def test_secrets_never_shown(mcpfs_mount, fake_http, side):
    one = side(mcpfs_mount, fake_http)
    m, replies = one.m, []

    def keep(r):
        replies.append(json.dumps(r))
        return r
    one.exercise(keep)
    blobs = {f'file {k}': v for k, v in read_everything(m.path).items()}
    blobs.update({f'reply {i}': r.encode() for i, r in enumerate(replies)})
    one.read(blobs)
    one.served()
    m.unmount()
    for p in (m.log, m.stderr, m.stdout):
        blobs[str(p.name)] = p.read_bytes() if p.exists() else b''
    assert blobs['mcpfs.log'], 'the -d log is empty'
    for name, blob in blobs.items():
        for s in one.secrets:
            # not even a piece of it: any 10 characters of its random part
            core = s.split('-')[-1].encode()
            for i in range(len(core) - 9):
                at = blob.find(core[i:i + 10])
                assert at < 0, \
                    f'secret {s[:12]}... (from its character {i}) shown ' \
                    f'in {name}: {blob[max(0, at - 200):at + 200]!r}'
