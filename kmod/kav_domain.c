// SPDX-License-Identifier: GPL-2.0
/*
 * A domain: the identity its opener had at open() and, once set, its auth
 * key. Each AV keeps the domain that created it (and so the identity)
 * alive until the AV is gone; the device file (kav_dev.c) holds one
 * reference too.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include "kav_objects.h"

/* Set once by the administration layer before /dev/kav exists. */
const struct kav_object_hooks *kav_hooks;

void kav_objects_set_hooks(const struct kav_object_hooks *hooks)
{
	kav_hooks = hooks;
}

/* A domain for the opener of @file, in the registry; ERR_PTR on failure. */
struct kav_domain *kav_domain_new(struct file *file)
{
	struct kav_domain *domain;

	domain = kzalloc(sizeof(*domain), KAV_TENANT_GFP);
	if (!domain)
		return ERR_PTR(-ENOMEM);
	kref_init(&domain->ref);
	mutex_init(&domain->lock);
	kav_identity_capture(&domain->id, file);
	if (kav_hooks->domain_added(domain)) {
		kav_domain_put(domain);
		return ERR_PTR(-ENOMEM);
	}
	return domain;
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

/* The device file is closed: out of listings; AVs may keep it alive. */
void kav_domain_file_closed(struct kav_domain *domain)
{
	kav_hooks->domain_removed(domain);
	kav_domain_put(domain);
}

/* KAV_IOC_DOMAIN_SET_KEY: once, before any AV, if granted. */
int kav_ioctl_domain_set_key(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_domain_key *cmd = ucmd->cmd;
	struct kav_domain *domain = obj;
	struct kav_grant *grant;
	int ret = 0;

	if (cmd->flags || cmd->key.__reserved)
		return -EINVAL;
	grant = kav_hold_grant(&domain->id, cmd->key.vni, "domain key");
	if (IS_ERR(grant))
		return PTR_ERR(grant);
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
