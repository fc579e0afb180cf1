// SPDX-License-Identifier: GPL-2.0
/*
 * Administration over generic netlink: the family "kav" (uapi/linux/kav.h).
 * Every command is GENL_ADMIN_PERM (CAP_NET_ADMIN in the initial user
 * namespace), the family exists only in the initial network namespace,
 * and its multicast group is for admins only. Errors carry extack text.
 */
#include <linux/cgroup.h>
#include <linux/ipc_namespace.h>
#include <linux/rwsem.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include "kav_admin.h"

static struct genl_family kav_genl_family;
/*
 * Cleared at exit: AVs freed after that (pins, kav_avs_unpin_all) are
 * silent. Notifications read it under kav_genl_live_sem, so that none is
 * still being sent to the family's groups when it is unregistered (the
 * wire's drop events come from a work item, not from a command).
 */
static bool kav_genl_live;
static DECLARE_RWSEM(kav_genl_live_sem);

/*
 * One policy per command (Documentation/netlink/specs/kav.yaml lists the
 * same attributes): every command is at or above resv_start_op, so
 * genetlink validates strictly and refuses an attribute a command does
 * not take (NLA_UNSPEC in its policy) with EINVAL and "Unsupported
 * attribute" in the extack. A tag's bytes are checked by kav_parse_tag().
 */
static const struct nla_policy kav_grant_add_policy[KAV_A_MAX + 1] = {
	[KAV_A_VNI] = { .type = NLA_U32 },
	[KAV_A_SEL_TYPE] = NLA_POLICY_RANGE(NLA_U32, KAV_SEL_UID,
					    KAV_SEL_NETNS),
	[KAV_A_SEL_ID] = { .type = NLA_U32 },
	[KAV_A_SEL_CGROUP_PATH] = { .type = NLA_NUL_STRING,
				    .len = PATH_MAX - 1 },
	[KAV_A_SEL_CGROUP_ID] = { .type = NLA_U64 },
	[KAV_A_SEL_NETNS_FD] = { .type = NLA_S32 },
	[KAV_A_LIMIT_ENTRIES] = { .type = NLA_U64 },
	[KAV_A_LIMIT_AVS] = { .type = NLA_U32 },
	[KAV_A_TAG] = { .type = NLA_NUL_STRING, .len = KAV_TAG_MAX },
	[KAV_A_GRANT_WIRE] = { .type = NLA_FLAG },
};

static const struct nla_policy kav_grant_set_policy[KAV_A_MAX + 1] = {
	[KAV_A_GRANT_ID] = { .type = NLA_U32 },
	[KAV_A_LIMIT_ENTRIES] = { .type = NLA_U64 },
	[KAV_A_LIMIT_AVS] = { .type = NLA_U32 },
	[KAV_A_TAG] = { .type = NLA_NUL_STRING, .len = KAV_TAG_MAX },
};

/* GRANT_DEL; GRANT_GET takes the id (a request) or the filters (a dump). */
static const struct nla_policy kav_grant_id_policy[KAV_A_MAX + 1] = {
	[KAV_A_GRANT_ID] = { .type = NLA_U32 },
};

static const struct nla_policy kav_grant_get_policy[KAV_A_MAX + 1] = {
	[KAV_A_GRANT_ID] = { .type = NLA_U32 },
	[KAV_A_VNI] = { .type = NLA_U32 },
	[KAV_A_TAG] = { .type = NLA_NUL_STRING, .len = KAV_TAG_MAX },
};

/* ENTRY_GET, AV_UNPIN */
static const struct nla_policy kav_av_id_policy[KAV_A_MAX + 1] = {
	[KAV_A_AV_ID] = { .type = NLA_U32 },
};

static const struct nla_policy kav_av_pin_policy[KAV_A_MAX + 1] = {
	[KAV_A_AV_ID] = { .type = NLA_U32 },
	[KAV_A_TAG] = { .type = NLA_NUL_STRING, .len = KAV_TAG_MAX },
};

/*
 * A port is above what an s16 .min/.max holds (NLA_POLICY_MAX(NLA_U32,
 * 65535) stores -1: a WARN in nla_get_range_unsigned() and no bound).
 * Not const: 6.1's nla_policy points at a mutable one.
 */
static struct netlink_range_validation kav_a_wire_port_min_range = {
	.max = 65535,
};

static struct netlink_range_validation kav_a_wire_port_max_range = {
	.min = 1,
	.max = 65535,
};

static const struct nla_policy kav_wire_set_policy[KAV_A_MAX + 1] = {
	[KAV_A_WIRE_MODE] = NLA_POLICY_MAX(NLA_U32, __KAV_WIRE_MODE_MAX - 1),
	[KAV_A_WIRE_PORT_MIN] = NLA_POLICY_FULL_RANGE(NLA_U32,
						      &kav_a_wire_port_min_range),
	[KAV_A_WIRE_PORT_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32,
						      &kav_a_wire_port_max_range),
	[KAV_A_WIRE_MARK] = { .type = NLA_U32 },
};

static const struct nla_policy kav_wire_net_policy[KAV_A_MAX + 1] = {
	[KAV_A_WIRE_NET] = NLA_POLICY_EXACT_LEN(sizeof(struct kav_wire_net)),
};

/* DOMAIN_GET, AV_GET, STATS_GET, WIRE_GET: no attribute at all. */
static const struct nla_policy kav_no_attr_policy[KAV_A_MAX + 1] = {
};

static const struct genl_multicast_group kav_genl_mcgrps[] = {
	{ .name = KAV_GENL_MCGRP_ADMIN, .flags = GENL_MCAST_CAP_NET_ADMIN },
};

/* ---------------------------------------------------------- messages */

static int kav_put_grant(struct sk_buff *skb, const struct kav_grant *g)
{
	int ret;

	ret = nla_put_u32(skb, KAV_A_GRANT_ID, g->id) ?:
	      nla_put_u32(skb, KAV_A_VNI, g->vni) ?:
	      nla_put_u32(skb, KAV_A_SEL_TYPE, g->sel_type) ?:
	      nla_put_u64_64bit(skb, KAV_A_LIMIT_ENTRIES, g->limit_entries,
				KAV_A_PAD) ?:
	      nla_put_u32(skb, KAV_A_LIMIT_AVS, g->limit_avs) ?:
	      nla_put_u64_64bit(skb, KAV_A_NR_ENTRIES,
				atomic64_read(&g->nr_entries), KAV_A_PAD) ?:
	      nla_put_u32(skb, KAV_A_NR_AVS, atomic_read(&g->nr_avs)) ?:
	      (g->tag[0] ? nla_put_string(skb, KAV_A_TAG, g->tag) : 0) ?:
	      (READ_ONCE(g->wire) ?
	       nla_put_flag(skb, KAV_A_GRANT_WIRE) ?:
	       nla_put_u64_64bit(skb, KAV_A_WIRE_DROPS,
				 atomic64_read(&g->wire_drops), KAV_A_PAD) : 0);
	if (ret)
		return ret;
	switch (g->sel_type) {
	case KAV_SEL_UID:
		return nla_put_u32(skb, KAV_A_SEL_ID,
				   from_kuid(&init_user_ns, g->uid));
	case KAV_SEL_GID:
		return nla_put_u32(skb, KAV_A_SEL_ID,
				   from_kgid(&init_user_ns, g->gid));
	case KAV_SEL_CGROUP:
		return nla_put_u64_64bit(skb, KAV_A_SEL_CGROUP_ID,
					 g->cgroup_id, KAV_A_PAD);
	default:
		return nla_put_u64_64bit(skb, KAV_A_SEL_NETNS_COOKIE,
					 g->netns_cookie, KAV_A_PAD);
	}
}

static int kav_put_owner(struct sk_buff *skb, const struct kav_domain *d)
{
	const struct kav_identity *id = &d->id;

	return nla_put_u32(skb, KAV_A_DOMAIN_ID, d->reg_id) ?:
	       nla_put_u32(skb, KAV_A_UID,
			   from_kuid(&init_user_ns, id->cred->euid)) ?:
	       nla_put_u32(skb, KAV_A_GID,
			   from_kgid(&init_user_ns, id->cred->egid)) ?:
	       nla_put_u64_64bit(skb, KAV_A_CGROUP_ID, id->cgroup_id,
				 KAV_A_PAD) ?:
	       nla_put_u64_64bit(skb, KAV_A_NETNS_COOKIE, id->netns_cookie,
				 KAV_A_PAD) ?:
	       nla_put_u32(skb, KAV_A_PID, id->pid);
}

static int kav_put_domain(struct sk_buff *skb, const struct kav_domain *d)
{
	/* Without d->lock: a listing is a snapshot; the key is set first. */
	const struct kav_grant *g = kav_domain_key_grant(d);

	return kav_put_owner(skb, d) ?:
	       nla_put_u32(skb, KAV_A_NR_AVS, READ_ONCE(d->nr_avs)) ?:
	       (g ? nla_put_u32(skb, KAV_A_VNI, d->key.vni) : 0);
}

/*
 * A job's table is listed as what it is, a flag and its job's grant,
 * never as a name: any user can give its own named AV any name.
 */
static int kav_put_name_bytes(struct sk_buff *skb, const struct kav_named *n)
{
	if (n->kind != KAV_NAMED_JOB)
		return nla_put(skb, KAV_A_AV_NAME, n->len, n->name);
	return nla_put_flag(skb, KAV_A_AV_JOB) ?:
	       nla_put_u32(skb, KAV_A_GRANT_ID, n->job.grant->id);
}

static int kav_put_name(struct sk_buff *skb, const struct kav_av *av)
{
	const struct kav_named *n = av->named;
	char tag[KAV_TAG_MAX + 1];
	bool pinned;

	if (!n)
		return 0;
	pinned = kav_names_pin_state(n, tag);
	return kav_put_name_bytes(skb, n) ?:
	       nla_put_u32(skb, KAV_A_AV_MODE, n->mode) ?:
	       nla_put_u32(skb, KAV_A_IPC_NS, av->domain->id.ipc_ns->ns.inum) ?:
	       (pinned ? nla_put_flag(skb, KAV_A_AV_PINNED) : 0) ?:
	       (pinned && tag[0] ? nla_put_string(skb, KAV_A_TAG, tag) : 0);
}

static int kav_put_av(struct sk_buff *skb, const struct kav_av *av)
{
	const struct kav_table *t = &av->table;

	return nla_put_u32(skb, KAV_A_AV_ID, av->reg_id) ?:
	       kav_put_owner(skb, av->domain) ?:
	       nla_put_u32(skb, KAV_A_ADDR_FORMAT, t->addr_format) ?:
	       nla_put_u64_64bit(skb, KAV_A_NR_ENTRIES, READ_ONCE(t->nr_valid),
				 KAV_A_PAD) ?:
	       nla_put_u64_64bit(skb, KAV_A_MEM_BYTES, kav_table_bytes(t),
				 KAV_A_PAD) ?:
	       nla_put_u32(skb, KAV_A_ENTRY_BYTES, kav_table_entry_bytes(t)) ?:
	       nla_put_u32(skb, KAV_A_NR_OPEN, atomic_read(&av->nr_open)) ?:
	       kav_put_name(skb, av);
}

/*
 * One message of a dump; -EMSGSIZE when the skb is full. Each dump round
 * sets cb->seq to the generation of what it lists, so that a message
 * after a change carries NLM_F_DUMP_INTR.
 */
struct kav_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	u8 cmd;
	struct kav_av *av;		/* ENTRY_GET */
	const struct kav_grant_filter *filter;	/* GRANT_GET */
};

static void *kav_dump_start_msg(struct kav_dump *d)
{
	void *hdr = genlmsg_put(d->skb, NETLINK_CB(d->cb->skb).portid,
				d->cb->nlh->nlmsg_seq, &kav_genl_family,
				NLM_F_MULTI, d->cmd);

	if (hdr)
		genl_dump_check_consistent(d->cb, hdr);
	return hdr;
}

static int kav_dump_end_msg(struct kav_dump *d, void *hdr, int ret)
{
	if (ret) {
		genlmsg_cancel(d->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(d->skb, hdr);
	return 0;
}

/*
 * The dump round's return: the bytes filled (0 ends the dump), or an
 * error. A message that does not fit even an empty skb is an error, not
 * the end of the dump.
 */
static int kav_dump_result(struct sk_buff *skb, int ret)
{
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

/* The attributes of a dump request, parsed and validated by genetlink. */
static struct nlattr **kav_dump_attrs(struct netlink_callback *cb)
{
#ifdef KAV_HAVE_GENL_INFO_DUMP
	return genl_info_dump(cb)->attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* --------------------------------------------------------- notifications */

static void kav_genl_notify(u8 cmd, int (*fill)(struct sk_buff *, const void *),
			    const void *obj)
{
	struct sk_buff *skb;
	void *hdr;

	down_read(&kav_genl_live_sem);
	if (!kav_genl_live ||
	    !genl_has_listeners(&kav_genl_family, &init_net, 0))
		goto out;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb)
		goto out;
	hdr = genlmsg_put(skb, 0, 0, &kav_genl_family, 0, cmd);
	if (!hdr || fill(skb, obj)) {
		nlmsg_free(skb);
		goto out;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&kav_genl_family, skb, 0, 0, GFP_KERNEL);
out:
	up_read(&kav_genl_live_sem);
}

static int kav_fill_grant(struct sk_buff *skb, const void *g)
{
	return kav_put_grant(skb, g);
}

static int kav_fill_av(struct sk_buff *skb, const void *av)
{
	return kav_put_av(skb, av);
}

static void kav_genl_notify_grant(u8 cmd, const struct kav_grant *g)
{
	kav_genl_notify(cmd, kav_fill_grant, g);
}

static void kav_genl_notify_av(u8 cmd, struct kav_av *av)
{
	kav_genl_notify(cmd, kav_fill_av, av);
}

/* ------------------------------------------------------ object hooks */

static void kav_admin_av_created(struct kav_av *av)
{
	kav_genl_notify_av(KAV_GENL_CMD_AV_NEW, av);
}

/* @av is being freed: out of listings, and announced gone if it came. */
static void kav_admin_av_removed(struct kav_av *av)
{
	kav_registry_del_av(av);
	if (av->announced)
		kav_genl_notify_av(KAV_GENL_CMD_AV_DEL, av);
}

/* How the objects report to administration (kav_main.c registers it). */
const struct kav_object_hooks kav_admin_hooks = {
	.domain_added = kav_registry_add_domain,
	.domain_removed = kav_registry_del_domain,
	.av_added = kav_registry_add_av,
	.av_created = kav_admin_av_created,
	.av_removed = kav_admin_av_removed,
};

/* -------------------------------------------------------------- grants */

/* Exactly the selector attribute that @sel_type needs may be present. */
static int kav_selector_attrs_ok(struct genl_info *info, u32 sel_type)
{
	static const int attrs[] = { KAV_A_SEL_ID, KAV_A_SEL_CGROUP_PATH,
				     KAV_A_SEL_CGROUP_ID, KAV_A_SEL_NETNS_FD };
	bool want[ARRAY_SIZE(attrs)] = {
		sel_type == KAV_SEL_UID || sel_type == KAV_SEL_GID,
		sel_type == KAV_SEL_CGROUP,
		sel_type == KAV_SEL_CGROUP,
		sel_type == KAV_SEL_NETNS,
	};
	int i, given = 0;

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		if (!info->attrs[attrs[i]])
			continue;
		if (!want[i]) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[attrs[i]],
					    "attribute does not fit the selector type");
			return -EINVAL;
		}
		given++;
	}
	if (given != 1) {
		NL_SET_ERR_MSG(info->extack,
			       "give exactly one selector value (uid/gid, cgroup path or id, netns fd)");
		return -EINVAL;
	}
	return 0;
}

static int kav_parse_selector(struct genl_info *info, struct kav_grant *g)
{
	struct nlattr **a = info->attrs;
	struct cgroup *cgrp;
	struct net *net;
	int ret;

	ret = kav_selector_attrs_ok(info, g->sel_type);
	if (ret)
		return ret;
	switch (g->sel_type) {
	case KAV_SEL_UID:
		g->uid = make_kuid(&init_user_ns, nla_get_u32(a[KAV_A_SEL_ID]));
		if (!uid_valid(g->uid))
			goto bad_id;
		return 0;
	case KAV_SEL_GID:
		g->gid = make_kgid(&init_user_ns, nla_get_u32(a[KAV_A_SEL_ID]));
		if (!gid_valid(g->gid))
			goto bad_id;
		return 0;
	case KAV_SEL_CGROUP:
		if (a[KAV_A_SEL_CGROUP_PATH])
			cgrp = cgroup_get_from_path(nla_data(a[KAV_A_SEL_CGROUP_PATH]));
		else
			cgrp = cgroup_get_from_id(nla_get_u64(a[KAV_A_SEL_CGROUP_ID]));
		if (IS_ERR_OR_NULL(cgrp)) {
			NL_SET_ERR_MSG(info->extack, "no such cgroup (v2)");
			return -ENOENT;
		}
		g->cgroup = cgrp;
		g->cgroup_id = cgroup_id(cgrp);
		return 0;
	default:
		net = get_net_ns_by_fd(nla_get_u32(a[KAV_A_SEL_NETNS_FD]));
		if (IS_ERR(net)) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    a[KAV_A_SEL_NETNS_FD],
					    "not a network namespace fd");
			return PTR_ERR(net);
		}
		g->netns_cookie = net->net_cookie;
		put_net(net);
		return 0;
	}
bad_id:
	NL_SET_ERR_MSG_ATTR(info->extack, a[KAV_A_SEL_ID],
			    "not a valid id in the initial user namespace");
	return -EINVAL;
}

/*
 * Send the grant in @msg, allocated before the change was made: once a
 * grant is added or revoked, the command must not fail for want of memory
 * for its reply (the admin would retry, or not know the new grant's id).
 */
static int kav_reply_grant(struct genl_info *info, struct sk_buff *msg,
			   const struct kav_grant *g, bool updated)
{
	void *hdr;

	hdr = genlmsg_put_reply(msg, info, &kav_genl_family, 0,
				info->genlhdr->cmd);
	if (!hdr || kav_put_grant(msg, g) ||
	    (updated && nla_put_flag(msg, KAV_A_GRANT_UPDATED))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* The grant in @msg (allocated before the change), and who hears of it. */
static int kav_grant_done(struct genl_info *info, struct sk_buff *msg,
			  struct kav_grant *g, bool updated, u8 notify_cmd)
{
	int ret = kav_reply_grant(info, msg, g, updated);

	kav_genl_notify_grant(notify_cmd, g);
	kav_grant_put(g);
	return ret;
}

/*
 * The tag in @attr (none: "") into @tag (KAV_TAG_MAX + 1 bytes). A tag is
 * printable ASCII, 0x20 to 0x7e, NUL-terminated with nothing after the
 * NUL: tenants see tags (WHOAMI), and "ab\0cd" must not be stored as
 * "ab". The policy (NLA_NUL_STRING) has checked the length.
 */
static int kav_parse_tag(struct netlink_ext_ack *extack, struct nlattr *attr,
			 char *tag)
{
	const char *s;
	int len, n, i;

	tag[0] = '\0';
	if (!attr)
		return 0;
	s = nla_data(attr);
	len = nla_len(attr);
	n = strnlen(s, len);
	if (n + 1 != len || n > KAV_TAG_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "a tag is one NUL-terminated string: no NUL inside it, nothing after it");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "a tag is printable ASCII (0x20..0x7e)");
			return -EINVAL;
		}
	}
	memcpy(tag, s, n + 1);
	return 0;
}

/* A wire grant names what a socket carries, and a key the label holds. */
static int kav_wire_grant_ok(struct genl_info *info, const struct kav_grant *g)
{
	if (!g->wire)
		return 0;
	if (g->sel_type == KAV_SEL_GID) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KAV_A_GRANT_WIRE],
				    "a socket carries no groups: a gid grant cannot apply on the wire");
		return -EINVAL;
	}
	if (g->vni >= KAV_WIRE_KEY_LIMIT) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KAV_A_VNI],
				    "a wire key is below 2^20 (the IPv6 flow label)");
		return -EINVAL;
	}
	return 0;
}

static int kav_genl_grant_add(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct kav_grant spec = { 0 }, *g;
	struct sk_buff *msg;
	bool updated, unwired;
	int ret;

	if (!a[KAV_A_VNI] || !a[KAV_A_SEL_TYPE]) {
		NL_SET_ERR_MSG(info->extack,
			       "a grant needs KAV_A_VNI and KAV_A_SEL_TYPE");
		return -EINVAL;
	}
	spec.vni = nla_get_u32(a[KAV_A_VNI]);
	spec.sel_type = nla_get_u32(a[KAV_A_SEL_TYPE]);
	if (a[KAV_A_LIMIT_ENTRIES])
		spec.limit_entries = nla_get_u64(a[KAV_A_LIMIT_ENTRIES]);
	if (a[KAV_A_LIMIT_AVS])
		spec.limit_avs = nla_get_u32(a[KAV_A_LIMIT_AVS]);
	spec.wire = nla_get_flag(a[KAV_A_GRANT_WIRE]);
	ret = kav_parse_tag(info->extack, a[KAV_A_TAG], spec.tag) ?:
	      kav_wire_grant_ok(info, &spec) ?:
	      kav_parse_selector(info, &spec);
	if (ret)
		return ret;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	g = msg ? kav_grant_add(&spec, &updated, &unwired) : ERR_PTR(-ENOMEM);
	if (spec.cgroup)		/* not handed over */
		cgroup_put(spec.cgroup);
	if (IS_ERR(g)) {
		nlmsg_free(msg);
		if (PTR_ERR(g) == -EEXIST)
			NL_SET_ERR_MSG_ATTR(info->extack, a[KAV_A_GRANT_WIRE],
					    "this selector has another key on the wire: one identity, one wire key");
		return PTR_ERR(g);
	}
	/* Added again without the wire flag: its key left the wire. */
	if (unwired)
		kav_wire_key_revoked();
	return kav_grant_done(info, msg, g, updated,
			      updated ? KAV_GENL_CMD_GRANT_SET :
			      KAV_GENL_CMD_GRANT_ADD);
}

/* GRANT_SET: new limits or a new tag for grant KAV_A_GRANT_ID, in place. */
static int kav_genl_grant_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct kav_grant_change c = {
		.has_limit_entries = !!a[KAV_A_LIMIT_ENTRIES],
		.has_limit_avs = !!a[KAV_A_LIMIT_AVS],
		.has_tag = !!a[KAV_A_TAG],
	};
	struct kav_grant *g;
	struct sk_buff *msg;
	int ret;

	if (!a[KAV_A_GRANT_ID]) {
		NL_SET_ERR_MSG(info->extack, "missing KAV_A_GRANT_ID");
		return -EINVAL;
	}
	if (!c.has_limit_entries && !c.has_limit_avs && !c.has_tag) {
		NL_SET_ERR_MSG(info->extack,
			       "nothing to change: give a limit or a tag");
		return -EINVAL;
	}
	if (c.has_limit_entries)
		c.limit_entries = nla_get_u64(a[KAV_A_LIMIT_ENTRIES]);
	if (c.has_limit_avs)
		c.limit_avs = nla_get_u32(a[KAV_A_LIMIT_AVS]);
	ret = kav_parse_tag(info->extack, a[KAV_A_TAG], c.tag);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	g = kav_grant_set(nla_get_u32(a[KAV_A_GRANT_ID]), &c);
	if (IS_ERR_OR_NULL(g)) {
		nlmsg_free(msg);
		if (g) {	/* -EEXIST: grants stay unique (GRANT_ADD) */
			NL_SET_ERR_MSG_ATTR(info->extack, a[KAV_A_TAG],
					    "another grant has this key, selector and tag");
			return PTR_ERR(g);
		}
		NL_SET_ERR_MSG_ATTR(info->extack, a[KAV_A_GRANT_ID],
				    "no such grant");
		return -ENOENT;
	}
	return kav_grant_done(info, msg, g, false, KAV_GENL_CMD_GRANT_SET);
}

/* GRANT_GET as a request: the one grant KAV_A_GRANT_ID. */
static int kav_genl_grant_get(struct sk_buff *skb, struct genl_info *info)
{
	struct kav_grant *g;
	struct sk_buff *msg;
	int ret;

	if (!info->attrs[KAV_A_GRANT_ID]) {
		NL_SET_ERR_MSG(info->extack,
			       "missing KAV_A_GRANT_ID (or ask for a dump)");
		return -EINVAL;
	}
	if (info->attrs[KAV_A_VNI] || info->attrs[KAV_A_TAG]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[KAV_A_VNI] ?: info->attrs[KAV_A_TAG],
				    "a filter of the dump, not of a request");
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	g = kav_grant_lookup(nla_get_u32(info->attrs[KAV_A_GRANT_ID]));
	if (!g) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KAV_A_GRANT_ID],
				    "no such grant");
		return -ENOENT;
	}
	ret = kav_reply_grant(info, msg, g, false);
	kav_grant_put(g);
	return ret;
}

static int kav_genl_grant_del(struct sk_buff *skb, struct genl_info *info)
{
	struct kav_grant *g;
	struct sk_buff *msg;

	if (!info->attrs[KAV_A_GRANT_ID]) {
		NL_SET_ERR_MSG(info->extack, "missing KAV_A_GRANT_ID");
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	g = kav_grant_revoke(nla_get_u32(info->attrs[KAV_A_GRANT_ID]));
	if (!g) {
		nlmsg_free(msg);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KAV_A_GRANT_ID],
				    "no such grant");
		return -ENOENT;
	}
	/* Every consumer, before the administrator hears it is done. */
	kav_consumers_revoke(g->vni);
	/* Its connections on the wire too (and at once if they are idle). */
	if (READ_ONCE(g->wire))
		kav_wire_key_revoked();
	return kav_grant_done(info, msg, g, false, KAV_GENL_CMD_GRANT_DEL);
}

/* A grant dump's filters (KAV_A_VNI, KAV_A_TAG), from its .start. */
struct kav_grant_filter {
	bool has_vni, has_tag;
	u32 vni;
	char tag[KAV_TAG_MAX + 1];
};

static bool kav_grant_filter_match(const struct kav_grant_filter *f,
				   const struct kav_grant *g)
{
	return (!f->has_vni || g->vni == f->vni) &&
	       (!f->has_tag || !strcmp(g->tag, f->tag));
}

static int kav_dump_grant(const struct kav_grant *g, void *arg)
{
	struct kav_dump *d = arg;
	void *hdr;

	if (!kav_grant_filter_match(d->filter, g))
		return 0;
	hdr = kav_dump_start_msg(d);
	if (!hdr)
		return -EMSGSIZE;
	return kav_dump_end_msg(d, hdr, kav_put_grant(d->skb, g));
}

/* cb->args[0]: the next grant id; cb->args[1]: the filter. */
static int kav_genl_grant_dump_start(struct netlink_callback *cb)
{
	struct nlattr **a = kav_dump_attrs(cb);
	struct kav_grant_filter *f;
	int ret;

	if (a[KAV_A_GRANT_ID]) {
		NL_SET_ERR_MSG_ATTR(cb->extack, a[KAV_A_GRANT_ID],
				    "a dump filters by KAV_A_VNI and KAV_A_TAG");
		return -EINVAL;
	}
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	if (a[KAV_A_VNI]) {
		f->has_vni = true;
		f->vni = nla_get_u32(a[KAV_A_VNI]);
	}
	f->has_tag = !!a[KAV_A_TAG];
	ret = kav_parse_tag(cb->extack, a[KAV_A_TAG], f->tag);
	if (ret) {
		kfree(f);
		return ret;
	}
	cb->args[1] = (long)f;
	return 0;
}

static int kav_genl_grant_dump_done(struct netlink_callback *cb)
{
	kfree((void *)cb->args[1]);
	return 0;
}

static int kav_genl_grant_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kav_dump d = { skb, cb, KAV_GENL_CMD_GRANT_GET };
	u32 pos = cb->args[0];
	int ret;

	d.filter = (const struct kav_grant_filter *)cb->args[1];
	cb->seq = kav_grants_generation();
	ret = kav_grants_walk(kav_dump_grant, &d, &pos);
	cb->args[0] = pos;
	return kav_dump_result(skb, ret);
}

/* ------------------------------------------------- domains, AVs, entries */

static int kav_dump_domain(struct kav_domain *dom, void *arg)
{
	struct kav_dump *d = arg;
	void *hdr = kav_dump_start_msg(d);

	if (!hdr)
		return -EMSGSIZE;
	return kav_dump_end_msg(d, hdr, kav_put_domain(d->skb, dom));
}

static int kav_genl_domain_dump(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct kav_dump d = { skb, cb, KAV_GENL_CMD_DOMAIN_GET };
	u32 pos = cb->args[0];
	int ret;

	cb->seq = kav_registry_generation();
	ret = kav_registry_walk_domains(kav_dump_domain, &d, &pos);

	cb->args[0] = pos;
	return kav_dump_result(skb, ret);
}

static int kav_dump_av(struct kav_av *av, void *arg)
{
	struct kav_dump *d = arg;
	void *hdr = kav_dump_start_msg(d);

	if (!hdr)
		return -EMSGSIZE;
	return kav_dump_end_msg(d, hdr, kav_put_av(d->skb, av));
}

static int kav_genl_av_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kav_dump d = { skb, cb, KAV_GENL_CMD_AV_GET };
	u32 pos = cb->args[0];
	int ret;

	cb->seq = kav_registry_generation();
	ret = kav_registry_walk_avs(kav_dump_av, &d, &pos);

	cb->args[0] = pos;
	return kav_dump_result(skb, ret);
}

static int kav_dump_entry(void *arg, u64 idx, const struct kav_entry *e,
			  const struct kav_key_slot *k)
{
	struct kav_dump *d = arg;
	void *hdr = kav_dump_start_msg(d);
	int ret;

	if (!hdr)
		return -EMSGSIZE;
	ret = nla_put_u32(d->skb, KAV_A_AV_ID, d->av->reg_id) ?:
	      nla_put_u64_64bit(d->skb, KAV_A_ENTRY_INDEX, idx, KAV_A_PAD) ?:
	      nla_put(d->skb, KAV_A_ENTRY_ADDR, e->addr_len, e->addr) ?:
	      (k ? nla_put_u32(d->skb, KAV_A_VNI, k->vni) : 0) ?:
	      (k && (k->flags & KAV_KEY_REVOKED) ?
	       nla_put_flag(d->skb, KAV_A_KEY_REVOKED) : 0);
	return kav_dump_end_msg(d, hdr, ret);
}

/*
 * cb->args[0]: the AV (a reference, from .start), or 0 and cb->args[2]
 * the error; cb->args[1]: the next index; cb->args[3] and [4]: the table's
 * generation and key_gen when the dump last held its lock; cb->args[5]:
 * how many times they were found changed. The error is returned by the
 * first dumpit, whose extack reaches user space on every kernel (a
 * .start's does not on 6.1).
 */
static int kav_genl_entry_dump_start(struct netlink_callback *cb)
{
	struct nlattr *id = kav_dump_attrs(cb)[KAV_A_AV_ID];
	struct kav_av *av = id ? kav_registry_get_av(nla_get_u32(id)) : NULL;

	cb->args[0] = (long)av;
	cb->args[2] = id ? -ENOENT : -EINVAL;
	return 0;
}

static int kav_genl_entry_dump_done(struct netlink_callback *cb)
{
	if (cb->args[0])
		kav_av_put((struct kav_av *)cb->args[0]);
	return 0;
}

/*
 * The dump's consistency stamp (cb->seq, t->lock held): it covers what
 * the dump lists, the entries (the generation: every batch, removal and
 * user id change) and their key slots (key_gen: every key insert,
 * removal, user id change and revocation), and nothing else. It changes
 * exactly when either did since the lock was last held, whatever steps
 * they advance by: a message after that carries NLM_F_DUMP_INTR.
 */
static void kav_entry_dump_stamp(struct netlink_callback *cb,
				 const struct kav_table *t)
{
	long gen = (long)t->hdr->generation, key_gen = (long)t->hdr->key_gen;

	if (cb->seq && (cb->args[3] != gen || cb->args[4] != key_gen))
		cb->args[5]++;
	cb->args[3] = gen;
	cb->args[4] = key_gen;
	cb->seq = (unsigned int)cb->args[5] + 1;	/* never 0: unset */
}

/*
 * Slots one hold of the table lock looks at: a table left sparse at
 * max_entries slots must not keep its writers (or the CPU) waiting for
 * the whole walk.
 */
#define KAV_DUMP_SLOTS_PER_LOCK	1024

static int kav_genl_entry_dump(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	struct kav_dump d = { skb, cb, KAV_GENL_CMD_ENTRY_GET };
	const struct kav_key_slot *k;
	const struct kav_entry *e;
	u64 idx = cb->args[1], end;
	struct kav_table *t;
	bool done;
	int ret;

	d.av = (struct kav_av *)cb->args[0];
	if (!d.av) {
		if (cb->args[2] == -EINVAL)
			NL_SET_ERR_MSG(cb->extack, "missing KAV_A_AV_ID");
		else
			NL_SET_ERR_MSG(cb->extack, "no such AV");
		return cb->args[2];
	}
	t = &d.av->table;
	for (;;) {
		if (fatal_signal_pending(current))
			return -EINTR;
		ret = kav_table_lock(t);
		if (ret)
			return ret;
		kav_entry_dump_stamp(cb, t);
		end = min_t(u64, t->nr_slots, idx + KAV_DUMP_SLOTS_PER_LOCK);
		for (; idx < end; idx++) {
			e = kav_table_entry_ro(t, idx);
			if (!e)
				continue;
			k = e->auth_key == KAV_ENTRY_NO_KEY ? NULL :
			    kav_key_slot_ro(t, e->auth_key);
			ret = kav_dump_entry(&d, idx, e, k);
			if (ret)
				break;
		}
		done = idx >= t->nr_slots;
		kav_table_unlock(t);
		cb->args[1] = idx;
		if (ret || done)
			break;
		cond_resched();
	}
	return kav_dump_result(skb, ret);
}

/* AV_PIN and AV_UNPIN: an administrator keeps a named AV alive, or not. */
static int kav_genl_av_pin(struct sk_buff *skb, struct genl_info *info)
{
	bool pin = info->genlhdr->cmd == KAV_GENL_CMD_AV_PIN;
	struct nlattr *id = info->attrs[KAV_A_AV_ID];
	char tag[KAV_TAG_MAX + 1];
	struct kav_av *av;
	int ret;

	if (!id) {
		NL_SET_ERR_MSG(info->extack, "missing KAV_A_AV_ID");
		return -EINVAL;
	}
	av = kav_registry_get_av(nla_get_u32(id));
	if (!av) {
		NL_SET_ERR_MSG_ATTR(info->extack, id, "no such AV");
		return -ENOENT;
	}
	ret = kav_parse_tag(info->extack, info->attrs[KAV_A_TAG], tag);
	if (ret)		/* the extack says what is wrong with the tag */
		goto out;
	ret = kav_av_pin(av, pin, tag);
	if (ret == -EINVAL)
		NL_SET_ERR_MSG_ATTR(info->extack, id,
				    "only a named AV can be pinned");
	else if (ret == -EALREADY && pin)
		NL_SET_ERR_MSG_ATTR(info->extack, id, "the AV is already pinned");
	else if (ret == -EALREADY)
		NL_SET_ERR_MSG_ATTR(info->extack, id, "the AV is not pinned");
out:
	kav_av_put(av);
	return ret;
}

static int kav_put_wire_counters(struct sk_buff *msg)
{
	struct kav_wire_counters wc;

	kav_wire_counters(&wc);
	return nla_put_u64_64bit(msg, KAV_A_WIRE_PASSED, wc.passed,
				 KAV_A_PAD) ?:
	       nla_put_u64_64bit(msg, KAV_A_WIRE_ABORTS, wc.aborts,
				 KAV_A_PAD) ?:
	       nla_put(msg, KAV_A_WIRE_DROP_COUNTS, sizeof(wc.drops), wc.drops);
}

static int kav_genl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct kav_stats st;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	kav_stats_collect(&st);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &kav_genl_family, 0,
				KAV_GENL_CMD_STATS_GET);
	if (!hdr)
		goto full;
	ret = nla_put_u64_64bit(msg, KAV_A_STAT_DOMAINS, st.domains,
				KAV_A_PAD) ?:
	      nla_put_u64_64bit(msg, KAV_A_STAT_AVS, st.avs, KAV_A_PAD) ?:
	      nla_put_u64_64bit(msg, KAV_A_STAT_ENTRIES, st.entries,
				KAV_A_PAD) ?:
	      nla_put_u64_64bit(msg, KAV_A_STAT_GRANTS, kav_grants_count(),
				KAV_A_PAD) ?:
	      nla_put_u64_64bit(msg, KAV_A_MEM_BYTES, st.bytes, KAV_A_PAD) ?:
	      nla_put_u64_64bit(msg, KAV_A_STAT_DENY_NO_GRANT,
				kav_deny_count(KAV_DENY_NO_GRANT), KAV_A_PAD) ?:
	      nla_put_u64_64bit(msg, KAV_A_STAT_DENY_REVOKED,
				kav_deny_count(KAV_DENY_REVOKED), KAV_A_PAD) ?:
	      nla_put_u64_64bit(msg, KAV_A_STAT_DENY_KEYLESS,
				kav_deny_count(KAV_DENY_KEYLESS), KAV_A_PAD) ?:
	      nla_put_u64_64bit(msg, KAV_A_STAT_DENY_LIMIT,
				kav_deny_count(KAV_DENY_LIMIT), KAV_A_PAD) ?:
	      nla_put_u64_64bit(msg, KAV_A_STAT_DENY_MODE,
				kav_deny_count(KAV_DENY_MODE), KAV_A_PAD) ?:
	      (st.entries ? nla_put_u32(msg, KAV_A_ENTRY_BYTES,
					DIV_ROUND_UP_ULL(st.bytes, st.entries)) :
	       0) ?:
	      kav_put_wire_counters(msg);
	if (ret)
		goto full;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
full:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* ---------------------------------------------------------------- wire */

/* The wire's reason (a string literal of kav_wire_conf.c) for a refusal. */
static void kav_wire_extack(struct netlink_ext_ack *extack,
			    const struct nlattr *attr, const char *why)
{
	if (!extack || !why)
		return;
	extack->_msg = why;
	extack->bad_attr = attr;
}

static int kav_genl_wire_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct kav_wire_change c = {
		.has_mode = !!a[KAV_A_WIRE_MODE],
		.has_mark = !!a[KAV_A_WIRE_MARK],
	};
	const char *why = NULL;
	int ret;

	if (a[KAV_A_WIRE_MODE])
		c.mode = nla_get_u32(a[KAV_A_WIRE_MODE]);
	if (a[KAV_A_WIRE_MARK])
		c.mark = nla_get_u32(a[KAV_A_WIRE_MARK]);
	if (a[KAV_A_WIRE_PORT_MIN]) {
		c.has_ports = true;
		c.port_min = nla_get_u32(a[KAV_A_WIRE_PORT_MIN]);
		if (c.port_min && !a[KAV_A_WIRE_PORT_MAX]) {
			NL_SET_ERR_MSG(info->extack,
				       "a port range needs its last port (KAV_A_WIRE_PORT_MAX)");
			return -EINVAL;
		}
		if (!c.port_min && a[KAV_A_WIRE_PORT_MAX]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a[KAV_A_WIRE_PORT_MAX],
					    "port 0 clears the range: it has no last port");
			return -EINVAL;
		}
		if (c.port_min)
			c.port_max = nla_get_u32(a[KAV_A_WIRE_PORT_MAX]);
	} else if (a[KAV_A_WIRE_PORT_MAX]) {
		NL_SET_ERR_MSG(info->extack,
			       "a port range needs its first port (KAV_A_WIRE_PORT_MIN)");
		return -EINVAL;
	}
	if (!c.has_mode && !c.has_ports && !c.has_mark) {
		NL_SET_ERR_MSG(info->extack, "nothing to set: mode, ports or mark");
		return -EINVAL;
	}
	ret = kav_wire_set(&c, &why);
	if (ret)
		kav_wire_extack(info->extack, NULL, why);
	return ret;
}

static int kav_genl_wire_net(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[KAV_A_WIRE_NET];
	const char *why = NULL;
	struct kav_wire_net n;
	int ret;

	if (!attr) {
		NL_SET_ERR_MSG(info->extack, "missing KAV_A_WIRE_NET");
		return -EINVAL;
	}
	memcpy(&n, nla_data(attr), sizeof(n));
	if (info->genlhdr->cmd == KAV_GENL_CMD_WIRE_NET_ADD)
		ret = kav_wire_net_add(&n, &why);
	else
		ret = kav_wire_net_del(&n, &why);
	if (ret)
		kav_wire_extack(info->extack, attr, why);
	return ret;
}

static int kav_genl_wire_get(struct sk_buff *skb, struct genl_info *info)
{
	struct kav_wire_conf *c = kav_wire_conf_copy();
	struct sk_buff *msg;
	void *hdr;
	int ret;
	u32 i;

	if (!c)
		return -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		kfree(c);
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &kav_genl_family, 0,
				KAV_GENL_CMD_WIRE_GET);
	ret = hdr ? 0 : -EMSGSIZE;
	ret = ret ?:
	      nla_put_u32(msg, KAV_A_WIRE_MODE, c->mode) ?:
	      nla_put_u32(msg, KAV_A_WIRE_MARK, c->mark) ?:
	      (c->port_min ?
	       nla_put_u32(msg, KAV_A_WIRE_PORT_MIN, c->port_min) ?:
	       nla_put_u32(msg, KAV_A_WIRE_PORT_MAX, c->port_max) : 0) ?:
	      kav_put_wire_counters(msg);
	for (i = 0; !ret && i < c->nr_nets; i++)
		ret = nla_put(msg, KAV_A_WIRE_NET, sizeof(c->nets[i]),
			      &c->nets[i]);
	kfree(c);
	if (ret) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int kav_fill_wire_drop(struct sk_buff *skb, const void *arg)
{
	const struct kav_wire_event *ev = arg;

	return nla_put_u32(skb, KAV_A_WIRE_DROP_REASON, ev->reason) ?:
	       nla_put_u32(skb, KAV_A_VNI, ev->vni) ?:
	       (ev->uid != (u32)-1 ? nla_put_u32(skb, KAV_A_UID, ev->uid) : 0) ?:
	       (ev->cgroup_id ? nla_put_u64_64bit(skb, KAV_A_CGROUP_ID,
						  ev->cgroup_id, KAV_A_PAD) : 0) ?:
	       nla_put_u64_64bit(skb, KAV_A_NETNS_COOKIE, ev->netns_cookie,
				 KAV_A_PAD) ?:
	       nla_put_u64_64bit(skb, KAV_A_WIRE_DROPS, ev->drops, KAV_A_PAD);
}

/* Drops began, or go on (at most one a second): kav_wire_conf.c. */
void kav_genl_wire_drop(const struct kav_wire_event *ev)
{
	kav_genl_notify(KAV_GENL_CMD_WIRE_DROP, kav_fill_wire_drop, ev);
}

static const struct genl_ops kav_genl_ops[] = {
	{
		.cmd = KAV_GENL_CMD_GRANT_ADD,
		.policy = kav_grant_add_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_grant_add,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_GRANT_DEL,
		.policy = kav_grant_id_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_grant_del,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_GRANT_GET,
		.policy = kav_grant_get_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_grant_get,
		.start = kav_genl_grant_dump_start,
		.dumpit = kav_genl_grant_dump,
		.done = kav_genl_grant_dump_done,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_DOMAIN_GET,
		.policy = kav_no_attr_policy,
		.maxattr = KAV_A_MAX,
		.dumpit = kav_genl_domain_dump,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_AV_GET,
		.policy = kav_no_attr_policy,
		.maxattr = KAV_A_MAX,
		.dumpit = kav_genl_av_dump,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_ENTRY_GET,
		.policy = kav_av_id_policy,
		.maxattr = KAV_A_MAX,
		.start = kav_genl_entry_dump_start,
		.dumpit = kav_genl_entry_dump,
		.done = kav_genl_entry_dump_done,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_STATS_GET,
		.policy = kav_no_attr_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_stats_get,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_AV_PIN,
		.policy = kav_av_pin_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_av_pin,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_AV_UNPIN,
		.policy = kav_av_id_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_av_pin,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_GRANT_SET,
		.policy = kav_grant_set_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_grant_set,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_WIRE_SET,
		.policy = kav_wire_set_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_wire_set,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_WIRE_GET,
		.policy = kav_no_attr_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_wire_get,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_WIRE_NET_ADD,
		.policy = kav_wire_net_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_wire_net,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = KAV_GENL_CMD_WIRE_NET_DEL,
		.policy = kav_wire_net_policy,
		.maxattr = KAV_A_MAX,
		.doit = kav_genl_wire_net,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family kav_genl_family __ro_after_init = {
	.name = KAV_GENL_NAME,
	.version = KAV_GENL_VERSION,
	/* CTRL_ATTR_MAXATTR; each command has its policy (kav_genl_ops). */
	.maxattr = KAV_A_MAX,
	.netnsok = false,
	/*
	 * Not under genl_mutex: no kav command may stall every generic
	 * netlink family of the node. kav's own locks serialise what needs
	 * it (the grant list, the registry, each table).
	 */
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = kav_genl_ops,
	.n_ops = ARRAY_SIZE(kav_genl_ops),
	.resv_start_op = KAV_GENL_CMD_GRANT_ADD,
	.mcgrps = kav_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(kav_genl_mcgrps),
};

int kav_genl_init(void)
{
	int ret = genl_register_family(&kav_genl_family);

	down_write(&kav_genl_live_sem);
	kav_genl_live = !ret;
	up_write(&kav_genl_live_sem);
	return ret;
}

void kav_genl_exit(void)
{
	down_write(&kav_genl_live_sem);	/* waits for notifications being sent */
	kav_genl_live = false;
	up_write(&kav_genl_live_sem);
	genl_unregister_family(&kav_genl_family);
}
