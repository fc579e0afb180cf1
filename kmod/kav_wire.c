// SPDX-License-Identifier: GPL-2.0
/*
 * The wire rule (Documentation/wire.rst): a TCP segment or UDP datagram
 * in the fabric scope is delivered only if the sender's wire key equals
 * the receiver's and neither is 0.
 *
 * The hooks sit in every network namespace (pernet), new ones included;
 * nothing a tenant does in its own namespace removes them.
 *
 *  - LOCAL_OUT knows the sender (skb->sk). A sender without a key is
 *    refused at once (ECONNREFUSED). To a socket of this node (the
 *    loopback device) the receiver is looked up and compared here, since
 *    the loopback device keeps no sender for LOCAL_IN to see. Elsewhere
 *    the key is carried: the IPv6 flow label is overwritten with it, and
 *    in esp mode the mark selects the key's IPsec SA.
 *  - LOCAL_IN compares the packet's key, from its carrier, with the
 *    receiver's (early demux's skb->sk, or a lookup).
 *  - FORWARD keeps only packets whose carrier holds a key.
 *
 * Keys are read from the live grant list on every packet, so a
 * revocation refuses the next one. A TCP socket whose own key went is
 * aborted (from a workqueue: tcp_abort() sleeps), so that the
 * application hears of it now rather than after minutes of retries.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/workqueue.h>
#include <net/inet_hashtables.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netfilter/ipv4/nf_defrag_ipv4.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>
#include <net/netfilter/nf_socket.h>
#include <net/netns/generic.h>
#include <net/rtnetlink.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/udp.h>
#include <net/xfrm.h>
#include "kav_policy.h"
#include "kav_wire.h"

#ifdef KAV_WIRE_HOOKS

/*
 * Taken with symbol_get() when the wire is first turned on: socket
 * lookups (required) and reassembly before LOCAL_IN and FORWARD (without
 * it, a fragment in scope is dropped).
 */
static struct sock *(*kav_lookup_v4)(struct net *net, const struct sk_buff *skb,
				     const struct net_device *indev);
static struct sock *(*kav_lookup_v6)(struct net *net, const struct sk_buff *skb,
				     const struct net_device *indev);
static int (*kav_defrag_v4_on)(struct net *net);
static void (*kav_defrag_v4_off)(struct net *net);
static int (*kav_defrag_v6_on)(struct net *net);
static void (*kav_defrag_v6_off)(struct net *net);

/* --------------------------------------------------------------- drops */

struct kav_wire_abort {
	struct work_struct work;
	struct sock *sk;
};

static struct workqueue_struct *kav_wire_wq;
static atomic_t kav_wire_aborts_queued = ATOMIC_INIT(0);
/* Aborts in flight at most: a flood of dropped packets queues no more. */
#define KAV_WIRE_ABORTS_MAX	256

static void kav_wire_abort_work(struct work_struct *work)
{
	struct kav_wire_abort *a = container_of(work, struct kav_wire_abort,
						work);

	/* Several dropped packets may have asked; the first one does it. */
	if (READ_ONCE(a->sk->sk_state) != TCP_CLOSE &&
	    !tcp_abort(a->sk, ECONNABORTED))
		kav_wire_count_abort();
	sock_put(a->sk);
	kfree(a);
	atomic_dec(&kav_wire_aborts_queued);
}

/* @sk (a full socket) lost its key: a TCP connection of it ends now. */
static void kav_wire_abort(struct sock *sk)
{
	struct kav_wire_abort *a;

	if (sk->sk_protocol != IPPROTO_TCP || sk->sk_type != SOCK_STREAM ||
	    (1 << READ_ONCE(sk->sk_state)) & (TCPF_LISTEN | TCPF_CLOSE))
		return;
	if (atomic_inc_return(&kav_wire_aborts_queued) > KAV_WIRE_ABORTS_MAX)
		goto busy;
	a = kmalloc(sizeof(*a), GFP_ATOMIC);
	if (!a)
		goto busy;
	INIT_WORK(&a->work, kav_wire_abort_work);
	sock_hold(sk);
	a->sk = sk;
	queue_work(kav_wire_wq, &a->work);
	return;
busy:
	atomic_dec(&kav_wire_aborts_queued);
}

static void kav_wire_drop(u32 reason, struct sock *sk, u32 key,
			  struct kav_grant *g)
{
	struct kav_wire_event ev = {
		.reason = reason, .uid = (u32)-1, .vni = key,
	};

	if (g)
		atomic64_inc(&g->wire_drops);
	if (sk) {
		ev.uid = from_kuid_munged(&init_user_ns, kav_wire_sk_uid(sk));
		ev.cgroup_id = cgroup_id(sock_cgroup_ptr(&sk->sk_cgrp_data));
		ev.netns_cookie = sock_net(sk)->net_cookie;
	}
	kav_wire_count_drop(reason, &ev);
}

/* ------------------------------------------------------------ carriers */

static bool kav_wire_dev_kind(const struct net_device *dev, const char *kind)
{
	return dev && dev->rtnl_link_ops &&
	       !strcmp(dev->rtnl_link_ops->kind, kind);
}

/*
 * The key @skb carries in from @in. esp: the reqid of the transport SA
 * that authenticated it; through a veth, whose far end the guard holds
 * to its namespace's key, the flow label. flowlabel: the flow label.
 */
static u32 kav_wire_carried_key(const struct kav_wire_conf *c,
				struct sk_buff *skb,
				const struct kav_wire_pkt *p,
				const struct net_device *in)
{
	if (c->mode == KAV_WIRE_ESP) {
#ifdef CONFIG_XFRM
		const struct sec_path *sp = skb_sec_path(skb);
		const struct xfrm_state *x;

		if (sp && sp->len) {
			x = sp->xvec[sp->len - 1];
			if (x->props.mode == XFRM_MODE_TRANSPORT &&
			    x->props.reqid < KAV_WIRE_KEY_LIMIT)
				return x->props.reqid;
			return 0;
		}
#endif
		if (!kav_wire_dev_kind(in, "veth"))
			return 0;
	}
	return p->family == AF_INET6 ? p->label : 0;
}

static int kav_wire_set_label(struct sk_buff *skb, u32 key)
{
	struct ipv6hdr *ip6h;

	if (skb_ensure_writable(skb, skb_network_offset(skb) + sizeof(*ip6h)))
		return -ENOMEM;
	ip6h = ipv6_hdr(skb);
	ip6h->flow_lbl[0] = (ip6h->flow_lbl[0] & 0xf0) | ((key >> 16) & 0x0f);
	ip6h->flow_lbl[1] = (key >> 8) & 0xff;
	ip6h->flow_lbl[2] = key & 0xff;
	return 0;
}

/* esp: the mark picks the key's SA; route again unless it already did. */
static int kav_wire_select_sa(const struct kav_wire_conf *c,
			      struct sk_buff *skb,
			      const struct nf_hook_state *state,
			      const struct kav_wire_pkt *p, u32 key)
{
	u32 mark = c->mark | key;
	const struct dst_entry *dst = skb_dst(skb);
	int err;

	if (skb->mark != mark || !dst || !dst_xfrm(dst)) {
		skb->mark = mark;
		err = state->pf == NFPROTO_IPV4 ?
			ip_route_me_harder(state->net, state->sk, skb,
					   RTN_UNSPEC) :
			nf_ip6_route_me_harder(state->net, state->sk, skb);
		if (err)
			return err;
		dst = skb_dst(skb);
	}
	/* A SYN through the SA: the MSS it offers fits inside the SA. */
	if (p->syn && dst && dst_xfrm(dst))
		return kav_wire_clamp_mss(skb, p, dst_mtu(dst) -
					  (p->family == AF_INET ?
					   sizeof(struct iphdr) :
					   sizeof(struct ipv6hdr)) -
					  sizeof(struct tcphdr));
	return 0;
}

/* ---------------------------------------------------------------- hooks */

static u16 kav_wire_family(const struct nf_hook_state *state)
{
	return state->pf == NFPROTO_IPV4 ? AF_INET : AF_INET6;
}

/*
 * The receiving socket on this node, or NULL; *@ref: ours to put. On
 * output skb->sk is the sender; on input, early demux's receiver.
 */
static struct sock *kav_wire_receiver(struct sk_buff *skb, struct net *net,
				      const struct net_device *dev,
				      u16 family, bool out, bool *ref)
{
	*ref = false;
	if (!out && skb->sk)
		return skb->sk;
	*ref = true;
	if (family == AF_INET)
		return kav_lookup_v4(net, skb, dev);
	return kav_lookup_v6(net, skb, dev);
}

/* The receiving end of a packet: its full socket (referenced) and key. */
struct kav_wire_peer {
	struct sock *sk;	/* NULL: none, or TIME_WAIT */
	u32 key;
	struct kav_grant *g;	/* under RCU: the grant giving @key */
};

/* Is @sk connected to the packet's source (a reply to its own request)? */
static bool kav_wire_connected_to(const struct sock *sk,
				  const struct kav_wire_pkt *p)
{
	if (READ_ONCE(sk->sk_state) == TCP_LISTEN ||
	    inet_sk(sk)->inet_dport != p->sport)
		return false;
	if (p->family == AF_INET)
		return !memcmp(&sk->sk_daddr, p->saddr, 4);
#if IS_ENABLED(CONFIG_IPV6)
	return !memcmp(&sk->sk_v6_daddr, p->saddr, 16);
#else
	return false;
#endif
}

/*
 * Is @p the stack's reset for a port nobody listens on, to @sk that is
 * connecting there? That reset has no socket to carry a key. TCP takes
 * it only if it acknowledges the SYN's sequence number, which no third
 * party reads in esp mode (encrypted) and which in flowlabel mode a
 * host of the segment could forge anyway; so the connection is refused
 * at once instead of timing out.
 */
static bool kav_wire_refused(const struct sock *sk,
			     const struct kav_wire_pkt *p)
{
	return sk && READ_ONCE(sk->sk_state) == TCP_SYN_SENT &&
	       kav_wire_connected_to(sk, p);
}

/*
 * Compare @key, the sender's, with the receiving socket's. Returns
 * KAV_WIRE_DROP_NR to deliver, else the reason to drop. The caller puts
 * r->sk.
 */
static u32 kav_wire_check_receiver(struct sk_buff *skb, struct net *net,
				   const struct net_device *dev, bool out,
				   const struct kav_wire_conf *c,
				   const struct kav_wire_pkt *p, u32 key,
				   struct kav_wire_peer *r)
{
	struct kav_sock_owner o;
	struct sock *sk, *full;
	bool ref, conflict;

	memset(r, 0, sizeof(*r));
	sk = kav_wire_receiver(skb, net, dev, p->family, out, &ref);
	if (!sk)		/* nobody listens: the stack answers */
		return KAV_WIRE_DROP_NR;
	full = sk_to_full_sk(sk);
	/* TIME_WAIT takes no data; a socket being freed, none either. */
	if (full && sk_fullsock(full) &&
	    refcount_inc_not_zero(&full->sk_refcnt))
		r->sk = full;
	if (ref)
		sock_gen_put(sk);
	if (!r->sk)
		return KAV_WIRE_DROP_NR;
	/* The kernel's own (NFS, SUNRPC), and replies from an exempt end. */
	if (r->sk->sk_kern_sock ||
	    (kav_wire_from_exempt(c, p) && kav_wire_connected_to(r->sk, p)))
		return KAV_WIRE_DROP_NR;
	kav_wire_sock_owner(r->sk, &o);
	r->key = kav_wire_owner_key(&o, &r->g, &conflict);
	if (conflict)
		return KAV_WIRE_DROP_CONFLICT;
	if (!r->key)
		return KAV_WIRE_DROP_RECEIVER_NO_KEY;
	if (!key)
		return KAV_WIRE_DROP_NO_CARRIER;
	if (key != r->key)
		return KAV_WIRE_DROP_MISMATCH;
	return KAV_WIRE_DROP_NR;
}

static unsigned int kav_wire_do_out(struct sk_buff *skb,
				    const struct nf_hook_state *state)
{
	const struct kav_wire_conf *c;
	struct kav_sock_owner o;
	struct kav_wire_peer r;
	struct kav_wire_pkt p;
	struct kav_grant *g;
	bool local, conflict;
	struct sock *sk;
	u32 key, why;
	int err;

	c = kav_wire_conf_rcu();
	if (!c || c->mode == KAV_WIRE_OFF || !c->nr_scope)
		return NF_ACCEPT;
	if (kav_wire_parse(skb, kav_wire_family(state), &p))
		return NF_ACCEPT;
	local = state->out && (state->out->flags & IFF_LOOPBACK);
	if (!kav_wire_in_scope(c, &p, local))
		return NF_ACCEPT;
	if (p.frag) {	/* a raw socket's own fragment header */
		kav_wire_drop(KAV_WIRE_DROP_FRAGMENT, NULL, 0, NULL);
		return NF_DROP_ERR(-EMSGSIZE);
	}
	sk = skb_to_full_sk(skb);
	/* The stack's own replies (RST, TIME_WAIT) and kernel sockets. */
	if (!sk || !sk_fullsock(sk) || sk->sk_kern_sock)
		return NF_ACCEPT;
	/*
	 * An exempted service's reply: the socket holds the port (a raw
	 * socket's "port" is its protocol number: it holds none).
	 */
	if (kav_wire_from_exempt(c, &p) && sk->sk_type != SOCK_RAW &&
	    sk->sk_protocol == p.protocol && inet_sk(sk)->inet_sport == p.sport)
		return NF_ACCEPT;
	kav_wire_sock_owner(sk, &o);
	key = kav_wire_owner_key(&o, &g, &conflict);
	/*
	 * The reset of a connection whose key went (its abort) tells the
	 * other end on this node at once; it ends only that connection.
	 */
	if (!key && local && p.rst)
		return NF_ACCEPT;
	if (!key) {
		kav_wire_drop(conflict ? KAV_WIRE_DROP_CONFLICT :
			      KAV_WIRE_DROP_SENDER_NO_KEY, sk, 0, NULL);
		kav_wire_abort(sk);
		return NF_DROP_ERR(-ECONNREFUSED);
	}
	if (local) {
		why = kav_wire_check_receiver(skb, state->net, state->out, true,
					      c, &p, key, &r);
		if (r.sk)
			sock_put(r.sk);
		if (why == KAV_WIRE_DROP_NR) {
			kav_wire_count_pass();
			return NF_ACCEPT;
		}
		/* Counted against the sender: it is the one refused. */
		kav_wire_drop(why, sk, key, g);
		kav_wire_abort(sk);
		return NF_DROP_ERR(-ECONNREFUSED);
	}
	if (p.family == AF_INET6 && kav_wire_set_label(skb, key))
		return NF_DROP;
	if (c->mode == KAV_WIRE_ESP && !kav_wire_dev_kind(state->out, "veth") &&
	    !kav_wire_dev_kind(state->out, "tun")) {
		err = kav_wire_select_sa(c, skb, state, &p, key);
		if (err)
			return NF_DROP_ERR(err);
	}
	kav_wire_count_pass();
	return NF_ACCEPT;
}

static unsigned int kav_wire_do_in(struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	const struct net_device *in = state->in;
	const struct kav_wire_conf *c;
	struct kav_wire_peer r;
	struct kav_wire_pkt p;
	u32 why;

	c = kav_wire_conf_rcu();
	if (!c || c->mode == KAV_WIRE_OFF || !c->nr_scope)
		return NF_ACCEPT;
	/* LOCAL_OUT has decided what the loopback device carries. */
	if (!in || (in->flags & IFF_LOOPBACK))
		return NF_ACCEPT;
	/*
	 * A tun/tap device in a namespace not the host's is that
	 * namespace's owner's (rootless podman's pasta, slirp4netns): what
	 * it writes reaches only the sockets there, and the host checked
	 * the owner's own socket that brought it.
	 */
	if (!net_eq(state->net, &init_net) && kav_wire_dev_kind(in, "tun"))
		return NF_ACCEPT;
	if (kav_wire_parse(skb, kav_wire_family(state), &p) ||
	    !kav_wire_in_scope(c, &p, false))
		return NF_ACCEPT;
	if (p.frag) {	/* this namespace could not reassemble it */
		kav_wire_drop(KAV_WIRE_DROP_FRAGMENT, NULL, 0, NULL);
		return NF_DROP;
	}
	why = kav_wire_check_receiver(skb, state->net, in, false, c, &p,
				      kav_wire_carried_key(c, skb, &p, in),
				      &r);
	if (why == KAV_WIRE_DROP_NO_CARRIER && p.rst &&
	    kav_wire_refused(r.sk, &p))
		why = KAV_WIRE_DROP_NR;
	if (why == KAV_WIRE_DROP_NR) {
		kav_wire_count_pass();
	} else {
		kav_wire_drop(why, r.sk, r.key, r.g);
		/* Its own key went: its connection ends. */
		if (why == KAV_WIRE_DROP_RECEIVER_NO_KEY ||
		    why == KAV_WIRE_DROP_CONFLICT)
			kav_wire_abort(r.sk);
	}
	if (r.sk)
		sock_put(r.sk);
	return why == KAV_WIRE_DROP_NR ? NF_ACCEPT : NF_DROP;
}

static unsigned int kav_wire_do_forward(struct sk_buff *skb,
					const struct nf_hook_state *state)
{
	const struct kav_wire_conf *c;
	struct kav_wire_pkt p;
	u32 key;

	c = kav_wire_conf_rcu();
	if (!c || c->mode == KAV_WIRE_OFF || !c->nr_scope)
		return NF_ACCEPT;
	if (kav_wire_parse(skb, kav_wire_family(state), &p) ||
	    !kav_wire_in_scope(c, &p, false))
		return NF_ACCEPT;
	if (p.frag) {
		kav_wire_drop(KAV_WIRE_DROP_FRAGMENT, NULL, 0, NULL);
		return NF_DROP;
	}
	key = kav_wire_carried_key(c, skb, &p, state->in);
	if (!key) {
		kav_wire_drop(KAV_WIRE_DROP_NO_CARRIER, NULL, 0, NULL);
		return NF_DROP;
	}
	if (p.family == AF_INET6 && kav_wire_set_label(skb, key))
		return NF_DROP;
	return NF_ACCEPT;
}

static unsigned int kav_wire_out(void *priv, struct sk_buff *skb,
				 const struct nf_hook_state *state)
{
	u64 t = kav_wire_time_begin();
	unsigned int v = kav_wire_do_out(skb, state);

	kav_wire_time_end(KAV_WIRE_HOOK_OUT, t);
	return v;
}

static unsigned int kav_wire_in(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	u64 t = kav_wire_time_begin();
	unsigned int v = kav_wire_do_in(skb, state);

	kav_wire_time_end(KAV_WIRE_HOOK_IN, t);
	return v;
}

static unsigned int kav_wire_forward(void *priv, struct sk_buff *skb,
				     const struct nf_hook_state *state)
{
	u64 t = kav_wire_time_begin();
	unsigned int v = kav_wire_do_forward(skb, state);

	kav_wire_time_end(KAV_WIRE_HOOK_FORWARD, t);
	return v;
}

/*
 * Last on output, so that what the namespace's own rules set is
 * overwritten; on input after defragmentation, conntrack and NAT.
 */
#define KAV_WIRE_PRIO	(INT_MAX - 1)

static const struct nf_hook_ops kav_wire_ops[] = {
	{ .hook = kav_wire_out, .pf = NFPROTO_IPV4,
	  .hooknum = NF_INET_LOCAL_OUT, .priority = KAV_WIRE_PRIO },
	{ .hook = kav_wire_in, .pf = NFPROTO_IPV4,
	  .hooknum = NF_INET_LOCAL_IN, .priority = KAV_WIRE_PRIO },
	{ .hook = kav_wire_forward, .pf = NFPROTO_IPV4,
	  .hooknum = NF_INET_FORWARD, .priority = KAV_WIRE_PRIO },
	{ .hook = kav_wire_out, .pf = NFPROTO_IPV6,
	  .hooknum = NF_INET_LOCAL_OUT, .priority = KAV_WIRE_PRIO },
	{ .hook = kav_wire_in, .pf = NFPROTO_IPV6,
	  .hooknum = NF_INET_LOCAL_IN, .priority = KAV_WIRE_PRIO },
	{ .hook = kav_wire_forward, .pf = NFPROTO_IPV6,
	  .hooknum = NF_INET_FORWARD, .priority = KAV_WIRE_PRIO },
};

/* Which reassembly each namespace turned on, to turn off at its exit. */
struct kav_wire_pernet {
	bool defrag_v4, defrag_v6;
};

static unsigned int kav_wire_net_id;

static int __net_init kav_wire_net_init(struct net *net)
{
	struct kav_wire_pernet *pn = net_generic(net, kav_wire_net_id);

	pn->defrag_v4 = kav_defrag_v4_on && !kav_defrag_v4_on(net);
	pn->defrag_v6 = kav_defrag_v6_on && !kav_defrag_v6_on(net);
	return nf_register_net_hooks(net, kav_wire_ops,
				     ARRAY_SIZE(kav_wire_ops));
}

static void __net_exit kav_wire_net_exit(struct net *net)
{
	struct kav_wire_pernet *pn = net_generic(net, kav_wire_net_id);

	nf_unregister_net_hooks(net, kav_wire_ops, ARRAY_SIZE(kav_wire_ops));
	if (pn->defrag_v4)
		kav_defrag_v4_off(net);
	if (pn->defrag_v6)
		kav_defrag_v6_off(net);
}

static struct pernet_operations kav_wire_net_ops = {
	.init = kav_wire_net_init,
	.exit = kav_wire_net_exit,
	.id = &kav_wire_net_id,
	.size = sizeof(struct kav_wire_pernet),
};

static void kav_wire_symbols_put(void)
{
	if (kav_lookup_v4)
		symbol_put(nf_sk_lookup_slow_v4);
	if (kav_lookup_v6)
		symbol_put(nf_sk_lookup_slow_v6);
	if (kav_defrag_v4_on)
		symbol_put(nf_defrag_ipv4_enable);
	if (kav_defrag_v4_off)
		symbol_put(nf_defrag_ipv4_disable);
	if (kav_defrag_v6_on)
		symbol_put(nf_defrag_ipv6_enable);
	if (kav_defrag_v6_off)
		symbol_put(nf_defrag_ipv6_disable);
	kav_lookup_v4 = NULL;
	kav_lookup_v6 = NULL;
	kav_defrag_v4_on = NULL;
	kav_defrag_v4_off = NULL;
	kav_defrag_v6_on = NULL;
	kav_defrag_v6_off = NULL;
}

static void kav_wire_symbols_get(void)
{
	request_module("nf_socket_ipv4");
	request_module("nf_socket_ipv6");
	request_module("nf_defrag_ipv4");
	request_module("nf_defrag_ipv6");
	kav_lookup_v4 = symbol_get(nf_sk_lookup_slow_v4);
	kav_lookup_v6 = symbol_get(nf_sk_lookup_slow_v6);
	kav_defrag_v4_on = symbol_get(nf_defrag_ipv4_enable);
	kav_defrag_v4_off = symbol_get(nf_defrag_ipv4_disable);
	kav_defrag_v6_on = symbol_get(nf_defrag_ipv6_enable);
	kav_defrag_v6_off = symbol_get(nf_defrag_ipv6_disable);
	/* Both halves of a pair, or neither. */
	if (!kav_defrag_v4_on || !kav_defrag_v4_off) {
		if (kav_defrag_v4_on)
			symbol_put(nf_defrag_ipv4_enable);
		if (kav_defrag_v4_off)
			symbol_put(nf_defrag_ipv4_disable);
		kav_defrag_v4_on = NULL;
		kav_defrag_v4_off = NULL;
	}
	if (!kav_defrag_v6_on || !kav_defrag_v6_off) {
		if (kav_defrag_v6_on)
			symbol_put(nf_defrag_ipv6_enable);
		if (kav_defrag_v6_off)
			symbol_put(nf_defrag_ipv6_disable);
		kav_defrag_v6_on = NULL;
		kav_defrag_v6_off = NULL;
	}
}

/*
 * Turn the hooks on, in every namespace and in each one made later: the
 * socket lookups first (nf_socket_ipv4/6, loaded on demand), then the
 * pernet hooks, then the veth guard. EOPNOTSUPP: a kernel without them.
 */
static int kav_wire_hooks_register(void)
{
	int ret;

	kav_wire_symbols_get();
	if (!kav_lookup_v4 || !kav_lookup_v6) {
		ret = -EOPNOTSUPP;
		goto put;
	}
	kav_wire_wq = alloc_workqueue("kav_wire", WQ_UNBOUND, 0);
	if (!kav_wire_wq) {
		ret = -ENOMEM;
		goto put;
	}
	ret = register_pernet_subsys(&kav_wire_net_ops);
	if (ret)
		goto wq;
	ret = kav_wire_guard_register();
	if (ret)
		goto pernet;
	return 0;
pernet:
	unregister_pernet_subsys(&kav_wire_net_ops);
	synchronize_net();
wq:
	destroy_workqueue(kav_wire_wq);
	kav_wire_wq = NULL;
put:
	kav_wire_symbols_put();
	return ret;
}

/*
 * Module exit: no hook runs after this, and no abort is left queued.
 * Unregistering takes a hook off the lists but does not wait for a
 * packet already inside it (nf_hook_slow() runs under RCU): wait for
 * those before the queue, the configuration and the counters they use
 * are freed.
 */
static void kav_wire_hooks_unregister(void)
{
	kav_wire_guard_unregister();
	unregister_pernet_subsys(&kav_wire_net_ops);
	synchronize_net();
	destroy_workqueue(kav_wire_wq);
	kav_wire_symbols_put();
}

/* ---------------------------------------------------------- revocation */

/*
 * @sk's connection as a packet it sends, for the scope's tests; true if
 * the peer is on this node as far as the addresses tell (the loopback
 * device carries it).
 */
static bool kav_wire_sk_tuple(const struct sock *sk, struct kav_wire_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->protocol = sk->sk_protocol;
	p->sport = inet_sk(sk)->inet_sport;
	p->dport = inet_sk(sk)->inet_dport;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sk->sk_v6_daddr)) {
		p->family = AF_INET6;
		memcpy(p->saddr, &sk->sk_v6_rcv_saddr, 16);
		memcpy(p->daddr, &sk->sk_v6_daddr, 16);
		return ipv6_addr_loopback(&sk->sk_v6_daddr) ||
		       ipv6_addr_equal(&sk->sk_v6_daddr, &sk->sk_v6_rcv_saddr);
	}
#endif
	p->family = AF_INET;
	memcpy(p->saddr, &sk->sk_rcv_saddr, 4);
	memcpy(p->daddr, &sk->sk_daddr, 4);
	return ipv4_is_loopback(sk->sk_daddr) ||
	       sk->sk_daddr == sk->sk_rcv_saddr;
}

/*
 * An unconnected UDP socket as the datagrams to it: to its bound address
 * and port, from anywhere; true if that is this node's loopback or any
 * address (a wildcard socket is then in scope by the port range alone,
 * as on the loopback; without a range, only one bound to an address in a
 * scope prefix is).
 */
static bool kav_wire_udp_tuple(const struct sock *sk, struct kav_wire_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->protocol = IPPROTO_UDP;
	p->dport = inet_sk(sk)->inet_sport;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sk->sk_v6_rcv_saddr)) {
		p->family = AF_INET6;
		memcpy(p->daddr, &sk->sk_v6_rcv_saddr, 16);
		return ipv6_addr_any(&sk->sk_v6_rcv_saddr) ||
		       ipv6_addr_loopback(&sk->sk_v6_rcv_saddr);
	}
#endif
	p->family = AF_INET;
	memcpy(p->daddr, &sk->sk_rcv_saddr, 4);
	return !sk->sk_rcv_saddr || ipv4_is_loopback(sk->sk_rcv_saddr);
}

/*
 * A TCP connection or a UDP socket in scope whose owner has no key: its
 * packets go no more. A connected UDP socket is its connection, as TCP's.
 */
static bool kav_wire_sk_keyless(const struct kav_wire_conf *c, struct sock *sk)
{
	struct kav_sock_owner o;
	struct kav_wire_pkt p;
	struct kav_grant *g;
	bool local, conflict;
	int state;

	if (!sk_fullsock(sk) || sk->sk_kern_sock)
		return false;
	state = READ_ONCE(sk->sk_state);
	if (sk->sk_protocol == IPPROTO_TCP &&
	    !((1 << state) & (TCPF_LISTEN | TCPF_CLOSE)))
		local = kav_wire_sk_tuple(sk, &p);
	else if (sk->sk_protocol == IPPROTO_UDP && state == TCP_ESTABLISHED)
		local = kav_wire_sk_tuple(sk, &p);
	else if (sk->sk_protocol == IPPROTO_UDP)
		local = kav_wire_udp_tuple(sk, &p);
	else
		return false;
	if (!kav_wire_in_scope(c, &p, local) || kav_wire_from_exempt(c, &p))
		return false;
	kav_wire_sock_owner(sk, &o);
	return !kav_wire_owner_key(&o, &g, &conflict);
}

/*
 * Buckets walked per RCU read-side section: a node's hash can hold a
 * million buckets, and the sweep runs under the genl mutex, so it yields
 * between batches rather than holding off grace periods and the CPU.
 */
#define KAV_WIRE_SWEEP_BATCH	256

/* Connections one batch holds to abort at most. */
#define KAV_WIRE_SWEEP_HELD	32

struct kav_wire_sweep_held {
	struct sock *sk[KAV_WIRE_SWEEP_HELD];
	unsigned int n;
};

/*
 * Take a reference to each keyless connection of buckets [@i, @i +
 * batch) of @h into @held; the next bucket to walk (past the mask at
 * the end). A bucket that holds more than @held has room for is walked
 * again next (the ones held are aborted, unhashed, by then). Under
 * rcu_read_lock().
 */
static unsigned int kav_wire_sweep_batch(const struct kav_wire_conf *c,
					 struct inet_hashinfo *h,
					 unsigned int i,
					 struct kav_wire_sweep_held *held)
{
	unsigned int end = i + KAV_WIRE_SWEEP_BATCH;
	struct hlist_nulls_node *node;
	struct sock *sk;
	bool full = false;

	for (; i <= h->ehash_mask && i < end; i++) {
		if (hlist_nulls_empty(&h->ehash[i].chain))
			continue;
		spin_lock_bh(inet_ehash_lockp(h, i));
		sk_nulls_for_each(sk, node, &h->ehash[i].chain) {
			if (held->n == KAV_WIRE_SWEEP_HELD) {
				full = true;
				break;
			}
			if (kav_wire_sk_keyless(c, sk) &&
			    refcount_inc_not_zero(&sk->sk_refcnt))
				held->sk[held->n++] = sk;
		}
		spin_unlock_bh(inet_ehash_lockp(h, i));
		if (full)
			return i;
	}
	return i;
}

/*
 * Abort what a batch held, as sock_diag's destroy does: tcp_abort() and
 * udp_abort() take the socket's lock, so here, with no lock and no RCU
 * held, and with nothing queued (the hooks' queue of 256 is for their
 * aborts). A UDP socket gets ECONNABORTED at its next call (a blocked
 * receive wakes with it) and stays bound if its owner bound it.
 */
static void kav_wire_sweep_abort(struct kav_wire_sweep_held *held)
{
	unsigned int k;

	for (k = 0; k < held->n; k++) {
		struct sock *sk = held->sk[k];

		if (sk->sk_protocol == IPPROTO_UDP) {
			/* udp_abort(), which 7.x no longer exports */
			if (sk->sk_prot->diag_destroy &&
			    !sk->sk_prot->diag_destroy(sk, ECONNABORTED))
				kav_wire_count_abort();
		} else if (READ_ONCE(sk->sk_state) != TCP_CLOSE &&
			   !tcp_abort(sk, ECONNABORTED)) {
			kav_wire_count_abort();
		}
		sock_put(sk);
	}
	held->n = 0;
}

/*
 * Sweep @h, a batch per RCU section, taking the configuration afresh in
 * each: a change between two batches applies from the next. @h is the
 * shared hash or one of a namespace the caller holds a reference to. A
 * bucket walked again more than 8 times in a row is left (a connection
 * tcp_abort() could not unhash must not hold the sweep forever).
 */
static void kav_wire_sweep_hash(struct inet_hashinfo *h)
{
	struct kav_wire_sweep_held held = { .n = 0 };
	const struct kav_wire_conf *c;
	unsigned int i = 0, next, again = 0;

	do {
		rcu_read_lock();
		c = kav_wire_conf_rcu();
		if (c && c->mode != KAV_WIRE_OFF && c->nr_scope)
			next = kav_wire_sweep_batch(c, h, i, &held);
		else
			next = h->ehash_mask + 1;
		rcu_read_unlock();
		kav_wire_sweep_abort(&held);
		if (next != i)
			again = 0;
		else if (++again > 8)
			next++;
		i = next;
		cond_resched();
	} while (i <= h->ehash_mask);
}

/*
 * Take a reference to each keyless UDP socket of slots [@i, @i + batch)
 * of @t's port hash into @held; the next slot to walk. Aborted, a UDP
 * socket stays hashed if it was bound by its owner, so a slot that holds
 * more than @held has room for is walked again from past the *@skip
 * keyless sockets already held. Under rcu_read_lock().
 */
static unsigned int kav_wire_sweep_udp_batch(const struct kav_wire_conf *c,
					     struct udp_table *t,
					     unsigned int i, unsigned int *skip,
					     struct kav_wire_sweep_held *held)
{
	unsigned int end = i + KAV_WIRE_SWEEP_BATCH, seen;
	struct udp_hslot *hs;
	struct sock *sk;
	bool full = false;

	for (; i <= t->mask && i < end; i++, *skip = 0) {
		hs = &t->hash[i];
		if (hlist_empty(&hs->head))
			continue;
		seen = 0;
		spin_lock_bh(&hs->lock);
		sk_for_each(sk, &hs->head) {
			if (!kav_wire_sk_keyless(c, sk) || seen++ < *skip)
				continue;
			if (held->n == KAV_WIRE_SWEEP_HELD) {
				full = true;
				break;
			}
			if (refcount_inc_not_zero(&sk->sk_refcnt))
				held->sk[held->n++] = sk;
		}
		spin_unlock_bh(&hs->lock);
		if (full) {
			*skip = seen - 1;
			return i;
		}
	}
	return i;
}

/* Sweep the UDP sockets of @t, as kav_wire_sweep_hash() the connections. */
static void kav_wire_sweep_udp(struct udp_table *t)
{
	struct kav_wire_sweep_held held = { .n = 0 };
	const struct kav_wire_conf *c;
	unsigned int i = 0, skip = 0;

	do {
		rcu_read_lock();
		c = kav_wire_conf_rcu();
		if (c && c->mode != KAV_WIRE_OFF && c->nr_scope)
			i = kav_wire_sweep_udp_batch(c, t, i, &skip, &held);
		else
			i = t->mask + 1;
		rcu_read_unlock();
		kav_wire_sweep_abort(&held);
		cond_resched();
	} while (i <= t->mask);
}

/*
 * @net's UDP table: its own, or the one every namespace shares (6.1 has
 * only that one; 7.x no longer exports it, so it is read from the net).
 */
static struct udp_table *kav_wire_net_udp(struct net *net)
{
#ifdef KAV_HAVE_NET_UDP_TABLE
	return net->ipv4.udp_table;
#else
	return &udp_table;
#endif
}

/*
 * The hooks abort a connection at its next packet; an end that sends
 * nothing (a receiver) would never hear, and its peer's reset, keyless
 * now, cannot cross; a UDP socket waiting for datagrams would wait for
 * ever. So a revocation walks every namespace's established hash and UDP
 * table (the ones they share, and any of their own) as sock_diag's
 * destroy does, and aborts the connections and UDP sockets in scope left
 * without a key. A namespace with a table of its own is held
 * (maybe_get_net()) while it is walked outside RCU; held, it stays on
 * net_namespace_list, so the walk goes on from it.
 */
static void kav_wire_sweep(void)
{
	struct inet_hashinfo *shared = init_net.ipv4.tcp_death_row.hashinfo;
	struct udp_table *shared_udp = kav_wire_net_udp(&init_net);
	struct net *net, *held = NULL;
	bool own_tcp, own_udp;

	kav_wire_sweep_hash(shared);
	kav_wire_sweep_udp(shared_udp);
	rcu_read_lock();
	for_each_net_rcu(net) {
		own_tcp = net->ipv4.tcp_death_row.hashinfo != shared;
		own_udp = kav_wire_net_udp(net) != shared_udp;
		if ((!own_tcp && !own_udp) || !maybe_get_net(net))
			continue;
		rcu_read_unlock();
		if (held)
			put_net(held);
		held = net;
		if (own_tcp)
			kav_wire_sweep_hash(net->ipv4.tcp_death_row.hashinfo);
		if (own_udp)
			kav_wire_sweep_udp(kav_wire_net_udp(net));
		rcu_read_lock();
	}
	rcu_read_unlock();
	if (held)
		put_net(held);
}

#else /* !KAV_WIRE_HOOKS */

static int kav_wire_hooks_register(void)
{
	return -EOPNOTSUPP;
}

static void kav_wire_hooks_unregister(void)
{
}

static void kav_wire_sweep(void)
{
}

#endif /* KAV_WIRE_HOOKS */

/*
 * The hooks are registered the first time a mode other than off is set
 * and stay until the module goes: with no scope, or mode off, each hook
 * returns at its first test. A module that never had the wire set takes
 * no netfilter module and changes nothing.
 */
static DEFINE_MUTEX(kav_wire_hook_lock);
static bool kav_wire_hooked;		/* under kav_wire_hook_lock */

int kav_wire_set(const struct kav_wire_change *c, const char **why)
{
	int ret = 0;

	mutex_lock(&kav_wire_hook_lock);
	if (c->has_mode && c->mode != KAV_WIRE_OFF &&
	    c->mode < __KAV_WIRE_MODE_MAX && !kav_wire_hooked) {
		ret = kav_wire_hooks_register();
		if (ret)
			*why = ret == -EOPNOTSUPP ?
			       "no netfilter ingress, nf_socket_ipv4/6, IPv4 or IPv6 here" :
			       "could not register the netfilter hooks";
		else
			kav_wire_hooked = true;
	}
	mutex_unlock(&kav_wire_hook_lock);
	return ret ?: kav_wire_conf_set(c, why);
}

/*
 * A wire grant was revoked (GRANT_DEL): the connections it carried end
 * now (kav_wire_sweep()), at both ends once each node revokes.
 */
void kav_wire_key_revoked(void)
{
	mutex_lock(&kav_wire_hook_lock);
	if (kav_wire_hooked)
		kav_wire_sweep();
	mutex_unlock(&kav_wire_hook_lock);
}

int kav_wire_init(void (*notify)(const struct kav_wire_event *ev))
{
	return kav_wire_conf_init(notify);
}

/* After the genl family is gone: nothing turns the hooks on again. */
void kav_wire_exit(void)
{
	if (kav_wire_hooked)
		kav_wire_hooks_unregister();
	kav_wire_conf_exit();
}
