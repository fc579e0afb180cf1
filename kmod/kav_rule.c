// SPDX-License-Identifier: GPL-2.0
/*
 * The authorisation rule, in one place (kav_policy.h). An identity may
 * bind an address to key @vni, or a kernel consumer acting for it resolve
 * one, when it holds a live grant for @vni; an entry without a key needs
 * the administrator's allow_keyless. Who created the AV does not matter:
 * a writer or resolver of a shared AV is held to its own grants.
 */
#include <linux/err.h>
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

/*
 * kav_may_bind(), returning the grant that says yes (a reference): the
 * one a writer's entries are charged to. ERR_PTR(-EACCES) otherwise.
 */
struct kav_grant *kav_bind_grant(const struct kav_identity *id,
				 struct kav_grant *hint, u32 vni,
				 const char *op)
{
	struct kav_grant *g;

	if (kav_grant_covers(hint, id, vni)) {
		kav_grant_get(hint);
		return hint;
	}
	g = kav_grant_authorize(id, vni, op);
	return g ?: ERR_PTR(-EACCES);
}

/*
 * May @id hold key @vni itself, as a domain's key or in an AV's key slot?
 * Returns the grant that says yes (a reference, which the holder keeps
 * while it holds the key), or ERR_PTR(-EACCES), counted and logged.
 */
struct kav_grant *kav_hold_grant(const struct kav_identity *id, u32 vni,
				 const char *op)
{
	return kav_grant_authorize(id, vni, op) ?: ERR_PTR(-EACCES);
}

/* For tenants asking why (KAV_IOC_DOMAIN_WHOAMI). */
bool kav_keyless_allowed(void)
{
	return READ_ONCE(kav_allow_keyless);
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
 * Any context, no lock: the caller is in an RCU read-side critical section
 * (kav_consumer_resolve()) and holds a reference on @hint.
 */
int kav_may_resolve(const struct kav_identity *id,
		    const struct kav_grant *hint, bool keyed, u32 vni)
{
	if (!keyed)
		return READ_ONCE(kav_allow_keyless) ? 0 : -EACCES;
	if (kav_grant_covers(hint, id, vni) || kav_grant_authorize_rcu(id, vni))
		return 0;
	kav_deny(KAV_DENY_NO_GRANT, id, vni, "resolve");
	return -EACCES;
}
