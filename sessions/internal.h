/*
 * internal.h - what the files of sessions/ share: the server, session,
 * process and call structs. Never included by fs/.
 */
#ifndef MCPFS_INTERNAL_H
#define MCPFS_INTERNAL_H

#include <cjson/cJSON.h>
#include <uv.h>

#include "config.h"
#include "frame.h"
#include "idtab.h"
#include "request.h"
#include "sessions.h"

#define STDERR_KEEP (64 * 1024)
#define EVENTS_KEEP (1024 * 1024)

/* Error codes of failures of the session itself (JSON-RPC server range). */
enum {
	ERR_TIMEOUT = -32001,
	ERR_EXITED = -32002,
	ERR_CANCELLED = -32003,
	ERR_STARTUP = -32004,
	ERR_PROTOCOL = -32005,
	ERR_CLOSED = -32006,
	ERR_HTTP = -32007,
};

/* A kept configuration; servers point into it. */
struct conf_ref {
	struct mcp_config *cfg;
	unsigned refs;
};

/* Byte ring keeping the last cap bytes of a stream; total counts all. */
struct ring {
	char *buf;
	size_t cap;
	uint64_t total;
};

struct mcp_server {
	uint64_t id;
	struct mcp_server_conf *conf;
	struct conf_ref *cref;
	struct mcp_session *sessions; /* threads, newest first */
	unsigned nsessions;
	mcp_call *last_sent, *last_done; /* one-shot calls */
	unsigned in_flight;
	mcp_call *tools;                 /* cached tools.json */
	int removed;
	struct mcp_server *next;
};

enum sstate { S_IDLE, S_STARTING, S_READY, S_EXITED, S_CLOSING };

struct proc;
struct http;

struct mcp_session {
	uint64_t id;
	char name[129];
	mcp_server *srv;
	int oneshot;
	struct mcp_session *next, **pprev;         /* all sessions */
	struct mcp_session *srv_next, **srv_pprev; /* server's threads */
	enum sstate state;
	unsigned generation;
	double created, last_used;
	uint64_t calls;
	unsigned in_flight;
	int holds;
	struct proc *proc;        /* stdio servers */
	struct http *http;        /* Streamable HTTP servers */
	uint64_t next_id;
	struct idtab pending;     /* rpc id -> mcp_call, sent */
	mcp_call *queue, **qtail; /* waiting for the handshake */
	mcp_call *init;           /* the initialize request */
	cJSON *server_info, *capabilities;
	char protocol[32];
	char *last_error;
	int exit_status, term_signal, has_exit;
	unsigned start_fails;
	double next_start;
	mcp_call *last_sent, *last_done, *tools;
	struct ring err, events;
	uv_timer_t idle_timer;
	int closed;
};

enum call_kind { CALL_USER, CALL_TOOLS, CALL_INIT };

struct mcp_call {
	unsigned refs;
	enum call_kind kind;
	mcp_server *srv;
	mcp_session *s;          /* NULL once done */
	uint64_t rpc_id;         /* 0 until sent */
	char *line;              /* the user's request text, until sent */
	struct mcp_request req;  /* ... parsed */
	char token[48];          /* progress token we watch */
	int done;
	mcp_buf *reply;
	struct mcp_listener *listeners;
	mcp_call *qnext;
	uv_timer_t timer;
	double timeout, started;
	cJSON *acc;              /* tools pages so far */
	char method[64];
};

/* session.c */
extern uv_loop_t *mcp_loop;
extern struct mcp_options mcp_opts;
extern const struct mcp_hooks *mcp_hooks_p;
double mcp_now(void);
uint64_t mcp_new_id(void);
mcp_session *session_new(mcp_server *srv, const char *name, int oneshot);
void session_close(mcp_session *s, const char *why);
int session_start(mcp_session *s);
void session_close_notify(mcp_session *s, const char *why);
unsigned session_live_count(void);
int session_idle(const mcp_session *s);
void sessions_reap_done(void (*cb)(void));
void session_obj_hold(void);
void session_obj_drop(void);
void ring_line(struct ring *r, const char *p, size_t n); /* + "\n" */
/* For the transports: one message from the server (line is writable; f,
 * if not NULL, is the frame holding it, whose buffer a long reply may
 * take); the session is lost; request rpc_id failed; request rpc_id still
 * waits for its reply. */
void session_message(mcp_session *s, struct frame *f, char *line,
		     size_t len);
void session_lost(mcp_session *s, int code, const char *what);
void session_call_error(mcp_session *s, uint64_t rpc_id, int code,
			const char *msg);
int session_call_pending(mcp_session *s, uint64_t rpc_id);

/* http.c: the Streamable HTTP transport (contract at its top). */
int http_start(mcp_session *s);       /* s->http set; init not sent */
void http_send(struct http *h, char *line, size_t len, uint64_t rpc_id);
void http_ready(struct http *h);      /* before notifications/initialized */
void http_forget(struct http *h, uint64_t rpc_id); /* call ended here */
void http_detach(struct http *h);     /* s->http cleared; DELETE */
void http_global_shutdown(void);      /* after the last session */

/* registry.c */
void registry_session_add(mcp_session *s);
void registry_session_del(mcp_session *s);
void registry_trim(void);

#endif
