/*
 * modenv.h - the HTTP module's view of the core (modenv.c): the struct
 * transport_env it was set up with, kept once for every file of the
 * module, and the log through it. The module links to no symbol of mcpfs:
 * what it needs of the core (the log sink, the auth note, copies of
 * config) is a function pointer of mod_env.
 */
#ifndef MCPFS_MODENV_H
#define MCPFS_MODENV_H

#include "transport.h"

/* The environment of the first init (zero before). */
extern struct transport_env mod_env;

/* Keep e, the first time; later calls change nothing. */
void mod_env_set(const struct transport_env *e);
/* 1 once mod_env_set ran. */
int mod_env_ready(void);
/* One log line through the core's sink (MLOG_* levels, as mlog). */
void mod_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
