// SPDX-License-Identifier: GPL-2.0
/*
 * The AV table: a header page, entry pages and fi_addr pages (none in a
 * job table), shared read-only with userspace. Writers hold t->lock;
 * readers never lock. Pages are added as the table grows, from the page
 * store (kav_pages.c: charged to the creator, never moved, freed only
 * with the table, so a reader's mapping never goes stale). Every change
 * to an entry is bracketed by its sequence counter (odd while writing), and
 * every window of at most KAV_BATCH_WINDOW entries of a batch by the
 * header's generation counter (uapi/linux/kav.h), so that no tenant can
 * keep preemption off for longer than one window's stores. The
 * fi_addr array holds each valid entry's index, stored only once the entry
 * is complete, for readers that want an fi_addr_t array (map_addr). A job
 * table never removes, so its fi_addr[i] would be i for every slot: it
 * has no fi_addr array (fi_addrs_offset 0) and its index follows the
 * entries.
 * A kernel-only bitmap of valid slots (t->used) finds free slots without
 * reading entries.
 *
 * Which key an entry may be bound to is decided before kav_table_insert()
 * is called; the table only checks that it names a live slot.
 */
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "kav_core.h"

#define KAV_FI_ADDRS_PER_PAGE	(PAGE_SIZE / sizeof(u64))
#define KAV_USED_PER_PAGE	(PAGE_SIZE * BITS_PER_BYTE)

/* Key in t->pages of the fi_addr page for entry @idx (t->fi_addrs only). */
static unsigned long kav_fi_addr_page_key(const struct kav_table *t, u64 idx)
{
	return t->entry_pages + idx / KAV_FI_ADDRS_PER_PAGE;
}

/*
 * A batch walks its slots in order and mostly stays on one page: it
 * remembers the last page it looked up instead of asking the xarray for
 * every entry.
 */
struct kav_page_cursor {
	unsigned long key;
	void *addr;
};

static void *kav_cursor_page(struct kav_page_cursor *c, struct xarray *xa,
			     unsigned long key)
{
	if (!c->addr || c->key != key) {
		c->addr = page_address(xa_load(xa, key));
		c->key = key;
	}
	return c->addr;
}

/* Where a batch writes: its entry, fi_addr and used bitmap pages. */
struct kav_batch_cursor {
	struct kav_page_cursor entry, fi_addr, used;
};

static struct kav_entry *kav_batch_entry(struct kav_table *t,
					 struct kav_batch_cursor *c, u64 idx)
{
	return kav_cursor_page(&c->entry, &t->pages,
			       idx / t->entries_per_page) +
	       (idx % t->entries_per_page) * t->entry_size;
}

static u64 *kav_batch_fi_addr(struct kav_table *t, struct kav_batch_cursor *c,
			      u64 idx)
{
	return (u64 *)kav_cursor_page(&c->fi_addr, &t->pages,
				      kav_fi_addr_page_key(t, idx)) +
	       idx % KAV_FI_ADDRS_PER_PAGE;
}

static bool kav_slot_valid(struct kav_table *t, u64 idx)
{
	return idx < t->nr_slots &&
	       (kav_pages_entry(t, idx)->flags & KAV_ENTRY_VALID);
}

/* Changes with every change (odd while a window is being published). */
u64 kav_table_generation(const struct kav_table *t)
{
	return READ_ONCE(t->hdr->generation);
}

/*
 * A batch is published in windows: each one is bracketed by the
 * generation (odd while it is applied, +2 when done) and holds at most
 * KAV_BATCH_WINDOW entries, so preemption is off for one window's stores
 * at a time, never for a whole batch. A reader that snapshots the table
 * under the generation sees a batch applied up to a window boundary, with
 * nr_valid matching; each entry is consistent by its own seq. A change
 * of nothing (a batch whose addresses all exist) is still one window.
 */
static void kav_batch_begin(struct kav_table *t)
{
	kav_seq_begin(t, &t->hdr->generation);
}

static void kav_batch_end(struct kav_table *t)
{
	WRITE_ONCE(t->hdr->nr_valid, t->nr_valid);
	kav_seq_end(t, &t->hdr->generation);
}

/*
 * Before the batch's entry number @n (from 0): close a full window and
 * open the next, with a chance to reschedule in between (the table mutex
 * may be held across it; readers never wait for it).
 */
static void kav_batch_step(struct kav_table *t, u32 n)
{
	if (!n || n % KAV_BATCH_WINDOW)
		return;
	kav_batch_end(t);
	cond_resched();
	kav_batch_begin(t);
}

/* Entries that were never used read like cleared ones (kav_entry_clear()). */
static void kav_init_entry_page(const struct kav_table *t, void *page)
{
	struct kav_entry *e;
	u32 i;

	memset(page, 0, PAGE_SIZE);
	for (i = 0; i < t->entries_per_page; i++) {
		e = page + i * t->entry_size;
		e->auth_key = KAV_ENTRY_NO_KEY;
		e->user_id = KAV_NONE;
	}
}

/* All ones: KAV_NONE, which is FI_ADDR_NOTAVAIL. */
static void kav_init_fi_addr_page(const struct kav_table *t, void *page)
{
	memset(page, 0xff, PAGE_SIZE);
}

static void kav_init_used_page(const struct kav_table *t, void *page)
{
	memset(page, 0, PAGE_SIZE);
}

/*
 * Make slots nr_slots..@end - 1 readable: back their entry, fi_addr (if
 * any) and used pages, then publish the new bound once. On failure
 * nr_slots stays and the pages already added wait for the next attempt.
 */
static int kav_table_grow(struct kav_table *t, u64 end)
{
	u64 first = t->nr_slots, last = end - 1;
	int ret;

	ret = kav_pages_add(t, &t->pages, first / t->entries_per_page,
			    last / t->entries_per_page, kav_init_entry_page);
	if (!ret && t->fi_addrs)
		ret = kav_pages_add(t, &t->pages, kav_fi_addr_page_key(t, first),
				    kav_fi_addr_page_key(t, last),
				    kav_init_fi_addr_page);
	if (!ret)
		ret = kav_pages_add(t, &t->used, first / KAV_USED_PER_PAGE,
				    last / KAV_USED_PER_PAGE, kav_init_used_page);
	if (!ret && kav_table_indexed(t))
		ret = kav_index_grow(t, first, last);
	if (ret)
		return ret;
	t->nr_slots = end;
	/* The pages' contents are visible before the new bound. */
	smp_store_release(&t->hdr->nr_slots, t->nr_slots);
	return 0;
}

/* The used bitmap page that holds slot @idx's bit. */
static unsigned long *kav_used_page(struct kav_table *t,
				    struct kav_batch_cursor *c, u64 idx)
{
	return kav_cursor_page(&c->used, &t->used,
			       idx / KAV_USED_PER_PAGE);
}

/*
 * The lowest unused index, at or after first_free: a bitmap search, so
 * that refilling scattered holes does not read every entry in between.
 * kav_table_reserve() made sure there is one below nr_slots.
 */
static u64 kav_table_find_free(struct kav_table *t, struct kav_batch_cursor *c)
{
	u64 base, idx = t->first_free;
	unsigned long bits, bit;

	while (idx < t->nr_slots) {
		base = idx - idx % KAV_USED_PER_PAGE;
		bits = min_t(u64, KAV_USED_PER_PAGE, t->nr_slots - base);
		bit = find_next_zero_bit(kav_used_page(t, c, idx), bits,
					 idx - base);
		if (bit < bits)
			return base + bit;
		idx = base + bits;
	}
	return idx;
}

/* Store element @i of batch @b at slot @idx, bound to key @key. */
static void kav_entry_store(struct kav_table *t, struct kav_batch_cursor *c,
			    u64 idx, const struct kav_insert_batch *b, u32 i,
			    u64 key)
{
	struct kav_entry *e = kav_batch_entry(t, c, idx);
	u32 len = b->lens[i];

	kav_entry_seq_begin(t, e);
	e->flags = KAV_ENTRY_VALID;
	e->addr_len = len;
	/* Handles are below KAV_MAX_AUTH_KEYS: one byte holds them. */
	e->auth_key = key == KAV_NONE ? KAV_ENTRY_NO_KEY : key;
	e->user_id = b->user_ids ? b->user_ids[i] : KAV_NONE;
	memcpy(e->addr, b->addrs + (size_t)i * b->stride, len);
	memset(e->addr + len, 0, t->entry_size - KAV_ENTRY_HDR_SIZE - len);
	kav_entry_seq_end(t, e);
	if (t->fi_addrs)
		/* Who finds the index in fi_addr[] finds the entry. */
		smp_store_release(kav_batch_fi_addr(t, c, idx), idx);

	__set_bit(idx % KAV_USED_PER_PAGE, kav_used_page(t, c, idx));
	WRITE_ONCE(t->nr_valid, t->nr_valid + 1);
	t->first_free = idx + 1;
}

/*
 * Clear slot @idx (valid); returns the key it was bound to (KAV_NONE:
 * none). A cleared entry reads as no entry: not valid, no key, no user id.
 */
static u64 kav_entry_clear(struct kav_table *t, struct kav_batch_cursor *c,
			   u64 idx)
{
	struct kav_entry *e = kav_batch_entry(t, c, idx);
	u64 key = kav_entry_key(e);

	/* Gone from the fi_addr array first (the seq's smp_wmb() orders it). */
	if (t->fi_addrs)
		WRITE_ONCE(*kav_batch_fi_addr(t, c, idx), KAV_NONE);
	kav_entry_seq_begin(t, e);
	memset((u8 *)e + sizeof(e->seq), 0, t->entry_size - sizeof(e->seq));
	e->auth_key = KAV_ENTRY_NO_KEY;
	e->user_id = KAV_NONE;
	kav_entry_seq_end(t, e);

	__clear_bit(idx % KAV_USED_PER_PAGE, kav_used_page(t, c, idx));
	if (!WARN_ON_ONCE(!t->nr_valid))
		WRITE_ONCE(t->nr_valid, t->nr_valid - 1);
	t->first_free = min(t->first_free, idx);
	return key;
}

/*
 * A new, empty table; @fi_addrs: with an fi_addr array (every table but a
 * job table, whose entries are never removed).
 */
int kav_table_init(struct kav_table *t, u32 addr_format, u32 addr_max,
		   u64 max_entries, bool fi_addrs)
{
	struct kav_table_header *hdr;

	t->entry_size = roundup_pow_of_two(KAV_ENTRY_HDR_SIZE + addr_max);
	t->entries_per_page = PAGE_SIZE / t->entry_size;
	t->addr_format = addr_format;
	t->addr_max = addr_max;
	t->max_entries = max_entries;
	t->entry_pages = DIV_ROUND_UP(max_entries, t->entries_per_page);
	t->fi_addrs = fi_addrs;
	t->map_pages = 1 + t->entry_pages;
	if (fi_addrs)
		t->map_pages += DIV_ROUND_UP(max_entries,
					     KAV_FI_ADDRS_PER_PAGE);

	/* A full memory cgroup fails the creation; it never OOM-kills. */
	t->header_page = alloc_page(KAV_TENANT_GFP | __GFP_ZERO);
	if (!t->header_page)
		return -ENOMEM;
	mutex_init(&t->lock);
	spin_lock_init(&t->key_lock);
	kav_pages_init(t);
	t->memcg = get_mem_cgroup_from_mm(current->mm);

	hdr = page_address(t->header_page);
	hdr->magic = KAV_TABLE_MAGIC;
	hdr->version = KAV_TABLE_VERSION;
	hdr->header_size = PAGE_SIZE;
	hdr->entry_size = t->entry_size;
	hdr->addr_format = addr_format;
	hdr->addr_max = addr_max;
	hdr->max_entries = max_entries;
	hdr->map_size = t->map_pages << PAGE_SHIFT;
	/* 0: no fi_addr array. */
	if (fi_addrs)
		hdr->fi_addrs_offset = (1 + t->entry_pages) << PAGE_SHIFT;
	t->hdr = hdr;
	kav_keys_init(t);
	return 0;
}

void kav_table_destroy(struct kav_table *t)
{
	kav_pages_destroy(t);
	__free_page(t->header_page);
	mem_cgroup_put(t->memcg);
	mutex_destroy(&t->lock);
}

/*
 * Kernel bytes per entry slot: entry and fi_addr (and a used bit); a job
 * table has no fi_addr but its index's chain link (its buckets aside).
 */
u32 kav_table_entry_bytes(const struct kav_table *t)
{
	return t->entry_size + (t->fi_addrs ? sizeof(u64) : 0) +
	       (kav_table_indexed(t) ? sizeof(u32) : 0);
}

/* Back enough new slots for @count more entries (nr_slots may grow). */
static int kav_table_reserve(struct kav_table *t, u32 count)
{
	u64 holes = t->nr_slots - t->nr_valid;

	if (count <= holes)
		return 0;
	return kav_table_grow(t, t->nr_slots + (count - holes));
}

/* Can @count more entries ever fit? */
bool kav_table_has_room(struct kav_table *t, u32 count)
{
	lockdep_assert_held(&t->lock);
	return count <= t->max_entries - t->nr_valid;
}

/*
 * Insert the validated addresses of @b, each at the lowest unused index,
 * returned in @b->idx; @kc counts its entries per key, whose slots the
 * caller checked (valid, not revoked, authorised) under this lock hold.
 * All or nothing: the only failure, backing new pages, happens before the
 * batch starts, so once it starts it is applied whole (window by window:
 * a generation snapshot may see a prefix of it, never a failed batch).
 * In a job table only the @b->nr_new addresses kav_index_resolve() found
 * nowhere become entries, each linked into the index once complete.
 */
int kav_table_insert(struct kav_table *t, struct kav_insert_batch *b,
		     const struct kav_key_counts *kc)
{
	struct kav_batch_cursor c = {};
	u64 idx, used = kc->used;
	u32 i, k, n = 0;
	int ret;

	lockdep_assert_held(&t->lock);
	ret = kav_table_reserve(t, b->nr_new);
	if (ret)
		return ret;
	kav_batch_begin(t);
	/* A key counts its entries before any of them is visible. */
	while (kav_key_next(&used, &k))
		kav_key_bind_entries(t, k, kc->n[k]);
	for (i = 0; i < b->count; i++) {
		if (kav_table_indexed(t) && b->idx[i] != KAV_INDEX_NEW)
			continue;
		kav_batch_step(t, n++);
		idx = kav_table_find_free(t, &c);
		kav_entry_store(t, &c, idx, b, i, kav_batch_key(b, i));
		b->idx[i] = idx;
		if (kav_table_indexed(t))
			kav_index_link(t, b, i, idx);
	}
	kav_batch_end(t);
	if (kav_table_indexed(t))
		kav_index_fill_dups(b);
	return 0;
}

/* sort() order of two entry indexes (kav_find_repeat()). */
static int kav_idx_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Find an index that @idx names twice; report its second position. */
static int kav_find_repeat(const u64 *idx, u32 count, u32 *err_index)
{
	u64 *sorted, repeat = 0;
	bool found = false;
	u32 i, seen = 0;

	/*
	 * Taken under the table lock (a shared AV's): at the memcg limit it
	 * fails (ENOMEM) rather than OOM-kill while other writers and
	 * GRANT_DEL wait for the lock (__GFP_NORETRY).
	 */
	sorted = kvmalloc_array(count, sizeof(*sorted), KAV_TENANT_GFP);
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, idx, count * sizeof(*sorted));
	sort(sorted, count, sizeof(*sorted), kav_idx_cmp, NULL);
	for (i = 1; i < count && !found; i++) {
		found = sorted[i] == sorted[i - 1];
		repeat = sorted[i];
	}
	kvfree(sorted);
	if (!found)
		return 0;
	for (i = 0; i < count; i++)
		if (idx[i] == repeat && seen++)
			break;
	*err_index = i;
	return -EINVAL;
}

/*
 * May the entries at @idx be removed? Every index must be a valid entry
 * and none may repeat; else EINVAL with the position in *@err_index.
 */
int kav_table_check_remove(struct kav_table *t, const u64 *idx, u32 count,
			   u32 *err_index)
{
	u32 i;

	int ret;

	lockdep_assert_held(&t->lock);
	ret = kav_find_repeat(idx, count, err_index);
	if (ret)
		return ret;
	for (i = 0; i < count; i++) {
		if (!kav_slot_valid(t, idx[i])) {
			*err_index = i;
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Remove the entries at @idx, checked by kav_table_check_remove() under
 * this lock hold, in one batch (published window by window, as an
 * insert); @kc gets their count per key.
 */
void kav_table_remove(struct kav_table *t, const u64 *idx, u32 count,
		      struct kav_key_counts *kc)
{
	struct kav_batch_cursor c = {};
	u64 used;
	u32 i, k;

	lockdep_assert_held(&t->lock);
	memset(kc, 0, sizeof(*kc));
	kav_batch_begin(t);
	for (i = 0; i < count; i++) {
		kav_batch_step(t, i);
		kav_key_count(kc, kav_entry_clear(t, &c, idx[i]));
	}
	/* A key counts its entries until the last of them is gone. */
	used = kc->used;
	while (kav_key_next(&used, &k))
		kav_key_unbind_entries(t, k, kc->n[k]);
	kav_batch_end(t);
}

/* Kernel memory the table holds: its pages (the xarray nodes aside). */
u64 kav_table_bytes(const struct kav_table *t)
{
	return (1 + READ_ONCE(t->nr_pages)) * PAGE_SIZE;
}

/*
 * Entry @idx if it is a valid one, else NULL; for reading under t->lock
 * (kernel consumers).
 */
const struct kav_entry *kav_table_entry_ro(struct kav_table *t, u64 idx)
{
	lockdep_assert_held(&t->lock);
	return kav_slot_valid(t, idx) ? kav_pages_entry(t, idx) : NULL;
}

int kav_table_set_user_id(struct kav_table *t, u64 idx, u64 user_id)
{
	struct kav_entry *e;

	lockdep_assert_held(&t->lock);
	if (!kav_slot_valid(t, idx))
		return -EINVAL;
	/* A change like any batch: generation snapshots see it. */
	kav_batch_begin(t);
	e = kav_pages_entry(t, idx);
	kav_entry_seq_begin(t, e);
	e->user_id = user_id;
	kav_entry_seq_end(t, e);
	kav_batch_end(t);
	return 0;
}
