// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The out-of-line half of the inline reader (<kav/kav_view.h>): setting a
 * view up, and the slow path that kav_view_resolve() takes when the index
 * is past the cached bound, the entry is being written, or the keys
 * changed. Everything the fast path answers, this answers the same way.
 */
#include "kav_priv.h"
#include "av_job.h"

/*
 * Cache every key slot's VNI and state, consistent with one value of the
 * header's key_gen: read key_gen, the slots, then key_gen again, and
 * start over if a key changed in between. A key change is rare (insert,
 * remove, revocation), so this converges at once.
 */
static void kav_view_sync_keys(struct kav_view *view,
			       const struct kav_map *t)
{
	struct kav_key_snap snap;
	uint64_t gen, word;
	uint32_t slot;

	for (;;) {
		gen = __atomic_load_n(view->key_gen_word, __ATOMIC_ACQUIRE);
		view->keys[0] = 0;		/* no key: VNI 0 */
		for (slot = 0; slot < KAV_MAX_AUTH_KEYS; slot++) {
			word = KAV_VIEW_KEY_INVALID;
			if (!kav_table_read_key_part(t, slot, &snap, false) &&
			    (snap.flags & KAV_KEY_VALID)) {
				word = snap.vni;
				if (snap.flags & KAV_KEY_REVOKED)
					word |= KAV_VIEW_KEY_REVOKED;
			}
			view->keys[slot + 1] = word;
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(view->key_gen_word,
				    __ATOMIC_RELAXED) == gen)
			break;
	}
	view->key_gen = gen;
}

/* Cache nr_slots again (as kav_table_reach()); may @index be read now? */
static bool kav_view_reach(struct kav_view *view, const struct kav_map *t,
			   uint64_t index)
{
	view->bound = KAV_MIN(kav_table_nr_slots(t), KAV_FI_ADDR_KEY);
	return index < view->bound;
}

/* <kav/kav_view.h> binds the name kav_view_init to this symbol. */
KAV_API int kav_view_init(struct fid_av *av_fid, struct kav_view *view)
{
	struct kav_fid_av *av = kav_av_from_fid(av_fid);
	const struct kav_map *t;

	if (!av || !view)
		return -FI_EINVAL;
	t = &av->table;
	memset(view, 0, sizeof(*view));
	view->av = av_fid;
	view->entries = t->entries;
	view->hdr = kav_table_header(t);
	view->key_gen_word = &view->hdr->key_gen;
	view->entry_shift = t->entry_shift;
	view->addr_max = t->addr_max;
	/* As kav_table_reach(): below KAV_FI_ADDR_KEY, so one comparison. */
	view->bound = KAV_MIN(kav_table_nr_slots(t), KAV_FI_ADDR_KEY);
	/*
	 * A job AV's fi_addrs are the process's view, which the inline
	 * reader cannot check: bound 0 sends every resolve to the slow path.
	 */
	if (av->job)
		view->bound = 0;
	kav_view_sync_keys(view, t);
	return 0;
}

KAV_API int kav_view_resolve_slow(struct kav_view *view, fi_addr_t fi_addr,
				  struct kav_view_entry *out)
{
	struct kav_fid_av *av = view ? kav_av_from_fid(view->av) : NULL;
	struct kav_entry_meta meta;
	const struct kav_map *t;
	uint64_t index = fi_addr & KAV_FI_ADDR_LOW_MASK, word;

	if (!av || !out)
		return -FI_EINVAL;
	t = &av->table;
	/* Past the bound: load nr_slots again (also key handles, NOTAVAIL). */
	if (av->job) {
		if (kav_job_index(av, fi_addr, &index))
			return -FI_EINVAL;
	} else if (index >= view->bound && !kav_view_reach(view, t, index)) {
		return -FI_EINVAL;
	}
	for (;;) {
		if (__atomic_load_n(view->key_gen_word, __ATOMIC_ACQUIRE) !=
		    view->key_gen)
			kav_view_sync_keys(view, t);
		/* A consistent copy of the entry, with bounded retries. */
		if (kav_av_read_valid(av, index, &meta))
			return -FI_EINVAL;
		/* The keys are those of the entry's time, or read again. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(view->key_gen_word, __ATOMIC_RELAXED) ==
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
	if (meta.auth_key >= KAV_MAX_AUTH_KEYS)
		return -FI_EINVAL;
	word = view->keys[meta.auth_key + 1];
	if (word & KAV_VIEW_KEY_INVALID)
		return -FI_EINVAL;
	out->vni = (uint32_t)word;
	return (word & KAV_VIEW_KEY_REVOKED) ? -FI_EKEYREJECTED : 0;
}

/*
 * Bytes of struct kav_view in the version-3 header (libkav 0.1, 0.2);
 * the struct has not changed since, only the entries it reads.
 */
#define KAV_VIEW_V3_SIZE	576
_Static_assert(sizeof(struct kav_view) == KAV_VIEW_V3_SIZE,
	       "struct kav_view kept its size and layout");

/*
 * The symbol kav_view_init as programs built against the version-3
 * <kav/kav_view.h> call it: their inline reader knows the 32-byte entry
 * header, not this table's. Refuse, and leave the view empty (bound 0,
 * no AV), so that every kav_view_resolve() they inline goes to
 * kav_view_resolve_slow() and fails with -FI_EINVAL instead of reading
 * the new entries with the old offsets.
 */
KAV_API int kav_view_init_v3(struct fid_av *av_fid, struct kav_view *view)
	__asm__("kav_view_init");
KAV_API int kav_view_init_v3(struct fid_av *av_fid, struct kav_view *view)
{
	(void)av_fid;
	kav_err_clear();
	if (view)
		memset(view, 0, KAV_VIEW_V3_SIZE);
	kav_fail_warn("kav_view_init: this program was built against an old "
		      "<kav/kav_view.h> (table layout 3) and cannot read "
		      "layout %u tables: rebuild it against libkav's current "
		      "headers", KAV_TABLE_VERSION);
	return -FI_EOPNOTSUPP;
}
