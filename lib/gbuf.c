/*
 * gbuf.c - the growing byte buffer of gbuf.h, doubling from 256 bytes, and
 * its growing array, doubling from the caller's minimum.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbuf.h"

int gbuf_reserve(struct gbuf *b, size_t n)
{
	size_t want = b->len + n + 1, cap = b->cap ? b->cap : 256;
	char *p;

	if (want < n) /* overflow */
		return b->oom = 1, -ENOMEM;
	if (want <= b->cap)
		return 0;
	while (cap < want)
		cap = cap * 2 > cap ? cap * 2 : want;
	p = realloc(b->p, cap);
	if (!p)
		return b->oom = 1, -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int gbuf_add(struct gbuf *b, const void *p, size_t n)
{
	if (gbuf_reserve(b, n) < 0)
		return -ENOMEM;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

int gbuf_puts(struct gbuf *b, const char *s)
{
	return gbuf_add(b, s, strlen(s));
}

char *gbuf_take(struct gbuf *b)
{
	char *p;

	if (!b->oom && gbuf_reserve(b, 0) == 0)
		b->p[b->len] = 0;
	p = b->oom ? NULL : b->p;
	if (!p)
		free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
	return p;
}

void gbuf_clear(struct gbuf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = 0;
}

void gbuf_free(struct gbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

int gbuf_printf(struct gbuf *b, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n, r;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = 1;
		return -ENOMEM;
	}
	r = gbuf_add(b, s, (size_t)n);
	free(s);
	return r;
}

void *gbuf_grow(void *v, size_t *cap, size_t n, size_t size, size_t min)
{
	size_t c = *cap ? *cap : min;
	void *nv;

	if (n <= *cap)
		return v;
	while (c < n) {
		if (c > SIZE_MAX / 2)
			return NULL;
		c *= 2;
	}
	if (!size || c > SIZE_MAX / size || !(nv = realloc(v, c * size)))
		return NULL;
	*cap = c;
	return nv;
}
