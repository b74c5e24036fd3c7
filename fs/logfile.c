/*
 * logfile.c - a thread's events and trace (spec 4): a window of the
 * session's log, read at the stream offset the file offset stands for.
 * poll(2) on one is readable while the log holds bytes past what that
 * open file has read; a poll that waits is woken when a line is added
 * (spec 15: inotify cannot see FUSE files, poll and tail -f can).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#include "fs.h"

static LIST_HEAD(, fh) waiting = LIST_HEAD_INITIALIZER(waiting);

static void unwait(struct fh *h)
{
	if (!h->ph)
		return;
	LIST_REMOVE(h, plink);
	fuse_pollhandle_destroy(h->ph);
	h->ph = NULL;
}

static enum mcp_log log_of(const struct fh *h)
{
	return h->ops == &trace_ops ? MCP_TRACE : MCP_EVENTS;
}

static void log_read(struct fh *h, fuse_req_t req, size_t size, off_t off,
		     enum mcp_log which)
{
	mcp_session *s = fs_thread(h->session_id);
	char *buf = s ? malloc(size) : NULL;
	uint64_t pos = (uint64_t)off + h->ev_shift, start;
	size_t n = 0;

	/* a read from before the window starts at its oldest line, and
	 * this open file goes on from there: cat gives the window once,
	 * then EOF */
	if (buf) {
		mcp_session_log(s, which, 0, NULL, 0, &start, NULL);
		if (pos < start) {
			h->ev_shift = start - (uint64_t)off;
			pos = start;
		}
		n = mcp_session_log(s, which, pos, buf, size, NULL, NULL);
		h->ev_pos = pos + n;
	}
	if (s && !buf)
		fuse_reply_err(req, ENOMEM); /* not an EOF */
	else
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
	mcp_session *s = fs_thread(h->session_id);
	enum mcp_log which = log_of(h);
	uint64_t end = 0;

	if (s)
		mcp_session_log(s, which, 0, NULL, 0, NULL, &end);
	if (ph) {
		unwait(h);
		if (s) { /* a thread gone adds no more lines */
			h->ph = ph;
			LIST_INSERT_HEAD(&waiting, h, plink);
		} else {
			fuse_pollhandle_destroy(ph);
		}
	}
	fuse_reply_poll(req, !s ? POLLIN | POLLRDNORM | POLLHUP
			: end > h->ev_pos ? POLLIN | POLLRDNORM : 0);
}

void fs_log_grew(uint64_t thread_id, enum mcp_log which)
{
	struct fh *h, *next;

	for (h = LIST_FIRST(&waiting); h; h = next) {
		next = LIST_NEXT(h, plink);
		if (h->session_id == thread_id && log_of(h) == which) {
			fuse_lowlevel_notify_poll(h->ph);
			unwait(h);
		}
	}
}

const struct file_ops events_ops = {.read = events_read, .release = unwait,
				    .poll = log_poll};
const struct file_ops trace_ops = {.read = trace_read, .release = unwait,
				   .poll = log_poll};
