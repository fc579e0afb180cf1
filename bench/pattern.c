// SPDX-License-Identifier: GPL-2.0
/*
 * "The Open MPI pattern" (issue 27): P processes, as the ranks of one job
 * on one node, each open a private AV (FI_AV_MAP) and insert the same N
 * IPv4 peers one fi_av_insert(count 1) at a time, as Open MPI 5 does from
 * its PMIx modex. Two ways, one after the other in the same guest:
 *
 *  - kav: the udp provider under FI_HOOK=kav with the job's VNI
 *    (FI_OFI_HOOK_KAV_VNI, granted by main(); FI_OFI_HOOK_KAV_REQUIRE=1, so
 *    a rank that does not get kav fails instead of falling back);
 *  - util: the udp provider alone: libfabric's util AV, private per rank.
 *
 * Every rank is a new process (fork + exec of kav_bench --pattern-child:
 * libfabric reads FI_HOOK once per process). They run concurrently, as
 * ranks do, on the guest's CPUs. The phases, each started for all ranks
 * at once by the parent closing a pipe:
 *
 *   ready    the rank has its addresses and its fabric and domain open
 *   base     it measures its Pss, then opens its AV
 *   go       it times its N inserts, then checks two of them by lookup
 *   measure  it measures its Pss again (all ranks alive, all AVs full)
 *   done     it closes its AV (the hook prints its stats line) and exits
 *
 * Memory per node = the ranks' Pss growth from base to measure, outside
 * kav's table mappings ("[kav-av]": those pages are the kernel's), plus the
 * growth of kav's kernel memory (netlink STATS_GET: every domain, AV and
 * entry kav holds), read by the parent at the same two points. The
 * kernel's AV and entry counts are read there too: how many tables the
 * node holds and how many inserts entered the kernel. As a cross-check
 * the node's own growth (MemTotal - MemFree) is shown; it includes page
 * tables and everything else the phase allocated.
 *
 * Insert time: the sum over the ranks of their loops' times, and the wall
 * time from "go" to the last rank's report. One sample per cell: the
 * full run is long under TCG.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <rdma/fi_errno.h>

#include "bench.h"
#include "kav_nl_util.h"
#include "kav_proc_mem.h"

enum pat_impl { PAT_KAV, PAT_UTIL, NR_PAT };

static const char *const pat_name[NR_PAT] = { "kav", "util" };

/* A rank's phases, in order; the parent closes phase[i]'s pipe to start
 * phase i. */
enum { PH_BASE, PH_GO, PH_MEASURE, PH_DONE, NR_PH };

/* What a rank writes to the report pipe (atomic: < PIPE_BUF). */
struct pat_msg {
	int rank;
	int phase;		/* -1: ready */
	int err;		/* 0 or a negative fabric error */
	double secs;		/* go: the insert loop */
	double cpu;		/* go: its CPU time (user + system) */
	long pss_kb;		/* base, measure: Pss outside [kav-av] */
};

/* ------------------------------------------------------------ the rank */

/* The process's Pss in kB, without kav's table mappings. */
static long pss_outside_kav(void)
{
	char line[512];
	long total = 0, v;
	bool kav = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			kav = strstr(line, "[kav-av]") != NULL;
			continue;
		}
		if (!kav && sscanf(line, "Pss: %ld kB", &v) == 1)
			total += v;
	}
	fclose(f);
	return total;
}

static int pat_send(int fd, int rank, int phase, int err, double secs,
		    double cpu, long pss_kb)
{
	struct pat_msg m = { .rank = rank, .phase = phase, .err = err,
			     .secs = secs, .cpu = cpu, .pss_kb = pss_kb };

	return write(fd, &m, sizeof(m)) == sizeof(m) ? 0 : -1;
}

/* This process's CPU time, user and system: what its inserts cost, when
 * more ranks than CPUs make their loops' wall times overlap. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Block until the parent closes @fd. */
static void pat_wait(int fd)
{
	char c;

	while (read(fd, &c, 1) > 0)
		;
}

static int pat_open(struct fid_fabric **fabric, struct fid_domain **domain,
		    struct fi_info **info)
{
	struct fi_info *hints = fi_allocinfo();
	int ret;

	if (!hints)
		return -FI_ENOMEM;
	hints->fabric_attr->prov_name = strdup("udp");
	hints->ep_attr->type = FI_EP_DGRAM;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->caps = FI_MSG;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, info);
	fi_freeinfo(hints);
	if (ret)
		return ret;
	ret = fi_fabric((*info)->fabric_attr, fabric, NULL);
	if (ret)
		return ret;
	return fi_domain(*fabric, *info, domain, NULL);
}

/* Two of the N entries read back: the first and the last. */
static int pat_check(struct fid_av *av, const fi_addr_t *fa, uint64_t n)
{
	uint64_t idx[2] = { 0, n - 1 };
	struct sockaddr_in want, got;
	size_t len;
	int i, ret;

	for (i = 0; i < 2; i++) {
		len = sizeof(got);
		ret = fi_av_lookup(av, fa[idx[i]], &got, &len);
		if (ret)
			return ret;
		bench_addr(AF_INET, idx[i], &want);
		if (len != sizeof(want) ||
		    memcmp(&got, &want, sizeof(want)) != 0)
			return -FI_EOTHER;
	}
	return 0;
}

/*
 * kav_bench --pattern-child RANK N REPORT-FD BASE GO MEASURE DONE: one
 * rank (FI_HOOK is in its environment or not).
 */
int bench_pattern_child(int argc, char **argv)
{
	struct fi_av_attr attr = { .type = FI_AV_MAP };
	struct fid_fabric *fabric = NULL;
	struct fid_domain *domain = NULL;
	struct fi_info *info = NULL;
	struct fid_av *av = NULL;
	int rank, rep, ph[NR_PH], i, ret;
	fi_addr_t *fa;
	double t0, t1, c0, c1;
	char *addrs;
	uint64_t n, k;
	long pss;

	if (argc != 9)
		return 2;
	rank = atoi(argv[2]);
	n = strtoull(argv[3], NULL, 0);
	rep = atoi(argv[4]);
	for (i = 0; i < NR_PH; i++)
		ph[i] = atoi(argv[5 + i]);
	/* The same N peers in every rank, as MPI ranks' modex gives them. */
	addrs = bench_addrs(AF_INET, 0, n);
	fa = calloc(n, sizeof(*fa));
	if (!fa)
		return 1;
	memset(fa, 0xff, n * sizeof(*fa));	/* resident before "base" */
	ret = pat_open(&fabric, &domain, &info);
	if (ret)
		fprintf(stderr, "kav_bench: pattern rank %d: udp domain: %s\n",
			rank, fi_strerror(-ret));
	if (pat_send(rep, rank, -1, ret, 0, 0, 0) || ret)
		goto out;

	pat_wait(ph[PH_BASE]);
	pss = pss_outside_kav();
	attr.count = n;
	ret = fi_av_open(domain, &attr, &av, NULL);
	if (ret) {
		fprintf(stderr, "kav_bench: pattern rank %d: fi_av_open: %s\n",
			rank, fi_strerror(-ret));
		av = NULL;
	}
	if (pat_send(rep, rank, PH_BASE, ret, 0, 0, pss) || ret)
		goto out;

	pat_wait(ph[PH_GO]);
	c0 = cpu_now();
	t0 = bench_now();
	for (k = 0; k < n; k++) {
		ret = fi_av_insert(av, addrs + k * sizeof(struct sockaddr_in),
				   1, &fa[k], 0, NULL);
		if (ret != 1)
			break;
	}
	t1 = bench_now();
	c1 = cpu_now();
	if (k < n) {
		fprintf(stderr, "kav_bench: pattern rank %d: insert %llu: %d\n",
			rank, (unsigned long long)k, ret);
		ret = ret < 0 ? ret : -FI_EIO;
	} else {
		ret = pat_check(av, fa, n);
	}
	if (pat_send(rep, rank, PH_GO, ret, t1 - t0, c1 - c0, 0) || ret)
		goto out;

	pat_wait(ph[PH_MEASURE]);
	pss = pss_outside_kav();
	if (pat_send(rep, rank, PH_MEASURE, 0, 0, 0, pss))
		goto out;
	pat_wait(ph[PH_DONE]);
out:
	if (av)
		fi_close(&av->fid);	/* the hook's stats line */
	if (domain)
		fi_close(&domain->fid);
	if (fabric)
		fi_close(&fabric->fid);
	if (info)
		fi_freeinfo(info);
	free(fa);
	free(addrs);
	return ret ? 1 : 0;
}

/* ------------------------------------------------------------ the job */

struct pat_cell {
	bool ran, skipped;
	int err;
	double node_bytes;	/* ranks' Pss growth + kernel growth */
	double kernel_bytes;	/* kav's kernel memory growth */
	double meminfo_bytes;	/* the node's MemTotal - MemFree growth */
	double sum_secs, wall_secs;
	double cpu_secs;	/* the ranks' CPU time in their loops */
	int64_t kernel_avs, kernel_entries;
	uint64_t mirrored;	/* kav: core AV entries, from the stats lines */
	uint64_t calls;		/* kav: insert system calls, from them too */
	uint64_t found;		/* kav: inserts found in the job's table */
	int nr_stats;		/* kav: ranks that printed a stats line */
	char stats[256];	/* kav: rank 0's stats line (or why skipped) */
};

/* Directory of this executable: libkav-fi.so is beside it (/tests). */
static const char *hook_dir(void)
{
	static char dir[4096];
	const char *env = getenv("KAV_BENCH_HOOK_DIR");
	ssize_t len;
	char *slash;

	if (env)
		return env;
	len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (len <= 0)
		return ".";
	dir[len] = '\0';
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return dir;
}

static void pat_log(enum pat_impl impl, int rank, char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/kav_bench_pattern.%s.%d", pat_name[impl],
		 rank);
}

static pid_t pat_fork(enum pat_impl impl, int rank, uint64_t n, int rep,
		      const int ph[NR_PH][2], int rep_rd)
{
	char a[6 + NR_PH][32], vni[16], log[64];
	pid_t pid;
	int i, fd;

	fflush(NULL);
	pid = fork();
	if (pid)
		return pid;
	/* The broadcast pipes end only when every writer is gone. */
	for (i = 0; i < NR_PH; i++)
		close(ph[i][1]);
	close(rep_rd);
	pat_log(impl, rank, log, sizeof(log));
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0)
		dup2(fd, STDERR_FILENO);
	/* udp only: the same provider list for both ways. */
	setenv("FI_PROVIDER", "udp", 1);
	setenv("FI_LOG_LEVEL", "warn", 1);
	if (impl == PAT_KAV) {
		snprintf(vni, sizeof(vni), "%d", BENCH_VNI);
		setenv("FI_HOOK", "kav", 1);
		setenv("FI_PROVIDER_PATH", hook_dir(), 1);
		setenv("FI_OFI_HOOK_KAV_VNI", vni, 1);
		setenv("FI_OFI_HOOK_KAV_REQUIRE", "1", 1);
		setenv("FI_OFI_HOOK_KAV_STATS", "1", 1);
	} else {
		unsetenv("FI_HOOK");
	}
	snprintf(a[0], sizeof(a[0]), "%d", rank);
	snprintf(a[1], sizeof(a[1]), "%llu", (unsigned long long)n);
	snprintf(a[2], sizeof(a[2]), "%d", rep);
	for (i = 0; i < NR_PH; i++)
		snprintf(a[3 + i], sizeof(a[0]), "%d", ph[i][0]);
	execl(bench_cfg.self, "kav_bench", "--pattern-child", a[0], a[1],
	      a[2], a[3], a[4], a[5], a[6], (char *)NULL);
	_exit(127);
}

/* "Key: N kB" of /proc/meminfo, in bytes. */
static double meminfo(const char *key)
{
	long kb = kav_proc_kb("/proc/meminfo", key);

	return kb < 0 ? 0 : (double)kb * 1024.0;
}

static int kstats(struct kav_nl_stats *st)
{
	struct kav_nl nl;
	int ret = kav_nl_open(&nl);

	if (ret)
		return ret;
	ret = kav_nl_stats(&nl, st);
	kav_nl_close(&nl);
	return ret;
}

/* Read one message of @phase from every rank; sum what they report. */
static int pat_collect(int fd, int procs, int phase, double *secs,
		       double *cpu, long *pss_kb)
{
	struct pat_msg m;
	int i, err = 0;

	*secs = 0;
	*cpu = 0;
	*pss_kb = 0;
	for (i = 0; i < procs; i++) {
		if (read(fd, &m, sizeof(m)) != sizeof(m))
			return err ? err : -FI_EOTHER;
		if (m.phase != phase)
			return -FI_EOTHER;
		if (m.err && !err) {
			fprintf(stderr, "kav_bench: pattern: rank %d failed in phase %d: %d\n",
				m.rank, phase, m.err);
			err = m.err;
		}
		*secs += m.secs;
		*cpu += m.cpu;
		*pss_kb += m.pss_kb;
	}
	return err;
}

/* The number just before @word in @s (0 if none). */
static unsigned long long num_before(const char *s, const char *word)
{
	const char *m = strstr(s, word);

	if (!m)
		return 0;
	while (m > s && m[-1] >= '0' && m[-1] <= '9')
		m--;
	return strtoull(m, NULL, 10);
}

/*
 * The hook's stats lines, one per rank: entries mirrored into core AVs,
 * and the insert system calls. A private AV makes one per fi_av_insert
 * (count 1: one per inserted address); a job AV says how many it made
 * ("shared with the job: F found on the node without a system call, S
 * sent in C calls"). Rank 0's line is kept for the report.
 */
static void pat_stats(int procs, struct pat_cell *c)
{
	unsigned long long found, sent, calls;
	char log[64], line[512], *s, *j;
	int r;

	for (r = 0; r < procs; r++) {
		FILE *f;

		pat_log(PAT_KAV, r, log, sizeof(log));
		f = fopen(log, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			s = strstr(line, "stats: ");
			if (!s)
				continue;
			s[strcspn(s, "\n")] = '\0';
			c->nr_stats++;
			if (r == 0)
				snprintf(c->stats, sizeof(c->stats), "%s",
					 s + 7);
			c->mirrored += num_before(s, " mirrored");
			j = strstr(s, "shared with the job: ");
			if (j && sscanf(j + 21, "%llu found on the node without a system call, %llu sent in %llu calls",
					&found, &sent, &calls) == 3) {
				c->calls += calls;
				c->found += found;
			} else {
				c->calls += num_before(s, " inserted");
			}
		}
		fclose(f);
	}
}

static void pat_show_logs(enum pat_impl impl, int procs)
{
	char log[64], line[512];
	int r;

	for (r = 0; r < procs; r++) {
		FILE *f;

		pat_log(impl, r, log, sizeof(log));
		f = fopen(log, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strstr(line, "stats: "))
				fprintf(stderr, "# %s rank %d: %s",
					pat_name[impl], r, line);
		fclose(f);
	}
}

/* One cell: P ranks of @impl inserting N each. */
static int pat_run(enum pat_impl impl, int procs, uint64_t n,
		   struct pat_cell *c)
{
	struct kav_nl_stats k0, k1;
	int ph[NR_PH][2], rep[2], i, started = 0, ret = 0, status;
	double t0, secs, cpu, mem0 = 0, mem1;
	long pss0 = 0, pss1 = 0;
	pid_t *pids = calloc((size_t)procs, sizeof(*pids));

	if (!pids)
		return -FI_ENOMEM;
	memset(&k0, 0, sizeof(k0));
	memset(&k1, 0, sizeof(k1));
	for (i = 0; i < NR_PH; i++)
		if (pipe(ph[i]))
			ret = -FI_EOTHER;
	if (pipe(rep))
		ret = -FI_EOTHER;
	for (i = 0; i < procs && !ret; i++) {
		pids[i] = pat_fork(impl, i, n, rep[1], (const int (*)[2])ph,
				   rep[0]);
		if (pids[i] < 0)
			ret = -FI_EOTHER;
		else
			started++;
	}
	close(rep[1]);
	for (i = 0; i < NR_PH; i++)
		close(ph[i][0]);
	if (!ret)
		ret = pat_collect(rep[0], procs, -1, &secs, &cpu, &pss0);
	if (!ret) {
		ret = kstats(&k0);
		mem0 = meminfo("MemTotal") - meminfo("MemFree");
	}
	close(ph[PH_BASE][1]);
	if (!ret)
		ret = pat_collect(rep[0], procs, PH_BASE, &secs, &cpu, &pss0);
	t0 = bench_now();
	close(ph[PH_GO][1]);
	if (!ret) {
		ret = pat_collect(rep[0], procs, PH_GO, &c->sum_secs,
				  &c->cpu_secs, &pss1);
		c->wall_secs = bench_now() - t0;
	}
	close(ph[PH_MEASURE][1]);
	if (!ret)
		ret = pat_collect(rep[0], procs, PH_MEASURE, &secs, &cpu,
				  &pss1);
	if (!ret) {
		mem1 = meminfo("MemTotal") - meminfo("MemFree");
		ret = kstats(&k1);
		c->meminfo_bytes = mem1 - mem0;
	}
	close(ph[PH_DONE][1]);
	/* A failed rank leaves the others nothing to do. */
	for (i = 0; i < started && ret; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < started; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			ret = ret ? ret : -FI_EOTHER;
	close(rep[0]);
	free(pids);
	c->ran = true;
	if (!ret) {
		c->kernel_bytes = (double)k1.mem_bytes - (double)k0.mem_bytes;
		c->kernel_avs = (int64_t)(k1.avs - k0.avs);
		c->kernel_entries = (int64_t)(k1.entries - k0.entries);
		c->node_bytes = (double)(pss1 - pss0) * 1024.0 +
				c->kernel_bytes;
		if (impl == PAT_KAV) {
			pat_stats(procs, c);
			/* The hook served every rank's AV. */
			if (c->nr_stats != procs) {
				fprintf(stderr, "kav_bench: pattern: %d of %d ranks printed the hook's stats line\n",
					c->nr_stats, procs);
				ret = -FI_EOTHER;
			}
		} else if (c->kernel_avs > 0 || c->kernel_entries > 0) {
			/* No kav without the hook. */
			fprintf(stderr, "kav_bench: pattern: kav grew under the util AV\n");
			ret = -FI_EOTHER;
		}
	}
	if (ret)
		pat_show_logs(impl, procs);
	return ret;
}

/* Bytes a cell would need: the same way's measured cells scaled. */
static double pat_need(struct pat_cell (*cells)[NR_PAT], int pi, int ni,
		       enum pat_impl impl)
{
	const int *procs = bench_cfg.pat_procs;
	const uint64_t *sizes = bench_cfg.pat_sizes;
	int nn = bench_cfg.nr_pat_sizes;
	const struct pat_cell *c;
	double per;

	if (pi > 0) {
		c = &cells[(pi - 1) * nn + ni][impl];
		if (c->ran && !c->err) {
			per = (c->node_bytes > c->meminfo_bytes ?
			       c->node_bytes : c->meminfo_bytes) /
			      procs[pi - 1];
			return per * procs[pi];
		}
	}
	if (ni > 0) {
		c = &cells[pi * nn + ni - 1][impl];
		if (c->ran && !c->err)
			return (c->node_bytes > c->meminfo_bytes ?
				c->node_bytes : c->meminfo_bytes) *
			       (double)sizes[ni] / (double)sizes[ni - 1];
	}
	return 0;
}

#define MIB	(1024.0 * 1024.0)

static void pat_mib(FILE *out, const struct pat_cell *c, double v)
{
	if (c->skipped)
		fprintf(out, " skipped |");
	else if (c->err || !c->ran)
		fprintf(out, " error %d |", c->err);
	else
		fprintf(out, " %.1f |", v / MIB);
}

static void pat_secs(FILE *out, const struct pat_cell *c, double v)
{
	if (c->skipped)
		fprintf(out, " skipped |");
	else if (c->err || !c->ran)
		fprintf(out, " error %d |", c->err);
	else
		fprintf(out, " %.2f |", v);
}

static void pat_ratio(FILE *out, const struct pat_cell *c, double kav,
		      double util)
{
	if (c[PAT_KAV].ran && c[PAT_UTIL].ran && !c[PAT_KAV].err &&
	    !c[PAT_UTIL].err)
		bench_md_ratio(out, kav, util);
	else
		fprintf(out, " - |");
}

static void pat_report(FILE *out, struct pat_cell (*cells)[NR_PAT])
{
	int nn = bench_cfg.nr_pat_sizes, pi, ni, x;
	struct pat_cell *c;

	fprintf(out, "\n## The Open MPI pattern\n\n"
		"P processes (ranks of one job on one node, started together, "
		"concurrently on the guest's %ld CPUs) each open a private AV "
		"(FI_AV_MAP) and insert the same N IPv4 addresses one "
		"fi_av_insert(count 1) at a time. kav: the udp provider under "
		"FI_HOOK=kav with the job's VNI; util: the udp provider alone "
		"(libfabric's util AV, one per process). One sample per cell.\n\n"
		"Memory per node, MiB: the ranks' Pss growth from before "
		"fi_av_open to after the inserts (all ranks alive), outside kav's "
		"table mappings, plus the growth of kav's kernel memory (netlink "
		"STATS_GET). node: the guest's own MemTotal - MemFree growth over "
		"the same interval (page tables, everything), a cross-check. "
		"Time: sum = the ranks' insert loops added up (with more ranks "
		"than CPUs their loops overlap: each includes others' turns); "
		"wall = from the start signal to the last rank done; CPU = the "
		"ranks' CPU time (user + system) in their loops added up, the "
		"inserts' cost. kernel AVs, entries: the "
		"growth of kav's counts over the run (tables the node holds, "
		"inserts that entered the kernel); core entries: what the hook mirrored into core AVs; "
		"insert syscalls: the ranks' insert system calls, and the inserts "
		"found in the job's table without one (the hook's stats lines; a "
		"private AV makes one call per single-address insert).\n\n"
		"| P | N | kav MiB | util MiB | mem kav/util | kav node MiB | util node MiB | kav kernel MiB | kav sum s | util sum s | sum kav/util | kav wall s | util wall s | wall kav/util | kav CPU s | util CPU s | CPU kav/util | kernel AVs | kernel entries | core entries | insert syscalls | found without one |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
		sysconf(_SC_NPROCESSORS_ONLN));
	for (pi = 0; pi < bench_cfg.nr_pat_procs; pi++)
		for (ni = 0; ni < nn; ni++) {
			c = cells[pi * nn + ni];
			fprintf(out, "| %d | %llu |", bench_cfg.pat_procs[pi],
				(unsigned long long)bench_cfg.pat_sizes[ni]);
			for (x = 0; x < NR_PAT; x++)
				pat_mib(out, &c[x], c[x].node_bytes);
			pat_ratio(out, c, c[PAT_KAV].node_bytes,
				  c[PAT_UTIL].node_bytes);
			for (x = 0; x < NR_PAT; x++)
				pat_mib(out, &c[x], c[x].meminfo_bytes);
			pat_mib(out, &c[PAT_KAV], c[PAT_KAV].kernel_bytes);
			for (x = 0; x < NR_PAT; x++)
				pat_secs(out, &c[x], c[x].sum_secs);
			pat_ratio(out, c, c[PAT_KAV].sum_secs,
				  c[PAT_UTIL].sum_secs);
			for (x = 0; x < NR_PAT; x++)
				pat_secs(out, &c[x], c[x].wall_secs);
			pat_ratio(out, c, c[PAT_KAV].wall_secs,
				  c[PAT_UTIL].wall_secs);
			for (x = 0; x < NR_PAT; x++)
				pat_secs(out, &c[x], c[x].cpu_secs);
			pat_ratio(out, c, c[PAT_KAV].cpu_secs,
				  c[PAT_UTIL].cpu_secs);
			if (c[PAT_KAV].ran && !c[PAT_KAV].err)
				fprintf(out, " %lld | %lld | %llu | %llu | %llu |\n",
					(long long)c[PAT_KAV].kernel_avs,
					(long long)c[PAT_KAV].kernel_entries,
					(unsigned long long)c[PAT_KAV].mirrored,
					(unsigned long long)c[PAT_KAV].calls,
					(unsigned long long)c[PAT_KAV].found);
			else
				fprintf(out, " - | - | - | - | - |\n");
		}
	for (pi = 0; pi < bench_cfg.nr_pat_procs * nn; pi++)
		for (x = 0; x < NR_PAT; x++)
			if (cells[pi][x].skipped)
				fprintf(out, "\nSkipped: %s, P=%d, N=%llu: %s",
					pat_name[x],
					bench_cfg.pat_procs[pi / nn],
					(unsigned long long)
					bench_cfg.pat_sizes[pi % nn],
					cells[pi][x].stats);
	for (pi = nn * bench_cfg.nr_pat_procs - 1; pi >= 0; pi--) {
		c = cells[pi];
		if (c[PAT_KAV].ran && !c[PAT_KAV].err && c[PAT_KAV].stats[0]) {
			fprintf(out, "\nThe hook's stats line of rank 0, P=%d, "
				"N=%llu: \"%s\"\n",
				bench_cfg.pat_procs[pi / nn],
				(unsigned long long)bench_cfg.pat_sizes[pi % nn],
				c[PAT_KAV].stats);
			break;
		}
	}
}

/* The targets at the largest P, at the largest N both ran. */
static void pat_targets(struct pat_cell (*cells)[NR_PAT])
{
	int nn = bench_cfg.nr_pat_sizes, pi = bench_cfg.nr_pat_procs - 1, ni;
	char what[96], measured[96];
	struct pat_cell *c = NULL;
	double r;

	for (ni = nn - 1; ni >= 0; ni--) {
		c = cells[pi * nn + ni];
		if (c[PAT_KAV].ran && !c[PAT_KAV].err && c[PAT_UTIL].ran &&
		    !c[PAT_UTIL].err)
			break;
	}
	if (ni < 0)
		return;
	r = c[PAT_UTIL].node_bytes > 0 ?
	    c[PAT_KAV].node_bytes / c[PAT_UTIL].node_bytes : 0;
	snprintf(what, sizeof(what),
		 "Open MPI pattern, P=%d N=%llu: memory kav/util <= 1/32",
		 bench_cfg.pat_procs[pi],
		 (unsigned long long)bench_cfg.pat_sizes[ni]);
	snprintf(measured, sizeof(measured), "%.4f (1/%.1f)", r,
		 r > 0 ? 1 / r : 0);
	bench_target(what, measured, r > 0 && r <= 1.0 / 32);
	/* sockets' one shared AV for all P (the memory figure). */
	snprintf(what, sizeof(what),
		 "Open MPI pattern, P=%d N=%llu: memory kav/sockets <= 0.5",
		 bench_cfg.pat_procs[pi],
		 (unsigned long long)bench_cfg.pat_sizes[ni]);
	if (bench_sockets_bytes > 0 &&
	    bench_cfg.procs[bench_cfg.nr_procs - 1] == bench_cfg.pat_procs[pi] &&
	    bench_cfg.mem_entries == bench_cfg.pat_sizes[ni]) {
		r = c[PAT_KAV].node_bytes / bench_sockets_bytes;
		snprintf(measured, sizeof(measured),
			 "%.2f (sockets' shared AV: %.1f MiB)", r,
			 bench_sockets_bytes / MIB);
		bench_target(what, measured, r <= 0.5);
	} else {
		bench_target(what, "not measured: needs the memory figure at the same P and N",
			     false);
	}
	r = c[PAT_UTIL].sum_secs > 0 ?
	    c[PAT_KAV].sum_secs / c[PAT_UTIL].sum_secs : 0;
	snprintf(what, sizeof(what),
		 "Open MPI pattern, P=%d N=%llu: insert time kav/util <= 0.5",
		 bench_cfg.pat_procs[pi],
		 (unsigned long long)bench_cfg.pat_sizes[ni]);
	snprintf(measured, sizeof(measured), "sum %.2f, wall %.2f, CPU %.2f",
		 r, c[PAT_UTIL].wall_secs > 0 ?
		 c[PAT_KAV].wall_secs / c[PAT_UTIL].wall_secs : 0,
		 c[PAT_UTIL].cpu_secs > 0 ?
		 c[PAT_KAV].cpu_secs / c[PAT_UTIL].cpu_secs : 0);
	bench_target(what, measured, r > 0 && r <= 0.5);
}

int bench_pattern(FILE *out)
{
	int nn = bench_cfg.nr_pat_sizes, np = bench_cfg.nr_pat_procs;
	struct pat_cell (*cells)[NR_PAT] = calloc((size_t)(nn * np),
						  sizeof(*cells));
	int ni, pi, k, failed = 0;
	double t0 = bench_now();

	if (!cells)
		return -FI_ENOMEM;
	/* N outer, P inner: each cell's need is known from smaller ones. */
	for (ni = 0; ni < nn; ni++)
		for (pi = 0; pi < np; pi++)
			for (k = 0; k < NR_PAT; k++) {
				/* Each cell starts with another way. */
				enum pat_impl impl = (enum pat_impl)
					((ni + pi + k) % NR_PAT);
				struct pat_cell *c = &cells[pi * nn + ni][impl];
				double need = pat_need(cells, pi, ni, impl);
				double avail = meminfo("MemAvailable");

				/* Leave the guest 1 GiB of headroom. */
				if (need > 0 && need + 1024 * MIB > avail) {
					c->skipped = true;
					snprintf(c->stats, sizeof(c->stats),
						 "would need about %.1f GiB (scaled from the smaller cells), the guest has %.1f GiB available",
						 need / 1024 / MIB,
						 avail / 1024 / MIB);
					fprintf(stderr, "# pattern %s P=%d N=%llu skipped: %s\n",
						pat_name[impl],
						bench_cfg.pat_procs[pi],
						(unsigned long long)
						bench_cfg.pat_sizes[ni],
						c->stats);
					continue;
				}
				c->err = pat_run(impl, bench_cfg.pat_procs[pi],
						 bench_cfg.pat_sizes[ni], c);
				if (c->err) {
					fprintf(stderr, "kav_bench: pattern %s P=%d N=%llu: error %d\n",
						pat_name[impl],
						bench_cfg.pat_procs[pi],
						(unsigned long long)
						bench_cfg.pat_sizes[ni], c->err);
					failed = 1;
				}
				fprintf(stderr, "# pattern %s P=%d N=%llu: %.1f MiB, sum %.2f s, wall %.2f s, CPU %.2f s (%.0f s so far)\n",
					pat_name[impl], bench_cfg.pat_procs[pi],
					(unsigned long long)bench_cfg.pat_sizes[ni],
					c->node_bytes / MIB, c->sum_secs,
					c->wall_secs, c->cpu_secs,
					bench_now() - t0);
			}
	pat_report(out, cells);
	fprintf(out, "\nThe whole figure took %.0f s in the guest.\n",
		bench_now() - t0);
	pat_targets(cells);
	free(cells);
	return failed ? -FI_EOTHER : 0;
}
