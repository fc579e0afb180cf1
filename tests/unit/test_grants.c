// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * What libkav does with kav's grants, against the fake kernel of
 * fake_kav.c: domain-wide auth keys (domain_attr->auth_key ->
 * KAV_IOC_DOMAIN_SET_KEY), a key without a grant (EACCES -> -FI_EACCES),
 * a revoked key (EKEYREVOKED -> -FI_EKEYREJECTED; KAV_KEY_REVOKED seen by
 * kav_av_resolve() and fi_av_lookup_auth_key()) and keyless inserts
 * refused by the module (allow_keyless off).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_fixture.h"
#include "fake_kav.h"

#define VNI_A	0x1001u
#define VNI_B	0x1002u

/* The fake's grants: only VNI_A is granted. */
static int grant_only_a(uint32_t vni)
{
	return vni == VNI_A ? 0 : -EACCES;
}

/* VNI_A and VNI_B. */
static int grant_a_and_b(uint32_t vni)
{
	return vni == VNI_A || vni == VNI_B ? 0 : -EACCES;
}

struct open_call {
	struct fi_domain_attr dattr;
	struct fi_info info;
	struct kav_auth_key key;
	struct fid_domain *dom;
	int ret;
};

static void open_call_init(struct open_call *c, uint32_t vni)
{
	memset(c, 0, sizeof(*c));
	c->key.vni = vni;
	c->info.addr_format = FI_SOCKADDR_IN;
	c->info.domain_attr = &c->dattr;
	c->dattr.auth_key = (uint8_t *)&c->key;
	c->dattr.auth_key_size = sizeof(c->key);
}

static void do_open(void *arg)
{
	struct open_call *c = arg;

	setenv("KAV_DEVICE", "/dev/null", 1);
	c->ret = kav_domain_open(&c->info, &c->dom, NULL);
	unsetenv("KAV_DEVICE");
}

static int setup(void **state)
{
	(void)state;
	fake_kav_install();
	fake_kav_grant_check = grant_only_a;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_kav_reset();
	return 0;
}

static struct fid_av *open_av(struct fid_domain *dom)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct fid_av *av = NULL;

	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), 0);
	return av;
}

static uint32_t lookup_vni(struct fid_av *av, fi_addr_t fa, int expect)
{
	struct kav_auth_key key;
	size_t len = sizeof(key);

	memset(&key, 0xff, sizeof(key));
	assert_int_equal(fi_av_lookup_auth_key(av, fa, &key, &len), expect);
	assert_int_equal(len, sizeof(key));
	assert_int_equal(key.__reserved, 0);
	return key.vni;
}

/* ---------------------------------------------------- domain-wide keys */

static void test_domain_key(void **state)
{
	struct sockaddr_in in[2] = { test_sin("10.0.0.1", 1),
				     test_sin("10.0.0.2", 2) };
	const struct kav_key_slot *k;
	struct kav_resolved r;
	struct open_call c;
	struct fid_av *av;
	fi_addr_t fa[2], h;

	(void)state;
	open_call_init(&c, VNI_A);
	do_open(&c);
	assert_int_equal(c.ret, 0);
	assert_int_equal(fake_kav_stats.set_keys, 1);
	assert_true(((struct kav_fid_domain *)c.dom)->has_key);
	av = open_av(c.dom);

	/* Slot 0 is the domain's key; plain inserts are bound to it. */
	k = fake_table_key(fake_kav_table(kav_av_fd(av)), 0);
	assert_int_equal(k->flags, KAV_KEY_VALID | KAV_KEY_DOMAIN);
	assert_int_equal(k->vni, VNI_A);
	assert_int_equal(fi_av_insert(av, in, 2, fa, 0, NULL), 2);
	assert_int_equal(fake_table_key_count(fake_kav_table(kav_av_fd(av)),
					      0)->nr_entries, 2);
	assert_int_equal(lookup_vni(av, fa[1], 0), VNI_A);
	assert_int_equal(lookup_vni(av, kav_key_fi_addr(0), 0), VNI_A);
	assert_int_equal(kav_av_resolve(av, fa[0], &r), 0);
	assert_int_equal(r.vni, VNI_A);
	assert_int_equal(r.key, kav_key_fi_addr(0));
	assert_false(r.revoked);

	/* Per-AV keys belong to FI_AV_AUTH_KEY domains only. */
	h = 0;
	assert_int_equal(fi_av_insert_auth_key(av, &c.key, sizeof(c.key), &h,
					       0), -FI_EINVAL);
	fa[0] = kav_key_fi_addr(0);
	assert_int_equal(fi_av_insert(av, in, 1, fa, FI_AUTH_KEY, NULL),
			 -FI_EINVAL);

	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(fi_close(&c.dom->fid), 0);
}

static void test_domain_key_not_granted(void **state)
{
	unsigned int closes;
	struct open_call c;
	char log[2048];

	(void)state;
	open_call_init(&c, VNI_B);
	c.dom = (struct fid_domain *)&c;	/* must be cleared */
	closes = fake_kav_stats.closes;
	test_capture_stderr(do_open, &c, log, sizeof(log));
	assert_int_equal(c.ret, -FI_EACCES);
	assert_null(c.dom);
	assert_int_equal(fake_kav_stats.closes, closes + 1);	/* no fd leak */
	/* The log names the key and says what to do. */
	assert_non_null(strstr(log, "vni 4098"));
	assert_non_null(strstr(log, "no grant for this auth key"));
	assert_non_null(strstr(log, "kavctl grant add"));
	assert_non_null(strstr(kav_strerror(c.ret),
			       "no grant for this auth key: ask the "
			       "administrator (kavctl grant add ...)"));
}

/* ------------------------------------------------------------ per-AV keys */

static void test_insert_auth_key_not_granted(void **state)
{
	struct kav_auth_key a = { .vni = VNI_A }, b = { .vni = VNI_B };
	struct fid_domain *dom;
	struct fid_av *av;
	fi_addr_t h = 77;

	(void)state;
	dom = test_open_domain(FI_SOCKADDR_IN, FI_AV_AUTH_KEY);
	av = open_av(dom);
	assert_int_equal(fi_av_insert_auth_key(av, &b, sizeof(b), &h, 0),
			 -FI_EACCES);
	assert_int_equal(h, 77);		/* untouched */
	assert_int_equal(fi_av_insert_auth_key(av, &a, sizeof(a), &h, 0), 0);
	assert_int_equal(h, kav_key_fi_addr(0));
	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(fi_close(&dom->fid), 0);
}

/* ------------------------------------------------------------- revocation */

static void test_revoked_domain_key(void **state)
{
	struct sockaddr_in in[2] = { test_sin("10.0.0.1", 1),
				     test_sin("10.0.0.2", 2) };
	struct sockaddr_in out;
	size_t len = sizeof(out);
	struct kav_resolved r;
	struct open_call c;
	struct fid_av *av;
	fi_addr_t fa[2];
	int err[1];

	(void)state;
	open_call_init(&c, VNI_A);
	do_open(&c);
	assert_int_equal(c.ret, 0);
	av = open_av(c.dom);
	assert_int_equal(fi_av_insert(av, in, 1, fa, 0, NULL), 1);

	fake_kav_revoke(VNI_A);

	/* Seen by the data path, the key lookup; the address stays. */
	memset(&r, 0, sizeof(r));
	assert_int_equal(kav_av_resolve(av, fa[0], &r), -FI_EKEYREJECTED);
	assert_true(r.revoked);
	assert_int_equal(r.vni, VNI_A);
	assert_int_equal(r.addr_len, sizeof(in[0]));
	assert_int_equal(lookup_vni(av, fa[0], -FI_EKEYREJECTED), VNI_A);
	assert_int_equal(lookup_vni(av, kav_key_fi_addr(0), -FI_EKEYREJECTED),
			 VNI_A);
	assert_int_equal(fi_av_lookup(av, fa[0], &out, &len), 0);
	assert_memory_equal(&out, &in[0], sizeof(out));
	assert_int_equal(kav_strerror(-FI_EKEYREJECTED),
			 kav_strerror(FI_EKEYREJECTED));

	/* New inserts fail, each address with -FI_EKEYREJECTED. */
	assert_int_equal(fi_av_insert(av, &in[1], 1, &fa[1], FI_SYNC_ERR,
				      err), 0);
	assert_int_equal(fa[1], FI_ADDR_NOTAVAIL);
	assert_int_equal(err[0], FI_EKEYREJECTED);

	/* Removing entries under a revoked key still works. */
	assert_int_equal(fi_av_remove(av, fa, 1, 0), 0);
	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(fi_close(&c.dom->fid), 0);
}

static void test_revoked_av_key(void **state)
{
	struct sockaddr_in in = test_sin("10.0.0.3", 3);
	struct kav_auth_key a = { .vni = VNI_A };
	struct fid_domain *dom;
	struct fid_av *av;
	unsigned int inserts;
	fi_addr_t h, fa;
	int err[1];

	(void)state;
	dom = test_open_domain(FI_SOCKADDR_IN, FI_AV_AUTH_KEY);
	av = open_av(dom);
	assert_int_equal(fi_av_insert_auth_key(av, &a, sizeof(a), &h, 0), 0);
	fake_kav_revoke(VNI_A);
	assert_int_equal(lookup_vni(av, h, -FI_EKEYREJECTED), VNI_A);

	/* libkav sees the revoked slot and does not even ask the kernel. */
	inserts = fake_kav_stats.inserts;
	fa = h;
	assert_int_equal(fi_av_insert(av, &in, 1, &fa,
				      FI_AUTH_KEY | FI_SYNC_ERR, err), 0);
	assert_int_equal(fa, FI_ADDR_NOTAVAIL);
	assert_int_equal(err[0], FI_EKEYREJECTED);
	assert_int_equal(fake_kav_stats.inserts, inserts);
	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(fi_close(&dom->fid), 0);
}

/* ------------------------------------------------------- keyless inserts */

static struct fid_av *keyless_av;
static struct sockaddr_in keyless_in;
static fi_addr_t keyless_fa;
static int keyless_err[1];
static int keyless_ret;

static void do_keyless_insert(void *arg)
{
	(void)arg;
	keyless_ret = fi_av_insert(keyless_av, &keyless_in, 1, &keyless_fa,
				   FI_SYNC_ERR, keyless_err);
}

static void test_keyless_refused(void **state)
{
	struct fid_domain *dom;
	char log[2048];

	(void)state;
	fake_kav_allow_keyless = false;
	dom = test_open_domain(FI_SOCKADDR_IN, 0);
	keyless_av = open_av(dom);
	keyless_in = test_sin("10.0.0.4", 4);
	test_capture_stderr(do_keyless_insert, NULL, log, sizeof(log));
	assert_int_equal(keyless_ret, 0);
	assert_int_equal(keyless_fa, FI_ADDR_NOTAVAIL);
	assert_int_equal(keyless_err[0], FI_EACCES);
	assert_non_null(strstr(log, "allow_keyless"));
	assert_int_equal(fi_close(&keyless_av->fid), 0);
	assert_int_equal(fi_close(&dom->fid), 0);
}

/* ------------------------------------------------ joining a named AV */

static struct fid_av *open_named(struct fid_domain *dom, uint64_t flags,
				 int expect)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = "job",
				   .flags = flags };
	struct fid_av *av = NULL;

	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), expect);
	return av;
}

static fi_addr_t insert_one(struct fid_av *av, uint16_t port)
{
	struct sockaddr_in in = test_sin("10.0.1.1", port);
	fi_addr_t fa = FI_ADDR_NOTAVAIL;

	assert_int_equal(fi_av_insert(av, &in, 1, &fa, 0, NULL), 1);
	return fa;
}

/*
 * A keyed domain that joins an existing named AV to write adds its own
 * key, so that its inserts are bound to it (the kernel binds an insert
 * without a handle to the writer's key, never the creator's).
 */
static void test_join_adds_key(void **state)
{
	struct open_call a, b, c;
	struct fid_av *av_a, *av_b, *av_c, *ro, *kl_av;
	const struct kav_key_slot *k;
	struct fid_domain *keyless;
	struct kav_av_key req;
	struct kav_resolved r;
	fi_addr_t fa;
	int err[1];

	(void)state;
	fake_kav_grant_check = grant_a_and_b;
	open_call_init(&a, VNI_A);
	do_open(&a);
	open_call_init(&b, VNI_B);
	do_open(&b);
	open_call_init(&c, VNI_A);
	do_open(&c);
	assert_int_equal(a.ret | b.ret | c.ret, 0);

	/* The creator adds nothing: its key is slot 0 already. */
	av_a = open_named(a.dom, 0, 0);
	assert_int_equal(fake_kav_stats.last_create.result, KAV_AV_CREATED);
	assert_int_equal(fake_kav_stats.key_inserts, 0);
	/* Another domain joins to write: its key goes in. */
	av_b = open_named(b.dom, 0, 0);
	assert_int_equal(fake_kav_stats.last_create.result, 0);
	assert_int_equal(fake_kav_stats.key_inserts, 1);
	k = fake_table_key(fake_kav_table(kav_av_fd(av_b)), 1);
	assert_int_equal(k->flags, KAV_KEY_VALID);
	assert_int_equal(k->vni, VNI_B);

	/* Each writer's plain inserts are bound to its own key. */
	fa = insert_one(av_b, 1);
	assert_int_equal(lookup_vni(av_b, fa, 0), VNI_B);
	assert_int_equal(kav_av_resolve(av_a, fa, &r), 0);
	assert_int_equal(r.key, kav_key_fi_addr(1));
	fa = insert_one(av_a, 2);
	assert_int_equal(lookup_vni(av_b, fa, 0), VNI_A);

	/* A joiner whose key is there already (EEXIST) is fine. */
	av_c = open_named(c.dom, 0, 0);
	assert_int_equal(fake_kav_stats.key_inserts, 2);
	fa = insert_one(av_c, 3);
	assert_int_equal(kav_av_resolve(av_c, fa, &r), 0);
	assert_int_equal(r.key, kav_key_fi_addr(0));

	/* Readers and keyless domains add no key. */
	ro = open_named(b.dom, FI_READ, 0);
	keyless = test_open_domain(FI_SOCKADDR_IN, 0);
	kl_av = open_named(keyless, 0, 0);
	assert_int_equal(fake_kav_stats.key_inserts, 2);

	/* Without its key in the AV a writer's plain insert is refused. */
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.handle = 1;
	assert_int_equal(kav_sys_ioctl(kav_av_fd(av_b), KAV_IOC_AV_KEY_REMOVE,
				       &req), -EBUSY);
	assert_int_equal(fi_av_remove(av_b, &(fi_addr_t){ 0 }, 1, 0), 0);
	assert_int_equal(kav_sys_ioctl(kav_av_fd(av_b), KAV_IOC_AV_KEY_REMOVE,
				       &req), 0);
	fa = 0;
	assert_int_equal(fi_av_insert(av_b, &(struct sockaddr_in){
					.sin_family = AF_INET }, 1, &fa,
				      FI_SYNC_ERR, err), 0);
	assert_int_equal(fa, FI_ADDR_NOTAVAIL);
	assert_int_equal(err[0], FI_EACCES);

	assert_int_equal(fi_close(&kl_av->fid), 0);
	assert_int_equal(fi_close(&keyless->fid), 0);
	assert_int_equal(fi_close(&ro->fid), 0);
	assert_int_equal(fi_close(&av_c->fid), 0);
	assert_int_equal(fi_close(&av_b->fid), 0);
	assert_int_equal(fi_close(&av_a->fid), 0);
	assert_int_equal(fi_close(&a.dom->fid), 0);
	assert_int_equal(fi_close(&b.dom->fid), 0);
	assert_int_equal(fi_close(&c.dom->fid), 0);
}

static struct fid_domain *join_dom;
static int join_ret;

static void do_join(void *arg)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = "job" };
	struct fid_av **av = arg;

	join_ret = fi_av_open(join_dom, &attr, av, NULL);
}

/* The key cannot go in (its grant went since the domain opened): the
 * join fails, says why, and leaks nothing. */
static void test_join_key_refused(void **state)
{
	struct fid_av *av_a, *av_b = NULL;
	struct open_call a, b;
	unsigned int closes;
	char log[2048];

	(void)state;
	fake_kav_grant_check = grant_a_and_b;
	open_call_init(&a, VNI_A);
	do_open(&a);
	open_call_init(&b, VNI_B);
	do_open(&b);
	assert_int_equal(a.ret | b.ret, 0);
	av_a = open_named(a.dom, 0, 0);
	fake_kav_grant_check = grant_only_a;
	closes = fake_kav_stats.closes;
	join_dom = b.dom;
	test_capture_stderr(do_join, &av_b, log, sizeof(log));
	assert_int_equal(join_ret, -FI_EACCES);
	assert_null(av_b);
	assert_int_equal(fake_kav_stats.closes, closes + 1);
	assert_non_null(strstr(log, "named AV job"));
	assert_non_null(strstr(log, "vni 4098"));
	/* Read-only, it needs no key. */
	av_b = open_named(b.dom, FI_READ, 0);
	assert_int_equal(fi_close(&av_b->fid), 0);
	assert_int_equal(fi_close(&av_a->fid), 0);
	assert_int_equal(fi_close(&a.dom->fid), 0);
	assert_int_equal(fi_close(&b.dom->fid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_domain_key, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_domain_key_not_granted,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_insert_auth_key_not_granted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revoked_domain_key, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_revoked_av_key, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_keyless_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_join_adds_key, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_join_key_refused, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("grants", tests, NULL, NULL);
}
