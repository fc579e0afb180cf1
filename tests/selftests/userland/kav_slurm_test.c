// SPDX-License-Identifier: GPL-2.0
/*
 * tools/slurm as slurmd runs them: kav-slurm-prolog, kav-slurm-epilog and
 * kav-slurm-pin (Documentation/slurm.rst), run from /tests (or
 * $KAV_SLURM_TOOLS) with the environment slurmd gives a Prolog, and
 * kav-slurm-taskprolog as slurmstepd runs a TaskProlog (the job's user,
 * in the task's cgroup), against a cgroup tree laid out like Slurm's
 * cgroup/v2 plugin's:
 *
 *   /sys/fs/cgroup/system.slice/slurmstepd.scope/job_4242/step_0
 *
 * Every effect is checked through kav itself: the grants over netlink
 * (kav_nl_util.h), the key through libkav in tenant processes placed in
 * the job's step cgroup and elsewhere, pins in the AV listing. Needs
 * kavctl and the tools/slurm scripts next to the program (check.sh puts
 * them in /tests) and root.
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <kav/kav.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

#define JOB		"4242"
#define JOB_UID		1000
#define VNI		1234		/* the first of SLINGSHOT_VNIS: a step's */
#define VNIS		"SLINGSHOT_VNIS=1234,1300"
#define VNI_SECOND	1300		/* the last: the job VNI, granted too */
#define VNI_OTHER	4343		/* someone else's */
#define CG_SCOPE	"system.slice/slurmstepd.scope"
#define CG_JOB		CG_SCOPE "/job_" JOB
#define CG_STEP		CG_JOB "/step_0"
#define CG_JOB2		CG_SCOPE "/job_4243"
#define CG_OTHER	"kav-slurm-other"
#define STATE_DIR	"/tmp/kav-slurm-state"
#define STATE		STATE_DIR "/job_" JOB
#define CONF		"/tmp/kav-slurm-test.conf"
#define FAKE_SQUEUE	"/tmp/kav-slurm-squeue"	/* prints an AdminComment */
#define FAKE_SCANCEL	"/tmp/kav-slurm-scancel"	/* records the job id */
#define CANCELLED	"/tmp/kav-slurm-cancelled"
#define WIRE_CONF	"/tmp/kav-slurm-wire.conf"
#define FAKE_SCONTROL	"/tmp/kav-slurm-scontrol"	/* the job's nodes */
#define FAKE_WIRE_SA	"/tmp/kav-slurm-wire-sa"	/* records its calls */
#define WIRE_CALLS	"/tmp/kav-slurm-wire-calls"
#define AV_JOB		"slurm-" JOB "-world"
#define AV_DECOY	"slurm-" JOB "0-x"	/* job 42420's prefix */
#define AV_INTRUDER	"slurm-" JOB "-intruder"	/* not from the job */

/* env(...): a NULL-terminated list of "NAME=VALUE". */
#define env(...)	((const char *const []){ __VA_ARGS__, NULL })

static const char *tools_dir(void)
{
	const char *d = getenv("KAV_SLURM_TOOLS");

	return d && *d ? d : "/tests";
}

/* ------------------------------------------------------------- tools */

struct run {
	int rc;
	char out[16384];	/* standard output and error */
};

/* Is variable @var ("NAME=VALUE") named in @env? */
static bool env_has(const char *const *env, const char *var)
{
	size_t len = strcspn(var, "=") + 1;

	for (; env && *env; env++)
		if (!strncmp(*env, var, len))
			return true;
	return false;
}

/*
 * Run @tool (a file of tools_dir()) with the environment slurmd gives a
 * Prolog or Epilog: SLURM_JOB_UID, SLURMD_NODENAME, plus what the test
 * sets: PATH (the tools' directory first; none when @bare, as slurmd
 * does), the state directory and a configuration file of the test's, and
 * @env, which replaces any of those. @arg: one argument, or NULL. Returns
 * the exit status.
 */
static int tool_run(struct run *r, const char *tool, const char *arg,
		    const char *const *env, bool bare)
{
	static char path_env[512], ld_env[1024], path[512];
	const char *base[8], *envp[48], *argv[3] = { tool, arg, NULL };
	const char *ld = getenv("LD_LIBRARY_PATH");
	size_t n = 0, nb = 0, len = 0, i;
	int p[2], status;
	ssize_t got;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", tools_dir(), tool);
	snprintf(path_env, sizeof(path_env),
		 "PATH=%s:/sbin:/bin:/usr/sbin:/usr/bin", tools_dir());
	if (!bare)
		base[nb++] = path_env;
	if (ld) {
		snprintf(ld_env, sizeof(ld_env), "LD_LIBRARY_PATH=%s", ld);
		base[nb++] = ld_env;
	}
	base[nb++] = "KAV_SLURM_STATE_DIR=" STATE_DIR;
	base[nb++] = "KAV_SLURM_CONF=" CONF;
	base[nb++] = "SLURM_JOB_UID=1000";
	base[nb++] = "SLURMD_NODENAME=kav-vm";
	for (i = 0; i < nb; i++)
		if (!env_has(env, base[i]))
			envp[n++] = base[i];
	while (env && *env && n < sizeof(envp) / sizeof(envp[0]) - 1)
		envp[n++] = *env++;
	envp[n] = NULL;

	r->rc = -1;
	r->out[0] = '\0';
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		execve(path, (char *const *)argv, (char *const *)envp);
		fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(p[1]);
	while ((got = read(p[0], r->out + len, sizeof(r->out) - 1 - len)) > 0)
		len += (size_t)got;
	r->out[len] = '\0';
	close(p[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	r->rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return r->rc;
}

static int tool(struct run *r, const char *tool, const char *const *env)
{
	return tool_run(r, tool, NULL, env, false);
}

static int prolog(struct run *r, const char *const *env)
{
	return tool(r, "kav-slurm-prolog", env);
}

static int epilog(struct run *r, const char *job)
{
	char id[64];

	snprintf(id, sizeof(id), "SLURM_JOB_ID=%s", job);
	return tool(r, "kav-slurm-epilog", env(id));
}

/*
 * kav-slurm-taskprolog as slurmstepd runs a TaskProlog: as the job's user,
 * in the task's cgroup @cg, with the task's environment (SLURM_JOB_ID=@job
 * unless NULL, a user's PATH with the tools' directory first, @extra: one
 * more "NAME=VALUE" or NULL). Its standard output and error apart.
 */
struct task_run {
	int rc;
	char out[4096];
	char err[4096];
};

static void read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t got;

	while (len < size - 1 &&
	       (got = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)got;
	buf[len] = '\0';
}

static int task_prolog(struct task_run *t, const char *cg, const char *job,
		       const char *extra)
{
	char path[512], path_env[512], job_env[64];
	const char *envp[6], *argv[] = { "kav-slurm-taskprolog", NULL };
	int out[2], err[2], status;
	size_t n = 0;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/kav-slurm-taskprolog", tools_dir());
	snprintf(path_env, sizeof(path_env), "PATH=%s:/usr/bin:/bin",
		 tools_dir());
	envp[n++] = path_env;
	envp[n++] = "HOME=/tmp";
	if (job) {
		snprintf(job_env, sizeof(job_env), "SLURM_JOB_ID=%s", job);
		envp[n++] = job_env;
	}
	if (extra)
		envp[n++] = extra;
	envp[n] = NULL;
	t->rc = -1;
	t->out[0] = t->err[0] = '\0';
	if (pipe2(out, O_CLOEXEC))
		return -1;
	if (pipe2(err, O_CLOEXEC)) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		if (kav_cgroup_move(cg, getpid()) ||
		    kav_become(JOB_UID, JOB_UID, 0, NULL)) {
			fprintf(stderr, "task: cannot join %s as uid %d\n", cg,
				JOB_UID);
			_exit(99);
		}
		dup2(out[1], 1);
		dup2(err[1], 2);
		execve(path, (char *const *)argv, (char *const *)envp);
		fprintf(stderr, "exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	/* A few lines each: neither pipe fills while the other is read. */
	read_all(out[0], t->out, sizeof(t->out));
	read_all(err[0], t->err, sizeof(t->err));
	close(out[0]);
	close(err[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	t->rc = WIFEXITED(status) ? WEXITSTATUS(status) :
		128 + WTERMSIG(status);
	return t->rc;
}

/* ------------------------------------------------------------- grants */

static struct kav_nl_grant grants[512];

/* How many grants of @vni to the cgroup with id @cgid; *@id: the last. */
static int job_grants(struct kav_nl *nl, uint32_t vni, uint64_t cgid,
		      struct kav_nl_grant *last)
{
	size_t n, i;
	int count = 0;

	if (kav_nl_grants(nl, grants, 512, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (grants[i].vni != vni || grants[i].sel_type != KAV_SEL_CGROUP ||
		    grants[i].cgroup_id != cgid)
			continue;
		count++;
		if (last)
			*last = grants[i];
	}
	return count;
}

/* Grants of any key to @cgid. */
static int cgroup_grants(struct kav_nl *nl, uint64_t cgid)
{
	size_t n, i;
	int count = 0;

	if (kav_nl_grants(nl, grants, 512, &n))
		return -1;
	for (i = 0; i < n; i++)
		count += grants[i].sel_type == KAV_SEL_CGROUP &&
			 grants[i].cgroup_id == cgid;
	return count;
}

static int grant_total(struct kav_nl *nl)
{
	size_t n;

	return kav_nl_grants(nl, grants, 512, &n) ? -1 : (int)n;
}

static int grant_cgroup(struct kav_nl *nl, uint32_t vni, const char *rel,
			uint32_t *id)
{
	char path[256];
	struct kav_grant_spec s = { .vni = vni, .sel_type = KAV_SEL_CGROUP,
				    .cgroup_path = path };
	struct kav_nl_grant g;
	int ret;

	snprintf(path, sizeof(path), "/%s", rel);
	ret = kav_nl_grant_add(nl, &s, &g);
	if (!ret)
		*id = g.id;
	return ret;
}

/* ----------------------------------------------------------- the state */

/* The first "@key=N" of the job's state file: N, -1 without one, -2
 * without the file. */
static long long state_value(const char *key)
{
	char line[512];
	size_t len = strlen(key);
	long long v = -1;
	FILE *f = fopen(STATE, "r");

	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, len) && line[len] == '=') {
			v = strtoll(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

/* How many "@key=" lines the state file has. */
static int state_count(const char *key)
{
	char line[512];
	size_t len = strlen(key);
	int n = 0;
	FILE *f = fopen(STATE, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, key, len) && line[len] == '=';
	fclose(f);
	return n;
}

static bool state_exists(void)
{
	return access(STATE, F_OK) == 0;
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* ---------------------------------------------------------------- AVs */

struct av_state {
	const char *name;
	bool found, pinned;
	uint32_t id, nr_open;
};

static int av_state_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		       const struct kav_nl_attrs *at, void *arg)
{
	struct av_state *s = arg;
	const struct nlattr *name = at->a[KAV_A_AV_NAME];

	(void)nlh;
	(void)gh;
	if (!name || kav_nl_len(name) != (int)strlen(s->name) ||
	    memcmp(kav_nl_data(name), s->name, strlen(s->name)))
		return 0;
	s->found = true;
	s->id = kav_nl_u32(at->a[KAV_A_AV_ID]);
	s->pinned = at->a[KAV_A_AV_PINNED];
	s->nr_open = kav_nl_u32(at->a[KAV_A_NR_OPEN]);
	return 0;
}

/* Look up named AV @name in the listing: 0 or -errno. */
static int av_state(const char *name, struct av_state *s)
{
	struct kav_nl nl;
	int ret;

	memset(s, 0, sizeof(*s));
	s->name = name;
	ret = kav_nl_open(&nl);
	if (ret)
		return ret;
	ret = kav_nl_dump(&nl, KAV_GENL_CMD_AV_GET, -1, av_state_cb, s);
	kav_nl_close(&nl);
	return ret;
}

static int av_pin(uint8_t cmd, uint32_t id)
{
	struct kav_nl nl;
	static struct kav_nl_msg m;
	int ret;

	ret = kav_nl_open(&nl);
	if (ret)
		return ret;
	kav_nl_req(&nl, &m, cmd, 0);
	kav_nl_put_u32(&m, KAV_A_AV_ID, id);
	ret = kav_nl_talk(&nl, &m, NULL, NULL);
	kav_nl_close(&nl);
	return ret;
}

/* ------------------------------------------------------------ tenants */

/* A process of the job: in cgroup @cg, as the job's user. */
static int become_task(const char *cg)
{
	CK_EQ(0, kav_cgroup_move(cg, getpid()));
	CK_EQ(0, kav_become(JOB_UID, JOB_UID, 0, NULL));
	setenv("KAV_LOG", "none", 1);
	return 0;
}

struct tenant {
	const char *cg;
	uint32_t vni;
	int want;		/* kav_domain_open()'s result */
};

/* Open a domain with the key; if that works, insert an address with it. */
static int tenant(void *arg)
{
	const struct tenant *t = arg;
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct sockaddr_in sin = kav_sin(0x0a000001, 7000);
	struct fid_domain *dom = (void *)&attr;
	struct kav_auth_key key;
	size_t len = sizeof(key);
	struct fid_av *av;
	fi_addr_t fa;

	if (become_task(t->cg))
		return 1;
	CK_EQ(t->want, kav_lib_open_keyed(t->vni, &dom));
	if (t->want) {
		CK(dom == NULL);
		return 0;
	}
	CK_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	CK_EQ(1, fi_av_insert(av, &sin, 1, &fa, 0, NULL));
	CK_EQ(0, fi_av_lookup_auth_key(av, fa, &key, &len));
	CK_EQ(t->vni, key.vni);
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

static int run_tenant(const char *cg, uint32_t vni, int want)
{
	struct tenant t = { cg, vni, want };

	return kav_reap(kav_spawn(tenant, &t));
}

/* A task of the job that holds its domain across the epilog. */
static int live_task(void *arg)
{
	struct kav_sync *s = arg;
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct sockaddr_in sin[2] = { kav_sin(0x0a000001, 7000),
				      kav_sin(0x0a000002, 7000) };
	struct fid_domain *dom;
	struct kav_resolved res;
	struct fid_av *av;
	fi_addr_t fa[2];
	int err = 0;

	if (become_task(CG_STEP))
		return 1;
	CK_EQ(0, kav_lib_open_keyed(VNI, &dom));
	CK_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	CK_EQ(1, fi_av_insert(av, &sin[0], 1, &fa[0], 0, NULL));
	CK_EQ(0, kav_av_resolve(av, fa[0], &res));
	CK_EQ(VNI, res.vni);
	CK(!kav_tell_parent(s, 'a'));
	CK_EQ('b', kav_wait_parent(s));
	/* The epilog revoked the key: nothing more under it, nothing sent. */
	CK_EQ(0, fi_av_insert(av, &sin[1], 1, &fa[1], FI_SYNC_ERR, &err));
	CK_EQ(FI_EKEYREJECTED, err);
	CK_EQ(-FI_EKEYREJECTED, kav_av_resolve(av, fa[0], &res));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

/* A launcher of the job: creates its named AV (and a decoy named with
 * job 42420's prefix) and holds them until told. */
static int launcher(void *arg)
{
	struct kav_sync *s = arg;
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = AV_JOB };
	struct fi_av_attr decoy = { .type = FI_AV_TABLE, .name = AV_DECOY };
	struct sockaddr_in sin = kav_sin(0x0a000001, 7000);
	struct fid_av *av, *av2;
	struct fid_domain *dom;
	fi_addr_t fa;

	if (become_task(CG_STEP))
		return 1;
	CK_EQ(0, kav_lib_open_keyed(VNI, &dom));
	CK_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	CK_EQ(1, fi_av_insert(av, &sin, 1, &fa, 0, NULL));
	CK_EQ(0, fi_av_open(dom, &decoy, &av2, NULL));
	CK(!kav_tell_parent(s, 'a'));
	CK_EQ('b', kav_wait_parent(s));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&av2->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

/* ------------------------------------------------------------ fixture */

FIXTURE(slurm) {
	struct kav_nl nl;
	uint32_t before[512];
	size_t nbefore;
	int keyless;
	uint64_t job, job2, other;	/* cgroup ids */
};

static int make_job_cgroups(void)
{
	return kav_cgroup_make("system.slice") ?:
	       kav_cgroup_make(CG_SCOPE) ?:
	       kav_cgroup_make(CG_JOB) ?:
	       kav_cgroup_make(CG_STEP);
}

FIXTURE_SETUP(slurm)
{
	char kavctl[512];
	size_t i;

	snprintf(kavctl, sizeof(kavctl), "%s/kavctl", tools_dir());
	ASSERT_EQ(0, access(kavctl, X_OK))
		TH_LOG("%s: missing (make tools; lanes/vm/vm.sh installs it)",
		       kavctl);
	ASSERT_EQ(0, kav_nl_open(&self->nl));
	ASSERT_EQ(0, kav_nl_grants(&self->nl, grants, 512, &self->nbefore));
	for (i = 0; i < self->nbefore; i++)
		self->before[i] = grants[i].id;
	/* Production settings: no entry without a key. */
	self->keyless = kav_get_allow_keyless();
	ASSERT_EQ(0, kav_set_allow_keyless(false));

	ASSERT_EQ(0, make_job_cgroups());
	ASSERT_EQ(0, kav_cgroup_make(CG_JOB2));
	ASSERT_EQ(0, kav_cgroup_make(CG_OTHER));
	self->job = kav_cgroup_id(CG_JOB);
	self->job2 = kav_cgroup_id(CG_JOB2);
	self->other = kav_cgroup_id(CG_OTHER);
	ASSERT_NE(0, self->job);
	unlink(CONF);
	unlink(STATE);
}

FIXTURE_TEARDOWN(slurm)
{
	struct run r;
	size_t n, i, j;

	epilog(&r, JOB);
	/* Whatever a failed test left: every grant it added. */
	if (!kav_nl_grants(&self->nl, grants, 512, &n)) {
		for (i = 0; i < n; i++) {
			for (j = 0; j < self->nbefore; j++)
				if (grants[i].id == self->before[j])
					break;
			if (j == self->nbefore)
				kav_nl_grant_del(&self->nl, grants[i].id);
		}
	}
	kav_cgroup_remove(CG_STEP);
	kav_cgroup_remove(CG_JOB);
	kav_cgroup_remove(CG_JOB2);
	kav_cgroup_remove(CG_SCOPE "/job_4244");
	kav_cgroup_remove(CG_SCOPE);
	kav_cgroup_remove("system.slice");
	kav_cgroup_remove(CG_OTHER);
	unlink(CONF);
	unlink(STATE);
	rmdir(STATE_DIR);
	if (self->keyless >= 0)
		kav_set_allow_keyless(self->keyless);
	kav_nl_close(&self->nl);
}

/* ------------------------------------------------------------- tests */

TEST_F_TIMEOUT(slurm, prolog_grants_the_job_key_once, 180)
{
	struct kav_nl_grant g, again;
	struct run r;
	int total;

	total = grant_total(&self->nl);
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	/* Every VNI of the list: the step's (first) and the job's (last). */
	ASSERT_EQ(1, job_grants(&self->nl, VNI, self->job, &g));
	EXPECT_EQ(1, job_grants(&self->nl, VNI_SECOND, self->job, NULL));
	EXPECT_EQ(total + 2, grant_total(&self->nl));
	EXPECT_EQ(2, state_count("grant"));
	EXPECT_EQ(2, state_count("vni"));
	/* And says so. */
	EXPECT_NE(NULL, strstr(r.out, "granted vni 1234 1300 (from SLINGSHOT_VNIS"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(0, g.limit_entries);
	EXPECT_EQ(0, g.limit_avs);
	/* The state file records it. */
	EXPECT_EQ(g.id, state_value("grant"));
	EXPECT_EQ(VNI, state_value("vni"));
	EXPECT_EQ((long long)self->job, state_value("cgroup_id"));
	EXPECT_EQ(4242, state_value("job_id"));

	/* Again (slurmd retrying, an operator): still the one grant. */
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	EXPECT_EQ(1, job_grants(&self->nl, VNI, self->job, &again));
	EXPECT_EQ(g.id, again.id);
	EXPECT_EQ(1, job_grants(&self->nl, VNI_SECOND, self->job, NULL));
	EXPECT_EQ(total + 2, grant_total(&self->nl));
	EXPECT_EQ(2, state_count("grant"));
	EXPECT_EQ(g.id, state_value("grant"));
	EXPECT_NE(NULL, strstr(r.out, "already granted")) TH_LOG("%s", r.out);
}

TEST_F_TIMEOUT(slurm, only_the_job_may_use_its_key, 180)
{
	struct run r;

	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	/* A task of the job, in its step cgroup, uses the key. */
	EXPECT_EQ(0, run_tenant(CG_STEP, VNI, 0));
	/* The same user elsewhere: another job's cgroup, another cgroup. */
	EXPECT_EQ(0, run_tenant(CG_JOB2, VNI, -FI_EACCES));
	EXPECT_EQ(0, run_tenant(CG_OTHER, VNI, -FI_EACCES));
	EXPECT_EQ(0, run_tenant("", VNI, -FI_EACCES));
	/* The job VNI (the list's last) too, and only the keys given. */
	EXPECT_EQ(0, run_tenant(CG_STEP, VNI_SECOND, 0));
	EXPECT_EQ(0, run_tenant(CG_JOB2, VNI_SECOND, -FI_EACCES));
	EXPECT_EQ(0, run_tenant(CG_STEP, VNI_OTHER, -FI_EACCES));

	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, job_grants(&self->nl, VNI, self->job, NULL));
	EXPECT_EQ(0, cgroup_grants(&self->nl, self->job));
	EXPECT_FALSE(state_exists());
	EXPECT_EQ(0, run_tenant(CG_STEP, VNI, -FI_EACCES));
	EXPECT_EQ(0, run_tenant(CG_STEP, VNI_SECOND, -FI_EACCES));
	/* Twice, and for a job that never had a prolog: nothing to do. */
	EXPECT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, epilog(&r, "4243")) TH_LOG("%s", r.out);
}

TEST_F_TIMEOUT(slurm, epilog_revokes_a_live_domain, 180)
{
	struct kav_sync s;
	struct run r;
	pid_t pid;

	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, kav_sync_init(&s));
	pid = kav_spawn(live_task, &s);
	ASSERT_EQ('a', kav_wait_child(&s));
	EXPECT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, job_grants(&self->nl, VNI, self->job, NULL));
	ASSERT_EQ(0, kav_tell_child(&s, 'b'));
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&s);
}

TEST_F_TIMEOUT(slurm, epilog_without_the_state_file, 180)
{
	struct run r;

	/* A crash lost the state file: the cgroup's grants are still found. */
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	ASSERT_EQ(1, job_grants(&self->nl, VNI, self->job, NULL));
	ASSERT_EQ(0, unlink(STATE));
	EXPECT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, job_grants(&self->nl, VNI, self->job, NULL));
	EXPECT_EQ(0, run_tenant(CG_STEP, VNI, -FI_EACCES));
}

TEST_F_TIMEOUT(slurm, epilog_after_the_job_cgroup_went, 180)
{
	struct run r;

	/* slurmstepd removed the job's cgroup before the epilog ran: the
	 * grant still holds the cgroup, the state file its id. */
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, kav_cgroup_remove(CG_STEP));
	ASSERT_EQ(0, kav_cgroup_remove(CG_JOB));
	ASSERT_EQ(1, job_grants(&self->nl, VNI, self->job, NULL));
	EXPECT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, job_grants(&self->nl, VNI, self->job, NULL));
	EXPECT_FALSE(state_exists());
}

TEST_F_TIMEOUT(slurm, stale_state_files_are_replaced, 180)
{
	struct kav_nl_grant old, now;
	uint32_t unrelated;
	char text[512];
	uint64_t job;
	struct run r;

	/* Job 4242 ran, the node crashed before its epilog, the job was
	 * requeued and starts again in a new cgroup of the same name. */
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	ASSERT_EQ(1, job_grants(&self->nl, VNI, self->job, &old));
	ASSERT_EQ(0, kav_cgroup_remove(CG_STEP));
	ASSERT_EQ(0, kav_cgroup_remove(CG_JOB));
	ASSERT_EQ(0, make_job_cgroups());
	job = kav_cgroup_id(CG_JOB);
	ASSERT_NE(self->job, job);
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	/* The earlier run's grant is taken back, the new cgroup has one. */
	EXPECT_EQ(0, kav_nl_grant_exists(&self->nl, old.id));
	EXPECT_EQ(1, job_grants(&self->nl, VNI, job, &now));
	EXPECT_EQ(now.id, state_value("grant"));
	EXPECT_EQ((long long)job, state_value("cgroup_id"));
	EXPECT_EQ(0, run_tenant(CG_STEP, VNI, 0));
	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, job_grants(&self->nl, VNI, job, NULL));

	/* Garbage in the state file: replaced. */
	ASSERT_EQ(0, mkdir(STATE_DIR, 0700) && errno != EEXIST ? -1 : 0);
	ASSERT_EQ(0, write_file(STATE, "\x01garbage\ngrant=\ncgroup_id=x\n"));
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	ASSERT_EQ(1, job_grants(&self->nl, VNI, job, &now));
	EXPECT_EQ(now.id, state_value("grant"));
	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);

	/*
	 * A state file naming a grant id that is now someone else's (ids
	 * restart when kav.ko is reloaded): that grant is left alone.
	 */
	ASSERT_EQ(0, grant_cgroup(&self->nl, VNI_OTHER, CG_OTHER, &unrelated));
	snprintf(text, sizeof(text), "job_id=" JOB "\nvni=%u\ncgroup=/x\n"
		 "cgroup_id=%llu\ngrant=%u\n", (unsigned int)VNI,
		 (unsigned long long)self->job, unrelated);
	ASSERT_EQ(0, write_file(STATE, text));
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	EXPECT_EQ(1, kav_nl_grant_exists(&self->nl, unrelated));
	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(1, kav_nl_grant_exists(&self->nl, unrelated));
	/* And the same file read by the epilog. */
	ASSERT_EQ(0, write_file(STATE, text));
	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(1, kav_nl_grant_exists(&self->nl, unrelated));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, unrelated));
}

TEST_F_TIMEOUT(slurm, bad_input_grants_nothing, 240)
{
	const char *const *const bad[] = {
		env("SLURM_JOB_ID=42a2", VNIS),
		env("SLURM_JOB_ID=", VNIS),
		env(VNIS),				/* no job id */
		env("SLURM_JOB_ID=04242", VNIS),
		env("SLURM_JOB_ID=" JOB, "SLINGSHOT_VNIS=abc"),
		env("SLURM_JOB_ID=" JOB, "SLINGSHOT_VNIS=4294967296"),
		env("SLURM_JOB_ID=" JOB, "SLINGSHOT_VNIS=0"),
		env("SLURM_JOB_ID=" JOB, "SLINGSHOT_VNIS=01234"),
		env("SLURM_JOB_ID=" JOB, "SLINGSHOT_VNIS=1234,,1300"),
		env("SLURM_JOB_ID=" JOB, "SLINGSHOT_VNIS=1234,x"),
		env("SLURM_JOB_ID=" JOB, "SLINGSHOT_VNIS=1234 1300"),
		env("SLURM_JOB_ID=" JOB, "KAV_JOB_VNI=-1", VNIS),
		env("SLURM_JOB_ID=" JOB, "KAV_JOB_VNI=*", VNIS),
		env("SLURM_JOB_ID=" JOB, VNIS, "KAV_SLURM_ADMIN_COMMENT=yes"),
		/* AdminComment: two kav_vnis= words, a bad one, no squeue */
		env("SLURM_JOB_ID=" JOB, "KAV_SLURM_ADMIN_COMMENT=1",
		    "KAV_SLURM_SQUEUE=" FAKE_SQUEUE, "FAKE_AC=kav_vnis=1 kav_vnis=2"),
		env("SLURM_JOB_ID=" JOB, "KAV_SLURM_ADMIN_COMMENT=1",
		    "KAV_SLURM_SQUEUE=" FAKE_SQUEUE, "FAKE_AC=kav_vnis=12,x"),
		env("SLURM_JOB_ID=" JOB, "KAV_SLURM_ADMIN_COMMENT=1",
		    "KAV_SLURM_SQUEUE=" FAKE_SQUEUE, "FAKE_AC=kav_vnis="),
		env("SLURM_JOB_ID=" JOB, "KAV_SLURM_ADMIN_COMMENT=1",
		    "KAV_SLURM_SQUEUE=/nonexistent/squeue", VNIS),
		env("SLURM_JOB_ID=" JOB, VNIS, "KAV_SLURM_MAX_AVS=4294967296"),
		env("SLURM_JOB_ID=" JOB, VNIS, "KAV_SLURM_MAX_ENTRIES=lots"),
		env("SLURM_JOB_ID=" JOB, VNIS, "SLURM_JOB_UID=root"),
		env("SLURM_JOB_ID=" JOB, VNIS, "KAV_SLURM_AV_PREFIX=shared"),
		env("SLURM_JOB_ID=" JOB, VNIS, "KAV_SLURM_CGROUP=relative/job_%j"),
		env("SLURM_JOB_ID=" JOB, VNIS, "KAVCTL=/nonexistent/kavctl"),
	};
	int total = grant_total(&self->nl);
	struct run r;
	size_t i;

	ASSERT_LE(0, total);
	ASSERT_EQ(0, write_file(FAKE_SQUEUE, "#!/bin/sh\necho \"$FAKE_AC\"\n"));
	ASSERT_EQ(0, chmod(FAKE_SQUEUE, 0755));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_NE(0, prolog(&r, bad[i]))
			TH_LOG("case %zu (%s ...) passed:\n%s", i, bad[i][0],
			       r.out);
		/* Said why, as a log line of the tool. */
		EXPECT_NE(NULL, strstr(r.out, "kav-slurm-prolog: "))
			TH_LOG("case %zu: %s", i, r.out);
		EXPECT_EQ(total, grant_total(&self->nl)) TH_LOG("case %zu", i);
		EXPECT_FALSE(state_exists()) TH_LOG("case %zu", i);
	}
	/* A bad configuration file is an error too. */
	ASSERT_EQ(0, write_file(CONF, "KAV_SLURM_MAX_AVSS=2\n"));
	EXPECT_NE(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)));
	EXPECT_EQ(total, grant_total(&self->nl));
	EXPECT_EQ(0, unlink(CONF));

	/* No key for the job: nothing to do, and that is fine. */
	EXPECT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB))) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "nothing to grant")) TH_LOG("%s", r.out);
	/* A SPANK variable is the submitter's: not trusted by default. */
	EXPECT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB,
				    "SPANK_KAV_JOB_VNI=1234")))
		TH_LOG("%s", r.out);
	EXPECT_EQ(total, grant_total(&self->nl));
	EXPECT_FALSE(state_exists());
	EXPECT_EQ(0, cgroup_grants(&self->nl, self->job));
	unlink(FAKE_SQUEUE);
}

/*
 * Slurm 22.05 runs the Prolog before slurmstepd makes the job's cgroup:
 * the prolog makes it in slurmstepd.scope, grants to it, and the epilog
 * removes it. Where it cannot (the parent is no cgroup), the job is
 * cancelled and the prolog exits 0: the node is not drained.
 */
TEST_F_TIMEOUT(slurm, the_prolog_makes_the_jobs_cgroup, 180)
{
	struct kav_nl_grant g;
	uint64_t cgid;
	char buf[64] = "";
	struct run r;
	FILE *f;

	ASSERT_EQ(0, kav_cgroup_id(CG_SCOPE "/job_4244"));
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=4244", VNIS)))
		TH_LOG("%s", r.out);
	cgid = kav_cgroup_id(CG_SCOPE "/job_4244");
	ASSERT_NE(0, cgid) TH_LOG("%s", r.out);
	EXPECT_EQ(1, job_grants(&self->nl, VNI, cgid, &g));
	EXPECT_EQ(1, job_grants(&self->nl, VNI_SECOND, cgid, NULL));
	EXPECT_NE(NULL, strstr(r.out, "created the job's cgroup")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, epilog(&r, "4244")) TH_LOG("%s", r.out);
	EXPECT_EQ(0, cgroup_grants(&self->nl, cgid));
	EXPECT_EQ(0, kav_cgroup_id(CG_SCOPE "/job_4244")) TH_LOG("%s", r.out);

	/* No cgroup v2 parent: the job is cancelled, the prolog exits 0. */
	ASSERT_EQ(0, write_file(FAKE_SCANCEL,
				"#!/bin/sh\necho \"$1\" >" CANCELLED "\n"));
	ASSERT_EQ(0, chmod(FAKE_SCANCEL, 0755));
	unlink(CANCELLED);
	EXPECT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS,
				    "KAV_SLURM_CGROUP=/tmp/no-cgroup/job_%j",
				    "KAV_SLURM_SCANCEL=" FAKE_SCANCEL)))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "cancelling job " JOB)) TH_LOG("%s", r.out);
	f = fopen(CANCELLED, "r");
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	EXPECT_STREQ(JOB "\n", buf);
	EXPECT_EQ(0, cgroup_grants(&self->nl, self->job));
	EXPECT_FALSE(state_exists());
	unlink(CANCELLED);
	unlink(FAKE_SCANCEL);
}

TEST_F_TIMEOUT(slurm, key_sources_and_limits, 240)
{
	struct kav_nl_grant g;
	char conf[1024];
	struct run r;

	/* KAV_JOB_VNI (the site's) comes before SLINGSHOT_VNIS. */
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, "KAV_JOB_VNI=4244",
				    VNIS)))
		TH_LOG("%s", r.out);
	EXPECT_EQ(1, job_grants(&self->nl, 4244, self->job, NULL));
	EXPECT_EQ(0, job_grants(&self->nl, VNI, self->job, NULL));
	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);

	/* The job's AdminComment (KAV_SLURM_ADMIN_COMMENT=1), every VNI of
	 * it, before SLINGSHOT_VNIS. */
	ASSERT_EQ(0, write_file(FAKE_SQUEUE, "#!/bin/sh\necho \"$FAKE_AC\"\n"));
	ASSERT_EQ(0, chmod(FAKE_SQUEUE, 0755));
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, "KAV_SLURM_ADMIN_COMMENT=1",
				    "KAV_SLURM_SQUEUE=" FAKE_SQUEUE,
				    "FAKE_AC=site kav_vnis=4246,4247 x", VNIS)))
		TH_LOG("%s", r.out);
	EXPECT_EQ(1, job_grants(&self->nl, 4246, self->job, NULL));
	EXPECT_EQ(1, job_grants(&self->nl, 4247, self->job, NULL));
	EXPECT_EQ(0, job_grants(&self->nl, VNI, self->job, NULL));
	EXPECT_NE(NULL, strstr(r.out, "from AdminComment")) TH_LOG("%s", r.out);
	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, cgroup_grants(&self->nl, self->job));
	/* An AdminComment without kav_vnis=: the next source. */
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, "KAV_SLURM_ADMIN_COMMENT=1",
				    "KAV_SLURM_SQUEUE=" FAKE_SQUEUE,
				    "FAKE_AC=", VNIS)))
		TH_LOG("%s", r.out);
	EXPECT_EQ(1, job_grants(&self->nl, VNI, self->job, NULL));
	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	unlink(FAKE_SQUEUE);

	/* SPANK_KAV_JOB_VNI when the site trusts it; limits. */
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, "SPANK_KAV_JOB_VNI=4245",
				    "KAV_SLURM_TRUST_SPANK=1",
				    "KAV_SLURM_MAX_ENTRIES=64",
				    "KAV_SLURM_MAX_AVS=2")))
		TH_LOG("%s", r.out);
	ASSERT_EQ(1, job_grants(&self->nl, 4245, self->job, &g));
	EXPECT_EQ(64, g.limit_entries);
	EXPECT_EQ(2, g.limit_avs);
	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, cgroup_grants(&self->nl, self->job));

	/*
	 * As slurmd runs it: no PATH at all; kavctl and the limits from the
	 * site's configuration file (the environment still wins).
	 */
	snprintf(conf, sizeof(conf), "# kav-slurm\nKAVCTL=%s/kavctl\n"
		 "KAV_SLURM_MAX_ENTRIES=32\nKAV_SLURM_MAX_AVS=3\n", tools_dir());
	ASSERT_EQ(0, write_file(CONF, conf));
	ASSERT_EQ(0, tool_run(&r, "kav-slurm-prolog", NULL,
			      env("SLURM_JOB_ID=" JOB, VNIS,
				  "KAV_SLURM_MAX_AVS=5"), true))
		TH_LOG("%s", r.out);
	ASSERT_EQ(1, job_grants(&self->nl, VNI, self->job, &g));
	EXPECT_EQ(1, job_grants(&self->nl, VNI_SECOND, self->job, NULL));
	EXPECT_EQ(32, g.limit_entries);
	EXPECT_EQ(5, g.limit_avs);
	EXPECT_EQ(0, tool_run(&r, "kav-slurm-epilog", NULL,
			      env("SLURM_JOB_ID=" JOB), true))
		TH_LOG("%s", r.out);
	EXPECT_EQ(0, cgroup_grants(&self->nl, self->job));
}

TEST_F_TIMEOUT(slurm, a_key_another_job_holds_is_refused, 180)
{
	uint32_t theirs;
	struct run r;

	/* Job 4243 on this node has VNI already: 4242 must not share it. */
	ASSERT_EQ(0, grant_cgroup(&self->nl, VNI, CG_JOB2, &theirs));
	EXPECT_NE(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	EXPECT_EQ(0, cgroup_grants(&self->nl, self->job));
	EXPECT_EQ(1, kav_nl_grant_exists(&self->nl, theirs));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, theirs));
}

TEST_F_TIMEOUT(slurm, epilog_takes_only_what_is_the_jobs, 180)
{
	uint32_t other, job2, by_hand, by_uid;
	struct run r;

	ASSERT_EQ(0, grant_cgroup(&self->nl, VNI_OTHER, CG_OTHER, &other));
	ASSERT_EQ(0, grant_cgroup(&self->nl, VNI_OTHER, CG_JOB2, &job2));
	/* The job's key for a user, by an administrator: shared, warned. */
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, VNI, 0, &by_uid));
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "also granted outside")) TH_LOG("%s", r.out);
	/* A grant an administrator added to a step of the job: the job's. */
	ASSERT_EQ(0, grant_cgroup(&self->nl, VNI_OTHER, CG_STEP, &by_hand));

	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, cgroup_grants(&self->nl, self->job));
	EXPECT_EQ(0, kav_nl_grant_exists(&self->nl, by_hand));
	EXPECT_EQ(1, kav_nl_grant_exists(&self->nl, other));
	EXPECT_EQ(1, kav_nl_grant_exists(&self->nl, job2));
	EXPECT_EQ(1, kav_nl_grant_exists(&self->nl, by_uid));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, other));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, job2));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, by_uid));
}

TEST_F_TIMEOUT(slurm, pin_and_unpin_the_jobs_named_av, 240)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = AV_INTRUDER };
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };
	struct fid_domain *dom;
	struct av_state job, decoy, intruder;
	struct fid_av *av;
	struct kav_sync s;
	struct run r;
	pid_t pid;

	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	/* Named with the job's prefix, but made outside the job (by root). */
	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	setenv("KAV_LOG", "none", 1);
	ASSERT_EQ(0, kav_domain_open(&info, &dom, NULL));
	ASSERT_EQ(0, fi_av_open(dom, &attr, &av, NULL));

	ASSERT_EQ(0, kav_sync_init(&s));
	pid = kav_spawn(launcher, &s);
	ASSERT_EQ('a', kav_wait_child(&s));
	/* Only root pins; here as an operator would run it. */
	EXPECT_EQ(0, tool_run(&r, "kav-slurm-pin", JOB, NULL, false))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, av_state(AV_JOB, &job));
	ASSERT_TRUE(job.found);
	EXPECT_TRUE(job.pinned);
	EXPECT_EQ(job.id, state_value("av"));
	EXPECT_LE(0, state_value("grant"));	/* the prolog's, kept */
	ASSERT_EQ(0, av_state(AV_DECOY, &decoy));
	ASSERT_TRUE(decoy.found);
	EXPECT_FALSE(decoy.pinned);
	ASSERT_EQ(0, av_state(AV_INTRUDER, &intruder));
	ASSERT_TRUE(intruder.found);
	EXPECT_FALSE(intruder.pinned);
	/* Again: nothing more to do. */
	EXPECT_EQ(0, tool(&r, "kav-slurm-pin", env("SLURM_JOB_ID=" JOB)))
		TH_LOG("%s", r.out);
	/* Not for a job that does not run here. */
	EXPECT_NE(0, tool_run(&r, "kav-slurm-pin", "4244", NULL, false))
		TH_LOG("%s", r.out);

	/* The launcher is gone: the pin keeps its AV, the decoy goes. */
	ASSERT_EQ(0, kav_tell_child(&s, 'b'));
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&s);
	ASSERT_EQ(0, av_state(AV_JOB, &job));
	EXPECT_TRUE(job.found);
	EXPECT_TRUE(job.pinned);
	EXPECT_EQ(0, job.nr_open);
	ASSERT_EQ(0, av_state(AV_DECOY, &decoy));
	EXPECT_FALSE(decoy.found);

	/* An operator pinned the intruder's AV; it is not the job's. */
	ASSERT_EQ(0, av_pin(KAV_GENL_CMD_AV_PIN, intruder.id));
	EXPECT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	ASSERT_EQ(0, av_state(AV_JOB, &job));
	EXPECT_FALSE(job.found);		/* unpinned, and nobody held it */
	ASSERT_EQ(0, av_state(AV_INTRUDER, &intruder));
	EXPECT_TRUE(intruder.found);
	EXPECT_TRUE(intruder.pinned);
	EXPECT_EQ(0, cgroup_grants(&self->nl, self->job));
	EXPECT_FALSE(state_exists());

	EXPECT_EQ(0, av_pin(KAV_GENL_CMD_AV_UNPIN, intruder.id));
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&dom->fid));
	ASSERT_EQ(0, av_state(AV_INTRUDER, &intruder));
	EXPECT_FALSE(intruder.found);
}

/*
 * kav-slurm-taskprolog: in the job's task, as the job's user, the job's
 * VNIs (tagged slurm-4242), the last granted as the hook's key; nothing
 * outside the job, for another job's id, or after the epilog.
 */
TEST_F_TIMEOUT(slurm, taskprolog_exports_the_job_vni, 240)
{
	static const char want[] = "export FI_HOOK=kav\n"
				   "export FI_OFI_HOOK_KAV_VNI=1300\n"
				   "export KAV_JOB_VNIS=1234,1300\n";
	static const char *const outside[] = { CG_OTHER, CG_JOB2, "" };
	struct task_run t;
	uint32_t untagged;
	struct run r;
	size_t i;

	/* Nothing granted yet: nothing to export, and that is no error. */
	ASSERT_EQ(0, task_prolog(&t, CG_STEP, JOB, NULL)) TH_LOG("%s", t.err);
	EXPECT_STREQ("", t.out);
	EXPECT_NE(NULL, strstr(t.err, "runs without kav's keys"))
		TH_LOG("%s", t.err);

	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB, VNIS)))
		TH_LOG("%s", r.out);
	/* A grant of the job's cgroup that is not the job's (no tag). */
	ASSERT_EQ(0, grant_cgroup(&self->nl, VNI_OTHER, CG_JOB, &untagged));

	ASSERT_EQ(0, task_prolog(&t, CG_STEP, JOB, NULL)) TH_LOG("%s", t.err);
	EXPECT_STREQ(want, t.out) TH_LOG("stderr: %s", t.err);
	EXPECT_STREQ("", t.err);
	/* As uid 1000 with no privilege: the output is what whoami saw. */
	ASSERT_EQ(0, task_prolog(&t, CG_JOB, JOB, NULL)) TH_LOG("%s", t.err);
	EXPECT_STREQ(want, t.out) TH_LOG("stderr: %s", t.err);

	/* The same user outside the job: nothing, said on stderr. */
	for (i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		ASSERT_EQ(0, task_prolog(&t, outside[i], JOB, NULL))
			TH_LOG("%s: %s", outside[i], t.err);
		EXPECT_STREQ("", t.out) TH_LOG("cgroup '%s'", outside[i]);
		EXPECT_NE(NULL, strstr(t.err, "no kav grant tagged slurm-" JOB
				       " applies to this task"))
			TH_LOG("cgroup '%s': %s", outside[i], t.err);
	}
	/* In the job's cgroup, claiming to be another job (or its prefix). */
	ASSERT_EQ(0, task_prolog(&t, CG_STEP, "4243", NULL));
	EXPECT_STREQ("", t.out);
	ASSERT_EQ(0, task_prolog(&t, CG_STEP, "424", NULL));
	EXPECT_STREQ("", t.out);

	/* Bad input: no job id, or not one. */
	EXPECT_EQ(1, task_prolog(&t, CG_STEP, NULL, NULL));
	EXPECT_STREQ("", t.out);
	EXPECT_NE(NULL, strstr(t.err, "is not a job id")) TH_LOG("%s", t.err);
	EXPECT_EQ(1, task_prolog(&t, CG_STEP, "42a2", NULL));
	EXPECT_STREQ("", t.out);
	EXPECT_EQ(1, task_prolog(&t, CG_STEP, "04242", NULL));
	/* No kavctl: nothing, and why. */
	ASSERT_EQ(0, task_prolog(&t, CG_STEP, JOB,
				 "KAVCTL=/nonexistent/kavctl"));
	EXPECT_STREQ("", t.out);
	EXPECT_NE(NULL, strstr(t.err, "runs without kav's keys"))
		TH_LOG("%s", t.err);

	/* After the epilog (which took the untagged grant of the job's
	 * cgroup too): no grant, nothing to export. */
	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, kav_nl_grant_exists(&self->nl, untagged));
	ASSERT_EQ(0, task_prolog(&t, CG_STEP, JOB, NULL)) TH_LOG("%s", t.err);
	EXPECT_STREQ("", t.out);

	/*
	 * The job VNI is the last one granted (the highest grant id), not the
	 * largest: the list's order is the prolog's.
	 */
	ASSERT_EQ(0, prolog(&r, env("SLURM_JOB_ID=" JOB,
				    "KAV_JOB_VNI=1300,1234")))
		TH_LOG("%s", r.out);
	ASSERT_EQ(0, task_prolog(&t, CG_STEP, JOB, NULL)) TH_LOG("%s", t.err);
	EXPECT_STREQ("export FI_HOOK=kav\n"
		     "export FI_OFI_HOOK_KAV_VNI=1234\n"
		     "export KAV_JOB_VNIS=1300,1234\n", t.out)
		TH_LOG("stderr: %s", t.err);
	ASSERT_EQ(0, epilog(&r, JOB)) TH_LOG("%s", r.out);
}

/*
 * kav-wire (Documentation/slurm.rst, "Wire keys"), esp mode as
 * /etc/kav/wire.conf would set it (the kernel's wire stays off here;
 * kav_wire_test covers enforcement, kav_wire_sa_test the SAs): the job VNI
 * alone is granted "wire" in the kernel, kav-wire-sa (a fake that records
 * its calls) is run with the job's other node, the epilog takes the key's
 * SAs down after revoking, and the TaskProlog exports the port range.
 */
TEST_F_TIMEOUT(slurm, the_job_key_on_the_wire, 240)
{
	const char *const *e = env("SLURM_JOB_ID=" JOB, VNIS,
				   "KAV_SLURM_WIRE_CONF=" WIRE_CONF,
				   "KAV_SLURM_SCONTROL=" FAKE_SCONTROL,
				   "KAV_SLURM_WIRE_SA=" FAKE_WIRE_SA,
				   "SLURM_JOB_NODELIST=kav-vm,127.0.0.3");
	char calls[512] = "";
	struct kav_nl_grant step, job;
	struct task_run t;
	struct run r;
	FILE *f;

	ASSERT_EQ(0, write_file(WIRE_CONF, "mode esp\nports 40000-40999\n"));
	ASSERT_EQ(0, write_file(FAKE_SCONTROL,
				"#!/bin/sh\necho kav-vm; echo 127.0.0.3\n"));
	ASSERT_EQ(0, write_file(FAKE_WIRE_SA,
				"#!/bin/sh\necho \"$*\" >>" WIRE_CALLS "\n"));
	ASSERT_EQ(0, chmod(FAKE_SCONTROL, 0755));
	ASSERT_EQ(0, chmod(FAKE_WIRE_SA, 0755));
	unlink(WIRE_CALLS);

	ASSERT_EQ(0, prolog(&r, e)) TH_LOG("%s", r.out);
	ASSERT_EQ(1, job_grants(&self->nl, VNI, self->job, &step));
	ASSERT_EQ(1, job_grants(&self->nl, VNI_SECOND, self->job, &job));
	EXPECT_FALSE(step.wire);
	EXPECT_TRUE(job.wire);
	EXPECT_EQ(VNI_SECOND, state_value("wire_sa"));
	f = fopen(WIRE_CALLS, "r");
	ASSERT_NE(NULL, f) TH_LOG("kav-wire-sa was not run: %s", r.out);
	EXPECT_NE(NULL, fgets(calls, sizeof(calls), f));
	fclose(f);
	EXPECT_STREQ("up 1300 127.0.0.3\n", calls) TH_LOG("%s", r.out);

	/* The task's port range, from the same file. */
	ASSERT_EQ(0, task_prolog(&t, CG_STEP, JOB,
				 "KAV_WIRE_CONF=" WIRE_CONF)) TH_LOG("%s", t.err);
	EXPECT_NE(NULL, strstr(t.out, "export FI_TCP_PORT_LOW_RANGE=40000\n"
				      "export FI_TCP_PORT_HIGH_RANGE=40999\n"))
		TH_LOG("%s", t.out);

	ASSERT_EQ(0, tool(&r, "kav-slurm-epilog", e)) TH_LOG("%s", r.out);
	EXPECT_EQ(0, cgroup_grants(&self->nl, self->job));
	f = fopen(WIRE_CALLS, "r");
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, fgets(calls, sizeof(calls), f));
	EXPECT_NE(NULL, fgets(calls, sizeof(calls), f));
	fclose(f);
	EXPECT_STREQ("down 1300\n", calls) TH_LOG("%s", r.out);
	unlink(WIRE_CALLS);
	unlink(FAKE_WIRE_SA);
	unlink(FAKE_SCONTROL);
	unlink(WIRE_CONF);
}

TEST_HARNESS_MAIN
