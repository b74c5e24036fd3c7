#!/usr/bin/env python3
"""authserver.py - a fake OAuth 2.1 authorization server that is also an
MCP protected resource (MCP authorization, 2025-11-25), for the mount tests
of mcpfs's OAuth (spec 8). Python 3 standard library only.

    python3 tests/fake/authserver.py [options]

One process on 127.0.0.1, on a free port printed as the first line of
stdout (BASE below is http://127.0.0.1:PORT):

  /mcp    the MCP Streamable HTTP endpoint of tests/fake/mcp_http.py (its
          handler is imported and reused: same sessions, tools, /log), but
          every request needs `Authorization: Bearer TOKEN` with a token
          this server issued, unexpired, for the resource BASE/mcp. Without
          one: 401 with `WWW-Authenticate: Bearer resource_metadata=
          "BASE/.well-known/oauth-protected-resource/mcp", scope="S"` (plus
          error="invalid_token" when a bad or expired token was sent). A
          tools/call of a tool given a scope with --tool-scope, by a token
          without that scope: 403 with `WWW-Authenticate: Bearer
          error="insufficient_scope", scope="..."`.
          Extra tools: counter {thread} (text: the session's count after
          incrementing, 1, 2, ...; the argument is only recorded), and
          token_info (text: JSON {client_id, scopes, grant} of the token).
  /.well-known/oauth-protected-resource[/mcp]
          RFC 9728 metadata: resource BASE/mcp, authorization_servers
          [ISSUER], scopes_supported, bearer_methods_supported ["header"].
  /.well-known/oauth-authorization-server[ISSUER_PATH]
  /.well-known/openid-configuration (and ISSUER_PATH/.well-known/...)
          RFC 8414 metadata: issuer (ISSUER = BASE + --issuer-path),
          authorization_endpoint, token_endpoint, registration_endpoint,
          response_types_supported, grant_types_supported,
          code_challenge_methods_supported ["S256"],
          token_endpoint_auth_methods_supported, scopes_supported.
  /authorize  GET: checks client_id (400 if unknown), redirect_uri (400 if
          not registered; loopback redirect URIs match with any port, RFC
          8252 7.3), then redirects with an error (invalid_request,
          unsupported_response_type, invalid_scope, invalid_target,
          unauthorized_client) or answers 302 at once (no UI) to
          redirect_uri?code=C&state=S (&iss=ISSUER with --send-iss).
          Required: response_type=code, code_challenge with
          code_challenge_method=S256, state, resource=BASE/mcp.
  /token  POST form: grant_type authorization_code (code once, same client
          and redirect_uri, code_verifier checked against the S256
          challenge, resource when sent must equal the authorize one; with
          --require-token-resource it must be sent), refresh_token (one
          use: refresh tokens rotate unless --keep-refresh), and
          client_credentials (confidential clients). Client authentication
          client_secret_basic, client_secret_post or none, each only when
          listed in --auth-methods and matching the client (a client with a
          secret must send it). Errors: RFC 6749 5.2 JSON (invalid_client
          is 401). Tokens: random, expires_in --expires-in (left out with
          --no-expiry), a refresh token unless --no-refresh.
  /register  POST JSON: RFC 7591 dynamic client registration (201; a
          client_secret unless token_endpoint_auth_method is "none"; 400
          invalid_client_metadata / invalid_redirect_uri). 404 and left out
          of the metadata with --no-registration.
  --dpop MODE (RFC 9449, SEP-1932): the metadata lists
          dpop_signing_alg_values_supported ["ES256"], tokens are issued
          with token_type DPoP and /mcp takes `Authorization: DPoP TOKEN`
          (proofs are not checked: tests/conformance checks them). MODE
          nonce-loop: /mcp answers every DPoP request 401 `DPoP
          error="use_dpop_nonce"` with `DPoP-Nonce: loop-nonce`, whatever
          the proof holds (a server that never takes its own nonce).
  /log    GET: every request so far as a JSON array (mcp_http.py's records:
          n, t, method, path, query, headers, body, json, status, note),
          the OAuth ones with "params" (the query, decoded), "form" (the
          form body, decoded), "client_auth" (basic|post|none) and
          "client_id" (/token), "location" (/authorize's redirect) and
          "response" (the JSON answered). Secrets are included on purpose:
          only tests read it.

Options:
  --expires-in S          access token lifetime in seconds (default 3600)
  --no-expiry             no expires_in (tokens never expire)
  --revoke-after S        the resource refuses (401 invalid_token) an access
                          token S seconds after it was issued, whatever its
                          expires_in said: the client learns of the expiry
                          only from the 401 (no refresh ahead of time)
  --delay-401 MS          answer a request with a bad, expired or revoked
                          token only after MS (so 401s for an old token still
                          arrive after the client got a new one)
  --no-refresh            issue no refresh tokens
  --keep-refresh          a refresh token stays valid after use (default:
                          it is replaced by the new one)
  --scopes "A B"          scopes_supported (default "mcp:read mcp:write")
  --challenge-scope "A"   the scope= of the 401 challenge (default
                          "mcp:read"; "" leaves it out)
  --tool-scope TOOL=S     tools/call of TOOL needs scope S (repeatable)
  --client ID[:SECRET]    a pre-registered client (repeatable); it may use
                          any loopback redirect URI and every grant
  --auth-methods "M ..."  token_endpoint_auth_methods_supported (default
                          "client_secret_basic client_secret_post none")
  --no-registration       no registration endpoint
  --issuer-path P         the issuer is BASE + P (e.g. /tenant1)
  --bad-issuer            the metadata's issuer is ISSUER + "/not-this-one"
  --insecure-endpoint E   the metadata's E endpoint (authorization, token
                          or registration) is http:// on a host that is not
                          loopback: this machine's first non-loopback IPv4
                          address, where a trap listener records (path
                          "trap:PATH") and refuses whatever reaches it; if
                          there is none, the host trap.invalid
  --send-iss              add iss=ISSUER to the authorization response
  --bad-iss               add iss=ISSUER/not-this-one to it (RFC 9207: the
                          client must refuse the response)
  --no-resource-metadata-header
                          leave resource_metadata out of the 401 challenge
                          (the client must find the well-known path)
  --resource-metadata URL the 401 challenge's resource_metadata is URL (a
                          remote server sending the client somewhere else)
  --public-host IP        listen on every address and name BASE by IP (a
                          server that is not on loopback)
  --token-value T         the access token issued is T as given (CR, LF,
                          spaces...: a server injecting headers)
  --refresh-value T       the refresh token issued is T as given
  --expires-in-json J     expires_in is the JSON number J as given (1e308,
                          -5, 0.5)
"""

import argparse
import base64
import hashlib
import importlib.util
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

import fakehttp

_here = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location('mcp_http',
                                               _here / 'mcp_http.py')
mcp_http = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mcp_http)

mcp_http.TOOLS = mcp_http.TOOLS + ('counter', 'token_info')

A = None            # options
BASE = ''           # http://127.0.0.1:PORT
ISSUER = ''
RESOURCE = ''
TRAP = None         # base URL of the trap listener (--insecure-endpoint)
AS_LOCK = threading.Lock()
CLIENTS = {}        # client_id -> {secret, redirect_uris, method, grants,
                    #               preset}
CODES = {}          # code -> {client_id, redirect_uri, challenge, scopes,
                    #          resource, used, expires}
ACCESS = {}         # token -> {client_id, scopes, resource, expires, grant}
REFRESH = {}        # token -> {client_id, scopes, resource, used}
LOOPBACK = ('127.0.0.1', '[::1]', '::1', 'localhost')


def s256(verifier):
    d = hashlib.sha256(verifier.encode('ascii')).digest()
    return base64.urlsafe_b64encode(d).rstrip(b'=').decode('ascii')


def scope_list(s):
    return [x for x in (s or '').split(' ') if x]


def as_metadata():
    def ep(name, path):
        if A.insecure_endpoint == name:
            return TRAP + path
        return BASE + path
    md = {
        'issuer': ISSUER + ('/not-this-one' if A.bad_issuer else ''),
        'authorization_endpoint': ep('authorization', '/authorize'),
        'token_endpoint': ep('token', '/token'),
        'response_types_supported': ['code'],
        'grant_types_supported': ['authorization_code', 'refresh_token',
                                  'client_credentials'],
        'code_challenge_methods_supported': ['S256'],
        'token_endpoint_auth_methods_supported': scope_list(A.auth_methods),
        'scopes_supported': scope_list(A.scopes),
        'client_id_metadata_document_supported': False,
    }
    if not A.no_registration:
        md['registration_endpoint'] = ep('registration', '/register')
    if A.dpop:
        md['dpop_signing_alg_values_supported'] = ['ES256']
    return md


def pr_metadata():
    return {'resource': RESOURCE, 'authorization_servers': [ISSUER],
            'scopes_supported': scope_list(A.scopes),
            'bearer_methods_supported': ['header']}


def redirect_ok(client, uri):
    """uri is one of the client's redirect URIs (any port on loopback)."""
    try:
        u = urlsplit(uri)
        port = u.port
    except ValueError:
        return False
    loop = u.scheme == 'http' and u.hostname in LOOPBACK
    if client['preset']:
        return loop and port is not None
    for r in client['redirect_uris']:
        if r == uri:
            return True
        v = urlsplit(r)
        if loop and v.scheme == 'http' and v.hostname == u.hostname and \
                v.path == u.path and v.query == u.query:
            return True
    return False


def take_once(table, key, keep=False):
    """The entry of table (CODES, REFRESH) under key if it was not used
    yet, marked used now unless keep; None if unknown or used."""
    with AS_LOCK:
        e = table.get(key)
        if e is None or e['used']:
            return None
        if not keep:
            e['used'] = True
        return e


class Handler(mcp_http.Handler):
    server_version = 'authserver-fake/1'

    # ---- the protected resource

    def challenge(self, error=None, desc=None):
        parts = []
        if error:
            parts.append(f'error="{error}"')
        if desc:
            parts.append(f'error_description="{desc}"')
        if A.resource_metadata:
            parts.append(f'resource_metadata="{A.resource_metadata}"')
        elif not A.no_resource_metadata_header:
            parts.append('resource_metadata="' + BASE +
                         '/.well-known/oauth-protected-resource/mcp"')
        if A.challenge_scope:
            parts.append(f'scope="{A.challenge_scope}"')
        return 'Bearer ' + ', '.join(parts)

    def authorized(self):
        """mcp_http.py's hook, called for every /mcp request."""
        self.tok = None
        h = self.headers.get('Authorization') or ''
        scheme, _, token = h.partition(' ')
        if A.dpop and scheme.lower() == 'dpop' and token.strip():
            if A.dpop == 'nonce-loop':
                self.rec['note'] = 'use_dpop_nonce'
                self.send_text(401, 'nonce', [
                    ('WWW-Authenticate', 'DPoP error="use_dpop_nonce"'),
                    ('DPoP-Nonce', 'loop-nonce')])
                return False
            scheme = 'bearer'
        if scheme.lower() != 'bearer' or not token.strip():
            self.rec['note'] = 'no bearer token'
            self.send_text(401, 'authorization required',
                           [('WWW-Authenticate', self.challenge())])
            return False
        token = token.strip()
        with AS_LOCK:
            info = ACCESS.get(token)
        why = None
        if info is None:
            why = 'unknown token'
        elif info['expires'] is not None and time.time() >= info['expires']:
            why = 'token expired'
        elif A.revoke_after is not None and \
                time.time() >= info['issued'] + A.revoke_after:
            why = 'token revoked'
        elif info['resource'] not in (None, RESOURCE):
            why = 'token not for this resource'
        if why:
            self.rec['note'] = why
            time.sleep((A.delay_401 or 0) / 1000)
            self.send_text(401, why, [('WWW-Authenticate', self.challenge(
                'invalid_token', why))])
            return False
        self.tok = info
        return True

    def dispatch(self, sess, msg):
        params = msg.get('params') or {}
        if msg.get('method') == 'tools/call':
            need = scope_list(TOOL_SCOPES.get(params.get('name'), ''))
            lack = [s for s in need if s not in self.tok['scopes']]
            if lack:
                self.rec['note'] = 'insufficient_scope'
                want = ' '.join(sorted(set(self.tok['scopes']) | set(need)))
                hdr = ('Bearer error="insufficient_scope", '
                       f'scope="{want}", resource_metadata="{BASE}'
                       '/.well-known/oauth-protected-resource/mcp"')
                return self.send_text(403, 'insufficient scope',
                                      [('WWW-Authenticate', hdr)])
        super().dispatch(sess, msg)

    def tool_counter(self, sess, rid, args, params):
        with AS_LOCK:
            sess.ctr = getattr(sess, 'ctr', 0) + 1
            n = sess.ctr
        self.send_json(200, mcp_http.reply(rid, mcp_http.text_result(str(n))))

    def tool_token_info(self, sess, rid, args, params):
        t = self.tok
        info = {'client_id': t['client_id'], 'scopes': t['scopes'],
                'grant': t['grant']}
        self.send_json(200, mcp_http.reply(rid, mcp_http.text_result(
            json.dumps(info))))

    # ---- dispatch

    def path_only(self):
        return self.path.split('?')[0]

    def do_GET(self):
        p = self.path_only()
        wk_as = ('/.well-known/oauth-authorization-server' + A.issuer_path,
                 '/.well-known/openid-configuration' + A.issuer_path,
                 A.issuer_path + '/.well-known/openid-configuration')
        if p in ('/.well-known/oauth-protected-resource',
                 '/.well-known/oauth-protected-resource/mcp'):
            self.record()
            return self.answer(200, pr_metadata())
        if p in wk_as:
            self.record()
            return self.answer(200, as_metadata())
        if p.startswith('/.well-known/'):
            self.record()
            return self.send_text(404, 'no such metadata')
        if p == '/authorize':
            self.record()
            return self.authorize()
        return super().do_GET()

    def do_POST(self):
        p = self.path_only()
        if p == '/token':
            self.record()
            return self.token()
        if p == '/register' and not A.no_registration:
            self.record()
            return self.register()
        return super().do_POST()

    def answer(self, code, obj, headers=()):
        self.rec['response'] = obj
        self.send_json(code, obj, list(headers) +
                       [('Cache-Control', 'no-store')])

    # ---- /authorize

    def authorize(self):
        q = dict(parse_qsl(self.query() or '', keep_blank_values=True))
        self.rec['params'] = q
        with AS_LOCK:
            client = CLIENTS.get(q.get('client_id'))
        if client is None:
            return self.send_text(400, 'unknown client_id')
        ruri = q.get('redirect_uri', '')
        if not redirect_ok(client, ruri):
            return self.send_text(400, 'redirect_uri not registered')

        def back(fields):
            if 'state' in q:
                fields['state'] = q['state']
            if A.send_iss or A.bad_iss:
                fields['iss'] = ISSUER + ('/not-this-one' if A.bad_iss
                                          else '')
            sep = '&' if '?' in ruri else '?'
            loc = ruri + sep + urlencode(fields)
            self.rec['location'] = loc
            self.send_response(302)
            self.send_header('Location', loc)
            self.send_header('Content-Length', '0')
            self.send_header('Cache-Control', 'no-store')
            self.end_headers()

        def error(code, desc):
            self.rec['note'] = f'{code}: {desc}'
            back({'error': code, 'error_description': desc})

        if q.get('response_type') != 'code':
            return error('unsupported_response_type',
                         'response_type must be code')
        if 'authorization_code' not in client['grants']:
            return error('unauthorized_client', 'no authorization_code')
        if not q.get('code_challenge'):
            return error('invalid_request', 'code_challenge missing')
        if q.get('code_challenge_method') != 'S256':
            return error('invalid_request', 'code_challenge_method not S256')
        if not q.get('state'):
            return error('invalid_request', 'state missing')
        if q.get('resource') != RESOURCE:
            return error('invalid_target', f'resource must be {RESOURCE}')
        scopes = scope_list(q.get('scope'))
        bad = [s for s in scopes if s not in scope_list(A.scopes)]
        if bad:
            return error('invalid_scope', 'unknown scope ' + ' '.join(bad))
        code = secrets.token_urlsafe(24)
        with AS_LOCK:
            CODES[code] = {'client_id': q['client_id'], 'redirect_uri': ruri,
                           'challenge': q['code_challenge'],
                           'scopes': scopes, 'resource': q['resource'],
                           'used': False, 'expires': time.time() + 300}
        self.rec['note'] = 'code issued'
        back({'code': code})

    # ---- /token

    def token_error(self, code, desc, status=400):
        self.rec['note'] = f'{code}: {desc}'
        hdr = [('WWW-Authenticate', 'Basic realm="fake"')] \
            if status == 401 else []
        self.answer(status, {'error': code, 'error_description': desc}, hdr)

    def client_auth(self, form):
        """(client, method) of the request, or None after answering."""
        methods = scope_list(A.auth_methods)
        h = self.headers.get('Authorization') or ''
        scheme, _, cred = h.partition(' ')
        if scheme.lower() == 'basic':
            try:
                raw = base64.b64decode(cred.strip(), validate=True).decode()
            except ValueError:
                return self.token_error('invalid_client', 'bad Basic', 401)
            cid, sep, secret = raw.partition(':')
            if not sep:
                return self.token_error('invalid_client', 'bad Basic', 401)
            cid, secret, method = unquote(cid), unquote(secret), \
                'client_secret_basic'
            if form.get('client_id') not in (None, cid):
                return self.token_error('invalid_request',
                                        'client_id differs from Basic')
        elif 'client_secret' in form:
            cid, secret, method = form.get('client_id'), \
                form['client_secret'], 'client_secret_post'
        else:
            cid, secret, method = form.get('client_id'), None, 'none'
        self.rec['client_auth'] = method.replace('client_secret_', '')
        self.rec['client_id'] = cid
        with AS_LOCK:
            client = CLIENTS.get(cid)
        if client is None:
            return self.token_error('invalid_client', 'unknown client', 401)
        if method not in methods:
            return self.token_error('invalid_client',
                                    f'{method} not supported', 401)
        if client['secret'] is None:
            if method != 'none':
                return self.token_error('invalid_client',
                                        'public client sent a secret', 401)
        else:
            if method == 'none':
                return self.token_error('invalid_client',
                                        'client secret missing', 401)
            if not secrets.compare_digest(secret, client['secret']):
                return self.token_error('invalid_client',
                                        'wrong client secret', 401)
            if not client['preset'] and client['method'] != method:
                return self.token_error(
                    'invalid_client', f'registered for {client["method"]}, '
                    f'used {method}', 401)
        return cid, client

    def issue(self, cid, scopes, resource, grant, refresh=True):
        at = A.token_value or secrets.token_urlsafe(32)
        exp = None if A.no_expiry else time.time() + A.expires_in
        res = {'access_token': at,
               'token_type': 'DPoP' if A.dpop else 'Bearer'}
        if scopes:
            res['scope'] = ' '.join(scopes)
        if A.expires_in_json is not None:
            res['expires_in'] = json.loads(A.expires_in_json)
            exp = None
        elif exp is not None:
            res['expires_in'] = A.expires_in
        with AS_LOCK:
            ACCESS[at] = {'client_id': cid, 'scopes': list(scopes),
                          'resource': resource, 'expires': exp,
                          'issued': time.time(), 'grant': grant}
            if refresh and not A.no_refresh:
                rt = A.refresh_value or secrets.token_urlsafe(32)
                REFRESH[rt] = {'client_id': cid, 'scopes': list(scopes),
                               'resource': resource, 'used': False}
                res['refresh_token'] = rt
        self.rec['note'] = f'{grant} tokens issued'
        self.answer(200, res)

    def token(self):
        ctype = (self.headers.get('Content-Type') or '').split(';')[0]
        form = dict(parse_qsl(self.rec['body'] or '',
                              keep_blank_values=True))
        self.rec['form'] = form
        if ctype.strip().lower() != 'application/x-www-form-urlencoded':
            return self.token_error('invalid_request',
                                    'not application/x-www-form-urlencoded')
        got = self.client_auth(form)
        if got is None:
            return
        cid, client = got
        grant = form.get('grant_type')
        resource = form.get('resource')
        if grant == 'authorization_code':
            c = take_once(CODES, form.get('code'))
            if c is None:
                return self.token_error('invalid_grant',
                                        'unknown or used code')
            if c['client_id'] != cid:
                return self.token_error('invalid_grant', 'another client')
            if time.time() > c['expires']:
                return self.token_error('invalid_grant', 'code expired')
            if form.get('redirect_uri') != c['redirect_uri']:
                return self.token_error('invalid_grant',
                                        'redirect_uri differs')
            v = form.get('code_verifier') or ''
            if not 43 <= len(v) <= 128:
                return self.token_error('invalid_grant',
                                        'code_verifier missing or bad length')
            if s256(v) != c['challenge']:
                return self.token_error('invalid_grant',
                                        'code_verifier does not match')
            if resource is None and A.require_token_resource:
                return self.token_error('invalid_target', 'resource missing')
            if resource not in (None, c['resource']):
                return self.token_error('invalid_target', 'other resource')
            return self.issue(cid, c['scopes'], c['resource'],
                              'authorization_code')
        if grant == 'refresh_token':
            r = take_once(REFRESH, form.get('refresh_token'),
                          keep=A.keep_refresh)
            if r is None:
                return self.token_error('invalid_grant',
                                        'unknown or used refresh token')
            if r['client_id'] != cid:
                return self.token_error('invalid_grant', 'another client')
            if resource not in (None, r['resource']):
                return self.token_error('invalid_target', 'other resource')
            scopes = scope_list(form.get('scope')) or r['scopes']
            if any(s not in r['scopes'] for s in scopes):
                return self.token_error('invalid_scope', 'wider scope')
            return self.issue(cid, scopes, r['resource'], 'refresh_token')
        if grant == 'client_credentials':
            if client['secret'] is None:
                return self.token_error('unauthorized_client',
                                        'public client')
            if 'client_credentials' not in client['grants']:
                return self.token_error('unauthorized_client',
                                        'grant not registered')
            scopes = scope_list(form.get('scope'))
            if any(s not in scope_list(A.scopes) for s in scopes):
                return self.token_error('invalid_scope', 'unknown scope')
            if resource not in (None, RESOURCE):
                return self.token_error('invalid_target', 'other resource')
            return self.issue(cid, scopes, resource or RESOURCE,
                              'client_credentials', refresh=False)
        return self.token_error('unsupported_grant_type', f'{grant}')

    # ---- /register

    def register(self):
        md = self.rec['json']
        if not isinstance(md, dict):
            return self.answer(400, {'error': 'invalid_client_metadata',
                                     'error_description': 'not JSON'})
        method = md.get('token_endpoint_auth_method', 'client_secret_basic')
        grants = md.get('grant_types', ['authorization_code'])
        uris = md.get('redirect_uris')
        err = None
        if method not in scope_list(A.auth_methods):
            err = ('invalid_client_metadata', f'{method} not supported')
        elif not isinstance(grants, list) or not all(
                isinstance(g, str) for g in grants):
            err = ('invalid_client_metadata', 'bad grant_types')
        elif 'authorization_code' in grants and (
                not isinstance(uris, list) or not uris or
                not all(isinstance(u, str) for u in uris)):
            err = ('invalid_redirect_uri', 'redirect_uris missing')
        elif isinstance(uris, list) and any(
                urlsplit(u).scheme != 'https' and
                urlsplit(u).hostname not in LOOPBACK for u in uris):
            err = ('invalid_redirect_uri', 'not https and not loopback')
        if err:
            return self.answer(400, {'error': err[0],
                                     'error_description': err[1]})
        cid = 'dyn-' + secrets.token_hex(8)
        secret = None if method == 'none' else secrets.token_urlsafe(24)
        with AS_LOCK:
            CLIENTS[cid] = {'secret': secret, 'redirect_uris': uris or [],
                            'method': method, 'grants': grants,
                            'preset': False}
        out = dict(md, client_id=cid, client_id_issued_at=int(time.time()),
                   token_endpoint_auth_method=method, grant_types=grants)
        if secret:
            out['client_secret'] = secret
            out['client_secret_expires_at'] = 0
        self.rec['note'] = f'registered {cid}'
        self.answer(201, out)


class TrapHandler(BaseHTTPRequestHandler):
    """Whatever reaches the insecure endpoint: recorded, refused."""
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def refuse(self):
        n = int(self.headers.get('Content-Length') or 0)
        if n:
            self.rfile.read(n)
        with mcp_http.LOCK:
            mcp_http.LOG.append({'n': len(mcp_http.LOG), 't': time.monotonic(),
                                 'method': self.command,
                                 'path': 'trap:' + self.path.split('?')[0],
                                 'query': self.path.partition('?')[2] or None,
                                 'headers': {}, 'body': None, 'json': None,
                                 'status': 403, 'note': 'trap'})
        body = b'this endpoint is a trap\n'
        self.send_response(403)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = refuse


TOOL_SCOPES = {}


def main(argv=None):
    global A, BASE, ISSUER, RESOURCE, TRAP
    ap = argparse.ArgumentParser(description='fake OAuth authorization '
                                 'server and MCP resource (see the '
                                 'docstring)')
    ap.add_argument('--expires-in', type=int, default=3600)
    ap.add_argument('--no-expiry', action='store_true')
    ap.add_argument('--revoke-after', type=float)
    ap.add_argument('--delay-401', type=int)
    ap.add_argument('--no-refresh', action='store_true')
    ap.add_argument('--keep-refresh', action='store_true')
    ap.add_argument('--scopes', default='mcp:read mcp:write')
    ap.add_argument('--challenge-scope', default='mcp:read')
    ap.add_argument('--tool-scope', action='append', default=[])
    ap.add_argument('--client', action='append', default=[])
    ap.add_argument('--auth-methods',
                    default='client_secret_basic client_secret_post none')
    ap.add_argument('--no-registration', action='store_true')
    ap.add_argument('--issuer-path', default='')
    ap.add_argument('--bad-issuer', action='store_true')
    ap.add_argument('--insecure-endpoint',
                    choices=('authorization', 'token', 'registration'))
    ap.add_argument('--send-iss', action='store_true')
    ap.add_argument('--bad-iss', action='store_true')
    ap.add_argument('--require-token-resource', action='store_true')
    ap.add_argument('--no-resource-metadata-header', action='store_true')
    ap.add_argument('--resource-metadata')
    ap.add_argument('--public-host')
    ap.add_argument('--token-value')
    ap.add_argument('--refresh-value')
    ap.add_argument('--expires-in-json')
    ap.add_argument('--dpop', choices=('bind', 'nonce-loop'))
    A = ap.parse_args(argv)
    if A.issuer_path and not A.issuer_path.startswith('/'):
        ap.error('--issuer-path must start with /')
    for ts in A.tool_scope:
        name, sep, sc = ts.partition('=')
        if not sep or not sc:
            ap.error(f'--tool-scope {ts}: want TOOL=SCOPE')
        TOOL_SCOPES[name] = sc
    for c in A.client:
        cid, sep, secret = c.partition(':')
        CLIENTS[cid] = {'secret': secret if sep else None,
                        'redirect_uris': [], 'method': None,
                        'grants': ['authorization_code', 'refresh_token',
                                   'client_credentials'],
                        'preset': True}
    # mcp_http.py's own options: a plain Streamable HTTP server
    mcp_http.OPTS = argparse.Namespace(
        init_status=None, require_header=None, protocol=None, page_size=100,
        sse_init=False, no_get=False, stateless=False,
        initialized_delay=None, legacy_sse=False, endpoint=None,
        endpoint_delay=None)
    mcp_http.SHARED = mcp_http.Session()
    srv = mcp_http.Server(('0.0.0.0' if A.public_host else '127.0.0.1', 0),
                          Handler)
    port = srv.server_address[1]
    BASE = f'http://{A.public_host or "127.0.0.1"}:{port}'
    ISSUER = BASE + A.issuer_path
    RESOURCE = BASE + '/mcp'
    if A.insecure_endpoint:
        ip = fakehttp.non_loopback_ipv4()
        trap = None
        if ip:
            try:
                trap = mcp_http.Server((ip, 0), TrapHandler)
            except OSError:
                trap = None
        if trap:
            TRAP = f'http://{ip}:{trap.server_address[1]}'
            threading.Thread(target=trap.serve_forever, daemon=True).start()
        else:
            TRAP = 'http://trap.invalid'
    fakehttp.serve(srv)


if __name__ == '__main__':
    sys.exit(main())
