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
 *           EINVAL; so does an answer with a member name twice in one
 *           object or holding a control character (spec 13: the server
 *           would read another answer than the one checked); more than
 *           16 MiB with EFBIG, and so does every later write of that
 *           open file (the rest of a write the kernel cut in parts is no
 *           answer of its own). Each such refusal is also the question's
 *           "refused". White space between values is nothing, even after
 *           the answer.
 *   close   an incomplete answer fails close with EINVAL.
 */
#include <errno.h>
#include <stdlib.h>

#include "fs.h"
#include "jsonwrite.h"

struct askfile {
	uint64_t ask_id;
	struct jsonwrite w;   /* the answer so far */
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
		jsonwrite_free(&af->w);
	free(af);
}

/* The answer is complete: hand it over. */
static int deliver(struct askfile *af)
{
	mcp_ask *q = fs_question(af->ask_id);
	int r = q ? mcp_ask_answer(q, af->w.buf.p, af->w.buf.len, NULL)
		  : -ENOENT;

	jsonwrite_clear(&af->w);
	return r;
}

void askfile_write(struct askfile *af, fuse_req_t req, const char *buf,
		   size_t size)
{
	int r, was_big;

	if (!jsonwrite_pending(&af->w) && jscan_blank(buf, size)) {
		fuse_reply_write(req, size); /* even after the answer */
		return;
	}
	if (!fs_question(af->ask_id)) {
		jsonwrite_reset(&af->w);
		fuse_reply_err(req, ENOENT);
		return;
	}
	was_big = af->w.too_big;
	r = jsonwrite_feed(&af->w, buf, size, MAX_REQUEST);
	if (r < 0) {
		if (r != -ENOMEM && !was_big)
			mcp_ask_answer(fs_question(af->ask_id), NULL, 0,
				       af->w.why);
		if (r != -EFBIG) /* over the limit: the rest too, till close */
			jsonwrite_reset(&af->w);
		fuse_reply_err(req, -r);
		return;
	}
	if (r == JW_DONE && (r = deliver(af)) < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	fuse_reply_write(req, size);
}

void askfile_flush(struct askfile *af, fuse_req_t req)
{
	int r = jsonwrite_finish(&af->w);
	mcp_ask *q;

	if (r == JW_DONE)
		r = deliver(af); /* a top-level number: never fits */
	else if (r < 0 && (q = fs_question(af->ask_id)))
		mcp_ask_answer(q, NULL, 0, af->w.why);
	else if (r < 0)
		mlog(MLOG_INFO, "answer refused: %s", af->w.why);
	jsonwrite_reset(&af->w);
	fuse_reply_err(req, r < 0 ? -r : 0);
}

/* requests/<n>: the question at open (h->snap), and the answer */
static int ask_open(struct fh *h, const struct node *n, int acc)
{
	struct mcp_stat st;

	if (fs_question_at(n, n->idx, &st) < 0)
		return -ENOENT;
	h->snap = mcp_doc(MCP_DOC_QUESTION, st.ask, 0);
	h->af = askfile_new(st.id);
	return h->snap && h->af ? 0 : -ENOMEM;
}

static void ask_write(struct fh *h, fuse_req_t req, const char *buf,
		      size_t size)
{
	askfile_write(h->af, req, buf, size);
}

static void ask_flush(struct fh *h, fuse_req_t req)
{
	askfile_flush(h->af, req);
}

static void ask_release(struct fh *h)
{
	askfile_free(h->af);
	h->af = NULL;
}

const struct file_ops ask_ops = {
	.open = ask_open,
	.read = fs_read_snap,
	.write = ask_write,
	.flush = ask_flush,
	.release = ask_release,
};
