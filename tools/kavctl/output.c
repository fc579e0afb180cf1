// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Diagnostics and listing output: see kavctl.h and output.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

int kc_flush_output(const char *buf, size_t len)
{
	if (len && fwrite(buf, 1, len, stdout) != len) {
		kc_err("cannot write output: %s", strerror(errno));
		return KC_EXIT_FAIL;
	}
	return KC_EXIT_OK;
}

int kc_out_begin(struct kc_out *o, const struct kc_cmd *cmd, bool array,
		 const struct kc_column *cols, size_t ncols)
{
	memset(o, 0, sizeof(*o));
	o->json = cmd->json;
	o->array = array;
	kc_table_init(&o->t, cols, ncols);
	if (!o->json)
		return 0;
	o->mem = open_memstream(&o->buf, &o->len);
	if (!o->mem) {
		kc_err("out of memory");
		return KC_EXIT_FAIL;
	}
	kc_json_init(&o->j, o->mem, cmd->pretty);
	if (array)
		kc_json_open_array(&o->j);
	else
		kc_json_open_object(&o->j);
	return 0;
}

int kc_out_end(struct kc_out *o, bool ok)
{
	int ret = KC_EXIT_OK;

	if (o->json) {
		if (o->array)
			kc_json_close_array(&o->j);
		else
			kc_json_close_object(&o->j);
		kc_json_end(&o->j);
		if (fclose(o->mem) != 0) {
			kc_err("out of memory");
			ret = KC_EXIT_FAIL;
		} else if (ok) {
			ret = kc_flush_output(o->buf, o->len);
		}
		free(o->buf);
	} else {
		if (ok && kc_table_print(&o->t, stdout)) {
			kc_err("out of memory");
			ret = KC_EXIT_FAIL;
		}
		kc_table_free(&o->t);
	}
	memset(o, 0, sizeof(*o));
	return ret;
}
