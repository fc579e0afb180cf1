// SPDX-License-Identifier: GPL-2.0
/*
 * KAV_IOC_DOMAIN_WHOAMI: a tenant asks what identity its domain captured
 * and which grants match it, so that a refusal can be explained without
 * an administrator. Nothing is shown that the tenant could not learn by
 * trying keys one by one: only grants that match its own identity.
 *
 * The grants are copied under the grant list's lock into a kernel buffer
 * sized beforehand, and reach user memory after the lock is dropped.
 */
#include <linux/cred.h>
#include <linux/ipc_namespace.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "kav_objects.h"

/* The first struct kav_grant_info, up to and including @tag. */
#define KAV_GRANT_INFO_SIZE_VER0	112

struct kav_whoami_fill {
	const struct kav_identity *id;	/* whose grants */
	struct kav_grant_info *out;
	u32 room;			/* elements in @out */
	u32 nr;				/* matching grants seen */
	struct user_namespace *ns;	/* the caller's, for ids */
};

static void kav_whoami_grant(const struct kav_grant *g,
			     struct kav_grant_info *gi,
			     struct user_namespace *ns)
{
	memset(gi, 0, sizeof(*gi));
	gi->id = g->id;
	gi->vni = g->vni;
	gi->sel_type = g->sel_type;
	switch (g->sel_type) {
	case KAV_SEL_UID:
		gi->sel_id = from_kuid_munged(ns, g->uid);
		break;
	case KAV_SEL_GID:
		gi->sel_id = from_kgid_munged(ns, g->gid);
		break;
	case KAV_SEL_CGROUP:
		gi->sel_cookie = g->cgroup_id;
		break;
	default:
		gi->sel_cookie = g->netns_cookie;
		break;
	}
	gi->limit_entries = READ_ONCE(g->limit_entries);
	gi->nr_entries = atomic64_read(&g->nr_entries);
	gi->limit_avs = READ_ONCE(g->limit_avs);
	gi->nr_avs = atomic_read(&g->nr_avs);
	strscpy(gi->tag, g->tag, sizeof(gi->tag));
}

static int kav_whoami_one(const struct kav_grant *g, void *arg)
{
	struct kav_whoami_fill *f = arg;

	if (!kav_grant_matches(g, f->id))
		return 0;
	if (f->nr < f->room)
		kav_whoami_grant(g, &f->out[f->nr], f->ns);
	f->nr++;
	return 0;
}

/*
 * Fill @f->out with up to @max grants matching @id. The buffer is sized
 * from a count taken first; when grants were added in between, and
 * there is room for more, count and fill again.
 */
static int kav_whoami_collect(const struct kav_identity *id, u32 max,
			      struct kav_whoami_fill *f)
{
	int tries;
	u32 pos;

	f->id = id;
	f->ns = current_user_ns();
	f->room = 0;
	f->out = NULL;
	f->nr = 0;
	pos = 0;
	kav_grants_walk(kav_whoami_one, f, &pos);
	for (tries = 0; tries < 4 && max; tries++) {
		kfree(f->out);
		f->room = min(f->nr, max);
		f->out = kcalloc(f->room, sizeof(*f->out), KAV_TENANT_GFP);
		if (f->room && !f->out)
			return -ENOMEM;
		f->nr = 0;
		pos = 0;
		kav_grants_walk(kav_whoami_one, f, &pos);
		if (f->nr <= f->room || f->room == max)
			break;
	}
	f->room = min(f->nr, f->room);
	return 0;
}

static int kav_whoami_copy_out(const struct kav_whoami *cmd,
			       const struct kav_whoami_fill *f)
{
	u8 __user *dst = u64_to_user_ptr(cmd->grants);
	size_t n = min_t(size_t, cmd->grant_size, sizeof(*f->out));
	u32 i;

	for (i = 0; i < f->room; i++, dst += cmd->grant_size) {
		if (copy_to_user(dst, &f->out[i], n))
			return -EFAULT;
		if (cmd->grant_size > n && clear_user(dst + n, cmd->grant_size - n))
			return -EFAULT;
	}
	return 0;
}

int kav_ioctl_domain_whoami(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_whoami *cmd = ucmd->cmd;
	struct kav_domain *domain = obj;
	const struct kav_identity *id = &domain->id;
	struct user_namespace *ns = current_user_ns();
	struct kav_whoami_fill f;
	struct kav_grant *key;
	int ret;

	if (cmd->flags || cmd->__reserved ||
	    (cmd->max_grants && (cmd->grant_size < KAV_GRANT_INFO_SIZE_VER0 ||
				 cmd->grant_size > PAGE_SIZE)))
		return -EINVAL;
	ret = kav_whoami_collect(id, cmd->max_grants, &f);
	if (ret)
		return ret;

	cmd->uid = from_kuid_munged(ns, id->cred->euid);
	cmd->gid = from_kgid_munged(ns, id->cred->egid);
	cmd->cgroup_id = id->cgroup_id;
	cmd->netns_cookie = id->netns_cookie;
	cmd->ipc_ns = id->ipc_ns->ns.inum;
	cmd->status = kav_keyless_allowed() ? KAV_WHOAMI_KEYLESS_OK : 0;
	cmd->key_vni = 0;
	key = kav_domain_key_grant(domain);
	if (key) {
		cmd->status |= KAV_WHOAMI_KEYED;
		cmd->key_vni = domain->key.vni;
		if (kav_grant_revoked(key))
			cmd->status |= KAV_WHOAMI_KEY_REVOKED;
	}
	cmd->nr_grants = f.nr;
	ret = kav_whoami_copy_out(cmd, &f) ?:
	      kav_ucmd_respond(ucmd, sizeof(*cmd));
	kfree(f.out);
	return ret;
}
