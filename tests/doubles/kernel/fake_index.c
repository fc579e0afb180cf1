// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kmod/kav_index.c, byte for byte, in a fake table image; see
 * fake_index.h. Each function names the kernel function it mirrors.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_index.h"

#define FAKE_LINKS_PER_PAGE	(FAKE_PAGE / sizeof(uint32_t))
#define FAKE_INDEX_MIN_BUCKETS	4096u
#define FAKE_INDEX_MAX_BUCKETS	(1u << 22)

static struct kav_table_header *fake_ihdr(void *mem)
{
	return mem;
}

static uint64_t fake_pages(uint64_t n, uint64_t per_page)
{
	return (n + per_page - 1) / per_page;
}

uint32_t fake_index_buckets(uint64_t count)
{
	uint32_t b = FAKE_INDEX_MIN_BUCKETS;

	while (b < count && b < FAKE_INDEX_MAX_BUCKETS)
		b *= 2;
	return b;
}

size_t fake_index_table_size(uint32_t entry_size, uint64_t max_entries,
			     uint64_t count)
{
	return fake_table_entries_end(entry_size, max_entries) +
	       (size_t)(fake_pages(fake_index_buckets(count),
				   FAKE_LINKS_PER_PAGE) +
			fake_pages(max_entries, FAKE_LINKS_PER_PAGE)) *
	       FAKE_PAGE;
}

static uint32_t *fake_buckets(void *mem)
{
	return (uint32_t *)((uint8_t *)mem + fake_ihdr(mem)->index_offset);
}

static uint32_t *fake_links(void *mem)
{
	return (uint32_t *)((uint8_t *)mem +
			    fake_ihdr(mem)->index_next_offset);
}

void fake_index_init(struct fake_ktable *t, uint64_t count)
{
	struct kav_table_header *h = fake_ihdr(t->mem);
	uint32_t buckets = fake_index_buckets(count);
	uint64_t bucket_pages = fake_pages(buckets, FAKE_LINKS_PER_PAGE);

	/* Right after the entries (no fi_addr array): the old map_size. */
	h->index_buckets = buckets;
	h->index_hash = KAV_INDEX_HASH_FNV1A;
	/* Any seed: readers must use the header's, as the kernel's is random. */
	h->index_seed = 0x9e3779b97f4a7c15ULL;
	h->index_offset = h->map_size;
	h->index_next_offset = h->index_offset + bucket_pages * FAKE_PAGE;
	h->map_size = h->index_next_offset +
		      fake_pages(h->max_entries, FAKE_LINKS_PER_PAGE) *
		      FAKE_PAGE;
	memset(fake_buckets(t->mem), 0, bucket_pages * FAKE_PAGE);
}

void fake_index_grow(struct fake_ktable *t, uint64_t first, uint64_t last)
{
	uint64_t p;

	/* Pages that no slot below @first backs yet start zeroed. */
	for (p = first / FAKE_LINKS_PER_PAGE; p <= last / FAKE_LINKS_PER_PAGE;
	     p++)
		if (!first || p > (first - 1) / FAKE_LINKS_PER_PAGE)
			memset(fake_links(t->mem) + p * FAKE_LINKS_PER_PAGE, 0,
			       FAKE_PAGE);
}

static uint32_t *fake_bucket_of(void *mem, const void *addr, uint32_t len,
				uint64_t key)
{
	return fake_buckets(mem) + (kav_index_hash(addr, len, key,
						   fake_ihdr(mem)->index_seed) &
				    (fake_ihdr(mem)->index_buckets - 1));
}

int64_t fake_index_find(const void *cmem, const void *addr, uint32_t len,
			uint64_t key)
{
	void *mem = (void *)(uintptr_t)cmem;
	uint64_t nr = __atomic_load_n(&fake_ihdr(mem)->nr_slots,
				      __ATOMIC_ACQUIRE), steps = 0, idx;
	uint32_t link = __atomic_load_n(fake_bucket_of(mem, addr, len, key),
					__ATOMIC_ACQUIRE);
	const struct kav_entry *e;

	/* The fake writes from the reader's thread: no seq loop needed. */
	while (link && steps++ < nr) {
		idx = link - 1;
		if (idx >= nr)
			break;
		e = fake_table_entry(mem, idx);
		if ((e->flags & KAV_ENTRY_VALID) && e->addr_len == len &&
		    e->auth_key == key && !memcmp(e->addr, addr, len))
			return (int64_t)idx;
		link = __atomic_load_n(&fake_links(mem)[idx], __ATOMIC_ACQUIRE);
	}
	return -1;
}

uint32_t fake_index_resolve(struct fake_ktable *t, const void *addrs,
			    uint32_t stride, const uint32_t *lens,
			    uint32_t count, uint64_t key, uint64_t *idx)
{
	const uint8_t *a = addrs, *ai;
	uint32_t i, j, nr_new = 0;
	int64_t found;

	for (i = 0; i < count; i++) {
		ai = a + (size_t)i * stride;
		found = fake_index_find(t->mem, ai, lens[i], key);
		if (found >= 0) {
			idx[i] = (uint64_t)found;
			continue;
		}
		/* The kernel hashes the batch; a scan finds the same j. */
		for (j = 0; j < i; j++)
			if (idx[j] == FAKE_INDEX_NEW && lens[j] == lens[i] &&
			    !memcmp(a + (size_t)j * stride, ai, lens[i]))
				break;
		if (j < i) {
			idx[i] = FAKE_INDEX_DUP | j;
			continue;
		}
		idx[i] = FAKE_INDEX_NEW;
		nr_new++;
	}
	return nr_new;
}

void fake_index_insert(struct fake_ktable *t, const void *addrs,
		       uint32_t stride, const uint32_t *lens, uint32_t count,
		       uint64_t key, uint64_t *idx)
{
	struct kav_table_header *h = fake_ihdr(t->mem);
	const uint8_t *a = addrs;
	uint32_t *nlens, *bucket, i, n = 0;
	uint64_t *nidx;
	uint8_t *naddrs;

	nlens = malloc(count * sizeof(*nlens));
	nidx = malloc(count * sizeof(*nidx));
	naddrs = malloc((size_t)count * stride);
	if (!nlens || !nidx || !naddrs)
		abort();
	for (i = 0; i < count; i++) {
		if (idx[i] != FAKE_INDEX_NEW)
			continue;
		memcpy(naddrs + (size_t)n * stride, a + (size_t)i * stride,
		       stride);
		nlens[n++] = lens[i];
	}
	if (n) {
		/* The new ones in order, each at the lowest free index. */
		fake_ktable_insert(t, naddrs, stride, nlens, n, NULL, key,
				   NULL, nidx);
	} else {
		/* kav_table_insert() of nothing new is still a batch. */
		h->generation += 2;
	}
	for (i = 0, n = 0; i < count; i++) {
		if (idx[i] != FAKE_INDEX_NEW)
			continue;
		idx[i] = nidx[n++];
		/* kav_index_link(): link first, then the head (release). */
		bucket = fake_bucket_of(t->mem, a + (size_t)i * stride,
					lens[i], key);
		fake_links(t->mem)[idx[i]] = *bucket;
		__atomic_store_n(bucket, (uint32_t)idx[i] + 1,
				 __ATOMIC_RELEASE);
	}
	/* kav_index_fill_dups() */
	for (i = 0; i < count; i++)
		if (idx[i] & FAKE_INDEX_DUP)
			idx[i] = idx[(uint32_t)idx[i]];
	free(nlens);
	free(nidx);
	free(naddrs);
}
