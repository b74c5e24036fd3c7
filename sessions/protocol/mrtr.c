/*
 * mrtr.c - multi round-trip requests (MCP 2026-07-28, basic/patterns/
 * mrtr.mdx): a modern server that needs the user's input answers a
 * tools/call, prompts/get or resources/read with
 *   {"resultType": "input_required", "inputRequests": {KEY: {method,
 *    params}, ...}, "requestState": S}
 * and mcpfs, not the reader of call, does the rest: each elicitation or
 * sampling request becomes a question in requests/ exactly as a legacy
 * server's own request does (ask.c, spec 10), a roots/list is answered at
 * once from the config entry, and once every one has its answer the
 * original request is sent again with a new JSON-RPC id, params
 * "inputResponses" {KEY: result, ...} and the requestState echoed as it
 * came (absent when it did not come). The reader of call sees only the
 * final result. The call's timer runs over every round: when it fires
 * (or the call is cancelled) the call's open questions are dropped.
 *
 * An input request mcpfs cannot answer (another method, a sampling
 * request declined or unanswered) fails the call with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "gbuf.h"
#include "internal.h"
#include "jscan.h"
#include "jsent.h"
#include "mrtr.h"
#include "policy.h"

#define MRTR_ROUNDS_MAX 16

/* A call's input rounds (mcp_call.mrtr), made at its first. */
struct mrtr {
	cJSON *resp;     /* inputResponses so far */
	cJSON *state;    /* the requestState to echo, or NULL */
	unsigned open;   /* input requests unanswered */
	unsigned rounds; /* input_required results so far */
	int loop;        /* opening this round's questions */
	void (*all)(mcp_call *c); /* once every one is answered */
};

/* c's rounds, made at the first (NULL when out of memory). */
static struct mrtr *mrtr_of(mcp_call *c)
{
	if (!c->mrtr)
		c->mrtr = calloc(1, sizeof *c->mrtr);
	return c->mrtr;
}

cJSON *mrtr_answers(mcp_call *c)
{
	cJSON *r = c->mrtr ? c->mrtr->resp : NULL;

	if (r)
		c->mrtr->resp = NULL;
	return r;
}

int mrtr_waiting(const mcp_call *c)
{
	return c->mrtr && c->mrtr->open;
}

void mrtr_free(mcp_call *c)
{
	if (!c->mrtr)
		return;
	cJSON_Delete(c->mrtr->resp);
	cJSON_Delete(c->mrtr->state);
	free(c->mrtr);
	c->mrtr = NULL;
}

/* The progress token of c (its token without the quotes). */
static void token_of(const mcp_call *c, char *out, size_t n)
{
	size_t len = strlen(c->token);

	if (len >= 2 && c->token[0] == '"')
		snprintf(out, n, "%.*s", (int)(len - 2), c->token + 1);
	else
		snprintf(out, n, "%s", c->token);
}

/* The request again: a new id, inputResponses and the requestState. */
static void retry(mcp_call *c)
{
	mcp_session *s = c->s;
	struct jscan_span params = {0, 0};
	struct gbuf o = {0};
	char tok[48], *line, *resp, *state = NULL;
	size_t n;
	uint64_t id;

	if (policy_refuse(s, c, s->lists[MCP_TOOLS] ? s->lists[MCP_TOOLS]
						    : s->srv->lists[MCP_TOOLS], 1))
		return; /* the policy changed on a reload meanwhile */
	token_of(c, tok, sizeof tok);
	id = s->next_id++;
	line = mcp_request_line(c->line, &c->req, id, tok[0] ? tok : NULL, &n);
	resp = jsent_print(c->mrtr->resp, 0, NULL);
	if (c->mrtr->state)
		state = jsent_print(c->mrtr->state, 0, NULL);
	if (line) {
		struct jscan_span top = {0, n};

		jscan_member(line, top, "params", &params);
	}
	if (!line || !resp || (c->mrtr->state && !state) || !params.n ||
	    line[params.at] != '{' || gbuf_reserve(&o, n + strlen(resp) +
						   (state ? strlen(state) : 0) +
						   64) < 0) {
		free(line);
		free(resp);
		free(state);
		call_fail(c, -32603, "cannot build the retry of an "
			  "input_required request", NULL);
		return;
	}
	gbuf_add(&o, line, params.at + 1);
	gbuf_add(&o, "\"inputResponses\":", 17);
	gbuf_add(&o, resp, strlen(resp));
	if (state) {
		gbuf_add(&o, ",\"requestState\":", 16);
		gbuf_add(&o, state, strlen(state));
	}
	if (line[params.at + 1] != '}')
		gbuf_add(&o, ",", 1);
	gbuf_add(&o, line + params.at + 1, n - params.at - 1);
	free(line);
	free(resp);
	free(state);
	call_untrack(s, c);
	mlog(MLOG_INFO, "server %s thread %s: request %llu retried as %llu "
	     "with its input responses", s->srv->conf->name,
	     s->oneshot ? "(one-shot)" : s->name,
	     (unsigned long long)c->rpc_id, (unsigned long long)id);
	c->rpc_id = id;
	if (call_track(s, c) < 0) {
		gbuf_free(&o);
		return;
	}
	n = o.len;
	session_send(s, gbuf_take(&o), n, id);
}

static void answered(void *ctx, const char *key, cJSON *res, cJSON *err)
{
	mcp_call *c = ctx;
	cJSON *msg;
	char why[300];

	if ((!res && !err) || c->done || !c->s || !c->mrtr || !c->mrtr->resp) {
		cJSON_Delete(res);
		cJSON_Delete(err);
		mcp_call_unref(c);
		return;
	}
	if (err) {
		msg = cJSON_GetObjectItemCaseSensitive(err, "message");
		snprintf(why, sizeof why, "input request %.60s not answered: "
			 "%.200s", key, cJSON_IsString(msg) ? msg->valuestring
							  : "error");
		cJSON_Delete(err);
		cJSON_Delete(res);
		call_fail(c, -32603, why, NULL);
		mcp_call_unref(c);
		return;
	}
	cJSON_AddItemToObject(c->mrtr->resp, key, res ? res :
			      cJSON_CreateObject());
	if (c->mrtr->open && !--c->mrtr->open && !c->mrtr->loop)
		c->mrtr->all(c);
	mcp_call_unref(c);
}

int mrtr_ask(mcp_session *s, mcp_call *c, const cJSON *reqs,
	     void (*all)(mcp_call *c))
{
	cJSON *r, *meth;
	char why[200];

	if (!mrtr_of(c)) {
		call_complete(c, NULL); /* out of memory */
		return 1;
	}
	cJSON_Delete(c->mrtr->resp);
	c->mrtr->resp = cJSON_CreateObject();
	c->mrtr->all = all;
	c->mrtr->loop = 1;
	c->mrtr->open = 0;
	cJSON_ArrayForEach(r, reqs) {
		meth = cJSON_GetObjectItemCaseSensitive(r, "method");
		if (!r->string || !cJSON_IsString(meth))
			continue;
		if (!strcmp(meth->valuestring, "roots/list")) {
			cJSON_AddItemToObject(c->mrtr->resp, r->string,
					      msg_roots(s->srv->conf));
		} else if (!strcmp(meth->valuestring, "elicitation/create") ||
			   !strcmp(meth->valuestring,
				   "sampling/createMessage")) {
			c->mrtr->open++;
			ask_input(s, meth->valuestring, r->string,
				  cJSON_GetObjectItemCaseSensitive(r, "params"),
				  answered, mcp_call_ref(c));
		} else {
			snprintf(why, sizeof why, "mcpfs does not support the "
				 "input request %.100s", meth->valuestring);
			c->mrtr->loop = 0;
			ask_drop_ctx(s, c, why);
			call_fail(c, -32601, why, NULL);
			return 1;
		}
		if (c->done)
			break;
	}
	c->mrtr->loop = 0;
	if (!c->done && !c->mrtr->open)
		all(c);
	return c->done;
}

int mrtr_result(mcp_session *s, mcp_call *c, cJSON *res)
{
	cJSON *rt = cJSON_GetObjectItemCaseSensitive(res, "resultType");
	cJSON *st;

	if (!cJSON_IsString(rt) || strcmp(rt->valuestring, "input_required"))
		return 0;
	if (!mrtr_of(c)) {
		call_complete(c, NULL); /* out of memory */
		return 1;
	}
	if (!c->line || c->mrtr->open) {
		call_fail(c, ERR_PROTOCOL, "input_required for a request mcpfs "
			  "cannot retry", NULL);
		return 1;
	}
	if (++c->mrtr->rounds > MRTR_ROUNDS_MAX) {
		call_fail(c, ERR_PROTOCOL, "the server asked for input more "
			  "than 16 times for one request", NULL);
		return 1;
	}
	cJSON_Delete(c->mrtr->state);
	st = cJSON_GetObjectItemCaseSensitive(res, "requestState");
	c->mrtr->state = st ? cJSON_Duplicate(st, 1) : NULL;
	mrtr_ask(s, c, cJSON_GetObjectItemCaseSensitive(res, "inputRequests"),
		 retry);
	return 1;
}
