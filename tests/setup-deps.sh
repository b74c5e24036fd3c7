#!/bin/sh
# Install what mcpfs needs to build and test on Debian (run as root or with
# sudo available). Safe to run again: it installs only what is missing.
set -e
PKGS="meson ninja-build pkg-config gcc libfuse3-dev fuse3 libuv1-dev
libcjson-dev libcurl4-openssl-dev libcmocka-dev python3 python3-pytest clang libclang-rt-14-dev
valgrind chromium procps psmisc util-linux"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
# Node.js: the machine's own if it has one (Debian's would conflict with it)
command -v node >/dev/null && command -v npm >/dev/null ||
	missing="$missing nodejs npm"
if [ -n "$missing" ]; then
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
fi
