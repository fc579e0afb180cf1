/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * <kav/kav_peer.h> - sharing kav AVs and AV sets with a peer (offload)
 * provider, fi_peer(3) (included by <kav/kav.h>).
 *
 * kav is always the owner: it hands out a struct fid_peer_av (or
 * fid_peer_av_set) that links back to a kav AV (or AV set), and the owner
 * passes it to the offload provider's fi_av_open() (or fi_av_set()) with
 * the FI_PEER flag and a struct fi_peer_av_context (fi_peer_av_set_context)
 * as the context:
 *
 *	struct fid_peer_av *peer;
 *	kav_av_peer_open(av, &peer);
 *	struct fi_peer_av_context ctx = { .size = sizeof(ctx), .av = peer };
 *	struct fi_av_attr pattr = { .flags = FI_PEER };
 *	fi_av_open(offload_domain, &pattr, &offload_av, &ctx);
 *	...
 *	fi_close(&offload_av->fid);
 *	fi_close(&peer->fid);
 *
 * The peer calls peer->owner_ops->query() and ->ep_addr() (AV), or
 * ->members() (AV set). A kav AV cannot be closed (-FI_EBUSY) while a peer
 * AV made from it is open, nor a kav AV set while a peer AV set made from
 * it is open.
 *
 * Libfabric 1.17 installs no <rdma/providers/fi_peer.h>. When the
 * installed libfabric has one it is used; otherwise the definitions below
 * are libfabric's own (include/rdma/providers/fi_peer.h, the same in every
 * version checked), including its quirk: struct fi_peer_av_set_context names its
 * member "struct fi_peer_av_set *av_set", a type that is never defined,
 * so a struct fid_peer_av_set * must be cast when it is stored there:
 *
 *	struct fi_peer_av_set_context sctx = {
 *		.size = sizeof(sctx),
 *		.av_set = (struct fi_peer_av_set *)peer_set,
 *	};
 *
 * fi_peer(3) says peer AV sets are opened with "the FI_PEER_AV flag"; no
 * libfabric header defines such a flag and libfabric's providers use
 * FI_PEER for both, so kav does too. Note that FI_PEER (bit 43) is the
 * same bit as FI_ALLREDUCE_SET in fi_av_set_attr.flags: a provider's
 * fi_av_set() cannot tell the two apart from the flags alone, only from
 * its context argument.
 */
#ifndef KAV_KAV_PEER_H
#define KAV_KAV_PEER_H

#include <stddef.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_collective.h>

#if defined(__has_include)
#if __has_include(<rdma/providers/fi_peer.h>)
#include <rdma/providers/fi_peer.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef FI_PEER_H	/* libfabric's own header was not found */

struct fid_peer_av;

struct fi_ops_av_owner {
	size_t	size;
	int	(*query)(struct fid_peer_av *av, struct fi_av_attr *attr);
	fi_addr_t (*ep_addr)(struct fid_peer_av *av, struct fid_ep *ep);
};

struct fid_peer_av {
	struct fid fid;
	struct fi_ops_av_owner *owner_ops;
};

struct fi_peer_av_context {
	size_t size;
	struct fid_peer_av *av;
};

struct fid_peer_av_set;

struct fi_ops_av_set_owner {
	size_t	size;
	int	(*members)(struct fid_peer_av_set *av, fi_addr_t *addr,
			   size_t *count);
};

struct fid_peer_av_set {
	struct fid fid;
	struct fi_ops_av_set_owner *owner_ops;
};

struct fi_peer_av_set_context {
	size_t size;
	struct fi_peer_av_set *av_set;	/* sic: libfabric's spelling */
};

#endif /* !FI_PEER_H */

#ifndef FI_PEER
#define FI_PEER			(1ULL << 43)	/* as in <rdma/fabric.h> */
#endif

/**
 * kav_av_peer_open() - a peer AV (fi_peer(3)) owned by a kav AV
 * @av: a kav AV (fi_av_open() on a kav domain)
 * @peer: out: fid class FI_CLASS_PEER_AV; close with fi_close(&peer->fid)
 *	once the peer provider's AV is closed
 *
 * owner_ops->query(peer, attr) zeroes *attr and sets attr->type =
 * FI_AV_TABLE, attr->count = the AV's number of table slots (every
 * fi_addr the AV has returned is below it; entries may have been removed
 * since), and attr->rx_ctx_bits and attr->flags as the AV was opened with.
 * name and map_addr are NULL. Returns 0, or -FI_EINVAL for a NULL attr.
 *
 * owner_ops->ep_addr(peer, ep) calls fi_getname(&ep->fid, ...) and returns
 * the lowest fi_addr of a valid AV entry holding that address (compared in
 * the form the AV stores it: sockaddr_in's sin_zero ignored), or
 * FI_ADDR_NOTAVAIL when fi_getname() fails, the name is not an address of
 * the AV's format, or no entry holds it. It is a linear scan of the table:
 * O(number of slots), each read lock-free from the shared mapping. With
 * FI_AV_AUTH_KEY AVs one address may be present under several keys: the
 * lowest index wins.
 *
 * Return: 0; -FI_EINVAL (@av not a kav AV, NULL @peer); -FI_ENOMEM.
 */
int kav_av_peer_open(struct fid_av *av, struct fid_peer_av **peer);

/**
 * kav_av_set_peer_open() - a peer AV set (fi_peer(3)) owned by a kav AV set
 * @set: a kav AV set (fi_av_set() on a kav AV)
 * @peer: out: fid class FI_CLASS_PEER_AV_SET; close with
 *	fi_close(&peer->fid)
 *
 * owner_ops->members(peer, addr, count) copies the set's members, in set
 * order, to addr[0..*count) and sets *count to the number of members.
 * When the input *count is smaller, nothing is copied, *count is set to
 * the number needed and -FI_ETOOSMALL is returned (so a call with
 * *count == 0 and addr == NULL asks for the size). -FI_EINVAL for a NULL
 * count, or a NULL addr with a non-empty set.
 *
 * Return: 0; -FI_EINVAL (@set not a kav AV set, NULL @peer); -FI_ENOMEM.
 */
int kav_av_set_peer_open(struct fid_av_set *set,
			 struct fid_peer_av_set **peer);

#ifdef __cplusplus
}
#endif

#endif /* KAV_KAV_PEER_H */
