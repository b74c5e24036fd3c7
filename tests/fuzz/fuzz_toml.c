/*
 * fuzz_toml.c - libFuzzer target for the TOML reader (toml.c): it never
 * crashes, leaks or reads out of bounds; it gives a tree (an object) or a
 * "LINE:COL: problem" message, never both; a tree prints as JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL, *txt;
	cJSON *t = toml_parse((const char *)data, size, &err);

	if (t) {
		if (err || !cJSON_IsObject(t))
			abort();
		txt = cJSON_PrintUnformatted(t);
		if (!txt)
			abort();
		cJSON_free(txt);
		cJSON_Delete(t);
		return 0;
	}
	if (!err || (strspn(err, "0123456789") == 0 &&
		     strcmp(err, "out of memory")))
		abort();
	free(err);
	return 0;
}
