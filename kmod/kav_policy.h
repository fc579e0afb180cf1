/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav policy: identities and grants, and the one authorisation rule
 * (Documentation/threat-model.rst):
 *
 *   Every binding of an address to a key is authorised against the
 *   identity doing the binding, and every resolution by a kernel consumer
 *   against the identity resolving; each needs a live grant of that
 *   identity for the key, or, for an entry without a key, allow_keyless.
 *
 * kav_rule.c is that rule (kav_may_bind(), kav_hold_grant(),
 * kav_may_resolve(), ...); nothing else in kav decides who may use a key,
 * and nothing else calls kav_grant_authorize*(), the grant list's answer.
 * This layer knows nothing of tables, AVs or files: it answers questions
 * and keeps grant accounts.
 */
#ifndef KAV_POLICY_H
#define KAV_POLICY_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/kav.h>

struct cred;
struct cgroup;
struct file;
struct ipc_namespace;

/* Who opened a domain, captured once at open() (see kav_identity.c). */
struct kav_identity {
	const struct cred *cred;
	struct cgroup *cgroup;
	u64 cgroup_id;
	u64 netns_cookie;
	struct ipc_namespace *ipc_ns;	/* held; scope of AV names */
	pid_t pid;			/* for administrators' listings */
};

/* An administrator's grant of one auth key to an identity (kav_grants.c). */
struct kav_grant {
	struct kref ref;		/* the grant list + each user */
	struct list_head node;		/* in the grant list until revoked */
	struct rcu_head rcu;		/* kernel consumers walk the list */
	u32 id;
	u32 vni;
	u32 sel_type;			/* enum kav_grant_selector */
	kuid_t uid;
	kgid_t gid;
	struct cgroup *cgroup;		/* held; KAV_SEL_CGROUP */
	u64 cgroup_id;
	u64 netns_cookie;		/* KAV_SEL_NETNS */
	u64 limit_entries;		/* 0: none; changes in place */
	u32 limit_avs;			/* 0: none; changes in place */
	char tag[KAV_TAG_MAX + 1];	/* under kav_grants_lock */
	bool wire;			/* its key applies on the wire */
	bool revoked;
	atomic64_t wire_drops;		/* packets refused to its sockets */
	atomic64_t nr_entries;		/* entries its holders wrote */
	atomic_t nr_avs;		/* key slots (AVs) it authorised */
	/*
	 * The key slots it authorised (struct kav_slot_hold), so that a
	 * revocation visits them and nothing else. The lock is held for a
	 * few stores a slot, never across a tenant's work.
	 */
	spinlock_t holders_lock;
	struct list_head holders;
};

/* kav_identity.c */
void kav_identity_capture(struct kav_identity *id, const struct file *file);
void kav_identity_release(struct kav_identity *id);
bool kav_identity_in_group(const struct kav_identity *id, kgid_t gid);

/* kav_grants.c: the grant list, accounts, denials */
enum kav_deny {
	KAV_DENY_NO_GRANT,
	KAV_DENY_REVOKED,
	KAV_DENY_KEYLESS,
	KAV_DENY_LIMIT,
	KAV_DENY_MODE,
	KAV_DENY_NR,
};

/* What GRANT_SET changes: each field only if its has_ flag is set. */
struct kav_grant_change {
	bool has_limit_entries, has_limit_avs, has_tag;
	u64 limit_entries;
	u32 limit_avs;
	char tag[KAV_TAG_MAX + 1];
};

struct kav_grant *kav_grant_add(struct kav_grant *spec, bool *updated,
				bool *unwired);
struct kav_grant *kav_grant_set(u32 id, const struct kav_grant_change *c);
struct kav_grant *kav_grant_lookup(u32 id);
unsigned int kav_grants_generation(void);
struct kav_grant *kav_grant_revoke(u32 id);
int kav_grants_walk(int (*fn)(const struct kav_grant *g, void *arg),
		    void *arg, u32 *pos);
u64 kav_grants_count(void);
struct kav_grant *kav_grant_authorize(const struct kav_identity *id,
				      u32 vni, const char *op);
bool kav_grant_authorize_rcu(const struct kav_identity *id, u32 vni);

/* What a socket carries in any context (kav_wire.c): no groups. */
struct kav_sock_owner {
	kuid_t uid;			/* INVALID_UID: a namespace's key */
	struct cgroup *cgroup;		/* NULL: a namespace's key */
	u64 netns_cookie;
};

enum kav_wire_key_status {
	KAV_WIRE_KEY_NONE,		/* no wire grant matches */
	KAV_WIRE_KEY_ONE,		/* one key (*@g a grant giving it) */
	KAV_WIRE_KEY_CONFLICT,		/* two keys: fails closed */
};

enum kav_wire_key_status kav_grant_wire_key_rcu(const struct kav_sock_owner *o,
						u32 *vni,
						struct kav_grant **g);
void kav_grant_get(struct kav_grant *g);
void kav_grant_put(struct kav_grant *g);
bool kav_grant_revoked(const struct kav_grant *g);
bool kav_grant_matches(const struct kav_grant *g,
		       const struct kav_identity *id);
int kav_grants_charge_entries(struct kav_grant * const *g, const u32 *n,
			      u64 used, const struct kav_identity *id,
			      const char *op);
int kav_grant_charge_av(struct kav_grant *g, const struct kav_identity *id,
			const char *op);
void kav_grant_uncharge(struct kav_grant *g, u64 entries, u32 avs);
void kav_deny(enum kav_deny why, const struct kav_identity *id, u32 vni,
	      const char *op);
void kav_deny_mode(const struct kav_identity *id, u32 mode, bool write);
u64 kav_deny_count(enum kav_deny why);
void kav_grants_exit(void);

/* kav_rule.c: the rule */
int kav_may_bind(const struct kav_identity *id, const struct kav_grant *hint,
		 u32 vni, const char *op);
struct kav_grant *kav_bind_grant(const struct kav_identity *id,
				 struct kav_grant *hint, u32 vni,
				 const char *op);
struct kav_grant *kav_hold_grant(const struct kav_identity *id, u32 vni,
				 const char *op);
int kav_may_bind_keyless(const struct kav_identity *id, const char *op);
bool kav_keyless_allowed(void);
int kav_may_resolve(const struct kav_identity *id,
		    const struct kav_grant *hint, bool keyed, u32 vni);

/*
 * kav_key_grants.c: an AV's accounts. Slot k was authorised by g[k] (a
 * reference), which is charged one AV for the slot. Each entry is charged
 * to the grant that authorised its *writer* for its key (kav_bind_grant()),
 * whoever authorised the slot, and given back to that same grant when the
 * entry goes (remove, or the AV's end): charges[] holds those grants with
 * their counts, owner[] (kernel-only, two bytes a slot) which charge each
 * entry is, in every AV with a keyed entry (the invariants are at the top
 * of kav_key_grants.c). The owner of the struct serialises calls (the
 * table lock).
 */
struct kav_charge {
	struct kav_grant *g;		/* a reference; NULL: a free charge */
	u64 nr;				/* entries charged to @g */
	u64 gone;			/* a removal's count, then 0 */
};

struct kav_table;

/* Slot @handle of @t is on its grant's holder list (@t NULL: it is not). */
struct kav_slot_hold {
	struct list_head node;		/* in kav_grant.holders */
	struct kav_table *t;
	u32 handle;
};

struct kav_key_grants {
	struct kav_grant *g[KAV_MAX_AUTH_KEYS];	/* written under key_lock */
	struct kav_slot_hold hold[KAV_MAX_AUTH_KEYS];
	struct kav_charge *charges;	/* [nr_charges] */
	u32 nr_charges;
	u16 **owner;			/* pages of u16: charge + 1, 0: none */
	unsigned long owner_pages;	/* pages in @owner */
	unsigned long owner_cap;	/* room for page pointers in @owner */
	u64 dropped;			/* entries of slots dropped so far */
};

/* One batch's writer grant for each key slot it uses (references). */
struct kav_batch_grants {
	struct kav_grant *g[KAV_MAX_AUTH_KEYS];
	u16 charge[KAV_MAX_AUTH_KEYS];	/* its index in charges[] */
};

struct kav_key_counts;
struct kav_insert_batch;

void kav_key_grants_hold(struct kav_key_grants *kg, struct kav_table *t,
			 u64 handle, struct kav_grant *g);
void kav_key_grants_unhold(struct kav_key_grants *kg, u64 handle,
			   struct kav_grant *g);
void kav_key_grants_set(struct kav_key_grants *kg, u64 handle,
			struct kav_grant *g);
struct kav_grant *kav_key_grants_of(const struct kav_key_grants *kg,
				    u64 handle);
void kav_key_grants_drop(struct kav_key_grants *kg, u64 handle, u64 entries);
int kav_key_grants_charge(struct kav_key_grants *kg, struct kav_table *t,
			  struct kav_batch_grants *bg,
			  const struct kav_key_counts *kc, u32 nr_new,
			  const struct kav_identity *id);
void kav_key_grants_cancel(struct kav_key_grants *kg,
			   struct kav_batch_grants *bg,
			   const struct kav_key_counts *kc);
void kav_key_grants_commit(struct kav_key_grants *kg,
			   struct kav_batch_grants *bg,
			   const struct kav_key_counts *kc,
			   const struct kav_insert_batch *b);
void kav_key_grants_remove(struct kav_key_grants *kg, const u64 *idx,
			   u32 count, const struct kav_key_counts *kc);
void kav_batch_grants_put(struct kav_batch_grants *bg);

#endif /* KAV_POLICY_H */
