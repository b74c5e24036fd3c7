#!/bin/sh
# tests/stress.sh [-n N] [FILE...] - run mount test files N times (default
# 5) under load, to find the tests that fail only sometimes (not part of
# .ci/run). Each run runs the FILEs (default: every tests/mount/test_*.py)
# with the plain build and, at the same time, with the ASan+UBSan build,
# while the fuzzers (tests/fuzz/run.sh, in a loop), one busy loop per CPU
# and a fork storm run beside them. Every failure is printed as
#     run R build B: FAILED|ERROR TEST-ID
# and the run's pytest output is kept in build-stress/R-B.log (verbose:
# a failure's id is there as soon as it fails, `grep -E ' (FAILED|ERROR)'
# build-stress/*.log`, even in a run stopped before its end). The fuzz
# loop writes build-stress/fuzz.log and its work directories under
# build-stress/fuzz-tmp (a failing target's crashing inputs are kept
# there); a target that failed during a run is a failure of that run,
# printed as "run R fuzz: fuzz_T: FAILED ...". Ends with "stress: F
# failures in N runs" and exits 1 if F > 0.
#
# The per-test watchdog (conftest.py's MCPFS_TEST_DEADLINE, 90 s) is 900 s
# here unless set, and every wait's and I/O's deadline in the tests is 10
# times longer (MCPFS_TEST_SLACK, conftest.py): under this load (seen:
# load average 50 on 2 CPUs) the shell-loop tests' hundreds of forks take
# longer than 90 s without hanging (their loops were still advancing when
# the watchdog aborted them); a real hang still fails, later.
#
# Environment: PYTHON (one with pytest; default python3, else
# /usr/bin/python3), STRESS_LOAD=0 (no CPU, fork or fuzzer load), STRESS_ASAN=0
# (the plain build alone), PYTEST_ARGS (added to each pytest, e.g. -x).
# It runs copies of the builds (build-stress/bin-*), so rebuilding
# during a run is harmless. Never run all files at once on a shared
# machine: on 2 cores a loaded full run takes hours.
set -u
cd "$(dirname "$0")/.." || exit 1
n=5
if [ "${1:-}" = -n ]; then
	n=$2
	shift 2
fi
case $n in ''|*[!0-9]*) echo "usage: $0 [-n N] [FILE...]" >&2; exit 2 ;; esac
[ $# -eq 0 ] && set -- tests/mount/test_*.py
py=${PYTHON:-python3}
"$py" -c 'import pytest' 2>/dev/null || py=/usr/bin/python3
out=build-stress
rm -rf "$out"
mkdir -p "$out"

builds=build
if [ "${STRESS_ASAN:-1}" != 0 ]; then
	[ -d build-asan ] || meson setup build-asan \
		-Db_sanitize=address,undefined -Db_lundef=false || exit 1
	builds="build build-asan"
fi
for b in $builds; do
	ninja -C "$b" >/dev/null || { echo "stress: $b does not build"; exit 1; }
	cp -a "$b" "$out/bin-$b" || exit 1
done

pids=
cleanup() {
	for p in $pids; do
		kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# start CMD... in its own process group, so that cleanup ends it whole
bg() {
	setsid "$@" >/dev/null 2>&1 &
	pids="$pids $!"
}
if [ "${STRESS_LOAD:-1}" != 0 ]; then
	cpus=$(nproc 2>/dev/null || echo 2)
	i=0
	while [ "$i" -lt "$cpus" ]; do
		bg sh -c 'while :; do :; done'
		i=$((i + 1))
	done
	bg sh -c 'while :; do /bin/true; /bin/true & wait; done'
	mkdir -p "$out/fuzz-tmp"
	# shellcheck disable=SC2016 # $0 is the inner shell's
	bg env TMPDIR="$PWD/$out/fuzz-tmp" sh -c \
		'while :; do sh tests/fuzz/run.sh 60; done >> "$0" 2>&1' \
		"$out/fuzz.log"
fi

# test_debian.py installs and purges the package: never beside another
# pytest (two at once fight over dpkg's lock, as .ci/run knows: it runs
# that file alone, after the rest); here it runs alone after each round,
# with the plain build.
debian=
files=
for f in "$@"; do
	case $f in
	*test_debian.py) debian=$f ;;
	*) files="$files $f" ;;
	esac
done

fails=0
fuzzed=0 # fuzz.log's FAILED lines already counted
r=1
while [ "$r" -le "$n" ]; do
	runs=
	for b in ${files:+$builds}; do
		(
			if [ "$b" = build-asan ]; then
				ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
				UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
				export ASAN_OPTIONS UBSAN_OPTIONS
			fi
			# shellcheck disable=SC2086 # PYTEST_ARGS is word-split
			MCPFS_TEST_DEADLINE=${MCPFS_TEST_DEADLINE:-900} \
			MCPFS_TEST_SLACK=${MCPFS_TEST_SLACK:-10} \
			MCPFS_BUILD=$PWD/$out/bin-$b "$py" -m pytest -v -rfE \
				-p no:cacheprovider ${PYTEST_ARGS:-} $files \
				> "$out/$r-$b.log" 2>&1
			echo $? > "$out/$r-$b.rc"
		) &
		runs="$runs $!"
	done
	for p in $runs; do
		wait "$p"
	done
	if [ -n "$debian" ]; then
		# shellcheck disable=SC2086 # PYTEST_ARGS is word-split
		MCPFS_TEST_DEADLINE=${MCPFS_TEST_DEADLINE:-900} \
		MCPFS_TEST_SLACK=${MCPFS_TEST_SLACK:-10} \
		MCPFS_BUILD=$PWD/$out/bin-build "$py" -m pytest -v -rfE \
			-p no:cacheprovider ${PYTEST_ARGS:-} "$debian" \
			> "$out/$r-debian.log" 2>&1
		echo $? > "$out/$r-debian.rc"
	fi
	for b in ${files:+$builds} ${debian:+debian}; do
		grep -E '^(FAILED|ERROR) ' "$out/$r-$b.log" |
			sed "s/^/run $r build $b: /" > "$out/$r-$b.fail"
		# pytest failed with no test named: count the run itself
		if [ "$(cat "$out/$r-$b.rc")" != 0 ] &&
		   [ ! -s "$out/$r-$b.fail" ]; then
			echo "run $r build $b: pytest exit $(cat "$out/$r-$b.rc")" \
				> "$out/$r-$b.fail"
		fi
		cat "$out/$r-$b.fail"
		k=$(wc -l < "$out/$r-$b.fail")
		fails=$((fails + k))
		echo "run $r build $b: $(tail -n 1 "$out/$r-$b.log")"
	done
	if [ -f "$out/fuzz.log" ]; then
		grep -E '^fuzz_[a-z0-9_]*: FAILED' "$out/fuzz.log" |
			sed -n "$((fuzzed + 1)),\$p" | sed "s/^/run $r fuzz: /" \
			> "$out/$r-fuzz.fail"
		cat "$out/$r-fuzz.fail"
		k=$(wc -l < "$out/$r-fuzz.fail")
		fails=$((fails + k))
		fuzzed=$((fuzzed + k))
		echo "run $r fuzz: $(grep -c ': ok,' "$out/fuzz.log") target" \
			"runs passed, $fuzzed failed so far"
	fi
	r=$((r + 1))
done
echo "stress: $fails failures in $n runs"
[ "$fails" -eq 0 ]
