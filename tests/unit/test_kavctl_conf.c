// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl apply: the grants.d files (tools/kavctl/conf.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kav.h>

#include "../../tools/kavctl/conf.h"

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
	assert_non_null(strstr(err, "invalid tag"));
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
	struct kc_conf c;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
#define WRITE(name, text) do { \
		snprintf(path, sizeof(path), "%s/%s", dir, name); \
		f = fopen(path, "w"); \
		assert_non_null(f); \
		fputs(text, f); \
		fclose(f); \
	} while (0)
	WRITE("20-b.conf", "vni 2 uid 2\n");
	WRITE("10-a.conf", "# first\nvni 1 uid 1\n\nvni 3 uid 3 tag t\n");
	WRITE("30-skip.conf.bak", "garbage\n");
	WRITE(".hidden.conf", "garbage\n");
	snprintf(path, sizeof(path), "%s/40-dir.conf", dir);
	assert_int_equal(0, mkdir(path, 0755));

	assert_int_equal(0, kc_conf_load(dir, &c));
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
	assert_int_equal(0, kc_conf_load(dir, &c));
	assert_int_equal(2, c.nr_errors);
	assert_int_equal(4, c.n);	/* 50-dup's third line: its own tag */
	kc_conf_free(&c);

	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(0, system(path));

	/* Missing: no error; not a directory: error. */
	assert_int_equal(0, kc_conf_load(dir, &c));
	assert_true(c.dir_missing);
	assert_int_equal(0, c.n);
	kc_conf_free(&c);
	nr_kc_err = 0;
	assert_int_equal(-1, kc_conf_load("/dev/null", &c));
	assert_int_equal(1, nr_kc_err);
#undef WRITE
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blank_and_comments),
		cmocka_unit_test(test_line_and_default_tag),
		cmocka_unit_test(test_tag),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_tags_and_describe),
		cmocka_unit_test(test_load_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
