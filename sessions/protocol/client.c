/*
 * client.c - mcpfs's side of the requests a server sends it: ping, the
 * roots of the config entry, elicitation and sampling handed to ask.c (the
 * questions as files), and a clear "not supported" error for the rest.
 * Answers go back through the session's transport (message.c). Roots are
 * live: a reload that changes them tells every running session.
 */
#include <stdio.h>
#include <string.h>

#include "ask.h"
#include "era.h"
#include "internal.h"

void client_request(mcp_session *s, const char *method, cJSON *id,
		    cJSON *msg, const char *line, size_t len)
{
	char why[160];

	if (!strcmp(method, "ping")) {
		session_answer(s, id, cJSON_CreateObject(), NULL);
	} else if (!strcmp(method, "roots/list")) {
		session_answer(s, id, msg_roots(s->srv->conf), NULL);
	} else if (!strcmp(method, "elicitation/create") ||
		   !strcmp(method, "sampling/createMessage")) {
		ask_question(s, method, id,
			    cJSON_GetObjectItemCaseSensitive(msg, "params"),
			    line, len);
	} else {
		snprintf(why, sizeof why, "mcpfs does not support %s", method);
		session_answer(s, id, NULL, msg_error(-32601, why, NULL));
	}
}

/* A session that has finished its handshake in the handshake era hears of
 * the change (the modern era has no such notification: its roots are
 * asked for by each request, mrtr.c, and answered from the config then). */
static void roots_tell(mcp_session *s)
{
	cJSON *m;

	if (s->state != S_READY || s->era == MCP_ERA_MODERN || !s->t)
		return;
	m = msg_notification("notifications/roots/list_changed");
	if (m)
		session_send_json(s, m, 0);
	cJSON_Delete(m);
}

void session_roots_changed(mcp_server *srv)
{
	mcp_session *s;
	unsigned n = 0;

	LIST_FOREACH(s, &srv->sessions, srv_link) {
		n += s->state == S_READY;
		roots_tell(s);
	}
	LIST_FOREACH(s, &srv->spares, srv_link) {
		n += s->state == S_READY;
		roots_tell(s);
	}
	mlog(MLOG_INFO, "server %s: roots changed (%zu now); told %u "
	     "running session(s)", srv->conf->name, srv->conf->nroots, n);
}
