/*
 * test_dialect.c - the config files of Codex, OpenCode, Zed, Gemini CLI,
 * Goose, Windsurf and Cline (dialect.c, yamlconf.c) as mcpfs reads them:
 * each dialect's keys mapped onto mcpfs's (transport, env, headers,
 * timeout, the tool policy, disabled), what has no use a warning, a wrong
 * type an error naming the key as the file spells it, and the syntax
 * chosen by the file's name and content.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"

static struct mcp_config *parse(const char *name, const char *text)
{
	struct mcp_config *c = NULL;
	char *err = NULL;

	if (mcp_config_parse(text, strlen(text), name, &c, &err) < 0)
		fail_msg("%s: %s", name, err);
	return c;
}

static void refuses(const char *name, const char *text, const char *want)
{
	struct mcp_config *c = NULL;
	char *err = NULL;

	if (mcp_config_parse(text, strlen(text), name, &c, &err) == 0)
		fail_msg("%s: accepted", name);
	if (strcmp(err, want))
		fail_msg("%s\n  gave %s\n  want %s", name, err, want);
	free(err);
}

static const struct mcp_server_conf *server(const struct mcp_config *c,
					    const char *name)
{
	const struct mcp_server_conf *s;

	for (s = c->servers; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	fail_msg("no server %s", name);
	return NULL;
}

static size_t count(const struct mcp_config *c)
{
	const struct mcp_server_conf *s;
	size_t n = 0;

	for (s = c->servers; s; s = s->next)
		n++;
	return n;
}

/* 1 if a warning holds all of the words (NULL-terminated). */
static int warned(const struct mcp_config *c, const char *a, const char *b)
{
	size_t i;

	for (i = 0; i < c->nwarnings; i++)
		if (strstr(c->warnings[i], a) && (!b || strstr(c->warnings[i], b)))
			return 1;
	return 0;
}

static void test_codex(void **state)
{
	struct mcp_config *c;
	const struct mcp_server_conf *s;

	setenv("MCPFS_T_TOK", "sekrit", 1);
	c = parse("/h/.codex/config.toml",
		  "model = 'o3'\n"
		  "[mcp_servers.a]\ncommand = 'npx'\nargs = ['-y', 'x']\n"
		  "env = { K = 'v' }\ncwd = '/tmp'\ntool_timeout_sec = 12.5\n"
		  "startup_timeout_sec = 3\nenabled_tools = ['get*']\n"
		  "disabled_tools = ['get_secret']\nfoo = 1\n"
		  "[mcp_servers.b]\nurl = 'https://x/mcp'\n"
		  "bearer_token_env_var = 'MCPFS_T_TOK'\n"
		  "env_http_headers = { 'X-K' = 'MCPFS_T_TOK' }\n"
		  "http_headers = { 'X-Plain' = 'p' }\n"
		  "[mcp_servers.off]\ncommand = 'x'\nenabled = false\n");
	assert_int_equal(count(c), 2);
	s = server(c, "a");
	assert_string_equal(s->command, "npx");
	assert_int_equal(s->nargs, 2);
	assert_string_equal(s->env[0], "K=v");
	assert_string_equal(s->cwd, "/tmp");
	assert_true(s->timeout == 12.5);
	assert_int_equal(s->nallow, 1);
	assert_string_equal(s->allow_tools[0], "get*");
	assert_string_equal(s->deny_tools[0], "get_secret");
	assert_true(warned(c, "mcp_servers.a.startup_timeout_sec", "ignored"));
	assert_true(warned(c, "mcp_servers.a.foo", "unknown key"));
	s = server(c, "b");
	assert_string_equal(s->url, "https://x/mcp");
	assert_int_equal(s->transport, MCP_TRANSPORT_HTTP_OR_SSE);
	assert_int_equal(s->nheaders, 3);
	assert_string_equal(s->headers[0], "Authorization: Bearer sekrit");
	assert_string_equal(s->headers[1], "X-K: sekrit");
	assert_string_equal(s->headers[2], "X-Plain: p");
	assert_null(s->allow_tools);
	mcp_config_free(c);
	refuses("config.toml", "[mcp_servers.a]\ncommand = 'x'\nargs = 'y'\n",
		"config.toml: mcp_servers.a.args: must be an array of strings");
	refuses("config.toml", "[mcp_servers.a]\ncommand = \n",
		"config.toml:2:11: invalid TOML: expected a value");
	/* a file with no servers is no error */
	c = parse("config.toml", "model = 'o3'\n");
	assert_int_equal(count(c), 0);
	assert_true(warned(c, "no MCP servers", NULL));
	mcp_config_free(c);
}

static void test_opencode(void **state)
{
	struct mcp_config *c;
	const struct mcp_server_conf *s;

	setenv("MCPFS_T_TOK", "sekrit", 1);
	c = parse("opencode.json",
		  "{\"$schema\": \"https://opencode.ai/config.json\",\n"
		  " // comments are fine here\n"
		  " \"mcp\": {\"l\": {\"type\": \"local\", \"command\": [\"bun\", "
		  "\"x\", \"{env:MCPFS_T_TOK}\"], \"environment\": {\"A\": \"b\"},"
		  " \"timeout\": 2500},\n"
		  "  \"r\": {\"type\": \"remote\", \"url\": \"https://r/mcp\", "
		  "\"headers\": {\"Authorization\": \"Bearer {env:MCPFS_T_TOK}\"},"
		  " \"oauth\": false},\n"
		  "  \"off\": {\"type\": \"local\", \"command\": [\"x\"], "
		  "\"enabled\": false},}}");
	assert_int_equal(count(c), 2);
	s = server(c, "l");
	assert_string_equal(s->command, "bun");
	assert_int_equal(s->nargs, 2);
	assert_string_equal(s->args[1], "sekrit");
	assert_string_equal(s->env[0], "A=b");
	assert_true(s->timeout == 2.5);
	s = server(c, "r");
	assert_string_equal(s->headers[0], "Authorization: Bearer sekrit");
	assert_non_null(s->oauth);
	assert_int_equal(s->oauth->enabled, 0);
	assert_int_equal(c->nwarnings, 0);
	mcp_config_free(c);
	refuses("opencode.json", "{\"mcp\": {\"l\": {\"command\": \"x y\"}}}",
		"opencode.json: mcp.l.command: must be a non-empty array of "
		"strings");
}

static void test_zed(void **state)
{
	struct mcp_config *c;
	const struct mcp_server_conf *s;

	c = parse("/h/.config/zed/settings.json",
		  "// Zed\n{\"theme\": \"x\", /* inline */ \"context_servers\": {\n"
		  "  \"new\": {\"command\": \"n\", \"args\": [\"1\",],},\n"
		  "  \"old\": {\"command\": {\"path\": \"o\", \"args\": [], "
		  "\"env\": {\"E\": \"1\"}}, \"settings\": {}},\n"
		  "  \"remote\": {\"url\": \"http://h/mcp\", \"headers\": "
		  "{\"A\": \"b\"}},\n"
		  "  \"ext\": {\"settings\": {\"token\": \"t\"}}}}\n");
	assert_int_equal(count(c), 3);
	assert_string_equal(server(c, "new")->args[0], "1");
	s = server(c, "old");
	assert_string_equal(s->command, "o");
	assert_string_equal(s->env[0], "E=1");
	assert_string_equal(server(c, "remote")->headers[0], "A: b");
	assert_true(warned(c, "context_servers.ext", "only Zed"));
	assert_true(warned(c, "context_servers.old.settings", "ignored"));
	mcp_config_free(c);
	/* a comment where it cannot be is still an error, at its line */
	refuses("settings.json", "{\"context_servers\": {\n\"a\": }}",
		"settings.json:2:6: invalid JSON: unexpected character");
}

static void test_gemini(void **state)
{
	struct mcp_config *c;
	const struct mcp_server_conf *s;

	c = parse("/h/.gemini/settings.json",
		  "{\"mcpServers\": {\n"
		  " \"h\": {\"httpUrl\": \"http://h/mcp\", \"timeout\": 30000,"
		  " \"includeTools\": [\"a\", \"b\"], \"excludeTools\": [\"b\"],"
		  " \"trust\": true},\n"
		  " \"s\": {\"url\": \"http://s/sse\"},\n"
		  " \"x\": {\"command\": \"x\"}},\n"
		  " \"mcp\": {\"excluded\": [\"x\"]}}");
	assert_int_equal(count(c), 2);
	s = server(c, "h");
	assert_int_equal(s->transport, MCP_TRANSPORT_HTTP);
	assert_true(s->timeout == 30);
	assert_int_equal(s->nallow, 2);
	assert_int_equal(s->ndeny, 1);
	assert_int_equal(server(c, "s")->transport, MCP_TRANSPORT_SSE);
	assert_true(warned(c, "mcpServers.h.trust", "ignored"));
	assert_true(warned(c, "server x", "mcp.excluded"));
	mcp_config_free(c);
	/* recognised by content too (includeTools) */
	c = parse("my.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\","
		  " \"includeTools\": [\"t\"], \"timeout\": 1500}}}");
	assert_true(server(c, "a")->timeout == 1.5);
	assert_string_equal(server(c, "a")->allow_tools[0], "t");
	mcp_config_free(c);
}

/* Gemini's mcp.allowed: only the servers it names are run; mcp.excluded
 * wins over it; each one left out is named in a warning. */
static void test_gemini_allowed(void **state)
{
	struct mcp_config *c;

	c = parse("/h/.gemini/settings.json",
		  "{\"mcpServers\": {\"a\": {\"command\": \"a\"},"
		  " \"b\": {\"command\": \"b\"}, \"c\": {\"command\": \"c\"}},"
		  " \"mcp\": {\"allowed\": [\"a\", \"c\"], \"excluded\": [\"c\"]}}");
	assert_int_equal(count(c), 1);
	assert_string_equal(c->servers->name, "a");
	assert_true(warned(c, "server b", "mcp.allowed"));
	assert_true(warned(c, "server c", "mcp.allowed"));
	assert_false(warned(c, "server a", "mcp.allowed"));
	mcp_config_free(c);
	/* an empty allowed list runs none of them */
	c = parse("/h/.gemini/settings.json",
		  "{\"mcpServers\": {\"a\": {\"command\": \"a\"}},"
		  " \"mcp\": {\"allowed\": []}}");
	assert_int_equal(count(c), 0);
	mcp_config_free(c);
}

static void test_goose(void **state)
{
	struct mcp_config *c;
	const struct mcp_server_conf *s;

	c = parse("/h/.config/goose/config.yaml",
		  "GOOSE_MODEL: x\n"
		  "extensions:\n"
		  "  developer:\n    type: builtin\n    enabled: true\n"
		  "  s:\n    type: stdio\n    cmd: uvx\n    args: [a, '1']\n"
		  "    envs: {K: v}\n    timeout: 300\n"
		  "    available_tools: [t1]\n    name: s\n    bundled: null\n"
		  "  r:\n    type: sse\n    uri: http://r/sse\n"
		  "  q:\n    type: streamable_http\n    uri: http://q/mcp\n"
		  "    enabled: false\n");
	assert_int_equal(count(c), 2);
	s = server(c, "s");
	assert_string_equal(s->command, "uvx");
	assert_string_equal(s->args[1], "1");
	assert_string_equal(s->env[0], "K=v");
	assert_true(s->timeout == 300);
	assert_string_equal(s->allow_tools[0], "t1");
	assert_int_equal(server(c, "r")->transport, MCP_TRANSPORT_SSE);
	assert_true(warned(c, "extensions.developer", "only Goose"));
	mcp_config_free(c);
	refuses("config.yaml", "extensions:\n  a: &x {cmd: y}\n  b: *x\n",
		"config.yaml: invalid YAML at /extensions/b: aliases are not "
		"supported");
	refuses("config.yaml", "extensions:\n  a: [\n",
		"config.yaml:3:1: invalid YAML: flow sequence without a "
		"closing bracket");
	refuses("config.yaml", "%\x80", /* libfyaml 0.7.12 loops on it */
		"config.yaml:1:1: invalid YAML: directives are not supported");
	refuses("config.yaml", "a: \x80\n",
		"config.yaml:1:4: invalid YAML: not UTF-8");
	refuses("config.yaml", "extensions:\n  a:\n    cmd: [x]\n",
		"config.yaml: extensions.a.cmd: must be a string");
}

static void test_windsurf_cline(void **state)
{
	struct mcp_config *c;

	c = parse("mcp_config.json",
		  "{\"mcpServers\": {\"w\": {\"serverUrl\": \"http://w/mcp\"},"
		  " \"c\": {\"command\": \"x\", \"autoApprove\": [\"a\"],"
		  " \"disabled\": false, \"timeout\": 60},"
		  " \"off\": {\"command\": \"x\", \"disabled\": true}}}");
	assert_int_equal(count(c), 2);
	assert_string_equal(server(c, "w")->url, "http://w/mcp");
	assert_true(server(c, "c")->timeout == 60);
	assert_int_equal(c->nwarnings, 1);
	assert_true(warned(c, "mcpServers.c.autoApprove", "ignored"));
	mcp_config_free(c);
	/* plain JSON files stay strict */
	refuses("servers.json", "{\"mcpServers\": {}, // no\n}",
		"servers.json:1:20: invalid JSON: expected a string key");
}

static void test_vscode_user_settings(void **state)
{
	struct mcp_config *c;

	c = parse("/h/.config/Code/User/settings.json",
		  "{\"editor.fontSize\": 14, // JSON with comments\n"
		  " \"mcp\": {\"servers\": {\"v\": {\"type\": \"stdio\","
		  " \"command\": \"x\", \"bogus\": 1}}}}");
	assert_string_equal(server(c, "v")->command, "x");
	assert_true(warned(c, "mcp.servers.v.bogus", "unknown key"));
	mcp_config_free(c);
	/* .vscode/mcp.json takes comments too */
	c = parse("/p/.vscode/mcp.json", "{// x\n\"servers\": {\"a\": "
		  "{\"command\": \"x\",},},}");
	assert_string_equal(server(c, "a")->command, "x");
	mcp_config_free(c);
	refuses("settings.json", "{\"mcp\": {\"servers\": {\"v\": {}}}}",
		"settings.json: mcp.servers.v.command: missing (required for "
		"stdio servers)");
}

static void test_policy_keys(void **state)
{
	struct mcp_config *c;
	const struct mcp_server_conf *s;

	c = parse("servers.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\","
		  " \"allowTools\": [], \"denyTools\": [\"*\"], "
		  "\"readOnly\": true}}}");
	s = server(c, "a");
	assert_non_null(s->allow_tools);
	assert_int_equal(s->nallow, 0);
	assert_int_equal(s->ndeny, 1);
	assert_int_equal(s->read_only, 1);
	assert_int_equal(c->nwarnings, 0);
	mcp_config_free(c);
	refuses("servers.json", "{\"mcpServers\": {\"a\": {\"command\": \"x\","
		" \"readOnly\": 1}}}",
		"servers.json: mcpServers.a.readOnly: must be true or false");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codex),
		cmocka_unit_test(test_opencode),
		cmocka_unit_test(test_zed),
		cmocka_unit_test(test_gemini),
		cmocka_unit_test(test_gemini_allowed),
		cmocka_unit_test(test_goose),
		cmocka_unit_test(test_windsurf_cline),
		cmocka_unit_test(test_vscode_user_settings),
		cmocka_unit_test(test_policy_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
