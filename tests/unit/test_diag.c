// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Diagnostics (lib/diag.c, lib/log.c): FI_LOG_LEVEL as KAV_LOG's
 * fallback, the denial messages (cause, identity, VNI, grants, limits),
 * kav_last_error(), and a debug line for every refused insert argument.
 * The fake kernel answers KAV_IOC_DOMAIN_WHOAMI through a wrapper here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fake_kav.h"
#include "test_fixture.h"

/* ------------------------------------------------------ a WHOAMI fake */

static struct kav_whoami who = {
	.uid = 1234, .gid = 4321, .cgroup_id = 777, .netns_cookie = 4097,
	.ipc_ns = 4026531839U,
};
static struct kav_grant_info grants[4];
static uint32_t nr_grants;
static int whoami_err;			/* -errno for WHOAMI */
static int insert_err;			/* -errno for the next INSERTs */
static unsigned int whoami_calls;

static int diag_ioctl(int fd, unsigned long req, void *arg)
{
	struct kav_whoami *w = arg;
	uint32_t n;

	if (req == KAV_IOC_DOMAIN_WHOAMI) {
		whoami_calls++;
		if (whoami_err)
			return whoami_err;
		assert_int_equal(w->size, sizeof(*w));
		assert_int_equal(w->grant_size, sizeof(struct kav_grant_info));
		n = KAV_MIN(w->max_grants, nr_grants);
		if (n)
			memcpy((void *)(uintptr_t)w->grants, grants,
			       n * sizeof(grants[0]));
		w->uid = who.uid;
		w->gid = who.gid;
		w->cgroup_id = who.cgroup_id;
		w->netns_cookie = who.netns_cookie;
		w->ipc_ns = who.ipc_ns;
		w->status = who.status;
		w->key_vni = who.key_vni;
		w->nr_grants = nr_grants;
		return 0;
	}
	if (req == KAV_IOC_AV_INSERT && insert_err)
		return insert_err;
	return fake_kav_ioctl(fd, req, arg);
}

static void grant(uint32_t id, uint32_t vni, uint64_t lim_e, uint64_t nr_e,
		  uint32_t lim_a, uint32_t nr_a, const char *tag)
{
	struct kav_grant_info *g = &grants[nr_grants++];

	memset(g, 0, sizeof(*g));
	g->id = id;
	g->vni = vni;
	g->sel_type = KAV_SEL_UID;
	g->sel_id = who.uid;
	g->limit_entries = lim_e;
	g->nr_entries = nr_e;
	g->limit_avs = lim_a;
	g->nr_avs = nr_a;
	snprintf(g->tag, sizeof(g->tag), "%s", tag);
}

static int diag_setup(void **state)
{
	(void)state;
	fake_kav_install();
	kav_sys_ioctl_hook = diag_ioctl;
	nr_grants = 0;
	whoami_err = 0;
	insert_err = 0;
	whoami_calls = 0;
	who.status = 0;
	return 0;
}

static int diag_teardown(void **state)
{
	(void)state;
	fake_kav_allow_keyless = true;
	return 0;
}

/* ----------------------------------------------------------- log level */

static void test_fi_log_level(void **state)
{
	(void)state;
	assert_int_equal(kav_log_parse_fi_level("warn"), KAV_LOG_WARN);
	assert_int_equal(kav_log_parse_fi_level("trace"), KAV_LOG_WARN);
	assert_int_equal(kav_log_parse_fi_level("Info"), KAV_LOG_INFO);
	assert_int_equal(kav_log_parse_fi_level("DEBUG"), KAV_LOG_DEBUG);
	assert_int_equal(kav_log_parse_fi_level("none"), -1);
	assert_int_equal(kav_log_parse_fi_level(""), -1);
	assert_int_equal(kav_log_parse_fi_level(NULL), -1);
	/* KAV_LOG first; FI_LOG_LEVEL only when it is unset or empty. */
	assert_int_equal(kav_log_env_level(NULL, NULL), KAV_LOG_WARN);
	assert_int_equal(kav_log_env_level(NULL, "debug"), KAV_LOG_DEBUG);
	assert_int_equal(kav_log_env_level("", "info"), KAV_LOG_INFO);
	assert_int_equal(kav_log_env_level(NULL, "trace"), KAV_LOG_WARN);
	assert_int_equal(kav_log_env_level(NULL, "loud"), KAV_LOG_WARN);
	assert_int_equal(kav_log_env_level("none", "debug"), KAV_LOG_NONE);
	assert_int_equal(kav_log_env_level("info", "debug"), KAV_LOG_INFO);
}

/* ------------------------------------------------------------ formats */

static struct kav_ident ident(void)
{
	struct kav_ident id = {
		.known = true, .w = who, .grants = grants, .nr = nr_grants,
	};

	id.w.nr_grants = nr_grants;
	return id;
}

static void test_identity_and_grants(void **state)
{
	struct kav_ident id, unknown = { 0 };
	char buf[256];

	(void)state;
	id = ident();
	kav_ident_str(&id, buf, sizeof(buf));
	assert_string_equal(buf, "uid 1234, gid 4321, cgroup 777, netns "
			    "cookie 4097");
	kav_granted_str(&id, buf, sizeof(buf));
	assert_string_equal(buf, "granted: none");
	grant(1, 50, 0, 0, 0, 0, "");
	grant(2, 51, 0, 0, 0, 0, "");
	grant(3, 50, 0, 0, 0, 0, "");	/* a second grant of 50: once */
	id = ident();
	kav_granted_str(&id, buf, sizeof(buf));
	assert_string_equal(buf, "granted: 50, 51");
	assert_true(kav_ident_granted(&id, 51));
	assert_false(kav_ident_granted(&id, 52));
	/* Truncation never overruns. */
	kav_granted_str(&id, buf, 12);
	assert_string_equal(buf, "granted: 50");
	kav_ident_str(&unknown, buf, sizeof(buf));
	assert_non_null(strstr(buf, "cannot report it"));
	kav_granted_str(&unknown, buf, sizeof(buf));
	assert_string_equal(buf, "granted: unknown");
}

static void test_deny_format(void **state)
{
	struct kav_denial d = {
		.what = "insert of 2 addresses", .err = -FI_EACCES,
		.keyed = true, .vni = 52, .need_entries = 2,
	};
	struct kav_ident id;
	char buf[KAV_ERR_MAX];

	(void)state;
	grant(1, 50, 0, 0, 0, 0, "");
	grant(2, 51, 4, 3, 1, 1, "slurm-77");
	id = ident();

	kav_deny_format(buf, sizeof(buf), &id, &d);
	assert_string_equal(buf, "insert of 2 addresses refused: no grant for "
			    "this auth key (vni 52) matches the domain's "
			    "identity (uid 1234, gid 4321, cgroup 777, "
			    "netns cookie 4097); granted: 50, 51; ask the "
			    "administrator (kavctl grant add vni 52 uid "
			    "1234, or gid, cgroup, netns)");

	/* Granted, refused anyway: the caller's reason. */
	d.vni = 50;
	d.if_granted = "the AV does not hold the domain's key";
	kav_deny_format(buf, sizeof(buf), &id, &d);
	assert_non_null(strstr(buf, "vni 50 is granted to this identity "
				    "(uid 1234,"));
	assert_non_null(strstr(buf, "the AV does not hold the domain's key"));

	/* Keyless, on a node without allow_keyless. */
	d.keyed = false;
	kav_deny_format(buf, sizeof(buf), &id, &d);
	assert_non_null(strstr(buf, "keyless insert refused: keyless inserts "
				    "are off on this node"));
	assert_non_null(strstr(buf, "open the domain with an auth key (VNI)"));
	assert_non_null(strstr(buf, "uid 1234"));
	assert_non_null(strstr(buf, "granted: 50, 51"));

	/* Revoked. */
	d.keyed = true;
	d.err = -FI_EKEYREJECTED;
	kav_deny_format(buf, sizeof(buf), &id, &d);
	assert_non_null(strstr(buf, "auth key vni 50 was revoked by the "
				    "administrator"));

	/* Grant limits, not "Disk quota exceeded". */
	d.err = -EDQUOT;
	d.vni = 51;
	kav_deny_format(buf, sizeof(buf), &id, &d);
	assert_string_equal(buf, "insert of 2 addresses refused: grant 2 "
			    "(vni 51, tag 'slurm-77') limit reached: "
			    "max-entries 4 (3 in use) / max-avs 1 (1 in "
			    "use); this one needed 2 more entries; identity "
			    "uid 1234, gid 4321, cgroup 777, netns cookie "
			    "4097; ask the administrator to raise it (kavctl "
			    "grant set 2 ...)");
	assert_null(strstr(buf, "quota"));
	d.need_entries = 0;
	d.need_avs = 1;
	d.what = "fi_av_insert_auth_key";
	kav_deny_format(buf, sizeof(buf), &id, &d);
	assert_non_null(strstr(buf, "grant 2 (vni 51, tag 'slurm-77') limit "
				    "reached: max-entries 4 (3 in use) / "
				    "max-avs 1 (1 in use); this one needed 1 "
				    "more AV(s)"));
	/* No limited grant for the VNI (a race): still no "quota". */
	d.vni = 50;
	kav_deny_format(buf, sizeof(buf), &id, &d);
	assert_non_null(strstr(buf, "a grant limit (max-entries or max-avs) "
				    "for vni 50 was reached"));
	assert_string_not_equal(kav_strerror(-EDQUOT), "Disk quota exceeded");
	assert_non_null(strstr(kav_strerror(-EDQUOT), "grant"));
}

/* ---------------------------------------------- through the library */

struct ins_call {
	struct fid_av *av;
	const char *node, *service;
	struct sockaddr_in sin;
	fi_addr_t fa;
	int ret;
};

static void do_insert(void *arg)
{
	struct ins_call *c = arg;

	c->ret = fi_av_insert(c->av, &c->sin, 1, &c->fa, 0, NULL);
}

static void do_insertsvc(void *arg)
{
	struct ins_call *c = arg;

	c->ret = fi_av_insertsvc(c->av, c->node, c->service, &c->fa, 0, NULL);
}

static size_t n_matches(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

static struct fid_av *open_av(struct fid_domain *dom)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 8 };
	struct fid_av *av;

	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), 0);
	return av;
}

static void test_keyless_denied(void **state)
{
	struct fid_domain *dom;
	struct ins_call c = { 0 };
	char log[4096];

	(void)state;
	grant(9, 50, 0, 0, 0, 0, "");
	fake_kav_allow_keyless = false;
	dom = test_open_domain(FI_SOCKADDR_IN, 0);
	c.av = open_av(dom);
	c.sin = test_sin("10.0.0.1", 7);
	test_capture_stderr(do_insert, &c, log, sizeof(log));
	assert_int_equal(c.ret, 0);
	assert_int_equal(c.fa, FI_ADDR_NOTAVAIL);
	assert_non_null(strstr(kav_last_error(), "insert of 1 address: "
				"keyless insert refused"));
	assert_non_null(strstr(kav_last_error(), "uid 1234, gid 4321, cgroup "
				"777, netns cookie 4097"));
	assert_non_null(strstr(kav_last_error(), "granted: 50"));
	/* Logged at warn, exactly once. */
	assert_int_equal(n_matches(log, "keyless insert refused"), 1);
	/* Asked once the insert failed: size, then the grants. */
	assert_int_equal(whoami_calls, 2);
	/* A call that starts clears it. */
	fake_kav_allow_keyless = true;
	assert_int_equal(fi_av_insert(c.av, &c.sin, 1, &c.fa, 0, NULL), 1);
	assert_string_equal(kav_last_error(), "");
	assert_int_equal(fi_close(&c.av->fid), 0);
	assert_int_equal(fi_close(&dom->fid), 0);
}

static void test_quota_and_old_kernel(void **state)
{
	struct fid_domain *dom;
	struct ins_call c = { 0 };
	char log[4096];

	(void)state;
	grant(3, 0, 1, 1, 0, 0, "");	/* vni 0: the keyless fake domain */
	dom = test_open_domain(FI_SOCKADDR_IN, 0);
	c.av = open_av(dom);
	c.sin = test_sin("10.0.0.1", 7);
	insert_err = -EDQUOT;
	test_capture_stderr(do_insert, &c, log, sizeof(log));
	assert_int_equal(c.ret, 0);
	assert_non_null(strstr(log, "limit reached: max-entries 1 (1 in use)"));
	assert_null(strstr(log, "Disk quota"));
	assert_int_equal(n_matches(log, "libkav: "), 1);

	/* A module without WHOAMI: the message says so, nothing breaks. */
	whoami_err = -ENOTTY;
	insert_err = -EACCES;
	fake_kav_allow_keyless = false;
	test_capture_stderr(do_insert, &c, log, sizeof(log));
	assert_non_null(strstr(kav_last_error(), "cannot report it"));
	assert_non_null(strstr(kav_last_error(), "keyless insert refused"));
	insert_err = 0;
	assert_int_equal(fi_close(&c.av->fid), 0);
	assert_int_equal(fi_close(&dom->fid), 0);
}

/* Every refused fi_av_insertsvc argument says why at debug. */
static void test_insertsvc_refusals(void **state)
{
	struct av_fixture *f;
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 8 };
	struct ins_call c = { 0 };
	char log[4096];
	static const struct {
		const char *node, *service, *why;
		int ret;
	} cases[] = {
		{ NULL, "7", "node is NULL", -FI_EINVAL },
		{ "10.0.0.1", "http", "service 'http' (node '10.0.0.1') is not "
		  "a port number", -FI_EINVAL },
		{ "10.0.0.1", "70000", "service '70000'", -FI_EINVAL },
		{ "not-an-address", NULL, "node 'not-an-address' is not an "
		  "address string", -FI_EINVAL },
		{ "no-such-host.invalid", "7", "cannot resolve node "
		  "'no-such-host.invalid' service '7'", 0 },
	};
	size_t i;

	f = av_fixture_open(state, FI_SOCKADDR_IN, NULL, &attr);
	kav_sys_ioctl_hook = diag_ioctl;
	c.av = f->av;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		c.node = cases[i].node;
		c.service = cases[i].service;
		test_capture_stderr(do_insertsvc, &c, log, sizeof(log));
		assert_int_equal(c.ret, cases[i].ret);
		assert_non_null(strstr(log, cases[i].why));
		assert_non_null(strstr(kav_last_error(), cases[i].why));
	}
	/* Flags too. */
	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.1", "7", &c.fa,
					 1ULL << 1, NULL), -FI_EINVAL);
	assert_non_null(strstr(kav_last_error(), "unknown flags"));
	assert_int_equal(fi_av_insertsym(f->av, "host", 2, "7", 1, &c.fa, 0,
					 NULL), -FI_EINVAL);
	assert_non_null(strstr(kav_last_error(), "needs a numeric suffix"));
	assert_int_equal(fi_av_insertsym(f->av, "10.0.0.1", 1, "x", 1, &c.fa,
					 0, NULL), -FI_EINVAL);
	assert_non_null(strstr(kav_last_error(), "service 'x'"));
	assert_int_equal(fi_av_insert(f->av, NULL, 1, &c.fa, 0, NULL),
			 -FI_EINVAL);
	assert_non_null(strstr(kav_last_error(), "addr is NULL"));
	av_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fi_log_level),
		cmocka_unit_test_setup_teardown(test_identity_and_grants,
						diag_setup, diag_teardown),
		cmocka_unit_test_setup_teardown(test_deny_format, diag_setup,
						diag_teardown),
		cmocka_unit_test_setup_teardown(test_keyless_denied,
						diag_setup, diag_teardown),
		cmocka_unit_test_setup_teardown(test_quota_and_old_kernel,
						diag_setup, diag_teardown),
		cmocka_unit_test_setup_teardown(test_insertsvc_refusals,
						diag_setup, diag_teardown),
	};

	/* Read once by libkav: refused arguments are logged at debug. */
	setenv("KAV_LOG", "debug", 1);
	return cmocka_run_group_tests_name("diag", tests, NULL, NULL);
}
