// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kav.ko's table, byte for byte, in ordinary memory; see fake_table.h.
 * Each function names the kernel function it mirrors: when the kernel's
 * way of writing the table changes, this file changes with it, and
 * kav_layout_test says where the two part.
 */
#include <errno.h>
#include <string.h>

#include "fake_table.h"
#include "fake_index.h"

#define FAKE_FI_ADDRS_PER_PAGE	(FAKE_PAGE / sizeof(uint64_t))

static struct kav_table_header *fake_hdr(void *mem)
{
	return mem;
}

static uint64_t fake_div_round_up(uint64_t n, uint64_t d)
{
	return (n + d - 1) / d;
}

uint32_t fake_entry_size(uint32_t addr_max)
{
	uint32_t size = KAV_ENTRY_HDR_SIZE;

	while (size < KAV_ENTRY_HDR_SIZE + addr_max)
		size *= 2;
	return size;
}

static uint64_t fake_entry_pages(uint32_t entry_size, uint64_t max_entries)
{
	return fake_div_round_up(max_entries, FAKE_PAGE / entry_size);
}

size_t fake_table_entries_end(uint32_t entry_size, uint64_t max_entries)
{
	return (size_t)(1 + fake_entry_pages(entry_size, max_entries)) *
	       FAKE_PAGE;
}

size_t fake_table_size(uint32_t entry_size, uint64_t max_entries)
{
	return fake_table_entries_end(entry_size, max_entries) +
	       (size_t)fake_div_round_up(max_entries, FAKE_FI_ADDRS_PER_PAGE) *
	       FAKE_PAGE;
}

struct kav_entry *fake_table_entry(void *mem, uint64_t index)
{
	struct kav_table_header *h = fake_hdr(mem);

	return (struct kav_entry *)((uint8_t *)mem + h->header_size +
				    index * h->entry_size);
}

uint64_t *fake_table_fi_addrs(void *mem)
{
	uint64_t off = fake_hdr(mem)->fi_addrs_offset;

	return off ? (uint64_t *)((uint8_t *)mem + off) : NULL;
}

struct kav_key_slot *fake_table_key(void *mem, uint32_t slot)
{
	return (struct kav_key_slot *)((uint8_t *)mem +
				       fake_hdr(mem)->keys_offset) + slot;
}

struct kav_key_count *fake_table_key_count(void *mem, uint32_t slot)
{
	return (struct kav_key_count *)((uint8_t *)mem +
					fake_hdr(mem)->key_counts_offset) +
	       slot;
}

/* kav_seq_begin() / kav_seq_end(): odd while the data changes. */
static void fake_seq_begin(__u64 *seq)
{
	__atomic_store_n(seq, *seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void fake_seq_end(__u64 *seq)
{
	__atomic_store_n(seq, *seq + 1, __ATOMIC_RELEASE);
}

/* The same for an entry's 32-bit seq (kav_entry_seq_begin/end()). */
static void fake_entry_seq_begin(struct kav_entry *e)
{
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void fake_entry_seq_end(struct kav_entry *e)
{
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ pages */

/* kav_init_entry_page(): zero, but no key and no user id. */
static void fake_init_entry_page(void *mem, uint64_t page)
{
	struct kav_table_header *h = fake_hdr(mem);
	uint8_t *p = (uint8_t *)mem + h->header_size + page * FAKE_PAGE;
	struct kav_entry *e;
	uint32_t i;

	memset(p, 0, FAKE_PAGE);
	for (i = 0; i < FAKE_PAGE / h->entry_size; i++) {
		e = (struct kav_entry *)(p + i * h->entry_size);
		e->auth_key = KAV_ENTRY_NO_KEY;
		e->user_id = KAV_NONE;
	}
}

/* kav_init_fi_addr_page(): all KAV_NONE. */
static void fake_init_fi_addr_page(void *mem, uint64_t page)
{
	memset(fake_table_fi_addrs(mem) + page * FAKE_FI_ADDRS_PER_PAGE, 0xff,
	       FAKE_PAGE);
}

/* Back (initialise) pages [@first, @last] that slots < @backed do not. */
static void fake_add_pages(void *mem, uint64_t backed, uint64_t per_page,
			   uint64_t first, uint64_t last,
			   void (*init)(void *mem, uint64_t page))
{
	uint64_t p;

	for (p = first; p <= last; p++)
		if (!backed || p > (backed - 1) / per_page)
			init(mem, p);
}

/* kav_table_grow(): slots nr_slots..@end - 1 become readable. */
static void fake_ktable_grow(struct fake_ktable *t, uint64_t end)
{
	uint64_t epp = FAKE_PAGE / fake_hdr(t->mem)->entry_size;

	fake_add_pages(t->mem, t->nr_slots, epp, t->nr_slots / epp,
		       (end - 1) / epp, fake_init_entry_page);
	/* A job table has no fi_addr array. */
	if (fake_hdr(t->mem)->fi_addrs_offset)
		fake_add_pages(t->mem, t->nr_slots, FAKE_FI_ADDRS_PER_PAGE,
			       t->nr_slots / FAKE_FI_ADDRS_PER_PAGE,
			       (end - 1) / FAKE_FI_ADDRS_PER_PAGE,
			       fake_init_fi_addr_page);
	/* A job table's chain links grow with the slots (fake_index.c). */
	if (fake_hdr(t->mem)->index_buckets)
		fake_index_grow(t, t->nr_slots, end - 1);
	t->nr_slots = end;
	__atomic_store_n(&fake_hdr(t->mem)->nr_slots, end, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ the kernel */

static void fake_header_init(void *mem, uint32_t format, uint32_t addr_max,
			     uint32_t entry_size, uint64_t max_entries,
			     bool fi_addrs)
{
	struct kav_table_header *h = fake_hdr(mem);
	uint64_t entry_pages = fake_entry_pages(entry_size, max_entries);

	memset(mem, 0, FAKE_PAGE);		/* __GFP_ZERO */
	h->magic = KAV_TABLE_MAGIC;
	h->version = KAV_TABLE_VERSION;
	h->header_size = FAKE_PAGE;
	h->entry_size = entry_size;
	h->addr_format = format;
	h->addr_max = addr_max;
	h->max_entries = max_entries;
	/* A job table: no fi_addr array, fi_addrs_offset 0. */
	h->map_size = fi_addrs ? fake_table_size(entry_size, max_entries) :
		      fake_table_entries_end(entry_size, max_entries);
	h->fi_addrs_offset = fi_addrs ? (1 + entry_pages) * FAKE_PAGE : 0;
	/* kav_keys_init() */
	h->keys_offset = FAKE_KEYS_OFFSET;
	h->max_keys = KAV_MAX_AUTH_KEYS;
	h->key_counts_offset = FAKE_KEY_COUNTS_OFFSET;
}

void fake_ktable_init(struct fake_ktable *t, void *mem, uint32_t format,
		      uint32_t addr_max, uint64_t max_entries, bool fi_addrs)
{
	memset(t, 0, sizeof(*t));
	t->mem = mem;
	fake_header_init(mem, format, addr_max, fake_entry_size(addr_max),
			 max_entries, fi_addrs);
}

/*
 * kav_batch_begin() / kav_batch_end(): generation odd while a window of
 * a batch (at most FAKE_BATCH_WINDOW entries) is applied.
 */
static void fake_batch_begin(struct fake_ktable *t)
{
	fake_seq_begin(&fake_hdr(t->mem)->generation);
}

static void fake_batch_end(struct fake_ktable *t)
{
	struct kav_table_header *h = fake_hdr(t->mem);

	__atomic_store_n(&h->nr_valid, t->nr_valid, __ATOMIC_RELAXED);
	fake_seq_end(&h->generation);
}

/* kav_batch_step(): before entry @n of a batch, close a full window. */
static void fake_batch_step(struct fake_ktable *t, uint64_t n)
{
	if (!n || n % FAKE_BATCH_WINDOW)
		return;
	fake_batch_end(t);
	fake_batch_begin(t);
}

bool fake_ktable_valid(const struct fake_ktable *t, uint64_t idx)
{
	return idx < t->nr_slots &&
	       (fake_table_entry(t->mem, idx)->flags & KAV_ENTRY_VALID);
}

/* kav_table_find_free(): the lowest unused index from first_free. */
static uint64_t fake_ktable_find_free(struct fake_ktable *t)
{
	uint64_t idx = t->first_free;

	while (idx < t->nr_slots && fake_ktable_valid(t, idx))
		idx++;
	return idx;
}

/* kav_entry_store() */
static void fake_entry_store(struct fake_ktable *t, uint64_t idx,
			     const uint8_t *addr, uint32_t len, uint64_t key,
			     uint64_t user_id)
{
	struct kav_entry *e = fake_table_entry(t->mem, idx);
	uint32_t entry_size = fake_hdr(t->mem)->entry_size;

	fake_entry_seq_begin(e);
	e->flags = KAV_ENTRY_VALID;
	e->addr_len = (uint16_t)len;
	e->auth_key = key == KAV_NONE ? KAV_ENTRY_NO_KEY : (uint8_t)key;
	e->user_id = user_id;
	memcpy(e->addr, addr, len);
	memset(e->addr + len, 0, entry_size - KAV_ENTRY_HDR_SIZE - len);
	fake_entry_seq_end(e);
	if (fake_table_fi_addrs(t->mem))
		__atomic_store_n(&fake_table_fi_addrs(t->mem)[idx], idx,
				 __ATOMIC_RELEASE);
	t->nr_valid++;
	t->first_free = idx + 1;
}

/* kav_entry_clear(): returns the key the entry was bound to. */
static uint64_t fake_entry_clear(struct fake_ktable *t, uint64_t idx)
{
	struct kav_entry *e = fake_table_entry(t->mem, idx);
	uint32_t entry_size = fake_hdr(t->mem)->entry_size;
	uint64_t key = e->auth_key == KAV_ENTRY_NO_KEY ? KAV_NONE : e->auth_key;

	if (fake_table_fi_addrs(t->mem))
		__atomic_store_n(&fake_table_fi_addrs(t->mem)[idx], KAV_NONE,
				 __ATOMIC_RELAXED);
	fake_entry_seq_begin(e);
	memset((uint8_t *)e + sizeof(e->seq), 0, entry_size - sizeof(e->seq));
	e->auth_key = KAV_ENTRY_NO_KEY;
	e->user_id = KAV_NONE;
	fake_entry_seq_end(e);
	t->nr_valid--;
	if (idx < t->first_free)
		t->first_free = idx;
	return key;
}

/* Entries per key of a batch (struct kav_key_counts). */
struct fake_key_counts {
	uint32_t n[KAV_MAX_AUTH_KEYS];
};

void fake_ktable_insert(struct fake_ktable *t, const void *addrs,
			uint32_t stride, const uint32_t *lens, uint32_t count,
			const uint64_t *keys, uint64_t dflt_key,
			const uint64_t *user_ids, uint64_t *idx)
{
	struct fake_key_counts kc = { { 0 } };
	uint64_t holes = t->nr_slots - t->nr_valid, key, i;
	uint32_t k;

	if (!count)
		return;
	/* kav_table_reserve(): exactly as many new slots as needed. */
	if (count > holes)
		fake_ktable_grow(t, t->nr_slots + (count - holes));
	for (i = 0; i < count; i++) {
		key = keys ? keys[i] : dflt_key;
		if (key != KAV_NONE)
			kc.n[key]++;
	}
	fake_batch_begin(t);
	/* A key counts its entries before any of them is visible. */
	for (k = 0; k < KAV_MAX_AUTH_KEYS; k++)
		if (kc.n[k])
			fake_table_key_count(t->mem, k)->nr_entries += kc.n[k];
	for (i = 0; i < count; i++) {
		fake_batch_step(t, i);
		idx[i] = fake_ktable_find_free(t);
		fake_entry_store(t, idx[i],
				 (const uint8_t *)addrs + i * stride, lens[i],
				 keys ? keys[i] : dflt_key,
				 user_ids ? user_ids[i] : KAV_NONE);
	}
	fake_batch_end(t);
}

void fake_ktable_remove(struct fake_ktable *t, const uint64_t *idx,
			uint32_t count)
{
	struct fake_key_counts kc = { { 0 } };
	struct kav_key_count *c;
	uint64_t key;
	uint32_t i, k;

	fake_batch_begin(t);
	for (i = 0; i < count; i++) {
		fake_batch_step(t, i);
		key = fake_entry_clear(t, idx[i]);
		if (key != KAV_NONE)
			kc.n[key]++;
	}
	for (k = 0; k < KAV_MAX_AUTH_KEYS; k++) {
		c = fake_table_key_count(t->mem, k);
		c->nr_entries -= kc.n[k] < c->nr_entries ? kc.n[k] :
			c->nr_entries;
	}
	fake_batch_end(t);
}

int fake_ktable_set_user_id(struct fake_ktable *t, uint64_t idx,
			    uint64_t user_id)
{
	struct kav_entry *e;

	if (!fake_ktable_valid(t, idx))
		return -EINVAL;
	/* A batch of its own: generation snapshots see it. */
	fake_batch_begin(t);
	e = fake_table_entry(t->mem, idx);
	fake_entry_seq_begin(e);
	e->user_id = user_id;
	fake_entry_seq_end(e);
	fake_batch_end(t);
	return 0;
}

/* ------------------------------------------------------------ key slots */

/* kav_keys_changed(): readers that cached the slots read them again. */
static void fake_keys_changed(void *mem)
{
	struct kav_table_header *h = fake_hdr(mem);

	__atomic_store_n(&h->key_gen, h->key_gen + 1, __ATOMIC_RELEASE);
}

bool fake_ktable_key_valid(struct fake_ktable *t, uint64_t handle)
{
	return handle < KAV_MAX_AUTH_KEYS &&
	       (fake_table_key(t->mem, (uint32_t)handle)->flags &
		KAV_KEY_VALID);
}

uint64_t fake_ktable_key_find(struct fake_ktable *t, uint32_t vni)
{
	uint64_t h;

	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++)
		if (fake_ktable_key_valid(t, h) &&
		    fake_table_key(t->mem, (uint32_t)h)->vni == vni)
			return h;
	return KAV_NONE;
}

int fake_ktable_key_insert(struct fake_ktable *t, uint32_t vni,
			   uint32_t flags, uint64_t *handle)
{
	uint64_t h, free = KAV_MAX_AUTH_KEYS;
	struct kav_key_slot *k;

	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++) {
		k = fake_table_key(t->mem, (uint32_t)h);
		if (!(k->flags & KAV_KEY_VALID)) {
			if (free == KAV_MAX_AUTH_KEYS)
				free = h;
		} else if (k->vni == vni) {
			*handle = h;
			return -EEXIST;
		}
	}
	if (free == KAV_MAX_AUTH_KEYS)
		return -ENOSPC;
	k = fake_table_key(t->mem, (uint32_t)free);
	fake_seq_begin(&k->seq);
	k->flags = KAV_KEY_VALID | flags;
	k->vni = vni;
	k->user_id = KAV_NONE;
	fake_seq_end(&k->seq);
	fake_keys_changed(t->mem);
	*handle = free;
	return 0;
}

int fake_ktable_key_remove(struct fake_ktable *t, uint64_t handle)
{
	struct kav_key_count *c;
	struct kav_key_slot *k;

	if (!fake_ktable_key_valid(t, handle))
		return -EINVAL;
	k = fake_table_key(t->mem, (uint32_t)handle);
	if (k->flags & KAV_KEY_DOMAIN)
		return -EPERM;
	c = fake_table_key_count(t->mem, (uint32_t)handle);
	if (c->nr_entries || c->nr_endpoints)
		return -EBUSY;
	/* Everything but seq goes to zero, user_id included. */
	fake_seq_begin(&k->seq);
	memset((uint8_t *)k + sizeof(k->seq), 0, sizeof(*k) - sizeof(k->seq));
	fake_seq_end(&k->seq);
	fake_keys_changed(t->mem);
	return 0;
}

void fake_ktable_key_revoke(struct fake_ktable *t, uint64_t handle)
{
	struct kav_key_slot *k = fake_table_key(t->mem, (uint32_t)handle);

	fake_seq_begin(&k->seq);
	k->flags |= KAV_KEY_REVOKED;
	fake_seq_end(&k->seq);
	fake_keys_changed(t->mem);
}

int fake_ktable_key_set_user_id(struct fake_ktable *t, uint64_t handle,
				uint64_t user_id)
{
	struct kav_key_slot *k;

	if (!fake_ktable_key_valid(t, handle))
		return -EINVAL;
	k = fake_table_key(t->mem, (uint32_t)handle);
	fake_seq_begin(&k->seq);
	k->user_id = user_id;
	fake_seq_end(&k->seq);
	/* As the kernel: ENTRY_GET's stamp and slot caches see it. */
	fake_keys_changed(t->mem);
	return 0;
}

uint64_t fake_ktable_keys_enable(struct fake_ktable *t)
{
	uint64_t h, keys = 0;

	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++) {
		if (!fake_ktable_key_valid(t, h))
			continue;
		fake_table_key_count(t->mem, (uint32_t)h)->nr_endpoints++;
		keys |= 1ULL << h;
	}
	return keys;
}

void fake_ktable_keys_disable(struct fake_ktable *t, uint64_t keys)
{
	struct kav_key_count *c;
	uint32_t h;

	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++) {
		c = fake_table_key_count(t->mem, h);
		if ((keys >> h & 1) && c->nr_endpoints)
			c->nr_endpoints--;
	}
}

/* ------------------------------------------------------------ test images */

void fake_table_init(void *mem, uint32_t format, uint32_t addr_max,
		     uint32_t entry_size, uint64_t max_entries)
{
	uint64_t p;

	fake_header_init(mem, format, addr_max, entry_size, max_entries,
			 true);
	for (p = 0; p < fake_entry_pages(entry_size, max_entries); p++)
		fake_init_entry_page(mem, p);
	for (p = 0; p < fake_div_round_up(max_entries, FAKE_FI_ADDRS_PER_PAGE);
	     p++)
		fake_init_fi_addr_page(mem, p);
}

static void fake_entry_write(void *mem, uint64_t index, uint32_t flags,
			     const void *addr, uint32_t addr_len,
			     bool ids, uint64_t auth_key, uint64_t user_id)
{
	struct kav_entry *e = fake_table_entry(mem, index);
	struct kav_table_header *h = fake_hdr(mem);

	fake_entry_seq_begin(e);
	e->flags = (uint8_t)flags;
	e->addr_len = (uint16_t)addr_len;
	memset(e->addr, 0, h->entry_size - KAV_ENTRY_HDR_SIZE);
	if (addr_len)
		memcpy(e->addr, addr, addr_len);
	if (ids) {
		/* Any value but KAV_NONE lands as its low byte (tests). */
		e->auth_key = auth_key == KAV_NONE ? KAV_ENTRY_NO_KEY :
			      (uint8_t)auth_key;
		e->user_id = user_id;
	}
	fake_entry_seq_end(e);
	__atomic_store_n(&fake_table_fi_addrs(mem)[index],
			 flags & KAV_ENTRY_VALID ? index : KAV_NONE,
			 __ATOMIC_RELEASE);
}

void fake_table_write(void *mem, uint64_t index, uint32_t flags,
		      const void *addr, uint32_t addr_len)
{
	fake_entry_write(mem, index, flags, addr, addr_len, false, 0, 0);
}

void fake_table_write_full(void *mem, uint64_t index, uint32_t flags,
			   const void *addr, uint32_t addr_len,
			   uint64_t auth_key, uint64_t user_id)
{
	fake_entry_write(mem, index, flags, addr, addr_len, true, auth_key,
			 user_id);
}

void fake_table_set_nr_slots(void *mem, uint64_t nr_slots)
{
	__atomic_store_n(&fake_hdr(mem)->nr_slots, nr_slots, __ATOMIC_RELEASE);
}

void fake_table_write_key(void *mem, uint32_t slot, uint32_t flags,
			  uint32_t vni, uint64_t user_id)
{
	struct kav_key_slot *k = fake_table_key(mem, slot);

	fake_seq_begin(&k->seq);
	k->flags = flags;
	k->vni = vni;
	k->user_id = user_id;
	fake_seq_end(&k->seq);
	fake_keys_changed(mem);
}
