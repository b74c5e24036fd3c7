/*
 * fiushim.c - an LD_PRELOAD companion to libfiu's POSIX preload for the
 * fault-injection test (tests/mount/test_faults.py): libfiu wraps open,
 * read, write, fork, malloc and the like, but not the calls that make
 * descriptor pairs and sockets, which are what a session start needs.
 * Each wrapper here asks libfiu (found at run time with dlsym, so this
 * builds without libfiu) whether its failure point is on:
 *   fiushim/pipe       pipe, pipe2
 *   fiushim/socketpair socketpair
 *   fiushim/socket     socket
 *   fiushim/accept     accept, accept4
 *   fiushim/dup        dup, dup2, dup3
 *   fiushim/rw         read, write (EINTR; see below)
 * and fails with the point's failinfo as errno (EMFILE when 0), as if the
 * process were out of descriptors. Points are switched on with fiu-ctrl.
 *
 * Memory has a point of its own, fiushim/malloc, for malloc, calloc,
 * realloc, strdup and strndup called from mcpfs's own code (the mcpfs
 * binary, the HTTP module mcpfs-http.so) and from cJSON, whose failures
 * mcpfs's code sees: the allocations mcpfs must survive. Not those of
 * libuv (which aborts by design when its own bookkeeping cannot grow),
 * libcurl (7.88 divides by zero in a hash whose allocation failed, inside
 * curl_multi_socket_action) or libc: libfiu's libc/mm points fail every
 * caller's. The shim must come before libfiu's libraries in LD_PRELOAD,
 * and has no effect under ASan, whose allocator comes first.
 *
 * A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) prints its backtrace
 * to stderr before the default action, so a fault the test provokes
 * names where it happened.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int (*fiu_fail_p)(const char *);
static void *(*fiu_failinfo_p)(void);

/* 1 (errno set) when point name fails now. */
static int failing(const char *name)
{
	if (!fiu_fail_p) {
		fiu_fail_p = (int (*)(const char *))dlsym(RTLD_DEFAULT,
							  "fiu_fail");
		fiu_failinfo_p = (void *(*)(void))dlsym(RTLD_DEFAULT,
							"fiu_failinfo");
		if (!fiu_fail_p)
			return 0;
	}
	if (!fiu_fail_p(name))
		return 0;
	errno = fiu_failinfo_p && fiu_failinfo_p() ?
		(int)(long)fiu_failinfo_p() : EMFILE;
	return 1;
}

static void crashed(int sig)
{
	void *pc[64];
	int n = backtrace(pc, 64);
	const char *m = "\nfiushim: crash, backtrace:\n";

	(void)!write(2, m, strlen(m));
	backtrace_symbols_fd(pc, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

__attribute__((constructor)) static void shim_init(void)
{
	void *pc[2];
	struct sigaction sa;
	const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

	backtrace(pc, 2);	/* loads libgcc_s now, not in the handler */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = crashed;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaction(sigs[i], &sa, NULL);
}

/* ---- memory ---- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static __thread int inside; /* libfiu or dladdr allocating */

/*
 * read and write: EINTR at a rate in millionths, rw_ppm, which the point
 * fiushim/rw (enabled with probability 1, failinfo the rate) sets. Its
 * state is polled from mcpfs's allocations, never from read or write
 * themselves: libuv's signal handler writes to its signal pipe, and
 * libfiu allocates in fiu_fail, which would deadlock on the malloc lock
 * the signal interrupted. So these two wrappers come before libfiu's
 * (which are never reached) and are async-signal-safe.
 */
static volatile sig_atomic_t rw_ppm, rw_pid;
static volatile unsigned rw_seed = 2463534242u;

static void rw_poll(void)
{
	int saved = errno;

	rw_ppm = failing("fiushim/rw") ? (sig_atomic_t)errno : 0;
	rw_pid = getpid();
	errno = saved;
}

/* On mcpfs's main thread only: not libfiu's control thread (which gives
 * up on an EINTR) nor a child between fork and exec. */
static int rw_fails(void)
{
	unsigned x = rw_seed;

	if (!rw_ppm || syscall(SYS_gettid) != rw_pid || getpid() != rw_pid)
		return 0;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	rw_seed = x;
	if (x % 1000000 >= (unsigned)rw_ppm)
		return 0;
	errno = EINTR;
	return 1;
}

extern ssize_t __read(int, void *, size_t);
extern ssize_t __write(int, const void *, size_t);

ssize_t read(int fd, void *p, size_t n)
{
	return rw_fails() ? -1 : __read(fd, p, n);
}

ssize_t write(int fd, const void *p, size_t n)
{
	return rw_fails() ? -1 : __write(fd, p, n);
}

/* 1 (errno ENOMEM) when an allocation called from pc fails now. */
static int oom(const void *pc)
{
	Dl_info di;
	const char *b;
	int r = 0;

	if (inside)
		return 0;
	inside = 1;
	if (dladdr(pc, &di) && di.dli_fname) {
		b = strrchr(di.dli_fname, '/');
		b = b ? b + 1 : di.dli_fname;
		if (!strncmp(b, "mcpfs", 5) || !strncmp(b, "libcjson", 8)) {
			r = failing("fiushim/malloc");
			rw_poll();
		}
	}
	inside = 0;
	if (r)
		errno = ENOMEM;
	return r;
}

void *malloc(size_t n)
{
	return oom(__builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	return oom(__builtin_return_address(0)) ? NULL : __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	return oom(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d;

	if (oom(__builtin_return_address(0)) || !(d = __libc_malloc(n)))
		return NULL;
	return memcpy(d, s, n);
}

char *strndup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *d;

	if (oom(__builtin_return_address(0)) || !(d = __libc_malloc(n + 1)))
		return NULL;
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* ---- descriptors ---- */

/* The real function: next, of type fn_t, found once. */
#define NEXT(name) \
	static fn_t next; \
	if (!next) \
		next = (fn_t)dlsym(RTLD_NEXT, name)

int pipe(int fd[2])
{
	typedef int (*fn_t)(int *);
	NEXT("pipe");
	return failing("fiushim/pipe") ? -1 : next(fd);
}

int pipe2(int fd[2], int flags)
{
	typedef int (*fn_t)(int *, int);
	NEXT("pipe2");
	return failing("fiushim/pipe") ? -1 : next(fd, flags);
}

int socketpair(int d, int type, int proto, int sv[2])
{
	typedef int (*fn_t)(int, int, int, int *);
	NEXT("socketpair");
	return failing("fiushim/socketpair") ? -1 : next(d, type, proto, sv);
}

int socket(int d, int type, int proto)
{
	typedef int (*fn_t)(int, int, int);
	NEXT("socket");
	return failing("fiushim/socket") ? -1 : next(d, type, proto);
}

int accept(int fd, struct sockaddr *a, socklen_t *n)
{
	typedef int (*fn_t)(int, struct sockaddr *, socklen_t *);
	NEXT("accept");
	return failing("fiushim/accept") ? -1 : next(fd, a, n);
}

int accept4(int fd, struct sockaddr *a, socklen_t *n, int flags)
{
	typedef int (*fn_t)(int, struct sockaddr *, socklen_t *, int);
	NEXT("accept4");
	return failing("fiushim/accept") ? -1 : next(fd, a, n, flags);
}

int dup(int fd)
{
	typedef int (*fn_t)(int);
	NEXT("dup");
	return failing("fiushim/dup") ? -1 : next(fd);
}

int dup2(int fd, int to)
{
	typedef int (*fn_t)(int, int);
	NEXT("dup2");
	return failing("fiushim/dup") ? -1 : next(fd, to);
}

int dup3(int fd, int to, int flags)
{
	typedef int (*fn_t)(int, int, int);
	NEXT("dup3");
	return failing("fiushim/dup") ? -1 : next(fd, to, flags);
}
