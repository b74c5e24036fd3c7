/*
 * ring.c - a byte ring that keeps the last cap bytes of a stream (a
 * server's stderr, a session's events and trace). Its buffer grows with
 * the stream (to what is needed, by half once past 4 KiB) until it holds
 * cap bytes, so a quiet session's windows cost what was written, not cap
 * each; from then on its size is fixed and old bytes fall off. Until it
 * is full no byte has fallen off, so stream offset o is at buf[o] (= buf[o
 * % cap]) either way.
 */
#include <stdlib.h>
#include <string.h>

#include "ring.h"

/* Up to RING_FIT bytes the buffer grows to what is needed (rounded up to
 * 256 bytes: a few small copies), beyond by half at least. */
#define RING_FIT 4096

/* Room for n more bytes (n <= cap): 0, or -1 when out of memory. */
static int ring_room(struct ring *r, size_t n)
{
	size_t size = r->total + n;
	char *nb;

	if (r->size == r->cap || size <= r->size)
		return 0;
	if (size > RING_FIT && size < r->size + r->size / 2)
		size = r->size + r->size / 2;
	size = (size + 255) / 256 * 256;
	if (size > r->cap)
		size = r->cap;
	nb = realloc(r->buf, size);
	if (!nb)
		return -1;
	r->buf = nb;
	r->size = size;
	return 0;
}

void ring_append(struct ring *r, const char *p, size_t n)
{
	if (ring_room(r, n > r->cap ? r->cap : n) < 0)
		return;
	if (n > r->cap) {
		r->total += n - r->cap;
		p += n - r->cap;
		n = r->cap;
	}
	while (n) {
		size_t at = r->total % r->cap, k = r->cap - at;

		if (k > n)
			k = n;
		memcpy(r->buf + at, p, k);
		r->total += k;
		p += k;
		n -= k;
	}
}

/* Append one line: p, then a newline. */
void ring_line(struct ring *r, const char *p, size_t n)
{
	ring_append(r, p, n);
	ring_append(r, "\n", 1);
	if (r->grew)
		r->grew(r, r->arg);
}

/* Copy up to n bytes from stream offset off (clamped to the oldest kept). */
size_t ring_read(const struct ring *r, uint64_t off, char *dst,
			size_t n)
{
	uint64_t first = r->total > r->cap ? r->total - r->cap : 0;
	size_t done = 0;

	if (off < first)
		off = first;
	while (off < r->total && done < n) {
		size_t at = off % r->cap, k = r->cap - at;

		if (k > r->total - off)
			k = r->total - off;
		if (k > n - done)
			k = n - done;
		memcpy(dst + done, r->buf + at, k);
		done += k;
		off += k;
	}
	return done;
}

size_t ring_kept(const struct ring *r)
{
	return r->total > r->cap ? r->cap : r->total;
}

