// SPDX-License-Identifier: GPL-2.0
/*
 * The single-process figures: insert throughput by batch size, lookup
 * cost (fi_av_lookup on every AV; kav_av_resolve, kav's zero-copy data
 * path read, on kav), and remove + re-insert throughput.
 *
 * Every sample runs the same calls on the same addresses and the same
 * random index sequence for each AV; the AVs take turns within each
 * repetition, starting with a different one each time, so that drift of
 * the machine (TCG, page cache, other guests) is spread over all of them.
 */
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_errno.h>
#include <kav/kav.h>

#include "bench.h"

#define NR_BATCHES	4
#define MAX_CASES	4
#define CHURN_BATCH	64
#define KAV_BENCH_WARMUP	256	/* lookups before each timed sample */

/* 0 stands for all at once. */
static const size_t batches[NR_BATCHES] = { 1, 64, 1024, 0 };

static const char *batch_name(size_t b, char *buf, size_t len)
{
	if (b)
		snprintf(buf, len, "%zu", b);
	else
		snprintf(buf, len, "all");
	return buf;
}

/* Insert @n addresses in batches of @batch (0: all); 0 or an error. */
static int insert_batches(struct fid_av *av, int family, const char *addrs,
			  uint64_t n, size_t batch, fi_addr_t *fa)
{
	size_t size = bench_addr_size(family), b;
	uint64_t done;
	int ret;

	for (done = 0; done < n; done += b) {
		b = batch && batch < n - done ? batch : n - done;
		ret = fi_av_insert(av, addrs + done * size, b, fa + done, 0,
				   NULL);
		if (ret != (int)b)
			return ret < 0 ? ret : -FI_EIO;
	}
	return 0;
}

/* Is fi_av_lookup() of @fa address @i? */
static int check_entry(struct fid_av *av, int family, fi_addr_t fa,
		       uint64_t i)
{
	struct sockaddr_in6 want, got;
	size_t len = sizeof(got);
	int ret;

	bench_addr(family, i, &want);
	memset(&got, 0, sizeof(got));
	ret = fi_av_lookup(av, fa, &got, &len);
	if (ret)
		return ret;
	if (len != bench_addr_size(family) || memcmp(&got, &want, len) != 0)
		return -FI_EOTHER;
	return 0;
}

/* Spot-check @av: first, last and a few entries in between. */
static int check_av(struct fid_av *av, int family, const fi_addr_t *fa,
		    uint64_t n)
{
	uint64_t i, step = n > 16 ? n / 16 : 1;
	int ret;

	for (i = 0; i < n; i += step) {
		ret = check_entry(av, family, fa[i], i);
		if (ret)
			return ret;
	}
	return check_entry(av, family, fa[n - 1], n - 1);
}

/* ------------------------------------------------------------ insert */

/* One sample: fresh AV, insert n in batches, time only the inserts. */
static void insert_sample(enum bench_impl impl, const struct bench_case *c,
			  const char *addrs, size_t batch, fi_addr_t *fa,
			  struct bench_cell *cell)
{
	struct fid_av *av;
	double t0, t1;
	int ret;

	ret = bench_av_open(bench_dom(impl, c->family), c->n, NULL, 0, &av,
			    NULL);
	if (ret) {
		bench_cell_fail(cell, ret, "insert: fi_av_open");
		return;
	}
	t0 = bench_now();
	ret = insert_batches(av, c->family, addrs, c->n, batch, fa);
	t1 = bench_now();
	if (!ret)
		ret = check_av(av, c->family, fa, c->n);
	if (ret)
		bench_cell_fail(cell, ret, bench_impl_name[impl]);
	else
		bench_cell_add(cell, (double)c->n / (t1 - t0));
	fi_close(&av->fid);
}

static void insert_targets(const struct bench_case *cases, int nr_cases,
			   struct bench_cell (*cells)[NR_BATCHES][NR_IMPLS])
{
	char what[96], measured[96], bn[24];
	int b, ci, p;

	for (b = 1; b < NR_BATCHES; b++) {
		double worst = 0;
		const char *where = "";
		uint64_t wn = 0;

		for (ci = 0; ci < nr_cases; ci++) {
			double k = bench_cell_median(&cells[ci][b][IMPL_KAV]);

			for (p = IMPL_UDP; p <= IMPL_TCP; p++) {
				double peer = bench_cell_median(&cells[ci][b][p]);
				double r = k > 0 && peer > 0 ? k / peer : 0;

				if (!worst || r < worst) {
					worst = r;
					where = bench_impl_name[p];
					wn = cases[ci].n;
				}
			}
		}
		snprintf(what, sizeof(what),
			 "insert, batch %s: kav/util-AV throughput >= 1.0",
			 batch_name(batches[b], bn, sizeof(bn)));
		snprintf(measured, sizeof(measured),
			 "lowest %.2f (vs %s, N=%llu)", worst, where,
			 (unsigned long long)wn);
		bench_target(what, measured, worst >= 1.0);
	}
}

int bench_insert(FILE *out)
{
	static struct bench_cell cells[MAX_CASES][NR_BATCHES][NR_IMPLS];
	struct bench_case cases[MAX_CASES];
	int nr_cases = bench_cases(cases), ci, b, rep, k, failed = 0;
	char bn[24];

	memset(cells, 0, sizeof(cells));
	for (ci = 0; ci < nr_cases; ci++) {
		const struct bench_case *c = &cases[ci];
		char *addrs = bench_addrs(c->family, 0, c->n);
		fi_addr_t *fa = calloc(c->n, sizeof(*fa));

		if (!fa)
			return -FI_ENOMEM;
		for (b = 0; b < NR_BATCHES; b++) {
			for (rep = 0; rep < bench_cfg.reps; rep++)
				for (k = 0; k < NR_IMPLS; k++) {
					enum bench_impl impl = bench_impl_at(rep, k);

					insert_sample(impl, c, addrs, batches[b],
						      fa, &cells[ci][b][impl]);
				}
			fprintf(stderr, "# insert %s N=%llu batch %s done\n",
				bench_family_name(c->family),
				(unsigned long long)c->n,
				batch_name(batches[b], bn, sizeof(bn)));
		}
		free(fa);
		free(addrs);
	}

	fprintf(out, "\n## Insert throughput\n\n"
		"Thousands of addresses inserted per second (fi_av_insert into a new AV, "
		"median of %d); ratio = kav / peer, higher is better.\n\n"
		"| N | addr | batch | kav | udp | tcp | sockets | kav/udp | kav/tcp | kav/sockets |\n"
		"|---|---|---|---|---|---|---|---|---|---|\n",
		bench_cfg.reps);
	for (ci = 0; ci < nr_cases; ci++)
		for (b = 0; b < NR_BATCHES; b++) {
			struct bench_cell *row = cells[ci][b];
			double kav = bench_cell_median(&row[IMPL_KAV]);

			fprintf(out, "| %llu | %s | %s |",
				(unsigned long long)cases[ci].n,
				bench_family_name(cases[ci].family),
				batch_name(batches[b], bn, sizeof(bn)));
			for (k = 0; k < NR_IMPLS; k++) {
				bench_md_value(out, &row[k], 1e-3, "%.0f");
				failed |= row[k].err;
			}
			for (k = IMPL_UDP; k < NR_IMPLS; k++)
				bench_md_ratio(out, kav,
					       bench_cell_median(&row[k]));
			fputc('\n', out);
		}
	insert_targets(cases, nr_cases, cells);
	return failed ? -FI_EOTHER : 0;
}

/* ------------------------------------------------------------ lookup, churn */

/* What one AV of one case holds while its reads and churn are timed. */
struct filled_av {
	struct fid_av *av;
	fi_addr_t *fa;		/* fi_addr of address i */
};

enum { LOOKUP, RESOLVE, CHURN, NR_READ_FIGS };

/* Random lookups through fi_av_lookup: seconds per call. */
static int time_lookups(const struct filled_av *f, const uint64_t *idx,
			uint64_t nr, double *sec)
{
	struct sockaddr_in6 buf;
	uint64_t i, sum = 0;
	double t0;
	size_t len;
	int ret;

	t0 = bench_now();
	for (i = 0; i < nr; i++) {
		len = sizeof(buf);
		ret = fi_av_lookup(f->av, f->fa[idx[i]], &buf, &len);
		if (ret)
			return ret;
		sum += buf.sin6_port;
	}
	*sec = (bench_now() - t0) / (double)nr;
	/* Every port bench_addr() makes is non-zero. */
	return sum ? 0 : -FI_EOTHER;
}

/*
 * What a provider's send path does with kav: resolve without a system
 * call or a copy, read the address where it lies in the mapped table.
 */
static int time_resolves(const struct filled_av *f, const uint64_t *idx,
			 uint64_t nr, double *sec)
{
	struct kav_resolved res;
	uint64_t i, sum = 0;
	uint16_t port;
	double t0;
	int ret;

	t0 = bench_now();
	for (i = 0; i < nr; i++) {
		ret = kav_av_resolve(f->av, f->fa[idx[i]], &res);
		if (ret)
			return ret;
		memcpy(&port, (const char *)res.addr + 2, sizeof(port));
		sum += port;
	}
	*sec = (bench_now() - t0) / (double)nr;
	return sum ? 0 : -FI_EOTHER;
}

/*
 * Remove + re-insert: take the shuffled indices @perm in groups of
 * CHURN_BATCH, remove each group and insert its addresses again (new
 * fi_addrs kept). Addresses per second, each removed and re-inserted.
 */
static int time_churn(struct filled_av *f, int family, const uint64_t *perm,
		      uint64_t nr, double *rate)
{
	size_t size = bench_addr_size(family);
	char addrs[CHURN_BATCH * sizeof(struct sockaddr_in6)];
	fi_addr_t out[CHURN_BATCH], rm[CHURN_BATCH];
	uint64_t g, j;
	double t0, t;
	int ret;

	t = 0;
	for (g = 0; g + CHURN_BATCH <= nr; g += CHURN_BATCH) {
		for (j = 0; j < CHURN_BATCH; j++) {
			rm[j] = f->fa[perm[g + j]];
			bench_addr(family, perm[g + j], addrs + j * size);
		}
		t0 = bench_now();
		ret = fi_av_remove(f->av, rm, CHURN_BATCH, 0);
		if (!ret)
			ret = fi_av_insert(f->av, addrs, CHURN_BATCH, out, 0,
					   NULL);
		t += bench_now() - t0;
		if (ret != CHURN_BATCH && ret != 0)
			return ret < 0 ? ret : -FI_EIO;
		for (j = 0; j < CHURN_BATCH; j++)
			f->fa[perm[g + j]] = out[j];
	}
	*rate = (double)g / t;
	return 0;
}

static int fill(enum bench_impl impl, const struct bench_case *c,
		struct filled_av *f)
{
	char *addrs = bench_addrs(c->family, 0, c->n);
	int ret;

	f->fa = calloc(c->n, sizeof(*f->fa));
	ret = f->fa ? 0 : -FI_ENOMEM;
	if (!ret)
		ret = bench_av_open(bench_dom(impl, c->family), c->n, NULL, 0,
				    &f->av, NULL);
	if (!ret) {
		ret = insert_batches(f->av, c->family, addrs, c->n, 0, f->fa);
		if (ret) {
			fi_close(&f->av->fid);
			f->av = NULL;
		}
	}
	free(addrs);
	return ret;
}

static void unfill(struct filled_av *f)
{
	if (f->av)
		fi_close(&f->av->fid);
	free(f->fa);
	memset(f, 0, sizeof(*f));
}

/* Random indices for the lookups, a random permutation for the churn. */
static void index_sets(uint64_t n, uint64_t *idx, uint64_t nr_idx,
		       uint64_t *perm)
{
	uint64_t seed = 0x6b6176 + n, i, j, t;

	for (i = 0; i < nr_idx; i++)
		idx[i] = bench_rand(&seed) % n;
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = bench_rand(&seed) % (i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

static void read_sample(enum bench_impl impl, const struct bench_case *c,
			struct filled_av *f, const uint64_t *idx,
			const uint64_t *perm,
			struct bench_cell cells[NR_READ_FIGS][NR_IMPLS])
{
	uint64_t nr_churn = c->n < 16384 ? c->n : 16384;
	uint64_t warmup = bench_cfg.lookups < KAV_BENCH_WARMUP ?
			  bench_cfg.lookups : KAV_BENCH_WARMUP;
	double v;
	int ret;

	/* Untimed first: TCG translates code the first time it runs. */
	ret = time_lookups(f, idx, warmup, &v);
	if (!ret && impl == IMPL_KAV)
		ret = time_resolves(f, idx, warmup, &v);
	if (!ret)
		ret = time_lookups(f, idx, bench_cfg.lookups, &v);
	if (ret)
		bench_cell_fail(&cells[LOOKUP][impl], ret, "fi_av_lookup");
	else
		bench_cell_add(&cells[LOOKUP][impl], v);
	if (impl == IMPL_KAV) {
		ret = time_resolves(f, idx, bench_cfg.lookups, &v);
		if (ret)
			bench_cell_fail(&cells[RESOLVE][impl], ret,
					"kav_av_resolve");
		else
			bench_cell_add(&cells[RESOLVE][impl], v);
	}
	ret = time_churn(f, c->family, perm, nr_churn, &v);
	if (!ret)
		ret = check_av(f->av, c->family, f->fa, c->n);
	if (ret)
		bench_cell_fail(&cells[CHURN][impl], ret, "remove + re-insert");
	else
		bench_cell_add(&cells[CHURN][impl], v);
}

static void lookup_targets(const struct bench_case *cases, int nr_cases,
			   struct bench_cell (*cells)[NR_READ_FIGS][NR_IMPLS])
{
	static const char *const what[] = {
		[LOOKUP] = "fi_av_lookup: kav/util-AV time <= 1.0",
		[RESOLVE] = "zero-copy read: kav_av_resolve/util-AV fi_av_lookup time <= 1.0",
	};
	char measured[96];
	int fig, ci, p;

	for (fig = LOOKUP; fig <= RESOLVE; fig++) {
		double worst = 0;
		uint64_t wn = 0;
		const char *where = "";

		for (ci = 0; ci < nr_cases; ci++) {
			double k = bench_cell_median(&cells[ci][fig][IMPL_KAV]);

			for (p = IMPL_UDP; p <= IMPL_TCP; p++) {
				double peer = bench_cell_median(&cells[ci][LOOKUP][p]);
				double r = k > 0 && peer > 0 ? k / peer : 99;

				if (r > worst) {
					worst = r;
					where = bench_impl_name[p];
					wn = cases[ci].n;
				}
			}
		}
		snprintf(measured, sizeof(measured),
			 "highest %.2f (vs %s, N=%llu)", worst, where,
			 (unsigned long long)wn);
		bench_target(what[fig], measured, worst <= 1.0);
	}
}

static void print_lookup(FILE *out, const struct bench_case *cases,
			 int nr_cases,
			 struct bench_cell (*cells)[NR_READ_FIGS][NR_IMPLS])
{
	int ci, k;

	fprintf(out, "\n## Lookup\n\n"
		"Nanoseconds per call, %llu random indices per sample, median of %d; "
		"ratio = kav / peer, lower is better. \"kav zero-copy\" is "
		"kav_av_resolve() plus a read of the address in the mapped table, "
		"the data path's read; the peers offer no public equivalent, so it is "
		"compared with their fi_av_lookup().\n\n"
		"| N | addr | kav fi_av_lookup | kav zero-copy | udp | tcp | sockets "
		"| lookup kav/udp | lookup kav/tcp | lookup kav/sockets "
		"| zero-copy kav/udp | zero-copy kav/tcp |\n"
		"|---|---|---|---|---|---|---|---|---|---|---|---|\n",
		(unsigned long long)bench_cfg.lookups, bench_cfg.reps);
	for (ci = 0; ci < nr_cases; ci++) {
		struct bench_cell *l = cells[ci][LOOKUP];
		double kav = bench_cell_median(&l[IMPL_KAV]);
		double zc = bench_cell_median(&cells[ci][RESOLVE][IMPL_KAV]);

		fprintf(out, "| %llu | %s |", (unsigned long long)cases[ci].n,
			bench_family_name(cases[ci].family));
		bench_md_value(out, &l[IMPL_KAV], 1e9, "%.0f");
		bench_md_value(out, &cells[ci][RESOLVE][IMPL_KAV], 1e9, "%.0f");
		for (k = IMPL_UDP; k < NR_IMPLS; k++)
			bench_md_value(out, &l[k], 1e9, "%.0f");
		for (k = IMPL_UDP; k < NR_IMPLS; k++)
			bench_md_ratio(out, kav, bench_cell_median(&l[k]));
		for (k = IMPL_UDP; k <= IMPL_TCP; k++)
			bench_md_ratio(out, zc, bench_cell_median(&l[k]));
		fputc('\n', out);
	}
}

static void print_churn(FILE *out, const struct bench_case *cases,
			int nr_cases,
			struct bench_cell (*cells)[NR_READ_FIGS][NR_IMPLS])
{
	int ci, k;

	fprintf(out, "\n## Remove + re-insert\n\n"
		"Thousands of addresses per second, each removed and inserted again, "
		"in random groups of %d (fi_av_remove then fi_av_insert), up to 16384 "
		"per sample in a full AV of N, median of %d; ratio = kav / peer, higher "
		"is better.\n\n"
		"| N | addr | kav | udp | tcp | sockets | kav/udp | kav/tcp | kav/sockets |\n"
		"|---|---|---|---|---|---|---|---|---|\n",
		CHURN_BATCH, bench_cfg.reps);
	for (ci = 0; ci < nr_cases; ci++) {
		struct bench_cell *row = cells[ci][CHURN];
		double kav = bench_cell_median(&row[IMPL_KAV]);

		fprintf(out, "| %llu | %s |", (unsigned long long)cases[ci].n,
			bench_family_name(cases[ci].family));
		for (k = 0; k < NR_IMPLS; k++)
			bench_md_value(out, &row[k], 1e-3, "%.0f");
		for (k = IMPL_UDP; k < NR_IMPLS; k++)
			bench_md_ratio(out, kav, bench_cell_median(&row[k]));
		fputc('\n', out);
	}
}

int bench_lookup_churn(FILE *out)
{
	static struct bench_cell cells[MAX_CASES][NR_READ_FIGS][NR_IMPLS];
	struct bench_case cases[MAX_CASES];
	int nr_cases = bench_cases(cases), ci, rep, k, fig, failed = 0;

	memset(cells, 0, sizeof(cells));
	for (ci = 0; ci < nr_cases; ci++) {
		const struct bench_case *c = &cases[ci];
		struct filled_av f[NR_IMPLS] = { 0 };
		uint64_t *idx = calloc(bench_cfg.lookups, sizeof(*idx));
		uint64_t *perm = calloc(c->n, sizeof(*perm));
		int ret;

		if (!idx || !perm) {
			free(idx);
			free(perm);
			return -FI_ENOMEM;
		}
		index_sets(c->n, idx, bench_cfg.lookups, perm);
		for (k = 0; k < NR_IMPLS; k++) {
			ret = fill((enum bench_impl)k, c, &f[k]);
			if (ret)
				for (fig = 0; fig < NR_READ_FIGS; fig++)
					bench_cell_fail(&cells[ci][fig][k], ret,
							"lookup: fill");
		}
		for (rep = 0; rep < bench_cfg.reps; rep++)
			for (k = 0; k < NR_IMPLS; k++) {
				enum bench_impl impl = bench_impl_at(rep, k);

				if (f[impl].av)
					read_sample(impl, c, &f[impl], idx,
						    perm, cells[ci]);
			}
		for (k = 0; k < NR_IMPLS; k++)
			unfill(&f[k]);
		free(idx);
		free(perm);
		fprintf(stderr, "# lookup, remove + re-insert %s N=%llu done\n",
			bench_family_name(c->family),
			(unsigned long long)c->n);
	}
	print_lookup(out, cases, nr_cases, cells);
	print_churn(out, cases, nr_cases, cells);
	lookup_targets(cases, nr_cases, cells);
	for (ci = 0; ci < nr_cases; ci++)
		for (fig = 0; fig < NR_READ_FIGS; fig++)
			for (k = 0; k < NR_IMPLS; k++)
				failed |= cells[ci][fig][k].err;
	return failed ? -FI_EOTHER : 0;
}
