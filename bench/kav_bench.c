// SPDX-License-Identifier: GPL-2.0
/*
 * kav_bench [--full] [--reps R] [--only FIGURE]
 *
 * kav's AV against libfabric 1.17's AVs (udp and tcp: the util AV;
 * sockets: its named shared-memory AV), run in one guest, interleaved.
 * Prints one TAP line per figure (not ok: a call failed or returned
 * something wrong, never a timing), then the markdown report between
 * @@KAV-BENCH-REPORT-BEGIN and @@KAV-BENCH-REPORT-END.
 *
 * Without --full it is the smoke run of make check: tiny sizes, one
 * repetition, so the harness keeps working; its numbers mean nothing.
 * --full is make bench (bench/run.sh): N = 1k, 64k, 1M, five
 * repetitions, memory for 1, 8 and 64 processes.
 *
 * Needs root in a guest with kav loaded: it grants BENCH_VNI to itself
 * and brings the loopback interface up for the peers' fi_getinfo().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <rdma/fi_errno.h>

#include "bench.h"
#include "kav_test_grants.h"

struct bench_config bench_cfg;
struct bench_domain bench_doms[2][NR_IMPLS];

/* One size of each figure: every code path once (make check's budget). */
static const struct bench_config smoke_cfg = {
	.smoke = true,
	.reps = 1,
	.sizes = { 128 },
	.nr_sizes = 1,
	.mem_entries = 1024,
	.procs = { 1, 2 },
	.nr_procs = 2,
	.lookups = 1000,
	.pat_procs = { 1, 3 },
	.nr_pat_procs = 2,
	.pat_sizes = { 64 },
	.nr_pat_sizes = 1,
};

static const struct bench_config full_cfg = {
	.reps = 5,
	.sizes = { 1024, 65536, 1048576 },
	.nr_sizes = 3,
	.mem_entries = 1048576,
	.procs = { 1, 8, 64 },
	.nr_procs = 3,
	.lookups = 1 << 20,
	.pat_procs = { 1, 8, 32, 64 },
	.nr_pat_procs = 4,
	.pat_sizes = { 1024, 16384, 131072, 1048576 },
	.nr_pat_sizes = 4,
};

static const struct {
	const char *name;
	int (*run)(FILE *out);
} figures[] = {
	{ "insert", bench_insert },
	{ "lookup", bench_lookup_churn },
	{ "join", bench_join },
	{ "memory", bench_memory },
	{ "pattern", bench_pattern },
};

#define NR_FIGURES ((int)(sizeof(figures) / sizeof(figures[0])))

/* The peers' fi_getinfo() lists interfaces that are up; a fresh guest's
 * loopback is not. */
static int loopback_up(void)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		ret = -errno;
	else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			ret = -errno;
	}
	close(fd);
	return ret;
}

static int open_domains(void)
{
	int fam, impl, ret;

	for (fam = 0; fam < 2; fam++)
		for (impl = 0; impl < NR_IMPLS; impl++) {
			ret = bench_domain_open((enum bench_impl)impl,
						fam ? AF_INET6 : AF_INET,
						&bench_doms[fam][impl]);
			if (ret)
				return ret;
		}
	return 0;
}

static void close_domains(void)
{
	int fam, impl;

	for (fam = 0; fam < 2; fam++)
		for (impl = 0; impl < NR_IMPLS; impl++)
			bench_domain_close(&bench_doms[fam][impl]);
}

static void report_header(FILE *out)
{
	struct utsname u;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	uname(&u);
	fprintf(out, "Kernel %s, %ld CPUs, libfabric %u.%u (udp, tcp: util AV; "
		"sockets: its own AV), %s run, %d repetitions, medians.\n\n"
		"Timings come from a QEMU TCG guest: they are not hardware "
		"timings, and only the kav/peer ratios, measured side by side in "
		"the same guest, count.\n",
		u.release, cpus, FI_MAJOR(fi_version()), FI_MINOR(fi_version()),
		bench_cfg.smoke ? "smoke (sizes too small to mean anything)" :
				  "full",
		bench_cfg.reps);
}

static int usage(void)
{
	fprintf(stderr, "usage: kav_bench [--full] [--reps R] [--only insert|lookup|join|memory|pattern]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct kav_test_grants grants = { 0 };
	const char *only = NULL;
	char *report = NULL;
	size_t report_len = 0;
	int i, ret, failed = 0, n = 0;
	FILE *out;

	if (argc > 1 && !strcmp(argv[1], "--join-child"))
		return bench_join_child(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "--pattern-child"))
		return bench_pattern_child(argc, argv);
	bench_cfg = smoke_cfg;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--full")) {
			bench_cfg = full_cfg;
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			bench_cfg.reps = atoi(argv[++i]);
			if (bench_cfg.reps < 1 || bench_cfg.reps > BENCH_MAX_REPS)
				return usage();
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else {
			return usage();
		}
	}
	bench_cfg.self = "/proc/self/exe";
	setvbuf(stdout, NULL, _IOLBF, 0);

	ret = loopback_up();
	if (ret)
		fprintf(stderr, "kav_bench: lo up: %s\n", strerror(-ret));
	ret = kav_test_grant(&grants, BENCH_VNI, 1);
	if (ret) {
		printf("Bail out! grant of vni %d failed (%d): kav loaded, root?\n",
		       BENCH_VNI, ret);
		return 1;
	}
	ret = open_domains();
	if (ret) {
		printf("Bail out! a domain did not open: %s\n", fi_strerror(-ret));
		close_domains();
		kav_test_revoke_all(&grants);
		return 1;
	}
	out = open_memstream(&report, &report_len);
	if (!out)
		return 1;
	report_header(out);

	for (i = 0; i < NR_FIGURES; i++)
		n += !only || strcmp(only, figures[i].name) == 0;
	printf("1..%d\n", n);
	for (i = 0, n = 0; i < NR_FIGURES; i++) {
		if (only && strcmp(only, figures[i].name) != 0)
			continue;
		ret = figures[i].run(out);
		fflush(out);
		failed |= ret;
		printf("%sok %d - %s\n", ret ? "not " : "", ++n,
		       figures[i].name);
	}
	bench_targets_print(out);
	fclose(out);
	printf("@@KAV-BENCH-REPORT-BEGIN\n%s@@KAV-BENCH-REPORT-END\n", report);
	free(report);
	close_domains();
	kav_test_revoke_all(&grants);
	return failed ? 1 : 0;
}
