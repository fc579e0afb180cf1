// SPDX-License-Identifier: GPL-2.0
/*
 * kav's in-kernel consumer API (kmod/kav_consumer.h,
 * Documentation/consumer-api.rst) through the model NIC (tests/doubles/nic), which
 * resolves from a timer (softirq) or an irq_work (hardirq) and tears its
 * "hardware" ring down in kav's revocation callback:
 *
 *   resolve_context      sends resolve in softirq, never in process context
 *   resolution_bytes     every byte of struct kav_resolution is written
 *                        (padding and the address's tail zero; all zero on
 *                        failure)
 *   revoke_softirq       GRANT_DEL while the timer resolves without pause:
 *   revoke_hardirq       when GRANT_DEL returns, the callback has run (in
 *                        process context) and torn the ring down, and no
 *                        resolve after it returned the revoked key; the
 *                        other key of the AV resolves on
 *   revoke_after_key_remove  the tenant sends under VNI_S (the ring holds
 *                        its descriptors), removes its entries under
 *                        VNI_S and the key's slot, then the admin revokes
 *                        VNI_S: GRANT_DEL returns after the callback tore
 *                        down every VNI_S descriptor (issue 34, R1: the
 *                        AV no longer holding the key must not opt the
 *                        NIC's state out of the revocation)
 *   null_revoke_refused  kav_consumer_get_notify() with ops whose .revoke
 *                        is NULL fails with EINVAL (the NIC's
 *                        KAV_NIC_BIND_NULL_REVOKE); the queue pair is
 *                        closed before anything is revoked, since a
 *                        module that accepts it would call NULL there
 *   unload_order         a consumer holds kav.ko: kav cannot be removed
 *                        while kav_nic holds one, kav_nic not while its
 *                        queue pair is open; released, kav_nic unloads,
 *                        then kav does (and is loaded again)
 *
 * The AV's even entries are under VNI_R (the domain key), the odd ones
 * under VNI_S. Runs as root in the test VM; loads kav_nic.ko ($KAV_NIC_MODULE, else
 * /tests/kav_nic.ko) and unloads it at the end.
 */

#include <kav/kav.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

#define VNI_R		4100	/* revoked while resolved */
#define VNI_S		4101	/* stays */
#define NR_EACH		128	/* entries under each key */

KAV_NIC_UNLOAD_AT_EXIT();

FIXTURE(consumer) {
	struct kav_nl nl;
	uint32_t g_r, g_s;
	int dom, av, nic;
	uint64_t h_s;
};

FIXTURE_SETUP(consumer)
{
	uint64_t fi;
	int i;

	self->g_r = self->g_s = 0;
	self->dom = self->av = self->nic = -1;
	ASSERT_EQ(0, kav_nl_open(&self->nl));
	ASSERT_EQ(0, kav_nic_load());
	/* Both keys granted to us (root), as an administrator would. */
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, VNI_R, geteuid(),
				      &self->g_r));
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, VNI_S, geteuid(),
				      &self->g_s));
	/* The domain key VNI_R is slot 0; VNI_S is another slot. */
	self->dom = kav_open_domain();
	ASSERT_LE(0, self->dom);
	ASSERT_EQ(0, kav_domain_set_key(self->dom, VNI_R));
	self->av = kav_create_av(self->dom, KAV_ADDR_SOCKADDR_IN, NULL);
	ASSERT_LE(0, self->av);
	ASSERT_EQ(0, kav_key_insert(self->av, VNI_S, &self->h_s));
	/* Even entries under VNI_R, odd ones under VNI_S. */
	for (i = 0; i < 2 * NR_EACH; i++) {
		ASSERT_EQ(0, kav_insert_one(self->av, 0x0a400000 + i, 7000,
					    i % 2 ? self->h_s : 0, &fi));
		ASSERT_EQ(i, fi);
	}
	self->nic = kav_nic_open();
	ASSERT_LE(0, self->nic);
	ASSERT_EQ(0, kav_nic_bind(self->nic, self->av));
}

FIXTURE_TEARDOWN(consumer)
{
	if (self->nic >= 0)
		close(self->nic);
	if (self->av >= 0)
		close(self->av);
	if (self->dom >= 0)
		close(self->dom);
	if (self->g_r)
		kav_nl_grant_del(&self->nl, self->g_r);
	if (self->g_s)
		kav_nl_grant_del(&self->nl, self->g_s);
	kav_nl_close(&self->nl);
}

static int nic_stats(int nic, struct kav_nic_stats *st)
{
	memset(st, 0, sizeof(*st));
	return ioctl(nic, KAV_NIC_IOC_STATS, st) ? -errno : 0;
}

static int nic_stream(int nic, uint64_t first, uint32_t count, uint32_t flags)
{
	struct kav_nic_stream s = { .first = first, .count = count,
				    .flags = flags };

	return ioctl(nic, KAV_NIC_IOC_STREAM_START, &s) ? -errno : 0;
}

static uint64_t nic_runs(const struct kav_nic_stats *st)
{
	return st->nr_softirq_runs + st->nr_hardirq_runs;
}

/* Wait (up to about 60 s) until the NIC made @more runs past @st's. */
static int nic_wait_runs(int nic, const struct kav_nic_stats *st,
			 uint64_t more, struct kav_nic_stats *now)
{
	uint64_t until = nic_runs(st) + more;	/* @st may be @now */
	int i;

	for (i = 0; i < 6000; i++) {
		if (nic_stats(nic, now))
			return -1;
		if (nic_runs(now) >= until)
			return 0;
		usleep(10000);
	}
	return -1;
}

TEST_F_TIMEOUT(consumer, resolve_context, 120)
{
	struct kav_nic_stats st;
	struct kav_nic_send s;

	ASSERT_EQ(0, kav_nic_send(self->nic, 2, &s));
	EXPECT_EQ(VNI_R, s.vni);
	EXPECT_EQ(KAV_NIC_KEYED, s.flags);
	ASSERT_EQ(0, kav_nic_send(self->nic, 3, &s));
	EXPECT_EQ(VNI_S, s.vni);
	EXPECT_EQ(-EINVAL, kav_nic_send(self->nic, 2 * NR_EACH, NULL));
	ASSERT_EQ(0, nic_stats(self->nic, &st));
	EXPECT_LE(3, st.nr_softirq_runs);
	EXPECT_EQ(0, st.nr_task_runs);
	EXPECT_EQ(0, st.nr_hardirq_runs);
}

TEST_F_TIMEOUT(consumer, resolution_bytes, 120)
{
	struct kav_nic_raw raw;
	uint32_t len, vni;
	uint64_t user_id;
	unsigned int i;

	ASSERT_EQ(0, kav_nic_send(self->nic, NR_EACH + 1, NULL));
	memset(&raw, 0, sizeof(raw));
	ASSERT_EQ(0, ioctl(self->nic, KAV_NIC_IOC_LAST_RES, &raw));
	/* addr[480], addr_len, addr_format, vni, keyed, __pad[3], user_id */
	ASSERT_EQ(KAV_ADDR_MAX_LEN + 24, raw.size);
	memcpy(&len, raw.res + KAV_ADDR_MAX_LEN, 4);
	memcpy(&vni, raw.res + KAV_ADDR_MAX_LEN + 8, 4);
	memcpy(&user_id, raw.res + KAV_ADDR_MAX_LEN + 16, 8);
	EXPECT_EQ(sizeof(struct sockaddr_in), len);
	EXPECT_EQ(VNI_S, vni);
	EXPECT_EQ(1, raw.res[KAV_ADDR_MAX_LEN + 12]);
	EXPECT_EQ(KAV_NONE, user_id);
	for (i = KAV_ADDR_MAX_LEN + 13; i < KAV_ADDR_MAX_LEN + 16; i++)
		EXPECT_EQ(0, raw.res[i]) TH_LOG("padding byte %u", i);
	for (i = len; i < KAV_ADDR_MAX_LEN; i++)
		if (raw.res[i])
			break;
	EXPECT_EQ(KAV_ADDR_MAX_LEN, i) TH_LOG("address byte %u not zero", i);

	/* A failed resolve leaves nothing behind either. */
	ASSERT_EQ(-EINVAL, kav_nic_send(self->nic, 2 * NR_EACH + 5, NULL));
	ASSERT_EQ(0, ioctl(self->nic, KAV_NIC_IOC_LAST_RES, &raw));
	for (i = 0; i < raw.size; i++)
		if (raw.res[i])
			break;
	EXPECT_EQ(raw.size, i) TH_LOG("byte %u not zero after EINVAL", i);
}

/*
 * GRANT_DEL of VNI_R while the NIC resolves all 2 * NR_EACH entries over
 * and over, from the timer (softirq) or from an irq_work (hardirq).
 */
static void revoke_during_resolves(struct __test_metadata *_metadata,
				   FIXTURE_DATA(consumer) *self,
				   uint32_t flags)
{
	struct kav_nic_stats st0, st1, st2;
	struct kav_nic_scan sc;

	ASSERT_EQ(0, nic_stream(self->nic, 0, 2 * NR_EACH, flags));
	memset(&st0, 0, sizeof(st0));
	ASSERT_EQ(0, nic_wait_runs(self->nic, &st0, 4, &st0));
	ASSERT_LT(0, st0.nr_ok);
	ASSERT_EQ(0, st0.nr_callbacks);

	ASSERT_EQ(0, kav_nl_grant_del(&self->nl, self->g_r));
	self->g_r = 0;
	/* GRANT_DEL has returned: the callback ran and tore the ring down. */
	ASSERT_EQ(0, nic_stats(self->nic, &st1));
	EXPECT_EQ(1, st1.nr_callbacks);
	EXPECT_EQ(VNI_R, st1.last_revoked_vni);
	EXPECT_EQ(0, st1.nr_callbacks_atomic);
	/* Even destinations held VNI_R descriptors: the callback took them. */
	EXPECT_EQ(KAV_NIC_RING / 2, st1.nr_torn_down);
	EXPECT_EQ(0, st1.nr_ring_revoked);
	EXPECT_EQ(0, st1.nr_stale);

	/* The NIC goes on: VNI_R never again, VNI_S as before. */
	ASSERT_EQ(0, nic_wait_runs(self->nic, &st1, 8, &st2));
	ASSERT_EQ(0, ioctl(self->nic, KAV_NIC_IOC_STREAM_STOP, 0));
	ASSERT_EQ(0, nic_stats(self->nic, &st2));
	EXPECT_EQ(0, st2.nr_stale);
	EXPECT_EQ(0, st2.nr_ring_revoked);
	EXPECT_LT(st1.nr_revoked, st2.nr_revoked);
	EXPECT_LT(st1.nr_ok, st2.nr_ok);
	EXPECT_EQ(1, st2.nr_callbacks);
	/* EACCES is right too: between the grant's removal and its slot's
	 * marking a resolve finds the slot live and the grant gone.
	 */
	EXPECT_EQ(0, st2.nr_other + st2.nr_invalid);
	EXPECT_EQ(0, st2.nr_task_runs);
	if (flags & KAV_NIC_STREAM_HARDIRQ) {
		EXPECT_LT(0, st2.nr_hardirq_runs);
	} else {
		EXPECT_EQ(0, st2.nr_hardirq_runs);
	}
	TH_LOG("runs %llu softirq %llu hardirq, ok %llu, revoked %llu, again %llu, torn down %llu",
	       (unsigned long long)st2.nr_softirq_runs,
	       (unsigned long long)st2.nr_hardirq_runs,
	       (unsigned long long)st2.nr_ok,
	       (unsigned long long)st2.nr_revoked,
	       (unsigned long long)st2.nr_again,
	       (unsigned long long)st2.nr_torn_down);

	/* And a scan agrees: VNI_R's entries revoked, VNI_S's resolve. */
	ASSERT_EQ(0, kav_nic_scan(self->nic, 0, 2 * NR_EACH, VNI_S, &sc));
	EXPECT_EQ(NR_EACH, sc.nr_revoked);
	EXPECT_EQ(NR_EACH, sc.nr_ok);
	EXPECT_EQ(NR_EACH, sc.nr_vni_match);
}

TEST_F_TIMEOUT(consumer, revoke_softirq, 180)
{
	revoke_during_resolves(_metadata, self, 0);
}

TEST_F_TIMEOUT(consumer, revoke_hardirq, 180)
{
	revoke_during_resolves(_metadata, self, KAV_NIC_STREAM_HARDIRQ);
}

/* Descriptors the revocation callbacks tore down between @st0 and @st1. */
static int ring_count(const struct kav_nic_stats *st0,
		      const struct kav_nic_stats *st1)
{
	return (int)(st1->nr_torn_down - st0->nr_torn_down);
}

TEST_F_TIMEOUT(consumer, revoke_after_key_remove, 180)
{
	struct kav_nic_stats st0, st1;
	uint64_t odd[NR_EACH];
	int i;

	/* Send to every destination: the ring holds both keys' descriptors. */
	ASSERT_EQ(0, nic_stream(self->nic, 0, 2 * NR_EACH, 0));
	memset(&st0, 0, sizeof(st0));
	ASSERT_EQ(0, nic_wait_runs(self->nic, &st0, 4, &st0));
	ASSERT_EQ(0, ioctl(self->nic, KAV_NIC_IOC_STREAM_STOP, 0));
	ASSERT_EQ(0, nic_stats(self->nic, &st0));
	ASSERT_LE(2 * NR_EACH, st0.nr_ok);
	ASSERT_EQ(0, st0.nr_callbacks);
	/* The tenant drops VNI_S: its entries, then its slot. */
	for (i = 0; i < NR_EACH; i++)
		odd[i] = 2 * i + 1;
	ASSERT_EQ(0, kav_remove(self->av, odd, NR_EACH, NULL));
	ASSERT_EQ(0, kav_key_remove(self->av, self->h_s));
	/* The NIC still holds what it built under VNI_S. */
	ASSERT_EQ(0, kav_nl_grant_del(&self->nl, self->g_s));
	self->g_s = 0;
	ASSERT_EQ(0, nic_stats(self->nic, &st1));
	EXPECT_EQ(1, st1.nr_callbacks);
	EXPECT_EQ(VNI_S, st1.last_revoked_vni);
	EXPECT_EQ(0, st1.nr_callbacks_atomic);
	/* Odd destinations held VNI_S descriptors: every one torn down. */
	EXPECT_EQ(KAV_NIC_RING / 2, ring_count(&st0, &st1))
		TH_LOG("%d of %d VNI_S descriptors torn down when GRANT_DEL returned",
		       ring_count(&st0, &st1), KAV_NIC_RING / 2);
	EXPECT_EQ(0, st1.nr_ring_revoked);
	EXPECT_EQ(0, st1.nr_stale);
}

static int nic_bind_ops(int nic, int av, uint32_t flags)
{
	struct kav_nic_bind b = { .fd = av, .flags = flags };

	return ioctl(nic, KAV_NIC_IOC_BIND_OPS, &b) ? -errno : 0;
}

TEST_F_TIMEOUT(consumer, null_revoke_refused, 120)
{
	int nic = kav_nic_open(), ret;

	ASSERT_LE(0, nic);
	/* The knob itself: unknown flags are the NIC's EINVAL. */
	EXPECT_EQ(-EINVAL, nic_bind_ops(nic, self->av, 0x80));
	ret = nic_bind_ops(nic, self->av, KAV_NIC_BIND_NULL_REVOKE);
	/*
	 * Accepted, the consumer is on kav's list, and the next revocation
	 * would call NULL: put it back before the fixture revokes anything.
	 */
	close(nic);
	EXPECT_EQ(-EINVAL, ret) TH_LOG("ops without .revoke were %s",
				       ret ? "refused, not with EINVAL" :
				       "accepted");
	/* With the callback, the same AV binds (the knob's other half). */
	nic = kav_nic_open();
	ASSERT_LE(0, nic);
	EXPECT_EQ(0, nic_bind_ops(nic, self->av, 0));
	close(nic);
}

/* delete_module(@name) without waiting: 0 or -errno. */
static int unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

TEST_F_TIMEOUT(consumer, unload_order, 180)
{
	struct kav_nic_stats st;
	int i, ret = -1;

	/* The NIC's consumer is the AV's only holder now. */
	ASSERT_EQ(0, nic_stream(self->nic, 0, 2 * NR_EACH, 0));
	close(self->av);
	close(self->dom);
	self->av = self->dom = -1;
	memset(&st, 0, sizeof(st));
	ASSERT_EQ(0, nic_wait_runs(self->nic, &st, 2, &st));
	EXPECT_LT(0, st.nr_ok);
	/* kav is held (kav_nic uses it, and its consumer holds the AV). */
	EXPECT_EQ(-EWOULDBLOCK, unload("kav"));
	/* kav_nic is held by its open queue pair. */
	EXPECT_EQ(-EWOULDBLOCK, unload("kav_nic"));
	/* Released (timer stopped, consumer put): kav_nic goes, then kav. */
	close(self->nic);
	self->nic = -1;
	ASSERT_EQ(0, kav_nic_unload());
	EXPECT_NE(0, access(KAV_NIC_PATH, F_OK));
	kav_nl_grant_del(&self->nl, self->g_r);
	kav_nl_grant_del(&self->nl, self->g_s);
	self->g_r = self->g_s = 0;
	kav_nl_close(&self->nl);
	for (i = 0; i < 200; i++) {
		ret = unload("kav");
		if (ret != -EWOULDBLOCK && ret != -EAGAIN)
			break;
		usleep(10000);	/* a file is still being released */
	}
	EXPECT_EQ(0, ret);
	/* Back for whatever runs next. */
	ASSERT_EQ(0, kav_module_load());
	ASSERT_EQ(0, kav_wait_for_device());
	ASSERT_EQ(0, kav_nl_open(&self->nl));
}

TEST_HARNESS_MAIN
