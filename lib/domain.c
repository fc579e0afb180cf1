// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kav domain: one open of /dev/kav, presented as a genuine
 * struct fid_domain: its device, key and identity, its close, and the
 * test that a fid is one (kav_domain_is()). Its operation tables, which
 * open AVs and EQs, are domain_ops.c's, above every object they open.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kav_priv.h"

_Static_assert(offsetof(struct kav_fid_domain, domain_fid) == 0, "fid first");

static struct kav_fid_domain *kav_domain_of(struct fid *fid)
{
	/* domain_fid.fid is first */
	return (struct kav_fid_domain *)fid;
}

static int kav_domain_close(struct fid *fid)
{
	struct kav_fid_domain *d = kav_domain_of(fid);

	if (__atomic_load_n(&d->av_refs, __ATOMIC_ACQUIRE)) {
		kav_refuse("domain close refused: %u AVs still open",
			   d->av_refs);
		return -FI_EBUSY;
	}
	kav_sys_close(d->fd);
	free(d);
	return 0;
}

static struct fi_ops kav_domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kav_domain_close,
	.bind = kav_no_bind,
	.control = kav_no_control,
	.ops_open = kav_no_ops_open,
	.tostr = kav_no_tostr,
	.ops_set = kav_no_ops_set,
};

bool kav_domain_is(const struct fid *fid)
{
	return fid && fid->fclass == FI_CLASS_DOMAIN &&
	       fid->ops == &kav_domain_fi_ops;
}

/* "group kav (gid 998)", or "gid 998" when it has no name. */
static void kav_group_name(gid_t gid, char *out, size_t len)
{
	struct group gr, *res = NULL;
	char buf[1024];

	if (!getgrgid_r(gid, &gr, buf, sizeof(buf), &res) && res)
		snprintf(out, len, "group %s (gid %u)", res->gr_name,
			 (unsigned int)gid);
	else
		snprintf(out, len, "gid %u", (unsigned int)gid);
}

/* Why @path cannot be opened for reading and writing, from its stat. */
static void kav_open_denied(const char *path, int err)
{
	char group[300];
	struct stat st;

	if (stat(path, &st)) {
		kav_fail_warn("cannot open %s: %s", path, strerrordesc_np(err));
		return;
	}
	kav_group_name(st.st_gid, group, sizeof(group));
	kav_fail_warn("cannot open %s: permission denied: the device is "
		      "mode %04o, owner uid %u, %s, and this process (uid %u, "
		      "gid %u) may not read and write it; the administrator "
		      "sets who may open it with a udev rule (for example "
		      "KERNEL==\"kav\", GROUP=\"kav\", MODE=\"0660\" in "
		      "/etc/udev/rules.d/) and kav grants (kavctl grant add)",
		      path, (unsigned int)(st.st_mode & 07777),
		      (unsigned int)st.st_uid, group, (unsigned int)geteuid(),
		      (unsigned int)getegid());
}

/* Open the device, explaining the failures a user can act on. */
static int kav_open_device(const char *path)
{
	int fd, err, ret;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	err = errno;
	ret = kav_err_from_open_errno(err);
	if (ret == -FI_ENODEV)
		kav_fail_warn("cannot open %s: %s", path, kav_strerror(ret));
	else if (ret == -FI_EACCES)
		kav_open_denied(path, err);
	else
		kav_fail_warn("cannot open %s: %s", path,
			      strerrordesc_np(err));
	return ret;
}

/*
 * KAV_IOC_DOMAIN_SET_KEY: bind the new domain to its auth key. The kernel
 * checks the key against the grants of the identity it captured at open.
 */
static int kav_domain_set_key(int fd, const struct kav_auth_key *key)
{
	struct kav_domain_key req;
	int ret;

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.key = *key;
	ret = kav_sys_ioctl(fd, KAV_IOC_DOMAIN_SET_KEY, &req);
	if (ret >= 0)
		return 0;
	ret = kav_err_from_errno(-ret);
	switch (ret) {
	case -FI_EACCES:
	case -FI_EKEYREJECTED:
	case -EDQUOT: {
		struct kav_denial deny = {
			.what = "domain auth key",
			.err = ret,
			.keyed = true,
			.vni = key->vni,
		};

		kav_denial_warn(fd, &deny);
		break;
	}
	case -FI_ENOSYS:
		kav_fail_warn("domain auth keys: the kav kernel module is "
			      "older than libkav (no KAV_IOC_DOMAIN_SET_KEY)");
		break;
	default:
		kav_fail_warn("domain auth key vni %u: %s", key->vni,
			      kav_strerror(ret));
		break;
	}
	return ret;
}

/*
 * The domain's auth-key mode from @dattr: none, per AV (FI_AV_AUTH_KEY) or
 * one domain-wide key (a struct kav_auth_key) copied to @key.
 */
static int kav_domain_key_mode(const struct fi_domain_attr *dattr,
			       bool *av_auth_key, bool *has_key,
			       struct kav_auth_key *key)
{
	*av_auth_key = false;
	*has_key = false;
	if (!dattr || (!dattr->auth_key_size && !dattr->auth_key))
		return 0;
	/*
	 * auth_key_size == FI_AV_AUTH_KEY: keys live in each AV
	 * (fi_av_insert_auth_key()); libfabric requires auth_key NULL then.
	 */
	if (dattr->auth_key_size == FI_AV_AUTH_KEY) {
		if (dattr->auth_key) {
			kav_fail_warn("domain auth_key must be NULL with "
				      "auth_key_size FI_AV_AUTH_KEY");
			return -FI_EINVAL;
		}
		*av_auth_key = true;
		return 0;
	}
	if (!dattr->auth_key ||
	    dattr->auth_key_size != sizeof(struct kav_auth_key)) {
		kav_fail_warn("domain auth_key must be a struct kav_auth_key "
			      "(auth_key_size %zu, not %zu), or use "
			      "auth_key_size = FI_AV_AUTH_KEY and "
			      "fi_av_insert_auth_key()",
			      sizeof(struct kav_auth_key),
			      dattr->auth_key_size);
		return -FI_EINVAL;
	}
	memcpy(key, dattr->auth_key, sizeof(*key));
	if (key->__reserved) {
		kav_fail_warn("domain auth_key: struct "
			      "kav_auth_key.__reserved must be 0");
		return -FI_EINVAL;
	}
	*has_key = true;
	return 0;
}

/*
 * fi_domain() of kav, less its operation tables, which the caller (the
 * top, domain_ops.c) hands in: they name the AV's and the EQ's opens,
 * which name this file's kav_domain_is().
 */
int kav_domain_create(const struct fi_info *info,
		      const struct kav_domain_tables *tables,
		      struct fid_domain **domain, void *context)
{
	struct kav_auth_key key = { 0 };
	bool av_auth_key, has_key;
	struct kav_fid_domain *d;
	const char *path;
	uint32_t format;
	int fd, ret;

	kav_err_clear();
	if (!info || !domain) {
		kav_refuse("kav_domain_open: info and domain must not be "
			   "NULL");
		return -FI_EINVAL;
	}
	*domain = NULL;
	format = info->addr_format == FI_FORMAT_UNSPEC ?
		 FI_SOCKADDR : info->addr_format;
	if (!kav_addr_kav_format(format)) {
		kav_fail_warn("address format %u is not supported (kav "
			      "stores FI_SOCKADDR, FI_SOCKADDR_IN, "
			      "FI_SOCKADDR_IN6 and FI_ADDR_STR)", format);
		return -FI_EINVAL;
	}
	ret = kav_domain_key_mode(info->domain_attr, &av_auth_key, &has_key,
				  &key);
	if (ret)
		return ret;

	/* Not from the environment in setuid programs. */
	path = secure_getenv("KAV_DEVICE");
	if (!path || !*path)
		path = KAV_DEFAULT_DEVICE;
	fd = kav_open_device(path);
	if (fd < 0)
		return fd;
	if (has_key) {
		ret = kav_domain_set_key(fd, &key);
		if (ret) {
			kav_sys_close(fd);
			return ret;
		}
	}

	d = calloc(1, sizeof(*d));
	if (!d) {
		kav_sys_close(fd);
		return -FI_ENOMEM;
	}
	d->domain_fid.fid.fclass = FI_CLASS_DOMAIN;
	d->domain_fid.fid.context = context;
	d->domain_fid.fid.ops = &kav_domain_fi_ops;
	d->domain_fid.ops = tables->ops;
	d->domain_fid.mr = tables->mr;
	d->fd = fd;
	d->addr_format = format;
	d->av_auth_key = av_auth_key;
	d->has_key = has_key;
	d->key = key;
	kav_debug("domain opened on %s (fd %d, format %u%s)", path, fd, format,
		  has_key ? ", with an auth key" : "");
	*domain = &d->domain_fid;
	return 0;
}
