/*
 * request.h - turning a user request (the JSON written to a call file, see
 * mcp_request_check in sessions.h) into the JSON-RPC line sent to a server.
 */
#ifndef MCPFS_REQUEST_H
#define MCPFS_REQUEST_H

#include <stddef.h>
#include <stdint.h>

/*
 * Build the request line for a request that mcp_request_check accepts:
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
 * newline, not the NUL), or NULL if the request is invalid or memory ran out.
 */
char *mcp_request_build(const char *json, size_t len, uint64_t id,
			const char *progress_token, size_t *outlen);

#endif
