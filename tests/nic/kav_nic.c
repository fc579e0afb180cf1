// SPDX-License-Identifier: GPL-2.0
/*
 * kav_nic: a test module modelling a NIC driver that sends through kav's
 * in-kernel consumer API. Each open of /dev/kav_nic is a queue pair; a
 * process binds it to one of its kav AVs (by fd) and asks it to "send"
 * to fi_addr_t values: the module resolves each one exactly as a driver
 * would before putting a packet on the wire, and reports what kav said.
 * See kav_nic.h for the commands.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "kav_consumer.h"
#include "kav_nic.h"

struct kav_nic_qp {
	struct mutex lock;		/* serialises BIND against users */
	struct kav_consumer *av;	/* NULL until bound */
};

static int kav_nic_open(struct inode *inode, struct file *file)
{
	struct kav_nic_qp *qp;

	qp = kzalloc(sizeof(*qp), GFP_KERNEL_ACCOUNT);
	if (!qp)
		return -ENOMEM;
	mutex_init(&qp->lock);
	file->private_data = qp;
	return 0;
}

static int kav_nic_release(struct inode *inode, struct file *file)
{
	struct kav_nic_qp *qp = file->private_data;

	if (qp->av)
		kav_consumer_put(qp->av);
	mutex_destroy(&qp->lock);
	kfree(qp);
	return 0;
}

static long kav_nic_bind(struct kav_nic_qp *qp, unsigned long arg)
{
	struct kav_consumer *c;
	long ret = 0;

	if (arg > INT_MAX)
		return -EBADF;
	mutex_lock(&qp->lock);
	if (qp->av) {
		ret = -EBUSY;
		goto out;
	}
	c = kav_consumer_get((int)arg);
	if (IS_ERR(c)) {
		ret = PTR_ERR(c);
		goto out;
	}
	qp->av = c;
out:
	mutex_unlock(&qp->lock);
	return ret;
}

/* What a send of one packet needs: the resolution and the reply. */
struct kav_nic_buf {
	struct kav_resolution res;
	struct kav_nic_send send;
};

static long kav_nic_send(struct kav_nic_qp *qp, void __user *uarg)
{
	struct kav_nic_send *s;
	struct kav_nic_buf *b;
	long ret = 0;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	s = &b->send;
	if (copy_from_user(&s->fi_addr, uarg, sizeof(s->fi_addr))) {
		ret = -EFAULT;
		goto out;
	}
	mutex_lock(&qp->lock);
	if (!qp->av) {
		mutex_unlock(&qp->lock);
		ret = -ENOTCONN;
		goto out;
	}
	s->result = kav_consumer_resolve(qp->av, s->fi_addr, &b->res);
	mutex_unlock(&qp->lock);
	if (!s->result) {
		s->vni = b->res.vni;
		s->addr_len = min_t(u32, b->res.addr_len, sizeof(s->addr));
		s->flags = b->res.keyed ? KAV_NIC_KEYED : 0;
		s->user_id = b->res.user_id;
		s->addr_format = b->res.addr_format;
		memcpy(s->addr, b->res.addr, s->addr_len);
	}
	if (copy_to_user(uarg, s, sizeof(*s)))
		ret = -EFAULT;
out:
	kfree(b);
	return ret;
}

static void kav_nic_count(struct kav_nic_scan *s, int r,
			  const struct kav_resolution *res)
{
	switch (r) {
	case 0:
		s->nr_ok++;
		if (res->keyed && res->vni == s->vni)
			s->nr_vni_match++;
		break;
	case -EINVAL:
		s->nr_invalid++;
		break;
	case -EKEYREVOKED:
		s->nr_revoked++;
		break;
	case -EACCES:
		s->nr_denied++;
		break;
	default:
		s->nr_other++;
		s->last_other = r;
		break;
	}
}

static long kav_nic_scan(struct kav_nic_qp *qp, void __user *uarg)
{
	struct kav_resolution *res;
	struct kav_nic_scan s;
	long ret = 0;
	u32 i;

	if (copy_from_user(&s, uarg, sizeof(s)))
		return -EFAULT;
	if (s.count > KAV_NIC_SCAN_MAX)
		return -EINVAL;
	s.nr_ok = 0;
	s.nr_vni_match = 0;
	s.nr_invalid = 0;
	s.nr_revoked = 0;
	s.nr_denied = 0;
	s.nr_other = 0;
	s.last_other = 0;
	s.__reserved = 0;

	res = kmalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	mutex_lock(&qp->lock);
	if (!qp->av) {
		ret = -ENOTCONN;
		goto unlock;
	}
	for (i = 0; i < s.count; i++) {
		kav_nic_count(&s, kav_consumer_resolve(qp->av, s.first + i,
						       res), res);
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto unlock;
		}
		cond_resched();
	}
unlock:
	mutex_unlock(&qp->lock);
	kfree(res);
	if (!ret && copy_to_user(uarg, &s, sizeof(s)))
		ret = -EFAULT;
	return ret;
}

static long kav_nic_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct kav_nic_qp *qp = file->private_data;

	switch (cmd) {
	case KAV_NIC_IOC_BIND:
		return kav_nic_bind(qp, arg);
	case KAV_NIC_IOC_SEND:
		return kav_nic_send(qp, (void __user *)arg);
	case KAV_NIC_IOC_SCAN:
		return kav_nic_scan(qp, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations kav_nic_fops = {
	.owner = THIS_MODULE,
	.open = kav_nic_open,
	.release = kav_nic_release,
	.unlocked_ioctl = kav_nic_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice kav_nic_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = KAV_NIC_DEVICE_NAME,
	.fops = &kav_nic_fops,
	.mode = 0666,
};

static int __init kav_nic_init(void)
{
	return misc_register(&kav_nic_miscdev);
}

static void __exit kav_nic_exit(void)
{
	misc_deregister(&kav_nic_miscdev);
}

module_init(kav_nic_init);
module_exit(kav_nic_exit);

MODULE_DESCRIPTION("kav test NIC: sends through kav's consumer API");
MODULE_AUTHOR("The kav developers");
MODULE_LICENSE("GPL");
