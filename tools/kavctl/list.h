/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What the listing commands (grant / domain / av list, av show) share:
 * the dump itself, the start of each reply's row, and the owner columns.
 */
#ifndef KAVCTL_LIST_H
#define KAVCTL_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "nl.h"
#include "output.h"

/*
 * `kavctl WHAT list`: dumps @genl_cmd, each reply through @fn with the
 * output as its argument, into a JSON array or a table with @cols.
 * Returns 0 or an exit code.
 */
int kc_list_dump(const struct kc_cmd *cmd, const char *what,
		 uint8_t genl_cmd, kc_msg_fn fn, const struct kc_column *cols,
		 size_t ncols);

/*
 * The start of a reply in a listing: in JSON the whole message as one
 * object (kc_json_attrs() with @format and @flags), and 0 (done); else a
 * new table row, and 1 (fill it); -1 (said) when out of memory.
 */
int kc_list_row(struct kc_out *o, struct nlattr **tb, uint32_t format,
		unsigned int flags);

/*
 * Column @col of the current row: the user (KAV_A_UID) or group
 * (KAV_A_GID) @attr of the message, by name or else by number; left
 * empty when the message does not carry it.
 */
void kc_list_set_owner(struct kc_table *t, size_t col, struct nlattr **tb,
		       int attr);

#endif /* KAVCTL_LIST_H */
