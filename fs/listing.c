/*
 * listing.c - the MCP surface as files (spec 9), in a thread directory:
 *
 *   tools/<tool>       a transaction file like call; the request is the
 *                      arguments object (callfile.c wraps it)
 *   prompts/<prompt>   the same for prompts/get
 *   resources/<uri>    reading gives the resource's contents; any URI may
 *                      be looked up (templates), a missing one is ENOENT
 *   result/            the latest completed reply unpacked (sessions/
 *                      surface.c); exact sizes, never waits
 *   resources.json, prompts.json   the listings, as tools.json
 *
 * Names are percent-encoded into path components and numbered per session
 * (mcp_name_intern) for their inode numbers. Looking up or listing tools/,
 * prompts/ or resources/ needs the server's listing: a lookup, opendir or
 * open that finds it not yet fetched is parked until it arrives (never on
 * a user's call), then answered from that very listing, even if a
 * list_changed has dropped the cache meanwhile. An interrupt answers the
 * parked request with EINTR.
 *
 * A request keeps every listing it got (got[], carried from park to
 * park), so that it asks for each listing at most once however often it
 * waits (spec 9: no read makes more than one request of each kind, and a
 * listing that failed is not asked for again by the same read).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

enum { P_LOOKUP, P_OPENDIR, P_OPEN };

/* A request waiting for a call (a listing, or a resources/read). */
struct park {
	struct mcp_listener lis;
	mcp_call *c;
	int op;
	fuse_req_t req;
	fuse_ino_t ino;          /* the parent (lookup) or the node */
	struct fh *h;
	struct fuse_file_info fi;
	mcp_call *got[MCP_NLISTS]; /* the listings it got so far */
	char name[];
};

static void got_free(mcp_call **got)
{
	int i;

	for (i = 0; i < MCP_NLISTS; i++) {
		mcp_call_unref(got[i]);
		got[i] = NULL;
	}
}

static void park_free(struct park *p)
{
	mcp_listener_remove(&p->lis);
	mcp_call_unref(p->c);
	got_free(p->got);
	free(p);
}

static void run(struct park *p);

static void park_done(struct mcp_listener *l, mcp_call *c)
{
	run((struct park *)l);
}

/* p waits for one of the listings it got (shared: never cancelled). */
static int is_listing(const struct park *p)
{
	int i;

	for (i = 0; i < MCP_NLISTS; i++)
		if (p->got[i] == p->c)
			return 1;
	return 0;
}

static void park_interrupt(fuse_req_t req, void *data)
{
	struct park *p = data;

	if (p->op == P_OPEN && fs_kinds[p->h->kind].lops->cancel &&
	    !is_listing(p))
		mcp_call_cancel(p->c); /* the read of that file */
	mcp_listener_remove(&p->lis);
	if (p->op == P_OPEN)
		fs_open_fail(p->req, p->h, EINTR);
	else if (p->op == P_OPENDIR) {
		fs_fh_free(p->h);
		fuse_reply_err(p->req, EINTR);
	} else {
		fuse_reply_err(p->req, EINTR);
	}
	park_free(p);
}

/* Wait for c (a reference taken) and run the request again then, with
 * the listings of got (references of their own). */
static void park(int op, fuse_req_t req, fuse_ino_t ino, struct fh *h,
		 struct fuse_file_info *fi, const char *name, mcp_call *c,
		 mcp_call **got)
{
	struct park *p = calloc(1, sizeof *p + (name ? strlen(name) : 0) + 1);
	int i;

	if (!p) {
		mcp_call_unref(c);
		if (op == P_OPEN)
			fs_open_fail(req, h, ENOMEM);
		else {
			if (h)
				fs_fh_free(h);
			fuse_reply_err(req, ENOMEM);
		}
		return;
	}
	p->op = op;
	p->req = req;
	p->ino = ino;
	p->h = h;
	if (fi)
		p->fi = *fi;
	if (name)
		strcpy(p->name, name);
	p->c = c;
	for (i = 0; i < MCP_NLISTS; i++)
		p->got[i] = got[i] ? mcp_call_ref(got[i]) : NULL;
	if (mcp_call_reply(c)) { /* it failed at once */
		run(p);
		return;
	}
	p->lis.done = park_done;
	mcp_call_listen(c, &p->lis);
	fuse_req_interrupt_func(req, park_interrupt, p);
}

/* listing_need (fs.h) of srv's probe when s is NULL. */
static int need_list_of(mcp_server *srv, mcp_session *s, enum mcp_list what,
			mcp_call **got, mcp_call **c)
{
	int r;

	if (got[what]) {
		*c = mcp_call_ref(got[what]);
		return mcp_call_reply(*c) ? 1 : 0;
	}
	r = mcp_list(srv, s, what, c);
	if (r < 0)
		return r;
	got[what] = mcp_call_ref(*c);
	return mcp_call_reply(*c) ? 1 : 0;
}

int listing_need(const struct node *n, enum mcp_list what, mcp_call **got,
		 mcp_call **c)
{
	return need_list_of(n->srv, n->s, what, got, c);
}

/* The inode of a node of the server or thread of n. */
static fuse_ino_t ino_of(const struct node *n, unsigned long idx,
			 enum kind k)
{
	return ino_make(n->st.id, idx, k);
}

/*
 * help/: a tool's help file is its file in tools/, a prompt's "prompt:"
 * and its file in prompts/; a tool whose file begins with "prompt:" has
 * that colon as "%3A" (a '%' in a file name is always an escape, so no
 * other name gives it). The key of each (mcp_help_intern) is "t:" or
 * "p:" and the name.
 */
#define PROMPT_PREFIX "prompt:"
#define PROMPT_ESC "prompt%3A"

/* The help file of entry e of the tools (prompt 0) or prompts listing;
 * malloc'd. */
static char *help_file(const struct mcp_entry *e, int prompt)
{
	char *f = NULL;
	int r;

	if (prompt)
		r = asprintf(&f, PROMPT_PREFIX "%s", e->file);
	else if (!strncmp(e->file, PROMPT_PREFIX, strlen(PROMPT_PREFIX)))
		r = asprintf(&f, "%s%s", PROMPT_ESC,
			     e->file + strlen(PROMPT_PREFIX));
	else
		r = asprintf(&f, "%s", e->file);
	return r < 0 ? NULL : f;
}

static long help_intern(const struct node *n, const struct mcp_entry *e,
			int prompt)
{
	char *key = NULL;
	long idx;

	if (asprintf(&key, "%s%s", prompt ? "p:" : "t:", e->name) < 0)
		return -ENOMEM;
	idx = mcp_help_intern(n->srv, n->s, key);
	free(key);
	return idx;
}

/* help/<file>: its number, -1 when the listing has no such entry, or -2
 * when parked on the listing, which is then *wait. */
static long help_lookup(const struct node *p, const char *file,
			mcp_call **got, mcp_call **wait, int *err)
{
	int prompt = !strncmp(file, PROMPT_PREFIX, strlen(PROMPT_PREFIX));
	enum mcp_list what = prompt ? MCP_PROMPTS : MCP_TOOLS;
	const struct mcp_entry *e;
	char *f = NULL;
	mcp_call *c;
	long idx = -1;
	int r;

	*err = 0;
	r = need_list_of(p->srv, p->s, what, got, &c);
	if (r <= 0) {
		*err = r;
		*wait = c;
		return r < 0 ? -1 : -2;
	}
	if (prompt) {
		file += strlen(PROMPT_PREFIX);
	} else if (!strncmp(file, PROMPT_ESC, strlen(PROMPT_ESC))) {
		if (asprintf(&f, PROMPT_PREFIX "%s",
			     file + strlen(PROMPT_ESC)) < 0) {
			mcp_call_unref(c);
			*err = -ENOMEM;
			return -1;
		}
		file = f;
	}
	e = mcp_entry_find(c, p->s, file, 0);
	if (e)
		idx = help_intern(p, e, prompt);
	else if (mcp_call_failed(c))
		*err = -EIO;
	mcp_call_unref(c);
	free(f);
	return idx;
}

/* ---- lookup ---- */

/* help/<file> */
static int help_entry(const struct node *d, const char *name,
		      mcp_call *have, mcp_call **got, mcp_call **wait,
		      long *idx, enum kind *child)
{
	int r;

	*idx = help_lookup(d, name, got, wait, &r);
	if (*idx == -2)
		return 0;
	return r < 0 ? r : 1;
}

/* result/<part> */
static int result_entry(const struct node *d, const char *name,
			mcp_call *have, mcp_call **got, mcp_call **wait,
			long *idx, enum kind *child)
{
	const struct mcp_part *parts;
	size_t np, i;

	*idx = -1;
	mcp_result(d->s, &parts, &np);
	for (i = 0; i < np; i++)
		if (!strcmp(parts[i].name, name))
			*idx = (long)i;
	return 1;
}

/* resources/<uri>: any URI, listed or not (templates), without waiting */
static int res_entry(const struct node *d, const char *name,
		     mcp_call *have, mcp_call **got, mcp_call **wait,
		     long *idx, enum kind *child)
{
	enum mcp_list what = fs_kinds[d->kind].list;
	mcp_call *l = mcp_list_cached(d->srv, d->s, what);
	const struct mcp_entry *e = l ? mcp_entry_find(l, d->s, name, 0)
				      : NULL;
	char *uri = e ? strdup(e->name) : mcp_name_decode(name);

	*idx = uri && *uri ? mcp_name_intern(d->s, what, uri) : -1;
	free(uri);
	return 1;
}

/* tools/<tool>, prompts/<prompt> */
static int name_entry(const struct node *d, const char *name,
		      mcp_call *have, mcp_call **got, mcp_call **wait,
		      long *idx, enum kind *child)
{
	enum mcp_list what = fs_kinds[d->kind].list;
	const struct mcp_entry *e;
	mcp_call *c = NULL;
	char *dec;
	int r = listing_need(d, what, got, &c);

	*idx = -1;
	if (r <= 0) {
		*wait = c;
		return r;
	}
	if (mcp_call_failed(c)) {
		/* no listing (the server is down): the file is there all the
		 * same, and a call of it reads back the error as call does
		 * (spec 9) */
		mcp_call_unref(c);
		dec = mcp_name_decode(name);
		*idx = dec && *dec ? mcp_name_intern(d->s, what, dec) : -1;
		free(dec);
		return 1;
	}
	e = mcp_entry_find(c, d->s, name, 0);
	if (e)
		*idx = mcp_name_intern(d->s, what, e->name);
	mcp_call_unref(c);
	return 1;
}

/* A node of a kind served here (of a server: help/ and its files only,
 * as node.c resolves no other kind of this file for a server). */
static int resolve_listing(fuse_ino_t ino, struct node *n)
{
	return fs_resolve(ino, n) < 0 || !fs_kinds[n->kind].lops ? -ENOENT
								  : 0;
}

static void lookup(fuse_req_t req, fuse_ino_t parent, const char *name,
		   mcp_call *have, mcp_call **got)
{
	struct node p, n;
	mcp_call *c = NULL;
	long idx = -1;
	enum kind child;
	int r;

	if (resolve_listing(parent, &p) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	child = fs_kinds[p.kind].child;
	r = fs_kinds[p.kind].lops->entry(&p, name, have, got, &c, &idx,
					 &child);
	if (r == 0) {
		park(P_LOOKUP, req, parent, NULL, NULL, name, c, got);
		return;
	}
	if (r < 0 || idx < 0) {
		fuse_reply_err(req, r < 0 ? -r : idx == -1 ? ENOENT : (int)-idx);
		return;
	}
	parent = ino_of(&p, (unsigned long)idx, child);
	if (fs_resolve(parent, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fs_reply_entry(req, parent, &n);
}

static void listing_lookup(fuse_req_t req, fuse_ino_t parent,
			   const char *name)
{
	mcp_call *got[MCP_NLISTS] = {0};

	lookup(req, parent, name, NULL, got);
	got_free(got);
}

/* ---- opendir ---- */

/*
 * The errno of a listing that failed (c done with an error), logged with
 * the server's reason: ENOTCONN when the server could not be started or
 * died (there is no server to list: "Transport endpoint is not
 * connected", as sshfs says of a lost host), else EIO. The reason itself
 * is also the thread's status.last_error.
 */
static int listing_errno(const struct node *n, mcp_call *c)
{
	char why[300];
	int err = mcp_call_errno(c, why, sizeof why);
	struct mcp_stat srv = { .name = "?" };

	mcp_lookup(n->st.server_id, MCP_SERVER, &srv);
	mlog(MLOG_WARN, "server %s%s%s: %s/ cannot be listed: %s",
	     srv.name, n->s ? " thread " : "", n->s ? n->st.name : "",
	     fs_kinds[n->kind].name, why);
	return err ? err : EIO;
}

/* The -errno of a listing that could not be had: r when r < 0, else
 * that of the failed listing c (whose reference is dropped). */
static int refused(const struct node *n, int r, mcp_call *c)
{
	int err = r < 0 ? -r : listing_errno(n, c);

	if (r > 0)
		mcp_call_unref(c);
	return -err;
}

/* help/ of a server or thread: a file per tool, and per prompt as
 * prompt:<name>. Both listings are asked for at once (on one probe session
 * for a server: spec 12); a failed tools listing is an error, a failed
 * prompts one leaves the prompts out. */
static int help_fill(fuse_req_t req, const struct node *n, struct fh *h,
		     mcp_call **got, mcp_call **wait)
{
	static const enum mcp_list whats[] = {MCP_TOOLS, MCP_PROMPTS};
	mcp_call *c[2] = {NULL, NULL};
	int r[2];
	size_t w;

	for (w = 0; w < 2; w++)
		r[w] = need_list_of(n->srv, n->s, whats[w], got, &c[w]);
	for (w = 0; w < 2; w++) {
		if (r[w] != 0)
			continue;
		if (r[1 - w] >= 0)
			mcp_call_unref(c[1 - w]);
		*wait = c[w];
		return 0;
	}
	if (r[0] < 0 || mcp_call_failed(c[0])) {
		if (r[1] > 0)
			mcp_call_unref(c[1]);
		return refused(n, r[0], c[0]);
	}
	for (w = 0; w < 2; w++) {
		const struct mcp_entry *v = NULL;
		size_t ne = 0, i;

		if (r[w] > 0 && mcp_entries(c[w], n->s, &v, &ne) < 0)
			ne = 0;
		for (i = 0; i < ne; i++) {
			char *file = help_file(&v[i], w);
			long idx = file ? help_intern(n, &v[i], w) : -ENOMEM;

			if (idx >= 0)
				fs_dir_add(h, req, file,
					   ino_of(n, (unsigned long)idx,
						  fs_kinds[n->kind].child), 0);
			free(file);
		}
		if (r[w] > 0)
			mcp_call_unref(c[w]);
	}
	return 1;
}

/* result/: the latest reply's parts */
static int result_fill(fuse_req_t req, const struct node *n, struct fh *h,
		       mcp_call **got, mcp_call **wait)
{
	const struct mcp_part *parts;
	size_t np, i;

	mcp_result(n->s, &parts, &np);
	for (i = 0; i < np; i++)
		fs_dir_add(h, req, parts[i].name,
			   ino_of(n, i, fs_kinds[n->kind].child), 0);
	return 1;
}

/* tools/, prompts/, resources/: an entry per item of the listing */
static int list_fill(fuse_req_t req, const struct node *n, struct fh *h,
		     mcp_call **got, mcp_call **wait)
{
	const struct mcp_entry *v;
	mcp_call *c;
	size_t ne, i;
	int r = listing_need(n, fs_kinds[n->kind].list, got, &c);

	if (r == 0) {
		*wait = c;
		return 0;
	}
	if (r < 0 || mcp_call_failed(c) || mcp_entries(c, n->s, &v, &ne) < 0)
		return refused(n, r, c);
	for (i = 0; i < ne; i++) {
		long idx = mcp_name_intern(n->s, fs_kinds[n->kind].list,
					   v[i].name);

		if (idx >= 0)
			fs_dir_add(h, req, v[i].file,
				   ino_of(n, (unsigned long)idx,
					  fs_kinds[n->kind].child), 0);
	}
	mcp_call_unref(c);
	return 1;
}

static void opendir_(fuse_req_t req, fuse_ino_t ino, struct fh *h,
		     struct fuse_file_info *fi, mcp_call **got)
{
	struct node n;
	mcp_call *c = NULL;
	int r = resolve_listing(ino, &n);

	if (r == 0)
		r = fs_kinds[n.kind].lops->fill(req, &n, h, got, &c);
	if (r == 0) {
		park(P_OPENDIR, req, ino, h, fi, NULL, c, got);
		return;
	}
	if (r < 0) {
		fs_fh_free(h);
		fuse_reply_err(req, -r);
		return;
	}
	fs_dir_reply(req, h, fi);
}

static void listing_opendir(fuse_req_t req, fuse_ino_t ino, struct fh *h,
			    struct fuse_file_info *fi)
{
	mcp_call *got[MCP_NLISTS] = {0};

	opendir_(req, ino, h, fi, got);
	got_free(got);
}

/* ---- open ---- */

/* help/<file>: its text, once its listing is there */
static int help_open(const struct node *n, struct fh *h,
		     struct fuse_file_info *fi, mcp_call *have,
		     mcp_call **got, mcp_call **wait)
{
	const char *f = mcp_help_name_at(n->srv, n->s, n->idx);
	int r;

	h->snap = mcp_help(n->srv, n->s, f);
	if (h->snap)
		return 1;
	if (have) /* listed again, and it is not there */
		return -ENOENT;
	r = need_list_of(n->srv, n->s, strncmp(f, "p:", 2) ? MCP_TOOLS
						      : MCP_PROMPTS, got, wait);
	if (r > 0) { /* done at once, failed */
		mcp_call_unref(*wait);
		return -EIO;
	}
	return r;
}

/* result/<part> */
static int result_open(const struct node *n, struct fh *h,
		       struct fuse_file_info *fi, mcp_call *have,
		       mcp_call **got, mcp_call **wait)
{
	const struct mcp_part *parts;
	size_t np;

	mcp_result(n->s, &parts, &np);
	h->snap = mcp_buf_ref(parts[n->idx].data);
	return 1;
}

/* tools/<tool>, prompts/<prompt>: a call file of its own (callfile.c) */
static int tool_open(const struct node *n, struct fh *h,
		     struct fuse_file_info *fi, mcp_call *have, mcp_call **got,
		     mcp_call **wait)
{
	enum mcp_list what = fs_kinds[n->kind].list;

	h->cf = callfile_new(0, what == MCP_PROMPTS, n->st.server_id, n->st.id,
			     (fi->flags & O_ACCMODE) == O_WRONLY);
	if (!h->cf)
		return -errno;
	if (callfile_target(h->cf, mcp_name_at(n->s, what, n->idx)) < 0)
		return -ENOMEM;
	return 1;
}

/* prompts.json */
static int promptsjson_open(const struct node *n, struct fh *h,
			    struct fuse_file_info *fi, mcp_call *have,
			    mcp_call **got, mcp_call **wait)
{
	int r = listing_need(n, MCP_PROMPTS, got, wait);

	if (r <= 0)
		return r;
	h->snap = mcp_buf_ref(mcp_call_reply(*wait));
	mcp_call_unref(*wait);
	return 1;
}

/* resources.json: both listings, asked for at once */
static int resjson_open(const struct node *n, struct fh *h,
			struct fuse_file_info *fi, mcp_call *have,
			mcp_call **got, mcp_call **wait)
{
	mcp_call *c = NULL, *c2 = NULL;
	int r = listing_need(n, MCP_RESOURCES, got, &c), err;

	if (r < 0)
		return r;
	err = listing_need(n, MCP_TEMPLATES, got, &c2);
	if (r == 0) { /* wait for the resources */
		if (err >= 0)
			mcp_call_unref(c2);
		*wait = c;
		return 0;
	}
	if (err <= 0) { /* for the templates, or their error */
		mcp_call_unref(c);
		*wait = c2;
		return err;
	}
	h->snap = mcp_resources_doc(c, c2);
	mcp_call_unref(c);
	mcp_call_unref(c2);
	return 1;
}

/* resources/<uri>: read at every open (spec 15: an update shows) */
static int resource_open(const struct node *n, struct fh *h,
			 struct fuse_file_info *fi, mcp_call *have,
			 mcp_call **got, mcp_call **wait)
{
	const char *uri = mcp_name_at(n->s, MCP_RESOURCES, n->idx);
	int r, err;

	if (!have) {
		r = mcp_resource_read(n->s, uri, wait);
		return r < 0 ? r : 0;
	}
	h->snap = mcp_resource_file(n->s, uri, mcp_call_reply(have), &err);
	return h->snap ? 1 : err;
}

static void open_(fuse_req_t req, fuse_ino_t ino, struct fh *h,
		  struct fuse_file_info *fi, mcp_call *have, mcp_call **got)
{
	struct node n;
	mcp_call *c = NULL;
	int r = resolve_listing(ino, &n);

	if (r == 0)
		r = fs_kinds[n.kind].lops->open(&n, h, fi, have, got, &c);
	if (r == 0)
		park(P_OPEN, req, ino, h, fi, NULL, c, got);
	else if (r < 0)
		fs_open_fail(req, h, -r);
	else
		fuse_reply_open(req, fi);
}

void listing_open(fuse_req_t req, fuse_ino_t ino, struct fh *h,
		  struct fuse_file_info *fi)
{
	mcp_call *got[MCP_NLISTS] = {0};

	open_(req, ino, h, fi, NULL, got);
	got_free(got);
}

static void run(struct park *p)
{
	mcp_call *c = mcp_call_ref(p->c);

	switch (p->op) {
	case P_LOOKUP:
		lookup(p->req, p->ino, p->name, c, p->got);
		break;
	case P_OPENDIR:
		opendir_(p->req, p->ino, p->h, &p->fi, p->got);
		break;
	default:
		open_(p->req, p->ino, p->h, &p->fi, c, p->got);
		break;
	}
	mcp_call_unref(c);
	park_free(p);
}

const struct listing_ops helpdir_lops = {.entry = help_entry,
					 .fill = help_fill};
const struct listing_ops resultdir_lops = {.entry = result_entry,
					   .fill = result_fill};
const struct listing_ops resdir_lops = {.entry = res_entry,
					.fill = list_fill};
const struct listing_ops namedir_lops = {.entry = name_entry,
					 .fill = list_fill};
const struct listing_ops help_lops = {.open = help_open};
const struct listing_ops result_lops = {.open = result_open};
const struct listing_ops tool_lops = {.open = tool_open};
const struct listing_ops promptsjson_lops = {.open = promptsjson_open};
const struct listing_ops resjson_lops = {.open = resjson_open};
const struct listing_ops resource_lops = {.open = resource_open,
					  .cancel = 1};

const struct file_ops listing_snap_ops = {
	.open_reply = listing_open,
	.read = fs_read_snap,
};

/* tools/x and prompts/x: opened here, then a callfile's (callfile.c) */
const struct file_ops tool_ops = {
	.open_reply = listing_open,
	.read = callfile_fh_read,
	.write = callfile_fh_write,
	.flush = callfile_fh_flush,
	.release = callfile_fh_release,
};

/* ---- the directories' ops (fs.h) ---- */

static void dir_lookup(fuse_req_t req, fuse_ino_t parent,
		       const struct node *d, const char *name)
{
	listing_lookup(req, parent, name);
}

static void dir_opendir(fuse_req_t req, fuse_ino_t ino, const struct node *d,
			struct fh *h, struct fuse_file_info *fi)
{
	listing_opendir(req, ino, h, fi);
}

/* a thread's: removes nothing, so that rm -r of the thread works (dirs.c);
 * a server's help/: EPERM */
static void dir_unlink(fuse_req_t req, const struct node *d, const char *name)
{
	fuse_reply_err(req, d->s ? 0 : EPERM);
}

const struct dir_ops listing_dir = {
	.lookup = dir_lookup,
	.opendir = dir_opendir,
	.unlink = dir_unlink,
};

/* skills/ and its folders: rmdir of a folder too, as unlink */
const struct dir_ops listing_tree_dir = {
	.lookup = dir_lookup,
	.opendir = dir_opendir,
	.rmdir = dir_unlink,
	.unlink = dir_unlink,
};
