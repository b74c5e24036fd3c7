/*
 * index.h - every session, the threads of each server and the clock
 * (index.c), for the session core.
 * Private to sessions/.
 */
#ifndef MCPFS_INDEX_H
#define MCPFS_INDEX_H

#include "internal.h"

/* index.c: every session, the threads of each server, the clock */
double mcp_now(void);
uint64_t mcp_new_id(void);
int sessions_link(mcp_session *s);    /* a new session: 0 or -ENOMEM */
void sessions_unlink(mcp_session *s);
mcp_session *sessions_any(void);      /* some live session, or NULL */
unsigned session_live_count(void);
/* warm.c: the last mkdir refused at the cap (every session busy), with
 * its time, for .status; NULL if none. */
const char *session_cap_refusal(void);
int session_idle(const mcp_session *s);
mcp_session *sessions_lru_idle(void); /* the idle thread used longest ago */
int sessions_adopt(mcp_session *s, const char *name); /* spare -> thread;
							  0 or -ENOMEM */
void session_obj_hold(void);
void session_obj_drop(void);
void sessions_when_reaped(void (*cb)(void)); /* once no object is left */
void index_init(void);
/* A thread closed (not a one-shot or spare): remembered with the time and
 * the reason (idle, cap, rmdir, ctl, config change, unmount) for .status;
 * the last 64 are kept. closed_json: them, newest first. */
void sessions_closed_note(const mcp_session *s, const char *why);
cJSON *sessions_closed_json(void);
void index_fini(void);

#endif
