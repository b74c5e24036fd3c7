/*
 * fuzz_kvargs.c - libFuzzer target for NAME=VALUE request lines
 * (lib/kvargs.c) and the help/ text (sessions/guide/help.c). The input's
 * first line is a tool entry (JSON; when it parses, its help is rendered
 * and its inputSchema types the rest), the rest the lines. A parse that
 * succeeds must give one JSON object with no more members than lines; a
 * refusal must name a line ("line N: "). The help's lines at column 0
 * are mcpfs's own (spec 12: the server's text is quoted), with one "Run
 * it" heading; a placeholder value is refused.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "help.h"
#include "kvargs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort unless every line of the help text h that starts at column 0 is
 * one of mcpfs's headings, and exactly one is the "Run it" one. */
static void own_sections(const char *h)
{
	static const char *const heads[] = {
		"tool ", "prompt ", "Arguments:", "Run it", "The reply:",
		"Output schema (", "Annotations: ",
	};
	const char *p;
	size_t i;
	int runs = 0;

	for (p = h; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (*p == '\n' || *p == ' ')
			continue;
		for (i = 0; i < sizeof heads / sizeof *heads; i++)
			if (!strncmp(p, heads[i], strlen(heads[i])))
				break;
		if (i == sizeof heads / sizeof *heads || (i < 2 && p != h))
			abort();
		runs += i == 3;
	}
	if (runs != 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data;
	const char *nl = memchr(p, '\n', size);
	size_t head = nl ? (size_t)(nl - p) : 0, i, lines = 1;
	char *first = strndup(p, head), *out = NULL, *why = NULL, *h;
	char *one, *eq;
	cJSON *tool = first ? cJSON_Parse(first) : NULL, *o;
	const char *rest = nl ? nl + 1 : p;
	size_t n = nl ? size - head - 1 : size;
	int r;

	if (tool) {
		h = help_render(tool, 0, NULL);
		if (h)
			own_sections(h);
		free(h);
		h = help_render(tool, 1, NULL);
		if (h)
			own_sections(h);
		free(h);
	}
	for (i = 0; i < n; i++)
		lines += rest[i] == '\n';
	r = kvargs_parse(rest, n, cJSON_GetObjectItemCaseSensitive(
				       tool, "inputSchema"), &out, &why);
	if (r == 0 && (one = strndup(rest, n)) != NULL) {
		/* one line NAME=<integer>: refused, whatever the type */
		eq = strchr(one, '=');
		if (strlen(one) == n && !strchr(one, '\n') && eq &&
		    (eq == one || eq[-1] != ':') &&
		    kvargs_is_placeholder(eq + 1))
			abort();
		free(one);
	}
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
