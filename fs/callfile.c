/*
 * callfile.c - the transaction files: <server>/call, <server>/<thread>/call,
 * tools/<tool> and prompts/<prompt>, and the tools.json files that wait for
 * a listing.
 *
 * Protocol of call, per open file (after Plan 9's factotum rpc):
 *
 *   write   bytes accumulate (jsonwrite.c) until they form one complete
 *           JSON value; then the request is sent at once and write
 *           returns. Bytes that can no longer become JSON fail with
 *           EINVAL, more than 16 MiB with EFBIG (and every write till
 *           close), a complete value that is not a valid request with
 *           EINVAL; each such refusal is a call whose reply is the error.
 *           NAME=VALUE lines (tools/x, prompts/x; spec 9) are gathered
 *           till the close; each write checks the lines it completed and
 *           fails with EINVAL at a bad one, and so does every later write
 *           of that request, till the close.
 *           Every request sent is queued on this open file for reading
 *           (not on a write-only one) and recorded with its writer
 *           (writers.c).
 *   read    returns the replies of this open file's requests in the order
 *           they were written: the head one (one JSON document and a
 *           newline; a long one from a stdio server as it arrives), in
 *           pieces, from its own position (the file offset is ignored),
 *           waiting for it if need be; then one read of 0 ends it and the
 *           next reply is the head. With nothing queued, a read returns 0.
 *           A reply read to its last byte is dropped by the next write
 *           even before its read of 0 (a client that stops at the
 *           newline). Several reads may wait at once (threads sharing the
 *           open file): they are answered in order. An open file that sent
 *           nothing reads, at its first read, the call writers.c finds
 *           for the reading process (for tools/x and prompts/x only among
 *           calls of x), else for call the session's latest reply: the
 *           most recently sent call if one is in flight.
 *           A signal (FUSE interrupt) on a waiting read fails that read
 *           with EINTR and keeps the call: a handled signal (SIGWINCH,
 *           SA_RESTART) is not a request to stop, and a restarted read on
 *           this open file goes on waiting for the same reply.
 *   seek    accepted: the kernel moves the file position (the open is
 *           seekable so that lseek(fd, 0, SEEK_CUR), head -n1 and
 *           Python's "r+" work), and writes never look at it, nor reads
 *           once this open file sent a request. An open file that sent
 *           nothing reads the reply it found as a file, at the offset
 *           (once it is complete; a read of 0 then ends nothing), so
 *           that tail and less, which seek from the size stat gives
 *           (spec 12: node.c asks callfile_fresh too), read the right
 *           bytes.
 *   flush   (each close of a descriptor: shells dup2 the file and close
 *           the original before writing) completes a pending request (a
 *           top-level number ends there) or refuses it with EINVAL when it
 *           is incomplete; with nothing pending it sends nothing.
 *   release (the last close) of tools/x or prompts/x opened write-only
 *           that sent nothing and holds no pending byte sends the empty
 *           request, {} (": > tools/x"). It never cancels, except: after
 *           an interrupted read, with no read or write on this open file
 *           since, it sends notifications/cancelled for the call being
 *           read: the reader died of the signal (Ctrl-C on cat). The
 *           session stays.
 *
 * tools.json waits the same way for its listing but reads at the offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "gbuf.h"
#include "jsonwrite.h"
#include "kvargs.h"
#include "writers.h"

/* A reply to read: a call and how far this open file read it. */
struct rep {
	mcp_call *call;
	size_t pos;
	int streamed;         /* read some of it as it arrived */
};

/* A read waiting for its reply. */
struct parked {
	fuse_req_t req;
	size_t size;
	off_t off;
};

struct callfile {
	int listing;  /* tools.json: the listing, read at offsets */
	int prompt;   /* prompts/x: a prompts/get */
	uint64_t server_id, thread_id;
	struct jsonwrite in;  /* the request being written */
	int sent;             /* a request was sent (or refused) here */
	int attached;         /* what to read was settled (sent, or found) */
	int found;            /* ... found (writers.c): read as a file, at
				 the offset, while nothing is sent */
	int interrupted;      /* a read was interrupted, none since */
	int write_only;       /* opened O_WRONLY: nothing is queued */
	char *key;            /* tools/x, prompts/x: "t:x" or "p:x" (writers.h) */
	struct gbuf lines;    /* NAME=VALUE lines (spec 9), sent at close */
	int in_lines;         /* this request is such lines */
	int lines_bad;        /* ... one was refused: the rest fail too */
	size_t lines_checked; /* the bytes of whole lines checked so far */
	unsigned lines_line;  /* ... and how many lines they were */
	pid_t writer;         /* the caller of the current write or flush */
	struct wproc *closer; /* who closed it unwritten: for {} at release */
	unsigned long long closer_image;
	struct rep *reps;     /* the replies to read, head first */
	size_t nreps, capreps;
	struct parked *parked; /* waiting reads, oldest first */
	size_t nparked, capparked;
	mcp_call *heard;      /* the call lis listens to */
	struct mcp_listener lis;
};

/* Whose call this is for writers.c: the thread, or the server. */
static uint64_t owner(const struct callfile *cf)
{
	return cf->thread_id ? cf->thread_id : cf->server_id;
}

/* The thread thread_id, or (0) the server server_id: 0 or -ENOENT. */
static int resolve_ids(uint64_t server_id, uint64_t thread_id,
		       mcp_server **srv, mcp_session **s)
{
	struct mcp_stat st;

	*s = NULL;
	if (thread_id) {
		if (mcp_lookup(thread_id, MCP_THREAD, &st) < 0)
			return -ENOENT;
		*s = st.session;
		*srv = st.server;
		return 0;
	}
	*srv = fs_server(server_id);
	return *srv ? 0 : -ENOENT;
}

static int resolve(struct callfile *cf, mcp_server **srv, mcp_session **s)
{
	return resolve_ids(cf->server_id, cf->thread_id, srv, s);
}

/* Room for one more reply in the queue: 0 or -ENOMEM. */
static int reserve(struct callfile *cf)
{
	struct rep *r = gbuf_grow(cf->reps, &cf->capreps, cf->nreps + 1,
				  sizeof *r, 2);

	if (!r)
		return -ENOMEM;
	cf->reps = r;
	return 0;
}

/* Queue c (a reference taken over) for reading. */
static int push(struct callfile *cf, mcp_call *c)
{
	if (reserve(cf) < 0) {
		mcp_call_unref(c);
		return -ENOMEM;
	}
	cf->reps[cf->nreps].call = c;
	cf->reps[cf->nreps].pos = 0;
	cf->reps[cf->nreps].streamed = 0;
	cf->nreps++;
	return 0;
}

static void pop(struct callfile *cf)
{
	mcp_call_unref(cf->reps[0].call);
	memmove(cf->reps, cf->reps + 1, --cf->nreps * sizeof *cf->reps);
}

struct callfile *callfile_new(int listing, int prompt, uint64_t server_id,
			      uint64_t thread_id, int write_only)
{
	struct callfile *cf = calloc(1, sizeof *cf);

	if (!cf)
		return NULL;
	cf->listing = listing;
	cf->prompt = prompt;
	cf->server_id = server_id;
	cf->thread_id = thread_id;
	cf->write_only = write_only;
	if (listing) {
		mcp_server *srv;
		mcp_session *s;
		mcp_call *c;

		int r = resolve(cf, &srv, &s);

		if (r == 0)
			r = mcp_list(srv, s, MCP_TOOLS, &c);
		if (r == 0)
			r = push(cf, c);
		if (r < 0) {
			free(cf);
			errno = -r;
			return NULL;
		}
		cf->attached = 1;
	}
	return cf;
}

/* Answer read p from the head reply, which is done. */
static void serve(struct callfile *cf, const struct parked *p)
{
	struct rep *h = &cf->reps[0];
	mcp_buf *b = mcp_call_reply(h->call);
	int file = cf->listing || (cf->found && !cf->sent);
	size_t at = file ? (size_t)p->off : h->pos, n;
	int e;

	if (h->streamed && (e = mcp_call_stream(h->call, NULL, NULL)) != 0) {
		fuse_reply_err(p->req, e); /* what was read was not the reply */
		pop(cf);
		return;
	}
	if (at >= b->len) {
		if (!file)
			pop(cf); /* this read of 0 ends the reply */
		fuse_reply_buf(p->req, NULL, 0);
		return;
	}
	n = b->len - at < p->size ? b->len - at : p->size;
	if (!cf->listing)
		h->pos = at + n;
	fuse_reply_buf(p->req, b->data + at, n);
}

/* A long reply still arriving: the bytes of it not read yet. 0 if none.
 * Never as many as the request asks (one byte short): the kernel splits a
 * read() of a direct-I/O file into requests of at most 1 MiB and goes on
 * to the next one only after a full one, and when a later request of the
 * same read() fails it returns the earlier bytes and drops the error. A
 * short answer ends the read(), so the EIO of a stream that turns out to
 * be no reply (serve) always comes first in its read() and is seen. */
static int serve_partial(struct callfile *cf, const struct parked *p)
{
	struct rep *h = &cf->reps[0];
	const char *d;
	size_t avail, n;

	if (cf->listing)
		return 0;
	mcp_call_stream(h->call, &d, &avail);
	if (avail <= h->pos)
		return 0;
	n = avail - h->pos;
	if (n >= p->size)
		n = p->size > 1 ? p->size - 1 : p->size;
	fuse_reply_buf(p->req, d + h->pos, n);
	h->pos += n;
	h->streamed = 1;
	return 1;
}

static void unpark(struct callfile *cf, size_t i)
{
	memmove(cf->parked + i, cf->parked + i + 1,
		(--cf->nparked - i) * sizeof *cf->parked);
}

static void listen_to(struct callfile *cf, mcp_call *c);

/* Answer the waiting reads, oldest first, as far as the replies allow;
 * then listen to the head reply if a read still waits for it. */
static void pump(struct callfile *cf)
{
	while (cf->nparked) {
		struct parked p = cf->parked[0];

		if (!cf->nreps) {
			unpark(cf, 0);
			fuse_reply_buf(p.req, NULL, 0);
			continue;
		}
		if (mcp_call_reply(cf->reps[0].call)) {
			unpark(cf, 0);
			serve(cf, &p);
			continue;
		}
		if (serve_partial(cf, &p)) {
			unpark(cf, 0);
			continue;
		}
		listen_to(cf, cf->reps[0].call);
		return;
	}
	listen_to(cf, NULL);
}

static void heard_cb(struct mcp_listener *l, mcp_call *c)
{
	struct callfile *cf = (struct callfile *)((char *)l -
				offsetof(struct callfile, lis));

	pump(cf);
}

static void listen_to(struct callfile *cf, mcp_call *c)
{
	if (cf->heard == c && (!c || cf->lis.link.le_prev))
		return;
	mcp_listener_remove(&cf->lis);
	cf->heard = c;
	if (c) {
		cf->lis.done = heard_cb;
		cf->lis.more = heard_cb;
		mcp_call_listen(c, &cf->lis);
	}
}

static void interrupt_cb(fuse_req_t req, void *data)
{
	struct callfile *cf = data;
	size_t i;

	for (i = 0; i < cf->nparked; i++)
		if (cf->parked[i].req == req)
			break;
	if (i == cf->nparked)
		return;
	unpark(cf, i);
	if (!cf->nparked)
		listen_to(cf, NULL);
	if (!cf->listing)
		cf->interrupted = 1;
	fuse_reply_err(req, EINTR);
}

void callfile_read(struct callfile *cf, fuse_req_t req, size_t size,
		   off_t off)
{
	struct parked *p;
	size_t i;

	cf->interrupted = 0; /* the reader lived on: it keeps the call */
	if (!cf->attached) {
		mcp_call *c = NULL;
		int r = callfile_fresh(cf->server_id, cf->thread_id, cf->key,
				       fuse_req_ctx(req)->pid, &c);

		if (r == -ENOENT)
			r = 0, c = NULL; /* gone: nothing to read */
		if (r < 0 || (c && push(cf, mcp_call_ref(c)) < 0)) {
			/* EMFILE or ENOMEM: a later read tries again */
			fuse_reply_err(req, r < 0 ? -r : ENOMEM);
			return;
		}
		cf->attached = cf->found = 1;
	}
	p = gbuf_grow(cf->parked, &cf->capparked, cf->nparked + 1, sizeof *p,
		      2);
	if (!p) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	cf->parked = p;
	p = &cf->parked[cf->nparked++];
	p->req = req;
	p->size = size;
	p->off = off;
	pump(cf);
	for (i = 0; i < cf->nparked; i++)
		if (cf->parked[i].req == req) { /* it waits */
			fuse_req_interrupt_func(req, interrupt_cb, cf);
			break;
		}
}

int callfile_fresh(uint64_t server_id, uint64_t thread_id, const char *key,
		   pid_t pid, mcp_call **c)
{
	mcp_server *srv;
	mcp_session *s;
	int r;

	*c = NULL; /* whose: the thread, or the server (owner()) */
	if ((r = resolve_ids(server_id, thread_id, &srv, &s)) < 0 ||
	    (r = writers_find(thread_id ? thread_id : server_id, key, pid,
			      c)) < 0)
		return r;
	if (!*c && !key)
		*c = mcp_latest(srv, s);
	return 0;
}

/* Make ready, before a request of this open file is sent, all a reply
 * needs to reach its reader, so that nothing can fail once it is sent:
 * the writer's record under key (*rec, for cf->closer when w, else the
 * caller of the current write) and room in the reply queue. 0, -EAGAIN,
 * -ENOMEM or -EMFILE. */
static int ready(struct callfile *cf, const char *key, int w,
		 struct wrec **rec)
{
	unsigned long long image = cf->closer_image;
	struct wproc *mine = NULL;
	int r;

	*rec = NULL;
	if (!w) {
		mine = writers_proc(cf->writer, &image);
		if (!mine && (errno == ENOMEM || errno == EMFILE))
			return -errno;
	}
	r = writers_prepare(owner(cf), key, w ? cf->closer : mine, image,
			    rec);
	writers_proc_unref(mine);
	if (r == -EAGAIN)
		mlog(MLOG_WARN, "call not sent: too many processes alive "
		     "that wrote calls of their own on this thread");
	if (r == 0 && !cf->write_only && reserve(cf) < 0) {
		writers_commit(owner(cf), *rec, NULL);
		*rec = NULL;
		r = -ENOMEM;
	}
	return r;
}

/* c (a reference taken over) was sent, or refused, by this open file,
 * after ready() gave rec: record it for its writer and queue it for
 * reading. */
static void attach(struct callfile *cf, mcp_call *c, struct wrec *rec)
{
	writers_commit(owner(cf), rec, c);
	cf->sent = cf->attached = 1;
	if (cf->write_only) {
		mcp_call_unref(c);
		return;
	}
	/* a reply read to its last byte is over, its read of 0 or not */
	while (cf->nreps && !cf->listing &&
	       mcp_call_reply(cf->reps[0].call) &&
	       cf->reps[0].pos >= mcp_call_reply(cf->reps[0].call)->len &&
	       !cf->nparked)
		pop(cf);
	push(cf, c); /* room was reserved (ready) */
	pump(cf);
}

/* A request refused before it was sent: log why, and make the refusal the
 * latest reply (of this open file and of the session), so that a shell
 * user whose redirect dropped the error reads it with cat. */
static void refuse(struct callfile *cf, const char *why, int w)
{
	mcp_server *srv;
	mcp_session *s;
	mcp_call *c;
	struct wrec *rec;

	mlog(MLOG_INFO, "call refused: %s", why);
	if (resolve(cf, &srv, &s) < 0 || ready(cf, cf->key, w, &rec) < 0)
		return;
	if (mcp_call_refused(srv, s, why, &c) == 0)
		attach(cf, c, rec);
	else
		writers_commit(owner(cf), rec, NULL);
}

int callfile_target(struct callfile *cf, const char *name)
{
	cf->key = malloc(strlen(name) + 3);
	if (!cf->key)
		return -ENOMEM;
	memcpy(cf->key, cf->prompt ? "p:" : "t:", 2);
	strcpy(cf->key + 2, name);
	return 0;
}

/* A complete request (or the empty one) in cf->in: parsed once and sent,
 * for cf->closer when w, else for the caller of the current write;
 * checked: jsonwrite's check passed it (not so lines made into JSON). */
static int dispatch(struct callfile *cf, int w, int checked)
{
	const char *p = cf->in.buf.p ? cf->in.buf.p : "";
	size_t len = cf->in.buf.len;
	mcp_server *srv;
	mcp_session *s;
	mcp_call *c;
	mcp_req *q = NULL;
	const char *why = NULL;
	struct wrec *rec = NULL;
	int r = resolve(cf, &srv, &s);

	if (r == 0) /* the key is "t:" or "p:" and the name */
		r = mcp_req_parse(p, len, cf->key ? cf->key + 2 : NULL,
				  (cf->prompt ? MCP_REQ_PROMPT : 0) |
				  (checked ? MCP_REQ_CHECKED : 0), &q, &why);
	if (r == 0 && (r = ready(cf, mcp_req_key(q), w, &rec)) < 0)
		mcp_req_free(q);
	else if (r == 0 && (r = mcp_call_start(srv, s, q, &c)) == 0)
		attach(cf, c, rec);
	else if (rec) /* not sent */
		writers_commit(owner(cf), rec, NULL);
	jsonwrite_clear(&cf->in);
	if (r < 0 && why)
		refuse(cf, why, w);
	return r;
}

/* The NAME=VALUE request of this open file is over (sent or refused). */
static void lines_reset(struct callfile *cf)
{
	gbuf_free(&cf->lines);
	cf->in_lines = cf->lines_bad = 0;
	cf->lines_checked = 0;
	cf->lines_line = 0;
}

/* The lines that the last write completed, checked as they arrive (SPEC
 * 9: a bad line fails the write that completes it, and is never sent):
 * 0, or -EINVAL once refused (the refusal is the reply to read), -ENOMEM,
 * -ENOENT. */
static int lines_check(struct callfile *cf)
{
	const char *p = cf->lines.p + cf->lines_checked, *nl = NULL, *q;
	size_t left = cf->lines.len - cf->lines_checked;
	mcp_server *srv;
	mcp_session *s;
	char *why = NULL;
	int r;

	for (q = p; (q = memchr(q, '\n', left - (size_t)(q - p))) != NULL;
	     q++)
		nl = q;
	if (!nl)
		return 0;
	r = resolve(cf, &srv, &s);
	if (r == 0)
		r = mcp_args_check(srv, s, cf->prompt, cf->key + 2, p,
				   (size_t)(nl + 1 - p), &cf->lines_line,
				   &why);
	if (r == 0)
		cf->lines_checked += (size_t)(nl + 1 - p);
	else if (why)
		refuse(cf, why, 0);
	free(why);
	return r;
}

/* NAME=VALUE lines (spec 9), at close: made into the arguments object by
 * the tool's schema (lib/kvargs.c through mcp_args_lines) and sent like a
 * JSON request, or refused naming the line. */
static int lines_dispatch(struct callfile *cf, int w)
{
	mcp_server *srv;
	mcp_session *s;
	char *json = NULL, *why = NULL;
	int r = resolve(cf, &srv, &s);

	cf->in_lines = 0;
	if (r == 0) /* the key is "t:" or "p:" and the name */
		r = mcp_args_lines(srv, s, cf->prompt, cf->key + 2,
				   cf->lines.p, cf->lines.len, &json, &why);
	lines_reset(cf);
	jsonwrite_clear(&cf->in);
	if (r == 0 && gbuf_puts(&cf->in.buf, json) == 0)
		r = dispatch(cf, w, 0);
	else if (why)
		refuse(cf, why, w);
	free(json);
	free(why);
	return r;
}

void callfile_write(struct callfile *cf, fuse_req_t req, const char *buf,
		    size_t size)
{
	int was_big = cf->in.too_big, r;

	if (cf->listing) {
		fuse_reply_err(req, EBADF);
		return;
	}
	cf->interrupted = 0; /* alive after the signal: the call goes on */
	cf->writer = fuse_req_ctx(req)->pid;
	/* lines start a request; never the rest of one over the limit
	 * (a write the kernel cut in parts, its rest written again) */
	if (!cf->in_lines && cf->key && !jsonwrite_pending(&cf->in) &&
	    !was_big && kvargs_is_lines(buf, size))
		cf->in_lines = 1;
	if (cf->in_lines) { /* gathered, each line checked, sent at close */
		if (cf->lines_bad)
			r = -EINVAL; /* a line was refused: so is the rest */
		else if (cf->lines.len + size > MAX_REQUEST)
			r = -EFBIG;
		else
			r = gbuf_add(&cf->lines, buf, size) < 0 ? -ENOMEM : 0;
		if (r == 0)
			r = lines_check(cf);
		if (r < 0) {
			int bad = r == -EINVAL;

			if (r == -EFBIG) { /* and so is the rest, till close */
				refuse(cf, "request over " MAX_REQUEST_TEXT, 0);
				jsonwrite_too_big(&cf->in);
			}
			lines_reset(cf);
			cf->in_lines = cf->lines_bad = bad; /* till close */
			fuse_reply_err(req, -r);
		} else {
			fuse_reply_write(req, size);
		}
		return;
	}
	r = jsonwrite_feed(&cf->in, buf, size, MAX_REQUEST);
	if (r == -EFBIG && !was_big)
		refuse(cf, "request over " MAX_REQUEST_TEXT, 0);
	else if (r == -EINVAL)
		refuse(cf, cf->in.why, 0);
	if (r == JW_DONE)
		r = dispatch(cf, 0, 1);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_write(req, size);
}

void callfile_flush(struct callfile *cf, fuse_req_t req)
{
	int r = 0;

	if (!cf->listing) {
		cf->writer = fuse_req_ctx(req)->pid;
		if (cf->key && cf->write_only && !cf->sent && !cf->closer &&
		    !jsonwrite_pending(&cf->in) && !cf->in_lines &&
		    !(cf->closer = writers_proc(cf->writer,
						&cf->closer_image)) &&
		    (errno == ENOMEM || errno == EMFILE)) {
			fuse_reply_err(req, errno); /* {} could not be sent */
			return;
		}
		if (cf->in_lines && cf->lines_bad) { /* refused at a write */
			lines_reset(cf);
			fuse_reply_err(req, EINVAL);
			return;
		}
		if (cf->in_lines) {
			r = lines_dispatch(cf, 0);
			fuse_reply_err(req, r < 0 ? -r : 0);
			return;
		}
		r = jsonwrite_finish(&cf->in);
		if (r == JW_DONE)
			r = dispatch(cf, 0, 1);
		else if (r < 0)
			refuse(cf, cf->in.why, 0);
	}
	fuse_reply_err(req, r < 0 ? -r : 0);
}

void callfile_free(struct callfile *cf)
{
	size_t i;

	if (cf->key && cf->write_only && !cf->sent && cf->closer &&
	    !jsonwrite_pending(&cf->in)) /* ": > tools/x": {} at last close */
		dispatch(cf, 1, 0);
	for (i = 0; i < cf->nparked; i++)
		fuse_reply_err(cf->parked[i].req, EINTR);
	mcp_listener_remove(&cf->lis);
	if (cf->interrupted && cf->nreps)
		mcp_call_cancel(cf->reps[0].call); /* no-op if done */
	while (cf->nreps)
		pop(cf);
	writers_proc_unref(cf->closer);
	jsonwrite_free(&cf->in);
	gbuf_free(&cf->lines);
	free(cf->key);
	free(cf->reps);
	free(cf->parked);
	free(cf);
}

/* ---- as the ops of call, tools.json, tools/x and prompts/x ---- */

static int call_open(struct fh *h, const struct node *n, int acc)
{
	h->cf = callfile_new(0, 0, n->st.server_id, h->thread_id,
			     acc == O_WRONLY);
	return h->cf ? 0 : -errno;
}

static int toolsjson_open(struct fh *h, const struct node *n, int acc)
{
	h->cf = callfile_new(1, 0, n->st.server_id, h->thread_id,
			     acc == O_WRONLY);
	return h->cf ? 0 : -errno;
}

void callfile_fh_read(struct fh *h, fuse_req_t req, size_t size, off_t off)
{
	callfile_read(h->cf, req, size, off);
}

void callfile_fh_write(struct fh *h, fuse_req_t req, const char *buf,
		       size_t size)
{
	callfile_write(h->cf, req, buf, size);
}

void callfile_fh_flush(struct fh *h, fuse_req_t req)
{
	callfile_flush(h->cf, req);
}

void callfile_fh_release(struct fh *h)
{
	if (h->cf)
		callfile_free(h->cf);
	h->cf = NULL;
}

const struct file_ops call_ops = {
	.open = call_open,
	.read = callfile_fh_read,
	.write = callfile_fh_write,
	.flush = callfile_fh_flush,
	.release = callfile_fh_release,
};

const struct file_ops toolsjson_ops = {
	.open = toolsjson_open,
	.read = callfile_fh_read,
	.flush = callfile_fh_flush,
	.release = callfile_fh_release,
};
