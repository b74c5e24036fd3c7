/*
 * era.h - the protocol eras of MCP (era.c): detection, the per-request
 * _meta of the modern era (2026-07-28) and its HTTP headers.
 */
#ifndef MCPFS_ERA_H
#define MCPFS_ERA_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "sessions.h"

#define ERA_VERSION "2026-07-28"
#define ERA_PROBE_SECS 5.0  /* the stdio probe's wait for an answer */
#define ERA_PROBES_MAX 3    /* server/discover sent at most this often */

/* Errors only a modern server sends (basic/index.mdx, Error Codes). */
enum {
	ERA_E_HEADER = -32020,     /* HeaderMismatch */
	ERA_E_CAPABILITY = -32021, /* MissingRequiredClientCapability */
	ERA_E_VERSION = -32022,    /* UnsupportedProtocolVersion */
};

/* What a probe's answer means (era_probe_verdict). */
enum { ERA_OK, ERA_RETRY, ERA_FALLBACK, ERA_FAIL };

/* The era a start of s begins in: MCP_ERA_MODERN or MCP_ERA_LEGACY when
 * configured or known for its origin, MCP_ERA_AUTO to probe. */
int era_first(const mcp_session *s);
/* The era s's server was found to speak (kept for its HTTP origin). */
void era_learned(const mcp_session *s, int era);
/* A start in the known era failed: probe again next time. */
void era_forget(const mcp_session *s);
void era_fini(void);
/* 1 if err (a JSON-RPC error object) is one only modern servers send. */
int era_modern_error(const cJSON *err);
/* The answer msg to server/discover: ERA_OK (s->protocol, server_info and
 * capabilities filled), ERA_RETRY, ERA_FALLBACK (to initialize) or
 * ERA_FAIL; why (n bytes) says what failed. */
int era_probe_verdict(mcp_session *s, cJSON *msg, char *why, size_t n);
/* The request line (len bytes) with the modern _meta members added to its
 * params (malloc'd, *outlen), or NULL when it needs none or cannot have
 * them (array params) or memory ran out: then send it as it is. */
char *era_line(const mcp_session *s, const char *line, size_t len,
	       size_t *outlen);
/* The HTTP headers of the modern request line: "Name: value" strings,
 * NULL-terminated, malloc'd (era_headers_free), or NULL. tool: for a user's
 * tools/call, the tool as the policy read it (the call's tool, read once
 * by mcp_req_parse), which Mcp-Name then carries; NULL to read it from
 * line. */
char **era_headers(const mcp_session *s, const char *line, size_t len,
		   const char *tool);
void era_headers_free(char **h);
/* Over HTTP, drop from tools (the listing's array) every tool whose
 * x-mcp-header annotations are invalid, with a log line for each. */
void era_filter_tools(const mcp_session *s, cJSON *tools);

#endif
