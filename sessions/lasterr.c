/*
 * lasterr.c - status.last_error, where the user looks (spec 9, 12): the
 * one place a session's last failure is set, with its time
 * (last_error_at), whatever failed: a call, the start, a transport error,
 * a refused request, a policy, a resource read, a ctl verb.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ctlesc.h"
#include "internal.h"

/* msg (taken) is shown in status, to people and to JSON readers: what a
 * server or a user put in it (a control character, bytes that are not
 * UTF-8, which cJSON would print raw) is escaped visibly (lib/ctlesc.h). */
void session_error(mcp_session *s, char *msg)
{
	char *safe;

	if (msg && ctlesc_needed(msg, 1) && (safe = ctlesc_dup(msg, 1))) {
		free(msg);
		msg = safe;
	}
	free(s->last_error);
	s->last_error = msg;
	s->last_error_at = mcp_now();
}

void mcp_resource_failed(mcp_session *s, const char *uri,
			 const mcp_buf *reply)
{
	cJSON *r = cJSON_ParseWithLength(reply->data, reply->len);
	cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
	cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
	cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
	char *msg;

	if (asprintf(&msg, "resources/read of %s failed: %s%s%.0f%s", uri,
		     cJSON_IsString(m) ? m->valuestring : "no contents in the "
		     "reply", cJSON_IsNumber(code) ? " (" : "",
		     cJSON_IsNumber(code) ? code->valuedouble : 0.0,
		     cJSON_IsNumber(code) ? ")" : "") < 0)
		msg = NULL;
	cJSON_Delete(r);
	session_error(s, msg);
}

void session_bad_verb(mcp_session *s, const char *verb, size_t len)
{
	char *msg;

	if (asprintf(&msg, "ctl: unknown verb '%.*s' (the verbs are cancel, "
		     "restart, close, subscribe URI and unsubscribe URI)",
		     (int)(len < 64 ? len : 64), verb) < 0)
		msg = NULL;
	session_error(s, msg);
}
