/*
 * supervise.h - the process that stands between mcpfs and a server.
 * mcpfs runs "mcpfs --mcpfs-exec PPID COMMAND ARGS..." (libuv has no
 * pre-exec hook); see supervise.c for what that process does.
 */
#ifndef MCPFS_SUPERVISE_H
#define MCPFS_SUPERVISE_H

/*
 * Run as the supervisor of argv[3..] for mcpfs (pid argv[2]). Returns (or
 * exits, or dies of a signal) with the server's own exit status; 127 when
 * the command cannot be run or mcpfs is already gone.
 */
int mcp_supervise(int argc, char **argv);

#endif
