// SPDX-License-Identifier: GPL-2.0
/*
 * Address vector objects, created from a domain; each open is an
 * anon-inode file, several for a named AV (kav_names.c). Mutations arrive
 * as ioctls on a file opened for writing (kav_av_write.c); a read-only
 * file can only be mapped.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "kav_objects.h"

static unsigned long kav_max_entries = 1UL << 24;
module_param_named(max_entries, kav_max_entries, ulong, 0644);
MODULE_PARM_DESC(max_entries,
		 "Entries an AV can ever hold, at most 2^32 - 1 (applies to AVs created later)");

/* The table goes: give back what its key slots held of their grants. */
static void kav_av_drop_keys(struct kav_av *av)
{
	u64 h;

	for (h = 0; h < KAV_MAX_AUTH_KEYS; h++) {
		if (!kav_key_grants_of(&av->key_grants, h))
			continue;
		kav_key_grants_drop(&av->key_grants, h,
				    kav_key_nr_entries(&av->table, h));
	}
}

static void kav_av_free(struct kref *ref)
{
	struct kav_av *av = container_of(ref, struct kav_av, ref);
	struct kav_domain *domain = av->domain;

	/* Never under it: kav_names_del() takes it (kav_ioctl_av_create()). */
	lockdep_assert_not_held(&kav_names_lock);

	/* Out of the registry (and announced gone) before it is freed. */
	if (av->reg_id)
		kav_hooks->av_removed(av);
	kav_names_del(av);
	kav_av_drop_keys(av);
	kav_table_destroy(&av->table);
	mutex_lock(&domain->lock);
	if (!WARN_ON_ONCE(!domain->nr_avs))
		WRITE_ONCE(domain->nr_avs, domain->nr_avs - 1);
	mutex_unlock(&domain->lock);
	kav_domain_put(domain);
	kfree_rcu(av, rcu);		/* registry walks may still look */
}

void kav_av_get(struct kav_av *av)
{
	kref_get(&av->ref);
}

void kav_av_put(struct kav_av *av)
{
	kref_put(&av->ref, kav_av_free);
}

static void kav_av_file_free(struct kav_av_file *h)
{
	atomic_dec(&h->av->nr_open);
	kav_av_put(h->av);
	kav_domain_put(h->domain);
	kfree(h);
}

static int kav_av_release(struct inode *inode, struct file *file)
{
	kav_av_file_free(file->private_data);
	return 0;
}

static int kav_av_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kav_av_file *h = file->private_data;

	return kav_table_mmap(&h->av->table, vma);
}

/*
 * An administrator pins @av (a reference of its own, so that a launcher
 * can close it and ranks open it later) or drops the pin.
 */
int kav_av_pin(struct kav_av *av, bool pin, const char *tag)
{
	int ret;

	/*
	 * A job's table lives while the job's processes hold it: a pin
	 * would keep it, and the job's grant, past the job.
	 */
	if (kav_table_indexed(&av->table))
		return -EINVAL;

	if (pin)
		kav_av_get(av);
	ret = kav_names_set_pinned(av, pin, tag);
	/* May free @av: no lock held. */
	if (pin && ret)
		kav_av_put(av);		/* not pinned after all */
	else if (!pin && !ret)
		kav_av_put(av);		/* the pin's reference */
	return ret;
}

/* Module exit: drop every pin (no AV is open, or the module would be). */
void kav_avs_unpin_all(void)
{
	struct kav_av *av;

	while ((av = kav_names_unpin_any()))
		kav_av_put(av);
}

static const struct kav_ioctl_op kav_av_ops[] = {
	KAV_IOCTL_OP(KAV_IOC_AV_INSERT, kav_ioctl_av_insert,
		     struct kav_av_insert, __reserved),
	KAV_IOCTL_OP(KAV_IOC_AV_REMOVE, kav_ioctl_av_remove,
		     struct kav_av_remove, fi_addrs),
	KAV_IOCTL_OP(KAV_IOC_AV_KEY_INSERT, kav_ioctl_av_key_insert,
		     struct kav_av_key, handle),
	KAV_IOCTL_OP(KAV_IOC_AV_KEY_REMOVE, kav_ioctl_av_key_remove,
		     struct kav_av_key, handle),
	KAV_IOCTL_OP(KAV_IOC_AV_SET_USER_ID, kav_ioctl_av_set_user_id,
		     struct kav_av_user_id, user_id),
	KAV_IOCTL_OP(KAV_IOC_AV_EP_OPEN, kav_ioctl_av_ep_open,
		     struct kav_av_ep_open, __reserved),
};

/*
 * A read-only open can map the table and nothing else: every command
 * changes the AV or, like an enabled endpoint, pins its keys.
 */
static long kav_av_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	if (!(file->f_mode & FMODE_WRITE))
		return -EPERM;
	return kav_ucmd_dispatch(file->private_data, kav_av_ops,
				 ARRAY_SIZE(kav_av_ops), cmd, arg);
}

static const struct file_operations kav_av_fops;

/* The open AV behind @file, if it is one (for kernel consumers). */
struct kav_av_file *kav_av_file_of(struct file *file)
{
	return file->f_op == &kav_av_fops ? file->private_data : NULL;
}

static const struct file_operations kav_av_fops = {
	.owner = THIS_MODULE,
	.release = kav_av_release,
	.mmap = kav_av_mmap,
	.unlocked_ioctl = kav_av_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/* A keyed domain's AVs hold its key in slot 0, under the same grant. */
static int kav_av_add_domain_key(struct kav_av *av)
{
	struct kav_domain *domain = av->domain;
	struct kav_grant *grant;
	u64 handle;
	int ret;

	mutex_lock(&domain->lock);
	grant = domain->key_grant;
	if (grant)
		kav_grant_get(grant);
	mutex_unlock(&domain->lock);
	if (!grant)
		return 0;
	if (kav_grant_revoked(grant)) {
		kav_deny(KAV_DENY_REVOKED, &domain->id, grant->vni,
			 "AV create");
		ret = -EKEYREVOKED;
	} else {
		ret = kav_av_add_key(av, &domain->id, &domain->key, grant,
				     KAV_KEY_DOMAIN, &handle);
	}
	if (ret)
		kav_grant_put(grant);
	return ret;
}

/*
 * The memory of a new AV for @cmd: its table and, for a job table, its
 * indexes (up to 32 MiB of buckets, zeroed). Made with no lock held, and
 * freed with kav_av_unused() if it is not used after all.
 */
static struct kav_av *kav_av_alloc(const struct kav_av_create *cmd)
{
	/* A key counts its entries in 32 bits (uapi kav_key_count). */
	u64 max_entries = clamp(READ_ONCE(kav_max_entries), 1UL,
				(unsigned long)U32_MAX);
	struct kav_av *av;
	int ret;

	av = kzalloc(sizeof(*av), KAV_TENANT_GFP);
	if (!av)
		return ERR_PTR(-ENOMEM);
	/* A job table never removes: fi_addr[i] would be i, it has none. */
	ret = kav_table_init(&av->table, cmd->addr_format, cmd->addr_max,
			     max_entries, !(cmd->flags & KAV_AV_JOB));
	if (ret) {
		kfree(av);
		return ERR_PTR(ret);
	}
	if (cmd->flags & KAV_AV_JOB) {
		ret = kav_index_init(&av->table, cmd->count);
		if (ret) {
			kav_table_destroy(&av->table);
			kfree(av);
			return ERR_PTR(ret);
		}
	}
	return av;
}

/* An AV from kav_av_alloc() that never became one. */
static void kav_av_unused(struct kav_av *av)
{
	if (IS_ERR_OR_NULL(av))
		return;
	kav_table_destroy(&av->table);
	kfree(av);
}

/*
 * Make @av (from kav_av_alloc(), which this consumes) a new AV of
 * @domain, in the registry; for a named AV kav_names_lock held. On a
 * failure after the AV took its first reference, that reference is left
 * in *@dead for the caller to drop once it holds no lock (kav_av_free()
 * may take kav_names_lock).
 */
static struct kav_av *kav_av_new(struct kav_domain *domain,
				 struct kav_av *av, struct kav_av **dead)
{
	int ret;

	kref_init(&av->ref);
	kref_get(&domain->ref);
	av->domain = domain;
	mutex_lock(&domain->lock);
	WRITE_ONCE(domain->nr_avs, domain->nr_avs + 1);	/* listings read it */
	mutex_unlock(&domain->lock);

	ret = kav_av_add_domain_key(av);
	if (!ret)
		ret = kav_hooks->av_added(av);
	if (ret) {
		*dead = av;
		return ERR_PTR(ret);
	}
	return av;
}

/*
 * Open @av (the caller's reference, which this consumes) for @domain: a
 * new file whose fd is installed only once the reply is out.
 */
static int kav_av_install(struct kav_av *av, struct kav_domain *domain,
			  struct kav_ucmd *ucmd, bool rdonly)
{
	struct kav_av_create *cmd = ucmd->cmd;
	struct kav_av_file *h;
	struct file *file;
	int fd, ret;

	h = kzalloc(sizeof(*h), KAV_TENANT_GFP);
	if (!h) {
		kav_av_put(av);
		return -ENOMEM;
	}
	h->av = av;
	h->domain = domain;
	kref_get(&domain->ref);
	atomic_inc(&av->nr_open);
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		kav_av_file_free(h);
		return fd;
	}
	file = anon_inode_getfile("[kav-av]", &kav_av_fops, h,
				  rdonly ? O_RDONLY : O_RDWR);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		kav_av_file_free(h);
		return PTR_ERR(file);
	}
	h->file = file;
	cmd->fd = fd;
	cmd->entry_size = av->table.entry_size;
	cmd->max_entries = av->table.max_entries;
	cmd->map_size = av->table.map_pages << PAGE_SHIFT;
	cmd->av_id = av->reg_id;
	ret = kav_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret) {
		put_unused_fd(fd);
		fput(file);	/* releases h and its reference */
		return ret;
	}
	fd_install(fd, file);
	return 0;
}

/* May @domain open the existing named AV @av as @cmd asks? */
static int kav_av_check_open(struct kav_av *av, struct kav_domain *domain,
			     const struct kav_av_create *cmd)
{
	const struct kav_table *t = &av->table;
	struct kav_grant *g = kav_domain_key_grant(domain);

	/* Joining a job's table: as creating one, the key must be live. */
	if (kav_table_indexed(t) && g && kav_grant_revoked(g)) {
		kav_deny(KAV_DENY_REVOKED, &domain->id, g->vni, "AV create");
		return -EKEYREVOKED;
	}
	if (cmd->addr_format && (cmd->addr_format != t->addr_format ||
				 cmd->addr_max != t->addr_max))
		return -EINVAL;
	return kav_names_permission(av, &domain->id,
				    !(cmd->flags & KAV_AV_RDONLY));
}

/*
 * Refused by @av's mode bits: say so, with the mode and the owner (what
 * ls -l shows of a file; the caller already knows the AV exists), the
 * owner in the caller's user namespace as KAV_AV_OWNER takes it (an owner
 * with no mapping there reads as the overflow uid, as stat() shows it).
 * The EACCES stands whether or not this reaches the caller.
 */
static void kav_av_report_mode(const struct kav_av *av, struct kav_ucmd *ucmd)
{
	struct kav_av_create *cmd = ucmd->cmd;

	cmd->result = KAV_AV_DENIED_MODE;
	cmd->mode = av->named->mode;
	cmd->owner_uid = from_kuid_munged(current_user_ns(), av->named->uid);
	kav_ucmd_respond(ucmd, sizeof(*cmd));
}

#define KAV_AV_NAMED_FLAGS	(KAV_AV_EXCL | KAV_AV_RDONLY | KAV_AV_OWNER)

static bool kav_av_create_valid(const struct kav_av_create *cmd)
{
	u32 flags = cmd->flags;

	if (flags & ~(KAV_AV_NAMED | KAV_AV_NAMED_FLAGS | KAV_AV_JOB))
		return false;
	/* More entries than any table can hold (max_entries < 2^32). */
	if (cmd->count > U32_MAX)
		return false;
	/* A job's table is found by who asks, never by a name. */
	if (flags & KAV_AV_JOB)
		return flags == KAV_AV_JOB && !cmd->name && !cmd->name_len &&
		       !cmd->mode && !cmd->owner_uid && !cmd->__reserved;
	if ((flags & KAV_AV_NAMED_FLAGS) && !(flags & KAV_AV_NAMED))
		return false;
	if ((flags & KAV_AV_EXCL) && (flags & KAV_AV_RDONLY))
		return false;
	return !cmd->__reserved && (flags & KAV_AV_OWNER || !cmd->owner_uid);
}

/*
 * KAV_IOC_AV_CREATE: create an AV, or open or create a named one. Names
 * are per IPC namespace and owner (kav_names.c): a tenant creates only in
 * its own names, so none can take a name another user's job will open.
 * A job's table (KAV_AV_JOB) is a named AV of its own kind, named by the
 * job itself (struct kav_job_key), which no user name can equal.
 *
 * The new AV's memory is allocated before kav_names_lock is taken: for a
 * named AV, only once a first look found no AV of that name, and the
 * look is made again with it in hand (another process may have created
 * the name meanwhile; its memory is then freed unused). So a job table's
 * index, megabytes to zero, is never made under a lock all tenants need,
 * and joining an existing one allocates nothing.
 *
 * Lock order: kav_names_lock > domain->lock, av->table.lock >
 * av->table.key_lock, kav_grants_lock, a grant's holders_lock and the
 * registry's xarray lock. No AV reference is dropped here under
 * kav_names_lock: the drop may be the last, and kav_av_free() takes
 * kav_names_lock (for a named AV's name; it asserts the lock is not
 * held) and runs the registry's and the grants' teardown. A reference
 * found or made under it (an existing AV, a new AV that failed half-way)
 * is put after it is released.
 */
int kav_ioctl_av_create(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_create *cmd = ucmd->cmd;
	struct kav_domain *domain = obj;
	bool rdonly = cmd->flags & KAV_AV_RDONLY;
	struct kav_av *av = NULL, *dead = NULL, *fresh = NULL;
	struct kav_named *named;
	bool created = false;
	int ret;

	if (!kav_av_create_valid(cmd))
		return -EINVAL;
	/* A read-only open may leave the format to the AV. */
	if (!rdonly || cmd->addr_format) {
		ret = kav_addr_check_format(cmd->addr_format, &cmd->addr_max);
		if (ret)
			return ret;
	}
	named = kav_named_alloc(cmd, domain);
	if (IS_ERR(named))
		return PTR_ERR(named);
	/* An AV without a name is always new: its memory first. */
	if (!named) {
		fresh = kav_av_alloc(cmd);
		if (IS_ERR(fresh)) {
			kfree(named);
			return PTR_ERR(fresh);
		}
	}

again:
	if (named) {
		ret = mutex_lock_killable(&kav_names_lock);
		if (ret)
			goto out_unused;
		av = kav_names_find(&domain->id, named);
	}
	if (av) {
		ret = cmd->flags & KAV_AV_EXCL ? -EEXIST : 0;
	} else if (rdonly || (named && !kav_named_is_own(named, &domain->id))) {
		/* Nobody creates in another user's names. */
		ret = -ENOENT;
	} else if (!fresh) {
		/* Not there: allocate with no lock held, and look again. */
		mutex_unlock(&kav_names_lock);
		fresh = kav_av_alloc(cmd);
		if (IS_ERR(fresh)) {
			kfree(named);
			return PTR_ERR(fresh);
		}
		goto again;
	} else {
		av = kav_av_new(domain, fresh, &dead);
		fresh = NULL;
		ret = PTR_ERR_OR_ZERO(av);
		if (ret)
			av = NULL;
		created = !ret;
		if (created && named) {
			kav_names_add(av, named);
			named = NULL;
		}
	}
	if (cmd->flags & (KAV_AV_NAMED | KAV_AV_JOB))
		mutex_unlock(&kav_names_lock);
out_unused:
	kav_av_unused(fresh);	/* allocated, then found made by another */
	kfree(named);		/* unless the new AV took it */
	if (dead)		/* never under the lock: it may free the AV */
		kav_av_put(dead);

	if (!ret && !created) {
		ret = kav_av_check_open(av, domain, cmd);
		if (ret == -EACCES)
			kav_av_report_mode(av, ucmd);
	}
	if (ret) {
		if (av)
			kav_av_put(av);
		return ret;
	}
	if (created) {
		/* Before the fd exists: a close could free the AV at once. */
		av->announced = true;
		kav_hooks->av_created(av);
	}
	cmd->result = created ? KAV_AV_CREATED : 0;
	return kav_av_install(av, domain, ucmd, rdonly);
}
