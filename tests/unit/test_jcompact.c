/*
 * test_jcompact.c - unit tests of jcompact.c: JSON text as one compact
 * line (spec 6), every byte kept but whitespace outside strings (dropped)
 * and raw control bytes inside them (escaped).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jcompact.h"

/* in made compact: the text, or in itself when it was already. */
static char *compact(const char *in)
{
	char *out = NULL;
	size_t n = 0;
	int r = jcompact(in, strlen(in), &out, &n);

	assert_true(r >= 0);
	if (r == 0) {
		assert_true(jcompact_is(in, strlen(in)));
		return strdup(in);
	}
	assert_false(jcompact_is(in, strlen(in)));
	assert_int_equal(strlen(out), n);
	assert_true(jcompact_is(out, n)); /* once is enough */
	return out;
}

static void check(const char *in, const char *want)
{
	char *got = compact(in);

	assert_string_equal(got, want);
	free(got);
}

static void test_compact_already(void **state)
{
	(void)state;
	check("{\"a\":[1,2.50,\"x y\"],\"b\":null}",
	      "{\"a\":[1,2.50,\"x y\"],\"b\":null}");
	check("\"\"", "\"\"");
	check("", "");
}

static void test_whitespace_outside_strings(void **state)
{
	(void)state;
	check("{\n  \"a\": [ 1 ,\t2 ],\r\n  \"b\" : \"x  y\"\n}\n",
	      "{\"a\":[1,2],\"b\":\"x  y\"}");
	/* a whole message on a line of its own becomes part of this one */
	check("{\"r\":\n{\"jsonrpc\":\"2.0\",\"id\":77}\n}",
	      "{\"r\":{\"jsonrpc\":\"2.0\",\"id\":77}}");
	check(" 12 ", "12");
}

static void test_strings_kept(void **state)
{
	(void)state;
	/* escapes as written; a quote after an escaped backslash ends it */
	check("[\"a\\\" b\" , \"c\\\\\" , \" d \"]",
	      "[\"a\\\" b\",\"c\\\\\",\" d \"]");
	check("{\"e\":\"\\u0000 \\n\"}", "{\"e\":\"\\u0000 \\n\"}");
	/* bytes above 0x7f as they are */
	check("[ \"\xc3\xa9\" ]", "[\"\xc3\xa9\"]");
}

static void test_controls(void **state)
{
	(void)state;
	/* inside a string: escaped; outside: dropped, as cJSON reads them */
	check("{\"t\":\"a\nb\x01\"}", "{\"t\":\"a\\u000ab\\u0001\"}");
	check("[1,\x01 2]", "[1,2]");
	/* a backslash before a raw control byte: the byte is escaped */
	check("[\"a\\\x02\"]", "[\"a\\\\u0002\"]");
	assert_int_equal(jcompact_control("abc\x1f", 0, 4), 3);
	assert_int_equal(jcompact_control("abc", 0, 3), 3);
	assert_int_equal(jcompact_control(
		"0123456789abcdef0123456789abcdef0123456789\n", 0, 43), 42);
	assert_int_equal(jcompact_control(
		"0123456789abcdef0123456789abcdef0123456789\n", 43, 43), 43);
}

static void test_unclosed_string(void **state)
{
	(void)state;
	/* structure only: an unclosed string keeps the rest as it is */
	check("[ \"a b", "[\"a b");
	assert_true(jcompact_is("[\"a b", 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_already),
		cmocka_unit_test(test_whitespace_outside_strings),
		cmocka_unit_test(test_strings_kept),
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_unclosed_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
