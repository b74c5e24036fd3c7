/*
 * request.c - what a user may write to a call file, and the JSON-RPC line it
 * becomes (SPEC section 4). A request is one JSON object, either
 *   {"name": TOOL, "arguments": {...}, "_meta": {...}}   a tools/call, or
 *   {"method": M, "params": {...} or [...]}              any other request.
 * "arguments", "_meta" and "params" are optional. "initialize" and
 * notifications are refused: mcpfs owns the handshake, and call is for
 * requests that get a reply. Members "id" and "jsonrpc", and any other
 * member, are accepted and ignored: mcpfs assigns ids itself.
 *
 * The text is checked with the strict scanner (jscan) first, then parsed
 * with cJSON to check the shape. The line sent to the server is assembled
 * from the user's own bytes rather than from cJSON's printer, so integers
 * beyond 2^53, "\u0000" and every other detail arrive as written; only
 * whitespace outside strings is dropped (the line must not contain '\n').
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jscan.h"
#include "request.h"
#include "sessions.h"

struct span {
	const char *p;
	size_t n;
};

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* 0 if json is exactly one valid JSON value (whitespace around allowed). */
static int strict_json(const char *json, size_t len, const char **why)
{
	struct jscan j;
	size_t used, i;
	int r;

	jscan_init(&j);
	r = jscan_feed(&j, json, len, &used);
	if (r == JSCAN_DONE && used < len &&
	    jscan_feed(&j, json + used, len - used, &used) != JSCAN_DONE) {
		*why = "request has data after the JSON value";
		return -EINVAL;
	}
	if (r == JSCAN_MORE)
		r = jscan_finish(&j);
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

static int check_tree(const cJSON *root, const char **why)
{
	const cJSON *name, *method, *v;
	const char *m;

	if (!cJSON_IsObject(root)) {
		*why = "request must be a JSON object";
		return -EINVAL;
	}
	name = cJSON_GetObjectItemCaseSensitive(root, "name");
	method = cJSON_GetObjectItemCaseSensitive(root, "method");
	if (name && method) {
		*why = "request has both \"name\" (a tool call) and \"method\"";
		return -EINVAL;
	}
	if (name) {
		if (!cJSON_IsString(name) || !*name->valuestring) {
			*why = "\"name\" must be a non-empty string (the tool)";
			return -EINVAL;
		}
		v = cJSON_GetObjectItemCaseSensitive(root, "arguments");
		if (v && !cJSON_IsObject(v)) {
			*why = "\"arguments\" must be an object";
			return -EINVAL;
		}
		v = cJSON_GetObjectItemCaseSensitive(root, "_meta");
		if (v && !cJSON_IsObject(v)) {
			*why = "\"_meta\" must be an object";
			return -EINVAL;
		}
		return 0;
	}
	if (!method) {
		*why = "request needs \"name\" (a tool call) or \"method\"";
		return -EINVAL;
	}
	if (!cJSON_IsString(method) || !*method->valuestring) {
		*why = "\"method\" must be a non-empty string";
		return -EINVAL;
	}
	m = method->valuestring;
	if (!strcmp(m, "initialize")) {
		*why = "initialize is done by mcpfs";
		return -EINVAL;
	}
	if (!strncmp(m, "notifications/", strlen("notifications/"))) {
		*why = "notifications cannot be sent through call";
		return -EINVAL;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "params");
	if (v && !cJSON_IsObject(v) && !cJSON_IsArray(v)) {
		*why = "\"params\" must be an object or an array";
		return -EINVAL;
	}
	return 0;
}

/* Parse and check; the tree is returned for mcp_request_build. */
static int parse_request(const char *json, size_t len, cJSON **tree,
			 const char **why)
{
	cJSON *root;
	int rc;

	rc = strict_json(json, len, why);
	if (rc)
		return rc;
	root = cJSON_ParseWithLength(json, len);
	if (!root) {
		/* Valid for the scanner: cJSON ran out of memory. */
		*why = "request could not be parsed (out of memory)";
		return -EINVAL;
	}
	rc = check_tree(root, why);
	if (rc || !tree)
		cJSON_Delete(root);
	else
		*tree = root;
	return rc;
}

int mcp_request_check(const char *json, size_t len, const char **why)
{
	return parse_request(json, len, NULL, why);
}

/* ---- building the line ---- */

/* Length of the JSON value at the start of s (valid JSON assumed). */
static size_t value_len(const char *s, size_t len)
{
	struct jscan j;
	size_t used;
	int r;

	jscan_init(&j);
	r = jscan_feed(&j, s, len, &used);
	if (r == JSCAN_DONE)
		return used;
	if (r == JSCAN_MORE && jscan_finish(&j) == JSCAN_DONE)
		return len;
	return 0;
}

static size_t skip_ws(struct span s, size_t i)
{
	while (i < s.n && is_ws(s.p[i]))
		i++;
	return i;
}

/* 1 if the raw JSON string key (quotes included) decodes to want. */
static int key_is(struct span key, const char *want)
{
	cJSON *k;
	int eq;

	if (!memchr(key.p, '\\', key.n))
		return key.n - 2 == strlen(want) &&
		       !memcmp(key.p + 1, want, key.n - 2);
	k = cJSON_ParseWithLength(key.p, key.n);
	eq = cJSON_IsString(k) && !strcmp(k->valuestring, want);
	cJSON_Delete(k);
	return eq;
}

/*
 * The raw value of the first member named key of the object obj (as cJSON's
 * getters pick the first of duplicate keys). Returns 1 and *val, or 0.
 */
static int member_find(struct span obj, const char *key, struct span *val)
{
	struct span k, v;
	size_t i = skip_ws(obj, 1);

	while (i < obj.n && obj.p[i] == '"') {
		k.p = obj.p + i;
		k.n = value_len(k.p, obj.n - i);
		if (k.n < 2)
			return 0;
		i = skip_ws(obj, i + k.n);
		if (i >= obj.n || obj.p[i] != ':')
			return 0;
		i = skip_ws(obj, i + 1);
		v.p = obj.p + i;
		v.n = value_len(v.p, obj.n - i);
		if (v.n == 0)
			return 0;
		if (key_is(k, key)) {
			*val = v;
			return 1;
		}
		i = skip_ws(obj, i + v.n);
		if (i >= obj.n || obj.p[i] != ',')
			return 0;
		i = skip_ws(obj, i + 1);
	}
	return 0;
}

/* The output line, allocated once at its largest possible size. */
struct out {
	char *p;
	size_t n, cap;
	int overflow;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->overflow || n > o->cap - o->n) {
		o->overflow = 1;
		return;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* Copy raw JSON, dropping whitespace outside strings. The span must start
 * and end outside a string. */
static void put_min(struct out *o, const char *p, size_t n)
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

static void put_span(struct out *o, struct span s)
{
	put_min(o, s.p, s.n);
}

/* s as a JSON string. */
static void put_string(struct out *o, const char *s)
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
static void put_token_meta(struct out *o, const char *token)
{
	puts_(o, "{\"progressToken\":");
	put_string(o, token);
	puts_(o, "}");
}

/* The raw object obj with the member "key":VALUE added first; the value is
 * {"progressToken":token} when key is "_meta", else the bare token. */
static void put_with_member(struct out *o, struct span obj, int nonempty,
			    const char *key, const char *token)
{
	puts_(o, "{");
	put_string(o, key);
	puts_(o, ":");
	if (!strcmp(key, "_meta"))
		put_token_meta(o, token);
	else
		put_string(o, token);
	if (nonempty)
		puts_(o, ",");
	put_min(o, obj.p + 1, obj.n - 1);
}

/* A raw _meta object, with progressToken added if it has none. */
static void put_meta(struct out *o, struct span raw, const cJSON *meta,
		     const char *token)
{
	if (token && cJSON_IsObject(meta) &&
	    !cJSON_GetObjectItemCaseSensitive(meta, "progressToken"))
		put_with_member(o, raw, meta->child != NULL, "progressToken",
				token);
	else
		put_span(o, raw);
}

/* A raw params value, with _meta.progressToken added where it fits. */
static void put_params(struct out *o, struct span raw, const cJSON *params,
		       const char *token)
{
	const cJSON *meta;
	struct span m;

	if (!token || !cJSON_IsObject(params)) {
		put_span(o, raw);
		return;
	}
	meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	if (!meta) {
		put_with_member(o, raw, params->child != NULL, "_meta", token);
		return;
	}
	if (!member_find(raw, "_meta", &m)) {
		o->overflow = 1; /* cannot happen: cJSON found it */
		return;
	}
	put_min(o, raw.p, (size_t)(m.p - raw.p));
	put_meta(o, m, meta, token);
	put_min(o, m.p + m.n, raw.n - (size_t)(m.p + m.n - raw.p));
}

static void put_tool_call(struct out *o, struct span obj, const cJSON *root,
			  const char *token)
{
	struct span v;

	puts_(o, "\"tools/call\",\"params\":{\"name\":");
	if (member_find(obj, "name", &v))
		put_span(o, v);
	else
		o->overflow = 1;
	puts_(o, ",\"arguments\":");
	if (member_find(obj, "arguments", &v))
		put_span(o, v);
	else
		puts_(o, "{}");
	if (member_find(obj, "_meta", &v)) {
		puts_(o, ",\"_meta\":");
		put_meta(o, v, cJSON_GetObjectItemCaseSensitive(root, "_meta"),
			 token);
	} else if (token) {
		puts_(o, ",\"_meta\":");
		put_token_meta(o, token);
	}
	puts_(o, "}");
}

static void put_method(struct out *o, struct span obj, const cJSON *root,
		       const char *token)
{
	struct span v;

	if (member_find(obj, "method", &v))
		put_span(o, v);
	else
		o->overflow = 1;
	if (member_find(obj, "params", &v)) {
		puts_(o, ",\"params\":");
		put_params(o, v, cJSON_GetObjectItemCaseSensitive(root, "params"),
			   token);
	} else if (token) {
		puts_(o, ",\"params\":{\"_meta\":");
		put_token_meta(o, token);
		puts_(o, "}");
	}
}

char *mcp_request_build(const char *json, size_t len, uint64_t id,
			const char *progress_token, size_t *outlen)
{
	struct out o = {0};
	struct span obj;
	cJSON *root = NULL;
	const char *why;
	char num[32];
	size_t start;

	if (parse_request(json, len, &root, &why))
		return NULL;
	for (start = 0; start < len && is_ws(json[start]); start++)
		;
	obj.p = json + start;
	obj.n = value_len(obj.p, len - start);
	/* Fixed text, the id, the user's bytes, the token escaped 6x, "{}". */
	o.cap = len + 256 +
		(progress_token ? 6 * strlen(progress_token) + 64 : 0);
	o.p = malloc(o.cap + 1);
	if (!o.p) {
		cJSON_Delete(root);
		return NULL;
	}
	snprintf(num, sizeof(num), "%" PRIu64, id);
	puts_(&o, "{\"jsonrpc\":\"2.0\",\"id\":");
	puts_(&o, num);
	puts_(&o, ",\"method\":");
	if (cJSON_GetObjectItemCaseSensitive(root, "name"))
		put_tool_call(&o, obj, root, progress_token);
	else
		put_method(&o, obj, root, progress_token);
	puts_(&o, "}\n");
	cJSON_Delete(root);
	if (o.overflow) {
		free(o.p);
		return NULL;
	}
	o.p[o.n] = '\0';
	if (outlen)
		*outlen = o.n;
	return o.p;
}
