// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl grant add / del / list. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/nsfs.h>

#include "attrs.h"
#include "list.h"
#include "nl.h"
#include "output.h"

/*
 * Opens a network namespace file (/proc/PID/ns/net, /run/netns/NAME) for
 * KAV_A_SEL_NETNS_FD. Returns the fd, or -1 after saying why.
 */
static int open_netns(const char *path)
{
	int fd, type;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		kc_err("netns %s: %s", path, strerror(errno));
		return -1;
	}
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type < 0 && errno == ENOTTY) {
		kc_err("netns %s: not a namespace file", path);
		goto fail;
	}
	/* Other errors: an old kernel; the kernel checks the fd anyway. */
	if (type >= 0 && type != CLONE_NEWNET) {
		kc_err("netns %s: not a network namespace", path);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

static int put_grant_spec(struct nl_msg *msg, const struct kc_grant_spec *g,
			  int netns_fd)
{
	const struct kc_selector *s = &g->sel;

	if (nla_put_u32(msg, KAV_A_VNI, g->vni) ||
	    nla_put_u32(msg, KAV_A_SEL_TYPE, s->type))
		return -1;
	switch (s->type) {
	case KAV_SEL_UID:
	case KAV_SEL_GID:
		if (nla_put_u32(msg, KAV_A_SEL_ID, s->id))
			return -1;
		break;
	case KAV_SEL_CGROUP:
		if (s->cgroup_by_id ?
		    nla_put_u64(msg, KAV_A_SEL_CGROUP_ID, s->cgroup_id) :
		    nla_put_string(msg, KAV_A_SEL_CGROUP_PATH, s->cgroup_path))
			return -1;
		break;
	case KAV_SEL_NETNS:
		if (nla_put_u32(msg, KAV_A_SEL_NETNS_FD, (uint32_t)netns_fd))
			return -1;
		break;
	default:
		return -1;
	}
	if (g->has_max_entries &&
	    nla_put_u64(msg, KAV_A_LIMIT_ENTRIES, g->max_entries))
		return -1;
	if (g->has_max_avs && nla_put_u32(msg, KAV_A_LIMIT_AVS, g->max_avs))
		return -1;
	return 0;
}

struct grant_id {
	bool found;
	uint32_t id;
};

static int on_grant_id(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct grant_id *g = arg;

	(void)cmd;
	if (kc_get_u32(tb, KAV_A_GRANT_ID, &g->id))
		g->found = true;
	return 0;
}

int kc_grant_add(const struct kc_cmd *cmd)
{
	const struct kc_grant_spec *spec = &cmd->grant;
	struct grant_id gid = { 0 };
	struct nl_msg *msg;
	struct kc_nl nl;
	int netns_fd = -1, ret;

	if (spec->sel.type == KAV_SEL_NETNS) {
		netns_fd = open_netns(spec->sel.netns_path);
		if (netns_fd < 0)
			return KC_EXIT_USAGE;
	}
	ret = kc_nl_open(&nl, "grant add");
	if (ret)
		goto out;
	msg = kc_nl_msg(&nl, KAV_GENL_CMD_GRANT_ADD, 0);
	if (!msg || put_grant_spec(msg, spec, netns_fd)) {
		nlmsg_free(msg);
		kc_err("grant add: out of memory");
		ret = KC_EXIT_FAIL;
		goto close;
	}
	if (kc_nl_request(&nl, msg, on_grant_id, &gid)) {
		ret = kc_nl_report(&nl);
		goto close;
	}
	if (!gid.found) {
		kc_warn("grant add: the kernel granted the key but returned no grant id");
	} else if (cmd->json) {
		struct kc_json j;

		kc_json_init(&j, stdout, cmd->pretty);
		kc_json_open_object(&j);
		kc_json_kv_u64(&j, "grant_id", gid.id);
		kc_json_close_object(&j);
		kc_json_end(&j);
	} else {
		printf("%u\n", gid.id);
	}
	ret = KC_EXIT_OK;
close:
	kc_nl_close(&nl);
out:
	if (netns_fd >= 0)
		close(netns_fd);
	return ret;
}

int kc_grant_del(const struct kc_cmd *cmd)
{
	struct nl_msg *msg;
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, "grant del");
	if (ret)
		return ret;
	msg = kc_nl_msg(&nl, KAV_GENL_CMD_GRANT_DEL, 0);
	if (!msg || nla_put_u32(msg, KAV_A_GRANT_ID, cmd->id)) {
		nlmsg_free(msg);
		kc_err("grant del: out of memory");
		kc_nl_close(&nl);
		return KC_EXIT_FAIL;
	}
	if (kc_nl_request(&nl, msg, NULL, NULL)) {
		if (nl.error == ENOENT && !nl.extack[0])
			snprintf(nl.extack, sizeof(nl.extack),
				 "no grant with id %u", cmd->id);
		ret = kc_nl_report(&nl);
	}
	kc_nl_close(&nl);
	return ret;
}

enum { G_ID, G_VNI, G_SEL, G_MAXE, G_MAXA, G_ENTRIES, G_AVS, G_NCOLS };

static const struct kc_column grant_cols[G_NCOLS] = {
	[G_ID]      = { "ID", KC_COL_ALWAYS },
	[G_VNI]     = { "VNI", KC_COL_ALWAYS },
	[G_SEL]     = { "SELECTOR", KC_COL_ALWAYS },
	[G_MAXE]    = { "MAX-ENTRIES", 0 },
	[G_MAXA]    = { "MAX-AVS", 0 },
	[G_ENTRIES] = { "ENTRIES", 0 },
	[G_AVS]     = { "AVS", 0 },
};

static void set_limit(struct kc_table *t, size_t col, bool has, uint64_t v)
{
	if (!has)
		return;
	if (v)
		kc_table_set(t, col, "%" PRIu64, v);
	else
		kc_table_set(t, col, "unlimited");
}

static int on_grant(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct kc_out *o = arg;
	struct kc_table *t = &o->t;
	struct kc_sel_view sel;
	char buf[KC_PATH_MAX + 64];
	uint32_t v32 = 0;
	uint64_t v64 = 0;
	bool has;
	int row;

	(void)cmd;
	row = kc_list_row(o, tb, 0, 0);
	if (row <= 0)
		return row;
	if (kc_get_u32(tb, KAV_A_GRANT_ID, &v32))
		kc_table_set(t, G_ID, "%u", v32);
	if (kc_get_u32(tb, KAV_A_VNI, &v32))
		kc_table_set(t, G_VNI, "%u", v32);
	kc_sel_view(tb, &sel);
	kc_format_selector(&sel, buf, sizeof(buf));
	kc_table_set(t, G_SEL, "%s", buf);
	has = kc_get_u64(tb, KAV_A_LIMIT_ENTRIES, &v64);
	set_limit(t, G_MAXE, has, v64);
	has = kc_get_u32(tb, KAV_A_LIMIT_AVS, &v32);
	set_limit(t, G_MAXA, has, v32);
	if (kc_get_u64(tb, KAV_A_NR_ENTRIES, &v64))
		kc_table_set(t, G_ENTRIES, "%" PRIu64, v64);
	if (kc_get_u32(tb, KAV_A_NR_AVS, &v32))
		kc_table_set(t, G_AVS, "%u", v32);
	return 0;
}

int kc_grant_list(const struct kc_cmd *cmd)
{
	return kc_list_dump(cmd, "grant list", KAV_GENL_CMD_GRANT_GET,
			    on_grant, grant_cols, G_NCOLS);
}
