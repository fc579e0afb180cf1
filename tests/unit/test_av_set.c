// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * AV sets (lib/av_set.c) through libfabric's own fi_av_set_* inlines, on
 * a kav AV backed by the fake kernel of fake_kav.c: attributes, initial
 * members, insert/remove, the set algebra and its ordering rules.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test_fixture.h"
#include "fake_kav.h"
#include "kav_set_priv.h"

#define NR_ADDRS	10

static struct fid_av *open_av(struct fid_domain *dom, size_t n)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = n };
	struct sockaddr_in *in = calloc(n, sizeof(*in));
	char ip[32];
	struct fid_av *av;
	size_t i;

	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), 0);
	for (i = 0; i < n; i++) {
		snprintf(ip, sizeof(ip), "10.%zu.%zu.%zu", i >> 16,
			 (i >> 8) & 255, i & 255);
		in[i] = test_sin(ip, (uint16_t)(1000 + i % 60000));
	}
	if (n)
		assert_int_equal(fi_av_insert(av, in, n, NULL, 0, NULL),
				 (int)n);
	free(in);
	return av;
}

static int setup(void **state)
{
	fi_addr_t gone[2] = { 2, 7 };
	struct av_fixture *f;

	f = av_fixture_open(state, FI_SOCKADDR_IN, NULL, NULL);
	/* Entries 0..9, then 2 and 7 removed: holes. */
	f->av = open_av(f->dom, NR_ADDRS);
	assert_int_equal(fi_av_remove(f->av, gone, 2, 0), 0);
	return 0;
}

static const struct fi_av_set_attr empty_attr = {
	.start_addr = FI_ADDR_NOTAVAIL,
	.end_addr = FI_ADDR_NOTAVAIL,
};

static struct fid_av_set *open_set(struct fid_av *av,
				   const struct fi_av_set_attr *a)
{
	struct fi_av_set_attr attr = *a;
	struct fid_av_set *set = NULL;

	assert_int_equal(fi_av_set(av, &attr, &set, NULL), 0);
	assert_non_null(set);
	return set;
}

/* A set with exactly these members, inserted in this order. */
static struct fid_av_set *make_set(struct fid_av *av, const fi_addr_t *m,
				   size_t n)
{
	struct fid_av_set *set = open_set(av, &empty_attr);
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(fi_av_set_insert(set, m[i]), 0);
	return set;
}

/* Assert the members of @set are @want[0..n), in order. */
static void expect(struct fid_av_set *set, const fi_addr_t *want, size_t n)
{
	fi_addr_t got[2048];
	size_t count = sizeof(got) / sizeof(got[0]), i;

	assert_int_equal(kav_av_set_members(set, got, &count), 0);
	assert_int_equal(count, n);
	for (i = 0; i < n; i++)
		assert_int_equal(got[i], want[i]);
}

#define EXPECT(set, ...)						\
	do {								\
		const fi_addr_t want_[] = { __VA_ARGS__ };		\
		expect((set), want_, sizeof(want_) / sizeof(want_[0])); \
	} while (0)

static void expect_empty(struct fid_av_set *set)
{
	size_t count = 5;

	assert_int_equal(kav_av_set_members(set, NULL, &count), 0);
	assert_int_equal(count, 0);
}

static void test_open_attr_errors(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_set_attr a;
	struct fid_av_set *set;
	uint8_t key[4] = { 1, 2, 3, 4 };

	assert_int_equal(fi_av_set(f->av, NULL, &set, NULL), -FI_EINVAL);
	a = empty_attr;
	assert_int_equal(kav_av_set_open(f->av, &a, NULL, NULL), -FI_EINVAL);
	assert_int_equal(kav_av_set_open(NULL, &a, &set, NULL), -FI_EINVAL);
	/* Not a kav AV. */
	assert_int_equal(kav_av_set_open((struct fid_av *)f->dom, &a, &set,
					 NULL), -FI_EINVAL);

	a = empty_attr;
	a.flags = 1ULL << 3;
	assert_int_equal(fi_av_set(f->av, &a, &set, NULL), -FI_EINVAL);

	a = empty_attr;
	a.start_addr = 0;		/* end missing */
	assert_int_equal(fi_av_set(f->av, &a, &set, NULL), -FI_EINVAL);
	a = empty_attr;
	a.end_addr = 3;			/* start missing */
	assert_int_equal(fi_av_set(f->av, &a, &set, NULL), -FI_EINVAL);
	a.start_addr = 5;		/* start > end */
	assert_int_equal(fi_av_set(f->av, &a, &set, NULL), -FI_EINVAL);
	a = empty_attr;
	a.stride = 2;			/* stride without a range */
	assert_int_equal(fi_av_set(f->av, &a, &set, NULL), -FI_EINVAL);
	a = empty_attr;
	a.comm_key_size = 4;		/* no key */
	assert_int_equal(fi_av_set(f->av, &a, &set, NULL), -FI_EINVAL);
	a.comm_key = key;
	a.start_addr = 0;		/* key and range */
	a.end_addr = 3;
	assert_int_equal(fi_av_set(f->av, &a, &set, NULL), -FI_EINVAL);
	/* More range positions (0,2,4,6,8 = 5) than count. */
	a = empty_attr;
	a.start_addr = 0;
	a.end_addr = 8;
	a.stride = 2;
	a.count = 4;
	assert_int_equal(fi_av_set(f->av, &a, &set, NULL), -FI_EINVAL);
	a.count = 5;
	set = open_set(f->av, &a);
	assert_int_equal(fi_close(&set->fid), 0);

	/*
	 * FI_PEER is bit 43, which fi_av_set() already means as
	 * FI_ALLREDUCE_SET: kav cannot tell an import request from a
	 * collective selection, and takes it as the latter.
	 */
	_Static_assert(FI_PEER == FI_ALLREDUCE_SET, "libfabric bit sharing");
	a = empty_attr;
	a.flags = FI_PEER;
	set = open_set(f->av, &a);
	expect_empty(set);
	assert_int_equal(fi_close(&set->fid), 0);
}

static void test_open_initial_members(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_set_attr a = empty_attr;
	struct fid_av_set *set;
	uint8_t key[3] = { 9, 8, 7 };
	int ctx;

	/* Empty, with a comm key (copied: our array may go away). */
	a.comm_key = key;
	a.comm_key_size = sizeof(key);
	a.count = 100;
	assert_int_equal(fi_av_set(f->av, &a, &set, &ctx), 0);
	assert_int_equal(set->fid.fclass, FI_CLASS_AV_SET);
	assert_ptr_equal(set->fid.context, &ctx);
	assert_true(kav_av_set_is(&set->fid));
	assert_false(kav_av_set_is(&f->av->fid));
	memset(key, 0, sizeof(key));
	expect_empty(set);
	assert_int_equal(fi_close(&set->fid), 0);

	/* Range with stride: 0 2 4 6 8, and 2 is gone. */
	a = empty_attr;
	a.start_addr = 0;
	a.end_addr = 8;
	a.stride = 2;
	set = open_set(f->av, &a);
	EXPECT(set, 0, 4, 6, 8);
	assert_int_equal(fi_close(&set->fid), 0);

	/* stride 0 means 1; the range may run past the table. */
	a.start_addr = 5;
	a.end_addr = 1000;
	a.stride = 0;
	set = open_set(f->av, &a);
	EXPECT(set, 5, 6, 8, 9);
	assert_int_equal(fi_close(&set->fid), 0);

	/* A stride landing exactly on end, and one that overshoots. */
	a.start_addr = 1;
	a.end_addr = 9;
	a.stride = 4;
	set = open_set(f->av, &a);
	EXPECT(set, 1, 5, 9);
	assert_int_equal(fi_close(&set->fid), 0);
	a.end_addr = 8;
	set = open_set(f->av, &a);
	EXPECT(set, 1, 5);
	assert_int_equal(fi_close(&set->fid), 0);
	/* No overflow near the top of fi_addr_t. */
	a.start_addr = 3;
	a.end_addr = FI_ADDR_NOTAVAIL - 1;
	a.stride = 1ULL << 62;
	set = open_set(f->av, &a);
	EXPECT(set, 3);
	assert_int_equal(fi_close(&set->fid), 0);

	/* FI_UNIVERSE: every valid entry in index order; range ignored. */
	a = (struct fi_av_set_attr){ .flags = FI_UNIVERSE | FI_BARRIER_SET };
	set = open_set(f->av, &a);
	EXPECT(set, 0, 1, 3, 4, 5, 6, 8, 9);
	assert_int_equal(fi_close(&set->fid), 0);
}

static void test_insert_remove(void **state)
{
	struct av_fixture *f = *state;
	struct fid_av_set *set = open_set(f->av, &empty_attr);

	assert_int_equal(fi_av_set_insert(set, 5), 0);
	assert_int_equal(fi_av_set_insert(set, 1), 0);
	assert_int_equal(fi_av_set_insert(set, 9), 0);
	/* Group bits are dropped: this is 3. */
	assert_int_equal(fi_av_set_insert(set, fi_group_addr(3, 7)), 0);
	EXPECT(set, 5, 1, 9, 3);

	assert_int_equal(fi_av_set_insert(set, 1), -FI_EINVAL);	/* dup */
	assert_int_equal(fi_av_set_insert(set, fi_group_addr(1, 2)),
			 -FI_EINVAL);				/* dup */
	assert_int_equal(fi_av_set_insert(set, 2), -FI_EINVAL);	/* removed */
	assert_int_equal(fi_av_set_insert(set, NR_ADDRS), -FI_EINVAL);
	assert_int_equal(fi_av_set_insert(set, FI_ADDR_NOTAVAIL), -FI_EINVAL);
	assert_int_equal(fi_av_set_insert(set, KAV_FI_ADDR_KEY | 0),
			 -FI_EINVAL);				/* a key */
	EXPECT(set, 5, 1, 9, 3);

	/* Remove keeps the order of the rest. */
	assert_int_equal(fi_av_set_remove(set, 1), 0);
	EXPECT(set, 5, 9, 3);
	assert_int_equal(fi_av_set_remove(set, 1), -FI_EINVAL);
	assert_int_equal(fi_av_set_remove(set, 4), -FI_EINVAL);
	assert_int_equal(fi_av_set_remove(set, FI_ADDR_NOTAVAIL), -FI_EINVAL);
	assert_int_equal(fi_av_set_remove(set, fi_group_addr(5, 1)), 0);
	EXPECT(set, 9, 3);
	/* Removed members can come back, at the end. */
	assert_int_equal(fi_av_set_insert(set, 1), 0);
	assert_int_equal(fi_av_set_insert(set, 5), 0);
	EXPECT(set, 9, 3, 1, 5);
	assert_int_equal(fi_av_set_remove(set, 5), 0);
	assert_int_equal(fi_av_set_remove(set, 9), 0);
	assert_int_equal(fi_av_set_remove(set, 3), 0);
	assert_int_equal(fi_av_set_remove(set, 1), 0);
	expect_empty(set);
	assert_int_equal(fi_close(&set->fid), 0);
}

static void test_union(void **state)
{
	struct av_fixture *f = *state;
	const fi_addr_t d[] = { 3, 1 }, s[] = { 4, 1, 5, 0 };
	struct fid_av_set *dst = make_set(f->av, d, 2);
	struct fid_av_set *src = make_set(f->av, s, 4);

	/* New members go to the end, in the source's order. */
	assert_int_equal(fi_av_set_union(dst, src), 0);
	EXPECT(dst, 3, 1, 4, 5, 0);
	EXPECT(src, 4, 1, 5, 0);		/* unchanged */
	assert_int_equal(fi_av_set_union(dst, src), 0);	/* idempotent */
	EXPECT(dst, 3, 1, 4, 5, 0);
	assert_int_equal(fi_av_set_union(dst, dst), 0);
	EXPECT(dst, 3, 1, 4, 5, 0);
	/* Membership is still right after the union (hash consistent). */
	assert_int_equal(fi_av_set_insert(dst, 5), -FI_EINVAL);
	assert_int_equal(fi_av_set_insert(dst, 6), 0);
	assert_int_equal(fi_close(&dst->fid), 0);
	assert_int_equal(fi_close(&src->fid), 0);
}

static void test_intersect_diff(void **state)
{
	struct av_fixture *f = *state;
	const fi_addr_t d[] = { 5, 1, 3, 0, 9 }, s[] = { 0, 3, 9, 8 };
	struct fid_av_set *dst = make_set(f->av, d, 5);
	struct fid_av_set *src = make_set(f->av, s, 4);
	struct fid_av_set *dst2 = make_set(f->av, d, 5);

	/* Intersect keeps the destination's order. */
	assert_int_equal(fi_av_set_intersect(dst, src), 0);
	EXPECT(dst, 3, 0, 9);
	assert_int_equal(fi_av_set_insert(dst, 1), 0);	/* gone: insertable */
	assert_int_equal(fi_av_set_insert(dst, 3), -FI_EINVAL);
	assert_int_equal(fi_av_set_intersect(dst, dst), 0);
	EXPECT(dst, 3, 0, 9, 1);

	/* Diff too. */
	assert_int_equal(fi_av_set_diff(dst2, src), 0);
	EXPECT(dst2, 5, 1);
	assert_int_equal(fi_av_set_insert(dst2, 0), 0);
	EXPECT(dst2, 5, 1, 0);
	assert_int_equal(fi_av_set_diff(dst2, dst2), 0);
	expect_empty(dst2);
	assert_int_equal(fi_av_set_insert(dst2, 5), 0);
	EXPECT(dst2, 5);

	assert_int_equal(fi_close(&dst->fid), 0);
	assert_int_equal(fi_close(&src->fid), 0);
	assert_int_equal(fi_close(&dst2->fid), 0);
}

static void test_cross_av(void **state)
{
	struct av_fixture *f = *state;
	struct fid_av *av2 = open_av(f->dom, 4);
	const fi_addr_t m[] = { 0, 1 };
	struct fid_av_set *a = make_set(f->av, m, 2);
	struct fid_av_set *b = make_set(av2, m, 2);
	struct fid_av_set fake = { .fid = { .fclass = FI_CLASS_AV_SET } };

	assert_int_equal(fi_av_set_union(a, b), -FI_EINVAL);
	assert_int_equal(fi_av_set_intersect(a, b), -FI_EINVAL);
	assert_int_equal(fi_av_set_diff(a, b), -FI_EINVAL);
	assert_int_equal(fi_av_set_union(a, &fake), -FI_EINVAL);
	assert_int_equal(fi_av_set_diff(a, NULL), -FI_EINVAL);
	EXPECT(a, 0, 1);
	EXPECT(b, 0, 1);
	assert_int_equal(fi_close(&a->fid), 0);
	assert_int_equal(fi_close(&b->fid), 0);
	assert_int_equal(fi_close(&av2->fid), 0);
}

static void test_addr_and_lifetime(void **state)
{
	struct av_fixture *f = *state;
	struct fid_av_set *set = open_set(f->av, &empty_attr);
	struct fid_av_set *set2 = open_set(f->av, &empty_attr);
	fi_addr_t coll = FI_ADDR_NOTAVAIL;

	assert_int_equal(fi_av_set_addr(set, &coll), 0);
	assert_true(coll == (fi_addr_t)(uintptr_t)set);
	assert_int_equal(fi_av_set_addr(set, NULL), -FI_EINVAL);
	assert_ptr_equal(kav_av_set_av(set), kav_av_from_fid(f->av));
	assert_null(kav_av_set_av((struct fid_av_set *)f->av));

	/* The AV stays open while sets refer to it. */
	assert_int_equal(kav_av_children(kav_av_from_fid(f->av)), 2);
	assert_int_equal(fi_close(&f->av->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&set->fid), 0);
	assert_int_equal(fi_close(&f->av->fid), -FI_EBUSY);

	/* A pinned (peer-imported) set cannot close. */
	assert_int_equal(kav_av_set_hold(set2), 0);
	assert_int_equal(kav_av_set_hold((struct fid_av_set *)f->av),
			 -FI_EINVAL);
	assert_int_equal(fi_close(&set2->fid), -FI_EBUSY);
	kav_av_set_release(set2);
	assert_int_equal(fi_close(&set2->fid), 0);
	assert_int_equal(kav_av_children(kav_av_from_fid(f->av)), 0);
	assert_int_equal(fi_close(&f->av->fid), 0);
	f->av = NULL;
}

static void test_members_too_small(void **state)
{
	struct av_fixture *f = *state;
	const fi_addr_t m[] = { 8, 0, 4 };
	struct fid_av_set *set = make_set(f->av, m, 3);
	fi_addr_t out[4] = { 77, 77, 77, 77 };
	size_t n;

	n = 2;
	assert_int_equal(kav_av_set_members(set, out, &n), -FI_ETOOSMALL);
	assert_int_equal(n, 3);
	assert_int_equal(out[0], 77);		/* nothing copied */
	n = 0;
	assert_int_equal(kav_av_set_members(set, NULL, &n), -FI_ETOOSMALL);
	assert_int_equal(n, 3);
	n = 3;
	assert_int_equal(kav_av_set_members(set, NULL, &n), -FI_EINVAL);
	assert_int_equal(kav_av_set_members(set, out, NULL), -FI_EINVAL);
	n = 4;
	assert_int_equal(kav_av_set_members(set, out, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(out[0], 8);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[2], 4);
	assert_int_equal(out[3], 77);
	assert_int_equal(fi_close(&set->fid), 0);
}

/* Many members: the hash grows and the algebra stays linear and right. */
static void test_large(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_set_attr a = { .flags = FI_UNIVERSE };
	struct fid_av_set *all, *odd, *low;
	static fi_addr_t want[2000];
	struct fid_av *big;
	size_t i, n;

	fake_kav_max_entries = 4096;
	big = open_av(f->dom, 2000);
	all = open_set(big, &a);
	odd = open_set(big, &empty_attr);
	for (i = 1999; i < 2000; i -= 2)	/* descending odd indices */
		assert_int_equal(fi_av_set_insert(odd, i), 0);
	low = open_set(big, &empty_attr);
	for (i = 0; i < 1000; i++)
		assert_int_equal(fi_av_set_insert(low, i), 0);

	/* odd ∪ low: odd (descending) then the even ones below 1000. */
	assert_int_equal(fi_av_set_union(odd, low), 0);
	for (n = 0, i = 1999; i < 2000; i -= 2)
		want[n++] = i;
	for (i = 0; i < 1000; i += 2)
		want[n++] = i;
	expect(odd, want, n);
	/* all \ low = 1000..1999 */
	assert_int_equal(fi_av_set_diff(all, low), 0);
	for (n = 0, i = 1000; i < 2000; i++)
		want[n++] = i;
	expect(all, want, n);
	/* (odd ∪ low) ∩ all, in odd's order: odd ones >= 1000, descending. */
	assert_int_equal(fi_av_set_intersect(odd, all), 0);
	for (n = 0, i = 1999; i >= 1000; i -= 2)
		want[n++] = i;
	expect(odd, want, n);

	assert_int_equal(fi_close(&all->fid), 0);
	assert_int_equal(fi_close(&odd->fid), 0);
	assert_int_equal(fi_close(&low->fid), 0);
	assert_int_equal(fi_close(&big->fid), 0);
	fake_kav_max_entries = 1024;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_attr_errors, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_open_initial_members,
						setup, av_teardown),
		cmocka_unit_test_setup_teardown(test_insert_remove, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_union, setup, av_teardown),
		cmocka_unit_test_setup_teardown(test_intersect_diff, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_cross_av, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_addr_and_lifetime, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_members_too_small, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_large, setup, av_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
