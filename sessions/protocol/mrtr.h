/*
 * mrtr.h - input_required results (MCP 2026-07-28 multi round-trip
 * requests), answered through requests/ and retried by mcpfs (mrtr.c).
 */
#ifndef MCPFS_MRTR_H
#define MCPFS_MRTR_H

#include <cjson/cJSON.h>

#include "sessions.h"

/* The result res of c (borrowed): 0 if it is not input_required (c
 * completes with it as usual), 1 if mrtr.c took it (questions opened, a
 * retry sent, or c failed). */
int mrtr_result(mcp_session *s, mcp_call *c, cJSON *res);
/* The input requests reqs (an object KEY: {method, params}) of c asked:
 * roots/list answered from the config, elicitation and sampling as
 * questions in requests/; into c's answers {KEY: result}, and once every
 * one is answered, all(c). 1 when c failed (a method mcpfs cannot
 * answer, or out of memory), else 0. */
int mrtr_ask(mcp_session *s, mcp_call *c, const cJSON *reqs,
	     void (*all)(mcp_call *c));
/* The answers {KEY: result} of c's round, taken (NULL: none). */
cJSON *mrtr_answers(mcp_call *c);
/* 1 while questions of c's round wait for their answers. */
int mrtr_waiting(const mcp_call *c);
void mrtr_free(mcp_call *c); /* c's rounds, as c is freed */

#endif
