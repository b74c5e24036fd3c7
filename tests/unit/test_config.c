/*
 * test_config.c - servers.json parsing: every field, file order, the VS Code
 * "servers" key, http and disabled entries, ${VAR} expansion, name rules,
 * the digest and launch comparison, and the exact error messages (line
 * numbers for syntax errors, field paths for the rest).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config.h"

#define PATH "/x/servers.json"

static struct mcp_config *parse_ok(const char *text)
{
	struct mcp_config *c = NULL;
	char *err = NULL;

	if (mcp_config_parse(text, strlen(text), PATH, &c, &err) != 0)
		fail_msg("parse failed: %s", err);
	assert_null(err);
	assert_non_null(c);
	return c;
}

/* Parse must fail with exactly want. */
static void parse_err(const char *text, const char *want)
{
	struct mcp_config *c = (struct mcp_config *)1;
	char *err = NULL;

	assert_int_equal(mcp_config_parse(text, strlen(text), PATH, &c, &err),
			 -1);
	assert_null(c);
	assert_non_null(err);
	assert_string_equal(err, want);
	free(err);
}

static void test_minimal(void **state)
{
	struct mcp_config *c = parse_ok("{\"mcpServers\":{\"a\":{\"command\":\"x\"}}}");
	struct mcp_server_conf *s = c->servers;

	assert_non_null(s);
	assert_null(s->next);
	assert_string_equal(s->name, "a");
	assert_string_equal(s->command, "x");
	assert_int_equal(s->nargs, 0);
	assert_int_equal(s->nenv, 0);
	assert_int_equal(s->nroots, 0);
	assert_null(s->cwd);
	assert_true(s->timeout == -1);
	assert_true(s->idle_timeout == -1);
	assert_int_equal(strlen(s->digest), 12);
	assert_int_equal(strspn(s->digest, "0123456789abcdef"), 12);
	assert_int_equal(c->nwarnings, 0);
	mcp_config_free(c);
}

static void test_all_fields(void **state)
{
	struct mcp_config *c = parse_ok(
		"{\n"
		"  \"mcpServers\": {\n"
		"    \"pw\": {\n"
		"      \"command\": \"npx\",\n"
		"      \"args\": [\"-y\", \"@playwright/mcp\", \"--headless\"],\n"
		"      \"env\": {\"ZED\": \"z\", \"TOKEN\": \"t=1\", \"A\": \"\"},\n"
		"      \"cwd\": \"/tmp\",\n"
		"      \"timeout\": 60, \"idleTimeout\": 0.5,\n"
		"      \"roots\": [\"/home/u/my proj\", \"https://h/x?y\", \"/\"],\n"
		"      \"disabled\": false,\n"
		"      \"whatever\": {\"unknown\": [1, 2]}\n"
		"    }\n"
		"  },\n"
		"  \"other\": 1\n"
		"}\n");
	struct mcp_server_conf *s = c->servers;

	assert_non_null(s);
	assert_string_equal(s->name, "pw");
	assert_string_equal(s->command, "npx");
	assert_int_equal(s->nargs, 3);
	assert_string_equal(s->args[0], "-y");
	assert_string_equal(s->args[1], "@playwright/mcp");
	assert_string_equal(s->args[2], "--headless");
	/* env sorted by name */
	assert_int_equal(s->nenv, 3);
	assert_string_equal(s->env[0], "A=");
	assert_string_equal(s->env[1], "TOKEN=t=1");
	assert_string_equal(s->env[2], "ZED=z");
	assert_string_equal(s->cwd, "/tmp");
	assert_true(s->timeout == 60);
	assert_true(s->idle_timeout == 0.5);
	assert_int_equal(s->nroots, 3);
	assert_string_equal(s->roots[0], "file:///home/u/my%20proj");
	assert_string_equal(s->roots[1], "https://h/x?y");
	assert_string_equal(s->roots[2], "file:///");
	mcp_config_free(c);
}

static void test_order_and_vscode(void **state)
{
	struct mcp_config *c = parse_ok(
		"{\"mcpServers\":{\"zeta\":{\"command\":\"z\"},"
		"\"alpha\":{\"command\":\"a\"},\"mid\":{\"command\":\"m\"}}}");
	struct mcp_server_conf *s = c->servers;

	assert_string_equal(s->name, "zeta");
	assert_string_equal(s->next->name, "alpha");
	assert_string_equal(s->next->next->name, "mid");
	assert_null(s->next->next->next);
	mcp_config_free(c);

	c = parse_ok("{\"servers\":{\"v\":{\"type\":\"stdio\","
		     "\"command\":\"node\",\"args\":[\"s.js\"]}},"
		     "\"inputs\":[]}");
	assert_string_equal(c->servers->name, "v");
	assert_string_equal(c->servers->args[0], "s.js");
	mcp_config_free(c);

	/* mcpServers wins when both are there. */
	c = parse_ok("{\"servers\":{\"v\":{\"command\":\"x\"}},"
		     "\"mcpServers\":{\"m\":{\"command\":\"y\"}}}");
	assert_string_equal(c->servers->name, "m");
	assert_null(c->servers->next);
	mcp_config_free(c);

	/* An empty set of servers is valid. */
	c = parse_ok("{\"mcpServers\":{}}");
	assert_null(c->servers);
	mcp_config_free(c);
}

static void test_remote_and_disabled(void **state)
{
	struct mcp_config *c = parse_ok(
		"{\"mcpServers\":{"
		"\"web\":{\"url\":\"https://example.com/mcp\"},"
		"\"off\":{\"command\":\"x\",\"disabled\":true},"
		"\"s\":{\"type\":\"sse\",\"url\":\"http://h/sse\"},"
		"\"off2\":{\"disabled\":true,\"args\":5},"
		"\"ok\":{\"command\":\"x\",\"disabled\":false,"
		"\"type\":\"stdio\"}}}");

	assert_non_null(c->servers);
	assert_string_equal(c->servers->name, "web");
	assert_string_equal(c->servers->url, "https://example.com/mcp");
	assert_int_equal(c->servers->transport, MCP_TRANSPORT_HTTP_OR_SSE);
	assert_null(c->servers->command);
	assert_non_null(c->servers->next);
	assert_string_equal(c->servers->next->name, "s");
	assert_string_equal(c->servers->next->url, "http://h/sse");
	assert_int_equal(c->servers->next->transport, MCP_TRANSPORT_SSE);
	assert_non_null(c->servers->next->next);
	assert_string_equal(c->servers->next->next->name, "ok");
	assert_null(c->servers->next->next->url);
	assert_int_equal(c->servers->next->next->transport,
			 MCP_TRANSPORT_STDIO);
	assert_null(c->servers->next->next->next);
	assert_int_equal(c->nwarnings, 0);
	mcp_config_free(c);

	parse_err("{\"mcpServers\":{\"a\":{\"command\":\"x\",\"disabled\":1}}}",
		  PATH ": mcpServers.a.disabled: must be true or false");
}

static void test_http_fields(void **state)
{
	struct mcp_config *c;
	struct mcp_server_conf *s;

	setenv("MCPFS_T_TOKEN", "sekrit", 1);
	c = parse_ok("{\"mcpServers\":{\"h\":{\"type\":\"http\","
		     "\"url\":\"http://127.0.0.1:${MCPFS_T_PORT:-80}/mcp\","
		     "\"headers\":{\"X-B\":\"2\",\"Authorization\":"
		     "\"Bearer ${MCPFS_T_TOKEN}\",\"x-a\":\"1\"},"
		     "\"timeout\":5,\"roots\":[\"/r\"]}}}");
	s = c->servers;
	assert_string_equal(s->url, "http://127.0.0.1:80/mcp");
	assert_int_equal(s->nheaders, 3);
	assert_string_equal(s->headers[0], "Authorization: Bearer sekrit");
	assert_string_equal(s->headers[1], "x-a: 1");
	assert_string_equal(s->headers[2], "X-B: 2");
	assert_true(s->timeout == 5);
	assert_int_equal(s->nroots, 1);
	assert_int_equal(strlen(s->digest), 12);
	mcp_config_free(c);

	c = parse_ok("{\"servers\":{\"h\":{\"type\":\"streamable-http\","
		     "\"url\":\"https://h/\"},\"g\":{\"type\":"
		     "\"streamableHttp\",\"url\":\"https://g/\"}}}");
	assert_string_equal(c->servers->url, "https://h/");
	assert_int_equal(c->servers->transport, MCP_TRANSPORT_HTTP);
	assert_string_equal(c->servers->next->url, "https://g/");
	assert_int_equal(c->servers->next->transport, MCP_TRANSPORT_HTTP);
	mcp_config_free(c);

	c = parse_ok("{\"servers\":{\"h\":{\"type\":\"http\","
		     "\"url\":\"https://h/\"},\"s\":{\"type\":\"sse\","
		     "\"url\":\"https://s/\",\"headers\":{\"A\":\"1\"}}}}");
	assert_int_equal(c->servers->transport, MCP_TRANSPORT_HTTP_OR_SSE);
	assert_int_equal(c->servers->next->transport, MCP_TRANSPORT_SSE);
	assert_string_equal(c->servers->next->headers[0], "A: 1");
	mcp_config_free(c);

	parse_err("{\"mcpServers\":{\"h\":{\"type\":\"http\"}}}",
		  PATH ": mcpServers.h.url: missing (required for http "
		  "servers)");
	parse_err("{\"mcpServers\":{\"h\":{\"type\":\"streamable-http\","
		  "\"command\":\"x\"}}}",
		  PATH ": mcpServers.h.command: only for stdio servers, not "
		  "with url");
	parse_err("{\"mcpServers\":{\"h\":{\"url\":\"http://h/\","
		  "\"env\":{}}}}",
		  PATH ": mcpServers.h.env: only for stdio servers, not with "
		  "url");
	parse_err("{\"mcpServers\":{\"h\":{\"url\":\"ftp://h/\"}}}",
		  PATH ": mcpServers.h.url: must start with http:// or "
		  "https://");
	parse_err("{\"mcpServers\":{\"h\":{\"url\":\"http://h/ x\"}}}",
		  PATH ": mcpServers.h.url: must not hold white space");
	parse_err("{\"mcpServers\":{\"h\":{\"url\":5}}}",
		  PATH ": mcpServers.h.url: must be a string");
	parse_err("{\"mcpServers\":{\"h\":{\"type\":\"ws\",\"url\":\"x\"}}}",
		  PATH ": mcpServers.h.type: must be \"stdio\", \"http\" or "
		  "\"sse\"");
	parse_err("{\"mcpServers\":{\"h\":{\"url\":\"http://h/\","
		  "\"headers\":[]}}}",
		  PATH ": mcpServers.h.headers: must be an object of strings");
	parse_err("{\"mcpServers\":{\"h\":{\"url\":\"http://h/\","
		  "\"headers\":{\"A B\":\"1\"}}}}",
		  PATH ": mcpServers.h.headers[\"A B\"]: header name must be a "
		  "token ([A-Za-z0-9!#$%&'*+.^_`|~-])");
	parse_err("{\"mcpServers\":{\"h\":{\"url\":\"http://h/\","
		  "\"headers\":{\"A\":\"1\\r\\nB: 2\"}}}}",
		  PATH ": mcpServers.h.headers.A: header value must not hold "
		  "CR or LF");
	parse_err("{\"mcpServers\":{\"h\":{\"url\":\"http://h/\","
		  "\"headers\":{\"a\":\"1\",\"A\":\"2\"}}}}",
		  PATH ": mcpServers.h.headers.A: header set twice");
}

static void test_field_errors(void **state)
{
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\","
		  "\"args\":[\"a\",\"b\",3]}}}",
		  PATH ": mcpServers.foo.args[2]: must be a string");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\",\"args\":\"a\"}}}",
		  PATH ": mcpServers.foo.args: must be an array of strings");
	parse_err("{\"mcpServers\":{\"foo\":{\"args\":[]}}}",
		  PATH ": mcpServers.foo.command: missing (required for stdio "
		  "servers)");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":[\"x\"]}}}",
		  PATH ": mcpServers.foo.command: must be a string");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"\"}}}",
		  PATH ": mcpServers.foo.command: must not be empty");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\","
		  "\"env\":{\"PORT\":3000}}}}",
		  PATH ": mcpServers.foo.env.PORT: must be a string");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\",\"env\":[]}}}",
		  PATH ": mcpServers.foo.env: must be an object of strings");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\","
		  "\"env\":{\"A=B\":\"1\"}}}}",
		  PATH ": mcpServers.foo.env[\"A=B\"]: variable name must be "
		  "non-empty, without '='");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\","
		  "\"env\":{\"A\":\"1\",\"B\":\"2\",\"A\":\"3\"}}}}",
		  PATH ": mcpServers.foo.env.A: variable set twice");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\",\"cwd\":1}}}",
		  PATH ": mcpServers.foo.cwd: must be a string");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\",\"timeout\":-1}}}",
		  PATH ": mcpServers.foo.timeout: must be a number >= 0 "
		  "(seconds)");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\","
		  "\"idleTimeout\":\"5\"}}}",
		  PATH ": mcpServers.foo.idleTimeout: must be a number >= 0 "
		  "(seconds)");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\","
		  "\"timeout\":1e999}}}",
		  PATH ": mcpServers.foo.timeout: must be a number >= 0 "
		  "(seconds)");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\","
		  "\"roots\":[\"/ok\",\"rel/path\"]}}}",
		  PATH ": mcpServers.foo.roots[1]: must be an absolute path or "
		  "a URI");
	parse_err("{\"mcpServers\":{\"foo\":{\"command\":\"x\",\"roots\":[1]}}}",
		  PATH ": mcpServers.foo.roots[0]: must be a string");
	parse_err("{\"mcpServers\":{\"foo\":\"npx\"}}",
		  PATH ": mcpServers.foo: must be an object");
	parse_err("{\"servers\":{\"foo\":[]}}",
		  PATH ": servers.foo: must be an object");
	parse_err("[]", PATH ": the top level must be an object");
	parse_err("{\"servers\":[]}", PATH ": servers: must be an object");
	parse_err("{\"mcpServers\":null}", PATH ": mcpServers: must be an object");
	parse_err("{\"other\":{}}",
		  PATH ": mcpServers: missing (the object of servers)");
	parse_err("{\"mcpServers\":{\"a\":{\"command\":\"x\"},"
		  "\"a\":{\"command\":\"y\"}}}",
		  PATH ": mcpServers.a: server name used twice");
	/* The first error is the one reported. */
	parse_err("{\"mcpServers\":{\"a\":{\"command\":\"x\",\"args\":[1]},"
		  "\"b\":{}}}",
		  PATH ": mcpServers.a.args[0]: must be a string");
}

/* "era": auto (also when absent), modern or legacy; anything else is an
 * error naming the field. */
static void test_era(void **state)
{
	struct mcp_config *c = parse_ok(
		"{\"mcpServers\":{\"a\":{\"command\":\"x\"},"
		"\"b\":{\"command\":\"x\",\"era\":\"modern\"},"
		"\"c\":{\"url\":\"http://h/\",\"era\":\"legacy\"},"
		"\"d\":{\"command\":\"x\",\"era\":\"auto\"}}}");
	struct mcp_server_conf *s = c->servers;

	assert_int_equal(c->nwarnings, 0); /* a known key */
	assert_int_equal(s->era, MCP_ERA_AUTO);
	assert_int_equal(s->next->era, MCP_ERA_MODERN);
	assert_int_equal(s->next->next->era, MCP_ERA_LEGACY);
	assert_int_equal(s->next->next->next->era, MCP_ERA_AUTO);
	mcp_config_free(c);
	parse_err("{\"mcpServers\":{\"a\":{\"command\":\"x\","
		  "\"era\":\"2026-07-28\"}}}",
		  PATH ": mcpServers.a.era: must be auto, modern or legacy");
	parse_err("{\"mcpServers\":{\"a\":{\"url\":\"http://h/\","
		  "\"era\":true}}}",
		  PATH ": mcpServers.a.era: must be auto, modern or legacy");
}

/* "restart": "report" (also when absent) or "silent"; anything else is a
 * warning naming the field and the value, and the default. */
static void test_restart(void **state)
{
	struct mcp_config *c = parse_ok(
		"{\"mcpServers\":{\"a\":{\"command\":\"x\"},"
		"\"b\":{\"command\":\"x\",\"restart\":\"silent\"},"
		"\"c\":{\"url\":\"http://h/\",\"restart\":\"report\"},"
		"\"d\":{\"command\":\"x\",\"restart\":\"never\"},"
		"\"e\":{\"command\":\"x\",\"restart\":true}}}");
	struct mcp_server_conf *s = c->servers;

	(void)state;
	assert_int_equal(s->restart_silent, 0);
	assert_int_equal(s->next->restart_silent, 1);
	assert_int_equal(s->next->next->restart_silent, 0);
	assert_int_equal(s->next->next->next->restart_silent, 0);
	assert_int_equal(s->next->next->next->next->restart_silent, 0);
	assert_int_equal(c->nwarnings, 2);
	assert_string_equal(c->warnings[0], "server d: mcpServers.d.restart: "
			    "unknown value 'never', ignored: a lost state is "
			    "reported (" PATH ")");
	assert_string_equal(c->warnings[1], "server e: mcpServers.e.restart: "
			    "unknown value '(not a string)', ignored: a lost "
			    "state is reported (" PATH ")");
	mcp_config_free(c);
}

static void test_name_errors(void **state)
{
	struct mcp_config *c;

	parse_err("{\"mcpServers\":{\".hidden\":{\"command\":\"x\"}}}",
		  PATH ": mcpServers[\".hidden\"]: server name must not start "
		  "with '.'");
	parse_err("{\"mcpServers\":{\"..\":{\"command\":\"x\"}}}",
		  PATH ": mcpServers[\"..\"]: server name must not start with "
		  "'.'");
	parse_err("{\"mcpServers\":{\"a/b\":{\"command\":\"x\"}}}",
		  PATH ": mcpServers[\"a/b\"]: server name must not contain '/'");
	parse_err("{\"mcpServers\":{\"\":{\"command\":\"x\"}}}",
		  PATH ": mcpServers[\"\"]: server name must not be empty");
	parse_err("{\"mcpServers\":{\"a\\nb\":{\"command\":\"x\"}}}",
		  PATH ": mcpServers[\"a\\x0ab\"]: server name must not contain "
		  "control characters");
	/* Names with spaces or non-ASCII are fine path components. */
	c = parse_ok(
		"{\"mcpServers\":{\"my server\":{\"command\":\"x\"},"
		"\"caf\xc3\xa9\":{\"command\":\"x\"},\"a.b\":{\"command\":\"x\"}}}");
	assert_string_equal(c->servers->name, "my server");
	assert_string_equal(c->servers->next->name, "caf\xc3\xa9");
	assert_string_equal(c->servers->next->next->name, "a.b");
	mcp_config_free(c);
}

static void test_syntax_errors(void **state)
{
	parse_err("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n",
		  PATH ":3:26: invalid JSON: trailing comma");
	parse_err("{\"mcpServers\": {\"a\": {\"command\" \"x\"}}}",
		  PATH ":1:33: invalid JSON: expected ':'");
	parse_err("{\n\"mcpServers\": {\n\"a\": {\"command\": 'x'}}}",
		  PATH ":3:18: invalid JSON: unexpected character");
	parse_err("{\"mcpServers\": {",
		  PATH ":1: invalid JSON: unexpected end of file");
	parse_err("{\n\n", PATH ":3: invalid JSON: unexpected end of file");
	parse_err("", PATH ":1: invalid JSON: the file is empty");
	parse_err(" \n ", PATH ":2: invalid JSON: the file is empty");
	parse_err("{\"mcpServers\":{}}\nxyz",
		  PATH ":2:1: invalid JSON: data after the JSON value");
	parse_err("{\"mcpServers\":{}}{}",
		  PATH ":1:18: invalid JSON: data after the JSON value");
	/* Only the position: quoting the text could show a secret. */
	parse_err("{\"mcpServers\": {\"a\": x123456789012345678901234567890}}",
		  PATH ":1:22: invalid JSON: unexpected character");
	parse_err("{\"a\": nul\n}",
		  PATH ":1:10: invalid JSON: invalid literal");
	parse_err("{\"a\": \"\xc3\x28\"}",
		  PATH ":1:9: invalid JSON: invalid UTF-8");
	parse_err("{\"a\": \"\xff\"}",
		  PATH ":1:8: invalid JSON: invalid UTF-8");

	/* A NUL byte inside the given length. */
	{
		static const char text[] = "{\"mcpServers\":{}}\0";
		struct mcp_config *c = NULL;
		char *err = NULL;

		assert_int_equal(mcp_config_parse(text, sizeof(text) - 1, PATH,
						  &c, &err), -1);
		assert_string_equal(err, PATH ":1:18: invalid JSON: NUL byte");
		free(err);
	}
}

static void test_bom(void **state)
{
	struct mcp_config *c = parse_ok("\xef\xbb\xbf{\"mcpServers\":"
					"{\"a\":{\"command\":\"x\"}}}");

	assert_string_equal(c->servers->name, "a");
	mcp_config_free(c);
}

static void test_not_nul_terminated(void **state)
{
	static const char text[] = "{\"mcpServers\":{\"a\":{\"command\":\"x\"}}}"
				   "GARBAGE";
	struct mcp_config *c = NULL;
	char *err = NULL;

	assert_int_equal(mcp_config_parse(text, sizeof(text) - 1 - 7, PATH, &c,
					  &err), 0);
	assert_string_equal(c->servers->command, "x");
	mcp_config_free(c);
}

static void test_expand(void **state)
{
	const char *err = NULL;
	char *s;

	setenv("MCPFS_T_A", "hello", 1);
	setenv("MCPFS_T_EMPTY", "", 1);
	unsetenv("MCPFS_T_UNSET");

#define EXPANDS(in, out) do { \
		s = mcp_expand(in, &err); \
		assert_non_null(s); \
		assert_string_equal(s, out); \
		free(s); \
	} while (0)
#define REFUSES(in, why) do { \
		err = NULL; \
		assert_null(mcp_expand(in, &err)); \
		assert_string_equal(err, why); \
	} while (0)

	EXPANDS("", "");
	EXPANDS("plain", "plain");
	EXPANDS("${MCPFS_T_A}", "hello");
	EXPANDS("a${MCPFS_T_A}b${MCPFS_T_A}", "ahellobhello");
	EXPANDS("${MCPFS_T_UNSET}", "");
	EXPANDS("x${MCPFS_T_UNSET}y", "xy");
	EXPANDS("${MCPFS_T_UNSET:-dflt}", "dflt");
	EXPANDS("${MCPFS_T_EMPTY:-dflt}", "dflt");
	EXPANDS("${MCPFS_T_A:-dflt}", "hello");
	EXPANDS("${MCPFS_T_UNSET:-}", "");
	EXPANDS("${MCPFS_T_UNSET:-a b:c-d}", "a b:c-d");
	EXPANDS("${MCPFS_T_UNSET:-$HOME}", "$HOME");
	EXPANDS("$HOME", "$HOME");
	EXPANDS("$", "$");
	EXPANDS("a$", "a$");
	EXPANDS("$$", "$$");
	EXPANDS("${_x9}", "");
	EXPANDS("}{", "}{");

	REFUSES("${", "unterminated ${ (expected ${NAME} or ${NAME:-default})");
	REFUSES("${MCPFS_T_A", "unterminated ${ (expected ${NAME} or "
		"${NAME:-default})");
	REFUSES("${A:-x", "unterminated ${ (expected ${NAME} or "
		"${NAME:-default})");
	REFUSES("${}", "bad ${...}: expected ${NAME} or ${NAME:-default}");
	REFUSES("${1A}", "bad ${...}: expected ${NAME} or ${NAME:-default}");
	REFUSES("${A-x}", "bad ${...}: expected ${NAME} or ${NAME:-default}");
	REFUSES("${A B}", "bad ${...}: expected ${NAME} or ${NAME:-default}");
	/* VS Code's inputs are named (spec 11), not "bad" */
	REFUSES("${input:tok}", "${input:tok}: VS Code asks the user for this "
		"input and mcpfs cannot; write the value in the file or take "
		"it from the environment with ${env:NAME}");
#undef EXPANDS
#undef REFUSES
}

static void test_expand_in_config(void **state)
{
	struct mcp_config *c;
	struct mcp_server_conf *s;

	setenv("MCPFS_T_A", "hello", 1);
	unsetenv("MCPFS_T_UNSET");
	c = parse_ok("{\"mcpServers\":{\"e\":{"
		     "\"command\":\"${MCPFS_T_A}/bin\","
		     "\"args\":[\"${MCPFS_T_UNSET:-dflt}\",\"${MCPFS_T_UNSET}\","
		     "\"$MCPFS_T_A\"],"
		     "\"env\":{\"TOKEN\":\"${MCPFS_T_A}\"},"
		     "\"cwd\":\"/w/${MCPFS_T_A}\","
		     "\"roots\":[\"/r/${MCPFS_T_A}\"]}}}");
	s = c->servers;
	assert_string_equal(s->command, "hello/bin");
	assert_string_equal(s->args[0], "dflt");
	assert_string_equal(s->args[1], "");
	assert_string_equal(s->args[2], "$MCPFS_T_A");
	assert_string_equal(s->env[0], "TOKEN=hello");
	assert_string_equal(s->cwd, "/w/hello");
	/* roots are not expanded; "$", "{" and "}" are percent-encoded */
	assert_string_equal(s->roots[0], "file:///r/$%7BMCPFS_T_A%7D");
	mcp_config_free(c);

	parse_err("{\"mcpServers\":{\"e\":{\"command\":\"x\","
		  "\"args\":[\"ok\",\"${oops\"]}}}",
		  PATH ": mcpServers.e.args[1]: unterminated ${ (expected "
		  "${NAME} or ${NAME:-default})");
	parse_err("{\"mcpServers\":{\"e\":{\"command\":\"x\","
		  "\"env\":{\"K\":\"${}\"}}}}",
		  PATH ": mcpServers.e.env.K: bad ${...}: expected ${NAME} or "
		  "${NAME:-default}");
	parse_err("{\"mcpServers\":{\"e\":{\"command\":\"${MCPFS_T_UNSET}\"}}}",
		  PATH ": mcpServers.e.command: must not be empty");
	parse_err("{\"mcpServers\":{\"e\":{\"command\":\"x\","
		  "\"cwd\":\"${MCPFS_T_UNSET}\"}}}",
		  PATH ": mcpServers.e.cwd: must not be empty");
}

static void test_name_rules(void **state)
{
	char longname[300];

	assert_null(mcp_server_name_check("demo"));
	assert_null(mcp_server_name_check("with space"));
	assert_null(mcp_server_name_check("a.b"));
	assert_null(mcp_server_name_check("a..b"));
	assert_null(mcp_server_name_check("caf\xc3\xa9"));
	assert_string_equal(mcp_server_name_check(""),
			    "server name must not be empty");
	assert_string_equal(mcp_server_name_check("."),
			    "server name must not start with '.'");
	assert_string_equal(mcp_server_name_check(".."),
			    "server name must not start with '.'");
	assert_string_equal(mcp_server_name_check(".x"),
			    "server name must not start with '.'");
	assert_string_equal(mcp_server_name_check("a/b"),
			    "server name must not contain '/'");
	assert_string_equal(mcp_server_name_check("/"),
			    "server name must not contain '/'");
	assert_string_equal(mcp_server_name_check("a\tb"),
			    "server name must not contain control characters");
	memset(longname, 'n', 255);
	longname[255] = '\0';
	assert_null(mcp_server_name_check(longname));
	longname[255] = 'n';
	longname[256] = '\0';
	assert_string_equal(mcp_server_name_check(longname),
			    "server name is longer than 255 bytes");

	assert_true(mcp_thread_name_valid("a"));
	assert_true(mcp_thread_name_valid("A-b_c.1"));
	assert_true(mcp_thread_name_valid("a."));
	memset(longname, 'x', 128);
	longname[128] = '\0';
	assert_true(mcp_thread_name_valid(longname));
	longname[128] = 'x';
	longname[129] = '\0';
	assert_false(mcp_thread_name_valid(longname));
	assert_false(mcp_thread_name_valid(""));
	assert_false(mcp_thread_name_valid("."));
	assert_false(mcp_thread_name_valid(".."));
	assert_false(mcp_thread_name_valid(".a"));
	assert_false(mcp_thread_name_valid("a b"));
	assert_false(mcp_thread_name_valid("a/b"));
	assert_false(mcp_thread_name_valid("caf\xc3\xa9"));
	assert_false(mcp_thread_name_valid("a\n"));
	assert_false(mcp_thread_name_valid("a:b"));
}

/* The one server of a config whose entry is body. */
static struct mcp_config *one(const char *body)
{
	char text[1024];

	snprintf(text, sizeof(text), "{\"mcpServers\":{\"s\":%s}}", body);
	return parse_ok(text);
}

static void assert_launch(const char *a, const char *b, int same)
{
	struct mcp_config *ca = one(a), *cb = one(b);

	assert_int_equal(mcp_conf_same_launch(ca->servers, cb->servers), same);
	assert_int_equal(mcp_conf_same_launch(cb->servers, ca->servers), same);
	if (same)
		assert_string_equal(ca->servers->digest, cb->servers->digest);
	else
		assert_string_not_equal(ca->servers->digest,
					cb->servers->digest);
	mcp_config_free(ca);
	mcp_config_free(cb);
}

static void test_digest_and_launch(void **state)
{
	assert_launch("{\"command\":\"x\"}", "{\"command\":\"x\"}", 1);
	/* Non-launch fields do not count. */
	assert_launch("{\"command\":\"x\",\"timeout\":1,\"idleTimeout\":2,"
		      "\"roots\":[\"/a\"]}",
		      "{\"command\":\"x\",\"timeout\":9}", 1);
	/* env order does not matter. */
	assert_launch("{\"command\":\"x\",\"env\":{\"A\":\"1\",\"B\":\"2\"}}",
		      "{\"command\":\"x\",\"env\":{\"B\":\"2\",\"A\":\"1\"}}", 1);
	/* Every launch field counts, and splits differ. */
	assert_launch("{\"command\":\"x\"}", "{\"command\":\"y\"}", 0);
	assert_launch("{\"command\":\"x\",\"args\":[\"a b\"]}",
		      "{\"command\":\"x\",\"args\":[\"a\",\"b\"]}", 0);
	assert_launch("{\"command\":\"x\",\"args\":[\"ab\"]}",
		      "{\"command\":\"x\",\"args\":[\"a\",\"b\"]}", 0);
	assert_launch("{\"command\":\"x\",\"args\":[\"a\",\"\"]}",
		      "{\"command\":\"x\",\"args\":[\"a\"]}", 0);
	assert_launch("{\"command\":\"xa\"}",
		      "{\"command\":\"x\",\"args\":[\"a\"]}", 0);
	assert_launch("{\"command\":\"x\",\"args\":[\"A=1\"]}",
		      "{\"command\":\"x\",\"env\":{\"A\":\"1\"}}", 0);
	assert_launch("{\"command\":\"x\",\"env\":{\"A\":\"1\"}}",
		      "{\"command\":\"x\",\"env\":{\"A\":\"2\"}}", 0);
	assert_launch("{\"command\":\"x\",\"env\":{\"A\":\"1\"}}",
		      "{\"command\":\"x\"}", 0);
	assert_launch("{\"command\":\"x\",\"cwd\":\"/a\"}",
		      "{\"command\":\"x\"}", 0);
	assert_launch("{\"command\":\"x\",\"cwd\":\"/a\"}",
		      "{\"command\":\"x\",\"cwd\":\"/b\"}", 0);
	assert_launch("{\"command\":\"x\",\"args\":[\"/a\"]}",
		      "{\"command\":\"x\",\"cwd\":\"/a\"}", 0);
	assert_launch("{\"url\":\"http://a/\",\"timeout\":1}",
		      "{\"url\":\"http://a/\"}", 1);
	assert_launch("{\"url\":\"http://a/\",\"headers\":{\"A\":\"1\","
		      "\"B\":\"2\"}}",
		      "{\"url\":\"http://a/\",\"headers\":{\"B\":\"2\","
		      "\"A\":\"1\"}}", 1);
	assert_launch("{\"url\":\"http://a/\"}", "{\"url\":\"http://b/\"}",
		      0);
	/* The transport is a launch field; no type is "http". */
	assert_launch("{\"url\":\"http://a/\"}",
		      "{\"url\":\"http://a/\",\"type\":\"http\"}", 1);
	assert_launch("{\"url\":\"http://a/\"}",
		      "{\"url\":\"http://a/\",\"type\":\"sse\"}", 0);
	assert_launch("{\"url\":\"http://a/\"}",
		      "{\"url\":\"http://a/\",\"type\":\"streamable-http\"}",
		      0);
	assert_launch("{\"url\":\"http://a/\",\"headers\":{\"A\":\"1\"}}",
		      "{\"url\":\"http://a/\",\"headers\":{\"A\":\"2\"}}",
		      0);
	assert_launch("{\"url\":\"http://a/\",\"headers\":{\"A\":\"1\"}}",
		      "{\"url\":\"http://a/\"}", 0);
	assert_launch("{\"url\":\"http://x\"}",
		      "{\"command\":\"http://x\"}", 0);
}

/* mcp_conf_reach_dup: the one copy a transport keeps of its entry. */
static void test_reach_dup(void **state)
{
	struct mcp_config *c = one("{\"url\":\"https://h.example/mcp\","
				   "\"type\":\"sse\",\"headers\":{\"A\":\"1\","
				   "\"B\":\"2\"},\"oauth\":{\"clientId\":\"x\"},"
				   "\"era\":\"legacy\",\"timeout\":7}");
	const struct mcp_server_conf *a = c->servers;
	struct mcp_server_conf *d = mcp_conf_reach_dup(a);

	(void)state;
	assert_non_null(d);
	assert_string_equal(d->name, "s");
	assert_string_equal(d->url, "https://h.example/mcp");
	assert_ptr_not_equal(d->url, a->url);
	assert_int_equal(d->nheaders, 2);
	assert_string_equal(d->headers[0], a->headers[0]);
	assert_string_equal(d->headers[1], a->headers[1]);
	assert_null(d->headers[2]);
	assert_ptr_not_equal(d->headers[0], a->headers[0]);
	assert_non_null(d->oauth);
	assert_ptr_not_equal(d->oauth, a->oauth);
	assert_string_equal(d->oauth->client_id, "x");
	assert_int_equal(d->transport, MCP_TRANSPORT_SSE);
	assert_int_equal(d->era, MCP_ERA_LEGACY);
	assert_true(d->timeout == 7);
	assert_string_equal(d->digest, a->digest);
	assert_null(d->command);
	assert_null(d->next);
	mcp_config_free(c); /* the copy outlives its entry */
	assert_string_equal(d->headers[1], "B: 2");
	mcp_server_conf_free(d);
	mcp_server_conf_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_all_fields),
		cmocka_unit_test(test_order_and_vscode),
		cmocka_unit_test(test_remote_and_disabled),
		cmocka_unit_test(test_http_fields),
		cmocka_unit_test(test_field_errors),
		cmocka_unit_test(test_era),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_name_errors),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_bom),
		cmocka_unit_test(test_not_nul_terminated),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_expand_in_config),
		cmocka_unit_test(test_name_rules),
		cmocka_unit_test(test_digest_and_launch),
		cmocka_unit_test(test_reach_dup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
