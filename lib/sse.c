/*
 * sse.c - text/event-stream parsing. Lines end in "\r\n", "\n" or "\r" (a
 * "\r\n" split across two feeds counts once). A line starting with ':' is a
 * comment; otherwise it is "field: value" (one space after the colon is
 * dropped) or a bare "field". The fields kept are data (appended), event
 * (the type), id (kept unless it holds a NUL) and retry (all digits); an
 * empty line dispatches the event: a message event, or with all_types any
 * event (the HTTP+SSE transport's "endpoint"). Unknown fields are ignored.
 * A line or an event past max bytes breaks the parser for good (every
 * later feed returns -E2BIG), like frame.c does for over-long lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sse.h"

void sse_init(struct sse *p, size_t max)
{
	memset(p, 0, sizeof *p);
	p->retry = -1;
	p->max = max;
}

void sse_free(struct sse *p)
{
	gbuf_free(&p->line);
	gbuf_free(&p->data);
}

/* Append n bytes to g, or break the parser past max. */
static int keep(struct sse *p, struct gbuf *g, const char *s, size_t n)
{
	if (g->len + n > p->max) {
		p->broken = 1;
		return -E2BIG;
	}
	return gbuf_add(g, s, n);
}

static int dispatch(struct sse *p, sse_event_cb cb, void *ctx)
{
	int message = p->all_types || !p->type[0] ||
		      !strcmp(p->type, "message");
	int r = 0;

	if (p->has_data && p->data.len && message)
		r = cb(ctx, p->data.p, p->data.len);
	gbuf_clear(&p->data);
	p->has_data = 0;
	p->type[0] = 0;
	return r;
}

static int field(struct sse *p, const char *name, size_t nlen,
		 const char *val, size_t vlen)
{
	size_t i;

	if (nlen == 4 && !memcmp(name, "data", 4)) {
		int r = p->has_data ? keep(p, &p->data, " ", 1) : 0;

		if (r || (r = keep(p, &p->data, val, vlen)))
			return r;
		p->has_data = 1;
	} else if (nlen == 5 && !memcmp(name, "event", 5)) {
		if (vlen >= sizeof p->type)
			vlen = sizeof p->type - 1; /* an unknown type anyway */
		memcpy(p->type, val, vlen);
		p->type[vlen] = 0;
		if (memchr(val, 0, vlen)) /* unknown: no line holds a '\n' */
			strcpy(p->type, "\n");
	} else if (nlen == 2 && !memcmp(name, "id", 2)) {
		if (!memchr(val, 0, vlen) && vlen < sizeof p->id) {
			memcpy(p->id, val, vlen);
			p->id[vlen] = 0;
		}
	} else if (nlen == 5 && !memcmp(name, "retry", 5)) {
		long ms = 0;

		for (i = 0; i < vlen; i++) {
			if (val[i] < '0' || val[i] > '9' || ms > 100000000)
				return 0;
			ms = ms * 10 + (val[i] - '0');
		}
		if (vlen)
			p->retry = ms;
	}
	return 0;
}

static int line(struct sse *p, const char *s, size_t n, sse_event_cb cb,
		void *ctx)
{
	const char *colon;
	size_t nlen;

	if (!n)
		return dispatch(p, cb, ctx);
	if (s[0] == ':')
		return 0;
	colon = memchr(s, ':', n);
	if (!colon)
		return field(p, s, n, "", 0);
	nlen = (size_t)(colon - s);
	colon++;
	if (colon < s + n && *colon == ' ')
		colon++;
	return field(p, s, nlen, colon, n - (size_t)(colon - s));
}

int sse_feed(struct sse *p, const char *buf, size_t n, sse_event_cb cb,
	     void *ctx)
{
	size_t i = 0;
	int r;

	if (p->broken)
		return -E2BIG;
	if (!n)
		return 0; /* a pending '\r' stays pending */
	if (p->cr && buf[0] == '\n')
		i = 1; /* the '\n' of a "\r\n" split across feeds */
	p->cr = 0;
	while (i < n) {
		size_t j = i;

		while (j < n && buf[j] != '\n' && buf[j] != '\r')
			j++;
		if (j == n) /* an unfinished line: keep it */
			return keep(p, &p->line, buf + i, n - i);
		if (p->line.len) {
			if ((r = keep(p, &p->line, buf + i, j - i)))
				return r;
			r = line(p, p->line.p, p->line.len, cb, ctx);
			gbuf_clear(&p->line);
		} else if (j - i > p->max) {
			p->broken = 1;
			return -E2BIG;
		} else {
			r = line(p, buf + i, j - i, cb, ctx);
		}
		if (r == -E2BIG)
			p->broken = 1;
		if (r)
			return r;
		if (buf[j] == '\r') {
			if (j + 1 == n)
				p->cr = 1;
			else if (buf[j + 1] == '\n')
				j++;
		}
		i = j + 1;
	}
	return 0;
}
