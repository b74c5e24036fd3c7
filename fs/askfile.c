/*
 * askfile.c - writing <thread>/requests/<id>, the answer to one of the
 * server's questions (sessions/ask.c holds the questions).
 *
 * Protocol, per open file:
 *
 *   read    the question as JSON, a snapshot taken at open (fs.c).
 *   write   bytes accumulate until they form one complete JSON value (as
 *           on call, checked by lib/jscan), then that value is the answer:
 *           the write that completes it returns once the answer was
 *           checked and sent, and the question is gone (the file with it:
 *           ENOENT from then on). An answer that does not fit the question
 *           (the requested schema, a CreateMessageResult) fails that write
 *           with EINVAL, the reason goes to the log and to the question's
 *           "refused", and the question stays for another try. Bytes that
 *           can never become JSON, or bytes after the value, fail with
 *           EINVAL; more than 16 MiB with EFBIG. White space between
 *           values is nothing, even after the answer.
 *   close   an incomplete answer fails close with EINVAL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "gbuf.h"
#include "jscan.h"

struct askfile {
	uint64_t ask_id;
	struct jscan scan;
	struct gbuf buf;      /* the answer so far */
};

struct askfile *askfile_new(uint64_t ask_id)
{
	struct askfile *af = calloc(1, sizeof *af);

	if (af)
		af->ask_id = ask_id;
	return af;
}

void askfile_free(struct askfile *af)
{
	if (af)
		gbuf_free(&af->buf);
	free(af);
}

/* The answer is complete: hand it over. */
static int deliver(struct askfile *af)
{
	mcp_ask *q = mcp_ask_by_id(af->ask_id);
	int r = q ? mcp_ask_answer(q, af->buf.p, af->buf.len) : -ENOENT;

	gbuf_clear(&af->buf);
	return r;
}

void askfile_write(struct askfile *af, fuse_req_t req, const char *buf,
		   size_t size)
{
	size_t used = 0;
	int r;

	if (af->buf.len == 0 && jscan_blank(buf, size)) {
		fuse_reply_write(req, size); /* even after the answer */
		return;
	}
	if (!mcp_ask_by_id(af->ask_id)) {
		gbuf_clear(&af->buf);
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (af->buf.len == 0)
		jscan_init(&af->scan);
	if (af->buf.len + size > MAX_REQUEST) {
		mlog(MLOG_INFO, "answer refused: over 16 MiB");
		gbuf_clear(&af->buf);
		fuse_reply_err(req, EFBIG);
		return;
	}
	r = jscan_feed(&af->scan, buf, size, &used);
	if (r == JSCAN_ERROR ||
	    (r == JSCAN_DONE && !jscan_blank(buf + used, size - used))) {
		mlog(MLOG_INFO, "answer refused: invalid JSON (%s)",
		     r == JSCAN_ERROR && af->scan.error ? af->scan.error
							: "trailing data");
		gbuf_clear(&af->buf);
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (gbuf_add(&af->buf, buf, r == JSCAN_DONE ? used : size) < 0) {
		gbuf_clear(&af->buf);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (r == JSCAN_DONE && (r = deliver(af)) < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	fuse_reply_write(req, size);
}

void askfile_flush(struct askfile *af, fuse_req_t req)
{
	int r = 0;

	if (af->buf.len) {
		if (jscan_finish(&af->scan) == JSCAN_DONE) {
			r = deliver(af); /* a top-level number: never fits */
		} else {
			mlog(MLOG_INFO, "answer refused: incomplete JSON at "
			     "close");
			r = -EINVAL;
		}
		gbuf_clear(&af->buf);
	}
	fuse_reply_err(req, -r);
}
