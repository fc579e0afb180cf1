// SPDX-License-Identifier: GPL-2.0
/*
 * Grant limits and accounts (issue 28, items 3, 9 and 10):
 *
 * - a charge that would pass a limit is never visible: GRANT_GET and
 *   WHOAMI never show nr_entries or nr_avs above the limit while a
 *   tenant's over-limit inserts and key inserts are being refused;
 * - one member of a group grant hammering over-limit batches never makes
 *   another member, under the limit, see EDQUOT;
 * - an entry is charged to the grant of its *writer* (not to the grant
 *   behind the key slot), and given back to that grant whoever removes
 *   it or when the AV ends: a writer of a shared AV is held to its own
 *   max-entries and drains nobody else's.
 *
 * The races run a fixed number of rounds (KAV_QUOTA_ROUNDS overrides),
 * cut short after VICTIM_SECONDS on a slow kernel; no time is judged.
 */
#include <sys/mman.h>
#include <time.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"
#include "kav_test_grants.h"

#define GID_Q		2310		/* the group grant's members */
#define UID_HOG		1321
#define UID_VICTIM	1322
#define UID_POLL	1323
#define VNI_Q		0x6101		/* gid GID_Q */
#define LIMIT_Q		8
#define LIMIT_Q_AVS	2

#define UID_OWNER	1331
#define UID_WRITER	1332
#define VNI_W		0x6102		/* uid UID_OWNER (no limit), UID_WRITER */
#define LIMIT_W		10

/* The victim's rounds stop after this long whatever their number. */
#define VICTIM_SECONDS	10

static unsigned long rounds(unsigned long dflt)
{
	const char *s = getenv("KAV_QUOTA_ROUNDS");

	return s ? strtoul(s, NULL, 0) : dflt;
}

static int become_member(uid_t uid)
{
	gid_t g = GID_Q;

	return kav_become(uid, GID_Q, 1, &g);
}

static uint32_t grant_gid(uint32_t vni, uint32_t gid, uint64_t limit_entries,
			  uint32_t limit_avs)
{
	struct kav_grant_spec s = { .vni = vni, .sel_type = KAV_SEL_GID,
				    .sel_id = gid,
				    .limit_entries = limit_entries,
				    .limit_avs = limit_avs };

	return kav_test_grant_spec(&s);
}

/* A keyed domain (key @vni) and a private AV of it: the AV fd or -errno. */
static int keyed_av(uint32_t vni, int *dom)
{
	int ret;

	*dom = kav_open_domain();
	if (*dom < 0)
		return -errno;
	ret = kav_domain_set_key(*dom, vni);
	if (ret)
		return ret;
	return kav_create_av(*dom, KAV_ADDR_SOCKADDR_IN, NULL);
}

/* The grant of key @vni that KAV_IOC_DOMAIN_WHOAMI shows on @dom. */
static int whoami_grant(int dom, uint32_t vni, struct kav_grant_info *out)
{
	struct kav_grant_info g[8];
	struct kav_whoami w = { .size = sizeof(w), .max_grants = 8,
				.grant_size = sizeof(g[0]),
				.grants = (uintptr_t)g };
	uint32_t i;

	if (ioctl(dom, KAV_IOC_DOMAIN_WHOAMI, &w))
		return -errno;
	for (i = 0; i < w.nr_grants && i < 8; i++) {
		if (g[i].vni == vni) {
			*out = g[i];
			return 0;
		}
	}
	return -ENOENT;
}

/* What the processes of one race share. */
struct race {
	volatile int stop;
	volatile int victim_ready;
	volatile int hog_ready;
	volatile int victim_done;
	volatile int hog_gone;		/* the hog has ended: the victim may */
	unsigned long hog_tries, hog_other;
	unsigned long hog_inserts_accepted, hog_keys_accepted;
	int hog_insert_ret, hog_key_ret;	/* the last not EDQUOT */
	unsigned long victim_edquot, victim_other, victim_rounds;
	unsigned long polls, poll_errors;
	uint64_t max_entries_seen;
	uint32_t max_avs_seen;
};

/* Count an over-limit call's answer: EDQUOT is right, anything else not. */
static void hog_answer(struct race *r, int ret, int *last,
		       unsigned long *accepted)
{
	if (ret == -EDQUOT)
		return;
	*last = ret;
	if (ret)
		r->hog_other++;
	else
		(*accepted)++;
}

/*
 * A member of the group grant at its limit but one entry: every batch of
 * two is over the limit (EDQUOT), as is every key insert once the grant's
 * two AVs are taken (its own and the victim's). Until told to stop.
 */
static int hog(void *arg)
{
	struct race *r = arg;
	struct sockaddr_in s[LIMIT_Q];
	int dom, av, dom2 = -1, av2 = -1, i;
	uint64_t h;

	CK_EQ(0, become_member(UID_HOG));
	while (!r->victim_ready)
		usleep(1000);
	av = keyed_av(VNI_Q, &dom);
	CK(av >= 0);
	for (i = 0; i < LIMIT_Q; i++)
		s[i] = kav_sin(0x0a610000 + i, 100);
	CK_EQ(0, kav_insert_in(av, s, LIMIT_Q - 1, NULL, NULL));
	/* A keyless domain's AV, to try inserting the key into. */
	dom2 = kav_open_domain();
	CK(dom2 >= 0);
	av2 = kav_create_av(dom2, KAV_ADDR_SOCKADDR_IN, NULL);
	CK(av2 >= 0);
	r->hog_ready = 1;
	while (!r->stop) {
		/* Over the limit: never accepted (another error is shown). */
		hog_answer(r, kav_insert_in(av, s, 2, NULL, NULL),
			   &r->hog_insert_ret, &r->hog_inserts_accepted);
		hog_answer(r, kav_key_insert(av2, VNI_Q, &h),
			   &r->hog_key_ret, &r->hog_keys_accepted);
		r->hog_tries++;
	}
	return 0;
}

/* Another member, one entry under the limit: insert it, remove it. */
static int victim(void *arg)
{
	struct race *r = arg;
	struct sockaddr_in s = kav_sin(0x0a620001, 200);
	unsigned long i, n = rounds(60000);
	int dom, av, ret;
	time_t t0;
	uint64_t fi;

	CK_EQ(0, become_member(UID_VICTIM));
	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(0, kav_domain_set_key(dom, VNI_Q));
	/* Its key's slot: one of the grant's two AVs. */
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	CK(av >= 0);
	r->victim_ready = 1;
	while (!r->hog_ready)
		usleep(1000);
	/* Bounded in work and, for slow (debug, TCG) kernels, in time. */
	t0 = time(NULL);
	for (i = 0; i < n; i++) {
		if (!(i % 256) && time(NULL) - t0 >= VICTIM_SECONDS)
			break;
		ret = kav_insert_in(av, &s, 1, &fi, NULL);
		if (ret == -EDQUOT) {
			r->victim_edquot++;
			continue;
		}
		if (ret) {
			r->victim_other++;
			continue;
		}
		CK_EQ(0, kav_remove(av, &fi, 1, NULL));
	}
	r->victim_rounds = i;
	/*
	 * Its AV stays, and with it the grant's second AV, until the hog has
	 * ended: closed any earlier, it would let the hog's next key insert
	 * in (within the limit, rightly accepted).
	 */
	r->victim_done = 1;
	while (!r->hog_gone)
		usleep(1000);
	return 0;
}

/* A member reading its grant through WHOAMI while the hog is refused. */
static int whoami_poller(void *arg)
{
	struct race *r = arg;
	struct kav_grant_info gi = { 0 };
	int dom;

	CK_EQ(0, become_member(UID_POLL));
	dom = kav_open_domain();
	CK(dom >= 0);
	while (!r->hog_ready)
		usleep(1000);
	while (!r->stop) {
		if (whoami_grant(dom, VNI_Q, &gi)) {
			r->poll_errors++;
			continue;
		}
		r->polls++;
		if (gi.nr_entries > r->max_entries_seen)
			r->max_entries_seen = gi.nr_entries;
		if (gi.nr_avs > r->max_avs_seen)
			r->max_avs_seen = gi.nr_avs;
	}
	return 0;
}

FIXTURE(quota) {
	uint32_t grants[4];
	int nr_grants;
	struct race *r;
};

FIXTURE_SETUP(quota)
{
	if (geteuid())
		SKIP(return, "needs root (grants, setuid)");
	self->nr_grants = 0;
	self->r = kav_shared(sizeof(*self->r));
	ASSERT_NE(NULL, self->r);
	memset(self->r, 0, sizeof(*self->r));
}

FIXTURE_TEARDOWN(quota)
{
	while (self->nr_grants > 0)
		kav_test_grant_del(self->grants[--self->nr_grants]);
	if (self->r)
		munmap(self->r, sizeof(*self->r));
}

static struct kav_nl_grant get_grant(struct __test_metadata *_metadata,
				     uint32_t id)
{
	struct kav_nl_grant g;
	struct kav_nl nl;

	memset(&g, 0, sizeof(g));
	if (kav_nl_open(&nl) == 0) {
		EXPECT_EQ(0, kav_nl_grant_get(&nl, id, &g));
		kav_nl_close(&nl);
	}
	return g;
}

/*
 * Items 10 and 9: while one member's batches and key inserts are refused
 * over and over, another member under the limit is never refused, and no
 * reader, administrator (GRANT_GET) or tenant (WHOAMI), ever sees the
 * grant's counts above its limits.
 */
TEST_F_TIMEOUT(quota, refused_charges_are_never_visible, 120)
{
	struct race *r = self->r;
	unsigned long admin_polls = 0;
	uint64_t max_e = 0;
	uint32_t max_a = 0, id;
	int vstatus = -1;
	pid_t h, v, p;
	struct kav_nl nl;
	struct kav_nl_grant g;

	id = grant_gid(VNI_Q, GID_Q, LIMIT_Q, LIMIT_Q_AVS);
	ASSERT_NE(0, id);
	self->grants[self->nr_grants++] = id;
	ASSERT_EQ(0, kav_nl_open(&nl));

	v = kav_spawn(victim, r);
	h = kav_spawn(hog, r);
	p = kav_spawn(whoami_poller, r);
	/* The administrator reads the grant until the victim is done. */
	while (!r->victim_done && waitpid(v, &vstatus, WNOHANG) == 0) {
		if (kav_nl_grant_get(&nl, id, &g))
			continue;
		admin_polls++;
		if (g.nr_entries > max_e)
			max_e = g.nr_entries;
		if (g.nr_avs > max_a)
			max_a = g.nr_avs;
	}
	r->stop = 1;
	EXPECT_EQ(0, kav_reap(h));
	r->hog_gone = 1;
	if (r->victim_done) {
		EXPECT_EQ(0, kav_reap(v));
	} else {	/* it ended without finishing its rounds */
		EXPECT_EQ(0, kav_wait_status(vstatus));
	}
	EXPECT_EQ(0, kav_reap(p));
	kav_nl_close(&nl);

	TH_LOG("victim: %lu rounds, %lu EDQUOT, %lu other errors; hog: %lu tries, accepted %lu inserts and %lu key inserts, %lu other errors (last: insert %d, key insert %d)",
	       r->victim_rounds, r->victim_edquot, r->victim_other,
	       r->hog_tries, r->hog_inserts_accepted, r->hog_keys_accepted,
	       r->hog_other, r->hog_insert_ret, r->hog_key_ret);
	TH_LOG("GRANT_GET: %lu reads, max nr_entries %llu nr_avs %u; WHOAMI: %lu reads, max nr_entries %llu nr_avs %u",
	       admin_polls, (unsigned long long)max_e, max_a, r->polls,
	       (unsigned long long)r->max_entries_seen, r->max_avs_seen);
	EXPECT_NE(0, r->victim_rounds);
	EXPECT_EQ(0, r->victim_edquot);
	EXPECT_EQ(0, r->victim_other);
	EXPECT_NE(0, r->hog_tries);
	EXPECT_EQ(0, r->hog_inserts_accepted);
	EXPECT_EQ(0, r->hog_keys_accepted);
	EXPECT_NE(0, admin_polls);
	EXPECT_NE(0, r->polls);
	EXPECT_GE(LIMIT_Q, max_e);
	EXPECT_GE(LIMIT_Q_AVS, max_a);
	EXPECT_GE(LIMIT_Q, r->max_entries_seen);
	EXPECT_GE(LIMIT_Q_AVS, r->max_avs_seen);

	/* Everyone is gone: nothing stays charged. */
	g = get_grant(_metadata, id);
	EXPECT_EQ(0, g.nr_entries);
	EXPECT_EQ(0, g.nr_avs);
}

/* ------------------------------------------------ writer-charged entries */

/* Owner and writer, stepped by the parent. */
struct share {
	struct kav_sync owner, writer;
	uint64_t fi_w[16];		/* the writer's entries */
	uint64_t fi_o[8];		/* the owner's */
};

#define SHARED_NAME	"kav-quota-shared"

static int owner_fn(void *arg)
{
	struct share *sh = arg;
	struct sockaddr_in s[5];
	uint64_t all[16];
	int dom, av, i, n = 0;
	struct kav_av_create c = {
		.size = sizeof(c), .flags = KAV_AV_NAMED | KAV_AV_EXCL,
		.addr_format = KAV_ADDR_SOCKADDR_IN,
		.name = (uintptr_t)SHARED_NAME,
		.name_len = sizeof(SHARED_NAME) - 1, .mode = 0666,
	};

	CK_EQ(0, kav_become(UID_OWNER, UID_OWNER, 0, NULL));
	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(0, kav_domain_set_key(dom, VNI_W));
	CK_EQ(0, ioctl(dom, KAV_IOC_AV_CREATE, &c));
	av = c.fd;
	for (i = 0; i < 5; i++)
		s[i] = kav_sin(0x0a630000 + i, 300);
	/* 1: three of its own, charged to its grant. */
	CK_EQ(0, kav_insert_in(av, s, 3, sh->fi_o, NULL));
	CK_EQ(0, kav_tell_parent(&sh->owner, 1));
	/* 2: two more once the writer's are in, then it removes the writer's. */
	CK_EQ(2, kav_wait_parent(&sh->owner));
	CK_EQ(0, kav_insert_in(av, s + 3, 2, sh->fi_o + 3, NULL));
	CK_EQ(0, kav_remove(av, sh->fi_w, LIMIT_W, NULL));
	CK_EQ(0, kav_tell_parent(&sh->owner, 2));
	/* 3: everything left, its own and the writer's, in one batch. */
	CK_EQ(3, kav_wait_parent(&sh->owner));
	for (i = 0; i < 5; i++)
		all[n++] = sh->fi_o[i];
	for (i = 0; i < 4; i++)
		all[n++] = sh->fi_w[LIMIT_W + i];
	CK_EQ(0, kav_remove(av, all, n, NULL));
	CK_EQ(0, kav_tell_parent(&sh->owner, 3));
	/* 4: it closes; the writer's entries go with the AV. */
	CK_EQ(4, kav_wait_parent(&sh->owner));
	return 0;
}

static int writer_fn(void *arg)
{
	struct share *sh = arg;
	struct sockaddr_in s[LIMIT_W + 8];
	struct kav_av_create c = {
		.size = sizeof(c), .flags = KAV_AV_NAMED | KAV_AV_OWNER,
		.addr_format = KAV_ADDR_SOCKADDR_IN,
		.name = (uintptr_t)SHARED_NAME,
		.name_len = sizeof(SHARED_NAME) - 1, .owner_uid = UID_OWNER,
	};
	int dom, av, i;
	uint64_t fi;

	CK_EQ(0, kav_become(UID_WRITER, UID_WRITER, 0, NULL));
	for (i = 0; i < LIMIT_W + 8; i++)
		s[i] = kav_sin(0x0a640000 + i, 400);
	CK_EQ(1, kav_wait_parent(&sh->writer));
	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(0, kav_domain_set_key(dom, VNI_W));
	CK_EQ(0, ioctl(dom, KAV_IOC_AV_CREATE, &c));
	av = c.fd;
	/* 1: up to its own limit, under the owner's key slot, then refused. */
	for (i = 0; i < LIMIT_W; i++)
		CK_EQ(0, kav_insert_in(av, &s[i], 1, &sh->fi_w[i], NULL));
	CK_EQ(-EDQUOT, kav_insert_in(av, &s[LIMIT_W], 1, &fi, NULL));
	CK_EQ(0, kav_tell_parent(&sh->writer, 1));
	/* 2: its entries were removed by the owner: room again. */
	CK_EQ(2, kav_wait_parent(&sh->writer));
	CK_EQ(0, kav_insert_in(av, &s[LIMIT_W], 4, &sh->fi_w[LIMIT_W], NULL));
	CK_EQ(0, kav_tell_parent(&sh->writer, 2));
	/* 3: two more, left in the AV when it ends. */
	CK_EQ(3, kav_wait_parent(&sh->writer));
	CK_EQ(0, kav_insert_in(av, &s[LIMIT_W + 4], 2, NULL, NULL));
	CK_EQ(0, kav_tell_parent(&sh->writer, 3));
	CK_EQ(4, kav_wait_parent(&sh->writer));
	return 0;
}

/*
 * Item 3: in a shared named AV, a writer's entries are charged to the
 * writer's grant for the key, not to the grant behind the key slot (the
 * owner's): the writer meets its own limit, the owner's count does not
 * move, and every entry is given back to the grant it was charged to,
 * whoever removes it and when the AV ends.
 */
TEST_F(quota, writer_is_charged_not_the_slot_owner)
{
	struct share *sh = kav_shared(sizeof(*sh));
	struct kav_nl_grant ga, gb;
	uint32_t a, b;
	pid_t po, pw;

	ASSERT_NE(NULL, sh);
	ASSERT_EQ(0, kav_sync_init(&sh->owner));
	ASSERT_EQ(0, kav_sync_init(&sh->writer));
	a = kav_test_grant_one(VNI_W, UID_OWNER, 0);
	ASSERT_NE(0, a);
	self->grants[self->nr_grants++] = a;
	b = kav_test_grant_one(VNI_W, UID_WRITER, LIMIT_W);
	ASSERT_NE(0, b);
	self->grants[self->nr_grants++] = b;

	po = kav_spawn(owner_fn, sh);
	pw = kav_spawn(writer_fn, sh);
	ASSERT_EQ(1, kav_wait_child(&sh->owner));
	ga = get_grant(_metadata, a);
	EXPECT_EQ(3, ga.nr_entries);
	EXPECT_EQ(1, ga.nr_avs);

	/* The writer fills its own limit under the owner's slot. */
	ASSERT_EQ(0, kav_tell_child(&sh->writer, 1));
	ASSERT_EQ(1, kav_wait_child(&sh->writer));
	ga = get_grant(_metadata, a);
	gb = get_grant(_metadata, b);
	EXPECT_EQ(3, ga.nr_entries);
	EXPECT_EQ(LIMIT_W, gb.nr_entries);
	EXPECT_EQ(1, ga.nr_avs);
	EXPECT_EQ(0, gb.nr_avs);

	/* The owner adds two and removes the writer's ten. */
	ASSERT_EQ(0, kav_tell_child(&sh->owner, 2));
	ASSERT_EQ(2, kav_wait_child(&sh->owner));
	ga = get_grant(_metadata, a);
	gb = get_grant(_metadata, b);
	EXPECT_EQ(5, ga.nr_entries);
	EXPECT_EQ(0, gb.nr_entries);

	ASSERT_EQ(0, kav_tell_child(&sh->writer, 2));
	ASSERT_EQ(2, kav_wait_child(&sh->writer));
	gb = get_grant(_metadata, b);
	EXPECT_EQ(4, gb.nr_entries);

	/* One batch removes entries charged to both grants. */
	ASSERT_EQ(0, kav_tell_child(&sh->owner, 3));
	ASSERT_EQ(3, kav_wait_child(&sh->owner));
	ga = get_grant(_metadata, a);
	gb = get_grant(_metadata, b);
	EXPECT_EQ(0, ga.nr_entries);
	EXPECT_EQ(0, gb.nr_entries);

	/* The writer leaves two in the AV; the AV's end gives them back. */
	ASSERT_EQ(0, kav_tell_child(&sh->writer, 3));
	ASSERT_EQ(3, kav_wait_child(&sh->writer));
	gb = get_grant(_metadata, b);
	EXPECT_EQ(2, gb.nr_entries);
	ASSERT_EQ(0, kav_tell_child(&sh->owner, 4));
	ASSERT_EQ(0, kav_tell_child(&sh->writer, 4));
	EXPECT_EQ(0, kav_reap(po));
	EXPECT_EQ(0, kav_reap(pw));
	ga = get_grant(_metadata, a);
	gb = get_grant(_metadata, b);
	EXPECT_EQ(0, ga.nr_entries);
	EXPECT_EQ(0, gb.nr_entries);
	EXPECT_EQ(0, ga.nr_avs);
	EXPECT_EQ(0, gb.nr_avs);

	kav_sync_close(&sh->owner);
	kav_sync_close(&sh->writer);
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
