// SPDX-License-Identifier: GPL-2.0
/*
 * MPI "instant-on" through libkav and the real device, as MPICH does it
 * with FI_NAMED_AV_<appnum>: a launcher process creates the named AV,
 * inserts every rank's address in rank order and exits (an administrator
 * pinned the AV); N rank processes open it with FI_READ and count = N and
 * read ((fi_addr_t *)attr.map_addr)[rank] and its address with no system
 * call. Also: FI_READ's errors, read-only mutations, inserts and
 * removals of one process seen by another at once, and ranks of another
 * user, who name the launcher's uid in $KAV_AV_OWNER (names belong to
 * their owner's uid).
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <kav/kav.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"
#include "kav_test_seccomp.h"

#define AV_NAME		"FI_NAMED_AV_7\n"
#define MAX_RANKS	256

static int nr_ranks(void)
{
	const char *s = getenv("KAV_INSTANT_ON_RANKS");
	int n = s ? atoi(s) : 32;

	return n < 1 ? 1 : n > MAX_RANKS ? MAX_RANKS : n;
}

static struct sockaddr_in rank_addr(int rank)
{
	return kav_sin(0x0a010000 + (uint32_t)rank, (uint16_t)(20000 + rank));
}

static int open_domain(struct fid_domain **dom)
{
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };

	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	return kav_domain_open(&info, dom, NULL);
}

static int open_named(struct fid_domain *dom, const char *name,
		      uint64_t flags, size_t count, struct fid_av **av,
		      struct fi_av_attr *out)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = name,
				   .flags = flags, .count = count };
	int ret = fi_av_open(dom, &attr, av, NULL);

	if (out)
		*out = attr;
	return ret;
}

/* The administrator's side: find the AV by name, pin or unpin it. */
struct find_arg {
	const char *name;
	int64_t id;
};

static int find_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		   const struct kav_nl_attrs *at, void *arg)
{
	struct find_arg *f = arg;
	const struct nlattr *n = at->a[KAV_A_AV_NAME];

	if (n && at->a[KAV_A_AV_ID] &&
	    kav_nl_len(n) == (int)strlen(f->name) &&
	    !memcmp(kav_nl_data(n), f->name, strlen(f->name)))
		f->id = kav_nl_u32(at->a[KAV_A_AV_ID]);
	return 0;
}

static int admin_pin(const char *name, uint8_t cmd)
{
	struct find_arg f = { name, -1 };
	struct kav_nl_msg m;
	struct kav_nl nl;
	int ret;

	if (kav_nl_open(&nl))
		return -ENOSYS;
	ret = kav_nl_dump(&nl, KAV_GENL_CMD_AV_GET, -1, find_cb, &f);
	if (!ret && f.id < 0)
		ret = -ENOENT;
	if (!ret) {
		kav_nl_req(&nl, &m, cmd, 0);
		kav_nl_put_u32(&m, KAV_A_AV_ID, (uint32_t)f.id);
		ret = kav_nl_talk(&nl, &m, NULL, NULL);
	}
	kav_nl_close(&nl);
	return ret;
}

/* The launcher: create, fill in rank order, wait for the pin, exit. */
struct launch {
	struct kav_sync sync;
	int ranks;		/* addresses to insert */
};

static int launcher(void *p)
{
	struct launch *l = p;
	struct sockaddr_in addrs[MAX_RANKS];
	fi_addr_t fi[MAX_RANKS];
	struct fid_domain *dom;
	struct fid_av *av;
	int i;

	CK(!open_domain(&dom));
	CK(!open_named(dom, AV_NAME, 0, (size_t)l->ranks, &av, NULL));
	for (i = 0; i < l->ranks; i++)
		addrs[i] = rank_addr(i);
	CK_EQ(fi_av_insert(av, addrs, (size_t)l->ranks, fi, 0, NULL),
	      l->ranks);
	for (i = 0; i < l->ranks; i++)
		CK_EQ(fi[i], i);
	CK(!kav_tell_parent(&l->sync, 'f'));
	CK(kav_wait_parent(&l->sync) == 'p');
	/* Exit without closing anything: the process's exit does. */
	return 0;
}

/* What each rank reports through shared memory (it may not write()). */
struct rank_report {
	int opened;		/* fi_av_open()'s result */
	int done;		/* 1 once the rest is filled in */
	fi_addr_t mine;		/* map_addr[rank] */
	uint64_t map_sum;	/* over map_addr[0..N) */
	int lookup;		/* fi_av_lookup()'s result */
	struct sockaddr_in addr;
};

struct rank_arg {
	struct rank_report *reports;
	int rank, ranks;
};

static int rank_main(void *p)
{
	struct rank_arg *a = p;
	struct rank_report *r = &a->reports[a->rank];
	struct fid_domain *dom;
	struct fi_av_attr attr;
	const fi_addr_t *map;
	struct fid_av *av;
	size_t len;
	int i;

	CK(!open_domain(&dom));
	r->opened = open_named(dom, AV_NAME, FI_READ, (size_t)a->ranks, &av,
			       &attr);
	if (r->opened)
		return 0;
	/* From here on, any system call kills the rank. */
	CK(!forbid_syscalls());
	map = attr.map_addr;
	r->mine = map[a->rank];
	for (i = 0; i < a->ranks; i++)
		r->map_sum += map[i];
	len = sizeof(r->addr);
	r->lookup = fi_av_lookup(av, r->mine, &r->addr, &len);
	r->done = 1;
	syscall(SYS_exit, 0);	/* exit_group would do too; no cleanup */
	return 0;
}

TEST(launcher_fills_ranks_read_map_addr)
{
	int ranks = nr_ranks(), i, failed = 0;
	struct rank_report *reports;
	struct rank_arg args[MAX_RANKS];
	pid_t pids[MAX_RANKS];
	struct launch l = { .ranks = ranks };
	struct fid_domain *dom;
	struct fid_av *av;
	uint64_t sum = 0;
	pid_t launch_pid;

	reports = kav_shared(sizeof(*reports) * MAX_RANKS);
	ASSERT_NE(NULL, reports);
	ASSERT_EQ(0, kav_sync_init(&l.sync));
	launch_pid = kav_spawn(launcher, &l);
	ASSERT_EQ('f', kav_wait_child(&l.sync));
	ASSERT_EQ(0, admin_pin(AV_NAME, KAV_GENL_CMD_AV_PIN));
	ASSERT_EQ(0, kav_tell_child(&l.sync, 'p'));
	ASSERT_EQ(0, kav_reap(launch_pid));

	/* The launcher is gone; every rank starts at once. */
	for (i = 0; i < ranks; i++) {
		args[i] = (struct rank_arg){ reports, i, ranks };
		pids[i] = kav_spawn(rank_main, &args[i]);
	}
	for (i = 0; i < ranks; i++) {
		sum += (uint64_t)i;
		EXPECT_EQ(0, kav_reap(pids[i])) TH_LOG("rank %d", i);
	}
	for (i = 0; i < ranks; i++) {
		const struct rank_report *r = &reports[i];
		struct sockaddr_in want = rank_addr(i);

		if (r->opened || !r->done || r->mine != (fi_addr_t)i ||
		    r->map_sum != sum || r->lookup ||
		    memcmp(&r->addr, &want, sizeof(want)))
			failed++;
		EXPECT_EQ(0, r->opened) TH_LOG("rank %d", i);
		EXPECT_EQ(1, r->done) TH_LOG("rank %d", i);
		EXPECT_EQ((fi_addr_t)i, r->mine);
		/* Every rank sees the same fi_addr_t values. */
		EXPECT_EQ(sum, r->map_sum);
		EXPECT_EQ(0, r->lookup);
		EXPECT_EQ(0, memcmp(&r->addr, &want, sizeof(want)));
	}
	TH_LOG("%d ranks started from the pinned AV, %d failed", ranks,
	       failed);

	/* Unpinned and unused, the AV and its name are gone. */
	EXPECT_EQ(0, admin_pin(AV_NAME, KAV_GENL_CMD_AV_UNPIN));
	ASSERT_EQ(0, open_domain(&dom));
	EXPECT_EQ(-FI_ENOENT, open_named(dom, AV_NAME, FI_READ, 0, &av, NULL));
	EXPECT_EQ(0, fi_close(&dom->fid));
	kav_sync_close(&l.sync);
	munmap(reports, sizeof(*reports) * MAX_RANKS);
}

FIXTURE(shared)
{
	struct fid_domain *dom;
	struct fid_av *rw;		/* the launcher's view */
};

FIXTURE_SETUP(shared)
{
	ASSERT_EQ(0, open_domain(&self->dom));
	ASSERT_EQ(0, open_named(self->dom, "shared", 0, 0, &self->rw, NULL));
}

FIXTURE_TEARDOWN(shared)
{
	fi_close(&self->rw->fid);
	fi_close(&self->dom->fid);
}

TEST_F(shared, read_only_errors)
{
	struct sockaddr_in s = rank_addr(0);
	fi_addr_t fi, out = 0;
	struct fid_av *ro;
	int err = 0;

	/* FI_READ: the AV must exist, and hold count entries. */
	EXPECT_EQ(-FI_ENOENT, open_named(self->dom, "missing", FI_READ, 0,
					 &ro, NULL));
	ASSERT_EQ(1, fi_av_insert(self->rw, &s, 1, &fi, 0, NULL));
	EXPECT_EQ(-FI_EAGAIN, open_named(self->dom, "shared", FI_READ, 2,
					 &ro, NULL));
	ASSERT_EQ(0, open_named(self->dom, "shared", FI_READ, 1, &ro, NULL));
	/*
	 * Every change is refused (inserts report per address: none
	 * inserted, FI_ADDR_NOTAVAIL; with FI_SYNC_ERR, FI_EPERM each) and
	 * nothing changes.
	 */
	EXPECT_EQ(0, fi_av_insert(ro, &s, 1, &out, 0, NULL));
	EXPECT_EQ(FI_ADDR_NOTAVAIL, out);
	EXPECT_EQ(0, fi_av_insert(ro, &s, 1, NULL, FI_SYNC_ERR, &err));
	EXPECT_EQ(FI_EPERM, err);
	EXPECT_EQ(0, fi_av_insertsvc(ro, "10.0.0.9", "99", NULL, 0, NULL));
	EXPECT_EQ(-FI_EPERM, fi_av_remove(ro, &fi, 1, 0));
	EXPECT_EQ(0, fi_av_remove(self->rw, &fi, 1, 0));
	EXPECT_EQ(0, fi_close(&ro->fid));
}

/* Another process's inserts and removes are visible at once. */
static int peer_reader(void *p)
{
	struct kav_sync *s = p;
	struct fid_domain *dom;
	struct fi_av_attr attr;
	const fi_addr_t *map;
	struct sockaddr_in got, want = rank_addr(5);
	struct fid_av *ro;
	size_t len = sizeof(got);

	CK(!open_domain(&dom));
	CK(!open_named(dom, "shared", FI_READ, 0, &ro, &attr));
	map = attr.map_addr;
	CK(!kav_tell_parent(s, 'o'));
	CK(kav_wait_parent(s) == 'i');
	/* Inserted by the parent: entry 0, found through map_addr. */
	CK_EQ(map[0], 0);
	CK_EQ(fi_av_lookup(ro, map[0], &got, &len), 0);
	CK(!memcmp(&got, &want, sizeof(want)));
	CK(!kav_tell_parent(s, 'l'));
	CK(kav_wait_parent(s) == 'r');
	CK_EQ(map[0], FI_ADDR_NOTAVAIL);
	len = sizeof(got);
	CK_EQ(fi_av_lookup(ro, 0, &got, &len), -FI_EINVAL);
	fi_close(&ro->fid);
	fi_close(&dom->fid);
	return 0;
}

TEST_F(shared, changes_seen_by_other_processes_at_once)
{
	struct sockaddr_in s = rank_addr(5);
	struct kav_sync sync;
	fi_addr_t fi;
	pid_t pid;

	ASSERT_EQ(0, kav_sync_init(&sync));
	pid = kav_spawn(peer_reader, &sync);
	ASSERT_EQ('o', kav_wait_child(&sync));
	ASSERT_EQ(1, fi_av_insert(self->rw, &s, 1, &fi, 0, NULL));
	ASSERT_EQ(0, kav_tell_child(&sync, 'i'));
	ASSERT_EQ('l', kav_wait_child(&sync));
	ASSERT_EQ(0, fi_av_remove(self->rw, &fi, 1, 0));
	ASSERT_EQ(0, kav_tell_child(&sync, 'r'));
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&sync);
}

/* ---------------------------------------------- ranks of another user */

#define OTHER_UID	1000

/* As uid 1000: root's AV only through $KAV_AV_OWNER, read-only (0644). */
static int other_user_rank(void *p)
{
	struct sockaddr_in got, want = rank_addr(1);
	struct fid_domain *dom;
	struct fi_av_attr attr;
	const fi_addr_t *map;
	struct fid_av *av;
	size_t len = sizeof(got);

	(void)p;
	CK(!open_domain(&dom));
	unsetenv("KAV_AV_OWNER");
	/* Its own names have no such AV, and FI_READ never creates. */
	CK_EQ(open_named(dom, "owned\n", FI_READ, 2, &av, NULL), -FI_ENOENT);
	setenv("KAV_AV_OWNER", "0", 1);
	CK_EQ(open_named(dom, "owned\n", FI_READ, 2, &av, &attr), 0);
	map = attr.map_addr;
	CK_EQ(map[1], 1);
	CK_EQ(fi_av_lookup(av, map[1], &got, &len), 0);
	CK(!memcmp(&got, &want, sizeof(want)));
	CK_EQ(fi_close(&av->fid), 0);
	/* 0644: others read, never write; nothing is created in root's. */
	CK_EQ(open_named(dom, "owned\n", 0, 0, &av, NULL), -FI_EACCES);
	CK_EQ(open_named(dom, "absent", 0, 0, &av, NULL), -FI_ENOENT);
	/* A uid is a number. */
	setenv("KAV_AV_OWNER", "root", 1);
	CK_EQ(open_named(dom, "owned\n", FI_READ, 0, &av, NULL), -FI_EINVAL);
	unsetenv("KAV_AV_OWNER");
	CK_EQ(fi_close(&dom->fid), 0);
	return 0;
}

TEST(ranks_of_another_user_name_the_owner)
{
	struct sockaddr_in addrs[2] = { rank_addr(0), rank_addr(1) };
	struct fid_domain *dom;
	fi_addr_t fi[2];
	struct fid_av *av;

	ASSERT_EQ(0, open_domain(&dom));
	setenv("KAV_AV_MODE", "0644", 1);
	ASSERT_EQ(0, open_named(dom, "owned\n", 0, 2, &av, NULL));
	unsetenv("KAV_AV_MODE");
	ASSERT_EQ(2, fi_av_insert(av, addrs, 2, fi, 0, NULL));
	EXPECT_EQ(0, kav_run_as(OTHER_UID, other_user_rank, NULL));
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&dom->fid));
}

TEST_HARNESS_MAIN
