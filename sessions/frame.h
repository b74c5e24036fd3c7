/*
 * frame.h - newline-delimited framing of a byte stream with a maximum line
 * length. Used for the stdout of MCP servers.
 */
#ifndef MCPFS_FRAME_H
#define MCPFS_FRAME_H

#include <stddef.h>

struct frame {
	char *buf;
	size_t len, cap;
	size_t max;      /* longest line accepted, without the newline */
};

/* Called per complete line: line is NUL-terminated in place (a trailing \r
 * is stripped), valid only during the call. Return 0 to go on, non-zero to
 * stop feeding (frame_feed then returns that value). */
typedef int (*frame_line_cb)(void *ctx, char *line, size_t len);

void frame_init(struct frame *f, size_t max);
void frame_free(struct frame *f);
/* Returns 0, the callback's non-zero value, -E2BIG when a line grows past
 * max (the frame is then unusable), or -ENOMEM. */
int frame_feed(struct frame *f, const char *data, size_t n, frame_line_cb cb,
	       void *ctx);

#endif
