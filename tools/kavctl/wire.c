// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kavctl wire: the enforcement of wire keys (uapi/linux/kav.h, "Wire
 * enforcement"; Documentation/wire.rst) over netlink.
 *
 *   wire [show]                WIRE_GET: settings, nets, counters
 *   wire set ...               WIRE_SET
 *   wire scope|exempt add|del  WIRE_NET_ADD / WIRE_NET_DEL, one a net
 *   wire apply [-n] [FILE]     WIRE_GET, then the plan of wire_conf.c
 *
 * The values are parsed by args.c and named by format.c; the file and
 * the plan are wire_conf.c's (no netlink).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "conf.h"
#include "nl.h"
#include "output.h"
#include "wire.h"
#include "wire_conf.h"

/* Drop counters shown: the known reasons and a newer module's few more. */
#define WIRE_DROPS_SHOWN	32

/* What WIRE_GET replied. */
struct wire_info {
	struct kc_nl *nl;
	bool seen;
	bool has_mode;
	struct kc_wire_state st;	/* mode, ports, mark, nets */
	bool has_passed, has_aborts;
	uint64_t passed, aborts;
	size_t nr_drops;		/* counters the kernel sent */
	uint64_t drops[WIRE_DROPS_SHOWN];
};

static int on_wire(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct wire_info *w = arg;
	struct kc_wire_state *st = &w->st;
	struct nlattr *nla;
	size_t i, n;
	int rem;

	(void)cmd;
	if (w->seen)	/* one message is expected; take the first */
		return 0;
	w->seen = true;
	w->has_mode = kc_get_u32(tb, KAV_A_WIRE_MODE, &st->mode);
	kc_get_u32(tb, KAV_A_WIRE_PORT_MIN, &st->port_min);
	kc_get_u32(tb, KAV_A_WIRE_PORT_MAX, &st->port_max);
	if (!st->port_min)
		st->port_max = 0;
	st->has_mark = kc_get_u32(tb, KAV_A_WIRE_MARK, &st->mark);
	w->has_passed = kc_get_u64(tb, KAV_A_WIRE_PASSED, &w->passed);
	w->has_aborts = kc_get_u64(tb, KAV_A_WIRE_ABORTS, &w->aborts);
	if (tb[KAV_A_WIRE_DROP_COUNTS]) {
		n = (size_t)nla_len(tb[KAV_A_WIRE_DROP_COUNTS]) / 8;
		for (i = 0; i < n && i < WIRE_DROPS_SHOWN; i++)
			memcpy(&w->drops[i],
			       (const char *)nla_data(tb[KAV_A_WIRE_DROP_COUNTS]) +
			       8 * i, 8);
		w->nr_drops = i;
	}
	/* KAV_A_WIRE_NET repeats: @tb has the last one only. */
	nla_for_each_attr(nla, w->nl->msg_attrs, w->nl->msg_attrs_len, rem) {
		if (nla_type(nla) != KAV_A_WIRE_NET)
			continue;
		if (st->nr_nets == KAV_WIRE_NETS_MAX) {
			st->too_many = true;
			continue;
		}
		/* Validated: at least a struct kav_wire_net. */
		memcpy(&st->nets[st->nr_nets++], nla_data(nla),
		       sizeof(struct kav_wire_net));
	}
	return 0;
}

/* WIRE_GET into @w. 0, or an exit code (said). */
static int wire_get(struct kc_nl *nl, struct wire_info *w)
{
	memset(w, 0, sizeof(*w));
	w->nl = nl;
	if (kc_nl_request(nl, kc_nl_msg(nl, KAV_GENL_CMD_WIRE_GET, 0), on_wire,
			  w))
		return kc_nl_report(nl);
	if (!w->seen) {
		kc_err("%s: the kernel sent no reply to WIRE_GET", nl->what);
		return KC_EXIT_FAIL;
	}
	return KC_EXIT_OK;
}

/* ----------------------------------------------------------------- show */

static const char *mode_text(const struct wire_info *w, char *buf,
			     size_t len)
{
	const char *s;

	if (!w->has_mode)
		return "-";
	s = kc_wire_mode_name(w->st.mode);
	if (s)
		return s;
	snprintf(buf, len, "%u", w->st.mode);
	return buf;
}

static void show_json(const struct wire_info *w)
{
	const struct kc_wire_state *st = &w->st;
	char buf[KC_WIRE_NET_TEXT];
	struct kc_json j;
	const char *s;
	size_t i;

	kc_json_init(&j, stdout, true);
	kc_json_open_object(&j);
	kc_json_key(&j, "wire");
	kc_json_open_object(&j);
	s = kc_wire_mode_name(st->mode);
	if (!w->has_mode)
		kc_json_kv_null(&j, "mode");
	else if (s)
		kc_json_kv_string(&j, "mode", s);
	else
		kc_json_kv_u64(&j, "mode", st->mode);
	if (st->port_min) {
		kc_json_kv_u64(&j, "port_min", st->port_min);
		kc_json_kv_u64(&j, "port_max", st->port_max);
	} else {
		kc_json_kv_null(&j, "port_min");
		kc_json_kv_null(&j, "port_max");
	}
	if (st->has_mark)
		kc_json_kv_u64(&j, "mark", st->mark);
	else
		kc_json_kv_null(&j, "mark");
	kc_json_key(&j, "scope");
	kc_json_open_array(&j);
	for (i = 0; i < st->nr_nets; i++) {
		if (st->nets[i].flags & KAV_WIRE_NET_EXEMPT)
			continue;
		kc_wire_format_prefix(&st->nets[i], buf, sizeof(buf));
		kc_json_string(&j, buf);
	}
	kc_json_close_array(&j);
	kc_json_key(&j, "exempt");
	kc_json_open_array(&j);
	for (i = 0; i < st->nr_nets; i++) {
		if (!(st->nets[i].flags & KAV_WIRE_NET_EXEMPT))
			continue;
		kc_wire_format_prefix(&st->nets[i], buf, sizeof(buf));
		kc_json_open_object(&j);
		kc_json_kv_string(&j, "prefix", buf);
		kc_json_kv_u64(&j, "port", st->nets[i].port);
		/* "any": both; a protocol kavctl does not know: its number. */
		s = kc_wire_proto_name(st->nets[i].protocol);
		if (s)
			kc_json_kv_string(&j, "protocol", s);
		else
			kc_json_kv_u64(&j, "protocol", st->nets[i].protocol);
		kc_json_close_object(&j);
	}
	kc_json_close_array(&j);
	if (w->has_passed)
		kc_json_kv_u64(&j, "passed", w->passed);
	else
		kc_json_kv_null(&j, "passed");
	kc_json_key(&j, "drops");
	if (!w->nr_drops) {
		kc_json_null(&j);
	} else {
		kc_json_open_object(&j);
		for (i = 0; i < w->nr_drops; i++) {
			s = kc_wire_drop_name((uint32_t)i, true);
			if (!s) {
				snprintf(buf, sizeof(buf), "reason_%zu", i);
				s = buf;
			}
			kc_json_kv_u64(&j, s, w->drops[i]);
		}
		kc_json_close_object(&j);
	}
	if (w->has_aborts)
		kc_json_kv_u64(&j, "aborts", w->aborts);
	else
		kc_json_kv_null(&j, "aborts");
	kc_json_close_object(&j);
	kc_json_close_object(&j);
	kc_json_end(&j);
}

/* "label value" lines, as stats prints its counters. */
static const struct kc_column line_cols[] = {
	{ "FIELD", "field", KC_COL_STR, KC_COL_DEFAULT, "field" },
	{ "VALUE", "value", KC_COL_STR, KC_COL_DEFAULT, "value" },
};

#define LINE(label, ...) do {					\
		if (kc_out_row(o) == 0) {			\
			kc_out_set(o, 0, "%s", label);		\
			kc_out_set(o, 1, __VA_ARGS__);		\
		}						\
	} while (0)

static void show_lines(struct kc_out *o, const struct wire_info *w)
{
	const struct kc_wire_state *st = &w->st;
	char buf[KC_WIRE_NET_TEXT + 32], label[64];
	size_t i, nr_scope = 0;

	for (i = 0; i < st->nr_nets; i++)
		if (!(st->nets[i].flags & KAV_WIRE_NET_EXEMPT))
			nr_scope++;
	LINE("mode", "%s%s", mode_text(w, buf, sizeof(buf)),
	     w->has_mode && st->mode == KAV_WIRE_OFF ?
	     " (nothing is checked)" : "");
	kc_wire_format_ports(st->port_min, st->port_max, buf, sizeof(buf));
	LINE("ports", "%s%s", buf, st->port_min ? "" : " (every port)");
	if (st->has_mark)
		LINE("mark", "0x%08x", st->mark);
	if (!nr_scope)
		LINE("scope", "none (nothing is checked)");
	for (i = 0; i < st->nr_nets; i++) {
		if (st->nets[i].flags & KAV_WIRE_NET_EXEMPT)
			continue;
		kc_wire_format_prefix(&st->nets[i], buf, sizeof(buf));
		LINE("scope", "%s", buf);
	}
	for (i = 0; i < st->nr_nets; i++) {
		const struct kav_wire_net *n = &st->nets[i];

		if (!(n->flags & KAV_WIRE_NET_EXEMPT))
			continue;
		kc_wire_format_exempt(n, buf, sizeof(buf));
		LINE("exempt", "%s", buf);
	}
	if (w->has_passed)
		LINE("passed", "%" PRIu64, w->passed);
	for (i = 0; i < w->nr_drops; i++) {
		const char *s = kc_wire_drop_name((uint32_t)i, false);

		if (s)
			snprintf(label, sizeof(label), "dropped, %s", s);
		else
			snprintf(label, sizeof(label), "dropped, reason %zu", i);
		LINE(label, "%" PRIu64, w->drops[i]);
	}
	if (w->has_aborts)
		LINE("aborts", "%" PRIu64, w->aborts);
}

static int show(const struct kc_cmd *cmd, const struct wire_info *w)
{
	struct kc_cmd lc;
	struct kc_out out;
	int ret;

	if (w->st.too_many)
		kc_warn("wire show: the kernel reported more than %d nets: the first %d are shown",
			KAV_WIRE_NETS_MAX, KAV_WIRE_NETS_MAX);
	if (cmd->json) {
		show_json(w);
		return KC_EXIT_OK;
	}
	lc = *cmd;
	lc.noheadings = true;
	ret = kc_out_begin(&out, &lc, "wire", line_cols, 2);
	if (ret)
		return ret;
	show_lines(&out, w);
	return kc_out_end(&out, true);
}

int kc_wire_show(const struct kc_cmd *cmd)
{
	static struct wire_info w;
	struct kc_nl nl;
	int ret;

	if (cmd->columns) {
		kc_err("wire show: -o: this command prints no listing");
		return KC_EXIT_USAGE;
	}
	ret = kc_nl_open(&nl, "wire show");
	if (ret)
		return ret;
	ret = wire_get(&nl, &w);
	kc_nl_close(&nl);
	if (ret)
		return ret;
	return show(cmd, &w);
}

int kc_wire_show_reply(const struct kc_cmd *cmd, struct nl_msg *reply)
{
	static struct wire_info w;
	struct nlattr *tb[KAV_A_MAX + 1];
	struct genlmsghdr *g;
	struct kc_nl nl;
	uint8_t c;

	if (kc_nl_parse(reply, &c, tb))
		return KC_EXIT_FAIL;
	memset(&nl, 0, sizeof(nl));
	memset(&w, 0, sizeof(w));
	g = nlmsg_data(nlmsg_hdr(reply));
	nl.msg_attrs = genlmsg_attrdata(g, 0);
	nl.msg_attrs_len = genlmsg_attrlen(g, 0);
	w.nl = &nl;
	on_wire(c, tb, &w);
	return show(cmd, &w);
}

/* ------------------------------------------------------------ requests */

static int put_set(struct nl_msg *msg, const struct kc_wire_set *set)
{
	if (set->has_mode && nla_put_u32(msg, KAV_A_WIRE_MODE, set->mode))
		return -1;
	/* No range: PORT_MIN 0 alone. */
	if (set->has_ports &&
	    (nla_put_u32(msg, KAV_A_WIRE_PORT_MIN, set->port_min) ||
	     (set->port_min &&
	      nla_put_u32(msg, KAV_A_WIRE_PORT_MAX, set->port_max))))
		return -1;
	if (set->has_mark && nla_put_u32(msg, KAV_A_WIRE_MARK, set->mark))
		return -1;
	return 0;
}

static int wire_set_request(struct kc_nl *nl, const struct kc_wire_set *set)
{
	struct nl_msg *msg = kc_nl_msg(nl, KAV_GENL_CMD_WIRE_SET, 0);

	if (!msg || put_set(msg, set)) {
		nlmsg_free(msg);
		kc_err("%s: out of memory", nl->what);
		return KC_EXIT_FAIL;
	}
	if (kc_nl_request(nl, msg, NULL, NULL))
		return kc_nl_report(nl);
	return KC_EXIT_OK;
}

/* WIRE_NET_ADD (@add) or WIRE_NET_DEL of @n. */
static int wire_net_request(struct kc_nl *nl, bool add,
			    const struct kav_wire_net *n)
{
	struct nl_msg *msg = kc_nl_msg(nl, add ? KAV_GENL_CMD_WIRE_NET_ADD :
				       KAV_GENL_CMD_WIRE_NET_DEL, 0);
	char desc[KC_WIRE_NET_TEXT + 16];

	if (!msg || nla_put(msg, KAV_A_WIRE_NET, sizeof(*n), n)) {
		nlmsg_free(msg);
		kc_err("%s: out of memory", nl->what);
		return KC_EXIT_FAIL;
	}
	if (kc_nl_request(nl, msg, NULL, NULL) == 0)
		return KC_EXIT_OK;
	kc_wire_describe_net(n, desc, sizeof(desc));
	if (!nl->extack[0] && nl->error == EEXIST && add)
		snprintf(nl->extack, sizeof(nl->extack), "%s is there already",
			 desc);
	else if (!nl->extack[0] && nl->error == ENOENT && !add)
		snprintf(nl->extack, sizeof(nl->extack), "no %s%s", desc,
			 n->flags & KAV_WIRE_NET_EXEMPT ?
			 " (an exemption is deleted by its prefix, port and protocol as wire show lists them)" :
			 "");
	else if (nl->error == EINVAL && add && n->protocol &&
		 strstr(nl->extack, "reserved"))
		/* A module before exemptions by protocol: a reserved byte. */
		snprintf(nl->extack, sizeof(nl->extack),
			 "%s: this kav module has no exemptions by protocol (proto needs a newer one)",
			 desc);
	else if (!nl->extack[0] && nl->error == ENOSPC && add)
		snprintf(nl->extack, sizeof(nl->extack),
			 "the kernel holds %d scope prefixes and exemptions at most",
			 KAV_WIRE_NETS_MAX);
	return kc_nl_report(nl);
}

int kc_wire_set(const struct kc_cmd *cmd)
{
	struct kc_nl nl;
	int ret;

	ret = kc_nl_open(&nl, "wire set");
	if (ret)
		return ret;
	ret = wire_set_request(&nl, &cmd->wire.set);
	kc_nl_close(&nl);
	return ret;
}

int kc_wire_net(const struct kc_cmd *cmd)
{
	bool add = cmd->op == KC_OP_WIRE_NET_ADD;
	const struct kc_wire_cmd *w = &cmd->wire;
	char what[KC_WIRE_NET_TEXT + 32], p[KC_WIRE_NET_TEXT];
	int ret, worst = KC_EXIT_OK;
	struct kc_nl nl;
	size_t i;

	ret = kc_nl_open(&nl, add ? "wire add" : "wire del");
	if (ret)
		return ret;
	/* Each its own request; a failure is said and the rest still made. */
	for (i = 0; i < w->nr_nets; i++) {
		const struct kav_wire_net *n = &w->nets[i];

		if (n->flags & KAV_WIRE_NET_EXEMPT)
			kc_wire_format_exempt(n, p, sizeof(p));
		else
			kc_wire_format_prefix(n, p, sizeof(p));
		snprintf(what, sizeof(what), "wire %s %s %s",
			 n->flags & KAV_WIRE_NET_EXEMPT ? "exempt" : "scope",
			 add ? "add" : "del", p);
		nl.what = what;
		ret = wire_net_request(&nl, add, n);
		if (ret && !worst)
			worst = ret;
	}
	kc_nl_close(&nl);
	return worst;
}

/* ---------------------------------------------------------------- apply */

/*
 * Reads @path into @st if only @owner may write it (as grants.d's files:
 * a regular file, not a symbolic link, not writable by group or others).
 * Returns the number of errors (said, but for *@missing: @path does not
 * exist).
 */
static unsigned int wire_conf_load(const char *path, uid_t owner,
				   struct kc_wire_state *st, bool *missing)
{
	char why[256];
	unsigned int nr;
	FILE *f;
	int fd;

	*missing = false;
	fd = kc_conf_open_file(AT_FDCWD, path, owner, why, sizeof(why));
	if (fd < 0) {
		*missing = access(path, F_OK) != 0 && errno == ENOENT;
		if (!*missing)
			kc_err("%s: not read: %s (only a regular file owned by root and not writable by group or others is)",
			       path, why);
		return 1;
	}
	f = fdopen(fd, "r");
	if (!f) {
		kc_err("%s: cannot read it: %s", path, strerror(errno));
		close(fd);
		return 1;
	}
	nr = kc_wire_conf_read(f, path, st);
	fclose(f);
	return nr;
}

int kc_wire_apply(const struct kc_cmd *cmd)
{
	const struct kc_wire_cmd *wc = &cmd->wire;
	static struct kc_wire_step steps[KC_WIRE_STEPS_MAX];
	static struct kc_wire_state want;
	unsigned int nerr, n_add = 0, n_del = 0, n_set = 0, n_done = 0;
	char desc[KC_WIRE_NET_TEXT + 128], at[KC_PATH_MAX + 32];
	char what[KC_WIRE_NET_TEXT + 128 + KC_PATH_MAX + 64];
	static struct wire_info w;
	size_t i, n, nr_scope = 0;
	struct kc_nl nl;
	bool missing;
	int ret = KC_EXIT_OK;

	/* 1. The whole file is read and checked before anything changes. */
	kc_wire_state_init(&want);
	nerr = wire_conf_load(wc->file, KC_CONF_OWNER, &want, &missing);
	if (missing && !wc->has_file) {
		printf("nothing to apply: %s does not exist\n", wc->file);
		return KC_EXIT_OK;
	}
	if (missing)
		kc_err("%s: does not exist", wc->file);
	if (nerr) {
		kc_err("wire apply: %u error%s in %s: nothing changed", nerr,
		       nerr == 1 ? "" : "s", wc->file);
		return KC_EXIT_USAGE;
	}
	for (i = 0; i < want.nr_nets; i++)
		if (!(want.nets[i].flags & KAV_WIRE_NET_EXEMPT))
			nr_scope++;
	if (want.mode != KAV_WIRE_OFF && !nr_scope)
		kc_warn("wire apply: %s: mode %s without a scope prefix: nothing is checked",
			wc->file, kc_wire_mode_name(want.mode));

	/* 2. What the kernel has. */
	ret = kc_nl_open(&nl, "wire apply");
	if (ret)
		return ret;
	ret = wire_get(&nl, &w);
	if (ret)
		goto out;
	if (w.st.too_many || !w.has_mode) {
		kc_err("wire apply: the kernel's WIRE_GET reply %s: nothing changed",
		       w.st.too_many ? "holds more nets than kavctl knows" :
		       "has no mode");
		ret = KC_EXIT_FAIL;
		goto out;
	}

	/* 3. The plan, in its order; the first refusal stops it. */
	n = kc_wire_plan(&want, &w.st, steps);
	for (i = 0; i < n; i++) {
		const struct kc_wire_step *s = &steps[i];
		const char *verb;

		kc_wire_describe_step(s, &w.st, desc, sizeof(desc));
		if (s->line)
			snprintf(at, sizeof(at), " (%s:%u)", wc->file, s->line);
		else
			at[0] = '\0';
		switch (s->op) {
		case KC_WIRE_STEP_ADD:
			verb = wc->dry_run ? "add" : "added";
			n_add++;
			break;
		case KC_WIRE_STEP_DEL:
			verb = wc->dry_run ? "delete" : "deleted";
			n_del++;
			break;
		default:
			verb = wc->dry_run ? "set" : "changed";
			n_set++;
			break;
		}
		if (!wc->dry_run) {
			snprintf(what, sizeof(what), "wire apply: %s%s", desc,
				 at);
			nl.what = what;
			ret = s->op == KC_WIRE_STEP_SET ?
			      wire_set_request(&nl, &s->set) :
			      wire_net_request(&nl, s->op == KC_WIRE_STEP_ADD,
					       &s->net);
			if (ret) {
				kc_err("wire apply: stopped after %u of %zu changes (what follows depends on it)",
				       n_done, n);
				goto out;
			}
			n_done++;
		}
		printf("%s %s%s\n", verb, desc, at);
	}
	if (wc->dry_run)
		printf("dry run: %u to add, %u to delete, %u setting change%s; nothing changed\n",
		       n_add, n_del, n_set, n_set == 1 ? "" : "s");
	else if (!n)
		printf("unchanged: the wire is as %s says\n", wc->file);
	else
		printf("%u added, %u deleted, %u setting change%s\n", n_add,
		       n_del, n_set, n_set == 1 ? "" : "s");
out:
	kc_nl_close(&nl);
	return ret;
}
