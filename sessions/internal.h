/*
 * internal.h - what the files of sessions/ share: the server, session,
 * process and call structs, and the functions many of them call (what
 * only a few share has its own header: index.h, pages.h, policy.h,
 * lost.h, task.h, mrtr.h, stream.h). A feature's own state of a
 * session or a call (tasks, input rounds, pages, a reply read as it
 * arrives, the names given out, result/) is a pointer here, made at its
 * first use, its struct private to the feature's file. Never included
 * by fs/.
 */
#ifndef MCPFS_INTERNAL_H
#define MCPFS_INTERNAL_H

#include <cjson/cJSON.h>
#include <sys/queue.h>
#include <uv.h>

#include "config.h"
#include "frame.h"
#include "idtab.h"
#include "request.h"
#include "ring.h"
#include "mlog.h"
#include "program.h"
#include "sessions.h"
#include "surface.h"
#include "transport.h"

#define STDERR_KEEP (64 * 1024)
#define EVENTS_KEEP (1024 * 1024)
#define TRACE_KEEP (1024 * 1024)   /* trace.c: the window of the trace */

/* A kept configuration; servers point into it. */
struct conf_ref {
	struct mcp_config *cfg;
	unsigned refs;
};

/* Names given out as files, numbered for their inodes (surface.c), with
 * a hash of them (open addressing: a number + 1, 0 for an empty slot). */
struct names {
	char **v;
	unsigned long n;
	size_t cap;
	unsigned long *hash;
	size_t hcap;
};

/* The index of a listing's entries (surface.c), made once per listing. */
struct lindex;

struct mcp_server {
	uint64_t id;
	struct mcp_server_conf *conf;
	struct conf_ref *cref;
	LIST_HEAD(, mcp_session) sessions; /* threads, newest first */
	unsigned nsessions;
	LIST_HEAD(, mcp_session) spares;   /* warm.c: started, unnamed */
	unsigned nspares;
	mcp_call *last_sent, *last_done; /* one-shot calls */
	unsigned in_flight;
	mcp_call *lists[MCP_NLISTS];     /* cached listings (tools.json) */
	mcp_session *probe;              /* the one-shot that lists them */
	struct names help;               /* guide.c: help/ file names */
	cJSON *about;                    /* guide.c: serverInfo, instructions */
	int removed;
	struct mcp_server *next;
};

enum sstate { S_IDLE, S_STARTING, S_READY, S_EXITED, S_CLOSING };

/* inbound.c: a long reply arriving on stdio (struct stream) */
enum stream_state {
	STREAM_LOOKING,         /* its start not seen yet (0: memset) */
	STREAM_ON,              /* a reply of a call, readable as it arrives */
	STREAM_OFF,             /* not one: the rest of the line is ignored */
};

/* task.c: what a call is to tasks (mcp_call.task) */
enum call_task {
	TASK_NONE,              /* nothing */
	TASK_ASKED,             /* sent as a task (2025-11-25, params.task) */
	TASK_AWAITED,           /* ... created: its result asked */
	TASK_POLLED,            /* a modern task, polled (tasks/get) */
	TASK_REQUEST,           /* a request about a task (tasks/get, ...) */
};

struct mcp_session {
	uint64_t id;
	char name[129];
	mcp_server *srv;
	int oneshot;
	int spare;                /* warm.c: no thread yet, adopted by mkdir */
	struct mlog_limit junk;   /* inbound.c: skipped lines, rate-limited */
	LIST_ENTRY(mcp_session) link;     /* all sessions */
	LIST_ENTRY(mcp_session) srv_link; /* the server's threads */
	enum sstate state;
	unsigned generation;
	double created, last_used;
	uint64_t calls;
	unsigned in_flight;
	int holds;
	const struct transport_ops *ops; /* of the last start */
	struct transport *t;      /* attached transport, or NULL */
	uint64_t next_id;
	struct idtab pending;     /* rpc id -> mcp_call, sent */
	TAILQ_HEAD(, mcp_call) queue; /* waiting for the handshake */
	mcp_call *init;           /* the initialize request */
	cJSON *server_info, *capabilities;
	char protocol[32];
	char *last_error;
	double last_error_at;     /* when last_error was set (spec 9, 12) */
	int err_noted;            /* lasterr.c: last_error already names the
				     failure of the calls failing now */
	cJSON *call_error;        /* lasterr.c: status.last_call_error */
	double call_error_at;     /* ... and when */
	struct lost *lost;        /* lost.c: the last state lost (spec 5;
				     NULL: none yet) */
	int exit_status, term_signal, has_exit;
	unsigned start_fails;
	double next_start;
	mcp_call *last_sent, *last_done, *lists[MCP_NLISTS];
	struct ring err, events, trace;
	cJSON *subs;                   /* subscribe.c: the URIs subscribed */
	struct surface *sf;            /* surface.c: names given out and
					  warnings (NULL: none yet) */
	struct result *res;            /* result.c: the parts of the last
					  reply (NULL: result/ not read) */
	struct res_kept *kept;         /* reskept.c: resources/ files as last
					  read, for st_size (NULL: none) */
	struct list_notes *notes;      /* listnotes.c: a listing "none" or
					  partial, and why (spec 9; NULL:
					  none) */
	struct names *help;            /* guide.c: help/ file names (NULL:
					  none yet) */
	struct stream *stream;         /* stream.c: a long reply arriving
					  (NULL: no line came in parts) */
	uv_timer_t idle_timer;
	int closed;
	LIST_HEAD(, mcp_ask) asks; /* open questions, oldest first (ask.c) */
	unsigned nasks, ask_seq;   /* how many; the last number given */
	unsigned ask_caps;         /* ASK_CAP_* declared at initialize */
	int era;                   /* MCP_ERA_*: spoken; AUTO = not known */
	int probing;               /* server/discover in flight (modern) */
	unsigned probes;           /* server/discover sent this start */
	struct tasks *tasks;       /* task.c: tasks/ (NULL: no task yet) */
};

/* CALL_SIDE: a request of the tree (a resources/ read), not a reply of
 * call or result/. */
enum call_kind { CALL_USER, CALL_SIDE, CALL_LIST, CALL_INIT };

struct mcp_call {
	unsigned refs;
	enum call_kind kind;
	mcp_server *srv;
	mcp_session *s;          /* NULL once done */
	uint64_t rpc_id;         /* 0 until sent */
	char *line;              /* the user's request text, until sent */
	struct mcp_request req;  /* ... parsed */
	char *tool;              /* a tools/call: its tool ("" none; request.h) */
	char token[48];          /* progress token we watch */
	int done;
	mcp_buf *reply;
	int failed;              /* ... an error {"error": E}, not a result */
	LIST_HEAD(, mcp_listener) listeners;
	TAILQ_ENTRY(mcp_call) qlink;
	int queued;              /* on its session's queue */
	int streamed;            /* its reply was readable as it arrived */
	int stream_ok;           /* ... and completed as the same bytes */
	int too_long;            /* ... or went past --max-message */
	size_t stream_at;        /* where in its line the result began */
	uv_timer_t timer;
	double timeout, started;
	enum mcp_list list;      /* CALL_LIST: which */
	int relisted;            /* sent again after a HeaderMismatch */
	enum call_task task;     /* task.c */
	struct task *tk;         /* ... the task it runs as (NULL: none) */
	struct mcp_listener wait; /* for the tools listing (taskSupport) */
	struct pages *pg;        /* pages.c: its pages (NULL: none yet) */
	struct lindex *lidx;     /* CALL_LIST: its entries indexed
				    (surface.c) */
	struct stree *skills;    /* MCP_SKILLS: its tree (live/skills.c) */
	struct skills_walk *skw; /* ... its pages until the tree is made */
	char method[64];         /* CALL_USER: its method, for status */
	int probe;               /* CALL_INIT: the server/discover probe */
	struct mrtr *mrtr;       /* mrtr.c: its input rounds (NULL: none) */
};

/* index.c: what the process gives every file of sessions/, set once by
 * mcp_init: its loop, the mount's options, fs/'s hooks. */
struct sessions_process {
	uv_loop_t *loop;
	struct mcp_options opts;
	const struct mcp_hooks *hooks;
};
extern struct sessions_process process;

/* call.c: call objects, their timers and listeners */
struct call_hooks {
	void (*timed_out)(mcp_call *c);    /* its timer fired, not done */
	void (*completed)(mcp_session *s); /* after a call of s completed */
	/* send c (no longer pending) again, once the tools listing that
	 * was dropped for it is there again */
	void (*relisted)(mcp_call *c);
	/* c, completed, is taken off s: what the features hold of it on s
	 * let go (its entry in tasks/) */
	void (*detached)(mcp_session *s, mcp_call *c);
	void (*freed)(mcp_call *c); /* c is freed: its features' state */
};
void call_setup(const struct call_hooks *h);
void call_relisted(mcp_call *c); /* hooks->relisted */
mcp_call *call_new(enum call_kind kind, mcp_server *srv, mcp_session *s);
void call_set_ref(mcp_call **slot, mcp_call *c);
void call_complete(mcp_call *c, mcp_buf *reply); /* reply taken; once */
/* The same with the error reply {"error": err} (err borrowed; NULL: out
 * of memory): the one way a call fails, so that mcp_call_failed knows. */
void call_complete_error(mcp_call *c, cJSON *err);
/* c awaits the reply to its request c->rpc_id on s: 0, or -ENOMEM after c
 * failed with the out of memory error (then its request is not sent). */
int call_track(mcp_session *s, mcp_call *c);
/* The exchange of c->rpc_id on s is over without a reply to hand on (a
 * retry, a task, the handshake): off the pending table and the
 * transport's (c->rpc_id is left for the caller). */
void call_untrack(mcp_session *s, mcp_call *c);
void call_fail(mcp_call *c, int code, const char *msg, cJSON *data);
/* call_fail where the session's last_error names the failure already
 * (session_error): it is left as it is. */
void call_fail_noted(mcp_call *c, int code, const char *msg, cJSON *data);
/* c->method, from its request text (at its start, before it is sent). */
void call_user_method(mcp_call *c);
/* A request of mcpfs's own on s (method, with params taken, or none),
 * that l waits for: sent, or failed (l told) when it cannot be. The call
 * (a reference for the caller), or NULL, l not told, when out of memory. */
mcp_call *call_side(mcp_session *s, const char *method, cJSON *params,
		    struct mcp_listener *l);

void call_progress(mcp_call *c);
void call_more(mcp_call *c);       /* listeners: more of it streamed */
void call_user_token(mcp_call *c); /* the request's own progress token */
void call_queue(mcp_session *s, mcp_call *c);
mcp_call *call_dequeue(mcp_session *s);

/* message.c: the JSON-RPC messages mcpfs builds, and sending them */
/* Member k of o: time t (seconds since the epoch) as RFC 3339 UTC. */
void msg_add_time(cJSON *o, const char *k, double t);
/* The ListRootsResult of the config entry's roots. */
cJSON *msg_roots(const struct mcp_server_conf *conf);
cJSON *msg_error(int code, const char *msg, cJSON *data); /* data copied */
mcp_buf *msg_error_reply(cJSON *err);   /* {"error": err}; err borrowed */
cJSON *msg_request(uint64_t id, const char *method);
cJSON *msg_notification(const char *method);
cJSON *msg_initialize(uint64_t id, const struct mcp_server_conf *conf);
/* A listing's request (cursor NULL for the first page), its result key and
 * the server capability it needs. */
cJSON *msg_list(uint64_t id, enum mcp_list what, const char *cursor);
/* 1 when the capabilities caps offer listing what. */
int msg_list_offered(const cJSON *caps, enum mcp_list what);
const char *msg_list_method(enum mcp_list what);
void session_send(mcp_session *s, char *line, size_t len, uint64_t rpc_id);
/* trace.c: one message of s, in (from the server) or out, into its trace
 * (spec 15), unless -o notrace. */
void trace_msg(mcp_session *s, int in, const char *line, size_t len);
/* trace.c: an incoming line traced as trace_msg does; when that scanned
 * it, the scan's result (jscan_is_value_ws: 1 or 0, and *ws), else -1. */
int trace_in(mcp_session *s, const char *line, size_t len, int *ws);
/* trace.c: the byte windows of a session (stderr, events, trace): their
 * sizes, and their buffers freed. */
void windows_init(mcp_session *s);
void windows_free(mcp_session *s);
/* message.c: what fails request rpc_id of s that could not be sent (its
 * call, or the start when it was the handshake; status 0); set once by
 * the session core, as inbound_setup */
void message_setup(void (*failed)(mcp_session *s, uint64_t rpc_id, int code,
				  long status, const char *msg));
void session_send_json(mcp_session *s, cJSON *msg, uint64_t rpc_id);
void session_answer(mcp_session *s, cJSON *id, cJSON *result, cJSON *err);

/* inbound.c: a message from the server; its handshake reply goes to h
 * (msg NULL: a reply that could not be parsed for want of memory) */
void inbound_setup(void (*h)(mcp_session *s, mcp_call *c, cJSON *msg));
void inbound_message(mcp_session *s, struct frame *f, char *line,
		     size_t len);
/* A message longer than --max-message was dropped (transport.h,
 * too_long): the calls to fail (up to 2, at ids) with the message msg,
 * which names the option and the size needed; 0 when none (len 0: the
 * line passed the limit; or it was no reply, which is logged). */
size_t inbound_too_long(mcp_session *s, size_t len, int has_id, uint64_t id,
			uint64_t ids[2], char *msg, size_t n);
/* live/observe.c: a notification or a question event of s (its events
 * line) to the observer of mcp_observe, if any */
void session_observe(mcp_session *s, const char *json, size_t len);

/* handshake.c: starting the protocol (initialize, or the modern probe) */
/* by the era known or configured; 0 or -ENOMEM (nothing sent) */
int hs_start(mcp_session *s);
int hs_initialize(mcp_session *s); /* send initialize (s->init); as above */
void hs_listen(mcp_session *s);     /* modern: subscriptions/listen */
/* The probe c was answered by msg (NULL: no answer in time, or the HTTP
 * status why): retry or fall back to initialize (returns 0), the session
 * is ready in the modern era (1), or it failed (-1, why filled). */
int hs_probe_done(mcp_session *s, mcp_call *c, cJSON *msg, char *why,
		  size_t n);

/* client.c: mcpfs's answers to what a server asks it (ping, roots;
 * questions for the user go to ask.c) */
void client_request(mcp_session *s, const char *method, cJSON *id,
		    cJSON *msg, const char *line, size_t len);

/* surface.c */
void surface_free(mcp_session *s);
/* Room for more names of listing what of s at once (names_reserve): 0 or
 * -ENOMEM. */
int surface_names_reserve(mcp_session *s, enum mcp_list what, size_t more);
const cJSON *surface_warnings(const mcp_session *s); /* NULL: none */
void result_free(mcp_session *s); /* result.c: as s is freed */
/* reskept.c: resources/URI of s was read as b (NULL: the read failed,
 * nothing is known of it now), kept for its st_size (mcp_resource_size);
 * and all of them dropped (the session is freed). */
void res_kept_set(mcp_session *s, const char *uri, mcp_buf *b);
void res_kept_free(mcp_session *s);
/* A warning of s for its status (each text once, the last few kept) and
 * the log. */
void surface_warn(mcp_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
long names_intern(struct names *t, const char *name);
/* Room in t's hash for more names, at once (no growth while they come,
 * which rehashes the table in one turn of the loop): 0 or -ENOMEM. */
int names_reserve(struct names *t, size_t more);
void names_free(struct names *t);

/* about.c: a session of srv finished its handshake: keep what it said of
 * itself (serverInfo, instructions) for README.md. */
void about_learn(mcp_server *srv, const cJSON *info, const cJSON *instr);
/* ... or failed to start, for why (its last_error): README.md says it. */
void about_start_failed(mcp_server *srv, const char *why);
void about_server_free(mcp_server *srv);

/* warm.c: spare sessions (the "warm" key) */
void session_warm(mcp_server *srv);   /* start or close spares to warm */
void session_spares_close(mcp_server *srv, const char *why);
/* The config's roots of srv changed (reload): every running session of
 * it gets notifications/roots/list_changed; roots/list answers from the
 * config, so the next one has the new set (client.c). */
void session_roots_changed(mcp_server *srv);
void session_warm_stop(void);         /* at shutdown: no more spares */

/* status.c */
cJSON *session_failure_data(const mcp_session *s); /* exit, stderr tail */
/* status.c: JSON of a status file, pretty, DEL and C1 escaped (ctlesc.h),
 * with a newline; NULL on ENOMEM. */
mcp_buf *status_buf(const cJSON *o);
/* auth.c: one auth state change of server, for the log and the events of
 * its threads (never a secret); the HTTP module's env.auth_note. */
void mcp_auth_note(const char *server, const char *state,
		   const char *detail);

/* msg and, when msg says the process exited or was killed, the last
 * line of its stderr ("server exited with status 127: cannot run X: No
 * such file or directory"): malloc'd. */
char *session_reason(const mcp_session *s, const char *msg);
/* s's status.last_error is msg (taken over; NULL when out of memory), and
 * last_error_at now: every failure the user should see goes here. */
void session_error(mcp_session *s, char *msg);
/* msg (taken; NULL is fine) with what is not UTF-8 in it as \xNN, for
 * status: malloc'd, NULL when msg is. */
char *session_shown(char *msg);
/* User call c of s completed: when its reply is a JSON-RPC error or a
 * result with isError true, it is status.last_call_error, and last_error
 * unless the failure is noted there already (s->err_noted). */
void session_call_failed(mcp_session *s, const mcp_call *c);
/* A ctl write of len bytes at verb that is no verb: last_error names it
 * and the verbs there are. */
void session_bad_verb(mcp_session *s, const char *verb, size_t len);
/* data.authorizationUrl and data.auth of a call failed for authorization */
void session_auth_data(const mcp_session *s, cJSON *data);
/* The data of a failure with error code *code: session_failure_data, and
 * when *code is ERR_AUTH_UP (the transport's "sign in first") the sign-in
 * data too, *code becoming ERR_AUTH, the code callers see. */
cJSON *session_failure_data_for(const mcp_session *s, int *code);

/* sessobj.c: the session object */
mcp_session *session_new(mcp_server *srv, const char *name, int oneshot,
			 int spare);
/* s (closed) is freed once its timer is closed, with its features' state. */
void session_free(mcp_session *s);
/* call_hooks' detached and freed: the features' state of a call */
void session_call_detached(mcp_session *s, mcp_call *c);
void session_call_freed(mcp_call *c);

/* cancel.c: c fails with code and msg (and last_error says so), before
 * its reply: the server is told why (reason), its questions and task
 * are dropped. */
void cancel_call(mcp_call *c, int code, const char *msg, const char *reason);

/* session.c */
int session_start(mcp_session *s);
void session_idle_check(mcp_session *s); /* (re)arm the idle timer */
/* Close a session that goes away without an rmdir and tell fs/. */
void session_close_notify(mcp_session *s, const char *why);
void session_close(mcp_session *s, const char *why);
/* subscribe.c: ctl's `subscribe URI` (on) and `unsubscribe URI`: 0,
 * -EOPNOTSUPP (the server offers none), -ENOENT (not subscribed),
 * -EINVAL, -ENOMEM. */
int subs_ctl(mcp_session *s, int on, const char *uri, size_t n);
/* subscribe.c: at a handshake, s's subscriptions sent again. */
void subs_renew(mcp_session *s);
/* ctl restart: calls in flight fail, a fresh process starts. */
void session_restart(mcp_session *s);
void sessions_reap_done(const char *why, void (*cb)(void));
void sessions_init(void);
void sessions_fini(void);   /* after every session was freed */

/* The objects by pointer (registry.c, index.c, ask.c): the front doors
 * have them by id (mcp_lookup, mcp_walk, mcp_next). NULL when gone, or
 * after the last. */
void mcp_server_stat(const mcp_server *srv, struct mcp_stat *st);
void mcp_session_stat(const mcp_session *s, struct mcp_stat *st);
void mcp_ask_stat(const mcp_ask *q, struct mcp_stat *st);
mcp_server *mcp_server_next(mcp_server *prev);
mcp_session *mcp_session_next(mcp_server *srv, mcp_session *prev);
mcp_ask *mcp_ask_next(mcp_session *s, mcp_ask *prev);
mcp_server *mcp_server_find(const char *name);
mcp_session *mcp_session_find(mcp_server *srv, const char *name);
mcp_server *mcp_server_by_id(uint64_t id);
mcp_session *mcp_session_by_id(uint64_t id);
mcp_ask *mcp_ask_by_id(uint64_t id);

/* The rendered files mcp_doc gives (refs = 1): registry.c, status.c,
 * auth.c, ask.c, task.c. */
mcp_buf *mcp_status_json(void);
mcp_buf *mcp_client_entry(void); /* NULL unless serving */
mcp_buf *mcp_server_auth_json(mcp_server *srv);
mcp_buf *mcp_session_status_json(mcp_session *s);
mcp_buf *mcp_session_stderr(mcp_session *s);
mcp_buf *mcp_ask_json(mcp_ask *q);
mcp_buf *mcp_task_json(mcp_session *s, unsigned long num);

/* surface.c: a resources/read reply's contents, or NULL with *err
 * (mcp_resource_file without its report); lasterr.c: a resources/read
 * of uri failed with reply: the server's message is s's last_error. */
mcp_buf *mcp_resource_bytes(const mcp_buf *reply, int *err);
void mcp_resource_failed(mcp_session *s, const char *uri,
			 const mcp_buf *reply);

/* buf.c */
mcp_buf *mcp_buf_json(cJSON *j, int pretty); /* + newline; NULL on ENOMEM */
mcp_buf *mcp_buf_oom(void);  /* the out-of-memory error reply; never NULL */

#endif
