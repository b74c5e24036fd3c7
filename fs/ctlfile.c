/*
 * ctlfile.c - a thread's ctl: every write is one verb for the session
 * (cancel, restart, close, subscribe, unsubscribe); reading it gives
 * nothing.
 *
 * A subscribe or unsubscribe line is never cut (spec 6): one written
 * without its newline is held until the file is closed (flush, whose
 * error close(2) returns) and run then, so that a line the kernel or dd
 * splits into several writes is seen whole: a write that continues a held
 * line is EINVAL, the line is dropped, and every later write of that open
 * file is EINVAL too (nothing of it is run). A line ended by its newline
 * runs at its write, as every other verb does.
 */
#include <errno.h>
#include <string.h>

#include "fs.h"

static int is_sub(const char *buf, size_t size)
{
	return (size >= 10 && !memcmp(buf, "subscribe ", 10)) ||
	       (size >= 12 && !memcmp(buf, "unsubscribe ", 12));
}

static int run(struct fh *h, const char *buf, size_t size)
{
	mcp_session *s = fs_thread(h->thread_id);
	int r = s ? mcp_session_ctl(s, buf, size) : -ENOENT;

	if (r == -EINVAL && is_sub(buf, size))
		mlog(MLOG_INFO, "ctl: %.*s refused (see the thread's "
		     "status.last_error)", buf[0] == 's' ? 9 : 11, buf);
	else if (r == -EINVAL) /* and in status.last_error */
		mlog(MLOG_INFO, "ctl: unknown verb (want cancel, restart, "
		     "close, subscribe or unsubscribe)");
	return r;
}

static void ctl_write(struct fh *h, fuse_req_t req, const char *buf,
		      size_t size)
{
	int r;

	if (h->line.p || h->line.oom) { /* a line in several writes */
		if (h->line.p)
			mlog(MLOG_INFO, "ctl: a %s line longer than one write "
			     "refused (nothing of it is run)",
			     h->line.p[0] == 's' ? "subscribe"
						 : "unsubscribe");
		gbuf_free(&h->line);
		h->line.oom = 1; /* this open file takes no more */
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (size && buf[size - 1] != '\n' && is_sub(buf, size)) {
		if (gbuf_add(&h->line, buf, size) < 0) {
			gbuf_free(&h->line);
			fuse_reply_err(req, ENOMEM);
			return;
		}
		fuse_reply_write(req, size); /* run at its close */
		return;
	}
	r = run(h, buf, size);
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_write(req, size);
}

/* the held line, run now: its error is close(2)'s */
static int ctl_held(struct fh *h)
{
	int r = 0;

	if (h->line.p)
		r = run(h, h->line.p, h->line.len);
	gbuf_free(&h->line);
	return r;
}

static void ctl_flush(struct fh *h, fuse_req_t req)
{
	int oom = h->line.oom, r = ctl_held(h);

	h->line.oom = oom;
	fuse_reply_err(req, r < 0 ? -r : 0);
}

/* the kernel flushes at every close before the release: a line still
 * held here (mcpfs exiting) is dropped */
static void ctl_release(struct fh *h)
{
	gbuf_free(&h->line);
}

const struct file_ops ctl_ops = {.write = ctl_write, .flush = ctl_flush,
				 .release = ctl_release};
