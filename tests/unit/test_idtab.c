/*
 * test_idtab.c - the JSON-RPC request table: put/get/del, refused ids,
 * growth, iteration, and a long random mix of operations checked against a
 * plain array (so backward-shift deletion never loses or resurrects an id).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "idtab.h"

/* Distinct non-NULL values: addresses inside this array. */
static char vals[4096];

static void *val_of(uint64_t id)
{
	return &vals[id % sizeof(vals)];
}

static void test_basic(void **state)
{
	struct idtab t;
	int a, b;

	idtab_init(&t);
	assert_null(idtab_get(&t, 1));
	assert_null(idtab_del(&t, 1));
	assert_int_equal(idtab_put(&t, 1, &a), 0);
	assert_int_equal(idtab_put(&t, 2, &b), 0);
	assert_int_equal(t.count, 2);
	assert_ptr_equal(idtab_get(&t, 1), &a);
	assert_ptr_equal(idtab_get(&t, 2), &b);
	assert_null(idtab_get(&t, 3));
	assert_ptr_equal(idtab_del(&t, 1), &a);
	assert_null(idtab_get(&t, 1));
	assert_null(idtab_del(&t, 1));
	assert_int_equal(t.count, 1);
	assert_int_equal(idtab_put(&t, 1, &b), 0);
	assert_ptr_equal(idtab_get(&t, 1), &b);
	idtab_free(&t);
	assert_null(t.slots);
	assert_int_equal(t.count, 0);
	assert_null(idtab_get(&t, 1));
	idtab_free(&t);
}

static void test_refused(void **state)
{
	struct idtab t;
	int a;

	idtab_init(&t);
	assert_int_equal(idtab_put(&t, 0, &a), -EINVAL);
	assert_int_equal(idtab_put(&t, 5, NULL), -EINVAL);
	assert_int_equal(idtab_put(&t, 5, &a), 0);
	assert_int_equal(idtab_put(&t, 5, &a), -EEXIST);
	assert_int_equal(t.count, 1);
	assert_null(idtab_get(&t, 0));
	assert_null(idtab_del(&t, 0));
	idtab_free(&t);
}

static void test_big_ids(void **state)
{
	static const uint64_t ids[] = {
		UINT64_MAX, UINT64_MAX - 1, UINT64_C(1) << 63, UINT64_C(1) << 32,
		(UINT64_C(1) << 32) + 1, 0x100000000ull * 16, 1,
	};
	struct idtab t;
	size_t i;

	idtab_init(&t);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		assert_int_equal(idtab_put(&t, ids[i], val_of(i)), 0);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		assert_ptr_equal(idtab_get(&t, ids[i]), val_of(i));
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		assert_ptr_equal(idtab_del(&t, ids[i]), val_of(i));
	assert_int_equal(t.count, 0);
	idtab_free(&t);
}

static void test_grow_and_iterate(void **state)
{
	const uint64_t n = 20000;
	struct idtab t;
	uint64_t id, seen = 0, sum = 0;
	size_t pos = 0;
	void *v;

	idtab_init(&t);
	for (id = 1; id <= n; id++)
		assert_int_equal(idtab_put(&t, id * 1024, val_of(id)), 0);
	assert_int_equal(t.count, n);
	assert_true(t.cap >= n * 4 / 3);
	assert_int_equal(t.cap & (t.cap - 1), 0);
	for (id = 1; id <= n; id++)
		assert_ptr_equal(idtab_get(&t, id * 1024), val_of(id));
	assert_null(idtab_get(&t, 1023));

	while ((v = idtab_next(&t, &pos, &id)) != NULL) {
		assert_int_equal(id % 1024, 0);
		assert_ptr_equal(v, val_of(id / 1024));
		seen++;
		sum += id / 1024;
	}
	assert_int_equal(seen, n);
	assert_int_equal(sum, n * (n + 1) / 2);
	assert_null(idtab_next(&t, &pos, &id)); /* stays at the end */

	for (id = 1; id <= n; id += 2)
		assert_ptr_equal(idtab_del(&t, id * 1024), val_of(id));
	assert_int_equal(t.count, n / 2);
	for (id = 1; id <= n; id++) {
		if (id % 2)
			assert_null(idtab_get(&t, id * 1024));
		else
			assert_ptr_equal(idtab_get(&t, id * 1024), val_of(id));
	}
	idtab_free(&t);

	/* Iterating an empty table. */
	idtab_init(&t);
	pos = 0;
	assert_null(idtab_next(&t, &pos, &id));
	idtab_free(&t);
}

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Random puts and deletes over a small id space, against a plain array. */
static void random_vs_model(int space, uint64_t stride)
{
	enum { SPACE_MAX = 1000, OPS = 200000 };
	static void *model[SPACE_MAX + 1];
	struct idtab t;
	size_t count = 0, pos, seen;
	uint64_t id;
	void *v;
	int op, i;

	idtab_init(&t);
	for (op = 0; op < OPS; op++) {
		id = rng() % (uint64_t)space + 1;
		if (rng() % 3) {
			if (model[id]) {
				assert_int_equal(idtab_put(&t, id * stride, val_of(id)),
						 -EEXIST);
			} else {
				assert_int_equal(idtab_put(&t, id * stride, val_of(id)),
						 0);
				model[id] = val_of(id);
				count++;
			}
		} else {
			assert_ptr_equal(idtab_del(&t, id * stride), model[id]);
			if (model[id])
				count--;
			model[id] = NULL;
		}
		assert_int_equal(t.count, count);
		if (op % 5000 == 0) {
			for (i = 1; i <= space; i++)
				assert_ptr_equal(idtab_get(&t, (uint64_t)i * stride),
						 model[i]);
			pos = 0;
			seen = 0;
			while ((v = idtab_next(&t, &pos, &id)) != NULL) {
				assert_ptr_equal(v, model[id / stride]);
				seen++;
			}
			assert_int_equal(seen, count);
		}
	}
	/* Drain everything. */
	for (i = 1; i <= space; i++) {
		assert_ptr_equal(idtab_del(&t, (uint64_t)i * stride), model[i]);
		model[i] = NULL;
	}
	assert_int_equal(t.count, 0);
	pos = 0;
	assert_null(idtab_next(&t, &pos, &id));
	idtab_free(&t);
}

static void test_random_vs_model(void **state)
{
	random_vs_model(11, 1);    /* a full small table, wrapping runs */
	random_vs_model(40, 16);
	random_vs_model(1000, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_big_ids),
		cmocka_unit_test(test_grow_and_iterate),
		cmocka_unit_test(test_random_vs_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
