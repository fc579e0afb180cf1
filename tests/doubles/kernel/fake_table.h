/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A kav table image in ordinary memory, laid out and written exactly as
 * kav.ko does it (kmod/kav_table.c, kmod/kav_keys.c; uapi/linux/kav.h,
 * KAV_TABLE_VERSION 3), so that a table built here and a real module's
 * table that went through the same operations are byte for byte the same
 * (tests/selftests/device/kav_layout_test.c checks that in the VM). It needs
 * nothing but the uAPI header: the unit tests' fake kernel (fake_kav.c),
 * that selftest and the native benchmark (bench/native) all build on it.
 *
 * Two ways in:
 *  - struct fake_ktable + fake_ktable_*(): the kernel's core table, one
 *    function per kernel operation (init, insert batch, remove batch, user
 *    ids, key slots, endpoint counts), pages initialised as they are
 *    backed, every counter advanced as the kernel does;
 *  - fake_table_*(): for tests that poke at an image directly; such an
 *    image has every page backed from the start.
 */
#ifndef FAKE_TABLE_H
#define FAKE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/kav.h>

/* The kernel's PAGE_SIZE on x86-64, the header_size of every table. */
#define FAKE_PAGE		4096u
/* kmod/kav_core.h's KAV_BATCH_WINDOW: entries per generation window. */
#define FAKE_BATCH_WINDOW	64u
/* Where kav_keys.c puts the key slots and their counts in the header page. */
#define FAKE_KEYS_OFFSET	1024u
#define FAKE_KEY_COUNTS_OFFSET	(FAKE_KEYS_OFFSET + \
				 KAV_MAX_AUTH_KEYS * sizeof(struct kav_key_slot))

/* ------------------------------------------------------------ layout */

/* entry_size for @addr_max: the next power of two >= 32 + @addr_max. */
uint32_t fake_entry_size(uint32_t addr_max);
/* map_size: header page, entry pages, fi_addr pages. */
size_t fake_table_size(uint32_t entry_size, uint64_t max_entries);
/* Where the entry pages end: a job table's map_size before its index. */
size_t fake_table_entries_end(uint32_t entry_size, uint64_t max_entries);
struct kav_entry *fake_table_entry(void *mem, uint64_t index);
/* The fi_addr array, or NULL for a table without one (a job table). */
uint64_t *fake_table_fi_addrs(void *mem);
struct kav_key_slot *fake_table_key(void *mem, uint32_t slot);
struct kav_key_count *fake_table_key_count(void *mem, uint32_t slot);

/* ------------------------------------------------------------ the kernel */

/* What struct kav_table keeps beside its pages (kav_core.h). */
struct fake_ktable {
	uint8_t *mem;			/* the image: map_size bytes */
	uint64_t nr_slots;		/* backed slots, mirrored in hdr */
	uint64_t nr_valid;
	uint64_t first_free;		/* no free slot below this */
};

/*
 * kav_table_init(): the header page of a new table in @mem (map_size
 * bytes, see fake_table_size(); only what gets backed is written, so
 * @mem may be a sparse mapping). @fi_addrs false: no fi_addr array
 * (fi_addrs_offset 0), as for a job table (then fake_index_init()).
 */
void fake_ktable_init(struct fake_ktable *t, void *mem, uint32_t format,
		      uint32_t addr_max, uint64_t max_entries, bool fi_addrs);
/*
 * kav_table_insert() of @count checked addresses (@stride apart, @lens
 * bytes each), bound to @keys[i] (or @dflt_key for all when @keys is
 * NULL; KAV_NONE: no key) with @user_ids[i] (or KAV_NONE), each at the
 * lowest free index, returned in @idx. The caller checked that they fit
 * (max_entries - nr_valid) and that each key names a valid slot.
 */
void fake_ktable_insert(struct fake_ktable *t, const void *addrs,
			uint32_t stride, const uint32_t *lens, uint32_t count,
			const uint64_t *keys, uint64_t dflt_key,
			const uint64_t *user_ids, uint64_t *idx);
/* Is @idx a valid entry (kav_slot_valid())? */
bool fake_ktable_valid(const struct fake_ktable *t, uint64_t idx);
/* kav_table_remove() of @count valid, distinct indices. */
void fake_ktable_remove(struct fake_ktable *t, const uint64_t *idx,
			uint32_t count);
/* kav_table_set_user_id(): 0 or -EINVAL. */
int fake_ktable_set_user_id(struct fake_ktable *t, uint64_t idx,
			    uint64_t user_id);
/* kav_key_insert() with extra @flags (KAV_KEY_DOMAIN): 0, -EEXIST (with
 * *@handle), -ENOSPC. */
int fake_ktable_key_insert(struct fake_ktable *t, uint32_t vni,
			   uint32_t flags, uint64_t *handle);
/* kav_key_remove(): 0, -EINVAL, -EPERM (domain key), -EBUSY. */
int fake_ktable_key_remove(struct fake_ktable *t, uint64_t handle);
/* kav_key_revoke() of a valid slot. */
void fake_ktable_key_revoke(struct fake_ktable *t, uint64_t handle);
/* kav_key_set_user_id(): 0 or -EINVAL. */
int fake_ktable_key_set_user_id(struct fake_ktable *t, uint64_t handle,
				uint64_t user_id);
/* kav_key_find(): the slot holding @vni, or KAV_NONE. */
uint64_t fake_ktable_key_find(struct fake_ktable *t, uint32_t vni);
bool fake_ktable_key_valid(struct fake_ktable *t, uint64_t handle);
/* kav_keys_enable() (returns the keys) and kav_keys_disable(). */
uint64_t fake_ktable_keys_enable(struct fake_ktable *t);
void fake_ktable_keys_disable(struct fake_ktable *t, uint64_t keys);

/* ------------------------------------------------------------ test images */

/* A header as fake_ktable_init() writes it, with every page backed. */
void fake_table_init(void *mem, uint32_t format, uint32_t addr_max,
		     uint32_t entry_size, uint64_t max_entries);
/* Write entry @index under its seq (odd, fields, even); keys untouched. */
void fake_table_write(void *mem, uint64_t index, uint32_t flags,
		      const void *addr, uint32_t addr_len);
/* The same, also setting the entry's auth-key handle and user id. */
void fake_table_write_full(void *mem, uint64_t index, uint32_t flags,
			   const void *addr, uint32_t addr_len,
			   uint64_t auth_key, uint64_t user_id);
void fake_table_set_nr_slots(void *mem, uint64_t nr_slots);
/* Write key slot @slot under its seq and advance key_gen, as the kernel
 * does for a key change; its counts are fake_table_key_count()'s. */
void fake_table_write_key(void *mem, uint32_t slot, uint32_t flags,
			  uint32_t vni, uint64_t user_id);

#endif
