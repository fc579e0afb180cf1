// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kav address vector: a genuine struct fid_av over one kernel AV fd.
 * This file is the object itself: the create and map of fi_av_open() and
 * its attributes, fi_av_bind(), fi_close(), the holds (endpoints; AV sets
 * and peer AVs: the child registry) and the one fi_ops table of every
 * kav AV. It never calls up: what a job AV adds comes through its struct
 * kav_av_kind (av_job.c), and the fi_ops_av tables and the opens that
 * give them sit on top (av_ops.c). The fi_ops_av entries live by concern:
 * av_insert.c, av_remove.c, av_lookup.c, av_auth.c (and av_set.c);
 * endpoints in ep.c.
 *
 * Mutations (insert, remove, auth keys, user ids) are ioctls on the AV
 * fd; the kernel serialises them and applies each batch atomically. Reads
 * (lookup, lookup_auth_key, kav_av_resolve) come from the read-only table
 * mapping with no system call (table.c). The library's own state is
 * immutable after open except the bound EQ (set once, atomically) and the
 * hold count (atomic), so an AV needs no lock (the child registry, one for
 * the process, has its own).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"
#include "kav_eq_priv.h"

_Static_assert(offsetof(struct kav_fid_av, av_fid) == 0, "fid first");

/* ------------------------------------------------------------ lifetime */

void kav_av_hold(struct kav_fid_av *av)
{
	__atomic_add_fetch(&av->refs, 1, __ATOMIC_RELAXED);
}

void kav_av_unhold(struct kav_fid_av *av)
{
	__atomic_sub_fetch(&av->refs, 1, __ATOMIC_RELEASE);
}

/*
 * The child registry: AV sets and peer AVs that refer to an AV
 * (kav_priv.h).
 */
struct kav_child {
	const struct kav_fid_av *av;
	unsigned int n;
};

static pthread_mutex_t kav_children_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kav_child *kav_children_tab;
static size_t kav_children_len, kav_children_cap;

static struct kav_child *kav_child_find(const struct kav_fid_av *av)
{
	size_t i;

	for (i = 0; i < kav_children_len; i++)
		if (kav_children_tab[i].av == av)
			return &kav_children_tab[i];
	return NULL;
}

int kav_av_child_get(const struct kav_fid_av *av)
{
	struct kav_child *c, *tab;
	size_t cap;
	int ret = 0;

	pthread_mutex_lock(&kav_children_lock);
	c = kav_child_find(av);
	if (c) {
		c->n++;
		goto out;
	}
	if (kav_children_len == kav_children_cap) {
		cap = kav_children_cap ? kav_children_cap * 2 : 8;
		tab = realloc(kav_children_tab, cap * sizeof(*tab));
		if (!tab) {
			ret = -FI_ENOMEM;
			goto out;
		}
		kav_children_tab = tab;
		kav_children_cap = cap;
	}
	kav_children_tab[kav_children_len].av = av;
	kav_children_tab[kav_children_len].n = 1;
	kav_children_len++;
out:
	pthread_mutex_unlock(&kav_children_lock);
	return ret;
}

void kav_av_child_put(const struct kav_fid_av *av)
{
	struct kav_child *c;

	pthread_mutex_lock(&kav_children_lock);
	c = kav_child_find(av);
	if (c && !--c->n) {
		*c = kav_children_tab[--kav_children_len];
		if (!kav_children_len) {
			free(kav_children_tab);
			kav_children_tab = NULL;
			kav_children_cap = 0;
		}
	}
	pthread_mutex_unlock(&kav_children_lock);
}

unsigned int kav_av_children(const struct kav_fid_av *av)
{
	struct kav_child *c;
	unsigned int n;

	pthread_mutex_lock(&kav_children_lock);
	c = kav_child_find(av);
	n = c ? c->n : 0;
	pthread_mutex_unlock(&kav_children_lock);
	return n;
}

static int kav_av_close_fid(struct fid *fid)
{
	struct kav_fid_av *av = (struct kav_fid_av *)fid;
	unsigned int refs = __atomic_load_n(&av->refs, __ATOMIC_ACQUIRE);
	unsigned int children = kav_av_children(av);
	struct fid_eq *eq;

	if (refs || children) {
		kav_refuse("AV close refused: %u endpoints and %u AV sets or "
			   "peer AVs still bound", refs, children);
		return -FI_EBUSY;
	}
	eq = __atomic_load_n(&av->eq, __ATOMIC_ACQUIRE);
	if (eq)
		kav_eq_unbind_av(eq);
	kav_table_unmap(&av->table);
	kav_sys_close(av->fd);
	__atomic_sub_fetch(&av->domain->av_refs, 1, __ATOMIC_RELEASE);
	if (av->kind)
		av->kind->detach(av);
	free(av);
	return 0;
}

/*
 * fi_av_bind(av, eq, 0): flags must be 0 and @bfid a kav EQ. An AV takes
 * one EQ for its lifetime: a second bind fails with -FI_EINVAL. Binding an
 * AV opened without FI_EVENT is allowed and has no effect beyond holding
 * the EQ (fi_close() of the EQ fails with -FI_EBUSY until the AV closes).
 */
static int kav_av_bind_fid(struct fid *fid, struct fid *bfid,
			   uint64_t flags)
{
	struct kav_fid_av *av = (struct kav_fid_av *)fid;
	struct fid_eq *eq, *none = NULL;
	int ret;

	if (flags) {
		kav_refuse("fi_av_bind: flags must be 0, not %#llx",
			   (unsigned long long)flags);
		return -FI_EINVAL;
	}
	if (!bfid || !kav_eq_is(bfid)) {
		kav_refuse("fi_av_bind: not an EQ from kav_eq_open()");
		return -FI_EINVAL;
	}
	eq = (struct fid_eq *)bfid;	/* fid is its first member */
	ret = kav_eq_bind_av(eq);
	if (ret)
		return ret;
	if (!__atomic_compare_exchange_n(&av->eq, &none, eq, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		kav_eq_unbind_av(eq);
		kav_refuse("fi_av_bind: the AV already has an EQ");
		return -FI_EINVAL;
	}
	return 0;
}

/* ---------------------------------------------------------------- tables */

/*
 * Every kav AV's, private or job (a job AV differs in its fi_ops_av and
 * its kind): also what tells our AVs from others (kav_av_from_fid()).
 */
struct fi_ops kav_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kav_av_close_fid,
	.bind = kav_av_bind_fid,
	.control = kav_no_control,
	.ops_open = kav_no_ops_open,
	.tostr = kav_no_tostr,
	.ops_set = kav_no_ops_set,
};

const char *kav_av_strerror(const struct kav_fid_av *av, int err)
{
	if (av->read_only && err == -FI_EPERM)
		return "the AV was opened with FI_READ: it is read-only";
	return kav_strerror(err);
}

KAV_API int kav_av_fd(struct fid_av *av_fid)
{
	struct kav_fid_av *av = kav_av_from_fid(av_fid);

	return av ? av->fd : -FI_EINVAL;
}

/* ------------------------------------------------------------------ open */

#define KAV_AV_OPEN_FLAGS (FI_EVENT | FI_READ | FI_SYMMETRIC | FI_AV_USER_ID)

/* 0 or the error to return for @attr. */
static int kav_av_check_attr(const struct fi_av_attr *attr)
{
	switch (attr->type) {
	case FI_AV_UNSPEC:
	case FI_AV_MAP:		/* deprecated; behaves as FI_AV_TABLE */
	case FI_AV_TABLE:
		break;
	default:
		kav_refuse("fi_av_open: type %d is not FI_AV_UNSPEC, FI_AV_MAP "
			   "or FI_AV_TABLE", (int)attr->type);
		return -FI_EINVAL;
	}
	if (attr->rx_ctx_bits < 0 ||
	    attr->rx_ctx_bits > KAV_RX_CTX_BITS_MAX) {
		kav_refuse("fi_av_open: rx_ctx_bits %d is outside 0..%d",
			   attr->rx_ctx_bits, KAV_RX_CTX_BITS_MAX);
		return -FI_EINVAL;
	}
	/*
	 * FI_SYMMETRIC is an allocation hint and may be ignored; FI_EVENT
	 * and FI_AV_USER_ID are implemented; FI_READ needs a name.
	 */
	if (attr->flags & ~KAV_AV_OPEN_FLAGS) {
		kav_refuse("fi_av_open: unknown flags %#llx",
			   (unsigned long long)(attr->flags &
						~KAV_AV_OPEN_FLAGS));
		return -FI_EINVAL;
	}
	if ((attr->flags & FI_READ) && !attr->name) {
		kav_refuse("fi_av_open: FI_READ needs a name");
		return -FI_EINVAL;
	}
	/* map_addr is ignored when name is NULL (fi_av(3)). */
	return 0;
}

/*
 * @ops: the fi_ops_av the AV gets; @kind: what it adds (a job AV's node
 * table, av_job.c) or NULL (private). The opens are av_ops.c's.
 */
int kav_av_open_as(struct fid_domain *domain_fid, struct fi_av_attr *attr,
		   struct fid_av **av_out, void *context,
		   struct kav_fi_ops_av *ops, const struct kav_av_kind *kind)
{
	struct kav_fid_domain *d = (struct kav_fid_domain *)domain_fid;
	uint32_t kav_format;
	struct kav_av_create req;
	struct kav_fid_av *av;
	int ret;

	kav_err_clear();
	if (!domain_fid || !attr || !av_out) {
		kav_refuse("fi_av_open: domain, attr and av must not be NULL");
		return -FI_EINVAL;
	}
	ret = kav_av_check_attr(attr);
	if (ret)
		return ret;
	kav_format = kav_addr_kav_format(d->addr_format);

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.addr_format = kav_format;
	req.addr_max = 0;		/* the format's own size */
	req.count = attr->count;	/* a hint; ep_per_node is not used */
	if (kind)
		req.flags = kind->create_flags;
	if (attr->name) {
		ret = kav_av_named_request(attr, &req);
		if (ret)
			return ret;
	}
	ret = kav_sys_ioctl(d->fd, KAV_IOC_AV_CREATE, &req);
	if (ret < 0) {
		ret = kav_err_from_errno(-ret);
		if (ret == -FI_ENOSYS)
			kav_fail_warn("AV create: the domain device is not a "
				      "kav device, or its module lacks "
				      "AV_CREATE");
		else if (attr->name)
			kav_av_named_open_failed(d, attr, &req, ret);
		else if (ret == -FI_EACCES || ret == -FI_EKEYREJECTED ||
			 ret == -EDQUOT)
			kav_av_create_denied(d, "AV create", ret);
		else
			kav_fail_warn("AV create failed: %s",
				      kav_strerror(ret));
		return ret;
	}
	if (req.fd < 0 || req.map_size > SIZE_MAX) {
		if (req.fd >= 0)
			kav_sys_close(req.fd);
		return -FI_EIO;
	}

	av = calloc(1, sizeof(*av));
	if (!av) {
		kav_sys_close(req.fd);
		return -FI_ENOMEM;
	}
	av->fd = req.fd;
	av->domain = d;
	ret = kav_table_map(&av->table, av->fd, (size_t)req.map_size,
			    kav_format);
	if (ret)
		goto err;
	/* The ioctl and the header must agree, and slots must fit ours. */
	if (av->table.entry_size != req.entry_size ||
	    av->table.max_entries != req.max_entries ||
	    av->table.addr_max < kav_addr_user_stride(d->addr_format) ||
	    av->table.addr_max < 2) {
		kav_fail_warn("AV table layout disagrees with AV_CREATE");
		ret = -FI_EIO;
		goto err;
	}
	if (kind) {
		ret = kind->attach(av, attr);
		if (ret)
			goto err;
		av->kind = kind;
	}
	if (attr->name) {
		ret = kav_av_named_attach(av, attr);
		if (ret)
			goto err;
		/*
		 * Joined another domain's AV to write: the kernel binds our
		 * inserts without a key handle to the slot holding our own
		 * domain key, so it must be there.
		 */
		if (d->has_key && !(attr->flags & FI_READ) &&
		    !(req.result & KAV_AV_CREATED)) {
			ret = kav_av_named_join_key(av, attr->name);
			if (ret)
				goto err;
		}
	}

	av->av_fid.fid.fclass = FI_CLASS_AV;
	av->av_fid.fid.context = context;
	av->av_fid.fid.ops = &kav_av_fi_ops;
	av->av_fid.ops = (struct fi_ops_av *)ops;
	av->addr_format = d->addr_format;
	av->slot_size = av->table.addr_max;
	av->flags = attr->flags;
	av->rx_ctx_bits = attr->rx_ctx_bits;
	av->read_only = attr->flags & FI_READ;
	__atomic_add_fetch(&d->av_refs, 1, __ATOMIC_RELAXED);
	if (attr->type == FI_AV_UNSPEC)
		attr->type = FI_AV_TABLE;
	kav_debug("AV opened: fd %d, %llu entries max, %u-byte entries",
		  av->fd, (unsigned long long)av->table.max_entries,
		  av->table.entry_size);
	*av_out = &av->av_fid;
	return 0;
err:
	if (av->kind)
		av->kind->detach(av);
	kav_table_unmap(&av->table);
	kav_sys_close(av->fd);
	free(av);
	return ret;
}
