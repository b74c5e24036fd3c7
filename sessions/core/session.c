/*
 * session.c - the session core, the same for every transport: starting a
 * server and its initialize handshake, sending calls (queued until the
 * handshake is done), and the lifecycle around them: crash, timeout,
 * cancel, restart, idle, close (the cap is warm.c's). It reaches the
 * server only through the transport ops table of transport.h, chosen at
 * each start from the config entry, and hears back through session_up; it
 * never names a transport. What the server sends is sorted by inbound.c;
 * call objects are call.c's, the index of sessions index.c's, the
 * messages built message.c's; none of them calls back into this file
 * except through the hooks it gives them in sessions_init.
 *
 * Ownership. A session owns at most one attached transport. One that is
 * closed or lost is detached: it finishes closing on its own (for a process:
 * stdin EOF, 2 s, SIGTERM to the group, 2 s, SIGKILL; for HTTP: DELETE) and
 * frees itself, holding a closing object until then. A session holds a
 * reference to each call queued or in flight (see call.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ask.h"
#include "era.h"
#include "index.h"
#include "internal.h"
#include "jsent.h"
#include "lost.h"
#include "pages.h"
#include "policy.h"
#include "stream.h"
#include "task.h"

static void call_send(mcp_session *s, mcp_call *c);
static int task_check(mcp_session *s, mcp_call *c);
static void session_lost(mcp_session *s, int code, const char *what);
static void session_ready(mcp_session *s);

/* ---- calls: timeouts, cancels, what follows a completion ---- */

/* The probe c (handshake.c) ended with msg (or none: why). */
static void probe_done(mcp_session *s, mcp_call *c, cJSON *msg,
		       const char *why)
{
	char buf[400];
	int r;

	snprintf(buf, sizeof buf, "%s", why ? why : "");
	r = hs_probe_done(s, c, msg, buf, sizeof buf);
	if (r > 0)
		session_ready(s);
	else if (r < 0)
		session_lost(s, ERR_STARTUP, buf);
}

static void call_timed_out(mcp_call *c)
{
	mcp_session *s = c->s;
	char msg[160];

	if (c->kind == CALL_INIT && c->probe) {
		snprintf(msg, sizeof msg, "no answer to server/discover in "
			 "%g s", c->timeout);
		probe_done(s, c, NULL, msg);
		return;
	}
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
	cancel_call(c, ERR_TIMEOUT, msg, "timeout"); /* and last_error */
}

/* After a call of s completed (s is NULL for a refused one). */
static void call_completed(mcp_session *s)
{
	if (s && !s->closed) {
		if (s->oneshot && session_idle(s))
			session_close(s, "one-shot call done");
		else
			session_idle_check(s);
	}
}

/* ---- the transport ---- */

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

/* A new process or HTTP session is starting its handshake. */
static void new_generation(mcp_session *s)
{
	s->generation++;
	s->state = S_STARTING;
	s->has_exit = 0;
	s->exit_status = s->term_signal = 0;
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
		session_error(s, strdup(err));
		about_start_failed(s->srv, s->last_error);
		s->state = S_EXITED;
		s->start_fails++;
		s->next_start = mcp_now() + 0.5;
		return r;
	}
	new_generation(s);
	pid = s->ops->caps & TRANSPORT_PID ? s->ops->pid(s->t) : 0;
	if (s->ops->caps & TRANSPORT_PID)
		mlog(MLOG_INFO, "server %s thread %s: started %s [%s] pid %d "
		     "gen %u", conf->name, s->oneshot ? "(one-shot)" : s->name,
		     mcp_base_name(conf->command), conf->digest, pid,
		     s->generation);
	else
		mlog(MLOG_INFO, "server %s thread %s: connecting over %s [%s] "
		     "gen %u", conf->name, s->oneshot ? "(one-shot)" : s->name,
		     s->ops->name, conf->digest, s->generation);
	if (hs_start(s) < 0)
		session_lost(s, ERR_STARTUP, "out of memory");
	return 0;
}

/* ---- the session's end of the protocol ---- */

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
			c = TAILQ_FIRST(&s->queue);
		if (!c) /* a modern task between two polls (task.c) */
			c = task_first(s);
		if (!c)
			break;
		call_fail_noted(c, code, msg, data); /* its cause set, or asked */
	}
	mcp_call_unref(s->init);
	s->init = NULL;
}

/*
 * The process is gone or unusable (exit, stdout closed, protocol error,
 * failed handshake): fail everything in flight with the cause and the
 * stderr tail, detach the process, and remember a failed start for the
 * back-off, or the state lost with a process that was ready (lost.c).
 * The next call starts a fresh process, or is told of the loss first.
 */
static void drop_lists(mcp_session *s)
{
	int i;

	for (i = 0; i < MCP_NLISTS; i++)
		call_set_ref(&s->lists[i], NULL);
	session_list_forget(s, MCP_NLISTS);
}

static void session_lost(mcp_session *s, int code, const char *what)
{
	int starting = s->state == S_STARTING, ready = s->state == S_READY;
	char msg[512];
	cJSON *data;

	if (starting && code == ERR_AUTH_UP) {
		snprintf(msg, sizeof msg, "%s", what); /* no back-off */
	} else if (starting) {
		double delay;

		era_forget(s);
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
	session_error(s, session_reason(s, msg)); /* and its stderr line */
	if (starting)
		about_start_failed(s->srv, s->last_error);
	s->state = S_EXITED;
	session_detach(s);
	data = session_failure_data_for(s, &code);
	if (ready) /* its state is gone: status.lost, the next call told */
		lost_note(s, msg, data);
	session_fail_all(s, code, msg, data);
	cJSON_Delete(data);
	if (!s->closed)
		drop_lists(s);
	if (s->spare && !s->closed) /* refilled at the next mkdir */
		session_close(s, "spare session lost");
}

/*
 * The transport lost request rpc_id (http.c: a failed transfer, an HTTP
 * error with its status): fail that call with the cause, or the start when
 * it was the handshake. The session stays. The cause goes to the thread's
 * stderr, but for the era probe: its failure (any status, no answer, a
 * closed stream: no recognized modern error, which comes as a message)
 * means the handshake era (spec 5), unless the era is forced.
 */
static void session_call_error(mcp_session *s, uint64_t rpc_id, int code,
			       long status, const char *msg)
{
	mcp_call *c = idtab_get(&s->pending, rpc_id);
	cJSON *d;

	if (!c)
		return;
	if (c->kind == CALL_INIT && c->probe && code != ERR_AUTH_UP &&
	    s->srv->conf->era != MCP_ERA_MODERN) {
		probe_done(s, c, NULL, msg); /* logged, not in stderr */
		return;
	}
	if (code != ERR_AUTH_UP) {
		ring_append(&s->err, msg, strlen(msg));
		ring_append(&s->err, "\n", 1);
	}
	if (c->kind == CALL_INIT) {
		session_lost(s, code, msg);
		return;
	}
	mlog(MLOG_INFO, "server %s thread %s: request %" PRIu64 " failed: %s",
	     s->srv->conf->name, s->oneshot ? "(one-shot)" : s->name, rpc_id,
	     msg);
	session_error(s, strdup(msg)); /* "HTTP 502 from the server: ..." */
	d = session_failure_data_for(s, &code);
	call_fail_noted(c, code, msg, d);
	cJSON_Delete(d);
}

static void init_reply(mcp_session *s, mcp_call *c, cJSON *msg)
{
	cJSON *res = cJSON_GetObjectItemCaseSensitive(msg, "result");
	cJSON *err = cJSON_GetObjectItemCaseSensitive(msg, "error");
	cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "protocolVersion");
	char why[300];
	cJSON *m;

	if (!msg) { /* its reply could not be parsed (inbound.c) */
		session_lost(s, ERR_STARTUP, "out of memory");
		return;
	}
	if (c->probe) {
		probe_done(s, c, msg, NULL);
		return;
	}
	idtab_del(&s->pending, c->rpc_id);
	c->done = 1;
	uv_timer_stop(&c->timer);
	s->init = NULL;
	if (err || !cJSON_IsObject(res)) {
		m = cJSON_GetObjectItemCaseSensitive(err, "message");
		snprintf(why, sizeof why, "initialize failed: %s",
			 cJSON_IsString(m) ? m->valuestring : "bad reply");
		mcp_call_unref(c);
		session_lost(s, ERR_STARTUP, why);
		return;
	}
	if (!cJSON_IsString(v) || mcp_version_at(v->valuestring) < 0) {
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
	about_learn(s->srv, s->server_info,
		    cJSON_GetObjectItemCaseSensitive(res, "instructions"));
	session_ready(s);
}

/* The handshake is done (initialize answered, or the modern probe). */
static void session_ready(mcp_session *s)
{
	cJSON *nm, *m;
	mcp_call *q;

	s->state = S_READY;
	s->start_fails = 0;
	nm = cJSON_GetObjectItemCaseSensitive(s->server_info, "name");
	mlog(MLOG_INFO, "server %s thread %s: ready (%s, protocol %s)",
	     s->srv->conf->name, s->oneshot ? "(one-shot)" : s->name,
	     cJSON_IsString(nm) ? nm->valuestring : "?", s->protocol);
	if (s->era != MCP_ERA_MODERN) {
		if (s->ops->ready)
			s->ops->ready(s->t, s->protocol);
		m = msg_notification("notifications/initialized");
		session_send_json(s, m, 0);
		cJSON_Delete(m);
	} else {
		hs_listen(s);
	}
	subs_renew(s); /* spec 15: renewed after a restart */
	while (s->state == S_READY && (q = call_dequeue(s)) != NULL)
		call_send(s, q);
}

/* ---- what the transport reports ---- */

static void up_message(void *ctx, struct frame *f, char *line, size_t len)
{
	inbound_message(ctx, f, line, len);
}

static void up_partial(void *ctx, const char *p, size_t n)
{
	stream_partial(ctx, p, n);
}

static void up_too_long(void *ctx, size_t len, int has_id, uint64_t id)
{
	uint64_t ids[2];
	char msg[256];
	size_t i, n = inbound_too_long(ctx, len, has_id, id, ids, msg,
				       sizeof msg);

	for (i = 0; i < n; i++)
		session_call_error(ctx, ids[i], ERR_PROTOCOL, 0, msg);
}

static void up_lost(void *ctx, int code, const char *what)
{
	session_lost(ctx, code, what);
}

static void up_call_error(void *ctx, uint64_t rpc_id, int code, long status,
			  const char *msg)
{
	session_call_error(ctx, rpc_id, code, status, msg);
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
	.partial = up_partial,
	.too_long = up_too_long,
};

/* ---- sending calls ---- */

static mcp_call **tools_slot(mcp_session *s);

static void call_send(mcp_session *s, mcp_call *c)
{
	char tok[40]; /* "mcpfs-ID: c->token without its closing quote */
	size_t n, tn;
	char *line;

	if (policy_refuse(s, c, *tools_slot(s), 1))
		return; /* the tool policy (spec 13) */
	if (c->kind == CALL_USER && task_check(s, c))
		return; /* sent once the tools listing is there */
	if (policy_refuse(s, c, *tools_slot(s), 0))
		return; /* readOnly, by the listing task_check got */
	c->rpc_id = s->next_id++;
	if (c->kind == CALL_LIST) {
		cJSON *m;

		if (!msg_list_offered(s->capabilities, c->list)) {
			m = cJSON_CreateObject(); /* nothing to list */
			cJSON_AddArrayToObject(m, mcp_list_key(c->list));
			c->rpc_id = 0;
			call_complete(c, mcp_buf_json(m, 1));
			cJSON_Delete(m);
			return;
		}
		session_list_forget(s, c->list); /* asked again */
		m = msg_list(c->rpc_id, c->list, NULL);
		if (call_track(s, c) == 0)
			session_send_json(s, m, c->rpc_id);
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
	if (s->era != MCP_ERA_MODERN) { /* kept for an input_required retry */
		free(c->line);
		c->line = NULL;
	}
	if (!line) {
		call_fail(c, -32603, "cannot build the request", NULL);
		return;
	}
	if (call_track(s, c) < 0) {
		free(line);
		return;
	}
	session_send(s, line, n, c->rpc_id);
}

/* The tools listing a call of s decides its taskSupport by. */
static mcp_call **tools_slot(mcp_session *s)
{
	mcp_call **own = &s->lists[MCP_TOOLS], **srv = &s->srv->lists[MCP_TOOLS];

	return s->oneshot && !*own && *srv && (*srv)->done ? srv : own;
}

static void tools_listed(struct mcp_listener *l, mcp_call *listing)
{
	mcp_call *c = (mcp_call *)((char *)l - offsetof(mcp_call, wait));
	mcp_session *s = c->s;

	if (c->done || !s || !c->queued)
		return;
	TAILQ_REMOVE(&s->queue, c, qlink);
	c->queued = 0;
	call_send(s, c);
}

/*
 * A tool call on a server that runs tools as tasks: 0 to send c now (as a
 * task if its tool requires one), 1 when c waits for the tools listing
 * (fetched on this session) and is sent once it is there.
 */
static int task_check(mcp_session *s, mcp_call *c)
{
	mcp_call **slot = tools_slot(s), *l = *slot;
	int r = task_required(s, c, l);

	if (r > 0 && task_augment(c) < 0)
		mlog(MLOG_WARN, "server %s: cannot make a task of a call",
		     s->srv->conf->name);
	if (r >= 0)
		return 0;
	if (c->wait.link.le_prev) /* already waiting (and queued) */
		return c->queued;
	if (!l || mcp_call_failed(l)) {
		l = call_new(CALL_LIST, s->srv, s);
		if (!l)
			return 0;
		l->list = MCP_TOOLS;
		call_set_ref(slot, l);
		call_send(s, l);
		l = *slot;
	}
	if (!l || l->done) /* answered at once (no tools capability) */
		return task_check(s, c);
	c->wait.done = tools_listed;
	mcp_call_listen(l, &c->wait);
	call_queue(s, c);
	return 1;
}

/* Queue c behind the handshake, starting a process if there is none. */
static void session_submit(mcp_session *s, mcp_call *c)
{
	if (s->state == S_EXITED || s->state == S_IDLE) {
		int r = session_spawn(s);

		if (r == 0 && s->state == S_EXITED)
			r = -EIO; /* its start failed at once (out of memory) */
		if (r < 0) {
			char msg[600];
			cJSON *d = session_failure_data(s);

			if (r == -EIO)
				snprintf(msg, sizeof msg, "%s", s->last_error ?
					 s->last_error : "startup failed");
			else if (r == -EAGAIN)
				snprintf(msg, sizeof msg,
					 "server keeps failing to start "
					 "(attempt %u); next try in %.1f s; "
					 "last error: %s", s->start_fails,
					 s->next_start - mcp_now(),
					 s->last_error ? s->last_error : "");
			else
				snprintf(msg, sizeof msg, "startup failed: %s",
					 s->last_error);
			call_fail_noted(c, ERR_STARTUP, msg, d);
			cJSON_Delete(d);
			return;
		}
	}
	if (s->state == S_READY) {
		call_send(s, c);
		return;
	}
	call_queue(s, c);
}

/* Start r (taken) on s, or on a one-shot session of srv. */
static int call_start(mcp_server *srv, mcp_session *s, mcp_req *r,
		      enum call_kind kind, mcp_call **out)
{
	mcp_call *c;

	if (s && s->closed) {
		mcp_req_free(r);
		return -ENOENT;
	}
	if (!s && !(s = session_new(srv, "", 1, 0))) {
		mcp_req_free(r);
		return -ENOMEM;
	}
	if (!(c = call_new(kind, srv, s))) {
		mcp_req_free(r);
		return -ENOMEM;
	}
	c->line = r->text; /* the text, its parts and its tool, parsed once */
	c->req = r->parsed;
	c->tool = r->tool;
	r->text = r->tool = NULL;
	mcp_req_free(r);
	call_user_token(c);
	call_user_method(c);
	s->calls++;
	s->last_used = mcp_now();
	if (kind == CALL_USER) {
		s->in_flight++;
		if (s->oneshot) {
			srv->in_flight++;
			call_set_ref(&srv->last_sent, c);
		} else {
			call_set_ref(&s->last_sent, c);
		}
	}
	uv_timer_stop(&s->idle_timer);
	*out = mcp_call_ref(c); /* the caller's; the session keeps the first */
	if (!lost_report(s, c)) /* else it failed with the news (spec 5) */
		session_submit(s, c);
	return 0;
}

int mcp_call_start(mcp_server *srv, mcp_session *s, mcp_req *r,
		   mcp_call **out)
{
	return call_start(srv, s, r, r->side ? CALL_SIDE : CALL_USER, out);
}

int mcp_resource_read(mcp_session *s, const char *uri, mcp_call **out)
{
	cJSON *m = cJSON_CreateObject();
	const char *why = NULL;
	mcp_req *q;
	char *txt = NULL;
	int r = -ENOMEM;

	if (cJSON_AddStringToObject(m, "method", "resources/read") &&
	    cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "params"),
				    "uri", uri))
		txt = jsent_print(m, 0, NULL); /* a NUL in uri is C0 80 */
	if (txt && (r = mcp_req_parse(txt, strlen(txt), NULL, MCP_REQ_SIDE,
				      &q, &why)) == 0)
		r = mcp_call_start(s->srv, s, q, out);
	cJSON_Delete(m);
	free(txt);
	return r;
}

int mcp_list(mcp_server *srv, mcp_session *s, enum mcp_list what,
	     mcp_call **out)
{
	mcp_call **slot, *c;

	if (s && s->closed)
		return -ENOENT;
	slot = s ? &s->lists[what] : &srv->lists[what];
	c = *slot;
	if (c && mcp_call_failed(c))
		c = NULL; /* do not cache failures */
	if (c) {
		*out = mcp_call_ref(c);
		return 0;
	}
	if (!s && !(s = srv->probe) && /* one probe per server: spec 12 */
	    !(s = srv->probe = session_new(srv, "", 1, 0)))
		return -ENOMEM;
	c = call_new(CALL_LIST, srv, s);
	if (!c)
		return -ENOMEM;
	c->list = what;
	call_set_ref(slot, c);
	uv_timer_stop(&s->idle_timer);
	*out = mcp_call_ref(c);
	session_submit(s, c);
	if (s == srv->probe && (what == MCP_TOOLS || what == MCP_PROMPTS) &&
	    mcp_list(srv, NULL, what == MCP_TOOLS ? MCP_PROMPTS : MCP_TOOLS,
		     &c) == 0)
		mcp_call_unref(c); /* help/ needs both: asked together */
	return 0;
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
	if (process.hooks && process.hooks->session_gone)
		process.hooks->session_gone(s->srv->id, s->name);
}

static void idle_cb(uv_timer_t *t)
{
	mcp_session *s = t->data;

	if (!LIST_EMPTY(&s->asks)) /* a question waits for its answer */
		session_idle_check(s);
	else if (session_idle(s))
		session_close_notify(s, "idle timeout");
}

void session_idle_check(mcp_session *s)
{
	double t = s->srv->conf->idle_timeout >= 0 ? s->srv->conf->idle_timeout
						   : process.opts.idle_timeout;

	if (s->oneshot || s->spare || s->closed)
		return;
	if (t > 0 && session_idle(s))
		uv_timer_start(&s->idle_timer, idle_cb, (uint64_t)(t * 1000),
			       0);
	else
		uv_timer_stop(&s->idle_timer);
}

/* Start the process of a new thread or spare session. */
int session_start(mcp_session *s)
{
	int r = session_spawn(s);

	session_idle_check(s);
	return r;
}

void session_close(mcp_session *s, const char *why)
{
	char msg[160];

	if (s->closed)
		return;
	sessions_unlink(s);
	s->closed = 1;
	if (s->srv->probe == s)
		s->srv->probe = NULL;
	if (!s->oneshot && !s->spare)
		sessions_closed_note(s, why);
	snprintf(msg, sizeof msg, "session closed (%s)", why);
	mlog(MLOG_DEBUG, "server %s thread %s: %s", s->srv->conf->name,
	     s->oneshot ? "(one-shot)" : s->name, msg);
	session_fail_all(s, ERR_CLOSED, msg, NULL);
	s->state = S_CLOSING;
	session_detach(s);
	call_set_ref(&s->last_sent, NULL);
	call_set_ref(&s->last_done, NULL);
	drop_lists(s);
	session_free(s);
}

void session_restart(mcp_session *s)
{
	drop_lists(s);
	session_fail_all(s, ERR_CLOSED, "session restarted", NULL);
	session_detach(s);
	s->state = S_EXITED;
	s->start_fails = 0;
	lost_forget(s); /* asked for: no call is told */
	session_spawn(s);
	session_idle_check(s);
}

void sessions_reap_done(const char *why, void (*cb)(void))
{
	char reason[96];
	mcp_session *s;

	snprintf(reason, sizeof reason, "shutting down: %s", why ? why : "exit");
	while ((s = sessions_any()) != NULL) {
		if (!s->oneshot && !s->spare && process.hooks &&
		    process.hooks->session_gone)
			process.hooks->session_gone(s->srv->id, s->name);
		session_close(s, reason);
	}
	sessions_when_reaped(cb);
}

/* c's tools listing was dropped (a HeaderMismatch, inbound.c): send c
 * again, which waits for the new one (task_check). */
static void call_relisted_cb(mcp_call *c)
{
	call_send(c->s, c);
}

static const struct call_hooks session_call_hooks = {
	.timed_out = call_timed_out,
	.completed = call_completed,
	.relisted = call_relisted_cb,
	.detached = session_call_detached,
	.freed = session_call_freed,
};

void sessions_init(void)
{
	index_init();
	call_setup(&session_call_hooks);
	inbound_setup(init_reply);
	message_setup(session_call_error);
}

void sessions_fini(void)
{
	index_fini();
}
