#!/usr/bin/env python3
"""doc/architecture.md names only what exists: every span in backticks
that looks like a C identifier (`session_spawn`, `mcp_server.next`,
`call_start()`) must occur as a whole word in the tree's sources (C files,
headers, meson.build files), and every one that looks like a file or
folder of the tree (`fs/callfile.c`, `sessions/transport/`, `jscan.c`,
`test_module.py`) must exist (a bare file name anywhere in the tree).
Spans with spaces, quotes or <...> are examples of use, not names, and
are not checked.

usage: docnames.py [ROOT] [DOC...]   (default: doc/architecture.md)
Prints each missing name with its line; exit status 1 if any."""
import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parents[1])
DOCS = [Path(a) for a in sys.argv[2:]] or [ROOT / 'doc' / 'architecture.md']
TOP = ('lib', 'fs', 'serve', 'sessions', 'tests', 'doc', 'examples', 'debian',
       'man')
FILE_EXT = ('c', 'h', 'py', 'md', 'sh', 'build', 'txt', 'mjs')

sources = [p for d in ('lib', 'fs', 'serve', 'sessions', 'tests', 'examples')
           for p in (ROOT / d).rglob('*')
           if p.suffix in ('.c', '.h') or p.name == 'meson.build']
sources += [ROOT / 'meson.build', ROOT / 'meson_options.txt']
words = set()
for p in sources:
    if p.is_file():
        words.update(re.findall(r'[A-Za-z_]\w*', p.read_text(errors='replace')))
names = {p.name for d in TOP if (ROOT / d).is_dir()
         for p in (ROOT / d).rglob('*')}


def path_ok(tok, doc):
    tok = tok.rstrip('/')
    return ((ROOT / tok).exists() or (doc.parent / tok).exists() or
            ('/' not in tok and tok in names))


def missing(tok, doc):
    """What of this span is not in the tree (a list, empty when fine)."""
    if re.search(r'[\s\'"<>*=]', tok) or tok.startswith('-'):
        return []
    tok = re.sub(r'\(\)$', '', tok)
    if '/' in tok:
        return [] if tok.split('/')[0] not in TOP or path_ok(tok, doc) \
            else [tok]
    if re.fullmatch(r'[\w.-]+\.(' + '|'.join(FILE_EXT) + ')', tok):
        return [] if path_ok(tok, doc) else [tok]
    if re.fullmatch(r'[A-Za-z_]\w*(\.[A-Za-z_]\w*)*', tok):
        return [w for w in tok.split('.') if w not in words]
    return []


bad = 0
for doc in DOCS:
    text = doc.read_text()
    # code blocks are examples, not names
    text = re.sub(r'^```.*?^```', lambda m: '\n' * m.group().count('\n'),
                  text, flags=re.S | re.M)
    for n, line in enumerate(text.splitlines(), 1):
        for tok in re.findall(r'`([^`\n]+)`', line):
            for w in missing(tok, doc):
                bad += 1
                print(f'{doc.relative_to(ROOT)}:{n}: `{tok}`: no {w!r} '
                      'in the tree')
if bad:
    sys.exit(1)
print(f'every name in backticks of {", ".join(d.name for d in DOCS)} '
      'exists in the tree')
