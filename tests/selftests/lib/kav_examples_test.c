// SPDX-License-Identifier: GPL-2.0
/*
 * The documented examples (Documentation/examples/: README.md's program,
 * the EXAMPLES of kav_domain_open(3), kav_av(3) and kav_strerror(3)) run
 * on a default node
 * (allow_keyless off), as a tenant, exactly as a new user would run them:
 *
 *   - with the example's VNI granted to the tenant's uid (as
 *     "kavctl grant add vni N uid U" does), each exits 0 and prints what
 *     its document says, on stdout, and nothing on stderr;
 *   - without the grant, each exits 1 (not a signal) and prints on stderr
 *     which call failed, for which VNI, and kav_strerror()'s reason
 *     (it names the grant), and nothing on stdout;
 *   - kav_av(3)'s rank alone, with no launcher holding "job42", exits 1
 *     saying that fi_av_open() of the name failed;
 *   - kav_strerror(3)'s program prints kav_last_error()'s detail: without
 *     the grant, the VNIs the tenant has; under a grant whose limit is
 *     too small, fi_av_insert()'s refusal and the limit.
 *
 * The example binaries are found beside this program ($KAV_EXAMPLES_DIR
 * overrides), named example-<source>: make check puts them in the
 * guest's /tests (mk/examples.mk).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "kav_nl_util.h"

#define TENANT_UID	4242
#define KEYLESS_PARAM	"/sys/module/kav/parameters/allow_keyless"
#define TENANT_GID	4242
#define OUT_MAX		8192

struct run {
	int status;		/* exit status, 128 + signal, or -1 */
	char out[OUT_MAX];	/* stdout */
	char err[OUT_MAX];	/* stderr */
};

static void example_path(const char *name, char *path, size_t size)
{
	const char *dir = getenv("KAV_EXAMPLES_DIR");
	char self[PATH_MAX];
	ssize_t n;

	if (!dir || !*dir) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = '\0';
		if (strrchr(self, '/'))
			*strrchr(self, '/') = '\0';
		else
			strcpy(self, ".");
		dir = self;
	}
	snprintf(path, size, "%s/example-%s", dir, name);
}

/* Append what is readable on @fd to @buf (NUL-terminated); 0 at EOF. */
static int drain(int fd, char *buf, size_t *len)
{
	char tmp[1024];
	ssize_t n = read(fd, tmp, sizeof(tmp));
	size_t k;

	if (n <= 0)
		return n < 0 && errno == EINTR ? 1 : 0;
	k = (size_t)n;
	if (k > OUT_MAX - 1 - *len)
		k = OUT_MAX - 1 - *len;
	memcpy(buf + *len, tmp, k);
	*len += k;
	buf[*len] = '\0';
	return 1;
}

/*
 * Run example @name with up to two arguments (NULL: none) as the
 * tenant (uid and gid TENANT_*, no supplementary groups, no capability),
 * collecting stdout and stderr apart.
 */
static void run_example(struct run *r, const char *name, const char *a1,
			const char *a2)
{
	char path[PATH_MAX];
	int o[2], e[2], status;
	size_t lo = 0, le = 0;
	struct pollfd p[2];
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	example_path(name, path, sizeof(path));
	if (pipe(o) || pipe(e))
		return;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		dup2(o[1], 1);
		dup2(e[1], 2);
		close(o[0]);
		close(e[0]);
		if (setgroups(0, NULL) || setresgid(TENANT_GID, TENANT_GID,
						     TENANT_GID) ||
		    setresuid(TENANT_UID, TENANT_UID, TENANT_UID)) {
			perror("example runner: cannot become the tenant");
			_exit(126);
		}
		execl(path, path, a1, a2, (char *)NULL);
		fprintf(stderr, "example runner: exec %s: %s\n", path,
			strerror(errno));
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	if (pid < 0)
		goto out;
	p[0] = (struct pollfd){ .fd = o[0], .events = POLLIN };
	p[1] = (struct pollfd){ .fd = e[0], .events = POLLIN };
	while (p[0].fd >= 0 || p[1].fd >= 0) {
		if (poll(p, 2, 60000) <= 0)
			break;
		if (p[0].revents && !drain(o[0], r->out, &lo))
			p[0].fd = -1;
		if (p[1].revents && !drain(e[0], r->err, &le))
			p[1].fd = -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			goto out;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) :
		    WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
out:
	close(o[0]);
	close(e[0]);
}

/* Show what an example printed (TAP comments), for the log. */
static void show(const char *name, const struct run *r)
{
	const char *s[2] = { r->out, r->err }, *tag[2] = { "out", "err" };
	const char *p, *nl;
	int i;

	printf("# %s: exit %d\n", name, r->status);
	for (i = 0; i < 2; i++)
		for (p = s[i]; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (!nl)
				nl = p + strlen(p) - 1;
			printf("#   %s| %.*s\n", tag[i], (int)(nl - p + (*nl != '\n')), p);
		}
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

FIXTURE(examples) {
	struct kav_nl nl;
	uint32_t grant[4];
	int ngrants;
	struct run r;
	char keyless_was;		/* allow_keyless before the test */
};

FIXTURE_SETUP(examples)
{
	char keyless[8] = "";
	int fd;

	ASSERT_EQ(0, getuid()) TH_LOG("must run as root (it grants VNIs)");
	/*
	 * A default node: keyless entries refused, keys needed. Other
	 * test programs turn allow_keyless on for their AV mechanics, so
	 * set the default here and put back what was there afterwards.
	 */
	fd = open(KEYLESS_PARAM, O_RDWR);
	ASSERT_LE(0, fd) TH_LOG("kav.ko is not loaded");
	ASSERT_LT(0, read(fd, keyless, sizeof(keyless) - 1));
	self->keyless_was = keyless[0];
	ASSERT_EQ(1, pwrite(fd, "N", 1, 0));
	ASSERT_EQ(1, pread(fd, keyless, 1, 0));
	close(fd);
	ASSERT_EQ('N', keyless[0]) TH_LOG("allow_keyless stays on: not a default node");
	memset(&self->nl, 0, sizeof(self->nl));
	ASSERT_EQ(0, kav_nl_open(&self->nl));
	self->ngrants = 0;
}

FIXTURE_TEARDOWN(examples)
{
	int fd;

	while (self->ngrants > 0)
		EXPECT_EQ(0, kav_nl_grant_del(&self->nl,
					       self->grant[--self->ngrants]));
	kav_nl_close(&self->nl);
	fd = open(KEYLESS_PARAM, O_WRONLY);
	if (fd >= 0) {
		EXPECT_EQ(1, write(fd, &self->keyless_was, 1));
		close(fd);
	}
}

/* kavctl grant add vni @vni uid TENANT_UID */
static int grant(struct __test_metadata *_metadata,
		 FIXTURE_DATA(examples) *self, uint32_t vni)
{
	int ret = kav_nl_grant_uid(&self->nl, vni, TENANT_UID,
				   &self->grant[self->ngrants]);

	if (ret == 0)
		self->ngrants++;
	else
		TH_LOG("grant vni %u uid %d: %s (%s)", vni, TENANT_UID,
		       strerror(-ret), self->nl.ext_msg);
	return ret;
}

/* Does the program's own line, the one starting with @what, name the
 * tenant's identity (kav_last_error(), not just kav_strerror())? */
static bool line_names_identity(const char *err, const char *what)
{
	const char *p = strstr(err, what), *nl;
	char uid[32];

	if (!p)
		return false;
	nl = strchr(p, '\n');
	snprintf(uid, sizeof(uid), "uid %d", TENANT_UID);
	p = strstr(p, uid);
	return p && (!nl || p < nl);
}

/* A refusal: exit 1 (no crash), stderr names @what, the grant and who. */
#define EXPECT_REFUSED(r, what) do {					\
	EXPECT_EQ(1, (r)->status);					\
	EXPECT_STREQ("", (r)->out);					\
	EXPECT_NE(NULL, strstr((r)->err, what))				\
		TH_LOG("stderr does not name \"%s\"", what);		\
	EXPECT_NE(NULL, strcasestr((r)->err, "grant"))			\
		TH_LOG("stderr does not say that a grant is missing");	\
	EXPECT_TRUE(line_names_identity((r)->err, what))		\
		TH_LOG("\"%s\" is not followed by the identity", what);	\
} while (0)

/* README.md, "Using it in a program". */
TEST_F(examples, readme)
{
	ASSERT_EQ(0, grant(_metadata, self, 42));
	run_example(&self->r, "readme", NULL, NULL);
	show("readme", &self->r);
	EXPECT_EQ(0, self->r.status);
	EXPECT_STREQ("4 addresses under vni 42; fi_addr 3 is "
		     "fi_sockaddr_in://10.0.0.4:5003\n", self->r.out);
	EXPECT_STREQ("", self->r.err);
}

TEST_F(examples, readme_vni_argument)
{
	ASSERT_EQ(0, grant(_metadata, self, 0x4b07));
	run_example(&self->r, "readme", "0x4b07", NULL);
	show("readme 0x4b07", &self->r);
	EXPECT_EQ(0, self->r.status);
	EXPECT_STREQ("4 addresses under vni 19207; fi_addr 3 is "
		     "fi_sockaddr_in://10.0.0.4:5003\n", self->r.out);
	EXPECT_STREQ("", self->r.err);
}

TEST_F(examples, readme_without_grant)
{
	/* VNI 42 granted to someone else: still not the tenant's. */
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, 42, TENANT_UID + 1,
				      &self->grant[self->ngrants]));
	self->ngrants++;
	run_example(&self->r, "readme", NULL, NULL);
	show("readme, no grant", &self->r);
	EXPECT_REFUSED(&self->r, "kav_domain_open(vni 42)");
}

TEST_F(examples, readme_bad_vni)
{
	run_example(&self->r, "readme", "42x", NULL);
	show("readme 42x", &self->r);
	EXPECT_EQ(2, self->r.status);
	EXPECT_STREQ("", self->r.out);
	EXPECT_NE(NULL, strstr(self->r.err, "bad VNI \"42x\""));
}

/* kav_domain_open(3), EXAMPLES. */
TEST_F(examples, kav_domain_open)
{
	ASSERT_EQ(0, grant(_metadata, self, 100));
	run_example(&self->r, "kav_domain_open", NULL, NULL);
	show("kav_domain_open", &self->r);
	EXPECT_EQ(0, self->r.status);
	EXPECT_STREQ("0: fi_sockaddr_in://10.0.0.1:5000\n", self->r.out);
	EXPECT_STREQ("", self->r.err);
}

TEST_F(examples, kav_domain_open_without_grant)
{
	ASSERT_EQ(0, grant(_metadata, self, 101));	/* not the one it uses */
	run_example(&self->r, "kav_domain_open", NULL, NULL);
	show("kav_domain_open, no grant", &self->r);
	EXPECT_REFUSED(&self->r, "kav_domain_open(vni 100)");
}

/* kav_av(3), EXAMPLES: the launcher and its two ranks. */
TEST_F(examples, kav_av)
{
	ASSERT_EQ(0, grant(_metadata, self, 100));
	run_example(&self->r, "kav_av", NULL, NULL);
	show("kav_av", &self->r);
	EXPECT_EQ(0, self->r.status);
	EXPECT_EQ(2, count_lines(self->r.out));
	EXPECT_NE(NULL, strstr(self->r.out, "rank 0: peer 1 is "
			       "fi_sockaddr_in://10.0.0.2:5001, vni 100\n"));
	EXPECT_NE(NULL, strstr(self->r.out, "rank 1: peer 0 is "
			       "fi_sockaddr_in://10.0.0.1:5000, vni 100\n"));
	EXPECT_STREQ("", self->r.err);
}

TEST_F(examples, kav_av_other_vni)
{
	ASSERT_EQ(0, grant(_metadata, self, 0x4b08));
	run_example(&self->r, "kav_av", "0x4b08", NULL);
	show("kav_av 0x4b08", &self->r);
	EXPECT_EQ(0, self->r.status);
	EXPECT_NE(NULL, strstr(self->r.out, "rank 0: peer 1 is "
			       "fi_sockaddr_in://10.0.0.2:5001, vni 19208\n"));
	EXPECT_NE(NULL, strstr(self->r.out, "rank 1: peer 0 is "
			       "fi_sockaddr_in://10.0.0.1:5000, vni 19208\n"));
	EXPECT_STREQ("", self->r.err);
}

TEST_F(examples, kav_av_without_grant)
{
	run_example(&self->r, "kav_av", NULL, NULL);
	show("kav_av, no grant", &self->r);
	EXPECT_REFUSED(&self->r, "fi_av_insert_auth_key(vni 100)");
	EXPECT_EQ(NULL, strstr(self->r.err, "rank"));	/* none started */
}

/* A rank with no launcher (and no pin) holding the AV: a clear failure. */
TEST_F(examples, kav_av_rank_without_launcher)
{
	ASSERT_EQ(0, grant(_metadata, self, 100));
	run_example(&self->r, "kav_av", "rank", "0");
	show("kav_av rank 0, alone", &self->r);
	EXPECT_EQ(1, self->r.status);
	EXPECT_STREQ("", self->r.out);
	EXPECT_NE(NULL, strstr(self->r.err,
			       "fi_av_open(\"job42\", FI_READ): "));
}

/* kav_strerror(3), EXAMPLES: kav_last_error() after a refusal. */
TEST_F(examples, kav_strerror)
{
	ASSERT_EQ(0, grant(_metadata, self, 100));
	run_example(&self->r, "kav_strerror", NULL, NULL);
	show("kav_strerror", &self->r);
	EXPECT_EQ(0, self->r.status);
	EXPECT_STREQ("3 addresses under vni 100\n", self->r.out);
	EXPECT_STREQ("", self->r.err);
}

TEST_F(examples, kav_strerror_without_grant)
{
	ASSERT_EQ(0, grant(_metadata, self, 0x4b09));	/* not the one it uses */
	run_example(&self->r, "kav_strerror", NULL, NULL);
	show("kav_strerror, no grant", &self->r);
	EXPECT_REFUSED(&self->r, "kav_domain_open(vni 100): domain auth key "
			"refused: no grant for this auth key (vni 100)");
	/* kav_last_error(), not only kav_strerror(): what it has instead. */
	EXPECT_NE(NULL, strstr(self->r.err, "granted: 19209"));
	EXPECT_NE(NULL, strstr(self->r.err, "uid 4242"));
}

TEST_F(examples, kav_strerror_grant_limit)
{
	uint32_t id;

	ASSERT_EQ(0, grant(_metadata, self, 100));
	id = self->grant[self->ngrants - 1];
	ASSERT_EQ(0, kav_nl_grant_set(&self->nl, id, 2, -1, NULL, NULL));
	run_example(&self->r, "kav_strerror", NULL, NULL);
	show("kav_strerror, max-entries 2", &self->r);
	EXPECT_REFUSED(&self->r, "fi_av_insert(vni 100): inserted 0 of 3: ");
	EXPECT_NE(NULL, strstr(self->r.err, "limit reached"));
	EXPECT_NE(NULL, strstr(self->r.err, "max-entries 2"));
}

TEST_HARNESS_MAIN
