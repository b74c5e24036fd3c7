/*
 * httpsse.c - the HTTP+SSE transport of MCP 2024-11-05 ("Transports"), the
 * one Streamable HTTP replaced: one ops table of transport.h on the
 * libcurl-on-libuv engine of curluv.c, as http.c is.
 *
 * Protocol. start opens one GET of the configured url with "Accept:
 * text/event-stream"; it stays open for the life of the session and
 * carries everything the server says. Its first event, of type endpoint,
 * names the URL to POST to, resolved against the url and refused unless it
 * has the url's scheme, host and port (a server must not send mcpfs's
 * messages, and the configured headers, elsewhere). Every message is then
 * one POST of its JSON there, answered 202 (or another 2xx) with nothing
 * to read: replies, server requests and notifications come on the stream
 * as message events. Messages sent before the endpoint event wait for it;
 * requests sent after the handshake wait until notifications/initialized
 * was answered, so the server sees them in order. The configured headers
 * go on the GET and on every POST; the transport's diagnostics (HTTP
 * statuses, connection errors, never a header value) go to diag.
 *
 * A POST that fails (refused, an HTTP error) fails the request it carries
 * and the session stays. A GET stream that ends, fails or is refused is
 * the end of the session: lost, so every call in flight fails and nothing
 * is replayed; the next call starts a new GET (generation + 1). A request
 * is never sent twice (its body has no rewind, as in http.c).
 *
 * Ownership. A session owns its struct hsse while attached; close aborts
 * every transfer (the end of the GET ends the session at the server) and
 * the struct is freed with its last transfer, counted as a closing object
 * until then (obj_hold/obj_drop).
 */
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#include "curluv.h"
#include "httpcommon.h"
#include "sessions.h"
#include "sse.h"
#include "transport.h"

#define EXCERPT 200

struct hx {
	struct cu_xfer cu;        /* first: the engine's part */
	struct hsse *s;
	int get;                  /* the event stream, else a POST */
	struct hc_req q;          /* headers and body */
	uint64_t rpc_id;          /* request carried, 0 = none */
	long code;                /* HTTP status */
	int mode;                 /* 0 unknown; 's' stream, 'o' ok, 'x' error,
				   * 'n' a GET answered without a stream */
	struct sse sse;           /* the GET's parser */
	char ex[EXCERPT];         /* start of an error body */
	size_t exlen;
	int held;                 /* waits for the endpoint or the gate */
	TAILQ_ENTRY(hx) link;     /* the hsse's transfers, oldest first */
};

struct hsse {
	const struct transport_up *up;
	void *ctx;                /* the session's; NULL once closed */
	struct hc_server sv;      /* name, url (the event stream), headers,
				   * authorization */
	char *post;               /* from the endpoint event */
	TAILQ_HEAD(, hx) xfers;
	unsigned nxfers;          /* transfers not yet freed */
	struct hx *gate;          /* notifications/initialized in flight */
	int gating;               /* the next notification is that one */
};

static void hx_done_cb(struct cu_xfer *cu, CURLcode res);
static void hx_release_cb(struct cu_xfer *cu);
static void flush(struct hsse *s);

/* ---- transfers ---- */

static void hsse_maybe_free(struct hsse *s)
{
	if (!s->ctx && !s->nxfers)
		hc_free(s, &s->sv, s->post);
}

/* Stop and free x (later, outside curl's callbacks). */
static void hx_kill(struct hx *x)
{
	struct hsse *s = x->s;

	if (x->cu.dead)
		return;
	TAILQ_REMOVE(&s->xfers, x, link);
	if (s->gate == x) {
		s->gate = NULL;
		flush(s);
	}
	cu_kill(&x->cu);
}

static struct hx *hx_new(struct hsse *s, int get)
{
	struct hx *x = calloc(1, sizeof *x);

	if (!x)
		return NULL;
	x->s = s;
	x->get = get;
	hc_xfer_init(&x->cu, &x->sse, hx_done_cb, hx_release_cb);
	x->sse.all_types = 1;
	TAILQ_INSERT_TAIL(&s->xfers, x, link);
	s->nxfers++;
	return x;
}

static void hx_release_cb(struct cu_xfer *cu)
{
	struct hx *x = (struct hx *)cu;
	struct hsse *s = x->s;

	hc_req_free(&x->q);
	sse_free(&x->sse);
	free(x);
	s->nxfers--;
	hsse_maybe_free(s);
}

/* The GET is over, or unusable: the session is lost (callbacks end). */
static void lose(struct hsse *s, int code, const char *msg)
{
	if (!s->ctx)
		return;
	hc_diag(s->up, s->ctx, msg);
	s->up->lost(s->ctx, code, msg);
}

/* ---- the endpoint event ---- */

/* 1 if part p of a and b is the same (case-insensitively). */
static int same_part(CURLU *a, CURLU *b, CURLUPart p)
{
	char *x = NULL, *y = NULL;
	int same;

	curl_url_get(a, p, &x, CURLU_DEFAULT_PORT);
	curl_url_get(b, p, &y, CURLU_DEFAULT_PORT);
	same = x && y && !strcasecmp(x, y);
	curl_free(x);
	curl_free(y);
	return same;
}

/* Resolve the endpoint ep against the url; NULL with why. */
static char *resolve(const struct hsse *s, const char *ep, const char **why)
{
	CURLU *base = curl_url(), *u = NULL;
	char *full = NULL, *out = NULL;

	*why = "out of memory";
	if (!base || curl_url_set(base, CURLUPART_URL, s->sv.url, 0))
		goto done;
	u = curl_url_dup(base);
	*why = "the server's endpoint event does not hold a URL";
	if (!u || curl_url_set(u, CURLUPART_URL, ep, 0))
		goto done;
	*why = "the server's endpoint event names another origin (its "
	       "scheme, host and port must be the url's); refused";
	if (!same_part(base, u, CURLUPART_SCHEME) ||
	    !same_part(base, u, CURLUPART_HOST) ||
	    !same_part(base, u, CURLUPART_PORT))
		goto done;
	*why = "out of memory";
	if (!curl_url_get(u, CURLUPART_URL, &full, 0))
		out = strdup(full);
done:
	curl_free(full);
	curl_url_cleanup(u);
	curl_url_cleanup(base);
	return out;
}

static void endpoint(struct hsse *s, char *data)
{
	const char *why;
	char *e;

	if (s->post) {
		mod_log(MLOG_DEBUG, "server %s: a second endpoint event, ignored",
		        s->sv.name);
		return;
	}
	data += strspn(data, " \t");
	for (e = data + strlen(data); e > data && (e[-1] == ' ' ||
						   e[-1] == '\t'); e--)
		e[-1] = 0;
	s->post = resolve(s, data, &why);
	if (!s->post) {
		lose(s, ERR_PROTOCOL, why);
		return;
	}
	mod_log(MLOG_DEBUG, "server %s: the event stream named its endpoint",
	        s->sv.name);
	flush(s);
}

/* ---- writing and reading ---- */

static void keep_excerpt(struct hx *x, const char *p, size_t n)
{
	if (n > sizeof x->ex - 1 - x->exlen)
		n = sizeof x->ex - 1 - x->exlen;
	memcpy(x->ex + x->exlen, p, n);
	x->exlen += n;
}

static int event_cb(void *ctx, char *data, size_t len)
{
	struct hx *x = ctx;
	struct hsse *s = x->s;
	const char *type = x->sse.type;

	if (!s->ctx)
		return 1;
	if (!strcmp(type, "endpoint"))
		endpoint(s, data);
	else if (!type[0] || !strcmp(type, "message"))
		s->up->message(s->ctx, NULL, data, len);
	else
		mod_log(MLOG_DEBUG, "server %s: an event of an unknown type, "
		        "skipped", s->sv.name);
	return s->ctx && !x->cu.dead ? 0 : 1;
}

static size_t write_cb(char *p, size_t size, size_t n, void *ud)
{
	struct hx *x = ud;
	struct hsse *s = x->s;
	size_t len = size * n;
	char msg[200];
	int r;

	if (x->cu.dead || !s->ctx)
		return 0; /* aborts the transfer */
	if (!x->mode) {
		r = hc_answer(x->cu.easy, &x->code);
		x->mode = r == 'x' ? 'x' : !x->get ? 'o' : r ? r : 'n';
	}
	if (x->mode != 's') {
		if (x->mode == 'x')
			keep_excerpt(x, p, len);
		return x->mode == 'n' ? 0 : len;
	}
	r = sse_feed(&x->sse, p, len, event_cb, x);
	if (r == -E2BIG) {
		hc_too_long(msg, sizeof msg);
		lose(s, ERR_PROTOCOL, msg);
	}
	if (r < 0 || !s->ctx || x->cu.dead)
		return 0;
	return len;
}

/* Build x and hand it to curl; -errno when that failed (x is killed and
 * no callback fires). */
static int hx_launch(struct hx *x)
{
	struct hsse *s = x->s;
	CURL *e = curl_easy_init();
	int r = e ? 0 : -ENOMEM;

	x->cu.easy = e;
	r |= hc_server_headers(&x->q, &s->sv, NULL, x->get ? "GET" : "POST",
			       x->get ? s->sv.url : s->post);
	if (x->get) {
		r |= hc_add_header(&x->q, "Accept: text/event-stream", NULL);
	} else {
		r |= hc_add_header(&x->q, "Content-Type: application/json",
				   NULL);
		r |= hc_add_header(&x->q, "Expect:", NULL);
	}
	if (r) {
		mod_log(MLOG_WARN, "server %s: out of memory for an HTTP request",
		        s->sv.name);
		hx_kill(x);
		return -ENOMEM;
	}
	hc_easy(&x->cu, x->get ? s->sv.url : s->post, &x->q, write_cb, NULL,
		x);
	if (!x->get)
		hc_post_body(e, &x->q, x->rpc_id);
	if (cu_start(&x->cu) == 0)
		return 0;
	mod_log(MLOG_WARN, "server %s: cannot start an HTTP request", s->sv.name);
	hx_kill(x);
	return -EIO;
}

/* Whether POST x must wait: for the endpoint, or (a request) the gate. */
static int must_wait(const struct hsse *s, const struct hx *x)
{
	return !s->post || (x->rpc_id && s->gate);
}

/* Launch the POSTs that waited and need not wait any more, oldest first
 * (from the head again after each: a launch may kill a transfer). */
static void flush(struct hsse *s)
{
	struct hx *x;

again:
	if (!s->ctx)
		return;
	TAILQ_FOREACH(x, &s->xfers, link) {
		if (x->held && !must_wait(s, x)) {
			x->held = 0;
			hx_launch(x);
			goto again;
		}
	}
}

/* ---- what a finished transfer means ---- */

static void get_done(struct hx *x, CURLcode res)
{
	struct hsse *s = x->s;
	char msg[400];
	int code = ERR_EXITED;

	if (!x->mode) {
		curl_easy_getinfo(x->cu.easy, CURLINFO_RESPONSE_CODE, &x->code);
		if (x->code < 200 || x->code > 299)
			x->mode = 'x';
	}
	if (res == CURLE_OK && x->mode == 'x') {
		hc_status_msg(msg, sizeof msg, x->code, " on the event stream",
			      x->ex, x->exlen);
		code = ERR_HTTP;
	} else if (x->mode == 'n') {
		snprintf(msg, sizeof msg, "the server answered the event "
			 "stream request without an event stream (HTTP %ld)",
			 x->code);
		code = ERR_PROTOCOL;
	} else if (res != CURLE_OK && x->mode != 's') {
		snprintf(msg, sizeof msg, "connection to the server failed: %s",
			 curl_easy_strerror(res));
	} else if (res != CURLE_OK) {
		snprintf(msg, sizeof msg, "the event stream failed (%s); the "
			 "next call connects again", curl_easy_strerror(res));
	} else {
		snprintf(msg, sizeof msg, "the server closed the event stream; "
			 "the next call connects again");
	}
	lose(s, code, msg);
}

static void post_done(struct hx *x, CURLcode res)
{
	struct hsse *s = x->s;
	int pending = x->rpc_id && s->up->call_pending(s->ctx, x->rpc_id);
	char msg[400];

	if (!x->mode)
		curl_easy_getinfo(x->cu.easy, CURLINFO_RESPONSE_CODE, &x->code);
	if (res == CURLE_OK && x->code >= 200 && x->code <= 299)
		return; /* accepted: the reply comes on the stream */
	if (res != CURLE_OK)
		hc_conn_msg(msg, sizeof msg, res);
	else
		hc_status_msg(msg, sizeof msg, x->code, "", x->ex, x->exlen);
	if (pending) {
		s->up->call_error(s->ctx, x->rpc_id, res != CURLE_OK ?
				  ERR_EXITED : ERR_HTTP,
				  res != CURLE_OK ? 0 : x->code, msg);
		return;
	}
	hc_diag(s->up, s->ctx, msg);
	mod_log(MLOG_INFO, "server %s: %s", s->sv.name, msg);
}

static void hx_done_cb(struct cu_xfer *cu, CURLcode res)
{
	struct hx *x = (struct hx *)cu;

	if (x->s->ctx) {
		if (x->get)
			get_done(x, res);
		else
			post_done(x, res);
	}
	hx_kill(x);
}

/* ---- the transport's operations ---- */

static int hsse_start(const struct mcp_server_conf *conf,
		    const struct transport_up *up, void *ctx,
		    struct transport **out, char *err, size_t errlen)
{
	struct hsse *s = calloc(1, sizeof *s);
	struct hx *get;

	if (!s)
		goto oom;
	TAILQ_INIT(&s->xfers);
	if (hc_server_copy(&s->sv, conf) < 0)
		goto oom;
	get = hx_new(s, 1);
	if (!get)
		goto oom;
	s->up = up;
	mod_env.obj_hold();
	if (hx_launch(get) < 0) { /* s goes with get (no ctx: no callback) */
		snprintf(err, errlen, "cannot start the HTTP request");
		return -EIO;
	}
	s->ctx = ctx;
	*out = (struct transport *)s;
	return 0;
oom:
	return hc_start_oom(s, s ? &s->sv : NULL, err, errlen);
}

static void hsse_send(struct transport *t, char *line, size_t len,
		    uint64_t rpc_id)
{
	struct hsse *s = (struct hsse *)t;
	struct hx *x;

	if (!s->ctx) {
		free(line);
		return;
	}
	len = hc_trim(line, len);
	x = hx_new(s, 0);
	if (!x) {
		hc_send_oom(s->up, s->ctx, line, rpc_id);
		return;
	}
	x->q.body = line;
	x->rpc_id = rpc_id;
	if (s->gating && !rpc_id) {
		s->gate = x; /* notifications/initialized */
		s->gating = 0;
	}
	if (must_wait(s, x))
		x->held = 1;
	else
		hx_launch(x);
}

static void hsse_ready(struct transport *t, const char *protocol)
{
	struct hsse *s = (struct hsse *)t;

	s->gating = 1;
}

static void hsse_forget(struct transport *t, uint64_t rpc_id)
{
	struct hsse *s = (struct hsse *)t;
	struct hx *x, *next;

	for (x = TAILQ_FIRST(&s->xfers); x; x = next) {
		next = TAILQ_NEXT(x, link);
		if (!x->get && x->rpc_id == rpc_id)
			hx_kill(x);
	}
}

static void hsse_close(struct transport *t)
{
	struct hsse *s = (struct hsse *)t;

	if (!s->ctx)
		return;
	s->ctx = NULL;
	s->nxfers++; /* a transfer may be released at once: keep s */
	while (!TAILQ_EMPTY(&s->xfers))
		hx_kill(TAILQ_FIRST(&s->xfers));
	s->nxfers--;
	hsse_maybe_free(s);
}

const struct transport_ops mcpfs_sse_transport = HC_OPS("sse",
	TRANSPORT_SESSIONS | TRANSPORT_HANDSHAKE_ONLY, cu_fini,
	hsse_start, hsse_send, NULL, hsse_ready, hsse_forget, hsse_close);
