/*
 * skillsdir.c - skills/ of a thread (spec 15): the server's skills as
 * folders, skills/NAME/SKILL.md and the files of each skill in their
 * subfolders, from the skills listing (mcp_list MCP_SKILLS, the tree is
 * sessions/live/skills.c's). skills/, its folders and its files are kinds
 * of listing.c (their struct listing_ops are here): a step that needs the
 * listing or a file's read waits for it there and runs again once it is
 * done. A file's size is the listing's (stat needs no read: tar reads as
 * many bytes as stat says, and `ls -l` of 100,000 files asks the server
 * nothing); it is read with resources/read at its open and its bytes are
 * kept with the listing once they matched their size and digest; a
 * mismatch fails the open with EIO. A dynamic skill's SKILL.md, which has
 * no listed size, is read at its lookup for it.
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

/* The path below skills/ of node n ("" for skills/ itself), or NULL when
 * it is no longer known. */
static const char *path_of(const struct node *n)
{
	return KIND_IS(n->kind, KF_INDEXED)
		       ? mcp_name_at(n->s, MCP_SKILLS, n->idx) : "";
}

/* The skills listing of n's session in *c, as listing_need: 1 done, 0
 * waiting for it (*wait), -errno. */
static int skills(const struct node *n, mcp_call **got, mcp_call **c,
		  mcp_call **wait)
{
	int r = listing_need(n, MCP_SKILLS, got, c);

	if (r == 0)
		*wait = *c;
	return r;
}

/* The bytes of file path of n's session (c its done skills listing;
 * have: what the step waited for, the file's read unless it is c): 1 with
 * *b (NULL when they could not be had: *err), or 0 waiting for their read
 * (*wait). */
static int file_bytes(const struct node *n, mcp_call *c, const char *path,
		      mcp_call *have, mcp_buf **b, int *err, mcp_call **wait)
{
	const char *uri;

	*err = 0;
	if ((*b = mcp_skill_cached(n->s, c, path)) != NULL)
		return 1;
	if (have && have != c) { /* it was read: checked (and kept) now */
		*b = mcp_skill_bytes(n->s, c, path, mcp_call_reply(have), err);
		if (!*b)
			mlog(MLOG_INFO, "skills/%s cannot be read: %s", path,
			     *err == -EIO ? "it does not match its digest, or "
			     "the server failed to read it (see status)"
			     : strerror(-*err));
		return 1;
	}
	uri = mcp_skill_uri(n->s, c, path);
	*err = uri ? mcp_resource_read(n->s, uri, wait) : -ENOENT;
	return *err < 0;
}

/* skills/ or a folder: entry name, a folder or a file (read first) */
static int skill_entry(const struct node *d, const char *name,
		       mcp_call *have, mcp_call **got, mcp_call **wait,
		       long *idx, enum kind *child)
{
	const char *dir = path_of(d);
	char *path = NULL;
	mcp_call *c;
	mcp_buf *b = NULL;
	int r = dir ? skills(d, got, &c, wait) : -ENOENT, st, err;

	*idx = -1;
	if (r <= 0)
		return r;
	if (asprintf(&path, "%s%s%s", dir, *dir ? "/" : "", name) < 0)
		path = NULL;
	st = path ? mcp_skill_stat(d->s, c, path) : -ENOMEM;
	/* a dynamic SKILL.md is read now, for its size; one that cannot be
	 * read is there all the same, its open says why */
	if (st == MCP_SKILL_FILE && mcp_skill_size(d->s, c, path) < 0 &&
	    !file_bytes(d, c, path, have, &b, &err, wait)) {
		mcp_call_unref(c);
		free(path);
		return 0;
	}
	mcp_buf_unref(b);
	mcp_call_unref(c);
	if (st > 0)
		*idx = mcp_name_intern(d->s, MCP_SKILLS, path);
	*child = st == MCP_SKILL_DIR ? K_SKILLDIR : K_SKILLFILE;
	free(path);
	return st < 0 ? st : 1;
}

/* The entries of h's folder that fit below upto bytes of h->dir (a
 * readdir's), from h->list_at on, each given the inode of its path. The
 * kernel reads a folder a buffer at a time, so that a folder of 100,000
 * entries is added to in as many parts, each as long as the part. */
static int skill_more(struct fh *h, fuse_req_t req, size_t upto)
{
	struct mcp_skill_ent e;
	mcp_session *s;
	long next, idx;

	while (h->list_at >= 0 && h->dir.len < upto) {
		next = mcp_skill_next(h->list, h->list_at, &e);
		idx = e.idx;
		if (idx < 0 && (s = fs_thread(h->list_dir)) != NULL)
			idx = mcp_name_intern(s, MCP_SKILLS, e.path);
		if (idx >= 0 &&
		    fs_dir_add(h, req, e.name, ino_make(h->list_dir,
				(unsigned long)idx, e.isdir ? K_SKILLDIR
							   : K_SKILLFILE),
			       e.isdir) < 0)
			return -ENOMEM; /* this entry at the next readdir */
		h->list_at = next;
	}
	return 0;
}

static int skill_fill(fuse_req_t req, const struct node *d, struct fh *h,
		      mcp_call **got, mcp_call **wait)
{
	const char *dir = path_of(d);
	mcp_call *c;
	int r = dir ? skills(d, got, &c, wait) : -ENOENT;

	if (r <= 0)
		return r;
	r = mcp_skill_first(d->s, c, dir, &h->list_at);
	if (r < 0) {
		mcp_call_unref(c);
		return r;
	}
	h->list = c; /* the reference: its tree lives while h is open */
	h->list_dir = d->st.id;
	h->more = skill_more;
	return 1;
}

/* a file: its bytes, read at its lookup or now */
static int skill_open(const struct node *n, struct fh *h,
		      struct fuse_file_info *fi, mcp_call *have,
		      mcp_call **got, mcp_call **wait)
{
	const char *path = path_of(n);
	mcp_call *c;
	int r = path ? skills(n, got, &c, wait) : -ENOENT, err;

	if (r <= 0)
		return r;
	r = file_bytes(n, c, path, have, &h->snap, &err, wait);
	mcp_call_unref(c);
	if (r == 0)
		return 0;
	return h->snap ? 1 : err ? err : -EIO;
}

const struct listing_ops skilldir_lops = {.entry = skill_entry,
					  .fill = skill_fill};
const struct listing_ops skillfile_lops = {.open = skill_open, .cancel = 1};
