/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * kavctl wire over netlink (wire.c): the commands are kavctl.h's
 * kc_wire_*(); this is what the unit tests see of it.
 */
#ifndef KAVCTL_WIRE_H
#define KAVCTL_WIRE_H

#include <netlink/msg.h>

#include "kavctl.h"

/*
 * Prints a WIRE_GET reply @reply as kavctl wire show does (@cmd: -j,
 * -r). For tests (tests/unit/test_kavctl_wire.c): the messages a kernel
 * would send, built with libnl. Returns an exit code.
 */
int kc_wire_show_reply(const struct kc_cmd *cmd, struct nl_msg *reply);

#endif /* KAVCTL_WIRE_H */
