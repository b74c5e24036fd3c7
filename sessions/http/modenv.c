/*
 * modenv.c - the environment the HTTP module got from the core at its
 * first init (http, sse or auth, whichever comes first; all three get the
 * same one), and mod_log, the module's log line through the core's sink.
 * A leaf: it calls nothing of the module.
 */
#include <stdarg.h>

#include "modenv.h"

struct transport_env mod_env;
static int have_env;

void mod_env_set(const struct transport_env *e)
{
	if (have_env)
		return;
	mod_env = *e;
	have_env = 1;
}

int mod_env_ready(void)
{
	return have_env;
}

void mod_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (!have_env || !mod_env.log)
		return;
	va_start(ap, fmt);
	mod_env.log(level, fmt, ap);
	va_end(ap);
}
