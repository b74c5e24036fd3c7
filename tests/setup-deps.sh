#!/bin/sh
# Install what mcpfs needs on Debian (run as root or with sudo available).
#   sh tests/setup-deps.sh build   building mcpfs and running the demo
#   sh tests/setup-deps.sh         that and everything the tests need
# Safe to run again: it installs only what is missing.
set -e
BUILD_PKGS="meson ninja-build pkg-config gcc libfuse3-dev fuse3 libuv1-dev
libcjson-dev libcurl4-openssl-dev libssl-dev libfyaml-dev media-types
libmicrohttpd-dev"
TEST_PKGS="libcmocka-dev python3 python3-pytest clang libclang-rt-14-dev
valgrind chromium procps psmisc util-linux man-db groff-base git fiu-utils
busybox zsh debhelper dpkg-dev fakeroot lintian"
case "${1:-all}" in
build) PKGS=$BUILD_PKGS ;;
all|test) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
*) echo "usage: sh tests/setup-deps.sh [build]" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
# Node.js for the real servers: the machine's own if it has one (Debian's
# would conflict with it)
if [ "${1:-all}" != build ]; then
	command -v node >/dev/null && command -v npm >/dev/null ||
		missing="$missing nodejs npm"
fi
if [ -n "$missing" ]; then
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -q
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
fi
