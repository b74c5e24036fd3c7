#!/bin/sh
# Run only the mount tests against real MCP servers (server-everything,
# server-memory, server-filesystem, @cyanheads/git-mcp-server over
# Streamable HTTP, @playwright/mcp with Debian's Chromium) on an existing
# build.
# Installs the pinned servers from package-lock.json when node_modules is
# missing. Usage: sh tests/realservers.sh [BUILD_DIR] [pytest args...]
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
[ $# -gt 0 ] && shift
if [ ! -d node_modules/@playwright/mcp ] ||
	[ ! -d node_modules/@modelcontextprotocol/server-everything ] ||
	[ ! -d node_modules/@modelcontextprotocol/server-memory ] ||
	[ ! -d node_modules/@modelcontextprotocol/server-filesystem ] ||
	[ ! -d node_modules/@cyanheads/git-mcp-server ]; then
	npm ci --no-audit --no-fund
fi
[ -x /usr/bin/chromium ] || echo "realservers.sh: /usr/bin/chromium missing" \
	"(apt-get install chromium); the Playwright tests will skip" >&2
[ -x "$BUILD/mcpfs" ] || { echo "realservers.sh: no $BUILD/mcpfs" >&2; exit 1; }
MCPFS_BUILD=$(cd "$BUILD" && pwd) exec /usr/bin/python3 -m pytest -q \
	-p no:cacheprovider tests/mount/test_real_everything.py \
	tests/mount/test_real_memory.py tests/mount/test_real_filesystem.py \
	tests/mount/test_real_git.py tests/mount/test_real_playwright.py "$@"
