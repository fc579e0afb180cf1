// SPDX-License-Identifier: GPL-2.0
/*
 * What the wire rule sees of a packet and of a socket: addresses, ports
 * and flow label; whether the scope covers it; the key a socket's owner,
 * or a namespace, holds on the wire (from the grant list, under RCU).
 */
#include <linux/cgroup.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <linux/tcp.h>
#include <net/checksum.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "kav_policy.h"
#include "kav_wire.h"

#ifdef KAV_WIRE_HOOKS

/*
 * Read the addresses, ports and flow label of @skb (its network header
 * is at skb_network_offset()). 0: a TCP or UDP packet (or a fragment of
 * one: p->frag); 1: something else, not the rule's.
 */
int kav_wire_parse(struct sk_buff *skb, u16 family, struct kav_wire_pkt *p)
{
	unsigned int thoff = skb_network_offset(skb);
	u8 _th[14];
	const u8 *th;
	int proto;

	memset(p, 0, sizeof(*p));
	p->family = family;
	if (family == AF_INET) {
		struct iphdr _iph;
		const struct iphdr *iph;

		iph = skb_header_pointer(skb, thoff, sizeof(_iph), &_iph);
		if (!iph || iph->ihl < 5)
			return 1;
		proto = iph->protocol;
		memcpy(p->saddr, &iph->saddr, 4);
		memcpy(p->daddr, &iph->daddr, 4);
		p->frag = ip_is_fragment(iph);
		thoff += iph->ihl * 4;
	} else {
		struct ipv6hdr _ip6h;
		const struct ipv6hdr *ip6h;
		unsigned short fragoff = 0;
		int flags = 0;

		ip6h = skb_header_pointer(skb, thoff, sizeof(_ip6h), &_ip6h);
		if (!ip6h)
			return 1;
		memcpy(p->saddr, &ip6h->saddr, 16);
		memcpy(p->daddr, &ip6h->daddr, 16);
		p->label = ntohl(ip6_flowlabel(ip6h));
		thoff = skb_network_offset(skb);
		proto = ipv6_find_hdr(skb, &thoff, -1, &fragoff, &flags);
		if (flags & IP6_FH_F_FRAG) {
			p->frag = true;
			/* A later fragment's next header says nothing. */
			return 0;
		}
		if (proto < 0)
			return 1;
	}
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
		return 1;
	p->protocol = proto;
	if (p->frag)
		return 0;
	/* Both headers start with the ports; TCP's flags are at byte 13. */
	th = skb_header_pointer(skb, thoff, proto == IPPROTO_TCP ? 14 : 4, _th);
	if (!th)
		return 1;
	memcpy(&p->sport, th, 2);
	memcpy(&p->dport, th + 2, 2);
	p->thoff = thoff;
	p->rst = proto == IPPROTO_TCP && (th[13] & 0x04);
	p->syn = proto == IPPROTO_TCP && (th[13] & 0x02);
	return 0;
}

/*
 * Lower the MSS option of the TCP SYN @p to @mss. esp: the socket's own
 * route has no mark, so TCP would size its segments for the plain
 * device; the SA's overhead then makes each too big for the path, and
 * IPv6 (IPv4 with DF) will not fragment it. Every kav node clamps the
 * SYNs it sends, so both directions of a connection fit.
 */
int kav_wire_clamp_mss(struct sk_buff *skb, const struct kav_wire_pkt *p,
		       unsigned int mss)
{
	unsigned int len, i, old;
	struct tcphdr *th;
	u8 *opt;

	if (skb_ensure_writable(skb, p->thoff + sizeof(*th)))
		return -ENOMEM;
	th = (struct tcphdr *)(skb->data + p->thoff);
	len = th->doff * 4;
	if (len <= sizeof(*th))
		return 0;
	if (skb_ensure_writable(skb, p->thoff + len))
		return -ENOMEM;
	th = (struct tcphdr *)(skb->data + p->thoff);
	opt = (u8 *)th;
	for (i = sizeof(*th); i + 1 < len && opt[i] != TCPOPT_EOL;) {
		if (opt[i] == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (opt[i + 1] < 2 || i + opt[i + 1] > len)
			break;
		if (opt[i] == TCPOPT_MSS && opt[i + 1] == TCPOLEN_MSS) {
			old = opt[i + 2] << 8 | opt[i + 3];
			if (old <= mss)
				break;
			opt[i + 2] = mss >> 8;
			opt[i + 3] = mss & 0xff;
			inet_proto_csum_replace2(&th->check, skb, htons(old),
						 htons(mss), false);
			break;
		}
		i += opt[i + 1];
	}
	return 0;
}

static bool kav_wire_net_match(const struct kav_wire_net *n, u16 family,
			       const u8 *addr)
{
	unsigned int bytes = n->prefix_len / 8, bits = n->prefix_len % 8;

	if (n->family != family || memcmp(n->addr, addr, bytes))
		return false;
	return !bits || !((n->addr[bytes] ^ addr[bytes]) & (0xff00 >> bits));
}

/* Is @addr:@port (@proto; 0: a fragment's, unknown) an exempted endpoint? */
static bool kav_wire_exempt(const struct kav_wire_conf *c, u16 family,
			    u8 proto, const u8 *addr, __be16 port)
{
	const struct kav_wire_net *n;
	u32 i;

	for (i = 0; i < c->nr_nets; i++) {
		n = &c->nets[i];
		if (!(n->flags & KAV_WIRE_NET_EXEMPT))
			continue;
		/* A fragment is exempt only by an every-port exemption. */
		if (!proto && (n->port || n->protocol))
			continue;
		if ((!n->port || n->port == ntohs(port)) &&
		    (!n->protocol || n->protocol == proto) &&
		    kav_wire_net_match(n, family, addr))
			return true;
	}
	return false;
}

/*
 * Is @p from an exempted endpoint? A source port is anyone's to claim
 * (a forged frame, or a tenant that binds the port when the service is
 * not running), so the callers believe it only of the socket bound to
 * that port (output) or of a socket connected to that endpoint (input).
 */
bool kav_wire_from_exempt(const struct kav_wire_conf *c,
			  const struct kav_wire_pkt *p)
{
	return kav_wire_exempt(c, p->family, p->protocol, p->saddr, p->sport);
}

static bool kav_wire_port_in(const struct kav_wire_conf *c, __be16 port)
{
	u16 p = ntohs(port);

	return p >= c->port_min && p <= c->port_max;
}

/*
 * Is @p the rule's? Its destination is in a scope prefix, or, with a
 * port range, on this node (@local: the loopback device carries it,
 * whatever the address: 127.0.0.1 reaches a socket bound to 0.0.0.0);
 * its source or destination port is in the range (when one is set); and
 * it is not to an exempted endpoint (replies from one: the callers, with
 * kav_wire_from_exempt()). A fragment has no ports: every fragment to
 * the scope is.
 */
bool kav_wire_in_scope(const struct kav_wire_conf *c,
		       const struct kav_wire_pkt *p, bool local)
{
	bool in = local && c->port_min;
	u32 i;

	for (i = 0; !in && i < c->nr_nets; i++)
		in = !(c->nets[i].flags & KAV_WIRE_NET_EXEMPT) &&
		     kav_wire_net_match(&c->nets[i], p->family, p->daddr);
	if (!in)
		return false;
	if (p->frag)
		return !kav_wire_exempt(c, p->family, 0, p->daddr, 0);
	if (c->port_min && !kav_wire_port_in(c, p->sport) &&
	    !kav_wire_port_in(c, p->dport))
		return false;
	return !kav_wire_exempt(c, p->family, p->protocol, p->daddr, p->dport);
}

/* ---------------------------------------------------------------- keys */

/* The key of @o (0: none; *@conflict: two), and a grant giving it. */
u32 kav_wire_owner_key(const struct kav_sock_owner *o, struct kav_grant **g,
		       bool *conflict)
{
	enum kav_wire_key_status st;
	u32 vni = 0;

	*g = NULL;
	st = kav_grant_wire_key_rcu(o, &vni, g);
	*conflict = st == KAV_WIRE_KEY_CONFLICT;
	if (st != KAV_WIRE_KEY_ONE) {
		*g = NULL;
		return 0;
	}
	return vni;
}

kuid_t kav_wire_sk_uid(const struct sock *sk)
{
#ifdef KAV_HAVE_SK_UID_ACCESSOR
	return sk_uid(sk);
#else
	return READ_ONCE(sk->sk_uid);
#endif
}

void kav_wire_sock_owner(struct sock *sk, struct kav_sock_owner *o)
{
	o->uid = kav_wire_sk_uid(sk);
	o->cgroup = sock_cgroup_ptr(&sk->sk_cgrp_data);
	o->netns_cookie = sock_net(sk)->net_cookie;
}

/* The key a namespace's netns grants give it (a veth's far end). */
u32 kav_wire_netns_key(u64 cookie)
{
	struct kav_sock_owner o = { .uid = INVALID_UID, .netns_cookie = cookie };
	struct kav_grant *g;
	bool conflict;

	return kav_wire_owner_key(&o, &g, &conflict);
}

#endif /* KAV_WIRE_HOOKS */
