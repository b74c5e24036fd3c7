/*
 * authfile.c - MOUNT/<server>/auth (spec 8), for url servers: reading it
 * gives the server's authorization state as one JSON object (a snapshot
 * at open), writing "login", "logout" or the final redirect URL from a
 * browser acts on it. The sessions side (auth.c, and the HTTP module)
 * does the work; every write is one verb.
 */
#include <errno.h>
#include <stdlib.h>

#include "fs.h"

static int authfile_open(struct fh *h, const struct node *n, int acc)
{
	h->snap = mcp_doc(MCP_DOC_AUTH, n->srv, 0);
	return h->snap ? 0 : -EIO;
}

static void authfile_write(struct fh *h, fuse_req_t req, const char *buf,
		       size_t size)
{
	mcp_server *srv = fs_server(h->server_id);
	int r = srv ? mcp_server_auth_write(srv, buf, size) : -ENOENT;

	if (r < 0)
		fuse_reply_err(req, -r);
	else
		fuse_reply_write(req, size);
}

const struct file_ops authfile_ops = {
	.open = authfile_open,
	.read = fs_read_snap,
	.write = authfile_write,
};
