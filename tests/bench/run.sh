#!/bin/sh
# tests/bench/run.sh - mcpfs benchmarks, measured side by side in one run,
# printed as one markdown table of ratios. A benchmark, not a test: it
# asserts no time; the "met?" column only compares against the targets.
#
#   sh tests/bench/run.sh
#
# Needs build/ (mcpfs, mcpfs-exec, examples/demo-server, tests/fake/fakeserver), FUSE
# (fusermount3, /dev/fuse) and cc. Rows for the Node servers and the SDK
# need node and node_modules/@modelcontextprotocol/{sdk,server-everything}
# (package.json); without them those rows say "skipped".
#
# Environment: MCPFS_BUILD (default ./build), BENCH_N (sequential calls per
# loop, default 2000), BENCH_SECS (seconds per concurrency level, default 3),
# BENCH_SESSIONS (idle sessions for the memory rows, default 1000),
# BENCH_PIN=0 (do not pin the sequential rows to CPU 0, see below),
# BENCH_PLAYWRIGHT=0 (rows 11 without @playwright/mcp), BENCH_ONLY=scale,
# oneshot or agents (those rows alone). Takes a few minutes on a quiet
# machine, rows 11 (Chromium) about 2 of them; tests/bench/README.md says
# what each row measures.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${MCPFS_BUILD:-$ROOT/build}
N=${BENCH_N:-2000}
SECS=${BENCH_SECS:-3}
NMEM=${BENCH_SESSIONS:-1000}
MCPFS=$BUILD/mcpfs
DEMO=$BUILD/examples/demo-server
FAKE=$BUILD/tests/fake/fakeserver
EVERYTHING=$ROOT/node_modules/@modelcontextprotocol/server-everything/dist/index.js
SDK=$ROOT/node_modules/@modelcontextprotocol/sdk/package.json
REQ='{"name":"echo","arguments":{"text":"hi"}}'
NREQ='{"name":"echo","arguments":{"message":"hi"}}'

for f in "$MCPFS" "$BUILD/mcpfs-exec" "$DEMO" "$FAKE"; do
	[ -x "$f" ] || { echo "run.sh: $f missing: ninja -C $BUILD" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/mcpfs-bench.XXXXXX) || exit 1
MNT=$WORK/mnt
MNT2=$WORK/mnt-mem
MNT3=$WORK/mnt-self
AMNT=$WORK/mnt-agents
SHM=/dev/shm/mcpfs-bench.$$
PIDS=
SRVPIDS=   # servers that never exit on their own: TERM at cleanup
ROWS=$WORK/rows

# Unmount and stop everything this script started, on any exit.
cleanup() {
	trap - EXIT INT TERM HUP
	for m in "$MNT" "$MNT2" "$MNT3" "$AMNT"; do
		mountpoint -q "$m" 2>/dev/null && fusermount3 -u "$m" 2>/dev/null
	done
	for p in $SRVPIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1; i=$((i + 1))
		done
		kill -9 "$p" 2>/dev/null
	done
	for m in "$MNT" "$MNT2" "$MNT3" "$AMNT"; do
		mountpoint -q "$m" 2>/dev/null && fusermount3 -uz "$m" 2>/dev/null
	done
	rm -f "$SHM"
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

log() { printf '%s\n' "$*" >&2; }

# Copies of the binaries: a rebuild during the run changes nothing. The
# supervisor mcpfs-exec goes beside mcpfs, where mcpfs looks for it as in
# the build tree (sessions/transport/stdio.c); without it every server would
# start under mcpfs itself, which loads all of mcpfs's libraries (row 3b').
# bin-self holds a lone mcpfs for that row. The HTTP door's module
# (mcpfs-serve.so, for --serve) goes beside mcpfs too; a build from
# before it links the door into mcpfs.
mkdir "$WORK/bin" "$WORK/bin-self" || exit 1
cp "$MCPFS" "$BUILD/mcpfs-exec" "$BUILD/mcpfs-http.so" "$DEMO" "$FAKE" \
	"$WORK/bin/" || exit 1
if [ -f "$BUILD/mcpfs-serve.so" ]; then
	cp "$BUILD/mcpfs-serve.so" "$WORK/bin/" || exit 1
fi
cp "$MCPFS" "$WORK/bin-self/" || exit 1
MCPFS_SELF=$WORK/bin-self/mcpfs
MCPFS=$WORK/bin/mcpfs
DEMO=$WORK/bin/demo-server
FAKE=$WORK/bin/fakeserver

# fail MESSAGE: say why, show the mcpfs logs and the rows so far, exit 1.
fail() {
	log "run.sh: FAILED: $*"
	for m in "$MNT" "$MNT2" "$MNT3" "$AMNT"; do
		[ -d "$m" ] || continue
		if mountpoint -q "$m"; then log "$m: mounted"; else log "$m: NOT mounted"; fi
	done
	for p in $PIDS; do
		if kill -0 "$p" 2>/dev/null; then log "mcpfs pid $p: running"; else log "mcpfs pid $p: gone"; fi
	done
	for f in "$WORK"/mcpfs*.log; do
		[ -f "$f" ] && { log "--- last lines of $(basename "$f"):"; tail -n 15 "$f" >&2; }
	done
	if [ -s "$ROWS" ]; then
		echo "| measurement | value | baseline | ratio | target | met? |"
		echo "|---|---|---|---|---|---|"
		cat "$ROWS"
	fi
	echo "run.sh: FAILED: $*"
	exit 1
}

# The driver: meson's build/tests/bench/bench when current, else cc.
B=$BUILD/tests/bench/bench
if [ ! -x "$B" ] || [ "$HERE/bench.c" -nt "$B" ]; then
	B=$WORK/bench
	${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -o "$B" \
		"$HERE/bench.c" -lpthread || fail "line ${LINENO:-?}"
fi

# row MEASUREMENT VALUE BASELINE RATIO TARGET MET
row() { printf '| %s | %s | %s | %s | %s | %s |\n' "$@" >>"$ROWS"; }
# calc EXPR VAR=VALUE...: awk arithmetic, e.g. calc "a/b" a=1 b=2
calc() {
	e=$1; shift
	# shellcheck disable=SC2046
	set -- $(for a in "$@"; do printf -- '-v %s ' "$a"; done)
	awk "$@" "BEGIN { printf \"%.6f\", $e }"
}
f1() { awk -v x="$1" 'BEGIN { printf "%.1f", x }'; }
f2() { awk -v x="$1" 'BEGIN { printf "%.2f", x }'; }
f0() { awk -v x="$1" 'BEGIN { printf "%.0f", x }'; }
yes_if() { if awk "BEGIN { exit !($1) }"; then echo yes; else echo no; fi; }
now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
first() { printf '%s\n' "$1" | awk '{ print $1 }'; }

HAVE_NODE=no
if command -v node >/dev/null 2>&1 && [ -f "$EVERYTHING" ]; then
	HAVE_NODE=yes
fi
HAVE_SDK=no
[ "$HAVE_NODE" = yes ] && [ -f "$SDK" ] && HAVE_SDK=yes

# An HTTP server (the project's fake) for the RSS row of the HTTP module.
HTTP_PORT=
if command -v python3 >/dev/null 2>&1; then
	python3 "$ROOT/tests/fake/mcp_http.py" >"$WORK/http.port" 2>"$WORK/http.err" &
	PIDS="$PIDS $!"
	SRVPIDS="$SRVPIDS $!"
	i=0
	while [ ! -s "$WORK/http.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	HTTP_PORT=$(head -n1 "$WORK/http.port")
fi

# server-everything over Streamable HTTP, for row 7c.
EV_PORT=
if [ "$HAVE_SDK" = yes ]; then
	EV_PORT=$((20000 + $$ % 20000))
	PORT=$EV_PORT setsid node "$EVERYTHING" streamableHttp \
		>"$WORK/ev-http.out" 2>"$WORK/ev-http.err" &
	EV_PID=$!
	PIDS="$PIDS $EV_PID"
	SRVPIDS="$SRVPIDS $EV_PID"
	i=0
	while ! grep -q 'listening on port' "$WORK/ev-http.err" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$EV_PID" 2>/dev/null; then
			log "run.sh: server-everything streamableHttp did not start"
			EV_PORT=; break
		fi
		sleep 0.1
	done
fi

# Config for both mounts.
CONF=$WORK/servers.json
{
	printf '{"mcpServers": {\n'
	printf '  "demo": {"command": "%s"},\n' "$DEMO"
	if [ "$HAVE_NODE" = yes ]; then
		printf '  "everything": {"command": "%s", "args": ["%s", "stdio"]},\n' \
			"$(command -v node)" "$EVERYTHING"
		printf '  "everything-warm": {"command": "%s", "args": ["%s", "stdio"], "warm": 1},\n' \
			"$(command -v node)" "$EVERYTHING"
	fi
	[ -n "$HTTP_PORT" ] &&
		printf '  "http": {"url": "http://127.0.0.1:%s/mcp"},\n' "$HTTP_PORT"
	[ -n "$EV_PORT" ] &&
		printf '  "everything-http": {"url": "http://127.0.0.1:%s/mcp"},\n' "$EV_PORT"
	printf '  "fake": {"command": "%s"}\n}}\n' "$FAKE"
} >"$CONF"

# mount_fs MOUNTPOINT LOG [CONFIG]: mcpfs in the foreground, in the
# background, on CONFIG (default $CONF); sets MPID.
mount_fs() {
	mkdir -p "$1"
	"$MCPFS" -f -c "${3:-$CONF}" --max-sessions 2000 --idle-timeout 0 \
		${MAXMSG--o max_message=256M} ${MOUNT_EXTRA:-} "$1" \
		2>"$2" &
	MPID=$!
	PIDS="$PIDS $MPID"
	i=0
	while [ ! -e "$1/.status" ]; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$MPID" 2>/dev/null; then
			fail "mcpfs did not mount $1"
		fi
		sleep 0.05
	done
}

# wait_ready DIR COUNT: until COUNT sessions under DIR say "ready".
wait_ready() {
	i=0
	while :; do
		n=$(cat "$1"/*/status 2>/dev/null | grep -c '"state":[[:space:]]*"ready"')
		[ "$n" -ge "$2" ] && return 0
		i=$((i + 1))
		[ $i -gt 600 ] && { log "run.sh: only $n of $2 sessions ready"; return 1; }
		sleep 0.1
	done
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
log "machine: $(nproc) CPUs, kernel $(uname -r), load $LOAD0"

# Sequential rows run with the script, mcpfs and every server on one CPU
# (BENCH_PIN=0 to not): on a VM without guest halt-polling a wake-up across
# vCPUs costs tens of µs and lands on a random subset of calls, which swamps
# what is measured. Floor and mcpfs rows are pinned alike; the "unpinned"
# rows show the difference. Concurrency, large replies and pipelining run
# unpinned.
NCPU=$(nproc)
ALL=0-$((NCPU - 1))
PIN=${BENCH_PIN:-1}
[ "$NCPU" -gt 1 ] && command -v taskset >/dev/null 2>&1 || PIN=0
[ "$PIN" = 1 ] && taskset -apc 0 $$ >/dev/null
PINNOTE=$([ "$PIN" = 1 ] && echo ", pinned to CPU 0" || echo "")
unpinned() { if [ "$PIN" = 1 ]; then taskset -c "$ALL" "$@"; else "$@"; fi; }

# ---- 8. scale: what a server's size can cost (spec 6) ----
# scale_rows: 100,000 tools (fakeserver --tools 100000): `ls` of its tools/
# against `ls` of a 100,000-file tmpfs directory, and another server's
# `cat status` while that listing is first made, against idle; then, on a
# fresh mount, the peak RSS (VmHWM) after a 10.5 MB reply of empty text
# blocks and the first look at result/, against the reply's size.
# BENCH_ONLY=scale runs only these rows.
scale_rows() {
	log "8. scale"
	SC=$WORK/scale.json
	printf '{"mcpServers": {"many": {"command": "%s", "args": ["--tools", "100000"]}, "demo": {"command": "%s"}, "hostile": {"command": "python3", "args": ["%s"]}}}\n' \
		"$FAKE" "$DEMO" "$ROOT/tests/fake/hostile.py" >"$SC"
	SMNT=$WORK/mnt-scale
	mkdir -p "$SMNT" "$SHM.d"
	mount_fs "$SMNT" "$WORK/mcpfs-scale.log" "$SC"
	SPID=$MPID
	i=0
	while [ $i -lt 100000 ]; do : >"$SHM.d/t$i"; i=$((i + 1)); done
	t0=$(now_ns); ls "$SHM.d" >/dev/null; t1=$(now_ns)
	TLS=$((t1 - t0))
	rm -rf "$SHM.d"
	mkdir "$SMNT/demo/d1" "$SMNT/many/m1" || fail "line ${LINENO:-?}"
	cat "$SMNT/demo/d1/status" >/dev/null
	# idle status latency: the slowest of 20
	: >"$WORK/st.idle"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		a=$(now_ns); cat "$SMNT/demo/d1/status" >/dev/null; b=$(now_ns)
		echo $((b - a)) >>"$WORK/st.idle"
	done
	# the first ls (the listing fetched and indexed) with status read
	# meanwhile, then a second ls
	: >"$WORK/st.busy"
	( while [ ! -e "$WORK/ls.done" ]; do
		a=$(now_ns); cat "$SMNT/demo/d1/status" >/dev/null; b=$(now_ns)
		echo $((b - a)) >>"$WORK/st.busy"
	done ) &
	SP=$!
	t0=$(now_ns); n1=$(ls "$SMNT/many/m1/tools" | wc -l); t1=$(now_ns)
	: >"$WORK/ls.done"
	wait $SP
	t2=$(now_ns); ls "$SMNT/many/m1/tools" >/dev/null; t3=$(now_ns)
	t4=$(now_ns)
	if timeout 60 ls -l "$SMNT/many/m1/tools" >/dev/null; then
		t5=$(now_ns); L3=$(f2 "$(calc "x/1e9" x="$((t5 - t4))")")
	else
		L3="over 60"
	fi
	# the first ls again on a new thread of the same server, with nothing
	# else running (9a runs beside 9b's loop of cat processes)
	mkdir "$SMNT/many/m2" || fail "line ${LINENO:-?}"
	cat "$SMNT/many/m2/status" >/dev/null
	t6=$(now_ns); ls "$SMNT/many/m2/tools" >/dev/null; t7=$(now_ns)
	L1=$((t1 - t0)); L2=$((t3 - t2)); LA=$((t7 - t6))
	row "9a. ls of $n1 tools (fakeserver --tools 100000), first (listing fetched)" \
		"$(f2 "$(calc "x/1e9" x="$L1")") s" "ls of a 100,000-file tmpfs dir $(f1 "$(calc "x/1e6" x="$TLS")") ms" \
		"$(f0 "$(calc "a/b" a="$L1" b="$TLS")")x" "< 2 s" "$(yes_if "$L1 < 2000000000")"
	row "9a*. the same first ls on a new thread, nothing else running" \
		"$(f2 "$(calc "x/1e9" x="$LA")") s" "tmpfs $(f1 "$(calc "x/1e6" x="$TLS")") ms" \
		"$(f0 "$(calc "a/b" a="$LA" b="$TLS")")x" "< 2 s" "$(yes_if "$LA < 2000000000")"
	row "9a'. the same ls again (listing cached); ls -l" \
		"$(f2 "$(calc "x/1e9" x="$L2")") s; ls -l $L3 s" \
		"tmpfs $(f1 "$(calc "x/1e6" x="$TLS")") ms" \
		"$(f0 "$(calc "a/b" a="$L2" b="$TLS")")x" "< 2 s" "$(yes_if "$L2 < 2000000000")"
	SI=$(awk '$1 > m { m = $1 } END { print m }' "$WORK/st.idle")
	SB=$(awk '$1 > m { m = $1 } END { print m }' "$WORK/st.busy")
	NB=$(wc -l <"$WORK/st.busy")
	row "9b. another server's cat status during 9a's first ls: slowest of $NB" \
		"$(f1 "$(calc "x/1e6" x="$SB")") ms" "idle: slowest of 20 $(f1 "$(calc "x/1e6" x="$SI")") ms" \
		"$(f1 "$(calc "a/b" a="$SB" b="$SI")")x" "< 100 ms" "$(yes_if "$SB < 100000000")"
	fusermount3 -u "$SMNT"
	while kill -0 "$SPID" 2>/dev/null; do sleep 0.05; done
	mount_fs "$SMNT" "$WORK/mcpfs-scale2.log" "$SC"
	SPID=$MPID
	mkdir "$SMNT/hostile/h1" || fail "line ${LINENO:-?}"
	NBLK=404000   # 26 bytes + a comma each: 10.5 MB
	echo "{\"name\":\"blocks\",\"arguments\":{\"n\":$NBLK}}" >"$SMNT/hostile/h1/call"
	RB=$(cat "$SMNT/hostile/h1/call" | wc -c)
	H0=$(awk '/^VmHWM:/ { print $2 }' "/proc/$SPID/status")
	NR=$(ls "$SMNT/hostile/h1/result" | wc -l)
	H1=$(awk '/^VmHWM:/ { print $2 }' "/proc/$SPID/status")
	row "9c. peak RSS (VmHWM) after a reply of $NBLK empty text blocks ($(f1 "$(calc "x/1e6" x="$RB")") MB) and ls of its result/ ($NR files)" \
		"$(f1 "$(calc "x/1024" x="$H1")") MiB" "before the ls $(f1 "$(calc "x/1024" x="$H0")") MiB; reply $(f1 "$(calc "x/1048576" x="$RB")") MiB" \
		"+$(f2 "$(calc "(a-b)*1024/r" a="$H1" b="$H0" r="$RB")")x the reply" "≤ 2x" \
		"$(yes_if "($H1 - $H0) * 1024 <= 2 * $RB")"
	fusermount3 -u "$SMNT"
	while kill -0 "$SPID" 2>/dev/null; do sleep 0.05; done
}
if [ "${BENCH_ONLY:-}" = scale ]; then
	scale_rows
	echo "| measurement | value | baseline | ratio | target | met? |"
	echo "|---|---|---|---|---|---|"
	cat "$ROWS"
	exit 0
fi

# ---- 11. agents at scale (issue 50): memory and the listing's size ----
# tree_pids PID...: the PIDs and all their descendants, one a line.
tree_pids() {
	ps -e -o pid=,ppid= | awk -v roots="$*" '
		{ kids[$2] = kids[$2] " " $1 }
		END {
			n = split(roots, q, " ")
			for (i = 1; i <= n; i++) {
				p = q[i]; print p
				m = split(kids[p], k, " ")
				for (j = 1; j <= m; j++) q[++n] = k[j]
			}
		}'
}
# mem_of PID...: "PSS_KIB RSS_KIB PROCESSES" of the PIDs and their
# descendants (PSS from /proc/PID/smaps_rollup, RSS VmRSS of status)
mem_of() {
	tree_pids "$@" | while read -r p; do
		awk '/^Pss:/ { print "pss", $2 }' "/proc/$p/smaps_rollup" 2>/dev/null
		awk '/^VmRSS:/ { print "rss", $2 }' "/proc/$p/status" 2>/dev/null
	done | awk '$1 == "pss" { p += $2; n++ } $1 == "rss" { r += $2 }
		END { print p + 0, r + 0, n + 0 }'
}
# hold_clients NAME SPEC [ROOT...]: five `sdk.mjs hold SPEC` clients at
# once; once all five are ready, mem_of them and the ROOTs into
# $WORK/mem.NAME; then SIGTERM to the clients, and SIGKILL to whatever
# of their trees is left after 10 s.
hold_clients() {
	hn=$1 hs=$2; shift 2
	hp=
	for hi in 1 2 3 4 5; do
		node "$HERE/sdk.mjs" hold "$hs" >"$WORK/hold.$hn.$hi" \
			2>"$WORK/hold.$hn.$hi.err" &
		hp="$hp $!"
	done
	PIDS="$PIDS $hp"
	SRVPIDS="$SRVPIDS $hp" # on a failure: TERM, so that they close their servers
	hi=0
	while [ "$(cat "$WORK"/hold."$hn".[1-5] | grep -c ready)" -lt 5 ]; do
		hi=$((hi + 1))
		for p in $hp; do
			kill -0 "$p" 2>/dev/null && continue
			cat "$WORK"/hold."$hn".*.err >&2
			fail "11: an sdk.mjs hold client ($hn) exited"
		done
		[ $hi -gt 3000 ] && fail "11: $hn: not all ready in 300 s"
		sleep 0.1
	done
	sleep 2 # what the calls started settles
	# shellcheck disable=SC2086
	mem_of $hp "$@" >"$WORK/mem.$hn"
	# shellcheck disable=SC2086
	htree=$(tree_pids $hp)
	# shellcheck disable=SC2086
	kill -TERM $hp 2>/dev/null
	hi=0
	for p in $hp; do
		while kill -0 "$p" 2>/dev/null && [ $hi -lt 100 ]; do
			sleep 0.1; hi=$((hi + 1))
		done
	done
	# shellcheck disable=SC2086
	kill -9 $htree 2>/dev/null
	return 0
}
# list_bytes CMD...: "BYTES TOOLS PER-SERVER" of CMD's tools/list, or
# nothing if it fails (the reason in $WORK/list.err)
list_bytes() {
	timeout 120 node "$HERE/sdk.mjs" list "$@" 2>"$WORK/list.err"
}
tok() { f0 "$(calc "b/4" b="$1")"; }

agents_rows() {
	log "11. agents"
	MEMSRV=$ROOT/node_modules/@modelcontextprotocol/server-memory/dist/index.js
	PW=$ROOT/node_modules/@playwright/mcp/cli.js
	if [ "$HAVE_SDK" != yes ] || [ ! -f "$MEMSRV" ]; then
		row "11. agents: memory and listing" "skipped: node, the SDK, server-everything or server-memory missing" "—" "—" "—" "—"
		return 0
	fi
	NODE=$(command -v node)
	USE_PW=no
	[ "${BENCH_PLAYWRIGHT:-1}" = 1 ] && [ -f "$PW" ] && [ -x /usr/bin/chromium ] && USE_PW=yes
	mkdir -p "$WORK/pw"
	MEMENV="{\"MEMORY_FILE_PATH\": \"$WORK/memory.jsonl\"}"
	PWARGS="\"$PW\", \"--headless\", \"--browser\", \"chromium\", \"--executable-path\", \"/usr/bin/chromium\", \"--no-sandbox\", \"--isolated\", \"--output-dir\", \"$WORK/pw\""
	# the mount's config, with and without playwright
	for cf in 3 4; do
		{
			printf '{"mcpServers": {\n'
			printf '  "demo": {"command": "%s"},\n' "$DEMO"
			printf '  "everything": {"command": "%s", "args": ["%s", "stdio"]},\n' "$NODE" "$EVERYTHING"
			if [ $cf = 4 ] && [ $USE_PW = yes ]; then
				printf '  "playwright": {"command": "%s", "args": [%s], "timeout": 120},\n' "$NODE" "$PWARGS"
			fi
			printf '  "memory": {"command": "%s", "args": ["%s"], "env": %s}\n}}\n' "$NODE" "$MEMSRV" "$MEMENV"
		} >"$WORK/agents$cf.json"
	done
	# ---- the listings ----
	for cf in 4 3; do
		[ $cf = 4 ] && [ $USE_PW = no ] && continue
		MOUNT_EXTRA="" mount_fs "$AMNT" "$WORK/mcpfs-agents$cf.log" "$WORK/agents$cf.json"
		ALPID=$MPID
		full=$(list_bytes "$MCPFS" serve "$AMNT") ||
			{ cat "$WORK/list.err" >&2; fail "11c: serve's tools/list"; }
		fb=$(first "$full")
		own=0
		for s in demo everything memory playwright; do
			case $s in
			demo) o=$(list_bytes "$DEMO") ;;
			everything) o=$(list_bytes "$NODE" "$EVERYTHING" stdio) ;;
			memory) o=$(MEMORY_FILE_PATH=$WORK/memory.jsonl list_bytes "$NODE" "$MEMSRV") ;;
			playwright) [ $cf = 4 ] || continue
				o=$(list_bytes "$NODE" "$PW" --headless --browser chromium \
					--executable-path /usr/bin/chromium --no-sandbox --isolated \
					--output-dir "$WORK/pw") ;;
			esac
			[ -n "$o" ] || fail "11c: $s's own tools/list"
			own=$((own + $(first "$o")))
		done
		if [ $cf = 4 ]; then what="demo, server-everything, server-memory, @playwright/mcp"
		else what="demo, server-everything, server-memory"; fi
		row "11c. serve's full tools/list, a mount of $what" \
			"$fb bytes ≈ $(tok "$fb") tokens ($(echo "$full" | cut -d' ' -f2) tools: $(echo "$full" | cut -d' ' -f3-))" \
			"the servers' own tools/list $own bytes" \
			"$(f2 "$(calc "a/b" a="$fb" b="$own")")x" "(info)" "—"
		if srch=$(list_bytes "$MCPFS" serve --tools search "$AMNT") && [ -n "$srch" ]; then
			sb=$(first "$srch")
			R=$(calc "a/b" a="$sb" b="$fb")
			if [ $cf = 3 ]; then tg="≤ 0.15x"; met=$(yes_if "$R <= 0.15"); else tg="(info)"; met="—"; fi
			row "11d. serve --tools search: its tools/list, the same mount ($what)" \
				"$sb bytes ≈ $(tok "$sb") tokens ($(echo "$srch" | cut -d' ' -f2) tools: $(echo "$srch" | cut -d' ' -f3-))" \
				"full listing (11c) $fb bytes ≈ $(tok "$fb") tokens" \
				"$(f2 "$R")x" "$tg" "$met"
		else
			log "11d: mcpfs serve --tools search: $(head -c 300 "$WORK/list.err")"
			row "11d. serve --tools search: its tools/list, the same mount ($what)" \
				"search: n/a (not built)" "full listing (11c) $fb bytes ≈ $(tok "$fb") tokens" \
				"—" "$([ $cf = 3 ] && echo "≤ 0.15x" || echo "(info)")" "—"
		fi
		fusermount3 -u "$AMNT"
		while kill -0 "$ALPID" 2>/dev/null; do sleep 0.05; done
	done
	# ---- memory: five agents ----
	SC='[{"name": "demo__echo", "arguments": {"text": "hi"}}, {"name": "everything__echo", "arguments": {"message": "hi"}}, {"name": "memory__read_graph", "arguments": {}}'
	[ $USE_PW = yes ] &&
		SC="$SC, {\"name\": \"playwright__browser_tabs\", \"arguments\": {\"action\": \"list\"}}"
	SC="$SC]"
	DSPEC="[{\"command\": \"$DEMO\", \"calls\": [{\"name\": \"echo\", \"arguments\": {\"text\": \"hi\"}}]},
 {\"command\": \"$NODE\", \"args\": [\"$EVERYTHING\", \"stdio\"], \"calls\": [{\"name\": \"echo\", \"arguments\": {\"message\": \"hi\"}}]},
 {\"command\": \"$NODE\", \"args\": [\"$MEMSRV\"], \"env\": $MEMENV, \"calls\": [{\"name\": \"read_graph\", \"arguments\": {}}]}"
	[ $USE_PW = yes ] &&
		DSPEC="$DSPEC, {\"command\": \"$NODE\", \"args\": [$PWARGS], \"calls\": [{\"name\": \"browser_tabs\", \"arguments\": {\"action\": \"list\"}}]}"
	DSPEC="$DSPEC]"
	cf=3; [ $USE_PW = yes ] && cf=4
	MOUNT_EXTRA="" mount_fs "$AMNT" "$WORK/mcpfs-agents.log" "$WORK/agents$cf.json"
	ALPID=$MPID
	hold_clients each "[{\"command\": \"$MCPFS\", \"args\": [\"serve\", \"$AMNT\"], \"calls\": $SC}]" "$ALPID"
	hold_clients shared "[{\"command\": \"$MCPFS\", \"args\": [\"serve\", \"--thread\", \"shared\", \"$AMNT\"], \"calls\": $SC}]" "$ALPID"
	fusermount3 -u "$AMNT"
	while kill -0 "$ALPID" 2>/dev/null; do sleep 0.05; done
	hold_clients sdk "$DSPEC"
	read -r sp sr sn <"$WORK/mem.sdk"
	srv="demo, server-everything, server-memory"
	[ $USE_PW = yes ] && srv="$srv, @playwright/mcp (browser_tabs list, which starts Chromium)"
	for hn in each shared; do
		read -r p r n <"$WORK/mem.$hn"
		case $hn in
		each) how="a thread each (serve-N)" ;;
		*) how="one shared thread (--thread shared)" ;;
		esac
		row "11$([ $hn = each ] && echo a || echo b). memory: 5 SDK clients through mcpfs serve, $how, one call on each of $srv: PSS of every process (mcpfs, relays, servers and children, the clients)" \
			"$(f1 "$(calc "x/1024" x="$p")") MiB PSS ($(f1 "$(calc "x/1024" x="$r")") MiB RSS; $n processes)" \
			"5 SDK clients each starting the servers: $(f1 "$(calc "x/1024" x="$sp")") MiB PSS ($(f1 "$(calc "x/1024" x="$sr")") MiB RSS; $sn processes)" \
			"$(f2 "$(calc "a/b" a="$p" b="$sp")")x (RSS $(f2 "$(calc "a/b" a="$r" b="$sr")")x)" "(info)" "—"
	done
}
if [ "${BENCH_ONLY:-}" = agents ]; then
	agents_rows
	echo "load average before: $LOAD0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "| measurement | value | baseline | ratio | target | met? |"
	echo "|---|---|---|---|---|---|"
	cat "$ROWS"
	exit 0
fi

# ---- 3. one-shot (3a, 3b, 3b') ----
# oneshot_rows: needs the mount $MNT and 2a's $T2A; sets T3.
# BENCH_ONLY=oneshot runs only 1, 2a and these rows.
oneshot_rows() {
	log "3. one-shot"
	N1=200
	T3=$(first "$("$B" oneshot "$N1" "$REQ" -- "$DEMO")") || fail "line ${LINENO:-?}"
	R=$(calc "a/b" a="$T3" b="$T2A")
	row "3a. one-shot: spawn demo-server, initialize, call (no mcpfs)" \
		"$(f1 "$T3") µs/call" "2a $(f1 "$T2A") µs" "2a is $(f0 "$R")x faster" \
		"—" "—"
	T3S=$(first "$("$B" reuse "$N1" "$REQ" "$MNT/demo/call")") || fail "line ${LINENO:-?}"
	R=$(calc "a/b" a="$T3S" b="$T3")
	row "3b. server-level MOUNT/demo/call (fresh process per call, under mcpfs-exec)" \
		"$(f1 "$T3S") µs/call" "3a $(f1 "$T3") µs" "$(f2 "$R")x" "≤ 4x" \
		"$(yes_if "$R <= 4")"
	# 3b': the same on a mount whose mcpfs has no mcpfs-exec beside it: each
	# server starts under mcpfs itself (the fallback), loading its libraries.
	MCPFS_MAIN=$MCPFS
	MCPFS=$MCPFS_SELF
	mount_fs "$MNT3" "$WORK/mcpfs-self.log"
	MCPFS=$MCPFS_MAIN
	T3F=$(first "$("$B" reuse "$N1" "$REQ" "$MNT3/demo/call")") || fail "line ${LINENO:-?}"
	fusermount3 -u "$MNT3"
	R=$(calc "a/b" a="$T3F" b="$T3")
	row "3b'. the same, mcpfs itself as the supervisor (no mcpfs-exec beside it)" \
		"$(f1 "$T3F") µs/call" "3a $(f1 "$T3") µs" "$(f2 "$R")x" "(info)" "—"
}

# ---- 1. floor: a minimal client on pipes, no mcpfs ----
log "1. floor"
FLOOR=$(first "$("$B" floor "$N" "$REQ" -- "$DEMO")") || fail "line ${LINENO:-?}"
row "1. floor: C client ↔ demo-server over pipes, sequential echo$PINNOTE" \
	"$(f1 "$FLOOR") µs/call" "—" "1x" "—" "—"

# --serve for row 10 and max_message for row 5; neither with
# BENCH_ONLY=oneshot, which also runs against builds from before them
SERVE="--serve 127.0.0.1:0"
[ "${BENCH_ONLY:-}" = oneshot ] && { SERVE=; MAXMSG=; }
MOUNT_EXTRA=$SERVE mount_fs "$MNT" "$WORK/mcpfs.log"
MAIN_PID=$MPID
mkdir "$MNT/demo/t1" || fail "line ${LINENO:-?}"

# ---- 2. a thread's call ----
log "2. thread call"
T2A=$(first "$("$B" reuse "$N" "$REQ" "$MNT/demo/t1/call")") || fail "line ${LINENO:-?}"
R=$(calc "a/b" a="$T2A" b="$FLOOR")
row "2a. thread call, one open fd reused (write, read to EOF; 64 KiB reads)" \
	"$(f1 "$T2A") µs/call" "floor $(f1 "$FLOOR") µs" "$(f1 "$R")x" "≤ 2x" \
	"$(yes_if "$R <= 2")"
if [ "${BENCH_ONLY:-}" = oneshot ]; then
	oneshot_rows
	echo "| measurement | value | baseline | ratio | target | met? |"
	echo "|---|---|---|---|---|---|"
	cat "$ROWS"
	exit 0
fi
T=$(first "$(BENCH_NOEOF=1 "$B" reuse "$N" "$REQ" "$MNT/demo/t1/call")") || fail "line ${LINENO:-?}"
R=$(calc "a/b" a="$T" b="$FLOOR")
row "2a\". same, stopping at the reply's newline (no read of 0)" \
	"$(f1 "$T") µs/call" "floor $(f1 "$FLOOR") µs" "$(f1 "$R")x" "(info)" "—"
T=$(first "$("$B" pread "$N" "$MNT/demo/t1/status")") || fail "line ${LINENO:-?}"
R=$(calc "a/b" a="$T" b="$FLOOR")
row "2r. one bare FUSE round trip: pread of 64 bytes of t1/status (from memory); 2a makes 3, 2a\" 2" \
	"$(f1 "$T") µs" "floor $(f1 "$FLOOR") µs" "$(f1 "$R")x" "(info)" "—"
T=$(first "$(BENCH_RBUF=1048576 "$B" reuse "$N" "$REQ" "$MNT/demo/t1/call")") || fail "line ${LINENO:-?}"
R=$(calc "a/b" a="$T" b="$FLOOR")
row "2a'. same as 2a with a 1 MiB read buffer" \
	"$(f1 "$T") µs/call" "floor $(f1 "$FLOOR") µs" "$(f1 "$R")x" "(info)" "—"
T2B=$(first "$("$B" reopen "$N" "$REQ" "$MNT/demo/t1/call")") || fail "line ${LINENO:-?}"
R=$(calc "a/b" a="$T2B" b="$FLOOR")
row "2b. thread call, open/write/read/close per call" \
	"$(f1 "$T2B") µs/call" "floor $(f1 "$FLOOR") µs" "$(f1 "$R")x" "≤ 3x" \
	"$(yes_if "$R <= 3")"
# shloop FILE LOOPS: µs per iteration of echo > FILE; cat FILE
shloop() {
	t0=$(now_ns)
	i=0
	while [ $i -lt "$2" ]; do
		echo "$REQ" >"$1"
		cat "$1" >/dev/null
		i=$((i + 1))
	done
	t1=$(now_ns)
	echo $(((t1 - t0) / 1000 / $2))
}
LOOPS=200
T2C=$(shloop "$MNT/demo/t1/call" $LOOPS)
TSH=$(shloop "$SHM" $LOOPS)
rm -f "$SHM"
R=$(calc "a/b" a="$T2C" b="$TSH")
row "2c. sh loop: echo '{...}' > call; cat call ($LOOPS iterations)" \
	"$(f2 "$(calc "x/1000" x="$T2C")") ms/call" \
	"same loop on a tmpfs file $(f2 "$(calc "x/1000" x="$TSH")") ms" \
	"$(f2 "$R")x" "< 5 ms/call" "$(yes_if "$T2C < 5000")"

oneshot_rows
TNODE=
if [ "$HAVE_NODE" = yes ]; then
	mkdir "$MNT/everything/s1" || fail "line ${LINENO:-?}"
	TNODE=$(first "$("$B" reuse 1000 "$NREQ" "$MNT/everything/s1/call")") || fail "line ${LINENO:-?}"
	# node starts faster on all CPUs: one-shot runs unpinned
	T3N=$(first "$(unpinned "$B" oneshot 10 "$NREQ" -- node "$EVERYTHING" stdio 2>/dev/null)") || fail "line ${LINENO:-?}"
	R=$(calc "a/b" a="$T3N" b="$TNODE")
	row "3c. one-shot: spawn node server-everything, initialize, echo (unpinned)" \
		"$(f1 "$(calc "x/1000" x="$T3N")") ms/call" \
		"mcpfs session, same server $(f1 "$TNODE") µs" "mcpfs $(f0 "$R")x faster" \
		"mcpfs ≥ 100x faster" "$(yes_if "$R >= 100")"
else
	row "3c. one-shot Node server-everything" "skipped: node or node_modules/@modelcontextprotocol/server-everything missing" "—" "—" "≥ 100x" "—"
fi

# ---- 3d. mkdir and the first call: cold against a warm spare ----
# first_call DIR: ms from mkdir DIR to the first echo reply on it
first_call() {
	us=$("$B" first "$NREQ" "$1") || return 1
	calc "x/1000" x="$us"
}
# spare_ready SERVER: until .status shows its one spare ready again
spare_ready() {
	i=0
	while ! tr -d ' \t\n' <"$MNT/.status" |
		grep -q "\"name\":\"$1\"[^}]*\"spares\":1"; do
		i=$((i + 1)); [ $i -gt 300 ] && return 1; sleep 0.1
	done
	sleep 2 # the spare's handshake (node starts in about 1 s here)
}
log "3d. warm"
if [ "$HAVE_NODE" = yes ]; then
	: >"$WORK/cold"; : >"$WORK/warm"
	for rep in 1 2 3; do
		first_call "$MNT/everything/c$rep" >>"$WORK/cold" || fail "line ${LINENO:-?}"
		spare_ready everything-warm || fail "line ${LINENO:-?}"
		first_call "$MNT/everything-warm/w$rep" >>"$WORK/warm" || fail "line ${LINENO:-?}"
		rmdir "$MNT/everything/c$rep" "$MNT/everything-warm/w$rep"
	done
	TC=$(median <"$WORK/cold")
	TW=$(median <"$WORK/warm")
	R=$(calc "a/b" a="$TW" b="$TC")
	row "3d. mkdir + first echo on node server-everything, \"warm\": 1 against cold (medians of 3)" \
		"warm $(f1 "$TW") ms" "cold $(f1 "$TC") ms" "$(f2 "$R")x" "≤ 0.1x" \
		"$(yes_if "$R <= 0.1")"
else
	row "3d. warm against cold" "skipped: node or server-everything missing" "—" "—" "≤ 0.1x" "—"
fi

# ---- 7a. against the official SDK, sequential ----
log "7a. SDK sequential"
if [ "$HAVE_SDK" = yes ]; then
	out=$(node "$HERE/sdk.mjs" seq 1000 "$NREQ" node "$EVERYTHING" stdio) || fail "line ${LINENO:-?}"
	TSDK=$(first "$out")
	R=$(calc "a/b" a="$TNODE" b="$TSDK")
	row "7a. SDK Client+StdioClientTransport → server-everything echo, sequential" \
		"$(f1 "$TSDK") µs/call" "mcpfs 2a same server $(f1 "$TNODE") µs" \
		"mcpfs/SDK $(f2 "$R")x" "mcpfs ≤ 1x" "$(yes_if "$R <= 1")"
else
	row "7a. SDK sequential" "skipped: node_modules/@modelcontextprotocol/sdk or server-everything missing" "—" "—" "no slower than SDK" "—"
fi

# ---- the rest runs on all CPUs ----
if [ "$PIN" = 1 ]; then
	taskset -apc "$ALL" $$ >/dev/null
	taskset -apc "$ALL" "$MAIN_PID" >/dev/null
	# the same sequential loops, unpinned, for comparison
	F=$(first "$("$B" floor "$N" "$REQ" -- "$DEMO")") || fail "line ${LINENO:-?}"
	mkdir "$MNT/demo/t2" || fail "line ${LINENO:-?}"
	T=$(first "$("$B" reuse "$N" "$REQ" "$MNT/demo/t2/call")") || fail "line ${LINENO:-?}"
	R=$(calc "a/b" a="$T" b="$F")
	row "2a unpinned (info): the same loops on all CPUs" "$(f1 "$T") µs/call" \
		"unpinned floor $(f1 "$F") µs" "$(f1 "$R")x" "(info)" "—"
fi

# ---- 4. concurrency ----
log "4. concurrency"
i=1
while [ $i -le 64 ]; do mkdir "$MNT/demo/c$i" || fail "line ${LINENO:-?}"; i=$((i + 1)); done
wait_ready "$MNT/demo" 65
RATE1=
: >"$WORK/c.pfloor"; : >"$WORK/c.prt"
for k in 1 4 16 64; do
	files=; sfiles=
	i=1
	while [ $i -le $k ]; do
		files="$files $MNT/demo/c$i/call"; sfiles="$sfiles $MNT/demo/c$i/status"
		i=$((i + 1))
	done
	# three runs of a third of the time each: the median rate (a stall of
	# the machine in one run does not make the row), and the slowest call
	: >"$WORK/c.rate"; : >"$WORK/c.max"
	for rep in 1 2 3; do
		# shellcheck disable=SC2086
		out=$("$B" conc "$(calc "s/3" s="$SECS")" "$REQ" $files) || fail "line ${LINENO:-?}"
		echo "$out" | awk '{ print $1 }' >>"$WORK/c.rate"
		echo "$out" | awk '{ print $4, $5, $6 }' >>"$WORK/c.max"
		if [ "$k" = 16 ]; then
			# 4f: the floor's own parallel rate, alternating with
			# mcpfs's runs: 16 C clients, 16 demo-servers, pipes
			out=$("$B" pfloor "$(calc "s/3" s="$SECS")" 16 "$REQ" -- "$DEMO") || fail "line ${LINENO:-?}"
			echo "$out" | awk '{ print $1 }' >>"$WORK/c.pfloor"
			# 4g: 16 threads of bare FUSE round trips, each a
			# pread of its own session's status
			# shellcheck disable=SC2086
			out=$("$B" ppread "$(calc "s/3" s="$SECS")" $sfiles) || fail "line ${LINENO:-?}"
			echo "$out" | awk '{ print $1 }' >>"$WORK/c.prt"
		fi
	done
	rate=$(median <"$WORK/c.rate")
	maxus=$(awk '$1 > m { m = $1 } END { print m }' "$WORK/c.max")
	spread=$(awk 'NR == 1 || $2 < lo { lo = $2 } $3 > hi { hi = $3 } END { print lo "–" hi }' "$WORK/c.max")
	[ -z "$RATE1" ] && RATE1=$rate
	[ "$k" = 16 ] && RATE16=$rate
	R=$(calc "a/b" a="$rate" b="$RATE1")
	case $k in
	1) tgt="—"; met="—" ;;
	4) tgt="> 1 session"; met=$(yes_if "$rate > $RATE1") ;;
	16) tgt="≥ 20000/s"; met=$(yes_if "$rate >= 20000") ;;
	64) tgt="—"; met="—" ;;
	esac
	row "4. $k session(s), one thread each, 3 × $(f1 "$(calc "s/3" s="$SECS")") s: median rate (slowest call; calls per thread per run)" \
		"$(f0 "$rate") calls/s ($(f1 "$(calc "m/1000" m="$maxus")") ms; $spread)" \
		"1 session $(f0 "$RATE1")/s" "$(f2 "$R")x" "$tgt" "$met"
done

PF=$(median <"$WORK/c.pfloor")
R=$(calc "a/b" a="$RATE16" b="$PF")
row "4f. 16 sessions (row 4) against the floor's parallel rate: 16 C clients, each its own demo-server over pipes, no mcpfs (median of 3, alternating)" \
	"$(f0 "$RATE16") calls/s" "floor 16 × pipes $(f0 "$PF")/s" "$(f2 "$R")x" "≥ 0.6x" "$(yes_if "$R >= 0.6")"
# 4g: the bound FUSE and the pipes allow together. A call on an open fd is
# three FUSE round trips (write, read, the read of 0) and one server call;
# at 16 in parallel the machine does PR round trips/s or PF pipe calls/s,
# so one call costs 3/PR + 1/PF of it: the bound is 1 / (3/PR + 1/PF).
PR=$(median <"$WORK/c.prt")
BOUND=$(calc "1/(3/r + 1/p)" r="$PR" p="$PF")
R=$(calc "a/b" a="$RATE16" b="$BOUND")
row "4g. 16 sessions (row 4) against the bound of 16 threads of bare FUSE round trips (pread of status) and the parallel floor (4f) together: 1 / (3/rt + 1/floor), a call being three round trips and one server call (medians of 3, alternating)" \
	"$(f0 "$RATE16") calls/s" "bound $(f0 "$BOUND")/s (16 × pread $(f0 "$PR")/s, 4f $(f0 "$PF")/s)" \
	"$(f2 "$R")x" "≥ 0.8x" "$(yes_if "$R >= 0.8")"

# ---- 5. large replies ----
log "5. large replies"
mkdir "$MNT/fake/b1" || fail "line ${LINENO:-?}"
BC=$MNT/fake/b1/call
for mib in 1 16 63 100; do
	bytes=$((mib * 1048576))
	big="{\"name\":\"big\",\"arguments\":{\"bytes\":$bytes}}"
	: >"$WORK/t.call"; : >"$WORK/t.reread"; : >"$WORK/t.shm"
	for rep in 1 2 3; do
		t0=$(now_ns)
		echo "$big" >"$BC"
		cat "$BC" >/dev/null
		t1=$(now_ns)
		echo $((t1 - t0)) >>"$WORK/t.call"
	done
	got=$(cat "$BC" | wc -c)
	if [ "$got" -lt "$bytes" ]; then
		msg=$(cat "$BC" | cut -c1-120)
		row "5. big $mib MiB: echo > call; cat call" "error: $msg" "—" "—" \
			"≥ 0.5x tmpfs" "no"
		# the session ended (protocol error); the next call restarts it
		continue
	fi
	for rep in 1 2 3; do
		t0=$(now_ns); cat "$BC" >/dev/null; t1=$(now_ns)
		echo $((t1 - t0)) >>"$WORK/t.reread"
	done
	head -c "$got" /dev/zero >"$SHM"
	for rep in 1 2 3; do
		t0=$(now_ns); cat "$SHM" >/dev/null; t1=$(now_ns)
		echo $((t1 - t0)) >>"$WORK/t.shm"
	done
	rm -f "$SHM"
	tc=$(median <"$WORK/t.call"); tr=$(median <"$WORK/t.reread")
	ts=$(median <"$WORK/t.shm")
	mc=$(calc "g/t*1000" g="$got" t="$tc")   # bytes/ns*1000 = MB/s
	mr=$(calc "g/t*1000" g="$got" t="$tr")
	ms=$(calc "g/t*1000" g="$got" t="$ts")
	R=$(calc "a/b" a="$mc" b="$ms")
	row "5. big $mib MiB: echo > call; cat call (whole call)" "$(f0 "$mc") MB/s" \
		"tmpfs cat $(f0 "$ms") MB/s" "$(f2 "$R")x" "≥ 0.5x tmpfs" \
		"$(yes_if "$R >= 0.5")"
	R=$(calc "a/b" a="$mr" b="$ms")
	row "5'. big $mib MiB: cat call again (finished reply, transfer only)" \
		"$(f0 "$mr") MB/s" "tmpfs cat $(f0 "$ms") MB/s" "$(f2 "$R")x" "(info)" "—"
	td=$(first "$(BENCH_RBUF=1048576 "$B" reuse 5 "$big" "$BC")") || fail "line ${LINENO:-?}"
	md=$(calc "g/t" g="$got" t="$td")
	R=$(calc "a/b" a="$md" b="$ms")
	row "5‴. big $mib MiB: C driver, one open fd, write + 1 MiB reads (whole call)" \
		"$(f0 "$md") MB/s" "tmpfs cat $(f0 "$ms") MB/s" "$(f2 "$R")x" "(info)" "—"
	[ "$mib" = 63 ] && MD63=$md
	if [ "$mib" = 100 ] && [ -n "${MD63:-}" ]; then
		# past the default --max-message (64M): the mount runs with
		# -o max_message=256M, and a longer reply costs no more per byte
		R=$(calc "a/b" a="$md" b="$MD63")
		row "5m. big 100 MiB with -o max_message=256M: C driver (whole call)" \
			"$(f0 "$md") MB/s" "63 MiB, 5‴ $(f0 "$MD63") MB/s" \
			"$(f2 "$R")x" "≥ 0.9x" "$(yes_if "$R >= 0.9")"
	fi
	if [ "$mib" = 16 ] || [ "$mib" = 63 ]; then
		for order in result extra; do
			bo="{\"name\":\"big\",\"arguments\":{\"bytes\":$bytes,\"order\":\"$order\"}}"
			to=$(first "$(BENCH_RBUF=1048576 "$B" reuse 5 "$bo" "$BC")") || fail "line ${LINENO:-?}"
			mo=$(calc "g/t" g="$got" t="$to")
			eval "mo_$order=\$mo"
			R=$(calc "a/b" a="$mo" b="$md")
			case $order in
			result) what="result first, id last (as the TypeScript SDK)" ;;
			*) what="an extra member before result" ;;
			esac
			row "5o. big $mib MiB, $what: C driver (whole call)" \
				"$(f0 "$mo") MB/s" "members in order id, 5‴ $(f0 "$md") MB/s" \
				"$(f2 "$R")x" "≥ 0.8x" "$(yes_if "$R >= 0.8")"
		done
	fi
	tf=$(first "$("$B" floor 3 "$big" -- "$FAKE")") || fail "line ${LINENO:-?}"
	mf=$(calc "g/t" g="$got" t="$tf")
	R=$(calc "a/b" a="$mf" b="$ms")
	row "5\". big $mib MiB: C client ↔ fakeserver over pipes (no mcpfs)" \
		"$(f0 "$mf") MB/s" "tmpfs cat $(f0 "$ms") MB/s" "$(f2 "$R")x" \
		"(info)" "—"
	# 5"s: the same floor over a socketpair, as mcpfs's servers write
	# their stdout (libuv's UV_CREATE_PIPE); the floor is the faster of
	# the two, so that 5w does not measure against a weak one
	tf=$(first "$(BENCH_SOCKETPAIR=1 "$B" floor 3 "$big" -- "$FAKE")") || fail "line ${LINENO:-?}"
	mfs=$(calc "g/t" g="$got" t="$tf")
	R=$(calc "a/b" a="$mfs" b="$ms")
	row "5\"s. big $mib MiB: the same over a socketpair (no mcpfs)" \
		"$(f0 "$mfs") MB/s" "tmpfs cat $(f0 "$ms") MB/s" "$(f2 "$R")x" \
		"(info)" "—"
	if awk "BEGIN { exit !($mfs > $mf) }"; then mf=$mfs; fk='5"s'; else fk='5"'; fi
	# 5w: issue 15's target, the whole call against the slower of the
	# floor (5" or 5"s, the faster) and mcpfs's transfer only (5'), in
	# every order
	if [ "$mib" = 16 ] || [ "$mib" = 63 ]; then
		if awk "BEGIN { exit !($mf < $mr) }"; then
			slow=$mf; what="$fk floor $(f0 "$mf") MB/s"
		else
			slow=$mr; what="5' transfer only $(f0 "$mr") MB/s"
		fi
		for order in id result extra; do
			case $order in
			id) v=$md; how="members in order id (5‴)" ;;
			result) v=$mo_result; how="result first, id last (5o)" ;;
			*) v=$mo_extra; how="an extra member before result (5o)" ;;
			esac
			R=$(calc "a/b" a="$v" b="$slow")
			row "5w. big $mib MiB, $how: whole call against the slower of the floor (5\" or 5\"s, the faster) and 5'" \
				"$(f0 "$v") MB/s" "$what" "$(f2 "$R")x" "≥ 0.8x" \
				"$(yes_if "$R >= 0.8")"
		done
	fi
done

# ---- 7b. against the official SDK, pipelined ----
log "7b. SDK pipelined"
if [ "$HAVE_SDK" = yes ]; then
	K=16
	mkdir "$MNT/everything/s2" || fail "line ${LINENO:-?}"
	files=
	i=1
	while [ $i -le $K ]; do files="$files $MNT/everything/s2/call"; i=$((i + 1)); done
	# three rounds each, alternating; the medians (both vary with where
	# the scheduler puts the processes)
	: >"$WORK/p.sdk"; : >"$WORK/p.fs"
	for rep in 1 2 3; do
		out=$(node "$HERE/sdk.mjs" pipe 3000 $K "$NREQ" node "$EVERYTHING" stdio) || fail "line ${LINENO:-?}"
		first "$out" >>"$WORK/p.sdk"
		# shellcheck disable=SC2086
		out=$("$B" conc 1.5 "$NREQ" $files) || fail "line ${LINENO:-?}"
		calc "1e6/r" r="$(first "$out")" >>"$WORK/p.fs"
		echo >>"$WORK/p.fs"
	done
	PSDK=$(median <"$WORK/p.sdk")
	PFS=$(median <"$WORK/p.fs")
	R=$(calc "a/b" a="$PFS" b="$PSDK")
	row "7b. pipelined, $K in flight on one server (SDK: $K promises; mcpfs: $K threads, $K open fds, 1 session)" \
		"mcpfs $(f1 "$PFS") µs/call" "SDK $(f1 "$PSDK") µs/call" \
		"mcpfs/SDK $(f2 "$R")x" "mcpfs ≤ 1x" "$(yes_if "$R <= 1")"
else
	row "7b. SDK pipelined" "skipped: node_modules/@modelcontextprotocol/sdk or server-everything missing" "—" "—" "no slower than SDK" "—"
fi

# ---- 7c. Streamable HTTP: the SDK's HTTP client against mcpfs ----
log "7c. SDK over Streamable HTTP"
if [ -n "$EV_PORT" ]; then
	mkdir "$MNT/everything-http/h1" || fail "line ${LINENO:-?}"
	: >"$WORK/h.sdk"; : >"$WORK/h.fs"
	for rep in 1 2 3; do
		out=$(node "$HERE/sdk.mjs" seq 300 "$NREQ" "http://127.0.0.1:$EV_PORT/mcp") || fail "line ${LINENO:-?}"
		first "$out" >>"$WORK/h.sdk"
		out=$("$B" reuse 300 "$NREQ" "$MNT/everything-http/h1/call") || fail "line ${LINENO:-?}"
		first "$out" >>"$WORK/h.fs"
	done
	HSDK=$(median <"$WORK/h.sdk")
	HFS=$(median <"$WORK/h.fs")
	R=$(calc "a/b" a="$HFS" b="$HSDK")
	row "7c. server-everything echo over Streamable HTTP, sequential (SDK: StreamableHTTPClientTransport; mcpfs: one thread, 2a)" \
		"mcpfs $(f1 "$HFS") µs/call ($(f0 "$(calc "1e6/x" x="$HFS")") calls/s)" \
		"SDK $(f1 "$HSDK") µs/call" "mcpfs/SDK $(f2 "$R")x" "mcpfs ≤ 1x" \
		"$(yes_if "$R <= 1")"
else
	row "7c. SDK over Streamable HTTP" "skipped: node, the SDK or server-everything missing, or it did not start" "—" "—" "mcpfs ≤ 1x" "—"
fi

# ---- 10. the second front door: an SDK client through mcpfs serve ----
# The SDK's client calling server-everything's echo through the mount
# (`mcpfs serve` over stdio, and --serve's Streamable HTTP) against the
# same client straight to the server (stdio), sequential, three rounds
# alternating, medians (spec 14; target: serve adds at most 20%).
log "10. serve"
if [ "$HAVE_SDK" = yes ]; then
	SREQ='{"name":"everything__echo","arguments":{"message":"hi"}}'
	SURL=$(sed -n 's/.*"url":[[:space:]]*"\([^"]*\)".*/\1/p' "$MNT/.serve.json")
	STOK=$(sed -n 's/.*"Bearer \([0-9a-f]*\)".*/\1/p' "$MNT/.serve.json")
	: >"$WORK/s.direct"; : >"$WORK/s.serve"; : >"$WORK/s.http"; : >"$WORK/s.dhttp"
	# the same server over its own Streamable HTTP (PORT: a free one)
	EPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	PORT=$EPORT node "$EVERYTHING" streamableHttp >"$WORK/everything-http.log" 2>&1 &
	SRVPIDS="$SRVPIDS $!"
	i=0
	until curl -s -o /dev/null "http://127.0.0.1:$EPORT/mcp"; do
		i=$((i + 1)); [ $i -lt 300 ] || fail "line $LINENO: server-everything over HTTP did not start"
		sleep 0.1
	done
	for rep in 1 2 3; do
		out=$(node "$HERE/sdk.mjs" seq 500 "$NREQ" node "$EVERYTHING" stdio) || fail "line ${LINENO:-?}"
		first "$out" >>"$WORK/s.direct"
		out=$(node "$HERE/sdk.mjs" seq 500 "$SREQ" "$MCPFS" serve --thread bench "$MNT") || fail "line ${LINENO:-?}"
		first "$out" >>"$WORK/s.serve"
		out=$(MCP_BEARER=$STOK node "$HERE/sdk.mjs" seq 500 "$SREQ" "$SURL/bench") || fail "line ${LINENO:-?}"
		first "$out" >>"$WORK/s.http"
		out=$(node "$HERE/sdk.mjs" seq 500 "$NREQ" "http://127.0.0.1:$EPORT/mcp") || fail "line ${LINENO:-?}"
		first "$out" >>"$WORK/s.dhttp"
	done
	SD=$(median <"$WORK/s.direct"); SS=$(median <"$WORK/s.serve"); SH=$(median <"$WORK/s.http")
	SDH=$(median <"$WORK/s.dhttp")
	R=$(calc "a/b" a="$SS" b="$SD")
	row "10a. SDK client → mcpfs serve (stdio) → thread of server-everything, echo, sequential" \
		"$(f1 "$SS") µs/call" "SDK straight to the server $(f1 "$SD") µs" \
		"$(f2 "$R")x" "≤ 1.2x" "$(yes_if "$R <= 1.2")"
	R=$(calc "a/b" a="$SH" b="$SD")
	row "10b. SDK client → --serve Streamable HTTP → the same thread, echo, sequential" \
		"$(f1 "$SH") µs/call" "SDK straight to the server $(f1 "$SD") µs" \
		"$(f2 "$R")x" "≤ 1.2x" "$(yes_if "$R <= 1.2")"
	R=$(calc "a/b" a="$SH" b="$SDH")
	row "10c. as 10b, against the SDK straight to server-everything over its own Streamable HTTP" \
		"$(f1 "$SH") µs/call" "SDK straight to the server over HTTP $(f1 "$SDH") µs" \
		"$(f2 "$R")x" "≤ 1.2x" "$(yes_if "$R <= 1.2")"
else
	row "10. serve" "skipped: node, the SDK or server-everything missing" "—" "—" "≤ 1.2x" "—"
fi

# ---- 8. a peer: mcporter's keep-alive daemon ----
# A shell call as a person types it, whole processes on both sides: the
# peer's `mcporter call demo.incr` (a node process that asks mcporter's
# keep-alive daemon, which keeps one demo-server) against
# `sh -c 'echo REQ > call; cat call'` on a thread of the same server.
log "8. mcporter"
MCPORTER=$ROOT/node_modules/mcporter/dist/cli.js
NODE22=$ROOT/node_modules/.bin/node
[ -x "$NODE22" ] || NODE22=node
if [ "$HAVE_NODE" = yes ] && [ -f "$MCPORTER" ]; then
	MPW=$WORK/mcporter
	mkdir -p "$MPW/config"
	printf '{"mcpServers": {"demo": {"command": "%s", "lifecycle": "keep-alive"}}, "imports": []}\n' \
		"$DEMO" >"$MPW/config/mcporter.json"
	mcporter() {
		(cd "$MPW" && XDG_STATE_HOME=$MPW/state XDG_CONFIG_HOME=$MPW/xdg \
			XDG_CACHE_HOME=$MPW/cache XDG_DATA_HOME=$MPW/data \
			"$NODE22" "$MCPORTER" --config "$MPW/config/mcporter.json" "$@")
	}
	mcporter daemon start >"$MPW/daemon.log" 2>&1 || fail "line ${LINENO:-?}"
	mcporter call demo.incr >/dev/null 2>&1 || fail "line ${LINENO:-?}"  # warm
	: >"$WORK/m.peer"; : >"$WORK/m.fs"
	mkdir "$MNT/demo/m1" || fail "line ${LINENO:-?}"
	IREQ='{"name":"incr","arguments":{}}'
	sh -c "echo '$IREQ' > $MNT/demo/m1/call; cat $MNT/demo/m1/call" >/dev/null
	for rep in 1 2 3 4 5; do
		t0=$(now_ns)
		mcporter call demo.incr >/dev/null 2>&1 || fail "line ${LINENO:-?}"
		t1=$(now_ns)
		echo $((t1 - t0)) >>"$WORK/m.peer"
		for k in 1 2 3 4 5; do
			t0=$(now_ns)
			sh -c "echo '$IREQ' > $MNT/demo/m1/call; cat $MNT/demo/m1/call" >/dev/null ||
				fail "line ${LINENO:-?}"
			t1=$(now_ns)
			echo $((t1 - t0)) >>"$WORK/m.fs"
		done
	done
	mcporter daemon stop >/dev/null 2>&1
	TP=$(median <"$WORK/m.peer"); TF=$(median <"$WORK/m.fs")
	R=$(calc "a/b" a="$TP" b="$TF")
	row "8. a shell call, whole processes: mcporter 0.12.3 call through its keep-alive daemon vs sh -c 'echo > call; cat call'" \
		"mcpfs $(f2 "$(calc "x/1e6" x="$TF")") ms/call" \
		"mcporter $(f0 "$(calc "x/1e6" x="$TP")") ms/call" \
		"mcpfs is $(f0 "$R")x faster" "mcpfs faster" "$(yes_if "$R > 1")"
else
	row "8. a shell call through mcporter's keep-alive daemon" "skipped: node or mcporter missing (npm ci)" "—" "—" "mcpfs faster" "—"
fi

# ---- 6. memory: a fresh mount, idle demo sessions ----
log "6. memory"
fusermount3 -u "$MNT"
mount_fs "$MNT2" "$WORK/mcpfs-mem.log"
sleep 0.3
RSS0=$(rss_kib "$MPID")
row "6a. mcpfs RSS, idle, no session yet (stdio and HTTP servers configured)" \
	"$RSS0 KiB" "—" "—" "≤ 3072 KiB" "$(yes_if "$RSS0 <= 3072")"
prev=0
for target in 100 "$NMEM"; do
	i=$((prev + 1))
	while [ $i -le "$target" ]; do mkdir "$MNT2/demo/m$i" || fail "line ${LINENO:-?}"; i=$((i + 1)); done
	prev=$target
	wait_ready "$MNT2/demo" "$target" || fail "line ${LINENO:-?}"
	sleep 0.3
	rss=$(rss_kib "$MPID")
	per=$(calc "(r-z)/n" r="$rss" z="$RSS0" n="$target")
	row "6. mcpfs RSS, $target idle demo sessions" "$rss KiB" \
		"0 sessions $RSS0 KiB" "$(f1 "$per") KiB/session" "≤ 64 KiB/session" \
		"$(yes_if "$per <= 64")"
done
if [ -n "$HTTP_PORT" ]; then
	rss1=$(rss_kib "$MPID")
	mkdir "$MNT2/http/h1" || fail "line ${LINENO:-?}"
	printf '%s' "$REQ" >"$MNT2/http/h1/call" && cat "$MNT2/http/h1/call" >/dev/null ||
		fail "line ${LINENO:-?}"
	rmdir "$MNT2/http/h1"
	sleep 0.3
	rss2=$(rss_kib "$MPID")
	row "6b. mcpfs RSS after one HTTP session ($NMEM idle demo sessions)" \
		"$rss2 KiB" "before it $rss1 KiB" \
		"+$((rss2 - rss1)) KiB (the HTTP module and libcurl)" \
		"(info)" "—"
else
	row "6b. mcpfs RSS after one HTTP session" "skipped: no python3" "—" "—" "(info)" "—"
fi
t0=$(now_ns)
fusermount3 -u "$MNT2"
while kill -0 "$MPID" 2>/dev/null; do sleep 0.05; done
t1=$(now_ns)
row "6'. unmount with $NMEM sessions (all closed, mcpfs exited)" \
	"$(f2 "$(calc "(b-a)/1e9" a="$t0" b="$t1")") s" "—" "—" "(info)" "—"

agents_rows
scale_rows

# ---- the table ----
echo
echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), kernel $(uname -r), $(awk '/^MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
idle=$(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null)
[ -r /sys/module/haltpoll/parameters/guest_halt_poll_ns ] &&
	idle="$idle, guest_halt_poll_ns=$(cat /sys/module/haltpoll/parameters/guest_halt_poll_ns)"
[ -n "$idle" ] && echo "cpuidle: $idle"
echo "load average before: $LOAD0, after: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews every row)"
[ "$PIN" = 1 ] && echo "rows 1-3 and 7a: client, mcpfs and servers pinned to CPU 0 (BENCH_PIN=0 to not); rows 4-6 and 7b on all CPUs"
echo "mcpfs $("$MCPFS" --version | awk '{ print $2 }'), N=$N sequential calls per loop (medians after warm-up), $SECS s per concurrency level"
echo
echo "| measurement | value | baseline | ratio | target | met? |"
echo "|---|---|---|---|---|---|"
cat "$ROWS"
