// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl: the command-line grammar, numbers, selectors and cgroup paths. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include <linux/kav.h>

#include "../../tools/kavctl/args.h"

#define MAX_WORDS 32

/* Parses a command line given as one string of space-separated words. */
static int parse(const char *line, struct kc_cmd *cmd, char *err,
		 size_t errlen)
{
	char *copy = strdup(line), *save = NULL, *w;
	char *argv[MAX_WORDS + 1];
	int argc = 0, ret;

	assert_non_null(copy);
	argv[argc++] = "kavctl";
	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		assert_true(argc < MAX_WORDS);
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	ret = kc_parse_argv(argc, argv, cmd, err, errlen);
	/* cmd must not point into the words: they are freed now. */
	free(copy);
	return ret;
}

static struct kc_cmd *cmd_ok(const char *line)
{
	static struct kc_cmd cmd;
	char err[256];

	if (parse(line, &cmd, err, sizeof(err)) != 0)
		fail_msg("'%s' failed: %s", line, err);
	return &cmd;
}

/* Expects a usage error whose message contains @msg. */
static struct kc_cmd *cmd_err(const char *line, const char *msg)
{
	static struct kc_cmd cmd;
	char err[256];

	if (parse(line, &cmd, err, sizeof(err)) == 0)
		fail_msg("'%s' parsed but should not", line);
	if (!strstr(err, msg))
		fail_msg("'%s': error '%s' lacks '%s'", line, err, msg);
	assert_int_equal(cmd.op, KC_OP_NONE);
	return &cmd;
}

static void test_u32(void **state)
{
	uint32_t v = 7;

	(void)state;
	assert_int_equal(kc_parse_u32("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(kc_parse_u32("42", &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(kc_parse_u32("0x10", &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(kc_parse_u32("0XfF", &v), 0);
	assert_int_equal(v, 255);
	assert_int_equal(kc_parse_u32("4294967295", &v), 0);
	assert_int_equal(v, UINT32_MAX);

	v = 7;
	errno = 0;
	assert_int_equal(kc_parse_u32("4294967296", &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(kc_parse_u32("0x100000000", &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(kc_parse_u32("99999999999999999999999", &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(v, 7);

	assert_int_equal(kc_parse_u32("-1", &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(kc_parse_u32("", &v), -1);
	assert_int_equal(kc_parse_u32(NULL, &v), -1);
	assert_int_equal(kc_parse_u32("+1", &v), -1);
	assert_int_equal(kc_parse_u32(" 1", &v), -1);
	assert_int_equal(kc_parse_u32("1 ", &v), -1);
	assert_int_equal(kc_parse_u32("1x", &v), -1);
	assert_int_equal(kc_parse_u32("0x", &v), -1);
	assert_int_equal(kc_parse_u32("0x-1", &v), -1);
	assert_int_equal(kc_parse_u32("010", &v), -1);	/* no octal */
	assert_int_equal(kc_parse_u32("1.5", &v), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(v, 7);
}

static void test_u64(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(kc_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(kc_parse_u64("0xffffffffffffffff", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(kc_parse_u64("4294967296", &v), 0);
	assert_true(v == 4294967296ULL);
	assert_int_equal(kc_parse_u64("18446744073709551616", &v), -1);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(kc_parse_u64("-0", &v), -1);
	assert_int_equal(errno, EINVAL);
}

static void expect_rel(const char *in, const char *mount, const char *out)
{
	char buf[256];

	if (kc_cgroup_relpath(in, mount, buf, sizeof(buf)))
		fail_msg("'%s' refused", in);
	if (strcmp(buf, out) != 0)
		fail_msg("'%s' -> '%s', expected '%s'", in, buf, out);
}

static void test_cgroup_relpath(void **state)
{
	char small[6];

	(void)state;
	expect_rel("/sys/fs/cgroup/jobs/42", NULL, "/jobs/42");
	expect_rel("/sys/fs/cgroup", NULL, "/");
	expect_rel("/sys/fs/cgroup/", NULL, "/");
	expect_rel("/sys/fs/cgroup//a///b/", NULL, "/a/b");
	expect_rel("/jobs/42", NULL, "/jobs/42");
	expect_rel("jobs/42", NULL, "/jobs/42");
	expect_rel("/", NULL, "/");
	expect_rel("./a/./b/.", NULL, "/a/b");
	/* Only at a component boundary. */
	expect_rel("/sys/fs/cgroupx/a", NULL, "/sys/fs/cgroupx/a");
	/* A cgroup2 mount elsewhere (hybrid hierarchy), and the default. */
	expect_rel("/sys/fs/cgroup/unified/a", "/sys/fs/cgroup/unified", "/a");
	expect_rel("/sys/fs/cgroup/a", "/sys/fs/cgroup/unified", "/a");
	expect_rel("/mnt/cg2/x/y", "/mnt/cg2/", "/x/y");
	expect_rel("/mnt/cg2x/y", "/mnt/cg2", "/mnt/cg2x/y");
	/* A relative path is never stripped. */
	expect_rel("sys/fs/cgroup/a", NULL, "/sys/fs/cgroup/a");
	/* Names that merely start with dots are fine. */
	expect_rel("/a/..b/.c", NULL, "/a/..b/.c");

	assert_int_equal(kc_cgroup_relpath("/a/../b", NULL, small,
					   sizeof(small)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(kc_cgroup_relpath("/sys/fs/cgroup/..", NULL, small,
					   sizeof(small)), -1);
	assert_int_equal(kc_cgroup_relpath("", NULL, small, sizeof(small)), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(kc_cgroup_relpath("/abcd", NULL, small,
					   sizeof(small)), 0);
	assert_string_equal(small, "/abcd");
	assert_int_equal(kc_cgroup_relpath("/abcde", NULL, small,
					   sizeof(small)), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(kc_cgroup_relpath("/a/bcd", NULL, small,
					   sizeof(small)), -1);
	assert_int_equal(errno, ENAMETOOLONG);
}

static void test_find_cgroup2_mount(void **state)
{
	char path[] = "/tmp/kavctl-mounts-XXXXXX";
	char buf[64];
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("proc /proc proc rw 0 0\n"
	      "tmpfs /sys/fs/cgroup tmpfs ro 0 0\n"
	      "cgroup2 /sys/fs/cgroup/uni\\040fied cgroup2 rw 0 0\n"
	      "cgroup2 /other cgroup2 rw 0 0\n", f);
	fclose(f);
	assert_int_equal(kc_find_cgroup2_mount(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/fs/cgroup/uni fied");
	assert_int_equal(kc_find_cgroup2_mount(path, buf, 8), -1);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("proc /proc proc rw 0 0\n", f);
	fclose(f);
	assert_int_equal(kc_find_cgroup2_mount(path, buf, sizeof(buf)), -1);
	unlink(path);
	assert_int_equal(kc_find_cgroup2_mount(path, buf, sizeof(buf)), -1);
}

static void test_cgroup_path_by_id(void **state)
{
	char root[] = "/tmp/kavctl-cg-XXXXXX", dir[128], buf[128];
	struct stat st;

	(void)state;
	kc_set_cgroup2_mount(NULL);
	assert_int_equal(kc_cgroup_path_by_id(1, buf, sizeof(buf)), -1);

	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/jobs", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/jobs/42", root);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(stat(dir, &st), 0);

	kc_set_cgroup2_mount(root);
	assert_int_equal(kc_cgroup_path_by_id(st.st_ino, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/jobs/42");
	assert_int_equal(kc_cgroup_path_by_id(st.st_ino, buf, 8), -1);
	assert_int_equal(stat(root, &st), 0);
	assert_int_equal(kc_cgroup_path_by_id(st.st_ino, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/");
	/* A file is not a cgroup. */
	snprintf(dir, sizeof(dir), "%s/jobs/42/cgroup.procs", root);
	fclose(fopen(dir, "w"));
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(kc_cgroup_path_by_id(st.st_ino, buf, sizeof(buf)), -1);

	unlink(dir);
	snprintf(dir, sizeof(dir), "%s/jobs/42", root);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/jobs", root);
	rmdir(dir);
	rmdir(root);
	assert_int_equal(kc_cgroup_path_by_id(1, buf, sizeof(buf)), -1);
	kc_set_cgroup2_mount(NULL);
}

static void test_options(void **state)
{
	struct kc_cmd *c;

	(void)state;
	c = cmd_ok("grant list");
	assert_false(c->json);
	assert_false(c->pretty);
	c = cmd_ok("-j grant list");
	assert_true(c->json);
	assert_false(c->pretty);
	c = cmd_ok("--json grant list");
	assert_true(c->json);
	c = cmd_ok("grant list -j");
	assert_true(c->json);
	assert_int_equal(c->op, KC_OP_GRANT_LIST);
	c = cmd_ok("-p stats");
	assert_true(c->json && c->pretty);
	c = cmd_ok("-jp stats");
	assert_true(c->json && c->pretty);
	c = cmd_ok("-j -p stats");
	assert_true(c->json && c->pretty);
	c = cmd_ok("stats --pretty");
	assert_true(c->json && c->pretty);
	c = cmd_ok("-- stats");
	assert_int_equal(c->op, KC_OP_STATS);

	c = cmd_ok("-V");
	assert_int_equal(c->op, KC_OP_VERSION);
	c = cmd_ok("--version");
	assert_int_equal(c->op, KC_OP_VERSION);
	c = cmd_ok("version");
	assert_int_equal(c->op, KC_OP_VERSION);

	cmd_err("-x grant list", "unknown option '-x'");
	cmd_err("-jx grant list", "unknown option '-x'");
	cmd_err("--bogus grant list", "unknown option '--bogus'");
	c = cmd_err("", "missing object");
	assert_int_equal(c->topic, KC_TOPIC_ALL);
	cmd_err("-j", "missing object");
	c = cmd_err("bogus", "unknown object 'bogus'");
	assert_int_equal(c->topic, KC_TOPIC_ALL);
}

static void test_help(void **state)
{
	struct kc_cmd *c;

	(void)state;
	c = cmd_ok("-h");
	assert_int_equal(c->op, KC_OP_HELP);
	assert_int_equal(c->topic, KC_TOPIC_ALL);
	c = cmd_ok("--help");
	assert_int_equal(c->op, KC_OP_HELP);
	c = cmd_ok("help");
	assert_int_equal(c->op, KC_OP_HELP);
	assert_int_equal(c->topic, KC_TOPIC_ALL);
	c = cmd_ok("help grant");
	assert_int_equal(c->op, KC_OP_HELP);
	assert_int_equal(c->topic, KC_TOPIC_GRANT);
	c = cmd_ok("-h av");
	assert_int_equal(c->op, KC_OP_HELP);
	assert_int_equal(c->topic, KC_TOPIC_AV);
	c = cmd_ok("grant -h");
	assert_int_equal(c->op, KC_OP_HELP);
	assert_int_equal(c->topic, KC_TOPIC_GRANT);
	c = cmd_ok("grant help");
	assert_int_equal(c->op, KC_OP_HELP);
	assert_int_equal(c->topic, KC_TOPIC_GRANT);
	/* -h wins over whatever else is on the line, even invalid words. */
	c = cmd_ok("grant add vni x -h");
	assert_int_equal(c->op, KC_OP_HELP);
	assert_int_equal(c->topic, KC_TOPIC_GRANT);
	c = cmd_ok("revoke --help");
	assert_int_equal(c->topic, KC_TOPIC_GRANT);
	c = cmd_ok("domain -h");
	assert_int_equal(c->topic, KC_TOPIC_DOMAIN);
	c = cmd_ok("stats -h");
	assert_int_equal(c->topic, KC_TOPIC_STATS);
	c = cmd_ok("monitor -h");
	assert_int_equal(c->topic, KC_TOPIC_MONITOR);
	c = cmd_ok("list -h");
	assert_int_equal(c->op, KC_OP_HELP);
}

static void test_grant_add(void **state)
{
	struct kc_grant_spec *g;
	struct kc_cmd *c;

	(void)state;
	c = cmd_ok("grant add vni 100 uid 1000");
	assert_int_equal(c->op, KC_OP_GRANT_ADD);
	assert_int_equal(c->topic, KC_TOPIC_GRANT);
	g = &c->grant;
	assert_int_equal(g->vni, 100);
	assert_int_equal(g->sel.type, KAV_SEL_UID);
	assert_int_equal(g->sel.id, 1000);
	assert_string_equal(g->sel.name, "");
	assert_false(g->has_max_entries);
	assert_false(g->has_max_avs);

	/* Any order; "grant vni ..." is "grant add vni ...". */
	c = cmd_ok("grant uid 5 vni 0x20");
	assert_int_equal(c->op, KC_OP_GRANT_ADD);
	assert_int_equal(c->grant.vni, 0x20);
	assert_int_equal(c->grant.sel.id, 5);
	c = cmd_ok("grant add gid 5 max-avs 3 vni 7 max-entries 0");
	g = &c->grant;
	assert_int_equal(g->sel.type, KAV_SEL_GID);
	assert_int_equal(g->sel.id, 5);
	assert_int_equal(g->vni, 7);
	assert_true(g->has_max_avs);
	assert_int_equal(g->max_avs, 3);
	assert_true(g->has_max_entries);
	assert_true(g->max_entries == 0);
	c = cmd_ok("grant vni 1 uid 2");
	assert_int_equal(c->op, KC_OP_GRANT_ADD);
	c = cmd_ok("grant new vni 0 uid 0");
	assert_int_equal(c->op, KC_OP_GRANT_ADD);
	assert_int_equal(c->grant.vni, 0);
	c = cmd_ok("-j grant add vni 4294967295 uid 4294967294 "
		   "max-entries 18446744073709551615 max-avs 4294967295");
	g = &c->grant;
	assert_true(c->json);
	assert_int_equal(g->vni, UINT32_MAX);
	assert_int_equal(g->sel.id, UINT32_MAX - 1);
	assert_true(g->max_entries == UINT64_MAX);
	assert_int_equal(g->max_avs, UINT32_MAX);
}

static void test_grant_names(void **state)
{
	char num[16], line[64];
	struct kc_cmd *c;
	uint32_t id;

	(void)state;
	/* root exists everywhere, as a user and as a group. */
	c = cmd_ok("grant add vni 1 user root");
	assert_int_equal(c->grant.sel.type, KAV_SEL_UID);
	assert_int_equal(c->grant.sel.id, 0);
	assert_string_equal(c->grant.sel.name, "root");
	c = cmd_ok("grant add vni 1 group root");
	assert_int_equal(c->grant.sel.type, KAV_SEL_GID);
	assert_int_equal(c->grant.sel.id, 0);
	assert_string_equal(c->grant.sel.name, "root");
	/*
	 * A number is the uid (gid) of the user (group) who has it, and is
	 * an error when none has it: "uid N" grants a uid as it is.
	 */
	c = cmd_ok("grant add vni 1 user 0");
	assert_int_equal(c->grant.sel.type, KAV_SEL_UID);
	assert_int_equal(c->grant.sel.id, 0);
	c = cmd_ok("grant add vni 1 group 0");
	assert_int_equal(c->grant.sel.type, KAV_SEL_GID);
	assert_int_equal(c->grant.sel.id, 0);
	for (id = 64000; id < 65000; id++) {
		snprintf(num, sizeof(num), "%u", id);
		if (!getpwuid(id) && !getpwnam(num) && !getgrgid(id) &&
		    !getgrnam(num))
			break;
	}
	assert_true(id < 65000);
	snprintf(line, sizeof(line), "grant add vni 1 user %u", id);
	cmd_err(line, "unknown user");
	snprintf(line, sizeof(line), "grant add vni 1 group %u", id);
	cmd_err(line, "unknown group");
	snprintf(line, sizeof(line), "grant add vni 1 uid %u", id);
	c = cmd_ok(line);
	assert_int_equal(c->grant.sel.id, id);

	cmd_err("grant add vni 1 user no-such-user-kavctl", "unknown user");
	cmd_err("grant add vni 1 group no-such-group-kavctl",
		"unknown group");
	cmd_err("grant add vni 1 user 4294967295", "unknown user");
}

static void test_grant_cgroup(void **state)
{
	struct kc_cmd *c;

	(void)state;
	kc_set_cgroup2_mount(NULL);
	c = cmd_ok("grant add vni 1 cgroup /sys/fs/cgroup/jobs/42/");
	assert_int_equal(c->grant.sel.type, KAV_SEL_CGROUP);
	assert_false(c->grant.sel.cgroup_by_id);
	assert_string_equal(c->grant.sel.cgroup_path, "/jobs/42");
	c = cmd_ok("grant add vni 1 cgroup jobs/43");
	assert_string_equal(c->grant.sel.cgroup_path, "/jobs/43");

	kc_set_cgroup2_mount("/sys/fs/cgroup/unified");
	c = cmd_ok("grant add vni 1 cgroup /sys/fs/cgroup/unified/a/b");
	assert_string_equal(c->grant.sel.cgroup_path, "/a/b");
	kc_set_cgroup2_mount(NULL);

	c = cmd_ok("grant add vni 1 cgroup-id 0x1234");
	assert_int_equal(c->grant.sel.type, KAV_SEL_CGROUP);
	assert_true(c->grant.sel.cgroup_by_id);
	assert_true(c->grant.sel.cgroup_id == 0x1234);
	c = cmd_ok("grant add vni 1 cgroup-id 18446744073709551615");
	assert_true(c->grant.sel.cgroup_id == UINT64_MAX);

	cmd_err("grant add vni 1 cgroup /a/../b", "\"..\" is not allowed");
	cmd_err("grant add vni 1 cgroup-id 0", "invalid cgroup-id '0'");
	cmd_err("grant add vni 1 cgroup-id x", "invalid cgroup-id");
}

static void test_grant_netns(void **state)
{
	struct kc_cmd *c;

	(void)state;
	c = cmd_ok("grant add vni 1 netns /proc/1/ns/net");
	assert_int_equal(c->grant.sel.type, KAV_SEL_NETNS);
	assert_string_equal(c->grant.sel.netns_path, "/proc/1/ns/net");
	c = cmd_ok("grant add vni 1 netns blue");
	assert_string_equal(c->grant.sel.netns_path, "/run/netns/blue");
	c = cmd_ok("grant add vni 1 netns ./here");
	assert_string_equal(c->grant.sel.netns_path, "./here");
	assert_false(c->grant.sel.netns_by_name);
	/* A name stays a name of /run/netns. */
	c = cmd_ok("grant add vni 1 netns blue");
	assert_true(c->grant.sel.netns_by_name);
	cmd_err("grant add vni 1 netns ..", "invalid netns name '..'");
	cmd_err("grant add vni 1 netns .", "invalid netns name '.'");
	cmd_err("grant add vni 1 netns a\x1b", "invalid netns name");
	cmd_err("grant add vni 1 netns caf\xc3\xa9", "invalid netns name");
	c = cmd_ok("grant add vni 1 netns-pid 4242");
	assert_string_equal(c->grant.sel.netns_path, "/proc/4242/ns/net");
	c = cmd_ok("grant add vni 1 netns-pid 0x10");
	assert_string_equal(c->grant.sel.netns_path, "/proc/16/ns/net");

	cmd_err("grant add vni 1 netns-pid 0", "invalid netns-pid '0'");
	cmd_err("grant add vni 1 netns-pid -1", "invalid netns-pid");
	cmd_err("grant add vni 1 netns-pid 2147483648", "invalid netns-pid");
	cmd_err("grant add vni 1 netns-pid self", "invalid netns-pid");
}

static void test_grant_add_errors(void **state)
{
	struct kc_cmd *c;

	(void)state;
	c = cmd_err("grant add", "missing vni");
	assert_int_equal(c->topic, KC_TOPIC_GRANT);
	cmd_err("grant add uid 1", "missing vni");
	cmd_err("grant add vni 1", "missing selector");
	cmd_err("grant add vni", "'vni' needs a value");
	cmd_err("grant add vni 1 uid", "'uid' needs a value");
	cmd_err("grant add vni 1 vni 2 uid 1", "vni given twice");
	cmd_err("grant add vni 1 uid 1 uid 2", "only one selector");
	cmd_err("grant add vni 1 uid 1 gid 2", "only one selector");
	cmd_err("grant add vni 1 cgroup /a netns-pid 3", "only one selector");
	cmd_err("grant add vni 1 user root cgroup-id 3", "only one selector");
	cmd_err("grant add vni -1 uid 1", "invalid vni '-1'");
	cmd_err("grant add vni 4294967296 uid 1", "invalid vni");
	cmd_err("grant add vni 1 uid 4294967295", "invalid uid");
	cmd_err("grant add vni 1 gid x", "invalid gid 'x'");
	cmd_err("grant add vni 1 uid 1 max-entries -5", "invalid max-entries");
	cmd_err("grant add vni 1 uid 1 max-avs 4294967296", "invalid max-avs");
	cmd_err("grant add vni 1 uid 1 max-avs 1 max-avs 2",
		"max-avs given twice");
	cmd_err("grant add vni 1 uid 1 max-entries 1 max-entries 2",
		"max-entries given twice");
	cmd_err("grant add vni 1 uid 1 key 3", "unknown argument 'key'");
	cmd_err("grant frobnicate", "unknown grant command 'frobnicate'");
}

static void test_grant_del(void **state)
{
	static const char *const ok[] = {
		"grant del 5", "grant delete 5", "grant remove 5", "grant rm 5",
		"grant revoke 5", "revoke 5", "grants del 5", "revoke 0x5",
	};
	struct kc_cmd *c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		c = cmd_ok(ok[i]);
		assert_int_equal(c->op, KC_OP_GRANT_DEL);
		assert_int_equal(c->id, 5);
		assert_int_equal(c->topic, KC_TOPIC_GRANT);
	}
	cmd_err("grant del", "missing grant id");
	cmd_err("revoke", "missing grant id");
	cmd_err("revoke x", "invalid grant id 'x'");
	cmd_err("revoke 1 2", "unexpected argument '2'");
	cmd_err("grant del 4294967296", "invalid grant id");
}

static void test_av_pin(void **state)
{
	struct kc_cmd *c;

	(void)state;
	c = cmd_ok("av pin 3");
	assert_int_equal(c->op, KC_OP_AV_PIN);
	assert_int_equal(c->id, 3);
	assert_int_equal(c->topic, KC_TOPIC_AV);
	assert_false(c->json);
	c = cmd_ok("avs unpin 0x10");
	assert_int_equal(c->op, KC_OP_AV_UNPIN);
	assert_int_equal(c->id, 16);
	assert_int_equal(c->topic, KC_TOPIC_AV);
	c = cmd_ok("-j av pin 4294967295");
	assert_int_equal(c->op, KC_OP_AV_PIN);
	assert_int_equal(c->id, UINT32_MAX);
	assert_true(c->json);
	c = cmd_ok("av unpin 0 -j");
	assert_int_equal(c->op, KC_OP_AV_UNPIN);
	assert_int_equal(c->id, 0);
	assert_true(c->json);
	c = cmd_ok("av pin -h");
	assert_int_equal(c->op, KC_OP_HELP);
	assert_int_equal(c->topic, KC_TOPIC_AV);

	c = cmd_err("av pin", "missing AV id");
	assert_int_equal(c->topic, KC_TOPIC_AV);
	cmd_err("av unpin", "missing AV id");
	cmd_err("av pin x", "invalid AV id 'x'");
	cmd_err("av unpin -1", "invalid AV id '-1'");
	cmd_err("av pin 4294967296", "invalid AV id '4294967296'");
	cmd_err("av pin 010", "invalid AV id '010'");
	cmd_err("av pin 1 2", "unexpected argument '2'");
	cmd_err("av unpin 1 now", "unexpected argument 'now'");
	/* Exact words only. */
	cmd_err("av Pin 1", "unknown av command 'Pin'");
	cmd_err("av pinned 1", "unknown av command 'pinned'");
	cmd_err("pin 1", "unknown object 'pin'");
}

static void test_lists(void **state)
{
	static const struct {
		const char *line;
		enum kc_op op;
		uint32_t id;
	} ok[] = {
		{ "grant", KC_OP_GRANT_LIST, 0 },
		{ "grant list", KC_OP_GRANT_LIST, 0 },
		{ "grant show", KC_OP_GRANT_LIST, 0 },
		{ "grants ls", KC_OP_GRANT_LIST, 0 },
		{ "list grants", KC_OP_GRANT_LIST, 0 },
		{ "show grant", KC_OP_GRANT_LIST, 0 },
		{ "domain", KC_OP_DOMAIN_LIST, 0 },
		{ "domain list", KC_OP_DOMAIN_LIST, 0 },
		{ "domains show", KC_OP_DOMAIN_LIST, 0 },
		{ "list domains", KC_OP_DOMAIN_LIST, 0 },
		{ "av", KC_OP_AV_LIST, 0 },
		{ "av list", KC_OP_AV_LIST, 0 },
		{ "avs", KC_OP_AV_LIST, 0 },
		{ "av show", KC_OP_AV_LIST, 0 },
		{ "list avs", KC_OP_AV_LIST, 0 },
		{ "av show 3", KC_OP_AV_SHOW, 3 },
		{ "av list 4", KC_OP_AV_SHOW, 4 },
		{ "av entries 5", KC_OP_AV_SHOW, 5 },
		{ "av dump 6", KC_OP_AV_SHOW, 6 },
		{ "list av 7", KC_OP_AV_SHOW, 7 },
		{ "show entries 8", KC_OP_AV_SHOW, 8 },
		{ "stats", KC_OP_STATS, 0 },
		{ "stats show", KC_OP_STATS, 0 },
		{ "statistics", KC_OP_STATS, 0 },
		{ "show stats", KC_OP_STATS, 0 },
		{ "monitor", KC_OP_MONITOR, 0 },
		{ "mon", KC_OP_MONITOR, 0 },
		{ "-j monitor", KC_OP_MONITOR, 0 },
	};
	struct kc_cmd *c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		c = cmd_ok(ok[i].line);
		if (c->op != ok[i].op)
			fail_msg("'%s': op %d, expected %d", ok[i].line, c->op,
				 ok[i].op);
		assert_int_equal(c->id, ok[i].id);
	}
	c = cmd_ok("av show 3");
	assert_int_equal(c->topic, KC_TOPIC_AV);

	cmd_err("grant list extra", "unexpected argument 'extra'");
	cmd_err("domain list extra", "unexpected argument 'extra'");
	cmd_err("domain frob", "unknown domain command 'frob'");
	cmd_err("av frob", "unknown av command 'frob'");
	cmd_err("av show x", "invalid AV id 'x'");
	cmd_err("av show 1 2", "unexpected argument '2'");
	cmd_err("av entries", "missing AV id");
	cmd_err("list entries", "missing AV id");
	cmd_err("stats now", "unexpected argument 'now'");
	cmd_err("monitor all", "unexpected argument 'all'");
	cmd_err("list", "list what?");
	cmd_err("list frobs", "cannot list 'frobs'");
	cmd_err("list grants extra", "unexpected argument");
	cmd_err("version 2", "unexpected argument");
}

/* iproute2-style prefixes: unambiguous ones match, ambiguous ones fail. */
static void test_prefixes(void **state)
{
	static const struct {
		const char *line;
		enum kc_op op;
	} ok[] = {
		{ "g l", KC_OP_GRANT_LIST },
		{ "gr li", KC_OP_GRANT_LIST },
		{ "g", KC_OP_GRANT_LIST },
		{ "g sh 3", KC_OP_GRANT_SHOW },
		{ "g se 3 t x", KC_OP_GRANT_SET },
		{ "g de 3", KC_OP_GRANT_DEL },	/* del, delete: one meaning */
		{ "g re 3", KC_OP_GRANT_DEL },	/* remove, revoke */
		{ "g a v 5 ui 1000", KC_OP_GRANT_ADD },
		{ "g v 5 ui 1000", KC_OP_GRANT_ADD },
		{ "d", KC_OP_DOMAIN_LIST },
		{ "d l", KC_OP_DOMAIN_LIST },
		{ "av p 3", KC_OP_AV_PIN },
		{ "av u 3", KC_OP_AV_UNPIN },
		{ "av e 3", KC_OP_AV_SHOW },
		{ "st", KC_OP_STATS },
		{ "m", KC_OP_MONITOR },
		{ "w", KC_OP_WHOAMI },
		{ "whoami", KC_OP_WHOAMI },
		{ "l g", KC_OP_GRANT_LIST },
		{ "sh st", KC_OP_STATS },
		{ "r 4", KC_OP_GRANT_DEL },
		{ "v", KC_OP_VERSION },
	};
	struct kc_cmd *c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		c = cmd_ok(ok[i].line);
		if (c->op != ok[i].op)
			fail_msg("'%s': op %d, expected %d", ok[i].line, c->op,
				 ok[i].op);
	}
	c = cmd_ok("g a v 5 ui 1000 max-e 7 t job");
	assert_int_equal(c->grant.vni, 5);
	assert_int_equal(c->grant.sel.type, KAV_SEL_UID);
	assert_int_equal(c->grant.sel.id, 1000);
	assert_true(c->grant.has_max_entries);
	assert_true(c->grant.max_entries == 7);
	assert_string_equal(c->grant.tag, "job");
	/* An exact word wins over the longer ones it is a prefix of. */
	c = cmd_ok("grant add vni 1 cgroup /a");
	assert_int_equal(c->grant.sel.type, KAV_SEL_CGROUP);
	assert_false(c->grant.sel.cgroup_by_id);
	c = cmd_ok("grant add vni 1 netns /proc/1/ns/net");
	assert_string_equal(c->grant.sel.netns_path, "/proc/1/ns/net");

	cmd_err("s", "ambiguous object 's': stats, show");
	cmd_err("a", "ambiguous object 'a': av, apply");
	cmd_err("g s 3", "ambiguous grant command 's': show, set");
	cmd_err("g c", "ambiguous grant command 'c': create, change, cgroup");
	cmd_err("g a v 5 u 1000", "ambiguous argument 'u': uid, user");
	cmd_err("g a v 5 uid 1 max- 3", "ambiguous argument 'max-': max-entries, max-avs");
	cmd_err("g a v 5 uid 1 ta", "'tag' needs a value");
	cmd_err("g x", "unknown grant command 'x'");
	cmd_err("av x 3", "unknown av command 'x'");
	/* Values are never matched: "u" is not "uid" as a user name. */
	cmd_err("grant add vni 1 user u", "unknown user 'u'");
	/* Case counts. */
	cmd_err("Grant list", "unknown object 'Grant'");
}

/* grant set / show / list filters, tags, whoami, av pin tag. */
static void test_new_commands(void **state)
{
	struct kc_cmd *c;
	char long_tag[KAV_TAG_MAX + 2];

	(void)state;
	c = cmd_ok("grant add vni 5 uid 1000 tag slurm-77");
	assert_int_equal(c->op, KC_OP_GRANT_ADD);
	assert_true(c->grant.has_tag);
	assert_string_equal(c->grant.tag, "slurm-77");
	c = cmd_ok("grant set 4 max-entries 10");
	assert_int_equal(c->op, KC_OP_GRANT_SET);
	assert_int_equal(c->id, 4);
	assert_true(c->grant.has_max_entries);
	assert_false(c->grant.has_max_avs);
	assert_false(c->grant.has_tag);
	c = cmd_ok("grant set 4 max-avs 2 tag t");
	assert_true(c->grant.has_max_avs);
	assert_int_equal(c->grant.max_avs, 2);
	assert_string_equal(c->grant.tag, "t");
	c = cmd_ok("grant show 9");
	assert_int_equal(c->op, KC_OP_GRANT_SHOW);
	assert_int_equal(c->id, 9);
	c = cmd_ok("grant list vni 42 tag x");
	assert_int_equal(c->op, KC_OP_GRANT_LIST);
	assert_true(c->grant.has_vni);
	assert_int_equal(c->grant.vni, 42);
	assert_true(c->grant.has_tag);
	c = cmd_ok("list grants tag x");
	assert_int_equal(c->op, KC_OP_GRANT_LIST);
	assert_true(c->grant.has_tag);
	c = cmd_ok("av pin 3 tag launcher");
	assert_int_equal(c->op, KC_OP_AV_PIN);
	assert_string_equal(c->grant.tag, "launcher");
	c = cmd_ok("whoami -j");
	assert_int_equal(c->op, KC_OP_WHOAMI);
	assert_true(c->json);

	cmd_err("grant set 4", "nothing to set");
	cmd_err("grant set", "missing grant id");
	cmd_err("grant set x max-avs 1", "invalid grant id 'x'");
	cmd_err("grant set 4 vni 3", "unexpected argument 'vni'");
	cmd_err("grant set 4 max-avs -1", "invalid max-avs");
	cmd_err("grant show x", "invalid grant id 'x'");
	cmd_err("grant show 1 2", "unexpected argument '2'");
	cmd_err("grant list uid 3", "unexpected argument 'uid'");
	cmd_err("grant list vni x", "invalid vni 'x'");
	cmd_err("grant list tag", "'tag' needs a value");
	cmd_err("grant add vni 1 uid 1 tag a tag b", "tag given twice");
	/* Tags are printable ASCII, as the kernel takes them. */
	cmd_err("grant add vni 1 uid 1 tag caf\xc3\xa9", "printable ASCII");
	cmd_err("grant add vni 1 uid 1 tag del\x7f", "printable ASCII");
	cmd_err("grant set 4 tag bell\a", "printable ASCII");
	c = cmd_ok("grant add vni 5 uid 1000 tag ~!#");
	assert_string_equal(c->grant.tag, "~!#");
	memset(long_tag, 'x', sizeof(long_tag) - 1);
	long_tag[sizeof(long_tag) - 1] = '\0';
	{
		char line[256];

		snprintf(line, sizeof(line), "grant add vni 1 uid 1 tag %s",
			 long_tag);
		cmd_err(line, "too long");
		long_tag[KAV_TAG_MAX] = '\0';	/* 63 bytes: fine */
		snprintf(line, sizeof(line), "grant add vni 1 uid 1 tag %s",
			 long_tag);
		cmd_ok(line);
	}
	cmd_err("av pin 3 tag", "'tag' needs a value");
	cmd_err("av pin 3 name x", "unexpected argument 'name'");
	cmd_err("whoami extra", "unexpected argument 'extra'");
}

/* -o, -n, -r, before or after the object. */
static void test_output_options(void **state)
{
	struct kc_cmd *c;

	(void)state;
	c = cmd_ok("grant list");
	assert_null(c->columns);
	assert_false(c->noheadings);
	assert_false(c->raw);
	c = cmd_ok("-o ID,VNI grant list");
	assert_string_equal(c->columns, "ID,VNI");
	c = cmd_ok("-oID grant list");
	assert_string_equal(c->columns, "ID");
	c = cmd_ok("grant list -o +TAG -n -r");
	assert_string_equal(c->columns, "+TAG");
	assert_true(c->noheadings && c->raw);
	c = cmd_ok("-nr grant list");
	assert_true(c->noheadings && c->raw);
	c = cmd_ok("-rno ID grant list");
	assert_true(c->noheadings && c->raw);
	assert_string_equal(c->columns, "ID");
	c = cmd_ok("--output=ID --noheadings --raw av list");
	assert_string_equal(c->columns, "ID");
	assert_true(c->noheadings && c->raw);
	c = cmd_ok("av list --output ID,NAME");
	assert_string_equal(c->columns, "ID,NAME");
	assert_int_equal(c->op, KC_OP_AV_LIST);
	c = cmd_ok("stats -jn");
	assert_true(c->json && c->noheadings);
	cmd_err("-o", "needs a column list");
	cmd_err("grant list -o", "needs a column list");
	cmd_err("--output", "needs a column list");
	cmd_err("-x grant list", "unknown option '-x'");
	/* After the object, "-1" is a value, not an option. */
	cmd_err("av pin -1", "invalid AV id '-1'");
	/* After "--", "-n" is a value too. */
	c = cmd_ok("grant add vni 1 uid 1 -j -- tag -n");
	assert_true(c->json);
	assert_false(c->noheadings);
	assert_string_equal(c->grant.tag, "-n");
	cmd_err("grant add vni 1 uid 1 tag -n", "'tag' needs a value");
}

/* kavctl wire, and grant add ... wire. */
static void test_wire(void **state)
{
	struct kc_cmd *c;
	char line[512];
	int i;

	(void)state;
	c = cmd_ok("wire");
	assert_int_equal(c->op, KC_OP_WIRE_SHOW);
	c = cmd_ok("wire show -j");
	assert_int_equal(c->op, KC_OP_WIRE_SHOW);
	assert_true(c->json);
	assert_int_equal(cmd_ok("show wire")->op, KC_OP_WIRE_SHOW);
	assert_int_equal(cmd_ok("wi sh")->op, KC_OP_WIRE_SHOW);
	assert_int_equal(cmd_ok("wire scope")->op, KC_OP_WIRE_SHOW);
	assert_int_equal(cmd_ok("wire exempt list")->op, KC_OP_WIRE_SHOW);
	/* "w" stays whoami, as it was before "wire". */
	assert_int_equal(cmd_ok("w")->op, KC_OP_WHOAMI);
	assert_int_equal(cmd_ok("wh")->op, KC_OP_WHOAMI);
	assert_int_equal(cmd_ok("wi")->op, KC_OP_WIRE_SHOW);
	c = cmd_ok("wire -h");
	assert_int_equal(c->op, KC_OP_HELP);
	assert_int_equal(c->topic, KC_TOPIC_WIRE);
	c = cmd_ok("help wire");
	assert_int_equal(c->topic, KC_TOPIC_WIRE);

	c = cmd_ok("wire set mode esp ports 5000-5999 mark 0x4c000000");
	assert_int_equal(c->op, KC_OP_WIRE_SET);
	assert_true(c->wire.set.has_mode);
	assert_int_equal(c->wire.set.mode, KAV_WIRE_ESP);
	assert_true(c->wire.set.has_ports);
	assert_int_equal(c->wire.set.port_min, 5000);
	assert_int_equal(c->wire.set.port_max, 5999);
	assert_true(c->wire.set.has_mark);
	assert_int_equal(c->wire.set.mark, 0x4c000000);
	c = cmd_ok("wire set ports none");
	assert_false(c->wire.set.has_mode || c->wire.set.has_mark);
	assert_true(c->wire.set.has_ports);
	assert_int_equal(c->wire.set.port_min, 0);
	assert_int_equal(c->wire.set.port_max, 0);
	c = cmd_ok("wire set mo flowlabel");
	assert_int_equal(c->wire.set.mode, KAV_WIRE_FLOWLABEL);
	cmd_err("wire set", "nothing to set (mode, ports or mark)");
	cmd_err("wire set mode", "'mode' needs a value");
	cmd_err("wire set mode ipsec", "unknown wire mode 'ipsec'");
	cmd_err("wire set ports 0-10", "invalid port '0' (1 to 65535)");
	cmd_err("wire set ports 1-70000", "invalid port '70000' (1 to 65535)");
	cmd_err("wire set ports 9-8", "the first (9) is above the last (8)");
	cmd_err("wire set mark 0x4b000001", "low 20 bits must be 0");
	cmd_err("wire set mark 0x4b000000 mark 0", "mark given twice");
	cmd_err("wire set m esp", "ambiguous wire set argument 'm': mode, mark");
	cmd_err("wire set vni 5", "unknown wire set argument 'vni'");
	cmd_err("wire s", "ambiguous wire command 's': show, set, scope");
	cmd_err("wire frob", "unknown wire command 'frob'");
	cmd_err("wire show x", "unexpected argument 'x'");

	c = cmd_ok("wire scope add 10.0.0.0/8 fd00::/8 10.9.9.9");
	assert_int_equal(c->op, KC_OP_WIRE_NET_ADD);
	assert_int_equal(c->wire.nr_nets, 3);
	assert_int_equal(c->wire.nets[0].family, AF_INET);
	assert_int_equal(c->wire.nets[0].prefix_len, 8);
	assert_int_equal(c->wire.nets[0].flags, 0);
	assert_int_equal(c->wire.nets[1].family, AF_INET6);
	assert_int_equal(c->wire.nets[1].prefix_len, 8);
	assert_int_equal(c->wire.nets[2].prefix_len, 32);
	c = cmd_ok("wire scope del fd00::/8");
	assert_int_equal(c->op, KC_OP_WIRE_NET_DEL);
	assert_int_equal(c->wire.nets[0].prefix_len, 8);
	assert_int_equal(cmd_ok("wire sc rm 10.0.0.0/8")->op,
			 KC_OP_WIRE_NET_DEL);
	cmd_err("wire scope add 10.1.2.3/8", "the network is 10.0.0.0/8");
	cmd_err("wire scope add fd00::1/64", "the network is fd00::/64");
	cmd_err("wire scope add 10.0.0.0/33", "0 to 32 for IPv4");
	cmd_err("wire scope add nfs.example", "not an IPv4 address");
	cmd_err("wire scope add", "wire scope: missing prefix");
	cmd_err("wire scope add 10.0.0.0/8 10.0.0.0/8",
		"scope prefix '10.0.0.0/8' given twice");
	cmd_err("wire scope add 10.0.0.0/8 port 22", "a scope prefix has no port");
	cmd_err("wire scope 10.0.0.0/8", "unknown wire scope command");

	c = cmd_ok("wire exempt add 10.0.0.5 port 6818 10.0.0.0/24 fd00::7 p 22");
	assert_int_equal(c->op, KC_OP_WIRE_NET_ADD);
	assert_int_equal(c->wire.nr_nets, 3);
	assert_int_equal(c->wire.nets[0].flags, KAV_WIRE_NET_EXEMPT);
	assert_int_equal(c->wire.nets[0].port, 6818);
	assert_int_equal(c->wire.nets[0].prefix_len, 32);
	assert_int_equal(c->wire.nets[1].flags, KAV_WIRE_NET_EXEMPT);
	assert_int_equal(c->wire.nets[1].port, 0);
	assert_int_equal(c->wire.nets[1].prefix_len, 24);
	assert_int_equal(c->wire.nets[2].port, 22);
	assert_int_equal(c->wire.nets[2].prefix_len, 128);
	c = cmd_ok("wire exempt del 10.0.0.5 port 6818");
	assert_int_equal(c->op, KC_OP_WIRE_NET_DEL);
	assert_int_equal(c->wire.nets[0].port, 6818);
	cmd_err("wire exempt add 10.0.0.5 port", "'port' needs a value");
	cmd_err("wire exempt add 10.0.0.5 port 0", "invalid port '0'");
	cmd_err("wire exempt add 10.0.0.5 port 65536", "invalid port '65536'");
	cmd_err("wire exempt add port 22", "'port' follows an address");
	cmd_err("wire exempt add", "wire exempt: missing address");
	cmd_err("wire exempt add 10.0.0.5 port 1 10.0.0.5 port 1",
		"exemption '10.0.0.5' port 1 given twice");
	/* A protocol: tcp, udp (none, or any: both), either side of port. */
	c = cmd_ok("wire exempt add 10.0.0.2 port 2049 proto tcp 10.0.0.2 "
		   "proto udp port 2049 10.0.0.3 pr udp fd00::2 proto any");
	assert_int_equal(c->wire.nr_nets, 4);
	assert_int_equal(c->wire.nets[0].port, 2049);
	assert_int_equal(c->wire.nets[0].protocol, IPPROTO_TCP);
	assert_int_equal(c->wire.nets[1].port, 2049);
	assert_int_equal(c->wire.nets[1].protocol, IPPROTO_UDP);
	assert_int_equal(c->wire.nets[2].port, 0);
	assert_int_equal(c->wire.nets[2].protocol, IPPROTO_UDP);
	assert_int_equal(c->wire.nets[3].protocol, 0);
	assert_int_equal(c->wire.nets[3].__reserved, 0);
	assert_int_equal(c->wire.nets[0].flags, KAV_WIRE_NET_EXEMPT);
	c = cmd_ok("wire exempt del 10.0.0.2 port 2049 protocol tcp");
	assert_int_equal(c->op, KC_OP_WIRE_NET_DEL);
	assert_int_equal(c->wire.nets[0].protocol, IPPROTO_TCP);
	/* The same endpoint by another protocol is another exemption. */
	assert_int_equal(cmd_ok("wire exempt add 10.0.0.5 port 1 10.0.0.5 "
				"port 1 proto tcp")->wire.nr_nets, 2);
	cmd_err("wire exempt add 10.0.0.5 port 1 proto tcp 10.0.0.5 proto tcp port 1",
		"exemption '10.0.0.5' port 1 proto tcp given twice");
	cmd_err("wire exempt add 10.0.0.5 proto", "'proto' needs a value");
	cmd_err("wire exempt add 10.0.0.5 proto sctp",
		"unknown protocol 'sctp' (tcp or udp");
	cmd_err("wire exempt add 10.0.0.5 proto TCP", "unknown protocol 'TCP'");
	cmd_err("wire exempt add 10.0.0.5 proto 6", "unknown protocol '6'");
	cmd_err("wire exempt add 10.0.0.5 proto tcp proto udp",
		"proto given twice for one address");
	cmd_err("wire exempt add 10.0.0.5 port 1 port 2",
		"port given twice for one address");
	cmd_err("wire exempt add proto tcp", "'proto' follows an address");
	cmd_err("wire scope add 10.0.0.0/8 proto tcp",
		"a scope prefix has no port or protocol");
	/* More than the kernel holds. */
	strcpy(line, "wire scope add");
	for (i = 0; i < KAV_WIRE_NETS_MAX + 1 && i < MAX_WORDS - 5; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " 10.%d.0.0/16", i);
	if (KAV_WIRE_NETS_MAX + 1 < MAX_WORDS - 5)
		cmd_err(line, "at most");

	/* apply: -n is its dry run, not --noheadings. */
	c = cmd_ok("wire apply /tmp/w.conf");
	assert_int_equal(c->op, KC_OP_WIRE_APPLY);
	assert_false(c->wire.dry_run);
	assert_true(c->wire.has_file);
	assert_string_equal(c->wire.file, "/tmp/w.conf");
	c = cmd_ok("wire apply -n /tmp/w.conf");
	assert_true(c->wire.dry_run);
	assert_false(c->noheadings);
	assert_string_equal(c->wire.file, "/tmp/w.conf");
	c = cmd_ok("wire app --dry-run");
	assert_true(c->wire.dry_run);
	assert_false(c->wire.has_file);
	assert_string_equal(c->wire.file, "/etc/kav/wire.conf");
	c = cmd_ok("wire apply -- -n");
	assert_false(c->wire.dry_run);
	assert_string_equal(c->wire.file, "-n");
	c = cmd_ok("wire apply -h");
	assert_int_equal(c->op, KC_OP_HELP);
	assert_int_equal(c->topic, KC_TOPIC_WIRE);
	cmd_err("wire apply a b", "unexpected argument 'b' (one file)");
	cmd_err("wire apply -x", "unknown option '-x'");
	cmd_err("-n wire apply f", "this -n is --noheadings");
	cmd_err("wire -n apply f", "this -n is --noheadings");
	/* An option between: the words after it are seen as options too. */
	cmd_err("wire -j apply -n f", "this -n is --noheadings");
	c = cmd_ok("wire -j apply f");
	assert_int_equal(c->op, KC_OP_WIRE_APPLY);
	assert_false(c->wire.dry_run);

	/* grant add ... wire: a flag, anywhere among the pairs. */
	c = cmd_ok("grant add vni 5 uid 1000 wire");
	assert_int_equal(c->op, KC_OP_GRANT_ADD);
	assert_true(c->grant.wire);
	c = cmd_ok("grant add wire vni 5 cgroup /jobs/1 tag t");
	assert_true(c->grant.wire);
	assert_string_equal(c->grant.tag, "t");
	c = cmd_ok("grant wire vni 5 netns /proc/1/ns/net");
	assert_int_equal(c->op, KC_OP_GRANT_ADD);
	assert_true(c->grant.wire);
	c = cmd_ok("g a v 1048575 ui 1 wi");
	assert_true(c->grant.wire);
	assert_int_equal(c->grant.vni, 1048575);
	c = cmd_ok("grant add vni 5 uid 1000");
	assert_false(c->grant.wire);
	/* Without wire, a gid and a large vni are fine. */
	cmd_ok("grant add vni 4294967295 gid 100");
	cmd_err("grant add vni 5 gid 100 wire", "a socket carries no groups: a gid grant cannot apply on the wire; grant the uid, the job's cgroup or the netns");
	cmd_err("grant add vni 5 group root wire", "a socket carries no groups");
	cmd_err("grant add vni 1048576 uid 1 wire",
		"vni 1048576 cannot be a wire key");
	cmd_err("grant add vni 5 uid 1 wire wire", "wire given twice");
	cmd_err("grant set 3 wire", "unexpected argument 'wire'");
	cmd_err("grant list wire", "unexpected argument 'wire'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u32),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_cgroup_relpath),
		cmocka_unit_test(test_find_cgroup2_mount),
		cmocka_unit_test(test_cgroup_path_by_id),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_grant_add),
		cmocka_unit_test(test_grant_names),
		cmocka_unit_test(test_grant_cgroup),
		cmocka_unit_test(test_grant_netns),
		cmocka_unit_test(test_grant_add_errors),
		cmocka_unit_test(test_grant_del),
		cmocka_unit_test(test_av_pin),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_new_commands),
		cmocka_unit_test(test_output_options),
		cmocka_unit_test(test_wire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
