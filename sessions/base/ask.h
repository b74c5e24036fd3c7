/*
 * ask.h - the open questions of a session (ask.c): what session.c and
 * status.c call. fs/ sees questions through sessions.h (mcp_ask_*).
 */
#ifndef MCPFS_ASK_H
#define MCPFS_ASK_H

#include <cjson/cJSON.h>

#include "config.h"
#include "sessions.h"

/* What initialize declares (msg_initialize; mcp_session.ask_caps). */
enum { ASK_CAP_ELICIT = 1, ASK_CAP_SAMPLING = 2 };

/* The ASK_CAP_* of a config entry. */
unsigned ask_caps_of(const struct mcp_server_conf *conf);

/* An elicitation/create or sampling/createMessage from the server (id and
 * params borrowed; line, len bytes, is the message as it came, whose
 * numbers and strings the question shows as sent): becomes an open
 * question of s, or is answered at once (capability not declared, a
 * malformed question, a one-shot session). */
void ask_question(mcp_session *s, const char *method, cJSON *id,
		  cJSON *params, const char *line, size_t len);
/* Where the answer to an input request of an input_required result
 * (MRTR, 2026-07-28) goes: key is its key in inputRequests; res or err
 * (taken) is the answer; both NULL when the question went unanswered
 * (dropped, withdrawn: ask_drop_ctx, ask_drop_all). */
typedef void (*ask_done_fn)(void *ctx, const char *key, cJSON *res,
			    cJSON *err);
/* An input request (method elicitation/create or sampling/createMessage,
 * params borrowed) of an input_required result: a question as
 * ask_question makes, whose answer goes to done(ctx, key, ...) instead of
 * to the server (maybe at once, from inside this call). */
void ask_input(mcp_session *s, const char *method, const char *key,
	       cJSON *params, ask_done_fn done, void *ctx);
/* The call of ctx ended: drop its input requests' questions unanswered. */
void ask_drop_ctx(mcp_session *s, void *ctx, const char *why);
/* notifications/cancelled from the server (params borrowed): the question
 * of that requestId, if any, goes away unanswered. */
void ask_cancelled(mcp_session *s, cJSON *params);
/* The transport is gone (lost, restart, close): drop every question of s
 * without answering it. */
void ask_drop_all(mcp_session *s, const char *why);
/* live/observe.c: the question q (its stat) just opened with params
 * (borrowed): to the observer of mcp_observe, if any (which may answer q
 * at once). */
void ask_observed(const struct mcp_stat *q, const cJSON *params);

#endif
