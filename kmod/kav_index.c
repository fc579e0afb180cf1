// SPDX-License-Identifier: GPL-2.0
/*
 * A job table's address index (KAV_AV_JOB, uapi/linux/kav.h): a chained
 * hash table in the read-only mapping, right after the entries (a job
 * table has no fi_addr array: fi_addr i would be i for good), so that a
 * process finds an address another one inserted without a system call.
 *
 *   buckets  a __u32 per bucket: 0, or 1 + the bucket's newest entry;
 *            every page allocated (zeroed) at creation
 *   next     a __u32 per entry: 0 at a chain's end, else 1 + the next
 *            (older) entry; pages added as nr_slots grows, like entries
 *
 * An entry is linked once it is complete and valid (its seq even): its
 * next link first, then the bucket head with release semantics. Job
 * tables never remove, so an entry is never unlinked and a slot is linked
 * at most once: a lock-free reader only ever walks valid entries and
 * chains that only grow at their head.
 *
 * The kernel walks the same chains under t->lock to turn an insert of an
 * address already there into its index (find-or-insert): one address,
 * one entry on the node.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/string.h>
#include "kav_core.h"

#define KAV_INDEX_MIN_BUCKETS	4096U
#define KAV_INDEX_MAX_BUCKETS	BIT(22)
#define KAV_LINKS_PER_PAGE	(PAGE_SIZE / sizeof(u32))
/* Addresses resolved between two chances to reschedule. */
#define KAV_INDEX_RESCHED	256

static void kav_init_index_page(const struct kav_table *t, void *page)
{
	memset(page, 0, PAGE_SIZE);
}

/*
 * Give @t (just initialised, still empty and unshared) an index of about
 * @count buckets: the buckets' pages now, the chains' as slots are added.
 * On failure the pages already added are freed with the table.
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
	ret = kav_table_add_pages(t, &t->pages, t->index_key,
				  t->next_key - 1, kav_init_index_page);
	if (ret)
		return ret;
	t->index_buckets = buckets;
	t->map_pages += bucket_pages + next_pages;
	hdr->index_buckets = buckets;
	hdr->index_offset = (u64)(t->index_key + 1) << PAGE_SHIFT;
	hdr->index_next_offset = (u64)(t->next_key + 1) << PAGE_SHIFT;
	hdr->map_size = (u64)t->map_pages << PAGE_SHIFT;
	return 0;
}

/* Back the chain links of slots @first..@last (before nr_slots covers them). */
int kav_index_grow(struct kav_table *t, u64 first, u64 last)
{
	return kav_table_add_pages(t, &t->pages,
				   t->next_key + first / KAV_LINKS_PER_PAGE,
				   t->next_key + last / KAV_LINKS_PER_PAGE,
				   kav_init_index_page);
}

static u32 *kav_index_link_at(struct kav_table *t, unsigned long key0,
			      u64 n)
{
	struct page *page = xa_load(&t->pages, key0 + n / KAV_LINKS_PER_PAGE);

	return (u32 *)page_address(page) + n % KAV_LINKS_PER_PAGE;
}

static u32 *kav_index_bucket(struct kav_table *t, u32 hash)
{
	return kav_index_link_at(t, t->index_key,
				 hash & (t->index_buckets - 1));
}

/* Only for idx < t->nr_slots: its page exists. */
static u32 *kav_index_next(struct kav_table *t, u64 idx)
{
	return kav_index_link_at(t, t->next_key, idx);
}

/* The valid entry holding @addr (@len bytes) under @key, or KAV_NONE. */
static u64 kav_index_find(struct kav_table *t, const u8 *addr, u32 len,
			  u64 key, u32 hash)
{
	const struct kav_entry *e;
	u32 link = *kav_index_bucket(t, hash);
	u64 idx, steps = 0;

	/* Each slot is linked once: a chain is never longer than nr_slots. */
	while (link && steps++ < t->nr_slots) {
		idx = link - 1;
		if (WARN_ON_ONCE(idx >= t->nr_slots))
			break;
		e = kav_table_entry_ro(t, idx);
		if (e && e->addr_len == len && e->auth_key == key &&
		    !memcmp(e->addr, addr, len))
			return idx;
		link = *kav_index_next(t, idx);
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
	return 2 * (size_t)count + kav_index_batch_buckets(count);
}

static bool kav_batch_same(const struct kav_insert_batch *b, u32 i, u32 j)
{
	return b->lens[i] == b->lens[j] &&
	       kav_batch_key(b, i) == kav_batch_key(b, j) &&
	       !memcmp(b->addrs + (size_t)i * b->stride,
		       b->addrs + (size_t)j * b->stride, b->lens[i]);
}

/*
 * Find-or-insert, first half, before anything changes: each address of
 * @b already in the table gets that entry's index in b->idx[i]; a repeat
 * of an earlier new address of the batch KAV_INDEX_DUP | its position;
 * the others KAV_INDEX_NEW, counted in b->nr_new and, per key, in @kc
 * (only they are charged and stored). The batch's own repeats are found
 * in a small hash table of its new addresses in b->scratch: hashes
 * [count], then heads and links of positions.
 */
void kav_index_resolve(struct kav_table *t, struct kav_insert_batch *b,
		       struct kav_key_counts *kc)
{
	u32 nb = kav_index_batch_buckets(b->count);
	u32 *hash = b->scratch, *head = hash + b->count, *next = head + nb;
	u32 i, j, link;
	const u8 *addr;
	u64 idx, key;

	lockdep_assert_held(&t->lock);
	memset(head, 0, nb * sizeof(*head));
	memset(kc, 0, sizeof(*kc));
	b->nr_new = 0;
	for (i = 0; i < b->count; i++) {
		/* Chains can be long under a bad hash; stay preemptible. */
		if (i && !(i % KAV_INDEX_RESCHED))
			cond_resched();
		addr = b->addrs + (size_t)i * b->stride;
		key = kav_batch_key(b, i);
		hash[i] = kav_index_hash(addr, b->lens[i], key);
		idx = kav_index_find(t, addr, b->lens[i], key, hash[i]);
		if (idx != KAV_NONE) {
			b->idx[i] = idx;
			continue;
		}
		for (link = head[hash[i] & (nb - 1)]; link; link = next[j]) {
			j = link - 1;
			if (hash[j] == hash[i] && kav_batch_same(b, i, j))
				break;
		}
		if (link) {
			b->idx[i] = KAV_INDEX_DUP | j;
			continue;
		}
		next[i] = head[hash[i] & (nb - 1)];
		head[hash[i] & (nb - 1)] = i + 1;
		b->idx[i] = KAV_INDEX_NEW;
		b->nr_new++;
		kav_key_count(kc, key);
	}
}

/*
 * Entry @idx, element @i of @b, is complete and valid: link it at the
 * head of its bucket. Its link first, then the head (release), so that a
 * reader who finds it also finds the rest of the chain.
 */
void kav_index_link(struct kav_table *t, const struct kav_insert_batch *b,
		    u32 i, u64 idx)
{
	u32 *bucket = kav_index_bucket(t, b->scratch[i]);

	WRITE_ONCE(*kav_index_next(t, idx), *bucket);
	/* The entry and its link are visible before the new head. */
	smp_store_release(bucket, (u32)idx + 1);
}

/* After the batch: a repeat gets its first occurrence's index. */
void kav_index_fill_dups(struct kav_insert_batch *b)
{
	u32 i;

	for (i = 0; i < b->count; i++)
		if (b->idx[i] & KAV_INDEX_DUP && b->idx[i] != KAV_INDEX_NEW)
			b->idx[i] = b->idx[(u32)b->idx[i]];
}
