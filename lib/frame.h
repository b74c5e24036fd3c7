/*
 * frame.h - newline-delimited framing of a byte stream with a maximum line
 * length. Used for the stdout of MCP servers, which is read straight into
 * the frame's buffer (frame_space, frame_commit).
 */
#ifndef MCPFS_FRAME_H
#define MCPFS_FRAME_H

#include <stddef.h>

struct frame {
	char *buf;
	size_t len, cap;  /* bytes held (the unfinished line), allocated */
	size_t max;       /* longest line accepted, without the newline */
	size_t next;      /* during a callback: where the bytes after the
			     line start */
	int taken;        /* during a callback: frame_take was called */
	int big;          /* buf is a bigmem block (a long line) */
};

/* Called per complete line: line is NUL-terminated in place (a trailing \r
 * is stripped), valid only during the call unless the callback takes the
 * buffer (frame_take). Return 0 to go on, non-zero to stop (frame_commit and
 * frame_feed then return that value and drop the bytes after the line). */
typedef int (*frame_line_cb)(void *ctx, char *line, size_t len);

void frame_init(struct frame *f, size_t max);
void frame_free(struct frame *f);

/* Room for at least want (> 0) incoming bytes at the end of the buffer, or
 * as many as a line of max bytes can still take: *room and *n. The buffer
 * grows geometrically up to 1 MiB; a longer line moves (once) to a bigmem
 * block of max bytes, which never moves again. Returns 0, -E2BIG (the frame
 * is broken) or -ENOMEM. */
int frame_space(struct frame *f, size_t want, char **room, size_t *n);
/* n bytes were written at the start of the room: deliver the complete
 * lines. Returns 0, the callback's non-zero value, -E2BIG when a line grows
 * past max (the frame is then unusable), or -ENOMEM. */
int frame_commit(struct frame *f, size_t n, frame_line_cb cb, void *ctx);
/* frame_space, a copy of data, frame_commit, as often as n needs. */
int frame_feed(struct frame *f, const char *data, size_t n, frame_line_cb cb,
	       void *ctx);
/* Only from inside the line callback: hand over the buffer that holds the
 * line (the line points into it), so that it is not copied: *big says
 * whether it is a bigmem block (release it with bigmem_free) or malloc'd
 * (free() it). The frame goes on with a new buffer for the bytes after the
 * line. NULL on ENOMEM (then nothing changed). */
char *frame_take(struct frame *f, int *big);

#endif
