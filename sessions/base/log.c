/*
 * log.c - the mcpfs log: one line per event, "time level message", to a file
 * (--log) or stderr; a daemon without --log logs to syslog (mcpfs[PID],
 * facility daemon, so the journal keeps it). Debug lines only with -d.
 * Callers never pass env values or argv: servers are named by config name,
 * basename and digest; URLs by their origin. The file is created 0600 and
 * never opened through a symbolic link (spec 6).
 *
 * What a server or a request puts in a message cannot forge a line: every
 * control character of the formatted message (C0, DEL, C1) is written as
 * \xHH, so a logged name holding "\n2026-01-01 ... error: ..." stays on
 * its own line. A warning that a session can repeat at will (a server's
 * non-JSON stdout) goes through a limiter (struct mlog_limit): a burst of
 * lines, then one summary line, "... N more", per interval or per
 * MLOG_LIMIT_EVERY lines held back, whichever comes first, so the log
 * grows at a bounded fraction of what the server writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <time.h>
#include <sys/time.h>

#include "mlog.h"
#include "sessions.h"

static FILE *log_fp;
static int log_debug;
static int log_syslog;

void mlog_syslog(void)
{
	if (log_fp)
		return;
	openlog("mcpfs", LOG_PID, LOG_DAEMON);
	log_syslog = 1;
}

void mlog_open(const char *path, int debug)
{
	log_debug = debug;
	if (path) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW |
			      O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0600);

		log_fp = fd >= 0 ? fdopen(fd, "a") : NULL;
		if (!log_fp) {
			fprintf(stderr, "mcpfs: cannot open log %s: %s\n", path,
				errno == ELOOP ? "it is a symbolic link" :
				strerror(errno));
			if (fd >= 0)
				close(fd);
		} else {
			setvbuf(log_fp, NULL, _IOLBF, 0);
		}
	}
}

/* The message s (n bytes) with its control characters as \xHH; malloc'd,
 * or NULL when memory ran out. */
static char *escaped(const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	char *o = malloc(4 * n + 1), *w = o;
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < n; i++) {
		unsigned char c = u[i];

		if (c == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 &&
		    u[i + 1] <= 0x9f)
			c = u[++i]; /* a C1 control (UTF-8 C2 80-9F) */
		else if (c >= 0x20 && c != 0x7f) {
			*w++ = (char)c;
			continue;
		}
		*w++ = '\\';
		*w++ = 'x';
		*w++ = hex[c >> 4];
		*w++ = hex[c & 15];
	}
	*w = 0;
	return o;
}

void mlogv(int level, const char *fmt, va_list ap)
{
	static const char *names[] = {"error", "warn", "info", "debug"};
	FILE *fp = log_fp ? log_fp : stderr;
	struct timeval tv;
	struct tm tm;
	static const int prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
	char ts[32], *msg = NULL, *esc;
	int n;

	if (!fmt || (level == MLOG_DEBUG && !log_debug))
		return;
	n = vasprintf(&msg, fmt, ap);
	if (n < 0)
		return;
	esc = escaped(msg, (size_t)n);
	free(msg);
	if (!esc)
		return;
	if (log_syslog) {
		syslog(prio[level], "%s", esc);
		free(esc);
		return;
	}
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(fp, "%s.%03d mcpfs %s: %s\n", ts, (int)(tv.tv_usec / 1000),
		names[level], esc);
	free(esc);
}

void mlog(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mlogv(level, fmt, ap);
	va_end(ap);
}

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The lines held back, as one line. */
static void limit_summary(struct mlog_limit *l, int level, const char *what)
{
	if (l->more)
		mlog(level, "%s ... %lu more", what, l->more);
	l->more = 0;
}

int mlog_limit(struct mlog_limit *l, int level, const char *what)
{
	double now = monotonic();

	if (!l->start || now - l->start >= MLOG_LIMIT_INTERVAL) {
		limit_summary(l, level, what);
		l->start = now;
		l->burst = 0;
	}
	if (l->burst < MLOG_LIMIT_BURST) {
		l->burst++;
		return 1;
	}
	if (++l->more >= MLOG_LIMIT_EVERY)
		limit_summary(l, level, what);
	return 0;
}
