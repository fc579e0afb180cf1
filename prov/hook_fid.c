// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * What every wrapper shares: finding the core object behind one of the
 * hook's fids (a bind, fi_trywait() or fi_open_ops() must reach the core
 * with the core's own fid), and passing fi_control() through.
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

/* The core's fid behind @fid; a fid that is not the hook's is returned. */
struct fid *kavh_core_fid(struct fid *fid)
{
	struct kavh_av *av;
	struct kavh_cq *cq;
	struct kavh_ep *ep;
	struct kavh_eq *eq;

	if (!fid)
		return NULL;
	av = kavh_av_of(fid);
	if (av)
		return &av->core->fid;
	cq = kavh_cq_of(fid);
	if (cq)
		return &cq->core->fid;
	ep = kavh_ep_of(fid);
	if (ep)
		return &ep->core->fid;
	eq = kavh_eq_of(fid);
	if (eq)
		return &eq->core->fid;
	if (fid->fclass == FI_CLASS_DOMAIN &&
	    fid->ops == kavh_domain_fi_ops())
		return &kavh_container_of(fid, struct kavh_domain,
					  domain.fid)->core->fid;
	if (fid->fclass == FI_CLASS_PEP && fid->ops == kavh_pep_fi_ops())
		return kavh_pep_core(fid);
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
