/*
 * http.c - the Streamable HTTP transport of a session (MCP 2025-11-25,
 * "Transports"), on libcurl's multi interface driven by the libuv loop:
 * curl's socket callback sets uv_poll watchers and its timer callback a
 * uv_timer, so no thread ever blocks and one loop runs everything.
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
 * a closing object until then, so shutdown waits for it. A transfer is never
 * removed from inside a curl callback: it is marked dead and removed when
 * curl_multi_socket_action returns.
 */
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "sse.h"

#define RETRY_DEFAULT_MS 1000
#define RETRY_MAX_MS 30000
#define RESUMES_MAX 10
#define GET_FAILS_MAX 8
#define ERROR_BODY_KEEP 4096

enum xkind { X_POST, X_GET, X_RESUME, X_DELETE };

struct xfer {
	struct http *h;
	enum xkind kind;
	CURL *easy;
	struct curl_slist *hdrs;
	char *body;               /* POST body */
	size_t body_len, body_off;
	uint64_t rpc_id;          /* request carried or resumed, 0 = none */
	long code;                /* HTTP status */
	int mode;                 /* 0 unknown; 'j' JSON, 's' SSE, 'x' error */
	struct sse sse;
	char *buf;                /* a JSON or error body */
	size_t len, cap;
	unsigned resumes;         /* resumptions so far (X_RESUME) */
	int dead;                 /* to be removed once curl returns */
	int waiting;              /* in the starting list */
	int held;                 /* built, launched once the gate is done */
	uv_timer_t timer;         /* delayed start */
	struct xfer *next, **pprev;   /* the http's transfers */
	struct xfer *dnext;       /* the dead or the starting list */
};

struct http {
	mcp_session *s;           /* NULL once detached */
	char *sid;                /* Mcp-Session-Id */
	char protocol[32];        /* negotiated version, once ready */
	struct xfer *xfers;
	unsigned nxfers;          /* transfers not yet freed */
	struct xfer *get;         /* the GET stream, running or waiting */
	struct xfer *gate;        /* notifications/initialized in flight */
	int gating;               /* the next notification is that one */
	unsigned get_fails;
	int get_off;              /* no GET stream (405, or gave up) */
};

struct sock {
	uv_poll_t poll;
	curl_socket_t fd;
	struct sock *next, **pprev;
};

static CURLM *multi;
static uv_timer_t multi_timer;
static struct sock *socks;
static struct xfer *dead, *starting, **starting_tail = &starting;
static int in_curl;

static void xfer_start(struct xfer *x);
static void check_done(void);
static void xfer_free_cb(uv_handle_t *hd);

/* ---- the multi handle on the loop ---- */

static void sock_free_cb(uv_handle_t *hd)
{
	free(hd->data);
}

static void sock_close(struct sock *k)
{
	*k->pprev = k->next;
	if (k->next)
		k->next->pprev = k->pprev;
	uv_close((uv_handle_t *)&k->poll, sock_free_cb);
}

static void reap(void)
{
	struct xfer *x;

	if (in_curl)
		return;
	while ((x = dead) != NULL) {
		dead = x->dnext;
		if (x->easy) {
			curl_multi_remove_handle(multi, x->easy);
			curl_easy_cleanup(x->easy);
			x->easy = NULL;
		}
		uv_close((uv_handle_t *)&x->timer, xfer_free_cb);
	}
}

/* Hand the transfers started inside curl's callbacks to curl. */
static void start_waiting(void)
{
	struct xfer *x;

	while (!in_curl && (x = starting) != NULL) {
		starting = x->dnext;
		if (!starting)
			starting_tail = &starting;
		x->waiting = 0;
		xfer_start(x);
	}
}

static void socket_action(curl_socket_t fd, int flags)
{
	int running;

	in_curl++;
	curl_multi_socket_action(multi, fd, flags, &running);
	in_curl--;
	check_done();
	reap();
	start_waiting();
}

static void poll_cb(uv_poll_t *p, int status, int events)
{
	struct sock *k = p->data;
	int flags = 0;

	if (status < 0)
		flags = CURL_CSELECT_ERR;
	if (events & UV_READABLE)
		flags |= CURL_CSELECT_IN;
	if (events & UV_WRITABLE)
		flags |= CURL_CSELECT_OUT;
	socket_action(k->fd, flags);
}

static int socket_cb(CURL *e, curl_socket_t fd, int what, void *userp,
		     void *socketp)
{
	struct sock *k = socketp;
	int ev = 0;

	if (what == CURL_POLL_REMOVE) {
		if (k) {
			uv_poll_stop(&k->poll);
			curl_multi_assign(multi, fd, NULL);
			sock_close(k);
		}
		return 0;
	}
	if (!k) {
		k = calloc(1, sizeof *k);
		if (!k || uv_poll_init_socket(mcp_loop, &k->poll, fd) < 0) {
			free(k);
			return -1;
		}
		k->fd = fd;
		k->poll.data = k;
		k->next = socks;
		if (socks)
			socks->pprev = &k->next;
		k->pprev = &socks;
		socks = k;
		curl_multi_assign(multi, fd, k);
	}
	if (what & CURL_POLL_IN)
		ev |= UV_READABLE;
	if (what & CURL_POLL_OUT)
		ev |= UV_WRITABLE;
	uv_poll_start(&k->poll, ev, poll_cb);
	return 0;
}

static void multi_timer_cb(uv_timer_t *t)
{
	socket_action(CURL_SOCKET_TIMEOUT, 0);
}

static int timer_cb(CURLM *m, long ms, void *userp)
{
	if (ms < 0)
		uv_timer_stop(&multi_timer);
	else
		uv_timer_start(&multi_timer, multi_timer_cb, (uint64_t)ms, 0);
	return 0;
}

static int multi_init(void)
{
	if (multi)
		return 0;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -ENOMEM;
	multi = curl_multi_init();
	if (!multi) {
		curl_global_cleanup();
		return -ENOMEM;
	}
	uv_timer_init(mcp_loop, &multi_timer);
	curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, socket_cb);
	curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, timer_cb);
	return 0;
}

void http_global_shutdown(void)
{
	if (!multi)
		return;
	curl_multi_cleanup(multi); /* closes cached connections */
	multi = NULL;
	while (socks)
		sock_close(socks);
	uv_close((uv_handle_t *)&multi_timer, NULL);
	curl_global_cleanup();
}

/* ---- transfers ---- */

static void http_maybe_free(struct http *h)
{
	if (h->s || h->nxfers)
		return;
	free(h->sid);
	free(h);
	session_obj_drop();
}

static void xfer_free_cb(uv_handle_t *hd)
{
	struct xfer *x = hd->data;
	struct http *h = x->h;

	curl_slist_free_all(x->hdrs);
	free(x->body);
	free(x->buf);
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
	if (!h->s)
		return;
	get_open(h, NULL, 0);
	for (x = h->xfers; x; x = x->next)
		if (x->held) {
			x->held = 0;
			xfer_start(x);
		}
}

/* Stop and free x (later, outside curl's callbacks). */
static void xfer_kill(struct xfer *x)
{
	if (x->dead)
		return;
	x->dead = 1;
	x->held = 0;
	uv_timer_stop(&x->timer);
	if (x->waiting) {
		struct xfer **pp = &starting;

		while (*pp != x)
			pp = &(*pp)->dnext;
		*pp = x->dnext;
		if (starting_tail == &x->dnext)
			starting_tail = pp;
		x->waiting = 0;
	}
	*x->pprev = x->next;
	if (x->next)
		x->next->pprev = x->pprev;
	if (x->h->get == x)
		x->h->get = NULL;
	x->dnext = dead;
	dead = x;
	if (x->h->gate == x)
		gate_open(x->h);
	reap();
}

/* Add "name: val", or the whole line name when val is NULL. */
static int add_header(struct xfer *x, const char *name, const char *val)
{
	struct curl_slist *l;
	char *line = NULL;

	if (val && asprintf(&line, "%s: %s", name, val) < 0)
		return -ENOMEM;
	l = curl_slist_append(x->hdrs, val ? line : name);
	free(line);
	if (!l)
		return -ENOMEM;
	x->hdrs = l;
	return 0;
}

static size_t header_cb(char *p, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * n, k = sizeof "mcp-session-id:" - 1, e;

	if (x->dead || !x->h->s || x->h->sid || len <= k ||
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

	if (!x->h->s)
		return 1;
	session_message(x->h->s, NULL, data, len);
	return x->h->s && !x->dead ? 0 : 1;
}

static int buf_add(struct xfer *x, const char *p, size_t n, size_t max)
{
	size_t want = x->len + n + 1, ncap = x->cap ? x->cap : 4096;
	char *nb;

	if (x->len + n > max)
		return -E2BIG;
	if (want > x->cap) {
		while (ncap < want)
			ncap *= 2;
		nb = realloc(x->buf, ncap);
		if (!nb)
			return -ENOMEM;
		x->buf = nb;
		x->cap = ncap;
	}
	memcpy(x->buf + x->len, p, n);
	x->len += n;
	x->buf[x->len] = 0;
	return 0;
}

static void too_long(struct xfer *x)
{
	char msg[160];

	snprintf(msg, sizeof msg, "protocol error: server sent a message "
		 "longer than %zu bytes", mcp_opts.max_line);
	session_lost(x->h->s, ERR_PROTOCOL, msg);
}

static size_t write_cb(char *p, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * n;
	int r;

	if (x->dead || !x->h->s)
		return 0; /* aborts the transfer */
	if (!x->mode) {
		const char *ct = NULL;

		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->code);
		curl_easy_getinfo(x->easy, CURLINFO_CONTENT_TYPE, &ct);
		if (x->code < 200 || x->code > 299)
			x->mode = 'x';
		else if (ct && !strncasecmp(ct, "text/event-stream", 17))
			x->mode = 's';
		else
			x->mode = 'j';
	}
	if (x->mode == 'x') {
		if (x->len < ERROR_BODY_KEEP)
			buf_add(x, p, len < ERROR_BODY_KEEP ? len
							    : ERROR_BODY_KEEP,
				ERROR_BODY_KEEP * 2);
		return len;
	}
	if (x->mode == 'j')
		r = buf_add(x, p, len, mcp_opts.max_line);
	else
		r = sse_feed(&x->sse, p, len, event_cb, x);
	if (r == -E2BIG && x->h->s)
		too_long(x);
	if (r < 0 || !x->h->s || x->dead)
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
	sse_init(&x->sse, mcp_opts.max_line);
	uv_timer_init(mcp_loop, &x->timer);
	x->timer.data = x;
	x->next = h->xfers;
	if (x->next)
		x->next->pprev = &x->next;
	x->pprev = &h->xfers;
	h->xfers = x;
	h->nxfers++;
	return x;
}

/* Headers of every request to the server: the session id, the protocol
 * version once ready (h->s is NULL for the DELETE), the configured ones. */
static int common_headers(struct xfer *x, const struct mcp_server_conf *conf)
{
	struct http *h = x->h;
	size_t i;
	int r = 0;

	if (h->sid)
		r |= add_header(x, "Mcp-Session-Id", h->sid);
	if (h->protocol[0])
		r |= add_header(x, "MCP-Protocol-Version", h->protocol);
	for (i = 0; i < conf->nheaders; i++)
		r |= add_header(x, conf->headers[i], NULL);
	return r ? -ENOMEM : 0;
}

/* The body of a POST that carries a request. With no seek callback curl
 * cannot rewind it, so it fails the transfer instead of resending the
 * request on a fresh connection when a reused one closed without an answer:
 * a call is never replayed. */
static size_t read_cb(char *buf, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	size_t k = x->body_len - x->body_off;

	if (k > size * n)
		k = size * n;
	memcpy(buf, x->body + x->body_off, k);
	x->body_off += k;
	return k;
}

static void delay_cb(uv_timer_t *t)
{
	xfer_start(t->data);
}

/* Build and hand x to curl now, or after delay_ms. */
static void xfer_launch(struct xfer *x, const struct mcp_server_conf *conf,
			uint64_t delay_ms)
{
	CURL *e = curl_easy_init();
	int r;

	x->easy = e;
	r = e ? common_headers(x, conf) : -ENOMEM;
	switch (x->kind) {
	case X_POST:
		r |= add_header(x, "Content-Type: application/json", NULL);
		r |= add_header(x, "Accept: application/json, "
				"text/event-stream", NULL);
		r |= add_header(x, "Expect:", NULL);
		break;
	case X_GET:
	case X_RESUME:
		r |= add_header(x, "Accept: text/event-stream", NULL);
		if (x->sse.id[0])
			r |= add_header(x, "Last-Event-ID", x->sse.id);
		break;
	case X_DELETE:
		break;
	}
	if (r) {
		mlog(MLOG_WARN, "server %s: out of memory for an HTTP request",
		     conf->name);
		xfer_kill(x);
		return;
	}
	curl_easy_setopt(e, CURLOPT_URL, conf->url);
	curl_easy_setopt(e, CURLOPT_PRIVATE, x);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, x->hdrs);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "mcpfs/" MCPFS_VERSION);
	if (x->kind == X_POST) {
		x->body_len = strlen(x->body);
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)x->body_len);
		if (x->rpc_id) {
			curl_easy_setopt(e, CURLOPT_POST, 1L);
			curl_easy_setopt(e, CURLOPT_READFUNCTION, read_cb);
			curl_easy_setopt(e, CURLOPT_READDATA, x);
		} else {
			curl_easy_setopt(e, CURLOPT_POSTFIELDS, x->body);
		}
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

/* curl refuses calls from inside its callbacks: those wait in starting. */
static void xfer_start(struct xfer *x)
{
	if (x->dead || x->waiting)
		return;
	if (in_curl) {
		x->waiting = 1;
		x->dnext = NULL;
		*starting_tail = x;
		starting_tail = &x->dnext;
		return;
	}
	if (curl_multi_add_handle(multi, x->easy) != CURLM_OK) {
		mlog(MLOG_WARN, "server %s: cannot start an HTTP request",
		     x->h->s ? x->h->s->srv->conf->name : "?");
		xfer_kill(x);
	}
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

	if (h->get_off || !h->s || h->get)
		return;
	x = xfer_new(h, X_GET);
	if (!x)
		return;
	if (prev) {
		memcpy(x->sse.id, prev->sse.id, sizeof x->sse.id);
		x->sse.retry = prev->sse.retry;
	}
	h->get = x;
	xfer_launch(x, h->s->srv->conf, delay);
}

/* x ended before the reply to x->rpc_id: resume it, or fail the call. */
static void stream_ended(struct xfer *x, const char *why)
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
		mlog(MLOG_DEBUG, "server %s: request %" PRIu64 ": %s; "
		     "resuming in %ld ms", h->s->srv->conf->name, x->rpc_id,
		     why, retry_ms(x));
		xfer_launch(r, h->s->srv->conf, (uint64_t)retry_ms(x));
		return;
	}
	snprintf(msg, sizeof msg, "%s before the reply", why);
	session_call_error(h->s, x->rpc_id, ERR_EXITED, msg);
}

/* A printable excerpt of an error body, for the message. */
static void body_excerpt(const struct xfer *x, char *out, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < x->len && k + 1 < n; i++) {
		unsigned char c = (unsigned char)x->buf[i];

		out[k++] = c >= 0x20 && c < 0x7f ? (char)c : ' ';
	}
	out[k] = 0;
	while (k && out[k - 1] == ' ')
		out[--k] = 0;
}

static void deliver_json(struct xfer *x)
{
	mcp_session *s = x->h->s;
	cJSON *arr, *m;

	if (!x->len)
		return;
	if (x->buf[strspn(x->buf, " \t\r\n")] != '[') {
		session_message(s, NULL, x->buf, x->len);
		return;
	}
	arr = cJSON_ParseWithLength(x->buf, x->len);
	cJSON_ArrayForEach(m, arr) {
		char *t = cJSON_PrintUnformatted(m);

		if (t && x->h->s)
			session_message(s, NULL, t, strlen(t));
		cJSON_free(t);
	}
	cJSON_Delete(arr);
}

static void get_done(struct xfer *x, CURLcode res)
{
	struct http *h = x->h;
	const char *name = h->s->srv->conf->name;
	uint64_t delay;

	h->get = NULL;
	if (res == CURLE_OK && (x->code == 405 || x->code == 404)) {
		mlog(MLOG_DEBUG, "server %s: no GET stream (HTTP %ld)", name,
		     x->code);
		h->get_off = 1;
		return;
	}
	if (res == CURLE_OK && x->mode == 's')
		h->get_fails = 0;
	else if (++h->get_fails >= GET_FAILS_MAX) {
		mlog(MLOG_WARN, "server %s: the GET stream failed %u times "
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

static void xfer_done(struct xfer *x, CURLcode res)
{
	struct http *h = x->h;
	mcp_session *s = h->s;
	int pending;
	char msg[400], ex[200];

	if (!s || x->kind == X_DELETE)
		return;
	if (!x->mode)
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->code);
	if (res == CURLE_OK && x->code == 404 && h->sid && x->kind == X_POST) {
		session_lost(s, ERR_EXITED, "the server ended the session "
			     "(HTTP 404); the next call starts a new one");
		return;
	}
	if (x->kind == X_GET) {
		get_done(x, res);
		return;
	}
	if (res == CURLE_OK && x->mode == 'j')
		deliver_json(x);
	if (res == CURLE_OK && x->mode == 'x' && x->len &&
	    x->buf[strspn(x->buf, " \t\r\n")] == '{')
		session_message(s, NULL, x->buf, x->len); /* a JSON-RPC error? */
	if (!h->s)
		return;
	pending = x->rpc_id && session_call_pending(s, x->rpc_id);
	if (res != CURLE_OK) {
		/* a request curl would have had to resend (see read_cb) */
		if (res == CURLE_SEND_FAIL_REWIND)
			res = CURLE_GOT_NOTHING;
		snprintf(msg, sizeof msg, "connection to the server failed: %s",
			 curl_easy_strerror(res));
		ring_line(&s->err, msg, strlen(msg));
		if (pending)
			stream_ended(x, msg);
		else
			mlog(MLOG_DEBUG, "server %s: %s", s->srv->conf->name,
			     msg);
	} else if (x->mode == 'x' || x->code >= 300) {
		body_excerpt(x, ex, sizeof ex);
		snprintf(msg, sizeof msg, "HTTP %ld from the server%s%s",
			 x->code, ex[0] ? ": " : "", ex);
		ring_line(&s->err, msg, strlen(msg));
		if (pending)
			session_call_error(s, x->rpc_id, ERR_HTTP, msg);
		else if (!x->rpc_id)
			mlog(MLOG_INFO, "server %s: %s", s->srv->conf->name,
			     msg);
	} else if (pending && x->mode == 's') {
		stream_ended(x, "the server closed the event stream");
	} else if (pending) {
		mlog(MLOG_DEBUG, "server %s: request %" PRIu64 " accepted "
		     "without a reply (HTTP %ld); waiting on the GET stream",
		     s->srv->conf->name, x->rpc_id, x->code);
	}
}

static void check_done(void)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(multi, &left)) != NULL) {
		struct xfer *x = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, &x);
		if (!x || x->dead)
			continue;
		in_curl++;
		xfer_done(x, m->data.result);
		in_curl--;
		xfer_kill(x);
	}
}

/* ---- the session's side ---- */

int http_start(mcp_session *s)
{
	struct http *h;
	int r = multi_init();

	if (r < 0)
		return r;
	h = calloc(1, sizeof *h);
	if (!h)
		return -ENOMEM;
	h->s = s;
	s->http = h;
	session_obj_hold();
	return 0;
}

void http_send(struct http *h, char *line, size_t len, uint64_t rpc_id)
{
	struct xfer *x;

	if (!h || !h->s) {
		free(line);
		return;
	}
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = 0;
	x = xfer_new(h, X_POST);
	if (!x) {
		free(line);
		if (rpc_id)
			session_call_error(h->s, rpc_id, -32603,
					   "out of memory");
		return;
	}
	x->body = line;
	x->rpc_id = rpc_id;
	if (h->gating && !rpc_id) {
		h->gate = x; /* notifications/initialized */
		h->gating = 0;
	}
	xfer_launch(x, h->s->srv->conf, 0);
}

void http_ready(struct http *h)
{
	memcpy(h->protocol, h->s->protocol, sizeof h->protocol);
	h->gating = 1;
}

void http_forget(struct http *h, uint64_t rpc_id)
{
	struct xfer *x, *next;

	for (x = h->xfers; x; x = next) {
		next = x->next;
		if (x->rpc_id == rpc_id && x->kind != X_DELETE)
			xfer_kill(x);
	}
}

void http_detach(struct http *h)
{
	const struct mcp_server_conf *conf;
	struct xfer *d;

	if (!h || !h->s)
		return;
	conf = h->s->srv->conf;
	h->s->http = NULL;
	h->s = NULL;
	while (h->xfers)
		xfer_kill(h->xfers);
	if (h->sid && (d = xfer_new(h, X_DELETE)) != NULL)
		xfer_launch(d, conf, 0);
	http_maybe_free(h);
}
