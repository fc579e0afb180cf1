// SPDX-License-Identifier: GPL-2.0
/*
 * A job table's address indexes (KAV_AV_JOB, uapi/linux/kav.h). A job
 * table never removes an entry, so an entry is linked once, when it is
 * complete and valid, and never unlinked: chains only grow at their head.
 *
 * The mapped index is for readers: a chained hash table in the read-only
 * mapping, right after the entries (a job table has no fi_addr array),
 * hashed with the public kav_index_hash() and the table's published seed,
 * so that a process finds an address another one inserted without a
 * system call.
 *
 *   buckets  a __u32 per bucket: 0, or 1 + the bucket's newest entry;
 *            every page allocated (zeroed) at creation
 *   next     a __u32 per entry: 0 at a chain's end, else 1 + the next
 *            (older) entry; pages added as nr_slots grows, like entries
 *
 * Anyone who reads the header can compute addresses for one public
 * bucket, so the kernel never walks those chains. Its own find-or-insert
 * (one address, one entry on the node) uses a second index of the same
 * shape in pages nobody maps (t->kindex), hashed with siphash under a
 * random per-table key that never leaves the kernel: a tenant cannot aim
 * addresses at one of its buckets, and chains stay about entries/buckets
 * long. Walks still reschedule and give up on a fatal signal inside them.
 *
 * Both are written under t->lock (the entry's link first, then the head
 * with release semantics). The kernel index is also read without the
 * lock: an address already in the table is found lock-free, and only the
 * misses are looked up again under the lock before they are inserted.
 */
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/siphash.h>
#include <linux/string.h>
#include "kav_core.h"

#define KAV_INDEX_MIN_BUCKETS	4096U
#define KAV_INDEX_MAX_BUCKETS	BIT(22)
#define KAV_LINKS_PER_PAGE	(PAGE_SIZE / sizeof(u32))
/* Chain steps between two chances to reschedule or to see a kill. */
#define KAV_INDEX_RESCHED	256

static void kav_init_index_page(const struct kav_table *t, void *page)
{
	memset(page, 0, PAGE_SIZE);
}

/* Which of the two indexes: pages, and key of bucket page 0 / next page 0. */
struct kav_index_view {
	struct xarray *xa;
	unsigned long bucket_key, next_key;
};

static struct kav_index_view kav_mapped_index(struct kav_table *t)
{
	return (struct kav_index_view){ &t->pages, t->index_key, t->next_key };
}

/* The kernel's own index: buckets from key 0, chains after them. */
static struct kav_index_view kav_kernel_index(struct kav_table *t)
{
	return (struct kav_index_view){ &t->kindex, 0,
					t->next_key - t->index_key };
}

static int kav_index_add_next(struct kav_table *t, u64 first, u64 last)
{
	struct kav_index_view m = kav_mapped_index(t), k = kav_kernel_index(t);
	int ret;

	ret = kav_pages_add(t, m.xa, m.next_key + first / KAV_LINKS_PER_PAGE,
			    m.next_key + last / KAV_LINKS_PER_PAGE,
			    kav_init_index_page);
	if (!ret)
		ret = kav_pages_add(t, k.xa,
				    k.next_key + first / KAV_LINKS_PER_PAGE,
				    k.next_key + last / KAV_LINKS_PER_PAGE,
				    kav_init_index_page);
	return ret;
}

/*
 * Give @t (just initialised, still empty and unshared) indexes of about
 * @count buckets: the buckets' pages now, and the first page of chains,
 * so that the whole mapping of an empty table can be read; the other
 * chain pages as slots are added. On failure the pages already added are
 * freed with the table.
 */
int kav_index_init(struct kav_table *t, u64 count)
{
	u32 buckets = roundup_pow_of_two(clamp_t(u64, count,
						 KAV_INDEX_MIN_BUCKETS,
						 KAV_INDEX_MAX_BUCKETS));
	unsigned long bucket_pages = DIV_ROUND_UP(buckets, KAV_LINKS_PER_PAGE);
	unsigned long next_pages = DIV_ROUND_UP(t->max_entries,
						KAV_LINKS_PER_PAGE);
	struct kav_table_header *hdr = t->hdr;
	int ret;

	/* Mapping page n is t->pages key n - 1 (the header is page 0). */
	t->index_key = t->map_pages - 1;
	t->next_key = t->index_key + bucket_pages;
	ret = kav_pages_add(t, &t->pages, t->index_key,
			    t->next_key - 1, kav_init_index_page);
	if (!ret)
		ret = kav_pages_add(t, &t->kindex, 0, bucket_pages - 1,
				    kav_init_index_page);
	if (!ret)
		ret = kav_index_add_next(t, 0, 0);
	if (ret)
		return ret;
	get_random_bytes(&t->kindex_key, sizeof(t->kindex_key));
	t->index_buckets = buckets;
	t->map_pages += bucket_pages + next_pages;
	hdr->index_buckets = buckets;
	hdr->index_hash = KAV_INDEX_HASH_FNV1A;
	hdr->index_seed = get_random_u64();
	hdr->index_offset = (u64)(t->index_key + 1) << PAGE_SHIFT;
	hdr->index_next_offset = (u64)(t->next_key + 1) << PAGE_SHIFT;
	hdr->map_size = (u64)t->map_pages << PAGE_SHIFT;
	return 0;
}

/* Back the chain links of slots @first..@last (before nr_slots covers them). */
int kav_index_grow(struct kav_table *t, u64 first, u64 last)
{
	return kav_index_add_next(t, first, last);
}

static u32 *kav_index_link_at(const struct kav_index_view *v,
			      unsigned long key0, u64 n)
{
	struct page *page = xa_load(v->xa, key0 + n / KAV_LINKS_PER_PAGE);

	return (u32 *)page_address(page) + n % KAV_LINKS_PER_PAGE;
}

static u32 *kav_index_bucket(struct kav_table *t,
			     const struct kav_index_view *v, u32 hash)
{
	return kav_index_link_at(v, v->bucket_key,
				 hash & (t->index_buckets - 1));
}

/* Only for a linked entry @idx: its page exists. */
static u32 *kav_index_next(const struct kav_index_view *v, u64 idx)
{
	return kav_index_link_at(v, v->next_key, idx);
}

/* The public hash readers use (uapi), with this table's seed. */
static u32 kav_mapped_hash(struct kav_table *t, const u8 *addr, u32 len,
			   u64 key)
{
	return kav_index_hash(addr, len, key, t->hdr->index_seed);
}

/* The kernel's hash: nobody outside the kernel can compute it. */
static u32 kav_kernel_hash(struct kav_table *t, const u8 *addr, u32 len,
			   u64 key)
{
	u64 h = siphash(addr, len, &t->kindex_key);

	return (u32)((h ^ (h >> 32)) + key);
}

/*
 * The entry holding @addr (@len bytes) under @key, KAV_NONE, or
 * KAV_INDEX_KILLED when a fatal signal arrived during the walk. With or
 * without t->lock: linked entries are valid and never change, and the
 * chains only grow at their head (acquire pairs with kav_index_link()).
 */
static u64 kav_index_find(struct kav_table *t, const u8 *addr, u32 len,
			  u64 key, u32 khash)
{
	struct kav_index_view v = kav_kernel_index(t);
	const struct kav_entry *e;
	u64 idx, steps = 0;
	u32 link;

	/* Pairs with kav_index_push(): the chain behind a head is there. */
	link = smp_load_acquire(kav_index_bucket(t, &v, khash));

	while (link) {
		idx = link - 1;
		e = kav_pages_entry_lockless(t, idx);
		/* Each slot is linked once: a chain is below nr_slots. */
		if (WARN_ON_ONCE(!e || ++steps > t->max_entries))
			break;
		if (e->addr_len == len && e->auth_key == key &&
		    !memcmp(e->addr, addr, len))
			return idx;
		if (!(steps % KAV_INDEX_RESCHED)) {
			if (fatal_signal_pending(current))
				return KAV_INDEX_KILLED;
			cond_resched();
		}
		link = READ_ONCE(*kav_index_next(&v, idx));
	}
	return KAV_NONE;
}

/* u32s of scratch a batch of @count addresses needs: see below. */
static u32 kav_index_batch_buckets(u32 count)
{
	return roundup_pow_of_two(max(2 * count, 2U));
}

size_t kav_index_scratch_len(u32 count)
{
	return 3 * (size_t)count + kav_index_batch_buckets(count);
}

static bool kav_batch_same(const struct kav_insert_batch *b, u32 i, u32 j)
{
	return b->lens[i] == b->lens[j] &&
	       kav_batch_key(b, i) == kav_batch_key(b, j) &&
	       !memcmp(b->addrs + (size_t)i * b->stride,
		       b->addrs + (size_t)j * b->stride, b->lens[i]);
}

/* Scratch: kernel hashes [count], mapped hashes [count], then the rest. */
static u32 *kav_batch_khash(const struct kav_insert_batch *b)
{
	return b->scratch;
}

static u32 *kav_batch_mhash(const struct kav_insert_batch *b)
{
	return b->scratch + b->count;
}

/*
 * Find-or-insert, lock-free half, before t->lock is taken: each address
 * of @b already in the table gets that entry's index in b->idx[i], the
 * others KAV_INDEX_NEW; both hashes are kept in b->scratch. Every key of
 * a job table's batch is b->dflt_key, which the caller knows. -EINTR on
 * a fatal signal.
 */
int kav_index_lookup(struct kav_table *t, struct kav_insert_batch *b)
{
	u32 *khash = kav_batch_khash(b), *mhash = kav_batch_mhash(b);
	const u8 *addr;
	u64 key;
	u32 i;

	for (i = 0; i < b->count; i++) {
		if (i && !(i % KAV_INDEX_RESCHED)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
		addr = b->addrs + (size_t)i * b->stride;
		key = kav_batch_key(b, i);
		khash[i] = kav_kernel_hash(t, addr, b->lens[i], key);
		mhash[i] = kav_mapped_hash(t, addr, b->lens[i], key);
		b->idx[i] = kav_index_find(t, addr, b->lens[i], key, khash[i]);
		if (b->idx[i] == KAV_INDEX_KILLED)
			return -EINTR;
		if (b->idx[i] == KAV_NONE)
			b->idx[i] = KAV_INDEX_NEW;
	}
	return 0;
}

/*
 * Find-or-insert, under t->lock, after kav_index_lookup(): each address
 * it missed is looked up again (another writer may have added it since);
 * a repeat of an earlier new address of the batch gets KAV_INDEX_DUP |
 * its position; the others stay KAV_INDEX_NEW, counted in b->nr_new and,
 * per key, in @kc (only they are charged and stored). The batch's own
 * repeats are found in a small hash table of its new addresses in
 * b->scratch: heads and links of positions. -EINTR on a fatal signal.
 */
int kav_index_resolve(struct kav_table *t, struct kav_insert_batch *b,
		      struct kav_key_counts *kc)
{
	u32 nb = kav_index_batch_buckets(b->count);
	u32 *khash = kav_batch_khash(b);
	u32 *head = kav_batch_mhash(b) + b->count, *next = head + nb;
	u32 i, j, link;
	const u8 *addr;
	u64 idx, key;

	lockdep_assert_held(&t->lock);
	memset(head, 0, nb * sizeof(*head));
	memset(kc, 0, sizeof(*kc));
	b->nr_new = 0;
	for (i = 0; i < b->count; i++) {
		if (b->idx[i] != KAV_INDEX_NEW)
			continue;
		addr = b->addrs + (size_t)i * b->stride;
		key = kav_batch_key(b, i);
		idx = kav_index_find(t, addr, b->lens[i], key, khash[i]);
		if (idx == KAV_INDEX_KILLED)
			return -EINTR;
		if (idx != KAV_NONE) {
			b->idx[i] = idx;
			continue;
		}
		for (link = head[khash[i] & (nb - 1)]; link; link = next[j]) {
			j = link - 1;
			if (khash[j] == khash[i] && kav_batch_same(b, i, j))
				break;
		}
		if (link) {
			b->idx[i] = KAV_INDEX_DUP | j;
			continue;
		}
		next[i] = head[khash[i] & (nb - 1)];
		head[khash[i] & (nb - 1)] = i + 1;
		b->nr_new++;
		kav_key_count(kc, key);
	}
	return 0;
}

static void kav_index_push(struct kav_table *t, const struct kav_index_view *v,
			   u32 hash, u64 idx)
{
	u32 *bucket = kav_index_bucket(t, v, hash);

	WRITE_ONCE(*kav_index_next(v, idx), *bucket);
	/* The entry and its link are visible before the new head. */
	smp_store_release(bucket, (u32)idx + 1);
}

/*
 * Entry @idx, element @i of @b, is complete and valid: link it at the
 * head of its bucket in both indexes. Its link first, then the head
 * (release), so that a reader who finds it also finds the rest of the
 * chain.
 */
void kav_index_link(struct kav_table *t, const struct kav_insert_batch *b,
		    u32 i, u64 idx)
{
	struct kav_index_view m = kav_mapped_index(t), k = kav_kernel_index(t);

	lockdep_assert_held(&t->lock);
	kav_index_push(t, &m, kav_batch_mhash(b)[i], idx);
	kav_index_push(t, &k, kav_batch_khash(b)[i], idx);
}

/* After the batch: a repeat gets its first occurrence's index. */
void kav_index_fill_dups(struct kav_insert_batch *b)
{
	u32 i;

	for (i = 0; i < b->count; i++)
		if (b->idx[i] & KAV_INDEX_DUP && b->idx[i] != KAV_INDEX_NEW)
			b->idx[i] = b->idx[(u32)b->idx[i]];
}
