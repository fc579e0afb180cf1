/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The output of a listing command, through libsmartcols: a table, a raw
 * table (-r) or a JSON document (-j), with the columns -o chose. The
 * table is kept in memory and printed only when the whole dump
 * succeeded, so that stdout never holds half a listing.
 *
 * A value a reply does not carry prints as "-" in a table and as null in
 * JSON. JSON numbers and booleans are typed; without -o, JSON has every
 * column, a table the default ones.
 */
#ifndef KAVCTL_OUTPUT_H
#define KAVCTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <libsmartcols.h>

#include "kavctl.h"

#define KC_COL_DEFAULT	0x1U	/* shown in a table without -o */
#define KC_COL_RIGHT	0x2U	/* right-aligned (numbers) */

enum kc_col_kind {
	KC_COL_STR,
	KC_COL_NUM,	/* a JSON number */
	KC_COL_BOOL,	/* "yes"/"no" in tables, true/false in JSON */
};

struct kc_column {
	const char *name;	/* header and -o name: "MAX-ENTRIES" */
	const char *json;	/* JSON key: "max_entries" */
	enum kc_col_kind kind;
	unsigned int flags;
	const char *help;	/* -o help */
};

struct kc_out {
	struct libscols_table *tb;
	const struct kc_column *cols;
	size_t ncols;
	int *map;		/* column -> libsmartcols column, -1: hidden */
	struct libscols_line *ln;
	bool json;
	bool oom;
};

/*
 * Starts a listing named @name (the JSON document's one member) with the
 * columns @cmd->columns picks from @cols. Returns 0 or an exit code
 * (KC_EXIT_USAGE, said, for an unknown column).
 */
int kc_out_begin(struct kc_out *o, const struct kc_cmd *cmd, const char *name,
		 const struct kc_column *cols, size_t ncols);
/* Starts a new row. 0, or -1 (said) when out of memory. */
int kc_out_row(struct kc_out *o);
/* Sets column @col of the current row; ignored if it is not shown. */
void kc_out_set(struct kc_out *o, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kc_out_u64(struct kc_out *o, size_t col, uint64_t v);
void kc_out_bool(struct kc_out *o, size_t col, bool v);
/* A size: bytes in JSON, "1.5 MiB" in tables. */
void kc_out_bytes(struct kc_out *o, size_t col, uint64_t v);
/* A limit: 0 is "unlimited" in tables, 0 in JSON. */
void kc_out_limit(struct kc_out *o, size_t col, uint64_t v);
/* Is column @col shown? (To skip work for hidden ones.) */
bool kc_out_shown(const struct kc_out *o, size_t col);
/* Drops every row (a dump that is started again). */
void kc_out_clear(struct kc_out *o);
/*
 * Ends it: prints everything if @ok (else nothing) and frees it. Returns 0,
 * or an exit code if the output could not be produced.
 */
int kc_out_end(struct kc_out *o, bool ok);
/*
 * Prints the listing to @f (a JSON document, a table) and keeps it; 0 or
 * -1. kc_out_end(o, false) frees it afterwards.
 */
int kc_out_print_to(struct kc_out *o, FILE *f);

/* "-o help": the columns of @cols, one per line, defaults marked. */
void kc_out_columns_help(FILE *f, const struct kc_column *cols, size_t ncols);

/* The columns of each listing (-o help, the bash completion). */
extern const struct kc_column kc_grant_cols[], kc_domain_cols[],
	kc_av_cols[], kc_entry_cols[], kc_stats_cols[];
extern const size_t kc_grant_ncols, kc_domain_ncols, kc_av_ncols,
	kc_entry_ncols, kc_stats_ncols;
/* whoami's grants: the first columns of kc_grant_cols, not the wire's. */
extern const size_t kc_whoami_grant_ncols;

#endif /* KAVCTL_OUTPUT_H */
