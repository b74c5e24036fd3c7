/*
 * peer.h - what the files of one serve peer share (serve/peer.c, the
 * client's requests; serve/peerjob.c, the calls they wait on;
 * serve/peerask.c, the servers' questions to it).
 * Private to serve/.
 */
#ifndef MCPFS_PEER_H
#define MCPFS_PEER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <cjson/cJSON.h>

#include "mlog.h"
#include "serve.h"
#include "sessions.h"

enum job_kind { J_LIST, J_CALL };
/* What a J_LIST job's listings are for: the client's listing, or the
 * route of a resources/read or of a tools/call or prompts/get whose name
 * two servers could give, or the listing a search looks in (scope.h). */
enum job_route { R_LIST, R_READ, R_CALL, R_SEARCH };

struct job;
struct waitc {
	struct mcp_listener l;       /* first: the listener's address */
	struct job *j;
	mcp_call *c;
	uint64_t srv_id;
	enum mcp_list what;
};

struct job {
	LIST_ENTRY(job) link;
	struct serve_peer *p;
	uint64_t tag;
	char *id;                    /* the client's id, as JSON text */
	char *token;                 /* its progressToken as JSON text */
	uint64_t sess_id;            /* J_CALL: the thread it runs in */
	uint64_t srv_id;             /* a read: the server that lists it */
	enum job_kind kind;
	enum job_route route;        /* J_LIST: what for */
	enum mcp_list what;          /* J_LIST: which */
	int prompt;                  /* R_CALL: a prompts/get */
	const char *method;          /* J_LIST: the client's method */
	char *uri;                   /* R_READ: the URI; R_CALL: the name */
	cJSON *read;                 /* ... the request, sent once routed */
	size_t n, left;
	struct waitc w[];
};

#define MAX_ASKED 64              /* questions forwarded, unanswered */

struct serve_peer {
	LIST_ENTRY(serve_peer) link;
	struct serve_out *out;
	char thread[129];            /* mcp_thread_name_check: < 128 */
	int own;                     /* serve-N: closed when the client goes */
	int elicit, sample;          /* the client's capabilities */
	char *servers;               /* scope.c: those it sees, "a\0b\0\0";
				      * NULL: every one */
	int tools;                   /* scope.c: enum scope_tools */
	LIST_HEAD(, job) jobs;
	uint64_t asked[MAX_ASKED];   /* ids of questions sent to the client */
	uint64_t asked_tag[MAX_ASKED]; /* ... with the tag they went with */
};

/* every client of the mount, newest first */
LIST_HEAD(serve_peers, serve_peer);
extern struct serve_peers serve_peers;

/* one message to p's client, of the request tagged tag (serve_out) */
static inline void peer_send_text(struct serve_peer *p, const char *t,
				  size_t n, uint64_t tag, int last)
{
	p->out->send(p->out, t, n, tag, last);
}

static inline void peer_send_json(struct serve_peer *p, cJSON *m,
				  uint64_t tag, int last)
{
	char *t = m ? cJSON_PrintUnformatted(m) : NULL;

	if (t)
		peer_send_text(p, t, strlen(t), tag, last);
	else
		mlog(MLOG_WARN, "serve: a message to a client was lost: out "
		     "of memory");
	free(t);
}

/* {"jsonrpc":"2.0","id":ID,"result":R} with id the JSON text id; an
 * error likewise (id NULL: null) */
static inline void peer_result(struct serve_peer *p, const char *id,
			       cJSON *r, uint64_t tag)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", cJSON_Parse(id));
	cJSON_AddItemToObject(m, "result", r);
	peer_send_json(p, m, tag, 1);
	cJSON_Delete(m);
}

static inline void peer_error(struct serve_peer *p, const char *id,
			      int code, const char *msg, uint64_t tag)
{
	cJSON *m = cJSON_CreateObject(), *e = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddItemToObject(m, "id", id ? cJSON_Parse(id)
					  : cJSON_CreateNull());
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	cJSON_AddItemToObject(m, "error", e);
	peer_send_json(p, m, tag, 1);
	cJSON_Delete(m);
}

/* peerjob.c: a job of p with room for n calls, the client's id and tag;
 * freed; cancelled (its calls told why: the client's reason, or NULL for
 * mcpfs's) */
struct job *job_new(struct serve_peer *p, size_t n, const char *id,
		    uint64_t tag);
void job_free(struct job *j);
void job_cancel(struct job *j, const char *why);
/* a J_LIST job for route (NULL, the client told: out of memory); its
 * listings asked of every server p sees; both, for the client's listing
 * of what (method) */
struct job *job_lists(struct serve_peer *p, const char *id, uint64_t tag,
		      enum mcp_list what, const char *method,
		      enum job_route route);
void job_ask(struct job *j);
void job_listing(struct serve_peer *p, const char *id, uint64_t tag,
		 enum mcp_list what, const char *method);
/* the request req (a call file's JSON) sent as j's call to p's thread of
 * srv: side (prompts, resources) or a call of the thread (tools) */
void job_call(struct serve_peer *p, struct job *j,
	      const struct mcp_stat *srv, cJSON *req, int side);

/* peerask.c: the client's response m (to a question sent it); a
 * question's event (an "mcpfs/request" line of thread s); a question q
 * just opened (the server's params) */
void peer_answered(struct serve_peer *p, cJSON *m);
void peer_question(const struct mcp_stat *s, cJSON *params);
void peer_asked(const struct mcp_stat *q, const char *params, size_t len);

#endif
