/*
 * main.c - wires mcpfs together: options, config, the FUSE session on the
 * libuv loop, signals, shutdown. "mcpfs --mcpfs-exec PPID COMMAND ARGS..."
 * runs the supervisor that every server is started under (supervise.c).
 *
 * The command line also takes what mount.fuse3 passes for
 * "mount -t fuse.mcpfs CONFIG MOUNTPOINT" and fstab lines: two positional
 * arguments (the config file, then the mount point) and -o options, of
 * which those that only mean something to mount(8) are dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildconfig.h"
#include "fs.h"
#include "mimetab.h"
#include "program.h"
#include "serve.h"
#include "writers.h"
#ifdef MCPFS_FUSE318
#include "fuse318.h"
#endif

/* The system's media types (Debian's media-types package). */
#define MIME_TYPES "/etc/mime.types"

struct opts {
	char *configs[MCP_MAX_CONFIGS];
	size_t nconfigs;
	char *pos[2];           /* positional arguments: [CONFIG] MOUNTPOINT */
	int npos;
	char *project;
	char *log;
	int debug;
	int show_version;
	int show_help;
	char *idle_timeout;
	char *call_timeout;
	char *max_sessions;
	char *max_message;
	char *serve;            /* --serve [ADDR:]PORT (spec 14) */
	char *serve_idle;       /* -o serve_idle=SEC */
	char *serve_connections;/* -o serve_connections=N */
	char *serve_tools;      /* -o serve_tools=all|search */
	int serve_remote;       /* -o serve_remote */
	int notrace;
};

enum { KEY_CONFIG, KEY_CONFIG_EQ };

#define OPT(t, p) { t, offsetof(struct opts, p), 1 }
static const struct fuse_opt opt_spec[] = {
	FUSE_OPT_KEY("-c ", KEY_CONFIG),
	FUSE_OPT_KEY("--config ", KEY_CONFIG_EQ),
	FUSE_OPT_KEY("--config=", KEY_CONFIG_EQ),
	OPT("--project %s", project),
	OPT("--project=%s", project),
	OPT("--log %s", log),
	OPT("--log=%s", log),
	OPT("--idle-timeout %s", idle_timeout),
	OPT("--idle-timeout=%s", idle_timeout),
	OPT("--call-timeout %s", call_timeout),
	OPT("--call-timeout=%s", call_timeout),
	OPT("--max-sessions %s", max_sessions),
	OPT("--max-sessions=%s", max_sessions),
	OPT("--max-message %s", max_message),
	OPT("--max-message=%s", max_message),
	OPT("--serve %s", serve),
	OPT("--serve=%s", serve),
	/* every option as -o NAME=VALUE too, for mount -t fuse.mcpfs, fstab */
	OPT("project=%s", project),
	OPT("log=%s", log),
	OPT("idle_timeout=%s", idle_timeout),
	OPT("call_timeout=%s", call_timeout),
	OPT("max_sessions=%s", max_sessions),
	OPT("max_message=%s", max_message),
	OPT("serve=%s", serve),
	OPT("serve_idle=%s", serve_idle),
	OPT("serve_connections=%s", serve_connections),
	OPT("serve_tools=%s", serve_tools),
	OPT("serve_remote", serve_remote),
	OPT("notrace", notrace),
	OPT("-d", debug),
	OPT("--debug", debug),
	OPT("-V", show_version),
	OPT("--version", show_version),
	OPT("-h", show_help),
	OPT("--help", show_help),
	FUSE_OPT_END
};

static struct fuse_session *se;
static uv_poll_t fuse_poll;
static uv_signal_t sig_int, sig_term, sig_hup;
static int shutting_down;
static int exit_code;      /* of a mount that ends itself (--serve) */
static char *mountpoint;

/*
 * Options of mount(8) and fstab that mcpfs and FUSE have no use for (mount
 * and mount.fuse3 drop most of them before mcpfs sees them, not all).
 */
static int mount_only_opt(const char *o)
{
	static const char *const only[] = {
		"defaults", "auto", "noauto", "user", "nouser", "users",
		"owner", "group", "nofail", "_netdev", "loud", "silent",
	};
	size_t i;

	if (!strncmp(o, "x-", 2) || !strncmp(o, "X-", 2) ||
	    !strncmp(o, "comment=", 8))
		return 1;
	for (i = 0; i < sizeof only / sizeof only[0]; i++)
		if (!strcmp(o, only[i]))
			return 1;
	return 0;
}

static int opt_proc(void *data, const char *arg, int key,
		    struct fuse_args *outargs)
{
	struct opts *o = data;

	switch (key) {
	case KEY_CONFIG:
	case KEY_CONFIG_EQ:
		arg += key == KEY_CONFIG ? 2 : strlen("--config") +
		       (arg[8] == '=' ? 1 : 0);
		if (o->nconfigs == MCP_MAX_CONFIGS) {
			fprintf(stderr, "mcpfs: -c: at most %d files\n",
				MCP_MAX_CONFIGS);
			return -1;
		}
		o->configs[o->nconfigs] = strdup(arg);
		return o->configs[o->nconfigs++] ? 0 : -1;
	case FUSE_OPT_KEY_NONOPT:
		if (o->npos == 2) {
			fprintf(stderr, "mcpfs: too many arguments: '%s' "
				"(see --help)\n", arg);
			return -1;
		}
		o->pos[o->npos] = strdup(arg);
		return o->pos[o->npos++] ? 0 : -1;
	case FUSE_OPT_KEY_OPT:
		return mount_only_opt(arg) ? 0 : 1;
	}
	return 1;
}

static void usage(const char *prog)
{
	printf("usage: %s [-c CONFIG]... [options] MOUNTPOINT\n"
	       "       %s CONFIG MOUNTPOINT [-o OPTS]   (as mount.fuse3 runs "
	       "it)\n"
	       "       %s serve [--thread NAME] [--servers A,B] [--tools "
	       "all|search]\n"
	       "             MOUNTPOINT   (MCP on stdio for an agent)\n\n"
	       "  -c, --config FILE     servers.json (default "
	       "$XDG_CONFIG_HOME/mcpfs/servers.json,\n"
	       "                        else the built-in demo); repeats, "
	       "later files win\n"
	       "  --project DIR         also serve projects[DIR].mcpServers "
	       "of ~/.claude.json\n"
	       "  -f                    stay in the foreground\n"
	       "  -d, --debug           debug log\n"
	       "  --log FILE            log to FILE (default: stderr with -f, "
	       "else syslog)\n"
	       "  --idle-timeout SEC    close idle sessions (default 1800, "
	       "0 = never)\n"
	       "  --call-timeout SEC    per-call timeout (default 60, "
	       "0 = unlimited)\n"
	       "  --max-sessions N      cap on sessions (default 32)\n"
	       "  --max-message SIZE    longest message a server may send "
	       "(default 64M;\n"
	       "                        suffixes K, M, G)\n"
	       "  --serve [ADDR:]PORT   also serve the mount as an MCP server "
	       "over HTTP\n"
	       "                        (ADDR 127.0.0.1; token in "
	       "MOUNTPOINT/.serve.json)\n"
	       "  -o serve_idle=SEC     an HTTP session with no request ends "
	       "(default 300)\n"
	       "  -o serve_connections=N  at most N HTTP connections "
	       "(default 64)\n"
	       "  -o serve_remote       let --serve listen at a non-loopback "
	       "address\n"
	       "  -o serve_tools=search serve clients get three tools to "
	       "search, describe\n"
	       "                        and call the others (default all)\n"
	       "  -o OPT                FUSE mount options, and every option "
	       "above as\n"
	       "                        -o idle_timeout=S,call_timeout=S,"
	       "max_sessions=N,\n"
	       "                        max_message=SIZE,log=FILE,project=DIR\n"
	       "  -o notrace            keep no trace file in thread "
	       "directories\n"
	       "  -V, --version         print the version\n"
	       "  -h, --help            this help\n\n"
	       "Unmount with: fusermount3 -u MOUNTPOINT\n", prog, prog, prog);
}

/* a handle still open at exit: a close forgotten somewhere */
static void left_open(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		mlog(MLOG_WARN, "exit: a libuv %s handle left open",
		     uv_handle_type_name(uv_handle_get_type(h)));
}

static void shutdown_done(void)
{
	uv_stop(uv_default_loop());
}

static void begin_shutdown(const char *why)
{
	if (shutting_down)
		return;
	shutting_down = 1;
	mlog(MLOG_INFO, "shutting down (%s)", why);
	uv_poll_stop(&fuse_poll);
	serve_close(); /* the clients' sessions end first */
	serve_http_stop();
	/* the sessions close first: a read waiting on a call gets the JSON
	 * error naming the shutdown while the mount is still there (after the
	 * unmount the kernel would fail it with ECONNABORTED) */
	mcp_shutdown(why, shutdown_done);
	fs_set_session(NULL);
	fuse_session_unmount(se);
	writers_clear();
}

static void fuse_cb(uv_poll_t *h, int status, int events)
{
	static struct fuse_buf buf;
	static unsigned errors;
	int i, r;

	for (i = 0; i < 64 && !shutting_down; i++) {
		r = fuse_session_receive_buf(se, &buf);
		if (r == -EAGAIN || r == -EINTR)
			return;
		if (r == 0 || r == -ENODEV || fuse_session_exited(se)) {
			begin_shutdown("unmounted");
			return;
		}
		if (r < 0) {
			/* out of memory for the buffer, or a read error: the
			 * request stays queued; try again at the next wake-up
			 * unless the device keeps failing */
			if (++errors > 10000) {
				begin_shutdown("the FUSE device keeps failing");
				return;
			}
			if (errors <= 3)
				mlog(MLOG_WARN, "reading the FUSE device: %s",
				     strerror(-r));
			return;
		}
		errors = 0;
		fuse_session_process_buf(se, &buf);
	}
}

static void signal_cb(uv_signal_t *h, int signum)
{
	char *err;

	if (signum == SIGHUP) {
		mlog(MLOG_INFO, "SIGHUP: reloading the config");
		if (mcp_load_config(NULL, &err) < 0)
			free(err);
		return;
	}
	begin_shutdown(signum == SIGINT ? "SIGINT" : "SIGTERM");
}

static const struct mcp_hooks hooks = {
	.session_gone = fs_session_gone,
	.log_grew = fs_log_grew,
};

/* Was -o allow_other given? */
static int allow_other(const struct fuse_args *args)
{
	int i;

	for (i = 1; i < args->argc; i++)
		if (strstr(args->argv[i], "allow_other") &&
		    (!strncmp(args->argv[i], "-o", 2) ||
		     !strcmp(args->argv[i - 1], "-o")))
			return 1;
	return 0;
}

/* A numeric option: a finite number >= 0 (an integer when integer). */
static int number_opt(const char *name, const char *text, double dflt,
		      int integer, double *out)
{
	char *end;
	double v;

	if (!text) {
		*out = dflt;
		return 0;
	}
	v = strtod(text, &end);
	if (end == text || *end || !(v >= 0 && v < 1e9) ||
	    (integer && (v != (double)(long)v || v < 1))) {
		fprintf(stderr, "mcpfs: %s: '%s' is not %s\n", name, text,
			integer ? "a positive integer" : "a number >= 0");
		return -1;
	}
	*out = v;
	return 0;
}

/* --max-message SIZE: bytes, with a suffix K, M or G (powers of 1024),
 * from 1K to 16G. */
static int size_opt(const char *name, const char *text, size_t dflt,
		    size_t *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!text) {
		*out = dflt;
		return 0;
	}
	errno = 0;
	v = strtoull(text, &end, 10);
	if (*end && !end[1])
		switch (*end++ | 0x20) {
		case 'k': mul = 1ull << 10; break;
		case 'm': mul = 1ull << 20; break;
		case 'g': mul = 1ull << 30; break;
		default: end--;
		}
	if (end == text || *end || errno || *text == '-' ||
	    v > (16ull << 30) / mul || v * mul < 1024 ||
	    v * mul > SIZE_MAX / 2) {
		fprintf(stderr, "mcpfs: %s: '%s' is not a size from 1K to 16G "
			"(bytes, or with a suffix K, M or G)\n", name, text);
		return -1;
	}
	*out = (size_t)(v * mul);
	return 0;
}

/* $XDG_CONFIG_HOME/mcpfs/servers.json if it exists, else NULL. */
static char *default_config_path(void)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *p = NULL;

	if (x && *x) {
		if (asprintf(&p, "%s/mcpfs/servers.json", x) < 0)
			return NULL;
	} else if (home) {
		if (asprintf(&p, "%s/.config/mcpfs/servers.json", home) < 0)
			return NULL;
	}
	if (p && access(p, R_OK)) {
		free(p);
		p = NULL;
	}
	return p;
}

/* A field of /proc/self/mountinfo with its octal escapes (\040 for a
 * space, \011, \012, \134) undone, in place. */
static char *unescape_field(char *f)
{
	char *r = f, *w = f;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' &&
		    r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 |
				      (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = 0;
	return f;
}

/*
 * Refuse a mountpoint that already has a FUSE file system (an mcpfs, say)
 * mounted on it: a second mount would stack on top and hide the first,
 * whose sessions would live on unseen. mnt is the resolved path that
 * fuse_parse_cmdline gives. Returns 0, or -1 after a message on stderr.
 */
static int check_mountpoint(const char *mnt)
{
	char *line = NULL, *fields[5], *p, *dash, *type;
	size_t cap = 0;
	int i, r = 0;
	FILE *f;

	if (!strncmp(mnt, "/dev/fd/", 8))
		return 0; /* a descriptor passed in by a mount helper */
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0; /* no procfs: let the mount itself decide */
	while (!r && getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - TYPE SOURCE OPTS */
		p = line;
		for (i = 0; i < 5 && (fields[i] = strsep(&p, " ")); i++)
			;
		dash = p ? strstr(p, " - ") : NULL;
		if (i < 5 || !dash)
			continue;
		type = dash + 3;
		type[strcspn(type, " ")] = 0;
		if (strcmp(unescape_field(fields[4]), mnt) ||
		    strncmp(type, "fuse", 4))
			continue;
		fprintf(stderr, "mcpfs: %s: a %s file system is already "
			"mounted there (unmount it first: fusermount3 -u %s)\n",
			mnt, type, mnt);
		r = -1;
	}
	free(line);
	fclose(f);
	return r;
}

/* Parse the config once before mounting, so errors reach the terminal. */
static int check_config(struct opts *o)
{
	char *err = NULL;

	if (mcp_config_check((const char *const *)o->configs, o->nconfigs,
			     o->project, &err) < 0) {
		fprintf(stderr, "mcpfs: %s\n", err ? err : "invalid config");
		free(err);
		return -1;
	}
	return 0;
}

/* An absolute path for a relative one (kept as it is if it does not
 * resolve: the error comes when it is read). */
static void make_absolute(char **p)
{
	char *abs;

	if (*p && (*p)[0] != '/' && (abs = realpath(*p, NULL)) != NULL) {
		free(*p);
		*p = abs;
	}
}

/*
 * The positional arguments: MOUNTPOINT, or CONFIG MOUNTPOINT (how
 * mount.fuse3 runs mcpfs; a CONFIG of "none" or "mcpfs" means the default
 * config). Then the default config file if no -c, and absolute paths.
 */
static int settle_args(struct opts *o, struct fuse_args *args)
{
	size_t i;

	if (o->npos == 0) {
		fprintf(stderr, "mcpfs: no mountpoint (see --help)\n");
		return -1;
	}
	if (o->npos == 2) {
		if (o->nconfigs) {
			fprintf(stderr, "mcpfs: a config file both as -c and "
				"as the first argument\n");
			return -1;
		}
		if (strcmp(o->pos[0], "none") && strcmp(o->pos[0], "mcpfs"))
			o->configs[o->nconfigs++] = o->pos[0];
		else
			free(o->pos[0]);
		o->pos[0] = o->pos[1];
		o->pos[1] = NULL;
	}
	if (fuse_opt_add_arg(args, o->pos[0]) < 0)
		return -1;
	if (!o->nconfigs && (o->configs[0] = default_config_path()))
		o->nconfigs = 1;
	for (i = 0; i < o->nconfigs; i++)
		make_absolute(&o->configs[i]);
	make_absolute(&o->project);
	return 0;
}

static void free_opts(struct opts *o)
{
	size_t i;

	for (i = 0; i < o->nconfigs; i++)
		free(o->configs[i]);
	free(o->pos[0]);
	free(o->pos[1]);
	free(o->project);
	free(o->log);
	free(o->idle_timeout);
	free(o->call_timeout);
	free(o->max_sessions);
	free(o->max_message);
	free(o->serve);
	free(o->serve_idle);
	free(o->serve_connections);
	free(o->serve_tools);
}

/* Leave main with rc before mounting, freeing what the options hold. */
static int quit(struct opts *o, struct fuse_args *args, char *mnt, int rc)
{
	free_opts(o);
	fuse_opt_free_args(args);
	free(mnt);
	return rc;
}

/* The options of serve's doors (spec 14) into so; 0, or the exit status
 * (2, or 1 when the door's module cannot be loaded) once said why. */
static int serve_opts(const struct opts *o, struct serve_http_opts *so)
{
	char door[PATH_MAX + 200];
	double idle, conns;
	int rc;

	if (number_opt("serve_idle", o->serve_idle, 300, 1, &idle) < 0 ||
	    number_opt("serve_connections", o->serve_connections, 64, 1,
		       &conns) < 0)
		return 2;
	so->addr = o->serve;
	so->idle = (unsigned)idle;
	so->connections = (unsigned)conns;
	so->remote = o->serve_remote;
	if (o->serve_tools && serve_tools_default(o->serve_tools) < 0) {
		fprintf(stderr, "mcpfs: -o serve_tools=%s: all or search\n",
			o->serve_tools);
		return 2;
	}
	if (!o->serve || (rc = serve_http_check(o->serve, o->serve_remote,
						door, sizeof door)) >= 0)
		return 0;
	if (rc == -ENOEXEC) { /* no door without its module */
		fprintf(stderr, "mcpfs: --serve %s: %s\n", o->serve, door);
		return 1;
	}
	if (rc == -EPERM)
		fprintf(stderr, "mcpfs: --serve %s: not a loopback "
			"address: whoever reaches it with the token "
			"drives the mount, over plain HTTP. Serve "
			"127.0.0.1 and reach it through ssh -L or a "
			"TLS reverse proxy (man mcpfs), or add -o "
			"serve_remote\n", o->serve);
	else
		fprintf(stderr, "mcpfs: --serve %s: not an address "
			"to listen at ([ADDR:]PORT, e.g. 8765, "
			"127.0.0.1:8765 or [::1]:8765)\n", o->serve);
	return 2;
}

/* Where servers start: here, not in / where daemonizing leaves mcpfs; in
 * / when mcpfs itself may not enter it (`sudo -u USER mcpfs` from a
 * directory of root's: every start would fail with EACCES). Malloc'd. */
static char *start_dir_here(void)
{
	char *d = getcwd(NULL, 0);

	if (d && access(d, X_OK) != 0) {
		fprintf(stderr, "mcpfs: warning: the current directory %s is "
			"not accessible (%s); servers start in /\n", d,
			strerror(errno));
		free(d);
		d = strdup("/");
	}
	return d;
}

/* The FUSE fd and the signals on the loop. */
static void loop_watch(uv_loop_t *loop)
{
	int fd = fuse_session_fd(se);

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	uv_poll_init(loop, &fuse_poll, fd);
	uv_poll_start(&fuse_poll, UV_READABLE, fuse_cb);
	uv_signal_init(loop, &sig_int);
	uv_signal_init(loop, &sig_term);
	uv_signal_init(loop, &sig_hup);
	uv_signal_start(&sig_int, signal_cb, SIGINT);
	uv_signal_start(&sig_term, signal_cb, SIGTERM);
	uv_signal_start(&sig_hup, signal_cb, SIGHUP);
}

/* After the loop: the open files freed, what loop_watch started closed
 * (a warning for any handle still open), the FUSE session destroyed. */
static void loop_unwatch(uv_loop_t *loop)
{
	fs_fh_free_all();
	uv_close((uv_handle_t *)&fuse_poll, NULL);
	uv_close((uv_handle_t *)&sig_int, NULL);
	uv_close((uv_handle_t *)&sig_term, NULL);
	uv_close((uv_handle_t *)&sig_hup, NULL);
	uv_run(loop, UV_RUN_NOWAIT);
	uv_walk(loop, left_open, NULL);
	fuse_session_destroy(se);
}

/* The session core's options (spec 1) into mo: 0, or -1 once said why. */
static int core_opts(const struct opts *o, struct mcp_options *mo)
{
	double cap;

	if (number_opt("--idle-timeout", o->idle_timeout, 1800, 0,
		       &mo->idle_timeout) < 0 ||
	    number_opt("--call-timeout", o->call_timeout, 60, 0,
		       &mo->call_timeout) < 0 ||
	    number_opt("--max-sessions", o->max_sessions, 32, 1, &cap) < 0 ||
	    size_opt("--max-message", o->max_message, (size_t)64 << 20,
		     &mo->max_line) < 0)
		return -1;
	mo->max_sessions = (unsigned)cap;
	return 0;
}

/* The FUSE session of mcpfs's operations. Only the mounting user gets in
 * (FUSE's default); with allow_other the kernel enforces the modes
 * (default_permissions). NULL for an option FUSE does not know. */
static struct fuse_session *session_new(struct fuse_args *args)
{
	fuse_opt_add_arg(args, "-o");
	fuse_opt_add_arg(args, "fsname=mcpfs,subtype=mcpfs");
	if (allow_other(args)) {
		fuse_opt_add_arg(args, "-o");
		fuse_opt_add_arg(args, "default_permissions");
	}
#ifdef MCPFS_FUSE318	/* bench only: FUSE over io_uring (fuse318.c) */
	return fuse_session_new(args, fuse318_ops(&mcpfs_ops),
				sizeof mcpfs_ops, NULL);
#else
	return fuse_session_new(args, &mcpfs_ops, sizeof mcpfs_ops, NULL);
#endif
}

/* mcpfs's own path (the supervisor's and `mcpfs serve`'s): 0 or -1. */
static int self_exe(char *self, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", self, size - 1);

	if (n <= 0) {
		fprintf(stderr, "mcpfs: cannot find my own executable\n");
		return -1;
	}
	self[n] = 0;
	return 0;
}

/* What the daemon sets once: SIGPIPE ignored, big replies (grown by
 * realloc) out of the copying heap, result/'s names (spec 9) read once
 * (without the file, the built-in ones). */
static void daemon_setup(void)
{
	int rc;

	signal(SIGPIPE, SIG_IGN);
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	if ((rc = mimetab_load(MIME_TYPES)) < 0)
		mlog(MLOG_INFO, "%s: %s: result/ names only the types mcpfs "
		     "knows itself", MIME_TYPES, strerror(-rc));
}

/* The configs of the options (spec 2), loaded: 0, or -1 once logged. */
static int configs_load(const struct opts *o)
{
	char *err;

	if (mcp_load_configs((const char *const *)o->configs, o->nconfigs,
			     o->project, &err) == 0)
		return 0;
	mlog(MLOG_ERR, "%s", err ? err : "invalid config");
	free(err);
	return -1;
}

/* Both doors of serve (spec 14): the socket of `mcpfs serve`, and the
 * HTTP door with --serve (a door that cannot listen ends the mount, exit
 * status 1). */
static void serve_start(uv_loop_t *loop, struct serve_http_opts *so,
			size_t max_message)
{
	serve_listen(loop, mountpoint);
	so->mountpoint = mountpoint;
	so->max_message = max_message;
	if (so->addr && serve_http_start(loop, so) < 0) {
		begin_shutdown("--serve: cannot listen");
		exit_code = 1;
	}
}

/* --help or --version: said, and mcpfs exits 0. */
static int help_or_version(struct opts *o, struct fuse_args *args,
			   const char *prog)
{
	if (o->show_help)
		usage(prog);
	else
		printf("mcpfs %s\n", MCPFS_VERSION);
	return quit(o, args, NULL, 0);
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts cl;
	struct opts o = { 0 };
	struct mcp_options mo;
	char self[PATH_MAX], *start_dir;
	struct serve_http_opts so;
	uv_loop_t *loop;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "--mcpfs-exec"))
		return mcp_supervise(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "serve")) /* spec 14 */
		return serve_relay(argc - 1, argv + 1);
	if (fuse_opt_parse(&args, &o, opt_spec, opt_proc) == -1)
		return quit(&o, &args, NULL, 2);
	if (o.show_help || o.show_version)
		return help_or_version(&o, &args, argv[0]);
	if (settle_args(&o, &args) < 0 || fuse_parse_cmdline(&args, &cl) != 0)
		return quit(&o, &args, NULL, 2);
	if (!cl.mountpoint) {
		fprintf(stderr, "mcpfs: no mountpoint (see --help)\n");
		return quit(&o, &args, NULL, 2);
	}
	mountpoint = cl.mountpoint;
	if (core_opts(&o, &mo) < 0)
		return quit(&o, &args, cl.mountpoint, 2);
	if ((rc = serve_opts(&o, &so)) != 0)
		return quit(&o, &args, cl.mountpoint, rc);
	if (check_config(&o) < 0 || check_mountpoint(cl.mountpoint) < 0)
		return quit(&o, &args, cl.mountpoint, 1);
	start_dir = start_dir_here();
	if (self_exe(self, sizeof self) < 0)
		return 1;
	if (!(se = session_new(&args))) { /* FUSE said which option */
		free(start_dir);
		return quit(&o, &args, cl.mountpoint, 2);
	}
	if (fuse_session_mount(se, cl.mountpoint) != 0)
		return 1;
	mlog_open(o.log, o.debug);
	if (fuse_daemonize(cl.foreground) != 0)
		return 1;
	if (!cl.foreground && !o.log)
		mlog_syslog(); /* after the fork: mcpfs[PID] is the daemon's */
	daemon_setup();
	loop = uv_default_loop();
	mo.notrace = o.notrace;
	mo.self_exe = self;
	mo.start_dir = start_dir;
	mcp_init(loop, &mo, &hooks);
#ifdef MCPFS_FUSE318
	fuse318_start(loop);
#endif
	if (configs_load(&o) < 0) {
		fuse_session_unmount(se);
		return 1;
	}
	fs_set_session(se);
	loop_watch(loop);
	mlog(MLOG_INFO, "mcpfs %s mounted on %s", MCPFS_VERSION, mountpoint);
	serve_start(loop, &so, mo.max_line);
	uv_run(loop, UV_RUN_DEFAULT);
#ifdef MCPFS_FUSE318
	fuse318_stop();
#endif
	loop_unwatch(loop);
	fuse_opt_free_args(&args);
	free(cl.mountpoint);
	free(start_dir);
	free_opts(&o);
	mimetab_free();
	mlog(MLOG_INFO, "exit");
	return exit_code;
}
