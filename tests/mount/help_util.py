"""Helpers for the tests of what help/, README.md and the status files
show of a server (test_help_lines.py, test_help_quoting.py,
test_control_chars.py, test_readme_start_error.py). They build on
conftest.py and do not change it.

* scripted(tmp_path, spec): a config entry running tests/fake/scripted.py
  on that spec (serverInfo, instructions, tools, prompts), and the path of
  its calls log.
* calls(log): the tools/call and prompts/get requests the server saw.
* run_lines(help_text): the ready-to-run lines of a help/ file, as
  printed (comments left out; each should start with echo, printf or :).
* sh(shell, line, cwd, env): run one line with that shell.
* controls(data): the control characters (C0 but tab and newline, DEL,
  C1) in bytes shown to a terminal: empty when the text is safe.
"""

import json
import os
import subprocess
import sys

from conftest import REPO

SCRIPTED = REPO / 'tests/fake/scripted.py'


def scripted(tmp_path, spec, name='scripted'):
    path = tmp_path / f'{name}.json'
    path.write_text(json.dumps(spec))
    log = tmp_path / f'{name}.calls'
    return {'command': sys.executable,
            'args': [str(SCRIPTED), str(path), str(log)]}, log


def calls(log):
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def run_lines(help_text):
    if '\nRun it (' not in help_text:   # a tool no request can call
        return []
    lines = help_text.split('\nRun it (', 1)[1].split('\nThe reply:', 1)[0]
    out = [line[2:] for line in lines.splitlines()[1:]]
    return [line for line in out if not line.startswith('# ')]


def sh(shell, line, cwd, env=None, timeout=60):
    r = subprocess.run([shell, '-c', line], cwd=cwd, capture_output=True,
                       timeout=timeout, env=env)
    return r.returncode, r.stdout.decode(errors='replace'), \
        r.stderr.decode(errors='replace')


def controls(data):
    text = data.decode('utf-8', errors='surrogateescape')
    return sorted({hex(ord(c)) for c in text
                   if (ord(c) < 0x20 and c not in '\t\n') or
                   0x7f <= ord(c) <= 0x9f or 0xdc80 <= ord(c) <= 0xdc9f or
                   c in BIDI})


# Bidi controls and line marks: they reorder what a terminal shows
# ('evil\u202etxt.exe' shows as 'evilexe.txt'), lib/ctlesc.c's hidden().
BIDI = ('\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e'
        '\u2066\u2067\u2068\u2069')
