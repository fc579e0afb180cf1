// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant can tell why kav refused it (issue 17, item 2): libkav's
 * message, logged at the default level and returned by kav_last_error(),
 * names the real cause, the domain's captured identity and the VNI.
 * Each case runs as another uid (setresuid in a forked child) with its
 * stderr in a file, which the child reads back:
 *  - an ungranted VNI (the VNIs that are granted are listed), for the
 *    domain's key and for a per-AV key (fi_av_insert_auth_key);
 *  - a keyless insert on a node without allow_keyless;
 *  - a grant's max-entries limit (not "Disk quota exceeded");
 *  - a named AV of mode 0600 owned by another uid, and a missing name;
 *  - a /dev/kav node the uid may not open;
 *  - an unknown host for fi_av_insertsvc;
 *  - refused fi_av_insertsvc arguments at KAV_LOG=debug, FI_LOG_LEVEL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <rdma/fi_domain.h>

#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

#define TENANT		2101
#define VNI_GRANTED	7300
#define VNI_OTHER	7301
#define VNI_LIMITED	7302

/* ------------------------------------------------- stderr of a child */

static char cap_path[64];

/* Send fd 2 to a fresh file of this process. */
static int cap_begin(void)
{
	int fd;

	snprintf(cap_path, sizeof(cap_path), "/tmp/kav_diag.%d", (int)getpid());
	fd = open(cap_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || dup2(fd, 2) < 0)
		return -1;
	close(fd);
	return 0;
}

/* What was written to fd 2 since cap_begin() (static buffer). */
static const char *cap_read(void)
{
	static char buf[16384];
	ssize_t n;
	int fd = open(cap_path, O_RDONLY | O_CLOEXEC);

	buf[0] = '\0';
	if (fd < 0)
		return buf;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return buf;
}

static int n_lines(const char *log, const char *needle)
{
	int n = 0;

	for (; (log = strstr(log, needle)); log++)
		n++;
	return n;
}

/* The child's view: check @needle is in both the log and the detail. */
#define CK_SAID(log, needle) do {					\
	CK(strstr(kav_last_error(), (needle)));				\
	CK(strstr((log), (needle)));					\
} while (0)

static void show(const char *log)
{
	/* Into the TAP output (stdout), commented. */
	printf("# kav_last_error(): %s\n# log: %s", kav_last_error(), log);
}

static struct fid_domain *open_keyless(void)
{
	struct fi_info info = { 0 };
	struct fid_domain *dom = NULL;

	info.addr_format = FI_SOCKADDR_IN;
	if (kav_domain_open(&info, &dom, NULL))
		return NULL;
	return dom;
}

static struct fid_av *open_av(struct fid_domain *dom, const char *name,
			      uint64_t flags)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 8,
				   .name = (char *)name, .flags = flags };
	struct fid_av *av = NULL;

	return fi_av_open(dom, &attr, &av, NULL) ? NULL : av;
}

static struct sockaddr_in sin4(int i)
{
	struct sockaddr_in s = { .sin_family = AF_INET,
				 .sin_port = htons(5000 + i) };

	s.sin_addr.s_addr = htonl(0x0a000001 + i);
	return s;
}

/* ------------------------------------------------------------ fixture */

FIXTURE(diag) {
	struct kav_nl nl;
	uint32_t grants[4];
	int nr_grants;
	int keyless;
};

FIXTURE_SETUP(diag)
{
	self->nr_grants = 0;
	self->keyless = kav_get_allow_keyless();
	ASSERT_LE(0, self->keyless) TH_LOG("kav.ko not loaded?");
	ASSERT_EQ(0, kav_set_allow_keyless(false));
	ASSERT_EQ(0, kav_nl_open(&self->nl));
	/* Nothing else may log in the children. */
	unsetenv("KAV_LOG");
	unsetenv("FI_LOG_LEVEL");
}

FIXTURE_TEARDOWN(diag)
{
	int i;

	for (i = 0; i < self->nr_grants; i++)
		kav_nl_grant_del(&self->nl, self->grants[i]);
	if (self->keyless >= 0)
		kav_set_allow_keyless(self->keyless);
	kav_nl_close(&self->nl);
}

static void add_grant(struct __test_metadata *_metadata,
		      FIXTURE_DATA(diag) *self, uint32_t vni,
		      uint64_t limit_entries)
{
	struct kav_grant_spec s = { .vni = vni, .sel_type = KAV_SEL_UID,
				    .sel_id = TENANT,
				    .limit_entries = limit_entries };
	struct kav_nl_grant g;

	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &g));
	self->grants[self->nr_grants++] = g.id;
}

/* ---------------------------------------------------- no grant: VNI */

static int child_ungranted(void *arg)
{
	struct fid_domain *dom = NULL;
	char want[96];
	const char *log;

	(void)arg;
	CK(!cap_begin());
	CK_EQ(-FI_EACCES, kav_lib_open_keyed(VNI_OTHER, &dom));
	log = cap_read();
	show(log);
	snprintf(want, sizeof(want), "no grant for this auth key (vni %u)",
		 VNI_OTHER);
	CK_SAID(log, want);
	snprintf(want, sizeof(want), "identity (uid %u, gid %u, cgroup ",
		 TENANT, TENANT);
	CK_SAID(log, want);
	CK_SAID(log, "netns cookie ");
	snprintf(want, sizeof(want), "granted: %u;", VNI_GRANTED);
	CK_SAID(log, want);
	CK_EQ(1, n_lines(log, "libkav: "));
	return 0;
}

TEST_F(diag, ungranted_vni)
{
	add_grant(_metadata, self, VNI_GRANTED, 0);
	EXPECT_EQ(0, kav_run_as(TENANT, child_ungranted, NULL));
}

/* ---------------------------------------------------------- keyless */

static int child_keyless(void *arg)
{
	struct sockaddr_in a = sin4(1);
	struct fid_domain *dom;
	struct fid_av *av;
	fi_addr_t fa;
	const char *log;

	(void)arg;
	CK(!cap_begin());
	CK(dom = open_keyless());
	CK(av = open_av(dom, NULL, 0));
	CK_EQ(0, fi_av_insert(av, &a, 1, &fa, 0, NULL));
	log = cap_read();
	show(log);
	CK_SAID(log, "keyless insert refused: keyless inserts are off on "
		     "this node");
	CK_SAID(log, "open the domain with an auth key (VNI)");
	CK_SAID(log, "identity uid 2101, gid 2101");
	CK_SAID(log, "granted: 7300");
	CK_EQ(1, n_lines(log, "libkav: "));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

TEST_F(diag, keyless)
{
	add_grant(_metadata, self, VNI_GRANTED, 0);
	EXPECT_EQ(0, kav_run_as(TENANT, child_keyless, NULL));
}

/* ---------------------------------------------------- a grant limit */

static int child_limit(void *arg)
{
	struct sockaddr_in a[3] = { sin4(1), sin4(2), sin4(3) };
	uint32_t id = *(uint32_t *)arg;
	struct fid_domain *dom = NULL;
	struct fid_av *av;
	fi_addr_t fa[3];
	char want[96];
	const char *log;

	CK(!cap_begin());
	CK_EQ(0, kav_lib_open_keyed(VNI_LIMITED, &dom));
	CK(av = open_av(dom, NULL, 0));
	CK_EQ(0, fi_av_insert(av, a, 3, fa, 0, NULL));	/* 3 > 2: none */
	log = cap_read();
	show(log);
	snprintf(want, sizeof(want), "grant %u (vni %u) limit reached: "
		 "max-entries 2 (0 in use)", id, VNI_LIMITED);
	CK_SAID(log, want);
	CK_SAID(log, "needed 3 more entries");
	CK_SAID(log, "uid 2101");
	CK(!strstr(log, "quota"));
	CK(!strstr(kav_strerror(-EDQUOT), "quota"));
	CK_EQ(1, n_lines(log, "libkav: "));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

TEST_F(diag, grant_limit)
{
	add_grant(_metadata, self, VNI_LIMITED, 2);
	EXPECT_EQ(0, kav_run_as(TENANT, child_limit,
				&self->grants[self->nr_grants - 1]));
}

/* ----------------------------------------- a named AV of another uid */

static int child_named(void *arg)
{
	struct fid_domain *dom;
	const char *log;

	(void)arg;
	setenv("KAV_AV_OWNER", "0", 1);
	CK(!cap_begin());
	CK(dom = open_keyless());
	CK(!open_av(dom, "kav-diag-0600", 0));
	log = cap_read();
	show(log);
	CK_SAID(log, "named AV 'kav-diag-0600' (owner uid 0) does not "
		     "allow read/write for uid 2101");
	/* The kernel tells the AV's mode (KAV_AV_DENIED_MODE). */
	CK_SAID(log, "its mode bits 0600, set by its creator");
	CK_EQ(1, n_lines(log, "libkav: "));
	/* Read-only: the same, for read. */
	CK(!cap_begin());
	CK(!open_av(dom, "kav-diag-0600", FI_READ));
	log = cap_read();
	CK_SAID(log, "does not allow read for uid 2101");
	/* A missing name: the detail, not a warning (FI_READ probes). */
	CK(!cap_begin());
	CK(!open_av(dom, "kav-diag-missing", FI_READ));
	log = cap_read();
	show(log);
	CK(strstr(kav_last_error(), "no named AV 'kav-diag-missing' in this "
				    "IPC namespace (ipc ns "));
	CK(strstr(kav_last_error(), "owner uid 0, from KAV_AV_OWNER"));
	CK_EQ(0, n_lines(log, "libkav: "));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

TEST_F(diag, named_av_mode)
{
	struct fid_domain *dom;
	struct fid_av *av;

	/* Root's AV, mode 0600: no bits for anyone else. */
	setenv("KAV_AV_MODE", "0600", 1);
	dom = open_keyless();
	ASSERT_NE(NULL, dom);
	av = open_av(dom, "kav-diag-0600", 0);
	unsetenv("KAV_AV_MODE");
	ASSERT_NE(NULL, av);
	EXPECT_EQ(0, kav_run_as(TENANT, child_named, NULL));
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&dom->fid));
}

/* ------------------------------------------- /dev/kav's permissions */

static int child_device(void *arg)
{
	const char *log;

	setenv("KAV_DEVICE", (const char *)arg, 1);
	CK(!cap_begin());
	CK(!open_keyless());
	log = cap_read();
	show(log);
	CK_SAID(log, "permission denied: the device is mode 0600, owner uid "
		     "0");
	CK_SAID(log, "this process (uid 2101, gid 2101) may not read and "
		     "write it");
	CK_SAID(log, "udev rule");
	CK(!strstr(log, "no grant"));
	CK_EQ(1, n_lines(log, "libkav: "));
	return 0;
}

TEST_F(diag, device_permission)
{
	const char *node = "/tmp/kav-diag-dev";
	struct stat st;

	ASSERT_EQ(0, stat("/dev/kav", &st));
	unlink(node);
	ASSERT_EQ(0, mknod(node, S_IFCHR | 0600, st.st_rdev));
	ASSERT_EQ(0, chmod(node, 0600));
	EXPECT_EQ(0, kav_run_as(TENANT, child_device, (void *)node));
	unlink(node);
}

/* ----------------------------------------------- a per-AV key denial */

static int child_av_key(void *arg)
{
	struct kav_auth_key key = { .vni = VNI_OTHER };
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };
	struct fid_domain *dom = NULL;
	struct fid_av *av;
	fi_addr_t h = 0;
	const char *log;

	(void)arg;
	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	dattr.auth_key_size = FI_AV_AUTH_KEY;
	CK_EQ(0, kav_domain_open(&info, &dom, NULL));
	CK(av = open_av(dom, NULL, 0));
	CK(!cap_begin());
	CK_EQ(-FI_EACCES, fi_av_insert_auth_key(av, &key, sizeof(key), &h,
						0));
	log = cap_read();
	show(log);
	CK_SAID(log, "fi_av_insert_auth_key refused: no grant for this auth "
		     "key (vni 7301) matches the domain's identity (uid 2101");
	CK_SAID(log, "granted: 7300;");
	CK_EQ(1, n_lines(log, "libkav: "));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

TEST_F(diag, av_key_denied)
{
	add_grant(_metadata, self, VNI_GRANTED, 0);
	EXPECT_EQ(0, kav_run_as(TENANT, child_av_key, NULL));
}

/* ------------------------------------------------------ unknown host */

static int child_host(void *arg)
{
	struct fid_domain *dom = NULL;
	struct fid_av *av;
	fi_addr_t fa;
	const char *log;

	(void)arg;
	CK(!cap_begin());
	CK_EQ(0, kav_lib_open_keyed(VNI_GRANTED, &dom));
	CK(av = open_av(dom, NULL, 0));
	CK_EQ(0, fi_av_insertsvc(av, "no-such-host.invalid", "5000", &fa, 0,
				 NULL));
	CK_EQ(FI_ADDR_NOTAVAIL, fa);
	log = cap_read();
	show(log);
	CK_SAID(log, "cannot resolve node 'no-such-host.invalid' service "
		     "'5000'");
	CK_EQ(1, n_lines(log, "libkav: "));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

TEST_F(diag, unknown_host)
{
	add_grant(_metadata, self, VNI_GRANTED, 0);
	EXPECT_EQ(0, kav_run_as(TENANT, child_host, NULL));
}

/* ------------------------------------- refused arguments, at debug */

static int child_debug(void *arg)
{
	struct fid_domain *dom = NULL;
	struct fid_av *av;
	fi_addr_t fa;
	const char *log;

	/* Before libkav's first log call: the level is read once. */
	setenv("FI_LOG_LEVEL", (const char *)arg, 1);
	CK(!cap_begin());
	CK_EQ(0, kav_lib_open_keyed(VNI_GRANTED, &dom));
	CK(av = open_av(dom, NULL, 0));
	CK_EQ(-FI_EINVAL, fi_av_insertsvc(av, "10.0.0.1", "http", &fa, 0,
					  NULL));
	CK_EQ(-FI_EINVAL, fi_av_insertsvc(av, NULL, "5000", &fa, 0, NULL));
	CK_EQ(-FI_EINVAL, fi_av_insertsvc(av, "10.0.0.1", "5000", &fa,
					  1ULL << 1, NULL));
	CK_EQ(-FI_EINVAL, fi_av_insertsvc(av, "not-an-address", NULL, &fa,
					  0, NULL));
	CK_EQ(-FI_EINVAL, fi_av_insertsym(av, "host", 2, "5000", 1, &fa, 0,
					  NULL));
	log = cap_read();
	show(log);
	CK(strstr(log, "service 'http' (node '10.0.0.1') is not a port"));
	CK(strstr(log, "fi_av_insertsvc: node is NULL"));
	CK(strstr(log, "insert: unknown flags 0x2"));
	CK(strstr(log, "node 'not-an-address' is not an address string"));
	CK(strstr(log, "node 'host' needs a numeric suffix"));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

TEST_F(diag, refused_arguments_debug)
{
	add_grant(_metadata, self, VNI_GRANTED, 0);
	/* FI_LOG_LEVEL's name, with KAV_LOG unset. */
	EXPECT_EQ(0, kav_run_as(TENANT, child_debug, "debug"));
}

static int child_warn_only(void *arg)
{
	struct fid_domain *dom = NULL;
	struct fid_av *av;
	fi_addr_t fa;

	(void)arg;
	CK(!cap_begin());
	CK_EQ(0, kav_lib_open_keyed(VNI_GRANTED, &dom));
	CK(av = open_av(dom, NULL, 0));
	CK_EQ(-FI_EINVAL, fi_av_insertsvc(av, "10.0.0.1", "http", &fa, 0,
					  NULL));
	/* Not at the default level, but the detail is there. */
	CK_EQ(0, n_lines(cap_read(), "libkav: "));
	CK(strstr(kav_last_error(), "service 'http'"));
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

TEST_F(diag, refused_arguments_default)
{
	add_grant(_metadata, self, VNI_GRANTED, 0);
	EXPECT_EQ(0, kav_run_as(TENANT, child_warn_only, NULL));
}

TEST_HARNESS_MAIN
