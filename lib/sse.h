/*
 * sse.h - an incremental parser of text/event-stream (Server-Sent Events,
 * the WHATWG HTML "event stream interpretation"), as Streamable HTTP MCP
 * servers send their JSON-RPC messages. Pure code, unit tested and fuzzed.
 */
#ifndef MCPFS_SSE_H
#define MCPFS_SSE_H

#include <stddef.h>

#include "gbuf.h"

#define SSE_ID_MAX 256

struct sse {
	struct gbuf line;       /* the unfinished line */
	struct gbuf data;       /* data of the event being built */
	int broken;             /* a line or event grew past max */
	int has_data;           /* a data field was seen */
	char type[32];          /* event type; "" = message */
	char id[SSE_ID_MAX];    /* last event id (kept across events) */
	long retry;             /* last retry field in ms, -1 = none */
	int cr;                 /* the last byte fed was '\r' */
	size_t max;             /* longest line and event data accepted */
	int all_types;          /* deliver events of every type, not only
				 * messages (set after sse_init) */
};

/*
 * Called per dispatched "message" event (type absent or "message") whose
 * data is not empty; with all_types, per event of any type whose data is
 * not empty, its type in p->type ("" for none) during the call. data is
 * NUL-terminated, writable, valid only during the call. Several data lines
 * are joined with a space, not '\n': the data of an MCP event is JSON,
 * where a line break can only be white space, so the message stays one
 * line. Return 0 to go on, non-zero to stop.
 */
typedef int (*sse_event_cb)(void *ctx, char *data, size_t len);

void sse_init(struct sse *p, size_t max);
void sse_free(struct sse *p);
/* Returns 0, the callback's non-zero value, -E2BIG when a line or an
 * event's data grows past max (the parser is then unusable), or -ENOMEM. */
int sse_feed(struct sse *p, const char *buf, size_t n, sse_event_cb cb,
	     void *ctx);

#endif
