/*
 * fuzz_request.c - libFuzzer target for call-file requests. The build must
 * succeed exactly when the check accepts; the built line must be one line of
 * valid JSON-RPC whose params carry the request's own values unchanged (as
 * cJSON sees them) and, when asked, the progress token.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jscan.h"
#include "jsent.h"
#include "request.h"
#include "sessions.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Both absent, or both printing the same. */
static int same(const cJSON *a, const cJSON *b)
{
	char *pa, *pb;
	int eq;

	if (!a || !b)
		return !a && !b;
	pa = cJSON_PrintUnformatted(a);
	pb = cJSON_PrintUnformatted(b);
	if (!pa || !pb)
		abort();
	eq = strcmp(pa, pb) == 0;
	cJSON_free(pa);
	cJSON_free(pb);
	return eq;
}

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char token_json[] = "{\"progressToken\":\"tok\\\"1\"}";

/* out is in with the member key (holding want, printed) added first, or
 * just in when in already has key. */
static void check_added(const cJSON *in, const cJSON *out, const char *key,
			const char *want)
{
	cJSON *copy, *added;
	char *p;

	if (!cJSON_IsObject(out))
		abort();
	if (!in) {
		/* out is exactly {key: want} */
		if (!out->child || out->child->next ||
		    strcmp(out->child->string, key) != 0)
			abort();
		p = cJSON_PrintUnformatted(out->child);
		if (!p || strcmp(p, want) != 0)
			abort();
		cJSON_free(p);
		return;
	}
	if (cJSON_GetObjectItemCaseSensitive(in, key)) {
		if (!same(in, out))
			abort();
		return;
	}
	copy = cJSON_Duplicate(out, 1);
	if (!copy || !copy->child || strcmp(copy->child->string, key) != 0)
		abort();
	added = cJSON_DetachItemViaPointer(copy, copy->child);
	p = cJSON_PrintUnformatted(added);
	if (!p || strcmp(p, want) != 0 || !same(in, copy))
		abort();
	cJSON_free(p);
	cJSON_Delete(added);
	cJSON_Delete(copy);
}

/* out's _meta (inside params object out) against in's _meta. */
static void check_meta(const cJSON *in_meta, const cJSON *out_params)
{
	const cJSON *out_meta = get(out_params, "_meta");

	if (!in_meta) {
		check_added(NULL, out_meta, "progressToken", "\"tok\\\"1\"");
		return;
	}
	if (cJSON_IsObject(in_meta))
		check_added(in_meta, out_meta, "progressToken", "\"tok\\\"1\"");
	else if (!same(in_meta, out_meta))
		abort();
}

static void check_line(const char *req, size_t n, const char *line,
		       size_t len, uint64_t id, int token)
{
	cJSON *in, *out, *copy;
	const cJSON *params, *in_params, *v;
	struct jscan j;
	size_t used;

	if (len == 0 || line[len - 1] != '\n' || memchr(line, '\n', len - 1) ||
	    strlen(line) != len)
		abort();
	jscan_init(&j);
	if (jscan_feed(&j, line, len - 1, &used) != JSCAN_DONE ||
	    used != len - 1)
		abort();
	/* jsent_parse: a key with an escaped NUL ("_meta\u0000") is not
	 * the key before the NUL, as plain cJSON would read it */
	in = jsent_parse(req, n);
	out = jsent_parse(line, len - 1);
	if (!in || !out)
		abort();
	if (strcmp(cJSON_GetStringValue(get(out, "jsonrpc")), "2.0") != 0 ||
	    !cJSON_IsNumber(get(out, "id")) ||
	    (double)id != get(out, "id")->valuedouble)
		abort();
	params = get(out, "params");
	in_params = get(in, "params");
	if (get(in, "name")) {
		if (strcmp(cJSON_GetStringValue(get(out, "method")),
			   "tools/call") != 0 || !cJSON_IsObject(params))
			abort();
		if (!same(get(params, "name"), get(in, "name")))
			abort();
		v = get(in, "arguments");
		if (v ? !same(get(params, "arguments"), v) :
			!cJSON_IsObject(get(params, "arguments")) ||
			get(params, "arguments")->child)
			abort();
		if (token)
			check_meta(get(in, "_meta"), params);
		else if (!same(get(params, "_meta"), get(in, "_meta")))
			abort();
	} else {
		if (!same(get(out, "method"), get(in, "method")))
			abort();
		if (!token || cJSON_IsArray(in_params)) {
			if (!same(params, in_params))
				abort();
		} else if (!in_params) {
			check_added(NULL, params, "_meta", token_json);
		} else {
			check_meta(get(in_params, "_meta"), params);
			/* Apart from _meta, params are the user's. */
			copy = cJSON_Duplicate(params, 1);
			if (!copy)
				abort();
			if (!get(in_params, "_meta")) {
				cJSON_Delete(cJSON_DetachItemViaPointer(copy,
								copy->child));
				if (!same(copy, in_params))
					abort();
			}
			cJSON_Delete(copy);
		}
	}
	cJSON_Delete(in);
	cJSON_Delete(out);
}

/* mcp_req_parse accepts what mcp_request_check accepts; its key is "t:"
 * and the tool when it names one, "p:" and a name or nothing otherwise;
 * as the arguments of tools/x, an accepted object is a call of x. */
static void check_req(const char *req, size_t size, int rc)
{
	const char *why = NULL, *key;
	mcp_req *r = NULL;
	int e = mcp_req_parse(req, size, NULL, 0, &r, &why);

	if (e != rc || (e == 0) != (r != NULL) || (e == -EINVAL && !why))
		abort();
	if (r) {
		key = mcp_req_key(r);
		if (r->tool && *r->tool ? !key || strncmp(key, "t:", 2) ||
		    strcmp(key + 2, r->tool) : key && strncmp(key, "p:", 2))
			abort();
		mcp_req_free(r);
	}
	e = mcp_req_parse(req, size, "x", 0, &r, &why);
	if (e == 0 && (!r->tool || strcmp(mcp_req_key(r), "t:x")))
		abort();
	mcp_req_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *req = (const char *)data, *why = NULL;
	uint64_t id = (uint64_t)size * 2654435761u + 1;
	char *line;
	size_t len;
	int rc;

	rc = mcp_request_check(req, size, &why);
	if (rc != 0 && (rc != -EINVAL || !why))
		abort();
	line = mcp_request_build(req, size, id, NULL, &len);
	if ((line != NULL) != (rc == 0))
		abort();
	if (line)
		check_line(req, size, line, len, id, 0);
	free(line);
	line = mcp_request_build(req, size, id, "tok\"1", &len);
	if ((line != NULL) != (rc == 0))
		abort();
	if (line)
		check_line(req, size, line, len, id, 1);
	free(line);
	check_req(req, size, rc);
	return 0;
}
