// SPDX-License-Identifier: GPL-2.0
/*
 * The identity a domain acts with: a snapshot of its opener taken at open().
 *
 * Credentials come from file->f_cred, not current, so a descriptor passed
 * to another process (SCM_RIGHTS) keeps acting as its opener: the fd is a
 * capability. The cgroup v2 (held, so that grants to an ancestor can be
 * checked) and the network namespace are those of the task that opened
 * the device; the namespace is recorded by its cookie, which is never
 * reused. The IPC namespace, which scopes AV names, is held.
 */
#include <linux/cgroup.h>
#include <linux/cred.h>
#include <linux/ipc_namespace.h>
#include <linux/proc_ns.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <net/net_namespace.h>
#include "kav_policy.h"

void kav_identity_capture(struct kav_identity *id, const struct file *file)
{
	id->cred = get_cred(file->f_cred);

	rcu_read_lock();
	id->cgroup = task_dfl_cgroup(current);
	cgroup_get(id->cgroup);
	rcu_read_unlock();
	id->cgroup_id = cgroup_id(id->cgroup);

	id->netns_cookie = current->nsproxy->net_ns->net_cookie;
	id->ipc_ns = get_ipc_ns(current->nsproxy->ipc_ns);
	id->pid = task_tgid_nr(current);
}

/*
 * put_ipc_ns() is not exported by every kernel kav supports; the
 * namespace's own operations drop a reference the same way (as nsfs does).
 */
static void kav_put_ipc_ns(struct ipc_namespace *ns)
{
#ifdef CONFIG_IPC_NS
	ns->ns.ops->put(&ns->ns);
#endif
}

void kav_identity_release(struct kav_identity *id)
{
	kav_put_ipc_ns(id->ipc_ns);
	cgroup_put(id->cgroup);
	put_cred(id->cred);
	id->cred = NULL;
}

/* Is @gid the identity's effective or one of its supplementary groups? */
bool kav_identity_in_group(const struct kav_identity *id, kgid_t gid)
{
	const struct group_info *groups = id->cred->group_info;
	int i;

	if (gid_eq(id->cred->egid, gid))
		return true;
	for (i = 0; i < groups->ngroups; i++)
		if (gid_eq(groups->gid[i], gid))
			return true;
	return false;
}
