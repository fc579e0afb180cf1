// SPDX-License-Identifier: GPL-2.0
/*
 * Memory: P processes that each need the same table of M IPv4 addresses.
 *
 *  - kav: rank 0 creates a named AV and inserts the M addresses; the other
 *    ranks open it with FI_READ. One copy, in kernel pages every rank maps.
 *  - udp (libfabric's util AV): every rank inserts the M addresses into
 *    its own AV, as ranks do today.
 *  - sockets: rank 0 creates the provider's named AV (POSIX shared
 *    memory) and inserts; the others open it with FI_READ.
 *
 * Then every rank reads every entry once with fi_av_lookup() (kav: through
 * the fi_addr array at attr.map_addr), so all of a table is resident for
 * all of them, and, while all P are alive, reports its Pss
 * (/proc/self/smaps_rollup) and, for kav, the Pss of its table mapping.
 *
 * Counted: kav = the table's kernel memory (kav's accounting, netlink
 * AV_GET) + the ranks' Pss outside the table mapping (the mapping's Pss is
 * those same kernel pages); udp and sockets = the ranks' Pss (sockets'
 * shared memory is in it, split among the ranks). Page tables are in
 * neither. Memory does not vary between runs: one sample per figure.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <rdma/fi_errno.h>
#include <kav/kav.h>

#include "bench.h"
#include "kav_nl_util.h"
#include "kav_proc_mem.h"

#define MEM_NAME	"/kav_bench_memory"
#define MIB		(1024.0 * 1024.0)

static const enum bench_impl mem_impls[] = { IMPL_KAV, IMPL_UDP,
					     IMPL_SOCKETS };
#define NR_MEM	3

struct mem_pipes {
	int ready[2];	/* rank -> parent: '1' set up, '0' failed */
	int go[2];	/* parent closes: measure */
	int reports[2];	/* rank -> parent: struct mem_report */
	int done[2];	/* parent closes: exit */
};

struct mem_report {
	int err;
	long pss_kb;		/* smaps_rollup Pss */
	long table_pss_kb;	/* kav: Pss of the table mapping */
};

static int mem_fill(struct fid_av *av, uint64_t m)
{
	char *addrs = bench_addrs(AF_INET, 0, m);
	int ret = fi_av_insert(av, addrs, m, NULL, 0, NULL);

	free(addrs);
	return ret == (int)m ? 0 : ret < 0 ? ret : -FI_EIO;
}

/* Read every entry once; 0 if all are what was inserted. */
static int mem_read_all(struct fid_av *av, const fi_addr_t *map, uint64_t m)
{
	struct sockaddr_in want, got;
	uint64_t i;
	size_t len;
	int ret;

	for (i = 0; i < m; i++) {
		len = sizeof(got);
		ret = fi_av_lookup(av, map ? map[i] : i, &got, &len);
		if (ret)
			return ret;
		if (i == 0 || i == m - 1) {
			bench_addr(AF_INET, i, &want);
			if (memcmp(&got, &want, sizeof(want)) != 0)
				return -FI_EOTHER;
		}
	}
	return 0;
}

static int mem_setup(enum bench_impl impl, int rank, uint64_t m,
		     struct bench_domain *d, struct fid_av **av, void **map)
{
	bool shared = impl != IMPL_UDP;
	int ret;

	ret = bench_domain_open(impl, AF_INET, d);
	if (ret)
		return ret;
	if (shared && rank > 0)
		return bench_av_open(d, m, MEM_NAME, FI_READ, av, map);
	ret = bench_av_open(d, m, shared ? MEM_NAME : NULL, 0, av, map);
	if (!ret)
		ret = mem_fill(*av, m);
	return ret;
}

static void __attribute__((noreturn))
mem_rank(enum bench_impl impl, int rank, uint64_t m, struct mem_pipes *p)
{
	struct mem_report r = { 0 };
	struct kav_vma_mem table;
	struct bench_domain d;
	struct fid_av *av = NULL;
	void *map = NULL;
	char c;

	close(p->ready[0]);
	close(p->go[1]);
	close(p->reports[0]);
	close(p->done[1]);
	r.err = mem_setup(impl, rank, m, &d, &av, &map);
	if (!r.err)
		r.err = mem_read_all(av, impl == IMPL_KAV ? map : NULL, m);
	c = r.err ? '0' : '1';
	if (write(p->ready[1], &c, 1) != 1)
		_exit(1);
	if (read(p->go[0], &c, 1) != 0)
		_exit(1);
	r.pss_kb = kav_proc_kb("/proc/self/smaps_rollup", "Pss");
	if (!r.err && impl == IMPL_KAV) {
		if (kav_smaps_vma(map, &table))
			r.err = -FI_EOTHER;
		r.table_pss_kb = table.pss;
	}
	if (write(p->reports[1], &r, sizeof(r)) != sizeof(r))
		_exit(1);
	while (read(p->done[0], &c, 1) > 0)
		;
	_exit(0);
}

/* The named AV's kernel memory, from kav's own accounting. */
static int kav_table_bytes(uint64_t *bytes)
{
	struct kav_nl_av_info ai = { .name = MEM_NAME };
	int ret = kav_nl_av_info(&ai);

	*bytes = ai.mem;
	return ret;
}

static int fork_rank(enum bench_impl impl, int rank, uint64_t m,
		     struct mem_pipes *p, pid_t *pid)
{
	fflush(NULL);
	*pid = fork();
	if (*pid < 0)
		return -FI_EOTHER;
	if (!*pid)
		mem_rank(impl, rank, m, p);
	return 0;
}

static int wait_ready(struct mem_pipes *p)
{
	char c;

	if (read(p->ready[0], &c, 1) != 1)
		return -FI_EOTHER;
	return c == '1' ? 0 : -FI_EOTHER;
}

/* One figure: P ranks of @impl; total bytes in *total, kernel part too. */
static int mem_sample(enum bench_impl impl, int procs, uint64_t m,
		      double *total, double *kernel)
{
	struct mem_pipes p;
	struct mem_report r;
	uint64_t table = 0;
	pid_t *pids = calloc((size_t)procs, sizeof(*pids));
	int i, started = 0, ret = 0;
	long pss = 0;

	if (!pids)
		return -FI_ENOMEM;
	if (pipe(p.ready) || pipe(p.go) || pipe(p.reports) || pipe(p.done)) {
		free(pids);
		return -FI_EOTHER;
	}
	/* Rank 0 creates what the others open: it goes first. */
	for (i = 0; i < procs && !ret; i++) {
		ret = fork_rank(impl, i, m, &p, &pids[i]);
		if (!ret)
			started++;
		if (!ret && i == 0)
			ret = wait_ready(&p);
	}
	for (i = 1; i < started && !ret; i++)
		ret = wait_ready(&p);
	if (!ret && impl == IMPL_KAV)
		ret = kav_table_bytes(&table);
	close(p.go[1]);
	close(p.ready[1]);
	close(p.reports[1]);
	for (i = 0; i < started && !ret; i++) {
		if (read(p.reports[0], &r, sizeof(r)) != sizeof(r) || r.err)
			ret = -FI_EOTHER;
		else
			pss += r.pss_kb - r.table_pss_kb;
	}
	close(p.done[1]);
	for (i = 0; i < started; i++)
		waitpid(pids[i], NULL, 0);
	close(p.ready[0]);
	close(p.go[0]);
	close(p.reports[0]);
	close(p.done[0]);
	free(pids);
	*kernel = (double)table;
	*total = (double)table + (double)pss * 1024.0;
	return ret;
}

double bench_sockets_bytes;

int bench_memory(FILE *out)
{
	struct bench_cell total[3][NR_MEM] = { 0 }, kernel[3] = { 0 };
	uint64_t m = bench_cfg.mem_entries;
	int pi, k, failed = 0;
	char measured[96];
	double t, kb;

	for (pi = 0; pi < bench_cfg.nr_procs; pi++) {
		for (k = 0; k < NR_MEM; k++) {
			int ret = mem_sample(mem_impls[k], bench_cfg.procs[pi],
					     m, &t, &kb);

			if (ret) {
				bench_cell_fail(&total[pi][k], ret, "memory");
				continue;
			}
			bench_cell_add(&total[pi][k], t);
			if (mem_impls[k] == IMPL_KAV)
				bench_cell_add(&kernel[pi], kb);
		}
		fprintf(stderr, "# memory P=%d done\n", bench_cfg.procs[pi]);
	}

	fprintf(out, "\n## Memory\n\n"
		"P processes that all need one table of %llu IPv4 addresses, every "
		"entry read once by every process. kav: one named AV (rank 0 creates, "
		"the rest open it with FI_READ); udp: a private util AV per process; "
		"sockets: the provider's named shared-memory AV. MiB: kav = kernel "
		"table (kav's accounting) + the processes' Pss outside the table "
		"mapping; udp, sockets = the processes' Pss. One sample (memory does "
		"not vary between runs); page tables are not counted for any.\n\n"
		"| P | kav MiB | of which kernel table | udp MiB | sockets MiB | kav/udp | kav/sockets |\n"
		"|---|---|---|---|---|---|---|\n",
		(unsigned long long)m);
	for (pi = 0; pi < bench_cfg.nr_procs; pi++) {
		double kav = bench_cell_median(&total[pi][0]);

		fprintf(out, "| %d |", bench_cfg.procs[pi]);
		bench_md_value(out, &total[pi][0], 1 / MIB, "%.1f");
		bench_md_value(out, &kernel[pi], 1 / MIB, "%.1f");
		for (k = 1; k < NR_MEM; k++)
			bench_md_value(out, &total[pi][k], 1 / MIB, "%.1f");
		for (k = 1; k < NR_MEM; k++)
			bench_md_ratio(out, kav, bench_cell_median(&total[pi][k]));
		fputc('\n', out);
		for (k = 0; k < NR_MEM; k++)
			failed |= total[pi][k].err;
	}
	pi = bench_cfg.nr_procs - 1;
	bench_sockets_bytes = bench_cell_median(&total[pi][2]);
	t = bench_cell_median(&total[pi][1]);
	t = t > 0 ? bench_cell_median(&total[pi][0]) / t : 0;
	snprintf(measured, sizeof(measured), "P=%d: %.4f (1/%.0f)",
		 bench_cfg.procs[pi], t, t > 0 ? 1 / t : 0);
	bench_target("memory, largest P: kav/private util AVs <= 1/32",
		     measured, t > 0 && t <= 1.0 / 32);
	return failed ? -FI_EOTHER : 0;
}
