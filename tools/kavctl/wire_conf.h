/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The wire (kav_wire, uapi/linux/kav.h "Wire enforcement") as kavctl
 * reads and writes it, without netlink (unit tested:
 * tests/unit/test_kavctl_wire.c). Its values are parsed by args.c
 * (kc_wire_parse_*(), the command line's and the file's) and named by
 * format.c (kc_wire_*_name(), kc_wire_format_*()); here:
 *
 *   - the file of kavctl wire apply, /etc/kav/wire.conf:
 *
 *       mode MODE                 off (also when absent), flowlabel, esp
 *       ports MIN-MAX | none      the fabric's ports (absent: none)
 *       mark VALUE                esp's mark base (absent: 0x4b000000)
 *       scope PREFIX...           scope prefixes
 *       exempt PREFIX [port N] [proto tcp|udp]
 *                                 an exempted endpoint (no port: every
 *                                 one; no proto, or any: both)
 *
 *     one setting per line; '#' at the start of a word starts a comment;
 *     blank lines are ignored. A prefix is ADDR[/LEN], IPv4 or IPv6; LEN
 *     defaults to the whole address (/32, /128) and the bits after it
 *     must be 0;
 *   - the plan: the WIRE_SET, WIRE_NET_ADD and WIRE_NET_DEL requests
 *     that make the kernel's state the file's, in an order that never
 *     refuses what both the old and the new state let through.
 */
#ifndef KAVCTL_WIRE_CONF_H
#define KAVCTL_WIRE_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/kav.h>

#include "args.h"
#include "format.h"
#include "kavctl.h"

/* The kernel's mark base when none was set (esp mode). */
#define KC_WIRE_MARK_DEFAULT	0x4b000000U

/* A state of the wire: the file's, or the kernel's (WIRE_GET). */
struct kc_wire_state {
	uint32_t mode;
	uint32_t port_min, port_max;	/* 0, 0: none */
	bool has_mark;			/* the kernel's reply had one */
	uint32_t mark;
	size_t nr_nets;
	struct kav_wire_net nets[KAV_WIRE_NETS_MAX];
	bool too_many;			/* the kernel's: more were dropped */
	/* The file's: the line of each setting and net (0: not given). */
	unsigned int line_mode, line_ports, line_mark;
	unsigned int line_net[KAV_WIRE_NETS_MAX];
};

/* A file with nothing in it: mode off, no ports, the default mark. */
void kc_wire_state_init(struct kc_wire_state *st);

/*
 * Parses line @lineno of a file (modified in place) into @st, refusing
 * what @st already has (a second mode, the same net twice, more than
 * KAV_WIRE_NETS_MAX nets). 0 (a blank or comment line too), or -1 with a
 * reason in @err; @st is unchanged then.
 */
int kc_wire_conf_parse_line(char *line, unsigned int lineno,
			    struct kc_wire_state *st, char *err,
			    size_t errlen);

/*
 * Reads the lines of @f, the file @path, into @st (kc_wire_state_init()
 * first). Prints each error on stderr as "kavctl: PATH:LINE: reason" (or
 * "kavctl: PATH: reason") and returns how many there were. Opening the
 * file, only if root alone may write it, is wire.c's (conf.c's
 * kc_conf_open_file(), as for grants.d: whoever may write it turns the
 * wire off).
 */
unsigned int kc_wire_conf_read(FILE *f, const char *path,
			       struct kc_wire_state *st);

/* One request of a plan. */
enum kc_wire_step_op {
	KC_WIRE_STEP_SET,		/* WIRE_SET of @set */
	KC_WIRE_STEP_ADD,		/* WIRE_NET_ADD of @net */
	KC_WIRE_STEP_DEL,		/* WIRE_NET_DEL of @net */
};

struct kc_wire_step {
	enum kc_wire_step_op op;
	struct kc_wire_set set;
	struct kav_wire_net net;
	unsigned int line;		/* of the file: ADD, SET (0: none) */
};

#define KC_WIRE_STEPS_MAX	(2 * KAV_WIRE_NETS_MAX + 4)

/*
 * The requests that turn @have into @want, into @steps (room for
 * KC_WIRE_STEPS_MAX); returns how many. Order: the mode first if it goes
 * off; exemptions added and scope prefixes deleted (what lets more
 * through) before ports and mark change, scope prefixes are added and
 * exemptions deleted (what lets less through); the mode last if it goes
 * on or changes, so that no packet both states deliver is refused on the
 * way (a refused TCP segment aborts its socket). Never more than
 * KAV_WIRE_NETS_MAX nets on the way: an exemption is deleted earlier if
 * it must.
 */
size_t kc_wire_plan(const struct kc_wire_state *want,
		    const struct kc_wire_state *have,
		    struct kc_wire_step *steps);

/*
 * A step as one line: "mode off -> esp", "ports none -> 5000-5999",
 * "mark 0x4b000000 -> 0x4c000000", "scope 10.0.0.0/8",
 * "exempt 10.0.0.5/32 port 6818 proto tcp" (the caller adds "add",
 * "delete").
 * @have gives the old values of a SET.
 */
void kc_wire_describe_step(const struct kc_wire_step *s,
			   const struct kc_wire_state *have, char *buf,
			   size_t len);

#endif /* KAVCTL_WIRE_CONF_H */
