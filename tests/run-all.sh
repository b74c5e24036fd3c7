#!/bin/sh
# Build mcpfs and run every test: unit tests (cmocka), FUSE mount tests
# (pytest, fake and real MCP servers), again under ASan+UBSan, and the
# fuzzers for a bounded time. Ends with "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
sh tests/setup-deps.sh || exit 1
[ -f package-lock.json ] && { npm ci --no-audit --no-fund >/dev/null || exit 1; }
rm -f build*/pytest-*.xml
meson setup build --wipe >/dev/null 2>&1 || meson setup build || exit 1
ninja -C build || exit 1
meson test -C build --print-errorlogs --num-processes 2
# the unit tests again under valgrind memcheck (their own junit file)
meson test -C build --suite unit --print-errorlogs --logbase valgrind \
	--wrap='valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=all'
meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false \
	--wipe >/dev/null 2>&1 ||
	meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false ||
	exit 1
ninja -C build-asan || exit 1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	meson test -C build-asan --print-errorlogs --num-processes 2 \
	--suite unit --suite mount
if [ -x tests/fuzz/run.sh ]; then
	sh tests/fuzz/run.sh "${FUZZ_SECONDS:-60}" > build/fuzz.log 2>&1
	echo "fuzz: exit $?" >> build/fuzz.log
	cat build/fuzz.log
fi
/usr/bin/python3 tests/summary.py build build-asan
