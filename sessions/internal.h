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
#include "ring.h"
#include "sessions.h"
#include "transport.h"

#define STDERR_KEEP (64 * 1024)
#define EVENTS_KEEP (1024 * 1024)

/* A kept configuration; servers point into it. */
struct conf_ref {
	struct mcp_config *cfg;
	unsigned refs;
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
	const struct transport_ops *ops; /* of the last start */
	struct transport *t;      /* attached transport, or NULL */
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
	struct mcp_ask *asks;     /* open questions, oldest first (ask.c) */
	unsigned nasks, ask_seq;  /* how many; the last number given */
	unsigned ask_caps;        /* ASK_CAP_* declared at initialize */
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
void session_close(mcp_session *s, const char *why);
void session_close_notify(mcp_session *s, const char *why);
unsigned session_live_count(void);
int session_idle(const mcp_session *s);
void sessions_reap_done(void (*cb)(void));
void session_obj_hold(void);
void session_obj_drop(void);
/* Answer the server's request id (borrowed) with result or err (taken). */
void session_answer(mcp_session *s, cJSON *id, cJSON *result, cJSON *err);

/* buf.c */
mcp_buf *mcp_buf_json(cJSON *j, int pretty); /* + newline; NULL on ENOMEM */

void sessions_init(void);
void sessions_fini(void);   /* after every session was freed */

#endif
