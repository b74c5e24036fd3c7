#!/bin/sh
# tests/tsan.sh [PYTEST ARGS...] - ThreadSanitizer run (not part of .ci/run).
# Builds mcpfs with -fsanitize=thread in build-tsan/ and runs the unit tests
# and the mount test files whose code runs on threads besides the loop:
# libuv's thread pool writes the kernel invalidation of a session that went
# without an rmdir (fs/fs.c: idle timeout, the cap, ctl close, reload:
# test_lifecycle.py, test_config.py, test_tree.py) and resolves OAuth
# endpoint names (uv_getaddrinfo, sessions/http/oauth/oauthnet.c:
# test_auth_hardening.py); libcurl's resolver threads serve HTTP
# (test_http.py). Every report goes to a file under build-tsan/tsan/ (each
# process its own: mcpfs, the unit tests); the run fails if any was
# written, and prints them. PYTEST ARGS replace the default file list.
set -u
cd "$(dirname "$0")/.." || exit 1
b=build-tsan
[ -d "$b" ] || meson setup "$b" -Db_sanitize=thread -Db_lundef=false ||
	exit 1
ninja -C "$b" || exit 1
rm -rf "$b/tsan"
mkdir -p "$b/tsan"
# second_deadlock_stack: both stacks of a lock-order report
TSAN_OPTIONS="log_path=$PWD/$b/tsan/report:second_deadlock_stack=1:halt_on_error=0"
export TSAN_OPTIONS
rc=0
meson test -C "$b" --no-rebuild --suite unit --print-errorlogs || rc=1
if [ $# -eq 0 ]; then
	set -- tests/mount/test_lifecycle.py tests/mount/test_config.py \
		tests/mount/test_tree.py tests/mount/test_auth_hardening.py \
		tests/mount/test_http.py
fi
py=${PYTHON:-python3}
"$py" -c 'import pytest' 2>/dev/null || py=/usr/bin/python3
MCPFS_BUILD=$PWD/$b "$py" -m pytest -q -p no:cacheprovider "$@" || rc=1
n=$(find "$b/tsan" -type f | wc -l)
if [ "$n" -gt 0 ]; then
	echo "tsan: $n report file(s):"
	for f in "$b"/tsan/*; do
		echo "== $f"
		cat "$f"
	done
	rc=1
else
	echo "tsan: no reports"
fi
exit "$rc"
