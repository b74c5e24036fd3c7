/*
 * scope.c - the servers one serve client sees and reaches, and whether
 * its tools are the search surface (spec 14).
 *
 * `mcpfs serve --servers a,b --tools search` (in the first line to the
 * mount's socket) and `/mcp?servers=a,b&tools=search` give them when the
 * client's session starts: it then lists, calls, reads and is told of
 * those servers only (peer.c asks scope_sees wherever it goes through the
 * servers), within the tool policy, which the core applies to every
 * listing and call. A name that is no server of the mount is refused
 * before the session starts, saying which servers there are. Without
 * tools the mount's -o serve_tools decides (all unless said).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbuf.h"
#include "scope.h"

static enum scope_tools tools_default = SCOPE_ALL;

/* The mode named t (NULL: the default), or -1. */
static int tools_mode(const char *t)
{
	if (!t)
		return SCOPE_DEFAULT;
	if (!strcmp(t, "all"))
		return SCOPE_ALL;
	if (!strcmp(t, "search"))
		return SCOPE_SEARCH;
	return -1;
}

int serve_tools_default(const char *tools)
{
	int m = tools_mode(tools);

	if (m <= SCOPE_DEFAULT)
		return -EINVAL;
	tools_default = (enum scope_tools)m;
	return 0;
}

/* The names of servers ("a,b", blanks around a name dropped) as "a\0b\0\0"
 * (malloc'd; NULL when out of memory); *empty: one of them is empty. */
static char *split(const char *servers, int *empty)
{
	size_t n = strlen(servers);
	char *out = malloc(n + 2), *o = out;
	const char *p = servers, *e, *c;

	*empty = 0;
	if (!out)
		return NULL;
	for (;;) {
		c = strchr(p, ',');
		e = c ? c : p + strlen(p);
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e == p)
			*empty = 1;
		memcpy(o, p, (size_t)(e - p));
		o += e - p;
		*o++ = 0;
		if (!c)
			break;
		p = c + 1;
	}
	*o = 0;
	return out;
}

/* why: "no server NAME in this mount (its servers: a, b)" */
static void no_server(const char *name, char *why, size_t n)
{
	struct mcp_stat st = { 0 };
	struct gbuf b = { 0 };
	int k = 0;

	while (mcp_next(0, st.id, &st) == 0)
		gbuf_printf(&b, "%s%s", k++ ? ", " : "", st.name);
	snprintf(why, n, "no server %.100s in this mount (%s%.300s)", name,
		 k ? "its servers: " : "it has none", b.p ? b.p : "");
	gbuf_free(&b);
}

int serve_scope_check(const char *servers, const char *tools, char *why,
		      size_t n)
{
	struct mcp_stat st;
	char *names, *s;
	int empty, r = 0;

	if (tools_mode(tools) < 0) {
		snprintf(why, n, "tools=%.100s: all or search", tools);
		return -EINVAL;
	}
	if (!servers)
		return 0;
	if (!(names = split(servers, &empty))) {
		snprintf(why, n, "out of memory");
		return -ENOMEM;
	}
	if (empty) {
		snprintf(why, n, "servers=%.100s: a name is empty (give "
			 "servers=a,b)", servers);
		r = -EINVAL;
	}
	for (s = names; !r && *s; s += strlen(s) + 1)
		if (mcp_walk(0, s, &st) < 0) {
			no_server(s, why, n);
			r = -EINVAL;
		}
	free(names);
	return r;
}

int serve_peer_scope(struct serve_peer *p, const char *servers,
		     const char *tools)
{
	int empty, m = tools_mode(tools);

	p->tools = m < 0 ? SCOPE_DEFAULT : m;
	if (!servers)
		return 0;
	free(p->servers);
	p->servers = split(servers, &empty);
	if (p->servers)
		mlog(MLOG_INFO, "serve: the client of thread %s sees servers "
		     "%s", p->thread, servers);
	return p->servers ? 0 : -ENOMEM;
}

int scope_sees(const struct serve_peer *p, const char *server)
{
	const char *s;

	if (!p->servers)
		return 1;
	for (s = p->servers; *s; s += strlen(s) + 1)
		if (!strcmp(s, server))
			return 1;
	return 0;
}

int scope_sees_id(const struct serve_peer *p, uint64_t server_id)
{
	struct mcp_stat st;

	if (!p->servers)
		return 1;
	return mcp_lookup(server_id, MCP_SERVER, &st) == 0 &&
	       scope_sees(p, st.name);
}

int scope_search(const struct serve_peer *p)
{
	int t = p->tools == SCOPE_DEFAULT ? (int)tools_default : p->tools;

	return t == SCOPE_SEARCH;
}

int scope_hears(const struct serve_peer *p, const struct mcp_stat *th,
		const char *method)
{
	if (!scope_sees_id(p, th->server_id))
		return 0;
	return !scope_search(p) ||
	       strcmp(method, "notifications/tools/list_changed");
}

void scope_free(struct serve_peer *p)
{
	free(p->servers);
	p->servers = NULL;
}

char *serve_scope_refusal(const char *body, size_t len, const char *why)
{
	cJSON *m = cJSON_ParseWithLength(body, len), *e, *r;
	cJSON *id = cJSON_DetachItemFromObjectCaseSensitive(m, "id");
	char *t;

	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "jsonrpc", "2.0");
	cJSON_AddItemToObject(r, "id", id ? id : cJSON_CreateNull());
	e = cJSON_AddObjectToObject(r, "error");
	cJSON_AddNumberToObject(e, "code", -32602);
	cJSON_AddStringToObject(e, "message", why);
	t = cJSON_PrintUnformatted(r);
	cJSON_Delete(r);
	cJSON_Delete(m);
	return t;
}
