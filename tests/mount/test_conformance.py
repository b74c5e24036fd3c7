"""The official MCP conformance suite (@modelcontextprotocol/conformance,
pinned in package.json) in client mode, with mcpfs as the client through
tests/conformance/client.py: the scenarios mcpfs must pass (in
elicitation-sep1034-client-defaults client.py answers the server's question
through requests/ with an empty accepted form, and mcpfs fills in the
defaults), and every auth/* scenario of 0.1.16 (client.py plays the browser:
it reads the server's auth file, GETs the authorization URL without following
the redirect, then the Location, mcpfs's loopback callback).
tests/conformance/run.sh lists them all with their results; see doc/eras.md
("Conformance").
The prerelease 0.2.0-alpha.12 (CONFORMANCE=next) adds the 2026-07-28 client
scenarios, run in the modern era (client.py reads
MCP_CONFORMANCE_PROTOCOL_VERSION), and extension scenarios (DPoP, workload
identity, skills), which run.sh gives --force: every client scenario it
lists is run here (NEXT_SCENARIOS, checked against its list), and one that
checked nothing ("Passed: 0/0") fails.
"""

import json
import os
import re
import subprocess

import pytest

from conftest import BUILD, REPO

RUN = REPO / 'tests/conformance/run.sh'
CLI = REPO / 'node_modules/@modelcontextprotocol/conformance/dist/index.js'


def passes(scenario, **env):
    """Run one scenario through run.sh; its line must say PASS n/n."""
    env = dict(os.environ, MCPFS_BUILD=str(BUILD), CONFORMANCE_VERBOSE='1',
               **env)
    p = subprocess.run(['sh', str(RUN), scenario], env=env, timeout=300,
                       capture_output=True, text=True)
    first = p.stdout.splitlines()[0] if p.stdout else ''
    assert p.returncode == 0, p.stdout + p.stderr
    assert first.split()[:2] == [scenario, 'PASS'], p.stdout
    done, total = first.split('Passed: ')[1].split('/')
    assert done == total and int(total) >= 1, first


@pytest.mark.parametrize('scenario', [
    'initialize', 'tools_call', 'sse-retry',
    'elicitation-sep1034-client-defaults',
    'auth/metadata-default', 'auth/metadata-var1', 'auth/metadata-var2',
    'auth/metadata-var3', 'auth/basic-cimd',
    'auth/scope-from-www-authenticate', 'auth/scope-from-scopes-supported',
    'auth/scope-omitted-when-undefined', 'auth/scope-step-up',
    'auth/scope-retry-limit', 'auth/token-endpoint-auth-basic',
    'auth/token-endpoint-auth-post', 'auth/token-endpoint-auth-none',
    'auth/pre-registration', 'auth/2025-03-26-oauth-metadata-backcompat',
    'auth/2025-03-26-oauth-endpoint-fallback', 'auth/resource-mismatch',
    'auth/offline-access-scope', 'auth/offline-access-not-supported',
    'auth/client-credentials-jwt', 'auth/client-credentials-basic',
    'auth/cross-app-access-complete-flow'])
def test_client_scenario_passes(scenario):
    if not CLI.exists():
        pytest.skip('the conformance suite is missing (npm ci)')
    passes(scenario)


NEXT_CLI = REPO / 'node_modules/conformance-next/dist/index.js'


# Every client scenario of the prerelease (its `list`), dated and extension.
NEXT_SCENARIOS = [
    'initialize', 'tools_call', 'elicitation-sep1034-client-defaults',
    'sse-retry', 'request-metadata',
    'auth/metadata-default', 'auth/metadata-var1', 'auth/metadata-var2',
    'auth/metadata-var3', 'auth/basic-cimd',
    'auth/scope-from-www-authenticate', 'auth/scope-from-scopes-supported',
    'auth/scope-omitted-when-undefined', 'auth/scope-step-up',
    'auth/scope-retry-limit', 'auth/token-endpoint-auth-basic',
    'auth/token-endpoint-auth-post', 'auth/token-endpoint-auth-none',
    'auth/pre-registration', 'auth/2025-03-26-oauth-metadata-backcompat',
    'auth/2025-03-26-oauth-endpoint-fallback', 'auth/resource-mismatch',
    'auth/offline-access-scope', 'auth/offline-access-not-supported',
    'auth/authorization-server-migration', 'auth/iss-supported',
    'auth/iss-not-advertised', 'auth/iss-supported-missing',
    'auth/iss-wrong-issuer', 'auth/iss-unexpected', 'auth/iss-normalized',
    'auth/metadata-issuer-mismatch', 'auth/client-credentials-jwt',
    'auth/client-credentials-basic', 'auth/enterprise-managed-authorization',
    'auth/dpop', 'auth/dpop-nonce', 'auth/wif-jwt-bearer',
    'sep-2322-client-request-state', 'http-standard-headers',
    'http-custom-headers', 'http-invalid-tool-headers',
    'json-schema-ref-no-deref', 'json-schema-2020-12-preservation',
    'sep-2640-client-no-prefetch', 'sep-2640-client-verify-digest',
    'sep-2640-client-verify-size', 'sep-2640-client-verify-frontmatter']
# scenarios known not to pass yet, with the reason (none today)
NEXT_OPEN = {}


def test_next_lists_every_client_scenario():
    """NEXT_SCENARIOS is the prerelease's whole list of client scenarios:
    a scenario it adds cannot go unrun."""
    if not NEXT_CLI.exists():
        pytest.skip('the prerelease conformance suite is missing (npm ci)')
    node = REPO / 'node_modules/.bin/node'
    p = subprocess.run([str(node) if node.exists() else 'node',
                        str(NEXT_CLI), 'list'], capture_output=True,
                       text=True, timeout=120)
    part = p.stdout.split('Client scenarios', 1)[1].split('\n\n', 1)[0]
    listed = re.findall(r'^  - (\S+)', part, re.M)
    assert len(listed) == 48 and listed == NEXT_SCENARIOS, listed


@pytest.mark.parametrize('scenario', NEXT_SCENARIOS + [
    'tools_call@2026-07-28', 'tools_call@2025-11-25',
    'auth/metadata-default@2026-07-28'])
def test_next_client_scenario_passes(scenario):
    """The prerelease 0.2.0-alpha.12 (CONFORMANCE=next): every client
    scenario it lists (the extension ones with --force), tools_call in both
    eras (SCENARIO@VERSION); each must pass with at least one check."""
    if not NEXT_CLI.exists():
        pytest.skip('the prerelease conformance suite is missing (npm ci)')
    if scenario in NEXT_OPEN:
        pytest.xfail(NEXT_OPEN[scenario])
    passes(scenario, CONFORMANCE='next')


def test_dpop_key_stored_never_shown(tmp_path):
    """auth/dpop-nonce (SEP-1932) passes, and then (client.py's
    dpop_secrecy, its findings in MCPFS_CONF_REPORT) the DPoP key is in
    the token store, mode 0600, and in none of auth, status, trace or the
    log."""
    if not NEXT_CLI.exists():
        pytest.skip('the prerelease conformance suite is missing (npm ci)')
    rep = tmp_path / 'report.json'
    passes('auth/dpop-nonce', CONFORMANCE='next', MCPFS_CONF_REPORT=str(rep))
    got = json.loads(rep.read_text())
    assert got == {'store_mode': '0o600',
                   'key_type': '-----BEGIN PRIVATE KEY-----',
                   'leaks': []}, got
