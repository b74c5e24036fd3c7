/*
 * test_toml.c - the strict TOML reader (toml.c): every construct of the
 * subset as the JSON it becomes, and the errors of TOML 1.0 (redefined
 * keys and tables, bad numbers, unterminated strings, dates) with their
 * line and column.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "toml.h"

static void reads(const char *toml, const char *json)
{
	char *err = NULL, *out;
	cJSON *t = toml_parse(toml, strlen(toml), &err);

	if (!t)
		fail_msg("%s: %s", toml, err);
	out = cJSON_PrintUnformatted(t);
	if (strcmp(out, json))
		fail_msg("%s\n  gave %s\n  want %s", toml, out, json);
	cJSON_free(out);
	cJSON_Delete(t);
}

static void refuses(const char *toml, const char *want)
{
	char *err = NULL;
	cJSON *t = toml_parse(toml, strlen(toml), &err);

	if (t)
		fail_msg("%s: accepted", toml);
	if (strcmp(err, want))
		fail_msg("%s\n  gave %s\n  want %s", toml, err, want);
	free(err);
}

static void test_values(void **state)
{
	reads("", "{}");
	reads("# only a comment\n\n", "{}");
	reads("a = 1\nb = -2\nc = +3\nd = 1_000", "{\"a\":1,\"b\":-2,\"c\":3,\"d\":1000}");
	reads("h = 0xff\no = 0o17\nb = 0b11", "{\"h\":255,\"o\":15,\"b\":3}");
	reads("f = 1.5\ng = 1e3\nh = -2.5E-1", "{\"f\":1.5,\"g\":1000,\"h\":-0.25}");
	reads("t = true\nf = false", "{\"t\":true,\"f\":false}");
	reads("s = \"a\\tb\\\"c\\\\d\\u00e9\"", "{\"s\":\"a\\tb\\\"c\\\\dé\"}");
	reads("s = 'C:\\path\\n'", "{\"s\":\"C:\\\\path\\\\n\"}");
	reads("s = \"\"\"\nl1\nl2\"\"\"", "{\"s\":\"l1\\nl2\"}");
	reads("s = \"\"\"a \\\n   b\"\"\"", "{\"s\":\"a b\"}");
	reads("s = '''\nraw \\n'''", "{\"s\":\"raw \\\\n\"}");
	reads("s = \"\"\"x\"\"\"\"\"", "{\"s\":\"x\\\"\\\"\"}");
	reads("a = [1, \"two\", [3],\n  # comment\n  4,\n]",
	      "{\"a\":[1,\"two\",[3],4]}");
	reads("a = []", "{\"a\":[]}");
	reads("t = { x = 1, y.z = 'w' }", "{\"t\":{\"x\":1,\"y\":{\"z\":\"w\"}}}");
	reads("t = {}", "{\"t\":{}}");
	reads("a = 1 # trailing comment\r\nb = 2\r\n", "{\"a\":1,\"b\":2}");
}

static void test_keys_and_tables(void **state)
{
	reads("a.b.c = 1\na.b.d = 2", "{\"a\":{\"b\":{\"c\":1,\"d\":2}}}");
	reads("\"x y\" = 1\n'q.r' = 2", "{\"x y\":1,\"q.r\":2}");
	reads("[mcp_servers.demo]\ncommand = \"d\"\n[mcp_servers.\"my srv\"]\nurl = \"u\"",
	      "{\"mcp_servers\":{\"demo\":{\"command\":\"d\"},"
	      "\"my srv\":{\"url\":\"u\"}}}");
	reads("[a.b]\nx = 1\n[a]\ny = 2", "{\"a\":{\"b\":{\"x\":1},\"y\":2}}");
	reads("[[p]]\nx = 1\n[[p]]\nx = 2\n[p.q]\ny = 3",
	      "{\"p\":[{\"x\":1},{\"x\":2,\"q\":{\"y\":3}}]}");
	reads("[ a . b ]\nx = 1", "{\"a\":{\"b\":{\"x\":1}}}");
}

static void test_errors(void **state)
{
	refuses("a = 1\na = 2", "2:1: key 'a' is defined twice");
	refuses("[a]\n[a]", "2:1: table 'a' is defined twice");
	refuses("a.b = 1\n[a]", "2:1: table 'a' is defined twice");
	refuses("t = {x = 1}\n[t]", "2:1: table 't' is defined twice");
	refuses("t = {x = 1}\nt.y = 2", "2:1: key 't' is already defined");
	refuses("a = [1]\n[[a]]", "2:1: key 'a' is already defined");
	refuses("a = 01", "1:5: not a valid value (strings need quotes)");
	refuses("a = 1__0", "1:5: not a valid value (strings need quotes)");
	refuses("a = -0x1", "1:5: not a valid value (strings need quotes)");
	refuses("a = bare", "1:5: not a valid value (strings need quotes)");
	refuses("a = 1979-05-27", "1:5: dates and times are not supported");
	refuses("a = 07:32:00", "1:5: dates and times are not supported");
	refuses("a = \"open", "1:10: unterminated string");
	refuses("a = \"x\ny\"", "1:7: newline in a one-line string");
	refuses("a = \"\\q\"", "1:6: bad escape in a string");
	refuses("a = \"\\ud800\"", "1:6: \\u escape is not a Unicode scalar value");
	refuses("a = 1 b = 2", "1:7: expected the end of the line");
	refuses("a = [1 2]", "1:8: expected ',' or ']' in an array");
	refuses("t = {x = 1,\n y = 2}", "1:12: expected a key");
	refuses("= 1", "1:1: expected a key");
	refuses("a 1", "1:3: expected '=' after a key");
	refuses("[a", "1:3: expected ']'");
	refuses("\"\"\"k\"\"\" = 1", "1:1: a key cannot be a multi-line string");
	refuses("a = \"x\001\"", "1:7: control character in a string");
}

static void test_deep(void **state)
{
	char buf[200];

	memset(buf, '[', sizeof buf);
	memcpy(buf, "a = ", 4);
	buf[sizeof buf - 1] = 0;
	refuses(buf, "1:69: nested deeper than 64");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_keys_and_tables),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
