// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Auth keys (fi_av_insert_auth_key, fi_av_lookup_auth_key, FI_AUTH_KEY
 * inserts and removes), user ids (fi_av_set_user_id), kav_ep endpoints
 * and kav_av_resolve(), on a domain opened with FI_AV_AUTH_KEY and an AV
 * opened with FI_AV_USER_ID, against the fake kernel of fake_kav.c.
 */
#include <stdlib.h>

#include "test_fixture.h"
#include "fake_kav.h"

static int setup(void **state)
{
	struct fi_domain_attr dattr = { .auth_key_size = FI_AV_AUTH_KEY };
	struct fi_av_attr attr = { .type = FI_AV_TABLE,
				   .flags = FI_AV_USER_ID };
	struct av_fixture *f;

	f = av_fixture_open(state, FI_SOCKADDR_IN, &dattr, &attr);
	f->table = fake_kav_table(kav_av_fd(f->av));
	assert_non_null(f->table);
	return 0;
}

static fi_addr_t add_key(struct av_fixture *f, uint32_t vni)
{
	struct kav_auth_key key = { .vni = vni };
	fi_addr_t h = 12345;

	assert_int_equal(fi_av_insert_auth_key(f->av, &key, sizeof(key), &h,
					       0), 0);
	return h;
}

static uint32_t key_vni(struct fid_av *av, fi_addr_t fa)
{
	struct kav_auth_key key;
	size_t len = sizeof(key);

	memset(&key, 0xff, sizeof(key));
	assert_int_equal(fi_av_lookup_auth_key(av, fa, &key, &len), 0);
	assert_int_equal(len, sizeof(key));
	assert_int_equal(key.__reserved, 0);
	return key.vni;
}

/* Insert @n addresses bound to @keys (key handles) with FI_AUTH_KEY. */
static void add_addrs(struct av_fixture *f, size_t n, const fi_addr_t *keys,
		      fi_addr_t *fa)
{
	struct sockaddr_in in[8];
	size_t i;

	for (i = 0; i < n; i++) {
		in[i] = test_sin("10.0.0.1", (uint16_t)(1000 + i));
		fa[i] = keys[i];
	}
	assert_int_equal(fi_av_insert(f->av, in, n, fa, FI_AUTH_KEY, NULL),
			 (int)n);
}

/* --------------------------------------------------------------- keys */

static void test_insert_auth_key(void **state)
{
	struct av_fixture *f = *state;
	struct kav_auth_key key = { .vni = 7 };
	fi_addr_t h = 0, h2;

	/* Arguments. */
	assert_int_equal(fi_av_insert_auth_key(f->av, &key, sizeof(key) - 1,
					       &h, 0), -FI_EINVAL);
	assert_int_equal(fi_av_insert_auth_key(f->av, &key, sizeof(key) + 1,
					       &h, 0), -FI_EINVAL);
	assert_int_equal(fi_av_insert_auth_key(f->av, NULL, sizeof(key), &h,
					       0), -FI_EINVAL);
	assert_int_equal(fi_av_insert_auth_key(f->av, &key, sizeof(key), NULL,
					       0), -FI_EINVAL);
	assert_int_equal(fi_av_insert_auth_key(f->av, &key, sizeof(key), &h,
					       FI_MORE), -FI_EINVAL);
	assert_int_equal(fake_kav_stats.key_inserts, 0);
	/* The kernel's rule: __reserved must be 0. */
	key.__reserved = 1;
	assert_int_equal(fi_av_insert_auth_key(f->av, &key, sizeof(key), &h,
					       0), -FI_EINVAL);
	assert_int_equal(h, 0);

	/* Handles are recognisable: KAV_FI_ADDR_KEY | slot. */
	h = add_key(f, 7);
	assert_true(h == (KAV_FI_ADDR_KEY | 0));
	h2 = add_key(f, 8);
	assert_true(h2 == (KAV_FI_ADDR_KEY | 1));
	assert_int_equal(key_vni(f->av, h), 7);
	assert_int_equal(key_vni(f->av, h2), 8);
	/* The same key again: -FI_EALREADY and the existing handle. */
	key.vni = 8;
	key.__reserved = 0;
	h = 0;
	assert_int_equal(fi_av_insert_auth_key(f->av, &key, sizeof(key), &h,
					       0), -FI_EALREADY);
	assert_true(h == h2);
}

static void test_auth_key_full(void **state)
{
	struct av_fixture *f = *state;
	struct kav_auth_key key = { .vni = 1000 };
	fi_addr_t h;
	uint32_t i;

	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++)
		assert_true(add_key(f, 100 + i) ==
			    (KAV_FI_ADDR_KEY | i));
	assert_int_equal(fi_av_insert_auth_key(f->av, &key, sizeof(key), &h,
					       0), -FI_ENOSPC);
}

static void test_lookup_auth_key(void **state)
{
	struct av_fixture *f = *state;
	struct kav_auth_key key;
	fi_addr_t k[2], fa[2], plain;
	struct sockaddr_in in = test_sin("10.9.9.9", 9);
	size_t len;

	k[0] = add_key(f, 70);
	k[1] = add_key(f, 71);
	add_addrs(f, 2, k, fa);
	assert_int_equal(fi_av_insert(f->av, &in, 1, &plain, 0, NULL), 1);

	/* By key handle, or by an address bound to a key. */
	assert_int_equal(key_vni(f->av, k[1]), 71);
	assert_int_equal(key_vni(f->av, fa[0]), 70);
	assert_int_equal(key_vni(f->av, fa[1]), 71);
	/* Group bits are ignored here too. */
	assert_int_equal(key_vni(f->av, fi_group_addr(fa[1], 4)), 71);
	assert_int_equal(key_vni(f->av, fi_group_addr(k[0], 4)), 70);
	/* An address without a key. */
	len = sizeof(key);
	assert_int_equal(fi_av_lookup_auth_key(f->av, plain, &key, &len),
			 -FI_ENOKEY);
	/* Not a present key / entry. */
	assert_int_equal(fi_av_lookup_auth_key(f->av, KAV_FI_ADDR_KEY | 2,
					       &key, &len), -FI_EINVAL);
	assert_int_equal(fi_av_lookup_auth_key(f->av,
					       KAV_FI_ADDR_KEY |
					       KAV_MAX_AUTH_KEYS, &key, &len),
			 -FI_EINVAL);
	assert_int_equal(fi_av_lookup_auth_key(f->av, 99, &key, &len),
			 -FI_EINVAL);
	assert_int_equal(fi_av_lookup_auth_key(f->av, FI_ADDR_NOTAVAIL, &key,
					       &len), -FI_EINVAL);
	assert_int_equal(fi_av_lookup_auth_key(f->av, k[0], &key, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_av_lookup_auth_key(f->av, k[0], NULL, &len),
			 -FI_EINVAL);
	/* Truncation: copy what fits, report the size needed. */
	len = 0;
	assert_int_equal(fi_av_lookup_auth_key(f->av, k[0], NULL, &len), 0);
	assert_int_equal(len, sizeof(key));
	memset(&key, 0xee, sizeof(key));
	len = 2;
	assert_int_equal(fi_av_lookup_auth_key(f->av, k[1], &key, &len), 0);
	assert_int_equal(len, sizeof(key));
	assert_int_equal(key.vni & 0xffff, 71);
	assert_int_equal(key.vni >> 16, 0xeeee);	/* not written */
	/* No system call for any of it. */
	assert_int_equal(fake_kav_stats.key_inserts, 2);
	assert_int_equal(fake_kav_stats.key_removes, 0);
}

static void test_insert_with_keys(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in[3];
	struct kav_resolved r;
	fi_addr_t k, fa[3];
	int errs[3] = { -1, -1, -1 }, i;

	k = add_key(f, 5);
	for (i = 0; i < 3; i++)
		in[i] = test_sin("10.0.0.1", (uint16_t)(i + 1));
	/* The array is input: NULL cannot carry key handles. */
	assert_int_equal(fi_av_insert(f->av, in, 3, NULL, FI_AUTH_KEY, NULL),
			 -FI_EINVAL);
	/* A bad handle fails its address only. */
	fa[0] = k;
	fa[1] = KAV_FI_ADDR_KEY | 9;		/* no such key */
	fa[2] = fi_group_addr(k, 2);		/* group bits ignored */
	assert_int_equal(fi_av_insert(f->av, in, 3, fa,
				      FI_AUTH_KEY | FI_SYNC_ERR, errs), 2);
	assert_int_equal(fake_kav_stats.last_insert_flags,
			 KAV_INSERT_AUTH_KEY);
	assert_int_equal(fa[0], 0);
	assert_true(fa[1] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[2], 1);
	assert_int_equal(errs[0], 0);
	assert_int_equal(errs[1], FI_EINVAL);
	assert_int_equal(errs[2], 0);
	assert_int_equal(kav_av_resolve(f->av, fa[2], &r), 0);
	assert_true(r.key == k);
	assert_int_equal(r.vni, 5);
	assert_int_equal(fake_table_key_count(f->table, 0)->nr_entries, 2);
	/* An address fi_addr is not a key handle. */
	fa[0] = 0;
	assert_int_equal(fi_av_insert(f->av, in, 1, fa, FI_AUTH_KEY, NULL),
			 0);
	/* insertsvc / insertsym take FI_AUTH_KEY as well. */
	fa[0] = k;
	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.2", "2", fa,
					 FI_AUTH_KEY, NULL), 1);
	assert_int_equal(key_vni(f->av, fa[0]), 5);
	fa[0] = k;
	fa[1] = k;
	assert_int_equal(fi_av_insertsym(f->av, "10.0.1.1", 2, "3", 1, fa,
					 FI_AUTH_KEY, NULL), 2);
	assert_int_equal(key_vni(f->av, fa[1]), 5);
	assert_int_equal(fake_table_key_count(f->table, 0)->nr_entries, 5);
}

static void test_remove_keys(void **state)
{
	struct av_fixture *f = *state;
	fi_addr_t k[2], fa[2], rm[2];
	unsigned int removes;
	struct kav_auth_key key;
	size_t len = sizeof(key);

	k[0] = add_key(f, 10);
	k[1] = add_key(f, 11);
	add_addrs(f, 1, k, fa);			/* one address on k[0] */

	/* Key handles need FI_AUTH_KEY, and FI_AUTH_KEY needs handles. */
	assert_int_equal(fi_av_remove(f->av, &k[1], 1, 0), -FI_EINVAL);
	assert_int_equal(fi_av_remove(f->av, fa, 1, FI_AUTH_KEY), -FI_EINVAL);
	assert_int_equal(fi_av_remove(f->av, k, 1, FI_AUTH_KEY | FI_MORE),
			 -FI_EINVAL);
	/* All checked before any goes: a repeat, a busy key. */
	rm[0] = k[1];
	rm[1] = fi_group_addr(k[1], 1);
	assert_int_equal(fi_av_remove(f->av, rm, 2, FI_AUTH_KEY), -FI_EINVAL);
	rm[1] = k[0];				/* bound to an entry */
	assert_int_equal(fi_av_remove(f->av, rm, 2, FI_AUTH_KEY), -FI_EBUSY);
	assert_int_equal(fake_kav_stats.key_removes, 0);
	assert_int_equal(key_vni(f->av, k[1]), 11);

	/* Once the entry is gone, both go. */
	assert_int_equal(fi_av_remove(f->av, fa, 1, 0), 0);
	assert_int_equal(fi_av_remove(f->av, rm, 2, FI_AUTH_KEY), 0);
	assert_int_equal(fake_kav_stats.key_removes, 2);
	assert_int_equal(fi_av_lookup_auth_key(f->av, k[0], &key, &len),
			 -FI_EINVAL);
	assert_int_equal(fi_av_lookup_auth_key(f->av, k[1], &key, &len),
			 -FI_EINVAL);
	assert_int_equal(fi_av_remove(f->av, k, 1, FI_AUTH_KEY), -FI_EINVAL);
	removes = fake_kav_stats.key_removes;
	assert_int_equal(removes, 2);
	/* The slot is reused. */
	assert_true(add_key(f, 12) == k[0]);
}

/* ----------------------------------------------------------- user ids */

static void test_set_user_id(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in[2];
	struct kav_resolved r;
	fi_addr_t fa[2], k;

	in[0] = test_sin("10.0.0.1", 1);
	in[1] = test_sin("10.0.0.2", 2);
	assert_int_equal(fi_av_insert(f->av, in, 2, fa, 0, NULL), 2);
	k = add_key(f, 3);
	/* Default: FI_ADDR_NOTAVAIL, for entries and keys. */
	assert_int_equal(kav_av_resolve(f->av, fa[0], &r), 0);
	assert_true(r.user_id == FI_ADDR_NOTAVAIL);
	assert_true(fake_table_key(f->table, 0)->user_id == KAV_NONE);

	assert_int_equal(fi_av_set_user_id(f->av, fa[0], 77, 0), 0);
	assert_int_equal(kav_av_resolve(f->av, fa[0], &r), 0);
	assert_int_equal(r.user_id, 77);
	/* fi_group_addr(a, g) names a. */
	assert_int_equal(fi_av_set_user_id(f->av, fi_group_addr(fa[1], 9), 88,
					   0), 0);
	assert_int_equal(kav_av_resolve(f->av, fa[1], &r), 0);
	assert_int_equal(r.user_id, 88);
	/* Key handles with FI_AUTH_KEY. */
	assert_int_equal(fi_av_set_user_id(f->av, k, 99, FI_AUTH_KEY), 0);
	assert_int_equal(fake_table_key(f->table, 0)->user_id, 99);
	/* Mismatches, flags, bad targets. */
	assert_int_equal(fi_av_set_user_id(f->av, k, 1, 0), -FI_EINVAL);
	assert_int_equal(fi_av_set_user_id(f->av, fa[0], 1, FI_AUTH_KEY),
			 -FI_EINVAL);
	assert_int_equal(fi_av_set_user_id(f->av, fa[0], 1, FI_MORE),
			 -FI_EINVAL);
	assert_int_equal(fi_av_set_user_id(f->av, FI_ADDR_NOTAVAIL, 1, 0),
			 -FI_EINVAL);
	assert_int_equal(fake_kav_stats.set_user_ids, 3);
	/* The kernel's answer for an index that is no entry. */
	assert_int_equal(fi_av_set_user_id(f->av, 500, 1, 0), -FI_EINVAL);
	assert_int_equal(fake_kav_stats.set_user_ids, 4);
	/* FI_ADDR_NOTAVAIL clears it. */
	assert_int_equal(fi_av_set_user_id(f->av, fa[0], FI_ADDR_NOTAVAIL, 0),
			 0);
	assert_int_equal(kav_av_resolve(f->av, fa[0], &r), 0);
	assert_true(r.user_id == FI_ADDR_NOTAVAIL);
}

/* ------------------------------------------------------------- resolve */

static void test_resolve(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in = test_sin("10.1.2.3", 4);
	struct kav_resolved r;
	struct fid_av other;
	fi_addr_t fa;

	assert_int_equal(fi_av_insert(f->av, &in, 1, &fa, 0, NULL), 1);
	assert_int_equal(kav_av_resolve(f->av, fi_rx_addr(fa, 3, 4), &r), 0);
	assert_int_equal(r.index, fa);
	assert_int_equal(r.addr_len, sizeof(in));
	assert_memory_equal(r.addr, &in, sizeof(in));
	/* Zero copy: the pointer is the mapped entry's address. */
	assert_ptr_equal(r.addr,
			 kav_table_entry(&((struct kav_fid_av *)f->av)->table,
					 fa)->addr);
	assert_true(r.key == FI_ADDR_NOTAVAIL);
	assert_int_equal(r.vni, 0);
	assert_int_equal(kav_av_resolve_check(f->av, &r), 1);
	/* A change of the entry is seen. */
	assert_int_equal(fi_av_set_user_id(f->av, fa, 5, 0), 0);
	assert_int_equal(kav_av_resolve_check(f->av, &r), 0);
	assert_int_equal(kav_av_resolve(f->av, fa, &r), 0);
	assert_int_equal(fi_av_remove(f->av, &fa, 1, 0), 0);
	assert_int_equal(kav_av_resolve_check(f->av, &r), 0);

	assert_int_equal(kav_av_resolve(f->av, fa, &r), -FI_EINVAL);
	assert_int_equal(kav_av_resolve(f->av, KAV_FI_ADDR_KEY, &r),
			 -FI_EINVAL);
	assert_int_equal(kav_av_resolve(f->av, 0, NULL), -FI_EINVAL);
	memset(&other, 0, sizeof(other));
	assert_int_equal(kav_av_resolve(&other, 0, &r), -FI_EINVAL);
	assert_int_equal(kav_av_resolve(NULL, 0, &r), -FI_EINVAL);
	assert_int_equal(kav_av_resolve_check(&other, &r), 0);
}

/* ----------------------------------------------------------- endpoints */

static void test_endpoints(void **state)
{
	struct av_fixture *f = *state;
	struct kav_ep *ep, *ep2;
	fi_addr_t k[3], rm;

	assert_int_equal(kav_ep_open(NULL, &ep), -FI_EINVAL);
	assert_int_equal(kav_ep_open(f->av, NULL), -FI_EINVAL);
	assert_int_equal(kav_ep_enable(NULL), -FI_EINVAL);
	assert_int_equal(kav_ep_close(NULL), -FI_EINVAL);
	assert_int_equal(kav_ep_keys(NULL), 0);

	k[0] = add_key(f, 1);
	k[1] = add_key(f, 2);
	assert_int_equal(kav_ep_open(f->av, &ep), 0);
	assert_int_equal(kav_ep_open(f->av, &ep2), 0);
	assert_int_equal(fake_kav_stats.ep_opens, 2);
	/* An open endpoint keeps the AV open. */
	assert_int_equal(fi_close(&f->av->fid), -FI_EBUSY);

	/* Enable snapshots the keys present now. */
	assert_int_equal(kav_ep_keys(ep), 0);
	assert_int_equal(kav_ep_enable(ep), 0);
	assert_int_equal(kav_ep_keys(ep), 0x3);
	assert_int_equal(kav_ep_enable(ep), -FI_EALREADY);
	k[2] = add_key(f, 3);
	assert_int_equal(kav_ep_enable(ep2), 0);
	assert_int_equal(kav_ep_keys(ep2), 0x7);
	assert_int_equal(kav_ep_keys(ep), 0x3);	/* unchanged */
	assert_int_equal(fake_table_key_count(f->table, 0)->nr_endpoints, 2);
	assert_int_equal(fake_table_key_count(f->table, 2)->nr_endpoints, 1);

	/* Keys in use by enabled endpoints cannot be removed ... */
	rm = k[0];
	assert_int_equal(fi_av_remove(f->av, &rm, 1, FI_AUTH_KEY), -FI_EBUSY);
	assert_int_equal(kav_ep_close(ep), 0);
	assert_int_equal(fi_av_remove(f->av, &rm, 1, FI_AUTH_KEY), -FI_EBUSY);
	/* ... until every such endpoint is closed. */
	assert_int_equal(kav_ep_close(ep2), 0);
	assert_int_equal(fake_table_key_count(f->table, 0)->nr_endpoints, 0);
	assert_int_equal(fi_av_remove(f->av, k, 3, FI_AUTH_KEY), 0);
	/* Both endpoint fds were closed through the seam. */
	assert_true(fake_kav_stats.closes >= 2);
	/* Now the AV closes. */
	assert_int_equal(fi_close(&f->av->fid), 0);
	f->av = NULL;
}

/* An endpoint that was never enabled holds the AV but no key. */
static void test_endpoint_not_enabled(void **state)
{
	struct av_fixture *f = *state;
	struct kav_ep *ep;
	fi_addr_t k;

	k = add_key(f, 1);
	assert_int_equal(kav_ep_open(f->av, &ep), 0);
	assert_int_equal(fi_av_remove(f->av, &k, 1, FI_AUTH_KEY), 0);
	assert_int_equal(fi_close(&f->av->fid), -FI_EBUSY);
	assert_int_equal(kav_ep_close(ep), 0);
}

/* ----------------------------------------------- a kernel without keys */

static void test_no_key_slots(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct kav_auth_key key;
	struct fid_av *av;
	size_t len = sizeof(key);
	fi_addr_t h = KAV_FI_ADDR_KEY;

	fake_kav_max_keys = 0;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	assert_int_equal(((struct kav_fid_av *)av)->table.max_keys, 0);
	assert_int_equal(fi_av_lookup_auth_key(av, h, &key, &len), -FI_EINVAL);
	assert_int_equal(fi_close(&av->fid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_insert_auth_key, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_auth_key_full, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_lookup_auth_key, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_insert_with_keys, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_remove_keys, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_set_user_id, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_resolve, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_endpoints, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_endpoint_not_enabled,
						setup, av_teardown),
		cmocka_unit_test_setup_teardown(test_no_key_slots, setup,
						av_teardown),
	};

	return cmocka_run_group_tests_name("auth", tests, NULL, NULL);
}
