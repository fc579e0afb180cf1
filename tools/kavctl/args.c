// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The command-line grammar:
 *
 *   kavctl [-j] [-p] [-n] [-r] [-o COLUMNS] [-h] [-V] OBJECT [COMMAND [ARGS]]
 *
 * Options may also follow the object. Objects, commands and keywords are
 * matched as iproute2 does: a word matches itself, or any word of the
 * table below that it is an unambiguous prefix of ("g l" is "grant
 * list"); an ambiguous prefix is an error that names the candidates.
 * Aliases of one meaning never make a prefix ambiguous ("de" is del and
 * delete, both "del"). Values (numbers, names, paths, tags) are never
 * matched. kavctl(8) lists every word.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <mntent.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/kav.h>

#include "args.h"

static const char *kc_cg_mount;

void kc_set_cgroup2_mount(const char *mount)
{
	kc_cg_mount = mount;
}

int kc_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

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

/*
 * getpwnam_r() and friends into a buffer that grows while they say ERANGE
 * (a group with many members outgrows sysconf's hint). Returns 0 with
 * *@found set, or -1 when out of memory.
 */
enum nss_what { NSS_PWNAM, NSS_PWUID, NSS_GRNAM, NSS_GRGID };

static int nss_lookup(enum nss_what what, const char *name, uint32_t id,
		      uint32_t *out, bool *found)
{
	bool pw = what == NSS_PWNAM || what == NSS_PWUID;
	size_t n = (size_t)nss_bufsize(pw ? _SC_GETPW_R_SIZE_MAX :
					 _SC_GETGR_R_SIZE_MAX);

	*found = false;
	for (;;) {
		struct passwd pwd, *pres = NULL;
		struct group grp, *gres = NULL;
		char *buf = malloc(n);
		int rc;

		if (!buf)
			return -1;
		switch (what) {
		case NSS_PWNAM:
			rc = getpwnam_r(name, &pwd, buf, n, &pres);
			break;
		case NSS_PWUID:
			rc = getpwuid_r(id, &pwd, buf, n, &pres);
			break;
		case NSS_GRNAM:
			rc = getgrnam_r(name, &grp, buf, n, &gres);
			break;
		default:
			rc = getgrgid_r(id, &grp, buf, n, &gres);
			break;
		}
		if (pres)
			*out = pres->pw_uid;
		else if (gres)
			*out = gres->gr_gid;
		*found = pres || gres;
		free(buf);
		if (rc != ERANGE || n >= (1U << 24))
			return 0;
		n *= 2;
	}
}

/*
 * A user (@group: a group) given by name, into @id. The name wins; a
 * number that names no user is the uid (gid) it spells only if a user
 * (group) has it, so that a typo or a deleted account is an error, not a
 * grant to a stranger ("uid N" grants any uid). Returns 0, 1 when there is
 * no such user (group), or -1 when out of memory.
 */
static int resolve_name(bool group, const char *name, uint32_t *id)
{
	bool found;
	uint32_t n;

	if (nss_lookup(group ? NSS_GRNAM : NSS_PWNAM, name, 0, id, &found))
		return -1;
	if (found)
		return 0;
	if (kc_parse_u32(name, &n))
		return 1;
	if (nss_lookup(group ? NSS_GRGID : NSS_PWUID, NULL, n, id, &found))
		return -1;
	return found ? 0 : 1;
}

int kc_netns_name_ok(const char *name)
{
	const unsigned char *p;

	if (!*name || strlen(name) > KC_NETNS_NAME_MAX ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return -1;
	for (p = (const unsigned char *)name; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f || *p == '/')
			return -1;
	return 0;
}

/* ------------------------------------------------------ wire values */

int kc_wire_parse_mode(const char *s, uint32_t *mode, char *err,
		       size_t errlen)
{
	/* As format.c's kc_wire_mode_name() names them. */
	static const char *const names[__KAV_WIRE_MODE_MAX] = {
		[KAV_WIRE_OFF] = "off",
		[KAV_WIRE_FLOWLABEL] = "flowlabel",
		[KAV_WIRE_ESP] = "esp",
	};
	uint32_t m;

	for (m = 0; m < __KAV_WIRE_MODE_MAX; m++) {
		if (names[m] && strcmp(s, names[m]) == 0) {
			*mode = m;
			return 0;
		}
	}
	return kc_fail(err, errlen,
		    "unknown wire mode '%s' (off, flowlabel or esp)", s);
}

int kc_wire_parse_port(const char *s, uint16_t *port, char *err,
		       size_t errlen)
{
	uint32_t v;

	if (kc_parse_u32(s, &v) || v < 1 || v > 65535)
		return kc_fail(err, errlen, "invalid port '%s' (1 to 65535)",
			    s);
	*port = (uint16_t)v;
	return 0;
}

int kc_wire_parse_ports(const char *s, uint32_t *min, uint32_t *max,
			char *err, size_t errlen)
{
	char buf[32];
	const char *dash;
	uint16_t lo = 0, hi = 0;

	if (strcmp(s, "none") == 0) {
		*min = *max = 0;
		return 0;
	}
	dash = strchr(s, '-');
	if (!dash) {
		if (kc_wire_parse_port(s, &lo, err, errlen))
			return -1;
		*min = *max = lo;
		return 0;
	}
	if ((size_t)(dash - s) >= sizeof(buf) || dash == s || !dash[1])
		return kc_fail(err, errlen,
			    "invalid ports '%s' (MIN-MAX, each 1 to 65535, or none)",
			    s);
	memcpy(buf, s, (size_t)(dash - s));
	buf[dash - s] = '\0';
	if (kc_wire_parse_port(buf, &lo, err, errlen) ||
	    kc_wire_parse_port(dash + 1, &hi, err, errlen))
		return -1;
	if (lo > hi)
		return kc_fail(err, errlen,
			    "ports '%s': the first (%u) is above the last (%u)",
			    s, lo, hi);
	*min = lo;
	*max = hi;
	return 0;
}

int kc_wire_parse_mark(const char *s, uint32_t *mark, char *err,
		       size_t errlen)
{
	uint32_t v;

	if (kc_parse_u32(s, &v))
		return kc_fail(err, errlen,
			    "invalid mark '%s' (a 32-bit number, 0x... for hexadecimal)",
			    s);
	if (v & KC_WIRE_MARK_KEY_MASK)
		return kc_fail(err, errlen,
			    "mark %s: its low 20 bits must be 0, they carry the wire key (0x%08x?)",
			    s, v & ~KC_WIRE_MARK_KEY_MASK);
	*mark = v;
	return 0;
}

int kc_wire_parse_proto(const char *s, uint8_t *proto, char *err,
			size_t errlen)
{
	/* As format.c's kc_wire_proto_name() names them. */
	if (strcmp(s, "tcp") == 0)
		*proto = IPPROTO_TCP;
	else if (strcmp(s, "udp") == 0)
		*proto = IPPROTO_UDP;
	else if (strcmp(s, "any") == 0)
		*proto = 0;
	else
		return kc_fail(err, errlen,
			    "unknown protocol '%s' (tcp or udp; any, or no proto: both)",
			    s);
	return 0;
}

/* A prefix length: decimal, 0..@max, no sign, no leading zero. */
static int parse_len(const char *s, unsigned int max, unsigned int *len)
{
	unsigned int v = 0;
	const char *p;

	if (!*s || (s[0] == '0' && s[1]))
		return -1;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9' || p - s > 3)
			return -1;
		v = v * 10 + (unsigned int)(*p - '0');
	}
	if (v > max)
		return -1;
	*len = v;
	return 0;
}

int kc_wire_parse_prefix(const char *s, struct kav_wire_net *n, char *err,
			 size_t errlen)
{
	char addr[INET6_ADDRSTRLEN + 8], want[INET6_ADDRSTRLEN];
	struct kav_wire_net net, masked;
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned int len, max, i;
	int family;

	memset(&net, 0, sizeof(net));
	if (!alen || alen >= sizeof(addr))
		return kc_fail(err, errlen,
			    "invalid prefix '%s' (ADDR[/LEN], IPv4 or IPv6)", s);
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(family, addr, net.addr) != 1)
		return kc_fail(err, errlen,
			    "invalid prefix '%s': '%s' is not an %s address",
			    s, addr, family == AF_INET6 ? "IPv6" : "IPv4");
	max = family == AF_INET6 ? 128 : 32;
	len = max;
	if (slash && parse_len(slash + 1, max, &len))
		return kc_fail(err, errlen,
			    "invalid prefix length in '%s' (0 to %u for %s)", s,
			    max, family == AF_INET6 ? "IPv6" : "IPv4");
	net.family = (uint16_t)family;
	net.prefix_len = (uint8_t)len;

	/* The kernel refuses bits after the prefix: say which was meant. */
	masked = net;
	for (i = 0; i < max / 8; i++) {
		unsigned int bit = i * 8;

		if (bit >= len)
			masked.addr[i] = 0;
		else if (bit + 8 > len)
			masked.addr[i] &= (uint8_t)(0xff << (bit + 8 - len));
	}
	if (memcmp(masked.addr, net.addr, sizeof(net.addr)) != 0) {
		if (!inet_ntop(family, masked.addr, want, sizeof(want)))
			want[0] = '\0';
		return kc_fail(err, errlen,
			    "prefix '%s' has bits set after its first %u (host bits): the network is %s/%u",
			    s, len, want, len);
	}
	*n = net;
	return 0;
}

bool kc_wire_net_eq(const struct kav_wire_net *a,
		    const struct kav_wire_net *b)
{
	return a->family == b->family && a->prefix_len == b->prefix_len &&
	       a->flags == b->flags && a->port == b->port &&
	       a->protocol == b->protocol &&
	       memcmp(a->addr, b->addr, sizeof(a->addr)) == 0;
}

/* ------------------------------------------------------------ words */

struct kc_word {
	const char *word;
	int id;
};

/*
 * Matches @arg against the words of @tbl (ended by a NULL word). Returns
 * the id of the word @arg is, or is the only prefix of; -1 when it is
 * none, -2 when it is a prefix of words with different ids (then @cand
 * lists them: the first word of each id).
 */
static int match_word(const char *arg, const struct kc_word *tbl,
		      char *cand, size_t candlen)
{
	const struct kc_word *w;
	int found = -1;
	size_t n = strlen(arg), o = 0;

	if (cand && candlen)
		cand[0] = '\0';
	for (w = tbl; w->word; w++)
		if (strcmp(arg, w->word) == 0)
			return w->id;
	if (!n)
		return -1;
	for (w = tbl; w->word; w++) {
		if (strncmp(arg, w->word, n) != 0)
			continue;
		if (found == -1)
			found = w->id;
		else if (found != w->id)
			found = -2;
	}
	if (found != -2 || !cand)
		return found;
	/* The candidates: the first matching word of each id. */
	for (w = tbl; w->word; w++) {
		const struct kc_word *v;
		bool seen = false;

		if (strncmp(arg, w->word, n) != 0)
			continue;
		for (v = tbl; v < w; v++)
			if (v->id == w->id && strncmp(arg, v->word, n) == 0)
				seen = true;
		if (seen)
			continue;
		o += snprintf(cand + o, o < candlen ? candlen - o : 0, "%s%s",
			      o ? ", " : "", w->word);
	}
	return -2;
}

/*
 * match_word() that explains a failure in @err: "unknown WHAT 'x'" or
 * "ambiguous WHAT 'x': a, b". Returns the id or -1.
 */
static int match(const char *arg, const struct kc_word *tbl,
		 const char *what, char *err, size_t errlen)
{
	char cand[256];
	int id = match_word(arg, tbl, cand, sizeof(cand));

	if (id == -2)
		return kc_fail(err, errlen, "ambiguous %s '%s': %s", what, arg,
			    cand);
	if (id < 0)
		return kc_fail(err, errlen, "unknown %s '%s'", what, arg);
	return id;
}

enum {
	O_GRANT = 1, O_REVOKE, O_DOMAIN, O_AV, O_STATS, O_MONITOR, O_WHOAMI,
	O_APPLY, O_HELP, O_VERSION, O_LIST, O_ENTRIES, O_WIRE,
};

static const struct kc_word objects[] = {
	{ "grant", O_GRANT }, { "grants", O_GRANT },
	{ "revoke", O_REVOKE },
	{ "domain", O_DOMAIN }, { "domains", O_DOMAIN },
	{ "av", O_AV }, { "avs", O_AV },
	{ "stats", O_STATS }, { "stat", O_STATS }, { "statistics", O_STATS },
	{ "monitor", O_MONITOR }, { "mon", O_MONITOR },
	{ "whoami", O_WHOAMI },
	{ "w", O_WHOAMI },	/* as before "wire" came: "wi" is wire */
	{ "apply", O_APPLY },
	{ "wire", O_WIRE },
	{ "help", O_HELP },
	{ "version", O_VERSION },
	{ "list", O_LIST }, { "show", O_LIST }, { "ls", O_LIST },
	{ NULL, 0 }
};

/* After "list" / "show": what to list. */
static const struct kc_word list_objects[] = {
	{ "grants", O_GRANT }, { "grant", O_GRANT },
	{ "domains", O_DOMAIN }, { "domain", O_DOMAIN },
	{ "avs", O_AV }, { "av", O_AV },
	{ "entries", O_ENTRIES }, { "entry", O_ENTRIES },
	{ "stats", O_STATS }, { "stat", O_STATS }, { "statistics", O_STATS },
	{ "wire", O_WIRE },
	{ NULL, 0 }
};

enum { C_LIST = 1, C_SHOW, C_ADD, C_DEL, C_SET, C_PIN, C_UNPIN, C_ENTRIES,
	C_SPEC };

static const struct kc_word grant_cmds[] = {
	{ "list", C_LIST }, { "ls", C_LIST },
	{ "show", C_SHOW },
	{ "add", C_ADD }, { "new", C_ADD }, { "create", C_ADD },
	{ "del", C_DEL }, { "delete", C_DEL }, { "remove", C_DEL },
	{ "rm", C_DEL }, { "revoke", C_DEL },
	{ "set", C_SET }, { "change", C_SET },
	/* "grant vni 5 uid 1000" is "grant add vni 5 uid 1000". */
	{ "vni", C_SPEC }, { "uid", C_SPEC }, { "user", C_SPEC },
	{ "gid", C_SPEC }, { "group", C_SPEC }, { "cgroup", C_SPEC },
	{ "cgroup-id", C_SPEC }, { "netns", C_SPEC }, { "netns-pid", C_SPEC },
	{ "max-entries", C_SPEC }, { "max-avs", C_SPEC }, { "tag", C_SPEC },
	{ "wire", C_SPEC },
	{ NULL, 0 }
};

static const struct kc_word av_cmds[] = {
	{ "list", C_LIST }, { "ls", C_LIST },
	{ "show", C_SHOW },
	{ "entries", C_ENTRIES }, { "entry", C_ENTRIES }, { "dump", C_ENTRIES },
	{ "pin", C_PIN }, { "unpin", C_UNPIN },
	{ NULL, 0 }
};

static const struct kc_word list_cmds[] = {
	{ "list", C_LIST }, { "show", C_LIST }, { "ls", C_LIST },
	{ NULL, 0 }
};

enum { K_VNI = 1, K_UID, K_USER, K_GID, K_GROUP, K_CGROUP, K_CGROUP_ID,
	K_NETNS, K_NETNS_PID, K_MAX_ENTRIES, K_MAX_AVS, K_TAG, K_WIRE };

/* grant add's keywords; grant set, grant list and av pin take subsets. */
static const struct kc_word spec_words[] = {
	{ "vni", K_VNI }, { "uid", K_UID }, { "user", K_USER },
	{ "gid", K_GID }, { "group", K_GROUP }, { "cgroup", K_CGROUP },
	{ "cgroup-id", K_CGROUP_ID }, { "netns", K_NETNS },
	{ "netns-pid", K_NETNS_PID }, { "max-entries", K_MAX_ENTRIES },
	{ "max-avs", K_MAX_AVS }, { "tag", K_TAG },
	{ "wire", K_WIRE },	/* a flag: no value */
	{ NULL, 0 }
};

static const struct kc_word set_words[] = {
	{ "max-entries", K_MAX_ENTRIES }, { "max-avs", K_MAX_AVS },
	{ "tag", K_TAG },
	{ NULL, 0 }
};

static const struct kc_word filter_words[] = {
	{ "vni", K_VNI }, { "tag", K_TAG },
	{ NULL, 0 }
};

static const struct kc_word tag_words[] = {
	{ "tag", K_TAG },
	{ NULL, 0 }
};

/* ---------------------------------------------------------- grant spec */

int kc_parse_tag(const char *val, char *tag, char *err, size_t errlen)
{
	const unsigned char *p;

	if (strlen(val) > KAV_TAG_MAX)
		return kc_fail(err, errlen, "tag '%s' is too long (at most %d bytes)",
			    val, KAV_TAG_MAX);
	/* As the kernel: printable ASCII, 0x20..0x7e (uapi KAV_TAG_MAX). */
	for (p = (const unsigned char *)val; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return kc_fail(err, errlen,
				    "tag: only printable ASCII (0x20..0x7e) is allowed, not byte 0x%02x",
				    *p);
	strcpy(tag, val);
	return 0;
}

#define SELECTOR_WORDS \
	"uid, user, gid, group, cgroup, cgroup-id, netns or netns-pid"

/*
 * Keyword-value pairs (and the flag "wire") from @tbl into @spec.
 * Returns 0 or -1.
 */
static int parse_pairs(int argc, char **argv, const struct kc_word *tbl,
		       struct kc_grant_spec *spec, bool *has_sel,
		       char *err, size_t errlen)
{
	struct kc_selector *sel = &spec->sel;
	int i, step;

	for (i = 0; i < argc; i += step) {
		const char *kw = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char cand[256];
		int k = match_word(kw, tbl, cand, sizeof(cand));

		if (k == -2)
			return kc_fail(err, errlen, "ambiguous argument '%s': %s",
				    kw, cand);
		if (k < 0)
			return kc_fail(err, errlen, "%s argument '%s'",
				    tbl == spec_words ? "unknown" : "unexpected",
				    kw);
		kw = NULL;
		for (const struct kc_word *w = tbl; w->word; w++)
			if (w->id == k) {
				kw = w->word;	/* the full word, for messages */
				break;
			}
		step = 2;
		if (k == K_WIRE) {
			if (spec->wire)
				return kc_fail(err, errlen, "wire given twice");
			spec->wire = true;
			step = 1;
			continue;
		}
		if (!val)
			return kc_fail(err, errlen, "'%s' needs a value", kw);
		if (k >= K_UID && k <= K_NETNS_PID) {
			if (*has_sel)
				return kc_fail(err, errlen,
					    "only one selector per grant (%s)",
					    SELECTOR_WORDS);
			*has_sel = true;
		}
		switch (k) {
		case K_VNI:
			if (spec->has_vni)
				return kc_fail(err, errlen, "vni given twice");
			if (kc_parse_u32(val, &spec->vni))
				return kc_fail(err, errlen,
					    "invalid vni '%s' (0 to 4294967295)",
					    val);
			spec->has_vni = true;
			break;
		case K_MAX_ENTRIES:
			if (spec->has_max_entries)
				return kc_fail(err, errlen,
					    "max-entries given twice");
			if (kc_parse_u64(val, &spec->max_entries))
				return kc_fail(err, errlen,
					    "invalid max-entries '%s'", val);
			spec->has_max_entries = true;
			break;
		case K_MAX_AVS:
			if (spec->has_max_avs)
				return kc_fail(err, errlen, "max-avs given twice");
			if (kc_parse_u32(val, &spec->max_avs))
				return kc_fail(err, errlen,
					    "invalid max-avs '%s'", val);
			spec->has_max_avs = true;
			break;
		case K_TAG:
			if (spec->has_tag)
				return kc_fail(err, errlen, "tag given twice");
			if (kc_parse_tag(val, spec->tag, err, errlen))
				return -1;
			spec->has_tag = true;
			break;
		case K_UID:
		case K_GID:
			sel->type = k == K_UID ? KAV_SEL_UID : KAV_SEL_GID;
			if (kc_parse_u32(val, &sel->id) || sel->id == UINT32_MAX)
				return kc_fail(err, errlen, "invalid %s '%s'",
					    kw, val);
			break;
		case K_USER:
		case K_GROUP: {
			bool user = k == K_USER;
			int r;

			sel->type = user ? KAV_SEL_UID : KAV_SEL_GID;
			if (!*val || strlen(val) >= sizeof(sel->name))
				return kc_fail(err, errlen, "invalid %s name '%s'",
					    kw, val);
			r = resolve_name(!user, val, &sel->id);
			if (r < 0)
				return kc_fail(err, errlen, "out of memory");
			if (r > 0 || sel->id == UINT32_MAX)
				return kc_fail(err, errlen,
					    "unknown %s '%s'%s", kw, val,
					    kc_parse_u32(val, &sel->id) ? "" :
					    user ? " (no user has that name or uid: 'uid N' grants a uid as it is)" :
					    " (no group has that name or gid: 'gid N' grants a gid as it is)");
			strcpy(sel->name, val);
			break;
		}
		case K_CGROUP:
			sel->type = KAV_SEL_CGROUP;
			if (kc_cgroup_relpath(val, kc_cg_mount, sel->cgroup_path,
					      sizeof(sel->cgroup_path)))
				return kc_fail(err, errlen,
					    "invalid cgroup path '%s'%s", val,
					    errno == ENAMETOOLONG ?
					    " (too long)" :
					    " (\"..\" is not allowed)");
			break;
		case K_CGROUP_ID:
			sel->type = KAV_SEL_CGROUP;
			sel->cgroup_by_id = true;
			if (kc_parse_u64(val, &sel->cgroup_id) || !sel->cgroup_id)
				return kc_fail(err, errlen,
					    "invalid cgroup-id '%s'", val);
			break;
		case K_NETNS: {
			int n;

			sel->type = KAV_SEL_NETNS;
			if (!*val)
				return kc_fail(err, errlen, "empty netns");
			/*
			 * A bare name is a named netns, as in ip-netns(8), and
			 * stays one: "..", "." or a control byte never turn it
			 * into another path.
			 */
			sel->netns_by_name = !strchr(val, '/');
			if (sel->netns_by_name && kc_netns_name_ok(val))
				return kc_fail(err, errlen,
					    "invalid netns name '%s' (a name in /run/netns: printable ASCII, no '/', not . or ..)",
					    val);
			n = snprintf(sel->netns_path, sizeof(sel->netns_path),
				     "%s%s", sel->netns_by_name ?
				     "/run/netns/" : "", val);
			if (n < 0 || (size_t)n >= sizeof(sel->netns_path))
				return kc_fail(err, errlen, "netns path too long");
			break;
		}
		case K_NETNS_PID: {
			uint32_t pid;

			sel->type = KAV_SEL_NETNS;
			if (kc_parse_u32(val, &pid) || !pid || pid > INT32_MAX)
				return kc_fail(err, errlen,
					    "invalid netns-pid '%s'", val);
			sel->netns_pid = pid;
			snprintf(sel->netns_path, sizeof(sel->netns_path),
				 "/proc/%u/ns/net", pid);
			break;
		}
		default:
			return kc_fail(err, errlen, "unknown argument '%s'", argv[i]);
		}
	}
	return 0;
}

int kc_parse_grant_spec(int argc, char **argv, struct kc_grant_spec *spec,
			char *err, size_t errlen)
{
	bool has_sel = false;

	memset(spec, 0, sizeof(*spec));
	if (parse_pairs(argc, argv, spec_words, spec, &has_sel, err, errlen))
		return -1;
	if (!spec->has_vni)
		return kc_fail(err, errlen, "missing vni");
	if (!has_sel)
		return kc_fail(err, errlen, "missing selector: one of %s",
			    SELECTOR_WORDS);
	/* What the kernel refuses too (EINVAL), said in kavctl's words. */
	if (spec->wire && spec->sel.type == KAV_SEL_GID)
		return kc_fail(err, errlen,
			    "a socket carries no groups: a gid grant cannot apply on the wire; grant the uid, the job's cgroup or the netns");
	if (spec->wire && spec->vni >= KAV_WIRE_KEY_LIMIT)
		return kc_fail(err, errlen,
			    "vni %u cannot be a wire key: wire keys are below %u (they fit the IPv6 flow label)",
			    spec->vni, KAV_WIRE_KEY_LIMIT);
	return 0;
}

static int parse_id(const char *what, int argc, char **argv, uint32_t *id,
		    char *err, size_t errlen)
{
	if (argc < 1)
		return kc_fail(err, errlen, "missing %s id", what);
	if (argc > 1)
		return kc_fail(err, errlen, "unexpected argument '%s'", argv[1]);
	if (kc_parse_u32(argv[0], id))
		return kc_fail(err, errlen, "invalid %s id '%s'", what, argv[0]);
	return 0;
}

/* "ID [keyword value]...": an id, then pairs of @tbl. */
static int parse_id_pairs(const char *what, int argc, char **argv,
			  const struct kc_word *tbl, struct kc_cmd *cmd,
			  char *err, size_t errlen)
{
	bool has_sel = false;

	if (parse_id(what, argc ? 1 : 0, argv, &cmd->id, err, errlen))
		return -1;
	return parse_pairs(argc - 1, argv + 1, tbl, &cmd->grant, &has_sel,
			   err, errlen);
}

static int no_more(int argc, char **argv, char *err, size_t errlen)
{
	if (argc > 0)
		return kc_fail(err, errlen, "unexpected argument '%s'", argv[0]);
	return 0;
}

/* grant list [vni N] [tag T] */
static int parse_grant_list(int argc, char **argv, struct kc_cmd *cmd,
			    char *err, size_t errlen)
{
	bool has_sel = false;

	cmd->op = KC_OP_GRANT_LIST;
	return parse_pairs(argc, argv, filter_words, &cmd->grant, &has_sel,
			   err, errlen);
}

static int parse_grant(int argc, char **argv, struct kc_cmd *cmd,
		       char *err, size_t errlen)
{
	int c;

	if (argc == 0)
		return parse_grant_list(0, argv, cmd, err, errlen);
	c = match(argv[0], grant_cmds, "grant command", err, errlen);
	switch (c) {
	case C_LIST:
		return parse_grant_list(argc - 1, argv + 1, cmd, err, errlen);
	case C_SHOW:
		/* "grant show" alone lists, as it always did. */
		if (argc == 1)
			return parse_grant_list(0, argv, cmd, err, errlen);
		cmd->op = KC_OP_GRANT_SHOW;
		return parse_id("grant", argc - 1, argv + 1, &cmd->id, err,
				errlen);
	case C_ADD:
		cmd->op = KC_OP_GRANT_ADD;
		return kc_parse_grant_spec(argc - 1, argv + 1, &cmd->grant,
					   err, errlen);
	case C_SPEC:
		cmd->op = KC_OP_GRANT_ADD;
		return kc_parse_grant_spec(argc, argv, &cmd->grant, err,
					   errlen);
	case C_DEL:
		cmd->op = KC_OP_GRANT_DEL;
		return parse_id("grant", argc - 1, argv + 1, &cmd->id, err,
				errlen);
	case C_SET:
		cmd->op = KC_OP_GRANT_SET;
		if (parse_id_pairs("grant", argc - 1, argv + 1, set_words, cmd,
				   err, errlen))
			return -1;
		if (!cmd->grant.has_max_entries && !cmd->grant.has_max_avs &&
		    !cmd->grant.has_tag)
			return kc_fail(err, errlen,
				    "grant set %u: nothing to set (max-entries, max-avs or tag)",
				    cmd->id);
		return 0;
	default:
		return -1;
	}
}

static int parse_av(int argc, char **argv, struct kc_cmd *cmd,
		    char *err, size_t errlen)
{
	int c;

	if (argc == 0) {
		cmd->op = KC_OP_AV_LIST;
		return 0;
	}
	c = match(argv[0], av_cmds, "av command", err, errlen);
	switch (c) {
	case C_LIST:
	case C_SHOW:
	case C_ENTRIES:
		/* "av show ID": the AV's entries. */
		if (argc == 1 && c != C_ENTRIES) {
			cmd->op = KC_OP_AV_LIST;
			return 0;
		}
		cmd->op = KC_OP_AV_SHOW;
		return parse_id("AV", argc - 1, argv + 1, &cmd->id, err,
				errlen);
	case C_PIN:
		cmd->op = KC_OP_AV_PIN;
		return parse_id_pairs("AV", argc - 1, argv + 1, tag_words, cmd,
				      err, errlen);
	case C_UNPIN:
		cmd->op = KC_OP_AV_UNPIN;
		return parse_id("AV", argc - 1, argv + 1, &cmd->id, err,
				errlen);
	default:
		return -1;
	}
}

/* ------------------------------------------------------------- wire */

enum { W_SHOW = 1, W_SET, W_SCOPE, W_EXEMPT, W_APPLY };

static const struct kc_word wire_cmds[] = {
	{ "show", W_SHOW }, { "list", W_SHOW }, { "ls", W_SHOW },
	{ "set", W_SET }, { "change", W_SET },
	{ "scope", W_SCOPE },
	{ "exempt", W_EXEMPT }, { "exemption", W_EXEMPT },
	{ "apply", W_APPLY },
	{ NULL, 0 }
};

/* After "wire scope" and "wire exempt". */
static const struct kc_word wire_net_cmds[] = {
	{ "add", C_ADD }, { "new", C_ADD },
	{ "del", C_DEL }, { "delete", C_DEL }, { "remove", C_DEL },
	{ "rm", C_DEL },
	{ "list", C_LIST }, { "show", C_LIST }, { "ls", C_LIST },
	{ NULL, 0 }
};

enum { WK_MODE = 1, WK_PORTS, WK_MARK, WK_PORT, WK_PROTO };

static const struct kc_word wire_set_words[] = {
	{ "mode", WK_MODE }, { "ports", WK_PORTS }, { "mark", WK_MARK },
	{ NULL, 0 }
};

/* What may follow an exemption's address. */
static const struct kc_word wire_exempt_words[] = {
	{ "port", WK_PORT },
	{ "p", WK_PORT },	/* as before "proto" came */
	{ "proto", WK_PROTO }, { "protocol", WK_PROTO },
	{ NULL, 0 }
};

/* wire set [mode MODE] [ports MIN-MAX|none] [mark VALUE] */
static int parse_wire_set(int argc, char **argv, struct kc_wire_set *set,
			  char *err, size_t errlen)
{
	static const char *const names[] = {
		[WK_MODE] = "mode", [WK_PORTS] = "ports", [WK_MARK] = "mark",
	};
	int i;

	for (i = 0; i < argc; i += 2) {
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		int k = match(argv[i], wire_set_words, "wire set argument", err,
			      errlen);

		if (k < 0)
			return -1;
		if (!val)
			return kc_fail(err, errlen, "'%s' needs a value",
				    names[k]);
		switch (k) {
		case WK_MODE:
			if (set->has_mode)
				return kc_fail(err, errlen, "mode given twice");
			if (kc_wire_parse_mode(val, &set->mode, err, errlen))
				return -1;
			set->has_mode = true;
			break;
		case WK_PORTS:
			if (set->has_ports)
				return kc_fail(err, errlen, "ports given twice");
			if (kc_wire_parse_ports(val, &set->port_min,
						&set->port_max, err, errlen))
				return -1;
			set->has_ports = true;
			break;
		default:
			if (set->has_mark)
				return kc_fail(err, errlen, "mark given twice");
			if (kc_wire_parse_mark(val, &set->mark, err, errlen))
				return -1;
			set->has_mark = true;
			break;
		}
	}
	if (!set->has_mode && !set->has_ports && !set->has_mark)
		return kc_fail(err, errlen,
			    "wire set: nothing to set (mode, ports or mark)");
	return 0;
}

/*
 * An exemption's "port N" and "proto tcp|udp" (either order, each once)
 * from @argv[*i + 1] on into @n; *@i is left on the last word taken.
 */
static int parse_exempt_words(int argc, char **argv, int *i,
			      struct kav_wire_net *n, char *err, size_t errlen)
{
	bool has_port = false, has_proto = false;
	int k;

	while (*i + 1 < argc) {
		k = match_word(argv[*i + 1], wire_exempt_words, NULL, 0);
		if (k != WK_PORT && k != WK_PROTO)
			return 0;
		if (*i + 2 >= argc)
			return kc_fail(err, errlen, "'%s' needs a value",
				    k == WK_PORT ? "port" : "proto");
		if (k == WK_PORT) {
			if (has_port)
				return kc_fail(err, errlen,
					    "port given twice for one address");
			if (kc_wire_parse_port(argv[*i + 2], &n->port, err,
					       errlen))
				return -1;
			has_port = true;
		} else {
			if (has_proto)
				return kc_fail(err, errlen,
					    "proto given twice for one address");
			if (kc_wire_parse_proto(argv[*i + 2], &n->protocol, err,
						errlen))
				return -1;
			has_proto = true;
		}
		*i += 2;
	}
	return 0;
}

/*
 * wire scope add|del PREFIX...
 * wire exempt add|del ADDR[/LEN] [port N] [proto tcp|udp] [ADDR...]...
 */
static int parse_wire_nets(int argc, char **argv, bool exempt,
			   struct kc_wire_cmd *w, char *err, size_t errlen)
{
	const char *what = exempt ? "wire exempt" : "wire scope";
	int i, k;
	size_t j;

	for (i = 0; i < argc; i++) {
		const char *word = argv[i];
		struct kav_wire_net n = { 0 };

		k = match_word(word, wire_exempt_words, NULL, 0);
		if ((k == WK_PORT || k == WK_PROTO) && !exempt)
			return kc_fail(err, errlen,
				    "a scope prefix has no port or protocol (the fabric's ports: wire set ports MIN-MAX; an exempted endpoint: wire exempt add)");
		if (k == WK_PORT || k == WK_PROTO)
			return kc_fail(err, errlen,
				    "'%s' follows an address: %s add ADDR[/LEN] [port N] [proto tcp|udp]",
				    k == WK_PORT ? "port" : "proto", what);
		if (w->nr_nets == KAV_WIRE_NETS_MAX)
			return kc_fail(err, errlen,
				    "at most %d prefixes (the kernel's limit)",
				    KAV_WIRE_NETS_MAX);
		if (kc_wire_parse_prefix(word, &n, err, errlen))
			return -1;
		if (exempt) {
			n.flags = KAV_WIRE_NET_EXEMPT;
			if (parse_exempt_words(argc, argv, &i, &n, err, errlen))
				return -1;
		}
		for (j = 0; j < w->nr_nets; j++) {
			char pt[16] = "", pr[16] = "";

			if (!kc_wire_net_eq(&w->nets[j], &n))
				continue;
			if (n.port)
				snprintf(pt, sizeof(pt), " port %u", n.port);
			if (n.protocol)
				snprintf(pr, sizeof(pr), " proto %s",
					 n.protocol == IPPROTO_TCP ? "tcp" : "udp");
			return kc_fail(err, errlen, "%s '%s'%s%s given twice",
				    exempt ? "exemption" : "scope prefix",
				    word, pt, pr);
		}
		w->nets[w->nr_nets++] = n;
	}
	if (!w->nr_nets)
		return kc_fail(err, errlen, "%s: missing %s", what,
			    exempt ? "address (ADDR[/LEN] [port N] [proto tcp|udp])" :
			    "prefix (ADDR[/LEN])");
	return 0;
}

/*
 * wire apply [-n|--dry-run] [FILE]: its own words, taken before the
 * options after the object are, so that -n is the dry run it is for
 * kavctl apply, not --noheadings.
 */
static int parse_wire_apply(int argc, char **argv, struct kc_cmd *cmd,
			    char *err, size_t errlen)
{
	struct kc_wire_cmd *w = &cmd->wire;
	bool words_only = false;
	int i;

	cmd->op = KC_OP_WIRE_APPLY;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!words_only) {
			if (!strcmp(a, "--")) {
				words_only = true;
				continue;
			}
			if (!strcmp(a, "-n") || !strcmp(a, "--dry-run") ||
			    !strcmp(a, "dry-run")) {
				w->dry_run = true;
				continue;
			}
			if (!strcmp(a, "-h") || !strcmp(a, "--help") ||
			    !strcmp(a, "help")) {
				cmd->op = KC_OP_HELP;
				return 0;
			}
			if (a[0] == '-' && a[1])
				return kc_fail(err, errlen,
					    "wire apply: unknown option '%s' (-n, --dry-run)",
					    a);
		}
		if (w->has_file)
			return kc_fail(err, errlen,
				    "wire apply: unexpected argument '%s' (one file)",
				    a);
		if (!*a || strlen(a) >= sizeof(w->file))
			return kc_fail(err, errlen, "wire apply: invalid file name");
		strcpy(w->file, a);
		w->has_file = true;
	}
	/* -n elsewhere is --noheadings: never a real apply for a dry one. */
	if (cmd->noheadings)
		return kc_fail(err, errlen,
			    "wire apply: this -n is --noheadings; for a dry run it comes right after 'apply': wire apply -n FILE");
	if (!w->has_file)
		snprintf(w->file, sizeof(w->file), "%s", KC_WIRE_CONF);
	return 0;
}

static int parse_wire(int argc, char **argv, struct kc_cmd *cmd,
		      char *err, size_t errlen)
{
	int c, n;

	if (argc == 0) {
		cmd->op = KC_OP_WIRE_SHOW;
		return 0;
	}
	c = match(argv[0], wire_cmds, "wire command", err, errlen);
	switch (c) {
	case W_SHOW:
		cmd->op = KC_OP_WIRE_SHOW;
		return no_more(argc - 1, argv + 1, err, errlen);
	case W_SET:
		cmd->op = KC_OP_WIRE_SET;
		return parse_wire_set(argc - 1, argv + 1, &cmd->wire.set, err,
				      errlen);
	case W_SCOPE:
	case W_EXEMPT:
		/* "wire scope" alone shows them, with the rest. */
		if (argc == 1) {
			cmd->op = KC_OP_WIRE_SHOW;
			return 0;
		}
		n = match(argv[1], wire_net_cmds, c == W_SCOPE ?
			  "wire scope command" : "wire exempt command", err,
			  errlen);
		if (n < 0)
			return -1;
		if (n == C_LIST) {
			cmd->op = KC_OP_WIRE_SHOW;
			return no_more(argc - 2, argv + 2, err, errlen);
		}
		cmd->op = n == C_ADD ? KC_OP_WIRE_NET_ADD : KC_OP_WIRE_NET_DEL;
		return parse_wire_nets(argc - 2, argv + 2, c == W_EXEMPT,
				       &cmd->wire, err, errlen);
	case W_APPLY:
		/* Options came between "wire" and "apply". */
		return parse_wire_apply(argc - 1, argv + 1, cmd, err, errlen);
	default:
		return -1;
	}
}

static enum kc_topic topic_of(const char *word)
{
	switch (match_word(word, objects, NULL, 0)) {
	case O_GRANT:
	case O_REVOKE:
		return KC_TOPIC_GRANT;
	case O_DOMAIN:
		return KC_TOPIC_DOMAIN;
	case O_AV:
		return KC_TOPIC_AV;
	case O_STATS:
		return KC_TOPIC_STATS;
	case O_MONITOR:
		return KC_TOPIC_MONITOR;
	case O_WHOAMI:
		return KC_TOPIC_WHOAMI;
	case O_APPLY:
		return KC_TOPIC_APPLY;
	case O_WIRE:
		return KC_TOPIC_WIRE;
	default:
		break;
	}
	switch (match_word(word, list_objects, NULL, 0)) {
	case O_GRANT:
		return KC_TOPIC_GRANT;
	case O_DOMAIN:
		return KC_TOPIC_DOMAIN;
	case O_AV:
	case O_ENTRIES:
		return KC_TOPIC_AV;
	case O_STATS:
		return KC_TOPIC_STATS;
	case O_WIRE:
		return KC_TOPIC_WIRE;
	default:
		return KC_TOPIC_ALL;
	}
}

/* "list grants", "show av 3", "list entries 3", "show stats". */
static int parse_list(int argc, char **argv, struct kc_cmd *cmd,
		      char *err, size_t errlen)
{
	int o;

	if (argc == 0)
		return kc_fail(err, errlen,
			    "list what? grants, domains, avs, av ID, stats or wire");
	cmd->topic = topic_of(argv[0]);
	o = match_word(argv[0], list_objects, NULL, 0);
	if (o == -1)
		return kc_fail(err, errlen, "cannot list '%s'", argv[0]);
	o = match(argv[0], list_objects, "listing", err, errlen);
	switch (o) {
	case O_GRANT:
		return parse_grant_list(argc - 1, argv + 1, cmd, err, errlen);
	case O_DOMAIN:
		cmd->op = KC_OP_DOMAIN_LIST;
		return no_more(argc - 1, argv + 1, err, errlen);
	case O_AV:
	case O_ENTRIES:
		if (argc == 1 && o == O_AV) {
			cmd->op = KC_OP_AV_LIST;
			return 0;
		}
		cmd->op = KC_OP_AV_SHOW;
		return parse_id("AV", argc - 1, argv + 1, &cmd->id, err,
				errlen);
	case O_STATS:
		cmd->op = KC_OP_STATS;
		return no_more(argc - 1, argv + 1, err, errlen);
	case O_WIRE:
		cmd->op = KC_OP_WIRE_SHOW;
		return no_more(argc - 1, argv + 1, err, errlen);
	default:
		return -1;
	}
}

/* ------------------------------------------------------------- options */

/* A long option; @next is the following word (for --output COLS). */
/* -o LIST, copied: @cmd must not point into argv. */
static int set_columns(struct kc_cmd *cmd, const char *list, char *err,
		       size_t errlen)
{
	if (strlen(list) >= sizeof(cmd->columns_buf))
		return kc_fail(err, errlen, "column list too long");
	strcpy(cmd->columns_buf, list);
	cmd->columns = cmd->columns_buf;
	return 0;
}

static int long_opt(const char *a, const char *next, bool *used_next,
		    struct kc_cmd *cmd, bool *help, bool *version,
		    char *err, size_t errlen)
{
	*used_next = false;
	if (strcmp(a, "--json") == 0) {
		cmd->json = true;
	} else if (strcmp(a, "--pretty") == 0) {
		cmd->json = cmd->pretty = true;
	} else if (strcmp(a, "--noheadings") == 0) {
		cmd->noheadings = true;
	} else if (strcmp(a, "--raw") == 0) {
		cmd->raw = true;
	} else if (strncmp(a, "--output=", 9) == 0) {
		return set_columns(cmd, a + 9, err, errlen);
	} else if (strcmp(a, "--output") == 0) {
		if (!next)
			return kc_fail(err, errlen, "option '--output' needs a column list");
		*used_next = true;
		return set_columns(cmd, next, err, errlen);
	} else if (strcmp(a, "--help") == 0) {
		*help = true;
	} else if (version && strcmp(a, "--version") == 0) {
		*version = true;
	} else {
		return kc_fail(err, errlen, "unknown option '%s'", a);
	}
	return 0;
}

/*
 * A cluster of short options ("-j", "-jn", "-o ID", "-oID"). With
 * @strict an unknown letter is an error; without (after the object) the
 * word is not an option at all and 0 is returned: "-1" is a value.
 * Returns 1 (one word used), 2 (the next one too), 0 or -1.
 */
static int short_opts(const char *a, const char *next, struct kc_cmd *cmd,
		      bool *help, bool *version, bool strict,
		      char *err, size_t errlen)
{
	const char *p;

	if (!strict) {
		for (p = a + 1; *p; p++) {
			if (*p == 'o')
				break;
			if (!strchr("jpnrh", *p))
				return 0;
		}
	}
	for (p = a + 1; *p; p++) {
		switch (*p) {
		case 'j':
			cmd->json = true;
			break;
		case 'p':
			cmd->json = cmd->pretty = true;
			break;
		case 'n':
			cmd->noheadings = true;
			break;
		case 'r':
			cmd->raw = true;
			break;
		case 'h':
			*help = true;
			break;
		case 'V':
			if (!version)
				return kc_fail(err, errlen,
					    "unknown option '-%c'", *p);
			*version = true;
			break;
		case 'o':
			if (p[1])
				return set_columns(cmd, p + 1, err, errlen) ?
				       -1 : 1;
			if (!next)
				return kc_fail(err, errlen,
					    "option '-o' needs a column list");
			return set_columns(cmd, next, err, errlen) ? -1 : 2;
		default:
			return kc_fail(err, errlen, "unknown option '-%c'", *p);
		}
	}
	return 1;
}

/* Leading options, before the object. Returns -1 on error. */
static int parse_leading(int argc, char **argv, int *i, struct kc_cmd *cmd,
			 bool *help, bool *version, char *err, size_t errlen)
{
	while (*i < argc) {
		const char *a = argv[*i];
		const char *next = *i + 1 < argc ? argv[*i + 1] : NULL;
		bool used;
		int n;

		if (strcmp(a, "--") == 0) {
			(*i)++;
			return 0;
		}
		if (a[0] != '-' || a[1] == '\0')
			return 0;
		if (a[1] == '-') {
			if (long_opt(a, next, &used, cmd, help, version, err,
				     errlen))
				return -1;
			*i += used ? 2 : 1;
			continue;
		}
		n = short_opts(a, next, cmd, help, version, true, err, errlen);
		if (n < 0)
			return -1;
		*i += n;
	}
	return 0;
}

int kc_parse_argv(int argc, char **argv, struct kc_cmd *cmd,
		  char *err, size_t errlen)
{
	bool help = false, version = false, words_only = false;
	char **rest;
	const char *obj;
	int i = 1, n = 0, j, ret, o;

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
		return kc_fail(err, errlen, "missing object");

	obj = argv[i++];
	o = match(obj, objects, "object", err, errlen);
	if (o < 0)
		return -1;
	if (o == O_APPLY) {
		/* kavctl apply parses its own words (apply.c). */
		cmd->op = KC_OP_APPLY;
		cmd->argc = argc - i;
		cmd->argv = argv + i;
		return 0;
	}
	if (o == O_WIRE && i < argc &&
	    match_word(argv[i], wire_cmds, NULL, 0) == W_APPLY) {
		/* wire apply parses its own words: -n is its dry run. */
		ret = parse_wire_apply(argc - i - 1, argv + i + 1, cmd, err,
				       errlen);
		if (ret)
			cmd->op = KC_OP_NONE;
		return ret;
	}

	/* Options after the object: recognised anywhere, -h too. */
	rest = calloc(argc - i + 1, sizeof(*rest));
	if (!rest)
		return kc_fail(err, errlen, "out of memory");
	ret = 0;
	for (j = i; j < argc; j++) {
		const char *a = argv[j];
		const char *next = j + 1 < argc ? argv[j + 1] : NULL;
		bool used;
		int k;

		if (words_only) {
			rest[n++] = argv[j];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			/* The rest are words, even "-x": "... -- tag -x". */
			words_only = true;
		} else if (n == 0 && strcmp(a, "help") == 0) {
			help = true;
		} else if (a[0] == '-' && a[1] == '-' && a[2]) {
			/* A long option; --json etc. */
			if (long_opt(a, next, &used, cmd, &help, NULL, err,
				     errlen)) {
				ret = -1;
				break;
			}
			j += used;
		} else if (a[0] == '-' && a[1] &&
			   (k = short_opts(a, next, cmd, &help, NULL, false,
					   err, errlen)) != 0) {
			if (k < 0) {
				ret = -1;
				break;
			}
			j += k - 1;
		} else {
			rest[n++] = argv[j];
		}
	}

	if (ret) {
		if (help) {	/* -h wins over whatever else is on the line */
			cmd->op = KC_OP_HELP;
			ret = 0;
		}
	} else if (o == O_HELP) {
		cmd->op = KC_OP_HELP;
		cmd->topic = n ? topic_of(rest[0]) : KC_TOPIC_ALL;
	} else if (help) {
		cmd->op = KC_OP_HELP;
	} else if (o == O_VERSION) {
		cmd->op = KC_OP_VERSION;
		ret = no_more(n, rest, err, errlen);
	} else if (o == O_GRANT) {
		ret = parse_grant(n, rest, cmd, err, errlen);
	} else if (o == O_REVOKE) {
		cmd->op = KC_OP_GRANT_DEL;
		ret = parse_id("grant", n, rest, &cmd->id, err, errlen);
	} else if (o == O_DOMAIN) {
		cmd->op = KC_OP_DOMAIN_LIST;
		if (n && match(rest[0], list_cmds, "domain command", err,
			       errlen) < 0)
			ret = -1;
		else
			ret = no_more(n ? n - 1 : 0, rest + 1, err, errlen);
	} else if (o == O_AV) {
		ret = parse_av(n, rest, cmd, err, errlen);
	} else if (o == O_STATS) {
		cmd->op = KC_OP_STATS;
		ret = n && match_word(rest[0], list_cmds, NULL, 0) == C_LIST ?
		      no_more(n - 1, rest + 1, err, errlen) :
		      no_more(n, rest, err, errlen);
	} else if (o == O_MONITOR) {
		cmd->op = KC_OP_MONITOR;
		ret = no_more(n, rest, err, errlen);
	} else if (o == O_WHOAMI) {
		cmd->op = KC_OP_WHOAMI;
		ret = no_more(n, rest, err, errlen);
	} else if (o == O_WIRE) {
		ret = parse_wire(n, rest, cmd, err, errlen);
	} else {
		ret = parse_list(n, rest, cmd, err, errlen);
	}
	free(rest);
	if (ret)
		cmd->op = KC_OP_NONE;
	return ret;
}
