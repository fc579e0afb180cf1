// SPDX-License-Identifier: GPL-2.0
/*
 * Grants: which identity may use which auth key. Only administrators add
 * and revoke them (kav_genl.c); every use of a key is checked against the
 * identity of whoever uses it (kav_rule.c).
 *
 * A key slot (and a domain key) keeps a reference to the grant that
 * authorised it, and is on the grant's holder list. Revoking a grant takes
 * it off the list, so nothing new is authorised by it, and then marks
 * every slot on its holder list revoked before returning: from then on no
 * insert under the key is accepted and no kernel consumer resolves an
 * entry bound to it. The revocation takes only spinlocks held for a few
 * stores (the holder list's, each slot's table key_lock), never a lock a
 * tenant holds across its work, so it costs what the grant authorised,
 * whatever the tenants are doing. The grant's memory lives until the
 * last slot lets go.
 *
 * Accounts never go negative: an uncharge of more than was charged is a
 * kav bug, warned about once and refused.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/lockdep.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include "kav_core.h"
#include "kav_policy.h"

static LIST_HEAD(kav_grants);
/* The list, grant ids, tags and the generation. */
static DEFINE_MUTEX(kav_grants_lock);
/*
 * Grant ids are never reused: listings name a job's table by its grant's
 * id (KAV_A_GRANT_ID). At 2^32 - 1 adds GRANT_ADD fails with ENOSPC until
 * the module is reloaded.
 */
static u32 kav_grant_next_id = 1;
/* Bumped by every change of the list: dumps flag NLM_F_DUMP_INTR. */
static unsigned int kav_grants_gen = 1;
static atomic64_t kav_denials[KAV_DENY_NR];
static const char * const kav_deny_reason[KAV_DENY_NR] = {
	[KAV_DENY_NO_GRANT] = "no grant for the key",
	[KAV_DENY_REVOKED] = "key revoked",
	[KAV_DENY_KEYLESS] = "entry without a key (allow_keyless is off)",
	[KAV_DENY_LIMIT] = "grant limit reached",
	[KAV_DENY_MODE] = "named AV mode bits",
};

/* One rate-limited line per denial: what was refused, and to whom. */
static void kav_deny_log(const struct kav_identity *id, const char *what)
{
	pr_notice_ratelimited("denied %s, pid %d uid %u gid %u cgroup %llu netns %llu\n",
			      what, id->pid,
			      from_kuid(&init_user_ns, id->cred->euid),
			      from_kgid(&init_user_ns, id->cred->egid),
			      id->cgroup_id, id->netns_cookie);
}

void kav_deny(enum kav_deny why, const struct kav_identity *id, u32 vni,
	      const char *op)
{
	char what[96];

	atomic64_inc(&kav_denials[why]);
	snprintf(what, sizeof(what), "%s: %s: vni %u", op,
		 kav_deny_reason[why], vni);
	kav_deny_log(id, what);
}

/* A named AV's mode bits refused @id (kav_names_permission()). */
void kav_deny_mode(const struct kav_identity *id, u32 mode, bool write)
{
	char what[96];

	atomic64_inc(&kav_denials[KAV_DENY_MODE]);
	snprintf(what, sizeof(what), "named AV open (%s): %s %04o",
		 write ? "read-write" : "read-only",
		 kav_deny_reason[KAV_DENY_MODE], mode);
	kav_deny_log(id, what);
}

u64 kav_deny_count(enum kav_deny why)
{
	return atomic64_read(&kav_denials[why]);
}

static void kav_grant_free(struct kref *ref)
{
	struct kav_grant *g = container_of(ref, struct kav_grant, ref);

	/* cgroups are freed after a grace period too (css_free_rwork). */
	if (g->cgroup)
		cgroup_put(g->cgroup);
	/* kav_grant_authorize_rcu() may still be looking at it. */
	kfree_rcu(g, rcu);
}

void kav_grant_get(struct kav_grant *g)
{
	kref_get(&g->ref);
}

void kav_grant_put(struct kav_grant *g)
{
	kref_put(&g->ref, kav_grant_free);
}

bool kav_grant_revoked(const struct kav_grant *g)
{
	return READ_ONCE(g->revoked);
}

bool kav_grant_matches(const struct kav_grant *g,
		       const struct kav_identity *id)
{
	switch (g->sel_type) {
	case KAV_SEL_UID:
		return uid_eq(id->cred->euid, g->uid);
	case KAV_SEL_GID:
		return kav_identity_in_group(id, g->gid);
	case KAV_SEL_CGROUP:
		return cgroup_is_descendant(id->cgroup, g->cgroup);
	case KAV_SEL_NETNS:
		return id->netns_cookie == g->netns_cookie;
	}
	return false;
}

/* Under kav_grants_lock; never 0, which netlink reads as "not set". */
static void kav_grants_changed(void)
{
	WRITE_ONCE(kav_grants_gen, kav_grants_gen + 1 ?: 1);
}

/* Do @a and @b name the same identity? */
static bool kav_grant_same_selector(const struct kav_grant *a,
				    const struct kav_grant *b)
{
	if (a->sel_type != b->sel_type)
		return false;
	switch (a->sel_type) {
	case KAV_SEL_UID:
		return uid_eq(a->uid, b->uid);
	case KAV_SEL_GID:
		return gid_eq(a->gid, b->gid);
	case KAV_SEL_CGROUP:
		return a->cgroup_id == b->cgroup_id;
	default:
		return a->netns_cookie == b->netns_cookie;
	}
}

/*
 * Does a live wire grant with @spec's selector give another key? One
 * identity has one key on the wire; overlaps through the cgroup tree are
 * found per packet instead (KAV_WIRE_KEY_CONFLICT).
 */
static bool kav_grant_wire_taken(const struct kav_grant *spec)
{
	struct kav_grant *g;

	lockdep_assert_held(&kav_grants_lock);
	list_for_each_entry(g, &kav_grants, node)
		if (g->wire && g->vni != spec->vni &&
		    kav_grant_same_selector(g, spec))
			return true;
	return false;
}

static struct kav_grant *kav_grant_find(u32 id)
{
	struct kav_grant *g;

	lockdep_assert_held(&kav_grants_lock);
	list_for_each_entry(g, &kav_grants, node)
		if (g->id == id)
			return g;
	return NULL;
}

/*
 * Add @spec, or update the live grant with its key, selector and tag:
 * that grant takes @spec's limits and wire flag (*@updated is then true;
 * *@unwired too if the flag went, the key off the wire). Returns a
 * reference for the caller. A new grant takes over @spec's cgroup
 * reference (spec->cgroup is cleared); an update leaves it to the caller.
 */
struct kav_grant *kav_grant_add(struct kav_grant *spec, bool *updated,
				bool *unwired)
{
	struct kav_grant *g, *new;

	*unwired = false;

	new = kmemdup(spec, sizeof(*spec), GFP_KERNEL);
	if (!new)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&kav_grants_lock);
	if (spec->wire && kav_grant_wire_taken(spec)) {
		mutex_unlock(&kav_grants_lock);
		kfree(new);
		return ERR_PTR(-EEXIST);
	}
	list_for_each_entry(g, &kav_grants, node) {
		if (g->vni == spec->vni && !strcmp(g->tag, spec->tag) &&
		    kav_grant_same_selector(g, spec)) {
			WRITE_ONCE(g->limit_entries, spec->limit_entries);
			WRITE_ONCE(g->limit_avs, spec->limit_avs);
			*unwired = g->wire && !spec->wire;
			WRITE_ONCE(g->wire, spec->wire);
			kav_grants_changed();
			kav_grant_get(g);
			mutex_unlock(&kav_grants_lock);
			kfree(new);
			*updated = true;
			return g;
		}
	}
	if (!kav_grant_next_id) {	/* every id was given out */
		mutex_unlock(&kav_grants_lock);
		kfree(new);
		return ERR_PTR(-ENOSPC);
	}
	spec->cgroup = NULL;
	kref_init(&new->ref);		/* the list's */
	spin_lock_init(&new->holders_lock);
	INIT_LIST_HEAD(&new->holders);
	atomic64_set(&new->nr_entries, 0);
	atomic_set(&new->nr_avs, 0);
	new->revoked = false;
	atomic64_set(&new->wire_drops, 0);
	new->id = kav_grant_next_id++;
	list_add_tail_rcu(&new->node, &kav_grants);
	kav_grants_changed();
	kav_grant_get(new);		/* the caller's, for its reply */
	mutex_unlock(&kav_grants_lock);
	*updated = false;
	return new;
}

/*
 * Would renaming @g to @tag give it another live grant's key, selector
 * and tag? GRANT_ADD finds a grant by those three (idempotent adds): two
 * grants must never share them.
 */
static bool kav_grant_tag_taken(const struct kav_grant *g, const char *tag)
{
	struct kav_grant *o;

	lockdep_assert_held(&kav_grants_lock);
	list_for_each_entry(o, &kav_grants, node)
		if (o != g && o->vni == g->vni && !strcmp(o->tag, tag) &&
		    kav_grant_same_selector(o, g))
			return true;
	return false;
}

/*
 * Change grant @id's limits or tag in place. A limit below what is in use
 * takes nothing away: it refuses new charges. Returns a reference to the
 * grant, NULL when there is no such (live) grant, or ERR_PTR(-EEXIST)
 * (nothing changed) when another grant has its key, selector and the new
 * tag.
 */
struct kav_grant *kav_grant_set(u32 id, const struct kav_grant_change *c)
{
	struct kav_grant *g;

	mutex_lock(&kav_grants_lock);
	g = kav_grant_find(id);
	if (g && c->has_tag && kav_grant_tag_taken(g, c->tag)) {
		g = ERR_PTR(-EEXIST);
	} else if (g) {
		if (c->has_limit_entries)
			WRITE_ONCE(g->limit_entries, c->limit_entries);
		if (c->has_limit_avs)
			WRITE_ONCE(g->limit_avs, c->limit_avs);
		if (c->has_tag)
			strscpy(g->tag, c->tag, sizeof(g->tag));
		kav_grants_changed();
		kav_grant_get(g);
	}
	mutex_unlock(&kav_grants_lock);
	return g;
}

/* A reference to live grant @id, or NULL. */
struct kav_grant *kav_grant_lookup(u32 id)
{
	struct kav_grant *g;

	mutex_lock(&kav_grants_lock);
	g = kav_grant_find(id);
	if (g)
		kav_grant_get(g);
	mutex_unlock(&kav_grants_lock);
	return g;
}

unsigned int kav_grants_generation(void)
{
	return READ_ONCE(kav_grants_gen);
}

/*
 * Mark every key slot @g authorised revoked. A slot being added is on the
 * holder list before its writer checks g->revoked under the same
 * key_lock (kav_key_grants_hold()): either this finds the slot written,
 * or the writer sees the grant revoked and refuses.
 */
static void kav_grant_revoke_holders(struct kav_grant *g)
{
	struct kav_slot_hold *s;

	spin_lock(&g->holders_lock);
	list_for_each_entry(s, &g->holders, node) {
		spin_lock(&s->t->key_lock);
		kav_key_revoke(s->t, s->handle);
		spin_unlock(&s->t->key_lock);
	}
	spin_unlock(&g->holders_lock);
}

/*
 * Revoke grant @id: off the list, marked revoked, then every key slot it
 * authorised is marked. Returns the grant (the list's reference, now the
 * caller's) or NULL. The caller tells kernel consumers.
 */
struct kav_grant *kav_grant_revoke(u32 id)
{
	struct kav_grant *g, *found = NULL;

	mutex_lock(&kav_grants_lock);
	list_for_each_entry(g, &kav_grants, node) {
		if (g->id == id) {
			found = g;
			list_del_rcu(&g->node);
			WRITE_ONCE(g->revoked, true);
			kav_grants_changed();
			break;
		}
	}
	mutex_unlock(&kav_grants_lock);
	if (found)
		kav_grant_revoke_holders(found);
	return found;
}

/* Call @fn for each grant with id >= *@pos; stops at a non-zero return. */
int kav_grants_walk(int (*fn)(const struct kav_grant *g, void *arg),
		    void *arg, u32 *pos)
{
	struct kav_grant *g;
	int ret = 0;

	mutex_lock(&kav_grants_lock);
	list_for_each_entry(g, &kav_grants, node) {
		if (g->id < *pos)
			continue;
		ret = fn(g, arg);
		if (ret)
			break;
		*pos = g->id + 1;
	}
	mutex_unlock(&kav_grants_lock);
	return ret;
}

u64 kav_grants_count(void)
{
	struct kav_grant *g;
	u64 n = 0;

	mutex_lock(&kav_grants_lock);
	list_for_each_entry(g, &kav_grants, node)
		n++;
	mutex_unlock(&kav_grants_lock);
	return n;
}

/*
 * May @id use key @vni? Returns a reference on the first grant that says
 * so, or NULL (the denial is counted and logged).
 */
struct kav_grant *kav_grant_authorize(const struct kav_identity *id,
				      u32 vni, const char *op)
{
	struct kav_grant *g, *found = NULL;

	mutex_lock(&kav_grants_lock);
	list_for_each_entry(g, &kav_grants, node) {
		if (g->vni == vni && kav_grant_matches(g, id)) {
			found = g;
			kav_grant_get(g);
			break;
		}
	}
	mutex_unlock(&kav_grants_lock);
	if (!found)
		kav_deny(KAV_DENY_NO_GRANT, id, vni, op);
	return found;
}

/*
 * May @id use key @vni? The same answer as kav_grant_authorize() without
 * a lock or a reference, in any context (kernel consumers): the caller is
 * in an RCU read-side critical section. A grant deleted (list_del_rcu())
 * before the section began is not seen; one deleted during it may be, and
 * kav_consumers_revoke() waits for such readers before telling consumers.
 */
bool kav_grant_authorize_rcu(const struct kav_identity *id, u32 vni)
{
	struct kav_grant *g;

	list_for_each_entry_rcu(g, &kav_grants, node)
		if (g->vni == vni && !kav_grant_revoked(g) &&
		    kav_grant_matches(g, id))
			return true;
	return false;
}

static bool kav_grant_matches_sock(const struct kav_grant *g,
				   const struct kav_sock_owner *o)
{
	switch (g->sel_type) {
	case KAV_SEL_UID:
		return uid_eq(o->uid, g->uid);
	case KAV_SEL_CGROUP:
		return o->cgroup && cgroup_is_descendant(o->cgroup, g->cgroup);
	case KAV_SEL_NETNS:
		return o->netns_cookie == g->netns_cookie;
	}
	return false;		/* a gid: a socket carries no groups */
}

/*
 * The wire key of a socket's owner @o: the key of the live wire grants
 * that match it, in any context, under RCU (as kav_grant_authorize_rcu()).
 * A grant revoked before the section began is not seen, so a revocation
 * refuses the next packet. Two keys: a conflict, no key. The list is the
 * administrator's: its length is not a tenant's to choose.
 */
enum kav_wire_key_status kav_grant_wire_key_rcu(const struct kav_sock_owner *o,
						u32 *vni,
						struct kav_grant **gp)
{
	struct kav_grant *g, *found = NULL;

	list_for_each_entry_rcu(g, &kav_grants, node) {
		if (!READ_ONCE(g->wire) || kav_grant_revoked(g) ||
		    !kav_grant_matches_sock(g, o))
			continue;
		if (found && found->vni != g->vni)
			return KAV_WIRE_KEY_CONFLICT;
		found = g;
	}
	if (!found)
		return KAV_WIRE_KEY_NONE;
	*vni = found->vni;
	*gp = found;
	return KAV_WIRE_KEY_ONE;
}

/*
 * Accounts only grow under kav_charge_lock, and a charge checks every
 * limit it touches before it adds anything: a charge that would pass a
 * limit is never added, so no counter ever shows a refused charge
 * (GRANT_GET, WHOAMI) and one tenant's refused batch never refuses
 * another's. Accounts shrink without the lock (kav_grant_uncharge()),
 * which can only keep a passed check true. A batch charges several
 * grants at once (one per key), all or none, which one compare-and-swap
 * per counter could not do without a visible undo.
 */
static DEFINE_SPINLOCK(kav_charge_lock);

/* Would @n more on top of @used pass @max (0: no limit)? */
static bool kav_over_limit(u64 used, u64 n, u64 max)
{
	return max && (used > max || n > max - used);
}

/*
 * Charge @n[k] entries to @g[k] for each bit k of @used: all or none.
 * EDQUOT (counted and logged against the first grant that refused).
 */
int kav_grants_charge_entries(struct kav_grant * const *g, const u32 *n,
			      u64 used, const struct kav_identity *id,
			      const char *op)
{
	struct kav_grant *refused = NULL;
	u64 left = used;
	u32 k;

	spin_lock(&kav_charge_lock);
	for (; left && !refused; left &= left - 1) {
		k = __ffs64(left);
		if (kav_over_limit(atomic64_read(&g[k]->nr_entries), n[k],
				   READ_ONCE(g[k]->limit_entries)))
			refused = g[k];
	}
	for (left = refused ? 0 : used; left; left &= left - 1) {
		k = __ffs64(left);
		atomic64_add(n[k], &g[k]->nr_entries);
	}
	spin_unlock(&kav_charge_lock);
	if (!refused)
		return 0;
	kav_deny(KAV_DENY_LIMIT, id, refused->vni, op);
	return -EDQUOT;
}

/* Charge one AV (a key slot) to @g; EDQUOT at its AV limit. */
int kav_grant_charge_av(struct kav_grant *g, const struct kav_identity *id,
			const char *op)
{
	bool refused;

	spin_lock(&kav_charge_lock);
	refused = kav_over_limit(atomic_read(&g->nr_avs), 1,
				 READ_ONCE(g->limit_avs));
	if (!refused)
		atomic_inc(&g->nr_avs);
	spin_unlock(&kav_charge_lock);
	if (!refused)
		return 0;
	kav_deny(KAV_DENY_LIMIT, id, g->vni, op);
	return -EDQUOT;
}

/* Take @n off @v unless that would make it negative (a bug). */
static void kav_account_sub64(atomic64_t *v, u64 n)
{
	s64 old = atomic64_read(v);

	do {
		if (WARN_ON_ONCE(old < 0 || (u64)old < n))
			return;
	} while (!atomic64_try_cmpxchg(v, &old, old - n));
}

static void kav_account_sub(atomic_t *v, u32 n)
{
	int old = atomic_read(v);

	do {
		if (WARN_ON_ONCE(old < 0 || (u32)old < n))
			return;
	} while (!atomic_try_cmpxchg(v, &old, old - n));
}

void kav_grant_uncharge(struct kav_grant *g, u64 entries, u32 avs)
{
	if (entries)
		kav_account_sub64(&g->nr_entries, entries);
	if (avs)
		kav_account_sub(&g->nr_avs, avs);
}

/* Module exit: every domain and AV is gone; drop the list's references. */
void kav_grants_exit(void)
{
	struct kav_grant *g, *tmp;

	list_for_each_entry_safe(g, tmp, &kav_grants, node) {
		list_del_rcu(&g->node);
		kav_grant_put(g);
	}
}
