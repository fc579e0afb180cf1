// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* JSON output: see json.h. */
#include <inttypes.h>
#include <string.h>

#include "json.h"

void kc_json_init(struct kc_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
	j->first[0] = true;
}

static void indent(struct kc_json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator and indentation before a value or a key. */
static void before_item(struct kc_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0)
		return;
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	indent(j);
}

static void open_container(struct kc_json *j, char c)
{
	before_item(j);
	fputc(c, j->f);
	if (j->depth < KC_JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_container(struct kc_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	fputc(c, j->f);
}

void kc_json_open_object(struct kc_json *j)
{
	open_container(j, '{');
}

void kc_json_close_object(struct kc_json *j)
{
	close_container(j, '}');
}

void kc_json_open_array(struct kc_json *j)
{
	open_container(j, '[');
}

void kc_json_close_array(struct kc_json *j)
{
	close_container(j, ']');
}

void kc_json_end(struct kc_json *j)
{
	fputc('\n', j->f);
}

/*
 * Length of the valid UTF-8 sequence at @s (at most @len bytes), or 0 if
 * the bytes there are not one (overlong forms, surrogates and code points
 * above U+10FFFF are invalid).
 */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

void kc_json_escape(FILE *f, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	fputc('"', f);
	while (i < len) {
		unsigned char c = s[i];

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "\\u%04x", c);
				break;
			}
			n = utf8_seq(s + i, len - i);
			if (!n) {
				fputs("\\ufffd", f);
				break;
			}
			fwrite(s + i, 1, n, f);
			i += n;
			continue;
		}
		i++;
	}
	fputc('"', f);
}

void kc_json_key(struct kc_json *j, const char *key)
{
	before_item(j);
	kc_json_escape(j->f, key, strlen(key));
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void kc_json_string_len(struct kc_json *j, const char *s, size_t len)
{
	before_item(j);
	kc_json_escape(j->f, s, len);
}

void kc_json_string(struct kc_json *j, const char *s)
{
	if (!s) {
		kc_json_null(j);
		return;
	}
	kc_json_string_len(j, s, strlen(s));
}

void kc_json_u64(struct kc_json *j, uint64_t v)
{
	before_item(j);
	fprintf(j->f, "%" PRIu64, v);
}

void kc_json_i64(struct kc_json *j, int64_t v)
{
	before_item(j);
	fprintf(j->f, "%" PRId64, v);
}

void kc_json_bool(struct kc_json *j, bool v)
{
	before_item(j);
	fputs(v ? "true" : "false", j->f);
}

void kc_json_null(struct kc_json *j)
{
	before_item(j);
	fputs("null", j->f);
}

void kc_json_kv_string(struct kc_json *j, const char *key, const char *s)
{
	kc_json_key(j, key);
	kc_json_string(j, s);
}

void kc_json_kv_u64(struct kc_json *j, const char *key, uint64_t v)
{
	kc_json_key(j, key);
	kc_json_u64(j, v);
}

void kc_json_kv_bool(struct kc_json *j, const char *key, bool v)
{
	kc_json_key(j, key);
	kc_json_bool(j, v);
}

void kc_json_kv_null(struct kc_json *j, const char *key)
{
	kc_json_key(j, key);
	kc_json_null(j);
}
