/*
 * log.c - the mcpfs log: one line per event, "time level message", to a file
 * (--log) or stderr; a daemon without --log logs to syslog (mcpfs[PID],
 * facility daemon, so the journal keeps it). Debug lines only with -d.
 * Callers never pass env values or argv: servers are named by config name,
 * basename and digest; URLs by their origin. The file is created 0600 and
 * never opened through a symbolic link (spec 6).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <time.h>
#include <sys/time.h>

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

void mlogv(int level, const char *fmt, va_list ap)
{
	static const char *names[] = {"error", "warn", "info", "debug"};
	FILE *fp = log_fp ? log_fp : stderr;
	struct timeval tv;
	struct tm tm;
	static const int prio[] = {LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG};
	char ts[32];

	if (!fmt || (level == MLOG_DEBUG && !log_debug))
		return;
	if (log_syslog) {
		vsyslog(prio[level], fmt, ap);
		return;
	}
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(fp, "%s.%03d mcpfs %s: ", ts, (int)(tv.tv_usec / 1000),
		names[level]);
	vfprintf(fp, fmt, ap);
	fputc('\n', fp);
}

void mlog(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mlogv(level, fmt, ap);
	va_end(ap);
}
