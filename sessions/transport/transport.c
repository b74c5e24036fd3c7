/*
 * transport.c - the table of transports: which one serves a config entry,
 * and their process-wide set-up on first use and tear-down at shutdown.
 */
#include <errno.h>
#include <stdio.h>

#include "transport.h"

/* Every transport, at the type a config entry names it by (config.h). */
static const struct transport_ops *const all[] = {
	[MCP_TRANSPORT_STDIO] = &stdio_transport,
	[MCP_TRANSPORT_HTTP_OR_SSE] = &fallback_transport,
	[MCP_TRANSPORT_HTTP] = &http_transport,
	[MCP_TRANSPORT_SSE] = &sse_transport,
};
#define NALL (sizeof all / sizeof all[0])

static struct transport_env env;
static int inited[NALL];

const struct transport_env *transport_env_get(void)
{
	return &env;
}

void transport_setup(const struct transport_env *e)
{
	env = *e;
}

const struct transport_ops *transport_for(const struct mcp_server_conf *conf)
{
	int t = conf->transport;

	if (!conf->url) /* a command */
		return all[MCP_TRANSPORT_STDIO];
	if (t < 0 || (size_t)t >= NALL || t == MCP_TRANSPORT_STDIO)
		t = MCP_TRANSPORT_HTTP_OR_SSE; /* a url, of no other type */
	return all[t];
}

const char *transport_name(const struct transport_ops *ops,
			   const struct transport *t,
			   const struct mcp_server_conf *conf)
{
	if (!ops)
		ops = transport_for(conf);
	return ops->name_of ? ops->name_of(t, conf) : ops->name;
}

static int slot_of(const struct transport_ops *ops)
{
	size_t i;

	for (i = 0; i < NALL; i++)
		if (all[i] == ops)
			return (int)i;
	return -1;
}

int transport_start(const struct transport_ops *ops,
		    const struct mcp_server_conf *conf,
		    const struct transport_up *up, void *ctx,
		    struct transport **out, char *err, size_t errlen)
{
	int i = slot_of(ops), r;

	if (i < 0) {
		snprintf(err, errlen, "unknown transport");
		return -EINVAL;
	}
	if (!inited[i]) {
		r = ops->init ? ops->init(&env) : 0;
		if (r < 0) {
			snprintf(err, errlen, "cannot set up the %s transport",
				 ops->name);
			return r;
		}
		inited[i] = 1;
	}
	return ops->start(conf, up, ctx, out, err, errlen);
}

void transport_fini_all(void)
{
	size_t i;

	for (i = 0; i < NALL; i++) {
		if (inited[i] && all[i]->fini)
			all[i]->fini();
		inited[i] = 0;
	}
}
