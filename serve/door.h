/*
 * door.h - the HTTP door as a module (spec 14: loaded only when --serve is
 * given, so that an idle mount maps no HTTP server or TLS library).
 * mcpfs-serve.so is serve/http.c, httpconn.c, httpcheck.c, httptoken.c and
 * doorenv.c with libmicrohttpd; it links to none of mcpfs and exports one
 * symbol, DOOR_MODULE_ENTRY, its struct door_module. door.c, in mcpfs,
 * loads it and hands it a struct door_env at start: all the door may use
 * of the core (the loop, the log, the peers of serve.h and their scope,
 * two calls of sessions.h).
 */
#ifndef MCPFS_DOOR_H
#define MCPFS_DOOR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "serve.h"

#define DOOR_MODULE "mcpfs-serve.so"
#define DOOR_MODULE_ENTRY "mcpfs_door"

struct door_env {
	uv_loop_t *loop;
	/* the log sink (MLOG_* levels, as mlog): mlogv */
	void (*log)(int level, const char *fmt, va_list ap);
	/* a client's MCP session (serve.h): serve_peer_new,
	 * serve_peer_input, serve_peer_drop, serve_peer_end */
	struct serve_peer *(*peer_open)(const char *thread,
					struct serve_out *out);
	int (*peer_put)(struct serve_peer *p, const char *json, size_t len,
			uint64_t tag);
	void (*peer_cancel)(struct serve_peer *p, uint64_t tag);
	void (*peer_close)(struct serve_peer *p);
	/* mcp_thread_name_check: 0 for a name mkdir takes */
	int (*thread_check)(const char *name);
	/* mcp_set_client_entry: MOUNT/.serve.json (NULL: none) */
	void (*client_entry)(const char *json);
	/* a client's scope, ?servers=&tools= (serve.h): serve_scope_check,
	 * serve_scope_refusal, serve_peer_scope */
	int (*scope_check)(const char *servers, const char *tools, char *why,
			   size_t n);
	char *(*scope_refusal)(const char *body, size_t len, const char *why);
	int (*peer_scope)(struct serve_peer *p, const char *servers,
			  const char *tools);
	/* the protocol versions (sessions.h): mcp_version_at, and how many
	 * of the first are spoken, MCP_VERSIONS_SPOKEN */
	int (*version_at)(const char *v);
	int versions_spoken;
};

/* What the module exports: serve.h's serve_http_check, start (with the
 * env, kept) and stop, and the size of struct door_env it was built with
 * (door.c refuses another). */
struct door_module {
	size_t env_size;
	int (*check)(const char *addr, int remote);
	int (*start)(const struct door_env *env,
		     const struct serve_http_opts *o);
	void (*stop)(void);
};

/* doorenv.c: the env of start, kept for every file of the module (zero
 * before), and the log through it. */
extern struct door_env door_env;
void door_env_set(const struct door_env *e);
void door_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* httptoken.c: the token of the mount at mountpoint, kept 0600 in the
 * state directory and read back at the next mount (a new one when none is
 * kept or the kept one is not believed). out: 64 hex digits; path: the
 * file ("" when it could not be kept). 0, or -EIO with no random bytes. */
int serve_token(const char *mountpoint, char out[65], char *path, size_t n);

#endif
