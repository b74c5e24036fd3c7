/*
 * request.h - turning a user request (the JSON written to a call file, see
 * mcp_request_check in sessions.h) into the JSON-RPC line sent to a server.
 */
#ifndef MCPFS_REQUEST_H
#define MCPFS_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "jscan.h" /* struct jscan_span: a part of the request text */

/*
 * A request that mcp_request_parse accepted: where its parts are in its
 * text. The text is parsed once; mcp_request_line then only copies.
 */
struct mcp_request {
	size_t len;               /* of the whole text */
	int tool;                 /* {"name": ...}: a tools/call */
	struct jscan_span head;     /* the "name" or "method" value */
	struct jscan_span args;     /* tools/call: "arguments" */
	struct jscan_span meta;     /* tools/call: "_meta" */
	struct jscan_span task;     /* tools/call: "task" (SEP-1686) */
	struct jscan_span params;   /* other methods: "params" */
	struct jscan_span token;    /* the user's own _meta.progressToken */
	int tok_how;              /* where a progress token goes (request.c) */
	size_t tok_at;            /* for an insertion: just after a '{' */
	int tok_comma;            /* that object is not empty */
};

/* A user request parsed once (mcp_req_parse in sessions.h): its text, where
 * its parts are, the tool it calls and the key the read rule files it
 * under. mcp_call_start takes the text, the parts and the tool into the
 * call. */
struct mcp_req {
	char *text;                 /* NUL-terminated, len bytes */
	size_t len;
	struct mcp_request parsed;
	char *tool;   /* a tools/call: the tool's name decoded ("" without
			 one); NULL for any other request */
	char *key;    /* "t:NAME", "p:NAME" or NULL (mcp_req_key) */
	int side;     /* MCP_REQ_SIDE: a request of the tree itself */
};

/* Check a user request (the JSON written to call). Returns 0, or -EINVAL
 * with *why set to a static message. */
int mcp_request_check(const char *json, size_t len, const char **why);

/* Check json (len bytes) as mcp_request_check does and fill *r; returns 0,
 * or -EINVAL with *why set to a static message. */
int mcp_request_parse(const char *json, size_t len, struct mcp_request *r,
		      const char **why);

/*
 * The request line for the text json that mcp_request_parse accepted as r:
 *   {"name": N, "arguments": A, "_meta": M}  ->
 *     {"jsonrpc":"2.0","id":ID,"method":"tools/call",
 *      "params":{"name":N,"arguments":A,"_meta":M}}
 *   {"method": X, "params": P}  ->
 *     {"jsonrpc":"2.0","id":ID,"method":X,"params":P}
 * "arguments" defaults to {}; absent "_meta" and "params" stay absent.
 * The user's values are copied byte for byte, minus insignificant
 * whitespace, so numbers and strings reach the server exactly as written.
 * When progress_token is not NULL and params (an object, or absent) has no
 * _meta.progressToken, {"progressToken": progress_token} is added as
 * params._meta (or into the existing params._meta object).
 *
 * Returns a malloc'd, NUL-terminated line ending in "\n" (*outlen counts the
 * newline, not the NUL), or NULL if memory ran out.
 */
char *mcp_request_line(const char *json, const struct mcp_request *r,
		       uint64_t id, const char *progress_token,
		       size_t *outlen);

/* v in decimal and a NUL into buf (21 bytes will do); returns the number
 * of digits. (snprintf costs more than the rest of a request line.) */
size_t mcp_u64_str(char *buf, uint64_t v);

/* mcp_request_parse then mcp_request_line; NULL if the request is invalid
 * or memory ran out. */
char *mcp_request_build(const char *json, size_t len, uint64_t id,
			const char *progress_token, size_t *outlen);

#endif
