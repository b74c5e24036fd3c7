/*
 * fallback.c - the transport of a url entry with "type" "http" or none:
 * Streamable HTTP, falling back to the 2024-11-05 HTTP+SSE transport as
 * the backwards-compatibility section of MCP's "Transports" says. It holds
 * one inner transport (http.c, then maybe httpsse.c), forwards every
 * operation to it and stands between it and the session's callbacks, so
 * the session core never learns which one it has.
 *
 * The probe. The initialize goes out over Streamable HTTP, a copy kept.
 * When http.c reports that POST answered 400, 404 or 405 (its legacy
 * callback), the http transport is closed, an HTTP+SSE one started on the
 * same url and the initialize sent again on it; its reply finishes the
 * handshake as usual. Nothing else is sent before the initialize is
 * answered, so nothing else needs resending.
 *
 * The memory. Once a server answered over HTTP+SSE, its entry (config
 * name and digest of the launch fields) is remembered and the next start
 * goes straight to HTTP+SSE. A connection lost later keeps the memory (the
 * server restarting is no reason to probe again); an HTTP+SSE start that
 * fails before the server's first message forgets it, so the start after
 * that probes Streamable HTTP again (the server may have been upgraded). A
 * changed url or headers changes the digest: a new entry, probed afresh.
 *
 * Every callback of an inner transport is forwarded last: the session may
 * close this transport from inside it, and then this struct is gone. The
 * inner transports are set up by this one's init and started through
 * their tables directly (not transport.c, which names this table: no call
 * cycle).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sessions.h"
#include "transport.h"

/* The env of fb_init: the log and the config copies. */
static struct transport_env fenv;

struct fb {
	const struct transport_up *up;  /* the session's */
	void *ctx;
	const struct transport_ops *ops; /* the inner transport's */
	struct transport *t;
	struct mcp_server_conf *conf;   /* what a start of sse needs */
	char *init;                     /* the initialize, while probing */
	size_t init_len;
	uint64_t init_id;
	long status;                    /* that made it fall back, or 0 */
	int heard;                      /* the inner one gave a message */
};

/* Entries that speak HTTP+SSE: config name and digest. */
struct known {
	char *name;
	char digest[sizeof ((struct mcp_server_conf *)0)->digest];
	struct known *next;
};

static struct known *known;

static struct known **known_find(const struct mcp_server_conf *conf)
{
	struct known **pp;

	for (pp = &known; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->name, conf->name))
			return pp;
	return pp;
}

static int known_sse(const struct mcp_server_conf *conf)
{
	struct known *k = *known_find(conf);

	return k && !strcmp(k->digest, conf->digest);
}

static void known_set(const struct mcp_server_conf *conf, int sse)
{
	struct known **pp = known_find(conf), *k = *pp;

	if (!sse) {
		if (k) {
			*pp = k->next;
			free(k->name);
			free(k);
		}
		return;
	}
	if (!k) {
		k = calloc(1, sizeof *k);
		if (!k || !(k->name = strdup(conf->name))) {
			free(k);
			return; /* not remembered: the next start probes */
		}
		*pp = k;
	}
	snprintf(k->digest, sizeof k->digest, "%s", conf->digest);
}

/* ---- the inner transport's callbacks ---- */

static void in_message(void *ctx, struct frame *f, char *line, size_t len)
{
	struct fb *b = ctx;

	if (!b->heard && b->ops == &sse_transport)
		known_set(b->conf, 1);
	b->heard = 1;
	b->up->message(b->ctx, f, line, len);
}

/* The message of a failure of the inner transport: what, or both causes
 * when the HTTP+SSE start that the fallback made failed too. An HTTP+SSE
 * start that failed before the server said anything is forgotten. */
static const char *failed(struct fb *b, const char *what, char *buf,
			  size_t n)
{
	if (b->ops != &sse_transport || b->heard)
		return what;
	known_set(b->conf, 0);
	if (!b->status)
		return what;
	snprintf(buf, n, "HTTP %ld from the server on the initialize, and "
		 "the HTTP+SSE transport failed too: %s", b->status, what);
	return buf;
}

static void in_lost(void *ctx, int code, const char *what)
{
	struct fb *b = ctx;
	char buf[600];

	what = failed(b, what, buf, sizeof buf);
	b->up->lost(b->ctx, code, what);
}

static void in_call_error(void *ctx, uint64_t rpc_id, int code,
			  long status, const char *msg)
{
	struct fb *b = ctx;
	char buf[600];

	if (rpc_id == b->init_id)
		msg = failed(b, msg, buf, sizeof buf);
	b->up->call_error(b->ctx, rpc_id, code, status, msg);
}

static int in_call_pending(void *ctx, uint64_t rpc_id)
{
	struct fb *b = ctx;

	return b->up->call_pending(b->ctx, rpc_id);
}

static void in_diag(void *ctx, const char *p, size_t n)
{
	struct fb *b = ctx;

	b->up->diag(b->ctx, p, n);
}

static void in_exited(void *ctx, int64_t status, int term_signal)
{
	struct fb *b = ctx;

	b->up->exited(b->ctx, status, term_signal);
}

static int in_legacy(void *ctx, uint64_t rpc_id, long status);

static const struct transport_up inner_up = {
	.message = in_message,
	.lost = in_lost,
	.call_error = in_call_error,
	.call_pending = in_call_pending,
	.diag = in_diag,
	.exited = in_exited,
	.legacy = in_legacy,
};

/* The initialize POST was answered 400, 404 or 405 (http.c): go on over
 * HTTP+SSE, from inside http.c's callback. */
static int in_legacy(void *ctx, uint64_t rpc_id, long status)
{
	struct fb *b = ctx;
	char msg[300], err[256];
	char *line;
	int r;

	if (b->ops != &http_transport || !b->init || rpc_id != b->init_id)
		return 0;
	snprintf(msg, sizeof msg, "HTTP %ld from the server on the initialize "
		 "POST: trying the 2024-11-05 HTTP+SSE transport", status);
	transport_log(&fenv, MLOG_INFO, "server %s: %s", b->conf->name, msg);
	b->up->diag(b->ctx, msg, strlen(msg));
	b->up->diag(b->ctx, "\n", 1);
	b->ops->close(b->t);
	b->ops = &sse_transport;
	b->t = NULL;
	b->status = status;
	line = b->init;
	b->init = NULL;
	err[0] = 0;
	r = b->ops->start(b->conf, &inner_up, b, &b->t, err, sizeof err);
	if (r < 0) {
		free(line);
		b->t = NULL;
		in_call_error(b, rpc_id, ERR_STARTUP, 0, err);
		return 1;
	}
	b->ops->send(b->t, line, b->init_len, rpc_id);
	return 1;
}

/* ---- the transport's operations ---- */

static void fb_free(struct fb *b)
{
	fenv.conf_free(b->conf);
	free(b->init);
	free(b);
}

static int fb_start(const struct mcp_server_conf *conf,
		    const struct transport_up *up, void *ctx,
		    struct transport **out, char *err, size_t errlen)
{
	struct fb *b = calloc(1, sizeof *b);
	int r;

	if (!b || !(b->conf = fenv.conf_dup(conf))) {
		if (b)
			fb_free(b);
		snprintf(err, errlen, "cannot start the HTTP client: out of "
			 "memory");
		return -ENOMEM;
	}
	b->up = up;
	b->ctx = ctx;
	b->ops = known_sse(conf) ? &sse_transport : &http_transport;
	if (b->ops == &sse_transport)
		transport_log(&fenv, MLOG_DEBUG, "server %s: over HTTP+SSE, as it answered "
		     "before", conf->name);
	r = b->ops->start(b->conf, &inner_up, b, &b->t, err, errlen);
	if (r < 0) {
		fb_free(b);
		return r;
	}
	*out = (struct transport *)b;
	return 0;
}

static void fb_send(struct transport *t, char *line, size_t len,
		    uint64_t rpc_id)
{
	struct fb *b = (struct fb *)t;

	if (!b->t) {
		free(line);
		return;
	}
	if (rpc_id && !b->init_id) {
		b->init_id = rpc_id;
		if (b->ops == &http_transport) {
			b->init = malloc(len + 1);
			if (b->init) {
				memcpy(b->init, line, len + 1);
				b->init_len = len;
			}
		}
	}
	b->ops->send(b->t, line, len, rpc_id);
}

static void fb_send_hdrs(struct transport *t, char *line, size_t len,
			 uint64_t rpc_id, char **hdrs)
{
	struct fb *b = (struct fb *)t;
	size_t i;

	if (b->t && b->ops->send_hdrs) {
		b->ops->send_hdrs(b->t, line, len, rpc_id, hdrs);
		return;
	}
	for (i = 0; hdrs && hdrs[i]; i++)
		free(hdrs[i]);
	free(hdrs);
	if (b->t)
		b->ops->send(b->t, line, len, rpc_id);
	else
		free(line);
}

static void fb_ready(struct transport *t, const char *protocol)
{
	struct fb *b = (struct fb *)t;

	free(b->init);
	b->init = NULL;
	if (b->t && b->ops->ready)
		b->ops->ready(b->t, protocol);
}

static void fb_forget(struct transport *t, uint64_t rpc_id)
{
	struct fb *b = (struct fb *)t;

	if (b->t && b->ops->forget)
		b->ops->forget(b->t, rpc_id);
}

static void fb_close(struct transport *t)
{
	struct fb *b = (struct fb *)t;

	if (b->t)
		b->ops->close(b->t);
	fb_free(b);
}

static int fb_pid(const struct transport *t)
{
	return 0;
}

static const char *fb_name_of(const struct transport *t,
			      const struct mcp_server_conf *conf)
{
	const struct fb *b = (const struct fb *)t;

	if (b)
		return b->ops->name;
	return known_sse(conf) ? sse_transport.name : http_transport.name;
}

/* Both inner transports are set up with this one (their init and fini
 * may run twice: transport.c may set them up for entries of their own). */
static int fb_init(const struct transport_env *e)
{
	int r;

	fenv = *e;
	r = http_transport.init(e);
	return r < 0 ? r : sse_transport.init(e);
}

static void fb_fini(void)
{
	struct known *k;

	http_transport.fini();
	sse_transport.fini();

	while ((k = known) != NULL) {
		known = k->next;
		free(k->name);
		free(k);
	}
}

const struct transport_ops fallback_transport = {
	.name = "http",
	.caps = TRANSPORT_EXCHANGES | TRANSPORT_SESSIONS |
		TRANSPORT_RETRIES_4XX,
	.init = fb_init,
	.fini = fb_fini,
	.start = fb_start,
	.send = fb_send,
	.send_hdrs = fb_send_hdrs,
	.ready = fb_ready,
	.forget = fb_forget,
	.close = fb_close,
	.pid = fb_pid,
	.name_of = fb_name_of,
};
