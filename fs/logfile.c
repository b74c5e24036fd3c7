/*
 * logfile.c - a thread's events and trace (spec 4, 15): a window of the
 * session's log, read at the stream offset the file offset stands for.
 * A read gives all it asks for that the log holds (tar and dd take a
 * short read of a regular file for its end); one that ends inside a line
 * has that line's rest copied at once and owed to the next read, so that
 * a flood cannot take it away: an open file is never left inside a line
 * that the window drops. One that fell behind the window (a flood while it reads)
 * gets the line {"dropped":BYTES} and goes on at the oldest kept line:
 * never part of one line joined to another. poll(2) on one is readable
 * while the log holds bytes past what that open file has read; a poll
 * that waits is woken when a line is added (spec 15: inotify cannot see
 * FUSE files, poll and tail -f can).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

#define REST_STEP (64 * 1024)

/* An open events or trace file (fh.log), made at its open. */
struct logfh {
	struct fh *h;
	uint64_t shift;          /* stream offset - file offset */
	uint64_t pos;            /* the stream offset read up to */
	char *rest;              /* bytes owed before it: the rest of a line
				    a read cut, or a dropped line */
	size_t rest_n, rest_done; /* their length; given */
	uint64_t rest_off;       /* the file offset of their first */
	struct fuse_pollhandle *ph; /* a poll(2) waiting for more */
	LIST_ENTRY(logfh) link;  /* on waiting while it waits */
};

static LIST_HEAD(, logfh) waiting = LIST_HEAD_INITIALIZER(waiting);

static int log_open(struct fh *h, const struct node *n, int acc)
{
	(void)n;
	(void)acc;
	if (!(h->log = calloc(1, sizeof *h->log)))
		return -ENOMEM;
	h->log->h = h;
	return 0;
}

static void unwait(struct fh *h)
{
	if (!h->log->ph)
		return;
	LIST_REMOVE(h->log, link);
	fuse_pollhandle_destroy(h->log->ph);
	h->log->ph = NULL;
}

static void rest_drop(struct fh *h)
{
	free(h->log->rest);
	h->log->rest = NULL;
	h->log->rest_n = h->log->rest_done = 0;
}

static void log_release(struct fh *h)
{
	if (!h->log)
		return;
	unwait(h);
	rest_drop(h);
	free(h->log);
	h->log = NULL;
}

static enum mcp_log log_of(const struct fh *h)
{
	return h->ops == &trace_ops ? MCP_TRACE : MCP_EVENTS;
}

/* The owed bytes from where they stand, at most size of them. */
static void rest_read(struct fh *h, fuse_req_t req, size_t size)
{
	size_t n = h->log->rest_n - h->log->rest_done;

	if (n > size)
		n = size;
	fuse_reply_buf(req, h->log->rest + h->log->rest_done, n);
	h->log->rest_done += n;
	if (h->log->rest_done == h->log->rest_n)
		rest_drop(h);
}

/* The rest of the line that goes on at stream offset at (the read ended
 * there, file offset off), to its newline: copied now, owed to the next
 * read. Lines are whole in the log, and none is longer than its window.
 * 0, or -ENOMEM. */
static int rest_keep(struct fh *h, mcp_session *s, enum mcp_log which,
		     uint64_t at, uint64_t off)
{
	char *b = NULL, *t, *nl;
	size_t len = 0, k;

	for (;;) {
		if (!(t = realloc(b, len + REST_STEP))) {
			free(b);
			return -ENOMEM;
		}
		b = t;
		k = mcp_session_log(s, which, at + len, b + len, REST_STEP,
				    NULL, NULL);
		nl = k ? memchr(b + len, '\n', k) : NULL;
		if (nl || !k) {
			len = nl ? (size_t)(nl - b) + 1 : len;
			break;
		}
		len += k;
	}
	if (!len) {
		free(b);
		return 0;
	}
	h->log->rest = b;
	h->log->rest_n = len;
	h->log->rest_done = 0;
	h->log->rest_off = off;
	return 0;
}

static void log_read(struct fh *h, fuse_req_t req, size_t size, off_t off,
		     enum mcp_log which)
{
	mcp_session *s = fs_thread(h->thread_id);
	uint64_t pos = (uint64_t)off + h->log->shift, start;
	char *buf, line[48];
	size_t n = 0;
	int k;

	if (h->log->rest && (uint64_t)off == h->log->rest_off + h->log->rest_done) {
		rest_read(h, req, size);
		return;
	}
	rest_drop(h); /* a read elsewhere: pread, a seek */
	if (!s) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	mcp_session_log(s, which, 0, NULL, 0, &start, NULL);
	if (pos < start && off == 0) {
		/* a read of the start: the window from its oldest line, and
		 * this open file goes on from there (cat gives the window
		 * once, then EOF) */
		h->log->shift = start;
		pos = start;
	} else if (pos < start) {
		/* fell behind: a line that says so, then the oldest line */
		k = snprintf(line, sizeof line, "{\"dropped\":%" PRIu64 "}\n",
			     start - pos);
		if (!(h->log->rest = strdup(line))) {
			fuse_reply_err(req, ENOMEM);
			return;
		}
		h->log->rest_n = (size_t)k;
		h->log->rest_done = 0;
		h->log->rest_off = (uint64_t)off;
		h->log->shift = start - ((uint64_t)off + (uint64_t)k);
		h->log->pos = start;
		rest_read(h, req, size);
		return;
	}
	if (!(buf = malloc(size ? size : 1))) {
		fuse_reply_err(req, ENOMEM); /* not an EOF */
		return;
	}
	n = mcp_session_log(s, which, pos, buf, size, NULL, NULL);
	if (n && buf[n - 1] != '\n' &&
	    rest_keep(h, s, which, pos + n, (uint64_t)off + n) < 0) {
		free(buf);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	h->log->pos = pos + n + h->log->rest_n;
	fuse_reply_buf(req, buf, n);
	free(buf);
}

static void events_read(struct fh *h, fuse_req_t req, size_t size, off_t off)
{
	log_read(h, req, size, off, MCP_EVENTS);
}

static void trace_read(struct fh *h, fuse_req_t req, size_t size, off_t off)
{
	log_read(h, req, size, off, MCP_TRACE);
}

static void log_poll(struct fh *h, fuse_req_t req,
		     struct fuse_pollhandle *ph)
{
	mcp_session *s = fs_thread(h->thread_id);
	enum mcp_log which = log_of(h);
	uint64_t end = 0;

	if (s)
		mcp_session_log(s, which, 0, NULL, 0, NULL, &end);
	if (ph) {
		unwait(h);
		if (s) { /* a thread gone adds no more lines */
			h->log->ph = ph;
			LIST_INSERT_HEAD(&waiting, h->log, link);
		} else {
			fuse_pollhandle_destroy(ph);
		}
	}
	fuse_reply_poll(req, !s ? POLLIN | POLLRDNORM | POLLHUP
			: end > h->log->pos || h->log->rest ? POLLIN | POLLRDNORM
							: 0);
}

void fs_log_grew(uint64_t thread_id, enum mcp_log which)
{
	struct logfh *l, *next;
	struct fh *h;

	for (l = LIST_FIRST(&waiting); l; l = next) {
		next = LIST_NEXT(l, link);
		h = l->h;
		if (h->thread_id == thread_id && log_of(h) == which) {
			fuse_lowlevel_notify_poll(h->log->ph);
			unwait(h);
		}
	}
}

const struct file_ops events_ops = {.open = log_open, .read = events_read,
				    .release = log_release, .poll = log_poll};
const struct file_ops trace_ops = {.open = log_open, .read = trace_read,
				   .release = log_release, .poll = log_poll};
