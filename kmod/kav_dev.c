// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kav: each open is a domain (kav_domain.c); its ioctls create AVs,
 * set the domain's key and tell a tenant who it is (kav_whoami.c).
 */
#include <linux/err.h>
#include "kav_objects.h"

static int kav_dev_open(struct inode *inode, struct file *file)
{
	struct kav_domain *domain = kav_domain_new(file);

	if (IS_ERR(domain))
		return PTR_ERR(domain);
	file->private_data = domain;
	return 0;
}

static int kav_dev_release(struct inode *inode, struct file *file)
{
	kav_domain_file_closed(file->private_data);
	return 0;
}

static const struct kav_ioctl_op kav_dev_ops[] = {
	KAV_IOCTL_OP(KAV_IOC_AV_CREATE, kav_ioctl_av_create,
		     struct kav_av_create, map_size),
	KAV_IOCTL_OP(KAV_IOC_DOMAIN_SET_KEY, kav_ioctl_domain_set_key,
		     struct kav_domain_key, key),
	KAV_IOCTL_OP(KAV_IOC_DOMAIN_WHOAMI, kav_ioctl_domain_whoami,
		     struct kav_whoami, __reserved),
};

static long kav_dev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	return kav_ucmd_dispatch(file->private_data, kav_dev_ops,
				 ARRAY_SIZE(kav_dev_ops), cmd, arg);
}

const struct file_operations kav_dev_fops = {
	.owner = THIS_MODULE,
	.open = kav_dev_open,
	.release = kav_dev_release,
	.unlocked_ioctl = kav_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};
