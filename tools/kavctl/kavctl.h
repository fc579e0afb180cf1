/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * kavctl: administration of the kav kernel module over generic netlink.
 *
 * Layout of the sources:
 *   main.c      entry point, usage text, dispatch of a parsed command
 *   args.c      the command-line grammar (pure: no netlink, unit tested)
 *   nl.c        the netlink session: family lookup, requests, dumps,
 *               kernel errors and their extack messages
 *   attrs.c     the family's attributes: policy, names, generic printers
 *   grant.c     grant add / set / del / show / list, and the grant
 *               helpers of grant.h (also used by kavctl apply)
 *   domain.c    domain list
 *   av.c        av list / show (an AV's entries) / pin / unpin
 *   list.c      what the listings share: the dump, rows, owner columns
 *   stats.c     stats
 *   whoami.c    whoami (KAV_IOC_DOMAIN_WHOAMI on /dev/kav, no netlink)
 *   monitor.c   monitor (the "admin" multicast group)
 *   wire.c      wire show / set / scope / exempt / apply (kav_wire, the
 *               enforcement of wire keys on TCP and UDP) over netlink
 *   wire_conf.c the file of wire apply (/etc/kav/wire.conf) and the plan
 *               that makes the kernel's state the file's (pure: unit
 *               tested); the wire's values are parsed in args.c and
 *               named in format.c
 *   output.c    diagnostics; listings through libsmartcols (table, raw,
 *               JSON, -o columns)
 *   json.c      one-line JSON objects, for monitor's event stream only
 *               (libsmartcols writes whole documents, not a stream)
 *   format.c    values as text: addresses, selectors, sizes, names
 */
#ifndef KAVCTL_H
#define KAVCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/kav.h>

/* The release: mk/tools.mk passes VERSION (the top of the tree). */
#ifndef KAVCTL_VERSION
#define KAVCTL_VERSION		"unreleased"
#endif

/* Exit codes (documented in kavctl(8)). */
enum kc_exit {
	KC_EXIT_OK	= 0,
	KC_EXIT_USAGE	= 1,	/* bad arguments */
	KC_EXIT_NOMOD	= 2,	/* the kav family is not registered (whoami:
				 * no /dev/kav) */
	KC_EXIT_FAIL	= 3,	/* the kernel refused, or netlink failed */
	KC_EXIT_PERM	= 4,	/* no CAP_NET_ADMIN in the initial userns,
				 * or (whoami) /dev/kav not openable */
};

/* What a command line asks for. */
enum kc_op {
	KC_OP_NONE,
	KC_OP_HELP,
	KC_OP_VERSION,
	KC_OP_GRANT_ADD,
	KC_OP_GRANT_DEL,
	KC_OP_GRANT_LIST,
	KC_OP_GRANT_SHOW,
	KC_OP_GRANT_SET,
	KC_OP_DOMAIN_LIST,
	KC_OP_AV_LIST,
	KC_OP_AV_SHOW,
	KC_OP_AV_PIN,
	KC_OP_AV_UNPIN,
	KC_OP_STATS,
	KC_OP_MONITOR,
	KC_OP_WHOAMI,
	KC_OP_APPLY,		/* kavctl apply: @argc/@argv hold its words */
	KC_OP_WIRE_SHOW,
	KC_OP_WIRE_SET,
	KC_OP_WIRE_NET_ADD,	/* wire scope add, wire exempt add */
	KC_OP_WIRE_NET_DEL,	/* wire scope del, wire exempt del */
	KC_OP_WIRE_APPLY,
};

/* Help topics: which part of the usage text applies. */
enum kc_topic {
	KC_TOPIC_ALL,
	KC_TOPIC_GRANT,
	KC_TOPIC_DOMAIN,
	KC_TOPIC_AV,
	KC_TOPIC_STATS,
	KC_TOPIC_MONITOR,
	KC_TOPIC_WHOAMI,
	KC_TOPIC_APPLY,
	KC_TOPIC_WIRE,
};

#define KC_PATH_MAX		4096
#define KC_NAME_MAX		256

/*
 * A grant selector as given on the command line. @type is an enum
 * kav_grant_selector. Exactly one way of naming the identity is set:
 * @id (uid/gid), @cgroup_path or @cgroup_id (cgroup), @netns_path (netns).
 * How a netns was named (@netns_by_name, @netns_pid) is kept so that
 * apply's files can refuse what does not survive a reboot, or is a path.
 */
struct kc_selector {
	uint32_t type;
	uint32_t id;
	char name[KC_NAME_MAX];		/* user or group name, if given */
	bool cgroup_by_id;
	uint64_t cgroup_id;
	char cgroup_path[KC_PATH_MAX];	/* below the cgroup2 root, "/..." */
	bool netns_by_name;		/* "netns NAME": /run/netns/NAME */
	uint32_t netns_pid;		/* "netns-pid PID", 0 otherwise */
	char netns_path[KC_PATH_MAX];	/* opened at run time */
};

struct kc_grant_spec {
	uint32_t vni;
	struct kc_selector sel;
	bool has_max_entries;
	uint64_t max_entries;
	bool has_max_avs;
	uint32_t max_avs;
	bool has_tag;			/* grant add/set, list filter */
	char tag[KAV_TAG_MAX + 1];
	bool has_vni;			/* grant list filter */
	bool wire;			/* grant add: KAV_A_GRANT_WIRE */
};

/* What a WIRE_SET changes: each value only with its has_ flag. */
struct kc_wire_set {
	bool has_mode;
	uint32_t mode;			/* enum kav_wire_mode */
	bool has_ports;
	uint32_t port_min, port_max;	/* 0, 0: no range (every port) */
	bool has_mark;
	uint32_t mark;			/* low 20 bits 0 */
};

/* The file of kavctl wire apply on a node, when none is given. */
#define KC_WIRE_CONF		"/etc/kav/wire.conf"

/* The words of kavctl wire. */
struct kc_wire_cmd {
	struct kc_wire_set set;		/* wire set */
	size_t nr_nets;			/* wire scope / exempt add / del */
	struct kav_wire_net nets[KAV_WIRE_NETS_MAX];
	bool dry_run;			/* wire apply -n */
	bool has_file;
	char file[KC_PATH_MAX];		/* wire apply FILE */
};

struct kc_cmd {
	bool json;
	bool pretty;			/* accepted; JSON is always indented */
	bool noheadings;		/* -n */
	bool raw;			/* -r */
	const char *columns;		/* -o LIST (in @columns_buf), NULL: the
					 * default */
	char columns_buf[1024];
	enum kc_op op;
	enum kc_topic topic;
	uint32_t id;			/* grant del/show/set, av show/pin/unpin */
	struct kc_grant_spec grant;	/* grant add/set (limits, tag), grant
					 * list filters (vni, tag), av pin tag */
	int argc;			/* apply: the words after "apply" */
	char **argv;
	struct kc_wire_cmd wire;	/* kavctl wire */
};

/* Diagnostics on stderr, prefixed with "kavctl: ". */
void kc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void kc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Command implementations: each returns an enum kc_exit. */
int kc_grant_add(const struct kc_cmd *cmd);
int kc_grant_del(const struct kc_cmd *cmd);
int kc_grant_list(const struct kc_cmd *cmd);	/* and show */
int kc_grant_set(const struct kc_cmd *cmd);
int kc_domain_list(const struct kc_cmd *cmd);
int kc_av_list(const struct kc_cmd *cmd);
int kc_av_show(const struct kc_cmd *cmd);
int kc_av_pin(const struct kc_cmd *cmd);	/* and unpin */
int kc_stats(const struct kc_cmd *cmd);
int kc_monitor(const struct kc_cmd *cmd);
int kc_whoami(const struct kc_cmd *cmd);
int kc_wire_show(const struct kc_cmd *cmd);
int kc_wire_set(const struct kc_cmd *cmd);
int kc_wire_net(const struct kc_cmd *cmd);	/* add and del */
int kc_wire_apply(const struct kc_cmd *cmd);

#endif /* KAVCTL_H */
