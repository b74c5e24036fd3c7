/*
 * peer.c - one MCP client of the mount (spec 14): the mount spoken to as
 * one MCP server, on the session core (sessions/sessions.h).
 *
 * The client sees every configured server's tools as SERVER__TOOL and its
 * prompts as SERVER__PROMPT (listings: the server-level ones, cached, with
 * the tool policy applied), resources by their own URIs (a read goes to
 * the first server in the config that lists the URI, else to the first
 * whose resource template matches it); a name or URI two servers give is
 * the first's (route.c). Its tool calls run
 * in a thread of each server, made on first use: the thread named by
 * `mcpfs serve --thread NAME`, else serve-N, this client's own, closed
 * when it leaves. A call there is a call of that thread's `call` file
 * (result/, status, events), so a shell and the client share the session.
 * The client's progress token, cancellation (with its reason) and the
 * servers' log messages and list_changed pass through. Every tool is
 * offered as one to call plainly: a task a server requires is run by
 * mcpfs, as for `call`, and the client gets the final result. A
 * server's question (elicitation, sampling) waits under the thread's
 * requests/, as for any call. What a request waits on (listings, a call)
 * is a job of peerjob.c; the questions are peerask.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <cjson/cJSON.h>

#include "buildconfig.h"
#include "jexact.h"
#include "jscan.h"
#include "jsent.h"
#include "mlog.h"
#include "peer.h"
#include "route.h"
#include "scope.h"

#define SEP ROUTE_SEP          /* SERVER__TOOL */

struct serve_peers serve_peers = LIST_HEAD_INITIALIZER(serve_peers);
static unsigned long serve_n;

/* ---- servers and threads ---- */

/* How many servers of p name + "__" begins name (with something after
 * it): the last of them in *srv and in *rest what follows it. */
static int split_name(const struct serve_peer *p, const char *name,
		      const char **rest, struct mcp_stat *srv)
{
	struct mcp_stat st = { 0 };
	size_t n;
	int k = 0;

	while (mcp_next(0, st.id, &st) == 0) {
		n = strlen(st.name);
		if (scope_sees(p, st.name) && !strncmp(name, st.name, n) &&
		    !strncmp(name + n, SEP, 2) && name[n + 2]) {
			*srv = st;
			*rest = name + n + 2;
			k++;
		}
	}
	return k;
}

/* ---- the client's requests ---- */

static void initialize(struct serve_peer *p, const char *id, cJSON *params,
		       uint64_t tag)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	int i = cJSON_IsString(v) ? mcp_version_at(v->valuestring) : -1;
	cJSON *r = cJSON_CreateObject(), *caps, *c, *info;
	const char *ver;

	if (i < 0 || i >= MCP_VERSIONS_SPOKEN)
		i = 0; /* ours, the newest */
	ver = mcp_versions[i];
	c = cJSON_GetObjectItemCaseSensitive(params, "capabilities");
	p->elicit = cJSON_GetObjectItemCaseSensitive(c, "elicitation") != NULL;
	p->sample = cJSON_GetObjectItemCaseSensitive(c, "sampling") != NULL;
	cJSON_AddStringToObject(r, "protocolVersion", ver);
	caps = cJSON_AddObjectToObject(r, "capabilities");
	c = cJSON_AddObjectToObject(caps, "tools");
	cJSON_AddTrueToObject(c, "listChanged");
	c = cJSON_AddObjectToObject(caps, "prompts");
	cJSON_AddTrueToObject(c, "listChanged");
	c = cJSON_AddObjectToObject(caps, "resources");
	cJSON_AddTrueToObject(c, "listChanged");
	cJSON_AddObjectToObject(caps, "logging");
	info = cJSON_AddObjectToObject(r, "serverInfo");
	cJSON_AddStringToObject(info, "name", "mcpfs");
	cJSON_AddStringToObject(info, "version", MCPFS_VERSION);
	cJSON_AddStringToObject(r, "instructions", scope_search(p)
		? search_instructions :
		"The tools of every server of an mcpfs mount, as "
		"SERVER__TOOL. Calls run in the thread " "directories of the "
		"mount, which a shell can read and call into.");
	mlog(MLOG_INFO, "serve: a client (protocol %s) in thread %s", ver,
	     p->thread);
	peer_result(p, id, r, tag);
}

static void tools_call(struct serve_peer *p, const char *id, cJSON *params,
		       uint64_t tag, int prompt)
{
	cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	cJSON *tok = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");
	const char *rest = NULL;
	struct mcp_stat srv;
	cJSON *req, *in;
	struct job *j;
	int k = cJSON_IsString(name) ?
		split_name(p, name->valuestring, &rest, &srv) : 0;

	if (k == 0) {
		peer_error(p, id, -32602, prompt ? "no such prompt (names are "
			   "SERVER__PROMPT)" : "no such tool (names are "
			   "SERVER__TOOL)", tag);
		return;
	}
	/* a name two servers could give is routed by their listings */
	j = k == 1 ? job_new(p, 1, id, tag)
		   : job_lists(p, id, tag, prompt ? MCP_PROMPTS : MCP_TOOLS,
			       prompt ? "prompts/list" : "tools/list", R_CALL);
	if (!j) {
		if (k == 1)
			peer_error(p, id, -32603, "out of memory", tag);
		return;
	}
	if (tok)
		j->token = jexact_print(tok, 0);
	req = cJSON_CreateObject();
	if (prompt) {
		cJSON_AddStringToObject(req, "method", "prompts/get");
		in = cJSON_AddObjectToObject(req, "params");
	} else {
		in = req;
	}
	cJSON_AddStringToObject(in, "name", rest);
	if (args)
		cJSON_AddItemToObject(in, "arguments",
				      cJSON_Duplicate(args, 1));
	if (meta)
		cJSON_AddItemToObject(in, "_meta", cJSON_Duplicate(meta, 1));
	if (k == 1) {
		job_call(p, j, &srv, req, prompt);
		cJSON_Delete(req);
		return;
	}
	j->prompt = prompt;
	j->read = req;
	j->uri = strdup(name->valuestring);
	if (!j->uri) {
		peer_error(p, id, -32603, "out of memory", tag);
		job_free(j);
		return;
	}
	job_ask(j);
}

static void resources_read(struct serve_peer *p, const char *id,
			   cJSON *params, uint64_t tag)
{
	cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
	struct job *j;

	if (!cJSON_IsString(uri)) {
		peer_error(p, id, -32602, "resources/read needs a uri", tag);
		return;
	}
	if (!(j = job_lists(p, id, tag, MCP_RESOURCES, "resources/list",
			    R_READ)))
		return;
	j->read = cJSON_CreateObject();
	j->uri = strdup(uri->valuestring);
	cJSON_AddStringToObject(j->read, "method", "resources/read");
	cJSON_AddItemToObject(j->read, "params", cJSON_Duplicate(params, 1));
	if (!j->uri || !j->read) {
		peer_error(p, id, -32603, "out of memory", tag);
		job_free(j);
		return;
	}
	job_ask(j);
}

/* A search client's call of one of the three tools (scope.h): a call
 * goes on as a direct one; a search or a describe looks in the listing
 * its tools/list would give. */
static void search_call(struct serve_peer *p, const char *id,
			cJSON *params, uint64_t tag)
{
	const char *why;
	cJSON *in;
	struct job *j;

	if (search_which(params) == SEARCH_CALL) {
		if ((in = search_call_params(params, &why)))
			tools_call(p, id, in, tag, 0);
		else
			peer_error(p, id, why ? -32602 : -32603,
				   why ? why : "out of memory", tag);
		cJSON_Delete(in);
		return;
	}
	if (!(j = job_lists(p, id, tag, MCP_TOOLS, "tools/list", R_SEARCH)))
		return;
	if (!(j->read = cJSON_Duplicate(params, 1))) {
		peer_error(p, id, -32603, "out of memory", tag);
		job_free(j);
		return;
	}
	job_ask(j);
}

/* The client's notifications/cancelled: the server is told its reason. */
static void cancelled(struct serve_peer *p, cJSON *params)
{
	cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	cJSON *why = cJSON_GetObjectItemCaseSensitive(params, "reason");
	char *id = rid ? jexact_print(rid, 0) : NULL;
	struct job *j, *nx;

	for (j = LIST_FIRST(&p->jobs); id && j; j = nx) {
		nx = LIST_NEXT(j, link);
		if (strcmp(j->id, id))
			continue;
		/* no reply to it (MCP cancellation) */
		job_cancel(j, cJSON_IsString(why) ? why->valuestring : NULL);
	}
	free(id);
}

/* ---- the client's requests, by method (spec 14) ---- */

static void answer_empty(struct serve_peer *p, const char *id,
			 cJSON *params, uint64_t tag)
{
	peer_result(p, id, cJSON_CreateObject(), tag);
}

static void tools_list(struct serve_peer *p, const char *id, cJSON *params,
		       uint64_t tag)
{
	if (scope_search(p))
		peer_result(p, id, search_listing(), tag);
	else
		job_listing(p, id, tag, MCP_TOOLS, "tools/list");
}

static void tools_call_of(struct serve_peer *p, const char *id,
			  cJSON *params, uint64_t tag)
{
	if (scope_search(p) && search_which(params))
		search_call(p, id, params, tag);
	else
		tools_call(p, id, params, tag, 0);
}

static void prompts_get(struct serve_peer *p, const char *id, cJSON *params,
			uint64_t tag)
{
	tools_call(p, id, params, tag, 1);
}

/* what serve answers (spec 14): a function, else the listing of every
 * server (list) merged */
static const struct method {
	const char *name;
	void (*answer)(struct serve_peer *p, const char *id, cJSON *params,
		       uint64_t tag);
	enum mcp_list list;
} methods[] = {
	{ "initialize", initialize, 0 },
	{ "ping", answer_empty, 0 },
	{ "logging/setLevel", answer_empty, 0 },
	{ "tools/list", tools_list, 0 },
	{ "tools/call", tools_call_of, 0 },
	{ "prompts/list", NULL, MCP_PROMPTS },
	{ "prompts/get", prompts_get, 0 },
	{ "resources/list", NULL, MCP_RESOURCES },
	{ "resources/templates/list", NULL, MCP_TEMPLATES },
	{ "resources/read", resources_read, 0 },
	{ NULL, NULL, 0 },
};

/* json, which cJSON could not read: its id as JSON text when it is an
 * object with one that can be read (by structure only: JSON that holds
 * an unpaired surrogate escape, valid in RFC 8259, is neither cJSON's
 * nor I-JSON's), else NULL. */
static char *unread_id(const char *json, size_t len)
{
	struct jscan_span v;
	cJSON *id;
	char *t = NULL;

	if (jscan_top_member(json, len, "id", &v) &&
	    (id = cJSON_ParseWithLength(json + v.at, v.n)) != NULL) {
		if (!cJSON_IsNull(id))
			t = jexact_print(id, 0);
		cJSON_Delete(id);
	}
	return t;
}

int serve_peer_input(struct serve_peer *p, const char *json, size_t len,
		     uint64_t tag)
{
	/* an escaped NUL kept (as C0 80, jsent.h) to reach the server */
	cJSON *m = jsent_parse(json, len), *id, *method, *params;
	const struct method *k;
	char *ids = NULL;
	const char *meth;
	int r = 1;

	method = cJSON_GetObjectItemCaseSensitive(m, "method");
	id = cJSON_GetObjectItemCaseSensitive(m, "id");
	params = cJSON_GetObjectItemCaseSensitive(m, "params");
	if (!m && (ids = unread_id(json, len)) != NULL) {
		peer_error(p, ids, -32600, "mcpfs cannot read this message: "
			   "a string holds an unpaired surrogate escape "
			   "(\\uD800 to \\uDFFF), or it nests past 1000 "
			   "levels, or memory ran out", tag);
		free(ids);
		return 1;
	}
	if (!cJSON_IsObject(m)) {
		peer_error(p, NULL, -32700, "parse error: not a JSON-RPC "
			   "message", tag);
		cJSON_Delete(m);
		return -EINVAL;
	}
	if (!cJSON_IsString(method)) { /* a response: to a question? */
		peer_answered(p, m);
		cJSON_Delete(m);
		return 0;
	}
	meth = method->valuestring;
	if (!id || cJSON_IsNull(id)) { /* a notification */
		if (!strcmp(meth, "notifications/cancelled"))
			cancelled(p, params);
		cJSON_Delete(m);
		return 0;
	}
	ids = jexact_print(id, 0); /* as the client wrote it */
	if (!ids) {
		cJSON_Delete(m);
		return -ENOMEM;
	}
	for (k = methods; k->name && strcmp(meth, k->name); k++)
		;
	if (k->answer)
		k->answer(p, ids, params, tag);
	else if (k->name)
		job_listing(p, ids, tag, k->list, k->name);
	else
		peer_error(p, ids, -32601, "method not found", tag);
	free(ids);
	cJSON_Delete(m);
	return r;
}

/* ---- what the servers say ---- */

/* A server's notification: to the clients it concerns. */
static void note(const struct mcp_stat *s, const char *json, size_t len)
{
	cJSON *m = cJSON_ParseWithLength(json, len);
	cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
	cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
	cJSON *tok = cJSON_GetObjectItemCaseSensitive(params, "progressToken");
	char *t = tok ? jexact_print(tok, 0) : NULL;
	const char *meth = cJSON_IsString(method) ? method->valuestring : "";
	uint64_t sid = s->id;
	struct serve_peer *p;
	struct job *j;

	if (!strcmp(meth, "mcpfs/request")) {
		peer_question(s, params);
		free(t);
		cJSON_Delete(m);
		return;
	}
	LIST_FOREACH(p, &serve_peers, link) {
		int mine = !strcmp(p->thread, s->name);

		if (!scope_hears(p, s, meth))
			continue;
		if (!strcmp(meth, "notifications/progress")) {
			LIST_FOREACH(j, &p->jobs, link)
				if (j->sess_id == sid && j->token && t &&
				    !strcmp(j->token, t))
					peer_send_text(p, json, len, j->tag, 0);
		} else if (strstr(meth, "/list_changed") ||
			   (mine && !strcmp(meth, "notifications/message"))) {
			peer_send_text(p, json, len, 0, 0);
		}
	}
	free(t);
	cJSON_Delete(m);
}

/* ---- peers ---- */

static const struct mcp_observer observer = { note, peer_asked };

struct serve_peer *serve_peer_new(const char *thread, struct serve_out *out)
{
	struct serve_peer *p = calloc(1, sizeof *p);

	if (!p)
		return NULL;
	p->out = out;
	LIST_INIT(&p->jobs);
	if (thread && *thread) {
		snprintf(p->thread, sizeof p->thread, "%s", thread);
	} else {
		snprintf(p->thread, sizeof p->thread, "serve-%lu", ++serve_n);
		p->own = 1;
	}
	if (LIST_EMPTY(&serve_peers))
		mcp_observe(&observer);
	LIST_INSERT_HEAD(&serve_peers, p, link);
	return p;
}

void serve_peer_drop(struct serve_peer *p, uint64_t tag)
{
	struct job *j, *nx;

	for (j = LIST_FIRST(&p->jobs); j; j = nx) {
		nx = LIST_NEXT(j, link);
		if (j->tag != tag)
			continue;
		job_cancel(j, NULL);
	}
}

void serve_peer_end(struct serve_peer *p)
{
	struct job *j;
	struct mcp_stat srv = { 0 }, s;

	while ((j = LIST_FIRST(&p->jobs)) != NULL)
		job_cancel(j, NULL);
	while (p->own && mcp_next(0, srv.id, &srv) == 0)
		if (mcp_walk(srv.id, p->thread, &s) == 0)
			mcp_session_ctl(s.session, "close", 5);
	mlog(MLOG_INFO, "serve: the client of thread %s left", p->thread);
	LIST_REMOVE(p, link);
	if (LIST_EMPTY(&serve_peers))
		mcp_observe(NULL);
	scope_free(p);
	free(p);
}
