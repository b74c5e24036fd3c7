/*
 * transport.h - the seam between the session core (session.c) and the ways
 * of reaching an MCP server: a child process on stdio (stdio.c),
 * Streamable HTTP (http.c), the 2024-11-05 HTTP+SSE transport (httpsse.c),
 * and Streamable HTTP falling back to HTTP+SSE (fallback.c). Every
 * transport is one const table of operations plus its own state, as
 * libcurl's connection filters and nng's transports are; the core calls
 * through the table and never asks which transport it holds. The table is
 * chosen once per session start, from the config entry (transport_for).
 *
 * A transport hears nothing of sessions: it reports through the callbacks
 * it was started with (struct transport_up), each given back the ctx
 * pointer of start. After close, no callback fires again. Transports do not
 * include internal.h and use no global of the core: what they need of the
 * process (the loop, limits, the path of mcpfs, the log, the auth note)
 * comes in struct transport_env at init (the log through transport_log;
 * tests/layout.py checks). The HTTP module (module.c) links
 * to no symbol of mcpfs: the env and the one entry it exports
 * (struct transport_module) are the whole boundary.
 */
#ifndef MCPFS_TRANSPORT_H
#define MCPFS_TRANSPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "config.h"
#include "frame.h"
#include "mlog.h"     /* the MLOG_* levels of the log sink */

/* Error codes of failures of the session itself (JSON-RPC server range). */
enum {
	ERR_TIMEOUT = -32001,
	ERR_EXITED = -32002,
	ERR_CANCELLED = -32003,
	ERR_STARTUP = -32004,
	ERR_PROTOCOL = -32005,
	ERR_CLOSED = -32006,
	ERR_HTTP = -32007,
	/* Authorization required (spec 8): shown as -32001 too (the spec
	 * fixes both), told apart by data.auth. */
	ERR_AUTH = -32001,
	/* What a transport reports for it (call_error, lost); the core
	 * turns it into ERR_AUTH with data.authorizationUrl and data.auth. */
	ERR_AUTH_UP = -32090,
};

struct transport; /* each transport's own, opaque to the core */

/* How a transport reports to its session (ctx is start's). */
struct transport_up {
	/* One message from the server. line is writable, len bytes, NUL
	 * after; f, if not NULL, is the frame holding it, whose buffer a
	 * long reply may take (frame_take). */
	void (*message)(void *ctx, struct frame *f, char *line, size_t len);
	/* The server is gone or unusable (exit, stream closed, protocol
	 * error, session ended by the server): every call in flight fails. */
	void (*lost)(void *ctx, int code, const char *what);
	/* Request rpc_id failed on its own (an HTTP error, a failed
	 * transfer); the session stays. status is the HTTP status that
	 * failed it, 0 for none (no answer, a closed stream, no memory).
	 * msg is for people: the core shows it (the call's error, the
	 * thread's stderr) and never reads it. A transport does not also
	 * write msg to diag: the core decides whether it is the server's
	 * (a failed era probe is not). */
	void (*call_error)(void *ctx, uint64_t rpc_id, int code, long status,
			   const char *msg);
	/* 1 while request rpc_id still waits for its reply. */
	int (*call_pending)(void *ctx, uint64_t rpc_id);
	/* Diagnostics for the session's stderr file (bytes, as they come). */
	void (*diag)(void *ctx, const char *p, size_t n);
	/* The process exited (before lost, which names the cause). */
	void (*exited)(void *ctx, int64_t status, int term_signal);
	/* May be NULL (the session's is): Streamable HTTP only. The first
	 * request, rpc_id (the initialize), was answered with status 400, 404
	 * or 405, the sign of a server of the 2024-11-05 HTTP+SSE transport.
	 * Returns 1 when the caller takes the request over (http.c then
	 * neither delivers the answer nor fails the request), else 0. */
	int (*legacy)(void *ctx, uint64_t rpc_id, long status);
	/* May be NULL. A line still arriving, at least STREAM_MIN bytes so
	 * far: the n bytes at p, valid until the transport's next callback
	 * (called after every read while the line is that long), so that a
	 * long reply can be read as it arrives. */
	void (*partial)(void *ctx, const char *p, size_t n);
	/* A message longer than max_line (stdio), dropped: len 0 when it
	 * passes the limit (a line read as it arrives stops there), then its
	 * whole length once it has ended, with the rpc id of the reply it
	 * was (has_id 0: it was no reply, or which is not known). The
	 * session stays. */
	void (*too_long)(void *ctx, size_t len, int has_id, uint64_t rpc_id);
};
#define STREAM_MIN (256 * 1024)

/* What every transport may use of the process, given once at init. */
struct transport_env {
	uv_loop_t *loop;
	size_t max_line;        /* longest message accepted from a server */
	const char *self_exe;   /* path of mcpfs (stdio's exec helper) */
	const char *start_dir;  /* servers' cwd unless theirs says (or NULL) */
	/* Objects that shutdown must wait for: a closed transport holds one
	 * until it has freed itself. */
	void (*obj_hold)(void);
	void (*obj_drop)(void);
	/* The log sink (MLOG_* levels, as mlog). */
	void (*log)(int level, const char *fmt, va_list ap);
	/* One auth state change of server, for the log and the events of
	 * its threads (never a secret): auth.c's mcp_auth_note. */
	void (*auth_note)(const char *server, const char *state,
			  const char *detail);
	/* Copies of config a transport keeps past the entry's life
	 * (config.h: mcp_conf_reach_dup, mcp_server_conf_free,
	 * mcp_oauth_conf_dup). */
	struct mcp_server_conf *(*conf_dup)(const struct mcp_server_conf *c);
	void (*conf_free)(struct mcp_server_conf *c);
	struct mcp_oauth_conf *(*oauth_conf_dup)(
		const struct mcp_oauth_conf *c);
};

/* What a transport can do (transport_ops.caps): the core asks these,
 * never which transport it holds. */
enum {
	/* It runs a process: pid gives its id (status shows it). */
	TRANSPORT_PID = 1u << 0,
	/* Every request is an exchange of its own with a status (HTTP):
	 * it carries the request's headers (send_hdrs), forget ends it
	 * (which is how the modern era cancels), and a server that does
	 * not know a request answers it with a status instead of leaving
	 * it unanswered. */
	TRANSPORT_EXCHANGES = 1u << 1,
	/* The server keeps a session for the client (Mcp-Session-Id, the
	 * event stream of HTTP+SSE) that the transport resumes or ends. */
	TRANSPORT_SESSIONS = 1u << 2,
	/* It speaks only the handshake era (HTTP+SSE is of 2024-11-05):
	 * no era probe. */
	TRANSPORT_HANDSHAKE_ONLY = 1u << 3,
	/* A first request answered 400, 404 or 405 is retried over another
	 * transport (fallback.c: Streamable HTTP, then HTTP+SSE). */
	TRANSPORT_RETRIES_4XX = 1u << 4,
};

/* The log of a transport: env's sink, never mlog (a transport uses no
 * global of the core). */
__attribute__((format(printf, 3, 4)))
static inline void transport_log(const struct transport_env *e, int level,
				 const char *fmt, ...)
{
	va_list ap;

	if (!e->log)
		return;
	va_start(ap, fmt);
	e->log(level, fmt, ap);
	va_end(ap);
}

struct transport_ops {
	const char *name;       /* "stdio", "http", "sse": shown in status */
	unsigned caps;          /* TRANSPORT_* */
	/* Process-wide set-up, before the first start; 0 or -errno. */
	int (*init)(const struct transport_env *env);
	/* Process-wide tear-down, at shutdown after every close completed. */
	void (*fini)(void);
	/* Start reaching the server of conf (copied as needed: conf may be
	 * freed while the transport lives). Returns 0 with *out, or -errno
	 * with a message in err (errlen bytes); no callback fires then. */
	int (*start)(const struct mcp_server_conf *conf,
		     const struct transport_up *up, void *ctx,
		     struct transport **out, char *err, size_t errlen);
	/* Send one message: line (malloc'd, ending in "\n", ownership
	 * taken), len bytes; rpc_id is the request it carries, 0 for none. */
	void (*send)(struct transport *t, char *line, size_t len,
		     uint64_t rpc_id);
	/* May be NULL (then send is used). Send a request of the modern era
	 * (2026-07-28) as send does, with the request metadata headers hdrs
	 * ("Name: value" strings, NULL-terminated; hdrs, each string and
	 * the array, taken; may be NULL). Never the probe of HTTP+SSE. */
	void (*send_hdrs)(struct transport *t, char *line, size_t len,
			  uint64_t rpc_id, char **hdrs);
	/* The handshake was answered with protocol (before
	 * notifications/initialized is sent). May be NULL. */
	void (*ready)(struct transport *t, const char *protocol);
	/* Request rpc_id ended here (timeout, cancel): drop what carries it.
	 * May be NULL. */
	void (*forget)(struct transport *t, uint64_t rpc_id);
	/* Leave the server: no callback fires after this; the transport
	 * finishes closing on its own (stdin EOF and the kill sequence, a
	 * DELETE) and frees itself. */
	void (*close)(struct transport *t);
	/* The process id, 0 when there is no process. */
	int (*pid)(const struct transport *t);
	/* The name status shows, when it is not always name: of t, or (t
	 * NULL, after the transport left) of the next start from conf. May
	 * be NULL. */
	const char *(*name_of)(const struct transport *t,
			       const struct mcp_server_conf *conf);
};

extern const struct transport_ops stdio_transport;
extern const struct transport_ops http_transport;
extern const struct transport_ops sse_transport;
extern const struct transport_ops fallback_transport;

/* The HTTP module's side of authorization (oauth.c), reached by the core
 * through module_auth (module.c) for the auth file (spec 8). */
struct auth_ops {
	int (*init)(const struct transport_env *env);
	/* The auth file of conf's server: JSON and "\n", malloc'd. */
	char *(*json)(const struct mcp_server_conf *conf);
	/* A write to it: "login", "logout" or a pasted redirect URL; 0 or
	 * -EINVAL. */
	int (*write)(const struct mcp_server_conf *conf, const char *p,
		     size_t n);
	/* The authorization URL of a pending flow, malloc'd, or NULL. */
	char *(*url)(const struct mcp_server_conf *conf);
};
/* The one symbol the HTTP module mcpfs-http.so exports, named
 * TRANSPORT_MODULE_ENTRY: its tables. env_size is the size of struct
 * transport_env it was built with (a module of another build is
 * refused). */
struct transport_module {
	size_t env_size;
	const struct transport_ops *http;  /* Streamable HTTP */
	const struct transport_ops *sse;   /* HTTP+SSE (2024-11-05) */
	const struct auth_ops *auth;
};
#define TRANSPORT_MODULE_ENTRY "mcpfs_module"

/* The module's auth table, loaded and set up once; NULL with err. */
const struct auth_ops *module_auth(const struct transport_env *env,
				   char *err, size_t errlen);
/* The environment transport_setup was given. */
const struct transport_env *transport_env_get(void);

/* transport.c: the table of transports. */
void transport_setup(const struct transport_env *env);
/* The transport of a config entry. */
const struct transport_ops *transport_for(const struct mcp_server_conf *conf);
/* The name status shows for t (NULL when none is attached) of ops (NULL
 * before the first start), from conf: "stdio", "http" or "sse". */
const char *transport_name(const struct transport_ops *ops,
			   const struct transport *t,
			   const struct mcp_server_conf *conf);
/* ops->start, after ops->init the first time ops is used. */
int transport_start(const struct transport_ops *ops,
		    const struct mcp_server_conf *conf,
		    const struct transport_up *up, void *ctx,
		    struct transport **out, char *err, size_t errlen);
/* ops->fini of every transport that was initialized. */
void transport_fini_all(void);

#endif
