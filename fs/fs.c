/*
 * fs.c - the mcpfs tree on the libfuse low-level API: the ops.
 *
 *   MOUNT/.status, MOUNT/README.md, MOUNT/<server>/{call,tools.json,help/},
 *   MOUNT/<server>/<thread>/{call,status,tools.json,stderr,events,ctl},
 *   and in each thread tools/, result/, resources/, prompts/, help/ and
 *   their .json files, which listing.c serves.
 *
 * Nodes and inode numbers are node.c's; what each kind of file may do
 * (its name, whether it is a directory, writable, sized, a listing) is
 * the table fs_kinds there, which every op asks. Every handler ends in exactly one
 * fuse_reply_*; reads of call and tools.json may park their request and
 * reply later (callfile.c), and so may lookups, opens and listings that
 * wait for a listing (listing.c).
 */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "gbuf.h"
#include "writers.h"

/* The mounted session (the loop thread's alone: NULL before the mount and
 * from the shutdown on). */
static struct fuse_session *fse;

/* The kind named name in a directory whose entries have flag (KF_SERVER
 * or KF_THREAD), or K_DIR when none is. */
static enum kind kind_named(const char *name, unsigned flag)
{
	size_t k;

	for (k = 0; k < K_NKINDS; k++)
		if (KIND_IS(k, flag) && !strcmp(name, fs_kinds[k].name))
			return (enum kind)k;
	return K_DIR;
}

static void op_init(void *ud, struct fuse_conn_info *conn)
{
	node_mount_time((double)time(NULL));
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	/* 1 MiB requests (FUSE_MAX_PAGES) for big replies and requests */
	conn->max_write = 1u << 20;
	conn->max_read = 0;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node p, n;
	fuse_ino_t ino = 0;
	size_t k;

	if (fs_resolve(parent, &p) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (p.type == N_ROOT) {
		if ((k = kind_named(name, KF_ROOT)) != K_DIR) {
			ino = fs_kinds[k].ino; /* if not present: ENOENT */
		} else if ((n.srv = mcp_server_find(name)) != NULL) {
			ino = fs_ino(mcp_server_id(n.srv), K_DIR);
		}
	} else if (p.type == N_SERVER && p.kind == K_DIR) {
		mcp_session *s;

		if ((k = kind_named(name, KF_SERVER)) == K_HELPDIR)
			mcp_probe(p.srv); /* listed next: start it now */
		if (k != K_DIR)
			ino = fs_ino(mcp_server_id(p.srv), k);
		else if ((s = mcp_session_find(p.srv, name)) != NULL)
			ino = fs_ino(mcp_session_id(s), K_DIR);
	} else if (p.type == N_SESSION && p.kind == K_DIR) {
		if ((k = kind_named(name, KF_THREAD)) != K_DIR)
			ino = fs_ino(mcp_session_id(p.s), k);
	} else if (p.type == N_SESSION && fs_kinds[p.kind].find) {
		unsigned long i = fs_kinds[p.kind].find(&p, name);

		if (i)
			ino = ino_make(mcp_session_id(p.s), i,
				       fs_kinds[p.kind].child);
	} else if (p.type >= N_SERVER && KIND_IS(p.kind, KF_LISTING) &&
		   KIND_IS(p.kind, KF_DIR)) {
		listing_lookup(req, parent, name);
		return;
	}
	if (!ino || fs_resolve(ino, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fs_reply_entry(req, ino, &n);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct node n;
	struct stat st;

	if (fs_resolve(ino, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	node_attr(ino, &n, &st);
	fuse_reply_attr(req, &st, 0);
}

/* Only truncation of the writable files (O_TRUNC) is accepted. */
static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct node n;
	struct stat st;
	int trunc_only = to_set == FUSE_SET_ATTR_SIZE ||
			 (to_set & ~(FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_MTIME |
				     FUSE_SET_ATTR_MTIME_NOW |
				     FUSE_SET_ATTR_CTIME)) == 0;

	if (fs_resolve(ino, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (!(to_set & FUSE_SET_ATTR_SIZE) || !trunc_only || attr->st_size ||
	    n.type < N_SERVER || !KIND_IS(n.kind, KF_WRITE)) {
		fuse_reply_err(req, EPERM);
		return;
	}
	node_attr(ino, &n, &st);
	fuse_reply_attr(req, &st, 0);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	struct node p, n;
	mcp_session *s;
	int r;

	if (fs_resolve(parent, &p) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (p.type != N_SERVER || p.kind != K_DIR) {
		fuse_reply_err(req, p.type == N_ROOT &&
				    mcp_server_find(name) ? EEXIST : EPERM);
		return;
	}
	if (kind_named(name, KF_SERVER) != K_DIR) { /* help, auth, ... */
		fuse_reply_err(req, EEXIST);
		return;
	}
	r = mcp_session_create(p.srv, name, &s);
	if (r < 0) {
		if (r == -EINVAL)
			mlog(MLOG_INFO, "mkdir refused: bad thread name");
		fuse_reply_err(req, -r);
		return;
	}
	fs_resolve(fs_ino(mcp_session_id(s), K_DIR), &n);
	fs_reply_entry(req, fs_ino(mcp_session_id(s), K_DIR), &n);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node p;
	mcp_session *s;

	if (fs_resolve(parent, &p) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (p.type == N_ROOT) {
		if (mcp_server_find(name))
			mlog(MLOG_INFO, "rmdir %s refused: a server directory "
			     "comes from the config (remove or disable the "
			     "server there)", name);
		fuse_reply_err(req, mcp_server_find(name) ? EPERM : ENOENT);
		return;
	}
	if (p.type == N_SESSION && p.kind == K_DIR &&
	    KIND_IS(kind_named(name, KF_THREAD), KF_DIR)) {
		fuse_reply_err(req, 0); /* as unlink of its files: rm -r */
		return;
	}
	if (p.type != N_SERVER || p.kind != K_DIR) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	s = mcp_session_find(p.srv, name);
	if (!s) {
		enum kind k = kind_named(name, KF_SERVER);

		fuse_reply_err(req, k == K_DIR ? ENOENT
				    : KIND_IS(k, KF_DIR) ? EPERM : ENOTDIR);
		return;
	}
	mcp_session_close(s);
	writers_sweep();
	fuse_reply_err(req, 0);
}

/*
 * Unlinking a file of a thread directory (or of its tools/, result/,
 * resources/ and prompts/) succeeds and removes nothing: the files live as
 * long as the thread (a question stays open: rm answers nothing). GNU rm -r unlinks every file of a directory first and
 * skips the rmdir of one whose files it could not remove, so EPERM here
 * would make rm -r of a thread fail and leave it running. Every other
 * unlink is EPERM.
 */
static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node p;

	if (fs_resolve(parent, &p) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (p.type == N_SESSION && p.kind == K_DIR) {
		if (kind_named(name, KF_THREAD) != K_DIR) {
			mlog(MLOG_DEBUG, "unlink %s/%s: accepted, nothing "
			     "removed (rmdir closes a thread)",
			     mcp_session_name(p.s), name);
			fuse_reply_err(req, 0);
			return;
		}
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (p.type == N_SESSION && KIND_IS(p.kind, KF_LISTING)) {
		fuse_reply_err(req, 0);
		return;
	}
	if (p.type == N_SESSION && fs_kinds[p.kind].find) {
		/* as above: a question stays open, a task runs on (ctl
		 * cancel ends it) */
		fuse_reply_err(req, fs_kinds[p.kind].find(&p, name) ? 0
			       : ENOENT);
		return;
	}
	if (p.type == N_SERVER && p.kind == K_DIR &&
	    kind_named(name, KF_SERVER) != K_DIR)
		mlog(MLOG_INFO, "unlink %s/%s refused: the files of a server "
		     "directory cannot be removed", mcp_server_name(p.srv), name);
	fuse_reply_err(req, EPERM);
}

static void op_refuse(fuse_req_t req)
{
	fuse_reply_err(req, EPERM);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	op_refuse(req);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		       const char *name)
{
	op_refuse(req);
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	op_refuse(req);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		    const char *newname)
{
	op_refuse(req);
}

/* Creating a file: a tool or prompt that the server does not have (echo
 * > tools/typo) is ENOENT, as the file is not there; anything else EPERM. */
static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	struct node p;

	if (fs_resolve(parent, &p) == 0 && p.type == N_SESSION &&
	    fs_kinds[p.kind].what) { /* tools/, prompts/ */
		mlog(MLOG_INFO, "%s/%s/%s: no such %s on server %s (ls %s)",
		     mcp_session_name(p.s), fs_kinds[p.kind].name, name,
		     fs_kinds[p.kind].what,
		     mcp_server_name(p.srv), fs_kinds[p.kind].name);
		fuse_reply_err(req, ENOENT);
		return;
	}
	op_refuse(req);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node n;
	struct fh *h;
	const struct file_ops *ops;
	int acc = fi->flags & O_ACCMODE, r;

	if (fs_resolve(ino, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (KIND_IS(n.kind, KF_DIR)) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if (acc != O_RDONLY && !KIND_IS(n.kind, KF_WRITE)) {
		fuse_reply_err(req, EACCES);
		return;
	}
	h = fs_fh_new();
	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	ops = fs_kinds[n.kind].ops;
	h->kind = n.kind;
	h->ops = ops;
	if (n.s)
		h->session_id = mcp_session_id(n.s);
	if (n.srv)
		h->server_id = mcp_server_id(n.srv);
	if (ops->open && (r = ops->open(h, &n, acc)) < 0) {
		fs_fh_free(h);
		fuse_reply_err(req, -r);
		return;
	}
	if (n.s)
		mcp_session_hold(n.s);
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = 1; /* call is seekable: callfile.c ignores offsets */
	if (ops->open_reply) {
		ops->open_reply(req, ino, h, fi); /* replies, or fails, frees */
		return;
	}
	fuse_reply_open(req, fi);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;

	if (h->ops->read)
		h->ops->read(h, req, size, off);
	else
		fs_read_snap(h, req, size, off);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;

	if (h->ops->write)
		h->ops->write(h, req, buf, size);
	else
		fuse_reply_err(req, EBADF);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino,
		     struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;

	if (h->ops->flush)
		h->ops->flush(h, req);
	else
		fuse_reply_err(req, 0);
}

static void op_poll(fuse_req_t req, fuse_ino_t ino,
		    struct fuse_file_info *fi, struct fuse_pollhandle *ph)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;

	if (h->ops && h->ops->poll) {
		h->ops->poll(h, req, ph);
		return;
	}
	if (ph)
		fuse_pollhandle_destroy(ph);
	fuse_reply_poll(req, POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM);
}

static void op_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;
	mcp_session *s = h->session_id ? mcp_session_by_id(h->session_id)
				       : NULL;

	fs_fh_free(h);
	if (s)
		mcp_session_release(s);
	fuse_reply_err(req, 0);
}

/* ---- directories ---- */

static void op_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct node n, e;
	struct fh *h;
	size_t k;

	if (fs_resolve(ino, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (!KIND_IS(n.kind, KF_DIR)) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	h = fs_fh_new();
	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fs_dir_add(h, req, ".", ino, 1);
	if (n.type == N_ROOT) {
		mcp_server *srv;

		fs_dir_add(h, req, "..", ROOT_INO, 1);
		for (k = 0; k < K_NKINDS; k++)
			if (KIND_IS(k, KF_ROOT) && fs_resolve(fs_kinds[k].ino,
							      &e) == 0)
				fs_dir_add(h, req, fs_kinds[k].name,
					   fs_kinds[k].ino, 0);
		for (srv = mcp_server_first(); srv; srv = mcp_server_next(srv))
			fs_dir_add(h, req, mcp_server_name(srv),
				fs_ino(mcp_server_id(srv), K_DIR), 1);
	} else if (n.type == N_SERVER && n.kind == K_DIR) {
		mcp_session *s;

		fs_dir_add(h, req, "..", ROOT_INO, 1);
		for (k = 0; k < K_NKINDS; k++)
			if (KIND_IS(k, KF_SERVER) && fs_resolve(fs_ino(
					mcp_server_id(n.srv), k), &e) == 0)
				fs_dir_add(h, req, fs_kinds[k].name,
					   fs_ino(mcp_server_id(n.srv), k),
					   KIND_IS(k, KF_DIR));
		for (s = mcp_session_first(n.srv); s; s = mcp_session_next(s))
			fs_dir_add(h, req, mcp_session_name(s),
				fs_ino(mcp_session_id(s), K_DIR), 1);
	} else if (fs_kinds[n.kind].next) {
		unsigned long i = 0;
		const char *name;

		fs_dir_add(h, req, "..", fs_ino(mcp_session_id(n.s), K_DIR), 1);
		while ((name = fs_kinds[n.kind].next(&n, &i)) != NULL)
			fs_dir_add(h, req, name,
				   ino_make(mcp_session_id(n.s), i,
					    fs_kinds[n.kind].child), 0);
	} else if (n.kind != K_DIR) {
		fs_dir_add(h, req, "..", n.s ? fs_ino(mcp_session_id(n.s), K_DIR)
					   : fs_ino(mcp_server_id(n.srv), K_DIR),
			   1);
		listing_opendir(req, ino, h, fi); /* replies, or fails and frees */
		return;
	} else {
		fs_dir_add(h, req, "..", fs_ino(mcp_server_id(n.srv), K_DIR), 1);
		for (k = 0; k < K_NKINDS; k++)
			if (KIND_IS(k, KF_THREAD))
				fs_dir_add(h, req, fs_kinds[k].name,
					   fs_ino(mcp_session_id(n.s), k),
					   KIND_IS(k, KF_DIR));
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	fuse_reply_open(req, fi);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;
	size_t at = (size_t)off, end;

	if (at >= h->dir.len) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	/* whole entries only: walk to the last one that fits */
	end = at;
	while (end < h->dir.len) {
		const struct {
			uint64_t ino;
			int64_t off;
			uint32_t namelen, type;
		} *d = (const void *)(h->dir.p + end);
		size_t next = (size_t)d->off;

		if (next - at > size)
			break;
		end = next;
	}
	fuse_reply_buf(req, h->dir.p + at, end - at);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	fs_fh_free((struct fh *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs sv;

	memset(&sv, 0, sizeof sv);
	sv.f_bsize = 4096;
	sv.f_namemax = 255;
	fuse_reply_statfs(req, &sv);
}

const struct fuse_lowlevel_ops mcpfs_ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.setattr = op_setattr,
	.mkdir = op_mkdir,
	.rmdir = op_rmdir,
	.unlink = op_unlink,
	.mknod = op_mknod,
	.symlink = op_symlink,
	.rename = op_rename,
	.link = op_link,
	.create = op_create,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.flush = op_flush,
	.release = op_release,
	.poll = op_poll,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.releasedir = op_releasedir,
	.statfs = op_statfs,
};

/* ---- kernel cache invalidation ----
 *
 * A session that goes away without an rmdir (idle, cap, ctl close, reload)
 * leaves a dentry in the kernel. fuse_lowlevel_notify_inval_entry takes the
 * parent directory's lock in the kernel, and that lock may be held by an op
 * (mkdir, lookup) that waits for this very loop: so the notification is
 * written from libuv's thread pool, never from the loop thread.
 *
 * The workers share nothing with the loop but a file descriptor of their
 * own: a dup of /dev/fuse made at the mount (notify_fd), on which each
 * writes the notification message itself (FUSE_NOTIFY_INVAL_ENTRY, the
 * kernel's ABI: what libfuse's call writes). They never touch the
 * fuse_session, which main.c unmounts (closing its descriptor) and frees
 * at the shutdown, perhaps while a worker still waits on that directory
 * lock. notify_fd is closed by whoever drops the last of notify_refs: the
 * mount holds one until the shutdown, and each worker one while it
 * writes; a worker that finds none left writes nothing. So no descriptor
 * is written after its close, whatever the order. A worker still blocked
 * at exit goes with the process, as the kernel then aborts the connection.
 */

struct gone {
	uv_work_t work;
	fuse_ino_t parent;
	char name[];
};

static int notify_fd = -1;       /* set before any worker runs */
static atomic_int notify_refs;   /* users of notify_fd, the mount's too */

static void notify_unref(void)
{
	if (atomic_fetch_sub(&notify_refs, 1) == 1)
		close(notify_fd);
}

static void gone_work_cb(uv_work_t *w)
{
	struct gone *g = (struct gone *)w;
	struct {
		uint32_t len;
		int32_t error;     /* the notification's code */
		uint64_t unique;   /* 0: a notification */
		uint64_t parent;
		uint32_t namelen;
		uint32_t flags;
	} msg = {0};
	struct iovec iov[2];
	int refs = atomic_load(&notify_refs);

	while (refs > 0 &&
	       !atomic_compare_exchange_weak(&notify_refs, &refs, refs + 1))
		;
	if (refs <= 0)
		return; /* shut down */
	msg.namelen = (uint32_t)strlen(g->name);
	msg.len = (uint32_t)(sizeof msg + msg.namelen + 1);
	msg.error = 3; /* FUSE_NOTIFY_INVAL_ENTRY */
	msg.parent = g->parent;
	iov[0].iov_base = &msg;
	iov[0].iov_len = sizeof msg;
	iov[1].iov_base = g->name;
	iov[1].iov_len = msg.namelen + 1; /* with its NUL, as libfuse */
	if (writev(notify_fd, iov, 2) < 0 && errno != ENOENT)
		mlog(MLOG_DEBUG, "invalidating %s: %s", g->name,
		     strerror(errno));
	notify_unref();
}

static void gone_done_cb(uv_work_t *w, int status)
{
	free(w);
}

void fs_set_session(struct fuse_session *se)
{
	if (se && !fse) {
		notify_fd = fcntl(fuse_session_fd(se), F_DUPFD_CLOEXEC, 0);
		atomic_store(&notify_refs, notify_fd >= 0);
	} else if (!se && fse && notify_fd >= 0) {
		notify_unref();
	}
	fse = se;
}

void fs_session_gone(uint64_t server_id, const char *name)
{
	struct gone *g;

	writers_sweep();
	if (!fse || notify_fd < 0 ||
	    !(g = malloc(sizeof *g + strlen(name) + 1)))
		return;
	g->parent = fs_ino(server_id, K_DIR);
	strcpy(g->name, name);
	if (uv_queue_work(uv_default_loop(), &g->work, gone_work_cb,
			  gone_done_cb) < 0)
		free(g);
}
