// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* A pretend offload provider importing peer AVs and AV sets: mock_peer.h */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_errno.h>

#include "mock_peer.h"

/* libfabric 1.x's <rdma/fabric.h> had container_of; 2.x dropped it. */
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/* ------------------------------------------------------------ mock EP */

static int mock_ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct mock_ep *m = container_of(fid, struct mock_ep, ep.fid);

	m->getname_calls++;
	if (m->getname_ret)
		return m->getname_ret;
	if (!addrlen)
		return -FI_EINVAL;
	if (*addrlen < m->namelen || !addr) {
		*addrlen = m->namelen;
		return -FI_ETOOSMALL;
	}
	memcpy(addr, m->name, m->namelen);
	*addrlen = m->namelen;
	return 0;
}

static int mock_ep_close(struct fid *fid)
{
	(void)fid;
	return 0;
}

void mock_ep_init(struct mock_ep *m, const void *name, size_t namelen)
{
	memset(m, 0, sizeof(*m));
	if (namelen > sizeof(m->name))
		namelen = sizeof(m->name);
	if (namelen)
		memcpy(m->name, name, namelen);
	m->namelen = namelen;
	m->fi_ops.size = sizeof(m->fi_ops);
	m->fi_ops.close = mock_ep_close;
	m->cm.size = sizeof(m->cm);
	m->cm.getname = mock_ep_getname;
	m->ep.fid.fclass = FI_CLASS_EP;
	m->ep.fid.ops = &m->fi_ops;
	m->ep.cm = &m->cm;
}

/* ------------------------------------------------------- peer AV set */

static int mock_set_enosys2(struct fid_av_set *dst,
			    const struct fid_av_set *src)
{
	(void)dst; (void)src;
	return -FI_ENOSYS;
}

static int mock_set_enosys_addr(struct fid_av_set *set, fi_addr_t addr)
{
	(void)set; (void)addr;
	return -FI_ENOSYS;
}

static int mock_set_addr(struct fid_av_set *set, fi_addr_t *coll_addr)
{
	(void)set; (void)coll_addr;
	return -FI_ENOSYS;
}

static int mock_set_close(struct fid *fid)
{
	struct mock_peer_av_set *s = (struct mock_peer_av_set *)fid;

	s->av->open_sets--;
	free(s->members);
	free(s);
	return 0;
}

static struct fi_ops mock_set_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mock_set_close,
};

static struct fi_ops_av_set mock_set_ops = {
	.size = sizeof(struct fi_ops_av_set),
	.set_union = mock_set_enosys2,
	.intersect = mock_set_enosys2,
	.diff = mock_set_enosys2,
	.insert = mock_set_enosys_addr,
	.remove = mock_set_enosys_addr,
	.addr = mock_set_addr,
};

/* Ask the owner for the members the way fi_peer(3) describes. */
static int mock_fetch_members(struct mock_peer_av_set *s)
{
	struct fi_ops_av_set_owner *ops = s->owner->owner_ops;
	fi_addr_t *arr;
	size_t n = 0, i;
	int ret;

	/* Size probe. */
	s->probe_ret = ops->members(s->owner, NULL, &n);
	s->probe_count = n;
	if (s->probe_ret == 0)
		return n == 0 ? 0 : -FI_EIO;	/* 0 only for an empty set */
	if (s->probe_ret != -FI_ETOOSMALL || n == 0)
		return -FI_EIO;

	/* One short: must fail, report the size, and write nothing. */
	if (n >= 2) {
		arr = malloc((n - 1) * sizeof(*arr));
		if (!arr)
			return -FI_ENOMEM;
		for (i = 0; i < n - 1; i++)
			arr[i] = FI_ADDR_UNSPEC;
		s->short_tried = true;
		s->short_count = n - 1;
		s->short_ret = ops->members(s->owner, arr, &s->short_count);
		s->short_untouched = true;
		for (i = 0; i < n - 1; i++)
			if (arr[i] != FI_ADDR_UNSPEC)
				s->short_untouched = false;
		free(arr);
		if (s->short_ret != -FI_ETOOSMALL || s->short_count != n ||
		    !s->short_untouched)
			return -FI_EIO;
	}

	/* The right size. */
	s->members = calloc(n, sizeof(*s->members));
	if (!s->members)
		return -FI_ENOMEM;
	s->count = n;
	ret = ops->members(s->owner, s->members, &s->count);
	if (ret)
		return ret;
	return s->count == n ? 0 : -FI_EIO;
}

int mock_peer_av_set_open(struct fid_av *av_fid, struct fi_av_set_attr *attr,
			  struct fid_av_set **set, void *context)
{
	struct mock_peer_av *av = (struct mock_peer_av *)av_fid;
	struct fi_peer_av_set_context *ctx = context;
	struct mock_peer_av_set *s;
	int ret;

	if (!av_fid || !attr || !set || !(attr->flags & FI_PEER))
		return -FI_EINVAL;
	if (!ctx || ctx->size < sizeof(*ctx) || !ctx->av_set)
		return -FI_EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -FI_ENOMEM;
	s->av = av;
	/* libfabric's context names the type "struct fi_peer_av_set". */
	s->owner = (struct fid_peer_av_set *)ctx->av_set;
	if (!s->owner->owner_ops || !s->owner->owner_ops->members) {
		free(s);
		return -FI_EINVAL;
	}
	ret = mock_fetch_members(s);
	if (ret) {
		free(s->members);
		free(s);
		return ret;
	}
	s->set_fid.fid.fclass = FI_CLASS_AV_SET;
	s->set_fid.fid.ops = &mock_set_fi_ops;
	s->set_fid.ops = &mock_set_ops;
	av->open_sets++;
	*set = &s->set_fid;
	return 0;
}

/* ------------------------------------------------------------ peer AV */

static int mock_av_close(struct fid *fid)
{
	struct mock_peer_av *av = (struct mock_peer_av *)fid;

	if (av->open_sets)
		return -FI_EBUSY;
	free(av);
	return 0;
}

static int mock_av_insert(struct fid_av *av, const void *addr, size_t count,
			  fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	(void)av; (void)addr; (void)count; (void)fi_addr; (void)flags;
	(void)context;
	return -FI_ENOSYS;	/* the owner inserts, never the peer */
}

static int mock_av_remove(struct fid_av *av, fi_addr_t *fi_addr, size_t count,
			  uint64_t flags)
{
	(void)av; (void)fi_addr; (void)count; (void)flags;
	return -FI_ENOSYS;
}

static int mock_av_lookup(struct fid_av *av, fi_addr_t fi_addr, void *addr,
			  size_t *addrlen)
{
	(void)av; (void)fi_addr; (void)addr; (void)addrlen;
	return -FI_ENOSYS;
}

static struct fi_ops mock_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mock_av_close,
};

static struct fi_ops_av mock_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = mock_av_insert,
	.remove = mock_av_remove,
	.lookup = mock_av_lookup,
	.av_set = mock_peer_av_set_open,
};

int mock_peer_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		      struct fid_av **av_out, void *context)
{
	struct fi_peer_av_context *ctx = context;
	struct mock_peer_av *av;
	int ret;

	(void)domain;
	if (!attr || !av_out || !(attr->flags & FI_PEER))
		return -FI_EINVAL;
	if (!ctx || ctx->size < sizeof(*ctx) || !ctx->av ||
	    !ctx->av->owner_ops || !ctx->av->owner_ops->query ||
	    !ctx->av->owner_ops->ep_addr)
		return -FI_EINVAL;
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	/* The context is temporary; the fid_peer_av it names is not. */
	av->owner = ctx->av;
	ret = av->owner->owner_ops->query(av->owner, &av->owner_attr);
	if (ret) {
		free(av);
		return ret;
	}
	av->av_fid.fid.fclass = FI_CLASS_AV;
	av->av_fid.fid.context = NULL;
	av->av_fid.fid.ops = &mock_av_fi_ops;
	av->av_fid.ops = &mock_av_ops;
	*av_out = &av->av_fid;
	return 0;
}

/* --------------------------------------------------------- one-shots */

int mock_peer_import_av(struct fi_peer_av_context *ctx, struct fid_ep *ep,
			struct mock_peer_av_report *rep)
{
	struct fi_av_attr attr = { .flags = FI_PEER };
	struct mock_peer_av *pav;
	struct fid_av *av;

	memset(rep, 0, sizeof(*rep));
	rep->ep_addr = FI_ADDR_NOTAVAIL;
	rep->open_ret = mock_peer_av_open(NULL, &attr, &av, ctx);
	if (rep->open_ret)
		return rep->open_ret;
	pav = (struct mock_peer_av *)av;
	rep->attr = pav->owner_attr;
	rep->query_ret = pav->owner->owner_ops->query(pav->owner, &attr);
	if (ep)
		rep->ep_addr = pav->owner->owner_ops->ep_addr(pav->owner, ep);
	rep->close_ret = fi_close(&av->fid);
	return rep->query_ret ? rep->query_ret : rep->close_ret;
}

int mock_peer_import_av_set(struct fi_peer_av_context *av_ctx,
			    struct fi_peer_av_set_context *set_ctx,
			    struct mock_peer_set_report *rep)
{
	struct fi_av_attr attr = { .flags = FI_PEER };
	struct fi_av_set_attr sattr = {
		.start_addr = FI_ADDR_NOTAVAIL,
		.end_addr = FI_ADDR_NOTAVAIL,
		.flags = FI_PEER,
	};
	struct mock_peer_av_set *s;
	struct fid_av_set *set;
	struct fid_av *av;
	int ret;

	memset(rep, 0, sizeof(*rep));
	rep->av_open_ret = mock_peer_av_open(NULL, &attr, &av, av_ctx);
	if (rep->av_open_ret)
		return rep->av_open_ret;
	rep->set_open_ret = fi_av_set(av, &sattr, &set, set_ctx);
	if (rep->set_open_ret) {
		fi_close(&av->fid);
		return rep->set_open_ret;
	}
	s = (struct mock_peer_av_set *)set;
	rep->probe_ret = s->probe_ret;
	rep->probe_count = s->probe_count;
	rep->short_tried = s->short_tried;
	rep->short_ret = s->short_ret;
	rep->short_count = s->short_count;
	rep->short_untouched = s->short_untouched;
	rep->count = s->count;
	/* Hand the array over to the report. */
	rep->members = s->members;
	s->members = NULL;
	ret = fi_close(&set->fid);
	if (!ret)
		ret = fi_close(&av->fid);
	rep->close_ret = ret;
	return ret;
}

void mock_peer_report_free(struct mock_peer_set_report *rep)
{
	free(rep->members);
	rep->members = NULL;
}
