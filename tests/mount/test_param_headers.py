"""A tool's arguments mirrored into HTTP headers (spec 7, the modern era
of doc/eras.md; MCP 2026-07-28 basic/transports/streamable-http.mdx,
"Custom Headers from Tool Parameters"): over modern Streamable HTTP each
argument that the tool's inputSchema marks with x-mcp-header goes out as
Mcp-Param-{Name}, Base64 in a =?base64?...?= sentinel when it is not
header-safe, none for an absent argument; a tool whose annotations break
the rules is left out of tools/ with a log line naming it. The server is
tests/fake/mcp_modern.py --header-tools, which refuses a request whose
headers do not match its body (400, HeaderMismatch) and answers with the
headers it got. (test_era.py has the era itself; these were untested.)"""

import json
import os

import pytest

from conftest import fake_factory, read_file, text, thread, tool, wait_until
from test_era import HTTPFake


@pytest.fixture
def modern_http(tmp_path):
    yield from fake_factory(HTTPFake, tmp_path)


def query_of(t, name, **args):
    """The Mcp-Param-* headers the server got for a call of name (query,
    late, never): {Name: [raw, decoded]}."""
    return json.loads(text(tool(t, name, **args)))


def query(t, **args):
    return query_of(t, 'query', **args)


def test_arguments_go_out_as_headers(mcpfs_mount, modern_http):
    srv = modern_http('--header-tools')
    m = mcpfs_mount({'h': {'url': srv.url}})
    t = thread(m, 'h')
    got = query(t, region='us-west1', limit=42, dry=True,
                opts={'zone': 'z1'}, sql='select 1')
    assert got == {'Region': ['us-west1', 'us-west1'],
                   'Limit': ['42', '42'], 'Dry': ['true', 'true'],
                   'Zone': ['z1', 'z1']}, got
    # an absent argument has no header (the server refuses one that is
    # there without its argument)
    assert query(t, sql='x') == {}
    assert query(t, dry=False, limit=-7) == \
        {'Dry': ['false', 'false'], 'Limit': ['-7', '-7']}


def test_values_that_are_not_header_safe_are_base64(mcpfs_mount,
                                                     modern_http):
    # the spec's own table: non-ASCII, leading and trailing blanks, a
    # newline, and a plain value that looks like the sentinel
    srv = modern_http('--header-tools')
    m = mcpfs_mount({'h': {'url': srv.url}})
    t = thread(m, 'h')
    for value, raw in (('Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='),
                       (' padded ', '=?base64?IHBhZGRlZCA=?='),
                       ('line1\nline2', '=?base64?bGluZTEKbGluZTI=?='),
                       ('=?base64?literal?=',
                        '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=')):
        got = query(t, region=value)
        assert got == {'Region': [raw, value]}, (value, got)


def test_tools_whose_annotations_break_the_rules_are_left_out(
        mcpfs_mount, modern_http):
    srv = modern_http('--header-tools')
    m = mcpfs_mount({'h': {'url': srv.url}})
    t = thread(m, 'h')
    names = set(os.listdir(t / 'tools'))
    assert 'query' in names and 'echo' in names, names
    bad = {'bad_token', 'bad_number', 'bad_items', 'bad_twice'}
    assert not bad & names, names
    listed = {x['name'] for x in
              json.loads(read_file(t / 'tools.json'))['tools']}
    assert 'query' in listed and not bad & listed, listed
    # each is named in the log, with why
    wait_until(lambda: all(b in m.output() for b in bad), 10,
               'a log line for each tool left out')


def test_a_refusal_for_headers_lists_again_and_retries_once(mcpfs_mount,
                                                            modern_http):
    # the schema changed after mcpfs listed it (late): the server refuses
    # the call for a missing Mcp-Param header (400, HeaderMismatch), mcpfs
    # lists the tools again and sends the call again, with the header
    # (streamable-http.mdx, Client Behavior); where the new listing does
    # not help (never), the second refusal is the reply: no loop
    srv = modern_http('--header-tools')
    m = mcpfs_mount({'h': {'url': srv.url}})
    t = thread(m, 'h')
    assert 'late' in os.listdir(t / 'tools')
    assert query_of(t, 'late', region='eu') == {'Region': ['eu', 'eu']}
    err = tool(t, 'never', region='eu')
    assert err.get('error', {}).get('code') == -32020, err

    def calls(name):
        return [p['status'] for p in srv.posts()
                if p['json'].get('method') == 'tools/call' and
                p['json']['params'].get('name') == name]
    assert calls('late') == [400, 200], calls('late')
    assert calls('never') == [400, 400], calls('never')
    assert 'refused for its headers' in m.output(), m.output()[-2000:]
