// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Reading an AV: fi_av_lookup(), fi_av_straddr() and kav_av_resolve(). All
 * of it reads the read-only table mapping (table_read.h, inline): no
 * system call, no lock, no call but the address copy.
 */
#include "kav_priv.h"
#include "av_job.h"

int kav_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr, void *addr,
		  size_t *addrlen)
{
	struct kav_av *av = kav_av_of(av_fid);

	int ret;

	if (!addrlen || (!addr && *addrlen)) {
		kav_refuse("fi_av_lookup: addrlen is NULL, or addr NULL with "
			   "a length");
		return -FI_EINVAL;
	}
	/* The bound refuses key handles and FI_ADDR_NOTAVAIL (table_read.h). */
	ret = kav_table_lookup(&av->table, fi_addr & KAV_FI_ADDR_LOW_MASK,
			       addr, addrlen);
	if (__builtin_expect(ret == -FI_EINVAL, 0))
		kav_refuse("fi_av_lookup: fi_addr %#llx is not an address in "
			   "the AV", (unsigned long long)fi_addr);
	return ret;
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
kav_av_resolve_slow(struct kav_av *av, uint64_t index, struct kav_resolved *out)
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

/* Table index @index of @av, fully (a job AV's translated fi_addr). */
int kav_av_resolve_index(struct kav_av *av, uint64_t index,
			 struct kav_resolved *out)
{
	return kav_av_resolve_slow(av, index, out);
}

/*
 * One attempt inline: the entry and its key slot, each by the seq
 * protocol, with only tail calls out. A key slot changes only when the
 * key does (its counts live apart), so its line stays clean in every
 * reader's cache. The loads are written out rather than taken from
 * kav_table_try_read(): going through its snapshot costs 7 instructions
 * per call here (86 -> 93, make bench-native).
 */
KAV_API int kav_av_resolve(struct fid_av *av_fid, fi_addr_t fi_addr,
			   struct kav_resolved *out)
{
	struct kav_av *av = kav_av_of(av_fid);
	const struct kav_key_slot *k;
	const struct kav_table *t;
	const struct kav_entry *e;
	uint64_t index, seq, kseq, key;
	uint32_t flags, kflags;

	/* Private AVs only: a job AV's fi_addr is translated first. */
	if (__builtin_expect(!av_fid || av_fid->fid.fclass != FI_CLASS_AV ||
			     av_fid->fid.ops != &kav_av_fi_ops || !out, 0))
		return kav_job_resolve(av_fid, fi_addr, out);
	t = &av->table;
	/* The bound refuses key handles and FI_ADDR_NOTAVAIL (table_read.h). */
	index = fi_addr & KAV_FI_ADDR_LOW_MASK;
	if (__builtin_expect(index >= __atomic_load_n(&t->bound,
						      __ATOMIC_ACQUIRE), 0))
		return kav_av_resolve_slow(av, index, out);
	e = kav_table_entry(t, index);
	seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	flags = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
	out->addr_len = __atomic_load_n(&e->addr_len, __ATOMIC_RELAXED);
	key = __atomic_load_n(&e->auth_key, __ATOMIC_RELAXED);
	out->user_id = __atomic_load_n(&e->user_id, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__builtin_expect((seq & 1) ||
			     __atomic_load_n(&e->seq, __ATOMIC_RELAXED) != seq ||
			     !(flags & KAV_ENTRY_VALID) ||
			     out->addr_len > t->addr_max ||
			     (key != KAV_NONE && key >= t->max_keys), 0))
		return kav_av_resolve_slow(av, index, out);
	out->addr = e->addr;
	out->index = index;
	out->seq = seq;
	out->key = FI_ADDR_NOTAVAIL;
	out->vni = 0;
	out->revoked = false;
	if (key == KAV_NONE)
		return 0;
	k = kav_table_key(t, (uint32_t)key);
	kseq = __atomic_load_n(&k->seq, __ATOMIC_ACQUIRE);
	kflags = __atomic_load_n(&k->flags, __ATOMIC_RELAXED);
	out->vni = __atomic_load_n(&k->vni, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__builtin_expect((kseq & 1) ||
			     __atomic_load_n(&k->seq, __ATOMIC_RELAXED) != kseq ||
			     !(kflags & KAV_KEY_VALID), 0))
		return kav_av_resolve_slow(av, index, out);
	out->key = kav_key_fi_addr((uint32_t)key);
	out->revoked = !!(kflags & KAV_KEY_REVOKED);
	/* What the kernel's consumers say too: nothing is sent under it. */
	return out->revoked ? -FI_EKEYREJECTED : 0;
}

KAV_API int kav_av_resolve_check(struct fid_av *av_fid,
				 const struct kav_resolved *res)
{
	struct kav_av *av = kav_av_from_fid(av_fid);

	if (!av || !res || !kav_table_has(&av->table, res->index))
		return 0;
	return kav_table_entry_seq(&av->table, res->index) == res->seq;
}
