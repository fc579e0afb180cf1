// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kavctl apply [--dry-run] [--prune] [--dir DIR]: makes the kernel's
 * grants match the files of /etc/kav/grants.d (conf.h, kavctl(8)).
 *
 * 1. Every file is read and every line resolved (names, cgroups, network
 *    namespaces), --dry-run or not: the same kc_conf_load(). A file that
 *    is not trusted (conf.h: a symbolic link, not owned by root, writable
 *    by group or others) is skipped and is an error. Any error: nothing
 *    is changed, exit 1 (conf_usable()).
 * 2. The live grants are dumped (again if the dump was interrupted).
 * 3. Each line is matched with a live grant of the same vni, selector and
 *    tag: none is "add" (GRANT_ADD with the tag), one with other limits is
 *    "update" (GRANT_SET of both limits: the same grant id, nothing
 *    revoked), one with the same limits is "unchanged". A line whose
 *    "wire" differs from the grant's is an update by GRANT_ADD (which
 *    updates a grant of the same key, selector and tag in place, wire
 *    flag and limits; GRANT_SET does not take the flag).
 * 4. With --prune, every live grant whose tag starts with "grants.d/"
 *    and that no line matched is revoked, after the adds and updates (so
 *    a line moved between files never leaves a gap). Grants with other
 *    tags (Slurm's "slurm-JOBID"), or none, are never touched.
 *
 * One line per action, then a summary. Exit 0, or 1 (a file is wrong;
 * nothing changed), 2 (module not loaded), 3 (the kernel refused an
 * action: the others are still made), 4 (no CAP_NET_ADMIN).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "grant.h"
#include "nl.h"

static bool same_grant(const struct kc_conf_grant *c,
		       const struct kc_grant *g)
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

static void describe_live(const struct kc_grant *g, char *buf, size_t len)
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
	if (o < len && g->wire)
		o += (size_t)snprintf(buf + o, len - o, " wire");
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

/*
 * The messages of the requests about line @c (or grant @id) start with
 * "apply: FILE:LINE: grant ID"; @buf holds that prefix.
 */
static void say_what(struct kc_nl *nl, const struct kc_conf_grant *c,
		     uint32_t id, char *buf, size_t len)
{
	if (c && id)
		snprintf(buf, len, "apply: %s:%u: grant %u", c->file, c->line,
			 id);
	else if (c)
		snprintf(buf, len, "apply: %s:%u", c->file, c->line);
	else
		snprintf(buf, len, "apply: grant %u", id);
	nl->what = buf;
}

/* Line @c as a GRANT_ADD: its tag, and its limits other than 0 (none). */
static void line_spec(const struct kc_conf_grant *c,
		      struct kc_grant_spec *spec)
{
	*spec = c->spec;
	spec->max_entries = want_entries(c);
	spec->has_max_entries = spec->max_entries != 0;
	spec->max_avs = want_avs(c);
	spec->has_max_avs = spec->max_avs != 0;
	spec->has_tag = true;
	snprintf(spec->tag, sizeof(spec->tag), "%s", c->tag);
}

/*
 * May what was read from @dir be applied? All or nothing (kavctl(8)): an
 * error anywhere, a skipped file or an untrusted directory included,
 * changes nothing, because a file that was left out would leave its
 * grants unmade and --prune would revoke them. Says why not.
 */
static bool conf_usable(const struct kc_conf *c, const char *dir)
{
	if (!c->nr_errors)
		return true;
	if (c->dir_untrusted)
		kc_err("apply: nothing read from %s: nothing changed", dir);
	else if (c->nr_skipped)
		kc_err("apply: %u error%s in %s, %u skipped file%s (only regular files owned by root and not writable by group or others are read): nothing changed",
		       c->nr_errors, c->nr_errors == 1 ? "" : "s", dir,
		       c->nr_skipped, c->nr_skipped == 1 ? "" : "s");
	else
		kc_err("apply: %u error%s in %s: nothing changed",
		       c->nr_errors, c->nr_errors == 1 ? "" : "s", dir);
	return false;
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
	struct kc_grant *live = NULL;
	struct kc_grant_spec spec;
	size_t n_live = 0;
	bool *matched = NULL;
	struct apply_opts o;
	struct kc_conf conf;
	struct kc_nl nl;
	char desc[KC_PATH_MAX + 256], lim[2][96], what[KC_NAME_MAX + 64];
	int ret, worst = 0;
	size_t i, j;

	ret = parse_opts(argc, argv, &o);
	if (ret) {
		fputs(apply_usage, ret > 0 ? stdout : stderr);
		return ret > 0 ? KC_EXIT_OK : KC_EXIT_USAGE;
	}

	/* 1. Everything is read and resolved before anything changes. */
	if (kc_conf_load(o.dir, KC_CONF_OWNER, &conf))
		return KC_EXIT_FAIL;
	if (!conf_usable(&conf, o.dir)) {
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
	ret = kc_grants_dump(&nl, NULL, NULL, &live, &n_live);
	if (ret)
		goto out;
	matched = calloc(n_live ? n_live : 1, sizeof(*matched));
	if (!matched) {
		kc_err("apply: out of memory");
		ret = KC_EXIT_FAIL;
		goto out;
	}

	/* 3. Lines: add, update or leave. */
	for (i = 0; i < conf.n; i++) {
		const struct kc_conf_grant *c = &conf.g[i];
		const struct kc_grant *m = NULL;

		for (j = 0; j < n_live; j++) {
			if (!matched[j] && same_grant(c, &live[j])) {
				m = &live[j];
				matched[j] = true;
				break;
			}
		}
		kc_conf_describe(c, desc, sizeof(desc));
		line_spec(c, &spec);
		if (m && m->limit_entries == want_entries(c) &&
		    m->limit_avs == want_avs(c) && m->wire == c->spec.wire) {
			printf("unchanged grant %u: %s (%s:%u)\n", m->id, desc,
			       c->file, c->line);
			n_same++;
		} else if (m && m->wire != c->spec.wire) {
			bool updated = false;
			uint32_t id = m->id;

			limits_text(m->limit_entries, m->limit_avs, lim[0],
				    sizeof(lim[0]));
			limits_text(want_entries(c), want_avs(c), lim[1],
				    sizeof(lim[1]));
			/* GRANT_ADD: the same grant, its flag and limits. */
			say_what(&nl, c, m->id, what, sizeof(what));
			if (!o.dry_run &&
			    (ret = kc_grant_put(&nl, &spec, &id, &updated))) {
				n_fail++;
				worst = worst ? worst : ret;
				continue;
			}
			printf("%s grant %u: %s (%s:%u): %s, wire %s -> %s, wire %s\n",
			       o.dry_run ? "update" : "updated", id, desc,
			       c->file, c->line, lim[0], m->wire ? "yes" : "no",
			       lim[1], c->spec.wire ? "yes" : "no");
			n_upd++;
		} else if (m) {
			limits_text(m->limit_entries, m->limit_avs, lim[0],
				    sizeof(lim[0]));
			limits_text(want_entries(c), want_avs(c), lim[1],
				    sizeof(lim[1]));
			/* Both limits (0: none), not the tag: it matched. */
			spec.has_max_entries = spec.has_max_avs = true;
			spec.has_tag = false;
			say_what(&nl, c, m->id, what, sizeof(what));
			if (!o.dry_run &&
			    (ret = kc_grant_change(&nl, m->id, &spec))) {
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
			bool updated = false;
			uint32_t id = 0;

			say_what(&nl, c, 0, what, sizeof(what));
			ret = kc_grant_put(&nl, &spec, &id, &updated);
			if (ret) {
				n_fail++;
				worst = worst ? worst : ret;
				continue;
			}
			/* Made meanwhile by someone else: updated, not new. */
			if (updated)
				n_upd++;
			else
				n_add++;
			printf("%s grant %u: %s (%s:%u)\n",
			       updated ? "updated" : "added", id, desc,
			       c->file, c->line);
		}
	}

	/* 4. Grants of the files that no line produces. */
	for (j = 0; o.prune && j < n_live; j++) {
		const struct kc_grant *g = &live[j];

		if (matched[j] || !kc_conf_owns_tag(g->tag))
			continue;
		describe_live(g, desc, sizeof(desc));
		say_what(&nl, NULL, g->id, what, sizeof(what));
		/* Revoked by someone else meanwhile: what was wanted. */
		if (!o.dry_run && (ret = kc_grant_revoke(&nl, g->id, true))) {
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
	free(matched);
	free(live);
	kc_conf_free(&conf);
	return ret;
}
