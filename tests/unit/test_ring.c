/*
 * test_ring.c - the byte ring: it keeps the last cap bytes of a stream
 * at their stream offsets whether it is growing or full, its buffer grows
 * with what was written (a quiet stream does not cost cap), and a write
 * longer than cap keeps its last cap bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ring.h"

#define CAP 5000

static char byte_at(uint64_t off)
{
	return (char)('a' + off % 23);
}

/* Every kept byte is the one written at its offset. */
static void check(const struct ring *r)
{
	static char got[CAP];
	uint64_t first = r->total > r->cap ? r->total - r->cap : 0;
	size_t n, i;

	n = ring_read(r, 0, got, sizeof got);
	assert_int_equal(n, ring_kept(r));
	assert_int_equal(n, r->total - first);
	for (i = 0; i < n; i++)
		assert_int_equal(got[i], byte_at(first + i));
}

static void test_grows_then_wraps(void **state)
{
	struct ring r = { .cap = CAP };
	char chunk[97];
	uint64_t off = 0;
	size_t i, k;

	(void)state;
	for (k = 0; k < 200; k++) {
		for (i = 0; i < sizeof chunk; i++)
			chunk[i] = byte_at(off + i);
		ring_append(&r, chunk, sizeof chunk);
		off += sizeof chunk;
		assert_int_equal(r.total, off);
		assert_true(r.size <= r.cap);
		if (off < 256)
			assert_true(r.size < 1024); /* not cap at once */
		check(&r);
	}
	assert_int_equal(r.size, CAP);
	free(r.buf);
}

static void test_quiet(void **state)
{
	struct ring r = { .cap = 1 << 20 };
	char got[16];

	(void)state;
	ring_line(&r, "hello", 5);
	assert_int_equal(r.total, 6);
	assert_true(r.size < 4096);
	assert_int_equal(ring_read(&r, 0, got, sizeof got), 6);
	assert_memory_equal(got, "hello\n", 6);
	free(r.buf);
}

static void test_long_write(void **state)
{
	struct ring r = { .cap = CAP };
	static char big[3 * CAP + 7];
	size_t i;

	(void)state;
	ring_append(&r, "ab", 2); /* bytes 0, 1 as byte_at says */
	for (i = 0; i < sizeof big; i++)
		big[i] = byte_at(2 + i);
	ring_append(&r, big, sizeof big);
	assert_int_equal(r.total, 2 + sizeof big);
	assert_int_equal(r.size, CAP);
	check(&r);
	free(r.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows_then_wraps),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_long_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
