// SPDX-License-Identifier: GPL-2.0
/*
 * kav_revoke_bench [--format str|ipv4] [--chain L] [--revokes N]
 *                  [--budget S] [--inserts N] [--batch B] [--singles S]
 *                  [--reps R]
 *
 * Revocation under a flood, and what the keyed index costs an insert
 * (issue 34; Documentation/benchmarks.rst, "Revocation under a flood").
 * Raw uAPI (the selftests' helpers), no library; runs against any kav.ko
 * with job tables, the one of this tree or an older one: the colliding
 * addresses are computed with the header's public hash and seed, and a
 * module whose header has no index_hash (reserved, 0) gets seed 0, for
 * which the seeded FNV-1a is the unseeded one.
 *
 * 1. GRANT_DEL of an unrelated grant (uid 3403's, used by nobody), timed
 *    on the admin's generic netlink socket, N times (default 20):
 *    (a) at rest, (b) each while one flood call is in flight: tenant A
 *    (uid 3401) has built a chain of L addresses in one bucket of its job
 *    table's public index (4096 buckets; 480-byte KAV_ADDR_STR strings, L
 *    = 2048 by default, or IPv4 with L = 4096) and inserts KAV_BATCH_MAX
 *    copies of the chain's oldest address in one call. GRANT_DEL starts
 *    once the call has spent 1.5 times its copy phase on the CPU (as
 *    kav_flood_test does: past the copy, in the table's lock on a module
 *    that has one there; 1.1 let an old module's call still be copying
 *    when GRANT_DEL started). A call that ends before the gate (a fixed
 *    module's, often) is not timed. Rounds under the flood stop after N
 *    or once they have taken S seconds (default 90; at least 2 rounds),
 *    since a flood call lasts tens of seconds on a module that walks the
 *    chain.
 *    Reported: median and max of each, the ratio flood/rest, the flood
 *    calls' own duration, and in how many rounds GRANT_DEL returned while
 *    the flood call was still in flight.
 * 2. Insert cost per address (tenant B, uid 3402), for IPv4 and 480-byte
 *    strings, median of R (3) fresh tables each: N (16384) new distinct
 *    addresses in batches of B (1024) and the same again (present: the
 *    find path) into a job table; S (1024) single inserts (count 1, as
 *    Open MPI inserts one peer at a time) of new addresses, then again
 *    (present), into a job table; the batches and the singles into a
 *    private AV (no index) beside them.
 *
 * TAP: one line per part, "not ok" only when an operation fails, never
 * for a time. The results are printed between @@KAV-REVOKE-BEGIN and
 * @@KAV-REVOKE-END. Timings are the guest's: under TCG they are
 * inflated; compare rows and runs on one host. Needs root and kav loaded.
 */
#include <getopt.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "kav_attack_util.h"
#include "kav_collide.h"
#include "kav_nl_util.h"
#include "kav_test_grants.h"

#define UID_A		3401	/* the flooding tenant */
#define UID_B		3402	/* the inserting tenant (part 2) */
#define UID_C		3403	/* whose grant is revoked */

#define VNI_A		34500
#define VNI_C		34501
#define VNI_B0		34600	/* part 2: one grant per fresh job table */

#define BUCKETS		4096	/* the flood table's AV_CREATE count */
#define STR_LEN		480	/* KAV_ADDR_STR: 479 characters and NUL */
#define GATE_NUM	3	/* GRANT_DEL starts after GATE_NUM / GATE_DEN */
#define GATE_DEN	2	/* of the flood call's copy phase (CPU time) */
#define MAX_ROUNDS	1000
#define MAX_REPS	9

static struct {
	bool str;
	uint32_t chain, revokes, inserts, batch, singles, reps;
	double budget;
} cfg = { .str = true, .revokes = 20, .budget = 90, .inserts = 16384,
	  .batch = 1024, .singles = 1024, .reps = 3 };

static int64_t ns_now(clockid_t ck)
{
	struct timespec ts;

	if (clock_gettime(ck, &ts))
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median and max of @n values (sorted in place). */
static void stats(int64_t *v, uint32_t n, double *med, double *max)
{
	size_t mid = n / 2;

	*med = *max = 0;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_i64);
	*med = n & 1 ? (double)v[mid] :
	       ((double)v[mid - 1] + (double)v[mid]) / 2.0;
	*max = (double)v[n - 1];
}

/* ------------------------------------------------------ shared state */

static uint32_t ld(uint32_t *w)
{
	return __atomic_load_n(w, __ATOMIC_ACQUIRE);
}

static void bump(uint32_t *w)
{
	__atomic_add_fetch(w, 1, __ATOMIC_ACQ_REL);
}

struct shm {
	/* the flooder */
	uint32_t cmd, seq, ready;	/* seq odd while a call is in flight */
	int32_t pid, err;
	uint32_t chain_len, bucket, seeded;
	int64_t cpu0, copy_ns, call_ns, build_ns;
	/* part 2's child */
	int32_t ins_err;
	double ins[2][8];		/* [format][row]: ns per address */
};

static struct shm *shm;

#define FL_EXIT		0xffffffffU

/* ------------------------------------------------------------ tables */

static int job_table(uint32_t vni, bool str, uint32_t count, int *dom,
		     struct kav_av_create *c)
{
	*dom = kav_open_domain();
	if (*dom < 0)
		return -errno;
	if (kav_domain_set_key(*dom, vni))
		return -errno;
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->flags = KAV_AV_JOB;
	c->addr_format = str ? KAV_ADDR_STR : KAV_ADDR_SOCKADDR_IN;
	c->addr_max = str ? STR_LEN : 0;
	c->count = count;
	return ioctl(*dom, KAV_IOC_AV_CREATE, c) ? -errno : c->fd;
}

static int private_av(int dom, bool str, uint32_t count)
{
	struct kav_av_create c = {
		.size = sizeof(c),
		.addr_format = str ? KAV_ADDR_STR : KAV_ADDR_SOCKADDR_IN,
		.addr_max = str ? STR_LEN : 0, .count = count,
	};

	return ioctl(dom, KAV_IOC_AV_CREATE, &c) ? -errno : c.fd;
}

/* kav_attack_util.h's kav_insert_stride(), without err_index. */
static int insert(int av, const void *a, uint32_t stride, uint32_t n,
		 uint64_t *fi)
{
	return kav_insert_stride(av, a, stride, n, fi, NULL);
}

/* ---------------------------------------------------------- flooder */

/*
 * Tenant A: its job table, the chain of cfg.chain colliding addresses
 * (one batch, oldest first), then one flood call per command.
 */
/* The flooder's chain and flood batch: its process's until it exits. */
static char *addrs, *flood;

static int flooder(void)
{
	uint32_t stride = cfg.str ? STR_LEN : sizeof(struct sockaddr_in);
	uint32_t L = cfg.chain, n, i, cmd = 0;
	const volatile struct kav_table_header *h;
	struct kav_av_create c;
	struct kav_map m = { 0 };
	char save[KAV_ADDR_MAX_LEN];
	size_t last = (size_t)(KAV_BATCH_MAX - 1) * stride;
	uint64_t seed, fi;
	int64_t t0, d;
	int dom, av, ret;

	shm->pid = getpid();
	if (kav_become(UID_A, UID_A, 0, NULL))
		return 10;
	av = job_table(VNI_A, cfg.str, BUCKETS, &dom, &c);
	if (av < 0 || kav_map_av(av, c.map_size, &m))
		return 11;
	h = m.h;
	if (!h || !h->index_buckets)
		return 12;
	/* An old header has no index_hash: reserved, 0, and no seed. */
	shm->seeded = h->index_hash != 0;
	seed = h->index_hash ? h->index_seed : 0;
	addrs = calloc(L, stride);
	flood = malloc((size_t)KAV_BATCH_MAX * stride);
	if (!addrs || !flood)
		return 13;
	if (cfg.str)
		n = kav_collide_str(h->index_buckets, 0, seed, STR_LEN, 'A',
				    addrs, stride, L, &shm->bucket);
	else
		n = kav_collide_in(h->index_buckets, 0, seed, 0x0a410000u,
				   3400, (struct sockaddr_in *)addrs, L,
				   &shm->bucket);
	if (n != L)
		return 14;
	t0 = ns_now(CLOCK_MONOTONIC);
	if (insert(av, addrs, stride, L, NULL))
		return 15;
	shm->build_ns = ns_now(CLOCK_MONOTONIC) - t0;
	shm->chain_len = (uint32_t)kav_collide_chain_len(h, shm->bucket);
	/* Copies of the oldest entry, which is there already. */
	for (i = 0; i < KAV_BATCH_MAX; i++)
		memcpy(flood + (size_t)i * stride, addrs, stride);
	if (insert(av, addrs, stride, 1, &fi) || fi != 0)
		return 16;
	/* The copy phase: a call that fails on its last address. */
	memcpy(save, flood + last, stride);
	if (cfg.str)
		flood[last] = ' ';		/* not printable ASCII */
	else
		((struct sockaddr_in *)(flood + last))->sin_family = 0;
	for (i = 0; i < 3; i++) {
		t0 = ns_now(CLOCK_PROCESS_CPUTIME_ID);
		ret = insert(av, flood, stride, KAV_BATCH_MAX, NULL);
		d = ns_now(CLOCK_PROCESS_CPUTIME_ID) - t0;
		if (ret != -EINVAL)
			return 17;
		if (d > shm->copy_ns)
			shm->copy_ns = d;
	}
	memcpy(flood + last, save, stride);
	__atomic_store_n(&shm->ready, 1, __ATOMIC_RELEASE);
	for (;;) {
		while (ld(&shm->cmd) == cmd)
			usleep(100);
		cmd = ld(&shm->cmd);
		if (cmd == FL_EXIT)
			return 0;
		shm->cpu0 = ns_now(CLOCK_PROCESS_CPUTIME_ID);
		t0 = ns_now(CLOCK_MONOTONIC);
		bump(&shm->seq);
		shm->err = insert(av, flood, stride, KAV_BATCH_MAX, NULL);
		shm->call_ns = ns_now(CLOCK_MONOTONIC) - t0;
		bump(&shm->seq);
	}
}

/*
 * Start one flood call and wait until it is past its copy phase: its odd
 * seq, or 0 if it ended first.
 */
static uint32_t flood_started(int64_t gate_ns)
{
	uint32_t before = ld(&shm->seq), seq;
	clockid_t ck;

	bump(&shm->cmd);
	while ((seq = ld(&shm->seq)) == before)
		usleep(100);
	if (!(seq & 1) || clock_getcpuclockid(shm->pid, &ck))
		return 0;
	while (ld(&shm->seq) == seq) {
		if (ns_now(ck) - shm->cpu0 >= gate_ns)
			return seq;
		usleep(200);
	}
	return 0;
}

static void flood_wait(uint32_t seq)
{
	while (ld(&shm->seq) == seq)
		usleep(500);
}

/* --------------------------------------------------- part 1: revoke */

struct revoke_res {
	uint32_t n_rest, n_flood, n_during, n_missed;
	int64_t rest[MAX_ROUNDS], flood[MAX_ROUNDS], call[MAX_ROUNDS];
};

/* Grant UID_C a key; revoke it, timed: ns, or -1. */
static int64_t timed_revoke(struct kav_nl *nl, uint32_t (*gate)(int64_t),
			    int64_t gate_ns, uint32_t *seq)
{
	uint32_t id = kav_test_grant_one(VNI_C, UID_C, 0);
	int64_t t0, d;
	int ret;

	if (!id)
		return -1;
	*seq = gate ? gate(gate_ns) : 0;
	if (gate && !*seq) {		/* the call ended first: not timed */
		kav_test_grant_del(id);
		return -2;
	}
	t0 = ns_now(CLOCK_MONOTONIC);
	ret = kav_nl_grant_del(nl, id);
	d = ns_now(CLOCK_MONOTONIC) - t0;
	if (ret) {
		fprintf(stderr, "kav_revoke_bench: GRANT_DEL: %s\n",
			strerror(-ret));
		return -1;
	}
	return d;
}

static int part_revoke(struct revoke_res *r, struct kav_nl *nl)
{
	int64_t gate_ns = shm->copy_ns * GATE_NUM / GATE_DEN, d, t0;
	uint32_t i, seq, tries = 0;

	for (i = 0; i < cfg.revokes; i++) {
		d = timed_revoke(nl, NULL, 0, &seq);
		if (d < 0)
			return -1;
		r->rest[r->n_rest++] = d;
	}
	t0 = ns_now(CLOCK_MONOTONIC);
	while (r->n_flood < cfg.revokes && tries < MAX_ROUNDS &&
	       (r->n_flood < 2 ||
		ns_now(CLOCK_MONOTONIC) - t0 < (int64_t)(cfg.budget * 1e9))) {
		tries++;
		d = timed_revoke(nl, flood_started, gate_ns, &seq);
		if (d == -1)
			return -1;
		if (d == -2) {
			r->n_missed++;
			continue;
		}
		/* Returned while the call it met was in flight? */
		if (ld(&shm->seq) == seq)
			r->n_during++;
		flood_wait(seq);
		if (shm->err) {
			fprintf(stderr, "kav_revoke_bench: flood call: %s\n",
				strerror(-shm->err));
			return -1;
		}
		r->call[r->n_flood] = shm->call_ns;
		r->flood[r->n_flood++] = d;
		printf("# flood round %u: GRANT_DEL %.1f ms (returned %s the flood call), flood call %.1f ms\n",
		       r->n_flood, d / 1e6,
		       ld(&shm->seq) == seq ? "during" : "after",
		       shm->call_ns / 1e6);
		fflush(stdout);
	}
	return r->n_flood ? 0 : -1;
}

/* --------------------------------------------------- part 2: insert */

enum { R_JOB_NEW, R_JOB_FIND, R_JOB_1_NEW, R_JOB_1_FIND, R_PRIV_NEW,
       R_PRIV_1, NR_ROWS };

static const char *const row_name[NR_ROWS] = {
	"job table, batches, new addresses",
	"job table, batches, present addresses (find)",
	"job table, single inserts, new",
	"job table, single inserts, present (find)",
	"private AV, batches, new",
	"private AV, single inserts, new",
};

/* Address @i (distinct for distinct @i) at @a. */
static void make_addr(bool str, uint32_t i, char *a)
{
	if (str) {
		memset(a, 'a', STR_LEN - 1);
		a[snprintf(a, 32, "peer-%08u-", i)] = 'a';
		a[STR_LEN - 1] = 0;
	} else {
		struct sockaddr_in s = kav_sin(0x0a000000u + i, 5000);

		memcpy(a, &s, sizeof(s));
	}
}

/* Insert @n addresses of @a in batches of @b: ns per address, or -1. */
static double timed_inserts(int av, const char *a, uint32_t stride,
			    uint32_t n, uint32_t b, uint64_t *fi)
{
	int64_t t0 = ns_now(CLOCK_MONOTONIC);
	uint32_t i, k;

	for (i = 0; i < n; i += k) {
		k = n - i < b ? n - i : b;
		if (insert(av, a + (size_t)i * stride, stride, k, fi + i))
			return -1;
	}
	return (double)(ns_now(CLOCK_MONOTONIC) - t0) / n;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One format's rows, each the median of cfg.reps fresh tables. */
static int insert_rows(bool str, uint32_t *vni, double *out)
{
	uint32_t stride = str ? STR_LEN : sizeof(struct sockaddr_in);
	uint32_t n = cfg.inserts, s = cfg.singles, rep, i, row;
	char *a = malloc((size_t)(n > s ? n : s) * stride);
	uint64_t *fi = calloc(n > s ? n : s, sizeof(*fi));
	uint64_t *fi2 = calloc(n > s ? n : s, sizeof(*fi2));
	double v[NR_ROWS][MAX_REPS];
	struct kav_av_create c;
	int dom, av, ret = 0;

	if (!a || !fi || !fi2)
		ret = -ENOMEM;
	for (i = 0; !ret && i < (n > s ? n : s); i++)
		make_addr(str, i, a + (size_t)i * stride);
	for (rep = 0; rep < cfg.reps && !ret; rep++) {
		/* Batches into a fresh job table, then again. */
		av = job_table((*vni)++, str, n, &dom, &c);
		if (av < 0) {
			ret = av;
			goto out;
		}
		v[R_JOB_NEW][rep] = timed_inserts(av, a, stride, n, cfg.batch,
						  fi);
		v[R_JOB_FIND][rep] = timed_inserts(av, a, stride, n,
						   cfg.batch, fi2);
		if (memcmp(fi, fi2, n * sizeof(*fi)) != 0)
			ret = -EBADMSG;	/* a present address got a new entry */
		close(av);
		close(dom);
		/* Singles, as Open MPI inserts its peers. */
		av = job_table((*vni)++, str, s, &dom, &c);
		if (av < 0) {
			ret = av;
			goto out;
		}
		v[R_JOB_1_NEW][rep] = timed_inserts(av, a, stride, s, 1, fi);
		v[R_JOB_1_FIND][rep] = timed_inserts(av, a, stride, s, 1, fi2);
		if (memcmp(fi, fi2, s * sizeof(*fi)) != 0)
			ret = -EBADMSG;
		close(av);
		/* The private AV: no index. */
		av = private_av(dom, str, n);
		if (av < 0) {
			ret = av;
			goto out;
		}
		v[R_PRIV_NEW][rep] = timed_inserts(av, a, stride, n, cfg.batch,
						   fi);
		close(av);
		av = private_av(dom, str, s);
		if (av < 0) {
			ret = av;
			goto out;
		}
		v[R_PRIV_1][rep] = timed_inserts(av, a, stride, s, 1, fi);
		close(av);
		close(dom);
		for (row = 0; row < NR_ROWS; row++)
			if (v[row][rep] < 0)
				ret = -EIO;
	}
	for (row = 0; row < NR_ROWS && !ret; row++) {
		qsort(v[row], cfg.reps, sizeof(double), cmp_d);
		out[row] = v[row][cfg.reps / 2];
	}
out:
	free(a);
	free(fi);
	free(fi2);
	return ret;
}

static int inserter(void)
{
	uint32_t vni = VNI_B0;
	int f, ret;

	if (kav_become(UID_B, UID_B, 0, NULL))
		return 20;
	for (f = 0; f < 2; f++) {
		ret = insert_rows(f == 1, &vni, shm->ins[f]);
		if (ret) {
			shm->ins_err = ret;
			return 21;
		}
	}
	return 0;
}

static pid_t fork_fn(int (*fn)(void))
{
	pid_t pid = fork();

	if (pid == 0) {
		fflush(stdout);
		_exit(fn());
	}
	return pid;
}

/* ------------------------------------------------------------- main */

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "chain", required_argument, NULL, 'l' },
		{ "revokes", required_argument, NULL, 'n' },
		{ "budget", required_argument, NULL, 'b' },
		{ "inserts", required_argument, NULL, 'i' },
		{ "batch", required_argument, NULL, 'B' },
		{ "singles", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	static struct revoke_res r;
	uint32_t grants[2 * 2 * MAX_REPS + 1], ngr = 0, i;
	double rm, rx, fm, fx, cm, cx;
	struct kav_nl nl;
	struct utsname u;
	pid_t fl, ins;
	int o, fails = 0, rc;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'f':
			cfg.str = strcmp(optarg, "ipv4") != 0;
			break;
		case 'l':
			cfg.chain = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			cfg.revokes = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			cfg.budget = strtod(optarg, NULL);
			break;
		case 'i':
			cfg.inserts = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'B':
			cfg.batch = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			cfg.singles = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'r':
			cfg.reps = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: kav_revoke_bench [--format str|ipv4] [--chain L] [--revokes N] [--budget S] [--inserts N] [--batch B] [--singles S] [--reps R]\n");
			return 2;
		}
	}
	if (!cfg.chain)
		cfg.chain = cfg.str ? 2048 : 4096;
	if (cfg.chain < 2)
		cfg.chain = 2;
	if (cfg.chain > KAV_BATCH_MAX)
		cfg.chain = KAV_BATCH_MAX;
	if (cfg.revokes < 1)
		cfg.revokes = 1;
	if (cfg.revokes > MAX_ROUNDS)
		cfg.revokes = MAX_ROUNDS;
	if (cfg.reps < 1)
		cfg.reps = 1;
	if (cfg.reps > MAX_REPS)
		cfg.reps = MAX_REPS;
	if (cfg.batch < 1 || cfg.batch > KAV_BATCH_MAX)
		cfg.batch = 1024;
	if (cfg.inserts < 1)
		cfg.inserts = 1;
	if (cfg.singles < 1)
		cfg.singles = 1;

	uname(&u);
	printf("TAP version 13\n1..2\n");
	printf("# kav_revoke_bench: %s %s, %ld CPUs\n", u.release, u.version,
	       sysconf(_SC_NPROCESSORS_ONLN));
	fflush(stdout);
	shm = kav_shared(sizeof(*shm));
	if (!shm || kav_nl_open(&nl)) {
		perror("kav_revoke_bench: setup");
		return 1;
	}
	grants[ngr] = kav_test_grant_one(VNI_A, UID_A, 0);
	if (!grants[ngr++])
		goto setup_failed;
	for (i = 0; i < 2 * 2 * cfg.reps; i++) {
		grants[ngr] = kav_test_grant_one(VNI_B0 + i, UID_B, 0);
		if (!grants[ngr++])
			goto setup_failed;
	}

	/* Part 1. */
	fl = fork_fn(flooder);
	while (fl > 0 && !ld(&shm->ready)) {
		if (waitpid(fl, &rc, WNOHANG) == fl) {
			fprintf(stderr, "kav_revoke_bench: flooder setup failed (%d)\n",
				WEXITSTATUS(rc));
			fl = -1;
		}
		usleep(2000);
	}
	if (fl > 0) {
		printf("# flood: %s addresses, chain of %u in bucket %u of %u (mapped chain %u long; %s hash), built in %.1f ms; copy phase %.1f ms of CPU\n",
		       cfg.str ? "480-byte string" : "IPv4", cfg.chain,
		       shm->bucket, (unsigned int)BUCKETS, shm->chain_len,
		       shm->seeded ? "seeded" : "unseeded (old header)",
		       shm->build_ns / 1e6, shm->copy_ns / 1e6);
		fflush(stdout);
		rc = part_revoke(&r, &nl);
		__atomic_store_n(&shm->cmd, FL_EXIT, __ATOMIC_RELEASE);
		kav_reap(fl);
	} else {
		rc = -1;
	}
	fails += rc != 0;
	printf("%sok 1 - GRANT_DEL at rest and during a flood\n",
	       rc ? "not " : "");
	fflush(stdout);

	/* Part 2. */
	ins = fork_fn(inserter);
	rc = kav_reap(ins);
	if (rc)
		fprintf(stderr, "kav_revoke_bench: inserter failed (%d: %s)\n",
			rc, strerror(-shm->ins_err));
	fails += rc != 0;
	printf("%sok 2 - insert cost\n", rc ? "not " : "");

	stats(r.rest, r.n_rest, &rm, &rx);
	stats(r.flood, r.n_flood, &fm, &fx);
	stats(r.call, r.n_flood, &cm, &cx);
	printf("# @@KAV-REVOKE-BEGIN\n");
	printf("# kernel %s; flood: %s, L = %u, %u copies of the chain's oldest address per call\n",
	       u.release, cfg.str ? "480-byte KAV_ADDR_STR" : "IPv4",
	       cfg.chain, (unsigned int)KAV_BATCH_MAX);
	printf("# | GRANT_DEL (unrelated grant) | n | median ms | max ms |\n");
	printf("# |---|---:|---:|---:|\n");
	printf("# | at rest | %u | %.2f | %.2f |\n", r.n_rest, rm / 1e6,
	       rx / 1e6);
	printf("# | during a flood call | %u | %.2f | %.2f |\n", r.n_flood,
	       fm / 1e6, fx / 1e6);
	printf("# | ratio flood / rest | | %.2fx | %.2fx |\n",
	       rm ? fm / rm : 0, rx ? fx / rx : 0);
	printf("# | the flood call itself | %u | %.2f | %.2f |\n", r.n_flood,
	       cm / 1e6, cx / 1e6);
	printf("# GRANT_DEL returned while its flood call was in flight: %u of %u rounds (%u rounds not timed: the call ended before the gate)\n",
	       r.n_during, r.n_flood, r.n_missed);
	printf("#\n# | insert, ns per address (median of %u tables) | IPv4 | 480-byte string |\n",
	       cfg.reps);
	printf("# |---|---:|---:|\n");
	for (i = 0; i < NR_ROWS; i++)
		printf("# | %s (%u, count %u each) | %.0f | %.0f |\n", row_name[i],
		       i == R_JOB_NEW || i == R_JOB_FIND || i == R_PRIV_NEW ?
		       cfg.inserts : cfg.singles,
		       i == R_JOB_NEW || i == R_JOB_FIND || i == R_PRIV_NEW ?
		       cfg.batch : 1, shm->ins[0][i], shm->ins[1][i]);
	printf("# @@KAV-REVOKE-END\n");
	for (i = 0; i < ngr; i++)
		kav_test_grant_del(grants[i]);
	kav_nl_close(&nl);
	return fails ? 1 : 0;

setup_failed:
	printf("not ok 1 - GRANT_DEL at rest and during a flood # grant failed\nnot ok 2 - insert cost\n");
	for (i = 0; i < ngr; i++)
		if (grants[i])
			kav_test_grant_del(grants[i]);
	return 1;
}
