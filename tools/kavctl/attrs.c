// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The kav family's attributes: see attrs.h. */
#include <inttypes.h>
#include <string.h>

#include "args.h"
#include "attrs.h"

struct kc_attr_desc {
	const char *uapi;	/* KAV_A_*, for error messages */
	const char *json;	/* NULL: never printed */
	const char *human;
	enum kc_attr_kind kind;
};

#define A(name, json, human, kind) \
	[KAV_A_##name] = { "KAV_A_" #name, json, human, kind }

static const struct kc_attr_desc kc_attrs[KAV_A_MAX + 1] = {
	A(PAD,			NULL,		"pad",		KC_ANY),
	A(GRANT_ID,		"grant_id",	"grant",	KC_U32),
	A(VNI,			"vni",		"vni",		KC_U32),
	A(SEL_TYPE,		"type",		"selector",	KC_U32),
	A(SEL_ID,		"id",		"selector-id",	KC_U32),
	A(SEL_CGROUP_PATH,	"path",		"cgroup",	KC_STR),
	A(SEL_CGROUP_ID,	"cgroup_id",	"cgroup-id",	KC_U64),
	A(SEL_NETNS_FD,		NULL,		"netns-fd",	KC_U32),
	A(SEL_NETNS_COOKIE,	"netns_cookie",	"netns-cookie",	KC_U64),
	A(LIMIT_ENTRIES,	"max_entries",	"max-entries",	KC_U64),
	A(LIMIT_AVS,		"max_avs",	"max-avs",	KC_U32),
	A(NR_ENTRIES,		"entries",	"entries",	KC_U64),
	A(NR_AVS,		"avs",		"avs",		KC_U32),
	A(DOMAIN_ID,		"domain_id",	"domain",	KC_U32),
	A(AV_ID,		"av_id",	"av",		KC_U32),
	A(UID,			"uid",		"uid",		KC_U32),
	A(GID,			"gid",		"gid",		KC_U32),
	A(CGROUP_ID,		"cgroup_id",	"cgroup-id",	KC_U64),
	A(NETNS_COOKIE,		"netns_cookie",	"netns-cookie",	KC_U64),
	A(PID,			"pid",		"pid",		KC_U32),
	A(ADDR_FORMAT,		"addr_format",	"format",	KC_U32),
	A(MEM_BYTES,		"mem_bytes",	"mem",		KC_U64),
	A(ENTRY_INDEX,		"index",	"index",	KC_U64),
	A(ENTRY_ADDR,		"address",	"addr",		KC_BIN),
	A(KEY_REVOKED,		"revoked",	"revoked",	KC_FLAG),
	A(STAT_DOMAINS,		"domains",	"domains",	KC_U64),
	A(STAT_AVS,		"avs",		"avs",		KC_U64),
	A(STAT_ENTRIES,		"entries",	"entries",	KC_U64),
	A(STAT_GRANTS,		"grants",	"grants",	KC_U64),
	A(STAT_DENY_NO_GRANT,	"deny_no_grant", "deny-no-grant", KC_U64),
	A(STAT_DENY_REVOKED,	"deny_revoked",	"deny-revoked",	KC_U64),
	A(STAT_DENY_KEYLESS,	"deny_keyless",	"deny-keyless",	KC_U64),
	A(STAT_DENY_LIMIT,	"deny_limit",	"deny-limit",	KC_U64),
	A(AV_NAME,		"name",		"name",		KC_NAME),
	A(AV_MODE,		"mode",		"mode",		KC_U32),
	A(AV_PINNED,		"pinned",	"pinned",	KC_FLAG),
	A(IPC_NS,		"ipc_ns",	"ipc-ns",	KC_U32),
	A(NR_OPEN,		"open",		"open",		KC_U32),
	A(ENTRY_BYTES,		"entry_bytes",	"mem-per-entry", KC_U32),
	A(TAG,			"tag",		"tag",		KC_STR),
	A(GRANT_UPDATED,	"updated",	"updated",	KC_FLAG),
	A(STAT_DENY_MODE,	"deny_mode",	"deny-mode",	KC_U64),
	A(AV_JOB,		"job",		"job",		KC_FLAG),
	A(GRANT_WIRE,		"wire",		"wire",		KC_FLAG),
	A(WIRE_MODE,		"mode",		"mode",		KC_U32),
	A(WIRE_PORT_MIN,	"port_min",	"port-min",	KC_U32),
	A(WIRE_PORT_MAX,	"port_max",	"port-max",	KC_U32),
	A(WIRE_MARK,		"mark",		"mark",		KC_U32),
	A(WIRE_NET,		"net",		"net",		KC_WIRE_NET),
	A(WIRE_DROPS,		"wire_drops",	"wire-drops",	KC_U64),
	A(WIRE_PASSED,		"passed",	"passed",	KC_U64),
	A(WIRE_DROP_REASON,	"reason",	"reason",	KC_U32),
	A(WIRE_DROP_COUNTS,	"drops",	"drops",	KC_U64S),
	A(WIRE_ABORTS,		"aborts",	"aborts",	KC_U64),
};

/*
 * The order attributes are printed in: what an object is first, then its
 * key, owner, counts and memory. Every KAV_A_* that is printed appears
 * once; the selector attributes print as one nested object. The wire's
 * settings and counters (WIRE_GET's) are printed by wire.c, not here: a
 * WIRE_DROP event has the reason, key, owner and drops.
 */
static const int kc_print_order[] = {
	KAV_A_GRANT_ID, KAV_A_AV_ID, KAV_A_AV_JOB, KAV_A_AV_NAME, KAV_A_IPC_NS,
	KAV_A_DOMAIN_ID, KAV_A_ENTRY_INDEX,
	KAV_A_ENTRY_ADDR, KAV_A_ADDR_FORMAT, KAV_A_WIRE_DROP_REASON, KAV_A_VNI,
	KAV_A_KEY_REVOKED,
	KAV_A_SEL_TYPE, KAV_A_SEL_ID, KAV_A_SEL_CGROUP_PATH,
	KAV_A_SEL_CGROUP_ID, KAV_A_SEL_NETNS_COOKIE,
	KAV_A_LIMIT_ENTRIES, KAV_A_LIMIT_AVS, KAV_A_TAG, KAV_A_GRANT_WIRE,
	KAV_A_GRANT_UPDATED,
	KAV_A_PID, KAV_A_UID, KAV_A_GID, KAV_A_CGROUP_ID, KAV_A_NETNS_COOKIE,
	KAV_A_AV_MODE,
	KAV_A_NR_ENTRIES, KAV_A_NR_AVS, KAV_A_NR_OPEN, KAV_A_AV_PINNED,
	KAV_A_WIRE_DROPS,
	KAV_A_STAT_DOMAINS, KAV_A_STAT_AVS, KAV_A_STAT_ENTRIES,
	KAV_A_STAT_GRANTS, KAV_A_MEM_BYTES, KAV_A_ENTRY_BYTES,
	KAV_A_STAT_DENY_NO_GRANT, KAV_A_STAT_DENY_REVOKED,
	KAV_A_STAT_DENY_KEYLESS, KAV_A_STAT_DENY_LIMIT, KAV_A_STAT_DENY_MODE,
};

#define NR_PRINTED	(sizeof(kc_print_order) / sizeof(kc_print_order[0]))

static bool is_sel_attr(int a)
{
	return a == KAV_A_SEL_TYPE || a == KAV_A_SEL_ID ||
	       a == KAV_A_SEL_CGROUP_PATH || a == KAV_A_SEL_CGROUP_ID ||
	       a == KAV_A_SEL_NETNS_FD || a == KAV_A_SEL_NETNS_COOKIE;
}

const char *kc_attr_name(int attr, char *buf, size_t buflen)
{
	if (attr > 0 && attr <= KAV_A_MAX && kc_attrs[attr].uapi)
		return kc_attrs[attr].uapi;
	snprintf(buf, buflen, "attribute type %d", attr);
	return buf;
}

int kc_attrs_validate(struct nlattr *head, int len, char *bad,
		      size_t badlen)
{
	struct nlattr *nla;
	int rem;

	nla_for_each_attr(nla, head, len, rem) {
		int type = nla_type(nla), n = nla_len(nla);
		const char *p = nla_data(nla);
		bool ok;

		if (type <= 0 || type > KAV_A_MAX)
			continue;	/* from a newer kernel: ignored */
		switch (kc_attrs[type].kind) {
		case KC_U32:
			ok = n == 4;
			break;
		case KC_U64:
			ok = n == 8;
			break;
		case KC_STR:
			ok = n >= 1 && memchr(p, '\0', n);
			break;
		case KC_BIN:
			ok = n >= 1;
			break;
		case KC_FLAG:
			ok = n == 0;
			break;
		case KC_NAME:
			ok = n >= 1 && n <= KAV_NAME_MAX && !memchr(p, '\0', n);
			break;
		case KC_WIRE_NET:
			ok = n >= (int)sizeof(struct kav_wire_net);
			break;
		case KC_U64S:
			ok = n >= 8 && n % 8 == 0;
			break;
		default:
			ok = true;
		}
		if (!ok) {
			snprintf(bad, badlen, "%s", kc_attrs[type].uapi);
			return -1;
		}
	}
	return 0;
}

bool kc_get_u32(struct nlattr **tb, int attr, uint32_t *v)
{
	if (!tb[attr])
		return false;
	*v = nla_get_u32(tb[attr]);
	return true;
}

bool kc_get_u64(struct nlattr **tb, int attr, uint64_t *v)
{
	if (!tb[attr])
		return false;
	*v = nla_get_u64(tb[attr]);
	return true;
}

const char *kc_get_str(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_string(tb[attr]) : NULL;
}

void kc_sel_view(struct nlattr **tb, struct kc_sel_view *v)
{
	memset(v, 0, sizeof(*v));
	kc_get_u32(tb, KAV_A_SEL_TYPE, &v->type);
	v->has_id = kc_get_u32(tb, KAV_A_SEL_ID, &v->id);
	v->cgroup_path = kc_get_str(tb, KAV_A_SEL_CGROUP_PATH);
	v->has_cgroup_id = kc_get_u64(tb, KAV_A_SEL_CGROUP_ID, &v->cgroup_id);
	v->has_cookie = kc_get_u64(tb, KAV_A_SEL_NETNS_COOKIE,
				   &v->netns_cookie);
	/* The kernel reports a cgroup by id; show its path if it has one. */
	if (v->type == KAV_SEL_CGROUP && !v->cgroup_path && v->has_cgroup_id &&
	    kc_cgroup_path_by_id(v->cgroup_id, v->path_buf,
				 sizeof(v->path_buf)) == 0)
		v->cgroup_path = v->path_buf;
}

void kc_attr_addr(struct nlattr **tb, uint32_t format, char *buf,
		  size_t buflen)
{
	if (buflen)
		buf[0] = '\0';
	if (!tb[KAV_A_ENTRY_ADDR])
		return;
	kc_get_u32(tb, KAV_A_ADDR_FORMAT, &format);
	kc_format_addr(format, nla_data(tb[KAV_A_ENTRY_ADDR]),
		       nla_len(tb[KAV_A_ENTRY_ADDR]), buf, buflen);
}

static void json_selector(struct kc_json *j, struct nlattr **tb)
{
	struct kc_sel_view v;
	const char *name;
	char who[256];

	kc_sel_view(tb, &v);
	kc_json_key(j, "selector");
	kc_json_open_object(j);
	name = kc_selector_name(v.type);
	if (name)
		kc_json_kv_string(j, "type", name);
	else if (tb[KAV_A_SEL_TYPE])
		kc_json_kv_u64(j, "type", v.type);
	if (v.has_id) {
		if (v.type == KAV_SEL_UID) {
			kc_json_kv_u64(j, "uid", v.id);
			if (kc_user_name(v.id, who, sizeof(who)))
				kc_json_kv_string(j, "user", who);
		} else if (v.type == KAV_SEL_GID) {
			kc_json_kv_u64(j, "gid", v.id);
			if (kc_group_name(v.id, who, sizeof(who)))
				kc_json_kv_string(j, "group", who);
		} else {
			kc_json_kv_u64(j, "id", v.id);
		}
	}
	if (v.cgroup_path)
		kc_json_kv_string(j, "path", v.cgroup_path);
	if (v.has_cgroup_id)
		kc_json_kv_u64(j, "cgroup_id", v.cgroup_id);
	if (v.has_cookie)
		kc_json_kv_u64(j, "netns_cookie", v.netns_cookie);
	kc_json_close_object(j);
}

void kc_json_attrs(struct kc_json *j, struct nlattr **tb, uint32_t format,
		   unsigned int flags)
{
	bool sel_done = false;
	char buf[4 * KAV_ADDR_MAX_LEN + 8];
	size_t i;

	for (i = 0; i < NR_PRINTED; i++) {
		int a = kc_print_order[i];
		const struct kc_attr_desc *d = &kc_attrs[a];
		uint32_t v32 = 0;

		/* Only a named AV can be pinned: say so either way. */
		if (a == KAV_A_AV_PINNED && !tb[a] && tb[KAV_A_AV_NAME]) {
			kc_json_kv_bool(j, d->json, false);
			continue;
		}
		if (!tb[a] || !d->json)
			continue;
		if (is_sel_attr(a)) {
			if (!sel_done)
				json_selector(j, tb);
			sel_done = true;
			continue;
		}
		switch (a) {
		case KAV_A_ADDR_FORMAT: {
			const char *name;

			kc_get_u32(tb, a, &v32);
			name = kc_addr_format_name(v32);
			if (name)
				kc_json_kv_string(j, d->json, name);
			else
				kc_json_kv_u64(j, d->json, v32);
			continue;
		}
		case KAV_A_UID:
			kc_json_kv_u64(j, d->json, nla_get_u32(tb[a]));
			if (kc_user_name(nla_get_u32(tb[a]), buf, sizeof(buf)))
				kc_json_kv_string(j, "user", buf);
			continue;
		case KAV_A_GID:
			kc_json_kv_u64(j, d->json, nla_get_u32(tb[a]));
			if (kc_group_name(nla_get_u32(tb[a]), buf, sizeof(buf)))
				kc_json_kv_string(j, "group", buf);
			continue;
		case KAV_A_ENTRY_ADDR:
			kc_attr_addr(tb, format, buf, sizeof(buf));
			kc_json_kv_string(j, d->json, buf);
			continue;
		case KAV_A_AV_MODE:
			/* As chmod takes it: JSON has no octal numbers. */
			snprintf(buf, sizeof(buf), "%04o", nla_get_u32(tb[a]));
			kc_json_kv_string(j, d->json, buf);
			continue;
		case KAV_A_WIRE_DROP_REASON: {
			const char *name;

			v32 = nla_get_u32(tb[a]);
			name = kc_wire_drop_name(v32, true);
			if (name)
				kc_json_kv_string(j, d->json, name);
			else
				kc_json_kv_u64(j, d->json, v32);
			continue;
		}
		default:
			break;
		}
		switch (d->kind) {
		case KC_U32:
			kc_json_kv_u64(j, d->json, nla_get_u32(tb[a]));
			break;
		case KC_U64:
			kc_json_kv_u64(j, d->json, nla_get_u64(tb[a]));
			break;
		case KC_STR:
			kc_json_kv_string(j, d->json, nla_get_string(tb[a]));
			break;
		case KC_FLAG:
			kc_json_kv_bool(j, d->json, true);
			break;
		case KC_NAME:
			/* The raw bytes: the JSON writer escapes them. */
			kc_json_key(j, d->json);
			kc_json_string_len(j, nla_data(tb[a]), nla_len(tb[a]));
			break;
		default:
			break;
		}
	}
	if ((flags & KC_PRINT_ENTRY) && !tb[KAV_A_KEY_REVOKED])
		kc_json_kv_bool(j, kc_attrs[KAV_A_KEY_REVOKED].json, false);
}

void kc_human_attrs(FILE *f, struct nlattr **tb, uint32_t format)
{
	bool sel_done = false;
	char buf[4 * KAV_ADDR_MAX_LEN + 8];
	size_t i;

	for (i = 0; i < NR_PRINTED; i++) {
		int a = kc_print_order[i];
		const struct kc_attr_desc *d = &kc_attrs[a];
		uint64_t v64;

		if (!tb[a] || !d->json)
			continue;
		if (is_sel_attr(a)) {
			struct kc_sel_view v;

			if (sel_done)
				continue;
			sel_done = true;
			kc_sel_view(tb, &v);
			kc_format_selector(&v, buf, sizeof(buf));
			fprintf(f, " %s", buf);
			continue;
		}
		switch (a) {
		case KAV_A_ADDR_FORMAT: {
			uint32_t fmt = nla_get_u32(tb[a]);
			const char *name = kc_addr_format_name(fmt);

			if (name)
				fprintf(f, " %s %s", d->human, name);
			else
				fprintf(f, " %s %u", d->human, fmt);
			continue;
		}
		case KAV_A_ENTRY_ADDR:
			kc_attr_addr(tb, format, buf, sizeof(buf));
			fprintf(f, " %s %s", d->human, buf);
			continue;
		case KAV_A_MEM_BYTES:
			kc_format_bytes(nla_get_u64(tb[a]), buf, sizeof(buf));
			fprintf(f, " %s %s", d->human, buf);
			continue;
		case KAV_A_ENTRY_BYTES:
			kc_format_bytes(nla_get_u32(tb[a]), buf, sizeof(buf));
			fprintf(f, " %s %s", d->human, buf);
			continue;
		case KAV_A_AV_MODE:
			fprintf(f, " %s %04o", d->human, nla_get_u32(tb[a]));
			continue;
		case KAV_A_WIRE_DROP_REASON: {
			uint32_t r = nla_get_u32(tb[a]);
			const char *name = kc_wire_drop_name(r, false);

			if (name)
				fprintf(f, " %s %s", d->human, name);
			else
				fprintf(f, " %s %u", d->human, r);
			continue;
		}
		case KAV_A_LIMIT_ENTRIES:
		case KAV_A_LIMIT_AVS:
			v64 = d->kind == KC_U64 ? nla_get_u64(tb[a]) :
			      nla_get_u32(tb[a]);
			if (v64)
				fprintf(f, " %s %" PRIu64, d->human, v64);
			else
				fprintf(f, " %s unlimited", d->human);
			continue;
		default:
			break;
		}
		switch (d->kind) {
		case KC_U32:
			fprintf(f, " %s %u", d->human, nla_get_u32(tb[a]));
			break;
		case KC_U64:
			fprintf(f, " %s %" PRIu64, d->human, nla_get_u64(tb[a]));
			break;
		case KC_STR:
			kc_format_addr(KAV_ADDR_STR, nla_data(tb[a]),
				       nla_len(tb[a]), buf, sizeof(buf));
			fprintf(f, " %s %s", d->human, buf);
			break;
		case KC_FLAG:
			fprintf(f, " %s", d->human);
			break;
		case KC_NAME:
			kc_format_name(nla_data(tb[a]), nla_len(tb[a]), buf,
				       sizeof(buf));
			fprintf(f, " %s %s", d->human, buf);
			break;
		default:
			break;
		}
	}
}
