// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl domain list: every open /dev/kav and who opened it. */
#include <inttypes.h>

#include "attrs.h"
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

	(void)cmd;
	if (o->json) {
		kc_json_open_object(&o->j);
		kc_json_attrs(&o->j, tb, 0, 0);
		kc_json_close_object(&o->j);
		return 0;
	}
	if (kc_table_add_row(t)) {
		kc_err("out of memory");
		return -1;
	}
	if (kc_get_u32(tb, KAV_A_DOMAIN_ID, &v32))
		kc_table_set(t, D_ID, "%u", v32);
	if (kc_get_u32(tb, KAV_A_PID, &v32))
		kc_table_set(t, D_PID, "%u", v32);
	if (kc_get_u32(tb, KAV_A_UID, &v32)) {
		if (kc_user_name(v32, buf, sizeof(buf)))
			kc_table_set(t, D_USER, "%s", buf);
		else
			kc_table_set(t, D_USER, "%u", v32);
	}
	if (kc_get_u32(tb, KAV_A_GID, &v32)) {
		if (kc_group_name(v32, buf, sizeof(buf)))
			kc_table_set(t, D_GROUP, "%s", buf);
		else
			kc_table_set(t, D_GROUP, "%u", v32);
	}
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
	struct kc_out out;
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, "domain list");
	if (ret)
		return ret;
	ret = kc_out_begin(&out, cmd, true, domain_cols, D_NCOLS);
	if (ret)
		goto close;
	if (kc_nl_request(&nl, kc_nl_msg(&nl, KAV_GENL_CMD_DOMAIN_GET,
					 NLM_F_DUMP), on_domain, &out)) {
		ret = kc_nl_report(&nl);
		kc_out_end(&out, false);
		goto close;
	}
	ret = kc_out_end(&out, true);
close:
	kc_nl_close(&nl);
	return ret;
}
