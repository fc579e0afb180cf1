/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav-wire: wire keys enforced on TCP and UDP in the fabric scope
 * (Documentation/wire.rst). Beside the objects layer: it answers from
 * the grant list (kav_policy.h) and knows nothing of tables or files.
 *
 *   kav_wire.c        the rule, on LOCAL_OUT, LOCAL_IN and FORWARD of
 *                     every network namespace; turning the hooks on
 *   kav_wire_guard.c  what a container's veth may claim where its frames
 *                     enter the host
 *   kav_wire_pkt.c    what the rule sees of a packet and of a socket
 *   kav_wire_conf.c   the administrator's settings, published under RCU;
 *                     counters and drop events
 */
#ifndef KAV_WIRE_H
#define KAV_WIRE_H

#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/kav.h>

/*
 * The hooks need netfilter with its ingress hook, IPv4 and IPv6 (every
 * kernel of Debian's has them). Without them kav.ko builds, and setting
 * a mode other than off is EOPNOTSUPP.
 */
#if IS_ENABLED(CONFIG_NETFILTER_INGRESS) && IS_ENABLED(CONFIG_INET) && \
	IS_ENABLED(CONFIG_IPV6)
#define KAV_WIRE_HOOKS 1
#endif

struct net_device;
struct sk_buff;
struct sock;

/* One immutable copy of the settings; replaced as a whole. */
struct kav_wire_conf {
	struct rcu_head rcu;
	u32 mode;			/* enum kav_wire_mode */
	u16 port_min, port_max;		/* 0, 0: every port */
	u32 mark;			/* esp: the mark base */
	u32 nr_nets;
	u32 nr_scope;			/* of them, not exemptions */
	struct kav_wire_net nets[KAV_WIRE_NETS_MAX];
};

/* What WIRE_SET changes: each field only if its has_ flag is set. */
struct kav_wire_change {
	bool has_mode, has_ports, has_mark;
	u32 mode;
	u16 port_min, port_max;
	u32 mark;
};

struct kav_wire_counters {
	u64 passed;
	u64 aborts;
	u64 drops[KAV_WIRE_DROP_NR];
};

/* A drop event for administrators (KAV_GENL_CMD_WIRE_DROP). */
struct kav_wire_event {
	u32 reason;			/* enum kav_wire_drop */
	u32 uid;			/* the local socket's; -1: none */
	u64 cgroup_id;
	u64 netns_cookie;
	u32 vni;			/* its key; 0: none */
	u64 drops;			/* since the last event */
};

enum kav_wire_hook {
	KAV_WIRE_HOOK_OUT,
	KAV_WIRE_HOOK_IN,
	KAV_WIRE_HOOK_FORWARD,
	KAV_WIRE_HOOK_GUARD,
	KAV_WIRE_HOOK_NR,
};

/* kav_wire_conf.c */
u64 kav_wire_time_begin(void);
void kav_wire_time_end(enum kav_wire_hook h, u64 start);
int kav_wire_conf_init(void (*notify)(const struct kav_wire_event *ev));
void kav_wire_conf_exit(void);
int kav_wire_conf_set(const struct kav_wire_change *c, const char **why);
int kav_wire_net_add(const struct kav_wire_net *n, const char **why);
int kav_wire_net_del(const struct kav_wire_net *n, const char **why);
struct kav_wire_conf *kav_wire_conf_copy(void);
void kav_wire_counters(struct kav_wire_counters *c);
const struct kav_wire_conf *kav_wire_conf_rcu(void);
void kav_wire_count_pass(void);
void kav_wire_count_abort(void);
void kav_wire_count_drop(u32 reason, const struct kav_wire_event *ev);

/* A TCP segment or UDP datagram, as the rule sees it (kav_wire.c). */
struct kav_wire_pkt {
	u16 family;			/* AF_INET, AF_INET6 */
	bool frag;			/* a fragment: no ports */
	bool rst;			/* a TCP reset */
	bool syn;			/* a TCP SYN (or SYN-ACK) */
	u8 protocol;			/* IPPROTO_TCP, IPPROTO_UDP */
	__be16 sport, dport;
	u8 saddr[16], daddr[16];
	u32 label;			/* IPv6 flow label */
	unsigned int thoff;		/* of the TCP/UDP header, from data */
};

struct kav_grant;
struct kav_sock_owner;

/* kav_wire_pkt.c */
int kav_wire_parse(struct sk_buff *skb, u16 family, struct kav_wire_pkt *p);
bool kav_wire_in_scope(const struct kav_wire_conf *c,
		       const struct kav_wire_pkt *p, bool local);
int kav_wire_clamp_mss(struct sk_buff *skb, const struct kav_wire_pkt *p,
		       unsigned int mss);
bool kav_wire_from_exempt(const struct kav_wire_conf *c,
			  const struct kav_wire_pkt *p);
kuid_t kav_wire_sk_uid(const struct sock *sk);
void kav_wire_sock_owner(struct sock *sk, struct kav_sock_owner *o);
u32 kav_wire_owner_key(const struct kav_sock_owner *o, struct kav_grant **g,
		       bool *conflict);
u32 kav_wire_netns_key(u64 cookie);

/* kav_wire.c: the hooks and the rule; what administration calls */
int kav_wire_init(void (*notify)(const struct kav_wire_event *ev));
void kav_wire_exit(void);
int kav_wire_set(const struct kav_wire_change *c, const char **why);
void kav_wire_key_revoked(void);

/* kav_wire_guard.c */
int kav_wire_guard_register(void);
void kav_wire_guard_unregister(void);

#endif /* KAV_WIRE_H */
