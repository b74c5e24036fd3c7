#!/bin/sh
# A browser that stays open between calls: a thread directory is one
# long-lived @playwright/mcp process (and its Chromium), so the page that
# browser_navigate opened is the page browser_take_screenshot takes.
#
# Usage: sh examples/browser.sh MOUNTPOINT [URL] [OUT.png]
#   MOUNTPOINT  an mcpfs mount whose config has a Playwright server named
#               $SERVER (default "playwright", as in examples/servers.json)
#   URL         the page to open; default: a local page this script serves
#               with python3 -m http.server on 127.0.0.1
#   OUT.png     where the screenshot goes (default ./screenshot.png)
set -eu
M=${1:?usage: sh examples/browser.sh MOUNTPOINT [URL] [OUT.png]}
URL=${2:-}
OUT=${3:-screenshot.png}
SERVER=${SERVER:-playwright}
T=$M/$SERVER/browser-$$
WWW=""
HTTPD=""

cleanup() {
	[ -d "$T" ] && rmdir "$T"
	[ -n "$HTTPD" ] && kill "$HTTPD" 2>/dev/null
	[ -n "$WWW" ] && rm -rf "$WWW"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -d "$M/$SERVER" ]; then
	echo "browser.sh: no server '$SERVER' in the mcpfs mount at $M" >&2
	exit 1
fi

if [ -z "$URL" ]; then
	# a local page: a solid magenta background with a heading
	WWW=$(mktemp -d)
	cat > "$WWW/index.html" <<'EOF'
<!doctype html><title>mcpfs browser walkthrough</title>
<body style="margin:0;height:100vh;background:#ff00ff;font:48px sans-serif">
<h1 style="margin:0;padding:1em">Hello from a page that stayed open</h1>
EOF
	PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	python3 -m http.server --bind 127.0.0.1 --directory "$WWW" "$PORT" \
		>/dev/null 2>&1 &
	HTTPD=$!
	URL=http://127.0.0.1:$PORT/index.html
	i=0
	until python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' "$URL" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -gt 50 ] && { echo "browser.sh: http.server did not start" >&2; exit 1; }
		sleep 0.1
	done
fi

set -x
mkdir "$T"
echo "{\"name\":\"browser_navigate\",\"arguments\":{\"url\":\"$URL\"}}" > "$T/call"
cat "$T/call"
echo '{"name":"browser_take_screenshot","arguments":{}}' > "$T/call"
python3 -c 'import base64, json, sys; r = json.load(sys.stdin); open(sys.argv[1], "wb").write(base64.b64decode(next(c["data"] for c in r["content"] if c["type"] == "image")))' "$OUT" < "$T/call"
ls -l "$OUT"
rmdir "$T"
