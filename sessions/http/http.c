/*
 * http.c - the Streamable HTTP transport (MCP 2025-11-25, "Transports"):
 * one ops table of transport.h, on the libcurl-on-libuv engine of
 * curluv.c, so no thread ever blocks and one loop runs everything.
 *
 * Protocol. Every message to the server is one POST of its JSON with
 * "Accept: application/json, text/event-stream"; after the handshake the
 * session id the server gave (Mcp-Session-Id) and the negotiated
 * MCP-Protocol-Version go on every request. A POST is answered by:
 *   202/204 or an empty body   nothing to read (notifications, answers);
 *   application/json           one message (or a batch array of them);
 *   text/event-stream          SSE events, each one message, until the
 *                              reply to the request has come; a stream that
 *                              ends before it is resumed after the server's
 *                              retry delay by a GET with Last-Event-ID, when
 *                              the stream gave event ids;
 *   404 with a session id      the server ended the session: the session is
 *                              lost (every call in flight fails) and the next
 *                              call starts a new one, generation + 1;
 *   other statuses             that request fails with the HTTP status (a
 *                              JSON-RPC error body is passed on as is).
 * The first request (the initialize) answered 400, 404 or 405 goes to the
 * legacy callback when there is one (fallback.c tries HTTP+SSE then).
 * A transfer that fails (refused, reset, closed early) fails the call it
 * carries, or the handshake (startup failed, with the session's back-off).
 * A request is never sent twice: its body goes through a read callback
 * that curl cannot rewind, so curl fails the transfer instead of resending
 * it on a fresh connection. Each POST may take its own connection, so the
 * requests queued behind the handshake, and the GET stream, wait until the
 * server has answered notifications/initialized (the gate).
 * Once ready, a GET stream carries the server's own requests and
 * notifications; it is reopened after its retry delay (with Last-Event-ID)
 * when it ends, with back-off when it fails, and never when the server
 * answers 405 (or 404: a lost session shows on the next POST). Closing the session sends DELETE with the session id.
 *
 * Ownership. A session owns its struct http while attached. Detaching it
 * (close, lost, restart) aborts every transfer but the DELETE; the struct is
 * freed once its last transfer is (that one has a 2 s limit), and counts as
 * a closing object until then, so shutdown waits for it. A killed transfer
 * is removed from curl by the engine outside curl's callbacks, which then
 * releases it here.
 */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#include "curluv.h"
#include "gbuf.h"
#include "httpcommon.h"
#include "jscan.h"
#include "oauth.h"
#include "sessions.h"
#include "sse.h"
#include "transport.h"

#define RETRY_DEFAULT_MS 1000
#define RETRY_MAX_MS 30000
#define RESUMES_MAX 10
#define GET_FAILS_MAX 8
#define ERROR_BODY_KEEP 4096

enum xkind { X_POST, X_GET, X_RESUME, X_DELETE };

struct xfer {
	struct cu_xfer cu;        /* first: the engine's part */
	struct http *h;
	enum xkind kind;
	struct hc_req q;          /* headers and body */
	uint64_t rpc_id;          /* request carried or resumed, 0 = none */
	long code;                /* HTTP status */
	int mode;                 /* 0 unknown; 'j' JSON, 's' SSE, 'x' error */
	struct sse sse;
	struct gbuf in;           /* a JSON or error body */
	unsigned resumes;         /* resumptions so far (X_RESUME) */
	int held;                 /* built, launched once the gate is done */
	int probe;                /* the first request (the initialize) */
	char *www;                /* WWW-Authenticate of the answer */
	unsigned gen, auth_tries; /* token generation sent, retries */
	struct oauth_wait aw;     /* held for authorization (oauth.h) */
	char **extra;             /* send_hdrs: "Name: value", taken */
	uv_timer_t timer;         /* delayed start */
	LIST_ENTRY(xfer) link;       /* the http's transfers */
};

struct http {
	const struct transport_up *up;
	void *ctx;                /* the session's; NULL once detached */
	struct hc_server sv;      /* name, url, headers, authorization */
	char *sid;                /* Mcp-Session-Id */
	char protocol[32];        /* negotiated version, once ready */
	LIST_HEAD(, xfer) xfers;
	unsigned nxfers;          /* transfers not yet freed */
	struct xfer *get;         /* the GET stream, running or waiting */
	struct xfer *gate;        /* notifications/initialized in flight */
	int gating;               /* the next notification is that one */
	unsigned get_fails;
	int get_off;              /* no GET stream (405, or gave up) */
	int probed;               /* the first request was sent */
};

static void xfer_start(struct xfer *x);
static void xfer_free_cb(uv_handle_t *hd);
static void xfer_done_cb(struct cu_xfer *cu, CURLcode res);
static void xfer_release_cb(struct cu_xfer *cu);

/* ---- transfers ---- */

static void http_maybe_free(struct http *h)
{
	if (!h->ctx && !h->nxfers)
		hc_free(h, &h->sv, h->sid);
}

static void extra_free(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void xfer_free_cb(uv_handle_t *hd)
{
	struct xfer *x = hd->data;
	struct http *h = x->h;

	hc_req_free(&x->q);
	extra_free(x->extra);
	free(x->www);
	gbuf_free(&x->in);
	sse_free(&x->sse);
	free(x);
	h->nxfers--;
	http_maybe_free(h);
}

static void get_open(struct http *h, const struct xfer *prev, uint64_t delay);

/* The initialized notification was answered (or failed): open the GET
 * stream and send the requests that waited for it. */
static void gate_open(struct http *h)
{
	struct xfer *x;

	h->gate = NULL;
	if (!h->ctx)
		return;
	get_open(h, NULL, 0);
	LIST_FOREACH(x, &h->xfers, link)
		if (x->held) {
			x->held = 0;
			xfer_start(x);
		}
}

/* Stop and free x (later, outside curl's callbacks). */
static void xfer_kill(struct xfer *x)
{
	if (x->cu.dead)
		return;
	x->held = 0;
	oauth_wait_cancel(&x->aw);
	uv_timer_stop(&x->timer);
	LIST_REMOVE(x, link);
	if (x->h->get == x)
		x->h->get = NULL;
	if (x->h->gate == x)
		gate_open(x->h);
	cu_kill(&x->cu);
}

static size_t header_cb(char *p, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * n, k = sizeof "mcp-session-id:" - 1, e;

	if (len > 17 && !x->www && !strncasecmp(p, "www-authenticate:", 17))
		x->www = strndup(p + 17, strcspn(p + 17, "\r\n"));
	oauth_dpop_nonce(x->h->sv.oa, p, len, 0); /* DPoP-Nonce: kept */
	if (x->cu.dead || !x->h->ctx || x->h->sid || len <= k ||
	    strncasecmp(p, "mcp-session-id:", k))
		return len;
	while (k < len && (p[k] == ' ' || p[k] == '\t'))
		k++;
	for (e = len; e > k && (p[e - 1] == '\r' || p[e - 1] == '\n' ||
				p[e - 1] == ' '); e--)
		;
	/* visible ASCII only (the spec's rule), so it is safe to send back */
	for (size_t i = k; i < e; i++)
		if (p[i] < 0x21 || p[i] > 0x7e)
			return len;
	if (e > k && e - k < 512)
		x->h->sid = strndup(p + k, e - k);
	return len;
}

static int event_cb(void *ctx, char *data, size_t len)
{
	struct xfer *x = ctx;

	if (!x->h->ctx)
		return 1;
	x->h->up->message(x->h->ctx, NULL, data, len);
	return x->h->ctx && !x->cu.dead ? 0 : 1;
}

static int buf_add(struct xfer *x, const char *p, size_t n, size_t max)
{
	if (x->in.len + n > max)
		return -E2BIG;
	return gbuf_add(&x->in, p, n);
}

static void too_long(struct xfer *x)
{
	char msg[200];

	hc_too_long(msg, sizeof msg);
	if (x->rpc_id && !x->probe) /* only its call fails (spec 1) */
		x->h->up->call_error(x->h->ctx, x->rpc_id, ERR_PROTOCOL, 0,
				     msg);
	else
		x->h->up->lost(x->h->ctx, ERR_PROTOCOL, msg);
}

static size_t write_cb(char *p, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * n;
	int r;

	if (x->cu.dead || !x->h->ctx)
		return 0; /* aborts the transfer */
	if (!x->mode) {
		x->mode = hc_answer(x->cu.easy, &x->code);
		if (!x->mode)
			x->mode = 'j';
	}
	if (x->mode == 'x') {
		if (x->in.len < ERROR_BODY_KEEP)
			buf_add(x, p, len < ERROR_BODY_KEEP ? len
							    : ERROR_BODY_KEEP,
				ERROR_BODY_KEEP * 2);
		return len;
	}
	if (x->mode == 'j')
		r = buf_add(x, p, len, mod_env.max_line);
	else
		r = sse_feed(&x->sse, p, len, event_cb, x);
	if (r == -E2BIG && x->h->ctx)
		too_long(x);
	if (r < 0 || !x->h->ctx || x->cu.dead)
		return 0;
	return len;
}

static struct xfer *xfer_new(struct http *h, enum xkind kind)
{
	struct xfer *x = calloc(1, sizeof *x);

	if (!x)
		return NULL;
	x->h = h;
	x->kind = kind;
	hc_xfer_init(&x->cu, &x->sse, xfer_done_cb, xfer_release_cb);
	uv_timer_init(mod_env.loop, &x->timer);
	x->timer.data = x;
	LIST_INSERT_HEAD(&h->xfers, x, link);
	h->nxfers++;
	return x;
}

/* Headers of every request to the server: the session id, the protocol
 * version once ready, the configured ones. */
static int common_headers(struct xfer *x)
{
	struct http *h = x->h;
	size_t i;
	int r = 0;

	if (h->sid)
		r |= hc_add_header(&x->q, "Mcp-Session-Id", h->sid);
	if (h->protocol[0])
		r |= hc_add_header(&x->q, "MCP-Protocol-Version", h->protocol);
	if (hc_server_headers(&x->q, &h->sv, &x->gen, x->kind == X_POST ?
			      "POST" : x->kind == X_DELETE ? "DELETE" : "GET",
			      h->sv.url) < 0)
		return -ENOMEM;
	for (i = 0; x->extra && x->extra[i]; i++)
		r |= hc_add_header(&x->q, x->extra[i], NULL);
	return r ? -ENOMEM : 0;
}

static void delay_cb(uv_timer_t *t)
{
	xfer_start(t->data);
}

/* Build and hand x to curl now, or after delay_ms. */
/* x cannot go out (why): killed, and a request's call fails now rather
 * than wait for an answer that cannot come. */
static void xfer_unsent(struct xfer *x, const char *why)
{
	struct http *h = x->h;
	const struct transport_up *up = h->up;
	void *ctx = h->ctx;     /* alive: h is not freed by the kill */
	uint64_t id = x->kind == X_POST ? x->rpc_id : 0;
	char msg[96];

	mod_log(MLOG_WARN, "server %s: %s", h->sv.name, why);
	xfer_kill(x);
	snprintf(msg, sizeof msg, "request not sent: %s", why);
	if (id && ctx)
		up->call_error(ctx, id, -32603, 0, msg);
}

static void xfer_launch(struct xfer *x, uint64_t delay_ms)
{
	CURL *e = curl_easy_init();
	int r;

	x->cu.easy = e;
	r = e ? common_headers(x) : -ENOMEM;
	switch (x->kind) {
	case X_POST:
		r |= hc_add_header(&x->q, "Content-Type: application/json", NULL);
		r |= hc_add_header(&x->q, "Accept: application/json, "
				"text/event-stream", NULL);
		r |= hc_add_header(&x->q, "Expect:", NULL);
		break;
	case X_GET:
	case X_RESUME:
		r |= hc_add_header(&x->q, "Accept: text/event-stream", NULL);
		if (x->sse.id[0])
			r |= hc_add_header(&x->q, "Last-Event-ID", x->sse.id);
		break;
	case X_DELETE:
		break;
	}
	if (r) {
		xfer_unsent(x, "out of memory for an HTTP request");
		return;
	}
	hc_easy(&x->cu, x->h->sv.url, &x->q, write_cb, header_cb, x);
	if (x->kind == X_POST) {
		hc_post_body(e, &x->q, x->rpc_id);
	} else if (x->kind == X_DELETE) {
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 2000L);
	}
	if (delay_ms)
		uv_timer_start(&x->timer, delay_cb, delay_ms, 0);
	else if (x->kind == X_POST && x->rpc_id && x->h->gate)
		x->held = 1; /* requests go after notifications/initialized */
	else
		xfer_start(x);
}

/* Hand x to curl (the engine defers it while inside curl's callbacks). */
static void xfer_start(struct xfer *x)
{
	if (cu_start(&x->cu) < 0)
		xfer_unsent(x, "cannot start an HTTP request");
}

/* ---- what a finished transfer means ---- */

static long retry_ms(const struct xfer *x)
{
	return x->sse.retry >= 0 ? x->sse.retry : RETRY_DEFAULT_MS;
}

/* Open the GET stream, after delay ms; it goes on from prev's event id and
 * retry delay when there was a stream before. */
static void get_open(struct http *h, const struct xfer *prev, uint64_t delay)
{
	struct xfer *x;

	if (h->get_off || !h->ctx || h->get)
		return;
	x = xfer_new(h, X_GET);
	if (!x)
		return;
	if (prev) {
		memcpy(x->sse.id, prev->sse.id, sizeof x->sse.id);
		x->sse.retry = prev->sse.retry;
	}
	h->get = x;
	xfer_launch(x, delay);
}

/* x ended before the reply to x->rpc_id: resume it (1), or fail the call
 * (0). */
static int stream_ended(struct xfer *x, const char *why)
{
	struct http *h = x->h;
	struct xfer *r;
	char msg[300];

	if (x->sse.id[0] && x->resumes < RESUMES_MAX &&
	    (r = xfer_new(h, X_RESUME)) != NULL) {
		r->rpc_id = x->rpc_id;
		r->resumes = x->resumes + 1;
		memcpy(r->sse.id, x->sse.id, sizeof r->sse.id);
		r->sse.retry = x->sse.retry;
		mod_log(MLOG_DEBUG, "server %s: request %" PRIu64 ": %s; "
		        "resuming in %ld ms", h->sv.name, x->rpc_id,
		        why, retry_ms(x));
		xfer_launch(r, (uint64_t)retry_ms(x));
		return 1;
	}
	snprintf(msg, sizeof msg, "%s before the reply", why);
	h->up->call_error(h->ctx, x->rpc_id, ERR_EXITED, 0, msg);
	return 0;
}

/* The application/json body of x to the session as one message: a batch
 * too, which the core splits (inbound.c, as one on any transport). -1
 * (nothing delivered) when the body is not JSON. */
static int deliver_json(struct xfer *x)
{
	struct http *h = x->h;

	if (!x->in.len)
		return 0;
	if (!jscan_is_value(x->in.p, x->in.len))
		return -1;
	h->up->message(h->ctx, NULL, x->in.p, x->in.len);
	return 0;
}

static void get_done(struct xfer *x, CURLcode res)
{
	struct http *h = x->h;
	const char *name = h->sv.name;
	uint64_t delay;

	h->get = NULL;
	if (res == CURLE_OK && (x->code == 405 || x->code == 404)) {
		mod_log(MLOG_DEBUG, "server %s: no GET stream (HTTP %ld)", name,
		        x->code);
		h->get_off = 1;
		return;
	}
	if (res == CURLE_OK && x->mode == 's')
		h->get_fails = 0;
	else if (++h->get_fails >= GET_FAILS_MAX) {
		mod_log(MLOG_WARN, "server %s: the GET stream failed %u times "
		        "(%s); not reopened", name, h->get_fails,
		        res != CURLE_OK ? curl_easy_strerror(res) : "HTTP error");
		h->get_off = 1;
		return;
	}
	delay = (uint64_t)retry_ms(x);
	if (h->get_fails)
		delay <<= h->get_fails < 5 ? h->get_fails : 5;
	if (delay > RETRY_MAX_MS)
		delay = RETRY_MAX_MS;
	get_open(h, x, delay);
}

/* A request held for authorization came back from oauth.c. */
static void auth_done(struct oauth_wait *w, int res, const char *msg)
{
	struct xfer *x = (struct xfer *)((char *)w -
					 offsetof(struct xfer, aw));
	struct http *h = x->h;

	if (!h->ctx) {
		xfer_kill(x);
		return;
	}
	if (res == 1 || !x->rpc_id) {
		xfer_launch(x, 0);
		return;
	}
	h->up->call_error(h->ctx, x->rpc_id, res == 0 ? ERR_AUTH_UP : ERR_HTTP,
			  x->code, msg[0] ? msg : "HTTP 403 from the server");
	xfer_kill(x);
}

/* A 401 or 403 to request x: hand it to oauth.c with a copy of the
 * request to send again. 1 when taken. */
static int auth_held(struct xfer *x)
{
	struct http *h = x->h;
	struct xfer *n;

	if (!h->sv.oa || x->kind != X_POST || !x->rpc_id || x->auth_tries >= 4)
		return 0;
	n = xfer_new(h, X_POST);
	if (!n)
		return 0;
	n->q.body = x->q.body;
	n->rpc_id = x->rpc_id;
	n->probe = x->probe;
	n->auth_tries = x->auth_tries + 1;
	n->aw.done = auth_done;
	if (oauth_challenge(h->sv.oa, x->code, x->www, x->gen, &n->aw) < 0) {
		n->q.body = NULL;
		xfer_kill(n);
		return 0;
	}
	x->q.body = NULL;
	return 1;
}

static void xfer_done(struct xfer *x, CURLcode res)
{
	struct http *h = x->h;
	void *s = h->ctx;
	int pending, bad = 0;
	char msg[400];

	if (!s || x->kind == X_DELETE)
		return;
	if (!x->mode)
		curl_easy_getinfo(x->cu.easy, CURLINFO_RESPONSE_CODE, &x->code);
	if (res == CURLE_OK && x->code == 404 && h->sid && x->kind == X_POST) {
		h->up->lost(s, ERR_EXITED, "the server ended the session "
			     "(HTTP 404); the next call starts a new one");
		return;
	}
	if (x->kind == X_GET) {
		get_done(x, res);
		return;
	}
	if (res == CURLE_OK && (x->code == 401 || x->code == 403) &&
	    auth_held(x))
		return;
	if (res == CURLE_OK && x->rpc_id && x->code >= 200 && x->code < 300)
		oauth_answered(h->sv.oa);
	/* a server of the 2024-11-05 HTTP+SSE transport? (fallback.c) */
	if (res == CURLE_OK && x->probe && h->up->legacy &&
	    (x->code == 400 || x->code == 404 || x->code == 405) &&
	    h->up->legacy(s, x->rpc_id, x->code))
		return;
	if (res == CURLE_OK && x->mode == 'j' && deliver_json(x) < 0)
		bad = 1; /* an error now: no reply will come for it */
	if (res == CURLE_OK && x->mode == 'x' && x->in.len &&
	    x->in.p[strspn(x->in.p, " \t\r\n")] == '{')
		h->up->message(s, NULL, x->in.p, x->in.len); /* a JSON-RPC error? */
	if (!h->ctx)
		return;
	pending = x->rpc_id && h->up->call_pending(s, x->rpc_id);
	/* a failure of a pending request goes to call_error alone (the
	 * core shows it); any other to the thread's stderr */
	if (res != CURLE_OK) {
		hc_conn_msg(msg, sizeof msg, res);
		if (pending) {
			if (stream_ended(x, msg))
				hc_diag(h->up, h->ctx, msg); /* resumed */
		} else {
			hc_diag(h->up, h->ctx, msg);
			mod_log(MLOG_DEBUG, "server %s: %s", h->sv.name, msg);
		}
	} else if (x->mode == 'x' || x->code >= 300 || bad) {
		hc_status_msg(msg, sizeof msg, x->code, bad ? " (application/"
			      "json, but the body is not JSON)" : "", x->in.p,
			      x->in.len);
		if (pending) {
			h->up->call_error(s, x->rpc_id, ERR_HTTP, x->code,
					  msg);
			return;
		}
		hc_diag(h->up, h->ctx, msg);
		if (!x->rpc_id)
			mod_log(MLOG_INFO, "server %s: %s", h->sv.name, msg);
	} else if (pending && x->mode == 's') {
		stream_ended(x, "the server closed the event stream");
	} else if (pending) {
		mod_log(MLOG_DEBUG, "server %s: request %" PRIu64 " accepted "
		        "without a reply (HTTP %ld); waiting on the GET stream",
		        h->sv.name, x->rpc_id, x->code);
	}
}

/* The engine's callbacks of a transfer. */
static void xfer_done_cb(struct cu_xfer *cu, CURLcode res)
{
	struct xfer *x = (struct xfer *)cu;

	xfer_done(x, res);
	xfer_kill(x);
}

static void xfer_release_cb(struct cu_xfer *cu)
{
	struct xfer *x = (struct xfer *)cu;

	uv_close((uv_handle_t *)&x->timer, xfer_free_cb);
}

/* ---- the transport's operations ---- */

static void http_fini(void)
{
	oauth_fini();
	cu_fini();
}

static int http_start(const struct mcp_server_conf *conf,
		      const struct transport_up *up, void *ctx,
		      struct transport **out, char *err, size_t errlen)
{
	struct http *h = calloc(1, sizeof *h);

	if (!h || hc_server_copy(&h->sv, conf) < 0)
		goto oom;
	h->up = up;
	h->ctx = ctx;
	mod_env.obj_hold();
	*out = (struct transport *)h;
	return 0;
oom:
	return hc_start_oom(h, h ? &h->sv : NULL, err, errlen);
}

static void post(struct http *h, char *line, size_t len, uint64_t rpc_id,
		 char **extra);

static void http_send(struct transport *t, char *line, size_t len,
		      uint64_t rpc_id)
{
	post((struct http *)t, line, len, rpc_id, NULL);
}

/* A modern-era request (MCP 2026-07-28): its metadata headers, no probe
 * of HTTP+SSE. */
static void http_send_hdrs(struct transport *t, char *line, size_t len,
			   uint64_t rpc_id, char **hdrs)
{
	post((struct http *)t, line, len, rpc_id, hdrs ? hdrs : calloc(1,
		sizeof *hdrs));
}

static void post(struct http *h, char *line, size_t len, uint64_t rpc_id,
		 char **extra)
{
	struct xfer *x;

	if (!h->ctx) {
		free(line);
		extra_free(extra);
		return;
	}
	len = hc_trim(line, len);
	x = xfer_new(h, X_POST);
	if (!x) {
		extra_free(extra);
		hc_send_oom(h->up, h->ctx, line, rpc_id);
		return;
	}
	x->q.body = line;
	x->rpc_id = rpc_id;
	x->extra = extra;
	if (rpc_id && !h->probed && !extra)
		x->probe = h->probed = 1;
	if (h->gating && !rpc_id) {
		h->gate = x; /* notifications/initialized */
		h->gating = 0;
	}
	x->aw.done = auth_done; /* a refresh due first: sent after it */
	if (oauth_fresh(h->sv.oa, &x->aw))
		xfer_launch(x, 0);
}

static void http_ready(struct transport *t, const char *protocol)
{
	struct http *h = (struct http *)t;

	snprintf(h->protocol, sizeof h->protocol, "%s", protocol);
	h->gating = 1;
}

static void http_forget(struct transport *t, uint64_t rpc_id)
{
	struct http *h = (struct http *)t;
	struct xfer *x, *next;

	for (x = LIST_FIRST(&h->xfers); x; x = next) {
		next = LIST_NEXT(x, link);
		if (x->rpc_id == rpc_id && x->kind != X_DELETE)
			xfer_kill(x);
	}
}

static void http_close(struct transport *t)
{
	struct http *h = (struct http *)t;
	struct xfer *d;

	if (!h->ctx)
		return;
	h->ctx = NULL;
	while (!LIST_EMPTY(&h->xfers))
		xfer_kill(LIST_FIRST(&h->xfers));
	if (h->sid && (d = xfer_new(h, X_DELETE)) != NULL)
		xfer_launch(d, 0);
	http_maybe_free(h);
}

const struct transport_ops mcpfs_http_transport = HC_OPS("http",
	TRANSPORT_EXCHANGES | TRANSPORT_SESSIONS, http_fini,
	http_start, http_send, http_send_hdrs, http_ready, http_forget,
	http_close);
