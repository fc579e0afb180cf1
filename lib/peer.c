// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Peer AVs and peer AV sets (fi_peer(3)), kav being the owner: small fids
 * that link back to a kav AV or AV set and answer the peer provider's
 * owner_ops from it. <kav/kav_peer.h> documents the behaviour.
 */
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"
#include "kav_set_priv.h"
#include <kav/kav_peer.h>

struct kav_peer_av {
	struct fid_peer_av peer;	/* first */
	struct kav_fid_av *av;
};

struct kav_peer_av_set {
	struct fid_peer_av_set peer;	/* first */
	struct fid_av_set *set;
};

_Static_assert(offsetof(struct kav_peer_av, peer) == 0, "fid first");
_Static_assert(offsetof(struct kav_peer_av_set, peer) == 0, "fid first");

/* ------------------------------------------------------------ peer AV */

static int kav_peer_av_query(struct fid_peer_av *peer, struct fi_av_attr *attr)
{
	struct kav_peer_av *p = (struct kav_peer_av *)peer;

	if (!peer || !attr)
		return -FI_EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->type = FI_AV_TABLE;
	attr->count = (size_t)kav_table_nr_slots(&p->av->table);
	attr->rx_ctx_bits = p->av->rx_ctx_bits;
	attr->flags = p->av->flags;
	return 0;
}

static fi_addr_t kav_peer_av_ep_addr(struct fid_peer_av *peer,
				     struct fid_ep *ep)
{
	struct kav_peer_av *p = (struct kav_peer_av *)peer;
	/* One spare zero byte: an FI_ADDR_STR name is always terminated. */
	uint8_t name[KAV_ADDR_MAX_LEN + 1] = { 0 };
	uint8_t want[KAV_ADDR_MAX_LEN], got[KAV_ADDR_MAX_LEN];
	struct kav_entry_snap snap;
	struct kav_fid_av *av;
	size_t len = KAV_ADDR_MAX_LEN, slot;
	uint64_t nr, i;

	if (!peer || !ep || !ep->cm || !ep->cm->getname)
		return FI_ADDR_NOTAVAIL;
	av = p->av;
	slot = av->slot_size;
	if (fi_getname(&ep->fid, name, &len) || !len ||
	    len > KAV_ADDR_MAX_LEN) {
		kav_debug("peer ep_addr: fi_getname failed or gave %zu bytes",
			  len);
		return FI_ADDR_NOTAVAIL;
	}
	/* The name in the form the table stores (padding zeroed). */
	if (kav_addr_stage(av->addr_format, name, want, slot))
		return FI_ADDR_NOTAVAIL;
	nr = kav_table_nr_slots(&av->table);
	for (i = 0; i < nr; i++) {
		if (kav_table_read_entry(&av->table, i, &snap) ||
		    !(snap.flags & KAV_ENTRY_VALID))
			continue;
		memset(got, 0, slot);
		memcpy(got, snap.addr, KAV_MIN((size_t)snap.addr_len, slot));
		if (!memcmp(got, want, slot))
			return i;
	}
	return FI_ADDR_NOTAVAIL;
}

static int kav_peer_av_close(struct fid *fid)
{
	struct kav_peer_av *p = (struct kav_peer_av *)fid;

	kav_av_child_put(p->av);
	free(p);
	return 0;
}

static struct fi_ops kav_peer_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kav_peer_av_close,
	.bind = kav_no_bind,
	.control = kav_no_control,
	.ops_open = kav_no_ops_open,
	.tostr = kav_no_tostr,
	.ops_set = kav_no_ops_set,
};

static struct fi_ops_av_owner kav_peer_av_owner_ops = {
	.size = sizeof(struct fi_ops_av_owner),
	.query = kav_peer_av_query,
	.ep_addr = kav_peer_av_ep_addr,
};

KAV_API int kav_av_peer_open(struct fid_av *av_fid, struct fid_peer_av **out)
{
	struct kav_fid_av *av = kav_av_from_fid(av_fid);
	struct kav_peer_av *p;
	int ret;

	if (!av || !out)
		return -FI_EINVAL;
	/* A job AV's fi_addrs are the process's view, not the table's. */
	if (av->job) {
		kav_err_clear();
		kav_refuse("kav_av_peer_open: not on a job AV "
			   "(kav_av_open_job)");
		return -FI_EOPNOTSUPP;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -FI_ENOMEM;
	ret = kav_av_child_get(av);
	if (ret) {
		free(p);
		return ret;
	}
	p->av = av;
	p->peer.fid.fclass = FI_CLASS_PEER_AV;
	p->peer.fid.context = NULL;
	p->peer.fid.ops = &kav_peer_av_fi_ops;
	p->peer.owner_ops = &kav_peer_av_owner_ops;
	*out = &p->peer;
	return 0;
}

/* -------------------------------------------------------- peer AV set */

static int kav_peer_set_members(struct fid_peer_av_set *peer, fi_addr_t *addr,
				size_t *count)
{
	if (!peer)
		return -FI_EINVAL;
	return kav_av_set_members(((struct kav_peer_av_set *)peer)->set, addr,
				  count);
}

static int kav_peer_set_close(struct fid *fid)
{
	struct kav_peer_av_set *p = (struct kav_peer_av_set *)fid;

	kav_av_set_release(p->set);
	free(p);
	return 0;
}

static struct fi_ops kav_peer_set_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = kav_peer_set_close,
	.bind = kav_no_bind,
	.control = kav_no_control,
	.ops_open = kav_no_ops_open,
	.tostr = kav_no_tostr,
	.ops_set = kav_no_ops_set,
};

static struct fi_ops_av_set_owner kav_peer_set_owner_ops = {
	.size = sizeof(struct fi_ops_av_set_owner),
	.members = kav_peer_set_members,
};

KAV_API int kav_av_set_peer_open(struct fid_av_set *set,
				 struct fid_peer_av_set **out)
{
	struct kav_peer_av_set *p;
	int ret;

	if (!set || !out || !kav_av_set_is(&set->fid))
		return -FI_EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -FI_ENOMEM;
	ret = kav_av_set_hold(set);
	if (ret) {
		free(p);
		return ret;
	}
	p->set = set;
	p->peer.fid.fclass = FI_CLASS_PEER_AV_SET;
	p->peer.fid.context = NULL;
	p->peer.fid.ops = &kav_peer_set_fi_ops;
	p->peer.owner_ops = &kav_peer_set_owner_ops;
	*out = &p->peer;
	return 0;
}
