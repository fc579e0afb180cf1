/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav objects: the files tenants hold and their ioctls. Lifetimes:
 *
 *   kav_domain  one open of /dev/kav; holds the opener's identity snapshot.
 *               Referenced by its file and by every AV created from it.
 *   kav_av      an address vector; owns a kav_table (core) and the grants
 *               behind its key slots (policy). Each open of it is an
 *               anon-inode file (struct kav_av_file) holding a reference;
 *               a named AV can be opened many times (kav_names.c) and an
 *               administrator can pin it. It lives until the last file is
 *               released (after its last fd and mapping are gone) and the
 *               pin is dropped.
 *   kav_ep      an endpoint bound to an AV (kav_ep.c).
 *
 * Every mutation is authorised against the identity of the domain that
 * opened the AV file it arrives on (kav_policy.h), never the creator's.
 * The layer above (administration) learns of objects through the hooks
 * it registers, never by being called from a release path directly.
 */
#ifndef KAV_OBJECTS_H
#define KAV_OBJECTS_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/kav.h>
#include "kav_core.h"
#include "kav_policy.h"

struct kav_domain {
	struct kref ref;
	struct kav_identity id;
	u32 reg_id;			/* id in the registry (netlink) */
	struct mutex lock;		/* key, nr_avs */
	struct kav_grant *key_grant;	/* grant behind the domain key */
	struct kav_auth_key key;
	unsigned int nr_avs;
};

/*
 * A job table's identity (KAV_AV_JOB), what the kernel knows of the job,
 * compared field by field. The grant and the user namespace outlive the
 * table (its key slot 0 holds the grant, its creator's credentials the
 * namespace), so neither pointer can come to mean another while it
 * exists. Its IPC namespace and owner scope it as any name's.
 */
struct kav_job_key {
	const struct kav_grant *grant;
	const struct user_namespace *user_ns;
	u32 addr_format;
	u32 addr_max;
};

/* What names a named AV: a user's name, or the job it is the table of. */
enum kav_named_kind {
	KAV_NAMED_USER,			/* name[] of len bytes, no NUL */
	KAV_NAMED_JOB,			/* job; len 0 */
};

/*
 * A named AV's name, owner and permissions (kav_names.c). Either kind
 * is scoped by the creator's IPC namespace and by uid; two are the same
 * AV only if they are of one kind.
 */
struct kav_named {
	struct hlist_node node;		/* in the name table */
	struct kav_av *av;		/* whose name this is */
	bool hashed;			/* under kav_names_lock */
	bool pinned;			/* under kav_names_lock */
	/* The pin's tag: written by AV_PIN and UNPIN, read by listings. */
	char pin_tag[KAV_TAG_MAX + 1];
	u32 mode;			/* KAV_AV_MODE_DEFAULT style bits */
	kuid_t uid;			/* owner: the creator's euid; scope */
	kgid_t gid;
	enum kav_named_kind kind;
	struct kav_job_key job;		/* KAV_NAMED_JOB */
	u32 len;
	char name[];
};

struct kav_av {
	struct kref ref;		/* files, the pin, registry users */
	struct rcu_head rcu;		/* registry walks are lock-free */
	u32 reg_id;			/* id in the registry (netlink) */
	bool announced;			/* the av_created hook ran */
	atomic_t nr_open;		/* open files */
	struct kav_domain *domain;	/* the creator's */
	struct kav_named *named;	/* NULL for a private AV */
	struct kav_table table;
	struct kav_key_grants key_grants;	/* under table.lock */
};

/*
 * One open of an AV: file->private_data of its anon-inode file. Its
 * domain is the opener's: every write through the file and every
 * resolution by a kernel consumer given the file is authorised against
 * that domain's identity.
 */
struct kav_av_file {
	struct kav_av *av;
	struct kav_domain *domain;	/* a reference */
	struct file *file;
};

/*
 * What the administration layer wants to know; registered once at module
 * init (kav_objects_set_hooks()) and called without locks held.
 */
struct kav_object_hooks {
	int (*domain_added)(struct kav_domain *d);	/* may fail: ENOMEM */
	void (*domain_removed)(struct kav_domain *d);
	int (*av_added)(struct kav_av *av);		/* may fail: ENOMEM */
	void (*av_created)(struct kav_av *av);		/* announce it */
	void (*av_removed)(struct kav_av *av);		/* before it is freed */
};

void kav_objects_set_hooks(const struct kav_object_hooks *hooks);
extern const struct kav_object_hooks *kav_hooks;

/* The domain's key grant (then d->key is set), or NULL; no lock needed. */
static inline struct kav_grant *
kav_domain_key_grant(const struct kav_domain *d)
{
	/* Pairs with the release in kav_ioctl_domain_set_key(): d->key is set. */
	return smp_load_acquire(&d->key_grant);
}

/* kav_dev.c: /dev/kav */
extern const struct file_operations kav_dev_fops;

/* kav_domain.c */
struct kav_ucmd;
struct kav_domain *kav_domain_new(struct file *file);
void kav_domain_put(struct kav_domain *domain);
void kav_domain_file_closed(struct kav_domain *domain);
int kav_ioctl_domain_set_key(void *obj, struct kav_ucmd *ucmd);

/* kav_whoami.c */
int kav_ioctl_domain_whoami(void *obj, struct kav_ucmd *ucmd);

/* A reference on @av unless it is already on its way out. */
static inline bool kav_av_tryget(struct kav_av *av)
{
	return kref_get_unless_zero(&av->ref);
}

/* kav_av.c */
int kav_ioctl_av_create(void *obj, struct kav_ucmd *ucmd);
struct kav_av_file *kav_av_file_of(struct file *file);
void kav_av_get(struct kav_av *av);
void kav_av_put(struct kav_av *av);
int kav_av_pin(struct kav_av *av, bool pin, const char *tag);
void kav_avs_unpin_all(void);

/* kav_consumer.c: revocation callbacks (no kav lock held) */
void kav_consumers_revoke(u32 vni);

/* kav_av_write.c: the mutating ioctls of an AV file */
int kav_ioctl_av_insert(void *obj, struct kav_ucmd *ucmd);
int kav_ioctl_av_remove(void *obj, struct kav_ucmd *ucmd);
int kav_ioctl_av_key_insert(void *obj, struct kav_ucmd *ucmd);
int kav_ioctl_av_key_remove(void *obj, struct kav_ucmd *ucmd);
int kav_ioctl_av_set_user_id(void *obj, struct kav_ucmd *ucmd);
int kav_av_add_key(struct kav_av *av, const struct kav_identity *id,
		   const struct kav_auth_key *key, struct kav_grant *grant,
		   u32 flags, u64 *handle);

/* kav_names.c: named AVs, per IPC namespace and owner */
extern struct mutex kav_names_lock;
struct kav_named *kav_named_alloc(const struct kav_av_create *cmd,
				  struct kav_domain *domain);
void kav_names_init(void);
bool kav_named_is_own(const struct kav_named *named,
		      const struct kav_identity *id);
struct kav_av *kav_names_find(const struct kav_identity *id,
			      const struct kav_named *key);
void kav_names_add(struct kav_av *av, struct kav_named *named);
void kav_names_del(struct kav_av *av);
int kav_names_permission(const struct kav_av *av,
			 const struct kav_identity *id, bool write);
int kav_names_set_pinned(struct kav_av *av, bool pin, const char *tag);
bool kav_names_pin_state(const struct kav_named *n, char *tag);
struct kav_av *kav_names_unpin_any(void);

/* kav_ep.c */
int kav_ioctl_av_ep_open(void *obj, struct kav_ucmd *ucmd);

/* kav_ucmd.c: size-first ioctl arguments (see uapi/linux/kav.h) */
union kav_ucmd_buffer {
	struct kav_av_create av_create;
	struct kav_av_insert av_insert;
	struct kav_av_remove av_remove;
	struct kav_av_key av_key;
	struct kav_av_user_id av_user_id;
	struct kav_av_ep_open av_ep_open;
	struct kav_ep_enable ep_enable;
	struct kav_domain_key domain_key;
	struct kav_whoami whoami;
};

struct kav_ucmd {
	void __user *ubuf;
	u32 user_size;
	void *cmd;
};

struct kav_ioctl_op {
	unsigned int cmd;
	u32 size;		/* kernel's sizeof() */
	u32 min_size;		/* end of the last field of version 1 */
	int (*execute)(void *obj, struct kav_ucmd *ucmd);
};

/* Every command's structure must fit the buffer it is copied into. */
#define KAV_IOCTL_OP(_ioctl, _fn, _struct, _last)			\
	{								\
		.cmd = _ioctl,						\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(_struct) >		\
					  sizeof(union kav_ucmd_buffer)), \
		.min_size = offsetofend(_struct, _last),		\
		.execute = _fn,						\
	}

long kav_ucmd_dispatch(void *obj, const struct kav_ioctl_op *ops,
		       size_t nr_ops, unsigned int cmd, unsigned long arg);
int kav_ucmd_respond(struct kav_ucmd *ucmd, size_t len);

/*
 * An output array in user memory, pinned before a change so that writing
 * it afterwards cannot fail (and the change need never be undone).
 */
struct kav_user_out {
	struct page **pages;
	unsigned int nr_pages;
	unsigned int offset;		/* of the first byte in pages[0] */
	size_t bytes;
};

int kav_user_out_pin(struct kav_user_out *out, u64 uptr, size_t bytes);
void kav_user_out_write(struct kav_user_out *out, const void *src);
void kav_user_out_release(struct kav_user_out *out);

#endif /* KAV_OBJECTS_H */
