/*
 * test_frame.c - newline framing: lines split across feeds at every point,
 * CRLF, empty lines, the length limit (exactly max, max + 1, a "\r\n" right
 * at the limit), a line past it dropped and the lines after it delivered,
 * the id of a dropped reply (frame_long_id), stopping from the callback,
 * a 64 MiB line fed in 64 KiB chunks; reading straight into the buffer
 * (frame_space, frame_commit: geometric growth, the room bounded by max)
 * and a callback taking the buffer of its line (frame_take), short (a
 * malloc'd block) and past 1 MiB (a bigmem block, byte-exact across the
 * move and the growth steps before it).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "bigmem.h"
#include "frame.h"

#define MAXLINES 64

struct got {
	int n;
	char *line[MAXLINES];
	size_t len[MAXLINES];
	int stop_at;       /* return 7 on this line (1-based), 0 = never */
	size_t big_len;    /* lines longer than 64 bytes: counted, not kept */
	int big_ok;
	int begins;        /* lines that passed max (line NULL, len 0) */
	int drops;         /* ... and ended (line NULL, their length) */
	size_t drop_len[8];
	int drop_has_id[8];
	uint64_t drop_id[8];
	struct frame *f;   /* for frame_long_id */
};

static int collect_cb(void *ctx, char *line, size_t len)
{
	struct got *g = ctx;

	if (!line) {
		if (len == 0) {
			assert_int_equal(g->begins, g->drops);
			g->begins++;
			return 0;
		}
		assert_int_equal(g->begins, g->drops + 1);
		assert_true(g->drops < 8);
		g->drop_len[g->drops] = len;
		if (g->f)
			g->drop_has_id[g->drops] =
				frame_long_id(g->f, &g->drop_id[g->drops]);
		g->drops++;
		return 0;
	}
	assert_int_equal(line[len], '\0');
	assert_int_equal(strlen(line), len);
	if (len > 64) {
		g->big_len = len;
		g->big_ok = line[0] == 'x' && line[len - 1] == 'y';
	} else {
		assert_true(g->n < MAXLINES);
		g->line[g->n] = strdup(line);
		g->len[g->n] = len;
	}
	g->n++;
	return g->stop_at && g->n == g->stop_at ? 7 : 0;
}

static void got_free(struct got *g)
{
	int i;

	for (i = 0; i < g->n && i < MAXLINES; i++)
		free(g->line[i]);
	memset(g, 0, sizeof(*g));
}

static int feed_str(struct frame *f, struct got *g, const char *s)
{
	return frame_feed(f, s, strlen(s), collect_cb, g);
}

static void test_basic(void **state)
{
	struct frame f;
	struct got g = {0};

	frame_init(&f, 100);
	assert_int_equal(feed_str(&f, &g, "a\nbc\n"), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.line[0], "a");
	assert_string_equal(g.line[1], "bc");
	assert_int_equal(feed_str(&f, &g, "de"), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(feed_str(&f, &g, "f\ng"), 0);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.line[2], "def");
	assert_int_equal(feed_str(&f, &g, ""), 0);
	assert_int_equal(feed_str(&f, &g, "\n"), 0);
	assert_int_equal(g.n, 4);
	assert_string_equal(g.line[3], "g");
	got_free(&g);
	frame_free(&f);
}

static void test_crlf_and_empty(void **state)
{
	struct frame f;
	struct got g = {0};

	frame_init(&f, 100);
	assert_int_equal(feed_str(&f, &g, "x\r\n\n\r\na\rb\n\r\r\n"), 0);
	assert_int_equal(g.n, 5);
	assert_string_equal(g.line[0], "x");
	assert_string_equal(g.line[1], "");
	assert_string_equal(g.line[2], "");
	assert_string_equal(g.line[3], "a\rb");  /* only a trailing \r goes */
	assert_string_equal(g.line[4], "\r");
	/* \r and \n in separate feeds. */
	assert_int_equal(feed_str(&f, &g, "yz\r"), 0);
	assert_int_equal(feed_str(&f, &g, "\n"), 0);
	assert_int_equal(g.n, 6);
	assert_string_equal(g.line[5], "yz");
	got_free(&g);
	frame_free(&f);
}

/* The same lines whatever the split of the stream into two feeds. */
static void test_every_split(void **state)
{
	static const char stream[] = "ab\ncd\r\n\nefg\n{\"x\":1}\nrest";
	static const char *want[] = {"ab", "cd", "", "efg", "{\"x\":1}"};
	size_t n = sizeof(stream) - 1, cut, third;
	struct frame f;
	struct got g;
	int i;

	for (cut = 0; cut <= n; cut++) {
		for (third = cut; third <= n; third++) {
			memset(&g, 0, sizeof(g));
			frame_init(&f, 10);
			assert_int_equal(frame_feed(&f, stream, cut,
						    collect_cb, &g), 0);
			assert_int_equal(frame_feed(&f, stream + cut,
						    third - cut, collect_cb,
						    &g), 0);
			assert_int_equal(frame_feed(&f, stream + third,
						    n - third, collect_cb,
						    &g), 0);
			assert_int_equal(g.n, 5);
			for (i = 0; i < 5; i++)
				assert_string_equal(g.line[i], want[i]);
			assert_int_equal(f.len, 4); /* "rest" is pending */
			got_free(&g);
			frame_free(&f);
		}
	}
}

static void test_limit(void **state)
{
	struct frame f;
	struct got g = {0};

	/* Exactly max is fine, with or without \r. */
	frame_init(&f, 4);
	assert_int_equal(feed_str(&f, &g, "abcd\nabcd\r\n"), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.line[1], "abcd");
	assert_int_equal(feed_str(&f, &g, "abcd\r"), 0);
	assert_int_equal(feed_str(&f, &g, "\n"), 0);
	assert_int_equal(g.n, 3);
	/* max + 1 in one piece: dropped, and the next line comes. */
	assert_int_equal(feed_str(&f, &g, "abcde\n"), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.drops, 1);
	assert_int_equal(g.drop_len[0], 5);
	assert_int_equal(feed_str(&f, &g, "a\n"), 0);
	assert_int_equal(g.n, 4);
	assert_string_equal(g.line[3], "a");
	frame_free(&f);
	got_free(&g);

	/* A partial line is dropped as soon as it passes max, before any
	 * '\n'; its length counts every byte up to the '\n'. */
	frame_init(&f, 4);
	assert_int_equal(feed_str(&f, &g, "abc"), 0);
	assert_int_equal(feed_str(&f, &g, "de"), 0);
	assert_int_equal(g.begins, 1);
	assert_int_equal(g.drops, 0);
	assert_int_equal(f.len, 0);
	assert_int_equal(feed_str(&f, &g, "fghij"), 0);
	assert_int_equal(feed_str(&f, &g, "k\r\nok\n"), 0);
	assert_int_equal(g.drops, 1);
	assert_int_equal(g.drop_len[0], 11);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.line[0], "ok");
	frame_free(&f);
	got_free(&g);

	/* max + 1 bytes ending in '\r' may still be a "\r\n" line... */
	frame_init(&f, 4);
	assert_int_equal(feed_str(&f, &g, "abcd\r"), 0);
	assert_int_equal(g.begins, 0);
	/* ...but not when something else follows. */
	assert_int_equal(feed_str(&f, &g, "x"), 0);
	assert_int_equal(g.begins, 1);
	assert_int_equal(feed_str(&f, &g, "\n"), 0);
	assert_int_equal(g.drop_len[0], 6);
	frame_free(&f);
	got_free(&g);

	frame_init(&f, 4);
	assert_int_equal(feed_str(&f, &g, "abcd\r\r\n"), 0);
	assert_int_equal(g.drops, 1);
	assert_int_equal(g.drop_len[0], 5);
	assert_int_equal(g.n, 0);
	frame_free(&f);
	got_free(&g);

	/* max 0: only empty lines. */
	frame_init(&f, 0);
	assert_int_equal(feed_str(&f, &g, "\n\r\n"), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(feed_str(&f, &g, "a\n\n"), 0);
	assert_int_equal(g.drops, 1);
	assert_int_equal(g.n, 3);
	frame_free(&f);
	got_free(&g);
}

/* Which reply a dropped line was: its top-level "id", wherever it is, when
 * it has no "method"; nested ids, strings and escapes do not count. */
static void test_long_id(void **state)
{
	static const struct {
		const char *line;
		int has;
		uint64_t id;
	} cases[] = {
		{"{\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{\"t\":\"xxxxxxxx\"}}",
		 1, 42},
		/* the TypeScript SDK: result first, id last */
		{"{\"result\":{\"id\":7,\"t\":\"\\\"id\\\":9\"},\"jsonrpc\":"
		 "\"2.0\",\"id\" : 12345678901}", 1, 12345678901ull},
		{"{\"method\":\"x\",\"id\":3,\"params\":{\"p\":\"xxxxxxxxxx\"}}",
		 0, 0},
		{"{\"id\":\"a\",\"result\":{\"t\":\"xxxxxxxxxxxxxxxxxxxx\"}}", 0, 0},
		{"{\"id\":-1,\"result\":{\"t\":\"xxxxxxxxxxxxxxxxxxxx\"}}", 0, 0},
		{"{\"id\":1,\"id\":2,\"result\":{\"t\":\"xxxxxxxxxxxxxxxxx\"}}", 0, 0},
		{"{\"i\\u0064\":5,\"result\":{\"t\":\"xxxxxxxxxxxxxxxxxxxx\"}}", 0, 0},
		{"[{\"id\":5},{\"t\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}]", 0, 0},
		{"{\"result\":{\"t\":\"xxxxxxxxxxxxxxxxxxxxxxxxxx\"},\"error\":1}", 0,
		 0},
	};
	size_t i, cut, n;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		n = strlen(cases[i].line);
		for (cut = 1; cut < n; cut += 7) {
			struct frame f;
			struct got g = {0};

			frame_init(&f, 16);
			g.f = &f;
			assert_int_equal(frame_feed(&f, cases[i].line, cut,
						    collect_cb, &g), 0);
			assert_int_equal(frame_feed(&f, cases[i].line + cut,
						    n - cut, collect_cb, &g),
					 0);
			assert_int_equal(frame_feed(&f, "\n{}\n", 4,
						    collect_cb, &g), 0);
			assert_int_equal(g.drops, 1);
			assert_int_equal(g.drop_len[0], n);
			assert_int_equal(g.drop_has_id[0], cases[i].has);
			if (cases[i].has)
				assert_true(g.drop_id[0] == cases[i].id);
			assert_int_equal(g.n, 1);
			frame_free(&f);
			got_free(&g);
		}
	}
}

static void test_stop(void **state)
{
	struct frame f;
	struct got g = {0};

	frame_init(&f, 100);
	g.stop_at = 2;
	assert_int_equal(feed_str(&f, &g, "one\ntwo\nthree\n"), 7);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.line[1], "two");
	got_free(&g);
	frame_free(&f);
}

static void test_free_reuse(void **state)
{
	struct frame f;
	struct got g = {0};

	frame_init(&f, 100);
	assert_int_equal(feed_str(&f, &g, "partial"), 0);
	frame_free(&f);
	assert_null(f.buf);
	assert_int_equal(f.len, 0);
	assert_int_equal(feed_str(&f, &g, "new\n"), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.line[0], "new");
	frame_free(&f);
	frame_free(&f); /* twice is harmless */
	got_free(&g);
}

/* A long line does not leave a long buffer behind. */
static void test_release(void **state)
{
	size_t n = 2 << 20;
	char *data = malloc(n + 1);
	struct frame f;
	struct got g = {0};

	assert_non_null(data);
	memset(data, 'x', n);
	data[n - 1] = 'y';
	data[n] = '\n';
	frame_init(&f, 4 << 20);
	assert_int_equal(frame_feed(&f, data, n / 2, collect_cb, &g), 0);
	assert_true(f.cap >= n / 2);
	assert_int_equal(frame_feed(&f, data + n / 2, n + 1 - n / 2,
				    collect_cb, &g), 0);
	assert_int_equal(g.big_len, n);
	assert_true(g.big_ok);
	assert_null(f.buf);
	assert_int_equal(f.cap, 0);
	assert_int_equal(feed_str(&f, &g, "short\n"), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.line[1], "short");
	assert_true(f.cap <= 4096);
	frame_free(&f);
	got_free(&g);
	free(data);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Feed total bytes of a line "x...y\n" (plus a short line) in chunks. */
static double feed_big(size_t max, size_t linelen, size_t chunk, int *rc,
		       struct got *g)
{
	char *data = malloc(linelen + 8);
	struct frame f;
	size_t off, k;
	double t0;

	assert_non_null(data);
	memset(data, 'x', linelen);
	data[linelen - 1] = 'y';
	memcpy(data + linelen, "\nok\n", 4);
	frame_init(&f, max);
	t0 = now();
	*rc = 0;
	for (off = 0; off < linelen + 4 && *rc == 0; off += k) {
		k = linelen + 4 - off < chunk ? linelen + 4 - off : chunk;
		*rc = frame_feed(&f, data + off, k, collect_cb, g);
	}
	t0 = now() - t0;
	frame_free(&f);
	free(data);
	return t0;
}

static void test_64mib(void **state)
{
	size_t mib64 = (size_t)64 << 20;
	struct got g = {0};
	double t;
	int rc;

	t = feed_big(mib64, mib64, 64 << 10, &rc, &g);
	assert_int_equal(rc, 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.big_len, mib64);
	assert_true(g.big_ok);
	assert_string_equal(g.line[1], "ok"); /* line[0] was the big one */
	print_message("# 64 MiB line in 64 KiB chunks: %.3f s\n", t);
	/* Linear work is well under a second; rescanning the buffer on every
	 * chunk would be 1024 passes over up to 64 MiB. Generous for slow
	 * machines and valgrind. */
	assert_true(t < 30.0);
	got_free(&g);

	/* One byte over the limit: dropped, and the line after it comes. */
	feed_big(mib64, mib64 + 1, 64 << 10, &rc, &g);
	assert_int_equal(rc, 0);
	assert_int_equal(g.drops, 1);
	assert_int_equal(g.drop_len[0], mib64 + 1);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.line[0], "ok");
	got_free(&g);
}

struct count {
	size_t lines, bytes;
};

static int count_cb(void *ctx, char *line, size_t len)
{
	struct count *c = ctx;

	assert_int_equal(line[len], '\0');
	c->lines++;
	c->bytes += len;
	return 0;
}

/* Many short lines in chunks of an odd size, lines crossing chunk borders. */
static void test_many_lines(void **state)
{
	size_t n = 1 << 20, i, off, k, lines = 0, bytes = 0;
	char *data = malloc(n);
	struct count c = {0};
	struct frame f;

	assert_non_null(data);
	for (i = 0; i < n; i++) {
		data[i] = (i * 7 % 13 == 0) ? '\n' : 'a';
		if (data[i] == '\n')
			lines++;
		else
			bytes++;
	}
	/* The tail after the last '\n' stays pending. */
	for (i = n; data[i - 1] != '\n'; i--)
		bytes--;
	frame_init(&f, 64);
	for (off = 0; off < n; off += k) {
		k = n - off < 4093 ? n - off : 4093;
		assert_int_equal(frame_feed(&f, data + off, k, count_cb, &c),
				 0);
	}
	assert_int_equal(c.lines, lines);
	assert_int_equal(c.bytes, bytes);
	assert_int_equal(f.len, n - i);
	frame_free(&f);
	free(data);
}

/* Write s into the frame's room (in pieces if the room is smaller). */
static int commit_str(struct frame *f, const char *s, frame_line_cb cb,
		      void *ctx)
{
	size_t n = strlen(s), k;
	char *room;
	int rc;

	while (n) {
		assert_int_equal(frame_space(f, 1, &room, &k), 0);
		assert_true(k >= 1);
		if (k > n)
			k = n;
		memcpy(room, s, k);
		rc = frame_commit(f, k, cb, ctx);
		if (rc)
			return rc;
		s += k;
		n -= k;
	}
	return 0;
}

static void test_space(void **state)
{
	struct frame f;
	struct got g = {0};
	size_t n, last = 0;
	char *room;
	int i;

	frame_init(&f, 1 << 20);
	/* The room grows geometrically and never past a line of max. */
	for (i = 0; i < 20; i++) {
		assert_int_equal(frame_space(&f, 4096, &room, &n), 0);
		assert_true(n >= 4096 || f.cap == f.max + 2);
		assert_true(f.cap <= f.max + 2);
		assert_true(f.cap >= 2 * last || f.cap == f.max + 2);
		last = f.cap;
		if (n > f.max - f.len)
			n = f.max - f.len;
		memset(room, 'x', n);
		assert_int_equal(frame_commit(&f, n, collect_cb, &g), 0);
		if (f.len == f.max)
			break;
	}
	/* A line of exactly max, then "\r\n": the last two bytes of room. */
	assert_int_equal(f.len, f.max);
	assert_int_equal(frame_space(&f, 4096, &room, &n), 0);
	assert_int_equal(n, 2);
	memcpy(room, "\r\n", 2);
	assert_int_equal(frame_commit(&f, 2, collect_cb, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.big_len, f.max);
	/* The big buffer is not kept. */
	assert_null(f.buf);
	frame_free(&f);
	got_free(&g);

	/* Several lines in one read, the unfinished one kept at the front. */
	frame_init(&f, 100);
	assert_int_equal(frame_space(&f, 64, &room, &n), 0);
	memcpy(room, "ab\ncd\r\nef", 9);
	assert_int_equal(frame_commit(&f, 9, collect_cb, &g), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.line[0], "ab");
	assert_string_equal(g.line[1], "cd");
	assert_int_equal(f.len, 2);
	assert_memory_equal(f.buf, "ef", 2);
	assert_int_equal(commit_str(&f, "g\n", collect_cb, &g), 0);
	assert_string_equal(g.line[2], "efg");
	assert_int_equal(f.len, 0);
	frame_free(&f);
	got_free(&g);
}

struct taker {
	struct frame *f;
	const char *want;   /* the line to take */
	char *mem, *line;
	int n, big;
};

static int take_cb(void *ctx, char *line, size_t len)
{
	struct taker *t = ctx;

	t->n++;
	if (!strcmp(line, t->want)) {
		t->mem = frame_take(t->f, &t->big);
		assert_non_null(t->mem);
		t->line = line;
	}
	return 0;
}

static void test_take(void **state)
{
	struct frame f;
	struct taker t = {&f, "two", NULL, NULL, 0, -1};
	char *room;
	size_t n;

	frame_init(&f, 100);
	assert_int_equal(commit_str(&f, "o", take_cb, &t), 0);
	assert_int_equal(frame_space(&f, 64, &room, &n), 0);
	memcpy(room, "ne\ntwo\nthree\nfo", 15);
	assert_int_equal(frame_commit(&f, 15, take_cb, &t), 0);
	assert_int_equal(t.n, 3);
	/* The taken buffer holds the line, in place. */
	assert_non_null(t.mem);
	assert_true(t.line > t.mem && t.line < t.mem + 16);
	assert_string_equal(t.line, "two");
	assert_memory_equal(t.mem, "one", 3);
	assert_int_equal(t.big, 0); /* short: malloc'd */
	/* The frame went on with the rest: "three" was delivered from the
	 * new buffer, "fo" waits there. */
	assert_true(f.buf != t.mem);
	assert_int_equal(f.len, 2);
	assert_memory_equal(f.buf, "fo", 2);
	free(t.mem);
	t.want = "four";
	t.mem = NULL;
	assert_int_equal(commit_str(&f, "ur\n", take_cb, &t), 0);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.line, "four");
	/* Nothing was left after it: the frame starts over empty. */
	assert_null(f.buf);
	assert_int_equal(f.len, 0);
	assert_int_equal(f.cap, 0);
	free(t.mem);
	t.want = "";
	assert_int_equal(commit_str(&f, "x\n", take_cb, &t), 0);
	assert_int_equal(t.n, 5);
	frame_free(&f);
}

/*
 * A line of 3 MiB + 5 read straight into the frame in pieces of odd sizes:
 * it grows by doubling to 1 MiB, then moves to one bigmem block of max
 * bytes, which does not move again; the line comes out byte for byte
 * (a pattern, so that a piece lost or moved shows), the taken block is a
 * bigmem one, and the bytes after the line go on in a malloc'd buffer.
 */
static void test_take_big(void **state)
{
	size_t len = (3u << 20) + 5, at = 0, n, k, i;
	size_t max = 64u << 20;
	struct frame f;
	struct taker t = {&f, NULL, NULL, NULL, 0, -1};
	char *want = malloc(len + 1), *room, *moved = NULL;
	int moves = 0;

	assert_non_null(want);
	for (i = 0; i < len; i++)
		want[i] = (char)('a' + (i * 7 + i / 4093) % 26);
	want[len] = 0;
	t.want = want;
	frame_init(&f, max);
	while (at < len + 1) {
		char *before = f.buf;

		assert_int_equal(frame_space(&f, 1 + at % 70001, &room, &n), 0);
		if (f.buf != before && at > 0)
			moves++;
		if (f.big && !moved)
			moved = f.buf;
		if (moved)
			assert_ptr_equal(f.buf, moved); /* never moves again */
		k = 1 + at % 70001 < n ? 1 + at % 70001 : n;
		for (i = 0; i < k; i++)
			room[i] = at + i < len ? want[at + i] :
				  at + i == len ? '\n' : 'z';
		assert_int_equal(frame_commit(&f, k, take_cb, &t), 0);
		at += k;
	}
	assert_int_equal(t.n, 1);
	assert_int_equal(t.big, 1);
	assert_ptr_equal(t.mem, moved);
	assert_ptr_equal(t.line, t.mem);
	assert_int_equal(strlen(t.line), len);
	assert_memory_equal(t.line, want, len);
	assert_true(moves > 1); /* doubling before the move */
	/* what came after the newline is in a fresh, malloc'd buffer */
	assert_int_equal(f.big, 0);
	assert_int_equal(f.len, at - len - 1);
	for (i = 0; i < f.len; i++)
		assert_int_equal(f.buf[i], 'z');
	bigmem_trim(t.mem, len + 1);
	assert_memory_equal(t.mem, want, len);
	bigmem_free(t.mem);
	/* a long line not taken: the block is released after it */
	t.want = "";
	frame_free(&f);
	frame_init(&f, max);
	for (at = 0; at < len; at += k) {
		assert_int_equal(frame_space(&f, 65536, &room, &n), 0);
		k = len - at < n ? len - at : n;
		memset(room, 'q', k);
		assert_int_equal(frame_commit(&f, k, take_cb, &t), 0);
	}
	assert_int_equal(f.big, 1);
	assert_int_equal(frame_space(&f, 1, &room, &n), 0);
	room[0] = '\n';
	assert_int_equal(frame_commit(&f, 1, take_cb, &t), 0);
	assert_int_equal(t.n, 2);
	assert_null(f.buf);
	assert_int_equal(f.big, 0);
	frame_free(&f);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_crlf_and_empty),
		cmocka_unit_test(test_every_split),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_long_id),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_free_reuse),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_64mib),
		cmocka_unit_test(test_many_lines),
		cmocka_unit_test(test_space),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_take_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
