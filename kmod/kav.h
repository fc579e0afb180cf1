/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav internal interfaces. Objects and their lifetimes:
 *
 *   kav_domain  one open of /dev/kav; holds the opener's identity snapshot.
 *               Referenced by its file and by every AV created from it.
 *   kav_av      one AV file (anon inode); owns a kav_table. Lives until its
 *               file is released, which happens after the last fd is closed
 *               and the last mapping of its table is gone.
 *   kav_table   header page + entry pages; writers serialise on its mutex,
 *               readers (user mappings) read lock-free with the sequence
 *               protocol described in uapi/linux/kav.h.
 */
#ifndef KAV_INTERNAL_H
#define KAV_INTERNAL_H

#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <linux/kav.h>

struct cred;

/* Who opened a domain, captured once at open() (see kav_identity.c). */
struct kav_identity {
	const struct cred *cred;
	u64 cgroup_id;
	u64 netns_cookie;
};

struct kav_domain {
	struct kref ref;
	struct kav_identity id;
};

struct kav_table {
	struct mutex lock;		/* serialises writers */
	struct page *header_page;
	struct kav_table_header *hdr;
	struct xarray pages;		/* entry page n -> struct page */
	u32 addr_format;
	u32 addr_max;
	u32 entry_size;
	u32 entries_per_page;
	u64 max_entries;
	u64 map_pages;			/* header page + entry pages */
	u64 nr_slots;			/* high-water mark, mirrored in hdr */
	u64 nr_valid;
	u64 first_free;			/* no free slot below this index */
};

struct kav_av {
	struct kav_domain *domain;
	struct file *file;		/* the AV's own file */
	struct kav_table table;
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
};

/* kav_main.c */
extern unsigned long kav_max_entries;

/* kav_identity.c */
void kav_identity_capture(struct kav_identity *id, const struct file *file);
void kav_identity_release(struct kav_identity *id);

/* kav_domain.c */
extern const struct file_operations kav_domain_fops;
void kav_domain_put(struct kav_domain *domain);

/* kav_av.c */
struct kav_ucmd;
int kav_av_create(struct kav_domain *domain, struct kav_ucmd *ucmd);

/* kav_addr.c */
int kav_addr_check_format(u32 addr_format, u32 *addr_max);
int kav_addr_validate(u32 addr_format, u32 addr_max, const u8 *addr,
		      u32 stride);

/* kav_table.c */
int kav_table_init(struct kav_table *t, u32 addr_format, u32 addr_max,
		   u64 max_entries);
void kav_table_destroy(struct kav_table *t);
int kav_table_insert(struct kav_table *t, struct kav_insert_batch *b);
int kav_table_remove(struct kav_table *t, const u64 *idx, u32 count,
		     u32 *err_index);
void kav_table_erase(struct kav_table *t, const u64 *idx, u32 count);
int kav_table_mmap(struct kav_table *t, struct vm_area_struct *vma);
int kav_table_set_user_id(struct kav_table *t, u64 idx, u64 user_id);

/* kav_keys.c: auth-key slots in the header page; t->lock held */
void kav_keys_init(struct kav_table *t);
bool kav_key_valid(struct kav_table *t, u64 handle);
void kav_key_get_entry(struct kav_table *t, u64 handle);
void kav_key_put_entry(struct kav_table *t, u64 handle);
int kav_key_insert(struct kav_table *t, const struct kav_auth_key *key,
		   u64 *handle);
int kav_key_remove(struct kav_table *t, u64 handle);
int kav_key_set_user_id(struct kav_table *t, u64 handle, u64 user_id);
u64 kav_keys_enable(struct kav_table *t);
void kav_keys_disable(struct kav_table *t, u64 keys);

/* kav_table.c: sequence counters shared by entries and key slots */
void kav_seq_begin(__u64 *seq);
void kav_seq_end(__u64 *seq);

/* kav_ep.c */
int kav_ep_open(struct kav_av *av, struct kav_ucmd *ucmd);

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
