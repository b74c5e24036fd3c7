/*
 * test_sse.c - the text/event-stream parser. Every stream is fed whole, cut
 * in two at every byte, cut in three at every pair of bytes (short streams),
 * byte by byte, and byte by byte with an empty feed after each byte; every
 * way must deliver exactly the same events (data and length) and leave the
 * same id, retry and return code. Covered: "\r\n", "\n" and a bare "\r" as
 * line ends, "\r\n" split across feeds, comments, "field: value" with one
 * space dropped and a bare "field", data lines joined with a space, empty
 * data not delivered, event types (only "" and "message" delivered, the
 * type reset after each event; every type with all_types), id (kept
 * across events, ignored when it holds a NUL or is SSE_ID_MAX bytes or
 * more), retry (digits only), the line and event-data limits and the
 * broken state after -E2BIG, stopping from the callback, NUL bytes in data, and sse_free after partial input.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sse.h"

#define MAXEV 16

struct got {
	int n;
	char *data[MAXEV];
	size_t len[MAXEV];
	int stop_at;       /* return 7 on this event (1-based), 0 = never */
};

static int collect_cb(void *ctx, char *data, size_t len)
{
	struct got *g = ctx;

	assert_true(len > 0);
	assert_int_equal(data[len], '\0');
	assert_null(memchr(data, '\n', len));
	assert_null(memchr(data, '\r', len));
	assert_true(g->n < MAXEV);
	g->data[g->n] = malloc(len + 1);
	assert_non_null(g->data[g->n]);
	memcpy(g->data[g->n], data, len + 1);
	g->len[g->n] = len;
	g->n++;
	data[0] = '#'; /* writable; must not leak into the next event */
	return g->stop_at && g->n == g->stop_at ? 7 : 0;
}

static void got_free(struct got *g)
{
	int i;

	for (i = 0; i < g->n; i++)
		free(g->data[i]);
	memset(g, 0, sizeof(*g));
}

/* What a stream must give, however it is cut. */
struct expect {
	size_t max;                /* 0 = 1000 */
	const char *ev[MAXEV];     /* the events delivered, NULL-ended */
	int rc;                    /* first non-zero return: -E2BIG or 7 */
	const char *id;            /* p->id at the end, NULL = "" */
	int has_retry;             /* else p->retry must be -1 */
	long retry;
	int stop_at;
};

#define RETRY(ms) .has_retry = 1, .retry = (ms)

struct run {
	struct sse p;
	struct got g;
	int rc;
	char how[64];
};

/* One feed; 0 once the callback stopped the stream (feed no more). */
static int feed(struct run *r, const char *s, size_t n)
{
	int rc = sse_feed(&r->p, s, n, collect_cb, &r->g);

	if (!r->rc) {
		r->rc = rc;
	} else if (rc != -E2BIG) {
		/* only -E2BIG goes on; a stopped stream is not fed again */
		fail_msg("%s: feed after %d returned %d", r->how, r->rc, rc);
	}
	return !r->rc || r->rc == -E2BIG;
}

static void verify(struct run *r, const struct expect *e)
{
	const char *want_id = e->id ? e->id : "";
	long want_retry = e->has_retry ? e->retry : -1;
	int i, n = 0;

	if (r->rc != e->rc)
		fail_msg("%s: returned %d, not %d", r->how, r->rc, e->rc);
	if (r->rc == -E2BIG) {
		/* broken for good: nothing more is parsed or delivered */
		assert_int_equal(sse_feed(&r->p, "data: x\n\n", 9, collect_cb,
					  &r->g), -E2BIG);
		assert_int_equal(sse_feed(&r->p, "\n", 1, collect_cb, &r->g),
				 -E2BIG);
		assert_int_equal(sse_feed(&r->p, "", 0, collect_cb, &r->g),
				 -E2BIG);
	}
	while (n < MAXEV && e->ev[n])
		n++;
	if (r->g.n != n)
		fail_msg("%s: %d events, not %d", r->how, r->g.n, n);
	for (i = 0; i < n; i++) {
		if (r->g.len[i] != strlen(e->ev[i]) ||
		    memcmp(r->g.data[i], e->ev[i], r->g.len[i]) != 0)
			fail_msg("%s: event %d is \"%s\" (%zu bytes), not "
				 "\"%s\"", r->how, i, r->g.data[i],
				 r->g.len[i], e->ev[i]);
	}
	if (strcmp(r->p.id, want_id) != 0)
		fail_msg("%s: id \"%s\", not \"%s\"", r->how, r->p.id,
			 want_id);
	if (r->p.retry != want_retry)
		fail_msg("%s: retry %ld, not %ld", r->how, r->p.retry,
			 want_retry);
}

/* Feed s cut at cuts[0..ncuts) (ascending), an empty feed after each part
 * when empties; then check against e. */
static void run_cuts(const char *s, size_t n, const struct expect *e,
		     const size_t *cuts, size_t ncuts, int empties,
		     const char *how)
{
	struct run r;
	size_t i, off = 0, end;

	memset(&r, 0, sizeof(r));
	snprintf(r.how, sizeof(r.how), "%s", how);
	r.g.stop_at = e->stop_at;
	sse_init(&r.p, e->max ? e->max : 1000);
	for (i = 0; i <= ncuts; i++) {
		end = i < ncuts ? cuts[i] : n;
		if (!feed(&r, s + off, end - off))
			break;
		off = end;
		if (empties && !feed(&r, s + off, 0))
			break;
	}
	verify(&r, e);
	got_free(&r.g);
	sse_free(&r.p);
}

static void check_all(const char *s, size_t n, const struct expect *e)
{
	size_t cuts[2], *bytes, i;
	char how[64];

	run_cuts(s, n, e, NULL, 0, 0, "whole");
	run_cuts(s, n, e, NULL, 0, 1, "whole, then empty");
	for (cuts[0] = 0; cuts[0] <= n; cuts[0]++) {
		snprintf(how, sizeof(how), "cut at %zu", cuts[0]);
		run_cuts(s, n, e, cuts, 1, 0, how);
		if (n > 256)
			continue;
		for (cuts[1] = cuts[0]; cuts[1] <= n; cuts[1]++) {
			snprintf(how, sizeof(how), "cut at %zu and %zu",
				 cuts[0], cuts[1]);
			run_cuts(s, n, e, cuts, 2, 0, how);
		}
	}
	if (n < 2)
		return;
	bytes = malloc((n - 1) * sizeof(*bytes));
	assert_non_null(bytes);
	for (i = 0; i < n - 1; i++)
		bytes[i] = i + 1;
	run_cuts(s, n, e, bytes, n - 1, 0, "byte by byte");
	run_cuts(s, n, e, bytes, n - 1, 1, "byte by byte, empty feeds");
	free(bytes);
}

#define CHECK(lit, ...) \
	check_all(lit, sizeof(lit) - 1, &(const struct expect){__VA_ARGS__})

static void test_basic(void **state)
{
	CHECK("data: hello\n\n", .ev = {"hello"});
	CHECK("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
	      .ev = {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"});
	/* several events in one feed */
	CHECK("data: a\n\ndata: b\n\ndata: c\n\n", .ev = {"a", "b", "c"});
	/* no blank line yet: nothing dispatched */
	CHECK("data: a\n", .ev = {NULL});
	CHECK("data: a\n\ndata: b\n", .ev = {"a"});
	CHECK("data: a\n\ndata: b", .ev = {"a"});
	/* blank lines with nothing pending dispatch nothing */
	CHECK("\n\n\ndata: a\n\n\n\n", .ev = {"a"});
	CHECK("", .ev = {NULL});
}

static void test_line_endings(void **state)
{
	CHECK("data: a\r\n\r\n", .ev = {"a"});
	CHECK("data: a\r\r", .ev = {"a"});                 /* bare \r */
	CHECK("data: a\rdata: b\r\r", .ev = {"a b"});
	/* "\r\n" is one line end, not a \r line and then an empty line */
	CHECK("data: a\r\ndata: b\r\n\r\n", .ev = {"a b"});
	/* but "\n\r" is two */
	CHECK("data: a\n\rdata: b\n\n", .ev = {"a", "b"});
	CHECK("data: a\r\r\ndata: b\r\n\r", .ev = {"a", "b"});
	CHECK("data: 1\ndata: 2\rdata: 3\r\ndata: 4\n\r\n",
	      .ev = {"1 2 3 4"});
	CHECK("data: a\r\n\ndata: b\n\r\n", .ev = {"a", "b"});
	/* a lone \r inside what would be a line ends it */
	CHECK("data: a\rb\n\n", .ev = {"a"});
}

/* "\r" and "\n" in separate feeds, checked after each one. */
static void test_crlf_split(void **state)
{
	static const char *feeds[] = {"data: a\r", "\n", "data: b\r", "\n",
				      "\r", "\n", "data: c\n\n"};
	static const int after[] = {0, 0, 0, 0, 1, 1, 2};
	struct sse p;
	struct got g = {0};
	size_t i;

	sse_init(&p, 100);
	for (i = 0; i < sizeof(feeds) / sizeof(feeds[0]); i++) {
		assert_int_equal(sse_feed(&p, feeds[i], strlen(feeds[i]),
					  collect_cb, &g), 0);
		assert_int_equal(g.n, after[i]);
	}
	assert_string_equal(g.data[0], "a b");
	assert_string_equal(g.data[1], "c");
	got_free(&g);
	sse_free(&p);

	/* An empty feed (or a NULL one) between the \r and the \n. */
	sse_init(&p, 100);
	assert_int_equal(sse_feed(&p, "data: a\r", 8, collect_cb, &g), 0);
	assert_int_equal(sse_feed(&p, "", 0, collect_cb, &g), 0);
	assert_int_equal(sse_feed(&p, NULL, 0, collect_cb, &g), 0);
	assert_int_equal(sse_feed(&p, "\ndata: b\n\n", 10, collect_cb, &g),
			 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.data[0], "a b");
	got_free(&g);
	sse_free(&p);

	/* A \r ending a line that was split across feeds. */
	CHECK("data: abc\r\ndata: def\r\n\r\n", .ev = {"abc def"});
}

static void test_comments(void **state)
{
	CHECK(": hello\n\n", .ev = {NULL});
	CHECK(":\n\n", .ev = {NULL});
	CHECK(":data: x\n\n", .ev = {NULL});
	CHECK(": comment\ndata: a\n: another\ndata: b\n:\n\n",
	      .ev = {"a b"});
	CHECK(": keep-alive\r\n\r\ndata: x\r\n\r\n", .ev = {"x"});
	/* a comment is not a blank line */
	CHECK("data: a\n:\ndata: b\n\n", .ev = {"a b"});
}

static void test_fields(void **state)
{
	/* one space after the colon is dropped, no more */
	CHECK("data:x\n\n", .ev = {"x"});
	CHECK("data: x\n\n", .ev = {"x"});
	CHECK("data:  x\n\n", .ev = {" x"});
	CHECK("data:\tx\n\n", .ev = {"\tx"});
	CHECK("data: x  \n\n", .ev = {"x  "});
	CHECK("data: a:b: c\n\n", .ev = {"a:b: c"});
	/* empty data is not delivered */
	CHECK("data\n\n", .ev = {NULL});
	CHECK("data:\n\n", .ev = {NULL});
	CHECK("data: \n\n", .ev = {NULL});
	/* a bare "data" is an empty value, still joined with a space */
	CHECK("data\ndata\n\n", .ev = {" "});
	CHECK("data: a\ndata\n\n", .ev = {"a "});
	CHECK("data\ndata: b\n\n", .ev = {" b"});
	/* data lines joined with a space */
	CHECK("data: {\"a\":\ndata: 1}\n\n", .ev = {"{\"a\": 1}"});
	CHECK("data: a\ndata: b\ndata: c\n\n", .ev = {"a b c"});
	/* field names are exact */
	CHECK("data : x\n\n", .ev = {NULL});
	CHECK("Data: x\n\n", .ev = {NULL});
	CHECK("datax: y\n\n", .ev = {NULL});
	CHECK("dat: y\n\n", .ev = {NULL});
	CHECK(" data: y\n\n", .ev = {NULL});
	/* unknown fields are ignored */
	CHECK("foo: bar\ndata: a\nfoo\n\n", .ev = {"a"});
}

static void test_event_types(void **state)
{
	char s[128];

	CHECK("event: ping\ndata: p\n\n", .ev = {NULL});
	CHECK("event: message\ndata: m\n\n", .ev = {"m"});
	CHECK("event:message\ndata: m\n\n", .ev = {"m"});
	CHECK("event:\ndata: e\n\n", .ev = {"e"});
	CHECK("event\ndata: e\n\n", .ev = {"e"});
	/* the type is reset after every event, delivered or not */
	CHECK("event: ping\ndata: p\n\ndata: after\n\n", .ev = {"after"});
	CHECK("event: ping\n\ndata: x\n\n", .ev = {"x"});
	CHECK("event: ping\ndata\n\ndata: x\n\n", .ev = {"x"});
	/* the last event field wins, wherever it is */
	CHECK("event: ping\nevent: message\ndata: m\n\n", .ev = {"m"});
	CHECK("event: message\nevent: ping\ndata: p\n\n", .ev = {NULL});
	CHECK("data: m\nevent: ping\n\n", .ev = {NULL});
	/* exact match only */
	CHECK("event: Message\ndata: m\n\n", .ev = {NULL});
	CHECK("event: message \ndata: m\n\n", .ev = {NULL});
	CHECK("event:  message\ndata: m\n\n", .ev = {NULL});
	CHECK("event: messages\ndata: m\n\n", .ev = {NULL});
	/* a NUL makes a type that is neither "" nor "message" */
	CHECK("event: message\0x\ndata: m\n\n", .ev = {NULL});
	CHECK("event:\0\ndata: m\n\n", .ev = {NULL});
	CHECK("event: \0message\ndata: m\n\n", .ev = {NULL});
	/* types longer than the buffer are unknown, never "message" */
	snprintf(s, sizeof(s), "event: message%040d\ndata: m\n\ndata: n\n\n",
		 0);
	check_all(s, strlen(s), &(const struct expect){.ev = {"n"}});
	snprintf(s, sizeof(s), "event: %0100d\ndata: m\n\n", 0);
	check_all(s, strlen(s), &(const struct expect){.ev = {NULL}});
}

struct typed {
	struct sse *p;
	int n;
	char got[4][64];
};

static int typed_cb(void *ctx, char *data, size_t len)
{
	struct typed *t = ctx;

	assert_true(t->n < 4);
	snprintf(t->got[t->n++], sizeof t->got[0], "%s|%s", t->p->type,
		 data);
	return 0;
}

/* all_types: every event with data is delivered, its type readable. */
static void test_all_types(void **state)
{
	static const char s[] = "event: endpoint\ndata: /m?s=1\n\n"
		"event: message\ndata: {}\n\ndata: d\n\n"
		"event: ping\n\nevent: x\ndata: y\n\n";
	struct sse p;
	struct typed t = {.p = &p};
	size_t i;

	sse_init(&p, 1000);
	p.all_types = 1;
	for (i = 0; i < sizeof s - 1; i++) /* byte by byte */
		assert_int_equal(sse_feed(&p, s + i, 1, typed_cb, &t), 0);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.got[0], "endpoint|/m?s=1");
	assert_string_equal(t.got[1], "message|{}");
	assert_string_equal(t.got[2], "|d");
	assert_string_equal(t.got[3], "x|y");
	sse_free(&p);
}

static void test_id(void **state)
{
	char s[700], want[SSE_ID_MAX];

	/* an event not delivered still sets the id */
	CHECK("event: ping\nid: 42\ndata: p\n\n", .ev = {NULL}, .id = "42");
	CHECK("id: 42\nevent: ping\n\n", .id = "42");
	/* kept across events */
	CHECK("id: 1\ndata: a\n\ndata: b\n\n", .ev = {"a", "b"}, .id = "1");
	CHECK("id: 1\ndata: a\n\nid: 2\ndata: b\n\n", .ev = {"a", "b"},
	      .id = "2");
	/* set when its line ends, no blank line needed; not before */
	CHECK("id: 3\n", .id = "3");
	CHECK("id: 3", .id = NULL);
	CHECK("id:3\r", .id = "3");
	CHECK("id:  x\n", .id = " x");
	/* an empty id clears it */
	CHECK("id: 7\nid\n", .id = NULL);
	CHECK("id: 7\nid:\n", .id = NULL);
	/* one holding a NUL is ignored */
	CHECK("id: 7\nid: a\0b\ndata: x\n\n", .ev = {"x"}, .id = "7");
	CHECK("id: 7\nid: \0\n", .id = "7");
	/* SSE_ID_MAX - 1 bytes fit, SSE_ID_MAX do not ("id: 1\nid: " is 10) */
	snprintf(s, sizeof(s), "id: 1\nid: %0*d\ndata: x\n\n",
		 SSE_ID_MAX - 1, 7);
	memcpy(want, s + 10, SSE_ID_MAX - 1);
	want[SSE_ID_MAX - 1] = 0;
	assert_int_equal(strlen(want), SSE_ID_MAX - 1);
	check_all(s, strlen(s), &(const struct expect){.ev = {"x"},
						       .id = want});
	snprintf(s, sizeof(s), "id: 1\nid: %0*d\ndata: x\n\n", SSE_ID_MAX,
		 7);
	check_all(s, strlen(s), &(const struct expect){.ev = {"x"},
						       .id = "1"});
}

static void test_retry(void **state)
{
	CHECK("retry: 3000\n", RETRY(3000));
	CHECK("retry:3000\n", RETRY(3000));
	CHECK("retry: 0\n", RETRY(0));
	CHECK("retry: 10\ndata: a\n\n", .ev = {"a"}, RETRY(10));
	/* not all digits: ignored, the last value stays */
	CHECK("retry: 12a\n", .ev = {NULL});
	CHECK("retry: 100\nretry: 12a\n", RETRY(100));
	CHECK("retry: 100\nretry:\n", RETRY(100));
	CHECK("retry: 100\nretry\n", RETRY(100));
	CHECK("retry: -5\n", .ev = {NULL});
	CHECK("retry: +5\n", .ev = {NULL});
	CHECK("retry:  5\n", .ev = {NULL});
	CHECK("retry: 5 \n", .ev = {NULL});
	CHECK("retry: 5.0\n", .ev = {NULL});
	CHECK("retry: 1\0\n", .ev = {NULL});
	/* too large to be sane: ignored, no overflow */
	CHECK("retry: 7\nretry: 99999999999999999999\n", RETRY(7));
	/* unfinished line: not yet */
	CHECK("retry: 5", .ev = {NULL});
}

static void test_limit_line(void **state)
{
	struct sse p;
	struct got g = {0};

	/* a line of exactly max bytes (16), whatever its line end */
	CHECK("data: 0123456789\n\n", .max = 16, .ev = {"0123456789"});
	CHECK("data: 0123456789\r\n\r\n", .max = 16, .ev = {"0123456789"});
	CHECK("data: 0123456789\r\r", .max = 16, .ev = {"0123456789"});
	/* max + 1 */
	CHECK("data: 0123456789a\n\n", .max = 16, .rc = -E2BIG);
	CHECK("data: 0123456789a\r\n\r\n", .max = 16, .rc = -E2BIG);
	/* also unfinished, a comment or an unknown field */
	CHECK("data: 0123456789abc", .max = 16, .rc = -E2BIG);
	CHECK(": 0123456789abcdef\ndata: a\n\n", .max = 16, .rc = -E2BIG);
	CHECK("foo: 0123456789abc\ndata: a\n\n", .max = 16, .rc = -E2BIG);
	/* events before the long line are delivered, none after */
	CHECK("id: 1\ndata: a\n\nid: 2\ndata: 0123456789ab\n\ndata: c\n\n",
	      .max = 16, .ev = {"a"}, .rc = -E2BIG, .id = "2");

	/* broken for good, feed after feed */
	sse_init(&p, 16);
	assert_int_equal(sse_feed(&p, "data: a\n\ndata: 01234", 20,
				  collect_cb, &g), 0);
	assert_int_equal(sse_feed(&p, "56789abc", 8, collect_cb, &g), -E2BIG);
	assert_int_equal(sse_feed(&p, "\n\n", 2, collect_cb, &g), -E2BIG);
	assert_int_equal(sse_feed(&p, "data: b\n\n", 9, collect_cb, &g),
			 -E2BIG);
	assert_int_equal(sse_feed(&p, "", 0, collect_cb, &g), -E2BIG);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.data[0], "a");
	got_free(&g);
	sse_free(&p);
}

static void test_limit_data(void **state)
{
	char s[200];
	size_t n, i;

	/* event data of exactly max (16) bytes, then max + 1 */
	CHECK("data: 0123456789\ndata: 01234\n\n", .max = 16,
	      .ev = {"0123456789 01234"});
	CHECK("data: 0123456789\ndata: 012345\n\n", .max = 16,
	      .rc = -E2BIG);
	CHECK("data: a\n\ndata: 0123456789\ndata: 012345\n\ndata: c\n\n",
	      .max = 16, .ev = {"a"}, .rc = -E2BIG);
	/* the limit is per event */
	CHECK("data: 0123456789\n\ndata: 0123456789\n\n", .max = 16,
	      .ev = {"0123456789", "0123456789"});
	/* and holds for events that would not be delivered */
	CHECK("event: ping\ndata: 0123456789\ndata: 012345\n\n", .max = 16,
	      .rc = -E2BIG);
	/* the joining spaces count: 17 bare "data" lines are 16 spaces */
	for (n = 17; n <= 18; n++) {
		for (i = 0; i < n; i++)
			memcpy(s + 5 * i, "data\n", 5);
		s[5 * n] = '\n';
		if (n == 17)
			check_all(s, 5 * n + 1, &(const struct expect){
				.max = 16, .ev = {"                "}});
		else
			check_all(s, 5 * n + 1, &(const struct expect){
				.max = 16, .rc = -E2BIG});
	}
}

static void test_stop(void **state)
{
	struct sse p;
	struct got g = {.stop_at = 2};

	sse_init(&p, 100);
	assert_int_equal(sse_feed(&p, "data: a\n\ndata: b\n\ndata: c\n\n", 27,
				  collect_cb, &g), 7);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.data[0], "a");
	assert_string_equal(g.data[1], "b");
	got_free(&g);
	sse_free(&p);

	/* however cut, the feed ending event 2 returns 7 (and the stream is
	 * fed no more) */
	CHECK("data: a\n\ndata: b\n\ndata: c\n\n", .stop_at = 2,
	      .ev = {"a", "b"}, .rc = 7);
	/* the rest of the stopping feed is not parsed */
	CHECK("data: a\n\nid: 9\nretry: 5\n", .stop_at = 1, .ev = {"a"},
	      .rc = 7);
	CHECK("data: a\r\rid: 9\n", .stop_at = 1, .ev = {"a"}, .rc = 7);
}

/* Data is passed with its length: a NUL in it is kept. */
static void test_nul_data(void **state)
{
	static const char s[] = "data: a\0b\n\ndata: c\n\n";
	size_t n = sizeof(s) - 1, i;
	struct sse p;
	struct got g = {0};

	sse_init(&p, 100);
	assert_int_equal(sse_feed(&p, s, n, collect_cb, &g), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(sse_feed(&p, s + i, 1, collect_cb, &g), 0);
	assert_int_equal(g.n, 4);
	for (i = 0; i < 4; i += 2) {
		assert_int_equal(g.len[i], 3);
		assert_memory_equal(g.data[i], "a\0b", 4);
		assert_int_equal(g.len[i + 1], 1);
		assert_string_equal(g.data[i + 1], "c");
	}
	got_free(&g);
	sse_free(&p);
}

/* Data past the initial buffers, cut everywhere. */
static void test_big(void **state)
{
	size_t n = 0, dn = 0, i, k;
	char *s = malloc(8000), *want = malloc(8000);

	assert_non_null(s);
	assert_non_null(want);
	for (k = 0; k < 5; k++) {
		memcpy(s + n, "data: ", 6);
		n += 6;
		if (k)
			want[dn++] = ' ';
		for (i = 0; i < 1000; i++) {
			s[n++] = (char)('a' + (i + k) % 26);
			want[dn++] = (char)('a' + (i + k) % 26);
		}
		s[n++] = k % 2 ? '\n' : '\r';
	}
	s[n++] = '\r';
	s[n++] = '\n';
	want[dn] = 0;
	check_all(s, n, &(const struct expect){.max = 5004, .ev = {want}});
	check_all(s, n, &(const struct expect){.max = 5003, .rc = -E2BIG});
	free(s);
	free(want);
}

/* Whatever is pending, sse_free releases it (valgrind checks). */
static void test_free_partial(void **state)
{
	static const char *partial[] = {
		"", "data: abc", "data: abc\n", "data: abc\r",
		"data: abc\ndata: de", "id: 1\nevent: ping\ndata: x\n",
		"data: a\n\ndata: b\n", "data: 0123456789012345678901234",
		"data: 0123456789\ndata: 0123456789\n",
	};
	struct sse p;
	struct got g = {0};
	size_t i;
	char *big;

	for (i = 0; i < sizeof(partial) / sizeof(partial[0]); i++) {
		sse_init(&p, 24);
		sse_feed(&p, partial[i], strlen(partial[i]), collect_cb, &g);
		sse_free(&p);
		assert_null(p.line.p);
		assert_null(p.data.p);
		sse_free(&p); /* twice is harmless */
	}
	got_free(&g);

	/* grown buffers, line and data */
	big = malloc(100000);
	assert_non_null(big);
	memset(big, 'x', 100000);
	memcpy(big, "data: ", 6);
	big[50000] = '\n';
	memcpy(big + 50001, "data: ", 6);
	sse_init(&p, 200000);
	assert_int_equal(sse_feed(&p, big, 100000, collect_cb, &g), 0);
	assert_int_equal(g.n, 0);
	assert_true(p.data.len == 49994);
	assert_true(p.line.len == 49999);
	sse_free(&p);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_line_endings),
		cmocka_unit_test(test_crlf_split),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_event_types),
		cmocka_unit_test(test_all_types),
		cmocka_unit_test(test_id),
		cmocka_unit_test(test_retry),
		cmocka_unit_test(test_limit_line),
		cmocka_unit_test(test_limit_data),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_nul_data),
		cmocka_unit_test(test_big),
		cmocka_unit_test(test_free_partial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
