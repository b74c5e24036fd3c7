"""tests/summary.py, the last line of tests/run-all.sh, on made-up build
directories: a test binary whose own result is not OK fails the run even
when every subtest passed (a valgrind leak, a crash after the last ok
line), a pytest XML without a test case fails it, a skip fails it unless
the expected-skips file names it, a failed step or fuzz run fails it."""

import json
import os
import subprocess
import sys

from conftest import REPO

SUMMARY = REPO / 'tests/summary.py'

UNIT_OK = ('1..2\nok 1 - a\nok 2 - b\n', [('1 - a', ''), ('2 - b', '')])


def build_dir(tmp, name='build', tests=(), pytest_cases=None, steps=None,
              fuzz=None, logbase='testlog'):
    """tests: (meson name, result, returncode, [(subtest, ''|'failure'|
    'skipped')]); pytest_cases: [(classname, name, ''|'failure'|
    'skipped')] written as pytest-mount.xml."""
    d = tmp / name
    (d / 'meson-logs').mkdir(parents=True, exist_ok=True)
    with open(d / 'meson-logs' / f'{logbase}.json', 'w') as f:
        for n, result, rc, _ in tests:
            f.write(json.dumps({'name': f'mcpfs:{n}', 'result': result,
                                'returncode': rc}) + '\n')
    suites = []
    for n, _, _, subs in tests:
        if subs is None:
            continue
        cases = ''.join(
            f'<testcase name="{c}" classname="mcpfs.mcpfs:{n}">'
            + (f'<{k} message="x"/>' if k else '') + '</testcase>'
            for c, k in subs)
        suites.append(f'<testsuite name="mcpfs.mcpfs:{n}">{cases}</testsuite>')
    (d / 'meson-logs' / f'{logbase}.junit.xml').write_text(
        '<testsuites>' + ''.join(suites) + '</testsuites>')
    if pytest_cases is not None:
        cases = ''.join(
            f'<testcase classname="{c}" name="{n}">'
            + (f'<{k} message="why"/>' if k else '') + '</testcase>'
            for c, n, k in pytest_cases)
        (d / 'pytest-mount.xml').write_text(
            f'<testsuites><testsuite name="pytest" errors="0">{cases}'
            '</testsuite></testsuites>')
    if steps is not None:
        (d / 'ci-status').mkdir(exist_ok=True)
        for k, v in steps.items():
            (d / 'ci-status' / k).write_text(f'{v}\n')
    if fuzz is not None:
        (d / 'fuzz.log').write_text(f'fuzz_x: ...\nfuzz: exit {fuzz}\n')
    return d


def summary(tmp, *dirs, expected=''):
    skips = tmp / 'expected-skips.txt'
    skips.write_text(expected)
    r = subprocess.run([sys.executable, str(SUMMARY), *map(str, dirs)],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, MCPFS_EXPECTED_SKIPS=str(skips)))
    return r.returncode, r.stdout.splitlines()


def test_all_green(tmp_path):
    d = build_dir(tmp_path, tests=[('unit / a', 'OK', 0, UNIT_OK[1]),
                                   ('mount / mount', 'OK', 0, None)],
                  pytest_cases=[('test_x', 'test_1', '')],
                  steps={'test-plain': 0}, fuzz=0)
    assert summary(tmp_path, d) == (0, ['4 passed, 0 failed, 0 skipped'])


def test_binary_failed_with_its_subtests_ok(tmp_path):
    """valgrind's exit 1 after the last ok line, LeakSanitizer, a signal."""
    d = build_dir(tmp_path, tests=[('unit / a', 'ERROR', 1, UNIT_OK[1]),
                                   ('unit / b', 'ERROR', -6, UNIT_OK[1])],
                  steps={'test-valgrind': 1})
    rc, out = summary(tmp_path, d)
    assert rc == 1
    assert out[-1] == '4 passed, 2 failed, 0 skipped', out
    assert 'FAILED: build/testlog: unit / b: ERROR, exit status -6' in out


def test_failing_subtest_counts_once(tmp_path):
    d = build_dir(tmp_path, tests=[('unit / a', 'FAIL', 1,
                                    [('1 - a', ''), ('2 - b', 'failure')])])
    rc, out = summary(tmp_path, d)
    assert (rc, out[-1]) == (1, '1 passed, 1 failed, 0 skipped'), out


def test_pytest_that_collected_nothing_fails(tmp_path):
    d = build_dir(tmp_path, tests=[('mount / mount', 'OK', 0, None)],
                  pytest_cases=[])
    rc, out = summary(tmp_path, d)
    assert (rc, out[-1]) == (1, '0 passed, 1 failed, 0 skipped'), out


def test_pytest_without_its_xml_fails(tmp_path):
    d = build_dir(tmp_path, tests=[('unit / a', 'OK', 0, UNIT_OK[1]),
                                   ('mount / mount', 'ERROR', 1, None)])
    rc, out = summary(tmp_path, d)
    assert (rc, out[-1]) == (1, '2 passed, 1 failed, 0 skipped'), out


def test_skips_fail_unless_expected(tmp_path):
    d = build_dir(tmp_path, tests=[('mount / mount', 'OK', 0, None)],
                  pytest_cases=[('test_x', 'test_1', ''),
                                ('test_x', 'test_2', 'skipped')])
    rc, out = summary(tmp_path, d)
    assert rc == 1 and out[-1] == '1 passed, 1 failed, 1 skipped', out
    assert out[0].startswith('unexpected skip: test_x::test_2'), out
    rc, out = summary(tmp_path, d, expected='# why\ntest_x::test_2\n')
    assert (rc, out) == (0, ['1 passed, 0 failed, 1 skipped'])


def test_fuzz_and_steps(tmp_path):
    ok = [('unit / a', 'OK', 0, UNIT_OK[1])]
    d = build_dir(tmp_path, 'b1', tests=ok, fuzz=1)
    assert summary(tmp_path, d)[1][-1] == '2 passed, 1 failed, 0 skipped'
    d = build_dir(tmp_path, 'b2', tests=ok, fuzz=77)
    assert summary(tmp_path, d)[1][-1] == '2 passed, 1 failed, 1 skipped'
    assert summary(tmp_path, d, expected='fuzz\n') == \
        (0, ['2 passed, 0 failed, 1 skipped'])
    # a step that failed with nothing else to show for it (a build)
    d = build_dir(tmp_path, 'b3', tests=ok, steps={'build-asan': 1})
    rc, out = summary(tmp_path, d)
    assert (rc, out) == (1, ['FAILED: step build-asan exited 1',
                             '2 passed, 1 failed, 0 skipped'])


def test_nothing_ran(tmp_path):
    (tmp_path / 'empty').mkdir()
    rc, out = summary(tmp_path, tmp_path / 'empty')
    assert rc == 1 and out[-1] == '0 passed, 1 failed, 0 skipped', out
