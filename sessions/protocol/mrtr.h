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

#endif
