// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoint objects: how providers tell kav which fabric endpoints use an
 * AV and, once enabled, which of its auth keys. Each is an anon-inode file
 * that pins its AV; closing it (or the process dying) releases what it
 * held, so the counts behind libfabric's EBUSY rules cannot leak.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/slab.h>
#include "kav_objects.h"

struct kav_endpoint {
	struct kav_av *av;
	struct file *av_file;		/* pins the AV */
	bool enabled;			/* under av->table.lock */
	u64 keys;			/* key handles in use once enabled */
};

static int kav_ep_release(struct inode *inode, struct file *file)
{
	struct kav_endpoint *ep = file->private_data;
	struct kav_table *t = &ep->av->table;

	mutex_lock(&t->lock);
	if (ep->enabled)
		kav_keys_disable(t, ep->keys);
	mutex_unlock(&t->lock);
	fput(ep->av_file);
	kfree(ep);
	return 0;
}

static int kav_ioctl_ep_enable(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_ep_enable *cmd = ucmd->cmd;
	struct kav_endpoint *ep = obj;
	struct kav_table *t = &ep->av->table;
	int ret = 0;

	if (cmd->flags)
		return -EINVAL;
	ret = kav_table_lock(t);
	if (ret)
		return ret;
	if (ep->enabled) {
		ret = -EALREADY;
	} else {
		ep->keys = kav_keys_enable(t);
		ep->enabled = true;
	}
	kav_table_unlock(t);
	if (ret)
		return ret;

	cmd->keys = ep->keys;
	ret = kav_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		/* A failed call leaves the endpoint as it was. */
		mutex_lock(&t->lock);
		kav_keys_disable(t, ep->keys);
		ep->enabled = false;
		mutex_unlock(&t->lock);
	}
	return ret;
}

static const struct kav_ioctl_op kav_ep_ops[] = {
	KAV_IOCTL_OP(KAV_IOC_EP_ENABLE, kav_ioctl_ep_enable,
		     struct kav_ep_enable, keys),
};

static long kav_ep_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	return kav_ucmd_dispatch(file->private_data, kav_ep_ops,
				 ARRAY_SIZE(kav_ep_ops), cmd, arg);
}

static const struct file_operations kav_ep_fops = {
	.owner = THIS_MODULE,
	.release = kav_ep_release,
	.unlocked_ioctl = kav_ep_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/* KAV_IOC_AV_EP_OPEN: the fd is installed only once the reply is out. */
int kav_ioctl_av_ep_open(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_ep_open *cmd = ucmd->cmd;
	struct kav_av_file *h = obj;
	struct file *file;
	struct kav_endpoint *ep;
	int fd, ret;

	if (cmd->flags || cmd->__reserved)
		return -EINVAL;
	ep = kzalloc(sizeof(*ep), KAV_TENANT_GFP);
	if (!ep)
		return -ENOMEM;
	ep->av = h->av;
	ep->av_file = get_file(h->file);

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_free;
	}
	file = anon_inode_getfile("[kav-ep]", &kav_ep_fops, ep, O_RDWR);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		put_unused_fd(fd);
		goto err_free;
	}
	cmd->fd = fd;
	ret = kav_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		put_unused_fd(fd);
		fput(file);	/* releases ep and its AV reference */
		return ret;
	}
	fd_install(fd, file);
	return 0;

err_free:
	fput(ep->av_file);
	kfree(ep);
	return ret;
}
