/*
 * ask.c - the server's questions to the user (MCP elicitation/create and
 * sampling/createMessage) while they wait for an answer: the files
 * <thread>/requests/<id> of fs/ are these.
 *
 * A request the session declared a capability for (ask_caps, set at
 * initialize) and that is well formed (askcheck.c) becomes a question:
 * numbered per thread from 1 (never reused in the thread's life), with a
 * line in events, and a timer of the server's call timeout. It ends in
 * exactly one of four ways:
 *   answered  a written answer passed the checks; the result (or, for a
 *             declined sampling request, the error) is sent as the JSON-RPC
 *             response through the session's send path (session_answer);
 *   expired   the timer fired: an elicitation is answered {"action":
 *             "cancel"}, a sampling request with an error;
 *   dropped   the transport went away (lost, restart, close): nothing is
 *             sent, as there is no one left to send it to;
 *   withdrawn the server cancelled its request (notifications/cancelled
 *             with its id): nothing is sent, as MCP cancellation says.
 * Each writes a line in events. An answer that does not fit is refused
 * with -EINVAL and the reason, which the log and the question's file then
 * show; the question stays. A one-shot session has no directory, so no one
 * can answer: its questions are answered at once (cancel, or an error).
 *
 * The call that made the server ask keeps running on its own timer: a
 * question neither stops nor extends it.
 *
 * Ownership: a session owns its questions (s->asks, a <sys/queue.h>
 * LIST in the order they came); a question is freed
 * from its timer's close callback, after it left the session and the table
 * of ids, so fs/ finds it only while it is open.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "askcheck.h"
#include "index.h"
#include "internal.h"
#include "jscan.h"
#include "jsent.h"

#define ASKS_MAX 64 /* open questions per thread */
#define ASK_NUM_MAX 1000000 /* numbers fit the 20-bit index of fs/ inodes */

struct mcp_ask {
	uint64_t id;
	unsigned num;             /* per thread, from 1 */
	char name[12];            /* num in decimal: the file name */
	mcp_session *s;
	enum ask_kind kind;
	char method[32];
	cJSON *rpc_id;            /* the question's JSON-RPC id */
	cJSON *params;
	cJSON *shown;              /* params as sent (jsent.h), or NULL */
	double created, timeout;  /* timeout 0: none */
	char *refused;            /* why the last answer was refused */
	ask_done_fn done;         /* MRTR: where the answer goes, or NULL */
	void *ctx;                /* ... given back to it */
	uv_timer_t timer;
	LIST_ENTRY(mcp_ask) link; /* the session's questions */
};

static struct idtab ask_ids; /* open questions by object id */

/* The answer (res or err, taken) to the request id: to the server, or to
 * the MRTR sink of an input request (id is then its key). */
static void deliver(mcp_session *s, cJSON *id, ask_done_fn done, void *ctx,
		    cJSON *res, cJSON *err)
{
	if (done)
		done(ctx, cJSON_IsString(id) ? id->valuestring : "", res, err);
	else
		session_answer(s, id, res, err);
}

unsigned ask_caps_of(const struct mcp_server_conf *conf)
{
	return (conf->elicitation ? ASK_CAP_ELICIT : 0) |
	       (conf->sampling ? ASK_CAP_SAMPLING : 0);
}

static const char *thread_of(const mcp_session *s)
{
	return s->oneshot ? "(one-shot)" : s->name;
}

static double timeout_of(const mcp_session *s)
{
	const struct mcp_server_conf *conf = s->srv->conf;

	return conf->timeout >= 0 ? conf->timeout : process.opts.call_timeout;
}

static cJSON *error_of(int code, const char *msg)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	return e;
}

static cJSON *cancel_result(void)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddStringToObject(r, "action", "cancel");
	return r;
}

static const char *str_of(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* One line in events: {"jsonrpc": "2.0", "method": "mcpfs/request",
 * "params": {"request": N, "state": STATE, "method": M, ...}}; extra
 * (taken) adds its members. */
static void ask_event(mcp_ask *q, const char *state, cJSON *extra)
{
	cJSON *m = cJSON_CreateObject(), *p, *x;
	char *txt;

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "method", "mcpfs/request");
	p = cJSON_AddObjectToObject(m, "params");
	cJSON_AddNumberToObject(p, "request", q->num);
	cJSON_AddStringToObject(p, "state", state);
	cJSON_AddStringToObject(p, "method", q->method);
	if (extra) {
		while ((x = extra->child) != NULL)
			cJSON_AddItemToObject(p, x->string,
					      cJSON_DetachItemViaPointer(extra,
									 x));
		cJSON_Delete(extra);
	}
	txt = jsent_print(m, 0, NULL);
	if (txt) {
		ring_line(&q->s->events, txt, strlen(txt));
		session_observe(q->s, txt, strlen(txt)); /* serve/ */
	}
	free(txt);
	cJSON_Delete(m);
}

static void ask_free_cb(uv_handle_t *h)
{
	mcp_ask *q = h->data;

	cJSON_Delete(q->rpc_id);
	cJSON_Delete(q->params);
	cJSON_Delete(q->shown);
	free(q->refused);
	free(q);
}

/* Take q out of its session and the id table; freed later. */
static void ask_remove(mcp_ask *q)
{
	mcp_session *s = q->s;

	LIST_REMOVE(q, link);
	s->nasks--;
	idtab_del(&ask_ids, q->id);
	if (!ask_ids.count)
		idtab_free(&ask_ids);
	uv_timer_stop(&q->timer);
	uv_close((uv_handle_t *)&q->timer, ask_free_cb);
}

static void expire_cb(uv_timer_t *t)
{
	mcp_ask *q = t->data;
	mcp_session *s = q->s;
	char msg[120];
	cJSON *x = cJSON_CreateObject();

	mlog(MLOG_INFO, "server %s thread %s: question %s (%s) unanswered "
	     "after %g s: %s", s->srv->conf->name, thread_of(s), q->name,
	     q->method, q->timeout,
	     q->kind == ASK_SAMPLING ? "answered with an error" : "cancel");
	cJSON_AddNumberToObject(x, "after", q->timeout);
	ask_event(q, "expired", x);
	if (q->kind == ASK_SAMPLING) {
		snprintf(msg, sizeof msg, "timeout: no answer within %g s",
			 q->timeout);
		deliver(s, q->rpc_id, q->done, q->ctx, NULL,
			error_of(ERR_TIMEOUT, msg));
	} else {
		deliver(s, q->rpc_id, q->done, q->ctx, cancel_result(), NULL);
	}
	ask_remove(q);
}

/* Answered at once, without a question (logged with why). */
static void answer_now(mcp_session *s, const char *method, cJSON *id,
		       int code, const char *why, ask_done_fn done, void *ctx)
{
	mlog(MLOG_INFO, "server %s thread %s: %s %s: %s", s->srv->conf->name,
	     thread_of(s), method, code ? "refused" : "cancelled", why);
	if (code)
		deliver(s, id, done, ctx, NULL, error_of(code, why));
	else
		deliver(s, id, done, ctx, cancel_result(), NULL);
}

static void ask_open(mcp_session *s, const char *method, cJSON *id,
		     cJSON *params, ask_done_fn done, void *ctx);

void ask_question(mcp_session *s, const char *method, cJSON *id,
		  cJSON *params, const char *line, size_t len)
{
	struct jscan_span top = {0, len}, v;
	mcp_ask *q;

	ask_open(s, method, id, params, NULL, NULL);
	q = LIST_FIRST(&s->asks);
	while (q && LIST_NEXT(q, link))
		q = LIST_NEXT(q, link);
	/* the question just opened (the last) shows params as sent */
	while (top.at < len && strchr(" \t\r\n", line[top.at]))
		top.at++;
	top.n = len - top.at;
	if (q && !q->shown && cJSON_Compare(q->rpc_id, id, 1) &&
	    jscan_member(line, top, "params", &v) &&
	    (q->shown = cJSON_Duplicate(q->params, 1)) != NULL)
		jsent_keep(q->shown, line + v.at, v.n);
}

void ask_input(mcp_session *s, const char *method, const char *key,
	       cJSON *params, ask_done_fn done, void *ctx)
{
	cJSON *id = cJSON_CreateString(key);

	ask_open(s, method, id, params, done, ctx);
	cJSON_Delete(id);
}

/* A question of an input request goes without an answer: its sink hears
 * (NULL, NULL), to let its call go. */
static void release(mcp_ask *q)
{
	if (q->done)
		q->done(q->ctx, "", NULL, NULL);
	q->done = NULL;
}

void ask_drop_ctx(mcp_session *s, void *ctx, const char *why)
{
	mcp_ask *q, *next;
	cJSON *x;

	for (q = LIST_FIRST(&s->asks); q; q = next) {
		next = LIST_NEXT(q, link);
		if (!q->done || q->ctx != ctx)
			continue;
		mlog(MLOG_INFO, "server %s thread %s: question %s (%s) "
		     "dropped unanswered: %s", s->srv->conf->name,
		     thread_of(s), q->name, q->method, why);
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "reason", why);
		ask_event(q, "dropped", x);
		release(q);
		ask_remove(q);
	}
}

/* A question s cannot open answered now (off in the config, not valid,
 * a one-shot's, no numbers or room left): 1, else 0 with its *kind. */
static int ask_refused(mcp_session *s, const char *method, cJSON *id,
		       cJSON *params, enum ask_kind *kind, ask_done_fn done,
		       void *ctx)
{
	int sampling = !strcmp(method, "sampling/createMessage");
	char why[200];

	if (!(s->ask_caps & (sampling ? ASK_CAP_SAMPLING : ASK_CAP_ELICIT))) {
		snprintf(why, sizeof why, "%s is off for server %s (set "
			 "\"%s\": true in its config entry)",
			 sampling ? "sampling" : "elicitation",
			 s->srv->conf->name,
			 sampling ? "sampling" : "elicitation");
		answer_now(s, method, id, -32601, why, done, ctx);
		return 1;
	}
	if (ask_check_question(method, params, kind, why, sizeof why) < 0) {
		answer_now(s, method, id, -32602, why, done, ctx);
		return 1;
	}
	if (s->oneshot) {
		if (*kind == ASK_SAMPLING)
			answer_now(s, method, id, -1, "no one to answer: the "
				   "server-level call is one-shot (use a "
				   "thread)", done, ctx);
		else
			answer_now(s, method, id, 0, "the server-level call is "
				   "one-shot and has no requests/ directory",
				   done, ctx);
		return 1;
	}
	if (s->ask_seq >= ASK_NUM_MAX) {
		answer_now(s, method, id, -32603, "no question numbers left "
			   "in this thread (restart it with a new name)",
			   done, ctx);
		return 1;
	}
	if (s->nasks >= ASKS_MAX) {
		snprintf(why, sizeof why, "too many open questions (%d)",
			 ASKS_MAX);
		answer_now(s, method, id, -32603, why, done, ctx);
		return 1;
	}
	return 0;
}

static void ask_open(mcp_session *s, const char *method, cJSON *id,
		     cJSON *params, ask_done_fn done, void *ctx)
{
	char host[256];
	enum ask_kind kind;
	struct mcp_stat st;
	mcp_ask *q, *last;
	cJSON *x;

	if (ask_refused(s, method, id, params, &kind, done, ctx))
		return;
	q = calloc(1, sizeof *q);
	if (!q || !(q->rpc_id = cJSON_Duplicate(id, 1)) ||
	    !(q->params = params ? cJSON_Duplicate(params, 1)
				 : cJSON_CreateObject()) ||
	    idtab_put(&ask_ids, (q->id = mcp_new_id()), q) < 0) {
		if (q) {
			cJSON_Delete(q->rpc_id);
			cJSON_Delete(q->params);
		}
		free(q);
		answer_now(s, method, id, -32603, "out of memory", done, ctx);
		return;
	}
	q->s = s;
	q->kind = kind;
	q->done = done;
	q->ctx = ctx;
	snprintf(q->method, sizeof q->method, "%s", method);
	q->num = ++s->ask_seq;
	snprintf(q->name, sizeof q->name, "%u", q->num);
	q->created = mcp_now();
	q->timeout = timeout_of(s);
	last = LIST_FIRST(&s->asks);
	while (last && LIST_NEXT(last, link))
		last = LIST_NEXT(last, link);
	if (last)
		LIST_INSERT_AFTER(last, q, link);
	else
		LIST_INSERT_HEAD(&s->asks, q, link);
	s->nasks++;
	uv_timer_init(process.loop, &q->timer);
	q->timer.data = q;
	if (q->timeout > 0)
		uv_timer_start(&q->timer, expire_cb,
			       (uint64_t)(q->timeout * 1000), 0);
	mlog(MLOG_INFO, "server %s thread %s: question %s (%s) open in "
	     "requests/%s", s->srv->conf->name, s->name, q->name, method,
	     q->name);
	x = cJSON_CreateObject();
	if (kind != ASK_SAMPLING) {
		cJSON_AddStringToObject(x, "mode", kind == ASK_URL ? "url"
								  : "form");
		if (str_of(params, "message"))
			cJSON_AddStringToObject(x, "message",
						str_of(params, "message"));
	}
	if (kind == ASK_URL && ask_url_host(str_of(params, "url"), host,
					    sizeof host) == 0) {
		cJSON_AddStringToObject(x, "url", str_of(params, "url"));
		cJSON_AddStringToObject(x, "host", host);
	}
	ask_event(q, "open", x);
	mcp_ask_stat(q, &st);
	ask_observed(&st, params);
}

void ask_cancelled(mcp_session *s, cJSON *params)
{
	cJSON *rid = cJSON_GetObjectItemCaseSensitive(params, "requestId");
	const char *reason = str_of(params, "reason");
	mcp_ask *q;
	cJSON *x;

	LIST_FOREACH(q, &s->asks, link)
		if (rid && cJSON_Compare(q->rpc_id, rid, 1))
			break;
	if (!q)
		return;
	mlog(MLOG_INFO, "server %s thread %s: question %s (%s) withdrawn by "
	     "the server", s->srv->conf->name, thread_of(s), q->name,
	     q->method);
	x = cJSON_CreateObject();
	if (reason)
		cJSON_AddStringToObject(x, "reason", reason);
	ask_event(q, "withdrawn", x);
	release(q);
	ask_remove(q);
}

void ask_drop_all(mcp_session *s, const char *why)
{
	mcp_ask *q;

	while ((q = LIST_FIRST(&s->asks)) != NULL) {
		cJSON *x = cJSON_CreateObject();

		mlog(MLOG_INFO, "server %s thread %s: question %s (%s) dropped "
		     "unanswered: %s", s->srv->conf->name, thread_of(s),
		     q->name, q->method, why);
		cJSON_AddStringToObject(x, "reason", why);
		ask_event(q, "dropped", x);
		release(q);
		ask_remove(q);
	}
}

/* ---- what fs/ sees ---- */

mcp_ask *mcp_ask_next(mcp_session *s, mcp_ask *prev)
{
	return prev ? LIST_NEXT(prev, link) : LIST_FIRST(&s->asks);
}

mcp_ask *mcp_ask_by_id(uint64_t id) { return idtab_get(&ask_ids, id); }

void mcp_ask_stat(const mcp_ask *q, struct mcp_stat *st)
{
	*st = (struct mcp_stat){ .kind = MCP_QUESTION, .id = q->id,
				 .server_id = q->s->srv->id,
				 .thread_id = q->s->id, .name = q->name,
				 .server = q->s->srv, .session = q->s,
				 .ask = (mcp_ask *)q, .num = q->num,
				 .created = q->created, .used = q->created };
}

static const char *hint_of(enum ask_kind kind)
{
	switch (kind) {
	case ASK_FORM:
		return "write one JSON value to this file: {\"action\": "
		       "\"accept\", \"content\": {...}} (fields left out take "
		       "their defaults), {\"action\": \"decline\"} or "
		       "{\"action\": \"cancel\"}";
	case ASK_URL:
		return "mcpfs opens nothing: check the host, open the url "
		       "yourself if you consent, then write {\"action\": "
		       "\"accept\"}; else {\"action\": \"decline\"} or "
		       "{\"action\": \"cancel\"}";
	default:
		return "write a CreateMessageResult: {\"role\": \"assistant\", "
		       "\"content\": {\"type\": \"text\", \"text\": \"...\"}, "
		       "\"model\": \"...\"}, or {\"action\": \"decline\"}";
	}
}

/*
 * {"id": N, "method": M, "server": S, ["mode": form|url,] the request's
 * params (for url mode "host" right after "url"), "created", "expires",
 * "answer": how to answer, ["refused": why the last answer was refused]}.
 */
mcp_buf *mcp_ask_json(mcp_ask *q)
{
	cJSON *o = cJSON_CreateObject(), *p;
	cJSON *from = q->shown ? q->shown : q->params;
	const char *url = str_of(q->params, "url");
	char host[256];
	mcp_buf *b;

	cJSON_AddNumberToObject(o, "id", q->num);
	cJSON_AddStringToObject(o, "method", q->method);
	cJSON_AddStringToObject(o, "server", q->s->srv->conf->name);
	if (q->kind != ASK_SAMPLING)
		cJSON_AddStringToObject(o, "mode",
					q->kind == ASK_URL ? "url" : "form");
	cJSON_ArrayForEach(p, from) {
		if (cJSON_GetObjectItemCaseSensitive(o, p->string))
			continue;
		cJSON_AddItemToObject(o, p->string, cJSON_Duplicate(p, 1));
		if (q->kind == ASK_URL && !strcmp(p->string, "url") && url &&
		    ask_url_host(url, host, sizeof host) == 0)
			cJSON_AddStringToObject(o, "host", host);
	}
	msg_add_time(o, "created", q->created);
	if (q->timeout > 0)
		msg_add_time(o, "expires", q->created + q->timeout);
	else
		cJSON_AddNullToObject(o, "expires");
	cJSON_AddStringToObject(o, "answer", hint_of(q->kind));
	if (q->refused)
		cJSON_AddStringToObject(o, "refused", q->refused);
	b = mcp_buf_json(o, 1);
	cJSON_Delete(o);
	return b;
}

/* An answer refused: logged, and why is q's "refused" (its file). */
static int refuse(mcp_ask *q, const char *why)
{
	mcp_session *s = q->s;

	mlog(MLOG_INFO, "server %s thread %s: answer to question %s "
	     "refused: %s", s->srv->conf->name, s->name, q->name, why);
	free(q->refused);
	q->refused = strdup(why);
	return -EINVAL;
}

int mcp_ask_answer(mcp_ask *q, const char *json, size_t len,
		   const char *refused)
{
	mcp_session *s = q->s;
	cJSON *a, *res = NULL, *err = NULL;
	cJSON *x;
	char why[200];
	const char *act;

	if (refused)
		return refuse(q, refused);
	/* an escaped NUL as C0 80 (jsent.h): a string keeps its real length
	 * for the checks and reaches the server whole */
	a = jsent_parse(json, len);
	if (ask_check_answer(q->kind, q->params, a, &res, &err, why,
			     sizeof why) < 0) {
		cJSON_Delete(a);
		return refuse(q, why);
	}
	act = res ? str_of(res, "action") : "decline";
	if (q->kind == ASK_SAMPLING && res)
		act = "message";
	mlog(MLOG_INFO, "server %s thread %s: question %s (%s) answered: %s",
	     s->srv->conf->name, s->name, q->name, q->method, act);
	x = cJSON_CreateObject();
	cJSON_AddStringToObject(x, "action", act);
	ask_event(q, "answered", x);
	deliver(s, q->rpc_id, q->done, q->ctx, res, err);
	cJSON_Delete(a);
	ask_remove(q);
	return 0;
}
