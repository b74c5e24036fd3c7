#!/bin/sh
# A walk through an mcpfs mount that serves the demo config: a thread
# directory is a session on one long-lived demo-server process, so its
# counter keeps counting from one call to the next.
# Usage: sh examples/demo.sh [MOUNTPOINT]   (default /tmp/mcpfs)
set -eu
M=${1:-/tmp/mcpfs}
i=0
until [ -e "$M/.status" ]; do
	i=$((i + 1))
	if [ "$i" -gt 25 ]; then
		echo "demo.sh: no mcpfs mount at $M (start: mcpfs $M)" >&2
		exit 1
	fi
	sleep 0.2
done
T=$M/demo/walk-$$
set -x
ls "$M" "$M/demo"
mkdir "$T"
ls "$T"
echo '{"name":"incr","arguments":{}}' > "$T/call"
cat "$T/call"
echo '{"name":"incr","arguments":{"by":41}}' > "$T/call"
cat "$T/call"
cat "$T/status"
rmdir "$T"
ls "$M/demo"
