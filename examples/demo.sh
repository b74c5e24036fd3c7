#!/bin/sh
# A walk through the mcpfs tree with the demo server: a session keeps its
# state between calls. Usage: sh examples/demo.sh [MOUNTPOINT]
set -e
M=${1:-/tmp/mcpfs}
for i in 1 2 3 4 5 6 7 8 9 10; do [ -e "$M/.status" ] && break; sleep 0.2; done
set -x
ls "$M" "$M/demo"
mkdir "$M/demo/walk"
echo '{"name":"incr","arguments":{}}' > "$M/demo/walk/call"
cat "$M/demo/walk/call"
echo '{"name":"incr","arguments":{"by":41}}' > "$M/demo/walk/call"
cat "$M/demo/walk/call"
echo '{"name":"get_count","arguments":{}}' > "$M/demo/call"
cat "$M/demo/call"
head -c 300 "$M/demo/walk/status"; echo
rmdir "$M/demo/walk"
ls "$M/demo"
