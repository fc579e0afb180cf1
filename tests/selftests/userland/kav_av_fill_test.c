// SPDX-License-Identifier: GPL-2.0
/*
 * kav-av-fill (tools/instant, kav-av-fill(1)) on the real device, run from
 * /tests (or $KAV_AV_FILL) as a job's user in the job's cgroup, which holds
 * the job's VNI grant, as Slurm runs it:
 *
 *  - a fill of several hosts (Slurm's "3,2(x2)") puts rank r at index r
 *    with its host's address and port P + r; --hold prints its ready line,
 *    creates the ready file, holds the AV until SIGTERM and removes the
 *    file; ranks (FI_READ, count N) read it with the job's key, another
 *    user cannot (mode 0600); a rank's open keeps the AV after the holder
 *    is gone, and the AV goes with the last holder;
 *  - --wait waits for the fill, and fails after its timeout when the AV
 *    is missing or short, naming why;
 *  - -- COMMAND: the AV is there while COMMAND runs, COMMAND's exit
 *    status is kav-av-fill's, its environment is untouched (KAV_LOG),
 *    appnum -1 (srun's PMI) works;
 *  - refusals, one line each: no grant for the cgroup, another VNI, an AV
 *    of the name that holds entries already;
 *  - --rank-exec sets the rank's port from PMI_RANK or SLURM_PROCID.
 */
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <kav/kav.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

#define VNI		0x4c01
#define VNI_OTHER	0x4c02
#define JOB_UID		1000
#define OTHER_UID	1001
#define CG_JOB		"kav-fill-job"
#define CG_OUT		"kav-fill-outside"
#define PORT		24000
#define READY		"/tmp/kav-av-fill.ready"
#define AV0		"FI_NAMED_AV_0\n"

/* The fill of the tests: 7 ranks on three hosts, as Slurm lays them. */
#define HOSTS		"10.0.0.1,10.0.0.2,10.0.0.3"
#define TASKS		"3,2(x2)"
#define NRANKS		7
static const uint32_t rank_host[NRANKS] = {
	0x0a000001, 0x0a000001, 0x0a000001, 0x0a000002, 0x0a000002,
	0x0a000003, 0x0a000003,
};

#define ARGS(...)	((const char *const []){ __VA_ARGS__, NULL })

static const char *fill_path(void)
{
	static char path[512];
	const char *p = getenv("KAV_AV_FILL");

	if (p && *p)
		return p;
	snprintf(path, sizeof(path), "/tests/kav-av-fill");
	return path;
}

/* ------------------------------------------------------------ programs */

/* kav-av-fill running as @uid in cgroup @cg: its pid and output pipes. */
struct proc {
	pid_t pid;
	int out, err;
	int rc;
	char o[4096], e[4096];
};

static int start(struct proc *p, const char *cg, uid_t uid,
		 const char *const *args, const char *extra_env)
{
	const char *argv[32], *envp[4];
	int out[2], err[2];
	size_t n = 0, e = 0;

	memset(p, 0, sizeof(*p));
	p->pid = -1;
	p->rc = -1;
	argv[n++] = "kav-av-fill";
	while (*args && n < sizeof(argv) / sizeof(argv[0]) - 1)
		argv[n++] = *args++;
	argv[n] = NULL;
	envp[e++] = "PATH=/tests:/usr/bin:/bin";
	if (extra_env)
		envp[e++] = extra_env;
	envp[e] = NULL;
	if (pipe2(out, O_CLOEXEC))
		return -1;
	if (pipe2(err, O_CLOEXEC)) {
		close(out[0]);
		close(out[1]);
		return -1;
	}
	p->pid = fork();
	if (p->pid == 0) {
		if (kav_cgroup_move(cg, getpid()) ||
		    kav_become(uid, uid, 0, NULL))
			_exit(99);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execve(fill_path(), (char *const *)argv, (char *const *)envp);
		fprintf(stderr, "exec %s: %s\n", fill_path(), strerror(errno));
		_exit(98);
	}
	close(out[1]);
	close(err[1]);
	p->out = out[0];
	p->err = err[0];
	return p->pid < 0 ? -1 : 0;
}

/* Append what @fd has to @buf until EOF or @ms pass; stop at a newline
 * when @line. */
static void drain(int fd, char *buf, size_t size, int ms, bool line)
{
	size_t len = strlen(buf);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t got;

	while (len < size - 1 && poll(&pfd, 1, ms) > 0) {
		got = read(fd, buf + len, line ? 1 : size - 1 - len);
		if (got <= 0)
			break;
		len += (size_t)got;
		buf[len] = '\0';
		if (line && buf[len - 1] == '\n')
			break;
	}
	buf[len] = '\0';
}

/* Wait for the first line of standard output (the ready line). */
static void first_line(struct proc *p, int ms)
{
	drain(p->out, p->o, sizeof(p->o), ms, true);
}

/* Reap it (within @ms, else SIGKILL): its exit status, all its output. */
static int finish(struct proc *p, int ms)
{
	int rc;

	drain(p->out, p->o, sizeof(p->o), ms, false);
	drain(p->err, p->e, sizeof(p->e), 1000, false);
	rc = kav_reap_timeout(p->pid, ms);
	if (rc == -ETIMEDOUT) {
		kill(p->pid, SIGKILL);
		rc = kav_reap(p->pid);
		rc = rc >= 0 ? 1000 + rc : rc;	/* never a success */
	}
	close(p->out);
	close(p->err);
	p->rc = rc;
	return rc;
}

/* Run to the end: its exit status. */
static int run(struct proc *p, const char *cg, uid_t uid,
	       const char *const *args, const char *extra_env)
{
	if (start(p, cg, uid, args, extra_env))
		return -1;
	return finish(p, 60000);
}

/* One line on stderr, nothing on stdout: how every failure reads. */
static bool one_line_failure(const struct proc *p, const char *what)
{
	const char *nl = strchr(p->e, '\n');

	return p->rc != 0 && !p->o[0] && !strncmp(p->e, "kav-av-fill: ", 13) &&
	       nl && !nl[1] && strstr(p->e, what);
}

/* --------------------------------------------------------------- ranks */

static int open_domain(bool keyed, uint32_t vni, struct fid_domain **dom)
{
	struct kav_auth_key key = { .vni = vni };
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };

	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	if (keyed) {
		dattr.auth_key = (uint8_t *)&key;
		dattr.auth_key_size = sizeof(key);
	}
	return kav_domain_open(&info, dom, NULL);
}

/* A rank's view: FI_READ, count @n, of @name; every entry checked. */
static int check_ranks(struct fid_domain *dom, const char *name, int n,
		       struct fid_av **avp)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = FI_READ,
				   .count = (size_t)n, .name = name };
	struct sockaddr_in sin;
	const fi_addr_t *map;
	struct fid_av *av;
	size_t len;
	int r;

	CK_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	map = attr.map_addr;
	CK(map != NULL);
	for (r = 0; r < n; r++) {
		struct sockaddr_in want = kav_sin(rank_host[r],
						  (uint16_t)(PORT + r));

		CK_EQ(r, map[r]);
		len = sizeof(sin);
		CK_EQ(0, fi_av_lookup(av, map[r], &sin, &len));
		CK_EQ(sizeof(sin), len);
		CK_EQ(want.sin_addr.s_addr, sin.sin_addr.s_addr);
		CK_EQ(want.sin_port, sin.sin_port);
	}
	if (avp)
		*avp = av;
	else
		CK_EQ(0, fi_close(&av->fid));
	return 0;
}

/* A rank of the job: in its cgroup, as its user, under its key. */
static int rank(void *arg)
{
	struct fid_domain *dom;

	(void)arg;
	CK_EQ(0, kav_cgroup_move(CG_JOB, getpid()));
	CK_EQ(0, kav_become(JOB_UID, JOB_UID, 0, NULL));
	setenv("KAV_LOG", "none", 1);
	CK_EQ(0, open_domain(true, VNI, &dom));
	if (check_ranks(dom, AV0, NRANKS, NULL))
		return 1;
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

/* Another user who names the job's user as the AV's owner. */
static int other_user(void *arg)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = FI_READ,
				   .count = NRANKS, .name = AV0 };
	struct fid_domain *dom;
	struct fid_av *av;

	(void)arg;
	CK_EQ(0, kav_become(OTHER_UID, OTHER_UID, 0, NULL));
	setenv("KAV_LOG", "none", 1);
	setenv("KAV_AV_OWNER", "1000", 1);
	CK_EQ(0, open_domain(false, 0, &dom));
	CK_EQ(-FI_EACCES, fi_av_open(dom, &attr, &av, NULL));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

/* A rank that holds the AV across the holder's end (@arg: kav_sync). */
static int late_rank(void *arg)
{
	struct kav_sync *s = arg;
	struct fid_domain *dom;
	struct fid_av *av;

	CK_EQ(0, kav_cgroup_move(CG_JOB, getpid()));
	CK_EQ(0, kav_become(JOB_UID, JOB_UID, 0, NULL));
	setenv("KAV_LOG", "none", 1);
	CK_EQ(0, open_domain(true, VNI, &dom));
	if (check_ranks(dom, AV0, NRANKS, &av))
		return 1;
	CK(!kav_tell_parent(s, 'a'));
	CK_EQ('b', kav_wait_parent(s));
	/* The holder is gone; this rank's open keeps the AV. */
	if (check_ranks(dom, AV0, NRANKS, NULL))
		return 1;
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

/* Is the job user's AV @name there? Exit 1 yes, 0 no, 2 otherwise. */
static int probe(void *arg)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = FI_READ,
				   .name = arg };
	struct fid_domain *dom;
	struct fid_av *av;
	int ret;

	setenv("KAV_LOG", "none", 1);
	CK_EQ(0, open_domain(false, 0, &dom));
	ret = fi_av_open(dom, &attr, &av, NULL);
	if (!ret)
		fi_close(&av->fid);
	fi_close(&dom->fid);
	return !ret ? 1 : ret == -FI_ENOENT ? 0 : 2;
}

/* Named AVs are their owner's, and mode 0600 keeps root out too: ask as
 * the job's user. */
static int av_exists(const char *name)
{
	return kav_run_as(JOB_UID, probe, (void *)name);
}

/* ------------------------------------------------------------ fixture */

FIXTURE(fill) {
	struct kav_nl nl;
	uint32_t grant;
	int keyless;
};

FIXTURE_SETUP(fill)
{
	struct kav_grant_spec s = { .vni = VNI, .sel_type = KAV_SEL_CGROUP,
				    .cgroup_path = "/" CG_JOB };
	struct kav_nl_grant g;

	ASSERT_EQ(0, access(fill_path(), X_OK))
		TH_LOG("%s: missing (make tools; lanes/vm/vm.sh installs it)",
		       fill_path());
	ASSERT_EQ(0, kav_nl_open(&self->nl));
	self->keyless = kav_get_allow_keyless();
	ASSERT_EQ(0, kav_set_allow_keyless(false));
	ASSERT_EQ(0, kav_cgroup_make(CG_JOB));
	ASSERT_EQ(0, kav_cgroup_make(CG_OUT));
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &g));
	self->grant = g.id;
	unlink(READY);
}

FIXTURE_TEARDOWN(fill)
{
	kav_nl_grant_del(&self->nl, self->grant);
	kav_cgroup_remove(CG_JOB);
	kav_cgroup_remove(CG_OUT);
	unlink(READY);
	if (self->keyless >= 0)
		kav_set_allow_keyless(self->keyless);
	kav_nl_close(&self->nl);
}

/* --------------------------------------------------------------- tests */

TEST_F_TIMEOUT(fill, hold_fills_in_rank_order, 180)
{
	char want[256], file[512] = "";
	struct proc p, q;
	int fd;

	ASSERT_EQ(0, start(&p, CG_JOB, JOB_UID,
			   ARGS("--vni", "0x4c01", "--hosts", HOSTS,
				"--tasks-per-node", TASKS, "--port-base", "24000",
				"--hold", "--ready-file", READY), NULL));
	first_line(&p, 30000);
	snprintf(want, sizeof(want),
		 "kav-av-fill: ready: FI_NAMED_AV_0\\n holds %d ranks of 3 hosts (vni %u, ports %d-%d) on ",
		 NRANKS, VNI, PORT, PORT + NRANKS - 1);
	ASSERT_EQ(0, strncmp(p.o, want, strlen(want))) TH_LOG("%s", p.o);
	/* The ready file says the same. */
	fd = open(READY, O_RDONLY);
	ASSERT_LE(0, fd);
	drain(fd, file, sizeof(file), 1000, false);
	close(fd);
	EXPECT_STREQ(p.o, file);

	/* The job's ranks read it; another user may not (mode 0600). */
	EXPECT_EQ(0, kav_reap(kav_spawn(rank, NULL)));
	EXPECT_EQ(0, kav_reap(kav_spawn(other_user, NULL)));
	/* A second filler of the same name: refused, the AV unchanged. */
	run(&q, CG_JOB, JOB_UID, ARGS("--vni", "0x4c01", "--hosts", "10.0.0.9",
				      "--tasks-per-node", "1", "--port-base",
				      "24000", "--hold"), NULL);
	EXPECT_TRUE(one_line_failure(&q, "already holds 7 entries"))
		TH_LOG("rc %d: %s%s", q.rc, q.o, q.e);
	EXPECT_EQ(0, kav_reap(kav_spawn(rank, NULL)));

	/* SIGTERM (Slurm ending the step): exit 0, file and AV gone. */
	ASSERT_EQ(0, kill(p.pid, SIGTERM));
	EXPECT_EQ(0, finish(&p, 30000)) TH_LOG("%s", p.e);
	EXPECT_STREQ("", p.e);
	EXPECT_NE(0, access(READY, F_OK));
	EXPECT_EQ(0, av_exists(AV0));
}

TEST_F_TIMEOUT(fill, a_rank_keeps_the_av_after_the_holder, 180)
{
	struct kav_sync s;
	struct proc p;
	pid_t pid;

	ASSERT_EQ(0, start(&p, CG_JOB, JOB_UID,
			   ARGS("--vni", "0x4c01", "--hosts", HOSTS,
				"--tasks-per-node", TASKS, "--port-base", "24000",
				"--hold"), NULL));
	first_line(&p, 30000);
	ASSERT_NE(NULL, strstr(p.o, "ready")) TH_LOG("%s", p.o);
	ASSERT_EQ(0, kav_sync_init(&s));
	pid = kav_spawn(late_rank, &s);
	ASSERT_EQ('a', kav_wait_child(&s));
	ASSERT_EQ(0, kill(p.pid, SIGINT));
	EXPECT_EQ(0, finish(&p, 30000)) TH_LOG("%s", p.e);
	EXPECT_EQ(1, av_exists(AV0));	/* held by the rank alone */
	ASSERT_EQ(0, kav_tell_child(&s, 'b'));
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&s);
	EXPECT_EQ(0, av_exists(AV0));	/* gone with its last holder */
}

TEST_F_TIMEOUT(fill, wait_for_every_rank, 180)
{
	struct proc w, p, late;

	/* Nothing there: the wait names what it found, after its timeout. */
	run(&w, CG_JOB, JOB_UID, ARGS("--wait", "--ranks", "7", "--timeout", "1"),
	    NULL);
	EXPECT_TRUE(one_line_failure(&w, "not filled with 7 ranks after 1 s"))
		TH_LOG("rc %d: %s%s", w.rc, w.o, w.e);
	EXPECT_NE(NULL, strstr(w.e, "no named AV")) TH_LOG("%s", w.e);

	/* Waiting first, then the fill: the wait sees it. */
	ASSERT_EQ(0, start(&late, CG_JOB, JOB_UID,
			   ARGS("--wait", "--ranks", "7", "--timeout", "60"),
			   NULL));
	usleep(300000);
	ASSERT_EQ(0, start(&p, CG_JOB, JOB_UID,
			   ARGS("--hosts", HOSTS, "--tasks-per-node", TASKS,
				"--port-base", "24000", "--hold"),
			   "FI_OFI_HOOK_KAV_VNI=19457"));
	first_line(&p, 30000);
	EXPECT_NE(NULL, strstr(p.o, "(vni 19457,")) TH_LOG("%s%s", p.o, p.e);
	EXPECT_EQ(0, finish(&late, 60000)) TH_LOG("%s", late.e);
	EXPECT_NE(NULL, strstr(late.o,
			       "kav-av-fill: ready: FI_NAMED_AV_0\\n holds 7 ranks on "))
		TH_LOG("%s", late.o);
	/* Also from another cgroup (reading needs no key), and with one. */
	EXPECT_EQ(0, run(&w, CG_OUT, JOB_UID,
			 ARGS("--wait", "--ranks", "7", "--timeout", "0"),
			 NULL)) TH_LOG("%s", w.e);
	EXPECT_EQ(0, run(&w, CG_JOB, JOB_UID,
			 ARGS("--wait", "--ranks", "7", "--timeout", "0",
			      "--vni", "19457"), NULL)) TH_LOG("%s", w.e);
	/* More ranks than were filled: never ready. */
	run(&w, CG_JOB, JOB_UID, ARGS("--wait", "--ranks", "8", "--timeout", "1"),
	    NULL);
	EXPECT_TRUE(one_line_failure(&w, "not filled with 8 ranks"))
		TH_LOG("rc %d: %s%s", w.rc, w.o, w.e);
	/* Another appnum is another AV. */
	run(&w, CG_JOB, JOB_UID, ARGS("--wait", "--ranks", "7", "--appnum", "1",
				      "--timeout", "0"), NULL);
	EXPECT_TRUE(one_line_failure(&w, "FI_NAMED_AV_1\\n"))
		TH_LOG("rc %d: %s%s", w.rc, w.o, w.e);
	ASSERT_EQ(0, kill(p.pid, SIGTERM));
	EXPECT_EQ(0, finish(&p, 30000)) TH_LOG("%s", p.e);
}

TEST_F_TIMEOUT(fill, command_holds_the_av, 180)
{
	struct proc p;

	/* COMMAND finds the AV (appnum -1, srun's), its status is ours. */
	EXPECT_EQ(0, run(&p, CG_JOB, JOB_UID,
			 ARGS("--vni", "19457", "--hosts", "127.0.0.1",
			      "--tasks-per-node", "2", "--port-base", "25000",
			      "--appnum", "-1", "--", "kav-av-fill", "--wait",
			      "--ranks", "2", "--appnum", "-1", "--timeout",
			      "0"), NULL)) TH_LOG("%s%s", p.o, p.e);
	EXPECT_NE(NULL, strstr(p.o, "FI_NAMED_AV_-1\\n holds 2 ranks on"))
		TH_LOG("%s", p.o);
	EXPECT_NE(NULL, strstr(p.e, "ready: FI_NAMED_AV_-1\\n holds 2 ranks of 1 hosts"))
		TH_LOG("%s", p.e);
	EXPECT_EQ(0, av_exists("FI_NAMED_AV_-1\n"));
	EXPECT_EQ(3, run(&p, CG_JOB, JOB_UID,
			 ARGS("--vni", "19457", "--hosts", "127.0.0.1",
			      "--tasks-per-node", "2", "--port-base", "25000",
			      "--", "sh", "-c", "exit 3"), NULL))
		TH_LOG("%s", p.e);
	/* KAV_LOG, which kav-av-fill sets for itself, is not COMMAND's. */
	EXPECT_EQ(0, run(&p, CG_JOB, JOB_UID,
			 ARGS("--vni", "19457", "--hosts", "127.0.0.1",
			      "--tasks-per-node", "1", "--port-base", "25000",
			      "--", "sh", "-c", "test -z \"${KAV_LOG+x}\""),
			 NULL)) TH_LOG("%s", p.e);
	EXPECT_EQ(0, run(&p, CG_JOB, JOB_UID,
			 ARGS("--vni", "19457", "--hosts", "127.0.0.1",
			      "--tasks-per-node", "1", "--port-base", "25000",
			      "--", "sh", "-c", "test \"$KAV_LOG\" = debug"),
			 "KAV_LOG=debug")) TH_LOG("%s", p.e);
	/* A COMMAND that is not there. */
	EXPECT_EQ(127, run(&p, CG_JOB, JOB_UID,
			   ARGS("--vni", "19457", "--hosts", "127.0.0.1",
				"--tasks-per-node", "1", "--port-base", "25000",
				"--", "/nonexistent/mpiexec"), NULL));
	EXPECT_NE(NULL, strstr(p.e, "cannot run '/nonexistent/mpiexec'"))
		TH_LOG("%s", p.e);
	EXPECT_EQ(0, av_exists(AV0));
}

TEST_F_TIMEOUT(fill, refusals_say_why, 180)
{
	const char *const *fill = ARGS("--vni", "19457", "--hosts", HOSTS,
				       "--tasks-per-node", TASKS,
				       "--port-base", "24000", "--hold");
	struct proc p;

	/* The same user outside the job's cgroup: no grant. */
	run(&p, CG_OUT, JOB_UID, fill, NULL);
	EXPECT_TRUE(one_line_failure(&p, "no grant for this auth key"))
		TH_LOG("rc %d: %s%s", p.rc, p.o, p.e);
	EXPECT_NE(NULL, strstr(p.e, "kav domain under vni 19457")) TH_LOG("%s", p.e);
	/* In the job, another job's VNI. */
	run(&p, CG_JOB, JOB_UID,
	    ARGS("--vni", "0x4c02", "--hosts", "10.0.0.1", "--tasks-per-node",
		 "1", "--port-base", "24000", "--hold"), NULL);
	EXPECT_TRUE(one_line_failure(&p, "vni 19458"))
		TH_LOG("rc %d: %s%s", p.rc, p.o, p.e);
	/* Bad input: status 2, one line. */
	EXPECT_EQ(2, run(&p, CG_JOB, JOB_UID,
			 ARGS("--vni", "19457", "--hosts", "10.0.0.1,10.0.0.2",
			      "--tasks-per-node", "2(x3)", "--port-base", "24000",
			      "--hold"), NULL));
	EXPECT_TRUE(one_line_failure(&p, "names more hosts than the 2 of --hosts")) TH_LOG("%s", p.e);
	EXPECT_EQ(2, run(&p, CG_JOB, JOB_UID,
			 ARGS("--hosts", "10.0.0.1", "--tasks-per-node", "1",
			      "--port-base", "24000", "--hold"), NULL));
	EXPECT_TRUE(one_line_failure(&p, "filling needs --vni")) TH_LOG("%s", p.e);
	/* A loopback host among others. */
	run(&p, CG_JOB, JOB_UID,
	    ARGS("--vni", "19457", "--hosts", "10.0.0.1,127.0.0.1",
		 "--tasks-per-node", "1", "--port-base", "24000", "--hold"),
	    NULL);
	EXPECT_TRUE(one_line_failure(&p, "a loopback address")) TH_LOG("%s", p.e);
	EXPECT_EQ(0, av_exists(AV0));
}

TEST_F_TIMEOUT(fill, rank_exec_sets_the_port, 60)
{
	const char *const *show = ARGS("--rank-exec", "--port-base", "30000",
				       "--", "sh", "-c",
				       "echo $FI_TCP_PORT_LOW_RANGE-$FI_TCP_PORT_HIGH_RANGE");
	struct proc p;

	EXPECT_EQ(0, run(&p, CG_JOB, JOB_UID, show, "PMI_RANK=3"));
	EXPECT_STREQ("30003-30003\n", p.o);
	EXPECT_EQ(0, run(&p, CG_JOB, JOB_UID, show, "SLURM_PROCID=5"));
	EXPECT_STREQ("30005-30005\n", p.o);
	EXPECT_EQ(1, run(&p, CG_JOB, JOB_UID, show, NULL));
	EXPECT_TRUE(one_line_failure(&p, "no rank")) TH_LOG("%s", p.e);
	EXPECT_EQ(1, run(&p, CG_JOB, JOB_UID,
			 ARGS("--rank-exec", "--port-base", "65535", "--", "true"),
			 "PMI_RANK=1"));
	EXPECT_TRUE(one_line_failure(&p, "past port 65535")) TH_LOG("%s", p.e);
}

TEST_HARNESS_MAIN
