/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libkav internals: AV sets (av_set.c). The objects that keep a kav AV
 * open (AV sets, peer AVs) count in av.c's child registry (kav_priv.h).
 *
 * Wiring in av_ops.c:	kav_av_ops.av_set = kav_av_set_open;
 */
#ifndef KAV_SET_PRIV_H
#define KAV_SET_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_collective.h>

struct kav_fid_av;

/*
 * fi_av_set() on a kav AV (struct fi_ops_av.av_set). See av_set.c for the
 * attribute rules and errors.
 */
int kav_av_set_open(struct fid_av *av, struct fi_av_set_attr *attr,
		    struct fid_av_set **set, void *context);

/* True when @fid is an AV set from kav_av_set_open(). */
bool kav_av_set_is(const struct fid *fid);
/* The kav AV behind a kav AV set (NULL for anything else). */
struct kav_fid_av *kav_av_set_av(struct fid_av_set *set);

/*
 * Pin @set (a peer AV set refers to it): fi_close() of the set fails with
 * -FI_EBUSY until as many releases. 0 or -FI_EINVAL (not a kav set).
 */
int kav_av_set_hold(struct fid_av_set *set);
void kav_av_set_release(struct fid_av_set *set);

/*
 * Copy the members, in set order, to @addr[0..*count). *count is set to
 * the number of members; -FI_ETOOSMALL (nothing copied) when the input
 * *count is smaller. @addr may be NULL when *count is 0. 0 on success.
 */
int kav_av_set_members(struct fid_av_set *set, fi_addr_t *addr,
		       size_t *count);

#endif /* KAV_SET_PRIV_H */
