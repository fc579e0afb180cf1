// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kavctl stats: the module's counters. A table has one counter per line
 * ("label  value"); with -o, -r or -j the counters are the columns of
 * one row.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "nl.h"
#include "output.h"

enum { S_DOMAINS, S_AVS, S_ENTRIES, S_GRANTS, S_MEM, S_ENTRY_MEM,
	S_NO_GRANT, S_REVOKED, S_KEYLESS, S_LIMIT, S_MODE, S_NCOLS };

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
};
const size_t kc_stats_ncols = S_NCOLS;

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
};

/* The default table: a counter per line, no headings. */
static const struct kc_column line_cols[] = {
	{ "COUNTER", "counter", KC_COL_STR, KC_COL_DEFAULT, "counter" },
	{ "VALUE", "value", KC_COL_STR, KC_COL_DEFAULT, "value" },
};

struct stats {
	struct kc_out out;
	bool lines;		/* the default table */
	bool seen;
};

static int on_stats(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct stats *s = arg;
	size_t c;

	(void)cmd;
	if (s->seen)	/* one message is expected; show the first */
		return 0;
	s->seen = true;
	if (!s->lines && kc_out_row(&s->out))
		return -1;
	for (c = 0; c < S_NCOLS; c++) {
		int a = stat_attr[c];
		uint64_t v;

		if (!tb[a])
			continue;
		v = a == KAV_A_ENTRY_BYTES ? nla_get_u32(tb[a]) :
		    nla_get_u64(tb[a]);
		if (s->lines) {
			if (kc_out_row(&s->out))
				return -1;
			kc_out_set(&s->out, 0, "%s", kc_stats_cols[c].help);
			if (c == S_MEM || c == S_ENTRY_MEM)
				kc_out_bytes(&s->out, 1, v);
			else
				kc_out_u64(&s->out, 1, v);
		} else if (c == S_MEM || c == S_ENTRY_MEM) {
			kc_out_bytes(&s->out, c, v);
		} else {
			kc_out_u64(&s->out, c, v);
		}
	}
	return 0;
}

int kc_stats(const struct kc_cmd *cmd)
{
	struct stats s = { 0 };
	struct kc_cmd lines;
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, "stats");
	if (ret)
		return ret;
	s.lines = !cmd->json && !cmd->raw && !cmd->columns;
	if (s.lines) {
		lines = *cmd;
		lines.noheadings = true;
		ret = kc_out_begin(&s.out, &lines, "stats", line_cols, 2);
	} else {
		ret = kc_out_begin(&s.out, cmd, "stats", kc_stats_cols,
				   S_NCOLS);
	}
	if (ret)
		goto close;
	if (kc_nl_request(&nl, kc_nl_msg(&nl, KAV_GENL_CMD_STATS_GET, 0),
			  on_stats, &s) && nl.error == EOPNOTSUPP) {
		/* A module that implements STATS_GET as a dump. */
		kc_nl_request(&nl, kc_nl_msg(&nl, KAV_GENL_CMD_STATS_GET,
					     NLM_F_DUMP), on_stats, &s);
	}
	if (nl.error || nl.nl_error || nl.cb_failed) {
		ret = kc_nl_report(&nl);
		kc_out_end(&s.out, false);
		goto close;
	}
	if (!s.seen)
		kc_warn("stats: the kernel returned no counters");
	ret = kc_out_end(&s.out, true);
close:
	kc_nl_close(&nl);
	return ret;
}
