// SPDX-License-Identifier: GPL-2.0
/*
 * The wire's settings (the administrator's, over generic netlink): mode,
 * port range, esp mark base, scope prefixes and exemptions. The hooks
 * read one immutable copy under RCU; a change makes a new copy under
 * kav_wire_lock and publishes it, so a packet sees the old settings or
 * the new, never half of a change. Counters are per CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/sched/clock.h>
#include <linux/sysfs.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "kav_wire.h"

static DEFINE_MUTEX(kav_wire_lock);
static struct kav_wire_conf __rcu *kav_wire_current;

struct kav_wire_pcpu {
	u64 passed;
	u64 aborts;
	u64 drops[KAV_WIRE_DROP_NR];
	u64 hook_pkts[KAV_WIRE_HOOK_NR];	/* with wire_timing on */
	u64 hook_ns[KAV_WIRE_HOOK_NR];
};

static struct kav_wire_pcpu __percpu *kav_wire_stats;

/* Drop events: the first after a quiet second at once, then one a second. */
static void (*kav_wire_notify)(const struct kav_wire_event *ev);
static DEFINE_SPINLOCK(kav_wire_event_lock);
static struct kav_wire_event kav_wire_pending;	/* under the lock */
static unsigned long kav_wire_event_at;		/* jiffies of the last */
static atomic64_t kav_wire_since_event = ATOMIC64_INIT(0);
static void kav_wire_event_work(struct work_struct *w);
static DECLARE_WORK(kav_wire_event, kav_wire_event_work);

#define KAV_WIRE_MARK_DEFAULT	0x4b000000U

/*
 * The hooks' own time (make bench-wire): with wire_timing set, each hook
 * adds local_clock() around its work to per-CPU sums, which
 * wire_hook_ns reads, with the cost of an empty timed region measured
 * when timing was turned on ("clock"). Off, a hook pays one load.
 */
static bool kav_wire_timing;
static u64 kav_wire_clock_ns;

static int kav_wire_timing_set(const char *val, const struct kernel_param *kp)
{
	u64 best = U64_MAX, t;
	int ret, i;

	ret = param_set_bool(val, kp);
	if (ret || !READ_ONCE(kav_wire_timing))
		return ret;
	for (i = 0; i < 1000; i++) {
		t = local_clock();
		t = local_clock() - t;
		best = min(best, t);
	}
	WRITE_ONCE(kav_wire_clock_ns, best);
	return 0;
}

static const struct kernel_param_ops kav_wire_timing_ops = {
	.set = kav_wire_timing_set,
	.get = param_get_bool,
};
module_param_cb(wire_timing, &kav_wire_timing_ops, &kav_wire_timing, 0644);
MODULE_PARM_DESC(wire_timing, "Time the wire hooks (wire_hook_ns)");

static const char * const kav_wire_hook_name[KAV_WIRE_HOOK_NR] = {
	[KAV_WIRE_HOOK_OUT] = "out",
	[KAV_WIRE_HOOK_IN] = "in",
	[KAV_WIRE_HOOK_FORWARD] = "forward",
	[KAV_WIRE_HOOK_GUARD] = "guard",
};

static int kav_wire_hook_ns_get(char *buf, const struct kernel_param *kp)
{
	u64 pkts, ns;
	int cpu, h, n;

	n = sysfs_emit(buf, "clock %llu\n", READ_ONCE(kav_wire_clock_ns));
	for (h = 0; h < KAV_WIRE_HOOK_NR; h++) {
		pkts = 0;
		ns = 0;
		for_each_possible_cpu(cpu) {
			pkts += READ_ONCE(per_cpu_ptr(kav_wire_stats, cpu)->hook_pkts[h]);
			ns += READ_ONCE(per_cpu_ptr(kav_wire_stats, cpu)->hook_ns[h]);
		}
		n += sysfs_emit_at(buf, n, "%s %llu packets %llu ns\n",
				   kav_wire_hook_name[h], pkts, ns);
	}
	return n;
}

static const struct kernel_param_ops kav_wire_hook_ns_ops = {
	.get = kav_wire_hook_ns_get,
};
module_param_cb(wire_hook_ns, &kav_wire_hook_ns_ops, NULL, 0444);
MODULE_PARM_DESC(wire_hook_ns, "Packets and ns in each wire hook (wire_timing)");

/* 0: not timing; else the start, for kav_wire_time_end(). */
u64 kav_wire_time_begin(void)
{
	return READ_ONCE(kav_wire_timing) ? local_clock() ?: 1 : 0;
}

void kav_wire_time_end(enum kav_wire_hook h, u64 start)
{
	if (!start)
		return;
	this_cpu_add(kav_wire_stats->hook_ns[h], local_clock() - start);
	this_cpu_inc(kav_wire_stats->hook_pkts[h]);
}

const struct kav_wire_conf *kav_wire_conf_rcu(void)
{
	return rcu_dereference(kav_wire_current);
}

void kav_wire_count_pass(void)
{
	this_cpu_inc(kav_wire_stats->passed);
}

void kav_wire_count_abort(void)
{
	this_cpu_inc(kav_wire_stats->aborts);
}

void kav_wire_count_drop(u32 reason, const struct kav_wire_event *ev)
{
	unsigned long now = jiffies, last = READ_ONCE(kav_wire_event_at);
	unsigned long flags;

	this_cpu_inc(kav_wire_stats->drops[reason]);
	atomic64_inc(&kav_wire_since_event);
	if (!time_after(now, last + HZ) ||
	    cmpxchg(&kav_wire_event_at, last, now) != last)
		return;
	spin_lock_irqsave(&kav_wire_event_lock, flags);
	kav_wire_pending = *ev;
	spin_unlock_irqrestore(&kav_wire_event_lock, flags);
	schedule_work(&kav_wire_event);
}

static void kav_wire_event_work(struct work_struct *w)
{
	struct kav_wire_event ev;

	spin_lock_irq(&kav_wire_event_lock);
	ev = kav_wire_pending;
	spin_unlock_irq(&kav_wire_event_lock);
	ev.drops = atomic64_xchg(&kav_wire_since_event, 0);
	kav_wire_notify(&ev);
}

void kav_wire_counters(struct kav_wire_counters *c)
{
	int cpu, i;

	memset(c, 0, sizeof(*c));
	for_each_possible_cpu(cpu) {
		const struct kav_wire_pcpu *s = per_cpu_ptr(kav_wire_stats, cpu);

		c->passed += READ_ONCE(s->passed);
		c->aborts += READ_ONCE(s->aborts);
		for (i = 0; i < KAV_WIRE_DROP_NR; i++)
			c->drops[i] += READ_ONCE(s->drops[i]);
	}
}

/* A copy of the settings for a reply, or NULL (ENOMEM). */
struct kav_wire_conf *kav_wire_conf_copy(void)
{
	struct kav_wire_conf *c;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	mutex_lock(&kav_wire_lock);
	*c = *rcu_dereference_protected(kav_wire_current,
					lockdep_is_held(&kav_wire_lock));
	mutex_unlock(&kav_wire_lock);
	return c;
}

/* Under kav_wire_lock: a new copy of the settings to change. */
static struct kav_wire_conf *kav_wire_begin(void)
{
	struct kav_wire_conf *c = kmalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);

	lockdep_assert_held(&kav_wire_lock);
	if (c)
		*c = *rcu_dereference_protected(kav_wire_current,
						lockdep_is_held(&kav_wire_lock));
	return c;
}

static void kav_wire_publish(struct kav_wire_conf *c)
{
	struct kav_wire_conf *old;

	old = rcu_replace_pointer(kav_wire_current, c,
				  lockdep_is_held(&kav_wire_lock));
	kfree_rcu(old, rcu);
}

int kav_wire_conf_set(const struct kav_wire_change *ch, const char **why)
{
	struct kav_wire_conf *c;

	if (ch->has_mode && ch->mode >= __KAV_WIRE_MODE_MAX) {
		*why = "unknown wire mode";
		return -EINVAL;
	}
	if (ch->has_ports && ch->port_min > ch->port_max) {
		*why = "the port range's first port is after its last";
		return -EINVAL;
	}
	if (ch->has_mark && (ch->mark & (KAV_WIRE_KEY_LIMIT - 1))) {
		*why = "the mark base's low 20 bits hold the key: they must be 0";
		return -EINVAL;
	}
	mutex_lock(&kav_wire_lock);
	c = kav_wire_begin();
	if (!c) {
		mutex_unlock(&kav_wire_lock);
		return -ENOMEM;
	}
	if (ch->has_mode)
		c->mode = ch->mode;
	if (ch->has_ports) {
		c->port_min = ch->port_min;
		c->port_max = ch->port_max;
	}
	if (ch->has_mark)
		c->mark = ch->mark;
	kav_wire_publish(c);
	mutex_unlock(&kav_wire_lock);
	return 0;
}

static int kav_wire_net_valid(const struct kav_wire_net *n, const char **why)
{
	unsigned int max, i;

	if (n->family == AF_INET) {
		max = 32;
		if (memchr_inv(n->addr + 4, 0, 12)) {
			*why = "an IPv4 address is 4 bytes: the rest must be 0";
			return -EINVAL;
		}
	} else if (n->family == AF_INET6) {
		max = 128;
	} else {
		*why = "the family must be AF_INET or AF_INET6";
		return -EINVAL;
	}
	if (n->prefix_len > max) {
		*why = "the prefix is longer than the address";
		return -EINVAL;
	}
	if (n->flags & ~KAV_WIRE_NET_EXEMPT || n->__reserved) {
		*why = "unknown flags or a reserved field set";
		return -EINVAL;
	}
	if ((n->port || n->protocol) && !(n->flags & KAV_WIRE_NET_EXEMPT)) {
		*why = "only an exemption has a port or a protocol";
		return -EINVAL;
	}
	if (n->protocol && n->protocol != IPPROTO_TCP &&
	    n->protocol != IPPROTO_UDP) {
		*why = "an exemption's protocol is TCP, UDP or 0 (both)";
		return -EINVAL;
	}
	for (i = n->prefix_len; i < max; i++) {
		if (n->addr[i / 8] & (0x80 >> (i % 8))) {
			*why = "address bits after the prefix must be 0";
			return -EINVAL;
		}
	}
	return 0;
}

static int kav_wire_net_find(const struct kav_wire_conf *c,
			     const struct kav_wire_net *n)
{
	u32 i;

	for (i = 0; i < c->nr_nets; i++)
		if (!memcmp(&c->nets[i], n, sizeof(*n)))
			return i;
	return -1;
}

int kav_wire_net_add(const struct kav_wire_net *n, const char **why)
{
	struct kav_wire_conf *c;
	int ret = kav_wire_net_valid(n, why);

	if (ret)
		return ret;
	mutex_lock(&kav_wire_lock);
	c = kav_wire_begin();
	if (!c) {
		ret = -ENOMEM;
	} else if (kav_wire_net_find(c, n) >= 0) {
		*why = "the scope already has this net";
		ret = -EEXIST;
	} else if (c->nr_nets == KAV_WIRE_NETS_MAX) {
		*why = "the scope is full (KAV_WIRE_NETS_MAX)";
		ret = -ENOSPC;
	}
	if (ret) {
		mutex_unlock(&kav_wire_lock);
		kfree(c);
		return ret;
	}
	c->nets[c->nr_nets++] = *n;
	if (!(n->flags & KAV_WIRE_NET_EXEMPT))
		c->nr_scope++;
	kav_wire_publish(c);
	mutex_unlock(&kav_wire_lock);
	return 0;
}

int kav_wire_net_del(const struct kav_wire_net *n, const char **why)
{
	struct kav_wire_conf *c;
	int ret = kav_wire_net_valid(n, why), i;

	if (ret)
		return ret;
	mutex_lock(&kav_wire_lock);
	c = kav_wire_begin();
	i = c ? kav_wire_net_find(c, n) : -1;
	if (!c || i < 0) {
		mutex_unlock(&kav_wire_lock);
		kfree(c);
		if (!c)
			return -ENOMEM;
		*why = "the scope has no such net";
		return -ENOENT;
	}
	c->nets[i] = c->nets[--c->nr_nets];
	memset(&c->nets[c->nr_nets], 0, sizeof(c->nets[0]));
	if (!(n->flags & KAV_WIRE_NET_EXEMPT))
		c->nr_scope--;
	kav_wire_publish(c);
	mutex_unlock(&kav_wire_lock);
	return 0;
}

int kav_wire_conf_init(void (*notify)(const struct kav_wire_event *ev))
{
	struct kav_wire_conf *c;

	kav_wire_stats = alloc_percpu(struct kav_wire_pcpu);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!kav_wire_stats || !c) {
		free_percpu(kav_wire_stats);
		kfree(c);
		return -ENOMEM;
	}
	c->mark = KAV_WIRE_MARK_DEFAULT;
	kav_wire_notify = notify;
	RCU_INIT_POINTER(kav_wire_current, c);
	kav_wire_event_at = jiffies - 2 * HZ;
	return 0;
}

/* After the hooks: the last event may still be on its way. */
void kav_wire_conf_exit(void)
{
	flush_work(&kav_wire_event);
	kfree(rcu_dereference_protected(kav_wire_current, true));
	free_percpu(kav_wire_stats);
}
