/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* Values as text, shared by the human and JSON output (no netlink here). */
#ifndef KAVCTL_FORMAT_H
#define KAVCTL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/kav.h>

/* "sockaddr", "sockaddr_in", "sockaddr_in6", "str"; NULL if unknown. */
const char *kc_addr_format_name(uint32_t format);
/* "uid", "gid", "cgroup", "netns"; NULL if unknown. */
const char *kc_selector_name(uint32_t type);

/*
 * An AV entry's address as text, by the AV's enum kav_addr_format
 * (0 when unknown: then guessed from the bytes):
 *   AF_INET   a.b.c.d:port
 *   AF_INET6  [addr]:port, or [addr%scope]:port with a scope id
 *   STR       the string, up to its NUL; bytes that are not printable
 *             ASCII as \xNN
 *   otherwise 0x and the bytes in hex
 * Always NUL-terminates @buf (truncating if it must).
 */
void kc_format_addr(uint32_t format, const void *addr, size_t len,
		    char *buf, size_t buflen);

/* Bytes that kc_format_name() needs for any name, with the NUL. */
#define KC_NAME_TEXT_MAX	(4 * KAV_NAME_MAX + 1)

/*
 * A named AV's name (any bytes but NUL; MPI's end in a newline) as one
 * word: printable ASCII as is, except space and backslash; \\, \n, \t,
 * \r in C style; every other byte as \xNN. Never cuts an escape in half;
 * always NUL-terminates @buf (truncating if it must).
 */
void kc_format_name(const void *name, size_t len, char *buf, size_t buflen);

/* 512 B, 4.0 KiB, 1.5 MiB, ... */
void kc_format_bytes(uint64_t bytes, char *buf, size_t buflen);

/* Names of a uid or gid from NSS; false if there is none. */
bool kc_user_name(uint32_t uid, char *buf, size_t buflen);
bool kc_group_name(uint32_t gid, char *buf, size_t buflen);

/* A grant selector as the kernel reports it, for kc_format_selector(). */
struct kc_sel_view {
	uint32_t type;			/* enum kav_grant_selector, 0: none */
	bool has_id;
	uint32_t id;			/* uid or gid */
	const char *cgroup_path;	/* NULL if absent */
	bool has_cgroup_id;
	uint64_t cgroup_id;
	bool has_cookie;
	uint64_t netns_cookie;
	char path_buf[4096];		/* storage for a resolved cgroup_path */
};

/*
 * "uid 1000 (alice)", "gid 100 (users)", "cgroup /jobs/42 (id 1234)",
 * "cgroup-id 1234", "netns cookie 4097", "selector 9" (unknown type).
 */
void kc_format_selector(const struct kc_sel_view *v, char *buf,
			size_t buflen);

/* kavctl wire's values as text. */

/*
 * Text of a prefix with its length ("fd00:1::/64"), of an exemption
 * ("fd00:1::/64 port 65535 proto udp"), and of a net.
 */
#define KC_WIRE_NET_TEXT	80

/* "off", "flowlabel", "esp"; NULL if unknown. */
const char *kc_wire_mode_name(uint32_t mode);
/*
 * A drop reason (enum kav_wire_drop): "sender-no-key", "receiver-no-key",
 * "mismatch", "no-carrier", "netns", "fragment", "conflict"; with @json
 * the same with '_' for '-' ("sender_no_key"). NULL if unknown.
 */
const char *kc_wire_drop_name(uint32_t reason, bool json);
/*
 * An exemption's protocol (struct kav_wire_net.protocol): "tcp", "udp",
 * "any" (0: both); NULL if unknown.
 */
const char *kc_wire_proto_name(uint8_t proto);
/* "10.0.0.0/8", "fd00::/8": a net's prefix. */
void kc_wire_format_prefix(const struct kav_wire_net *n, char *buf,
			   size_t len);
/*
 * An exemption as wire show prints it: "10.0.0.5/32 port 6818 proto tcp",
 * "10.1.0.0/16" (every port, both protocols), "10.0.0.2/32 proto 47" (a
 * protocol kavctl does not know).
 */
void kc_wire_format_exempt(const struct kav_wire_net *n, char *buf,
			   size_t len);
/*
 * A net as a line of wire apply's file says it: "scope 10.0.0.0/8",
 * "exempt 10.0.0.5/32 port 6818", "exempt 10.0.0.2/32 port 2049 proto
 * tcp", "exempt 10.1.0.0/16".
 */
void kc_wire_describe_net(const struct kav_wire_net *n, char *buf,
			  size_t len);
/* "5000-5999", "7" (7-7), or "none" for 0, 0. */
void kc_wire_format_ports(uint32_t min, uint32_t max, char *buf, size_t len);

#endif /* KAVCTL_FORMAT_H */
