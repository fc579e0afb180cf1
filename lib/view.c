// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The out-of-line half of the inline reader (<kav/kav_view.h>): setting a
 * view up, and the slow path that kav_view_resolve() takes when the index
 * is past the cached bound, the entry is being written, or the keys
 * changed. Everything the fast path answers, this answers the same way.
 */
#include "kav_priv.h"

/*
 * Cache every key slot's VNI and state, consistent with one value of the
 * header's key_gen: read key_gen, the slots, then key_gen again, and
 * start over if a key changed in between. A key change is rare (insert,
 * remove, revocation), so this converges at once.
 */
static void kav_view_sync_keys(struct kav_view *view,
			       const struct kav_table *t)
{
	struct kav_key_snap snap;
	uint64_t gen, valid, revoked;
	uint32_t slot;

	for (;;) {
		gen = __atomic_load_n(&view->hdr->key_gen, __ATOMIC_ACQUIRE);
		valid = 0;
		revoked = 0;
		for (slot = 0; slot < t->max_keys; slot++) {
			kav_table_read_key_part(t, slot, &snap, false);
			view->vni[slot] = snap.vni;
			if (!(snap.flags & KAV_KEY_VALID))
				continue;
			valid |= 1ULL << slot;
			if (snap.flags & KAV_KEY_REVOKED)
				revoked |= 1ULL << slot;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&view->hdr->key_gen,
				    __ATOMIC_RELAXED) == gen)
			break;
	}
	view->keys_valid = valid;
	view->keys_revoked = revoked;
	view->key_gen = gen;
}

KAV_API int kav_view_init(struct fid_av *av_fid, struct kav_view *view)
{
	struct kav_av *av = kav_av_from_fid(av_fid);
	const struct kav_table *t;

	if (!av || !view)
		return -FI_EINVAL;
	t = &av->table;
	memset(view, 0, sizeof(*view));
	view->av = av_fid;
	view->entries = t->entries;
	view->hdr = kav_table_header(t);
	view->entry_shift = t->entry_shift;
	view->addr_max = t->addr_max;
	/* As kav_table_reach(): below KAV_FI_ADDR_KEY, so one comparison. */
	view->bound = KAV_MIN(kav_table_nr_slots(t), KAV_FI_ADDR_KEY);
	kav_view_sync_keys(view, t);
	return 0;
}

KAV_API int kav_view_resolve_slow(struct kav_view *view, fi_addr_t fi_addr,
				  struct kav_view_entry *out)
{
	struct kav_av *av = view ? kav_av_from_fid(view->av) : NULL;
	struct kav_entry_meta meta;
	const struct kav_table *t;
	uint64_t index = fi_addr & KAV_FI_ADDR_LOW_MASK;

	if (!av || !out)
		return -FI_EINVAL;
	t = &av->table;
	if (index >= view->bound) {
		view->bound = KAV_MIN(kav_table_nr_slots(t), KAV_FI_ADDR_KEY);
		if (index >= view->bound)
			return -FI_EINVAL;	/* also key handles, NOTAVAIL */
	}
	for (;;) {
		if (__atomic_load_n(&view->hdr->key_gen, __ATOMIC_ACQUIRE) !=
		    view->key_gen)
			kav_view_sync_keys(view, t);
		/* A consistent copy of the entry, with bounded retries. */
		if (kav_av_read_valid(av, index, &meta))
			return -FI_EINVAL;
		/* The keys are those of the entry's time, or read again. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&view->hdr->key_gen, __ATOMIC_RELAXED) ==
		    view->key_gen)
			break;
	}
	out->addr = kav_table_entry(t, index)->addr;
	out->addr_len = meta.addr_len;
	out->key = meta.auth_key;
	out->user_id = meta.user_id;
	out->seq = meta.seq;
	out->vni = 0;
	if (meta.auth_key == KAV_NONE)
		return 0;
	/* A key cannot go while entries use it: not one of ours is corrupt. */
	if (meta.auth_key >= KAV_MAX_AUTH_KEYS ||
	    !((view->keys_valid >> meta.auth_key) & 1))
		return -FI_EINVAL;
	out->vni = view->vni[meta.auth_key];
	return (view->keys_revoked >> meta.auth_key) & 1 ? -FI_EKEYREJECTED : 0;
}
