/*
 * sessions.h - the one header where fs/ meets sessions/.
 *
 * sessions/ owns MCP server processes, their JSON-RPC traffic and their
 * lifecycle; fs/ owns the FUSE tree. fs/ sees servers, sessions and calls only
 * as opaque handles and the functions below. Everything runs on one libuv
 * loop thread, so nothing here locks.
 *
 * Object ids: every server and session gets a unique, never reused 64-bit id
 * (one counter for both), which fs/ folds into inode numbers.
 *
 * Functions return 0 or a negated errno unless said otherwise.
 */
#ifndef MCPFS_SESSIONS_H
#define MCPFS_SESSIONS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <uv.h>

typedef struct mcp_server mcp_server;
typedef struct mcp_session mcp_session;
typedef struct mcp_call mcp_call;
typedef struct mcp_ask mcp_ask;

/* A refcounted, immutable byte buffer (replies, rendered JSON files):
 * len bytes at data, then a NUL. */
typedef struct mcp_buf {
	unsigned refs;
	size_t len;
	char *data;
	char *mem;      /* a block data points into, owned (mcp_buf_wrap) */
	int big;        /* mem is a bigmem block (lib/bigmem.h), not malloc'd */
	char bytes[];   /* else the data itself (mcp_buf_new) */
} mcp_buf;

mcp_buf *mcp_buf_new(const char *data, size_t len); /* refs = 1; NULL on ENOMEM */
/* A buffer of the len bytes at mem + off (followed by a NUL there) that
 * takes over mem (malloc'd, or a bigmem block when big; shrunk to fit),
 * without a copy. NULL on ENOMEM (then mem is still the caller's). */
mcp_buf *mcp_buf_wrap(char *mem, int big, size_t off, size_t len);
mcp_buf *mcp_buf_ref(mcp_buf *b);
void mcp_buf_unref(mcp_buf *b);

struct mcp_options {
	double idle_timeout;    /* seconds, 0 = never */
	double call_timeout;    /* seconds, 0 = unlimited */
	unsigned max_sessions;  /* cap on live threads (mkdir: EAGAIN) */
	size_t max_line;        /* longest stdout line accepted from a server */
	const char *self_exe;   /* path of the mcpfs binary (exec helper) */
	const char *start_dir;  /* where mcpfs was started: servers' cwd */
	int notrace;            /* -o notrace: no thread keeps a trace */
};

/* Notifications from sessions/ to fs/ (for kernel cache invalidation). */
enum mcp_log { MCP_EVENTS, MCP_TRACE }; /* a thread's logs (spec 4, 15) */

struct mcp_hooks {
	/* A session directory went away without an rmdir (idle, cap, reload). */
	void (*session_gone)(uint64_t server_id, const char *name);
	/* The set of servers changed (reload). */
	void (*servers_changed)(void);
	/* A line was added to the events or trace of s (a poll(2) on that
	 * file may wake up, spec 15). */
	void (*log_grew)(mcp_session *s, enum mcp_log which);
};

int mcp_init(uv_loop_t *loop, const struct mcp_options *opts,
	     const struct mcp_hooks *hooks);

/* MOUNT/.serve.json (spec 14): the client entry of --serve, set by serve/
 * (a copy is kept; NULL: none, and no such file). */
void mcp_set_client_entry(const char *json);
mcp_buf *mcp_client_entry(void); /* a reference, or NULL */

/* The second front door (serve/, spec 14) hears every notification a
 * server sends, and each event of a question (the "mcpfs/request" lines:
 * open, answered, expired, ...), after it is a line in events: the
 * session and the JSON text (raw control bytes escaped), borrowed for the
 * call. One observer; NULL removes it. */
void mcp_observe(void (*note)(mcp_session *s, const char *json,
			      size_t len));
/* ... and every question a server asks (elicitation, sampling) as it
 * opens under its thread's requests/: q and the request's params as JSON
 * text (borrowed for the call). The observer may answer q
 * (mcp_ask_answer) later or at once. One observer; NULL removes it. */
void mcp_observe_asks(void (*ask)(mcp_ask *q, const char *params,
				  size_t len));

/* Load (first call) or reload the config file. Returns 0, or -EINVAL with
 * *err set to a malloc'd message naming the file, field and problem (on
 * reload the old config stays in force). path NULL = built-in default. */
int mcp_load_config(const char *path, char **err);
/* The most config files (-c) mcpfs reads. */
#define MCP_MAX_CONFIGS 16

/* Parse n config files (as mcp_load_configs) without keeping them, so
 * that errors reach the terminal before mounting: 0, or -1 with *err
 * (malloc'd, naming the file). */
int mcp_config_check(const char *const *paths, size_t n, const char *dir,
		     char **err);

/* Run as the supervisor of a server (supervise.c): main calls it first
 * when argv[1] is "--mcpfs-exec" (argv: --mcpfs-exec PPID COMMAND
 * ARGS...). Returns, exits or dies of a signal with the server's own
 * exit status; 127 when the command cannot be run or mcpfs is gone. */
int mcp_supervise(int argc, char **argv);

/* The first load of n config files (absolute paths; none = built-in),
 * merged, later files winning by server name; dir: --project DIR or
 * NULL. Every file is watched. Reload with mcp_load_config(NULL, err). */
int mcp_load_configs(const char *const *paths, size_t n, const char *dir,
		     char **err);

/* Close every session (calls in flight fail with "session closed
 * (shutting down: WHY)"); done_cb runs once all processes are reaped and
 * all handles are closed. */
void mcp_shutdown(const char *why, void (*done_cb)(void));

/* ---- servers ---- */
mcp_server *mcp_server_first(void);
mcp_server *mcp_server_next(mcp_server *srv);
mcp_server *mcp_server_find(const char *name);
mcp_server *mcp_server_by_id(uint64_t id);
uint64_t mcp_server_id(const mcp_server *srv);
const char *mcp_server_name(const mcp_server *srv);

/* ---- authorization of url servers (spec 8; auth.c) ---- */
int mcp_server_has_auth(const mcp_server *srv); /* 1: it has an auth file */
/* The auth file's JSON (refs = 1), NULL when it cannot be had. */
mcp_buf *mcp_server_auth_json(mcp_server *srv);
/* A write to it ("login", "logout", a redirect URL): 0 or -EINVAL. */
int mcp_server_auth_write(mcp_server *srv, const char *p, size_t n);

/* ---- sessions (thread directories) ---- */
mcp_session *mcp_session_first(mcp_server *srv);
mcp_session *mcp_session_next(mcp_session *s);
mcp_session *mcp_session_find(mcp_server *srv, const char *name);
mcp_session *mcp_session_by_id(uint64_t id);
uint64_t mcp_session_id(const mcp_session *s);
const char *mcp_session_name(const mcp_session *s);
mcp_server *mcp_session_server(const mcp_session *s);
double mcp_session_created(const mcp_session *s);   /* unix time */
double mcp_session_last_used(const mcp_session *s); /* unix time */

/* mkdir: -EINVAL bad name, -EEXIST exists, -EAGAIN at the cap with no
 * idle thread to close (logged, and in .status). Starts the process and
 * the handshake in the background. */
int mcp_session_create(mcp_server *srv, const char *name, mcp_session **out);
/* rmdir / ctl close: the session leaves every lookup at once; its process is
 * closed in the background. Calls in flight fail. */
void mcp_session_close(mcp_session *s);
/* Open files inside a thread directory hold the session (idle timer). */
void mcp_session_hold(mcp_session *s);
void mcp_session_release(mcp_session *s);
/* A resources/read of uri failed with reply (an error, or no contents):
 * the server's message becomes s's status.last_error (spec 9). */
void mcp_resource_failed(mcp_session *s, const char *uri,
			 const mcp_buf *reply);
/* ctl verbs: "cancel", "restart", "close" (trailing whitespace ignored). */
int mcp_session_ctl(mcp_session *s, const char *verb, size_t len);

/* Rendered read-only files, malloc'd-free snapshots (refs = 1). */
mcp_buf *mcp_status_json(void);                 /* MOUNT/.status */
mcp_buf *mcp_session_status_json(mcp_session *s); /* thread status */
mcp_buf *mcp_session_stderr(mcp_session *s);     /* last 64 KiB */
/* events and trace: append-only logs of a thread (which); size is all
 * bytes ever appended (so tail -f follows it), the last 1 MiB is kept. */
uint64_t mcp_session_log_size(const mcp_session *s, enum mcp_log which);
/* The stream offset of the oldest line the log still keeps (0 until the
 * window has dropped something). */
uint64_t mcp_session_log_start(const mcp_session *s, enum mcp_log which);
/* Up to n bytes of the log from stream offset off (off at or after the
 * start above; earlier offsets read from the start). */
size_t mcp_session_log_read(const mcp_session *s, enum mcp_log which,
			    uint64_t off, char *dst, size_t n);

/* ---- questions from the server (requests/<id>) ---- */

/* The open questions of a thread, oldest first; a question is an object
 * with an id of the same counter as servers and sessions. */
mcp_ask *mcp_ask_first(mcp_session *s);
mcp_ask *mcp_ask_next(mcp_ask *q);
mcp_ask *mcp_ask_find(mcp_session *s, const char *name);
mcp_ask *mcp_ask_by_num(mcp_session *s, unsigned long num);
unsigned long mcp_ask_num(const mcp_ask *q);  /* the number in its name */
mcp_ask *mcp_ask_by_id(uint64_t id);
uint64_t mcp_ask_id(const mcp_ask *q);
const char *mcp_ask_name(const mcp_ask *q);   /* its number, the file name */
mcp_session *mcp_ask_session(const mcp_ask *q);
double mcp_ask_created(const mcp_ask *q);     /* unix time */
unsigned mcp_session_asks(const mcp_session *s); /* how many are open */
/* The file: the request as JSON (refs = 1). */
mcp_buf *mcp_ask_json(mcp_ask *q);
/* Answer q with len bytes of one JSON value: checked against the request,
 * sent, and q is gone (freed: do not use it after 0). -EINVAL when the
 * answer does not fit (logged with the field and rule; q stays). */
int mcp_ask_answer(mcp_ask *q, const char *json, size_t len);
/* An answer to q refused before it was whole or parsed (bad JSON, a name
 * twice or holding a control character, too big): logged, and why
 * becomes q's "refused" as for mcp_ask_answer's own refusals. */
void mcp_ask_refuse(mcp_ask *q, const char *why);

/* ---- tasks (spec 15): the calls of a thread that its server runs as
 * tasks, while they run (tasks/<name>) ---- */

/* The task after number *num (0: the first), oldest first: its name (the
 * task id, or task-N when the id cannot be a file name) and, in *num,
 * its number; NULL after the last. */
const char *mcp_task_next(mcp_session *s, unsigned long *num);
unsigned long mcp_task_find(mcp_session *s, const char *name); /* 0: none */
/* The Task as last seen, pretty JSON; NULL when it ended (or ENOMEM). */
mcp_buf *mcp_task_json(mcp_session *s, unsigned long num);

/* ---- skills (spec 15): skills/NAME/... of a thread, from the done
 * skills listing (mcp_list MCP_SKILLS); a path is relative to skills/
 * ("" is skills/ itself, "NAME", "NAME/references/FORMS.md") ---- */

enum { MCP_SKILL_FILE = 1, MCP_SKILL_DIR = 2 };
/* What path is: MCP_SKILL_FILE, MCP_SKILL_DIR, 0 (nothing), -ENOMEM. */
int mcp_skill_stat(mcp_session *s, mcp_call *listing, const char *path);
/* The entries of directory path, each once: cb with its name (len bytes,
 * not NUL-terminated) and whether it is a directory. 0 or -ENOMEM. */
int mcp_skill_list(mcp_session *s, mcp_call *listing, const char *path,
		   void (*cb)(void *ctx, const char *name, size_t len,
			      int isdir), void *ctx);
/* The resource URI of file path (valid until another listing is asked
 * about), or NULL. */
const char *mcp_skill_uri(mcp_session *s, mcp_call *listing,
			  const char *path);
/* The bytes of file path from its resources/read reply, checked against
 * the listing's digest: NULL with *err -EIO (a mismatch, said in status,
 * or the read failed), -ENOENT, -ENOMEM. */
mcp_buf *mcp_skill_bytes(mcp_session *s, mcp_call *listing, const char *path,
			 const mcp_buf *reply, int *err);
/* The bytes of file path as mcp_skill_bytes last gave them (a
 * reference; the digest pins them), or NULL when not read yet. */
mcp_buf *mcp_skill_cached(mcp_session *s, mcp_call *listing,
			  const char *path);

/* ---- calls ---- */

/* A listener waits for one call to complete; embed it in the waiter. */
struct mcp_listener {
	LIST_ENTRY(mcp_listener) link; /* zeroed = not listening */
	void (*done)(struct mcp_listener *l, mcp_call *c);
	/* May be NULL: more of a streaming reply arrived (mcp_call_partial) */
	void (*more)(struct mcp_listener *l, mcp_call *c);
};

/* A user request parsed once (spec 4): json is the text written to call,
 * or, with target (the decoded name of a tool, or of a prompt when
 * prompt), the arguments object written to tools/TARGET or
 * prompts/TARGET. 0 with *out, -EINVAL with *why a static message, or
 * -ENOMEM. */
typedef struct mcp_req mcp_req;
int mcp_req_parse(const char *json, size_t len, const char *target,
		  int prompt, mcp_req **out, const char **why);
/* What the read rule files r under (a fresh read of tools/NAME or
 * prompts/NAME looks only at these): "t:NAME" for a tools/call of NAME
 * (either form), "p:NAME" for prompts/get of NAME, else NULL. */
const char *mcp_req_key(const mcp_req *r);
void mcp_req_free(mcp_req *r);

/* Start the request r (taken, on every path) on session s, or on a fresh
 * one-shot process of srv when s is NULL. On success *out holds a
 * reference the caller must drop with mcp_call_unref. -ENOENT: s is
 * closed; -ENOMEM. The call completes later; it is never cancelled by
 * dropping the reference. */
int mcp_call_start(mcp_server *srv, mcp_session *s, mcp_req *r,
		   mcp_call **out);
/* A request of the tree itself (prompts and resources for serve/): the
 * text json, parsed here (-EINVAL with *why); it is not the latest reply
 * of call, nor result/. */
int mcp_call_side(mcp_server *srv, mcp_session *s, const char *json,
		  size_t len, mcp_call **out, const char **why);
/* resources/read of uri on s, as above (resources/, skills/). */
int mcp_resource_read(mcp_session *s, const char *uri, mcp_call **out);
/* A resources/read reply's contents (text, or the decoded blob, of each,
 * joined), or NULL with *err: -ENOENT for "resource not found" (-32002),
 * else -EIO. */
mcp_buf *mcp_resource_bytes(const mcp_buf *reply, int *err);
/* A request that was refused before it could be sent (bad JSON, too big,
 * incomplete at close, not a valid request): a call completed at once with
 * {"error": {"code": -32600, "message": "request refused: WHY"}} that
 * becomes the latest reply of s (or of srv's one-shots when s is NULL), as
 * a call would, and s's last_error. *out is the caller's reference. */
int mcp_call_refused(mcp_server *srv, mcp_session *s, const char *why,
		     mcp_call **out);
/* A call done with an error: ENOTCONN when it is that no server could be
 * started or reached (-32004, -32000), else EIO; its message (or "(no
 * reason given)") in why. 0 when c did not fail. */
int mcp_call_errno(const mcp_call *c, char *why, size_t n);
/* The listings of a session (all pages gathered, cached until the server
 * says list_changed): the reply is {"KEY": [...]}, pretty, with KEY
 * mcp_list_key(what); an empty array when the server's capabilities lack
 * it. tools.json is MCP_TOOLS. *out: a reference (mcp_call_unref); the
 * call may be done already (cached). */
enum mcp_list { MCP_TOOLS, MCP_RESOURCES, MCP_TEMPLATES, MCP_PROMPTS,
		MCP_SKILLS, /* skills/list (SEP-2640, spec 15) */
		MCP_NLISTS };
/* resources.json: the done listings res (MCP_RESOURCES) and tpl
 * (MCP_TEMPLATES) in one document {"resources", "resourceTemplates"},
 * pretty, every number and string as the server sent it; NULL on ENOMEM. */
mcp_buf *mcp_resources_doc(mcp_call *res, mcp_call *tpl);
int mcp_list(mcp_server *srv, mcp_session *s, enum mcp_list what,
	     mcp_call **out);
const char *mcp_list_key(enum mcp_list what);
/* The most recently completed call of s (not a listing): result/. */
mcp_call *mcp_last_done(mcp_session *s);

/* ---- the MCP surface as files (spec 9; surface.c) ---- */

/* A session's file names for tools, resources and prompts: each name the
 * tree gave out has a small number (for inode numbers), kept while the
 * session lives. intern returns it, or -ENOSPC past MCP_NAMES_MAX. */
#define MCP_NAMES_MAX (1u << 20)
long mcp_name_intern(mcp_session *s, enum mcp_list what, const char *name);
const char *mcp_name_at(mcp_session *s, enum mcp_list what, unsigned long i);

/*
 * The entries of a listing that have a file: tools and prompts by name,
 * resources by uri, in the listing's order. Made once per listing (an
 * index of file names and names: no lookup parses the listing again).
 * A file name is the name percent-encoded (mcp_name_encode); one longer
 * than MCP_FILE_MAX bytes is cut there and ends in "~" and 16 hex digits
 * of a hash of the name, made unique. Left out, with a warning in the
 * status of s (NULL: the log only): an empty name, a duplicate (the
 * first is kept), a name whose bytes are not UTF-8 (its JSON is not
 * JSON, and it could not be called by its own name).
 */
#define MCP_FILE_MAX 240
struct mcp_entry {
	const char *name;   /* as mcp_name_at holds it (a NUL as C0 80) */
	const char *file;   /* its file name */
	size_t at, n;       /* its JSON in the listing's reply */
};
/* c a done CALL_LIST: 0, -EIO when the listing failed, -ENOMEM. */
int mcp_entries(mcp_call *c, mcp_session *s, const struct mcp_entry **v,
		size_t *n);
/* The entry of the listing c whose file is file (by_name 0) or whose name
 * is file (by_name 1); NULL if none. */
const struct mcp_entry *mcp_entry_find(mcp_call *c, mcp_session *s,
				       const char *file, int by_name);

/* result/: the latest completed reply of s unpacked, computed once per
 * reply. Parts are borrowed until the next reply completes on s (take a
 * reference to data to keep it). n = 0 when there is no reply yet. Only
 * the first MCP_PARTS_MAX content blocks are parts (the reply and `text`
 * have them all; the status of s says so), so that an index stays within
 * the inode's bits and the parts within a small multiple of the reply. */
#define MCP_PARTS_MAX 10000
struct mcp_part {
	char name[32];   /* "0.txt", "1.png", "text", "structured.json" */
	mcp_buf *data;
};
void mcp_result(mcp_session *s, const struct mcp_part **parts, size_t *n);

/* Percent-encode name for a path component ('%', '/', control bytes, and
 * a leading '.' of "." and ".."): malloc'd. decode: NULL if malformed.
 * A NUL in a name from a server is held as the bytes C0 80 (lib/jsent.h)
 * and is "%00" in its file name. */
char *mcp_name_encode(const char *name);
char *mcp_name_decode(const char *file);
/* The call a fresh open of call reads: the most recently sent one while any
 * is in flight, else the most recently completed one; NULL if none. Borrowed. */
mcp_call *mcp_latest(mcp_server *srv, mcp_session *s);

/* A long reply still arriving (stdio): the bytes of its result so far, at
 * *p (borrowed until the loop runs again); 0 when none. */
size_t mcp_call_partial(const mcp_call *c, const char **p);
/* Done, but its reply is not the bytes that were readable while it
 * arrived: the errno for a reader that read some, EIO (the server's line
 * was not a reply after all) or EFBIG (it went past --max-message); else
 * 0. */
int mcp_call_stream_broken(const mcp_call *c);
mcp_call *mcp_call_ref(mcp_call *c);
void mcp_call_unref(mcp_call *c);
int mcp_call_is_done(const mcp_call *c);
/* The reply once done: one JSON document plus a newline. Borrowed. */
mcp_buf *mcp_call_reply(const mcp_call *c);
/* Send notifications/cancelled; the call completes now with a cancelled
 * error (listeners fire before this returns). No-op when done. */
void mcp_call_cancel(mcp_call *c);
/* Wait for a pending call; l->done fires once on completion. */
void mcp_call_listen(mcp_call *c, struct mcp_listener *l);
/* Stop waiting (safe if not listening). */
void mcp_listener_remove(struct mcp_listener *l);

/* ---- finding one's way (spec 12; guide.c) ---- */

/* The listing what of s (of srv's one-shots when s is NULL) if it is
 * cached and did not fail; borrowed, NULL otherwise. Never starts one. */
mcp_call *mcp_list_cached(mcp_server *srv, mcp_session *s,
			  enum mcp_list what);
/* Start srv's probe (spec 12) and do not wait: its tools and prompts
 * listings, unless they are cached or under way. A lookup of SERVER/help
 * does, so that the probes of `ls MOUNT/x/help MOUNT/y/help` run side by
 * side rather than one after the other. */
void mcp_probe(mcp_server *srv);
/* help/ of s (of srv when s is NULL): a key is "t:" and a tool's name or
 * "p:" and a prompt's name. Numbered as mcp_name_intern. */
long mcp_help_intern(mcp_server *srv, mcp_session *s, const char *file);
const char *mcp_help_name_at(mcp_server *srv, mcp_session *s,
			     unsigned long i);
/* The text of the help of key (as mcp_help_intern's) from the cached
 * listings (refs = 1); NULL when the listing is not cached or has no such
 * entry. */
mcp_buf *mcp_help(mcp_server *srv, mcp_session *s, const char *file);
/* MOUNT/README.md (refs = 1), NULL on ENOMEM. */
mcp_buf *mcp_readme(void);
/* The parsing of NAME=VALUE lines to tools/X or prompts/X (kvargs.c):
 * the arguments object (to free with free) typed by X's schema in the
 * cached listing of s, or -EINVAL with *why (malloc'd) naming the line. */
int mcp_args_lines(mcp_server *srv, mcp_session *s, int prompt,
		   const char *name, const char *text, size_t len, char **json,
		   char **why);
/* The check of whole lines as they arrive (kvargs_check): len bytes of
 * lines numbered from *line + 1, typed by the same schema. 0, or -EINVAL
 * with *why (malloc'd) naming the line, -ENOMEM. */
int mcp_args_check(mcp_server *srv, mcp_session *s, int prompt,
		   const char *name, const char *text, size_t len,
		   unsigned *line, char **why);

/* ---- logging ---- */
enum { MLOG_ERR, MLOG_WARN, MLOG_INFO, MLOG_DEBUG };
void mlog_open(const char *path, int debug); /* NULL = stderr */
void mlog_syslog(void); /* daemonized without a log file: to syslog */
void mlog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning a session can repeat at will, limited (log.c): up to
 * MLOG_LIMIT_BURST lines per MLOG_LIMIT_INTERVAL seconds; the rest are
 * counted and summed up as "WHAT ... N more" at the next interval or every
 * MLOG_LIMIT_EVERY of them. mlog_limit says whether to log this one. */
#define MLOG_LIMIT_BURST 10
#define MLOG_LIMIT_INTERVAL 10.0
#define MLOG_LIMIT_EVERY 10000
struct mlog_limit {
	double start;         /* the interval began (monotonic seconds) */
	unsigned burst;       /* lines logged in it */
	unsigned long more;   /* held back since the last summary */
};
int mlog_limit(struct mlog_limit *l, int level, const char *what);
void mlogv(int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
