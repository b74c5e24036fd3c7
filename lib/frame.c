/*
 * frame.c - splits a byte stream into newline-terminated lines of bounded
 * length. The bytes are written straight into the buffer's free tail
 * (frame_space, then frame_commit); the buffer grows geometrically up to
 * FRAME_KEEP, and a line longer than that moves once to a bigmem block
 * (lib/bigmem.h) as long as the longest line allowed, whose pages come as
 * they are filled, 2 MiB at a time where the kernel has huge pages: a
 * 64 MiB line arriving in 64 KiB pieces costs no copy besides the read
 * itself and 1 MiB, and no page fault per 4 KiB (which, on the VM it is
 * measured on, cost more than the rest of a long reply's way together), and each byte is searched for '\n' once (memchr over the new bytes
 * only). Complete lines are delivered in place; what is left of an
 * unfinished line then moves to the front of the buffer, which moves each
 * byte at most once. A callback may take the whole buffer with its line
 * (frame_take): a long reply then needs no copy at all. That is why this
 * buffer is not lib/gbuf.c's: a gbuf owns its block and appends by copy.
 *
 * A buffer grown past FRAME_KEEP by a long line is released once that line
 * is delivered.
 *
 * A frame whose partial line went past max is broken for good: f->len is
 * left above max + 1, and every later call returns -E2BIG.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "frame.h"

/* Largest buffer kept between lines; a line longer than this moves to a
 * bigmem block. */
#define FRAME_KEEP (1024 * 1024)
/* Longest max for which a whole bigmem block is reserved (address space
 * only); above it (no such frame in mcpfs) the buffer goes on doubling. */
#define FRAME_BIG_MAX ((size_t)1 << 30)

void frame_init(struct frame *f, size_t max)
{
	memset(f, 0, sizeof *f);
	/* Room for max bytes, a '\r' and the NUL must be countable. */
	f->max = max > SIZE_MAX - 4 ? SIZE_MAX - 4 : max;
}

void frame_free(struct frame *f)
{
	if (f->big)
		bigmem_free(f->buf);
	else
		free(f->buf);
	f->big = 0;
	f->buf = NULL;
	f->len = 0;
	f->cap = 0;
}

static int broken(const struct frame *f)
{
	return f->len > f->max + 1;
}

static int set_broken(struct frame *f)
{
	f->len = f->max + 2;
	return -E2BIG;
}

int frame_space(struct frame *f, size_t want, char **room, size_t *n)
{
	size_t limit = f->max + 2, cap;
	char *nb;

	if (broken(f))
		return -E2BIG;
	if (want == 0)
		want = 1;
	if (f->cap - f->len < want && f->cap < limit) {
		cap = want > limit - f->len ? limit : f->len + want;
		if (f->cap <= limit / 2 && cap < f->cap * 2)
			cap = f->cap * 2;
		if (cap > FRAME_KEEP && limit <= FRAME_BIG_MAX &&
		    (nb = bigmem_alloc(limit)) != NULL) {
			/* f->big is 0 here: a bigmem block has cap == limit */
			if (f->len)
				memcpy(nb, f->buf, f->len);
			free(f->buf);
			f->buf = nb;
			f->cap = limit;
			f->big = 1;
			goto room;
		}
		nb = realloc(f->buf, cap);
		if (!nb)
			return -ENOMEM;
		f->buf = nb;
		f->cap = cap;
	}
room:
	*room = f->buf + f->len;
	*n = f->cap - f->len;
	return 0;
}

int frame_commit(struct frame *f, size_t n, frame_line_cb cb, void *ctx)
{
	size_t start = 0, scan = f->len, end, len;
	char *nl;
	int rc;

	if (broken(f))
		return -E2BIG;
	f->len += n;
	while (scan < f->len &&
	       (nl = memchr(f->buf + scan, '\n', f->len - scan)) != NULL) {
		end = (size_t)(nl - f->buf);
		len = end - start;
		if (len > 0 && f->buf[end - 1] == '\r')
			len--;
		if (len > f->max)
			return set_broken(f);
		f->buf[start + len] = '\0';
		f->next = end + 1;
		f->taken = 0;
		rc = cb(ctx, f->buf + start, len);
		if (rc) {
			f->len = 0;
			return rc;
		}
		start = scan = f->taken ? 0 : end + 1;
	}
	if (start) {
		memmove(f->buf, f->buf + start, f->len - start);
		f->len -= start;
	}
	if (f->len > f->max + 1 ||
	    (f->len == f->max + 1 && f->buf[f->len - 1] != '\r'))
		return set_broken(f);
	if (f->len == 0 && f->cap > FRAME_KEEP) {
		/* Do not keep a huge buffer for the rest of the session
		 * because one line was huge. */
		frame_free(f);
	}
	return 0;
}

int frame_feed(struct frame *f, const char *data, size_t n, frame_line_cb cb,
	       void *ctx)
{
	char *room;
	size_t k;
	int rc;

	while (n > 0) {
		rc = frame_space(f, n, &room, &k);
		if (rc)
			return rc;
		if (k > n)
			k = n;
		memcpy(room, data, k);
		rc = frame_commit(f, k, cb, ctx);
		if (rc)
			return rc;
		data += k;
		n -= k;
	}
	return broken(f) ? -E2BIG : 0;
}

char *frame_take(struct frame *f, int *big)
{
	size_t rest = f->len - f->next;
	char *b = f->buf, *nb = NULL;

	if (rest) {
		nb = malloc(rest);
		if (!nb)
			return NULL;
		memcpy(nb, b + f->next, rest);
	}
	*big = f->big;
	f->big = 0;
	f->buf = nb;
	f->len = f->cap = rest;
	f->next = 0;
	f->taken = 1;
	return b;
}
