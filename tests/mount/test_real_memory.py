"""mcpfs against the real @modelcontextprotocol/server-memory (pinned in
package.json, run from node_modules): a knowledge graph built by one call is
there for the next calls on the same thread.

What a direct stdio session showed (explored before mcpfs existed):
* Entry point: node node_modules/@modelcontextprotocol/server-memory/
  dist/index.js (no argument); MEMORY_FILE_PATH in its env names the JSONL
  file it keeps the graph in (one {"type": "entity", ...} line per entity).
  It logs "Knowledge Graph MCP Server running on stdio" to stderr.
* initialize -> serverInfo {"name": "memory-server", "version": "0.6.3"},
  capabilities tools and resources.
* Tools (each with an outputSchema): create_entities, create_relations,
  add_observations, delete_entities, delete_observations,
  delete_relations, read_graph, search_nodes, open_nodes.
* create_entities {"entities": [{"name", "entityType", "observations":
  [str]}]} -> text (the created entities as pretty JSON) and
  structuredContent {"entities": [...]}.
* read_graph {} -> structuredContent {"entities": [...], "relations": []}.
* search_nodes {"query": Q} (matches names, types and observations) ->
  structuredContent {"entities": [matches], "relations": [...]}.
"""

import json
import os
import shutil

import pytest

from conftest import REPO, call, read_file, status

MEMORY = REPO / \
    'node_modules/@modelcontextprotocol/server-memory/dist/index.js'

pytestmark = pytest.mark.skipif(
    not MEMORY.exists() or not shutil.which('node'),
    reason=f'{MEMORY} missing (run npm ci in the repository) or no node')

ENTITIES = [
    {'name': 'Zorblax', 'entityType': 'robot',
     'observations': ['likes teal paint', 'built in 2031']},
    {'name': 'Quibble', 'entityType': 'cat', 'observations': ['naps a lot']},
]


def ok(reply):
    assert isinstance(reply, dict) and 'content' in reply, reply
    assert reply.get('isError') is not True, reply
    return reply


def test_graph_lives_on_the_thread(mcpfs_mount, tmp_path):
    memfile = tmp_path / 'memory' / 'graph.jsonl'
    memfile.parent.mkdir()
    m = mcpfs_mount({'mem': {'command': 'node', 'args': [str(MEMORY)],
                             'env': {'MEMORY_FILE_PATH': str(memfile)}}})
    t = m.path / 'mem' / 't'
    os.mkdir(t)
    r = ok(call(t, {'name': 'create_entities',
                    'arguments': {'entities': ENTITIES}}))
    assert r['structuredContent']['entities'] == ENTITIES, r
    pid = status(t)['pid']

    r = ok(call(t, {'name': 'read_graph', 'arguments': {}}))
    graph = r['structuredContent']
    assert sorted(graph['entities'], key=lambda e: e['name']) == \
        sorted(ENTITIES, key=lambda e: e['name']), graph
    assert graph['relations'] == []
    assert json.loads(r['content'][0]['text']) == graph

    r = ok(call(t, {'name': 'search_nodes', 'arguments': {'query': 'teal'}}))
    assert [e['name'] for e in r['structuredContent']['entities']] == \
        ['Zorblax'], r
    r = ok(call(t, {'name': 'search_nodes', 'arguments': {'query': 'cat'}}))
    assert [e['name'] for e in r['structuredContent']['entities']] == \
        ['Quibble'], r

    assert status(t)['pid'] == pid   # all on one process
    assert 'running on stdio' in read_file(t / 'stderr').decode()
    # the server wrote the file its env names (the env reached the child)
    lines = [json.loads(x) for x in memfile.read_text().splitlines() if x]
    assert {x['name'] for x in lines if x.get('type') == 'entity'} == \
        {'Zorblax', 'Quibble'}
    m.unmount()
