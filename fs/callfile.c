/*
 * callfile.c - the transaction files: <server>/call, <server>/<thread>/call
 * and the tools.json files that wait for a listing.
 *
 * Protocol of call, per open file (after Plan 9's factotum rpc):
 *
 *   write   bytes accumulate until they form one complete JSON value; then
 *           the request is sent at once and write returns. Bytes that can no
 *           longer become JSON fail with EINVAL, more than 16 MiB with EFBIG,
 *           a complete value that is not a valid request with EINVAL. The
 *           first byte of a new request ends the previous transaction on
 *           this open file (its call goes on and becomes the latest reply).
 *   read    waits for this open file's request and returns its reply (one
 *           JSON document and a newline; a long one from a stdio server
 *           as it arrives), in pieces, from its own position
 *           (the file offset is ignored); then 0 until the next write. An
 *           open file that sent nothing reads the latest call sent by the
 *           reading process or its nearest ancestor that sent one
 *           (writers.c), else the session's latest reply: the most
 *           recently sent call if one is in flight; it waits for that
 *           call if need be.
 *           A signal (FUSE interrupt) on a waiting read fails that read
 *           with EINTR and keeps the call: a handled signal (SIGWINCH,
 *           SA_RESTART) is not a request to stop, and a restarted read on
 *           this open file goes on waiting for the same reply.
 *   seek    accepted and ignored: the kernel moves the file position (the
 *           open is seekable so that lseek(fd, 0, SEEK_CUR), head -n1 and
 *           Python's "r+" work) but reads and writes of call never look
 *           at it.
 *   close   never cancels; an unfinished request fails close with EINVAL.
 *   release of the last reference after an interrupted read, with no read
 *           or write on this open file since, sends notifications/cancelled
 *           for the call: the reader died of the signal (Ctrl-C on cat).
 *           The session stays.
 *
 * tools.json waits the same way for its listing but reads at the offset.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "gbuf.h"
#include "jscan.h"
#include "jsent.h"
#include "kvargs.h"
#include "writers.h"

struct callfile {
	enum kind kind;
	uint64_t server_id, session_id;
	struct jscan scan;
	struct gbuf req;      /* the request being written */
	int wrote;            /* a request was sent on this open file */
	int attached;         /* call was taken (sent, latest or tools) */
	int too_big;          /* a request overflowed: writes fail till close */
	int interrupted;      /* a read of call was interrupted, none since */
	int streamed;         /* read some of a reply as it arrived */
	char *target;         /* tools/x, prompts/x: the name (JSON string) */
	int write_only;       /* opened O_WRONLY: {} at a close unwritten */
	int lines;            /* NAME=VALUE lines, complete at close */
	pid_t writer;         /* the caller of the current write or flush */
	mcp_call *call;
	size_t pos;
	fuse_req_t rreq;      /* the read waiting for call */
	size_t rsize;
	off_t roff;
	struct mcp_listener lis;
};

/* Whose call this is for writers.c: the thread, or the server. */
static uint64_t owner(const struct callfile *cf)
{
	return cf->session_id ? cf->session_id : cf->server_id;
}

static int resolve(struct callfile *cf, mcp_server **srv, mcp_session **s)
{
	*s = NULL;
	if (cf->session_id) {
		*s = mcp_session_by_id(cf->session_id);
		if (!*s)
			return -ENOENT;
		*srv = mcp_session_server(*s);
		return 0;
	}
	*srv = mcp_server_by_id(cf->server_id);
	return *srv ? 0 : -ENOENT;
}

struct callfile *callfile_new(enum kind kind, uint64_t server_id,
			      uint64_t session_id)
{
	struct callfile *cf = calloc(1, sizeof *cf);

	if (!cf)
		return NULL;
	cf->kind = kind;
	cf->server_id = server_id;
	cf->session_id = session_id;
	if (kind == K_TOOLS) {
		mcp_server *srv;
		mcp_session *s;

		if (resolve(cf, &srv, &s) < 0 || mcp_tools(srv, s, &cf->call)) {
			free(cf);
			return NULL;
		}
		cf->attached = 1;
	}
	return cf;
}

/* Answer the waiting read from the finished call. */
static void serve(struct callfile *cf, fuse_req_t req, size_t size, off_t off)
{
	mcp_buf *b = mcp_call_reply(cf->call);
	size_t at = cf->kind == K_TOOLS ? (size_t)off : cf->pos, n;

	if (cf->streamed && mcp_call_stream_broken(cf->call)) {
		fuse_reply_err(req, EIO); /* what was read was not the reply */
		return;
	}
	if (at >= b->len) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	n = b->len - at < size ? b->len - at : size;
	if (cf->kind != K_TOOLS)
		cf->pos += n;
	fuse_reply_buf(req, b->data + at, n);
}

/* A long reply still arriving: the bytes of it not read yet. 0 if none. */
static int serve_partial(struct callfile *cf, fuse_req_t req, size_t size)
{
	const char *p;
	size_t avail, n;

	if (cf->kind == K_TOOLS)
		return 0;
	avail = mcp_call_partial(cf->call, &p);
	if (avail <= cf->pos)
		return 0;
	n = avail - cf->pos < size ? avail - cf->pos : size;
	fuse_reply_buf(req, p + cf->pos, n);
	cf->pos += n;
	cf->streamed = 1;
	return 1;
}

static void more_cb(struct mcp_listener *l, mcp_call *c)
{
	struct callfile *cf = (struct callfile *)((char *)l -
				offsetof(struct callfile, lis));

	if (cf->rreq && serve_partial(cf, cf->rreq, cf->rsize)) {
		cf->rreq = NULL;
		mcp_listener_remove(&cf->lis);
	}
}

static void done_cb(struct mcp_listener *l, mcp_call *c)
{
	struct callfile *cf = (struct callfile *)((char *)l -
				offsetof(struct callfile, lis));
	fuse_req_t req = cf->rreq;

	if (!req)
		return;
	cf->rreq = NULL;
	serve(cf, req, cf->rsize, cf->roff);
}

static void interrupt_cb(fuse_req_t req, void *data)
{
	struct callfile *cf = data;

	if (cf->rreq != req)
		return;
	cf->rreq = NULL;
	mcp_listener_remove(&cf->lis);
	if (cf->kind != K_TOOLS)
		cf->interrupted = 1;
	fuse_reply_err(req, EINTR);
}

void callfile_read(struct callfile *cf, fuse_req_t req, size_t size,
		   off_t off)
{
	if (cf->rreq) {
		fuse_reply_err(req, EBUSY); /* one read at a time per file */
		return;
	}
	cf->interrupted = 0; /* the reader lived on: it keeps the call */
	if (!cf->attached) {
		mcp_server *srv;
		mcp_session *s;

		cf->attached = 1;
		if (resolve(cf, &srv, &s) == 0 &&
		    !(cf->call = mcp_call_ref(writers_find(owner(cf),
						fuse_req_ctx(req)->pid))))
			cf->call = mcp_call_ref(mcp_latest(srv, s));
		cf->pos = 0;
	}
	if (!cf->call) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (mcp_call_is_done(cf->call)) {
		serve(cf, req, size, off);
		return;
	}
	if (serve_partial(cf, req, size))
		return;
	cf->rreq = req;
	cf->rsize = size;
	cf->roff = off;
	cf->lis.done = done_cb;
	cf->lis.more = more_cb;
	mcp_call_listen(cf->call, &cf->lis);
	fuse_req_interrupt_func(req, interrupt_cb, cf);
}

static void reset_request(struct callfile *cf)
{
	gbuf_clear(&cf->req);
}

/* This open file now reads c (a reference taken over), and c is the
 * latest call of the writing process. */
static void attach(struct callfile *cf, mcp_call *c)
{
	writers_record(owner(cf), cf->writer, c);
	if (cf->rreq) { /* cannot happen: reads and writes are serialised */
		fuse_reply_err(cf->rreq, EINTR);
		cf->rreq = NULL;
	}
	mcp_listener_remove(&cf->lis);
	mcp_call_unref(cf->call);
	cf->call = c;
	cf->pos = 0;
	cf->streamed = 0;
	cf->wrote = cf->attached = 1;
}

/* A request refused before it was sent: log why, and make the refusal the
 * latest reply (of this open file and of the session), so that a shell
 * user whose redirect dropped the error reads it with cat. */
static void refuse(struct callfile *cf, const char *why)
{
	mcp_server *srv;
	mcp_session *s;
	mcp_call *c;

	mlog(MLOG_INFO, "call refused: %s", why);
	if (resolve(cf, &srv, &s) == 0 &&
	    mcp_call_refused(srv, s, why, &c) == 0)
		attach(cf, c);
}

int callfile_target(struct callfile *cf, const char *name, int write_only)
{
	cJSON *j = cJSON_CreateString(name); /* a NUL is C0 80 (jsent.h) */

	cf->target = j ? jsent_print(j, 0, NULL) : NULL;
	cJSON_Delete(j);
	cf->write_only = write_only;
	return cf->target ? 0 : -ENOMEM;
}

/* tools/x, prompts/x: the arguments object args, as the request of x. */
static char *wrap(const struct callfile *cf, const char *args, size_t len,
		  size_t *outlen, const char **why)
{
	struct gbuf b = {0};
	size_t i = 0;

	while (i < len && (args[i] == ' ' || args[i] == '\t' ||
			   args[i] == '\n' || args[i] == '\r'))
		i++;
	if (i < len && args[i] != '{') {
		*why = "the arguments must be a JSON object";
		return NULL;
	}
	if (cf->kind == K_PROMPT)
		gbuf_puts(&b, "{\"method\":\"prompts/get\",\"params\":");
	gbuf_puts(&b, "{\"name\":");
	gbuf_puts(&b, cf->target);
	gbuf_puts(&b, ",\"arguments\":");
	if (i < len)
		gbuf_add(&b, args, len);
	else
		gbuf_puts(&b, "{}");
	gbuf_puts(&b, cf->kind == K_PROMPT ? "}}" : "}");
	*outlen = b.len;
	return gbuf_take(&b);
}

/* A complete request: send it. */
static int dispatch(struct callfile *cf)
{
	mcp_server *srv;
	mcp_session *s;
	mcp_call *c;
	const char *why = NULL;
	int r = resolve(cf, &srv, &s);

	if (r == 0 && cf->target) {
		size_t n;
		char *req = wrap(cf, cf->req.p ? cf->req.p : "", cf->req.len,
				 &n, &why);

		r = req ? mcp_call_start(srv, s, req, n, &c, &why) : -EINVAL;
		if (!req && !why)
			r = -ENOMEM;
		free(req);
	} else if (r == 0) {
		r = mcp_call_start(srv, s, cf->req.p, cf->req.len, &c, &why);
	}
	reset_request(cf);
	if (r < 0) {
		if (why)
			refuse(cf, why);
		return r;
	}
	attach(cf, c);
	return 0;
}

/* NAME=VALUE lines (SPEC 9), at close: made into the arguments object
 * by the tool's schema (lib/kvargs.c) and sent, or refused naming
 * the line. */
static int lines_dispatch(struct callfile *cf)
{
	mcp_server *srv;
	mcp_session *s;
	char *json = NULL, *why = NULL;
	cJSON *t = cJSON_Parse(cf->target);
	int r = resolve(cf, &srv, &s);

	cf->lines = 0;
	if (r == 0 && cJSON_IsString(t))
		r = mcp_args_lines(srv, s, cf->kind == K_PROMPT,
				   t->valuestring, cf->req.p, cf->req.len,
				   &json, &why);
	cJSON_Delete(t);
	reset_request(cf);
	if (r == 0 && gbuf_puts(&cf->req, json) == 0)
		r = dispatch(cf);
	else if (why)
		refuse(cf, why);
	free(json);
	free(why);
	return r;
}

void callfile_write(struct callfile *cf, fuse_req_t req, const char *buf,
		    size_t size)
{
	size_t used = 0;
	int r;

	if (cf->kind == K_TOOLS) {
		fuse_reply_err(req, EBADF);
		return;
	}
	cf->interrupted = 0; /* alive after the signal: the call goes on */
	cf->writer = fuse_req_ctx(req)->pid;
	if (!size) {
		fuse_reply_write(req, 0);
		return;
	}
	if (cf->req.len == 0 && !cf->too_big) {
		if (jscan_blank(buf, size)) {
			fuse_reply_write(req, size);
			return;
		}
		jscan_init(&cf->scan);
		cf->lines = cf->target && kvargs_is_lines(buf, size);
	}
	if (cf->lines && !cf->too_big && cf->req.len + size <= MAX_REQUEST) {
		if (gbuf_add(&cf->req, buf, size) < 0)
			fuse_reply_err(req, ENOMEM);
		else
			fuse_reply_write(req, size); /* sent at close */
		return;
	}
	if (cf->too_big || cf->req.len + size > MAX_REQUEST) {
		if (!cf->too_big)
			refuse(cf, "request over " MAX_REQUEST_TEXT);
		cf->too_big = 1;
		reset_request(cf);
		fuse_reply_err(req, EFBIG);
		return;
	}
	r = jscan_feed(&cf->scan, buf, size, &used);
	if (r == JSCAN_ERROR ||
	    (r == JSCAN_DONE && !jscan_blank(buf + used, size - used))) {
		char why[160];

		snprintf(why, sizeof why, "invalid JSON (%s)",
			 r == JSCAN_ERROR && cf->scan.error ? cf->scan.error
							    : "trailing data");
		refuse(cf, why);
		reset_request(cf);
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (gbuf_add(&cf->req, buf, r == JSCAN_DONE ? used : size) < 0) {
		reset_request(cf);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (r == JSCAN_DONE && (r = dispatch(cf)) < 0) {
		fuse_reply_err(req, -r);
		return;
	}
	fuse_reply_write(req, size);
}

void callfile_flush(struct callfile *cf, fuse_req_t req)
{
	cf->writer = fuse_req_ctx(req)->pid;
	if (cf->target && cf->write_only && !cf->wrote && !cf->req.len &&
	    !cf->too_big) { /* ": > tools/x": the empty request is {} */
		int r = dispatch(cf);

		fuse_reply_err(req, r < 0 ? -r : 0);
		return;
	}
	if (cf->lines && cf->req.len) {
		int r = lines_dispatch(cf);

		fuse_reply_err(req, r < 0 ? -r : 0);
		return;
	}
	if (cf->kind != K_TOOLS && cf->req.len) {
		/* a pending top-level number completes at end of input */
		int done = jscan_finish(&cf->scan) == JSCAN_DONE;
		int r = done ? dispatch(cf) : -EINVAL;

		if (!done)
			refuse(cf, "incomplete JSON at close");
		reset_request(cf);
		fuse_reply_err(req, r < 0 ? -r : 0);
		return;
	}
	fuse_reply_err(req, 0);
}

void callfile_free(struct callfile *cf)
{
	if (cf->rreq)
		fuse_reply_err(cf->rreq, EINTR);
	mcp_listener_remove(&cf->lis);
	if (cf->interrupted && cf->call)
		mcp_call_cancel(cf->call); /* no-op if it finished meanwhile */
	mcp_call_unref(cf->call);
	gbuf_free(&cf->req);
	free(cf->target);
	free(cf);
}
