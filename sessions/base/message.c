/*
 * message.c - the JSON-RPC messages mcpfs builds (requests, notifications,
 * errors, the initialize request with the version of versions.c), and
 * handing a message to the session's transport. Builds and sends only: no
 * session state changes here.
 */
#include <stdlib.h>
#include <string.h>

#include "buildconfig.h"
#include "era.h"
#include "internal.h"
#include "jsent.h"

cJSON *msg_error(int code, const char *msg, cJSON *data)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	if (data)
		cJSON_AddItemToObject(e, "data", cJSON_Duplicate(data, 1));
	return e;
}

mcp_buf *msg_error_reply(cJSON *err)
{
	cJSON *o = cJSON_CreateObject();
	mcp_buf *b;

	cJSON_AddItemToObject(o, "error", cJSON_Duplicate(err, 1));
	b = mcp_buf_json(o, 0);
	cJSON_Delete(o);
	return b;
}

void msg_add_time(cJSON *o, const char *k, double t)
{
	char b[40];
	time_t sec = (time_t)t;
	struct tm tm;

	gmtime_r(&sec, &tm);
	strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
	cJSON_AddStringToObject(o, k, b);
}

cJSON *msg_roots(const struct mcp_server_conf *conf)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(r, "roots");
	size_t i;

	for (i = 0; i < conf->nroots; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "uri", conf->roots[i]);
		cJSON_AddItemToArray(a, o);
	}
	return r;
}

cJSON *msg_notification(const char *method)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "method", method);
	return m;
}

cJSON *msg_request(uint64_t id, const char *method)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddNumberToObject(m, "id", (double)id);
	cJSON_AddStringToObject(m, "method", method);
	return m;
}

#define SKILLS_EXT "io.modelcontextprotocol/skills"

cJSON *msg_initialize(uint64_t id, const struct mcp_server_conf *conf)
{
	cJSON *m = msg_request(id, "initialize");
	cJSON *p = cJSON_AddObjectToObject(m, "params"), *caps, *info;

	cJSON_AddStringToObject(p, "protocolVersion", mcp_versions[0]);
	caps = cJSON_AddObjectToObject(p, "capabilities");
	if (conf->nroots) /* spec 5: none, and the server keeps its own */
		cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "roots"),
				      "listChanged", 1);
	if (conf->elicitation) { /* questions as files: ask.c */
		cJSON *e = cJSON_AddObjectToObject(caps, "elicitation");

		cJSON_AddObjectToObject(e, "form");
		cJSON_AddObjectToObject(e, "url");
	}
	if (conf->sampling)
		cJSON_AddObjectToObject(caps, "sampling");
	/* skills as files (live/skills.c) */
	cJSON_AddObjectToObject(cJSON_AddObjectToObject(caps, "extensions"),
				SKILLS_EXT);
	info = cJSON_AddObjectToObject(p, "clientInfo");
	cJSON_AddStringToObject(info, "name", "mcpfs");
	cJSON_AddStringToObject(info, "version", MCPFS_VERSION);
	return m;
}

static const struct {
	const char *method, *key, *cap;
} lists[MCP_NLISTS] = {
	[MCP_TOOLS] = {"tools/list", "tools", "tools"},
	[MCP_RESOURCES] = {"resources/list", "resources", "resources"},
	[MCP_TEMPLATES] = {"resources/templates/list", "resourceTemplates",
			   "resources"},
	[MCP_PROMPTS] = {"prompts/list", "prompts", "prompts"},
	[MCP_SKILLS] = {"skills/list", "skills", "extensions"},
};

int msg_list_offered(const cJSON *caps, enum mcp_list what)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(caps,
							  lists[what].cap);

	if (what == MCP_SKILLS) /* an extension (SEP-2133) */
		c = cJSON_GetObjectItemCaseSensitive(c, SKILLS_EXT);
	return c != NULL;
}

cJSON *msg_list(uint64_t id, enum mcp_list what, const char *cursor)
{
	cJSON *m = msg_request(id, lists[what].method);

	if (cursor)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "params"),
					"cursor", cursor);
	return m;
}

const char *mcp_list_key(enum mcp_list what)
{
	return lists[what].key;
}

const char *msg_list_method(enum mcp_list what)
{
	return lists[what].method;
}

/* ---- sending ---- */

/* In the modern era (or its probe) a request gets the per-request _meta
 * and, through send_hdrs, the HTTP headers (era.c). */
void session_send(mcp_session *s, char *line, size_t len, uint64_t rpc_id)
{
	size_t mn;
	char *ml;

	if (!s->t) {
		free(line);
		return;
	}
	if (rpc_id && (s->era == MCP_ERA_MODERN || s->probing)) {
		ml = era_line(s, line, len, &mn);
		if (ml) {
			free(line);
			line = ml;
			len = mn;
		}
		if (s->ops->send_hdrs) {
			mcp_call *c = idtab_get(&s->pending, rpc_id);
			const char *tool = c && c->kind == CALL_USER
					   ? c->tool : NULL;

			trace_msg(s, 0, line, len);
			s->ops->send_hdrs(s->t, line, len, rpc_id,
					  era_headers(s, line, len, tool));
			return;
		}
	}
	trace_msg(s, 0, line, len);
	s->ops->send(s->t, line, len, rpc_id);
}

static void (*failed)(mcp_session *s, uint64_t rpc_id, int code,
		       long status, const char *msg);

void message_setup(void (*f)(mcp_session *s, uint64_t rpc_id, int code,
			     long status, const char *msg))
{
	failed = f;
}

void session_send_json(mcp_session *s, cJSON *msg, uint64_t rpc_id)
{
	static unsigned long failures; /* of cJSON's allocations, seen */
	size_t n;
	char *txt = msg ? jsent_print(msg, 0, &n) : NULL;
	char *line = txt ? malloc(n + 2) : NULL;
	int whole = failures == jsent_failures(); /* no member left out */

	failures = jsent_failures();
	if (line && whole) {
		memcpy(line, txt, n);
		line[n] = '\n';
		line[n + 1] = 0;
		session_send(s, line, n + 1, rpc_id);
		line = NULL;
	} else if (rpc_id) { /* its call would wait for nothing */
		failed(s, rpc_id, -32603, 0, "request not sent: out of memory");
	} else {
		mlog(MLOG_WARN, "server %s: a message was not sent: out of "
		     "memory", s->srv->conf->name);
	}
	free(line);
	free(txt);
}

/* The reply to the server's request id: result or err (either taken). */
void session_answer(mcp_session *s, cJSON *id, cJSON *result, cJSON *err)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	if (err)
		cJSON_AddItemToObject(m, "error", err);
	else
		cJSON_AddItemToObject(m, "result", result);
	session_send_json(s, m, 0);
	cJSON_Delete(m);
}
