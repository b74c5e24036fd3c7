/*
 * gbuf.h - a growing byte buffer: the one way sessions/ and fs/ collect
 * bytes of unknown length (a request being written, an HTTP body, an SSE
 * line and its data, an expanded config string, a directory listing).
 *
 * The bytes are always followed by a NUL that len does not count. A
 * failed allocation leaves the bytes as they were, returns -ENOMEM and is
 * remembered in oom, so a run of adds may be checked once at the end.
 * frame.c keeps its own buffer: it hands its block to a reply without a
 * copy (frame_take) and scans in place, which a general buffer cannot.
 *
 * gbuf_grow is the same for an array of any type: the one way an array
 * of unknown length grows.
 */
#ifndef MCPFS_GBUF_H
#define MCPFS_GBUF_H

#include <stddef.h>

struct gbuf {
	char *p;          /* NULL until the first byte */
	size_t len, cap;
	int oom;          /* an add failed */
};

/* Room for n more bytes and the NUL. 0 or -ENOMEM. */
int gbuf_reserve(struct gbuf *b, size_t n);
/* Append n bytes. 0 or -ENOMEM. */
int gbuf_add(struct gbuf *b, const void *p, size_t n);
int gbuf_puts(struct gbuf *b, const char *s);
/* Append printf-formatted text. 0 or -ENOMEM. */
int gbuf_printf(struct gbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The bytes as a malloc'd string, "" when empty, NULL if an add failed;
 * the buffer is empty (and owns nothing) after. */
char *gbuf_take(struct gbuf *b);
/* Forget the bytes, keep the memory. */
void gbuf_clear(struct gbuf *b);
void gbuf_free(struct gbuf *b);

/* The array v (malloc'd or NULL) of *cap elements of size bytes, with
 * room for n: v itself when it has, else v moved to a capacity doubled
 * from min (> 0) until it does, *cap updated. NULL on ENOMEM, and then v
 * and *cap are as they were. The idiom:
 *	if (!(nv = gbuf_grow(a->v, &a->cap, a->n + 1, sizeof *nv, 16)))
 *		return -ENOMEM;
 *	a->v = nv;
 */
void *gbuf_grow(void *v, size_t *cap, size_t n, size_t size, size_t min);

#endif
