/*
 * peer.h - what the files of one serve peer share (serve/peer.c, the
 * client's requests; serve/peerask.c, the servers' questions to it).
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

/* peerask.c: the client's response m (to a question sent it); a
 * question's event (an "mcpfs/request" line of thread s); a question q
 * just opened (the server's params) */
void peer_answered(struct serve_peer *p, cJSON *m);
void peer_question(const struct mcp_stat *s, cJSON *params);
void peer_asked(const struct mcp_stat *q, const char *params, size_t len);

#endif
