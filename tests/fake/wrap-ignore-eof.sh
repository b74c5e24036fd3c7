#!/bin/sh
# wrap-ignore-eof.sh COMMAND ARGS... - runs COMMAND the way `npx` runs a
# server: this shell stays in between as its parent (no exec), a sleep that
# holds none of the pipes runs beside it, and another sleep leaves the
# process group and the session (setsid), as a daemon the server started
# would. SIGTERM and SIGHUP are ignored here and, inherited through exec,
# by every child; with the fake server's --ignore-stdin-eof only SIGKILL
# ends the lot. The orphan tests (tests/mount/test_orphans.py) start
# servers through it.
trap '' TERM HUP
sleep 3600 </dev/null >/dev/null 2>&1 &
setsid sleep 3600 </dev/null >/dev/null 2>&1 &
"$@"
code=$?
exit $code
