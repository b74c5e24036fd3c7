/*
 * mlog.h - the mcpfs log (log.c): one line per event, to a file, stderr or
 * syslog. Every part of mcpfs but the transports logs here (they log
 * through their env, transport.h).
 */
#ifndef MCPFS_MLOG_H
#define MCPFS_MLOG_H

#include <stdarg.h>

enum { MLOG_ERR, MLOG_WARN, MLOG_INFO, MLOG_DEBUG };
void mlog_open(const char *path, int debug); /* NULL = stderr */
void mlog_syslog(void); /* daemonized without a log file: to syslog */
void mlog(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning a session can repeat at will, limited (log.c): up to
 * MLOG_LIMIT_BURST lines per MLOG_LIMIT_INTERVAL seconds; the rest are
 * counted and summed up as "WHAT ... N more" at the next interval or every
 * MLOG_LIMIT_EVERY of them. mlog_limit says whether to log this one. */
#define MLOG_LIMIT_BURST 10
#define MLOG_LIMIT_INTERVAL 10.0
#define MLOG_LIMIT_EVERY 10000
struct mlog_limit {
	double start;         /* the interval began (monotonic seconds) */
	unsigned burst;       /* lines logged in it */
	unsigned long more;   /* held back since the last summary */
};
int mlog_limit(struct mlog_limit *l, int level, const char *what);
void mlogv(int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

#endif
