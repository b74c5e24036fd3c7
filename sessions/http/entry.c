/*
 * entry.c - the one symbol mcpfs-http.so exports (the module is built
 * with hidden visibility): its tables, which module.c looks up by
 * TRANSPORT_MODULE_ENTRY after dlopen, checking that the module was built
 * with the same struct transport_env.
 */
#include "transport.h"

extern const struct transport_ops mcpfs_http_transport;
extern const struct transport_ops mcpfs_sse_transport;
extern const struct auth_ops mcpfs_auth_ops;

__attribute__((visibility("default")))
extern const struct transport_module mcpfs_module;

const struct transport_module mcpfs_module = {
	.env_size = sizeof(struct transport_env),
	.http = &mcpfs_http_transport,
	.sse = &mcpfs_sse_transport,
	.auth = &mcpfs_auth_ops,
};
