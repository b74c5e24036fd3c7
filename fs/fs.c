/*
 * fs.c - the mcpfs tree on the libfuse low-level API.
 *
 *   MOUNT/.status, MOUNT/<server>/{call,tools.json},
 *   MOUNT/<server>/<thread>/{call,status,tools.json,stderr,events,ctl}
 *   MOUNT/<server>/<thread>/requests/<n>   (the server's open questions)
 *
 * Inode numbers are derived, not stored: root is 1, .status is 2, and every
 * other node is (object id << 4 | kind), where the object is a server, a
 * session, or for requests/<n> the question (ids are never reused). So
 * there is no inode table and forget has nothing to free; a stale inode
 * simply no longer resolves (ENOENT): an answered question is gone at once.
 * Every handler ends in exactly one fuse_reply_*; reads of call and
 * tools.json may park their request and reply later (callfile.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "fs.h"
#include "gbuf.h"

#define ROOT_INO 1
#define STATUS_INO 2

static struct fuse_session *fse;
static double mount_time;

/* A resolved inode. */
struct node {
	enum { N_ROOT, N_DOTSTATUS, N_SERVER, N_SESSION, N_ASK } type;
	enum kind kind;
	mcp_server *srv;
	mcp_session *s;
	mcp_ask *q;
};

/* Per-open state of every file (fi->fh). */
struct fh {
	enum kind kind;
	int dotstatus;
	uint64_t session_id;
	mcp_buf *snap;           /* rendered at open: status, stderr, .status */
	struct callfile *cf;     /* call, tools.json */
	struct askfile *af;      /* requests/<n> */
	struct gbuf dir;         /* readdir snapshot */
};

static const char *const session_files[] = {
	[K_CALL] = "call", [K_TOOLS] = "tools.json", [K_STATUS] = "status",
	[K_STDERR] = "stderr", [K_EVENTS] = "events", [K_CTL] = "ctl",
};

static fuse_ino_t ino_of(uint64_t id, enum kind k)
{
	return (fuse_ino_t)(id << 4 | k);
}

static int resolve(fuse_ino_t ino, struct node *n)
{
	uint64_t id = ino >> 4;

	memset(n, 0, sizeof *n);
	if (ino == ROOT_INO) {
		n->type = N_ROOT;
		return 0;
	}
	if (ino == STATUS_INO) {
		n->type = N_DOTSTATUS;
		return 0;
	}
	n->kind = (enum kind)(ino & 15);
	if ((n->srv = mcp_server_by_id(id)) != NULL) {
		n->type = N_SERVER;
		return n->kind <= K_TOOLS ? 0 : -ENOENT;
	}
	if ((n->s = mcp_session_by_id(id)) != NULL) {
		n->type = N_SESSION;
		n->srv = mcp_session_server(n->s);
		return n->kind <= K_REQS ? 0 : -ENOENT;
	}
	if ((n->q = mcp_ask_by_id(id)) != NULL) {
		n->type = N_ASK;
		n->s = mcp_ask_session(n->q);
		n->srv = mcp_session_server(n->s);
		return n->kind == K_REQ ? 0 : -ENOENT;
	}
	return -ENOENT;
}

static void set_time(struct timespec *ts, double t)
{
	ts->tv_sec = (time_t)t;
	ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
}

static void fill_attr(fuse_ino_t ino, const struct node *n, struct stat *st)
{
	double mt = mount_time, ct = mount_time;
	int dir = n->type == N_ROOT || n->kind == K_DIR || n->kind == K_REQS;

	memset(st, 0, sizeof *st);
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (n->type == N_DOTSTATUS) {
		dir = 0;
	}
	if (dir) {
		st->st_mode = S_IFDIR | 0700;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG |
			      (n->kind == K_CALL || n->kind == K_CTL ||
			       n->kind == K_REQ ? 0600 : 0400);
		st->st_nlink = 1;
	}
	if (n->s) {
		mt = mcp_session_last_used(n->s);
		ct = mcp_session_created(n->s);
		if (n->kind == K_STDERR) {
			mcp_buf *b = mcp_session_stderr(n->s);

			st->st_size = b ? (off_t)b->len : 0;
			mcp_buf_unref(b);
		} else if (n->kind == K_EVENTS) {
			st->st_size = (off_t)mcp_session_events_size(n->s);
		} else if (n->kind == K_STATUS) {
			mcp_buf *b = mcp_session_status_json(n->s);

			st->st_size = b ? (off_t)b->len : 0;
			mcp_buf_unref(b);
		} else if (n->kind == K_REQ) {
			mcp_buf *b = mcp_ask_json(n->q);

			st->st_size = b ? (off_t)b->len : 0;
			mcp_buf_unref(b);
			mt = ct = mcp_ask_created(n->q);
		}
	} else if (n->type == N_DOTSTATUS) {
		mcp_buf *b = mcp_status_json();

		st->st_size = b ? (off_t)b->len : 0;
		mcp_buf_unref(b);
	}
	set_time(&st->st_mtim, mt);
	set_time(&st->st_atim, mt);
	set_time(&st->st_ctim, ct);
	st->st_blksize = 4096;
}

static void reply_entry(fuse_req_t req, fuse_ino_t ino, const struct node *n)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof e);
	e.ino = ino;
	e.generation = 1;
	e.attr_timeout = 0;
	e.entry_timeout = 1.0;
	fill_attr(ino, n, &e.attr);
	fuse_reply_entry(req, &e);
}

static void op_init(void *ud, struct fuse_conn_info *conn)
{
	mount_time = (double)time(NULL);
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

	if (resolve(parent, &p) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (p.type == N_ROOT) {
		if (!strcmp(name, ".status")) {
			ino = STATUS_INO;
		} else if ((n.srv = mcp_server_find(name)) != NULL) {
			ino = ino_of(mcp_server_id(n.srv), K_DIR);
		}
	} else if (p.type == N_SERVER && p.kind == K_DIR) {
		mcp_session *s;

		if (!strcmp(name, "call"))
			ino = ino_of(mcp_server_id(p.srv), K_CALL);
		else if (!strcmp(name, "tools.json"))
			ino = ino_of(mcp_server_id(p.srv), K_TOOLS);
		else if ((s = mcp_session_find(p.srv, name)) != NULL)
			ino = ino_of(mcp_session_id(s), K_DIR);
	} else if (p.type == N_SESSION && p.kind == K_DIR) {
		for (k = K_CALL; k <= K_CTL; k++)
			if (!strcmp(name, session_files[k]))
				ino = ino_of(mcp_session_id(p.s), k);
		if (!strcmp(name, "requests"))
			ino = ino_of(mcp_session_id(p.s), K_REQS);
	} else if (p.type == N_SESSION && p.kind == K_REQS) {
		mcp_ask *q = mcp_ask_find(p.s, name);

		if (q)
			ino = ino_of(mcp_ask_id(q), K_REQ);
	}
	if (!ino || resolve(ino, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	reply_entry(req, ino, &n);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct node n;
	struct stat st;

	if (resolve(ino, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_attr(ino, &n, &st);
	fuse_reply_attr(req, &st, 0);
}

/* Only truncation of call/ctl/requests/<n> (O_TRUNC) is accepted. */
static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct node n;
	struct stat st;
	int trunc_only = to_set == FUSE_SET_ATTR_SIZE ||
			 (to_set & ~(FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_MTIME |
				     FUSE_SET_ATTR_MTIME_NOW |
				     FUSE_SET_ATTR_CTIME)) == 0;

	if (resolve(ino, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (!(to_set & FUSE_SET_ATTR_SIZE) || !trunc_only || attr->st_size ||
	    (n.kind != K_CALL && n.kind != K_CTL && n.kind != K_REQ) ||
	    n.type == N_ROOT ||
	    n.type == N_DOTSTATUS) {
		fuse_reply_err(req, EPERM);
		return;
	}
	fill_attr(ino, &n, &st);
	fuse_reply_attr(req, &st, 0);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	struct node p, n;
	mcp_session *s;
	int r;

	if (resolve(parent, &p) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (p.type != N_SERVER || p.kind != K_DIR) {
		fuse_reply_err(req, p.type == N_ROOT &&
				    mcp_server_find(name) ? EEXIST : EPERM);
		return;
	}
	r = mcp_session_create(p.srv, name, &s);
	if (r < 0) {
		if (r == -EINVAL)
			mlog(MLOG_INFO, "mkdir refused: bad thread name");
		fuse_reply_err(req, -r);
		return;
	}
	resolve(ino_of(mcp_session_id(s), K_DIR), &n);
	reply_entry(req, ino_of(mcp_session_id(s), K_DIR), &n);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node p;
	mcp_session *s;

	if (resolve(parent, &p) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (p.type == N_ROOT) {
		fuse_reply_err(req, mcp_server_find(name) ? EPERM : ENOENT);
		return;
	}
	if (p.type == N_SESSION && p.kind == K_DIR &&
	    !strcmp(name, "requests")) {
		fuse_reply_err(req, 0); /* rm -r: accepted, nothing happens */
		return;
	}
	if (p.type != N_SERVER || p.kind != K_DIR) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	s = mcp_session_find(p.srv, name);
	if (!s) {
		fuse_reply_err(req, !strcmp(name, "call") ||
				    !strcmp(name, "tools.json") ? ENOTDIR
								: ENOENT);
		return;
	}
	mcp_session_close(s);
	fuse_reply_err(req, 0);
}

/* Unlinking the files of a thread directory is accepted (rm -r); so is
 * unlinking a question, which stays open (rm answers nothing). */
static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node p;
	size_t k;

	if (resolve(parent, &p) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (p.type == N_SESSION && p.kind == K_DIR) {
		for (k = K_CALL; k <= K_CTL; k++)
			if (!strcmp(name, session_files[k])) {
				fuse_reply_err(req, 0);
				return;
			}
		fuse_reply_err(req, strcmp(name, "requests") ? ENOENT
							     : EISDIR);
		return;
	}
	if (p.type == N_SESSION && p.kind == K_REQS) {
		fuse_reply_err(req, mcp_ask_find(p.s, name) ? 0 : ENOENT);
		return;
	}
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

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	op_refuse(req);
}

static void fh_free(struct fh *h)
{
	if (h->cf)
		callfile_free(h->cf);
	askfile_free(h->af);
	mcp_buf_unref(h->snap);
	gbuf_free(&h->dir);
	free(h);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node n;
	struct fh *h;
	int acc = fi->flags & O_ACCMODE;

	if (resolve(ino, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (n.type == N_ROOT || (n.type != N_DOTSTATUS &&
				 (n.kind == K_DIR || n.kind == K_REQS))) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if (acc != O_RDONLY && (n.type == N_DOTSTATUS ||
				(n.kind != K_CALL && n.kind != K_CTL &&
				 n.kind != K_REQ))) {
		fuse_reply_err(req, EACCES);
		return;
	}
	h = calloc(1, sizeof *h);
	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	h->kind = n.kind;
	h->dotstatus = n.type == N_DOTSTATUS;
	if (n.s)
		h->session_id = mcp_session_id(n.s);
	if (h->dotstatus)
		h->snap = mcp_status_json();
	else if (n.kind == K_STATUS)
		h->snap = mcp_session_status_json(n.s);
	else if (n.kind == K_STDERR)
		h->snap = mcp_session_stderr(n.s);
	else if (n.kind == K_CALL || n.kind == K_TOOLS)
		h->cf = callfile_new(n.kind, mcp_server_id(n.srv),
				     h->session_id);
	if (n.kind == K_REQ) { /* the question at open, and the answer */
		h->snap = mcp_ask_json(n.q);
		h->af = askfile_new(mcp_ask_id(n.q));
		if (!h->snap || !h->af) {
			fh_free(h);
			fuse_reply_err(req, ENOMEM);
			return;
		}
	}
	if ((n.kind == K_CALL || n.kind == K_TOOLS) && !h->dotstatus &&
	    !h->cf) {
		free(h);
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (n.s)
		mcp_session_hold(n.s);
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = 1; /* call is seekable: callfile.c ignores offsets */
	fuse_reply_open(req, fi);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;

	if (h->cf) {
		callfile_read(h->cf, req, size, off);
	} else if (h->snap) {
		size_t len = h->snap->len;

		if ((size_t)off >= len)
			fuse_reply_buf(req, NULL, 0);
		else
			fuse_reply_buf(req, h->snap->data + off,
				       len - (size_t)off < size
					   ? len - (size_t)off : size);
	} else if (h->kind == K_EVENTS) {
		mcp_session *s = mcp_session_by_id(h->session_id);
		char *buf = s ? malloc(size) : NULL;
		size_t n = buf ? mcp_session_events_read(s, (uint64_t)off, buf,
							 size) : 0;

		fuse_reply_buf(req, buf, n);
		free(buf);
	} else {
		fuse_reply_buf(req, NULL, 0);
	}
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;

	if (h->cf) {
		callfile_write(h->cf, req, buf, size);
	} else if (h->af) {
		askfile_write(h->af, req, buf, size);
	} else if (h->kind == K_CTL) {
		mcp_session *s = mcp_session_by_id(h->session_id);
		int r = s ? mcp_session_ctl(s, buf, size) : -ENOENT;

		if (r == -EINVAL)
			mlog(MLOG_INFO, "ctl: unknown verb (want cancel, "
			     "restart or close)");
		if (r < 0)
			fuse_reply_err(req, -r);
		else
			fuse_reply_write(req, size);
	} else {
		fuse_reply_err(req, EBADF);
	}
}

static void op_flush(fuse_req_t req, fuse_ino_t ino,
		     struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;

	if (h->cf)
		callfile_flush(h->cf, req);
	else if (h->af)
		askfile_flush(h->af, req);
	else
		fuse_reply_err(req, 0);
}

static void op_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fh *h = (struct fh *)(uintptr_t)fi->fh;
	mcp_session *s = h->session_id ? mcp_session_by_id(h->session_id)
				       : NULL;

	fh_free(h);
	if (s)
		mcp_session_release(s);
	fuse_reply_err(req, 0);
}

/* ---- directories ---- */

static int dir_add(struct fh *h, fuse_req_t req, const char *name,
		   fuse_ino_t ino, int isdir)
{
	struct stat st;
	size_t need;

	memset(&st, 0, sizeof st);
	st.st_ino = ino;
	st.st_mode = isdir ? S_IFDIR : S_IFREG;
	need = fuse_add_direntry(req, NULL, 0, name, NULL, 0);
	if (gbuf_reserve(&h->dir, need) < 0)
		return -ENOMEM;
	fuse_add_direntry(req, h->dir.p + h->dir.len, need, name, &st,
			  (off_t)(h->dir.len + need));
	h->dir.len += need;
	return 0;
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct node n;
	struct fh *h;
	size_t k;

	if (resolve(ino, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (n.type == N_DOTSTATUS || (n.type != N_ROOT && n.kind != K_DIR &&
				      n.kind != K_REQS)) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	h = calloc(1, sizeof *h);
	if (!h) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	dir_add(h, req, ".", ino, 1);
	if (n.type == N_ROOT) {
		mcp_server *srv;

		dir_add(h, req, "..", ROOT_INO, 1);
		dir_add(h, req, ".status", STATUS_INO, 0);
		for (srv = mcp_server_first(); srv; srv = mcp_server_next(srv))
			dir_add(h, req, mcp_server_name(srv),
				ino_of(mcp_server_id(srv), K_DIR), 1);
	} else if (n.type == N_SERVER) {
		mcp_session *s;

		dir_add(h, req, "..", ROOT_INO, 1);
		dir_add(h, req, "call", ino_of(mcp_server_id(n.srv), K_CALL),
			0);
		dir_add(h, req, "tools.json",
			ino_of(mcp_server_id(n.srv), K_TOOLS), 0);
		for (s = mcp_session_first(n.srv); s; s = mcp_session_next(s))
			dir_add(h, req, mcp_session_name(s),
				ino_of(mcp_session_id(s), K_DIR), 1);
	} else if (n.kind == K_REQS) {
		mcp_ask *q;

		dir_add(h, req, "..", ino_of(mcp_session_id(n.s), K_DIR), 1);
		for (q = mcp_ask_first(n.s); q; q = mcp_ask_next(q))
			dir_add(h, req, mcp_ask_name(q),
				ino_of(mcp_ask_id(q), K_REQ), 0);
	} else {
		dir_add(h, req, "..", ino_of(mcp_server_id(n.srv), K_DIR), 1);
		for (k = K_CALL; k <= K_CTL; k++)
			dir_add(h, req, session_files[k],
				ino_of(mcp_session_id(n.s), k), 0);
		dir_add(h, req, "requests", ino_of(mcp_session_id(n.s), K_REQS),
			1);
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
	fh_free((struct fh *)(uintptr_t)fi->fh);
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
 */

struct gone {
	uv_work_t work;
	fuse_ino_t parent;
	char name[];
};

static void gone_work_cb(uv_work_t *w)
{
	struct gone *g = (struct gone *)w;
	struct fuse_session *se = fse;

	if (se)
		fuse_lowlevel_notify_inval_entry(se, g->parent, g->name,
						 strlen(g->name));
}

static void gone_done_cb(uv_work_t *w, int status)
{
	free(w);
}

void fs_set_session(struct fuse_session *se)
{
	fse = se;
}

void fs_session_gone(uint64_t server_id, const char *name)
{
	struct gone *g;

	if (!fse || !(g = malloc(sizeof *g + strlen(name) + 1)))
		return;
	g->parent = ino_of(server_id, K_DIR);
	strcpy(g->name, name);
	if (uv_queue_work(uv_default_loop(), &g->work, gone_work_cb,
			  gone_done_cb) < 0)
		free(g);
}
