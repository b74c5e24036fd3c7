/*
 * kinds.c - the table of file kinds, fs_kinds: for each kind its name in
 * a directory, what it may do (flags), its ops (the file that serves an
 * open file of it) and the small functions its ops and node.c ask: its
 * size, its snapshot, whether it is there now, its times. The table is
 * the way in: nothing else here is called by name from another file but
 * fs_dir and fs_dir_parent, a directory's ops and its parent.
 *
 * To add a kind: a K_ name in fs.h's enum kind, an entry here and, if no
 * ops below fit, one file with its ops (declared in fs.h, added to
 * meson.build). A file at the mount's root whose content comes from a
 * function is one entry: {"name", KF_ROOT, .ops = &snap_ops, .snap = f,
 * .ino = the next free root inode} (K_SERVEJSON is one).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

static off_t buf_size(mcp_buf *b)
{
	off_t n = b ? (off_t)b->len : 0;

	mcp_buf_unref(b);
	return n;
}

static off_t size_log(const struct node *n, enum mcp_log which)
{
	uint64_t end;

	mcp_session_log(n->s, which, 0, NULL, 0, NULL, &end);
	return (off_t)end;
}

static off_t size_events(const struct node *n, pid_t reader)
{
	return size_log(n, MCP_EVENTS);
}

static off_t size_trace(const struct node *n, pid_t reader)
{
	return size_log(n, MCP_TRACE);
}

static off_t size_listing(const struct node *n, enum mcp_list what)
{
	mcp_call *c = mcp_list_cached(n->srv, n->s, what);

	return c ? (off_t)mcp_call_reply(c)->len : 0;
}

static off_t size_tools(const struct node *n, pid_t reader)
{
	return size_listing(n, MCP_TOOLS);
}

/*
 * call, tools/X, prompts/X: the length of the reply a fresh read by the
 * reader would return now (callfile_fresh, the rule of spec 4), when that
 * reply is complete; 0 when there is none, it is in flight or arriving,
 * or the reader's lineage cannot be learnt. Sends nothing (spec 3). So
 * tar, which reads as many bytes as stat says, keeps what cat reads;
 * call is direct I/O, so a size that changes misleads no cache.
 */
static off_t size_reply(const struct node *n, const char *key, pid_t reader)
{
	mcp_call *c;
	mcp_buf *b;

	if (callfile_fresh(n->st.server_id, n->s ? n->st.id : 0, key, reader,
			   &c) < 0 || !c || !(b = mcp_call_reply(c)))
		return 0;
	return (off_t)b->len;
}

static off_t size_call(const struct node *n, pid_t reader)
{
	return size_reply(n, NULL, reader);
}

/* tools/X and prompts/X: among the calls of X (their key, writers.h) */
static off_t size_named(const struct node *n, pid_t reader)
{
	const char *name = n->s ? mcp_name_at(n->s, fs_kinds[n->kind].list,
					      n->idx) : NULL;
	char *key;
	off_t len;

	if (!name || asprintf(&key, "%s%s", fs_kinds[n->kind].list ==
			      MCP_PROMPTS ? "p:" : "t:", name) < 0)
		return 0;
	len = size_reply(n, key, reader);
	free(key);
	return len;
}

/* resources/X: the length of its last read while that is kept in memory
 * (a fresh open reads it again: spec 15, an update shows) */
static off_t size_resource(const struct node *n, pid_t reader)
{
	return n->s ? (off_t)mcp_resource_size(n->s, n->idx) : 0;
}

static off_t size_prompts(const struct node *n, pid_t reader)
{
	return n->s ? size_listing(n, MCP_PROMPTS) : 0;
}

/* resources.json: both listings in one document, once both are there */
static off_t size_resjson(const struct node *n, pid_t reader)
{
	mcp_call *a = n->s ? mcp_list_cached(n->srv, n->s, MCP_RESOURCES) : NULL;
	mcp_call *b = n->s ? mcp_list_cached(n->srv, n->s, MCP_TEMPLATES)
			   : NULL;

	return a && b ? buf_size(mcp_resources_doc(a, b)) : 0;
}

static off_t size_result(const struct node *n, pid_t reader)
{
	const struct mcp_part *parts;
	size_t np;

	mcp_result(n->s, &parts, &np);
	return n->idx < np ? (off_t)parts[n->idx].data->len : 0;
}

static off_t size_req(const struct node *n, pid_t reader)
{
	struct mcp_stat st;

	return fs_question_at(n, n->idx, &st) == 0
		? buf_size(mcp_doc(MCP_DOC_QUESTION, st.ask, 0)) : 0;
}

static off_t size_help(const struct node *n, pid_t reader)
{
	const char *f = mcp_help_name_at(n->srv, n->s, n->idx);

	return f ? buf_size(mcp_help(n->srv, n->s, f)) : 0;
}

static mcp_buf *snap_status(const struct node *n)
{
	return mcp_doc(MCP_DOC_THREAD, n->s, 0);
}

static mcp_buf *snap_stderr(const struct node *n)
{
	return mcp_doc(MCP_DOC_STDERR, n->s, 0);
}

static mcp_buf *snap_dotstatus(const struct node *n)
{
	return mcp_doc(MCP_DOC_STATUS, NULL, 0);
}

static mcp_buf *snap_readme(const struct node *n)
{
	return mcp_readme();
}

static mcp_buf *snap_servejson(const struct node *n)
{
	return mcp_doc(MCP_DOC_SERVE, NULL, 0);
}

/* ---- nodes that are there only at times ---- */

/* a file below skills/: its listed size (a dynamic SKILL.md: that of
 * its bytes, read at its lookup, skillsdir.c) */
static off_t size_skill(const struct node *n, pid_t reader)
{
	mcp_call *c = mcp_list_cached(n->srv, n->s, MCP_SKILLS);
	const char *path = mcp_name_at(n->s, MCP_SKILLS, n->idx);
	long long size = c && path ? mcp_skill_size(n->s, c, path) : -1;

	return size < 0 ? 0 : (off_t)size;
}

/* below skills/: a path the session numbered (skillsdir.c checks it is
 * in the listing at the lookup and the open) */
static int has_skill_path(const struct node *n)
{
	return n->s && mcp_name_at(n->s, MCP_SKILLS, n->idx);
}

static int has_auth(const struct node *n)
{
	return n->type == N_SERVER && n->st.auth;
}

static int serving(const struct node *n)
{
	mcp_buf *b = mcp_doc(MCP_DOC_SERVE, NULL, 0);

	mcp_buf_unref(b);
	return b != NULL;
}

static int has_help(const struct node *n)
{
	return mcp_help_name_at(n->srv, n->s, n->idx) != NULL;
}

static int has_tool(const struct node *n)
{
	return n->s && mcp_name_at(n->s, MCP_TOOLS, n->idx);
}

static int has_prompt(const struct node *n)
{
	return n->s && mcp_name_at(n->s, MCP_PROMPTS, n->idx);
}

static int has_resource(const struct node *n)
{
	return n->s && mcp_name_at(n->s, MCP_RESOURCES, n->idx);
}

static int has_result(const struct node *n)
{
	const struct mcp_part *parts;
	size_t np;

	if (!n->s)
		return 0;
	mcp_result(n->s, &parts, &np);
	return n->idx < np;
}

static int has_req(const struct node *n)
{
	struct mcp_stat st;

	return fs_question_at(n, n->idx, &st) == 0;
}

/* requests/<n>: its times are the question's */
static double req_created(const struct node *n)
{
	struct mcp_stat st;

	return fs_question_at(n, n->idx, &st) == 0 ? st.created : n->st.used;
}

static unsigned long req_find(const struct node *dir, const char *name)
{
	struct mcp_stat st;

	return dir->s && mcp_walk(dir->st.id, name, &st) == 0 ? st.num : 0;
}

static const char *req_next(const struct node *dir, unsigned long *i)
{
	struct mcp_stat st = { 0 };

	/* the question after question *i (0: the first) */
	if ((*i && fs_question_at(dir, *i, &st) < 0) || !dir->s ||
	    mcp_next(dir->st.id, st.id, &st) < 0)
		return NULL;
	*i = st.num;
	return st.name;
}

/* tasks/<id> while the task runs: its Task as last seen */
static unsigned long task_find(const struct node *dir, const char *name)
{
	unsigned long i = 0;
	const char *t;

	while ((t = mcp_task_next(dir->s, &i)) != NULL)
		if (!strcmp(t, name))
			return i;
	return 0;
}

static const char *task_next(const struct node *dir, unsigned long *i)
{
	return mcp_task_next(dir->s, i);
}

static mcp_buf *snap_task(const struct node *n)
{
	return mcp_doc(MCP_DOC_TASK, n->s, n->idx);
}

static int has_task(const struct node *n)
{
	mcp_buf *b = n->s ? mcp_doc(MCP_DOC_TASK, n->s, n->idx) : NULL;

	mcp_buf_unref(b);
	return b != NULL;
}

static off_t size_task(const struct node *n, pid_t reader)
{
	return buf_size(mcp_doc(MCP_DOC_TASK, n->s, n->idx));
}

/*
 * The table of kinds. To add a kind: an entry here (name, flags, ops and
 * what its ops need) and, if none of the ops below fits, one file for its
 * ops. result/ names no listing: its entries are the latest reply's parts.
 */
#define SERVER_THREAD (KF_SERVER | KF_THREAD)
#define LISTDIR (KF_THREAD | KF_DIR | KF_LISTING)
const struct kind_info fs_kinds[K_NKINDS] = {
	[K_DIR] = {.flags = KF_DIR},
	[K_CALL] = {"call", SERVER_THREAD | KF_WRITE, size_call,
		    .ops = &call_ops},
	[K_TOOLS] = {"tools.json", SERVER_THREAD, size_tools,
		     .ops = &toolsjson_ops},
	[K_STATUS] = {"status", KF_THREAD, .ops = &snap_ops,
		      .snap = snap_status},
	[K_STDERR] = {"stderr", KF_THREAD, .ops = &snap_ops,
		      .snap = snap_stderr},
	[K_EVENTS] = {"events", KF_THREAD, size_events, .ops = &events_ops},
	[K_TRACE] = {"trace", KF_THREAD, size_trace, .ops = &trace_ops},
	[K_CTL] = {"ctl", KF_THREAD | KF_WRITE, .ops = &ctl_ops},
	[K_TOOLDIR] = {"tools", LISTDIR, .child = K_TOOL, .list = MCP_TOOLS,
		       .what = "tool", .dir = &listing_dir,
		       .lops = &namedir_lops},
	[K_RESULTDIR] = {"result", LISTDIR, .child = K_RESULT,
			 .list = MCP_TOOLS, .dir = &listing_dir,
			 .lops = &resultdir_lops},
	[K_RESDIR] = {"resources", LISTDIR, .child = K_RESOURCE,
		      .list = MCP_RESOURCES, .dir = &listing_dir,
		      .lops = &resdir_lops},
	[K_RESJSON] = {"resources.json", KF_THREAD | KF_LISTING, size_resjson,
		       .ops = &listing_snap_ops, .lops = &resjson_lops},
	[K_PROMPTDIR] = {"prompts", LISTDIR, .child = K_PROMPT,
			 .list = MCP_PROMPTS, .what = "prompt",
			 .dir = &listing_dir, .lops = &namedir_lops},
	[K_PROMPTSJSON] = {"prompts.json", KF_THREAD | KF_LISTING,
			   size_prompts, .ops = &listing_snap_ops,
			   .lops = &promptsjson_lops},
	[K_QUESTIONDIR] = {"requests", KF_THREAD | KF_DIR, .child = K_QUESTION,
		      .find = req_find, .next = req_next, .dir = &numbered_dir},
	[K_TASKDIR] = {"tasks", KF_THREAD | KF_DIR, .child = K_TASK,
		       .find = task_find, .next = task_next,
		       .dir = &numbered_dir},
	[K_SKILLSDIR] = {"skills", KF_THREAD | KF_DIR, .dir = &listing_tree_dir,
			 .lops = &skilldir_lops},
	[K_HELPDIR] = {"help", SERVER_THREAD | KF_DIR | KF_LISTING,
		       .child = K_HELP, .list = MCP_TOOLS, .dir = &listing_dir,
		       .lops = &helpdir_lops},
	[K_TOOL] = {NULL, KF_INDEXED | KF_WRITE | KF_LISTING, size_named,
		    .list = MCP_TOOLS, .ops = &tool_ops, .present = has_tool,
		    .lops = &tool_lops},
	[K_RESULT] = {NULL, KF_INDEXED | KF_LISTING, size_result,
		      .ops = &listing_snap_ops, .present = has_result,
		      .lops = &result_lops},
	[K_RESOURCE] = {NULL, KF_INDEXED | KF_LISTING, size_resource,
			.ops = &listing_snap_ops, .present = has_resource,
			.lops = &resource_lops},
	[K_PROMPT] = {NULL, KF_INDEXED | KF_WRITE | KF_LISTING, size_named,
		      .list = MCP_PROMPTS, .ops = &tool_ops,
		      .present = has_prompt, .lops = &tool_lops},
	[K_QUESTION] = {NULL, KF_INDEXED | KF_WRITE, size_req, .ops = &ask_ops,
		   .present = has_req, .created = req_created},
	[K_TASK] = {NULL, KF_INDEXED, size_task, .ops = &snap_ops,
		    .snap = snap_task, .present = has_task},
	[K_SKILLDIR] = {NULL, KF_INDEXED | KF_DIR, .dir = &listing_tree_dir,
			.present = has_skill_path, .lops = &skilldir_lops},
	[K_SKILLFILE] = {NULL, KF_INDEXED, size_skill,
			 .ops = &listing_snap_ops, .present = has_skill_path,
			 .lops = &skillfile_lops},
	[K_HELP] = {NULL, KF_INDEXED | KF_LISTING, size_help,
		    .ops = &listing_snap_ops, .present = has_help,
		    .lops = &help_lops},
	[K_AUTH] = {"auth", KF_SERVER | KF_WRITE, .ops = &authfile_ops,
		    .present = has_auth}, /* url servers */
	[K_DOTSTATUS] = {".status", KF_ROOT, .ops = &snap_ops,
			 .snap = snap_dotstatus, .ino = 2},
	[K_README] = {"README.md", KF_ROOT, .ops = &snap_ops,
		      .snap = snap_readme, .ino = 3},
	/* with --serve (spec 14) */
	[K_SERVEJSON] = {".serve.json", KF_ROOT, .ops = &snap_ops,
			 .snap = snap_servejson, .present = serving, .ino = 4},
};


/* ---- directories ---- */

const struct dir_ops *fs_dir(const struct node *n)
{
	if (n->type == N_ROOT)
		return &root_dir;
	if (!KIND_IS(n->kind, KF_DIR))
		return NULL;
	if (fs_kinds[n->kind].dir)
		return fs_kinds[n->kind].dir;
	return n->s ? &thread_dir : &server_dir; /* the object's own */
}

fuse_ino_t fs_dir_parent(const struct node *n)
{
	if (n->type == N_ROOT)
		return ROOT_INO;
	if (!fs_kinds[n->kind].dir) /* a server's or a thread's own */
		return n->s ? fs_ino(n->st.server_id, K_DIR) : ROOT_INO;
	return fs_ino(n->st.id, K_DIR);
}
