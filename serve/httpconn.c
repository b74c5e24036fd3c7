/*
 * httpconn.c - the connections of the HTTP door (httpconn.h): each one
 * known from libmicrohttpd's connection notifications, with what it waits
 * for since when, so that the limit on connections and the deadlines of
 * headers and bodies hold (spec 14).
 *
 * A connection over the limit is accepted (only so can it be told
 * anything) and ends the oldest connection that waits for a request: one
 * that never sent one gets a 503, a kept-alive one is closed, as HTTP lets
 * a server close an idle connection. When every other connection has a
 * request, the new one is looked at again when its headers are in (one
 * may have ended since: a client that closed its connection after a reply
 * and opened the next) and gets the 503 then if it is still over (a 503
 * sent before a client wrote its request is lost to it in the reset of
 * the write). Ending a connection from outside
 * libmicrohttpd: the 503 is written on its socket, which libmicrohttpd
 * writes nothing on while it waits for a request, and the socket is shut
 * down; libmicrohttpd's next run sees the end and closes it (http.c
 * answers nothing more on it). Those closing may pass the limit by
 * CONN_SLACK, libmicrohttpd's own limit: past that it stops accepting and
 * the kernel queues.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "door.h"
#include "httpconn.h"
#include "mlog.h"

static uv_loop_t *loop_;
static TAILQ_HEAD(, hconn) conns = TAILQ_HEAD_INITIALIZER(conns);
static unsigned nconns, nkilled, conn_max;
struct hbound hb_conns = {"connections (-o serve_connections)", 0, 0};
static struct hbound b_headers = {"headers within 10 s", 0, 0};
static struct hbound b_body = {"a body within 30 s", 0, 0};

void hbound_hit(struct hbound *b, const char *done)
{
	uint64_t now = uv_now(loop_);

	if (b->logged && now - b->logged < 10000) {
		b->more++;
		return;
	}
	if (b->more)
		door_log(MLOG_WARN, "serve: over the bound of %s: %s (and "
			 "%u more since the last line)", b->what, done,
			 b->more);
	else
		door_log(MLOG_WARN, "serve: over the bound of %s: %s",
			 b->what, done);
	b->logged = now;
	b->more = 0;
}

/* End hc from outside libmicrohttpd: a 503 written on its socket when
 * answer, then the socket shut down. */
static void hconn_kill(struct hconn *hc, struct hbound *b, unsigned retry,
		       int answer)
{
	char body[300], msg[600];
	int n, m;

	if (hc->killed)
		return;
	hc->killed = 1;
	nkilled++;
	if (answer) {
		n = snprintf(body, sizeof body, BUSY_BODY, b->what, retry);
		m = snprintf(msg, sizeof msg, "HTTP/1.1 503 Service "
			     "Unavailable\r\nContent-Type: application/json"
			     "\r\nRetry-After: %u\r\nConnection: close\r\n"
			     "Content-Length: %d\r\n\r\n%s", retry, n, body);
		/* a socket buffer takes it; failing, there is none to tell */
		(void)!send(hc->fd, msg, (size_t)m, MSG_NOSIGNAL |
			    MSG_DONTWAIT);
	}
	shutdown(hc->fd, SHUT_RDWR);
}

int hconn_sweep(uint64_t now)
{
	struct hconn *hc;

	TAILQ_FOREACH(hc, &conns, link) {
		if (hc->killed)
			continue;
		if (hc->phase == C_WAIT && now - hc->since >= HEADERS_MS) {
			/* a kept-alive one is only closed */
			if (!hc->requests)
				hbound_hit(&b_headers, "503");
			hconn_kill(hc, &b_headers, 1, !hc->requests);
		} else if (hc->phase == C_BODY && now - hc->since >= BODY_MS) {
			hbound_hit(&b_body, "503");
			hconn_kill(hc, &b_body, 1, 1);
		}
	}
	return !TAILQ_EMPTY(&conns);
}

struct hconn *hconn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i ? i->socket_context : NULL;
}

void hconn_end(void **ctx)
{
	struct hconn *hc = *ctx;

	if (!hc)
		return;
	TAILQ_REMOVE(&conns, hc, link);
	nconns--;
	nkilled -= (unsigned)hc->killed;
	free(hc);
	*ctx = NULL;
}

void hconn_start(struct MHD_Connection *c, void **ctx, uint64_t now)
{
	const union MHD_ConnectionInfo *i;
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	struct hconn *hc;

	i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!i || !(hc = calloc(1, sizeof *hc)))
		return; /* unknown to the bounds: MHD's own limit holds */
	hc->fd = i->connect_fd;
	hc->since = now;
	if (getsockname(hc->fd, (struct sockaddr *)&ss, &len) == 0)
		inet_ntop(ss.ss_family, ss.ss_family == AF_INET6 ?
			  (void *)&((struct sockaddr_in6 *)&ss)->sin6_addr :
			  (void *)&((struct sockaddr_in *)&ss)->sin_addr,
			  hc->local, sizeof hc->local);
	if (!strncmp(hc->local, "::ffff:", 7) && strchr(hc->local, '.'))
		memmove(hc->local, hc->local + 7, strlen(hc->local + 7) + 1);
	TAILQ_INSERT_TAIL(&conns, hc, link);
	nconns++;
	*ctx = hc;
	hc->over = 1;
	hconn_admit(hc);
}

int hconn_admit(struct hconn *hc)
{
	struct hconn *old;

	if (!hc->over || nconns - nkilled <= conn_max) {
		hc->over = 0;
		return 1;
	}
	TAILQ_FOREACH(old, &conns, link)
		if (old != hc && !old->killed && old->phase == C_WAIT)
			break;
	if (!old) /* every other one has a request */
		return 0;
	hc->over = 0;
	hbound_hit(&hb_conns, "the oldest connection waiting for a request "
		   "closed");
	hconn_kill(old, &hb_conns, HEADERS_MS / 1000, !old->requests);
	return 1;
}

unsigned hconn_limit(unsigned want)
{
	struct rlimit rl;
	rlim_t most;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return want;
	most = rl.rlim_cur / 4 > CONN_SLACK + 3 + 1 ?
	       rl.rlim_cur / 4 - CONN_SLACK - 3 : 1;
	if (want <= most)
		return want;
	door_log(MLOG_WARN, "serve: -o serve_connections=%u is over a "
		 "quarter of the descriptors mcpfs may open (ulimit -n "
		 "%llu): %llu", want, (unsigned long long)rl.rlim_cur,
		 (unsigned long long)most);
	return (unsigned)most;
}

void hconn_init(uv_loop_t *loop, unsigned max)
{
	loop_ = loop;
	conn_max = max;
}
