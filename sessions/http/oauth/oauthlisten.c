/*
 * oauthlisten.c - the OAuth client's loopback listener (RFC 8252 7.3):
 * 127.0.0.1 on the configured port or the first free one of a few, the
 * browser's redirect read (bounded: CONN_MAX connections at once, CONN_MS
 * each to send its request) and handed to the flow's callback (oauth.c),
 * and the page the browser shows once the token came (or did not).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oauth.h"
#include "oauthcrypto.h"
#include "oauthnet.h"

/* The loopback listener's bounds: connections at once (the oldest one not
 * waiting for its token goes for a new one, so a flood cannot lock the
 * browser out), and the time each has to send its request. */
#define CONN_MAX 16
#define CONN_MS 5000

struct oauth_conn {
	uv_tcp_t tcp;
	uv_timer_t timer;
	int handles;                    /* open: tcp and timer */
	struct oauth *o;
	char buf[8192];
	size_t len;
	int answered, busy;             /* busy: in read_cb, answered there */
	uv_write_t wr;
	char *resp;
	TAILQ_ENTRY(oauth_conn) link;   /* in o->conns while o is set */
};

/* The flow's handler of a redirect's URL (oauth.c's callback_url). */
static oauth_callback_fn on_callback;

static void conn_free_cb(uv_handle_t *h)
{
	struct oauth_conn *c = h->data;

	if (--c->handles > 0)
		return;
	free(c->resp);
	free(c);
}

void oauth_conn_close(struct oauth_conn *c)
{
	if (c->o) {
		if (c->o->answer == c)
			c->o->answer = NULL;
		TAILQ_REMOVE(&c->o->conns, c, link);
		c->o->nconns--;
	}
	c->o = NULL;
	if (!uv_is_closing((uv_handle_t *)&c->tcp))
		uv_close((uv_handle_t *)&c->tcp, conn_free_cb);
	if (!uv_is_closing((uv_handle_t *)&c->timer))
		uv_close((uv_handle_t *)&c->timer, conn_free_cb);
}

static void wrote_cb(uv_write_t *wr, int status)
{
	oauth_conn_close(wr->data);
}

void oauth_conn_answer(struct oauth_conn *c, int code, const char *text)
{
	uv_buf_t b;
	int n;

	if (c->answered)
		return;
	c->answered = 1;
	uv_read_stop((uv_stream_t *)&c->tcp);
	n = asprintf(&c->resp, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; "
		     "charset=utf-8\r\nContent-Length: %zu\r\nConnection: "
		     "close\r\nCache-Control: no-store\r\n\r\n%s\n", code,
		     code == 200 ? "OK" : code == 404 ? "Not Found" :
		     code == 408 ? "Request Timeout" : "Bad Request", strlen(text) + 1, text);
	if (n < 0) {
		c->resp = NULL;
		oauth_conn_close(c);
		return;
	}
	b = uv_buf_init(c->resp, (unsigned)n);
	c->wr.data = c;
	if (uv_write(&c->wr, (uv_stream_t *)&c->tcp, &b, 1, wrote_cb) < 0)
		oauth_conn_close(c);
}

static void lis_free_cb(uv_handle_t *h)
{
	free(h);
}

/* The flow ended: the listener and every connection but the one waiting
 * for its answer (got_token and step_done answer it, then it closes). */
void oauth_listen_close(struct oauth *o)
{
	struct oauth_conn *c, *next;

	for (c = TAILQ_FIRST(&o->conns); c; c = next) {
		next = TAILQ_NEXT(c, link);
		if (c != o->answer && !c->busy)
			oauth_conn_close(c);
	}
	if (!o->lis)
		return;
	o->lis->data = NULL;
	uv_close((uv_handle_t *)o->lis, lis_free_cb);
	o->lis = NULL;
	mod_log(MLOG_DEBUG, "server %s: auth: loopback listener on port %d "
	        "closed", o->name, o->port);
}

static void alloc_cb(uv_handle_t *h, size_t sz, uv_buf_t *b)
{
	struct oauth_conn *c = h->data;

	*b = uv_buf_init(c->buf + c->len, (unsigned)(sizeof c->buf - 1 -
						       c->len));
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *b)
{
	struct oauth_conn *c = s->data;
	char *end, target[4096], url[4200], why[300];
	int r;

	if (nread < 0 || !c->o) {
		oauth_conn_close(c);
		return;
	}
	c->len += (size_t)nread;
	c->buf[c->len] = 0;
	if (memchr(c->buf, 0, c->len)) {
		oauth_conn_answer(c, 400, "malformed request");
		return;
	}
	end = strstr(c->buf, "\r\n\r\n");
	if (!end) {
		if (c->len >= sizeof c->buf - 1)
			oauth_conn_answer(c, 400, "request too long");
		return;
	}
	if (sscanf(c->buf, "GET %4095s HTTP/1.", target) != 1 ||
	    strncmp(target, "/callback", 9) ||
	    (target[9] && target[9] != '?')) {
		oauth_conn_answer(c, 404, "not the mcpfs sign-in callback");
		return;
	}
	snprintf(url, sizeof url, "http://127.0.0.1:%d%s", c->o->port, target);
	c->busy = 1;
	r = on_callback(c->o, url, why, sizeof why);
	c->busy = 0;
	if (r == 1) {
		c->o->answer = c; /* answered once the token request ends */
		return;
	}
	oauth_conn_answer(c, 400, why);
}

/* A connection's time to send its request is up: answered, closed. */
static void conn_deadline_cb(uv_timer_t *t)
{
	struct oauth_conn *c = t->data;

	if (c->o && c->o->answer == c)
		return; /* its token request is under way */
	if (c->answered)
		oauth_conn_close(c);
	else
		oauth_conn_answer(c, 408, "request timeout");
}

static void connection_cb(uv_stream_t *srv, int status)
{
	struct oauth *o = srv->data;
	struct oauth_conn *c, *old;

	if (status < 0 || !o)
		return;
	c = calloc(1, sizeof *c);
	if (!c) /* accept and drop it: an unaccepted one stalls the listener */
		return (void)oauth_net_drop(srv);
	if (o->nconns >= CONN_MAX) {
		TAILQ_FOREACH(old, &o->conns, link)
			if (old != o->answer)
				break;
		if (old)
			oauth_conn_close(old);
	}
	c->o = o;
	TAILQ_INSERT_TAIL(&o->conns, c, link);
	o->nconns++;
	uv_tcp_init(mod_env.loop, &c->tcp);
	uv_timer_init(mod_env.loop, &c->timer);
	c->handles = 2;
	c->tcp.data = c->timer.data = c;
	uv_timer_start(&c->timer, conn_deadline_cb, CONN_MS, 0);
	if (uv_accept(srv, (uv_stream_t *)&c->tcp) < 0 ||
	    uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, read_cb) < 0)
		oauth_conn_close(c);
}

/* Open the listener on redirectPort or a derived port; 0 or -errno. */
int oauth_listen_open(struct oauth *o, oauth_callback_fn cb)
{
	on_callback = cb;
	unsigned char d[32];
	int i, ports[4], np = 0, r = -EADDRINUSE;

	if (o->lis)
		return 0;
	if (o->cfg.redirect_port) {
		ports[np++] = o->cfg.redirect_port;
	} else {
		oauth_sha256(o->url, strlen(o->url), d);
		for (i = 0; i < 4; i++)
			ports[np++] = 20000 + (d[2 * i] << 8 | d[2 * i + 1]) %
					      40000;
	}
	for (i = 0; i < np; i++) {
		struct sockaddr_in a;
		uv_tcp_t *t = malloc(sizeof *t);

		if (!t)
			return -ENOMEM;
		uv_tcp_init(mod_env.loop, t);
		t->data = o;
		uv_ip4_addr("127.0.0.1", ports[i], &a);
		r = uv_tcp_bind(t, (const struct sockaddr *)&a, 0);
		if (!r)
			r = uv_listen((uv_stream_t *)t, 8, connection_cb);
		if (!r) {
			char *uri = NULL;

			o->lis = t;
			o->port = ports[i];
			if (asprintf(&uri, "http://127.0.0.1:%d/callback",
				     o->port) < 0)
				return -ENOMEM;
			if (o->redirect_uri && strcmp(o->redirect_uri, uri) &&
			    o->registered) {
				/* registered for another port */
				o->registered = 0;
				free(o->client_id);
				free(o->client_secret);
				o->client_id = o->client_secret = NULL;
			}
			free(o->redirect_uri);
			o->redirect_uri = uri;
			mod_log(MLOG_DEBUG, "server %s: auth: loopback listener "
			        "on port %d", o->name, o->port);
			return 0;
		}
		t->data = NULL;
		uv_close((uv_handle_t *)t, lis_free_cb);
	}
	return r;
}
