/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* kavctl stats (stats.c): the command is kavctl.h's kc_stats(). */
#ifndef KAVCTL_STATS_H
#define KAVCTL_STATS_H

#include <netlink/msg.h>

#include "kavctl.h"

/*
 * Prints a STATS_GET reply @reply as kavctl stats does (@cmd: -j, -r,
 * -o). For tests (tests/unit/test_kavctl_wire.c: the wire's counters,
 * and a module without them). Returns an exit code.
 */
int kc_stats_show_reply(const struct kc_cmd *cmd, struct nl_msg *reply);

#endif /* KAVCTL_STATS_H */
