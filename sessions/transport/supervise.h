/*
 * supervise.h - the process that stands between mcpfs and a server.
 * mcpfs runs "mcpfs --mcpfs-exec PPID COMMAND ARGS..." (libuv has no
 * pre-exec hook); see supervise.c for what that process does. Its entry,
 * mcp_supervise, is declared in sessions.h, as main calls it.
 */
#ifndef MCPFS_SUPERVISE_H
#define MCPFS_SUPERVISE_H

#include "program.h"

#endif
