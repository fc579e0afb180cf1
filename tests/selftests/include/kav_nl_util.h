/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw generic netlink for the kav selftests: the family "kav" spoken with
 * plain sockets, so that a test controls every byte it sends (malformed
 * messages included) and sees exactly what the kernel answers: the errno,
 * the extack message (NLMSGERR_ATTR_MSG) and the offending attribute.
 *
 *   struct kav_nl nl;
 *   kav_nl_open(&nl);                     family and admin group ids
 *   kav_nl_grant_uid(&nl, vni, uid, &id); GRANT_ADD, the new grant's id
 *   kav_nl_grant_del(&nl, id);            GRANT_DEL (revoke)
 *   kav_nl_grants(&nl, list, max, &n);    GRANT_GET dump
 *   kav_nl_stats(&nl, &st);               STATS_GET
 *   kav_nl_close(&nl);
 *
 * Every call returns 0 or -errno; after an error nl.ext_msg holds the
 * kernel's extack text (nl.has_ext_msg says whether there was one).
 */
#ifndef KAV_NL_UTIL_H
#define KAV_NL_UTIL_H

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/kav.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK		11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK		10
#endif
#ifndef SOL_NETLINK
#define SOL_NETLINK		270
#endif

#define KAV_NL_BUF		65536

struct kav_nl {
	int fd;
	/*
	 * Send with send(), no destination address: the kernel then checks
	 * the capabilities of the socket's opener as well as the sender's
	 * (with sendto() and an address, only the sender's).
	 */
	bool no_dst;
	uint16_t family;		/* 0: not resolved */
	uint32_t mcgrp_admin;		/* 0: not found */
	uint32_t seq;
	/* The last error's extack. */
	bool has_ext_msg;
	char ext_msg[512];
	bool has_ext_offs;
	uint32_t ext_offs;		/* offending attribute, from the nlmsghdr */
	bool has_miss_type;
	uint32_t miss_type;
};

/* A message being built. */
struct kav_nl_msg {
	union {
		struct nlmsghdr nlh;
		char buf[KAV_NL_BUF];
	};
};

/* The attributes of one received message, by type. */
struct kav_nl_attrs {
	const struct nlattr *a[KAV_A_MAX + 1];
};

/* Called for each generic netlink message of a reply or dump. */
typedef int (*kav_nl_cb)(const struct nlmsghdr *nlh,
			 const struct genlmsghdr *gh,
			 const struct kav_nl_attrs *at, void *arg);

/* ---------------------------------------------------- message building */

static inline void kav_nl_msg_init(struct kav_nl_msg *m, uint16_t type,
				   uint16_t flags, uint8_t cmd,
				   uint8_t version)
{
	struct genlmsghdr *gh;

	memset(&m->nlh, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	m->nlh.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN;
	m->nlh.nlmsg_type = type;
	m->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	gh = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	gh->cmd = cmd;
	gh->version = version;
}

/* Append an attribute; the payload may have any length (malformed ones). */
static inline struct nlattr *kav_nl_put(struct kav_nl_msg *m, uint16_t type,
					const void *data, size_t len)
{
	struct nlattr *na = (struct nlattr *)(m->buf +
					      NLMSG_ALIGN(m->nlh.nlmsg_len));
	size_t total = NLA_HDRLEN + len;

	if (NLMSG_ALIGN(m->nlh.nlmsg_len) + NLA_ALIGN(total) > sizeof(m->buf))
		return NULL;
	na->nla_type = type;
	na->nla_len = (uint16_t)total;
	if (len)
		memcpy((char *)na + NLA_HDRLEN, data, len);
	memset((char *)na + total, 0, NLA_ALIGN(total) - total);
	m->nlh.nlmsg_len = NLMSG_ALIGN(m->nlh.nlmsg_len) + NLA_ALIGN(total);
	return na;
}

static inline void kav_nl_put_u8(struct kav_nl_msg *m, uint16_t type,
				 uint8_t v)
{
	kav_nl_put(m, type, &v, sizeof(v));
}

static inline void kav_nl_put_u32(struct kav_nl_msg *m, uint16_t type,
				  uint32_t v)
{
	kav_nl_put(m, type, &v, sizeof(v));
}

static inline void kav_nl_put_u64(struct kav_nl_msg *m, uint16_t type,
				  uint64_t v)
{
	kav_nl_put(m, type, &v, sizeof(v));
}

static inline void kav_nl_put_str(struct kav_nl_msg *m, uint16_t type,
				  const char *s)
{
	kav_nl_put(m, type, s, strlen(s) + 1);
}

/* A kav family request (after kav_nl_open()). */
static inline void kav_nl_req(const struct kav_nl *nl, struct kav_nl_msg *m,
			      uint8_t cmd, uint16_t flags)
{
	kav_nl_msg_init(m, nl->family, flags, cmd, KAV_GENL_VERSION);
}

/* ------------------------------------------------------------ parsing */

static inline uint32_t kav_nl_u32(const struct nlattr *a)
{
	uint32_t v = 0;

	if (a && a->nla_len >= NLA_HDRLEN + sizeof(v))
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static inline uint64_t kav_nl_u64(const struct nlattr *a)
{
	uint64_t v = 0;

	if (a && a->nla_len >= NLA_HDRLEN + sizeof(v))
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static inline const void *kav_nl_data(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

static inline int kav_nl_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

/* Index the attributes in [@p, @p + @len) by type (types above @max are
 * skipped). */
static inline void kav_nl_parse(const void *p, size_t len,
				const struct nlattr **tb, unsigned int max)
{
	const struct nlattr *na = p;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	while (len >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= len) {
		unsigned int type = na->nla_type & NLA_TYPE_MASK;

		if (type <= max)
			tb[type] = na;
		if ((size_t)NLA_ALIGN(na->nla_len) >= len)
			break;
		len -= NLA_ALIGN(na->nla_len);
		na = (const struct nlattr *)((const char *)na +
					     NLA_ALIGN(na->nla_len));
	}
}

/* Read the extack TLVs that follow an error or a DONE payload. */
static inline void kav_nl_parse_ext(struct kav_nl *nl, const void *p,
				    size_t len)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	kav_nl_parse(p, len, tb, NLMSGERR_ATTR_MAX);
	if (tb[NLMSGERR_ATTR_MSG]) {
		int n = kav_nl_len(tb[NLMSGERR_ATTR_MSG]);

		if (n > (int)sizeof(nl->ext_msg) - 1)
			n = sizeof(nl->ext_msg) - 1;
		memcpy(nl->ext_msg, kav_nl_data(tb[NLMSGERR_ATTR_MSG]), n);
		nl->ext_msg[n] = '\0';
		nl->has_ext_msg = true;
	}
	if (tb[NLMSGERR_ATTR_OFFS]) {
		nl->ext_offs = kav_nl_u32(tb[NLMSGERR_ATTR_OFFS]);
		nl->has_ext_offs = true;
	}
#ifdef NLMSGERR_ATTR_MISS_TYPE
	if (NLMSGERR_ATTR_MISS_TYPE <= NLMSGERR_ATTR_MAX &&
	    tb[NLMSGERR_ATTR_MISS_TYPE]) {
		nl->miss_type = kav_nl_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
		nl->has_miss_type = true;
	}
#endif
}

static inline void kav_nl_clear_ext(struct kav_nl *nl)
{
	nl->has_ext_msg = false;
	nl->ext_msg[0] = '\0';
	nl->has_ext_offs = false;
	nl->ext_offs = 0;
	nl->has_miss_type = false;
	nl->miss_type = 0;
}

/* ------------------------------------------------------------- I/O */

/*
 * Send @m (its seq is set here) and read the answer: every generic
 * netlink message goes to @cb (may be NULL), until the ack, the error or
 * the end of a dump. Returns 0, -errno from the kernel, or @cb's non-zero
 * return (the rest of the answer is drained first).
 */
static inline int kav_nl_talk(struct kav_nl *nl, struct kav_nl_msg *m,
			      kav_nl_cb cb, void *arg)
{
	static char buf[KAV_NL_BUF];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int cb_ret = 0, ret;
	uint32_t seq;
	ssize_t n;

	kav_nl_clear_ext(nl);
	seq = ++nl->seq;
	m->nlh.nlmsg_seq = seq;
	if (!(m->nlh.nlmsg_flags & NLM_F_DUMP))
		m->nlh.nlmsg_flags |= NLM_F_ACK;
	if ((nl->no_dst ? send(nl->fd, m->buf, m->nlh.nlmsg_len, 0) :
	     sendto(nl->fd, m->buf, m->nlh.nlmsg_len, 0,
		    (struct sockaddr *)&sa, sizeof(sa))) < 0)
		return -errno;
	for (;;) {
		const struct nlmsghdr *h;
		size_t left;

		n = recv(nl->fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		left = (size_t)n;
		for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_seq != seq)
				continue;	/* a notification, or stale */
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				size_t off = sizeof(*e);

				if (!(h->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - NLMSG_HDRLEN;
				off = NLMSG_ALIGN(off);
				if ((h->nlmsg_flags & NLM_F_ACK_TLVS) &&
				    NLMSG_HDRLEN + off < h->nlmsg_len)
					kav_nl_parse_ext(nl,
						(const char *)NLMSG_DATA(h) + off,
						h->nlmsg_len - NLMSG_HDRLEN - off);
				ret = e->error;
				return ret ? ret : cb_ret;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&err, NLMSG_DATA(h), sizeof(err));
				if ((h->nlmsg_flags & NLM_F_ACK_TLVS) &&
				    h->nlmsg_len > NLMSG_HDRLEN + sizeof(int))
					kav_nl_parse_ext(nl,
						(const char *)NLMSG_DATA(h) +
						sizeof(int), h->nlmsg_len -
						NLMSG_HDRLEN - sizeof(int));
				return err ? err : cb_ret;
			}
			if (h->nlmsg_type < NLMSG_MIN_TYPE)
				continue;
			if (cb && !cb_ret) {
				const struct genlmsghdr *gh = NLMSG_DATA(h);
				struct kav_nl_attrs at;

				kav_nl_parse((const char *)gh + GENL_HDRLEN,
					     h->nlmsg_len - NLMSG_HDRLEN -
					     GENL_HDRLEN, at.a, KAV_A_MAX);
				cb_ret = cb(h, gh, &at, arg);
			}
			/* A reply without NLM_F_MULTI still gets an ack. */
		}
	}
}

/* Ask the controller for a family's id and the id of one of its groups. */
struct kav_nl_family_info {
	const char *group;
	uint16_t id;
	uint32_t grp_id;
};

static inline int kav_nl_family_cb(const struct nlmsghdr *nlh,
				   const struct genlmsghdr *gh,
				   const struct kav_nl_attrs *unused,
				   void *arg)
{
	struct kav_nl_family_info *fi = arg;
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct nlattr *g;
	size_t left;

	(void)unused;
	kav_nl_parse((const char *)gh + GENL_HDRLEN,
		     nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, tb,
		     CTRL_ATTR_MAX);
	if (tb[CTRL_ATTR_FAMILY_ID])
		memcpy(&fi->id, kav_nl_data(tb[CTRL_ATTR_FAMILY_ID]),
		       sizeof(fi->id));
	if (!tb[CTRL_ATTR_MCAST_GROUPS] || !fi->group)
		return 0;
	g = kav_nl_data(tb[CTRL_ATTR_MCAST_GROUPS]);
	left = kav_nl_len(tb[CTRL_ATTR_MCAST_GROUPS]);
	while (left >= NLA_HDRLEN && g->nla_len >= NLA_HDRLEN &&
	       g->nla_len <= left) {
		const struct nlattr *gt[CTRL_ATTR_MCAST_GRP_MAX + 1];

		kav_nl_parse(kav_nl_data(g), kav_nl_len(g), gt,
			     CTRL_ATTR_MCAST_GRP_MAX);
		if (gt[CTRL_ATTR_MCAST_GRP_NAME] &&
		    gt[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(kav_nl_data(gt[CTRL_ATTR_MCAST_GRP_NAME]),
			    fi->group))
			fi->grp_id = kav_nl_u32(gt[CTRL_ATTR_MCAST_GRP_ID]);
		if ((size_t)NLA_ALIGN(g->nla_len) >= left)
			break;
		left -= NLA_ALIGN(g->nla_len);
		g = (const struct nlattr *)((const char *)g +
					    NLA_ALIGN(g->nla_len));
	}
	return 0;
}

/* A netlink socket for the generic family, with extended acks. */
static inline int kav_nl_socket(struct kav_nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one,
		       sizeof(one)) ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one,
		       sizeof(one))) {
		int err = -errno;

		close(nl->fd);
		nl->fd = -1;
		return err;
	}
	return 0;
}

/* Resolve the kav family (and its admin group) on an open socket. */
static inline int kav_nl_resolve(struct kav_nl *nl)
{
	struct kav_nl_family_info fi = { .group = KAV_GENL_MCGRP_ADMIN };
	static struct kav_nl_msg m;
	int ret;

	kav_nl_msg_init(&m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1);
	kav_nl_put_str(&m, CTRL_ATTR_FAMILY_NAME, KAV_GENL_NAME);
	ret = kav_nl_talk(nl, &m, kav_nl_family_cb, &fi);
	if (ret)
		return ret;
	if (!fi.id)
		return -ENOENT;
	nl->family = fi.id;
	nl->mcgrp_admin = fi.grp_id;
	return 0;
}

static inline int kav_nl_open(struct kav_nl *nl)
{
	int ret = kav_nl_socket(nl);

	if (ret)
		return ret;
	ret = kav_nl_resolve(nl);
	if (ret) {
		close(nl->fd);
		nl->fd = -1;
	}
	return ret;
}

static inline void kav_nl_close(struct kav_nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

/* Subscribe to the admin group: 0 or -errno (EPERM for non-admins). */
static inline int kav_nl_join_admin(struct kav_nl *nl)
{
	uint32_t grp = nl->mcgrp_admin;

	if (!grp)
		return -ENOENT;
	return setsockopt(nl->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
			  sizeof(grp)) ? -errno : 0;
}

/*
 * Wait up to @timeout_ms for notifications (messages with seq 0); each
 * goes to @cb. Returns how many were seen, or -errno.
 */
static inline int kav_nl_recv_notifs(struct kav_nl *nl, int timeout_ms,
				     kav_nl_cb cb, void *arg)
{
	static char buf[KAV_NL_BUF];
	struct pollfd p = { .fd = nl->fd, .events = POLLIN };
	int seen = 0;

	while (poll(&p, 1, timeout_ms) > 0) {
		const struct nlmsghdr *h;
		ssize_t n = recv(nl->fd, buf, sizeof(buf), MSG_DONTWAIT);
		size_t left;

		if (n < 0)
			return errno == EAGAIN ? seen : -errno;
		left = (size_t)n;
		for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			const struct genlmsghdr *gh = NLMSG_DATA(h);
			struct kav_nl_attrs at;

			if (h->nlmsg_seq || h->nlmsg_type != nl->family)
				continue;
			kav_nl_parse((const char *)gh + GENL_HDRLEN,
				     h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN,
				     at.a, KAV_A_MAX);
			seen++;
			if (cb)
				cb(h, gh, &at, arg);
		}
		timeout_ms = 100;	/* then drain what follows */
	}
	return seen;
}

/* ------------------------------------------------------------ grants */

struct kav_grant_spec {
	uint32_t vni;
	uint32_t sel_type;		/* enum kav_grant_selector */
	uint32_t sel_id;		/* uid or gid */
	const char *cgroup_path;	/* or: */
	uint64_t cgroup_id;
	int netns_fd;			/* KAV_SEL_NETNS */
	uint64_t limit_entries;
	uint32_t limit_avs;
	const char *tag;		/* NULL: none */
	bool wire;			/* KAV_A_GRANT_WIRE: on the wire too */
};

/* One grant as GRANT_GET (and GRANT_ADD's reply) describes it. */
struct kav_nl_grant {
	uint32_t id;
	uint32_t vni;
	uint32_t sel_type;
	uint32_t sel_id;
	uint64_t cgroup_id;
	uint64_t netns_cookie;
	uint64_t limit_entries;
	uint32_t limit_avs;
	uint32_t nr_avs;
	uint64_t nr_entries;
	char tag[KAV_TAG_MAX + 1];
	bool updated;			/* GRANT_ADD updated it */
	bool wire;			/* a wire grant (KAV_A_GRANT_WIRE) */
};

static inline void kav_nl_grant_from(struct kav_nl_grant *g,
				     const struct kav_nl_attrs *at)
{
	memset(g, 0, sizeof(*g));
	g->id = kav_nl_u32(at->a[KAV_A_GRANT_ID]);
	g->vni = kav_nl_u32(at->a[KAV_A_VNI]);
	g->sel_type = kav_nl_u32(at->a[KAV_A_SEL_TYPE]);
	g->sel_id = kav_nl_u32(at->a[KAV_A_SEL_ID]);
	g->cgroup_id = kav_nl_u64(at->a[KAV_A_SEL_CGROUP_ID]);
	g->netns_cookie = kav_nl_u64(at->a[KAV_A_SEL_NETNS_COOKIE]);
	g->limit_entries = kav_nl_u64(at->a[KAV_A_LIMIT_ENTRIES]);
	g->limit_avs = kav_nl_u32(at->a[KAV_A_LIMIT_AVS]);
	g->nr_avs = kav_nl_u32(at->a[KAV_A_NR_AVS]);
	g->nr_entries = kav_nl_u64(at->a[KAV_A_NR_ENTRIES]);
	if (at->a[KAV_A_TAG])
		snprintf(g->tag, sizeof(g->tag), "%.*s",
			 kav_nl_len(at->a[KAV_A_TAG]),
			 (const char *)kav_nl_data(at->a[KAV_A_TAG]));
	g->updated = at->a[KAV_A_GRANT_UPDATED] != NULL;
	g->wire = at->a[KAV_A_GRANT_WIRE] != NULL;
}

static inline int kav_nl_grant_reply_cb(const struct nlmsghdr *nlh,
					const struct genlmsghdr *gh,
					const struct kav_nl_attrs *at,
					void *arg)
{
	(void)nlh;
	(void)gh;
	kav_nl_grant_from(arg, at);
	return 0;
}

static inline void kav_nl_grant_msg(const struct kav_nl *nl,
				    struct kav_nl_msg *m,
				    const struct kav_grant_spec *s)
{
	kav_nl_req(nl, m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(m, KAV_A_VNI, s->vni);
	kav_nl_put_u32(m, KAV_A_SEL_TYPE, s->sel_type);
	switch (s->sel_type) {
	case KAV_SEL_UID:
	case KAV_SEL_GID:
		kav_nl_put_u32(m, KAV_A_SEL_ID, s->sel_id);
		break;
	case KAV_SEL_CGROUP:
		if (s->cgroup_path)
			kav_nl_put_str(m, KAV_A_SEL_CGROUP_PATH,
				       s->cgroup_path);
		else
			kav_nl_put_u64(m, KAV_A_SEL_CGROUP_ID, s->cgroup_id);
		break;
	case KAV_SEL_NETNS:
		kav_nl_put_u32(m, KAV_A_SEL_NETNS_FD, (uint32_t)s->netns_fd);
		break;
	}
	if (s->limit_entries)
		kav_nl_put_u64(m, KAV_A_LIMIT_ENTRIES, s->limit_entries);
	if (s->limit_avs)
		kav_nl_put_u32(m, KAV_A_LIMIT_AVS, s->limit_avs);
	if (s->tag)
		kav_nl_put_str(m, KAV_A_TAG, s->tag);
	if (s->wire)
		kav_nl_put(m, KAV_A_GRANT_WIRE, NULL, 0);
}

/* GRANT_ADD; @out (may be NULL) receives the grant as the kernel has it. */
static inline int kav_nl_grant_add(struct kav_nl *nl,
				   const struct kav_grant_spec *s,
				   struct kav_nl_grant *out)
{
	static struct kav_nl_msg m;
	struct kav_nl_grant g = { 0 };
	int ret;

	kav_nl_grant_msg(nl, &m, s);
	ret = kav_nl_talk(nl, &m, kav_nl_grant_reply_cb, &g);
	if (!ret && !g.id)
		ret = -ENOMSG;		/* no reply naming the grant */
	if (!ret && out)
		*out = g;
	return ret;
}

static inline int kav_nl_grant_sel(struct kav_nl *nl, uint32_t vni,
				   uint32_t sel_type, uint32_t id,
				   uint32_t *grant_id)
{
	struct kav_grant_spec s = { .vni = vni, .sel_type = sel_type,
				    .sel_id = id };
	struct kav_nl_grant g;
	int ret = kav_nl_grant_add(nl, &s, &g);

	if (!ret && grant_id)
		*grant_id = g.id;
	return ret;
}

static inline int kav_nl_grant_uid(struct kav_nl *nl, uint32_t vni,
				   uint32_t uid, uint32_t *grant_id)
{
	return kav_nl_grant_sel(nl, vni, KAV_SEL_UID, uid, grant_id);
}

static inline int kav_nl_grant_gid(struct kav_nl *nl, uint32_t vni,
				   uint32_t gid, uint32_t *grant_id)
{
	return kav_nl_grant_sel(nl, vni, KAV_SEL_GID, gid, grant_id);
}

static inline int kav_nl_grant_del(struct kav_nl *nl, uint32_t grant_id)
{
	static struct kav_nl_msg m;

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_DEL, 0);
	kav_nl_put_u32(&m, KAV_A_GRANT_ID, grant_id);
	return kav_nl_talk(nl, &m, NULL, NULL);
}

struct kav_nl_grant_list {
	struct kav_nl_grant *g;
	size_t max, n;
};

static inline int kav_nl_grant_list_cb(const struct nlmsghdr *nlh,
				       const struct genlmsghdr *gh,
				       const struct kav_nl_attrs *at,
				       void *arg)
{
	struct kav_nl_grant_list *l = arg;

	(void)nlh;
	(void)gh;
	if (l->n >= l->max)
		return -E2BIG;
	kav_nl_grant_from(&l->g[l->n++], at);
	return 0;
}

/*
 * GRANT_GET dump into @g (at most @max); *@n gets the count. Only grants
 * of key @vni (>= 0) and with tag @tag (non-NULL), as the kernel filters.
 */
static inline int kav_nl_grants_filtered(struct kav_nl *nl,
					 struct kav_nl_grant *g, size_t max,
					 size_t *n, int64_t vni,
					 const char *tag)
{
	struct kav_nl_grant_list l = { g, max, 0 };
	static struct kav_nl_msg m;
	int ret;

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_GET, NLM_F_DUMP);
	if (vni >= 0)
		kav_nl_put_u32(&m, KAV_A_VNI, (uint32_t)vni);
	if (tag)
		kav_nl_put_str(&m, KAV_A_TAG, tag);
	ret = kav_nl_talk(nl, &m, kav_nl_grant_list_cb, &l);
	*n = l.n;
	return ret;
}

static inline int kav_nl_grants(struct kav_nl *nl, struct kav_nl_grant *g,
				size_t max, size_t *n)
{
	return kav_nl_grants_filtered(nl, g, max, n, -1, NULL);
}

/* GRANT_GET of grant @id alone. */
static inline int kav_nl_grant_get(struct kav_nl *nl, uint32_t id,
				   struct kav_nl_grant *out)
{
	static struct kav_nl_msg m;

	memset(out, 0, sizeof(*out));
	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_GET, 0);
	kav_nl_put_u32(&m, KAV_A_GRANT_ID, id);
	return kav_nl_talk(nl, &m, kav_nl_grant_reply_cb, out);
}

/*
 * GRANT_SET of grant @id: each of @limit_entries, @limit_avs (>= 0) and
 * @tag (non-NULL) that is given; @out (may be NULL) gets the reply.
 */
static inline int kav_nl_grant_set(struct kav_nl *nl, uint32_t id,
				   int64_t limit_entries, int64_t limit_avs,
				   const char *tag, struct kav_nl_grant *out)
{
	static struct kav_nl_msg m;
	struct kav_nl_grant g = { 0 };
	int ret;

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_SET, 0);
	kav_nl_put_u32(&m, KAV_A_GRANT_ID, id);
	if (limit_entries >= 0)
		kav_nl_put_u64(&m, KAV_A_LIMIT_ENTRIES,
			       (uint64_t)limit_entries);
	if (limit_avs >= 0)
		kav_nl_put_u32(&m, KAV_A_LIMIT_AVS, (uint32_t)limit_avs);
	if (tag)
		kav_nl_put_str(&m, KAV_A_TAG, tag);
	ret = kav_nl_talk(nl, &m, kav_nl_grant_reply_cb, &g);
	if (!ret && out)
		*out = g;
	return ret;
}

/* Is grant @id in the list? -errno, 0 (no) or 1 (yes). */
static inline int kav_nl_grant_exists(struct kav_nl *nl, uint32_t id)
{
	static struct kav_nl_grant g[256];
	size_t n, i;
	int ret = kav_nl_grants(nl, g, 256, &n);

	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		if (g[i].id == id)
			return 1;
	return 0;
}

/* ------------------------------------------------------------ stats */

struct kav_nl_stats {
	uint64_t domains, avs, entries, grants, mem_bytes;
	uint64_t deny_no_grant, deny_revoked, deny_keyless, deny_limit;
	uint64_t deny_mode;
};

static inline int kav_nl_stats_cb(const struct nlmsghdr *nlh,
				  const struct genlmsghdr *gh,
				  const struct kav_nl_attrs *at, void *arg)
{
	struct kav_nl_stats *st = arg;

	(void)nlh;
	(void)gh;
	st->domains = kav_nl_u64(at->a[KAV_A_STAT_DOMAINS]);
	st->avs = kav_nl_u64(at->a[KAV_A_STAT_AVS]);
	st->entries = kav_nl_u64(at->a[KAV_A_STAT_ENTRIES]);
	st->grants = kav_nl_u64(at->a[KAV_A_STAT_GRANTS]);
	st->mem_bytes = kav_nl_u64(at->a[KAV_A_MEM_BYTES]);
	st->deny_no_grant = kav_nl_u64(at->a[KAV_A_STAT_DENY_NO_GRANT]);
	st->deny_revoked = kav_nl_u64(at->a[KAV_A_STAT_DENY_REVOKED]);
	st->deny_keyless = kav_nl_u64(at->a[KAV_A_STAT_DENY_KEYLESS]);
	st->deny_limit = kav_nl_u64(at->a[KAV_A_STAT_DENY_LIMIT]);
	st->deny_mode = kav_nl_u64(at->a[KAV_A_STAT_DENY_MODE]);
	return 0;
}

static inline int kav_nl_stats(struct kav_nl *nl, struct kav_nl_stats *st)
{
	static struct kav_nl_msg m;

	memset(st, 0, sizeof(*st));
	kav_nl_req(nl, &m, KAV_GENL_CMD_STATS_GET, 0);
	return kav_nl_talk(nl, &m, kav_nl_stats_cb, st);
}

/* A dump of @cmd (DOMAIN_GET, AV_GET; ENTRY_GET with @av_id). */
static inline int kav_nl_dump(struct kav_nl *nl, uint8_t cmd, int64_t av_id,
			      kav_nl_cb cb, void *arg)
{
	static struct kav_nl_msg m;

	kav_nl_req(nl, &m, cmd, NLM_F_DUMP);
	if (av_id >= 0)
		kav_nl_put_u32(&m, KAV_A_AV_ID, (uint32_t)av_id);
	return kav_nl_talk(nl, &m, cb, arg);
}

/*
 * One AV as netlink AV_GET lists it, found by id, or by name when @name
 * is set: kernel memory, entries, bytes per entry, open count.
 */
struct kav_nl_av_info {
	uint32_t av_id;
	const char *name;
	bool found;
	uint64_t mem, nr_entries;
	uint32_t entry_bytes, nr_open;
};

static inline int kav_nl_av_info_cb(const struct nlmsghdr *nlh,
				    const struct genlmsghdr *gh,
				    const struct kav_nl_attrs *at, void *arg)
{
	struct kav_nl_av_info *ai = arg;
	const struct nlattr *name = at->a[KAV_A_AV_NAME];

	(void)nlh;
	(void)gh;
	if (ai->name ? !name || kav_nl_len(name) != (int)strlen(ai->name) ||
		       memcmp(kav_nl_data(name), ai->name,
			      strlen(ai->name)) != 0 :
		       kav_nl_u32(at->a[KAV_A_AV_ID]) != ai->av_id)
		return 0;
	ai->found = true;
	ai->av_id = kav_nl_u32(at->a[KAV_A_AV_ID]);
	ai->mem = kav_nl_u64(at->a[KAV_A_MEM_BYTES]);
	ai->nr_entries = kav_nl_u64(at->a[KAV_A_NR_ENTRIES]);
	ai->entry_bytes = kav_nl_u32(at->a[KAV_A_ENTRY_BYTES]);
	ai->nr_open = kav_nl_u32(at->a[KAV_A_NR_OPEN]);
	return 0;
}

/* Fill @ai (av_id or name set): 0 or -errno (-ENOENT: not listed). */
static inline int kav_nl_av_info(struct kav_nl_av_info *ai)
{
	struct kav_nl nl;
	int ret;

	ret = kav_nl_open(&nl);
	if (ret)
		return ret;
	ret = kav_nl_dump(&nl, KAV_GENL_CMD_AV_GET, -1, kav_nl_av_info_cb, ai);
	kav_nl_close(&nl);
	return ret ? ret : ai->found ? 0 : -ENOENT;
}

#endif /* KAV_NL_UTIL_H */
