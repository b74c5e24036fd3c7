#!/bin/sh
# run.sh SECONDS - build the libFuzzer targets of the pure parts with clang
# (ASan + UBSan, UB fatal) into a temporary directory and run each for
# SECONDS, starting from tests/fuzz/corpus/<target>/ (the seeds are read,
# never written). Prints each target's executions and exits non-zero if any
# target crashed, leaked or hit UB; the crashing input is kept and named.
# Exits 77 (skip) when clang or its libFuzzer runtime is missing.
set -u

secs=${1:-30}
case $secs in
	''|*[!0-9]*) echo "usage: $0 SECONDS" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cc=${CC_FUZZ:-clang}
targets="${FUZZ_TARGETS:-jscan frame config request sse askcheck toml kvargs surface serve oneline httpcheck}"

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: $cc not found, skipping" >&2
	exit 77
fi
if ! cjson=$(pkg-config --cflags --libs libcjson); then
	echo "fuzz: libcjson not found by pkg-config" >&2
	exit 1
fi

if ! fyaml=$(pkg-config --cflags --libs libfyaml); then
	echo "fuzz: libfyaml not found by pkg-config" >&2
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpfs-fuzz.XXXXXX") || exit 1
keep=0
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	if [ "$keep" = 0 ]; then
		rm -rf "$work"
	fi
}
trap cleanup EXIT
# dash runs no EXIT trap when a signal kills it: exit from the signal instead
trap 'exit 143' TERM
trap 'exit 130' INT

printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)'\
' { (void)d; (void)n; return 0; }\n' > "$work/probe.c"
if ! "$cc" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>/dev/null
then
	echo "fuzz: $cc has no libFuzzer runtime (Debian: libclang-rt-dev" \
	     "or the clang package of the same version), skipping" >&2
	exit 77
fi

cflags="-g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined"
cflags="$cflags -fno-sanitize-recover=all -fno-omit-frame-pointer"
cflags="$cflags -I$root/lib -I$root/sessions -I$root/sessions/config"
cflags="$cflags -I$root/sessions/guide -I$root/sessions/transport"
cflags="$cflags -I$root/sessions/base -I$root/sessions/protocol -I$root/serve"

sources_for() {
	case $1 in
	jscan)   echo "$root/lib/jscan.c $root/lib/jspan.c $root/lib/jnames.c $root/lib/gbuf.c" ;;
	frame)   echo "$root/lib/frame.c $root/lib/bigmem.c" ;;
	config)  echo "$root/sessions/config/config.c $root/sessions/config/confentry.c" \
		"$root/sessions/config/configfmt.c" \
		"$root/sessions/config/oauthconf.c $root/sessions/config/dialect.c" \
		"$root/sessions/config/yamlconf.c $root/sessions/config/toml.c" \
		"$root/lib/jscan.c $root/lib/jspan.c $root/lib/jnames.c $root/lib/gbuf.c $fyaml -lm" ;;
	toml)    echo "$root/sessions/config/toml.c $root/lib/gbuf.c -lm" ;;
	request) echo "$root/sessions/base/request.c $root/lib/jscan.c $root/lib/jspan.c $root/lib/jnames.c $root/lib/gbuf.c $root/lib/jsent.c $root/lib/jexact.c" ;;
	sse)     echo "$root/lib/sse.c $root/lib/gbuf.c" ;;
	askcheck) echo "$root/sessions/base/askcheck.c -lm" ;;
	httpcheck) echo "$root/serve/httpcheck.c $root/lib/gbuf.c" ;;
	kvargs)  echo "$root/lib/kvargs.c $root/sessions/guide/help.c $root/lib/jexact.c" \
		"$root/lib/gbuf.c $root/lib/ctlesc.c -lm" ;;
	serve)   echo "-I$root/serve -I$work/serve $root/serve/peer.c" \
		"$root/serve/peerjob.c" \
		"$root/serve/peerask.c $root/serve/route.c $root/lib/uritmpl.c" \
		"$root/serve/scope.c $root/serve/search.c $root/lib/gbuf.c" \
		"$root/lib/jexact.c $root/lib/jsent.c $root/lib/jscan.c" \
		"$root/lib/jspan.c $root/lib/jnames.c" \
		"$root/lib/buf.c $root/lib/bigmem.c" \
		"$root/sessions/base/versions.c" ;;
	surface) echo "$root/sessions/protocol/surface.c $root/sessions/protocol/result.c" \
		"$root/sessions/base/buf.c $root/lib/buf.c" \
		"$root/lib/jscan.c $root/lib/jspan.c $root/lib/jnames.c $root/lib/jsent.c" \
		"$root/lib/jexact.c" \
		"$root/lib/gbuf.c $root/lib/bigmem.c $root/lib/mimetab.c" \
		"$root/lib/ctlesc.c" ;;
	oneline) echo "$root/sessions/protocol/inbound.c $root/sessions/protocol/stream.c" \
		"$root/sessions/live/trace.c" \
		"$root/sessions/base/buf.c $root/lib/buf.c $root/lib/ring.c" \
		"$root/lib/idtab.c $root/lib/jscan.c $root/lib/jspan.c $root/lib/jnames.c" \
		"$root/lib/jcompact.c $root/lib/jsent.c $root/lib/jexact.c $root/lib/gbuf.c" \
		"$root/lib/frame.c $root/lib/bigmem.c $root/lib/sse.c" ;;
	esac
}

# serve/peer.c's version string, which meson makes
mkdir -p "$work/serve"
echo '#define MCPFS_VERSION "fuzz"' > "$work/serve/buildconfig.h"

status=0
for t in $targets; do
	# shellcheck disable=SC2046,SC2086
	if ! "$cc" $cflags "$here/fuzz_$t.c" $(sources_for "$t") $cjson \
	     -o "$work/fuzz_$t" 2>"$work/build_$t.log"; then
		echo "fuzz_$t: build failed:" >&2
		cat "$work/build_$t.log" >&2
		status=1
		continue
	fi
	mkdir -p "$work/corpus_$t" "$work/artifacts"
	# config: a leak inside libfyaml itself is suppressed by name, which
	# needs the slow unwinder (lsan-libfyaml.supp says why)
	opts=
	[ "$t" = config ] && opts="fast_unwind_on_malloc=0:malloc_context_size=6"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$opts" \
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/lsan-libfyaml.supp" \
	"$work/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 \
		-timeout=10 -rss_limit_mb=2048 -max_len=16384 \
		-dict="$here/json.dict" \
		-artifact_prefix="$work/artifacts/$t-" \
		"$work/corpus_$t" "$here/corpus/$t" >"$work/run_$t.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
		"$work/run_$t.log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		echo "fuzz_$t: ok, ${execs:-?} executions in ${secs}s"
	else
		echo "fuzz_$t: FAILED (exit $rc) after ${execs:-?} executions" >&2
		grep -E 'ERROR|SUMMARY|Test unit written' "$work/run_$t.log" >&2
		status=1
		keep=1
	fi
done

if [ "$keep" = 1 ]; then
	echo "fuzz: logs and crashing inputs kept in $work" >&2
fi
exit $status
