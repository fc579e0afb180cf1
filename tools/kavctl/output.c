// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Diagnostics and listing output (libsmartcols): see kavctl.h, output.h. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "output.h"

void kc_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("kavctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void kc_warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("kavctl: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Does @word name @c? Its name or JSON key, any case, '-' or '_'. */
static bool col_is(const struct kc_column *c, const char *word, size_t len)
{
	const char *names[] = { c->name, c->json };
	size_t k, i;

	for (k = 0; k < 2; k++) {
		if (strlen(names[k]) != len)
			continue;
		for (i = 0; i < len; i++) {
			int a = word[i] == '_' ? '-' :
				tolower((unsigned char)word[i]);
			int b = names[k][i] == '_' ? '-' :
				tolower((unsigned char)names[k][i]);

			if (a != b)
				break;
		}
		if (i == len)
			return true;
	}
	return false;
}

static int add_column(struct kc_out *o, size_t c)
{
	const struct kc_column *col = &o->cols[c];
	struct libscols_column *sc;
	int flags = col->flags & KC_COL_RIGHT ? SCOLS_FL_RIGHT : 0;

	sc = scols_table_new_column(o->tb, o->json ? col->json : col->name, 0,
				    flags);
	if (!sc)
		return -1;
	switch (col->kind) {
	case KC_COL_NUM:
		scols_column_set_json_type(sc, SCOLS_JSON_NUMBER);
		break;
	case KC_COL_BOOL:
		scols_column_set_json_type(sc, SCOLS_JSON_BOOLEAN);
		break;
	default:
		scols_column_set_json_type(sc, SCOLS_JSON_STRING);
	}
	o->map[c] = (int)scols_table_get_ncols(o->tb) - 1;
	return 0;
}

/* The columns of -o @list ("A,B", "+A,B": the defaults and A, B). */
static int pick_columns(struct kc_out *o, const char *list)
{
	bool plus = list && list[0] == '+';
	size_t c;

	if (!list || plus) {
		for (c = 0; c < o->ncols; c++)
			if ((o->json && !list) ||
			    (o->cols[c].flags & KC_COL_DEFAULT))
				if (add_column(o, c))
					return KC_EXIT_FAIL;
		if (!list)
			return 0;
		list++;
	}
	while (*list) {
		size_t len = strcspn(list, ",");

		for (c = 0; c < o->ncols; c++)
			if (col_is(&o->cols[c], list, len))
				break;
		if (c == o->ncols) {
			kc_err("unknown column '%.*s' (-o help lists them)",
			       (int)len, list);
			return KC_EXIT_USAGE;
		}
		if (o->map[c] < 0 && add_column(o, c))
			return KC_EXIT_FAIL;
		list += len;
		if (*list == ',')
			list++;
	}
	if (!scols_table_get_ncols(o->tb)) {
		kc_err("-o: no columns given");
		return KC_EXIT_USAGE;
	}
	return 0;
}

int kc_out_begin(struct kc_out *o, const struct kc_cmd *cmd, const char *name,
		 const struct kc_column *cols, size_t ncols)
{
	size_t c;
	int ret;

	memset(o, 0, sizeof(*o));
	o->cols = cols;
	o->ncols = ncols;
	o->json = cmd->json;
	o->map = malloc(ncols * sizeof(*o->map));
	o->tb = scols_new_table();
	if (!o->map || !o->tb) {
		kc_err("out of memory");
		kc_out_end(o, false);
		return KC_EXIT_FAIL;
	}
	for (c = 0; c < ncols; c++)
		o->map[c] = -1;
	scols_table_set_name(o->tb, name);
	if (cmd->json)
		scols_table_enable_json(o->tb, 1);
	else if (cmd->raw)
		scols_table_enable_raw(o->tb, 1);
	if (cmd->noheadings)
		scols_table_enable_noheadings(o->tb, 1);
	ret = pick_columns(o, cmd->columns);
	if (ret) {
		if (ret == KC_EXIT_FAIL)
			kc_err("out of memory");
		kc_out_end(o, false);
	}
	return ret;
}

int kc_out_row(struct kc_out *o)
{
	size_t c, n = scols_table_get_ncols(o->tb);

	o->ln = scols_table_new_line(o->tb, NULL);
	if (!o->ln) {
		o->oom = true;
		kc_err("out of memory");
		return -1;
	}
	/* A value the reply lacks: "-" in a table, null in JSON. */
	if (!o->json)
		for (c = 0; c < n; c++)
			if (scols_line_set_data(o->ln, c, "-"))
				o->oom = true;
	return 0;
}

bool kc_out_shown(const struct kc_out *o, size_t col)
{
	return col < o->ncols && o->map[col] >= 0;
}

void kc_out_set(struct kc_out *o, size_t col, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (!o->ln || !kc_out_shown(o, col))
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0 || scols_line_refer_data(o->ln, (size_t)o->map[col], s)) {
		if (n >= 0)
			free(s);
		o->oom = true;
	}
}

void kc_out_u64(struct kc_out *o, size_t col, uint64_t v)
{
	kc_out_set(o, col, "%llu", (unsigned long long)v);
}

void kc_out_bool(struct kc_out *o, size_t col, bool v)
{
	kc_out_set(o, col, "%s", v ? "yes" : "no");
}

void kc_out_bytes(struct kc_out *o, size_t col, uint64_t v)
{
	char buf[64];

	if (o->json) {
		kc_out_u64(o, col, v);
		return;
	}
	kc_format_bytes(v, buf, sizeof(buf));
	kc_out_set(o, col, "%s", buf);
}

void kc_out_limit(struct kc_out *o, size_t col, uint64_t v)
{
	if (v || o->json)
		kc_out_u64(o, col, v);
	else
		kc_out_set(o, col, "unlimited");
}

void kc_out_clear(struct kc_out *o)
{
	scols_table_remove_lines(o->tb);
	o->ln = NULL;
}

int kc_out_end(struct kc_out *o, bool ok)
{
	int ret = KC_EXIT_OK;

	if (o->tb) {
		if (o->oom) {
			kc_err("out of memory");
			ret = KC_EXIT_FAIL;
		} else if (ok) {
			fflush(stdout);
			if (scols_print_table(o->tb)) {
				kc_err("cannot write output");
				ret = KC_EXIT_FAIL;
			}
		}
		scols_unref_table(o->tb);
	}
	free(o->map);
	memset(o, 0, sizeof(*o));
	return ret;
}

int kc_out_print_to(struct kc_out *o, FILE *f)
{
	int ret;

	if (o->oom)
		return -1;
	scols_table_set_stream(o->tb, f);
	ret = scols_print_table(o->tb);
	scols_table_set_stream(o->tb, stdout);
	return ret ? -1 : 0;
}

void kc_out_columns_help(FILE *f, const struct kc_column *cols, size_t ncols)
{
	size_t c, w = 14;

	/* The names in one column, however long (stats' wire counters). */
	for (c = 0; c < ncols; c++)
		if (strlen(cols[c].name) > w)
			w = strlen(cols[c].name);
	for (c = 0; c < ncols; c++)
		fprintf(f, "%-*s %s%s\n", (int)w, cols[c].name, cols[c].help,
			cols[c].flags & KC_COL_DEFAULT ? " (default)" : "");
}
