// SPDX-License-Identifier: GPL-2.0
/*
 * The authorisation rule, in one place (kav_policy.h). An identity may
 * bind an address to key @vni, or a kernel consumer acting for it resolve
 * one, when it holds a live grant for @vni; an entry without a key needs
 * the administrator's allow_keyless. Who created the AV does not matter:
 * a writer or resolver of a shared AV is held to its own grants.
 *
 * The grants behind an AV's key slots (struct kav_key_grants) are kept
 * here too, with their accounts: a slot is charged to the grant that
 * authorised it, and so is every entry bound to it.
 */
#include <linux/moduleparam.h>
#include "kav_core.h"
#include "kav_policy.h"

static bool kav_allow_keyless;
module_param_named(allow_keyless, kav_allow_keyless, bool, 0644);
MODULE_PARM_DESC(allow_keyless,
		 "Allow entries bound to no auth key (default: off)");

/* Does live grant @g give @id key @vni? (No list walk: a fast path.) */
static bool kav_grant_covers(const struct kav_grant *g,
			     const struct kav_identity *id, u32 vni)
{
	return g && g->vni == vni && !kav_grant_revoked(g) &&
	       kav_grant_matches(g, id);
}

/*
 * May @id bind an address to key @vni? @hint, if any, is a grant likely
 * to answer (the writer's domain key's) before the grant list is walked.
 * 0 or -EACCES (counted and logged).
 */
int kav_may_bind(const struct kav_identity *id, const struct kav_grant *hint,
		 u32 vni, const char *op)
{
	struct kav_grant *g;

	if (kav_grant_covers(hint, id, vni))
		return 0;
	g = kav_grant_authorize(id, vni, op);
	if (!g)
		return -EACCES;
	kav_grant_put(g);
	return 0;
}

/* May @id insert an entry bound to no key? */
int kav_may_bind_keyless(const struct kav_identity *id, const char *op)
{
	if (READ_ONCE(kav_allow_keyless))
		return 0;
	kav_deny(KAV_DENY_KEYLESS, id, 0, op);
	return -EACCES;
}

/*
 * May a kernel consumer acting for @id send to an entry bound to key @vni
 * (@keyed) or to no key? Refuses what @id could not insert itself now.
 */
int kav_may_resolve(const struct kav_identity *id,
		    const struct kav_grant *hint, bool keyed, u32 vni)
{
	if (!keyed)
		return READ_ONCE(kav_allow_keyless) ? 0 : -EACCES;
	return kav_may_bind(id, hint, vni, "resolve");
}

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
