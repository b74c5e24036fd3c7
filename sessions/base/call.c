/*
 * call.c - call objects: one request of a user, a tools listing or the
 * handshake, from creation to its one completion. A call is refcounted:
 * its session holds one reference while it is queued or in flight, whoever
 * started it holds another, last_sent/last_done/tools hold theirs. It is
 * completed exactly once (reply, failure, timeout, cancel); completing it
 * takes it off its session (the pending table or the queue, the counters,
 * the latest reply) and then fires its listeners.
 *
 * The session core above decides what a timeout does and what follows a
 * completion (closing a one-shot session, the idle timer, the cap); it
 * says so once, in call_setup, so that this file calls nothing of it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "internal.h"
#include "jsent.h"

static const struct call_hooks *hooks;

void call_setup(const struct call_hooks *h)
{
	hooks = h;
}

static void call_free_cb(uv_handle_t *h)
{
	mcp_call *c = h->data;

	mcp_buf_unref(c->reply);
	free(c->line);
	free(c->tool);
	hooks->freed(c);
	free(c);
}

mcp_call *mcp_call_ref(mcp_call *c)
{
	if (c)
		c->refs++;
	return c;
}

void mcp_call_unref(mcp_call *c)
{
	if (c && --c->refs == 0)
		uv_close((uv_handle_t *)&c->timer, call_free_cb);
}

mcp_buf *mcp_call_reply(const mcp_call *c)
{
	return c->done ? c->reply : NULL;
}

void call_more(mcp_call *c)
{
	struct mcp_listener *l, *next;

	for (l = LIST_FIRST(&c->listeners); l; l = next) {
		next = LIST_NEXT(l, link);
		if (l->more)
			l->more(l, c);
	}
}

void mcp_call_listen(mcp_call *c, struct mcp_listener *l)
{
	LIST_INSERT_HEAD(&c->listeners, l, link);
}

void mcp_listener_remove(struct mcp_listener *l)
{
	if (!l->link.le_prev)
		return;
	LIST_REMOVE(l, link);
	l->link.le_prev = NULL;
}

void call_set_ref(mcp_call **slot, mcp_call *c)
{
	mcp_call *old = *slot;

	*slot = mcp_call_ref(c);
	mcp_call_unref(old);
}

void call_relisted(mcp_call *c)
{
	hooks->relisted(c);
}

static void timer_cb(uv_timer_t *t)
{
	mcp_call *c = t->data;

	if (!c->done && c->s)
		hooks->timed_out(c);
}

mcp_call *call_new(enum call_kind kind, mcp_server *srv, mcp_session *s)
{
	mcp_call *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->refs = 1;
	c->kind = kind;
	c->srv = srv;
	c->s = s;
	LIST_INIT(&c->listeners);
	c->started = mcp_now();
	c->timeout = srv->conf->timeout >= 0 ? srv->conf->timeout
					     : process.opts.call_timeout;
	uv_timer_init(process.loop, &c->timer);
	c->timer.data = c;
	if (s && c->timeout > 0)
		uv_timer_start(&c->timer, timer_cb,
			       (uint64_t)(c->timeout * 1000), 0);
	return c;
}

/* A progress notification for c: restart its timer, up to 10x timeout. */
void call_progress(mcp_call *c)
{
	double now = mcp_now(), left, max_end;

	if (c->timeout <= 0 || c->done)
		return;
	max_end = c->started + 10 * c->timeout;
	left = c->timeout;
	if (now + left > max_end)
		left = max_end - now;
	if (left < 0.001)
		left = 0.001;
	uv_timer_start(&c->timer, timer_cb, (uint64_t)(left * 1000), 0);
}

int call_track(mcp_session *s, mcp_call *c)
{
	if (idtab_put(&s->pending, c->rpc_id, c) == 0)
		return 0;
	mlog(MLOG_WARN, "server %s thread %s: request not sent: out of memory",
	     s->srv->conf->name, s->oneshot ? "(one-shot)" : s->name);
	call_fail(c, -32603, "out of memory", NULL);
	return -ENOMEM;
}

void call_untrack(mcp_session *s, mcp_call *c)
{
	idtab_del(&s->pending, c->rpc_id);
	if (s->ops->forget && s->t)
		s->ops->forget(s->t, c->rpc_id);
}

/* ---- the handshake queue: calls waiting for a ready session ---- */

void call_queue(mcp_session *s, mcp_call *c)
{
	TAILQ_INSERT_TAIL(&s->queue, c, qlink);
	c->queued = 1;
}

/* The first queued call that waits for nothing but the handshake (not
 * for a listing, see task.c). */
mcp_call *call_dequeue(mcp_session *s)
{
	mcp_call *c;

	TAILQ_FOREACH(c, &s->queue, qlink)
		if (!c->wait.link.le_prev)
			break;
	if (c) {
		TAILQ_REMOVE(&s->queue, c, qlink);
		c->queued = 0;
	}
	return c;
}

/* ---- completion ---- */

/* Take c off s: the pending table or the queue, and the counters. */
static void detach(mcp_session *s, mcp_call *c)
{
	if (c->rpc_id)
		idtab_del(&s->pending, c->rpc_id);
	if (c->queued) {
		TAILQ_REMOVE(&s->queue, c, qlink);
		c->queued = 0;
	}
	hooks->detached(s, c); /* tasks/ shows running tasks only */
	if (c->kind != CALL_USER)
		return;
	s->in_flight--;
	s->last_used = mcp_now();
	if (s->oneshot) {
		c->srv->in_flight--;
		call_set_ref(&c->srv->last_done, c);
	} else {
		call_set_ref(&s->last_done, c);
	}
}

static void complete(mcp_call *c, mcp_buf *reply, int failed)
{
	mcp_session *s = c->s;
	struct mcp_listener *l;

	if (c->done) {
		mcp_buf_unref(reply);
		return;
	}
	if (!reply) {
		reply = mcp_buf_oom();
		failed = 1;
	}
	c->done = 1;
	c->failed = failed;
	c->reply = reply;
	c->s = NULL;
	uv_timer_stop(&c->timer);
	mcp_listener_remove(&c->wait);
	mcp_call_ref(c); /* keep alive while listeners run */
	if (s) {
		detach(s, c);
		if (c->kind == CALL_USER) /* failed: for status (spec 12) */
			session_call_failed(s, c);
		mcp_call_unref(c); /* the session's reference */
	}
	while ((l = LIST_FIRST(&c->listeners)) != NULL) {
		mcp_listener_remove(l);
		l->done(l, c);
	}
	hooks->completed(s);
	mcp_call_unref(c);
}

void call_complete(mcp_call *c, mcp_buf *reply)
{
	complete(c, reply, 0);
}

void call_complete_error(mcp_call *c, cJSON *err)
{
	complete(c, err ? msg_error_reply(err) : NULL, 1);
}

int mcp_call_failed(const mcp_call *c)
{
	return c->done && c->failed;
}

/* Complete c with an error of the session itself. */
void call_fail(mcp_call *c, int code, const char *msg, cJSON *data)
{
	cJSON *e = msg_error(code, msg, data);

	call_complete_error(c, e);
	cJSON_Delete(e);
}

void call_fail_noted(mcp_call *c, int code, const char *msg, cJSON *data)
{
	mcp_session *s = c->s; /* valid after: freed from a close callback */

	if (s)
		s->err_noted++;
	call_fail(c, code, msg, data);
	if (s)
		s->err_noted--;
}

void call_user_method(mcp_call *c)
{
	const struct jscan_span *h = &c->req.head;
	char *m = NULL;

	if (c->tool)
		snprintf(c->method, sizeof c->method, "tools/call");
	else if (h->n && jsent_unquote(c->line + h->at, h->n, &m) == 0 && m)
		snprintf(c->method, sizeof c->method, "%s", m);
	free(m);
}

/* The user's own progress token, as cJSON prints it (as progress_for
 * prints the tokens of notifications), if the request has one. */
void call_user_token(mcp_call *c)
{
	const struct jscan_span *t = &c->req.token;
	cJSON *j;
	char *txt;

	if (!t->n)
		return;
	j = cJSON_ParseWithLength(c->line + t->at, t->n);
	if (j && (txt = cJSON_PrintUnformatted(j)) != NULL) {
		snprintf(c->token, sizeof c->token, "%s", txt);
		cJSON_free(txt);
	}
	cJSON_Delete(j);
}

/* ---- the latest replies ---- */

int mcp_call_refused(mcp_server *srv, mcp_session *s, const char *why,
		     mcp_call **out)
{
	char msg[300];
	cJSON *e;
	mcp_call *c;

	if (s && s->closed)
		return -ENOENT;
	c = call_new(CALL_USER, srv, NULL);
	if (!c)
		return -ENOMEM;
	snprintf(msg, sizeof msg, "request refused: %s", why);
	e = msg_error(-32600, msg, NULL);
	call_complete_error(c, e);
	cJSON_Delete(e);
	if (s) {
		session_error(s, strdup(msg));
		s->err_noted++;
		session_call_failed(s, c); /* last_call_error */
		s->err_noted--;
		s->last_used = mcp_now();
		if (!s->in_flight)
			call_set_ref(&s->last_done, c);
		call_set_ref(&s->last_sent, c);
	} else {
		if (!srv->in_flight)
			call_set_ref(&srv->last_done, c);
		call_set_ref(&srv->last_sent, c);
	}
	*out = c;
	return 0;
}

mcp_call *mcp_latest(mcp_server *srv, mcp_session *s)
{
	if (s)
		return s->in_flight ? s->last_sent : s->last_done;
	return srv->in_flight ? srv->last_sent : srv->last_done;
}

int mcp_call_errno(const mcp_call *c, char *why, size_t n)
{
	const mcp_buf *b = c->reply;
	cJSON *doc, *e, *code, *msg;
	int err;

	if (!mcp_call_failed(c) || !b)
		return 0;
	doc = cJSON_ParseWithLength(b->data, b->len);
	e = cJSON_GetObjectItemCaseSensitive(doc, "error");
	code = cJSON_GetObjectItemCaseSensitive(e, "code");
	msg = cJSON_GetObjectItemCaseSensitive(e, "message");
	err = cJSON_IsNumber(code) && (code->valueint == ERR_STARTUP ||
				       code->valueint == -32000)
		      ? ENOTCONN : EIO;
	snprintf(why, n, "%s", cJSON_IsString(msg) ? msg->valuestring
						   : "(no reason given)");
	cJSON_Delete(doc);
	return err;
}

mcp_call *call_side(mcp_session *s, const char *method, cJSON *params,
		    struct mcp_listener *l)
{
	mcp_call *c = call_new(CALL_SIDE, s->srv, s);
	cJSON *m;

	if (!c) {
		cJSON_Delete(params);
		return NULL;
	}
	mcp_call_ref(c); /* the caller's */
	mcp_call_listen(c, l);
	c->rpc_id = s->next_id++;
	m = msg_request(c->rpc_id, method);
	if (m && (!params || cJSON_AddItemToObject(m, "params", params))) {
		params = NULL;
		if (call_track(s, c) == 0)
			session_send_json(s, m, c->rpc_id);
	} else {
		call_fail(c, -32603, "out of memory", NULL);
	}
	cJSON_Delete(params);
	cJSON_Delete(m);
	return c;
}
