/*
 * ring.h - a byte ring keeping the last cap bytes of a stream; total
 * counts every byte ever appended, so offsets into the stream stay valid.
 */
#ifndef MCPFS_RING_H
#define MCPFS_RING_H

#include <stddef.h>
#include <stdint.h>

struct ring {
	char *buf;      /* size bytes, grown as bytes come, up to cap */
	size_t cap;
	size_t size;    /* ... allocated: all of total until it is cap */
	uint64_t total;
	/* NULL, or called after each ring_line (a whole line kept) */
	void (*grew)(struct ring *r, void *arg);
	void *arg;
};

void ring_append(struct ring *r, const char *p, size_t n);
/* Append one line: p, then a newline. */
void ring_line(struct ring *r, const char *p, size_t n);
/* Copy up to n bytes from stream offset off (clamped to the oldest kept). */
size_t ring_read(const struct ring *r, uint64_t off, char *dst, size_t n);
/* Bytes kept: min(total, cap). */
size_t ring_kept(const struct ring *r);

#endif
