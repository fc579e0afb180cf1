// SPDX-License-Identifier: GPL-2.0
/*
 * The identity a domain acts with: a snapshot of its opener taken at open().
 *
 * Credentials come from file->f_cred, not current, so a descriptor passed
 * to another process (SCM_RIGHTS) keeps acting as its opener: the fd is a
 * capability. The cgroup v2 and network namespace are those of the task
 * that opened the device, recorded as ids that are never reused.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <net/net_namespace.h>
#include "kav.h"

void kav_identity_capture(struct kav_identity *id, const struct file *file)
{
	id->cred = get_cred(file->f_cred);

	rcu_read_lock();
	id->cgroup_id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();

	id->netns_cookie = current->nsproxy->net_ns->net_cookie;
}

void kav_identity_release(struct kav_identity *id)
{
	put_cred(id->cred);
	id->cred = NULL;
}
