// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl av list / av show ID (the entries of one AV) / av pin, unpin ID. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "attrs.h"
#include "list.h"
#include "nl.h"
#include "output.h"

/* NAME is last: a name may be long, and the last column is not padded. */
enum { A_ID, A_DOMAIN, A_PID, A_USER, A_MODE, A_FORMAT, A_VNI, A_ENTRIES,
	A_MEM, A_OPEN, A_PINNED, A_NAME, A_NCOLS };

static const struct kc_column av_cols[A_NCOLS] = {
	[A_ID]      = { "ID", KC_COL_ALWAYS },
	[A_DOMAIN]  = { "DOMAIN", 0 },
	[A_PID]     = { "PID", 0 },
	[A_USER]    = { "USER", 0 },
	[A_MODE]    = { "MODE", 0 },
	[A_FORMAT]  = { "FORMAT", 0 },
	[A_VNI]     = { "VNI", 0 },
	[A_ENTRIES] = { "ENTRIES", 0 },
	[A_MEM]     = { "MEM", 0 },
	[A_OPEN]    = { "OPEN", 0 },
	[A_PINNED]  = { "PINNED", 0 },
	[A_NAME]    = { "NAME", 0 },
};

static int on_av(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct kc_out *o = arg;
	struct kc_table *t = &o->t;
	const char *name;
	char buf[KC_NAME_TEXT_MAX];
	uint32_t v32;
	uint64_t v64;
	int row;

	(void)cmd;
	row = kc_list_row(o, tb, 0, 0);
	if (row <= 0)
		return row;
	if (kc_get_u32(tb, KAV_A_AV_ID, &v32))
		kc_table_set(t, A_ID, "%u", v32);
	if (kc_get_u32(tb, KAV_A_DOMAIN_ID, &v32))
		kc_table_set(t, A_DOMAIN, "%u", v32);
	if (kc_get_u32(tb, KAV_A_PID, &v32))
		kc_table_set(t, A_PID, "%u", v32);
	kc_list_set_owner(t, A_USER, tb, KAV_A_UID);
	if (kc_get_u32(tb, KAV_A_ADDR_FORMAT, &v32)) {
		name = kc_addr_format_name(v32);
		if (name)
			kc_table_set(t, A_FORMAT, "%s", name);
		else
			kc_table_set(t, A_FORMAT, "%u", v32);
	}
	if (kc_get_u32(tb, KAV_A_VNI, &v32))
		kc_table_set(t, A_VNI, "%u", v32);
	if (kc_get_u64(tb, KAV_A_NR_ENTRIES, &v64))
		kc_table_set(t, A_ENTRIES, "%" PRIu64, v64);
	if (kc_get_u64(tb, KAV_A_MEM_BYTES, &v64)) {
		kc_format_bytes(v64, buf, sizeof(buf));
		kc_table_set(t, A_MEM, "%s", buf);
	}
	if (kc_get_u32(tb, KAV_A_NR_OPEN, &v32))
		kc_table_set(t, A_OPEN, "%u", v32);
	/* Unnamed AVs have no name, mode or pin: their cells stay "-". */
	if (tb[KAV_A_AV_NAME]) {
		kc_format_name(nla_data(tb[KAV_A_AV_NAME]),
			       nla_len(tb[KAV_A_AV_NAME]), buf, sizeof(buf));
		kc_table_set(t, A_NAME, "%s", buf);
		kc_table_set(t, A_PINNED, "%s",
			     tb[KAV_A_AV_PINNED] ? "yes" : "no");
	}
	if (kc_get_u32(tb, KAV_A_AV_MODE, &v32))
		kc_table_set(t, A_MODE, "%04o", v32);
	return 0;
}

int kc_av_list(const struct kc_cmd *cmd)
{
	return kc_list_dump(cmd, "av list", KAV_GENL_CMD_AV_GET, on_av,
			    av_cols, A_NCOLS);
}

/* The AV dump, read only to learn one AV's address format. */
struct av_lookup {
	uint32_t id;
	bool found;
	uint32_t format;
};

static int on_av_lookup(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct av_lookup *l = arg;
	uint32_t id;

	(void)cmd;
	if (kc_get_u32(tb, KAV_A_AV_ID, &id) && id == l->id) {
		l->found = true;
		kc_get_u32(tb, KAV_A_ADDR_FORMAT, &l->format);
	}
	return 0;
}

enum { E_INDEX, E_ADDR, E_VNI, E_STATE, E_NCOLS };

static const struct kc_column entry_cols[E_NCOLS] = {
	[E_INDEX] = { "INDEX", KC_COL_ALWAYS },
	[E_ADDR]  = { "ADDRESS", KC_COL_ALWAYS },
	[E_VNI]   = { "VNI", KC_COL_ALWAYS },
	[E_STATE] = { "KEY", KC_COL_ALWAYS },
};

struct entries {
	struct kc_out out;
	uint32_t format;
	uint64_t count;
};

static int on_entry(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct entries *e = arg;
	struct kc_table *t = &e->out.t;
	char buf[4 * KAV_ADDR_MAX_LEN + 8];
	uint32_t v32;
	uint64_t v64;
	int row;

	(void)cmd;
	e->count++;
	row = kc_list_row(&e->out, tb, e->format, KC_PRINT_ENTRY);
	if (row <= 0)
		return row;
	if (kc_get_u64(tb, KAV_A_ENTRY_INDEX, &v64))
		kc_table_set(t, E_INDEX, "%" PRIu64, v64);
	if (tb[KAV_A_ENTRY_ADDR]) {
		kc_attr_addr(tb, e->format, buf, sizeof(buf));
		kc_table_set(t, E_ADDR, "%s", buf);
	}
	if (kc_get_u32(tb, KAV_A_VNI, &v32)) {
		kc_table_set(t, E_VNI, "%u", v32);
		kc_table_set(t, E_STATE, "%s",
			     tb[KAV_A_KEY_REVOKED] ? "revoked" : "ok");
	} else if (tb[KAV_A_KEY_REVOKED]) {
		kc_table_set(t, E_STATE, "revoked");
	}
	return 0;
}

int kc_av_show(const struct kc_cmd *cmd)
{
	struct av_lookup look = { .id = cmd->id };
	struct entries e = { 0 };
	struct nl_msg *msg;
	struct kc_nl nl;
	bool looked;
	int ret;

	ret = kc_nl_open(&nl, "av show");
	if (ret)
		return ret;
	/*
	 * The AV's address format says how to print addresses. If this
	 * dump fails, the entry dump below fails the same way and says so.
	 */
	looked = kc_nl_request(&nl, kc_nl_msg(&nl, KAV_GENL_CMD_AV_GET,
					      NLM_F_DUMP),
			       on_av_lookup, &look) == 0;
	e.format = look.format;

	ret = kc_out_begin(&e.out, cmd, true, entry_cols, E_NCOLS);
	if (ret)
		goto close;
	msg = kc_nl_msg(&nl, KAV_GENL_CMD_ENTRY_GET, NLM_F_DUMP);
	if (msg && nla_put_u32(msg, KAV_A_AV_ID, cmd->id)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (kc_nl_request(&nl, msg, on_entry, &e)) {
		if (nl.error == ENOENT && !nl.extack[0])
			snprintf(nl.extack, sizeof(nl.extack),
				 "no AV with id %u", cmd->id);
		ret = kc_nl_report(&nl);
		kc_out_end(&e.out, false);
		goto close;
	}
	if (!e.count && looked && !look.found) {
		/* Nothing dumped and no such AV listed: say so. */
		kc_out_end(&e.out, false);
		kc_err("av show: no AV with id %u", cmd->id);
		ret = KC_EXIT_FAIL;
		goto close;
	}
	ret = kc_out_end(&e.out, true);
close:
	kc_nl_close(&nl);
	return ret;
}

int kc_av_pin(const struct kc_cmd *cmd)
{
	bool pin = cmd->op == KC_OP_AV_PIN;
	const char *what = pin ? "av pin" : "av unpin";
	struct nl_msg *msg;
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, what);
	if (ret)
		return ret;
	msg = kc_nl_msg(&nl, pin ? KAV_GENL_CMD_AV_PIN : KAV_GENL_CMD_AV_UNPIN,
			0);
	if (!msg || nla_put_u32(msg, KAV_A_AV_ID, cmd->id)) {
		nlmsg_free(msg);
		kc_err("%s: out of memory", what);
		kc_nl_close(&nl);
		return KC_EXIT_FAIL;
	}
	/* Like grant del: nothing is printed on success, JSON or not. */
	if (kc_nl_request(&nl, msg, NULL, NULL)) {
		if (nl.error == ENOENT && !nl.extack[0])
			snprintf(nl.extack, sizeof(nl.extack),
				 "no AV with id %u", cmd->id);
		ret = kc_nl_report(&nl);
	}
	kc_nl_close(&nl);
	return ret;
}
