// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kavctl stats: the module's counters. A table has one counter per line
 * ("label  value"); with -o, -r or -j the counters are the columns of
 * one row. The wire's counters (KAV_A_WIRE_PASSED, _DROP_COUNTS,
 * _ABORTS) are shown when the module has them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "nl.h"
#include "output.h"
#include "stats.h"

enum { S_DOMAINS, S_AVS, S_ENTRIES, S_GRANTS, S_MEM, S_ENTRY_MEM,
	S_NO_GRANT, S_REVOKED, S_KEYLESS, S_LIMIT, S_MODE,
	/* The wire's (kavctl wire): only from a module that has it. */
	S_WIRE_PASSED, S_WIRE_DROP, S_WIRE_ABORTS = S_WIRE_DROP +
	KAV_WIRE_DROP_NR, S_NCOLS };

/* The columns every module has. */
#define S_NBASE		S_WIRE_PASSED

#define NUM	KC_COL_NUM, KC_COL_DEFAULT | KC_COL_RIGHT

const struct kc_column kc_stats_cols[] = {
	[S_DOMAINS]   = { "DOMAINS", "domains", NUM, "domains" },
	[S_AVS]       = { "AVS", "avs", NUM, "avs" },
	[S_ENTRIES]   = { "ENTRIES", "entries", NUM, "entries" },
	[S_GRANTS]    = { "GRANTS", "grants", NUM, "grants" },
	[S_MEM]       = { "MEM", "mem_bytes", NUM, "memory" },
	[S_ENTRY_MEM] = { "MEM-PER-ENTRY", "entry_bytes", NUM,
			  "memory per entry" },
	[S_NO_GRANT]  = { "DENY-NO-GRANT", "deny_no_grant", NUM,
			  "denied, key not granted" },
	[S_REVOKED]   = { "DENY-REVOKED", "deny_revoked", NUM,
			  "denied, key revoked" },
	[S_KEYLESS]   = { "DENY-KEYLESS", "deny_keyless", NUM,
			  "denied, no key (keyless off)" },
	[S_LIMIT]     = { "DENY-LIMIT", "deny_limit", NUM,
			  "denied, grant limit reached" },
	[S_MODE]      = { "DENY-MODE", "deny_mode", NUM,
			  "denied, named AV mode bits" },
	[S_WIRE_PASSED] = { "WIRE-PASSED", "wire_passed", NUM,
			    "wire, passed (in scope, keys equal)" },
	[S_WIRE_DROP + KAV_WIRE_DROP_SENDER_NO_KEY] = {
		"WIRE-DROP-SENDER-NO-KEY", "wire_drop_sender_no_key", NUM,
		"wire, dropped: the sender holds no key" },
	[S_WIRE_DROP + KAV_WIRE_DROP_RECEIVER_NO_KEY] = {
		"WIRE-DROP-RECEIVER-NO-KEY", "wire_drop_receiver_no_key", NUM,
		"wire, dropped: the receiver holds no key" },
	[S_WIRE_DROP + KAV_WIRE_DROP_MISMATCH] = {
		"WIRE-DROP-MISMATCH", "wire_drop_mismatch", NUM,
		"wire, dropped: the keys differ" },
	[S_WIRE_DROP + KAV_WIRE_DROP_NO_CARRIER] = {
		"WIRE-DROP-NO-CARRIER", "wire_drop_no_carrier", NUM,
		"wire, dropped: no key in the packet" },
	[S_WIRE_DROP + KAV_WIRE_DROP_NETNS] = {
		"WIRE-DROP-NETNS", "wire_drop_netns", NUM,
		"wire, dropped: from a netns holding no key" },
	[S_WIRE_DROP + KAV_WIRE_DROP_FRAGMENT] = {
		"WIRE-DROP-FRAGMENT", "wire_drop_fragment", NUM,
		"wire, dropped: a fragment not reassembled" },
	[S_WIRE_DROP + KAV_WIRE_DROP_CONFLICT] = {
		"WIRE-DROP-CONFLICT", "wire_drop_conflict", NUM,
		"wire, dropped: an owner with two keys" },
	[S_WIRE_ABORTS] = { "WIRE-ABORTS", "wire_aborts", NUM,
			    "wire, sockets aborted (key revoked)" },
};
const size_t kc_stats_ncols = S_NCOLS;

/* The u64 (u32: KAV_A_ENTRY_BYTES) counters, by column; -1: none. */
static const int stat_attr[S_NCOLS] = {
	[S_DOMAINS] = KAV_A_STAT_DOMAINS,
	[S_AVS] = KAV_A_STAT_AVS,
	[S_ENTRIES] = KAV_A_STAT_ENTRIES,
	[S_GRANTS] = KAV_A_STAT_GRANTS,
	[S_MEM] = KAV_A_MEM_BYTES,
	[S_ENTRY_MEM] = KAV_A_ENTRY_BYTES,
	[S_NO_GRANT] = KAV_A_STAT_DENY_NO_GRANT,
	[S_REVOKED] = KAV_A_STAT_DENY_REVOKED,
	[S_KEYLESS] = KAV_A_STAT_DENY_KEYLESS,
	[S_LIMIT] = KAV_A_STAT_DENY_LIMIT,
	[S_MODE] = KAV_A_STAT_DENY_MODE,
	[S_WIRE_PASSED] = KAV_A_WIRE_PASSED,
	[S_WIRE_ABORTS] = KAV_A_WIRE_ABORTS,
};

/* The default table: a counter per line, no headings. */
static const struct kc_column line_cols[] = {
	{ "COUNTER", "counter", KC_COL_STR, KC_COL_DEFAULT, "counter" },
	{ "VALUE", "value", KC_COL_STR, KC_COL_DEFAULT, "value" },
};

/* The counters of the reply, kept until the request succeeded. */
struct stats {
	bool seen;
	bool has[S_NCOLS];
	uint64_t v[S_NCOLS];
};

static int on_stats(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct stats *s = arg;
	size_t c, n;

	(void)cmd;
	if (s->seen)	/* one message is expected; show the first */
		return 0;
	s->seen = true;
	for (c = 0; c < S_NCOLS; c++) {
		int a = stat_attr[c];

		if (!a || !tb[a])
			continue;
		s->has[c] = true;
		s->v[c] = a == KAV_A_ENTRY_BYTES ? nla_get_u32(tb[a]) :
			  nla_get_u64(tb[a]);
	}
	/* u64[KAV_WIRE_DROP_NR]; a newer module's further reasons: not shown. */
	if (tb[KAV_A_WIRE_DROP_COUNTS]) {
		n = (size_t)nla_len(tb[KAV_A_WIRE_DROP_COUNTS]) / 8;
		for (c = 0; c < n && c < KAV_WIRE_DROP_NR; c++) {
			memcpy(&s->v[S_WIRE_DROP + c],
			       (const char *)nla_data(tb[KAV_A_WIRE_DROP_COUNTS]) +
			       8 * c, 8);
			s->has[S_WIRE_DROP + c] = true;
		}
	}
	return 0;
}

static void put_value(struct kc_out *o, size_t col, size_t c, uint64_t v)
{
	if (c == S_MEM || c == S_ENTRY_MEM)
		kc_out_bytes(o, col, v);
	else
		kc_out_u64(o, col, v);
}

/*
 * The counters as lines (the default table) or one row. The wire's
 * columns are left out when the module reported none of them (it has no
 * wire), unless -o names them.
 */
static int print_stats(const struct kc_cmd *cmd, const struct stats *s)
{
	bool lines = !cmd->json && !cmd->raw && !cmd->columns;
	bool wire = false;
	struct kc_cmd lc;
	struct kc_out out;
	size_t c;
	int ret;

	for (c = S_NBASE; c < S_NCOLS; c++)
		wire = wire || s->has[c];
	if (lines) {
		lc = *cmd;
		lc.noheadings = true;
		ret = kc_out_begin(&out, &lc, "stats", line_cols, 2);
	} else {
		ret = kc_out_begin(&out, cmd, "stats", kc_stats_cols,
				   wire || cmd->columns ? S_NCOLS : S_NBASE);
	}
	if (ret)
		return ret;
	if (s->seen && !lines && kc_out_row(&out))
		goto fail;
	for (c = 0; s->seen && c < S_NCOLS; c++) {
		if (!s->has[c])
			continue;
		if (!lines) {
			put_value(&out, c, c, s->v[c]);
			continue;
		}
		if (kc_out_row(&out))
			goto fail;
		kc_out_set(&out, 0, "%s", kc_stats_cols[c].help);
		put_value(&out, 1, c, s->v[c]);
	}
	return kc_out_end(&out, true);
fail:
	kc_out_end(&out, false);
	return KC_EXIT_FAIL;
}

int kc_stats_show_reply(const struct kc_cmd *cmd, struct nl_msg *reply)
{
	struct nlattr *tb[KAV_A_MAX + 1];
	struct stats s;
	uint8_t c;

	memset(&s, 0, sizeof(s));
	if (kc_nl_parse(reply, &c, tb) || on_stats(c, tb, &s))
		return KC_EXIT_FAIL;
	return print_stats(cmd, &s);
}

int kc_stats(const struct kc_cmd *cmd)
{
	struct stats s;
	struct kc_nl nl;
	int ret;

	memset(&s, 0, sizeof(s));
	ret = kc_nl_open(&nl, "stats");
	if (ret)
		return ret;
	if (kc_nl_request(&nl, kc_nl_msg(&nl, KAV_GENL_CMD_STATS_GET, 0),
			  on_stats, &s) && nl.error == EOPNOTSUPP) {
		/* A module that implements STATS_GET as a dump. */
		kc_nl_request(&nl, kc_nl_msg(&nl, KAV_GENL_CMD_STATS_GET,
					     NLM_F_DUMP), on_stats, &s);
	}
	if (nl.error || nl.nl_error || nl.cb_failed) {
		ret = kc_nl_report(&nl);
		goto close;
	}
	if (!s.seen)
		kc_warn("stats: the kernel returned no counters");
	ret = print_stats(cmd, &s);
close:
	kc_nl_close(&nl);
	return ret;
}
