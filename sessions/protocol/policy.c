/*
 * policy.c - the tool policy of a server (spec 13): "allowTools" and
 * "denyTools" (shell globs on tool names, fnmatch; deny wins) and
 * "readOnly" (only tools annotated readOnlyHint: true).
 *
 * It acts in two places, so that nothing else needs to know of it:
 *   - the tools listing, as it completes (inbound.c): a hidden tool is
 *     taken out of it, so tools/, tools.json, help/ and README.md, which
 *     all read that listing, never see it;
 *   - the sending of a request (session.c, call_send): a tools/call of a
 *     hidden tool, in either form ({"name"} or {"method": "tools/call"}),
 *     from any file, a task or a modern-era retry, completes at once with
 *     {"error": {"code": -32602, "message": "tool X is not allowed by the
 *     policy of server S (RULE)"}} and never reaches the server.
 * readOnly needs the tool's annotations, so under it a call waits for the
 * tools listing (task.c fetches it) and a tool absent from the filtered
 * listing is refused. The policy is read from the server's config at each
 * use; a reload that changes it drops the cached listings (policy_reload).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pages.h"
#include "policy.h"

static int any_match(char **globs, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fnmatch(globs[i], name, 0) == 0)
			return 1;
	return 0;
}

int policy_active(const struct mcp_server_conf *conf)
{
	return conf->allow_tools || conf->ndeny || conf->read_only;
}

/* The rule that hides the tool named name (listing entry tool, or NULL
 * when only the name is known: readOnly is not decided then), or NULL. */
static const char *hides(const struct mcp_server_conf *conf,
			 const char *name, const cJSON *tool)
{
	const cJSON *ann, *ro;

	if (any_match(conf->deny_tools, conf->ndeny, name))
		return "denyTools";
	if (conf->allow_tools && !any_match(conf->allow_tools, conf->nallow,
					    name))
		return "allowTools";
	if (conf->read_only && tool) {
		ann = cJSON_GetObjectItemCaseSensitive(tool, "annotations");
		ro = cJSON_GetObjectItemCaseSensitive(ann, "readOnlyHint");
		if (!cJSON_IsTrue(ro))
			return "readOnly";
	}
	return NULL;
}

void policy_filter(const struct mcp_server_conf *conf, cJSON *tools)
{
	cJSON *t, *next, *n;

	if (!policy_active(conf))
		return;
	for (t = tools ? tools->child : NULL; t; t = next) {
		next = t->next;
		n = cJSON_GetObjectItemCaseSensitive(t, "name");
		if (!cJSON_IsString(n) || hides(conf, n->valuestring, t))
			cJSON_Delete(cJSON_DetachItemViaPointer(tools, t));
	}
}

/* The tool a request names (its tool, read once: request.h), or NULL. */
static const char *call_tool(const mcp_call *c)
{
	return c->tool;
}

int policy_wants_listing(const mcp_session *s, const mcp_call *c)
{
	return s->srv->conf->read_only && call_tool(c);
}

/* Refuse c when the policy hides its tool (internal.h). */
int policy_refuse(mcp_session *s, mcp_call *c, mcp_call *listing,
		  int can_wait)
{
	const struct mcp_server_conf *conf = s->srv->conf;
	const char *rule, *name;
	char msg[420];
	cJSON *doc = NULL;

	if (!policy_active(conf) || c->kind == CALL_LIST ||
	    c->kind == CALL_INIT || !(name = call_tool(c)))
		return 0;
	rule = hides(conf, name, NULL);
	if (!rule && conf->read_only) {
		if (can_wait && c->kind == CALL_USER &&
		    (!listing || !listing->done))
			return 0; /* task_check fetches the listing first */
		/* the listing holds only read-only tools (policy_filter) */
		doc = surface_entry_json(listing, s, name);
		if (!doc)
			rule = "readOnly";
		cJSON_Delete(doc);
	}
	if (!rule)
		return 0;
	snprintf(msg, sizeof msg, "tool %.200s is not allowed by the policy "
		 "of server %.150s (%s)", name, conf->name, rule);
	mlog(MLOG_INFO, "server %s: %s", conf->name, msg);
	session_error(s, strdup(msg)); /* where the user looks (spec 12) */
	call_fail_noted(c, -32602, msg, NULL);
	return 1;
}

static cJSON *globs(char **g, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(g[i]));
	return a;
}

cJSON *policy_json(const struct mcp_server_conf *conf)
{
	cJSON *o;

	if (!policy_active(conf))
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (conf->allow_tools)
		cJSON_AddItemToObject(o, "allowTools",
				      globs(conf->allow_tools, conf->nallow));
	if (conf->ndeny)
		cJSON_AddItemToObject(o, "denyTools",
				      globs(conf->deny_tools, conf->ndeny));
	cJSON_AddBoolToObject(o, "readOnly", conf->read_only);
	return o;
}

static int strv_same(char **a, size_t na, char **b, size_t nb)
{
	size_t i;

	if (!a != !b || na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return 0;
	return 1;
}

int policy_same(const struct mcp_server_conf *a,
		const struct mcp_server_conf *b)
{
	return a->read_only == b->read_only &&
	       strv_same(a->allow_tools, a->nallow, b->allow_tools, b->nallow) &&
	       strv_same(a->deny_tools, a->ndeny, b->deny_tools, b->ndeny);
}

void policy_reload(mcp_server *srv)
{
	mcp_session *s;

	mlog(MLOG_INFO, "server %s: tool policy changed", srv->conf->name);
	call_set_ref(&srv->lists[MCP_TOOLS], NULL);
	for (s = mcp_session_next(srv, NULL); s; s = mcp_session_next(srv, s))
		call_set_ref(&s->lists[MCP_TOOLS], NULL);
}
