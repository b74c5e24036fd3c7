#!/bin/sh
# tests/bench/fuse318.sh - bench only, optional: libfuse 3.18 (FUSE over
# io_uring, passthrough) from Debian's source package into a scratch
# prefix, never /usr, for fusebound.sh and a build of mcpfs with
# -Dfuse_prefix=PREFIX. Also hello_ll with direct_io (every read a FUSE
# round trip) beside libfuse's examples. Needs meson, liburing-dev and
# libnuma-dev (Debian 12's are enough), and root for the prefix.
#
#   sh tests/bench/fuse318.sh [PREFIX [SRCDIR]]
set -eu
PREFIX=${1:-/opt/fuse318}
DIR=${2:-/tmp/fuse318}
mkdir -p "$DIR/lists/partial"
cd "$DIR"
# Debian's unstable source index, in an apt state of its own
echo 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main' >sid.list
O="-o Dir::Etc::SourceList=$DIR/sid.list -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists=$DIR/lists"
# shellcheck disable=SC2086
apt-get $O update >/dev/null
# shellcheck disable=SC2086
apt-get $O source --download-only fuse3
tar xzf fuse3_3.18.*.orig.tar.gz
SRC=$(ls -d "$DIR"/fuse-3.18.* | tail -n 1)
cd "$SRC"
meson setup b --prefix="$PREFIX" -Dtests=false -Duseroot=false \
	-Dinitscriptdir= -Dudevrulesdir="$PREFIX/udev" -Ddisable-mtab=true
ninja -C b install
sed 's/^\t\tfuse_reply_open(req, fi);$/\t\t{ fi->direct_io = 1; fuse_reply_open(req, fi); }/' \
	example/hello_ll.c >b/example/hello_ll_dio.c
LIB=$(dirname "$(ls "$PREFIX"/lib/*/libfuse3.so "$PREFIX"/lib*/libfuse3.so 2>/dev/null | head -n 1)")
cc -O2 -D_FILE_OFFSET_BITS=64 -I"$PREFIX/include/fuse3" \
	-o b/example/hello_ll_dio b/example/hello_ll_dio.c \
	-L"$LIB" -lfuse3 -Wl,-rpath,"$LIB"
echo "libfuse in $PREFIX, sources in $SRC (FUSE_SRC for fusebound.sh)"
