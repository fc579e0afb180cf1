// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The data path: every message, tagged, RMA and atomic call that names a
 * peer. Each translates the application's (kav) fi_addr_t into the core
 * AV's with kavh_xlate() (no lock, no system call: a slot load and a
 * compare with the table's stamp) and calls the core. A peer kav no
 * longer vouches for (removed, or its key revoked) is refused here, with
 * kavh_xlate()'s error, before the core sees the call. Calls without a
 * peer (fi_*valid) go straight through.
 */
#include "hook_av.h"

static inline struct kavh_ep *kavh_ep(struct fid_ep *ep)
{
	return kavh_container_of(ep, struct kavh_ep, ep);
}

/* Translate @addr for @ep; on failure the call returns the error. */
static inline int kavh_ep_xlate(struct kavh_ep *ep, fi_addr_t addr,
				fi_addr_t *core)
{
	return kavh_xlate(__atomic_load_n(&ep->av, __ATOMIC_RELAXED), addr,
			  core);
}

/* A receive's source: translated only when the endpoint is directed. */
static inline int kavh_ep_src(struct kavh_ep *ep, fi_addr_t addr,
			      fi_addr_t *core, bool tagged)
{
	if (!(tagged ? ep->directed_tagged : ep->directed_msg)) {
		*core = addr;
		return 0;
	}
	return kavh_ep_xlate(ep, addr, core);
}

/*
 * A receive restricted to an auth key's addresses (FI_AUTH_KEY): the
 * handle is kav's, and the core's AV holds no keys to restrict by, so
 * the hook can neither pass it on nor honour it. Refused rather than
 * widened to every sender. With FI_ADDR_UNSPEC (any sender, fi_msg(3))
 * there is nothing to restrict: the flag is dropped.
 */
static inline int kavh_recv_auth_key(uint64_t *flags, fi_addr_t src)
{
	if (kavh_likely(!(*flags & FI_AUTH_KEY)))
		return 0;
	if (src == FI_ADDR_UNSPEC) {
		*flags &= ~FI_AUTH_KEY;
		return 0;
	}
	FI_WARN_SPARSE(&kavh_prov, FI_LOG_EP_DATA,
		       "receives restricted to an auth key (FI_AUTH_KEY) are not supported under FI_HOOK=kav: the core provider holds no kav keys\n");
	return -FI_ENOSYS;
}

/* fi_msg */

static ssize_t kavh_recv(struct fid_ep *ep_fid, void *buf, size_t len,
			 void *desc, fi_addr_t src, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_src(ep, src, &core, false);
	if (kavh_unlikely(ret))
		return ret;
	return fi_recv(ep->core, buf, len, desc, core, context);
}

static ssize_t kavh_recvv(struct fid_ep *ep_fid, const struct iovec *iov,
			  void **desc, size_t count, fi_addr_t src,
			  void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_src(ep, src, &core, false);
	if (kavh_unlikely(ret))
		return ret;
	return fi_recvv(ep->core, iov, desc, count, core, context);
}

static ssize_t kavh_recvmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			    uint64_t flags)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	struct fi_msg m = *msg;
	int ret;

	ret = kavh_recv_auth_key(&flags, msg->addr);
	if (!ret)
		ret = kavh_ep_src(ep, msg->addr, &m.addr, false);
	if (kavh_unlikely(ret))
		return ret;
	return fi_recvmsg(ep->core, &m, flags);
}

static ssize_t kavh_send(struct fid_ep *ep_fid, const void *buf, size_t len,
			 void *desc, fi_addr_t dest, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_send(ep->core, buf, len, desc, core, context);
}

static ssize_t kavh_sendv(struct fid_ep *ep_fid, const struct iovec *iov,
			  void **desc, size_t count, fi_addr_t dest,
			  void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_sendv(ep->core, iov, desc, count, core, context);
}

static ssize_t kavh_sendmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			    uint64_t flags)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	struct fi_msg m = *msg;
	int ret;

	ret = kavh_ep_xlate(ep, msg->addr, &m.addr);
	if (kavh_unlikely(ret))
		return ret;
	return fi_sendmsg(ep->core, &m, flags);
}

static ssize_t kavh_inject(struct fid_ep *ep_fid, const void *buf, size_t len,
			   fi_addr_t dest)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_inject(ep->core, buf, len, core);
}

static ssize_t kavh_senddata(struct fid_ep *ep_fid, const void *buf,
			     size_t len, void *desc, uint64_t data,
			     fi_addr_t dest, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_senddata(ep->core, buf, len, desc, data, core, context);
}

static ssize_t kavh_injectdata(struct fid_ep *ep_fid, const void *buf,
			       size_t len, uint64_t data, fi_addr_t dest)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_injectdata(ep->core, buf, len, data, core);
}

struct fi_ops_msg kavh_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = kavh_recv,
	.recvv = kavh_recvv,
	.recvmsg = kavh_recvmsg,
	.send = kavh_send,
	.sendv = kavh_sendv,
	.sendmsg = kavh_sendmsg,
	.inject = kavh_inject,
	.senddata = kavh_senddata,
	.injectdata = kavh_injectdata,
};

/* fi_tagged */

static ssize_t kavh_trecv(struct fid_ep *ep_fid, void *buf, size_t len,
			  void *desc, fi_addr_t src, uint64_t tag,
			  uint64_t ignore, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_src(ep, src, &core, true);
	if (kavh_unlikely(ret))
		return ret;
	return fi_trecv(ep->core, buf, len, desc, core, tag, ignore, context);
}

static ssize_t kavh_trecvv(struct fid_ep *ep_fid, const struct iovec *iov,
			   void **desc, size_t count, fi_addr_t src,
			   uint64_t tag, uint64_t ignore, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_src(ep, src, &core, true);
	if (kavh_unlikely(ret))
		return ret;
	return fi_trecvv(ep->core, iov, desc, count, core, tag, ignore,
			 context);
}

static ssize_t kavh_trecvmsg(struct fid_ep *ep_fid,
			     const struct fi_msg_tagged *msg, uint64_t flags)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	struct fi_msg_tagged m = *msg;
	int ret;

	ret = kavh_recv_auth_key(&flags, msg->addr);
	if (!ret)
		ret = kavh_ep_src(ep, msg->addr, &m.addr, true);
	if (kavh_unlikely(ret))
		return ret;
	return fi_trecvmsg(ep->core, &m, flags);
}

static ssize_t kavh_tsend(struct fid_ep *ep_fid, const void *buf, size_t len,
			  void *desc, fi_addr_t dest, uint64_t tag,
			  void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_tsend(ep->core, buf, len, desc, core, tag, context);
}

static ssize_t kavh_tsendv(struct fid_ep *ep_fid, const struct iovec *iov,
			   void **desc, size_t count, fi_addr_t dest,
			   uint64_t tag, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_tsendv(ep->core, iov, desc, count, core, tag, context);
}

static ssize_t kavh_tsendmsg(struct fid_ep *ep_fid,
			     const struct fi_msg_tagged *msg, uint64_t flags)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	struct fi_msg_tagged m = *msg;
	int ret;

	ret = kavh_ep_xlate(ep, msg->addr, &m.addr);
	if (kavh_unlikely(ret))
		return ret;
	return fi_tsendmsg(ep->core, &m, flags);
}

static ssize_t kavh_tinject(struct fid_ep *ep_fid, const void *buf,
			    size_t len, fi_addr_t dest, uint64_t tag)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_tinject(ep->core, buf, len, core, tag);
}

static ssize_t kavh_tsenddata(struct fid_ep *ep_fid, const void *buf,
			      size_t len, void *desc, uint64_t data,
			      fi_addr_t dest, uint64_t tag, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_tsenddata(ep->core, buf, len, desc, data, core, tag,
			    context);
}

static ssize_t kavh_tinjectdata(struct fid_ep *ep_fid, const void *buf,
				size_t len, uint64_t data, fi_addr_t dest,
				uint64_t tag)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_tinjectdata(ep->core, buf, len, data, core, tag);
}

struct fi_ops_tagged kavh_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = kavh_trecv,
	.recvv = kavh_trecvv,
	.recvmsg = kavh_trecvmsg,
	.send = kavh_tsend,
	.sendv = kavh_tsendv,
	.sendmsg = kavh_tsendmsg,
	.inject = kavh_tinject,
	.senddata = kavh_tsenddata,
	.injectdata = kavh_tinjectdata,
};

/* fi_rma */

static ssize_t kavh_read(struct fid_ep *ep_fid, void *buf, size_t len,
			 void *desc, fi_addr_t src, uint64_t addr,
			 uint64_t key, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, src, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_read(ep->core, buf, len, desc, core, addr, key, context);
}

static ssize_t kavh_readv(struct fid_ep *ep_fid, const struct iovec *iov,
			  void **desc, size_t count, fi_addr_t src,
			  uint64_t addr, uint64_t key, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, src, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_readv(ep->core, iov, desc, count, core, addr, key, context);
}

static ssize_t kavh_readmsg(struct fid_ep *ep_fid,
			    const struct fi_msg_rma *msg, uint64_t flags)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	struct fi_msg_rma m = *msg;
	int ret;

	ret = kavh_ep_xlate(ep, msg->addr, &m.addr);
	if (kavh_unlikely(ret))
		return ret;
	return fi_readmsg(ep->core, &m, flags);
}

static ssize_t kavh_write(struct fid_ep *ep_fid, const void *buf, size_t len,
			  void *desc, fi_addr_t dest, uint64_t addr,
			  uint64_t key, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_write(ep->core, buf, len, desc, core, addr, key, context);
}

static ssize_t kavh_writev(struct fid_ep *ep_fid, const struct iovec *iov,
			   void **desc, size_t count, fi_addr_t dest,
			   uint64_t addr, uint64_t key, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_writev(ep->core, iov, desc, count, core, addr, key,
			 context);
}

static ssize_t kavh_writemsg(struct fid_ep *ep_fid,
			     const struct fi_msg_rma *msg, uint64_t flags)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	struct fi_msg_rma m = *msg;
	int ret;

	ret = kavh_ep_xlate(ep, msg->addr, &m.addr);
	if (kavh_unlikely(ret))
		return ret;
	return fi_writemsg(ep->core, &m, flags);
}

static ssize_t kavh_rma_inject(struct fid_ep *ep_fid, const void *buf,
			       size_t len, fi_addr_t dest, uint64_t addr,
			       uint64_t key)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_inject_write(ep->core, buf, len, core, addr, key);
}

static ssize_t kavh_writedata(struct fid_ep *ep_fid, const void *buf,
			      size_t len, void *desc, uint64_t data,
			      fi_addr_t dest, uint64_t addr, uint64_t key,
			      void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_writedata(ep->core, buf, len, desc, data, core, addr, key,
			    context);
}

static ssize_t kavh_rma_injectdata(struct fid_ep *ep_fid, const void *buf,
				   size_t len, uint64_t data, fi_addr_t dest,
				   uint64_t addr, uint64_t key)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_inject_writedata(ep->core, buf, len, data, core, addr, key);
}

struct fi_ops_rma kavh_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = kavh_read,
	.readv = kavh_readv,
	.readmsg = kavh_readmsg,
	.write = kavh_write,
	.writev = kavh_writev,
	.writemsg = kavh_writemsg,
	.inject = kavh_rma_inject,
	.writedata = kavh_writedata,
	.injectdata = kavh_rma_injectdata,
};

/* fi_atomic */

static ssize_t kavh_atomic(struct fid_ep *ep_fid, const void *buf,
			   size_t count, void *desc, fi_addr_t dest,
			   uint64_t addr, uint64_t key,
			   enum fi_datatype datatype, enum fi_op op,
			   void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_atomic(ep->core, buf, count, desc, core, addr, key, datatype,
			 op, context);
}

static ssize_t kavh_atomicv(struct fid_ep *ep_fid, const struct fi_ioc *iov,
			    void **desc, size_t count, fi_addr_t dest,
			    uint64_t addr, uint64_t key,
			    enum fi_datatype datatype, enum fi_op op,
			    void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_atomicv(ep->core, iov, desc, count, core, addr, key,
			  datatype, op, context);
}

static ssize_t kavh_atomicmsg(struct fid_ep *ep_fid,
			      const struct fi_msg_atomic *msg, uint64_t flags)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	struct fi_msg_atomic m = *msg;
	int ret;

	ret = kavh_ep_xlate(ep, msg->addr, &m.addr);
	if (kavh_unlikely(ret))
		return ret;
	return fi_atomicmsg(ep->core, &m, flags);
}

static ssize_t kavh_atomic_inject(struct fid_ep *ep_fid, const void *buf,
				  size_t count, fi_addr_t dest, uint64_t addr,
				  uint64_t key, enum fi_datatype datatype,
				  enum fi_op op)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_inject_atomic(ep->core, buf, count, core, addr, key,
				datatype, op);
}

static ssize_t kavh_fetch(struct fid_ep *ep_fid, const void *buf,
			  size_t count, void *desc, void *result,
			  void *result_desc, fi_addr_t dest, uint64_t addr,
			  uint64_t key, enum fi_datatype datatype,
			  enum fi_op op, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_fetch_atomic(ep->core, buf, count, desc, result,
			       result_desc, core, addr, key, datatype, op,
			       context);
}

static ssize_t kavh_fetchv(struct fid_ep *ep_fid, const struct fi_ioc *iov,
			   void **desc, size_t count, struct fi_ioc *resultv,
			   void **result_desc, size_t result_count,
			   fi_addr_t dest, uint64_t addr, uint64_t key,
			   enum fi_datatype datatype, enum fi_op op,
			   void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_fetch_atomicv(ep->core, iov, desc, count, resultv,
				result_desc, result_count, core, addr, key,
				datatype, op, context);
}

static ssize_t kavh_fetchmsg(struct fid_ep *ep_fid,
			     const struct fi_msg_atomic *msg,
			     struct fi_ioc *resultv, void **result_desc,
			     size_t result_count, uint64_t flags)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	struct fi_msg_atomic m = *msg;
	int ret;

	ret = kavh_ep_xlate(ep, msg->addr, &m.addr);
	if (kavh_unlikely(ret))
		return ret;
	return fi_fetch_atomicmsg(ep->core, &m, resultv, result_desc,
				  result_count, flags);
}

static ssize_t kavh_compare(struct fid_ep *ep_fid, const void *buf,
			    size_t count, void *desc, const void *compare,
			    void *compare_desc, void *result,
			    void *result_desc, fi_addr_t dest, uint64_t addr,
			    uint64_t key, enum fi_datatype datatype,
			    enum fi_op op, void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_compare_atomic(ep->core, buf, count, desc, compare,
				 compare_desc, result, result_desc, core, addr,
				 key, datatype, op, context);
}

static ssize_t kavh_comparev(struct fid_ep *ep_fid, const struct fi_ioc *iov,
			     void **desc, size_t count,
			     const struct fi_ioc *comparev,
			     void **compare_desc, size_t compare_count,
			     struct fi_ioc *resultv, void **result_desc,
			     size_t result_count, fi_addr_t dest,
			     uint64_t addr, uint64_t key,
			     enum fi_datatype datatype, enum fi_op op,
			     void *context)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	fi_addr_t core;
	int ret;

	ret = kavh_ep_xlate(ep, dest, &core);
	if (kavh_unlikely(ret))
		return ret;
	return fi_compare_atomicv(ep->core, iov, desc, count, comparev,
				  compare_desc, compare_count, resultv,
				  result_desc, result_count, core, addr, key,
				  datatype, op, context);
}

static ssize_t kavh_comparemsg(struct fid_ep *ep_fid,
			       const struct fi_msg_atomic *msg,
			       const struct fi_ioc *comparev,
			       void **compare_desc, size_t compare_count,
			       struct fi_ioc *resultv, void **result_desc,
			       size_t result_count, uint64_t flags)
{
	struct kavh_ep *ep = kavh_ep(ep_fid);
	struct fi_msg_atomic m = *msg;
	int ret;

	ret = kavh_ep_xlate(ep, msg->addr, &m.addr);
	if (kavh_unlikely(ret))
		return ret;
	return fi_compare_atomicmsg(ep->core, &m, comparev, compare_desc,
				    compare_count, resultv, result_desc,
				    result_count, flags);
}

static int kavh_atomic_valid(struct fid_ep *ep, enum fi_datatype datatype,
			     enum fi_op op, size_t *count)
{
	return fi_atomicvalid(kavh_ep(ep)->core, datatype, op, count);
}

static int kavh_fetch_valid(struct fid_ep *ep, enum fi_datatype datatype,
			    enum fi_op op, size_t *count)
{
	return fi_fetch_atomicvalid(kavh_ep(ep)->core, datatype, op, count);
}

static int kavh_compare_valid(struct fid_ep *ep, enum fi_datatype datatype,
			      enum fi_op op, size_t *count)
{
	return fi_compare_atomicvalid(kavh_ep(ep)->core, datatype, op, count);
}

struct fi_ops_atomic kavh_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = kavh_atomic,
	.writev = kavh_atomicv,
	.writemsg = kavh_atomicmsg,
	.inject = kavh_atomic_inject,
	.readwrite = kavh_fetch,
	.readwritev = kavh_fetchv,
	.readwritemsg = kavh_fetchmsg,
	.compwrite = kavh_compare,
	.compwritev = kavh_comparev,
	.compwritemsg = kavh_comparemsg,
	.writevalid = kavh_atomic_valid,
	.readwritevalid = kavh_fetch_valid,
	.compwritevalid = kavh_compare_valid,
};
