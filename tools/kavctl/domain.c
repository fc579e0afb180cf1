// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl domain list: every open /dev/kav and who opened it. */
#include <inttypes.h>

#include "attrs.h"
#include "list.h"
#include "nl.h"
#include "output.h"

enum { D_ID, D_PID, D_USER, D_GROUP, D_CGROUP, D_NETNS, D_VNI, D_AVS,
	D_ENTRIES, D_MEM, D_NCOLS };

static const struct kc_column domain_cols[D_NCOLS] = {
	[D_ID]      = { "ID", KC_COL_ALWAYS },
	[D_PID]     = { "PID", 0 },
	[D_USER]    = { "USER", 0 },
	[D_GROUP]   = { "GROUP", 0 },
	[D_CGROUP]  = { "CGROUP-ID", 0 },
	[D_NETNS]   = { "NETNS-COOKIE", 0 },
	[D_VNI]     = { "VNI", 0 },
	[D_AVS]     = { "AVS", 0 },
	[D_ENTRIES] = { "ENTRIES", 0 },
	[D_MEM]     = { "MEM", 0 },
};

static int on_domain(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct kc_out *o = arg;
	struct kc_table *t = &o->t;
	char buf[256];
	uint32_t v32;
	uint64_t v64;
	int row;

	(void)cmd;
	row = kc_list_row(o, tb, 0, 0);
	if (row <= 0)
		return row;
	if (kc_get_u32(tb, KAV_A_DOMAIN_ID, &v32))
		kc_table_set(t, D_ID, "%u", v32);
	if (kc_get_u32(tb, KAV_A_PID, &v32))
		kc_table_set(t, D_PID, "%u", v32);
	kc_list_set_owner(t, D_USER, tb, KAV_A_UID);
	kc_list_set_owner(t, D_GROUP, tb, KAV_A_GID);
	if (kc_get_u64(tb, KAV_A_CGROUP_ID, &v64))
		kc_table_set(t, D_CGROUP, "%" PRIu64, v64);
	if (kc_get_u64(tb, KAV_A_NETNS_COOKIE, &v64))
		kc_table_set(t, D_NETNS, "%" PRIu64, v64);
	if (kc_get_u32(tb, KAV_A_VNI, &v32))
		kc_table_set(t, D_VNI, "%u%s", v32,
			     tb[KAV_A_KEY_REVOKED] ? " (revoked)" : "");
	if (kc_get_u32(tb, KAV_A_NR_AVS, &v32))
		kc_table_set(t, D_AVS, "%u", v32);
	if (kc_get_u64(tb, KAV_A_NR_ENTRIES, &v64))
		kc_table_set(t, D_ENTRIES, "%" PRIu64, v64);
	if (kc_get_u64(tb, KAV_A_MEM_BYTES, &v64)) {
		kc_format_bytes(v64, buf, sizeof(buf));
		kc_table_set(t, D_MEM, "%s", buf);
	}
	return 0;
}

int kc_domain_list(const struct kc_cmd *cmd)
{
	return kc_list_dump(cmd, "domain list", KAV_GENL_CMD_DOMAIN_GET,
			    on_domain, domain_cols, D_NCOLS);
}
