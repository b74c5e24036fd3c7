/*
 * frame.c - splits a byte stream into newline-terminated lines of bounded
 * length. The buffer only ever holds the unfinished tail of the stream, which
 * by construction contains no '\n', so each incoming byte is searched once
 * (memchr over the new data only) and copied into the buffer once (which
 * doubles as it grows, so regrowth adds at most one copy on average):
 * feeding a 64 MiB line in 64 KiB chunks is linear. Lines that arrive whole inside one chunk
 * are copied into the buffer too, because the callback gets a writable,
 * NUL-terminated line and the incoming data is const.
 *
 * A buffer grown past FRAME_KEEP by a long line is released once that line
 * is delivered.
 *
 * A frame whose partial line went past max is broken for good: f->len is
 * left above max + 1, and every later feed returns -E2BIG.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

/* Largest buffer kept between lines. */
#define FRAME_KEEP (1024 * 1024)

void frame_init(struct frame *f, size_t max)
{
	f->buf = NULL;
	f->len = 0;
	f->cap = 0;
	/* Room for max bytes, a '\r' and the NUL must be countable. */
	f->max = max > SIZE_MAX - 4 ? SIZE_MAX - 4 : max;
}

void frame_free(struct frame *f)
{
	free(f->buf);
	f->buf = NULL;
	f->len = 0;
	f->cap = 0;
}

static int broken(const struct frame *f)
{
	return f->len > f->max + 1;
}

/* A partial line of len bytes can still become a line of at most max bytes:
 * len <= max, or len == max + 1 when it ends in the '\r' of a "\r\n". */
static int may_fit(const struct frame *f, size_t len, char last)
{
	return len <= f->max || (len == f->max + 1 && last == '\r');
}

static int reserve(struct frame *f, size_t need)
{
	size_t cap;
	char *nb;

	if (need <= f->cap)
		return 0;
	cap = f->cap ? f->cap : 256;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	if (cap > f->max + 2 && need <= f->max + 2)
		cap = f->max + 2;
	nb = realloc(f->buf, cap);
	if (!nb)
		return -ENOMEM;
	f->buf = nb;
	f->cap = cap;
	return 0;
}

/* Append n bytes to the partial line; -E2BIG marks the frame broken. */
static int append(struct frame *f, const char *p, size_t n)
{
	if (n > f->max + 1 - f->len || !may_fit(f, f->len + n, p[n - 1])) {
		f->len = f->max + 2;
		return -E2BIG;
	}
	if (reserve(f, f->len + n + 1) < 0)
		return -ENOMEM;
	memcpy(f->buf + f->len, p, n);
	f->len += n;
	return 0;
}

/* The buffer holds a whole line: hand it out and empty the buffer. */
static int deliver(struct frame *f, frame_line_cb cb, void *ctx)
{
	size_t len = f->len;

	if (len > 0 && f->buf[len - 1] == '\r')
		len--;
	if (len > f->max) {
		f->len = f->max + 2;
		return -E2BIG;
	}
	if (reserve(f, len + 1) < 0)
		return -ENOMEM;
	f->buf[len] = '\0';
	f->len = 0;
	return cb(ctx, f->buf, len);
}

int frame_feed(struct frame *f, const char *data, size_t n, frame_line_cb cb,
	       void *ctx)
{
	const char *p = data, *end = data + n, *nl;
	int rc;

	if (broken(f))
		return -E2BIG;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return append(f, p, (size_t)(end - p));
		if (nl > p) {
			rc = append(f, p, (size_t)(nl - p));
			if (rc)
				return rc;
		}
		rc = deliver(f, cb, ctx);
		if (rc)
			return rc;
		if (f->cap > FRAME_KEEP) {
			/* Do not keep a huge buffer for the rest of the
			 * session because one line was huge. */
			free(f->buf);
			f->buf = NULL;
			f->cap = 0;
		}
		p = nl + 1;
	}
	return 0;
}
