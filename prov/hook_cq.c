// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The CQ wrapper: completions are the core's, unchanged, except source
 * addresses (fi_cq_readfrom(), FI_SOURCE, and fi_cq_err_entry.src_addr),
 * which the core reports in its own AV's terms and the application
 * expects in kav's: kav's fi_addr, or the entry's user id on an
 * FI_AV_USER_ID AV (kavh_av_report()).
 */
#include <stdlib.h>
#include <string.h>

#include "hook_av.h"

static struct kavh_cq *kavh_cq(struct fid_cq *cq)
{
	return kavh_container_of(cq, struct kavh_cq, cq);
}

static void kavh_cq_fix_src(struct kavh_cq *cq, fi_addr_t *src, ssize_t n)
{
	struct kavh_av *av = __atomic_load_n(&cq->av, __ATOMIC_ACQUIRE);
	ssize_t i;

	for (i = 0; i < n; i++)
		src[i] = kavh_av_report(av, src[i]);
}

static ssize_t kavh_cq_read(struct fid_cq *cq, void *buf, size_t count)
{
	return fi_cq_read(kavh_cq(cq)->core, buf, count);
}

static ssize_t kavh_cq_readfrom(struct fid_cq *cq_fid, void *buf,
				size_t count, fi_addr_t *src_addr)
{
	struct kavh_cq *cq = kavh_cq(cq_fid);
	ssize_t ret;

	if (src_addr)
		kavh_av_sources_read(__atomic_load_n(&cq->av,
						     __ATOMIC_ACQUIRE));
	ret = fi_cq_readfrom(cq->core, buf, count, src_addr);
	if (ret > 0 && src_addr)
		kavh_cq_fix_src(cq, src_addr, ret);
	return ret;
}

#if KAV_FI_HAVE_AV_AUTH_KEY
_Static_assert(KAVH_CQ_ERR_SRC_OFFSET ==
	       offsetof(struct fi_cq_err_entry, src_addr),
	       "fi_cq_err_entry.src_addr follows err_data_size");
#else
_Static_assert(KAVH_CQ_ERR_SRC_OFFSET == sizeof(struct fi_cq_err_entry),
	       "1.17's fi_cq_err_entry ends where 1.20 put src_addr");
#endif

/*
 * An error entry's source (API 1.20 and later: the core writes
 * src_addr only for them, and only their buffers are that long).
 */
static ssize_t kavh_cq_readerr(struct fid_cq *cq_fid,
			       struct fi_cq_err_entry *buf, uint64_t flags)
{
	struct kavh_cq *cq = kavh_cq(cq_fid);
	char *src_addr;
	fi_addr_t src;
	ssize_t ret;

	if (buf && cq->api_version >= KAVH_CQ_ERR_SRC_API)
		kavh_av_sources_read(__atomic_load_n(&cq->av,
						     __ATOMIC_ACQUIRE));
	ret = fi_cq_readerr(cq->core, buf, flags);
	if (ret <= 0 || !buf || cq->api_version < KAVH_CQ_ERR_SRC_API)
		return ret;
	src_addr = (char *)buf + KAVH_CQ_ERR_SRC_OFFSET;
	memcpy(&src, src_addr, sizeof(src));
	src = kavh_av_report(__atomic_load_n(&cq->av, __ATOMIC_ACQUIRE), src);
	memcpy(src_addr, &src, sizeof(src));
	return ret;
}

static ssize_t kavh_cq_sread(struct fid_cq *cq, void *buf, size_t count,
			     const void *cond, int timeout)
{
	return fi_cq_sread(kavh_cq(cq)->core, buf, count, cond, timeout);
}

static ssize_t kavh_cq_sreadfrom(struct fid_cq *cq_fid, void *buf,
				 size_t count, fi_addr_t *src_addr,
				 const void *cond, int timeout)
{
	struct kavh_cq *cq = kavh_cq(cq_fid);
	ssize_t ret;

	if (src_addr)
		kavh_av_sources_read(__atomic_load_n(&cq->av,
						     __ATOMIC_ACQUIRE));
	ret = fi_cq_sreadfrom(cq->core, buf, count, src_addr, cond, timeout);
	if (ret > 0 && src_addr)
		kavh_cq_fix_src(cq, src_addr, ret);
	return ret;
}

static int kavh_cq_signal(struct fid_cq *cq)
{
	return fi_cq_signal(kavh_cq(cq)->core);
}

static const char *kavh_cq_strerror(struct fid_cq *cq, int prov_errno,
				    const void *err_data, char *buf,
				    size_t len)
{
	return fi_cq_strerror(kavh_cq(cq)->core, prov_errno, err_data, buf,
			      len);
}

static struct fi_ops_cq kavh_cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = kavh_cq_read,
	.readfrom = kavh_cq_readfrom,
	.readerr = kavh_cq_readerr,
	.sread = kavh_cq_sread,
	.sreadfrom = kavh_cq_sreadfrom,
	.signal = kavh_cq_signal,
	.strerror = kavh_cq_strerror,
};

static int kavh_cq_close(struct fid *fid)
{
	struct kavh_cq *cq = kavh_container_of(fid, struct kavh_cq, cq.fid);
	int ret;

	ret = fi_close(&cq->core->fid);
	if (ret)
		return ret;
	free(cq);
	return 0;
}

static int kavh_cq_control(struct fid *fid, int command, void *arg)
{
	struct kavh_cq *cq = kavh_container_of(fid, struct kavh_cq, cq.fid);

	return kavh_fid_control(&cq->core->fid, command, arg);
}

static struct fi_ops kavh_cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kavh_cq_close,
	.bind = kavh_no_bind,
	.control = kavh_cq_control,
	.ops_open = kavh_fid_ops_open,
};

int kavh_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		 struct fid_cq **cq_fid, void *context)
{
	struct kavh_domain *dom = kavh_container_of(domain, struct kavh_domain,
						    domain);
	struct kavh_cq *cq;
	int ret;

	if (!cq_fid)
		return -FI_EINVAL;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -FI_ENOMEM;
	ret = KAVH_CORE_CALL(fi_cq_open(dom->core, attr, &cq->core, context));
	if (ret) {
		free(cq);
		return ret;
	}
	cq->api_version = dom->fab->fabric.api_version;
	cq->cq.fid.fclass = FI_CLASS_CQ;
	cq->cq.fid.context = context;
	cq->cq.fid.ops = &kavh_cq_fi_ops;
	cq->cq.ops = &kavh_cq_ops;
	*cq_fid = &cq->cq;
	return 0;
}
