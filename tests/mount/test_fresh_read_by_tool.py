"""A fresh read of tools/X reads the reader's newest call of X, however it
was written (spec 4, 9): a request {"name": "X", ...} written to call is a
call of X, so `cat tools/X` after it reads its reply."""

import json
import subprocess

from conftest import demo, text, thread


def test_call_written_to_call_is_read_by_tools_x(mcpfs_mount):
    m = mcpfs_mount({'demo': demo()})
    t = thread(m, 'demo')
    out = subprocess.run(
        ['bash', '-c', 'echo \'{"name": "incr", "arguments": {"by": 7}}\' '
         '> "$1/call"; cat "$1/tools/incr"', 'sh', str(t)],
        capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert text(json.loads(out.stdout)) == '7', out
