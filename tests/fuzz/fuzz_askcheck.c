/*
 * fuzz_askcheck.c - libFuzzer target for the checks of the server's
 * questions (askcheck.c). The input is the request's params (JSON from the
 * server), a NUL, and the answer (JSON from the user). A request that is
 * accepted as some kind must give an answer check that either refuses with
 * a reason or yields exactly one of a result and an error; a form result
 * holds every field the answer gave, unchanged. URL hosts are substrings
 * of their URL; the formats never read past their string.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "askcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *method, const cJSON *params,
		  const cJSON *answer)
{
	static const char *const formats[] = {"email", "uri", "date",
					      "date-time", "other"};
	enum ask_kind kind;
	cJSON *res = NULL, *err = NULL, *f;
	char why[200], host[64];
	const cJSON *url = cJSON_GetObjectItemCaseSensitive(params, "url");
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
		const cJSON *got = cJSON_GetObjectItemCaseSensitive(res,
								    "content");
		const cJSON *gave = cJSON_GetObjectItemCaseSensitive(answer,
								     "content");

		cJSON_ArrayForEach(f, got && gave ? gave : NULL)
			if (!cJSON_Compare(f, cJSON_GetObjectItemCaseSensitive(
					   got, f->string), 1))
				abort();
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
