// SPDX-License-Identifier: GPL-2.0
/*
 * The veth guard: what a container may claim where its frames enter the
 * host. Root in a container's namespace can write any frame to its end
 * of a veth (AF_PACKET bypasses that namespace's LOCAL_OUT), so the flow
 * label it brings is not to be believed: at the other end, before the
 * frame reaches a bridge or the host's IP layer, a scoped IPv6 packet
 * must carry the key the container's namespace is granted on the wire
 * (a netns grant), or it is dropped. Behind the guard, the label that
 * passed is the namespace's key (kav_wire.c trusts it, as it trusts the
 * host's own stamp on the way in).
 *
 * One netdev ingress hook per veth whose far end is in another namespace
 * that is not the host's. A netdevice notifier keeps them: RTNL holds
 * while a hook is added, re-aimed (the far end moved) or removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_netdev.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>
#include "kav_wire.h"

#ifdef KAV_WIRE_HOOKS

struct kav_wire_guard {
	struct list_head node;		/* under RTNL */
	struct net_device *dev;
	struct nf_hook_ops ops;
	u64 peer_cookie;		/* the far end's namespace; 0: none */
	struct rcu_head rcu;
};

static LIST_HEAD(kav_wire_guards);

static unsigned int kav_wire_guard_check(const struct kav_wire_guard *gd,
					 struct sk_buff *skb)
{
	u64 cookie = READ_ONCE(gd->peer_cookie);
	const struct kav_wire_conf *c;
	struct kav_wire_event ev = { 0 };
	struct kav_wire_pkt p;
	u32 key;

	if (!cookie)
		return NF_ACCEPT;
	c = kav_wire_conf_rcu();
	if (!c || c->mode == KAV_WIRE_OFF || !c->nr_scope)
		return NF_ACCEPT;
	/*
	 * One VLAN tag is gone by now (skb_vlan_untag()); a frame still
	 * tagged would hide its IPv6 header from this check, and a VLAN
	 * device on the host's end would take it past: not from a container.
	 */
	if (eth_type_vlan(skb->protocol))
		goto drop;
	if (skb->protocol != htons(ETH_P_IPV6))
		return NF_ACCEPT;	/* IPv4 carries no key: refused later */
	if (kav_wire_parse(skb, AF_INET6, &p) ||
	    !kav_wire_in_scope(c, &p, false))
		return NF_ACCEPT;
	/* Every fragment carries the label: it holds for them too. */
	key = kav_wire_netns_key(cookie);
	if (key && p.label == key)
		return NF_ACCEPT;
drop:
	ev.reason = KAV_WIRE_DROP_NETNS;
	ev.uid = (u32)-1;		/* a frame: no socket */
	ev.netns_cookie = cookie;
	ev.vni = key;
	kav_wire_count_drop(ev.reason, &ev);
	return NF_DROP;
}

static unsigned int kav_wire_guard_hook(void *priv, struct sk_buff *skb,
					const struct nf_hook_state *state)
{
	u64 t = kav_wire_time_begin();
	unsigned int v = kav_wire_guard_check(priv, skb);

	kav_wire_time_end(KAV_WIRE_HOOK_GUARD, t);
	return v;
}

static struct kav_wire_guard *kav_wire_guard_find(struct net_device *dev)
{
	struct kav_wire_guard *gd;

	list_for_each_entry(gd, &kav_wire_guards, node)
		if (gd->dev == dev)
			return gd;
	return NULL;
}

/* The far end's namespace, if it is another and not the host's. */
static u64 kav_wire_guard_peer(struct net_device *dev)
{
	struct net *peer;

	ASSERT_RTNL();
	if (!dev->rtnl_link_ops->get_link_net)
		return 0;
	peer = dev->rtnl_link_ops->get_link_net(dev);
	if (!peer || net_eq(peer, dev_net(dev)) || net_eq(peer, &init_net))
		return 0;
	return peer->net_cookie;
}

/*
 * Give @dev its guard, or aim it again (the far end moved: the carrier
 * went and came back). A far end moved while this end stays up is seen
 * when the link watcher reports the carrier, within a second; container
 * runtimes move the far end before they bring the pair up.
 */
static int kav_wire_guard_update(struct net_device *dev)
{
	struct kav_wire_guard *gd = kav_wire_guard_find(dev);
	int ret;

	if (gd) {
		WRITE_ONCE(gd->peer_cookie, kav_wire_guard_peer(dev));
		return 0;
	}
	gd = kzalloc(sizeof(*gd), GFP_KERNEL);
	if (!gd)
		return -ENOMEM;
	gd->dev = dev;
	gd->peer_cookie = kav_wire_guard_peer(dev);
	gd->ops.hook = kav_wire_guard_hook;
	gd->ops.pf = NFPROTO_NETDEV;
	gd->ops.hooknum = NF_NETDEV_INGRESS;
	gd->ops.priority = INT_MIN + 1;	/* before anything of the host's */
	gd->ops.dev = dev;
	gd->ops.priv = gd;
	ret = nf_register_net_hook(dev_net(dev), &gd->ops);
	if (ret) {
		kfree(gd);
		return ret;
	}
	list_add(&gd->node, &kav_wire_guards);
	return 0;
}

static void kav_wire_guard_remove(struct net_device *dev)
{
	struct kav_wire_guard *gd = kav_wire_guard_find(dev);

	if (!gd)
		return;
	list_del(&gd->node);
	nf_unregister_net_hook(dev_net(dev), &gd->ops);
	/*
	 * A packet may still be inside the hook, reading @gd: the module's
	 * exit replays NETDEV_UNREGISTER for veths that are up and passing
	 * traffic.
	 */
	kfree_rcu(gd, rcu);
}

static int kav_wire_guard_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	if (!dev->rtnl_link_ops || strcmp(dev->rtnl_link_ops->kind, "veth"))
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_PRE_UP:	/* no guard: the veth does not come up */
		return notifier_from_errno(kav_wire_guard_update(dev));
	case NETDEV_UP:		/* also replayed for those up at enable */
	case NETDEV_CHANGE:	/* the far end came or went */
		if (kav_wire_guard_update(dev))
			pr_err("no wire guard on %s: a forged key from its far end is not refused\n",
			       dev->name);
		break;
	case NETDEV_UNREGISTER:
		kav_wire_guard_remove(dev);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block kav_wire_guard_nb = {
	.notifier_call = kav_wire_guard_event,
};

/* Every veth that is up now gets its guard (the notifier replays them). */
int kav_wire_guard_register(void)
{
	return register_netdevice_notifier(&kav_wire_guard_nb);
}

void kav_wire_guard_unregister(void)
{
	unregister_netdevice_notifier(&kav_wire_guard_nb);
	/* The replayed NETDEV_UNREGISTER removed every guard. */
	WARN_ON(!list_empty(&kav_wire_guards));
}

#endif /* KAV_WIRE_HOOKS */
