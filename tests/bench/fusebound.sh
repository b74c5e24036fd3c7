#!/bin/sh
# tests/bench/fusebound.sh - bench only, optional (CI runs neither this nor
# the libfuse it needs): mcpfs on libfuse 3.14 against 3.18 without and
# with FUSE over io_uring (fs/fuse318.c hands each request to the loop),
# rows 2a, 2r, 2c, 4 and 5/5' (16 MiB), and 5/5' on 3.18 with a finished
# big reply passed through (MCPFS_BENCH_PASSTHROUGH=1, fs/fuse318.c), the
# builds alternating ROUNDS times in one session; then libfuse's own
# hello_ll (direct_io) and passthrough_hp, the bounds of a design with
# ring threads and of passthrough. tests/bench/README.md, "FUSE over
# io_uring and passthrough", says what it found.
#
#   sh tests/bench/fuse318.sh          # libfuse 3.18 into /opt/fuse318
#   meson setup build-318 -Dfuse_prefix=/opt/fuse318 && ninja -C build-318
#   sh tests/bench/fusebound.sh [ROUNDS]
#
# Environment: OLD (default ./build, on the system's libfuse), NEW (default
# ./build-318), FUSE_SRC (default /tmp/fuse318/fuse-3.18.3, the libfuse
# source tree fuse318.sh built: b/example/ has hello_ll_dio and
# passthrough_hp), BENCH_N (sequential calls, 2000), BENCH_SECS (per
# concurrency run, 1), BENCH_ONLY=big (the rows 5 alone). Turns the
# kernel's fuse.enable_uring on for the io_uring build and back at exit.
# Needs root.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OLD=${OLD:-$ROOT/build}
NEW=${NEW:-$ROOT/build-318}
FUSE_SRC=${FUSE_SRC:-/tmp/fuse318/fuse-3.18.3}
ROUNDS=${1:-3}
N=${BENCH_N:-2000}
SECS=${BENCH_SECS:-1}
# BENCH_ONLY=big: rows 5, 5' and 5'2 alone (and the tmpfs cat)
ROWS=rows
[ "${BENCH_ONLY:-}" = big ] && ROWS=big_rows
REQ='{"name":"echo","arguments":{"text":"hi"}}'
URING=/sys/module/fuse/parameters/enable_uring
WORK=$(mktemp -d /tmp/fusebound.XXXXXX) || exit 1
MNT=$WORK/mnt
URING0=$(cat "$URING" 2>/dev/null || echo N)
MPID=

cleanup() {
	mountpoint -q "$MNT" 2>/dev/null && fusermount3 -u "$MNT"
	[ -n "$MPID" ] && wait "$MPID" 2>/dev/null
	[ -w "$URING" ] && echo "$URING0" >"$URING"
	rm -rf "$WORK" /dev/shm/fusebound.$$
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

B=$WORK/bench
cc -O2 -std=gnu11 -D_GNU_SOURCE -o "$B" "$HERE/bench.c" -lpthread || exit 1
now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
first() { printf '%s\n' "$1" | awk '{ print $1 }'; }
# out BUILD ROW VALUE UNIT: one line in rows, with the round
out() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$r" >>"$WORK/rows"; }

cat >"$WORK/servers.json" <<EOF
{"mcpServers": {"demo": {"command": "$OLD/examples/demo-server"},
 "fake": {"command": "$OLD/tests/fake/fakeserver"}}}
EOF

# mount BUILD URING(0|1) [PASSTHROUGH(0|1)]: mcpfs of BUILD on $MNT, 17
# demo threads ready
mount_mcpfs() {
	mkdir -p "$MNT"
	if [ "${3:-0}" = 1 ]; then
		MCPFS_BENCH_PASSTHROUGH=1; export MCPFS_BENCH_PASSTHROUGH
	else
		unset MCPFS_BENCH_PASSTHROUGH
	fi
	FUSE_URING_ENABLE=$2 "$1/mcpfs" -f -c "$WORK/servers.json" \
		--idle-timeout 0 -o max_message=256M "$MNT" 2>>"$WORK/mcpfs.log" &
	MPID=$!
	while [ ! -e "$MNT/.status" ]; do sleep 0.05; done
	i=0
	while [ $i -le 16 ]; do mkdir "$MNT/demo/c$i"; i=$((i + 1)); done
	until [ "$(cat "$MNT"/demo/c*/status | grep -c '"ready"')" -ge 17 ]; do
		sleep 0.1
	done
}
umount_mcpfs() {
	fusermount3 -u "$MNT" 2>/dev/null || fusermount3 -uz "$MNT"
	i=0
	while kill -0 "$MPID" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1; i=$((i + 1))
	done
	kill -9 "$MPID" 2>/dev/null # a daemon that hung (io_uring, see README)
	wait "$MPID" 2>/dev/null
	MPID=
}

# Every measurement runs under a watchdog: with io_uring, libfuse 3.18.3
# can hang on replies sent from mcpfs's loop thread (README), and a
# client waiting on a request the daemon took cannot be killed; so after
# T seconds the watchdog kills the daemon, which aborts the connection.
# A row that timed out is "hung", and the build's rows of that round end.
T=60
tmo() {
	( sleep "$T"; kill -9 "$MPID" ) >/dev/null 2>&1 &
	w=$!
	"$@"
	rc=$?
	kill "$w" 2>/dev/null
	return $rc
}
# ok NAME ROW VALUE UNIT: record the row; false (and "hung") if no value
ok() {
	if [ -z "$3" ]; then out "$1" "$2" hung ""; return 1; fi
	out "$1" "$2" "$3" "$4"
}
# timed_loop SCRIPT: µs per iteration of SCRIPT (sh, run 100 times with
# $M the mount), empty if it hung
timed_loop() {
	t0=$(now_ns)
	M=$MNT; export M REQ
	tmo sh -c "i=0; while [ \$i -lt 100 ]; do $1; i=\$((i + 1)); done" || return
	t1=$(now_ns)
	echo $(((t1 - t0) / 100000))
}

# rows NAME: every row for the mounted build, one line each in rows
rows() {
	small_rows "$1" && big_rows "$1"
}
small_rows() {
	t=$(first "$(tmo taskset -c 0 "$B" reuse "$N" "$REQ" "$MNT/demo/c0/call")")
	ok "$1" 2a "$t" "µs/call, pinned to CPU 0" || return 1
	t=$(first "$(tmo taskset -c 0 "$B" pread "$N" "$MNT/demo/c0/status")")
	ok "$1" 2r "$t" "µs, pinned to CPU 0" || return 1
	t=$(first "$(tmo "$B" pread "$N" "$MNT/demo/c0/status")")
	ok "$1" 2r-unpinned "$t" "µs" || return 1
	# 16 processes of 2r at once: bare round trips per second
	t0=$(now_ns)
	pids=
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		tmo "$B" pread "$N" "$MNT/demo/c$i/status" >"$WORK/p$i" &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids
	t1=$(now_ns)
	t=$((16 * N * 1000000000 / (t1 - t0)))
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		[ -s "$WORK/p$i" ] || t=
	done
	ok "$1" 2r16 "$t" "round trips/s, 16 processes" || return 1
	for k in 1 16; do
		files=; i=1
		while [ $i -le $k ]; do files="$files $MNT/demo/c$i/call"; i=$((i + 1)); done
		# shellcheck disable=SC2086
		t=$(first "$(tmo "$B" conc "$SECS" "$REQ" $files)")
		ok "$1" "4-$k" "$t" "calls/s, $k sessions" || return 1
	done
	t=$(timed_loop 'echo "$REQ" >"$M/demo/c0/call"; cat "$M/demo/c0/call" >/dev/null')
	ok "$1" 2c "$t" "µs/call, sh loop of 100"
}
# 5 and 5' at 16 MiB
big_rows() {
	mkdir -p "$MNT/fake/b1"
	big='{"name":"big","arguments":{"bytes":16777216}}'
	: >"$WORK/t5"; : >"$WORK/t5r"; : >"$WORK/t5rr"
	for rep in 1 2 3; do
		t0=$(now_ns)
		tmo sh -c 'echo "$1" >"$2"; cat "$2" >/dev/null' - "$big" \
			"$MNT/fake/b1/call" || { ok "$1" 5-16M ""; return 1; }
		t1=$(now_ns)
		echo $((t1 - t0)) >>"$WORK/t5"
		t0=$(now_ns)
		tmo cat "$MNT/fake/b1/call" >/dev/null || { ok "$1" "5'-16M" ""; return 1; }
		t1=$(now_ns)
		echo $((t1 - t0)) >>"$WORK/t5r"
		# once more: with passthrough the memfd is made by the first
		# open of a reply (5'), this one only reads it
		t0=$(now_ns)
		tmo cat "$MNT/fake/b1/call" >/dev/null || { ok "$1" "5'2-16M" ""; return 1; }
		t1=$(now_ns)
		echo $((t1 - t0)) >>"$WORK/t5rr"
	done
	out "$1" 5-16M "$((16777216000 / $(median <"$WORK/t5")))" "MB/s, whole shell call"
	out "$1" "5'-16M" "$((16777216000 / $(median <"$WORK/t5r")))" "MB/s, cat again"
	out "$1" "5'2-16M" "$((16777216000 / $(median <"$WORK/t5rr")))" "MB/s, cat a third time"
}

# the tmpfs cat of rows 5 and 5', each round
shm_row() {
	head -c 16777216 /dev/zero >/dev/shm/fusebound.$$
	: >"$WORK/ts"
	for rep in 1 2 3; do
		t0=$(now_ns); cat /dev/shm/fusebound.$$ >/dev/null; t1=$(now_ns)
		echo $((t1 - t0)) >>"$WORK/ts"
	done
	out tmpfs cat-16M "$((16777216000 / $(median <"$WORK/ts")))" "MB/s"
	rm -f /dev/shm/fusebound.$$
}

# libfuse's own hello_ll with direct_io (b/example/hello_ll_dio, made by
# fuse318.sh): one and 16 callers of bare round trips
hello_rows() {
	mkdir -p "$MNT"
	FUSE_URING_ENABLE=$2 "$FUSE_SRC/b/example/hello_ll_dio" -f "$MNT" &
	MPID=$!
	while [ ! -e "$MNT/hello" ]; do sleep 0.05; done
	t=$(first "$(taskset -c 0 "$B" pread "$N" "$MNT/hello")")
	out "$1" 2r "$t" "µs, pinned to CPU 0"
	t=$(first "$("$B" pread "$N" "$MNT/hello")")
	out "$1" 2r-unpinned "$t" "µs"
	t0=$(now_ns)
	pids=
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		"$B" pread "$N" "$MNT/hello" >/dev/null &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids
	t1=$(now_ns)
	out "$1" 2r16 "$((16 * N * 1000000000 / (t1 - t0)))" "round trips/s, 16 processes"
	umount_mcpfs
}

# passthrough_hp over /dev/shm: a 16 MiB file's cat, with and without
# passthrough (without: --direct-io, every read a FUSE round trip)
pt_rows() {
	src=/dev/shm/fusebound.$$.d
	mkdir -p "$src" "$MNT"
	head -c 16777216 /dev/zero >"$src/f"
	"$FUSE_SRC/b/example/passthrough_hp" --foreground $2 "$src" "$MNT" \
		2>>"$WORK/pt.log" &
	MPID=$!
	while [ ! -e "$MNT/f" ]; do sleep 0.05; done
	: >"$WORK/tp"
	for rep in 1 2 3 4 5; do
		t0=$(now_ns); cat "$MNT/f" >/dev/null; t1=$(now_ns)
		echo $((t1 - t0)) >>"$WORK/tp"
	done
	out "$1" cat-16M "$((16777216000 / $(median <"$WORK/tp")))" "MB/s"
	umount_mcpfs
	rm -rf "$src"
}

echo "load before: $(cat /proc/loadavg)" >"$WORK/load"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	echo "round $r: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	shm_row
	echo N >"$URING"
	mount_mcpfs "$OLD" 0; $ROWS "3.14"; umount_mcpfs
	mount_mcpfs "$NEW" 0; $ROWS "3.18"; umount_mcpfs
	mount_mcpfs "$NEW" 0 1; big_rows "3.18+passthrough"; umount_mcpfs
	echo Y >"$URING"
	mount_mcpfs "$NEW" 1; $ROWS "3.18+uring"; umount_mcpfs
	[ "$ROWS" = rows ] && hello_rows "hello_ll+uring" 1
	echo N >"$URING"
	[ "$ROWS" = rows ] && hello_rows "hello_ll" 0
	if [ "$ROWS" = rows ] && [ -x "$FUSE_SRC/b/example/passthrough_hp" ]; then
		pt_rows "passthrough_hp, passthrough" ""
		pt_rows "passthrough_hp, no passthrough, direct_io" "--nopassthrough --direct-io"
	fi
	r=$((r + 1))
done
echo "load after: $(cat /proc/loadavg)" >>"$WORK/load"
cat "$WORK/load"
[ -n "${BENCH_RAW:-}" ] && cp "$WORK/rows" "$BENCH_RAW"
# one line per build and row: its value in each round, "-" where a hang
# ended that build's round before the row
awk -F'\t' -v R="$ROUNDS" '{ k = $1 "\t" $2; if (!(k in u)) { o[++n] = k; u[k] = $4 }
	v[k, $5] = $3 }
	END { for (i = 1; i <= n; i++) { s = ""
		for (j = 1; j <= R; j++)
			s = s (j > 1 ? ", " : "") ((o[i], j) in v ? v[o[i], j] : "-")
		print o[i] "\t" s "\t" u[o[i]] } }' \
	"$WORK/rows" | sort -t'	' -k2,2 -k1,1
