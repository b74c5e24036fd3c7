/*
 * httpsess.h - the MCP sessions of the HTTP door and the requests they
 * hold (httpsess.c), for serve/http.c: a session's id, its peer, its
 * POSTs and its GET stream; what each request has to send, and waking
 * the connection that waits for it.
 */
#ifndef MCPFS_HTTPSESS_H
#define MCPFS_HTTPSESS_H

#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include <microhttpd.h>
#include <uv.h>

#include "door.h"
#include "gbuf.h"
#include "httpcheck.h"

#define MAX_SESSIONS 256

struct hreq;
struct hsess {                   /* one client's MCP session */
	LIST_ENTRY(hsess) link;
	char id[33];                 /* its Mcp-Session-Id */
	struct serve_out out;
	struct serve_peer *peer;
	LIST_HEAD(, hreq) reqs;
	struct hreq *get;            /* its standalone event stream (GET) */
	uint64_t last;               /* uv_now of its last request or stream */
};

struct hreq {                    /* one POST, or the GET stream */
	LIST_ENTRY(hreq) link;
	struct MHD_Connection *conn;
	struct hsess *hs;
	struct hc_body body;
	uint64_t tag;
	int dispatched, suspended, done, fresh;
	char *reply;                 /* the answer as JSON, if it came first */
	size_t rlen;
	int sse;                     /* ... else an event stream (2: none
				      * queued yet, it waits suspended) */
	struct gbuf q;               /* its events not yet sent */
	size_t qoff;
};

/* kick: http.c's, run libmicrohttpd soon (a connection was resumed);
 * idle_ms: -o serve_idle. hs_stop ends every session. */
void hs_init(uv_loop_t *loop, uint64_t idle_ms, void (*kick)(void));
void hs_stop(void);

struct hsess *hs_new(const char *thread);   /* NULL: out of memory */
struct hsess *hs_find(const char *id);      /* its Mcp-Session-Id */
void hs_end(struct hsess *hs);
unsigned hs_count(void);
/* idle sessions end; 1 while any session is left */
int hs_expire(uint64_t now);
/* seconds until a session may end (a 503's Retry-After) */
unsigned hs_retry(void);

/* r waits, suspended, for something to send; r's connection ended (a
 * POST unanswered is cancelled) */
void hs_wait(struct hreq *r);
void hs_forget(struct hreq *r);
/* libmicrohttpd's content reader of r's event stream (cls: r) */
ssize_t hs_read(void *cls, uint64_t pos, char *buf, size_t max);

#endif
