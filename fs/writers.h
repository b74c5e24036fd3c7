/*
 * writers.h - which call a fresh read of a transaction file reads (spec 4):
 * every call sent through call, tools/<tool> or prompts/<prompt> is
 * recorded with the process that wrote it and that process's ancestry, and
 * a read on an open file that sent nothing takes the newest call written
 * from within the reader's nearest enclosing process subtree that wrote
 * any. writers.c.
 *
 * An owner is a session id or a server id (one counter, never reused). A
 * key names what a call was for ("t:<name>" a tool, "p:<name>" a prompt,
 * NULL anything else): a fresh read of tools/<tool> looks only at calls of
 * its key. Every function runs on the loop thread.
 */
#ifndef MCPFS_WRITERS_H
#define MCPFS_WRITERS_H

#include <stdint.h>
#include <sys/types.h>

#include "sessions.h"

/* A process as writers.c knows it (its identity and lineage, cached). */
struct wproc;

/* The process of thread id pid (a FUSE caller), a reference; NULL when it
 * is gone or /proc cannot tell, or with errno ENOMEM when out of memory.
 * *image: an id of the program it runs now (exec changes it; 0 when
 * procfs hides it). */
struct wproc *writers_proc(pid_t pid, unsigned long long *image);
void writers_proc_unref(struct wproc *p);
/* What writers.c learns of a thread: its identity (an id the kernel gives
 * no other thread while the machine runs, or its start time where the
 * kernel has none: see writers.c), start time (clock ticks since boot),
 * parent, thread group and the image it runs. */
struct writers_pinfo {
	pid_t ppid, tgid;
	unsigned long long id, start, image;
};
/* A stand-in for /proc and pidfds, for tests (tests/unit/test_writers.c):
 * fills *pi for thread tid, 0 or -ESRCH. NULL: the kernel's (default). */
typedef int writers_probe_fn(pid_t tid, struct writers_pinfo *pi);
void writers_probe_set(writers_probe_fn *fn);
/* A call's record, made ready before the call is sent (writers_prepare)
 * so that nothing can fail once it is (writers_commit). */
struct wrec;
/* Make ready the record of a call that process w (borrowed), running
 * image, is about to send on owner for key (NULL or a string, copied):
 * 0 with *rec set (NULL when w is NULL: nothing is recorded); -EAGAIN
 * when owner already holds the most calls it may remember, all of
 * writers still alive (a new call there would not be found again by its
 * writer, so it must not be sent); -ENOMEM. */
int writers_prepare(uint64_t owner, const char *key, struct wproc *w,
		    unsigned long long image, struct wrec **rec);
/* rec's call was sent as c (a reference of its own is taken; it replaces
 * the writer's previous call of the same key), or was not (c NULL: rec is
 * dropped). rec may be NULL. */
void writers_commit(uint64_t owner, struct wrec *rec, mcp_call *c);
/* The call a fresh read by thread pid reads on owner, in *found
 * (borrowed): the newest call of key (any key when key is NULL) written
 * by the reader's process (running the program it runs now), else by its
 * own subtree (what it wrote before an exec, and its children:
 * `sh -c '... ; exec cat call'`), else by its parent's subtree, else its
 * grandparent's, and so on; when no subtree of its lineage wrote one, the
 * newest call of key (NULL when key is NULL: the caller falls back to the
 * session's latest). 0, or -ENOMEM when the reader's lineage could not be
 * learnt (then no reply is handed out rather than someone else's). */
int writers_find(uint64_t owner, const char *key, pid_t pid,
		 mcp_call **found);
/* Drop the tables of owners that no longer resolve (thread closed, server
 * removed), with their references. */
void writers_sweep(void);

/* Drop everything (shutdown). */
void writers_clear(void);

#endif
