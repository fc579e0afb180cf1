// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 34, "No tenant can stall the node": a tenant that floods its own
 * job table must not hold up anybody else, nor its own revocation.
 *
 * The mapped index's hash is public and so is its bucket count: tenant A
 * computes L addresses of one bucket (kav_collide.h), inserts them into
 * its job table, then inserts KAV_BATCH_MAX copies of the chain's oldest
 * entry in one call. A kernel that walks the public chain for each of
 * them, under the table's mutex, spends 16384 * L steps there (about
 * 25 s on 6.12 under TCG with the defaults) and blocks whatever waits
 * for that mutex: a revocation, then everything behind the revocation.
 *
 *   victims_return_during_a_flood
 *                  while two flooders flood the table without a pause:
 *                  (i) the admin's GRANT_DEL of another uid's grant,
 *                  (ii) another tenant's AV_CREATE, (iii) an unprivileged
 *                  generic netlink CTRL_CMD_GETFAMILY. Each of them, in at
 *                  least one round, returns while a flood call that was
 *                  in flight (and queued: below) when it started still is
 *   killed_flooder_is_reaped_during_a_flood
 *                  while they flood, a third flooder of the same table is
 *                  SIGKILLed in a call that is queued (below); in at least
 *                  one round it is reaped while a queued call of the two
 *                  that was in flight at the kill still is
 *   revocation_reaches_the_nic_during_a_flood
 *                  GRANT_DEL of the tenant's own grant while it floods its
 *                  job table under that grant: the model NIC's (tests/doubles/nic)
 *                  revocation callback has run when GRANT_DEL returns,
 *                  and the flood call is still in flight
 *
 * Only the order of events decides, never a duration. Each flooder runs
 * at nice 19 (the victims at 0 get the CPU), calls again as soon as a
 * call returns, and counts its calls in shared memory (odd while one is
 * in flight); at each call's start it also notes the other flooder's
 * count. A victim reads the counts before and after its own call.
 *
 * A call is "queued" at an instant if it is in flight and the other
 * flooder has ended a call since it started. On a module that walks the
 * chain under the table's mutex, calls end one walk apart, so such a
 * call was past its copy phase (which runs before the mutex is taken)
 * when that other call ended: it holds the mutex or waits for it ahead
 * of anything that comes later, and ends before a victim gets it. A call
 * still in its copy phase is not queued: a victim could pass it at the
 * mutex and show an order the flood never allowed.
 *
 * Before the rounds, each flooder has ended one call (a warm-up,
 * KAV_FLOOD_WARMUP seconds at most, 120: on such a module the second
 * one's first call ends a whole walk after the first's). After the fix a
 * flood call is short and a victim may not fit in it, so each test runs
 * rounds (up to KAV_FLOOD_ROUNDS, 20) until the order was shown (by each
 * victim); on a module that serialises the victims behind the flood no
 * round can show it, and each round lasts a whole flood call: rounds stop
 * once they have taken KAV_FLOOD_BUDGET seconds (60) as well. These
 * bounds only limit how long the program keeps trying. The copy phase
 * (a call of the same batch that fails on its last address) is measured
 * and printed; revocation_reaches_the_nic_during_a_flood waits for 1.5
 * times it, in CPU time, before its GRANT_DEL.
 *
 * The killed flooder floods KAV_BATCH_MAX / 16 copies per call: on the
 * fixed module its call (copied whole before the first check for a
 * signal) is then short enough to end within another flooder's call.
 *
 * The addresses are KAV_ADDR_STR strings of 480 bytes by default (L =
 * 2048): a fixed kernel hashes and compares each one at its length, so
 * that its flood call lasts long enough (about 0.1 s under TCG) for a
 * GRANT_DEL, whose grace period alone takes 15-20 ms, to fit in it. An
 * IPv4 flood call (KAV_FLOOD_FORMAT=in, L = 4096, the maintainer's
 * measurement) lasts about 10 ms there. KAV_FLOOD_CHAIN sets L; on a
 * KASAN or KCSAN kernel L is 8 times smaller.
 *
 * Runs as root in the test VM; loads kav_nic.ko and unloads it at the end.
 */
#include <linux/futex.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_collide.h"
#include "kav_nl_util.h"
#include "kav_test_grants.h"

#define UID_A		3401	/* the flooding tenant */
#define UID_B		3402	/* another tenant: AV_CREATE */
#define UID_C		3403	/* whose grant the admin revokes */
#define UID_NOBODY	65534	/* the generic netlink lookup */

#define VNI_A1		34100	/* tenant A's job table */
#define VNI_B		34102
#define VNI_C		34103
#define VNI_K0		34200	/* revocation rounds: VNI_K0 + round */
#define VNI_A2		34104	/* tenant A's second job: the twin's table */

#define BUCKETS		4096	/* AV_CREATE count: index_buckets */
#define STR_LEN		480	/* KAV_ADDR_STR: 479 characters and NUL */
#define NR_NIC_ENTRIES	64


#define NR_FLOODING	2	/* fl[0] (the holder) and fl[1] flood */
#define FL_KILLED	2	/* fl[2]: the SIGKILL test's third flooder */
#define FL_NIC		3	/* fl[3]: the NIC test's tenant */
#define FL_TWIN		4	/* fl[4]: the SIGKILL test's twin */
#define NR_FL		5
#define KILLED_BATCH	KAV_BATCH_MAX
/* The killed flooder is inside its call once it used this much CPU. */
#define IN_CALL_NS	5000000

KAV_NIC_UNLOAD_AT_EXIT();

/* ------------------------------------------------------------ config */

struct flood_cfg {
	bool str;		/* KAV_ADDR_STR, else KAV_ADDR_SOCKADDR_IN */
	uint32_t chain;		/* L */
	uint32_t rounds;	/* R */
	double budget;		/* s */
	double warmup;		/* s */
};

static bool debug_kernel(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " kasan_report\n") ||
			strstr(line, " __tsan_read4\n");
	fclose(f);
	return found;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

static struct flood_cfg flood_cfg(void)
{
	const char *fmt = getenv("KAV_FLOOD_FORMAT");
	struct flood_cfg c = { .str = !(fmt && !strcmp(fmt, "in")) };

	c.chain = c.str ? 2048 : 4096;
	if (debug_kernel())
		c.chain /= 8;
	c.chain = (uint32_t)env_u64("KAV_FLOOD_CHAIN", c.chain);
	if (c.chain < 2)
		c.chain = 2;
	if (c.chain > KAV_BATCH_MAX)
		c.chain = KAV_BATCH_MAX;
	c.rounds = (uint32_t)env_u64("KAV_FLOOD_ROUNDS", 20);
	c.budget = (double)env_u64("KAV_FLOOD_BUDGET", 60);
	c.warmup = (double)env_u64("KAV_FLOOD_WARMUP", 120);
	return c;
}

/* ----------------------------------------------------- shared memory */

static long futex(uint32_t *w, int op, uint32_t val)
{
	return syscall(SYS_futex, w, op, val, NULL, NULL, 0);
}

static uint32_t ld(uint32_t *w)
{
	return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

static void st(uint32_t *w, uint32_t v)
{
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
}

/* Bump @w and wake whoever waits on it. */
static void bump(uint32_t *w)
{
	__atomic_add_fetch(w, 1, __ATOMIC_ACQ_REL);
	futex(w, FUTEX_WAKE, INT32_MAX);
}

/* Wait until @w differs from @old; then its value. */
static uint32_t wait_change(uint32_t *w, uint32_t old)
{
	uint32_t v;

	while ((v = ld(w)) == old)
		futex(w, FUTEX_WAIT, old);
	return v;
}

/*
 * One flooder process: @cmd asks for one flood call (FL_NIC), or for
 * calls without end (FL_RUN); @seq is odd while one is in flight; @cpu0
 * its CPU time when it started, @base[] the flooding ones' @seq then.
 */
struct flooder {
	uint32_t cmd, seq, ready, which;
	int32_t pid, err;
	int64_t cpu0;		/* ns */
	int64_t copy_ns;	/* a failing call's CPU time, the most of 3 */
	uint32_t chain;		/* the chain's length read back */
	uint64_t fi;		/* what the flood address's insert returned */
	uint32_t base[NR_FLOODING];
};

#define FL_RUN		1
#define FL_EXIT		0xffffffffU

/* The flooding ones' counts at an instant; @queued[i]: see the top. */
struct snap {
	uint32_t seq[NR_FLOODING];
	bool queued[NR_FLOODING];
};

/* One victim process: @cmd starts its call, @done = @cmd when it ended. */
struct victim {
	uint32_t cmd, done, started, ready;
	int32_t pid, rc;
	struct snap s0, s1;	/* the flooders at its start and end */
};

enum { V_GRANT_DEL, V_AV_CREATE, V_GETFAMILY, NR_VICTIMS };

static const char *const victim_name[NR_VICTIMS] = {
	"GRANT_DEL", "AV_CREATE", "CTRL_CMD_GETFAMILY",
};

struct shm {
	struct flood_cfg cfg;
	struct flooder fl[NR_FL];
	struct victim v[NR_VICTIMS];
	uint32_t grant_id;	/* V_GRANT_DEL's next grant */
};

static int64_t cpu_ns(clockid_t ck)
{
	struct timespec ts;

	if (clock_gettime(ck, &ts))
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A process's state letter (/proc/PID/stat), '?' if unknown. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

/* -------------------------------------------------------- the tables */

/* A tenant's job table and what floods it. */
struct table {
	int dom, av;
	struct kav_av_create c;
	struct kav_map m;
	uint32_t stride, bucket;
	char *addrs;		/* the chain, oldest first */
	char *flood;		/* KAV_BATCH_MAX copies of one chain entry */
};

static int open_job(const struct flood_cfg *cfg, uint32_t vni,
		    struct table *t)
{
	memset(t, 0, sizeof(*t));
	t->dom = kav_open_domain();
	if (t->dom < 0)
		return -errno;
	if (kav_domain_set_key(t->dom, vni))
		return -errno;
	t->c.size = sizeof(t->c);
	t->c.flags = KAV_AV_JOB;
	t->c.addr_format = cfg->str ? KAV_ADDR_STR : KAV_ADDR_SOCKADDR_IN;
	t->c.addr_max = cfg->str ? STR_LEN : 0;
	t->c.count = BUCKETS;
	if (ioctl(t->dom, KAV_IOC_AV_CREATE, &t->c))
		return -errno;
	t->av = t->c.fd;
	t->stride = cfg->str ? STR_LEN : sizeof(struct sockaddr_in);
	return kav_map_av(t->av, t->c.map_size, &t->m);
}

/* kav_attack_util.h's kav_insert_stride(), without err_index. */
static int insert_batch(int av, const void *a, uint32_t stride, uint32_t n,
			 uint64_t *fi)
{
	return kav_insert_stride(av, a, stride, n, fi, NULL);
}

/*
 * Build the chain of @t (one batch: its entries are linked oldest
 * first) and the flood batch: copies of the entry @depth links from the
 * chain's head (the oldest: @depth == L). Returns the chain's length as
 * the mapping shows it, or -errno.
 */
static int64_t build_chain(const struct flood_cfg *cfg, struct table *t,
			   char tag, uint32_t depth, uint64_t *fi_out)
{
	uint32_t L = cfg->chain, n, i, k;
	uint64_t fi;

	t->addrs = calloc(L, t->stride);
	t->flood = malloc((size_t)KAV_BATCH_MAX * t->stride);
	if (!t->addrs || !t->flood)
		return -ENOMEM;
	/* A job table's entries are under its one key, handle 0. */
	if (cfg->str)
		n = kav_collide_str(t->m.h->index_buckets, 0,
				    kav_collide_seed(t->m.h), STR_LEN, tag,
				    t->addrs, t->stride, L, &t->bucket);
	else
		n = kav_collide_in_table(t->m.h, 0, 0x0a000000u |
					 (uint32_t)tag << 16, 3400,
					 (struct sockaddr_in *)t->addrs, L,
					 &t->bucket);
	if (n != L)
		return -ERANGE;
	if (insert_batch(t->av, t->addrs, t->stride, L, NULL))
		return -errno;
	k = L - depth;		/* entry k of the batch is k + 1 links deep */
	for (i = 0; i < KAV_BATCH_MAX; i++)
		memcpy(t->flood + (size_t)i * t->stride,
		       t->addrs + (size_t)k * t->stride, t->stride);
	/* It is there already: the flood adds and charges nothing. */
	if (insert_batch(t->av, t->addrs + (size_t)k * t->stride, t->stride,
			 1, &fi))
		return -errno;
	*fi_out = fi;
	return (int64_t)kav_collide_chain_len(t->m.h, t->bucket);
}

static int flood_call(const struct table *t, uint32_t n)
{
	return insert_batch(t->av, t->flood, t->stride, n, NULL);
}

/*
 * The CPU time of a call that copies and checks the whole flood batch
 * and then fails on its last address, before any lock: the most of 3.
 */
static int64_t copy_phase_ns(const struct flood_cfg *cfg, struct table *t)
{
	size_t last = (size_t)(KAV_BATCH_MAX - 1) * t->stride;
	char save[KAV_ADDR_MAX_LEN];
	int64_t most = 0, t0, d;
	int i, ret;

	memcpy(save, t->flood + last, t->stride);
	if (cfg->str)
		t->flood[last] = ' ';		/* not printable ASCII */
	else
		((struct sockaddr_in *)(t->flood + last))->sin_family = 0;
	for (i = 0; i < 3; i++) {
		t0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
		ret = flood_call(t, KAV_BATCH_MAX);
		d = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - t0;
		if (ret != -EINVAL)
			return -1;
		if (d > most)
			most = d;
	}
	memcpy(t->flood + last, save, t->stride);
	return most;
}

/* -------------------------------------------------------- flooders */

/* One flood call of @n, counted: seq odd while it is in flight. */
static void counted_call(struct shm *shm, struct flooder *f,
			 const struct table *t, uint32_t n)
{
	int i;

	for (i = 0; i < NR_FLOODING; i++)
		__atomic_store_n(&f->base[i], ld(&shm->fl[i].seq),
				 __ATOMIC_RELAXED);
	f->cpu0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	bump(&f->seq);
	f->err = flood_call(t, n);
	bump(&f->seq);
}

/* Flood calls of @n while @f->cmd is FL_RUN, until FL_EXIT. */
static int flood_loop(struct shm *shm, struct flooder *f,
		      const struct table *t, uint32_t n)
{
	uint32_t cmd;

	for (;;) {
		cmd = ld(&f->cmd);
		if (cmd == FL_EXIT)
			return 0;
		if (cmd == FL_RUN)
			counted_call(shm, f, t, n);
		else
			futex(&f->cmd, FUTEX_WAIT, cmd);
	}
}

/*
 * Is flooder @i's call @si (read just now) queued: has another flooding
 * one ended a call between its start and @seq[] (read before @si)?
 */
static bool call_queued(struct shm *shm, int i, uint32_t si,
			const uint32_t *seq)
{
	bool queued = false;
	uint32_t b;
	int j;

	if (!(si & 1))
		return false;
	/* Its @base[] is that call's if its @seq has not moved since. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (j = 0; j < NR_FLOODING; j++) {
		if (j == i)
			continue;
		b = __atomic_load_n(&shm->fl[i].base[j], __ATOMIC_RELAXED);
		/* seq >> 1: the calls ended */
		if ((seq[j] >> 1) > (b >> 1))
			queued = true;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return queued && ld(&shm->fl[i].seq) == si;
}

/* The flooding ones' counts, and which calls in flight are queued. */
static void snapshot(struct shm *shm, struct snap *s)
{
	int i;

	for (i = 0; i < NR_FLOODING; i++)
		s->seq[i] = ld(&shm->fl[i].seq);
	for (i = 0; i < NR_FLOODING; i++)
		s->queued[i] = call_queued(shm, i, s->seq[i], s->seq);
}

/* Was a call queued at @s0 still in flight at @s1? */
static bool during(const struct snap *s0, const struct snap *s1)
{
	int i;

	for (i = 0; i < NR_FLOODING; i++)
		if (s0->queued[i] && s1->seq[i] == s0->seq[i])
			return true;
	return false;
}

/* Nice 19: whoever waits for the CPU at 0 goes first. */
static int be_nice(void)
{
	return setpriority(PRIO_PROCESS, 0, 19) ? -errno : 0;
}

/*
 * Tenant A's holder, fl[0]: creates the job table (VNI_A1), builds its
 * chain, keeps it alive and floods the chain's oldest entry.
 */
struct holder_arg {
	struct shm *shm;
	int idx;
};

static int holder(void *p)
{
	struct holder_arg *a = p;
	struct shm *shm = a->shm;
	struct flooder *f = &shm->fl[a->idx];
	const struct flood_cfg *cfg = &shm->cfg;
	struct table t;
	int64_t len;

	f->pid = getpid();
	CK(kav_become(UID_A, UID_A, 0, NULL) == 0);
	CK(open_job(cfg, VNI_A1, &t) == 0);
	CK_EQ(t.m.h->index_buckets, BUCKETS);
	len = build_chain(cfg, &t, 'A', cfg->chain, &f->fi);
	CK(len >= 0);
	f->chain = (uint32_t)len;
	f->copy_ns = copy_phase_ns(cfg, &t);
	CK(f->copy_ns > 0);
	CK(be_nice() == 0);
	st(&f->ready, 1);
	futex(&f->ready, FUTEX_WAKE, INT32_MAX);
	return flood_loop(shm, f, &t, KAV_BATCH_MAX);
}

/*
 * Another flooder of the holder's table, fl[1] (at nice 19, whole
 * batches) or fl[FL_KILLED] (forked for each round of the SIGKILL test,
 * KILLED_BATCH): it opens the job's table and floods its oldest entry,
 * entry 0 of the chain, which it reads from the mapping.
 */
static int t1_flooder(void *p)
{
	struct holder_arg *a = p;
	struct shm *shm = a->shm;
	struct flooder *f = &shm->fl[a->idx];
	const volatile struct kav_entry *e;
	struct table t;
	uint32_t i;

	f->pid = getpid();
	CK(kav_become(UID_A, UID_A, 0, NULL) == 0);
	CK(open_job(&shm->cfg, VNI_A1, &t) == 0);
	CK_EQ(t.c.result, 0);			/* the holder's T1 */
	t.flood = malloc((size_t)KAV_BATCH_MAX * t.stride);
	CK(t.flood);
	e = kav_entry_at(t.m.h, 0);
	CK(e->flags & KAV_ENTRY_VALID);
	for (i = 0; i < KAV_BATCH_MAX; i++)
		memcpy(t.flood + (size_t)i * t.stride, (const void *)e->addr,
		       e->addr_len);
	if (a->idx < NR_FLOODING)
		CK(be_nice() == 0);
	st(&f->ready, 1);
	futex(&f->ready, FUTEX_WAKE, INT32_MAX);
	return flood_loop(shm, f, &t,
			  a->idx < NR_FLOODING ? KAV_BATCH_MAX : KILLED_BATCH);
}

/*
 * The SIGKILL test's twin, fl[FL_TWIN]: the same tenant's other job (its
 * grant for VNI_A2), its own table and chain, flooded at half the depth
 * of the holder's: on a module that walks the chain under the mutex its
 * calls take half as long as the killed flooder's; on one that does not,
 * both are about their copy phase. Nice 19, without end once told.
 */
static int twin(void *p)
{
	struct holder_arg *a = p;
	struct shm *shm = a->shm;
	struct flooder *f = &shm->fl[FL_TWIN];
	const struct flood_cfg *cfg = &shm->cfg;
	struct table t;
	uint64_t fi;

	f->pid = getpid();
	CK(kav_become(UID_A, UID_A, 0, NULL) == 0);
	CK(open_job(cfg, VNI_A2, &t) == 0);
	CK(build_chain(cfg, &t, 'W', cfg->chain / 2, &fi) >= 0);
	CK(be_nice() == 0);
	st(&f->ready, 1);
	futex(&f->ready, FUTEX_WAKE, INT32_MAX);
	return flood_loop(shm, f, &t, KAV_BATCH_MAX);
}

/* ----------------------------------------------------------- victims */

struct victim_arg {
	struct shm *shm;
	int idx;
};

static int victim(void *p)
{
	struct victim_arg *a = p;
	struct shm *shm = a->shm;
	struct victim *v = &shm->v[a->idx];
	struct kav_nl nl = { .fd = -1 };
	uint32_t cmd = 0;
	int dom = -1, av;

	v->pid = getpid();
	switch (a->idx) {
	case V_GRANT_DEL:		/* the admin */
		CK(kav_nl_open(&nl) == 0);
		break;
	case V_AV_CREATE:		/* tenant B, with a key of its own */
		CK(kav_become(UID_B, UID_B, 0, NULL) == 0);
		dom = kav_open_domain();
		CK(dom >= 0);
		CK(kav_domain_set_key(dom, VNI_B) == 0);
		break;
	case V_GETFAMILY:		/* nobody, no capability */
		CK(kav_become(UID_NOBODY, UID_NOBODY, 0, NULL) == 0);
		CK(kav_nl_socket(&nl) == 0);
		break;
	}
	st(&v->ready, 1);
	futex(&v->ready, FUTEX_WAKE, INT32_MAX);
	for (;;) {
		cmd = wait_change(&v->cmd, cmd);
		if (cmd == FL_EXIT)
			return 0;
		snapshot(shm, &v->s0);
		st(&v->started, cmd);
		switch (a->idx) {
		case V_GRANT_DEL:
			v->rc = kav_nl_grant_del(&nl, shm->grant_id);
			break;
		case V_AV_CREATE:
			av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
			v->rc = av < 0 ? av : 0;
			if (av >= 0)
				close(av);
			break;
		case V_GETFAMILY:
			v->rc = kav_nl_resolve(&nl);
			break;
		}
		snapshot(shm, &v->s1);
		st(&v->done, cmd);
		futex(&v->done, FUTEX_WAKE, INT32_MAX);
	}
}

/* Did victim @v return while a call queued at its start still was? */
static bool victim_overlapped(const struct victim *v)
{
	return during(&v->s0, &v->s1);
}

/* ----------------------------------------------------------- fixture */

FIXTURE(flood) {
	struct shm *shm;
	pid_t pids[8];
	int nr_pids;
	uint32_t grants[4];
	int nr_grants;
};

/* Start @fn(@arg) (a holder, flooder or victim) and wait until it is set up. */
static int start(FIXTURE_DATA(flood) *self, int (*fn)(void *), void *arg,
		 uint32_t *ready)
{
	pid_t pid = kav_spawn(fn, arg);
	int rc;

	if (pid < 0)
		return -1;
	self->pids[self->nr_pids++] = pid;
	/* A child that fails its setup exits: do not wait for it forever. */
	while (!ld(ready)) {
		if (waitpid(pid, &rc, WNOHANG) == pid) {
			self->pids[--self->nr_pids] = 0;
			return -1;
		}
		usleep(2000);
	}
	return 0;
}

FIXTURE_SETUP(flood)
{
	static struct holder_arg ha;
	static struct victim_arg va[NR_VICTIMS];
	uint32_t vnis[] = { VNI_A1, VNI_B, VNI_A2 };
	uint32_t uids[] = { UID_A, UID_B, UID_A };
	struct flooder *f;
	int i;

	self->nr_pids = self->nr_grants = 0;
	self->shm = kav_shared(sizeof(*self->shm));
	ASSERT_NE(NULL, self->shm);
	memset(self->shm, 0, sizeof(*self->shm));
	self->shm->cfg = flood_cfg();
	for (i = 0; i < 3; i++) {
		self->grants[i] = kav_test_grant_one(vnis[i], uids[i], 0);
		ASSERT_NE(0, self->grants[i]);
		self->nr_grants++;
	}
	ha.shm = self->shm;
	ha.idx = 0;
	ASSERT_EQ(0, start(self, holder, &ha, &self->shm->fl[0].ready));
	f = &self->shm->fl[0];
	/* The chain is there: L links long in the mapping. */
	ASSERT_EQ(self->shm->cfg.chain, f->chain);
	/* The flood's address is the chain's oldest entry, index 0. */
	ASSERT_EQ(0, f->fi);
	ksft_print_msg("%s addresses, chain of %u in a bucket of %u, copy phase %.1f ms of CPU\n",
		       self->shm->cfg.str ? "480-byte string" : "IPv4",
		       self->shm->cfg.chain, BUCKETS, f->copy_ns / 1e6);
	for (i = 0; i < NR_VICTIMS; i++) {
		va[i].shm = self->shm;
		va[i].idx = i;
		ASSERT_EQ(0, start(self, victim, &va[i],
				   &self->shm->v[i].ready));
	}
}

FIXTURE_TEARDOWN(flood)
{
	int i;

	for (i = 0; i < NR_FL; i++) {
		st(&self->shm->fl[i].cmd, FL_EXIT);
		futex(&self->shm->fl[i].cmd, FUTEX_WAKE, INT32_MAX);
	}
	for (i = 0; i < NR_VICTIMS; i++) {
		st(&self->shm->v[i].cmd, FL_EXIT);
		futex(&self->shm->v[i].cmd, FUTEX_WAKE, INT32_MAX);
	}
	for (i = 0; i < self->nr_pids; i++)
		if (self->pids[i] > 0)
			kav_reap(self->pids[i]);
	for (i = 0; i < self->nr_grants; i++)
		kav_test_grant_del(self->grants[i]);
	munmap(self->shm, sizeof(*self->shm));
}

/* Tell flooder @i to flood without a pause. */
static void flood_on(struct shm *shm, int i)
{
	st(&shm->fl[i].cmd, FL_RUN);
	futex(&shm->fl[i].cmd, FUTEX_WAKE, INT32_MAX);
}

/*
 * Start the second flooder, let both flood, and wait until each has
 * ended a call (at most cfg.warmup seconds): false if one did not.
 */
static bool flooding(FIXTURE_DATA(flood) *self)
{
	static struct holder_arg fa = { .idx = 1 };
	struct shm *shm = self->shm;
	double t0 = kav_now();
	bool all;
	int i;

	fa.shm = shm;
	if (start(self, t1_flooder, &fa, &shm->fl[1].ready))
		return false;
	for (i = 0; i < NR_FLOODING; i++)
		flood_on(shm, i);
	do {
		all = true;
		for (i = 0; i < NR_FLOODING; i++)
			if (ld(&shm->fl[i].seq) < 2)
				all = false;
		if (all)
			break;
		usleep(10000);
	} while (kav_now() - t0 < shm->cfg.warmup);
	ksft_print_msg("warm-up: %.2f s, calls ended %u and %u%s\n",
		       kav_now() - t0, ld(&shm->fl[0].seq) >> 1,
		       ld(&shm->fl[1].seq) >> 1, all ? "" : ": too long");
	return all;
}

static void start_victim(struct shm *shm, int i)
{
	bump(&shm->v[i].cmd);
}

static void wait_victim(struct shm *shm, int i)
{
	uint32_t cmd = ld(&shm->v[i].cmd), d;

	while ((d = ld(&shm->v[i].done)) != cmd)
		futex(&shm->v[i].done, FUTEX_WAIT, d);
}

/* Until victim @i has started and is asleep (D) or done. */
static void victim_waiting(struct shm *shm, int i)
{
	struct victim *v = &shm->v[i];
	uint32_t cmd = ld(&v->cmd);

	while (ld(&v->started) != cmd)
		usleep(100);
	while (ld(&v->done) != cmd && proc_state(v->pid) != 'D')
		usleep(100);
}

static bool out_of_rounds(const struct flood_cfg *cfg, uint32_t round,
			  double t0)
{
	return round >= cfg->rounds ||
	       (round && kav_now() - t0 >= cfg->budget);
}

static const char *when(bool during)
{
	return during ? "during" : "after";
}

TEST_F_TIMEOUT(flood, victims_return_during_a_flood, 900)
{
	struct shm *shm = self->shm;
	uint32_t round, nr_ok[NR_VICTIMS] = { 0 };
	bool ok[NR_VICTIMS], all = false;
	double t0, t;
	int i;

	ASSERT_TRUE(flooding(self)) TH_LOG("a flooder never ended a call");
	t0 = kav_now();
	for (round = 0; !all && !out_of_rounds(&shm->cfg, round, t0);
	     round++) {
		shm->grant_id = kav_test_grant_one(VNI_C, UID_C, 0);
		ASSERT_NE(0, shm->grant_id);
		t = kav_now();
		/*
		 * The revocation first: on a module that serialises it behind
		 * the flood, the other two then wait behind it.
		 */
		start_victim(shm, V_GRANT_DEL);
		victim_waiting(shm, V_GRANT_DEL);
		start_victim(shm, V_AV_CREATE);
		start_victim(shm, V_GETFAMILY);
		for (i = 0; i < NR_VICTIMS; i++)
			wait_victim(shm, i);
		EXPECT_EQ(0, shm->v[V_GRANT_DEL].rc);
		EXPECT_EQ(0, shm->v[V_AV_CREATE].rc);
		EXPECT_EQ(0, shm->v[V_GETFAMILY].rc);
		if (shm->v[V_GRANT_DEL].rc)
			kav_test_grant_del(shm->grant_id);
		all = true;
		for (i = 0; i < NR_VICTIMS; i++) {
			ok[i] = victim_overlapped(&shm->v[i]);
			if (ok[i])
				nr_ok[i]++;
			if (!nr_ok[i])
				all = false;
		}
		ksft_print_msg("round %u: %.2f s; %s %s, %s %s, %s %s a queued flood call\n",
			       round + 1, kav_now() - t,
			       victim_name[0], when(ok[0]),
			       victim_name[1], when(ok[1]),
			       victim_name[2], when(ok[2]));
	}
	ksft_print_msg("%u rounds: returned during a queued flood call: GRANT_DEL %u, AV_CREATE %u, GETFAMILY %u\n",
		       round, nr_ok[0], nr_ok[1], nr_ok[2]);
	for (i = 0; i < NR_FLOODING; i++)
		EXPECT_EQ(0, shm->fl[i].err);
	EXPECT_NE(0, nr_ok[V_GRANT_DEL]) TH_LOG("GRANT_DEL never returned while a flood call queued at its start was in flight");
	EXPECT_NE(0, nr_ok[V_AV_CREATE]) TH_LOG("AV_CREATE never returned while a flood call queued at its start was in flight");
	EXPECT_NE(0, nr_ok[V_GETFAMILY]) TH_LOG("CTRL_CMD_GETFAMILY never returned while a flood call queued at its start was in flight");
}

/*
 * A flooder killed in its call is reaped while its twin's call, in
 * flight at the kill, still is. The killed one floods the holder's table
 * alone (nobody else uses it here: its lock is uncontended, so a module
 * that walks the chain under it takes it at once and walks all L links
 * per address, unkillable); the twin floods the same tenant's other job
 * table at depth L / 2. On such a module every twin call in flight at
 * the kill ends before the killed one is reaped; on one that stops on a
 * fatal signal inside its walk, the killed one goes at once.
 */
TEST_F_TIMEOUT(flood, killed_flooder_is_reaped_during_a_flood, 900)
{
	static struct holder_arg ka = { .idx = FL_KILLED };
	static struct holder_arg wa = { .idx = FL_TWIN };
	struct shm *shm = self->shm;
	struct flooder *k = &shm->fl[FL_KILLED], *w = &shm->fl[FL_TWIN];
	uint32_t round, ks, ws, shown = 0;
	double t0, t;
	clockid_t ck;
	int rc;

	wa.shm = ka.shm = shm;
	ASSERT_EQ(0, start(self, twin, &wa, &w->ready));
	flood_on(shm, FL_TWIN);
	t0 = kav_now();
	for (round = 0; !shown && !out_of_rounds(&shm->cfg, round, t0);
	     round++) {
		memset(k, 0, sizeof(*k));
		ASSERT_EQ(0, start(self, t1_flooder, &ka, &k->ready));
		ASSERT_EQ(0, clock_getcpuclockid(k->pid, &ck));
		t = kav_now();
		flood_on(shm, FL_KILLED);
		/* In its call: odd, and some CPU spent since it began it. */
		do {
			usleep(100);
			ks = ld(&k->seq);
		} while (!(ks & 1) || cpu_ns(ck) - k->cpu0 < IN_CALL_NS);
		ws = ld(&w->seq);
		ASSERT_EQ(0, kill(k->pid, SIGKILL));
		rc = kav_reap(self->pids[--self->nr_pids]);
		self->pids[self->nr_pids] = 0;
		EXPECT_EQ(128 + SIGKILL, rc);
		/* Killed in that call, reaped while the twin's still ran. */
		shown = ld(&k->seq) == ks && (ws & 1) && ld(&w->seq) == ws;
		ksft_print_msg("round %u: %.2f s; the killed flooder was reaped %s the twin's flood call%s\n",
			       round + 1, kav_now() - t, when(shown),
			       ws & 1 ? "" : " (the twin was between calls)");
	}
	EXPECT_TRUE(shown) TH_LOG("the killed flooder was never reaped while its twin's flood call, in flight at the kill, still was");
}

/* ------------------------------------------------ revocation and NIC */

/*
 * Tenant A's NIC user for one round: a private AV under @vni bound to
 * the NIC (inherited fd @nic), and the job table under the same grant,
 * which it floods on command.
 */
struct nic_arg {
	struct shm *shm;
	uint32_t vni;
	int nic;
};

static int nic_tenant(void *p)
{
	struct nic_arg *a = p;
	struct flooder *f = &a->shm->fl[FL_NIC];
	uint64_t fi;
	uint32_t cmd, i;
	int dom, av;

	f->pid = getpid();
	CK(kav_become(UID_A, UID_A, 0, NULL) == 0);
	dom = kav_open_domain();
	CK(dom >= 0);
	CK(kav_domain_set_key(dom, a->vni) == 0);
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	CK(av >= 0);
	for (i = 0; i < NR_NIC_ENTRIES; i++)
		CK(kav_insert_one(av, 0x0a220000 + i, 3400, KAV_NONE, &fi) == 0);
	CK(kav_nic_bind(a->nic, av) == 0);
	cmd = ld(&f->cmd);
	st(&f->ready, 1);
	futex(&f->ready, FUTEX_WAKE, INT32_MAX);
	/* Its other table, the job's, is what the flooders keep busy. */
	while (cmd != FL_EXIT)
		cmd = wait_change(&f->cmd, cmd);
	return 0;
}

static int nic_stats(int nic, struct kav_nic_stats *s)
{
	memset(s, 0, sizeof(*s));
	return ioctl(nic, KAV_NIC_IOC_STATS, s) ? -errno : 0;
}

/*
 * Tenant A keeps its job table busy (the two flooders, uid A) while the
 * administrator revokes another grant of A's, the one its NIC-bound AV
 * holds: the NIC's callback has run when GRANT_DEL returns, and
 * GRANT_DEL returns while a flood call queued at its start is still in
 * flight. A revocation that waited for every table's mutex would wait
 * for the flood.
 */
TEST_F_TIMEOUT(flood, revocation_reaches_the_nic_during_a_flood, 900)
{
	static struct nic_arg na;
	struct shm *shm = self->shm;
	struct flooder *f = &shm->fl[FL_NIC];
	struct kav_nic_stats s;
	uint32_t round, shown = 0, id;
	struct snap s0, s1;
	struct kav_nl nl;
	double t0, t;
	bool in;

	ASSERT_EQ(0, kav_nic_load());
	ASSERT_EQ(0, kav_nl_open(&nl));
	ASSERT_TRUE(flooding(self)) TH_LOG("a flooder never ended a call");
	na.shm = shm;
	t0 = kav_now();
	for (round = 0; !shown && !out_of_rounds(&shm->cfg, round, t0);
	     round++) {
		na.vni = VNI_K0 + round;
		id = kav_test_grant_one(na.vni, UID_A, 0);
		ASSERT_NE(0, id);
		na.nic = kav_nic_open();
		ASSERT_LE(0, na.nic);
		memset(f, 0, sizeof(*f));
		ASSERT_EQ(0, start(self, nic_tenant, &na, &f->ready));
		t = kav_now();
		snapshot(shm, &s0);
		ASSERT_EQ(0, kav_nl_grant_del(&nl, id));
		snapshot(shm, &s1);
		ASSERT_EQ(0, nic_stats(na.nic, &s));
		/* Whenever GRANT_DEL returns, the callback has run. */
		EXPECT_EQ(1, s.nr_callbacks);
		EXPECT_EQ(na.vni, s.last_revoked_vni);
		EXPECT_EQ(0, s.nr_callbacks_atomic);
		in = during(&s0, &s1);
		shown = in && s.nr_callbacks == 1;
		st(&f->cmd, FL_EXIT);
		futex(&f->cmd, FUTEX_WAKE, INT32_MAX);
		EXPECT_EQ(0, kav_reap(self->pids[--self->nr_pids]));
		self->pids[self->nr_pids] = 0;
		close(na.nic);
		ksft_print_msg("round %u: %.2f s; GRANT_DEL returned, its callback run, %s a queued flood call\n",
			       round + 1, kav_now() - t, when(in));
	}
	kav_nl_close(&nl);
	EXPECT_TRUE(shown) TH_LOG("GRANT_DEL never returned, with the NIC told, while a flood call of the revoked tenant queued at its start was in flight");
}

TEST_HARNESS_MAIN
