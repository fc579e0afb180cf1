// SPDX-License-Identifier: GPL-2.0
/*
 * Administration racing the objects it reports: in each case one process
 * mutates (AVs created and closed, entries inserted and removed while the
 * table grows, pins, domain keys, AV keys, grants) while another reads the
 * same objects the way an administrator does, without their locks
 * (netlink DOMAIN_GET, AV_GET, ENTRY_GET, GRANT_GET dumps and STATS_GET).
 * One process per CPU of the test VM, for KAV_RACE_SECONDS each (1 s; 3 s
 * on a KCSAN kernel).
 *
 * This is the driver for the KCSAN kernel (lanes/vm/debug-kcsan.config,
 * kernel "kcsan" of check.sh): the other race tests race writers against
 * each other and against lock-free readers in user space, which KCSAN
 * cannot see; here the kernel's own unlocked readers meet the writers. On
 * a KCSAN kernel the case samples more accesses while it runs
 * (/sys/module/kcsan/parameters/skip_watch, KAV_RACE_SKIP_WATCH, 100) and
 * restores the setting after. It runs on every kernel: a race there is a
 * crash, a hang or a wrong answer.
 *
 * Checks: every call of both processes succeeds (ENTRY_GET may also find
 * its AV gone: ENOENT); afterwards the domains the test opened report as
 * many AVs as it still holds (NR_AVS), and the grants it added are gone.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_nl_util.h"

#define RACE_VNI	0x5ace0
#define RACE_VNI2	0x5ace1
#define KCSAN_SKIP	"/sys/module/kcsan/parameters/skip_watch"
#define BATCH		64

/* Shared between the parent and both processes of a case. */
struct race_shared {
	int dom;			/* the case's domain, opened before fork */
	uint32_t av_id;			/* the mutator's current AV (ENTRY_GET) */
	uint32_t named_av_id;		/* the named AV being pinned */
};

struct race_proc {
	const char *name;
	/* One step; returns 0 or the unexpected -errno. */
	int (*step)(struct race_shared *sh, struct kav_nl *nl, void **state);
};

/* ------------------------------------------------------------ helpers */

/*
 * Seconds per case: KAV_RACE_SECONDS, else 1, or 3 on a KCSAN kernel (at
 * skip_watch 100 it caught a race that fires all the time about once a
 * second under TCG; more sampling or longer delays slowed both processes
 * down more than they helped).
 */
static double race_seconds(void)
{
	const char *v = getenv("KAV_RACE_SECONDS");
	double dflt = access(KCSAN_SKIP, F_OK) ? 1 : 3;
	double s = v ? atof(v) : dflt;

	return s > 0 ? s : dflt;
}

static int nl_simple(struct kav_nl *nl, uint8_t cmd, uint16_t flags,
		     uint32_t av_id)
{
	static struct kav_nl_msg m;

	kav_nl_req(nl, &m, cmd, flags);
	if (av_id)
		kav_nl_put_u32(&m, KAV_A_AV_ID, av_id);
	return kav_nl_talk(nl, &m, NULL, NULL);
}

/* Entry addresses: distinct per (round, i), so that the table grows. */
static void fill_batch(struct sockaddr_in *sin, unsigned int round)
{
	int i;

	for (i = 0; i < BATCH; i++)
		sin[i] = kav_sin(0x0a000000 + round * BATCH + i, 7);
}

/* ----------------------------------------------------------- mutators */

static int m_av_create_close(struct race_shared *sh, struct kav_nl *nl,
			     void **state)
{
	int av = kav_create_av(sh->dom, KAV_ADDR_SOCKADDR_IN, NULL);

	if (av < 0)
		return av;
	close(av);
	return 0;
}

/* A fresh AV grows by 8 batches (new pages) with every other one removed. */
static int m_entries(struct race_shared *sh, struct kav_nl *nl, void **state)
{
	static struct sockaddr_in sin[BATCH];
	uint64_t fi[BATCH];
	struct kav_av_create c;
	unsigned int round;
	int av, ret = 0;

	av = kav_create_av(sh->dom, KAV_ADDR_SOCKADDR_IN, &c);
	if (av < 0)
		return av;
	__atomic_store_n(&sh->av_id, c.av_id, __ATOMIC_RELAXED);
	for (round = 0; round < 8 && !ret; round++) {
		fill_batch(sin, round);
		ret = kav_insert_in(av, sin, BATCH, fi, NULL);
		if (!ret && (round & 1))
			ret = kav_remove(av, fi, BATCH, NULL);
	}
	close(av);
	return ret;
}

static int m_pin_unpin(struct race_shared *sh, struct kav_nl *nl,
		       void **state)
{
	return nl_simple(nl, KAV_GENL_CMD_AV_PIN, 0, sh->named_av_id) ?:
	       nl_simple(nl, KAV_GENL_CMD_AV_UNPIN, 0, sh->named_av_id);
}

/* A new domain takes the key the test holds a grant for, then an AV. */
static int m_domain_key(struct race_shared *sh, struct kav_nl *nl,
			void **state)
{
	struct kav_domain_key k = { .size = sizeof(k), .key.vni = RACE_VNI };
	int dom = kav_open_domain(), av, ret;

	if (dom < 0)
		return -errno;
	ret = ioctl(dom, KAV_IOC_DOMAIN_SET_KEY, &k) ? -errno : 0;
	av = ret ? -1 : kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	if (!ret && av < 0)
		ret = av;
	if (av >= 0)
		close(av);
	close(dom);
	return ret;
}

/* Keyed insert into an AV: key in, an entry bound to it, both out. */
static int keyed_cycle(int av, uint32_t vni)
{
	struct kav_av_key k = { .size = sizeof(k), .key.vni = vni };
	struct sockaddr_in sin = kav_sin(0x0b000001, 9);
	uint64_t fi;
	struct kav_av_insert in = {
		.size = sizeof(in),
		.flags = KAV_INSERT_AUTH_KEY,
		.count = 1,
		.addr_stride = sizeof(sin),
		.addrs = (uintptr_t)&sin,
		.fi_addrs = (uintptr_t)&fi,
		.auth_keys = (uintptr_t)&k.handle,
		.err_index = KAV_NO_INDEX,
	};
	int ret;

	if (ioctl(av, KAV_IOC_AV_KEY_INSERT, &k))
		return -errno;
	ret = ioctl(av, KAV_IOC_AV_INSERT, &in) ? -errno : 0;
	if (!ret)
		ret = kav_remove(av, &fi, 1, NULL);
	if (ioctl(av, KAV_IOC_AV_KEY_REMOVE, &k) && !ret)
		ret = -errno;
	return ret;
}

static int m_av_keys(struct race_shared *sh, struct kav_nl *nl, void **state)
{
	intptr_t av = (intptr_t)*state;
	struct kav_av_create c;

	if (!av) {
		av = kav_create_av(sh->dom, KAV_ADDR_SOCKADDR_IN, &c);
		if (av < 0)
			return (int)av;
		__atomic_store_n(&sh->av_id, c.av_id, __ATOMIC_RELAXED);
		*state = (void *)av;
	}
	return keyed_cycle((int)av, RACE_VNI);
}

static int m_grant_add_del(struct race_shared *sh, struct kav_nl *nl,
			   void **state)
{
	uint32_t id;
	int ret = kav_nl_grant_uid(nl, RACE_VNI2, 0, &id);

	return ret ?: kav_nl_grant_del(nl, id);
}

/* -------------------------------------------------------------- readers */

static int r_domains(struct race_shared *sh, struct kav_nl *nl, void **state)
{
	return nl_simple(nl, KAV_GENL_CMD_DOMAIN_GET, NLM_F_DUMP, 0);
}

static int r_avs(struct race_shared *sh, struct kav_nl *nl, void **state)
{
	return nl_simple(nl, KAV_GENL_CMD_AV_GET, NLM_F_DUMP, 0);
}

static int r_stats(struct race_shared *sh, struct kav_nl *nl, void **state)
{
	return nl_simple(nl, KAV_GENL_CMD_STATS_GET, 0, 0);
}

static int r_grants(struct race_shared *sh, struct kav_nl *nl, void **state)
{
	return nl_simple(nl, KAV_GENL_CMD_GRANT_GET, NLM_F_DUMP, 0);
}

static int r_entries(struct race_shared *sh, struct kav_nl *nl, void **state)
{
	uint32_t id = __atomic_load_n(&sh->av_id, __ATOMIC_RELAXED);
	int ret;

	if (!id)
		return 0;
	ret = nl_simple(nl, KAV_GENL_CMD_ENTRY_GET, NLM_F_DUMP, id);
	return ret == -ENOENT ? 0 : ret;	/* the AV was just closed */
}

/* ------------------------------------------------------------- the runs */

/* A case's process: run @p until @deadline, exit 0, or 1 on an error. */
static void __attribute__((noreturn))
child_main(const struct race_proc *p, struct race_shared *sh,
	   double deadline)
{
	unsigned long n = 0;
	void *state = NULL;
	struct kav_nl nl;
	int ret = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm((unsigned int)(deadline - kav_now()) + 60);
	if (kav_nl_open(&nl)) {
		printf("# %s: no kav netlink family\n", p->name);
		fflush(stdout);
		_exit(1);
	}
	while (!ret && kav_now() < deadline) {
		ret = p->step(sh, &nl, &state);
		n++;
	}
	if (ret)
		printf("# %s: step %lu failed: %s\n", p->name, n,
		       strerror(-ret));
	else
		printf("# %s: %lu steps\n", p->name, n);
	fflush(stdout);
	_exit(ret ? 1 : 0);
}

static pid_t spawn(const struct race_proc *p, struct race_shared *sh,
		   double deadline)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!pid)
		child_main(p, sh, deadline);
	return pid;
}

/* Sum of NR_AVS over the domains this process opened (DOMAIN_GET). */
struct nr_avs_sum {
	uint32_t pid;
	uint64_t sum;
};

static int nr_avs_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		     const struct kav_nl_attrs *at, void *arg)
{
	struct nr_avs_sum *s = arg;

	if (kav_nl_u32(at->a[KAV_A_PID]) == s->pid)
		s->sum += kav_nl_u32(at->a[KAV_A_NR_AVS]);
	return 0;
}

static int my_nr_avs(struct kav_nl *nl, uint64_t *sum)
{
	static struct kav_nl_msg m;
	struct nr_avs_sum s = { .pid = (uint32_t)getpid() };
	int ret;

	kav_nl_req(nl, &m, KAV_GENL_CMD_DOMAIN_GET, NLM_F_DUMP);
	ret = kav_nl_talk(nl, &m, nr_avs_cb, &s);
	*sum = s.sum;
	return ret;
}

/* Is there a grant of @vni (GRANT_GET)? */
static int grant_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		    const struct kav_nl_attrs *at, void *arg)
{
	if (kav_nl_u32(at->a[KAV_A_VNI]) == *(uint32_t *)arg)
		*(uint32_t *)arg = 0;
	return 0;
}

static bool has_grant(struct kav_nl *nl, uint32_t vni)
{
	static struct kav_nl_msg m;
	uint32_t v = vni;

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_GET, NLM_F_DUMP);
	return !kav_nl_talk(nl, &m, grant_cb, &v) && !v;
}

FIXTURE(race)
{
	struct race_shared *sh;
	struct kav_nl nl;
	uint32_t grant_id;
	int named_av;
	char kcsan_skip[32];
};

FIXTURE_VARIANT(race)
{
	struct race_proc mutator, reader;
	bool named;			/* the case pins a named AV */
};

#define RACE_CASE(_name, _m, _r, _named)				\
	FIXTURE_VARIANT_ADD(race, _name)				\
	{								\
		.mutator = { #_m, _m },					\
		.reader = { #_r, _r },					\
		.named = _named,					\
	}

RACE_CASE(avs_vs_domain_dump, m_av_create_close, r_domains, false);
RACE_CASE(avs_vs_stats, m_av_create_close, r_stats, false);
RACE_CASE(entries_vs_av_dump, m_entries, r_avs, false);
RACE_CASE(entries_vs_stats, m_entries, r_stats, false);
RACE_CASE(entries_vs_entry_dump, m_entries, r_entries, false);
RACE_CASE(pins_vs_av_dump, m_pin_unpin, r_avs, true);
RACE_CASE(domain_keys_vs_domain_dump, m_domain_key, r_domains, false);
RACE_CASE(av_keys_vs_entry_dump, m_av_keys, r_entries, false);
RACE_CASE(av_keys_vs_grant_dump, m_av_keys, r_grants, false);
RACE_CASE(grants_vs_grant_dump, m_grant_add_del, r_grants, false);

/* Sample more accesses on a KCSAN kernel while the case runs. */
static void kcsan_sampling(char *saved, size_t len)
{
	const char *v = getenv("KAV_RACE_SKIP_WATCH");
	char buf[32];
	int fd = open(KCSAN_SKIP, O_RDWR);
	ssize_t n;

	saved[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, saved, len - 1);
	saved[n > 0 ? n : 0] = '\0';
	snprintf(buf, sizeof(buf), "%s\n", v ? v : "100");
	if (pwrite(fd, buf, strlen(buf), 0) < 0)
		saved[0] = '\0';
	close(fd);
}

static void kcsan_restore(const char *saved)
{
	int fd;

	if (!saved[0])
		return;
	fd = open(KCSAN_SKIP, O_WRONLY);
	if (fd < 0)
		return;
	if (write(fd, saved, strlen(saved)) < 0)
		perror(KCSAN_SKIP);
	close(fd);
}

FIXTURE_SETUP(race)
{
	struct kav_av_create c;

	self->named_av = -1;
	self->sh = mmap(NULL, sizeof(*self->sh), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->sh);
	ASSERT_EQ(0, kav_nl_open(&self->nl));
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, RACE_VNI, 0,
				      &self->grant_id));
	self->sh->dom = kav_open_domain();
	ASSERT_LE(0, self->sh->dom);
	if (variant->named) {
		self->named_av = kav_av_named(self->sh->dom, "kav_race_test",
					      0, 0600, 0,
					      KAV_ADDR_SOCKADDR_IN, &c);
		ASSERT_LE(0, self->named_av);
		self->sh->named_av_id = c.av_id;
	}
	kcsan_sampling(self->kcsan_skip, sizeof(self->kcsan_skip));
}

FIXTURE_TEARDOWN(race)
{
	kcsan_restore(self->kcsan_skip);
	if (self->named_av >= 0)
		close(self->named_av);
	close(self->sh->dom);
	kav_nl_grant_del(&self->nl, self->grant_id);
	kav_nl_close(&self->nl);
	munmap(self->sh, sizeof(*self->sh));
}

TEST_F(race, run)
{
	double deadline = kav_now() + race_seconds();
	pid_t m, r;
	int sm, sr;
	uint64_t avs;

	m = spawn(&variant->mutator, self->sh, deadline);
	ASSERT_LT(0, m);
	r = spawn(&variant->reader, self->sh, deadline);
	ASSERT_LT(0, r);
	ASSERT_EQ(m, waitpid(m, &sm, 0));
	ASSERT_EQ(r, waitpid(r, &sr, 0));
	EXPECT_TRUE(WIFEXITED(sm) && WEXITSTATUS(sm) == 0);
	EXPECT_TRUE(WIFEXITED(sr) && WEXITSTATUS(sr) == 0);

	/* Only the named AV, if any, is left of what the case created. */
	ASSERT_EQ(0, my_nr_avs(&self->nl, &avs));
	EXPECT_EQ(variant->named ? 1 : 0, avs);
	EXPECT_FALSE(has_grant(&self->nl, RACE_VNI2));
}

TEST_HARNESS_MAIN
