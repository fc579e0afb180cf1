/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The kavctl command-line grammar. Nothing here talks to the kernel, so
 * all of it is unit tested (tests/unit/test_kavctl_args.c).
 */
#ifndef KAVCTL_ARGS_H
#define KAVCTL_ARGS_H

#include "kavctl.h"

/* Where cgroup v2 is usually mounted; its prefix is stripped from paths. */
#define KC_CGROUP2_MOUNT	"/sys/fs/cgroup"

/*
 * Writes a reason to @err (when it is not NULL) and returns -1, for the
 * parsers here and conf.c's.
 */
int kc_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Parses a whole command line (argv[0] is the program name). Returns 0
 * and fills @cmd, or -1 with a one-line reason in @err; @cmd->topic then
 * says which usage text applies. A request for help is not an error:
 * @cmd->op is KC_OP_HELP.
 */
int kc_parse_argv(int argc, char **argv, struct kc_cmd *cmd,
		  char *err, size_t errlen);

/*
 * Parses the arguments of "grant add" (after "add"). Returns 0 or -1 with
 * @err set. User and group names are resolved here (NSS).
 */
int kc_parse_grant_spec(int argc, char **argv, struct kc_grant_spec *spec,
			char *err, size_t errlen);

/*
 * A grant's or pin's tag, by the kernel's rule (kav_parse_tag()): at most
 * KAV_TAG_MAX bytes, each printable ASCII (0x20..0x7e); "" is no tag.
 * Every tag kavctl sends goes through here: grant add/set/list, av pin,
 * and each line of apply's files (conf.c), so that what --dry-run passes
 * the kernel takes. Copies it to @tag (KAV_TAG_MAX + 1 bytes). 0 or -1.
 */
int kc_parse_tag(const char *val, char *tag, char *err, size_t errlen);

/* Longest name of a network namespace in /run/netns (NAME_MAX). */
#define KC_NETNS_NAME_MAX	255

/*
 * Is @name a name "netns NAME" may take: one path component of
 * /run/netns, 1 to KC_NETNS_NAME_MAX bytes of printable ASCII other than
 * space and '/', not "." or ".."? 0 or -1.
 */
int kc_netns_name_ok(const char *name);

/*
 * Unsigned numbers: decimal, or hexadecimal with a 0x prefix. No sign,
 * no spaces, no trailing characters. Return 0, or -1 (errno EINVAL or
 * ERANGE).
 */
int kc_parse_u32(const char *s, uint32_t *v);
int kc_parse_u64(const char *s, uint64_t *v);

/*
 * Turns a cgroup given on the command line into the path below the
 * cgroup2 root that the kernel expects: strips a leading @mount (when it
 * is given and matches at a component boundary), and otherwise a leading
 * /sys/fs/cgroup; collapses repeated slashes, drops "." components and
 * trailing slashes; always starts with '/'. ".." is refused. Returns 0 or
 * -1 (errno EINVAL, or ENAMETOOLONG if @out is too small).
 */
int kc_cgroup_relpath(const char *path, const char *mount, char *out,
		      size_t outlen);

/*
 * The cgroup2 mount point used by kc_cgroup_relpath() while parsing; NULL
 * (the default) means only /sys/fs/cgroup. main() sets it from
 * /proc/self/mounts.
 */
void kc_set_cgroup2_mount(const char *mount);
/*
 * The path below the cgroup2 root of the cgroup whose id is @id (in
 * cgroup2 the id is the directory's inode number), found by walking the
 * mount set with kc_set_cgroup2_mount(). For display only: the id is what
 * the kernel holds. Returns 0, or -1 if there is no such directory or no
 * cgroup2 mount was set.
 */
int kc_cgroup_path_by_id(uint64_t id, char *buf, size_t len);
/* Finds the first cgroup2 mount in @mounts_file into @buf; 0 or -1. */
int kc_find_cgroup2_mount(const char *mounts_file, char *buf, size_t len);

/*
 * kavctl wire's values, for the command line and wire apply's file
 * (wire_conf.c). Each returns 0, or -1 with a reason in @err.
 *   mode:   off, flowlabel, esp (exactly)
 *   ports:  MIN-MAX or N (N-N), each 1..65535, MIN <= MAX; "none": 0, 0
 *   port:   1..65535
 *   proto:  an exemption's protocol: tcp (IPPROTO_TCP), udp (IPPROTO_UDP),
 *           any (0: both)
 *   mark:   a number (0x...) whose low 20 bits are 0
 *           (KC_WIRE_MARK_KEY_MASK: they carry the key)
 *   prefix: ADDR[/LEN], IPv4 or IPv6, into @n (family, prefix_len, addr;
 *           flags, port, protocol and the rest 0); LEN is decimal and
 *           defaults to the whole address; host bits set after LEN are
 *           refused, naming the prefix that was probably meant
 */
#define KC_WIRE_MARK_KEY_MASK	(KAV_WIRE_KEY_LIMIT - 1)

int kc_wire_parse_mode(const char *s, uint32_t *mode, char *err,
		       size_t errlen);
int kc_wire_parse_ports(const char *s, uint32_t *min, uint32_t *max,
			char *err, size_t errlen);
int kc_wire_parse_port(const char *s, uint16_t *port, char *err,
		       size_t errlen);
int kc_wire_parse_proto(const char *s, uint8_t *proto, char *err,
			size_t errlen);
int kc_wire_parse_mark(const char *s, uint32_t *mark, char *err,
		       size_t errlen);
int kc_wire_parse_prefix(const char *s, struct kav_wire_net *n, char *err,
			 size_t errlen);

/*
 * The same net: family, prefix, flags, port and protocol (what NET_DEL
 * matches: the whole struct).
 */
bool kc_wire_net_eq(const struct kav_wire_net *a,
		    const struct kav_wire_net *b);

#endif /* KAVCTL_ARGS_H */
