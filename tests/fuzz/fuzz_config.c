/*
 * fuzz_config.c - libFuzzer target for servers.json parsing, ${VAR}
 * expansion and the name rules. Each input is read under the file name of
 * each dialect (dialect.h: JSON, JSON with comments, TOML, YAML, Gemini's
 * settings), so every syntax and every rewrite is fuzzed. A parsed config must satisfy the header's
 * promises (names valid, commands non-empty, env as KEY=value, 12-hex
 * digests); a failed parse must name the file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setenv("FUZZ_A", "value-a", 1);
	setenv("FUZZ_EMPTY", "", 1);
	return 0;
}

static const char *const names[] = {
	"fuzz.json", "config.toml", "config.yaml", "settings.json",
	"opencode.json", "/h/.gemini/settings.json",
};
#define NNAMES (sizeof names / sizeof names[0])

static int from_a_file(const char *w)
{
	size_t k;

	for (k = 0; k < NNAMES; k++)
		if (!strncmp(w, names[k], strlen(names[k])) &&
		    !strncmp(w + strlen(names[k]), ": ", 2))
			return 1;
	return 0;
}

static void check_conf(const struct mcp_config *c)
{
	const struct mcp_server_conf *s;
	size_t i;

	for (s = c->servers; s; s = s->next) {
		if (mcp_server_name_check(s->name) || !s->command == !s->url)
			abort();
		if (s->command && !*s->command)
			abort();
		if (s->url && strncmp(s->url, "http://", 7) &&
		    strncmp(s->url, "https://", 8))
			abort();
		for (i = 0; i < s->nheaders; i++)
			if (!strstr(s->headers[i], ": ") ||
			    strpbrk(s->headers[i], "\r\n"))
				abort();
		if (strlen(s->digest) != 12 ||
		    strspn(s->digest, "0123456789abcdef") != 12)
			abort();
		for (i = 0; i < s->nargs; i++)
			if (!s->args[i])
				abort();
		for (i = 0; i < s->nenv; i++)
			if (!s->env[i] || s->env[i][0] == '=' ||
			    !strchr(s->env[i], '='))
				abort();
		for (i = 0; i < s->nroots; i++)
			if (!strstr(s->roots[i], "://"))
				abort();
		if (s->cwd && !*s->cwd)
			abort();
		if (!mcp_conf_same_launch(s, s))
			abort();
	}
	for (i = 0; i < c->nwarnings; i++)
		if (strncmp(c->warnings[i], "server ", 7) != 0 &&
		    !from_a_file(c->warnings[i]))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_config *c = NULL;
	const char *why = NULL;
	char *err = NULL, *str, *x;
	size_t k;
	int rc;

	for (k = 0; k < NNAMES; k++) {
		c = NULL;
		err = NULL;
		rc = mcp_config_parse((const char *)data, size, names[k], &c,
				      &err);
		if (rc == 0) {
			if (!c || err)
				abort();
			check_conf(c);
			mcp_config_free(c);
		} else {
			if (rc != -1 || c || !err ||
			    strncmp(err, names[k], strlen(names[k])) != 0)
				abort();
			free(err);
		}
	}

	str = malloc(size + 1);
	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = '\0';
	x = mcp_expand(str, &why);
	if (!x && !why)
		abort();
	free(x);
	if (mcp_thread_name_valid(str) &&
	    (str[0] == '.' || strlen(str) > 128 || strchr(str, '/')))
		abort();
	if (!mcp_server_name_check(str) && (!*str || strchr(str, '/')))
		abort();
	free(str);
	return 0;
}
