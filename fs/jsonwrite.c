/*
 * jsonwrite.c - one accumulator for every file a user writes one JSON value
 * into: call, tools/<tool> and prompts/<prompt> (callfile.c), requests/<id>
 * (askfile.c). It only gathers and checks; what a complete value means,
 * and what a failure is logged as, is the caller's. The check includes
 * I-JSON's member names (jscan_names, spec 13): a duplicate name or one
 * holding a control character, at any depth, fails the write that shows
 * it, before anything is sent, so mcpfs and the server read one request.
 */
#include <errno.h>
#include <stdio.h>

#include "jsonwrite.h"

int jsonwrite_pending(const struct jsonwrite *w)
{
	return w->buf.len > 0;
}

void jsonwrite_clear(struct jsonwrite *w)
{
	gbuf_clear(&w->buf);
	jscan_names_free(&w->names);
}

void jsonwrite_too_big(struct jsonwrite *w)
{
	jsonwrite_clear(w);
	w->too_big = 1;
}

void jsonwrite_reset(struct jsonwrite *w)
{
	jsonwrite_clear(w);
	w->too_big = 0;
}

void jsonwrite_free(struct jsonwrite *w)
{
	gbuf_free(&w->buf);
	jscan_names_free(&w->names);
}

int jsonwrite_feed(struct jsonwrite *w, const char *p, size_t size,
		   size_t limit)
{
	size_t used = 0;
	int r;

	if (w->too_big)
		return -EFBIG;
	if (w->buf.len == 0) {
		if (jscan_blank(p, size))
			return JW_MORE;
		jscan_init(&w->scan);
		jscan_names(&w->scan, &w->names);
	}
	if (w->buf.len + size > limit) {
		snprintf(w->why, sizeof w->why, "over %zu MiB", limit >> 20);
		jsonwrite_too_big(w);
		return -EFBIG;
	}
	r = jscan_feed(&w->scan, p, size, &used);
	if (r == JSCAN_ERROR && w->names.nomem) {
		snprintf(w->why, sizeof w->why, "out of memory");
		jsonwrite_clear(w);
		return -ENOMEM;
	}
	if (r == JSCAN_ERROR && w->scan.error == w->names.why) {
		snprintf(w->why, sizeof w->why, "%s", w->names.why);
		jsonwrite_clear(w);
		return -EINVAL;
	}
	if (r == JSCAN_ERROR ||
	    (r == JSCAN_DONE && !jscan_blank(p + used, size - used))) {
		snprintf(w->why, sizeof w->why, "invalid JSON (%s)",
			 r == JSCAN_ERROR && w->scan.error ? w->scan.error
							   : "trailing data");
		jsonwrite_clear(w);
		return -EINVAL;
	}
	if (gbuf_add(&w->buf, p, r == JSCAN_DONE ? used : size) < 0) {
		snprintf(w->why, sizeof w->why, "out of memory");
		jsonwrite_clear(w);
		return -ENOMEM;
	}
	return r == JSCAN_DONE ? JW_DONE : JW_MORE;
}

int jsonwrite_finish(struct jsonwrite *w)
{
	if (!w->buf.len)
		return 0;
	if (jscan_finish(&w->scan) == JSCAN_DONE)
		return JW_DONE;
	snprintf(w->why, sizeof w->why, "incomplete JSON at close");
	jsonwrite_clear(w);
	return -EINVAL;
}
