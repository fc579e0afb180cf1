// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The AV wrapper. The application's AV is kav's: every insert goes to
 * kav first, so an address kav refuses (no grant for the key, a revoked
 * key, a read-only named AV) never reaches the core provider. An unnamed
 * AV is a job AV (kav_av_open_job(): the job's one table on the node,
 * this process's own view of it) unless FI_OFI_HOOK_KAV_SHARE=0 or it
 * asks what a shared table cannot do. The data path uses a private core
 * AV that holds only the peers this process sends to: an entry is
 * mirrored into it on first use (kavh_xlate_slow()), so inserting or
 * joining a large AV costs the core nothing up front; only a domain that
 * asked FI_SOURCE mirrors at insert, so that a peer first heard from can
 * be named. Lookups, straddr, AV sets and the 2.x auth-key calls are
 * kav's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hook_av.h"

static struct kavh_av *kavh_av(struct fid_av *av)
{
	return kavh_container_of(av, struct kavh_av, av);
}

/*
 * Mirror kav entry @index (whose view says @ent) into the core AV and
 * publish it in its slot; under av->lock. The address is copied out of
 * the table and the entry's seq checked afterwards, so a concurrent
 * rewrite by another process is never mirrored half-read.
 */
static int kavh_mirror(struct kavh_av *av, uint64_t index,
		       const struct kav_view_entry *ent, uint64_t stamp,
		       struct kavh_slot *s)
{
	union {
		char str[KAV_ADDR_MAX_LEN + 1];
		uint8_t bytes[KAV_ADDR_MAX_LEN];
	} buf;
	const void *addr = buf.bytes;
	const char *str = buf.str;
	fi_addr_t core = FI_ADDR_NOTAVAIL;
	uint64_t *back;
	int ret;

	if (ent->addr_len > KAV_ADDR_MAX_LEN)
		return -FI_EINVAL;
	memset(&buf, 0, sizeof(buf));
	memcpy(buf.bytes, ent->addr, ent->addr_len);
	if (kav_view_entry_seq(&av->view, ent) != ent->seq)
		return -FI_EAGAIN;	/* rewritten meanwhile: look again */
	if (av->dom->addr_format == FI_ADDR_STR)
		addr = &str;
	/*
	 * The entry replaced one already mirrored (another process rewrote
	 * it). A data-path reader that checked the stamp before the change
	 * may still load s->core: it must find an address the core AV holds,
	 * so the old mirror is neither removed nor blanked here. It stays in
	 * the core AV until the AV closes (one entry per such rewrite);
	 * sources no longer map back to it.
	 */
	if (s->core != FI_ADDR_NOTAVAIL) {
		back = kavh_vec_get(&av->kav_of, s->core);
		if (back)
			__atomic_store_n(back, FI_ADDR_NOTAVAIL,
					 __ATOMIC_RELAXED);
	}
	__atomic_store_n(&s->stamp, KAVH_STALE, __ATOMIC_RELAXED);
	ret = fi_av_insert(av->core, addr, 1, &core, 0, NULL);
	if (ret != 1) {
		kavh_count(&av->stats.core_refused, 1);
		kavh_warn(FI_LOG_AV,
			  "the core AV refused kav entry %llu: %s\n",
			  (unsigned long long)index,
			  fi_strerror(ret < 0 ? -ret : FI_EINVAL));
		return ret < 0 ? ret : -FI_EINVAL;
	}
	/*
	 * The way back, for FI_SOURCE: core fi_addrs of an FI_AV_TABLE (and
	 * of libfabric's util AVs) are small indices; a core whose FI_AV_MAP
	 * addresses are pointers gets FI_ADDR_NOTAVAIL as source instead.
	 */
	if (core <= KAV_FI_ADDR_LOW_MASK) {
		back = kavh_vec_make(&av->kav_of, core);
		if (!back) {
			fi_av_remove(av->core, &core, 1, 0);
			return -FI_ENOMEM;
		}
		__atomic_store_n(back, index, __ATOMIC_RELAXED);
	}
	s->seq = ent->seq;
	__atomic_store_n(&s->core, core, __ATOMIC_RELAXED);
	__atomic_store_n(&s->stamp, stamp, __ATOMIC_RELEASE);
	kavh_count(&av->stats.mirrored, 1);
	return 0;
}

/*
 * May this domain send to @ent? Only under its own key: kav.ko checked
 * the domain's grant for it when the domain was opened (and revokes the
 * key in every AV when the grant goes), whereas an entry of a shared
 * named AV may be bound to another job's key that this process could
 * read but was never granted. A keyless domain sends to keyless entries
 * only.
 */
static int kavh_may_send(const struct kavh_domain *dom,
			 const struct kav_view_entry *ent)
{
	bool keyed = ent->key != FI_ADDR_NOTAVAIL;

	if (keyed != dom->keyed || (keyed && ent->vni != dom->vni))
		return -FI_EACCES;
	return 0;
}

/*
 * Bring slot @index up to date with the table, under av->lock: read the
 * stamp first, so that a change after it is seen by the next reader.
 */
static int kavh_sync_slot(struct kavh_av *av, uint64_t index, bool lazy)
{
	struct kav_view_entry ent;
	struct kavh_slot *s;
	uint64_t stamp;
	int ret, tries;

	for (tries = 0; tries < 100; tries++) {
		stamp = kavh_table_stamp(av->hdr);
		ret = kav_view_resolve(&av->view, index, &ent);
		if (!ret)
			ret = kavh_may_send(av->dom, &ent);
		if (ret)
			return ret;
		s = kavh_vec_make(&av->slots, index);
		if (!s)
			return -FI_ENOMEM;
		if (s->core != FI_ADDR_NOTAVAIL && s->seq == ent.seq) {
			/* Same entry, still valid: only the stamp moves. */
			kavh_count(&av->stats.revalidated, 1);
			__atomic_store_n(&s->stamp, stamp, __ATOMIC_RELEASE);
			return 0;
		}
		ret = kavh_mirror(av, index, &ent, stamp, s);
		if (ret != -FI_EAGAIN) {
			if (!ret && lazy)
				kavh_count(&av->stats.lazy, 1);
			return ret;
		}
	}
	return -FI_EAGAIN;
}

/* Why the data path refused a peer, in the hook's terms. */
static const char *kavh_refusal(int err)
{
	switch (err) {
	case -FI_EACCES:
		return "its entry is bound to a key this domain was not granted";
	case -FI_EKEYREJECTED:
		return "its key was revoked";
	case -FI_EINVAL:
		return "no such entry in the AV";
	default:
		return fi_strerror(-err);
	}
}

int kavh_xlate_slow(struct kavh_av *av, fi_addr_t addr, fi_addr_t *core)
{
	uint64_t index = addr & KAV_FI_ADDR_LOW_MASK;
	const struct kavh_slot *s;
	int ret;

	pthread_mutex_lock(&av->lock);
	ret = kavh_sync_slot(av, index, true);
	if (!ret) {
		s = kavh_vec_get(&av->slots, index);
		*core = s->core | (addr & ~KAV_FI_ADDR_LOW_MASK);
	}
	pthread_mutex_unlock(&av->lock);
	if (ret) {
		kavh_count(&av->stats.denied, 1);
		FI_WARN_SPARSE(&kavh_prov, FI_LOG_EP_DATA,
			       "fi_addr %#llx refused: %s\n",
			       (unsigned long long)addr, kavh_refusal(ret));
	}
	return ret;
}

/*
 * After kav accepted an insert. Lazily (the default) nothing reaches the
 * core now: a peer is mirrored when first sent to, and a core refusal
 * fails that data call (and is counted). Once the application reads
 * sources (kavh_av_sources_read()), each entry is mirrored at once; one
 * the core refuses is taken out of kav again and reported as failed, so
 * the two AVs never disagree about what exists.
 */
static size_t kavh_mirror_new(struct kavh_av *av, fi_addr_t *fi_addr,
			      size_t count, int *errs)
{
	uint64_t index;
	size_t i, n = 0;
	bool eager;
	int ret;

	pthread_mutex_lock(&av->lock);
	eager = __atomic_load_n(&av->eager, __ATOMIC_RELAXED);
	for (i = 0; i < count; i++) {
		if (fi_addr[i] == FI_ADDR_NOTAVAIL)
			continue;
		index = fi_addr[i] & KAV_FI_ADDR_LOW_MASK;
		if (index >= av->nr_fi_addrs)
			av->nr_fi_addrs = index + 1;
		ret = eager ? kavh_sync_slot(av, index, false) : 0;
		if (ret) {
			fi_av_remove(av->kav, &fi_addr[i], 1, 0);
			fi_addr[i] = FI_ADDR_NOTAVAIL;
			if (errs)
				errs[i] = -ret;
			continue;
		}
		n++;
	}
	pthread_mutex_unlock(&av->lock);
	return n;
}

/*
 * The first read of a source from a CQ of @av (fi_cq_readfrom(), an
 * error entry's src_addr): a peer heard from must have a core fi_addr to
 * translate back from, so mirror every entry inserted so far (those the
 * core refuses stay unmirrored: their data calls fail, as on first use)
 * and every later one at insert. This runs before the core's CQ is read,
 * so what a manual-progress core reports next already knows them
 * (hook.rst, "Lazy mirroring").
 */
void kavh_av_sources_read_slow(struct kavh_av *av)
{
	uint64_t i;

	pthread_mutex_lock(&av->lock);
	if (!__atomic_load_n(&av->eager, __ATOMIC_RELAXED)) {
		for (i = 0; i < av->nr_fi_addrs; i++)
			kavh_sync_slot(av, i, false);
		__atomic_store_n(&av->eager, true, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&av->lock);
}

fi_addr_t kavh_av_report(struct kavh_av *av, fi_addr_t core)
{
	fi_addr_t addr = kavh_src(av, core);
	struct kav_resolved res;
	int ret;

	if (!av || addr == FI_ADDR_NOTAVAIL ||
	    kavh_likely(!__atomic_load_n(&av->user_ids, __ATOMIC_RELAXED)))
		return addr;
	/* The table's word, as any process set it (no system call). */
	ret = kav_av_resolve(av->kav, addr, &res);
	if (ret && ret != -FI_EKEYREJECTED)
		return FI_ADDR_NOTAVAIL;	/* removed meanwhile */
	if (res.user_id != FI_ADDR_NOTAVAIL)
		return res.user_id;
	return (av->flags & FI_AV_USER_ID) ? FI_ADDR_NOTAVAIL : addr;
}

/* How an insert call reports: FI_SYNC_ERR's array, FI_EVENT's EQ. */
struct kavh_ins {
	fi_addr_t *fi_addr;		/* the caller's, or ours */
	int *errs;			/* per address, positive */
	bool own_addr, own_errs;
	bool event;
};

static int kavh_ins_begin(struct kavh_av *av, struct kavh_ins *ins,
			  fi_addr_t *fi_addr, size_t count, uint64_t *flags,
			  void **context)
{
	memset(ins, 0, sizeof(*ins));
	/* Per-insert user ids: completions must look them up from now on. */
	if (*flags & FI_AV_USER_ID)
		__atomic_store_n(&av->user_ids, true, __ATOMIC_RELAXED);
	ins->fi_addr = fi_addr;
	ins->event = av->flags & FI_EVENT;
	if (ins->event) {
		if (*flags & FI_SYNC_ERR)
			return -FI_EINVAL;
		if (!av->eq)
			return -FI_ENOEQ;
	} else if (*flags & FI_SYNC_ERR) {
		if (!*context)
			return -FI_EINVAL;
		ins->errs = *context;
	}
	if (!count)
		return 0;
	if (!fi_addr) {
		ins->fi_addr = calloc(count, sizeof(*ins->fi_addr));
		if (!ins->fi_addr)
			return -FI_ENOMEM;
		ins->own_addr = true;
	}
	if (ins->event) {
		/* kav reports synchronously; the hook raises the events. */
		ins->errs = calloc(count, sizeof(*ins->errs));
		if (!ins->errs) {
			if (ins->own_addr)
				free(ins->fi_addr);
			return -FI_ENOMEM;
		}
		ins->own_errs = true;
		*flags |= FI_SYNC_ERR;
		*context = ins->errs;
	}
	return 0;
}

static int kavh_ins_end(struct kavh_av *av, struct kavh_ins *ins,
			size_t count, int ret, void *context)
{
	struct fi_eq_err_entry err;
	struct fi_eq_entry done;
	size_t i, n = 0;

	if (ret >= 0) {
		kavh_count(&av->stats.refused, count - (size_t)ret);
		n = kavh_mirror_new(av, ins->fi_addr, count, ins->errs);
		kavh_count(&av->stats.inserted, n);
		ret = (int)n;
	} else if (ret != -FI_EINVAL) {
		kavh_count(&av->stats.refused, count);
	}
	if (ins->event && ret >= 0) {
		for (i = 0; i < count; i++) {
			if (ins->fi_addr[i] != FI_ADDR_NOTAVAIL)
				continue;
			memset(&err, 0, sizeof(err));
			err.fid = &av->av.fid;
			err.context = context;
			err.data = i;
			err.err = ins->errs[i] ? ins->errs[i] : FI_EINVAL;
			kavh_eq_post(av->eq, FI_AV_COMPLETE, true, &err,
				     sizeof(err));
		}
		memset(&done, 0, sizeof(done));
		done.fid = &av->av.fid;
		done.context = context;
		done.data = n;
		ret = kavh_eq_post(av->eq, FI_AV_COMPLETE, false, &done,
				   sizeof(done));
	}
	if (ins->own_addr)
		free(ins->fi_addr);
	if (ins->own_errs)
		free(ins->errs);
	return ret;
}

static int kavh_av_insert(struct fid_av *av_fid, const void *addr,
			  size_t count, fi_addr_t *fi_addr, uint64_t flags,
			  void *context)
{
	struct kavh_av *av = kavh_av(av_fid);
	void *kctx = context;
	struct kavh_ins ins;
	int ret;

	ret = kavh_ins_begin(av, &ins, fi_addr, count, &flags, &kctx);
	if (ret)
		return ret;
	ret = fi_av_insert(av->kav, addr, count, ins.fi_addr, flags, kctx);
	return kavh_ins_end(av, &ins, count, ret, context);
}

static int kavh_av_insertsvc(struct fid_av *av_fid, const char *node,
			     const char *service, fi_addr_t *fi_addr,
			     uint64_t flags, void *context)
{
	struct kavh_av *av = kavh_av(av_fid);
	void *kctx = context;
	struct kavh_ins ins;
	int ret;

	ret = kavh_ins_begin(av, &ins, fi_addr, 1, &flags, &kctx);
	if (ret)
		return ret;
	ret = fi_av_insertsvc(av->kav, node, service, ins.fi_addr, flags,
			      kctx);
	return kavh_ins_end(av, &ins, 1, ret, context);
}

static int kavh_av_insertsym(struct fid_av *av_fid, const char *node,
			     size_t nodecnt, const char *service,
			     size_t svccnt, fi_addr_t *fi_addr, uint64_t flags,
			     void *context)
{
	struct kavh_av *av = kavh_av(av_fid);
	size_t count = nodecnt * svccnt;
	void *kctx = context;
	struct kavh_ins ins;
	int ret;

	if (svccnt && count / svccnt != nodecnt)
		return -FI_EINVAL;
	ret = kavh_ins_begin(av, &ins, fi_addr, count, &flags, &kctx);
	if (ret)
		return ret;
	ret = fi_av_insertsym(av->kav, node, nodecnt, service, svccnt,
			      ins.fi_addr, flags, kctx);
	return kavh_ins_end(av, &ins, count, ret, context);
}

/* kav first (it validates the whole call), then each mirror. */
static int kavh_av_remove(struct fid_av *av_fid, fi_addr_t *fi_addr,
			  size_t count, uint64_t flags)
{
	struct kavh_av *av = kavh_av(av_fid);
	struct kavh_slot *s;
	uint64_t *back;
	size_t i;
	int ret;

	ret = fi_av_remove(av->kav, fi_addr, count, flags);
	if (ret)
		return ret;
	pthread_mutex_lock(&av->lock);
	for (i = 0; i < count; i++) {
		s = kavh_vec_get(&av->slots, fi_addr[i] & KAV_FI_ADDR_LOW_MASK);
		if (!s || s->core == FI_ADDR_NOTAVAIL)
			continue;
		__atomic_store_n(&s->stamp, KAVH_STALE, __ATOMIC_RELEASE);
		back = kavh_vec_get(&av->kav_of, s->core);
		if (back)
			__atomic_store_n(back, FI_ADDR_NOTAVAIL,
					 __ATOMIC_RELAXED);
		fi_av_remove(av->core, &s->core, 1, 0);
		__atomic_store_n(&s->core, FI_ADDR_NOTAVAIL, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&av->lock);
	return 0;
}

static int kavh_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr,
			  void *addr, size_t *addrlen)
{
	return fi_av_lookup(kavh_av(av_fid)->kav, fi_addr, addr, addrlen);
}

static const char *kavh_av_straddr(struct fid_av *av_fid, const void *addr,
				   char *buf, size_t *len)
{
	return fi_av_straddr(kavh_av(av_fid)->kav, addr, buf, len);
}

static int kavh_av_set(struct fid_av *av_fid, struct fi_av_set_attr *attr,
		       struct fid_av_set **av_set, void *context)
{
	return fi_av_set(kavh_av(av_fid)->kav, attr, av_set, context);
}

static int kavh_av_insert_auth_key(struct fid_av *av_fid, const void *key,
				   size_t key_size, fi_addr_t *fi_addr,
				   uint64_t flags)
{
	return fi_av_insert_auth_key(kavh_av(av_fid)->kav, key, key_size,
				     fi_addr, flags);
}

static int kavh_av_lookup_auth_key(struct fid_av *av_fid, fi_addr_t addr,
				   void *key, size_t *key_size)
{
	return fi_av_lookup_auth_key(kavh_av(av_fid)->kav, addr, key,
				     key_size);
}

static int kavh_av_set_user_id(struct fid_av *av_fid, fi_addr_t fi_addr,
			       fi_addr_t user_id, uint64_t flags)
{
	return fi_av_set_user_id(kavh_av(av_fid)->kav, fi_addr, user_id,
				 flags);
}

static struct kav_fi_ops_av kavh_av_ops = {
	.size = sizeof(struct kav_fi_ops_av),
	.insert = kavh_av_insert,
	.insertsvc = kavh_av_insertsvc,
	.insertsym = kavh_av_insertsym,
	.remove = kavh_av_remove,
	.lookup = kavh_av_lookup,
	.straddr = kavh_av_straddr,
	.av_set = kavh_av_set,
	.insert_auth_key = kavh_av_insert_auth_key,
	.lookup_auth_key = kavh_av_lookup_auth_key,
	.set_user_id = kavh_av_set_user_id,
};

static void kavh_av_stats_line(struct kavh_av *av)
{
	const struct kavh_stats *st = &av->stats;
	enum fi_log_level level = kavh_params.stats ? FI_LOG_WARN :
						      FI_LOG_INFO;

	struct kav_av_job_stats js;
	char share[128] = "";

	/* A job AV: how many inserts the node's table spared a call. */
	if (av->shared && !kav_av_job_stats(av->kav, &js))
		snprintf(share, sizeof(share),
			 "; shared with the job: %llu found on the node without a system call, %llu sent in %llu calls",
			 (unsigned long long)js.found,
			 (unsigned long long)js.sent,
			 (unsigned long long)js.calls);
	FI_LOG(&kavh_prov, level, FI_LOG_AV,
	       "stats: kav served AV %s%s%s over %s: %llu inserted, %llu refused, %llu mirrored (%llu on first use), %llu rechecked, %llu data-path calls refused, %llu refused by the core%s\n",
	       av->name ? "\"" : "",
	       av->name ? av->name : av->shared ? "(shared)" : "(private)",
	       av->name ? "\"" : "",
	       av->dom->fab->core_prov && av->dom->fab->core_prov->name ?
	       av->dom->fab->core_prov->name : "?",
	       (unsigned long long)st->inserted,
	       (unsigned long long)st->refused,
	       (unsigned long long)st->mirrored,
	       (unsigned long long)st->lazy,
	       (unsigned long long)st->revalidated,
	       (unsigned long long)st->denied,
	       (unsigned long long)st->core_refused, share);
}

static void kavh_av_free(struct kavh_av *av)
{
	kavh_vec_free(&av->slots);
	kavh_vec_free(&av->kav_of);
	pthread_mutex_destroy(&av->lock);
	free(av->name);
	free(av);
}

static int kavh_av_close(struct fid *fid)
{
	struct kavh_av *av = kavh_container_of(fid, struct kavh_av, av.fid);
	int ret;

	ret = fi_close(&av->core->fid);
	if (ret)
		return ret;
	kavh_av_stats_line(av);
	ret = fi_close(&av->kav->fid);
	if (ret)
		kavh_warn(FI_LOG_AV, "closing the kav AV: %s\n",
			  kavh_why(ret));
	kavh_av_free(av);
	return 0;
}

/* Only an EQ of the hook's (FI_EVENT): the completions are the hook's. */
static int kavh_av_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct kavh_av *av = kavh_container_of(fid, struct kavh_av, av.fid);
	struct kavh_eq *eq = kavh_eq_of(bfid);

	if (!eq || flags)
		return -FI_EINVAL;
	if (!(av->flags & FI_EVENT))
		return -FI_EINVAL;
	if (av->eq)
		return -FI_EBUSY;
	av->eq = eq;
	return 0;
}

static int kavh_av_control(struct fid *fid, int command, void *arg)
{
	struct kavh_av *av = kavh_container_of(fid, struct kavh_av, av.fid);

	return kavh_fid_control(&av->kav->fid, command, arg);
}

static struct fi_ops kavh_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kavh_av_close,
	.bind = kavh_av_bind,
	.control = kavh_av_control,
	.ops_open = kavh_fid_ops_open,
};

/*
 * The private core AV: the application's type (a core may insist that it
 * match its domain's av_type; MPICH asks FI_AV_MAP), nothing shared, no
 * events.
 */
static int kavh_core_av_open(struct kavh_av *av, const struct fi_av_attr *attr,
			     struct fid_domain *core_dom)
{
	struct fi_av_attr cattr;

	memset(&cattr, 0, sizeof(cattr));
	cattr.type = attr->type;
	cattr.rx_ctx_bits = attr->rx_ctx_bits;
	/* Mirrors follow the traffic, not the job size (first use). */
	cattr.count = 0;
	cattr.ep_per_node = attr->ep_per_node;
	cattr.flags = attr->flags & FI_SYMMETRIC;
	return KAVH_CORE_CALL(fi_av_open(core_dom, &cattr, &av->core, NULL));
}

/*
 * An unnamed AV of a keyed domain becomes a job AV, unless the opt-out is
 * set or it asks what the job's shared table refuses (user ids, a name,
 * FI_READ). 0, or an error after which the AV is opened private: a module
 * without job tables, a refusal, said once at info level.
 */
static int kavh_open_shared(struct kavh_av *av, struct fi_av_attr *kattr,
			    void *context)
{
	const struct kavh_domain *dom = av->dom;
	int ret;

	if (!kavh_params.share || !dom->keyed || kattr->name ||
	    (kattr->flags & ~FI_SYMMETRIC))
		return -FI_ENOSYS;
	ret = kav_av_open_job(dom->kav, kattr, &av->kav, context);
	if (ret) {
		kavh_info(FI_LOG_AV,
			  "the job's shared table: %s; this AV is private\n",
			  kavh_why(ret));
		return ret;
	}
	av->shared = true;
	return 0;
}

int kavh_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		 struct fid_av **av_fid, void *context)
{
	struct kavh_domain *dom = kavh_container_of(domain, struct kavh_domain,
						    domain);
	struct fi_av_attr kattr;
	struct kavh_av *av;
	int ret;

	/* No kav (pass-through): the application's AV is the core's. */
	if (!dom->kav)
		return fi_av_open(dom->core, attr, av_fid, context);
	if (!attr || !av_fid)
		return -FI_EINVAL;
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	pthread_mutex_init(&av->lock, NULL);
	kavh_vec_init(&av->slots, sizeof(struct kavh_slot), 0xff);
	kavh_vec_init(&av->kav_of, sizeof(uint64_t), 0xff);
	av->dom = dom;
	av->flags = attr->flags;
	/* A named AV's user ids may be set by any process that writes it. */
	av->user_ids = (attr->flags & FI_AV_USER_ID) || attr->name;
	if (attr->name) {
		av->name = strdup(attr->name);
		if (!av->name) {
			ret = -FI_ENOMEM;
			goto err_free;
		}
		/* MPICH's names end in "\n": keep the stats line one line. */
		av->name[strcspn(av->name, "\n")] = '\0';
	}
	/* kav reports synchronously; FI_EVENT is the hook's to raise. */
	kattr = *attr;
	kattr.flags &= ~FI_EVENT;
	ret = kavh_open_shared(av, &kattr, context);
	if (ret)
		ret = fi_av_open(dom->kav, &kattr, &av->kav, context);
	if (ret == -FI_ENOENT && (attr->flags & FI_READ)) {
		/* A probe (MPICH's instant-on): the caller falls back. */
		kavh_info(FI_LOG_AV, "no named AV %s to join\n", av->name);
		goto err_free;
	} else if (ret) {
		kavh_warn(FI_LOG_AV, "kav AV%s%s: %s\n",
			  attr->name ? " " : "", av->name ? av->name : "",
			  kavh_why(ret));
		goto err_free;
	}
	attr->map_addr = kattr.map_addr;
	ret = kav_view_init(av->kav, &av->view);
	if (ret)
		goto err_kav;
	av->hdr = av->view.hdr;
	ret = kavh_core_av_open(av, attr, dom->core);
	if (ret) {
		kavh_warn(FI_LOG_AV, "the core AV: %s\n", fi_strerror(-ret));
		goto err_kav;
	}
	av->av.fid.fclass = FI_CLASS_AV;
	av->av.fid.context = context;
	av->av.fid.ops = &kavh_av_fi_ops;
	av->av.ops = (struct fi_ops_av *)&kavh_av_ops;
	*av_fid = &av->av;
	return 0;

err_kav:
	fi_close(&av->kav->fid);
err_free:
	kavh_av_free(av);
	return ret;
}
