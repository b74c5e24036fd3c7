"""A fresh read of tools/X reads the reader's newest call of X, however it
was written (spec 4, 9): a request {"name": "X", ...} written to call is a
call of X, so `cat tools/X` after it reads its reply."""

import json
import subprocess
import sys

from conftest import REPO, demo, text, thread

PYFAKE = REPO / 'tests/fake/pyfake.py'


def test_call_written_to_call_is_read_by_tools_x(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo')
    out = subprocess.run(
        ['bash', '-c', 'echo \'{"name": "incr", "arguments": {"by": 7}}\' '
         '> "$1/call"; cat "$1/tools/incr"', 'sh', str(t)],
        capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert text(json.loads(out.stdout)) == '7', out


def run_bash(script, *args):
    out = subprocess.run(['bash', '-c', script, 'sh', *map(str, args)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_method_form_tools_call_is_read_by_tools_x(mcpfs_mount):
    # {"method": "tools/call", "params": {"name": "incr"}} is a call of
    # incr as much as {"name": "incr"} is: the request is read once, and
    # its tool is what the read rule files it under
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo')
    out = run_bash(
        'echo \'{"method": "tools/call", "params": {"name": "incr", '
        '"arguments": {"by": 5}}}\' > "$1/call"; cat "$1/tools/incr"', t)
    assert text(json.loads(out)) == '5', out


def test_escaped_tool_name_is_the_tool(mcpfs_mount):
    # "in\u0063r" is incr: the key is the decoded name
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo')
    out = run_bash(
        'printf \'%s\\n\' \'{"method": "tools\\/call", "params": '
        '{"name": "in\\u0063r", "arguments": {"by": 3}}}\' > "$1/call"; '
        'cat "$1/tools/incr"', t)
    assert text(json.loads(out)) == '3', out


def test_prompts_get_written_to_call_is_read_by_prompts_x(mcpfs_mount):
    # the same for a prompt: prompts/get of greet written to call, then
    # `cat prompts/greet` reads its reply, not an empty one of its own
    m = mcpfs_mount({'py': {'command': sys.executable,
                            'args': [str(PYFAKE)]}})
    t = thread(m, 'py')
    out = run_bash(
        'echo \'{"method": "prompts/get", "params": {"name": "greet", '
        '"arguments": {"name": "Ada"}}}\' > "$1/call"; '
        'cat "$1/prompts/greet"', t)
    reply = json.loads(out)
    assert json.loads(reply['messages'][0]['content']['text']) == \
        {'name': 'Ada'}, out
