// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The hook's fid map and what every wrapper shares: which wrapper a fid
 * is (kavh_av_of(), ...) and the core object behind it (a bind,
 * fi_trywait() or fi_open_ops() must reach the core with the core's own
 * fid), in one place as libfabric's hook_to_hfid(); and passing
 * fi_control() through. The map needs no wrapper's file: a fid is ours
 * when its fi_ops carry kavh_fid_ops_open(), and its class says which
 * wrapper holds it.
 */
#include "kav_hook.h"

__thread unsigned int kavh_nesting;

int kavh_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid;
	(void)bfid;
	(void)flags;
	return -FI_ENOSYS;
}

/*
 * Every wrapper's fi_ops has .ops_open = kavh_fid_ops_open (below) and no
 * other object's has: a core's, libkav's or an application's fid is
 * never taken for one of ours.
 */
static bool kavh_ours(const struct fid *fid, size_t fclass)
{
	return fid && fid->fclass == fclass && fid->ops &&
	       fid->ops->ops_open == kavh_fid_ops_open;
}

struct kavh_av *kavh_av_of(struct fid *fid)
{
	return kavh_ours(fid, FI_CLASS_AV) ?
	       kavh_container_of(fid, struct kavh_av, av.fid) : NULL;
}

struct kavh_cq *kavh_cq_of(struct fid *fid)
{
	return kavh_ours(fid, FI_CLASS_CQ) ?
	       kavh_container_of(fid, struct kavh_cq, cq.fid) : NULL;
}

/* Endpoints and shared receive contexts (kavh_srx_open()). */
struct kavh_ep *kavh_ep_of(struct fid *fid)
{
	return kavh_ours(fid, FI_CLASS_EP) || kavh_ours(fid, FI_CLASS_SRX_CTX) ?
	       kavh_container_of(fid, struct kavh_ep, ep.fid) : NULL;
}

struct kavh_eq *kavh_eq_of(struct fid *fid)
{
	return kavh_ours(fid, FI_CLASS_EQ) ?
	       kavh_container_of(fid, struct kavh_eq, eq.fid) : NULL;
}

/*
 * The core's fid behind @fid; a fid that is not the hook's is returned,
 * and so is the hook's fabric (nothing passes it to the core).
 */
struct fid *kavh_core_fid(struct fid *fid)
{
	struct kavh_av *av = kavh_av_of(fid);
	struct kavh_cq *cq = kavh_cq_of(fid);
	struct kavh_ep *ep = kavh_ep_of(fid);
	struct kavh_eq *eq = kavh_eq_of(fid);

	if (av)
		return &av->core->fid;
	if (cq)
		return &cq->core->fid;
	if (ep)
		return &ep->core->fid;
	if (eq)
		return &eq->core->fid;
	if (kavh_ours(fid, FI_CLASS_DOMAIN))
		return &kavh_container_of(fid, struct kavh_domain,
					  domain.fid)->core->fid;
	if (kavh_ours(fid, FI_CLASS_PEP))
		return &kavh_container_of(fid, struct kavh_pep,
					  pep.fid)->core->fid;
	return fid;
}

/*
 * Commands whose argument is a fid of ours (FI_ALIAS returns a new
 * endpoint, which the hook would have to wrap) are refused; everything
 * else (FI_GETWAIT, FI_ENABLE, FI_GETOPSFLAG, ...) is the core's.
 */
int kavh_fid_control(struct fid *core, int command, void *arg)
{
	if (command == FI_ALIAS) {
		kavh_warn(FI_LOG_CORE,
			  "fi_control(FI_ALIAS) is not supported under FI_HOOK=kav\n");
		return -FI_ENOSYS;
	}
	return KAVH_CORE_CALL(core->ops->control(core, command, arg));
}

int kavh_fid_ops_open(struct fid *fid, const char *name, uint64_t flags,
		      void **ops, void *context)
{
	struct fid *core = kavh_core_fid(fid);

	if (core == fid)
		return -FI_ENOSYS;
	return fi_open_ops(core, name, flags, ops, context);
}
