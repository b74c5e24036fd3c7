/*
 * sessions.h - the session API: where the two front doors, fs/ (the FUSE
 * tree) and serve/ (the mount as one MCP server), meet sessions/.
 *
 * sessions/ owns MCP server processes, their JSON-RPC traffic and their
 * lifecycle. A front door knows servers, threads (a session in a
 * directory) and a thread's questions by their ids and the struct
 * mcp_stat that mcp_lookup, mcp_walk and mcp_next give, and calls only as
 * opaque handles and the functions below. Everything runs on one libuv
 * loop thread, so nothing here locks. Beside it: surface.h (what fs/
 * makes files of), program.h (start and stop), mlog.h (the log).
 *
 * Object ids: every server, thread and question gets a unique, never
 * reused 64-bit id (one counter for all), which fs/ folds into inode
 * numbers.
 *
 * Functions return 0 or a negated errno unless said otherwise.
 */
#ifndef MCPFS_SESSIONS_H
#define MCPFS_SESSIONS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <uv.h>

#include "buf.h"

typedef struct mcp_server mcp_server;
typedef struct mcp_session mcp_session;
typedef struct mcp_call mcp_call;
typedef struct mcp_ask mcp_ask;

enum mcp_log { MCP_EVENTS, MCP_TRACE }; /* a thread's logs (spec 4, 15) */
struct mcp_stat;

/* MOUNT/.serve.json (spec 14): the client entry of --serve, set by serve/
 * (a copy is kept; NULL: none, and no such file). */
void mcp_set_client_entry(const char *json);

/* The second front door (serve/, spec 14) observes the threads: one
 * observer; NULL removes it. */
struct mcp_observer {
	/* every notification a server sends, and each event of a question
	 * (the "mcpfs/request" lines: open, answered, expired, ...), after
	 * it is a line in events: the thread and the JSON text (raw control
	 * bytes escaped), borrowed for the call */
	void (*note)(const struct mcp_stat *thread, const char *json,
		     size_t len);
	/* every question a server asks (elicitation, sampling) as it opens
	 * under its thread's requests/: the question and the request's
	 * params as JSON text (borrowed for the call); it may answer it
	 * (mcp_ask_answer) later or at once */
	void (*ask)(const struct mcp_stat *question, const char *params,
		    size_t len);
};
void mcp_observe(const struct mcp_observer *o);

/* ---- servers, threads and a thread's questions ----
 * Each is known by its id (unique, never reused; one counter for all),
 * which the front doors keep (inode numbers, a client's thread) and look
 * up again whenever the loop has run: an object may go at any turn. */

/* What one of them is. Borrowed: valid while the loop does not run. */
enum mcp_kind { MCP_ANY, MCP_SERVER, MCP_THREAD, MCP_QUESTION };
struct mcp_stat {
	enum mcp_kind kind;
	uint64_t id;           /* unique, never reused (one counter for all) */
	uint64_t server_id;    /* its server's (a server: its own) */
	uint64_t thread_id;    /* its thread's (a thread: its own; server: 0) */
	const char *name;      /* its directory's or file's name */
	mcp_server *server;    /* its server (a server: itself) */
	mcp_session *session;  /* its thread (a thread: itself; server: NULL) */
	mcp_ask *ask;          /* a question: itself */
	unsigned long num;     /* a question: the number that is its name */
	double created, used;  /* unix time: made, last used (a server: 0) */
	unsigned asks;         /* a thread: its open questions */
	int auth;              /* a server: 1 when it has an auth file */
};
/* The server, thread or question whose id is id: 0 with *st, or -ENOENT
 * when it is gone or (kind not MCP_ANY) is not of that kind. */
int mcp_lookup(uint64_t id, enum mcp_kind kind, struct mcp_stat *st);
/* The children of parent: of 0 (the mount) the servers, of a server its
 * threads, of a thread its open questions (named by their numbers).
 * walk: the child named name; next: the child after the child prev (0:
 * the first), servers in the config's order, threads newest first,
 * questions oldest first. 0 with *st, or -ENOENT (none, after the last,
 * or parent or prev gone). */
int mcp_walk(uint64_t parent, const char *name, struct mcp_stat *st);
int mcp_next(uint64_t parent, uint64_t prev, struct mcp_stat *st);

/* ---- authorization of url servers (spec 8; auth.c) ---- */
/* A write to it ("login", "logout", a redirect URL): 0 or -EINVAL. */
int mcp_server_auth_write(mcp_server *srv, const char *p, size_t n);

/* ---- threads (a session in a directory) ---- */

/* The one rule for a thread's name, for mkdir and for serve's --thread
 * and /mcp/NAME (spec 14): 0 when a thread may be so named; -EINVAL when
 * it is not a name (empty, a dot name, a character other than letters,
 * digits, - _ and ., too long); -EEXIST when a server directory has a
 * file or directory of that name (call, tools.json, help, auth). */
int mcp_thread_name_check(const char *name);
/* mkdir: 0 with the thread in *st; -EINVAL bad name, -EEXIST exists,
 * -EAGAIN at the cap with no idle thread to close (logged, and in
 * .status). Starts the process and the handshake in the background. */
int mcp_session_create(mcp_server *srv, const char *name,
		       struct mcp_stat *st);
/* rmdir / ctl close: the session leaves every lookup at once; its process is
 * closed in the background. Calls in flight fail. */
void mcp_session_close(mcp_session *s);
/* Open files inside a thread directory hold the session (idle timer). */
void mcp_session_hold(mcp_session *s);
void mcp_session_release(mcp_session *s);
/* ctl verbs: "cancel", "restart", "close" (trailing whitespace ignored). */
int mcp_session_ctl(mcp_session *s, const char *verb, size_t len);

/* events and trace: the append-only logs of a thread (which), of which
 * the last 1 MiB is kept. Up to n bytes from stream offset off into dst
 * (an offset before the oldest kept line reads from that line): how
 * many. *start (if not NULL): the stream offset of the oldest kept line
 * (0 until the window dropped something); *end: every byte ever
 * appended, so that tail -f follows it. */
size_t mcp_session_log(const mcp_session *s, enum mcp_log which,
		       uint64_t off, char *dst, size_t n, uint64_t *start,
		       uint64_t *end);

/* ---- questions from the server (requests/<id>) ---- */

/* Answer q with len bytes of one JSON value: checked against the request,
 * sent, and q is gone (freed: do not use it after 0). -EINVAL when the
 * answer does not fit (logged with the field and rule; q stays). With
 * why set, an answer refused before it was whole or parsed (bad JSON, a
 * name twice or holding a control character, too big): logged, and why
 * becomes q's "refused" as for the checks' own refusals (json unused;
 * -EINVAL). */
int mcp_ask_answer(mcp_ask *q, const char *json, size_t len,
		   const char *why);

/* ---- tasks (spec 15): the calls of a thread that its server runs as
 * tasks, while they run (tasks/<name>) ---- */

/* The task after number *num (0: the first), oldest first: its name (the
 * task id, or task-N when the id cannot be a file name) and, in *num,
 * its number; NULL after the last. */
const char *mcp_task_next(mcp_session *s, unsigned long *num);

/* ---- the rendered files ---- */

/* A snapshot of a read-only file (refs = 1): what, of obj (the server,
 * thread or question named), num (a task's number); NULL when it is not
 * there (or ENOMEM). */
enum mcp_doc {
	MCP_DOC_STATUS,    /* MOUNT/.status (obj NULL) */
	MCP_DOC_SERVE,     /* MOUNT/.serve.json: NULL unless serving */
	MCP_DOC_AUTH,      /* SERVER/auth (a server; spec 8) */
	MCP_DOC_THREAD,    /* THREAD/status (a thread) */
	MCP_DOC_STDERR,    /* THREAD/stderr: its last 64 KiB (a thread) */
	MCP_DOC_QUESTION,  /* requests/N: the request as JSON (a question) */
	MCP_DOC_TASK,      /* tasks/NAME: the Task as last seen, pretty (a
			    * thread; NULL once it ended) */
};
mcp_buf *mcp_doc(enum mcp_doc what, const void *obj, unsigned long num);

/* ---- calls ---- */

/* A listener waits for one call to complete; embed it in the waiter. */
struct mcp_listener {
	LIST_ENTRY(mcp_listener) link; /* zeroed = not listening */
	void (*done)(struct mcp_listener *l, mcp_call *c);
	/* May be NULL: more of a streaming reply arrived (mcp_call_stream) */
	void (*more)(struct mcp_listener *l, mcp_call *c);
};

/* A user request parsed once (spec 4): json is the text written to call,
 * or, with target (the decoded name of a tool, or of a prompt with
 * MCP_REQ_PROMPT), the arguments object written to tools/TARGET or
 * prompts/TARGET. With MCP_REQ_SIDE it is a request of the tree itself
 * (prompts and resources for serve/): its reply is not the latest of
 * call, nor result/. With MCP_REQ_CHECKED and no target, the caller has
 * checked json as the parse would (one JSON value, member names unique
 * and free of control characters: fs/jsonwrite.c), which is then not done
 * twice. 0 with *out, -EINVAL with *why a static message, or -ENOMEM. */
typedef struct mcp_req mcp_req;
enum { MCP_REQ_PROMPT = 1, MCP_REQ_SIDE = 2, MCP_REQ_CHECKED = 4 };
int mcp_req_parse(const char *json, size_t len, const char *target,
		  int flags, mcp_req **out, const char **why);
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
/* resources/read of uri on s, a request of the tree (resources/,
 * skills/), as mcp_call_start. */
int mcp_resource_read(mcp_session *s, const char *uri, mcp_call **out);
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
int mcp_list(mcp_server *srv, mcp_session *s, enum mcp_list what,
	     mcp_call **out);
const char *mcp_list_key(enum mcp_list what);

/* The call a fresh open of call reads: the most recently sent one while any
 * is in flight, else the most recently completed one; NULL if none. Borrowed. */
mcp_call *mcp_latest(mcp_server *srv, mcp_session *s);

/* A long reply arriving (stdio): while it arrives, *n bytes of its
 * result so far at *p (borrowed until the loop runs again; *n = 0 when
 * there are none, or once it is done). Returns, once done, the errno for
 * a reader that read some of it when its reply is not the bytes that
 * were readable, EIO (the server's line was not a reply after all) or
 * EFBIG (it went past --max-message); else 0. p and n may be NULL. */
int mcp_call_stream(const mcp_call *c, const char **p, size_t *n);
mcp_call *mcp_call_ref(mcp_call *c);
void mcp_call_unref(mcp_call *c);
/* The reply once done (NULL until then): one JSON document plus a
 * newline. Borrowed. */
mcp_buf *mcp_call_reply(const mcp_call *c);
/* 1 when c is done and its reply is an error {"error": E} (mcpfs's own
 * or the server's JSON-RPC error), 0 for a result (whatever its members
 * are called) or while it runs. Classified once, as the reply arrives. */
int mcp_call_failed(const mcp_call *c);

/* The protocol versions of MCP's legacy era, newest first, NULL after the
 * last: the first is the one mcpfs asks a server for; the first
 * MCP_VERSIONS_SPOKEN are those it speaks (serve offers them, era.c takes
 * a server naming one as legacy); the rest it accepts in a server's
 * reply only. The one list (versions.c). */
#define MCP_VERSIONS_SPOKEN 4
extern const char *const mcp_versions[];
/* v's place in mcp_versions, or -1 when it is none of them. */
int mcp_version_at(const char *v);
/* Send notifications/cancelled; the call completes now with a cancelled
 * error (listeners fire before this returns). No-op when done. */
void mcp_call_cancel(mcp_call *c);
/* The same with the reason the server is told (notifications/cancelled
 * params.reason): a serve client's own; NULL is mcp_call_cancel's. */
void mcp_call_cancel_why(mcp_call *c, const char *reason);
/* Wait for a pending call; l->done fires once on completion. */
void mcp_call_listen(mcp_call *c, struct mcp_listener *l);
/* Stop waiting (safe if not listening). */
void mcp_listener_remove(struct mcp_listener *l);

/* ---- finding one's way (spec 12; guide.c) ---- */

/* The listing what of s (of srv's one-shots when s is NULL) if it is
 * cached and did not fail; borrowed, NULL otherwise. Never starts one. */
mcp_call *mcp_list_cached(mcp_server *srv, mcp_session *s,
			  enum mcp_list what);
#endif
