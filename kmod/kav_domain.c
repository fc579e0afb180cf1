// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kav: each open is a domain context. Its ioctls create AVs; each AV
 * keeps the domain (and so its identity) alive until the AV is gone.
 */
#include <linux/slab.h>
#include "kav.h"

static void kav_domain_free(struct kref *ref)
{
	struct kav_domain *domain = container_of(ref, struct kav_domain, ref);

	kav_identity_release(&domain->id);
	kfree(domain);
}

void kav_domain_put(struct kav_domain *domain)
{
	kref_put(&domain->ref, kav_domain_free);
}

static int kav_domain_open(struct inode *inode, struct file *file)
{
	struct kav_domain *domain;

	domain = kzalloc(sizeof(*domain), GFP_KERNEL_ACCOUNT);
	if (!domain)
		return -ENOMEM;
	kref_init(&domain->ref);
	kav_identity_capture(&domain->id, file);
	file->private_data = domain;
	return 0;
}

static int kav_domain_release(struct inode *inode, struct file *file)
{
	kav_domain_put(file->private_data);
	return 0;
}

static int kav_domain_av_create(void *obj, struct kav_ucmd *ucmd)
{
	return kav_av_create(obj, ucmd);
}

static const struct kav_ioctl_op kav_domain_ops[] = {
	KAV_IOCTL_OP(KAV_IOC_AV_CREATE, kav_domain_av_create,
		     struct kav_av_create, map_size),
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
