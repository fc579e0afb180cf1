/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Human-readable tables: a header line and left-aligned columns separated
 * by two spaces. A column no row has a value for is left out, unless it is
 * marked KC_COL_ALWAYS; a missing value prints as "-".
 */
#ifndef KAVCTL_TABLE_H
#define KAVCTL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KC_COL_ALWAYS	0x1U

struct kc_column {
	const char *title;
	unsigned int flags;
};

struct kc_table {
	const struct kc_column *cols;
	size_t ncols;
	size_t nrows;
	size_t cap;
	char **cells;		/* nrows * ncols, NULL when absent */
	bool oom;
};

void kc_table_init(struct kc_table *t, const struct kc_column *cols,
		   size_t ncols);
/* Starts a new row; its cells are set with kc_table_set(). 0 or -1. */
int kc_table_add_row(struct kc_table *t);
/* Sets a cell of the last row (printf format). */
void kc_table_set(struct kc_table *t, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prints the table (nothing if it has no rows); 0, or -1 if out of memory. */
int kc_table_print(const struct kc_table *t, FILE *f);
void kc_table_free(struct kc_table *t);

#endif /* KAVCTL_TABLE_H */
