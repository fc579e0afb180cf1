// SPDX-License-Identifier: GPL-2.0
/*
 * Auth keys of an AV: KAV_MAX_AUTH_KEYS slots in the table's header page,
 * so that readers resolve an entry's key from the mapping like the entry
 * itself. A key's handle is its slot number. The kernel is the only
 * writer; every change is bracketed by the slot's sequence counter.
 *
 * A key cannot be removed while entries are bound to it or endpoints that
 * were enabled with it are open, so no entry or endpoint ever refers to a
 * slot that was reused. All functions run with t->lock held.
 */
#include <linux/bitops.h>
#include "kav.h"

/* Slots start here in the header page, after struct kav_table_header. */
#define KAV_KEYS_OFFSET		1024
#define KAV_KEYS_SIZE		(KAV_MAX_AUTH_KEYS * sizeof(struct kav_key_slot))

static struct kav_key_slot *kav_key_slot(struct kav_table *t, u64 handle)
{
	return (void *)t->hdr + KAV_KEYS_OFFSET +
	       handle * sizeof(struct kav_key_slot);
}

void kav_keys_init(struct kav_table *t)
{
	/* The slots fit in the header page; a u64 bitmap covers them. */
	BUILD_BUG_ON(sizeof(struct kav_table_header) > KAV_KEYS_OFFSET);
	BUILD_BUG_ON(KAV_KEYS_OFFSET + KAV_KEYS_SIZE > PAGE_SIZE);
	BUILD_BUG_ON(KAV_MAX_AUTH_KEYS > 64);
	t->hdr->keys_offset = KAV_KEYS_OFFSET;
	t->hdr->max_keys = KAV_MAX_AUTH_KEYS;
}

bool kav_key_valid(struct kav_table *t, u64 handle)
{
	return handle < KAV_MAX_AUTH_KEYS &&
	       (kav_key_slot(t, handle)->flags & KAV_KEY_VALID);
}

const struct kav_key_slot *kav_key_slot_ro(struct kav_table *t, u64 handle)
{
	return kav_key_slot(t, handle);
}

u32 kav_key_slot_flags(struct kav_table *t, u64 handle)
{
	return kav_key_slot(t, handle)->flags;
}

u32 kav_key_slot_vni(struct kav_table *t, u64 handle)
{
	return kav_key_slot(t, handle)->vni;
}

bool kav_key_revoked(struct kav_table *t, u64 handle)
{
	return kav_key_slot(t, handle)->flags & KAV_KEY_REVOKED;
}

/*
 * @n more entries for key @handle, counted against its grant: charged
 * before a batch starts (it may fail), bound once it is sure to apply.
 * A batch does each once per key, not per entry.
 */
int kav_key_charge_entries(struct kav_table *t, u64 handle, u32 n,
			   const struct kav_identity *id)
{
	return kav_grant_charge(t->key_grants[handle], n, 0, id, "insert");
}

void kav_key_uncharge_entries(struct kav_table *t, u64 handle, u32 n)
{
	kav_grant_uncharge(t->key_grants[handle], n, 0);
}

void kav_key_bind_entries(struct kav_table *t, u64 handle, u32 n)
{
	struct kav_key_slot *k = kav_key_slot(t, handle);

	kav_seq_begin(&k->seq);
	k->nr_entries += n;
	kav_seq_end(&k->seq);
}

/* @n entries of key @handle went: unbind and uncharge them. */
void kav_key_put_entries(struct kav_table *t, u64 handle, u32 n)
{
	struct kav_key_slot *k = kav_key_slot(t, handle);

	kav_grant_uncharge(t->key_grants[handle], n, 0);
	kav_seq_begin(&k->seq);
	k->nr_entries -= n;
	kav_seq_end(&k->seq);
}

/*
 * Insert @key, authorised by @grant (whose reference the slot takes over
 * on success), with extra slot @flags (KAV_KEY_DOMAIN).
 */
int kav_key_insert(struct kav_table *t, const struct kav_auth_key *key,
		   struct kav_grant *grant, u32 flags, u64 *handle)
{
	struct kav_key_slot *k;
	u64 h, free = KAV_MAX_AUTH_KEYS;

	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++) {
		k = kav_key_slot(t, h);
		if (!(k->flags & KAV_KEY_VALID)) {
			free = min(free, h);
		} else if (k->vni == key->vni) {
			*handle = h;
			return -EEXIST;
		}
	}
	if (free == KAV_MAX_AUTH_KEYS)
		return -ENOSPC;

	k = kav_key_slot(t, free);
	t->key_grants[free] = grant;
	kav_seq_begin(&k->seq);
	k->flags = KAV_KEY_VALID | flags;
	k->vni = key->vni;
	k->user_id = KAV_NONE;
	k->nr_entries = 0;
	k->nr_endpoints = 0;
	kav_seq_end(&k->seq);
	*handle = free;
	return 0;
}

int kav_key_remove(struct kav_table *t, u64 handle)
{
	struct kav_key_slot *k;

	if (!kav_key_valid(t, handle))
		return -EINVAL;
	k = kav_key_slot(t, handle);
	/* The domain's key is part of every AV of a keyed domain. */
	if (k->flags & KAV_KEY_DOMAIN)
		return -EPERM;
	if (k->nr_entries || k->nr_endpoints)
		return -EBUSY;
	kav_seq_begin(&k->seq);
	memset((u8 *)k + sizeof(k->seq), 0, sizeof(*k) - sizeof(k->seq));
	kav_seq_end(&k->seq);
	kav_grant_uncharge(t->key_grants[handle], 0, 1);
	kav_grant_put(t->key_grants[handle]);
	t->key_grants[handle] = NULL;
	return 0;
}

/* Grant @g was revoked: every slot it authorised becomes unusable. */
void kav_keys_revoke(struct kav_table *t, struct kav_grant *g)
{
	struct kav_key_slot *k;
	u64 h;

	mutex_lock(&t->lock);
	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++) {
		if (t->key_grants[h] != g)
			continue;
		k = kav_key_slot(t, h);
		kav_seq_begin(&k->seq);
		k->flags |= KAV_KEY_REVOKED;
		kav_seq_end(&k->seq);
	}
	mutex_unlock(&t->lock);
}

/* The table goes away: give back what its slots held of their grants. */
void kav_keys_destroy(struct kav_table *t)
{
	u64 h;

	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++) {
		if (!t->key_grants[h])
			continue;
		kav_grant_uncharge(t->key_grants[h],
				   kav_key_slot(t, h)->nr_entries, 1);
		kav_grant_put(t->key_grants[h]);
	}
}

int kav_key_set_user_id(struct kav_table *t, u64 handle, u64 user_id)
{
	struct kav_key_slot *k;

	if (!kav_key_valid(t, handle))
		return -EINVAL;
	k = kav_key_slot(t, handle);
	kav_seq_begin(&k->seq);
	k->user_id = user_id;
	kav_seq_end(&k->seq);
	return 0;
}

/* An endpoint is enabled: it uses every key present now. */
u64 kav_keys_enable(struct kav_table *t)
{
	struct kav_key_slot *k;
	u64 h, keys = 0;

	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++) {
		if (!kav_key_valid(t, h))
			continue;
		k = kav_key_slot(t, h);
		kav_seq_begin(&k->seq);
		k->nr_endpoints++;
		kav_seq_end(&k->seq);
		keys |= BIT_ULL(h);
	}
	return keys;
}

void kav_keys_disable(struct kav_table *t, u64 keys)
{
	struct kav_key_slot *k;
	unsigned long h;

	for_each_set_bit(h, (unsigned long *)&keys, KAV_MAX_AUTH_KEYS) {
		k = kav_key_slot(t, h);
		kav_seq_begin(&k->seq);
		k->nr_endpoints--;
		kav_seq_end(&k->seq);
	}
}
