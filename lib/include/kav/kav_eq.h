/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * <kav/kav_eq.h> - event queues for kav AVs (included by <kav/kav.h>).
 *
 * libkav is not a fabric provider, so there is no fi_fabric() whose
 * eq_open an application could call. kav_eq_open() is that entry point: it
 * returns a genuine struct fid_eq, and libfabric's inline calls
 * (fi_eq_read, fi_eq_readerr, fi_eq_sread, fi_eq_write, fi_eq_strerror,
 * fi_close) dispatch into it. Its one use in kav is the deprecated
 * asynchronous AV (fi_av_open() with FI_EVENT, then fi_av_bind()):
 *
 *	struct fi_eq_attr eq_attr = { .wait_obj = FI_WAIT_UNSPEC };
 *	struct fid_eq *eq;
 *	kav_eq_open(dom, &eq_attr, &eq, NULL);
 *	attr.flags = FI_EVENT;
 *	fi_av_open(dom, &attr, &av, NULL);
 *	fi_av_bind(av, &eq->fid, 0);
 *	fi_av_insert(av, addrs, n, fi_addrs, 0, my_ctx);
 *	ret = fi_eq_sread(eq, &event, &entry, sizeof(entry), -1, 0);
 *	if (ret == -FI_EAVAIL)
 *		fi_eq_readerr(eq, &err, 0);   (err.data: index of the failed
 *	                                         address; err.err: why)
 *	else  (event == FI_AV_COMPLETE, entry.data: number inserted)
 *
 * Events
 *   FI_AV_COMPLETE   struct fi_eq_entry: fid = the AV's fid, context =
 *                    the insert call's context, data = addresses inserted.
 *   error            struct fi_eq_err_entry: fid = the AV's fid, context =
 *                    the insert's context, data = index of the failed
 *                    address in the insert call, err = positive fabric
 *                    errno, prov_errno = 0, no err_data.
 *   user events      whatever fi_eq_write() wrote (FI_WRITE EQs only).
 *
 * Ordering: one FIFO holds completions and errors together, in the order
 * they were posted. An insert posts its errors before its completion, so
 * they are read first. fi_eq_read() and fi_eq_sread() return -FI_EAVAIL
 * while the next event is an error; fi_eq_readerr() returns -FI_EAGAIN
 * while the next event is not one.
 *
 * Objects are thread-safe (one mutex per EQ).
 */
#ifndef KAV_KAV_EQ_H
#define KAV_KAV_EQ_H

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Capacity of an EQ opened with attr->size == 0 (or attr == NULL). */
#define KAV_EQ_DEFAULT_SIZE	1024

/**
 * kav_eq_open() - open an event queue on a kav domain
 * @domain: a domain from kav_domain_open()
 * @attr: NULL for the defaults (same as a zeroed struct fi_eq_attr), else:
 *	@size: capacity; 0 means KAV_EQ_DEFAULT_SIZE
 *	@flags: 0, FI_WRITE (fi_eq_write() allowed) and/or FI_AFFINITY
 *		(accepted; signaling_vector is ignored)
 *	@wait_obj: FI_WAIT_NONE (default; fi_eq_sread() fails with
 *		-FI_ENOSYS) or FI_WAIT_UNSPEC (fi_eq_sread() blocks on an
 *		internal condition variable). FI_WAIT_FD, FI_WAIT_MUTEX_COND,
 *		FI_WAIT_YIELD, FI_WAIT_POLLFD and FI_WAIT_SET: -FI_ENOSYS.
 *	@wait_set: ignored
 * @eq: out: the EQ; release it with fi_close(&(*eq)->fid)
 * @context: stored in (*eq)->fid.context
 *
 * Capacity: fi_eq_write() on an EQ holding @size events or more fails
 * with -FI_EAGAIN. Events kav itself posts (AV completions and errors)
 * are never refused or dropped: the queue grows past @size for them,
 * because the insert they report has already happened. If that growth
 * cannot be allocated, the EQ is overrun (fi_eq(3), NOTES): it delivers
 * the events it holds, then reports one error event with err ==
 * FI_EOVERRUN (fid = the EQ) for good; fi_eq_write() then fails with
 * -FI_EOVERRUN.
 *
 * fi_eq_read() / fi_eq_sread(): flags 0 or FI_PEEK (-FI_EINVAL else);
 * -FI_EAGAIN when empty (sread: when the timeout, in ms, expires; a
 * negative timeout waits for ever); -FI_ETOOSMALL, with the event left in
 * place, when len is smaller than the event; -FI_EINVAL for a NULL buf.
 * @event may be NULL. Returns the event's size in bytes.
 *
 * fi_eq_readerr(): flags 0 or FI_PEEK; returns
 * sizeof(struct fi_eq_err_entry). kav errors carry no err_data: on return
 * err_data_size is 0, and err_data is NULL when err_data_size was 0 on
 * input (otherwise the caller's pointer is left as it was).
 *
 * fi_eq_write(): flags must be 0; 1 <= len <= 65536; returns len.
 * -FI_ENOSYS unless opened with FI_WRITE.
 *
 * fi_eq_strerror(): kav_strerror(prov_errno), copied to buf when buf and
 * len are given (NUL-terminated, truncated), which is then returned.
 *
 * fi_close(): -FI_EBUSY while an AV is bound to the EQ; events still
 * queued are discarded.
 *
 * fi_control(), fi_eq_bind: -FI_ENOSYS (there is no wait object to get).
 *
 * Return: 0; -FI_EINVAL (NULL @domain or @eq, not a kav domain, unknown
 * flags or wait object); -FI_ENOSYS (a wait object kav does not offer);
 * -FI_ENOMEM.
 */
int kav_eq_open(struct fid_domain *domain, struct fi_eq_attr *attr,
		struct fid_eq **eq, void *context);

#ifdef __cplusplus
}
#endif

#endif /* KAV_KAV_EQ_H */
