/*
 * cancel.c - a call ended before its reply (ctl cancel, an interrupted
 * reader, its timeout): the server is told (notifications/cancelled, or
 * in the modern era the exchange ended), its questions and task are
 * dropped, and the call fails with the reason, which is last_error too.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ask.h"
#include "era.h"
#include "internal.h"
#include "task.h"

static void send_cancelled(mcp_session *s, uint64_t id, const char *reason)
{
	cJSON *m = msg_notification("notifications/cancelled");
	cJSON *p = cJSON_AddObjectToObject(m, "params");

	cJSON_AddNumberToObject(p, "requestId", (double)id);
	cJSON_AddStringToObject(p, "reason", reason);
	session_send_json(s, m, 0);
	cJSON_Delete(m);
}

void cancel_call(mcp_call *c, int code, const char *msg, const char *reason)
{
	mcp_session *s = c->s;

	if (s)
		ask_drop_ctx(s, c, reason); /* its input requests (mrtr.c) */
	if (s && c->rpc_id && s->t) {
		/* the modern era cancels an exchange by ending it */
		if (s->era != MCP_ERA_MODERN ||
		    !(s->ops->caps & TRANSPORT_EXCHANGES))
			send_cancelled(s, c->rpc_id, reason);
		if (s->ops->forget)
			s->ops->forget(s->t, c->rpc_id);
	}
	if (s && s->t) /* a modern task between polls has no rpc_id */
		task_cancel(s, c);
	if (s && c->kind == CALL_USER) { /* the whole reason, for status */
		char *e;

		if (asprintf(&e, "%s%s", msg, code == ERR_CANCELLED
			     ? " (ctl cancel, or its reader was interrupted)"
			     : "") < 0)
			e = NULL;
		session_error(s, e);
	}
	call_fail_noted(c, code, msg, NULL);
}

void mcp_call_cancel_why(mcp_call *c, const char *reason)
{
	if (c->done || !c->s)
		return;
	cancel_call(c, ERR_CANCELLED, "call cancelled",
		   reason ? reason : "cancelled by user");
}

void mcp_call_cancel(mcp_call *c)
{
	mcp_call_cancel_why(c, NULL);
}
