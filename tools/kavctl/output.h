/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The output of a listing command: a human table, or a JSON array kept in
 * memory and written only when the whole dump succeeded, so that stdout
 * never holds half a document.
 */
#ifndef KAVCTL_OUTPUT_H
#define KAVCTL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "json.h"
#include "kavctl.h"
#include "table.h"

struct kc_out {
	bool json;
	bool array;
	struct kc_json j;	/* json */
	FILE *mem;
	char *buf;
	size_t len;
	struct kc_table t;	/* human */
};

/*
 * Starts a listing: a JSON array (@array) or object, or a table with
 * @cols. Returns 0 or an exit code.
 */
int kc_out_begin(struct kc_out *o, const struct kc_cmd *cmd, bool array,
		 const struct kc_column *cols, size_t ncols);
/*
 * Ends it: prints everything if @ok (else nothing) and frees it. Returns 0,
 * or an exit code if the output could not be produced.
 */
int kc_out_end(struct kc_out *o, bool ok);

#endif /* KAVCTL_OUTPUT_H */
