// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation counting: this executable's malloc family counts calls while
 * counting is on and hands every request to glibc's own allocator (whose
 * free() then releases it). Used for one figure: allocations per
 * single-address fi_av_insert(), kav against the peers.
 */
#include <errno.h>
#include <stdlib.h>
#include <rdma/fi_domain.h>

#include "native.h"

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t align, size_t size);

static bool counting, paused;
static unsigned long calls;

static void count(void)
{
	if (counting && !paused)
		calls++;
}

void *malloc(size_t size)
{
	count();
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	count();
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	count();
	return __libc_realloc(p, size);
}

void *aligned_alloc(size_t align, size_t size)
{
	count();
	return __libc_memalign(align, size);
}

int posix_memalign(void **p, size_t align, size_t size)
{
	count();
	*p = __libc_memalign(align, size);
	return *p ? 0 : ENOMEM;
}

void rb_malloc_count(bool on)
{
	counting = on;
	if (on)
		calls = 0;
}

void rb_malloc_pause(bool pause)
{
	paused = pause;
}

unsigned long rb_malloc_calls(void)
{
	return calls;
}

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
