/*
 * request.c - what a user may write to a call file, and the JSON-RPC line it
 * becomes (spec 4). A request is one JSON object, either
 *   {"name": TOOL, "arguments": {...}, "_meta": {...}}   a tools/call, or
 *   {"method": M, "params": {...} or [...]}              any other request.
 * "arguments", "_meta" and "params" are optional; a tool call may carry
 * "task" (task augmentation, SEP-1686), forwarded as written. "initialize"
 * and notifications are refused: mcpfs owns the handshake, and call is for
 * requests that get a reply. Members "id" and "jsonrpc" are accepted and
 * ignored (mcpfs assigns ids itself); any other member is refused, naming
 * it, never dropped.
 *
 * The text is checked with the strict scanner (jscan) first; then one walk
 * over the structure of the now valid text finds the members and checks the
 * shape (strings with escapes are decoded by cJSON, to compare them). The
 * line sent to the server is assembled from the user's own bytes, so
 * integers beyond 2^53, "\u0000" and every other detail arrive as written;
 * only whitespace outside strings is dropped (the line must not contain
 * '\n').
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gbuf.h"
#include "jscan.h"
#include "jsent.h"
#include "request.h"
#include "sessions.h"

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* 0 if json is exactly one valid JSON value (whitespace around allowed)
 * with one reading: no member name twice in an object, none holding a
 * control character (jscan_names, spec 13), whoever sends it. */
static int strict_json(const char *json, size_t len, const char **why)
{
	static char names_why[sizeof ((struct jscan_names *)0)->why];
	struct jscan_names names = {0};
	struct jscan j;
	size_t used, i;
	int r;

	jscan_init(&j);
	jscan_names(&j, &names);
	r = jscan_feed(&j, json, len, &used);
	if (r == JSCAN_MORE)
		r = jscan_finish(&j);
	jscan_names_free(&names);
	if (r == JSCAN_ERROR && names.nomem) {
		*why = "request could not be parsed (out of memory)";
		return -EINVAL;
	}
	if (r == JSCAN_ERROR && j.error == names.why) {
		memcpy(names_why, names.why, sizeof names_why);
		*why = names_why;
		return -EINVAL;
	}
	if (r == JSCAN_DONE && used < len &&
	    jscan_feed(&j, json + used, len - used, &used) != JSCAN_DONE) {
		*why = "request has data after the JSON value";
		return -EINVAL;
	}
	if (r == JSCAN_DONE)
		return 0;
	if (r == JSCAN_ERROR) {
		*why = "request is not valid JSON";
		return -EINVAL;
	}
	for (i = 0; i < len && is_ws(json[i]); i++)
		;
	*why = i == len ? "request is empty" : "request is incomplete JSON";
	return -EINVAL;
}

static size_t skip_ws(const char *p, size_t i, size_t n)
{
	while (i < n && is_ws(p[i]))
		i++;
	return i;
}

/* The JSON string s (quotes included) decoded; malloc'd, NULL on ENOMEM. */
static char *decode(const char *p, struct jscan_span s)
{
	cJSON *j;
	char *d;

	if (!memchr(p + s.at, '\\', s.n))
		return strndup(p + s.at + 1, s.n - 2);
	j = cJSON_ParseWithLength(p + s.at, s.n);
	d = cJSON_IsString(j) ? strdup(j->valuestring) : NULL;
	cJSON_Delete(j);
	return d;
}

static int is_object(const char *p, struct jscan_span v)
{
	return v.n && p[v.at] == '{';
}

static int obj_nonempty(const char *p, struct jscan_span obj)
{
	return p[skip_ws(p, obj.at + 1, obj.at + obj.n)] != '}';
}

/* Where a progress token goes (tok_how). */
enum {
	TOK_NONE,     /* nowhere: the user has one, or params is no object */
	TOK_META,     /* tools/call without _meta: add "_meta":{...} */
	TOK_PARAMS,   /* no params: add "params":{"_meta":{...}} */
	TOK_IN_META,  /* insert "progressToken":T at tok_at */
	TOK_IN_PARAMS /* insert "_meta":{"progressToken":T} at tok_at */
};

/* Where the progress token goes into the object meta (a _meta value). */
static void token_in_meta(const char *p, struct jscan_span meta,
			  struct mcp_request *r)
{
	if (!is_object(p, meta))
		return;
	if (jscan_member(p, meta, "progressToken", &r->token))
		return;
	r->tok_how = TOK_IN_META;
	r->tok_at = meta.at + 1;
	r->tok_comma = obj_nonempty(p, meta);
}

static int check_method(const char *p, struct mcp_request *r,
			const char **why)
{
	struct jscan_span m;
	char *name = NULL;
	int bad = 0;

	if (p[r->head.at] == '"' && r->head.n > 2 &&
	    !(name = decode(p, r->head))) {
		*why = "request could not be parsed (out of memory)";
		return -EINVAL;
	}
	if (!name || !*name) {
		free(name);
		*why = "\"method\" must be a non-empty string";
		return -EINVAL;
	}
	if (!strcmp(name, "initialize")) {
		*why = "initialize is done by mcpfs";
		bad = 1;
	} else if (!strncmp(name, "notifications/",
			    strlen("notifications/"))) {
		*why = "notifications cannot be sent through call";
		bad = 1;
	}
	free(name);
	if (bad)
		return -EINVAL;
	if (r->params.n && p[r->params.at] != '{' && p[r->params.at] != '[') {
		*why = "\"params\" must be an object or an array";
		return -EINVAL;
	}
	if (!r->params.n) {
		r->tok_how = TOK_PARAMS;
	} else if (is_object(p, r->params)) {
		if (jscan_member(p, r->params, "_meta", &m)) {
			token_in_meta(p, m, r);
		} else {
			r->tok_how = TOK_IN_PARAMS;
			r->tok_at = r->params.at + 1;
			r->tok_comma = obj_nonempty(p, r->params);
		}
	}
	return 0;
}

static int check_tool(const char *p, struct mcp_request *r, const char **why)
{
	char *name;

	if (p[r->head.at] != '"' || r->head.n == 2) {
		*why = "\"name\" must be a non-empty string (the tool)";
		return -EINVAL;
	}
	if (memchr(p + r->head.at, '\\', r->head.n)) {
		/* only an escape can make it decode to "" ("\u0000") */
		name = decode(p, r->head);
		if (!name || !*name) {
			*why = name ? "\"name\" must be a non-empty string "
				      "(the tool)"
				    : "request could not be parsed (out of "
				      "memory)";
			free(name);
			return -EINVAL;
		}
		free(name);
	}
	if (r->args.n && p[r->args.at] != '{') {
		*why = "\"arguments\" must be an object";
		return -EINVAL;
	}
	if (r->meta.n && p[r->meta.at] != '{') {
		*why = "\"_meta\" must be an object";
		return -EINVAL;
	}
	if (r->task.n && p[r->task.at] != '{') {
		*why = "\"task\" must be an object";
		return -EINVAL;
	}
	if (!r->meta.n)
		r->tok_how = TOK_META;
	else
		token_in_meta(p, r->meta, r);
	return 0;
}

/* mcp_request_parse; checked: json passed strict_json's check already */
static int request_parse(const char *json, size_t len, struct mcp_request *r,
			 const char **why, int checked)
{
	struct jscan_span obj, name = {0, 0}, method = {0, 0}, k, v;
	struct jscan_members m;
	static char unknown[160]; /* one thread: valid until the next parse */
	int rc;

	memset(r, 0, sizeof *r);
	rc = checked ? 0 : strict_json(json, len, why);
	if (rc)
		return rc;
	obj.at = skip_ws(json, 0, len);
	if (json[obj.at] != '{') {
		*why = "request must be a JSON object";
		return -EINVAL;
	}
	obj.n = jscan_value_end(json, obj.at, len) - obj.at;
	r->len = len;
	jscan_members_init(&m, json, obj.at, obj.at + obj.n);
	while (jscan_members_next(&m, &k, &v)) {
		struct jscan_span *slot = NULL;

		if (jscan_str_is(json, k, "name"))
			slot = &name;
		else if (jscan_str_is(json, k, "method"))
			slot = &method;
		else if (jscan_str_is(json, k, "arguments"))
			slot = &r->args;
		else if (jscan_str_is(json, k, "_meta"))
			slot = &r->meta;
		else if (jscan_str_is(json, k, "params"))
			slot = &r->params;
		else if (jscan_str_is(json, k, "task"))
			slot = &r->task;
		else if (!jscan_str_is(json, k, "id") &&
			 !jscan_str_is(json, k, "jsonrpc")) {
			snprintf(unknown, sizeof unknown, "unknown member %.*s "
				 "(a request has name, arguments, _meta and "
				 "task, or method and params)",
				 k.n > 64 ? 64 : (int)k.n, json + k.at);
			*why = unknown;
			return -EINVAL;
		}
		if (slot && !slot->n)
			*slot = v;
	}
	if (name.n && method.n) {
		*why = "request has both \"name\" (a tool call) and \"method\"";
		return -EINVAL;
	}
	if (!name.n && !method.n) {
		*why = "request needs \"name\" (a tool call) or \"method\"";
		return -EINVAL;
	}
	if (method.n && (r->args.n || r->meta.n || r->task.n)) {
		*why = "\"arguments\", \"_meta\" and \"task\" go with \"name\"; "
		       "with \"method\" they belong in \"params\"";
		return -EINVAL;
	}
	if (name.n && r->params.n) {
		*why = "\"params\" goes with \"method\"; a tool call has "
		       "\"arguments\"";
		return -EINVAL;
	}
	r->tool = name.n != 0;
	r->head = r->tool ? name : method;
	return r->tool ? check_tool(json, r, why) : check_method(json, r, why);
}

int mcp_request_parse(const char *json, size_t len, struct mcp_request *r,
		      const char **why)
{
	return request_parse(json, len, r, why, 0);
}

int mcp_request_check(const char *json, size_t len, const char **why)
{
	struct mcp_request r;

	return mcp_request_parse(json, len, &r, why);
}

/* ---- building the line ---- */

/* The output line: a gbuf reserved once at its largest possible size. */

static void put(struct gbuf *o, const char *s, size_t n)
{
	gbuf_add(o, s, n);
}

static void puts_(struct gbuf *o, const char *s)
{
	gbuf_add(o, s, strlen(s));
}

/* Copy raw JSON, dropping whitespace outside strings. The span must start
 * and end outside a string. */
static void put_min(struct gbuf *o, const char *p, size_t n)
{
	size_t i, start = 0;
	int in_str = 0;

	for (i = 0; i < n; i++) {
		if (in_str) {
			if (p[i] == '\\')
				i++;
			else if (p[i] == '"')
				in_str = 0;
		} else if (p[i] == '"') {
			in_str = 1;
		} else if (is_ws(p[i])) {
			put(o, p + start, i - start);
			start = i + 1;
		}
	}
	if (start < n)
		put(o, p + start, n - start);
}

/* s as a JSON string. */
static void put_string(struct gbuf *o, const char *s)
{
	const unsigned char *p;
	char esc[8];

	put(o, "\"", 1);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == '"' || *p == '\\') {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			puts_(o, esc);
		} else {
			put(o, (const char *)p, 1);
		}
	}
	put(o, "\"", 1);
}

/* {"progressToken":TOKEN} */
static void put_token_meta(struct gbuf *o, const char *token)
{
	puts_(o, "{\"progressToken\":");
	put_string(o, token);
	puts_(o, "}");
}

/* The raw value s, with the progress token inserted if it goes into s. */
static void put_value(struct gbuf *o, const char *json, struct jscan_span s,
		      const struct mcp_request *r, const char *token)
{
	size_t cut = r->tok_at;

	if (!token || (r->tok_how != TOK_IN_META &&
		       r->tok_how != TOK_IN_PARAMS) ||
	    cut <= s.at || cut >= s.at + s.n) {
		put_min(o, json + s.at, s.n);
		return;
	}
	put_min(o, json + s.at, cut - s.at);
	if (r->tok_how == TOK_IN_META) {
		puts_(o, "\"progressToken\":");
		put_string(o, token);
	} else {
		puts_(o, "\"_meta\":");
		put_token_meta(o, token);
	}
	if (r->tok_comma)
		puts_(o, ",");
	put_min(o, json + cut, s.at + s.n - cut);
}

/*
 * ,"name":VALUE: the member s of the request as sent (the token put in
 * by put_value), or when it has none and the token goes at how
 * (TOK_META, TOK_PARAMS) a member made for the token alone:
 * {"progressToken":T}, inside {"_meta":...} for params. Nothing else.
 */
static void put_member(struct gbuf *o, const char *name, const char *json,
		       struct jscan_span s, const struct mcp_request *r,
		       const char *token, int how)
{
	if (!s.n && !(token && r->tok_how == how))
		return;
	puts_(o, ",\"");
	puts_(o, name);
	puts_(o, "\":");
	if (s.n) {
		put_value(o, json, s, r, token);
		return;
	}
	if (how == TOK_PARAMS)
		puts_(o, "{\"_meta\":");
	put_token_meta(o, token);
	if (how == TOK_PARAMS)
		puts_(o, "}");
}

size_t mcp_u64_str(char *buf, uint64_t v)
{
	char tmp[20];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

char *mcp_request_line(const char *json, const struct mcp_request *r,
		       uint64_t id, const char *token, size_t *outlen)
{
	struct gbuf o = {0};
	char num[21];

	/* Fixed text, the id, the user's bytes, the token escaped 6x, "{}". */
	if (gbuf_reserve(&o, r->len + 256 +
				 (token ? 6 * strlen(token) + 64 : 0)) < 0)
		return NULL;
	puts_(&o, "{\"jsonrpc\":\"2.0\",\"id\":");
	put(&o, num, mcp_u64_str(num, id));
	puts_(&o, ",\"method\":");
	if (r->tool) {
		puts_(&o, "\"tools/call\",\"params\":{\"name\":");
		put_min(&o, json + r->head.at, r->head.n);
		puts_(&o, ",\"arguments\":");
		if (r->args.n)
			put_min(&o, json + r->args.at, r->args.n);
		else
			puts_(&o, "{}");
		put_member(&o, "_meta", json, r->meta, r, token, TOK_META);
		if (r->task.n) {
			puts_(&o, ",\"task\":");
			put_min(&o, json + r->task.at, r->task.n);
		}
		puts_(&o, "}");
	} else {
		put_min(&o, json + r->head.at, r->head.n);
		put_member(&o, "params", json, r->params, r, token,
			   TOK_PARAMS);
	}
	puts_(&o, "}\n");
	if (outlen)
		*outlen = o.len;
	return gbuf_take(&o);
}

char *mcp_request_build(const char *json, size_t len, uint64_t id,
			const char *progress_token, size_t *outlen)
{
	struct mcp_request r;
	const char *why;

	if (mcp_request_parse(json, len, &r, &why))
		return NULL;
	return mcp_request_line(json, &r, id, progress_token, outlen);
}

/* The name a request of method names (the one reading of a tool's name
 * that the tool policy checks, the modern era's Mcp-Name header carries
 * and the listing is searched by, spec 13): {"name": N} (a tools/call, so
 * only when method is tools/call) or {"method": method, "params": {"name":
 * N}} (the method decoded: "tools\/call" is one). 0 with *name N decoded
 * as the listing's names are (an escaped NUL as C0 80, jsent.h) and
 * malloc'd ("" without one), or NULL when the request is not of method;
 * -ENOMEM. */
static int name_of(const char *json, const struct mcp_request *r,
		   const char *method, char **name)
{
	struct jscan_span v = r->head;
	char *m = NULL;
	int same;

	*name = NULL;
	if (r->tool) {
		if (strcmp(method, "tools/call"))
			return 0;
	} else {
		if (jsent_unquote(json + r->head.at, r->head.n, &m) < 0)
			return -ENOMEM;
		same = m && !strcmp(m, method);
		free(m);
		if (!same)
			return 0;
		if (!r->params.n || json[r->params.at] != '{' ||
		    !jscan_member(json, r->params, "name", &v))
			v.n = 0;
	}
	if (v.n && jsent_unquote(json + v.at, v.n, name) < 0)
		return -ENOMEM;
	if (!*name)
		*name = strdup(""); /* none, or not a string */
	return *name ? 0 : -ENOMEM;
}

/* ---- a request parsed once (sessions.h) ---- */

/* tools/T, prompts/T: the arguments object args as the request of T. */
static char *wrap(const char *target, int prompt, const char *args,
		  size_t len, size_t *outlen, const char **why)
{
	struct gbuf b = {0};
	char *q = jsent_quote(target); /* a NUL is C0 80 (jsent.h) */
	size_t i = 0;

	while (i < len && is_ws(args[i]))
		i++;
	if (i < len && args[i] != '{') {
		free(q);
		*why = "the arguments must be a JSON object";
		return NULL;
	}
	if (!q)
		return NULL;
	if (prompt)
		gbuf_puts(&b, "{\"method\":\"prompts/get\",\"params\":");
	gbuf_puts(&b, "{\"name\":");
	gbuf_puts(&b, q);
	gbuf_puts(&b, ",\"arguments\":");
	if (i < len)
		gbuf_add(&b, args, len);
	else
		gbuf_puts(&b, "{}");
	gbuf_puts(&b, prompt ? "}}" : "}");
	free(q);
	*outlen = b.len;
	return gbuf_take(&b);
}

static char *prefixed(const char *prefix, const char *name)
{
	size_t n = strlen(name);
	char *k = malloc(n + 3);

	if (k) {
		memcpy(k, prefix, 2);
		memcpy(k + 2, name, n + 1);
	}
	return k;
}

int mcp_req_parse(const char *json, size_t len, const char *target,
		  int flags, mcp_req **out, const char **why)
{
	mcp_req *r = calloc(1, sizeof *r);
	char *prompt_name = NULL;
	int prompt = flags & MCP_REQ_PROMPT;
	int e = -ENOMEM;

	*out = NULL;
	*why = NULL;
	if (!r)
		return -ENOMEM;
	r->side = !!(flags & MCP_REQ_SIDE);
	if (target) {
		r->text = wrap(target, prompt, json, len, &r->len, why);
	} else if ((r->text = malloc(len + 1)) != NULL) {
		memcpy(r->text, json, len);
		r->text[len] = 0;
		r->len = len;
	}
	if (!r->text) {
		e = *why ? -EINVAL : -ENOMEM;
		goto fail;
	}
	if (request_parse(r->text, r->len, &r->parsed, why,
			  !target && (flags & MCP_REQ_CHECKED)) < 0) {
		e = -EINVAL;
		goto fail;
	}
	/* a prompt's name is needed only for the key of a call written to
	 * call; tools/X and prompts/X are keyed by their file */
	if (name_of(r->text, &r->parsed, "tools/call", &r->tool) < 0 ||
	    (!r->tool && !target && name_of(r->text, &r->parsed,
					   "prompts/get", &prompt_name) < 0))
		goto fail;
	if (target) /* the file's own name, whatever the text says */
		r->key = prefixed(prompt ? "p:" : "t:", target);
	else if (r->tool && *r->tool)
		r->key = prefixed("t:", r->tool);
	else if (prompt_name && *prompt_name)
		r->key = prefixed("p:", prompt_name);
	if (!r->key && (target || (r->tool && *r->tool) ||
			(prompt_name && *prompt_name)))
		goto fail;
	free(prompt_name);
	*out = r;
	return 0;
fail:
	free(prompt_name);
	mcp_req_free(r);
	return e;
}

const char *mcp_req_key(const mcp_req *r)
{
	return r->key;
}

void mcp_req_free(mcp_req *r)
{
	if (!r)
		return;
	free(r->text);
	free(r->tool);
	free(r->key);
	free(r);
}
