/*
 * jsonwrite.h - the JSON-write accumulator of the files a user writes one
 * JSON value into (call, tools/<tool>, prompts/<prompt>, requests/<id>):
 * bytes arrive in write()s of any size; they are checked as they come
 * (lib/jscan) and gathered until they form one complete value. jsonwrite.c.
 */
#ifndef MCPFS_JSONWRITE_H
#define MCPFS_JSONWRITE_H

#include <stddef.h>

#include "gbuf.h"
#include "jscan.h"

struct jsonwrite {
	struct jscan scan;
	struct jscan_names names; /* one reading of member names (spec 13) */
	struct gbuf buf;      /* the value so far; all of it once complete */
	int too_big;          /* over the limit: feeds fail till a reset */
	char why[160];        /* why the last feed or finish failed */
};

enum { JW_MORE = 0, JW_DONE = 1 };

/*
 * Feed the size bytes of one write(). Returns JW_MORE (everything kept,
 * the value not complete; whitespace before a value is skipped), JW_DONE
 * (the value is complete in w->buf: take it, then jsonwrite_clear), or:
 *   -EINVAL  the bytes can never become JSON, or bytes follow the value
 *            (w->why: "invalid JSON (...)"); what was gathered is dropped;
 *   -EFBIG   more than limit bytes (w->why: "over LIMIT"); dropped, and
 *            every feed fails so until jsonwrite_reset;
 *   -ENOMEM  dropped.
 */
int jsonwrite_feed(struct jsonwrite *w, const char *p, size_t size,
		   size_t limit);

/* At close: 0 when nothing is pending, JW_DONE when the pending bytes are
 * a complete value (a top-level number ends here), -EINVAL when they are
 * not (w->why says so; dropped). */
int jsonwrite_finish(struct jsonwrite *w);

/* 1 when bytes of an unfinished value are pending. */
int jsonwrite_pending(const struct jsonwrite *w);

/* Over the limit by another way in (NAME=VALUE lines, callfile.c): as
 * -EFBIG leaves w, every feed fails so until jsonwrite_reset. */
void jsonwrite_too_big(struct jsonwrite *w);
/* Drop what was gathered (after JW_DONE); too_big stays. */
void jsonwrite_clear(struct jsonwrite *w);
/* jsonwrite_clear and forget too_big. */
void jsonwrite_reset(struct jsonwrite *w);
void jsonwrite_free(struct jsonwrite *w);

#endif
