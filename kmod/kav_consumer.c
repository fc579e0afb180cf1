// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel API for consumers such as NIC drivers (kav_consumer.h):
 * resolve fi_addr -> (address, auth key) with the same authorisation
 * userspace is held to, so that a driver can trust what it sends with.
 * The consumer acts for whoever opened the AV file it was given: each
 * entry's key is checked against that opener's grants, whoever created
 * the AV or wrote the entry.
 */
#include <linux/file.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "kav_objects.h"
#include "kav_consumer.h"

struct kav_consumer {
	struct file *file;		/* pins the AV and this module */
	struct kav_av_file *h;		/* the open AV the consumer was given */
};

struct kav_consumer *kav_consumer_get(int fd)
{
	struct kav_consumer *c;
	struct file *file = fget(fd);
	struct kav_av_file *h;

	if (!file)
		return ERR_PTR(-EBADF);
	h = kav_av_file_of(file);
	if (!h) {
		fput(file);
		return ERR_PTR(-EINVAL);
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		fput(file);
		return ERR_PTR(-ENOMEM);
	}
	c->file = file;
	c->h = h;
	return c;
}
EXPORT_SYMBOL_GPL(kav_consumer_get);

void kav_consumer_put(struct kav_consumer *c)
{
	if (IS_ERR_OR_NULL(c))
		return;
	fput(c->file);
	kfree(c);
}
EXPORT_SYMBOL_GPL(kav_consumer_put);

/*
 * Copy entry @idx into @res. EINVAL if it is no entry, EKEYREVOKED if its
 * key slot was revoked. t->lock held.
 */
static int kav_consumer_read(struct kav_table *t, u64 idx,
			     struct kav_resolution *res)
{
	const struct kav_entry *e = kav_table_entry_ro(t, idx);
	const struct kav_key_slot *k;

	if (!e)
		return -EINVAL;
	res->keyed = e->auth_key != KAV_ENTRY_NO_KEY;
	res->vni = 0;
	if (res->keyed) {
		k = kav_key_slot_ro(t, e->auth_key);
		if (k->flags & KAV_KEY_REVOKED)
			return -EKEYREVOKED;
		res->vni = k->vni;
	}
	res->addr_len = e->addr_len;
	res->addr_format = t->addr_format;
	res->user_id = e->user_id;
	memcpy(res->addr, e->addr, e->addr_len);
	return 0;
}

int kav_consumer_resolve(struct kav_consumer *c, u64 fi_addr,
			 struct kav_resolution *res)
{
	struct kav_table *t = &c->h->av->table;
	struct kav_domain *d = c->h->domain;
	u64 idx = lower_32_bits(fi_addr);
	int ret;

	ret = kav_table_lock(t);
	if (ret)
		return ret;
	ret = kav_consumer_read(t, idx, res);
	kav_table_unlock(t);
	if (ret)
		return ret;
	return kav_may_resolve(&d->id, kav_domain_key_grant(d), res->keyed,
			       res->vni);
}
EXPORT_SYMBOL_GPL(kav_consumer_resolve);
