"""Sum every run of tests/run-all.sh into one line: N passed, N failed,
N skipped; exit status 1 if anything failed or nothing ran.

usage: summary.py BUILD_DIR...   (the first one also holds fuzz.log and
the step statuses)

What counts, per build directory:
- meson's JSON logs (meson-logs/*.json: testlog, valgrind, debian): the
  overall result of every test binary. A binary whose result is not OK
  (exit status, signal, timeout, "too few tests run" of TAP, a valgrind
  or LeakSanitizer report after its last ok line) is a failure even when
  its subtests all passed.
- the subtests: meson's JUnit files for the TAP binaries, pytest's own
  XML for the pytest runs (one per meson test: pytest-mount-test_call.xml
  for `mount / mount-test_call`, pytest-debian.xml). A pytest XML with no
  test case (nothing collected) is a failure, and so is a pytest run meson
  ran without its XML (it crashed or timed out before writing it); a run
  meson did not count as OK (timeout, killed, a non-zero exit) is a
  failure even when its XML shows every case passed.
- ci-status/STEP: the exit status run-all.sh kept of each step (meson
  test, fuzz, builds); a non-zero one that nothing above explains is a
  failure too.
- fuzz.log: "fuzz: exit N" (0 passes, 77 is a skip, anything else fails).
- a skip is a failure unless tests/expected-skips.txt names it (one
  pattern a line, fnmatch, '#' comments): "FILE::TEST" for pytest
  (test_install::test_x), "SUITE / NAME" for meson, "fuzz"
  (MCPFS_EXPECTED_SKIPS names another file).
Each failure and unexpected skip is listed before the last line.
"""
import fnmatch
import json
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent
OK_RESULTS = {'OK', 'EXPECTEDFAIL'}

passed = failed = skipped = 0
problems = []


def expected_skips():
    f = Path(os.environ.get('MCPFS_EXPECTED_SKIPS',
                            ROOT / 'expected-skips.txt'))
    if not f.exists():
        return []
    out = []
    for line in f.read_text().splitlines():
        line = line.split('#', 1)[0].strip()
        if line:
            out.append(line)
    return out


EXPECTED = expected_skips()


def skip(name, why=''):
    global skipped, failed
    skipped += 1
    if not any(fnmatch.fnmatchcase(name, p) for p in EXPECTED):
        failed += 1
        problems.append(f'unexpected skip: {name} {why}'.rstrip())


def fail(what):
    global failed
    failed += 1
    problems.append(f'FAILED: {what}')


def case_failed(case):
    return case.find('failure') is not None or case.find('error') is not None


def count_pytest(xml, label):
    """Count one pytest XML; returns True if it holds a failure."""
    global passed
    try:
        root = ET.parse(xml).getroot()
    except (ET.ParseError, OSError) as e:
        fail(f'{label}: {xml} unreadable: {e}')
        return True
    cases = list(root.iter('testcase'))
    bad = False
    if not cases:
        fail(f'{label}: {xml.name} has no test case (pytest collected '
             'nothing)')
        bad = True
    for case in cases:
        name = case.get('classname', '').split('.')[-1] + '::' + \
            case.get('name', '')
        if case_failed(case):
            fail(f'{label}: {name}')
            bad = True
        elif case.find('skipped') is not None:
            sk = case.find('skipped')
            skip(name, f'({label}: {sk.get("message", "")[:150]})')
        else:
            passed += 1
    for suite in root.iter('testsuite'):
        # errors outside any test case (collection errors)
        if int(suite.get('errors', 0)) and not any(
                case.find('error') is not None for case in cases):
            fail(f'{label}: pytest reported errors outside the tests')
            bad = True
    return bad


def count_junit(junit, label):
    """Subtests of meson's TAP binaries: {binary name: any subtest failed}."""
    global passed
    out = {}
    if not junit.exists():
        return out
    root = ET.parse(junit).getroot()
    for suite in root.iter('testsuite'):
        # "mcpfs.mcpfs:unit / jscan" -> "unit / jscan"
        name = suite.get('name', '').split(':', 1)[-1]
        if ' / ' not in name:
            continue    # a suite of exit-status tests, counted from JSON
        bad = False
        for case in suite.iter('testcase'):
            if case_failed(case):
                fail(f'{label}: {name}: {case.get("name")}')
                bad = True
            elif case.find('skipped') is not None:
                skip(f'{name}: {case.get("name")}', f'({label})')
            else:
                passed += 1
        out[name] = bad
    return out


def count_meson(d, log):
    """One meson JSON log and its JUnit file; returns the binaries run."""
    label = f'{d.name}/{log.stem}'
    entries = []
    for line in log.read_text().splitlines():
        if line.strip():
            entries.append(json.loads(line))
    subtests = count_junit(log.with_suffix('.junit.xml'), label)
    for e in entries:
        name = e['name'].split(':', 1)[-1]      # "unit / jscan"
        result = e.get('result')
        rc = e.get('returncode')
        suite, _, test = name.partition(' / ')
        # each pytest run writes pytest-TEST.xml: pytest-mount-test_call.xml
        pytest_xml = d / f'pytest-{test}.xml' if suite in (
            'mount', 'debian') else None
        bad = subtests.get(name, False)
        if pytest_xml is not None:
            # an XML older than this run is an earlier run's
            if not pytest_xml.exists() or pytest_xml.stat().st_mtime < \
                    e.get('starttime', 0):
                fail(f'{label}: {name} ({result}, rc {rc}) wrote no '
                     f'{pytest_xml.name}')
                continue
            bad = count_pytest(pytest_xml, label)
        if result == 'SKIP':
            skip(name, f'({label})')
        elif result not in OK_RESULTS and not bad:
            # the binary's own result, which no subtest shows
            fail(f'{label}: {name}: {result}, exit status {rc}')
        elif result in OK_RESULTS and name not in subtests and \
                pytest_xml is None:
            global passed
            passed += 1
    return len(entries)


dirs = [Path(a) for a in sys.argv[1:]]
binaries = 0
for d in dirs:
    logs = sorted((d / 'meson-logs').glob('*.json'))
    for log in logs:
        binaries += count_meson(d, log)

if dirs:
    status_dir = dirs[0] / 'ci-status'
    fuzz = dirs[0] / 'fuzz.log'
    if fuzz.exists():
        t = fuzz.read_text()
        if 'fuzz: exit 0\n' in t:
            passed += 1
        elif 'fuzz: exit 77\n' in t:
            skip('fuzz', '(clang or libFuzzer missing)')
        else:
            fail('fuzz: ' + (t.strip().splitlines() or ['no output'])[-1])
    elif status_dir.is_dir() and (status_dir / 'fuzz').exists():
        fail('fuzz: no fuzz.log')
    steps_bad = []
    if status_dir.is_dir():
        for f in sorted(status_dir.iterdir()):
            rc = f.read_text().strip()
            if rc != '0':
                steps_bad.append(f'{f.name} exited {rc}')
    if steps_bad and not failed:
        for s in steps_bad:
            fail(f'step {s}')
    elif steps_bad:
        problems.append('steps with a non-zero exit: ' + ', '.join(steps_bad))
    if not binaries and not passed:
        fail('nothing ran (no meson log in ' +
             ', '.join(map(str, dirs)) + ')')

for p in problems:
    print(p)
print(f'{passed} passed, {failed} failed, {skipped} skipped')
sys.exit(1 if failed or not passed else 0)
