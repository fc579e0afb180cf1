/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav core: the AV table and nothing else. A table is a header page (with
 * the auth-key slots), entry pages and fi_addr pages (a job table has
 * none, but an address index instead), shared read-only
 * with userspace, plus a kernel-only bitmap of used slots. Writers hold
 * t->lock; readers (user mappings) never lock and follow the sequence
 * protocol of uapi/linux/kav.h.
 *
 * The core stores what it is told. It knows no identities and no grants:
 * whether a writer may bind an address to a key is decided above it
 * (kav_policy.h) before anything here is called.
 */
#ifndef KAV_CORE_H
#define KAV_CORE_H

#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <linux/kav.h>

struct mem_cgroup;
struct vm_area_struct;

struct kav_table {
	struct mutex lock;		/* serialises writers */
	/*
	 * The key slots' writers (under t->lock) and revocation (without
	 * it): a revoke never waits for a tenant's batch. Held for a few
	 * stores; inside t->lock.
	 */
	spinlock_t key_lock;
	struct page *header_page;
	struct kav_table_header *hdr;
	/*
	 * Mapping page n + 1 -> struct page: entry pages, then fi_addr pages
	 * (with fi_addrs), then a job table's index pages.
	 */
	struct xarray pages;
	/* Page n: bit i set while slot n * KAV_USED_PER_PAGE + i is valid. */
	struct xarray used;
	struct mem_cgroup *memcg;	/* the creator's: pays for the pages */
	u32 addr_format;
	u32 addr_max;
	u32 entry_size;
	u32 entries_per_page;
	bool fi_addrs;			/* has an fi_addr array (not a job) */
	u64 max_entries;
	u64 entry_pages;		/* pages of entries in the mapping */
	u64 map_pages;			/* header + entry + fi_addr + index */
	u64 nr_slots;			/* high-water mark, mirrored in hdr */
	u64 nr_valid;			/* written under lock, read by listings */
	u64 nr_pages;			/* entry, fi_addr and used pages */
	u64 first_free;			/* no free slot below this index */
	/* A job table's address index (kav_index.c); 0 buckets: none. */
	u32 index_buckets;		/* set at creation, then constant */
	unsigned long index_key;	/* t->pages key of bucket page 0 */
	unsigned long next_key;		/* t->pages key of next page 0 */
	/* The kernel's own index of a job table: pages nobody maps. */
	struct xarray kindex;
	siphash_key_t kindex_key;	/* random; never leaves the kernel */
};

/*
 * A batch of up to KAV_BATCH_MAX entries is published in windows of at
 * most this many, each its own generation bracket (+2): the longest
 * preempt-off stretch a tenant can cause is this many entries' stores
 * (64 * 512 bytes at the largest entry size), with a chance to reschedule
 * between windows. Documentation/table-layout.rst, "Writer".
 */
#define KAV_BATCH_WINDOW	64

/* Allocation flags for memory a tenant causes: charged, never OOM-kills. */
#define KAV_TENANT_GFP	(GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN)

/* Tenant paths give up on a fatal signal instead of waiting forever. */
static inline int kav_table_lock(struct kav_table *t)
{
	return mutex_lock_killable(&t->lock);
}

static inline void kav_table_unlock(struct kav_table *t)
{
	mutex_unlock(&t->lock);
}

/*
 * Sequence counters in the shared pages: odd while the protected data is
 * being written. The odd window runs with preemption off, so a reader
 * spinning on the same CPU (even SCHED_FIFO) waits for a few stores, not
 * for the writer to be scheduled again. Every window must therefore be
 * short and bounded whatever a tenant asks: a batch publishes in windows
 * of at most KAV_BATCH_WINDOW entries (kav_table.c).
 */
static inline void kav_seq_begin(struct kav_table *t, __u64 *seq)
{
	lockdep_assert_held(&t->lock);
	preempt_disable();
	WRITE_ONCE(*seq, *seq + 1);
	/* Odd seq is visible before any of the data changes. */
	smp_wmb();
}

static inline void kav_seq_end(struct kav_table *t, __u64 *seq)
{
	lockdep_assert_held(&t->lock);
	/* The data is complete before seq turns even again. */
	smp_wmb();
	WRITE_ONCE(*seq, *seq + 1);
	preempt_enable();
}

/* The same for an entry, whose seq is 32 bits (as a seqcount_t's). */
static inline void kav_entry_seq_begin(struct kav_table *t,
				       struct kav_entry *e)
{
	lockdep_assert_held(&t->lock);
	preempt_disable();
	WRITE_ONCE(e->seq, e->seq + 1);
	/* Odd seq is visible before any of the entry changes. */
	smp_wmb();
}

static inline void kav_entry_seq_end(struct kav_table *t, struct kav_entry *e)
{
	lockdep_assert_held(&t->lock);
	/* The entry is complete before seq turns even again. */
	smp_wmb();
	WRITE_ONCE(e->seq, e->seq + 1);
	preempt_enable();
}

/* The key handle entry @e is bound to, or KAV_NONE (KAV_ENTRY_NO_KEY). */
static inline u64 kav_entry_key(const struct kav_entry *e)
{
	return e->auth_key == KAV_ENTRY_NO_KEY ? KAV_NONE : e->auth_key;
}

/* Entries per key slot in one batch: keys are accounted once per batch. */
struct kav_key_counts {
	u32 n[KAV_MAX_AUTH_KEYS];
	u64 used;			/* bit k: n[k] != 0 */
};

static inline void kav_key_count(struct kav_key_counts *kc, u64 key)
{
	if (key == KAV_NONE)
		return;
	kc->n[key]++;
	kc->used |= BIT_ULL(key);
}

/* Take the lowest key handle off the bitmap *@used into *@k; false: none. */
static inline bool kav_key_next(u64 *used, u32 *k)
{
	if (!*used)
		return false;
	*k = __ffs64(*used);
	*used &= *used - 1;
	return true;
}

/* One validated, authorised batch for kav_table_insert(). */
struct kav_insert_batch {
	const u8 *addrs;		/* count * stride bytes, validated */
	u32 stride;
	u32 count;
	const u32 *lens;		/* bytes of each address */
	const u64 *keys;		/* key handle per address, or NULL */
	u64 dflt_key;			/* without @keys: every address's */
	const u64 *user_ids;		/* user id per address, or NULL */
	u64 *idx;			/* out: index of each address */
	/* Indexed tables: kav_index_resolve() fills these. */
	u32 nr_new;			/* entries the batch adds */
	u32 *scratch;			/* kav_index_scratch_len(count) u32 */
};

static inline u64 kav_batch_key(const struct kav_insert_batch *b, u32 i)
{
	return b->keys ? b->keys[i] : b->dflt_key;
}

/* Has @t an address index (a job table, KAV_AV_JOB)? Fixed at creation. */
static inline bool kav_table_indexed(const struct kav_table *t)
{
	return t->index_buckets;
}

/* kav_pages.c: the page store, under kav_table.c and kav_index.c */
typedef void (*kav_page_init_t)(const struct kav_table *t, void *page);
void kav_pages_init(struct kav_table *t);
void kav_pages_destroy(struct kav_table *t);
int kav_pages_add(struct kav_table *t, struct xarray *xa,
		  unsigned long first, unsigned long last,
		  kav_page_init_t init);
struct kav_entry *kav_pages_entry(struct kav_table *t, u64 idx);
const struct kav_entry *kav_pages_entry_lockless(struct kav_table *t,
						 u64 idx);

/* kav_table.c */
int kav_table_init(struct kav_table *t, u32 addr_format, u32 addr_max,
		   u64 max_entries, bool fi_addrs);
void kav_table_destroy(struct kav_table *t);
u32 kav_table_entry_bytes(const struct kav_table *t);
u64 kav_table_bytes(const struct kav_table *t);
u64 kav_table_generation(const struct kav_table *t);
bool kav_table_has_room(struct kav_table *t, u32 count);
int kav_table_insert(struct kav_table *t, struct kav_insert_batch *b,
		     const struct kav_key_counts *kc);
int kav_table_check_remove(struct kav_table *t, const u64 *idx, u32 count,
			   u32 *err_index);
void kav_table_remove(struct kav_table *t, const u64 *idx, u32 count,
		      struct kav_key_counts *kc);
int kav_table_set_user_id(struct kav_table *t, u64 idx, u64 user_id);
const struct kav_entry *kav_table_entry_ro(struct kav_table *t, u64 idx);

/* kav_index.c: a job table's address indexes */
/* b->idx[i] after kav_index_resolve(): a new entry, or a copy of @j's. */
#define KAV_INDEX_NEW		(~0ULL)
#define KAV_INDEX_DUP		BIT_ULL(63)
/* kav_index_find(): a fatal signal ended the walk. */
#define KAV_INDEX_KILLED	(~1ULL)
int kav_index_init(struct kav_table *t, u64 count);
int kav_index_grow(struct kav_table *t, u64 first, u64 last);
size_t kav_index_scratch_len(u32 count);
int kav_index_lookup(struct kav_table *t, struct kav_insert_batch *b);
int kav_index_resolve(struct kav_table *t, struct kav_insert_batch *b,
		      struct kav_key_counts *kc);
void kav_index_link(struct kav_table *t, const struct kav_insert_batch *b,
		    u32 i, u64 idx);
void kav_index_fill_dups(struct kav_insert_batch *b);

/* kav_table_map.c */
int kav_table_mmap(struct kav_table *t, struct vm_area_struct *vma);

/* kav_keys.c: auth-key slots in the header page; t->lock held (below) */
void kav_keys_init(struct kav_table *t);
bool kav_key_valid(struct kav_table *t, u64 handle);
const struct kav_key_slot *kav_key_slot_ro(struct kav_table *t, u64 handle);
u32 kav_key_nr_entries(struct kav_table *t, u64 handle);
u64 kav_key_find(struct kav_table *t, u32 vni);
bool kav_key_revoked(struct kav_table *t, u64 handle);
int kav_key_room(struct kav_table *t, const struct kav_auth_key *key,
		 u64 *handle);
/* Slot writers: t->lock and t->key_lock held; kav_key_revoke(): key_lock. */
void kav_key_insert(struct kav_table *t, const struct kav_auth_key *key,
		    u32 flags, u64 handle);
int kav_key_removable(struct kav_table *t, u64 handle);
void kav_key_remove(struct kav_table *t, u64 handle);
void kav_key_revoke(struct kav_table *t, u64 handle);
void kav_key_bind_entries(struct kav_table *t, u64 handle, u32 n);
void kav_key_unbind_entries(struct kav_table *t, u64 handle, u32 n);
int kav_key_set_user_id(struct kav_table *t, u64 handle, u64 user_id);
u64 kav_keys_enable(struct kav_table *t);
void kav_keys_disable(struct kav_table *t, u64 keys);

/* kav_addr.c */
int kav_addr_check_format(u32 addr_format, u32 *addr_max);
int kav_addr_validate(u32 addr_format, u32 addr_max, u8 *addr,
		      u32 stride);

#endif /* KAV_CORE_H */
