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
 * The buffer is released whenever no byte of a line is left in it (an
 * idle session holds none; the next read takes a fresh one, 1 KiB from
 * the allocator's cache).
 *
 * A line that goes past max is dropped: its bytes so far are released,
 * and the rest is read into a buffer of at most max + 2 bytes and thrown
 * away up to its '\n', each byte passing once through a small scanner
 * that keeps only its top-level "id" and whether it has a "method" (struct
 * frame_ids): which reply was too long is often written last (the
 * TypeScript SDK prints "result" before "id").
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

/* One byte of a line being dropped, for frame_long_id. */
static void ids_byte(struct frame_ids *s, unsigned char ch)
{
	if (s->str) {
		if (s->esc || ch == '\\') {
			s->esc = !s->esc;
			s->kn = s->key ? 8 : s->kn; /* an escaped key: no match */
		} else if (ch == '"') {
			s->str = 0;
			if (s->key) {
				s->key = 0;
				s->val = s->kn == 2 && !memcmp(s->k, "id", 2) ? 1 :
					 s->kn == 6 &&
					 !memcmp(s->k, "method", 6) ? 3 : 0;
			}
		} else if (s->key) {
			if (s->kn < 7)
				s->k[s->kn++] = (char)ch;
			else
				s->kn = 8;
		}
		return;
	}
	switch (ch) {
	case ' ': case '\t': case '\r': case '\n':
		if (s->depth == 1 && s->val == 1 && s->dn)
			s->val = 2;
		return;
	case '"':
		s->str = 1;
		if (s->depth == 1 && s->want) {
			s->key = 1;
			s->kn = 0;
			s->want = 0;
		} else if (s->depth == 1 && s->val == 1) {
			s->bad = 1; /* a string id: not one of mcpfs's */
		}
		return;
	case '{': case '[':
		if (s->depth == 0 && ch != '{')
			s->nonobj = 1;
		if (s->depth == 1 && s->val == 1)
			s->bad = 1;
		if (++s->depth == 1)
			s->want = 1;
		return;
	case '}': case ']':
		if (s->depth > 0)
			s->depth--;
		return;
	case ':':
		if (s->depth == 1 && s->val == 1) {
			s->ids++;
			s->dn = 0;
			s->id = 0;
		} else if (s->depth == 1 && s->val == 3) {
			s->method = 1;
		}
		return;
	case ',':
		if (s->depth == 1) {
			s->want = 1;
			s->val = 0;
		}
		return;
	default:
		if (s->depth == 1 && s->val == 1) {
			if (ch >= '0' && ch <= '9' && s->dn < 19) {
				s->id = s->id * 10 + (uint64_t)(ch - '0');
				s->dn++;
			} else {
				s->bad = 1;
			}
		} else if (s->depth == 0) {
			s->nonobj = 1;
		}
	}
}

static void ids_feed(struct frame *f, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ids_byte(&f->ids, (unsigned char)p[i]);
	f->skipped += n;
	if (n)
		f->last = p[n - 1];
}

int frame_long_id(const struct frame *f, uint64_t *id)
{
	const struct frame_ids *s = &f->ids;

	if (s->nonobj || s->bad || s->method || s->ids != 1 || !s->dn)
		return 0;
	*id = s->id;
	return 1;
}

/* The line being held passed max: say so, and drop what is held of it
 * (n bytes at p, which the callback may no longer see). */
static int drop_begin(struct frame *f, const char *p, size_t n,
		      frame_line_cb cb, void *ctx)
{
	int rc = cb(ctx, NULL, 0);

	memset(&f->ids, 0, sizeof f->ids);
	f->skipped = 0;
	f->last = 0;
	ids_feed(f, p, n);
	return rc;
}

/* The dropped line ended. */
static int drop_end(struct frame *f, frame_line_cb cb, void *ctx)
{
	size_t len = f->skipped - (f->skipped && f->last == '\r');

	f->skip = 0;
	return cb(ctx, NULL, len);
}

int frame_space(struct frame *f, size_t want, char **room, size_t *n)
{
	size_t limit = f->max + 2, cap;
	char *nb;

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
	size_t start = 0, scan, end, len;
	char *nl;
	int rc;

	if (f->skip) { /* f->len is 0: the n bytes are at the buffer's start */
		nl = memchr(f->buf, '\n', n);
		len = nl ? (size_t)(nl - f->buf) : n;
		ids_feed(f, f->buf, len);
		if (!nl)
			return 0;
		rc = drop_end(f, cb, ctx);
		if (rc)
			return rc;
		memmove(f->buf, nl + 1, n - len - 1);
		n -= len + 1;
	}
	scan = f->len;
	f->len += n;
	while (scan < f->len &&
	       (nl = memchr(f->buf + scan, '\n', f->len - scan)) != NULL) {
		end = (size_t)(nl - f->buf);
		len = end - start;
		if (len > 0 && f->buf[end - 1] == '\r')
			len--;
		if (len > f->max) { /* it came whole, past max */
			rc = drop_begin(f, f->buf + start, end - start, cb,
					ctx);
			if (!rc)
				rc = drop_end(f, cb, ctx);
			if (rc) {
				f->len = 0;
				return rc;
			}
			start = scan = end + 1;
			continue;
		}
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
	rc = 0;
	if (f->len > f->max + 1 ||
	    (f->len == f->max + 1 && f->buf[f->len - 1] != '\r')) {
		rc = drop_begin(f, f->buf, f->len, cb, ctx);
		f->len = 0;
		f->skip = 1;
	}
	if (f->len == 0) {
		/* Nothing held: no buffer kept between messages (an idle
		 * session holds none; a huge one is not kept for the rest
		 * of the session because one line was huge). */
		frame_free(f);
	}
	return rc;
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
	return 0;
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
