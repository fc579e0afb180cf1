// SPDX-License-Identifier: GPL-2.0
/*
 * The attack suite: tenants with real, distinct identities (uids, gids,
 * cgroups, network and user namespaces, separate processes) try to get
 * an address bound to a key they were not granted, to reach another
 * tenant's table, or to administer kav. Every case asserts that the
 * attack fails AND that nothing changed: tables (generation, entries, key
 * slots), the grant list, and what a kernel consumer (the kav_nic test
 * module) resolves.
 *
 *   a  another tenant's key: KAV_IOC_AV_KEY_INSERT, forged and foreign
 *      key handles with KAV_INSERT_AUTH_KEY
 *   b  a domain key that was not granted (raw ioctl and libkav)
 *   c  administering kav from a user namespace or as an unprivileged user
 *   d  another tenant's table through mmap offsets, /proc, pidfd, fds
 *   e  identity changes after open (setuid, cgroup, netns, SCM_RIGHTS)
 *   f  revocation racing concurrent inserts from several processes
 *   g  malformed netlink messages
 *   h  keyless inserts with allow_keyless off
 *
 * Runs as root in the test VM; the children drop to uids 1001..1005.
 * kav_nic.ko is loaded from $KAV_NIC_MODULE (else /tests/kav_nic.ko) and
 * unloaded at the end, so that kav itself can be unloaded afterwards.
 */

#include <sched.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <kav/kav.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

#define UID_A		1001	/* tenant A */
#define UID_B		1002	/* tenant B */
#define UID_C		1003	/* no grants of its own */
#define UID_D		1004
#define UID_E		1005
#define GID_G		2001	/* a group with a grant */

KAV_NIC_UNLOAD_AT_EXIT();

/* ----------------------------------------------------------- fixture */

FIXTURE(attack) {
	struct kav_nl nl;
	uint32_t grants[32];
	int nr_grants;
	int keyless;		/* allow_keyless to restore, or -1 */
};

FIXTURE_SETUP(attack)
{
	self->nr_grants = 0;
	self->keyless = -1;
	ASSERT_EQ(0, kav_nl_open(&self->nl)) {
		TH_LOG("no kav generic netlink family: is kav.ko loaded?");
	}
	ASSERT_NE(0, self->nl.mcgrp_admin);
	ASSERT_EQ(0, kav_nic_load()) {
		TH_LOG("cannot load kav_nic.ko ($KAV_NIC_MODULE)");
	}
}

FIXTURE_TEARDOWN(attack)
{
	int i;

	for (i = 0; i < self->nr_grants; i++)
		kav_nl_grant_del(&self->nl, self->grants[i]);
	if (self->keyless >= 0)
		kav_set_allow_keyless(self->keyless);
	kav_nl_close(&self->nl);
}

/* Add a grant (kept for teardown); returns its id. */
static uint32_t add_grant(struct __test_metadata *_metadata,
			  FIXTURE_DATA(attack) *self,
			  const struct kav_grant_spec *s)
{
	struct kav_nl_grant g;
	int ret = kav_nl_grant_add(&self->nl, s, &g);

	EXPECT_EQ(0, ret) {
		TH_LOG("GRANT_ADD vni %u sel %u: %s (%s)", s->vni, s->sel_type,
		       strerror(-ret), self->nl.ext_msg);
	}
	if (ret)
		return 0;
	EXPECT_EQ(s->vni, g.vni);
	EXPECT_EQ(s->sel_type, g.sel_type);
	if (self->nr_grants < 32)
		self->grants[self->nr_grants++] = g.id;
	return g.id;
}

static uint32_t grant_uid(struct __test_metadata *_metadata,
			  FIXTURE_DATA(attack) *self, uint32_t vni,
			  uint32_t uid)
{
	struct kav_grant_spec s = { .vni = vni, .sel_type = KAV_SEL_UID,
				    .sel_id = uid };

	return add_grant(_metadata, self, &s);
}

/* Revoke a grant added by add_grant(). */
static int revoke_grant(FIXTURE_DATA(attack) *self, uint32_t id)
{
	int i;

	for (i = 0; i < self->nr_grants; i++)
		if (self->grants[i] == id)
			self->grants[i] = self->grants[--self->nr_grants];
	return kav_nl_grant_del(&self->nl, id);
}

/* A domain and an AV of a tenant, with the AV's mapping. */
struct tenant_av {
	int dom, av;
	struct kav_av_create c;
	struct kav_map map;
};

static int tenant_av_open(struct tenant_av *t, uint32_t domain_vni)
{
	t->map.h = NULL;
	t->dom = kav_open_domain();
	if (t->dom < 0)
		return -errno;
	if (domain_vni) {
		int ret = kav_domain_set_key(t->dom, domain_vni);

		if (ret)
			return ret;
	}
	t->av = kav_create_av(t->dom, KAV_ADDR_SOCKADDR_IN, &t->c);
	if (t->av < 0)
		return t->av;
	return kav_map_av(t->av, t->c.map_size, &t->map);
}

static void tenant_av_close(struct tenant_av *t)
{
	kav_unmap_av(&t->map);
	close(t->av);
	close(t->dom);
}

/* =========================================== a: another tenant's key */

#define VNI_A1		0xa101
#define VNI_B1		0xa201
#define VNI_B2		0xa202

struct case_a {
	struct kav_sync sync;
	struct kav_nl_stats before;
};

/* Tenant B: an AV with its two keys (handles 0 and 1) and an entry. */
static int tenant_b_holds(void *arg)
{
	struct case_a *a = arg;
	struct kav_table_state st0, st1;
	struct tenant_av t;
	uint64_t h0, h1, fi;

	CK_EQ(0, tenant_av_open(&t, 0));
	CK_EQ(0, kav_key_insert(t.av, VNI_B1, &h0));
	CK_EQ(0, kav_key_insert(t.av, VNI_B2, &h1));
	CK_EQ(0, h0);
	CK_EQ(1, h1);
	CK_EQ(0, kav_insert_one(t.av, 0x0a000201, 2000, h1, &fi));
	kav_table_state(t.map.h, &st0);
	CK_EQ(0, kav_tell_parent(&a->sync, 'B'));
	CK_EQ('v', kav_wait_parent(&a->sync));	/* A attacked meanwhile */
	kav_table_state(t.map.h, &st1);
	CK(kav_table_same(&st0, &st1));
	tenant_av_close(&t);
	return 0;
}

/* Tenant A tries every way of getting an entry under one of B's keys. */
static int tenant_a_attacks(void *arg)
{
	static const uint64_t forged[] = {
		1,			/* B's second key's handle in B's AV */
		5, 63,			/* in range, no key there */
		KAV_MAX_AUTH_KEYS,	/* just out of range */
		1000, 1ULL << 32, KAV_NONE - 1, KAV_NONE,
	};
	struct kav_table_state st0, st1;
	struct kav_nic_send s = { 0 };
	struct sockaddr_in sin[2];
	struct tenant_av t;
	uint64_t ha, h, fi[2], keys[2];
	uint32_t err;
	size_t i;
	int nic, dom2;

	CK_EQ(0, tenant_av_open(&t, 0));
	kav_table_state(t.map.h, &st0);

	/* B's keys are not A's to insert. */
	h = 77;
	CK_EQ(-EACCES, kav_key_insert(t.av, VNI_B1, &h));
	CK_EQ(-EACCES, kav_key_insert(t.av, VNI_B2, &h));
	dom2 = kav_open_domain();
	CK(dom2 >= 0);
	CK_EQ(-EACCES, kav_domain_set_key(dom2, VNI_B1));
	close(dom2);
	kav_table_state(t.map.h, &st1);
	CK(kav_table_same(&st0, &st1));

	/* A's own key: handle 0 in A's AV. */
	CK_EQ(0, kav_key_insert(t.av, VNI_A1, &ha));
	CK_EQ(0, ha);
	kav_table_state(t.map.h, &st0);

	/* Forged handles, one of them B's handle in B's AV: EINVAL. */
	for (i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
		sin[0] = kav_sin(0x0a000101, 3000 + i);
		err = 0;
		CK_EQ(-EINVAL, kav_insert_keyed(t.av, sin, 1, &forged[i], fi,
						&err));
		CK_EQ(0, err);
	}
	/* A batch with one forged handle is refused whole. */
	sin[0] = kav_sin(0x0a000101, 3100);
	sin[1] = kav_sin(0x0a000101, 3101);
	keys[0] = ha;
	keys[1] = 1;
	CK_EQ(-EINVAL, kav_insert_keyed(t.av, sin, 2, keys, fi, &err));
	CK_EQ(1, err);
	kav_table_state(t.map.h, &st1);
	CK(kav_table_same(&st0, &st1));

	/* Handle 0 is A's key here, whatever it is in B's AV. */
	CK_EQ(0, kav_insert_one(t.av, 0x0a000101, 3200, 0, &fi[0]));
	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++)
		CK(kav_slot(t.map.h, i)->vni != VNI_B1 &&
		   kav_slot(t.map.h, i)->vni != VNI_B2);
	nic = kav_nic_open();
	CK(nic >= 0);
	CK_EQ(0, kav_nic_bind(nic, t.av));
	CK_EQ(0, kav_nic_send(nic, fi[0], &s));
	CK_EQ(VNI_A1, s.vni);
	CK_EQ(KAV_NIC_KEYED, s.flags);
	CK_EQ(sizeof(struct sockaddr_in), s.addr_len);
	close(nic);
	tenant_av_close(&t);
	return 0;
}

TEST_F_TIMEOUT(attack, a_other_tenants_key, 120)
{
	struct case_a *a = kav_shared(sizeof(*a));
	struct kav_as_arg b_as = { UID_B, UID_B, tenant_b_holds, NULL };
	struct kav_nl_stats after;
	pid_t b;

	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, kav_sync_init(&a->sync));
	b_as.arg = a;
	grant_uid(_metadata, self, VNI_A1, UID_A);
	grant_uid(_metadata, self, VNI_B1, UID_B);
	grant_uid(_metadata, self, VNI_B2, UID_B);
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &a->before));

	b = kav_spawn(kav_as_trampoline, &b_as);
	ASSERT_EQ('B', kav_wait_child(&a->sync));
	EXPECT_EQ(0, kav_run_as(UID_A, tenant_a_attacks, a));
	kav_tell_child(&a->sync, 'v');
	EXPECT_EQ(0, kav_reap(b));

	/* Each refusal was counted as "no grant": 2 key inserts, 1 domain. */
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &after));
	EXPECT_EQ(a->before.deny_no_grant + 3, after.deny_no_grant);
	kav_sync_close(&a->sync);
}

/* ===================================== b: a domain key not granted */

#define VNI_A2		0xb101
#define VNI_B3		0xb201

static int domain_key_raw(void *arg)
{
	struct kav_table_state st;
	struct kav_nic_send s = { 0 };
	struct tenant_av t;
	uint64_t fi;
	int dom, av, nic;

	(void)arg;
	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(-EACCES, kav_domain_set_key(dom, VNI_B3));
	/* The refusal left the domain keyless: its own key still binds. */
	CK_EQ(0, kav_domain_set_key(dom, VNI_A2));
	CK_EQ(-EACCES, kav_domain_set_key(dom, VNI_B3));
	CK_EQ(-EALREADY, kav_domain_set_key(dom, VNI_A2));
	close(dom);

	/* A domain with AVs cannot take a key any more. */
	dom = kav_open_domain();
	CK(dom >= 0);
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	CK(av >= 0);
	CK_EQ(-EBUSY, kav_domain_set_key(dom, VNI_A2));
	close(av);
	close(dom);

	/* The granted key: slot 0 of each AV, entries bound to it. */
	CK_EQ(0, tenant_av_open(&t, VNI_A2));
	kav_table_state(t.map.h, &st);
	CK_EQ(KAV_KEY_VALID | KAV_KEY_DOMAIN, st.key_flags[0]);
	CK_EQ(VNI_A2, st.key_vni[0]);
	CK_EQ(0, kav_insert_one(t.av, 0x0a000301, 4000, KAV_NONE, &fi));
	CK_EQ(0, kav_entry_at(t.map.h, fi)->auth_key);
	nic = kav_nic_open();
	CK(nic >= 0);
	CK_EQ(0, kav_nic_bind(nic, t.av));
	CK_EQ(0, kav_nic_send(nic, fi, &s));
	CK_EQ(VNI_A2, s.vni);
	close(nic);
	tenant_av_close(&t);
	return 0;
}

static int domain_key_lib(void *arg)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct sockaddr_in sin = kav_sin(0x0a000302, 4001);
	struct kav_auth_key key;
	struct fid_domain *dom = (void *)&attr;
	struct kav_resolved r;
	size_t len = sizeof(key);
	struct fid_av *av;
	fi_addr_t fa;

	(void)arg;
	setenv("KAV_LOG", "none", 1);
	CK_EQ(-FI_EACCES, kav_lib_open_keyed(VNI_B3, &dom));
	CK(dom == NULL);
	CK(strstr(kav_strerror(-FI_EACCES),
		  "no grant for this auth key: ask the administrator "
		  "(kavctl grant add ...)"));

	CK_EQ(0, kav_lib_open_keyed(VNI_A2, &dom));
	CK_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	CK_EQ(1, fi_av_insert(av, &sin, 1, &fa, 0, NULL));
	CK_EQ(0, fi_av_lookup_auth_key(av, fa, &key, &len));
	CK_EQ(VNI_A2, key.vni);
	CK_EQ(0, kav_av_resolve(av, fa, &r));
	CK_EQ(VNI_A2, r.vni);
	CK(!r.revoked);
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	return 0;
}

TEST_F_TIMEOUT(attack, b_domain_key_not_granted, 120)
{
	struct kav_nl_grant before[64], after[64];
	size_t nb, na;
	int dom;

	grant_uid(_metadata, self, VNI_A2, UID_A);
	grant_uid(_metadata, self, VNI_B3, UID_B);
	ASSERT_EQ(0, kav_nl_grants(&self->nl, before, 64, &nb));

	EXPECT_EQ(0, kav_run_as(UID_A, domain_key_raw, NULL));
	EXPECT_EQ(0, kav_run_as(UID_A, domain_key_lib, NULL));

	/* Root has no grant either: privilege is not a key. */
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	EXPECT_EQ(-EACCES, kav_domain_set_key(dom, VNI_A2));
	close(dom);

	/* Nothing of that changed a grant. */
	ASSERT_EQ(0, kav_nl_grants(&self->nl, after, 64, &na));
	ASSERT_EQ(nb, na);
	EXPECT_EQ(0, memcmp(before, after, nb * sizeof(before[0])));
}

/* ==================================== c: administering kav, unprivileged */

#define VNI_C1		0xc101

struct case_c {
	struct kav_sync sync;
	uint32_t victim;	/* a grant the attacker tries to revoke */
	int map_to;		/* kuid the userns root maps to */
	bool new_netns;		/* also unshare the network namespace */
};

/* Every admin operation, through @nl: all must fail with EPERM. */
static int admin_ops_refused(struct kav_nl *nl, uint32_t victim)
{
	struct kav_grant_spec s = { .vni = VNI_C1, .sel_type = KAV_SEL_UID,
				    .sel_id = 0 };
	struct kav_nl_grant g[4];
	struct kav_nl_stats st;
	size_t n;

	CK_EQ(-EPERM, kav_nl_grant_add(nl, &s, NULL));
	s.sel_id = UID_A;
	CK_EQ(-EPERM, kav_nl_grant_add(nl, &s, NULL));
	s.sel_type = KAV_SEL_GID;
	s.sel_id = 0;
	CK_EQ(-EPERM, kav_nl_grant_add(nl, &s, NULL));
	CK_EQ(-EPERM, kav_nl_grant_del(nl, victim));
	CK_EQ(-EPERM, kav_nl_grants(nl, g, 4, &n));
	CK_EQ(0, n);
	CK_EQ(-EPERM, kav_nl_stats(nl, &st));
	CK_EQ(-EPERM, kav_nl_dump(nl, KAV_GENL_CMD_DOMAIN_GET, -1, NULL,
				  NULL));
	CK_EQ(-EPERM, kav_nl_dump(nl, KAV_GENL_CMD_AV_GET, -1, NULL, NULL));
	CK_EQ(-EPERM, kav_nl_dump(nl, KAV_GENL_CMD_ENTRY_GET, 1, NULL, NULL));
	CK_EQ(-EPERM, kav_nl_join_admin(nl));
	return 0;
}

/* Root of a new user namespace (mapped by the parent). */
static int userns_root(void *arg)
{
	struct case_c *c = arg;
	struct kav_nl nl;
	int ret;

	if (c->map_to && kav_become(c->map_to, c->map_to, 0, NULL))
		return 98;
	CK_EQ(0, unshare(CLONE_NEWUSER));
	CK_EQ(0, kav_tell_parent(&c->sync, 'u'));
	CK_EQ('m', kav_wait_parent(&c->sync));	/* maps written */
	CK_EQ(0, setresgid(0, 0, 0));
	CK_EQ(0, setresuid(0, 0, 0));
	CK_EQ(0, (int)geteuid());
	if (c->new_netns) {
		/* A container's own network namespace: kav is not there. */
		CK_EQ(0, unshare(CLONE_NEWNET));
		ret = kav_nl_open(&nl);
		if (ret == -ENOENT)
			return 0;
		CK_EQ(0, ret);
	} else {
		CK_EQ(0, kav_nl_open(&nl));
	}
	ret = admin_ops_refused(&nl, c->victim);
	kav_nl_close(&nl);
	return ret;
}

static void run_userns_root(struct __test_metadata *_metadata,
			    struct case_c *c)
{
	char path[64], map[64];
	pid_t pid;

	ASSERT_EQ(0, kav_sync_init(&c->sync));
	pid = kav_spawn(userns_root, c);
	ASSERT_EQ('u', kav_wait_child(&c->sync));
	snprintf(map, sizeof(map), "0 %d 1\n", c->map_to);
	snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
	EXPECT_EQ(0, kav_write_path(path, "deny\n"));
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	EXPECT_EQ(0, kav_write_path(path, map));
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	EXPECT_EQ(0, kav_write_path(path, map));
	kav_tell_child(&c->sync, 'm');
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&c->sync);
}

static int unprivileged_admin(void *arg)
{
	struct case_c *c = arg;
	struct kav_nl nl;
	int ret;

	CK_EQ(0, kav_nl_open(&nl));
	ret = admin_ops_refused(&nl, c->victim);
	kav_nl_close(&nl);
	return ret;
}

/* A socket opened by root, used after dropping privileges. */
static int demoted_socket(void *arg)
{
	struct case_c *c = arg;
	struct kav_nl nl;
	int ret;

	CK_EQ(0, kav_nl_open(&nl));
	CK_EQ(0, kav_become(UID_A, UID_A, 0, NULL));
	ret = admin_ops_refused(&nl, c->victim);
	kav_nl_close(&nl);
	return ret;
}

/* A socket opened by a tenant, handed to root (a confused deputy). */
static int tenant_socket(void *arg)
{
	struct kav_nl *nl = arg;

	CK_EQ(0, kav_nl_open(nl));
	return 0;
}

TEST_F_TIMEOUT(attack, c_admin_from_userns_or_unprivileged, 120)
{
	struct case_c *c = kav_shared(sizeof(*c));
	struct kav_nl_grant before[64], after[64];
	struct kav_nl *tnl = kav_shared(sizeof(*tnl));
	struct kav_grant_spec s = { .vni = VNI_C1, .sel_type = KAV_SEL_UID,
				    .sel_id = UID_C };
	size_t nb, na;
	pid_t pid;
	int sv[2];

	ASSERT_NE(NULL, c);
	ASSERT_NE(NULL, tnl);
	c->victim = grant_uid(_metadata, self, VNI_C1, UID_B);
	ASSERT_EQ(0, kav_nl_grants(&self->nl, before, 64, &nb));

	/* Root of a user namespace mapped to uid 1001. */
	c->map_to = UID_A;
	c->new_netns = false;
	run_userns_root(_metadata, c);
	/* Root of a user namespace mapped to the real root's uid 0. */
	c->map_to = 0;
	run_userns_root(_metadata, c);
	/* A container: user and network namespace. */
	c->map_to = UID_A;
	c->new_netns = true;
	run_userns_root(_metadata, c);
	/* An unprivileged user; a root socket used after setuid. */
	EXPECT_EQ(0, kav_run_as(UID_A, unprivileged_admin, c));
	EXPECT_EQ(0, kav_reap(kav_spawn(demoted_socket, c)));

	/*
	 * Root writing to a tenant's socket (say, a setuid program whose
	 * stdout the tenant made a netlink socket): the opener counts too.
	 * (Root sending with an explicit address, sendto(), acts for itself:
	 * only its own capability is checked, by design of netlink.)
	 */
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid = fork();
	if (pid == 0) {
		char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
		struct iovec iov = { .iov_base = "s", .iov_len = 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

		if (kav_become(UID_A, UID_A, 0, NULL) || tenant_socket(tnl))
			_exit(1);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &tnl->fd, sizeof(int));
		_exit(sendmsg(sv[1], &mh, 0) == 1 ? 0 : 1);
	}
	{
		char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, b;
		struct iovec iov = { .iov_base = &b, .iov_len = 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct kav_nl dnl;

		ASSERT_EQ(1, recvmsg(sv[0], &mh, 0));
		ASSERT_NE(NULL, CMSG_FIRSTHDR(&mh));
		EXPECT_EQ(0, kav_reap(pid));
		dnl = *tnl;	/* the tenant resolved the family */
		ASSERT_NE(0, dnl.family);
		dnl.no_dst = true;
		memcpy(&dnl.fd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
		EXPECT_EQ(-EPERM, kav_nl_grant_add(&dnl, &s, NULL));
		EXPECT_EQ(-EPERM, kav_nl_grant_del(&dnl, c->victim));
		kav_nl_close(&dnl);
	}
	close(sv[0]);
	close(sv[1]);

	/* The grant list is as it was; the victim grant still stands. */
	ASSERT_EQ(0, kav_nl_grants(&self->nl, after, 64, &na));
	ASSERT_EQ(nb, na);
	EXPECT_EQ(0, memcmp(before, after, nb * sizeof(before[0])));
	EXPECT_EQ(1, kav_nl_grant_exists(&self->nl, c->victim));
}

/* =============================== d: reaching another tenant's table */

#define VNI_A4		0xd101
#define VNI_B4		0xd201
#define B_AV_FD		900	/* where B keeps its AV fd */

struct case_d {
	struct kav_sync sync;
	pid_t b_pid;
	uint64_t b_map_size;
	uintptr_t b_map_addr;
};

static int victim_b(void *arg)
{
	struct case_d *d = arg;
	struct kav_table_state st0, st1;
	struct tenant_av t;
	uint64_t h, fi;
	int i;

	/* Stay ptrace-able by uid 1002, as an ordinary process is. */
	CK_EQ(0, prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	CK_EQ(0, tenant_av_open(&t, 0));
	CK_EQ(0, kav_key_insert(t.av, VNI_B4, &h));
	for (i = 0; i < 3; i++)
		CK_EQ(0, kav_insert_one(t.av, 0x0a0b0b00 + i, 5000, h, &fi));
	CK_EQ(B_AV_FD, dup2(t.av, B_AV_FD));
	kav_table_state(t.map.h, &st0);
	d->b_pid = getpid();
	d->b_map_size = t.c.map_size;
	d->b_map_addr = (uintptr_t)t.map.h;
	CK_EQ(0, kav_tell_parent(&d->sync, 'B'));
	CK_EQ('v', kav_wait_parent(&d->sync));
	kav_table_state(t.map.h, &st1);
	CK(kav_table_same(&st0, &st1));
	close(B_AV_FD);
	tenant_av_close(&t);
	return 0;
}

static int attacker_a(void *arg)
{
	const long page = sysconf(_SC_PAGESIZE);
	struct case_d *d = arg;
	struct kav_table_state st0, st1;
	struct tenant_av t;
	char path[128], buf[64];
	struct iovec local = { buf, sizeof(buf) };
	struct iovec remote;
	uint64_t h, fi, i;
	void *p;
	int fd, pidfd, nic;

	CK_EQ(0, tenant_av_open(&t, 0));
	CK_EQ(0, kav_key_insert(t.av, VNI_A4, &h));
	CK_EQ(0, kav_insert_one(t.av, 0x0a0a0a01, 5001, h, &fi));
	kav_table_state(t.map.h, &st0);

	/* Offsets and lengths outside the AV's own table. */
	errno = 0;
	CK(mmap(NULL, t.c.map_size + page, PROT_READ, MAP_SHARED, t.av, 0) ==
	   MAP_FAILED && errno == EINVAL);
	CK(mmap(NULL, page, PROT_READ, MAP_SHARED, t.av, t.c.map_size) ==
	   MAP_FAILED && errno == EINVAL);
	CK(mmap(NULL, t.c.map_size, PROT_READ, MAP_SHARED, t.av, page) ==
	   MAP_FAILED && errno == EINVAL);
	CK(mmap(NULL, page, PROT_READ, MAP_SHARED, t.av, 1ULL << 40) ==
	   MAP_FAILED);
	CK(mmap(NULL, page, PROT_READ, MAP_SHARED, t.av,
		(off_t)(d->b_map_size << 4)) == MAP_FAILED);
	/* No writable mapping, now or later; no growing it. */
	CK(mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, t.av, 0) ==
	   MAP_FAILED && errno == EACCES);
	CK(mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, t.av, 0) ==
	   MAP_FAILED && errno == EACCES);
	CK(mprotect((void *)t.map.h, page, PROT_READ | PROT_WRITE) &&
	   errno == EACCES);
	p = mremap((void *)t.map.h, t.c.map_size, t.c.map_size + page, 0);
	CK(p == MAP_FAILED);
	/* A domain has no table to map. */
	CK(mmap(NULL, page, PROT_READ, MAP_SHARED, t.dom, 0) == MAP_FAILED &&
	   errno == ENODEV);

	/* B's descriptors through /proc, pidfd_getfd, /proc/PID/mem. */
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)d->b_pid, B_AV_FD);
	CK(open(path, O_RDONLY) < 0 && errno == EACCES);
	CK(readlink(path, buf, sizeof(buf)) < 0 && errno == EACCES);
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)d->b_pid,
		 B_AV_FD);
	CK(open(path, O_RDONLY) < 0 && errno == EACCES);
	snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx",
		 (int)d->b_pid, (unsigned long)d->b_map_addr,
		 (unsigned long)(d->b_map_addr + d->b_map_size));
	CK(open(path, O_RDONLY) < 0);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)d->b_pid);
	CK(open(path, O_RDONLY) < 0 && errno == EACCES);
	pidfd = syscall(SYS_pidfd_open, d->b_pid, 0);
	CK(pidfd >= 0);
	CK(syscall(SYS_pidfd_getfd, pidfd, B_AV_FD, 0) < 0 && errno == EPERM);
	close(pidfd);
	remote.iov_base = (void *)d->b_map_addr;
	remote.iov_len = sizeof(buf);
	/* (ENOSYS: a kernel without CONFIG_CROSS_MEMORY_ATTACH.) */
	CK(process_vm_readv(d->b_pid, &local, 1, &remote, 1, 0) < 0 &&
	   (errno == EPERM || errno == ENOSYS));

	/* B's fd number means nothing here, to kav or to a NIC. */
	CK(fcntl(B_AV_FD, F_GETFD) < 0 && errno == EBADF);
	nic = kav_nic_open();
	CK(nic >= 0);
	CK_EQ(-EBADF, kav_nic_bind(nic, B_AV_FD));
	CK_EQ(-EINVAL, kav_nic_bind(nic, t.dom));	/* not an AV */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CK_EQ(-EINVAL, kav_nic_bind(nic, fd));
	close(fd);
	CK_EQ(-1000 - ENOTCONN, kav_nic_send(nic, 0, NULL));
	CK_EQ(0, kav_nic_bind(nic, t.av));
	CK_EQ(-EBUSY, kav_nic_bind(nic, t.av));	/* one AV per file */
	for (i = 0; i < 4; i++)			/* only A's one entry */
		CK_EQ(i == fi ? 0 : -EINVAL, kav_nic_send(nic, i, NULL));
	close(nic);

	/* A's own table shows nothing of B's and did not change. */
	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++)
		CK(kav_slot(t.map.h, i)->vni != VNI_B4);
	kav_table_state(t.map.h, &st1);
	CK(kav_table_same(&st0, &st1));
	tenant_av_close(&t);
	return 0;
}

TEST_F_TIMEOUT(attack, d_other_tenants_table, 120)
{
	struct kav_as_arg b_as = { UID_B, UID_B, victim_b, NULL };
	struct case_d *d = kav_shared(sizeof(*d));
	pid_t b;

	ASSERT_NE(NULL, d);
	ASSERT_EQ(0, kav_sync_init(&d->sync));
	grant_uid(_metadata, self, VNI_A4, UID_A);
	grant_uid(_metadata, self, VNI_B4, UID_B);
	b_as.arg = d;
	b = kav_spawn(kav_as_trampoline, &b_as);
	ASSERT_EQ('B', kav_wait_child(&d->sync));
	EXPECT_EQ(0, kav_run_as(UID_A, attacker_a, d));
	kav_tell_child(&d->sync, 'v');
	EXPECT_EQ(0, kav_reap(b));
	kav_sync_close(&d->sync);
}

/* ======================================= e: identity changes after open */

#define VNI_A5		0xe101
#define VNI_B5		0xe201
#define VNI_CG		0xe301
#define VNI_NS		0xe401
#define VNI_GR		0xe501

/* Can domain @dom get key @vni into a new AV? 0 or -errno. */
static int can_use_key(int dom, uint32_t vni)
{
	int av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL), ret;
	uint64_t h;

	if (av < 0)
		return av;
	ret = kav_key_insert(av, vni, &h);
	close(av);
	return ret;
}

/* setuid after open: the descriptor keeps acting as its opener. */
static int setuid_after_open(void *arg)
{
	int d1001, d1002, fresh;

	(void)arg;
	/* Open as 1001 (saved uid 0 keeps the way back). */
	CK_EQ(0, setgroups(0, NULL));
	CK_EQ(0, setresgid(-1, UID_A, -1));
	CK_EQ(0, setresuid(-1, UID_A, -1));
	d1001 = kav_open_domain();
	CK(d1001 >= 0);
	CK_EQ(0, setresuid(-1, 0, -1));
	CK_EQ(0, setresgid(-1, UID_B, -1));
	CK_EQ(0, setresuid(-1, UID_B, -1));
	d1002 = kav_open_domain();
	CK(d1002 >= 0);
	CK_EQ(0, setresuid(-1, 0, -1));

	/* Now become 1002 for good. */
	CK_EQ(0, kav_become(UID_B, UID_B, 0, NULL));
	CK_EQ(0, can_use_key(d1001, VNI_A5));		/* no loss */
	CK_EQ(-EACCES, can_use_key(d1001, VNI_B5));	/* no gain */
	CK_EQ(0, can_use_key(d1002, VNI_B5));
	CK_EQ(-EACCES, can_use_key(d1002, VNI_A5));
	fresh = kav_open_domain();
	CK(fresh >= 0);
	CK_EQ(0, can_use_key(fresh, VNI_B5));
	CK_EQ(-EACCES, can_use_key(fresh, VNI_A5));
	close(fresh);
	close(d1001);
	close(d1002);
	return 0;
}

/* A group in the supplementary list at open, dropped later. */
static int groups_after_open(void *arg)
{
	gid_t g = GID_G;
	int with, without;

	(void)arg;
	CK_EQ(0, setgroups(1, &g));
	CK_EQ(0, setresgid(-1, UID_E, -1));
	CK_EQ(0, setresuid(-1, UID_E, -1));
	with = kav_open_domain();
	CK(with >= 0);
	CK_EQ(0, setresuid(-1, 0, -1));
	CK_EQ(0, kav_become(UID_E, UID_E, 0, NULL));	/* no groups now */
	without = kav_open_domain();
	CK(without >= 0);
	CK_EQ(0, kav_domain_set_key(with, VNI_GR));
	CK_EQ(-EACCES, kav_domain_set_key(without, VNI_GR));
	close(with);
	close(without);
	return 0;
}

struct case_e_cg {
	struct kav_sync sync;
};

#define CG_GRANTED	"kav_attack_granted"
#define CG_SUB		"kav_attack_granted/sub"
#define CG_OTHER	"kav_attack_other"

/* uid 1003, moved between cgroups by the parent at each step. */
static int cgroup_moves(void *arg)
{
	struct case_e_cg *e = arg;
	int in_root, in_granted, in_other, in_sub;

	in_root = kav_open_domain();			/* root cgroup */
	CK(in_root >= 0);
	CK_EQ(0, kav_tell_parent(&e->sync, '1'));
	CK_EQ('g', kav_wait_parent(&e->sync));		/* now in granted */
	in_granted = kav_open_domain();
	CK(in_granted >= 0);
	CK_EQ(-EACCES, kav_domain_set_key(in_root, VNI_CG));	/* no gain */
	CK_EQ(0, kav_tell_parent(&e->sync, '2'));
	CK_EQ('o', kav_wait_parent(&e->sync));		/* now in other */
	in_other = kav_open_domain();
	CK(in_other >= 0);
	CK_EQ(0, kav_domain_set_key(in_granted, VNI_CG));	/* no loss */
	CK_EQ(-EACCES, kav_domain_set_key(in_other, VNI_CG));
	CK_EQ(0, kav_tell_parent(&e->sync, '3'));
	CK_EQ('s', kav_wait_parent(&e->sync));		/* now in sub */
	in_sub = kav_open_domain();
	CK(in_sub >= 0);
	CK_EQ(0, kav_domain_set_key(in_sub, VNI_CG));	/* descendants */
	close(in_root);
	close(in_granted);
	close(in_other);
	close(in_sub);
	return 0;
}

/*
 * A tenant with a delegated cgroup subtree (as a container has) moves
 * itself between its own cgroups, one of which holds a grant.
 */
#define CG_DELEG	"kav_attack_deleg"
#define CG_D_GRANTED	"kav_attack_deleg/granted"
#define CG_D_SUB	"kav_attack_deleg/granted/sub"
#define CG_D_OTHER	"kav_attack_deleg/other"

static int cgroup_moves_itself(void *arg)
{
	int in_other, in_granted, fresh;

	(void)arg;
	in_other = kav_open_domain();			/* in other */
	CK(in_other >= 0);
	CK_EQ(0, kav_cgroup_move(CG_D_GRANTED, getpid()));
	CK_EQ(-EACCES, kav_domain_set_key(in_other, VNI_CG));	/* no gain */
	in_granted = kav_open_domain();
	CK(in_granted >= 0);
	CK_EQ(0, kav_cgroup_move(CG_D_OTHER, getpid()));
	CK_EQ(0, kav_domain_set_key(in_granted, VNI_CG));	/* no loss */
	fresh = kav_open_domain();
	CK(fresh >= 0);
	CK_EQ(-EACCES, kav_domain_set_key(fresh, VNI_CG));
	close(fresh);
	CK_EQ(0, kav_cgroup_move(CG_D_SUB, getpid()));
	fresh = kav_open_domain();
	CK(fresh >= 0);
	CK_EQ(0, kav_domain_set_key(fresh, VNI_CG));		/* descendant */
	close(fresh);
	/* Out of the delegated subtree it may not go by itself. */
	CK(kav_cgroup_move("", getpid()) == -EACCES);
	close(in_other);
	close(in_granted);
	return 0;
}

struct case_e_ns {
	struct kav_sync sync;
};

/* Root without grants; the grant names a network namespace. */
static int netns_moves(void *arg)
{
	struct case_e_ns *e = arg;
	int init_ns, d_init, d_ns, d_init2;

	init_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	CK(init_ns >= 0);
	d_init = kav_open_domain();
	CK(d_init >= 0);
	CK_EQ(0, unshare(CLONE_NEWNET));
	CK_EQ(0, kav_tell_parent(&e->sync, 'n'));
	CK_EQ('g', kav_wait_parent(&e->sync));		/* granted */
	CK_EQ(-EACCES, kav_domain_set_key(d_init, VNI_NS));	/* no gain */
	d_ns = kav_open_domain();
	CK(d_ns >= 0);
	CK_EQ(0, setns(init_ns, CLONE_NEWNET));
	CK_EQ(0, kav_domain_set_key(d_ns, VNI_NS));		/* no loss */
	d_init2 = kav_open_domain();
	CK(d_init2 >= 0);
	CK_EQ(-EACCES, kav_domain_set_key(d_init2, VNI_NS));
	close(d_init);
	close(d_ns);
	close(d_init2);
	close(init_ns);
	return 0;
}

struct case_e_scm {
	int sv[2];
};

static int scm_sender_a(void *arg)
{
	struct case_e_scm *e = arg;
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = "d", .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int dom = kav_open_domain();

	CK(dom >= 0);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &dom, sizeof(int));
	CK_EQ(1, sendmsg(e->sv[1], &mh, 0));
	close(dom);
	return 0;
}

static int scm_receiver_b(void *arg)
{
	struct case_e_scm *e = arg;
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, b;
	struct iovec iov = { .iov_base = &b, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	int from_a, own;

	CK_EQ(1, recvmsg(e->sv[0], &mh, 0));
	CK(CMSG_FIRSTHDR(&mh) != NULL);
	memcpy(&from_a, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
	/* Documented: the fd carries its opener's (A's) rights, only. */
	CK_EQ(0, can_use_key(from_a, VNI_A5));
	CK_EQ(-EACCES, can_use_key(from_a, VNI_B5));
	own = kav_open_domain();
	CK(own >= 0);
	CK_EQ(0, can_use_key(own, VNI_B5));
	CK_EQ(-EACCES, can_use_key(own, VNI_A5));
	close(own);
	close(from_a);
	return 0;
}

TEST_F_TIMEOUT(attack, e_setuid_and_groups_after_open, 120)
{
	struct kav_grant_spec s = { .vni = VNI_GR, .sel_type = KAV_SEL_GID,
				    .sel_id = GID_G };

	grant_uid(_metadata, self, VNI_A5, UID_A);
	grant_uid(_metadata, self, VNI_B5, UID_B);
	add_grant(_metadata, self, &s);
	EXPECT_EQ(0, kav_reap(kav_spawn(setuid_after_open, NULL)));
	EXPECT_EQ(0, kav_reap(kav_spawn(groups_after_open, NULL)));
}

TEST_F_TIMEOUT(attack, e_cgroup_after_open, 120)
{
	struct case_e_cg *e = kav_shared(sizeof(*e));
	struct kav_as_arg as = { UID_C, UID_C, cgroup_moves, NULL };
	struct kav_grant_spec s = { .vni = VNI_CG, .sel_type = KAV_SEL_CGROUP,
				    .cgroup_path = CG_GRANTED };
	pid_t pid;

	ASSERT_NE(NULL, e);
	ASSERT_EQ(0, kav_cgroup_make(CG_GRANTED));
	ASSERT_EQ(0, kav_cgroup_make(CG_SUB));
	ASSERT_EQ(0, kav_cgroup_make(CG_OTHER));
	add_grant(_metadata, self, &s);
	ASSERT_EQ(0, kav_sync_init(&e->sync));
	as.arg = e;
	pid = kav_spawn(kav_as_trampoline, &as);
	EXPECT_EQ('1', kav_wait_child(&e->sync));
	EXPECT_EQ(0, kav_cgroup_move(CG_GRANTED, pid));
	kav_tell_child(&e->sync, 'g');
	EXPECT_EQ('2', kav_wait_child(&e->sync));
	EXPECT_EQ(0, kav_cgroup_move(CG_OTHER, pid));
	kav_tell_child(&e->sync, 'o');
	EXPECT_EQ('3', kav_wait_child(&e->sync));
	EXPECT_EQ(0, kav_cgroup_move(CG_SUB, pid));
	kav_tell_child(&e->sync, 's');
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&e->sync);
	EXPECT_EQ(0, kav_cgroup_remove(CG_SUB));
	EXPECT_EQ(0, kav_cgroup_remove(CG_GRANTED));
	EXPECT_EQ(0, kav_cgroup_remove(CG_OTHER));
}

TEST_F_TIMEOUT(attack, e_cgroup_moves_itself, 120)
{
	struct kav_grant_spec s = { .vni = VNI_CG, .sel_type = KAV_SEL_CGROUP,
				    .cgroup_path = CG_D_GRANTED };
	struct kav_as_arg as = { UID_C, UID_C, cgroup_moves_itself, NULL };
	pid_t pid;
	int go[2];

	ASSERT_EQ(0, kav_cgroup_make(CG_DELEG));
	ASSERT_EQ(0, kav_cgroup_make(CG_D_GRANTED));
	ASSERT_EQ(0, kav_cgroup_make(CG_D_SUB));
	ASSERT_EQ(0, kav_cgroup_make(CG_D_OTHER));
	ASSERT_EQ(0, kav_cgroup_delegate(CG_DELEG, UID_C));
	ASSERT_EQ(0, kav_cgroup_delegate(CG_D_GRANTED, UID_C));
	ASSERT_EQ(0, kav_cgroup_delegate(CG_D_SUB, UID_C));
	ASSERT_EQ(0, kav_cgroup_delegate(CG_D_OTHER, UID_C));
	add_grant(_metadata, self, &s);
	/* The tenant starts in "other", put there by the administrator. */
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	if (pid == 0) {
		char c;

		close(go[1]);
		_exit(read(go[0], &c, 1) == 1 ? kav_as_trampoline(&as) : 97);
	}
	close(go[0]);
	EXPECT_EQ(0, kav_cgroup_move(CG_D_OTHER, pid));
	EXPECT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	EXPECT_EQ(0, kav_reap(pid));
	EXPECT_EQ(0, kav_cgroup_remove(CG_D_SUB));
	EXPECT_EQ(0, kav_cgroup_remove(CG_D_GRANTED));
	EXPECT_EQ(0, kav_cgroup_remove(CG_D_OTHER));
	EXPECT_EQ(0, kav_cgroup_remove(CG_DELEG));
}

TEST_F_TIMEOUT(attack, e_netns_after_open, 120)
{
	struct case_e_ns *e = kav_shared(sizeof(*e));
	struct kav_grant_spec s = { .vni = VNI_NS, .sel_type = KAV_SEL_NETNS };
	char path[64];
	pid_t pid;
	int nsfd;

	ASSERT_NE(NULL, e);
	ASSERT_EQ(0, kav_sync_init(&e->sync));
	pid = kav_spawn(netns_moves, e);
	ASSERT_EQ('n', kav_wait_child(&e->sync));
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, nsfd);
	s.netns_fd = nsfd;
	add_grant(_metadata, self, &s);
	close(nsfd);
	kav_tell_child(&e->sync, 'g');
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&e->sync);
}

TEST_F_TIMEOUT(attack, e_scm_rights_delegates_opener, 120)
{
	struct case_e_scm e;
	struct kav_as_arg as_b = { UID_B, UID_B, scm_receiver_b, &e };
	pid_t b;

	grant_uid(_metadata, self, VNI_A5, UID_A);
	grant_uid(_metadata, self, VNI_B5, UID_B);
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				e.sv));
	b = kav_spawn(kav_as_trampoline, &as_b);
	EXPECT_EQ(0, kav_run_as(UID_A, scm_sender_a, &e));
	EXPECT_EQ(0, kav_reap(b));
	close(e.sv[0]);
	close(e.sv[1]);
}

/* ================================ f: revocation during concurrent inserts */

#define VNI_R		0xf101
#define NR_WRITERS	4
#define NR_AFTER	40	/* attempts each writer makes after the revoke */
#define MAX_HELD	24	/* AVs the creator keeps */

struct writer_stats {
	uint64_t ok;		/* inserts accepted before the revoke */
	uint64_t ok_after;	/* ... started after GRANT_DEL returned: bugs */
	uint64_t refused;	/* EKEYREVOKED (or EACCES) */
	uint64_t bad;		/* any other error */
	int64_t bad_err;
};

struct case_f {
	struct kav_sync sync;
	atomic_int revoked;		/* GRANT_DEL has returned */
	atomic_ulong progress;		/* inserts so far, all writers */
	struct writer_stats w[NR_WRITERS + 1][2];	/* [writer][av] */
	uint64_t held_bad;		/* creator: AVs that kept the key */
	uint64_t created_after;		/* creator: AVs created after */
};

static bool refused_err(int err)
{
	return err == -EKEYREVOKED || err == -EACCES;
}

static void count(struct writer_stats *ws, bool after, int ret)
{
	if (!ret) {
		if (after)
			ws->ok_after++;
		else
			ws->ok++;
	} else if (refused_err(ret)) {
		ws->refused++;
	} else {
		ws->bad++;
		ws->bad_err = ret;
	}
}

struct writer_arg {
	struct case_f *f;
	int id;
	int av_key, av_dom;	/* explicit handle; the domain's key */
	int dom_keyed;
	uint64_t handle;
};

/* Insert in a loop into both AVs until NR_AFTER attempts after revoke. */
static int writer(struct writer_arg *w)
{
	struct case_f *f = w->f;
	uint32_t i, after = 0;
	uint64_t fi;
	bool rev;
	int ret;

	for (i = 0; after < NR_AFTER; i++) {
		uint32_t host = 0x0a100000 | (w->id << 16) | (i & 0xffff);

		rev = atomic_load(&f->revoked);
		ret = kav_insert_one(w->av_key, host, 6000, w->handle, &fi);
		count(&f->w[w->id][0], rev, ret);
		ret = kav_insert_one(w->av_dom, host, 6001, KAV_NONE, &fi);
		count(&f->w[w->id][1], rev, ret);
		atomic_fetch_add(&f->progress, 1);
		if (rev)
			after++;
		if (i > 200000)
			return 2;	/* never revoked */
	}
	return 0;
}

/* Create AVs on the keyed domain while the revoke happens; keep some. */
static int creator(struct writer_arg *w)
{
	struct case_f *f = w->f;
	struct kav_table_state st;
	struct tenant_av held[MAX_HELD];
	struct kav_nic_scan sc;
	int nheld = 0, after = 0, i, av, nic;
	struct kav_av_create c;
	uint64_t fi;
	bool rev;

	while (after < NR_AFTER) {
		rev = atomic_load(&f->revoked);
		av = kav_create_av(w->dom_keyed, KAV_ADDR_SOCKADDR_IN, &c);
		if (av >= 0) {
			if (rev)
				f->created_after++;
			kav_insert_one(av, 0x0a200000 + nheld, 6002, KAV_NONE,
				       &fi);
			if (nheld < MAX_HELD) {
				held[nheld].av = av;
				held[nheld].dom = -1;
				held[nheld].c = c;
				CK_EQ(0, kav_map_av(av, c.map_size,
						    &held[nheld].map));
				nheld++;
			} else {
				close(av);
			}
		} else if (!refused_err(av)) {
			f->w[NR_WRITERS][0].bad++;
			f->w[NR_WRITERS][0].bad_err = av;
		}
		if (rev)
			after++;
	}
	/* Every AV it holds, whenever created, lost the key for good. */
	nic = -1;
	for (i = 0; i < nheld; i++) {
		kav_table_state(held[i].map.h, &st);
		if (!(st.key_flags[0] & KAV_KEY_REVOKED) ||
		    !kav_insert_one(held[i].av, 0x0a2f0000, 6003, KAV_NONE,
				    &fi))
			f->held_bad++;
		nic = kav_nic_open();
		CK(nic >= 0);
		CK_EQ(0, kav_nic_bind(nic, held[i].av));
		CK_EQ(0, kav_nic_scan(nic, 0, held[i].map.h->nr_slots, VNI_R,
				      &sc));
		if (sc.nr_ok)
			f->held_bad++;
		close(nic);
		kav_unmap_av(&held[i].map);
		close(held[i].av);
	}
	return 0;
}

static int writer_main(void *arg)
{
	struct writer_arg *w = arg;

	return w->id == NR_WRITERS ? creator(w) : writer(w);
}

/* The tenant (uid 1001): sets up both AVs, forks the writers, checks. */
static int revocation_tenant(void *arg)
{
	struct case_f *f = arg;
	struct writer_arg w = { .f = f };
	struct tenant_av tk, td;
	struct kav_table_state sk, sd;
	struct kav_nic_scan sc;
	pid_t pids[NR_WRITERS + 1];
	uint64_t ok_k = 0, ok_d = 0, fi;
	int nic_k, nic_d, i, rc = 0, dom;

	CK_EQ(0, tenant_av_open(&tk, 0));
	CK_EQ(0, kav_key_insert(tk.av, VNI_R, &w.handle));
	CK_EQ(0, tenant_av_open(&td, VNI_R));
	nic_k = kav_nic_open();
	nic_d = kav_nic_open();
	CK(nic_k >= 0 && nic_d >= 0);
	CK_EQ(0, kav_nic_bind(nic_k, tk.av));
	CK_EQ(0, kav_nic_bind(nic_d, td.av));

	w.av_key = tk.av;
	w.av_dom = td.av;
	w.dom_keyed = td.dom;
	for (i = 0; i <= NR_WRITERS; i++) {
		w.id = i;
		pids[i] = kav_spawn(writer_main, &w);
		CK(pids[i] > 0);
	}
	CK_EQ(0, kav_tell_parent(&f->sync, 'w'));
	for (i = 0; i <= NR_WRITERS; i++)
		if (kav_reap(pids[i])) {
			fprintf(stderr, "# writer %d failed\n", i);
			rc = 1;
		}
	CK_EQ(0, rc);

	/* Nothing was accepted after the revoke returned. */
	for (i = 0; i <= NR_WRITERS; i++) {
		CK_EQ(0, f->w[i][0].ok_after);
		CK_EQ(0, f->w[i][1].ok_after);
		CK_EQ(0, f->w[i][0].bad);
		CK_EQ(0, f->w[i][1].bad);
		ok_k += f->w[i][0].ok;
		ok_d += f->w[i][1].ok;
	}
	CK_EQ(0, f->held_bad);
	CK_EQ(0, f->created_after);
	CK(ok_k > 0 && ok_d > 0);

	/* The tables are whole: every accepted entry is there. */
	kav_table_state(tk.map.h, &sk);
	kav_table_state(td.map.h, &sd);
	CK_EQ(ok_k, sk.nr_valid);
	CK_EQ(ok_d, sd.nr_valid);
	CK_EQ(ok_k, sk.key_entries[w.handle]);
	CK_EQ(ok_d, sd.key_entries[0]);
	CK(sk.generation % 2 == 0 && sd.generation % 2 == 0);
	/* The slots say so in the mapping. */
	CK(sk.key_flags[w.handle] & KAV_KEY_REVOKED);
	CK(sk.key_flags[w.handle] & KAV_KEY_VALID);
	CK_EQ(KAV_KEY_VALID | KAV_KEY_DOMAIN | KAV_KEY_REVOKED,
	      sd.key_flags[0]);

	/* The NIC resolves nothing under the key: all -EKEYREVOKED. */
	CK_EQ(0, kav_nic_scan(nic_k, 0, sk.nr_slots, VNI_R, &sc));
	CK_EQ(0, sc.nr_ok);
	CK_EQ(ok_k, sc.nr_revoked);
	CK_EQ(0, sc.nr_other + sc.nr_denied);
	CK_EQ(0, kav_nic_scan(nic_d, 0, sd.nr_slots, VNI_R, &sc));
	CK_EQ(0, sc.nr_ok);
	CK_EQ(ok_d, sc.nr_revoked);

	/* New uses of the key fail; a new domain cannot take it. */
	CK(refused_err(kav_insert_one(tk.av, 0x0a300000, 6004, w.handle,
				      &fi)));
	CK(refused_err(kav_create_av(td.dom, KAV_ADDR_SOCKADDR_IN, NULL)));
	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(-EACCES, kav_domain_set_key(dom, VNI_R));
	close(dom);
	CK_EQ(-EACCES, can_use_key(tk.dom, VNI_R));

	/* Entries under a revoked key can still be removed, and the key. */
	for (fi = 0; fi < sk.nr_slots; fi++)
		if (kav_entry_at(tk.map.h, fi)->flags & KAV_ENTRY_VALID)
			CK_EQ(0, kav_remove(tk.av, &fi, 1, NULL));
	CK_EQ(0, tk.map.h->nr_valid);
	CK_EQ(0, kav_key_remove(tk.av, w.handle));

	close(nic_k);
	close(nic_d);
	tenant_av_close(&tk);
	tenant_av_close(&td);
	return 0;
}

TEST_F_TIMEOUT(attack, f_revoke_during_inserts, 240)
{
	struct case_f *f = kav_shared(sizeof(*f));
	struct kav_as_arg as = { UID_A, UID_A, revocation_tenant, NULL };
	struct kav_nl_stats st0, st1;
	int round, i;
	uint32_t g;
	pid_t t;

	ASSERT_NE(NULL, f);
	for (round = 0; round < 3; round++) {
		memset(f, 0, sizeof(*f));
		ASSERT_EQ(0, kav_sync_init(&f->sync));
		g = grant_uid(_metadata, self, VNI_R, UID_A);
		ASSERT_NE(0, g);
		ASSERT_EQ(0, kav_nl_stats(&self->nl, &st0));
		as.arg = f;
		t = kav_spawn(kav_as_trampoline, &as);
		ASSERT_EQ('w', kav_wait_child(&f->sync));
		/* Let the writers get going, differently each round. */
		for (i = 0; i < 20000 &&
		     atomic_load(&f->progress) < 50u + 150u * round; i++)
			usleep(1000);
		ASSERT_EQ(0, revoke_grant(self, g));
		atomic_store(&f->revoked, 1);
		EXPECT_EQ(0, kav_reap(t));
		ASSERT_EQ(0, kav_nl_stats(&self->nl, &st1));
		EXPECT_LT(st0.deny_revoked, st1.deny_revoked);
		EXPECT_EQ(0, kav_nl_grant_exists(&self->nl, g));
		TH_LOG("round %d: %lu inserts before the revoke", round,
		       (unsigned long)atomic_load(&f->progress));
		kav_sync_close(&f->sync);
	}
}

/*
 * The same race, aimed at AV creation: AVs of a keyed domain are created
 * as fast as possible by several processes while the domain's grant is
 * revoked. Every AV that exists after GRANT_DEL returned must have its
 * domain key (slot 0) revoked, whenever it was created.
 */
#define VNI_RC		0xf201
#define NR_CREATORS	3
#define HOLD		200

struct case_fc {
	atomic_int revoked;
	atomic_int ready;		/* creators with their domain key */
	atomic_ulong created;
	uint64_t after[NR_CREATORS];	/* AVs created after the revoke */
	uint64_t missed[NR_CREATORS];	/* AVs whose key was not revoked */
	uint64_t held[NR_CREATORS];
	int id;
};

static int av_creator(void *arg)
{
	struct case_fc *f = arg;
	const volatile struct kav_table_header *h[HOLD];
	int av[HOLD], n = 0, after = 0, id, fd, dom, i;
	uint64_t fi;
	bool rev;

	id = __atomic_fetch_add(&f->id, 1, __ATOMIC_RELAXED);
	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(0, kav_domain_set_key(dom, VNI_RC));
	atomic_fetch_add(&f->ready, 1);
	while (after < 20) {
		rev = atomic_load(&f->revoked);
		fd = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
		if (fd >= 0) {
			if (rev)
				f->after[id]++;
			if (n < HOLD) {
				h[n] = kav_map_header(fd);
				CK(h[n] != NULL);
				av[n++] = fd;
			} else {
				close(fd);
			}
		} else {
			CK(refused_err(fd));
		}
		atomic_fetch_add(&f->created, 1);
		if (rev)
			after++;
	}
	for (i = 0; i < n; i++) {
		uint32_t flags = kav_slot(h[i], 0)->flags;
		int ins = kav_insert_one(av[i], 0x0a700000, 1, KAV_NONE, &fi);

		if (!(flags & KAV_KEY_REVOKED) || !ins) {
			fprintf(stderr, "# AV %d of creator %d kept its key: "
				"slot 0 flags %#x, an insert after the "
				"revoke: %d\n", i, id, flags, ins);
			f->missed[id]++;
		}
		munmap((void *)h[i], sysconf(_SC_PAGESIZE));
		close(av[i]);
	}
	f->held[id] = n;
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(attack, f_revoke_during_av_creation, 240)
{
	struct case_fc *f = kav_shared(sizeof(*f));
	struct kav_as_arg as = { UID_A, UID_A, av_creator, NULL };
	pid_t pids[NR_CREATORS];
	uint64_t missed = 0, after = 0, held = 0;
	int round, i;
	uint32_t g;

	ASSERT_NE(NULL, f);
	as.arg = f;
	for (round = 0; round < 10; round++) {
		memset(f, 0, sizeof(*f));
		g = grant_uid(_metadata, self, VNI_RC, UID_A);
		ASSERT_NE(0, g);
		for (i = 0; i < NR_CREATORS; i++)
			pids[i] = kav_spawn(kav_as_trampoline, &as);
		for (i = 0; i < 20000 &&
		     atomic_load(&f->ready) < NR_CREATORS; i++)
			usleep(500);
		for (i = 0; i < 20000 &&
		     atomic_load(&f->created) < 20u + 15u * round; i++)
			usleep(500);
		ASSERT_EQ(0, revoke_grant(self, g));
		atomic_store(&f->revoked, 1);
		for (i = 0; i < NR_CREATORS; i++) {
			EXPECT_EQ(0, kav_reap(pids[i]));
			missed += f->missed[i];
			after += f->after[i];
			held += f->held[i];
		}
	}
	TH_LOG("%llu AVs checked", (unsigned long long)held);
	EXPECT_EQ(0, after);
	EXPECT_EQ(0, missed);
}

/* ========================================= g: malformed netlink messages */

struct bad_msg {
	const char *what;
	int err;		/* expected -errno; 0: any error */
	bool msg;		/* an extack message is required */
};

static void grants_snapshot(struct __test_metadata *_metadata,
			    struct kav_nl *nl, struct kav_nl_grant *g,
			    size_t *n)
{
	ASSERT_EQ(0, kav_nl_grants(nl, g, 64, n));
}

/* Send @m, expect the failure @b describes, and no change to grants. */
static void expect_refused(struct __test_metadata *_metadata,
			   struct kav_nl *nl, struct kav_nl_msg *m,
			   const struct bad_msg *b)
{
	static struct kav_nl_grant before[64], after[64];
	struct kav_nl_stats s0, s1;
	size_t nb, na;
	int ret;

	grants_snapshot(_metadata, nl, before, &nb);
	ASSERT_EQ(0, kav_nl_stats(nl, &s0));
	ret = kav_nl_talk(nl, m, NULL, NULL);
	TH_LOG("%s: %d (%s) extack \"%s\"", b->what, ret, strerror(-ret),
	       nl->ext_msg);
	EXPECT_GT(0, ret) {
		TH_LOG("%s: accepted", b->what);
	}
	if (b->err)
		EXPECT_EQ(b->err, ret);
	if (b->msg)
		EXPECT_TRUE(nl->has_ext_msg) {
			TH_LOG("%s: no NLMSGERR_ATTR_MSG", b->what);
		}
	grants_snapshot(_metadata, nl, after, &na);
	ASSERT_EQ(0, kav_nl_stats(nl, &s1));
	EXPECT_EQ(nb, na);
	EXPECT_EQ(0, memcmp(before, after, nb * sizeof(before[0])));
	EXPECT_EQ(s0.grants, s1.grants);
}

TEST_F_TIMEOUT(attack, g_malformed_netlink, 120)
{
	static struct kav_nl_msg m;
	static char longpath[5000];
	struct kav_nl *nl = &self->nl;
	uint64_t u64 = 0x1234;
	uint16_t u16 = 1;
	struct nlattr *na;
	int nullfd;

	/* A grant that exists, so that "no change" means something. */
	grant_uid(_metadata, self, 0x9101, UID_A);

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "no attributes", -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "no selector type", -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, UID_A);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "no VNI", -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "uid selector without SEL_ID",
					  -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u8(&m, KAV_A_VNI, 7);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, UID_A);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "VNI as a u8", -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u64(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, UID_A);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "VNI as a u64", -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, 99);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, UID_A);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "unknown selector", -ERANGE, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, 0);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, UID_A);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "selector 0", -ERANGE, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, UID_A);
	kav_nl_put_str(&m, KAV_A_SEL_CGROUP_PATH, "kav");
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "two selectors (uid + cgroup)",
					  -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_CGROUP);
	kav_nl_put_str(&m, KAV_A_SEL_CGROUP_PATH, "/");
	kav_nl_put_u64(&m, KAV_A_SEL_CGROUP_ID, 1);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "cgroup by path and by id",
					  -EINVAL, true });

	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_CGROUP);
	kav_nl_put_str(&m, KAV_A_SEL_CGROUP_PATH, longpath);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "cgroup path of 4999 bytes",
					  -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_CGROUP);
	kav_nl_put(&m, KAV_A_SEL_CGROUP_PATH, "/abc", 4);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "cgroup path without its NUL",
					  -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_CGROUP);
	kav_nl_put_str(&m, KAV_A_SEL_CGROUP_PATH, "/kav-no-such-cgroup");
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "cgroup that does not exist",
					  -ENOENT, true });

	nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, nullfd);
	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_NETNS);
	kav_nl_put_u32(&m, KAV_A_SEL_NETNS_FD, nullfd);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "netns fd that is /dev/null", 0,
					  true });
	close(nullfd);

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_NETNS);
	kav_nl_put_u32(&m, KAV_A_SEL_NETNS_FD, 0xffffffffu);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "netns fd -1", 0, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, 0xffffffffu);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "uid -1", -EINVAL, true });

	/* A valid grant with one bad limit is refused whole. */
	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, UID_A);
	kav_nl_put_u64(&m, KAV_A_LIMIT_AVS, 5);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "LIMIT_AVS as a u64", -EINVAL,
					  true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, UID_A);
	kav_nl_put_u32(&m, KAV_A_MAX + 5, 1);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "unknown attribute type", -EINVAL,
					  true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	na = kav_nl_put(&m, KAV_A_SEL_ID, &u64, sizeof(uint32_t));
	na->nla_type |= NLA_F_NESTED;
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "u32 flagged NLA_F_NESTED", -EINVAL,
					  true });

	/* Two bytes of garbage after the last attribute. */
	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_VNI, 0x9102);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, UID_A);
	memset(m.buf + m.nlh.nlmsg_len, 0xff, 4);
	m.nlh.nlmsg_len += 4;
	na = (struct nlattr *)(m.buf + m.nlh.nlmsg_len - 4);
	na->nla_len = 2;
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "trailing garbage", -EINVAL, true });

	/* An attribute claiming more bytes than the message has. */
	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_UID);
	kav_nl_put_u32(&m, KAV_A_SEL_ID, UID_A);
	na = kav_nl_put(&m, KAV_A_VNI, &u64, 4);
	na->nla_len = 200;
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "attribute longer than the message",
					  -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_DEL, 0);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "GRANT_DEL without an id", -EINVAL,
					  true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_DEL, 0);
	kav_nl_put(&m, KAV_A_GRANT_ID, &u16, sizeof(u16));
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "grant id as a u16", -EINVAL, true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_DEL, 0);
	kav_nl_put_u32(&m, KAV_A_GRANT_ID, 0xfffffff0u);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "GRANT_DEL of no grant", -ENOENT,
					  true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_ENTRY_GET, NLM_F_DUMP);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "ENTRY_GET without an AV", -EINVAL,
					  true });

	kav_nl_req(nl, &m, KAV_GENL_CMD_ENTRY_GET, NLM_F_DUMP);
	kav_nl_put_u32(&m, KAV_A_AV_ID, 0x7ffffff0u);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "ENTRY_GET of no AV", -ENOENT,
					  true });

	/* Commands the family does not have; notifications as requests. */
	kav_nl_req(nl, &m, 200, 0);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "unknown command", -EOPNOTSUPP,
					  false });
	kav_nl_req(nl, &m, KAV_GENL_CMD_AV_NEW, 0);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "AV_NEW as a request", -EOPNOTSUPP,
					  false });
	kav_nl_req(nl, &m, KAV_GENL_CMD_UNSPEC, 0);
	expect_refused(_metadata, nl, &m,
		       &(struct bad_msg){ "command 0", -EOPNOTSUPP, false });
}

/* ============================================= h: keyless inserts off */

#define VNI_H		0x8101

struct case_h {
	struct kav_sync sync;
	int keyless_denials;	/* the child's refused keyless inserts */
};

/* uid 1001 (no grant used here): keyless inserts under both settings. */
static int keyless_tenant(void *arg)
{
	struct case_h *h = arg;
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };
	struct kav_table_state st0, st1;
	struct sockaddr_in sin = kav_sin(0x0a400001, 7000);
	struct kav_nic_send s = { 0 };
	struct tenant_av t, tk;
	struct fid_domain *dom;
	struct fid_av *av;
	uint64_t fi_on, fi;
	fi_addr_t fa;
	int nic, err;

	/* allow_keyless=1: a keyless entry is accepted and resolves. */
	CK_EQ(0, tenant_av_open(&t, 0));
	CK_EQ(0, kav_insert_one(t.av, 0x0a400000, 7000, KAV_NONE, &fi_on));
	CK_EQ(KAV_ENTRY_NO_KEY, kav_entry_at(t.map.h, fi_on)->auth_key);
	nic = kav_nic_open();
	CK(nic >= 0);
	CK_EQ(0, kav_nic_bind(nic, t.av));
	CK_EQ(0, kav_nic_send(nic, fi_on, &s));
	CK_EQ(0, s.flags);			/* not keyed */
	CK_EQ(0, kav_tell_parent(&h->sync, '1'));

	/* allow_keyless=0: no new keyless entry, the old one is dead. */
	CK_EQ('0', kav_wait_parent(&h->sync));
	kav_table_state(t.map.h, &st0);
	CK_EQ(-EACCES, kav_insert_one(t.av, 0x0a400002, 7000, KAV_NONE, &fi));
	kav_table_state(t.map.h, &st1);
	CK(kav_table_same(&st0, &st1));
	CK_EQ(-EACCES, kav_nic_send(nic, fi_on, NULL));
	close(nic);

	h->keyless_denials = 1;

	/* A keyed domain still inserts without naming the key. */
	CK_EQ(0, tenant_av_open(&tk, VNI_H));
	CK_EQ(0, kav_insert_one(tk.av, 0x0a400003, 7000, KAV_NONE, &fi));
	CK_EQ(0, kav_entry_at(tk.map.h, fi)->auth_key);
	/* The domain's key cannot be taken out of an AV, used or not. */
	CK_EQ(-EPERM, kav_key_remove(tk.av, 0));
	CK_EQ(0, kav_remove(tk.av, &fi, 1, NULL));
	CK_EQ(-EPERM, kav_key_remove(tk.av, 0));
	CK_EQ(0, kav_insert_one(tk.av, 0x0a400004, 7000, KAV_NONE, &fi));
	CK_EQ(0, kav_entry_at(tk.map.h, fi)->auth_key);

	/* libkav: the insert fails with -FI_EACCES. */
	setenv("KAV_LOG", "none", 1);
	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	CK_EQ(0, kav_domain_open(&info, &dom, NULL));
	CK_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	err = 0;
	CK_EQ(0, fi_av_insert(av, &sin, 1, &fa, FI_SYNC_ERR, &err));
	CK_EQ(FI_ADDR_NOTAVAIL, fa);
	CK_EQ(FI_EACCES, err);
	h->keyless_denials++;
	CK_EQ(0, fi_close(&av->fid));
	CK_EQ(0, fi_close(&dom->fid));
	tenant_av_close(&tk);
	tenant_av_close(&t);
	return 0;
}

TEST_F_TIMEOUT(attack, h_keyless_off, 120)
{
	struct kav_as_arg as = { UID_A, UID_A, keyless_tenant, NULL };
	struct case_h *h = kav_shared(sizeof(*h));
	struct kav_nl_stats s0, s1;
	pid_t pid;

	ASSERT_NE(NULL, h);
	self->keyless = kav_get_allow_keyless();
	ASSERT_LE(0, self->keyless);
	grant_uid(_metadata, self, VNI_H, UID_A);
	ASSERT_EQ(0, kav_sync_init(&h->sync));
	ASSERT_EQ(0, kav_set_allow_keyless(true));
	as.arg = h;
	pid = kav_spawn(kav_as_trampoline, &as);
	ASSERT_EQ('1', kav_wait_child(&h->sync));
	ASSERT_EQ(0, kav_set_allow_keyless(false));
	ASSERT_EQ(0, kav_get_allow_keyless());
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &s0));
	kav_tell_child(&h->sync, '0');
	EXPECT_EQ(0, kav_reap(pid));
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &s1));
	/* Each refused keyless insert was counted. */
	EXPECT_EQ(2, h->keyless_denials);
	EXPECT_EQ(s0.deny_keyless + h->keyless_denials, s1.deny_keyless);
	kav_sync_close(&h->sync);
}

/* The last test: kav_nic goes, so that kav can be unloaded later. */
TEST_F(attack, z_unload_nic)
{
	ASSERT_EQ(0, kav_nic_unload());
	EXPECT_NE(0, access(KAV_NIC_PATH, F_OK));
}

TEST_HARNESS_MAIN
