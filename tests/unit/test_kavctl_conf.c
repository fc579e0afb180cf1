// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl apply: the grants.d files (tools/kavctl/conf.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kav.h>

#include "../../tools/kavctl/args.h"
#include "../../tools/kavctl/conf.h"
#include "../../tools/kavctl/grant.h"

/* conf.c says why a directory cannot be read with kc_err (output.c). */
static int nr_kc_err;

void kc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	nr_kc_err++;
}

/* What conf.c and apply.c print on stderr, between these two calls. */
static int cap_saved = -1;
static FILE *cap_file;
static char cap_buf[16384];

static void capture_start(void)
{
	fflush(stderr);
	cap_file = tmpfile();
	assert_non_null(cap_file);
	cap_saved = dup(STDERR_FILENO);
	assert_true(cap_saved >= 0);
	assert_true(dup2(fileno(cap_file), STDERR_FILENO) >= 0);
}

/* A failure while stderr is captured: put stderr back, so it is seen. */
static void capture_abort(void)
{
	if (cap_saved < 0)
		return;
	fflush(stderr);
	dup2(cap_saved, STDERR_FILENO);
	close(cap_saved);
	cap_saved = -1;
	fclose(cap_file);
}

static const char *capture_end(void)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(cap_saved, STDERR_FILENO) >= 0);
	close(cap_saved);
	cap_saved = -1;
	rewind(cap_file);
	n = fread(cap_buf, 1, sizeof(cap_buf) - 1, cap_file);
	cap_buf[n] = '\0';
	fclose(cap_file);
	/* Shown as well, for whoever reads the test's output. */
	fputs(cap_buf, stderr);
	return cap_buf;
}

/*
 * kavctl apply (apply.c) is linked for what it does before netlink: these
 * stand for nl.c and grant.c, and fail the test if apply gets that far.
 */
int kc_nl_open(struct kc_nl *nl, const char *what)
{
	(void)nl;
	capture_abort();
	fail_msg("apply (%s) went on to netlink", what);
	return KC_EXIT_FAIL;
}

void kc_nl_close(struct kc_nl *nl)
{
	(void)nl;
}

int kc_grants_dump(struct kc_nl *nl, const uint32_t *vni, const char *tag,
		   struct kc_grant **grants, size_t *n)
{
	(void)nl, (void)vni, (void)tag, (void)grants, (void)n;
	capture_abort();
	fail_msg("apply dumped the grants");
	return KC_EXIT_FAIL;
}

int kc_grant_put(struct kc_nl *nl, const struct kc_grant_spec *spec,
		 uint32_t *id, bool *updated)
{
	(void)nl, (void)spec, (void)id, (void)updated;
	capture_abort();
	fail_msg("apply added a grant");
	return KC_EXIT_FAIL;
}

int kc_grant_change(struct kc_nl *nl, uint32_t id,
		    const struct kc_grant_spec *spec)
{
	(void)nl, (void)id, (void)spec;
	capture_abort();
	fail_msg("apply changed a grant");
	return KC_EXIT_FAIL;
}

int kc_grant_revoke(struct kc_nl *nl, uint32_t id, bool missing_ok)
{
	(void)nl, (void)id, (void)missing_ok;
	capture_abort();
	fail_msg("apply revoked a grant");
	return KC_EXIT_FAIL;
}

static void expect_in(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("'%s' not in:\n%s", want, text);
}

/* A directory of the test: mode 0755, owned by whoever runs the test. */
static void make_dir(char *dir)
{
	assert_non_null(mkdtemp(dir));
	assert_int_equal(0, chmod(dir, 0755));
}

/* @dir/@name holding @text, with mode @mode (umask or not). */
static void write_file(const char *dir, const char *name, const char *text,
		       mode_t mode)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(0, fchmod(fileno(f), mode));
	assert_int_equal(0, fclose(f));
}

static void remove_dir(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(0, system(cmd));
}

static int parse(const char *file, const char *text,
		 struct kc_conf_grant *g, char *err, size_t errlen)
{
	char *copy = strdup(text);
	int ret;

	assert_non_null(copy);
	err[0] = '\0';
	ret = kc_conf_parse_line(file, copy, g, err, errlen);
	free(copy);
	return ret;
}

static void test_blank_and_comments(void **state)
{
	struct kc_conf_grant g;
	char err[256];

	(void)state;
	assert_int_equal(0, parse("a.conf", "", &g, err, sizeof(err)));
	assert_int_equal(0, parse("a.conf", "  \t \n", &g, err, sizeof(err)));
	assert_int_equal(0, parse("a.conf", "# vni 5 uid 1", &g, err,
				  sizeof(err)));
	assert_int_equal(0, parse("a.conf", "   #x", &g, err, sizeof(err)));
}

static void test_line_and_default_tag(void **state)
{
	struct kc_conf_grant g;
	char err[256];

	(void)state;
	assert_int_equal(1, parse("10-site.conf",
				  "vni 50 uid 1000 max-entries 100 # note\n",
				  &g, err, sizeof(err)));
	assert_int_equal(50, g.spec.vni);
	assert_int_equal(KAV_SEL_UID, g.spec.sel.type);
	assert_int_equal(1000, g.sel_id);
	assert_true(g.spec.has_max_entries);
	assert_int_equal(100, g.spec.max_entries);
	assert_false(g.spec.has_max_avs);
	assert_string_equal("grants.d/10-site", g.tag);

	assert_int_equal(1, parse("b.conf", "\tvni 7  gid 100\tmax-avs 3",
				  &g, err, sizeof(err)));
	assert_int_equal(KAV_SEL_GID, g.spec.sel.type);
	assert_int_equal(100, g.sel_id);
	assert_int_equal(3, g.spec.max_avs);
	assert_string_equal("grants.d/b", g.tag);

	/* User and group names through NSS: root exists everywhere. */
	assert_int_equal(1, parse("b.conf", "vni 1 user root", &g, err,
				  sizeof(err)));
	assert_int_equal(KAV_SEL_UID, g.spec.sel.type);
	assert_int_equal(0, g.sel_id);
	assert_string_equal("root", g.spec.sel.name);
}

static void test_tag(void **state)
{
	struct kc_conf_grant g;
	char err[256], line[128];

	(void)state;
	/* Anywhere on the line, taken out before grant add's grammar. */
	assert_int_equal(1, parse("a.conf", "tag slurm-x vni 3 uid 4", &g, err,
				  sizeof(err)));
	assert_string_equal("slurm-x", g.tag);
	assert_int_equal(3, g.spec.vni);
	assert_int_equal(1, parse("a.conf", "vni 3 uid 4 tag grants.d/other",
				  &g, err, sizeof(err)));
	assert_string_equal("grants.d/other", g.tag);
	/* A user called "tag" is a value, not the keyword. */
	assert_int_equal(-1, parse("a.conf", "vni 3 user tag", &g, err,
				   sizeof(err)));
	assert_non_null(strstr(err, "unknown user 'tag'"));

	assert_int_equal(-1, parse("a.conf", "vni 3 uid 4 tag", &g, err,
				   sizeof(err)));
	assert_non_null(strstr(err, "'tag' needs a value"));
	assert_int_equal(-1, parse("a.conf", "vni 3 uid 4 tag a tag b", &g,
				   err, sizeof(err)));
	assert_non_null(strstr(err, "tag given twice"));
	/* 63 bytes fit, 64 do not. */
	snprintf(line, sizeof(line), "vni 3 uid 4 tag %.*s", KAV_TAG_MAX,
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	assert_int_equal(1, parse("a.conf", line, &g, err, sizeof(err)));
	assert_int_equal(KAV_TAG_MAX, strlen(g.tag));
	strcat(line, "x");
	assert_int_equal(-1, parse("a.conf", line, &g, err, sizeof(err)));
	assert_non_null(strstr(err, "is too long (at most 63 bytes)"));
	/* A file name too long for the default tag needs a tag. */
	assert_int_equal(-1, parse("a-very-long-file-name-that-does-not-fit-in-a-tag-at-all.conf",
				   "vni 1 uid 1", &g, err, sizeof(err)));
	assert_non_null(strstr(err, "give the line a tag"));
	assert_int_equal(1, parse("a-very-long-file-name-that-does-not-fit-in-a-tag-at-all.conf",
				  "vni 1 uid 1 tag short", &g, err,
				  sizeof(err)));
}

static void test_errors(void **state)
{
	struct kc_conf_grant g;
	char err[256];

	(void)state;
	assert_int_equal(-1, parse("a.conf", "vni 3 cgroup-id 5", &g, err,
				   sizeof(err)));
	assert_non_null(strstr(err, "'cgroup-id' does not survive a reboot"));
	assert_int_equal(-1, parse("a.conf", "vni 3 netns-pid 1", &g, err,
				   sizeof(err)));
	assert_non_null(strstr(err, "'netns-pid'"));
	assert_int_equal(-1, parse("a.conf", "vni 3 uid 4 colour red", &g, err,
				   sizeof(err)));
	assert_non_null(strstr(err, "'colour'"));
	assert_int_equal(-1, parse("a.conf", "vni 3", &g, err, sizeof(err)));
	assert_non_null(strstr(err, "missing selector"));
	assert_int_equal(-1, parse("a.conf", "uid 4", &g, err, sizeof(err)));
	assert_non_null(strstr(err, "missing vni"));
	assert_int_equal(-1, parse("a.conf", "vni 3 uid 4 gid 5", &g, err,
				   sizeof(err)));
	assert_non_null(strstr(err, "only one selector"));
	assert_int_equal(-1, parse("a.conf", "vni 3 group nosuchgroup-kav", &g,
				   err, sizeof(err)));
	assert_non_null(strstr(err, "unknown group 'nosuchgroup-kav'"));
}

/* "wire": grant add's flag, in a file too, refused as grant add refuses it. */
static void test_wire_lines(void **state)
{
	struct kc_conf_grant g;
	char err[256], buf[512];

	(void)state;
	assert_int_equal(1, parse("w.conf", "vni 9 uid 0 wire", &g, err,
				  sizeof(err)));
	assert_true(g.spec.wire);
	kc_conf_describe(&g, buf, sizeof(buf));
	assert_string_equal("vni 9 uid 0 tag grants.d/w wire", buf);
	assert_int_equal(1, parse("w.conf", "wire vni 9 user root tag site",
				  &g, err, sizeof(err)));
	assert_true(g.spec.wire);
	assert_string_equal("site", g.tag);
	assert_int_equal(1, parse("w.conf", "vni 9 uid 0", &g, err,
				  sizeof(err)));
	assert_false(g.spec.wire);
	assert_int_equal(-1, parse("w.conf", "vni 9 gid 0 wire", &g, err,
				   sizeof(err)));
	assert_non_null(strstr(err, "a socket carries no groups"));
	assert_int_equal(-1, parse("w.conf", "vni 1048576 uid 0 wire", &g, err,
				   sizeof(err)));
	assert_non_null(strstr(err, "cannot be a wire key"));
	assert_int_equal(-1, parse("w.conf", "vni 9 uid 0 wire wire", &g, err,
				   sizeof(err)));
	assert_non_null(strstr(err, "wire given twice"));
}

static void test_tags_and_describe(void **state)
{
	struct kc_conf_grant g;
	char err[256], tag[KAV_TAG_MAX + 1], buf[512];

	(void)state;
	kc_conf_default_tag("x.conf", tag, sizeof(tag));
	assert_string_equal("grants.d/x", tag);
	assert_true(kc_conf_owns_tag("grants.d/x"));
	assert_false(kc_conf_owns_tag("slurm-77"));
	assert_false(kc_conf_owns_tag(""));
	assert_false(kc_conf_owns_tag("grants.x"));

	assert_int_equal(1, parse("x.conf", "vni 9 user root max-entries 5 max-avs 2",
				  &g, err, sizeof(err)));
	kc_conf_describe(&g, buf, sizeof(buf));
	assert_string_equal("vni 9 user root (uid 0) max-entries 5 max-avs 2 tag grants.d/x",
			    buf);
	kc_conf_describe(&g, buf, 12);
	assert_string_equal("vni 9 us...", buf);
}

/* A directory: lexical order, *.conf only, errors counted, duplicates. */
static void test_load_dir(void **state)
{
	char dir[] = "/tmp/kav-conf-XXXXXX", path[256];
	uid_t me = geteuid();
	struct kc_conf c;

	(void)state;
	make_dir(dir);
#define WRITE(name, text) write_file(dir, name, text, 0644)
	WRITE("20-b.conf", "vni 2 uid 2\n");
	WRITE("10-a.conf", "# first\nvni 1 uid 1\n\nvni 3 uid 3 tag t\n");
	WRITE("30-skip.conf.bak", "garbage\n");
	WRITE(".hidden.conf", "garbage\n");
	snprintf(path, sizeof(path), "%s/40-dir.conf", dir);
	assert_int_equal(0, mkdir(path, 0755));

	assert_int_equal(0, kc_conf_load(dir, me, &c));
	assert_int_equal(0, c.nr_errors);
	assert_int_equal(2, c.nr_files);
	assert_int_equal(3, c.n);
	assert_string_equal("10-a.conf", c.g[0].file);
	assert_int_equal(2, c.g[0].line);
	assert_int_equal(1, c.g[0].spec.vni);
	assert_int_equal(4, c.g[1].line);
	assert_string_equal("t", c.g[1].tag);
	assert_string_equal("20-b.conf", c.g[2].file);
	assert_string_equal("grants.d/20-b", c.g[2].tag);
	kc_conf_free(&c);

	/* The same vni, selector and tag twice; a bad line: both counted. */
	WRITE("50-dup.conf", "vni 3 uid 3 tag t\nvni x uid 1\nvni 1 uid 1\n");
	assert_int_equal(0, kc_conf_load(dir, me, &c));
	assert_int_equal(2, c.nr_errors);
	assert_int_equal(4, c.n);	/* 50-dup's third line: its own tag */
	kc_conf_free(&c);

	remove_dir(dir);

	/* Missing: no error; not a directory: error. */
	assert_int_equal(0, kc_conf_load(dir, me, &c));
	assert_true(c.dir_missing);
	assert_int_equal(0, c.n);
	kc_conf_free(&c);
	nr_kc_err = 0;
	assert_int_equal(-1, kc_conf_load("/dev/null", me, &c));
	assert_int_equal(1, nr_kc_err);
#undef WRITE
}

/* A uid (@group: a gid) that no user (group) has, or is named as. */
static uint32_t free_id(bool group)
{
	char name[16];
	uint32_t id;

	for (id = 64000; id < 65000; id++) {
		snprintf(name, sizeof(name), "%u", id);
		if (group ? !getgrgid(id) && !getgrnam(name) :
			    !getpwuid(id) && !getpwnam(name))
			return id;
	}
	fail_msg("no free %s between 64000 and 65000", group ? "gid" : "uid");
	return 0;
}

/*
 * R2: grants.d reads only what only its owner (root) can write: a link
 * to a user's file, a file anyone or its group may write, a FIFO and a
 * file of another uid are skipped, each with its name and the reason.
 */
static void test_untrusted_files(void **state)
{
	static const struct { const char *name, *why; } bad[] = {
		{ "20-link.conf", "a symbolic link (not followed)" },
		{ "30-world.conf", "writable by others (mode 0666)" },
		{ "40-group.conf", "writable by its group" },
		{ "50-fifo.conf", "a FIFO, not a regular file" },
		{ "60-other.conf", "owned by uid 65534, not root" },
	};
	char dir[] = "/tmp/kav-conf-XXXXXX", user[] = "/tmp/kav-user-XXXXXX";
	char path[512], err[256], want[256];
	uid_t me = geteuid();
	/* Only root can give a file away (the last case). */
	size_t nbad = me == 0 ? 5 : 4, i;
	const char *out;
	struct kc_conf c;
	int dirfd, fd;

	(void)state;
	make_dir(dir);
	write_file(dir, "10-ok.conf", "vni 10 uid 10\n", 0644);
	/* A user's file that anyone may write, and a link to it. */
	fd = mkstemp(user);
	assert_true(fd >= 0);
	assert_int_equal(0, fchmod(fd, 0666));
	assert_int_equal(14, write(fd, "vni 20 uid 20\n", 14));
	close(fd);
	snprintf(path, sizeof(path), "%s/20-link.conf", dir);
	assert_int_equal(0, symlink(user, path));
	write_file(dir, "30-world.conf", "vni 30 uid 30\n", 0666);
	write_file(dir, "40-group.conf", "vni 40 uid 40\n", 0664);
	snprintf(path, sizeof(path), "%s/50-fifo.conf", dir);
	assert_int_equal(0, mkfifo(path, 0644));
	if (me == 0) {
		write_file(dir, "60-other.conf", "vni 60 uid 60\n", 0644);
		snprintf(path, sizeof(path), "%s/60-other.conf", dir);
		assert_int_equal(0, chown(path, 65534, (gid_t)-1));
	}

	/* Only 10-ok.conf is read (the FIFO did not block the read). */
	capture_start();
	assert_int_equal(0, kc_conf_load(dir, me, &c));
	out = capture_end();
	assert_int_equal(1, c.n);
	assert_int_equal(10, c.g[0].spec.vni);
	assert_int_equal(1, c.nr_files);
	assert_int_equal(nbad, c.nr_skipped);
	assert_int_equal(nbad, c.nr_errors);
	for (i = 0; i < nbad; i++) {
		snprintf(want, sizeof(want), "%s: skipped: %s", bad[i].name,
			 bad[i].why);
		expect_in(out, want);
	}
	kc_conf_free(&c);

	/* The check itself, on each file. */
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dirfd >= 0);
	fd = kc_conf_open_file(dirfd, "10-ok.conf", me, err, sizeof(err));
	assert_true(fd >= 0);
	close(fd);
	for (i = 0; i < nbad; i++) {
		err[0] = '\0';
		assert_int_equal(-1, kc_conf_open_file(dirfd, bad[i].name, me,
						       err, sizeof(err)));
		expect_in(err, bad[i].why);
	}
	/* The owner is a parameter: for another uid, not even 10-ok.conf. */
	assert_int_equal(-1, kc_conf_open_file(dirfd, "10-ok.conf", me + 1,
					       err, sizeof(err)));
	expect_in(err, "owned by uid");
	close(dirfd);
	remove_dir(dir);
	unlink(user);
}

/* R2: the directory too: not read at all if others could change it. */
static void test_untrusted_dir(void **state)
{
	static const struct { mode_t mode; const char *why; } modes[] = {
		{ 0777, "not read: writable by others (mode 0777)" },
		{ 01777, "not read: writable by others (mode 1777)" },
		{ 0775, "not read: writable by its group" },
	};
	char dir[] = "/tmp/kav-conf-XXXXXX";
	uid_t me = geteuid();
	const char *out;
	struct kc_conf c;
	size_t i;

	(void)state;
	make_dir(dir);
	write_file(dir, "10-ok.conf", "vni 10 uid 10\n", 0644);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		assert_int_equal(0, chmod(dir, modes[i].mode));
		capture_start();
		assert_int_equal(0, kc_conf_load(dir, me, &c));
		out = capture_end();
		assert_true(c.dir_untrusted);
		assert_int_equal(0, c.n);
		assert_int_equal(1, c.nr_errors);
		expect_in(out, modes[i].why);
		kc_conf_free(&c);
	}
	assert_int_equal(0, chmod(dir, 0755));
	if (me == 0) {
		assert_int_equal(0, chown(dir, 65534, (gid_t)-1));
		capture_start();
		assert_int_equal(0, kc_conf_load(dir, me, &c));
		out = capture_end();
		assert_true(c.dir_untrusted);
		assert_int_equal(0, c.n);
		expect_in(out, "not read: owned by uid 65534, not root");
		kc_conf_free(&c);
		assert_int_equal(0, chown(dir, me, (gid_t)-1));
	}
	assert_int_equal(0, kc_conf_load(dir, me, &c));
	assert_false(c.dir_untrusted);
	assert_int_equal(0, c.nr_errors);
	assert_int_equal(1, c.n);
	kc_conf_free(&c);
	remove_dir(dir);
}

/* R2: in a file, "netns NAME" is /run/netns/NAME and nothing else. */
static void test_netns_name(void **state)
{
	static const struct { const char *line, *why; } bad[] = {
		{ "vni 3 netns ../../proc/1/ns/net", "is a path" },
		{ "vni 3 netns /proc/1/ns/net", "is a path" },
		{ "vni 3 netns /run/netns/blue", "is a path" },
		{ "vni 3 netns ./blue", "is a path" },
		{ "vni 3 netns ..", "invalid netns name '..'" },
		{ "vni 3 netns .", "invalid netns name '.'" },
		{ "vni 3 netns a\x01z", "invalid netns name" },
		{ "vni 3 netns caf\xc3\xa9", "invalid netns name" },
		/* Abbreviations are the words they stand for. */
		{ "vni 3 netns-p 1", "'netns-pid' does not survive a reboot" },
		{ "vni 3 cgroup-i 5", "'cgroup-id' does not survive a reboot" },
	};
	struct kc_conf_grant g;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (parse("a.conf", bad[i].line, &g, err, sizeof(err)) != -1)
			fail_msg("'%s' was taken", bad[i].line);
		expect_in(err, bad[i].why);
	}
	assert_int_equal(1, parse("a.conf", "vni 3 netns blue", &g, err,
				  sizeof(err)));
	assert_int_equal(KAV_SEL_NETNS, g.spec.sel.type);
	assert_string_equal("/run/netns/blue", g.spec.sel.netns_path);
}

/* R2: an unknown user or group, by name or by number, is an error. */
static void test_unknown_user(void **state)
{
	uint32_t uid = free_id(false), gid = free_id(true);
	struct kc_conf_grant g;
	char err[256], line[64], want[64];

	(void)state;
	snprintf(line, sizeof(line), "vni 1 user %u", uid);
	snprintf(want, sizeof(want), "unknown user '%u'", uid);
	assert_int_equal(-1, parse("a.conf", line, &g, err, sizeof(err)));
	expect_in(err, want);
	snprintf(line, sizeof(line), "vni 1 group %u", gid);
	snprintf(want, sizeof(want), "unknown group '%u'", gid);
	assert_int_equal(-1, parse("a.conf", line, &g, err, sizeof(err)));
	expect_in(err, want);
	assert_int_equal(-1, parse("a.conf", "vni 1 user no-such-user-kav", &g,
				   err, sizeof(err)));
	expect_in(err, "unknown user 'no-such-user-kav'");
	/* A number is the uid of the user who has it... */
	assert_int_equal(1, parse("a.conf", "vni 1 user 0", &g, err,
				  sizeof(err)));
	assert_int_equal(KAV_SEL_UID, g.spec.sel.type);
	assert_int_equal(0, g.sel_id);
	/* ... and "uid N" is any uid, a user's or not. */
	snprintf(line, sizeof(line), "vni 1 uid %u", uid);
	assert_int_equal(1, parse("a.conf", line, &g, err, sizeof(err)));
	assert_int_equal(uid, g.sel_id);
}

/*
 * R2: one tag rule, the kernel's (printable ASCII 0x20..0x7e, at most
 * KAV_TAG_MAX bytes): kc_parse_tag(), grant add's parser and a line of a
 * file refuse the same tags with the same words.
 */
static void test_one_tag_rule(void **state)
{
	static const char *const bad[] = {
		"caf\xc3\xa9", "\x80", "x\xff", "bell\a", "esc\x1b[2J",
		"del\x7f",
	};
	char why[256], err[256], line[128], tag[KAV_TAG_MAX + 1];
	struct kc_grant_spec spec;
	struct kc_conf_grant g;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "vni", "1", "uid", "1", "tag", (char *)bad[i] };

		assert_int_equal(-1, kc_parse_tag(bad[i], tag, why,
						  sizeof(why)));
		expect_in(why, "printable ASCII");
		assert_int_equal(-1, kc_parse_grant_spec(6, argv, &spec, err,
							 sizeof(err)));
		assert_string_equal(why, err);
		snprintf(line, sizeof(line), "vni 1 uid 1 tag %s", bad[i]);
		err[0] = '\0';
		if (parse("a.conf", line, &g, err, sizeof(err)) != -1)
			fail_msg("tag #%zu was taken in a file", i);
		assert_string_equal(why, err);
	}
	/* Every printable byte is fine, space too (not in a file's word). */
	assert_int_equal(0, kc_parse_tag("a b~!#", tag, why, sizeof(why)));
	assert_int_equal(1, parse("a.conf", "vni 1 uid 1 tag ~!#{}", &g, err,
				  sizeof(err)));
	assert_string_equal("~!#{}", g.tag);
	/* The tag a file's name makes, by the same rule. */
	assert_int_equal(-1, parse("caf\xc3\xa9.conf", "vni 1 uid 1", &g, err,
				   sizeof(err)));
	expect_in(err, "printable ASCII (0x20..0x7e) is allowed, not byte 0xc3");
	expect_in(err, "give the line a tag");
	assert_int_equal(1, parse("caf\xc3\xa9.conf", "vni 1 uid 1 tag t", &g,
				  err, sizeof(err)));
}

/* kavctl apply [--dry-run] --dir @dir: its status and what it said. */
static int run_apply(const char *dir, bool dry_run, const char **out)
{
	char *argv[5];
	int argc = 0, ret;

	argv[argc++] = "apply";
	if (dry_run)
		argv[argc++] = "--dry-run";
	argv[argc++] = "--dir";
	argv[argc++] = (char *)dir;
	argv[argc] = NULL;
	capture_start();
	ret = kc_apply_main(argc, argv);
	*out = capture_end();
	return ret;
}

/*
 * R2: --dry-run checks what apply checks, with the same code: a file
 * that either refuses, both refuse, with the same words, before any
 * netlink (the stubs above), and one either takes applies whole.
 */
static void test_dry_run_is_apply(void **state)
{
	char user[] = "/tmp/kav-user-XXXXXX", line[128], link[512];
	const char *cases[6];
	char dry[sizeof(cap_buf)];
	const char *out;
	size_t i;
	int fd;

	(void)state;
	/* apply trusts root's files only (KC_CONF_OWNER). */
	if (geteuid() != 0)
		skip();
	snprintf(line, sizeof(line), "vni 4 user %u\n", free_id(false));
	cases[0] = "vni 3 netns ../../proc/1/ns/net\n";
	cases[1] = line;
	cases[2] = "vni 5 uid 5 tag caf\xc3\xa9\n";
	cases[3] = "vni 6 uid 6 tag bell\a\n";
	cases[4] = "vni 7 uid 7 tag grants.d/x\nvni 8 netns ..\n";
	cases[5] = NULL;	/* a link to a user's file */
	fd = mkstemp(user);
	assert_true(fd >= 0);
	assert_int_equal(0, fchmod(fd, 0666));
	assert_int_equal(12, write(fd, "vni 9 uid 9\n", 12));
	close(fd);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char dir[] = "/tmp/kav-conf-XXXXXX";

		make_dir(dir);
		if (cases[i]) {
			write_file(dir, "10-x.conf", cases[i], 0644);
		} else {
			snprintf(link, sizeof(link), "%s/10-x.conf", dir);
			assert_int_equal(0, symlink(user, link));
		}
		assert_int_equal(KC_EXIT_USAGE, run_apply(dir, true, &out));
		snprintf(dry, sizeof(dry), "%s", out);
		expect_in(dry, cases[i] ? "10-x.conf:" : "10-x.conf: skipped");
		expect_in(dry, "nothing changed");
		assert_int_equal(KC_EXIT_USAGE, run_apply(dir, false, &out));
		assert_string_equal(dry, out);
		remove_dir(dir);
	}
	unlink(user);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blank_and_comments),
		cmocka_unit_test(test_line_and_default_tag),
		cmocka_unit_test(test_tag),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_tags_and_describe),
		cmocka_unit_test(test_wire_lines),
		cmocka_unit_test(test_load_dir),
		cmocka_unit_test(test_untrusted_files),
		cmocka_unit_test(test_untrusted_dir),
		cmocka_unit_test(test_netns_name),
		cmocka_unit_test(test_unknown_user),
		cmocka_unit_test(test_one_tag_rule),
		cmocka_unit_test(test_dry_run_is_apply),
	};

	/* The files are made with the modes asked for, not less. */
	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
