/*
 * observe.c - the second front door's ear (serve/, spec 14): every
 * notification a server sends and every event of its questions (the
 * thread's events lines) reach one observer, and each question as it
 * opens, with the request's own params, reaches another, so that a client
 * which declared the capability can be asked it. Alone in its file so
 * that inbound.c and ask.c both tell it without calling each other.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ask.h"
#include "internal.h"
#include "jsent.h"

static const struct mcp_observer *observer;

void mcp_observe(const struct mcp_observer *o)
{
	observer = o;
}

void session_observe(mcp_session *s, const char *json, size_t len)
{
	struct mcp_stat st;

	if (observer && observer->note) {
		mcp_session_stat(s, &st);
		observer->note(&st, json, len);
	}
}

void ask_observed(const struct mcp_stat *q, const cJSON *params)
{
	char *t;

	if (!observer || !observer->ask)
		return;
	t = params ? jsent_print(params, 0, NULL) : strdup("{}");
	if (t)
		observer->ask(q, t, strlen(t));
	free(t);
}
