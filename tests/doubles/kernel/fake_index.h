/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A job table's address index (KAV_AV_JOB) in a fake table image, written
 * exactly as kmod/kav_index.c writes it: buckets right after the entries
 * (a job table has no fi_addr array), all backed at creation, then a
 * chain link per entry backed as slots are; entries linked at their
 * bucket's head once stored, never unlinked. Insert into a job table is find-or-insert: fake_index_resolve()
 * then fake_index_insert(), as the kernel's kav_index_resolve() and
 * kav_table_insert().
 */
#ifndef FAKE_INDEX_H
#define FAKE_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include <linux/kav.h>

#include "fake_table.h"

/* fake_index_resolve()'s idx[i]: a new address, or a repeat of idx[j]. */
#define FAKE_INDEX_NEW		(~0ULL)
#define FAKE_INDEX_DUP		(1ULL << 63)

/* kav_index_init(): buckets for a count hint (4096 .. 2^22, a power of 2). */
uint32_t fake_index_buckets(uint64_t count);
/*
 * map_size of a job table: header and entry pages (no fi_addr array:
 * fake_table_entries_end()), then buckets and links.
 */
size_t fake_index_table_size(uint32_t entry_size, uint64_t max_entries,
			     uint64_t count);
/*
 * kav_index_init(), right after fake_ktable_init(..., false) on an image
 * of fake_index_table_size() bytes: header fields, every bucket zeroed.
 */
void fake_index_init(struct fake_ktable *t, uint64_t count);
/* kav_index_grow(): links of slots @first..@last, for fake_ktable_grow(). */
void fake_index_grow(struct fake_ktable *t, uint64_t first, uint64_t last);
/*
 * kav_index_resolve() of @count checked addresses under key handle @key:
 * @idx[i] the entry that holds address i, FAKE_INDEX_NEW, or
 * FAKE_INDEX_DUP | j for a repeat of new address j < i. Returns how many
 * are new (the caller checks they fit).
 */
uint32_t fake_index_resolve(struct fake_ktable *t, const void *addrs,
			    uint32_t stride, const uint32_t *lens,
			    uint32_t count, uint64_t key, uint64_t *idx);
/* kav_table_insert() of a resolved batch: every @idx[i] an index after. */
void fake_index_insert(struct fake_ktable *t, const void *addrs,
		       uint32_t stride, const uint32_t *lens, uint32_t count,
		       uint64_t key, uint64_t *idx);
/* A reader's lookup through the image's index: the entry, or -1. */
int64_t fake_index_find(const void *mem, const void *addr, uint32_t len,
			uint64_t key);

#endif
