/*
 * httpconn.h - the connections of the HTTP door and its bounds
 * (httpconn.c), for serve/http.c: which connection waits for what since
 * when, the limit on them, and ending one from outside libmicrohttpd.
 */
#ifndef MCPFS_HTTPCONN_H
#define MCPFS_HTTPCONN_H

#include <stdint.h>
#include <sys/queue.h>

#include <microhttpd.h>
#include <uv.h>

#define HEADERS_MS 10000         /* a request's headers, from its start */
#define BODY_MS 30000            /* its body, from its headers */
#define CONN_SLACK 16            /* connections closing over the limit */

enum { C_WAIT, C_BODY, C_BUSY }; /* a request awaited, its body, served */
struct hconn {                   /* one TCP connection, oldest first */
	TAILQ_ENTRY(hconn) link;
	int fd;
	int phase;                   /* C_*: http.c moves it */
	uint64_t since;              /* uv_now when the phase began */
	unsigned requests;           /* it has had */
	int killed;                  /* ended from outside (hconn_kill) */
	int over;                    /* over the limit at its start */
	char local[48];              /* the address it came in at, as text */
};

struct hbound {                  /* a bound, for its log line */
	const char *what;
	uint64_t logged;             /* uv_now of its last line */
	unsigned more;               /* hits since */
};

/* The JSON-RPC error of a 503: printf with the bound's what and the
 * seconds of Retry-After. */
#define BUSY_BODY "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":" \
	"{\"code\":-32000,\"message\":\"busy: over the bound of %s; try " \
	"again after %u s\"}}"

extern struct hbound hb_conns;   /* -o serve_connections */

/* The connections the door may hold for serve_connections = want (a
 * quarter of RLIMIT_NOFILE at most, logged when it is less). */
unsigned hconn_limit(unsigned want);
void hconn_init(uv_loop_t *loop, unsigned max);
/* libmicrohttpd's connection notifications: a connection starts (*ctx
 * set; over the limit, the oldest one waiting for a request is ended, or
 * this one when all others have one) or ends (*ctx freed). */
void hconn_start(struct MHD_Connection *c, void **ctx, uint64_t now);
void hconn_end(void **ctx);
/* At hc's headers: 1 when it may be served (under the limit now, or the
 * oldest connection waiting for a request ended for it), 0 when it is
 * over the limit (503). */
int hconn_admit(struct hconn *hc);
/* The connection of c, or NULL. */
struct hconn *hconn_of(struct MHD_Connection *c);
/* End the requests whose headers or body are late. 1 while there are
 * connections. */
int hconn_sweep(uint64_t now);
/* Bound b was hit (its log line, at most one each 10 s; done says what
 * came of it). */
void hbound_hit(struct hbound *b, const char *done);

#endif
