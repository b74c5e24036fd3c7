/*
 * lost.h - a state lost with its process is never silent (lost.c, spec 5).
 * Private to sessions/.
 */
#ifndef MCPFS_LOST_H
#define MCPFS_LOST_H

#include "internal.h"

/* lost.c: a state lost with its process is never silent (spec 5) */
/* s's process, which had finished its handshake, is gone: why (the
 * exit) and data (exit, stderr tail; copied) are status.lost, pending
 * for the next user call unless a user call in flight hears it now or
 * the server restarts silently. */
void lost_note(mcp_session *s, const char *why, const cJSON *data);
/* User call c, about to start on s: 1 when it failed with the pending
 * loss (and was not sent), 0 to send it. */
int lost_report(mcp_session *s, mcp_call *c);
void lost_forget(mcp_session *s); /* a restart the user asked for */
void lost_free(mcp_session *s);
/* status.lost (spec 5): s's last state lost, or null, into o. */
void lost_json(cJSON *o, const mcp_session *s);

#endif
