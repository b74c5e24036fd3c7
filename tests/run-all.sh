#!/bin/sh
# Build mcpfs and run every test: unit tests (cmocka, also under valgrind
# memcheck), FUSE mount tests (pytest, fake and real MCP servers), again
# under ASan+UBSan, the fuzzers for a bounded time and the Debian package
# test. Ends with tests/summary.py's "N passed, N failed, N skipped" and
# its exit status.
#
# Every step's exit status is kept in build/ci-status/STEP, which the
# summary reads: a step that failed fails the run even when no test result
# shows it. On two cores the slow steps run side by side: the plain suites
# (then the unit tests under valgrind), the ASan suites and the fuzzers
# (CI_SERIAL=1 runs them one after the other); each runs two meson tests
# at a time (every mount test file is a meson test of its own, the ASan
# ones with three times the time). The Debian package test
# installs and purges the package, so it runs alone at the end.
set -u
cd "$(dirname "$0")/.." || exit 1
sh tests/setup-deps.sh || exit 1
[ -f package-lock.json ] && { npm ci --no-audit --no-fund >/dev/null || exit 1; }

status=build/ci-status
# step NAME CMD...: run CMD, keep its exit status under NAME
step() {
	name=$1; shift
	"$@"
	rc=$?
	echo "$rc" > "$status/$name"
	return "$rc"
}

meson setup build --wipe >/dev/null 2>&1 || meson setup build || exit 1
meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
	--wipe >/dev/null 2>&1 ||
	meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false ||
	exit 1
rm -rf "$status" build/fuzz.log build*/pytest-*.xml
rm -f build*/meson-logs/*.json build*/meson-logs/*.junit.xml
mkdir -p "$status"
step build ninja -C build || { python3 tests/summary.py build; exit 1; }
step build-asan ninja -C build-asan ||
	{ python3 tests/summary.py build build-asan; exit 1; }

plain() {
	step test-plain meson test -C build --no-rebuild --print-errorlogs \
		--num-processes 2 --no-suite debian
	# the unit tests again under valgrind memcheck (their own logs)
	step test-valgrind meson test -C build --no-rebuild --suite unit \
		--print-errorlogs --logbase valgrind \
		--wrap='valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=all'
}
asan() {
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		step test-asan meson test -C build-asan --no-rebuild \
		--print-errorlogs --num-processes 2 --timeout-multiplier 3 \
		--suite unit --suite mount
}
fuzz() {
	# run with sh: a lost file mode cannot skip it; exit 77 is a skip,
	# which the summary fails unless tests/expected-skips.txt names fuzz
	step fuzz sh tests/fuzz/run.sh "${FUZZ_SECONDS:-60}" > build/fuzz.log 2>&1
	echo "fuzz: exit $(cat "$status/fuzz")" >> build/fuzz.log
}

if [ "${CI_SERIAL:-0}" = 1 ]; then
	plain
	asan > build/asan.log 2>&1
	fuzz
else
	fuzz &
	fuzz_pid=$!
	asan > build/asan.log 2>&1 &
	asan_pid=$!
	plain
	wait "$asan_pid"
	wait "$fuzz_pid"
fi
cat build/asan.log build/fuzz.log

# builds, installs and purges the Debian package (tests/mount/test_debian.py)
step test-debian meson test -C build --no-rebuild --print-errorlogs \
	--suite debian --logbase debian

/usr/bin/python3 tests/summary.py build build-asan
