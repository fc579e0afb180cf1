/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A pretend collective-offload provider, the "peer" of fi_peer(3), for
 * testing kav as the owner of peer AVs and peer AV sets. It depends only
 * on libfabric's headers and <kav/kav_peer.h> (for the fi_peer(3)
 * structures), never on libkav internals: everything it learns comes
 * through the owner_ops kav hands it, as a real offload provider would.
 *
 * Two levels:
 *  - mock_peer_av_open() / fi_av_set() on the AV it returns: the calls an
 *    owner makes on a peer provider (FI_PEER flag, peer context), with the
 *    checks a provider must make. The returned objects stay open until
 *    fi_close(), so tests can check what the owner does meanwhile (e.g.
 *    that the kav AV cannot be closed).
 *  - mock_peer_import_av() / mock_peer_import_av_set(): open, exercise
 *    every owner op, record what came back in a report, close.
 *
 * And a mock endpoint whose fi_getname() returns a chosen address, so
 * owner_ops->ep_addr() can be tested without a fabric provider.
 */
#ifndef MOCK_PEER_H
#define MOCK_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_collective.h>
#include <kav/kav_peer.h>

/* ------------------------------------------------------------ mock EP */

#define MOCK_EP_NAME_MAX	512

struct mock_ep {
	struct fid_ep ep;		/* first: pass &m->ep */
	struct fi_ops fi_ops;
	struct fi_ops_cm cm;
	uint8_t name[MOCK_EP_NAME_MAX];
	size_t namelen;
	int getname_ret;		/* when non-zero, getname fails so */
	unsigned int getname_calls;
};

/*
 * An endpoint whose fi_getname() returns @name (@namelen bytes, at most
 * MOCK_EP_NAME_MAX), with libfabric's convention: a buffer smaller than
 * the name gets -FI_ETOOSMALL and *addrlen = namelen. Only cm->getname is
 * implemented; fi_close() on it is a no-op.
 */
void mock_ep_init(struct mock_ep *m, const void *name, size_t namelen);

/* ------------------------------------------------------------ peer AV */

struct mock_peer_av {
	struct fid_av av_fid;		/* first */
	struct fid_peer_av *owner;	/* saved from fi_peer_av_context */
	struct fi_av_attr owner_attr;	/* owner_ops->query() at open */
	size_t open_sets;		/* AV sets opened on it, still open */
};

/*
 * The peer's fi_av_open(): shaped like struct fi_ops_domain.av_open so it
 * could sit in a mock domain; @domain is not used (may be NULL). Needs
 * attr->flags & FI_PEER and @context pointing to a struct
 * fi_peer_av_context of sufficient size with a non-NULL av, else
 * -FI_EINVAL (fi_peer(3): providers without peer support fail with
 * -FI_EINVAL). Calls owner_ops->query() and fails with its error.
 * The returned AV supports only fi_av_set() (with FI_PEER, below) and
 * fi_close() (-FI_EBUSY while AV sets opened on it are open).
 */
int mock_peer_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		      struct fid_av **av, void *context);

/* ------------------------------------------------------- peer AV set */

struct mock_peer_av_set {
	struct fid_av_set set_fid;	/* first */
	struct mock_peer_av *av;
	struct fid_peer_av_set *owner;	/* saved from fi_peer_av_set_context */
	fi_addr_t *members;		/* from owner_ops->members() */
	size_t count;
	/* The size probe: members(owner, NULL, &0). */
	int probe_ret;
	size_t probe_count;
	/* A one-short array (only when count >= 2), then checked untouched. */
	bool short_tried;
	int short_ret;
	size_t short_count;
	bool short_untouched;
};

/*
 * fi_av_set() on a mock peer AV (struct fi_ops_av.av_set): needs
 * attr->flags & FI_PEER (the same bit as FI_ALLREDUCE_SET, so the
 * context is what really marks an import) and @context pointing to a struct
 * fi_peer_av_set_context with a non-NULL av_set (a struct
 * fid_peer_av_set * stored through libfabric's "struct fi_peer_av_set *"
 * member). Fetches the members: a size probe (count 0), a one-short
 * array when there are two or more, then an array of the size reported.
 * Fails with the owner's error if the final call fails, or -FI_EIO when
 * the owner's answers disagree with fi_peer(3) (probe not -FI_ETOOSMALL
 * with a non-empty set, short array written to, counts inconsistent).
 * The set's fi_av_set_* ops return -FI_ENOSYS; fi_close() frees it.
 */
int mock_peer_av_set_open(struct fid_av *av, struct fi_av_set_attr *attr,
			  struct fid_av_set **set, void *context);

/* --------------------------------------------------------- one-shots */

struct mock_peer_av_report {
	int open_ret;			/* mock_peer_av_open() */
	struct fi_av_attr attr;		/* owner_ops->query() */
	int query_ret;			/* a second query, after open */
	fi_addr_t ep_addr;		/* owner_ops->ep_addr(ep), if ep */
	int close_ret;
};

/*
 * Import @ctx->av as the peer would (FI_PEER open), query it, ask for
 * @ep's fi_addr when @ep is not NULL (else ep_addr = FI_ADDR_NOTAVAIL),
 * close. Returns open_ret, or query_ret, or close_ret: the first non-zero.
 */
int mock_peer_import_av(struct fi_peer_av_context *ctx, struct fid_ep *ep,
			struct mock_peer_av_report *rep);

struct mock_peer_set_report {
	int av_open_ret;		/* the peer AV it opens the set on */
	int set_open_ret;		/* mock_peer_av_set_open() */
	int probe_ret;
	size_t probe_count;
	bool short_tried;
	int short_ret;
	size_t short_count;
	bool short_untouched;
	fi_addr_t *members;		/* malloc'd; mock_peer_report_free() */
	size_t count;
	int close_ret;
};

/*
 * Open a mock peer AV over @av_ctx, then a peer AV set on it over
 * @set_ctx, record everything members() said, close both. Returns the
 * first non-zero of av_open_ret, set_open_ret, close_ret.
 */
int mock_peer_import_av_set(struct fi_peer_av_context *av_ctx,
			    struct fi_peer_av_set_context *set_ctx,
			    struct mock_peer_set_report *rep);
void mock_peer_report_free(struct mock_peer_set_report *rep);

#endif /* MOCK_PEER_H */
