/*
 * observe.c - the questions a server asks, heard by the second front door
 * (serve/, spec 14): mcp_observe_asks's observer hears each question as it
 * opens under a thread's requests/, with the request's own params, so
 * that a client which declared the capability can be asked it.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ask.h"
#include "sessions.h"

static void (*observer)(mcp_ask *q, const char *params, size_t len);

void mcp_observe_asks(void (*ask)(mcp_ask *q, const char *params,
				  size_t len))
{
	observer = ask;
}

void ask_observed(mcp_ask *q, const cJSON *params)
{
	char *t;

	if (!observer)
		return;
	t = params ? cJSON_PrintUnformatted(params) : strdup("{}");
	if (t)
		observer(q, t, strlen(t));
	free(t);
}
