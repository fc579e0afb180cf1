/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav-wire over the raw generic netlink of kav_nl_util.h: WIRE_SET,
 * WIRE_GET, WIRE_NET_ADD/DEL, wire grants and their drop counters, and a
 * reset to what a freshly loaded module has (mode off, no port range,
 * the default mark, no nets), so that each test leaves kav as it found it.
 *
 *   kav_wire_set(&nl, &(struct kav_wire_req){ .has_mode = 1, .mode = M });
 *   kav_wire_net_add(&nl, kav_wire_net_of("10.0.0.0", 8, 0, 0, 0));
 *   kav_wire_get(&nl, &st);            settings, nets, counters
 *   kav_wire_grant(&nl, &spec, &g);    GRANT_ADD with KAV_A_GRANT_WIRE
 *   kav_wire_reset(&nl);
 *
 * Every call returns 0 or -errno, as kav_nl_talk().
 */
#ifndef KAV_WIRE_UTIL_H
#define KAV_WIRE_UTIL_H

#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "kav_nl_util.h"

/* What a freshly loaded module's WIRE_GET says of the mark. */
#define KAV_WIRE_MARK_DEFAULT	0x4b000000U

/* A WIRE_SET: each value only if its has_ flag is set. */
struct kav_wire_req {
	bool has_mode, has_port_min, has_port_max, has_mark;
	uint32_t mode, port_min, port_max, mark;
};

static inline int kav_wire_set(struct kav_nl *nl, const struct kav_wire_req *r)
{
	static struct kav_nl_msg m;

	kav_nl_req(nl, &m, KAV_GENL_CMD_WIRE_SET, 0);
	if (r->has_mode)
		kav_nl_put_u32(&m, KAV_A_WIRE_MODE, r->mode);
	if (r->has_port_min)
		kav_nl_put_u32(&m, KAV_A_WIRE_PORT_MIN, r->port_min);
	if (r->has_port_max)
		kav_nl_put_u32(&m, KAV_A_WIRE_PORT_MAX, r->port_max);
	if (r->has_mark)
		kav_nl_put_u32(&m, KAV_A_WIRE_MARK, r->mark);
	return kav_nl_talk(nl, &m, NULL, NULL);
}

static inline int kav_wire_set_mode(struct kav_nl *nl, uint32_t mode)
{
	struct kav_wire_req r = { .has_mode = true, .mode = mode };

	return kav_wire_set(nl, &r);
}

/* A port range; @min 0 clears it (sent without a last port). */
static inline int kav_wire_set_ports(struct kav_nl *nl, uint32_t min,
				     uint32_t max)
{
	struct kav_wire_req r = { .has_port_min = true, .port_min = min,
				  .has_port_max = min != 0, .port_max = max };

	return kav_wire_set(nl, &r);
}

/*
 * A struct kav_wire_net for @addr (IPv4 or IPv6 text)/@prefix_len; the
 * family follows the address. An unparsable address gives family 0.
 */
static inline struct kav_wire_net kav_wire_net_of(const char *addr,
						  uint8_t prefix_len,
						  uint8_t flags, uint16_t port,
						  uint8_t protocol)
{
	struct kav_wire_net n = { .prefix_len = prefix_len, .flags = flags,
				  .port = port, .protocol = protocol };

	if (inet_pton(AF_INET, addr, n.addr) == 1)
		n.family = AF_INET;
	else if (inet_pton(AF_INET6, addr, n.addr) == 1)
		n.family = AF_INET6;
	return n;
}

/* WIRE_NET_ADD or _DEL (@cmd) with @len bytes of @data as KAV_A_WIRE_NET. */
static inline int kav_wire_net_raw(struct kav_nl *nl, uint8_t cmd,
				   const void *data, size_t len)
{
	static struct kav_nl_msg m;

	kav_nl_req(nl, &m, cmd, 0);
	if (data)
		kav_nl_put(&m, KAV_A_WIRE_NET, data, len);
	return kav_nl_talk(nl, &m, NULL, NULL);
}

static inline int kav_wire_net_add(struct kav_nl *nl, struct kav_wire_net n)
{
	return kav_wire_net_raw(nl, KAV_GENL_CMD_WIRE_NET_ADD, &n, sizeof(n));
}

static inline int kav_wire_net_del(struct kav_nl *nl, struct kav_wire_net n)
{
	return kav_wire_net_raw(nl, KAV_GENL_CMD_WIRE_NET_DEL, &n, sizeof(n));
}

/* What WIRE_GET replies. */
struct kav_wire_state {
	bool seen, has_ports;
	uint32_t mode, mark, port_min, port_max;
	uint64_t passed, aborts;
	size_t nr_drops;			/* counters the kernel sent */
	uint64_t drops[KAV_WIRE_DROP_NR];
	size_t nr_nets;
	struct kav_wire_net nets[KAV_WIRE_NETS_MAX + 1];
};

/* The drop counters: a u64 per reason, as STATS_GET and WIRE_GET send. */
static inline size_t kav_wire_drops_from(const struct nlattr *a,
					 uint64_t *drops)
{
	size_t n = 0;

	memset(drops, 0, KAV_WIRE_DROP_NR * sizeof(*drops));
	if (!a)
		return 0;
	for (; n < KAV_WIRE_DROP_NR && (n + 1) * 8 <= (size_t)kav_nl_len(a);
	     n++)
		memcpy(&drops[n], (const char *)kav_nl_data(a) + 8 * n, 8);
	return n;
}

static inline int kav_wire_get_cb(const struct nlmsghdr *nlh,
				  const struct genlmsghdr *gh,
				  const struct kav_nl_attrs *at, void *arg)
{
	struct kav_wire_state *st = arg;
	const struct nlattr *na = (const void *)((const char *)gh +
						 GENL_HDRLEN);
	size_t left = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;

	st->seen = true;
	st->mode = kav_nl_u32(at->a[KAV_A_WIRE_MODE]);
	st->mark = kav_nl_u32(at->a[KAV_A_WIRE_MARK]);
	st->has_ports = at->a[KAV_A_WIRE_PORT_MIN] != NULL;
	st->port_min = kav_nl_u32(at->a[KAV_A_WIRE_PORT_MIN]);
	st->port_max = kav_nl_u32(at->a[KAV_A_WIRE_PORT_MAX]);
	st->passed = kav_nl_u64(at->a[KAV_A_WIRE_PASSED]);
	st->aborts = kav_nl_u64(at->a[KAV_A_WIRE_ABORTS]);
	st->nr_drops = kav_wire_drops_from(at->a[KAV_A_WIRE_DROP_COUNTS],
					   st->drops);
	/* KAV_A_WIRE_NET repeats: the index keeps only the last. */
	while (left >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= left) {
		if ((na->nla_type & NLA_TYPE_MASK) == KAV_A_WIRE_NET &&
		    kav_nl_len(na) == sizeof(struct kav_wire_net) &&
		    st->nr_nets <= KAV_WIRE_NETS_MAX)
			memcpy(&st->nets[st->nr_nets++], kav_nl_data(na),
			       sizeof(struct kav_wire_net));
		if ((size_t)NLA_ALIGN(na->nla_len) >= left)
			break;
		left -= NLA_ALIGN(na->nla_len);
		na = (const void *)((const char *)na + NLA_ALIGN(na->nla_len));
	}
	return 0;
}

static inline int kav_wire_get(struct kav_nl *nl, struct kav_wire_state *st)
{
	static struct kav_nl_msg m;
	int ret;

	memset(st, 0, sizeof(*st));
	kav_nl_req(nl, &m, KAV_GENL_CMD_WIRE_GET, 0);
	ret = kav_nl_talk(nl, &m, kav_wire_get_cb, st);
	return ret ? ret : st->seen ? 0 : -ENOMSG;
}

/* Is @n among the nets of @st? */
static inline bool kav_wire_has_net(const struct kav_wire_state *st,
				    const struct kav_wire_net *n)
{
	size_t i;

	for (i = 0; i < st->nr_nets; i++)
		if (!memcmp(&st->nets[i], n, sizeof(*n)))
			return true;
	return false;
}

/* Mode off, no port range, the default mark and no net: a fresh module. */
static inline int kav_wire_reset(struct kav_nl *nl)
{
	struct kav_wire_req r = {
		.has_mode = true, .mode = KAV_WIRE_OFF,
		.has_port_min = true, .port_min = 0,
		.has_mark = true, .mark = KAV_WIRE_MARK_DEFAULT,
	};
	static struct kav_wire_state st;
	size_t i;
	int ret;

	ret = kav_wire_set(nl, &r) ?: kav_wire_get(nl, &st);
	for (i = 0; !ret && i < st.nr_nets; i++)
		ret = kav_wire_net_del(nl, st.nets[i]);
	return ret;
}

/*
 * Bring the device named @name (a char *) of this namespace up: lo is
 * down in the guest and in a new namespace. (void *: in_netns()'s fn.)
 */
static inline int kav_wire_link_up(void *name)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", (char *)name);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr))
		ret = -1;
	ifr.ifr_flags |= IFF_UP;
	if (!ret && ioctl(fd, SIOCSIFFLAGS, &ifr))
		ret = -1;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* GRANT_ADD of @s with KAV_A_GRANT_WIRE; @out (may be NULL) gets it. */
static inline int kav_wire_grant(struct kav_nl *nl,
				 const struct kav_grant_spec *s,
				 struct kav_nl_grant *out)
{
	struct kav_grant_spec w = *s;

	w.wire = true;
	return kav_nl_grant_add(nl, &w, out);
}

/* kav_wire_grant() of @s: the grant's id in *@id. */
static inline int kav_wire_grant_id(struct kav_nl *nl,
				    const struct kav_grant_spec *s,
				    uint32_t *id)
{
	struct kav_nl_grant g;
	int ret = kav_wire_grant(nl, s, &g);

	if (!ret)
		*id = g.id;
	return ret;
}

/* A wire grant of @vni to uid @uid: its id in *@id. */
static inline int kav_wire_grant_uid(struct kav_nl *nl, uint32_t vni,
				     uint32_t uid, uint32_t *id)
{
	struct kav_grant_spec s = { .vni = vni, .sel_type = KAV_SEL_UID,
				    .sel_id = uid };

	return kav_wire_grant_id(nl, &s, id);
}

/* A wire grant of @vni to the network namespace behind @netns_fd. */
static inline int kav_wire_grant_netns(struct kav_nl *nl, uint32_t vni,
				       int netns_fd, uint32_t *id)
{
	struct kav_grant_spec s = { .vni = vni, .sel_type = KAV_SEL_NETNS,
				    .netns_fd = netns_fd };

	return kav_wire_grant_id(nl, &s, id);
}

/* A grant's wire flag and drop counter, as GRANT_GET reports them. */
struct kav_wire_grant_info {
	bool found, wire, has_drops;
	uint64_t drops;
};

static inline int kav_wire_grant_info_cb(const struct nlmsghdr *nlh,
					 const struct genlmsghdr *gh,
					 const struct kav_nl_attrs *at,
					 void *arg)
{
	struct kav_wire_grant_info *wi = arg;

	(void)nlh;
	(void)gh;
	wi->found = true;
	wi->wire = at->a[KAV_A_GRANT_WIRE] != NULL;
	wi->has_drops = at->a[KAV_A_WIRE_DROPS] != NULL;
	wi->drops = kav_nl_u64(at->a[KAV_A_WIRE_DROPS]);
	return 0;
}

static inline int kav_wire_grant_info(struct kav_nl *nl, uint32_t id,
				      struct kav_wire_grant_info *wi)
{
	static struct kav_nl_msg m;
	int ret;

	memset(wi, 0, sizeof(*wi));
	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_GET, 0);
	kav_nl_put_u32(&m, KAV_A_GRANT_ID, id);
	ret = kav_nl_talk(nl, &m, kav_wire_grant_info_cb, wi);
	return ret ? ret : wi->found ? 0 : -ENOMSG;
}

#endif /* KAV_WIRE_UTIL_H */
