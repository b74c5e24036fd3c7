/*
 * module.c - the HTTP transports live in a module, mcpfs-http.so, loaded
 * the first time a session starts over HTTP: libcurl and everything it
 * brings (TLS, HTTP/2, GSSAPI, LDAP, ...: about 6 MiB of mapped and
 * relocated libraries) then costs nothing to an mcpfs that only runs stdio
 * servers. The core sees ordinary ops tables (http_transport and
 * sse_transport here); each forwards to the module's table once loaded.
 * Loading is a dlopen on the loop thread, once per process (a few
 * milliseconds of file I/O).
 *
 * The boundary is an interface: the module exports one symbol, its
 * struct transport_module (TRANSPORT_MODULE_ENTRY), and reaches the core
 * only through the struct transport_env its tables' init get (the log,
 * the auth note, config copies); mcpfs exports nothing to it.
 *
 * The module is looked for next to the mcpfs binary (the build directory),
 * then in MCPFS_MODULE_DIR (where meson installs it). A module that cannot
 * be loaded fails that start with dlerror's message; the next start tries
 * again.
 */
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildconfig.h"
#include "transport.h"

#define MODULE "mcpfs-http.so"

static void *handle;
static const struct transport_module *entry;
static const struct transport_env *menv;
static char load_error[200];

static void *try_open(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/" MODULE, dir);
	return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

/* The module's entry, loading the module first; NULL with load_error
 * set. */
static const struct transport_module *load(void)
{
	const struct transport_module *m;

	if (entry)
		return entry;
	if (!handle) {
		char *exe = strdup(menv->self_exe ? menv->self_exe : ".");

		handle = exe ? try_open(dirname(exe)) : NULL;
		free(exe);
		if (!handle)
			handle = try_open(MCPFS_MODULE_DIR);
		if (!handle) {
			snprintf(load_error, sizeof load_error,
				 "cannot load the HTTP module " MODULE ": %s",
				 dlerror());
			return NULL;
		}
	}
	m = dlsym(handle, TRANSPORT_MODULE_ENTRY);
	if (!m) {
		snprintf(load_error, sizeof load_error, "HTTP module: %s",
			 dlerror());
		return NULL;
	}
	if (m->env_size != sizeof(struct transport_env)) {
		snprintf(load_error, sizeof load_error, "HTTP module " MODULE
			 " is of another build of mcpfs");
		return NULL;
	}
	entry = m;
	return m;
}

/* One forwarding table per transport of the module. */
#define MODULE_TRANSPORT(var, tname, caps_, member)                                   \
	static const struct transport_ops *var##_real;                       \
	static int var##_init(const struct transport_env *env)               \
	{                                                                    \
		menv = env;                                                  \
		return 0;                                                    \
	}                                                                    \
	static void var##_fini(void)                                         \
	{                                                                    \
		if (var##_real && var##_real->fini)                          \
			var##_real->fini();                                  \
	}                                                                    \
	static int var##_start(const struct mcp_server_conf *conf,           \
			       const struct transport_up *up, void *ctx,     \
			       struct transport **out, char *err,            \
			       size_t errlen)                                \
	{                                                                    \
		int r;                                                       \
									     \
		if (!var##_real) {                                           \
			const struct transport_module *m = load();           \
			const struct transport_ops *o = m ? m->member : NULL;\
									     \
			if (!o) {                                            \
				snprintf(err, errlen, "%s", load_error);     \
				return -ENOEXEC;                             \
			}                                                    \
			r = o->init ? o->init(menv) : 0;                     \
			if (r < 0) {                                         \
				snprintf(err, errlen, "cannot set up the "   \
					 "%s transport", tname);             \
				return r;                                    \
			}                                                    \
			var##_real = o;                                      \
		}                                                            \
		return var##_real->start(conf, up, ctx, out, err, errlen);   \
	}                                                                    \
	static void var##_send(struct transport *t, char *line, size_t len,  \
			       uint64_t rpc_id)                              \
	{                                                                    \
		var##_real->send(t, line, len, rpc_id);                      \
	}                                                                    \
	static void var##_send_hdrs(struct transport *t, char *line,         \
				   size_t len, uint64_t rpc_id, char **hdrs) \
	{                                                                    \
		size_t i;                                                    \
									     \
		if (var##_real->send_hdrs) {                                 \
			var##_real->send_hdrs(t, line, len, rpc_id, hdrs);   \
			return;                                              \
		}                                                            \
		for (i = 0; hdrs && hdrs[i]; i++)                            \
			free(hdrs[i]);                                       \
		free(hdrs);                                                  \
		var##_real->send(t, line, len, rpc_id);                      \
	}                                                                    \
	static void var##_ready(struct transport *t, const char *protocol)   \
	{                                                                    \
		if (var##_real->ready)                                       \
			var##_real->ready(t, protocol);                      \
	}                                                                    \
	static void var##_forget(struct transport *t, uint64_t rpc_id)       \
	{                                                                    \
		if (var##_real->forget)                                      \
			var##_real->forget(t, rpc_id);                       \
	}                                                                    \
	static void var##_close(struct transport *t)                         \
	{                                                                    \
		var##_real->close(t);                                        \
	}                                                                    \
	static int var##_pid(const struct transport *t)                      \
	{                                                                    \
		return var##_real->pid(t);                                   \
	}                                                                    \
	const struct transport_ops var = {                                   \
		.name = tname, .caps = caps_,                                \
		.init = var##_init, .fini = var##_fini,                      \
		.start = var##_start, .send = var##_send,                    \
		.send_hdrs = var##_send_hdrs,                                \
		.ready = var##_ready, .forget = var##_forget,                \
		.close = var##_close, .pid = var##_pid,                      \
	}

MODULE_TRANSPORT(http_transport, "http",
		 TRANSPORT_EXCHANGES | TRANSPORT_SESSIONS, http);
MODULE_TRANSPORT(sse_transport, "sse",
		 TRANSPORT_SESSIONS | TRANSPORT_HANDSHAKE_ONLY, sse);

/* The module's auth table (oauth.c), loaded with the module and set up
 * once. */
const struct auth_ops *module_auth(const struct transport_env *env,
				   char *err, size_t errlen)
{
	static const struct auth_ops *auth_real;
	const struct auth_ops *a;

	if (auth_real)
		return auth_real;
	if (!menv)
		menv = env;
	a = load() ? entry->auth : NULL;
	if (!a) {
		snprintf(err, errlen, "%s", load_error);
		return NULL;
	}
	if (a->init && a->init(env) < 0) {
		snprintf(err, errlen, "cannot set up the HTTP client");
		return NULL;
	}
	auth_real = a;
	return a;
}
