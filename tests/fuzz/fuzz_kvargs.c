/*
 * fuzz_kvargs.c - libFuzzer target for NAME=VALUE request lines
 * (lib/kvargs.c) and the help/ text (sessions/guide/help.c). The input's
 * first line is a tool entry (JSON; when it parses, its help is rendered
 * and its inputSchema types the rest), the rest the lines. A parse that
 * succeeds must give one JSON object with no more members than lines; a
 * refusal must name a line ("line N: ").
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "help.h"
#include "kvargs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	const char *nl = memchr(p, '\n', size);
	size_t head = nl ? (size_t)(nl - p) : 0, i, lines = 1;
	char *first = strndup(p, head), *out = NULL, *why = NULL, *h;
	cJSON *tool = first ? cJSON_Parse(first) : NULL, *o;
	const char *rest = nl ? nl + 1 : p;
	size_t n = nl ? size - head - 1 : size;
	int r;

	if (tool) {
		h = help_render(tool, 0, NULL);
		free(h);
		h = help_render(tool, 1, NULL);
		free(h);
	}
	for (i = 0; i < n; i++)
		lines += rest[i] == '\n';
	r = kvargs_parse(rest, n, cJSON_GetObjectItemCaseSensitive(
				       tool, "inputSchema"), &out, &why);
	if (r == 0) {
		o = cJSON_Parse(out);
		if (!cJSON_IsObject(o) ||
		    (size_t)cJSON_GetArraySize(o) > lines || why)
			abort();
		cJSON_Delete(o);
	} else if (r == -EINVAL) {
		if (!why || strncmp(why, "line ", 5) || out)
			abort();
	} else if (r != -ENOMEM) {
		abort();
	}
	cJSON_free(out);
	free(why);
	free(first);
	cJSON_Delete(tool);
	return 0;
}
