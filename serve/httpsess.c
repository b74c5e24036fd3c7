/*
 * httpsess.c - the MCP sessions of the HTTP door (httpsess.h): each one
 * a peer of the core (door_env.peer_open) under a random Mcp-Session-Id,
 * with its POSTs and its GET stream. A message of the peer goes to the
 * POST it answers (by tag: plain JSON when it is the reply and comes
 * first, else an event of the POST's stream) or, with no tag, to the GET
 * stream. A request with nothing to send waits suspended; each second a
 * keep-alive comment goes on every waiting stream, so that a client that
 * went away is seen (libmicrohttpd does not watch a suspended
 * connection). A session with no request and no open stream for
 * serve_idle ends (spec 14).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/random.h>

#include "httpsess.h"
#include "mlog.h"

static LIST_HEAD(, hsess) sessions = LIST_HEAD_INITIALIZER(sessions);
static unsigned nsess;
static uv_loop_t *loop_;
static uint64_t idle_ms;         /* -o serve_idle */
static uv_timer_t ka_timer;      /* keep-alives while streams wait */
static void (*kick_)(void);      /* http.c: run libmicrohttpd soon */

void hs_init(uv_loop_t *loop, uint64_t idle, void (*kick)(void))
{
	loop_ = loop;
	idle_ms = idle;
	kick_ = kick;
	uv_timer_init(loop, &ka_timer);
}

void hs_stop(void)
{
	while (!LIST_EMPTY(&sessions))
		hs_end(LIST_FIRST(&sessions));
	uv_close((uv_handle_t *)&ka_timer, NULL);
}

unsigned hs_count(void)
{
	return nsess;
}

static void event(struct hreq *r, const char *json, size_t len)
{
	gbuf_add(&r->q, "event: message\ndata: ", 21);
	gbuf_add(&r->q, json, len);
	gbuf_add(&r->q, "\n\n", 2);
}

/* r has something to send (or is over): resume it if it waits. */
static void hs_wake(struct hreq *r)
{
	if (!r->suspended)
		return;
	r->suspended = 0;
	MHD_resume_connection(r->conn);
	/* MHD answers it from its next run: make that soon */
	kick_();
}

/* Every second while a stream waits: an SSE comment on each waiting
 * stream, so that a client that went away is seen (MHD does not watch a
 * suspended connection; the write to a closed one fails and ends it, and
 * a POST ended so drops its call). */
static void ka_cb(uv_timer_t *t)
{
	struct hsess *hs;
	struct hreq *r;
	int waiting = 0;

	LIST_FOREACH(hs, &sessions, link) {
		LIST_FOREACH(r, &hs->reqs, link)
			if (r->suspended) {
				gbuf_add(&r->q, ":\n\n", 3);
				hs_wake(r);
				waiting = 1;
			}
		if ((r = hs->get) != NULL && r->suspended) {
			gbuf_add(&r->q, ":\n\n", 3);
			hs_wake(r);
			waiting = 1;
		}
	}
	if (!waiting)
		uv_timer_stop(t);
}

static void hs_send(struct serve_out *o, const char *json, size_t len,
		    uint64_t tag, int last)
{
	struct hsess *hs = (struct hsess *)((char *)o -
					    offsetof(struct hsess, out));
	struct hreq *r;

	if (!tag) { /* list_changed, logs: on the GET stream if there is one */
		if ((r = hs->get) != NULL) {
			event(r, json, len);
			hs_wake(r);
		}
		return;
	}
	LIST_FOREACH(r, &hs->reqs, link) {
		if (r->tag != tag || r->done)
			continue;
		/* the reply at once, or first of all: plain JSON */
		if (last && (!r->sse || (r->sse == 2 && !r->q.len)) &&
		    (r->reply = malloc(len)) != NULL) {
			memcpy(r->reply, json, len);
			r->rlen = len;
		} else if (r->sse) { /* progress, then the reply, as events */
			event(r, json, len);
		} else if (!last) {
			return; /* before the stream: a reply comes at once */
		}
		r->done = last;
		hs_wake(r);
		return;
	}
}

struct hsess *hs_find(const char *id)
{
	struct hsess *hs;

	LIST_FOREACH(hs, &sessions, link)
		if (id && !strcmp(hs->id, id))
			return hs;
	return NULL;
}

void hs_end(struct hsess *hs)
{
	struct hreq *r;

	while ((r = LIST_FIRST(&hs->reqs)) != NULL) {
		LIST_REMOVE(r, link);
		r->hs = NULL;
		hs_wake(r); /* answered: the session ended */
	}
	if ((r = hs->get) != NULL) {
		hs->get = NULL;
		r->hs = NULL;
		hs_wake(r);
	}
	LIST_REMOVE(hs, link);
	nsess--;
	door_env.peer_close(hs->peer);
	free(hs);
}

static int hs_idle(const struct hsess *hs)
{
	return LIST_EMPTY(&hs->reqs) && !hs->get;
}

/* Sessions with no request and no open stream for serve_idle end. */
int hs_expire(uint64_t now)
{
	struct hsess *hs, *next;

	for (hs = LIST_FIRST(&sessions); hs; hs = next) {
		next = LIST_NEXT(hs, link);
		if (hs_idle(hs) && now - hs->last >= idle_ms) {
			door_log(MLOG_INFO, "serve: HTTP session %.8s... "
				 "idle for %llu s: ended", hs->id,
				 (unsigned long long)(idle_ms / 1000));
			hs_end(hs);
		}
	}
	return !LIST_EMPTY(&sessions);
}

/* Seconds until a session may end: the idle one closest to its end. */
unsigned hs_retry(void)
{
	uint64_t now = uv_now(loop_), best = idle_ms, left;
	struct hsess *hs;

	LIST_FOREACH(hs, &sessions, link)
		if (hs_idle(hs)) {
			left = now - hs->last >= idle_ms ? 0
				: idle_ms - (now - hs->last);
			if (left < best)
				best = left;
		}
	return (unsigned)(best / 1000) + 1;
}

struct hsess *hs_new(const char *thread)
{
	struct hsess *hs = calloc(1, sizeof *hs);
	unsigned char b[16];
	int i;

	if (!hs || getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
		free(hs);
		return NULL;
	}
	for (i = 0; i < 16; i++)
		sprintf(hs->id + 2 * i, "%02x", b[i]);
	hs->out.send = hs_send;
	hs->out.asks = 1; /* on the call's event stream, else the GET one */
	LIST_INIT(&hs->reqs);
	if (!(hs->peer = door_env.peer_open(thread, &hs->out))) {
		free(hs);
		return NULL;
	}
	LIST_INSERT_HEAD(&sessions, hs, link);
	nsess++;
	hs->last = uv_now(loop_); /* the sweep runs: its request's connection */
	return hs;
}

void hs_wait(struct hreq *r)
{
	r->suspended = 1;
	MHD_suspend_connection(r->conn);
	if (!uv_is_active((uv_handle_t *)&ka_timer))
		uv_timer_start(&ka_timer, ka_cb, 1000, 1000);
}

void hs_forget(struct hreq *r)
{
	if (!r->hs)
		return;
	r->hs->last = uv_now(loop_);
	if (r->hs->get == r) {
		r->hs->get = NULL;
	} else {
		LIST_REMOVE(r, link);
		if (!r->done) /* the client left before its reply */
			door_env.peer_cancel(r->hs->peer, r->tag);
	}
	r->hs = NULL;
}

/* The event stream of a request whose reply is not there yet: its
 * progress and then its reply, as they come (the connection is suspended
 * while there is nothing to send). */
ssize_t hs_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct hreq *r = cls;
	size_t n = r->q.len - r->qoff;

	(void)pos;
	if (n) {
		if (n > max)
			n = max;
		memcpy(buf, r->q.p + r->qoff, n);
		r->qoff += n;
		if (r->qoff == r->q.len) {
			gbuf_clear(&r->q);
			r->qoff = 0;
		}
		return (ssize_t)n;
	}
	if (r->done || !r->hs)
		return MHD_CONTENT_READER_END_OF_STREAM;
	hs_wait(r);
	return 0;
}
