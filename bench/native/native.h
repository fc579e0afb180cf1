/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav_read_bench: the read path natively, on the host. The production
 * libkav.so.0 runs over tables in kav.ko's exact layout, made by the fake
 * kernel (tests/doubles/kernel/fake_table.c, checked against the module by
 * kav_layout_test): this executable defines ioctl() and close(), so that
 * libkav's kav ioctls reach the fake kernel and its mmap() and reads run
 * unchanged. libfabric 1.17's udp, tcp and sockets AVs are read in the
 * same process, same run. See Documentation/benchmarks.rst.
 */
#ifndef KAV_NATIVE_H
#define KAV_NATIVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <kav/kav.h>

#include "bench.h"

/* How each AV is read; the first four are kav's. */
enum rb_method {
	RB_LOOKUP,	/* kav fi_av_lookup() */
	RB_RESOLVE,	/* kav_av_resolve() + a read of the address */
	RB_VIEW,	/* kav_view_resolve() (inline) + a read of it */
	RB_FLOOR,	/* the entry's address read, no check at all */
	RB_UDP,		/* fi_av_lookup() of the peers */
	RB_TCP,
	RB_SOCKETS,
	NR_RB_METHODS,
};

enum rb_access {
	RB_RANDOM,	/* independent random indices */
	RB_DEPENDENT,	/* the next index comes out of this lookup */
	NR_RB_ACCESS,
};

extern const char *const rb_method_name[NR_RB_METHODS];
extern const char *const rb_access_name[NR_RB_ACCESS];

/* Random indices per case: a power of two, read round and round. */
#define RB_RIDX		(1u << 16)

/*
 * One (family, N) case, filled: every AV holds at index i the address
 * bench_addr(family, next[i]), where next is one random cycle through all
 * N, so that a lookup's result names the next index to look up.
 */
struct rb_case {
	int family;
	uint64_t n;
	struct fid_av *av[NR_IMPLS];
	bool usable[NR_IMPLS];		/* filled, and fi_addr i is index i */
	struct kav_view view;
	uint32_t *ridx;			/* RB_RIDX random indices < n */
	uint32_t *next;			/* the cycle */
	uint32_t off;			/* where the 4 index bytes lie */
	uint32_t base;			/* and what to take off them */
};

/* read_loops.c: @m reads; a checksum of what was read, 0 on an error. */
uint64_t rb_run(struct rb_case *c, enum rb_method meth,
		enum rb_access acc, uint64_t m);
/* What rb_run() must return, from the cycle alone. */
uint64_t rb_expect(const struct rb_case *c, enum rb_access acc, uint64_t m);
/* The AV a method reads. */
enum bench_impl rb_method_impl(enum rb_method meth);

/* malloc_count.c: count allocations while counting is on. */
void rb_malloc_count(bool on);
void rb_malloc_pause(bool pause);	/* the fake kernel's own */
unsigned long rb_malloc_calls(void);
/* Allocations per single-address fi_av_insert (steady state), per AV. */
int rb_insert_mallocs(double out[NR_IMPLS]);

/* instr.c: instructions per read under callgrind. */
/* In the callgrind child: instrument (between fills) or not. */
void rb_instr_switch(bool on);
/* In the callgrind child: count the reads of each (case, access, method). */
void rb_instr_region(int ci, enum rb_access acc, enum rb_method meth,
		     struct rb_case *c, uint64_t m);
/*
 * In the parent: run @self under callgrind with @args and read back
 * instructions per read into @ipr[case][access][method] (-1: none).
 */
int rb_instr_collect(const char *self, char *const *args, int nr_cases,
		     uint64_t m,
		     double ipr[][NR_RB_ACCESS][NR_RB_METHODS]);

#endif /* KAV_NATIVE_H */
