// SPDX-License-Identifier: GPL-2.0
/*
 * KAV_IOC_DOMAIN_WHOAMI: a tenant, without privilege, learns the identity
 * its domain captured and the grants that match it, and nothing about
 * anyone else's grants. Also: the size-first protocol (count, then
 * fetch), element sizes larger and smaller than the kernel's, every
 * EINVAL and EFAULT, ids seen from inside a user namespace, and the
 * status bits (keyed, revoked, allow_keyless).
 */
#include <sched.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

#define UID_W		1005
#define GID_W		2005
#define VNI_W		0x5901		/* uid UID_W */
#define VNI_WG		0x5902		/* gid GID_W */
#define VNI_OTHER	0x5903		/* uid UID_W + 1: never shown */

static int whoami(int dom, struct kav_whoami *w, struct kav_grant_info *g,
		  uint32_t max)
{
	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	w->max_grants = max;
	w->grant_size = sizeof(*g);
	w->grants = (uintptr_t)g;
	return ioctl(dom, KAV_IOC_DOMAIN_WHOAMI, w) ? -errno : 0;
}

static const struct kav_grant_info *find_info(const struct kav_grant_info *g,
					      uint32_t n, uint32_t vni)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (g[i].vni == vni)
			return &g[i];
	return NULL;
}

/* The cgroup v2 id of this process: its directory's inode number. */
static uint64_t own_cgroup_id(void)
{
	char line[512], path[600];
	struct stat st;
	FILE *f = fopen("/proc/self/cgroup", "r");

	if (!f)
		return 0;
	path[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(path, sizeof(path), "/sys/fs/cgroup%s",
				 line + 3);
		}
	fclose(f);
	return path[0] && !stat(path, &st) ? st.st_ino : 0;
}

/* uid UID_W: counts first, then fetches; sees only its own grants. */
static int tenant_asks(void *arg)
{
	const uint32_t *ids = arg;
	struct kav_grant_info g[8];
	const struct kav_grant_info *gi;
	struct kav_whoami w;
	int dom = kav_open_domain();

	CK(dom >= 0);
	CK_EQ(0, whoami(dom, &w, NULL, 0));
	CK_EQ(UID_W, w.uid);
	CK_EQ(GID_W, w.gid);
	CK_EQ(2, w.nr_grants);
	CK_EQ(0, w.status & (KAV_WHOAMI_KEYED | KAV_WHOAMI_KEY_REVOKED));
	CK(w.cgroup_id != 0);
	CK_EQ(own_cgroup_id(), w.cgroup_id);
	CK(w.netns_cookie != 0);
	CK(w.ipc_ns != 0);
	memset(g, 0xa5, sizeof(g));
	CK_EQ(0, whoami(dom, &w, g, w.nr_grants));
	CK_EQ(2, w.nr_grants);
	gi = find_info(g, 2, VNI_W);
	CK(gi != NULL);
	CK_EQ(ids[0], gi->id);
	CK_EQ(KAV_SEL_UID, gi->sel_type);
	CK_EQ(UID_W, gi->sel_id);
	CK_EQ(100, gi->limit_entries);
	CK_EQ(2, gi->limit_avs);
	CK_EQ(0, strcmp(gi->tag, "whoami-test"));
	gi = find_info(g, 2, VNI_WG);
	CK(gi != NULL);
	CK_EQ(ids[1], gi->id);
	CK_EQ(KAV_SEL_GID, gi->sel_type);
	CK_EQ(GID_W, gi->sel_id);
	CK_EQ(0, gi->tag[0]);
	/* Room for one: one written, the count says there are two. */
	memset(g, 0xa5, sizeof(g));
	CK_EQ(0, whoami(dom, &w, g, 1));
	CK_EQ(2, w.nr_grants);
	CK(g[0].vni == VNI_W || g[0].vni == VNI_WG);
	CK_EQ(0xa5a5a5a5, g[1].id);	/* untouched */

	/* A keyed domain says so, and that its grant was revoked. */
	CK_EQ(0, kav_domain_set_key(dom, VNI_W));
	CK_EQ(0, whoami(dom, &w, NULL, 0));
	CK(w.status & KAV_WHOAMI_KEYED);
	CK_EQ(VNI_W, w.key_vni);
	CK_EQ(0, w.status & KAV_WHOAMI_KEY_REVOKED);
	close(dom);
	return 0;
}

TEST(tenant_sees_its_identity_and_own_grants)
{
	struct kav_grant_spec s = { .vni = VNI_W, .sel_type = KAV_SEL_UID,
				    .sel_id = UID_W, .limit_entries = 100,
				    .limit_avs = 2, .tag = "whoami-test" };
	struct kav_nl_grant a, b, c;
	struct kav_as_arg as = { UID_W, GID_W, tenant_asks, NULL };
	uint32_t ids[2];
	struct kav_nl nl;

	ASSERT_EQ(0, kav_nl_open(&nl));
	ASSERT_EQ(0, kav_nl_grant_add(&nl, &s, &a));
	s = (struct kav_grant_spec){ .vni = VNI_WG, .sel_type = KAV_SEL_GID,
				     .sel_id = GID_W };
	ASSERT_EQ(0, kav_nl_grant_add(&nl, &s, &b));
	s = (struct kav_grant_spec){ .vni = VNI_OTHER,
				     .sel_type = KAV_SEL_UID,
				     .sel_id = UID_W + 1 };
	ASSERT_EQ(0, kav_nl_grant_add(&nl, &s, &c));
	ids[0] = a.id;
	ids[1] = b.id;
	as.arg = ids;
	EXPECT_EQ(0, kav_reap(kav_spawn(kav_as_trampoline, &as)));
	EXPECT_EQ(0, kav_nl_grant_del(&nl, a.id));
	EXPECT_EQ(0, kav_nl_grant_del(&nl, b.id));
	EXPECT_EQ(0, kav_nl_grant_del(&nl, c.id));
	kav_nl_close(&nl);
}

/* Root's domain: allow_keyless and a revoked key show in the status. */
TEST(status_bits_follow_the_node)
{
	int keyless = kav_get_allow_keyless();
	struct kav_whoami w;
	struct kav_nl nl;
	uint32_t id;
	int dom;

	ASSERT_LE(0, keyless);
	ASSERT_EQ(0, kav_nl_open(&nl));
	ASSERT_EQ(0, kav_nl_grant_uid(&nl, VNI_W, 0, &id));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	ASSERT_EQ(0, kav_set_allow_keyless(true));
	ASSERT_EQ(0, whoami(dom, &w, NULL, 0));
	EXPECT_EQ(0, w.uid);
	EXPECT_TRUE(w.status & KAV_WHOAMI_KEYLESS_OK);
	ASSERT_EQ(0, kav_set_allow_keyless(false));
	ASSERT_EQ(0, whoami(dom, &w, NULL, 0));
	EXPECT_FALSE(w.status & KAV_WHOAMI_KEYLESS_OK);
	ASSERT_EQ(0, kav_domain_set_key(dom, VNI_W));
	ASSERT_EQ(0, kav_nl_grant_del(&nl, id));
	ASSERT_EQ(0, whoami(dom, &w, NULL, 0));
	EXPECT_EQ(KAV_WHOAMI_KEYED | KAV_WHOAMI_KEY_REVOKED, w.status);
	EXPECT_EQ(VNI_W, w.key_vni);
	/* The revoked grant is no longer listed. */
	EXPECT_EQ(0, w.nr_grants);
	ASSERT_EQ(0, kav_set_allow_keyless(keyless));
	close(dom);
	kav_nl_close(&nl);
}

/* Every refusal, and element sizes other than the kernel's. */
TEST(arguments_are_checked)
{
	struct kav_grant_info g[2];
	struct {
		struct kav_grant_info gi;
		uint8_t tail[24];
	} big[1];
	struct kav_whoami w;
	struct kav_nl nl;
	uint32_t id;
	void *ro;
	int dom, av;

	ASSERT_EQ(0, kav_nl_open(&nl));
	ASSERT_EQ(0, kav_nl_grant_uid(&nl, VNI_W, 0, &id));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);

	ASSERT_EQ(0, whoami(dom, &w, g, 2));
	ASSERT_LE(1, w.nr_grants);
	/* Larger elements: the extra bytes are zeroed. */
	memset(big, 0xa5, sizeof(big));
	memset(&w, 0, sizeof(w));
	w.size = sizeof(w);
	w.max_grants = 1;
	w.grant_size = sizeof(big[0]);
	w.grants = (uintptr_t)big;
	ASSERT_EQ(0, ioctl(dom, KAV_IOC_DOMAIN_WHOAMI, &w));
	EXPECT_EQ(0, big[0].tail[0]);
	EXPECT_EQ(0, big[0].tail[sizeof(big[0].tail) - 1]);
	EXPECT_NE(0, big[0].gi.id);

	/* flags, reserved, element sizes out of range. */
	w.grant_size = sizeof(g[0]);
	w.flags = 1;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_DOMAIN_WHOAMI, &w));
	EXPECT_EQ(EINVAL, errno);
	w.flags = 0;
	w.__reserved = 1;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_DOMAIN_WHOAMI, &w));
	EXPECT_EQ(EINVAL, errno);
	w.__reserved = 0;
	w.grant_size = 111;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_DOMAIN_WHOAMI, &w));
	EXPECT_EQ(EINVAL, errno);
	w.grant_size = 4097;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_DOMAIN_WHOAMI, &w));
	EXPECT_EQ(EINVAL, errno);
	/* Sizes do not matter when nothing is asked for. */
	w.max_grants = 0;
	EXPECT_EQ(0, ioctl(dom, KAV_IOC_DOMAIN_WHOAMI, &w));
	/* An array the kernel cannot write. */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-EFAULT, whoami(dom, &w, ro, 1));
	EXPECT_EQ(-EFAULT, whoami(dom, &w, (void *)8, 1));
	munmap(ro, 4096);
	/* A structure shorter than the first version. */
	w.size = offsetof(struct kav_whoami, __reserved);
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_DOMAIN_WHOAMI, &w));
	EXPECT_EQ(EINVAL, errno);
	/* It is a domain command: an AV fd does not know it. */
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	ASSERT_LE(0, av);
	EXPECT_EQ(-ENOTTY, whoami(av, &w, NULL, 0));
	close(av);
	close(dom);
	EXPECT_EQ(0, kav_nl_grant_del(&nl, id));
	kav_nl_close(&nl);
}

/* Root of its own user namespace (uid UID_W outside): ids as it sees them. */
static int userns_asks(void *arg)
{
	struct kav_grant_info g[4];
	const struct kav_grant_info *gi;
	struct kav_whoami w;
	char map[64];
	int dom;

	(void)arg;
	/* Dumpable again after the uid change, so /proc/self is its own. */
	CK_EQ(0, prctl(PR_SET_DUMPABLE, 1));
	CK_EQ(0, unshare(CLONE_NEWUSER));
	CK_EQ(0, kav_write_path("/proc/self/setgroups", "deny"));
	snprintf(map, sizeof(map), "0 %d 1", UID_W);
	CK_EQ(0, kav_write_path("/proc/self/uid_map", map));
	snprintf(map, sizeof(map), "0 %d 1", GID_W);
	CK_EQ(0, kav_write_path("/proc/self/gid_map", map));
	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(0, whoami(dom, &w, g, 4));
	CK_EQ(0, w.uid);
	CK_EQ(0, w.gid);
	CK_EQ(1, w.nr_grants);
	gi = find_info(g, 1, VNI_W);
	CK(gi != NULL);
	CK_EQ(0, gi->sel_id);		/* UID_W is this namespace's 0 */
	close(dom);
	return 0;
}

TEST(ids_are_seen_from_the_callers_user_namespace)
{
	struct kav_as_arg as = { UID_W, GID_W, userns_asks, NULL };
	struct kav_nl nl;
	uint32_t id;

	ASSERT_EQ(0, kav_nl_open(&nl));
	ASSERT_EQ(0, kav_nl_grant_uid(&nl, VNI_W, UID_W, &id));
	EXPECT_EQ(0, kav_reap(kav_spawn(kav_as_trampoline, &as)));
	EXPECT_EQ(0, kav_nl_grant_del(&nl, id));
	kav_nl_close(&nl);
}

TEST_HARNESS_MAIN
