// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Human-readable tables: see table.h. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

void kc_table_init(struct kc_table *t, const struct kc_column *cols,
		   size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->ncols = ncols;
}

int kc_table_add_row(struct kc_table *t)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		char **cells = realloc(t->cells,
				       cap * t->ncols * sizeof(*cells));

		if (!cells) {
			t->oom = true;
			return -1;
		}
		t->cells = cells;
		t->cap = cap;
	}
	memset(&t->cells[t->nrows * t->ncols], 0,
	       t->ncols * sizeof(*t->cells));
	t->nrows++;
	return 0;
}

void kc_table_set(struct kc_table *t, size_t col, const char *fmt, ...)
{
	char **cell;
	va_list ap;
	int n;

	if (!t->nrows || col >= t->ncols)
		return;
	cell = &t->cells[(t->nrows - 1) * t->ncols + col];
	free(*cell);
	*cell = NULL;
	va_start(ap, fmt);
	n = vasprintf(cell, fmt, ap);
	va_end(ap);
	if (n < 0) {
		*cell = NULL;
		t->oom = true;
	}
}

int kc_table_print(const struct kc_table *t, FILE *f)
{
	size_t *width, r, c, last = 0;
	bool *show;

	if (t->oom)
		return -1;
	if (!t->nrows)
		return 0;
	width = calloc(t->ncols, sizeof(*width));
	show = calloc(t->ncols, sizeof(*show));
	if (!width || !show) {
		free(width);
		free(show);
		return -1;
	}
	for (c = 0; c < t->ncols; c++) {
		show[c] = t->cols[c].flags & KC_COL_ALWAYS;
		width[c] = strlen(t->cols[c].title);
		for (r = 0; r < t->nrows; r++) {
			const char *s = t->cells[r * t->ncols + c];

			if (!s)
				continue;
			show[c] = true;
			if (strlen(s) > width[c])
				width[c] = strlen(s);
		}
		if (show[c])
			last = c;
	}
	for (r = 0; r <= t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *s;

			if (!show[c])
				continue;
			s = r == 0 ? t->cols[c].title :
			    t->cells[(r - 1) * t->ncols + c];
			if (!s)
				s = "-";
			if (c == last)
				fprintf(f, "%s\n", s);
			else
				fprintf(f, "%-*s  ", (int)width[c], s);
		}
	}
	free(width);
	free(show);
	return 0;
}

void kc_table_free(struct kc_table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}
