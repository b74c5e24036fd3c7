/*
 * scope.h - what one serve client sees and reaches (spec 14): the servers
 * it was given (scope.c), and the search surface of three tools in place
 * of every tool (search.c). Private to serve/; both files are called by
 * peer.c and call nothing of it.
 */
#ifndef MCPFS_SCOPE_H
#define MCPFS_SCOPE_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "peer.h"

/* ---- scope.c ---- */

/* A client's tools: the mount's default (-o serve_tools), every tool, or
 * the three of the search surface. */
enum scope_tools { SCOPE_DEFAULT, SCOPE_ALL, SCOPE_SEARCH };

/* 1 if p sees the server named server (or whose id is server_id): one
 * of its servers, or any when it was given none. */
int scope_sees(const struct serve_peer *p, const char *server);
int scope_sees_id(const struct serve_peer *p, uint64_t server_id);
/* 1 if p's tools are the search surface */
int scope_search(const struct serve_peer *p);
/* 1 if p is told the notification method of the thread th: a server it
 * sees, and no tools/list_changed to a search client (its three tools
 * stay). */
int scope_hears(const struct serve_peer *p, const struct mcp_stat *th,
		const char *method);
void scope_free(struct serve_peer *p);

/* ---- search.c: the three tools (pure: listings in, results out) ---- */

enum search_tool { SEARCH_NONE, SEARCH_FIND, SEARCH_DESCRIBE, SEARCH_CALL };

/* The result of a search client's tools/list: the three tools. */
cJSON *search_listing(void);
/* Which of the three the tools/call params name (SEARCH_NONE: another). */
enum search_tool search_which(const cJSON *params);
/* mcpfs__call_tool's params made those of a direct tools/call of the tool
 * it names (its arguments, the outer _meta and so its progressToken);
 * NULL when it names none (*why says so) or out of memory (*why NULL). */
cJSON *search_call_params(const cJSON *params, const char **why);
/* The result of mcpfs__search_tools or mcpfs__describe_tool (params: the
 * tools/call params) over tools, the client's merged listing (the array
 * its tools/list would give). NULL when out of memory. */
cJSON *search_answer(const cJSON *tools, const cJSON *params);
/* initialize's instructions to a search client */
extern const char search_instructions[];

#endif
