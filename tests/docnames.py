#!/usr/bin/env python3
"""doc/architecture.md names only what exists: every span in backticks
that looks like a C identifier (`session_spawn`, `mcp_server.next`,
`call_start()`) must occur as a whole word in the tree's sources (C files,
headers, meson.build files), and every one that looks like a file or
folder of the tree (`fs/callfile.c`, `sessions/transport/`, `jscan.c`,
`test_module.py`) must exist (a bare file name anywhere in the tree).
Spans with spaces, quotes or <...> are examples of use, not names, and
are not checked.

Where a doc says where a name lives, "`name` (`file.c`)" (also
"`name()` (`dir/file.c`, ...)"), name must be defined in that file: a
function or a table at file scope, or a macro, of a .c file (a .h file
need only hold the word). And every source file of lib/, fs/, serve/ and
sessions/ (.c) must be named in doc/architecture.md (by its path or its
bare name) and have its line in tests/README.md's source map (a line may
name several files: "- `a.c`, `b.c`: tests ...").

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


SOURCES = sorted(p.relative_to(ROOT).as_posix()
                 for d in ('lib', 'fs', 'serve', 'sessions')
                 for p in (ROOT / d).rglob('*.c'))


def resolve(f, doc):
    """The source files a doc's `f` may be: its path, else every file of
    that name (a bare name) under the source folders."""
    if (ROOT / f).is_file():
        return [ROOT / f]
    return [p for d in ('lib', 'fs', 'serve', 'sessions', 'tests',
                        'examples')
            for p in (ROOT / d).rglob(Path(f).name)
            if p.as_posix().endswith('/' + f)]


def defined_in(name, path):
    """1 when name is defined in the C file at path: a line at column 0
    holding name( or name[ or name = (not a declaration: no ';' closes
    a function's line), or #define name."""
    text = path.read_text(errors='replace')
    if path.suffix == '.h':
        return re.search(r'\b' + re.escape(name) + r'\b', text) is not None
    w = re.escape(name)
    for line in text.splitlines():
        if re.match(r'#\s*define\s+' + w + r'\b', line):
            return True
        if not line[:1].isalpha() or line.startswith(('extern', 'typedef')):
            continue
        if re.search(r'(^|[\s*])' + w + r'\s*\(', line) and \
                not line.rstrip().endswith(';'):
            return True
        if re.search(r'(^|[\s*])' + w + r'\s*(\[[^]]*\])*\s*(=|;)', line):
            return True
    return False


PAIR = re.compile(r'`([A-Za-z_]\w*)(?:\(\))?`\s+\(`([\w./-]+\.[ch])`')


def pairs_wrong(line, doc):
    """The "`name` (`file.c`)" pairs of a line whose name is not defined
    in that file."""
    out = []
    for name, f in PAIR.findall(line):
        paths = resolve(f, doc)
        if paths and not any(defined_in(name, p) for p in paths):
            out.append(f'`{name}` is not defined in {f}')
    return out


def unmapped():
    """Source files doc/architecture.md or tests/README.md's map leave
    out."""
    arch = (ROOT / 'doc' / 'architecture.md').read_text()
    readme = (ROOT / 'tests' / 'README.md').read_text()
    named = set(re.findall(r'`([^`\s]+)`', arch))
    mapped = set()
    for line in readme.splitlines():
        m = re.match(r'^\s*[-*]\s+((?:`[^`]+`\s*,\s*)*`[^`]+`)\s*:', line)
        if m:
            mapped.update(re.findall(r'`([^`]+)`', m.group(1)))
    out = []
    for f in SOURCES:
        if f not in named and Path(f).name not in named:
            out.append(f'doc/architecture.md: {f} is named nowhere')
        if f not in mapped:
            out.append(f'tests/README.md: {f} has no line in the source map')
    return out


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
        for w in pairs_wrong(line, doc):
            bad += 1
            print(f'{doc.relative_to(ROOT)}:{n}: {w}')
for w in unmapped():
    bad += 1
    print(w)
if bad:
    sys.exit(1)
print(f'every name in backticks of {", ".join(d.name for d in DOCS)} '
      'exists in the tree')
