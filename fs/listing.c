/*
 * listing.c - the MCP surface as files (SPEC 9), in a thread directory:
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
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

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
	char name[];
};

static enum mcp_list list_of(enum kind dir)
{
	return dir == K_TOOLDIR ? MCP_TOOLS
	       : dir == K_PROMPTDIR ? MCP_PROMPTS : MCP_RESOURCES;
}

static enum kind file_of(enum kind dir)
{
	return dir == K_TOOLDIR ? K_TOOL
	       : dir == K_PROMPTDIR ? K_PROMPT
	       : dir == K_RESDIR ? K_RESOURCE : K_RESULT;
}

static int listing_failed(const mcp_call *c)
{
	return !memcmp(mcp_call_reply(c)->data, "{\"error\"", 8);
}

/* The names of a done listing (tools and prompts by name, resources by
 * uri), as a cJSON array of strings; NULL if it failed. */
static cJSON *names_of(const mcp_call *c, enum mcp_list what)
{
	const mcp_buf *b = mcp_call_reply(c);
	cJSON *doc = cJSON_ParseWithLength(b->data, b->len), *out, *it;
	const char *key = what == MCP_RESOURCES ? "uri" : "name";

	if (!doc || listing_failed(c)) {
		cJSON_Delete(doc);
		return NULL;
	}
	out = cJSON_CreateArray();
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(
				       doc, mcp_list_key(what))) {
		cJSON *n = cJSON_GetObjectItemCaseSensitive(it, key);

		if (cJSON_IsString(n) && *n->valuestring)
			cJSON_AddItemToArray(out,
					     cJSON_CreateString(n->valuestring));
	}
	cJSON_Delete(doc);
	return out;
}

static void park_free(struct park *p)
{
	mcp_listener_remove(&p->lis);
	mcp_call_unref(p->c);
	free(p);
}

static void run(struct park *p);

static void park_done(struct mcp_listener *l, mcp_call *c)
{
	run((struct park *)l);
}

static void park_interrupt(fuse_req_t req, void *data)
{
	struct park *p = data;

	if (p->op == P_OPEN && p->h->kind == K_RESOURCE)
		mcp_call_cancel(p->c); /* the read of that resource */
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

/* Wait for c (a reference taken) and run the request again then. */
static void park(int op, fuse_req_t req, fuse_ino_t ino, struct fh *h,
		 struct fuse_file_info *fi, const char *name, mcp_call *c)
{
	struct park *p = calloc(1, sizeof *p + (name ? strlen(name) : 0) + 1);

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
	if (mcp_call_is_done(c)) { /* it failed at once */
		run(p);
		return;
	}
	p->lis.done = park_done;
	mcp_call_listen(c, &p->lis);
	fuse_req_interrupt_func(req, park_interrupt, p);
}

/* The listing of s for dir: 1 with *c done, 0 parked, -errno. */
static int need_list(mcp_session *s, enum mcp_list what, mcp_call *have,
		     mcp_call **c)
{
	int r;

	if (have && mcp_call_is_done(have)) {
		*c = mcp_call_ref(have);
		return 1;
	}
	r = mcp_list(mcp_session_server(s), s, what, c);
	if (r < 0)
		return r;
	return mcp_call_is_done(*c) ? 1 : 0;
}

/* ---- lookup ---- */

static void lookup(fuse_req_t req, fuse_ino_t parent, const char *name,
		   mcp_call *have)
{
	struct node p, n;
	enum mcp_list what;
	mcp_call *c = NULL;
	long idx = -1;
	int r;

	if (fs_resolve(parent, &p) < 0 || !p.s) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	what = list_of(p.kind);
	if (p.kind == K_RESULTDIR) {
		const struct mcp_part *parts;
		size_t np, i;

		mcp_result(p.s, &parts, &np);
		for (i = 0; i < np; i++)
			if (!strcmp(parts[i].name, name))
				idx = (long)i;
	} else if (p.kind == K_RESDIR) {
		char *uri = mcp_name_decode(name);

		idx = uri && *uri ? mcp_name_intern(p.s, what, uri) : -ENOENT;
		free(uri);
	} else {
		cJSON *names, *it;

		r = need_list(p.s, what, have, &c);
		if (r == 0) {
			park(P_LOOKUP, req, parent, NULL, NULL, name, c);
			return;
		}
		if (r < 0) {
			fuse_reply_err(req, -r);
			return;
		}
		names = names_of(c, what);
		mcp_call_unref(c);
		if (!names) {
			fuse_reply_err(req, EIO);
			return;
		}
		cJSON_ArrayForEach(it, names) {
			char *enc = mcp_name_encode(it->valuestring);

			if (enc && !strcmp(enc, name))
				idx = mcp_name_intern(p.s, what,
						      it->valuestring);
			free(enc);
		}
		cJSON_Delete(names);
	}
	if (idx < 0) {
		fuse_reply_err(req, idx == -1 ? ENOENT : (int)-idx);
		return;
	}
	parent = ino_make(mcp_session_id(p.s), (unsigned long)idx,
			  file_of(p.kind));
	if (fs_resolve(parent, &n) < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fs_reply_entry(req, parent, &n);
}

void listing_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	lookup(req, parent, name, NULL);
}

/* ---- opendir ---- */

static void opendir_(fuse_req_t req, fuse_ino_t ino, struct fh *h,
		     struct fuse_file_info *fi, mcp_call *have)
{
	struct node n;
	uint64_t sid;
	mcp_call *c;
	cJSON *names, *it;
	int r;

	if (fs_resolve(ino, &n) < 0 || !n.s) {
		fs_fh_free(h);
		fuse_reply_err(req, ENOENT);
		return;
	}
	sid = mcp_session_id(n.s);
	if (n.kind == K_RESULTDIR) {
		const struct mcp_part *parts;
		size_t np, i;

		mcp_result(n.s, &parts, &np);
		for (i = 0; i < np; i++)
			fs_dir_add(h, req, parts[i].name,
				   ino_make(sid, i, K_RESULT), 0);
		fi->fh = (uint64_t)(uintptr_t)h;
		fuse_reply_open(req, fi);
		return;
	}
	r = need_list(n.s, list_of(n.kind), have, &c);
	if (r == 0) {
		park(P_OPENDIR, req, ino, h, fi, NULL, c);
		return;
	}
	if (r < 0 || !(names = names_of(c, list_of(n.kind)))) {
		if (r > 0)
			mcp_call_unref(c);
		fs_fh_free(h);
		fuse_reply_err(req, r < 0 ? -r : EIO);
		return;
	}
	mcp_call_unref(c);
	cJSON_ArrayForEach(it, names) {
		long idx = mcp_name_intern(n.s, list_of(n.kind),
					   it->valuestring);
		char *enc = mcp_name_encode(it->valuestring);

		if (idx >= 0 && enc)
			fs_dir_add(h, req, enc,
				   ino_make(sid, (unsigned long)idx,
					    file_of(n.kind)), 0);
		free(enc);
	}
	cJSON_Delete(names);
	fi->fh = (uint64_t)(uintptr_t)h;
	fuse_reply_open(req, fi);
}

void listing_opendir(fuse_req_t req, fuse_ino_t ino, struct fh *h,
		     struct fuse_file_info *fi)
{
	opendir_(req, ino, h, fi, NULL);
}

/* ---- open ---- */

/* resources.json: both listings, in one document. */
static mcp_buf *resources_doc(mcp_call *res, mcp_call *tpl)
{
	const mcp_buf *a = mcp_call_reply(res), *b = mcp_call_reply(tpl);
	cJSON *ja = cJSON_ParseWithLength(a->data, a->len);
	cJSON *jb = cJSON_ParseWithLength(b->data, b->len);
	cJSON *out = cJSON_CreateObject();
	mcp_buf *doc;
	char *txt;

	cJSON_AddItemToObject(out, "resources", cJSON_DetachItemFromObject(
				ja, "resources") ?: cJSON_CreateArray());
	cJSON_AddItemToObject(out, "resourceTemplates",
			      cJSON_DetachItemFromObject(jb,
							 "resourceTemplates")
				      ?: cJSON_CreateArray());
	txt = cJSON_Print(out);
	doc = txt ? mcp_buf_new(NULL, strlen(txt) + 1) : NULL;
	if (doc) {
		memcpy(doc->data, txt, doc->len - 1);
		doc->data[doc->len - 1] = '\n';
	}
	cJSON_free(txt);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	cJSON_Delete(out);
	return doc;
}

/* A resources/read of uri, not the session's latest reply. */
static int read_resource(mcp_session *s, const char *uri, mcp_call **c)
{
	cJSON *m = cJSON_CreateObject();
	const char *why = NULL;
	char *txt;
	int r;

	cJSON_AddStringToObject(m, "method", "resources/read");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "params"), "uri",
				uri);
	txt = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	if (!txt)
		return -ENOMEM;
	r = mcp_call_side(mcp_session_server(s), s, txt, strlen(txt), c, &why);
	cJSON_free(txt);
	return r;
}

static void open_(fuse_req_t req, fuse_ino_t ino, struct fh *h,
		  struct fuse_file_info *fi, mcp_call *have)
{
	struct node n;
	mcp_call *c, *c2;
	int r, err;

	if (fs_resolve(ino, &n) < 0 || !n.s) {
		fs_open_fail(req, h, ENOENT);
		return;
	}
	switch (n.kind) {
	case K_RESULT: {
		const struct mcp_part *parts;
		size_t np;

		mcp_result(n.s, &parts, &np);
		h->snap = mcp_buf_ref(parts[n.idx].data);
		break;
	}
	case K_TOOL:
	case K_PROMPT:
		h->cf = callfile_new(n.kind, mcp_server_id(n.srv),
				     mcp_session_id(n.s), (fi->flags &
					O_ACCMODE) == O_WRONLY);
		if (!h->cf || callfile_target(h->cf, mcp_name_at(n.s,
				n.kind == K_TOOL ? MCP_TOOLS : MCP_PROMPTS,
				n.idx)) < 0) {
			fs_open_fail(req, h, ENOMEM);
			return;
		}
		break;
	case K_PROMPTSJSON:
		r = need_list(n.s, MCP_PROMPTS, have, &c);
		if (r <= 0)
			goto wait;
		h->snap = mcp_buf_ref(mcp_call_reply(c));
		mcp_call_unref(c);
		break;
	case K_RESJSON:
		if ((r = need_list(n.s, MCP_RESOURCES, NULL, &c)) <= 0)
			goto wait;
		if ((r = need_list(n.s, MCP_TEMPLATES, NULL, &c2)) <= 0) {
			mcp_call_unref(c);
			c = c2;
			goto wait;
		}
		h->snap = resources_doc(c, c2);
		mcp_call_unref(c);
		mcp_call_unref(c2);
		break;
	case K_RESOURCE:
		if (!have) {
			r = read_resource(n.s, mcp_name_at(n.s, MCP_RESOURCES,
							   n.idx), &c);
			r = r < 0 ? r : 0;
			goto wait;
		}
		h->snap = mcp_resource_bytes(mcp_call_reply(have), &err);
		if (!h->snap) {
			if (err == -EIO)
				mlog(MLOG_INFO, "resources/read of %s failed: "
				     "%.200s", mcp_name_at(n.s, MCP_RESOURCES,
							   n.idx),
				     mcp_call_reply(have)->data);
			fs_open_fail(req, h, -err);
			return;
		}
		break;
	default:
		break;
	}
	fuse_reply_open(req, fi);
	return;
wait:
	if (r < 0)
		fs_open_fail(req, h, -r);
	else
		park(P_OPEN, req, ino, h, fi, NULL, c);
}

void listing_open(fuse_req_t req, fuse_ino_t ino, struct fh *h,
		  struct fuse_file_info *fi)
{
	open_(req, ino, h, fi, NULL);
}

static void run(struct park *p)
{
	mcp_call *c = mcp_call_ref(p->c);

	switch (p->op) {
	case P_LOOKUP:
		lookup(p->req, p->ino, p->name, c);
		break;
	case P_OPENDIR:
		opendir_(p->req, p->ino, p->h, &p->fi, c);
		break;
	default:
		open_(p->req, p->ino, p->h, &p->fi, c);
		break;
	}
	mcp_call_unref(c);
	park_free(p);
}
