/*
 * test_ctlesc.c - server text shown safely (spec 6): C0, DEL, C1, bidi
 * marks, a NUL kept as C0 80 and bytes that are not UTF-8 become visible
 * escapes; tabs, newlines of multi-line text and other UTF-8 stay; JSON
 * text gets DEL and C1 as \u escapes and nothing else changes; raw bytes
 * (stderr) alike; one definition of an unsafe code point.
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
	check("alm \xd8\x9c", 0, "alm \\u061c");
}

/* raw bytes (a server's stderr): a NUL is a byte, C0 80 is not UTF-8, a
 * sequence cut by the end is not read past it */
static void test_bytes(void **state)
{
	static const char in[] = "a\0b\xc0\x80\r\n\tz\x1b[2J\xe2\x80";
	struct gbuf b = {0};

	assert_int_equal(ctlesc_bytes(&b, in, sizeof in - 1, 1), 0);
	assert_int_equal(b.len, strlen("a\\x00b\\xc0\\x80\\r\n\tz\\x1b[2J"
					"\\xe2\\x80"));
	assert_memory_equal(b.p, "a\\x00b\\xc0\\x80\\r\n\tz\\x1b[2J\\xe2\\x80",
			    b.len);
	gbuf_free(&b);
}

/* the one definition of an unsafe code point (text and file names) */
static void test_unsafe(void **state)
{
	static const unsigned yes[] = {0, 0x09, 0x0a, 0x1b, 0x7f, 0x80, 0x9b,
				       0x9f, 0x061c, 0x200e, 0x200f, 0x2028,
				       0x2029, 0x202a, 0x202e, 0x2066, 0x2069};
	static const unsigned no[] = {0x20, 'a', 0x7e, 0xa0, 0xe9, 0x200b,
				      0x2030, 0x2065, 0x206a, 0x1f642};
	size_t i;

	for (i = 0; i < sizeof yes / sizeof *yes; i++)
		assert_true(ctlesc_unsafe(yes[i]));
	for (i = 0; i < sizeof no / sizeof *no; i++)
		assert_false(ctlesc_unsafe(no[i]));
	assert_int_equal(ctlesc_unsafe_at("\xe2\x80\xaex", 4), 3);
	assert_int_equal(ctlesc_unsafe_at("\xc2\x9b", 2), 2);
	assert_int_equal(ctlesc_unsafe_at("\x1b", 1), 1);
	assert_int_equal(ctlesc_unsafe_at("\xc3\xa9", 2), 0);
	assert_int_equal(ctlesc_unsafe_at("\xe2\x80", 2), 0); /* cut */
	assert_int_equal(ctlesc_unsafe_at("\xe2\x80\xae", 2), 0);
	assert_int_equal(ctlesc_unsafe_at("\xff", 1), 0);
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

/* A status or help file shown in a terminal must not reorder itself: a
 * server's name "evil\u202etxt.exe" would show as "evilexe.txt". The bidi
 * and line marks inside strings are escaped as \uXXXX; the newlines and
 * tabs between tokens of printed JSON stay as they are. */
static void test_json_bidi(void **state)
{
	const char *in = "{\n\t\"a\":\t\"evil\xe2\x80\xaetxt\xe2\x81\xa6"
			 "x\xe2\x80\xa8y\xd8\x9cz\xc3\xa9\"\n}";
	size_t n;
	char *out = ctlesc_json(in, strlen(in), &n);

	assert_non_null(out);
	assert_string_equal(out, "{\n\t\"a\":\t\"evil\\u202etxt\\u2066"
				 "x\\u2028y\\u061cz\xc3\xa9\"\n}");
	assert_int_equal(n, strlen(out));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_bidi),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_unsafe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
