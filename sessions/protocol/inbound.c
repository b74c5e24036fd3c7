/*
 * inbound.c - what a server sends, for every transport, each message made
 * one compact line of JSON before it goes anywhere (spec 6: jcompact.h; a
 * batch split into its messages; a reply to no call in flight dropped):
 * replies to user calls passed through as the server wrote their result
 * (no cJSON parse or print; a long one keeps the frame's buffer), listing
 * pages (tools, resources, templates, prompts) handed to pages.c, other
 * replies and errors through cJSON, each with its numbers and strings kept
 * as sent (lib/jsent.h: spec 5, Fidelity), notifications (progress resets
 * the call's timer, list_changed drops a cached listing complete before
 * it, each one is a line in events) and the server's own requests, which
 * client.c answers. The reply to the handshake goes back to the session
 * core, which set it up in inbound_setup.
 */
#include <stdlib.h>
#include <string.h>

#include "ask.h"
#include "bigmem.h"
#include "era.h"
#include "internal.h"
#include "jcompact.h"
#include "jscan.h"
#include "jsent.h"
#include "mrtr.h"
#include "pages.h"
#include "stream.h"
#include "task.h"

/* Replies at least this long are passed through after a check of their
 * structure only; shorter ones are checked to be valid JSON first. */
#define FAST_REPLY_MIN (256 * 1024)

static void (*handshake)(mcp_session *s, mcp_call *c, cJSON *msg);

void inbound_setup(void (*h)(mcp_session *s, mcp_call *c, cJSON *msg))
{
	handshake = h;
}

/* A line skipped: logged, but a server that writes thousands gets a few
 * lines and then one "... N more" now and then (log.c, spec 6). */
static void junk(mcp_session *s, const char *what, size_t len)
{
	char sum[300];

	snprintf(sum, sizeof sum, "server %s thread %s: skipped lines",
		 s->srv->conf->name, s->name[0] ? s->name : "(one-shot)");
	if (mlog_limit(&s->junk, MLOG_WARN, sum))
		mlog(MLOG_WARN, "server %s: skipped %s (%zu bytes)",
		     s->srv->conf->name, what, len);
}

static void progress_for(mcp_session *s, cJSON *params)
{
	cJSON *tok = cJSON_GetObjectItemCaseSensitive(params, "progressToken");
	char *t;
	size_t pos = 0;
	mcp_call *c;

	if (!tok)
		return;
	t = cJSON_PrintUnformatted(tok);
	if (!t)
		return;
	while ((c = idtab_next(&s->pending, &pos, NULL)) != NULL)
		if (!strcmp(c->token, t))
			call_progress(c);
	cJSON_free(t);
}

/*
 * list_changed: drop a cached listing that was complete before it. A
 * list still in flight is kept: on a stdio stream its reply comes after
 * the notification, so it has the change. (server-everything sends
 * list_changed as each process starts, during mcpfs's tools/list; dropping
 * that list made every read of the server-level tools.json start a fresh
 * one-shot process.)
 */
static void list_stale(mcp_call **slot)
{
	if (*slot && (*slot)->done)
		call_set_ref(slot, NULL);
}

/* line: the message as one compact line (inbound_line), so that it is
 * one line of events and one message to serve/ (spec 6) */
static void notification(mcp_session *s, const char *method, cJSON *msg,
			 const char *line, size_t len)
{
	ring_line(&s->events, line, len);
	session_observe(s, line, len); /* serve/ */
	if (!strcmp(method, "notifications/progress")) {
		progress_for(s, cJSON_GetObjectItemCaseSensitive(msg, "params"));
	} else if (!strcmp(method, "notifications/tools/list_changed")) {
		list_stale(&s->lists[MCP_TOOLS]);
		list_stale(&s->srv->lists[MCP_TOOLS]);
	} else if (!strcmp(method, "notifications/resources/list_changed")) {
		list_stale(&s->lists[MCP_RESOURCES]);
		list_stale(&s->lists[MCP_TEMPLATES]);
	} else if (!strcmp(method, "notifications/prompts/list_changed")) {
		list_stale(&s->lists[MCP_PROMPTS]);
	} else if (!strcmp(method, "notifications/cancelled")) {
		ask_cancelled(s, cJSON_GetObjectItemCaseSensitive(msg,
								  "params"));
	} else if (!strcmp(method, "notifications/tasks/status") ||
		   !strcmp(method, "notifications/tasks")) {
		task_notified(s, cJSON_GetObjectItemCaseSensitive(msg,
								  "params"));
	}
}

/* j, the member key of line's top-level object, made to print as sent
 * (jsent.h); j is then for printing only. */
static void keep_as_sent(cJSON *j, const char *line, size_t len,
			 const char *key)
{
	struct jscan_span v;

	if (j && jscan_top_member(line, len, key, &v))
		jsent_keep(j, line + v.at, v.n);
}

/*
 * A modern server refused a user's tools/call for its headers
 * (HeaderMismatch, -32020): the tool's inputSchema, which its Mcp-Param-*
 * headers come from, may have changed since mcpfs listed it. Once per
 * call the tools are listed again and the call is sent again
 * (streamable-http.mdx, Client Behavior); a second refusal is the reply.
 * 1 when c goes on.
 */
static int header_mismatch(mcp_session *s, mcp_call *c, const cJSON *err)
{
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(err, "code");

	if (s->era != MCP_ERA_MODERN || c->kind != CALL_USER || !c->tool ||
	    !c->line || c->relisted || !(s->ops->caps & TRANSPORT_EXCHANGES) ||
	    !cJSON_IsNumber(code) || code->valuedouble != -32020)
		return 0;
	c->relisted = 1;
	mlog(MLOG_INFO, "server %s: tools/call of %.100s refused for its "
	     "headers: listing the tools again, then sending it again",
	     s->srv->conf->name, c->tool);
	call_untrack(s, c); /* that exchange is over */
	c->rpc_id = 0;
	list_stale(&s->lists[MCP_TOOLS]); /* as a tools/list_changed does */
	list_stale(&s->srv->lists[MCP_TOOLS]);
	call_relisted(c);
	return 1;
}

static void response(mcp_session *s, cJSON *msg, const char *line,
		     size_t len)
{
	cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	cJSON *res = cJSON_GetObjectItemCaseSensitive(msg, "result");
	cJSON *err = cJSON_GetObjectItemCaseSensitive(msg, "error");
	mcp_call *c = NULL;

	if (cJSON_IsNumber(id) && id->valuedouble >= 1 &&
	    id->valuedouble < 9007199254740992.0)
		c = idtab_get(&s->pending, (uint64_t)id->valuedouble);
	if (!c) { /* never passed on (spec 6) */
		junk(s, "a reply to an id that is not pending", len);
		return;
	}
	if (c->kind == CALL_INIT) {
		handshake(s, c, msg);
		return;
	}
	if (pages_busy(c)) { /* its page is being read: a second reply */
		mlog(MLOG_DEBUG, "server %s: a second reply to a listing page "
		     "dropped", s->srv->conf->name);
		return;
	}
	if (err && c->kind == CALL_LIST) { /* "none" from here (spec 9) */
		session_list_note(s, c, err, NULL);
		pages_end(c);
		return;
	}
	if (err && header_mismatch(s, c, err))
		return;
	if (err) {
		keep_as_sent(err, line, len, "error");
		call_complete_error(c, err);
		return;
	}
	if (c->kind == CALL_LIST) {
		pages_got(s, c, res, line, len);
		return;
	}
	if ((c->task == TASK_ASKED || s->era == MCP_ERA_MODERN) &&
	    task_created(s, c, res))
		return;
	if (s->era == MCP_ERA_MODERN && c->kind != CALL_INIT &&
	    mrtr_result(s, c, res))
		return;
	keep_as_sent(res, line, len, "result");
	call_complete(c, mcp_buf_json(res ? res : cJSON_GetObjectItem(msg,
							"result"), 0));
}

/* ---- replies to user calls: the result passed through as sent ---- */

/*
 * A reply {"jsonrpc", "id": N, "result": R} found by its top-level
 * structure, in any member order and with any other members (which the
 * cJSON path would drop too): *id and the span of R (the first of
 * duplicate keys, as cJSON). Returns 0, or -1 for anything else: an
 * "error" or "method" member, an escaped key (which then takes the cJSON
 * path).
 */
/* The id at span v of p, a JSON-RPC id of mcpfs's (a positive integer):
 * 0, or -1 when it is not one. */
static int id_at(const char *p, struct jscan_span v, uint64_t *id)
{
	char num[24], *end;

	if (v.n >= sizeof num || p[v.at] < '1' || p[v.at] > '9')
		return -1;
	memcpy(num, p + v.at, v.n);
	num[v.n] = 0;
	*id = strtoull(num, &end, 10);
	return *end ? -1 : 0;
}

static int raw_reply(const char *p, size_t n, uint64_t *id, size_t *rs,
		     size_t *re, int *rws)
{
	struct jscan_members m;
	struct jscan_span k, v;
	int have_id = 0, have_res = 0;
	size_t i = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
			 p[i] == '\n'))
		i++;
	jscan_members_init(&m, p, i, n);
	while (jscan_members_next(&m, &k, &v)) {
		if (k.n == 4 && !memcmp(p + k.at, "\"id\"", 4)) {
			uint64_t u;

			if (id_at(p, v, &u) < 0)
				return -1;
			if (!have_id++)
				*id = u;
		} else if (k.n == 8 && !memcmp(p + k.at, "\"result\"", 8)) {
			if (!have_res++) {
				*rs = v.at;
				*re = v.at + v.n;
				*rws = m.ws;
			}
		} else if ((k.n == 7 && !memcmp(p + k.at, "\"error\"", 7)) ||
			   (k.n == 8 && !memcmp(p + k.at, "\"method\"", 8)) ||
			   memchr(p + k.at, '\\', k.n)) {
			return -1; /* not a plain reply, or a key to decode */
		} /* other members ("jsonrpc", extensions) are not kept */
	}
	return !m.bad && have_id && have_res ? 0 : -1;
}

/* 1 if the line is one valid JSON value. Checked below FAST_REPLY_MIN,
 * where that is cheap next to cJSON; above, the structure only. */
static int valid_line(const char *line, size_t len)
{
	struct jscan j;
	size_t used;
	int r;

	if (len >= FAST_REPLY_MIN)
		return 1;
	jscan_init(&j);
	r = jscan_feed(&j, line, len, &used);
	if (r == JSCAN_MORE)
		r = jscan_finish(&j);
	return r == JSCAN_DONE;
}

/*
 * Replies to user calls skip cJSON: the result as the server sent it, no
 * parse, no print. A long one stays where it was read: the frame's buffer
 * becomes the reply (the result is followed by at least the envelope's '}'
 * and the NUL, room for its newline and NUL). A short one is copied, so that
 * a kept reply holds no more memory than it needs.
 */
static size_t ws_end(const char *p, size_t i, size_t n)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
			 p[i] == '\n'))
		i++;
	return i;
}

/* 1 if the result at p[rs, re) is not final: "resultType" is
 * "input_required" (mrtr.c) or "task" (task.c), both through cJSON. */
static int not_final(const char *p, size_t rs, size_t re)
{
	struct jscan_span obj = {rs, re - rs}, v;

	return p[rs] == '{' && jscan_member(p, obj, "resultType", &v) &&
	       (jscan_str_is(p, v, "input_required") ||
		jscan_str_is(p, v, "task"));
}

/*
 * A reply whose result is not compact (spec 6): whitespace outside its
 * strings, or raw control bytes (which RFC 8259 refuses and cJSON takes).
 * The result as the server wrote it, made one compact line (jcompact.h):
 * valid JSON and, up to its first such byte, the very bytes a reader may
 * have read as it arrived (stream_partial stops there). 0 when c
 * completed, -1 for the cJSON path.
 */
static int compact_reply(mcp_session *s, mcp_call *c, const char *line,
			 size_t rs, size_t re, mcp_call *sc, size_t soff)
{
	char *e = NULL;
	size_t en = 0;
	mcp_buf *b;

	if (jcompact(line + rs, re - rs, &e, &en) != 1 ||
	    !jscan_is_value(e, en) ||
	    (s->era == MCP_ERA_MODERN && not_final(line, rs, re)) ||
	    (c == sc && rs + soff != sc->stream_at)) {
		free(e);
		return -1;
	}
	b = mcp_buf_new(NULL, en + 1);
	if (b) {
		memcpy(b->data, e, en);
		b->data[en] = '\n';
	}
	free(e);
	if (c == sc)
		c->stream_ok = 1;
	call_complete(c, b); /* NULL: an out of memory error */
	return 0;
}

static int fast_reply(mcp_session *s, struct frame *f, char *line,
		      size_t len, mcp_call *sc, size_t soff, int valid)
{
	uint64_t id = 0;
	size_t rs = 0, re = 0;
	mcp_call *c;
	mcp_buf *b = NULL;
	char *mem;
	int big = 0, ws = 0;

	if (raw_reply(line, len, &id, &rs, &re, &ws) < 0)
		return -1;
	c = idtab_get(&s->pending, id);
	if (c && c->kind == CALL_LIST && len >= FAST_REPLY_MIN)
		return pages_take(s, c, f, line, len, rs, re);
	if (!c || c->kind != CALL_USER || c->task == TASK_ASKED)
		return -1;
	/* compact: no space between its tokens (found by raw_reply's walk)
	 * and no control byte (jcompact_is, without a second walk) */
	if (ws || jcompact_control(line + rs, 0, re - rs) < re - rs)
		return compact_reply(s, c, line, rs, re, sc, soff);
	if (!valid && !valid_line(line, len))
		return -1;
	if (s->era == MCP_ERA_MODERN && not_final(line, rs, re))
		return -1; /* mrtr.c or task.c, through the cJSON path */
	if (c == sc) {
		if (rs + soff != sc->stream_at)
			return -1; /* not the bytes that were read */
		c->stream_ok = 1;
	}
	if (f && len >= FAST_REPLY_MIN &&
	    (mem = frame_take(f, &big)) != NULL) {
		line[re] = '\n';
		line[re + 1] = '\0';
		b = mcp_buf_wrap(mem, big, (size_t)(line + rs - mem),
				 re - rs + 1);
		if (!b && big)
			bigmem_free(mem);
		else if (!b)
			free(mem);
		call_complete(c, b); /* NULL: an out of memory error */
		return 0;
	}
	b = mcp_buf_new(NULL, re - rs + 1);
	if (!b)
		return -1;
	memcpy(b->data, line + rs, re - rs);
	b->data[re - rs] = '\n';
	call_complete(c, b);
	return 0;
}

/*
 * A message that could not be parsed for want of memory (cJSON's
 * allocations failed, jsent.h): a reply to a pending call completes it
 * with the out of memory error at once, rather than at its timeout (the
 * handshake's ends the start); anything else is dropped, and logged.
 */
static void unparsed(mcp_session *s, const char *line, size_t len)
{
	struct jscan_span obj = {0, len}, v;
	uint64_t id;
	mcp_call *c = NULL;

	if (jscan_member(line, obj, "id", &v) && id_at(line, v, &id) == 0)
		c = idtab_get(&s->pending, id);
	mlog(MLOG_WARN, "server %s: dropped a message (%zu bytes): out of "
	     "memory%s", s->srv->conf->name, len, c ? "; its call fails" : "");
	if (c && c->kind == CALL_INIT)
		handshake(s, c, NULL); /* the start fails */
	else if (c)
		call_complete(c, NULL);
}

/*
 * A message that is not one valid JSON value (RFC 8259: no trailing
 * bytes, strings of UTF-8), after jcompact: never passed on. One whose
 * "id" names a call in flight fails that call at once (its reply will
 * not come); anything else is skipped, and logged.
 */
static void not_json(mcp_session *s, const char *line, size_t len)
{
	struct jscan_span obj = {0, len}, v;
	uint64_t id;
	mcp_call *c = NULL;

	if (len && line[0] == '{' && jscan_member(line, obj, "id", &v) &&
	    id_at(line, v, &id) == 0)
		c = idtab_get(&s->pending, id);
	if (!c) {
		junk(s, strcmp(s->ops->name, "stdio") ? "a non-JSON message" :
			"a non-JSON stdout line", len);
		return;
	}
	mlog(MLOG_WARN, "server %s: its reply (%zu bytes) is not valid "
	     "JSON: its call fails", s->srv->conf->name, len);
	if (c->kind == CALL_INIT) {
		handshake(s, c, NULL); /* the start fails */
		return;
	}
	/* where the user looks (spec 12), a listing's failure too */
	session_error(s, strdup("protocol error: the server's reply is not "
				"valid JSON (one value, strings of UTF-8)"));
	call_fail_noted(c, ERR_PROTOCOL, "protocol error: the server's reply "
			"is not valid JSON", NULL);
}

static void inbound_line(mcp_session *s, struct frame *f, char *line,
			 size_t len, mcp_call *sc)
{
	cJSON *msg, *method, *id;
	char *flat = NULL;
	size_t soff = 0;
	unsigned long failures;
	int k, ws = 0, ok = -1;

	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
		soff++;
	}
	if (len) /* its scan, when the trace made one, serves below too */
		ok = trace_in(s, line, len, &ws);
	if (!len || fast_reply(s, f, line, len, sc, soff, ok == 1) == 0)
		return;
	/* the rest is read, kept and passed on as one compact line of valid
	 * JSON, whatever the server's whitespace (spec 6); one scan when it
	 * is so already */
	if (ok < 0)
		ok = jscan_is_value_ws(line, len, &ws);
	if (!ok || ws) {
		k = jcompact(line, len, &flat, &len);
		if (k < 0) {
			unparsed(s, line, len);
			return;
		}
		if (k > 0)
			line = flat;
		if (!jscan_is_value(line, len)) {
			not_json(s, line, len);
			free(flat);
			return;
		}
	}
	failures = jsent_failures();
	msg = jsent_parse(line, len); /* a NUL kept (jsent.h) */
	if (!msg && jsent_failures() != failures) {
		unparsed(s, line, len);
		free(flat);
		return;
	}
	if (!cJSON_IsObject(msg)) {
		junk(s, cJSON_IsArray(msg) ? "a batch inside a batch" :
			"a message that is no JSON object", len);
		cJSON_Delete(msg);
		free(flat);
		return;
	}
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	if (cJSON_IsString(method)) {
		if (id && !cJSON_IsNull(id))
			client_request(s, method->valuestring, id, msg, line,
				       len);
		else
			notification(s, method->valuestring, msg, line, len);
	} else if (id) {
		response(s, msg, line, len);
	} else {
		junk(s, "a message that is neither request, notification "
			"nor reply", len);
	}
	cJSON_Delete(msg);
	free(flat);
}

/*
 * A batch (a JSON array of messages, as a 2025-03-26 server may send on
 * any transport): each message handled alone, as if it came by itself,
 * so each is its own line everywhere. 0, or -1 when the line is no batch.
 */
static int batch(mcp_session *s, char *line, size_t len)
{
	struct jscan_members it;
	struct jscan_span v;
	char *flat = NULL;
	size_t i = ws_end(line, 0, len), n = 0;
	int k;

	if (i >= len || line[i] != '[')
		return -1;
	k = jcompact(line, len, &flat, &len);
	if (k < 0) {
		unparsed(s, line, len);
		return 0;
	}
	if (k > 0)
		line = flat;
	if (!jscan_is_value(line, len)) {
		trace_msg(s, 1, line, len);
		junk(s, "a batch that is not JSON", len);
		free(flat);
		return 0;
	}
	jscan_items_init(&it, line, 0, len);
	while (jscan_items_next(&it, &v) && s->t) {
		inbound_line(s, NULL, line + v.at, v.n, NULL);
		n++;
	}
	if (!n)
		junk(s, "an empty batch", len);
	free(flat);
	return 0;
}

/* A message; when a long reply was being read as it arrived, this is its
 * line, which must complete that call with the same bytes. */
void inbound_message(mcp_session *s, struct frame *f, char *line,
		     size_t len)
{
	mcp_call *sc = stream_line_end(s);

	mcp_call_ref(sc);
	if (batch(s, line, len) < 0)
		inbound_line(s, f, line, len, sc);
	if (sc && !sc->done)
		call_fail(sc, ERR_PROTOCOL, "protocol error: the reply that "
			  "was being read as it arrived ended as something "
			  "else", NULL);
	mcp_call_unref(sc);
}

/* ---- a message over the limit (--max-message, spec 1) ---- */

size_t inbound_too_long(mcp_session *s, size_t len, int has_id, uint64_t id,
			uint64_t ids[2], char *msg, size_t n)
{
	size_t k = 0, mib = (len >> 20) + 1;
	uint64_t long_id;

	if (len == 0) { /* passed the limit: a reply read as it arrives ends */
		stream_too_long(s);
		return 0;
	}
	long_id = stream_long_id(s);
	snprintf(msg, n, "the server sent a message of %zu bytes, over the "
		 "limit of %zu bytes: raise it with --max-message %zuM "
		 "(-o max_message=%zuM)", len, process.opts.max_line, mib, mib);
	if (long_id && (!has_id || id != long_id))
		ids[k++] = long_id;
	if (has_id)
		ids[k++] = id;
	if (!k) {
		mlog(MLOG_WARN, "server %s: skipped a message that is no "
		     "reply: %s", s->srv->conf->name, msg);
		ring_append(&s->err, msg, strlen(msg));
		ring_append(&s->err, "\n", 1);
	}
	return k;
}
