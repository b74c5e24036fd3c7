/*
 * fuzz_serve.c - libFuzzer target for serve's client-message path
 * (serve/peer.c, peerjob.c, peerask.c, route.c): what an MCP client
 * sends to the mount, any bytes, one message per line, on a core stood
 * in for here.
 *
 * The stand-in core has three servers: "a" (tools b__c and t, the latter
 * requiring tasks; prompt b__p; resource x://r; template x://t/{id}),
 * "a__b" (tool c, prompt p, resource x://r: two names and a URI both
 * give) and "z" (its listings fail). A listing is done at once; a
 * request started in a thread is done at once or, every other one, left
 * pending until the input ends (so that a cancellation, a batch of
 * requests with the same id and the client's leaving find calls in
 * flight). A line of the input whose first byte is '!' is a server's
 * question (elicitation) opening in the thread, with the rest as its
 * params. A first line whose first byte is '?' scopes the client
 * (scope.c): "?SERVERS TOOLS", each "-" for none ("?a,z search").
 *
 * Checked: every message the peer sends is one JSON text, with no
 * newline, and every request gets at most one reply that ends it; no
 * crash, no leak (LeakSanitizer), no undefined behaviour.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "serve.h"
#include "sessions.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the core, stood in for ---- */

void mlog(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

struct mcp_call {
	int refs;
	mcp_buf *reply;
	struct mcp_listener *l;
	int pending;
	int failed; /* made here as an error, as call.c's flag */
};

struct mcp_req {
	char *text;
};

#define NCALLS 256
static mcp_call *pending[NCALLS];
static size_t npending;
static unsigned nstarted;

static mcp_call *call_new(const char *reply)
{
	mcp_call *c = calloc(1, sizeof *c);

	c->refs = 1;
	if (reply)
		c->reply = mcp_buf_new(reply, strlen(reply));
	else if (npending < NCALLS)
		pending[npending++] = c, c->refs++, c->pending = 1;
	else
		c->reply = mcp_buf_new("{\"content\":[]}\n", 15);
	return c;
}

static void call_finish(mcp_call *c, const char *reply)
{
	struct mcp_listener *l = c->l;

	if (c->reply)
		return;
	c->reply = mcp_buf_new(reply, strlen(reply));
	c->l = NULL;
	if (l) {
		l->link.le_prev = NULL;
		l->done(l, c);
	}
}

mcp_buf *mcp_call_reply(const mcp_call *c)
{
	return c->reply;
}

void mcp_call_unref(mcp_call *c)
{
	if (c && --c->refs == 0) {
		mcp_buf_unref(c->reply);
		free(c);
	}
}

void mcp_call_listen(mcp_call *c, struct mcp_listener *l)
{
	assert(!c->reply && !c->l);
	c->l = l;
	l->link.le_prev = (void *)&c->l;
}

void mcp_listener_remove(struct mcp_listener *l)
{
	if (l->link.le_prev)
		*(struct mcp_listener **)l->link.le_prev = NULL;
	l->link.le_prev = NULL;
}

void mcp_call_cancel_why(mcp_call *c, const char *reason)
{
	(void)reason;
	c->failed = !c->reply;
	call_finish(c, "{\"error\":{\"code\":-32800,\"message\":\"call "
		    "cancelled\"}}\n");
}

/* servers 1..3, a thread of each (11..13), one question (21) */
static const char *const names[] = { "a", "a__b", "z" };
static int have_thread[3];

static int fill(uint64_t id, struct mcp_stat *st)
{
	memset(st, 0, sizeof *st);
	st->id = id;
	if (id >= 1 && id <= 3) {
		st->kind = MCP_SERVER;
		st->name = names[id - 1];
		st->server = (mcp_server *)(uintptr_t)id;
		st->server_id = id;
		return 0;
	}
	if (id >= 11 && id <= 13 && have_thread[id - 11]) {
		st->kind = MCP_THREAD;
		st->name = "fz";
		st->server_id = id - 10;
		st->thread_id = id;
		st->session = (mcp_session *)(uintptr_t)id;
		return 0;
	}
	if (id == 21 && have_thread[0]) {
		st->kind = MCP_QUESTION;
		st->name = "1";
		st->thread_id = 11;
		st->ask = (mcp_ask *)(uintptr_t)21;
		return 0;
	}
	return -ENOENT;
}

int mcp_lookup(uint64_t id, enum mcp_kind kind, struct mcp_stat *st)
{
	if (fill(id, st) < 0 || (kind != MCP_ANY && st->kind != kind))
		return -ENOENT;
	return 0;
}

int mcp_next(uint64_t parent, uint64_t prev, struct mcp_stat *st)
{
	if (parent != 0 || prev >= 3)
		return -ENOENT;
	return fill(prev + 1, st);
}

int mcp_walk(uint64_t parent, const char *name, struct mcp_stat *st)
{
	if (parent >= 1 && parent <= 3 && !strcmp(name, "fz"))
		return fill(parent + 10, st);
	if (parent == 11 && !strcmp(name, "1"))
		return fill(21, st);
	return -ENOENT;
}

int mcp_session_create(mcp_server *srv, const char *name,
		       struct mcp_stat *st)
{
	uint64_t id = (uint64_t)(uintptr_t)srv;

	if (strcmp(name, "fz"))
		return -EINVAL;
	have_thread[id - 1] = 1;
	return fill(id + 10, st);
}

int mcp_session_ctl(mcp_session *s, const char *verb, size_t len)
{
	(void)s;
	(void)verb;
	(void)len;
	return 0;
}

const char *mcp_list_key(enum mcp_list what)
{
	static const char *const keys[] = {"tools", "resources",
					   "resourceTemplates", "prompts",
					   "skills"};

	return keys[what];
}

static const char *const listings[3][4] = {
	{ "{\"tools\":[{\"name\":\"b__c\"},{\"name\":\"t\",\"execution\":"
	  "{\"taskSupport\":\"required\"}}]}\n",
	  "{\"resources\":[{\"uri\":\"x://r\",\"name\":\"r\"}]}\n",
	  "{\"resourceTemplates\":[{\"uriTemplate\":\"x://t/{id}\"}]}\n",
	  "{\"prompts\":[{\"name\":\"b__p\"}]}\n" },
	{ "{\"tools\":[{\"name\":\"c\"}]}\n",
	  "{\"resources\":[{\"uri\":\"x://r\",\"name\":\"r\"}]}\n",
	  "{\"resourceTemplates\":[{\"uriTemplate\":\"{+all}\"}]}\n",
	  "{\"prompts\":[{\"name\":\"p\"}]}\n" },
};

int mcp_list(mcp_server *srv, mcp_session *s, enum mcp_list what,
	     mcp_call **out)
{
	uint64_t id = (uint64_t)(uintptr_t)srv;

	(void)s;
	if (id == 3 || what > MCP_PROMPTS) {
		*out = call_new("{\"error\":{\"code\":-32601,\"message\":"
				"\"no\"}}\n");
		(*out)->failed = 1;
	} else
		*out = call_new(listings[id - 1][what]);
	return 0;
}

int mcp_req_parse(const char *json, size_t len, const char *target,
		  int flags, mcp_req **out, const char **why)
{
	cJSON *j = cJSON_ParseWithLength(json, len);

	(void)target;
	(void)flags;
	if (!j) {
		*why = "not JSON";
		return -EINVAL;
	}
	cJSON_Delete(j);
	*out = calloc(1, sizeof **out);
	(*out)->text = strndup(json, len);
	return 0;
}

int mcp_call_failed(const mcp_call *c)
{
	return c->reply && c->failed;
}

int mcp_call_start(mcp_server *srv, mcp_session *s, mcp_req *r,
		   mcp_call **out)
{
	(void)srv;
	(void)s;
	free(r->text);
	free(r);
	*out = call_new(nstarted++ % 2 ? NULL :
			"{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}\n");
	return 0;
}

static const struct mcp_observer *observer;

void mcp_observe(const struct mcp_observer *o)
{
	observer = o;
}

int mcp_ask_answer(mcp_ask *q, const char *json, size_t len,
		   const char *why)
{
	(void)q;
	(void)json;
	(void)len;
	(void)why;
	return -EINVAL; /* it stays */
}

mcp_buf *mcp_doc(enum mcp_doc what, const void *obj, unsigned long num)
{
	static const char q[] = "{\"method\":\"elicitation/create\"}";

	(void)what;
	(void)obj;
	(void)num;
	return mcp_buf_new(q, sizeof q - 1);
}

/* ---- the client's side ---- */

#define MAX_TAGS 4096
static unsigned char ended[MAX_TAGS]; /* tag: its reply came */

static void out_send(struct serve_out *o, const char *json, size_t len,
		     uint64_t tag, int last)
{
	cJSON *m = cJSON_ParseWithLength(json, len);

	(void)o;
	assert(m != NULL);                      /* one JSON text */
	assert(memchr(json, '\n', len) == NULL); /* one line */
	cJSON_Delete(m);
	if (tag && tag < MAX_TAGS) {
		assert(!ended[tag]);            /* one reply per request */
		if (last)
			ended[tag] = 1;
	}
}

/* "?SERVERS TOOLS\n" at at: p scoped so; what follows it. */
static const char *scope(struct serve_peer *p, const char *at,
			 const char *end)
{
	const char *nl = memchr(at, '\n', (size_t)(end - at));
	char *l = strndup(at + 1, (size_t)((nl ? nl : end) - at - 1));
	char *tools = l ? strchr(l, ' ') : NULL;

	if (tools)
		*tools++ = 0;
	if (l)
		serve_peer_scope(p, strcmp(l, "-") ? l : NULL,
				 tools && strcmp(tools, "-") ? tools : NULL);
	free(l);
	return nl ? nl + 1 : end;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct serve_out out = { out_send, 1 };
	struct serve_peer *p = serve_peer_new("fz", &out);
	const char *at = (const char *)data, *end = at + size, *nl;
	uint64_t tag = 0;
	size_t i;

	memset(ended, 0, sizeof ended);
	memset(have_thread, 0, sizeof have_thread);
	npending = 0;
	nstarted = 0;
	if (p && at < end && *at == '?')
		at = scope(p, at, end);
	while (p && at < end && tag + 1 < MAX_TAGS) {
		nl = memchr(at, '\n', (size_t)(end - at));
		if (!nl)
			nl = end;
		if (*at == '!' && have_thread[0] && observer) {
			/* a server's params are JSON the core parsed */
			cJSON *j = cJSON_ParseWithLength(at + 1,
							 (size_t)(nl - at - 1));
			char *t = j ? cJSON_PrintUnformatted(j) : NULL;
			struct mcp_stat q;

			fill(21, &q);
			if (t)
				observer->ask(&q, t, strlen(t));
			free(t);
			cJSON_Delete(j);
		} else {
			serve_peer_input(p, at, (size_t)(nl - at), ++tag);
		}
		at = nl + 1;
	}
	for (i = 0; i < npending; i++) { /* what was in flight completes */
		call_finish(pending[i], "{\"content\":[]}\n");
		mcp_call_unref(pending[i]);
	}
	npending = 0;
	if (p)
		serve_peer_end(p);
	return 0;
}
