// SPDX-License-Identifier: GPL-2.0
/*
 * An AV's grant accounts (struct kav_key_grants, kav_policy.h).
 *
 * A key slot is charged one AV to the grant that authorised it. An entry
 * is charged to the grant that authorised its writer for the entry's key
 * (kav_bind_grant(), kav_rule.c), which in a shared AV need not be the
 * slot's: each writer is held to its own limit and drains nobody else's.
 * The entry is given back to that same grant when it goes, whoever removes
 * it, or when the AV ends. So, for every grant, nr_entries is the number
 * of entries charged to it across all AVs, and for every AV the charges'
 * counts add up to its keyed entries.
 *
 * charges[] holds the grants an AV's entries are charged to, with a
 * reference and a count each; owner[] says, for each slot, 1 + the index
 * of its entry's charge (0: none, a keyless entry or no entry), in pages
 * the creator's memory cgroup pays for, like the table's, grown by each
 * keyed batch before it lands. The invariants, kept by every call:
 *
 *   - charges[c].nr is the number of slots whose owner is c + 1;
 *   - a slot's owner is not 0 exactly while it holds a keyed entry;
 *   - a charge holds a grant reference exactly while its nr is not 0
 *     (kav_charge_trim()), outside a batch between charge and commit.
 */
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include "kav_core.h"
#include "kav_policy.h"

#define KAV_OWNERS_PER_PAGE	(PAGE_SIZE / sizeof(u16))
/* owner[] holds 1 + a charge's index in a u16. */
#define KAV_MAX_CHARGES		(U16_MAX - 1)

/*
 * Slot @handle of @t is about to be authorised by @g: from now on a
 * revocation of @g visits it. Taken before the slot is written, so that
 * a revoke either finds the slot here or is seen by the writer
 * (kav_av_add_key(): both under t->key_lock).
 */
void kav_key_grants_hold(struct kav_key_grants *kg, struct kav_table *t,
			 u64 handle, struct kav_grant *g)
{
	struct kav_slot_hold *s = &kg->hold[handle];

	WARN_ON_ONCE(s->t);
	s->t = t;
	s->handle = handle;
	spin_lock(&g->holders_lock);
	list_add_tail(&s->node, &g->holders);
	spin_unlock(&g->holders_lock);
}

/* Revocations of @g no longer visit slot @handle (it goes). */
void kav_key_grants_unhold(struct kav_key_grants *kg, u64 handle,
			   struct kav_grant *g)
{
	struct kav_slot_hold *s = &kg->hold[handle];

	if (!s->t)
		return;
	spin_lock(&g->holders_lock);
	list_del(&s->node);
	spin_unlock(&g->holders_lock);
	s->t = NULL;
}

/* Slot @handle was authorised by @g, whose reference it takes over. */
void kav_key_grants_set(struct kav_key_grants *kg, u64 handle,
			struct kav_grant *g)
{
	WARN_ON_ONCE(kg->g[handle]);
	WRITE_ONCE(kg->g[handle], g);
}

struct kav_grant *kav_key_grants_of(const struct kav_key_grants *kg,
				    u64 handle)
{
	return kg->g[handle];
}

/* Let go of charge @c once nothing is charged to it. */
static void kav_charge_trim(struct kav_charge *c)
{
	if (c->g && !c->nr) {
		kav_grant_put(c->g);
		c->g = NULL;
	}
}

static void kav_owner_free(struct kav_key_grants *kg)
{
	unsigned long p;

	for (p = 0; p < kg->owner_pages; p++)
		free_page((unsigned long)kg->owner[p]);
	kvfree(kg->owner);
	kg->owner = NULL;
	kg->owner_pages = 0;
	kg->owner_cap = 0;
}

/* The AV's end (or its last key's): give every entry charge back. */
static void kav_key_grants_release(struct kav_key_grants *kg)
{
	struct kav_charge *c;
	u64 total = 0;
	u32 i;

	for (i = 0; i < kg->nr_charges; i++) {
		c = &kg->charges[i];
		if (!c->g)
			continue;
		total += c->nr;
		if (c->nr)
			kav_grant_uncharge(c->g, c->nr, 0);
		c->nr = 0;
		kav_charge_trim(c);
	}
	/* The slots' entry counts and the charges agree. */
	WARN_ON_ONCE(total != kg->dropped);
	kvfree(kg->charges);
	kg->charges = NULL;
	kg->nr_charges = 0;
	kav_owner_free(kg);
	kg->dropped = 0;
}

/*
 * Slot @handle goes (key removal, or the AV's end), with @entries still
 * bound to it: give back its AV. Entries are charged to their writers'
 * grants, not to the slot's: once no slot is left (no keyed entry can
 * be), every entry charge is given back at once.
 */
void kav_key_grants_drop(struct kav_key_grants *kg, u64 handle, u64 entries)
{
	struct kav_grant *g = kg->g[handle];
	u32 h;

	if (WARN_ON_ONCE(!g))
		return;
	kav_key_grants_unhold(kg, handle, g);
	kav_grant_uncharge(g, 0, 1);
	kav_grant_put(g);
	WRITE_ONCE(kg->g[handle], NULL);
	kg->dropped += entries;
	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++)
		if (kg->g[h])
			return;
	kav_key_grants_release(kg);
}

void kav_batch_grants_put(struct kav_batch_grants *bg)
{
	u32 k;

	for (k = 0; k < KAV_MAX_AUTH_KEYS; k++)
		if (bg->g[k])
			kav_grant_put(bg->g[k]);
}

/*
 * Where slot @idx's owner is recorded; NULL past what owner[] covers,
 * which only a keyless entry can be (a keyless batch grows nothing).
 */
static u16 *kav_owner(struct kav_key_grants *kg, u64 idx)
{
	if (idx / KAV_OWNERS_PER_PAGE >= kg->owner_pages)
		return NULL;
	return kg->owner[idx / KAV_OWNERS_PER_PAGE] + idx % KAV_OWNERS_PER_PAGE;
}

/*
 * Back owner[] for slots 0..@end - 1, charged to @t's creator (as the
 * table's pages). Pages already added stay on failure.
 */
static int kav_owner_grow(struct kav_key_grants *kg, struct kav_table *t,
			  u64 end)
{
	unsigned long need = DIV_ROUND_UP(end, KAV_OWNERS_PER_PAGE);
	unsigned long cap, page;
	struct mem_cgroup *old;
	u16 **owner;
	int ret = 0;

	if (need <= kg->owner_pages)
		return 0;
	old = set_active_memcg(t->memcg);
	if (need > kg->owner_cap) {
		cap = max(need, 2 * kg->owner_cap);
		owner = kvmalloc_array(cap, sizeof(*owner), KAV_TENANT_GFP);
		if (!owner) {
			ret = -ENOMEM;
			goto out;
		}
		if (kg->owner_pages)
			memcpy(owner, kg->owner,
			       kg->owner_pages * sizeof(*owner));
		kvfree(kg->owner);
		kg->owner = owner;
		kg->owner_cap = cap;
	}
	while (kg->owner_pages < need) {
		page = get_zeroed_page(KAV_TENANT_GFP);
		if (!page) {
			ret = -ENOMEM;
			break;
		}
		kg->owner[kg->owner_pages++] = (u16 *)page;
	}
out:
	set_active_memcg(old);
	return ret;
}

/* The charge of grant @g: found, or a free one taken for it (a reference). */
static int kav_charge_find(struct kav_key_grants *kg, struct kav_grant *g)
{
	struct kav_charge *c;
	u32 i, free = kg->nr_charges, nr;

	for (i = 0; i < kg->nr_charges; i++) {
		if (kg->charges[i].g == g)
			return i;
		if (!kg->charges[i].g && free == kg->nr_charges)
			free = i;
	}
	if (free == kg->nr_charges) {
		if (kg->nr_charges >= KAV_MAX_CHARGES)
			return -ENOSPC;
		nr = min_t(u32, max(4U, 2 * kg->nr_charges), KAV_MAX_CHARGES);
		c = kvcalloc(nr, sizeof(*c), KAV_TENANT_GFP);
		if (!c)
			return -ENOMEM;
		if (kg->nr_charges)
			memcpy(c, kg->charges, kg->nr_charges * sizeof(*c));
		kvfree(kg->charges);
		kg->charges = c;
		kg->nr_charges = nr;
	}
	kav_grant_get(g);
	kg->charges[free].g = g;
	return free;
}

/* Give back the charges this batch took but did not use. */
static void kav_charges_trim(struct kav_key_grants *kg,
			     const struct kav_batch_grants *bg, u64 used)
{
	u32 k;

	while (kav_key_next(&used, &k))
		if (bg->charge[k] < kg->nr_charges)
			kav_charge_trim(&kg->charges[bg->charge[k]]);
}

/*
 * Charge each key's entries of a batch (@kc, @nr_new of them new slots)
 * to the writer's grant for it (@bg), all or none, and make room to
 * record them. EDQUOT at a grant's entry limit, ENOMEM, ENOSPC. On
 * success the caller applies the batch and calls kav_key_grants_commit(),
 * or kav_key_grants_cancel() if it failed.
 */
int kav_key_grants_charge(struct kav_key_grants *kg, struct kav_table *t,
			  struct kav_batch_grants *bg,
			  const struct kav_key_counts *kc, u32 nr_new,
			  const struct kav_identity *id)
{
	u64 used = kc->used;
	int ret = 0, c;
	u32 k;

	if (!used)
		return 0;
	memset(bg->charge, 0xff, sizeof(bg->charge));
	while (kav_key_next(&used, &k)) {
		c = kav_charge_find(kg, bg->g[k]);
		if (c < 0) {
			ret = c;
			goto err;
		}
		bg->charge[k] = c;
	}
	/* Where the batch's new entries can land. */
	ret = kav_owner_grow(kg, t, t->nr_slots + nr_new);
	if (!ret)
		ret = kav_grants_charge_entries(bg->g, kc->n, kc->used, id,
						"insert");
	if (!ret)
		return 0;
err:
	kav_charges_trim(kg, bg, kc->used);
	return ret;
}

/* The batch charged by kav_key_grants_charge() failed: give all back. */
void kav_key_grants_cancel(struct kav_key_grants *kg,
			   struct kav_batch_grants *bg,
			   const struct kav_key_counts *kc)
{
	u64 used = kc->used;
	u32 k;

	while (kav_key_next(&used, &k))
		kav_grant_uncharge(bg->g[k], kc->n[k], 0);
	kav_charges_trim(kg, bg, kc->used);
}

/*
 * The batch @b charged by kav_key_grants_charge() is in: count its
 * entries to their charges and record each new one's owner.
 * An entry the batch did not add (a job table's known address) already
 * has its owner; a new slot's owner is 0.
 */
void kav_key_grants_commit(struct kav_key_grants *kg,
			   struct kav_batch_grants *bg,
			   const struct kav_key_counts *kc,
			   const struct kav_insert_batch *b)
{
	u64 key, used = kc->used, n = 0, want = 0;
	u16 *o;
	u32 i, k;

	if (!used)
		return;
	while (kav_key_next(&used, &k)) {
		kg->charges[bg->charge[k]].nr += kc->n[k];
		want += kc->n[k];
	}
	for (i = 0; i < b->count; i++) {
		key = kav_batch_key(b, i);
		if (key == KAV_NONE)
			continue;
		o = kav_owner(kg, b->idx[i]);
		if (!WARN_ON_ONCE(!o) && !*o) {
			*o = bg->charge[key] + 1;
			n++;
		}
	}
	WARN_ON_ONCE(n != want);
}

/*
 * The entries at @idx (@kc of them per key) were removed: give each back
 * to the grant it was charged to, whoever removed it.
 */
void kav_key_grants_remove(struct kav_key_grants *kg, const u64 *idx,
			   u32 count, const struct kav_key_counts *kc)
{
	u64 used = kc->used, want = 0, n = 0;
	struct kav_charge *c;
	u32 i, k;
	u16 *o;

	while (kav_key_next(&used, &k))
		want += kc->n[k];
	if (!want)
		return;
	for (i = 0; i < count; i++) {
		o = kav_owner(kg, idx[i]);
		if (!o || !*o)
			continue;
		if (!WARN_ON_ONCE(*o > kg->nr_charges))
			kg->charges[*o - 1].gone++;
		*o = 0;
	}
	for (i = 0; i < kg->nr_charges; i++) {
		c = &kg->charges[i];
		if (!c->gone)
			continue;
		n += c->gone;
		if (!WARN_ON_ONCE(!c->g || c->gone > c->nr)) {
			kav_grant_uncharge(c->g, c->gone, 0);
			c->nr -= c->gone;
			kav_charge_trim(c);
		}
		c->gone = 0;
	}
	WARN_ON_ONCE(n != want);
}
