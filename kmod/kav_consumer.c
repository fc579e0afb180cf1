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
	struct kav_av *av;
};

struct kav_consumer *kav_consumer_get(int fd)
{
	struct kav_consumer *c;
	struct file *file = fget(fd);
	struct kav_av *av;

	if (!file)
		return ERR_PTR(-EBADF);
	av = kav_av_from_file(file);
	if (!av) {
		fput(file);
		return ERR_PTR(-EINVAL);
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		fput(file);
		return ERR_PTR(-ENOMEM);
	}
	c->file = file;
	c->av = av;
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

int kav_consumer_resolve(struct kav_consumer *c, u64 fi_addr,
			 struct kav_resolution *res)
{
	struct kav_table *t = &c->av->table;
	u64 idx = lower_32_bits(fi_addr);
	int ret;

	mutex_lock(&t->lock);
	ret = kav_table_resolve(t, idx, res);
	mutex_unlock(&t->lock);
	return ret;
}
EXPORT_SYMBOL_GPL(kav_consumer_resolve);
