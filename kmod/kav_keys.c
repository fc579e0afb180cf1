// SPDX-License-Identifier: GPL-2.0
/*
 * Auth keys of an AV: KAV_MAX_AUTH_KEYS slots in the table's header page,
 * so that readers resolve an entry's key from the mapping like the entry
 * itself. A key's handle is its slot number. The kernel is the only
 * writer; every change of a slot is bracketed by the slot's sequence
 * counter and then announced by advancing the header's key_gen, so that
 * readers may cache the slots while key_gen stays put. What uses a key
 * (its entry and endpoint counts) lives apart, in struct kav_key_count:
 * every batch writes it, and the slots' lines stay clean for readers.
 *
 * A key cannot be removed while entries are bound to it or endpoints that
 * were enabled with it are open, so no entry or endpoint ever refers to a
 * slot that was reused. Which grant authorised a slot is kept above the
 * core (kav_policy.h). All functions run with t->lock held, except
 * revocation: a slot's writers also hold t->key_lock, and kav_key_revoke()
 * holds only that, so that a revoke never waits for a tenant's batch. A
 * reader under t->lock alone may therefore see KAV_KEY_REVOKED appear at
 * any time (READ_ONCE); nothing else of a slot changes under it.
 */
#include <linux/bitops.h>
#include <linux/bug.h>
#include "kav_core.h"

/* Slots start here in the header page, after struct kav_table_header. */
#define KAV_KEYS_OFFSET		1024
#define KAV_KEYS_SIZE		(KAV_MAX_AUTH_KEYS * sizeof(struct kav_key_slot))
/* Their counters follow them. */
#define KAV_KEY_COUNTS_OFFSET	(KAV_KEYS_OFFSET + KAV_KEYS_SIZE)
#define KAV_KEY_COUNTS_SIZE	(KAV_MAX_AUTH_KEYS * sizeof(struct kav_key_count))

static struct kav_key_slot *kav_key_slot(struct kav_table *t, u64 handle)
{
	return (void *)t->hdr + KAV_KEYS_OFFSET +
	       handle * sizeof(struct kav_key_slot);
}

static struct kav_key_count *kav_key_uses(struct kav_table *t, u64 handle)
{
	return (void *)t->hdr + KAV_KEY_COUNTS_OFFSET +
	       handle * sizeof(struct kav_key_count);
}

void kav_keys_init(struct kav_table *t)
{
	/* The slots fit in the header page; a u64 bitmap covers them. */
	BUILD_BUG_ON(sizeof(struct kav_table_header) > KAV_KEYS_OFFSET);
	BUILD_BUG_ON(KAV_KEY_COUNTS_OFFSET + KAV_KEY_COUNTS_SIZE > PAGE_SIZE);
	BUILD_BUG_ON(KAV_MAX_AUTH_KEYS > 64);
	t->hdr->keys_offset = KAV_KEYS_OFFSET;
	t->hdr->max_keys = KAV_MAX_AUTH_KEYS;
	t->hdr->key_counts_offset = KAV_KEY_COUNTS_OFFSET;
}

/* Slot seq brackets: as kav_seq_begin/end(), under t->key_lock. */
static void kav_slot_seq_begin(struct kav_table *t, struct kav_key_slot *k)
{
	lockdep_assert_held(&t->key_lock);
	preempt_disable();
	WRITE_ONCE(k->seq, k->seq + 1);
	/* Odd seq is visible before any of the slot changes. */
	smp_wmb();
}

static void kav_slot_seq_end(struct kav_table *t, struct kav_key_slot *k)
{
	/* The slot is complete before seq turns even again. */
	smp_wmb();
	WRITE_ONCE(k->seq, k->seq + 1);
	preempt_enable();
}

/* A slot changed: readers that cached the slots read them again. */
static void kav_keys_changed(struct kav_table *t)
{
	lockdep_assert_held(&t->key_lock);
	/* After the slot's seq_end; t->key_lock serialises writers. */
	smp_store_release(&t->hdr->key_gen, t->hdr->key_gen + 1);
}

static u32 kav_slot_flags(struct kav_table *t, u64 handle)
{
	return READ_ONCE(kav_key_slot(t, handle)->flags);
}

bool kav_key_valid(struct kav_table *t, u64 handle)
{
	return handle < KAV_MAX_AUTH_KEYS &&
	       (kav_slot_flags(t, handle) & KAV_KEY_VALID);
}

/* Slot @handle (valid) was revoked: whoever reads it refuses it. */
bool kav_key_revoked(struct kav_table *t, u64 handle)
{
	return kav_slot_flags(t, handle) & KAV_KEY_REVOKED;
}

const struct kav_key_slot *kav_key_slot_ro(struct kav_table *t, u64 handle)
{
	return kav_key_slot(t, handle);
}

u32 kav_key_nr_entries(struct kav_table *t, u64 handle)
{
	return kav_key_uses(t, handle)->nr_entries;
}

/* The handle of the slot holding key @vni, or KAV_NONE. */
u64 kav_key_find(struct kav_table *t, u32 vni)
{
	u64 h;

	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++)
		if (kav_key_valid(t, h) && kav_key_slot(t, h)->vni == vni)
			return h;
	return KAV_NONE;
}

/* @n more entries are bound to key @handle (before any is visible). */
void kav_key_bind_entries(struct kav_table *t, u64 handle, u32 n)
{
	struct kav_key_count *c = kav_key_uses(t, handle);

	/* max_entries < 2^32: a slot's count cannot wrap. */
	WRITE_ONCE(c->nr_entries, c->nr_entries + n);
}

/* @n entries of key @handle went. */
void kav_key_unbind_entries(struct kav_table *t, u64 handle, u32 n)
{
	struct kav_key_count *c = kav_key_uses(t, handle);

	if (WARN_ON_ONCE(c->nr_entries < n))
		n = c->nr_entries;
	WRITE_ONCE(c->nr_entries, c->nr_entries - n);
}

/*
 * Where @key would go: the lowest free slot in *@handle, or EEXIST with
 * the handle of the slot holding it already, or ENOSPC.
 */
int kav_key_room(struct kav_table *t, const struct kav_auth_key *key,
		 u64 *handle)
{
	u64 h, free = KAV_MAX_AUTH_KEYS;

	lockdep_assert_held(&t->lock);
	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++) {
		if (!kav_key_valid(t, h)) {
			free = min(free, h);
		} else if (kav_key_slot(t, h)->vni == key->vni) {
			*handle = h;
			return -EEXIST;
		}
	}
	if (free == KAV_MAX_AUTH_KEYS)
		return -ENOSPC;
	*handle = free;
	return 0;
}

/*
 * Put @key in slot @handle, which kav_key_room() found free under this
 * t->lock hold, with extra @flags (KAV_KEY_DOMAIN).
 */
void kav_key_insert(struct kav_table *t, const struct kav_auth_key *key,
		    u32 flags, u64 free)
{
	struct kav_key_slot *k = kav_key_slot(t, free);

	lockdep_assert_held(&t->lock);
	kav_slot_seq_begin(t, k);
	WRITE_ONCE(k->flags, KAV_KEY_VALID | flags);
	k->vni = key->vni;
	k->user_id = KAV_NONE;
	kav_slot_seq_end(t, k);
	/* A removed slot's counts were 0; a fresh one's are. */
	WARN_ON_ONCE(kav_key_uses(t, free)->nr_entries ||
		     kav_key_uses(t, free)->nr_endpoints);
	kav_keys_changed(t);
}

/* May slot @handle go? Nothing may be bound to it (t->lock held). */
int kav_key_removable(struct kav_table *t, u64 handle)
{
	struct kav_key_count *c;

	lockdep_assert_held(&t->lock);
	if (!kav_key_valid(t, handle))
		return -EINVAL;
	/* The domain's key is part of every AV of a keyed domain. */
	if (kav_slot_flags(t, handle) & KAV_KEY_DOMAIN)
		return -EPERM;
	c = kav_key_uses(t, handle);
	if (c->nr_entries || c->nr_endpoints)
		return -EBUSY;
	return 0;
}

/* Empty slot @handle, which kav_key_removable() allowed. */
void kav_key_remove(struct kav_table *t, u64 handle)
{
	struct kav_key_slot *k = kav_key_slot(t, handle);

	lockdep_assert_held(&t->lock);
	kav_slot_seq_begin(t, k);
	WRITE_ONCE(k->flags, 0);
	k->vni = 0;
	k->user_id = 0;
	k->__reserved = 0;
	kav_slot_seq_end(t, k);
	kav_keys_changed(t);
}

/*
 * The grant behind slot @handle was revoked: the key is unusable. Only
 * t->key_lock held (kav_grants.c), never t->lock.
 */
void kav_key_revoke(struct kav_table *t, u64 handle)
{
	struct kav_key_slot *k = kav_key_slot(t, handle);

	kav_slot_seq_begin(t, k);
	WRITE_ONCE(k->flags, k->flags | KAV_KEY_REVOKED);
	kav_slot_seq_end(t, k);
	kav_keys_changed(t);
}

int kav_key_set_user_id(struct kav_table *t, u64 handle, u64 user_id)
{
	struct kav_key_slot *k;

	lockdep_assert_held(&t->lock);
	if (!kav_key_valid(t, handle))
		return -EINVAL;
	k = kav_key_slot(t, handle);
	spin_lock(&t->key_lock);
	kav_slot_seq_begin(t, k);
	k->user_id = user_id;
	kav_slot_seq_end(t, k);
	/* Readers that cached the slot (and ENTRY_GET's stamp) see it. */
	kav_keys_changed(t);
	spin_unlock(&t->key_lock);
	return 0;
}

/* An endpoint is enabled: it uses every key present now. */
u64 kav_keys_enable(struct kav_table *t)
{
	struct kav_key_count *c;
	u64 h, keys = 0;

	lockdep_assert_held(&t->lock);
	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++) {
		if (!kav_key_valid(t, h))
			continue;
		c = kav_key_uses(t, h);
		WRITE_ONCE(c->nr_endpoints, c->nr_endpoints + 1);
		keys |= BIT_ULL(h);
	}
	return keys;
}

void kav_keys_disable(struct kav_table *t, u64 keys)
{
	struct kav_key_count *c;
	u32 h;

	lockdep_assert_held(&t->lock);
	while (kav_key_next(&keys, &h)) {
		c = kav_key_uses(t, h);
		if (WARN_ON_ONCE(!c->nr_endpoints))
			continue;
		WRITE_ONCE(c->nr_endpoints, c->nr_endpoints - 1);
	}
}
