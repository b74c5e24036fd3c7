/*
 * fuzz_frame.c - libFuzzer target for newline framing. The first two bytes
 * pick the line limit and the chunk size; the rest is the stream. The lines
 * delivered, and the lines dropped as too long (each announced once as it
 * passes the limit, then ended with its length), must match a naive
 * reference splitter, whatever the chunking, and also when the bytes are
 * written straight into the frame's room (frame_space, frame_commit) and
 * every other line's buffer is taken by the callback (frame_take).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct check {
	const char *ref;     /* the stream */
	size_t n, pos;       /* where the next expected line starts */
	size_t max;
	size_t lines;
	int begun;           /* a line past the limit is being dropped */
	struct frame *f;     /* take every other line's buffer */
};

/* The next complete line of the reference: 1 and its span, or 0. */
static int ref_next(struct check *c, size_t *start, size_t *len)
{
	const char *nl;

	if (c->pos >= c->n)
		return 0;
	nl = memchr(c->ref + c->pos, '\n', c->n - c->pos);
	if (!nl)
		return 0;
	*start = c->pos;
	*len = (size_t)(nl - c->ref) - c->pos;
	if (*len && c->ref[*start + *len - 1] == '\r')
		(*len)--;
	c->pos = (size_t)(nl - c->ref) + 1;
	return 1;
}

static int line_cb(void *ctx, char *line, size_t len)
{
	struct check *c = ctx;
	size_t start, rlen;

	if (!line) {
		if (len == 0) {
			if (c->begun)
				abort();
			c->begun = 1;
			return 0;
		}
		if (!c->begun || !ref_next(c, &start, &rlen) || rlen != len ||
		    len <= c->max)
			abort();
		c->begun = 0;
		c->lines++;
		return 0;
	}
	if (c->begun)
		abort();
	if (line[len] != '\0' || len > c->max || memchr(line, '\n', len))
		abort();
	if (!ref_next(c, &start, &rlen) || rlen != len ||
	    memcmp(c->ref + start, line, len) != 0)
		abort();
	c->lines++;
	if (c->f && c->lines % 2) {
		int big;
		char *b = frame_take(c->f, &big);

		if (!b)
			abort();
		if (big)
			bigmem_free(b);
		else
			free(b);
	}
	return 0;
}

/* 1 if the reference stream ends in a tail already past the limit (it
 * may still end "\r\n" at max + 1). */
static int ref_tail_past(const char *s, size_t n, size_t max)
{
	const char *nl;
	size_t i = 0, len;

	while ((nl = memchr(s + i, '\n', n - i)) != NULL)
		i = (size_t)(nl - s) + 1;
	len = n - i;
	return len > max + 1 || (len == max + 1 && s[n - 1] != '\r');
}

static int run(const char *s, size_t n, size_t max, size_t chunk,
	       int direct, size_t *lines)
{
	struct check c = {s, n, 0, max, 0, 0, NULL};
	struct frame f;
	size_t off, k;
	char *room;
	int rc = 0;

	frame_init(&f, max);
	for (off = 0; off < n && rc == 0; off += k) {
		k = n - off > chunk ? chunk : n - off;
		if (!direct) {
			rc = frame_feed(&f, s + off, k, line_cb, &c);
			continue;
		}
		c.f = &f;
		rc = frame_space(&f, k, &room, &k);
		if (rc)
			break;
		if (k > n - off)
			k = n - off;
		memcpy(room, s + off, k);
		rc = frame_commit(&f, k, line_cb, &c);
	}
	/* the pending tail is exactly what is left, held or being dropped */
	if (rc == 0 && (f.skip ? f.len != 0 || f.skipped != n - c.pos
			       : f.len != n - c.pos))
		abort();
	if (rc == 0 && (c.begun != f.skip ||
			c.begun != ref_tail_past(s, n, max)))
		abort();
	frame_free(&f);
	*lines = c.lines;
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t max, chunk, n, l1, l2;
	const char *s;
	int r1, r2;

	if (size < 2)
		return 0;
	max = data[0] % 64;
	chunk = data[1] % 32 + 1;
	s = (const char *)data + 2;
	n = size - 2;
	r1 = run(s, n, max, n ? n : 1, 0, &l1);
	r2 = run(s, n, max, chunk, 0, &l2);
	if (r1 || r2 || l1 != l2)
		abort();
	r2 = run(s, n, max, chunk, 1, &l2);
	if (r2 || l1 != l2)
		abort();
	return 0;
}
