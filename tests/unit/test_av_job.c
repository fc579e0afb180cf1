// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Job AVs (kav_av_open_job(), lib/av_job.c) on the fake kernel: two
 * domains of one job share the job's table, and each process's AV keeps
 * fi_av(3)'s semantics as if it were private. What the kernel's side of
 * the contract does (one entry per address, no remove) is the fake's;
 * here: the view. FI_AV_MAP fi_addrs are table indices, FI_AV_TABLE ones
 * positions in insertion order, the lowest free first; an address the
 * table holds is found with no system call; remove is the process's
 * own; an fi_addr the process did not insert (or removed) is invalid for
 * it; FI_SYNC_ERR and FI_EVENT report as for a private AV; AV sets, the
 * resolvers and the inline view read through the view; every refusal.
 */
#include <stdlib.h>

#include "test_fixture.h"
#include "fake_kav.h"
#include "av_job.h"
#include <kav/kav_peer.h>

#define VNI	27042

/* Two domains of one job (same key, same identity) and their AVs. */
struct job_fixture {
	struct kav_auth_key key;
	struct fi_domain_attr dattr;
	struct fid_domain *dom[2];
	struct fid_av *av[2];
};

static struct fid_av *open_job(struct fid_domain *dom, enum fi_av_type type)
{
	struct fi_av_attr attr = { .type = type, .count = 16 };
	struct fid_av *av;

	assert_int_equal(kav_av_open_job(dom, &attr, &av, NULL), 0);
	return av;
}

static struct job_fixture *job_setup(enum fi_av_type type0,
				     enum fi_av_type type1)
{
	struct job_fixture *j = calloc(1, sizeof(*j));

	assert_non_null(j);
	fake_kav_install();
	j->key.vni = VNI;
	j->dattr.auth_key = (uint8_t *)&j->key;
	j->dattr.auth_key_size = sizeof(j->key);
	j->dom[0] = test_open_domain_attr(FI_SOCKADDR_IN, &j->dattr);
	j->dom[1] = test_open_domain_attr(FI_SOCKADDR_IN, &j->dattr);
	j->av[0] = open_job(j->dom[0], type0);
	j->av[1] = open_job(j->dom[1], type1);
	return j;
}

static void job_teardown(struct job_fixture *j)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (j->av[i])
			assert_int_equal(fi_close(&j->av[i]->fid), 0);
		assert_int_equal(fi_close(&j->dom[i]->fid), 0);
	}
	fake_kav_reset();
	free(j);
}

/* The table index behind @av's @fa (through the resolver). */
static uint64_t index_of(struct fid_av *av, fi_addr_t fa)
{
	struct kav_resolved res;

	assert_int_equal(kav_av_resolve(av, fa, &res), 0);
	return res.index;
}

static void assert_lookup(struct fid_av *av, fi_addr_t fa,
			  const struct sockaddr_in *want)
{
	struct sockaddr_in got;
	size_t len = sizeof(got);

	memset(&got, 0, sizeof(got));
	assert_int_equal(fi_av_lookup(av, fa, &got, &len), 0);
	assert_int_equal(len, sizeof(got));
	assert_memory_equal(&got, want, sizeof(got));
}

static void assert_not_in(struct fid_av *av, fi_addr_t fa)
{
	struct sockaddr_in got;
	size_t len = sizeof(got);
	struct kav_resolved res;

	assert_int_equal(fi_av_lookup(av, fa, &got, &len), -FI_EINVAL);
	assert_int_equal(kav_av_resolve(av, fa, &res), -FI_EINVAL);
}

/* --------------------------------------------------------------- MAP */

static void test_map_shares_one_table(void **state)
{
	struct job_fixture *j = job_setup(FI_AV_MAP, FI_AV_MAP);
	struct sockaddr_in a = test_sin("10.0.0.1", 1);
	struct sockaddr_in b = test_sin("10.0.0.2", 2);
	struct kav_av_job_stats st;
	fi_addr_t fa0, fa1, fb;
	unsigned int inserts;

	(void)state;
	/* One table: both AVs were opened on the same kernel object. */
	assert_ptr_equal(fake_kav_table(kav_av_fd(j->av[0])),
			 fake_kav_table(kav_av_fd(j->av[1])));
	assert_int_equal(fi_av_insert(j->av[0], &a, 1, &fa0, 0, NULL), 1);
	assert_int_equal(fi_av_insert(j->av[0], &b, 1, &fb, 0, NULL), 1);
	/* MAP: the fi_addr is the table index. */
	assert_int_equal(index_of(j->av[0], fa0), fa0);
	assert_int_equal(index_of(j->av[0], fb), fb);
	assert_lookup(j->av[0], fa0, &a);

	/* The other process has not inserted it: not an address for it. */
	assert_not_in(j->av[1], fa0);
	/* It inserts it: found in the index, no system call, same fi_addr. */
	inserts = fake_kav_stats.inserts;
	assert_int_equal(fi_av_insert(j->av[1], &a, 1, &fa1, 0, NULL), 1);
	assert_int_equal(fake_kav_stats.inserts, inserts);
	assert_int_equal(fa1, fa0);
	assert_lookup(j->av[1], fa1, &a);
	assert_not_in(j->av[1], fb);
	assert_int_equal(kav_av_job_stats(j->av[1], &st), 0);
	assert_int_equal(st.found, 1);
	assert_int_equal(st.sent, 0);
	assert_int_equal(st.calls, 0);
	assert_int_equal(kav_av_job_stats(j->av[0], &st), 0);
	assert_int_equal(st.found, 0);
	assert_int_equal(st.sent, 2);
	assert_int_equal(st.calls, 2);
	job_teardown(j);
}

static void test_map_remove_is_the_process_own(void **state)
{
	struct job_fixture *j = job_setup(FI_AV_MAP, FI_AV_MAP);
	struct sockaddr_in a = test_sin("10.0.0.1", 1);
	fi_addr_t fa0, fa1, again, two[2];
	unsigned int inserts;

	(void)state;
	assert_int_equal(fi_av_insert(j->av[0], &a, 1, &fa0, 0, NULL), 1);
	assert_int_equal(fi_av_insert(j->av[1], &a, 1, &fa1, 0, NULL), 1);
	/* Removing what it does not hold, or twice in one call: nothing. */
	two[0] = fa1;
	two[1] = fa1;
	assert_int_equal(fi_av_remove(j->av[1], two, 2, 0), -FI_EINVAL);
	two[1] = fa1 + 1;
	assert_int_equal(fi_av_remove(j->av[1], two, 2, 0), -FI_EINVAL);
	assert_lookup(j->av[1], fa1, &a);
	/* No key handles to remove in a job AV. */
	assert_int_equal(fi_av_remove(j->av[1], &fa1, 1, FI_AUTH_KEY),
			 -FI_EINVAL);

	assert_int_equal(fi_av_remove(j->av[1], &fa1, 1, 0), 0);
	assert_int_equal(fake_kav_stats.removes, 0);	/* the view only */
	assert_not_in(j->av[1], fa1);
	assert_int_equal(fi_av_remove(j->av[1], &fa1, 1, 0), -FI_EINVAL);
	/* The other process still has it. */
	assert_lookup(j->av[0], fa0, &a);
	/* Re-insert after remove (fi_av(3) NOTES): back, still no call. */
	inserts = fake_kav_stats.inserts;
	assert_int_equal(fi_av_insert(j->av[1], &a, 1, &again, 0, NULL), 1);
	assert_int_equal(fake_kav_stats.inserts, inserts);
	assert_int_equal(again, fa1);
	assert_lookup(j->av[1], again, &a);
	job_teardown(j);
}

/* ------------------------------------------------------------- TABLE */

static void test_table_positions(void **state)
{
	struct job_fixture *j = job_setup(FI_AV_MAP, FI_AV_TABLE);
	struct sockaddr_in in[4];
	fi_addr_t map[4], pos[4], fa, two[2];
	int i;

	(void)state;
	for (i = 0; i < 4; i++)
		in[i] = test_sin("10.0.1.1", (uint16_t)(10 + i));
	/* The first process fills the table in another order. */
	assert_int_equal(fi_av_insert(j->av[0], &in[3], 1, &map[3], 0, NULL),
			 1);
	assert_int_equal(fi_av_insert(j->av[0], &in[1], 1, &map[1], 0, NULL),
			 1);
	/* One call, found and new mixed: positions in the caller's order. */
	assert_int_equal(fi_av_insert(j->av[1], in, 4, pos, 0, NULL), 4);
	for (i = 0; i < 4; i++) {
		assert_int_equal(pos[i], i);
		assert_lookup(j->av[1], pos[i], &in[i]);
	}
	assert_int_equal(index_of(j->av[1], 3), map[3]);
	assert_int_equal(index_of(j->av[1], 1), map[1]);
	/* Past the positions in use: invalid, whatever the table holds. */
	assert_not_in(j->av[1], 4);
	assert_not_in(j->av[1], FI_ADDR_NOTAVAIL);

	/* Remove 1 and 2: the lowest free position is taken first. */
	two[0] = 2;
	two[1] = 1;
	assert_int_equal(fi_av_remove(j->av[1], two, 2, 0), 0);
	assert_not_in(j->av[1], 1);
	assert_not_in(j->av[1], 2);
	assert_int_equal(fi_av_insert(j->av[1], &in[2], 1, &fa, 0, NULL), 1);
	assert_int_equal(fa, 1);
	assert_lookup(j->av[1], 1, &in[2]);
	assert_int_equal(fi_av_insert(j->av[1], &in[1], 1, &fa, 0, NULL), 1);
	assert_int_equal(fa, 2);
	/* Full again: the next one appends. */
	assert_int_equal(fi_av_insert(j->av[1], &in[0], 1, &fa, 0, NULL), 1);
	assert_int_equal(fa, 4);
	/* fi_addr NULL: positions are deterministic (fi_av(3)). */
	assert_int_equal(fi_av_insert(j->av[1], &in[3], 1, NULL, 0, NULL), 1);
	assert_lookup(j->av[1], 5, &in[3]);
	job_teardown(j);
}

/* ---------------------------------------------------- errors, events */

static void test_sync_err(void **state)
{
	struct job_fixture *j = job_setup(FI_AV_TABLE, FI_AV_TABLE);
	struct sockaddr_in in[3];
	fi_addr_t fa[3];
	int errs[3] = { -1, -1, -1 };

	(void)state;
	in[0] = test_sin("10.0.0.1", 1);
	in[1] = test_sin("10.0.0.2", 2);
	in[1].sin_family = AF_INET6;		/* not an IPv4 address */
	in[2] = test_sin("10.0.0.3", 3);
	assert_int_equal(fi_av_insert(j->av[0], &in[0], 1, NULL, 0, NULL), 1);
	assert_int_equal(fi_av_insert(j->av[1], in, 3, fa, FI_SYNC_ERR, errs),
			 2);
	assert_int_equal(errs[0], 0);
	assert_int_equal(errs[1], FI_EINVAL);
	assert_int_equal(errs[2], 0);
	assert_int_equal(fa[0], 0);
	assert_true(fa[1] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[2], 1);
	/* An address the kernel refuses: that one only. */
	fake_kav_reject_port = 4;
	in[1] = test_sin("10.0.0.4", 4);
	assert_int_equal(fi_av_insert(j->av[1], in, 3, fa, FI_SYNC_ERR, errs),
			 2);
	assert_int_equal(errs[1], FI_EINVAL);
	assert_true(fa[1] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[0], 2);
	assert_int_equal(fa[2], 3);
	fake_kav_reject_port = -1;
	job_teardown(j);
}

static void test_event(void **state)
{
	struct job_fixture *j = calloc(1, sizeof(*j));
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = FI_EVENT };
	struct sockaddr_in in[2];
	struct fi_eq_err_entry err;
	struct fi_eq_entry entry;
	struct fi_eq_attr eattr;
	struct fid_eq *eq;
	fi_addr_t fa[2];
	uint32_t event;
	int ctx;

	(void)state;
	assert_non_null(j);
	fake_kav_install();
	j->key.vni = VNI;
	j->dattr.auth_key = (uint8_t *)&j->key;
	j->dattr.auth_key_size = sizeof(j->key);
	j->dom[0] = test_open_domain_attr(FI_SOCKADDR_IN, &j->dattr);
	j->dom[1] = test_open_domain_attr(FI_SOCKADDR_IN, &j->dattr);
	j->av[0] = open_job(j->dom[0], FI_AV_TABLE);
	assert_int_equal(kav_av_open_job(j->dom[1], &attr, &j->av[1], NULL),
			 0);
	memset(&eattr, 0, sizeof(eattr));
	assert_int_equal(kav_eq_open(j->dom[1], &eattr, &eq, NULL), 0);
	in[0] = test_sin("10.0.0.1", 1);
	in[1] = test_sin("10.0.0.2", 2);
	in[1].sin_family = AF_INET6;
	assert_int_equal(fi_av_insert(j->av[0], &in[0], 1, NULL, 0, NULL), 1);
	assert_int_equal(fi_av_insert(j->av[1], in, 2, fa, 0, &ctx),
			 -FI_ENOEQ);
	assert_int_equal(kav_test_av_bind(j->av[1], &eq->fid, 0), 0);
	assert_int_equal(fi_av_insert(j->av[1], in, 2, fa, FI_SYNC_ERR, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_av_insert(j->av[1], in, 2, fa, 0, &ctx), 0);
	assert_int_equal(fa[0], 0);
	assert_true(fa[1] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_eq_read(eq, &event, &entry, sizeof(entry), 0),
			 -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_int_equal(err.data, 1);
	assert_int_equal(err.err, FI_EINVAL);
	assert_int_equal(fi_eq_read(eq, &event, &entry, sizeof(entry), 0),
			 sizeof(entry));
	assert_int_equal(event, FI_AV_COMPLETE);
	assert_int_equal(entry.data, 1);
	assert_int_equal(fi_close(&j->av[1]->fid), 0);
	j->av[1] = NULL;
	assert_int_equal(fi_close(&eq->fid), 0);
	job_teardown(j);
}

static void test_revoked_key_refuses_inserts(void **state)
{
	struct job_fixture *j = job_setup(FI_AV_MAP, FI_AV_MAP);
	struct sockaddr_in a = test_sin("10.0.0.1", 1);
	struct sockaddr_in b = test_sin("10.0.0.2", 2);
	struct kav_resolved res;
	fi_addr_t fa0, fa;
	unsigned int inserts;
	int err = 0;

	(void)state;
	assert_int_equal(fi_av_insert(j->av[0], &a, 1, &fa0, 0, NULL), 1);
	fake_kav_revoke(VNI);
	/* Found in the table, but the key is revoked: refused, no call. */
	inserts = fake_kav_stats.inserts;
	assert_int_equal(fi_av_insert(j->av[1], &a, 1, &fa, FI_SYNC_ERR,
				      &err), 0);
	assert_int_equal(err, FI_EKEYREJECTED);
	assert_true(fa == FI_ADDR_NOTAVAIL);
	assert_int_equal(fake_kav_stats.inserts, inserts);
	/* Not found: refused by the kernel, the same way. */
	assert_int_equal(fi_av_insert(j->av[1], &b, 1, &fa, FI_SYNC_ERR,
				      &err), 0);
	assert_int_equal(err, FI_EKEYREJECTED);
	/* Reads report it as for a private AV. */
	assert_int_equal(kav_av_resolve(j->av[0], fa0, &res),
			 -FI_EKEYREJECTED);
	assert_true(res.revoked);
	job_teardown(j);
}

static void test_full_table(void **state)
{
	struct job_fixture *j;
	struct sockaddr_in a = test_sin("10.0.0.1", 1);
	struct sockaddr_in b = test_sin("10.0.0.2", 2);
	struct sockaddr_in c = test_sin("10.0.0.3", 3);
	fi_addr_t fa;
	int err = 0;

	(void)state;
	fake_kav_install();
	fake_kav_max_entries = 2;
	j = calloc(1, sizeof(*j));
	assert_non_null(j);
	j->key.vni = VNI;
	j->dattr.auth_key = (uint8_t *)&j->key;
	j->dattr.auth_key_size = sizeof(j->key);
	j->dom[0] = test_open_domain_attr(FI_SOCKADDR_IN, &j->dattr);
	j->dom[1] = test_open_domain_attr(FI_SOCKADDR_IN, &j->dattr);
	j->av[0] = open_job(j->dom[0], FI_AV_TABLE);
	j->av[1] = open_job(j->dom[1], FI_AV_TABLE);
	assert_int_equal(fi_av_insert(j->av[0], &a, 1, NULL, 0, NULL), 1);
	assert_int_equal(fi_av_insert(j->av[0], &b, 1, NULL, 0, NULL), 1);
	/* A new address does not fit; one already there still joins. */
	assert_int_equal(fi_av_insert(j->av[1], &c, 1, &fa, FI_SYNC_ERR,
				      &err), 0);
	assert_int_equal(err, FI_ENOSPC);
	assert_int_equal(fi_av_insert(j->av[1], &b, 1, &fa, 0, NULL), 1);
	assert_int_equal(fa, 0);
	/* The view holds at most max_entries positions, as a table would. */
	assert_int_equal(fi_av_insert(j->av[1], &a, 1, &fa, 0, NULL), 1);
	assert_int_equal(fi_av_insert(j->av[1], &a, 1, &fa, FI_SYNC_ERR,
				      &err), 0);
	assert_int_equal(err, FI_ENOSPC);
	job_teardown(j);
}

static void test_refusals(void **state)
{
	struct kav_auth_key key = { .vni = VNI };
	struct fi_domain_attr dattr = { .auth_key = (uint8_t *)&key,
					.auth_key_size = sizeof(key) };
	struct fi_av_attr attr = { .type = FI_AV_MAP };
	struct sockaddr_in a = test_sin("10.0.0.1", 1);
	struct kav_av_job_stats st;
	struct fid_domain *dom, *keyless, *authkey;
	struct fid_av *av, *priv;
	struct fid_peer_av *peer;
	fi_addr_t fa, id = 5;
	char k[8];
	size_t klen = sizeof(k);

	(void)state;
	fake_kav_install();
	dom = test_open_domain_attr(FI_SOCKADDR_IN, &dattr);
	keyless = test_open_domain(FI_SOCKADDR_IN, 0);
	authkey = test_open_domain(FI_SOCKADDR_IN, FI_AV_AUTH_KEY);
	/* A job is a key's grant: no key, no job. */
	assert_int_equal(kav_av_open_job(keyless, &attr, &av, NULL),
			 -FI_ENOKEY);
	assert_int_equal(kav_av_open_job(authkey, &attr, &av, NULL),
			 -FI_EINVAL);
	assert_int_equal(kav_av_open_job(NULL, &attr, &av, NULL), -FI_EINVAL);
	assert_int_equal(kav_av_open_job(dom, NULL, &av, NULL), -FI_EINVAL);
	attr.name = "x";
	assert_int_equal(kav_av_open_job(dom, &attr, &av, NULL), -FI_EINVAL);
	attr.name = NULL;
	attr.flags = FI_AV_USER_ID;
	assert_int_equal(kav_av_open_job(dom, &attr, &av, NULL), -FI_EINVAL);
	attr.flags = FI_READ;
	assert_int_equal(kav_av_open_job(dom, &attr, &av, NULL), -FI_EINVAL);
	attr.flags = 0;
	assert_int_equal(kav_av_open_job(dom, &attr, &av, NULL), 0);
	/* What a shared table cannot do. */
	assert_int_equal(fi_av_insert(av, &a, 1, &id, FI_AV_USER_ID, NULL),
			 -FI_EOPNOTSUPP);
	assert_int_equal(fi_av_insert(av, &a, 1, &fa, 0, NULL), 1);
	assert_int_equal(fi_av_set_user_id(av, fa, 7, 0), -FI_EOPNOTSUPP);
	assert_int_equal(fi_av_insert_auth_key(av, &key, sizeof(key), &id, 0),
			 -FI_EOPNOTSUPP);
	/* The domain's key, through the view. */
	assert_int_equal(fi_av_lookup_auth_key(av, fa, k, &klen), 0);
	assert_int_equal(klen, sizeof(key));
	klen = sizeof(k);
	assert_int_equal(fi_av_lookup_auth_key(av, fa + 1, k, &klen),
			 -FI_EINVAL);
	/* Peers would read the table, not this process's view. */
	assert_int_equal(kav_av_peer_open(av, &peer), -FI_EOPNOTSUPP);
	/* Stats are a job AV's only. */
	assert_int_equal(fi_av_open(dom, &attr, &priv, NULL), 0);
	assert_int_equal(kav_av_job_stats(priv, &st), -FI_EINVAL);
	assert_int_equal(kav_av_job_stats(av, NULL), -FI_EINVAL);
	assert_int_equal(fi_close(&priv->fid), 0);
	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(fi_close(&authkey->fid), 0);
	assert_int_equal(fi_close(&keyless->fid), 0);
	assert_int_equal(fi_close(&dom->fid), 0);
	fake_kav_reset();
}

/* --------------------------------------------------- sets and readers */

static void test_av_set_over_job(void **state)
{
	struct job_fixture *j = job_setup(FI_AV_TABLE, FI_AV_TABLE);
	struct sockaddr_in in[3];
	struct fi_av_set_attr sattr;
	struct fid_av_set *set;
	fi_addr_t fa[3];
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		in[i] = test_sin("10.0.2.1", (uint16_t)(i + 1));
	/* The other process holds three entries; this one two of them. */
	assert_int_equal(fi_av_insert(j->av[0], in, 3, NULL, 0, NULL), 3);
	assert_int_equal(fi_av_insert(j->av[1], &in[1], 2, fa, 0, NULL), 2);
	memset(&sattr, 0, sizeof(sattr));
	sattr.count = 8;
	sattr.start_addr = FI_ADDR_NOTAVAIL;
	sattr.end_addr = FI_ADDR_NOTAVAIL;
	sattr.flags = FI_UNIVERSE;
	assert_int_equal(fi_av_set(j->av[1], &sattr, &set, NULL), 0);
	/* The universe is the process's two positions. */
	assert_int_equal(fi_av_set_insert(set, 0), -FI_EINVAL);
	assert_int_equal(fi_av_set_remove(set, 1), 0);
	assert_int_equal(fi_av_set_insert(set, 1), 0);
	assert_int_equal(fi_av_set_insert(set, 2), -FI_EINVAL);
	assert_int_equal(fi_close(&set->fid), 0);
	/* A removed position is no member-to-be. */
	memset(&sattr, 0, sizeof(sattr));
	sattr.count = 8;
	sattr.start_addr = FI_ADDR_NOTAVAIL;
	sattr.end_addr = FI_ADDR_NOTAVAIL;
	assert_int_equal(fi_av_set(j->av[1], &sattr, &set, NULL), 0);
	assert_int_equal(fi_av_remove(j->av[1], &fa[0], 1, 0), 0);
	assert_int_equal(fi_av_set_insert(set, fa[0]), -FI_EINVAL);
	assert_int_equal(fi_av_set_insert(set, fa[1]), 0);
	assert_int_equal(fi_close(&set->fid), 0);
	job_teardown(j);
}

static void test_view_reads_through(void **state)
{
	struct job_fixture *j = job_setup(FI_AV_MAP, FI_AV_TABLE);
	struct sockaddr_in a = test_sin("10.0.3.1", 1);
	struct sockaddr_in b = test_sin("10.0.3.2", 2);
	struct kav_view_entry ent;
	struct kav_view view;
	fi_addr_t fa0, fb0, fa1;

	(void)state;
	assert_int_equal(fi_av_insert(j->av[0], &a, 1, &fa0, 0, NULL), 1);
	assert_int_equal(fi_av_insert(j->av[0], &b, 1, &fb0, 0, NULL), 1);
	assert_int_equal(fi_av_insert(j->av[1], &b, 1, &fa1, 0, NULL), 1);
	assert_int_equal(fa1, 0);
	assert_int_equal(kav_view_init(j->av[1], &view), 0);
	/* Position 0 is b, whatever index 0 of the table holds. */
	assert_int_equal(kav_view_resolve(&view, fa1, &ent), 0);
	assert_int_equal(ent.addr_len, sizeof(b));
	assert_memory_equal(ent.addr, &b, sizeof(b));
	assert_int_equal(ent.vni, VNI);
	assert_int_equal(kav_view_resolve(&view, 1, &ent), -FI_EINVAL);
	assert_int_equal(fi_av_remove(j->av[1], &fa1, 1, 0), 0);
	assert_int_equal(kav_view_resolve(&view, fa1, &ent), -FI_EINVAL);
	/* The MAP process: index fb0 is its own, as inserted. */
	assert_int_equal(kav_view_init(j->av[0], &view), 0);
	assert_int_equal(kav_view_resolve(&view, fb0, &ent), 0);
	assert_memory_equal(ent.addr, &b, sizeof(b));
	job_teardown(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_shares_one_table),
		cmocka_unit_test(test_map_remove_is_the_process_own),
		cmocka_unit_test(test_table_positions),
		cmocka_unit_test(test_sync_err),
		cmocka_unit_test(test_event),
		cmocka_unit_test(test_revoked_key_refuses_inserts),
		cmocka_unit_test(test_full_table),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_av_set_over_job),
		cmocka_unit_test(test_view_reads_through),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
