// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel API for consumers such as NIC drivers (kav_consumer.h,
 * Documentation/consumer-api.rst): resolve fi_addr -> (address, auth key)
 * with the same authorisation userspace is held to, so that a driver can
 * trust what it sends with. The consumer acts for whoever opened the AV
 * file it was given: each entry's key is checked against that opener's
 * grants, whoever created the AV or wrote the entry.
 *
 * Resolve takes no lock and never sleeps: it reads the entry and its key
 * slot from the table pages by the sequence protocol userspace readers
 * follow (Documentation/table-layout.rst), and the grant list under RCU.
 * The objects it reads live as long as the consumer's file (the AV, its
 * table pages, the opener's domain and identity) or are freed after a
 * grace period (grants, the page index's xarray nodes).
 *
 * Revocation (kav_grant_revoke()) marks the key slots revoked and takes
 * the grant off the list; GRANT_DEL then calls kav_consumers_revoke(): it
 * waits for a grace period, so that every resolve that could have missed
 * the revocation is over, and then calls every consumer's callback with
 * the key. Every one: a consumer's AV may have held the key earlier and
 * dropped it (entries removed, then the slot), while the driver still
 * holds state built under it; the callback is cheap to ignore, and a
 * tenant must not be able to opt its NIC state out of a revocation.
 */
#include <linux/file.h>
#include <linux/kcsan-checks.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "kav_objects.h"
#include "kav_consumer.h"

/*
 * Reads of one entry (or key slot) before a resolve gives up with
 * -EAGAIN: the writer's odd window is a few stores with preemption off,
 * but a reader in an interrupt on the writer's own CPU would spin until
 * the interrupt returned, that is forever.
 */
#define KAV_RESOLVE_TRIES	64

struct kav_consumer {
	struct file *file;		/* pins the AV and this module */
	struct kav_av_file *h;		/* the open AV the consumer was given */
	const struct kav_consumer_ops *ops;	/* NULL: no callback */
	void *priv;
	struct list_head node;		/* in kav_consumers if @ops */
};

/*
 * Consumers with a revocation callback. The mutex is held across the
 * callbacks, so that kav_consumer_put() waits for a running one: a
 * driver must not call kav_consumer_get_notify() or kav_consumer_put()
 * while it holds a lock its callback takes (kav_consumer.h).
 */
static LIST_HEAD(kav_consumers);
static DEFINE_MUTEX(kav_consumers_lock);

/* struct kav_resolution is copied out by drivers: no implicit padding. */
static_assert(sizeof(struct kav_resolution) == KAV_ADDR_MAX_LEN + 24);
static_assert(offsetof(struct kav_resolution, addr_len) == KAV_ADDR_MAX_LEN);
static_assert(offsetof(struct kav_resolution, vni) == KAV_ADDR_MAX_LEN + 8);
static_assert(offsetof(struct kav_resolution, keyed) == KAV_ADDR_MAX_LEN + 12);
static_assert(offsetof(struct kav_resolution, __pad) == KAV_ADDR_MAX_LEN + 13);
static_assert(offsetof(struct kav_resolution, user_id) ==
	      KAV_ADDR_MAX_LEN + 16);

/**
 * kav_consumer_get_notify() - take a reference on the AV behind a file
 *	descriptor, with a revocation callback
 * @fd: a file descriptor in the calling task's fd table
 * @ops: the callbacks (struct kav_consumer_ops), or NULL for none; must
 *	stay valid until kav_consumer_put()
 * @priv: passed to the callbacks
 *
 * The AV, the identity of whoever opened the file (the consumer acts for
 * it), and so kav.ko, stay alive until kav_consumer_put(). Process
 * context; may sleep.
 *
 * Takes kav's consumer list mutex, which is held across every callback:
 * the caller must not hold a lock that its callback takes.
 *
 * Return: the consumer, or ERR_PTR(-EBADF) if @fd is not open,
 * ERR_PTR(-EINVAL) if it is not a kav AV or @ops has no revoke callback,
 * ERR_PTR(-ENOMEM).
 */
struct kav_consumer *kav_consumer_get_notify(int fd,
					     const struct kav_consumer_ops *ops,
					     void *priv)
{
	struct kav_consumer *c;
	struct file *file = fget(fd);
	struct kav_av_file *h;

	might_sleep();
	/* A callback table without the callback would be called anyway. */
	if (ops && !ops->revoke) {
		if (file)
			fput(file);
		return ERR_PTR(-EINVAL);
	}
	if (!file)
		return ERR_PTR(-EBADF);
	h = kav_av_file_of(file);
	if (!h) {
		fput(file);
		return ERR_PTR(-EINVAL);
	}
	c = kzalloc(sizeof(*c), KAV_TENANT_GFP);
	if (!c) {
		fput(file);
		return ERR_PTR(-ENOMEM);
	}
	c->file = file;
	c->h = h;
	c->ops = ops;
	c->priv = priv;
	INIT_LIST_HEAD(&c->node);
	if (ops) {
		mutex_lock(&kav_consumers_lock);
		list_add_tail(&c->node, &kav_consumers);
		mutex_unlock(&kav_consumers_lock);
	}
	return c;
}
EXPORT_SYMBOL_GPL(kav_consumer_get_notify);

/**
 * kav_consumer_get() - take a reference on the AV behind a file descriptor
 * @fd: a file descriptor in the calling task's fd table
 *
 * kav_consumer_get_notify() without a callback. Process context.
 *
 * Return: the consumer, or ERR_PTR(-EBADF), ERR_PTR(-EINVAL) (not a kav
 * AV), ERR_PTR(-ENOMEM).
 */
struct kav_consumer *kav_consumer_get(int fd)
{
	return kav_consumer_get_notify(fd, NULL, NULL);
}
EXPORT_SYMBOL_GPL(kav_consumer_get);

/**
 * kav_consumer_put() - drop a consumer
 * @c: from kav_consumer_get*(); NULL or an ERR_PTR() is ignored
 *
 * Unregisters the callback, waiting for a running one, and drops the
 * reference on the AV. Process context; may sleep. Must not be called
 * from the consumer's own callback, nor while holding a lock that the
 * callback takes. The caller must have stopped its own resolves of @c
 * (timers, interrupts) first: @c is freed.
 */
void kav_consumer_put(struct kav_consumer *c)
{
	if (IS_ERR_OR_NULL(c))
		return;
	might_sleep();
	if (c->ops) {
		mutex_lock(&kav_consumers_lock);
		list_del(&c->node);
		mutex_unlock(&kav_consumers_lock);
	}
	fput(c->file);
	kfree(c);
}
EXPORT_SYMBOL_GPL(kav_consumer_put);

/*
 * A grant for key @vni was revoked: its key slots are marked and it is
 * off the grant list. Once every resolve that may have started before is
 * over, tell every consumer. Process context, no kav lock held (GRANT_DEL,
 * after kav_grant_revoke()).
 */
void kav_consumers_revoke(u32 vni)
{
	struct kav_consumer *c;

	/* Resolves are RCU readers: the revocation is visible after this. */
	synchronize_rcu();
	mutex_lock(&kav_consumers_lock);
	list_for_each_entry(c, &kav_consumers, node)
		c->ops->revoke(c, c->priv, vni);
	mutex_unlock(&kav_consumers_lock);
}

/*
 * A consistent copy of entry @e into @res (addr, addr_len, user_id) and
 * its key handle into *@key; its seq into *@seq. -EINVAL if it is no
 * entry, -EAGAIN if a writer kept it changing. RCU read side.
 */
static int kav_consumer_read_entry(struct kav_table *t,
				   const struct kav_entry *e,
				   struct kav_resolution *res, u8 *key,
				   u32 *seq)
{
	unsigned int tries;
	u16 len;
	u8 flags;

	for (tries = 0; tries < KAV_RESOLVE_TRIES; tries++) {
		/* Pairs with kav_entry_seq_end(): the entry before seq. */
		*seq = smp_load_acquire(&e->seq);
		if (*seq & 1) {
			cpu_relax();
			continue;
		}
		/* The copy may race with a writer: the seq check decides. */
		kcsan_disable_current();
		flags = READ_ONCE(e->flags);
		len = READ_ONCE(e->addr_len);
		*key = READ_ONCE(e->auth_key);
		res->user_id = READ_ONCE(e->user_id);
		if (len <= t->addr_max)
			memcpy(res->addr, e->addr, len);
		kcsan_enable_current();
		/* The copy is complete before seq is read again. */
		smp_rmb();
		if (READ_ONCE(e->seq) != *seq)
			continue;
		if (!(flags & KAV_ENTRY_VALID))
			return -EINVAL;
		/* A stable entry's length is within addr_max: never else. */
		if (WARN_ON_ONCE(len > t->addr_max))
			return -EINVAL;
		res->addr_len = len;
		return 0;
	}
	return -EAGAIN;
}

/* Key slot @handle's flags and vni, consistently; -EAGAIN as above. */
static int kav_consumer_read_key(struct kav_table *t, u8 handle, u32 *flags,
				 u32 *vni)
{
	const struct kav_key_slot *k;
	unsigned int tries;
	u64 seq;

	if (handle >= KAV_MAX_AUTH_KEYS)
		return -EINVAL;
	k = kav_key_slot_ro(t, handle);
	for (tries = 0; tries < KAV_RESOLVE_TRIES; tries++) {
		/* Pairs with kav_seq_end(): the slot before seq. */
		seq = smp_load_acquire(&k->seq);
		if (seq & 1) {
			cpu_relax();
			continue;
		}
		/* May race with a writer (memset on removal): seq decides. */
		*flags = data_race(k->flags);
		/* As above. */
		*vni = data_race(k->vni);
		/* The copy is complete before seq is read again. */
		smp_rmb();
		if (READ_ONCE(k->seq) == seq)
			return 0;
	}
	return -EAGAIN;
}

/* The entry and its key, consistently with each other. RCU read side. */
static int kav_consumer_read(struct kav_table *t, u64 idx,
			     struct kav_resolution *res)
{
	const struct kav_entry *e = kav_pages_entry_lockless(t, idx);
	u32 seq, flags;
	int ret;
	u8 key;

	if (!e)
		return -EINVAL;
	ret = kav_consumer_read_entry(t, e, res, &key, &seq);
	if (ret)
		return ret;
	if (key == KAV_ENTRY_NO_KEY)
		return 0;
	ret = kav_consumer_read_key(t, key, &flags, &res->vni);
	if (ret)
		return ret;
	/*
	 * The entry still binds the slot (unchanged since it was copied), so
	 * the slot was not removed or reused before it was read: a slot goes
	 * only once no entry is bound to it.
	 */
	smp_rmb();
	if (READ_ONCE(e->seq) != seq)
		return -EAGAIN;
	if (!(flags & KAV_KEY_VALID))
		return -EINVAL;
	if (flags & KAV_KEY_REVOKED)
		return -EKEYREVOKED;
	res->keyed = 1;
	return 0;
}

/**
 * kav_consumer_resolve() - resolve an fi_addr_t of the consumer's AV
 * @c: from kav_consumer_get*()
 * @fi_addr: a table index; bits 32-63 (the caller's group and rx bits)
 *	are ignored
 * @res: out: the address, its key and user id; every byte written (all
 *	zero on failure)
 *
 * Callable from any context but NMI: process, softirq (timers, NAPI),
 * hardirq, with or without locks held. Takes no lock and never sleeps: it
 * reads the table by the lock-free sequence protocol userspace readers
 * use, and the grants under RCU. An entry a writer keeps changing is
 * read a bounded number of times (a resolve in an interrupt on the
 * writer's own CPU would otherwise wait forever), then -EAGAIN: try again
 * later, from another context or after the interrupt. Once the revocation
 * callback for a key has been called (struct kav_consumer_ops), no
 * resolve that began after that returns an entry under the revoked grant.
 *
 * Return: 0, or
 * -EINVAL (not a valid entry),
 * -EKEYREVOKED (the entry's key, or its domain's key, was revoked),
 * -EACCES (the opener of the AV file the consumer was given holds no
 * live grant for the entry's key, whoever created the AV or wrote the
 * entry; or the entry has no key and allow_keyless is off),
 * -EAGAIN (a writer kept the entry changing: retry).
 */
int kav_consumer_resolve(struct kav_consumer *c, u64 fi_addr,
			 struct kav_resolution *res)
{
	struct kav_table *t = &c->h->av->table;
	struct kav_domain *d = c->h->domain;
	int ret;

	res->addr_len = 0;
	res->addr_format = t->addr_format;
	res->vni = 0;
	res->keyed = 0;
	memset(res->__pad, 0, sizeof(res->__pad));
	rcu_read_lock();
	ret = kav_consumer_read(t, lower_32_bits(fi_addr), res);
	if (!ret)
		ret = kav_may_resolve(&d->id, kav_domain_key_grant(d),
				      res->keyed, res->vni);
	rcu_read_unlock();
	if (ret) {
		memset(res, 0, sizeof(*res));
		return ret;
	}
	memset(res->addr + res->addr_len, 0,
	       sizeof(res->addr) - res->addr_len);
	return 0;
}
EXPORT_SYMBOL_GPL(kav_consumer_resolve);
