/* fs/fuse318.c - bench only: what libfuse 3.18 offers, tried in mcpfs:
 * FUSE over io_uring in its one loop, and passthrough of a finished big
 * reply.
 *
 * Built only with -Dfuse_prefix (libfuse 3.18 or later: fuse_req_is_uring),
 * used only when libfuse's FUSE_URING_ENABLE=1 is in the environment and
 * the kernel's fuse.enable_uring is on (tests/bench/README.md, "FUSE over
 * io_uring and passthrough").
 *
 * With io_uring, libfuse serves requests on ring threads of its own (one
 * per CPU), which call the operations there; the /dev/fuse descriptor that
 * main.c polls carries INIT and interrupts (which 3.18.3 matches to no
 * ring request: a signal no longer ends a waiting read). mcpfs's
 * operations run on the loop
 * thread and share everything with it unlocked, so each operation a ring
 * thread brings is handed to the loop: its arguments copied (the file
 * info and the attributes live on the ring thread's stack; the names and
 * the written bytes stay in the ring entry until the reply), queued, and
 * the loop woken by a uv_async. The loop runs the real operation, whose
 * reply (from the loop thread, now or later) libfuse commits to the ring
 * under its ring lock. Requests that come through /dev/fuse run directly.
 *
 * Passthrough (MCPFS_BENCH_PASSTHROUGH=1 in the environment): an open of
 * call for reading whose fresh reply (callfile_fresh, what its first read
 * would find) is done and at least 1 MiB gets that reply as a backing
 * file: the reply copied once into a memfd, registered with the kernel
 * (fuse_passthrough_open), and the open answered with its backing id, so
 * that the kernel reads the memfd and mcpfs sees no read. One reply is
 * held at a time (the latest so served).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>
#include <fuse_lowlevel.h>

#include "fs.h"
#include "fuse318.h"

enum { H_LOOKUP, H_GETATTR, H_SETATTR, H_MKDIR, H_RMDIR, H_UNLINK, H_MKNOD,
	H_SYMLINK, H_RENAME, H_LINK, H_CREATE, H_OPEN, H_READ, H_WRITE,
	H_FLUSH, H_RELEASE, H_POLL, H_OPENDIR, H_READDIR, H_RELEASEDIR,
	H_STATFS };

struct hop {
	struct hop *next;
	int op;
	fuse_req_t req;
	fuse_ino_t ino, ino2;
	const char *name, *name2; /* in the ring entry until the reply */
	const char *buf;
	size_t size;
	off_t off;
	mode_t mode;
	dev_t rdev;
	int to_set;
	unsigned flags;
	int has_fi;
	struct fuse_file_info fi;
	struct stat st;
	struct fuse_pollhandle *ph;
};

static const struct fuse_lowlevel_ops *real;
static struct fuse_lowlevel_ops wrapped;
static uv_async_t wake;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct hop *head, **tail = &head;

static void run(struct hop *h)
{
	struct fuse_file_info *fi = h->has_fi ? &h->fi : NULL;

	switch (h->op) {
	case H_LOOKUP: real->lookup(h->req, h->ino, h->name); break;
	case H_GETATTR: real->getattr(h->req, h->ino, fi); break;
	case H_SETATTR:
		real->setattr(h->req, h->ino, &h->st, h->to_set, fi); break;
	case H_MKDIR: real->mkdir(h->req, h->ino, h->name, h->mode); break;
	case H_RMDIR: real->rmdir(h->req, h->ino, h->name); break;
	case H_UNLINK: real->unlink(h->req, h->ino, h->name); break;
	case H_MKNOD:
		real->mknod(h->req, h->ino, h->name, h->mode, h->rdev); break;
	case H_SYMLINK: real->symlink(h->req, h->name2, h->ino, h->name); break;
	case H_RENAME:
		real->rename(h->req, h->ino, h->name, h->ino2, h->name2,
			     h->flags);
		break;
	case H_LINK: real->link(h->req, h->ino, h->ino2, h->name2); break;
	case H_CREATE:
		real->create(h->req, h->ino, h->name, h->mode, fi); break;
	case H_OPEN: real->open(h->req, h->ino, fi); break;
	case H_READ: real->read(h->req, h->ino, h->size, h->off, fi); break;
	case H_WRITE:
		real->write(h->req, h->ino, h->buf, h->size, h->off, fi);
		break;
	case H_FLUSH: real->flush(h->req, h->ino, fi); break;
	case H_RELEASE: real->release(h->req, h->ino, fi); break;
	case H_POLL: real->poll(h->req, h->ino, fi, h->ph); break;
	case H_OPENDIR: real->opendir(h->req, h->ino, fi); break;
	case H_READDIR:
		real->readdir(h->req, h->ino, h->size, h->off, fi); break;
	case H_RELEASEDIR: real->releasedir(h->req, h->ino, fi); break;
	case H_STATFS: real->statfs(h->req, h->ino); break;
	}
}

static void wake_cb(uv_async_t *a)
{
	struct hop *h, *next;

	pthread_mutex_lock(&lock);
	h = head;
	head = NULL;
	tail = &head;
	pthread_mutex_unlock(&lock);
	for (; h; h = next) {
		next = h->next;
		run(h);
		free(h);
	}
}

/* On a ring thread: queue h for the loop. On the loop thread (a request
 * from /dev/fuse): run it now. */
static void hand(struct hop *h, struct fuse_file_info *fi)
{
	if (fi) {
		h->fi = *fi;
		h->has_fi = 1;
	}
	if (!fuse_req_is_uring(h->req)) {
		run(h);
		free(h);
		return;
	}
	pthread_mutex_lock(&lock);
	*tail = h;
	tail = &h->next;
	pthread_mutex_unlock(&lock);
	uv_async_send(&wake);
}

#define HOP(OP, REQ) struct hop *h = calloc(1, sizeof *h); \
	if (!h) { fuse_reply_err(REQ, ENOMEM); return; } \
	h->op = OP; h->req = REQ

static void w_lookup(fuse_req_t req, fuse_ino_t p, const char *name)
{ HOP(H_LOOKUP, req); h->ino = p; h->name = name; hand(h, NULL); }
static void w_getattr(fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi)
{ HOP(H_GETATTR, req); h->ino = i; hand(h, fi); }
static void w_setattr(fuse_req_t req, fuse_ino_t i, struct stat *st, int set,
		      struct fuse_file_info *fi)
{
	HOP(H_SETATTR, req); h->ino = i; h->st = *st; h->to_set = set;
	hand(h, fi);
}
static void w_mkdir(fuse_req_t req, fuse_ino_t p, const char *name, mode_t m)
{ HOP(H_MKDIR, req); h->ino = p; h->name = name; h->mode = m; hand(h, NULL); }
static void w_rmdir(fuse_req_t req, fuse_ino_t p, const char *name)
{ HOP(H_RMDIR, req); h->ino = p; h->name = name; hand(h, NULL); }
static void w_unlink(fuse_req_t req, fuse_ino_t p, const char *name)
{ HOP(H_UNLINK, req); h->ino = p; h->name = name; hand(h, NULL); }
static void w_mknod(fuse_req_t req, fuse_ino_t p, const char *name, mode_t m,
		    dev_t rdev)
{
	HOP(H_MKNOD, req); h->ino = p; h->name = name; h->mode = m;
	h->rdev = rdev; hand(h, NULL);
}
static void w_symlink(fuse_req_t req, const char *link, fuse_ino_t p,
		      const char *name)
{
	HOP(H_SYMLINK, req); h->ino = p; h->name = name; h->name2 = link;
	hand(h, NULL);
}
static void w_rename(fuse_req_t req, fuse_ino_t p, const char *name,
		     fuse_ino_t np, const char *nname, unsigned int flags)
{
	HOP(H_RENAME, req); h->ino = p; h->name = name; h->ino2 = np;
	h->name2 = nname; h->flags = flags; hand(h, NULL);
}
static void w_link(fuse_req_t req, fuse_ino_t i, fuse_ino_t np,
		   const char *nname)
{ HOP(H_LINK, req); h->ino = i; h->ino2 = np; h->name2 = nname; hand(h, NULL); }
static void w_create(fuse_req_t req, fuse_ino_t p, const char *name, mode_t m,
		     struct fuse_file_info *fi)
{ HOP(H_CREATE, req); h->ino = p; h->name = name; h->mode = m; hand(h, fi); }
static void w_open(fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi)
{ HOP(H_OPEN, req); h->ino = i; hand(h, fi); }
static void w_read(fuse_req_t req, fuse_ino_t i, size_t size, off_t off,
		   struct fuse_file_info *fi)
{ HOP(H_READ, req); h->ino = i; h->size = size; h->off = off; hand(h, fi); }
static void w_write(fuse_req_t req, fuse_ino_t i, const char *buf, size_t size,
		    off_t off, struct fuse_file_info *fi)
{
	HOP(H_WRITE, req); h->ino = i; h->buf = buf; h->size = size;
	h->off = off; hand(h, fi);
}
static void w_flush(fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi)
{ HOP(H_FLUSH, req); h->ino = i; hand(h, fi); }
static void w_release(fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi)
{ HOP(H_RELEASE, req); h->ino = i; hand(h, fi); }
static void w_poll(fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi,
		   struct fuse_pollhandle *ph)
{ HOP(H_POLL, req); h->ino = i; h->ph = ph; hand(h, fi); }
static void w_opendir(fuse_req_t req, fuse_ino_t i, struct fuse_file_info *fi)
{ HOP(H_OPENDIR, req); h->ino = i; hand(h, fi); }
static void w_readdir(fuse_req_t req, fuse_ino_t i, size_t size, off_t off,
		      struct fuse_file_info *fi)
{ HOP(H_READDIR, req); h->ino = i; h->size = size; h->off = off; hand(h, fi); }
static void w_releasedir(fuse_req_t req, fuse_ino_t i,
			 struct fuse_file_info *fi)
{ HOP(H_RELEASEDIR, req); h->ino = i; hand(h, fi); }
static void w_statfs(fuse_req_t req, fuse_ino_t i)
{ HOP(H_STATFS, req); h->ino = i; hand(h, NULL); }

static int passthrough;

static void w_init(void *ud, struct fuse_conn_info *conn)
{
	real->init(ud, conn);
	passthrough = getenv("MCPFS_BENCH_PASSTHROUGH") &&
		      fuse_set_feature_flag(conn, FUSE_CAP_PASSTHROUGH);
}

/* The reply as a memfd registered with the kernel: its backing id, or 0 */
static int backing(fuse_req_t req, const mcp_buf *b)
{
	int fd = memfd_create("mcpfs-reply", MFD_CLOEXEC), id = 0;
	size_t at = 0;
	ssize_t w;

	if (fd < 0)
		return 0;
	while (at < b->len && (w = write(fd, b->data + at, b->len - at)) > 0)
		at += (size_t)w;
	if (at == b->len)
		id = fuse_passthrough_open(req, fd);
	close(fd); /* the kernel holds the file by its id */
	return id > 0 ? id : 0;
}

void fuse318_open(fuse_req_t req, const struct node *n,
		  struct fuse_file_info *fi)
{
	static mcp_call *held;
	static int held_id;
	mcp_call *c;
	mcp_buf *b;
	int id;

	if (!passthrough || n->kind != K_CALL ||
	    (fi->flags & O_ACCMODE) != O_RDONLY ||
	    callfile_fresh(n->st.server_id, n->s ? n->st.id : 0, NULL,
			   fuse_req_ctx(req)->pid, &c) < 0 || !c ||
	    !(b = mcp_call_reply(c)) || b->len < (1u << 20))
		return;
	if (c != held) {
		if (!(id = backing(req, b)))
			return;
		if (held) {
			fuse_passthrough_close(req, held_id);
			mcp_call_unref(held);
		}
		held = mcp_call_ref(c);
		held_id = id;
	}
	fi->backing_id = held_id;
	fi->direct_io = 0; /* the kernel refuses passthrough with direct I/O */
}

const struct fuse_lowlevel_ops *fuse318_ops(const struct fuse_lowlevel_ops *ops)
{
	real = ops;
	wrapped = *ops;
#define W(NAME) if (ops->NAME) wrapped.NAME = w_##NAME
	W(lookup); W(getattr); W(setattr); W(mkdir); W(rmdir); W(unlink);
	W(mknod); W(symlink); W(rename); W(link); W(create); W(open);
	W(read); W(write); W(flush); W(release); W(poll); W(opendir);
	W(readdir); W(releasedir); W(statfs); W(init);
#undef W
	return &wrapped;
}

void fuse318_start(uv_loop_t *loop)
{
	uv_async_init(loop, &wake, wake_cb);
	uv_unref((uv_handle_t *)&wake); /* the mount keeps the loop, not this */
}

void fuse318_stop(void)
{
	uv_close((uv_handle_t *)&wake, NULL);
}
