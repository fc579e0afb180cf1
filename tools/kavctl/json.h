/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A small streaming JSON writer of objects and arrays, for kavctl
 * monitor's events and wire show's document (listings are libsmartcols'
 * JSON): compact (one object per line, no
 * spaces, as "ip -j monitor") or pretty (two-space indent). Strings are
 * escaped and always valid UTF-8: bytes that are not part of a valid
 * UTF-8 sequence are written as U+FFFD.
 */
#ifndef KAVCTL_JSON_H
#define KAVCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KC_JSON_MAX_DEPTH	16

struct kc_json {
	FILE *f;
	bool pretty;
	int depth;
	bool after_key;
	bool first[KC_JSON_MAX_DEPTH];
};

void kc_json_init(struct kc_json *j, FILE *f, bool pretty);

void kc_json_open_object(struct kc_json *j);
void kc_json_close_object(struct kc_json *j);
void kc_json_open_array(struct kc_json *j);
void kc_json_close_array(struct kc_json *j);
/* Ends a top-level value with a newline (one document per line). */
void kc_json_end(struct kc_json *j);

void kc_json_key(struct kc_json *j, const char *key);
void kc_json_string(struct kc_json *j, const char *s);
void kc_json_string_len(struct kc_json *j, const char *s, size_t len);
void kc_json_u64(struct kc_json *j, uint64_t v);
void kc_json_i64(struct kc_json *j, int64_t v);
void kc_json_bool(struct kc_json *j, bool v);
void kc_json_null(struct kc_json *j);

/* "key": value members of the current object. */
void kc_json_kv_string(struct kc_json *j, const char *key, const char *s);
void kc_json_kv_u64(struct kc_json *j, const char *key, uint64_t v);
void kc_json_kv_bool(struct kc_json *j, const char *key, bool v);
void kc_json_kv_null(struct kc_json *j, const char *key);

/* Writes @len bytes of @s as a quoted, escaped JSON string. */
void kc_json_escape(FILE *f, const char *s, size_t len);

#endif /* KAVCTL_JSON_H */
