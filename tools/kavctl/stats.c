// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl stats: the module's counters. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "nl.h"
#include "output.h"

struct stats {
	struct kc_out out;
	bool seen;
};

static const struct {
	int attr;
	const char *label;
} stat_lines[] = {
	{ KAV_A_STAT_DOMAINS, "domains" },
	{ KAV_A_STAT_AVS, "avs" },
	{ KAV_A_STAT_ENTRIES, "entries" },
	{ KAV_A_STAT_GRANTS, "grants" },
	{ KAV_A_MEM_BYTES, "memory" },
	{ KAV_A_STAT_DENY_NO_GRANT, "denied, key not granted" },
	{ KAV_A_STAT_DENY_REVOKED, "denied, key revoked" },
	{ KAV_A_STAT_DENY_KEYLESS, "denied, no key (keyless off)" },
	{ KAV_A_STAT_DENY_LIMIT, "denied, grant limit reached" },
};

static int on_stats(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct stats *s = arg;
	char buf[64];
	size_t i;

	(void)cmd;
	if (s->seen)	/* one message is expected; show the first */
		return 0;
	s->seen = true;
	if (s->out.json) {
		kc_json_attrs(&s->out.j, tb, 0, 0);
		return 0;
	}
	for (i = 0; i < sizeof(stat_lines) / sizeof(stat_lines[0]); i++) {
		int a = stat_lines[i].attr;
		uint64_t v;

		if (!kc_get_u64(tb, a, &v))
			continue;
		if (a == KAV_A_MEM_BYTES) {
			kc_format_bytes(v, buf, sizeof(buf));
			printf("%-30s %s\n", stat_lines[i].label, buf);
		} else {
			printf("%-30s %" PRIu64 "\n", stat_lines[i].label, v);
		}
	}
	return 0;
}

int kc_stats(const struct kc_cmd *cmd)
{
	struct stats s = { 0 };
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, "stats");
	if (ret)
		return ret;
	ret = kc_out_begin(&s.out, cmd, false, NULL, 0);
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
