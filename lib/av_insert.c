// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Insertion: fi_av_insert(), fi_av_insertsvc() and fi_av_insertsym() share
 * one path (kav_ins_run) that stages addresses in the kernel's form,
 * sends them in atomic batches of up to KAV_BATCH_MAX, and reports each
 * address that fails the ways the caller asked: FI_ADDR_NOTAVAIL in
 * fi_addr, FI_SYNC_ERR's error array, or FI_EVENT's EQ (av->eq).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"
#include "kav_eq_priv.h"
#include "av_job.h"

/* FI_MORE is a hint we may ignore: each call is its own batch. */
#define KAV_AV_INSERT_FLAGS \
	(FI_MORE | FI_SYNC_ERR | FI_AV_USER_ID | FI_AUTH_KEY)

/*
 * Writes address @i of an insert call into @slot (slot_size bytes) or
 * returns why that address cannot be inserted. Called with i = 0, 1, ...
 * in order, so sources may cache per-node work.
 */
typedef int (*kav_fill_fn)(struct kav_fid_av *av, void *arg, size_t i,
			   uint8_t *slot);

/* One insert call (insert, insertsvc or insertsym). */
struct kav_ins {
	struct kav_fid_av *av;
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
	/*
	 * Job AVs: table index of caller position base + k, or KAV_NONE;
	 * adopted into the process's view in caller order (TABLE).
	 */
	uint64_t *jidx;
	size_t base;
	bool small;			/* the above are on the stack */
};

/*
 * Validate an insert call's flags and set up @ins. Errors here fail the
 * call before anything is attempted (no events).
 */
static int kav_ins_init(struct kav_ins *ins, struct kav_fid_av *av,
			fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	memset(ins, 0, sizeof(*ins));
	ins->av = av;
	ins->fi_addr = fi_addr;
	ins->context = context;
	kav_err_clear();
	if (flags & ~KAV_AV_INSERT_FLAGS) {
		kav_refuse("insert: unknown flags %#llx", (unsigned long long)
			   (flags & ~KAV_AV_INSERT_FLAGS));
		return -FI_EINVAL;
	}
	if ((flags & FI_AV_USER_ID) && av->job) {
		kav_refuse("insert: FI_AV_USER_ID: a job AV's entries are "
			   "shared and carry no user ids");
		return -FI_EOPNOTSUPP;
	}
	if (flags & FI_AV_USER_ID) {
		/* fi_av(3): invalid on such AVs; use fi_av_set_user_id(). */
		if ((av->flags & FI_AV_USER_ID) || av->domain->av_auth_key) {
			kav_refuse("insert: FI_AV_USER_ID is invalid on an AV "
				   "opened with FI_AV_USER_ID or a domain with "
				   "FI_AV_AUTH_KEY");
			return -FI_EINVAL;
		}
		if (!fi_addr) {
			/* the user ids are input */
			kav_refuse("insert: FI_AV_USER_ID needs fi_addr (the "
				   "user ids), not NULL");
			return -FI_EINVAL;
		}
		ins->kflags |= KAV_INSERT_USER_ID;
	}
	if (flags & FI_AUTH_KEY) {
		if (!av->domain->av_auth_key) {
			kav_refuse("insert: FI_AUTH_KEY needs a domain opened "
				   "with FI_AV_AUTH_KEY");
			return -FI_EINVAL;
		}
		if (!fi_addr) {
			/* the key handles are input */
			kav_refuse("insert: FI_AUTH_KEY needs fi_addr (the "
				   "auth key handles), not NULL");
			return -FI_EINVAL;
		}
		ins->kflags |= KAV_INSERT_AUTH_KEY;
	}
	if (av->flags & FI_EVENT) {
		/* FI_SYNC_ERR "applies to synchronous insertions only". */
		if (flags & FI_SYNC_ERR) {
			kav_refuse("insert: FI_SYNC_ERR is for synchronous "
				   "inserts, and the AV was opened with "
				   "FI_EVENT");
			return -FI_EINVAL;
		}
		ins->eq = __atomic_load_n(&av->eq, __ATOMIC_ACQUIRE);
		if (!ins->eq) {
			kav_refuse("insert: the AV was opened with FI_EVENT "
				   "and has no EQ: fi_av_bind() one first");
			return -FI_ENOEQ;
		}
	} else if (flags & FI_SYNC_ERR) {
		if (!context) {
			kav_refuse("insert: FI_SYNC_ERR needs context (the "
				   "error array), not NULL");
			return -FI_EINVAL;
		}
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
			kav_refuse("insert: fi_addr[%zu] = %#llx is not an "
				   "auth key handle of this AV", i,
				   (unsigned long long)ins->fi_addr[i]);
			return -FI_EINVAL;
		}
		if (key.flags & KAV_KEY_REVOKED) {
			kav_fail_info("insert: fi_addr[%zu]: auth key %u (vni "
				      "%u) was revoked by the administrator",
				      i, slot, key.vni);
			return -FI_EKEYREJECTED;
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
	/* A job table keeps its entries (REMOVE: EOPNOTSUPP). */
	if (ins->av->job)
		ret = 0;
	else
		ret = rm ? kav_av_remove_batch(ins->av, rm, k, NULL) :
			   -FI_ENOMEM;
	if (ret)
		kav_warn("insert: cannot remove unaddressable entries: %s",
			 kav_strerror(ret));
	free(rm);
	return n - k;
}

/*
 * The kernel refused a batch of @n staged addresses under a key (or
 * keyless) with @err: say why, naming the VNI and the domain's identity.
 * With key handles the batch may carry several keys: the one the kernel
 * named (@err_index), else each distinct VNI is a candidate.
 */
static void kav_ins_denied(struct kav_ins *ins, size_t n, int err,
			   uint32_t err_index)
{
	const struct kav_fid_domain *d = ins->av->domain;
	uint32_t vnis[KAV_DENY_VNIS];
	struct kav_key_snap key;
	char what[64];
	struct kav_denial deny = {
		.what = what,
		.err = err,
		.keyed = d->has_key,
		.vni = d->key.vni,
		.need_entries = n,
		.if_granted = "the AV does not hold the domain's key (entries "
			      "are bound to the inserting domain's key; a "
			      "named AV joined without it?)",
	};
	size_t j, k, nr = 0;

	snprintf(what, sizeof(what), "insert of %zu address%s", n,
		 n == 1 ? "" : "es");
	if (ins->keys) {
		deny.keyed = true;
		deny.if_granted = NULL;
		for (j = 0; j < n && nr < KAV_DENY_VNIS; j++) {
			if (err_index < n && j != err_index)
				continue;
			if (kav_av_read_key(ins->av, (uint32_t)ins->keys[j],
					    &key))
				continue;
			for (k = 0; k < nr && vnis[k] != key.vni; k++)
				;
			if (k == nr)
				vnis[nr++] = key.vni;
		}
		if (nr)
			deny.vni = vnis[0];
		deny.vnis = vnis;
		deny.nr_vnis = nr;
	}
	kav_denial_warn(d->fd, &deny);
}

/*
 * Send @n staged addresses as one kernel batch. The batch is atomic, so
 * when the kernel names one bad address we drop that one and resend the
 * rest; libkav validated them already, so that is a safety net, not the
 * normal path. Returns how many were inserted.
 */
static size_t kav_ins_submit(struct kav_ins *ins, size_t n)
{
	struct kav_fid_av *av = ins->av;
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
		if (av->job)
			kav_job_count(av, 0, n);
		if (ret >= 0) {
			done = kav_ins_trim(ins, n);
			for (j = 0; j < n; j++) {
				if (ins->pos[j] == SIZE_MAX)
					continue;
				if (ins->jidx)
					ins->jidx[ins->pos[j] - ins->base] =
						ins->out[j];
				else if (ins->fi_addr)
					ins->fi_addr[ins->pos[j]] = ins->out[j];
				if (ins->sync_err)
					ins->sync_err[ins->pos[j]] = 0;
			}
			return done;
		}
		if (ret == -EINVAL && req.err_index < n) {
			e = req.err_index;
			kav_fail_info("kernel refused address %zu of the "
				      "insert", ins->pos[e]);
			kav_ins_fail(ins, ins->pos[e], -FI_EINVAL);
			kav_ins_drop(ins, e, n);
			n--;
			continue;
		}
		err = kav_err_from_errno(-ret);
		if (err == -FI_EACCES || err == -FI_EKEYREJECTED ||
		    err == -EDQUOT)
			kav_ins_denied(ins, n, err, req.err_index);
		else
			kav_fail_warn("insert of %zu addresses failed: %s", n,
				      kav_av_strerror(av, err));
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
/*
 * Small inserts (most often one address: a peer connecting) are staged on
 * the stack instead of in per-call allocations, which used to cost more
 * than the rest of the call in user space.
 */
#define KAV_INS_SMALL	8

struct kav_ins_small {
	uint8_t stage[KAV_INS_SMALL * KAV_ADDR_MAX_LEN];
	size_t pos[KAV_INS_SMALL];
	uint64_t out[KAV_INS_SMALL];
	uint64_t keys[KAV_INS_SMALL];
	uint64_t uids[KAV_INS_SMALL];
	uint64_t jidx[KAV_INS_SMALL];
};

/* Point @ins at @small, or at allocations for @chunk; false: no memory. */
static bool kav_ins_buffers(struct kav_ins *ins, size_t chunk,
			    struct kav_ins_small *small)
{
	bool keys = ins->kflags & KAV_INSERT_AUTH_KEY;
	bool uids = ins->kflags & KAV_INSERT_USER_ID;
	bool job = ins->av->job;

	if (chunk <= KAV_INS_SMALL) {
		ins->stage = small->stage;
		ins->pos = small->pos;
		ins->out = small->out;
		ins->keys = keys ? small->keys : NULL;
		ins->uids = uids ? small->uids : NULL;
		ins->jidx = job ? small->jidx : NULL;
		ins->small = true;
		return true;
	}
	ins->stage = malloc(chunk * ins->av->slot_size);
	ins->pos = malloc(chunk * sizeof(*ins->pos));
	ins->out = malloc(chunk * sizeof(*ins->out));
	ins->keys = keys ? malloc(chunk * sizeof(*ins->keys)) : NULL;
	ins->uids = uids ? malloc(chunk * sizeof(*ins->uids)) : NULL;
	ins->jidx = job ? malloc(chunk * sizeof(*ins->jidx)) : NULL;
	return ins->stage && ins->pos && ins->out && (!keys || ins->keys) &&
	       (!uids || ins->uids) && (!job || ins->jidx);
}

/*
 * Job AVs: make the table indices of caller positions [@base, @end) the
 * process's, in caller order (FI_AV_TABLE positions follow it). Returns
 * how many were.
 */
static size_t kav_ins_adopt(struct kav_ins *ins, size_t base, size_t end)
{
	fi_addr_t fa;
	size_t i, n = 0;
	int ret;

	for (i = base; i < end; i++) {
		if (ins->jidx[i - base] == KAV_NONE)
			continue;	/* failed, and reported */
		ret = kav_job_adopt(ins->av, ins->jidx[i - base], &fa);
		if (ret) {
			kav_ins_fail(ins, i, ret);
			continue;
		}
		if (ins->fi_addr)
			ins->fi_addr[i] = fa;
		if (ins->sync_err)
			ins->sync_err[i] = 0;
		n++;
	}
	return n;
}

/*
 * Job AVs: is the staged address @slot on the node already? Then it needs
 * no system call: 1 (recorded for caller position @i). 0: send it; or a
 * negative error for this address (a revoked key).
 */
static int kav_ins_find(struct kav_ins *ins, size_t i, const uint8_t *slot)
{
	uint64_t index;
	int ret;

	ins->jidx[i - ins->base] = KAV_NONE;
	ret = kav_job_find(ins->av, slot, &index);
	if (ret == -FI_ENOENT)
		return 0;
	if (ret) {
		kav_fail_info("insert: address %zu: the domain's key was "
			      "revoked by the administrator", i);
		return ret;
	}
	ins->jidx[i - ins->base] = index;
	return 1;
}

static int kav_ins_run(struct kav_ins *ins, size_t count, kav_fill_fn fill,
		       void *arg)
{
	size_t chunk = KAV_MIN(count, (size_t)KAV_BATCH_MAX);
	struct kav_fid_av *av = ins->av;
	struct kav_ins_small small;
	size_t inserted = 0, base, end, i, n, found;
	int ret;

	if (!count)
		return 0;
	if (!kav_ins_buffers(ins, chunk, &small)) {
		for (i = 0; i < count; i++)
			kav_ins_fail(ins, i, -FI_ENOMEM);
		ret = -FI_ENOMEM;
		goto out;
	}
	for (base = 0; base < count; base = end) {
		end = base + KAV_MIN(count - base, chunk);
		ins->base = base;
		for (n = 0, found = 0, i = base; i < end; i++) {
			if (ins->jidx)
				ins->jidx[i - base] = KAV_NONE;
			ret = kav_ins_input(ins, i, n);
			if (!ret)
				ret = fill(av, arg, i,
					   ins->stage + n * av->slot_size);
			if (!ret && ins->jidx)
				ret = kav_ins_find(ins, i, ins->stage +
						   n * av->slot_size);
			if (ret > 0) {
				found++;
				continue;
			}
			if (ret) {
				kav_debug("address %zu not inserted: %s", i,
					  kav_strerror(ret));
				kav_ins_fail(ins, i, ret);
				continue;
			}
			ins->pos[n++] = i;
		}
		if (!ins->jidx) {
			inserted += kav_ins_submit(ins, n);
			continue;
		}
		kav_job_count(av, found, 0);
		if (n)
			kav_ins_submit(ins, n);
		inserted += kav_ins_adopt(ins, base, end);
	}
	ret = (int)inserted;
out:
	if (!ins->small) {
		free(ins->stage);
		free(ins->pos);
		free(ins->out);
		free(ins->keys);
		free(ins->uids);
		free(ins->jidx);
	}
	/* Nothing of @small's outlives this frame. */
	ins->stage = NULL;
	ins->pos = NULL;
	ins->out = NULL;
	ins->keys = NULL;
	ins->uids = NULL;
	ins->jidx = NULL;
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

static int kav_fill_array(struct kav_fid_av *av, void *arg, size_t i,
			  uint8_t *slot)
{
	const struct kav_src_array *src = arg;
	const void *a;

	if (av->addr_format == FI_ADDR_STR)
		a = ((const char *const *)src->addr)[i];
	else
		a = (const uint8_t *)src->addr + i * src->stride;
	if (!a) {
		kav_refuse("insert: address %zu is NULL", i);
		return -FI_EINVAL;
	}
	if (kav_addr_stage(av->addr_format, a, slot, av->slot_size)) {
		kav_refuse("insert: address %zu is not a valid %s", i,
			   kav_addr_format_name(av->addr_format));
		return -FI_EINVAL;
	}
	return 0;
}

int kav_av_insert(struct fid_av *av_fid, const void *addr, size_t count,
		  fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	struct kav_src_array src = {
		.addr = addr,
		.stride = kav_addr_user_stride(av->addr_format),
	};
	struct kav_ins ins;
	int ret;

	ret = kav_ins_init(&ins, av, fi_addr, flags, context);
	if (ret)
		return ret;
	if (count && !addr) {
		kav_refuse("fi_av_insert: addr is NULL with count %zu", count);
		return -FI_EINVAL;
	}
	if (count > INT_MAX) {
		kav_refuse("fi_av_insert: count %zu is more than INT_MAX",
			   count);
		return -FI_EINVAL;
	}
	return kav_ins_finish(&ins, kav_ins_run(&ins, count, kav_fill_array,
						&src));
}

/* One address, already parsed or resolved (or the reason it is not). */
struct kav_src_one {
	int err;
	uint8_t addr[KAV_SOCKADDR_MAX];
	const char *str;		/* FI_ADDR_STR */
};

static int kav_fill_one(struct kav_fid_av *av, void *arg, size_t i,
			uint8_t *slot)
{
	const struct kav_src_one *src = arg;

	(void)i;
	if (src->err)
		return src->err;
	return kav_addr_stage(av->addr_format,
			      src->str ? (const void *)src->str : src->addr,
			      slot, av->slot_size);
}

int kav_av_insertsvc(struct fid_av *av_fid, const char *node,
		     const char *service, fi_addr_t *fi_addr, uint64_t flags,
		     void *context)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	struct kav_src_one src = { 0 };
	struct kav_ins ins;
	uint16_t port;
	int ret;

	ret = kav_ins_init(&ins, av, fi_addr, flags, context);
	if (ret)
		return ret;
	if (!node) {
		kav_refuse("fi_av_insertsvc: node is NULL");
		return -FI_EINVAL;
	}
	if (av->addr_format == FI_ADDR_STR) {
		/* The node is the address; there is nothing to resolve. */
		if (service) {
			kav_refuse("fi_av_insertsvc: an FI_ADDR_STR AV takes "
				   "the whole address as node and service "
				   "NULL, not '%s'", service);
			return -FI_EINVAL;
		}
		src.str = node;
	} else if (!service) {
		/* The man page: node may be an FI_ADDR_STR address. */
		if (kav_addr_parse_str(av->addr_format, node, src.addr)) {
			kav_refuse("fi_av_insertsvc: service is NULL, and node "
				   "'%s' is not an address string of the AV's "
				   "format %s (fi_sockaddr_in://a.b.c.d:port "
				   "or fi_sockaddr_in6://[addr]:port)", node,
				   kav_addr_format_name(av->addr_format));
			return -FI_EINVAL;
		}
	} else {
		if (kav_addr_parse_port(service, &port)) {
			kav_refuse("fi_av_insertsvc: service '%s' (node '%s') "
				   "is not a port number 0..65535 (kav takes "
				   "numeric services only)", service, node);
			return -FI_EINVAL;
		}
		src.err = kav_addr_resolve(av->addr_format, node, service, 0,
					   src.addr);
	}
	return kav_ins_finish(&ins, kav_ins_run(&ins, 1, kav_fill_one, &src));
}

/*
 * fi_av_insertsym(): node-major, one resolution per node. An FI_ADDR_STR
 * AV takes the same range: its nodes are resolved as on an FI_SOCKADDR AV
 * (IPv4 or IPv6) and each address is stored as the string fi_av_straddr()
 * gives for it, "fi_sockaddr_in://10.1.1.1:5000".
 */
struct kav_src_sym {
	const struct kav_sym *sym;
	uint32_t ip_format;		/* the format nodes resolve in */
	size_t node;			/* node index of @addr / @err */
	bool have;
	int err;
	uint8_t addr[KAV_SOCKADDR_MAX];
};

/* Stage IP address @ip as its FI_ADDR_STR string. */
static int kav_stage_as_str(struct kav_fid_av *av, const void *ip,
			    uint8_t *slot)
{
	char str[KAV_ADDR_MAX_LEN];
	size_t len = sizeof(str);

	if (!kav_addr_straddr(FI_SOCKADDR, ip, str, &len) ||
	    len > sizeof(str)) {
		kav_refuse("insert: a resolved address does not fit an "
			   "FI_ADDR_STR entry");
		return -FI_EINVAL;
	}
	return kav_addr_stage(FI_ADDR_STR, str, slot, av->slot_size);
}

static int kav_fill_sym(struct kav_fid_av *av, void *arg, size_t i,
			uint8_t *slot)
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
			src->err = kav_addr_resolve(src->ip_format, name, NULL,
						    0, src->addr);
	}
	if (src->err)
		return src->err;
	memcpy(addr, src->addr, sizeof(addr));
	port = htons(kav_sym_port(src->sym, svc));
	memcpy(addr + offsetof(struct sockaddr_in, sin_port), &port,
	       sizeof(port));
	if (av->addr_format == FI_ADDR_STR)
		return kav_stage_as_str(av, addr, slot);
	return kav_addr_stage(av->addr_format, addr, slot, av->slot_size);
}

int kav_av_insertsym(struct fid_av *av_fid, const char *node, size_t nodecnt,
		     const char *service, size_t svccnt, fi_addr_t *fi_addr,
		     uint64_t flags, void *context)
{
	struct kav_fid_av *av = kav_av_of(av_fid);
	struct kav_src_sym src = { 0 };
	struct kav_ins ins;
	struct kav_sym sym;
	int ret;

	ret = kav_ins_init(&ins, av, fi_addr, flags, context);
	if (ret)
		return ret;
	ret = kav_sym_init(&sym, node, nodecnt, service, svccnt);
	if (ret)
		return ret;
	src.sym = &sym;
	src.ip_format = av->addr_format == FI_ADDR_STR ? FI_SOCKADDR :
							 av->addr_format;
	return kav_ins_finish(&ins, kav_ins_run(&ins, nodecnt * svccnt,
						kav_fill_sym, &src));
}
