// SPDX-License-Identifier: GPL-2.0
/*
 * Join cost: what a new process (a rank starting in a running job) pays to
 * open an existing named AV with FI_READ and read its first entry, as the
 * AV grows. Only AVs with names can be joined: kav's and the sockets
 * provider's (POSIX shared memory); the util AV has no named form.
 *
 * The creator (this process) fills the AV; each sample is a new process
 * (fork + exec of kav_bench --join-child, so nothing is inherited) that
 * opens its domain, then times fi_av_open(FI_READ, count N) and
 * fi_av_lookup() of the first entry, and counts the page faults they took.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <rdma/fi_errno.h>

#include "bench.h"

#define JOIN_NAME	"/kav_bench_join"

static const enum bench_impl join_impls[] = { IMPL_KAV, IMPL_SOCKETS };
#define NR_JOIN	2

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* kav_bench --join-child IMPL NAME N: print "<ns> <faults>". */
int bench_join_child(int argc, char **argv)
{
	struct sockaddr_in want, got;
	struct bench_domain d;
	size_t len = sizeof(got);
	enum bench_impl impl;
	struct fid_av *av;
	fi_addr_t first;
	double t0, t1;
	long f0, f1;
	void *map;
	uint64_t n;
	int ret;

	if (argc != 5)
		return 2;
	impl = strcmp(argv[2], "kav") ? IMPL_SOCKETS : IMPL_KAV;
	n = strtoull(argv[4], NULL, 0);
	if (bench_domain_open(impl, AF_INET, &d))
		return 1;

	f0 = minflt();
	t0 = bench_now();
	ret = bench_av_open(&d, n, argv[3], FI_READ, &av, &map);
	if (!ret) {
		/* kav: the fi_addr array in the mapping (MPI instant-on). */
		first = impl == IMPL_KAV ? ((const fi_addr_t *)map)[0] : 0;
		ret = fi_av_lookup(av, first, &got, &len);
	}
	t1 = bench_now();
	f1 = minflt();
	if (ret) {
		fprintf(stderr, "kav_bench: join %s N=%s: %s\n", argv[2],
			argv[4], fi_strerror(-ret));
		return 1;
	}
	bench_addr(AF_INET, 0, &want);
	if (len != sizeof(want) || memcmp(&got, &want, sizeof(want)) != 0) {
		fprintf(stderr, "kav_bench: join %s: wrong first entry\n",
			argv[2]);
		return 1;
	}
	printf("%.0f %ld\n", (t1 - t0) * 1e9, f1 - f0);
	/*
	 * Exit without fi_close(): the sockets provider unlinks the shared
	 * memory of a named AV when any process closes it, FI_READ or not,
	 * so the next joiner would find no AV (libfabric 1.17).
	 */
	return 0;
}

/* One sample: run a child, read its line. */
static int join_sample(enum bench_impl impl, uint64_t n, double *ns,
		       long *faults)
{
	char nbuf[32], line[128];
	int pipefd[2], status;
	ssize_t len;
	pid_t pid;

	snprintf(nbuf, sizeof(nbuf), "%llu", (unsigned long long)n);
	if (pipe(pipefd))
		return -FI_EOTHER;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -FI_EOTHER;
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execl(bench_cfg.self, "kav_bench", "--join-child",
		      bench_impl_name[impl], JOIN_NAME, nbuf, (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	len = read(pipefd[0], line, sizeof(line) - 1);
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || len <= 0)
		return -FI_EOTHER;
	line[len] = '\0';
	return sscanf(line, "%lf %ld", ns, faults) == 2 ? 0 : -FI_EOTHER;
}

/* The creator's named AV of @n entries. */
static int join_create(enum bench_impl impl, uint64_t n, struct fid_av **av)
{
	char *addrs = bench_addrs(AF_INET, 0, n);
	int ret;

	ret = bench_av_open(bench_dom(impl, AF_INET), n, JOIN_NAME, 0, av,
			    NULL);
	if (!ret) {
		ret = fi_av_insert(*av, addrs, n, NULL, 0, NULL);
		ret = ret == (int)n ? 0 : ret < 0 ? ret : -FI_EIO;
		if (ret)
			fi_close(&(*av)->fid);
	}
	free(addrs);
	return ret;
}

int bench_join(FILE *out)
{
	struct bench_cell ns[3][NR_JOIN] = { 0 }, faults[3][NR_JOIN] = { 0 };
	int si, rep, k, failed = 0;
	char measured[96];

	for (si = 0; si < bench_cfg.nr_sizes; si++) {
		uint64_t n = bench_cfg.sizes[si];
		struct fid_av *av[NR_JOIN] = { 0 };
		double v;
		long f;
		int ret;

		for (k = 0; k < NR_JOIN; k++) {
			ret = join_create(join_impls[k], n, &av[k]);
			if (ret) {
				bench_cell_fail(&ns[si][k], ret, "join: create");
				av[k] = NULL;
			}
		}
		for (rep = 0; rep < bench_cfg.reps; rep++)
			for (k = 0; k < NR_JOIN; k++) {
				int j = (rep + k) % NR_JOIN;

				if (!av[j])
					continue;
				ret = join_sample(join_impls[j], n, &v, &f);
				if (ret) {
					bench_cell_fail(&ns[si][j], ret,
							"join: child");
					continue;
				}
				bench_cell_add(&ns[si][j], v);
				bench_cell_add(&faults[si][j], (double)f);
			}
		for (k = 0; k < NR_JOIN; k++)
			if (av[k])
				fi_close(&av[k]->fid);
		fprintf(stderr, "# join N=%llu done\n", (unsigned long long)n);
	}

	fprintf(out, "\n## Join\n\n"
		"A new process (fork + exec) opens an existing named AV of N IPv4 "
		"entries with FI_READ and count N, and reads its first entry "
		"(kav: through the fi_addr array at attr.map_addr, then fi_av_lookup; "
		"sockets: fi_av_lookup of fi_addr 0). Microseconds and minor page "
		"faults for these two calls, median of %d; the util AV (udp, tcp) has "
		"no named AVs to join.\n\n"
		"| N | kav us | sockets us | kav/sockets | kav faults | sockets faults |\n"
		"|---|---|---|---|---|---|\n", bench_cfg.reps);
	for (si = 0; si < bench_cfg.nr_sizes; si++) {
		fprintf(out, "| %llu |", (unsigned long long)bench_cfg.sizes[si]);
		for (k = 0; k < NR_JOIN; k++) {
			bench_md_value(out, &ns[si][k], 1e-3, "%.1f");
			failed |= ns[si][k].err;
		}
		bench_md_ratio(out, bench_cell_median(&ns[si][0]),
			       bench_cell_median(&ns[si][1]));
		for (k = 0; k < NR_JOIN; k++)
			bench_md_value(out, &faults[si][k], 1, "%.0f");
		fputc('\n', out);
	}
	for (k = 0; k < NR_JOIN; k++) {
		int last = bench_cfg.nr_sizes - 1;
		double lo = bench_cell_median(&ns[0][k]);
		double hi = bench_cell_median(&ns[last][k]);
		double r = lo > 0 ? hi / lo : 0;

		fprintf(out, "\n%s: join at N=%llu / join at N=%llu = %.2f",
			bench_impl_name[join_impls[k]],
			(unsigned long long)bench_cfg.sizes[last],
			(unsigned long long)bench_cfg.sizes[0], r);
		if (join_impls[k] != IMPL_KAV)
			continue;
		snprintf(measured, sizeof(measured),
			 "N=%llu / N=%llu: %.2f",
			 (unsigned long long)bench_cfg.sizes[last],
			 (unsigned long long)bench_cfg.sizes[0], r);
		bench_target("join: flat in N (largest / smallest N <= 1.25)",
			     measured, r > 0 && r <= 1.25);
	}
	fputc('\n', out);
	return failed ? -FI_EOTHER : 0;
}
