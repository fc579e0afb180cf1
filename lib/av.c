// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kav address vector: a genuine struct fid_av over one kernel AV fd.
 *
 * Mutations (insert, remove) are ioctls on the AV fd; the kernel
 * serialises them and applies each batch atomically. Reads (lookup) come
 * from the read-only table mapping with no system call (table.c). The
 * library's own state is immutable after open, so no locks are needed.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kav_priv.h"

_Static_assert(offsetof(struct kav_av, av_fid) == 0, "fid first");
_Static_assert(sizeof(fi_addr_t) == sizeof(__u64), "fi_addr_t is the ABI's u64");

static struct kav_av *kav_av_of(struct fid_av *av_fid)
{
	return (struct kav_av *)av_fid;
}

static int kav_av_close(struct fid *fid)
{
	struct kav_av *av = (struct kav_av *)fid;

	kav_table_unmap(&av->table);
	close(av->fd);
	__atomic_sub_fetch(&av->domain->av_refs, 1, __ATOMIC_RELEASE);
	free(av);
	return 0;
}

/* ------------------------------------------------------------- insertion */

/*
 * Writes address @i of an insert call into @slot (slot_size bytes) or
 * returns why that address cannot be inserted. Called with i = 0, 1, ...
 * in order, so sources may cache per-node work.
 */
typedef int (*kav_fill_fn)(struct kav_av *av, void *arg, size_t i,
			   uint8_t *slot);

static void kav_mark_failed(fi_addr_t *fi_addr, int *sync_err, size_t i,
			    int err)
{
	if (fi_addr)
		fi_addr[i] = FI_ADDR_NOTAVAIL;
	if (sync_err)
		sync_err[i] = -err;	/* FI_SYNC_ERR: positive fabric errno */
}

/*
 * Send @n staged addresses (caller positions in @pos) as one kernel batch.
 * The batch is atomic, so when the kernel names one bad address we drop
 * that one and resend the rest; libkav validated them already, so that is
 * a safety net, not the normal path. Returns how many were inserted.
 */
static size_t kav_av_submit(struct kav_av *av, uint8_t *stage, size_t *pos,
			    uint64_t *out, size_t n, fi_addr_t *fi_addr,
			    int *sync_err)
{
	size_t stride = av->slot_size, e, j;
	struct kav_av_insert req;
	int ret, err;

	while (n) {
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.count = (__u32)n;
		req.addr_stride = (__u32)stride;
		req.addrs = (uintptr_t)stage;
		req.fi_addrs = (uintptr_t)out;
		req.err_index = KAV_NO_INDEX;
		ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_INSERT, &req);
		if (ret >= 0) {
			for (j = 0; j < n; j++) {
				if (fi_addr)
					fi_addr[pos[j]] = out[j];
				if (sync_err)
					sync_err[pos[j]] = 0;
			}
			return n;
		}
		if (ret == -EINVAL && req.err_index < n) {
			e = req.err_index;
			kav_info("kernel refused address %zu of the insert",
				 pos[e]);
			kav_mark_failed(fi_addr, sync_err, pos[e], -FI_EINVAL);
			memmove(stage + e * stride, stage + (e + 1) * stride,
				(n - e - 1) * stride);
			memmove(pos + e, pos + e + 1, (n - e - 1) * sizeof(*pos));
			n--;
			continue;
		}
		err = kav_err_from_errno(-ret);
		kav_warn("insert of %zu addresses failed: %s", n,
			 kav_strerror(err));
		for (j = 0; j < n; j++)
			kav_mark_failed(fi_addr, sync_err, pos[j], err);
		return 0;
	}
	return 0;
}

/*
 * The one insertion path behind insert, insertsvc and insertsym: stage up
 * to KAV_BATCH_MAX valid addresses at the AV's slot size, skipping (and
 * marking) invalid ones, and submit each batch. Returns the number
 * inserted, as fi_av_insert() does; count must be <= INT_MAX.
 */
static int kav_av_insert_common(struct kav_av *av, size_t count,
				kav_fill_fn fill, void *arg,
				fi_addr_t *fi_addr, int *sync_err)
{
	size_t chunk = KAV_MIN(count, (size_t)KAV_BATCH_MAX);
	size_t inserted = 0, base, end, i, n;
	uint8_t *stage;
	uint64_t *out;
	size_t *pos;
	int ret;

	if (!count)
		return 0;
	stage = malloc(chunk * av->slot_size);
	pos = malloc(chunk * sizeof(*pos));
	out = malloc(chunk * sizeof(*out));
	if (!stage || !pos || !out) {
		for (i = 0; i < count; i++)
			kav_mark_failed(fi_addr, sync_err, i, -FI_ENOMEM);
		inserted = 0;
		ret = -FI_ENOMEM;
		goto out;
	}
	for (base = 0; base < count; base = end) {
		end = base + KAV_MIN(count - base, chunk);
		for (n = 0, i = base; i < end; i++) {
			ret = fill(av, arg, i, stage + n * av->slot_size);
			if (ret) {
				kav_debug("address %zu not inserted: %s", i,
					  kav_strerror(ret));
				kav_mark_failed(fi_addr, sync_err, i, ret);
				continue;
			}
			pos[n++] = i;
		}
		inserted += kav_av_submit(av, stage, pos, out, n, fi_addr,
					  sync_err);
	}
	ret = (int)inserted;
out:
	free(stage);
	free(pos);
	free(out);
	return ret;
}

/* Flags every insert call takes; returns the FI_SYNC_ERR array or NULL. */
static int kav_insert_flags(uint64_t flags, void *context, int **sync_err)
{
	*sync_err = NULL;
	/* FI_MORE is a hint we may ignore: each call is its own batch. */
	if (flags & ~(FI_MORE | FI_SYNC_ERR))
		return -FI_EINVAL;
	if (flags & FI_SYNC_ERR) {
		if (!context)
			return -FI_EINVAL;
		*sync_err = context;
	}
	return 0;
}

/* fi_av_insert(): the caller's array. */
struct kav_src_array {
	const void *addr;
	size_t stride;
};

static int kav_fill_array(struct kav_av *av, void *arg, size_t i,
			  uint8_t *slot)
{
	const struct kav_src_array *src = arg;
	const void *a;

	if (av->addr_format == FI_ADDR_STR)
		a = ((const char *const *)src->addr)[i];
	else
		a = (const uint8_t *)src->addr + i * src->stride;
	if (!a)
		return -FI_EINVAL;
	return kav_addr_stage(av->addr_format, a, slot, av->slot_size);
}

static int kav_av_insert(struct fid_av *av_fid, const void *addr,
			 size_t count, fi_addr_t *fi_addr, uint64_t flags,
			 void *context)
{
	struct kav_av *av = kav_av_of(av_fid);
	struct kav_src_array src = {
		.addr = addr,
		.stride = kav_addr_user_stride(av->addr_format),
	};
	int *sync_err, ret;

	ret = kav_insert_flags(flags, context, &sync_err);
	if (ret)
		return ret;
	if (!count)
		return 0;
	if (!addr || count > INT_MAX)
		return -FI_EINVAL;
	return kav_av_insert_common(av, count, kav_fill_array, &src, fi_addr,
				    sync_err);
}

/* One address, already parsed or resolved (or the reason it is not). */
struct kav_src_one {
	int err;
	uint8_t addr[KAV_SOCKADDR_MAX];
	const char *str;		/* FI_ADDR_STR */
};

static int kav_fill_one(struct kav_av *av, void *arg, size_t i, uint8_t *slot)
{
	const struct kav_src_one *src = arg;

	(void)i;
	if (src->err)
		return src->err;
	return kav_addr_stage(av->addr_format,
			      src->str ? (const void *)src->str : src->addr,
			      slot, av->slot_size);
}

static int kav_av_insertsvc(struct fid_av *av_fid, const char *node,
			    const char *service, fi_addr_t *fi_addr,
			    uint64_t flags, void *context)
{
	struct kav_av *av = kav_av_of(av_fid);
	struct kav_src_one src = { 0 };
	int *sync_err, ret;
	uint16_t port;

	ret = kav_insert_flags(flags, context, &sync_err);
	if (ret)
		return ret;
	if (!node)
		return -FI_EINVAL;
	if (av->addr_format == FI_ADDR_STR) {
		/* The node is the address; there is nothing to resolve. */
		if (service)
			return -FI_EINVAL;
		src.str = node;
	} else if (!service) {
		/* The man page: node may be an FI_ADDR_STR address. */
		if (kav_addr_parse_str(av->addr_format, node, src.addr))
			return -FI_EINVAL;
	} else {
		if (kav_addr_parse_port(service, &port))
			return -FI_EINVAL;
		src.err = kav_addr_resolve(av->addr_format, node, service, 0,
					   src.addr);
	}
	return kav_av_insert_common(av, 1, kav_fill_one, &src, fi_addr,
				    sync_err);
}

/* fi_av_insertsym(): node-major, one resolution per node. */
struct kav_src_sym {
	const struct kav_sym *sym;
	size_t node;			/* node index of @addr / @err */
	bool have;
	int err;
	uint8_t addr[KAV_SOCKADDR_MAX];
};

static int kav_fill_sym(struct kav_av *av, void *arg, size_t i, uint8_t *slot)
{
	struct kav_src_sym *src = arg;
	size_t node = i / src->sym->svccnt, svc = i % src->sym->svccnt;
	uint8_t addr[KAV_SOCKADDR_MAX];
	char name[KAV_SYM_NODE_MAX];
	in_port_t port;

	if (!src->have || src->node != node) {
		src->have = true;
		src->node = node;
		src->err = kav_sym_node(src->sym, node, name, sizeof(name));
		if (!src->err)
			src->err = kav_addr_resolve(av->addr_format, name,
						    NULL, 0, src->addr);
	}
	if (src->err)
		return src->err;
	memcpy(addr, src->addr, sizeof(addr));
	port = htons(kav_sym_port(src->sym, svc));
	memcpy(addr + offsetof(struct sockaddr_in, sin_port), &port,
	       sizeof(port));
	return kav_addr_stage(av->addr_format, addr, slot, av->slot_size);
}

static int kav_av_insertsym(struct fid_av *av_fid, const char *node,
			    size_t nodecnt, const char *service, size_t svccnt,
			    fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct kav_av *av = kav_av_of(av_fid);
	struct kav_src_sym src = { 0 };
	struct kav_sym sym;
	int *sync_err, ret;

	ret = kav_insert_flags(flags, context, &sync_err);
	if (ret)
		return ret;
	if (av->addr_format == FI_ADDR_STR)
		return -FI_ENOSYS;	/* no defined range over strings yet */
	ret = kav_sym_init(&sym, node, nodecnt, service, svccnt);
	if (ret)
		return ret;
	src.sym = &sym;
	return kav_av_insert_common(av, nodecnt * svccnt, kav_fill_sym, &src,
				    fi_addr, sync_err);
}

/* --------------------------------------------------------------- removal */

static int kav_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * More than one kernel batch cannot be atomic in the kernel, so check the
 * whole request against the table first: every index valid, none twice.
 * (A concurrent remover of the same entries can still make a later batch
 * fail after earlier ones were applied.)
 */
static int kav_av_remove_check(struct kav_av *av, const fi_addr_t *fi_addr,
			       size_t count)
{
	struct kav_entry_snap snap;
	uint64_t *sorted;
	size_t i;
	int ret = 0;

	for (i = 0; i < count; i++) {
		if (kav_table_read_entry(&av->table, fi_addr[i], &snap) ||
		    !(snap.flags & KAV_ENTRY_VALID)) {
			kav_debug("remove: fi_addr[%zu] = %llu is not valid",
				  i, (unsigned long long)fi_addr[i]);
			return -FI_EINVAL;
		}
	}
	sorted = malloc(count * sizeof(*sorted));
	if (!sorted)
		return -FI_ENOMEM;
	memcpy(sorted, fi_addr, count * sizeof(*sorted));
	qsort(sorted, count, sizeof(*sorted), kav_cmp_u64);
	for (i = 1; i < count; i++)
		if (sorted[i] == sorted[i - 1])
			ret = -FI_EINVAL;
	free(sorted);
	return ret;
}

static int kav_av_remove(struct fid_av *av_fid, fi_addr_t *fi_addr,
			 size_t count, uint64_t flags)
{
	struct kav_av *av = kav_av_of(av_fid);
	struct kav_av_remove req;
	size_t base, n;
	int ret;

	if (flags)
		return -FI_EINVAL;
	if (!count)
		return 0;
	if (!fi_addr)
		return -FI_EINVAL;
	if (count > KAV_BATCH_MAX) {
		ret = kav_av_remove_check(av, fi_addr, count);
		if (ret)
			return ret;
	}
	for (base = 0; base < count; base += n) {
		n = KAV_MIN(count - base, (size_t)KAV_BATCH_MAX);
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.count = (__u32)n;
		req.err_index = KAV_NO_INDEX;
		req.fi_addrs = (uintptr_t)(fi_addr + base);
		ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_REMOVE, &req);
		if (ret < 0) {
			ret = kav_err_from_errno(-ret);
			if (req.err_index != KAV_NO_INDEX && req.err_index < n)
				kav_debug("remove: fi_addr[%zu] = %llu is not "
					  "valid", base + req.err_index,
					  (unsigned long long)
					  fi_addr[base + req.err_index]);
			else
				kav_warn("remove of %zu entries failed: %s",
					 n, kav_strerror(ret));
			return ret;
		}
	}
	return 0;
}

/* ---------------------------------------------------------------- reading */

static int kav_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr,
			 void *addr, size_t *addrlen)
{
	struct kav_av *av = kav_av_of(av_fid);

	if (!addrlen || (!addr && *addrlen))
		return -FI_EINVAL;
	if (fi_addr == FI_ADDR_NOTAVAIL)
		return -FI_EINVAL;
	return kav_table_lookup(&av->table, fi_addr, addr, addrlen);
}

static const char *kav_av_straddr(struct fid_av *av_fid, const void *addr,
				  char *buf, size_t *len)
{
	return kav_addr_straddr(kav_av_of(av_fid)->addr_format, addr, buf,
				len);
}

static int kav_av_no_set(struct fid_av *av, struct fi_av_set_attr *attr,
			 struct fid_av_set **av_set, void *context)
{
	(void)av; (void)attr; (void)av_set; (void)context;
	return -FI_ENOSYS;
}

static struct fi_ops kav_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kav_av_close,
	.bind = kav_no_bind,		/* FI_EVENT is not offered */
	.control = kav_no_control,
	.ops_open = kav_no_ops_open,
	.tostr = kav_no_tostr,
	.ops_set = kav_no_ops_set,
};

static struct fi_ops_av kav_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = kav_av_insert,
	.insertsvc = kav_av_insertsvc,
	.insertsym = kav_av_insertsym,
	.remove = kav_av_remove,
	.lookup = kav_av_lookup,
	.straddr = kav_av_straddr,
	.av_set = kav_av_no_set,
};

KAV_API int kav_av_fd(struct fid_av *av_fid)
{
	/* Only our own AVs carry our ops table. */
	if (!av_fid || av_fid->fid.ops != &kav_av_fi_ops)
		return -FI_EINVAL;
	return kav_av_of(av_fid)->fd;
}

/* ------------------------------------------------------------------ open */

/* Attributes this slice supports; 0 or the error to return. */
static int kav_av_check_attr(const struct fi_av_attr *attr)
{
	switch (attr->type) {
	case FI_AV_UNSPEC:
	case FI_AV_MAP:		/* deprecated; behaves as FI_AV_TABLE */
	case FI_AV_TABLE:
		break;
	default:
		return -FI_EINVAL;
	}
	if (attr->rx_ctx_bits < 0)
		return -FI_EINVAL;
	/* FI_SYMMETRIC is an allocation hint and may be ignored. */
	if (attr->flags & ~FI_SYMMETRIC) {
		kav_info("AV flags %#llx are not supported yet",
			 (unsigned long long)(attr->flags & ~FI_SYMMETRIC));
		return -FI_ENOSYS;
	}
	if (attr->name) {
		kav_info("named AVs are not supported yet");
		return -FI_ENOSYS;
	}
	if (attr->rx_ctx_bits) {
		kav_info("rx_ctx_bits is not supported yet");
		return -FI_ENOSYS;
	}
	return 0;
}

int kav_av_open(struct fid_domain *domain_fid, struct fi_av_attr *attr,
		struct fid_av **av_out, void *context)
{
	struct kav_domain *d = (struct kav_domain *)domain_fid;
	uint32_t kav_format;
	struct kav_av_create req;
	struct kav_av *av;
	int ret;

	if (!domain_fid || !attr || !av_out)
		return -FI_EINVAL;
	ret = kav_av_check_attr(attr);
	if (ret)
		return ret;
	kav_format = kav_addr_kav_format(d->addr_format);

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.addr_format = kav_format;
	req.addr_max = 0;		/* the format's own size */
	req.count = attr->count;
	ret = kav_sys_ioctl(d->fd, KAV_IOC_AV_CREATE, &req);
	if (ret < 0) {
		ret = kav_err_from_errno(-ret);
		if (ret == -FI_ENOSYS)
			kav_warn("AV create: the domain device is not a kav "
				 "device, or its module lacks AV_CREATE");
		else
			kav_warn("AV create failed: %s", kav_strerror(ret));
		return ret;
	}
	if (req.fd < 0 || req.map_size > SIZE_MAX) {
		if (req.fd >= 0)
			close(req.fd);
		return -FI_EIO;
	}

	av = calloc(1, sizeof(*av));
	if (!av) {
		close(req.fd);
		return -FI_ENOMEM;
	}
	av->fd = req.fd;
	ret = kav_table_map(&av->table, av->fd, (size_t)req.map_size,
			    kav_format);
	if (ret)
		goto err;
	/* The ioctl and the header must agree, and slots must fit ours. */
	if (av->table.entry_size != req.entry_size ||
	    av->table.max_entries != req.max_entries ||
	    av->table.addr_max < kav_addr_user_stride(d->addr_format) ||
	    av->table.addr_max < 2) {
		kav_warn("AV table layout disagrees with AV_CREATE");
		ret = -FI_EIO;
		goto err;
	}

	av->av_fid.fid.fclass = FI_CLASS_AV;
	av->av_fid.fid.context = context;
	av->av_fid.fid.ops = &kav_av_fi_ops;
	av->av_fid.ops = &kav_av_ops;
	av->domain = d;
	av->addr_format = d->addr_format;
	av->slot_size = av->table.addr_max;
	__atomic_add_fetch(&d->av_refs, 1, __ATOMIC_RELAXED);
	if (attr->type == FI_AV_UNSPEC)
		attr->type = FI_AV_TABLE;
	kav_debug("AV opened: fd %d, %llu entries max, %u-byte entries",
		  av->fd, (unsigned long long)av->table.max_entries,
		  av->table.entry_size);
	*av_out = &av->av_fid;
	return 0;
err:
	kav_table_unmap(&av->table);
	close(av->fd);
	free(av);
	return ret;
}
