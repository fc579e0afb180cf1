// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl domain list: every open /dev/kav and who opened it. */
#include <inttypes.h>

#include "attrs.h"
#include "list.h"
#include "nl.h"
#include "output.h"

enum { D_ID, D_PID, D_USER, D_GROUP, D_UID, D_GID, D_CGROUP, D_NETNS,
	D_VNI, D_REVOKED, D_AVS, D_ENTRIES, D_MEM, D_NCOLS };

#define DEF	KC_COL_DEFAULT
#define NUMR	KC_COL_NUM, KC_COL_RIGHT

const struct kc_column kc_domain_cols[] = {
	[D_ID]      = { "ID", "domain_id", KC_COL_NUM, DEF | KC_COL_RIGHT,
			"domain id" },
	[D_PID]     = { "PID", "pid", KC_COL_NUM, DEF | KC_COL_RIGHT,
			"process that opened /dev/kav" },
	[D_USER]    = { "USER", "user", KC_COL_STR, DEF,
			"its user (name, else uid)" },
	[D_GROUP]   = { "GROUP", "group", KC_COL_STR, DEF,
			"its group (name, else gid)" },
	[D_UID]     = { "UID", "uid", NUMR, "its uid" },
	[D_GID]     = { "GID", "gid", NUMR, "its gid" },
	[D_CGROUP]  = { "CGROUP-ID", "cgroup_id", KC_COL_NUM,
			DEF | KC_COL_RIGHT, "its cgroup v2 id" },
	[D_NETNS]   = { "NETNS-COOKIE", "netns_cookie", KC_COL_NUM,
			DEF | KC_COL_RIGHT, "its network namespace cookie" },
	[D_VNI]     = { "VNI", "vni", KC_COL_NUM, DEF,
			"the domain's key ((revoked) once revoked)" },
	[D_REVOKED] = { "REVOKED", "revoked", KC_COL_BOOL, 0,
			"the key's grant was revoked" },
	[D_AVS]     = { "AVS", "avs", KC_COL_NUM, DEF | KC_COL_RIGHT,
			"AVs open in the domain" },
	[D_ENTRIES] = { "ENTRIES", "entries", KC_COL_NUM, DEF | KC_COL_RIGHT,
			"entries in them" },
	[D_MEM]     = { "MEM", "mem_bytes", KC_COL_NUM, DEF | KC_COL_RIGHT,
			"kernel memory" },
};
const size_t kc_domain_ncols = D_NCOLS;

static int on_domain(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct kc_list *l = arg;
	struct kc_out *o = &l->out;
	uint32_t v32;
	uint64_t v64;

	(void)cmd;
	l->count++;
	if (kc_out_row(o))
		return -1;
	if (kc_get_u32(tb, KAV_A_DOMAIN_ID, &v32))
		kc_out_u64(o, D_ID, v32);
	if (kc_get_u32(tb, KAV_A_PID, &v32))
		kc_out_u64(o, D_PID, v32);
	kc_list_set_owner(o, D_USER, tb, KAV_A_UID);
	kc_list_set_owner(o, D_GROUP, tb, KAV_A_GID);
	if (kc_get_u32(tb, KAV_A_UID, &v32))
		kc_out_u64(o, D_UID, v32);
	if (kc_get_u32(tb, KAV_A_GID, &v32))
		kc_out_u64(o, D_GID, v32);
	if (kc_get_u64(tb, KAV_A_CGROUP_ID, &v64))
		kc_out_u64(o, D_CGROUP, v64);
	if (kc_get_u64(tb, KAV_A_NETNS_COOKIE, &v64))
		kc_out_u64(o, D_NETNS, v64);
	if (kc_get_u32(tb, KAV_A_VNI, &v32)) {
		if (o->json)
			kc_out_u64(o, D_VNI, v32);
		else
			kc_out_set(o, D_VNI, "%u%s", v32,
				   tb[KAV_A_KEY_REVOKED] ? " (revoked)" : "");
		kc_out_bool(o, D_REVOKED, tb[KAV_A_KEY_REVOKED]);
	}
	if (kc_get_u32(tb, KAV_A_NR_AVS, &v32))
		kc_out_u64(o, D_AVS, v32);
	if (kc_get_u64(tb, KAV_A_NR_ENTRIES, &v64))
		kc_out_u64(o, D_ENTRIES, v64);
	if (kc_get_u64(tb, KAV_A_MEM_BYTES, &v64))
		kc_out_bytes(o, D_MEM, v64);
	return 0;
}

int kc_domain_list(const struct kc_cmd *cmd)
{
	static const struct kc_list_req req = {
		.what = "domain list",
		.name = "domains",
		.genl_cmd = KAV_GENL_CMD_DOMAIN_GET,
		.dump = true,
		.row = on_domain,
		.cols = kc_domain_cols,
		.ncols = D_NCOLS,
	};

	return kc_list_dump(cmd, &req);
}
