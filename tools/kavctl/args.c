// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The command-line grammar:
 *
 *   kavctl [-j] [-p] [-h] [-V] OBJECT [COMMAND [ARGS]]
 *
 * Options may also follow the object. Every word is matched exactly;
 * aliases are listed in the tables below and in kavctl(8).
 */
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <mntent.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kav.h>

#include "args.h"

static const char *kc_cg_mount;

void kc_set_cgroup2_mount(const char *mount)
{
	kc_cg_mount = mount;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Is @word one of the NULL-terminated @names? */
static bool is(const char *word, const char *const *names)
{
	for (; *names; names++)
		if (strcmp(word, *names) == 0)
			return true;
	return false;
}

static const char *const w_list[] = { "list", "show", "ls", NULL };
static const char *const w_add[] = { "add", "new", "create", NULL };
static const char *const w_del[] = {
	"del", "delete", "remove", "rm", "revoke", NULL
};
/* Words that start a grant spec: "grant vni 5 uid 1000" adds. */
static const char *const w_spec[] = {
	"vni", "uid", "user", "gid", "group", "cgroup", "cgroup-id", "netns",
	"netns-pid", "max-entries", "max-avs", NULL
};
static const char *const w_grant[] = { "grant", "grants", NULL };
static const char *const w_domain[] = { "domain", "domains", NULL };
static const char *const w_av[] = { "av", "avs", NULL };
static const char *const w_entries[] = { "entries", "entry", "dump", NULL };
static const char *const w_stats[] = { "stats", "stat", "statistics", NULL };
static const char *const w_monitor[] = { "monitor", "mon", NULL };

static int parse_unsigned(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;
	int base = 10;

	if (!s || !*s || *s == '-' || *s == '+' ||
	    *s == ' ' || (*s >= '\t' && *s <= '\r')) {
		errno = EINVAL;
		return -1;
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s || *s == '-' || *s == '+' || *s == ' ') {
			errno = EINVAL;
			return -1;
		}
	} else if (s[0] == '0' && s[1]) {
		/* No octal: "010" is ambiguous, so it is refused. */
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	x = strtoull(s, &end, base);
	if (*end) {
		errno = EINVAL;
		return -1;
	}
	if (errno == ERANGE || x > max) {
		errno = ERANGE;
		return -1;
	}
	*v = x;
	return 0;
}

int kc_parse_u32(const char *s, uint32_t *v)
{
	uint64_t x;

	if (parse_unsigned(s, UINT32_MAX, &x))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int kc_parse_u64(const char *s, uint64_t *v)
{
	return parse_unsigned(s, UINT64_MAX, v);
}

/* @path without @prefix, if @prefix ends at a component boundary. */
static const char *strip_prefix(const char *path, const char *prefix)
{
	size_t len = strlen(prefix);

	while (len && prefix[len - 1] == '/')
		len--;
	if (!len || strncmp(path, prefix, len) != 0)
		return NULL;
	if (path[len] != '\0' && path[len] != '/')
		return NULL;
	return path + len;
}

int kc_cgroup_relpath(const char *path, const char *mount, char *out,
		      size_t outlen)
{
	const char *r = NULL;
	size_t o = 0;

	if (!path || !*path || !out || outlen < 2) {
		errno = outlen < 2 ? ENAMETOOLONG : EINVAL;
		return -1;
	}
	if (path[0] == '/') {
		if (mount && mount[0] == '/')
			r = strip_prefix(path, mount);
		if (!r)
			r = strip_prefix(path, KC_CGROUP2_MOUNT);
	}
	if (!r)
		r = path;

	out[o++] = '/';
	while (*r) {
		size_t n;

		while (*r == '/')
			r++;
		n = strcspn(r, "/");
		if (!n)
			break;
		if (n == 1 && r[0] == '.') {
			r += n;
			continue;
		}
		if (n == 2 && r[0] == '.' && r[1] == '.') {
			errno = EINVAL;
			return -1;
		}
		if (o + (o > 1) + n + 1 > outlen) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (o > 1)
			out[o++] = '/';
		memcpy(out + o, r, n);
		o += n;
		r += n;
	}
	out[o] = '\0';
	return 0;
}

/* nftw() has no argument for its callback: the search is kept here. */
static struct {
	uint64_t id;
	char *buf;
	size_t len;
	size_t root_len;
	bool found;
} kc_cg_search;

static int cgroup_visit(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	const char *rel = path + kc_cg_search.root_len;

	(void)ftw;
	if (type != FTW_D || (uint64_t)st->st_ino != kc_cg_search.id)
		return 0;
	if (!*rel)
		rel = "/";
	if (strlen(rel) >= kc_cg_search.len)
		return 1;
	strcpy(kc_cg_search.buf, rel);
	kc_cg_search.found = true;
	return 1;
}

int kc_cgroup_path_by_id(uint64_t id, char *buf, size_t len)
{
	size_t root_len;

	if (!kc_cg_mount || !len)
		return -1;
	root_len = strlen(kc_cg_mount);
	while (root_len > 1 && kc_cg_mount[root_len - 1] == '/')
		root_len--;
	if (root_len == 1)	/* mounted on "/" */
		root_len = 0;
	kc_cg_search.id = id;
	kc_cg_search.buf = buf;
	kc_cg_search.len = len;
	kc_cg_search.root_len = root_len;
	kc_cg_search.found = false;
	if (nftw(kc_cg_mount, cgroup_visit, 16, FTW_PHYS | FTW_MOUNT) < 0)
		return -1;
	return kc_cg_search.found ? 0 : -1;
}

int kc_find_cgroup2_mount(const char *mounts_file, char *buf, size_t len)
{
	struct mntent ent, *m;
	char line[4096];
	int ret = -1;
	FILE *f;

	f = setmntent(mounts_file, "re");
	if (!f)
		return -1;
	while ((m = getmntent_r(f, &ent, line, sizeof(line)))) {
		if (strcmp(m->mnt_type, "cgroup2") != 0)
			continue;
		if (strlen(m->mnt_dir) < len) {
			strcpy(buf, m->mnt_dir);
			ret = 0;
		}
		break;
	}
	endmntent(f);
	return ret;
}

static long nss_bufsize(int name)
{
	long n = sysconf(name);

	return n > 0 && n < (1L << 20) ? n : 16384;
}

/* Resolves a user name (or a number, if no such user) to a uid. */
static int resolve_user(const char *name, uint32_t *uid)
{
	struct passwd pw, *res = NULL;
	long n = nss_bufsize(_SC_GETPW_R_SIZE_MAX);
	char *buf = malloc(n);
	int rc;

	if (!buf)
		return -1;
	rc = getpwnam_r(name, &pw, buf, n, &res);
	if (rc == 0 && res)
		*uid = res->pw_uid;
	free(buf);
	if (rc == 0 && res)
		return 0;
	return kc_parse_u32(name, uid);
}

static int resolve_group(const char *name, uint32_t *gid)
{
	struct group gr, *res = NULL;
	long n = nss_bufsize(_SC_GETGR_R_SIZE_MAX);
	char *buf = malloc(n);
	int rc;

	if (!buf)
		return -1;
	rc = getgrnam_r(name, &gr, buf, n, &res);
	if (rc == 0 && res)
		*gid = res->gr_gid;
	free(buf);
	if (rc == 0 && res)
		return 0;
	return kc_parse_u32(name, gid);
}

#define SELECTOR_WORDS \
	"uid, user, gid, group, cgroup, cgroup-id, netns or netns-pid"

int kc_parse_grant_spec(int argc, char **argv, struct kc_grant_spec *spec,
			char *err, size_t errlen)
{
	struct kc_selector *sel = &spec->sel;
	bool has_vni = false, has_sel = false;
	int i;

	memset(spec, 0, sizeof(*spec));
	for (i = 0; i < argc; i += 2) {
		const char *kw = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool is_sel = false;

		if (!val)
			return fail(err, errlen, "'%s' needs a value", kw);

		if (strcmp(kw, "vni") == 0) {
			if (has_vni)
				return fail(err, errlen, "vni given twice");
			if (kc_parse_u32(val, &spec->vni))
				return fail(err, errlen,
					    "invalid vni '%s' (0 to 4294967295)",
					    val);
			has_vni = true;
		} else if (strcmp(kw, "max-entries") == 0) {
			if (spec->has_max_entries)
				return fail(err, errlen,
					    "max-entries given twice");
			if (kc_parse_u64(val, &spec->max_entries))
				return fail(err, errlen,
					    "invalid max-entries '%s'", val);
			spec->has_max_entries = true;
		} else if (strcmp(kw, "max-avs") == 0) {
			if (spec->has_max_avs)
				return fail(err, errlen, "max-avs given twice");
			if (kc_parse_u32(val, &spec->max_avs))
				return fail(err, errlen,
					    "invalid max-avs '%s'", val);
			spec->has_max_avs = true;
		} else if (strcmp(kw, "uid") == 0 || strcmp(kw, "gid") == 0) {
			is_sel = true;
			if (has_sel)
				break;
			sel->type = kw[0] == 'u' ? KAV_SEL_UID : KAV_SEL_GID;
			if (kc_parse_u32(val, &sel->id) || sel->id == UINT32_MAX)
				return fail(err, errlen, "invalid %s '%s'",
					    kw, val);
		} else if (strcmp(kw, "user") == 0 ||
			   strcmp(kw, "group") == 0) {
			bool user = kw[0] == 'u';

			is_sel = true;
			if (has_sel)
				break;
			sel->type = user ? KAV_SEL_UID : KAV_SEL_GID;
			if (!*val || strlen(val) >= sizeof(sel->name))
				return fail(err, errlen, "invalid %s name '%s'",
					    kw, val);
			if ((user ? resolve_user(val, &sel->id) :
				    resolve_group(val, &sel->id)) ||
			    sel->id == UINT32_MAX)
				return fail(err, errlen, "unknown %s '%s'",
					    kw, val);
			strcpy(sel->name, val);
		} else if (strcmp(kw, "cgroup") == 0) {
			is_sel = true;
			if (has_sel)
				break;
			sel->type = KAV_SEL_CGROUP;
			if (kc_cgroup_relpath(val, kc_cg_mount, sel->cgroup_path,
					      sizeof(sel->cgroup_path)))
				return fail(err, errlen,
					    "invalid cgroup path '%s'%s", val,
					    errno == ENAMETOOLONG ?
					    " (too long)" :
					    " (\"..\" is not allowed)");
		} else if (strcmp(kw, "cgroup-id") == 0) {
			is_sel = true;
			if (has_sel)
				break;
			sel->type = KAV_SEL_CGROUP;
			sel->cgroup_by_id = true;
			if (kc_parse_u64(val, &sel->cgroup_id) || !sel->cgroup_id)
				return fail(err, errlen,
					    "invalid cgroup-id '%s'", val);
		} else if (strcmp(kw, "netns") == 0) {
			int n;

			is_sel = true;
			if (has_sel)
				break;
			sel->type = KAV_SEL_NETNS;
			if (!*val)
				return fail(err, errlen, "empty netns");
			/* A bare name is a named netns, as in ip-netns(8). */
			n = snprintf(sel->netns_path, sizeof(sel->netns_path),
				     "%s%s", strchr(val, '/') ? "" :
				     "/run/netns/", val);
			if (n < 0 || (size_t)n >= sizeof(sel->netns_path))
				return fail(err, errlen, "netns path too long");
		} else if (strcmp(kw, "netns-pid") == 0) {
			uint32_t pid;

			is_sel = true;
			if (has_sel)
				break;
			sel->type = KAV_SEL_NETNS;
			if (kc_parse_u32(val, &pid) || !pid || pid > INT32_MAX)
				return fail(err, errlen,
					    "invalid netns-pid '%s'", val);
			snprintf(sel->netns_path, sizeof(sel->netns_path),
				 "/proc/%u/ns/net", pid);
		} else {
			return fail(err, errlen, "unknown argument '%s'", kw);
		}
		if (is_sel)
			has_sel = true;
	}
	if (i < argc)	/* left the loop on a second selector */
		return fail(err, errlen,
			    "only one selector per grant (%s)", SELECTOR_WORDS);
	if (!has_vni)
		return fail(err, errlen, "missing vni");
	if (!has_sel)
		return fail(err, errlen, "missing selector: one of %s",
			    SELECTOR_WORDS);
	return 0;
}

static int parse_id(const char *what, int argc, char **argv, uint32_t *id,
		    char *err, size_t errlen)
{
	if (argc < 1)
		return fail(err, errlen, "missing %s id", what);
	if (argc > 1)
		return fail(err, errlen, "unexpected argument '%s'", argv[1]);
	if (kc_parse_u32(argv[0], id))
		return fail(err, errlen, "invalid %s id '%s'", what, argv[0]);
	return 0;
}

static int no_more(int argc, char **argv, char *err, size_t errlen)
{
	if (argc > 0)
		return fail(err, errlen, "unexpected argument '%s'", argv[0]);
	return 0;
}

static int parse_grant(int argc, char **argv, struct kc_cmd *cmd,
		       char *err, size_t errlen)
{
	if (argc == 0 || is(argv[0], w_list)) {
		cmd->op = KC_OP_GRANT_LIST;
		return argc ? no_more(argc - 1, argv + 1, err, errlen) : 0;
	}
	if (is(argv[0], w_add)) {
		cmd->op = KC_OP_GRANT_ADD;
		return kc_parse_grant_spec(argc - 1, argv + 1, &cmd->grant,
					   err, errlen);
	}
	if (is(argv[0], w_spec)) {	/* "grant vni N uid U" */
		cmd->op = KC_OP_GRANT_ADD;
		return kc_parse_grant_spec(argc, argv, &cmd->grant, err,
					   errlen);
	}
	if (is(argv[0], w_del)) {
		cmd->op = KC_OP_GRANT_DEL;
		return parse_id("grant", argc - 1, argv + 1, &cmd->id, err,
				errlen);
	}
	return fail(err, errlen, "unknown grant command '%s'", argv[0]);
}

static int parse_av(int argc, char **argv, struct kc_cmd *cmd,
		    char *err, size_t errlen)
{
	if (argc == 0 || (is(argv[0], w_list) && argc == 1)) {
		cmd->op = KC_OP_AV_LIST;
		return 0;
	}
	if (is(argv[0], w_list) || is(argv[0], w_entries)) {
		/* "av show ID": the AV's entries. */
		cmd->op = KC_OP_AV_SHOW;
		return parse_id("AV", argc - 1, argv + 1, &cmd->id, err,
				errlen);
	}
	if (strcmp(argv[0], "pin") == 0) {
		cmd->op = KC_OP_AV_PIN;
		return parse_id("AV", argc - 1, argv + 1, &cmd->id, err,
				errlen);
	}
	if (strcmp(argv[0], "unpin") == 0) {
		cmd->op = KC_OP_AV_UNPIN;
		return parse_id("AV", argc - 1, argv + 1, &cmd->id, err,
				errlen);
	}
	return fail(err, errlen, "unknown av command '%s'", argv[0]);
}

static enum kc_topic topic_of(const char *word)
{
	if (is(word, w_grant) || strcmp(word, "revoke") == 0)
		return KC_TOPIC_GRANT;
	if (is(word, w_domain))
		return KC_TOPIC_DOMAIN;
	if (is(word, w_av) || is(word, w_entries))
		return KC_TOPIC_AV;
	if (is(word, w_stats))
		return KC_TOPIC_STATS;
	if (is(word, w_monitor))
		return KC_TOPIC_MONITOR;
	return KC_TOPIC_ALL;
}

/* "list grants", "show av 3", "list entries 3", "show stats". */
static int parse_list(int argc, char **argv, struct kc_cmd *cmd,
		      char *err, size_t errlen)
{
	if (argc == 0)
		return fail(err, errlen,
			    "list what? grants, domains, avs, av ID or stats");
	cmd->topic = topic_of(argv[0]);
	if (is(argv[0], w_grant)) {
		cmd->op = KC_OP_GRANT_LIST;
		return no_more(argc - 1, argv + 1, err, errlen);
	}
	if (is(argv[0], w_domain)) {
		cmd->op = KC_OP_DOMAIN_LIST;
		return no_more(argc - 1, argv + 1, err, errlen);
	}
	if (is(argv[0], w_av) || is(argv[0], w_entries)) {
		if (argc == 1 && !is(argv[0], w_entries)) {
			cmd->op = KC_OP_AV_LIST;
			return 0;
		}
		cmd->op = KC_OP_AV_SHOW;
		return parse_id("AV", argc - 1, argv + 1, &cmd->id, err,
				errlen);
	}
	if (is(argv[0], w_stats)) {
		cmd->op = KC_OP_STATS;
		return no_more(argc - 1, argv + 1, err, errlen);
	}
	return fail(err, errlen, "cannot list '%s'", argv[0]);
}

static bool is_json_opt(const char *a)
{
	return strcmp(a, "-j") == 0 || strcmp(a, "--json") == 0;
}

static bool is_pretty_opt(const char *a)
{
	return strcmp(a, "-p") == 0 || strcmp(a, "--pretty") == 0 ||
	       strcmp(a, "-jp") == 0 || strcmp(a, "-pj") == 0;
}

/* Leading options: "-j", "-p", "-jp", "--json", ... Returns -1 on error. */
static int parse_leading(int argc, char **argv, int *i, struct kc_cmd *cmd,
			 bool *help, bool *version, char *err, size_t errlen)
{
	for (; *i < argc; (*i)++) {
		const char *a = argv[*i];

		if (strcmp(a, "--") == 0) {
			(*i)++;
			return 0;
		}
		if (a[0] != '-' || a[1] == '\0')
			return 0;
		if (a[1] == '-') {
			if (strcmp(a, "--json") == 0) {
				cmd->json = true;
			} else if (strcmp(a, "--pretty") == 0) {
				cmd->json = cmd->pretty = true;
			} else if (strcmp(a, "--help") == 0) {
				*help = true;
			} else if (strcmp(a, "--version") == 0) {
				*version = true;
			} else {
				return fail(err, errlen, "unknown option '%s'",
					    a);
			}
			continue;
		}
		for (a++; *a; a++) {
			switch (*a) {
			case 'j':
				cmd->json = true;
				break;
			case 'p':
				cmd->json = cmd->pretty = true;
				break;
			case 'h':
				*help = true;
				break;
			case 'V':
				*version = true;
				break;
			default:
				return fail(err, errlen, "unknown option '-%c'",
					    *a);
			}
		}
	}
	return 0;
}

int kc_parse_argv(int argc, char **argv, struct kc_cmd *cmd,
		  char *err, size_t errlen)
{
	bool help = false, version = false;
	char **rest;
	const char *obj;
	int i = 1, n = 0, j, ret;

	memset(cmd, 0, sizeof(*cmd));
	if (err && errlen)
		err[0] = '\0';
	if (parse_leading(argc, argv, &i, cmd, &help, &version, err, errlen))
		return -1;
	if (i < argc)
		cmd->topic = topic_of(argv[i]);
	if (help) {
		cmd->op = KC_OP_HELP;
		return 0;
	}
	if (version) {
		cmd->op = KC_OP_VERSION;
		return 0;
	}
	if (i >= argc)
		return fail(err, errlen, "missing object");

	obj = argv[i++];
	/* Options after the object: -j/-p are taken anywhere, -h too. */
	rest = calloc(argc - i + 1, sizeof(*rest));
	if (!rest)
		return fail(err, errlen, "out of memory");
	for (j = i; j < argc; j++) {
		if (is_json_opt(argv[j])) {
			cmd->json = true;
		} else if (is_pretty_opt(argv[j])) {
			cmd->json = cmd->pretty = true;
		} else if (strcmp(argv[j], "-h") == 0 ||
			   strcmp(argv[j], "--help") == 0 ||
			   (n == 0 && strcmp(argv[j], "help") == 0)) {
			help = true;
		} else {
			rest[n++] = argv[j];
		}
	}

	if (strcmp(obj, "help") == 0) {
		cmd->op = KC_OP_HELP;
		cmd->topic = n ? topic_of(rest[0]) : KC_TOPIC_ALL;
		ret = 0;
	} else if (help) {
		cmd->op = KC_OP_HELP;
		ret = 0;
	} else if (strcmp(obj, "version") == 0) {
		cmd->op = KC_OP_VERSION;
		ret = no_more(n, rest, err, errlen);
	} else if (is(obj, w_grant)) {
		ret = parse_grant(n, rest, cmd, err, errlen);
	} else if (strcmp(obj, "revoke") == 0) {
		cmd->op = KC_OP_GRANT_DEL;
		ret = parse_id("grant", n, rest, &cmd->id, err, errlen);
	} else if (is(obj, w_domain)) {
		cmd->op = KC_OP_DOMAIN_LIST;
		ret = n && is(rest[0], w_list) ?
		      no_more(n - 1, rest + 1, err, errlen) :
		      n ? fail(err, errlen, "unknown domain command '%s'",
			       rest[0]) : 0;
	} else if (is(obj, w_av)) {
		ret = parse_av(n, rest, cmd, err, errlen);
	} else if (is(obj, w_stats)) {
		cmd->op = KC_OP_STATS;
		ret = n && strcmp(rest[0], "show") == 0 ?
		      no_more(n - 1, rest + 1, err, errlen) :
		      no_more(n, rest, err, errlen);
	} else if (is(obj, w_monitor)) {
		cmd->op = KC_OP_MONITOR;
		ret = no_more(n, rest, err, errlen);
	} else if (is(obj, w_list)) {
		ret = parse_list(n, rest, cmd, err, errlen);
	} else {
		ret = fail(err, errlen, "unknown object '%s'", obj);
	}
	free(rest);
	if (ret)
		cmd->op = KC_OP_NONE;
	return ret;
}
