/*
 * bench.c - the hot loops of tests/bench/run.sh (a benchmark driver, not a
 * test: it measures and prints, it asserts nothing about time).
 *
 *   bench floor   N REQ -- CMD [ARG...]   one server over pipes: initialize,
 *                                         then N sequential tools/call
 *   bench oneshot N REQ -- CMD [ARG...]   per call: spawn, initialize, call
 *                                         (timed up to the reply), then close
 *                                         stdin, SIGTERM and reap (untimed)
 *   bench reuse   N REQ FILE              one open O_RDWR file: write REQ,
 *                                         read to EOF, N times
 *   bench reopen  N REQ FILE              per call: open, write, read to EOF,
 *                                         close
 *   bench pread   N FILE                  one open file: pread 64 bytes at
 *                                         offset 0, N times (on a FUSE file
 *                                         mcpfs answers from memory: one
 *                                         bare round trip)
 *   bench conc    SECS REQ FILE...        one thread per FILE (each its own
 *                                         open file), sequential calls for
 *                                         SECS seconds
 *   bench pfloor  SECS K REQ -- CMD...    conc's floor: K threads, each with
 *                                         its own server over pipes (floor's
 *                                         client), sequential calls for SECS
 *                                         seconds; no mcpfs
 *   bench ppread  SECS FILE...            conc of bare FUSE round trips: one
 *                                         thread per FILE, each a 64-byte
 *                                         pread at offset 0 of its own open
 *                                         file, for SECS seconds
 *
 * REQ is the tools/call params, {"name": ..., "arguments": {...}}: written as
 * is to a call file, wrapped in a JSON-RPC request on a pipe.
 *
 * floor, oneshot, reuse, reopen and pread print "MEDIAN_US P10_US P90_US BYTES" (the
 * per-call times after a warm-up of min(N/10, 50) calls, which are not
 * counted; BYTES is the size of the last reply); conc (and pfloor and
 * ppread) prints "CALLS_PER_SEC CALLS SECONDS MAX_US MIN_CALLS MAX_CALLS" (the slowest
 * call of any thread; the fewest and most calls one thread made). Call files are read with a 64 KiB buffer
 * (BENCH_RBUF=BYTES to change it; FUSE pins the whole buffer per read, see
 * README.md); with BENCH_PHASES set, reuse and reopen also print to stderr
 * the medians of the write, the data reads and the final read of 0. With
 * BENCH_SOCKETPAIR set, floor and oneshot talk to the server over
 * socketpairs (as libuv's UV_CREATE_PIPE, so as mcpfs does) instead of
 * pipes. With BENCH_NOEOF set, a call on a call file stops reading at the
 * newline that ends the reply (no final read of 0). Exit status 1 and a message on stderr if a
 * call fails (no reply, an error reply, EOF from the server).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what)
{
	fprintf(stderr, "bench: %s: %s\n", what, errno ? strerror(errno) : "");
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(double *t, size_t n, size_t bytes)
{
	qsort(t, n, sizeof *t, cmp_double);
	printf("%.2f %.2f %.2f %zu\n", t[n / 2], t[n / 10], t[n * 9 / 10],
	       bytes);
}

static size_t warmup_of(size_t n)
{
	size_t w = n / 10;

	return w > 50 ? 50 : w;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			die("write");
		}
		p += w;
		n -= (size_t)w;
	}
}

/* ---- a server over pipes ---- */

struct peer {
	pid_t pid;
	int in, out;          /* our ends: we write in, read out */
	char *buf;
	size_t start, len, scanned, cap;
	long next_id;
};

static void peer_spawn(struct peer *p, char **argv)
{
	int to[2], from[2];
	posix_spawn_file_actions_t fa;

	if (getenv("BENCH_SOCKETPAIR")) {
		/* what libuv's UV_CREATE_PIPE gives a child (and mcpfs uses) */
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, to) < 0 ||
		    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, from) < 0)
			die("socketpair");
	} else if (pipe2(to, O_CLOEXEC) < 0 || pipe2(from, O_CLOEXEC) < 0) {
		die("pipe");
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, to[0], 0);
	posix_spawn_file_actions_adddup2(&fa, from[1], 1);
	errno = posix_spawnp(&p->pid, argv[0], &fa, NULL, argv, environ);
	if (errno)
		die(argv[0]);
	posix_spawn_file_actions_destroy(&fa);
	close(to[0]);
	close(from[1]);
	p->in = to[1];
	p->out = from[0];
	p->start = p->len = p->scanned = 0;
	if (!p->buf) {
		p->cap = 1 << 16;
		p->buf = malloc(p->cap);
		if (!p->buf)
			die("malloc");
	}
	p->next_id = 1;
}

/* The next line from the server (NUL-terminated, no newline), or NULL. */
static char *peer_line(struct peer *p, size_t *lenp)
{
	for (;;) {
		char *nl = memchr(p->buf + p->scanned, '\n',
				  p->len - p->scanned);
		ssize_t r;

		if (nl) {
			char *line = p->buf + p->start;

			*nl = 0;
			*lenp = (size_t)(nl - line);
			p->start = p->scanned = (size_t)(nl - p->buf) + 1;
			return line;
		}
		p->scanned = p->len;
		if (p->start) {
			memmove(p->buf, p->buf + p->start, p->len - p->start);
			p->len -= p->start;
			p->scanned -= p->start;
			p->start = 0;
		}
		if (p->len == p->cap) {
			p->cap *= 2;
			p->buf = realloc(p->buf, p->cap);
			if (!p->buf)
				die("realloc");
		}
		r = read(p->out, p->buf + p->len, p->cap - p->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return NULL;
		p->len += (size_t)r;
	}
}

/* Send one request and wait for the response with its id (notifications
 * and requests from the server are skipped). Returns the reply's length. */
static size_t peer_rpc(struct peer *p, const char *method, const char *params)
{
	char head[128], idkey[48];
	long id = p->next_id++;
	size_t n, hl, il;
	char *line;

	hl = (size_t)snprintf(head, sizeof head,
			      "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\","
			      "\"params\":", id, method);
	il = (size_t)snprintf(idkey, sizeof idkey, "\"id\":%ld", id);
	{
		size_t pl = strlen(params);
		char *msg = malloc(hl + pl + 2);

		if (!msg)
			die("malloc");
		memcpy(msg, head, hl);
		memcpy(msg + hl, params, pl);
		memcpy(msg + hl + pl, "}\n", 2);
		write_all(p->in, msg, hl + pl + 2);
		free(msg);
	}
	while ((line = peer_line(p, &n)) != NULL) {
		char *k;

		/* A response has no "method"; a request from the server has
		 * one (and an id) and is not ours. The bench's texts contain
		 * neither word. */
		if (strstr(line, "\"method\""))
			continue;
		k = strstr(line, idkey);
		if (!k || (k[il] != ',' && k[il] != '}'))
			continue;
		if (strncmp(line, "{\"jsonrpc\":\"2.0\",\"id\":", 22) == 0 &&
		    strstr(line, "\"error\"") &&
		    !strstr(line, "\"result\"")) {
			fprintf(stderr, "bench: error reply: %.300s\n", line);
			exit(1);
		}
		return n;
	}
	errno = 0;
	die("server closed stdout");
	return 0;
}

static void peer_init(struct peer *p)
{
	static const char note[] =
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

	peer_rpc(p, "initialize",
		 "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
		 "\"clientInfo\":{\"name\":\"mcpfs-bench\",\"version\":\"0\"}}");
	write_all(p->in, note, sizeof note - 1);
}

static void peer_close(struct peer *p)
{
	int st, i;

	close(p->in);
	close(p->out);
	/* give it a moment to exit on EOF, then terminate (as a sessionless
	 * client's close does) */
	for (i = 0; i < 200; i++) {
		if (waitpid(p->pid, &st, WNOHANG) == p->pid)
			return;
		if (i == 20)
			kill(p->pid, SIGTERM);
		usleep(1000);
	}
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &st, 0);
}

static int cmd_floor(size_t n, const char *req, char **argv)
{
	size_t w = warmup_of(n), i, bytes = 0;
	double *t = calloc(n, sizeof *t);
	struct peer p = { 0 };

	peer_spawn(&p, argv);
	peer_init(&p);
	for (i = 0; i < w + n; i++) {
		double t0 = now_us();

		bytes = peer_rpc(&p, "tools/call", req);
		if (i >= w)
			t[i - w] = now_us() - t0;
	}
	peer_close(&p);
	report(t, n, bytes);
	return 0;
}

static int cmd_oneshot(size_t n, const char *req, char **argv)
{
	size_t w = n >= 10 ? 1 : 0, i, bytes = 0;
	double *t = calloc(n, sizeof *t);
	struct peer p = { 0 };

	for (i = 0; i < w + n; i++) {
		double t0 = now_us();

		peer_spawn(&p, argv);
		peer_init(&p);
		bytes = peer_rpc(&p, "tools/call", req);
		if (i >= w)
			t[i - w] = now_us() - t0;
		peer_close(&p);
	}
	report(t, n, bytes);
	return 0;
}

/* ---- call files ---- */

/* Set by BENCH_NOEOF: stop reading at the reply's final newline instead of
 * reading until read returns 0 (the next write starts a new transaction
 * anyway), which saves one FUSE round trip per call. */
static int no_eof;

/* One transaction on an open call file: write req, read to EOF. */
static size_t file_call(int fd, const char *req, size_t rl, char *buf,
			size_t cap, double *ph)
{
	size_t got = 0;
	ssize_t r;
	double t0 = ph ? now_us() : 0, t1;

	write_all(fd, req, rl);
	if (ph) {
		t1 = now_us();
		ph[0] = t1 - t0;
		t0 = t1;
	}
	for (;;) {
		r = read(fd, buf, cap);
		if (ph) {
			t1 = now_us();
			ph[r > 0 ? 1 : 2] += t1 - t0;
			t0 = t1;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("read call");
		if (r == 0)
			break;
		if (got == 0 && strncmp(buf, "{\"error\"", 8) == 0) {
			fprintf(stderr, "bench: error reply: %.*s\n",
				(int)(r > 300 ? 300 : r), buf);
			exit(1);
		}
		got += (size_t)r;
		if (no_eof && buf[r - 1] == '\n')
			break; /* the reply ends in a newline: skip the read of 0 */
	}
	if (!got) {
		errno = 0;
		die("empty reply");
	}
	return got;
}


static int cmd_file(size_t n, const char *req, const char *path, int reopen)
{
	size_t w = warmup_of(n), i, rl = strlen(req), bytes = 0, rbuf;
	const char *env = getenv("BENCH_RBUF");
	double *t = calloc(n, sizeof *t), *ph = calloc(3 * n, sizeof *ph);
	char *buf;

	rbuf = env && atol(env) > 0 ? (size_t)atol(env) : 1 << 16;
	buf = malloc(rbuf);
	int fd = -1;

	if (!t || !buf)
		die("malloc");
	for (i = 0; i < w + n; i++) {
		double t0 = now_us();

		if (fd < 0 && (fd = open(path, O_RDWR)) < 0)
			die(path);
		bytes = file_call(fd, req, rl, buf, rbuf,
				  i >= w ? ph + 3 * (i - w) : NULL);
		if (reopen) {
			if (close(fd) < 0)
				die("close");
			fd = -1;
		}
		if (i >= w)
			t[i - w] = now_us() - t0;
	}
	if (fd >= 0)
		close(fd);
	report(t, n, bytes);
	if (getenv("BENCH_PHASES")) {
		/* medians of the write, the reads with data, the read of 0 */
		size_t k, j;

		for (k = 0; k < 3; k++) {
			for (j = 0; j < n; j++)
				t[j] = ph[3 * j + k];
			qsort(t, n, sizeof *t, cmp_double);
			fprintf(stderr, "%s%.2f", k ? " " : "phases (write, "
				"read data, read EOF) median us: ", t[n / 2]);
		}
		fprintf(stderr, "\n");
	}
	free(ph);
	free(buf);
	free(t);
	return 0;
}

struct worker {
	pthread_t th;
	const char *path, *req;
	struct peer *peer;    /* pfloor: a server over pipes instead of path */
	int pread;            /* ppread: a pread of path instead of a call */
	double until;
	unsigned long calls;
	double max_us;
	pthread_barrier_t *ready, *go;
};

/* One call of a worker: on its call file, or (pfloor) to its server. */
static void worker_call(struct worker *wk, int fd, size_t rl, char *buf)
{
	if (wk->peer)
		peer_rpc(wk->peer, "tools/call", wk->req);
	else if (wk->pread) {
		if (pread(fd, buf, 64, 0) < 0)
			die("pread");
	} else
		file_call(fd, wk->req, rl, buf, 1 << 16, NULL);
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	size_t rl = strlen(wk->req);
	char *buf = malloc(1 << 16);
	int fd = wk->peer ? -1 : open(wk->path, wk->pread ? O_RDONLY : O_RDWR);
	int i;

	if ((!wk->peer && fd < 0) || !buf)
		die(wk->path);
	for (i = 0; i < 20; i++) /* warm-up: the session is up and hot */
		worker_call(wk, fd, rl, buf);
	pthread_barrier_wait(wk->ready);
	pthread_barrier_wait(wk->go);
	for (;;) {
		double t0 = now_us(), dt;

		if (t0 >= wk->until)
			break;
		worker_call(wk, fd, rl, buf);
		dt = now_us() - t0;
		if (dt > wk->max_us)
			wk->max_us = dt;
		wk->calls++;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* files NULL: pfloor, nf servers of argv over pipes; req NULL: ppread,
 * a pread of each file instead of a call. */
static int cmd_conc(double secs, const char *req, int nf, char **files,
		    char **argv)
{
	struct peer *peers = files ? NULL : calloc((size_t)nf, sizeof *peers);
	struct worker *wk = calloc((size_t)nf, sizeof *wk);
	pthread_barrier_t ready, go;
	unsigned long total = 0;
	double t0, t1, max_us = 0;
	unsigned long lo = (unsigned long)-1, hi = 0;
	int i;

	if (!wk)
		die("malloc");
	pthread_barrier_init(&ready, NULL, (unsigned)nf + 1);
	pthread_barrier_init(&go, NULL, (unsigned)nf + 1);
	if (!files && !peers)
		die("malloc");
	for (i = 0; i < nf; i++) {
		if (peers) {
			peer_spawn(&peers[i], argv);
			peer_init(&peers[i]);
			wk[i].peer = &peers[i];
			wk[i].path = argv[0];
		} else {
			wk[i].path = files[i];
		}
		wk[i].req = req ? req : "";
		wk[i].pread = !req;
		wk[i].ready = &ready;
		wk[i].go = &go;
	}
	for (i = 0; i < nf; i++)
		if (pthread_create(&wk[i].th, NULL, worker_main, &wk[i]))
			die("pthread_create");
	/* every worker has warmed up; the deadline is set before they go
	 * (the barrier orders the store before their loads) */
	pthread_barrier_wait(&ready);
	t0 = now_us();
	for (i = 0; i < nf; i++)
		wk[i].until = t0 + secs * 1e6;
	pthread_barrier_wait(&go);
	for (i = 0; i < nf; i++) {
		pthread_join(wk[i].th, NULL);
		total += wk[i].calls;
		if (wk[i].max_us > max_us)
			max_us = wk[i].max_us;
		if (wk[i].calls < lo)
			lo = wk[i].calls;
		if (wk[i].calls > hi)
			hi = wk[i].calls;
	}
	t1 = now_us();
	for (i = 0; peers && i < nf; i++)
		peer_close(&peers[i]);
	printf("%.0f %lu %.3f %.0f %lu %lu\n",
	       (double)total / ((t1 - t0) / 1e6), total, (t1 - t0) / 1e6,
	       max_us, lo, hi);
	return 0;
}

static int cmd_pread(size_t n, const char *path)
{
	size_t w = warmup_of(n), i;
	double *t = calloc(n, sizeof *t), t0;
	char buf[64];
	ssize_t got = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !t)
		die(path);
	for (i = 0; i < w + n; i++) {
		t0 = now_us();
		got = pread(fd, buf, sizeof buf, 0);
		if (got < 0)
			die("pread");
		if (i >= w)
			t[i - w] = now_us() - t0;
	}
	close(fd);
	report(t, n, (size_t)got);
	free(t);
	return 0;
}

/* mkdir DIR, then one call on DIR/call: the whole time, in µs. */
static int cmd_first(const char *req, const char *dir)
{
	char path[4096], buf[1 << 16];
	double t0 = now_us();
	int fd;

	if (mkdir(dir, 0700) < 0)
		die(dir);
	snprintf(path, sizeof path, "%s/call", dir);
	if ((fd = open(path, O_RDWR)) < 0)
		die(path);
	file_call(fd, req, strlen(req), buf, sizeof buf, NULL);
	close(fd);
	printf("%.1f\n", now_us() - t0);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench floor|oneshot N REQ -- CMD [ARG...]\n"
		"       bench reuse|reopen N REQ FILE\n"
		"       bench pread N FILE\n"
		"       bench first REQ DIR\n"
		"       bench conc SECS REQ FILE...\n"
		"       bench pfloor SECS K REQ -- CMD [ARG...]\n"
		"       bench ppread SECS FILE...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	no_eof = getenv("BENCH_NOEOF") != NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "first"))
		return cmd_first(argv[2], argv[3]);
	if (argc < 4)
		usage();
	if (!strcmp(argv[1], "floor") || !strcmp(argv[1], "oneshot")) {
		size_t n = strtoul(argv[2], NULL, 10);

		if (argc < 6 || strcmp(argv[4], "--") || !n)
			usage();
		return argv[1][0] == 'f' ? cmd_floor(n, argv[3], argv + 5)
					 : cmd_oneshot(n, argv[3], argv + 5);
	}
	if (!strcmp(argv[1], "reuse") || !strcmp(argv[1], "reopen")) {
		size_t n = strtoul(argv[2], NULL, 10);

		if (argc != 5 || !n)
			usage();
		return cmd_file(n, argv[3], argv[4], argv[1][2] == 'o');
	}
	if (!strcmp(argv[1], "pread")) {
		size_t n = strtoul(argv[2], NULL, 10);

		if (argc != 4 || !n)
			usage();
		return cmd_pread(n, argv[3]);
	}
	if (!strcmp(argv[1], "conc")) {
		if (argc < 5)
			usage();
		return cmd_conc(strtod(argv[2], NULL), argv[3], argc - 4,
				argv + 4, NULL);
	}
	if (!strcmp(argv[1], "ppread"))
		return cmd_conc(strtod(argv[2], NULL), NULL, argc - 3,
				argv + 3, NULL);
	if (!strcmp(argv[1], "pfloor")) {
		int k = atoi(argv[3]);

		if (argc < 7 || strcmp(argv[5], "--") || k < 1)
			usage();
		return cmd_conc(strtod(argv[2], NULL), argv[4], k, NULL,
				argv + 6);
	}
	usage();
	return 2;
}
