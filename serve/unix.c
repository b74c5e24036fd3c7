/*
 * unix.c - `mcpfs serve`: MCP over stdio for a client that starts it (spec
 * 14), joined to the mcpfs mounted at MOUNTPOINT through a unix socket of
 * that mount's.
 *
 * The mount listens at DIR/mcpfs-HASH.sock, DIR being $XDG_RUNTIME_DIR/mcpfs
 * or else /tmp/mcpfs-UID (made 0700, and refused unless it is a directory
 * of the user's own with no access for others), HASH the FNV-1a 64 of the
 * mountpoint's real path: `mcpfs serve` finds it from the path alone. Only
 * the mounting user gets in: the directory's mode, and the peer's uid
 * (SO_PEERCRED) checked at accept.
 *
 * On the socket, JSON-RPC messages one per line both ways (the MCP stdio
 * framing), after one first line from `mcpfs serve`:
 * {"mcpfs-serve": 1, "thread": NAME-or-null, "servers": "a,b", "tools":
 * "search", "ack": 1} (servers, tools, ack: when given). With ack the
 * mount answers that line with {"mcpfs-serve": 1}, or {"mcpfs-serve": 0,
 * "error": WHY} and closes (a server it does not have): the relay says
 * why and exits 1. Then the relay only copies bytes: stdin to the
 * socket, the socket to stdout.
 *
 * Handed over: when the relay's stdin and stdout are both pipes or unix
 * stream sockets (as a client that starts it makes them), its first line
 * also says "fds": 2 and carries the two descriptors (SCM_RIGHTS). The
 * mount then reads the client's messages from that stdin and writes its
 * own to that stdout itself, and its ack says "fds": 2; the relay stays
 * out of the way, holding the socket until the mount closes it (its end,
 * or the session's end, ends the other). A relay hop is two process
 * wake-ups and six system calls a message less. An ack without "fds" (a
 * mount that took none) leaves the relay copying.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "gbuf.h"
#include "serve.h"
#include "mlog.h"
#include "sessions.h"

#define LINE_MAX_BYTES ((size_t)64 << 20) /* a client's longest message */
#define QUEUE_MAX ((size_t)256 << 20)     /* unread bytes to a client */

/* ---- where the socket is ---- */

int serve_socket_path(const char *mnt, char *out, size_t n, int make)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char dir[PATH_MAX], real[PATH_MAX];
	uint64_t h = 0xcbf29ce484222325ULL;
	struct stat st;
	const char *c;
	int len;

	if (n)
		*out = 0;
	if (!realpath(mnt, real))
		return -errno;
	for (c = real; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
	if (rt && *rt == '/')
		snprintf(dir, sizeof dir, "%s/mcpfs", rt);
	else
		snprintf(dir, sizeof dir, "/tmp/mcpfs-%lu",
			 (unsigned long)getuid());
	/* the path first, so that a failure below can name it */
	len = snprintf(out, n, "%s/mcpfs-%016llx.sock", dir,
		       (unsigned long long)h);
	if (make && mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077))
		return -EPERM; /* not a private directory of ours */
	if (len < 0 || (size_t)len >= n ||
	    strlen(out) >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

/* ---- the mount's side ---- */

struct conn {
	uv_pipe_t pipe;             /* the socket from `mcpfs serve` */
	uv_pipe_t cin, cout;        /* handed over: the client's own pipes */
	LIST_ENTRY(conn) link;
	struct serve_out out;       /* its peer's messages go out here */
	struct serve_peer *peer;    /* after the first line */
	struct gbuf in;             /* bytes of lines not yet whole */
	uint64_t tags;
	int closing;
	int handed;                 /* cin and cout are the client's */
	int open;                   /* handles not closed yet */
};

static uv_pipe_t listener;
static int listening;
static LIST_HEAD(, conn) conns = LIST_HEAD_INITIALIZER(conns);
/* Connections open, and the most served (spec 6): each may hold three
 * descriptors (the socket, the client's stdin and stdout), and together
 * at most a quarter of RLIMIT_NOFILE, so that the files, the servers and
 * the HTTP door keep theirs. Past it a client is refused with the reason;
 * past twice it (connections that send no first line) a connection is
 * closed at once. */
static unsigned nconns, conns_max;
static char sock_path[PATH_MAX];

/* A connection closed from inside a send (a client that reads nothing)
 * ends its peer here, in the close callback: the send comes from the
 * peer's own loops over its peers and jobs. Any other close ends it at
 * once (conn_close). */
static void conn_closed(uv_handle_t *h)
{
	struct conn *k = h->data;

	if (--k->open)
		return;
	if (k->peer)
		serve_peer_end(k->peer);
	gbuf_free(&k->in);
	free(k);
	nconns--;
}

static void conn_close_later(struct conn *k)
{
	if (k->closing)
		return;
	k->closing = 1;
	LIST_REMOVE(k, link);
	k->open = 1 + 2 * k->handed;
	uv_close((uv_handle_t *)&k->pipe, conn_closed);
	if (k->handed) {
		uv_close((uv_handle_t *)&k->cin, conn_closed);
		uv_close((uv_handle_t *)&k->cout, conn_closed);
	}
}

static void conn_close(struct conn *k)
{
	if (k->closing)
		return;
	if (k->peer)
		serve_peer_end(k->peer);
	k->peer = NULL;
	conn_close_later(k);
}

static void written(uv_write_t *w, int status)
{
	(void)status;
	free(w->data);
	free(w);
}

/* One line (json and a newline) of k's to the stream to. */
static void line_to(struct conn *k, uv_stream_t *to, const char *json,
		    size_t len)
{
	uv_write_t *w;
	uv_buf_t b;
	char *m;

	if (k->closing)
		return;
	if (memchr(json, '\n', len)) { /* never two lines (spec 6) */
		mlog(MLOG_WARN, "serve: a message holding a newline was not "
		     "sent to a client");
		return;
	}
	if (uv_stream_get_write_queue_size(to) > QUEUE_MAX) {
		mlog(MLOG_WARN, "serve: a client reads nothing of %zu MiB "
		     "sent to it: closed", QUEUE_MAX >> 20);
		conn_close_later(k);
		return;
	}
	w = malloc(sizeof *w);
	m = malloc(len + 1);
	if (!w || !m) {
		free(w);
		free(m);
		mlog(MLOG_WARN, "serve: a message to a client was lost: out "
		     "of memory");
		return;
	}
	memcpy(m, json, len);
	m[len] = '\n';
	w->data = m;
	b = uv_buf_init(m, (unsigned)(len + 1));
	if (uv_write(w, to, &b, 1, written) < 0) {
		free(m);
		free(w);
		conn_close_later(k);
	}
}

static void conn_send(struct serve_out *o, const char *json, size_t len,
		      uint64_t tag, int last)
{
	struct conn *k = (struct conn *)((char *)o -
					 offsetof(struct conn, out));

	(void)tag;
	(void)last;
	line_to(k, (uv_stream_t *)(k->handed ? &k->cout : &k->pipe), json,
		len);
}

static void refused_cb(uv_shutdown_t *r, int status)
{
	struct conn *k = r->data;

	(void)status;
	free(r);
	conn_close_later(k);
}

/* k is refused: closed once what was sent it (the reason) is written. */
static void refuse(struct conn *k)
{
	uv_shutdown_t *r = malloc(sizeof *r);

	uv_read_stop((uv_stream_t *)&k->pipe);
	if (r)
		r->data = k;
	if (!r || uv_shutdown(r, (uv_stream_t *)&k->pipe, refused_cb) < 0) {
		free(r);
		conn_close(k);
	}
}

/* A string member of h, NULL when not one. */
static const char *hello_str(cJSON *h, const char *key)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(h, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void alloc_cb(uv_handle_t *h, size_t want, uv_buf_t *buf);
static void read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf);

/* The descriptors the first line came with: the client's stdin and
 * stdout, read and written here from now on. 1 when both are taken, 0
 * when they are not there, -1 when they could not be used. */
static int take_fds(struct conn *k)
{
	uv_pipe_t *p[2] = { &k->cin, &k->cout };
	uv_os_fd_t fd;
	int i, r = 0;

	if (uv_pipe_pending_count(&k->pipe) != 2 ||
	    uv_pipe_pending_type(&k->pipe) != UV_NAMED_PIPE)
		return 0; /* those there are closed with the socket */
	k->handed = 1; /* closed with the socket from now on */
	for (i = 0; i < 2; i++) {
		uv_pipe_init(k->pipe.loop, p[i], 0);
		p[i]->data = k;
		if (!r && ((r = uv_accept((uv_stream_t *)&k->pipe,
					  (uv_stream_t *)p[i])) < 0 ||
			   (r = uv_fileno((uv_handle_t *)p[i], &fd)) < 0 ||
			   (r = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) |
				      O_NONBLOCK) < 0 ? -errno : 0) < 0))
			mlog(MLOG_WARN, "serve: a client's descriptor could "
			     "not be taken: %s", uv_strerror(r));
	}
	if (r == 0)
		r = uv_read_start((uv_stream_t *)&k->cin, alloc_cb, read_cb);
	return r < 0 ? -1 : 1;
}

/* The first line: which thread, servers and tools. 0, or -1 (the
 * connection is closed, after the error when it asked for an ack). */
static int hello(struct conn *k, const char *line, size_t n)
{
	cJSON *h = cJSON_ParseWithLength(line, n);
	cJSON *v = cJSON_GetObjectItemCaseSensitive(h, "mcpfs-serve");
	cJSON *t = cJSON_GetObjectItemCaseSensitive(h, "thread");
	const char *srv = hello_str(h, "servers"), *tools = hello_str(h,
								      "tools");
	int ok = cJSON_IsNumber(v) && (cJSON_IsNull(t) || !t ||
				       (cJSON_IsString(t) &&
					mcp_thread_name_check(
						t->valuestring) == 0));
	int ack = cJSON_GetObjectItemCaseSensitive(h, "ack") != NULL;
	cJSON *fds = cJSON_GetObjectItemCaseSensitive(h, "fds");
	char why[600] = "", *a;

	if (ok && serve_scope_check(srv, tools, why, sizeof why) < 0)
		ok = 0;
	if (ok && nconns > conns_max) {
		snprintf(why, sizeof why, "the mount serves %u clients, its "
			 "most (a quarter of its descriptors, ulimit -n): "
			 "try again when one has ended", conns_max);
		ok = 0;
	}
	if (ok && cJSON_IsNumber(fds) && fds->valueint == 2 &&
	    take_fds(k) < 0) { /* before the peer, which may send at once */
		snprintf(why, sizeof why, "the client's stdin and stdout "
			 "could not be taken");
		ok = 0;
	}
	if (ok)
		k->peer = serve_peer_new(cJSON_IsString(t) ? t->valuestring
							   : NULL, &k->out);
	if (k->peer && serve_peer_scope(k->peer, srv, tools) < 0)
		snprintf(why, sizeof why, "out of memory");
	if (ack) { /* to the relay alone: the peer has sent nothing yet */
		v = cJSON_CreateObject();
		cJSON_AddNumberToObject(v, "mcpfs-serve", k->peer && !*why);
		if (*why || !k->peer)
			cJSON_AddStringToObject(v, "error", *why ? why :
						"not a valid first line");
		else if (k->handed)
			cJSON_AddNumberToObject(v, "fds", 2);
		if ((a = cJSON_PrintUnformatted(v)))
			line_to(k, (uv_stream_t *)&k->pipe, a, strlen(a));
		cJSON_free(a);
		cJSON_Delete(v);
	}
	cJSON_Delete(h);
	if (k->peer && *why) {
		serve_peer_end(k->peer);
		k->peer = NULL;
	}
	if (k->peer)
		return 0;
	if (*why)
		mlog(MLOG_INFO, "serve: a client refused: %s", why);
	else
		mlog(MLOG_WARN, "serve: a connection without a valid first "
		     "line (or out of memory): closed");
	if (ack) /* after the reason is written */
		refuse(k);
	else
		conn_close(k);
	return -1;
}

static void alloc_cb(uv_handle_t *h, size_t want, uv_buf_t *buf)
{
	struct conn *k = h->data;
	size_t n = want < 65536 ? 65536 : want;

	if (gbuf_reserve(&k->in, n) < 0) {
		*buf = uv_buf_init(NULL, 0);
		return;
	}
	*buf = uv_buf_init(k->in.p + k->in.len, (unsigned)n);
}

static void read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
	struct conn *k = st->data;
	size_t at = 0;
	char *nl;

	(void)buf;
	if (nread < 0) { /* EOF or an error: the client's session ends */
		conn_close(k);
		return;
	}
	if (k->handed && st == (uv_stream_t *)&k->pipe)
		return; /* handed over: nothing more comes this way */
	k->in.len += (size_t)nread;
	k->in.p[k->in.len] = 0;
	while (!k->closing &&
	       (nl = memchr(k->in.p + at, '\n', k->in.len - at)) != NULL) {
		size_t n = (size_t)(nl - (k->in.p + at));
		char *line = k->in.p + at;

		at += n + 1;
		if (n && line[n - 1] == '\r')
			n--;
		if (!n)
			continue;
		if (!k->peer) {
			if (hello(k, line, n) < 0)
				return;
			if (k->handed)
				at = k->in.len; /* the socket's part is over */
			continue;
		}
		serve_peer_input(k->peer, line, n, ++k->tags);
	}
	if (k->closing)
		return;
	memmove(k->in.p, k->in.p + at, k->in.len - at);
	k->in.len -= at;
	if (k->in.len > LINE_MAX_BYTES) {
		mlog(MLOG_WARN, "serve: a client's message is over %zu MiB: "
		     "closed", LINE_MAX_BYTES >> 20);
		conn_close(k);
	}
}

static void accept_cb(uv_stream_t *l, int status)
{
	struct conn *k;
	struct ucred cr;
	socklen_t cl = sizeof cr;
	uv_os_fd_t fd;

	if (status < 0 || !(k = calloc(1, sizeof *k)))
		return;
	nconns++;
	uv_pipe_init(l->loop, &k->pipe, 1); /* ipc: the relay's descriptors */
	k->pipe.data = k;
	k->out.send = conn_send;
	k->out.asks = 1; /* the socket carries requests both ways */
	LIST_INSERT_HEAD(&conns, k, link);
	if (uv_accept(l, (uv_stream_t *)&k->pipe) < 0) {
		conn_close(k);
		return;
	}
	if (uv_fileno((uv_handle_t *)&k->pipe, &fd) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0 ||
	    cr.uid != getuid()) {
		mlog(MLOG_WARN, "serve: a connection from another user "
		     "refused");
		conn_close(k);
		return;
	}
	if (nconns > 2 * conns_max) {
		mlog(MLOG_WARN, "serve: %u connections to the socket, twice "
		     "the most served: closed at once", nconns);
		conn_close(k);
		return;
	}
	uv_read_start((uv_stream_t *)&k->pipe, alloc_cb, read_cb);
}

int serve_listen(uv_loop_t *loop, const char *mountpoint)
{
	int r = serve_socket_path(mountpoint, sock_path, sizeof sock_path, 1);
	struct rlimit rl;

	if (r < 0) {
		mlog(MLOG_WARN, "serve: no socket for `mcpfs serve`: %s",
		     strerror(-r));
		return r;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur / 12 > 4096)
		conns_max = 4096;
	else
		conns_max = rl.rlim_cur / 12 > 4 ? (unsigned)rl.rlim_cur / 12 : 4;
	unlink(sock_path); /* a mount's before, gone without cleaning up */
	uv_pipe_init(loop, &listener, 0);
	if ((r = uv_pipe_bind(&listener, sock_path)) < 0 ||
	    (r = uv_listen((uv_stream_t *)&listener, 16, accept_cb)) < 0) {
		mlog(MLOG_WARN, "serve: cannot listen at %s: %s", sock_path,
		     uv_strerror(r));
		uv_close((uv_handle_t *)&listener, NULL);
		return r;
	}
	chmod(sock_path, 0600);
	listening = 1;
	mlog(MLOG_INFO, "serve: `mcpfs serve %s` joins at %s", mountpoint,
	     sock_path);
	return 0;
}

void serve_close(void)
{
	if (!listening)
		return;
	listening = 0;
	uv_close((uv_handle_t *)&listener, NULL);
	unlink(sock_path);
	while (!LIST_EMPTY(&conns))
		conn_close(LIST_FIRST(&conns));
}

/* ---- `mcpfs serve`: the relay ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* 1 if path is where an mcpfs is mounted (/proc/self/mountinfo). */
static int is_mcpfs_mount(const char *real)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[8192], mp[PATH_MAX], *dash;
	int found = 0;

	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1)
			continue;
		dash = strstr(line, " - ");
		if (dash && !strcmp(mp, real) &&
		    !strncmp(dash + 3, "fuse.mcpfs ", 11))
			found = 1;
	}
	if (f)
		fclose(f);
	return found;
}

/* --NAME VALUE or --NAME=VALUE at argv[*i] (*i moved past it): the
 * value, else NULL. */
static const char *flag(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(argv[*i], name) && *i + 1 < argc)
		return argv[++*i];
	if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	return NULL;
}

/* The mount's answer to the first line (unix.c's hello): 1 when it took
 * stdin and stdout, 0 when the relay copies them, -1 once said why. One
 * byte at a time: nothing after it is taken. */
static int hello_ack(int fd, const char *mnt)
{
	char line[1024];
	size_t n = 0;
	cJSON *h, *e;
	int ok, taken;

	while (n + 1 < sizeof line && read(fd, line + n, 1) == 1 &&
	       line[n] != '\n')
		n++;
	h = cJSON_ParseWithLength(line, n);
	e = cJSON_GetObjectItemCaseSensitive(h, "error");
	ok = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
		h, "mcpfs-serve")) == 1;
	taken = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
		h, "fds")) == 2;
	if (!ok)
		fprintf(stderr, "mcpfs serve: %s%s\n", cJSON_IsString(e) ?
			e->valuestring : "the mount closed the connection at ",
			cJSON_IsString(e) ? "" : mnt);
	cJSON_Delete(h);
	return ok ? taken : -1;
}

/* fd (0 or 1) opened anew for the mount to use, when it is a pipe (a
 * description of its own, so that the mount's O_NONBLOCK stays off the
 * one others may share) or a unix stream socket (its own description);
 * -1 for anything else (a file, a terminal: the relay copies those). */
static int handable(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss, tl = sizeof(int);
	struct stat st;
	char proc[32];
	int type;

	if (fstat(fd, &st) < 0)
		return -1;
	if (S_ISFIFO(st.st_mode)) {
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
		return open(proc, (fd ? O_WRONLY : O_RDONLY) | O_NONBLOCK |
			    O_CLOEXEC);
	}
	if (!S_ISSOCK(st.st_mode) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    ss.ss_family != AF_UNIX ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 ||
	    type != SOCK_STREAM)
		return -1;
	return fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

/* n bytes at p to fd with the descriptors fds[0], fds[1] when fds[1] is
 * one (SCM_RIGHTS): 0, or -1. A unix socket takes a first line whole. */
static int send_with(int fd, const char *p, size_t n, const int fds[2])
{
	char c[CMSG_SPACE(2 * sizeof(int))];
	struct iovec io = { (void *)p, n };
	struct msghdr mh = { .msg_iov = &io, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t r;

	if (fds[1] >= 0) {
		memset(c, 0, sizeof c);
		mh.msg_control = c;
		mh.msg_controllen = sizeof c;
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, 2 * sizeof(int));
	}
	while ((r = sendmsg(fd, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	return r == (ssize_t)n ? 0 : -1;
}

/* The first line to the mount (unix.c's hello) and its answer: 0, or
 * -1 once said why. */
static int hello_send(int fd, const char *mnt, const char *thread,
		      const char *servers, const char *tools)
{
	cJSON *h = cJSON_CreateObject();
	int fds[2] = { handable(0), -1 };
	char *hl, *line = NULL;
	int r;

	if (fds[0] >= 0 && (fds[1] = handable(1)) < 0) {
		close(fds[0]);
		fds[0] = -1;
	}
	cJSON_AddNumberToObject(h, "mcpfs-serve", 1);
	if (thread)
		cJSON_AddStringToObject(h, "thread", thread);
	else
		cJSON_AddNullToObject(h, "thread");
	if (servers)
		cJSON_AddStringToObject(h, "servers", servers);
	if (tools)
		cJSON_AddStringToObject(h, "tools", tools);
	cJSON_AddNumberToObject(h, "ack", 1);
	if (fds[1] >= 0)
		cJSON_AddNumberToObject(h, "fds", 2);
	hl = cJSON_PrintUnformatted(h);
	cJSON_Delete(h);
	r = !hl || asprintf(&line, "%s\n", hl) < 0 ||
	    send_with(fd, line, strlen(line), fds) < 0 ? -1 : 0;
	free(hl);
	free(line);
	if (fds[1] >= 0) { /* the mount has its own now */
		close(fds[0]);
		close(fds[1]);
	}
	if (r < 0) {
		fprintf(stderr, "mcpfs serve: the mount closed the "
			"connection\n");
		return -1;
	}
	return hello_ack(fd, mnt);
}

/* stdin to fd, fd to stdout, until the mount ends: the exit status. */
static int relay(int fd)
{
	char buf[65536];
	struct pollfd pf[2];
	int in_open = 1;

	for (;;) {
		pf[0] = (struct pollfd){ .fd = in_open ? 0 : -1,
					 .events = POLLIN };
		pf[1] = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (pf[1].revents) {
			ssize_t n = read(fd, buf, sizeof buf);

			if (n <= 0)
				return 0; /* the mount ended the session */
			if (write_all(1, buf, (size_t)n) < 0)
				return 1;
		}
		if (in_open && pf[0].revents) {
			ssize_t n = read(0, buf, sizeof buf);

			if (n <= 0) { /* the client is done: half-close */
				in_open = 0;
				shutdown(fd, SHUT_WR);
			} else if (write_all(fd, buf, (size_t)n) < 0) {
				return 1;
			}
		}
	}
}

int serve_relay(int argc, char **argv)
{
	const char *thread = NULL, *mnt = NULL, *servers = NULL;
	const char *tools = NULL, *v;
	char path[PATH_MAX] = "", real[PATH_MAX];
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int i, fd, r;

	for (i = 1; i < argc; i++) {
		if ((v = flag(argc, argv, &i, "--thread")))
			thread = v;
		else if ((v = flag(argc, argv, &i, "--servers")))
			servers = v;
		else if ((v = flag(argc, argv, &i, "--tools")))
			tools = v;
		else if (argv[i][0] != '-' && !mnt)
			mnt = argv[i];
		else
			mnt = NULL, i = argc + 1;
	}
	if (!mnt || i > argc) {
		fprintf(stderr, "usage: mcpfs serve [--thread NAME] [--servers "
			"A,B] [--tools all|search] MOUNTPOINT\n");
		return 2;
	}
	if (tools && strcmp(tools, "all") && strcmp(tools, "search")) {
		fprintf(stderr, "mcpfs serve: --tools %s: all or search\n",
			tools);
		return 1;
	}
	if (thread && (r = mcp_thread_name_check(thread)) < 0) {
		fprintf(stderr, "mcpfs serve: --thread %s: %s\n", thread,
			r == -EEXIST ? "a server directory has a file of that "
			"name, which mkdir refuses too" : "not a thread name "
			"(letters, digits, - _ and ., not first a dot, at "
			"most 128)");
		return 1;
	}
	if (!realpath(mnt, real) || !is_mcpfs_mount(real)) {
		fprintf(stderr, "mcpfs serve: no mcpfs is mounted at %s\n", mnt);
		return 1;
	}
	r = serve_socket_path(real, path, sizeof path, 0);
	fd = r < 0 ? -1 : socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		memcpy(a.sun_path, path, strlen(path) + 1); /* fits: checked */
		if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
			r = -errno;
	}
	if (r < 0 || fd < 0) {
		fprintf(stderr, "mcpfs serve: the mcpfs mounted at %s does not "
			"listen (%s%s%s): is it an older mcpfs, or another "
			"user's?\n", mnt, r < 0 ? strerror(-r) : "no socket",
			*path ? " at " : "", path);
		return 1;
	}
	if ((r = hello_send(fd, mnt, thread, servers, tools)) < 0)
		return 1;
	if (r == 0)
		return relay(fd);
	/* the mount reads and writes the client's pipes itself: wait for
	 * it to end the session (or for the client to, which it sees) */
	for (;;) {
		ssize_t n = read(fd, path, sizeof path);

		if (n == 0 || (n < 0 && errno != EINTR))
			return 0;
	}
}
