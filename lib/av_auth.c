// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Auth keys and user ids: fi_av_insert_auth_key(), fi_av_lookup_auth_key()
 * and fi_av_set_user_id(). Keys live in the AV's 64 key slots (header
 * page); the application names one by its handle, KAV_FI_ADDR_KEY | slot
 * (fi_addr.c). Removing keys is fi_av_remove(FI_AUTH_KEY) (av_remove.c).
 */
#include <errno.h>
#include <string.h>

#include "kav_priv.h"

/*
 * fi_av_insert_auth_key(): the key is a struct kav_auth_key. A key already
 * in the AV is not inserted twice: -FI_EALREADY, with *fi_addr set to the
 * existing handle.
 */
int kav_av_insert_auth_key(struct fid_av *av_fid, const void *auth_key,
			   size_t auth_key_size, fi_addr_t *fi_addr,
			   uint64_t flags)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	struct kav_av_key req;
	int ret;

	kav_err_clear();
	if (!av->domain->av_auth_key) {
		kav_refuse("fi_av_insert_auth_key: the domain was not opened "
			   "with auth_key_size = FI_AV_AUTH_KEY");
		return -FI_EINVAL;
	}
	if (flags) {
		kav_refuse("fi_av_insert_auth_key: flags must be 0, not %#llx",
			   (unsigned long long)flags);
		return -FI_EINVAL;
	}
	if (!auth_key || !fi_addr) {
		kav_refuse("fi_av_insert_auth_key: auth_key and fi_addr must "
			   "not be NULL");
		return -FI_EINVAL;
	}
	if (auth_key_size != sizeof(struct kav_auth_key)) {
		kav_refuse("fi_av_insert_auth_key: auth_key_size is %zu, not "
			   "sizeof(struct kav_auth_key) = %zu", auth_key_size,
			   sizeof(struct kav_auth_key));
		return -FI_EINVAL;
	}
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	memcpy(&req.key, auth_key, sizeof(req.key));
	req.handle = KAV_MAX_AUTH_KEYS;
	ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_KEY_INSERT, &req);
	if (ret < 0 && ret != -EEXIST) {
		ret = kav_err_from_errno(-ret);
		if (ret == -FI_EACCES || ret == -FI_EKEYREJECTED ||
		    ret == -EDQUOT) {
			struct kav_denial deny = {
				.what = "fi_av_insert_auth_key",
				.err = ret,
				.keyed = true,
				.vni = req.key.vni,
				.need_avs = 1,
			};

			/* A per-AV key denial: warn, naming who and what. */
			kav_denial_warn(av->domain->fd, &deny);
		} else {
			kav_fail_info("fi_av_insert_auth_key: vni %u: %s",
				      req.key.vni, kav_av_strerror(av, ret));
		}
		return ret;
	}
	if (req.handle >= KAV_MAX_AUTH_KEYS) {
		kav_fail_warn("fi_av_insert_auth_key: the kernel returned key "
			      "slot %llu", (unsigned long long)req.handle);
		return -FI_EIO;
	}
	*fi_addr = kav_key_fi_addr((uint32_t)req.handle);
	return ret == -EEXIST ? -FI_EALREADY : 0;
}

/*
 * fi_av_lookup_auth_key(): @fi_addr is a key handle or an address. An
 * address bound to no key: -FI_ENOKEY. Truncates like fi_av_lookup(). A
 * key whose grant was revoked is copied out and -FI_EKEYREJECTED returned.
 */
int kav_av_lookup_auth_key(struct fid_av *av_fid, fi_addr_t fi_addr,
			   void *auth_key, size_t *auth_key_size)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	struct kav_auth_key key = { 0 };
	struct kav_entry_meta meta;
	struct kav_key_snap snap;
	uint64_t index;
	uint32_t slot;

	if (!auth_key_size || (!auth_key && *auth_key_size)) {
		kav_refuse("fi_av_lookup_auth_key: auth_key_size is NULL, or "
			   "auth_key NULL with a size");
		return -FI_EINVAL;
	}
	if (!kav_fi_addr_key(fi_addr, &slot)) {
		if (kav_av_read_key(av, slot, &snap)) {
			kav_refuse("fi_av_lookup_auth_key: key handle %#llx "
				   "is not in the AV",
				   (unsigned long long)fi_addr);
			return -FI_EINVAL;
		}
	} else {
		if (kav_fi_addr_index(fi_addr, &index) ||
		    kav_av_read_valid(av, index, &meta)) {
			kav_refuse("fi_av_lookup_auth_key: fi_addr %#llx is "
				   "not an address or key handle of the AV",
				   (unsigned long long)fi_addr);
			return -FI_EINVAL;
		}
		if (meta.auth_key == KAV_NONE)
			return -FI_ENOKEY;
		if (kav_av_read_entry_key(av, &meta, &snap)) {
			/* removed meanwhile */
			kav_refuse("fi_av_lookup_auth_key: fi_addr %#llx was "
				   "removed", (unsigned long long)fi_addr);
			return -FI_EINVAL;
		}
	}
	key.vni = snap.vni;
	if (*auth_key_size)
		memcpy(auth_key, &key, KAV_MIN(*auth_key_size, sizeof(key)));
	*auth_key_size = sizeof(key);
	/* The key is reported, and so is its revocation. */
	return (snap.flags & KAV_KEY_REVOKED) ? -FI_EKEYREJECTED : 0;
}

/*
 * fi_av_set_user_id(): AVs opened with FI_AV_USER_ID only. flags 0: an
 * address; FI_AUTH_KEY: a key handle.
 */
int kav_av_set_user_id(struct fid_av *av_fid, fi_addr_t fi_addr,
		       fi_addr_t user_id, uint64_t flags)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	struct kav_av_user_id req;
	uint64_t index;
	uint32_t slot;
	int ret;

	kav_err_clear();
	if (!(av->flags & FI_AV_USER_ID)) {
		kav_refuse("fi_av_set_user_id: the AV was not opened with "
			   "FI_AV_USER_ID");
		return -FI_EINVAL;
	}
	if (flags & ~FI_AUTH_KEY) {
		kav_refuse("fi_av_set_user_id: flags %#llx: only FI_AUTH_KEY",
			   (unsigned long long)flags);
		return -FI_EINVAL;
	}
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	if (flags & FI_AUTH_KEY) {
		if (kav_fi_addr_key(fi_addr, &slot)) {
			kav_refuse("fi_av_set_user_id: FI_AUTH_KEY, and %#llx "
				   "is not a key handle",
				   (unsigned long long)fi_addr);
			return -FI_EINVAL;
		}
		req.flags = KAV_USER_ID_AUTH_KEY;
		req.index = slot;
	} else {
		if (kav_fi_addr_index(fi_addr, &index)) {
			kav_refuse("fi_av_set_user_id: %#llx is not an "
				   "address (a key handle needs FI_AUTH_KEY)",
				   (unsigned long long)fi_addr);
			return -FI_EINVAL;
		}
		req.index = index;
	}
	req.user_id = user_id;
	ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_SET_USER_ID, &req);
	if (ret >= 0)
		return 0;
	ret = kav_err_from_errno(-ret);
	kav_fail_info("fi_av_set_user_id: fi_addr %#llx: %s",
		      (unsigned long long)fi_addr, kav_av_strerror(av, ret));
	return ret;
}
