"""A server's result is its result whatever its first member is called
(spec 4, 14): a tool answering {"error": "...", "content": [...]} as its
result (tests/fake/mcp_shapes.py's error_member) reads back from `call`
as that result, and reaches a client of `mcpfs serve` as a result. mcpfs
told its own errors from results by the reply's first bytes, `{"error"`:
`cat call` failed with EIO and serve sent the result's members as the
members of a JSON-RPC error."""
import errno

from conftest import call, call_raw, read_file, shapes, text
from test_serve import Client, needs_sdk

RESULT = {'error': 'the disk is on fire',
          'content': [{'type': 'text', 'text': 'partial'}],
          'isError': True}


def test_cat_call_reads_the_result(mcpfs_mount):
    m = mcpfs_mount({'s': shapes()})
    t = m.path / 's' / 't1'
    t.mkdir()
    r = call(t, {'name': 'error_member'})
    assert r == RESULT, r
    assert text(r) == 'partial'
    # the bytes are the server's result, read again
    try:
        raw = (t / 'call').read_bytes()
    except OSError as e:
        assert e.errno != errno.EIO, 'the result read as a failure'
        raise
    assert raw.startswith(b'{"error"'), raw[:80]
    assert b'partial' in call_raw(t, {'name': 'error_member'})


@needs_sdk
def test_serve_passes_the_result_on(mcpfs_mount):
    m = mcpfs_mount({'s': shapes()})
    c = Client(m, 'agent')
    r = c.do(op='call', name='s__error_member')
    assert 'ok' in r, r
    assert r['ok']['result'] == RESULT, r
    c.close()


def test_a_resource_read_gives_the_result(mcpfs_mount):
    m = mcpfs_mount({'s': shapes()})
    t = m.path / 's' / 't1'
    t.mkdir()
    assert read_file(t / 'resources' / 'shapes:%2F%2Ferror-member') == \
        b'still here'
