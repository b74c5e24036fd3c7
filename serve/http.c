/*
 * http.c - `--serve [ADDR:]PORT`: the mount as an MCP server over
 * Streamable HTTP (spec 14), for a client that connects rather than starts
 * a process.
 *
 * libmicrohttpd in its external epoll mode, on the one loop: its epoll fd
 * on a uv_poll, its timeout on a uv_timer. A POST whose reply is there at
 * once is answered as application/json; else as an event stream of its
 * progress notifications and then its reply, the connection suspended
 * (MHD_suspend_connection) while there is nothing to send. POST /mcp
 * starts an MCP session (Mcp-Session-Id at initialize) in a serve-N
 * thread of its own; POST /mcp/NAME in the thread NAME. Notifications and
 * responses are 202; GET is the session's standalone event stream
 * (list_changed, log messages), DELETE ends the session, and so does
 * serve_idle seconds with no request and no open stream.
 *
 * Every request needs `Authorization: Bearer TOKEN` (401 otherwise; the
 * token is kept per mountpoint, httptoken.c), a Host that is a loopback
 * name or the address it came in at (421), and no Origin but a loopback
 * one (403): the checks are httpcheck.c's. MOUNT/.serve.json is a ready
 * client entry (mcp_set_client_entry).
 *
 * Bounded (spec 6, 14): at most serve_connections connections, a
 * request's headers within 10 s of its connection's start (or of its
 * previous request's end) and its body within 30 s, 4 x --max-message of
 * bodies held at once, MAX_SESSIONS sessions. Past a bound the request
 * gets 503 with Retry-After and the log says which bound (at most a line
 * per bound every 10 s). A connection over the limit is accepted and
 * closes the oldest connection waiting for a request (one that never sent
 * one gets the 503, a kept-alive one is closed as HTTP lets a server
 * close an idle connection); when every connection has a request, the new
 * one gets the 503. libmicrohttpd itself stops accepting (the kernel
 * queues) at CONN_SLACK more, the ones closing, so the door holds at most
 * serve_connections + CONN_SLACK descriptors and a quarter of
 * RLIMIT_NOFILE: the files and the servers keep theirs. A connection is
 * ended from outside libmicrohttpd (a deadline, the limit) by writing the
 * 503 on its socket itself, which libmicrohttpd has written nothing on
 * while it waits for a request, and shutting the socket down: its next
 * run sees the end and closes it.
 *
 * The sessions and what their requests wait to send are httpsess.c's.
 * This file, httpsess.c, httpconn.c, httpcheck.c, httptoken.c and
 * doorenv.c are the module mcpfs-serve.so (door.h), which serve/door.c
 * loads for --serve only: the core is reached through door_env (the
 * peers, the log, the thread name check, the client entry), and
 * mcpfs_door, at the end, is the one symbol the module exports.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <uv.h>

#include "door.h"
#include "gbuf.h"
#include "httpcheck.h"
#include "httpconn.h"
#include "httpsess.h"
#include "mlog.h"

static struct MHD_Daemon *daemon_;
static uv_loop_t *loop_;
static uv_poll_t mhd_poll;
static uv_timer_t mhd_timer;
static uv_timer_t sweep_timer;   /* deadlines and idle sessions, each 1 s */
static struct hc_pool pool;      /* the bodies held */
static char token[65];
static uint64_t tags;
static size_t body_max;          /* the mount's --max-message */
static int resumed;              /* a connection resumed: MHD_run soon */

static struct hbound b_bodies = {"request bodies held (4 x --max-message)",
				0, 0};
static struct hbound b_sessions = {"256 MCP sessions", 0, 0};

/* ---- the loop ---- */

static void mhd_timer_cb(uv_timer_t *t);

static void mhd_run(void)
{
	MHD_UNSIGNED_LONG_LONG ms;

	resumed = 0;
	MHD_run(daemon_);
	if (resumed) /* a connection resumed while MHD ran: once more */
		uv_timer_start(&mhd_timer, mhd_timer_cb, 0, 0);
	else if (MHD_get_timeout(daemon_, &ms) == MHD_YES)
		uv_timer_start(&mhd_timer, mhd_timer_cb, ms, 0);
	else
		uv_timer_stop(&mhd_timer);
}

static void mhd_timer_cb(uv_timer_t *t)
{
	(void)t;
	mhd_run();
}

/* httpsess.c resumed a connection: MHD answers it from its next run,
 * which is made soon. */
static void kick(void)
{
	resumed = 1;
	uv_timer_start(&mhd_timer, mhd_timer_cb, 0, 0);
}

static void mhd_poll_cb(uv_poll_t *h, int status, int events)
{
	(void)h;
	(void)status;
	(void)events;
	mhd_run();
}

/* ---- deadlines and connections ---- */

/* Each second while there are connections or sessions: a request whose
 * headers or body are late is ended (hconn_sweep), an idle session too. */
static void sweep_cb(uv_timer_t *t)
{
	uint64_t now = uv_now(loop_);
	int any = hconn_sweep(now);

	if (!hs_expire(now) && !any)
		uv_timer_stop(t);
}


static void sweep_arm(void)
{
	if (!uv_is_active((uv_handle_t *)&sweep_timer))
		uv_timer_start(&sweep_timer, sweep_cb, 1000, 1000);
}

static void conn_cb(void *cls, struct MHD_Connection *c, void **ctx,
		    enum MHD_ConnectionNotificationCode what)
{
	(void)cls;
	if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
		hconn_end(ctx);
	} else {
		hconn_start(c, ctx, uv_now(loop_));
		sweep_arm();
	}
}

/* ---- requests ---- */

static enum MHD_Result respond(struct MHD_Connection *c, unsigned status,
			       const char *type, const char *body, size_t n,
			       const char *sid)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		n, (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;

	if (!r)
		return MHD_NO;
	if (type)
		MHD_add_response_header(r, "Content-Type", type);
	if (sid)
		MHD_add_response_header(r, "Mcp-Session-Id", sid);
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer");
	ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result refuse(struct MHD_Connection *c, unsigned status,
			      const char *why)
{
	char b[300];
	int n = snprintf(b, sizeof b, "{\"jsonrpc\":\"2.0\",\"id\":null,"
			 "\"error\":{\"code\":-32600,\"message\":\"%s\"}}",
			 why);

	return respond(c, status, "application/json", b, (size_t)n, NULL);
}

/* Past bound b: 503, Retry-After retry seconds, and the log line. */
static enum MHD_Result busy(struct MHD_Connection *c, struct hbound *b,
			    unsigned retry)
{
	char body[300], ra[16];
	int n = snprintf(body, sizeof body, BUSY_BODY, b->what, retry);
	struct MHD_Response *r = MHD_create_response_from_buffer(
		(size_t)n, body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ok;

	hbound_hit(b, "503");
	if (!r)
		return MHD_NO;
	snprintf(ra, sizeof ra, "%u", retry);
	MHD_add_response_header(r, "Content-Type", "application/json");
	MHD_add_response_header(r, "Retry-After", ra);
	MHD_add_response_header(r, "Connection", "close");
	ok = MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, r);
	MHD_destroy_response(r);
	return ok;
}

static const char *header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* 1 when MCP-Protocol-Version is absent (MCP: assume 2025-03-26) or a
 * version mcpfs speaks (serve/peer.c negotiates those at initialize); MCP
 * wants 400 for any other. */
static int version_ok(struct MHD_Connection *c)
{
	const char *v = header(c, "MCP-Protocol-Version");
	int i = v ? door_env.version_at(v) : 0;

	return i >= 0 && i < door_env.versions_spoken;
}

#define PARSE_ERROR "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":" \
	"{\"code\":-32700,\"message\":\"Parse error\"}}"

/* 1 when a body that parses as JSON is an initialize request; 0 when it
 * is JSON but another message; -1 when it is not JSON. */
static int is_initialize(const char *body, size_t n)
{
	cJSON *m = cJSON_ParseWithLength(body, n);
	cJSON *v = cJSON_GetObjectItemCaseSensitive(m, "method");
	int r = m ? cJSON_IsString(v) && !strcmp(v->valuestring, "initialize")
		  : -1;

	cJSON_Delete(m);
	return r;
}

static enum MHD_Result stream(struct MHD_Connection *c, struct hreq *r)
{
	int whole = r->done && r->hs; /* all in: one write, no chunks */
	struct MHD_Response *rs;
	enum MHD_Result ok;

	if (whole && r->reply) { /* nothing before the reply: plain JSON */
		r->sse = 0;
		return respond(c, MHD_HTTP_OK, "application/json", r->reply,
			       r->rlen, r->fresh ? r->hs->id : NULL);
	}
	rs = whole ? MHD_create_response_from_buffer(r->q.len, r->q.p,
						     MHD_RESPMEM_MUST_COPY)
		   : MHD_create_response_from_callback(
			     MHD_SIZE_UNKNOWN, 16384, hs_read, r, NULL);
	if (!rs)
		return MHD_NO;
	if (whole)
		gbuf_clear(&r->q);
	r->sse = 1;
	MHD_add_response_header(rs, "Content-Type", "text/event-stream");
	MHD_add_response_header(rs, "Cache-Control", "no-cache");
	if (r->fresh && r->hs)
		MHD_add_response_header(rs, "Mcp-Session-Id", r->hs->id);
	ok = MHD_queue_response(c, MHD_HTTP_OK, rs);
	MHD_destroy_response(rs);
	return ok;
}

/* GET: the session's standalone event stream of what belongs to no
 * request (list_changed, log messages); one at a time. */
static enum MHD_Result standalone(struct MHD_Connection *c, void **ctx)
{
	struct hsess *hs = hs_find(MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, "Mcp-Session-Id"));
	struct hreq *r;

	if (!hs)
		return refuse(c, MHD_HTTP_NOT_FOUND, "no such session");
	if (hs->get)
		return refuse(c, MHD_HTTP_CONFLICT, "the session has its "
			      "event stream already");
	if (!(r = calloc(1, sizeof *r)))
		return MHD_NO;
	r->conn = c;
	r->hs = hs;
	r->dispatched = 1;
	hs->get = r;
	*ctx = r;
	return stream(c, r);
}

/* A new session of /mcp[/thread]?servers=a,b&tools=search (scope.c);
 * NULL when it is refused (answered: 400 with the initialize request's
 * JSON-RPC error, or 500). */
static struct hsess *scoped(struct MHD_Connection *c, const char *thread,
			    const struct gbuf *b, enum MHD_Result *res)
{
	const char *srv = MHD_lookup_connection_value(
		c, MHD_GET_ARGUMENT_KIND, "servers");
	const char *tools = MHD_lookup_connection_value(
		c, MHD_GET_ARGUMENT_KIND, "tools");
	struct hsess *hs = NULL;
	char why[600], *e;

	if (door_env.scope_check(srv, tools, why, sizeof why) < 0) {
		e = door_env.scope_refusal(b->p, b->len, why);
		*res = e ? respond(c, MHD_HTTP_BAD_REQUEST, "application/json",
				   e, strlen(e), NULL)
			 : refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "out of memory");
		cJSON_free(e);
		return NULL;
	}
	hs = hs_new(*thread ? thread : NULL);
	if (hs && door_env.peer_scope(hs->peer, srv, tools) < 0) {
		hs_end(hs);
		hs = NULL;
	}
	if (!hs)
		*res = refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
			      "out of memory");
	return hs;
}

static enum MHD_Result dispatch(struct MHD_Connection *c, struct hreq *r,
				const char *thread)
{
	const char *sid = header(c, "Mcp-Session-Id");
	struct gbuf *b = &r->body.buf;
	enum MHD_Result res;
	int k, init;

	r->dispatched = 1;
	if (!b->len)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "empty body");
	if ((init = is_initialize(b->p, b->len)) < 0)
		return respond(c, MHD_HTTP_BAD_REQUEST, "application/json",
			       PARSE_ERROR, strlen(PARSE_ERROR), NULL);
	if (!sid && init && hs_count() >= MAX_SESSIONS)
		return busy(c, &b_sessions, hs_retry());
	if (!sid && init) {
		if (!(r->hs = scoped(c, thread, b, &res)))
			return res;
		r->fresh = 1;
	} else if (!sid) {
		return refuse(c, MHD_HTTP_BAD_REQUEST, "Mcp-Session-Id "
			      "missing: initialize first");
	} else if (!(r->hs = hs_find(sid))) {
		return refuse(c, MHD_HTTP_NOT_FOUND, "no such session");
	}
	LIST_INSERT_HEAD(&r->hs->reqs, r, link);
	r->hs->last = uv_now(loop_);
	r->tag = ++tags;
	k = door_env.peer_put(r->hs->peer, b->p, b->len, r->tag);
	hc_body_drop(&pool, &r->body); /* held no longer */
	if (k == 0) {
		r->done = 1;
		return respond(c, MHD_HTTP_ACCEPTED, NULL, "", 0, NULL);
	}
	if (k < 0) { /* JSON, but no JSON-RPC message: the peer's error */
		r->done = 1;
		if (r->reply)
			return respond(c, MHD_HTTP_BAD_REQUEST,
				       "application/json", r->reply, r->rlen,
				       NULL);
		return refuse(c, MHD_HTTP_BAD_REQUEST, "not a JSON-RPC "
			      "message");
	}
	if (r->done)
		return respond(c, MHD_HTTP_OK, "application/json", r->reply,
			       r->rlen, r->fresh ? r->hs->id : NULL);
	/* no headers until its first message (progress, a question, the
	 * reply) or keep-alive: a reply first is the whole stream at once */
	r->sse = 2;
	hs_wait(r);
	return MHD_YES;
}

/* The headers are in: who, from where, what. A refusal here is sent
 * before any body is read (libmicrohttpd closes the connection then). */
static enum MHD_Result headers(struct MHD_Connection *c, struct hconn *hc,
			       const char *method, const char *thread,
			       void **ctx)
{
	struct hsess *hs;
	struct hreq *r;
	uint64_t len = 0;
	int k;

	if (hc && !hconn_admit(hc))
		return busy(c, &hb_conns, HEADERS_MS / 1000);
	if (!hc_host_ok(header(c, "Host"), hc ? hc->local : NULL))
		return refuse(c, MHD_HTTP_MISDIRECTED_REQUEST, "a Host that "
			      "is not this server's (DNS rebinding)");
	if (!hc_origin_ok(header(c, "Origin")))
		return refuse(c, MHD_HTTP_FORBIDDEN, "a request from "
			      "a web page of another origin");
	if (!hc_bearer_ok(header(c, "Authorization"), token))
		return refuse(c, MHD_HTTP_UNAUTHORIZED, "a bearer "
			      "token is needed (MOUNT/.serve.json)");
	if (!version_ok(c))
		return refuse(c, MHD_HTTP_BAD_REQUEST, "an "
			      "MCP-Protocol-Version mcpfs does not speak");
	if (!thread)
		return refuse(c, MHD_HTTP_NOT_FOUND, "not an MCP "
			      "endpoint: /mcp or /mcp/NAME");
	if (!strcmp(method, "DELETE")) {
		if (!(hs = hs_find(header(c, "Mcp-Session-Id"))))
			return refuse(c, MHD_HTTP_NOT_FOUND,
				      "no such session");
		hs_end(hs);
		return respond(c, MHD_HTTP_OK, NULL, "", 0, NULL);
	}
	if (!strcmp(method, "GET"))
		return standalone(c, ctx);
	if (strcmp(method, "POST"))
		return respond(c, MHD_HTTP_METHOD_NOT_ALLOWED, NULL,
			       "", 0, NULL);
	if ((k = hc_content_length(header(c, "Content-Length"), &len)) < 0)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "a Content-Length "
			      "that is no number");
	k = k ? hc_body_expect(&pool, len, body_max) : HC_BODY_OK;
	if (k == HC_BODY_TOO_LONG)
		return refuse(c, MHD_HTTP_CONTENT_TOO_LARGE,
			      "message too long (--max-message)");
	if (k == HC_BODY_POOL)
		return busy(c, &b_bodies, BODY_MS / 1000);
	if (!(r = calloc(1, sizeof *r)))
		return MHD_NO;
	r->conn = c;
	*ctx = r;
	if (hc) { /* its body is due within BODY_MS */
		hc->phase = C_BODY;
		hc->since = uv_now(loop_);
	}
	return MHD_YES;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
			       const char *url, const char *method,
			       const char *version, const char *data,
			       size_t *size, void **ctx)
{
	struct hreq *r = *ctx;
	struct hconn *hc = hconn_of(c);
	const char *thread = hc_thread_of_path(url);

	if (thread && *thread && door_env.thread_check(thread))
		thread = NULL; /* a name mkdir refuses (help, auth): 404 */
	(void)cls;
	(void)version;
	if (hc && hc->killed) /* answered already (conn_kill) */
		return MHD_NO;
	if (!r) {
		if (hc)
			hc->phase = C_BUSY;
		return headers(c, hc, method, thread, ctx);
	}
	if (*size) { /* a part of the body */
		hc_body_add(&pool, &r->body, data, *size, body_max);
		*size = 0;
		return MHD_YES;
	}
	if (r->dispatched) /* again: resumed, maybe with no response yet */
		return r->sse == 2 ? stream(c, r) : MHD_YES;
	if (hc)
		hc->phase = C_BUSY;
	switch (r->body.state) { /* MHD takes an answer once the body is in */
	case HC_BODY_TOO_LONG:
		r->dispatched = 1;
		return refuse(c, MHD_HTTP_CONTENT_TOO_LARGE,
			      "message too long (--max-message)");
	case HC_BODY_POOL:
		r->dispatched = 1;
		return busy(c, &b_bodies, BODY_MS / 1000);
	case HC_BODY_OOM:
		r->dispatched = 1;
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
			      "out of memory");
	}
	return dispatch(c, r, thread ? thread : "");
}

static void completed(void *cls, struct MHD_Connection *c, void **ctx,
		      enum MHD_RequestTerminationCode why)
{
	struct hreq *r = *ctx;
	struct hconn *hc = hconn_of(c);

	(void)cls;
	(void)why;
	if (hc) { /* the next request's headers are due within HEADERS_MS */
		hc->phase = C_WAIT;
		hc->since = uv_now(loop_);
		hc->requests++;
	}
	if (!r)
		return;
	hs_forget(r);
	hc_body_drop(&pool, &r->body);
	gbuf_free(&r->q);
	free(r->reply);
	free(r);
	*ctx = NULL;
}

/* libmicrohttpd's own messages, one line each, said to be its. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char b[512];
	int n;

	(void)cls;
	n = vsnprintf(b, sizeof b, fmt, ap);
	if (n > 0 && (size_t)n < sizeof b && b[n - 1] == '\n')
		b[n - 1] = 0;
	door_log(MLOG_WARN, "serve: libmicrohttpd: %s", b);
}

/* ---- start and stop ---- */

static int door_check(const char *addr, int remote)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int loopback;

	if (hc_listen_addr(addr, &ss, &len, &loopback) < 0)
		return -EINVAL;
	return loopback || remote ? 0 : -EPERM;
}

/* MOUNT/.serve.json: a ready client entry. */
static void client_entry(const char *host, unsigned port)
{
	char url[160], *entry;
	cJSON *e, *s, *m, *h;

	snprintf(url, sizeof url, "http://%s:%u/mcp", host, port);
	e = cJSON_CreateObject();
	s = cJSON_AddObjectToObject(e, "mcpServers");
	m = cJSON_AddObjectToObject(s, "mcpfs");
	cJSON_AddStringToObject(m, "type", "http");
	cJSON_AddStringToObject(m, "url", url);
	h = cJSON_AddObjectToObject(m, "headers");
	snprintf(url, sizeof url, "Bearer %s", token);
	cJSON_AddStringToObject(h, "Authorization", url);
	entry = cJSON_Print(e);
	cJSON_Delete(e);
	door_env.client_entry(entry);
	cJSON_free(entry);
}

static int door_start(const struct door_env *env,
		      const struct serve_http_opts *o)
{
	uv_loop_t *loop = env->loop;
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	socklen_t len;
	int loopback, v6, fd;
	unsigned port;
	char host[64], a[INET6_ADDRSTRLEN], kept[4200];
	unsigned conn_max;

	door_env_set(env); /* first: serve_token logs */
	if (hc_listen_addr(o->addr, &ss, &len, &loopback) < 0 ||
	    serve_token(o->mountpoint, token, kept, sizeof kept) < 0)
		return -EINVAL;
	v6 = ss.ss_family == AF_INET6;
	loop_ = loop;
	body_max = o->max_message;
	pool.held = 0;
	pool.cap = o->max_message > SIZE_MAX / 4 ? SIZE_MAX
						 : 4 * o->max_message;
	conn_max = hconn_limit(o->connections);
	hconn_init(loop, conn_max);
	daemon_ = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
				   MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0),
				   0, NULL, NULL, handler, NULL,
				   MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				   MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				   MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
				   MHD_OPTION_NOTIFY_CONNECTION, conn_cb, NULL,
				   MHD_OPTION_CONNECTION_LIMIT,
				   conn_max + CONN_SLACK,
				   /* a client that reads nothing of its
				    * stream for a minute (keep-alives are
				    * sent each second) */
				   MHD_OPTION_CONNECTION_TIMEOUT, 60u,
				   MHD_OPTION_END);
	if (!daemon_) {
		door_log(MLOG_ERR, "--serve %s: cannot listen there",
			 o->addr);
		return -EADDRINUSE;
	}
	info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_EPOLL_FD);
	fd = info ? info->epoll_fd : -1;
	info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
	port = info ? info->port : 0;
	uv_poll_init(loop, &mhd_poll, fd);
	uv_poll_start(&mhd_poll, UV_READABLE, mhd_poll_cb);
	uv_timer_init(loop, &mhd_timer);
	uv_timer_init(loop, &sweep_timer);
	hs_init(loop, (uint64_t)o->idle * 1000, kick);
	mhd_run();
	inet_ntop(ss.ss_family, v6 ?
		  (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr :
		  (void *)&((struct sockaddr_in *)&ss)->sin_addr, a, sizeof a);
	snprintf(host, sizeof host, v6 ? "[%s]" : "%s", a);
	client_entry(host, port);
	door_log(MLOG_INFO, "serve: MCP over HTTP at http://%s:%u/mcp (the "
		 "token is in MOUNT/.serve.json%s%s%s), at most %u "
		 "connections and %d sessions, sessions idle for %u s end",
		 host, port, *kept ? ", kept in " : "", kept,
		 *kept ? ": delete it for a new one" : "", conn_max,
		 MAX_SESSIONS, o->idle);
	if (!loopback)
		door_log(MLOG_WARN, "serve: %s is not a loopback address "
			 "(-o serve_remote): whoever reaches it with the "
			 "token drives the mount, over plain HTTP", host);
	return 0;
}

static void door_stop(void)
{
	if (!daemon_)
		return;
	hs_stop();
	uv_poll_stop(&mhd_poll);
	uv_close((uv_handle_t *)&mhd_poll, NULL);
	uv_close((uv_handle_t *)&mhd_timer, NULL);
	uv_close((uv_handle_t *)&sweep_timer, NULL);
	MHD_stop_daemon(daemon_);
	daemon_ = NULL;
	door_env.client_entry(NULL);
}

/* The module's one exported symbol (it is built with hidden visibility),
 * which serve/door.c looks up by DOOR_MODULE_ENTRY after dlopen. */
__attribute__((visibility("default")))
extern const struct door_module mcpfs_door;

const struct door_module mcpfs_door = {
	.env_size = sizeof(struct door_env),
	.check = door_check,
	.start = door_start,
	.stop = door_stop,
};
