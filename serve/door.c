/*
 * door.c - the HTTP door's loader (spec 14): serve.h's serve_http_check,
 * serve_http_start and serve_http_stop, forwarded to the module
 * mcpfs-serve.so (door.h), which holds libmicrohttpd and what it brings
 * (GnuTLS, p11-kit, nettle, libunistring: about 3 MiB of RSS). An mcpfs
 * without --serve never loads it, nor does `mcpfs --mcpfs-exec`.
 *
 * The module is loaded by serve_http_check, before the mount, so that a
 * module that cannot be loaded is an error on stderr and exit 1 (no mount
 * without the door it was asked for). It is looked for beside the mcpfs
 * binary (the build tree), then in MCPFS_MODULE_DIR (where meson installs
 * it), as the HTTP client's module (sessions/transport/module.c); the
 * first one there is the one loaded, or its error is the one told.
 */
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "buildconfig.h"
#include "door.h"
#include "mlog.h"
#include "sessions.h"

static const struct door_module *door;

/* DOOR_MODULE in dir: its handle, NULL with *found when it is there but
 * cannot be loaded (err says why). */
static void *try_open(const char *dir, int *found, char *err, size_t n)
{
	char path[PATH_MAX + 32];
	void *h;

	snprintf(path, sizeof path, "%s/" DOOR_MODULE, dir);
	if (access(path, F_OK) < 0)
		return NULL;
	*found = 1;
	if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
		snprintf(err, n, "cannot load the HTTP door %s", dlerror());
	return h;
}

/* The module's entry, loaded once; NULL with err set. */
static const struct door_module *load(char *err, size_t n)
{
	char exe[PATH_MAX];
	const struct door_module *m;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	int found = 0;
	void *h = NULL;

	if (door)
		return door;
	if (len > 0) {
		exe[len] = 0;
		h = try_open(dirname(exe), &found, err, n);
	}
	if (!h && !found)
		h = try_open(MCPFS_MODULE_DIR, &found, err, n);
	if (!h && !found)
		snprintf(err, n, "cannot load the HTTP door: no " DOOR_MODULE
			 " beside mcpfs nor in " MCPFS_MODULE_DIR);
	if (!h)
		return NULL;
	m = dlsym(h, DOOR_MODULE_ENTRY);
	if (!m || m->env_size != sizeof(struct door_env)) {
		snprintf(err, n, "cannot load the HTTP door: " DOOR_MODULE
			 " is %s", m ? "of another build of mcpfs"
			 : "no mcpfs module");
		dlclose(h);
		return NULL;
	}
	return door = m;
}

int serve_http_check(const char *addr, int remote, char *err, size_t n)
{
	const struct door_module *m = load(err, n);

	return m ? m->check(addr, remote) : -ENOEXEC;
}

int serve_http_start(uv_loop_t *loop, const struct serve_http_opts *o)
{
	struct door_env env = {
		.loop = loop,
		.log = mlogv,
		.peer_open = serve_peer_new,
		.peer_put = serve_peer_input,
		.peer_cancel = serve_peer_drop,
		.peer_close = serve_peer_end,
		.thread_check = mcp_thread_name_check,
		.client_entry = mcp_set_client_entry,
		.scope_check = serve_scope_check,
		.scope_refusal = serve_scope_refusal,
		.peer_scope = serve_peer_scope,
		.version_at = mcp_version_at,
		.versions_spoken = MCP_VERSIONS_SPOKEN,
	};

	return door ? door->start(&env, o) : -ENOEXEC;
}

void serve_http_stop(void)
{
	if (door)
		door->stop();
}
