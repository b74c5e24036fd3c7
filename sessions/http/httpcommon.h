/*
 * httpcommon.h - what the two HTTP transports share (http.c, Streamable
 * HTTP, and httpsse.c, the 2024-11-05 HTTP+SSE one): the server's settings
 * copied at start, the headers every request carries (the configured ones
 * and the OAuth Authorization), the options of every curl handle, the body
 * of a POST, the first look at an answer, the messages of a failure, and
 * the operations both tables hold the same.
 *
 * Nothing here calls back into a transport but through the callbacks it
 * is given (the write and header callbacks of a handle).
 */
#ifndef MCPFS_HTTPCOMMON_H
#define MCPFS_HTTPCOMMON_H

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

#include "curluv.h"
#include "modenv.h"
#include "sse.h"
#include "transport.h"

/* A server's settings, copied from its config at start (mod_env's
 * conf_dup: the one copy fallback.c makes too); name, url and headers
 * point into conf. */
struct hc_server {
	struct mcp_server_conf *conf;
	const char *name;         /* the server's config name, for logs */
	const char *url;
	char *const *headers;     /* "Name: value" */
	size_t nheaders;
	struct oauth *oa;         /* the server's authorization, or NULL */
};

/* The parts of one request the transports build alike. */
struct hc_req {
	struct curl_slist *hdrs;
	char *body;               /* POST body */
	size_t body_len, body_off;
};

/* The init of both ops tables: keeps env (mod_env), sets up the engine. */
int hc_init(const struct transport_env *e);
/* The pid of both: no process. */
int hc_pid(const struct transport *t);

/* Copy conf into sv and find its authorization; -ENOMEM (sv partly
 * filled: hc_server_free it). */
int hc_server_copy(struct hc_server *sv, const struct mcp_server_conf *conf);
/* Free what hc_server_copy filled (any part of it). */
void hc_server_free(struct hc_server *sv);

/* The last of a transport's struct: its settings sv, one string of its
 * own (or NULL) and obj freed, a closing object less (obj_drop). */
void hc_free(void *obj, struct hc_server *sv, char *own);
/* A new transfer's engine callbacks and event-stream parser. */
void hc_xfer_init(struct cu_xfer *cu, struct sse *sse,
		  void (*done)(struct cu_xfer *, CURLcode),
		  void (*release)(struct cu_xfer *));

/* Add "name: val" to q's headers, or the whole line name when val is
 * NULL; 0 or -ENOMEM. */
int hc_add_header(struct hc_req *q, const char *name, const char *val);
/* Add sv's configured headers, then its Authorization when it has a
 * token (gen, when not NULL, gets the token's generation), with the DPoP
 * proof of a request method to url for a DPoP-bound token; 0 or -ENOMEM. */
int hc_server_headers(struct hc_req *q, const struct hc_server *sv,
		      unsigned *gen, const char *method, const char *url);

/* The options of handle cu->easy for q to url: wr (and hd, when not NULL)
 * get ud; a POST's body is set by hc_post_body. */
void hc_easy(struct cu_xfer *cu, const char *url, const struct hc_req *q,
	     curl_write_callback wr, curl_write_callback hd, void *ud);
/* q's body on the handle: a request (rpc_id not 0) through a read callback
 * without rewind, so curl fails the transfer instead of resending it on a
 * fresh connection (a call is never replayed); a notification as is. */
void hc_post_body(CURL *e, struct hc_req *q, uint64_t rpc_id);
/* Free q's headers and body. */
void hc_req_free(struct hc_req *q);

/* First look at an answer: its status into *code; 'x' when that is not
 * 2xx, 's' for an event stream, else 0. */
int hc_answer(CURL *e, long *code);

/* The end of a start that ran out of memory: obj (with its settings sv,
 * when obj is not NULL) freed, err written; -ENOMEM. */
int hc_start_oom(void *obj, struct hc_server *sv, char *err, size_t errlen);
/* A message that found no memory for its transfer: line freed, and the
 * request rpc_id (when not 0) fails. */
void hc_send_oom(const struct transport_up *up, void *ctx, char *line,
		 uint64_t rpc_id);

/* The ops table of a transport of the module, from its operations. */
#define HC_OPS(tname, caps_, fini_, start_, send_, send_hdrs_, ready_,    \
	       forget_, close_)                                          \
	{                                                                \
		.name = tname,                                           \
		.caps = caps_,                                           \
		.init = hc_init,                                         \
		.fini = fini_,                                           \
		.start = start_,                                         \
		.send = send_,                                           \
		.send_hdrs = send_hdrs_,                                 \
		.ready = ready_,                                         \
		.forget = forget_,                                       \
		.close = close_,                                         \
		.pid = hc_pid,                                           \
	}

/* Strip the line's end; its new length. */
size_t hc_trim(char *line, size_t len);
/* The message of a message longer than mod_env.max_line. */
void hc_too_long(char *msg, size_t n);
/* The message of a failed transfer that carried a body. */
void hc_conn_msg(char *msg, size_t n, CURLcode res);
/* "HTTP code from the server" + where + an excerpt of body p. */
void hc_status_msg(char *msg, size_t n, long code, const char *where,
		   const char *p, size_t len);
/* One line of the transport's diagnostics for the session's stderr. */
void hc_diag(const struct transport_up *up, void *ctx, const char *msg);

#endif
