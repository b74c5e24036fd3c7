/*
 * fuzz_jscan.c - libFuzzer target for the incremental JSON scanner. The
 * first byte picks a chunk size; the rest is scanned whole and in chunks,
 * and both runs must agree (verdict, error offset, reason). What the scanner
 * calls valid, cJSON must parse. The same again with the member-name check
 * (jscan_names): whole and in chunks alike; it refuses only valid JSON's
 * names; what it accepts has no object with two names alike as cJSON
 * reads them (which cuts a name at NUL, so a NUL name must be refused).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { V_VALID, V_INCOMPLETE, V_INVALID };

struct verdict {
	int v;
	size_t at;
	const char *why;
};

static int with_names;
static struct jscan_names names;

static struct verdict scan(const char *s, size_t n, size_t chunk)
{
	struct verdict out = {V_INCOMPLETE, 0, NULL};
	struct jscan j;
	size_t off = 0, k, used;
	int r;

	jscan_init(&j);
	if (with_names)
		jscan_names(&j, &names);
	while (off < n) {
		k = n - off > chunk ? chunk : n - off;
		r = jscan_feed(&j, s + off, k, &used);
		if (used > k)
			abort();
		if (r == JSCAN_ERROR) {
			if (!j.error)
				abort();
			out.v = V_INVALID;
			out.at = off + used;
			out.why = j.error;
			return out;
		}
		if (r == JSCAN_MORE && used != k)
			abort();
		if (r == JSCAN_DONE && used == 0) {
			/* the byte ending a top-level number: feed it again */
			r = jscan_feed(&j, s + off, k, &used);
			if (r == JSCAN_ERROR) {
				out.v = V_INVALID;
				out.at = off + used;
				out.why = j.error;
				return out;
			}
			if (used == 0)
				abort(); /* no progress */
		}
		off += used;
	}
	r = jscan_finish(&j);
	out.v = r == JSCAN_DONE ? V_VALID :
		r == JSCAN_ERROR ? V_INVALID : V_INCOMPLETE;
	return out;
}

/* 1 when some object under node has two members whose names cJSON reads
 * alike. */
static int has_twin(const cJSON *node)
{
	const cJSON *a, *b;

	for (a = node ? node->child : NULL; a; a = a->next) {
		if (cJSON_IsObject(node))
			for (b = a->next; b; b = b->next)
				if (!strcmp(a->string, b->string))
					return 1;
		if (has_twin(a))
			return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verdict whole, part, named, named_part;
	const char *s;
	size_t n, chunk;
	cJSON *tree;

	if (size < 1)
		return 0;
	chunk = data[0] % 17 + 1;
	s = (const char *)data + 1;
	n = size - 1;
	whole = scan(s, n, n ? n : 1);
	part = scan(s, n, chunk);
	if (whole.v != part.v)
		abort();
	if (whole.v == V_INVALID &&
	    (whole.at != part.at || strcmp(whole.why, part.why) != 0))
		abort();
	if (whole.v == V_INVALID && whole.at >= n)
		abort();
	with_names = 1;
	named = scan(s, n, n ? n : 1);
	named_part = scan(s, n, chunk);
	with_names = 0;
	if (named.v != named_part.v)
		abort();
	if (named.v == V_INVALID &&
	    (named.at != named_part.at || strcmp(named.why, named_part.why)))
		abort();
	if (whole.v == V_INVALID && (named.v != V_INVALID ||
				    named.at > whole.at))
		abort(); /* names never make bad text better */
	if (whole.v == V_INCOMPLETE && named.v == V_VALID)
		abort();
	if (whole.v == V_VALID) {
		tree = cJSON_ParseWithLength(s, n);
		if (!tree)
			abort();
		if (named.v == V_VALID && has_twin(tree))
			abort();
		cJSON_Delete(tree);
	}
	if (names.capbytes > 4 * (size_t)n + 256 ||
	    names.capent > (size_t)n + 16)
		abort(); /* bounded by the text */
	jscan_names_free(&names);
	return 0;
}
