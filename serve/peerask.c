/*
 * peerask.c - a server's questions (elicitation, sampling) to the serve
 * client of its thread that declared the capability (spec 14): sent on
 * the stream of the call that asked, its answer checked as a shell's
 * would be, and withdrawn from the client (with the server's reason)
 * when the question ends otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsent.h"
#include "mlog.h"
#include "peer.h"
#include "scope.h"

#define ASK_ID "mcpfs-ask-"

static int asked_slot(struct serve_peer *p, uint64_t id)
{
	int i;

	for (i = 0; i < MAX_ASKED; i++)
		if (p->asked[i] == id)
			return i;
	return -1;
}

/* The client's answer m to question ASK_ID N: the question's answer (it
 * is checked as a shell's would be; one that does not fit leaves the
 * question for the shell, logged). An error answer leaves it too. */
void peer_answered(struct serve_peer *p, cJSON *m)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
	cJSON *res = cJSON_GetObjectItemCaseSensitive(m, "result");
	struct mcp_stat qs;
	uint64_t qid;
	mcp_ask *q;
	size_t tn = 0;
	char *t;
	int k;

	if (!cJSON_IsString(id) || strncmp(id->valuestring, ASK_ID, 10))
		return;
	qid = strtoull(id->valuestring + 10, NULL, 10);
	if ((k = asked_slot(p, qid)) < 0 ||
	    mcp_lookup(qid, MCP_QUESTION, &qs) < 0)
		return;
	q = qs.ask;
	p->asked[k] = 0;
	if (!res) { /* an error: the question stays, saying so */
		cJSON *e = cJSON_GetObjectItemCaseSensitive(m, "error");
		cJSON *em = cJSON_GetObjectItemCaseSensitive(e, "message");
		char why[400];

		snprintf(why, sizeof why, "the MCP client of thread %s answered "
			 "with an error: %.200s", p->thread, cJSON_IsString(em)
			 ? em->valuestring : "(no message)");
		mcp_ask_answer(q, NULL, 0, why);
		return;
	}
	t = jsent_print(res, 0, &tn); /* numbers and NULs as sent */
	if (t && mcp_ask_answer(q, t, tn, NULL) < 0)
		mlog(MLOG_INFO, "serve: the client's answer to question %s of "
		     "thread %s does not fit it: it stays in requests/",
		     qs.name, p->thread);
	free(t);
}

/* A question event of the thread s (an "mcpfs/request" line): a question
 * that ends otherwise than by its client's answer (the shell answered, it
 * expired, the server went) is withdrawn from the client that has it. The
 * event comes while the question is still there. */
void peer_question(const struct mcp_stat *s, cJSON *params)
{
	cJSON *n = cJSON_GetObjectItemCaseSensitive(params, "request");
	cJSON *st = cJSON_GetObjectItemCaseSensitive(params, "state");
	cJSON *why = cJSON_GetObjectItemCaseSensitive(params, "reason");
	struct mcp_stat q;
	struct serve_peer *p;
	char msg[160];
	int k;

	if (!cJSON_IsNumber(n) || !cJSON_IsString(st) ||
	    !strcmp(st->valuestring, "open"))
		return;
	snprintf(msg, sizeof msg, "%lu", (unsigned long)n->valuedouble);
	if (mcp_walk(s->id, msg, &q) < 0)
		return;
	LIST_FOREACH(p, &serve_peers, link) {
		cJSON *m, *mp;

		if ((k = asked_slot(p, q.id)) < 0)
			continue;
		snprintf(msg, sizeof msg, ASK_ID "%llu",
			 (unsigned long long)p->asked[k]);
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "jsonrpc", "2.0");
		cJSON_AddStringToObject(m, "method", "notifications/cancelled");
		mp = cJSON_AddObjectToObject(m, "params");
		cJSON_AddStringToObject(mp, "requestId", msg);
		if (cJSON_IsString(why)) /* the server's, when it withdrew */
			cJSON_AddStringToObject(mp, "reason", why->valuestring);
		peer_send_json(p, m, p->asked_tag[k], 0);
		cJSON_Delete(m);
		p->asked[k] = 0;
	}
}

/* A question q just opened, with the server's own params: to a client of
 * its thread that declared the capability (one gets it), on the stream of
 * its call there; else it waits in requests/ as for any call. */
void peer_asked(const struct mcp_stat *q, const char *params, size_t len)
{
	struct mcp_stat s = { .name = "" };
	mcp_buf *b = mcp_doc(MCP_DOC_QUESTION, q->ask, 0);
	cJSON *body = b ? cJSON_ParseWithLength(b->data, b->len) : NULL;
	cJSON *x = cJSON_GetObjectItemCaseSensitive(body, "method");
	char *method = cJSON_IsString(x) ? strdup(x->valuestring) : NULL;
	uint64_t sid = q->thread_id;
	struct serve_peer *p;
	struct job *j;
	char *m;
	int k;

	mcp_lookup(sid, MCP_THREAD, &s);
	mcp_buf_unref(b);
	cJSON_Delete(body);
	LIST_FOREACH(p, &serve_peers, link) {
		uint64_t tag = 0;

		if (!method || !p->out->asks ||
		    strcmp(p->thread, s.name) ||
		    !scope_sees_id(p, q->server_id) ||
		    !((p->elicit && !strcmp(method, "elicitation/create")) ||
		      (p->sample && !strcmp(method,
					    "sampling/createMessage"))) ||
		    (k = asked_slot(p, 0)) < 0)
			continue;
		LIST_FOREACH(j, &p->jobs, link) /* the call it belongs to */
			if (j->kind == J_CALL && j->sess_id == sid) {
				tag = j->tag;
				break;
			}
		m = malloc(len + strlen(method) + 96);
		if (!m)
			break;
		k = asked_slot(p, 0);
		p->asked[k] = q->id;
		p->asked_tag[k] = tag;
		sprintf(m, "{\"jsonrpc\":\"2.0\",\"id\":\"" ASK_ID "%llu\","
			"\"method\":\"%s\",\"params\":%.*s}",
			(unsigned long long)q->id, method, (int)len,
			params);
		mlog(MLOG_INFO, "serve: question %s of thread %s sent to its "
		     "client", q->name, p->thread);
		peer_send_text(p, m, strlen(m), tag, 0);
		free(m);
		break;
	}
	free(method);
}
