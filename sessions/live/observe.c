/*
 * observe.c - the second front door's ear (serve/, spec 14): every
 * notification a server sends and every question it asks reach one
 * observer, after they are lines in the thread's events. Alone in its
 * file so that inbound.c and ask.c both tell it without calling each
 * other.
 */
#include "internal.h"

static void (*observer)(mcp_session *s, const char *json, size_t len);

void mcp_observe(void (*note)(mcp_session *s, const char *json, size_t len))
{
	observer = note;
}

void session_observe(mcp_session *s, const char *json, size_t len)
{
	if (observer)
		observer(s, json, len);
}
