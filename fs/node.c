/*
 * node.c - the nodes of the tree: inode numbers and what they resolve to
 * (by the table of file kinds, fs_kinds in kinds.c),
 * their attributes, and the per-open state (struct fh) every file and
 * directory gets. fs.c (the ops) and listing.c (the spec 9 directories)
 * both use it; it uses neither.
 *
 * Inode numbers are derived, not stored: root is 1, .status is 2,
 * README.md 3, and every other node is (object id << 25 | index << 5 |
 * kind), where the object is a server or a session (ids are never reused)
 * and the index a name of the session's, a part of result/, the number of
 * a question in requests/ or a help/ file. So there is no inode table and
 * forget has nothing to free; a stale inode simply no longer resolves (ENOENT).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"

_Static_assert(K_NKINDS <= 1 << KIND_BITS, "a kind fits the inode's kind bits");
_Static_assert(MCP_NAMES_MAX <= INDEX_MASK + 1 &&
	       MCP_PARTS_MAX + 3 <= INDEX_MASK + 1,
	       "an index fits the inode's index bits");

static double mount_time;

void node_mount_time(double t)
{
	mount_time = t;
}

static off_t buf_size(mcp_buf *b)
{
	off_t n = b ? (off_t)b->len : 0;

	mcp_buf_unref(b);
	return n;
}

fuse_ino_t fs_ino(uint64_t id, enum kind k)
{
	return ino_make(id, 0, k);
}

static int present(const struct node *n)
{
	return !fs_kinds[n->kind].present || fs_kinds[n->kind].present(n)
		       ? 0 : -ENOENT;
}

/* A server directory, its entries, and those of its directories (help/) */
static int in_server(enum kind k)
{
	size_t d;

	for (d = 0; d < K_NKINDS; d++)
		if (KIND_IS(d, KF_SERVER) && KIND_IS(d, KF_DIR) &&
		    fs_kinds[d].child == k && KIND_IS(k, KF_INDEXED))
			return 1;
	return KIND_IS(k, KF_SERVER) || fs_kinds[k].flags == KF_DIR;
}

static int resolve(fuse_ino_t ino, struct node *n)
{
	uint64_t id = ino >> (KIND_BITS + INDEX_BITS);
	size_t k;

	memset(n, 0, sizeof *n);
	if (ino == ROOT_INO) {
		n->type = N_ROOT;
		return 0;
	}
	for (k = 0; k < K_NKINDS; k++)
		if (KIND_IS(k, KF_ROOT) && fs_kinds[k].ino == ino) {
			n->type = N_ROOTFILE;
			n->kind = (enum kind)k;
			return present(n);
		}
	n->kind = (enum kind)(ino & ((1u << KIND_BITS) - 1));
	n->idx = (unsigned long)(ino >> KIND_BITS) & ((1ul << INDEX_BITS) - 1);
	if (n->kind >= K_NKINDS || KIND_IS(n->kind, KF_ROOT) ||
	    (n->idx && !KIND_IS(n->kind, KF_INDEXED)))
		return -ENOENT;
	if (mcp_lookup(id, MCP_ANY, &n->st) < 0)
		return -ENOENT;
	n->srv = n->st.server;
	if (n->st.kind == MCP_SERVER) {
		n->type = N_SERVER;
		if (!in_server(n->kind))
			return -ENOENT;
		return present(n);
	}
	if (n->st.kind == MCP_THREAD) {
		n->type = N_THREAD;
		n->s = n->st.session;
		if (KIND_IS(n->kind, KF_SERVER) && !KIND_IS(n->kind, KF_THREAD))
			return -ENOENT; /* auth */
		return present(n);
	}
	return -ENOENT;
}

int fs_resolve(fuse_ino_t ino, struct node *n)
{
	return resolve(ino, n);
}

static void set_time(struct timespec *ts, double t)
{
	ts->tv_sec = (time_t)t;
	ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
}

/* st_blksize of a file: what `cat` and other stdio readers take for their
 * read size (coreutils: at least 128 KiB). Each read of a direct-I/O file
 * is one FUSE round trip, and the kernel pins (faults in) the whole read
 * buffer first, so a big size costs a small read about 0.5 ms: 1 MiB (the
 * most one request carries, max_pages) only for call when the reply a
 * fresh open by reader reads is done with 1 MiB or more, or is arriving
 * in pieces (a line longer than one read of the server's output:
 * sessions/call.c streams it). */
static blksize_t blksize(const struct node *n, pid_t reader)
{
	mcp_call *c;
	mcp_buf *b;
	const char *p;
	size_t have;

	if (n->type < N_SERVER || fs_kinds[n->kind].ops != &call_ops || !n->srv)
		return 4096;
	if (callfile_fresh(n->st.server_id, n->s ? n->st.id : 0, NULL, reader,
			   &c) < 0 || !c)
		return 4096;
	if (!(b = mcp_call_reply(c))) {
		mcp_call_stream(c, &p, &have);
		return have ? 1 << 20 : 4096;
	}
	have = b->len;
	return have >= (1u << 20) ? 1 << 20 : 4096;
}

void node_attr(fuse_ino_t ino, const struct node *n, pid_t reader,
	       struct stat *st)
{
	double mt = mount_time, ct = mount_time;
	int dir = KIND_IS(n->kind, KF_DIR);
	const struct kind_info *ki = &fs_kinds[n->kind];

	memset(st, 0, sizeof *st);
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (dir) {
		st->st_mode = S_IFDIR | 0700;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG |
			      (KIND_IS(n->kind, KF_WRITE) ? 0600 : 0400);
		st->st_nlink = 1;
	}
	if (ki->size)
		st->st_size = ki->size(n, reader);
	else if (ki->snap)
		st->st_size = buf_size(ki->snap(n));
	if (n->s) {
		mt = n->st.used;
		ct = n->st.created;
		if (ki->created)
			mt = ct = ki->created(n);
	}
	set_time(&st->st_mtim, mt);
	set_time(&st->st_atim, mt);
	set_time(&st->st_ctim, ct);
	st->st_blksize = blksize(n, reader);
	st->st_blocks = (st->st_size + 511) / 512;
}

static void reply_entry(fuse_req_t req, fuse_ino_t ino, const struct node *n)
{
	struct fuse_entry_param e;

	memset(&e, 0, sizeof e);
	e.ino = ino;
	e.generation = 1;
	e.attr_timeout = 0;
	/* names in result/ and the listings change with each reply */
	e.entry_timeout = KIND_IS(n->kind, KF_INDEXED) ? 0 : 1.0;
	node_attr(ino, n, fuse_req_ctx(req)->pid, &e.attr);
	fuse_reply_entry(req, &e);
}

void fs_reply_entry(fuse_req_t req, fuse_ino_t ino, const struct node *n)
{
	reply_entry(req, ino, n);
}

static LIST_HEAD(, fh) open_fhs = LIST_HEAD_INITIALIZER(open_fhs);

struct fh *fs_fh_new(void)
{
	struct fh *h = calloc(1, sizeof *h);

	if (h)
		LIST_INSERT_HEAD(&open_fhs, h, link);
	return h;
}

void fs_fh_free_all(void)
{
	while (!LIST_EMPTY(&open_fhs))
		fs_fh_free(LIST_FIRST(&open_fhs));
}

void fs_fh_free(struct fh *h)
{
	LIST_REMOVE(h, link);
	if (h->ops && h->ops->release)
		h->ops->release(h);
	mcp_buf_unref(h->snap);
	if (!h->ops) { /* a directory's part */
		mcp_call_unref(h->list);
		gbuf_free(&h->dir);
	}
	free(h);
}

void fs_open_fail(fuse_req_t req, struct fh *h, int err)
{
	mcp_session *s = fs_thread(h->thread_id);

	fs_fh_free(h);
	if (s)
		mcp_session_release(s);
	fuse_reply_err(req, err);
}

void fs_dir_reply(fuse_req_t req, struct fh *h, struct fuse_file_info *fi)
{
	fi->fh = (uint64_t)(uintptr_t)h;
	fuse_reply_open(req, fi);
}

int fs_dir_add(struct fh *h, fuse_req_t req, const char *name,
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
