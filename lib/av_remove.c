// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * fi_av_remove(): entries (table indices) in kernel batches of up to
 * KAV_BATCH_MAX, or with FI_AUTH_KEY auth keys, one ioctl each.
 */
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"

_Static_assert(KAV_MAX_AUTH_KEYS <= 64, "key slots fit a u64 mask");

static int kav_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * More than one kernel batch cannot be atomic in the kernel, so check the
 * whole request against the table first: every index valid, none twice.
 * (A concurrent remover of the same entries can still make a later batch
 * fail after earlier ones were applied.)
 */
static int kav_av_remove_check(struct kav_fid_av *av, const uint64_t *idx,
			       size_t count)
{
	struct kav_entry_meta meta;
	uint64_t *sorted;
	size_t i;
	int ret = 0;

	for (i = 0; i < count; i++) {
		if (kav_av_read_valid(av, idx[i], &meta)) {
			kav_refuse("remove: fi_addr[%zu] (index %llu) is not "
				   "valid", i, (unsigned long long)idx[i]);
			return -FI_EINVAL;
		}
	}
	sorted = malloc(count * sizeof(*sorted));
	if (!sorted)
		return -FI_ENOMEM;
	memcpy(sorted, idx, count * sizeof(*sorted));
	qsort(sorted, count, sizeof(*sorted), kav_cmp_u64);
	for (i = 1; i < count; i++)
		if (sorted[i] == sorted[i - 1])
			ret = -FI_EINVAL;
	free(sorted);
	return ret;
}

int kav_av_remove_batch(struct kav_fid_av *av, const uint64_t *idx, size_t n,
			uint32_t *err_index)
{
	struct kav_av_remove req;
	int ret;

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.count = (__u32)n;
	req.err_index = KAV_NO_INDEX;
	req.fi_addrs = (uintptr_t)idx;
	ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_REMOVE, &req);
	if (ret >= 0)
		return 0;
	if (err_index)
		*err_index = req.err_index;
	return kav_err_from_errno(-ret);
}

static int kav_av_remove_entries(struct kav_fid_av *av, const uint64_t *idx,
				 size_t count)
{
	uint32_t err_index;
	size_t base, n;
	int ret;

	if (count > KAV_BATCH_MAX) {
		ret = kav_av_remove_check(av, idx, count);
		if (ret)
			return ret;
	}
	for (base = 0; base < count; base += n) {
		n = KAV_MIN(count - base, (size_t)KAV_BATCH_MAX);
		ret = kav_av_remove_batch(av, idx + base, n, &err_index);
		if (ret) {
			if (err_index != KAV_NO_INDEX && err_index < n)
				kav_debug("remove: fi_addr[%zu] (index %llu) "
					  "is not valid", base + err_index,
					  (unsigned long long)
					  idx[base + err_index]);
			else
				kav_warn("remove of %zu entries failed: %s",
					 n, kav_av_strerror(av, ret));
			return ret;
		}
	}
	return 0;
}

/*
 * fi_av_remove(FI_AUTH_KEY): every handle is checked first (a key handle
 * of a present key, none twice, no entries bound to it and no enabled
 * endpoint using it, as the mapping shows), then the keys are removed one
 * ioctl each. The checks make a refusal the normal way to fail, with
 * nothing removed; a concurrent insert or enable can still make a later
 * key fail (-FI_EBUSY from the kernel) after earlier ones were removed.
 */
static int kav_av_remove_keys(struct kav_fid_av *av, const fi_addr_t *fi_addr,
			      size_t count)
{
	struct kav_key_snap key;
	struct kav_av_key req;
	uint64_t seen = 0;
	uint32_t slot;
	size_t i;
	int ret;

	for (i = 0; i < count; i++) {
		if (kav_fi_addr_key(fi_addr[i], &slot) ||
		    kav_av_read_key(av, slot, &key) ||
		    (seen & (1ULL << slot))) {
			kav_refuse("remove: fi_addr[%zu] = %#llx is not an "
				   "auth key handle of this AV (or repeats "
				   "one)", i, (unsigned long long)fi_addr[i]);
			return -FI_EINVAL;
		}
		seen |= 1ULL << slot;
		if (key.nr_entries || key.nr_endpoints) {
			kav_refuse("remove: key %u is used by %u entries and "
				   "%u endpoints", slot, key.nr_entries,
				   key.nr_endpoints);
			return -FI_EBUSY;
		}
	}
	for (i = 0; i < count; i++) {
		kav_fi_addr_key(fi_addr[i], &slot);
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.handle = slot;
		ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_KEY_REMOVE, &req);
		if (ret < 0) {
			ret = kav_err_from_errno(-ret);
			kav_fail_info("remove: key %u: %s (%zu of %zu "
				      "removed)", slot, kav_strerror(ret), i,
				      count);
			return ret;
		}
	}
	return 0;
}

int kav_av_remove(struct fid_av *av_fid, fi_addr_t *fi_addr, size_t count,
		  uint64_t flags)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	uint64_t *idx;
	size_t i;
	int ret;

	kav_err_clear();
	if (flags & ~FI_AUTH_KEY) {
		kav_refuse("fi_av_remove: flags %#llx: only FI_AUTH_KEY",
			   (unsigned long long)flags);
		return -FI_EINVAL;
	}
	if (!count)
		return 0;
	if (!fi_addr) {
		kav_refuse("fi_av_remove: fi_addr is NULL with count %zu",
			   count);
		return -FI_EINVAL;
	}
	if (flags & FI_AUTH_KEY)
		return kav_av_remove_keys(av, fi_addr, count);
	idx = malloc(count * sizeof(*idx));
	if (!idx)
		return -FI_ENOMEM;
	for (i = 0; i < count; i++) {
		if (kav_fi_addr_index(fi_addr[i], &idx[i])) {
			kav_refuse("remove: fi_addr[%zu] = %#llx is not an "
				   "address (a key handle needs FI_AUTH_KEY)",
				   i, (unsigned long long)fi_addr[i]);
			free(idx);
			return -FI_EINVAL;
		}
	}
	ret = kav_av_remove_entries(av, idx, count);
	free(idx);
	return ret;
}
