"""Helpers for the OAuth tests: tests/fake/authserver.py as a fixture, plain
HTTP without following redirects (the browser step), the token store's
layout (spec 8: one file per server URL, 0600 in a 0700 directory) and the secrets the fake
issued, for the checks that none leaks."""

import base64
import hashlib
import http.client
import json
import os
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest

from conftest import REPO, FakeProcess, fake_factory, run_with_deadline

AUTHSERVER = REPO / 'tests/fake/authserver.py'


class AuthServer(FakeProcess):
    """One running tests/fake/authserver.py."""

    script = AUTHSERVER

    def get_json(self, path):
        st, _, body = http_get(self.base + path)
        assert st == 200, (path, st, body)
        return json.loads(body)

    def metadata(self):
        return self.get_json('/.well-known/oauth-authorization-server')

    def authorizes(self):
        """The /authorize requests so far."""
        return [r for r in self.log() if r['path'] == '/authorize']

    def tokens(self, grant=None):
        """The /token requests so far (of one grant_type)."""
        return [r for r in self.log() if r['path'] == '/token' and
                (grant is None or (r.get('form') or {}).get('grant_type')
                 == grant)]

    def registrations(self):
        return [r for r in self.log() if r['path'] == '/register']

    def traps(self):
        return [r for r in self.log() if r['path'].startswith('trap:')]

    def tool_calls(self, name):
        out = []
        for r in self.mcp():
            j = r['json'] if isinstance(r['json'], dict) else {}
            if r['method'] == 'POST' and j.get('method') == 'tools/call' \
                    and (j.get('params') or {}).get('name') == name:
                out.append(r)
        return out

    def secrets(self):
        """Every secret the fake issued or was sent: client secrets,
        codes, code verifiers, access and refresh tokens."""
        out = set()
        for r in self.log():
            resp = r.get('response') if isinstance(r.get('response'),
                                                   dict) else {}
            for k in ('client_secret', 'access_token', 'refresh_token'):
                if resp.get(k):
                    out.add(resp[k])
            form = r.get('form') or {}
            for k in ('code', 'code_verifier', 'refresh_token',
                      'client_secret'):
                if form.get(k):
                    out.add(form[k])
            if r.get('location'):
                q = dict(parse_qsl(urlsplit(r['location']).query))
                if q.get('code'):
                    out.add(q['code'])
            auth = (r.get('headers') or {}).get('authorization', '')
            if auth.lower().startswith('bearer '):
                out.add(auth[7:].strip())
        return out

    def diag(self):
        """The OAuth part of the log, short, for failure messages."""
        out = []
        for r in self.log():
            if r['path'] == '/mcp':
                continue
            out.append({k: r.get(k) for k in ('method', 'path', 'status',
                                               'note', 'params', 'form')})
        return json.dumps(out, indent=1)[-4000:]


@pytest.fixture
def authserver(tmp_path):
    """Factory: srv = authserver(*options) starts tests/fake/authserver.py;
    every one started is stopped at teardown."""
    yield from fake_factory(AuthServer, tmp_path)


# ---------------------------------------------------------------- HTTP

def http_request(url, method='GET', body=None, headers=None, timeout=10):
    """One HTTP request, no redirect followed: (status, headers with
    lower-cased names, body text)."""
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        path = u.path or '/'
        if u.query:
            path += '?' + u.query
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        data = r.read().decode('utf-8', 'replace')
        return r.status, {k.lower(): v for k, v in r.getheaders()}, data
    finally:
        conn.close()


def http_get(url, headers=None, timeout=10):
    return http_request(url, 'GET', headers=headers, timeout=timeout)


def post_form(url, fields, headers=None):
    h = {'Content-Type': 'application/x-www-form-urlencoded'}
    h.update(headers or {})
    st, hd, body = http_request(url, 'POST', urlencode(fields).encode(), h)
    try:
        return st, hd, json.loads(body)
    except ValueError:
        return st, hd, body


def post_json(url, obj, headers=None):
    h = {'Content-Type': 'application/json'}
    h.update(headers or {})
    st, hd, body = http_request(url, 'POST', json.dumps(obj).encode(), h)
    try:
        return st, hd, json.loads(body)
    except ValueError:
        return st, hd, body


def basic(cid, secret):
    from urllib.parse import quote
    raw = f'{quote(cid, safe="")}:{quote(secret, safe="")}'.encode()
    return 'Basic ' + base64.b64encode(raw).decode()


def s256(verifier):
    d = hashlib.sha256(verifier.encode('ascii')).digest()
    return base64.urlsafe_b64encode(d).rstrip(b'=').decode('ascii')


def query_of(url):
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def with_query(url, **changes):
    """url with these query parameters replaced."""
    u = urlsplit(url)
    q = dict(parse_qsl(u.query, keep_blank_values=True))
    q.update(changes)
    return urlunsplit((u.scheme, u.netloc, u.path, urlencode(q), u.fragment))


def authorize_redirect(authorization_url):
    """The browser's first half: GET the authorization URL without
    following the redirect; returns the Location (the final redirect URL,
    mcpfs's loopback callback with code and state)."""
    st, hd, body = run_with_deadline(
        lambda: http_get(authorization_url), 15, 'GET authorizationUrl')
    assert st == 302, f'authorize answered {st}: {body[:300]}'
    loc = hd['location']
    assert 'code=' in loc, f'authorize redirected with an error: {loc}'
    return loc


def open_callback(location):
    """The browser's second half: GET the final redirect URL (mcpfs's
    loopback listener); returns (status, body)."""
    st, _, body = run_with_deadline(lambda: http_get(location), 15,
                                    'GET the redirect URI')
    return st, body


# ---------------------------------------------------------------- store

def store_dir(state_home):
    return Path(state_home) / 'mcpfs' / 'auth'


def store_name(url):
    return hashlib.sha256(url.encode()).hexdigest()[:32] + '.json'


def store_file(state_home, url):
    return store_dir(state_home) / store_name(url)


def mode_of(path):
    return os.stat(path).st_mode & 0o7777
