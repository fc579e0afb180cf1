// SPDX-License-Identifier: GPL-2.0
/*
 * kav_nic: a test module modelling a NIC driver that sends through kav's
 * in-kernel consumer API. Each open of /dev/kav_nic is a queue pair; a
 * process binds it to one of its kav AVs (by fd) and asks it to "send"
 * to fi_addr_t values. As in a driver, the ioctl only queues the request:
 * a timer (softirq), or for a hardirq stream an irq_work it raises,
 * resolves each fi_addr_t exactly as a driver would before putting a
 * packet on the wire and puts a descriptor on the "hardware" ring; kav's
 * revocation callback tears down the descriptors of the revoked key.
 * See kav_nic.h for the commands.
 *
 * Locking: qp->mutex serialises the ioctls (one request at a time) and
 * BIND; qp->lock (a raw spinlock: the irq_work takes it in hard interrupt
 * context, on PREEMPT_RT too) guards the request, the stream, the ring and
 * the counters, and is held across each resolve, so that a resolve and
 * the revocation callback are ordered: a resolve under the lock after
 * the callback took it must not return the revoked key (nr_stale).
 */
#include <linux/completion.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include "kav_consumer.h"
#include "kav_nic.h"

/* Resolves per timer or irq_work run: a softirq's budget. */
#define KAV_NIC_CHUNK		256
#define KAV_NIC_REVOKED_MAX	16

struct kav_nic_desc {
	u64 fi_addr;
	u32 vni;
	bool valid;
};

enum kav_nic_req { KAV_NIC_REQ_NONE, KAV_NIC_REQ_SEND, KAV_NIC_REQ_SCAN };

struct kav_nic_qp {
	struct mutex mutex;		/* ioctls, BIND */
	raw_spinlock_t lock;		/* everything below; hardirq-safe */
	struct kav_consumer *av;	/* NULL until bound */
	struct timer_list timer;
	struct irq_work irq_work;
	/* The request an ioctl waits for. */
	enum kav_nic_req req;
	u64 req_next, req_end;
	struct kav_nic_send send;
	struct kav_nic_scan scan;
	struct completion done;
	/* The stream. */
	bool streaming, hardirq;
	u64 s_first, s_next, s_end;
	/* The "hardware": a ring of send descriptors. */
	struct kav_nic_desc ring[KAV_NIC_RING];
	u32 revoked[KAV_NIC_REVOKED_MAX];
	u32 nr_revoked_vnis;
	struct kav_nic_stats stats;
	struct kav_resolution res;	/* scratch */
};

static bool kav_nic_vni_revoked(struct kav_nic_qp *qp, u32 vni)
{
	u32 i;

	for (i = 0; i < qp->nr_revoked_vnis; i++)
		if (qp->revoked[i] == vni)
			return true;
	return false;
}

/* kav's callback: key @vni was revoked; drop what was queued with it. */
static void kav_nic_revoke(struct kav_consumer *c, void *priv, u32 vni)
{
	struct kav_nic_qp *qp = priv;
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&qp->lock, flags);
	qp->stats.nr_callbacks++;
	if (!in_task())
		qp->stats.nr_callbacks_atomic++;
	qp->stats.last_revoked_vni = vni;
	if (!kav_nic_vni_revoked(qp, vni) &&
	    qp->nr_revoked_vnis < KAV_NIC_REVOKED_MAX)
		qp->revoked[qp->nr_revoked_vnis++] = vni;
	for (i = 0; i < KAV_NIC_RING; i++) {
		if (qp->ring[i].valid && qp->ring[i].vni == vni) {
			qp->ring[i].valid = false;
			qp->stats.nr_torn_down++;
		}
	}
	raw_spin_unlock_irqrestore(&qp->lock, flags);
}

static const struct kav_consumer_ops kav_nic_ops = {
	.revoke = kav_nic_revoke,
};

/* A driver that forgot its callback (KAV_NIC_BIND_NULL_REVOKE). */
static const struct kav_consumer_ops kav_nic_null_ops = {
	.revoke = NULL,
};

/* Resolve @fi_addr into qp->res; qp->lock held. */
static int kav_nic_resolve(struct kav_nic_qp *qp, u64 fi_addr)
{
	int r = kav_consumer_resolve(qp->av, fi_addr, &qp->res);

	if (r == -EAGAIN)
		qp->stats.nr_again++;
	else if (!r && qp->res.keyed &&
		 kav_nic_vni_revoked(qp, qp->res.vni))
		qp->stats.nr_stale++;
	return r;
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

/* A chunk of the ioctl's request; true when it is complete. */
static bool kav_nic_run_req(struct kav_nic_qp *qp)
{
	struct kav_nic_send *s = &qp->send;
	unsigned int n;
	int r;

	if (qp->req == KAV_NIC_REQ_SEND) {
		/* Whatever kav leaves unwritten shows (KAV_NIC_IOC_LAST_RES). */
		memset(&qp->res, 0xa5, sizeof(qp->res));
		r = kav_nic_resolve(qp, s->fi_addr);
		if (r == -EAGAIN)
			return false;	/* the next tick */
		s->result = r;
		if (!r) {
			s->vni = qp->res.vni;
			s->addr_len = min_t(u32, qp->res.addr_len,
					    sizeof(s->addr));
			s->flags = qp->res.keyed ? KAV_NIC_KEYED : 0;
			s->user_id = qp->res.user_id;
			s->addr_format = qp->res.addr_format;
			memcpy(s->addr, qp->res.addr, s->addr_len);
		}
		return true;
	}
	for (n = 0; n < KAV_NIC_CHUNK && qp->req_next < qp->req_end; n++) {
		r = kav_nic_resolve(qp, qp->req_next);
		if (r == -EAGAIN)
			return false;
		kav_nic_count(&qp->scan, r, &qp->res);
		qp->req_next++;
	}
	return qp->req_next == qp->req_end;
}

/* A chunk of the stream: each success goes on the ring. */
static void kav_nic_run_stream(struct kav_nic_qp *qp)
{
	struct kav_nic_desc *d;
	unsigned int n;
	int r;

	for (n = 0; n < KAV_NIC_CHUNK; n++) {
		r = kav_nic_resolve(qp, qp->s_next);
		switch (r) {
		case 0:
			qp->stats.nr_ok++;
			/* One descriptor per destination (fi_addr mod ring). */
			d = &qp->ring[qp->s_next % KAV_NIC_RING];
			d->fi_addr = qp->s_next;
			d->vni = qp->res.vni;
			d->valid = true;
			break;
		case -EKEYREVOKED:
			qp->stats.nr_revoked++;
			break;
		case -EACCES:
			qp->stats.nr_denied++;
			break;
		case -EINVAL:
			qp->stats.nr_invalid++;
			break;
		case -EAGAIN:
			break;
		default:
			qp->stats.nr_other++;
			break;
		}
		if (++qp->s_next == qp->s_end)
			qp->s_next = qp->s_first;
	}
}

static void kav_nic_count_run(struct kav_nic_qp *qp)
{
	if (in_hardirq())
		qp->stats.nr_hardirq_runs++;
	else if (in_serving_softirq())
		qp->stats.nr_softirq_runs++;
	else
		qp->stats.nr_task_runs++;
}

/* The "interrupt": a hardirq stream's resolves. */
static void kav_nic_irq_work(struct irq_work *w)
{
	struct kav_nic_qp *qp = container_of(w, struct kav_nic_qp, irq_work);
	unsigned long flags;

	raw_spin_lock_irqsave(&qp->lock, flags);
	if (qp->streaming && qp->hardirq) {
		kav_nic_count_run(qp);
		kav_nic_run_stream(qp);
	}
	raw_spin_unlock_irqrestore(&qp->lock, flags);
}

/* The timer (softirq): requests, streams; re-armed while there is work. */
static void kav_nic_timer(struct timer_list *t)
{
	struct kav_nic_qp *qp = container_of(t, struct kav_nic_qp, timer);
	unsigned long flags;

	raw_spin_lock_irqsave(&qp->lock, flags);
	if (qp->req != KAV_NIC_REQ_NONE || (qp->streaming && !qp->hardirq))
		kav_nic_count_run(qp);
	if (qp->req != KAV_NIC_REQ_NONE && kav_nic_run_req(qp)) {
		qp->req = KAV_NIC_REQ_NONE;
		complete(&qp->done);
	}
	if (qp->streaming) {
		if (qp->hardirq)
			irq_work_queue(&qp->irq_work);
		else
			kav_nic_run_stream(qp);
	}
	/* Under the lock: kav_nic_quiesce() sees it re-armed or not at all. */
	if (qp->req != KAV_NIC_REQ_NONE || qp->streaming)
		mod_timer(&qp->timer, jiffies + 1);
	raw_spin_unlock_irqrestore(&qp->lock, flags);
}

/* A hardirq stream resolves in hard interrupt context, even on RT. */
static void kav_nic_irq_work_init(struct irq_work *w)
{
	struct irq_work hard = IRQ_WORK_INIT_HARD(kav_nic_irq_work);

	*w = hard;
}

static int kav_nic_open(struct inode *inode, struct file *file)
{
	struct kav_nic_qp *qp;

	qp = kzalloc(sizeof(*qp), GFP_KERNEL_ACCOUNT);
	if (!qp)
		return -ENOMEM;
	mutex_init(&qp->mutex);
	raw_spin_lock_init(&qp->lock);
	timer_setup(&qp->timer, kav_nic_timer, 0);
	kav_nic_irq_work_init(&qp->irq_work);
	init_completion(&qp->done);
	file->private_data = qp;
	return 0;
}

/* Stop the stream and wait until no timer or irq_work runs. */
static void kav_nic_quiesce(struct kav_nic_qp *qp)
{
	raw_spin_lock_irq(&qp->lock);
	qp->streaming = false;
	raw_spin_unlock_irq(&qp->lock);
	/* Not re-armed now: no request (the ioctl waits) and no stream. */
	timer_delete_sync(&qp->timer);
	irq_work_sync(&qp->irq_work);
}

static int kav_nic_release(struct inode *inode, struct file *file)
{
	struct kav_nic_qp *qp = file->private_data;

	/* Hardware first, then the consumer (kav_consumer_put()'s rule). */
	kav_nic_quiesce(qp);
	kav_consumer_put(qp->av);
	mutex_destroy(&qp->mutex);
	kfree(qp);
	return 0;
}

static long kav_nic_bind(struct kav_nic_qp *qp, unsigned long arg,
			 const struct kav_consumer_ops *ops)
{
	struct kav_consumer *c;
	long ret = 0;

	if (arg > INT_MAX)
		return -EBADF;
	mutex_lock(&qp->mutex);
	if (qp->av) {
		ret = -EBUSY;
		goto out;
	}
	c = kav_consumer_get_notify((int)arg, ops, qp);
	if (IS_ERR(c)) {
		ret = PTR_ERR(c);
		goto out;
	}
	raw_spin_lock_irq(&qp->lock);
	qp->av = c;
	raw_spin_unlock_irq(&qp->lock);
out:
	mutex_unlock(&qp->mutex);
	return ret;
}

static long kav_nic_bind_ops(struct kav_nic_qp *qp, void __user *uarg)
{
	struct kav_nic_bind b;

	if (copy_from_user(&b, uarg, sizeof(b)))
		return -EFAULT;
	if (b.flags & ~KAV_NIC_BIND_NULL_REVOKE)
		return -EINVAL;
	if (b.fd < 0)
		return -EBADF;
	return kav_nic_bind(qp, b.fd, b.flags & KAV_NIC_BIND_NULL_REVOKE ?
			    &kav_nic_null_ops : &kav_nic_ops);
}

/*
 * Hand the prepared request to the timer and wait for it; qp->mutex held.
 * On a fatal signal the request is withdrawn.
 */
static int kav_nic_wait(struct kav_nic_qp *qp, enum kav_nic_req req)
{
	int ret;

	reinit_completion(&qp->done);
	raw_spin_lock_irq(&qp->lock);
	qp->req = req;
	raw_spin_unlock_irq(&qp->lock);
	mod_timer(&qp->timer, jiffies);
	ret = wait_for_completion_killable(&qp->done);
	if (ret) {
		raw_spin_lock_irq(&qp->lock);
		qp->req = KAV_NIC_REQ_NONE;
		raw_spin_unlock_irq(&qp->lock);
		return -EINTR;
	}
	return 0;
}

static long kav_nic_send(struct kav_nic_qp *qp, void __user *uarg)
{
	struct kav_nic_send *s;
	u64 fi_addr;
	long ret;

	if (copy_from_user(&fi_addr, uarg, sizeof(fi_addr)))
		return -EFAULT;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mutex_lock(&qp->mutex);
	if (!qp->av) {
		ret = -ENOTCONN;
		goto unlock;
	}
	memset(&qp->send, 0, sizeof(qp->send));
	qp->send.fi_addr = fi_addr;
	ret = kav_nic_wait(qp, KAV_NIC_REQ_SEND);
	if (!ret)
		*s = qp->send;
unlock:
	mutex_unlock(&qp->mutex);
	if (!ret && copy_to_user(uarg, s, sizeof(*s)))
		ret = -EFAULT;
	kfree(s);
	return ret;
}

static long kav_nic_scan(struct kav_nic_qp *qp, void __user *uarg)
{
	struct kav_nic_scan s;
	long ret;

	if (copy_from_user(&s, uarg, sizeof(s)))
		return -EFAULT;
	if (s.count > KAV_NIC_SCAN_MAX)
		return -EINVAL;
	mutex_lock(&qp->mutex);
	if (!qp->av) {
		ret = -ENOTCONN;
		goto unlock;
	}
	memset(&qp->scan, 0, sizeof(qp->scan));
	qp->scan.first = s.first;
	qp->scan.count = s.count;
	qp->scan.vni = s.vni;
	qp->req_next = s.first;
	qp->req_end = s.first + s.count;
	ret = kav_nic_wait(qp, KAV_NIC_REQ_SCAN);
	if (!ret)
		s = qp->scan;
unlock:
	mutex_unlock(&qp->mutex);
	if (!ret && copy_to_user(uarg, &s, sizeof(s)))
		ret = -EFAULT;
	return ret;
}

static long kav_nic_stream_start(struct kav_nic_qp *qp, void __user *uarg)
{
	struct kav_nic_stream st;
	long ret = 0;

	if (copy_from_user(&st, uarg, sizeof(st)))
		return -EFAULT;
	if (!st.count || st.count > KAV_NIC_SCAN_MAX ||
	    (st.flags & ~KAV_NIC_STREAM_HARDIRQ))
		return -EINVAL;
	mutex_lock(&qp->mutex);
	raw_spin_lock_irq(&qp->lock);
	if (!qp->av)
		ret = -ENOTCONN;
	else if (qp->streaming)
		ret = -EBUSY;
	if (!ret) {
		qp->s_first = st.first;
		qp->s_next = st.first;
		qp->s_end = st.first + st.count;
		qp->hardirq = st.flags & KAV_NIC_STREAM_HARDIRQ;
		qp->streaming = true;
	}
	raw_spin_unlock_irq(&qp->lock);
	if (!ret)
		mod_timer(&qp->timer, jiffies);
	mutex_unlock(&qp->mutex);
	return ret;
}

static long kav_nic_stream_stop(struct kav_nic_qp *qp)
{
	mutex_lock(&qp->mutex);
	kav_nic_quiesce(qp);
	mutex_unlock(&qp->mutex);
	return 0;
}

static long kav_nic_stats(struct kav_nic_qp *qp, void __user *uarg)
{
	struct kav_nic_stats st;
	u32 i;

	raw_spin_lock_irq(&qp->lock);
	st = qp->stats;
	st.nr_ring_revoked = 0;
	for (i = 0; i < KAV_NIC_RING; i++)
		if (qp->ring[i].valid &&
		    kav_nic_vni_revoked(qp, qp->ring[i].vni))
			st.nr_ring_revoked++;
	raw_spin_unlock_irq(&qp->lock);
	return copy_to_user(uarg, &st, sizeof(st)) ? -EFAULT : 0;
}

static long kav_nic_last_res(struct kav_nic_qp *qp, void __user *uarg)
{
	struct kav_nic_raw *raw;
	long ret = 0;

	BUILD_BUG_ON(sizeof(qp->res) > sizeof(raw->res));
	raw = kzalloc(sizeof(*raw), GFP_KERNEL);
	if (!raw)
		return -ENOMEM;
	raw->size = sizeof(qp->res);
	mutex_lock(&qp->mutex);
	raw_spin_lock_irq(&qp->lock);
	memcpy(raw->res, &qp->res, sizeof(qp->res));
	raw_spin_unlock_irq(&qp->lock);
	mutex_unlock(&qp->mutex);
	if (copy_to_user(uarg, raw, sizeof(*raw)))
		ret = -EFAULT;
	kfree(raw);
	return ret;
}

static long kav_nic_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct kav_nic_qp *qp = file->private_data;

	switch (cmd) {
	case KAV_NIC_IOC_BIND:
		return kav_nic_bind(qp, arg, &kav_nic_ops);
	case KAV_NIC_IOC_BIND_OPS:
		return kav_nic_bind_ops(qp, (void __user *)arg);
	case KAV_NIC_IOC_SEND:
		return kav_nic_send(qp, (void __user *)arg);
	case KAV_NIC_IOC_SCAN:
		return kav_nic_scan(qp, (void __user *)arg);
	case KAV_NIC_IOC_STREAM_START:
		return kav_nic_stream_start(qp, (void __user *)arg);
	case KAV_NIC_IOC_STREAM_STOP:
		return kav_nic_stream_stop(qp);
	case KAV_NIC_IOC_STATS:
		return kav_nic_stats(qp, (void __user *)arg);
	case KAV_NIC_IOC_LAST_RES:
		return kav_nic_last_res(qp, (void __user *)arg);
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
