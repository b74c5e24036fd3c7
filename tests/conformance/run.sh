#!/bin/sh
# run.sh [SCENARIO...] - run client scenarios of the pinned MCP conformance
# suite (@modelcontextprotocol/conformance, package.json) with mcpfs as the
# client (client.py) and print one line per scenario: name, PASS or FAIL,
# and the suite's "Passed: n/m" count. Without arguments it runs every
# client scenario the suite lists. Exits 0 when every scenario passed.
# A scenario that ends "Passed: 0/0" checked nothing: it is a FAIL (no
# checks), not a pass.
# SCENARIO@VERSION runs it at that spec version (--spec-version: the era
# the suite's server speaks and MCP_CONFORMANCE_PROTOCOL_VERSION), e.g.
# CONFORMANCE=next run.sh tools_call@2026-07-28.
# Needs build/mcpfs (or MCPFS_BUILD), FUSE, and node_modules (npm ci).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# The suite needs Node 22 (package.json's devDependency node@22 puts one in
# node_modules/.bin/node); the machine's node runs the servers elsewhere.
# CONFORMANCE=next runs the prerelease pinned beside it (package.json's
# alias conformance-next), whose scenarios include the 2026-07-28 ones;
# its extension scenarios (auth/dpop, the skills ones, ...) apply to no
# spec version and run only with --force, which it is given.
force=
if [ "${CONFORMANCE:-}" = next ]; then
	cli="$root/node_modules/conformance-next/dist/index.js"
	force=--force
else
	cli="$root/node_modules/@modelcontextprotocol/conformance/dist/index.js"
fi
node22="$root/node_modules/.bin/node"
[ -f "$cli" ] || { echo "run.sh: $cli missing (npm ci)" >&2; exit 77; }
# conformance SECS ARG...: the suite's CLI, stopped after SECS
conformance() {
	secs=$1
	shift
	if [ -x "$node22" ]; then
		timeout "$secs" "$node22" "$cli" "$@"
	else
		timeout "$secs" node "$cli" "$@"
	fi
}
if [ $# -eq 0 ]; then
	set -- $(conformance 60 list 2>/dev/null |
		sed -n '/^Client scenarios/,/^$/s/^  - \([^ ]*\).*/\1/p')
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpfs-conformance.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
py=/usr/bin/python3
[ -x "$py" ] || py=python3
rc=0
for sc in "$@"; do
	out="$work/$(echo "$sc" | tr /@ __).txt"
	name=${sc%%@*}
	ver=
	[ "$name" = "$sc" ] || ver=${sc#*@}
	if conformance 180 client --scenario "$name" \
		${ver:+--spec-version "$ver"} $force \
		--command "$py $here/client.py" >"$out" 2>&1; then
		res=PASS
	else
		res=FAIL
	fi
	count=$(grep -o 'Passed: [0-9]*/[0-9]*' "$out" | tail -1)
	case $count in
	*/0 | '') [ "$res" = FAIL ] || res="FAIL (no checks)" ;;
	esac
	[ "$res" = PASS ] || rc=1
	printf '%-45s %s  %s\n' "$sc" "$res" "$count"
	[ "$res" = PASS ] || [ -z "${CONFORMANCE_VERBOSE:-}" ] || cat "$out"
done
exit $rc
