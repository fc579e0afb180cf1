/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A kav AV table as libkav holds it (uapi/linux/kav.h, "The table
 * mapping"): the validated layout values, the snapshots reads return, and
 * table.c's functions. Self-contained: table_read.h (the inline reads),
 * table.c and kav_priv.h include it, and it includes none of them.
 */
#ifndef KAV_TABLE_H
#define KAV_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include <linux/kav.h>
#include <kav/kav.h>

#define KAV_MIN(a, b) ((a) < (b) ? (a) : (b))

/*
 * A read-only view of a kernel AV table: the mapping plus the layout values
 * validated once at attach time. Reads use only these cached values for
 * pointer arithmetic, never header fields re-read from shared memory, so a
 * bad header cannot steer a reader outside the mapping.
 */
struct kav_table {
	/* What every lookup reads, together. */
	const uint8_t *entries;		/* entry 0: base + header_size */
	uint64_t bound;			/* cached nr_slots (atomic; table.c) */
	uint32_t entry_shift;		/* log2(entry_size) */
	uint32_t addr_max;
	const uint8_t *keys;		/* key slot 0: base + keys_offset */
	uint32_t max_keys;		/* 0: the kernel has no key slots */
	const uint8_t *base;
	size_t map_size;
	bool mapped;			/* base came from mmap(): unmap it */
	uint32_t header_size;
	uint32_t entry_size;
	uint32_t addr_format;		/* enum kav_addr_format */
	uint64_t max_entries;
	uint32_t keys_offset;		/* auth-key slots in the header page */
	uint32_t key_counts_offset;	/* their struct kav_key_count */
	uint64_t fi_addrs_offset;	/* the fi_addr array in the mapping */
};

/*
 * A consistent copy of one entry. The table stores a one-byte key slot
 * (KAV_ENTRY_NO_KEY for none) and a 32-bit seq; copies widen them: the
 * key to a handle or KAV_NONE, as every caller compares.
 */
struct kav_entry_snap {
	uint64_t seq;
	uint32_t flags;
	uint32_t addr_len;		/* clamped to the table's addr_max */
	uint64_t auth_key;		/* key handle, or KAV_NONE */
	uint64_t user_id;
	uint8_t addr[KAV_ADDR_MAX_LEN];
};

/* An entry without its address (kav_table_read_meta()). */
struct kav_entry_meta {
	uint64_t seq;
	uint32_t flags;
	uint32_t addr_len;		/* clamped to the table's addr_max */
	uint64_t auth_key;		/* key handle, or KAV_NONE */
	uint64_t user_id;
};

/* A consistent copy of one auth-key slot. */
struct kav_key_snap {
	uint64_t seq;
	uint32_t flags;			/* KAV_KEY_* */
	uint32_t vni;
	uint64_t user_id;
	uint32_t nr_entries;
	uint32_t nr_endpoints;
};

/*
 * Check the header of a table image at @base (any memory: a mapping or, in
 * tests, a malloc'd buffer) and fill @t. @expect_format 0 accepts any.
 */
int kav_table_attach(struct kav_table *t, const void *base, size_t map_size,
		     uint32_t expect_format);
/*
 * Out of line, for an index at or past the cached bound: load nr_slots
 * again and cache it. True when @index may now be read.
 */
bool kav_table_reach(const struct kav_table *t, uint64_t index);
/* mmap() @fd read-only and attach. */
int kav_table_map(struct kav_table *t, int fd, size_t map_size,
		  uint32_t expect_format);
/* Undo kav_table_map() (or forget an attached buffer). */
void kav_table_unmap(struct kav_table *t);

/* Out of line and cold: for attempt >= KAV_READ_SPINS (table_read.h). */
void kav_table_backoff(unsigned int attempt) __attribute__((cold));

/*
 * fi_av_lookup() semantics on a valid entry, with bounded retries: what
 * kav_table_lookup() (table_read.h) does not answer at once.
 */
int kav_table_lookup_slow(const struct kav_table *t, uint64_t index,
			  void *addr, size_t *addrlen) __attribute__((cold));

#ifdef KAV_TESTING
/* Called after each seq load of a read attempt (attempt = 0, 1, ...). */
extern void (*kav_table_read_hook)(const struct kav_entry *e,
				   unsigned int attempt);
extern void (*kav_table_key_read_hook)(const struct kav_key_slot *k,
				       unsigned int attempt);
#endif

#endif /* KAV_TABLE_H */
