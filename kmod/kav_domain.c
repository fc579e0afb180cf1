// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kav: each open is a domain context. Its ioctls create AVs; each AV
 * keeps the domain (and so its identity) alive until the AV is gone.
 */
#include <linux/slab.h>
#include "kav_objects.h"

/* Set once by the administration layer before /dev/kav exists. */
const struct kav_object_hooks *kav_hooks;

void kav_objects_set_hooks(const struct kav_object_hooks *hooks)
{
	kav_hooks = hooks;
}

static void kav_domain_free(struct kref *ref)
{
	struct kav_domain *domain = container_of(ref, struct kav_domain, ref);

	if (domain->key_grant)
		kav_grant_put(domain->key_grant);
	kav_identity_release(&domain->id);
	mutex_destroy(&domain->lock);
	kfree(domain);
}

void kav_domain_put(struct kav_domain *domain)
{
	kref_put(&domain->ref, kav_domain_free);
}

static int kav_domain_open(struct inode *inode, struct file *file)
{
	struct kav_domain *domain;

	domain = kzalloc(sizeof(*domain), KAV_TENANT_GFP);
	if (!domain)
		return -ENOMEM;
	kref_init(&domain->ref);
	mutex_init(&domain->lock);
	kav_identity_capture(&domain->id, file);
	if (kav_hooks->domain_added(domain)) {
		kav_domain_put(domain);
		return -ENOMEM;
	}
	file->private_data = domain;
	return 0;
}

static int kav_domain_release(struct inode *inode, struct file *file)
{
	struct kav_domain *domain = file->private_data;

	kav_hooks->domain_removed(domain);
	kav_domain_put(domain);
	return 0;
}

static int kav_domain_av_create(void *obj, struct kav_ucmd *ucmd)
{
	return kav_av_create(obj, ucmd);
}

/* Bind the domain to its auth key: once, before any AV, if granted. */
static int kav_domain_set_key(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_domain_key *cmd = ucmd->cmd;
	struct kav_domain *domain = obj;
	struct kav_grant *grant;
	int ret = 0;

	if (cmd->flags || cmd->key.__reserved)
		return -EINVAL;
	grant = kav_grant_authorize(&domain->id, cmd->key.vni, "domain key");
	if (!grant)
		return -EACCES;
	mutex_lock(&domain->lock);
	if (domain->key_grant) {
		ret = -EALREADY;
	} else if (domain->nr_avs) {
		ret = -EBUSY;
	} else {
		domain->key = cmd->key;
		/* Readers without the lock (listings, inserts) see key first. */
		smp_store_release(&domain->key_grant, grant);
	}
	mutex_unlock(&domain->lock);
	if (ret)
		kav_grant_put(grant);
	return ret;
}

static const struct kav_ioctl_op kav_domain_ops[] = {
	KAV_IOCTL_OP(KAV_IOC_AV_CREATE, kav_domain_av_create,
		     struct kav_av_create, map_size),
	KAV_IOCTL_OP(KAV_IOC_DOMAIN_SET_KEY, kav_domain_set_key,
		     struct kav_domain_key, key),
};

static long kav_domain_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	return kav_ucmd_dispatch(file->private_data, kav_domain_ops,
				 ARRAY_SIZE(kav_domain_ops), cmd, arg);
}

const struct file_operations kav_domain_fops = {
	.owner = THIS_MODULE,
	.open = kav_domain_open,
	.release = kav_domain_release,
	.unlocked_ioctl = kav_domain_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};
