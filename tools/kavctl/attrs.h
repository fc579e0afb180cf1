/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The kav family's attributes (uapi/linux/kav.h, KAV_A_*): their types,
 * their names in human and JSON output, and printers that show every
 * attribute a message carries.
 */
#ifndef KAVCTL_ATTRS_H
#define KAVCTL_ATTRS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <netlink/attr.h>

#include <linux/kav.h>

#include "format.h"
#include "json.h"

enum kc_attr_kind {
	KC_ANY,		/* not checked (KAV_A_PAD) */
	KC_U32,
	KC_U64,
	KC_STR,		/* NUL-terminated */
	KC_BIN,
	KC_FLAG,
	KC_NAME,	/* binary, 1..KAV_NAME_MAX bytes, no NUL */
	KC_WIRE_NET,	/* binary, a struct kav_wire_net (or a longer one) */
	KC_U64S,	/* binary, an array of u64 (1 or more) */
};

/* An attribute's uAPI name ("KAV_A_VNI"), or "attribute type N". */
const char *kc_attr_name(int attr, char *buf, size_t buflen);

/*
 * Checks every attribute in [@head, @head + @len) that kavctl knows
 * against its type. Returns 0, or -1 with the offending attribute's name
 * in @bad.
 */
int kc_attrs_validate(struct nlattr *head, int len, char *bad,
		      size_t badlen);

/* Getters: false if the attribute is absent. */
bool kc_get_u32(struct nlattr **tb, int attr, uint32_t *v);
bool kc_get_u64(struct nlattr **tb, int attr, uint64_t *v);
const char *kc_get_str(struct nlattr **tb, int attr);

/* The selector attributes of a message. */
void kc_sel_view(struct nlattr **tb, struct kc_sel_view *v);

/*
 * The entry address of a message as text; @format is the AV's address
 * format when the message itself carries no KAV_A_ADDR_FORMAT (0: guess).
 */
void kc_attr_addr(struct nlattr **tb, uint32_t format, char *buf,
		  size_t buflen);

/* Flags for the printers. */
#define KC_PRINT_ENTRY	0x1U	/* an AV entry: "revoked" is always shown */

/*
 * Every attribute of a message as members of the current JSON object:
 * numbers as numbers, enums as names, the selector as a nested object
 * {"type": "uid", "uid": 1000, "user": "alice"}, the address as text, an
 * AV's name as a JSON string and its mode as octal text ("0600"). A named
 * AV always has "pinned".
 */
void kc_json_attrs(struct kc_json *j, struct nlattr **tb, uint32_t format,
		   unsigned int flags);

/* Every attribute of a message as " name value" pairs on one line. */
void kc_human_attrs(FILE *f, struct nlattr **tb, uint32_t format);

#endif /* KAVCTL_ATTRS_H */
