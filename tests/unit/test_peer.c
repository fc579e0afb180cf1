// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kav as the owner of peer AVs and peer AV sets (lib/peer.c, fi_peer(3)),
 * imported by the mock offload provider of tests/doubles/peer over a kav AV
 * backed by the fake kernel.
 */
#include <stdlib.h>

#include "test_fixture.h"
#include "fake_kav.h"
#include "kav_set_priv.h"
#include "../peer/mock_peer.h"

static int open_all(void **state, uint32_t format, int rx_ctx_bits)
{
	struct fi_av_attr attr = {
		.type = FI_AV_TABLE, .count = 16, .rx_ctx_bits = rx_ctx_bits,
	};
	struct av_fixture *f;

	f = av_fixture_open(state, format, NULL, &attr);
	f->kav = kav_av_from_fid(f->av);
	assert_non_null(f->kav);
	return 0;
}

/*
 * FI_SOCKADDR_IN AV: 0 = 10.0.0.1:5000, 1 = 10.0.0.2:5001 (removed),
 * 2 = 10.0.0.3:5002, 3 = 10.0.0.2:5001 again, 4 = 10.0.0.3:5002 again.
 */
static int setup_in(void **state)
{
	struct av_fixture *f;
	struct sockaddr_in in[5];
	fi_addr_t one = 1;

	open_all(state, FI_SOCKADDR_IN, 0);
	f = *state;
	in[0] = test_sin("10.0.0.1", 5000);
	in[1] = test_sin("10.0.0.2", 5001);
	in[2] = test_sin("10.0.0.3", 5002);
	in[3] = in[1];
	in[4] = in[2];
	assert_int_equal(fi_av_insert(f->av, in, 5, NULL, 0, NULL), 5);
	assert_int_equal(fi_av_remove(f->av, &one, 1, 0), 0);
	return 0;
}

static struct fid_peer_av *peer_open(struct av_fixture *f)
{
	struct fid_peer_av *peer = NULL;

	assert_int_equal(kav_av_peer_open(f->av, &peer), 0);
	assert_non_null(peer);
	return peer;
}

static void test_peer_av_open(void **state)
{
	struct av_fixture *f = *state;
	struct fid_peer_av *peer;

	assert_int_equal(kav_av_peer_open(NULL, &peer), -FI_EINVAL);
	assert_int_equal(kav_av_peer_open(f->av, NULL), -FI_EINVAL);
	assert_int_equal(kav_av_peer_open((struct fid_av *)f->dom, &peer),
			 -FI_EINVAL);
	peer = peer_open(f);
	assert_int_equal(peer->fid.fclass, FI_CLASS_PEER_AV);
	assert_non_null(peer->owner_ops);
	assert_int_equal(peer->owner_ops->size, sizeof(struct fi_ops_av_owner));
	/* The AV cannot close under a peer AV. */
	assert_int_equal(fi_close(&f->av->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&peer->fid), 0);
	assert_int_equal(fi_close(&f->av->fid), 0);
	f->av = NULL;
}

static void test_query(void **state)
{
	struct av_fixture *f = *state;
	struct fid_peer_av *peer = peer_open(f);
	struct fi_av_attr attr;

	memset(&attr, 0xff, sizeof(attr));
	assert_int_equal(peer->owner_ops->query(peer, &attr), 0);
	assert_int_equal(attr.type, FI_AV_TABLE);
	assert_int_equal(attr.count, kav_table_nr_slots(&f->kav->table));
	assert_true(attr.count >= 5);		/* every fi_addr is below */
	assert_int_equal(attr.rx_ctx_bits, 0);
	assert_int_equal(attr.flags, 0);
	assert_null(attr.name);
	assert_null(attr.map_addr);
	assert_int_equal(attr.ep_per_node, 0);
	assert_int_equal(peer->owner_ops->query(peer, NULL), -FI_EINVAL);
	assert_int_equal(fi_close(&peer->fid), 0);
}

static void test_ep_addr(void **state)
{
	struct av_fixture *f = *state;
	struct fid_peer_av *peer = peer_open(f);
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	uint8_t long_name[MOCK_EP_NAME_MAX];
	struct mock_ep ep;

	sin = test_sin("10.0.0.1", 5000);
	mock_ep_init(&ep, &sin, sizeof(sin));
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep), 0);
	assert_int_equal(ep.getname_calls, 1);

	/* sin_zero is padding: garbage there still matches. */
	sin = test_sin("10.0.0.3", 5002);
	memset(sin.sin_zero, 0xee, sizeof(sin.sin_zero));
	mock_ep_init(&ep, &sin, sizeof(sin));
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep), 2);

	/* Entry 1 was removed; its address lives on at 3. */
	sin = test_sin("10.0.0.2", 5001);
	mock_ep_init(&ep, &sin, sizeof(sin));
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep), 3);

	/* Not in the AV: another port, another host. */
	sin = test_sin("10.0.0.1", 5001);
	mock_ep_init(&ep, &sin, sizeof(sin));
	assert_true(peer->owner_ops->ep_addr(peer, &ep.ep) ==
		    FI_ADDR_NOTAVAIL);
	sin = test_sin("10.9.9.9", 5000);
	mock_ep_init(&ep, &sin, sizeof(sin));
	assert_true(peer->owner_ops->ep_addr(peer, &ep.ep) ==
		    FI_ADDR_NOTAVAIL);

	/* Not an address of this AV's format. */
	sin6 = test_sin6("::1", 5000);
	mock_ep_init(&ep, &sin6, sizeof(sin6));
	assert_true(peer->owner_ops->ep_addr(peer, &ep.ep) ==
		    FI_ADDR_NOTAVAIL);

	/* fi_getname() failing, a name too long, no cm ops, no ep. */
	sin = test_sin("10.0.0.1", 5000);
	mock_ep_init(&ep, &sin, sizeof(sin));
	ep.getname_ret = -FI_EOPBADSTATE;
	assert_true(peer->owner_ops->ep_addr(peer, &ep.ep) ==
		    FI_ADDR_NOTAVAIL);
	memset(long_name, 0, sizeof(long_name));
	memcpy(long_name, &sin, sizeof(sin));
	mock_ep_init(&ep, long_name, sizeof(long_name));
	assert_true(peer->owner_ops->ep_addr(peer, &ep.ep) ==
		    FI_ADDR_NOTAVAIL);
	mock_ep_init(&ep, &sin, 0);
	assert_true(peer->owner_ops->ep_addr(peer, &ep.ep) ==
		    FI_ADDR_NOTAVAIL);
	mock_ep_init(&ep, &sin, sizeof(sin));
	ep.ep.cm = NULL;
	assert_true(peer->owner_ops->ep_addr(peer, &ep.ep) ==
		    FI_ADDR_NOTAVAIL);
	assert_true(peer->owner_ops->ep_addr(peer, NULL) == FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_close(&peer->fid), 0);
}

static void test_ep_addr_str(void **state)
{
	struct av_fixture *f = *state;
	struct fid_peer_av *peer = peer_open(f);
	const char *names[] = { "node-a:1", "node-b:2" };
	struct mock_ep ep;

	assert_int_equal(fi_av_insert(f->av, names, 2, NULL, 0, NULL), 2);
	mock_ep_init(&ep, "node-b:2", sizeof("node-b:2"));
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep), 1);
	/* Without its NUL the name still reads as the same string. */
	mock_ep_init(&ep, "node-a:1", strlen("node-a:1"));
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep), 0);
	mock_ep_init(&ep, "node-a:12", sizeof("node-a:12"));
	assert_true(peer->owner_ops->ep_addr(peer, &ep.ep) ==
		    FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_close(&peer->fid), 0);
}

static void test_ep_addr_in6(void **state)
{
	struct av_fixture *f = *state;
	struct fid_peer_av *peer = peer_open(f);
	struct sockaddr_in6 in6[2];
	struct mock_ep ep;

	in6[0] = test_sin6("fe80::1", 1);
	in6[1] = test_sin6("2001:db8::7", 7);
	assert_int_equal(fi_av_insert(f->av, in6, 2, NULL, 0, NULL), 2);
	mock_ep_init(&ep, &in6[1], sizeof(in6[1]));
	assert_int_equal(peer->owner_ops->ep_addr(peer, &ep.ep), 1);
	assert_int_equal(fi_close(&peer->fid), 0);
}

static void test_mock_import_av(void **state)
{
	struct av_fixture *f = *state;
	struct fid_peer_av *peer = peer_open(f);
	struct fi_peer_av_context ctx = { .size = sizeof(ctx), .av = peer };
	struct fi_av_attr attr = { 0 };
	struct mock_peer_av_report rep;
	struct sockaddr_in sin = test_sin("10.0.0.3", 5002);
	struct mock_ep ep;
	struct fid_av *pav;

	mock_ep_init(&ep, &sin, sizeof(sin));
	assert_int_equal(mock_peer_import_av(&ctx, &ep.ep, &rep), 0);
	assert_int_equal(rep.open_ret, 0);
	assert_int_equal(rep.query_ret, 0);
	assert_int_equal(rep.attr.type, FI_AV_TABLE);
	assert_int_equal(rep.attr.count, kav_table_nr_slots(&f->kav->table));
	assert_int_equal(rep.ep_addr, 2);
	assert_int_equal(rep.close_ret, 0);

	/* The peer's own checks: FI_PEER flag, context size. */
	assert_int_equal(mock_peer_av_open(NULL, &attr, &pav, &ctx),
			 -FI_EINVAL);
	attr.flags = FI_PEER;
	ctx.size = sizeof(ctx) - 1;
	assert_int_equal(mock_peer_av_open(NULL, &attr, &pav, &ctx),
			 -FI_EINVAL);
	ctx.size = sizeof(ctx);
	/* An open peer AV keeps kav's peer AV, which keeps the kav AV. */
	assert_int_equal(mock_peer_av_open(NULL, &attr, &pav, &ctx), 0);
	assert_int_equal(fi_close(&f->av->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&pav->fid), 0);
	assert_int_equal(fi_close(&peer->fid), 0);
}

static struct fid_av_set *make_set(struct av_fixture *f, const fi_addr_t *m,
				   size_t n)
{
	struct fi_av_set_attr a = {
		.start_addr = FI_ADDR_NOTAVAIL, .end_addr = FI_ADDR_NOTAVAIL,
	};
	struct fid_av_set *set;
	size_t i;

	assert_int_equal(fi_av_set(f->av, &a, &set, NULL), 0);
	for (i = 0; i < n; i++)
		assert_int_equal(fi_av_set_insert(set, m[i]), 0);
	return set;
}

static void test_peer_set_members(void **state)
{
	struct av_fixture *f = *state;
	const fi_addr_t m[] = { 4, 0, 2 };
	struct fid_av_set *set = make_set(f, m, 3);
	struct fid_peer_av_set *peer = NULL;
	fi_addr_t out[5] = { 9, 9, 9, 9, 9 };
	size_t n;

	assert_int_equal(kav_av_set_peer_open(NULL, &peer), -FI_EINVAL);
	assert_int_equal(kav_av_set_peer_open(set, NULL), -FI_EINVAL);
	assert_int_equal(kav_av_set_peer_open((struct fid_av_set *)f->av,
					      &peer), -FI_EINVAL);
	assert_int_equal(kav_av_set_peer_open(set, &peer), 0);
	assert_int_equal(peer->fid.fclass, FI_CLASS_PEER_AV_SET);
	assert_int_equal(peer->owner_ops->size,
			 sizeof(struct fi_ops_av_set_owner));

	/* Too small: the count needed, nothing written. */
	n = 2;
	assert_int_equal(peer->owner_ops->members(peer, out, &n),
			 -FI_ETOOSMALL);
	assert_int_equal(n, 3);
	assert_int_equal(out[0], 9);
	assert_int_equal(out[1], 9);
	n = 0;
	assert_int_equal(peer->owner_ops->members(peer, NULL, &n),
			 -FI_ETOOSMALL);
	assert_int_equal(n, 3);
	/* Exactly right, and larger: set order, count = members. */
	n = 3;
	assert_int_equal(peer->owner_ops->members(peer, out, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(out[0], 4);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[2], 2);
	n = 5;
	assert_int_equal(peer->owner_ops->members(peer, out, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(out[3], 9);
	assert_int_equal(peer->owner_ops->members(peer, out, NULL),
			 -FI_EINVAL);

	/* Live: changes to the set show through. */
	assert_int_equal(fi_av_set_remove(set, 0), 0);
	n = 5;
	assert_int_equal(peer->owner_ops->members(peer, out, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(out[0], 4);
	assert_int_equal(out[1], 2);

	/* The set cannot close under its peer; the AV not under the set. */
	assert_int_equal(fi_close(&set->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&f->av->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&peer->fid), 0);
	assert_int_equal(fi_close(&set->fid), 0);
}

static void test_peer_set_empty(void **state)
{
	struct av_fixture *f = *state;
	struct fid_av_set *set = make_set(f, NULL, 0);
	struct fid_peer_av_set *peer;
	size_t n = 0;

	assert_int_equal(kav_av_set_peer_open(set, &peer), 0);
	assert_int_equal(peer->owner_ops->members(peer, NULL, &n), 0);
	assert_int_equal(n, 0);
	n = 4;
	assert_int_equal(peer->owner_ops->members(peer, NULL, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(fi_close(&peer->fid), 0);
	assert_int_equal(fi_close(&set->fid), 0);
}

static void test_mock_import_av_set(void **state)
{
	struct av_fixture *f = *state;
	const fi_addr_t m[] = { 3, 4, 0, 2 };
	struct fid_av_set *set = make_set(f, m, 4);
	struct fid_peer_av *peer_av = peer_open(f);
	struct fid_peer_av_set *peer_set;
	struct fi_peer_av_context actx = {
		.size = sizeof(actx), .av = peer_av,
	};
	struct fi_peer_av_set_context sctx = { .size = sizeof(sctx) };
	struct mock_peer_set_report rep;
	size_t i;

	assert_int_equal(kav_av_set_peer_open(set, &peer_set), 0);
	sctx.av_set = (struct fi_peer_av_set *)peer_set;	/* fi_peer.h */
	assert_int_equal(mock_peer_import_av_set(&actx, &sctx, &rep), 0);
	assert_int_equal(rep.av_open_ret, 0);
	assert_int_equal(rep.set_open_ret, 0);
	assert_int_equal(rep.probe_ret, -FI_ETOOSMALL);
	assert_int_equal(rep.probe_count, 4);
	assert_true(rep.short_tried);
	assert_int_equal(rep.short_ret, -FI_ETOOSMALL);
	assert_int_equal(rep.short_count, 4);
	assert_true(rep.short_untouched);
	assert_int_equal(rep.count, 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(rep.members[i], m[i]);
	assert_int_equal(rep.close_ret, 0);
	mock_peer_report_free(&rep);

	/* Without FI_PEER, or with no set in the context: refused. */
	sctx.av_set = NULL;
	assert_int_equal(mock_peer_import_av_set(&actx, &sctx, &rep),
			 -FI_EINVAL);
	assert_int_equal(rep.set_open_ret, -FI_EINVAL);

	assert_int_equal(fi_close(&peer_set->fid), 0);
	assert_int_equal(fi_close(&peer_av->fid), 0);
	assert_int_equal(fi_close(&set->fid), 0);
}

static int setup_rx(void **state)
{
	return open_all(state, FI_SOCKADDR_IN, 8);
}

/* query reports the attributes the AV was opened with. */
static void test_query_rx_bits(void **state)
{
	struct av_fixture *f = *state;
	struct fid_peer_av *peer = peer_open(f);
	struct fi_av_attr attr;

	assert_int_equal(peer->owner_ops->query(peer, &attr), 0);
	assert_int_equal(attr.rx_ctx_bits, 8);
	assert_int_equal(attr.type, FI_AV_TABLE);
	assert_int_equal(fi_close(&peer->fid), 0);
}

static int setup_str(void **state)
{
	return open_all(state, FI_ADDR_STR, 0);
}

static int setup_in6(void **state)
{
	return open_all(state, FI_SOCKADDR, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_peer_av_open, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_query, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_query_rx_bits, setup_rx,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_ep_addr, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_ep_addr_str, setup_str,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_ep_addr_in6, setup_in6,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_mock_import_av, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_peer_set_members, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_peer_set_empty, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_mock_import_av_set,
						setup_in, av_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
