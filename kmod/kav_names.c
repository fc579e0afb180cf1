// SPDX-License-Identifier: GPL-2.0
/*
 * Named AVs: one table per name, IPC namespace and owner, opened by many
 * processes (libfabric's shared AVs, MPI "instant-on").
 *
 * Names belong to users: a name is looked up, and created, among its
 * owner's (the creator's euid), by default the caller's own. Another
 * user's AV is opened only by naming that user (KAV_AV_OWNER), and never
 * created that way. So no tenant can squat a name before another's job
 * creates it: the job never looks at the squatter's names. (Within one
 * uid, processes can ptrace each other anyway; what each may bind is
 * still held to its own grants.) The name table
 * holds no reference: an AV is in it from creation until its last
 * reference goes (kav_av_free() calls kav_names_del()). A lookup that
 * finds an AV already on its way out unhashes it, so that the name can be
 * taken again at once.
 *
 * Locking: the whole order is at kav_ioctl_av_create(). It covers a lookup
 * and a link, never an allocation that grows with a tenant's request.
 * Nobody may drop an AV reference while holding it: the drop may be the
 * last one, and kav_av_free() takes it (and asserts, under lockdep, that
 * it is not held). AV creation puts a half-made AV only after releasing
 * it.
 */
#include <linux/hashtable.h>
#include <linux/ipc_namespace.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include "kav_objects.h"

/* The name table and every kav_named's hashed and pinned. */
DEFINE_MUTEX(kav_names_lock);
static DEFINE_HASHTABLE(kav_names, 8);

/*
 * Tenants choose the names, and lookups walk a bucket under
 * kav_names_lock, which every named create takes: the hash is keyed with
 * a secret, so that nobody can aim names at one bucket.
 */
static siphash_key_t kav_names_key;

/* At module load: get_random_once() would hold the module for a while. */
void kav_names_init(void)
{
	get_random_bytes(&kav_names_key, sizeof(kav_names_key));
}

/* @n's bucket, scoped by @ns: by its name's bytes, or its job's grant. */
static u32 kav_named_hash(const struct kav_named *n,
			  const struct ipc_namespace *ns)
{
	u64 h;

	if (n->kind == KAV_NAMED_JOB)
		h = siphash_1u64((unsigned long)n->job.grant, &kav_names_key);
	else
		h = siphash(n->name, n->len, &kav_names_key);
	return (u32)h ^ hash_ptr(ns, 32) ^ __kuid_val(n->uid);
}

/*
 * The name, owner and mode of @cmd (KAV_AV_NAMED): the owner is @id's
 * euid, or with KAV_AV_OWNER the uid @cmd names, a number in the
 * caller's user namespace (current_user_ns(), as chown() takes one and
 * as kav_av_report_mode() gives one back), not the domain opener's: an fd
 * passed into a user namespace names only uids mapped there. An owner
 * with no mapping there is EINVAL. An ERR_PTR for a bad name, owner or
 * mode.
 */
static struct kav_named *kav_named_user(const struct kav_av_create *cmd,
					const struct kav_identity *id)
{
	struct kav_named *n;

	kuid_t owner = id->cred->euid;

	if (!cmd->name_len || cmd->name_len > KAV_NAME_MAX ||
	    (cmd->mode & ~0666U))
		return ERR_PTR(-EINVAL);
	if (cmd->flags & KAV_AV_OWNER) {
		owner = make_kuid(current_user_ns(), cmd->owner_uid);
		if (!uid_valid(owner))
			return ERR_PTR(-EINVAL);
	}
	n = kzalloc(struct_size(n, name, cmd->name_len), KAV_TENANT_GFP);
	if (!n)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(n->name, u64_to_user_ptr(cmd->name),
			   cmd->name_len)) {
		kfree(n);
		return ERR_PTR(-EFAULT);
	}
	/* Names are byte strings that administrators can print. */
	if (memchr(n->name, '\0', cmd->name_len)) {
		kfree(n);
		return ERR_PTR(-EINVAL);
	}
	n->kind = KAV_NAMED_USER;
	n->len = cmd->name_len;
	n->mode = cmd->mode ?: KAV_AV_MODE_DEFAULT;
	n->uid = owner;
	n->gid = id->cred->egid;
	return n;
}

/*
 * The identity of a job's table (KAV_AV_JOB): made by the kernel from the
 * job, never from user bytes, and of its own kind, so that no named open
 * can reach it. The owner's euid and the IPC namespace scope it as any
 * name.
 */
static struct kav_named *kav_named_job(const struct kav_av_create *cmd,
				       struct kav_domain *domain)
{
	const struct kav_identity *id = &domain->id;
	struct kav_grant *g = kav_domain_key_grant(domain);
	struct kav_named *n;

	if (!g)
		return ERR_PTR(-ENOKEY);
	n = kzalloc(sizeof(*n), KAV_TENANT_GFP);
	if (!n)
		return ERR_PTR(-ENOMEM);
	n->kind = KAV_NAMED_JOB;
	n->job.grant = g;
	n->job.user_ns = id->cred->user_ns;
	n->job.addr_format = cmd->addr_format;
	n->job.addr_max = cmd->addr_max;
	/* Only the job's own processes: the owner's bits, nobody else's. */
	n->mode = 0600;
	n->uid = id->cred->euid;
	n->gid = id->cred->egid;
	return n;
}

/*
 * What names the AV @cmd asks for, opened from @domain: a user's name
 * (KAV_AV_NAMED), a job (KAV_AV_JOB), or NULL for an unnamed AV.
 */
struct kav_named *kav_named_alloc(const struct kav_av_create *cmd,
				  struct kav_domain *domain)
{
	if (cmd->flags & KAV_AV_JOB)
		return kav_named_job(cmd, domain);
	if (cmd->flags & KAV_AV_NAMED)
		return kav_named_user(cmd, &domain->id);
	return cmd->name || cmd->name_len || cmd->mode ? ERR_PTR(-EINVAL) :
	       NULL;
}

/* Are @named's names @id's own (so that it may create there)? */
bool kav_named_is_own(const struct kav_named *named,
		      const struct kav_identity *id)
{
	return uid_eq(named->uid, id->cred->euid);
}

static bool kav_job_key_eq(const struct kav_job_key *a,
			   const struct kav_job_key *b)
{
	return a->grant == b->grant && a->user_ns == b->user_ns &&
	       a->addr_format == b->addr_format && a->addr_max == b->addr_max;
}

static bool kav_name_matches(const struct kav_av *av,
			     const struct ipc_namespace *ns,
			     const struct kav_named *key)
{
	const struct kav_named *n = av->named;

	if (av->domain->id.ipc_ns != ns || !uid_eq(n->uid, key->uid) ||
	    n->kind != key->kind)
		return false;
	if (n->kind == KAV_NAMED_JOB)
		return kav_job_key_eq(&n->job, &key->job);
	return n->len == key->len && !memcmp(n->name, key->name, key->len);
}

/*
 * A reference on the AV called @key among @key's owner's names in @id's
 * IPC namespace, or NULL.
 */
struct kav_av *kav_names_find(const struct kav_identity *id,
			      const struct kav_named *key)
{
	u32 hash = kav_named_hash(key, id->ipc_ns);
	struct kav_named *n;
	struct kav_av *av;

	lockdep_assert_held(&kav_names_lock);
	hash_for_each_possible(kav_names, n, node, hash) {
		av = n->av;
		if (!kav_name_matches(av, id->ipc_ns, key))
			continue;
		if (kav_av_tryget(av))
			return av;
		/* Dying: its name is free from now on. */
		hash_del(&n->node);
		n->hashed = false;
		return NULL;
	}
	return NULL;
}

/* Give @av (just created, not yet shared) the name @named. */
void kav_names_add(struct kav_av *av, struct kav_named *named)
{
	lockdep_assert_held(&kav_names_lock);
	named->av = av;
	named->hashed = true;
	av->named = named;
	hash_add(kav_names, &named->node,
		 kav_named_hash(named, av->domain->id.ipc_ns));
}

/* The last reference to @av is gone: free its name. */
void kav_names_del(struct kav_av *av)
{
	struct kav_named *n = av->named;

	if (!n)
		return;
	mutex_lock(&kav_names_lock);
	if (n->hashed)
		hash_del(&n->node);
	mutex_unlock(&kav_names_lock);
	kfree(n);
}

/*
 * May @id open @av for reading (and @write)? Mode bits as for files: the
 * owner's if @id's euid is the creator's, else the group's if @id is in
 * the creator's group, else the others'. No capability overrides them:
 * root in a container is not the node's administrator (kavctl is). A
 * refusal is counted and logged like the grant denials.
 */
int kav_names_permission(const struct kav_av *av,
			 const struct kav_identity *id, bool write)
{
	const struct kav_named *n = av->named;
	u32 need = write ? 06 : 04;
	u32 mode = n->mode;

	if (uid_eq(id->cred->euid, n->uid))
		mode >>= 6;
	else if (kav_identity_in_group(id, n->gid))
		mode >>= 3;
	if ((mode & need) == need)
		return 0;
	kav_deny_mode(id, n->mode, write);
	return -EACCES;
}

/*
 * Mark @av pinned (with @tag, "" for none) or not (the pin's reference is
 * the caller's business, kav_av_pin()). EINVAL for an unnamed AV,
 * EALREADY when it already is (is not) pinned.
 */
int kav_names_set_pinned(struct kav_av *av, bool pin, const char *tag)
{
	int ret = 0;

	if (!av->named)
		return -EINVAL;
	mutex_lock(&kav_names_lock);
	if (av->named->pinned == pin) {
		ret = -EALREADY;
	} else {
		strscpy(av->named->pin_tag, pin ? tag : "",
			sizeof(av->named->pin_tag));
		WRITE_ONCE(av->named->pinned, pin);
	}
	mutex_unlock(&kav_names_lock);
	return ret;
}

/*
 * Whether @n is pinned, and its pin tag copied to @tag (KAV_TAG_MAX + 1
 * bytes), both as one kav_names_set_pinned() left them: a listing reads
 * them here, not torn by a pin or unpin in between.
 */
bool kav_names_pin_state(const struct kav_named *n, char *tag)
{
	bool pinned;

	mutex_lock(&kav_names_lock);
	pinned = n->pinned;
	strscpy(tag, pinned ? n->pin_tag : "", KAV_TAG_MAX + 1);
	mutex_unlock(&kav_names_lock);
	return pinned;
}

/* Unmark one pinned AV and return it (its pin reference), or NULL. */
struct kav_av *kav_names_unpin_any(void)
{
	struct kav_named *n;
	struct kav_av *av = NULL;
	int bkt;

	mutex_lock(&kav_names_lock);
	hash_for_each(kav_names, bkt, n, node) {
		if (n->hashed && n->pinned) {
			WRITE_ONCE(n->pinned, false);
			av = n->av;
			break;
		}
	}
	mutex_unlock(&kav_names_lock);
	return av;
}
