/*
 * test_request.c - user requests for call files: what mcp_request_check
 * accepts and refuses (with the exact reasons), and the exact JSON-RPC line
 * mcp_request_build makes, progress token included; what mcp_request_parse
 * finds (the user's own progress token) and that mcp_request_line builds
 * the same line from one parse for any id.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "jscan.h"
#include "request.h"
#include "sessions.h"

static void ok(const char *req)
{
	const char *why = "unset";

	if (mcp_request_check(req, strlen(req), &why) != 0)
		fail_msg("refused %s: %s", req, why);
}

static void refused(const char *req, size_t len, const char *want)
{
	const char *why = NULL;
	size_t outlen;

	assert_int_equal(mcp_request_check(req, len, &why), -EINVAL);
	assert_non_null(why);
	assert_string_equal(why, want);
	assert_null(mcp_request_build(req, len, 1, NULL, &outlen));
	assert_null(mcp_request_build(req, len, 1, "tok", &outlen));
}

#define REFUSED(lit, why) refused(lit, sizeof(lit) - 1, why)

static void test_check_ok(void **state)
{
	ok("{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}");
	ok("{\"name\":\"echo\"}");
	ok("  {\"name\":\"echo\",\"arguments\":{},\"_meta\":{}}\n");
	ok("{\"method\":\"tools/list\"}");
	ok("{\"method\":\"tools/list\",\"params\":{\"cursor\":\"c\"}}");
	ok("{\"method\":\"x/y\",\"params\":[1,2]}");
	ok("{\"method\":\"ping\",\"id\":5,\"jsonrpc\":\"2.0\"}");
	ok("{\"name\":\"t\",\"id\":\"ignored\",\"jsonrpc\":\"1.0\"}");
	ok("{\"name\":\"t\",\"task\":{\"ttl\":1000}}");
	ok("{\"method\":\"notifications\"}");
	ok("{\"method\":\"initialized\"}");
}

static void test_check_refused(void **state)
{
	REFUSED("", "request is empty");
	REFUSED(" \n\t", "request is empty");
	REFUSED("{", "request is incomplete JSON");
	REFUSED("{\"name\":\"x\"", "request is incomplete JSON");
	REFUSED("{\"name\":\"x\",}", "request is not valid JSON");
	REFUSED("{name:\"x\"}", "request is not valid JSON");
	REFUSED("{\"name\":\"\xff\"}", "request is not valid JSON");
	REFUSED("{\"name\":\"x\"}\0", "request has data after the JSON value");
	REFUSED("{} {}", "request has data after the JSON value");
	REFUSED("{}x", "request has data after the JSON value");
	REFUSED("[1]", "request must be a JSON object");
	REFUSED("\"tools/list\"", "request must be a JSON object");
	REFUSED("5", "request must be a JSON object");
	REFUSED("null", "request must be a JSON object");
	REFUSED("{}", "request needs \"name\" (a tool call) or \"method\"");
	REFUSED("{\"arguments\":{}}",
		"request needs \"name\" (a tool call) or \"method\"");
	REFUSED("{\"name\":\"a\",\"method\":\"b\"}",
		"request has both \"name\" (a tool call) and \"method\"");
	REFUSED("{\"name\":5}", "\"name\" must be a non-empty string (the tool)");
	REFUSED("{\"name\":\"\"}",
		"\"name\" must be a non-empty string (the tool)");
	REFUSED("{\"name\":null}",
		"\"name\" must be a non-empty string (the tool)");
	REFUSED("{\"name\":\"x\",\"arguments\":[]}",
		"\"arguments\" must be an object");
	REFUSED("{\"name\":\"x\",\"arguments\":\"{}\"}",
		"\"arguments\" must be an object");
	REFUSED("{\"name\":\"x\",\"_meta\":1}", "\"_meta\" must be an object");
	REFUSED("{\"method\":1}", "\"method\" must be a non-empty string");
	REFUSED("{\"method\":\"\"}", "\"method\" must be a non-empty string");
	REFUSED("{\"method\":\"initialize\"}", "initialize is done by mcpfs");
	REFUSED("{\"method\":\"\\u0069nitialize\",\"params\":{}}",
		"initialize is done by mcpfs");
	REFUSED("{\"method\":\"notifications/cancelled\"}",
		"notifications cannot be sent through call");
	REFUSED("{\"method\":\"notifications\\/initialized\"}",
		"notifications cannot be sent through call");
	REFUSED("{\"method\":\"x\",\"params\":\"p\"}",
		"\"params\" must be an object or an array");
	/* a member mcpfs would not forward is refused, named */
	REFUSED("{\"name\":\"t\",\"x\":1}", "unknown member \"x\" (a request "
		"has name, arguments, _meta and task, or method and params)");
	REFUSED("{\"name\":\"t\",\"params\":{}}", "\"params\" goes with "
		"\"method\"; a tool call has \"arguments\"");
	REFUSED("{\"method\":\"m\",\"_meta\":{}}", "\"arguments\", \"_meta\" "
		"and \"task\" go with \"name\"; with \"method\" they belong in "
		"\"params\"");
	REFUSED("{\"method\":\"m\",\"task\":{}}", "\"arguments\", \"_meta\" "
		"and \"task\" go with \"name\"; with \"method\" they belong in "
		"\"params\"");
	REFUSED("{\"name\":\"t\",\"task\":[]}", "\"task\" must be an object");
	REFUSED("{\"method\":\"x\",\"params\":null}",
		"\"params\" must be an object or an array");	/* One reading (spec 13): readers differ on duplicate names (cJSON
	 * keeps the first, JSON.parse the last) and on names holding NUL
	 * (cJSON cuts there), so neither is sent, at any depth. */
	REFUSED("{\"name\":\"first\",\"name\":\"second\"}",
		"two members named \"name\" in one object (I-JSON, RFC 7493)");
	REFUSED("{\"method\":\"tools/call\",\"params\":{\"name\\u0000\":"
		"\"allowed\",\"name\":\"denied\",\"arguments\":{}}}",
		"a member name holds the control character U+0000 (I-JSON, "
		"RFC 7493)");
	REFUSED("{\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
		"\"arguments\":{},\"name\":\"get-sum\"}}",
		"two members named \"name\" in one object (I-JSON, RFC 7493)");
	REFUSED("{\"name\":\"t\",\"arguments\":{\"a\":{\"k\":1,\"\\u006b\":2}}}",
		"two members named \"k\" in one object (I-JSON, RFC 7493)");
	REFUSED("{\"name\":\"t\",\"arguments\":{\"a\\u001b\":1}}",
		"a member name holds the control character U+001B (I-JSON, "
		"RFC 7493)");
	REFUSED("{\"name\":\"t\",\"arguments\":{\"a\x7f\":1}}",
		"a member name holds the control character U+007F (I-JSON, "
		"RFC 7493)");
}

/* Build must give exactly want (without the trailing newline). */
static void builds(const char *req, uint64_t id, const char *token,
		   const char *want)
{
	size_t outlen = 0, n = strlen(want);
	char *line = mcp_request_build(req, strlen(req), id, token, &outlen);
	struct jscan j;
	size_t used;
	cJSON *tree;

	if (!line)
		fail_msg("build failed for %s", req);
	assert_int_equal(outlen, strlen(line));
	assert_int_equal(outlen, n + 1);
	assert_memory_equal(line, want, n);
	assert_int_equal(line[n], '\n');
	/* One line of valid JSON. */
	assert_null(memchr(line, '\n', n));
	jscan_init(&j);
	assert_int_equal(jscan_feed(&j, line, n, &used), JSCAN_DONE);
	assert_int_equal(used, n);
	tree = cJSON_ParseWithLength(line, n);
	assert_non_null(tree);
	cJSON_Delete(tree);
	free(line);
}

#define HEAD(id) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":"

static void test_build_tool_call(void **state)
{
	builds("{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}", 7, NULL,
	       HEAD(7) "\"tools/call\",\"params\":{\"name\":\"echo\","
	       "\"arguments\":{\"text\":\"hi\"}}}");
	/* arguments default to {} */
	builds("{\"name\":\"pid\"}", 1, NULL,
	       HEAD(1) "\"tools/call\",\"params\":{\"name\":\"pid\","
	       "\"arguments\":{}}}");
	/* Member order in the request does not matter; _meta is kept. */
	builds("{\"_meta\":{\"k\":[1]},\"arguments\":{\"a\":1},\"name\":\"t\"}",
	       2, NULL,
	       HEAD(2) "\"tools/call\",\"params\":{\"name\":\"t\","
	       "\"arguments\":{\"a\":1},\"_meta\":{\"k\":[1]}}}");
	/* Pretty-printed input becomes one line; spaces in strings stay. */
	builds("{\n  \"name\" : \"echo\",\n  \"arguments\" : {\n    \"text\" : "
	       "\"a  b\\n\\\"c\\\" \\\\\" ,\n \"l\": [ 1 , 2 ]\t}\r\n}\n", 3, NULL,
	       HEAD(3) "\"tools/call\",\"params\":{\"name\":\"echo\","
	       "\"arguments\":{\"text\":\"a  b\\n\\\"c\\\" \\\\\",\"l\":[1,2]}}}");
	/* task (SEP-1686) is forwarded as written, after _meta */
	builds("{\"task\":{\"ttl\": 60000},\"name\":\"r\"}", 5, NULL,
	       HEAD(5) "\"tools/call\",\"params\":{\"name\":\"r\","
	       "\"arguments\":{},\"task\":{\"ttl\":60000}}}");
	/* id and jsonrpc of the request are ignored. */
	builds("{\"jsonrpc\":\"2.0\",\"id\":99,\"name\":\"x\"}", 4, NULL,
	       HEAD(4) "\"tools/call\",\"params\":{\"name\":\"x\","
	       "\"arguments\":{}}}");
	builds("{\"name\":\"x\"}", UINT64_MAX, NULL,
	       HEAD(18446744073709551615) "\"tools/call\",\"params\":"
	       "{\"name\":\"x\",\"arguments\":{}}}");
}

static void test_build_fidelity(void **state)
{
	/* Numbers and strings go through byte for byte. */
	builds("{\"name\":\"n\",\"arguments\":{\"big\":123456789012345678901234567890,"
	       "\"f\":1.0000000000000000001,\"e\":1E+400,\"z\":-0,"
	       "\"s\":\"a\\u0000b\\ud83d\\ude00\\/\",\"u\":\"\xc3\xa9\"}}", 1, NULL,
	       HEAD(1) "\"tools/call\",\"params\":{\"name\":\"n\",\"arguments\":"
	       "{\"big\":123456789012345678901234567890,"
	       "\"f\":1.0000000000000000001,\"e\":1E+400,\"z\":-0,"
	       "\"s\":\"a\\u0000b\\ud83d\\ude00\\/\",\"u\":\"\xc3\xa9\"}}}");
	/* Escaped member names are recognised. */
	builds("{\"\\u006eame\":\"t\",\"argument\\u0073\":{}}", 1, NULL,
	       HEAD(1) "\"tools/call\",\"params\":{\"name\":\"t\","
	       "\"arguments\":{}}}");
	/* A key that only looks like "name" inside a value is skipped. */
	builds("{\"arguments\":{\"name\":\"inner\"},\"name\":\"outer\"}", 1, NULL,
	       HEAD(1) "\"tools/call\",\"params\":{\"name\":\"outer\","
	       "\"arguments\":{\"name\":\"inner\"}}}");
}

static void test_build_method(void **state)
{
	builds("{\"method\":\"tools/list\"}", 1, NULL,
	       HEAD(1) "\"tools/list\"}");
	builds("{\"method\":\"tools/list\",\"params\":{\"cursor\":\"c 1\"}}", 2,
	       NULL, HEAD(2) "\"tools/list\",\"params\":{\"cursor\":\"c 1\"}}");
	builds("{\"params\":[1, {\"a\" : 2}],\"method\":\"x\"}", 3, NULL,
	       HEAD(3) "\"x\",\"params\":[1,{\"a\":2}]}");
	builds("{ \"id\" : 1 , \"method\" : \"ping\" }", 9, NULL,
	       HEAD(9) "\"ping\"}");
	builds("{\"method\":\"resources\\/read\",\"params\":{\"uri\":\"file:///x\"}}",
	       4, NULL,
	       HEAD(4) "\"resources\\/read\",\"params\":{\"uri\":\"file:///x\"}}");
}

static void test_build_progress_token(void **state)
{
	/* tools/call: added as params._meta */
	builds("{\"name\":\"p\"}", 1, "t1",
	       HEAD(1) "\"tools/call\",\"params\":{\"name\":\"p\","
	       "\"arguments\":{},\"_meta\":{\"progressToken\":\"t1\"}}}");
	/* ...or into the user's _meta */
	builds("{\"name\":\"p\",\"_meta\":{\"a\":1}}", 1, "t1",
	       HEAD(1) "\"tools/call\",\"params\":{\"name\":\"p\","
	       "\"arguments\":{},\"_meta\":{\"progressToken\":\"t1\",\"a\":1}}}");
	builds("{\"name\":\"p\",\"_meta\":{ }}", 1, "t1",
	       HEAD(1) "\"tools/call\",\"params\":{\"name\":\"p\","
	       "\"arguments\":{},\"_meta\":{\"progressToken\":\"t1\"}}}");
	/* The user's own token wins. */
	builds("{\"name\":\"p\",\"_meta\":{\"progressToken\":5}}", 1, "t1",
	       HEAD(1) "\"tools/call\",\"params\":{\"name\":\"p\","
	       "\"arguments\":{},\"_meta\":{\"progressToken\":5}}}");
	/* Other requests: params created, or extended. */
	builds("{\"method\":\"m\"}", 2, "t2",
	       HEAD(2) "\"m\",\"params\":{\"_meta\":{\"progressToken\":\"t2\"}}}");
	builds("{\"method\":\"m\",\"params\":{}}", 2, "t2",
	       HEAD(2) "\"m\",\"params\":{\"_meta\":{\"progressToken\":\"t2\"}}}");
	builds("{\"method\":\"m\",\"params\":{\"cursor\":\"c\"}}", 2, "t2",
	       HEAD(2) "\"m\",\"params\":{\"_meta\":{\"progressToken\":\"t2\"},"
	       "\"cursor\":\"c\"}}");
	builds("{\"method\":\"m\",\"params\":{\"a\":1,\"_meta\" : {\"x\":1},"
	       "\"b\":2}}", 2, "t2",
	       HEAD(2) "\"m\",\"params\":{\"a\":1,\"_meta\":{\"progressToken\":"
	       "\"t2\",\"x\":1},\"b\":2}}");
	builds("{\"method\":\"m\",\"params\":{\"_meta\":{\"progressToken\":\"u\"}}}",
	       2, "t2",
	       HEAD(2) "\"m\",\"params\":{\"_meta\":{\"progressToken\":\"u\"}}}");
	/* Where no _meta fits, nothing is added. */
	builds("{\"method\":\"m\",\"params\":[1]}", 2, "t2",
	       HEAD(2) "\"m\",\"params\":[1]}");
	builds("{\"method\":\"m\",\"params\":{\"_meta\":7}}", 2, "t2",
	       HEAD(2) "\"m\",\"params\":{\"_meta\":7}}");
	/* The token is escaped. */
	builds("{\"name\":\"p\"}", 1, "a\"b\\c\n",
	       HEAD(1) "\"tools/call\",\"params\":{\"name\":\"p\","
	       "\"arguments\":{},\"_meta\":{\"progressToken\":"
	       "\"a\\u0022b\\u005cc\\u000a\"}}}");
}

static void test_build_no_outlen(void **state)
{
	char *line = mcp_request_build("{\"method\":\"ping\"}", 17, 1, NULL, NULL);

	assert_non_null(line);
	assert_string_equal(line, HEAD(1) "\"ping\"}\n");
	free(line);
}

/* The user's token: the text of the progressToken that is sent. */
static void token_is(const char *req, const char *want)
{
	struct mcp_request r;
	const char *why = NULL;

	assert_int_equal(mcp_request_parse(req, strlen(req), &r, &why), 0);
	if (!want) {
		assert_int_equal(r.token.n, 0);
		return;
	}
	assert_int_equal(r.token.n, strlen(want));
	assert_memory_equal(req + r.token.at, want, r.token.n);
}

static void test_parse_token(void **state)
{
	token_is("{\"name\":\"t\"}", NULL);
	token_is("{\"name\":\"t\",\"_meta\":{\"a\":1,\"progressToken\":\"x\"}}",
		 "\"x\"");
	token_is("{\"name\":\"t\",\"_meta\":{\"progressToken\" : 12 }}", "12");
	/* only the token that is sent counts */
	token_is("{\"method\":\"m\",\"params\":{\"_meta\":{\"progressToken\":"
		 "{\"k\":[1]}}}}", "{\"k\":[1]}");
	token_is("{\"method\":\"m\",\"params\":[{\"_meta\":{\"progressToken\":"
		 "1}}]}", NULL);
	/* escaped keys decoded (duplicate keys are refused, spec 13) */
	token_is("{\"method\":\"m\",\"params\":{\"_meta\":{\"progress\\u0054oken\""
		 ":\"a\",\"b\":1}}}", "\"a\"");
}

/* One parse, many lines: the line depends on the id and token only. */
static void test_line_reuse(void **state)
{
	const char *req = " { \"method\" : \"m\", \"params\" : { \"a\" : [ 1 , "
			  "\"x y\" ] } } ";
	struct mcp_request r;
	const char *why;
	char *a, *b;
	size_t na, nb;

	assert_int_equal(mcp_request_parse(req, strlen(req), &r, &why), 0);
	a = mcp_request_line(req, &r, 1, "mcpfs-1", &na);
	b = mcp_request_line(req, &r, 22, "mcpfs-22", &nb);
	assert_string_equal(a, HEAD(1) "\"m\",\"params\":{\"_meta\":{"
			    "\"progressToken\":\"mcpfs-1\"},\"a\":[1,\"x y\"]}}\n");
	assert_string_equal(b, HEAD(22) "\"m\",\"params\":{\"_meta\":{"
			    "\"progressToken\":\"mcpfs-22\"},\"a\":[1,\"x y\"]}}\n");
	assert_int_equal(na, strlen(a));
	assert_int_equal(nb, strlen(b));
	free(a);
	free(b);
}

static void test_u64_str(void **state)
{
	char buf[21];

	assert_int_equal(mcp_u64_str(buf, 0), 1);
	assert_string_equal(buf, "0");
	assert_int_equal(mcp_u64_str(buf, 1234567890), 10);
	assert_string_equal(buf, "1234567890");
	assert_int_equal(mcp_u64_str(buf, UINT64_MAX), 20);
	assert_string_equal(buf, "18446744073709551615");
}

/* The structure-only skips of jscan.h on valid and on broken text. */
static void test_value_end(void **state)
{
	static const struct {
		const char *text;
		size_t at, end;
	} cases[] = {
		{"\"ab\\\"c\" x", 0, 7},
		{"\"a\\\\\" x", 0, 5},
		{"{\"a\":[1,{\"b\":\"}\"}]} ,", 0, 19},
		{"[[],{}]", 0, 7},
		{"123,4", 0, 3},
		{"true}", 0, 4},
		{"-1.5e3", 0, 6},
		{"x: 12 ", 3, 5},
		{"\"open", 0, 0},
		{"{\"a\":[1,2}", 0, 0},
		{"[", 0, 0},
		{"}", 0, 0},
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *t = cases[i].text;

		assert_int_equal(jscan_value_end(t, cases[i].at, strlen(t)),
				 cases[i].end);
	}
	assert_int_equal(jscan_string_end("\"a\"", 0, 2), 0);
	assert_int_equal(jscan_string_end("\"\\\"", 0, 3), 0);
	assert_int_equal(jscan_string_end("\"\"", 0, 2), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_ok),
		cmocka_unit_test(test_check_refused),
		cmocka_unit_test(test_build_tool_call),
		cmocka_unit_test(test_build_fidelity),
		cmocka_unit_test(test_build_method),
		cmocka_unit_test(test_build_progress_token),
		cmocka_unit_test(test_build_no_outlen),
		cmocka_unit_test(test_parse_token),
		cmocka_unit_test(test_line_reuse),
		cmocka_unit_test(test_value_end),
		cmocka_unit_test(test_u64_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
