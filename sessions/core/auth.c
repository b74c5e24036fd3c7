/*
 * auth.c - the core's side of authorization (spec 8): the auth file of a
 * url server, which the HTTP module renders and takes writes for
 * (module_auth loads it: libcurl and libcrypto are mapped then, never at
 * start), the log line and the events line of every auth state change,
 * and the data of a call failed for authorization.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "transport.h"

static const struct auth_ops *ops(void)
{
	char err[300];
	const struct auth_ops *a = module_auth(transport_env_get(), err,
					       sizeof err);

	if (!a)
		mlog(MLOG_WARN, "auth: %s", err);
	return a;
}

mcp_buf *mcp_server_auth_json(mcp_server *srv)
{
	const struct auth_ops *a = srv->conf->url ? ops() : NULL;
	char *t = a ? a->json(srv->conf) : NULL;
	mcp_buf *b;

	if (!t)
		return NULL;
	b = mcp_buf_new(t, strlen(t));
	free(t);
	return b;
}

int mcp_server_auth_write(mcp_server *srv, const char *p, size_t n)
{
	const struct auth_ops *a = srv->conf->url ? ops() : NULL;

	return a ? a->write(srv->conf, p, n) : -EIO;
}

void mcp_auth_note(const char *server, const char *state, const char *detail)
{
	mcp_server *srv = mcp_server_find(server);
	mcp_session *s;
	cJSON *m;
	char *t;

	mlog(MLOG_INFO, "server %s: auth: %s%s%s", server, state,
	     detail ? ": " : "", detail ? detail : "");
	if (!srv)
		return;
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "auth", state);
	if (detail)
		cJSON_AddStringToObject(m, "detail", detail);
	t = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	if (t)
		LIST_FOREACH(s, &srv->sessions, srv_link)
			ring_line(&s->events, t, strlen(t));
	cJSON_free(t);
}
