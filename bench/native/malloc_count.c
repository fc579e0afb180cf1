// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation counting: this executable's malloc family counts calls while
 * counting is on and hands every request to glibc's own allocator (whose
 * free() then releases it). It calls nothing of the benchmark's: the
 * figure that uses it is insert_mallocs.c's.
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
