/*
 * fuzz_askcheck.c - libFuzzer target for the checks of the server's
 * questions (askcheck.c). The input is the request's params (JSON from the
 * server), a NUL, and the answer (JSON from the user). A request that is
 * accepted as some kind must give an answer check that either refuses with
 * a reason or yields exactly one of a result and an error; a form result
 * holds every field the answer gave, unchanged (printed the same). URL
 * hosts are substrings of their URL; the formats never read past their
 * string.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "askcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const cJSON *get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* Aborts unless a and b print the same. Not cJSON_Compare: it finds an
 * object's members by name, so an object that gives a name twice (a field
 * whose schema has no type takes any value; the files' I-JSON check, not
 * askcheck, refuses such a name before an answer gets here) never equals
 * even its own exact copy. */
static void same_printed(const cJSON *a, const cJSON *b)
{
	char *pa = cJSON_PrintUnformatted(a);
	char *pb = b ? cJSON_PrintUnformatted(b) : NULL;

	if (!pa || !pb || strcmp(pa, pb))
		abort();
	free(pa);
	free(pb);
}

static void check(const char *method, const cJSON *params,
		  const cJSON *answer)
{
	static const char *const formats[] = {"email", "uri", "date",
					      "date-time", "other"};
	enum ask_kind kind;
	cJSON *res = NULL, *err = NULL, *f;
	char why[200], host[64];
	const cJSON *url = get(params, "url");
	size_t i;
	int r;

	if (cJSON_IsString(url) &&
	    ask_url_host(url->valuestring, host, sizeof host) == 0 &&
	    !strstr(url->valuestring, host))
		abort();
	if (cJSON_IsString(answer))
		for (i = 0; i < sizeof formats / sizeof formats[0]; i++)
			ask_format_ok(formats[i], answer->valuestring);
	why[0] = 0;
	if (ask_check_question(method, params, &kind, why, sizeof why) < 0) {
		if (!why[0])
			abort();
		return;
	}
	why[0] = 0;
	r = ask_check_answer(kind, params, answer, &res, &err, why, sizeof why);
	if (r < 0) {
		if (!why[0] || res || err)
			abort();
		return;
	}
	if (r != 0 || !res == !err || (kind != ASK_SAMPLING && !res))
		abort();
	if (kind == ASK_FORM && res) {
		const cJSON *got = get(res, "content");
		const cJSON *gave = get(answer, "content");

		if (got && gave)
			cJSON_ArrayForEach(f, gave)
				same_printed(f, get(got, f->string));
	}
	cJSON_Delete(res);
	cJSON_Delete(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t n1 = nul ? (size_t)(nul - data) : size;
	cJSON *params = cJSON_ParseWithLength((const char *)data, n1);
	cJSON *answer = nul ? cJSON_ParseWithLength((const char *)nul + 1,
						    size - n1 - 1) : NULL;

	check("elicitation/create", params, answer);
	check("sampling/createMessage", params, answer);
	cJSON_Delete(params);
	cJSON_Delete(answer);
	return 0;
}
