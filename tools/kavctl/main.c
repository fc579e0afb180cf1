// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl: entry point, usage text and dispatch. See kavctl(8). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/kav.h>

#include "args.h"
#include "conf.h"
#include "kavctl.h"
#include "output.h"

static const char usage_head[] =
"Usage: kavctl [OPTIONS] OBJECT [COMMAND [ARGS]]\n"
"Objects, commands and keywords may be shortened to any unambiguous\n"
"prefix: 'kavctl g l' is 'kavctl grant list'.\n";

static const char usage_options[] =
"Options (before or after the object):\n"
"  -j, --json      JSON output (a listing: every column unless -o)\n"
"  -p, --pretty    the same as -j (JSON is always indented)\n"
"  -o, --output COLUMNS\n"
"                  a listing's columns, comma-separated; +COLUMNS adds\n"
"                  to the default ones; -o help lists them\n"
"  -n, --noheadings  no heading line\n"
"  -r, --raw       raw table: one space between columns, and spaces and\n"
"                  other special characters in values escaped as \\xNN\n"
"  -h, --help      help (kavctl grant -h: help on grants)\n"
"  -V, --version   print the version\n";

static const char usage_grant[] =
"  grant add vni VNI SELECTOR [max-entries N] [max-avs N] [tag TAG] [wire]\n"
"                  grant auth key VNI to an identity; prints the grant id.\n"
"                  The same VNI, selector and tag again updates that\n"
"                  grant's limits instead of adding one. wire: the key\n"
"                  is also the identity's wire key (kavctl wire; VNI\n"
"                  below 1048576, not for gid or group)\n"
"  grant set ID [max-entries N] [max-avs N] [tag TAG]\n"
"                  change a grant's limits or tag in place (tag \"\": none)\n"
"  grant del ID    revoke a grant (also: grant revoke ID, revoke ID)\n"
"  grant show ID   one grant\n"
"  grant list [vni VNI] [tag TAG]\n"
"                  list grants (also: grant, list grants)\n";

static const char usage_selector[] =
"SELECTOR := { uid UID | user NAME | gid GID | group NAME |\n"
"              cgroup PATH | cgroup-id ID |\n"
"              netns { PATH | NAME } | netns-pid PID }\n"
"  gid and group also match supplementary groups; cgroup matches the\n"
"  cgroup and its descendants (PATH below the cgroup2 root; a leading\n"
"  /sys/fs/cgroup is removed); netns NAME is /run/netns/NAME.\n"
"  max-entries and max-avs limit what the grant covers (0: no limit).\n"
"  A tag is free text of up to 63 bytes (kavctl apply uses it).\n";

static const char usage_domain[] =
"  domain list     open /dev/kav domains and their owners\n";

static const char usage_av[] =
"  av list         address vectors: owners, sizes, names and pins\n"
"  av show ID      the entries of AV ID: index, address, key, revoked\n"
"  av pin ID [tag TAG]\n"
"                  keep named AV ID alive after its last user closed it\n"
"  av unpin ID     drop that pin (the AV goes when nothing else holds it)\n";

static const char usage_stats[] =
"  stats           counters: objects, memory, denials by reason, and the\n"
"                  wire's (passed, drops by reason, aborts)\n";

static const char usage_monitor[] =
"  monitor         print grant, AV and wire-drop events until interrupted\n"
"                  (with -j: one JSON object per line)\n";

static const char usage_whoami[] =
"  whoami          the identity /dev/kav captures for you and the grants\n"
"                  that match it (no privilege needed)\n";

static const char usage_apply[] =
"  apply [--dry-run] [--prune]\n"
"                  make the kernel's grants match /etc/kav/grants.d\n";

static const char usage_wire[] =
"  wire [show]     wire enforcement: mode, ports, mark, scope, exemptions,\n"
"                  counters\n"
"  wire set [mode off|flowlabel|esp] [ports MIN-MAX|none] [mark VALUE]\n"
"                  change the settings (mark: esp's mark base, low 20\n"
"                  bits 0)\n"
"  wire scope add|del PREFIX...\n"
"                  fabric prefixes whose TCP and UDP need equal wire keys\n"
"                  (ADDR[/LEN], IPv4 or IPv6; no host bits after LEN)\n"
"  wire exempt add|del ADDR[/LEN] [port N] [proto tcp|udp]...\n"
"                  endpoints whose traffic is not checked (slurmd, NFS,\n"
"                  ...): to them, and replies from them\n"
"  wire apply [-n|--dry-run] [FILE]\n"
"                  make the wire's state FILE's (default " KC_WIRE_CONF ")\n";

static const char usage_exit[] =
"Exit status: 0 success, 1 bad arguments, 2 kav module not loaded\n"
"(whoami: no /dev/kav), 3 the kernel refused the request (no such grant\n"
"or AV, ...) or netlink failed, 4 permission denied (needs CAP_NET_ADMIN\n"
"in the initial user namespace; whoami: /dev/kav not openable).\n";

static const char *const topic_words[] = {
	[KC_TOPIC_ALL] = "",
	[KC_TOPIC_GRANT] = " grant",
	[KC_TOPIC_DOMAIN] = " domain",
	[KC_TOPIC_AV] = " av",
	[KC_TOPIC_STATS] = " stats",
	[KC_TOPIC_MONITOR] = " monitor",
	[KC_TOPIC_WHOAMI] = " whoami",
	[KC_TOPIC_APPLY] = " apply",
	[KC_TOPIC_WIRE] = " wire",
};

/* The commands of @topic; with @full, options, selectors, exit codes. */
static void usage(FILE *f, enum kc_topic topic, bool full)
{
	bool all = topic == KC_TOPIC_ALL;

	fputs(usage_head, f);
	fputs("\n", f);
	if (all)
		fputs("Objects and commands:\n", f);
	if (all || topic == KC_TOPIC_GRANT)
		fputs(usage_grant, f);
	if (all || topic == KC_TOPIC_DOMAIN)
		fputs(usage_domain, f);
	if (all || topic == KC_TOPIC_AV)
		fputs(usage_av, f);
	if (all || topic == KC_TOPIC_STATS)
		fputs(usage_stats, f);
	if (all || topic == KC_TOPIC_MONITOR)
		fputs(usage_monitor, f);
	if (all || topic == KC_TOPIC_WHOAMI)
		fputs(usage_whoami, f);
	if (all || topic == KC_TOPIC_APPLY)
		fputs(usage_apply, f);
	if (all || topic == KC_TOPIC_WIRE)
		fputs(usage_wire, f);
	if (!full) {
		fprintf(f, "\nRun 'kavctl%s -h' for more; see kavctl(8).\n",
			topic_words[topic]);
		return;
	}
	if (all || topic == KC_TOPIC_GRANT) {
		fputs("\n", f);
		fputs(usage_selector, f);
	}
	fputs("\n", f);
	fputs(usage_options, f);
	fputs("\n", f);
	fputs(usage_exit, f);
	fputs("See kavctl(8).\n", f);
}

/* The columns of @op's listing, for -o help; NULL if it has none. */
static const struct kc_column *op_columns(enum kc_op op, size_t *n)
{
	switch (op) {
	case KC_OP_GRANT_LIST:
	case KC_OP_GRANT_SHOW:
		*n = kc_grant_ncols;
		return kc_grant_cols;
	case KC_OP_WHOAMI:
		*n = kc_whoami_grant_ncols;
		return kc_grant_cols;
	case KC_OP_DOMAIN_LIST:
		*n = kc_domain_ncols;
		return kc_domain_cols;
	case KC_OP_AV_LIST:
		*n = kc_av_ncols;
		return kc_av_cols;
	case KC_OP_AV_SHOW:
		*n = kc_entry_ncols;
		return kc_entry_cols;
	case KC_OP_STATS:
		*n = kc_stats_ncols;
		return kc_stats_cols;
	default:
		return NULL;
	}
}

int main(int argc, char **argv)
{
	static char mount[KC_PATH_MAX];
	struct kc_cmd cmd;
	char err[512];
	int ret;

	if (kc_find_cgroup2_mount("/proc/self/mounts", mount,
				  sizeof(mount)) == 0)
		kc_set_cgroup2_mount(mount);

	/* kavctl apply [--dry-run] [--prune] [--dir DIR]: apply.c. */
	if (argc > 1 && strcmp(argv[1], "apply") == 0)
		return kc_apply_main(argc - 1, argv + 1);

	if (kc_parse_argv(argc, argv, &cmd, err, sizeof(err))) {
		kc_err("%s", err);
		usage(stderr, cmd.topic, false);
		return KC_EXIT_USAGE;
	}

	if (cmd.columns && strcmp(cmd.columns, "help") == 0) {
		const struct kc_column *cols;
		size_t n = 0;

		cols = op_columns(cmd.op, &n);
		if (!cols) {
			kc_err("-o: this command prints no listing");
			return KC_EXIT_USAGE;
		}
		kc_out_columns_help(stdout, cols, n);
		return KC_EXIT_OK;
	}

	switch (cmd.op) {
	case KC_OP_HELP:
		usage(stdout, cmd.topic, true);
		ret = KC_EXIT_OK;
		break;
	case KC_OP_VERSION:
		printf("kavctl %s (generic netlink family \"%s\" version %d)\n",
		       KAVCTL_VERSION, KAV_GENL_NAME, KAV_GENL_VERSION);
		ret = KC_EXIT_OK;
		break;
	case KC_OP_GRANT_ADD:
		ret = kc_grant_add(&cmd);
		break;
	case KC_OP_GRANT_DEL:
		ret = kc_grant_del(&cmd);
		break;
	case KC_OP_GRANT_LIST:
	case KC_OP_GRANT_SHOW:
		ret = kc_grant_list(&cmd);
		break;
	case KC_OP_GRANT_SET:
		ret = kc_grant_set(&cmd);
		break;
	case KC_OP_WHOAMI:
		ret = kc_whoami(&cmd);
		break;
	case KC_OP_APPLY:	/* "kavctl -j app ...": argv[0] is the word */
		ret = kc_apply_main(cmd.argc + 1, cmd.argv - 1);
		break;
	case KC_OP_DOMAIN_LIST:
		ret = kc_domain_list(&cmd);
		break;
	case KC_OP_AV_LIST:
		ret = kc_av_list(&cmd);
		break;
	case KC_OP_AV_SHOW:
		ret = kc_av_show(&cmd);
		break;
	case KC_OP_AV_PIN:
	case KC_OP_AV_UNPIN:
		ret = kc_av_pin(&cmd);
		break;
	case KC_OP_STATS:
		ret = kc_stats(&cmd);
		break;
	case KC_OP_MONITOR:
		ret = kc_monitor(&cmd);
		break;
	case KC_OP_WIRE_SHOW:
		ret = kc_wire_show(&cmd);
		break;
	case KC_OP_WIRE_SET:
		ret = kc_wire_set(&cmd);
		break;
	case KC_OP_WIRE_NET_ADD:
	case KC_OP_WIRE_NET_DEL:
		ret = kc_wire_net(&cmd);
		break;
	case KC_OP_WIRE_APPLY:
		ret = kc_wire_apply(&cmd);
		break;
	default:
		usage(stderr, KC_TOPIC_ALL, false);
		return KC_EXIT_USAGE;
	}

	if (fflush(stdout) != 0 || ferror(stdout)) {
		kc_err("cannot write output: %s", strerror(errno));
		if (ret == KC_EXIT_OK)
			ret = KC_EXIT_FAIL;
	}
	return ret;
}
