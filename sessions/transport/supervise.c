/*
 * supervise.c - the small process that stands between mcpfs and a server.
 *
 * mcpfs spawns "mcpfs-exec --mcpfs-exec PPID COMMAND ARGS..." (this file
 * built alone, linked statically where it can be: 720 KiB VmRSS, of
 * which 52 KiB private) or, when that is not installed beside mcpfs,
 * "mcpfs --mcpfs-exec ..." (the same code in mcpfs: 7.6 MiB VmRSS,
 * 1.3 MiB private, the libraries libcurl brings in). libuv's
 * UV_PROCESS_DETACHED makes it lead its own session and process group,
 * whose id is its pid: the pid mcpfs shows and signals. It forks the server
 * (stdio inherited), points its own fds 0-2 at /dev/null so it never holds
 * the server's pipes open, and waits in sigtimedwait: no libuv, no heap,
 * no handlers.
 *
 * - mcpfs dies (parent-death signal SIGUSR1, confirmed with getppid()):
 *   SIGTERM the group, up to 2 s for the server, then the sweep.
 *   A parent-death signal on the server alone (the old way) reached only
 *   the first process (npm exec, say), not the sh and node under it.
 * - SIGTERM: mcpfs's close sequence signals the whole group (after stdin
 *   EOF and 2 s); one from anyone else is passed on to the group. Up to
 *   2 s for the server, then the sweep. mcpfs's own SIGKILL of the group
 *   comes 1 s after that, as a backstop only (stdio.c): were it first, the
 *   server and this process would die together and the server's zombie go
 *   to init, not be reaped here.
 * - The server exits: the sweep, then the supervisor ends the same way,
 *   exit(code) or the same signal, so mcpfs reports what the server did.
 * The sweep SIGKILLs the server, every other member of the group and every
 * descendant that left it (found in /proc: a process cannot SIGKILL its own
 * group and live; only while this process has a child left, see sweep),
 * until none is left, and reaps them: this process is a
 * child subreaper, so whatever the server leaves behind is re-parented
 * here, and a descendant that called setsid is still a descendant.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buildconfig.h"
#include "supervise.h"

#define GRACE_MS 2000
#define PDEATH_SIG SIGUSR1

static pid_t child;
static int child_status;
static int child_done;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reap whatever has exited: the server and orphans re-parented here. */
static void reap(void)
{
	pid_t p;
	int st;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		if (p == child) {
			child_status = st;
			child_done = 1;
		}
	}
}

/*
 * SIGKILL every other live member of our group and every live child of
 * ours (the server, and orphans re-parented here: their own children come
 * to us as they die, so repeated sweeps reach every descendant). Returns
 * how many were signalled.
 */
static int kill_others(void)
{
	char path[64], buf[512], *q, state;
	pid_t me = getpid();
	struct dirent *e;
	long pid, ppid, pgrp;
	ssize_t len;
	int n = 0, fd;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid = strtol(e->d_name, &q, 10);
		if (*q || pid <= 0 || pid == me)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = 0;
		/* "pid (comm) state ppid pgrp ...": comm may hold ')' */
		q = strrchr(buf, ')');
		if (!q || sscanf(q + 1, " %c %ld %ld", &state, &ppid,
				 &pgrp) != 3)
			continue;
		if ((pgrp == me || ppid == me) && state != 'Z' &&
		    state != 'X') {
			kill((pid_t)pid, SIGKILL);
			n++;
		}
	}
	closedir(d);
	return n;
}

/*
 * 1 while this process has a child, running or not yet reaped. None means
 * nothing of the server is left: every member of our group is in our
 * session, and a process enters a session only by being forked in it, so
 * each member descends from us; a descendant whose parent dies is
 * re-parented to its nearest living subreaper ancestor, which is us or one
 * below us. So with no child of ours there is no descendant and no group
 * member left, and no need to read /proc.
 */
static int has_children(void)
{
	siginfo_t si;

	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) == 0 ||
	       errno != ECHILD;
}

/*
 * The sweep: kill the server, its group and its descendants; reap them.
 * The /proc scan runs only while something is left (has_children): a server
 * that exited alone and left nothing behind, the usual case, costs none.
 * One scan reads every process's stat file, so with a thousand sessions
 * closing at once (an unmount), a scan by each supervisor made the whole
 * close quadratic in the number of sessions: 12 s for 1000.
 */
static void sweep(void)
{
	struct timespec ms = { 0, 1000000 };
	int i;

	if (!child_done)
		kill(child, SIGKILL);   /* even if it left the group */
	for (i = 0; i < 2000; i++) {
		reap();
		if (!has_children() || !kill_others())
			break;
		nanosleep(&ms, NULL);
	}
	if (!child_done && waitpid(child, &child_status, 0) == child)
		child_done = 1;
	reap();
}

/* End the way the server ended. */
static void mirror(int st)
{
	struct rlimit nocore = { 0, 0 };
	sigset_t one;
	int sig;

	if (!WIFSIGNALED(st))
		_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 127);
	sig = WTERMSIG(st);
	setrlimit(RLIMIT_CORE, &nocore); /* the core was the server's */
	signal(sig, SIG_DFL);
	sigemptyset(&one);
	sigaddset(&one, sig);
	sigprocmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);
}


/*
 * A bare command is first looked for in mcpfs's own helper directory
 * (LIBEXECDIR/mcpfs, where the demo server is installed, found from this
 * binary's directory: mcpfs-exec is installed there, mcpfs is in BINDIR),
 * then in examples/ there (a build tree); execs it if it is there.
 */
static void exec_own_helper(char **argv)
{
#ifdef MCPFS_SUPERVISE_MAIN
	static const char *const dirs[] = {".", "examples"};
#else
	static const char *const dirs[] = {MCPFS_HELPER_DIR, "examples"};
#endif
	char self[4096], path[4096 + 512], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	size_t i;

	if (n <= 0 || strchr(argv[0], '/') || strlen(argv[0]) > 255)
		return;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = 0;
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, "%s/%s/%s", self, dirs[i],
			 argv[0]);
		if (!access(path, X_OK))
			execv(path, argv);
	}
}

static void exec_server(char **argv, const sigset_t *mask, pid_t sup)
{
	const char *base;

	sigprocmask(SIG_SETMASK, mask, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != sup)
		_exit(127);
	exec_own_helper(argv);
	execvp(argv[0], argv);
	/* the basename only: a path can say more than the user wants shown */
	base = strrchr(argv[0], '/');
	fprintf(stderr, "mcpfs: cannot run %s: %s\n", base ? base + 1 : argv[0],
		strerror(errno));
	_exit(127);
}

static void stdio_to_null(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC), i;

	for (i = 0; i < 3; i++) {
		if (fd < 0 || dup2(fd, i) < 0)
			close(i);
	}
	if (fd > 2)
		close(fd);
}

int mcp_supervise(int argc, char **argv)
{
	long long deadline = -1, left;
	sigset_t set, old;
	struct timespec ts;
	pid_t ppid, me;
	siginfo_t si;
	int sig;

	if (argc < 4)
		return 127;
	ppid = (pid_t)atol(argv[2]);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, PDEATH_SIG);
	sigprocmask(SIG_BLOCK, &set, &old);
	prctl(PR_SET_PDEATHSIG, PDEATH_SIG);
	if (getppid() != ppid)
		return 127; /* mcpfs died before we got here */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	setpgid(0, 0); /* lead a group even if not spawned detached */
	me = getpid();
	child = fork();
	if (child < 0) {
		fprintf(stderr, "mcpfs: cannot fork: %s\n", strerror(errno));
		return 127;
	}
	if (child == 0)
		exec_server(argv + 3, &old, me);
	stdio_to_null();
	for (;;) {
		if (deadline >= 0) {
			left = deadline - now_ms();
			if (left <= 0) {
				sweep();
				mirror(child_status);
			}
			ts.tv_sec = left / 1000;
			ts.tv_nsec = (left % 1000) * 1000000;
			sig = sigtimedwait(&set, &si, &ts);
		} else {
			sig = sigwaitinfo(&set, &si);
		}
		if (sig == SIGCHLD) {
			reap();
			if (child_done) {
				sweep();
				mirror(child_status);
			}
		} else if (sig == SIGTERM) {
			/* a group kill from mcpfs (or our own) reached everyone */
			if (si.si_pid != ppid && si.si_pid != me)
				kill(-me, SIGTERM);
			if (deadline < 0)
				deadline = now_ms() + GRACE_MS;
		} else if (sig == PDEATH_SIG && getppid() != ppid) {
			kill(-me, SIGTERM);
			if (deadline < 0)
				deadline = now_ms() + GRACE_MS;
		}
	}
}

#ifdef MCPFS_SUPERVISE_MAIN
/* mcpfs-exec: the supervisor alone, without mcpfs's libraries. */
int main(int argc, char **argv)
{
	return mcp_supervise(argc, argv);
}
#endif
