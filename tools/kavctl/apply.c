// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kavctl apply [--dry-run] [--prune] [--dir DIR]: makes the kernel's
 * grants match the files of /etc/kav/grants.d (conf.h, kavctl(8)).
 *
 * 1. Every file is read and every line resolved (names, cgroups, network
 *    namespaces). Any error: nothing is changed, exit 1.
 * 2. The live grants are dumped (again if the dump was interrupted).
 * 3. Each line is matched with a live grant of the same vni, selector and
 *    tag: none is "add" (GRANT_ADD with the tag), one with other limits is
 *    "update" (GRANT_SET of both limits: the same grant id, nothing
 *    revoked), one with the same limits is "unchanged".
 * 4. With --prune, every live grant whose tag starts with "grants.d/"
 *    and that no line matched is revoked, after the adds and updates (so
 *    a line moved between files never leaves a gap). Grants with other
 *    tags (Slurm's "slurm-JOBID"), or none, are never touched.
 *
 * One line per action, then a summary. Exit 0, or 1 (a file is wrong;
 * nothing changed), 2 (module not loaded), 3 (the kernel refused an
 * action: the others are still made), 4 (no CAP_NET_ADMIN).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attrs.h"
#include "conf.h"
#include "nl.h"

struct live_grant {
	uint32_t id;
	uint32_t vni;
	uint32_t sel_type;
	uint32_t sel_id;
	uint64_t cgroup_id;
	uint64_t netns_cookie;
	uint64_t limit_entries;
	uint32_t limit_avs;
	char tag[KAV_TAG_MAX + 1];
	bool matched;
};

struct live {
	struct live_grant *g;
	size_t n, cap;
	bool oom;
};

static int on_live_grant(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct live *l = arg;
	struct live_grant *g;
	const char *tag;

	(void)cmd;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct live_grant *v = realloc(l->g, cap * sizeof(*v));

		if (!v) {
			l->oom = true;
			kc_err("apply: out of memory");
			return -1;
		}
		l->g = v;
		l->cap = cap;
	}
	g = &l->g[l->n];
	memset(g, 0, sizeof(*g));
	if (!kc_get_u32(tb, KAV_A_GRANT_ID, &g->id))
		return 0;
	kc_get_u32(tb, KAV_A_VNI, &g->vni);
	kc_get_u32(tb, KAV_A_SEL_TYPE, &g->sel_type);
	kc_get_u32(tb, KAV_A_SEL_ID, &g->sel_id);
	kc_get_u64(tb, KAV_A_SEL_CGROUP_ID, &g->cgroup_id);
	kc_get_u64(tb, KAV_A_SEL_NETNS_COOKIE, &g->netns_cookie);
	kc_get_u64(tb, KAV_A_LIMIT_ENTRIES, &g->limit_entries);
	kc_get_u32(tb, KAV_A_LIMIT_AVS, &g->limit_avs);
	tag = tb[KAV_A_TAG] ? nla_data(tb[KAV_A_TAG]) : NULL;
	if (tag && nla_len(tb[KAV_A_TAG]) > 0)
		snprintf(g->tag, sizeof(g->tag), "%.*s",
			 (int)strnlen(tag, (size_t)nla_len(tb[KAV_A_TAG])),
			 tag);
	l->n++;
	return 0;
}

/* Dumps the live grants into @l; 0 or an exit code (said). */
static int dump_live(struct kc_nl *nl, struct live *l)
{
	int tries;

	for (tries = 0; tries < 10; tries++) {
		l->n = 0;
		if (!kc_nl_request(nl, kc_nl_msg(nl, KAV_GENL_CMD_GRANT_GET,
						 NLM_F_DUMP),
				   on_live_grant, l))
			return 0;
		/* The list changed while it was dumped: again. */
		if (nl->nl_error != NLE_DUMP_INTR)
			return kc_nl_report(nl);
	}
	kc_err("apply: the grants kept changing while they were listed");
	return KC_EXIT_FAIL;
}

static bool same_grant(const struct kc_conf_grant *c,
		       const struct live_grant *g)
{
	if (c->spec.vni != g->vni || c->spec.sel.type != g->sel_type ||
	    strcmp(c->tag, g->tag) != 0)
		return false;
	switch (g->sel_type) {
	case KAV_SEL_UID:
	case KAV_SEL_GID:
		return c->sel_id == g->sel_id;
	case KAV_SEL_CGROUP:
		return c->cgroup_id == g->cgroup_id;
	case KAV_SEL_NETNS:
		return c->netns_cookie == g->netns_cookie;
	default:
		return false;
	}
}

static uint64_t want_entries(const struct kc_conf_grant *c)
{
	return c->spec.has_max_entries ? c->spec.max_entries : 0;
}

static uint32_t want_avs(const struct kc_conf_grant *c)
{
	return c->spec.has_max_avs ? c->spec.max_avs : 0;
}

static void describe_live(const struct live_grant *g, char *buf, size_t len)
{
	static const char *const sel[] = {
		[KAV_SEL_UID] = "uid", [KAV_SEL_GID] = "gid",
		[KAV_SEL_CGROUP] = "cgroup-id", [KAV_SEL_NETNS] = "netns-cookie",
	};
	const char *s = g->sel_type < sizeof(sel) / sizeof(sel[0]) &&
			sel[g->sel_type] ? sel[g->sel_type] : "selector";
	uint64_t v = g->sel_type == KAV_SEL_CGROUP ? g->cgroup_id :
		     g->sel_type == KAV_SEL_NETNS ? g->netns_cookie : g->sel_id;
	size_t o;

	o = (size_t)snprintf(buf, len, "vni %u %s %" PRIu64, g->vni, s, v);
	if (o < len && g->limit_entries)
		o += (size_t)snprintf(buf + o, len - o, " max-entries %" PRIu64,
				      g->limit_entries);
	if (o < len && g->limit_avs)
		o += (size_t)snprintf(buf + o, len - o, " max-avs %u",
				      g->limit_avs);
	if (o < len)
		snprintf(buf + o, len - o, " tag %s", g->tag);
}

static void limits_text(uint64_t e, uint32_t a, char *buf, size_t len)
{
	char es[32], as[32];

	if (e)
		snprintf(es, sizeof(es), "%" PRIu64, e);
	else
		strcpy(es, "unlimited");
	if (a)
		snprintf(as, sizeof(as), "%u", a);
	else
		strcpy(as, "unlimited");
	snprintf(buf, len, "max-entries %s, max-avs %s", es, as);
}

struct reply {
	bool has_id;
	uint32_t id;
	bool updated;
};

static int on_reply(uint8_t cmd, struct nlattr **tb, void *arg)
{
	struct reply *r = arg;

	(void)cmd;
	if (kc_get_u32(tb, KAV_A_GRANT_ID, &r->id))
		r->has_id = true;
	if (tb[KAV_A_GRANT_UPDATED])
		r->updated = true;
	return 0;
}

/* Says why the kernel refused line @c's (or grant @id's) request. */
static int report(struct kc_nl *nl, const struct kc_conf_grant *c,
		  uint32_t id)
{
	const char *what = nl->what;
	char buf[KC_NAME_MAX + 64];
	int ret;

	if (c && id)
		snprintf(buf, sizeof(buf), "apply: %s:%u: grant %u", c->file,
			 c->line, id);
	else if (c)
		snprintf(buf, sizeof(buf), "apply: %s:%u", c->file, c->line);
	else
		snprintf(buf, sizeof(buf), "apply: grant %u", id);
	nl->what = buf;
	ret = kc_nl_report(nl);
	nl->what = what;
	return ret;
}

/* GRANT_ADD of line @c; 0 or an exit code (said). */
static int do_add(struct kc_nl *nl, const struct kc_conf_grant *c,
		  struct reply *r)
{
	const struct kc_selector *s = &c->spec.sel;
	struct nl_msg *msg;
	int fd = -1, ret = 0, put;

	if (s->type == KAV_SEL_NETNS) {
		fd = open(s->netns_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			kc_err("%s:%u: netns %s: %s", c->file, c->line,
			       s->netns_path, strerror(errno));
			return KC_EXIT_FAIL;
		}
	}
	msg = kc_nl_msg(nl, KAV_GENL_CMD_GRANT_ADD, 0);
	put = !msg || nla_put_u32(msg, KAV_A_VNI, c->spec.vni) ||
	      nla_put_u32(msg, KAV_A_SEL_TYPE, s->type);
	if (!put) {
		switch (s->type) {
		case KAV_SEL_UID:
		case KAV_SEL_GID:
			put = nla_put_u32(msg, KAV_A_SEL_ID, s->id);
			break;
		case KAV_SEL_CGROUP:
			put = nla_put_string(msg, KAV_A_SEL_CGROUP_PATH,
					     s->cgroup_path);
			break;
		case KAV_SEL_NETNS:
			put = nla_put_u32(msg, KAV_A_SEL_NETNS_FD,
					  (uint32_t)fd);
			break;
		}
	}
	if (!put && want_entries(c))
		put = nla_put_u64(msg, KAV_A_LIMIT_ENTRIES, want_entries(c));
	if (!put && want_avs(c))
		put = nla_put_u32(msg, KAV_A_LIMIT_AVS, want_avs(c));
	if (!put)
		put = nla_put_string(msg, KAV_A_TAG, c->tag);
	if (put) {
		nlmsg_free(msg);
		kc_err("apply: out of memory");
		ret = KC_EXIT_FAIL;
	} else if (kc_nl_request(nl, msg, on_reply, r)) {
		ret = report(nl, c, 0);
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* GRANT_SET of grant @id's limits to line @c's; 0 or an exit code. */
static int do_set(struct kc_nl *nl, const struct kc_conf_grant *c,
		  uint32_t id)
{
	struct nl_msg *msg = kc_nl_msg(nl, KAV_GENL_CMD_GRANT_SET, 0);

	if (!msg || nla_put_u32(msg, KAV_A_GRANT_ID, id) ||
	    nla_put_u64(msg, KAV_A_LIMIT_ENTRIES, want_entries(c)) ||
	    nla_put_u32(msg, KAV_A_LIMIT_AVS, want_avs(c))) {
		nlmsg_free(msg);
		kc_err("apply: out of memory");
		return KC_EXIT_FAIL;
	}
	if (kc_nl_request(nl, msg, NULL, NULL))
		return report(nl, c, id);
	return 0;
}

static int do_del(struct kc_nl *nl, uint32_t id)
{
	struct nl_msg *msg = kc_nl_msg(nl, KAV_GENL_CMD_GRANT_DEL, 0);

	if (!msg || nla_put_u32(msg, KAV_A_GRANT_ID, id)) {
		nlmsg_free(msg);
		kc_err("apply: out of memory");
		return KC_EXIT_FAIL;
	}
	if (kc_nl_request(nl, msg, NULL, NULL)) {
		/* Revoked by someone else meanwhile: what was wanted. */
		if (nl->error == ENOENT)
			return 0;
		return report(nl, NULL, id);
	}
	return 0;
}

static const char apply_usage[] =
"Usage: kavctl apply [--dry-run] [--prune] [--dir DIR]\n"
"  Make the kernel's grants match the files DIR/*.conf (default\n"
"  " KC_GRANTS_DIR ", or $" KC_GRANTS_DIR_ENV "): add the missing\n"
"  grants, change limits in place, leave the rest alone.\n"
"  -n, --dry-run   print what would be done, change nothing\n"
"      --prune     also revoke grants tagged \"" KC_CONF_TAG_PREFIX "...\" that no\n"
"                  line of the files produces (never other grants)\n"
"  -d, --dir DIR   read DIR instead\n"
"See kavctl(8).\n";

struct apply_opts {
	bool dry_run;
	bool prune;
	const char *dir;
};

static int parse_opts(int argc, char **argv, struct apply_opts *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->dir = getenv(KC_GRANTS_DIR_ENV);
	if (!o->dir || !*o->dir)
		o->dir = KC_GRANTS_DIR;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-n") || !strcmp(a, "--dry-run") ||
		    !strcmp(a, "dry-run")) {
			o->dry_run = true;
		} else if (!strcmp(a, "--prune") || !strcmp(a, "prune")) {
			o->prune = true;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--dir") ||
			   !strcmp(a, "dir")) {
			if (++i >= argc || !*argv[i]) {
				kc_err("apply: '%s' needs a directory", a);
				return -1;
			}
			o->dir = argv[i];
		} else if (!strncmp(a, "--dir=", 6) && a[6]) {
			o->dir = a + 6;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help") ||
			   !strcmp(a, "help")) {
			return 1;
		} else {
			kc_err("apply: unknown argument '%s'", a);
			return -1;
		}
	}
	return 0;
}

int kc_apply_main(int argc, char **argv)
{
	unsigned int n_add = 0, n_upd = 0, n_same = 0, n_prune = 0, n_fail = 0;
	struct live live = { 0 };
	struct apply_opts o;
	struct kc_conf conf;
	struct kc_nl nl;
	char desc[KC_PATH_MAX + 256], lim[2][96];
	int ret, worst = 0;
	size_t i, j;

	ret = parse_opts(argc, argv, &o);
	if (ret) {
		fputs(apply_usage, ret > 0 ? stdout : stderr);
		return ret > 0 ? KC_EXIT_OK : KC_EXIT_USAGE;
	}

	/* 1. Everything is read and resolved before anything changes. */
	if (kc_conf_load(o.dir, &conf))
		return KC_EXIT_FAIL;
	if (conf.nr_errors) {
		kc_err("apply: %u error%s in %s: nothing changed",
		       conf.nr_errors, conf.nr_errors == 1 ? "" : "s", o.dir);
		kc_conf_free(&conf);
		return KC_EXIT_USAGE;
	}
	if (!conf.n && !o.prune) {
		printf("nothing to apply: %s %s\n", o.dir,
		       conf.dir_missing ? "does not exist" :
		       "holds no grants");
		kc_conf_free(&conf);
		return KC_EXIT_OK;
	}

	/* 2. What the kernel has. */
	ret = kc_nl_open(&nl, "apply");
	if (ret) {
		kc_conf_free(&conf);
		return ret;
	}
	ret = dump_live(&nl, &live);
	if (ret)
		goto out;

	/* 3. Lines: add, update or leave. */
	for (i = 0; i < conf.n; i++) {
		const struct kc_conf_grant *c = &conf.g[i];
		struct live_grant *m = NULL;

		for (j = 0; j < live.n; j++) {
			if (!live.g[j].matched && same_grant(c, &live.g[j])) {
				m = &live.g[j];
				break;
			}
		}
		kc_conf_describe(c, desc, sizeof(desc));
		if (m)
			m->matched = true;
		if (m && m->limit_entries == want_entries(c) &&
		    m->limit_avs == want_avs(c)) {
			printf("unchanged grant %u: %s (%s:%u)\n", m->id, desc,
			       c->file, c->line);
			n_same++;
		} else if (m) {
			limits_text(m->limit_entries, m->limit_avs, lim[0],
				    sizeof(lim[0]));
			limits_text(want_entries(c), want_avs(c), lim[1],
				    sizeof(lim[1]));
			if (!o.dry_run && (ret = do_set(&nl, c, m->id))) {
				n_fail++;
				worst = worst ? worst : ret;
				continue;
			}
			printf("%s grant %u: %s (%s:%u): %s -> %s\n",
			       o.dry_run ? "update" : "updated", m->id, desc,
			       c->file, c->line, lim[0], lim[1]);
			n_upd++;
		} else if (o.dry_run) {
			printf("add grant: %s (%s:%u)\n", desc, c->file,
			       c->line);
			n_add++;
		} else {
			struct reply r = { 0 };

			ret = do_add(&nl, c, &r);
			if (ret) {
				n_fail++;
				worst = worst ? worst : ret;
				continue;
			}
			/* Made meanwhile by someone else: updated, not new. */
			if (r.updated)
				n_upd++;
			else
				n_add++;
			if (r.has_id)
				printf("%s grant %u: %s (%s:%u)\n",
				       r.updated ? "updated" : "added", r.id,
				       desc, c->file, c->line);
			else
				printf("%s grant: %s (%s:%u)\n",
				       r.updated ? "updated" : "added", desc,
				       c->file, c->line);
		}
	}

	/* 4. Grants of the files that no line produces. */
	for (j = 0; o.prune && j < live.n; j++) {
		const struct live_grant *g = &live.g[j];

		if (g->matched || !kc_conf_owns_tag(g->tag))
			continue;
		describe_live(g, desc, sizeof(desc));
		if (!o.dry_run && (ret = do_del(&nl, g->id))) {
			n_fail++;
			worst = worst ? worst : ret;
			continue;
		}
		printf("%s grant %u: %s\n", o.dry_run ? "prune" : "pruned",
		       g->id, desc);
		n_prune++;
	}

	if (o.dry_run)
		printf("dry run: %u to add, %u to update, %u unchanged, %u to prune; nothing changed\n",
		       n_add, n_upd, n_same, n_prune);
	else
		printf("%u added, %u updated, %u unchanged, %u pruned\n",
		       n_add, n_upd, n_same, n_prune);
	if (n_fail)
		kc_err("apply: %u action%s failed", n_fail,
		       n_fail == 1 ? "" : "s");
	ret = worst;
out:
	kc_nl_close(&nl);
	free(live.g);
	kc_conf_free(&conf);
	return ret;
}
