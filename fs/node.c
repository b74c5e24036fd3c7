/*
 * node.c - the nodes of the tree: the table of file kinds (fs_kinds: name,
 * what a kind may do, its size), inode numbers and what they resolve to,
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

_Static_assert(MCP_NAMES_MAX <= INDEX_MASK + 1 &&
	       MCP_PARTS_MAX + 3 <= INDEX_MASK + 1,
	       "an index fits the inode's index bits");

static double mount_time;

void node_mount_time(double t)
{
	mount_time = t;
}

/* ---- sizes of the kinds whose content is in memory ---- */

static off_t buf_size(mcp_buf *b)
{
	off_t n = b ? (off_t)b->len : 0;

	mcp_buf_unref(b);
	return n;
}

static off_t size_status(const struct node *n)
{
	return buf_size(mcp_session_status_json(n->s));
}

static off_t size_stderr(const struct node *n)
{
	return buf_size(mcp_session_stderr(n->s));
}

static off_t size_events(const struct node *n)
{
	return (off_t)mcp_session_log_size(n->s, MCP_EVENTS);
}

static off_t size_trace(const struct node *n)
{
	return (off_t)mcp_session_log_size(n->s, MCP_TRACE);
}

static off_t size_listing(const struct node *n, enum mcp_list what)
{
	mcp_call *c = mcp_list_cached(n->srv, n->s, what);

	return c ? (off_t)mcp_call_reply(c)->len : 0;
}

static off_t size_tools(const struct node *n)
{
	return size_listing(n, MCP_TOOLS);
}

static off_t size_prompts(const struct node *n)
{
	return n->s ? size_listing(n, MCP_PROMPTS) : 0;
}

static off_t size_result(const struct node *n)
{
	const struct mcp_part *parts;
	size_t np;

	mcp_result(n->s, &parts, &np);
	return n->idx < np ? (off_t)parts[n->idx].data->len : 0;
}

static off_t size_req(const struct node *n)
{
	mcp_ask *q = mcp_ask_by_num(n->s, n->idx);

	return q ? buf_size(mcp_ask_json(q)) : 0;
}

static off_t size_help(const struct node *n)
{
	const char *f = mcp_help_name_at(n->srv, n->s, n->idx);

	return f ? buf_size(mcp_help(n->srv, n->s, f)) : 0;
}

/* result/ names no listing: its entries are the latest reply's parts. */
const struct kind_info fs_kinds[K_NKINDS] = {
	[K_DIR] = {NULL, KF_DIR, NULL},
	[K_CALL] = {"call", KF_SERVER | KF_THREAD | KF_WRITE, NULL},
	[K_TOOLS] = {"tools.json", KF_SERVER | KF_THREAD, size_tools},
	[K_STATUS] = {"status", KF_THREAD, size_status},
	[K_STDERR] = {"stderr", KF_THREAD, size_stderr},
	[K_EVENTS] = {"events", KF_THREAD, size_events},
	[K_TRACE] = {"trace", KF_THREAD, size_trace},
	[K_CTL] = {"ctl", KF_THREAD | KF_WRITE, NULL},
	[K_TOOLDIR] = {"tools", KF_THREAD | KF_DIR | KF_LISTING, NULL,
		       K_TOOL, MCP_TOOLS},
	[K_RESULTDIR] = {"result", KF_THREAD | KF_DIR | KF_LISTING, NULL,
			 K_RESULT, MCP_TOOLS},
	[K_RESDIR] = {"resources", KF_THREAD | KF_DIR | KF_LISTING, NULL,
		      K_RESOURCE, MCP_RESOURCES},
	[K_RESJSON] = {"resources.json", KF_THREAD | KF_LISTING, NULL},
	[K_PROMPTDIR] = {"prompts", KF_THREAD | KF_DIR | KF_LISTING, NULL,
			 K_PROMPT, MCP_PROMPTS},
	[K_PROMPTSJSON] = {"prompts.json", KF_THREAD | KF_LISTING,
			   size_prompts},
	[K_REQDIR] = {"requests", KF_THREAD | KF_DIR, NULL},
	[K_HELPDIR] = {"help", KF_SERVER | KF_THREAD | KF_DIR | KF_LISTING,
		       NULL, K_HELP, MCP_TOOLS},
	[K_TOOL] = {NULL, KF_INDEXED | KF_WRITE | KF_LISTING, NULL},
	[K_RESULT] = {NULL, KF_INDEXED | KF_LISTING, size_result},
	[K_RESOURCE] = {NULL, KF_INDEXED | KF_LISTING, NULL},
	[K_PROMPT] = {NULL, KF_INDEXED | KF_WRITE | KF_LISTING, NULL},
	[K_REQ] = {NULL, KF_INDEXED | KF_WRITE, size_req},
	[K_HELP] = {NULL, KF_INDEXED | KF_LISTING, size_help},
	[K_AUTH] = {"auth", KF_SERVER | KF_WRITE, NULL}, /* url servers */
};

fuse_ino_t fs_ino(uint64_t id, enum kind k)
{
	return ino_make(id, 0, k);
}

static int resolve(fuse_ino_t ino, struct node *n)
{
	uint64_t id = ino >> (KIND_BITS + INDEX_BITS);

	memset(n, 0, sizeof *n);
	if (ino == ROOT_INO) {
		n->type = N_ROOT;
		return 0;
	}
	if (ino == STATUS_INO || ino == README_INO) {
		n->type = ino == STATUS_INO ? N_DOTSTATUS : N_README;
		return 0;
	}
	if (ino == SERVEJSON_INO) {
		mcp_buf *b = mcp_client_entry();

		mcp_buf_unref(b);
		n->type = N_SERVEJSON;
		return b ? 0 : -ENOENT;
	}
	n->kind = (enum kind)(ino & ((1u << KIND_BITS) - 1));
	n->idx = (unsigned long)(ino >> KIND_BITS) & ((1ul << INDEX_BITS) - 1);
	if (n->kind >= K_NKINDS || (n->idx && !KIND_IS(n->kind, KF_INDEXED)))
		return -ENOENT;
	if ((n->srv = mcp_server_by_id(id)) != NULL) {
		n->type = N_SERVER;
		if (n->kind == K_AUTH)
			return mcp_server_has_auth(n->srv) ? 0 : -ENOENT;
		if (n->kind == K_HELP)
			return mcp_help_name_at(n->srv, NULL, n->idx) ? 0
								       : -ENOENT;
		return n->kind == K_DIR || KIND_IS(n->kind, KF_SERVER) ? 0
								      : -ENOENT;
	}
	if ((n->s = mcp_session_by_id(id)) != NULL) {
		const struct mcp_part *parts;
		size_t np;

		n->type = N_SESSION;
		n->srv = mcp_session_server(n->s);
		switch (n->kind) {
		case K_TOOL:
			return mcp_name_at(n->s, MCP_TOOLS, n->idx) ? 0 : -ENOENT;
		case K_PROMPT:
			return mcp_name_at(n->s, MCP_PROMPTS, n->idx) ? 0
								       : -ENOENT;
		case K_RESOURCE:
			return mcp_name_at(n->s, MCP_RESOURCES, n->idx) ? 0
									 : -ENOENT;
		case K_RESULT:
			mcp_result(n->s, &parts, &np);
			return n->idx < np ? 0 : -ENOENT;
		case K_REQ:
			return mcp_ask_by_num(n->s, n->idx) ? 0 : -ENOENT;
		case K_HELP:
			return mcp_help_name_at(n->srv, n->s, n->idx) ? 0
								     : -ENOENT;
		case K_AUTH:
			return -ENOENT;
		default:
			return 0;
		}
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
 * fresh open reads is done with 1 MiB or more, or is arriving in pieces
 * (a line longer than one read of the server's output: sessions/call.c
 * streams it). */
static blksize_t blksize(const struct node *n)
{
	mcp_call *c;
	mcp_buf *b;
	const char *p;
	size_t have;

	if (n->type < N_SERVER || n->kind != K_CALL || !n->srv)
		return 4096;
	c = mcp_latest(n->srv, n->s);
	if (!c)
		return 4096;
	if (!mcp_call_is_done(c))
		return mcp_call_partial(c, &p) ? 1 << 20 : 4096;
	have = (b = mcp_call_reply(c)) ? b->len : 0;
	return have >= (1u << 20) ? 1 << 20 : 4096;
}

void node_attr(fuse_ino_t ino, const struct node *n, struct stat *st)
{
	double mt = mount_time, ct = mount_time;
	int dir = n->type == N_ROOT ||
		  (n->type >= N_SERVER && KIND_IS(n->kind, KF_DIR));
	mcp_buf *b = NULL;

	memset(st, 0, sizeof *st);
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (dir) {
		st->st_mode = S_IFDIR | 0700;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG |
			      (n->type >= N_SERVER &&
			       KIND_IS(n->kind, KF_WRITE) ? 0600 : 0400);
		st->st_nlink = 1;
	}
	if (n->type == N_DOTSTATUS)
		b = mcp_status_json();
	else if (n->type == N_README)
		b = mcp_readme();
	else if (n->type == N_SERVEJSON)
		b = mcp_client_entry();
	if (b)
		st->st_size = (off_t)b->len;
	mcp_buf_unref(b);
	if (n->type >= N_SERVER && fs_kinds[n->kind].size)
		st->st_size = fs_kinds[n->kind].size(n);
	if (n->s) {
		mt = mcp_session_last_used(n->s);
		ct = mcp_session_created(n->s);
		if (n->kind == K_REQ) {
			mcp_ask *q = mcp_ask_by_num(n->s, n->idx);

			if (q)
				mt = ct = mcp_ask_created(q);
		}
	}
	set_time(&st->st_mtim, mt);
	set_time(&st->st_atim, mt);
	set_time(&st->st_ctim, ct);
	st->st_blksize = blksize(n);
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
	e.entry_timeout = n->type >= N_SERVER && KIND_IS(n->kind, KF_INDEXED)
				  ? 0 : 1.0;
	node_attr(ino, n, &e.attr);
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
	if (h->cf)
		callfile_free(h->cf);
	askfile_free(h->af);
	mcp_buf_unref(h->snap);
	gbuf_free(&h->dir);
	free(h);
}

void fs_open_fail(fuse_req_t req, struct fh *h, int err)
{
	mcp_session *s = h->session_id ? mcp_session_by_id(h->session_id)
				       : NULL;

	fs_fh_free(h);
	if (s)
		mcp_session_release(s);
	fuse_reply_err(req, err);
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
