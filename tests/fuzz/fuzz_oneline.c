/*
 * fuzz_oneline.c - libFuzzer target for spec 6's rule that what a server
 * sends is passed on only as mcpfs's own serialization: server bytes,
 * framed as a transport frames them, through the real inbound.c and
 * trace.c, to what a serve client and trace receive.
 *
 * Input: byte 0 picks the framing (0 stdio lines through frame.c, 1 an
 * HTTP JSON body as http.c delivers it, 2 an event stream through sse.c);
 * byte 1's low 3 bits say how many user calls are in flight (0-7), and
 * the next bytes give their ids (1-16, so that the corpus meets them);
 * the rest are the server's bytes.
 *
 * The session core around inbound.c is stubbed here: a call completes into
 * call_complete or call_complete_error below, which build what
 * serve/peer.c sends its client ({"jsonrpc":"2.0","id":N,"result":R}, or
 * the error as it is), and session_observe gets what a client hears of
 * notifications. Checked: every such message, every line of events and
 * every line of trace is one line of compact JSON (jscan_is_value,
 * jcompact_is, no newline); a call completes only while it is in flight
 * (no reply to an id that is not pending reaches anyone); every trace
 * record is an "in" record of the fixed shape mcpfs writes.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "jcompact.h"
#include "jscan.h"
#include "jsent.h"
#include "pages.h"
#include "sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sessions_process process;

static mcp_session *S;

/* One message as a client or a line of a log gets it. */
static void one_line(const char *p, size_t n)
{
	if (!n || memchr(p, '\n', n) || memchr(p, '\r', n) ||
	    !jcompact_is(p, n) || !jscan_is_value(p, n))
		abort();
}

/* ---- the session core, stubbed ---- */

void mlog(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

int mlog_limit(struct mlog_limit *l, int level, const char *what)
{
	(void)l;
	(void)level;
	(void)what;
	return 0;
}

/* The call leaves the table of those in flight: it must be there. */
static void untrack(mcp_call *c)
{
	if (c->done || idtab_get(&S->pending, c->rpc_id) != c)
		abort(); /* a reply to an id that is not pending */
	idtab_del(&S->pending, c->rpc_id);
	c->done = 1;
}

/* What serve/peerjob.c's call_done makes of a reply for its client: a
 * result is wrapped, an error ({"error": E}, failed) is sent as it is. */
static void deliver(mcp_call *c, mcp_buf *b, int failed)
{
	char *m;
	size_t n;

	untrack(c);
	if (!b)
		return;
	n = b->len;
	if (!n || b->data[n - 1] != '\n')
		abort();
	n--;
	one_line(b->data, n);
	m = malloc(n + 64);
	if (m) {
		size_t k = (size_t)sprintf(m, "{\"jsonrpc\":\"2.0\","
					   "\"id\":%llu,\"result\":%.*s}",
					   (unsigned long long)c->rpc_id,
					   (int)n, b->data);
		if (!failed)
			one_line(m, k);
		free(m);
	}
	mcp_buf_unref(b);
}

void call_complete(mcp_call *c, mcp_buf *b)
{
	deliver(c, b, 0);
}

void call_fail(mcp_call *c, int code, const char *msg, cJSON *data)
{
	(void)code;
	(void)msg;
	untrack(c);
	cJSON_Delete(data);
}

void call_fail_noted(mcp_call *c, int code, const char *msg, cJSON *data)
{
	call_fail(c, code, msg, data);
}

void session_error(mcp_session *s, char *msg)
{
	(void)s;
	free(msg);
}

void call_complete_error(mcp_call *c, cJSON *err)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "error", cJSON_Duplicate(err, 1));
	deliver(c, mcp_buf_json(o, 0), 1);
	cJSON_Delete(o);
}

void session_observe(mcp_session *s, const char *json, size_t len)
{
	cJSON *m, *id;

	(void)s;
	one_line(json, len);
	m = cJSON_ParseWithLength(json, len);
	id = cJSON_GetObjectItemCaseSensitive(m, "id");
	if (m && (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(m,
								   "method")) ||
		  (id && !cJSON_IsNull(id))))
		abort(); /* only notifications are heard */
	cJSON_Delete(m);
}

void client_request(mcp_session *s, const char *method, cJSON *id,
		    cJSON *msg, const char *line, size_t len)
{
	(void)s;
	(void)method;
	(void)id;
	(void)msg;
	one_line(line, len); /* what ask.c keeps and shows */
}

void ask_cancelled(mcp_session *s, cJSON *params) { (void)s; (void)params; }
void task_notified(mcp_session *s, const cJSON *p) { (void)s; (void)p; }
int task_created(mcp_session *s, mcp_call *c, cJSON *res)
{
	(void)s;
	(void)c;
	(void)res;
	return 0;
}
int mrtr_result(mcp_session *s, mcp_call *c, cJSON *res)
{
	(void)s;
	(void)c;
	(void)res;
	return 0;
}
void call_progress(mcp_call *c) { (void)c; }
void call_more(mcp_call *c) { (void)c; }
void call_relisted(mcp_call *c) { (void)c; }
void call_untrack(mcp_session *s, mcp_call *c) { (void)s; (void)c; }
void call_set_ref(mcp_call **slot, mcp_call *c) { *slot = c; }
mcp_call *mcp_call_ref(mcp_call *c) { return c; }
void mcp_call_unref(mcp_call *c) { (void)c; }
void session_list_note(mcp_session *s, const mcp_call *c, const cJSON *err,
		       const char *why)
{
	(void)s;
	(void)c;
	(void)err;
	(void)why;
}
void pages_got(mcp_session *s, mcp_call *c, cJSON *res, const char *line,
	       size_t len)
{
	(void)s;
	(void)res;
	(void)line;
	(void)len;
	untrack(c);
}
void pages_end(mcp_call *c) { untrack(c); }
int pages_busy(const mcp_call *c)
{
	(void)c;
	return 0;
}

int pages_take(mcp_session *s, mcp_call *c, struct frame *f, char *line,
	       size_t len, size_t rs, size_t re)
{
	(void)s;
	(void)f;
	(void)line;
	(void)len;
	(void)rs;
	(void)re;
	untrack(c);
	return 0;
}

/* ---- the transports' framing ---- */

static int line_cb(void *ctx, char *line, size_t len)
{
	inbound_message(S, ctx, line, len);
	return 0;
}

static int event_cb(void *ctx, char *d, size_t len)
{
	(void)ctx;
	inbound_message(S, NULL, d, len);
	return 0;
}

/* Every line of a log: one compact line of JSON; trace's, a record. */
static void check_log(const struct ring *r, int trace)
{
	size_t n = ring_kept(r), i = 0;
	char *b = malloc(n + 1), *nl;

	if (!b)
		return;
	n = ring_read(r, 0, b, n);
	while (i < n) {
		cJSON *j, *dir;

		if (!(nl = memchr(b + i, '\n', n - i)))
			abort(); /* a line not ended */
		one_line(b + i, (size_t)(nl - b) - i);
		if (trace) {
			j = cJSON_ParseWithLength(b + i, (size_t)(nl - b) - i);
			dir = cJSON_GetObjectItemCaseSensitive(j, "dir");
			if (!cJSON_IsString(dir) ||
			    strcmp(dir->valuestring, "in") ||
			    strncmp(b + i, "{\"at\":\"", 7) ||
			    (!cJSON_GetObjectItemCaseSensitive(j, "msg") &&
			     !cJSON_GetObjectItemCaseSensitive(j, "note")))
				abort(); /* a record mcpfs did not write */
			cJSON_Delete(j);
		}
		i = (size_t)(nl - b) + 1;
	}
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct transport_ops stdio_ops = {.name = "stdio"};
	static const struct transport_ops http_ops = {.name = "http"};
	static struct mcp_server_conf conf = {.name = "fz"};
	static mcp_server srv = {.conf = &conf};
	static char evbuf[1 << 18], trbuf[1 << 18];
	mcp_call calls[8];
	mcp_session *s;
	size_t i, k, ncalls;
	int mode;

	if (size < 2)
		return 0;
	mode = data[0] % 3;
	ncalls = data[1] & 7;
	if (size < 2 + ncalls)
		return 0;
	s = calloc(1, sizeof *s);
	if (!s)
		return 0;
	S = s;
	s->srv = &srv;
	s->ops = mode ? &http_ops : &stdio_ops;
	s->t = (struct transport *)s; /* attached */
	s->era = MCP_ERA_LEGACY;
	/* above -max_len; reused (the ring reads only what was written) */
	s->events.cap = s->trace.cap = sizeof evbuf;
	s->events.size = s->trace.size = sizeof evbuf; /* never grown */
	s->events.buf = evbuf;
	s->trace.buf = trbuf;
	idtab_init(&s->pending);
	memset(calls, 0, sizeof calls);
	for (i = k = 0; i < ncalls; i++) {
		uint64_t id = data[2 + i] % 16 + 1;

		if (idtab_get(&s->pending, id))
			continue;
		calls[k].kind = CALL_USER;
		calls[k].rpc_id = id;
		calls[k].s = s;
		calls[k].srv = &srv;
		if (idtab_put(&s->pending, id, &calls[k]) == 0)
			k++;
	}
	data += 2 + ncalls;
	size -= 2 + ncalls;
	if (mode == 0) {
		struct frame f;

		frame_init(&f, 1 << 16);
		frame_feed(&f, (const char *)data, size, line_cb, &f);
		frame_free(&f);
	} else if (mode == 1) {
		char *body = malloc(size + 1);

		if (body) {
			memcpy(body, data, size);
			body[size] = 0;
			if (size && jscan_is_value(body, size)) /* http.c */
				inbound_message(s, NULL, body, size);
			free(body);
		}
	} else {
		struct sse p;

		sse_init(&p, 1 << 16);
		sse_feed(&p, (const char *)data, size, event_cb, NULL);
		sse_free(&p);
	}
	check_log(&s->events, 0);
	check_log(&s->trace, 1);
	idtab_free(&s->pending);
	free(s);
	return 0;
}
