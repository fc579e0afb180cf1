// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Endpoint wrappers: endpoints, shared receive contexts and passive
 * endpoints. Binding one of the hook's objects binds the core object
 * behind it; binding an AV tells the endpoint (and its CQs and shared
 * receive context) which translation the data path uses. The data-path
 * ops are in hook_data.c; the control ops here pass through.
 */
#include <stdlib.h>

#include "kav_hook.h"

static struct kavh_ep *kavh_ep(struct fid_ep *ep)
{
	return kavh_container_of(ep, struct kavh_ep, ep);
}

/* The CQs and shared receive context of @ep translate with its AV. */
static void kavh_ep_share_av(struct kavh_ep *ep)
{
	struct kavh_av *cur;
	int i;

	if (!ep->av)
		return;
	for (i = 0; i < 2; i++) {
		if (!ep->cq[i])
			continue;
		cur = __atomic_load_n(&ep->cq[i]->av, __ATOMIC_RELAXED);
		if (cur && cur != ep->av)
			kavh_warn(FI_LOG_CQ,
				  "a CQ serves endpoints of two AVs: FI_SOURCE addresses are the first AV's\n");
		else
			__atomic_store_n(&ep->cq[i]->av, ep->av,
					 __ATOMIC_RELEASE);
	}
	if (ep->srx && !ep->srx->av)
		__atomic_store_n(&ep->srx->av, ep->av, __ATOMIC_RELEASE);
}

static int kavh_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct kavh_ep *ep = kavh_container_of(fid, struct kavh_ep, ep.fid);
	struct kavh_ep *srx;
	struct kavh_cq *cq;
	struct kavh_av *av;
	int ret;

	ret = KAVH_CORE_CALL(fi_ep_bind(ep->core, kavh_core_fid(bfid), flags));
	if (ret)
		return ret;
	av = kavh_av_of(bfid);
	cq = kavh_cq_of(bfid);
	srx = kavh_ep_of(bfid);
	if (av)
		__atomic_store_n(&ep->av, av, __ATOMIC_RELEASE);
	if (cq) {
		if (flags & FI_TRANSMIT)
			ep->cq[0] = cq;
		if (flags & FI_RECV)
			ep->cq[1] = cq;
	}
	if (srx && srx->ep.fid.fclass == FI_CLASS_SRX_CTX)
		ep->srx = srx;
	kavh_ep_share_av(ep);
	return 0;
}

static int kavh_ep_control(struct fid *fid, int command, void *arg)
{
	struct kavh_ep *ep = kavh_container_of(fid, struct kavh_ep, ep.fid);

	return kavh_fid_control(&ep->core->fid, command, arg);
}

static int kavh_ep_close(struct fid *fid)
{
	struct kavh_ep *ep = kavh_container_of(fid, struct kavh_ep, ep.fid);
	int ret;

	ret = fi_close(&ep->core->fid);
	if (ret)
		return ret;
	free(ep);
	return 0;
}

static struct fi_ops kavh_ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kavh_ep_close,
	.bind = kavh_ep_bind,
	.control = kavh_ep_control,
	.ops_open = kavh_fid_ops_open,
};

static ssize_t kavh_ep_cancel(struct fid *fid, void *context)
{
	struct kavh_ep *ep = kavh_container_of(fid, struct kavh_ep, ep.fid);

	return fi_cancel(&ep->core->fid, context);
}

static int kavh_ep_getopt(struct fid *fid, int level, int optname,
			  void *optval, size_t *optlen)
{
	struct fid *core = kavh_core_fid(fid);

	return fi_getopt(core, level, optname, optval, optlen);
}

static int kavh_ep_setopt(struct fid *fid, int level, int optname,
			  const void *optval, size_t optlen)
{
	struct fid *core = kavh_core_fid(fid);

	return fi_setopt(core, level, optname, optval, optlen);
}

static int kavh_ep_no_ctx(struct fid_ep *sep, int index, void *attr,
			  struct fid_ep **ep, void *context)
{
	(void)sep;
	(void)index;
	(void)attr;
	(void)ep;
	(void)context;
	return -FI_ENOSYS;	/* scalable endpoints are not wrapped */
}

static int kavh_ep_tx_ctx(struct fid_ep *sep, int index,
			  struct fi_tx_attr *attr, struct fid_ep **tx_ep,
			  void *context)
{
	return kavh_ep_no_ctx(sep, index, attr, tx_ep, context);
}

static int kavh_ep_rx_ctx(struct fid_ep *sep, int index,
			  struct fi_rx_attr *attr, struct fid_ep **rx_ep,
			  void *context)
{
	return kavh_ep_no_ctx(sep, index, attr, rx_ep, context);
}

static ssize_t kavh_ep_rx_size_left(struct fid_ep *ep)
{
	struct fid_ep *core = kavh_ep(ep)->core;

	return core->ops->rx_size_left(core);
}

static ssize_t kavh_ep_tx_size_left(struct fid_ep *ep)
{
	struct fid_ep *core = kavh_ep(ep)->core;

	return core->ops->tx_size_left(core);
}

static struct fi_ops_ep kavh_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = kavh_ep_cancel,
	.getopt = kavh_ep_getopt,
	.setopt = kavh_ep_setopt,
	.tx_ctx = kavh_ep_tx_ctx,
	.rx_ctx = kavh_ep_rx_ctx,
	.rx_size_left = kavh_ep_rx_size_left,
	.tx_size_left = kavh_ep_tx_size_left,
};

/* Connection management: no fi_addr_t, so straight to the core. */
static int kavh_cm_setname(struct fid *fid, void *addr, size_t addrlen)
{
	return fi_setname(kavh_core_fid(fid), addr, addrlen);
}

static int kavh_cm_getname(struct fid *fid, void *addr, size_t *addrlen)
{
	return fi_getname(kavh_core_fid(fid), addr, addrlen);
}

static int kavh_cm_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	return fi_getpeer(kavh_ep(ep)->core, addr, addrlen);
}

static int kavh_cm_connect(struct fid_ep *ep, const void *addr,
			   const void *param, size_t paramlen)
{
	return fi_connect(kavh_ep(ep)->core, addr, param, paramlen);
}

static int kavh_cm_accept(struct fid_ep *ep, const void *param,
			  size_t paramlen)
{
	return fi_accept(kavh_ep(ep)->core, param, paramlen);
}

static int kavh_cm_shutdown(struct fid_ep *ep, uint64_t flags)
{
	return fi_shutdown(kavh_ep(ep)->core, flags);
}

static int kavh_cm_listen(struct fid_pep *pep)
{
	return KAVH_CORE_CALL(fi_listen((struct fid_pep *)
					kavh_core_fid(&pep->fid)));
}

static int kavh_cm_reject(struct fid_pep *pep, fid_t handle,
			  const void *param, size_t paramlen)
{
	return fi_reject((struct fid_pep *)kavh_core_fid(&pep->fid), handle,
			 param, paramlen);
}

static int kavh_cm_join(struct fid_ep *ep, const void *addr, uint64_t flags,
			struct fid_mc **mc, void *context)
{
	(void)ep;
	(void)addr;
	(void)flags;
	(void)mc;
	(void)context;
	kavh_warn(FI_LOG_EP_CTRL,
		  "multicast joins are not supported under FI_HOOK=kav\n");
	return -FI_ENOSYS;
}

static struct fi_ops_cm kavh_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = kavh_cm_setname,
	.getname = kavh_cm_getname,
	.getpeer = kavh_cm_getpeer,
	.connect = kavh_cm_connect,
	.listen = kavh_cm_listen,
	.accept = kavh_cm_accept,
	.reject = kavh_cm_reject,
	.shutdown = kavh_cm_shutdown,
	.join = kavh_cm_join,
};

/* A table the core lacks stays absent, so libfabric's checks still hold. */
static void kavh_ep_init(struct kavh_ep *ep, struct kavh_domain *dom,
			 size_t fclass, void *context)
{
	ep->dom = dom;
	ep->ep.fid.fclass = fclass;
	ep->ep.fid.context = context;
	ep->ep.fid.ops = &kavh_ep_fi_ops;
	ep->ep.ops = &kavh_ep_ops;
	ep->ep.cm = ep->core->cm ? &kavh_cm_ops : NULL;
	ep->ep.msg = ep->core->msg ? &kavh_msg_ops : NULL;
	ep->ep.rma = ep->core->rma ? &kavh_rma_ops : NULL;
	ep->ep.tagged = ep->core->tagged ? &kavh_tagged_ops : NULL;
	ep->ep.atomic = ep->core->atomic ? &kavh_atomic_ops : NULL;
	ep->ep.collective = NULL;	/* collectives: not wrapped */
}

/* Which receives name a source, from the endpoint's capabilities. */
void kavh_ep_set_directed(struct kavh_ep *ep, uint64_t caps)
{
	uint64_t all = FI_DIRECTED_RECV, tagged = FI_DIRECTED_RECV;

	if (ep->dom->fab->fabric.api_version >= KAVH_DIRECTED_RECV_2X_API) {
		all |= FI_EXACT_DIRECTED_RECV;
		tagged |= FI_EXACT_DIRECTED_RECV | FI_TAGGED_DIRECTED_RECV;
	}
	ep->directed_msg = caps & all;
	ep->directed_tagged = caps & tagged;
}

int kavh_ep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **ep_fid, void *context)
{
	struct kavh_domain *dom = kavh_container_of(domain, struct kavh_domain,
						    domain);
	struct kavh_ep *ep;
	int ret;

	if (!ep_fid)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	/* The core's endpoint names its wrapper (EQ events, kavh_eq.c). */
	ret = KAVH_CORE_CALL(fi_endpoint(dom->core, info, &ep->core,
					 &ep->ep.fid));
	if (ret) {
		free(ep);
		return ret;
	}
	kavh_ep_init(ep, dom, FI_CLASS_EP, context);
	if (info)
		kavh_ep_set_directed(ep, info->caps |
				     (info->rx_attr ? info->rx_attr->caps : 0));
	*ep_fid = &ep->ep;
	return 0;
}

int kavh_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		  struct fid_ep **rx_ep, void *context)
{
	struct kavh_domain *dom = kavh_container_of(domain, struct kavh_domain,
						    domain);
	struct kavh_ep *ep;
	int ret;

	if (!rx_ep)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ret = KAVH_CORE_CALL(fi_srx_context(dom->core, attr, &ep->core,
					    &ep->ep.fid));
	if (ret) {
		free(ep);
		return ret;
	}
	kavh_ep_init(ep, dom, FI_CLASS_SRX_CTX, context);
	if (attr)
		kavh_ep_set_directed(ep, attr->caps);
	*rx_ep = &ep->ep;
	return 0;
}

static int kavh_pep_close(struct fid *fid)
{
	struct kavh_pep *pep = kavh_container_of(fid, struct kavh_pep,
						 pep.fid);
	int ret;

	ret = fi_close(&pep->core->fid);
	if (ret)
		return ret;
	free(pep);
	return 0;
}

static int kavh_pep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct kavh_pep *pep = kavh_container_of(fid, struct kavh_pep,
						 pep.fid);

	return KAVH_CORE_CALL(fi_pep_bind(pep->core, kavh_core_fid(bfid),
					  flags));
}

static int kavh_pep_control(struct fid *fid, int command, void *arg)
{
	struct kavh_pep *pep = kavh_container_of(fid, struct kavh_pep,
						 pep.fid);

	return kavh_fid_control(&pep->core->fid, command, arg);
}

static struct fi_ops kavh_pep_fi = {
	.size = sizeof(struct fi_ops),
	.close = kavh_pep_close,
	.bind = kavh_pep_bind,
	.control = kavh_pep_control,
	.ops_open = kavh_fid_ops_open,
};

int kavh_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		  struct fid_pep **pep_fid, void *context)
{
	struct kavh_fabric *fab = kavh_container_of(fabric, struct kavh_fabric,
						    fabric);
	struct kavh_pep *pep;
	int ret;

	if (!pep_fid)
		return -FI_EINVAL;
	if (kavh_nesting)	/* a layered provider's: the core's own */
		return fi_passive_ep(fab->core, info, pep_fid, context);
	pep = calloc(1, sizeof(*pep));
	if (!pep)
		return -FI_ENOMEM;
	ret = KAVH_CORE_CALL(fi_passive_ep(fab->core, info, &pep->core,
					   &pep->pep.fid));
	if (ret) {
		free(pep);
		return ret;
	}
	pep->pep.fid.fclass = FI_CLASS_PEP;
	pep->pep.fid.context = context;
	pep->pep.fid.ops = &kavh_pep_fi;
	pep->pep.ops = &kavh_ep_ops;
	pep->pep.cm = &kavh_cm_ops;
	*pep_fid = &pep->pep;
	return 0;
}
