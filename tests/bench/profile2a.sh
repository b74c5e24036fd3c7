#!/bin/sh
# tests/bench/profile2a.sh - where row 2a's time goes (issue 53 item 5): the
# floor (row 1), one bare FUSE round trip (row 2r) and 2a, each under
# `perf record -e cpu-clock -c 100000 -g -C 0` with the client, mcpfs and
# demo-server pinned to CPU 0, twice, alternating; then per process, CPU
# µs per operation, split by where the kernel was (the first known
# function up each sample's call chain) and user space. Not run by
# run.sh; needs perf, python3 and build/. The binaries are copied under
# names of their own (pmcpfs, pdemo, bench-b) so that other mcpfs and
# demo-server processes on the machine are not counted.
#
#   sh tests/bench/profile2a.sh [N]     (N calls per loop, default 20000)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${MCPFS_BUILD:-$HERE/../../build}
N=${1:-20000}
C=100000 # ns of CPU 0 per sample
W=$(mktemp -d /tmp/mcpfs-prof.XXXXXX) || exit 1
REQ='{"name":"echo","arguments":{"text":"hi"}}'
mkdir "$W/mnt" "$W/bin"
cp "$BUILD/mcpfs" "$W/bin/pmcpfs" && cp "$BUILD/mcpfs-exec" "$W/bin/" &&
	cp "$BUILD/examples/demo-server" "$W/bin/pdemo" || exit 1
cc -O2 -std=gnu11 -D_GNU_SOURCE -o "$W/bin/bench-b" "$HERE/bench.c" -lpthread || exit 1
B=$W/bin/bench-b D=$W/bin/pdemo
printf '{"mcpServers": {"demo": {"command": "%s"}}}\n' "$D" >"$W/conf.json"
"$W/bin/pmcpfs" -f -c "$W/conf.json" --idle-timeout 0 "$W/mnt" 2>"$W/mcpfs.log" &
MP=$!
cleanup() {
	trap - EXIT INT TERM HUP PIPE
	fusermount3 -u "$W/mnt" 2>/dev/null
	while kill -0 $MP 2>/dev/null; do sleep 0.1; done
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP PIPE
while [ ! -e "$W/mnt/.status" ]; do sleep 0.1; done
mkdir "$W/mnt/demo/t1" && cat "$W/mnt/demo/t1/status" >/dev/null
sleep 0.5
for p in $MP $(pgrep -P $MP) $(for s in $(pgrep -P $MP); do pgrep -P "$s"; done); do
	taskset -apc 0 "$p" >/dev/null
done
taskset -c 0 "$B" reuse 2000 "$REQ" "$W/mnt/demo/t1/call" >/dev/null
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
for what in floor pread 2a floor pread 2a; do
	case $what in
	floor) set -- floor "$N" "$REQ" -- "$D" ;;
	pread) set -- pread "$N" "$W/mnt/demo/t1/status" ;;
	*) set -- reuse "$N" "$REQ" "$W/mnt/demo/t1/call" ;;
	esac
	perf record -q -o "$W/perf.data" -e cpu-clock -c $C -g -C 0 -- \
		taskset -c 0 "$B" "$@" >"$W/out" 2>/dev/null
	echo "-- $what: median, p10, p90 µs: $(cut -d' ' -f1-3 "$W/out")"
	perf script -i "$W/perf.data" -F comm,ip,sym,dso 2>/dev/null |
		/usr/bin/python3 -c '
import re, sys, collections
ops, per = float(sys.argv[1]), float(sys.argv[2]) / 1000
MARK = [("do_task_stat", "pread /proc/TID/stat"),
	("proc_single_show", "pread /proc/TID/stat"),
	("__x64_sys_pread64", "pread (other)"),
	("fuse_dev_do_write", "writev /dev/fuse (replies)"),
	("fuse_dev_do_read", "read /dev/fuse (requests)"),
	("fuse_dev_read", "read /dev/fuse (requests)"),
	("anon_pipe_write", "write a pipe"), ("pipe_write", "write a pipe"),
	("anon_pipe_read", "read a pipe"), ("pipe_read", "read a pipe"),
	("unix_stream_read_generic", "read a socketpair"),
	("unix_stream_sendmsg", "write a socketpair"),
	("do_epoll_wait", "epoll_wait"),
	("fuse_direct_io", "FUSE read/write (the caller)"),
	("fuse_simple_request", "FUSE read/write (the caller)"),
	("asm_exc_page_fault", "page faults")]
n = collections.Counter()
def done(comm, fr):
	if comm not in ("pmcpfs", "bench-b", "pdemo"):
		return
	n[comm, "all"] += 1
	if not fr or "kernel" not in fr[0][1]:
		n[comm, "user"] += 1
		n[comm, "user: " + (fr[0][0] if fr else "?")] += 1
		return
	for s, _ in fr:
		for m, c in MARK:
			if s.startswith(m):
				n[comm, "kernel: " + c] += 1
				return
	n[comm, "kernel: other, " + fr[0][0]] += 1
comm, fr = None, []
for l in sys.stdin:
	if not l.strip():
		done(comm, fr); comm, fr = None, []
	elif not l[0].isspace():
		done(comm, fr); comm, fr = l.split()[0], []
	elif (m := re.match(r"\s+[0-9a-f]+ (.*) \((.*)\)$", l.rstrip())):
		fr.append((re.sub(r"\+0x[0-9a-f]+$", "", m.group(1)), m.group(2)))
done(comm, fr)
for c in ("bench-b", "pmcpfs", "pdemo"):
	print("%-8s %6.2f µs/op, user %.2f" % (c, n[c, "all"] * per / ops, n[c, "user"] * per / ops))
	for (cc, k), v in n.most_common():
		if cc == c and k not in ("all", "user") and v * per / ops >= 0.3:
			print("   %6.2f  %s" % (v * per / ops, k))
' $((N + N / 10 > N + 50 ? N + 50 : N + N / 10)) $C
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
