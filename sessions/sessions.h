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

#include "buf.h"

typedef struct mcp_server mcp_server;
typedef struct mcp_session mcp_session;
typedef struct mcp_call mcp_call;
typedef struct mcp_ask mcp_ask;

enum mcp_log { MCP_EVENTS, MCP_TRACE }; /* a thread's logs (spec 4, 15) */

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
/* The most recently completed call of s (not a listing): result/. */
mcp_call *mcp_last_done(mcp_session *s);

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
#endif
