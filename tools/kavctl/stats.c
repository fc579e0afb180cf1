// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl stats: the module's counters. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "nl.h"
#include "output.h"

struct stats {
	struct kc_out out;
	bool seen;
};

static int on_stats(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct stats *s = arg;

	(void)cmd;
	if (s->seen)	/* one message is expected; show the first */
		return 0;
	s->seen = true;
	if (s->out.json)
		kc_json_attrs(&s->out.j, tb, 0, 0);
	else
		kc_human_stats(stdout, tb);
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
