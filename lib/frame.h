/*
 * frame.h - newline-delimited framing of a byte stream with a maximum line
 * length. Used for the stdout of MCP servers, which is read straight into
 * the frame's buffer (frame_space, frame_commit). A line longer than the
 * maximum is dropped, not kept: the frame skips to its end and goes on
 * with the next line, and says which JSON-RPC reply it was (frame_long_id)
 * so that only that one call fails (--max-message, spec 1).
 */
#ifndef MCPFS_FRAME_H
#define MCPFS_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* What is known of a line being dropped: its top-level members "id" and
 * "method", read byte by byte as the line passes (the line is not kept). */
struct frame_ids {
	int depth;                 /* nesting outside strings */
	unsigned char str, esc;    /* in a string; after its backslash */
	unsigned char key, want;   /* the string is a key; a key comes next */
	unsigned char val;         /* the value read: 0 other, 1 "id", 2 done */
	unsigned char kn;          /* bytes of the key so far (8: no match) */
	char k[8];
	unsigned char nonobj, bad, method, ids, dn;
	uint64_t id;
};

struct frame {
	char *buf;
	size_t len, cap;  /* bytes held (the unfinished line), allocated */
	size_t max;       /* longest line accepted, without the newline */
	size_t next;      /* during a callback: where the bytes after the
			     line start */
	int taken;        /* during a callback: frame_take was called */
	int big;          /* buf is a bigmem block (a long line) */
	int skip;         /* dropping a line longer than max, to its '\n' */
	size_t skipped;   /* bytes of it so far */
	char last;        /* its last byte so far */
	struct frame_ids ids;
};

/* Called per complete line: line is NUL-terminated in place (a trailing \r
 * is stripped), valid only during the call unless the callback takes the
 * buffer (frame_take). Return 0 to go on, non-zero to stop (frame_commit and
 * frame_feed then return that value and drop the bytes after the line).
 * A line longer than max is two calls with line NULL: len 0 as soon as it
 * passes max (the bytes of it held so far are gone: nothing may point
 * into them any more), then len = its whole length (without the newline
 * and a '\r' before it) once it ends; frame_long_id tells, during that
 * second call, which reply it was. */
typedef int (*frame_line_cb)(void *ctx, char *line, size_t len);

void frame_init(struct frame *f, size_t max);
void frame_free(struct frame *f);

/* Room for at least want (> 0) incoming bytes at the end of the buffer, or
 * as many as a line of max bytes can still take: *room and *n. The buffer
 * grows geometrically up to 1 MiB; a longer line moves (once) to a bigmem
 * block of max bytes, which never moves again. Returns 0 or -ENOMEM. */
int frame_space(struct frame *f, size_t want, char **room, size_t *n);
/* n bytes were written at the start of the room: deliver the complete
 * lines. Returns 0, the callback's non-zero value or -ENOMEM. */
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
/* During the call for the end of a dropped line: 1 when it was a JSON
 * object with one top-level "id" that is a non-negative integer and no
 * "method" (a reply), with *id; else 0. */
int frame_long_id(const struct frame *f, uint64_t *id);

#endif
