/*
 * client.c - mcpfs's side of the requests a server sends it: ping, the
 * roots of the config entry, elicitation and sampling handed to ask.c (the
 * questions as files), and a clear "not supported" error for the rest.
 * Answers go back through the session's transport (message.c).
 */
#include <stdio.h>
#include <string.h>

#include "ask.h"
#include "internal.h"

void client_request(mcp_session *s, const char *method, cJSON *id,
		    cJSON *msg)
{
	char why[160];

	if (!strcmp(method, "ping")) {
		session_answer(s, id, cJSON_CreateObject(), NULL);
	} else if (!strcmp(method, "roots/list")) {
		session_answer(s, id, msg_roots(s->srv->conf), NULL);
	} else if (!strcmp(method, "elicitation/create") ||
		   !strcmp(method, "sampling/createMessage")) {
		ask_request(s, method, id,
			    cJSON_GetObjectItemCaseSensitive(msg, "params"));
	} else {
		snprintf(why, sizeof why, "mcpfs does not support %s", method);
		session_answer(s, id, NULL, msg_error(-32601, why, NULL));
	}
}
