// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * fi_av_open attributes, kav's fi_addr_t encoding (group, rx-context and
 * key-handle bits), insert flags and the FI_EVENT path through a kav EQ,
 * against the fake kernel of fake_kav.c.
 */
#include <stdlib.h>

#include <rdma/fi_eq.h>

#include "test_fixture.h"
#include "fake_kav.h"

static int setup_flags(void **state, uint64_t flags)
{
	struct fi_domain_attr dattr = { 0 };
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = flags };

	av_fixture_open(state, FI_SOCKADDR_IN, &dattr, &attr);
	return 0;
}

static int setup(void **state)
{
	return setup_flags(state, 0);
}

static int setup_event(void **state)
{
	return setup_flags(state, FI_EVENT);
}

static void insert_three(struct fid_av *av, fi_addr_t *fa)
{
	struct sockaddr_in in[3];
	int i;

	for (i = 0; i < 3; i++)
		in[i] = test_sin("10.0.0.1", (uint16_t)(100 + i));
	assert_int_equal(fi_av_insert(av, in, 3, fa, 0, NULL), 3);
}

static uint16_t port_at(struct fid_av *av, fi_addr_t fa)
{
	struct sockaddr_in out;
	size_t len = sizeof(out);

	assert_int_equal(fi_av_lookup(av, fa, &out, &len), 0);
	return ntohs(out.sin_port);
}

/* ------------------------------------------------------------ attributes */

static void test_open_attrs(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_attr attr;
	struct fid_av *av;
	unsigned int creates = fake_kav_stats.creates;
	int map;

	memset(&attr, 0, sizeof(attr));
	attr.type = FI_AV_TABLE;
	/* rx_ctx_bits: 0..KAV_RX_CTX_BITS_MAX. */
	attr.rx_ctx_bits = -1;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), -FI_EINVAL);
	attr.rx_ctx_bits = KAV_RX_CTX_BITS_MAX + 1;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), -FI_EINVAL);
	/* Flags: only FI_EVENT, FI_READ, FI_SYMMETRIC, FI_AV_USER_ID. */
	attr.rx_ctx_bits = 0;
	attr.flags = FI_MORE;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), -FI_EINVAL);
	attr.flags = FI_AUTH_KEY;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), -FI_EINVAL);
	attr.flags = FI_READ;			/* needs a name */
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), -FI_EINVAL);
	/* None of those reached the kernel. */
	assert_int_equal(fake_kav_stats.creates, creates);

	/* Accepted: every flag, hints, map_addr without a name (ignored). */
	attr.name = NULL;
	attr.map_addr = &map;
	attr.flags = FI_EVENT | FI_SYMMETRIC | FI_AV_USER_ID;
	attr.rx_ctx_bits = KAV_RX_CTX_BITS_MAX;
	attr.count = 77;
	attr.ep_per_node = 8;
	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	assert_int_equal(fake_kav_stats.last_create_count, 77);
	assert_ptr_equal(attr.map_addr, &map);	/* untouched */
	assert_int_equal(((struct kav_fid_av *)av)->flags,
			 FI_EVENT | FI_SYMMETRIC | FI_AV_USER_ID);
	assert_int_equal(((struct kav_fid_av *)av)->rx_ctx_bits,
			 KAV_RX_CTX_BITS_MAX);
	assert_int_equal(fi_close(&av->fid), 0);
}

/* -------------------------------------------------------------- encoding */

static void test_fi_addr_codec(void **state)
{
	uint64_t idx;
	uint32_t slot;

	(void)state;
	/* libfabric's own layout: group id in bits 32..63. */
	assert_true(fi_group_addr(5, 3) == ((3ULL << 32) | 5));
	assert_true(fi_rx_addr(5, 3, 4) == ((3ULL << 60) | 5));

	assert_int_equal(kav_fi_addr_index(7, &idx), 0);
	assert_int_equal(idx, 7);
	assert_int_equal(kav_fi_addr_index(fi_group_addr(7, 0xffffffffu),
					   &idx), 0);
	assert_int_equal(idx, 7);
	assert_int_equal(kav_fi_addr_index(fi_rx_addr(7, 1, 1), &idx), 0);
	assert_int_equal(idx, 7);
	assert_int_equal(kav_fi_addr_index(KAV_FI_ADDR_INDEX_MAX, &idx), 0);
	assert_true(idx == KAV_FI_ADDR_INDEX_MAX);
	assert_int_equal(kav_fi_addr_index(KAV_FI_ADDR_KEY | 7, &idx),
			 -FI_EINVAL);
	assert_int_equal(kav_fi_addr_index(FI_ADDR_NOTAVAIL, &idx),
			 -FI_EINVAL);

	assert_int_equal(kav_fi_addr_key(KAV_FI_ADDR_KEY | 3, &slot), 0);
	assert_int_equal(slot, 3);
	assert_int_equal(kav_fi_addr_key(fi_group_addr(KAV_FI_ADDR_KEY | 63,
						       9), &slot), 0);
	assert_int_equal(slot, 63);
	assert_int_equal(kav_fi_addr_key(KAV_FI_ADDR_KEY | KAV_MAX_AUTH_KEYS,
					 &slot), -FI_EINVAL);
	assert_int_equal(kav_fi_addr_key(3, &slot), -FI_EINVAL);
	assert_int_equal(kav_fi_addr_key(FI_ADDR_NOTAVAIL, &slot),
			 -FI_EINVAL);
}

static void test_group_and_rx_bits(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in out;
	fi_addr_t fa[3], rm[2];
	size_t len = sizeof(out);

	insert_three(f->av, fa);
	/* kav returns plain indices. */
	assert_int_equal(fa[0], 0);
	assert_int_equal(fa[2], 2);
	/* Calls act on the entry a group / rx address names. */
	assert_int_equal(port_at(f->av, fi_group_addr(fa[1], 42)), 101);
	assert_int_equal(port_at(f->av, fi_rx_addr(fa[2], 5, 8)), 102);
	assert_int_equal(port_at(f->av, fi_rx_addr(fi_group_addr(fa[0], 1),
						   1, 32)), 100);
	/* A key handle is not an address; nor is FI_ADDR_NOTAVAIL. */
	assert_int_equal(fi_av_lookup(f->av, KAV_FI_ADDR_KEY, &out, &len),
			 -FI_EINVAL);
	assert_int_equal(fi_av_lookup(f->av, FI_ADDR_NOTAVAIL, &out, &len),
			 -FI_EINVAL);

	/* Remove: the same entry twice, in two spellings, is a repeat. */
	rm[0] = fa[1];
	rm[1] = fi_group_addr(fa[1], 3);
	assert_int_equal(fi_av_remove(f->av, rm, 2, 0), -FI_EINVAL);
	assert_int_equal(port_at(f->av, fa[1]), 101);
	rm[0] = KAV_FI_ADDR_KEY;		/* needs FI_AUTH_KEY */
	assert_int_equal(fi_av_remove(f->av, rm, 1, 0), -FI_EINVAL);
	rm[0] = fi_group_addr(fa[0], 7);
	assert_int_equal(fi_av_remove(f->av, rm, 1, 0), 0);
	assert_int_equal(fi_av_lookup(f->av, fa[0], &out, &len), -FI_EINVAL);
	assert_int_equal(port_at(f->av, fa[2]), 102);
}

/* Indices the kernel hands out past KAV_FI_ADDR_INDEX_MAX are refused. */
static void test_index_limit(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in[2];
	fi_addr_t fa[2];
	int errs[2] = { -1, -1 };

	in[0] = test_sin("10.0.0.1", 1);
	in[1] = test_sin("10.0.0.2", 2);
	fake_kav_index_offset = KAV_FI_ADDR_INDEX_MAX;
	assert_int_equal(fi_av_insert(f->av, in, 2, fa, FI_SYNC_ERR, errs),
			 1);
	assert_true(fa[0] == KAV_FI_ADDR_INDEX_MAX);
	assert_true(fa[1] == FI_ADDR_NOTAVAIL);
	assert_int_equal(errs[0], 0);
	assert_int_equal(errs[1], FI_ENOSPC);
	/* libkav asked the kernel to take the unaddressable entry back. */
	assert_int_equal(fake_kav_stats.removes, 1);
}

/* ----------------------------------------------------------- insert flags */

static void test_insert_flags(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in = test_sin("10.0.0.1", 1);
	fi_addr_t fa = 5;
	int err;

	/* Unknown flags, and FI_AUTH_KEY without an FI_AV_AUTH_KEY domain. */
	assert_int_equal(fi_av_insert(f->av, &in, 1, &fa, FI_PEEK, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_av_insert(f->av, &in, 1, &fa, FI_AUTH_KEY, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.1", "1", &fa,
					 FI_AUTH_KEY, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsym(f->av, "10.0.0.1", 1, "1", 1, &fa,
					 FI_AUTH_KEY, NULL), -FI_EINVAL);
	/* FI_AV_USER_ID: the fi_addr array is input. */
	assert_int_equal(fi_av_insert(f->av, &in, 1, NULL, FI_AV_USER_ID,
				      NULL), -FI_EINVAL);
	/* Remove takes no FI_AV_USER_ID, FI_MORE, ... */
	assert_int_equal(fi_av_remove(f->av, &fa, 1, FI_AV_USER_ID),
			 -FI_EINVAL);
	assert_int_equal(fake_kav_stats.inserts, 0);
	/* FI_MORE is accepted (and changes nothing). */
	assert_int_equal(fi_av_insert(f->av, &in, 1, &fa,
				      FI_MORE | FI_SYNC_ERR, &err), 1);
	assert_int_equal(err, 0);
	assert_int_equal(fa, 0);
	assert_int_equal(fake_kav_stats.last_insert_flags, 0);
}

static void test_insert_user_ids(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in[2];
	struct kav_resolved r;
	fi_addr_t fa[4] = { 1000, 2000 };

	in[0] = test_sin("10.0.0.1", 1);
	in[1] = test_sin("10.0.0.2", 2);
	assert_int_equal(fi_av_insert(f->av, in, 2, fa, FI_AV_USER_ID, NULL),
			 2);
	assert_int_equal(fake_kav_stats.last_insert_flags,
			 KAV_INSERT_USER_ID);
	/* Output overwrote the input with the new fi_addrs. */
	assert_int_equal(fa[0], 0);
	assert_int_equal(fa[1], 1);
	assert_int_equal(kav_av_resolve(f->av, fa[0], &r), 0);
	assert_int_equal(r.user_id, 1000);
	assert_int_equal(kav_av_resolve(f->av, fa[1], &r), 0);
	assert_int_equal(r.user_id, 2000);

	/* insertsvc and insertsym too, one user id per address. */
	fa[0] = 3000;
	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.3", "3", fa,
					 FI_AV_USER_ID, NULL), 1);
	assert_int_equal(kav_av_resolve(f->av, fa[0], &r), 0);
	assert_int_equal(r.user_id, 3000);
	fa[0] = 4000;
	fa[1] = 4001;
	assert_int_equal(fi_av_insertsym(f->av, "10.0.1.1", 2, "7", 1, fa,
					 FI_AV_USER_ID, NULL), 2);
	assert_int_equal(kav_av_resolve(f->av, fa[1], &r), 0);
	assert_int_equal(r.user_id, 4001);
	assert_int_equal(port_at(f->av, fa[1]), 7);

	/* Without the flag the user id stays FI_ADDR_NOTAVAIL. */
	assert_int_equal(fi_av_insert(f->av, in, 1, fa, 0, NULL), 1);
	assert_int_equal(kav_av_resolve(f->av, fa[0], &r), 0);
	assert_true(r.user_id == FI_ADDR_NOTAVAIL);
}

/* Per-insert user ids are invalid on FI_AV_USER_ID AVs and on domains
 * with FI_AV_AUTH_KEY (fi_av(3)). */
static void test_insert_user_id_refused(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_attr attr = { .type = FI_AV_TABLE,
				   .flags = FI_AV_USER_ID };
	struct sockaddr_in in = test_sin("10.0.0.1", 1);
	struct fid_domain *kdom;
	struct fid_av *av;
	fi_addr_t fa = 1;

	assert_int_equal(fi_av_open(f->dom, &attr, &av, NULL), 0);
	assert_int_equal(fi_av_insert(av, &in, 1, &fa, FI_AV_USER_ID, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_av_insert(av, &in, 1, &fa, 0, NULL), 1);
	assert_int_equal(fi_close(&av->fid), 0);

	kdom = test_open_domain(FI_SOCKADDR_IN, FI_AV_AUTH_KEY);
	attr.flags = 0;
	assert_int_equal(fi_av_open(kdom, &attr, &av, NULL), 0);
	assert_int_equal(fi_av_insertsvc(av, "10.0.0.1", "1", &fa,
					 FI_AV_USER_ID, NULL), -FI_EINVAL);
	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(fi_close(&kdom->fid), 0);
}

/* The 2.x calls on an AV that does not allow them. */
static void test_auth_calls_refused(void **state)
{
	struct av_fixture *f = *state;
	struct kav_auth_key key = { .vni = 1 };
	fi_addr_t fa[3];

	/* Not an FI_AV_AUTH_KEY domain. */
	assert_int_equal(fi_av_insert_auth_key(f->av, &key, sizeof(key), fa,
					       0), -FI_EINVAL);
	/* Not an FI_AV_USER_ID AV. */
	insert_three(f->av, fa);
	assert_int_equal(fi_av_set_user_id(f->av, 0, 5, 0), -FI_EINVAL);
	assert_int_equal(fake_kav_stats.key_inserts, 0);
	assert_int_equal(fake_kav_stats.set_user_ids, 0);
}

/* The wrappers dispatch only into members the ops table has. */
static int never_insert_key(struct fid_av *av, const void *key, size_t size,
			    fi_addr_t *fi_addr, uint64_t flags)
{
	(void)av; (void)key; (void)size; (void)fi_addr; (void)flags;
	fail_msg("called through a member beyond ops->size");
	return 0;
}

static int never_lookup_key(struct fid_av *av, fi_addr_t fi_addr, void *key,
			    size_t *size)
{
	(void)av; (void)fi_addr; (void)key; (void)size;
	fail_msg("called through a member beyond ops->size");
	return 0;
}

static int never_set_user_id(struct fid_av *av, fi_addr_t fi_addr,
			     fi_addr_t user_id, uint64_t flags)
{
	(void)av; (void)fi_addr; (void)user_id; (void)flags;
	fail_msg("called through a member beyond ops->size");
	return 0;
}

static void test_ops_size_check(void **state)
{
	struct kav_fi_ops_av ops;
	struct kav_auth_key key;
	struct fid_av av;
	size_t len = sizeof(key);
	fi_addr_t fa;

	(void)state;
	memset(&ops, 0, sizeof(ops));
	ops.insert_auth_key = never_insert_key;
	ops.lookup_auth_key = never_lookup_key;
	ops.set_user_id = never_set_user_id;
	memset(&av, 0, sizeof(av));
	av.ops = (struct fi_ops_av *)&ops;
	/* A 1.17-sized table has none of the three (either header's check). */
	ops.size = offsetof(struct kav_fi_ops_av, insert_auth_key);
	assert_int_equal(fi_av_insert_auth_key(&av, &key, sizeof(key), &fa, 0),
			 -FI_ENOSYS);
	assert_int_equal(fi_av_lookup_auth_key(&av, 0, &key, &len),
			 -FI_ENOSYS);
	assert_int_equal(fi_av_set_user_id(&av, 0, 0, 0), -FI_ENOSYS);
	/*
	 * A member cut in half is not there for kav's check. libfabric 2.x's
	 * FI_CHECK_OP only wants .size past the member's offset, so with
	 * 1.20+ headers the inline would call it: only kav's own wrappers
	 * (1.17 headers) are held to the stricter rule.
	 */
	ops.size = offsetof(struct kav_fi_ops_av, set_user_id) + 4;
	assert_false(KAV_FI_AV_HAS_OP(&av, set_user_id));
	assert_true(KAV_FI_AV_HAS_OP(&av, lookup_auth_key));
#if !KAV_FI_HAVE_AV_AUTH_KEY
	assert_int_equal(fi_av_set_user_id(&av, 0, 0, 0), -FI_ENOSYS);
#endif
	/* Inside .size but NULL. */
	ops.size = sizeof(ops);
	ops.set_user_id = NULL;
	assert_int_equal(fi_av_set_user_id(&av, 0, 0, 0), -FI_ENOSYS);
}

/*
 * libkav's own AVs: the whole extended table inside .size, so that both
 * checks (kav's and FI_CHECK_OP) find the three members; with 1.20+
 * headers that is the headers' whole table, reached by their inlines.
 */
static void test_ops_size_of_kav_av(void **state)
{
	struct av_fixture *f = *state;
	fi_addr_t fa = FI_ADDR_NOTAVAIL;

	assert_int_equal(f->av->ops->size, sizeof(struct kav_fi_ops_av));
#if KAV_FI_HAVE_AV_AUTH_KEY && KAV_FI_HEADERS_VERSION <= FI_VERSION(2, 1)
	assert_int_equal(f->av->ops->size, sizeof(struct fi_ops_av));
#endif
	assert_true(KAV_FI_AV_HAS_OP(f->av, insert_auth_key));
	assert_true(KAV_FI_AV_HAS_OP(f->av, lookup_auth_key));
	assert_true(KAV_FI_AV_HAS_OP(f->av, set_user_id));
	/* Reached: kav's refusal, not the inline's -FI_ENOSYS. */
	assert_int_equal(fi_av_set_user_id(f->av, 0, 1, 0), -FI_EINVAL);
	assert_int_equal(fi_av_insert_auth_key(f->av, NULL, 0, &fa, 0),
			 -FI_EINVAL);
}

/* ----------------------------------------------------------------- events */

static struct fid_eq *open_eq(struct fid_domain *dom)
{
	struct fi_eq_attr attr;
	struct fid_eq *eq;

	memset(&attr, 0, sizeof(attr));
	assert_int_equal(kav_eq_open(dom, &attr, &eq, NULL), 0);
	return eq;
}

static void test_event_bind(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in = test_sin("10.0.0.1", 1);
	struct fid_eq *eq = open_eq(f->dom), *eq2 = open_eq(f->dom);

	/* Inserts before a bind: -FI_ENOEQ, nothing inserted. */
	assert_int_equal(fi_av_insert(f->av, &in, 1, NULL, 0, NULL),
			 -FI_ENOEQ);
	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.1", "1", NULL, 0,
					 NULL), -FI_ENOEQ);
	assert_int_equal(fi_av_insertsym(f->av, "10.0.0.1", 1, "1", 1, NULL,
					 0, NULL), -FI_ENOEQ);
	assert_int_equal(fake_kav_stats.inserts, 0);

	assert_int_equal(kav_test_av_bind(f->av, &eq->fid, FI_MORE), -FI_EINVAL);
	assert_int_equal(kav_test_av_bind(f->av, &f->dom->fid, 0), -FI_EINVAL);
	assert_int_equal(kav_test_av_bind(f->av, &eq->fid, 0), 0);
	/* One EQ per AV, for good. */
	assert_int_equal(kav_test_av_bind(f->av, &eq2->fid, 0), -FI_EINVAL);
	assert_int_equal(kav_test_av_bind(f->av, &eq->fid, 0), -FI_EINVAL);
	/* The failed binds left eq2 free, and eq held. */
	assert_int_equal(fi_close(&eq2->fid), 0);
	assert_int_equal(fi_close(&eq->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&f->av->fid), 0);
	f->av = NULL;
	assert_int_equal(fi_close(&eq->fid), 0);
}

static void test_event_insert(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in[3];
	struct fi_eq_err_entry err;
	struct fi_eq_entry entry;
	struct fid_eq *eq = open_eq(f->dom);
	fi_addr_t fa[3];
	uint32_t event;
	int ctx, errs[3];

	assert_int_equal(kav_test_av_bind(f->av, &eq->fid, 0), 0);
	in[0] = test_sin("10.0.0.1", 1);
	in[1] = test_sin("10.0.0.2", 2);
	in[1].sin_family = AF_INET6;		/* fails */
	in[2] = test_sin("10.0.0.3", 3);
	/* FI_SYNC_ERR is for synchronous AVs only. */
	assert_int_equal(fi_av_insert(f->av, in, 3, fa, FI_SYNC_ERR, errs),
			 -FI_EINVAL);
	/* The call returns FI_SUCCESS; the outcome comes as events. */
	assert_int_equal(fi_av_insert(f->av, in, 3, fa, 0, &ctx), 0);
	assert_int_equal(fa[0], 0);
	assert_true(fa[1] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[2], 1);
	/* First the error for address 1 ... */
	assert_int_equal(fi_eq_read(eq, &event, &entry, sizeof(entry), 0),
			 -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_ptr_equal(err.fid, &f->av->fid);
	assert_ptr_equal(err.context, &ctx);
	assert_int_equal(err.data, 1);
	assert_int_equal(err.err, FI_EINVAL);
	/* ... then one completion counting the two inserted. */
	assert_int_equal(fi_eq_read(eq, &event, &entry, sizeof(entry), 0),
			 sizeof(entry));
	assert_int_equal(event, FI_AV_COMPLETE);
	assert_ptr_equal(entry.fid, &f->av->fid);
	assert_ptr_equal(entry.context, &ctx);
	assert_int_equal(entry.data, 2);
	assert_int_equal(fi_eq_read(eq, &event, &entry, sizeof(entry), 0),
			 -FI_EAGAIN);

	/* Every insert call completes, even an empty one. */
	assert_int_equal(fi_av_insert(f->av, NULL, 0, NULL, 0, &ctx), 0);
	assert_int_equal(fi_eq_read(eq, &event, &entry, sizeof(entry), 0),
			 sizeof(entry));
	assert_int_equal(entry.data, 0);
	/* An address the kernel refuses is an error event too. */
	fake_kav_reject_port = 9;
	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.9", "9", fa, 0, &ctx),
			 0);
	assert_true(fa[0] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_eq_readerr(eq, &err, 0), sizeof(err));
	assert_int_equal(err.data, 0);
	assert_int_equal(err.err, FI_EINVAL);
	assert_int_equal(fi_eq_read(eq, &event, &entry, sizeof(entry), 0),
			 sizeof(entry));
	assert_int_equal(entry.data, 0);

	assert_int_equal(fi_close(&f->av->fid), 0);
	f->av = NULL;
	assert_int_equal(fi_close(&eq->fid), 0);
}

/* A synchronous AV may take an EQ; inserts still return counts. */
static void test_event_bind_sync_av(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in = test_sin("10.0.0.1", 1);
	struct fi_eq_entry entry;
	struct fid_eq *eq = open_eq(f->dom);
	uint32_t event;

	assert_int_equal(kav_test_av_bind(f->av, &eq->fid, 0), 0);
	assert_int_equal(fi_av_insert(f->av, &in, 1, NULL, 0, NULL), 1);
	assert_int_equal(fi_eq_read(eq, &event, &entry, sizeof(entry), 0),
			 -FI_EAGAIN);
	assert_int_equal(fi_close(&f->av->fid), 0);
	f->av = NULL;
	assert_int_equal(fi_close(&eq->fid), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_attrs, setup,
						av_teardown),
		cmocka_unit_test(test_fi_addr_codec),
		cmocka_unit_test_setup_teardown(test_group_and_rx_bits, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_index_limit, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_insert_flags, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_insert_user_ids, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_insert_user_id_refused,
						setup, av_teardown),
		cmocka_unit_test_setup_teardown(test_auth_calls_refused, setup,
						av_teardown),
		cmocka_unit_test(test_ops_size_check),
		cmocka_unit_test_setup_teardown(test_ops_size_of_kav_av, setup,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_event_bind, setup_event,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_event_insert, setup_event,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_event_bind_sync_av, setup,
						av_teardown),
	};

	return cmocka_run_group_tests_name("av_attr", tests, NULL, NULL);
}
