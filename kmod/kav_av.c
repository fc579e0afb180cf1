// SPDX-License-Identifier: GPL-2.0
/*
 * Address vector objects, created from a domain; each open is an
 * anon-inode file, several for a named AV (kav_names.c). Mutations arrive
 * as batch ioctls on a file opened for writing; user memory is copied in
 * and out with no lock held, the table lock only covers the table update.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "kav.h"

static void kav_av_free(struct kref *ref)
{
	struct kav_av *av = container_of(ref, struct kav_av, ref);
	struct kav_domain *domain = av->domain;

	if (av->reg_id)
		kav_registry_del_av(av);
	if (av->announced)
		kav_genl_notify_av(KAV_GENL_CMD_AV_DEL, av);
	kav_names_del(av);
	kav_table_destroy(&av->table);
	mutex_lock(&domain->lock);
	domain->nr_avs--;
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

/* Copy a batch of addresses in and check each one; @lens gets lengths. */
static int kav_av_copy_addrs(struct kav_av *av, struct kav_av_insert *cmd,
			     u8 **addrsp, u32 **lensp)
{
	size_t bytes = (size_t)cmd->count * cmd->addr_stride;
	u32 *lens;
	u8 *addrs;
	int ret = 0;
	u32 i;

	addrs = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
	lens = kvmalloc_array(cmd->count, sizeof(*lens), GFP_KERNEL_ACCOUNT);
	if (!addrs || !lens) {
		ret = -ENOMEM;
		goto err;
	}
	if (copy_from_user(addrs, u64_to_user_ptr(cmd->addrs), bytes)) {
		ret = -EFAULT;
		goto err;
	}
	for (i = 0; i < cmd->count; i++) {
		ret = kav_addr_validate(av->table.addr_format,
					av->table.addr_max,
					addrs + (size_t)i * cmd->addr_stride,
					cmd->addr_stride);
		if (ret < 0) {
			cmd->err_index = i;
			goto err;
		}
		lens[i] = ret;
	}
	*addrsp = addrs;
	*lensp = lens;
	return 0;
err:
	kvfree(addrs);
	kvfree(lens);
	return ret;
}

/* Copy @count __u64 from user memory into a new kernel array. */
static u64 *kav_copy_u64s(u64 uptr, u32 count, int *ret)
{
	u64 *p = kvmalloc_array(count, sizeof(*p), GFP_KERNEL_ACCOUNT);

	*ret = 0;
	if (!p) {
		*ret = -ENOMEM;
	} else if (copy_from_user(p, u64_to_user_ptr(uptr),
				  (size_t)count * sizeof(*p))) {
		kvfree(p);
		p = NULL;
		*ret = -EFAULT;
	}
	return p;
}

/* A pointer field is given exactly when its flag is. */
static bool kav_flag_matches(u32 flags, u32 flag, u64 ptr)
{
	return !(flags & flag) == !ptr;
}

#define KAV_INSERT_FLAGS	(KAV_INSERT_AUTH_KEY | KAV_INSERT_USER_ID)

static int kav_av_insert(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_insert *cmd = ucmd->cmd;
	u64 __user *ufi_addrs = u64_to_user_ptr(cmd->fi_addrs);
	size_t out_bytes = (size_t)cmd->count * sizeof(u64);
	struct kav_insert_batch b = { .count = cmd->count,
				      .stride = cmd->addr_stride,
				      .err_index = KAV_NO_INDEX };
	struct kav_av_file *h = obj;
	struct kav_av *av = h->av;
	u32 *lens = NULL;
	u8 *addrs = NULL;
	u64 *keys = NULL, *user_ids = NULL, *idx = NULL;
	int ret;

	cmd->err_index = KAV_NO_INDEX;
	if ((cmd->flags & ~KAV_INSERT_FLAGS) || cmd->__reserved ||
	    !kav_flag_matches(cmd->flags, KAV_INSERT_AUTH_KEY,
			      cmd->auth_keys) ||
	    !kav_flag_matches(cmd->flags, KAV_INSERT_USER_ID, cmd->user_ids))
		return -EINVAL;
	if (cmd->count > KAV_BATCH_MAX)
		return -E2BIG;
	if (!cmd->count)
		return 0;
	if (!cmd->addr_stride || cmd->addr_stride > KAV_ADDR_MAX_LEN)
		return -EINVAL;

	ret = kav_av_copy_addrs(av, cmd, &addrs, &lens);
	if (ret)
		goto out;
	if (cmd->auth_keys) {
		keys = kav_copy_u64s(cmd->auth_keys, cmd->count, &ret);
		if (ret)
			goto out;
	}
	if (cmd->user_ids) {
		user_ids = kav_copy_u64s(cmd->user_ids, cmd->count, &ret);
		if (ret)
			goto out;
	}
	/* Fault in and check the output array before the table changes. */
	if (ufi_addrs && clear_user(ufi_addrs, out_bytes)) {
		ret = -EFAULT;
		goto out;
	}
	idx = kvmalloc_array(cmd->count, sizeof(*idx), GFP_KERNEL_ACCOUNT);
	if (!idx) {
		ret = -ENOMEM;
		goto out;
	}
	b.id = &h->domain->id;
	b.addrs = addrs;
	b.lens = lens;
	b.keys = keys;
	b.user_ids = user_ids;
	b.idx = idx;
	ret = kav_table_insert(&av->table, &b);
	if (ret) {
		cmd->err_index = b.err_index;
		goto out;
	}
	if (ufi_addrs && copy_to_user(ufi_addrs, idx, out_bytes)) {
		/* The output went away under us: the call changes nothing. */
		kav_table_erase(&av->table, idx, cmd->count);
		ret = -EFAULT;
	}
out:
	kvfree(idx);
	kvfree(user_ids);
	kvfree(keys);
	kvfree(lens);
	kvfree(addrs);
	/* err_index is only meaningful, and only written, on failure. */
	if (ret && cmd->err_index != KAV_NO_INDEX)
		kav_ucmd_respond(ucmd, sizeof(*cmd));
	return ret;
}

static int kav_av_remove(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_remove *cmd = ucmd->cmd;
	struct kav_av *av = ((struct kav_av_file *)obj)->av;
	u64 *idx;
	int ret;

	cmd->err_index = KAV_NO_INDEX;
	if (cmd->flags)
		return -EINVAL;
	if (cmd->count > KAV_BATCH_MAX)
		return -E2BIG;
	if (!cmd->count)
		return 0;

	idx = kav_copy_u64s(cmd->fi_addrs, cmd->count, &ret);
	if (ret)
		return ret;
	ret = kav_table_remove(&av->table, idx, cmd->count, &cmd->err_index);
	kvfree(idx);
	if (ret && cmd->err_index != KAV_NO_INDEX)
		kav_ucmd_respond(ucmd, sizeof(*cmd));
	return ret;
}

/* Charge @grant (which authorised @id) and put @key in a slot of @av. */
static int kav_av_add_key(struct kav_av *av, const struct kav_identity *id,
			  const struct kav_auth_key *key,
			  struct kav_grant *grant, u32 flags, u64 *handle)
{
	struct kav_table *t = &av->table;
	int ret;

	ret = kav_grant_charge(grant, 0, 1, id, "key insert");
	if (ret)
		return ret;
	mutex_lock(&t->lock);
	/* Revoked since it was looked up: it must not reach the table. */
	if (kav_grant_revoked(grant))
		ret = -EKEYREVOKED;
	else
		ret = kav_key_insert(t, key, grant, flags, handle);
	mutex_unlock(&t->lock);
	if (ret)
		kav_grant_uncharge(grant, 0, 1);
	return ret;
}

static int kav_av_key_insert(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_key *cmd = ucmd->cmd;
	struct kav_av_file *h = obj;
	struct kav_av *av = h->av;
	struct kav_table *t = &av->table;
	struct kav_grant *grant;
	int ret;

	if (cmd->flags || cmd->key.__reserved)
		return -EINVAL;
	/*
	 * Fault in and check the reply before the table changes, so that
	 * undoing the insert below is only for a reply unmapped meanwhile.
	 */
	if (kav_ucmd_respond(ucmd, sizeof(*cmd)))
		return -EFAULT;
	grant = kav_grant_authorize(&h->domain->id, cmd->key.vni,
				    "key insert");
	if (!grant)
		return -EACCES;
	ret = kav_av_add_key(av, &h->domain->id, &cmd->key, grant, 0,
			     &cmd->handle);
	if (ret)
		kav_grant_put(grant);	/* else the slot holds it */
	if (!ret || ret == -EEXIST) {
		int r = kav_ucmd_respond(ucmd, sizeof(*cmd));

		/* Nobody learns the handle: take the new key back out. */
		if (r && !ret) {
			mutex_lock(&t->lock);
			kav_key_remove(t, cmd->handle);
			mutex_unlock(&t->lock);
		}
		ret = r ? r : ret;
	}
	return ret;
}

static int kav_av_key_remove(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_key *cmd = ucmd->cmd;
	struct kav_table *t = &((struct kav_av_file *)obj)->av->table;
	int ret;

	if (cmd->flags)
		return -EINVAL;
	mutex_lock(&t->lock);
	ret = kav_key_remove(t, cmd->handle);
	mutex_unlock(&t->lock);
	return ret;
}

static int kav_av_set_user_id(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_user_id *cmd = ucmd->cmd;
	struct kav_table *t = &((struct kav_av_file *)obj)->av->table;
	int ret;

	if (cmd->flags & ~KAV_USER_ID_AUTH_KEY)
		return -EINVAL;
	if (!(cmd->flags & KAV_USER_ID_AUTH_KEY))
		return kav_table_set_user_id(t, cmd->index, cmd->user_id);
	mutex_lock(&t->lock);
	ret = kav_key_set_user_id(t, cmd->index, cmd->user_id);
	mutex_unlock(&t->lock);
	return ret;
}

static int kav_av_ep_open(void *obj, struct kav_ucmd *ucmd)
{
	return kav_ep_open(obj, ucmd);
}

static const struct kav_ioctl_op kav_av_ops[] = {
	KAV_IOCTL_OP(KAV_IOC_AV_INSERT, kav_av_insert,
		     struct kav_av_insert, __reserved),
	KAV_IOCTL_OP(KAV_IOC_AV_REMOVE, kav_av_remove,
		     struct kav_av_remove, fi_addrs),
	KAV_IOCTL_OP(KAV_IOC_AV_KEY_INSERT, kav_av_key_insert,
		     struct kav_av_key, handle),
	KAV_IOCTL_OP(KAV_IOC_AV_KEY_REMOVE, kav_av_key_remove,
		     struct kav_av_key, handle),
	KAV_IOCTL_OP(KAV_IOC_AV_SET_USER_ID, kav_av_set_user_id,
		     struct kav_av_user_id, user_id),
	KAV_IOCTL_OP(KAV_IOC_AV_EP_OPEN, kav_av_ep_open,
		     struct kav_av_ep_open, __reserved),
};

/* Endpoints may be opened on a read-only AV; nothing else changes it. */
static bool kav_av_cmd_reads(unsigned int cmd)
{
	return cmd == KAV_IOC_AV_EP_OPEN;
}

static long kav_av_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	if (!(file->f_mode & FMODE_WRITE) && !kav_av_cmd_reads(cmd))
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

/* A new AV of @domain for @cmd, in the registry; kav_revoke_sem held. */
static struct kav_av *kav_av_new(struct kav_domain *domain,
				 const struct kav_av_create *cmd)
{
	u64 max_entries = clamp(READ_ONCE(kav_max_entries), 1UL, 1UL << 32);
	struct kav_av *av;
	int ret;

	av = kzalloc(sizeof(*av), GFP_KERNEL_ACCOUNT);
	if (!av)
		return ERR_PTR(-ENOMEM);
	ret = kav_table_init(&av->table, cmd->addr_format, cmd->addr_max,
			     max_entries);
	if (ret) {
		kfree(av);
		return ERR_PTR(ret);
	}
	kref_init(&av->ref);
	kref_get(&domain->ref);
	av->domain = domain;
	mutex_lock(&domain->lock);
	domain->nr_avs++;
	mutex_unlock(&domain->lock);

	ret = kav_av_add_domain_key(av);
	if (!ret)
		ret = kav_registry_add_av(av);
	if (ret) {
		kav_av_put(av);
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

	h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
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

	if (cmd->addr_format && (cmd->addr_format != t->addr_format ||
				 cmd->addr_max != t->addr_max))
		return -EINVAL;
	return kav_names_permission(av, &domain->id,
				    !(cmd->flags & KAV_AV_RDONLY));
}

#define KAV_AV_NAMED_FLAGS	(KAV_AV_EXCL | KAV_AV_RDONLY)

/* KAV_IOC_AV_CREATE: create an AV, or open or create a named one. */
int kav_av_create(struct kav_domain *domain, struct kav_ucmd *ucmd)
{
	struct kav_av_create *cmd = ucmd->cmd;
	bool rdonly = cmd->flags & KAV_AV_RDONLY;
	struct kav_named *named;
	struct kav_av *av = NULL;
	bool created = false;
	int ret;

	if ((cmd->flags & ~(KAV_AV_NAMED | KAV_AV_NAMED_FLAGS)) ||
	    ((cmd->flags & KAV_AV_NAMED_FLAGS) &&
	     !(cmd->flags & KAV_AV_NAMED)) ||
	    (cmd->flags & KAV_AV_NAMED_FLAGS) == KAV_AV_NAMED_FLAGS)
		return -EINVAL;
	/* A read-only open may leave the format to the AV. */
	if (!rdonly || cmd->addr_format) {
		ret = kav_addr_check_format(cmd->addr_format, &cmd->addr_max);
		if (ret)
			return ret;
	}
	named = kav_named_alloc(cmd, &domain->id);
	if (IS_ERR(named))
		return PTR_ERR(named);

	/* Until the AV is in the registry, a revoke waits (kav_grants.c). */
	down_read(&kav_revoke_sem);
	if (named) {
		mutex_lock(&kav_names_lock);
		av = kav_names_find(&domain->id, named);
	}
	if (av) {
		ret = cmd->flags & KAV_AV_EXCL ? -EEXIST : 0;
	} else if (rdonly) {
		ret = -ENOENT;
	} else {
		av = kav_av_new(domain, cmd);
		ret = PTR_ERR_OR_ZERO(av);
		if (ret)
			av = NULL;
		created = !ret;
		if (created && named) {
			kav_names_add(av, named);
			named = NULL;
		}
	}
	if (cmd->flags & KAV_AV_NAMED)
		mutex_unlock(&kav_names_lock);
	up_read(&kav_revoke_sem);
	kfree(named);		/* unless the new AV took it */

	if (!ret && !created)
		ret = kav_av_check_open(av, domain, cmd);
	if (ret) {
		if (av)
			kav_av_put(av);
		return ret;
	}
	if (created) {
		/* Before the fd exists: a close could free the AV at once. */
		av->announced = true;
		kav_genl_notify_av(KAV_GENL_CMD_AV_NEW, av);
	}
	cmd->result = created ? KAV_AV_CREATED : 0;
	return kav_av_install(av, domain, ucmd, rdonly);
}
