// SPDX-License-Identifier: GPL-2.0
/*
 * The page store under a table (kav_table.c) and its address index
 * (kav_index.c): the pages of t->pages, t->used and t->kindex, found by
 * key, allocated on demand (charged to the creator's memory cgroup,
 * whoever the writer is), never moved and freed only with the table, so
 * that a reader's mapping never goes stale; and where entry @idx lives in
 * them. It knows nothing of what the pages hold beyond an entry's place:
 * a caller passes the initialiser of each page it adds.
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include "kav_core.h"

/* Only for idx < t->nr_slots: the page is known to exist. */
struct kav_entry *kav_pages_entry(struct kav_table *t, u64 idx)
{
	struct page *page = xa_load(&t->pages, idx / t->entries_per_page);

	return page_address(page) + (idx % t->entries_per_page) * t->entry_size;
}

/* Back page @key of @xa (t->pages, t->used or t->kindex) with @init. */
static int kav_pages_add_one(struct kav_table *t, struct xarray *xa,
			     unsigned long key, kav_page_init_t init)
{
	struct mem_cgroup *old;
	struct page *page;
	int ret = 0;

	if (xa_load(xa, key))
		return 0;
	/*
	 * The creator pays, whoever inserts (a named AV has many writers);
	 * at the creator's limit the insert fails: a writer must never make
	 * the OOM killer pick the creator's tasks (__GFP_NORETRY).
	 */
	old = set_active_memcg(t->memcg);
	page = alloc_page(KAV_TENANT_GFP);
	if (page) {
		init(t, page_address(page));
		ret = xa_err(xa_store(xa, key, page, KAV_TENANT_GFP));
		if (ret)
			__free_page(page);
		else
			WRITE_ONCE(t->nr_pages, t->nr_pages + 1);
	} else {
		ret = -ENOMEM;
	}
	set_active_memcg(old);
	return ret;
}

/*
 * Back the pages @first..@last (inclusive) of @xa with @init, if need be.
 * On failure the pages already added stay, for the next attempt.
 */
int kav_pages_add(struct kav_table *t, struct xarray *xa,
		  unsigned long first, unsigned long last,
		  kav_page_init_t init)
{
	unsigned long key;
	int ret;

	for (key = first; key <= last; key++) {
		ret = kav_pages_add_one(t, xa, key, init);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Entry @idx for a lock-free kernel reader (kav_consumer.c, kav_index.c),
 * or NULL when the slot has no page yet: bounded by the published
 * nr_slots, as userspace readers are. Any context; the caller holds a
 * reference on the table (pages are freed only with it) and reads the
 * entry by the sequence protocol.
 */
const struct kav_entry *kav_pages_entry_lockless(struct kav_table *t,
						 u64 idx)
{
	struct page *page;

	/* Pairs with kav_table_grow(): the page exists below nr_slots. */
	if (idx >= smp_load_acquire(&t->hdr->nr_slots))
		return NULL;
	/* xa_load() is RCU-safe: the xarray frees its nodes after a grace. */
	page = xa_load(&t->pages, idx / t->entries_per_page);
	if (WARN_ON_ONCE(!page))
		return NULL;
	return page_address(page) + (idx % t->entries_per_page) * t->entry_size;
}

void kav_pages_init(struct kav_table *t)
{
	xa_init(&t->pages);
	xa_init(&t->used);
	xa_init(&t->kindex);
}

static void kav_pages_free(struct xarray *xa)
{
	struct page *page;
	unsigned long n;

	xa_for_each(xa, n, page)
		__free_page(page);
	xa_destroy(xa);
}

/* Every page of the store, with the table. */
void kav_pages_destroy(struct kav_table *t)
{
	kav_pages_free(&t->pages);
	kav_pages_free(&t->used);
	kav_pages_free(&t->kindex);
}
