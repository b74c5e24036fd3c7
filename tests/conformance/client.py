#!/usr/bin/env python3
"""The MCP conformance suite's client, played by mcpfs through its files.

@modelcontextprotocol/conformance (client mode) runs this as its client
command with the scenario's server URL as the last argument and the scenario
name in MCP_CONFORMANCE_SCENARIO. It mounts mcpfs (MCPFS_BUILD/mcpfs, default
build/mcpfs) with that URL as the one server `srv`, does what the scenario
asks with mkdir, read and write only (answering the server's questions
through the thread's requests/ directory), unmounts, and exits 0 when every reply
was what the scenario's server should have sent (1 otherwise, with the reason
on stderr). Scenarios it knows nothing about get a handshake, a tools.json
read and a call of every listed tool with empty arguments.
"""

import json
import os
import subprocess
import urllib.error
import urllib.request
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get('MCPFS_BUILD', REPO / 'build'))


def log(*a):
    print('conformance client:', *a, file=sys.stderr, flush=True)


def call(thread, obj):
    """Write one request to thread/call, read its reply (one JSON)."""
    fd = os.open(thread / 'call', os.O_RDWR)
    try:
        os.write(fd, json.dumps(obj).encode())
        out = b''
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            out += b
    finally:
        os.close(fd)
    return json.loads(out)


def tool(thread, name, **args):
    reply = call(thread, {'name': name, 'arguments': args})
    log(name, '->', json.dumps(reply)[:300])
    return reply


def text_of(reply):
    return ''.join(c.get('text', '') for c in reply.get('content', []))


def wait_ready(thread, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        st = json.loads((thread / 'status').read_text())
        if st['state'] == 'ready':
            return st
        if st['state'] == 'exited':
            raise RuntimeError('session did not start: %s' % st['last_error'])
        time.sleep(0.05)
    raise RuntimeError('session not ready after %ss' % timeout)


def expect(cond, what):
    if not cond:
        raise RuntimeError(what)


def answer_question(thread, answer, timeout=20):
    """Wait for the one question the server asks in thread/requests/,
    read it, write answer (one JSON value) into it, and check it is gone."""
    reqs = thread / 'requests'
    end = time.time() + timeout
    while not os.listdir(reqs):
        if time.time() > end:
            raise RuntimeError('no question in requests/ after %ss' % timeout)
        time.sleep(0.05)
    name = sorted(os.listdir(reqs))[0]
    q = json.loads((reqs / name).read_text())
    log('question', name, '->', json.dumps(q)[:300])
    expect(q['method'] == 'elicitation/create', q)
    fd = os.open(reqs / name, os.O_WRONLY)
    try:
        os.write(fd, json.dumps(answer).encode())
    finally:
        os.close(fd)
    expect(name not in os.listdir(reqs), 'question still open after answer')


def tool_answering(thread, name, answer):
    """Call tool name while answering the question it makes the server ask."""
    box = {}

    def run_call():
        try:
            box['reply'] = tool(thread, name)
        except Exception as e:  # re-raised below
            box['error'] = e
    t = threading.Thread(target=run_call, daemon=True)
    t.start()
    answer_question(thread, answer)
    t.join(30)
    expect(not t.is_alive(), 'no reply to %s after the answer' % name)
    if 'error' in box:
        raise box['error']
    return box['reply']


CUSTOM_HEADER_ARGS = {
    'region': 'us-west1', 'priority': 42, 'verbose': False, 'debug': True,
    'empty_val': '', 'method_val': 'GET', 'float_val': 3.5,
    'non_ascii_val': 'Hello, \u4e16\u754c', 'whitespace_val': ' padded ',
    'leading_space_val': ' lead', 'trailing_space_val': 'trail ',
    'internal_space_val': 'a b c', 'control_char_val': 'a\x01b',
    'crlf_val': 'line1\r\nline2', 'tab_val': '\tx', 'query': 'SELECT 1'}


def run_modern(scenario, thread):
    """The 2026-07-28 scenarios of the 0.2.0 suite; False if not one."""
    if scenario == 'http-custom-headers':
        r = tool(thread, 'test_custom_headers', **CUSTOM_HEADER_ARGS)
        expect(not r.get('isError') and 'error' not in r, r)
        r = tool(thread, 'test_custom_headers_null', region='eu',
                 priority=1, verbose=None, query='q')
        expect(not r.get('isError') and 'error' not in r, r)
        return True
    if scenario == 'json-schema-ref-no-deref':
        tools = json.loads((thread / 'tools.json').read_text())['tools']
        expect([t['name'] for t in tools] == ['lookup_user'], tools)
        return True
    if scenario == 'json-schema-2020-12-preservation':
        tools = json.loads((thread / 'tools.json').read_text())['tools']
        focal = [t for t in tools if t['name'] != 'json_schema_echo']
        expect(len(focal) == 1, tools)
        r = tool(thread, 'json_schema_echo', schema=focal[0]['inputSchema'])
        expect(text_of(r) == 'echoed', r)
        return True
    if scenario == 'sep-2322-client-request-state':
        for name, want in (('test_mrtr_echo_state', 'echo-state-ok'),
                           ('test_mrtr_no_state', 'no-state-ok')):
            r = tool_answering(thread, name, {'action': 'accept',
                                              'content': {'confirmed': True}})
            expect(text_of(r) == want, r)
        r = tool(thread, 'test_mrtr_unrelated')
        expect(text_of(r) == 'unrelated-ok', r)
        r = tool(thread, 'test_mrtr_no_result_type')
        expect(text_of(r) == 'no-result-type-test-ok', r)
        return True
    return False


SKILL = 'pdf-processing'
SKILL_FILE = 'references/FORMS.md'


def run_skills(scenario, thread):
    """The skills scenarios (SEP-2640), driven as a user of skills/ would:
    ls skills (the listing: no file of a skill may be read for it), then,
    but for no-prefetch, cat the skill's SKILL.md, which the suite serves
    tampered (its digest, its size or its frontmatter differ from the
    listing's entry): mcpfs must refuse it (EIO), and a user who saw it
    refused does not go on to the skill's other files. False if not one."""
    if not scenario.startswith('sep-2640-client-'):
        return False
    names = sorted(os.listdir(thread / 'skills'))
    log('ls skills ->', names)
    expect(names == [SKILL], names)
    if scenario == 'sep-2640-client-no-prefetch':
        return True
    p = subprocess.run(['cat', str(thread / 'skills' / SKILL / 'SKILL.md')],
                       capture_output=True)
    log('cat SKILL.md ->', p.returncode, p.stdout[:200], p.stderr[:200])
    expect(p.returncode != 0 and not p.stdout,
           'a tampered SKILL.md was shown: %r' % p.stdout[:200])
    expect(b'Input/output error' in p.stderr, p.stderr)
    st = json.loads((thread / 'status').read_text())
    log('status warnings ->', json.dumps(st.get('warnings'))[:400])
    return True


def era_of_version():
    """The era key for the version the suite asks for (0.2.0 sets
    MCP_CONFORMANCE_PROTOCOL_VERSION): modern for 2026-07-28 and later,
    else auto (mcpfs detects; 0.1.16 does not set it)."""
    v = os.environ.get('MCP_CONFORMANCE_PROTOCOL_VERSION', '')
    return 'modern' if v >= '2026-07-28' else 'auto'


def run(scenario, thread):
    wait_ready(thread)
    if run_modern(scenario, thread) or run_skills(scenario, thread):
        return
    if scenario == 'initialize':
        return
    if scenario == 'tools_call':
        tools = json.loads((thread / 'tools.json').read_text())['tools']
        expect([t['name'] for t in tools] == ['add_numbers'], tools)
        r = tool(thread, 'add_numbers', a=5, b=3)
        expect(text_of(r) == 'The sum of 5 and 3 is 8', r)
        return
    if scenario == 'sse-retry':
        r = tool(thread, 'test_reconnection')
        expect(text_of(r) == 'Reconnection test completed successfully', r)
        return
    if scenario == 'elicitation-sep1034-client-defaults':
        # accept with nothing filled in: mcpfs applies the defaults
        r = tool_answering(thread, 'test_client_elicitation_defaults',
                           {'action': 'accept', 'content': {}})
        expect(text_of(r).startswith('Elicitation completed: '), r)
        got = json.loads(text_of(r)[len('Elicitation completed: '):])
        expect(got == {'name': 'John Doe', 'age': 30, 'score': 95.5,
                       'status': 'active', 'verified': True}, got)
        return
    tools = json.loads((thread / 'tools.json').read_text()).get('tools', [])
    for t in tools:
        r = tool(thread, t['name'])
        expect('error' not in r and not r.get('isError'), r)


# ---- the auth/* scenarios: mcpfs as an OAuth client, this as the browser ----

CIMD_URL = 'https://conformance-test.local/client-metadata.json'
# scenarios whose server refuses on purpose (the suite allows a client error)
AUTH_REFUSED = ('auth/scope-retry-limit', 'auth/resource-mismatch')


def oauth_config(scenario, tmp):
    """The server's "oauth" config of an auth scenario, from the suite's
    MCP_CONFORMANCE_CONTEXT (client id, secret, private key)."""
    ctx = json.loads(os.environ.get('MCP_CONFORMANCE_CONTEXT') or '{}')
    conf = {}
    if scenario == 'auth/basic-cimd':
        conf['clientMetadataUrl'] = CIMD_URL
    if ctx.get('client_id'):
        conf['clientId'] = ctx['client_id']
    if ctx.get('client_secret'):
        conf['clientSecret'] = ctx['client_secret']
    if ctx.get('private_key_pem'):
        key = tmp / 'client-key.pem'
        key.write_text(ctx['private_key_pem'])
        key.chmod(0o600)
        conf['privateKeyFile'] = str(key)
    if 'client-credentials' in scenario:
        conf['grant'] = 'client_credentials'
    if ctx.get('valid_jwt'):  # SEP-1933 workload identity federation
        conf.update(grant='jwt_bearer', assertion=ctx['valid_jwt'])
    if ctx.get('idp_id_token'):  # SEP-990 cross-app access
        conf.update(grant='jwt_bearer', idpIdToken=ctx['idp_id_token'],
                    idpTokenEndpoint=ctx['idp_token_endpoint'],
                    idpClientId=ctx.get('idp_client_id', ''))
    return conf


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def browse(auth_file, timeout=15):
    """Play the browser: wait for the authorization URL in auth, GET it
    without following the redirect, GET the Location (mcpfs's loopback
    callback), and wait until auth says authorized."""
    end = time.time() + timeout
    while True:
        st = json.loads(auth_file.read_text())
        if st.get('authorizationUrl'):
            break
        if st['state'] == 'failed':
            raise RuntimeError('authorization failed: %s' % st.get('error'))
        if time.time() > end:
            raise RuntimeError('no authorizationUrl in auth: %s' % st)
        time.sleep(0.05)
    log('browser: GET', st['authorizationUrl'][:200])
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(st['authorizationUrl'], timeout=10)
        raise RuntimeError('the authorization endpoint did not redirect')
    except urllib.error.HTTPError as e:
        loc = e.headers.get('Location')
        if e.code not in (301, 302, 303, 307) or not loc:
            raise RuntimeError('authorize answered %s' % e.code)
    log('browser: callback', loc.split('?')[0])
    try:
        with urllib.request.urlopen(loc, timeout=20) as r:
            log('browser: callback answered', r.status)
    except urllib.error.HTTPError as e:
        raise RuntimeError('callback answered %s: %s' %
                           (e.code, e.read()[:200]))
    st = json.loads(auth_file.read_text())
    log('auth:', json.dumps(st))
    if st['state'] != 'authorized':
        raise RuntimeError('not authorized after the callback: %s' % st)


def auth_call(thread, auth_file, obj, tries=5):
    """A call that signs in (browse) each time it fails for authorization
    (-32001 with data.auth), then is made again."""
    for _ in range(tries):
        r = call(thread, obj)
        log(obj.get('method', obj.get('name')), '->', json.dumps(r)[:300])
        err = r.get('error') if isinstance(r, dict) else None
        if not (err and err.get('code') == -32001 and
                'auth' in (err.get('data') or {})):
            return r
        st = json.loads(auth_file.read_text())
        if st['state'] == 'failed':
            return r
        browse(auth_file)
    return r


def run_auth(scenario, thread, auth_file):
    r = auth_call(thread, auth_file, {'method': 'tools/list', 'params': {}})
    expect('error' not in r, r)
    for t in r.get('tools', []):
        r = auth_call(thread, auth_file, {'name': t['name'],
                                          'arguments': {}})
        expect('error' not in r and not r.get('isError'), r)


def dpop_secrecy(tmp, mnt, thread, logf):
    """After a DPoP scenario: the key is in the token store (mode 0600) and
    in nothing mcpfs shows (auth, status, trace, the log). The findings go
    to MCPFS_CONF_REPORT (a JSON file) when set, for test_conformance."""
    stores = [f for f in (tmp / 'state').rglob('*.json') if f.is_file()]
    keys = [json.loads(f.read_text()).get('dpop_key') for f in stores]
    found = [(f, k) for f, k in zip(stores, keys) if k]
    expect(len(found) == 1, 'no DPoP key in the token store: %s' % stores)
    store, key = found[0]
    mode = store.stat().st_mode & 0o777
    # a line of the key's base64, and its header
    lines = [l for l in key.splitlines() if l and not l.startswith('-')]
    shown = {'auth': (mnt / 'srv' / 'auth').read_text(),
             'status': (thread / 'status').read_text(),
             'trace': (thread / 'trace').read_text(),
             'log': logf.read_text() if logf.exists() else ''}
    leaks = [n for n, t in shown.items()
             if 'PRIVATE KEY' in t or any(l in t for l in lines)]
    rep = {'store_mode': oct(mode), 'key_type': key.splitlines()[0],
           'leaks': leaks}
    log('DPoP key:', json.dumps(rep))
    if os.environ.get('MCPFS_CONF_REPORT'):
        Path(os.environ['MCPFS_CONF_REPORT']).write_text(json.dumps(rep))
    expect(mode == 0o600 and not leaks, rep)


def main():
    url = sys.argv[-1]
    scenario = os.environ.get('MCP_CONFORMANCE_SCENARIO', '')
    log('scenario', scenario, 'url', url)
    with tempfile.TemporaryDirectory(prefix='mcpfs-conf.') as tmp:
        tmp = Path(tmp)
        cfg = tmp / 'servers.json'
        entry = {'url': url, 'timeout': 20, 'era': era_of_version()}
        auth = scenario.startswith('auth/')
        if auth:
            entry['oauth'] = oauth_config(scenario, tmp) or True
        cfg.write_text(json.dumps({'mcpServers': {'srv': entry}}))
        env = dict(os.environ, XDG_STATE_HOME=str(tmp / 'state'))
        mnt = tmp / 'mnt'
        mnt.mkdir()
        logf = tmp / 'mcpfs.log'
        subprocess.run([str(BUILD / 'mcpfs'), '-c', str(cfg), '-d',
                        '--log', str(logf), str(mnt)], check=True, env=env)
        ok = False
        try:
            thread = mnt / 'srv' / 't1'
            thread.mkdir()
            if auth:
                run_auth(scenario, thread, mnt / 'srv' / 'auth')
                if scenario.startswith('auth/dpop'):
                    dpop_secrecy(tmp, mnt, thread, logf)
            else:
                run(scenario, thread)
            thread.rmdir()
            ok = True
        except Exception as e:  # the reason goes to the suite's stderr.txt
            log('FAILED:', e)
        finally:
            subprocess.run(['fusermount3', '-u', str(mnt)], check=False)
            for _ in range(100):  # mcpfs closes the session, then exits
                if not any(str(mnt) in l for l in open('/proc/mounts')):
                    break
                time.sleep(0.05)
            sys.stderr.write(logf.read_text() if logf.exists() else '')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
