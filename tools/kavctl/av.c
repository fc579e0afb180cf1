// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl av list / av show ID (the entries of one AV) / av pin, unpin ID. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "attrs.h"
#include "list.h"
#include "nl.h"
#include "output.h"

/* NAME is last: a name may be long, and the last column is not padded. */
enum { A_ID, A_DOMAIN, A_PID, A_USER, A_UID, A_CGROUP, A_MODE, A_FORMAT,
	A_VNI, A_ENTRIES, A_MEM, A_OPEN, A_PINNED, A_TAG, A_IPC_NS, A_JOB,
	A_NAME, A_NCOLS };

#define DEF	KC_COL_DEFAULT
#define RIGHT	KC_COL_RIGHT

const struct kc_column kc_av_cols[] = {
	[A_ID]      = { "ID", "av_id", KC_COL_NUM, DEF | RIGHT, "AV id" },
	[A_DOMAIN]  = { "DOMAIN", "domain_id", KC_COL_NUM, DEF | RIGHT,
			"domain that created it" },
	[A_PID]     = { "PID", "pid", KC_COL_NUM, DEF | RIGHT,
			"process that created it" },
	[A_USER]    = { "USER", "user", KC_COL_STR, DEF,
			"its creator (name, else uid)" },
	[A_UID]     = { "UID", "uid", KC_COL_NUM, RIGHT, "its creator's uid" },
	[A_CGROUP]  = { "CGROUP-ID", "cgroup_id", KC_COL_NUM, RIGHT,
			"its creator's cgroup v2 id" },
	[A_MODE]    = { "MODE", "mode", KC_COL_STR, DEF,
			"a named AV's mode bits" },
	[A_FORMAT]  = { "FORMAT", "addr_format", KC_COL_STR, DEF,
			"address format" },
	[A_VNI]     = { "VNI", "vni", KC_COL_NUM, DEF | RIGHT,
			"the creating domain's key" },
	[A_ENTRIES] = { "ENTRIES", "entries", KC_COL_NUM, DEF | RIGHT,
			"valid entries" },
	[A_MEM]     = { "MEM", "mem_bytes", KC_COL_NUM, DEF | RIGHT,
			"kernel memory" },
	[A_OPEN]    = { "OPEN", "open", KC_COL_NUM, DEF | RIGHT,
			"open file descriptions" },
	[A_PINNED]  = { "PINNED", "pinned", KC_COL_BOOL, DEF,
			"a named AV pinned by an administrator" },
	[A_TAG]     = { "TAG", "tag", KC_COL_STR, DEF, "the pin's tag" },
	[A_IPC_NS]  = { "IPC-NS", "ipc_ns", KC_COL_NUM, RIGHT,
			"IPC namespace of a named AV (inode)" },
	[A_JOB]     = { "JOB", "job_grant_id", KC_COL_NUM, DEF | RIGHT,
			"a job's table: the grant id of its job" },
	[A_NAME]    = { "NAME", "name", KC_COL_STR, DEF,
			"a named AV's name (escaped)" },
};
const size_t kc_av_ncols = A_NCOLS;

/* Is [@p, @p + @len) valid UTF-8 (a JSON string as it is)? */
static bool valid_utf8(const unsigned char *p, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = p[i];
		size_t n, k;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (len - i <= n)
			return false;
		for (k = 1; k <= n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		i += n + 1;
	}
	return true;
}

static int on_av(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct kc_list *l = arg;
	struct kc_out *o = &l->out;
	const char *name;
	char buf[KC_NAME_TEXT_MAX];
	uint32_t v32;
	uint64_t v64;

	(void)cmd;
	l->count++;
	if (kc_out_row(o))
		return -1;
	if (kc_get_u32(tb, KAV_A_AV_ID, &v32))
		kc_out_u64(o, A_ID, v32);
	if (kc_get_u32(tb, KAV_A_DOMAIN_ID, &v32))
		kc_out_u64(o, A_DOMAIN, v32);
	if (kc_get_u32(tb, KAV_A_PID, &v32))
		kc_out_u64(o, A_PID, v32);
	kc_list_set_owner(o, A_USER, tb, KAV_A_UID);
	if (kc_get_u32(tb, KAV_A_UID, &v32))
		kc_out_u64(o, A_UID, v32);
	if (kc_get_u64(tb, KAV_A_CGROUP_ID, &v64))
		kc_out_u64(o, A_CGROUP, v64);
	if (kc_get_u32(tb, KAV_A_ADDR_FORMAT, &v32)) {
		name = kc_addr_format_name(v32);
		if (name)
			kc_out_set(o, A_FORMAT, "%s", name);
		else
			kc_out_set(o, A_FORMAT, "%u", v32);
	}
	if (kc_get_u32(tb, KAV_A_VNI, &v32))
		kc_out_u64(o, A_VNI, v32);
	if (kc_get_u64(tb, KAV_A_NR_ENTRIES, &v64))
		kc_out_u64(o, A_ENTRIES, v64);
	if (kc_get_u64(tb, KAV_A_MEM_BYTES, &v64))
		kc_out_bytes(o, A_MEM, v64);
	if (kc_get_u32(tb, KAV_A_NR_OPEN, &v32))
		kc_out_u64(o, A_OPEN, v32);
	if (kc_get_u32(tb, KAV_A_IPC_NS, &v32))
		kc_out_u64(o, A_IPC_NS, v32);
	/* A job's table has no name: its job is its grant. */
	if (tb[KAV_A_AV_JOB] && kc_get_u32(tb, KAV_A_GRANT_ID, &v32))
		kc_out_u64(o, A_JOB, v32);
	/* Unnamed AVs have no name, mode or pin: their cells stay "-". */
	if (tb[KAV_A_AV_NAME]) {
		const unsigned char *p = nla_data(tb[KAV_A_AV_NAME]);
		size_t len = (size_t)nla_len(tb[KAV_A_AV_NAME]);

		/* JSON takes any text; a table needs one escaped word. */
		if (o->json && valid_utf8(p, len))
			kc_out_set(o, A_NAME, "%.*s", (int)len, (const char *)p);
		else {
			kc_format_name(p, len, buf, sizeof(buf));
			kc_out_set(o, A_NAME, "%s", buf);
		}
		kc_out_bool(o, A_PINNED, tb[KAV_A_AV_PINNED]);
	}
	if (tb[KAV_A_TAG])
		kc_out_set(o, A_TAG, "%s", nla_get_string(tb[KAV_A_TAG]));
	if (kc_get_u32(tb, KAV_A_AV_MODE, &v32))
		kc_out_set(o, A_MODE, "%04o", v32);
	return 0;
}

int kc_av_list(const struct kc_cmd *cmd)
{
	static const struct kc_list_req req = {
		.what = "av list",
		.name = "avs",
		.genl_cmd = KAV_GENL_CMD_AV_GET,
		.dump = true,
		.row = on_av,
		.cols = kc_av_cols,
		.ncols = A_NCOLS,
	};

	return kc_list_dump(cmd, &req);
}

/* The AV dump, read only to learn one AV's address format. */
struct av_lookup {
	uint32_t id;
	bool found;
	uint32_t format;
};

static int on_av_lookup(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct av_lookup *l = arg;
	uint32_t id;

	(void)cmd;
	if (kc_get_u32(tb, KAV_A_AV_ID, &id) && id == l->id) {
		l->found = true;
		kc_get_u32(tb, KAV_A_ADDR_FORMAT, &l->format);
	}
	return 0;
}

enum { E_INDEX, E_ADDR, E_VNI, E_STATE, E_REVOKED, E_NCOLS };

const struct kc_column kc_entry_cols[] = {
	[E_INDEX]   = { "INDEX", "index", KC_COL_NUM, DEF | RIGHT,
			"entry index (fi_addr_t)" },
	[E_ADDR]    = { "ADDRESS", "address", KC_COL_STR, DEF, "address" },
	[E_VNI]     = { "VNI", "vni", KC_COL_NUM, DEF | RIGHT,
			"the entry's key" },
	[E_STATE]   = { "KEY", "key", KC_COL_STR, DEF,
			"ok, or revoked" },
	[E_REVOKED] = { "REVOKED", "revoked", KC_COL_BOOL, 0,
			"the key was revoked" },
};
const size_t kc_entry_ncols = E_NCOLS;

static int on_entry(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct kc_list *l = arg;
	struct kc_out *o = &l->out;
	char buf[4 * KAV_ADDR_MAX_LEN + 8];
	uint32_t v32;
	uint64_t v64;

	(void)cmd;
	l->count++;
	if (kc_out_row(o))
		return -1;
	if (kc_get_u64(tb, KAV_A_ENTRY_INDEX, &v64))
		kc_out_u64(o, E_INDEX, v64);
	if (tb[KAV_A_ENTRY_ADDR]) {
		kc_attr_addr(tb, l->format, buf, sizeof(buf));
		kc_out_set(o, E_ADDR, "%s", buf);
	}
	if (kc_get_u32(tb, KAV_A_VNI, &v32)) {
		kc_out_u64(o, E_VNI, v32);
		kc_out_set(o, E_STATE, "%s",
			   tb[KAV_A_KEY_REVOKED] ? "revoked" : "ok");
	} else if (tb[KAV_A_KEY_REVOKED]) {
		kc_out_set(o, E_STATE, "revoked");
	}
	kc_out_bool(o, E_REVOKED, tb[KAV_A_KEY_REVOKED]);
	return 0;
}

static int put_av_id(struct nl_msg *msg, const struct kc_cmd *cmd)
{
	return nla_put_u32(msg, KAV_A_AV_ID, cmd->id) ? -1 : 0;
}

int kc_av_show(const struct kc_cmd *cmd)
{
	static const struct kc_list_req req = {
		.what = "av show",
		.name = "entries",
		.genl_cmd = KAV_GENL_CMD_ENTRY_GET,
		.dump = true,
		.put = put_av_id,
		.row = on_entry,
		.cols = kc_entry_cols,
		.ncols = E_NCOLS,
		.enoent = "no AV",
	};
	struct av_lookup look = { .id = cmd->id };
	struct kc_list l = { 0 };
	struct kc_nl nl;
	bool looked;
	int ret;

	ret = kc_nl_open(&nl, "av show");
	if (ret)
		return ret;
	/*
	 * The AV's address format says how to print addresses. If this
	 * dump fails, the entry dump below fails the same way and says so.
	 */
	looked = kc_nl_request(&nl, kc_nl_msg(&nl, KAV_GENL_CMD_AV_GET,
					      NLM_F_DUMP),
			       on_av_lookup, &look) == 0;
	if (looked && !look.found) {
		kc_err("av show: no AV %u", cmd->id);
		kc_nl_close(&nl);
		return KC_EXIT_FAIL;
	}
	l.format = look.format;
	ret = kc_list_run(&nl, cmd, &req, &l);
	kc_nl_close(&nl);
	return ret;
}

int kc_av_pin(const struct kc_cmd *cmd)
{
	bool pin = cmd->op == KC_OP_AV_PIN;
	const char *what = pin ? "av pin" : "av unpin";
	struct nl_msg *msg;
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, what);
	if (ret)
		return ret;
	msg = kc_nl_msg(&nl, pin ? KAV_GENL_CMD_AV_PIN : KAV_GENL_CMD_AV_UNPIN,
			0);
	if (!msg || nla_put_u32(msg, KAV_A_AV_ID, cmd->id) ||
	    (pin && cmd->grant.has_tag &&
	     nla_put_string(msg, KAV_A_TAG, cmd->grant.tag))) {
		nlmsg_free(msg);
		kc_err("%s: out of memory", what);
		kc_nl_close(&nl);
		return KC_EXIT_FAIL;
	}
	/* Like grant del: nothing is printed on success, JSON or not. */
	if (kc_nl_request(&nl, msg, NULL, NULL)) {
		if (nl.error == ENOENT)
			snprintf(nl.extack, sizeof(nl.extack), "no AV %u",
				 cmd->id);
		ret = kc_nl_report(&nl);
	}
	kc_nl_close(&nl);
	return ret;
}
