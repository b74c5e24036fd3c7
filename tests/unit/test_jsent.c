/*
 * test_jsent.c - unit tests of jsent.c: escaped NULs through cJSON and
 * numbers and strings printed as they were parsed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "jsent.h"

/* text parsed (NULs hidden), kept, printed unformatted. */
static char *round_trip(const char *text)
{
	size_t n = strlen(text);
	char *copy = malloc(n + 1), *out;
	cJSON *j;

	memcpy(copy, text, n + 1);
	n = jsent_hide_nul(copy, n);
	j = cJSON_ParseWithLength(copy, n);
	assert_non_null(j);
	jsent_keep(j, text, strlen(text));
	out = jsent_print(j, 0, NULL);
	cJSON_Delete(j);
	free(copy);
	return out;
}

static void test_hide_nul(void **state)
{
	char a[] = "\"ab\\u0000cd\"", b[] = "\"a\\\\u0000b\"";
	char c[] = "\"\\\\\\u0000\"";
	cJSON *j;
	size_t n;

	(void)state;
	n = jsent_hide_nul(a, strlen(a));
	assert_int_equal(n, 8);
	assert_memory_equal(a, "\"ab\xc0\x80""cd\"", 8);
	j = cJSON_ParseWithLength(a, n);
	assert_int_equal(strlen(j->valuestring), 6); /* the whole length */
	cJSON_Delete(j);
	/* an escaped backslash before u0000 is no NUL */
	assert_int_equal(jsent_hide_nul(b, strlen(b)), strlen("\"a\\\\u0000b\""));
	assert_string_equal(b, "\"a\\\\u0000b\"");
	assert_int_equal(jsent_hide_nul(c, strlen(c)), 6);
	assert_memory_equal(c, "\"\\\\\xc0\x80\"", 6);
	assert_true(jsent_has_nul("x\\u0000", 7));
	assert_false(jsent_has_nul("x\\\\u0000", 8));
	assert_true(jsent_has_nul("\\\\\\u0000", 8));
	assert_false(jsent_has_nul("\\u000", 5));
}

static void test_print_nul(void **state)
{
	cJSON *j = cJSON_CreateObject();
	char *t;
	size_t n;

	(void)state;
	cJSON_AddStringToObject(j, "k\xc0\x80", "a\xc0\x80" "b");
	t = jsent_print(j, 0, &n);
	assert_string_equal(t, "{\"k\\u0000\":\"a\\u0000b\"}");
	assert_int_equal(n, strlen(t));
	free(t);
	cJSON_Delete(j);
}

static void test_keep(void **state)
{
	static const char *const same[] = {
		"{\"a\":9007199254740991,\"b\":12345678901234567890,"
		"\"c\":0.1,\"d\":-0,\"e\":1E+2,\"f\":1.50e-7}",
		"[9007199254740993,[0.1,{\"x\":[1e400]}],\"\\u00e9\\/\"]",
		"{\"s\":\"ab\\u0000cd\",\"t\":\"\\ud83d\\ude00\",\"u\":null,"
		"\"v\":true,\"w\":[],\"x\":{}}",
		"{\"dup\":1.0,\"dup\":2.00}",
		"12345678901234567890",
		"\"\\u0000\"",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof same / sizeof same[0]; i++) {
		char *t = round_trip(same[i]);

		assert_string_equal(t, same[i]);
		free(t);
	}
}

static void test_keep_spaces(void **state)
{
	char *t;

	(void)state;
	/* whitespace is the printer's; the tokens are the sender's */
	t = round_trip(" { \"a\" : [ 1.0 , 2E3 ] ,\n\"b\" : \"x\\/y\" } ");
	assert_string_equal(t, "{\"a\":[1.0,2E3],\"b\":\"x\\/y\"}");
	free(t);
}

/* A tree and a text that disagree: the walk stops, nothing breaks. */
static void test_keep_mismatch(void **state)
{
	cJSON *j = cJSON_Parse("{\"a\":1,\"b\":[2,3]}");
	char *t;

	(void)state;
	jsent_keep(j, "{\"a\":1.0}", 9);
	t = jsent_print(j, 0, NULL);
	assert_string_equal(t, "{\"a\":1.0,\"b\":[2,3]}");
	free(t);
	jsent_keep(NULL, "1", 1);
	cJSON_Delete(j);
}

/* A listing printed element by element (jsent_print_at, depth 2, joined
 * with ", ") is byte for byte what the whole document prints: nested
 * objects, empty ones, arrays, kept numbers and strings, a NUL. */
static void test_print_at(void **state)
{
	static const char *items[] = {
		"{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\","
		"\"properties\":{\"n\":{\"type\":\"number\",\"minimum\":1e400,"
		"\"enum\":[1,2.50,[],{}]}},\"required\":[\"n\"]}}",
		"{}",
		"{\"name\":\"b\\u0000c\",\"x\":{\"y\":{\"z\":{}}},\"t\":\"\\n\"}",
		"[1,{\"k\":[{\"d\":9007199254740993}]}]",
		"\"s\"",
	};
	cJSON *doc = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	char *whole, *one, *joined = calloc(1, 1);
	size_t i, n, len = 0;

	(void)state;
	cJSON_AddItemToObject(doc, "tools", arr);
	for (i = 0; i < sizeof items / sizeof items[0]; i++) {
		cJSON *j = jsent_parse(items[i], strlen(items[i]));

		assert_non_null(j);
		jsent_keep(j, items[i], strlen(items[i]));
		cJSON_AddItemToArray(arr, j);
	}
	whole = jsent_print(doc, 1, NULL);
	assert_non_null(whole);
	joined = realloc(joined, strlen(whole) * 2);
	len = (size_t)sprintf(joined, "{\n\t\"tools\":\t[");
	for (i = 0; i < sizeof items / sizeof items[0]; i++) {
		one = jsent_print_at(cJSON_GetArrayItem(arr, (int)i), 2, &n);
		assert_non_null(one);
		assert_int_equal(n, strlen(one));
		len += (size_t)sprintf(joined + len, "%s%s", i ? ", " : "",
				       one);
		free(one);
	}
	sprintf(joined + len, "]\n}");
	assert_string_equal(joined, whole);
	assert_non_null(strstr(whole, "9007199254740993"));
	assert_non_null(strstr(whole, "b\\u0000c"));
	/* depth 0 is jsent_print itself */
	one = jsent_print_at(arr->child, 0, &n);
	free(whole);
	whole = jsent_print(arr->child, 1, NULL);
	assert_string_equal(one, whole);
	free(one);
	free(whole);
	free(joined);
	cJSON_Delete(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hide_nul),
		cmocka_unit_test(test_print_nul),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_keep_spaces),
		cmocka_unit_test(test_keep_mismatch),
		cmocka_unit_test(test_print_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
