/*
 * stream.c - a long reply to a user call read as it arrives (stdio): the
 * line so far, found to begin {"jsonrpc", "id": N, ..., "result": R, is
 * scanned for the end of R as more comes, and R's bytes so far are
 * readable from call (mcp_call_stream) before the line ends; inbound.c
 * then completes the call with the same bytes. A session's state of it
 * (struct stream) is made at the first line that comes in parts.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "jcompact.h"
#include "jscan.h"
#include "stream.h"

/* A session's long reply arriving (mcp_session.stream), made at the first
 * line that comes in parts. */
struct stream {
	enum stream_state state;
	mcp_call *c;           /* whose (STREAM_ON) */
	const char *base;      /* the line so far (transport's) */
	size_t len, start;     /* its length; where the result is */
	size_t end, scan;      /* result end (0: not yet); scanned */
	int depth, in_str, esc;
	size_t ctl_scan, ctl_at; /* scanned for control bytes; the first
				    one (0: none) */
	uint64_t long_id;      /* the rpc id of a reply read as it arrived
				  that went past --max-message, until it
				  ends */
};

static size_t ws_end(const char *p, size_t i, size_t n)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
			 p[i] == '\n'))
		i++;
	return i;
}

/*
 * The line so far begins a reply {"jsonrpc", "id": N, ... "result": R...}
 * to a user call, with id before result (a result-first reply cannot be
 * placed before its id arrives, at the end): 1 with the stream started at
 * R, 0 to look again with more bytes, -1 never for this line.
 */
static int stream_detect(mcp_session *s, const char *p, size_t n)
{
	struct stream *st = s->stream;
	size_t i = ws_end(p, 0, n), ke, ve;
	uint64_t id = 0;
	int have_id = 0;
	mcp_call *c;

	if (i < n && p[i] != '{')
		return -1;
	for (i++;;) {
		i = ws_end(p, i, n);
		if (i > 4096)
			return -1; /* a long envelope before result: no */
		if (i >= n)
			return 0;
		if (p[i] != '"')
			return -1;
		if (!(ke = jscan_string_end(p, i, n)))
			return 0;
		ve = ws_end(p, ke, n);
		if (ve >= n)
			return 0;
		if (p[ve] != ':')
			return -1;
		ve = ws_end(p, ve + 1, n);
		if (ve >= n)
			return 0;
		if (ke - i == 8 && !memcmp(p + i, "\"result\"", 8))
			break;
		if ((ke - i == 7 && !memcmp(p + i, "\"error\"", 7)) ||
		    (ke - i == 8 && !memcmp(p + i, "\"method\"", 8)))
			return -1;
		if (ke - i == 4 && !memcmp(p + i, "\"id\"", 4)) {
			size_t k = ve;

			for (id = 0; k < n && p[k] >= '0' && p[k] <= '9'; k++)
				id = id * 10 + (uint64_t)(p[k] - '0');
			if (k == ve || p[ve] == '0' || k - ve > 15)
				return -1;
			have_id = 1;
		}
		if (!(i = jscan_value_end(p, ve, n)) || i >= n)
			return 0;
		i = ws_end(p, i, n);
		if (i < n && p[i] != ',')
			return -1;
		i++;
	}
	if (!have_id || (p[ve] != '{' && p[ve] != '['))
		return -1;
	c = idtab_get(&s->pending, id);
	if (!c || c->kind != CALL_USER || c->task == TASK_ASKED)
		return -1;
	st->c = c;
	st->start = st->scan = ve;
	c->stream_at = ve;
	st->end = 0;
	st->depth = st->in_str = st->esc = 0;
	st->ctl_scan = ve;
	st->ctl_at = 0;
	c->streamed = 1;
	return 1;
}

/*
 * Inside a string of the result, from i (not just after a backslash): to
 * its closing quote, found with memchr rather than byte by byte (a long
 * reply is mostly one long text, and this loop ran at a few hundred MB/s,
 * the largest user-space cost of a streamed 16 MiB reply). A quote ends
 * the string if an even run of backslashes comes before it. Returns where
 * to go on: after the closing quote (st->in_str cleared), or st->len with
 * st->esc set if the bytes so far end in an odd run of backslashes.
 */
static size_t string_scan(struct stream *st, size_t i)
{
	const char *p = st->base, *q;
	size_t j, k;

	while ((q = memchr(p + i, '"', st->len - i)) != NULL) {
		j = (size_t)(q - p);
		for (k = j; k > i && p[k - 1] == '\\'; k--)
			;
		if ((j - k) % 2 == 0) {
			st->in_str = 0;
			return j + 1;
		}
		i = j + 1;
	}
	for (k = st->len; k > i && p[k - 1] == '\\'; k--)
		;
	st->esc = (st->len - k) % 2;
	return st->len;
}

/* Follow the result's structure over the new bytes, to where it ends. */
static void stream_scan(struct stream *st)
{
	const char *p = st->base;
	size_t i = st->scan;

	if (st->in_str && st->esc && i < st->len) {
		st->esc = 0;    /* the byte after a backslash */
		i++;
	}
	if (st->in_str && i < st->len)
		i = string_scan(st, i);
	for (; i < st->len && !st->end; i++) {
		char ch = p[i];

		if (ch == '"') {
			st->in_str = 1;
			i = string_scan(st, i + 1) - 1;
		} else if (ch == '{' || ch == '[') {
			st->depth++;
		} else if ((ch == '}' || ch == ']') && --st->depth == 0) {
			st->end = i + 1;
		} else if (ch == ' ' && (!st->ctl_at || i < st->ctl_at)) {
			st->ctl_at = i; /* dropped in the reply (fast_reply) */
		}
	}
	st->scan = i;
}

/* The next line: looked at afresh (the long reply's id is kept). */
static void stream_reset(struct stream *st)
{
	uint64_t keep = st->long_id;

	memset(st, 0, sizeof *st);
	st->long_id = keep;
}

void stream_forget(mcp_session *s, mcp_call *c)
{
	if (s->stream && s->stream->c == c)
		s->stream->c = NULL; /* the rest of its line is not a reply */
}

void stream_free(mcp_session *s)
{
	free(s->stream);
	s->stream = NULL;
}

/* The bytes of c's result that have arrived: *n at *p. */
static void partial(const mcp_call *c, const char **p, size_t *n)
{
	const struct stream *st = c->s ? c->s->stream : NULL;
	size_t end;

	*n = 0;
	if (c->done || !st || st->c != c)
		return;
	end = st->end ? st->end : st->len;
	if (st->ctl_at && st->ctl_at < end)
		end = st->ctl_at; /* escaped in the reply (inbound.c) */
	*p = st->base + st->start;
	*n = end - st->start;
}

int mcp_call_stream(const mcp_call *c, const char **p, size_t *n)
{
	if (p && n)
		partial(c, p, n);
	if (!c->done || !c->streamed || c->stream_ok)
		return 0;
	return c->too_long ? EFBIG : EIO;
}

void stream_partial(mcp_session *s, const char *p, size_t n)
{
	struct stream *st = s->stream;
	int r;

	if (!st && !(st = s->stream = calloc(1, sizeof *st)))
		return; /* out of memory: the reply comes whole */
	if (st->state == STREAM_OFF)
		return;
	st->base = p;
	st->len = n;
	if (st->state == STREAM_LOOKING) {
		r = stream_detect(s, p, n);
		if (r == 0)
			return;
		st->state = r > 0 ? STREAM_ON : STREAM_OFF;
	}
	if (!st->c) { /* its call ended (timeout, cancel) */
		st->state = STREAM_OFF;
		return;
	}
	/* a raw control byte is escaped in the reply, a space outside a
	 * string dropped (fast_reply, spec 6): what is readable stops before
	 * the first one, so that it is a prefix of the reply as it will be
	 * (controls first: stream_scan keeps the earlier of the two) */
	if (!st->ctl_at) {
		st->ctl_scan = jcompact_control(p, st->ctl_scan, n);
		if (st->ctl_scan < n)
			st->ctl_at = st->ctl_scan;
	}
	stream_scan(st);
	call_more(st->c);
}

mcp_call *stream_line_end(mcp_session *s)
{
	struct stream *st = s->stream;
	mcp_call *c = st && st->state == STREAM_ON ? st->c : NULL;

	if (st)
		stream_reset(st); /* the next line: look */
	return c;
}

void stream_too_long(mcp_session *s)
{
	struct stream *st = s->stream;

	if (!st)
		return; /* no line came in parts: none was read as it came */
	st->long_id = st->state == STREAM_ON && st->c ? st->c->rpc_id : 0;
	if (st->long_id)
		st->c->too_long = 1;
	stream_reset(st);
}

uint64_t stream_long_id(mcp_session *s)
{
	struct stream *st = s->stream;
	uint64_t id = st ? st->long_id : 0;

	if (st) {
		st->long_id = 0;
		stream_reset(st);
	}
	return id;
}
