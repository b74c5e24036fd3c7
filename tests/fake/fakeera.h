/*
 * fakeera.h - the modern era (MCP 2026-07-28: per-request _meta, no
 * initialize) of tests/fake/fakeserver, selected with --era modern|dual.
 * Written from the specification (basic/index.mdx, basic/versioning.mdx,
 * basic/transports/stdio.mdx, basic/patterns/mrtr.mdx and
 * subscriptions.mdx, server/discover.mdx); README.md beside it says what
 * the fake does. fakeserver.c calls in here; nothing here calls back.
 */
#ifndef FAKEERA_H
#define FAKEERA_H

#include <cjson/cJSON.h>

/* The version of the modern era, and the last legacy one. */
#define ERA_MODERN_VERSION "2026-07-28"
#define ERA_LEGACY_VERSION "2025-11-25"

/* The `ask` tool as the modern era lists it (input_required). */
#define ERA_ASK_DESC "Ask the client for text through an input_required " \
	"result (a form elicitation, or the kinds asked for, and a " \
	"requestState); the retry with inputResponses answers \"you said: " \
	"<content as JSON>\"."
#define ERA_ASK_SCHEMA "{\"type\":\"object\",\"properties\":{\"message\":" \
	"{\"type\":\"string\"},\"kinds\":{\"type\":\"array\",\"items\":" \
	"{\"type\":\"string\",\"enum\":[\"elicitation\",\"sampling\"," \
	"\"roots\"]}}}}"

/* Takes argv[*i] (and its value, moving *i) if it is one of --era,
 * --discover-silent, --no-list-changed, --log, --supported; returns 1 if
 * so, 0 if not ours. Exits 2 on a bad value. */
int era_option(int argc, char **argv, int *i);

/* --log FILE: appends msg to FILE as one JSON line. */
void era_log(const cJSON *msg);

/* Handles msg if the modern era answers it (or refuses it): returns 1 if
 * it was handled, 0 to leave it to the legacy code. */
int era_message(const cJSON *msg);

/* 1 while this process serves the modern era: every result then carries
 * resultType (era_complete). */
int era_active(void);

/* Adds resultType "complete" and _meta serverInfo to a result that has no
 * resultType. */
void era_complete(cJSON *result);

/* Appends the modern-era tools (add_tool and the tools it added) to a
 * tools/list array. */
void era_tools(cJSON *list);

#endif
