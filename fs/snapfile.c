/*
 * snapfile.c - the files whose content is made whole at their open and
 * read from memory: .status, README.md and .serve.json at the root, a
 * thread's status and stderr (fs_kinds[k].snap makes it). A read of any
 * file holding a snapshot (h->snap) is fs_read_snap.
 */
#include <errno.h>

#include "fs.h"

void fs_read_snap(struct fh *h, fuse_req_t req, size_t size, off_t off)
{
	size_t len = h->snap ? h->snap->len : 0;

	if ((size_t)off >= len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, h->snap->data + off,
			       len - (size_t)off < size ? len - (size_t)off
							: size);
}

/* an empty file would be a silent error: no snapshot is ENOMEM */
static int snap_open(struct fh *h, const struct node *n, int acc)
{
	h->snap = fs_kinds[n->kind].snap(n);
	return h->snap ? 0 : -ENOMEM;
}

const struct file_ops snap_ops = {
	.open = snap_open,
	.read = fs_read_snap,
};
