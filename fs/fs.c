/*
 * fs.c - the mcpfs tree on the libfuse low-level API: the ops.
 *
 *   MOUNT/.status, MOUNT/README.md, MOUNT/.serve.json,
 *   MOUNT/<server>/{call,tools.json,help/,auth},
 *   MOUNT/<server>/<thread>/{call,status,tools.json,stderr,events,trace,
 *   ctl}, in each thread tools/, result/, resources/, prompts/,
 *   help/ and their .json files, which listing.c serves, skills/
 *   (skillsdir.c), and requests/ and tasks/ (dirs.c).
 *
 * Nodes and inode numbers are node.c's; what each kind of file may do
 * (its name, whether it is a directory, writable, sized, a listing) is
 * the table fs_kinds (kinds.c), which every op asks. Every handler ends
 * in exactly one fuse_reply_*; reads of call and tools.json may park
 * their request and reply later (callfile.c), and so may lookups, opens
 * and listings that wait for a listing (listing.c).
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
#ifdef MCPFS_FUSE318
#include "fuse318.h"
#endif

/* The mounted session (the loop thread's alone: NULL before the mount and
 * from the shutdown on). */
static struct fuse_session *fse;

static void op_init(void *ud, struct fuse_conn_info *conn)
{
	node_mount_time((double)time(NULL));
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	/* 1 MiB requests (FUSE_MAX_PAGES) for big replies and requests */
	conn->max_write = 1u << 20;
	conn->max_read = 0;
}

/* The parent directory of req's op: its node, or a reply (ENOENT, or
 * ENOTDIR when it is no directory) and NULL. */
static const struct dir_ops *dir_of(fuse_req_t req, fuse_ino_t parent,
				    struct node *p)
{
	const struct dir_ops *d = NULL;

	if (fs_resolve(parent, p) < 0)
		fuse_reply_err(req, ENOENT);
	else if (!(d = fs_dir(p)))
		fuse_reply_err(req, ENOTDIR);
	return d;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node p;
	const struct dir_ops *d = dir_of(req, parent, &p);

	if (d)
		d->lookup(req, parent, &p, name);
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
	node_attr(ino, &n, fuse_req_ctx(req)->pid, &st);
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
	node_attr(ino, &n, fuse_req_ctx(req)->pid, &st);
	fuse_reply_attr(req, &st, 0);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	struct node p;
	const struct dir_ops *d = dir_of(req, parent, &p);

	if (d && d->mkdir)
		d->mkdir(req, &p, name);
	else if (d)
		fuse_reply_err(req, EPERM);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node p;
	const struct dir_ops *d = dir_of(req, parent, &p);

	if (d && d->rmdir)
		d->rmdir(req, &p, name);
	else if (d)
		fuse_reply_err(req, ENOTDIR);
}

/* Removing a file: what its directory says (dirs.c: a thread's files are
 * "removed" so that rm -r works; elsewhere EPERM). */
static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node p;
	const struct dir_ops *d = dir_of(req, parent, &p);

	if (d && d->unlink)
		d->unlink(req, &p, name);
	else if (d)
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
	struct mcp_stat srv = { .name = "?" };

	if (fs_resolve(parent, &p) == 0 && p.type == N_THREAD &&
	    fs_kinds[p.kind].what) { /* tools/, prompts/ */
		mcp_lookup(p.st.server_id, MCP_SERVER, &srv);
		mlog(MLOG_INFO, "%s/%s/%s: no such %s on server %s (ls %s)",
		     p.st.name, fs_kinds[p.kind].name, name,
		     fs_kinds[p.kind].what, srv.name, fs_kinds[p.kind].name);
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
		h->thread_id = n.st.id;
	if (n.srv)
		h->server_id = n.st.server_id;
	if (ops->open && (r = ops->open(h, &n, acc)) < 0) {
		fs_fh_free(h);
		fuse_reply_err(req, -r);
		return;
	}
	if (n.s)
		mcp_session_hold(n.s);
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = 1; /* call is seekable: callfile.c ignores offsets */
#ifdef MCPFS_FUSE318	/* bench only: passthrough of a big reply */
	fuse318_open(req, &n, fi);
#endif
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
	mcp_session *s = fs_thread(h->thread_id);

	fs_fh_free(h);
	if (s)
		mcp_session_release(s);
	fuse_reply_err(req, 0);
}

/* ---- directories ---- */

static void op_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct node n;
	const struct dir_ops *d = dir_of(req, ino, &n);
	struct fh *h;

	if (!d)
		return;
	h = fs_fh_new();
	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fs_dir_add(h, req, ".", ino, 1);
	fs_dir_add(h, req, "..", fs_dir_parent(&n), 1);
	d->opendir(req, ino, &n, h, fi); /* replies, or fails and frees h */
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;
	size_t at = (size_t)off, end;

	if (h->more && h->list_at >= 0 && at + size > h->dir.len)
		h->more(h, req, at + size); /* the entries this read takes */
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
