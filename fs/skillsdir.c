/*
 * skillsdir.c - skills/ of a thread (spec 15): the server's skills as
 * folders, skills/NAME/SKILL.md and the files of each skill in their
 * subfolders, from the skills listing (mcp_list MCP_SKILLS, the tree is
 * sessions/live/skills.c's). A file is read with resources/read at its
 * lookup (so that stat gives its size) and its bytes are kept with the
 * listing once they matched their digest; its open reads them (h->snap),
 * and a mismatch fails the open with EIO. An op that needs the listing or
 * the read waits for it (struct wait) and runs again once it is done.
 *
 * A directory or file below skills/ is numbered by its path relative to
 * skills/ ("NAME", "NAME/references/FORMS.md") in the session's table of
 * names for MCP_SKILLS, as tools/ numbers tool names. A server without
 * the extension, or whose skills/list fails, has an empty skills/ (the
 * failure is in the thread's status, "unsupported").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

enum { W_LOOKUP, W_OPENDIR, W_OPEN };

/* An op waiting for the skills listing or a file's read (c). */
struct wait {
	struct mcp_listener lis;
	int op;
	fuse_req_t req;
	fuse_ino_t ino;          /* the directory (lookup), or the node */
	struct fh *h;
	struct fuse_file_info fi;
	mcp_call *c;
	mcp_call *read;          /* W_OPEN: the file's resources/read, done */
	char name[];
};

static void run(struct wait *w);

static void wait_free(struct wait *w)
{
	mcp_listener_remove(&w->lis);
	mcp_call_unref(w->c);
	mcp_call_unref(w->read);
	free(w);
}

/* The op of w failed with err: its reply. */
static void fail(struct wait *w, int err)
{
	if (w->op == W_OPEN) {
		fs_open_fail(w->req, w->h, err);
	} else {
		if (w->h)
			fs_fh_free(w->h);
		fuse_reply_err(w->req, err);
	}
	wait_free(w);
}

static void waited(struct mcp_listener *l, mcp_call *c)
{
	run((struct wait *)l);
}

static void interrupted(fuse_req_t req, void *data)
{
	struct wait *w = data;

	mcp_listener_remove(&w->lis);
	if (w->op == W_OPEN && w->read && w->c == w->read)
		mcp_call_cancel(w->c); /* the read of that file */
	fail(w, EINTR);
}

/* w waits for c (taken) and runs again then. */
static void wait_for(struct wait *w, mcp_call *c)
{
	mcp_call_unref(w->c);
	w->c = c;
	if (mcp_call_is_done(c)) {
		run(w);
		return;
	}
	w->lis.done = waited;
	mcp_call_listen(c, &w->lis);
	fuse_req_interrupt_func(w->req, interrupted, w);
}

static struct wait *wait_new(int op, fuse_req_t req, fuse_ino_t ino,
			     struct fh *h, struct fuse_file_info *fi,
			     const char *name)
{
	struct wait *w = calloc(1, sizeof *w + (name ? strlen(name) : 0) + 1);

	if (!w) {
		if (op == W_OPEN) {
			fs_open_fail(req, h, ENOMEM);
		} else {
			if (h)
				fs_fh_free(h);
			fuse_reply_err(req, ENOMEM);
		}
		return NULL;
	}
	w->op = op;
	w->req = req;
	w->ino = ino;
	w->h = h;
	if (fi)
		w->fi = *fi;
	if (name)
		strcpy(w->name, name);
	return w;
}

/* The path below skills/ of node n ("" for skills/ itself), or NULL when
 * it is no longer known. */
static const char *path_of(const struct node *n)
{
	return KIND_IS(n->kind, KF_INDEXED)
		       ? mcp_name_at(n->s, MCP_SKILLS, n->idx) : "";
}

/* The done skills listing of n's session in *c (a reference): 1, or 0
 * after w was made to wait for it, or -errno. */
static int listing(struct wait *w, const struct node *n, mcp_call **c)
{
	int r = mcp_list(mcp_session_server(n->s), n->s, MCP_SKILLS, c);

	if (r < 0)
		return r;
	if (!mcp_call_is_done(*c)) {
		wait_for(w, *c);
		return 0;
	}
	return 1;
}

/* ---- a file's bytes: read once, checked against the digest ---- */

/* The bytes of file path of n's session (c its done skills listing): 1
 * with *b (NULL when they could not be had: *err), or 0 after w was made
 * to wait for their read (w may be gone then). */
static int file_bytes(struct wait *w, const struct node *n, mcp_call *c,
		      const char *path, mcp_buf **b, int *err)
{
	const char *uri;
	mcp_call *rc;

	*err = 0;
	if ((*b = mcp_skill_cached(n->s, c, path)) != NULL)
		return 1;
	if (w->read) { /* it was read: checked (and kept) now */
		*b = mcp_skill_bytes(n->s, c, path, mcp_call_reply(w->read),
				     err);
		if (!*b)
			mlog(MLOG_INFO, "skills/%s cannot be read: %s", path,
			     *err == -EIO ? "it does not match its digest, or "
			     "the server failed to read it (see status)"
			     : strerror(-*err));
		return 1;
	}
	uri = mcp_skill_uri(n->s, c, path);
	*err = uri ? mcp_resource_read(n->s, uri, &rc) : -ENOENT;
	if (*err < 0)
		return 1;
	w->read = mcp_call_ref(rc);
	wait_for(w, rc);
	return 0;
}

/* ---- lookup ---- */

static void lookup(struct wait *w, const struct node *d)
{
	const char *dir = path_of(d);
	char *path = NULL;
	mcp_call *c;
	mcp_buf *b = NULL;
	struct node n;
	fuse_ino_t ino = 0;
	long idx = -1;
	int r = dir ? listing(w, d, &c) : -ENOENT, st, err;

	if (r == 0)
		return;
	if (r < 0) {
		fail(w, -r);
		return;
	}
	if (asprintf(&path, "%s%s%s", dir, *dir ? "/" : "", w->name) < 0)
		path = NULL;
	st = path ? mcp_skill_stat(d->s, c, path) : -ENOMEM;
	/* a file is read first, so that its size is known (tar reads as
	 * many bytes as stat says); one that cannot be read is there all the
	 * same, its open says why */
	if (st == MCP_SKILL_FILE && !file_bytes(w, d, c, path, &b, &err)) {
		mcp_call_unref(c);
		free(path);
		return;
	}
	mcp_buf_unref(b);
	mcp_call_unref(c);
	if (st > 0)
		idx = mcp_name_intern(d->s, MCP_SKILLS, path);
	if (idx >= 0)
		ino = ino_make(mcp_session_id(d->s), (unsigned long)idx,
			       st == MCP_SKILL_DIR ? K_SKILLDIR : K_SKILLFILE);
	free(path);
	if (st < 0 || !ino || fs_resolve(ino, &n) < 0) {
		fail(w, st < 0 ? -st : ENOENT);
		return;
	}
	fs_reply_entry(w->req, ino, &n);
	wait_free(w);
}

/* ---- opendir ---- */

struct fill {
	struct wait *w;
	const struct node *d;
	const char *dir;
};

static void add_entry(void *ctx, const char *name, size_t len, int isdir)
{
	struct fill *f = ctx;
	char *path = NULL, *file = strndup(name, len);
	long idx = -1;

	if (file && asprintf(&path, "%s%s%s", f->dir, *f->dir ? "/" : "",
			     file) >= 0)
		idx = mcp_name_intern(f->d->s, MCP_SKILLS, path);
	else
		path = NULL;
	if (idx >= 0)
		fs_dir_add(f->w->h, f->w->req, file,
			   ino_make(mcp_session_id(f->d->s),
				    (unsigned long)idx,
				    isdir ? K_SKILLDIR : K_SKILLFILE), isdir);
	free(path);
	free(file);
}

static void opendir_(struct wait *w, const struct node *d)
{
	struct fill f = {w, d, path_of(d)};
	mcp_call *c;
	int r = f.dir ? listing(w, d, &c) : -ENOENT;

	if (r == 0)
		return;
	if (r < 0) {
		fail(w, -r);
		return;
	}
	r = mcp_skill_list(d->s, c, f.dir, add_entry, &f);
	mcp_call_unref(c);
	if (r < 0) {
		fail(w, -r);
		return;
	}
	fs_dir_reply(w->req, w->h, &w->fi);
	wait_free(w);
}

/* ---- open: the file's bytes, read at its lookup or now ---- */

static void open_(struct wait *w, const struct node *n)
{
	const char *path = path_of(n);
	mcp_call *c;
	int r = path ? listing(w, n, &c) : -ENOENT, err;

	if (r == 0)
		return;
	if (r < 0) {
		fail(w, -r);
		return;
	}
	r = file_bytes(w, n, c, path, &w->h->snap, &err);
	mcp_call_unref(c);
	if (r == 0)
		return;
	if (!w->h->snap) {
		fail(w, err ? -err : EIO);
		return;
	}
	fuse_reply_open(w->req, &w->fi);
	wait_free(w);
}

static void run(struct wait *w)
{
	struct node n;

	if (fs_resolve(w->ino, &n) < 0 || !n.s) {
		fail(w, ENOENT);
		return;
	}
	if (w->op == W_LOOKUP)
		lookup(w, &n);
	else if (w->op == W_OPENDIR)
		opendir_(w, &n);
	else
		open_(w, &n);
}

static void skills_lookup(fuse_req_t req, fuse_ino_t parent,
			  const struct node *d, const char *name)
{
	struct wait *w = wait_new(W_LOOKUP, req, parent, NULL, NULL, name);

	if (w)
		run(w);
}

static void skills_opendir(fuse_req_t req, fuse_ino_t ino,
			   const struct node *d, struct fh *h,
			   struct fuse_file_info *fi)
{
	struct wait *w = wait_new(W_OPENDIR, req, ino, h, fi, NULL);

	if (w)
		run(w);
}

/* as a thread's files: removes nothing, so that rm -r of it works */
static void skills_unlink(fuse_req_t req, const struct node *d,
			  const char *name)
{
	fuse_reply_err(req, 0);
}

static void skills_rmdir(fuse_req_t req, const struct node *d,
			 const char *name)
{
	fuse_reply_err(req, 0);
}

const struct dir_ops skills_dir = {
	.lookup = skills_lookup,
	.opendir = skills_opendir,
	.rmdir = skills_rmdir,
	.unlink = skills_unlink,
};

static void skill_open(fuse_req_t req, fuse_ino_t ino, struct fh *h,
		       struct fuse_file_info *fi)
{
	struct wait *w = wait_new(W_OPEN, req, ino, h, fi, NULL);

	if (w)
		run(w);
}

const struct file_ops skillfile_ops = {
	.open_reply = skill_open,
	.read = fs_read_snap,
};
