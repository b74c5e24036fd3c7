/*
 * test_gbuf.c - the growing buffer: appends keep every byte and the NUL
 * after them across many doublings, take hands over a string ("" when
 * empty) and leaves the buffer empty, clear keeps the memory, and an
 * impossible size fails with -ENOMEM, is remembered, and makes take NULL.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gbuf.h"

static void test_grow(void **state)
{
	struct gbuf b = {0};
	size_t i;
	char c;

	for (i = 0; i < 100000; i++) {
		c = (char)('a' + i % 26);
		assert_int_equal(gbuf_add(&b, &c, 1), 0);
		assert_int_equal(b.p[b.len], 0);
	}
	assert_int_equal(b.len, 100000);
	assert_true(b.cap > b.len);
	for (i = 0; i < 100000; i++)
		assert_int_equal(b.p[i], 'a' + i % 26);
	gbuf_free(&b);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	gbuf_free(&b); /* twice is harmless */
}

static void test_take_clear(void **state)
{
	struct gbuf b = {0};
	char *s;
	size_t cap;

	s = gbuf_take(&b);
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(gbuf_puts(&b, "hello, "), 0);
	assert_int_equal(gbuf_add(&b, "world!!", 5), 0);
	assert_int_equal(gbuf_add(&b, NULL, 0), 0);
	assert_string_equal(b.p, "hello, world");
	cap = b.cap;
	gbuf_clear(&b);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, cap);
	assert_string_equal(b.p, "");
	assert_int_equal(gbuf_puts(&b, "again"), 0);
	s = gbuf_take(&b);
	assert_string_equal(s, "again");
	assert_null(b.p);
	assert_int_equal(b.cap, 0);
	free(s);
}

static void test_oom(void **state)
{
	struct gbuf b = {0};

	assert_int_equal(gbuf_puts(&b, "kept"), 0);
	assert_int_equal(gbuf_reserve(&b, SIZE_MAX - 2), -ENOMEM);
	assert_true(b.oom);
	assert_string_equal(b.p, "kept"); /* the bytes stay */
	assert_null(gbuf_take(&b));
	assert_null(b.p);
	assert_false(b.oom);
}

static void test_array(void **state)
{
	size_t cap = 0, i;
	int *v = NULL, *nv;

	(void)state;
	for (i = 0; i < 100; i++) {
		nv = gbuf_grow(v, &cap, i + 1, sizeof *v, 16);
		assert_non_null(nv);
		v = nv;
		v[i] = (int)i;
	}
	assert_int_equal(cap, 128); /* 16 doubled thrice */
	for (i = 0; i < 100; i++)
		assert_int_equal(v[i], (int)i);
	assert_ptr_equal(gbuf_grow(v, &cap, 128, sizeof *v, 16), v);
	assert_null(gbuf_grow(v, &cap, SIZE_MAX / 2, sizeof *v, 16));
	assert_int_equal(cap, 128); /* as it was */
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_take_clear),
		cmocka_unit_test(test_oom),
		cmocka_unit_test(test_array),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
