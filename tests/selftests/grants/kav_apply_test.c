// SPDX-License-Identifier: GPL-2.0
/*
 * kavctl apply: declarative grants from a grants.d directory (kavctl(8)).
 *
 * Runs tools/kavctl/kavctl, which lanes/vm/vm.sh installs in /tests
 * next to this program ($KAV_KAVCTL overrides), against the module, and
 * checks the kernel's grants through its own netlink socket: tags and
 * limits as the files say, nothing added twice, limits changed in place
 * (same grant id), --dry-run changing nothing, --prune revoking only the
 * files' grants, parse errors changing nothing, and everything restored
 * after the module is unloaded and loaded again (the kav-grants.service
 * case). The last test reloads kav.ko from $KAV_MODULE (/kav.ko), as
 * guest-init.sh loaded it.
 *
 * The guest has no users: the test adds kavapply1 (uid 2001) and group
 * kavgrp (gid 3001) to /etc/passwd and /etc/group.
 */
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <grp.h>
#include <pwd.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_nl_util.h"

#define USER_NAME	"kavapply1"
#define USER_UID	2001
#define GROUP_NAME	"kavgrp"
#define GROUP_GID	3001
#define NETNS_NAME	"kavapply"
#define CGROUP_NAME	"kavapply"
#define OUT_MAX		16384
#define MAX_GRANTS	256

struct tgrants {
	struct kav_nl_grant g[MAX_GRANTS];
	size_t n;
};

/* Every live grant (a fresh socket: the family id changes on reload). */
static int dump(struct tgrants *l)
{
	struct kav_nl nl;
	int ret;

	l->n = 0;
	ret = kav_nl_open(&nl);
	if (ret)
		return ret;
	ret = kav_nl_grants(&nl, l->g, MAX_GRANTS, &l->n);
	kav_nl_close(&nl);
	return ret;
}

static const struct kav_nl_grant *find(const struct tgrants *l, uint32_t vni,
				 const char *tag)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->g[i].vni == vni && !strcmp(l->g[i].tag, tag))
			return &l->g[i];
	return NULL;
}

static const struct kav_nl_grant *find_id(const struct tgrants *l, uint32_t id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->g[i].id == id)
			return &l->g[i];
	return NULL;
}

/* Revokes every grant: each test starts from none. */
static int revoke_all(void)
{
	struct tgrants *l = malloc(sizeof(*l));
	struct kav_nl nl;
	size_t i;
	int ret;

	if (!l)
		return -ENOMEM;
	ret = dump(l);
	if (!ret)
		ret = kav_nl_open(&nl);
	for (i = 0; !ret && i < l->n; i++)
		ret = kav_nl_grant_del(&nl, l->g[i].id);
	if (!ret)
		kav_nl_close(&nl);
	free(l);
	return ret;
}

/* A grant made by hand (not by apply), with @tag unless NULL. */
static int grant_by_hand(uint32_t vni, uint32_t uid, const char *tag,
			 uint32_t *id)
{
	struct kav_grant_spec s = { .vni = vni, .sel_type = KAV_SEL_UID,
				    .sel_id = uid, .tag = tag };
	struct kav_nl_grant g;
	struct kav_nl nl;
	int ret;

	ret = kav_nl_open(&nl);
	if (ret)
		return ret;
	ret = kav_nl_grant_add(&nl, &s, &g);
	kav_nl_close(&nl);
	if (!ret)
		*id = g.id;
	return ret;
}

static const char *kavctl_path(void)
{
	static char path[PATH_MAX + 16];
	const char *env = getenv("KAV_KAVCTL");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return "/tests/kavctl";
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(path, sizeof(path), "%s/kavctl", self);
	return path;
}

/*
 * Runs `kavctl apply --dir DIR ARGS...` with stdout and stderr into @out.
 * Returns the exit status, or -1. The output is echoed as TAP comments.
 */
static int apply(const char *dir, char *out, const char *a1, const char *a2)
{
	const char *argv[8];
	int pfd[2], status, argc = 0;
	size_t o = 0;
	ssize_t n;
	pid_t pid;

	argv[argc++] = "kavctl";
	argv[argc++] = "apply";
	if (dir) {
		argv[argc++] = "--dir";
		argv[argc++] = dir;
	}
	if (a1)
		argv[argc++] = a1;
	if (a2)
		argv[argc++] = a2;
	argv[argc] = NULL;
	out[0] = '\0';
	if (pipe(pfd))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execv(kavctl_path(), (char **)argv);
		fprintf(stderr, "exec %s: %s\n", kavctl_path(),
			strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], out + o, OUT_MAX - 1 - o)) > 0)
		o += (size_t)n;
	out[o] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	{
		char *line, *save = NULL, *copy = strdup(out);

		for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			printf("#   %s\n", line);
		free(copy);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A fresh, empty directory /tmp/kav-apply-NAME. */
static const char *fresh_dir(const char *name)
{
	static char dir[PATH_MAX];
	char cmd[PATH_MAX + 16];

	snprintf(dir, sizeof(dir), "/tmp/kav-apply-%s", name);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0 || mkdir(dir, 0755))
		return NULL;
	return dir;
}

/* Appends @line to @path. */
static int ensure_line(const char *path, const char *line)
{
	FILE *f = fopen(path, "a");

	if (!f)
		return -1;
	fputs(line, f);
	return fclose(f);
}

/* The guest has no /etc/passwd: our user and group, for NSS "files". */
static int ensure_users(void)
{
	mkdir("/etc", 0755);
	if (access("/etc/nsswitch.conf", F_OK) &&
	    ensure_line("/etc/nsswitch.conf", "passwd: files\ngroup: files\n"))
		return -1;
	if (!getpwnam(USER_NAME) &&
	    ensure_line("/etc/passwd", USER_NAME ":x:2001:3001::/:/bin/sh\n"))
		return -1;
	if (!getgrnam(GROUP_NAME) &&
	    ensure_line("/etc/group", GROUP_NAME ":x:3001:" USER_NAME "\n"))
		return -1;
	return getpwnam(USER_NAME) && getgrnam(GROUP_NAME) ? 0 : -1;
}

/* /run/netns/NAME, as `ip netns add NAME` makes it. */
static int make_netns(void)
{
	char src[64];
	int pfd[2], fd;
	pid_t pid;
	char c;

	mkdir("/run", 0755);
	mkdir("/run/netns", 0755);
	if (access("/run/netns/" NETNS_NAME, F_OK) == 0)
		return 0;
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		c = unshare(CLONE_NEWNET) ? 'e' : 'o';
		if (write(pfd[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], &c, 1) != 1 || c != 'o')
		return -1;
	close(pfd[0]);
	fd = open("/run/netns/" NETNS_NAME, O_RDONLY | O_CREAT | O_EXCL, 0444);
	if (fd >= 0)
		close(fd);
	snprintf(src, sizeof(src), "/proc/%d/ns/net", pid);
	fd = mount(src, "/run/netns/" NETNS_NAME, NULL, MS_BIND, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return fd;
}

static uint64_t cgroup_id(void)
{
	struct stat st;

	mkdir("/sys/fs/cgroup/" CGROUP_NAME, 0755);
	if (stat("/sys/fs/cgroup/" CGROUP_NAME, &st))
		return 0;
	return (uint64_t)st.st_ino;
}

static const char site_conf[] =
	"# the site's grants\n"
	"vni 50 user " USER_NAME " max-entries 100000\n"
	"vni 51 group " GROUP_NAME "   # a comment after the words\n"
	"\n"
	"vni 52 uid 1000 max-avs 4\n"
	"	vni 53 gid 100 tag custom-53\n";

FIXTURE(apply)
{
	char out[OUT_MAX];
	const char *dir;
	struct tgrants l;
};

FIXTURE_SETUP(apply)
{
	ASSERT_EQ(0, ensure_users());
	ASSERT_EQ(0, revoke_all());
	self->dir = fresh_dir(_metadata->name);
	ASSERT_NE(NULL, self->dir);
}

FIXTURE_TEARDOWN(apply)
{
	revoke_all();
}

/* Grants as the files say: selectors resolved, limits, tags. */
TEST_F(apply, adds_tagged_grants)
{
	const struct kav_nl_grant *g;

	ASSERT_EQ(0, write_file(self->dir, "10-site.conf", site_conf));
	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->out, "4 added, 0 updated, 0 unchanged"));
	ASSERT_EQ(0, dump(&self->l));
	EXPECT_EQ(4, self->l.n);

	g = find(&self->l, 50, "grants.d/10-site");
	ASSERT_NE(NULL, g);
	EXPECT_EQ(KAV_SEL_UID, g->sel_type);
	EXPECT_EQ(USER_UID, g->sel_id);
	EXPECT_EQ(100000, g->limit_entries);
	EXPECT_EQ(0, g->limit_avs);

	g = find(&self->l, 51, "grants.d/10-site");
	ASSERT_NE(NULL, g);
	EXPECT_EQ(KAV_SEL_GID, g->sel_type);
	EXPECT_EQ(GROUP_GID, g->sel_id);
	EXPECT_EQ(0, g->limit_entries);

	g = find(&self->l, 52, "grants.d/10-site");
	ASSERT_NE(NULL, g);
	EXPECT_EQ(KAV_SEL_UID, g->sel_type);
	EXPECT_EQ(1000, g->sel_id);
	EXPECT_EQ(4, g->limit_avs);

	g = find(&self->l, 53, "custom-53");
	ASSERT_NE(NULL, g);
	EXPECT_EQ(KAV_SEL_GID, g->sel_type);
	EXPECT_EQ(100, g->sel_id);
}

/* A second apply finds everything in place: same ids, same count. */
TEST_F(apply, again_is_a_no_op)
{
	struct tgrants *before = malloc(sizeof(*before));
	size_t i;

	ASSERT_NE(NULL, before);
	ASSERT_EQ(0, write_file(self->dir, "10-site.conf", site_conf));
	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	ASSERT_EQ(0, dump(before));
	ASSERT_EQ(4, before->n);

	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->out, "0 added, 0 updated, 4 unchanged"));
	ASSERT_EQ(0, apply(self->dir, self->out, "--prune", NULL));
	EXPECT_NE(NULL, strstr(self->out,
			       "0 added, 0 updated, 4 unchanged, 0 pruned"));
	ASSERT_EQ(0, dump(&self->l));
	EXPECT_EQ(before->n, self->l.n);
	for (i = 0; i < before->n; i++) {
		const struct kav_nl_grant *g = find_id(&self->l, before->g[i].id);

		ASSERT_NE(NULL, g);
		EXPECT_EQ(before->g[i].limit_entries, g->limit_entries);
		EXPECT_STREQ(before->g[i].tag, g->tag);
	}
	free(before);
}

/* A changed limit: --dry-run only says so; apply changes the same grant. */
TEST_F(apply, limit_change_in_place)
{
	const struct kav_nl_grant *g;
	char expect[128];
	uint32_t id;

	ASSERT_EQ(0, write_file(self->dir, "10-site.conf", site_conf));
	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	ASSERT_EQ(0, dump(&self->l));
	g = find(&self->l, 50, "grants.d/10-site");
	ASSERT_NE(NULL, g);
	id = g->id;

	ASSERT_EQ(0, write_file(self->dir, "10-site.conf",
				"vni 50 user " USER_NAME " max-entries 200 max-avs 2\n"
				"vni 51 group " GROUP_NAME "\n"
				"vni 52 uid 1000\n"
				"vni 53 gid 100 tag custom-53\n"));
	ASSERT_EQ(0, apply(self->dir, self->out, "--dry-run", NULL));
	snprintf(expect, sizeof(expect), "update grant %u: vni 50", id);
	EXPECT_NE(NULL, strstr(self->out, expect));
	EXPECT_NE(NULL, strstr(self->out, "0 to add, 2 to update, 2 unchanged"));
	ASSERT_EQ(0, dump(&self->l));
	g = find_id(&self->l, id);
	ASSERT_NE(NULL, g);
	EXPECT_EQ(100000, g->limit_entries);

	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	snprintf(expect, sizeof(expect), "updated grant %u: vni 50", id);
	EXPECT_NE(NULL, strstr(self->out, expect));
	EXPECT_NE(NULL, strstr(self->out, "0 added, 2 updated, 2 unchanged"));
	ASSERT_EQ(0, dump(&self->l));
	EXPECT_EQ(4, self->l.n);
	g = find_id(&self->l, id);
	ASSERT_NE(NULL, g);
	EXPECT_EQ(50, g->vni);
	EXPECT_EQ(200, g->limit_entries);
	EXPECT_EQ(2, g->limit_avs);
	/* "max-avs 4" went: no limit any more, on the same grant. */
	g = find(&self->l, 52, "grants.d/10-site");
	ASSERT_NE(NULL, g);
	EXPECT_EQ(0, g->limit_avs);
}

/* --dry-run adds, updates and prunes nothing. */
TEST_F(apply, dry_run_changes_nothing)
{
	uint32_t id;

	ASSERT_EQ(0, write_file(self->dir, "10-site.conf", site_conf));
	ASSERT_EQ(0, grant_by_hand(60, 60, "grants.d/gone", &id));
	ASSERT_EQ(0, apply(self->dir, self->out, "--dry-run", "--prune"));
	EXPECT_NE(NULL, strstr(self->out,
			       "dry run: 4 to add, 0 to update, 0 unchanged, 1 to prune"));
	ASSERT_EQ(0, dump(&self->l));
	EXPECT_EQ(1, self->l.n);
	EXPECT_NE(NULL, find_id(&self->l, id));
}

/*
 * --prune revokes the files' grants that no line produces, and never a
 * grant made by hand (no tag) or by Slurm ("slurm-1"); without --prune
 * nothing is revoked.
 */
TEST_F(apply, prune_only_the_files_grants)
{
	uint32_t manual, slurm, stale;
	const struct kav_nl_grant *g;
	char expect[64];

	ASSERT_EQ(0, write_file(self->dir, "10-site.conf", site_conf));
	ASSERT_EQ(0, write_file(self->dir, "20-more.conf",
				"vni 70 uid 70\nvni 71 uid 71\n"));
	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	ASSERT_EQ(0, grant_by_hand(70, 70, NULL, &manual));
	ASSERT_EQ(0, grant_by_hand(70, 70, "slurm-1", &slurm));
	/* A file that was deleted since its grants were applied. */
	ASSERT_EQ(0, grant_by_hand(72, 72, "grants.d/deleted", &stale));
	ASSERT_EQ(0, dump(&self->l));
	ASSERT_EQ(9, self->l.n);
	g = find(&self->l, 71, "grants.d/20-more");
	ASSERT_NE(NULL, g);

	ASSERT_EQ(0, write_file(self->dir, "20-more.conf", "vni 70 uid 70\n"));
	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->out, "0 added, 0 updated, 5 unchanged, 0 pruned"));
	ASSERT_EQ(0, dump(&self->l));
	EXPECT_EQ(9, self->l.n);

	ASSERT_EQ(0, apply(self->dir, self->out, "--prune", NULL));
	EXPECT_NE(NULL, strstr(self->out, "0 added, 0 updated, 5 unchanged, 2 pruned"));
	snprintf(expect, sizeof(expect), "pruned grant %u: vni 72", stale);
	EXPECT_NE(NULL, strstr(self->out, expect));
	ASSERT_EQ(0, dump(&self->l));
	EXPECT_EQ(7, self->l.n);
	EXPECT_EQ(NULL, find(&self->l, 71, "grants.d/20-more"));
	EXPECT_EQ(NULL, find_id(&self->l, stale));
	EXPECT_NE(NULL, find_id(&self->l, manual));
	EXPECT_NE(NULL, find_id(&self->l, slurm));
	EXPECT_NE(NULL, find(&self->l, 70, "grants.d/20-more"));
}

/* Every error names file:line and the word; nothing is applied. */
TEST_F(apply, parse_errors_change_nothing)
{
	ASSERT_EQ(0, write_file(self->dir, "10-site.conf", site_conf));
	ASSERT_EQ(0, write_file(self->dir, "20-bad.conf",
				"vni 60 uid 60\n"
				"vni 61 user nosuchuser\n"
				"# fine\n"
				"vni x uid 1\n"
				"vni 62 group nosuchgroup\n"
				"vni 63 netns nosuchns\n"
				"vni 64 uid 64 frobnicate 1\n"
				"vni 65 netns-pid 1\n"
				"vni 50 user " USER_NAME " max-entries 100000 tag grants.d/10-site\n"));
	/* Not *.conf: never read. */
	ASSERT_EQ(0, write_file(self->dir, "30-skip.txt", "garbage\n"));
	EXPECT_EQ(1, apply(self->dir, self->out, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->out, "20-bad.conf:2: unknown user 'nosuchuser'"));
	EXPECT_NE(NULL, strstr(self->out, "20-bad.conf:4: invalid vni 'x'"));
	EXPECT_NE(NULL, strstr(self->out, "20-bad.conf:5: unknown group 'nosuchgroup'"));
	EXPECT_NE(NULL, strstr(self->out, "20-bad.conf:6: netns /run/netns/nosuchns"));
	EXPECT_NE(NULL, strstr(self->out, "20-bad.conf:7: unknown argument 'frobnicate'"));
	EXPECT_NE(NULL, strstr(self->out, "20-bad.conf:8: 'netns-pid'"));
	EXPECT_NE(NULL, strstr(self->out, "20-bad.conf:9: same vni, selector and tag as 10-site.conf:2"));
	EXPECT_NE(NULL, strstr(self->out, "7 errors"));
	EXPECT_EQ(NULL, strstr(self->out, "30-skip"));
	ASSERT_EQ(0, dump(&self->l));
	EXPECT_EQ(0, self->l.n);
}

/* No directory: nothing to do; a directory that cannot be read: error. */
TEST_F(apply, missing_and_unreadable_dir)
{
	char env[PATH_MAX + 32];

	EXPECT_EQ(0, apply("/nonexistent/grants.d", self->out, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->out, "nothing to apply"));
	EXPECT_NE(0, apply("/proc/self/status", self->out, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->out, "cannot read /proc/self/status"));
	/* $KAV_GRANTS_DIR stands for --dir. */
	ASSERT_EQ(0, write_file(self->dir, "a.conf", "vni 80 uid 80\n"));
	snprintf(env, sizeof(env), "%s", self->dir);
	ASSERT_EQ(0, setenv("KAV_GRANTS_DIR", env, 1));
	EXPECT_EQ(0, apply(NULL, self->out, NULL, NULL));
	unsetenv("KAV_GRANTS_DIR");
	ASSERT_EQ(0, dump(&self->l));
	EXPECT_EQ(1, self->l.n);
	EXPECT_NE(NULL, find(&self->l, 80, "grants.d/a"));
}

/* cgroup and named netns lines are matched again by id and cookie. */
TEST_F(apply, cgroup_and_netns)
{
	const struct kav_nl_grant *g;
	uint64_t cg = cgroup_id();

	ASSERT_NE(0, cg);
	ASSERT_EQ(0, make_netns());
	ASSERT_EQ(0, write_file(self->dir, "ns.conf",
				"vni 90 cgroup /" CGROUP_NAME " max-entries 9\n"
				"vni 91 netns " NETNS_NAME "\n"));
	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->out, "2 added"));
	ASSERT_EQ(0, dump(&self->l));
	EXPECT_EQ(2, self->l.n);
	g = find(&self->l, 90, "grants.d/ns");
	ASSERT_NE(NULL, g);
	EXPECT_EQ(KAV_SEL_CGROUP, g->sel_type);
	EXPECT_EQ(cg, g->cgroup_id);
	g = find(&self->l, 91, "grants.d/ns");
	ASSERT_NE(NULL, g);
	EXPECT_EQ(KAV_SEL_NETNS, g->sel_type);
	EXPECT_NE(0, g->netns_cookie);

	ASSERT_EQ(0, apply(self->dir, self->out, "--prune", NULL));
	EXPECT_NE(NULL, strstr(self->out, "0 added, 0 updated, 2 unchanged, 0 pruned"));
	ASSERT_EQ(0, dump(&self->l));
	EXPECT_EQ(2, self->l.n);
}

/*
 * What kav-grants.service is for: the module is unloaded and loaded
 * again, with no grants; apply restores every one, once.
 */
TEST_F(apply, module_reload_restores)
{
	size_t i, j;

	ASSERT_EQ(0, write_file(self->dir, "10-site.conf", site_conf));
	ASSERT_EQ(0, write_file(self->dir, "20-more.conf",
				"vni 70 uid 70 max-avs 3\nvni 71 group " GROUP_NAME "\n"));
	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	ASSERT_EQ(0, dump(&self->l));
	ASSERT_EQ(6, self->l.n);

	ASSERT_EQ(0, kav_module_unload());
	ASSERT_EQ(0, kav_module_load());
	ASSERT_EQ(0, kav_wait_for_device());
	ASSERT_EQ(0, dump(&self->l));
	ASSERT_EQ(0, self->l.n);

	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->out, "6 added, 0 updated, 0 unchanged"));
	ASSERT_EQ(0, apply(self->dir, self->out, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->out, "0 added, 0 updated, 6 unchanged"));
	ASSERT_EQ(0, dump(&self->l));
	ASSERT_EQ(6, self->l.n);
	EXPECT_NE(NULL, find(&self->l, 50, "grants.d/10-site"));
	EXPECT_NE(NULL, find(&self->l, 53, "custom-53"));
	EXPECT_NE(NULL, find(&self->l, 71, "grants.d/20-more"));
	ASSERT_NE(NULL, find(&self->l, 70, "grants.d/20-more"));
	EXPECT_EQ(3, find(&self->l, 70, "grants.d/20-more")->limit_avs);
	/* No two grants with the same key, selector and tag. */
	for (i = 0; i < self->l.n; i++)
		for (j = i + 1; j < self->l.n; j++)
			EXPECT_FALSE(self->l.g[i].vni == self->l.g[j].vni &&
				     self->l.g[i].sel_type == self->l.g[j].sel_type &&
				     self->l.g[i].sel_id == self->l.g[j].sel_id &&
				     !strcmp(self->l.g[i].tag, self->l.g[j].tag));
}

TEST_HARNESS_MAIN
