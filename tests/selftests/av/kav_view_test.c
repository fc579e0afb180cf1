// SPDX-License-Identifier: GPL-2.0
/*
 * kav_view_test: the inline reader (<kav/kav_view.h>) through the real
 * /dev/kav and libkav.
 *
 *  - every answer equals kav_av_resolve()'s, for entries inserted before
 *    and after the view was set up (the bound and the key cache follow),
 *    and every bad fi_addr is refused;
 *  - a revocation is seen by the next resolve, on a view that cached the
 *    key as good;
 *  - races: readers resolving one index while a writer replaces its entry
 *    (address and key change together) never see a torn pair, and a
 *    reader never answers with a good key once a revocation it could
 *    know of has returned.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <kav/kav.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

#define VNI_DOM		0x7101	/* the AV's first key */
#define VNI_OTHER	0x7102	/* its second key, the one revoked */
#define NR_ENTRIES	300	/* several table pages */
#define RACE_SECONDS	3
#define REVOKE_ROUNDS	40

FIXTURE(view) {
	struct kav_nl nl;
	uint32_t grant_dom, grant_other;
	struct fid_domain *dom;
	struct fid_av *av;
	fi_addr_t mine;		/* VNI_DOM's key handle in av */
	fi_addr_t other;	/* VNI_OTHER's */
};

static uint32_t grant(struct __test_metadata *_metadata, struct kav_nl *nl,
		      uint32_t vni)
{
	uint32_t id = 0;
	int ret = kav_nl_grant_uid(nl, vni, geteuid(), &id);

	EXPECT_EQ(0, ret) TH_LOG("grant of vni %#x: %s", vni, strerror(-ret));
	return id;
}

/* An AV holding VNI_DOM and VNI_OTHER (domain with per-AV keys). */
static void open_av(struct __test_metadata *_metadata,
		    FIXTURE_DATA(view) *self)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct kav_auth_key mine = { .vni = VNI_DOM };
	struct kav_auth_key other = { .vni = VNI_OTHER };

	ASSERT_EQ(0, fi_av_open(self->dom, &attr, &self->av, NULL));
	ASSERT_EQ(0, fi_av_insert_auth_key(self->av, &mine, sizeof(mine),
					   &self->mine, 0));
	ASSERT_EQ(0, fi_av_insert_auth_key(self->av, &other, sizeof(other),
					   &self->other, 0));
}

static int open_domain(struct fid_domain **dom)
{
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };

	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	dattr.auth_key_size = FI_AV_AUTH_KEY;
	return kav_domain_open(&info, dom, NULL);
}

FIXTURE_SETUP(view)
{
	self->dom = NULL;
	self->av = NULL;
	ASSERT_EQ(0, kav_nl_open(&self->nl)) {
		TH_LOG("no kav generic netlink family: is kav.ko loaded?");
	}
	setenv("KAV_LOG", "none", 1);
	self->grant_dom = grant(_metadata, &self->nl, VNI_DOM);
	self->grant_other = grant(_metadata, &self->nl, VNI_OTHER);
	ASSERT_EQ(0, open_domain(&self->dom));
	open_av(_metadata, self);
}

FIXTURE_TEARDOWN(view)
{
	if (self->av)
		fi_close(&self->av->fid);
	if (self->dom)
		fi_close(&self->dom->fid);
	if (self->grant_other)
		kav_nl_grant_del(&self->nl, self->grant_other);
	kav_nl_grant_del(&self->nl, self->grant_dom);
	kav_nl_close(&self->nl);
}

static struct sockaddr_in addr_of(uint32_t i)
{
	return kav_sin(0x0a100000 + i, (uint16_t)(5000 + i));
}

/* Insert address @i bound to key handle @key. */
static int insert(struct fid_av *av, uint32_t i, fi_addr_t key,
		  fi_addr_t *fa)
{
	struct sockaddr_in sin = addr_of(i);

	*fa = key;
	return fi_av_insert(av, &sin, 1, fa, FI_AUTH_KEY, NULL);
}

/* The view's answer for @fa equals kav_av_resolve()'s. */
static void same_as_resolve(struct __test_metadata *_metadata,
			    struct fid_av *av, struct kav_view *view,
			    fi_addr_t fa)
{
	struct kav_view_entry ent;
	struct kav_resolved r;
	int rv, rr;

	rv = kav_view_resolve(view, fa, &ent);
	rr = kav_av_resolve(av, fa, &r);
	ASSERT_EQ(rr, rv) TH_LOG("fi_addr %#llx", (unsigned long long)fa);
	if (rr && rr != -FI_EKEYREJECTED)
		return;
	EXPECT_EQ(r.addr, ent.addr);
	EXPECT_EQ(r.addr_len, ent.addr_len);
	EXPECT_EQ(r.vni, ent.vni);
	EXPECT_EQ(r.user_id, ent.user_id);
	EXPECT_EQ(r.seq, ent.seq);
	EXPECT_EQ(r.key == FI_ADDR_NOTAVAIL ? KAV_NONE :
		  (r.key & ~KAV_FI_ADDR_KEY), ent.key);
	EXPECT_EQ(ent.seq, kav_view_entry_seq(view, &ent));
}

TEST_F(view, answers_as_resolve)
{
	fi_addr_t fa[NR_ENTRIES], gone;
	struct kav_view_entry ent;
	struct sockaddr_in sin;
	struct kav_view view;
	uint32_t i;

	EXPECT_EQ(-FI_EINVAL, kav_view_init(NULL, &view));
	EXPECT_EQ(-FI_EINVAL, kav_view_init(self->av, NULL));
	/* Half before the view exists, half after (the bound grows). */
	for (i = 0; i < NR_ENTRIES / 2; i++)
		ASSERT_EQ(1, insert(self->av, i,
				    i % 3 ? self->mine : self->other,
				    &fa[i]));
	ASSERT_EQ(0, kav_view_init(self->av, &view));
	for (; i < NR_ENTRIES; i++)
		ASSERT_EQ(1, insert(self->av, i,
				    i % 3 ? self->mine : self->other,
				    &fa[i]));
	for (i = 0; i < NR_ENTRIES; i++) {
		same_as_resolve(_metadata, self->av, &view, fa[i]);
		ASSERT_EQ(0, kav_view_resolve(&view, fa[i], &ent));
		sin = addr_of(i);
		EXPECT_EQ(sizeof(sin), ent.addr_len);
		EXPECT_EQ(0, memcmp(ent.addr, &sin, sizeof(sin)));
		EXPECT_EQ(i % 3 ? VNI_DOM : VNI_OTHER, ent.vni);
		/* Group and rx-context bits are not part of the index. */
		EXPECT_EQ(0, kav_view_resolve(&view, fi_group_addr(fa[i], 7),
					      &ent));
	}

	/* A key added after the view was set up: the cache follows. */
	{
		struct kav_auth_key key = { .vni = VNI_DOM + 0x100 };
		uint32_t id = grant(_metadata, &self->nl, key.vni);
		fi_addr_t handle, late;

		ASSERT_EQ(0, fi_av_insert_auth_key(self->av, &key,
						   sizeof(key), &handle, 0));
		ASSERT_EQ(1, insert(self->av, NR_ENTRIES, handle, &late));
		ASSERT_EQ(0, kav_view_resolve(&view, late, &ent));
		EXPECT_EQ(key.vni, ent.vni);
		same_as_resolve(_metadata, self->av, &view, late);
		ASSERT_EQ(0, fi_av_remove(self->av, &late, 1, 0));
		ASSERT_EQ(0, fi_av_remove(self->av, &handle, 1, FI_AUTH_KEY));
		kav_nl_grant_del(&self->nl, id);
	}

	/* Refusals. */
	gone = fa[NR_ENTRIES - 1];
	ASSERT_EQ(0, fi_av_remove(self->av, &gone, 1, 0));
	EXPECT_EQ(-FI_EINVAL, kav_view_resolve(&view, gone, &ent));
	EXPECT_EQ(-FI_EINVAL, kav_view_resolve(&view, FI_ADDR_NOTAVAIL, &ent));
	EXPECT_EQ(-FI_EINVAL, kav_view_resolve(&view, self->other, &ent));
	EXPECT_EQ(-FI_EINVAL, kav_view_resolve(&view, NR_ENTRIES + 100, &ent));
	EXPECT_EQ(-FI_EINVAL, kav_view_resolve(&view, KAV_FI_ADDR_INDEX_MAX,
					       &ent));
	EXPECT_EQ(-FI_EINVAL, kav_view_resolve_slow(&view, gone, NULL));
}

TEST_F(view, revocation_seen_at_once)
{
	struct kav_view_entry ent;
	struct kav_view view;
	fi_addr_t mine, theirs;

	ASSERT_EQ(1, insert(self->av, 1, self->mine, &mine));
	ASSERT_EQ(1, insert(self->av, 2, self->other, &theirs));
	ASSERT_EQ(0, kav_view_init(self->av, &view));
	ASSERT_EQ(0, kav_view_resolve(&view, theirs, &ent));
	EXPECT_EQ(VNI_OTHER, ent.vni);

	/* The view cached VNI_OTHER as good; the next resolve knows. */
	ASSERT_EQ(0, kav_nl_grant_del(&self->nl, self->grant_other));
	self->grant_other = 0;
	EXPECT_EQ(-FI_EKEYREJECTED, kav_view_resolve(&view, theirs, &ent));
	EXPECT_EQ(VNI_OTHER, ent.vni);
	same_as_resolve(_metadata, self->av, &view, theirs);
	/* The other key is untouched. */
	EXPECT_EQ(0, kav_view_resolve(&view, mine, &ent));
	EXPECT_EQ(VNI_DOM, ent.vni);
}

/* ------------------------------------------------------------- races */

struct race {
	struct fid_av *av;
	fi_addr_t index;		/* the one index the writer reuses */
	atomic_bool stop;
	atomic_uint_fast64_t reads, torn, changed;
};

/*
 * Reader: each good answer must pair address i with the key the writer
 * bound it to (even i: the domain's key; odd: VNI_OTHER), unless the
 * entry changed under the read (kav_view_entry_seq() says so).
 */
static void *torn_reader(void *arg)
{
	struct race *r = arg;
	struct kav_view_entry ent;
	struct kav_view view;
	struct sockaddr_in sin;
	uint32_t i;

	if (kav_view_init(r->av, &view))
		return (void *)1;
	while (!atomic_load(&r->stop)) {
		if (kav_view_resolve(&view, r->index, &ent))
			continue;	/* between remove and insert */
		memcpy(&sin, ent.addr, sizeof(sin));
		if (kav_view_entry_seq(&view, &ent) != ent.seq) {
			atomic_fetch_add(&r->changed, 1);
			continue;
		}
		i = ntohl(sin.sin_addr.s_addr) - 0x0a100000;
		if (ent.addr_len != sizeof(sin) ||
		    ntohs(sin.sin_port) != 5000 + i ||
		    ent.vni != (i & 1 ? VNI_OTHER : VNI_DOM))
			atomic_fetch_add(&r->torn, 1);
		atomic_fetch_add(&r->reads, 1);
	}
	return NULL;
}

TEST_F_TIMEOUT(view, race_no_torn_read, 60)
{
	struct race r = { .av = self->av };
	pthread_t readers[2];
	fi_addr_t fa;
	uint32_t i;
	time_t end;
	int t;

	ASSERT_EQ(1, insert(self->av, 0, self->mine, &r.index));
	for (t = 0; t < 2; t++)
		ASSERT_EQ(0, pthread_create(&readers[t], NULL, torn_reader,
					    &r));
	end = time(NULL) + RACE_SECONDS;
	for (i = 1; time(NULL) < end; i++) {
		fa = r.index;
		ASSERT_EQ(0, fi_av_remove(self->av, &fa, 1, 0));
		/* The lowest free index: the same one again. */
		ASSERT_EQ(1, insert(self->av, i,
				    i & 1 ? self->other : self->mine,
				    &fa));
		ASSERT_EQ(r.index, fa);
	}
	atomic_store(&r.stop, true);
	for (t = 0; t < 2; t++) {
		void *ret;

		pthread_join(readers[t], &ret);
		EXPECT_EQ(NULL, ret);
	}
	TH_LOG("%u replacements, %llu consistent reads, %llu changed under "
	       "the reader", i, (unsigned long long)atomic_load(&r.reads),
	       (unsigned long long)atomic_load(&r.changed));
	EXPECT_EQ(0, atomic_load(&r.torn));
	/* The race ran: readers got answers while the writer worked. */
	EXPECT_LT(0, atomic_load(&r.reads));
}

struct revoke_race {
	struct fid_av *av;
	fi_addr_t fa;
	atomic_int phase;		/* 0 start, 1 view ready, 2 revoked */
	int stale;			/* good answers after phase 2 */
	int after;			/* answers after phase 2 */
};

/*
 * Resolve in a loop; once the revocation has returned (phase 2, seen
 * before the resolve began), every answer must be -FI_EKEYREJECTED.
 */
static void *revoke_reader(void *arg)
{
	struct revoke_race *r = arg;
	struct kav_view_entry ent;
	struct kav_view view;
	int phase, ret;

	if (kav_view_init(r->av, &view))
		return (void *)1;
	atomic_store(&r->phase, 1);
	do {
		phase = atomic_load(&r->phase);
		ret = kav_view_resolve(&view, r->fa, &ent);
		if (phase == 2) {
			r->after++;
			if (ret != -FI_EKEYREJECTED)
				r->stale++;
		}
	} while (r->after < 1000);
	return NULL;
}

TEST_F_TIMEOUT(view, race_no_stale_key_after_revoke, 120)
{
	int round, stale = 0;

	for (round = 0; round < REVOKE_ROUNDS; round++) {
		struct revoke_race r = { 0 };
		pthread_t reader;
		void *ret;

		/* A fresh AV each round: a revoked slot stays revoked. */
		if (round) {
			ASSERT_EQ(0, fi_close(&self->av->fid));
			self->av = NULL;
			self->grant_other = grant(_metadata, &self->nl,
						  VNI_OTHER);
			open_av(_metadata, self);
		}
		r.av = self->av;
		ASSERT_EQ(1, insert(self->av, round, self->other, &r.fa));
		ASSERT_EQ(0, pthread_create(&reader, NULL, revoke_reader, &r));
		while (atomic_load(&r.phase) != 1)
			sched_yield();
		/* Let it resolve the good key for a moment, a varied one. */
		usleep(100 * (round % 10));
		ASSERT_EQ(0, kav_nl_grant_del(&self->nl, self->grant_other));
		self->grant_other = 0;
		atomic_store(&r.phase, 2);
		pthread_join(reader, &ret);
		EXPECT_EQ(NULL, ret);
		stale += r.stale;
	}
	EXPECT_EQ(0, stale) TH_LOG("%d good answers after a revocation", stale);
}

TEST_HARNESS_MAIN
