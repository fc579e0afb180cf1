/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav_bench: kav's AV against libfabric's own AVs, through the same fi_av
 * calls, in one process and one guest. See Documentation/benchmarks.rst.
 *
 * Every AV under test is a struct fid_av: kav's comes from
 * kav_domain_open(), the peers' from fi_getinfo() + fi_fabric() +
 * fi_domain() of Debian's libfabric, so the figures time exactly the
 * calls an application makes.
 */
#ifndef KAV_BENCH_H
#define KAV_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

/* ------------------------------------------------------------ AVs */

enum bench_impl {
	IMPL_KAV,	/* libkav over /dev/kav */
	IMPL_UDP,	/* udp provider, FI_EP_DGRAM: libfabric's util AV */
	IMPL_TCP,	/* tcp provider, FI_EP_MSG: libfabric's util AV */
	IMPL_SOCKETS,	/* sockets provider, FI_EP_RDM: its own (shm) AV */
	NR_IMPLS,
};

extern const char *const bench_impl_name[NR_IMPLS];

/* One open domain of one implementation and address family. */
struct bench_domain {
	enum bench_impl impl;
	int family;			/* AF_INET or AF_INET6 */
	struct fid_fabric *fabric;	/* NULL for kav */
	struct fid_domain *domain;
	struct fi_info *info;		/* NULL for kav */
};

/* The auth key kav's domains use (granted to the caller by main()). */
#define BENCH_VNI	4242

int bench_domain_open(enum bench_impl impl, int family,
		      struct bench_domain *d);
void bench_domain_close(struct bench_domain *d);

/* The domains the figures use, opened once by main(): [IPv6?][impl]. */
extern struct bench_domain bench_doms[2][NR_IMPLS];

static inline struct bench_domain *bench_dom(enum bench_impl impl,
					     int family)
{
	return &bench_doms[family == AF_INET6][impl];
}

/* Impl number @k of repetition @rep: each repetition starts elsewhere. */
static inline enum bench_impl bench_impl_at(int rep, int k)
{
	return (enum bench_impl)((rep + k) % NR_IMPLS);
}

/*
 * Open an AV on @d: @count is the size hint (kav: table slots reserved;
 * sockets: the fixed table size). With @name, a named AV (kav, sockets);
 * @flags FI_READ opens an existing one.
 */
int bench_av_open(struct bench_domain *d, size_t count, const char *name,
		  uint64_t flags, struct fid_av **av, void **map_addr);

/* ------------------------------------------------------------ addresses */

/* Address i of a family: distinct for every i < 2^32. */
size_t bench_addr_size(int family);
void bench_addr(int family, uint64_t i, void *out);
/* @n addresses from @first, packed at bench_addr_size() each. */
void *bench_addrs(int family, uint64_t first, size_t n);

/* ------------------------------------------------------------ timing */

double bench_now(void);
/* xorshift64*: the same pseudo-random index sequence for every AV. */
uint64_t bench_rand(uint64_t *state);

/* ------------------------------------------------------------ results */

/*
 * Samples of one figure for one AV, in the order the repetitions ran;
 * the report shows their median. A failed run records its error and
 * fails the figure.
 */
#define BENCH_MAX_REPS	16

struct bench_cell {
	double v[BENCH_MAX_REPS];
	int n;
	int err;		/* first error, 0 if none */
};

void bench_cell_add(struct bench_cell *c, double v);
void bench_cell_fail(struct bench_cell *c, int err, const char *what);
double bench_cell_median(const struct bench_cell *c);

/* The (family, N) cases: each N in IPv4, then the largest N in IPv6. */
struct bench_case {
	int family;
	uint64_t n;
};

int bench_cases(struct bench_case *cases);	/* at most 4 */
const char *bench_family_name(int family);

/* What main() decided, for the figures. */
struct bench_config {
	bool smoke;		/* tiny sizes: the harness check of make check */
	int reps;
	uint64_t sizes[3];	/* N for IPv4; the last one is also run IPv6 */
	int nr_sizes;
	uint64_t mem_entries;	/* entries of the memory figure's AV */
	int procs[3];		/* P of the memory figure */
	int nr_procs;
	uint64_t lookups;	/* random lookups per sample */
	int pat_procs[4];	/* P of the Open MPI pattern */
	int nr_pat_procs;
	uint64_t pat_sizes[4];	/* N of the Open MPI pattern */
	int nr_pat_sizes;
	const char *self;	/* /proc/self/exe path, for the join children */
};

extern struct bench_config bench_cfg;

/* Each figure: run all repetitions, then print its markdown table. */
int bench_insert(FILE *out);
int bench_lookup_churn(FILE *out);	/* lookup and remove + re-insert */
int bench_join(FILE *out);
int bench_memory(FILE *out);
int bench_pattern(FILE *out);	/* the Open MPI pattern (issue 27) */
/* The memory figure's sockets total at its largest P (0: not run), for
 * the pattern's target. */
extern double bench_sockets_bytes;

/* The join figure's child (kav_bench --join-child IMPL NAME N). */
int bench_join_child(int argc, char **argv);
/* The pattern's ranks (kav_bench --pattern-child RANK N FDS...). */
int bench_pattern_child(int argc, char **argv);

/* Markdown helpers. */
void bench_md_ratio(FILE *out, double kav, double peer);
void bench_md_value(FILE *out, const struct bench_cell *c, double scale,
		    const char *fmt);
void bench_target(const char *what, const char *measured, bool met);
void bench_targets_print(FILE *out);

#endif /* KAV_BENCH_H */
