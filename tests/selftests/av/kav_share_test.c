// SPDX-License-Identifier: GPL-2.0
/*
 * Job AVs through libkav and the real device (kav_av_open_job(3)): the
 * private AVs of one job's processes share the job's node table.
 *
 * A second process of the job inserts addresses the first one inserted
 * with no insert system call (a seccomp filter kills it on
 * KAV_IOC_AV_INSERT), under FI_AV_MAP (same fi_addrs: table indices) and
 * FI_AV_TABLE (its own positions). A process of another uid, or under
 * another key, shares nothing. A revoked key refuses inserts, found or
 * not; a full table refuses new addresses only. A process that closes
 * its AV and exits leaves the other working. A forked child's view is a
 * copy: what it removes or inserts is its own.
 */
#include <kav/kav.h>

#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"
#include "kav_test_grants.h"
#include "kav_test_seccomp.h"

#define OTHER_UID	1000
/* Each test its own keys, so that it never meets another test's table. */
#define VNI_BASE	27700

static int open_domain(uint32_t vni, struct fid_domain **dom)
{
	struct kav_auth_key key = { .vni = vni };
	struct fi_domain_attr dattr = { .auth_key = (uint8_t *)&key,
					.auth_key_size = sizeof(key) };
	struct fi_info info = { .addr_format = FI_SOCKADDR_IN,
				.domain_attr = &dattr };

	return kav_domain_open(&info, dom, NULL);
}

/* A domain for @vni and a job AV of @type in it. */
static int open_job(uint32_t vni, enum fi_av_type type,
		    struct fid_domain **dom, struct fid_av **av)
{
	struct fi_av_attr attr = { .type = type, .count = 64 };
	int ret = open_domain(vni, dom);

	if (ret)
		return ret;
	ret = kav_av_open_job(*dom, &attr, av, NULL);
	if (ret)
		fi_close(&(*dom)->fid);
	return ret;
}

static void close_job(struct fid_domain *dom, struct fid_av *av)
{
	fi_close(&av->fid);
	fi_close(&dom->fid);
}

static struct sockaddr_in addr(uint32_t n)
{
	struct sockaddr_in s = { .sin_family = AF_INET,
				 .sin_port = htons(5000 + (n & 0xfff)) };

	s.sin_addr.s_addr = htonl(0x0a000000 | n);
	return s;
}

/* Does @av's @fa name @want? */
static int holds(struct fid_av *av, fi_addr_t fa, const struct sockaddr_in *want)
{
	struct sockaddr_in got;
	size_t len = sizeof(got);

	memset(&got, 0, sizeof(got));
	return !fi_av_lookup(av, fa, &got, &len) && len == sizeof(got) &&
	       !memcmp(&got, want, sizeof(got));
}

static int invalid(struct fid_av *av, fi_addr_t fa)
{
	struct sockaddr_in got;
	size_t len = sizeof(got);

	return fi_av_lookup(av, fa, &got, &len) == -FI_EINVAL;
}

/* ---------------------------------------------------------------- share */

#define NR	8

struct share_arg {
	uint32_t vni;
	enum fi_av_type type;
	fi_addr_t first[NR];		/* the first process's (MAP) fi_addrs */
};

/* The second process: every address is on the node: no insert call. */
static int second_process(void *p)
{
	struct share_arg *a = p;
	struct sockaddr_in in[NR], extra = addr(900);
	struct kav_av_job_stats st;
	struct fid_domain *dom;
	struct fid_av *av;
	fi_addr_t fa[NR];
	int i;

	for (i = 0; i < NR; i++)
		in[i] = addr(i + 1);
	CK_EQ(open_job(a->vni, a->type, &dom, &av), 0);
	/* Not inserted here: nothing, though the table holds it. */
	CK(invalid(av, a->type == FI_AV_MAP ? a->first[0] : 0));
	/* Warm the view's arrays up, so only the inserts below count. */
	CK_EQ(fi_av_insert(av, &extra, 1, NULL, 0, NULL), 1);
	CK_EQ(forbid_ioctl(KAV_IOC_AV_INSERT), 0);
	/* One at a time, as Open MPI does, and all in one call. */
	for (i = 0; i < NR / 2; i++)
		CK_EQ(fi_av_insert(av, &in[i], 1, &fa[i], 0, NULL), 1);
	CK_EQ(fi_av_insert(av, &in[NR / 2], NR / 2, &fa[NR / 2], 0, NULL),
	      NR / 2);
	for (i = 0; i < NR; i++) {
		if (a->type == FI_AV_MAP)
			CK_EQ(fa[i], a->first[i]);
		else
			CK_EQ(fa[i], i + 1);	/* position 0 is extra's */
		CK(holds(av, fa[i], &in[i]));
	}
	CK_EQ(kav_av_job_stats(av, &st), 0);
	CK_EQ(st.found, NR);
	CK_EQ(st.calls, 1);			/* extra's */
	close_job(dom, av);
	return 0;
}

static void share(struct __test_metadata *_metadata, uint32_t vni,
		  enum fi_av_type type)
{
	struct share_arg a = { .vni = vni, .type = type };
	struct sockaddr_in in[NR];
	struct fid_domain *dom;
	struct fid_av *av;
	uint32_t id = kav_test_grant_one(vni, 0, 0);
	int i;

	ASSERT_NE(0, id);
	for (i = 0; i < NR; i++)
		in[i] = addr(i + 1);
	ASSERT_EQ(0, open_job(vni, FI_AV_MAP, &dom, &av));
	ASSERT_EQ(NR, fi_av_insert(av, in, NR, a.first, 0, NULL));
	EXPECT_EQ(0, kav_reap(kav_spawn(second_process, &a)));
	close_job(dom, av);
	EXPECT_EQ(0, kav_test_grant_del(id));
}

TEST(a_second_process_inserts_with_no_system_call_map)
{
	share(_metadata, VNI_BASE + 1, FI_AV_MAP);
}

TEST(a_second_process_inserts_with_no_system_call_table)
{
	share(_metadata, VNI_BASE + 2, FI_AV_TABLE);
}

/* ------------------------------------------------------------ isolation */

/* Inserts addr(1) (which the parent's table holds): one that is new. */
static int outsider(void *p)
{
	uint32_t *vni = p;
	struct sockaddr_in in = addr(1);
	struct kav_av_job_stats st;
	struct fid_domain *dom;
	struct fid_av *av;

	CK_EQ(open_job(*vni, FI_AV_MAP, &dom, &av), 0);
	CK_EQ(fi_av_insert(av, &in, 1, NULL, 0, NULL), 1);
	CK_EQ(kav_av_job_stats(av, &st), 0);
	CK_EQ(st.found, 0);
	CK_EQ(st.sent, 1);
	close_job(dom, av);
	return 0;
}

TEST(another_uid_or_key_shares_nothing)
{
	uint32_t vni = VNI_BASE + 3, other = VNI_BASE + 4;
	uint32_t id = kav_test_grant_one(vni, 0, 0);
	uint32_t id2 = kav_test_grant_one(vni, OTHER_UID, 0);
	uint32_t id3 = kav_test_grant_one(other, 0, 0);
	struct sockaddr_in in = addr(1);
	struct fid_domain *dom;
	struct fid_av *av;

	ASSERT_NE(0, id);
	ASSERT_NE(0, id2);
	ASSERT_NE(0, id3);
	ASSERT_EQ(0, open_job(vni, FI_AV_MAP, &dom, &av));
	ASSERT_EQ(1, fi_av_insert(av, &in, 1, NULL, 0, NULL));
	/* The same key, another uid: another job. */
	EXPECT_EQ(0, kav_run_as(OTHER_UID, outsider, &vni));
	/* The same uid, another key: another job. */
	EXPECT_EQ(0, kav_reap(kav_spawn(outsider, &other)));
	close_job(dom, av);
	EXPECT_EQ(0, kav_test_grant_del(id));
	EXPECT_EQ(0, kav_test_grant_del(id2));
	EXPECT_EQ(0, kav_test_grant_del(id3));
}

/* ----------------------------------------------------------- refusals */

TEST(a_revoked_key_refuses_inserts)
{
	uint32_t vni = VNI_BASE + 5, id = kav_test_grant_one(vni, 0, 0);
	struct sockaddr_in a = addr(1), b = addr(2);
	struct fid_domain *dom, *dom2;
	struct fid_av *av, *av2;
	struct kav_resolved res;
	fi_addr_t fa, fb;
	int err = 0;

	ASSERT_NE(0, id);
	ASSERT_EQ(0, open_job(vni, FI_AV_MAP, &dom, &av));
	ASSERT_EQ(0, open_job(vni, FI_AV_TABLE, &dom2, &av2));
	ASSERT_EQ(1, fi_av_insert(av, &a, 1, &fa, 0, NULL));
	ASSERT_EQ(0, kav_test_grant_del(id));
	/* Found on the node: refused all the same. */
	EXPECT_EQ(0, fi_av_insert(av2, &a, 1, &fb, FI_SYNC_ERR, &err));
	EXPECT_EQ(FI_EKEYREJECTED, err);
	EXPECT_EQ(FI_ADDR_NOTAVAIL, fb);
	/* New: refused. */
	err = 0;
	EXPECT_EQ(0, fi_av_insert(av2, &b, 1, &fb, FI_SYNC_ERR, &err));
	EXPECT_EQ(FI_EKEYREJECTED, err);
	/* Reads say so, as for a private AV. */
	EXPECT_EQ(-FI_EKEYREJECTED, kav_av_resolve(av, fa, &res));
	EXPECT_TRUE(res.revoked);
	close_job(dom2, av2);
	close_job(dom, av);
}

static int write_param(const char *val)
{
	int fd = open("/sys/module/kav/parameters/max_entries", O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -EIO;
}

static int read_param(char *buf, size_t len)
{
	int fd = open("/sys/module/kav/parameters/max_entries", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	return 0;
}

TEST(a_full_table_refuses_new_addresses_only)
{
	uint32_t vni = VNI_BASE + 6, id = kav_test_grant_one(vni, 0, 0);
	struct sockaddr_in in[3] = { addr(1), addr(2), addr(3) };
	struct fid_domain *dom, *dom2;
	struct fid_av *av, *av2;
	char saved[32];
	fi_addr_t fa;
	int err = 0;

	ASSERT_NE(0, id);
	ASSERT_EQ(0, read_param(saved, sizeof(saved)));
	ASSERT_EQ(0, write_param("2"));
	ASSERT_EQ(0, open_job(vni, FI_AV_TABLE, &dom, &av));
	EXPECT_EQ(0, write_param(saved));
	ASSERT_EQ(0, open_job(vni, FI_AV_TABLE, &dom2, &av2));
	ASSERT_EQ(2, fi_av_insert(av, in, 2, NULL, 0, NULL));
	EXPECT_EQ(0, fi_av_insert(av2, &in[2], 1, &fa, FI_SYNC_ERR, &err));
	EXPECT_EQ(FI_ENOSPC, err);
	EXPECT_EQ(1, fi_av_insert(av2, &in[1], 1, &fa, 0, NULL));
	EXPECT_EQ(0, fa);
	close_job(dom2, av2);
	close_job(dom, av);
	EXPECT_EQ(0, kav_test_grant_del(id));
}

/* ---------------------------------------------------- exit and fork */

struct exit_arg {
	uint32_t vni;
	int ready[2], go[2];
};

/* A rank that inserts, tells, waits, then closes and exits. */
static int rank_that_exits(void *p)
{
	struct exit_arg *a = p;
	struct sockaddr_in in[2] = { addr(1), addr(2) };
	struct fid_domain *dom;
	struct fid_av *av;
	char c = 0;

	CK_EQ(open_job(a->vni, FI_AV_MAP, &dom, &av), 0);
	CK_EQ(fi_av_insert(av, in, 2, NULL, 0, NULL), 2);
	CK_EQ(write(a->ready[1], &c, 1), 1);
	CK_EQ(read(a->go[0], &c, 1), 1);
	close_job(dom, av);
	return 0;
}

TEST(a_rank_exits_the_other_keeps_working)
{
	struct exit_arg a = { .vni = VNI_BASE + 7 };
	struct sockaddr_in in[3] = { addr(1), addr(2), addr(3) };
	uint32_t id = kav_test_grant_one(a.vni, 0, 0);
	struct kav_av_job_stats st;
	struct fid_domain *dom;
	struct fid_av *av;
	fi_addr_t fa[3];
	pid_t pid;
	char c = 0;

	ASSERT_NE(0, id);
	ASSERT_EQ(0, pipe(a.ready));
	ASSERT_EQ(0, pipe(a.go));
	pid = kav_spawn(rank_that_exits, &a);
	ASSERT_EQ(1, read(a.ready[0], &c, 1));
	ASSERT_EQ(0, open_job(a.vni, FI_AV_TABLE, &dom, &av));
	ASSERT_EQ(2, fi_av_insert(av, in, 2, fa, 0, NULL));
	ASSERT_EQ(1, write(a.go[1], &c, 1));
	EXPECT_EQ(0, kav_reap(pid));
	/* Its entries stay for us; new ones still go in. */
	EXPECT_TRUE(holds(av, fa[0], &in[0]));
	EXPECT_TRUE(holds(av, fa[1], &in[1]));
	EXPECT_EQ(1, fi_av_insert(av, &in[2], 1, &fa[2], 0, NULL));
	EXPECT_TRUE(holds(av, fa[2], &in[2]));
	EXPECT_EQ(0, kav_av_job_stats(av, &st));
	EXPECT_EQ(2, st.found);
	EXPECT_EQ(1, st.sent);
	close_job(dom, av);
	EXPECT_EQ(0, kav_test_grant_del(id));
}

struct fork_arg {
	struct fid_av *av;
	fi_addr_t fa;
	struct sockaddr_in in, other;
	fi_addr_t other_fa;		/* out, through a pipe */
	int pipe[2];
};

/* A forked child: the parent's view, copied; its changes its own. */
static int forked_child(void *p)
{
	struct fork_arg *a = p;
	fi_addr_t fa;

	CK(holds(a->av, a->fa, &a->in));
	CK_EQ(fi_av_remove(a->av, &a->fa, 1, 0), 0);
	CK(invalid(a->av, a->fa));
	CK_EQ(fi_av_insert(a->av, &a->other, 1, &fa, 0, NULL), 1);
	CK(holds(a->av, fa, &a->other));
	CK_EQ(write(a->pipe[1], &fa, sizeof(fa)), sizeof(fa));
	return 0;
}

TEST(fork_copies_the_view)
{
	uint32_t vni = VNI_BASE + 8, id = kav_test_grant_one(vni, 0, 0);
	struct fork_arg a = { .in = addr(1), .other = addr(2) };
	struct kav_av_job_stats st;
	struct fid_domain *dom;
	fi_addr_t fa;

	ASSERT_NE(0, id);
	ASSERT_EQ(0, pipe(a.pipe));
	ASSERT_EQ(0, open_job(vni, FI_AV_MAP, &dom, &a.av));
	ASSERT_EQ(1, fi_av_insert(a.av, &a.in, 1, &a.fa, 0, NULL));
	EXPECT_EQ(0, kav_reap(kav_spawn(forked_child, &a)));
	ASSERT_EQ(sizeof(a.other_fa), read(a.pipe[0], &a.other_fa,
					   sizeof(a.other_fa)));
	/* The child's remove was its own; its insert too ... */
	EXPECT_TRUE(holds(a.av, a.fa, &a.in));
	EXPECT_TRUE(invalid(a.av, a.other_fa));
	/* ... but the table holds it: found with no system call. */
	ASSERT_EQ(1, fi_av_insert(a.av, &a.other, 1, &fa, 0, NULL));
	EXPECT_EQ(a.other_fa, fa);
	EXPECT_EQ(0, kav_av_job_stats(a.av, &st));
	EXPECT_EQ(1, st.found);
	close_job(dom, a.av);
	EXPECT_EQ(0, kav_test_grant_del(id));
}

TEST_HARNESS_MAIN
