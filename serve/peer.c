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
 * mcpfs, as for `call`, and the client gets the final result. A server's question (elicitation,
 * sampling) waits under the thread's requests/, as for any call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <cjson/cJSON.h>

#include "buildconfig.h"
#include "mlog.h"
#include "peer.h"
#include "route.h"
#include "scope.h"

#define SEP ROUTE_SEP          /* SERVER__TOOL */

struct serve_peers serve_peers = LIST_HEAD_INITIALIZER(serve_peers);
static unsigned long serve_n;

/* {"jsonrpc":"2.0","id":ID,"result":R} with id the JSON text id. */
static void send_result(struct serve_peer *p, const char *id, cJSON *r,
			uint64_t tag)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Parse(id));
	cJSON_AddItemToObject(m, "result", r);
	peer_send_json(p, m, tag, 1);
	cJSON_Delete(m);
}

static void send_error(struct serve_peer *p, const char *id, int code,
		       const char *msg, uint64_t tag)
{
	cJSON *m = cJSON_CreateObject(), *e = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", id ? cJSON_Parse(id) : cJSON_CreateNull());
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	cJSON_AddItemToObject(m, "error", e);
	peer_send_json(p, m, tag, 1);
	cJSON_Delete(m);
}

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

/* p's thread of the server srv, made when it has none: 0 with its stat
 * in *s, or -errno. */
static int thread_of(struct serve_peer *p, const struct mcp_stat *srv,
		     struct mcp_stat *s)
{
	int r;

	if (mcp_walk(srv->id, p->thread, s) == 0)
		return 0;
	r = mcp_session_create(srv->server, p->thread, s);
	if (r == 0)
		mlog(MLOG_INFO, "serve: thread %s of server %s made for a "
		     "client", p->thread, srv->name);
	return r;
}

/* ---- jobs: a client request waiting on calls ---- */

static void job_free(struct job *j)
{
	size_t i;

	LIST_REMOVE(j, link);
	for (i = 0; i < j->n; i++) {
		mcp_listener_remove(&j->w[i].l);
		mcp_call_unref(j->w[i].c);
	}
	free(j->id);
	free(j->token);
	free(j->uri);
	cJSON_Delete(j->read);
	free(j);
}

/* j ends unanswered: its calls are cancelled (the servers are told why:
 * the client's reason, or NULL for mcpfs's), its listeners removed first
 * so that nothing replies. */
static void job_cancel(struct job *j, const char *why)
{
	size_t i;

	for (i = 0; i < j->n; i++)
		mcp_listener_remove(&j->w[i].l);
	for (i = 0; j->kind == J_CALL && i < j->n; i++)
		mcp_call_cancel_why(j->w[i].c, why);
	job_free(j);
}

/* A job with room for n calls (at least the one it is routed to). */
static struct job *job_new(struct serve_peer *p, size_t n, const char *id,
			   uint64_t tag)
{
	struct job *j = calloc(1, sizeof *j + (n ? n : 1) * sizeof j->w[0]);

	if (!j)
		return NULL;
	j->p = p;
	j->tag = tag;
	j->id = strdup(id);
	LIST_INSERT_HEAD(&p->jobs, j, link);
	return j;
}

static void job_done(struct job *j);

static void wait_done(struct mcp_listener *l, mcp_call *c)
{
	struct waitc *w = (struct waitc *)l;
	struct job *j = w->j;

	(void)c;
	if (--j->left == 0)
		job_done(j);
}

/* Wait on c (a reference, taken; a listing of what) as j's next call; a
 * done one counts at once. */
static void job_wait(struct job *j, mcp_call *c, uint64_t srv_id,
		     enum mcp_list what)
{
	struct waitc *w = &j->w[j->n++];

	w->j = j;
	w->c = c;
	w->srv_id = srv_id;
	w->what = what;
	w->l.done = wait_done;
	j->left++;
	if (!mcp_call_reply(c))
		mcp_call_listen(c, &w->l);
	else
		j->left--;
}

/* The array key of a listing reply (mcp_list's document), parsed. */
static cJSON *listing_items(mcp_call *c, enum mcp_list what, cJSON **doc)
{
	mcp_buf *b = mcp_call_reply(c);

	*doc = b ? cJSON_ParseWithLength(b->data, b->len) : NULL;
	return cJSON_GetObjectItemCaseSensitive(*doc, mcp_list_key(what));
}

static void read_routed(struct job *j);
static void call_routed(struct job *j, uint64_t srv_id, const char *rest);

static const enum route_kind route_kinds[] = {
	[MCP_TOOLS] = ROUTE_TOOLS, [MCP_PROMPTS] = ROUTE_PROMPTS,
	[MCP_RESOURCES] = ROUTE_RESOURCES, [MCP_TEMPLATES] = ROUTE_TEMPLATES,
	[MCP_SKILLS] = ROUTE_RESOURCES,
};

/* Every listing of j is in: one document for the client, or the route
 * its read or call waited for. */
static void list_done(struct job *j)
{
	struct route_src *src = calloc(j->n + 1, sizeof *src);
	cJSON **docs = calloc(j->n + 1, sizeof *docs), *all = NULL, *r;
	uint64_t *ids = calloc(j->n + 1, sizeof *ids), to = 0;
	const char *rest = NULL;
	size_t i, ns = 0;
	int k;

	for (i = 0; src && docs && ids && i < j->n; i++) {
		struct waitc *w = &j->w[i];
		struct mcp_stat srv;
		cJSON *items;

		if (mcp_lookup(w->srv_id, MCP_SERVER, &srv) < 0)
			continue;
		items = listing_items(w->c, w->what, &docs[i]);
		if (!cJSON_IsArray(items)) {
			mlog(MLOG_INFO, "serve: %s of server %s left out: it "
			     "failed", mcp_list_key(w->what), srv.name);
			continue;
		}
		if (!ns || ids[ns - 1] != w->srv_id) {
			ids[ns] = w->srv_id;
			src[ns++].server = srv.name;
		}
		if (w->what == MCP_TEMPLATES && j->route == R_READ)
			src[ns - 1].tmpl = items;
		else
			src[ns - 1].items = items;
	}
	if (src && docs && ids) {
		if (j->route == R_READ) {
			k = route_uri(src, ns, j->uri);
			to = k < 0 ? 0 : ids[k];
		} else if (j->route == R_CALL) {
			k = route_name(src, ns, j->uri, &rest);
			to = k < 0 ? 0 : ids[k];
		} else { /* R_LIST, R_SEARCH */
			all = route_merge(src, ns, route_kinds[j->what]);
		}
	}
	for (i = 0; docs && i < j->n; i++)
		cJSON_Delete(docs[i]);
	free(src);
	free(docs);
	free(ids);
	if (j->route == R_READ) {
		j->srv_id = to;
		read_routed(j);
	} else if (j->route == R_CALL) {
		call_routed(j, to, rest);
	} else if (!all) {
		send_error(j->p, j->id, -32603, "out of memory", j->tag);
		job_free(j);
	} else if (j->route == R_SEARCH) {
		r = search_answer(all, j->read);
		cJSON_Delete(all);
		if (r)
			send_result(j->p, j->id, r, j->tag);
		else
			send_error(j->p, j->id, -32603, "out of memory",
				   j->tag);
		job_free(j);
	} else {
		r = cJSON_CreateObject();
		cJSON_AddItemToObject(r, mcp_list_key(j->what), all);
		send_result(j->p, j->id, r, j->tag);
		job_free(j);
	}
}

/* A call of j is done: its reply as the client's result or error. */
static void call_done(struct job *j)
{
	mcp_buf *b = mcp_call_reply(j->w[0].c);
	size_t n, k;
	char *m;

	if (!b || b->len < 2) {
		send_error(j->p, j->id, -32603, "no reply", j->tag);
		job_free(j);
		return;
	}
	n = b->len;
	while (n && (b->data[n - 1] == '\n' || b->data[n - 1] == '\r'))
		n--;
	m = malloc(n + strlen(j->id) + 48);
	if (!m) {
		send_error(j->p, j->id, -32603, "out of memory", j->tag);
		job_free(j);
		return;
	}
	/* mcpfs's own errors are {"error": E}: {"jsonrpc", "id", "error": E};
	 * anything else is the result as the server sent it */
	if (mcp_call_failed(j->w[0].c))
		k = (size_t)sprintf(m, "{\"jsonrpc\":\"2.0\",\"id\":%s,%.*s",
				    j->id, (int)(n - 1), b->data + 1);
	else
		k = (size_t)sprintf(m, "{\"jsonrpc\":\"2.0\",\"id\":%s,"
				    "\"result\":%.*s}", j->id, (int)n,
				    b->data);
	peer_send_text(j->p, m, k, j->tag, 1);
	free(m);
	job_free(j);
}

static void job_done(struct job *j)
{
	if (j->kind == J_LIST)
		list_done(j);
	else
		call_done(j);
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
	send_result(p, id, r, tag);
}

/* A J_LIST job of p for route: tools/list, prompts/list, resources/list,
 * resources/templates/list (what), or the listings a read or a call
 * needs to be routed. NULL (the client told) when out of memory. */
static struct job *lists_new(struct serve_peer *p, const char *id,
			     uint64_t tag, enum mcp_list what,
			     const char *method, enum job_route route)
{
	size_t n = 0;
	struct mcp_stat srv = { 0 };
	struct job *j;

	while (mcp_next(0, srv.id, &srv) == 0)
		n++; /* room for a wait per listing per server */
	if (!(j = job_new(p, route == R_READ ? 2 * n : n, id, tag))) {
		send_error(p, id, -32603, "out of memory", tag);
		return NULL;
	}
	j->kind = J_LIST;
	j->route = route;
	j->what = what;
	j->method = method;
	return j;
}

/* Ask for j's listings of every server (a read: its resources and its
 * templates); j is done when all are in, maybe at once. */
static void lists_ask(struct job *j)
{
	struct mcp_stat srv = { 0 };
	size_t room = 0;
	mcp_call *c;

	while (mcp_next(0, srv.id, &srv) == 0)
		room += j->route == R_READ ? 2 : 1;
	j->left = 1; /* held until every listing is asked for */
	srv.id = 0;
	while (j->n < room && mcp_next(0, srv.id, &srv) == 0) {
		if (!scope_sees(j->p, srv.name))
			continue;
		if (mcp_list(srv.server, NULL, j->what, &c) == 0)
			job_wait(j, c, srv.id, j->what);
		if (j->route == R_READ && j->n < room &&
		    mcp_list(srv.server, NULL, MCP_TEMPLATES, &c) == 0)
			job_wait(j, c, srv.id, MCP_TEMPLATES);
	}
	if (--j->left == 0)
		job_done(j);
}

static void start_lists(struct serve_peer *p, const char *id, uint64_t tag,
			enum mcp_list what, const char *method)
{
	struct job *j = lists_new(p, id, tag, what, method, R_LIST);

	if (j)
		lists_ask(j);
}

/* Send the request text req (a call file's JSON) to the thread of srv:
 * side (prompts, resources) or a call of the thread (tools). */
static void start_call(struct serve_peer *p, struct job *j,
		       const struct mcp_stat *srv, cJSON *req, int side)
{
	char *t = cJSON_PrintUnformatted(req);
	const char *why = NULL;
	struct mcp_stat s;
	mcp_call *c;
	mcp_req *q;
	int r;

	j->kind = J_CALL;
	r = t ? thread_of(p, srv, &s) : -ENOMEM;
	if (r == 0) {
		j->sess_id = s.id;
		r = mcp_req_parse(t, strlen(t), NULL, side ? MCP_REQ_SIDE : 0,
				  &q, &why);
		if (r == 0)
			r = mcp_call_start(srv->server, s.session, q, &c);
	}
	free(t);
	if (r < 0) {
		char msg[200];

		snprintf(msg, sizeof msg, "%s", why ? why : r == -EAGAIN
			 ? "too many threads (--max-sessions)"
			 : strerror(-r));
		send_error(p, j->id, r == -EINVAL ? -32602 : -32603, msg,
			   j->tag);
		job_free(j);
		return;
	}
	j->n = 0;
	j->left = 0;
	job_wait(j, c, srv->id, MCP_NLISTS);
	if (j->left == 0)
		job_done(j);
}

/* Forget j's listings: it is routed. */
static void lists_drop(struct job *j)
{
	size_t i;

	for (i = 0; i < j->n; i++) {
		mcp_listener_remove(&j->w[i].l);
		mcp_call_unref(j->w[i].c);
	}
	j->n = 0;
}

/* j's tools/call or prompts/get (its request in j->read, its name to be
 * set) goes to the server srv_id (0: none has it) as its name rest. */
static void call_routed(struct job *j, uint64_t srv_id, const char *rest)
{
	cJSON *in = j->prompt ? cJSON_GetObjectItemCaseSensitive(j->read,
								 "params")
			      : j->read;
	struct mcp_stat srv;

	lists_drop(j);
	if (!srv_id || !rest || mcp_lookup(srv_id, MCP_SERVER, &srv) < 0) {
		send_error(j->p, j->id, -32602, j->prompt ? "no such prompt "
			   "(names are SERVER__PROMPT)" : "no such tool (names "
			   "are SERVER__TOOL)", j->tag);
		job_free(j);
		return;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(in, "name");
	cJSON_AddStringToObject(in, "name", rest);
	start_call(j->p, j, &srv, j->read, j->prompt);
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
		send_error(p, id, -32602, prompt ? "no such prompt (names are "
			   "SERVER__PROMPT)" : "no such tool (names are "
			   "SERVER__TOOL)", tag);
		return;
	}
	/* a name two servers could give is routed by their listings */
	j = k == 1 ? job_new(p, 1, id, tag)
		   : lists_new(p, id, tag, prompt ? MCP_PROMPTS : MCP_TOOLS,
			       prompt ? "prompts/list" : "tools/list", R_CALL);
	if (!j) {
		if (k == 1)
			send_error(p, id, -32603, "out of memory", tag);
		return;
	}
	if (tok)
		j->token = cJSON_PrintUnformatted(tok);
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
		start_call(p, j, &srv, req, prompt);
		cJSON_Delete(req);
		return;
	}
	j->prompt = prompt;
	j->read = req;
	j->uri = strdup(name->valuestring);
	if (!j->uri) {
		send_error(p, id, -32603, "out of memory", tag);
		job_free(j);
		return;
	}
	lists_ask(j);
}

/* A resources/read whose server is known (j->srv_id, 0: none lists it). */
static void read_routed(struct job *j)
{
	struct mcp_stat srv;
	int there = j->srv_id && mcp_lookup(j->srv_id, MCP_SERVER, &srv) == 0;

	lists_drop(j);
	if (!there) {
		send_error(j->p, j->id, -32002, "resource not found: no server "
			   "of the mount lists it or has a template of it",
			   j->tag);
		job_free(j);
		return;
	}
	start_call(j->p, j, &srv, j->read, 1);
}

static void resources_read(struct serve_peer *p, const char *id,
			   cJSON *params, uint64_t tag)
{
	cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
	struct job *j;

	if (!cJSON_IsString(uri)) {
		send_error(p, id, -32602, "resources/read needs a uri", tag);
		return;
	}
	if (!(j = lists_new(p, id, tag, MCP_RESOURCES, "resources/list",
			    R_READ)))
		return;
	j->read = cJSON_CreateObject();
	j->uri = strdup(uri->valuestring);
	cJSON_AddStringToObject(j->read, "method", "resources/read");
	cJSON_AddItemToObject(j->read, "params", cJSON_Duplicate(params, 1));
	if (!j->uri || !j->read) {
		send_error(p, id, -32603, "out of memory", tag);
		job_free(j);
		return;
	}
	lists_ask(j);
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
			send_error(p, id, why ? -32602 : -32603,
				   why ? why : "out of memory", tag);
		cJSON_Delete(in);
		return;
	}
	if (!(j = lists_new(p, id, tag, MCP_TOOLS, "tools/list", R_SEARCH)))
		return;
	if (!(j->read = cJSON_Duplicate(params, 1))) {
		send_error(p, id, -32603, "out of memory", tag);
		job_free(j);
		return;
	}
	lists_ask(j);
}

/* The client's notifications/cancelled: the server is told its reason. */
static void cancelled(struct serve_peer *p, cJSON *params)
{
	cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	cJSON *why = cJSON_GetObjectItemCaseSensitive(params, "reason");
	char *id = rid ? cJSON_PrintUnformatted(rid) : NULL;
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
	send_result(p, id, cJSON_CreateObject(), tag);
}

static void tools_list(struct serve_peer *p, const char *id, cJSON *params,
		       uint64_t tag)
{
	if (scope_search(p))
		send_result(p, id, search_listing(), tag);
	else
		start_lists(p, id, tag, MCP_TOOLS, "tools/list");
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

int serve_peer_input(struct serve_peer *p, const char *json, size_t len,
		     uint64_t tag)
{
	cJSON *m = cJSON_ParseWithLength(json, len), *id, *method, *params;
	const struct method *k;
	char *ids = NULL;
	const char *meth;
	int r = 1;

	method = cJSON_GetObjectItemCaseSensitive(m, "method");
	id = cJSON_GetObjectItemCaseSensitive(m, "id");
	params = cJSON_GetObjectItemCaseSensitive(m, "params");
	if (!cJSON_IsObject(m)) {
		send_error(p, NULL, -32700, "parse error: not a JSON-RPC "
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
	ids = cJSON_PrintUnformatted(id);
	if (!ids) {
		cJSON_Delete(m);
		return -ENOMEM;
	}
	for (k = methods; k->name && strcmp(meth, k->name); k++)
		;
	if (k->answer)
		k->answer(p, ids, params, tag);
	else if (k->name)
		start_lists(p, ids, tag, k->list, k->name);
	else
		send_error(p, ids, -32601, "method not found", tag);
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
	char *t = tok ? cJSON_PrintUnformatted(tok) : NULL;
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
