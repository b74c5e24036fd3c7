/*
 * peer.c - one MCP client of the mount (spec 14): the mount spoken to as
 * one MCP server, on the session core (sessions/sessions.h).
 *
 * The client sees every configured server's tools as SERVER__TOOL and its
 * prompts as SERVER__PROMPT (listings: the server-level ones, cached, with
 * the tool policy applied), resources by their own URIs (a read goes to
 * the first server in the config that lists the URI). Its tool calls run
 * in a thread of each server, made on first use: the thread named by
 * `mcpfs serve --thread NAME`, else serve-N, this client's own, closed
 * when it leaves. A call there is a call of that thread's `call` file
 * (result/, status, events), so a shell and the client share the session.
 * The client's progress token, cancellation and the servers' log messages
 * and list_changed pass through. A server's question (elicitation,
 * sampling) waits under the thread's requests/, as for any call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <cjson/cJSON.h>

#include "buildconfig.h"
#include "serve.h"
#include "mlog.h"
#include "sessions.h"

#define SEP "__"               /* SERVER__TOOL */

enum job_kind { J_LIST, J_CALL };

struct job;
struct waitc {
	struct mcp_listener l;       /* first: the listener's address */
	struct job *j;
	mcp_call *c;
	uint64_t srv_id;
};

struct job {
	LIST_ENTRY(job) link;
	struct serve_peer *p;
	uint64_t tag;
	char *id;                    /* the client's id, as JSON text */
	char *token;                 /* its progressToken as JSON text */
	uint64_t sess_id;            /* J_CALL: the thread it runs in */
	uint64_t srv_id;             /* a read: the server that lists it */
	enum job_kind kind;
	enum mcp_list what;          /* J_LIST: which */
	const char *method;          /* J_LIST: the client's method */
	char *uri;                   /* J_LIST for a read: the URI, or NULL */
	cJSON *read;                 /* ... the read request */
	size_t n, left;
	struct waitc w[];
};

#define MAX_ASKED 64              /* questions forwarded, unanswered */

struct serve_peer {
	LIST_ENTRY(serve_peer) link;
	struct serve_out *out;
	char thread[64];
	int own;                     /* serve-N: closed when the client goes */
	int elicit, sample;          /* the client's capabilities */
	LIST_HEAD(, job) jobs;
	uint64_t asked[MAX_ASKED];   /* ids of questions sent to the client */
	uint64_t asked_tag[MAX_ASKED]; /* ... with the tag they went with */
};

static LIST_HEAD(, serve_peer) peers = LIST_HEAD_INITIALIZER(peers);
static unsigned long serve_n;

static void send_text(struct serve_peer *p, const char *t, size_t n,
		      uint64_t tag, int last)
{
	p->out->send(p->out, t, n, tag, last);
}

static void send_json(struct serve_peer *p, cJSON *m, uint64_t tag, int last)
{
	char *t = m ? cJSON_PrintUnformatted(m) : NULL;

	if (t)
		send_text(p, t, strlen(t), tag, last);
	else
		mlog(MLOG_WARN, "serve: a message to a client was lost: out "
		     "of memory");
	free(t);
}

/* {"jsonrpc":"2.0","id":ID,"result":R} with id the JSON text id. */
static void send_result(struct serve_peer *p, const char *id, cJSON *r,
			uint64_t tag)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Parse(id));
	cJSON_AddItemToObject(m, "result", r);
	send_json(p, m, tag, 1);
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
	send_json(p, m, tag, 1);
	cJSON_Delete(m);
}

/* ---- servers and threads ---- */

/* The server whose name + "__" begins name (the longest such): 0 with
 * its stat in *srv and in *rest what follows; -ENOENT if none. */
static int split_name(const char *name, const char **rest,
		      struct mcp_stat *srv)
{
	struct mcp_stat st = { 0 };
	size_t n, bn = 0;

	while (mcp_next(0, st.id, &st) == 0) {
		n = strlen(st.name);
		if (n > bn && !strncmp(name, st.name, n) &&
		    !strncmp(name + n, SEP, 2) && name[n + 2]) {
			*srv = st;
			bn = n;
		}
	}
	if (!bn)
		return -ENOENT;
	*rest = name + bn + 2;
	return 0;
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

/* j ends unanswered: its calls are cancelled (the servers are told), its
 * listeners removed first so that nothing replies. */
static void job_cancel(struct job *j)
{
	size_t i;

	for (i = 0; i < j->n; i++)
		mcp_listener_remove(&j->w[i].l);
	for (i = 0; j->kind == J_CALL && i < j->n; i++)
		mcp_call_cancel(j->w[i].c);
	job_free(j);
}

static struct job *job_new(struct serve_peer *p, size_t n, const char *id,
			   uint64_t tag)
{
	struct job *j = calloc(1, sizeof *j + n * sizeof j->w[0]);

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

/* Wait on c (a reference, taken) as j's next call; a done one counts at
 * once. */
static void job_wait(struct job *j, mcp_call *c, uint64_t srv_id)
{
	struct waitc *w = &j->w[j->n++];

	w->j = j;
	w->c = c;
	w->srv_id = srv_id;
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

/* Every listing of j is in: one document for the client. */
static void list_done(struct job *j)
{
	cJSON *all = cJSON_CreateArray(), *r, *seen = cJSON_CreateObject();
	size_t i;

	for (i = 0; i < j->n; i++) {
		struct mcp_stat srv;
		int there = mcp_lookup(j->w[i].srv_id, MCP_SERVER, &srv) == 0;
		cJSON *doc, *items = listing_items(j->w[i].c, j->what, &doc);
		cJSON *it, *nx;

		if (!there || !cJSON_IsArray(items)) {
			if (there)
				mlog(MLOG_INFO, "serve: %s of server %s left "
				     "out: it failed", j->method, srv.name);
			cJSON_Delete(doc);
			continue;
		}
		for (it = items->child; it; it = nx) {
			cJSON *name = cJSON_GetObjectItemCaseSensitive(it,
				j->what == MCP_RESOURCES ? "uri" : "name");
			char *full;

			nx = it->next;
			if (!cJSON_IsString(name))
				continue;
			if (j->what == MCP_RESOURCES) {
				/* the first server listing a URI serves it */
				if (cJSON_GetObjectItemCaseSensitive(
					    seen, name->valuestring))
					continue;
				cJSON_AddNumberToObject(seen, name->valuestring,
							(double)j->w[i].srv_id);
			} else if (j->what != MCP_TEMPLATES) {
				if (asprintf(&full, "%s" SEP "%s",
					     srv.name,
					     name->valuestring) < 0)
					continue;
				cJSON_SetValuestring(name, full);
				free(full);
			}
			cJSON_AddItemToArray(all,
				cJSON_DetachItemViaPointer(items, it));
		}
		cJSON_Delete(doc);
	}
	if (j->uri) { /* a read waited for the routes */
		cJSON *to = cJSON_GetObjectItemCaseSensitive(seen, j->uri);

		cJSON_Delete(all);
		j->srv_id = to ? (uint64_t)to->valuedouble : 0;
		cJSON_Delete(seen);
		read_routed(j);
		return;
	}
	cJSON_Delete(seen);
	r = cJSON_CreateObject();
	cJSON_AddItemToObject(r, mcp_list_key(j->what), all);
	send_result(j->p, j->id, r, j->tag);
	job_free(j);
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
	if (!strncmp(b->data, "{\"error\":", 9))
		k = (size_t)sprintf(m, "{\"jsonrpc\":\"2.0\",\"id\":%s,%.*s",
				    j->id, (int)(n - 1), b->data + 1);
	else
		k = (size_t)sprintf(m, "{\"jsonrpc\":\"2.0\",\"id\":%s,"
				    "\"result\":%.*s}", j->id, (int)n,
				    b->data);
	send_text(j->p, m, k, j->tag, 1);
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

static const char *const versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
};

static void initialize(struct serve_peer *p, const char *id, cJSON *params,
		       uint64_t tag)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	const char *ver = versions[0];
	cJSON *r = cJSON_CreateObject(), *caps, *c, *info;
	size_t i;

	for (i = 0; cJSON_IsString(v) && i < sizeof versions / sizeof *versions;
	     i++)
		if (!strcmp(v->valuestring, versions[i]))
			ver = versions[i];
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
	cJSON_AddStringToObject(r, "instructions",
		"The tools of every server of an mcpfs mount, as "
		"SERVER__TOOL. Calls run in the thread " "directories of the "
		"mount, which a shell can read and call into.");
	mlog(MLOG_INFO, "serve: a client (protocol %s) in thread %s", ver,
	     p->thread);
	send_result(p, id, r, tag);
}

/* tools/list, prompts/list, resources/list, resources/templates/list; or
 * (uri set) the routes a resources/read needs. */
static void start_lists(struct serve_peer *p, const char *id, uint64_t tag,
			enum mcp_list what, const char *method, const char *uri,
			cJSON *read)
{
	size_t n = 0;
	struct mcp_stat srv = { 0 };
	struct job *j;

	while (mcp_next(0, srv.id, &srv) == 0)
		n++; /* one wait per server (job_new: room for n) */
	if (!(j = job_new(p, n, id, tag))) {
		cJSON_Delete(read);
		send_error(p, id, -32603, "out of memory", tag);
		return;
	}
	j->kind = J_LIST;
	j->what = what;
	j->method = method;
	j->uri = uri ? strdup(uri) : NULL;
	j->read = read;
	j->left = 1; /* held until every listing is asked for */
	srv.id = 0;
	while (j->n < n && mcp_next(0, srv.id, &srv) == 0) {
		mcp_call *c;

		if (mcp_list(srv.server, NULL, what, &c) == 0)
			job_wait(j, c, srv.id);
	}
	if (--j->left == 0)
		job_done(j);
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
	job_wait(j, c, srv->id);
	if (j->left == 0)
		job_done(j);
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

	if (!cJSON_IsString(name) ||
	    split_name(name->valuestring, &rest, &srv) < 0) {
		send_error(p, id, -32602, prompt ? "no such prompt (names are "
			   "SERVER__PROMPT)" : "no such tool (names are "
			   "SERVER__TOOL)", tag);
		return;
	}
	if (!(j = job_new(p, 1, id, tag))) {
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
	start_call(p, j, &srv, req, prompt);
	cJSON_Delete(req);
}

/* A resources/read whose server is known (j->srv_id, 0: none lists it). */
static void read_routed(struct job *j)
{
	struct mcp_stat srv;
	int there = j->srv_id && mcp_lookup(j->srv_id, MCP_SERVER, &srv) == 0;
	size_t i;

	for (i = 0; i < j->n; i++) {
		mcp_listener_remove(&j->w[i].l);
		mcp_call_unref(j->w[i].c);
	}
	j->n = 0;
	if (!there) {
		send_error(j->p, j->id, -32002, "resource not found: no server "
			   "of the mount lists it", j->tag);
		job_free(j);
		return;
	}
	start_call(j->p, j, &srv, j->read, 1);
}

static void cancelled(struct serve_peer *p, cJSON *params)
{
	cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	char *id = rid ? cJSON_PrintUnformatted(rid) : NULL;
	struct job *j, *nx;

	for (j = LIST_FIRST(&p->jobs); id && j; j = nx) {
		nx = LIST_NEXT(j, link);
		if (strcmp(j->id, id))
			continue;
		job_cancel(j); /* no reply to it (MCP cancellation) */
	}
	free(id);
}

/* ---- a server's questions, to a client that can answer them ---- */

#define ASK_ID "mcpfs-ask-"

static int asked_slot(struct serve_peer *p, uint64_t id)
{
	int i;

	for (i = 0; i < MAX_ASKED; i++)
		if (p->asked[i] == id)
			return i;
	return -1;
}

/* The client's answer m to question ASK_ID N: the question's answer (it
 * is checked as a shell's would be; one that does not fit leaves the
 * question for the shell, logged). An error answer leaves it too. */
static void answered(struct serve_peer *p, cJSON *m)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
	cJSON *res = cJSON_GetObjectItemCaseSensitive(m, "result");
	struct mcp_stat qs;
	uint64_t qid;
	mcp_ask *q;
	char *t;
	int k;

	if (!cJSON_IsString(id) || strncmp(id->valuestring, ASK_ID, 10))
		return;
	qid = strtoull(id->valuestring + 10, NULL, 10);
	if ((k = asked_slot(p, qid)) < 0 ||
	    mcp_lookup(qid, MCP_QUESTION, &qs) < 0)
		return;
	q = qs.ask;
	p->asked[k] = 0;
	if (!res) { /* an error: the question stays, saying so */
		cJSON *e = cJSON_GetObjectItemCaseSensitive(m, "error");
		cJSON *em = cJSON_GetObjectItemCaseSensitive(e, "message");
		char why[400];

		snprintf(why, sizeof why, "the MCP client of thread %s answered "
			 "with an error: %.200s", p->thread, cJSON_IsString(em)
			 ? em->valuestring : "(no message)");
		mcp_ask_answer(q, NULL, 0, why);
		return;
	}
	t = cJSON_PrintUnformatted(res);
	if (t && mcp_ask_answer(q, t, strlen(t), NULL) < 0)
		mlog(MLOG_INFO, "serve: the client's answer to question %s of "
		     "thread %s does not fit it: it stays in requests/",
		     qs.name, p->thread);
	free(t);
}

/* A question event of the thread s (an "mcpfs/request" line): a question
 * that ends otherwise than by its client's answer (the shell answered, it
 * expired, the server went) is withdrawn from the client that has it. The
 * event comes while the question is still there. */
static void question(const struct mcp_stat *s, cJSON *params)
{
	cJSON *n = cJSON_GetObjectItemCaseSensitive(params, "request");
	cJSON *st = cJSON_GetObjectItemCaseSensitive(params, "state");
	struct mcp_stat q;
	struct serve_peer *p;
	char msg[160];
	int k;

	if (!cJSON_IsNumber(n) || !cJSON_IsString(st) ||
	    !strcmp(st->valuestring, "open"))
		return;
	snprintf(msg, sizeof msg, "%lu", (unsigned long)n->valuedouble);
	if (mcp_walk(s->id, msg, &q) < 0)
		return;
	LIST_FOREACH(p, &peers, link) {
		if ((k = asked_slot(p, q.id)) < 0)
			continue;
		snprintf(msg, sizeof msg, "{\"jsonrpc\":\"2.0\",\"method\":"
			 "\"notifications/cancelled\",\"params\":{\"requestId\""
			 ":\"" ASK_ID "%llu\"}}", (unsigned long long)p->asked[k]);
		send_text(p, msg, strlen(msg), p->asked_tag[k], 0);
		p->asked[k] = 0;
	}
}

/* A question q just opened, with the server's own params: to a client of
 * its thread that declared the capability (one gets it), on the stream of
 * its call there; else it waits in requests/ as for any call. */
static void asked(const struct mcp_stat *q, const char *params, size_t len)
{
	struct mcp_stat s = { .name = "" };
	mcp_buf *b = mcp_doc(MCP_DOC_QUESTION, q->ask, 0);
	cJSON *body = b ? cJSON_ParseWithLength(b->data, b->len) : NULL;
	cJSON *x = cJSON_GetObjectItemCaseSensitive(body, "method");
	char *method = cJSON_IsString(x) ? strdup(x->valuestring) : NULL;
	uint64_t sid = q->thread_id;
	struct serve_peer *p;
	struct job *j;
	char *m;
	int k;

	mcp_lookup(sid, MCP_THREAD, &s);
	mcp_buf_unref(b);
	cJSON_Delete(body);
	LIST_FOREACH(p, &peers, link) {
		uint64_t tag = 0;

		if (!method || !p->out->asks ||
		    strcmp(p->thread, s.name) ||
		    !((p->elicit && !strcmp(method, "elicitation/create")) ||
		      (p->sample && !strcmp(method,
					    "sampling/createMessage"))) ||
		    (k = asked_slot(p, 0)) < 0)
			continue;
		LIST_FOREACH(j, &p->jobs, link) /* the call it belongs to */
			if (j->kind == J_CALL && j->sess_id == sid) {
				tag = j->tag;
				break;
			}
		m = malloc(len + strlen(method) + 96);
		if (!m)
			break;
		k = asked_slot(p, 0);
		p->asked[k] = q->id;
		p->asked_tag[k] = tag;
		sprintf(m, "{\"jsonrpc\":\"2.0\",\"id\":\"" ASK_ID "%llu\","
			"\"method\":\"%s\",\"params\":%.*s}",
			(unsigned long long)q->id, method, (int)len,
			params);
		mlog(MLOG_INFO, "serve: question %s of thread %s sent to its "
		     "client", q->name, p->thread);
		send_text(p, m, strlen(m), tag, 0);
		free(m);
		break;
	}
	free(method);
}

int serve_peer_input(struct serve_peer *p, const char *json, size_t len,
		     uint64_t tag)
{
	cJSON *m = cJSON_ParseWithLength(json, len), *id, *method, *params;
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
		answered(p, m);
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
	if (!strcmp(meth, "initialize"))
		initialize(p, ids, params, tag);
	else if (!strcmp(meth, "ping") || !strcmp(meth, "logging/setLevel"))
		send_result(p, ids, cJSON_CreateObject(), tag);
	else if (!strcmp(meth, "tools/list"))
		start_lists(p, ids, tag, MCP_TOOLS, "tools/list", NULL, NULL);
	else if (!strcmp(meth, "prompts/list"))
		start_lists(p, ids, tag, MCP_PROMPTS, "prompts/list", NULL,
			    NULL);
	else if (!strcmp(meth, "resources/list"))
		start_lists(p, ids, tag, MCP_RESOURCES, "resources/list", NULL,
			    NULL);
	else if (!strcmp(meth, "resources/templates/list"))
		start_lists(p, ids, tag, MCP_TEMPLATES,
			    "resources/templates/list", NULL, NULL);
	else if (!strcmp(meth, "tools/call"))
		tools_call(p, ids, params, tag, 0);
	else if (!strcmp(meth, "prompts/get"))
		tools_call(p, ids, params, tag, 1);
	else if (!strcmp(meth, "resources/read")) {
		cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
		cJSON *req = cJSON_CreateObject();

		cJSON_AddStringToObject(req, "method", "resources/read");
		cJSON_AddItemToObject(req, "params", cJSON_Duplicate(params, 1));
		if (cJSON_IsString(uri))
			start_lists(p, ids, tag, MCP_RESOURCES, "resources/list",
				    uri->valuestring, req);
		else {
			cJSON_Delete(req);
			send_error(p, ids, -32602, "resources/read needs a uri",
				   tag);
		}
	} else
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
		question(s, params);
		free(t);
		cJSON_Delete(m);
		return;
	}
	LIST_FOREACH(p, &peers, link) {
		int mine = !strcmp(p->thread, s->name);

		if (!strcmp(meth, "notifications/progress")) {
			LIST_FOREACH(j, &p->jobs, link)
				if (j->sess_id == sid && j->token && t &&
				    !strcmp(j->token, t))
					send_text(p, json, len, j->tag, 0);
		} else if (strstr(meth, "/list_changed") ||
			   (mine && !strcmp(meth, "notifications/message"))) {
			send_text(p, json, len, 0, 0);
		}
	}
	free(t);
	cJSON_Delete(m);
}

/* ---- peers ---- */

static const struct mcp_observer observer = { note, asked };

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
	if (LIST_EMPTY(&peers))
		mcp_observe(&observer);
	LIST_INSERT_HEAD(&peers, p, link);
	return p;
}

void serve_peer_drop(struct serve_peer *p, uint64_t tag)
{
	struct job *j, *nx;

	for (j = LIST_FIRST(&p->jobs); j; j = nx) {
		nx = LIST_NEXT(j, link);
		if (j->tag != tag)
			continue;
		job_cancel(j);
	}
}

void serve_peer_end(struct serve_peer *p)
{
	struct job *j;
	struct mcp_stat srv = { 0 }, s;

	while ((j = LIST_FIRST(&p->jobs)) != NULL)
		job_cancel(j);
	while (p->own && mcp_next(0, srv.id, &srv) == 0)
		if (mcp_walk(srv.id, p->thread, &s) == 0)
			mcp_session_ctl(s.session, "close", 5);
	mlog(MLOG_INFO, "serve: the client of thread %s left", p->thread);
	LIST_REMOVE(p, link);
	if (LIST_EMPTY(&peers))
		mcp_observe(NULL);
	free(p);
}
