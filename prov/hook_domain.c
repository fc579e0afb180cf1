// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The domain wrapper: the core's domain, and beside it a kav domain (one
 * open of /dev/kav, which captures the process's identity) whose AVs are
 * the application's. Memory registration, counters and shared transmit
 * contexts are the core's, unwrapped: no fi_addr_t passes through them
 * (registrations limited to an auth key, FI_AUTH_KEY, are refused).
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "kav_hook.h"

static int kavh_domain_close(struct fid *fid)
{
	struct kavh_domain *dom = kavh_container_of(fid, struct kavh_domain,
						    domain.fid);
	int ret;

	/* The kav domain refuses to close while its AVs are open. */
	if (dom->kav) {
		ret = fi_close(&dom->kav->fid);
		if (ret)
			return ret;
		dom->kav = NULL;
	}
	ret = fi_close(&dom->core->fid);
	if (ret)
		return ret;
	free(dom);
	return 0;
}

static int kavh_domain_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct kavh_domain *dom = kavh_container_of(fid, struct kavh_domain,
						    domain.fid);

	return fi_domain_bind(dom->core, kavh_core_fid(bfid), flags);
}

static int kavh_domain_control(struct fid *fid, int command, void *arg)
{
	struct kavh_domain *dom = kavh_container_of(fid, struct kavh_domain,
						    domain.fid);

	return kavh_fid_control(&dom->core->fid, command, arg);
}

static struct fi_ops kavh_domain_fi = {
	.size = sizeof(struct fi_ops),
	.close = kavh_domain_close,
	.bind = kavh_domain_bind,
	.control = kavh_domain_control,
	.ops_open = kavh_fid_ops_open,
};

static struct kavh_domain *kavh_dom(struct fid_domain *domain)
{
	return kavh_container_of(domain, struct kavh_domain, domain);
}

static int kavh_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
			  struct fid_cntr **cntr, void *context)
{
	return fi_cntr_open(kavh_dom(domain)->core, attr, cntr, context);
}

static int kavh_stx_open(struct fid_domain *domain, struct fi_tx_attr *attr,
			 struct fid_stx **stx, void *context)
{
	return fi_stx_context(kavh_dom(domain)->core, attr, stx, context);
}

static int kavh_query_atomic(struct fid_domain *domain,
			     enum fi_datatype datatype, enum fi_op op,
			     struct fi_atomic_attr *attr, uint64_t flags)
{
	return fi_query_atomic(kavh_dom(domain)->core, datatype, op, attr,
			       flags);
}

static int kavh_query_collective(struct fid_domain *domain,
				 enum fi_collective_op coll,
				 struct fi_collective_attr *attr,
				 uint64_t flags)
{
	return fi_query_collective(kavh_dom(domain)->core, coll, attr, flags);
}

/*
 * Not wrapped (yet): a scalable endpoint's contexts and a poll set's
 * members would have to be the hook's objects. Said, not hidden.
 */
static int kavh_scalable_ep(struct fid_domain *domain, struct fi_info *info,
			    struct fid_ep **sep, void *context)
{
	(void)domain;
	(void)info;
	(void)sep;
	(void)context;
	kavh_warn(FI_LOG_DOMAIN,
		  "scalable endpoints are not supported under FI_HOOK=kav\n");
	return -FI_ENOSYS;
}

static int kavh_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
			  struct fid_poll **pollset)
{
	(void)domain;
	(void)attr;
	(void)pollset;
	kavh_warn(FI_LOG_DOMAIN,
		  "poll sets are not supported under FI_HOOK=kav\n");
	return -FI_ENOSYS;
}

static struct fi_ops_domain kavh_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = kavh_av_open,
	.cq_open = kavh_cq_open,
	.endpoint = kavh_ep_open,
	.scalable_ep = kavh_scalable_ep,
	.cntr_open = kavh_cntr_open,
	.poll_open = kavh_poll_open,
	.stx_ctx = kavh_stx_open,
	.srx_ctx = kavh_srx_open,
	.query_atomic = kavh_query_atomic,
	.query_collective = kavh_query_collective,
	.endpoint2 = NULL,		/* fi_endpoint2(): -FI_ENOSYS */
};

/*
 * A registration limited to an auth key's addresses (FI_AUTH_KEY with a
 * struct fi_mr_auth_key naming an AV and a key handle, fi_mr(3)) would
 * hand the core kav's AV and handle, which it cannot read; the core's
 * own AV holds no keys to limit by. Refused, like the same receives.
 */
static int kavh_mr_auth_key(uint64_t flags)
{
	if (!(flags & FI_AUTH_KEY))
		return 0;
	kavh_warn(FI_LOG_MR,
		  "memory registrations limited to an auth key (FI_AUTH_KEY) are not supported under FI_HOOK=kav: the core provider holds no kav keys\n");
	return -FI_ENOSYS;
}

static int kavh_mr_reg(struct fid *fid, const void *buf, size_t len,
		       uint64_t access, uint64_t offset, uint64_t requested_key,
		       uint64_t flags, struct fid_mr **mr, void *context)
{
	struct kavh_domain *dom = kavh_container_of(fid, struct kavh_domain,
						    domain.fid);

	int ret = kavh_mr_auth_key(flags);

	if (ret)
		return ret;
	return fi_mr_reg(dom->core, buf, len, access, offset, requested_key,
			 flags, mr, context);
}

static int kavh_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
			uint64_t access, uint64_t offset,
			uint64_t requested_key, uint64_t flags,
			struct fid_mr **mr, void *context)
{
	struct kavh_domain *dom = kavh_container_of(fid, struct kavh_domain,
						    domain.fid);

	int ret = kavh_mr_auth_key(flags);

	if (ret)
		return ret;
	return fi_mr_regv(dom->core, iov, count, access, offset,
			  requested_key, flags, mr, context);
}

static int kavh_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			   uint64_t flags, struct fid_mr **mr)
{
	struct kavh_domain *dom = kavh_container_of(fid, struct kavh_domain,
						    domain.fid);

	int ret = kavh_mr_auth_key(flags);

	if (ret)
		return ret;
	return fi_mr_regattr(dom->core, attr, flags, mr);
}

static struct fi_ops_mr kavh_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = kavh_mr_reg,
	.regv = kavh_mr_regv,
	.regattr = kavh_mr_regattr,
};

/* Bytes per element of an fi_av_insert() array, as kav_domain_open(3). */
static size_t kavh_addr_stride(uint32_t addr_format)
{
	switch (addr_format) {
	case FI_FORMAT_UNSPEC:
	case FI_SOCKADDR:
	case FI_SOCKADDR_IN6:
		return sizeof(struct sockaddr_in6);
	case FI_SOCKADDR_IN:
		return sizeof(struct sockaddr_in);
	case FI_ADDR_STR:
		return sizeof(char *);
	default:
		return 0;	/* kav does not hold this format */
	}
}

/*
 * The job's key: FI_OFI_HOOK_KAV_VNI, else the domain's auth_key when it
 * is a struct kav_auth_key, else none (keyless).
 */
static void kavh_key_attr(const struct fi_info *info,
			  struct fi_domain_attr *dattr,
			  struct kav_auth_key *key)
{
	memset(dattr, 0, sizeof(*dattr));
	memset(key, 0, sizeof(*key));
	if (kavh_params.have_vni) {
		key->vni = kavh_params.vni;
	} else if (info->domain_attr && info->domain_attr->auth_key &&
		   info->domain_attr->auth_key_size == sizeof(*key)) {
		memcpy(key, info->domain_attr->auth_key, sizeof(*key));
	} else {
		return;
	}
	dattr->auth_key = (uint8_t *)key;
	dattr->auth_key_size = sizeof(*key);
}

static int kavh_open_kav(struct kavh_domain *dom, const struct fi_info *info)
{
	struct fi_domain_attr dattr;
	struct kav_auth_key key;
	struct fi_info kinfo;
	int ret;

	memset(&kinfo, 0, sizeof(kinfo));
	kinfo.addr_format = info->addr_format;
	kinfo.domain_attr = &dattr;
	kavh_key_attr(info, &dattr, &key);
	ret = kav_domain_open(&kinfo, &dom->kav, NULL);
	if (ret) {
		if (dattr.auth_key)
			kavh_warn(FI_LOG_DOMAIN, "kav domain for VNI %u: %s\n",
				  key.vni, kavh_why(ret));
		else
			kavh_warn(FI_LOG_DOMAIN, "kav domain (no key): %s\n",
				  kavh_why(ret));
		dom->kav = NULL;
		return ret;
	}
	dom->keyed = dattr.auth_key != NULL;
	dom->vni = key.vni;
	if (dattr.auth_key)
		kavh_info(FI_LOG_DOMAIN, "kav serves the AVs of domain %s, VNI %u\n",
			  info->domain_attr && info->domain_attr->name ?
			  info->domain_attr->name : "?", key.vni);
	else
		kavh_info(FI_LOG_DOMAIN, "kav serves the AVs of domain %s, no key\n",
			  info->domain_attr && info->domain_attr->name ?
			  info->domain_attr->name : "?");
	return 0;
}

int kavh_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domain, void *context)
{
	struct kavh_fabric *fab = kavh_container_of(fabric, struct kavh_fabric,
						    fabric);
	struct kavh_domain *dom;
	int ret;

	if (!info || !domain)
		return -FI_EINVAL;
	/* A layered provider's inner domain: the core's own. */
	if (kavh_nesting)
		return fi_domain(fab->core, info, domain, context);
	dom = calloc(1, sizeof(*dom));
	if (!dom)
		return -FI_ENOMEM;
	dom->fab = fab;
	dom->addr_format = info->addr_format;
	dom->addr_stride = kavh_addr_stride(info->addr_format);
	dom->source = (info->caps |
		       (info->rx_attr ? info->rx_attr->caps : 0)) & FI_SOURCE;
	if (info->ep_attr && info->ep_attr->type == FI_EP_MSG) {
		/* Connected endpoints: no AV. */
	} else if (!dom->addr_stride) {
		kavh_warn(FI_LOG_DOMAIN,
			  "kav does not hold addresses of format %u (%s): %s\n",
			  info->addr_format,
			  fab->core_prov ? fab->core_prov->name : "?",
			  kavh_params.require ?
			  "FI_OFI_HOOK_KAV_REQUIRE=1, failing" :
			  "its AVs are the core's, unchecked");
		if (kavh_params.require) {
			ret = -FI_ENOSYS;
			goto err_free;
		}
	} else {
		ret = kavh_open_kav(dom, info);
		/*
		 * Only a missing device falls back, and only when not
		 * required; any other refusal (a key without a grant, no
		 * permission) fails: the application asked for a key.
		 */
		if (ret && (ret != -FI_ENODEV || kavh_params.require))
			goto err_free;
	}
	ret = KAVH_CORE_CALL(fi_domain(fab->core, info, &dom->core, context));
	if (ret)
		goto err_kav;
	dom->domain.fid.fclass = FI_CLASS_DOMAIN;
	dom->domain.fid.context = context;
	dom->domain.fid.ops = &kavh_domain_fi;
	dom->domain.ops = &kavh_domain_ops;
	dom->domain.mr = &kavh_mr_ops;
	*domain = &dom->domain;
	return 0;

err_kav:
	if (dom->kav)
		fi_close(&dom->kav->fid);
err_free:
	free(dom);
	return ret;
}
