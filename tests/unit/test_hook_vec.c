// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The hook's lock-free arrays (prov/hook_vec.c): chunks made on first
 * write and filled, NULL for what was never made, a directory that grows
 * without moving a chunk (a reader holding an old directory still finds
 * its elements), and no index past an fi_addr_t's table index.
 */
#include <stdint.h>

#include "test_common.h"
#include "../../prov/kav_hook.h"

static void test_make_and_get(void **state)
{
	struct kavh_vec v;
	uint64_t *a, *b, *c;

	(void)state;
	kavh_vec_init(&v, sizeof(uint64_t), 0xff);
	assert_null(kavh_vec_get(&v, 0));
	a = kavh_vec_make(&v, 5);
	assert_non_null(a);
	assert_int_equal(*a, UINT64_MAX);	/* filled */
	*a = 42;
	assert_ptr_equal(kavh_vec_get(&v, 5), a);
	/* The rest of the chunk exists and is filled; the next does not. */
	b = kavh_vec_get(&v, KAVH_CHUNK - 1);
	assert_non_null(b);
	assert_int_equal(*b, UINT64_MAX);
	assert_null(kavh_vec_get(&v, KAVH_CHUNK));
	c = kavh_vec_make(&v, KAVH_CHUNK);
	assert_ptr_equal(kavh_vec_get(&v, KAVH_CHUNK), c);
	assert_int_equal(*(uint64_t *)kavh_vec_get(&v, 5), 42);
	kavh_vec_free(&v);
	assert_null(kavh_vec_get(&v, 5));
}

static void test_growth_keeps_chunks(void **state)
{
	const struct kavh_dir *old;
	struct kavh_vec v;
	uint64_t *first, *far;

	(void)state;
	kavh_vec_init(&v, sizeof(struct kavh_slot), 0xff);
	first = kavh_vec_make(&v, 1);
	assert_non_null(first);
	*first = 7;
	old = v.dir;
	/* Far enough to need a bigger directory. */
	far = kavh_vec_make(&v, (uint64_t)KAVH_CHUNK * 100 + 3);
	assert_non_null(far);
	assert_ptr_not_equal(v.dir, old);
	assert_ptr_equal(v.dir->retired, old);	/* kept for readers */
	assert_ptr_equal(old->chunk[0], v.dir->chunk[0]);
	assert_ptr_equal(kavh_vec_get(&v, 1), first);
	assert_int_equal(*first, 7);
	/* In between: never made. */
	assert_null(kavh_vec_get(&v, (uint64_t)KAVH_CHUNK * 50));
	kavh_vec_free(&v);
}

static void test_bounds(void **state)
{
	struct kavh_vec v;

	(void)state;
	kavh_vec_init(&v, sizeof(uint64_t), 0);
	/* The largest table index an fi_addr_t carries, and one past. */
	assert_non_null(kavh_vec_make(&v, KAV_FI_ADDR_LOW_MASK));
	assert_null(kavh_vec_make(&v, KAV_FI_ADDR_LOW_MASK + 1));
	assert_null(kavh_vec_get(&v, KAV_FI_ADDR_LOW_MASK + 1));
	assert_null(kavh_vec_get(&v, UINT64_MAX));
	kavh_vec_free(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_make_and_get),
		cmocka_unit_test(test_growth_keeps_chunks),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
