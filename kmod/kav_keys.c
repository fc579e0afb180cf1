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
 * core (kav_policy.h). All functions run with t->lock held.
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

/* A slot changed: readers that cached the slots read them again. */
static void kav_keys_changed(struct kav_table *t)
{
	/* After the slot's seq_end; t->lock serialises writers. */
	smp_store_release(&t->hdr->key_gen, t->hdr->key_gen + 1);
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
 * Put @key in the lowest free slot with extra @flags (KAV_KEY_DOMAIN).
 * EEXIST, with its handle, if the AV holds it already.
 */
int kav_key_insert(struct kav_table *t, const struct kav_auth_key *key,
		   u32 flags, u64 *handle)
{
	struct kav_key_slot *k;
	u64 h, free = KAV_MAX_AUTH_KEYS;

	lockdep_assert_held(&t->lock);
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
	kav_seq_begin(t, &k->seq);
	k->flags = KAV_KEY_VALID | flags;
	k->vni = key->vni;
	k->user_id = KAV_NONE;
	kav_seq_end(t, &k->seq);
	/* A removed slot's counts were 0; a fresh one's are. */
	WARN_ON_ONCE(kav_key_uses(t, free)->nr_entries ||
		     kav_key_uses(t, free)->nr_endpoints);
	kav_keys_changed(t);
	*handle = free;
	return 0;
}

int kav_key_remove(struct kav_table *t, u64 handle)
{
	struct kav_key_count *c;
	struct kav_key_slot *k;

	lockdep_assert_held(&t->lock);
	if (!kav_key_valid(t, handle))
		return -EINVAL;
	k = kav_key_slot(t, handle);
	/* The domain's key is part of every AV of a keyed domain. */
	if (k->flags & KAV_KEY_DOMAIN)
		return -EPERM;
	c = kav_key_uses(t, handle);
	if (c->nr_entries || c->nr_endpoints)
		return -EBUSY;
	kav_seq_begin(t, &k->seq);
	memset((u8 *)k + sizeof(k->seq), 0, sizeof(*k) - sizeof(k->seq));
	kav_seq_end(t, &k->seq);
	kav_keys_changed(t);
	return 0;
}

/* The grant behind slot @handle was revoked: the key is unusable. */
void kav_key_revoke(struct kav_table *t, u64 handle)
{
	struct kav_key_slot *k = kav_key_slot(t, handle);

	lockdep_assert_held(&t->lock);
	kav_seq_begin(t, &k->seq);
	k->flags |= KAV_KEY_REVOKED;
	kav_seq_end(t, &k->seq);
	kav_keys_changed(t);
}

int kav_key_set_user_id(struct kav_table *t, u64 handle, u64 user_id)
{
	struct kav_key_slot *k;

	lockdep_assert_held(&t->lock);
	if (!kav_key_valid(t, handle))
		return -EINVAL;
	k = kav_key_slot(t, handle);
	kav_seq_begin(t, &k->seq);
	k->user_id = user_id;
	kav_seq_end(t, &k->seq);
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
