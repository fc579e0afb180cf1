// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Reading an AV: fi_av_lookup(), fi_av_straddr() and kav_av_resolve(). All
 * of it reads the read-only table mapping (table.h, inline): no
 * system call, no lock, no call but the address copy.
 */
#include "kav_priv.h"

/*
 * Everything kav_av_lookup() does not answer at once: a refused argument,
 * an index past the cached bound, a retry, a short buffer, an entry that
 * is not valid. Out of line so the fast path needs no stack frame.
 */
static __attribute__((noinline, cold)) int
kav_av_lookup_slow(struct kav_fid_av *av, fi_addr_t fi_addr, void *addr,
		   size_t *addrlen)
{
	int ret;

	if (!addrlen || (!addr && *addrlen)) {
		kav_refuse("fi_av_lookup: addrlen is NULL, or addr NULL with "
			   "a length");
		return -FI_EINVAL;
	}
	/* The bound refuses key handles and FI_ADDR_NOTAVAIL (table.h). */
	ret = kav_table_lookup_slow(&av->table, fi_addr & KAV_FI_ADDR_LOW_MASK,
				    addr, addrlen);
	if (ret == -FI_EINVAL)
		kav_refuse("fi_av_lookup: fi_addr %#llx is not an address in "
			   "the AV", (unsigned long long)fi_addr);
	return ret;
}

/*
 * One attempt inline (the protocol of table.h): a NULL argument, an
 * index at or past the cached bound (key handles and FI_ADDR_NOTAVAIL
 * are), an odd seq, an entry that is not valid or a buffer too short all
 * leave through one branch to the slow path, which answers them.
 */
int kav_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr, void *addr,
		  size_t *addrlen)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	const struct kav_map *t = &av->table;
	uint64_t index = fi_addr & KAV_FI_ADDR_LOW_MASK;
	const struct kav_entry *e;
	uint32_t seq;
	size_t len;

	if (__builtin_expect(!addr || !addrlen ||
			     index >= __atomic_load_n(&t->bound,
						      __ATOMIC_ACQUIRE), 0))
		return kav_av_lookup_slow(av, fi_addr, addr, addrlen);
	e = kav_table_entry(t, index);
	seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	len = __atomic_load_n(&e->addr_len, __ATOMIC_RELAXED);
	/* A length past addr_max never comes from a sound kernel: refuse it. */
	if (__builtin_expect((seq & 1) ||
			     __atomic_load_n(&e->flags, __ATOMIC_RELAXED) !=
			     KAV_ENTRY_VALID ||
			     len > *addrlen || len > t->addr_max, 0))
		return kav_av_lookup_slow(av, fi_addr, addr, addrlen);
	kav_addr_copy(addr, e->addr, len);
	/* The copy before seq's second load (weak memory: a fence). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__builtin_expect(__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != seq,
			     0))
		return kav_av_lookup_slow(av, fi_addr, addr, addrlen);
	*addrlen = len;
	return 0;
}

const char *kav_av_straddr(struct fid_av *av_fid, const void *addr,
			   char *buf, size_t *len)
{
	return kav_addr_straddr(kav_av_of(av_fid)->addr_format, addr, buf,
				len);
}

/* -------------------------------------------------- zero-copy resolution */

/*
 * The whole resolution, with bounded retries: what kav_av_resolve() does
 * when its one inline attempt cannot answer.
 */
static __attribute__((noinline, cold)) int
kav_av_resolve_slow(struct kav_fid_av *av, uint64_t index,
		    struct kav_resolved *out)
{
	struct kav_entry_meta meta;
	struct kav_key_snap key;

	if (kav_av_read_valid(av, index, &meta))
		return -FI_EINVAL;
	out->addr = kav_table_entry(&av->table, index)->addr;
	out->addr_len = meta.addr_len;
	out->key = FI_ADDR_NOTAVAIL;
	out->vni = 0;
	out->revoked = false;
	if (meta.auth_key != KAV_NONE) {
		if (kav_av_read_entry_key(av, &meta, &key))
			return -FI_EINVAL;	/* removed meanwhile */
		out->key = kav_key_fi_addr((uint32_t)meta.auth_key);
		out->vni = key.vni;
		out->revoked = !!(key.flags & KAV_KEY_REVOKED);
	}
	out->user_id = meta.user_id;
	out->index = index;
	out->seq = meta.seq;
	/* What the kernel's consumers say too: nothing is sent under it. */
	return out->revoked ? -FI_EKEYREJECTED : 0;
}

/*
 * kav_av_resolve() of anything but a private AV: an AV of another kind
 * has its fi_addr translated by its kind (a job AV's view), then is
 * answered as a private AV of the same table; what is no kav AV is
 * refused.
 */
static __attribute__((noinline, cold)) int
kav_av_resolve_kind(struct fid_av *av_fid, fi_addr_t fi_addr,
		    struct kav_resolved *out)
{
	struct kav_fid_av *av = kav_av_from_fid(av_fid);
	uint64_t index;

	if (!av || !av->kind || !out ||
	    av->kind->index(av, fi_addr, &index))
		return -FI_EINVAL;
	return kav_av_resolve_slow(av, index, out);
}

/*
 * One attempt inline: the entry and its key slot, each by the seq
 * protocol, with only tail calls out. A key slot changes only when
 * the key does (its counts live apart), so its line stays clean in every
 * reader's cache.
 */
KAV_API int kav_av_resolve(struct fid_av *av_fid, fi_addr_t fi_addr,
			   struct kav_resolved *out)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	const struct kav_key_slot *k;
	const struct kav_map *t;
	const struct kav_entry *e;
	uint64_t index, kseq;
	uint32_t seq, slot, kflags;

	/*
	 * Private AVs only: a job AV's fi_addr is translated first (and
	 * kav_av_resolve_kind() refuses what is neither). Only kav's AVs
	 * carry kav_av_fi_ops, so the ops and the kind say what the fid is.
	 */
	if (__builtin_expect(!av_fid || av_fid->fid.ops != &kav_av_fi_ops ||
			     !out || av->kind, 0))
		return kav_av_resolve_kind(av_fid, fi_addr, out);
	t = &av->table;
	/* The bound refuses key handles and FI_ADDR_NOTAVAIL (table.h). */
	index = fi_addr & KAV_FI_ADDR_LOW_MASK;
	if (__builtin_expect(index >= __atomic_load_n(&t->bound,
						      __ATOMIC_ACQUIRE), 0))
		return kav_av_resolve_slow(av, index, out);
	e = kav_table_entry(t, index);
	seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	slot = __atomic_load_n(&e->auth_key, __ATOMIC_RELAXED);
	out->addr_len = __atomic_load_n(&e->addr_len, __ATOMIC_RELAXED);
	out->user_id = __atomic_load_n(&e->user_id, __ATOMIC_RELAXED);
	/*
	 * Odd or changed seq, not valid: the slow path. (addr_len needs no
	 * check: the kernel wrote it with the address, and seq says the two
	 * agree; the slow path's copy clamps it all the same.)
	 */
	if (__builtin_expect((seq & 1) ||
			     __atomic_load_n(&e->flags, __ATOMIC_RELAXED) !=
			     KAV_ENTRY_VALID, 0))
		return kav_av_resolve_slow(av, index, out);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__builtin_expect(__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != seq,
			     0))
		return kav_av_resolve_slow(av, index, out);
	out->addr = e->addr;
	out->index = index;
	out->seq = seq;
	out->revoked = false;
	/* One comparison for both: KAV_ENTRY_NO_KEY is >= every max_keys. */
	if (__builtin_expect(slot >= t->max_keys, 0)) {
		if (slot != KAV_ENTRY_NO_KEY)
			return kav_av_resolve_slow(av, index, out);
		out->key = FI_ADDR_NOTAVAIL;
		out->vni = 0;
		return 0;
	}
	k = kav_table_key(t, slot);
	kseq = __atomic_load_n(&k->seq, __ATOMIC_ACQUIRE);
	kflags = __atomic_load_n(&k->flags, __ATOMIC_RELAXED);
	out->vni = __atomic_load_n(&k->vni, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	/* A revoked key too: the slow path fills @out and says so. */
	if (__builtin_expect((kseq & 1) ||
			     __atomic_load_n(&k->seq, __ATOMIC_RELAXED) != kseq ||
			     (kflags & (KAV_KEY_VALID | KAV_KEY_REVOKED)) !=
			     KAV_KEY_VALID, 0))
		return kav_av_resolve_slow(av, index, out);
	out->key = kav_key_fi_addr(slot);
	return 0;
}

KAV_API int kav_av_resolve_check(struct fid_av *av_fid,
				 const struct kav_resolved *res)
{
	struct kav_fid_av *av = kav_av_from_fid(av_fid);

	if (!av || !res || !kav_table_has(&av->table, res->index))
		return 0;
	return kav_table_entry_seq(&av->table, res->index) == res->seq;
}
