/*
 * test_configfmt.c - the dialects of other clients' config files
 * (configfmt.c) and several files merged (configset.c): ${env:VAR},
 * ${workspaceFolder}, ${userHome}, ${input:ID} and other ${x:...} refused
 * with their names, env files, unknown keys as warnings, Claude Code's
 * projects, and later files winning by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "configfmt.h"
#include "configset.h"

static const struct mcp_config_ctx ws = {.workspace = "/w/proj"};

static void expands(const char *in, const struct mcp_config_ctx *ctx,
		    const char *want)
{
	char *err = NULL, *s = cfmt_expand(in, ctx, &err);

	if (!s)
		fail_msg("%s: %s", in, err);
	assert_string_equal(s, want);
	free(s);
}

static void refuses(const char *in, const char *want)
{
	char *err = NULL;

	assert_null(cfmt_expand(in, &ws, &err));
	assert_non_null(err);
	if (!strstr(err, want))
		fail_msg("%s: \"%s\" lacks \"%s\"", in, err, want);
	free(err);
}

static void test_variables(void **state)
{
	setenv("MCPFS_T_V", "val", 1);
	unsetenv("MCPFS_T_UNSET");
	setenv("HOME", "/home/u", 1);
	setenv("workspaceFolder", "from-env", 1);
	expands("${env:MCPFS_T_V}", &ws, "val");
	expands("a${env:MCPFS_T_UNSET}b", &ws, "ab");
	expands("${MCPFS_T_UNSET:-d}/${MCPFS_T_V}", &ws, "d/val");
	expands("${workspaceFolder}/.env", &ws, "/w/proj/.env");
	expands("${workspaceFolder}", NULL, "from-env"); /* no file: env */
	expands("${userHome}/x", NULL, "/home/u/x");
	expands("$HOME $", NULL, "$HOME $");
}

static void test_refused(void **state)
{
	refuses("${input:api-key}", "${input:api-key}: VS Code asks");
	refuses("x${input:}", "${input:}");
	refuses("${command:pick}", "${command:...}: variables of this kind");
	refuses("${config:a.b}", "${config:...}");
	refuses("${env:1BAD}", "${env:...}");
	refuses("${1X}", "bad ${...}");
	refuses("${A B}", "bad ${...}");
	refuses("${A", "unterminated ${");
}

static char *write_tmp(const char *name, const char *text)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", getenv("MCPFS_T_DIR"), name) < 0)
		fail();
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_env_file(void **state)
{
	char *path = write_tmp("t.env", "# c\n\nexport A=1\n  B = \"x \\\"y\\\"\"  \n"
			       "C='z' \nA=again\nD=keep\n");
	char **env = calloc(2, sizeof *env), *err = NULL;
	size_t n = 1;

	env[0] = strdup("D=from-env");
	assert_int_equal(cfmt_env_file(path, NULL, &env, &n, &err), 0);
	assert_int_equal(n, 4);
	assert_string_equal(env[0], "A=1");     /* the first A stays */
	assert_string_equal(env[1], "B=x \"y\"");
	assert_string_equal(env[2], "C=z");
	assert_string_equal(env[3], "D=from-env");
	assert_null(env[4]);
	while (n)
		free(env[--n]);
	free(env);
	free(path);

	path = write_tmp("bad.env", "A=1\nA-B=2\n");
	env = NULL;
	n = 0;
	assert_int_equal(cfmt_env_file(path, NULL, &env, &n, &err), -1);
	assert_string_equal(err, "env file bad.env:2: expected NAME=VALUE");
	free(err);
	while (n)
		free(env[--n]);
	free(env);
	free(path);

	err = NULL;
	assert_int_equal(cfmt_env_file("nope.env", &ws, &env, &n, &err), -1);
	assert_string_equal(err, "env file nope.env: No such file or "
			    "directory");
	free(err);
}

static void test_known_keys(void **state)
{
	assert_true(cfmt_known_key("command"));
	assert_true(cfmt_known_key("envFile"));
	assert_true(cfmt_known_key("warm"));
	assert_false(cfmt_known_key("autoApprove"));
	assert_false(cfmt_known_key("Command"));
}

static void test_merge_and_project(void **state)
{
	char *a = write_tmp("a.json",
		"{\"mcpServers\": {\"x\": {\"command\": \"a\"},"
		" \"y\": {\"command\": \"a\", \"oops\": 1}}}");
	char *b = write_tmp("b.json",
		"{\"numStartups\": 3, \"mcpServers\": {\"y\": {\"command\": \"b\"}},"
		" \"projects\": {\"/p\": {\"mcpServers\": {"
		"  \"z\": {\"command\": \"p\"}, \"x\": {\"command\": \"p\"}}}}}");
	const char *paths[] = {a, b};
	struct mcp_config *c;
	struct mcp_server_conf *s;
	char *err = NULL;

	assert_int_equal(mcp_config_load_files(paths, 2, NULL, &c, &err), 0);
	s = c->servers;
	assert_string_equal(s->name, "x");
	assert_string_equal(s->command, "a");
	s = s->next;
	assert_string_equal(s->name, "y");     /* b's, in a's place */
	assert_string_equal(s->command, "b");
	assert_null(s->next);
	assert_int_equal(c->nwarnings, 1);
	assert_non_null(strstr(c->warnings[0], "mcpServers.y.oops: unknown "
				"key, ignored"));
	mcp_config_free(c);

	assert_int_equal(mcp_config_load_files(paths, 2, "/p", &c, &err), 0);
	s = c->servers;
	assert_string_equal(s->name, "x");     /* the project's */
	assert_string_equal(s->command, "p");
	assert_string_equal(s->next->name, "y");
	assert_string_equal(s->next->next->name, "z");
	assert_null(s->next->next->next);
	mcp_config_free(c);

	assert_int_equal(mcp_config_load_files(paths, 2, "/q", &c, &err), 0);
	assert_int_equal(c->nwarnings, 2);
	assert_non_null(strstr(c->warnings[1], "--project: no such project"));
	mcp_config_free(c);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_env_file),
		cmocka_unit_test(test_known_keys),
		cmocka_unit_test(test_merge_and_project),
	};
	char dir[] = "/tmp/mcpfs-test-configfmt-XXXXXX";
	int r;

	if (!mkdtemp(dir))
		return 1;
	setenv("MCPFS_T_DIR", dir, 1);
	static const char *const made[] = {"t.env", "bad.env", "a.json",
					   "b.json"};
	char path[sizeof dir + 16];
	size_t i;

	r = cmocka_run_group_tests(tests, NULL, NULL);
	for (i = 0; i < sizeof made / sizeof made[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, made[i]);
		unlink(path);
	}
	rmdir(dir);
	return r;
}
