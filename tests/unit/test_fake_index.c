// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The fake kernel's job tables (tests/doubles/kernel/fake_kav.c, fake_index.c), on
 * which libkav's job-AV tests and the native benchmark run: one table per
 * (uid, domain key, format), find-or-insert, the index a reader walks,
 * and every refusal the kernel gives (kav_job_test checks the kernel's;
 * kav_layout_test that the bytes are the same).
 */
#include <stdlib.h>
#include <unistd.h>

#include "test_common.h"
#include "fake_kav.h"
#include "fake_index.h"

#define DOM_A	100
#define DOM_B	101
#define VNI	7

static struct sockaddr_in addr(uint32_t n)
{
	struct sockaddr_in s = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)(1000 + n)),
				 .sin_addr.s_addr = htonl(0x0a000000u + n) };

	return s;
}

static int keyed(int dom, uint32_t vni)
{
	struct kav_domain_key dk = { .size = sizeof(dk), .key.vni = vni };

	return fake_kav_ioctl(dom, KAV_IOC_DOMAIN_SET_KEY, &dk);
}

static int job(int dom, uint32_t format, uint64_t count,
	       struct kav_av_create *c)
{
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->flags = KAV_AV_JOB;
	c->addr_format = format;
	c->count = count;
	return fake_kav_ioctl(dom, KAV_IOC_AV_CREATE, c);
}

static int insert(int av, const struct sockaddr_in *s, uint32_t n,
		  uint64_t *fi)
{
	struct kav_av_insert in = { .size = sizeof(in), .count = n,
				    .addr_stride = sizeof(*s),
				    .addrs = (uintptr_t)s,
				    .fi_addrs = (uintptr_t)fi };

	return fake_kav_ioctl(av, KAV_IOC_AV_INSERT, &in);
}

static int setup(void **state)
{
	(void)state;
	fake_kav_reset();
	fake_kav_max_entries = 4096;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_kav_reset();
	return 0;
}

static void test_one_table_per_job(void **state)
{
	struct kav_av_create a, b, c;

	(void)state;
	assert_int_equal(job(DOM_A, KAV_ADDR_SOCKADDR_IN, 0, &a), -ENOKEY);
	assert_int_equal(keyed(DOM_A, VNI), 0);
	assert_int_equal(keyed(DOM_B, VNI), 0);
	assert_int_equal(job(DOM_A, KAV_ADDR_SOCKADDR_IN, 0, &a), 0);
	assert_int_equal(a.result, KAV_AV_CREATED);
	assert_int_equal(job(DOM_B, KAV_ADDR_SOCKADDR_IN, 0, &b), 0);
	assert_int_equal(b.result, 0);
	assert_ptr_equal(fake_kav_table(a.fd), fake_kav_table(b.fd));
	assert_int_equal(a.map_size, b.map_size);
	/* Another format is another table. */
	assert_int_equal(job(DOM_B, KAV_ADDR_SOCKADDR_IN6, 0, &c), 0);
	assert_int_equal(c.result, KAV_AV_CREATED);
	assert_ptr_not_equal(fake_kav_table(a.fd), fake_kav_table(c.fd));
	fake_kav_close(a.fd);
	fake_kav_close(b.fd);
	fake_kav_close(c.fd);
	close(a.fd);
	close(b.fd);
	close(c.fd);
}

static void test_header_and_index(void **state)
{
	const struct kav_table_header *h;
	struct kav_av_create a;

	(void)state;
	assert_int_equal(keyed(DOM_A, VNI), 0);
	assert_int_equal(job(DOM_A, KAV_ADDR_SOCKADDR_IN, 100000, &a), 0);
	h = fake_kav_table(a.fd);
	assert_int_equal(h->index_buckets, 1u << 17);
	/* No fi_addr array: the index follows the entries. */
	assert_int_equal(h->fi_addrs_offset, 0);
	assert_int_equal(h->index_offset,
			 fake_table_entries_end(h->entry_size,
						h->max_entries));
	assert_int_equal(h->index_next_offset,
			 h->index_offset + (1u << 17) * 4);
	assert_int_equal(h->map_size, h->index_next_offset + 4 * FAKE_PAGE);
	assert_int_equal(a.map_size, h->map_size);
	assert_int_equal(fake_index_buckets(0), 4096);
	assert_int_equal(fake_index_buckets(4097), 8192);
	assert_int_equal(fake_index_buckets(~0ULL), 1u << 22);
	fake_kav_close(a.fd);
	close(a.fd);
}

static void test_find_or_insert(void **state)
{
	struct sockaddr_in *s = calloc(3000, sizeof(*s)), x;
	uint64_t *fi = calloc(3000, sizeof(*fi)), gen;
	const struct kav_table_header *h;
	struct kav_av_create a, b;
	uint32_t i;

	(void)state;
	assert_int_equal(keyed(DOM_A, VNI), 0);
	assert_int_equal(keyed(DOM_B, VNI), 0);
	assert_int_equal(job(DOM_A, KAV_ADDR_SOCKADDR_IN, 0, &a), 0);
	assert_int_equal(job(DOM_B, KAV_ADDR_SOCKADDR_IN, 0, &b), 0);
	h = fake_kav_table(a.fd);
	/* 2000 addresses, 1000 of them twice in the same batch. */
	for (i = 0; i < 3000; i++)
		s[i] = addr(i % 2000);
	gen = h->generation;
	assert_int_equal(insert(a.fd, s, 3000, fi), 0);
	/* Published in windows of the new entries: 2000 is 32 of 64. */
	assert_int_equal(h->generation, gen + 2 * 32);
	for (i = 0; i < 3000; i++)
		assert_int_equal(fi[i], i % 2000);
	assert_int_equal(h->nr_valid, 2000);
	assert_int_equal(h->nr_slots, 2000);
	assert_int_equal(fake_table_key_count((void *)h, 0)->nr_entries, 2000);
	/* Another process of the job: found, nothing added; a batch still. */
	gen = h->generation;
	assert_int_equal(insert(b.fd, s + 1500, 5, fi), 0);
	assert_int_equal(fi[0], 1500);
	assert_int_equal(h->generation, gen + 2);
	assert_int_equal(h->nr_valid, 2000);
	for (i = 0; i < 2000; i++)
		assert_int_equal(fake_index_find(h, &s[i], sizeof(s[i]), 0), i);
	x = addr(5000);
	assert_int_equal(fake_index_find(h, &x, sizeof(x), 0), -1);
	assert_int_equal(fake_index_find(h, &s[0], sizeof(s[0]), 1), -1);
	fake_kav_close(a.fd);
	fake_kav_close(b.fd);
	close(a.fd);
	close(b.fd);
	free(s);
	free(fi);
}

static void test_refusals(void **state)
{
	struct sockaddr_in s[3] = { addr(1), addr(2), addr(3) };
	struct kav_av_user_id u = { .size = sizeof(u) };
	struct kav_av_remove rm = { .size = sizeof(rm), .count = 1 };
	uint64_t fi[3], key = 0;
	struct kav_av_insert in = { .size = sizeof(in), .count = 1,
				    .addr_stride = sizeof(s[0]),
				    .addrs = (uintptr_t)s,
				    .flags = KAV_INSERT_AUTH_KEY,
				    .auth_keys = (uintptr_t)&key };
	struct kav_av_key k = { .size = sizeof(k), .key.vni = VNI };
	struct kav_av_create a, bad;

	(void)state;
	assert_int_equal(keyed(DOM_A, VNI), 0);
	memset(&bad, 0, sizeof(bad));
	bad.size = sizeof(bad);
	bad.addr_format = KAV_ADDR_SOCKADDR_IN;
	bad.flags = KAV_AV_JOB | KAV_AV_NAMED;
	assert_int_equal(fake_kav_ioctl(DOM_A, KAV_IOC_AV_CREATE, &bad),
			 -EINVAL);
	bad.flags = KAV_AV_JOB;
	bad.mode = 0600;
	assert_int_equal(fake_kav_ioctl(DOM_A, KAV_IOC_AV_CREATE, &bad),
			 -EINVAL);
	fake_kav_max_entries = 2;
	assert_int_equal(job(DOM_A, KAV_ADDR_SOCKADDR_IN, 0, &a), 0);
	assert_int_equal(insert(a.fd, s, 2, fi), 0);
	assert_int_equal(insert(a.fd, s, 3, fi), -ENOSPC);
	assert_int_equal(insert(a.fd, s, 2, fi), 0);
	rm.fi_addrs = (uintptr_t)fi;
	assert_int_equal(fake_kav_ioctl(a.fd, KAV_IOC_AV_REMOVE, &rm),
			 -EOPNOTSUPP);
	assert_int_equal(fake_kav_ioctl(a.fd, KAV_IOC_AV_SET_USER_ID, &u),
			 -EOPNOTSUPP);
	assert_int_equal(fake_kav_ioctl(a.fd, KAV_IOC_AV_INSERT, &in),
			 -EINVAL);
	assert_int_equal(fake_kav_ioctl(a.fd, KAV_IOC_AV_KEY_INSERT, &k),
			 -EOPNOTSUPP);
	/* A revoked key: inserts and joins refused, entries stay. */
	fake_kav_revoke(VNI);
	assert_int_equal(insert(a.fd, s, 1, fi), -EKEYREVOKED);
	assert_int_equal(job(DOM_A, KAV_ADDR_SOCKADDR_IN, 0, &bad),
			 -EKEYREVOKED);
	assert_int_equal(((struct kav_table_header *)
			  fake_kav_table(a.fd))->nr_valid, 2);
	fake_kav_close(a.fd);
	close(a.fd);
}

/*
 * kav_table_insert() and kav_table_remove() publish a batch in windows of
 * at most FAKE_BATCH_WINDOW entries, each one generation bracket (+2):
 * kav_layout_test checks that the kernel's generation is the fake's.
 */
static void test_windows(void **state)
{
	const uint32_t max = 1000, w = FAKE_BATCH_WINDOW;
	struct kav_table_header *h;
	struct sockaddr_in *s = calloc(max, sizeof(*s));
	uint64_t *idx = calloc(max, sizeof(*idx)), gen;
	uint32_t *lens = calloc(max, sizeof(*lens)), i;
	struct fake_ktable t;
	void *mem;

	(void)state;
	assert_true(w >= 2 && 3 * w + 5 <= max);
	mem = aligned_alloc(FAKE_PAGE, fake_table_size(32, max));
	assert_non_null(mem);
	fake_ktable_init(&t, mem, KAV_ADDR_SOCKADDR_IN, 16, max, true);
	h = mem;
	for (i = 0; i < max; i++) {
		s[i] = addr(i);
		lens[i] = sizeof(s[i]);
	}
	/* One entry, a full window, one more than a window. */
	fake_ktable_insert(&t, s, sizeof(*s), lens, 1, NULL, KAV_NONE, NULL,
			   idx);
	assert_int_equal(h->generation, 2);
	fake_ktable_insert(&t, s, sizeof(*s), lens, w, NULL, KAV_NONE, NULL,
			   idx);
	assert_int_equal(h->generation, 4);
	fake_ktable_insert(&t, s, sizeof(*s), lens, w + 1, NULL, KAV_NONE,
			   NULL, idx);
	assert_int_equal(h->generation, 8);
	assert_int_equal(h->nr_valid, 2 * w + 2);
	/* Three windows and a bit: four brackets; nr_valid is exact. */
	gen = h->generation;
	fake_ktable_insert(&t, s, sizeof(*s), lens, 3 * w + 3, NULL, KAV_NONE,
			   NULL, idx);
	assert_int_equal(h->generation, gen + 8);
	assert_int_equal(h->nr_valid, 5 * w + 5);
	/* A remove of 2 * w: two. */
	for (i = 0; i < 2 * w; i++)
		idx[i] = i;
	gen = h->generation;
	fake_ktable_remove(&t, idx, 2 * w);
	assert_int_equal(h->generation, gen + 4);
	assert_int_equal(h->nr_valid, 3 * w + 5);
	assert_int_equal(h->generation % 2, 0);
	free(mem);
	free(s);
	free(idx);
	free(lens);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_table_per_job, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_header_and_index, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_find_or_insert, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup,
						teardown),
		cmocka_unit_test(test_windows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
