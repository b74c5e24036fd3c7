/*
 * stdio.c - the stdio transport: an MCP server as a child process, spawned
 * with libuv under its supervisor (supervise.c: "mcpfs-exec --mcpfs-exec
 * PPID COMMAND ARGS...", or mcpfs itself in that mode when mcpfs-exec is
 * not beside it), which leads the session's process group and takes the
 * whole group down when mcpfs dies; newline-delimited JSON-RPC on the
 * server's stdin and stdout, its stderr kept by the session (diag). The
 * pid here is the supervisor's, the group id. It runs in the entry's cwd,
 * taken from the directory mcpfs was started in when relative, else in
 * that directory (env.start_dir).
 *
 * Ownership. The session holds the transport while attached. close detaches
 * it: the process then finishes its close sequence on its own (stdin EOF,
 * 2 s, SIGTERM to the group; the supervisor SIGKILLs the group and its
 * descendants 2 s later and exits; our own SIGKILL of the group 1 s after
 * that is a backstop for a supervisor that did not) and the struct frees
 * itself once the supervisor is reaped and every handle is closed, holding
 * a closing object (env.obj_hold) until then. A process that exits while
 * attached is reported by exited, then lost once both pipes are drained (or
 * a guard timer fires), naming the exit status or signal (the server's:
 * the supervisor ends the way the server did).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sessions.h"
#include "transport.h"

extern char **environ;

static struct transport_env tenv;
static char *helper;    /* the supervisor binary: mcpfs-exec or mcpfs */

/* The close sequence: stdin EOF, TERM_MS, SIGTERM to the group, KILL_MS,
 * SIGKILL to the group. KILL_MS is the supervisor's own grace (GRACE_MS of
 * supervise.c, 2 s) and 1 s more: the supervisor kills and reaps first. */
#define TERM_MS 2000
#define KILL_MS 3000

struct proc {
	char *name;     /* the server's config name, for logs */
	const struct transport_up *up;
	void *ctx;      /* the session's; NULL once detached */
	uv_process_t process;
	uv_pipe_t in, out, err;
	uv_timer_t timer;
	int pid;
	int handles;    /* open handles */
	int spawned;    /* uv_spawn was called: the process handle is live */
	int exited, out_eof, err_eof, in_closed;
	int eof_waits;  /* eof_guard_cb's waits for the exit so far */
	int64_t exit_status;
	int term_signal;
	int kill_stage;
	int write_err;  /* a message could not be sent: its errno */
	struct frame frame;
};

struct wreq {
	uv_write_t req;
	char *data;
};

/* ---- process I/O ---- */

/* Signal the process group; never with pid 0 (a failed spawn). */
static void proc_kill(const struct proc *p, int sig)
{
	if (p->pid > 0)
		kill(-p->pid, sig);
}

static void proc_free_cb(uv_handle_t *h)
{
	struct proc *p = h->data;

	if (--p->handles > 0)
		return;
	frame_free(&p->frame);
	free(p->name);
	free(p);
	tenv.obj_drop();
}

static void proc_close_handle(struct proc *p, uv_handle_t *h)
{
	if (!uv_is_closing(h))
		uv_close(h, proc_free_cb);
}

/* Once detached and reaped, close every handle. */
static void proc_maybe_finish(struct proc *p)
{
	if (p->ctx || !p->exited)
		return;
	/* stragglers of the group would be orphans: kill them */
	proc_kill(p, SIGKILL);
	proc_close_handle(p, (uv_handle_t *)&p->in);
	proc_close_handle(p, (uv_handle_t *)&p->out);
	proc_close_handle(p, (uv_handle_t *)&p->err);
	proc_close_handle(p, (uv_handle_t *)&p->timer);
	if (p->spawned)
		proc_close_handle(p, (uv_handle_t *)&p->process);
}

static void write_cb(uv_write_t *req, int status)
{
	struct wreq *w = (struct wreq *)req;

	if (status && status != UV_ECANCELED && status != UV_EPIPE)
		transport_log(&tenv, MLOG_DEBUG, "write to server: %s", uv_strerror(status));
	free(w->data);
	free(w);
}

/* A message was dropped (no memory to queue it, or the pipe failed):
 * the session is lost with that errno's message, from the loop (never
 * inside the session's send). */
static void write_failed_cb(uv_timer_t *t)
{
	struct proc *p = t->data;
	char msg[160];

	if (!p->ctx || p->exited)
		return;
	snprintf(msg, sizeof msg, "cannot write to the server: %s",
		 strerror(p->write_err));
	transport_log(&tenv, MLOG_WARN, "server %s: %s", p->name, msg);
	p->up->lost(p->ctx, ERR_EXITED, msg);
}

static void write_failed(struct proc *p, int err)
{
	if (p->write_err)
		return;
	p->write_err = err;
	uv_timer_start(&p->timer, write_failed_cb, 0, 0);
}

/* Send data (malloc'd, ownership taken) to the server's stdin. */
static void proc_write(struct proc *p, char *data, size_t len)
{
	struct wreq *w;
	uv_buf_t b;

	if (!p || p->in_closed || p->exited || p->write_err) {
		free(data);
		return;
	}
	b = uv_buf_init(data, (unsigned)len);
	/* fast path: the pipe takes it all now */
	int n = uv_try_write((uv_stream_t *)&p->in, &b, 1);
	if (n == (int)len) {
		free(data);
		return;
	}
	if (n < 0 && n != UV_EAGAIN) {
		free(data);
		if (n != UV_EPIPE) /* EPIPE: the exit is on its way */
			write_failed(p, -n);
		return;
	}
	if (n < 0)
		n = 0;
	w = malloc(sizeof *w);
	if (!w) {
		free(data);
		write_failed(p, ENOMEM);
		return;
	}
	w->data = data;
	b = uv_buf_init(data + n, (unsigned)(len - n));
	if ((n = uv_write(&w->req, (uv_stream_t *)&p->in, &b, 1,
			  write_cb)) < 0) {
		free(data);
		free(w);
		write_failed(p, -n);
	}
}

/* Scratch for reads copied out at once (stderr) or dropped (the stdout of
 * a detached process, or stdout there is no memory for). */
static char slab[64 * 1024];

/*
 * The server's stdout is read straight into the free tail of the frame: at
 * least 1 KiB (a small buffer, which frame.c releases once its lines
 * are delivered), and at least as much as the frame holds, so that a
 * long line doubles it.
 */
static void out_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	struct proc *p = h->data;
	size_t want = p->frame.len > 1024 ? p->frame.len : 1024, n;

	if (!p->ctx || frame_space(&p->frame, want, &buf->base, &n) < 0) {
		buf->base = slab;
		n = sizeof slab;
	}
	buf->len = n;
}

static void err_alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	buf->base = slab;
	buf->len = sizeof slab;
}


static int line_cb(void *ctx, char *line, size_t len)
{
	struct proc *p = ctx;

	if (!p->ctx)
		return 1;
	if (!line) { /* longer than max_line: dropped (frame.h) */
		uint64_t id = 0;
		int has_id = len && frame_long_id(&p->frame, &id);

		p->up->too_long(p->ctx, len, has_id, id);
		return p->ctx ? 0 : 1;
	}
	p->up->message(p->ctx, &p->frame, line, len);
	return p->ctx ? 0 : 1; /* closed by the message: stop */
}

static void exit_message(struct proc *p, char *msg, size_t n)
{
	if (p->term_signal)
		snprintf(msg, n, "server killed by signal %d (%s)",
			 p->term_signal, strsignal(p->term_signal));
	else
		snprintf(msg, n, "server exited with status %" PRId64,
			 p->exit_status);
}

/* Attached process gone: exit seen and both pipes drained (or guard). */
static void proc_lost_check(struct proc *p, int force)
{
	char msg[128];

	if (!p->ctx || !p->exited)
		return;
	if (!force && !(p->out_eof && p->err_eof))
		return;
	exit_message(p, msg, sizeof msg);
	p->up->lost(p->ctx, ERR_EXITED, msg);
}

static void guard_cb(uv_timer_t *t)
{
	proc_lost_check(t->data, 1);
}

/* stdout ended and no exit was seen 250 ms later. With stderr closed too
 * the process is going, and its exit (which names the status, spec 5)
 * can come much later on a loaded machine: up to 5 s more is waited for
 * it. A server that closed stdout alone and runs on is lost now. */
static void eof_guard_cb(uv_timer_t *t)
{
	struct proc *p = t->data;

	if (!p->ctx || p->exited)
		return;
	if (p->err_eof && p->eof_waits++ < 20) {
		uv_timer_start(&p->timer, eof_guard_cb, 250, 0);
		return;
	}
	p->up->lost(p->ctx, ERR_EXITED, "server closed its stdout");
}

/* The line in progress, to whoever streams it (after every read: a read
 * may have moved the buffer). */
static void partial(struct proc *p)
{
	if (p->ctx && p->up->partial && p->frame.len >= STREAM_MIN)
		p->up->partial(p->ctx, p->frame.buf, p->frame.len);
}

static void out_read_cb(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	struct proc *p = st->data;
	int r;

	if (n > 0) {
		if (!p->ctx)
			return;
		if (buf->base == slab) {
			p->up->lost(p->ctx, ERR_PROTOCOL, "out of memory for "
				     "the server's output");
			return;
		}
		r = frame_commit(&p->frame, (size_t)n, line_cb, p);
		if (r == -ENOMEM && p->ctx)
			p->up->lost(p->ctx, ERR_PROTOCOL, "out of memory for "
				    "the server's output");
		partial(p);
		return;
	}
	partial(p);
	if (n == 0)
		return;
	uv_read_stop(st);
	p->out_eof = 1;
	if (!p->ctx)
		return;
	if (p->exited)
		proc_lost_check(p, 0);
	else /* an exit usually follows at once: wait for it, to name it */
		uv_timer_start(&p->timer, eof_guard_cb, 250, 0);
}

static void err_read_cb(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	struct proc *p = st->data;

	if (n > 0) {
		if (p->ctx)
			p->up->diag(p->ctx, buf->base, (size_t)n);
		return;
	}
	if (n == 0)
		return;
	uv_read_stop(st);
	p->err_eof = 1;
	proc_lost_check(p, 0);
}

static void exit_cb(uv_process_t *h, int64_t status, int sig)
{
	struct proc *p = h->data;

	p->exited = 1;
	p->exit_status = status;
	p->term_signal = sig;
	uv_timer_stop(&p->timer);
	transport_log(&tenv, MLOG_DEBUG, "pid %d exited: status %" PRId64 " signal %d", p->pid,
	     status, sig);
	if (p->ctx) {
		p->up->exited(p->ctx, status, sig);
		/* orphans of the group would hold the pipes open */
		proc_kill(p, SIGKILL);
		if (p->out_eof && p->err_eof)
			proc_lost_check(p, 0);
		else
			uv_timer_start(&p->timer, guard_cb, 500, 0);
		return;
	}
	proc_maybe_finish(p);
}

static void kill_timer_cb(uv_timer_t *t)
{
	struct proc *p = t->data;

	if (p->exited)
		return;
	if (p->kill_stage == 0) {
		p->kill_stage = 1;
		transport_log(&tenv, MLOG_DEBUG, "pid %d: SIGTERM to group", p->pid);
		proc_kill(p, SIGTERM);
		uv_timer_start(&p->timer, kill_timer_cb, KILL_MS, 0);
	} else {
		transport_log(&tenv, MLOG_INFO, "pid %d: SIGKILL to group (the supervisor "
		     "did not end it)", p->pid);
		proc_kill(p, SIGKILL);
	}
}

/* Leave the session; close stdin, then SIGTERM, then SIGKILL. */
static void proc_detach(struct proc *p)
{
	if (!p)
		return;
	p->ctx = NULL;
	if (!p->in_closed) {
		p->in_closed = 1;
		proc_close_handle(p, (uv_handle_t *)&p->in);
	}
	if (p->exited) {
		proc_maybe_finish(p);
		return;
	}
	p->kill_stage = 0;
	uv_timer_start(&p->timer, kill_timer_cb, TERM_MS, 0);
}
/* ---- spawning ---- */

static char **build_env(const struct mcp_server_conf *conf)
{
	size_t n = 0, i, j, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + conf->nenv + 1, sizeof *env);
	if (!env)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t klen = eq ? (size_t)(eq - environ[i]) : strlen(environ[i]);
		int over = 0;

		for (j = 0; j < conf->nenv; j++)
			if (!strncmp(conf->env[j], environ[i], klen) &&
			    conf->env[j][klen] == '=')
				over = 1;
		if (!over)
			env[k++] = environ[i];
	}
	for (j = 0; j < conf->nenv; j++)
		env[k++] = conf->env[j];
	env[k] = NULL;
	return env;
}

/*
 * The server's stdin: a pipe, our end opened on h (non-blocking), the
 * child's end in *child. A pipe rather than the socketpair of
 * UV_CREATE_PIPE: a small message costs about a third less (bench floor
 * with and without BENCH_SOCKETPAIR). stdout stays a socketpair: through a
 * 64 KiB pipe, long replies come at about half the rate, the socket's larger
 * buffer needs fewer wake-ups.
 */
static int stdin_pipe(uv_pipe_t *h, uv_file *child)
{
	uv_file f[2];
	int r = uv_pipe(f, 0, UV_NONBLOCK_PIPE);

	if (r < 0)
		return r;
	r = uv_pipe_open(h, f[1]);
	if (r < 0) {
		close(f[0]);
		close(f[1]);
		return r;
	}
	*child = f[0];
	return 0;
}


#ifndef MCPFS_HELPER_DIR
#define MCPFS_HELPER_DIR "../libexec/mcpfs"
#endif

/* The supervisor: mcpfs-exec in the helper directory (where meson install
 * puts it, MCPFS_HELPER_DIR from the directory of mcpfs), else beside mcpfs
 * (the build tree), else mcpfs itself. */
static int stdio_init(const struct transport_env *e)
{
	static const char *const where[] = {"/" MCPFS_HELPER_DIR, ""};
	const char *slash = strrchr(e->self_exe, '/');
	int dirlen = slash ? (int)(slash - e->self_exe) : 1;
	size_t i;

	tenv = *e;
	for (i = 0; i < sizeof where / sizeof where[0]; i++) {
		if (asprintf(&helper, "%.*s%s/mcpfs-exec", dirlen,
			     slash ? e->self_exe : ".", where[i]) < 0)
			return -ENOMEM;
		if (!access(helper, X_OK))
			break;
		free(helper);
		helper = NULL;
	}
	if (!helper) {
		helper = strdup(e->self_exe);
		if (!helper)
			return -ENOMEM;
	}
	transport_log(&tenv, MLOG_DEBUG, "servers run under %s", helper);
	return 0;
}

static void stdio_fini(void)
{
	free(helper);
	helper = NULL;
}

/* p's handles (the process's counted, not yet started) and its frame. */
static void proc_init(struct proc *p)
{
	frame_init(&p->frame, tenv.max_line);
	uv_pipe_init(tenv.loop, &p->in, 0);
	uv_pipe_init(tenv.loop, &p->out, 0);
	uv_pipe_init(tenv.loop, &p->err, 0);
	uv_timer_init(tenv.loop, &p->timer);
	p->handles = 5;
	p->in.data = p->out.data = p->err.data = p->timer.data = p;
	p->process.data = p;
	tenv.obj_hold();
}

/* Why the spawn of conf's command in cwd failed with r, into err. */
static void spawn_failed(const struct mcp_server_conf *conf, const char *cwd,
			 int r, char *err, size_t errlen)
{
	const char *base = strrchr(conf->command, '/');
	const char *name = base ? base + 1 : conf->command;

	/* the child's chdir fails as its exec would: say which */
	if ((r == UV_ENOENT || r == UV_EACCES || r == UV_ENOTDIR) && cwd &&
	    access(cwd, X_OK) != 0)
		snprintf(err, errlen, "cannot start %s: its working directory "
			 "%s: %s", name, cwd, strerror(errno));
	else
		snprintf(err, errlen, "cannot start %s: %s", name,
			 strerror(-r));
}

static int stdio_start(const struct mcp_server_conf *conf,
		       const struct transport_up *up, void *ctx,
		       struct transport **out, char *err, size_t errlen)
{
	uv_process_options_t o;
	uv_stdio_container_t io[3];
	struct proc *p;
	char **argv, **env, ppid[24], *cwd = NULL;
	uv_file cin = -1;
	size_t i;
	int r;

	p = calloc(1, sizeof *p);
	argv = calloc(conf->nargs + 5, sizeof *argv);
	env = build_env(conf);
	if (p)
		p->name = strdup(conf->name);
	if (!p || !argv || !env || !p->name) {
		if (p)
			free(p->name);
		free(p);
		free(argv);
		free(env);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	snprintf(ppid, sizeof ppid, "%d", (int)getpid());
	argv[0] = helper;
	argv[1] = "--mcpfs-exec";
	argv[2] = ppid;
	argv[3] = conf->command;
	for (i = 0; i < conf->nargs; i++)
		argv[4 + i] = conf->args[i];
	proc_init(p);
	memset(&o, 0, sizeof o);
	r = stdin_pipe(&p->in, &cin);
	io[0].flags = UV_INHERIT_FD;
	io[0].data.fd = cin;
	io[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[1].data.stream = (uv_stream_t *)&p->out;
	io[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
	io[2].data.stream = (uv_stream_t *)&p->err;
	o.file = helper;
	o.args = argv;
	o.env = env;
	if (conf->cwd && conf->cwd[0] != '/' && tenv.start_dir &&
	    asprintf(&cwd, "%s/%s", tenv.start_dir, conf->cwd) < 0)
		cwd = NULL;
	o.cwd = cwd ? cwd : conf->cwd ? conf->cwd : tenv.start_dir;
	o.flags = UV_PROCESS_DETACHED;
	o.stdio_count = 3;
	o.stdio = io;
	o.exit_cb = exit_cb;
	if (r == 0) {
		/* uv_spawn initialises the handle even when it fails; before
		 * it (no stdin pipe: out of fds) the handle is not one to
		 * close, and it never counted */
		p->spawned = 1;
		r = uv_spawn(tenv.loop, &p->process, &o);
	} else {
		p->handles--;
	}
	if (cin >= 0)
		close(cin);
	free(argv);
	free(env);
	if (r < 0) {
		spawn_failed(conf, o.cwd, r, err, errlen);
		free(cwd);
		p->exited = 1;
		proc_maybe_finish(p);
		return r;
	}
	free(cwd);
	p->pid = p->process.pid;
	p->up = up;
	p->ctx = ctx;
	uv_read_start((uv_stream_t *)&p->out, out_alloc_cb, out_read_cb);
	uv_read_start((uv_stream_t *)&p->err, err_alloc_cb, err_read_cb);
	*out = (struct transport *)p;
	return 0;
}

static void stdio_send(struct transport *t, char *line, size_t len,
		       uint64_t rpc_id)
{
	proc_write((struct proc *)t, line, len);
}

static void stdio_close(struct transport *t)
{
	proc_detach((struct proc *)t);
}

static int stdio_pid(const struct transport *t)
{
	return ((const struct proc *)t)->pid;
}

const struct transport_ops stdio_transport = {
	.name = "stdio",
	.caps = TRANSPORT_PID,
	.init = stdio_init,
	.fini = stdio_fini,
	.start = stdio_start,
	.send = stdio_send,
	.close = stdio_close,
	.pid = stdio_pid,
};
