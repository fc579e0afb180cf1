// SPDX-License-Identifier: GPL-2.0
/*
 * The generic netlink family "kav" doing its normal job, as an
 * administrator (root in the VM) sees it: grants of every selector added,
 * listed and revoked; dumps of domains, AVs and entries that name the
 * right owners and sizes, including dumps too long for one message;
 * statistics and denial counters; grant limits; the admin multicast group
 * announcing grants, revocations and AVs; and a kernel consumer (the
 * kav_nic test module) keeping an AV alive after its process let go.
 * Attacks on the family are in kav_attack_test.c.
 */
#include <sched.h>
#include <sys/klog.h>
#include <sys/socket.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

#define UID_T		1003	/* the tenant whose objects are listed */
#define GID_T		2003

KAV_NIC_UNLOAD_AT_EXIT();

FIXTURE(nl) {
	struct kav_nl nl;
};

FIXTURE_SETUP(nl)
{
	ASSERT_EQ(0, kav_nl_open(&self->nl)) {
		TH_LOG("no kav generic netlink family: is kav.ko loaded?");
	}
}

FIXTURE_TEARDOWN(nl)
{
	kav_nl_close(&self->nl);
}

static struct kav_nl_grant *find_grant(struct kav_nl_grant *g, size_t n,
				       uint32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (g[i].id == id)
			return &g[i];
	return NULL;
}

/* The cookie of the network namespace a socket lives in. */
static uint64_t netns_cookie_of_socket(int fd)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		return 0;
	return cookie;
}

/* ============================================================ grants */

TEST_F_TIMEOUT(nl, grant_add_list_del_every_selector, 120)
{
	static struct kav_nl_grant list[256];
	struct kav_grant_spec s[6] = {
		{ .vni = 0x5101, .sel_type = KAV_SEL_UID, .sel_id = UID_T,
		  .limit_entries = 1000, .limit_avs = 3 },
		{ .vni = 0x5102, .sel_type = KAV_SEL_GID, .sel_id = GID_T },
		{ .vni = 0x5103, .sel_type = KAV_SEL_CGROUP,
		  .cgroup_path = "kav_nl_test" },
		{ .vni = 0x5104, .sel_type = KAV_SEL_CGROUP },
		{ .vni = 0x5105, .sel_type = KAV_SEL_NETNS },
		{ .vni = 0x5106, .sel_type = KAV_SEL_UID, .sel_id = 0 },
	};
	struct kav_nl_grant got[6], *g;
	uint64_t cg, cookie;
	size_t n, i;
	int nsfd;

	ASSERT_EQ(0, kav_cgroup_make("kav_nl_test"));
	cg = kav_cgroup_id("kav_nl_test");
	ASSERT_NE(0, cg);
	s[3].cgroup_id = kav_cgroup_id("");
	nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, nsfd);
	s[4].netns_fd = nsfd;
	cookie = netns_cookie_of_socket(self->nl.fd);

	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s[i], &got[i])) {
			TH_LOG("grant %zu: %s", i, self->nl.ext_msg);
		}
		/* The reply describes the grant as the kernel holds it. */
		EXPECT_EQ(s[i].vni, got[i].vni);
		EXPECT_EQ(s[i].sel_type, got[i].sel_type);
		if (i)
			EXPECT_LT(got[i - 1].id, got[i].id);
	}
	close(nsfd);
	EXPECT_EQ(UID_T, got[0].sel_id);
	EXPECT_EQ(1000, got[0].limit_entries);
	EXPECT_EQ(3, got[0].limit_avs);
	EXPECT_EQ(GID_T, got[1].sel_id);
	EXPECT_EQ(cg, got[2].cgroup_id);
	EXPECT_EQ(s[3].cgroup_id, got[3].cgroup_id);
	EXPECT_NE(0, got[4].netns_cookie);
	if (cookie)
		EXPECT_EQ(cookie, got[4].netns_cookie);
	EXPECT_EQ(0, got[5].sel_id);

	ASSERT_EQ(0, kav_nl_grants(&self->nl, list, 256, &n));
	for (i = 0; i < 6; i++) {
		g = find_grant(list, n, got[i].id);
		ASSERT_NE(NULL, g);
		EXPECT_EQ(0, memcmp(g, &got[i], sizeof(*g)));
		EXPECT_EQ(0, g->nr_entries);
		EXPECT_EQ(0, g->nr_avs);
	}

	for (i = 0; i < 6; i++)
		EXPECT_EQ(0, kav_nl_grant_del(&self->nl, got[i].id));
	ASSERT_EQ(0, kav_nl_grants(&self->nl, list, 256, &n));
	for (i = 0; i < 6; i++)
		EXPECT_EQ(NULL, find_grant(list, n, got[i].id));
	/* Revoking twice: the second finds nothing. */
	EXPECT_EQ(-ENOENT, kav_nl_grant_del(&self->nl, got[0].id));
	EXPECT_TRUE(self->nl.has_ext_msg);
	/* A grant holds its cgroup; the cgroup can go once it is revoked. */
	EXPECT_EQ(0, kav_cgroup_remove("kav_nl_test"));
}

/* More grants than one dump message holds: each listed exactly once. */
TEST_F_TIMEOUT(nl, grant_dump_spans_messages, 120)
{
	enum { N = 300 };
	static struct kav_nl_grant list[N + 64];
	static uint32_t ids[N];
	size_t n, i, seen;

	for (i = 0; i < N; i++)
		ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, 0x5200 + i, 20000 + i,
					      &ids[i]));
	ASSERT_EQ(0, kav_nl_grants(&self->nl, list, N + 64, &n));
	for (i = 0, seen = 0; i < n; i++) {
		if (list[i].vni >= 0x5200 && list[i].vni < 0x5200 + N) {
			EXPECT_EQ(ids[list[i].vni - 0x5200], list[i].id);
			EXPECT_EQ(20000 + list[i].vni - 0x5200, list[i].sel_id);
			seen++;
		}
		if (i)
			EXPECT_LT(list[i - 1].id, list[i].id);
	}
	EXPECT_EQ(N, seen);
	for (i = 0; i < N; i++)
		EXPECT_EQ(0, kav_nl_grant_del(&self->nl, ids[i]));
}

/* ====================================================== listings */

struct owner {
	uint32_t domain_id, av_id, uid, gid, pid, nr_avs, vni, format;
	uint64_t cgroup_id, netns_cookie, nr_entries, mem;
	bool has_vni;
	int found;
};

static void owner_from(struct owner *o, const struct kav_nl_attrs *at)
{
	o->domain_id = kav_nl_u32(at->a[KAV_A_DOMAIN_ID]);
	o->av_id = kav_nl_u32(at->a[KAV_A_AV_ID]);
	o->uid = kav_nl_u32(at->a[KAV_A_UID]);
	o->gid = kav_nl_u32(at->a[KAV_A_GID]);
	o->pid = kav_nl_u32(at->a[KAV_A_PID]);
	o->cgroup_id = kav_nl_u64(at->a[KAV_A_CGROUP_ID]);
	o->netns_cookie = kav_nl_u64(at->a[KAV_A_NETNS_COOKIE]);
	o->nr_avs = kav_nl_u32(at->a[KAV_A_NR_AVS]);
	o->nr_entries = kav_nl_u64(at->a[KAV_A_NR_ENTRIES]);
	o->mem = kav_nl_u64(at->a[KAV_A_MEM_BYTES]);
	o->format = kav_nl_u32(at->a[KAV_A_ADDR_FORMAT]);
	o->has_vni = at->a[KAV_A_VNI] != NULL;
	o->vni = kav_nl_u32(at->a[KAV_A_VNI]);
}

struct find_pid {
	uint32_t pid;
	struct owner o[8];
	int n;
	int total;
};

/* Collect the objects opened by one process. */
static int find_pid_cb(const struct nlmsghdr *nlh,
		       const struct genlmsghdr *gh,
		       const struct kav_nl_attrs *at, void *arg)
{
	struct find_pid *f = arg;
	struct owner o = { 0 };

	f->total++;
	owner_from(&o, at);
	if (o.pid == f->pid && f->n < 8)
		f->o[f->n++] = o;
	return 0;
}

struct entry_list {
	uint64_t next;		/* expected index */
	uint64_t n;
	uint32_t av_id, vni;
	bool bad, revoked;
	int nr_revoked;
};

static int entry_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		    const struct kav_nl_attrs *at, void *arg)
{
	struct entry_list *l = arg;
	struct sockaddr_in sin;
	uint64_t idx = kav_nl_u64(at->a[KAV_A_ENTRY_INDEX]);

	if (gh->cmd != KAV_GENL_CMD_ENTRY_GET ||
	    kav_nl_u32(at->a[KAV_A_AV_ID]) != l->av_id ||
	    !at->a[KAV_A_ENTRY_INDEX] || !at->a[KAV_A_ENTRY_ADDR] ||
	    kav_nl_len(at->a[KAV_A_ENTRY_ADDR]) != sizeof(sin) ||
	    kav_nl_u32(at->a[KAV_A_VNI]) != l->vni || idx != l->next) {
		l->bad = true;
		return 0;
	}
	memcpy(&sin, kav_nl_data(at->a[KAV_A_ENTRY_ADDR]), sizeof(sin));
	if (sin.sin_family != AF_INET ||
	    ntohl(sin.sin_addr.s_addr) != 0x0a500000u + (uint32_t)idx ||
	    ntohs(sin.sin_port) != 8000)
		l->bad = true;
	if (at->a[KAV_A_KEY_REVOKED])
		l->nr_revoked++;
	l->next = idx + 1;
	l->n++;
	return 0;
}

#define NR_ENTRIES	3000	/* ~60 dump messages' worth */
#define VNI_L		0x5301

struct lister {
	struct kav_sync sync;
	uint64_t map_size;
};

/* uid 1003: a keyed domain, an AV with NR_ENTRIES, a keyless domain. */
static int tenant_lists(void *arg)
{
	static struct sockaddr_in sin[NR_ENTRIES];
	struct lister *l = arg;
	int dom, dom2, av;
	struct kav_av_create c = { 0 };
	uint32_t i;

	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(0, kav_domain_set_key(dom, VNI_L));
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, &c);
	CK(av >= 0);
	for (i = 0; i < NR_ENTRIES; i++)
		sin[i] = kav_sin(0x0a500000 + i, 8000);
	CK_EQ(0, kav_insert_keyed(av, sin, NR_ENTRIES, NULL, NULL, NULL));
	dom2 = kav_open_domain();
	CK(dom2 >= 0);
	l->map_size = c.map_size;
	CK_EQ(0, kav_tell_parent(&l->sync, 'L'));
	CK_EQ('x', kav_wait_parent(&l->sync));
	close(av);
	close(dom);
	close(dom2);
	return 0;
}

TEST_F_TIMEOUT(nl, dumps_show_owners_and_sizes, 120)
{
	struct kav_as_arg as = { UID_T, UID_T, tenant_lists, NULL };
	struct lister *l = kav_shared(sizeof(*l));
	struct find_pid doms = { 0 }, avs = { 0 };
	struct entry_list el = { 0 };
	struct owner *keyed = NULL, *plain = NULL;
	struct kav_nl_stats st;
	uint32_t g;
	uint64_t cookie;
	int i;
	pid_t pid;

	ASSERT_NE(NULL, l);
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, VNI_L, UID_T, &g));
	ASSERT_EQ(0, kav_sync_init(&l->sync));
	as.arg = l;
	pid = kav_spawn(kav_as_trampoline, &as);
	ASSERT_EQ('L', kav_wait_child(&l->sync));
	cookie = netns_cookie_of_socket(self->nl.fd);

	/* Domains: the tenant's two, with owner and key. */
	doms.pid = pid;
	ASSERT_EQ(0, kav_nl_dump(&self->nl, KAV_GENL_CMD_DOMAIN_GET, -1,
				 find_pid_cb, &doms));
	ASSERT_EQ(2, doms.n);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(UID_T, doms.o[i].uid);
		EXPECT_EQ(UID_T, doms.o[i].gid);
		EXPECT_EQ(kav_cgroup_id(""), doms.o[i].cgroup_id);
		if (cookie)
			EXPECT_EQ(cookie, doms.o[i].netns_cookie);
		EXPECT_NE(0, doms.o[i].domain_id);
		if (doms.o[i].has_vni)
			keyed = &doms.o[i];
		else
			plain = &doms.o[i];
	}
	ASSERT_NE(NULL, keyed);
	ASSERT_NE(NULL, plain);
	EXPECT_EQ(VNI_L, keyed->vni);
	EXPECT_EQ(1, keyed->nr_avs);
	EXPECT_EQ(0, plain->nr_avs);

	/* The AV: its domain, owner, format, size. */
	avs.pid = pid;
	ASSERT_EQ(0, kav_nl_dump(&self->nl, KAV_GENL_CMD_AV_GET, -1,
				 find_pid_cb, &avs));
	ASSERT_EQ(1, avs.n);
	EXPECT_EQ(keyed->domain_id, avs.o[0].domain_id);
	EXPECT_EQ(UID_T, avs.o[0].uid);
	EXPECT_EQ(KAV_ADDR_SOCKADDR_IN, avs.o[0].format);
	EXPECT_EQ(NR_ENTRIES, avs.o[0].nr_entries);
	/*
	 * 3000 IPv4 entries of 32 bytes and their fi_addrs (8 bytes): at
	 * least 24 + 6 pages + the header.
	 */
	EXPECT_LE(4096ull * (1 + (NR_ENTRIES * 32 + 4095) / 4096 +
			     (NR_ENTRIES * 8 + 4095) / 4096),
		  avs.o[0].mem);

	/* Its entries, over many messages, each once and in order. */
	el.av_id = avs.o[0].av_id;
	el.vni = VNI_L;
	ASSERT_EQ(0, kav_nl_dump(&self->nl, KAV_GENL_CMD_ENTRY_GET,
				 el.av_id, entry_cb, &el));
	EXPECT_FALSE(el.bad);
	EXPECT_EQ(NR_ENTRIES, el.n);
	EXPECT_EQ(0, el.nr_revoked);

	/* The totals include them. */
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &st));
	EXPECT_LE(2, st.domains);
	EXPECT_LE(1, st.avs);
	EXPECT_LE(NR_ENTRIES, st.entries);
	EXPECT_LE(avs.o[0].mem, st.mem_bytes);
	EXPECT_LE(1, st.grants);

	/* Revoked: the entries are listed as such. */
	ASSERT_EQ(0, kav_nl_grant_del(&self->nl, g));
	memset(&el, 0, sizeof(el));
	el.av_id = avs.o[0].av_id;
	el.vni = VNI_L;
	ASSERT_EQ(0, kav_nl_dump(&self->nl, KAV_GENL_CMD_ENTRY_GET,
				 el.av_id, entry_cb, &el));
	EXPECT_FALSE(el.bad);
	EXPECT_EQ(NR_ENTRIES, el.n);
	EXPECT_EQ(NR_ENTRIES, el.nr_revoked);

	kav_tell_child(&l->sync, 'x');
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&l->sync);

	/* Gone with their process. */
	memset(&avs, 0, sizeof(avs));
	avs.pid = pid;
	ASSERT_EQ(0, kav_nl_dump(&self->nl, KAV_GENL_CMD_AV_GET, -1,
				 find_pid_cb, &avs));
	EXPECT_EQ(0, avs.n);
	memset(&doms, 0, sizeof(doms));
	doms.pid = pid;
	ASSERT_EQ(0, kav_nl_dump(&self->nl, KAV_GENL_CMD_DOMAIN_GET, -1,
				 find_pid_cb, &doms));
	EXPECT_EQ(0, doms.n);
}

/* Collect the ids of the objects one process opened. */
struct id_list {
	uint32_t pid;
	uint32_t ids[512];
	int n;
	bool unordered;
};

static int id_list_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		      const struct kav_nl_attrs *at, void *arg)
{
	struct id_list *l = arg;
	uint32_t id = kav_nl_u32(at->a[gh->cmd == KAV_GENL_CMD_AV_GET ?
				       KAV_A_AV_ID : KAV_A_DOMAIN_ID]);

	if (kav_nl_u32(at->a[KAV_A_PID]) != l->pid || l->n >= 512)
		return 0;
	if (l->n && l->ids[l->n - 1] >= id)
		l->unordered = true;
	l->ids[l->n++] = id;
	return 0;
}

/* Many AVs and domains: the dumps resume correctly across messages. */
TEST_F_TIMEOUT(nl, av_dump_spans_messages, 120)
{
	enum { N = 150 };
	static struct id_list l;
	int dom[N], av[N], i;

	for (i = 0; i < N; i++) {
		dom[i] = kav_open_domain();
		ASSERT_LE(0, dom[i]);
		av[i] = kav_create_av(dom[i], KAV_ADDR_SOCKADDR_IN6, NULL);
		ASSERT_LE(0, av[i]);
	}
	memset(&l, 0, sizeof(l));
	l.pid = getpid();
	ASSERT_EQ(0, kav_nl_dump(&self->nl, KAV_GENL_CMD_AV_GET, -1,
				 id_list_cb, &l));
	EXPECT_EQ(N, l.n);		/* each once ... */
	EXPECT_FALSE(l.unordered);	/* ... in id order */
	memset(&l, 0, sizeof(l));
	l.pid = getpid();
	ASSERT_EQ(0, kav_nl_dump(&self->nl, KAV_GENL_CMD_DOMAIN_GET, -1,
				 id_list_cb, &l));
	EXPECT_EQ(N, l.n);
	EXPECT_FALSE(l.unordered);
	for (i = 0; i < N; i++) {
		close(av[i]);
		close(dom[i]);
	}
}

/* ============================================== statistics, limits */

#define VNI_NOGRANT	0x5401
#define VNI_LIMITED	0x5402
#define VNI_REVOKED	0x5404

/* uid 1003: one denial of each kind but keyless, and limits. */
static int tenant_denials(void *arg)
{
	struct kav_sync *s = arg;
	uint64_t h, hr, fi;
	int dom, av, av2;

	dom = kav_open_domain();
	CK(dom >= 0);
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	CK(av >= 0);
	/* no grant */
	CK_EQ(-EACCES, kav_key_insert(av, VNI_NOGRANT, &h));
	/* limits: 2 entries, 1 AV */
	CK_EQ(0, kav_key_insert(av, VNI_LIMITED, &h));
	CK_EQ(0, kav_insert_one(av, 0x0a540001, 1, h, &fi));
	CK_EQ(0, kav_insert_one(av, 0x0a540002, 1, h, &fi));
	CK_EQ(-EDQUOT, kav_insert_one(av, 0x0a540003, 1, h, NULL));
	av2 = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	CK(av2 >= 0);
	CK_EQ(-EDQUOT, kav_key_insert(av2, VNI_LIMITED, &h));
	close(av2);
	/* Room again after a removal. */
	CK_EQ(0, kav_remove(av, &fi, 1, NULL));
	CK_EQ(0, kav_insert_one(av, 0x0a540003, 1, h, &fi));
	/* revoked, between the key insert and the entry insert */
	CK_EQ(0, kav_key_insert(av, VNI_REVOKED, &hr));
	CK_EQ(0, kav_tell_parent(s, 'r'));
	CK_EQ('R', kav_wait_parent(s));
	CK_EQ(-EKEYREVOKED, kav_insert_one(av, 0x0a540004, 1, hr, &fi));
	close(av);
	close(dom);
	return 0;
}

static int tenant_keyless(void *arg)
{
	int dom = kav_open_domain(), av;
	uint64_t fi;

	(void)arg;
	CK(dom >= 0);
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	CK(av >= 0);
	CK_EQ(-EACCES, kav_insert_one(av, 0x0a540010, 1, KAV_NONE, &fi));
	close(av);
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(nl, stats_count_denials_and_limits, 120)
{
	struct kav_grant_spec lim = { .vni = VNI_LIMITED,
				      .sel_type = KAV_SEL_UID,
				      .sel_id = UID_T, .limit_entries = 2,
				      .limit_avs = 1 };
	struct kav_as_arg as = { UID_T, UID_T, tenant_denials, NULL };
	struct kav_sync *s = kav_shared(sizeof(*s));
	static struct kav_nl_grant list[256];
	struct kav_nl_stats s0, s1, s2;
	struct kav_nl_grant g, *gl;
	int keyless = kav_get_allow_keyless();
	uint32_t rid;
	size_t n;
	pid_t pid;

	ASSERT_NE(NULL, s);
	ASSERT_LE(0, keyless);
	ASSERT_EQ(0, kav_sync_init(s));
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &lim, &g));
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, VNI_REVOKED, UID_T, &rid));
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &s0));
	as.arg = s;
	pid = kav_spawn(kav_as_trampoline, &as);
	ASSERT_EQ('r', kav_wait_child(s));
	ASSERT_EQ(0, kav_nl_grant_del(&self->nl, rid));
	kav_tell_child(s, 'R');
	EXPECT_EQ(0, kav_reap(pid));
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &s1));
	EXPECT_EQ(s0.deny_no_grant + 1, s1.deny_no_grant);
	EXPECT_EQ(s0.deny_limit + 2, s1.deny_limit);
	EXPECT_EQ(s0.deny_revoked + 1, s1.deny_revoked);
	EXPECT_EQ(s0.deny_keyless, s1.deny_keyless);

	/* The grant's own counters went with the tenant's AV. */
	ASSERT_EQ(0, kav_nl_grants(&self->nl, list, 256, &n));
	gl = find_grant(list, n, g.id);
	ASSERT_NE(NULL, gl);
	EXPECT_EQ(0, gl->nr_entries);
	EXPECT_EQ(0, gl->nr_avs);

	ASSERT_EQ(0, kav_set_allow_keyless(false));
	EXPECT_EQ(0, kav_run_as(UID_T, tenant_keyless, NULL));
	ASSERT_EQ(0, kav_set_allow_keyless(keyless));
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &s2));
	EXPECT_EQ(s1.deny_keyless + 1, s2.deny_keyless);
	EXPECT_EQ(s1.deny_no_grant, s2.deny_no_grant);
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, g.id));
	kav_sync_close(s);
}

/* uid 1003 asks for a key it has no grant for. */
static int tenant_one_denial(void *arg)
{
	uint32_t *vni = arg;
	int dom = kav_open_domain();

	CK(dom >= 0);
	CK_EQ(-EACCES, kav_domain_set_key(dom, *vni));
	close(dom);
	return 0;
}

/* A denial is logged with who, which key and which operation. */
TEST_F_TIMEOUT(nl, denials_are_logged, 120)
{
	uint32_t vni = 0x5409;
	char want[64], *log, *line, *end;
	int len, n;

	/* Past the rate limit's interval (5 s) of earlier denials. */
	sleep(6);
	EXPECT_EQ(0, kav_run_as(UID_T, tenant_one_denial, &vni));
	len = klogctl(10, NULL, 0);		/* SYSLOG_ACTION_SIZE_BUFFER */
	ASSERT_LT(0, len);
	log = malloc(len + 1);
	ASSERT_NE(NULL, log);
	n = klogctl(3, log, len);		/* SYSLOG_ACTION_READ_ALL */
	ASSERT_LT(0, n);
	log[n] = '\0';
	snprintf(want, sizeof(want), "vni %u,", vni);
	ASSERT_NE(NULL, strstr(log, want)) {
		TH_LOG("no \"%s\" in the kernel log", want);
	}
	/* The line it is on. */
	line = strstr(log, want);
	end = strchr(line, '\n');
	if (end)
		*end = '\0';
	while (line > log && line[-1] != '\n')
		line--;
	TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "denied"));
	EXPECT_NE(NULL, strstr(line, "no grant"));
	EXPECT_NE(NULL, strstr(line, "uid 1003"));
	free(log);
}

/* uid 1003 holds entries under a limited grant: the dump counts them. */
static int tenant_holds_entries(void *arg)
{
	struct kav_sync *s = arg;
	int dom = kav_open_domain(), av;
	uint64_t h, fi;

	CK(dom >= 0);
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	CK(av >= 0);
	CK_EQ(0, kav_key_insert(av, 0x5403, &h));
	CK_EQ(0, kav_insert_one(av, 0x0a540030, 1, h, &fi));
	CK_EQ(0, kav_insert_one(av, 0x0a540031, 1, h, &fi));
	CK_EQ(0, kav_tell_parent(s, 'h'));
	CK_EQ('x', kav_wait_parent(s));
	close(av);
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(nl, grant_counts_its_entries_and_avs, 120)
{
	struct kav_as_arg as = { UID_T, UID_T, tenant_holds_entries, NULL };
	struct kav_sync *s = kav_shared(sizeof(*s));
	static struct kav_nl_grant list[256];
	struct kav_nl_grant *gl;
	uint32_t id;
	size_t n;
	pid_t pid;

	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, kav_sync_init(s));
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, 0x5403, UID_T, &id));
	as.arg = s;
	pid = kav_spawn(kav_as_trampoline, &as);
	ASSERT_EQ('h', kav_wait_child(s));
	ASSERT_EQ(0, kav_nl_grants(&self->nl, list, 256, &n));
	gl = find_grant(list, n, id);
	ASSERT_NE(NULL, gl);
	EXPECT_EQ(2, gl->nr_entries);
	EXPECT_EQ(1, gl->nr_avs);
	kav_tell_child(s, 'x');
	EXPECT_EQ(0, kav_reap(pid));
	ASSERT_EQ(0, kav_nl_grants(&self->nl, list, 256, &n));
	gl = find_grant(list, n, id);
	ASSERT_NE(NULL, gl);
	EXPECT_EQ(0, gl->nr_entries);
	EXPECT_EQ(0, gl->nr_avs);
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, id));
	kav_sync_close(s);
}

/* ========================================================= multicast */

struct event {
	uint8_t cmd;
	uint32_t grant_id, av_id, uid, vni, pid;
};

struct events {
	struct event e[32];
	int n;
};

static int event_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		    const struct kav_nl_attrs *at, void *arg)
{
	struct events *ev = arg;
	struct event *e;

	if (ev->n >= 32)
		return 0;
	e = &ev->e[ev->n++];
	e->cmd = gh->cmd;
	e->grant_id = kav_nl_u32(at->a[KAV_A_GRANT_ID]);
	e->av_id = kav_nl_u32(at->a[KAV_A_AV_ID]);
	e->uid = kav_nl_u32(at->a[KAV_A_UID]);
	e->vni = kav_nl_u32(at->a[KAV_A_VNI]);
	e->pid = kav_nl_u32(at->a[KAV_A_PID]);
	return 0;
}

static int tenant_one_av(void *arg)
{
	int dom = kav_open_domain(), av;

	(void)arg;
	CK(dom >= 0);
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	CK(av >= 0);
	close(av);
	close(dom);
	return 0;
}

TEST_F_TIMEOUT(nl, admin_group_announces, 120)
{
	struct kav_nl mon;
	struct events ev = { 0 };
	struct kav_nl_grant g;
	struct kav_grant_spec s = { .vni = 0x5501, .sel_type = KAV_SEL_UID,
				    .sel_id = UID_T };
	int i, got;

	ASSERT_EQ(0, kav_nl_open(&mon));
	ASSERT_EQ(0, kav_nl_join_admin(&mon));

	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &g));
	EXPECT_EQ(0, kav_run_as(UID_T, tenant_one_av, NULL));
	ASSERT_EQ(0, kav_nl_grant_del(&self->nl, g.id));

	for (i = 0; i < 20 && ev.n < 4; i++) {
		got = kav_nl_recv_notifs(&mon, 200, event_cb, &ev);
		ASSERT_LE(0, got);
	}
	ASSERT_EQ(4, ev.n);
	EXPECT_EQ(KAV_GENL_CMD_GRANT_ADD, ev.e[0].cmd);
	EXPECT_EQ(g.id, ev.e[0].grant_id);
	EXPECT_EQ(0x5501, ev.e[0].vni);
	EXPECT_EQ(KAV_GENL_CMD_AV_NEW, ev.e[1].cmd);
	EXPECT_EQ(UID_T, ev.e[1].uid);
	EXPECT_NE(0, ev.e[1].av_id);
	EXPECT_EQ(KAV_GENL_CMD_AV_DEL, ev.e[2].cmd);
	EXPECT_EQ(ev.e[1].av_id, ev.e[2].av_id);
	EXPECT_EQ(KAV_GENL_CMD_GRANT_DEL, ev.e[3].cmd);
	EXPECT_EQ(g.id, ev.e[3].grant_id);
	/* Nothing else was announced. */
	EXPECT_EQ(0, kav_nl_recv_notifs(&mon, 100, NULL, NULL));
	kav_nl_close(&mon);
}

/* ================================================= a kernel consumer */

TEST_F_TIMEOUT(nl, consumer_keeps_av_alive, 120)
{
	struct kav_nl mon;
	struct events ev = { 0 };
	struct find_pid f = { 0 };
	struct kav_nic_send s = { 0 };
	int dom, av, nic, i;
	uint64_t fi;

	ASSERT_EQ(0, kav_nic_load());
	ASSERT_EQ(0, kav_nl_open(&mon));
	ASSERT_EQ(0, kav_nl_join_admin(&mon));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	ASSERT_LE(0, av);
	/* allow_keyless is on for these tests (kav_test_util.h). */
	ASSERT_EQ(0, kav_insert_one(av, 0x0a560001, 9000, KAV_NONE, &fi));
	nic = kav_nic_open();
	ASSERT_LE(0, nic);
	ASSERT_EQ(0, kav_nic_bind(nic, av));
	close(av);
	close(dom);

	/* The process let go; the NIC's reference keeps the AV. */
	EXPECT_EQ(0, kav_nic_send(nic, fi, &s));
	EXPECT_EQ(sizeof(struct sockaddr_in), s.addr_len);
	EXPECT_EQ(KAV_ADDR_SOCKADDR_IN, s.addr_format);
	f.pid = getpid();
	ASSERT_EQ(0, kav_nl_dump(&self->nl, KAV_GENL_CMD_AV_GET, -1,
				 find_pid_cb, &f));
	EXPECT_EQ(1, f.n);
	EXPECT_EQ(1, f.o[0].nr_entries);

	close(nic);
	for (i = 0; i < 20 && !ev.n; i++)
		kav_nl_recv_notifs(&mon, 200, event_cb, &ev);
	EXPECT_LE(1, ev.n);
	for (i = 0; i < ev.n; i++)
		if (ev.e[i].cmd == KAV_GENL_CMD_AV_DEL)
			EXPECT_EQ(f.o[0].av_id, ev.e[i].av_id);
	memset(&f, 0, sizeof(f));
	f.pid = getpid();
	ASSERT_EQ(0, kav_nl_dump(&self->nl, KAV_GENL_CMD_AV_GET, -1,
				 find_pid_cb, &f));
	EXPECT_EQ(0, f.n);
	kav_nl_close(&mon);
	EXPECT_EQ(0, kav_nic_unload());
}

/* ============================================ tags, GRANT_SET, GET */

#define VNI_TAG		0x5701
#define VNI_SET		0x5711
#define VNI_INTR	0x5721
#define NR_INTR		600

/* Same key, selector and tag: the same grant, whatever the limits. */
TEST_F_TIMEOUT(nl, grant_add_is_idempotent_per_tag, 120)
{
	struct kav_grant_spec s = { .vni = VNI_TAG, .sel_type = KAV_SEL_UID,
				    .sel_id = UID_T, .limit_entries = 10,
				    .tag = "job-7" };
	static struct kav_nl_grant list[256];
	struct kav_nl_grant a, a2, b, b2, c, d, e, f, got;
	char tag63[KAV_TAG_MAX + 1], tag64[KAV_TAG_MAX + 2];
	size_t n;

	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &a));
	EXPECT_FALSE(a.updated);
	EXPECT_STREQ("job-7", a.tag);
	EXPECT_EQ(10, a.limit_entries);
	/* Again with other limits: the same grant, changed in place. */
	s.limit_entries = 20;
	s.limit_avs = 3;
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &a2));
	EXPECT_TRUE(a2.updated);
	EXPECT_EQ(a.id, a2.id);
	EXPECT_EQ(20, a2.limit_entries);
	EXPECT_EQ(3, a2.limit_avs);
	/* A limit the request leaves out is no limit. */
	s.limit_avs = 0;
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &a2));
	EXPECT_EQ(a.id, a2.id);
	EXPECT_EQ(0, a2.limit_avs);
	EXPECT_EQ(20, a2.limit_entries);
	/* No tag is a tag of its own, and idempotent too. */
	s.tag = NULL;
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &b));
	EXPECT_NE(a.id, b.id);
	EXPECT_FALSE(b.updated);
	EXPECT_STREQ("", b.tag);
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &b2));
	EXPECT_EQ(b.id, b2.id);
	EXPECT_TRUE(b2.updated);
	/* Another key, uid, or selector type under the tag: other grants. */
	s.tag = "job-7";
	s.vni = VNI_TAG + 1;
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &c));
	s.vni = VNI_TAG;
	s.sel_id = UID_T + 1;
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &d));
	s.sel_type = KAV_SEL_GID;
	s.sel_id = UID_T;
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &e));
	EXPECT_FALSE(c.updated || d.updated || e.updated);
	EXPECT_NE(a.id, c.id);
	EXPECT_NE(a.id, d.id);
	EXPECT_NE(a.id, e.id);
	EXPECT_NE(d.id, e.id);

	/* The kernel filters dumps by tag, by key, or both. */
	ASSERT_EQ(0, kav_nl_grants_filtered(&self->nl, list, 256, &n, -1,
					    "job-7"));
	EXPECT_EQ(4, n);
	EXPECT_NE(NULL, find_grant(list, n, c.id));
	EXPECT_EQ(NULL, find_grant(list, n, b.id));
	ASSERT_EQ(0, kav_nl_grants_filtered(&self->nl, list, 256, &n,
					    VNI_TAG, NULL));
	EXPECT_EQ(4, n);
	EXPECT_NE(NULL, find_grant(list, n, b.id));
	EXPECT_EQ(NULL, find_grant(list, n, c.id));
	ASSERT_EQ(0, kav_nl_grants_filtered(&self->nl, list, 256, &n,
					    VNI_TAG, "job-7"));
	EXPECT_EQ(3, n);
	ASSERT_EQ(0, kav_nl_grants_filtered(&self->nl, list, 256, &n, -1,
					    "job-8"));
	EXPECT_EQ(0, n);

	/* GRANT_GET of one grant. */
	ASSERT_EQ(0, kav_nl_grant_get(&self->nl, a.id, &got));
	EXPECT_EQ(a.id, got.id);
	EXPECT_STREQ("job-7", got.tag);
	EXPECT_EQ(20, got.limit_entries);

	/* Tags up to KAV_TAG_MAX bytes. */
	memset(tag63, 't', KAV_TAG_MAX);
	tag63[KAV_TAG_MAX] = '\0';
	memset(tag64, 't', KAV_TAG_MAX + 1);
	tag64[KAV_TAG_MAX + 1] = '\0';
	s.tag = tag63;
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &f));
	EXPECT_STREQ(tag63, f.tag);
	s.tag = tag64;
	EXPECT_EQ(-EINVAL, kav_nl_grant_add(&self->nl, &s, NULL));

	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, a.id));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, b.id));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, c.id));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, d.id));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, e.id));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, f.id));
	/* A revoked grant is not found again: a new add makes a new one. */
	s.tag = "job-7";
	s.sel_type = KAV_SEL_UID;
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &a2));
	EXPECT_FALSE(a2.updated);
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, a2.id));
}

/* GRANT_SET: limits change in place; nothing is revoked. */
TEST_F_TIMEOUT(nl, grant_set_changes_limits_in_place, 120)
{
	struct kav_grant_spec s = { .vni = VNI_SET, .sel_type = KAV_SEL_UID,
				    .sel_id = 0, .limit_avs = 1 };
	struct kav_nl_grant g, r;
	static struct kav_nl_msg m;
	int dom, av1, av2, av3;
	uint64_t fi;

	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &g));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	ASSERT_EQ(0, kav_domain_set_key(dom, VNI_SET));
	av1 = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	ASSERT_LE(0, av1);
	EXPECT_EQ(-EDQUOT, kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL));
	/* Raised: a second AV fits. */
	ASSERT_EQ(0, kav_nl_grant_set(&self->nl, g.id, -1, 2, NULL, &r));
	EXPECT_EQ(g.id, r.id);
	EXPECT_EQ(2, r.limit_avs);
	av2 = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	ASSERT_LE(0, av2);
	/* Lowered below what is in use: new charges fail, nothing is lost. */
	ASSERT_EQ(0, kav_nl_grant_set(&self->nl, g.id, 1, 1, "lowered", &r));
	EXPECT_EQ(2, r.nr_avs);
	EXPECT_EQ(1, r.limit_entries);
	EXPECT_STREQ("lowered", r.tag);
	av3 = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	EXPECT_EQ(-EDQUOT, av3);
	EXPECT_EQ(0, kav_insert_one(av1, 0x0a570001, 1, KAV_NONE, &fi));
	EXPECT_EQ(-EDQUOT, kav_insert_one(av2, 0x0a570002, 1, KAV_NONE, &fi));
	/* The tag alone; a limit of 0 is none. */
	ASSERT_EQ(0, kav_nl_grant_set(&self->nl, g.id, 0, -1, "", &r));
	EXPECT_STREQ("", r.tag);
	EXPECT_EQ(1, r.limit_avs);
	EXPECT_EQ(0, kav_insert_one(av2, 0x0a570002, 1, KAV_NONE, &fi));
	ASSERT_EQ(0, kav_nl_grant_get(&self->nl, g.id, &r));
	EXPECT_EQ(2, r.nr_entries);

	/* Refusals, each with its reason. */
	EXPECT_EQ(-ENOENT, kav_nl_grant_set(&self->nl, 0x7fffffff, 1, -1,
					    NULL, NULL));
	EXPECT_NE(NULL, strstr(self->nl.ext_msg, "no such grant"));
	EXPECT_EQ(-EINVAL, kav_nl_grant_set(&self->nl, g.id, -1, -1, NULL,
					    NULL));
	EXPECT_NE(NULL, strstr(self->nl.ext_msg, "nothing to change"));
	kav_nl_req(&self->nl, &m, KAV_GENL_CMD_GRANT_SET, 0);
	kav_nl_put_u32(&m, KAV_A_LIMIT_AVS, 1);
	EXPECT_EQ(-EINVAL, kav_nl_talk(&self->nl, &m, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->nl.ext_msg, "KAV_A_GRANT_ID"));
	EXPECT_EQ(-ENOENT, kav_nl_grant_get(&self->nl, 0x7fffffff, &r));
	kav_nl_req(&self->nl, &m, KAV_GENL_CMD_GRANT_GET, 0);
	EXPECT_EQ(-EINVAL, kav_nl_talk(&self->nl, &m, NULL, NULL));

	close(av1);
	close(av2);
	close(dom);
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, g.id));
}

/*
 * Read a grant dump in small pieces; with @other, add a grant between
 * the first two reads. Counts the grant messages and those (and the
 * final DONE) that carry NLM_F_DUMP_INTR.
 */
static int dump_in_pieces(struct kav_nl *nl, struct kav_nl *other,
			  int *msgs, int *intr, uint32_t *added)
{
	static struct kav_nl_msg m;
	static char buf[8192];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int reads = 0;

	*msgs = *intr = 0;
	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_GET, NLM_F_DUMP);
	m.nlh.nlmsg_seq = ++nl->seq;
	if (sendto(nl->fd, m.buf, m.nlh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(nl->fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h;
		size_t left;

		if (n < 0)
			return -errno;
		if (++reads == 1 && other &&
		    kav_nl_grant_uid(other, VNI_INTR + 1, 0, added))
			return -EIO;
		left = (size_t)n;
		for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				(*intr)++;
			if (h->nlmsg_type == NLMSG_DONE)
				return reads;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((const struct nlmsgerr *)NLMSG_DATA(h))->error ?: -EIO;
			(*msgs)++;
		}
	}
}

/* A dump that a change overtakes says so (NLM_F_DUMP_INTR). */
TEST_F_TIMEOUT(nl, grant_dump_flags_interruption, 300)
{
	static uint32_t ids[NR_INTR];
	struct kav_nl fresh, other;
	int i, msgs, intr, reads;
	uint32_t added;

	for (i = 0; i < NR_INTR; i++)
		ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, VNI_INTR,
					      60000 + i, &ids[i]));
	/*
	 * Fresh sockets that never read more than 8 KiB: the kernel sizes
	 * a dump's pieces by the largest read the socket has seen.
	 */
	ASSERT_EQ(0, kav_nl_socket(&fresh));
	fresh.family = self->nl.family;
	ASSERT_EQ(0, kav_nl_open(&other));
	reads = dump_in_pieces(&fresh, NULL, &msgs, &intr, &added);
	ASSERT_LT(2, reads);
	EXPECT_LE(NR_INTR, msgs);
	EXPECT_EQ(0, intr);
	kav_nl_close(&fresh);

	ASSERT_EQ(0, kav_nl_socket(&fresh));
	fresh.family = self->nl.family;
	reads = dump_in_pieces(&fresh, &other, &msgs, &intr, &added);
	ASSERT_LT(2, reads);
	EXPECT_LT(0, intr) {
		TH_LOG("%d reads, %d messages, none flagged interrupted",
		       reads, msgs);
	}
	kav_nl_close(&fresh);
	EXPECT_EQ(0, kav_nl_grant_del(&other, added));
	kav_nl_close(&other);
	for (i = 0; i < NR_INTR; i++)
		EXPECT_EQ(0, kav_nl_grant_del(&self->nl, ids[i]));
}

/* A dump of an AV that does not exist fails, saying why. */
TEST_F(nl, entry_dump_of_no_av_fails)
{
	EXPECT_EQ(-ENOENT, kav_nl_dump(&self->nl, KAV_GENL_CMD_ENTRY_GET,
				       0x7ffffff0, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->nl.ext_msg, "no such AV"));
	EXPECT_EQ(-EINVAL, kav_nl_dump(&self->nl, KAV_GENL_CMD_ENTRY_GET, -1,
				       NULL, NULL));
}

/* ================================================ per-command policies */

/* @cmd with one attribute it does not take: refused, the extack says so. */
static int foreign_attr(struct kav_nl *nl, uint8_t cmd, uint16_t flags,
			int64_t own_u32_type, uint32_t own, uint16_t type)
{
	static struct kav_nl_msg m;
	uint32_t junk = 1;

	kav_nl_req(nl, &m, cmd, flags);
	if (own_u32_type >= 0)
		kav_nl_put_u32(&m, (uint16_t)own_u32_type, own);
	kav_nl_put(&m, type, &junk, sizeof(junk));
	return kav_nl_talk(nl, &m, NULL, NULL);
}

#define VNI_POLICY	0x5731

/*
 * Each command has its own policy: an attribute meant for another
 * command is EINVAL with an extack message and the offending attribute,
 * and changes nothing (with one flat policy it was ignored).
 */
TEST_F(nl, each_command_refuses_foreign_attributes)
{
	static const struct {
		uint8_t cmd;
		uint16_t flags;
		int64_t own;		/* a u32 attribute it takes, or -1 */
		uint16_t foreign;
	} c[] = {
		{ KAV_GENL_CMD_STATS_GET, 0, -1, KAV_A_VNI },
		{ KAV_GENL_CMD_DOMAIN_GET, NLM_F_DUMP, -1, KAV_A_AV_ID },
		{ KAV_GENL_CMD_AV_GET, NLM_F_DUMP, -1, KAV_A_GRANT_ID },
		{ KAV_GENL_CMD_ENTRY_GET, NLM_F_DUMP, KAV_A_AV_ID,
		  KAV_A_LIMIT_AVS },
		{ KAV_GENL_CMD_GRANT_DEL, 0, KAV_A_GRANT_ID, KAV_A_AV_ID },
		{ KAV_GENL_CMD_GRANT_SET, 0, KAV_A_GRANT_ID, KAV_A_SEL_ID },
		{ KAV_GENL_CMD_GRANT_GET, 0, KAV_A_GRANT_ID, KAV_A_AV_ID },
		{ KAV_GENL_CMD_GRANT_GET, NLM_F_DUMP, KAV_A_VNI,
		  KAV_A_LIMIT_AVS },
		{ KAV_GENL_CMD_AV_PIN, 0, KAV_A_AV_ID, KAV_A_VNI },
		{ KAV_GENL_CMD_AV_UNPIN, 0, KAV_A_AV_ID, KAV_A_GRANT_ID },
	};
	struct kav_grant_spec s = { .vni = VNI_POLICY, .sel_type = KAV_SEL_UID,
				    .sel_id = 0 };
	static struct kav_nl_msg m;
	struct kav_nl_grant g;
	size_t i, n;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		EXPECT_EQ(-EINVAL, foreign_attr(&self->nl, c[i].cmd,
						c[i].flags, c[i].own,
						0x7ffffff0, c[i].foreign)) {
			TH_LOG("command %u took attribute %u", c[i].cmd,
			       c[i].foreign);
		}
		EXPECT_TRUE(self->nl.has_ext_msg);
		EXPECT_TRUE(self->nl.has_ext_offs);
	}
	/* A grant add with an AV id: refused, and no grant was added. */
	kav_nl_grant_msg(&self->nl, &m, &s);
	kav_nl_put_u32(&m, KAV_A_AV_ID, 1);
	EXPECT_EQ(-EINVAL, kav_nl_talk(&self->nl, &m, NULL, NULL));
	EXPECT_TRUE(self->nl.has_ext_msg);
	ASSERT_EQ(0, kav_nl_grants_filtered(&self->nl, &g, 1, &n, VNI_POLICY,
					    NULL));
	EXPECT_EQ(0, n);
	/* A request names one grant; the filters are the dump's. */
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &g));
	EXPECT_EQ(-EINVAL, foreign_attr(&self->nl, KAV_GENL_CMD_GRANT_GET, 0,
					KAV_A_GRANT_ID, g.id, KAV_A_VNI));
	EXPECT_NE(NULL, strstr(self->nl.ext_msg, "filter of the dump"));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, g.id));
}

/* ================================================================ tags */

#define VNI_TAGS	0x5741

/* GRANT_ADD of VNI_TAGS to uid @uid with a tag of @len raw bytes. */
static int grant_raw_tag(struct kav_nl *nl, uint32_t uid, const char *tag,
			 size_t len, uint32_t *id)
{
	struct kav_grant_spec s = { .vni = VNI_TAGS, .sel_type = KAV_SEL_UID,
				    .sel_id = uid };
	static struct kav_nl_msg m;
	struct kav_nl_grant g = { 0 };
	int ret;

	kav_nl_grant_msg(nl, &m, &s);
	kav_nl_put(&m, KAV_A_TAG, tag, len);
	ret = kav_nl_talk(nl, &m, kav_nl_grant_reply_cb, &g);
	if (id)
		*id = g.id;
	if (!ret && g.id && !id)
		kav_nl_grant_del(nl, g.id);	/* accepted: not wanted */
	return ret;
}

/*
 * Tags are printable ASCII (0x20..0x7e), one NUL-terminated string:
 * control bytes (tenants read tags through WHOAMI), bytes above 0x7e and
 * a NUL inside the attribute are refused, with the reason.
 */
TEST_F(nl, tags_are_printable_ascii)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *why;
	} bad[] = {
		{ "esc\x1b[2J", 8, "printable ASCII" },
		{ "tab\there", 9, "printable ASCII" },
		{ "del\x7f", 5, "printable ASCII" },
		{ "caf\xc3\xa9", 6, "printable ASCII" },
		{ "ab\0cd", 6, "NUL" },		/* stored as "ab" before */
		{ "ab\0cd", 5, "NUL" },
		{ "ab\0\0", 4, "NUL" },
	};
	struct kav_grant_spec s = { .vni = VNI_TAGS, .sel_type = KAV_SEL_UID,
				    .sel_id = 5, .tag = "ok" };
	struct kav_nl_grant g, r, list[4];
	static struct kav_nl_msg m;
	struct kav_av_create c;
	uint32_t id;
	size_t i, n;
	int dom, av;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, grant_raw_tag(&self->nl, 4, bad[i].bytes,
						 bad[i].len, NULL)) {
			TH_LOG("tag %zu accepted", i);
		}
		EXPECT_NE(NULL, strstr(self->nl.ext_msg, bad[i].why)) {
			TH_LOG("tag %zu: \"%s\"", i, self->nl.ext_msg);
		}
	}
	ASSERT_EQ(0, kav_nl_grants_filtered(&self->nl, list, 4, &n, VNI_TAGS,
					    NULL));
	EXPECT_EQ(0, n);
	/* Space and every other printable byte are fine. */
	ASSERT_EQ(0, grant_raw_tag(&self->nl, 4, "a b ~!", 7, &id));
	ASSERT_EQ(0, kav_nl_grant_get(&self->nl, id, &r));
	EXPECT_STREQ("a b ~!", r.tag);
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, id));

	/* GRANT_SET, a dump's tag filter and AV_PIN check tags too. */
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &g));
	EXPECT_EQ(-EINVAL, kav_nl_grant_set(&self->nl, g.id, -1, -1, "bell\a",
					    NULL));
	EXPECT_NE(NULL, strstr(self->nl.ext_msg, "printable ASCII"));
	ASSERT_EQ(0, kav_nl_grant_get(&self->nl, g.id, &r));
	EXPECT_STREQ("ok", r.tag);
	EXPECT_EQ(-EINVAL, kav_nl_grants_filtered(&self->nl, list, 4, &n, -1,
						  "nl\n"));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, g.id));

	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	av = kav_av_named(dom, "nl-tagged", 0, 0600, 0, KAV_ADDR_SOCKADDR_IN,
			  &c);
	ASSERT_LE(0, av);
	kav_nl_req(&self->nl, &m, KAV_GENL_CMD_AV_PIN, 0);
	kav_nl_put_u32(&m, KAV_A_AV_ID, c.av_id);
	kav_nl_put(&m, KAV_A_TAG, "pin\0x", 6);
	EXPECT_EQ(-EINVAL, kav_nl_talk(&self->nl, &m, NULL, NULL));
	EXPECT_NE(NULL, strstr(self->nl.ext_msg, "NUL"));
	/* Not pinned by the refused request: unpinning finds no pin. */
	kav_nl_req(&self->nl, &m, KAV_GENL_CMD_AV_UNPIN, 0);
	kav_nl_put_u32(&m, KAV_A_AV_ID, c.av_id);
	EXPECT_EQ(-EALREADY, kav_nl_talk(&self->nl, &m, NULL, NULL));
	close(av);
	close(dom);
}

/*
 * GRANT_ADD finds a grant by key, selector and tag: GRANT_SET must not
 * rename a grant onto another's three (EEXIST, nothing changed); the
 * same tag under another selector or key is no clash.
 */
TEST_F(nl, grant_set_keeps_tags_unique)
{
	struct kav_grant_spec s = { .vni = VNI_TAGS, .sel_type = KAV_SEL_UID,
				    .sel_id = 6, .tag = "one" };
	struct kav_nl_grant a, b, o, r;

	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &a));
	s.tag = "two";
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &b));
	s.sel_id = 7;
	s.tag = "three";
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &o));

	EXPECT_EQ(-EEXIST, kav_nl_grant_set(&self->nl, b.id, 5, -1, "one",
					    NULL));
	EXPECT_NE(NULL, strstr(self->nl.ext_msg, "another grant"));
	ASSERT_EQ(0, kav_nl_grant_get(&self->nl, b.id, &r));
	EXPECT_STREQ("two", r.tag);
	EXPECT_EQ(0, r.limit_entries);		/* nothing changed */
	/* Its own tag again, another selector's tag: fine. */
	EXPECT_EQ(0, kav_nl_grant_set(&self->nl, b.id, -1, -1, "two", NULL));
	EXPECT_EQ(0, kav_nl_grant_set(&self->nl, b.id, -1, -1, "three",
				      &r));
	EXPECT_STREQ("three", r.tag);
	/* The idempotent add still finds exactly one grant. */
	s.sel_id = 6;
	s.tag = "one";
	s.limit_avs = 3;
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &r));
	EXPECT_TRUE(r.updated);
	EXPECT_EQ(a.id, r.id);
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, a.id));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, b.id));
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, o.id));
}

/* =========================================== entry dumps: consistency */

#define VNI_EDUMP	0x5751
#define NR_EDUMP	2000	/* dozens of 8 KiB reads */

/*
 * Dump AV @av_id's entries, reading 8 KiB at a time on a fresh socket
 * (the kernel sizes a dump's pieces by the largest read it has seen);
 * @between runs after the first read. Counts entry messages, those
 * (and the DONE) flagged NLM_F_DUMP_INTR, and entries shown revoked.
 */
struct edump {
	int msgs, intr, revoked, reads;
};

static int entry_dump_in_pieces(uint16_t family, uint32_t av_id,
				int (*between)(void *), void *arg,
				struct edump *d)
{
	static struct kav_nl_msg m;
	static char buf[8192];
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct kav_nl nl;
	int ret = -EIO;

	memset(d, 0, sizeof(*d));
	if (kav_nl_socket(&nl))
		return -EIO;
	nl.family = family;
	kav_nl_req(&nl, &m, KAV_GENL_CMD_ENTRY_GET, NLM_F_DUMP);
	kav_nl_put_u32(&m, KAV_A_AV_ID, av_id);
	m.nlh.nlmsg_seq = ++nl.seq;
	if (sendto(nl.fd, m.buf, m.nlh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		goto out;
	for (;;) {
		ssize_t n = recv(nl.fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h;
		size_t left;

		if (n < 0)
			goto out;
		if (++d->reads == 1 && between && between(arg))
			goto out;
		left = (size_t)n;
		for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			const struct nlattr *tb[KAV_A_MAX + 1];

			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				d->intr++;
			if (h->nlmsg_type == NLMSG_DONE) {
				ret = 0;
				goto out;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				ret = ((const struct nlmsgerr *)NLMSG_DATA(h))->error ?: -EIO;
				goto out;
			}
			kav_nl_parse((const char *)NLMSG_DATA(h) + GENL_HDRLEN,
				     h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN,
				     tb, KAV_A_MAX);
			if (tb[KAV_A_KEY_REVOKED])
				d->revoked++;
			d->msgs++;
		}
	}
out:
	kav_nl_close(&nl);
	return ret;
}

struct edump_ctx {
	struct kav_nl *nl;
	int other_av;		/* another AV of the same tenant */
	uint32_t grant;		/* behind the dumped AV's key */
	uint32_t unrelated;	/* a grant added by the activity */
	int n;
};

/* Another AV's batches (under the same key), and a grant of another key. */
static int unrelated_activity(void *p)
{
	struct edump_ctx *x = p;
	uint64_t fi;
	int i;

	for (i = 0; i < 32; i++)
		if (kav_insert_one(x->other_av, 0x0a5a0000 + x->n++, 9,
				   KAV_NONE, &fi) ||
		    kav_remove(x->other_av, &fi, 1, NULL))
			return -1;
	return kav_nl_grant_uid(x->nl, VNI_EDUMP + 1, 0, &x->unrelated);
}

static int revoke_the_key(void *p)
{
	struct edump_ctx *x = p;

	return kav_nl_grant_del(x->nl, x->grant);
}

/*
 * An entry dump's NLM_F_DUMP_INTR covers exactly what it lists, the AV's
 * entries and their key slots: another AV's inserts and removals and a
 * grant of another key leave it alone; a revocation of the listed
 * entries' key, which changes no entry but their key slot, is flagged.
 */
TEST_F_TIMEOUT(nl, entry_dump_flags_what_it_lists, 300)
{
	static struct sockaddr_in sin[NR_EDUMP];
	struct kav_av_create c = { 0 };
	struct edump_ctx x = { .nl = &self->nl };
	struct edump d;
	int dom, av, i;

	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, VNI_EDUMP, 0, &x.grant));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	ASSERT_EQ(0, kav_domain_set_key(dom, VNI_EDUMP));
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, &c);
	ASSERT_LE(0, av);
	x.other_av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	ASSERT_LE(0, x.other_av);
	for (i = 0; i < NR_EDUMP; i++)
		sin[i] = kav_sin(0x0a590000 + i, 8000);
	ASSERT_EQ(0, kav_insert_keyed(av, sin, NR_EDUMP, NULL, NULL, NULL));

	ASSERT_EQ(0, entry_dump_in_pieces(self->nl.family, c.av_id,
					  unrelated_activity, &x, &d));
	ASSERT_LT(2, d.reads);
	EXPECT_EQ(NR_EDUMP, d.msgs);
	EXPECT_EQ(0, d.intr) {
		TH_LOG("%d reads: flagged although nothing listed changed",
		       d.reads);
	}
	EXPECT_EQ(0, d.revoked);
	EXPECT_EQ(0, kav_nl_grant_del(&self->nl, x.unrelated));

	ASSERT_EQ(0, entry_dump_in_pieces(self->nl.family, c.av_id,
					  revoke_the_key, &x, &d));
	ASSERT_LT(2, d.reads);
	EXPECT_EQ(NR_EDUMP, d.msgs);
	EXPECT_LT(0, d.revoked);	/* the later pieces show it */
	EXPECT_LT(0, d.intr) {
		TH_LOG("%d reads, %d shown revoked, none flagged interrupted",
		       d.reads, d.revoked);
	}
	close(x.other_av);
	close(av);
	close(dom);
}

/* uid 1003 tries root's 0600 named AV. */
static int tenant_opens_private(void *arg)
{
	struct kav_av_create out;
	int dom = kav_open_domain();

	(void)arg;
	CK(dom >= 0);
	CK_EQ(-EACCES, kav_av_named(dom, "nl-private", KAV_AV_OWNER, 0, 0,
				    KAV_ADDR_SOCKADDR_IN, &out));
	/* Told why: the AV's mode and owner. */
	CK_EQ(KAV_AV_DENIED_MODE, out.result);
	CK_EQ(0600, out.mode);
	CK_EQ(0, out.owner_uid);
	/* Another refusal (a format mismatch) says nothing of the mode. */
	CK_EQ(-EINVAL, kav_av_named(dom, "nl-private", KAV_AV_OWNER, 0, 0,
				    KAV_ADDR_SOCKADDR_IN6, &out));
	CK_EQ(0, out.result);
	close(dom);
	return 0;
}

/* Named-AV mode denials are counted and logged like the others. */
TEST_F_TIMEOUT(nl, mode_denials_are_counted_and_logged, 120)
{
	struct kav_nl_stats s0, s1;
	char *log, *line;
	int dom, av, len, n;

	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	av = kav_av_named(dom, "nl-private", 0, 0600, 0, KAV_ADDR_SOCKADDR_IN,
			  NULL);
	ASSERT_LE(0, av);
	sleep(6);		/* past the rate limit of earlier denials */
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &s0));
	EXPECT_EQ(0, kav_run_as(UID_T, tenant_opens_private, NULL));
	ASSERT_EQ(0, kav_nl_stats(&self->nl, &s1));
	EXPECT_EQ(s0.deny_mode + 1, s1.deny_mode);
	EXPECT_EQ(s0.deny_no_grant, s1.deny_no_grant);
	close(av);
	close(dom);

	len = klogctl(10, NULL, 0);
	ASSERT_LT(0, len);
	log = malloc(len + 1);
	ASSERT_NE(NULL, log);
	n = klogctl(3, log, len);
	ASSERT_LT(0, n);
	log[n] = '\0';
	line = strstr(log, "named AV mode bits 0600");
	ASSERT_NE(NULL, line) {
		TH_LOG("no mode denial in the kernel log");
	}
	EXPECT_EQ(line, strstr(line, "named AV mode bits 0600, pid "));
	EXPECT_NE(NULL, strstr(line, "uid 1003"));
	free(log);
}

TEST_HARNESS_MAIN
