/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libkav internals: the event queue (eq.c) as seen by the AV (av.c binds,
 * av_insert.c posts).
 *
 * An AV opened with FI_EVENT is bound to a kav EQ with fi_av_bind():
 *
 *	bind:   if (!kav_eq_is(eq_fid)) return -FI_EINVAL;
 *	        ret = kav_eq_bind_av(eq);       (fi_close(eq) -> -FI_EBUSY)
 *	insert: for each failed address i:
 *	                kav_eq_post_av_error(eq, &av->fid, context, i, err);
 *	        kav_eq_post_av_complete(eq, &av->fid, context, inserted);
 *	close:  kav_eq_unbind_av(eq);
 *
 * Posting never drops an event because the EQ is full (the queue grows);
 * it fails only when that growth cannot be allocated, which puts the EQ in
 * its overrun state for good (see <kav/kav_eq.h>): -FI_EOVERRUN.
 */
#ifndef KAV_EQ_PRIV_H
#define KAV_EQ_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_eq.h>

/* True when @fid is the fid of an EQ from kav_eq_open(). */
bool kav_eq_is(const struct fid *fid);

/* Count one more AV bound to @eq. 0, or -FI_EINVAL if not a kav EQ. */
int kav_eq_bind_av(struct fid_eq *eq);
/* Undo kav_eq_bind_av(). */
void kav_eq_unbind_av(struct fid_eq *eq);

/*
 * Queue FI_AV_COMPLETE { fid = @av_fid, context = @context,
 * data = @count }. 0, -FI_EINVAL (not a kav EQ) or -FI_EOVERRUN (the
 * EQ is overrun: out of memory now or earlier).
 */
int kav_eq_post_av_complete(struct fid_eq *eq, struct fid *av_fid,
			    void *context, uint64_t count);
/*
 * Queue an error event { fid = @av_fid, context = @context,
 * data = @index, err = @err (a positive fabric errno), prov_errno = 0 }.
 * 0, -FI_EINVAL (not a kav EQ, or @err <= 0) or -FI_EOVERRUN.
 */
int kav_eq_post_av_error(struct fid_eq *eq, struct fid *av_fid,
			 void *context, uint64_t index, int err);

#ifdef KAV_TESTING
/* When non-zero, growing an EQ's queue fails as if out of memory. */
extern int kav_eq_fail_grow;
#endif

#endif /* KAV_EQ_PRIV_H */
