// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel API for consumers such as NIC drivers (kav_consumer.h):
 * resolve fi_addr -> (address, auth key) with the same authorisation
 * userspace is held to, so that a driver can trust what it sends with.
 */
#include <linux/file.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "kav.h"
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
 * An AV opened by name from another domain carries its creator's keys:
 * the opener may send with one only if it holds a grant for it itself.
 */
static int kav_consumer_authorize(struct kav_consumer *c,
				  const struct kav_resolution *res)
{
	struct kav_grant *g;

	if (c->h->domain == c->h->av->domain || !res->keyed)
		return 0;
	g = kav_grant_authorize(&c->h->domain->id, res->vni, "resolve");
	if (!g)
		return -EACCES;
	kav_grant_put(g);
	return 0;
}

int kav_consumer_resolve(struct kav_consumer *c, u64 fi_addr,
			 struct kav_resolution *res)
{
	struct kav_table *t = &c->h->av->table;
	u64 idx = lower_32_bits(fi_addr);
	int ret;

	mutex_lock(&t->lock);
	ret = kav_table_resolve(t, idx, res);
	mutex_unlock(&t->lock);
	return ret ?: kav_consumer_authorize(c, res);
}
EXPORT_SYMBOL_GPL(kav_consumer_resolve);
