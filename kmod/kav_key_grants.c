// SPDX-License-Identifier: GPL-2.0
/*
 * The grants behind an AV's key slots (struct kav_key_grants) and their
 * accounts: a slot is charged one AV to the grant that authorised it, and
 * one entry for every entry bound to it, whoever the writer (who must
 * itself pass kav_may_bind(), kav_rule.c).
 */
#include "kav_core.h"
#include "kav_policy.h"

/* Slot @handle was authorised by @g, whose reference it takes over. */
void kav_key_grants_set(struct kav_key_grants *kg, u64 handle,
			struct kav_grant *g)
{
	WARN_ON_ONCE(kg->g[handle]);
	kg->g[handle] = g;
}

struct kav_grant *kav_key_grants_of(const struct kav_key_grants *kg,
				    u64 handle)
{
	return kg->g[handle];
}

/* Slot @handle goes, with @entries still bound: give all back. */
void kav_key_grants_drop(struct kav_key_grants *kg, u64 handle, u64 entries)
{
	struct kav_grant *g = kg->g[handle];

	if (WARN_ON_ONCE(!g))
		return;
	kav_grant_uncharge(g, entries, 1);
	kav_grant_put(g);
	kg->g[handle] = NULL;
}

/* Charge each slot's grant for its entries in @kc: all or none. */
int kav_key_grants_charge(struct kav_key_grants *kg,
			  const struct kav_key_counts *kc,
			  const struct kav_identity *id)
{
	u64 used = kc->used, done = 0;
	int ret;
	u32 k;

	while (kav_key_next(&used, &k)) {
		if (WARN_ON_ONCE(!kg->g[k])) {
			ret = -EINVAL;
			goto undo;
		}
		ret = kav_grant_charge(kg->g[k], kc->n[k], 0, id, "insert");
		if (ret)
			goto undo;
		done |= BIT_ULL(k);
	}
	return 0;
undo:
	while (kav_key_next(&done, &k))
		kav_grant_uncharge(kg->g[k], kc->n[k], 0);
	return ret;
}

void kav_key_grants_uncharge(struct kav_key_grants *kg,
			     const struct kav_key_counts *kc)
{
	u64 used = kc->used;
	u32 k;

	while (kav_key_next(&used, &k))
		if (!WARN_ON_ONCE(!kg->g[k]))
			kav_grant_uncharge(kg->g[k], kc->n[k], 0);
}
