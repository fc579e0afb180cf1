// SPDX-License-Identifier: GPL-2.0
/*
 * Allocations per single-address fi_av_insert(), kav against the peers:
 * counted by this executable's malloc family (malloc_count.c), which this
 * file only switches on and reads.
 */
#include <stdlib.h>
#include <rdma/fi_domain.h>

#include "native.h"

#define RB_INSERT_WARM	64	/* first inserts: an AV may set up lazily */
#define RB_INSERT_COUNT	4096

/* Steady-state allocations per fi_av_insert() of one address. */
static double insert_mallocs(struct bench_domain *d)
{
	char addr[sizeof(struct sockaddr_in6)];
	unsigned long n;
	struct fid_av *av;
	fi_addr_t fa;
	int i;

	if (bench_av_open(d, RB_INSERT_WARM + RB_INSERT_COUNT, NULL, 0, &av,
			  NULL))
		return -1;
	for (i = 0; i < RB_INSERT_WARM + RB_INSERT_COUNT; i++) {
		bench_addr(d->family, (uint64_t)i, addr);
		if (i == RB_INSERT_WARM)
			rb_malloc_count(true);
		if (fi_av_insert(av, addr, 1, &fa, 0, NULL) != 1) {
			rb_malloc_count(false);
			fi_close(&av->fid);
			return -1;
		}
	}
	rb_malloc_count(false);
	n = rb_malloc_calls();
	fi_close(&av->fid);
	return (double)n / RB_INSERT_COUNT;
}

/* Does this executable's malloc() see the calls? */
static bool counting_works(void)
{
	/* Through a pointer: the compiler may not drop the pair. */
	void *(*volatile alloc)(size_t size) = malloc;
	void *p;

	rb_malloc_count(true);
	p = alloc(8);
	rb_malloc_count(false);
	free(p);
	return rb_malloc_calls() == 1;
}

int rb_insert_mallocs(double out[NR_IMPLS])
{
	int k;

	if (!counting_works()) {
		fprintf(stderr, "kav_read_bench: malloc calls are not counted\n");
		for (k = 0; k < NR_IMPLS; k++)
			out[k] = -1;
		return -EIO;
	}

	for (k = 0; k < NR_IMPLS; k++)
		out[k] = bench_dom((enum bench_impl)k, AF_INET)->domain ?
			 insert_mallocs(bench_dom((enum bench_impl)k, AF_INET)) :
			 -1;
	return 0;
}
