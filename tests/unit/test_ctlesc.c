/*
 * test_ctlesc.c - server text shown safely (spec 6): C0, DEL, C1, bidi
 * marks, a NUL kept as C0 80 and bytes that are not UTF-8 become visible
 * escapes; tabs, newlines of multi-line text and other UTF-8 stay; JSON
 * text gets DEL and C1 as \u escapes and nothing else changes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctlesc.h"

static void check(const char *in, int multiline, const char *want)
{
	char *got = ctlesc_dup(in, multiline);

	assert_non_null(got);
	assert_string_equal(got, want);
	assert_int_equal(ctlesc_needed(in, multiline), strcmp(in, want) != 0);
	free(got);
}

static void test_text(void **state)
{
	check("plain text, é ü 日本 🙂", 0, "plain text, é ü 日本 🙂");
	check("a\x1b]52;c;eA==\x07z", 0, "a\\x1b]52;c;eA==\\x07z");
	check("over\rwrite\x7f", 0, "over\\rwrite\\x7f");
	check("1.0\n## Run it", 0, "1.0\\n## Run it");
	check("line 1\nline\t2\n", 1, "line 1\nline\t2\n");
	check("c1 \xc2\x9b" "2J \xc2\x85", 1, "c1 \\u009b2J \\u0085");
	check("bidi \xe2\x80\xae" "txt \xe2\x81\xa6", 0,
	      "bidi \\u202etxt \\u2066");
	check("nul \xc0\x80 bad \xff\x9b end", 0,
	      "nul \\x00 bad \\xff\\x9b end");
	check("cut \xe6\x97", 0, "cut \\xe6\\x97");
}

static void test_json(void **state)
{
	const char *in = "{\"a\":\"x\x7fy\xc2\x9bz\xc2\xa0\\u001b\"}";
	size_t n;
	char *out = ctlesc_json(in, strlen(in), &n);

	assert_non_null(out);
	assert_string_equal(out, "{\"a\":\"x\\u007fy\\u009bz\xc2\xa0\\u001b\"}");
	assert_int_equal(n, strlen(out));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
