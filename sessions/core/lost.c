/*
 * lost.c - a thread's state dies with its process, and that is never
 * silent (spec 5). When a process that had finished its handshake exits
 * (or its HTTP session is lost), a user call in flight fails with the
 * exit and carries the news. With none in flight the loss is pending:
 * the next user call on the thread (a request to call, tools/X,
 * prompts/X, a serve client's tools/call: CALL_USER, by either door)
 * fails with it once, -32002, and is not sent; the call after goes to a
 * fresh process. Listings and the tree's own requests (tools.json,
 * tools/, resources/ reads, a serve client's prompts/get and
 * resources/read) may start that process but leave the news to the next
 * call. status.lost keeps the last loss (status.c). `ctl restart` is a
 * restart the user asked for, and a server with "restart": "silent"
 * keeps no state: neither is pending. One-shots and spares have no
 * thread to tell.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "internal.h"
#include "lost.h"

/* A thread's last state lost (mcp_session.lost), made at its first. */
struct lost {
	double at;           /* when */
	unsigned generation; /* of which process */
	int pending;         /* the next user call fails with it */
	char *why;           /* the exit, as calls in flight heard it */
	cJSON *data;         /* ... with their error's data */
};

void lost_note(mcp_session *s, const char *why, const cJSON *data)
{
	struct lost *l = s->lost;

	if (s->oneshot || s->spare || s->closed)
		return;
	if (!l && !(l = s->lost = calloc(1, sizeof *l)))
		return; /* out of memory: the loss is in last_error only */
	free(l->why);
	cJSON_Delete(l->data);
	l->why = session_shown(strdup(why));
	l->data = data ? cJSON_Duplicate(data, 1) : NULL;
	l->at = mcp_now();
	l->generation = s->generation;
	l->pending = !s->in_flight && !s->srv->conf->restart_silent;
	if (l->pending)
		mlog(MLOG_INFO, "server %s thread %s: the state of generation "
		     "%u is lost with no call in flight; the next call is "
		     "told", s->srv->conf->name, s->name, l->generation);
}

int lost_report(mcp_session *s, mcp_call *c)
{
	struct lost *l = s->lost;
	char msg[400];

	if (!l || !l->pending || c->kind != CALL_USER)
		return 0;
	l->pending = 0;
	snprintf(msg, sizeof msg, "the server's state is gone: generation %u "
		 "was lost while no call was in flight (this call was not "
		 "sent; the next one goes to a fresh process): %s",
		 l->generation, l->why ? l->why : "the server was lost");
	mlog(MLOG_INFO, "server %s thread %s: a call told of the loss of "
	     "generation %u", s->srv->conf->name, s->name, l->generation);
	call_fail(c, ERR_EXITED, msg, l->data);
	return 1;
}

void lost_forget(mcp_session *s)
{
	if (s->lost)
		s->lost->pending = 0;
}

void lost_free(mcp_session *s)
{
	if (!s->lost)
		return;
	free(s->lost->why);
	cJSON_Delete(s->lost->data);
	free(s->lost);
	s->lost = NULL;
}

void lost_json(cJSON *o, const mcp_session *s)
{
	const struct lost *l = s->lost;
	cJSON *j;

	if (!l) {
		cJSON_AddNullToObject(o, "lost");
		return;
	}
	j = cJSON_AddObjectToObject(o, "lost");
	msg_add_time(j, "at", l->at);
	cJSON_AddNumberToObject(j, "generation", l->generation);
	if (l->why)
		cJSON_AddStringToObject(j, "why", l->why);
	else
		cJSON_AddNullToObject(j, "why");
	cJSON_AddBoolToObject(j, "pending", l->pending);
}
