/*
 * curluv.h - libcurl's multi interface driven by a libuv loop: curl's
 * socket callback sets uv_poll watchers, its timer callback a uv_timer, so
 * transfers run on the loop thread and nothing blocks. The engine of the
 * HTTP transports; it knows nothing of MCP.
 *
 * A transfer is a struct cu_xfer embedded in its owner. curl refuses to be
 * called from inside its own callbacks, so the engine defers: a transfer
 * started from a callback waits until curl returns, and a killed one is
 * removed from curl, cleaned up and handed to release only outside them.
 */
#ifndef MCPFS_CURLUV_H
#define MCPFS_CURLUV_H

#include <curl/curl.h>
#include <sys/queue.h>
#include <uv.h>

struct cu_xfer {
	CURL *easy;     /* set by the owner, CURLOPT_PRIVATE = this struct */
	/* The transfer finished with res (called once, with the engine
	 * marked busy: transfers started here wait); the owner then kills
	 * it, from here or later. */
	void (*done)(struct cu_xfer *x, CURLcode res);
	/* x is out of curl and its easy handle cleaned up: free the owner. */
	void (*release)(struct cu_xfer *x);
	int dead;       /* killed; release comes */
	int waiting;    /* in the starting list */
	int nomem;      /* in the list of those failed for want of memory */
	TAILQ_ENTRY(cu_xfer) qlink; /* the dead, starting or nomem list */
};

int cu_init(uv_loop_t *loop);      /* 0 or -ENOMEM; once per process */
void cu_fini(void);                /* closes cached connections */
/* Hand x->easy to curl (now, or once curl's callbacks return). Returns 0,
 * or -EIO when curl refuses it (then x is not started; kill it). */
int cu_start(struct cu_xfer *x);
/* The options every handle of mcpfs gets, set in this one place on
 * x->easy: x as its private pointer, no signals, a 10 s connect timeout,
 * http and https only, mcpfs's user agent. */
void cu_defaults(struct cu_xfer *x);
/* Stop x: it is removed from curl and released outside curl's callbacks
 * (at once when not inside them). Safe to call twice. */
void cu_kill(struct cu_xfer *x);

#endif
