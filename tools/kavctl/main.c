// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl: entry point, usage text and dispatch. See kavctl(8). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/kav.h>

#include "args.h"
#include "conf.h"
#include "kavctl.h"

static const char usage_head[] =
"Usage: kavctl [OPTIONS] OBJECT [COMMAND [ARGS]]\n";

static const char usage_options[] =
"Options (before or after the object):\n"
"  -j, --json      JSON output\n"
"  -p, --pretty    indented JSON (implies -j)\n"
"  -h, --help      help (kavctl grant -h: help on grants)\n"
"  -V, --version   print the version\n";

static const char usage_grant[] =
"  grant add vni VNI SELECTOR [max-entries N] [max-avs N]\n"
"                  grant auth key VNI to an identity; prints the grant id\n"
"  grant del ID    revoke a grant (also: grant revoke ID, revoke ID)\n"
"  grant list      list grants (also: grant, list grants)\n";

static const char usage_selector[] =
"SELECTOR := { uid UID | user NAME | gid GID | group NAME |\n"
"              cgroup PATH | cgroup-id ID |\n"
"              netns { PATH | NAME } | netns-pid PID }\n"
"  gid and group also match supplementary groups; cgroup matches the\n"
"  cgroup and its descendants (PATH below the cgroup2 root; a leading\n"
"  /sys/fs/cgroup is removed); netns NAME is /run/netns/NAME.\n"
"  max-entries and max-avs limit what the grant covers (0: no limit).\n";

static const char usage_domain[] =
"  domain list     open /dev/kav domains and their owners\n";

static const char usage_av[] =
"  av list         address vectors: owners, sizes, names and pins\n"
"  av show ID      the entries of AV ID: index, address, key, revoked\n"
"  av pin ID       keep named AV ID alive after its last user closed it\n"
"  av unpin ID     drop that pin (the AV goes when nothing else holds it)\n";

static const char usage_stats[] =
"  stats           counters: objects, memory, denials by reason\n";

static const char usage_monitor[] =
"  monitor         print grant and AV events until interrupted\n"
"                  (with -j: one JSON object per line)\n";

static const char usage_exit[] =
"Exit status: 0 success, 1 bad arguments, 2 kav module not loaded,\n"
"3 the kernel refused the request (or netlink failed), 4 permission\n"
"denied (needs CAP_NET_ADMIN in the initial user namespace).\n";

static const char *const topic_words[] = {
	[KC_TOPIC_ALL] = "",
	[KC_TOPIC_GRANT] = " grant",
	[KC_TOPIC_DOMAIN] = " domain",
	[KC_TOPIC_AV] = " av",
	[KC_TOPIC_STATS] = " stats",
	[KC_TOPIC_MONITOR] = " monitor",
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
		ret = kc_grant_list(&cmd);
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
