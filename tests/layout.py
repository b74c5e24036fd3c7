#!/usr/bin/env python3
"""The layout rules of the source tree, as TAP (doc/architecture.md,
"Rules the tree keeps"):

1. no call cycle between the .c files of lib/, sessions/, fs/ and serve/
   (a file calls a function, or names a const ops table, that another
   defines);
2. nothing in sessions/ or lib/ includes a header of fs/ or serve/,
   nothing in lib/ one of sessions/ (the whole tree, subfolders too); only
   sessions/http/ includes libcurl or OpenSSL;
3. no folder holds more than 25 .c files;
4. no .c file is over 900 lines;
5. fs/ includes of the tree's headers only those of lib/, of fs/,
   sessions/sessions.h (the session API: fs/ and sessions/ meet through
   that one header), sessions/surface.h (the layer that names what a
   listing holds as files) and sessions/mlog.h (the log), and fs/main.c
   sessions/program.h (start and stop) and serve/serve.h (it starts the
   second front door); serve/ only those of lib/, of serve/,
   sessions/sessions.h and sessions/mlog.h (the two front doors meet the
   core through the same header);
6. no file of the session core (sessions/core, protocol, base) compares a transport's
   error text (no "HTTP ..." literal given to strcmp, strncmp, strstr,
   memcmp and the like): a transport says what it can do in its ops
   table's caps and reports an HTTP status as a number;
7. the session core is three layers called downward only: sessions/core/
   (the lifecycle of sessions and a thread's files) may call protocol/
   and base/, sessions/protocol/ (what goes over the wire) base/ but not
   core/, sessions/base/ (the objects both share) neither; the one way
   up is a hook session.c hands down at sessions_init (call_setup,
   inbound_setup, message_setup), which a call by name does not show;
8. a transport (sessions/transport/, sessions/http/) calls no function of
   the rest of sessions/ (not mlog, not a config helper): what it needs of
   the core comes in its struct transport_env (transport_log, conf_dup,
   ...), so the HTTP module and the transports stay apart from the core;
9. a module (meson.build's shared_module: mcpfs-http.so, mcpfs-serve.so)
   calls no function defined outside its own sources: the core reaches it
   through its env (struct transport_env, struct door_env), so it links
   to none of mcpfs.

Calls are found by name (comments and strings removed), which is exact
enough for this tree: every non-static function has one definition, and
a file's call of a name it defines static is its own (as C scopes it).
"""
import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parents[1])
DIRS = ('lib', 'sessions', 'fs', 'serve')
files = sorted(f for d in DIRS for f in (ROOT / d).rglob('*.c'))
text = {}
defs = {}    # function -> file
own = {}     # file -> the static functions it defines
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
    own[f] = set(re.findall(r'^static\b[\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{',
                            t, flags=re.M))
    for m in re.finditer(r'^const struct \w+ (\w+)\s*=', t, flags=re.M):
        tables.setdefault(m.group(1), f)

edges = {f: set() for f in files}
for f, t in text.items():
    called = set(re.findall(r'\b(\w+)\s*\(', t)) - own[f]
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

# Every header of the tree by name, to know which folder an include names.
headers = {}
for d in DIRS:
    for h in (ROOT / d).rglob('*.h'):
        headers.setdefault(h.name, h.parent.relative_to(ROOT))


def under(path, folder):
    return path == Path(folder) or Path(folder) in path.parents


bad = []
for f in sorted(p for d in DIRS for p in (ROOT / d).rglob('*.[ch]')):
    where = f.parent.relative_to(ROOT)
    src = f.read_text()
    for inc in re.findall(r'#include\s+"([^"]+)"', src):
        home = headers.get(inc)
        if home is None:
            continue
        if under(where, 'lib') and not under(home, 'lib'):
            bad.append(f'{rel(f)} includes {home}/{inc}')
        if (under(where, 'sessions') or under(where, 'lib')) and \
                (under(home, 'fs') or under(home, 'serve')):
            bad.append(f'{rel(f)} includes {home}/{inc}')
    for inc in re.findall(r'#include\s+<(curl/|openssl/)', src):
        if not under(where, 'sessions/http'):
            bad.append(f'{rel(f)} includes <{inc}...> outside sessions/http')
results.append((not bad, 'no upward include; curl and OpenSSL only in '
                'sessions/http' + ('' if not bad else ': ' + '; '.join(bad))))

seam = []
for door in ('fs', 'serve'):
    for f in sorted((ROOT / door).rglob('*.[ch]')):
        for inc in re.findall(r'#include\s+"([^"]+)"', f.read_text()):
            home = headers.get(inc)
            if home is None or under(home, 'lib') or under(home, door):
                continue
            if home == Path('sessions') and inc in ('sessions.h', 'mlog.h'):
                continue
            if door == 'fs' and (home, inc) == (Path('sessions'),
                                                'surface.h'):
                continue
            if rel(f) == 'fs/main.c' and (home, inc) in (
                    (Path('serve'), 'serve.h'),
                    (Path('sessions'), 'program.h')):
                continue
            seam.append(f'{rel(f)} includes {home}/{inc}')
results.append((not seam, 'fs/ and serve/ include of sessions/ only '
                'sessions.h, mlog.h, surface.h (fs/) and program.h '
                '(fs/main.c)' + ('' if not seam else ': ' + '; '.join(seam))))

COMPARE = re.compile(r'\b(?:strn?cmp|strn?casecmp|strstr|strcasestr|memcmp|'
                     r'memmem)\s*\([^;]*?"HTTP\b', re.S)
peeks = []
CORE = ('sessions/core', 'sessions/protocol', 'sessions/base')
for f in sorted(p for d in CORE for p in (ROOT / d).glob('*.c')):
    src = re.sub(r'/\*.*?\*/', lambda c: '\n' * c[0].count('\n'),
                 f.read_text(), flags=re.S)
    for m in COMPARE.finditer(src):
        line = src.count('\n', 0, m.start()) + 1
        peeks.append(f'{rel(f)}:{line}')
results.append((not peeks, 'no core file compares a transport\'s error '
                'text' + ('' if not peeks else ': ' + '; '.join(peeks))))

LAYERS = {'sessions/core': 0, 'sessions/protocol': 1, 'sessions/base': 2}


def layer(f):
    return LAYERS.get(str(f.parent.relative_to(ROOT)))


upward = sorted(f'{rel(f)} -> {rel(d)}' for f in files for d in edges[f]
                if layer(f) is not None and layer(d) is not None and
                layer(d) < layer(f))
results.append((not upward, 'sessions/ layers called downward only '
                '(core -> protocol -> base)' +
                ('' if not upward else ': ' + '; '.join(upward))))

TRANSPORTS = ('sessions/transport', 'sessions/http')


def is_transport(f):
    return any(under(f.parent.relative_to(ROOT), t) for t in TRANSPORTS)


reach = sorted(f'{rel(f)} -> {rel(d)}' for f in files for d in edges[f]
               if is_transport(f) and not is_transport(d) and
               not under(d.parent.relative_to(ROOT), 'lib'))
results.append((not reach, 'transports call the core only through their '
                'env' + ('' if not reach else ': ' + '; '.join(reach))))

# 9: each shared_module of meson.build, its sources by name.
MODULE = re.compile(r"shared_module\(\s*'([^']+)'(.*?)\bname_prefix", re.S)
strays = []
nmod = 0
for name, body in MODULE.findall((ROOT / 'meson.build').read_text()):
    own = {ROOT / src for src in re.findall(r"'([^']+\.c)'", body)}
    nmod += 1
    strays += sorted(f'{name}: {rel(f)} -> {rel(d)}' for f in own
                     if f in edges for d in edges[f] if d not in own)
results.append((not strays and nmod >= 2, f'the {nmod} modules call '
                'nothing outside their own sources' +
                ('' if not strays else ': ' + '; '.join(strays))))

crowded = []
for d in DIRS:
    for folder in [ROOT / d] + [p for p in (ROOT / d).rglob('*') if p.is_dir()]:
        n = len(list(folder.glob('*.c')))
        if n > 25:
            crowded.append(f'{rel(folder)} has {n} .c files')
results.append((not crowded, 'no folder with more than 25 .c files' +
                ('' if not crowded else ': ' + '; '.join(crowded))))

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
