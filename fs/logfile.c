/*
 * logfile.c - a thread's events and trace (spec 4): a window of the
 * session's log, read at the stream offset the file offset stands for.
 */
#include <errno.h>
#include <stdlib.h>

#include "fs.h"

static void log_read(struct fh *h, fuse_req_t req, size_t size, off_t off,
		     enum mcp_log which)
{
	mcp_session *s = mcp_session_by_id(h->session_id);
	char *buf = s ? malloc(size) : NULL;
	uint64_t pos = (uint64_t)off + h->ev_shift, start;
	size_t n = 0;

	/* a read from before the window starts at its oldest line, and
	 * this open file goes on from there: cat gives the window once,
	 * then EOF */
	if (buf) {
		start = mcp_session_log_start(s, which);
		if (pos < start) {
			h->ev_shift = start - (uint64_t)off;
			pos = start;
		}
		n = mcp_session_log_read(s, which, pos, buf, size);
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

const struct file_ops events_ops = {.read = events_read};
const struct file_ops trace_ops = {.read = trace_read};
