// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls that change an AV: batch insert and remove, key insert and
 * remove, user ids. Each is authorised against the writer: the identity
 * of the domain that opened the AV file the call arrives on (h->domain),
 * never the AV's creator.
 *
 * User memory is copied in, and output pinned, with no lock held; the
 * table lock covers the checks and the change together, so what was
 * checked is what is changed. Nothing is undone after the lock is
 * dropped: another writer may have changed the table in between.
 */
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "kav_objects.h"

/*
 * Addresses copied and checked per step: between steps the task may be
 * rescheduled, so a 16384-address batch of 480-byte strings (8 MiB) does
 * not keep a voluntary-preemption CPU to itself (no lock is held here).
 */
#define KAV_COPY_STEP	256

/* Copy a batch of addresses in and check each one; @lens gets lengths. */
static int kav_av_copy_addrs(struct kav_av *av, struct kav_av_insert *cmd,
			     u8 **addrsp, u32 **lensp)
{
	size_t bytes = (size_t)cmd->count * cmd->addr_stride;
	const u8 __user *src = u64_to_user_ptr(cmd->addrs);
	size_t off, step;
	u32 *lens;
	u8 *addrs;
	int ret = 0;
	u32 i;

	addrs = kvmalloc(bytes, KAV_TENANT_GFP);
	lens = kvmalloc_array(cmd->count, sizeof(*lens), KAV_TENANT_GFP);
	if (!addrs || !lens) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < cmd->count; i++) {
		off = (size_t)i * cmd->addr_stride;
		if (!(i % KAV_COPY_STEP)) {
			if (i)
				cond_resched();
			step = min_t(size_t, bytes - off,
				     (size_t)KAV_COPY_STEP * cmd->addr_stride);
			if (copy_from_user(addrs + off, src + off, step)) {
				ret = -EFAULT;
				goto err;
			}
		}
		ret = kav_addr_validate(av->table.addr_format,
					av->table.addr_max, addrs + off,
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
	u64 *p = kvmalloc_array(count, sizeof(*p), KAV_TENANT_GFP);

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

/*
 * The key a writer's addresses get without an explicit handle: the slot
 * holding the writer's own domain key, or none for a keyless domain.
 * Never the creator's key for someone else. t->lock held.
 */
static int kav_writer_default_key(struct kav_av_file *h, u64 *key)
{
	struct kav_domain *d = h->domain;
	struct kav_grant *g = kav_domain_key_grant(d);

	*key = KAV_NONE;
	if (!g)
		return kav_may_bind_keyless(&d->id, "insert");
	*key = kav_key_find(&h->av->table, d->key.vni);
	if (*key != KAV_NONE)
		return 0;
	kav_deny(KAV_DENY_NO_GRANT, &d->id, d->key.vni,
		 "insert (domain key not in the AV)");
	return -EACCES;
}

/*
 * May the writer bind addresses to slot @key? It must be a live slot and
 * the writer must hold a grant for its key: that grant (a reference) goes
 * to *@gp, and the writer's entries under @key are charged to it.
 * t->lock held.
 */
static int kav_writer_may_use(struct kav_av_file *h, u64 key,
			      struct kav_grant **gp)
{
	struct kav_table *t = &h->av->table;
	struct kav_domain *d = h->domain;
	const struct kav_key_slot *k;
	struct kav_grant *g;

	if (!kav_key_valid(t, key))
		return -EINVAL;
	k = kav_key_slot_ro(t, key);
	if (kav_key_revoked(t, key)) {
		kav_deny(KAV_DENY_REVOKED, &d->id, k->vni, "insert");
		return -EKEYREVOKED;
	}
	g = kav_bind_grant(&d->id, kav_domain_key_grant(d), k->vni, "insert");
	if (IS_ERR(g))
		return PTR_ERR(g);
	*gp = g;
	return 0;
}

/*
 * Check every key of @b for the writer, count entries per key and find
 * the writer's grant for each (@bg); on a refusal @b's offending position
 * goes to *@err_index. t->lock held.
 */
static int kav_batch_authorize(struct kav_av_file *h,
			       struct kav_insert_batch *b,
			       struct kav_key_counts *kc,
			       struct kav_batch_grants *bg, u32 *err_index)
{
	u64 key;
	int ret;
	u32 i;

	if (!b->keys) {
		ret = kav_writer_default_key(h, &b->dflt_key);
		if (ret)
			return ret;
	}
	for (i = 0; i < b->count; i++) {
		key = kav_batch_key(b, i);
		/* An explicit handle must name a key; KAV_NONE does not. */
		if (key >= KAV_MAX_AUTH_KEYS && (b->keys || key != KAV_NONE)) {
			*err_index = i;
			return -EINVAL;
		}
		if (key != KAV_NONE && !bg->g[key]) {
			ret = kav_writer_may_use(h, key, &bg->g[key]);
			if (ret) {
				*err_index = i;
				return ret;
			}
		}
		kav_key_count(kc, key);
	}
	return 0;
}

/*
 * Authorise, charge and apply @b, all under one table lock hold. Each
 * key's entries are charged to the writer's own grant for that key.
 */
static int kav_av_insert_batch(struct kav_av_file *h,
			       struct kav_insert_batch *b, u32 *err_index)
{
	struct kav_av *av = h->av;
	struct kav_table *t = &av->table;
	struct kav_batch_grants bg = {};
	struct kav_key_counts kc = {};
	int ret;

	if (kav_table_indexed(t)) {
		/*
		 * A job table's key slot is set at its creation, for good:
		 * its handle, and every address already in the table, are
		 * found without the lock, which only the misses need.
		 */
		ret = kav_writer_default_key(h, &b->dflt_key);
		if (!ret)
			ret = kav_index_lookup(t, b);
		if (ret)
			return ret;
	}
	ret = kav_table_lock(t);
	if (ret)
		return ret;
	if (!kav_table_indexed(t) && !kav_table_has_room(t, b->count)) {
		ret = -ENOSPC;
		goto out;
	}
	ret = kav_batch_authorize(h, b, &kc, &bg, err_index);
	if (ret)
		goto out;
	/* A job table: only addresses it does not hold yet need room. */
	if (kav_table_indexed(t)) {
		ret = kav_index_resolve(t, b, &kc);
		if (ret)
			goto out;
		if (!kav_table_has_room(t, b->nr_new)) {
			ret = -ENOSPC;
			goto out;
		}
	}
	ret = kav_key_grants_charge(&av->key_grants, t, &bg, &kc, b->nr_new,
				    &h->domain->id);
	if (ret)
		goto out;
	ret = kav_table_insert(t, b, &kc);
	if (ret)
		kav_key_grants_cancel(&av->key_grants, &bg, &kc);
	else
		kav_key_grants_commit(&av->key_grants, &bg, &kc, b);
out:
	kav_table_unlock(t);
	kav_batch_grants_put(&bg);
	return ret;
}

#define KAV_INSERT_FLAGS	(KAV_INSERT_AUTH_KEY | KAV_INSERT_USER_ID)

int kav_ioctl_av_insert(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_insert *cmd = ucmd->cmd;
	struct kav_insert_batch b = { .count = cmd->count,
				      .nr_new = cmd->count,
				      .stride = cmd->addr_stride };
	struct kav_user_out out = {};
	struct kav_av_file *h = obj;
	u64 *keys = NULL, *user_ids = NULL, *idx = NULL;
	u32 *lens = NULL, *scratch = NULL;
	u8 *addrs = NULL;
	int ret;

	cmd->err_index = KAV_NO_INDEX;
	if ((cmd->flags & ~KAV_INSERT_FLAGS) || cmd->__reserved ||
	    !kav_flag_matches(cmd->flags, KAV_INSERT_AUTH_KEY,
			      cmd->auth_keys) ||
	    !kav_flag_matches(cmd->flags, KAV_INSERT_USER_ID, cmd->user_ids))
		return -EINVAL;
	/* A job table's entries are the job's: its key, nobody's user id. */
	if (cmd->flags && kav_table_indexed(&h->av->table))
		return -EINVAL;
	if (cmd->count > KAV_BATCH_MAX)
		return -E2BIG;
	if (!cmd->count)
		return 0;
	if (!cmd->addr_stride || cmd->addr_stride > KAV_ADDR_MAX_LEN)
		return -EINVAL;

	ret = kav_av_copy_addrs(h->av, cmd, &addrs, &lens);
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
	/* Once the table changed, the indices must reach the caller. */
	if (cmd->fi_addrs) {
		ret = kav_user_out_pin(&out, cmd->fi_addrs,
				       (size_t)cmd->count * sizeof(u64));
		if (ret)
			goto out;
	}
	idx = kvmalloc_array(cmd->count, sizeof(*idx), KAV_TENANT_GFP);
	if (!idx) {
		ret = -ENOMEM;
		goto out;
	}
	if (kav_table_indexed(&h->av->table)) {
		scratch = kvmalloc_array(kav_index_scratch_len(cmd->count),
					 sizeof(*scratch), KAV_TENANT_GFP);
		if (!scratch) {
			ret = -ENOMEM;
			goto out;
		}
	}
	b.scratch = scratch;
	b.addrs = addrs;
	b.lens = lens;
	b.keys = keys;
	b.user_ids = user_ids;
	b.idx = idx;
	ret = kav_av_insert_batch(h, &b, &cmd->err_index);
	if (!ret && cmd->fi_addrs)
		kav_user_out_write(&out, idx);
out:
	kav_user_out_release(&out);
	kvfree(scratch);
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

int kav_ioctl_av_remove(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_remove *cmd = ucmd->cmd;
	struct kav_av *av = ((struct kav_av_file *)obj)->av;
	struct kav_table *t = &av->table;
	struct kav_key_counts kc;
	u64 *idx;
	int ret;

	cmd->err_index = KAV_NO_INDEX;
	/* A job table is the job's: nobody removes from it. */
	if (kav_table_indexed(t))
		return -EOPNOTSUPP;
	if (cmd->flags)
		return -EINVAL;
	if (cmd->count > KAV_BATCH_MAX)
		return -E2BIG;
	if (!cmd->count)
		return 0;

	idx = kav_copy_u64s(cmd->fi_addrs, cmd->count, &ret);
	if (ret)
		return ret;
	ret = kav_table_lock(t);
	if (ret)
		goto out;
	ret = kav_table_check_remove(t, idx, cmd->count, &cmd->err_index);
	if (!ret) {
		kav_table_remove(t, idx, cmd->count, &kc);
		/* Each entry back to whom it was charged, whoever removes. */
		kav_key_grants_remove(&av->key_grants, idx, cmd->count, &kc);
	}
	kav_table_unlock(t);
out:
	kvfree(idx);
	if (ret && cmd->err_index != KAV_NO_INDEX)
		kav_ucmd_respond(ucmd, sizeof(*cmd));
	return ret;
}

/*
 * Charge @grant (which authorised @id for @key and whose reference the
 * slot takes over on success) one AV and put @key in a slot of @av. The
 * charge is taken only once the key is sure to go in: a refused or
 * failed insert never shows in the grant's nr_avs.
 */
int kav_av_add_key(struct kav_av *av, const struct kav_identity *id,
		   const struct kav_auth_key *key, struct kav_grant *grant,
		   u32 flags, u64 *handle)
{
	struct kav_table *t = &av->table;
	int ret;

	ret = kav_table_lock(t);
	if (ret)
		return ret;
	ret = kav_key_room(t, key, handle);
	if (!ret)
		ret = kav_grant_charge_av(grant, id, "key insert");
	if (ret)
		goto out;
	/*
	 * On the grant's holder list first, then checked and written under
	 * key_lock: a revocation either finds the slot written or has
	 * marked the grant revoked before we look (kav_grants.c).
	 */
	kav_key_grants_hold(&av->key_grants, t, *handle, grant);
	spin_lock(&t->key_lock);
	if (kav_grant_revoked(grant)) {
		ret = -EKEYREVOKED;
	} else {
		kav_key_insert(t, key, flags, *handle);
		kav_key_grants_set(&av->key_grants, *handle, grant);
	}
	spin_unlock(&t->key_lock);
	if (ret) {
		kav_key_grants_unhold(&av->key_grants, *handle, grant);
		kav_grant_uncharge(grant, 0, 1);
	}
out:
	kav_table_unlock(t);
	return ret;
}

int kav_ioctl_av_key_insert(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_key *cmd = ucmd->cmd;
	struct kav_av_file *h = obj;
	struct kav_grant *grant;
	int ret;

	if (cmd->flags || cmd->key.__reserved)
		return -EINVAL;
	/* A job table holds the job's key, which its creation put there. */
	if (kav_table_indexed(&h->av->table))
		return -EOPNOTSUPP;
	grant = kav_hold_grant(&h->domain->id, cmd->key.vni, "key insert");
	if (IS_ERR(grant))
		return PTR_ERR(grant);
	ret = kav_av_add_key(h->av, &h->domain->id, &cmd->key, grant, 0,
			     &cmd->handle);
	if (ret)
		kav_grant_put(grant);	/* else the slot holds it */
	/*
	 * A handle that cannot be written back leaves the key in (no undo:
	 * the slot may be someone else's by now); asking again says EEXIST
	 * with the handle.
	 */
	if (!ret || ret == -EEXIST)
		ret = kav_ucmd_respond(ucmd, sizeof(*cmd)) ?: ret;
	return ret;
}

int kav_ioctl_av_key_remove(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_key *cmd = ucmd->cmd;
	struct kav_av *av = ((struct kav_av_file *)obj)->av;
	struct kav_table *t = &av->table;
	int ret;

	/* The key's vni is not looked at; its reserved bits are (uAPI). */
	if (cmd->flags || cmd->key.__reserved)
		return -EINVAL;
	ret = kav_table_lock(t);
	if (ret)
		return ret;
	ret = kav_key_removable(t, cmd->handle);
	if (!ret) {
		/* Revocations stop visiting the slot before it can be reused. */
		kav_key_grants_unhold(&av->key_grants, cmd->handle,
				      kav_key_grants_of(&av->key_grants,
							cmd->handle));
		spin_lock(&t->key_lock);
		kav_key_remove(t, cmd->handle);
		spin_unlock(&t->key_lock);
		/* No entries left: only the slot's own charge. */
		kav_key_grants_drop(&av->key_grants, cmd->handle, 0);
	}
	kav_table_unlock(t);
	return ret;
}

int kav_ioctl_av_set_user_id(void *obj, struct kav_ucmd *ucmd)
{
	struct kav_av_user_id *cmd = ucmd->cmd;
	struct kav_table *t = &((struct kav_av_file *)obj)->av->table;
	int ret;

	if (cmd->flags & ~KAV_USER_ID_AUTH_KEY)
		return -EINVAL;
	/* Shared by the job's processes: user ids are each one's own. */
	if (kav_table_indexed(t))
		return -EOPNOTSUPP;
	ret = kav_table_lock(t);
	if (ret)
		return ret;
	if (cmd->flags & KAV_USER_ID_AUTH_KEY)
		ret = kav_key_set_user_id(t, cmd->index, cmd->user_id);
	else
		ret = kav_table_set_user_id(t, cmd->index, cmd->user_id);
	kav_table_unlock(t);
	return ret;
}
