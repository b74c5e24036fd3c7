#!/usr/bin/env python3
"""tests/mutate.py - a small mutation sampler: how many deliberate breaks
of a C file do its tests catch?

    python3 tests/mutate.py [--sample N --seed S] [--build DIR]
                            [--recheck DIR] FILE.c...

For each FILE it finds the mutation sites (outside comments, strings and
preprocessor lines):

  cmp     a comparison negated: < to >=, <= to >, > to <=, >= to <,
          == to !=, != to ==
  logic   && to ||, || to &&
  off1    + 1 to - 1, - 1 to + 1
  errno   a returned negative error code changed: return -EINVAL to
          return -EIO, any other return -EXXX to return -EINVAL
  drop    a call statement alone on its line dropped (replaced by ;)

and applies them one at a time (all of them, or with --sample N a sample:
the sites in an order shuffled by --seed S, the same every run, until N
mutants compiled): it writes the mutant, rebuilds with ninja (a mutant
that does not compile is not counted), runs the tests tests/README.md maps to the file (its section
"## Source files and their tests": unit tests as `meson test NAME`, mount
test files with pytest -x against the rebuilt build directory), and
records the mutant as killed (a test failed or timed out: --timeout per
mount test file, --unit-timeout per unit test) or survived.
With --recheck DIR (a build configured with -Db_sanitize=address,undefined
-Db_lundef=false), a mutant that survived is built there too and its
tests run again against that build: a leak (a dropped free, cJSON_Delete,
unref) makes mcpfs exit non-zero at unmount under LeakSanitizer, which the
mount fixture fails on, and a unit test exits non-zero; the mutant is then
"killed under DIR by X". Before the first such recheck of a file the
unchanged file's tests run against DIR too (a test that fails there on
the unchanged code would make every recheck a kill: the rechecks are then
skipped, with a message). Only survivors pay for the slower build.
The file is restored after each mutant, and always at the end (Ctrl-C
too); the build (and DIR) is then brought back up to date.

It ends with the survivors (FILE:LINE, the mutation), one line per file
`FILE: killed K of N` and the last line `killed K of N` over all files.
Not part of .ci/run: it needs a configured build directory and minutes.
"""

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SECTION = '## Source files and their tests'
# Debian's python3 has pytest (tests/meson.build runs the mount tests so)
PYTEST_PY = '/usr/bin/python3' if os.path.exists('/usr/bin/python3') \
    else sys.executable

KEYWORDS = {'return', 'if', 'while', 'for', 'switch', 'sizeof', 'do',
            'else', 'case', 'goto', 'break', 'continue', 'default',
            '__attribute__'}
NEGATE = {'<': '>=', '<=': '>', '>': '<=', '>=': '<', '==': '!=',
          '!=': '=='}


# ---------------------------------------------------------------- the map

def test_map(readme):
    """{source path: [test paths]} from the README's section."""
    out = {}
    inside = False
    if not readme.exists():
        return out
    for line in readme.read_text().splitlines():
        if line.startswith('## '):
            inside = line.strip() == SECTION
            continue
        if not inside:
            continue
        # one source file or several: - `a.c`, `b.c`: tests ...
        m = re.match(r'^\s*[-*]\s+((?:`[^`]+`\s*,\s*)*`[^`]+`)\s*:\s*(.*)$',
                     line)
        if m:
            for src in re.findall(r'`([^`]+)`', m.group(1)):
                out[src] = m.group(2).split()
    return out


def unit_names(build):
    """{executable basename: (meson test name, its ninja target)} of the
    configured build."""
    try:
        r = subprocess.run(['meson', 'introspect', str(build), '--tests'],
                           capture_output=True, text=True, timeout=60)
        tests = json.loads(r.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return {}
    out = {}
    for t in tests:
        if t['cmd'] and Path(t['cmd'][0]).is_relative_to(build):
            exe = Path(t['cmd'][0])
            out[exe.name] = (t['name'], str(exe.relative_to(build)))
    return out


# ---------------------------------------------------------------- sites

def blank_out(text):
    """text with comments, string and char literals and preprocessor
    lines replaced by spaces (newlines kept), so that offsets match."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == '#' or (line_start and c in ' \t' and
                                       text[i:].lstrip(' \t')[:1] == '#'):
            j = i
            while j < n:           # to the end of the (continued) line
                if text[j] == '\n' and text[j - 1] != '\\':
                    break
                j += 1
            for k in range(i, j):
                if out[k] != '\n':
                    out[k] = ' '
            i = j
            continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            for k in range(i + 1, j - 1):   # keep the quotes
                if out[k] != '\n':
                    out[k] = ' '
            line_start = False
            i = j
            continue
        else:
            line_start = c == '\n' or (line_start and c in ' \t')
            i += 1
            continue
        for k in range(i, j):
            if out[k] != '\n':
                out[k] = ' '
        i = j
    return ''.join(out)


TOKENS = re.compile(r'&&|\|\||<<=?|>>=?|->|<=|>=|==|!=|<|>')
OFF1 = re.compile(r'(?<=[\w)\]] )([+-]) 1(?![\w.])')
ERRNO = re.compile(r'\breturn\s+-(E[A-Z0-9]+)\b')
CALL = re.compile(r'^(\s*)((?:\(void\)\s*)?[A-Za-z_]\w*'
                  r'(?:\s*(?:\.|->)\s*\w+)*\s*\()(.*)\)\s*;\s*$')


def balanced_call(rest):
    """1 if rest (what follows the callee's open paren, up to the last
    close paren before the ;) closes exactly at its end."""
    depth = 1
    for c in rest:
        depth += c == '('
        depth -= c == ')'
        if depth <= 0:
            return False
    return depth == 1


def sites(text):
    """[(line number, start, end, old, new, kind)], offsets in text."""
    clean = blank_out(text)
    out = []
    pos = 0
    prev = ';'
    for no, line in enumerate(clean.split('\n'), 1):
        for m in TOKENS.finditer(line):
            t = m.group(0)
            if t in NEGATE:
                out.append((no, pos + m.start(), pos + m.end(), t,
                            NEGATE[t], 'cmp'))
            elif t in ('&&', '||'):
                out.append((no, pos + m.start(), pos + m.end(), t,
                            '||' if t == '&&' else '&&', 'logic'))
        for m in OFF1.finditer(line):
            s = m.group(0)
            out.append((no, pos + m.start(), pos + m.end(), s,
                        ('- 1' if s[0] == '+' else '+ 1'), 'off1'))
        for m in ERRNO.finditer(line):
            e = m.group(1)
            new = 'EIO' if e == 'EINVAL' else 'EINVAL'
            out.append((no, pos + m.start(1), pos + m.end(1), e, new,
                        'errno'))
        m = CALL.match(line)
        if m and m.group(2).split('(')[0].strip() not in KEYWORDS and \
                balanced_call(m.group(3)) and \
                (prev[-1:] in ';{}:' or prev.endswith('else') or
                 (prev[-1:] == ')' and
                  re.match(r'\s*(\}\s*)?(if|for|while|else)\b', prev))):
            start = pos + len(m.group(1))
            end = pos + len(line.rstrip())
            out.append((no, start, end, text[start:end], ';', 'drop'))
        pos += len(line) + 1
        if line.strip():
            prev = line.rstrip()
    return out


def describe(site):
    no, _, _, old, new, kind = site
    old1 = ' '.join(old.split())
    if len(old1) > 60:
        old1 = old1[:57] + '...'
    return f'{kind}: {old1} -> {new}'


# ---------------------------------------------------------------- running

def kill_tree(pid):
    """SIGKILL pid and every process under it (meson test puts its tests
    in process groups of their own, so a killpg would miss them)."""
    kids = {}
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                st = Path(f'/proc/{d}/stat').read_text()
            except OSError:
                continue
            ppid = int(st[st.rindex(')') + 2:].split()[1])
            kids.setdefault(ppid, []).append(int(d))
    todo, tree = [pid], []
    while todo:
        p = todo.pop()
        tree.append(p)
        todo += kids.get(p, [])
    for p in tree:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


class Runner:
    def __init__(self, args, build=None):
        self.build = Path(build or args.build).resolve()
        self.timeout = args.timeout
        self.unit_timeout = args.unit_timeout
        self.verbose = args.verbose
        self.units = None

    def targets(self, tests):
        """What to rebuild for tests: only the unit test executables when
        no mount test is mapped (a mutant of lib/ relinks everything
        else for nothing), else the whole build."""
        if self.units is None:
            self.units = unit_names(self.build)
        names = [Path(t).stem for t in tests]
        if all(t.endswith('.c') for t in tests) and \
                all(n in self.units for n in names):
            return [self.units[n][1] for n in names]
        return []

    def ninja(self, targets=()):
        r = subprocess.run(['ninja', '-C', str(self.build), *targets],
                           capture_output=True, text=True)
        return r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]

    def commands(self, tests):
        """[(label, argv, env)] for the mapped test paths."""
        if self.units is None:
            self.units = unit_names(self.build)
        out = []
        env = dict(os.environ, MCPFS_BUILD=str(self.build),
                   MCPFS_TEST_DEADLINE=str(max(10, self.timeout - 5)))
        # unit tests first: they are the fast ones
        for t in sorted(tests, key=lambda t: not t.endswith('.c')):
            if t.endswith('.c'):
                stem = Path(t).stem
                name = self.units.get(stem, (stem.removeprefix('test_'),))[0]
                out.append((t, ['meson', 'test', '-C', str(self.build),
                                '--no-rebuild', '-q', name], env))
            else:
                out.append((t, [PYTEST_PY, '-m', 'pytest', '-x', '-q',
                                '-p', 'no:cacheprovider', str(REPO / t)],
                            env))
        return out

    def run_one(self, argv, env, timeout):
        """'pass', 'fail' or 'timeout'."""
        p = subprocess.Popen(argv, cwd=REPO, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_tree(p.pid)
            p.communicate()
            return 'timeout', b''
        except BaseException:
            kill_tree(p.pid)
            p.wait()
            raise
        return ('pass' if p.returncode == 0 else 'fail'), out

    def run_tests(self, tests):
        """None when every test passed, else what failed."""
        for label, argv, env in self.commands(tests):
            got, out = self.run_one(argv, env, self.unit_timeout
                                    if label.endswith('.c') else self.timeout)
            if got != 'pass':
                if self.verbose:
                    sys.stdout.write(out.decode(errors='replace')[-1500:])
                return f'{label} ({got})'
        return None


def recheck(again, path, src, mutant, tests, state):
    """The survivor mutant run against the build of Runner again: None
    (it survived there too, or no recheck), else what failed. state
    holds whether the unchanged file's tests passed there (None: not yet
    run)."""
    if again is None or state.get('ok') is False:
        return None
    targets = again.targets(tests)
    if state.get('ok') is None:
        path.write_text(src)
        ok, log = again.ninja(targets)
        failed = again.run_tests(tests) if ok else 'the build'
        state['ok'] = failed is None
        if failed:
            print(f'  --recheck {again.build}: the unchanged file fails '
                  f'there ({failed}): no rechecks', flush=True)
            return None
    path.write_text(mutant)
    ok, _ = again.ninja(targets)
    if not ok:
        return None
    return again.run_tests(tests)


def mutate_file(runner, path, tests, sample, seed, again=None):
    """[(site, result)] where result is 'killed by X', 'killed under
    DIR by X' (again: the recheck Runner), 'survived' or 'does not
    compile'. With sample, sites are taken in an order shuffled by seed
    until sample mutants compiled (or the sites ran out)."""
    src = path.read_text()
    all_sites = sites(src)
    order = list(all_sites)
    if sample:
        random.Random(f'{seed}:{path.name}').shuffle(order)
    rel = path.relative_to(REPO)
    print(f'{rel}: {len(all_sites)} sites; '
          f'{f"a sample of {sample}" if sample else "all of them"}; tests: '
          f'{" ".join(tests)}', flush=True)
    results = []
    compiled = 0
    targets = runner.targets(tests)
    state = {}
    try:
        for site in order:
            if sample and compiled >= sample:
                break
            no, start, end, old, new, kind = site
            mutant = src[:start] + new + src[end:]
            path.write_text(mutant)
            t0 = time.monotonic()
            ok, _ = runner.ninja(targets)
            if not ok:
                res = 'does not compile'
            else:
                compiled += 1
                failed = runner.run_tests(tests)
                res = f'killed by {failed}' if failed else 'survived'
                if not failed:
                    failed = recheck(again, path, src, mutant, tests, state)
                    if failed:
                        res = (f'killed under {again.build.name} by '
                               f'{failed}')
            print(f'  {rel}:{no}: {describe(site)}: {res} '
                  f'({time.monotonic() - t0:.0f} s)', flush=True)
            results.append((site, res))
    finally:
        path.write_text(src)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('files', nargs='+')
    ap.add_argument('--sample', type=int, default=0,
                    help='mutants per file (0: every site)')
    ap.add_argument('--seed', default='1')
    ap.add_argument('--build', default=str(REPO / 'build'))
    ap.add_argument('--recheck', metavar='DIR',
                    help='a sanitizer build: run survivors again there')
    ap.add_argument('--timeout', type=int, default=120,
                    help='seconds per test file (a timeout kills)')
    ap.add_argument('--unit-timeout', type=int, default=30,
                    help='seconds per unit test (a timeout kills)')
    ap.add_argument('--readme', default=str(REPO / 'tests' / 'README.md'))
    ap.add_argument('--list', action='store_true',
                    help='only list the sites')
    ap.add_argument('--no-baseline', action='store_true',
                    help='skip the run of the tests on the unchanged file')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()

    def interrupted(*_):
        raise KeyboardInterrupt()
    # Ctrl-C, and kill or a shell that runs it in the background (where
    # SIGINT is ignored): the file is restored either way
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGHUP, interrupted)
    mapping = test_map(Path(args.readme))
    paths = []
    for f in args.files:
        p = Path(f).resolve()
        rel = str(p.relative_to(REPO))
        if args.list:
            for s in sites(p.read_text()):
                print(f'{rel}:{s[0]}: {describe(s)}')
            continue
        if rel not in mapping:
            sys.exit(f'{rel}: no tests mapped in {args.readme} ({SECTION})')
        paths.append((p, mapping[rel]))
    if args.list:
        return
    if not (Path(args.build) / 'build.ninja').exists():
        sys.exit(f'{args.build}: not a configured build directory')

    runner = Runner(args)
    again = None
    if args.recheck:
        if not (Path(args.recheck) / 'build.ninja').exists():
            sys.exit(f'{args.recheck}: not a configured build directory')
        again = Runner(args, args.recheck)
    totals = []
    survivors = []
    try:
        for p, tests in paths:
            ok, log = runner.ninja()
            if not ok:
                sys.exit(f'the unchanged tree does not build:\n{log}')
            if not args.no_baseline:
                failed = runner.run_tests(tests)
                if failed:
                    sys.exit(f'{p.relative_to(REPO)}: its tests fail on the '
                             f'unchanged code: {failed}')
            res = mutate_file(runner, p, tests, args.sample, args.seed,
                              again)
            counted = [(s, r) for s, r in res if r != 'does not compile']
            killed = sum(r.startswith('killed') for _, r in counted)
            totals.append((p.relative_to(REPO), killed, len(counted)))
            survivors += [(p.relative_to(REPO), s) for s, r in counted
                          if r == 'survived']
    except KeyboardInterrupt:
        print('interrupted: files restored', flush=True)
        runner.ninja()
        if again:
            again.ninja()
        sys.exit(130)
    runner.ninja()
    if again:
        again.ninja()
    if survivors:
        print('survivors:')
        for rel, s in survivors:
            print(f'  {rel}:{s[0]}: {describe(s)}')
    for rel, k, n in totals:
        print(f'{rel}: killed {k} of {n}')
    print(f'killed {sum(k for _, k, _ in totals)} of '
          f'{sum(n for _, _, n in totals)}')


if __name__ == '__main__':
    main()
