/*
 * handshake.c - how a start of a session begins its protocol: the
 * initialize request of the legacy era, or the server/discover probe of
 * the modern era (2026-07-28) and what follows its answer (era.c sorts
 * it): ready in the modern era, a retry after
 * UnsupportedProtocolVersionError, or the fallback to initialize. The
 * session core (session.c) calls these and acts on what they return; the
 * reply to initialize stays session.c's.
 *
 * Once a thread is ready in the modern era, hs_listen opens
 * subscriptions/listen (basic/patterns/subscriptions.mdx) for the
 * list_changed notifications the server's capabilities offer. It is never
 * answered while it lasts, so it is not a call: its notifications go
 * through inbound.c like a legacy server's (a line in events each; a
 * tools, prompts or resources list_changed drops the cached listing), and
 * the completion result that ends it gracefully is dropped as the reply
 * to an id no call has. Over HTTP its response is an SSE stream that stays
 * open (http.c reads a POST's events as they come). Resource updates
 * (resourceSubscriptions) are not asked for: mcpfs subscribes to no
 * resource in either era.
 */
#include <stdio.h>

#include "ask.h"
#include "era.h"
#include "internal.h"

/* c, a new handshake request of s, awaits its reply (s->init): 0, or
 * -ENOMEM when it cannot be kept (then c is dropped). */
static int hs_register(mcp_session *s, mcp_call *c)
{
	c->rpc_id = s->next_id++;
	if (idtab_put(&s->pending, c->rpc_id, c) < 0) {
		c->done = 1;
		c->s = NULL;
		uv_timer_stop(&c->timer);
		mcp_call_unref(c);
		return -ENOMEM;
	}
	s->init = c;
	return 0;
}

int hs_initialize(mcp_session *s)
{
	mcp_call *c = call_new(CALL_INIT, s->srv, s);
	cJSON *m;

	if (!c || hs_register(s, c) < 0)
		return -ENOMEM;
	s->era = MCP_ERA_LEGACY;
	s->ask_caps = ask_caps_of(s->srv->conf);
	m = msg_initialize(c->rpc_id, s->srv->conf);
	session_send_json(s, m, c->rpc_id);
	cJSON_Delete(m);
	return 0;
}

static int send_probe(mcp_session *s)
{
	const struct mcp_server_conf *conf = s->srv->conf;
	mcp_call *c = call_new(CALL_INIT, s->srv, s);
	cJSON *m;

	if (!c || hs_register(s, c) < 0)
		return -ENOMEM;
	c->probe = 1;
	s->probing = 1;
	s->probes++;
	/* stdio: a legacy server may never answer (an exchange of HTTP
	 * gets a status instead); a forced modern one gets the whole
	 * timeout */
	if (!(s->ops->caps & TRANSPORT_EXCHANGES) &&
	    conf->era == MCP_ERA_AUTO &&
	    (c->timeout <= 0 || c->timeout > ERA_PROBE_SECS)) {
		c->timeout = ERA_PROBE_SECS;
		call_progress(c); /* restarts its timer at that */
	}
	s->ask_caps = ask_caps_of(conf);
	m = msg_request(c->rpc_id, "server/discover");
	session_send_json(s, m, c->rpc_id); /* with the modern _meta */
	cJSON_Delete(m);
	return 0;
}

int hs_start(mcp_session *s)
{
	int e = era_first(s);

	s->era = MCP_ERA_AUTO;
	s->probing = 0;
	s->probes = 0;
	s->protocol[0] = 0;
	return e == MCP_ERA_LEGACY ? hs_initialize(s) : send_probe(s);
}

int hs_probe_done(mcp_session *s, mcp_call *c, cJSON *msg, char *why,
		  size_t n)
{
	const struct mcp_server_conf *conf = s->srv->conf;
	int v;

	call_untrack(s, c);
	c->done = 1;
	uv_timer_stop(&c->timer);
	s->init = NULL;
	s->probing = 0;
	mcp_call_unref(c);
	if (msg) {
		v = era_probe_verdict(s, msg, why, n);
	} else {
		v = conf->era == MCP_ERA_MODERN ? ERA_FAIL : ERA_FALLBACK;
		if (!why[0])
			snprintf(why, n, "no answer to server/discover");
	}
	if (v == ERA_RETRY && s->probes < ERA_PROBES_MAX) {
		mlog(MLOG_INFO, "server %s thread %s: %s; retrying with %s",
		     conf->name, s->oneshot ? "(one-shot)" : s->name, why,
		     ERA_VERSION);
		if (send_probe(s) == 0)
			return 0;
		snprintf(why, n, "out of memory");
		return -1;
	}
	if (v == ERA_FALLBACK) {
		mlog(MLOG_INFO, "server %s thread %s: legacy server (%s); "
		     "sending initialize", conf->name,
		     s->oneshot ? "(one-shot)" : s->name, why);
		era_learned(s, MCP_ERA_LEGACY);
		if (hs_initialize(s) == 0)
			return 0;
		snprintf(why, n, "out of memory");
		return -1;
	}
	if (v != ERA_OK)
		return -1;
	s->era = MCP_ERA_MODERN;
	era_learned(s, MCP_ERA_MODERN);
	return 1;
}

/* 1 if capability cap of s says listChanged. */
static int list_changes(const mcp_session *s, const char *cap)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(s->capabilities, cap),
		"listChanged"));
}

void hs_listen(mcp_session *s)
{
	static const char *const caps[] = {"tools", "prompts", "resources"};
	static const char *const keys[] = {"toolsListChanged",
					   "promptsListChanged",
					   "resourcesListChanged"};
	cJSON *m, *f = NULL;
	uint64_t id;
	int i;

	if (s->era != MCP_ERA_MODERN || s->oneshot)
		return;
	for (i = 0; i < 3; i++) {
		if (!list_changes(s, caps[i]))
			continue;
		if (!f)
			f = cJSON_CreateObject();
		cJSON_AddTrueToObject(f, keys[i]);
	}
	if (!f)
		return;
	id = s->next_id++;
	m = msg_request(id, "subscriptions/listen");
	cJSON_AddItemToObject(cJSON_AddObjectToObject(m, "params"),
			      "notifications", f);
	mlog(MLOG_DEBUG, "server %s thread %s: subscriptions/listen as "
	     "request %llu", s->srv->conf->name, s->name,
	     (unsigned long long)id);
	session_send_json(s, m, id);
	cJSON_Delete(m);
}
