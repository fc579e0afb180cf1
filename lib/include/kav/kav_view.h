/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * <kav/kav_view.h> - the data path's inline reader (included by kav.h).
 *
 * A fabric provider resolves an fi_addr_t on every send. kav_view_resolve()
 * does it inline, over a small per-endpoint view of the AV's read-only
 * table mapping: no call, no system call, no lock, no copy.
 *
 *	struct kav_view view;
 *	kav_ep_enable(ep);                  (the keys the endpoint uses)
 *	kav_view_init(av, &view);           (caches bound, layout, key VNIs)
 *	...
 *	struct kav_view_entry ent;
 *	int ret = kav_view_resolve(&view, dest_addr, &ent);
 *	if (ret)                            (-FI_EKEYREJECTED: revoked key,
 *		return ret;                  -FI_EINVAL: no such entry)
 *	send to ent.addr (ent.addr_len bytes) under VNI ent.vni
 *
 * A view belongs to one thread at a time (an endpoint's, as a CQ's would);
 * kav_view_resolve() updates it when the table grew or its keys changed.
 * Open several views of one AV for several threads.
 *
 * The view reads each entry with the table's seqcount protocol (uapi
 * kav.h: seq, fields, seq), so a result is never torn. It caches the key
 * slots' VNIs and revocations together with the header's key_gen, which
 * the kernel advances after every key insert, remove and revocation; a
 * resolve re-reads key_gen after the entry, so it never answers with a
 * key state older than a revocation that completed before it began.
 *
 * As with kav_av_resolve(), @addr points into the mapping: if the entry
 * may be removed and its index reused while the provider uses the bytes,
 * compare kav_view_entry_seq() with ent.seq afterwards.
 *
 * ABI: this reader is compiled into the program, so it knows the table's
 * entry layout (KAV_TABLE_VERSION 4: 16-byte entry header). The name
 * kav_view_init is bound to the symbol kav_view_init2 (libkav 0.3); the
 * old symbol kav_view_init, which programs built against the version-3
 * header call, fails with -FI_EOPNOTSUPP and a kav_last_error() text
 * asking for a rebuild, and leaves their view empty, so they can never
 * read the new layout through the old inline code.
 */
#ifndef KAV_KAV_VIEW_H
#define KAV_KAV_VIEW_H

#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include <linux/kav.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct kav_view - a per-endpoint view of a kav AV (kav_view_init())
 *
 * Read by the inline resolver; written by kav_view_init() and
 * kav_view_sync(). The layout is part of libkav.so.0's ABI.
 */
struct kav_view {
	/* What the fast path reads, together. */
	const uint8_t *entries;		/* entry 0 in the mapping */
	const __u64 *key_gen_word;	/* &hdr->key_gen */
	uint64_t bound;			/* entries [0, bound) may be read */
	uint64_t key_gen;		/* *key_gen_word the keys were read at */
	uint32_t entry_shift;		/* log2(entry_size) */
	uint32_t addr_max;
	/*
	 * keys[slot + 1]: the slot's VNI in the low 32 bits, and above them
	 * KAV_VIEW_KEY_REVOKED or KAV_VIEW_KEY_INVALID; keys[0] is for
	 * entries bound to no key ((u8)(KAV_ENTRY_NO_KEY + 1) == 0): VNI 0.
	 */
	uint64_t keys[KAV_MAX_AUTH_KEYS + 1];
	const struct kav_table_header *hdr;
	struct fid_av *av;
};

/* struct kav_view.keys flags */
#define KAV_VIEW_KEY_REVOKED	(1ULL << 32)
#define KAV_VIEW_KEY_INVALID	(1ULL << 33)

/**
 * struct kav_view_entry - one resolved entry
 * @addr: the address, in the mapping (valid until fi_close() of the AV)
 * @addr_len: bytes at @addr (for FI_ADDR_STR, counting the NUL)
 * @vni: the entry's key's VNI, 0 for an entry bound to no key
 * @key: the entry's key slot (0..KAV_MAX_AUTH_KEYS - 1), or KAV_NONE
 * @user_id: the entry's user id, or KAV_NONE (= FI_ADDR_NOTAVAIL)
 * @seq: the entry's sequence at the read (kav_view_entry_seq())
 */
struct kav_view_entry {
	const void *addr;
	uint32_t addr_len;
	uint32_t vni;
	uint64_t key;
	uint64_t user_id;
	uint64_t seq;
};

/**
 * kav_view_init() - set up @view over @av (a kav AV)
 * Return: 0, or -FI_EINVAL (not a kav AV, NULL @view).
 *
 * The symbol is kav_view_init2: the layout this header's inline reader
 * knows (see ABI above).
 */
int kav_view_init(struct fid_av *av, struct kav_view *view)
	__asm__("kav_view_init2");

/**
 * kav_view_resolve_slow() - kav_view_resolve() when the fast path cannot
 * answer: the index is past the cached bound, the entry is being written,
 * or the keys changed. Refreshes @view and resolves with bounded retries.
 */
int kav_view_resolve_slow(struct kav_view *view, fi_addr_t fi_addr,
			  struct kav_view_entry *out);

/**
 * kav_view_resolve() - fi_addr_t -> address, length, key VNI, user id
 * @view: from kav_view_init(), used by this thread only
 * @fi_addr: an address fi_addr_t (group and rx-context bits ignored)
 * @out: filled on success, and with -FI_EKEYREJECTED
 *
 * Return: 0; -FI_EKEYREJECTED when the entry's key was revoked (nothing
 * may be sent to it; @out is filled); -FI_EINVAL when @fi_addr is
 * FI_ADDR_NOTAVAIL, a key handle or not a valid entry.
 */
static inline int kav_view_resolve(struct kav_view *view, fi_addr_t fi_addr,
				   struct kav_view_entry *out)
{
	/* Group and rx bits go; a key handle or NOTAVAIL is past any bound. */
	uint64_t index = (uint32_t)fi_addr;
	const struct kav_entry *e;
	uint64_t word;
	uint32_t seq;
	int64_t slot;

	if (__builtin_expect(index >= view->bound, 0))
		return kav_view_resolve_slow(view, fi_addr, out);
	e = (const struct kav_entry *)(view->entries +
				       (index << view->entry_shift));
	seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	/*
	 * keys[] index: the slot + 1, so that KAV_ENTRY_NO_KEY (0xff) wraps
	 * to 0, "no key" (VNI 0).
	 */
	slot = (uint8_t)(__atomic_load_n(&e->auth_key, __ATOMIC_RELAXED) + 1);
	/*
	 * Anything unusual goes to the slow path, which answers it: a write
	 * in progress, an entry that is not valid, a key slot no kernel
	 * writes. (addr_len needs no check: the kernel wrote it with the
	 * address, and seq says the two agree.)
	 */
	if (__builtin_expect((seq & 1) ||
			     __atomic_load_n(&e->flags, __ATOMIC_RELAXED) !=
			     KAV_ENTRY_VALID || slot > KAV_MAX_AUTH_KEYS, 0))
		return kav_view_resolve_slow(view, fi_addr, out);
	out->addr_len = __atomic_load_n(&e->addr_len, __ATOMIC_RELAXED);
	out->user_id = __atomic_load_n(&e->user_id, __ATOMIC_RELAXED);
	word = view->keys[slot];
	/*
	 * The loads above before seq and key_gen are looked at again: an
	 * acquire fence, since on weak memory an acquire load would not
	 * order the earlier relaxed loads before it. A write done meanwhile,
	 * keys changed since they were cached, or a revoked (or, never
	 * here, invalid) key: the slow path.
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__builtin_expect(__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != seq ||
			     __atomic_load_n(view->key_gen_word,
					     __ATOMIC_RELAXED) != view->key_gen ||
			     (word >> 32) != 0, 0))
		return kav_view_resolve_slow(view, fi_addr, out);
	out->addr = e->addr;
	out->vni = (uint32_t)word;
	/* slot - 1: the key slot, or -1 (KAV_NONE) for none. */
	out->key = (uint64_t)(slot - 1);
	out->seq = seq;
	return 0;
}

/* The entry's sequence now: equal to @seq while the entry is unchanged. */
static inline uint64_t kav_view_entry_seq(const struct kav_view *view,
					  const struct kav_view_entry *ent)
{
	const struct kav_entry *e = (const struct kav_entry *)
		((const uint8_t *)ent->addr - KAV_ENTRY_HDR_SIZE);

	(void)view;
	/*
	 * The caller's reads of the address bytes come before this load:
	 * an acquire fence first (weak memory), then the load.
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* KAV_KAV_VIEW_H */
