// SPDX-License-Identifier: GPL-2.0
/*
 * kavctl's command line against the running module: -o / -n / -r / -j
 * listings (libsmartcols), iproute2-style prefixes, idempotent tagged
 * grants, grant set / show / list filters, av pin tags, the deny-mode
 * counter, whoami as root and as an unprivileged uid, and the errors and
 * exit statuses of kavctl(8). Runs the kavctl next to the program
 * (/tests/kavctl, or $KAV_SLURM_TOOLS/kavctl; check.sh installs it) as a
 * separate process, as an administrator or a tenant would. Needs root.
 */
#include <ctype.h>
#include <grp.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"

#define VNI_A		4100	/* uid 1000, tag kc-a */
#define VNI_PFX		4101
#define VNI_IDEM	4102
#define VNI_ROOT	4103	/* uid 0 */
#define VNI_GID		4104	/* gid 1000: uid 1000's group */
#define TENANT		1000

/* argv(...): a NULL-terminated list of words. */
#define argv(...)	((const char *const []){ __VA_ARGS__, NULL })

static const char *tools_dir(void)
{
	const char *d = getenv("KAV_SLURM_TOOLS");

	return d && *d ? d : "/tests";
}

struct out {
	int rc;
	char out[32768];	/* standard output */
	char err[8192];		/* standard error */
};

static void read_all(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	/* Drain the rest so that the child never blocks. */
	while (read(fd, (char[256]){ 0 }, 256) > 0)
		;
}

/*
 * Runs kavctl with @args as uid @uid (0: as is), with KAV_DEVICE=@dev if
 * @dev. Returns the exit status (-1 if it did not exit).
 */
static int kavctl_as(struct out *o, uid_t uid, const char *dev,
		     const char *const *args)
{
	const char *argv[64] = { "kavctl" };
	char path[512];
	int po[2], pe[2], status, i;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/kavctl", tools_dir());
	for (i = 0; args[i] && i < 62; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	memset(o, 0, sizeof(*o));
	if (pipe(po) || pipe(pe))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		if (dev)
			setenv("KAV_DEVICE", dev, 1);
		else
			unsetenv("KAV_DEVICE");
		if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
			    setresuid(uid, uid, uid)))
			_exit(126);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	/* Small outputs: stdout first, then stderr, fits the pipe buffers. */
	read_all(po[0], o->out, sizeof(o->out));
	read_all(pe[0], o->err, sizeof(o->err));
	close(po[0]);
	close(pe[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return o->rc = -1;
	return o->rc = WEXITSTATUS(status);
}

static int kavctl(struct out *o, const char *const *args)
{
	return kavctl_as(o, 0, NULL, args);
}

/* Lines of @s, without the empty last one. */
static int nlines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The @n-th whitespace-separated word of line @line of @s ("": none). */
static const char *word(const char *s, int line, int n, char *buf,
			size_t len)
{
	size_t w;

	for (; line > 0 && *s; s++)
		if (*s == '\n')
			line--;
	for (;;) {
		s += strspn(s, " \t");
		w = strcspn(s, " \t\n");
		if (!w || *s == '\n')
			return "";
		if (n-- == 0)
			break;
		s += w;
	}
	if (w >= len)
		w = len - 1;
	memcpy(buf, s, w);
	buf[w] = '\0';
	return buf;
}

/* ------------------------------------------------------ a JSON checker */

/* Just enough of RFC 8259 to tell that kavctl's documents are JSON. */
static const char *js_ws(const char *p)
{
	return p + strspn(p, " \t\r\n");
}

static const char *js_value(const char *p, int depth);

static const char *js_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)p[i]))
						return NULL;
				p += 4;
			} else if (!strchr("\"\\/bfnrt", *p) || !*p) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static const char *js_value(const char *p, int depth)
{
	if (depth > 16)
		return NULL;
	p = js_ws(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p = js_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = js_string(js_ws(p));
				if (!p)
					return NULL;
				p = js_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			p = js_value(p, depth + 1);
			if (!p)
				return NULL;
			p = js_ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (*p == '"')
		return js_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (*p == '-' || isdigit((unsigned char)*p)) {
		p += *p == '-';
		if (!isdigit((unsigned char)*p))
			return NULL;
		return p + strspn(p, "0123456789.eE+-");
	}
	return NULL;
}

/* One JSON document and nothing else. */
static bool is_json(const char *s)
{
	const char *end = js_value(s, 0);

	return end && !*js_ws(end);
}

/* The object of @doc's array member that has "grant_id": @id, as text. */
static bool json_row(const char *doc, const char *key, unsigned long id,
		     char *row, size_t len)
{
	char pat[64];
	const char *p, *a, *b;

	snprintf(pat, sizeof(pat), "\"%s\": %lu,", key, id);
	p = strstr(doc, pat);
	if (!p) {
		snprintf(pat, sizeof(pat), "\"%s\": %lu\n", key, id);
		p = strstr(doc, pat);
	}
	if (!p)
		return false;
	for (a = p; a > doc && *a != '{'; a--)
		;
	b = strchr(p, '}');
	if (!b || (size_t)(b - a + 1) >= len)
		return false;
	memcpy(row, a, (size_t)(b - a + 1));
	row[b - a + 1] = '\0';
	return true;
}

/* Does @s contain @sub? (A bool, for the harness's comparisons.) */
static bool has(const char *s, const char *sub)
{
	return strstr(s, sub) != NULL;
}

/* ------------------------------------------------------------ fixture */

FIXTURE(kc) {
	unsigned long a;		/* uid 1000, VNI_A, tag kc-a */
	unsigned long root;		/* uid 0, VNI_ROOT */
	unsigned long gid;		/* gid 1000, VNI_GID */
	mode_t dev_mode;
};

/* "grant add ..." that must succeed: the id it printed. */
static unsigned long add(struct __test_metadata *_metadata,
			 const char *const *args)
{
	struct out o;
	char *end;
	unsigned long id;

	EXPECT_EQ(0, kavctl(&o, args)) TH_LOG("%s", o.err);
	id = strtoul(o.out, &end, 10);
	EXPECT_TRUE(end != o.out && *end == '\n' && !end[1])
		TH_LOG("grant add printed '%s'", o.out);
	return id;
}

/* Revokes every grant tagged kc-* (what a failed run may have left). */
static void cleanup(void)
{
	static const char *const tags[] = {
		"kc-a", "kc-pfx", "kc-idem", "kc-idem2", "kc-root", "kc-gid",
		"kc-set2", "kc test", NULL,
	};
	struct out o;
	char buf[32], arg[32];
	int i, l;

	for (i = 0; tags[i]; i++) {
		if (kavctl(&o, argv("-rn", "-o", "ID", "grant", "list", "tag",
				    tags[i])))
			continue;
		for (l = 0; l < nlines(o.out); l++) {
			struct out d;

			if (!word(o.out, l, 0, buf, sizeof(buf)))
				continue;
			snprintf(arg, sizeof(arg), "%s", buf);
			kavctl(&d, argv("grant", "del", arg));
		}
	}
}

FIXTURE_SETUP(kc)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/kavctl", tools_dir());
	ASSERT_EQ(0, access(path, X_OK))
		TH_LOG("%s: missing (make tools; lanes/vm/vm.sh installs it)",
		       path);
	ASSERT_EQ(0, stat(kav_test_device(), &st));
	self->dev_mode = st.st_mode & 07777;
	/* Tenants open /dev/kav as the packaged udev rule lets them. */
	ASSERT_EQ(0, chmod(kav_test_device(), 0666));
	cleanup();
	self->a = add(_metadata, argv("grant", "add", "vni", "4100", "uid",
				      "1000", "max-entries", "10", "tag",
				      "kc-a"));
	self->root = add(_metadata, argv("grant", "add", "vni", "4103", "uid",
					 "0", "tag", "kc-root"));
	self->gid = add(_metadata, argv("grant", "add", "vni", "4104", "gid",
					"1000", "tag", "kc-gid"));
}

FIXTURE_TEARDOWN(kc)
{
	cleanup();
	chmod(kav_test_device(), self->dev_mode);
}

/* -o, +COLUMNS, -n, -r, -o help and unknown columns. */
TEST_F(kc, columns_headings_raw)
{
	struct out o;
	char buf[128], id[32];

	snprintf(id, sizeof(id), "%lu", self->a);
	ASSERT_EQ(0, kavctl(&o, argv("-o", "ID,VNI,TAG", "grant", "list",
				     "tag", "kc-a"))) TH_LOG("%s", o.err);
	ASSERT_EQ(2, nlines(o.out)) TH_LOG("%s", o.out);
	EXPECT_STREQ("ID", word(o.out, 0, 0, buf, sizeof(buf)));
	EXPECT_STREQ("VNI", word(o.out, 0, 1, buf, sizeof(buf)));
	EXPECT_STREQ("TAG", word(o.out, 0, 2, buf, sizeof(buf)));
	EXPECT_STREQ("", word(o.out, 0, 3, buf, sizeof(buf)));
	EXPECT_STREQ(id, word(o.out, 1, 0, buf, sizeof(buf)));
	EXPECT_STREQ("4100", word(o.out, 1, 1, buf, sizeof(buf)));
	EXPECT_STREQ("kc-a", word(o.out, 1, 2, buf, sizeof(buf)));

	/* -n: no heading; names are any case, '_' or '-'. */
	ASSERT_EQ(0, kavctl(&o, argv("grant", "list", "tag", "kc-a", "-n",
				     "-o", "id,max_entries,sel-id")));
	ASSERT_EQ(1, nlines(o.out)) TH_LOG("%s", o.out);
	EXPECT_STREQ(id, word(o.out, 0, 0, buf, sizeof(buf)));
	EXPECT_STREQ("10", word(o.out, 0, 1, buf, sizeof(buf)));
	EXPECT_STREQ("1000", word(o.out, 0, 2, buf, sizeof(buf)));

	/* The default columns, and +COLUMNS after them. */
	ASSERT_EQ(0, kavctl(&o, argv("grant", "list", "vni", "4100")));
	EXPECT_STREQ("ID", word(o.out, 0, 0, buf, sizeof(buf)));
	EXPECT_TRUE(has(o.out, "SELECTOR") && has(o.out, "TAG") &&
		    has(o.out, "MAX-ENTRIES"));
	EXPECT_FALSE(has(o.out, "SEL-TYPE"));
	EXPECT_TRUE(has(o.out, "uid 1000")) TH_LOG("%s", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("-r", "-o", "+SEL-TYPE", "grant", "list",
				     "vni", "4100")));
	EXPECT_STREQ("SELECTOR", word(o.out, 0, 2, buf, sizeof(buf)));
	EXPECT_STREQ("SEL-TYPE", word(o.out, 0, 8, buf, sizeof(buf)))
		TH_LOG("%s", o.out);
	EXPECT_STREQ("uid", word(o.out, 1, 8, buf, sizeof(buf)))
		TH_LOG("%s", o.out);
	EXPECT_STREQ("", word(o.out, 1, 9, buf, sizeof(buf))) TH_LOG("%s", o.out);

	/* -r: one space between columns, values escaped, "-" if absent. */
	ASSERT_EQ(0, kavctl(&o, argv("grant", "set", id, "tag", "kc test")))
		TH_LOG("%s", o.err);
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "ID,TAG,CGROUP-ID",
				     "grant", "show", id)));
	snprintf(buf, sizeof(buf), "%s kc\\x20test -\n", id);
	EXPECT_STREQ(buf, o.out);
	ASSERT_EQ(0, kavctl(&o, argv("grant", "set", id, "tag", "kc-a")));

	/* -o help lists the columns, without the kernel. */
	ASSERT_EQ(0, kavctl(&o, argv("grant", "list", "-o", "help")));
	EXPECT_TRUE(has(o.out, "TAG ") && has(o.out, "SEL-TYPE "));
	ASSERT_EQ(0, kavctl(&o, argv("av", "list", "-o", "help")));
	EXPECT_TRUE(has(o.out, "PINNED ") && has(o.out, "TAG "));
	ASSERT_EQ(0, kavctl(&o, argv("stats", "-o", "help")));
	EXPECT_TRUE(has(o.out, "DENY-MODE "));

	EXPECT_EQ(1, kavctl(&o, argv("-o", "ID,BOGUS", "grant", "list")));
	EXPECT_TRUE(has(o.err, "unknown column 'BOGUS'")) TH_LOG("%s", o.err);
	EXPECT_STREQ("", o.out);
	EXPECT_EQ(1, kavctl(&o, argv("grant", "list", "-o")));
	EXPECT_TRUE(has(o.err, "needs a column list")) TH_LOG("%s", o.err);
}

/* -j: one JSON document, typed values, every column unless -o. */
TEST_F(kc, json)
{
	struct out o;
	char row[4096], id[32];

	snprintf(id, sizeof(id), "%lu", self->a);
	ASSERT_EQ(0, kavctl(&o, argv("-j", "grant", "list")));
	ASSERT_TRUE(is_json(o.out)) TH_LOG("not JSON: %s", o.out);
	ASSERT_TRUE(json_row(o.out, "grant_id", self->a, row, sizeof(row)))
		TH_LOG("%s", o.out);
	EXPECT_TRUE(has(o.out, "\"grants\": ["));
	EXPECT_TRUE(has(row, "\"vni\": 4100")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"tag\": \"kc-a\"")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"max_entries\": 10")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"max_avs\": 0")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"sel_type\": \"uid\"")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"sel_id\": 1000")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"netns_cookie\": null")) TH_LOG("%s", row);

	/* -o picks the members; an empty listing is an empty array. */
	ASSERT_EQ(0, kavctl(&o, argv("grant", "show", id, "-j", "-o",
				     "ID,TAG")));
	ASSERT_TRUE(is_json(o.out)) TH_LOG("not JSON: %s", o.out);
	EXPECT_TRUE(has(o.out, "\"grant_id\": ") && has(o.out, "\"tag\": "));
	EXPECT_FALSE(has(o.out, "\"vni\""));
	ASSERT_EQ(0, kavctl(&o, argv("-j", "grant", "list", "tag",
				     "kc-none-such")));
	ASSERT_TRUE(is_json(o.out)) TH_LOG("not JSON: %s", o.out);
	EXPECT_FALSE(has(o.out, "grant_id"));

	ASSERT_EQ(0, kavctl(&o, argv("-j", "domain", "list")));
	EXPECT_TRUE(is_json(o.out)) TH_LOG("not JSON: %s", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("-j", "av", "list")));
	EXPECT_TRUE(is_json(o.out)) TH_LOG("not JSON: %s", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("-j", "stats")));
	ASSERT_TRUE(is_json(o.out)) TH_LOG("not JSON: %s", o.out);
	EXPECT_TRUE(has(o.out, "\"deny_mode\": ")) TH_LOG("%s", o.out);
	EXPECT_TRUE(has(o.out, "\"grants\": ")) TH_LOG("%s", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("stats")));
	EXPECT_TRUE(has(o.out, "denied, named AV mode bits")) TH_LOG("%s", o.out);
}

/* Prefixes: unambiguous ones match, ambiguous ones name the candidates. */
TEST_F(kc, prefixes)
{
	struct out full, o;
	unsigned long id;
	char arg[32];

	ASSERT_EQ(0, kavctl(&full, argv("-rn", "grant", "list")));
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "g", "l")));
	EXPECT_STREQ(full.out, o.out);
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "gr", "ls")));
	EXPECT_STREQ(full.out, o.out);

	id = add(_metadata, argv("gr", "a", "v", "4101", "ui", "1000", "t",
				 "kc-pfx", "max-e", "3"));
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "VNI,SEL-ID,MAX-ENTRIES,TAG",
				     "g", "l", "t", "kc-pfx")));
	EXPECT_STREQ("4101 1000 3 kc-pfx\n", o.out);
	snprintf(arg, sizeof(arg), "%lu", id);
	ASSERT_EQ(0, kavctl(&o, argv("g", "sh", arg, "-rn", "-o", "VNI")));
	EXPECT_STREQ("4101\n", o.out);

	EXPECT_EQ(1, kavctl(&o, argv("g", "s", arg)));
	EXPECT_TRUE(has(o.err, "ambiguous grant command 's': show, set"))
		TH_LOG("%s", o.err);
	EXPECT_EQ(1, kavctl(&o, argv("g", "a", "v", "4101", "u", "1000")));
	EXPECT_TRUE(has(o.err, "ambiguous argument 'u': uid, user"))
		TH_LOG("%s", o.err);
	EXPECT_EQ(1, kavctl(&o, argv("s")));
	EXPECT_TRUE(has(o.err, "ambiguous object 's': stats, show"))
		TH_LOG("%s", o.err);
	EXPECT_EQ(1, kavctl(&o, argv("grants", "frob")));
	EXPECT_TRUE(has(o.err, "unknown grant command 'frob'"))
		TH_LOG("%s", o.err);
	EXPECT_EQ(0, kavctl(&o, argv("r", arg))) TH_LOG("%s", o.err);
	EXPECT_EQ(3, kavctl(&o, argv("g", "sh", arg)));
}

/* The same vni, selector and tag: one grant, its limits updated. */
TEST_F(kc, idempotent_add)
{
	struct out o;
	unsigned long id, id2, other;
	char buf[64];

	id = add(_metadata, argv("grant", "add", "vni", "4102", "uid", "1000",
				 "tag", "kc-idem", "max-entries", "5"));
	ASSERT_EQ(0, kavctl(&o, argv("grant", "add", "vni", "4102", "uid",
				     "1000", "tag", "kc-idem", "max-entries",
				     "7", "max-avs", "2")));
	EXPECT_EQ(id, strtoul(o.out, NULL, 10)) TH_LOG("%s", o.out);
	snprintf(buf, sizeof(buf), "updated grant %lu", id);
	EXPECT_TRUE(has(o.err, buf)) TH_LOG("%s", o.err);
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "ID,MAX-ENTRIES,MAX-AVS",
				     "grant", "list", "tag", "kc-idem")));
	snprintf(buf, sizeof(buf), "%lu 7 2\n", id);
	EXPECT_STREQ(buf, o.out);

	/* -j says which; an absent limit is no limit. */
	ASSERT_EQ(0, kavctl(&o, argv("-j", "grant", "add", "vni", "4102",
				     "uid", "1000", "tag", "kc-idem")));
	ASSERT_TRUE(is_json(o.out)) TH_LOG("not JSON: %s", o.out);
	EXPECT_TRUE(has(o.out, "\"action\": \"updated\"")) TH_LOG("%s", o.out);
	snprintf(buf, sizeof(buf), "\"grant_id\": %lu", id);
	EXPECT_TRUE(has(o.out, buf)) TH_LOG("%s", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "MAX-ENTRIES,MAX-AVS",
				     "grant", "list", "tag", "kc-idem")));
	EXPECT_STREQ("unlimited unlimited\n", o.out);

	/* Another tag, or none, is another grant. */
	other = add(_metadata, argv("grant", "add", "vni", "4102", "uid",
				    "1000", "tag", "kc-idem2"));
	EXPECT_NE(id, other);
	ASSERT_EQ(0, kavctl(&o, argv("-j", "grant", "add", "vni", "4102",
				     "uid", "1000", "tag", "kc-idem2")));
	EXPECT_TRUE(has(o.out, "\"action\": \"updated\"")) TH_LOG("%s", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("grant", "add", "vni", "4102", "uid",
				     "1000")));
	id2 = strtoul(o.out, NULL, 10);
	EXPECT_NE(id, id2);
	EXPECT_NE(other, id2);
	snprintf(buf, sizeof(buf), "added grant %lu", id2);
	EXPECT_TRUE(has(o.err, buf)) TH_LOG("%s", o.err);
	snprintf(buf, sizeof(buf), "%lu", id2);
	EXPECT_EQ(0, kavctl(&o, argv("grant", "del", buf)));
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "ID", "grant", "list",
				     "vni", "4102")));
	EXPECT_EQ(2, nlines(o.out)) TH_LOG("%s", o.out);
}

/* grant set / show and the list filters. */
TEST_F(kc, set_show_filters)
{
	struct out o;
	char id[32], buf[64];
	int l;

	snprintf(id, sizeof(id), "%lu", self->a);
	ASSERT_EQ(0, kavctl(&o, argv("grant", "set", id, "max-avs", "3",
				     "tag", "kc-set2"))) TH_LOG("%s", o.err);
	EXPECT_STREQ("", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "ID,VNI,MAX-ENTRIES,MAX-AVS,TAG",
				     "grant", "show", id)));
	snprintf(buf, sizeof(buf), "%s 4100 10 3 kc-set2\n", id);
	EXPECT_STREQ(buf, o.out);
	ASSERT_EQ(0, kavctl(&o, argv("grant", "set", id, "max-entries", "0",
				     "tag", "")));
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "MAX-ENTRIES,MAX-AVS,TAG",
				     "grant", "show", id)));
	EXPECT_STREQ("unlimited 3 -\n", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("grant", "set", id, "tag", "kc-a",
				     "max-entries", "10")));

	/* Filters: by key, by tag, both. */
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "VNI", "grant", "list",
				     "vni", "4103")));
	ASSERT_GE(nlines(o.out), 1);
	for (l = 0; l < nlines(o.out); l++)
		EXPECT_STREQ("4103", word(o.out, l, 0, buf, sizeof(buf)));
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "TAG", "grant", "list",
				     "tag", "kc-gid")));
	EXPECT_STREQ("kc-gid\n", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "grant", "list", "vni", "4103",
				     "tag", "kc-gid")));
	EXPECT_STREQ("", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("grant", "list", "tag", "kc-none")));
	EXPECT_STREQ("", o.out);
}

/* Bad input: usage errors (1), unknown ids (3, "no grant N"). */
TEST_F(kc, errors)
{
	char id[32], tag[80];
	struct out o;

	snprintf(id, sizeof(id), "%lu", self->a);
	EXPECT_EQ(3, kavctl(&o, argv("grant", "show", "4000000000")));
	EXPECT_TRUE(has(o.err, "no grant 4000000000")) TH_LOG("%s", o.err);
	EXPECT_STREQ("", o.out);
	EXPECT_EQ(3, kavctl(&o, argv("grant", "set", "4000000000", "max-avs",
				     "1")));
	EXPECT_TRUE(has(o.err, "no grant 4000000000")) TH_LOG("%s", o.err);
	EXPECT_EQ(3, kavctl(&o, argv("grant", "del", "4000000000")));
	EXPECT_TRUE(has(o.err, "no grant 4000000000")) TH_LOG("%s", o.err);
	EXPECT_EQ(3, kavctl(&o, argv("av", "pin", "4000000000", "tag", "x")));
	EXPECT_TRUE(has(o.err, "no AV 4000000000")) TH_LOG("%s", o.err);
	EXPECT_EQ(3, kavctl(&o, argv("av", "show", "4000000000")));
	EXPECT_TRUE(has(o.err, "no AV 4000000000")) TH_LOG("%s", o.err);

	EXPECT_EQ(1, kavctl(&o, argv("grant", "set", id)));
	EXPECT_TRUE(has(o.err, "nothing to set")) TH_LOG("%s", o.err);
	EXPECT_EQ(1, kavctl(&o, argv("grant", "set", id, "max-entries", "-1")));
	EXPECT_TRUE(has(o.err, "invalid max-entries '-1'")) TH_LOG("%s", o.err);
	EXPECT_EQ(1, kavctl(&o, argv("grant", "set", id, "max-avs",
				     "4294967296")));
	EXPECT_TRUE(has(o.err, "invalid max-avs")) TH_LOG("%s", o.err);
	EXPECT_EQ(1, kavctl(&o, argv("grant", "show", "x")));
	EXPECT_TRUE(has(o.err, "invalid grant id 'x'")) TH_LOG("%s", o.err);
	EXPECT_EQ(1, kavctl(&o, argv("grant", "add", "vni", "x", "uid", "1")));
	EXPECT_TRUE(has(o.err, "invalid vni 'x'")) TH_LOG("%s", o.err);
	EXPECT_EQ(1, kavctl(&o, argv("grant", "list", "vni", "4100", "uid",
				     "1000")));
	EXPECT_TRUE(has(o.err, "unexpected argument 'uid'")) TH_LOG("%s", o.err);
	memset(tag, 't', 64);
	tag[64] = '\0';
	EXPECT_EQ(1, kavctl(&o, argv("grant", "add", "vni", "1", "uid", "1",
				     "tag", tag)));
	EXPECT_TRUE(has(o.err, "too long")) TH_LOG("%s", o.err);
	EXPECT_EQ(1, kavctl(&o, argv("grant", "set", id, "tag", "a\tb")));
	EXPECT_TRUE(has(o.err, "only printable ASCII (0x20..0x7e) is allowed, "
			"not byte 0x09")) TH_LOG("%s", o.err);
	/* Nothing was changed by any of them. */
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "MAX-ENTRIES,TAG", "grant",
				     "show", id)));
	EXPECT_STREQ("10 kc-a\n", o.out);
}

/* av pin ID tag T: the tag in av list until the pin goes. */
TEST_F(kc, pin_tag)
{
	char id[32], buf[256], row[4096];
	struct kav_av_create c;
	struct out o;
	int dom, av;

	dom = kav_open_domain();
	ASSERT_GE(dom, 0);
	av = kav_av_named(dom, "kc-pin-test", 0, 0600, 0, KAV_ADDR_SOCKADDR_IN,
			  &c);
	ASSERT_GE(av, 0) TH_LOG("named AV: %s", strerror(-av));
	snprintf(id, sizeof(id), "%u", c.av_id);
	ASSERT_EQ(0, kavctl(&o, argv("av", "pin", id, "tag", "kc-launcher")))
		TH_LOG("%s", o.err);
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "ID,PINNED,TAG,NAME", "av",
				     "list")));
	snprintf(buf, sizeof(buf), "%s yes kc-launcher kc-pin-test\n", id);
	EXPECT_TRUE(has(o.out, buf)) TH_LOG("%s", o.out);
	ASSERT_EQ(0, kavctl(&o, argv("-j", "av", "list")));
	ASSERT_TRUE(is_json(o.out)) TH_LOG("not JSON: %s", o.out);
	ASSERT_TRUE(json_row(o.out, "av_id", c.av_id, row, sizeof(row)));
	EXPECT_TRUE(has(row, "\"tag\": \"kc-launcher\"")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"pinned\": true")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"name\": \"kc-pin-test\"")) TH_LOG("%s", row);
	EXPECT_EQ(0, kavctl(&o, argv("av", "unpin", id))) TH_LOG("%s", o.err);
	ASSERT_EQ(0, kavctl(&o, argv("-rn", "-o", "ID,PINNED,TAG", "av",
				     "list")));
	snprintf(buf, sizeof(buf), "%s no -\n", id);
	EXPECT_TRUE(has(o.out, buf)) TH_LOG("%s", o.out);
	close(av);
	close(dom);
}

/* whoami as root: the identity, and only root's grants. */
TEST_F(kc, whoami_root)
{
	struct out o;
	char row[4096];

	ASSERT_EQ(0, kavctl(&o, argv("whoami"))) TH_LOG("%s", o.err);
	EXPECT_TRUE(has(o.out, "uid") && has(o.out, "cgroup") &&
		    has(o.out, "netns cookie") &&
		    has(o.out, "keyless inserts")) TH_LOG("%s", o.out);
	EXPECT_TRUE(has(o.out, "TAG") && has(o.out, "kc-root"))
		TH_LOG("%s", o.out);
	EXPECT_FALSE(has(o.out, "kc-a\n")) TH_LOG("%s", o.out);

	ASSERT_EQ(0, kavctl(&o, argv("-j", "whoami"))) TH_LOG("%s", o.err);
	ASSERT_TRUE(is_json(o.out)) TH_LOG("not JSON: %s", o.out);
	EXPECT_TRUE(has(o.out, "\"whoami\": [") &&
		    has(o.out, "\"grants\": [")) TH_LOG("%s", o.out);
	EXPECT_TRUE(has(o.out, "\"uid\": 0,")) TH_LOG("%s", o.out);
	EXPECT_TRUE(has(o.out, "\"cgroup_path\": \"/")) TH_LOG("%s", o.out);
	EXPECT_TRUE(has(o.out, "\"keyless_allowed\": ")) TH_LOG("%s", o.out);
	ASSERT_TRUE(json_row(o.out, "grant_id", self->root, row, sizeof(row)))
		TH_LOG("%s", o.out);
	EXPECT_TRUE(has(row, "\"vni\": 4103")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"tag\": \"kc-root\"")) TH_LOG("%s", row);
	EXPECT_FALSE(json_row(o.out, "grant_id", self->a, row, sizeof(row)));
	EXPECT_FALSE(json_row(o.out, "grant_id", self->gid, row, sizeof(row)));
}

/* whoami as uid 1000 (no privilege, no netlink): its grants only. */
TEST_F(kc, whoami_tenant)
{
	struct out o;
	char row[4096];

	ASSERT_EQ(0, kavctl_as(&o, TENANT, NULL, argv("-j", "whoami")))
		TH_LOG("%s", o.err);
	ASSERT_TRUE(is_json(o.out)) TH_LOG("not JSON: %s", o.out);
	EXPECT_TRUE(has(o.out, "\"uid\": 1000,")) TH_LOG("%s", o.out);
	EXPECT_TRUE(has(o.out, "\"gid\": 1000,")) TH_LOG("%s", o.out);
	ASSERT_TRUE(json_row(o.out, "grant_id", self->a, row, sizeof(row)))
		TH_LOG("%s", o.out);
	EXPECT_TRUE(has(row, "\"vni\": 4100")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"max_entries\": 10")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"entries\": 0")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"tag\": \"kc-a\"")) TH_LOG("%s", row);
	EXPECT_TRUE(has(row, "\"sel_type\": \"uid\"")) TH_LOG("%s", row);
	ASSERT_TRUE(json_row(o.out, "grant_id", self->gid, row, sizeof(row)))
		TH_LOG("%s", o.out);
	EXPECT_TRUE(has(row, "\"sel_type\": \"gid\"")) TH_LOG("%s", row);
	EXPECT_FALSE(json_row(o.out, "grant_id", self->root, row, sizeof(row)));

	/* -o/-n/-r apply to its grants. */
	ASSERT_EQ(0, kavctl_as(&o, TENANT, NULL,
			       argv("whoami", "-rn", "-o", "VNI,TAG")));
	EXPECT_FALSE(has(o.out, "\n4103 ")) TH_LOG("%s", o.out);
	EXPECT_TRUE(has(o.out, "\n4100 kc-a\n")) TH_LOG("%s", o.out);
	EXPECT_TRUE(has(o.out, "\n4104 kc-gid\n")) TH_LOG("%s", o.out);
	EXPECT_TRUE(has(o.out, "uid") && has(o.out, "1000"));

	/* The tenant cannot list grants over netlink: 4. */
	EXPECT_EQ(4, kavctl_as(&o, TENANT, NULL, argv("grant", "list")));
	EXPECT_TRUE(has(o.err, "CAP_NET_ADMIN")) TH_LOG("%s", o.err);
}

/* whoami's errors: no device (2), a device it may not open (4). */
TEST_F(kc, whoami_errors)
{
	struct out o;

	EXPECT_EQ(2, kavctl_as(&o, TENANT, "/nonexistent/kav",
			       argv("whoami")));
	EXPECT_TRUE(has(o.err, "/nonexistent/kav does not exist"))
		TH_LOG("%s", o.err);
	ASSERT_EQ(0, chmod(kav_test_device(), 0600));
	EXPECT_EQ(4, kavctl_as(&o, TENANT, NULL, argv("whoami")));
	EXPECT_TRUE(has(o.err, "mode 0600") &&
		    has(o.err, "Permission denied")) TH_LOG("%s", o.err);
	EXPECT_STREQ("", o.out);
	/* root still may (DAC override). */
	EXPECT_EQ(0, kavctl(&o, argv("whoami", "-n")));
	ASSERT_EQ(0, chmod(kav_test_device(), 0666));
	EXPECT_EQ(1, kavctl(&o, argv("whoami", "extra")));
}

TEST_HARNESS_MAIN
