// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kav address vector: a genuine struct fid_av over one kernel AV fd.
 *
 * Mutations (insert, remove, auth keys, user ids) are ioctls on the AV
 * fd; the kernel serialises them and applies each batch atomically. Reads
 * (lookup, lookup_auth_key, kav_av_resolve) come from the read-only table
 * mapping with no system call (table.c). The library's own state is
 * immutable after open except the bound EQ (set once, atomically) and the
 * hold count (atomic), so no locks are needed.
 *
 * fi_addr_t values are decoded as <kav/kav.h> describes: bits 32..63
 * (group id, rx context) are ignored, bit 31 tells an auth-key handle
 * from a table index.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kav_priv.h"
#include "kav_eq_priv.h"
#include "kav_set_priv.h"

_Static_assert(offsetof(struct kav_av, av_fid) == 0, "fid first");
_Static_assert(sizeof(fi_addr_t) == sizeof(__u64), "fi_addr_t is the ABI's u64");
_Static_assert(KAV_NONE == FI_ADDR_NOTAVAIL, "no user id is FI_ADDR_NOTAVAIL");
_Static_assert(KAV_MAX_AUTH_KEYS <= 64, "key slots fit a u64 mask");
/* The 2.x table extends 1.17's: same members at the same offsets. */
#define KAV_SAME_OFFSET(m) \
	_Static_assert(offsetof(struct kav_fi_ops_av, m) == \
		       offsetof(struct fi_ops_av, m), "fi_ops_av." #m)
KAV_SAME_OFFSET(size);
KAV_SAME_OFFSET(insert);
KAV_SAME_OFFSET(insertsvc);
KAV_SAME_OFFSET(insertsym);
KAV_SAME_OFFSET(remove);
KAV_SAME_OFFSET(lookup);
KAV_SAME_OFFSET(straddr);
KAV_SAME_OFFSET(av_set);
_Static_assert(offsetof(struct kav_fi_ops_av, insert_auth_key) ==
	       sizeof(struct fi_ops_av), "2.x members follow av_set");

static struct kav_av *kav_av_of(struct fid_av *av_fid)
{
	return (struct kav_av *)av_fid;
}

/* ------------------------------------------------------- fi_addr_t codec */

int kav_fi_addr_index(fi_addr_t fi_addr, uint64_t *index)
{
	uint64_t low = fi_addr & KAV_FI_ADDR_LOW_MASK;

	if (fi_addr == FI_ADDR_NOTAVAIL || (low & KAV_FI_ADDR_KEY))
		return -FI_EINVAL;
	*index = low;
	return 0;
}

int kav_fi_addr_key(fi_addr_t fi_addr, uint32_t *slot)
{
	uint64_t low = fi_addr & KAV_FI_ADDR_LOW_MASK;

	if (fi_addr == FI_ADDR_NOTAVAIL || !(low & KAV_FI_ADDR_KEY) ||
	    (low & ~KAV_FI_ADDR_KEY) >= KAV_MAX_AUTH_KEYS)
		return -FI_EINVAL;
	*slot = (uint32_t)(low & ~KAV_FI_ADDR_KEY);
	return 0;
}

static fi_addr_t kav_key_fi_addr(uint32_t slot)
{
	return KAV_FI_ADDR_KEY | slot;
}

int kav_av_read_valid(const struct kav_av *av, uint64_t index,
		      struct kav_entry_meta *meta)
{
	if (kav_table_read_meta(&av->table, index, meta) ||
	    !(meta->flags & KAV_ENTRY_VALID))
		return -FI_EINVAL;
	return 0;
}

/* Key slot @slot, required valid: 0 or -FI_EINVAL. */
static int kav_av_read_key(const struct kav_av *av, uint32_t slot,
			   struct kav_key_snap *snap)
{
	if (kav_table_read_key(&av->table, slot, snap) ||
	    !(snap->flags & KAV_KEY_VALID))
		return -FI_EINVAL;
	return 0;
}

/* ------------------------------------------------------------ lifetime */

void kav_av_hold(struct kav_av *av)
{
	__atomic_add_fetch(&av->refs, 1, __ATOMIC_RELAXED);
}

void kav_av_unhold(struct kav_av *av)
{
	__atomic_sub_fetch(&av->refs, 1, __ATOMIC_RELEASE);
}

static int kav_av_close(struct fid *fid)
{
	struct kav_av *av = (struct kav_av *)fid;
	unsigned int refs = __atomic_load_n(&av->refs, __ATOMIC_ACQUIRE);
	unsigned int children = kav_av_children(av);
	struct fid_eq *eq;

	if (refs || children) {
		kav_debug("AV close refused: %u endpoints and %u AV sets or "
			  "peer AVs still bound", refs, children);
		return -FI_EBUSY;
	}
	eq = __atomic_load_n(&av->eq, __ATOMIC_ACQUIRE);
	if (eq)
		kav_eq_unbind_av(eq);
	kav_table_unmap(&av->table);
	kav_sys_close(av->fd);
	__atomic_sub_fetch(&av->domain->av_refs, 1, __ATOMIC_RELEASE);
	free(av);
	return 0;
}

/*
 * fi_av_bind(av, eq, 0): flags must be 0 and @bfid a kav EQ. An AV takes
 * one EQ for its lifetime: a second bind fails with -FI_EINVAL. Binding an
 * AV opened without FI_EVENT is allowed and has no effect beyond holding
 * the EQ (fi_close() of the EQ fails with -FI_EBUSY until the AV closes).
 */
static int kav_av_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct kav_av *av = (struct kav_av *)fid;
	struct fid_eq *eq, *none = NULL;
	int ret;

	if (flags) {
		kav_debug("fi_av_bind: flags must be 0");
		return -FI_EINVAL;
	}
	if (!bfid || !kav_eq_is(bfid)) {
		kav_debug("fi_av_bind: not an EQ from kav_eq_open()");
		return -FI_EINVAL;
	}
	eq = (struct fid_eq *)bfid;	/* fid is its first member */
	ret = kav_eq_bind_av(eq);
	if (ret)
		return ret;
	if (!__atomic_compare_exchange_n(&av->eq, &none, eq, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		kav_eq_unbind_av(eq);
		kav_debug("fi_av_bind: the AV already has an EQ");
		return -FI_EINVAL;
	}
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

/* One insert call (insert, insertsvc or insertsym). */
struct kav_ins {
	struct kav_av *av;
	fi_addr_t *fi_addr;		/* in (keys / user ids) and out */
	int *sync_err;			/* FI_SYNC_ERR */
	uint32_t kflags;		/* KAV_INSERT_* */
	struct fid_eq *eq;		/* FI_EVENT AVs */
	void *context;
	/* Per kernel batch, in staging order. */
	uint8_t *stage;
	size_t *pos;			/* caller positions */
	uint64_t *out;
	uint64_t *keys;			/* KAV_INSERT_AUTH_KEY */
	uint64_t *uids;			/* KAV_INSERT_USER_ID */
};

/*
 * Validate an insert call's flags and set up @ins. Errors here fail the
 * call before anything is attempted (no events).
 */
static int kav_ins_init(struct kav_ins *ins, struct kav_av *av,
			fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	memset(ins, 0, sizeof(*ins));
	ins->av = av;
	ins->fi_addr = fi_addr;
	ins->context = context;
	/* FI_MORE is a hint we may ignore: each call is its own batch. */
	if (flags & ~(FI_MORE | FI_SYNC_ERR | FI_AV_USER_ID | FI_AUTH_KEY)) {
		kav_debug("insert: unknown flags %#llx", (unsigned long long)
			  (flags & ~(FI_MORE | FI_SYNC_ERR | FI_AV_USER_ID |
				     FI_AUTH_KEY)));
		return -FI_EINVAL;
	}
	if (flags & FI_AV_USER_ID) {
		/* fi_av(3): invalid on such AVs; use fi_av_set_user_id(). */
		if ((av->flags & FI_AV_USER_ID) || av->domain->av_auth_key) {
			kav_debug("insert: FI_AV_USER_ID is invalid on an AV "
				  "opened with FI_AV_USER_ID or a domain with "
				  "FI_AV_AUTH_KEY");
			return -FI_EINVAL;
		}
		if (!fi_addr)
			return -FI_EINVAL;	/* the user ids are input */
		ins->kflags |= KAV_INSERT_USER_ID;
	}
	if (flags & FI_AUTH_KEY) {
		if (!av->domain->av_auth_key) {
			kav_debug("insert: FI_AUTH_KEY needs a domain opened "
				  "with FI_AV_AUTH_KEY");
			return -FI_EINVAL;
		}
		if (!fi_addr)
			return -FI_EINVAL;	/* the key handles are input */
		ins->kflags |= KAV_INSERT_AUTH_KEY;
	}
	if (av->flags & FI_EVENT) {
		/* FI_SYNC_ERR "applies to synchronous insertions only". */
		if (flags & FI_SYNC_ERR)
			return -FI_EINVAL;
		ins->eq = __atomic_load_n(&av->eq, __ATOMIC_ACQUIRE);
		if (!ins->eq)
			return -FI_ENOEQ;
	} else if (flags & FI_SYNC_ERR) {
		if (!context)
			return -FI_EINVAL;
		ins->sync_err = context;
	}
	return 0;
}

/* Address @i failed with @err (negative): report it every way asked. */
static void kav_ins_fail(struct kav_ins *ins, size_t i, int err)
{
	int ret;

	if (ins->fi_addr)
		ins->fi_addr[i] = FI_ADDR_NOTAVAIL;
	if (ins->sync_err)
		ins->sync_err[i] = -err; /* FI_SYNC_ERR: positive fabric errno */
	if (ins->eq) {
		ret = kav_eq_post_av_error(ins->eq, &ins->av->av_fid.fid,
					   ins->context, i, -err);
		if (ret)
			kav_warn("insert: cannot report address %zu's error "
				 "on the EQ: %s", i, kav_strerror(ret));
	}
}

/*
 * The per-address input of address @i (the fi_addr array, read before
 * anything is written back to that position), staged at @n.
 */
static int kav_ins_input(struct kav_ins *ins, size_t i, size_t n)
{
	struct kav_key_snap key;
	uint32_t slot;

	if (ins->kflags & KAV_INSERT_AUTH_KEY) {
		if (kav_fi_addr_key(ins->fi_addr[i], &slot) ||
		    kav_av_read_key(ins->av, slot, &key)) {
			kav_debug("insert: fi_addr[%zu] = %#llx is not an auth "
				  "key handle of this AV", i,
				  (unsigned long long)ins->fi_addr[i]);
			return -FI_EINVAL;
		}
		ins->keys[n] = slot;
	}
	if (ins->kflags & KAV_INSERT_USER_ID)
		ins->uids[n] = ins->fi_addr[i];
	return 0;
}

/* Drop staged element @e of @n. */
static void kav_ins_drop(struct kav_ins *ins, size_t e, size_t n)
{
	size_t stride = ins->av->slot_size, rest = n - e - 1;

	memmove(ins->stage + e * stride, ins->stage + (e + 1) * stride,
		rest * stride);
	memmove(ins->pos + e, ins->pos + e + 1, rest * sizeof(*ins->pos));
	if (ins->keys)
		memmove(ins->keys + e, ins->keys + e + 1,
			rest * sizeof(*ins->keys));
	if (ins->uids)
		memmove(ins->uids + e, ins->uids + e + 1,
			rest * sizeof(*ins->uids));
}

/*
 * Entries the kernel placed beyond KAV_FI_ADDR_INDEX_MAX cannot be named
 * by an fi_addr_t (bit 31 marks key handles): take them out again and
 * fail those addresses with -FI_ENOSPC. Returns how many stay inserted.
 * Only a module with max_entries above 2^31 can get here.
 */
static size_t kav_ins_trim(struct kav_ins *ins, size_t n)
{
	struct kav_av_remove req;
	uint64_t *rm;
	size_t j, k = 0;
	int ret;

	for (j = 0; j < n; j++)
		if (ins->out[j] > KAV_FI_ADDR_INDEX_MAX)
			k++;
	if (!k)
		return n;
	rm = malloc(k * sizeof(*rm));
	for (j = 0, k = 0; j < n; j++) {
		if (ins->out[j] <= KAV_FI_ADDR_INDEX_MAX)
			continue;
		if (rm)
			rm[k] = ins->out[j];
		k++;
		kav_ins_fail(ins, ins->pos[j], -FI_ENOSPC);
		ins->pos[j] = SIZE_MAX;
	}
	kav_info("insert: %zu entries landed beyond index %llu; removing them",
		 k, (unsigned long long)KAV_FI_ADDR_INDEX_MAX);
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.count = (__u32)k;
	req.err_index = KAV_NO_INDEX;
	req.fi_addrs = (uintptr_t)rm;
	ret = rm ? kav_sys_ioctl(ins->av->fd, KAV_IOC_AV_REMOVE, &req) :
		   -ENOMEM;
	if (ret < 0)
		kav_warn("insert: cannot remove unaddressable entries: %s",
			 kav_strerror(kav_err_from_errno(-ret)));
	free(rm);
	return n - k;
}

/*
 * Send @n staged addresses as one kernel batch. The batch is atomic, so
 * when the kernel names one bad address we drop that one and resend the
 * rest; libkav validated them already, so that is a safety net, not the
 * normal path. Returns how many were inserted.
 */
static size_t kav_ins_submit(struct kav_ins *ins, size_t n)
{
	struct kav_av *av = ins->av;
	struct kav_av_insert req;
	size_t e, j, done;
	int ret, err;

	while (n) {
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.flags = ins->kflags;
		req.count = (__u32)n;
		req.addr_stride = av->slot_size;
		req.addrs = (uintptr_t)ins->stage;
		req.fi_addrs = (uintptr_t)ins->out;
		req.err_index = KAV_NO_INDEX;
		req.auth_keys = (uintptr_t)ins->keys;
		req.user_ids = (uintptr_t)ins->uids;
		ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_INSERT, &req);
		if (ret >= 0) {
			done = kav_ins_trim(ins, n);
			for (j = 0; j < n; j++) {
				if (ins->pos[j] == SIZE_MAX)
					continue;
				if (ins->fi_addr)
					ins->fi_addr[ins->pos[j]] = ins->out[j];
				if (ins->sync_err)
					ins->sync_err[ins->pos[j]] = 0;
			}
			return done;
		}
		if (ret == -EINVAL && req.err_index < n) {
			e = req.err_index;
			kav_info("kernel refused address %zu of the insert",
				 ins->pos[e]);
			kav_ins_fail(ins, ins->pos[e], -FI_EINVAL);
			kav_ins_drop(ins, e, n);
			n--;
			continue;
		}
		err = kav_err_from_errno(-ret);
		kav_warn("insert of %zu addresses failed: %s", n,
			 kav_strerror(err));
		for (j = 0; j < n; j++)
			kav_ins_fail(ins, ins->pos[j], err);
		return 0;
	}
	return 0;
}

/*
 * The one insertion path behind insert, insertsvc and insertsym: stage up
 * to KAV_BATCH_MAX valid addresses at the AV's slot size, skipping (and
 * reporting) invalid ones, and submit each batch. Returns the number
 * inserted, as fi_av_insert() does; count must be <= INT_MAX.
 */
static int kav_ins_run(struct kav_ins *ins, size_t count, kav_fill_fn fill,
		       void *arg)
{
	size_t chunk = KAV_MIN(count, (size_t)KAV_BATCH_MAX);
	struct kav_av *av = ins->av;
	size_t inserted = 0, base, end, i, n;
	bool nomem;
	int ret;

	if (!count)
		return 0;
	ins->stage = malloc(chunk * av->slot_size);
	ins->pos = malloc(chunk * sizeof(*ins->pos));
	ins->out = malloc(chunk * sizeof(*ins->out));
	nomem = !ins->stage || !ins->pos || !ins->out;
	if (ins->kflags & KAV_INSERT_AUTH_KEY) {
		ins->keys = malloc(chunk * sizeof(*ins->keys));
		nomem |= !ins->keys;
	}
	if (ins->kflags & KAV_INSERT_USER_ID) {
		ins->uids = malloc(chunk * sizeof(*ins->uids));
		nomem |= !ins->uids;
	}
	if (nomem) {
		for (i = 0; i < count; i++)
			kav_ins_fail(ins, i, -FI_ENOMEM);
		ret = -FI_ENOMEM;
		goto out;
	}
	for (base = 0; base < count; base = end) {
		end = base + KAV_MIN(count - base, chunk);
		for (n = 0, i = base; i < end; i++) {
			ret = kav_ins_input(ins, i, n);
			if (!ret)
				ret = fill(av, arg, i,
					   ins->stage + n * av->slot_size);
			if (ret) {
				kav_debug("address %zu not inserted: %s", i,
					  kav_strerror(ret));
				kav_ins_fail(ins, i, ret);
				continue;
			}
			ins->pos[n++] = i;
		}
		inserted += kav_ins_submit(ins, n);
	}
	ret = (int)inserted;
out:
	free(ins->stage);
	free(ins->pos);
	free(ins->out);
	free(ins->keys);
	free(ins->uids);
	return ret;
}

/*
 * The return value of an insert call. Synchronous AVs: the number
 * inserted. FI_EVENT AVs: the errors went to the EQ as they happened; now
 * the one FI_AV_COMPLETE event, and FI_SUCCESS (or why the completion
 * could not be queued; the insertions themselves stand).
 */
static int kav_ins_finish(struct kav_ins *ins, int ret)
{
	if (!ins->eq)
		return ret;
	ret = kav_eq_post_av_complete(ins->eq, &ins->av->av_fid.fid,
				      ins->context,
				      ret > 0 ? (uint64_t)ret : 0);
	if (ret)
		kav_warn("insert: cannot queue the completion: %s",
			 kav_strerror(ret));
	return ret;
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
	struct kav_ins ins;
	int ret;

	ret = kav_ins_init(&ins, av, fi_addr, flags, context);
	if (ret)
		return ret;
	if (count && (!addr || count > INT_MAX))
		return -FI_EINVAL;
	return kav_ins_finish(&ins, kav_ins_run(&ins, count, kav_fill_array,
						&src));
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
	struct kav_ins ins;
	uint16_t port;
	int ret;

	ret = kav_ins_init(&ins, av, fi_addr, flags, context);
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
	return kav_ins_finish(&ins, kav_ins_run(&ins, 1, kav_fill_one, &src));
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
	struct kav_ins ins;
	struct kav_sym sym;
	int ret;

	ret = kav_ins_init(&ins, av, fi_addr, flags, context);
	if (ret)
		return ret;
	if (av->addr_format == FI_ADDR_STR)
		return -FI_ENOSYS;	/* no defined range over strings yet */
	ret = kav_sym_init(&sym, node, nodecnt, service, svccnt);
	if (ret)
		return ret;
	src.sym = &sym;
	return kav_ins_finish(&ins, kav_ins_run(&ins, nodecnt * svccnt,
						kav_fill_sym, &src));
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
static int kav_av_remove_check(struct kav_av *av, const uint64_t *idx,
			       size_t count)
{
	struct kav_entry_meta meta;
	uint64_t *sorted;
	size_t i;
	int ret = 0;

	for (i = 0; i < count; i++) {
		if (kav_av_read_valid(av, idx[i], &meta)) {
			kav_debug("remove: fi_addr[%zu] (index %llu) is not "
				  "valid", i, (unsigned long long)idx[i]);
			return -FI_EINVAL;
		}
	}
	sorted = malloc(count * sizeof(*sorted));
	if (!sorted)
		return -FI_ENOMEM;
	memcpy(sorted, idx, count * sizeof(*sorted));
	qsort(sorted, count, sizeof(*sorted), kav_cmp_u64);
	for (i = 1; i < count; i++)
		if (sorted[i] == sorted[i - 1])
			ret = -FI_EINVAL;
	free(sorted);
	return ret;
}

static int kav_av_remove_entries(struct kav_av *av, const uint64_t *idx,
				 size_t count)
{
	struct kav_av_remove req;
	size_t base, n;
	int ret;

	if (count > KAV_BATCH_MAX) {
		ret = kav_av_remove_check(av, idx, count);
		if (ret)
			return ret;
	}
	for (base = 0; base < count; base += n) {
		n = KAV_MIN(count - base, (size_t)KAV_BATCH_MAX);
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.count = (__u32)n;
		req.err_index = KAV_NO_INDEX;
		req.fi_addrs = (uintptr_t)(idx + base);
		ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_REMOVE, &req);
		if (ret < 0) {
			ret = kav_err_from_errno(-ret);
			if (req.err_index != KAV_NO_INDEX && req.err_index < n)
				kav_debug("remove: fi_addr[%zu] (index %llu) "
					  "is not valid", base + req.err_index,
					  (unsigned long long)
					  idx[base + req.err_index]);
			else
				kav_warn("remove of %zu entries failed: %s",
					 n, kav_strerror(ret));
			return ret;
		}
	}
	return 0;
}

/*
 * fi_av_remove(FI_AUTH_KEY): every handle is checked first (a key handle
 * of a present key, none twice, no entries bound to it and no enabled
 * endpoint using it, as the mapping shows), then the keys are removed one
 * ioctl each. The checks make a refusal the normal way to fail, with
 * nothing removed; a concurrent insert or enable can still make a later
 * key fail (-FI_EBUSY from the kernel) after earlier ones were removed.
 */
static int kav_av_remove_keys(struct kav_av *av, const fi_addr_t *fi_addr,
			      size_t count)
{
	struct kav_key_snap key;
	struct kav_av_key req;
	uint64_t seen = 0;
	uint32_t slot;
	size_t i;
	int ret;

	for (i = 0; i < count; i++) {
		if (kav_fi_addr_key(fi_addr[i], &slot) ||
		    kav_av_read_key(av, slot, &key) ||
		    (seen & (1ULL << slot))) {
			kav_debug("remove: fi_addr[%zu] = %#llx is not an auth "
				  "key handle of this AV (or repeats one)", i,
				  (unsigned long long)fi_addr[i]);
			return -FI_EINVAL;
		}
		seen |= 1ULL << slot;
		if (key.nr_entries || key.nr_endpoints) {
			kav_debug("remove: key %u is used by %u entries and "
				  "%u endpoints", slot, key.nr_entries,
				  key.nr_endpoints);
			return -FI_EBUSY;
		}
	}
	for (i = 0; i < count; i++) {
		kav_fi_addr_key(fi_addr[i], &slot);
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.handle = slot;
		ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_KEY_REMOVE, &req);
		if (ret < 0) {
			ret = kav_err_from_errno(-ret);
			kav_info("remove: key %u: %s (%zu of %zu removed)",
				 slot, kav_strerror(ret), i, count);
			return ret;
		}
	}
	return 0;
}

static int kav_av_remove(struct fid_av *av_fid, fi_addr_t *fi_addr,
			 size_t count, uint64_t flags)
{
	struct kav_av *av = kav_av_of(av_fid);
	uint64_t *idx;
	size_t i;
	int ret;

	if (flags & ~FI_AUTH_KEY)
		return -FI_EINVAL;
	if (!count)
		return 0;
	if (!fi_addr)
		return -FI_EINVAL;
	if (flags & FI_AUTH_KEY)
		return kav_av_remove_keys(av, fi_addr, count);
	idx = malloc(count * sizeof(*idx));
	if (!idx)
		return -FI_ENOMEM;
	for (i = 0; i < count; i++) {
		if (kav_fi_addr_index(fi_addr[i], &idx[i])) {
			kav_debug("remove: fi_addr[%zu] = %#llx is not an "
				  "address (a key handle needs FI_AUTH_KEY)",
				  i, (unsigned long long)fi_addr[i]);
			free(idx);
			return -FI_EINVAL;
		}
	}
	ret = kav_av_remove_entries(av, idx, count);
	free(idx);
	return ret;
}

/* ---------------------------------------------------------------- reading */

static int kav_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr,
			 void *addr, size_t *addrlen)
{
	struct kav_av *av = kav_av_of(av_fid);
	uint64_t index;

	if (!addrlen || (!addr && *addrlen))
		return -FI_EINVAL;
	if (kav_fi_addr_index(fi_addr, &index))
		return -FI_EINVAL;
	return kav_table_lookup(&av->table, index, addr, addrlen);
}

static const char *kav_av_straddr(struct fid_av *av_fid, const void *addr,
				  char *buf, size_t *len)
{
	return kav_addr_straddr(kav_av_of(av_fid)->addr_format, addr, buf,
				len);
}

/* -------------------------------------------------------------- auth keys */

/*
 * fi_av_insert_auth_key(): the key is a struct kav_auth_key. A key already
 * in the AV is not inserted twice: -FI_EALREADY, with *fi_addr set to the
 * existing handle.
 */
static int kav_av_insert_auth_key(struct fid_av *av_fid, const void *auth_key,
				  size_t auth_key_size, fi_addr_t *fi_addr,
				  uint64_t flags)
{
	struct kav_av *av = kav_av_of(av_fid);
	struct kav_av_key req;
	int ret;

	if (!av->domain->av_auth_key) {
		kav_debug("fi_av_insert_auth_key: the domain was not opened "
			  "with auth_key_size = FI_AV_AUTH_KEY");
		return -FI_EINVAL;
	}
	if (flags || !auth_key || !fi_addr ||
	    auth_key_size != sizeof(struct kav_auth_key))
		return -FI_EINVAL;
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	memcpy(&req.key, auth_key, sizeof(req.key));
	req.handle = KAV_MAX_AUTH_KEYS;
	ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_KEY_INSERT, &req);
	if (ret < 0 && ret != -EEXIST) {
		ret = kav_err_from_errno(-ret);
		kav_info("fi_av_insert_auth_key: %s", kav_strerror(ret));
		return ret;
	}
	if (req.handle >= KAV_MAX_AUTH_KEYS) {
		kav_warn("fi_av_insert_auth_key: the kernel returned key slot "
			 "%llu", (unsigned long long)req.handle);
		return -FI_EIO;
	}
	*fi_addr = kav_key_fi_addr((uint32_t)req.handle);
	return ret == -EEXIST ? -FI_EALREADY : 0;
}

/*
 * fi_av_lookup_auth_key(): @fi_addr is a key handle or an address. An
 * address bound to no key: -FI_ENOKEY. Truncates like fi_av_lookup().
 */
static int kav_av_lookup_auth_key(struct fid_av *av_fid, fi_addr_t fi_addr,
				  void *auth_key, size_t *auth_key_size)
{
	struct kav_av *av = kav_av_of(av_fid);
	struct kav_auth_key key = { 0 };
	struct kav_entry_meta meta;
	struct kav_key_snap snap;
	uint64_t index;
	uint32_t slot;

	if (!auth_key_size || (!auth_key && *auth_key_size))
		return -FI_EINVAL;
	if (!kav_fi_addr_key(fi_addr, &slot)) {
		if (kav_av_read_key(av, slot, &snap))
			return -FI_EINVAL;
	} else {
		if (kav_fi_addr_index(fi_addr, &index) ||
		    kav_av_read_valid(av, index, &meta))
			return -FI_EINVAL;
		if (meta.auth_key == KAV_NONE)
			return -FI_ENOKEY;
		/*
		 * A key cannot go while entries use it, so an invalid slot
		 * means the entry was removed since we read it.
		 */
		if (meta.auth_key >= KAV_MAX_AUTH_KEYS ||
		    kav_av_read_key(av, (uint32_t)meta.auth_key, &snap))
			return -FI_EINVAL;
	}
	key.vni = snap.vni;
	if (*auth_key_size)
		memcpy(auth_key, &key, KAV_MIN(*auth_key_size, sizeof(key)));
	*auth_key_size = sizeof(key);
	return 0;
}

/*
 * fi_av_set_user_id(): AVs opened with FI_AV_USER_ID only. flags 0: an
 * address; FI_AUTH_KEY: a key handle.
 */
static int kav_av_set_user_id(struct fid_av *av_fid, fi_addr_t fi_addr,
			      fi_addr_t user_id, uint64_t flags)
{
	struct kav_av *av = kav_av_of(av_fid);
	struct kav_av_user_id req;
	uint64_t index;
	uint32_t slot;
	int ret;

	if (!(av->flags & FI_AV_USER_ID)) {
		kav_debug("fi_av_set_user_id: the AV was not opened with "
			  "FI_AV_USER_ID");
		return -FI_EINVAL;
	}
	if (flags & ~FI_AUTH_KEY)
		return -FI_EINVAL;
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	if (flags & FI_AUTH_KEY) {
		if (kav_fi_addr_key(fi_addr, &slot))
			return -FI_EINVAL;
		req.flags = KAV_USER_ID_AUTH_KEY;
		req.index = slot;
	} else {
		if (kav_fi_addr_index(fi_addr, &index))
			return -FI_EINVAL;
		req.index = index;
	}
	req.user_id = user_id;
	ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_SET_USER_ID, &req);
	return ret < 0 ? kav_err_from_errno(-ret) : 0;
}

/* ---------------------------------------------------------------- tables */

static struct fi_ops kav_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kav_av_close,
	.bind = kav_av_bind,
	.control = kav_no_control,
	.ops_open = kav_no_ops_open,
	.tostr = kav_no_tostr,
	.ops_set = kav_no_ops_set,
};

static struct kav_fi_ops_av kav_av_ops = {
	.size = sizeof(struct kav_fi_ops_av),
	.insert = kav_av_insert,
	.insertsvc = kav_av_insertsvc,
	.insertsym = kav_av_insertsym,
	.remove = kav_av_remove,
	.lookup = kav_av_lookup,
	.straddr = kav_av_straddr,
	.av_set = kav_av_set_open,	/* av_set.c */
	.insert_auth_key = kav_av_insert_auth_key,
	.lookup_auth_key = kav_av_lookup_auth_key,
	.set_user_id = kav_av_set_user_id,
};

struct kav_av *kav_av_from_fid(struct fid_av *av_fid)
{
	/* Only our own AVs carry our ops table. */
	if (!av_fid || av_fid->fid.fclass != FI_CLASS_AV ||
	    av_fid->fid.ops != &kav_av_fi_ops)
		return NULL;
	return kav_av_of(av_fid);
}

KAV_API int kav_av_fd(struct fid_av *av_fid)
{
	struct kav_av *av = kav_av_from_fid(av_fid);

	return av ? av->fd : -FI_EINVAL;
}

/* ------------------------------------------------- zero-copy resolution */

KAV_API int kav_av_resolve(struct fid_av *av_fid, fi_addr_t fi_addr,
			   struct kav_resolved *out)
{
	struct kav_av *av = kav_av_from_fid(av_fid);
	struct kav_entry_meta meta;
	struct kav_key_snap key;
	uint64_t index;

	if (!av || !out || kav_fi_addr_index(fi_addr, &index) ||
	    kav_av_read_valid(av, index, &meta))
		return -FI_EINVAL;
	out->addr = kav_table_entry(&av->table, index)->addr;
	out->addr_len = meta.addr_len;
	out->key = FI_ADDR_NOTAVAIL;
	out->vni = 0;
	if (meta.auth_key != KAV_NONE) {
		if (meta.auth_key >= KAV_MAX_AUTH_KEYS ||
		    kav_av_read_key(av, (uint32_t)meta.auth_key, &key))
			return -FI_EINVAL;	/* removed meanwhile */
		out->key = kav_key_fi_addr((uint32_t)meta.auth_key);
		out->vni = key.vni;
	}
	out->user_id = meta.user_id;
	out->index = index;
	out->seq = meta.seq;
	return 0;
}

KAV_API int kav_av_resolve_check(struct fid_av *av_fid,
				 const struct kav_resolved *res)
{
	struct kav_av *av = kav_av_from_fid(av_fid);

	if (!av || !res || res->index >= kav_table_nr_slots(&av->table))
		return 0;
	return kav_table_entry_seq(&av->table, res->index) == res->seq;
}

/* ------------------------------------------------------------- endpoints */

KAV_API int kav_ep_open(struct fid_av *av_fid, struct kav_ep **out)
{
	struct kav_av *av = kav_av_from_fid(av_fid);
	struct kav_av_ep_open req;
	struct kav_ep *ep;
	int ret;

	if (!av || !out)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.fd = -1;
	ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_EP_OPEN, &req);
	if (ret < 0 || req.fd < 0) {
		free(ep);
		ret = ret < 0 ? kav_err_from_errno(-ret) : -FI_EIO;
		kav_info("kav_ep_open: %s", kav_strerror(ret));
		return ret;
	}
	ep->av = av;
	ep->fd = req.fd;
	kav_av_hold(av);
	*out = ep;
	return 0;
}

KAV_API int kav_ep_enable(struct kav_ep *ep)
{
	struct kav_ep_enable req;
	int ret;

	if (!ep)
		return -FI_EINVAL;
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	ret = kav_sys_ioctl(ep->fd, KAV_IOC_EP_ENABLE, &req);
	if (ret < 0)
		return kav_err_from_errno(-ret);
	ep->keys = req.keys;
	ep->enabled = true;
	return 0;
}

KAV_API uint64_t kav_ep_keys(const struct kav_ep *ep)
{
	return ep ? ep->keys : 0;
}

KAV_API int kav_ep_close(struct kav_ep *ep)
{
	if (!ep)
		return -FI_EINVAL;
	kav_sys_close(ep->fd);
	kav_av_unhold(ep->av);
	free(ep);
	return 0;
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
		return -FI_EINVAL;
	}
	if (attr->rx_ctx_bits < 0 ||
	    attr->rx_ctx_bits > KAV_RX_CTX_BITS_MAX) {
		kav_debug("fi_av_open: rx_ctx_bits %d is outside 0..%d",
			  attr->rx_ctx_bits, KAV_RX_CTX_BITS_MAX);
		return -FI_EINVAL;
	}
	/*
	 * FI_SYMMETRIC is an allocation hint and may be ignored; FI_EVENT
	 * and FI_AV_USER_ID are implemented; FI_READ needs a name.
	 */
	if (attr->flags & ~KAV_AV_OPEN_FLAGS) {
		kav_debug("fi_av_open: unknown flags %#llx",
			  (unsigned long long)(attr->flags &
					       ~KAV_AV_OPEN_FLAGS));
		return -FI_EINVAL;
	}
	if ((attr->flags & FI_READ) && !attr->name) {
		kav_debug("fi_av_open: FI_READ needs a name");
		return -FI_EINVAL;
	}
	/* map_addr is ignored when name is NULL (fi_av(3)). */
	if (attr->name) {
		kav_info("named AVs: not implemented yet");
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
	req.count = attr->count;	/* a hint; ep_per_node is not used */
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
			kav_sys_close(req.fd);
		return -FI_EIO;
	}

	av = calloc(1, sizeof(*av));
	if (!av) {
		kav_sys_close(req.fd);
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
	av->av_fid.ops = (struct fi_ops_av *)&kav_av_ops;
	av->domain = d;
	av->addr_format = d->addr_format;
	av->slot_size = av->table.addr_max;
	av->flags = attr->flags;
	av->rx_ctx_bits = attr->rx_ctx_bits;
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
	kav_sys_close(av->fd);
	free(av);
	return ret;
}
