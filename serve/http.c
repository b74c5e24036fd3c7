/*
 * http.c - `--serve ADDR:PORT`: the mount as an MCP server over Streamable
 * HTTP (spec 14), for a client that connects rather than starts a process.
 *
 * libmicrohttpd in its external epoll mode, on the one loop: its epoll fd
 * on a uv_poll, its timeout on a uv_timer. A POST whose reply is there at
 * once is answered as application/json; else as an event stream of its
 * progress notifications and then its reply, the connection suspended
 * (MHD_suspend_connection) while there is nothing to send. POST /mcp starts an MCP session (Mcp-Session-Id at initialize) in a
 * serve-N thread of its own; POST /mcp/NAME in the thread NAME.
 * Notifications and responses are 202; GET is the session's standalone
 * event stream (list_changed, log messages), DELETE ends the session.
 *
 * Every request needs `Authorization: Bearer TOKEN` (401 otherwise; the
 * token is 32 random bytes from getrandom(2), hex, made at start), and a
 * request with an Origin that is not a loopback one is 403 (DNS
 * rebinding). The address is the one given (127.0.0.1 when only a port
 * is). MOUNT/.serve.json is a ready client entry (mcp_set_client_entry).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <uv.h>

#include "gbuf.h"
#include "serve.h"
#include "mlog.h"
#include "sessions.h"

/* The protocol versions a client may name in MCP-Protocol-Version: those
 * serve/peer.c negotiates at initialize. */
static const char *const versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05",
};

struct hreq;
struct hsess {                   /* one client's MCP session */
	LIST_ENTRY(hsess) link;
	char id[33];                 /* its Mcp-Session-Id */
	struct serve_out out;
	struct serve_peer *peer;
	LIST_HEAD(, hreq) reqs;
	struct hreq *get;            /* its standalone event stream (GET) */
};

struct hreq {                    /* one POST */
	LIST_ENTRY(hreq) link;
	struct MHD_Connection *conn;
	struct hsess *hs;
	struct gbuf body;
	uint64_t tag;
	int dispatched, suspended, done, fresh;
	int big;                     /* its body went past --max-message */
	char *reply;                 /* the answer as JSON, when it came at once */
	size_t rlen;
	int sse;                     /* ... else an event stream: */
	struct gbuf q;               /* its events not yet sent */
	size_t qoff;
};

static struct MHD_Daemon *daemon_;
static uv_poll_t mhd_poll;
static uv_timer_t mhd_timer;
static uv_timer_t ka_timer;      /* keep-alives while streams wait */
static LIST_HEAD(, hsess) sessions = LIST_HEAD_INITIALIZER(sessions);
static char token[65];
static uint64_t tags;
static size_t body_max;          /* the mount's --max-message */
static int resumed;              /* a connection resumed: MHD_run soon */

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

static void mhd_poll_cb(uv_poll_t *h, int status, int events)
{
	(void)h;
	(void)status;
	(void)events;
	mhd_run();
}

/* ---- sessions and replies ---- */

static void event(struct hreq *r, const char *json, size_t len)
{
	gbuf_add(&r->q, "event: message\ndata: ", 21);
	gbuf_add(&r->q, json, len);
	gbuf_add(&r->q, "\n\n", 2);
}

/* r has something to send (or is over): resume it if it waits. */
static void wake(struct hreq *r)
{
	if (!r->suspended)
		return;
	r->suspended = 0;
	MHD_resume_connection(r->conn);
	/* MHD answers it from its next run: make that soon */
	resumed = 1;
	uv_timer_start(&mhd_timer, mhd_timer_cb, 0, 0);
}

/* Every second while a stream waits: an SSE comment on each waiting
 * stream, so that a client that went away is seen (MHD does not watch a
 * suspended connection; the write to a closed one fails and ends it, and
 * a POST ended so drops its call). */
static void ka_cb(uv_timer_t *t)
{
	struct hsess *hs;
	struct hreq *r;
	int waiting = 0;

	LIST_FOREACH(hs, &sessions, link) {
		LIST_FOREACH(r, &hs->reqs, link)
			if (r->suspended) {
				gbuf_add(&r->q, ":\n\n", 3);
				wake(r);
				waiting = 1;
			}
		if ((r = hs->get) != NULL && r->suspended) {
			gbuf_add(&r->q, ":\n\n", 3);
			wake(r);
			waiting = 1;
		}
	}
	if (!waiting)
		uv_timer_stop(t);
}

static void hs_send(struct serve_out *o, const char *json, size_t len,
		    uint64_t tag, int last)
{
	struct hsess *hs = (struct hsess *)((char *)o -
					    offsetof(struct hsess, out));
	struct hreq *r;

	if (!tag) { /* list_changed, logs: on the GET stream if there is one */
		if ((r = hs->get) != NULL) {
			event(r, json, len);
			wake(r);
		}
		return;
	}
	LIST_FOREACH(r, &hs->reqs, link) {
		if (r->tag != tag || r->done)
			continue;
		if (r->sse) /* progress, then the reply, as events */
			event(r, json, len);
		else if (last && (r->reply = malloc(len)) != NULL) {
			memcpy(r->reply, json, len);
			r->rlen = len;
		} else if (!last) {
			return; /* before the stream: a reply comes at once */
		}
		r->done = last;
		wake(r);
		return;
	}
}

static struct hsess *hs_find(const char *id)
{
	struct hsess *hs;

	LIST_FOREACH(hs, &sessions, link)
		if (id && !strcmp(hs->id, id))
			return hs;
	return NULL;
}

static void hs_end(struct hsess *hs)
{
	struct hreq *r;

	while ((r = LIST_FIRST(&hs->reqs)) != NULL) {
		LIST_REMOVE(r, link);
		r->hs = NULL;
		wake(r); /* answered: the session ended */
	}
	if ((r = hs->get) != NULL) {
		hs->get = NULL;
		r->hs = NULL;
		wake(r);
	}
	LIST_REMOVE(hs, link);
	serve_peer_end(hs->peer);
	free(hs);
}

static struct hsess *hs_new(const char *thread)
{
	struct hsess *hs = calloc(1, sizeof *hs);
	unsigned char b[16];
	int i;

	if (!hs || getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
		free(hs);
		return NULL;
	}
	for (i = 0; i < 16; i++)
		sprintf(hs->id + 2 * i, "%02x", b[i]);
	hs->out.send = hs_send;
	hs->out.asks = 1; /* on the call's event stream, else the GET one */
	LIST_INIT(&hs->reqs);
	if (!(hs->peer = serve_peer_new(thread, &hs->out))) {
		free(hs);
		return NULL;
	}
	LIST_INSERT_HEAD(&sessions, hs, link);
	return hs;
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

/* 1 when the request carries the token (compared in constant time). */
static int authorized(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "Authorization");
	unsigned char d = 0;
	size_t i;

	if (!a || strncmp(a, "Bearer ", 7) || strlen(a + 7) != 64)
		return 0;
	for (i = 0; i < 64; i++)
		d |= (unsigned char)(a[7 + i] ^ token[i]);
	return d == 0;
}

/* 1 when there is no Origin, or it is a loopback one. */
static int origin_ok(struct MHD_Connection *c)
{
	const char *o = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "Origin");
	static const char *const ok[] = {
		"http://127.0.0.1", "http://localhost", "http://[::1]",
		"https://127.0.0.1", "https://localhost", "https://[::1]",
	};
	size_t i, n;

	if (!o)
		return 1;
	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		n = strlen(ok[i]);
		if (!strncmp(o, ok[i], n) && (!o[n] || o[n] == ':'))
			return 1;
	}
	return 0;
}

/* 1 when MCP-Protocol-Version is absent (MCP: assume 2025-03-26) or a
 * version mcpfs speaks; MCP wants 400 for any other. */
static int version_ok(struct MHD_Connection *c)
{
	const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "MCP-Protocol-Version");
	size_t i;

	for (i = 0; v && i < sizeof versions / sizeof *versions; i++)
		if (!strcmp(v, versions[i]))
			return 1;
	return !v;
}

/* 1 when Content-Length says the body is over --max-message (refused
 * before it is read; a chunked one is refused when it gets there). */
static int too_long(struct MHD_Connection *c)
{
	const char *l = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "Content-Length");

	return l && strtoull(l, NULL, 10) > body_max;
}

/* The thread a path names: "" for /mcp, NAME for /mcp/NAME, NULL else. */
static const char *thread_of_path(const char *url)
{
	if (!strcmp(url, "/mcp"))
		return "";
	if (!strncmp(url, "/mcp/", 5) && !mcp_thread_name_check(url + 5))
		return url + 5; /* a name mkdir takes (help, a dot name: 404) */
	return NULL;
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

/* The event stream of a request whose reply is not there yet: its
 * progress and then its reply, as they come (the connection is suspended
 * while there is nothing to send). */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct hreq *r = cls;
	size_t n = r->q.len - r->qoff;

	(void)pos;
	if (n) {
		if (n > max)
			n = max;
		memcpy(buf, r->q.p + r->qoff, n);
		r->qoff += n;
		if (r->qoff == r->q.len) {
			gbuf_clear(&r->q);
			r->qoff = 0;
		}
		return (ssize_t)n;
	}
	if (r->done || !r->hs)
		return MHD_CONTENT_READER_END_OF_STREAM;
	r->suspended = 1;
	MHD_suspend_connection(r->conn);
	if (!uv_is_active((uv_handle_t *)&ka_timer))
		uv_timer_start(&ka_timer, ka_cb, 1000, 1000);
	return 0;
}

static enum MHD_Result stream(struct MHD_Connection *c, struct hreq *r)
{
	struct MHD_Response *rs = MHD_create_response_from_callback(
		MHD_SIZE_UNKNOWN, 16384, stream_read, r, NULL);
	enum MHD_Result ok;

	if (!rs)
		return MHD_NO;
	r->sse = 1;
	MHD_add_response_header(rs, "Content-Type", "text/event-stream");
	MHD_add_response_header(rs, "Cache-Control", "no-cache");
	if (r->fresh)
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

static enum MHD_Result dispatch(struct MHD_Connection *c, struct hreq *r,
				const char *thread)
{
	const char *sid = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      "Mcp-Session-Id");
	int k, init;

	r->dispatched = 1;
	if (!r->body.len)
		return refuse(c, MHD_HTTP_BAD_REQUEST, "empty body");
	if (r->body.oom)
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
			      "out of memory");
	if ((init = is_initialize(r->body.p, r->body.len)) < 0)
		return respond(c, MHD_HTTP_BAD_REQUEST, "application/json",
			       PARSE_ERROR, strlen(PARSE_ERROR), NULL);
	if (!sid && init) {
		r->hs = hs_new(*thread ? thread : NULL);
		if (!r->hs)
			return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				      "out of memory");
		r->fresh = 1;
	} else if (!sid) {
		return refuse(c, MHD_HTTP_BAD_REQUEST, "Mcp-Session-Id "
			      "missing: initialize first");
	} else if (!(r->hs = hs_find(sid))) {
		return refuse(c, MHD_HTTP_NOT_FOUND, "no such session");
	}
	LIST_INSERT_HEAD(&r->hs->reqs, r, link);
	r->tag = ++tags;
	k = serve_peer_input(r->hs->peer, r->body.p, r->body.len, r->tag);
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
	return stream(c, r);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
			       const char *url, const char *method,
			       const char *version, const char *data,
			       size_t *size, void **ctx)
{
	struct hreq *r = *ctx;
	const char *thread = thread_of_path(url);
	struct hsess *hs;

	(void)cls;
	(void)version;
	if (!r) { /* the headers: who and where */
		if (!authorized(c))
			return refuse(c, MHD_HTTP_UNAUTHORIZED, "a bearer "
				      "token is needed (MOUNT/.serve.json)");
		if (!origin_ok(c))
			return refuse(c, MHD_HTTP_FORBIDDEN, "a request from "
				      "a web page of another origin");
		if (!version_ok(c))
			return refuse(c, MHD_HTTP_BAD_REQUEST, "an "
				      "MCP-Protocol-Version mcpfs does not "
				      "speak");
		if (!thread)
			return refuse(c, MHD_HTTP_NOT_FOUND, "not an MCP "
				      "endpoint: /mcp or /mcp/NAME");
		if (!strcmp(method, "DELETE")) {
			hs = hs_find(MHD_lookup_connection_value(
				c, MHD_HEADER_KIND, "Mcp-Session-Id"));
			if (!hs)
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
		if (too_long(c))
			return refuse(c, MHD_HTTP_CONTENT_TOO_LARGE,
				      "message too long (--max-message)");
		if (!(r = calloc(1, sizeof *r)))
			return MHD_NO;
		r->conn = c;
		*ctx = r;
		return MHD_YES;
	}
	if (*size) { /* a part of the body */
		if (r->big || r->body.len + *size > body_max) {
			r->big = 1; /* the rest is read and dropped */
			gbuf_free(&r->body);
		} else {
			gbuf_add(&r->body, data, *size);
		}
		*size = 0;
		return MHD_YES;
	}
	if (r->dispatched)
		return MHD_YES;
	if (r->big) { /* MHD takes an answer only once the body is in */
		r->dispatched = 1;
		return refuse(c, MHD_HTTP_CONTENT_TOO_LARGE,
			      "message too long (--max-message)");
	}
	return dispatch(c, r, thread ? thread : "");
}

static void completed(void *cls, struct MHD_Connection *c, void **ctx,
		      enum MHD_RequestTerminationCode why)
{
	struct hreq *r = *ctx;

	(void)cls;
	(void)c;
	(void)why;
	if (!r)
		return;
	if (r->hs && r->hs->get == r) {
		r->hs->get = NULL;
	} else if (r->hs) {
		LIST_REMOVE(r, link);
		if (!r->done) /* the client went away before its reply */
			serve_peer_drop(r->hs->peer, r->tag);
	}
	gbuf_free(&r->body);
	gbuf_free(&r->q);
	free(r->reply);
	free(r);
	*ctx = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	mlogv(MLOG_WARN, fmt, ap);
}

/* ---- start and stop ---- */

static int parse_addr(const char *s, struct sockaddr_storage *ss,
		      socklen_t *len, int *v6)
{
	char host[128];
	const char *colon = strrchr(s, ':');
	char *end;
	long port;

	if (!colon || (size_t)(colon - s) >= sizeof host)
		return -EINVAL;
	port = strtol(colon + 1, &end, 10);
	if (*end || port < 0 || port > 65535 || end == colon + 1)
		return -EINVAL;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	memset(ss, 0, sizeof *ss);
	*v6 = 0;
	if (!*host || !strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		host[strlen(host) - 1] = 0;
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return -EINVAL;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*len = sizeof *a;
		*v6 = 1;
		return 0;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -EINVAL;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		*len = sizeof *a;
		return 0;
	}
}

int serve_http_check(const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int v6;

	return parse_addr(addr, &ss, &len, &v6);
}

int serve_http_start(uv_loop_t *loop, const char *addr, size_t max_message)
{
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	unsigned char b[32];
	socklen_t len;
	int i, v6, fd;
	unsigned port;
	char host[64], url[160], *entry;
	cJSON *e, *s, *m, *h;

	if (parse_addr(addr, &ss, &len, &v6) < 0 ||
	    getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
		return -EINVAL;
	for (i = 0; i < 32; i++)
		sprintf(token + 2 * i, "%02x", b[i]);
	body_max = max_message;
	daemon_ = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
				   MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0),
				   0, NULL, NULL, handler, NULL,
				   MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				   MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				   MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
				   MHD_OPTION_END);
	if (!daemon_) {
		mlog(MLOG_ERR, "--serve %s: cannot listen there", addr);
		return -EADDRINUSE;
	}
	info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_EPOLL_FD);
	fd = info ? info->epoll_fd : -1;
	info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
	port = info ? info->port : 0;
	uv_poll_init(loop, &mhd_poll, fd);
	uv_poll_start(&mhd_poll, UV_READABLE, mhd_poll_cb);
	uv_timer_init(loop, &mhd_timer);
	uv_timer_init(loop, &ka_timer);
	mhd_run();
	if (v6) {
		char a6[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr,
			  a6, sizeof a6);
		snprintf(host, sizeof host, "[%s]", a6);
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host,
			  sizeof host);
	}
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
	mcp_set_client_entry(entry);
	free(entry);
	mlog(MLOG_INFO, "serve: MCP over HTTP at http://%s:%u/mcp (the token "
	     "is in MOUNT/.serve.json)", host, port);
	if (v6 ? !IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr)
	       : (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) !=
		 127)
		mlog(MLOG_WARN, "serve: %s is not a loopback address: whoever "
		     "reaches it with the token drives the mount", host);
	return 0;
}

void serve_http_stop(void)
{
	if (!daemon_)
		return;
	while (!LIST_EMPTY(&sessions))
		hs_end(LIST_FIRST(&sessions));
	uv_poll_stop(&mhd_poll);
	uv_close((uv_handle_t *)&mhd_poll, NULL);
	uv_close((uv_handle_t *)&mhd_timer, NULL);
	uv_close((uv_handle_t *)&ka_timer, NULL);
	MHD_stop_daemon(daemon_);
	daemon_ = NULL;
	mcp_set_client_entry(NULL);
}
