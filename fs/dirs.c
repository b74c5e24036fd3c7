/*
 * dirs.c - the directories whose entries are not a listing's: the mount's
 * root (its files and the servers), a server directory (its files and its
 * threads), a thread directory (its files), and the directories whose
 * entries the session names and numbers (requests/, tasks/). Each is a
 * struct dir_ops that fs_dir (kinds.c) hands to the ops of fs.c; the
 * listing directories are listing.c's (listing_dir).
 */
#include <errno.h>
#include <string.h>

#include "fs.h"
#include "writers.h"

/* The kind named name among those with flag (KF_ROOT, KF_SERVER or
 * KF_THREAD), or -1. */
static int kind_named(const char *name, unsigned flag)
{
	size_t k;

	for (k = 0; k < K_NKINDS; k++)
		if (KIND_IS(k, flag) && !strcmp(name, fs_kinds[k].name))
			return (int)k;
	return -1;
}

/* The entry ino, or ENOENT when it is 0 or no longer resolves. */
static void reply_entry(fuse_req_t req, fuse_ino_t ino)
{
	struct node n;

	if (!ino || fs_resolve(ino, &n) < 0)
		fuse_reply_err(req, ENOENT);
	else
		fs_reply_entry(req, ino, &n);
}

/* The files of kind flag that are there, each at ino(id, kind). */
static void add_files(struct fh *h, fuse_req_t req, unsigned flag,
		      uint64_t id)
{
	struct node e;
	size_t k;

	for (k = 0; k < K_NKINDS; k++) {
		fuse_ino_t ino = flag == KF_ROOT ? fs_kinds[k].ino
						 : fs_ino(id, (enum kind)k);

		if (KIND_IS(k, flag) && fs_resolve(ino, &e) == 0)
			fs_dir_add(h, req, fs_kinds[k].name, ino,
				   KIND_IS(k, KF_DIR));
	}
}

/* ---- the root: .status, README.md, .serve.json and the servers ---- */

static void root_lookup(fuse_req_t req, fuse_ino_t parent,
			const struct node *d, const char *name)
{
	int k = kind_named(name, KF_ROOT);
	struct mcp_stat st;

	if (k >= 0)
		reply_entry(req, fs_kinds[k].ino); /* if not present: ENOENT */
	else if (mcp_walk(0, name, &st) == 0)
		reply_entry(req, fs_ino(st.id, K_DIR));
	else
		fuse_reply_err(req, ENOENT);
}

static void root_opendir(fuse_req_t req, fuse_ino_t ino,
			 const struct node *d, struct fh *h,
			 struct fuse_file_info *fi)
{
	struct mcp_stat st = { 0 };

	add_files(h, req, KF_ROOT, 0);
	while (mcp_next(0, st.id, &st) == 0)
		fs_dir_add(h, req, st.name, fs_ino(st.id, K_DIR), 1);
	fs_dir_reply(req, h, fi);
}

static void root_mkdir(fuse_req_t req, const struct node *d,
		       const char *name)
{
	struct mcp_stat st;

	fuse_reply_err(req, mcp_walk(0, name, &st) == 0 ? EEXIST : EPERM);
}

static void root_rmdir(fuse_req_t req, const struct node *d,
		       const char *name)
{
	struct mcp_stat st;
	int there = mcp_walk(0, name, &st) == 0;

	if (there)
		mlog(MLOG_INFO, "rmdir %s refused: a server directory comes "
		     "from the config (remove or disable the server there)",
		     name);
	fuse_reply_err(req, there ? EPERM : ENOENT);
}

const struct dir_ops root_dir = {
	.lookup = root_lookup,
	.opendir = root_opendir,
	.mkdir = root_mkdir,
	.rmdir = root_rmdir,
};

/* ---- a server: call, tools.json, help/, auth, and its threads ---- */

static void server_lookup(fuse_req_t req, fuse_ino_t parent,
			  const struct node *d, const char *name)
{
	int k = kind_named(name, KF_SERVER);
	mcp_call *c;
	struct mcp_stat st;

	/* help/, listed next: start the server's probe (spec 12) now and do
	 * not wait, so that the probes of `ls MOUNT/x/help MOUNT/y/help`
	 * run side by side rather than one after the other */
	if (k >= 0 && KIND_IS(k, KF_LISTING) && KIND_IS(k, KF_DIR) &&
	    !mcp_list_cached(d->srv, NULL, MCP_TOOLS) &&
	    mcp_list(d->srv, NULL, MCP_TOOLS, &c) == 0)
		mcp_call_unref(c);
	if (k >= 0)
		reply_entry(req, fs_ino(d->st.id, (enum kind)k));
	else if (mcp_walk(d->st.id, name, &st) == 0)
		reply_entry(req, fs_ino(st.id, K_DIR));
	else
		fuse_reply_err(req, ENOENT);
}

static void server_opendir(fuse_req_t req, fuse_ino_t ino,
			   const struct node *d, struct fh *h,
			   struct fuse_file_info *fi)
{
	struct mcp_stat st = { 0 };

	add_files(h, req, KF_SERVER, d->st.id);
	while (mcp_next(d->st.id, st.id, &st) == 0)
		fs_dir_add(h, req, st.name, fs_ino(st.id, K_DIR), 1);
	fs_dir_reply(req, h, fi);
}

static void server_mkdir(fuse_req_t req, const struct node *d,
			 const char *name)
{
	struct mcp_stat st;
	int r;

	/* the name's rule (help, auth, a dot name, ...) is the core's,
	 * mcp_thread_name_check, which serve's --thread keeps too */
	r = mcp_session_create(d->srv, name, &st);
	if (r < 0) {
		if (r == -EINVAL)
			mlog(MLOG_INFO, "mkdir refused: bad thread name");
		fuse_reply_err(req, -r);
		return;
	}
	reply_entry(req, fs_ino(st.id, K_DIR));
}

static void server_rmdir(fuse_req_t req, const struct node *d,
			 const char *name)
{
	struct mcp_stat st;
	int k;

	if (mcp_walk(d->st.id, name, &st) < 0) {
		k = kind_named(name, KF_SERVER);
		fuse_reply_err(req, k < 0 ? ENOENT
				    : KIND_IS(k, KF_DIR) ? EPERM : ENOTDIR);
		return;
	}
	mcp_session_close(st.session);
	writers_sweep();
	fuse_reply_err(req, 0);
}

static void server_unlink(fuse_req_t req, const struct node *d,
			  const char *name)
{
	if (kind_named(name, KF_SERVER) >= 0)
		mlog(MLOG_INFO, "unlink %s/%s refused: the files of a server "
		     "directory cannot be removed", d->st.name,
		     name);
	fuse_reply_err(req, EPERM);
}

const struct dir_ops server_dir = {
	.lookup = server_lookup,
	.opendir = server_opendir,
	.mkdir = server_mkdir,
	.rmdir = server_rmdir,
	.unlink = server_unlink,
};

/* ---- a thread: its files and directories ---- */

static void thread_lookup(fuse_req_t req, fuse_ino_t parent,
			  const struct node *d, const char *name)
{
	int k = kind_named(name, KF_THREAD);

	if (k >= 0)
		reply_entry(req, fs_ino(d->st.id, (enum kind)k));
	else
		fuse_reply_err(req, ENOENT);
}

static void thread_opendir(fuse_req_t req, fuse_ino_t ino,
			   const struct node *d, struct fh *h,
			   struct fuse_file_info *fi)
{
	add_files(h, req, KF_THREAD, d->st.id);
	fs_dir_reply(req, h, fi);
}

/*
 * Unlinking a file of a thread directory (or of its tools/, result/,
 * resources/, prompts/, requests/ and tasks/) succeeds and removes
 * nothing: the files live as long as the thread (a question stays open:
 * rm answers nothing; a task runs on). GNU rm -r unlinks every file of a
 * directory first and skips the rmdir of one whose files it could not
 * remove, so EPERM here would make rm -r of a thread fail and leave it
 * running. Every other unlink is EPERM.
 */
static void thread_unlink(fuse_req_t req, const struct node *d,
			  const char *name)
{
	if (kind_named(name, KF_THREAD) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	mlog(MLOG_DEBUG, "unlink %s/%s: accepted, nothing removed (rmdir "
	     "closes a thread)", d->st.name, name);
	fuse_reply_err(req, 0);
}

static void thread_rmdir(fuse_req_t req, const struct node *d,
			 const char *name)
{
	int k = kind_named(name, KF_THREAD);

	/* as unlink of its files: rm -r */
	fuse_reply_err(req, k >= 0 && KIND_IS(k, KF_DIR) ? 0 : ENOTDIR);
}

const struct dir_ops thread_dir = {
	.lookup = thread_lookup,
	.opendir = thread_opendir,
	.rmdir = thread_rmdir,
	.unlink = thread_unlink,
};

/* ---- requests/ and tasks/: entries the session names and numbers ---- */

static void numbered_lookup(fuse_req_t req, fuse_ino_t parent,
			    const struct node *d, const char *name)
{
	unsigned long i = fs_kinds[d->kind].find(d, name);

	reply_entry(req, i ? ino_make(d->st.id, i,
				      fs_kinds[d->kind].child) : 0);
}

static void numbered_opendir(fuse_req_t req, fuse_ino_t ino,
			     const struct node *d, struct fh *h,
			     struct fuse_file_info *fi)
{
	unsigned long i = 0;
	const char *name;

	while ((name = fs_kinds[d->kind].next(d, &i)) != NULL)
		fs_dir_add(h, req, name, ino_make(d->st.id, i,
						  fs_kinds[d->kind].child), 0);
	fs_dir_reply(req, h, fi);
}

/* as a thread's files: a question stays open, a task runs on (ctl cancel
 * ends it) */
static void numbered_unlink(fuse_req_t req, const struct node *d,
			    const char *name)
{
	fuse_reply_err(req, fs_kinds[d->kind].find(d, name) ? 0 : ENOENT);
}

const struct dir_ops numbered_dir = {
	.lookup = numbered_lookup,
	.opendir = numbered_opendir,
	.unlink = numbered_unlink,
};
