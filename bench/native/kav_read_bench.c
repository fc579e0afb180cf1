// SPDX-License-Identifier: GPL-2.0
/*
 * kav_read_bench [--smoke] [--reps R] [--no-instr] [--out FILE]
 *
 * The read path natively (native.h): for N = 1 Ki, 64 Ki and 1 Mi, IPv4
 * and IPv6, random and dependent access, nanoseconds per read (median of
 * R samples, clock_gettime) and instructions per read (callgrind) of
 * kav's fi_av_lookup(), kav_av_resolve(), the inline kav_view_resolve()
 * and a bare read of the mapped table, against the fi_av_lookup() of
 * libfabric 1.17's udp, tcp and sockets AVs in the same process; and the
 * allocations of a single-address fi_av_insert(). Prints a markdown
 * report (or writes it to FILE). The targets of issue 27 are shown, never
 * judged: the exit status is 1 only when a read returns a wrong address
 * or a call fails.
 *
 * --smoke (make check): N = 1 Ki only, one short sample, no callgrind: a
 * few seconds that keep the harness and the reads' results right.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <rdma/fi_errno.h>
#include <kav/kav_view.h>

#include "fake_kav.h"
#include "native.h"

/* bench/util.c and bench/domains.c are kav_bench's; so are these. */
struct bench_config bench_cfg;
struct bench_domain bench_doms[2][NR_IMPLS];

#define RB_MAX_CASES	6

struct rb_config {
	bool smoke, instr, instr_child;
	int reps;
	uint64_t sizes[3];
	int nr_sizes;
	uint64_t m_time;	/* reads per timed sample */
	uint64_t m_warm;	/* untimed reads before each sample */
	uint64_t m_instr;	/* reads per callgrind region */
	const char *out;
};

static struct rb_config cfg = {
	.instr = true,
	.reps = 5,
	.sizes = { 1024, 65536, 1048576 },
	.nr_sizes = 3,
	.m_time = 1 << 20,
	.m_warm = 1 << 14,
	.m_instr = 1 << 16,
};

static const int families[2] = { AF_INET, AF_INET6 };

/* Results: [case][access][method]. */
static struct bench_cell ns[RB_MAX_CASES][NR_RB_ACCESS][NR_RB_METHODS];
static double ipr[RB_MAX_CASES][NR_RB_ACCESS][NR_RB_METHODS];
static double insert_mallocs[NR_IMPLS];
static int failures;

static int nr_cases(void)
{
	return cfg.nr_sizes * 2;
}

static void case_of(int ci, struct rb_case *c)
{
	memset(c, 0, sizeof(*c));
	c->n = cfg.sizes[ci / 2];
	c->family = families[ci % 2];
	/* bench_addr(): 10.0.0.0 + i, or fd00::i in the last 4 bytes. */
	c->off = c->family == AF_INET6 ?
		 offsetof(struct sockaddr_in6, sin6_addr) + 12 :
		 offsetof(struct sockaddr_in, sin_addr);
	c->base = c->family == AF_INET6 ? 0 : 0x0a000000u;
}

static void fail(const char *what, const struct rb_case *c, int err)
{
	fprintf(stderr, "kav_read_bench: %s (N=%llu %s): %d\n", what,
		(unsigned long long)c->n, bench_family_name(c->family), err);
	failures++;
}

/* One random cycle through 0..n-1 (Sattolo), and random indices. */
static int make_indices(struct rb_case *c)
{
	uint64_t seed = 0x6b6176 + c->n, i, j;
	uint32_t t;

	c->next = malloc(c->n * sizeof(*c->next));
	c->ridx = malloc(RB_RIDX * sizeof(*c->ridx));
	if (!c->next || !c->ridx)
		return -FI_ENOMEM;
	for (i = 0; i < c->n; i++)
		c->next[i] = (uint32_t)i;
	for (i = c->n - 1; i > 0; i--) {
		j = bench_rand(&seed) % i;
		t = c->next[i];
		c->next[i] = c->next[j];
		c->next[j] = t;
	}
	for (i = 0; i < RB_RIDX; i++)
		c->ridx[i] = (uint32_t)(bench_rand(&seed) % c->n);
	return 0;
}

/*
 * Fill one AV: index i holds the address of next[i]. Usable when every
 * fi_addr is its index (then all the loops can use the index as is) and
 * every entry reads back right; the read also maps every page once.
 */
static int fill_one(struct rb_case *c, enum bench_impl impl,
		    const char *addrs)
{
	struct bench_domain *d = bench_dom(impl, c->family);
	fi_addr_t *fa = calloc(c->n, sizeof(*fa));
	struct sockaddr_in6 buf;
	uint32_t off = c->off, base = c->base, v;
	size_t len;
	uint64_t i;
	int ret;

	if (!fa)
		return -FI_ENOMEM;
	ret = bench_av_open(d, c->n, NULL, 0, &c->av[impl], NULL);
	if (!ret)
		ret = fi_av_insert(c->av[impl], addrs, c->n, fa, 0, NULL) ==
		      (int)c->n ? 0 : -FI_EIO;
	for (i = 0; !ret && i < c->n; i++) {
		len = sizeof(buf);
		if (fa[i] != i)
			ret = -FI_EOTHER;
		else
			ret = fi_av_lookup(c->av[impl], i, &buf, &len);
		memcpy(&v, (char *)&buf + off, sizeof(v));
		if (!ret && ntohl(v) - base != c->next[i])
			ret = -FI_EOTHER;
	}
	free(fa);
	c->usable[impl] = !ret;
	return ret;
}

static int fill(struct rb_case *c)
{
	size_t size = bench_addr_size(c->family);
	char *addrs;
	uint64_t i;
	int k, ret;

	ret = make_indices(c);
	if (ret)
		return ret;
	addrs = malloc(c->n * size);
	if (!addrs)
		return -FI_ENOMEM;
	for (i = 0; i < c->n; i++)
		bench_addr(c->family, c->next[i], addrs + i * size);
	for (k = 0; k < NR_IMPLS; k++) {
		if (!bench_dom((enum bench_impl)k, c->family)->domain)
			continue;
		ret = fill_one(c, (enum bench_impl)k, addrs);
		if (ret)
			fail(bench_impl_name[k], c, ret);
	}
	free(addrs);
	if (!c->usable[IMPL_KAV])
		return -FI_EOTHER;
	return kav_view_init(c->av[IMPL_KAV], &c->view);
}

static void unfill(struct rb_case *c)
{
	int k;

	for (k = 0; k < NR_IMPLS; k++)
		if (c->av[k])
			fi_close(&c->av[k]->fid);
	free(c->next);
	free(c->ridx);
	memset(c, 0, sizeof(*c));
}

static bool method_usable(const struct rb_case *c, enum rb_method meth)
{
	return c->usable[rb_method_impl(meth)];
}

/* R samples of every method, interleaved, each rep starting elsewhere. */
static void time_case(int ci, struct rb_case *c)
{
	uint64_t want[NR_RB_ACCESS], got;
	struct timespec t0, t1;
	int acc, rep, k, meth;

	for (acc = 0; acc < NR_RB_ACCESS; acc++)
		want[acc] = rb_expect(c, (enum rb_access)acc, cfg.m_time);
	for (acc = 0; acc < NR_RB_ACCESS; acc++)
		for (rep = 0; rep < cfg.reps; rep++)
			for (k = 0; k < NR_RB_METHODS; k++) {
				meth = (rep + k) % NR_RB_METHODS;
				if (!method_usable(c, meth))
					continue;
				rb_run(c, meth, acc, cfg.m_warm);
				clock_gettime(CLOCK_MONOTONIC, &t0);
				got = rb_run(c, meth, acc, cfg.m_time);
				clock_gettime(CLOCK_MONOTONIC, &t1);
				if (got != want[acc]) {
					bench_cell_fail(&ns[ci][acc][meth],
							-FI_EOTHER,
							rb_method_name[meth]);
					fail("wrong reads", c, meth);
					continue;
				}
				bench_cell_add(&ns[ci][acc][meth],
					       ((double)(t1.tv_sec - t0.tv_sec) *
						1e9 +
						(double)(t1.tv_nsec - t0.tv_nsec)) /
					       (double)cfg.m_time);
			}
}

/* The callgrind child: the same cases, one counted region per figure. */
static void instr_case(int ci, struct rb_case *c)
{
	int acc, meth;

	rb_instr_switch(true);
	for (acc = 0; acc < NR_RB_ACCESS; acc++)
		for (meth = 0; meth < NR_RB_METHODS; meth++)
			if (method_usable(c, meth))
				rb_instr_region(ci, acc, meth, c, cfg.m_instr);
	rb_instr_switch(false);
}

static int open_domains(void)
{
	int f, k, ret;

	for (f = 0; f < 2; f++)
		for (k = 0; k < NR_IMPLS; k++) {
			ret = bench_domain_open((enum bench_impl)k,
						families[f],
						&bench_doms[f][k]);
			/* A peer that is missing here is a "-" in the report. */
			if (ret && k == IMPL_KAV)
				return ret;
		}
	return 0;
}

static void close_domains(void)
{
	int f, k;

	for (f = 0; f < 2; f++)
		for (k = 0; k < NR_IMPLS; k++)
			bench_domain_close(&bench_doms[f][k]);
}

/* ------------------------------------------------------------ report */

/* The faster util AV (udp or tcp: the same code) of a row. */
static double util_ns(const struct bench_cell *row)
{
	double u = bench_cell_median(&row[RB_UDP]);
	double t = bench_cell_median(&row[RB_TCP]);

	return u > 0 && (t <= 0 || u < t) ? u : t;
}

static void md_num(FILE *out, double v, const char *fmt)
{
	if (v > 0) {
		fputc(' ', out);
		fprintf(out, fmt, v);
		fputs(" |", out);
	} else {
		fputs(" - |", out);
	}
}

static void report_ns(FILE *out)
{
	int ci, acc, k;
	struct rb_case c;

	fprintf(out, "### Nanoseconds per read\n\n"
		"Median of %d samples of %llu reads. util = the faster of udp "
		"and tcp (both libfabric's util AV); ratios are kav / peer, "
		"lower is better.\n\n"
		"| N | addr | access |", cfg.reps,
		(unsigned long long)cfg.m_time);
	for (k = 0; k < NR_RB_METHODS; k++)
		fprintf(out, " %s |", rb_method_name[k]);
	fprintf(out, " lookup/util | resolve/util | view/util | lookup/sockets |\n|---|---|---|");
	for (k = 0; k < NR_RB_METHODS + 4; k++)
		fprintf(out, "---|");
	fputc('\n', out);
	for (ci = 0; ci < nr_cases(); ci++) {
		case_of(ci, &c);
		for (acc = 0; acc < NR_RB_ACCESS; acc++) {
			struct bench_cell *row = ns[ci][acc];
			double util = util_ns(row);

			fprintf(out, "| %llu | %s | %s |",
				(unsigned long long)c.n,
				bench_family_name(c.family),
				rb_access_name[acc]);
			for (k = 0; k < NR_RB_METHODS; k++)
				bench_md_value(out, &row[k], 1, "%.1f");
			bench_md_ratio(out, bench_cell_median(&row[RB_LOOKUP]),
				       util);
			bench_md_ratio(out, bench_cell_median(&row[RB_RESOLVE]),
				       util);
			bench_md_ratio(out, bench_cell_median(&row[RB_VIEW]),
				       util);
			bench_md_ratio(out, bench_cell_median(&row[RB_LOOKUP]),
				       bench_cell_median(&row[RB_SOCKETS]));
			fputc('\n', out);
		}
	}
}

static void report_instr(FILE *out)
{
	int ci, acc, k;
	struct rb_case c;

	fprintf(out, "\n### Instructions per read\n\n"
		"callgrind (valgrind --tool=callgrind), %llu reads per figure, "
		"the loop's own instructions included (floor: the loop "
		"around a bare load).\n\n| N | addr | access |",
		(unsigned long long)cfg.m_instr);
	for (k = 0; k < NR_RB_METHODS; k++)
		fprintf(out, " %s |", rb_method_name[k]);
	fprintf(out, "\n|---|---|---|");
	for (k = 0; k < NR_RB_METHODS; k++)
		fprintf(out, "---|");
	fputc('\n', out);
	for (ci = 0; ci < nr_cases(); ci++) {
		case_of(ci, &c);
		for (acc = 0; acc < NR_RB_ACCESS; acc++) {
			fprintf(out, "| %llu | %s | %s |",
				(unsigned long long)c.n,
				bench_family_name(c.family),
				rb_access_name[acc]);
			for (k = 0; k < NR_RB_METHODS; k++)
				md_num(out, ipr[ci][acc][k], "%.1f");
			fputc('\n', out);
		}
	}
}

static void report_mallocs(FILE *out)
{
	int k;

	fprintf(out, "\n### Allocations per single-address fi_av_insert\n\n"
		"Calls of malloc, calloc, realloc and the aligned "
		"allocators from libkav, libfabric and the benchmark (not "
		"the fake kernel's, not libc's own inside e.g. strdup), per "
		"fi_av_insert() of one IPv4 address, over 4096 inserts after "
		"64 untimed ones.\n\n|");
	for (k = 0; k < NR_IMPLS; k++)
		fprintf(out, " %s |", bench_impl_name[k]);
	fprintf(out, "\n|");
	for (k = 0; k < NR_IMPLS; k++)
		fprintf(out, "---|");
	fprintf(out, "\n|");
	for (k = 0; k < NR_IMPLS; k++) {
		if (insert_mallocs[k] < 0)
			fprintf(out, " - |");
		else
			fprintf(out, " %.2f |", insert_mallocs[k]);
	}
	fputc('\n', out);
}

/*
 * The worst (largest) kav/util ratio of @meth over the cases of size
 * @n (0: all), both families and both accesses; -1 if none.
 */
static double worst_ratio(enum rb_method meth, uint64_t n, char *where,
			  size_t len)
{
	double worst = -1, r, util;
	struct rb_case c;
	int ci, acc;

	for (ci = 0; ci < nr_cases(); ci++) {
		case_of(ci, &c);
		if (n && c.n != n)
			continue;
		for (acc = 0; acc < NR_RB_ACCESS; acc++) {
			util = util_ns(ns[ci][acc]);
			r = bench_cell_median(&ns[ci][acc][meth]);
			if (r <= 0 || util <= 0)
				continue;
			r /= util;
			if (r > worst) {
				worst = r;
				snprintf(where, len, "%s %s", bench_family_name(c.family),
					 rb_access_name[acc]);
			}
		}
	}
	return worst;
}

/*
 * The worst (largest) ratio of @meth's instructions to the util AV's
 * fi_av_lookup (the fewer of udp and tcp) in the same row; -1 if none.
 */
static double worst_instr_ratio(enum rb_method meth, char *where, size_t len)
{
	double worst = -1, util, r;
	struct rb_case c;
	int ci, acc;

	for (ci = 0; ci < nr_cases(); ci++) {
		case_of(ci, &c);
		for (acc = 0; acc < NR_RB_ACCESS; acc++) {
			util = ipr[ci][acc][RB_UDP];
			if (ipr[ci][acc][RB_TCP] > 0 &&
			    (util <= 0 || ipr[ci][acc][RB_TCP] < util))
				util = ipr[ci][acc][RB_TCP];
			if (util <= 0 || ipr[ci][acc][meth] <= 0)
				continue;
			r = ipr[ci][acc][meth] / util;
			if (r > worst) {
				worst = r;
				snprintf(where, len, "%s %s",
					 bench_family_name(c.family),
					 rb_access_name[acc]);
			}
		}
	}
	return worst;
}

static void target_row(FILE *out, const char *what, double v, double limit,
		       const char *unit, const char *where)
{
	if (v < 0) {
		fprintf(out, "| %s | - | - |\n", what);
		return;
	}
	fprintf(out, "| %s | %.2f%s%s%s%s | %s |\n", what, v, unit,
		where[0] ? " (worst: " : "", where, where[0] ? ")" : "",
		v <= limit ? "yes" : "**no**");
}

static void report_targets(FILE *out)
{
	static const struct {
		const char *what;
		enum rb_method meth;
		uint64_t n;
		double limit;
	} ratios[] = {
		{ "fi_av_lookup <= 0.8x util AV, N = 1 Ki", RB_LOOKUP, 1024, 0.8 },
		{ "fi_av_lookup <= 0.8x util AV, N = 64 Ki", RB_LOOKUP, 65536, 0.8 },
		{ "fi_av_lookup <= 0.8x util AV, N = 1 Mi", RB_LOOKUP, 1048576, 0.8 },
		{ "kav_view_resolve <= 0.5x util AV fi_av_lookup, every N", RB_VIEW, 0, 0.5 },
		{ "kav_av_resolve <= 0.9x util AV fi_av_lookup, every N", RB_RESOLVE, 0, 0.9 },
	};
	/* What the kernel keeps per IPv4 entry: the entry and its fi_addr. */
	double ipv4_bytes = fake_entry_size(sizeof(struct sockaddr_in)) +
			    sizeof(uint64_t);
	char where[64];
	double v;
	size_t i;

	fprintf(out, "\n### Targets (issue 27), shown, not judged\n\n"
		"Time ratios: the worst row (IPv4 or IPv6, random or "
		"dependent) of the size. Instructions: the worst row's ratio "
		"to the util AV's fi_av_lookup in the same row.\n\n"
		"| target | measured | met |\n|---|---|---|\n");
	for (i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
		where[0] = '\0';
		v = worst_ratio(ratios[i].meth, ratios[i].n, where,
				sizeof(where));
		target_row(out, ratios[i].what, v, ratios[i].limit, "x", where);
	}
	where[0] = '\0';
	v = worst_instr_ratio(RB_LOOKUP, where, sizeof(where));
	target_row(out, "fi_av_lookup instructions <= util AV's, loop included",
		   v, 1.0, "x", where);
	target_row(out, "kernel memory per IPv4 entry <= 40 bytes", ipv4_bytes,
		   40, " B", "");
	fprintf(out, "| single-address fi_av_insert: no malloc (issue 18) |");
	if (insert_mallocs[IMPL_KAV] < 0)
		fprintf(out, " - | - |\n");
	else
		fprintf(out, " %.2f per insert | %s |\n",
			insert_mallocs[IMPL_KAV],
			insert_mallocs[IMPL_KAV] == 0 ? "yes" : "**no**");
}

static void report(FILE *out)
{
	struct utsname u;
	char cpu[128] = "unknown CPU", line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");
	uint32_t v = fi_version();

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "model name : %127[^\n]", cpu) == 1)
			break;
	if (f)
		fclose(f);
	uname(&u);
	fprintf(out, "## Native read path (host)\n\n"
		"Measured natively on %s (%ld CPUs, Linux %s), not under "
		"TCG: libkav.so.0 as shipped (no test seams) reading tables "
		"in kav.ko's exact layout, made by the fake kernel "
		"(tests/doubles/kernel/fake_table.c; kav_layout_test checks them "
		"against the module byte for byte), beside libfabric %u.%u's "
		"udp, tcp and sockets AVs in the same process. Every AV "
		"holds N entries of one random cycle; random: independent "
		"random indices; dependent: each read's address names the "
		"next index. floor: the 4 bytes read straight from the "
		"mapped entry, no check at all.%s\n\n",
		cpu, sysconf(_SC_NPROCESSORS_ONLN), u.release,
		FI_MAJOR(v), FI_MINOR(v),
		cfg.smoke ? " **Smoke run: tiny samples, the numbers mean "
			    "nothing.**" : "");
	report_ns(out);
	if (cfg.instr)
		report_instr(out);
	report_mallocs(out);
	report_targets(out);
}

/* ------------------------------------------------------------ main */

static void usage(void)
{
	fprintf(stderr, "usage: kav_read_bench [--smoke] [--reps R] [--no-instr] [--out FILE]\n");
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--smoke")) {
			cfg.smoke = true;
			cfg.instr = false;
			cfg.reps = 1;
			cfg.nr_sizes = 1;
			cfg.m_time = 1 << 14;
			cfg.m_warm = 1 << 10;
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			cfg.reps = atoi(argv[++i]);
			if (cfg.reps < 1 || cfg.reps > BENCH_MAX_REPS)
				usage();
		} else if (!strcmp(argv[i], "--no-instr")) {
			cfg.instr = false;
		} else if (!strcmp(argv[i], "--instr-child")) {
			cfg.instr_child = true;
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			cfg.out = argv[++i];
		} else {
			usage();
		}
	}
}

int main(int argc, char **argv)
{
	static char *const child_args[] = { "--instr-child", NULL };
	char self[PATH_MAX];
	struct rb_case c;
	FILE *out = stdout;
	ssize_t len;
	int ci, ret;

	parse_args(argc, argv);
	for (ci = 0; ci < RB_MAX_CASES * NR_RB_ACCESS * NR_RB_METHODS; ci++)
		(&ipr[0][0][0])[ci] = -1;	/* not counted */
	/* libkav's ioctls go to the fake kernel (tests/doubles/kernel/fake_ioctl.c). */
	fake_ioctl_install();
	fake_ioctl_enter = rb_malloc_pause;
	ret = open_domains();
	if (ret)
		return 1;
	for (ci = 0; ci < nr_cases(); ci++) {
		case_of(ci, &c);
		ret = fill(&c);
		if (ret) {
			fail("fill", &c, ret);
			unfill(&c);
			continue;
		}
		if (cfg.instr_child)
			instr_case(ci, &c);
		else
			time_case(ci, &c);
		if (!cfg.instr_child)
			fprintf(stderr, "# N=%llu %s timed\n",
				(unsigned long long)c.n,
				bench_family_name(c.family));
		unfill(&c);
	}
	if (cfg.instr_child) {
		close_domains();
		return failures ? 1 : 0;
	}
	rb_insert_mallocs(insert_mallocs);
	close_domains();
	if (cfg.instr) {
		fprintf(stderr, "# counting instructions under callgrind\n");
		/* valgrind's own /proc/self/exe would be valgrind. */
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[len > 0 ? len : 0] = '\0';
		ret = rb_instr_collect(self, child_args, nr_cases(),
				       cfg.m_instr, ipr);
		if (ret) {
			fprintf(stderr, "kav_read_bench: callgrind: %d\n", ret);
			failures++;
		}
	}
	if (cfg.out) {
		out = fopen(cfg.out, "w");
		if (!out) {
			perror(cfg.out);
			return 1;
		}
	}
	report(out);
	if (out != stdout)
		fclose(out);
	return failures ? 1 : 0;
}
