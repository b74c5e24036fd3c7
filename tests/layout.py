#!/usr/bin/env python3
"""The layout rules of the source tree, as TAP (README, Architecture):

1. no call cycle between the .c files of lib/, sessions/ and fs/ (a file
   calls a function, or names a const ops table, that another defines);
2. nothing in sessions/ or lib/ includes a header of fs/, nothing in lib/
   one of sessions/;
3. no .c file is over 900 lines.

Calls are found by name (comments and strings removed), which is exact
enough for this tree: every non-static function has one definition.
"""
import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parents[1])
DIRS = ('lib', 'sessions', 'fs')
files = sorted(f for d in DIRS for f in (ROOT / d).glob('*.c'))
text = {}
defs = {}    # function -> file
tables = {}  # const ops table -> file
for f in files:
    t = f.read_text()
    t = re.sub(r'/\*.*?\*/', ' ', t, flags=re.S)
    t = re.sub(r'"(\\.|[^"\\\n])*"', '""', t)
    text[f] = t
    for m in re.finditer(r'^(?!static)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{',
                         t, flags=re.M):
        if m.group(1) != 'main':  # each program's own, called by no file
            defs.setdefault(m.group(1), f)
    for m in re.finditer(r'^const struct \w+ (\w+)\s*=', t, flags=re.M):
        tables.setdefault(m.group(1), f)

edges = {f: set() for f in files}
for f, t in text.items():
    called = set(re.findall(r'\b(\w+)\s*\(', t))
    words = set(re.findall(r'\b\w+\b', t))
    for name, d in defs.items():
        if d != f and name in called:
            edges[f].add(d)
    for name, d in tables.items():
        if d != f and name in words:
            edges[f].add(d)


def rel(f):
    return str(f.relative_to(ROOT))


def find_cycle():
    state = {}
    path = []

    def visit(u):
        state[u] = 1
        path.append(u)
        for v in sorted(edges[u]):
            if state.get(v) == 1:
                return path[path.index(v):] + [v]
            if not state.get(v):
                c = visit(v)
                if c:
                    return c
        path.pop()
        state[u] = 2
        return None

    for f in files:
        if not state.get(f):
            c = visit(f)
            if c:
                return c
    return None


results = []
cycle = find_cycle()
results.append((cycle is None, 'no call cycle between .c files' +
                ('' if cycle is None else ': ' +
                 ' -> '.join(map(rel, cycle)))))

bad = []
for d, banned in (('sessions', ('fs',)), ('lib', ('fs', 'sessions'))):
    for f in sorted((ROOT / d).glob('*.[ch]')):
        for inc in re.findall(r'#include\s+"([^"]+)"', f.read_text()):
            for b in banned:
                if (ROOT / b / inc).exists() and not (ROOT / d / inc).exists() \
                        and not (ROOT / 'lib' / inc).exists():
                    bad.append(f'{rel(f)} includes {b}/{inc}')
results.append((not bad, 'no upward include' +
                ('' if not bad else ': ' + '; '.join(bad))))

long = [f'{rel(f)} has {n} lines' for f in files
        if (n := f.read_text().count('\n')) > 900]
results.append((not long, 'no .c file over 900 lines' +
                ('' if not long else ': ' + '; '.join(long))))
results.append((len(files) > 10 and len(defs) > 100,
                f'the scan saw the tree ({len(files)} files, '
                f'{len(defs)} functions)'))

print(f'1..{len(results)}')
for i, (ok, what) in enumerate(results, 1):
    print(f'{"ok" if ok else "not ok"} {i} - {what}')
sys.exit(0 if all(ok for ok, _ in results) else 1)
