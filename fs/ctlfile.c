/*
 * ctlfile.c - a thread's ctl: every write is one verb for the session
 * (cancel, restart, close, subscribe, unsubscribe); reading it gives
 * nothing.
 */
#include <errno.h>

#include "fs.h"

static void ctl_write(struct fh *h, fuse_req_t req, const char *buf,
		      size_t size)
{
	mcp_session *s = fs_thread(h->session_id);
	int r = s ? mcp_session_ctl(s, buf, size) : -ENOENT;

	if (r == -EINVAL) /* and in status.last_error */
		mlog(MLOG_INFO, "ctl: unknown verb (want cancel, restart, "
		     "close, subscribe or unsubscribe)");
	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_write(req, size);
}

const struct file_ops ctl_ops = {.write = ctl_write};
