/*
 * session.c - the session core, the same for every transport: the
 * initialize handshake, a table of requests in flight keyed by id, answers
 * to the server's own requests, the fast path of replies, and the lifecycle
 * around it (crash, timeout, cancel, restart, idle, the cap, close). It
 * reaches the server only through the transport ops table of transport.h,
 * chosen at each start from the config entry, and hears back through
 * session_up; it never names a transport.
 *
 * Ownership. A session owns at most one attached transport. One that is
 * closed or lost is detached: it finishes closing on its own (for a process:
 * stdin EOF, 2 s, SIGTERM to the group, 2 s, SIGKILL; for HTTP: DELETE) and
 * frees itself, holding a closing object until then. Calls are
 * refcounted: the session holds one reference while a call is queued or in
 * flight, whoever started it holds another, last_sent/last_done/tools hold
 * theirs. A call is completed exactly once (reply, failure, timeout, cancel)
 * and then fires its listeners.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ask.h"
#include "internal.h"
#include "jscan.h"

uv_loop_t *mcp_loop;
struct mcp_options mcp_opts;
const struct mcp_hooks *mcp_hooks_p;

static uint64_t id_counter;
static mcp_session *all_sessions; /* every session, threads and one-shots */
static unsigned closing_objects;  /* procs, https, sessions not yet freed */
static void (*reaped_cb)(void);

/* Replies at least this long are passed through after a check of their
 * structure only; shorter ones are checked to be valid JSON first. */
#define FAST_REPLY_MIN (256 * 1024)

static const char *const versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07",
};

static void call_send(mcp_session *s, mcp_call *c);
static void call_fail(mcp_call *c, int code, const char *msg, cJSON *data);
static void session_fail_all(mcp_session *s, int code, const char *msg,
			     cJSON *data);
static void session_trim(void);
static mcp_session *session_new(mcp_server *srv, const char *name,
				int oneshot);
static int session_start(mcp_session *s);
static void thread_add(mcp_session *s);
static void thread_del(mcp_session *s);
static void session_lost(mcp_session *s, int code, const char *what);
static void idle_check(mcp_session *s);

double mcp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t mcp_new_id(void)
{
	return ++id_counter;
}

/* Objects that shutdown waits for: held from creation until freed. */
void session_obj_hold(void)
{
	closing_objects++;
}

void session_obj_drop(void)
{
	if (--closing_objects == 0 && reaped_cb)
		reaped_cb();
}

static char *stderr_tail(const mcp_session *s, size_t max)
{
	size_t kept = ring_kept(&s->err), n = kept < max ? kept : max;
	char *t = malloc(n + 1), *p;

	if (!t)
		return NULL;
	n = ring_read(&s->err, s->err.total - n, t, n);
	t[n] = 0;
	p = t;
	if (n == max && (p = memchr(t, '\n', n)) != NULL)
		memmove(t, p + 1, strlen(p + 1) + 1);
	return t;
}

/* ---- replies ---- */

/* {"error": err} + newline; err is borrowed. */
static mcp_buf *error_reply(cJSON *err)
{
	cJSON *o = cJSON_CreateObject();
	mcp_buf *b;

	cJSON_AddItemToObject(o, "error", cJSON_Duplicate(err, 1));
	b = mcp_buf_json(o, 0);
	cJSON_Delete(o);
	return b;
}

static cJSON *error_obj(int code, const char *msg, cJSON *data)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	if (data)
		cJSON_AddItemToObject(e, "data", cJSON_Duplicate(data, 1));
	return e;
}

/* ---- calls ---- */

static void call_free_cb(uv_handle_t *h)
{
	mcp_call *c = h->data;

	mcp_buf_unref(c->reply);
	free(c->line);
	cJSON_Delete(c->acc);
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

int mcp_call_is_done(const mcp_call *c)
{
	return c->done;
}

mcp_buf *mcp_call_reply(const mcp_call *c)
{
	return c->reply;
}

void mcp_call_listen(mcp_call *c, struct mcp_listener *l)
{
	l->next = c->listeners;
	if (l->next)
		l->next->pprev = &l->next;
	l->pprev = &c->listeners;
	c->listeners = l;
}

void mcp_listener_remove(struct mcp_listener *l)
{
	if (!l->pprev)
		return;
	*l->pprev = l->next;
	if (l->next)
		l->next->pprev = l->pprev;
	l->next = NULL;
	l->pprev = NULL;
}

static double call_timeout_of(const mcp_server *srv)
{
	return srv->conf->timeout >= 0 ? srv->conf->timeout
				       : mcp_opts.call_timeout;
}

static void call_timer_cb(uv_timer_t *t);

static mcp_call *call_new(enum call_kind kind, mcp_server *srv,
			  mcp_session *s)
{
	mcp_call *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->refs = 1;
	c->kind = kind;
	c->srv = srv;
	c->s = s;
	c->started = mcp_now();
	c->timeout = call_timeout_of(srv);
	uv_timer_init(mcp_loop, &c->timer);
	c->timer.data = c;
	if (c->timeout > 0)
		uv_timer_start(&c->timer, call_timer_cb,
			       (uint64_t)(c->timeout * 1000), 0);
	return c;
}

static void queue_remove(mcp_session *s, mcp_call *c)
{
	mcp_call **pp;

	for (pp = &s->queue; *pp; pp = &(*pp)->qnext) {
		if (*pp == c) {
			*pp = c->qnext;
			if (s->qtail == &c->qnext)
				s->qtail = pp;
			c->qnext = NULL;
			return;
		}
	}
}

static void set_ref(mcp_call **slot, mcp_call *c)
{
	mcp_call *old = *slot;

	*slot = mcp_call_ref(c);
	mcp_call_unref(old);
}

/*
 * Complete c with reply (ownership taken). Detaches it from its session,
 * updates the counters, fires the listeners and drops the session's
 * reference. May close a one-shot session.
 */
static void call_complete(mcp_call *c, mcp_buf *reply)
{
	mcp_session *s = c->s;
	struct mcp_listener *l;

	if (c->done) {
		mcp_buf_unref(reply);
		return;
	}
	if (!reply)
		reply = mcp_buf_new("{\"error\":{\"code\":-32603,\"message\":"
				    "\"out of memory\"}}\n", 53);
	c->done = 1;
	c->reply = reply;
	c->s = NULL;
	uv_timer_stop(&c->timer);
	mcp_call_ref(c); /* keep alive while listeners run */
	if (s) {
		if (c->rpc_id)
			idtab_del(&s->pending, c->rpc_id);
		else
			queue_remove(s, c);
		if (c->kind == CALL_USER) {
			s->in_flight--;
			s->last_used = mcp_now();
			if (s->oneshot) {
				c->srv->in_flight--;
				set_ref(&c->srv->last_done, c);
			} else {
				set_ref(&s->last_done, c);
			}
		}
		mcp_call_unref(c); /* the session's reference */
	}
	while ((l = c->listeners) != NULL) {
		mcp_listener_remove(l);
		l->done(l, c);
	}
	if (s && !s->closed) {
		if (s->oneshot && session_idle(s))
			session_close(s, "one-shot call done");
		else
			idle_check(s);
	}
	mcp_call_unref(c);
	session_trim();
}

/* Complete c with an error of the session itself. */
static void call_fail(mcp_call *c, int code, const char *msg, cJSON *data)
{
	cJSON *e = error_obj(code, msg, data);

	call_complete(c, error_reply(e));
	cJSON_Delete(e);
}

static void send_cancelled(mcp_session *s, uint64_t id, const char *reason);

static void call_abort(mcp_call *c, int code, const char *msg,
		       const char *reason)
{
	mcp_session *s = c->s;

	if (s && c->rpc_id && s->t) {
		send_cancelled(s, c->rpc_id, reason);
		if (s->ops->forget)
			s->ops->forget(s->t, c->rpc_id);
	}
	call_fail(c, code, msg, NULL);
}

static void call_timer_cb(uv_timer_t *t)
{
	mcp_call *c = t->data;
	mcp_session *s = c->s;
	char msg[160];

	if (c->done || !s)
		return;
	if (c->kind == CALL_INIT) {
		snprintf(msg, sizeof msg, "initialize timed out after %g s",
			 c->timeout);
		session_lost(s, ERR_STARTUP, msg);
		return;
	}
	snprintf(msg, sizeof msg, "timeout: call timed out after %g s%s",
		 c->timeout,
		 c->rpc_id ? "" : " waiting for the server to start");
	mlog(MLOG_INFO, "server %s thread %s: request %" PRIu64 " timed out",
	     c->srv->conf->name, s->oneshot ? "(one-shot)" : s->name,
	     c->rpc_id);
	call_abort(c, ERR_TIMEOUT, msg, "timeout");
}

void mcp_call_cancel(mcp_call *c)
{
	if (c->done || !c->s)
		return;
	call_abort(c, ERR_CANCELLED, "call cancelled", "cancelled by user");
}

/* A progress notification for c: restart its timer, up to 10x timeout. */
static void call_progress(mcp_call *c)
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
	uv_timer_start(&c->timer, call_timer_cb, (uint64_t)(left * 1000), 0);
}

/* ---- the transport ---- */

/* Hand one message (malloc'd line, ownership taken) to the session's
 * transport; rpc_id is the request it carries, 0 for none. */
static void session_send(mcp_session *s, char *line, size_t len,
			 uint64_t rpc_id)
{
	if (s->t)
		s->ops->send(s->t, line, len, rpc_id);
	else
		free(line);
}

/* Leave the transport (it finishes closing on its own). */
static void session_detach(mcp_session *s)
{
	struct transport *t = s->t;

	s->t = NULL;
	if (t)
		s->ops->close(t);
	ask_drop_all(s, s->closed ? "session closed"
				  : "server gone or restarted");
}

static void send_json(mcp_session *s, cJSON *msg, uint64_t rpc_id)
{
	char *txt = cJSON_PrintUnformatted(msg);
	size_t n;
	char *line;

	if (!txt)
		return;
	n = strlen(txt);
	line = malloc(n + 2);
	if (line) {
		memcpy(line, txt, n);
		line[n] = '\n';
		line[n + 1] = 0;
		session_send(s, line, n + 1, rpc_id);
	}
	cJSON_free(txt);
}

static void send_cancelled(mcp_session *s, uint64_t id, const char *reason)
{
	cJSON *m = cJSON_CreateObject(), *p;

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "method", "notifications/cancelled");
	p = cJSON_AddObjectToObject(m, "params");
	cJSON_AddNumberToObject(p, "requestId", (double)id);
	cJSON_AddStringToObject(p, "reason", reason);
	send_json(s, m, 0);
	cJSON_Delete(m);
}

static void send_initialize(mcp_session *s)
{
	cJSON *m = cJSON_CreateObject(), *p, *caps, *info;
	mcp_call *c = call_new(CALL_INIT, s->srv, s);

	if (!c) {
		cJSON_Delete(m);
		return;
	}
	c->rpc_id = s->next_id++;
	idtab_put(&s->pending, c->rpc_id, c);
	s->init = c;
	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddNumberToObject(m, "id", (double)c->rpc_id);
	cJSON_AddStringToObject(m, "method", "initialize");
	p = cJSON_AddObjectToObject(m, "params");
	cJSON_AddStringToObject(p, "protocolVersion", versions[0]);
	caps = cJSON_AddObjectToObject(p, "capabilities");
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "roots"),
			      "listChanged", 1);
	s->ask_caps = 0;
	if (s->srv->conf->elicitation) {
		cJSON *e = cJSON_AddObjectToObject(caps, "elicitation");

		cJSON_AddObjectToObject(e, "form");
		cJSON_AddObjectToObject(e, "url");
		s->ask_caps |= ASK_CAP_ELICIT;
	}
	if (s->srv->conf->sampling) {
		cJSON_AddObjectToObject(caps, "sampling");
		s->ask_caps |= ASK_CAP_SAMPLING;
	}
	info = cJSON_AddObjectToObject(p, "clientInfo");
	cJSON_AddStringToObject(info, "name", "mcpfs");
	cJSON_AddStringToObject(info, "version", MCPFS_VERSION);
	send_json(s, m, c->rpc_id);
	cJSON_Delete(m);
}

/* A new process or HTTP session is starting its handshake. */
static void new_generation(mcp_session *s)
{
	s->generation++;
	s->state = S_STARTING;
	s->has_exit = 0;
	s->exit_status = s->term_signal = 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static const struct transport_up session_up;

/*
 * Start a fresh process (or HTTP session) for s through the transport of
 * its config entry. Returns 0 (handshake under way) or a negated errno with
 * s->last_error set; -EAGAIN while backing off.
 */
static int session_spawn(mcp_session *s)
{
	const struct mcp_server_conf *conf = s->srv->conf;
	char err[256];
	int r, pid;

	if (s->start_fails && mcp_now() < s->next_start)
		return -EAGAIN;
	s->ops = transport_for(conf);
	err[0] = 0;
	r = transport_start(s->ops, conf, &session_up, s, &s->t, err,
			    sizeof err);
	if (r < 0) {
		s->t = NULL;
		free(s->last_error);
		s->last_error = strdup(err);
		s->state = S_EXITED;
		s->start_fails++;
		s->next_start = mcp_now() + 0.5;
		return r;
	}
	new_generation(s);
	pid = s->ops->pid(s->t);
	if (pid)
		mlog(MLOG_INFO, "server %s thread %s: started %s [%s] pid %d "
		     "gen %u", conf->name, s->oneshot ? "(one-shot)" : s->name,
		     base_name(conf->command), conf->digest, pid,
		     s->generation);
	else
		mlog(MLOG_INFO, "server %s thread %s: connecting over %s [%s] "
		     "gen %u", conf->name, s->oneshot ? "(one-shot)" : s->name,
		     s->ops->name, conf->digest, s->generation);
	send_initialize(s);
	return 0;
}

/* ---- the session's end of the protocol ---- */

static cJSON *failure_data(mcp_session *s)
{
	cJSON *d = cJSON_CreateObject();
	char *tail;

	if (s->has_exit) {
		if (s->term_signal)
			cJSON_AddNumberToObject(d, "signal", s->term_signal);
		else
			cJSON_AddNumberToObject(d, "exitStatus",
						s->exit_status);
	}
	tail = stderr_tail(s, 2048);
	if (tail && *tail)
		cJSON_AddStringToObject(d, "stderr", tail);
	free(tail);
	return d;
}

static void session_fail_all(mcp_session *s, int code, const char *msg,
			     cJSON *data)
{
	mcp_call *c;
	size_t pos;

	mcp_call_ref(s->init);
	for (;;) {
		pos = 0;
		c = idtab_next(&s->pending, &pos, NULL);
		if (!c)
			c = s->queue;
		if (!c)
			break;
		call_fail(c, code, msg, data);
	}
	mcp_call_unref(s->init);
	s->init = NULL;
}

/*
 * The process is gone or unusable (exit, stdout closed, protocol error,
 * failed handshake): fail everything in flight with the cause and the
 * stderr tail, detach the process, and remember a failed start for the
 * back-off. The next call starts a fresh process.
 */
static void session_lost(mcp_session *s, int code, const char *what)
{
	int starting = s->state == S_STARTING;
	char msg[512];
	cJSON *data;

	if (starting) {
		double delay;

		s->start_fails++;
		delay = 0.5 * (double)(1u << (s->start_fails < 7 ?
					      s->start_fails - 1 : 6));
		if (delay > 30)
			delay = 30;
		s->next_start = mcp_now() + delay;
		snprintf(msg, sizeof msg, "startup failed: %s", what);
		code = ERR_STARTUP;
	} else {
		snprintf(msg, sizeof msg, "%s", what);
	}
	mlog(MLOG_WARN, "server %s thread %s: %s", s->srv->conf->name,
	     s->oneshot ? "(one-shot)" : s->name, msg);
	free(s->last_error);
	s->last_error = strdup(msg);
	s->state = S_EXITED;
	session_detach(s);
	data = failure_data(s);
	session_fail_all(s, code, msg, data);
	cJSON_Delete(data);
	if (!s->closed)
		set_ref(&s->tools, NULL);
}

/*
 * The transport lost request rpc_id (http.c: a failed transfer, an HTTP
 * error): fail that call with the cause, or the start when it was the
 * handshake. The session stays.
 */
static void session_call_error(mcp_session *s, uint64_t rpc_id, int code,
			const char *msg)
{
	mcp_call *c = idtab_get(&s->pending, rpc_id);
	cJSON *d;

	if (!c)
		return;
	if (c->kind == CALL_INIT) {
		session_lost(s, code, msg);
		return;
	}
	mlog(MLOG_INFO, "server %s thread %s: request %" PRIu64 " failed: %s",
	     s->srv->conf->name, s->oneshot ? "(one-shot)" : s->name, rpc_id,
	     msg);
	d = failure_data(s);
	call_fail(c, code, msg, d);
	cJSON_Delete(d);
}

void session_answer(mcp_session *s, cJSON *id, cJSON *result, cJSON *err)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	if (err)
		cJSON_AddItemToObject(m, "error", err);
	else
		cJSON_AddItemToObject(m, "result", result);
	send_json(s, m, 0);
	cJSON_Delete(m);
}

/* Requests from the server to mcpfs. */
static void server_request(mcp_session *s, const char *method, cJSON *id,
			   cJSON *msg)
{
	const struct mcp_server_conf *conf = s->srv->conf;
	char why[160];

	if (!strcmp(method, "ping")) {
		session_answer(s, id, cJSON_CreateObject(), NULL);
	} else if (!strcmp(method, "roots/list")) {
		cJSON *r = cJSON_CreateObject();
		cJSON *a = cJSON_AddArrayToObject(r, "roots");
		size_t i;

		for (i = 0; i < conf->nroots; i++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "uri", conf->roots[i]);
			cJSON_AddItemToArray(a, o);
		}
		session_answer(s, id, r, NULL);
	} else if (!strcmp(method, "elicitation/create") ||
		   !strcmp(method, "sampling/createMessage")) {
		ask_request(s, method, id,
			    cJSON_GetObjectItemCaseSensitive(msg, "params"));
	} else {
		snprintf(why, sizeof why, "mcpfs does not support %s", method);
		session_answer(s, id, NULL, error_obj(-32601, why, NULL));
	}
}

static void progress_for(mcp_session *s, cJSON *params)
{
	cJSON *tok = cJSON_GetObjectItemCaseSensitive(params, "progressToken");
	char *t;
	size_t pos = 0;
	mcp_call *c;

	if (!tok)
		return;
	t = cJSON_PrintUnformatted(tok);
	if (!t)
		return;
	while ((c = idtab_next(&s->pending, &pos, NULL)) != NULL)
		if (!strcmp(c->token, t))
			call_progress(c);
	cJSON_free(t);
}

static void notification(mcp_session *s, const char *method, cJSON *msg,
			 const char *line, size_t len)
{
	ring_line(&s->events, line, len);
	if (!strcmp(method, "notifications/progress")) {
		progress_for(s, cJSON_GetObjectItemCaseSensitive(msg, "params"));
	} else if (!strcmp(method, "notifications/tools/list_changed")) {
		set_ref(&s->tools, NULL);
		set_ref(&s->srv->tools, NULL);
	} else if (!strcmp(method, "notifications/cancelled")) {
		ask_cancelled(s, cJSON_GetObjectItemCaseSensitive(msg,
								  "params"));
	}
}

static int version_known(const char *v)
{
	size_t i;

	for (i = 0; i < sizeof versions / sizeof versions[0]; i++)
		if (!strcmp(v, versions[i]))
			return 1;
	return 0;
}

static void init_reply(mcp_session *s, mcp_call *c, cJSON *msg)
{
	cJSON *res = cJSON_GetObjectItemCaseSensitive(msg, "result");
	cJSON *err = cJSON_GetObjectItemCaseSensitive(msg, "error");
	cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "protocolVersion");
	char why[300];
	cJSON *nm;

	idtab_del(&s->pending, c->rpc_id);
	c->done = 1;
	uv_timer_stop(&c->timer);
	s->init = NULL;
	if (err || !cJSON_IsObject(res)) {
		cJSON *m = cJSON_GetObjectItemCaseSensitive(err, "message");

		snprintf(why, sizeof why, "initialize failed: %s",
			 cJSON_IsString(m) ? m->valuestring : "bad reply");
		mcp_call_unref(c);
		session_lost(s, ERR_STARTUP, why);
		return;
	}
	if (!cJSON_IsString(v) || !version_known(v->valuestring)) {
		snprintf(why, sizeof why, "unsupported protocol version %.40s",
			 cJSON_IsString(v) ? v->valuestring : "(none)");
		mcp_call_unref(c);
		session_lost(s, ERR_STARTUP, why);
		return;
	}
	mcp_call_unref(c);
	snprintf(s->protocol, sizeof s->protocol, "%s", v->valuestring);
	cJSON_Delete(s->server_info);
	cJSON_Delete(s->capabilities);
	s->server_info = cJSON_DetachItemFromObjectCaseSensitive(res,
								 "serverInfo");
	s->capabilities = cJSON_DetachItemFromObjectCaseSensitive(
		res, "capabilities");
	s->state = S_READY;
	s->start_fails = 0;
	nm = cJSON_GetObjectItemCaseSensitive(s->server_info, "name");
	mlog(MLOG_INFO, "server %s thread %s: ready (%s, protocol %s)",
	     s->srv->conf->name, s->oneshot ? "(one-shot)" : s->name,
	     cJSON_IsString(nm) ? nm->valuestring : "?", s->protocol);
	if (s->ops->ready)
		s->ops->ready(s->t, s->protocol);
	{
		cJSON *n = cJSON_CreateObject();

		cJSON_AddStringToObject(n, "jsonrpc", "2.0");
		cJSON_AddStringToObject(n, "method",
					"notifications/initialized");
		send_json(s, n, 0);
		cJSON_Delete(n);
	}
	while (s->queue && s->state == S_READY) {
		mcp_call *q = s->queue;

		s->queue = q->qnext;
		if (!s->queue)
			s->qtail = &s->queue;
		q->qnext = NULL;
		call_send(s, q);
	}
}

/* tools/list pages: gather tools until there is no nextCursor. */
static void tools_page(mcp_session *s, mcp_call *c, cJSON *res)
{
	cJSON *tools = cJSON_GetObjectItemCaseSensitive(res, "tools");
	cJSON *next = cJSON_GetObjectItemCaseSensitive(res, "nextCursor");
	cJSON *t, *out;

	if (!c->acc)
		c->acc = cJSON_CreateArray();
	cJSON_ArrayForEach(t, tools)
		cJSON_AddItemToArray(c->acc, cJSON_Duplicate(t, 1));
	if (cJSON_IsString(next) && *next->valuestring &&
	    cJSON_GetArraySize(c->acc) < 100000) {
		cJSON *m = cJSON_CreateObject(), *p;

		idtab_del(&s->pending, c->rpc_id);
		c->rpc_id = s->next_id++;
		idtab_put(&s->pending, c->rpc_id, c);
		cJSON_AddStringToObject(m, "jsonrpc", "2.0");
		cJSON_AddNumberToObject(m, "id", (double)c->rpc_id);
		cJSON_AddStringToObject(m, "method", "tools/list");
		p = cJSON_AddObjectToObject(m, "params");
		cJSON_AddStringToObject(p, "cursor", next->valuestring);
		send_json(s, m, c->rpc_id);
		cJSON_Delete(m);
		return;
	}
	out = cJSON_CreateObject();
	cJSON_AddItemToObject(out, "tools", c->acc);
	c->acc = NULL;
	call_complete(c, mcp_buf_json(out, 1));
	cJSON_Delete(out);
}

static void response(mcp_session *s, cJSON *msg)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	cJSON *res = cJSON_GetObjectItemCaseSensitive(msg, "result");
	cJSON *err = cJSON_GetObjectItemCaseSensitive(msg, "error");
	mcp_call *c = NULL;

	if (cJSON_IsNumber(id) && id->valuedouble >= 1 &&
	    id->valuedouble < 9007199254740992.0)
		c = idtab_get(&s->pending, (uint64_t)id->valuedouble);
	if (!c) {
		mlog(MLOG_DEBUG, "server %s: reply to unknown id dropped",
		     s->srv->conf->name);
		return;
	}
	if (c->kind == CALL_INIT) {
		init_reply(s, c, msg);
		return;
	}
	if (err) {
		call_complete(c, error_reply(err));
		return;
	}
	if (c->kind == CALL_TOOLS) {
		tools_page(s, c, res);
		return;
	}
	call_complete(c, mcp_buf_json(res ? res : cJSON_GetObjectItem(msg,
							"result"), 0));
}

/* ---- replies to user calls: the result passed through as sent ---- */

static size_t skip_ws(const char *p, size_t i, size_t n)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
			 p[i] == '\n'))
		i++;
	return i;
}

/*
 * A reply {"jsonrpc", "id": N, "result": R} found by its top-level
 * structure: *id and the span of R (the first of duplicate keys, as cJSON).
 * Returns 0, or -1 for anything else (which then takes the cJSON path).
 */
static int raw_reply(const char *p, size_t n, uint64_t *id, size_t *rs,
		     size_t *re)
{
	size_t i = skip_ws(p, 0, n), ks, ke, vs, ve;
	int have_id = 0, have_res = 0;

	if (i >= n || p[i++] != '{')
		return -1;
	for (;;) {
		i = skip_ws(p, i, n);
		if (i >= n || p[i] != '"' || !(ke = jscan_string_end(p, i, n)))
			return -1;
		ks = i + 1;
		i = skip_ws(p, ke, n);
		if (i >= n || p[i++] != ':')
			return -1;
		vs = skip_ws(p, i, n);
		if (!(ve = jscan_value_end(p, vs, n)) || ve == vs)
			return -1;
		if (ke - ks == 3 && !memcmp(p + ks, "id\"", 3)) {
			char num[24];
			char *end;
			unsigned long long v;

			if (ve - vs >= sizeof num || p[vs] < '1' || p[vs] > '9')
				return -1;
			memcpy(num, p + vs, ve - vs);
			num[ve - vs] = 0;
			v = strtoull(num, &end, 10);
			if (*end)
				return -1;
			if (!have_id)
				*id = v;
			have_id = 1;
		} else if (ke - ks == 7 && !memcmp(p + ks, "result\"", 7)) {
			if (!have_res) {
				*rs = vs;
				*re = ve;
			}
			have_res = 1;
		} else if (ke - ks != 8 || memcmp(p + ks, "jsonrpc\"", 8)) {
			return -1;
		}
		i = skip_ws(p, ve, n);
		if (i < n && p[i] == ',') {
			i++;
			continue;
		}
		if (i < n && p[i] == '}')
			break;
		return -1;
	}
	return have_id && have_res ? 0 : -1;
}

/* 1 if the line is one valid JSON value. Checked below FAST_REPLY_MIN,
 * where that is cheap next to cJSON; above, the structure only. */
static int valid_line(const char *line, size_t len)
{
	struct jscan j;
	size_t used;
	int r;

	if (len >= FAST_REPLY_MIN)
		return 1;
	jscan_init(&j);
	r = jscan_feed(&j, line, len, &used);
	if (r == JSCAN_MORE)
		r = jscan_finish(&j);
	return r == JSCAN_DONE;
}

/*
 * Replies to user calls skip cJSON: the result as the server sent it, no
 * parse, no print. A long one stays where it was read: the frame's buffer
 * becomes the reply (the result is followed by at least the envelope's '}'
 * and the NUL, room for its newline and NUL). A short one is copied, so that
 * a kept reply holds no more memory than it needs.
 */
static int fast_reply(mcp_session *s, struct frame *f, char *line,
		      size_t len)
{
	uint64_t id = 0;
	size_t rs = 0, re = 0;
	mcp_call *c;
	mcp_buf *b = NULL;
	char *mem;

	if (raw_reply(line, len, &id, &rs, &re) < 0)
		return -1;
	c = idtab_get(&s->pending, id);
	if (!c || c->kind != CALL_USER || !valid_line(line, len))
		return -1;
	if (f && len >= FAST_REPLY_MIN && (mem = frame_take(f)) != NULL) {
		line[re] = '\n';
		line[re + 1] = '\0';
		b = mcp_buf_wrap(mem, (size_t)(line + rs - mem), re - rs + 1);
		if (!b)
			free(mem);
		call_complete(c, b); /* NULL: an out of memory error */
		return 0;
	}
	b = mcp_buf_new(NULL, re - rs + 1);
	if (!b)
		return -1;
	memcpy(b->data, line + rs, re - rs);
	b->data[re - rs] = '\n';
	call_complete(c, b);
	return 0;
}

static void session_message(mcp_session *s, struct frame *f, char *line,
		     size_t len)
{
	cJSON *msg, *method, *id;

	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (!len || fast_reply(s, f, line, len) == 0)
		return;
	msg = cJSON_ParseWithLength(line, len);
	if (!cJSON_IsObject(msg)) {
		mlog(MLOG_WARN, "server %s: skipped a non-JSON stdout line "
		     "(%zu bytes)", s->srv->conf->name, len);
		cJSON_Delete(msg);
		return;
	}
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	if (cJSON_IsString(method)) {
		if (id && !cJSON_IsNull(id))
			server_request(s, method->valuestring, id, msg);
		else
			notification(s, method->valuestring, msg, line, len);
	} else if (id) {
		response(s, msg);
	} else {
		mlog(MLOG_WARN, "server %s: skipped a message that is neither "
		     "request, notification nor reply", s->srv->conf->name);
	}
	cJSON_Delete(msg);
}

/* ---- what the transport reports ---- */

static void up_message(void *ctx, struct frame *f, char *line, size_t len)
{
	session_message(ctx, f, line, len);
}

static void up_lost(void *ctx, int code, const char *what)
{
	session_lost(ctx, code, what);
}

static void up_call_error(void *ctx, uint64_t rpc_id, int code,
			  const char *msg)
{
	session_call_error(ctx, rpc_id, code, msg);
}

static int up_call_pending(void *ctx, uint64_t rpc_id)
{
	mcp_session *s = ctx;

	return idtab_get(&s->pending, rpc_id) != NULL;
}

static void up_diag(void *ctx, const char *p, size_t n)
{
	mcp_session *s = ctx;

	ring_append(&s->err, p, n);
}

static void up_exited(void *ctx, int64_t status, int term_signal)
{
	mcp_session *s = ctx;

	s->has_exit = 1;
	s->exit_status = (int)status;
	s->term_signal = term_signal;
}

static const struct transport_up session_up = {
	.message = up_message,
	.lost = up_lost,
	.call_error = up_call_error,
	.call_pending = up_call_pending,
	.diag = up_diag,
	.exited = up_exited,
};

/* ---- sending calls ---- */

static void call_send(mcp_session *s, mcp_call *c)
{
	char tok[40]; /* "mcpfs-ID: c->token without its closing quote */
	size_t n, tn;
	char *line;

	c->rpc_id = s->next_id++;
	if (c->kind == CALL_TOOLS) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "jsonrpc", "2.0");
		cJSON_AddNumberToObject(m, "id", (double)c->rpc_id);
		cJSON_AddStringToObject(m, "method", "tools/list");
		idtab_put(&s->pending, c->rpc_id, c);
		send_json(s, m, c->rpc_id);
		cJSON_Delete(m);
		return;
	}
	memcpy(tok, "\"mcpfs-", 7);
	tn = 7 + mcp_u64_str(tok + 7, c->rpc_id);
	line = mcp_request_line(c->line, &c->req, c->rpc_id, tok + 1, &n);
	if (!c->token[0]) {
		memcpy(c->token, tok, tn);
		memcpy(c->token + tn, "\"", 2);
	}
	free(c->line);
	c->line = NULL;
	if (!line) {
		call_fail(c, -32603, "cannot build the request", NULL);
		return;
	}
	idtab_put(&s->pending, c->rpc_id, c);
	session_send(s, line, n, c->rpc_id);
}

/* Queue c behind the handshake, starting a process if there is none. */
static void session_submit(mcp_session *s, mcp_call *c)
{
	if (s->state == S_EXITED || s->state == S_IDLE) {
		int r = session_spawn(s);

		if (r < 0) {
			char msg[600];
			cJSON *d = failure_data(s);

			if (r == -EAGAIN)
				snprintf(msg, sizeof msg,
					 "server keeps failing to start "
					 "(attempt %u); next try in %.1f s; "
					 "last error: %s", s->start_fails,
					 s->next_start - mcp_now(),
					 s->last_error ? s->last_error : "");
			else
				snprintf(msg, sizeof msg, "startup failed: %s",
					 s->last_error);
			call_fail(c, ERR_STARTUP, msg, d);
			cJSON_Delete(d);
			return;
		}
	}
	if (s->state == S_READY) {
		call_send(s, c);
		return;
	}
	c->qnext = NULL;
	*s->qtail = c;
	s->qtail = &c->qnext;
}

/* The user's own progress token, as cJSON prints it (as progress_for
 * prints the tokens of notifications), if the request has one. */
static void user_token(mcp_call *c)
{
	const struct mcp_span *t = &c->req.token;
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

int mcp_call_start(mcp_server *srv, mcp_session *s, const char *json,
		   size_t len, mcp_call **out, const char **why)
{
	struct mcp_request req;
	mcp_call *c;

	if (mcp_request_parse(json, len, &req, why) < 0)
		return -EINVAL;
	if (s && s->closed)
		return -ENOENT;
	if (!s) {
		s = session_new(srv, "", 1);
		if (!s)
			return -ENOMEM;
	}
	c = call_new(CALL_USER, srv, s);
	if (!c || !(c->line = malloc(len + 1))) {
		if (c)
			mcp_call_unref(c);
		return -ENOMEM;
	}
	memcpy(c->line, json, len);
	c->line[len] = 0;
	c->req = req;
	c->timeout = call_timeout_of(srv);
	user_token(c);
	s->calls++;
	s->in_flight++;
	s->last_used = mcp_now();
	if (s->oneshot) {
		srv->in_flight++;
		set_ref(&srv->last_sent, c);
	} else {
		set_ref(&s->last_sent, c);
	}
	uv_timer_stop(&s->idle_timer);
	*out = mcp_call_ref(c); /* the caller's; the session keeps the first */
	session_submit(s, c);
	return 0;
}

int mcp_call_refused(mcp_server *srv, mcp_session *s, const char *why,
		     mcp_call **out)
{
	char msg[300];
	cJSON *e;
	mcp_call *c;

	if (s && s->closed)
		return -ENOENT;
	c = calloc(1, sizeof *c);
	if (!c)
		return -ENOMEM;
	c->refs = 1;
	c->kind = CALL_USER;
	c->srv = srv;
	c->started = mcp_now();
	uv_timer_init(mcp_loop, &c->timer);
	c->timer.data = c;
	snprintf(msg, sizeof msg, "request refused: %s", why);
	e = error_obj(-32600, msg, NULL);
	c->reply = error_reply(e);
	cJSON_Delete(e);
	c->done = 1;
	if (s) {
		free(s->last_error);
		s->last_error = strdup(msg);
		s->last_used = mcp_now();
		if (!s->in_flight)
			set_ref(&s->last_done, c);
		set_ref(&s->last_sent, c);
	} else {
		if (!srv->in_flight)
			set_ref(&srv->last_done, c);
		set_ref(&srv->last_sent, c);
	}
	*out = c;
	return 0;
}

int mcp_tools(mcp_server *srv, mcp_session *s, mcp_call **out)
{
	mcp_call **slot, *c;

	if (s && s->closed)
		return -ENOENT;
	slot = s ? &s->tools : &srv->tools;
	c = *slot;
	if (c && c->done && !memcmp(c->reply->data, "{\"error\"", 8))
		c = NULL; /* do not cache failures */
	if (c) {
		*out = mcp_call_ref(c);
		return 0;
	}
	if (!s && !(s = session_new(srv, "", 1)))
		return -ENOMEM;
	c = call_new(CALL_TOOLS, srv, s);
	if (!c)
		return -ENOMEM;
	set_ref(slot, c);
	uv_timer_stop(&s->idle_timer);
	*out = mcp_call_ref(c);
	session_submit(s, c);
	return 0;
}

mcp_call *mcp_latest(mcp_server *srv, mcp_session *s)
{
	if (s)
		return s->in_flight ? s->last_sent : s->last_done;
	return srv->in_flight ? srv->last_sent : srv->last_done;
}

/* ---- session objects ---- */

/*
 * Close a session that goes away without an rmdir (idle, cap, ctl close,
 * reload) and tell fs/ so the kernel forgets its directory. The session is
 * freed later (from a close callback), so s stays valid here.
 */
void session_close_notify(mcp_session *s, const char *why)
{
	mlog(MLOG_INFO, "server %s thread %s: closing (%s)",
	     s->srv->conf->name, s->name, why);
	session_close(s, why);
	if (mcp_hooks_p && mcp_hooks_p->session_gone)
		mcp_hooks_p->session_gone(s->srv->id, s->name);
}

static void idle_cb(uv_timer_t *t)
{
	mcp_session *s = t->data;

	if (session_idle(s))
		session_close_notify(s, "idle timeout");
}

int session_idle(const mcp_session *s)
{
	size_t pos = 0;

	return !s->closed && !s->holds && !s->queue &&
	       (!idtab_next(&s->pending, &pos, NULL) ||
		(s->init && s->pending.count == 1));
}

static void idle_check(mcp_session *s)
{
	double t = s->srv->conf->idle_timeout >= 0 ? s->srv->conf->idle_timeout
						   : mcp_opts.idle_timeout;

	if (s->oneshot || s->closed)
		return;
	if (t > 0 && session_idle(s))
		uv_timer_start(&s->idle_timer, idle_cb, (uint64_t)(t * 1000),
			       0);
	else
		uv_timer_stop(&s->idle_timer);
}

static mcp_session *session_new(mcp_server *srv, const char *name,
				int oneshot)
{
	mcp_session *s = calloc(1, sizeof *s);

	if (!s)
		return NULL;
	s->id = mcp_new_id();
	snprintf(s->name, sizeof s->name, "%s", name);
	s->srv = srv;
	s->oneshot = oneshot;
	s->state = S_IDLE;
	s->created = s->last_used = mcp_now();
	s->next_id = 1;
	idtab_init(&s->pending);
	s->qtail = &s->queue;
	s->err.cap = STDERR_KEEP;
	s->events.cap = EVENTS_KEEP;
	uv_timer_init(mcp_loop, &s->idle_timer);
	s->idle_timer.data = s;
	s->next = all_sessions;
	if (s->next)
		s->next->pprev = &s->next;
	s->pprev = &all_sessions;
	all_sessions = s;
	if (!oneshot)
		thread_add(s);
	session_obj_hold();
	return s;
}

/* Start the process of a new thread session (mkdir). */
static int session_start(mcp_session *s)
{
	int r = session_spawn(s);

	idle_check(s);
	return r;
}

static void session_free_cb(uv_handle_t *h)
{
	mcp_session *s = h->data;

	idtab_free(&s->pending);
	cJSON_Delete(s->server_info);
	cJSON_Delete(s->capabilities);
	free(s->last_error);
	free(s->err.buf);
	free(s->events.buf);
	free(s);
	session_obj_drop();
}

void session_close(mcp_session *s, const char *why)
{
	char msg[160];

	if (s->closed)
		return;
	if (!s->oneshot)
		thread_del(s);
	s->closed = 1;
	*s->pprev = s->next;
	if (s->next)
		s->next->pprev = s->pprev;
	snprintf(msg, sizeof msg, "session closed (%s)", why);
	mlog(MLOG_DEBUG, "server %s thread %s: %s", s->srv->conf->name,
	     s->oneshot ? "(one-shot)" : s->name, msg);
	session_fail_all(s, ERR_CLOSED, msg, NULL);
	s->state = S_CLOSING;
	session_detach(s);
	set_ref(&s->last_sent, NULL);
	set_ref(&s->last_done, NULL);
	set_ref(&s->tools, NULL);
	uv_close((uv_handle_t *)&s->idle_timer, session_free_cb);
}

static void session_restart(mcp_session *s)
{
	set_ref(&s->tools, NULL);
	session_fail_all(s, ERR_CLOSED, "session restarted", NULL);
	session_detach(s);
	s->state = S_EXITED;
	s->start_fails = 0;
	session_spawn(s);
	idle_check(s);
}

unsigned session_live_count(void)
{
	unsigned n = 0;
	mcp_session *s;

	for (s = all_sessions; s; s = s->next)
		if (!s->oneshot)
			n++;
	return n;
}

void sessions_reap_done(void (*cb)(void))
{
	mcp_session *s;

	while ((s = all_sessions) != NULL) {
		if (!s->oneshot && mcp_hooks_p && mcp_hooks_p->session_gone)
			mcp_hooks_p->session_gone(s->srv->id, s->name);
		session_close(s, "shutting down");
	}
	reaped_cb = cb;
	if (closing_objects == 0)
		cb();
}

/* ---- threads: lookups and the cap ---- */

static struct idtab session_ids; /* threads by id */

void sessions_init(void)
{
	idtab_init(&session_ids);
}

void sessions_fini(void)
{
	idtab_free(&session_ids);
}

mcp_session *mcp_session_first(mcp_server *srv) { return srv->sessions; }

mcp_session *mcp_session_next(mcp_session *s)
{
	return (mcp_session *)s->srv_next;
}

mcp_session *mcp_session_find(mcp_server *srv, const char *name)
{
	mcp_session *s;

	for (s = srv->sessions; s; s = s->srv_next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

mcp_session *mcp_session_by_id(uint64_t id)
{
	return idtab_get(&session_ids, id);
}

static void thread_add(mcp_session *s)
{
	mcp_server *srv = s->srv;

	s->srv_next = srv->sessions;
	if (s->srv_next)
		s->srv_next->srv_pprev = &s->srv_next;
	s->srv_pprev = &srv->sessions;
	srv->sessions = s;
	srv->nsessions++;
	idtab_put(&session_ids, s->id, s);
}

static void thread_del(mcp_session *s)
{
	*s->srv_pprev = s->srv_next;
	if (s->srv_next)
		s->srv_next->srv_pprev = s->srv_pprev;
	s->srv->nsessions--;
	idtab_del(&session_ids, s->id);
}

/* ---- the cap ---- */

static mcp_session *lru_idle(void)
{
	mcp_session *s, *best = NULL;

	for (s = all_sessions; s; s = s->next)
		if (!s->oneshot && session_idle(s) &&
		    (!best || s->last_used < best->last_used))
			best = s;
	return best;
}

static void session_trim(void)
{
	static int trimming;
	mcp_session *s;

	if (trimming || !mcp_opts.max_sessions)
		return;
	trimming = 1;
	while (session_live_count() > mcp_opts.max_sessions &&
	       (s = lru_idle()) != NULL)
		session_close_notify(s, "session cap");
	trimming = 0;
}

int mcp_session_create(mcp_server *srv, const char *name, mcp_session **out)
{
	mcp_session *s;

	if (!mcp_thread_name_valid(name))
		return -EINVAL;
	if (mcp_session_find(srv, name) || !strcmp(name, "call") ||
	    !strcmp(name, "tools.json"))
		return -EEXIST;
	if (mcp_opts.max_sessions) {
		while (session_live_count() >= mcp_opts.max_sessions &&
		       (s = lru_idle()) != NULL)
			session_close_notify(s, "session cap");
	}
	s = session_new(srv, name, 0);
	if (!s)
		return -ENOMEM;
	session_start(s);
	*out = s;
	return 0;
}


/* ---- accessors for fs/ ---- */

uint64_t mcp_session_id(const mcp_session *s) { return s->id; }
const char *mcp_session_name(const mcp_session *s) { return s->name; }
mcp_server *mcp_session_server(const mcp_session *s) { return s->srv; }
double mcp_session_created(const mcp_session *s) { return s->created; }
double mcp_session_last_used(const mcp_session *s) { return s->last_used; }

void mcp_session_hold(mcp_session *s)
{
	s->holds++;
	uv_timer_stop(&s->idle_timer);
}

void mcp_session_release(mcp_session *s)
{
	if (s->holds > 0)
		s->holds--;
	if (!s->closed) {
		idle_check(s);
		session_trim();
	}
}

int mcp_session_ctl(mcp_session *s, const char *verb, size_t len)
{
	while (len && (verb[len - 1] == '\n' || verb[len - 1] == ' ' ||
		       verb[len - 1] == '\t' || verb[len - 1] == '\r'))
		len--;
	if (len == 6 && !memcmp(verb, "cancel", 6)) {
		mcp_call *c;
		size_t pos;

		for (;;) {
			pos = 0;
			while ((c = idtab_next(&s->pending, &pos, NULL)) &&
			       c->kind == CALL_INIT)
				;
			if (!c)
				c = s->queue;
			if (!c)
				break;
			mcp_call_cancel(c);
		}
		return 0;
	}
	if (len == 7 && !memcmp(verb, "restart", 7)) {
		mlog(MLOG_INFO, "server %s thread %s: restart",
		     s->srv->conf->name, s->name);
		session_restart(s);
		return 0;
	}
	if (len == 5 && !memcmp(verb, "close", 5)) {
		session_close_notify(s, "ctl close");
		return 0;
	}
	return -EINVAL;
}

