/*
 * doorenv.c - the HTTP door module's view of the core (door.h): the
 * struct door_env of its start, kept for every file of the module, and
 * door_log, its log line through the core's sink. A leaf: it calls nothing
 * of the module.
 */
#include <stdarg.h>

#include "door.h"

struct door_env door_env;

void door_env_set(const struct door_env *e)
{
	door_env = *e;
}

void door_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (!door_env.log)
		return;
	va_start(ap, fmt);
	door_env.log(level, fmt, ap);
	va_end(ap);
}
