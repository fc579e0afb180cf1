// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The top of the domain: its fi_ops_domain and fi_ops_mr tables and
 * fi_domain() (kav_domain_open()), which hands them to the domain object
 * (domain.c). kav is an address-vector provider, so av_open is the only
 * domain operation; every other entry is a stub returning -FI_ENOSYS
 * (never NULL: libfabric's inline fi_* calls jump through these tables
 * without checking). Above the AV (av_ops.c) and the EQ, whose opens
 * check their domain with domain.c's kav_domain_is().
 */
#include "kav_priv.h"

/* --- fi_ops_domain stubs: kav is not a fabric provider --- */
static int kav_no_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
			  struct fid_cq **cq, void *context)
{
	(void)domain; (void)attr; (void)cq; (void)context;
	return -FI_ENOSYS;
}

static int kav_no_endpoint(struct fid_domain *domain, struct fi_info *info,
			   struct fid_ep **ep, void *context)
{
	(void)domain; (void)info; (void)ep; (void)context;
	return -FI_ENOSYS;
}

static int kav_no_cntr_open(struct fid_domain *domain,
			    struct fi_cntr_attr *attr, struct fid_cntr **cntr,
			    void *context)
{
	(void)domain; (void)attr; (void)cntr; (void)context;
	return -FI_ENOSYS;
}

static int kav_no_poll_open(struct fid_domain *domain,
			    struct fi_poll_attr *attr,
			    struct fid_poll **pollset)
{
	(void)domain; (void)attr; (void)pollset;
	return -FI_ENOSYS;
}

static int kav_no_stx_ctx(struct fid_domain *domain, struct fi_tx_attr *attr,
			  struct fid_stx **stx, void *context)
{
	(void)domain; (void)attr; (void)stx; (void)context;
	return -FI_ENOSYS;
}

static int kav_no_srx_ctx(struct fid_domain *domain, struct fi_rx_attr *attr,
			  struct fid_ep **rx_ep, void *context)
{
	(void)domain; (void)attr; (void)rx_ep; (void)context;
	return -FI_ENOSYS;
}

static int kav_no_query_atomic(struct fid_domain *domain,
			       enum fi_datatype datatype, enum fi_op op,
			       struct fi_atomic_attr *attr, uint64_t flags)
{
	(void)domain; (void)datatype; (void)op; (void)attr; (void)flags;
	return -FI_ENOSYS;
}

static int kav_no_query_collective(struct fid_domain *domain,
				   enum fi_collective_op coll,
				   struct fi_collective_attr *attr,
				   uint64_t flags)
{
	(void)domain; (void)coll; (void)attr; (void)flags;
	return -FI_ENOSYS;
}

static int kav_no_endpoint2(struct fid_domain *domain, struct fi_info *info,
			    struct fid_ep **ep, uint64_t flags, void *context)
{
	(void)domain; (void)info; (void)ep; (void)flags; (void)context;
	return -FI_ENOSYS;
}

static struct fi_ops_domain kav_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = kav_av_open,
	.cq_open = kav_no_cq_open,
	.endpoint = kav_no_endpoint,
	.scalable_ep = kav_no_endpoint,
	.cntr_open = kav_no_cntr_open,
	.poll_open = kav_no_poll_open,
	.stx_ctx = kav_no_stx_ctx,
	.srx_ctx = kav_no_srx_ctx,
	.query_atomic = kav_no_query_atomic,
	.query_collective = kav_no_query_collective,
	.endpoint2 = kav_no_endpoint2,
};

/* --- fi_ops_mr stubs: kav registers no memory --- */
static int kav_no_mr_reg(struct fid *fid, const void *buf, size_t len,
			 uint64_t access, uint64_t offset,
			 uint64_t requested_key, uint64_t flags,
			 struct fid_mr **mr, void *context)
{
	(void)fid; (void)buf; (void)len; (void)access; (void)offset;
	(void)requested_key; (void)flags; (void)mr; (void)context;
	return -FI_ENOSYS;
}

static int kav_no_mr_regv(struct fid *fid, const struct iovec *iov,
			  size_t count, uint64_t access, uint64_t offset,
			  uint64_t requested_key, uint64_t flags,
			  struct fid_mr **mr, void *context)
{
	(void)fid; (void)iov; (void)count; (void)access; (void)offset;
	(void)requested_key; (void)flags; (void)mr; (void)context;
	return -FI_ENOSYS;
}

static int kav_no_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			     uint64_t flags, struct fid_mr **mr)
{
	(void)fid; (void)attr; (void)flags; (void)mr;
	return -FI_ENOSYS;
}

static struct fi_ops_mr kav_domain_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = kav_no_mr_reg,
	.regv = kav_no_mr_regv,
	.regattr = kav_no_mr_regattr,
};

static const struct kav_domain_tables kav_domain_tables = {
	.ops = &kav_domain_ops,
	.mr = &kav_domain_mr_ops,
};

KAV_API int kav_domain_open(const struct fi_info *info,
			    struct fid_domain **domain, void *context)
{
	return kav_domain_create(info, &kav_domain_tables, domain, context);
}
