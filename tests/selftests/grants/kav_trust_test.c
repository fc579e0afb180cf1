// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 14, "Trust": the attacks an independent review made on 15fc615,
 * played again by unprivileged tenants (other uids, other cgroups, second
 * processes, several threads on one fd). Each case asserts the values the
 * rules of uapi/linux/kav.h give, so that each fails on a module that
 * still has the hole it is named after:
 *
 *   shared_av_writer_binds_only_own_keys  a writer of a shared AV binds
 *	addresses only to keys it holds a grant for, never to the
 *	creator's; a NIC resolves only what its own opener may use
 *   name_squatting          names are per user: a squatter's AV is never
 *	the victim's; MPI instant-on still works
 *   reader_cannot_block_key_remove        a read-only fd only maps
 *   small_*                 PROT_EXEC mappings, KAV_ADDR_STR bytes,
 *	KEY_INSERT's reply, a full memory cgroup, KAV_AV_OWNER checks
 *   race_insert_efault_remove             insert, mprotect of its output
 *	and remove racing on one fd: every counter and entry stays right.
 *	Last, because on 15fc615 it oopses with the table lock held.
 *
 * Runs as root in the test VM; the tenants are children that drop to
 * their own uids (and cgroups). kav_nic.ko is loaded from $KAV_NIC_MODULE
 * (else /tests/kav_nic.ko) and unloaded at the end.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <kav/kav.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

KAV_NIC_UNLOAD_AT_EXIT();

/* ----------------------------------------------------------- fixture */

#define MAX_GRANTS	16

FIXTURE(trust) {
	struct kav_nl nl;
	uint32_t grants[MAX_GRANTS];
	int nr_grants;
	int keyless;		/* allow_keyless before the test */
	bool memory_enabled;	/* the test added +memory at the root */
};

FIXTURE_SETUP(trust)
{
	self->nr_grants = 0;
	self->memory_enabled = false;
	self->keyless = kav_get_allow_keyless();
	ASSERT_LE(0, self->keyless) TH_LOG("kav.ko not loaded?");
	/* The module's default; a test that needs keyless entries says so. */
	ASSERT_EQ(0, kav_set_allow_keyless(false));
	ASSERT_EQ(0, kav_nl_open(&self->nl));
	ASSERT_EQ(0, kav_nic_load()) TH_LOG("cannot load kav_nic.ko");
}

FIXTURE_TEARDOWN(trust)
{
	int i;

	for (i = 0; i < self->nr_grants; i++)
		kav_nl_grant_del(&self->nl, self->grants[i]);
	if (self->keyless >= 0)
		kav_set_allow_keyless(self->keyless);
	if (self->memory_enabled)
		kav_cgroup_write("", "cgroup.subtree_control", "-memory");
	kav_nl_close(&self->nl);
}

/* Add a grant that the teardown revokes; its id, 0 on failure. */
static uint32_t add_grant(struct __test_metadata *_metadata,
			  FIXTURE_DATA(trust) *self,
			  const struct kav_grant_spec *s)
{
	struct kav_nl_grant g;
	int ret = kav_nl_grant_add(&self->nl, s, &g);

	EXPECT_EQ(0, ret) TH_LOG("GRANT_ADD vni %u: %s (%s)", s->vni,
				 strerror(-ret), self->nl.ext_msg);
	if (ret || self->nr_grants == MAX_GRANTS)
		return 0;
	self->grants[self->nr_grants++] = g.id;
	return g.id;
}

/* Leave grant @id to the test: the teardown will not revoke it. */
static void forget_grant(FIXTURE_DATA(trust) *self, uint32_t id)
{
	int i;

	for (i = 0; i < self->nr_grants; i++)
		if (self->grants[i] == id)
			self->grants[i] = self->grants[--self->nr_grants];
}

/* Revoke a grant add_grant() added, now rather than at teardown. */
static int revoke_grant(FIXTURE_DATA(trust) *self, uint32_t id)
{
	forget_grant(self, id);
	return kav_nl_grant_del(&self->nl, id);
}

static uint32_t grant_uid(struct __test_metadata *_metadata,
			  FIXTURE_DATA(trust) *self, uint32_t vni,
			  uint32_t uid)
{
	struct kav_grant_spec s = { .vni = vni, .sel_type = KAV_SEL_UID,
				    .sel_id = uid };

	return add_grant(_metadata, self, &s);
}

static uint32_t grant_cgroup(struct __test_metadata *_metadata,
			     FIXTURE_DATA(trust) *self, uint32_t vni,
			     const char *cgroup)
{
	struct kav_grant_spec s = { .vni = vni, .sel_type = KAV_SEL_CGROUP,
				    .cgroup_path = cgroup };

	return add_grant(_metadata, self, &s);
}

/* Grant @id as GRANT_GET lists it: 0, -ENOENT, or -errno. */
static int grant_find(struct kav_nl *nl, uint32_t id, struct kav_nl_grant *out)
{
	static struct kav_nl_grant g[64];
	size_t n, i;
	int ret = kav_nl_grants(nl, g, 64, &n);

	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (g[i].id == id) {
			*out = g[i];
			return 0;
		}
	}
	return -ENOENT;
}

/* Every AV AV_GET lists under one name: id, owner uid, entries. */
struct named_rows {
	const char *name;
	int n;
	struct {
		uint32_t id, uid;
		uint64_t entries;
	} r[8];
};

static int named_rows_cb(const struct nlmsghdr *nlh,
			 const struct genlmsghdr *gh,
			 const struct kav_nl_attrs *at, void *arg)
{
	struct named_rows *rows = arg;
	const struct nlattr *name = at->a[KAV_A_AV_NAME];
	size_t len = strlen(rows->name);

	if (!name || kav_nl_len(name) != (int)len ||
	    memcmp(kav_nl_data(name), rows->name, len) || rows->n == 8)
		return 0;
	rows->r[rows->n].id = kav_nl_u32(at->a[KAV_A_AV_ID]);
	rows->r[rows->n].uid = kav_nl_u32(at->a[KAV_A_UID]);
	rows->r[rows->n].entries = kav_nl_u64(at->a[KAV_A_NR_ENTRIES]);
	rows->n++;
	return 0;
}

static int named_rows(struct kav_nl *nl, const char *name,
		      struct named_rows *rows)
{
	memset(rows, 0, sizeof(*rows));
	rows->name = name;
	return kav_nl_dump(nl, KAV_GENL_CMD_AV_GET, -1, named_rows_cb, rows);
}

/* The key slot that holds @vni in a mapped table, or -1. */
static int slot_of(const volatile struct kav_table_header *h, uint32_t vni)
{
	int k;

	for (k = 0; k < KAV_MAX_AUTH_KEYS; k++)
		if ((kav_slot(h, k)->flags & KAV_KEY_VALID) &&
		    kav_slot(h, k)->vni == vni)
			return k;
	return -1;
}

/* A KAV_IOC_AV_CREATE request as built; the fd or -errno. */
static int create_raw(int dom, struct kav_av_create *c)
{
	return ioctl(dom, KAV_IOC_AV_CREATE, c) ? -errno : c->fd;
}

#define FMT_IN		KAV_ADDR_SOCKADDR_IN
#define STEP_MS		60000	/* longest a step of a child may take */

/* ======================= 1. a writer of a shared AV, two jobs of a user */

#define UID_JOBS	1000
#define UID_STRANGER	3000
#define VNI_JOB1	100
#define VNI_JOB2	200
#define CG_JOB1		"kav_trust_job1"
#define CG_JOB2		"kav_trust_job2"
#define JOB_AV		"kav_trust_job_av"	/* mode 0600 */
#define JOB_AV_OPEN	"kav_trust_job_open"	/* mode 0666 */
#define JOB1_HOST	0x0a640000		/* 10.100.0.0 */
#define JOB2_HOST	0x0ac80000		/* 10.200.0.0 */
#define STRANGER_HOST	0x0a0b0000
#define JOB1_N		4
#define JOB2_N		3

struct jobs {
	struct kav_sync sync;		/* job 1 */
	uint32_t av_id, open_id;	/* job 1's two AVs */
	uint64_t fi1[JOB1_N];		/* job 1's entries in JOB_AV */
	uint64_t fi1_open[2];		/* and in JOB_AV_OPEN */
	uint64_t fi2[JOB2_N + 8];	/* every entry job 2 got in */
	int n2;
};

/* Job 2 records an entry it got in before judging it. */
static void job2_got(struct jobs *j, int ret, uint64_t fi)
{
	if (!ret && j->n2 < JOB2_N + 8)
		j->fi2[j->n2++] = fi;
}

static bool job1_host(const volatile struct kav_entry *e)
{
	struct sockaddr_in sin;
	uint32_t host;

	memcpy(&sin, (const void *)e->addr, sizeof(sin));
	host = ntohl(sin.sin_addr.s_addr);
	return host >= JOB1_HOST && host < JOB1_HOST + JOB1_N;
}

/* Job 1 (cgroup CG_JOB1, domain key VNI 100): creates both AVs. */
static int job1(void *arg)
{
	struct jobs *j = arg;
	struct kav_nic_send s;
	struct kav_nic_scan sc;
	struct kav_av_create c = { 0 };
	struct kav_map m = { 0 };
	uint64_t i, slots;
	int dom, av, avo, nic, own = 0;

	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(0, kav_domain_set_key(dom, VNI_JOB1));
	av = kav_av_named(dom, JOB_AV, 0, 0, 0, FMT_IN, &c);
	CK(av >= 0);
	CK_EQ(KAV_AV_CREATED, c.result);
	j->av_id = c.av_id;
	CK_EQ(0, kav_map_av(av, c.map_size, &m));
	for (i = 0; i < JOB1_N; i++) {
		CK_EQ(0, kav_insert_one(av, JOB1_HOST + i, 1000, KAV_NONE,
					&j->fi1[i]));
		CK_EQ(0, kav_entry_at(m.h, j->fi1[i])->auth_key);
	}
	avo = kav_av_named(dom, JOB_AV_OPEN, 0, 0666, 0, FMT_IN, &c);
	CK(avo >= 0);
	CK_EQ(KAV_AV_CREATED, c.result);
	j->open_id = c.av_id;
	for (i = 0; i < 2; i++)
		CK_EQ(0, kav_insert_one(avo, JOB1_HOST + i, 1001, KAV_NONE,
					&j->fi1_open[i]));
	nic = kav_nic_open();
	CK(nic >= 0);
	CK_EQ(0, kav_nic_bind(nic, av));
	CK_EQ(0, kav_tell_parent(&j->sync, '1'));
	CK_EQ('2', kav_wait_parent(&j->sync));	/* job 2, stranger done */

	/* Nothing job 2 got in resolves for job 1's NIC... */
	for (i = 0; i < (uint64_t)j->n2; i++)
		CK_EQ(-EACCES, kav_nic_send(nic, j->fi2[i], NULL));
	/* ... only job 1's own addresses do, under VNI 100. */
	slots = m.h->nr_slots;
	CK_EQ(0, kav_nic_scan(nic, 0, slots, VNI_JOB2, &sc));
	CK_EQ(0, sc.nr_vni_match);
	CK_EQ(JOB1_N, sc.nr_ok);
	CK_EQ(j->n2, sc.nr_denied);
	CK_EQ(0, sc.nr_other + sc.nr_revoked);
	for (i = 0; i < JOB1_N; i++) {
		struct sockaddr_in want = kav_sin(JOB1_HOST + i, 1000);

		CK_EQ(0, kav_nic_send(nic, j->fi1[i], &s));
		CK_EQ(VNI_JOB1, s.vni);
		CK(!memcmp(s.addr, &want, sizeof(want)));
	}
	/* Slot 0, job 1's key, holds job 1's entries and no other. */
	for (i = 0; i < slots; i++) {
		const volatile struct kav_entry *e = kav_entry_at(m.h, i);

		if (!(e->flags & KAV_ENTRY_VALID) || e->auth_key != 0)
			continue;
		CK(job1_host(e));
		own++;
	}
	CK_EQ(JOB1_N, own);
	CK_EQ(JOB1_N, kav_uses(m.h, 0)->nr_entries);
	close(nic);
	kav_unmap_av(&m);
	close(avo);
	close(av);
	close(dom);
	return 0;
}

/* Job 2 (cgroup CG_JOB2, domain key VNI 200): writes to job 1's AV. */
static int job2(void *arg)
{
	const uint64_t zero = 0;
	struct jobs *j = arg;
	struct kav_table_state st0, st1;
	struct kav_nic_send s;
	struct kav_av_create c = { 0 };
	struct sockaddr_in sin[2];
	struct kav_map m = { 0 };
	uint64_t h, fi[2], keys[2];
	uint32_t err;
	int dom, av, nic, ret, i;

	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(0, kav_domain_set_key(dom, VNI_JOB2));
	/* Same user, mode 0600: job 1's AV, writable. */
	av = kav_av_named(dom, JOB_AV, 0, 0, 0, FMT_IN, &c);
	CK(av >= 0);
	CK_EQ(0, c.result);
	CK_EQ(j->av_id, c.av_id);
	CK_EQ(0, kav_map_av(av, c.map_size, &m));
	kav_table_state(m.h, &st0);

	/* The AV holds no key of job 2's: no handle, nothing to bind to. */
	ret = kav_insert_one(av, JOB2_HOST, 2000, KAV_NONE, &fi[0]);
	job2_got(j, ret, fi[0]);
	CK_EQ(-EACCES, ret);
	/* Job 1's key by its handle: not job 2's to use. */
	sin[0] = kav_sin(JOB2_HOST + 1, 2000);
	err = 77;
	ret = kav_insert_keyed(av, sin, 1, &zero, fi, &err);
	job2_got(j, ret, fi[0]);
	CK_EQ(-EACCES, ret);
	CK_EQ(0, err);
	kav_table_state(m.h, &st1);
	CK(kav_table_same(&st0, &st1));

	/* Its own key, put in by itself: its entries are bound to it. */
	CK_EQ(0, kav_key_insert(av, VNI_JOB2, &h));
	CK(h != 0 && h < KAV_MAX_AUTH_KEYS);
	CK_EQ(VNI_JOB2, kav_slot(m.h, h)->vni);
	for (i = 0; i < JOB2_N; i++) {
		ret = kav_insert_one(av, JOB2_HOST + 2 + i, 2000, KAV_NONE,
				     &fi[0]);
		job2_got(j, ret, fi[0]);
		CK_EQ(0, ret);
		CK_EQ(h, kav_entry_at(m.h, fi[0])->auth_key);
	}
	CK_EQ(JOB2_N, kav_uses(m.h, h)->nr_entries);
	CK_EQ(JOB1_N, kav_uses(m.h, 0)->nr_entries);

	/* A batch with one handle it may not use fails whole, there. */
	kav_table_state(m.h, &st0);
	sin[0] = kav_sin(JOB2_HOST + 10, 2000);
	sin[1] = kav_sin(JOB2_HOST + 11, 2000);
	keys[0] = h;
	keys[1] = 0;
	err = 77;
	ret = kav_insert_keyed(av, sin, 2, keys, fi, &err);
	job2_got(j, ret, fi[0]);
	job2_got(j, ret, fi[1]);
	CK_EQ(-EACCES, ret);
	CK_EQ(1, err);
	kav_table_state(m.h, &st1);
	CK(kav_table_same(&st0, &st1));

	/* Job 2's NIC: its entries under VNI 200, none of job 1's. */
	nic = kav_nic_open();
	CK(nic >= 0);
	CK_EQ(0, kav_nic_bind(nic, av));
	for (i = 0; i < j->n2; i++) {
		CK_EQ(0, kav_nic_send(nic, j->fi2[i], &s));
		CK_EQ(VNI_JOB2, s.vni);
	}
	for (i = 0; i < JOB1_N; i++)
		CK_EQ(-EACCES, kav_nic_send(nic, j->fi1[i], NULL));
	close(nic);
	kav_unmap_av(&m);
	close(av);
	close(dom);
	return 0;
}

/* Another user with no grant at all: writes to job 1's 0666 AV. */
static int stranger(void *arg)
{
	const uint64_t zero = 0;
	struct jobs *j = arg;
	struct kav_table_state st0, st1;
	struct kav_av_create c = { 0 };
	struct sockaddr_in sin;
	struct kav_map m = { 0 };
	uint64_t fi, h;
	uint32_t err;
	int dom, av, mine, nic, i;

	dom = kav_open_domain();
	CK(dom >= 0);
	/* Job 1's 0600 AV: not even when naming its owner. */
	CK_EQ(-EACCES, kav_av_named(dom, JOB_AV, KAV_AV_OWNER, 0, UID_JOBS,
				    FMT_IN, NULL));
	/* Its own names are its own: the name is free there. */
	mine = kav_av_named(dom, JOB_AV_OPEN, KAV_AV_EXCL, 0, 0, FMT_IN, &c);
	CK(mine >= 0);
	CK_EQ(KAV_AV_CREATED, c.result);
	CK(c.av_id != j->open_id);
	close(mine);

	/* Job 1's 0666 AV, found through its owner: writable... */
	av = kav_av_named(dom, JOB_AV_OPEN, KAV_AV_OWNER, 0, UID_JOBS, FMT_IN,
			  &c);
	CK(av >= 0);
	CK_EQ(0, c.result);
	CK_EQ(j->open_id, c.av_id);
	CK_EQ(0, kav_map_av(av, c.map_size, &m));
	kav_table_state(m.h, &st0);
	/* ... but nothing can be bound: keyless is off, key 0 is VNI 100. */
	CK_EQ(-EACCES, kav_insert_one(av, STRANGER_HOST, 3000, KAV_NONE,
				      &fi));
	sin = kav_sin(STRANGER_HOST + 1, 3000);
	err = 77;
	CK_EQ(-EACCES, kav_insert_keyed(av, &sin, 1, &zero, &fi, &err));
	CK_EQ(0, err);
	CK_EQ(-EACCES, kav_key_insert(av, VNI_JOB1, &h));
	kav_table_state(m.h, &st1);
	CK(kav_table_same(&st0, &st1));
	/* Nor can it send under job 1's key. */
	nic = kav_nic_open();
	CK(nic >= 0);
	CK_EQ(0, kav_nic_bind(nic, av));
	for (i = 0; i < 2; i++)
		CK_EQ(-EACCES, kav_nic_send(nic, j->fi1_open[i], NULL));
	close(nic);
	kav_unmap_av(&m);
	close(av);
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(trust, shared_av_writer_binds_only_own_keys, 180)
{
	struct jobs *j = kav_shared(sizeof(*j));
	struct kav_job_arg a1 = { CG_JOB1, { UID_JOBS, UID_JOBS, job1, j } };
	struct kav_job_arg a2 = { CG_JOB2, { UID_JOBS, UID_JOBS, job2, j } };
	struct kav_nl_grant g1, g2;
	uint32_t id1, id2;
	pid_t p1;
	int rc;

	ASSERT_NE(NULL, j);
	ASSERT_EQ(0, kav_sync_init(&j->sync));
	ASSERT_EQ(0, kav_cgroup_make(CG_JOB1));
	ASSERT_EQ(0, kav_cgroup_make(CG_JOB2));
	/* As the Slurm prolog grants them: one key per job's cgroup. */
	id1 = grant_cgroup(_metadata, self, VNI_JOB1, CG_JOB1);
	id2 = grant_cgroup(_metadata, self, VNI_JOB2, CG_JOB2);
	ASSERT_NE(0, id1);
	ASSERT_NE(0, id2);

	p1 = kav_spawn(kav_job_trampoline, &a1);
	ASSERT_EQ('1', kav_wait_child_step(&j->sync, p1, STEP_MS, &rc))
		TH_LOG("job 1 ended with %d", rc);
	EXPECT_EQ(0, kav_reap(kav_spawn(kav_job_trampoline, &a2)));
	EXPECT_EQ(0, kav_run_as(UID_STRANGER, stranger, j));
	TH_LOG("job 2 got %d entries into job 1's AV", j->n2);
	/* Each grant pays for what was bound under it, and only that. */
	ASSERT_EQ(0, grant_find(&self->nl, id1, &g1));
	ASSERT_EQ(0, grant_find(&self->nl, id2, &g2));
	EXPECT_EQ(JOB1_N + 2, g1.nr_entries);
	EXPECT_EQ(2, g1.nr_avs);
	/* Job 2 has gone; its key and entries stay in job 1's AV. */
	EXPECT_EQ(JOB2_N, g2.nr_entries);
	EXPECT_EQ(1, g2.nr_avs);
	kav_tell_child(&j->sync, '2');
	EXPECT_EQ(0, kav_reap_timeout(p1, STEP_MS));
	kav_sync_close(&j->sync);
	EXPECT_EQ(0, kav_cgroup_remove(CG_JOB1));
	EXPECT_EQ(0, kav_cgroup_remove(CG_JOB2));
}

/* ===================================================== 2. name squatting */

#define SQ_NAME		"FI_NAMED_AV_7\n"
#define UID_SQUAT	2000
#define UID_VICTIM	1000
#define VNI_VICTIM	0x7301
#define VICTIM_HOST	0x0a730000
#define SQUAT_HOST	0x0a0d0d00
#define NR_LIB		4
#define NR_RANKS	4

struct rank_report {
	int done;
	fi_addr_t mine;			/* map_addr[rank] */
	int lookup;
	struct sockaddr_in addr;
};

struct squat {
	struct kav_sync sq;		/* the squatter */
	struct kav_sync vi;		/* the victim, then the launcher */
	uint32_t squat_id;
	uint32_t victim_id, victim_result;
	int squat_inserts;		/* squatter inserts accepted */
	struct rank_report ranks[NR_RANKS];
};

/* The squatter through libkav, naming the victim with $KAV_AV_OWNER. */
static int squatter_lib_open(void)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = SQ_NAME,
				   .flags = FI_READ };
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };
	struct fid_domain *dom;
	struct fid_av *av;
	char uid[16];
	int ret;

	setenv("KAV_LOG", "none", 1);
	snprintf(uid, sizeof(uid), "%d", UID_VICTIM);
	setenv("KAV_AV_OWNER", uid, 1);
	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	ret = kav_domain_open(&info, &dom, NULL);
	if (ret)
		return ret;
	ret = fi_av_open(dom, &attr, &av, NULL);
	if (!ret)
		fi_close(&av->fid);
	fi_close(&dom->fid);
	unsetenv("KAV_AV_OWNER");
	return ret;
}

/* uid 2000, no grant: takes the name first, mode 0666, and waits. */
static int squatter(void *arg)
{
	struct squat *s = arg;
	struct kav_nic_scan sc;
	struct kav_av_create c = { 0 };
	struct kav_map m = { 0 };
	uint64_t k, fi;
	int dom, av, nic, step;

	dom = kav_open_domain();
	CK(dom >= 0);
	av = kav_av_named(dom, SQ_NAME, KAV_AV_EXCL, 0666, 0, FMT_IN, &c);
	CK(av >= 0);
	CK_EQ(KAV_AV_CREATED, c.result);
	s->squat_id = c.av_id;
	CK_EQ(0, kav_map_av(av, c.map_size, &m));
	nic = kav_nic_open();
	CK(nic >= 0);
	CK_EQ(0, kav_nic_bind(nic, av));
	CK_EQ(0, kav_tell_parent(&s->sq, 's'));

	/* 'v': the victim is in. Bind its own addresses to any key. */
	while ((step = kav_wait_parent(&s->sq)) == 'v' || step == 'o') {
		if (step == 'o') {
			/* The launcher's AV is up: libkav cannot reach it. */
			CK_EQ(-FI_EACCES, squatter_lib_open());
			CK_EQ(0, kav_tell_parent(&s->sq, 'a'));
			continue;
		}
		for (k = 0; k < KAV_MAX_AUTH_KEYS; k++)
			if (!kav_insert_one(av, SQUAT_HOST + k, 6666, k, &fi))
				s->squat_inserts++;
		/* The victim's AV (0600) is out of its reach by owner too. */
		CK_EQ(-EACCES, kav_av_named(dom, SQ_NAME, KAV_AV_OWNER, 0,
					    UID_VICTIM, FMT_IN, NULL));
		CK_EQ(-EACCES, kav_av_named(dom, SQ_NAME,
					    KAV_AV_OWNER | KAV_AV_RDONLY, 0,
					    UID_VICTIM, 0, NULL));
		CK_EQ(0, kav_tell_parent(&s->sq, 'a'));
	}
	CK_EQ('z', step);

	/* Its NIC sends nothing at all, under the victim's VNI or any. */
	CK_EQ(0, kav_nic_scan(nic, 0, 256, VNI_VICTIM, &sc));
	CK_EQ(0, sc.nr_vni_match);
	CK_EQ(0, sc.nr_ok);
	/* Its table never held the victim's key or an entry. */
	CK_EQ(-1, slot_of(m.h, VNI_VICTIM));
	for (k = 0; k < KAV_MAX_AUTH_KEYS; k++)
		CK_EQ(0, kav_slot(m.h, k)->flags);
	CK_EQ(0, m.h->nr_valid);
	CK_EQ(0, m.h->generation);
	CK_EQ(0, s->squat_inserts);
	close(nic);
	kav_unmap_av(&m);
	close(av);
	close(dom);
	return 0;
}

/* uid 1000 with a grant: the raw uAPI, as a job step would use it. */
static int victim_raw(void *arg)
{
	struct squat *s = arg;
	struct kav_av_create c = { 0 };
	uint64_t h, fi;
	int dom, av, ret, i;

	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(0, kav_domain_set_key(dom, VNI_VICTIM));
	av = kav_av_named(dom, SQ_NAME, 0, 0, 0, FMT_IN, &c);
	CK(av >= 0);
	s->victim_id = c.av_id;
	s->victim_result = c.result;
	/* What libkav does on joining: its key in (EEXIST: it is). */
	ret = kav_key_insert(av, VNI_VICTIM, &h);
	CK(ret == 0 || ret == -EEXIST);
	for (i = 0; i < 2; i++)
		CK_EQ(0, kav_insert_one(av, VICTIM_HOST + i, 7000, h, &fi));
	/* It created the AV: a fresh one, its own. */
	CK_EQ(KAV_AV_CREATED, c.result);
	CK(c.av_id != s->squat_id);
	CK_EQ(0, h);				/* its domain key, slot 0 */
	CK_EQ(0, kav_tell_parent(&s->vi, 'r'));
	CK_EQ('c', kav_wait_parent(&s->vi));
	close(av);
	close(dom);
	return 0;
}

/* uid 1000 with a grant: libkav, fi_av_open() with attr.name. */
static int victim_lib(void *arg)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = SQ_NAME,
				   .count = NR_LIB };
	struct squat *s = arg;
	struct sockaddr_in sin[NR_LIB];
	struct fid_domain *dom;
	struct kav_auth_key key;
	struct fid_av *av;
	fi_addr_t fa[NR_LIB];
	size_t len;
	int i;

	setenv("KAV_LOG", "none", 1);
	CK_EQ(0, kav_lib_open_keyed(VNI_VICTIM, &dom));
	CK_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	for (i = 0; i < NR_LIB; i++)
		sin[i] = kav_sin(VICTIM_HOST + 0x100 + i, 7001);
	CK_EQ(NR_LIB, fi_av_insert(av, sin, NR_LIB, fa, 0, NULL));
	for (i = 0; i < NR_LIB; i++) {
		CK_EQ(i, fa[i]);
		len = sizeof(key);
		CK_EQ(0, fi_av_lookup_auth_key(av, fa[i], &key, &len));
		CK_EQ(VNI_VICTIM, key.vni);
	}
	CK_EQ(0, kav_tell_parent(&s->vi, 'l'));
	CK_EQ('L', kav_wait_parent(&s->vi));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

static struct sockaddr_in rank_addr(int rank)
{
	return kav_sin(VICTIM_HOST + 0x200 + (uint32_t)rank,
		       (uint16_t)(20000 + rank));
}

/* The launcher (uid 1000): creates the job's AV and fills it. */
static int launcher(void *arg)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = SQ_NAME,
				   .count = NR_RANKS };
	struct squat *s = arg;
	struct sockaddr_in sin[NR_RANKS];
	fi_addr_t fa[NR_RANKS];
	struct fid_domain *dom;
	struct fid_av *av;
	int i;

	setenv("KAV_LOG", "none", 1);
	CK_EQ(0, kav_lib_open_keyed(VNI_VICTIM, &dom));
	CK_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	for (i = 0; i < NR_RANKS; i++)
		sin[i] = rank_addr(i);
	CK_EQ(NR_RANKS, fi_av_insert(av, sin, NR_RANKS, fa, 0, NULL));
	for (i = 0; i < NR_RANKS; i++)
		CK_EQ(i, fa[i]);
	CK_EQ(0, kav_tell_parent(&s->vi, 'f'));
	CK_EQ('F', kav_wait_parent(&s->vi));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

struct rank_arg {
	struct squat *s;
	int rank;
};

/* A rank (uid 1000, no key): FI_READ, then map_addr[rank]. */
static int rank_main(void *arg)
{
	struct rank_arg *ra = arg;
	struct rank_report *r = &ra->s->ranks[ra->rank];
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = SQ_NAME,
				   .flags = FI_READ, .count = NR_RANKS };
	struct sockaddr_in want = rank_addr(ra->rank);
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };
	struct fid_domain *dom;
	const fi_addr_t *map;
	struct fid_av *av;
	size_t len = sizeof(r->addr);

	setenv("KAV_LOG", "none", 1);
	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	CK_EQ(0, kav_domain_open(&info, &dom, NULL));
	CK_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	map = attr.map_addr;
	CK(map);
	r->mine = map[ra->rank];
	r->lookup = fi_av_lookup(av, r->mine, &r->addr, &len);
	r->done = 1;
	CK_EQ(ra->rank, r->mine);
	CK_EQ(0, r->lookup);
	CK(!memcmp(&r->addr, &want, sizeof(want)));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

TEST_F_TIMEOUT(trust, name_squatting, 240)
{
	struct squat *s = kav_shared(sizeof(*s));
	struct kav_as_arg sq = { UID_SQUAT, UID_SQUAT, squatter, s };
	struct kav_as_arg vr = { UID_VICTIM, UID_VICTIM, victim_raw, s };
	struct kav_as_arg vl = { UID_VICTIM, UID_VICTIM, victim_lib, s };
	struct kav_as_arg la = { UID_VICTIM, UID_VICTIM, launcher, s };
	struct kav_as_arg ras[NR_RANKS];
	struct rank_arg ra[NR_RANKS];
	struct named_rows rows;
	int rc, c, i, seen_squat = 0, seen_victim = 0;
	pid_t ps, pv;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, kav_sync_init(&s->sq));
	ASSERT_EQ(0, kav_sync_init(&s->vi));
	ASSERT_NE(0, grant_uid(_metadata, self, VNI_VICTIM, UID_VICTIM));

	/* The squatter is there first. */
	ps = kav_spawn(kav_as_trampoline, &sq);
	ASSERT_EQ('s', kav_wait_child_step(&s->sq, ps, STEP_MS, &rc))
		TH_LOG("squatter ended with %d", rc);

	/* The victim through the raw uAPI: its own, new AV. */
	pv = kav_spawn(kav_as_trampoline, &vr);
	c = kav_wait_child_step(&s->vi, pv, STEP_MS, &rc);
	EXPECT_EQ('r', c) TH_LOG("victim ended with %d", rc);
	EXPECT_EQ(KAV_AV_CREATED, s->victim_result);
	EXPECT_NE(s->squat_id, s->victim_id);
	/* Meanwhile the squatter binds its addresses to what it can. */
	kav_tell_child(&s->sq, 'v');
	EXPECT_EQ('a', kav_wait_child_step(&s->sq, ps, STEP_MS, &rc));
	EXPECT_EQ(0, s->squat_inserts);
	if (c == 'r') {
		kav_tell_child(&s->vi, 'c');
		EXPECT_EQ(0, kav_reap_timeout(pv, STEP_MS));
	}

	/* The victim through libkav: again its own AV, beside the other. */
	pv = kav_spawn(kav_as_trampoline, &vl);
	c = kav_wait_child_step(&s->vi, pv, STEP_MS, &rc);
	EXPECT_EQ('l', c) TH_LOG("libkav victim ended with %d", rc);
	ASSERT_EQ(0, named_rows(&self->nl, SQ_NAME, &rows));
	for (i = 0; i < rows.n; i++) {
		TH_LOG("AV %u named FI_NAMED_AV_7\\n: uid %u, %llu entries",
		       rows.r[i].id, rows.r[i].uid,
		       (unsigned long long)rows.r[i].entries);
		if (rows.r[i].uid == UID_SQUAT) {
			seen_squat++;
			EXPECT_EQ(s->squat_id, rows.r[i].id);
			EXPECT_EQ(0, rows.r[i].entries);
		} else if (rows.r[i].uid == UID_VICTIM) {
			seen_victim++;
			EXPECT_NE(s->squat_id, rows.r[i].id);
			EXPECT_EQ(NR_LIB, rows.r[i].entries);
		}
	}
	EXPECT_EQ(2, rows.n);
	EXPECT_EQ(1, seen_squat);
	EXPECT_EQ(1, seen_victim);
	if (c == 'l') {
		kav_tell_child(&s->vi, 'L');
		EXPECT_EQ(0, kav_reap_timeout(pv, STEP_MS));
	}

	/* Instant-on beside the squatter: launcher, then FI_READ ranks. */
	pv = kav_spawn(kav_as_trampoline, &la);
	c = kav_wait_child_step(&s->vi, pv, STEP_MS, &rc);
	EXPECT_EQ('f', c) TH_LOG("launcher ended with %d", rc);
	if (c == 'f') {
		kav_tell_child(&s->sq, 'o');
		EXPECT_EQ('a', kav_wait_child_step(&s->sq, ps, STEP_MS, &rc))
			TH_LOG("squatter ended with %d", rc);
	}
	for (i = 0; c == 'f' && i < NR_RANKS; i++) {
		ra[i] = (struct rank_arg){ s, i };
		ras[i] = (struct kav_as_arg){ UID_VICTIM, UID_VICTIM,
					      rank_main, &ra[i] };
		EXPECT_EQ(0, kav_reap(kav_spawn(kav_as_trampoline, &ras[i])))
			TH_LOG("rank %d", i);
		EXPECT_EQ(1, s->ranks[i].done);
		EXPECT_EQ((fi_addr_t)i, s->ranks[i].mine);
	}
	if (c == 'f') {
		kav_tell_child(&s->vi, 'F');
		EXPECT_EQ(0, kav_reap_timeout(pv, STEP_MS));
	}

	/* The squatter got nothing, through all of it. */
	kav_tell_child(&s->sq, 'z');
	EXPECT_EQ(0, kav_reap_timeout(ps, STEP_MS));
	kav_sync_close(&s->sq);
	kav_sync_close(&s->vi);
}

/* ======================================= 3. a reader and key management */

#define RO_NAME		"kav_trust_ro"
#define UID_OWNER	1000
#define UID_OTHER	1001
#define VNI_RO_DOM	0x7401
#define VNI_RO_KEY	0x7402

struct ro {
	struct kav_sync own, rd[2];
	uint64_t handle;		/* the owner's unused key */
	int ep[2];			/* EP_OPEN on each reader's fd */
	int ep_enable[2];		/* EP_ENABLE, had it worked */
	int key_remove;			/* the owner's KEY_REMOVE */
	uint32_t flags_after[2];	/* the slot, as each reader sees it */
};

/* uid 1000: a named AV (0644) with its domain key and one more. */
static int ro_owner(void *arg)
{
	struct ro *r = arg;
	struct kav_av_create c = { 0 };
	uint64_t fi;
	int dom, av;

	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(0, kav_domain_set_key(dom, VNI_RO_DOM));
	av = kav_av_named(dom, RO_NAME, KAV_AV_EXCL, 0644, 0, FMT_IN, &c);
	CK(av >= 0);
	CK_EQ(0, kav_key_insert(av, VNI_RO_KEY, &r->handle));
	CK(r->handle != 0);
	CK_EQ(0, kav_insert_one(av, 0x0a740001, 7400, KAV_NONE, &fi));
	CK_EQ(0, kav_tell_parent(&r->own, 'o'));
	CK_EQ('k', kav_wait_parent(&r->own));	/* the readers hold it */
	/* The key is unused: removing it must work, readers or not. */
	r->key_remove = kav_key_remove(av, r->handle);
	CK_EQ(0, kav_tell_parent(&r->own, 'K'));
	CK_EQ('x', kav_wait_parent(&r->own));
	close(av);
	close(dom);
	return 0;
}

struct ro_reader {
	struct ro *r;
	int i;		/* 0: the owner's uid, 1: another, with OWNER */
};

static int ro_reader(void *arg)
{
	struct ro_reader *rr = arg;
	struct ro *r = rr->r;
	struct kav_sync *s = &r->rd[rr->i];
	struct kav_av_create c = { 0 };
	struct kav_map m = { 0 };
	uint64_t fi, h;
	uint32_t flags = rr->i ? KAV_AV_RDONLY | KAV_AV_OWNER : KAV_AV_RDONLY;
	int dom, av, ep;

	dom = kav_open_domain();
	CK(dom >= 0);
	if (rr->i)	/* others may read (0644), not write */
		CK_EQ(-EACCES, kav_av_named(dom, RO_NAME, KAV_AV_OWNER, 0,
					    UID_OWNER, FMT_IN, NULL));
	av = kav_av_named(dom, RO_NAME, flags, 0, rr->i ? UID_OWNER : 0, 0,
			  &c);
	CK(av >= 0);
	CK_EQ(0, c.result);
	CK_EQ(0, kav_map_av(av, c.map_size, &m));
	CK_EQ(1, m.h->nr_valid);
	CK_EQ(VNI_RO_KEY, kav_slot(m.h, r->handle)->vni);

	/* A read-only fd maps; it opens no endpoint to pin keys with. */
	ep = kav_av_ep_open(av);
	r->ep[rr->i] = ep < 0 ? ep : 0;
	if (ep >= 0)
		r->ep_enable[rr->i] = kav_av_ep_enable(ep, NULL);
	/* Nor does it change anything else. */
	CK_EQ(-EPERM, kav_insert_one(av, 0x0a740002, 7400, KAV_NONE, &fi));
	CK_EQ(-EPERM, kav_key_insert(av, VNI_RO_DOM, &h));
	CK_EQ(-EPERM, kav_key_remove(av, r->handle));

	CK_EQ(0, kav_tell_parent(s, 'r'));
	CK_EQ('K', kav_wait_parent(s));		/* the owner removed it */
	r->flags_after[rr->i] = kav_slot(m.h, r->handle)->flags;
	if (ep >= 0)
		close(ep);
	kav_unmap_av(&m);
	close(av);
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(trust, reader_cannot_block_key_remove, 120)
{
	struct ro *r = kav_shared(sizeof(*r));
	struct kav_as_arg ao = { UID_OWNER, UID_OWNER, ro_owner, r };
	struct ro_reader rr[2] = { { r, 0 }, { r, 1 } };
	struct kav_as_arg ar[2] = {
		{ UID_OWNER, UID_OWNER, ro_reader, &rr[0] },
		{ UID_OTHER, UID_OTHER, ro_reader, &rr[1] },
	};
	pid_t po, pr[2];
	int rc, i, c[2];

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, kav_sync_init(&r->own));
	ASSERT_EQ(0, kav_sync_init(&r->rd[0]));
	ASSERT_EQ(0, kav_sync_init(&r->rd[1]));
	ASSERT_NE(0, grant_uid(_metadata, self, VNI_RO_DOM, UID_OWNER));
	ASSERT_NE(0, grant_uid(_metadata, self, VNI_RO_KEY, UID_OWNER));
	r->key_remove = 1;

	po = kav_spawn(kav_as_trampoline, &ao);
	ASSERT_EQ('o', kav_wait_child_step(&r->own, po, STEP_MS, &rc))
		TH_LOG("owner ended with %d", rc);
	for (i = 0; i < 2; i++) {
		r->ep[i] = 1;
		pr[i] = kav_spawn(kav_as_trampoline, &ar[i]);
		c[i] = kav_wait_child_step(&r->rd[i], pr[i], STEP_MS, &rc);
		EXPECT_EQ('r', c[i]) TH_LOG("reader %d ended with %d", i, rc);
	}
	/* Both readers hold their fd, mapping and whatever EP_OPEN gave. */
	kav_tell_child(&r->own, 'k');
	EXPECT_EQ('K', kav_wait_child_step(&r->own, po, STEP_MS, &rc));
	for (i = 0; i < 2; i++) {
		if (c[i] != 'r')
			continue;
		kav_tell_child(&r->rd[i], 'K');
		EXPECT_EQ(0, kav_reap_timeout(pr[i], STEP_MS));
	}
	kav_tell_child(&r->own, 'x');
	EXPECT_EQ(0, kav_reap_timeout(po, STEP_MS));

	EXPECT_EQ(-EPERM, r->ep[0]) TH_LOG("EP_ENABLE after it: %d",
					   r->ep_enable[0]);
	EXPECT_EQ(-EPERM, r->ep[1]) TH_LOG("EP_ENABLE after it: %d",
					   r->ep_enable[1]);
	EXPECT_EQ(0, r->key_remove);
	EXPECT_EQ(0, r->flags_after[0]);
	EXPECT_EQ(0, r->flags_after[1]);
	kav_sync_close(&r->own);
	kav_sync_close(&r->rd[0]);
	kav_sync_close(&r->rd[1]);
}

/* ========================================================= 4. smaller ones */

#define UID_SMALL	1008

/* The table cannot be mapped executable, now or later. */
static int exec_mapping(void *arg)
{
	const long page = sysconf(_SC_PAGESIZE);
	struct kav_av_create c = { 0 };
	void *p;
	int dom, av, want;

	dom = kav_open_domain();
	CK(dom >= 0);
	av = kav_create_av(dom, FMT_IN, &c);
	CK(av >= 0);
	/* kav's EACCES, or the VFS's EPERM first since 6.16 (noexec). */
	want = kav_exec_map_errno();
	errno = 0;
	p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_SHARED, av, 0);
	CK(p == MAP_FAILED);
	CK_EQ(want, errno);
	errno = 0;
	p = mmap(NULL, c.map_size, PROT_EXEC, MAP_PRIVATE, av, 0);
	CK(p == MAP_FAILED);
	CK_EQ(want, errno);
	p = mmap(NULL, c.map_size, PROT_READ, MAP_SHARED, av, 0);
	CK(p != MAP_FAILED);
	errno = 0;
	CK_EQ(-1, mprotect(p, page, PROT_READ | PROT_EXEC));
	CK_EQ(EACCES, errno);
	CK_EQ(-1, mprotect(p, c.map_size, PROT_EXEC));
	/* Still the table, still readable. */
	CK_EQ(KAV_TABLE_MAGIC,
	      ((const volatile struct kav_table_header *)p)->magic);
	munmap(p, c.map_size);
	close(av);
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(trust, small_exec_mapping_refused, 60)
{
	EXPECT_EQ(0, kav_run_as(UID_SMALL, exec_mapping, NULL));
}

#define STR_STRIDE	32

/* KAV_ADDR_STR takes 0x21..0x7e only: the position of a bad one. */
static int str_bytes(void *arg)
{
	static const char *const bad[] = {
		"n\241de",	/* 0xa1: Latin-1 graphic characters */
		"node\xff",
		"\xa1",
		"\xe9t\xe9",
		"\x80node",	/* and what 15fc615 refused already */
		"no de",
		"node\x7f",
	};
	char a[3][STR_STRIDE], all[96];
	struct kav_table_state st0, st1;
	struct kav_entry e;
	struct kav_av_create c = { 0 };
	struct kav_map m = { 0 };
	uint64_t fi[3];
	uint32_t err;
	size_t i;
	int dom, av, pos;

	dom = kav_open_domain();
	CK(dom >= 0);
	av = kav_create_av(dom, KAV_ADDR_STR, &c);
	CK(av >= 0);
	CK_EQ(0, kav_map_av(av, c.map_size, &m));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(a, 0, sizeof(a));
		pos = i % 3;
		snprintf(a[0], STR_STRIDE, "%s", pos ? "node-0:1" : bad[i]);
		snprintf(a[1], STR_STRIDE, "%s", pos != 1 ? "node-1:2" : bad[i]);
		snprintf(a[2], STR_STRIDE, "%s", pos != 2 ? "node-2:3" : bad[i]);
		kav_table_state(m.h, &st0);
		err = 77;
		CK_EQ(-EINVAL, kav_insert_stride(av, a, STR_STRIDE, 3, fi,
						 &err));
		CK_EQ(pos, err);
		kav_table_state(m.h, &st1);
		CK(kav_table_same(&st0, &st1));
	}
	/* Every byte from 0x21 to 0x7e, in one address. */
	memset(all, 0, sizeof(all));
	for (i = 0; i < 0x7e - 0x21 + 1; i++)
		all[i] = (char)(0x21 + i);
	CK_EQ(0, kav_insert_stride(av, all, sizeof(all), 1, fi, &err));
	memcpy(&e, (const void *)kav_entry_at(m.h, fi[0]), sizeof(e));
	CK_EQ(KAV_ENTRY_VALID, e.flags);
	CK_EQ(0x7e - 0x21 + 2, e.addr_len);
	CK(!memcmp((const void *)kav_entry_at(m.h, fi[0])->addr, all,
		   e.addr_len));
	kav_unmap_av(&m);
	close(av);
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(trust, small_addr_str_high_bytes, 60)
{
	ASSERT_EQ(0, kav_set_allow_keyless(true));
	EXPECT_EQ(0, kav_run_as(UID_SMALL, str_bytes, NULL));
}

#define VNI_EF		0x7501
#define EF_SECONDS	5

struct flipper {
	void *addr;
	size_t len;
	atomic_int stop;
	uint64_t flips;
};

/* Make @addr read-only and writable again, as fast as it goes. */
static void *flip_pages(void *arg)
{
	struct flipper *f = arg;

	while (!atomic_load(&f->stop)) {
		mprotect(f->addr, f->len, PROT_READ);
		mprotect(f->addr, f->len, PROT_READ | PROT_WRITE);
		f->flips++;
	}
	return NULL;
}

static uint64_t slot_seqs(const volatile struct kav_table_header *h)
{
	uint64_t k, sum = 0;

	for (k = 0; k < KAV_MAX_AUTH_KEYS; k++)
		sum += kav_slot(h, k)->seq;
	return sum;
}

/*
 * KEY_INSERT whose reply cannot be written: EFAULT, and the key stays
 * (no undo); the call again gives EEXIST and the handle. First with a
 * reply another thread makes read-only and writable again (15fc615 took
 * the key back out when it lost that race), then with a read-only one.
 */
static int reply_efault(void *arg)
{
	const long page = sysconf(_SC_PAGESIZE);
	struct flipper f = { 0 };
	struct kav_av_create c = { 0 };
	struct kav_av_key *k;
	struct kav_map m = { 0 };
	uint64_t s0, h, ok = 0, kept = 0, before = 0, undone = 0, other = 0;
	int dom, av, ret, slot, n;
	pthread_t t;
	double end;

	dom = kav_open_domain();
	CK(dom >= 0);
	av = kav_create_av(dom, FMT_IN, &c);
	CK(av >= 0);
	CK_EQ(0, kav_map_av(av, c.map_size, &m));
	f.len = page;
	f.addr = mmap(NULL, page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CK(f.addr != MAP_FAILED);
	/* Written once: the kernel only reads it and writes it back. */
	k = f.addr;
	*k = (struct kav_av_key){ .size = sizeof(*k), .key.vni = VNI_EF,
				  .handle = ~0ULL };

	CK_EQ(0, pthread_create(&t, NULL, flip_pages, &f));
	end = kav_now() + EF_SECONDS;
	for (n = 0; kav_now() < end; n++) {
		s0 = slot_seqs(m.h);
		ret = ioctl(av, KAV_IOC_AV_KEY_INSERT, k) ? -errno : 0;
		slot = slot_of(m.h, VNI_EF);
		if (!ret && slot >= 0)
			ok++;
		else if (ret == -EFAULT && slot >= 0)
			kept++;
		else if (ret == -EFAULT && slot_seqs(m.h) == s0)
			before++;	/* failed before any change */
		else if (ret == -EFAULT)
			undone++;	/* in, then taken out again */
		else
			other++;
		if (slot < 0)
			continue;
		if (ret) {
			CK_EQ(-EEXIST, kav_key_insert(av, VNI_EF, &h));
			CK_EQ(slot, h);
		}
		CK_EQ(0, kav_key_remove(av, slot));
	}
	atomic_store(&f.stop, 1);
	pthread_join(t, NULL);
	fprintf(stderr, "# KEY_INSERT, reply flipped %llu times: %d calls, "
		"%llu done, %llu EFAULT keeping the key, %llu EFAULT before "
		"any change, %llu EFAULT taking it back, %llu other\n",
		(unsigned long long)f.flips, n, (unsigned long long)ok,
		(unsigned long long)kept, (unsigned long long)before,
		(unsigned long long)undone, (unsigned long long)other);

	/* A reply that can never be written: the key goes in and stays. */
	CK_EQ(0, mprotect(f.addr, page, PROT_READ));
	CK_EQ(-1, slot_of(m.h, VNI_EF));
	ret = ioctl(av, KAV_IOC_AV_KEY_INSERT, k) ? -errno : 0;
	CK_EQ(-EFAULT, ret);
	slot = slot_of(m.h, VNI_EF);
	CK(slot >= 0);
	h = ~0ULL;
	CK_EQ(-EEXIST, kav_key_insert(av, VNI_EF, &h));
	CK_EQ(slot, h);
	CK_EQ(0, kav_key_remove(av, h));

	CK_EQ(0, undone);
	CK_EQ(0, other);
	munmap(f.addr, page);
	kav_unmap_av(&m);
	close(av);
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(trust, small_key_insert_reply_efault, 90)
{
	ASSERT_NE(0, grant_uid(_metadata, self, VNI_EF, UID_SMALL));
	EXPECT_EQ(0, kav_run_as(UID_SMALL, reply_efault, NULL));
}

#define CG_MEM		"kav_trust_mem"
#define MEM_NAME	"kav_trust_memcg"
#define UID_MEM		1007
#define MEM_MAX		"4194304\n"
#define MEM_FILL_MAX	(1u << 18)	/* entries: 16 MiB of table */
#define MEM_CREATES	64		/* creates tried once it is full */

struct memcg {
	struct kav_sync cr, fl;		/* creator, filler */
	uint64_t filled;
	int fill_err;
	int create;			/* the first create that failed */
	int created;			/* creates that worked before it */
};

/* Fault in @kib of stack now: later growth could meet the limit. */
static void __attribute__((noinline)) touch_stack(int kib)
{
	volatile char buf[1024];

	buf[0] = 1;
	buf[sizeof(buf) - 1] = 1;
	if (kib > 1)
		touch_stack(kib - 1);
	buf[1] = buf[0];	/* not a tail call: the frames stay */
}

/*
 * In CG_MEM (4 MiB): creates the named AV whose pages it pays for, then,
 * once the filler has filled the cgroup, AVs until one is refused.
 * Whatever memory it needs after the fill is touched before it.
 */
static int mem_creator(void *arg)
{
	static int fds[MEM_CREATES];
	struct memcg *m = arg;
	struct kav_av_create c = { 0 };
	int dom, av, i;

	touch_stack(64);
	memset(fds, 0xff, sizeof(fds));
	/* A file table with room for all of them. */
	CK_EQ(255, dup2(0, 255));
	close(255);
	dom = kav_open_domain();
	CK(dom >= 0);
	av = kav_av_named(dom, MEM_NAME, KAV_AV_EXCL, 0, 0, FMT_IN, &c);
	CK(av >= 0);
	CK_EQ(0, kav_tell_parent(&m->cr, 'c'));
	CK_EQ('f', kav_wait_parent(&m->cr));	/* its cgroup is full now */
	for (i = 0; i < MEM_CREATES; i++) {
		fds[i] = kav_create_av(dom, FMT_IN, NULL);
		if (fds[i] < 0) {
			m->create = fds[i];
			break;
		}
		m->created++;
	}
	for (i = 0; i < MEM_CREATES; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	close(av);
	CK_EQ(0, kav_tell_parent(&m->cr, 'd'));
	close(dom);
	return 0;
}

/*
 * Outside CG_MEM, same uid: fills the creator's AV, whose pages the
 * creator's cgroup pays for, until not one more page fits.
 */
static int mem_filler(void *arg)
{
	static struct sockaddr_in sin[1024];
	struct memcg *m = arg;
	struct kav_av_create c = { 0 };
	uint32_t batch = 1024, i, n;
	int dom, av, ret, round;

	for (i = 0; i < 1024; i++)
		sin[i] = kav_sin(0x0a750000 + i, 7500);
	dom = kav_open_domain();
	CK(dom >= 0);
	av = kav_av_named(dom, MEM_NAME, 0, 0, 0, FMT_IN, &c);
	CK(av >= 0);
	CK_EQ(0, c.result);
	for (;;) {
		ret = kav_insert_in(av, sin, batch, NULL, NULL);
		if (!ret) {
			m->filled += batch;
			if (m->filled < MEM_FILL_MAX)
				continue;
		} else if (ret == -ENOMEM && batch > 1) {
			batch = batch > 64 ? batch / 16 : 1;
			continue;
		}
		break;
	}
	/*
	 * Other CPUs give back the charges they hold in stock a moment
	 * later (drain_all_stock() is asynchronous): fill those pages too,
	 * until an insert that needs a page fails at once.
	 */
	for (round = 0; ret == -ENOMEM && round < 20; round++) {
		usleep(200000);
		for (n = 0; !(ret = kav_insert_in(av, sin, 1, NULL, NULL)); n++)
			;
		m->filled += n;
		if (!n)
			break;
	}
	m->fill_err = ret;
	CK_EQ(0, kav_tell_parent(&m->fl, 'f'));
	CK_EQ('x', kav_wait_parent(&m->fl));
	close(av);
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(trust, small_memcg_full_create_enomem, 180)
{
	struct memcg *m = kav_shared(sizeof(*m));
	struct kav_job_arg cr = { CG_MEM, { UID_MEM, UID_MEM, mem_creator,
					    m } };
	struct kav_as_arg fl = { UID_MEM, UID_MEM, mem_filler, m };
	int64_t ooms;
	pid_t pc, pf;
	int rc, ret, c;

	ASSERT_NE(NULL, m);
	ret = kav_cgroup_memory_enable(&self->memory_enabled);
	if (ret == -ENODEV)
		SKIP(return, "no memory controller");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, kav_sync_init(&m->cr));
	ASSERT_EQ(0, kav_sync_init(&m->fl));
	kav_cgroup_remove(CG_MEM);
	ASSERT_EQ(0, kav_cgroup_make(CG_MEM));
	ASSERT_EQ(0, kav_cgroup_write(CG_MEM, "memory.max", MEM_MAX));
	kav_cgroup_write(CG_MEM, "memory.swap.max", "0\n");
	ASSERT_EQ(0, kav_set_allow_keyless(true));	/* the filler's */
	m->create = 1;

	pc = kav_spawn(kav_job_trampoline, &cr);
	ASSERT_EQ('c', kav_wait_child_step(&m->cr, pc, STEP_MS, &rc))
		TH_LOG("creator ended with %d", rc);
	pf = kav_spawn(kav_as_trampoline, &fl);
	c = kav_wait_child_step(&m->fl, pf, 120000, &rc);
	EXPECT_EQ('f', c) TH_LOG("filler ended with %d", rc);
	TH_LOG("filled %llu entries, then %s",
	       (unsigned long long)m->filled, strerror(-m->fill_err));
	EXPECT_EQ(-ENOMEM, m->fill_err)
		TH_LOG("the creator's cgroup never filled");

	/* Full: the creator's next AV is refused, and it lives on. */
	kav_tell_child(&m->cr, 'f');
	c = kav_wait_child_step(&m->cr, pc, STEP_MS, &rc);
	ooms = kav_cgroup_read_key(CG_MEM, "memory.events", "oom_kill");
	EXPECT_EQ('d', c) TH_LOG("creator ended with %d", rc);
	TH_LOG("%d AVs created once full, then %s", m->created,
	       m->create < 0 ? strerror(-m->create) : "no refusal");
	EXPECT_EQ(-ENOMEM, m->create);
	EXPECT_EQ(0, ooms);
	if (c == 'd')
		EXPECT_EQ(0, kav_reap_timeout(pc, STEP_MS));
	kav_tell_child(&m->fl, 'x');
	EXPECT_EQ(0, kav_reap_timeout(pf, STEP_MS));
	kav_sync_close(&m->cr);
	kav_sync_close(&m->fl);
	EXPECT_EQ(0, kav_cgroup_remove(CG_MEM));
}

/* KAV_AV_OWNER and owner_uid: every combination the uAPI refuses. */
static int owner_flags(void *arg)
{
	const struct kav_av_create base = {
		.size = sizeof(base), .addr_format = FMT_IN,
	};
	static const char name[] = "kav_trust_nobody_has";
	struct kav_av_create c = { 0 };
	int dom;

	dom = kav_open_domain();
	CK(dom >= 0);
	/* KAV_AV_OWNER without KAV_AV_NAMED. */
	c = base;
	c.flags = KAV_AV_OWNER;
	c.owner_uid = UID_JOBS;
	CK_EQ(-EINVAL, create_raw(dom, &c));
	c = base;
	c.flags = KAV_AV_OWNER;
	CK_EQ(-EINVAL, create_raw(dom, &c));
	/* owner_uid without the flag, named or not. */
	c = base;
	c.owner_uid = UID_JOBS;
	CK_EQ(-EINVAL, create_raw(dom, &c));
	c = base;
	c.flags = KAV_AV_NAMED;
	c.name = (uintptr_t)name;
	c.name_len = sizeof(name) - 1;
	c.owner_uid = UID_JOBS;
	CK_EQ(-EINVAL, create_raw(dom, &c));
	c.flags = KAV_AV_NAMED | KAV_AV_RDONLY;
	CK_EQ(-EINVAL, create_raw(dom, &c));
	/* __reserved, with and without the flag. */
	c = base;
	c.__reserved = 1;
	CK_EQ(-EINVAL, create_raw(dom, &c));
	c = base;
	c.flags = KAV_AV_NAMED | KAV_AV_OWNER;
	c.name = (uintptr_t)name;
	c.name_len = sizeof(name) - 1;
	c.owner_uid = UID_JOBS;
	c.__reserved = 1;
	CK_EQ(-EINVAL, create_raw(dom, &c));
	/* A well-formed KAV_AV_OWNER call never creates. */
	c.__reserved = 0;
	CK_EQ(-ENOENT, create_raw(dom, &c));
	c.flags |= KAV_AV_RDONLY;
	c.addr_format = 0;
	CK_EQ(-ENOENT, create_raw(dom, &c));
	/* Nothing was created, in the caller's names either. */
	CK_EQ(-ENOENT, kav_av_named(dom, name, KAV_AV_RDONLY, 0, 0, 0, NULL));
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(trust, small_owner_flag_validation, 60)
{
	struct kav_nl_stats s0, s1;

	ASSERT_EQ(0, kav_nl_stats(&self->nl, &s0));
	EXPECT_EQ(0, kav_run_as(UID_SMALL, owner_flags, NULL));
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &s1));
	EXPECT_EQ(s0.avs, s1.avs);
}

/* ====================== 5. insert, mprotect and remove racing on one fd */

#define UID_RACE	1006
#define UID_NOBODY	65534
#define VNI_RACE	0x7101
#define RACE_HOST	0x0a600000
#define RACE_BATCH	1024
#define RACE_SECONDS	12
#define RACE_BIG	4096
#define RACE_MAX_IDX	(1u << 20)

struct race_report {
	/* What the threads did. */
	uint64_t ins_ok, ins_efault, ins_other;
	int ins_err;
	uint64_t rm_batch_fail;
	int rm_batch_err;
	uint64_t rm0_ok, rm0_einval, rm0_other;
	int rm0_err;
	uint64_t flips;
	int stuck;			/* threads that never came back */
	/* The table after the race, as mapped. */
	uint64_t generation, nr_valid, nr_slots, counted;
	uint64_t fi_bad, key_bad, cleared, cleared_bad, unused_bad;
	uint64_t seq_odd, slot0, other_slots;
	/* A large insert after it. */
	int big;
	uint64_t big_bad, big_nr_valid, big_slot0;
	/* Everything removed. */
	int rm_all;
	uint64_t end_nr_valid, end_slot0;
};

struct race_arg {
	struct kav_sync sync;
	bool keyed;
	struct race_report r;
};

/* What the inserting and removing threads share (one AV fd). */
struct racer {
	int av;
	const struct sockaddr_in *addrs;	/* RACE_BATCH of them */
	uint64_t *fi;				/* output, flipped by B */
	uint64_t *list;				/* A's copy of it */
	uint8_t *used;				/* indices handed out */
	atomic_int stop;
	struct race_report *r;
};

/* A: insert a batch, remove it again but for index 0 (C's). */
static void *race_insert(void *arg)
{
	struct racer *x = arg;
	struct race_report *r = x->r;
	uint32_t i, n;
	uint64_t idx;
	int ret;

	while (!atomic_load(&x->stop)) {
		ret = kav_insert_keyed(x->av, x->addrs, RACE_BATCH, NULL, x->fi,
				       NULL);
		if (ret == -EFAULT) {
			r->ins_efault++;
			continue;
		}
		if (ret) {
			r->ins_other++;
			r->ins_err = ret;
			continue;
		}
		r->ins_ok++;
		for (i = n = 0; i < RACE_BATCH; i++) {
			idx = x->fi[i];
			if (idx < RACE_MAX_IDX)
				x->used[idx] = 1;
			if (idx)
				x->list[n++] = idx;
		}
		ret = kav_remove(x->av, x->list, n, NULL);
		if (ret) {
			r->rm_batch_fail++;
			r->rm_batch_err = ret;
		}
	}
	return NULL;
}

/* C: remove index 0, again and again. */
static void *race_remove0(void *arg)
{
	const uint64_t zero = 0;
	struct racer *x = arg;
	struct race_report *r = x->r;
	int ret;

	while (!atomic_load(&x->stop)) {
		ret = kav_remove(x->av, &zero, 1, NULL);
		if (!ret) {
			r->rm0_ok++;
			x->used[0] = 1;
		} else if (ret == -EINVAL) {
			r->rm0_einval++;
		} else {
			r->rm0_other++;
			r->rm0_err = ret;
		}
	}
	return NULL;
}

/*
 * An invalid entry, removed or never used, reads as table-layout.rst
 * says: no flags, no address, bound to no key (KAV_ENTRY_NO_KEY, not
 * slot 0).
 */
static bool entry_is_clear(const volatile struct kav_entry *e)
{
	static const uint8_t zero[sizeof(struct sockaddr_in)];

	return !e->flags && !e->addr_len && e->auth_key == KAV_ENTRY_NO_KEY &&
	       e->user_id == KAV_NONE &&
	       !memcmp((const void *)e->addr, zero, sizeof(zero));
}

/* Count what the mapped table says against what its entries are. */
static void race_check_table(const volatile struct kav_table_header *h,
			     bool keyed, const uint8_t *used,
			     struct race_report *r)
{
	const uint8_t key = keyed ? 0 : KAV_ENTRY_NO_KEY;
	const volatile struct kav_entry *e;
	uint64_t i, n, fi;

	r->generation = h->generation;
	r->nr_valid = h->nr_valid;
	r->nr_slots = h->nr_slots;
	n = r->nr_slots;
	if (n > 4 * RACE_MAX_IDX)
		n = 4 * RACE_MAX_IDX;
	for (i = 0; i < n; i++) {
		e = kav_entry_at(h, i);
		fi = kav_fi_addr_at(h, i);
		r->seq_odd += e->seq & 1;
		if (e->flags & KAV_ENTRY_VALID) {
			r->counted++;
			r->fi_bad += fi != i;
			r->key_bad += e->auth_key != key;
			continue;
		}
		r->fi_bad += fi != KAV_NONE;
		if (i < RACE_MAX_IDX && used[i]) {
			r->cleared++;
			r->cleared_bad += !entry_is_clear(e);
		} else {
			r->unused_bad += !entry_is_clear(e);
		}
	}
	r->slot0 = kav_uses(h, 0)->nr_entries;
	for (i = 1; i < KAV_MAX_AUTH_KEYS; i++)
		r->other_slots += kav_uses(h, i)->nr_entries;
	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++)
		r->seq_odd += kav_slot(h, i)->seq & 1;
}

/* Remove every valid entry: 0 or the first error. */
static int race_remove_all(int av, const volatile struct kav_table_header *h)
{
	uint64_t n = h->nr_slots, i, *idx;
	uint32_t k = 0;
	int ret = 0;

	idx = calloc(KAV_BATCH_MAX, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		if (kav_entry_at(h, i)->flags & KAV_ENTRY_VALID)
			idx[k++] = i;
		if (k == KAV_BATCH_MAX || (i + 1 == n && k)) {
			ret = kav_remove(av, idx, k, NULL);
			k = 0;
		}
	}
	free(idx);
	return ret;
}

/* The large insert after the race: is each entry where it says? */
static void race_big_insert(int av, const volatile struct kav_table_header *h,
			    bool keyed, struct race_report *r)
{
	const uint8_t key = keyed ? 0 : KAV_ENTRY_NO_KEY;
	const volatile struct kav_entry *e;
	struct sockaddr_in *sin;
	uint64_t *fi, i;

	sin = calloc(RACE_BIG, sizeof(*sin));
	fi = calloc(RACE_BIG, sizeof(*fi));
	if (!sin || !fi) {
		r->big = -ENOMEM;
		goto out;
	}
	for (i = 0; i < RACE_BIG; i++)
		sin[i] = kav_sin(RACE_HOST + 0x10000 + i, 7101);
	r->big = kav_insert_keyed(av, sin, RACE_BIG, NULL, fi, NULL);
	for (i = 0; !r->big && i < RACE_BIG; i++) {
		if (fi[i] >= h->nr_slots) {
			r->big_bad++;
			continue;
		}
		e = kav_entry_at(h, fi[i]);
		r->big_bad += !(e->flags & KAV_ENTRY_VALID) ||
			      e->auth_key != key ||
			      memcmp((const void *)e->addr, &sin[i],
				     sizeof(sin[i]));
	}
	r->big_nr_valid = h->nr_valid;
	r->big_slot0 = kav_uses(h, 0)->nr_entries;
out:
	free(sin);
	free(fi);
}

/*
 * The tenant: a domain (keyed or not) and an AV; thread A inserts, B
 * flips A's output between read-only and writable, C removes index 0.
 * Then the table is checked, and the parent checks the grant.
 */
static int race_tenant(void *arg)
{
	struct race_arg *a = arg;
	struct race_report *r = &a->r;
	struct racer x = { 0 };
	struct flipper f = { 0 };
	struct sockaddr_in *addrs;
	struct kav_av_create c = { 0 };
	struct kav_map m = { 0 };
	struct timespec ts;
	pthread_t t[3];
	int dom, i;

	dom = kav_open_domain();
	CK(dom >= 0);
	if (a->keyed)
		CK_EQ(0, kav_domain_set_key(dom, VNI_RACE));
	x.av = kav_create_av(dom, FMT_IN, &c);
	CK(x.av >= 0);
	CK_EQ(0, kav_map_av(x.av, c.map_size, &m));
	addrs = calloc(RACE_BATCH, sizeof(*addrs));
	x.list = calloc(RACE_BATCH, sizeof(*x.list));
	x.used = calloc(RACE_MAX_IDX, 1);
	CK(addrs && x.list && x.used);
	for (i = 0; i < RACE_BATCH; i++)
		addrs[i] = kav_sin(RACE_HOST + i, 7100);
	x.addrs = addrs;
	x.r = r;
	f.len = RACE_BATCH * sizeof(uint64_t);
	f.addr = mmap(NULL, f.len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CK(f.addr != MAP_FAILED);
	memset(f.addr, 0, f.len);
	x.fi = f.addr;

	CK_EQ(0, pthread_create(&t[0], NULL, race_insert, &x));
	CK_EQ(0, pthread_create(&t[1], NULL, flip_pages, &f));
	CK_EQ(0, pthread_create(&t[2], NULL, race_remove0, &x));
	sleep(RACE_SECONDS);
	atomic_store(&x.stop, 1);
	atomic_store(&f.stop, 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 20;
	for (i = 0; i < 3; i++)
		if (pthread_timedjoin_np(t[i], NULL, &ts))
			r->stuck++;
	r->flips = f.flips;
	race_check_table(m.h, a->keyed, x.used, r);
	CK_EQ(0, kav_tell_parent(&a->sync, 'r'));
	if (r->stuck)
		return 2;	/* the table lock is gone for good */

	CK_EQ('g', kav_wait_parent(&a->sync));
	race_big_insert(x.av, m.h, a->keyed, r);
	CK_EQ(0, kav_tell_parent(&a->sync, 'b'));
	CK_EQ('h', kav_wait_parent(&a->sync));
	r->rm_all = race_remove_all(x.av, m.h);
	r->end_nr_valid = m.h->nr_valid;
	r->end_slot0 = kav_uses(m.h, 0)->nr_entries;
	CK_EQ(0, kav_tell_parent(&a->sync, 'e'));
	CK_EQ('x', kav_wait_parent(&a->sync));
	munmap(f.addr, f.len);
	kav_unmap_av(&m);
	close(x.av);
	close(dom);
	return 0;
}

/* The grant's entries and AVs, as GRANT_GET counts them. */
static void expect_grant(struct __test_metadata *_metadata,
			 struct kav_nl *nl, uint32_t id, uint64_t entries,
			 uint32_t avs)
{
	struct kav_nl_grant g;

	ASSERT_EQ(0, grant_find(nl, id, &g));
	EXPECT_EQ(entries, g.nr_entries);
	EXPECT_EQ(avs, g.nr_avs);
}

static void race_round(struct __test_metadata *_metadata,
		       FIXTURE_DATA(trust) *self, bool keyed)
{
	struct race_arg *a = kav_shared(sizeof(*a));
	struct kav_as_arg as = { keyed ? UID_RACE : UID_NOBODY,
				 keyed ? UID_RACE : UID_NOBODY,
				 race_tenant, a };
	const char *what = keyed ? "keyed" : "keyless";
	struct race_report *r;
	uint32_t gid = 0;
	pid_t pid;
	int rc, c;

	ASSERT_NE(NULL, a);
	r = &a->r;
	a->keyed = keyed;
	ASSERT_EQ(0, kav_sync_init(&a->sync));
	if (keyed) {
		gid = grant_uid(_metadata, self, VNI_RACE, UID_RACE);
		ASSERT_NE(0, gid);
	}
	ASSERT_EQ(0, kav_set_allow_keyless(!keyed));

	pid = kav_spawn(kav_as_trampoline, &as);
	c = kav_wait_child_step(&a->sync, pid, (RACE_SECONDS + 60) * 1000,
				&rc);
	EXPECT_EQ('r', c) TH_LOG("%s: the tenant ended with %d", what, rc);
	if (c != 'r')
		goto gone;
	TH_LOG("%s: %llu inserts of %d went in, %llu got EFAULT, %llu other; "
	       "index 0 removed %llu times; output flipped %llu times", what,
	       (unsigned long long)r->ins_ok, RACE_BATCH,
	       (unsigned long long)r->ins_efault,
	       (unsigned long long)r->ins_other,
	       (unsigned long long)r->rm0_ok, (unsigned long long)r->flips);
	TH_LOG("%s: after it nr_valid %llu, %llu valid entries, slot 0 "
	       "counts %llu", what, (unsigned long long)r->nr_valid,
	       (unsigned long long)r->counted, (unsigned long long)r->slot0);
	EXPECT_EQ(0, r->stuck)
		TH_LOG("%s: %d threads never came back from kav", what,
		       r->stuck);
	EXPECT_EQ(0, r->ins_other) TH_LOG("insert: %d", r->ins_err);
	EXPECT_EQ(0, r->rm_batch_fail) TH_LOG("remove: %d", r->rm_batch_err);
	EXPECT_EQ(0, r->rm0_other) TH_LOG("remove of 0: %d", r->rm0_err);
	/* The race was run: all three outcomes happened. */
	EXPECT_LT(0, r->ins_ok);
	EXPECT_LT(0, r->ins_efault);
	EXPECT_LT(0, r->rm0_ok);
	/* The counters are the entries', removed entries have no key. */
	EXPECT_EQ(0, r->generation % 2);
	EXPECT_EQ(0, r->seq_odd);
	EXPECT_EQ(r->counted, r->nr_valid);
	EXPECT_EQ(0, r->fi_bad);
	EXPECT_EQ(0, r->key_bad);
	EXPECT_LT(0, r->cleared);
	EXPECT_EQ(0, r->cleared_bad);
	EXPECT_EQ(0, r->unused_bad);
	EXPECT_EQ(keyed ? r->counted : 0, r->slot0);
	EXPECT_EQ(0, r->other_slots);
	if (keyed)
		expect_grant(_metadata, &self->nl, gid, r->counted, 1);
	if (r->stuck)
		goto gone;

	kav_tell_child(&a->sync, 'g');
	c = kav_wait_child_step(&a->sync, pid, STEP_MS, &rc);
	EXPECT_EQ('b', c)
		TH_LOG("%s: the tenant ended with %d in an insert of %d",
		       what, rc, RACE_BIG);
	if (c != 'b')
		goto gone;
	EXPECT_EQ(0, r->big) TH_LOG("%s", strerror(-r->big));
	EXPECT_EQ(0, r->big_bad);
	EXPECT_EQ(r->counted + RACE_BIG, r->big_nr_valid);
	EXPECT_EQ(keyed ? r->counted + RACE_BIG : 0, r->big_slot0);
	if (keyed)
		expect_grant(_metadata, &self->nl, gid, r->counted + RACE_BIG,
			     1);

	kav_tell_child(&a->sync, 'h');
	c = kav_wait_child_step(&a->sync, pid, STEP_MS, &rc);
	EXPECT_EQ('e', c) TH_LOG("%s: the tenant ended with %d", what, rc);
	if (c != 'e')
		goto gone;
	EXPECT_EQ(0, r->rm_all);
	EXPECT_EQ(0, r->end_nr_valid);
	EXPECT_EQ(0, r->end_slot0);
	if (keyed)
		expect_grant(_metadata, &self->nl, gid, 0, 1);
	kav_tell_child(&a->sync, 'x');
	EXPECT_EQ(0, kav_reap_timeout(pid, STEP_MS));
	if (keyed) {
		expect_grant(_metadata, &self->nl, gid, 0, 0);
		/* Nothing holds a table lock: a revoke goes through. */
		EXPECT_EQ(0, revoke_grant(self, gid));
	}
	kav_sync_close(&a->sync);
	return;
gone:
	/*
	 * The tenant died or hangs in kav (15fc615 oopses holding the
	 * table lock): a revoke could wait for that lock forever, so the
	 * grant is left alone, and so is the tenant.
	 */
	if (keyed)
		forget_grant(self, gid);
	kav_reap_timeout(pid, 1000);
}

/* Last: on 15fc615 it leaves a table lock held, and revokes hang. */
TEST_F_TIMEOUT(trust, race_insert_efault_remove, 300)
{
	race_round(_metadata, self, true);
	race_round(_metadata, self, false);
}

TEST_HARNESS_MAIN
