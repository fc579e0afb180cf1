// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Reading an AV: fi_av_lookup(), fi_av_straddr() and kav_av_resolve(). All
 * of it reads the read-only table mapping (table_read.h, inline): no
 * system call, no lock, no call but the address copy.
 */
#include "kav_priv.h"

int kav_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr, void *addr,
		  size_t *addrlen)
{
	struct kav_av *av = kav_av_of(av_fid);
	uint64_t index;

	if (!addrlen || (!addr && *addrlen))
		return -FI_EINVAL;
	if (kav_fi_addr_index(fi_addr, &index))
		return -FI_EINVAL;
	return kav_table_lookup(&av->table, index, addr, addrlen);
}

const char *kav_av_straddr(struct fid_av *av_fid, const void *addr,
			   char *buf, size_t *len)
{
	return kav_addr_straddr(kav_av_of(av_fid)->addr_format, addr, buf,
				len);
}

/* -------------------------------------------------- zero-copy resolution */

KAV_API int kav_av_resolve(struct fid_av *av_fid, fi_addr_t fi_addr,
			   struct kav_resolved *out)
{
	struct kav_av *av = kav_av_from_fid(av_fid);
	struct kav_entry_meta meta;
	struct kav_key_snap key;
	uint64_t index;

	if (!av || !out || kav_fi_addr_index(fi_addr, &index) ||
	    kav_av_read_valid(av, index, &meta))
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

KAV_API int kav_av_resolve_check(struct fid_av *av_fid,
				 const struct kav_resolved *res)
{
	struct kav_av *av = kav_av_from_fid(av_fid);

	if (!av || !res || res->index >= kav_table_nr_slots(&av->table))
		return 0;
	return kav_table_entry_seq(&av->table, res->index) == res->seq;
}
