/*
 * writers.h - the latest call each writing process sent, per thread (or
 * per server, for the one-shot call), so that a fresh open of call reads
 * the reply of its own writer (SPEC 4): writers.c.
 *
 * An owner is a session id or a server id (one counter, never reused).
 * Every function runs on the loop thread.
 */
#ifndef MCPFS_WRITERS_H
#define MCPFS_WRITERS_H

#include <stdint.h>
#include <sys/types.h>

#include "sessions.h"

/* Process pid (a FUSE caller: any thread id of it) sent c on owner's call.
 * Takes a reference of its own; a later call of the same process replaces
 * it. Quietly does nothing when pid is 0 or already gone, or on ENOMEM. */
void writers_record(uint64_t owner, pid_t pid, mcp_call *c);

/* The latest call on owner sent by pid's process or, failing that, by its
 * nearest ancestor (a few levels up) that sent one; NULL if none.
 * Borrowed: take a reference to keep it. */
mcp_call *writers_find(uint64_t owner, pid_t pid);

/* Drop the tables of owners that no longer resolve (thread closed, server
 * removed), with their references. */
void writers_sweep(void);

/* Drop everything (shutdown). */
void writers_clear(void);

#endif
