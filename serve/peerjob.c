/*
 * peerjob.c - a client request of a serve peer that waits on calls of
 * the servers (peer.h's struct job): a listing of every server the
 * client sees, merged for it (route.c) or routing a resources/read, or a
 * tools/call or prompts/get whose name two servers could give; a call in
 * the client's thread of a server (made on first use); and the answer
 * they make, sent to the client when the last of them is done.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <cjson/cJSON.h>

#include "jsent.h"
#include "mlog.h"
#include "peer.h"
#include "route.h"
#include "scope.h"

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


void job_free(struct job *j)
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
void job_cancel(struct job *j, const char *why)
{
	size_t i;

	for (i = 0; i < j->n; i++)
		mcp_listener_remove(&j->w[i].l);
	for (i = 0; j->kind == J_CALL && i < j->n; i++)
		mcp_call_cancel_why(j->w[i].c, why);
	job_free(j);
}

/* A job with room for n calls (at least the one it is routed to). */
struct job *job_new(struct serve_peer *p, size_t n, const char *id,
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
		peer_error(j->p, j->id, -32603, "out of memory", j->tag);
		job_free(j);
	} else if (j->route == R_SEARCH) {
		r = search_answer(all, j->read);
		cJSON_Delete(all);
		if (r)
			peer_result(j->p, j->id, r, j->tag);
		else
			peer_error(j->p, j->id, -32603, "out of memory",
				   j->tag);
		job_free(j);
	} else {
		r = cJSON_CreateObject();
		cJSON_AddItemToObject(r, mcp_list_key(j->what), all);
		peer_result(j->p, j->id, r, j->tag);
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
		peer_error(j->p, j->id, -32603, "no reply", j->tag);
		job_free(j);
		return;
	}
	n = b->len;
	while (n && (b->data[n - 1] == '\n' || b->data[n - 1] == '\r'))
		n--;
	m = malloc(n + strlen(j->id) + 48);
	if (!m) {
		peer_error(j->p, j->id, -32603, "out of memory", j->tag);
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

/* A J_LIST job of p for route: tools/list, prompts/list, resources/list,
 * resources/templates/list (what), or the listings a read or a call
 * needs to be routed. NULL (the client told) when out of memory. */
struct job *job_lists(struct serve_peer *p, const char *id, uint64_t tag,
		      enum mcp_list what, const char *method,
		      enum job_route route)
{
	size_t n = 0;
	struct mcp_stat srv = { 0 };
	struct job *j;

	while (mcp_next(0, srv.id, &srv) == 0)
		n++; /* room for a wait per listing per server */
	if (!(j = job_new(p, route == R_READ ? 2 * n : n, id, tag))) {
		peer_error(p, id, -32603, "out of memory", tag);
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
void job_ask(struct job *j)
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

void job_listing(struct serve_peer *p, const char *id, uint64_t tag,
		 enum mcp_list what, const char *method)
{
	struct job *j = job_lists(p, id, tag, what, method, R_LIST);

	if (j)
		job_ask(j);
}

/* Send the request text req (a call file's JSON) to the thread of srv:
 * side (prompts, resources) or a call of the thread (tools). */
void job_call(struct serve_peer *p, struct job *j,
	      const struct mcp_stat *srv, cJSON *req, int side)
{
	size_t tn = 0;
	/* numbers as the client sent them, an escaped NUL as \u0000 */
	char *t = jsent_print(req, 0, &tn);
	const char *why = NULL;
	struct mcp_stat s;
	mcp_call *c;
	mcp_req *q;
	int r;

	j->kind = J_CALL;
	r = t ? thread_of(p, srv, &s) : -ENOMEM;
	if (r == 0) {
		j->sess_id = s.id;
		r = mcp_req_parse(t, tn, NULL, side ? MCP_REQ_SIDE : 0,
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
		peer_error(p, j->id, r == -EINVAL ? -32602 : -32603, msg,
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
		peer_error(j->p, j->id, -32602, j->prompt ? "no such prompt "
			   "(names are SERVER__PROMPT)" : "no such tool (names "
			   "are SERVER__TOOL)", j->tag);
		job_free(j);
		return;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(in, "name");
	cJSON_AddStringToObject(in, "name", rest);
	job_call(j->p, j, &srv, j->read, j->prompt);
}

/* A resources/read whose server is known (j->srv_id, 0: none lists it). */
static void read_routed(struct job *j)
{
	struct mcp_stat srv;
	int there = j->srv_id && mcp_lookup(j->srv_id, MCP_SERVER, &srv) == 0;

	lists_drop(j);
	if (!there) {
		peer_error(j->p, j->id, -32002, "resource not found: no server "
			   "of the mount lists it or has a template of it",
			   j->tag);
		job_free(j);
		return;
	}
	job_call(j->p, j, &srv, j->read, 1);
}

