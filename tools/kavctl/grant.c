// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl grant add / set / del / show / list, and grant.h's helpers. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/nsfs.h>

#include "attrs.h"
#include "grant.h"
#include "list.h"
#include "nl.h"
#include "output.h"

int kc_open_netns(const char *path)
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
		if (nla_put_s32(msg, KAV_A_SEL_NETNS_FD, netns_fd))
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
	/* No tag and an empty one are the same grant. */
	if (g->has_tag && g->tag[0] && nla_put_string(msg, KAV_A_TAG, g->tag))
		return -1;
	/* Only when asked: a module without the wire refuses the attribute. */
	if (g->wire && nla_put_flag(msg, KAV_A_GRANT_WIRE))
		return -1;
	return 0;
}

struct grant_reply {
	bool found;
	uint32_t id;
	bool updated;
};

static int on_grant_reply(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct grant_reply *g = arg;

	(void)cmd;
	if (kc_get_u32(tb, KAV_A_GRANT_ID, &g->id))
		g->found = true;
	if (tb[KAV_A_GRANT_UPDATED])
		g->updated = true;
	return 0;
}

int kc_grant_put(struct kc_nl *nl, const struct kc_grant_spec *spec,
		 uint32_t *id, bool *updated)
{
	struct grant_reply r = { 0 };
	struct nl_msg *msg;
	int netns_fd = -1, ret = KC_EXIT_OK;

	if (spec->sel.type == KAV_SEL_NETNS) {
		netns_fd = kc_open_netns(spec->sel.netns_path);
		if (netns_fd < 0)
			return KC_EXIT_USAGE;
	}
	msg = kc_nl_msg(nl, KAV_GENL_CMD_GRANT_ADD, 0);
	if (!msg || put_grant_spec(msg, spec, netns_fd)) {
		nlmsg_free(msg);
		kc_err("%s: out of memory", nl->what);
		ret = KC_EXIT_FAIL;
	} else if (kc_nl_request(nl, msg, on_grant_reply, &r)) {
		ret = kc_nl_report(nl);
	} else if (!r.found) {
		kc_err("%s: the kernel granted the key but returned no grant id",
		       nl->what);
		ret = KC_EXIT_FAIL;
	} else {
		*id = r.id;
		*updated = r.updated;
	}
	if (netns_fd >= 0)
		close(netns_fd);
	return ret;
}

/*
 * Sends @msg (NULL: out of memory) about grant @id; a missing grant is
 * "no grant ID", or no error at all when @missing_ok.
 */
static int grant_id_request(struct kc_nl *nl, struct nl_msg *msg, uint32_t id,
			    bool missing_ok)
{
	if (!msg) {
		kc_err("%s: out of memory", nl->what);
		return KC_EXIT_FAIL;
	}
	if (kc_nl_request(nl, msg, NULL, NULL)) {
		if (nl->error == ENOENT && missing_ok)
			return KC_EXIT_OK;
		if (nl->error == ENOENT)
			snprintf(nl->extack, sizeof(nl->extack), "no grant %u",
				 id);
		return kc_nl_report(nl);
	}
	return KC_EXIT_OK;
}

/* A GRANT_SET or GRANT_DEL of grant @id, or NULL (out of memory). */
static struct nl_msg *grant_id_msg(struct kc_nl *nl, uint8_t cmd, uint32_t id)
{
	struct nl_msg *msg = kc_nl_msg(nl, cmd, 0);

	if (msg && nla_put_u32(msg, KAV_A_GRANT_ID, id)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int kc_grant_change(struct kc_nl *nl, uint32_t id,
		    const struct kc_grant_spec *spec)
{
	struct nl_msg *msg = grant_id_msg(nl, KAV_GENL_CMD_GRANT_SET, id);

	if (msg && ((spec->has_max_entries &&
		     nla_put_u64(msg, KAV_A_LIMIT_ENTRIES, spec->max_entries)) ||
		    (spec->has_max_avs &&
		     nla_put_u32(msg, KAV_A_LIMIT_AVS, spec->max_avs)) ||
		    (spec->has_tag &&
		     nla_put_string(msg, KAV_A_TAG, spec->tag)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return grant_id_request(nl, msg, id, false);
}

int kc_grant_revoke(struct kc_nl *nl, uint32_t id, bool missing_ok)
{
	return grant_id_request(nl, grant_id_msg(nl, KAV_GENL_CMD_GRANT_DEL, id),
				id, missing_ok);
}

/* Does a grant message pass the list filters (also applied by the kernel)? */
static bool grant_matches(struct nlattr **tb, const uint32_t *vni,
			  const char *tag)
{
	const char *t = kc_get_str(tb, KAV_A_TAG);
	uint32_t v;

	if (vni && (!kc_get_u32(tb, KAV_A_VNI, &v) || v != *vni))
		return false;
	if (tag && strcmp(t ? t : "", tag) != 0)
		return false;
	return true;
}

static int put_filters(struct nl_msg *msg, const uint32_t *vni,
		       const char *tag)
{
	if (vni && nla_put_u32(msg, KAV_A_VNI, *vni))
		return -1;
	if (tag && nla_put_string(msg, KAV_A_TAG, tag))
		return -1;
	return 0;
}

struct grant_array {
	const uint32_t *vni;
	const char *tag;
	struct kc_grant *v;
	size_t n, cap;
};

static int on_grant_array(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct grant_array *a = arg;
	struct kc_grant *g;
	const char *tag;

	(void)cmd;
	if (!grant_matches(tb, a->vni, a->tag))
		return 0;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		struct kc_grant *v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			kc_err("out of memory");
			return -1;
		}
		a->v = v;
		a->cap = cap;
	}
	g = &a->v[a->n++];
	memset(g, 0, sizeof(*g));
	kc_get_u32(tb, KAV_A_GRANT_ID, &g->id);
	kc_get_u32(tb, KAV_A_VNI, &g->vni);
	kc_get_u32(tb, KAV_A_SEL_TYPE, &g->sel_type);
	g->has_sel_id = kc_get_u32(tb, KAV_A_SEL_ID, &g->sel_id);
	g->has_cgroup_id = kc_get_u64(tb, KAV_A_SEL_CGROUP_ID, &g->cgroup_id);
	g->has_netns_cookie = kc_get_u64(tb, KAV_A_SEL_NETNS_COOKIE,
					 &g->netns_cookie);
	kc_get_u64(tb, KAV_A_LIMIT_ENTRIES, &g->limit_entries);
	kc_get_u32(tb, KAV_A_LIMIT_AVS, &g->limit_avs);
	kc_get_u64(tb, KAV_A_NR_ENTRIES, &g->nr_entries);
	kc_get_u32(tb, KAV_A_NR_AVS, &g->nr_avs);
	tag = kc_get_str(tb, KAV_A_TAG);
	if (tag)
		snprintf(g->tag, sizeof(g->tag), "%s", tag);
	g->wire = tb[KAV_A_GRANT_WIRE] != NULL;
	g->has_wire_drops = kc_get_u64(tb, KAV_A_WIRE_DROPS, &g->wire_drops);
	return 0;
}

int kc_grants_dump(struct kc_nl *nl, const uint32_t *vni, const char *tag,
		   struct kc_grant **grants, size_t *n)
{
	struct grant_array a = { .vni = vni, .tag = tag };
	int tries;

	*grants = NULL;
	*n = 0;
	for (tries = 0; tries <= KC_DUMP_RETRIES; tries++) {
		struct nl_msg *msg = kc_nl_msg(nl, KAV_GENL_CMD_GRANT_GET,
					       NLM_F_DUMP);

		if (msg && put_filters(msg, vni, tag)) {
			nlmsg_free(msg);
			msg = NULL;
		}
		a.n = 0;
		if (kc_nl_request(nl, msg, on_grant_array, &a) == 0) {
			*grants = a.v;
			*n = a.n;
			return KC_EXIT_OK;
		}
		if (nl->nl_error != NLE_DUMP_INTR)
			break;
	}
	free(a.v);
	return kc_nl_report(nl);
}

/* ------------------------------------------------------------ commands */

int kc_grant_add(const struct kc_cmd *cmd)
{
	static const struct kc_column cols[] = {
		{ "ID", "grant_id", KC_COL_NUM, KC_COL_DEFAULT, "grant id" },
		{ "ACTION", "action", KC_COL_STR, KC_COL_DEFAULT,
		  "added or updated" },
	};
	struct kc_cmd out_cmd;
	struct kc_out out;
	struct kc_nl nl;
	bool updated = false;
	uint32_t id = 0;
	int ret;

	ret = kc_nl_open(&nl, "grant add");
	if (ret)
		return ret;
	ret = kc_grant_put(&nl, &cmd->grant, &id, &updated);
	kc_nl_close(&nl);
	if (ret)
		return ret;
	if (!cmd->json) {
		/* The id alone on stdout, for $(kavctl grant add ...). */
		printf("%u\n", id);
		fflush(stdout);
		fprintf(stderr, "kavctl: %s grant %u%s\n",
			updated ? "updated" : "added", id,
			updated ? " (same vni, selector and tag): its limits are the ones given" : "");
		return KC_EXIT_OK;
	}
	out_cmd = *cmd;
	out_cmd.columns = NULL;
	ret = kc_out_begin(&out, &out_cmd, "grant", cols, 2);
	if (ret)
		return ret;
	if (kc_out_row(&out) == 0) {
		kc_out_u64(&out, 0, id);
		kc_out_set(&out, 1, "%s", updated ? "updated" : "added");
	}
	return kc_out_end(&out, true);
}

int kc_grant_set(const struct kc_cmd *cmd)
{
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, "grant set");
	if (ret)
		return ret;
	ret = kc_grant_change(&nl, cmd->id, &cmd->grant);
	kc_nl_close(&nl);
	return ret;
}

int kc_grant_del(const struct kc_cmd *cmd)
{
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, "grant del");
	if (ret)
		return ret;
	ret = kc_grant_revoke(&nl, cmd->id, false);
	kc_nl_close(&nl);
	return ret;
}

#define DEF	KC_COL_DEFAULT
#define RIGHT	KC_COL_RIGHT

const struct kc_column kc_grant_cols[] = {
	[G_ID]          = { "ID", "grant_id", KC_COL_NUM, DEF | RIGHT,
			    "grant id" },
	[G_VNI]         = { "VNI", "vni", KC_COL_NUM, DEF | RIGHT,
			    "the key it grants" },
	[G_SEL]         = { "SELECTOR", "selector", KC_COL_STR, DEF,
			    "whom: uid, gid, cgroup or netns, as text" },
	[G_SEL_TYPE]    = { "SEL-TYPE", "sel_type", KC_COL_STR, 0,
			    "uid, gid, cgroup or netns" },
	[G_SEL_ID]      = { "SEL-ID", "sel_id", KC_COL_NUM, RIGHT,
			    "the uid or gid" },
	[G_SEL_NAME]    = { "SEL-NAME", "sel_name", KC_COL_STR, 0,
			    "the user or group name" },
	[G_CGROUP_ID]   = { "CGROUP-ID", "cgroup_id", KC_COL_NUM, RIGHT,
			    "the cgroup's id" },
	[G_CGROUP_PATH] = { "CGROUP-PATH", "cgroup_path", KC_COL_STR, 0,
			    "the cgroup's path, if it still exists" },
	[G_NETNS]       = { "NETNS-COOKIE", "netns_cookie", KC_COL_NUM, RIGHT,
			    "the network namespace's cookie" },
	[G_MAXE]        = { "MAX-ENTRIES", "max_entries", KC_COL_NUM,
			    DEF | RIGHT, "entry limit (0 in JSON: none)" },
	[G_MAXA]        = { "MAX-AVS", "max_avs", KC_COL_NUM, DEF | RIGHT,
			    "AV limit (0 in JSON: none)" },
	[G_ENTRIES]     = { "ENTRIES", "entries", KC_COL_NUM, DEF | RIGHT,
			    "entries bound under it" },
	[G_AVS]         = { "AVS", "avs", KC_COL_NUM, DEF | RIGHT,
			    "AVs holding the key under it" },
	[G_TAG]         = { "TAG", "tag", KC_COL_STR, DEF,
			    "the administrator's tag" },
	/*
	 * Not in the default table, whose columns scripts of old counted
	 * (-o +WIRE,WIRE-DROPS shows them); in JSON, as every column.
	 */
	[G_WIRE]        = { "WIRE", "wire", KC_COL_BOOL, 0,
			    "its key is also a wire key (grant add ... wire)" },
	[G_WIRE_DROPS]  = { "WIRE-DROPS", "wire_drops", KC_COL_NUM, RIGHT,
			    "packets the wire refused to sockets keyed by it" },
};
const size_t kc_grant_ncols = G_NCOLS;
const size_t kc_whoami_grant_ncols = G_NCOLS_WHOAMI;

void kc_out_grant_selector(struct kc_out *o, const struct kc_sel_view *sel)
{
	char buf[KC_PATH_MAX + 64];
	const char *s;

	kc_format_selector(sel, buf, sizeof(buf));
	kc_out_set(o, G_SEL, "%s", buf);
	s = kc_selector_name(sel->type);
	if (s)
		kc_out_set(o, G_SEL_TYPE, "%s", s);
	if (sel->has_id) {
		kc_out_u64(o, G_SEL_ID, sel->id);
		if (sel->type == KAV_SEL_UID ?
		    kc_user_name(sel->id, buf, sizeof(buf)) :
		    sel->type == KAV_SEL_GID &&
		    kc_group_name(sel->id, buf, sizeof(buf)))
			kc_out_set(o, G_SEL_NAME, "%s", buf);
	}
	if (sel->has_cgroup_id)
		kc_out_u64(o, G_CGROUP_ID, sel->cgroup_id);
	if (sel->cgroup_path)
		kc_out_set(o, G_CGROUP_PATH, "%s", sel->cgroup_path);
	if (sel->has_cookie)
		kc_out_u64(o, G_NETNS, sel->netns_cookie);
}

static int on_grant(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct kc_list *l = arg;
	const struct kc_cmd *kc = l->cmd;
	struct kc_out *o = &l->out;
	struct kc_sel_view sel;
	const char *s;
	uint32_t v32 = 0;
	uint64_t v64 = 0;

	(void)cmd;
	if (kc->op == KC_OP_GRANT_LIST &&
	    !grant_matches(tb, kc->grant.has_vni ? &kc->grant.vni : NULL,
			   kc->grant.has_tag ? kc->grant.tag : NULL))
		return 0;
	l->count++;
	if (kc_out_row(o))
		return -1;
	if (kc_get_u32(tb, KAV_A_GRANT_ID, &v32))
		kc_out_u64(o, G_ID, v32);
	if (kc_get_u32(tb, KAV_A_VNI, &v32))
		kc_out_u64(o, G_VNI, v32);
	kc_sel_view(tb, &sel);
	kc_out_grant_selector(o, &sel);
	if (kc_get_u64(tb, KAV_A_LIMIT_ENTRIES, &v64))
		kc_out_limit(o, G_MAXE, v64);
	if (kc_get_u32(tb, KAV_A_LIMIT_AVS, &v32))
		kc_out_limit(o, G_MAXA, v32);
	if (kc_get_u64(tb, KAV_A_NR_ENTRIES, &v64))
		kc_out_u64(o, G_ENTRIES, v64);
	if (kc_get_u32(tb, KAV_A_NR_AVS, &v32))
		kc_out_u64(o, G_AVS, v32);
	s = kc_get_str(tb, KAV_A_TAG);
	if (s && *s)
		kc_out_set(o, G_TAG, "%s", s);
	/* A flag: absent is no (also from a module without the wire). */
	kc_out_bool(o, G_WIRE, tb[KAV_A_GRANT_WIRE] != NULL);
	if (kc_get_u64(tb, KAV_A_WIRE_DROPS, &v64))
		kc_out_u64(o, G_WIRE_DROPS, v64);
	return 0;
}

static int put_list(struct nl_msg *msg, const struct kc_cmd *cmd)
{
	if (cmd->op == KC_OP_GRANT_SHOW)
		return nla_put_u32(msg, KAV_A_GRANT_ID, cmd->id) ? -1 : 0;
	return put_filters(msg, cmd->grant.has_vni ? &cmd->grant.vni : NULL,
			   cmd->grant.has_tag ? cmd->grant.tag : NULL);
}

int kc_grant_list(const struct kc_cmd *cmd)
{
	bool show = cmd->op == KC_OP_GRANT_SHOW;
	const struct kc_list_req req = {
		.what = show ? "grant show" : "grant list",
		.name = "grants",
		.genl_cmd = KAV_GENL_CMD_GRANT_GET,
		.dump = !show,
		.put = put_list,
		.row = on_grant,
		.cols = kc_grant_cols,
		.ncols = G_NCOLS,
		.enoent = "no grant",
	};

	return kc_list_dump(cmd, &req);
}
