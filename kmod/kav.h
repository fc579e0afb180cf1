/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav internal interfaces. Objects and their lifetimes:
 *
 *   kav_domain  one open of /dev/kav; holds the opener's identity snapshot.
 *               Referenced by its file and by every AV created from it.
 *   kav_av      an address vector; owns a kav_table. Each open of it is an
 *               anon-inode file (struct kav_av_file) holding a reference;
 *               a named AV can be opened many times (kav_names.c) and an
 *               administrator can pin it. It lives until the last file is
 *               released (after its last fd and mapping are gone) and the
 *               pin is dropped.
 *   kav_table   header page + entry pages; writers serialise on its mutex,
 *               readers (user mappings) read lock-free with the sequence
 *               protocol described in uapi/linux/kav.h.
 */
#ifndef KAV_INTERNAL_H
#define KAV_INTERNAL_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <linux/kav.h>

struct cred;
struct ipc_namespace;
struct mem_cgroup;

/* Who opened a domain, captured once at open() (see kav_identity.c). */
struct kav_identity {
	const struct cred *cred;
	struct cgroup *cgroup;
	u64 cgroup_id;
	u64 netns_cookie;
	struct ipc_namespace *ipc_ns;	/* held; scope of AV names */
	pid_t pid;			/* for administrators' listings */
};

/* An administrator's grant of one auth key to an identity (kav_grants.c). */
struct kav_grant {
	struct kref ref;		/* the grant list + each key slot */
	struct list_head node;		/* in the grant list until revoked */
	u32 id;
	u32 vni;
	u32 sel_type;			/* enum kav_grant_selector */
	kuid_t uid;
	kgid_t gid;
	struct cgroup *cgroup;		/* held; KAV_SEL_CGROUP */
	u64 cgroup_id;
	u64 netns_cookie;		/* KAV_SEL_NETNS */
	u64 limit_entries;		/* 0: none */
	u32 limit_avs;			/* 0: none */
	bool revoked;
	atomic64_t nr_entries;		/* entries bound under the grant */
	atomic_t nr_avs;		/* key slots (AVs) using the grant */
};

struct kav_domain {
	struct kref ref;
	struct kav_identity id;
	u32 reg_id;			/* id in the registry (netlink) */
	struct mutex lock;		/* key, nr_avs */
	struct kav_grant *key_grant;	/* grant behind the domain key */
	struct kav_auth_key key;
	unsigned int nr_avs;
};

struct kav_table {
	struct mutex lock;		/* serialises writers */
	struct page *header_page;
	struct kav_table_header *hdr;
	/* Mapping page n + 1 -> struct page: entry pages, then fi_addr pages. */
	struct xarray pages;
	/* Page n: bit i set while slot n * KAV_USED_PER_PAGE + i is valid. */
	struct xarray used;
	struct mem_cgroup *memcg;	/* the creator's: pays for the pages */
	u32 addr_format;
	u32 addr_max;
	u32 entry_size;
	u32 entries_per_page;
	u64 max_entries;
	u64 entry_pages;		/* pages of entries in the mapping */
	u64 map_pages;			/* header + entry + fi_addr pages */
	u64 nr_slots;			/* high-water mark, mirrored in hdr */
	u64 nr_valid;
	u64 nr_pages;			/* entry, fi_addr and used pages */
	u64 first_free;			/* no free slot below this index */
	/* The grant that authorised each key slot (a reference each). */
	struct kav_grant *key_grants[KAV_MAX_AUTH_KEYS];
};

/* A named AV's name and permissions (kav_names.c). */
struct kav_named {
	struct hlist_node node;		/* in the name table */
	struct kav_av *av;		/* whose name this is */
	bool hashed;			/* under kav_names_lock */
	bool pinned;			/* under kav_names_lock */
	u32 mode;			/* KAV_AV_MODE_DEFAULT style bits */
	kuid_t uid;			/* the creator's euid and egid */
	kgid_t gid;
	u32 len;
	char name[];
};

struct kav_av {
	struct kref ref;		/* files, the pin, registry users */
	struct rcu_head rcu;		/* registry walks are lock-free */
	u32 reg_id;			/* id in the registry (netlink) */
	bool announced;			/* KAV_GENL_CMD_AV_NEW was sent */
	atomic_t nr_open;		/* open files */
	struct kav_domain *domain;	/* the creator's */
	struct kav_named *named;	/* NULL for a private AV */
	struct kav_table table;
};

/*
 * One open of an AV: file->private_data of its anon-inode file. The
 * domain is the opener's, whose identity later checks (kernel consumers)
 * hold the opener to; for the creator it is av->domain.
 */
struct kav_av_file {
	struct kav_av *av;
	struct kav_domain *domain;	/* a reference */
	struct file *file;
};

/* One batch for kav_table_insert(); see kav_av.c for how it is filled. */
struct kav_insert_batch {
	const u8 *addrs;		/* count * stride bytes, validated */
	u32 stride;
	u32 count;
	const u32 *lens;		/* bytes of each address */
	const u64 *keys;		/* key handle per address, or NULL */
	const u64 *user_ids;		/* user id per address, or NULL */
	u64 *idx;			/* out: index of each address */
	u32 err_index;			/* out: the address to blame */
	const struct kav_identity *id;	/* who inserts (for denials) */
};

/* kav_main.c */
extern unsigned long kav_max_entries;
extern bool kav_allow_keyless;

/* kav_identity.c */
void kav_identity_capture(struct kav_identity *id, const struct file *file);
void kav_identity_release(struct kav_identity *id);
bool kav_identity_in_group(const struct kav_identity *id, kgid_t gid);

/* kav_grants.c: who may use which auth key */
enum kav_deny {
	KAV_DENY_NO_GRANT,
	KAV_DENY_REVOKED,
	KAV_DENY_KEYLESS,
	KAV_DENY_LIMIT,
	KAV_DENY_NR,
};

extern struct rw_semaphore kav_revoke_sem;
struct kav_grant *kav_grant_add(struct kav_grant *spec);
struct kav_grant *kav_grant_del(u32 id);
int kav_grants_walk(int (*fn)(const struct kav_grant *g, void *arg),
		    void *arg, u32 *pos);
u64 kav_grants_count(void);
struct kav_grant *kav_grant_authorize(const struct kav_identity *id,
				      u32 vni, const char *op);
void kav_grant_get(struct kav_grant *g);
void kav_grant_put(struct kav_grant *g);
bool kav_grant_revoked(const struct kav_grant *g);
int kav_grant_charge(struct kav_grant *g, u64 entries, u32 avs,
		     const struct kav_identity *id, const char *op);
void kav_grant_uncharge(struct kav_grant *g, u64 entries, u32 avs);
void kav_deny(enum kav_deny why, const struct kav_identity *id, u32 vni,
	      const char *op);
u64 kav_deny_count(enum kav_deny why);
void kav_grants_exit(void);

/* kav_registry.c: every domain and AV, for administrators */
int kav_registry_add_domain(struct kav_domain *d);
void kav_registry_del_domain(struct kav_domain *d);
int kav_registry_add_av(struct kav_av *av);
void kav_registry_del_av(struct kav_av *av);
struct kav_av *kav_registry_get_av(u32 id);
void kav_av_get(struct kav_av *av);
void kav_av_put(struct kav_av *av);
void kav_registry_revoke(struct kav_grant *g);
int kav_registry_walk_avs(int (*fn)(struct kav_av *, void *), void *arg, u32 *pos);
int kav_registry_walk_domains(int (*fn)(struct kav_domain *, void *), void *arg,
			      u32 *pos);
u64 kav_registry_count_domains(void);

struct kav_stats {
	u64 domains;
	u64 avs;
	u64 entries;
	u64 bytes;
};

void kav_stats_collect(struct kav_stats *st);

/* kav_names.c: named AVs, per IPC namespace */
extern struct mutex kav_names_lock;
struct kav_named *kav_named_alloc(const struct kav_av_create *cmd,
				  const struct kav_identity *id);
struct kav_av *kav_names_find(const struct kav_identity *id,
			      const struct kav_named *key);
void kav_names_add(struct kav_av *av, struct kav_named *named);
void kav_names_del(struct kav_av *av);
int kav_names_permission(const struct kav_av *av,
			 const struct kav_identity *id, bool write);
int kav_names_pin(struct kav_av *av, bool pin);
void kav_names_exit(void);

/* kav_domain.c */
extern const struct file_operations kav_domain_fops;
void kav_domain_put(struct kav_domain *domain);

/* kav_av.c */
struct kav_ucmd;
int kav_av_create(struct kav_domain *domain, struct kav_ucmd *ucmd);
struct kav_av_file *kav_av_file_of(struct file *file);

/* kav_genl.c */
int kav_genl_init(void);
void kav_genl_exit(void);
void kav_genl_notify_av(u8 cmd, struct kav_av *av);
void kav_genl_notify_grant(u8 cmd, const struct kav_grant *g);

/* kav_addr.c */
int kav_addr_check_format(u32 addr_format, u32 *addr_max);
int kav_addr_validate(u32 addr_format, u32 addr_max, const u8 *addr,
		      u32 stride);

/* kav_table.c */
int kav_table_init(struct kav_table *t, u32 addr_format, u32 addr_max,
		   u64 max_entries);
u32 kav_table_entry_bytes(const struct kav_table *t);
void kav_table_destroy(struct kav_table *t);
int kav_table_insert(struct kav_table *t, struct kav_insert_batch *b);
int kav_table_remove(struct kav_table *t, const u64 *idx, u32 count,
		     u32 *err_index);
void kav_table_erase(struct kav_table *t, const u64 *idx, u32 count);
int kav_table_mmap(struct kav_table *t, struct vm_area_struct *vma);
int kav_table_set_user_id(struct kav_table *t, u64 idx, u64 user_id);
struct kav_resolution;
int kav_table_resolve(struct kav_table *t, u64 idx,
		      struct kav_resolution *res);
u64 kav_table_bytes(const struct kav_table *t);
/* Called for each valid entry (with its key slot, or NULL). */
struct kav_entry_visitor {
	int (*fn)(void *arg, u64 idx, const struct kav_entry *e,
		  const struct kav_key_slot *k);
	void *arg;
};

int kav_table_walk_entries(struct kav_table *t, u64 *idx,
			   const struct kav_entry_visitor *v);
const struct kav_key_slot *kav_key_slot_ro(struct kav_table *t, u64 handle);

/* kav_keys.c: auth-key slots in the header page; t->lock held */
void kav_keys_init(struct kav_table *t);
bool kav_key_valid(struct kav_table *t, u64 handle);
int kav_key_charge_entries(struct kav_table *t, u64 handle, u32 n,
			   const struct kav_identity *id);
void kav_key_uncharge_entries(struct kav_table *t, u64 handle, u32 n);
void kav_key_bind_entries(struct kav_table *t, u64 handle, u32 n);
void kav_key_put_entries(struct kav_table *t, u64 handle, u32 n);
int kav_key_insert(struct kav_table *t, const struct kav_auth_key *key,
		   struct kav_grant *grant, u32 flags, u64 *handle);
bool kav_key_revoked(struct kav_table *t, u64 handle);
u32 kav_key_slot_flags(struct kav_table *t, u64 handle);
u32 kav_key_slot_vni(struct kav_table *t, u64 handle);
void kav_keys_revoke(struct kav_table *t, struct kav_grant *g);
void kav_keys_destroy(struct kav_table *t);
int kav_key_remove(struct kav_table *t, u64 handle);
int kav_key_set_user_id(struct kav_table *t, u64 handle, u64 user_id);
u64 kav_keys_enable(struct kav_table *t);
void kav_keys_disable(struct kav_table *t, u64 keys);

/* kav_table.c: sequence counters shared by entries and key slots */
void kav_seq_begin(__u64 *seq);
void kav_seq_end(__u64 *seq);

/* kav_ep.c */
int kav_ep_open(struct kav_av_file *h, struct kav_ucmd *ucmd);

/* kav_ucmd.c: size-first ioctl arguments (see uapi/linux/kav.h) */
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

#define KAV_IOCTL_OP(_ioctl, _fn, _struct, _last)			\
	{								\
		.cmd = _ioctl,						\
		.size = sizeof(_struct),				\
		.min_size = offsetofend(_struct, _last),		\
		.execute = _fn,						\
	}

long kav_ucmd_dispatch(void *obj, const struct kav_ioctl_op *ops,
		       size_t nr_ops, unsigned int cmd, unsigned long arg);
int kav_ucmd_respond(struct kav_ucmd *ucmd, size_t len);

#endif /* KAV_INTERNAL_H */
