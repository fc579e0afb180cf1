// SPDX-License-Identifier: GPL-2.0
/*
 * Named AVs through the raw uAPI (KAV_AV_NAMED, KAV_AV_EXCL,
 * KAV_AV_RDONLY, KAV_AV_OWNER): one table shared by every opener of a
 * name in an IPC namespace, names per owner (each uid has its own; another
 * user's AV is opened only with KAV_AV_OWNER, never created), read-only
 * opens that only map, mode bits against the opener's identity, lifetime
 * (fds, mappings, administrators' pins), namespaces that never meet, and
 * kernel consumers holding a foreign opener to its own grants.
 */
#include <sched.h>

#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

#define PAGE		4096UL
#define OTHER_UID	1000
#define OTHER_GID	1000
#define VNI		4100

/* KAV_IOC_AV_CREATE with a name; the fd, or -errno. */
static int named(int dom, const char *name, uint32_t flags, uint32_t mode,
		 uint32_t fmt, struct kav_av_create *out)
{
	struct kav_av_create c = {
		.size = sizeof(c),
		.flags = flags,
		.addr_format = fmt,
		.name = (uintptr_t)name,
		.name_len = name ? (uint32_t)strlen(name) : 0,
		.mode = mode,
	};

	if (ioctl(dom, KAV_IOC_AV_CREATE, &c))
		return -errno;
	if (out)
		*out = c;
	return c.fd;
}

static int named_in(int dom, const char *name, uint32_t flags,
		    struct kav_av_create *out)
{
	return named(dom, name, flags, 0, KAV_ADDR_SOCKADDR_IN, out);
}

/* named_in() among @owner's names (KAV_AV_OWNER). */
static int owned_in(int dom, const char *name, uint32_t flags, uint32_t owner,
		    struct kav_av_create *out)
{
	struct kav_av_create c = {
		.size = sizeof(c),
		.flags = KAV_AV_NAMED | KAV_AV_OWNER | flags,
		.addr_format = KAV_ADDR_SOCKADDR_IN,
		.name = (uintptr_t)name,
		.name_len = (uint32_t)strlen(name),
		.owner_uid = owner,
	};

	if (ioctl(dom, KAV_IOC_AV_CREATE, &c))
		return -errno;
	if (out)
		*out = c;
	return c.fd;
}

static const volatile uint64_t *fi_addrs(const struct kav_map *m)
{
	return (const volatile uint64_t *)((const char *)m->h +
					   m->h->fi_addrs_offset);
}

/* Open @name read-only in a fresh domain: -ENOENT once it is gone. */
static int probe(const char *name)
{
	int dom = kav_open_domain(), av;

	if (dom < 0)
		return -errno;
	av = named_in(dom, name, KAV_AV_NAMED | KAV_AV_RDONLY, NULL);
	close(dom);
	if (av >= 0)
		close(av);
	return av < 0 ? av : 0;
}

TEST(create_then_open_shares_one_table)
{
	struct kav_av_create ca, cb;
	struct kav_map ma = { 0 }, mb = { 0 };
	uint64_t fi[3], one;
	int da = kav_open_domain(), db = kav_open_domain(), a, b, i;

	ASSERT_LE(0, da);
	ASSERT_LE(0, db);
	/* MPI's names end in a newline; it is part of the name. */
	a = named_in(da, "FI_NAMED_AV_0\n", KAV_AV_NAMED, &ca);
	ASSERT_LE(0, a);
	EXPECT_EQ(KAV_AV_CREATED, ca.result);
	b = named_in(db, "FI_NAMED_AV_0\n", KAV_AV_NAMED, &cb);
	ASSERT_LE(0, b);
	EXPECT_EQ(0, cb.result);
	EXPECT_EQ(ca.av_id, cb.av_id);
	EXPECT_EQ(ca.map_size, cb.map_size);
	/* Without the newline it is another name. */
	EXPECT_EQ(-ENOENT, probe("FI_NAMED_AV_0"));

	ASSERT_EQ(0, kav_map_av(a, ca.map_size, &ma));
	ASSERT_EQ(0, kav_map_av(b, cb.map_size, &mb));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, kav_insert_one(a, 0x0a000001 + i, 7000, KAV_NONE,
					    &fi[i]));
	/* Seen at once through the other opener's own mapping. */
	EXPECT_EQ(3, mb.h->nr_valid);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ((uint64_t)i, fi[i]);
		EXPECT_EQ(fi[i], fi_addrs(&mb)[i]);
	}
	/* A removal through b is seen through a. */
	one = fi[1];
	ASSERT_EQ(0, kav_remove(b, &one, 1, NULL));
	EXPECT_EQ(2, ma.h->nr_valid);
	EXPECT_EQ(KAV_NONE, fi_addrs(&ma)[1]);
	EXPECT_EQ(fi[2], fi_addrs(&ma)[2]);
	kav_unmap_av(&ma);
	kav_unmap_av(&mb);
	close(a);
	close(b);
	close(da);
	close(db);
	EXPECT_EQ(-ENOENT, probe("FI_NAMED_AV_0\n"));
}

TEST(bad_requests)
{
	char big[KAV_NAME_MAX + 2], nul[] = "ab\0cd";
	struct kav_av_create c = {
		.size = sizeof(c), .addr_format = KAV_ADDR_SOCKADDR_IN,
		.flags = KAV_AV_NAMED, .name = (uintptr_t)nul, .name_len = 5,
	};
	int dom = kav_open_domain();

	ASSERT_LE(0, dom);
	/* A NUL inside the name. */
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	/* Unreadable name. */
	c.name = 8;
	c.name_len = 3;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, &c));
	EXPECT_EQ(EFAULT, errno);
	/* Empty, too long; the longest allowed works. */
	EXPECT_EQ(-EINVAL, named_in(dom, "", KAV_AV_NAMED, NULL));
	memset(big, 'n', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	EXPECT_EQ(-EINVAL, named_in(dom, big, KAV_AV_NAMED, NULL));
	big[KAV_NAME_MAX] = '\0';
	c.fd = named_in(dom, big, KAV_AV_NAMED, NULL);
	EXPECT_LE(0, c.fd);
	close(c.fd);
	/* Modes: read and write bits only. */
	EXPECT_EQ(-EINVAL, named(dom, "m", KAV_AV_NAMED, 0700,
				 KAV_ADDR_SOCKADDR_IN, NULL));
	EXPECT_EQ(-EINVAL, named(dom, "m", KAV_AV_NAMED, 01600,
				 KAV_ADDR_SOCKADDR_IN, NULL));
	EXPECT_EQ(-EINVAL, named(dom, "m", KAV_AV_NAMED, 0611,
				 KAV_ADDR_SOCKADDR_IN, NULL));
	/* Flag combinations; a name or mode without KAV_AV_NAMED. */
	EXPECT_EQ(-EINVAL, named_in(dom, "m", KAV_AV_NAMED | KAV_AV_EXCL |
				    KAV_AV_RDONLY, NULL));
	EXPECT_EQ(-EINVAL, named_in(dom, "m", KAV_AV_RDONLY, NULL));
	EXPECT_EQ(-EINVAL, named_in(dom, "m", KAV_AV_EXCL, NULL));
	EXPECT_EQ(-EINVAL, named_in(dom, "m", 0, NULL));
	EXPECT_EQ(-EINVAL, named(dom, NULL, 0, 0600, KAV_ADDR_SOCKADDR_IN,
				 NULL));
	EXPECT_EQ(-EINVAL, named_in(dom, "m", KAV_AV_NAMED | 0x10, NULL));
	/* A bad format even for an existing name (unless read-only, 0). */
	EXPECT_EQ(-EINVAL, named(dom, "m", KAV_AV_NAMED, 0, 99, NULL));
	/* An owner only with KAV_AV_NAMED | KAV_AV_OWNER, and a real uid. */
	c.name = (uintptr_t)"m";
	c.name_len = 1;
	c.flags = KAV_AV_OWNER;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.flags = KAV_AV_NAMED;
	c.owner_uid = OTHER_UID;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.owner_uid = 0;
	c.__reserved = 1;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, &c));
	EXPECT_EQ(EINVAL, errno);
	c.__reserved = 0;
	EXPECT_EQ(-EINVAL, owned_in(dom, "m", 0, (uint32_t)-1, NULL));
	EXPECT_EQ(-ENOENT, probe("m"));		/* none of those created it */
	close(dom);
}

TEST(excl_and_missing)
{
	struct kav_av_create c;
	int dom = kav_open_domain(), a, b;

	ASSERT_LE(0, dom);
	EXPECT_EQ(-ENOENT, named_in(dom, "excl", KAV_AV_NAMED | KAV_AV_RDONLY,
				    NULL));
	a = named_in(dom, "excl", KAV_AV_NAMED | KAV_AV_EXCL, &c);
	ASSERT_LE(0, a);
	EXPECT_EQ(KAV_AV_CREATED, c.result);
	EXPECT_EQ(-EEXIST, named_in(dom, "excl", KAV_AV_NAMED | KAV_AV_EXCL,
				    NULL));
	b = named_in(dom, "excl", KAV_AV_NAMED | KAV_AV_RDONLY, &c);
	EXPECT_LE(0, b);
	EXPECT_EQ(0, c.result);
	close(a);
	close(b);
	close(dom);
}

TEST(format_must_match)
{
	int dom = kav_open_domain(), a, b;
	struct kav_av_create c;

	ASSERT_LE(0, dom);
	a = named_in(dom, "fmt", KAV_AV_NAMED, NULL);
	ASSERT_LE(0, a);
	EXPECT_EQ(-EINVAL, named(dom, "fmt", KAV_AV_NAMED, 0,
				 KAV_ADDR_SOCKADDR_IN6, NULL));
	EXPECT_EQ(-EINVAL, named(dom, "fmt", KAV_AV_NAMED | KAV_AV_RDONLY, 0,
				 KAV_ADDR_STR, NULL));
	/* Read-only with format 0: whatever the AV stores. */
	b = named(dom, "fmt", KAV_AV_NAMED | KAV_AV_RDONLY, 0, 0, &c);
	ASSERT_LE(0, b);
	EXPECT_EQ(32, c.entry_size);		/* IPv4: 16 + 16 */
	close(b);
	/* Format 0 is no format when creating or opening read-write. */
	EXPECT_EQ(-EINVAL, named(dom, "fmt", KAV_AV_NAMED, 0, 0, NULL));
	close(a);
	close(dom);
}

TEST(read_only_open_refuses_every_change)
{
	struct kav_av_user_id uid = { .size = sizeof(uid), .user_id = 1 };
	struct kav_av_ep_open ep = { .size = sizeof(ep) };
	struct kav_av_create c;
	struct kav_map m = { 0 };
	uint64_t fi;
	int dom = kav_open_domain(), rw, ro, want;
	void *p;

	ASSERT_LE(0, dom);
	rw = named_in(dom, "ro", KAV_AV_NAMED, NULL);
	ASSERT_LE(0, rw);
	ASSERT_EQ(0, kav_insert_one(rw, 0x0a000001, 1, KAV_NONE, &fi));
	ro = named_in(dom, "ro", KAV_AV_NAMED | KAV_AV_RDONLY, &c);
	ASSERT_LE(0, ro);
	EXPECT_EQ(O_RDONLY, fcntl(ro, F_GETFL) & O_ACCMODE);

	EXPECT_EQ(-EPERM, kav_insert_one(ro, 0x0a000002, 1, KAV_NONE, NULL));
	EXPECT_EQ(-EPERM, kav_remove(ro, &fi, 1, NULL));
	EXPECT_EQ(-EPERM, kav_key_insert(ro, VNI, NULL));
	EXPECT_EQ(-EPERM, kav_key_remove(ro, 0));
	EXPECT_EQ(-1, ioctl(ro, KAV_IOC_AV_SET_USER_ID, &uid));
	EXPECT_EQ(EPERM, errno);
	/* Unknown commands still say so. */
	EXPECT_EQ(-1, ioctl(ro, _IO(KAV_IOCTL_TYPE, 0x7f), 0));
	EXPECT_EQ(EPERM, errno);
	/* No endpoints: an enabled one would pin the owner's keys. */
	ep.fd = -1;
	EXPECT_EQ(-1, ioctl(ro, KAV_IOC_AV_EP_OPEN, &ep));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(-1, ep.fd);
	/* Mapping it is all it is for. */
	ASSERT_EQ(0, kav_map_av(ro, c.map_size, &m));
	EXPECT_EQ(1, m.h->nr_valid);
	EXPECT_EQ(fi, fi_addrs(&m)[fi]);
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	want = kav_exec_map_errno();	/* EPERM: the VFS's, since 6.16 */
	p = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, ro, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(want, errno);
	/* The read-write open still opens endpoints. */
	EXPECT_EQ(0, ioctl(rw, KAV_IOC_AV_EP_OPEN, &ep));
	EXPECT_LE(0, ep.fd);
	close(ep.fd);
	/* The read-write open is unaffected. */
	EXPECT_EQ(0, kav_remove(rw, &fi, 1, NULL));
	EXPECT_EQ(0, m.h->nr_valid);
	kav_unmap_av(&m);
	close(ro);
	close(rw);
	close(dom);
}

TEST(lives_while_an_fd_or_mapping_holds_it)
{
	struct kav_av_create c, again;
	struct kav_map m = { 0 };
	int dom = kav_open_domain(), av;

	ASSERT_LE(0, dom);
	av = named_in(dom, "life", KAV_AV_NAMED, &c);
	ASSERT_LE(0, av);
	ASSERT_EQ(0, kav_insert_one(av, 0x0a000001, 1, KAV_NONE, NULL));
	ASSERT_EQ(0, kav_map_av(av, c.map_size, &m));
	close(av);
	/* The mapping holds it: still there, by name, with its entry. */
	EXPECT_EQ(0, probe("life"));
	av = named_in(dom, "life", KAV_AV_NAMED, &again);
	ASSERT_LE(0, av);
	EXPECT_EQ(0, again.result);
	EXPECT_EQ(c.av_id, again.av_id);
	close(av);
	EXPECT_EQ(1, m.h->nr_valid);
	kav_unmap_av(&m);
	/* Nothing holds it: the name is free and taken again at once. */
	EXPECT_EQ(-ENOENT, probe("life"));
	av = named_in(dom, "life", KAV_AV_NAMED, &again);
	ASSERT_LE(0, av);
	EXPECT_EQ(KAV_AV_CREATED, again.result);
	EXPECT_NE(c.av_id, again.av_id);
	ASSERT_EQ(0, kav_map_av(av, again.map_size, &m));
	EXPECT_EQ(0, m.h->nr_valid);
	kav_unmap_av(&m);
	close(av);
	close(dom);
}

/* ------------------------------------------------------------ mode bits */

struct mode_case {
	const char *name;
	int want_ro;		/* 0 or -errno for a read-only open */
	int want_rw;		/* ... and for a read-write one */
};

/*
 * In a child that already dropped its identity: open root's AV as told
 * (KAV_AV_OWNER 0). Its own names do not hold root's.
 */
static int try_modes(void *p)
{
	const struct mode_case *mc = p;
	int dom = kav_open_domain(), av;

	CK(dom >= 0);
	CK_EQ(named_in(dom, mc->name, KAV_AV_NAMED | KAV_AV_RDONLY, NULL),
	      -ENOENT);
	av = owned_in(dom, mc->name, KAV_AV_RDONLY, 0, NULL);
	CK_EQ(av < 0 ? av : 0, mc->want_ro);
	if (av >= 0)
		close(av);
	av = owned_in(dom, mc->name, 0, 0, NULL);
	CK_EQ(av < 0 ? av : 0, mc->want_rw);
	if (av >= 0)
		close(av);
	return 0;
}

/* Run @fn in a child as @uid/@gid with @ngroups supplementary @extra. */
static int run_as_groups(uid_t uid, gid_t gid, size_t ngroups, gid_t extra,
			 int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		gid_t groups[1] = { extra };

		if (kav_become(uid, gid, ngroups, groups))
			_exit(99);
		_exit(fn(arg) & 0xff);
	}
	return kav_reap(pid);
}

TEST(mode_bits_checked_against_the_opener)
{
	/* Created by root (uid 0, gid 0), opened by others. */
	static const struct {
		uint32_t mode;
		gid_t gid;		/* the opener's egid */
		size_t ngroups;		/* 1: supplementary group 0 */
		int ro, rw;
	} cases[] = {
		{ 0, OTHER_GID, 0, -EACCES, -EACCES },	/* default 0600 */
		{ 0644, OTHER_GID, 0, 0, -EACCES },
		{ 0666, OTHER_GID, 0, 0, 0 },
		{ 0602, OTHER_GID, 0, -EACCES, -EACCES }, /* write alone */
		{ 0660, OTHER_GID, 0, -EACCES, -EACCES }, /* not in group */
		{ 0640, 0, 0, 0, -EACCES },		/* egid is root's */
		{ 0660, OTHER_GID, 1, 0, 0 },		/* supplementary */
		{ 0606, 0, 0, -EACCES, -EACCES },	/* group before other */
	};
	struct mode_case mc = { .name = "modes" };
	int dom = kav_open_domain(), av;
	size_t i;

	ASSERT_LE(0, dom);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		av = named(dom, "modes", KAV_AV_NAMED, cases[i].mode,
			   KAV_ADDR_SOCKADDR_IN, NULL);
		ASSERT_LE(0, av);
		mc.want_ro = cases[i].ro;
		mc.want_rw = cases[i].rw;
		EXPECT_EQ(0, run_as_groups(OTHER_UID, cases[i].gid,
					   cases[i].ngroups, 0, try_modes,
					   &mc)) TH_LOG("case %zu, mode %o",
							i, cases[i].mode);
		close(av);
	}
	close(dom);
}

/* A tenant's AV, kept open while root tries it. */
static int tenant_holds(void *p)
{
	struct kav_sync *s = p;
	int dom = kav_open_domain(), av;

	CK(dom >= 0);
	av = named_in(dom, "tenant", KAV_AV_NAMED, NULL);	/* 0600 */
	CK(av >= 0);
	CK(!kav_tell_parent(s, 'c'));
	CK(kav_wait_parent(s) == 'd');
	close(av);
	return 0;
}

TEST(root_is_held_to_the_mode_too)
{
	struct kav_sync s;
	struct kav_as_arg a = { OTHER_UID, OTHER_GID, tenant_holds, &s };
	pid_t pid;
	int dom;

	ASSERT_EQ(0, kav_sync_init(&s));
	pid = kav_spawn(kav_as_trampoline, &a);
	ASSERT_EQ('c', kav_wait_child(&s));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	/* No capability overrides the mode: kavctl is the admin's view. */
	EXPECT_EQ(-EACCES, owned_in(dom, "tenant", KAV_AV_RDONLY, OTHER_UID,
				    NULL));
	EXPECT_EQ(-EACCES, owned_in(dom, "tenant", 0, OTHER_UID, NULL));
	/* Nor can root create a second "tenant" among the tenant's names. */
	EXPECT_EQ(-EEXIST, owned_in(dom, "tenant", KAV_AV_EXCL, OTHER_UID,
				    NULL));
	/* Root's own "tenant" is another AV, which the tenant cannot see. */
	EXPECT_EQ(-ENOENT, named_in(dom, "tenant", KAV_AV_NAMED | KAV_AV_RDONLY,
				    NULL));
	ASSERT_EQ(0, kav_tell_child(&s, 'd'));
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&s);
	close(dom);
}

/* A tenant's 0666 AV called like the job's, kept open while root works. */
static int squat_holds(void *p)
{
	struct kav_sync *s = p;
	int dom = kav_open_domain(), av;
	struct kav_av_create c;

	CK(dom >= 0);
	av = named(dom, "FI_NAMED_AV_7\n", KAV_AV_NAMED, 0666,
		   KAV_ADDR_SOCKADDR_IN, &c);
	CK(av >= 0);
	CK_EQ(c.result, KAV_AV_CREATED);
	CK(!kav_insert_one(av, 0x0a0000ff, 66, KAV_NONE, NULL));
	CK(!kav_tell_parent(s, 'c'));
	CK(kav_wait_parent(s) == 'd');
	close(av);
	close(dom);
	return 0;
}

/*
 * Names belong to their owner's uid: a name another user took first is
 * not ours (we create our own, fresh), and another user's AV is opened
 * only by naming that user, never created in their names.
 */
TEST(names_are_per_owner)
{
	struct kav_sync s;
	struct kav_as_arg a = { OTHER_UID, OTHER_GID, squat_holds, &s };
	struct kav_av_create mine, theirs, again;
	struct kav_map m = { 0 };
	int dom, av, other;
	pid_t pid;

	ASSERT_EQ(0, kav_sync_init(&s));
	pid = kav_spawn(kav_as_trampoline, &a);
	ASSERT_EQ('c', kav_wait_child(&s));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);

	/* Not among ours: read-only finds nothing, create makes a new one. */
	EXPECT_EQ(-ENOENT, named_in(dom, "FI_NAMED_AV_7\n",
				    KAV_AV_NAMED | KAV_AV_RDONLY, NULL));
	av = named_in(dom, "FI_NAMED_AV_7\n", KAV_AV_NAMED | KAV_AV_EXCL,
		      &mine);
	ASSERT_LE(0, av);
	EXPECT_EQ(KAV_AV_CREATED, mine.result);
	ASSERT_EQ(0, kav_map_av(av, mine.map_size, &m));
	EXPECT_EQ(0, m.h->nr_valid);		/* none of the squatter's */
	kav_unmap_av(&m);

	/* The other user's, by naming its owner: its table, not ours. */
	other = owned_in(dom, "FI_NAMED_AV_7\n", KAV_AV_RDONLY, OTHER_UID,
			 &theirs);
	ASSERT_LE(0, other);
	EXPECT_EQ(0, theirs.result);
	EXPECT_NE(mine.av_id, theirs.av_id);
	ASSERT_EQ(0, kav_map_av(other, theirs.map_size, &m));
	EXPECT_EQ(1, m.h->nr_valid);
	kav_unmap_av(&m);
	close(other);
	/* 0666 lets us write it too, still without creating anything. */
	other = owned_in(dom, "FI_NAMED_AV_7\n", 0, OTHER_UID, &again);
	ASSERT_LE(0, other);
	EXPECT_EQ(theirs.av_id, again.av_id);
	EXPECT_EQ(0, again.result);
	close(other);
	/* Nobody creates in another user's names. */
	EXPECT_EQ(-ENOENT, owned_in(dom, "absent", 0, OTHER_UID, NULL));
	EXPECT_EQ(-ENOENT, owned_in(dom, "absent", KAV_AV_RDONLY, OTHER_UID,
				    NULL));
	EXPECT_EQ(-ENOENT, probe("absent"));
	/* Our own uid named as owner is our own names. */
	other = owned_in(dom, "FI_NAMED_AV_7\n", 0, 0, &again);
	ASSERT_LE(0, other);
	EXPECT_EQ(mine.av_id, again.av_id);
	close(other);

	ASSERT_EQ(0, kav_tell_child(&s, 'd'));
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&s);
	/* The squatter's AV is gone with it; ours stays. */
	EXPECT_EQ(-ENOENT, owned_in(dom, "FI_NAMED_AV_7\n", KAV_AV_RDONLY,
				    OTHER_UID, NULL));
	EXPECT_EQ(0, probe("FI_NAMED_AV_7\n"));
	close(av);
	close(dom);
}

/* A domain opened as root keeps acting as root after setuid: the fd is a
 * capability, like any file opened before dropping privileges. */
static int snapshot_opener(void *p)
{
	int dom = *(int *)p;
	int av = named_in(dom, "snap", KAV_AV_NAMED, NULL);

	CK(geteuid() == OTHER_UID);
	CK(av >= 0);
	close(av);
	return 0;
}

TEST(the_domain_opener_is_who_opens)
{
	int dom = kav_open_domain(), av;
	struct kav_as_arg a = { OTHER_UID, OTHER_GID, snapshot_opener, &dom };

	ASSERT_LE(0, dom);
	av = named_in(dom, "snap", KAV_AV_NAMED, NULL);		/* 0600 */
	ASSERT_LE(0, av);
	EXPECT_EQ(0, kav_reap(kav_spawn(kav_as_trampoline, &a)));
	close(av);
	close(dom);
}

/* --------------------------------------------------- user namespaces */

/*
 * owner_uid is a number in the caller's user namespace, both ways: the
 * uid KAV_AV_OWNER names and the owner a mode refusal reports. A domain
 * opened by the host's root, used from a user namespace that maps its
 * uid 5 to root (and nothing else): root's AV is owner 5 there, owner 0
 * is nobody there (EINVAL), not the host's root.
 */
struct userns_case {
	struct kav_sync sync;
	int dom;
};

static int owner_in_userns(void *p)
{
	struct userns_case *u = p;
	struct kav_av_create c;
	int av;

	CK_EQ(0, unshare(CLONE_NEWUSER));
	CK_EQ(0, kav_tell_parent(&u->sync, 'u'));
	CK_EQ('m', kav_wait_parent(&u->sync));	/* maps written */
	/* Unmapped here: refused, whatever uid 0 or 1000 are on the host. */
	CK_EQ(-EINVAL, owned_in(u->dom, "userns-owner", KAV_AV_RDONLY, 0,
				NULL));
	CK_EQ(-EINVAL, owned_in(u->dom, "userns-owner", KAV_AV_RDONLY,
				OTHER_UID, NULL));
	/* Root is 5 here: its AV is found as 5's ... */
	av = owned_in(u->dom, "userns-owner", KAV_AV_RDONLY, 5, &c);
	CK(av >= 0);
	close(av);
	/* ... and a refusal by its mode (0400) names 5 as the owner. */
	memset(&c, 0, sizeof(c));
	CK_EQ(-EACCES, kav_av_named(u->dom, "userns-owner", KAV_AV_OWNER, 0,
				    5, KAV_ADDR_SOCKADDR_IN, &c));
	CK_EQ(KAV_AV_DENIED_MODE, c.result);
	CK_EQ(0400, c.mode);
	CK_EQ(5, c.owner_uid);
	return 0;
}

TEST(owner_uid_is_in_the_callers_user_namespace)
{
	struct userns_case u;
	char path[64];
	int av;
	pid_t pid;

	u.dom = kav_open_domain();
	ASSERT_LE(0, u.dom);
	av = named(u.dom, "userns-owner", KAV_AV_NAMED, 0400,
		   KAV_ADDR_SOCKADDR_IN, NULL);
	ASSERT_LE(0, av);
	ASSERT_EQ(0, kav_sync_init(&u.sync));
	pid = kav_spawn(owner_in_userns, &u);
	ASSERT_EQ('u', kav_wait_child(&u.sync));
	snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)pid);
	EXPECT_EQ(0, kav_write_path(path, "deny\n"));
	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	EXPECT_EQ(0, kav_write_path(path, "5 0 1\n"));
	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
	EXPECT_EQ(0, kav_write_path(path, "5 0 1\n"));
	ASSERT_EQ(0, kav_tell_child(&u.sync, 'm'));
	EXPECT_EQ(0, kav_reap(pid));
	kav_sync_close(&u.sync);
	/* Outside, the host's uids as before: root's own AV by owner 0. */
	EXPECT_EQ(-EACCES, owned_in(u.dom, "userns-owner", 0, 0, NULL));
	close(av);
	close(u.dom);
}

/*
 * A named create refused after the new AV took its first reference (the
 * domain key's grant at its AV limit: EDQUOT; revoked: EKEYREVOKED) frees
 * that AV only after kav_names_lock and kav_revoke_sem: on the debug
 * kernel, kav_av_free() asserts under lockdep that kav_names_lock is not
 * held. The name stays free.
 */
#define VNI_REFUSED	4190

TEST(a_refused_named_create_puts_its_av_after_the_locks)
{
	struct kav_grant_spec s = { .vni = VNI_REFUSED,
				    .sel_type = KAV_SEL_UID, .sel_id = 0,
				    .limit_avs = 1 };
	struct kav_nl_grant g;
	struct kav_nl nl;
	int dom, av;

	ASSERT_EQ(0, kav_nl_open(&nl));
	ASSERT_EQ(0, kav_nl_grant_add(&nl, &s, &g));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	ASSERT_EQ(0, kav_domain_set_key(dom, VNI_REFUSED));
	av = named_in(dom, "refused-1", KAV_AV_NAMED, NULL);
	ASSERT_LE(0, av);
	/* The grant's one AV is taken: the next AV's slot 0 is refused. */
	EXPECT_EQ(-EDQUOT, named_in(dom, "refused-2", KAV_AV_NAMED, NULL));
	EXPECT_EQ(-ENOENT, probe("refused-2"));
	EXPECT_EQ(0, kav_nl_grant_del(&nl, g.id));
	EXPECT_EQ(-EKEYREVOKED, named_in(dom, "refused-3", KAV_AV_NAMED,
					 NULL));
	EXPECT_EQ(-ENOENT, probe("refused-3"));
	close(av);
	close(dom);
	kav_nl_close(&nl);
}

/* ------------------------------------------------------- IPC namespaces */

static int other_namespace(void *p)
{
	uint32_t parent_id = *(uint32_t *)p;
	int old = kav_open_domain(), dom, av;
	struct kav_av_create c;

	CK(old >= 0);
	CK(!unshare(CLONE_NEWIPC));
	/* A domain opened now is in the new namespace: no such name. */
	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(named_in(dom, "ns", KAV_AV_NAMED | KAV_AV_RDONLY, NULL),
	      -ENOENT);
	av = named_in(dom, "ns", KAV_AV_NAMED | KAV_AV_EXCL, &c);
	CK(av >= 0);
	CK(c.av_id != parent_id);
	close(av);
	/* The domain opened before unshare() still names the old one. */
	av = named_in(old, "ns", KAV_AV_NAMED | KAV_AV_RDONLY, &c);
	CK(av >= 0);
	CK_EQ(c.av_id, parent_id);
	close(av);
	close(old);
	close(dom);
	return 0;
}

TEST(ipc_namespaces_never_meet)
{
	int dom = kav_open_domain(), av;
	struct kav_av_create c;

	ASSERT_LE(0, dom);
	av = named_in(dom, "ns", KAV_AV_NAMED, &c);
	ASSERT_LE(0, av);
	EXPECT_EQ(0, kav_reap(kav_spawn(other_namespace, &c.av_id)));
	/* Ours is untouched by the other namespace's "ns". */
	EXPECT_EQ(0, probe("ns"));
	close(av);
	close(dom);
}

/* ----------------------------------------------------------------- pins */

static int av_pin(uint8_t cmd, int64_t id)
{
	struct kav_nl nl;
	struct kav_nl_msg m;
	int ret;

	if (kav_nl_open(&nl))
		return -ENOSYS;
	kav_nl_req(&nl, &m, cmd, 0);
	if (id >= 0)
		kav_nl_put_u32(&m, KAV_A_AV_ID, (uint32_t)id);
	ret = kav_nl_talk(&nl, &m, NULL, NULL);
	kav_nl_close(&nl);
	return ret;
}

struct av_row {
	uint32_t id;
	bool found, pinned;
	char name[KAV_NAME_MAX + 1];
	uint32_t mode, nr_open, entry_bytes, ipc_ns;
};

static int av_row_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		     const struct kav_nl_attrs *at, void *arg)
{
	struct av_row *r = arg;
	const struct nlattr *const *a = at->a;

	if (!a[KAV_A_AV_ID] || kav_nl_u32(a[KAV_A_AV_ID]) != r->id)
		return 0;
	r->found = true;
	r->pinned = a[KAV_A_AV_PINNED];
	if (a[KAV_A_AV_NAME])
		memcpy(r->name, kav_nl_data(a[KAV_A_AV_NAME]),
		       kav_nl_len(a[KAV_A_AV_NAME]));
	if (a[KAV_A_AV_MODE])
		r->mode = kav_nl_u32(a[KAV_A_AV_MODE]);
	if (a[KAV_A_NR_OPEN])
		r->nr_open = kav_nl_u32(a[KAV_A_NR_OPEN]);
	if (a[KAV_A_ENTRY_BYTES])
		r->entry_bytes = kav_nl_u32(a[KAV_A_ENTRY_BYTES]);
	if (a[KAV_A_IPC_NS])
		r->ipc_ns = kav_nl_u32(a[KAV_A_IPC_NS]);
	return 0;
}

static int av_row(uint32_t id, struct av_row *r)
{
	struct kav_nl nl;
	int ret;

	memset(r, 0, sizeof(*r));
	r->id = id;
	if (kav_nl_open(&nl))
		return -ENOSYS;
	ret = kav_nl_dump(&nl, KAV_GENL_CMD_AV_GET, -1, av_row_cb, r);
	kav_nl_close(&nl);
	return ret;
}

TEST(pinned_by_an_administrator)
{
	struct kav_av_create c, u;
	int dom = kav_open_domain(), av, ro, unnamed;
	struct av_row r;
	struct stat st;

	ASSERT_LE(0, dom);
	av = named(dom, "pin\n", KAV_AV_NAMED, 0640, KAV_ADDR_SOCKADDR_IN, &c);
	ASSERT_LE(0, av);
	ASSERT_EQ(0, kav_insert_one(av, 0x0a000001, 1, KAV_NONE, NULL));
	unnamed = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, &u);
	ASSERT_LE(0, unnamed);

	ASSERT_EQ(0, av_row(c.av_id, &r));
	ASSERT_TRUE(r.found);
	EXPECT_STREQ("pin\n", r.name);
	EXPECT_EQ(0640, r.mode);
	EXPECT_EQ(1, r.nr_open);
	EXPECT_EQ(32 + 8, r.entry_bytes);
	ASSERT_EQ(0, stat("/proc/self/ns/ipc", &st));
	EXPECT_EQ(st.st_ino, r.ipc_ns);
	EXPECT_FALSE(r.pinned);

	EXPECT_EQ(0, av_pin(KAV_GENL_CMD_AV_PIN, c.av_id));
	EXPECT_EQ(-EALREADY, av_pin(KAV_GENL_CMD_AV_PIN, c.av_id));
	EXPECT_EQ(-EINVAL, av_pin(KAV_GENL_CMD_AV_PIN, u.av_id));
	EXPECT_EQ(-ENOENT, av_pin(KAV_GENL_CMD_AV_PIN, 0x7ffffff0));
	EXPECT_EQ(-EINVAL, av_pin(KAV_GENL_CMD_AV_PIN, -1));	/* no id */
	close(unnamed);

	/* The launcher is gone; the pin keeps the table for the ranks. */
	close(av);
	close(dom);
	ASSERT_EQ(0, av_row(c.av_id, &r));
	EXPECT_TRUE(r.found);
	EXPECT_TRUE(r.pinned);
	EXPECT_EQ(0, r.nr_open);
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	ro = named_in(dom, "pin\n", KAV_AV_NAMED | KAV_AV_RDONLY, &u);
	ASSERT_LE(0, ro);
	EXPECT_EQ(c.av_id, u.av_id);

	/* Unpinned, it lives on while the rank holds it, then goes. */
	EXPECT_EQ(0, av_pin(KAV_GENL_CMD_AV_UNPIN, c.av_id));
	EXPECT_EQ(-EALREADY, av_pin(KAV_GENL_CMD_AV_UNPIN, c.av_id));
	EXPECT_EQ(0, probe("pin\n"));
	close(ro);
	EXPECT_EQ(-ENOENT, probe("pin\n"));
	EXPECT_EQ(-ENOENT, av_pin(KAV_GENL_CMD_AV_UNPIN, c.av_id));
	close(dom);
}

/* Pins are an administrator's: nobody else may pin or unpin. */
static int unprivileged_pin(void *p)
{
	uint32_t id = *(uint32_t *)p;

	CK_EQ(av_pin(KAV_GENL_CMD_AV_PIN, id), -EPERM);
	CK_EQ(av_pin(KAV_GENL_CMD_AV_UNPIN, id), -EPERM);
	return 0;
}

TEST(pins_need_an_administrator)
{
	struct kav_av_create c;
	int dom = kav_open_domain(), av;

	ASSERT_LE(0, dom);
	av = named(dom, "adm", KAV_AV_NAMED, 0666, KAV_ADDR_SOCKADDR_IN, &c);
	ASSERT_LE(0, av);
	EXPECT_EQ(0, kav_run_as(OTHER_UID, unprivileged_pin, &c.av_id));
	close(av);
	close(dom);
	EXPECT_EQ(-ENOENT, probe("adm"));
}

/* ------------------------------------------------------ kernel consumers */

struct resolve_arg {
	int nic;		/* bound below, in the child */
	int want;
};

/* A tenant without the key opens the AV (mode allows) and "sends". */
static int foreign_send(void *p)
{
	struct resolve_arg *r = p;
	int dom = kav_open_domain(), av, nic;
	struct kav_nic_send out = { 0 };

	CK(dom >= 0);
	av = owned_in(dom, "keyed", KAV_AV_RDONLY, 0, NULL);
	CK(av >= 0);
	nic = kav_nic_open();
	CK(nic >= 0);
	CK(!kav_nic_bind(nic, av));
	CK_EQ(kav_nic_send(nic, 0, &out), r->want);
	if (!r->want)
		CK_EQ(out.vni, VNI);
	close(nic);
	close(av);
	close(dom);
	return 0;
}

TEST(a_foreign_opener_sends_only_with_its_own_grant)
{
	struct resolve_arg r = { .want = -EACCES };
	struct kav_nl nl;
	struct kav_nic_send out = { 0 };
	uint32_t mine, theirs;
	int dom, av, nic;

	ASSERT_EQ(0, kav_nic_load());
	ASSERT_EQ(0, kav_nl_open(&nl));
	ASSERT_EQ(0, kav_nl_grant_uid(&nl, VNI, 0, &mine));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	ASSERT_EQ(0, kav_domain_set_key(dom, VNI));
	av = named(dom, "keyed", KAV_AV_NAMED, 0644, KAV_ADDR_SOCKADDR_IN,
		   NULL);
	ASSERT_LE(0, av);
	/* Bound to the domain key (slot 0). */
	ASSERT_EQ(0, kav_insert_one(av, 0x0a000001, 1, KAV_NONE, NULL));
	nic = kav_nic_open();
	ASSERT_LE(0, nic);
	ASSERT_EQ(0, kav_nic_bind(nic, av));
	EXPECT_EQ(0, kav_nic_send(nic, 0, &out));
	EXPECT_EQ(VNI, out.vni);

	/* Mode bits let uid 1000 read it, but it holds no grant for VNI. */
	EXPECT_EQ(0, kav_run_as(OTHER_UID, foreign_send, &r));
	ASSERT_EQ(0, kav_nl_grant_uid(&nl, VNI, OTHER_UID, &theirs));
	r.want = 0;
	EXPECT_EQ(0, kav_run_as(OTHER_UID, foreign_send, &r));
	/* Revoked again: refused again. */
	ASSERT_EQ(0, kav_nl_grant_del(&nl, theirs));
	r.want = -EACCES;
	EXPECT_EQ(0, kav_run_as(OTHER_UID, foreign_send, &r));

	close(nic);
	close(av);
	close(dom);
	kav_nl_grant_del(&nl, mine);
	kav_nl_close(&nl);
	EXPECT_EQ(0, kav_nic_unload());
}

/* ------------------------------------------------ writers of a shared AV */

#define VNI2	4101

struct writer_arg {
	int keyless_on;		/* allow_keyless */
	uint64_t fi;		/* out: the writer's entry */
	uint64_t handle;	/* out: its key's slot */
	uint64_t keyless_fi;	/* out: the keyless writer's entry, or none */
};

static uint64_t entry_key(const struct kav_map *m, uint64_t fi)
{
	const volatile struct kav_entry *e = (const volatile void *)
		((const volatile char *)m->h + m->h->header_size +
		 fi * m->h->entry_size);

	return e->auth_key == KAV_ENTRY_NO_KEY ? KAV_NONE : e->auth_key;
}

/*
 * uid 1000, granted VNI2 only, writes root's 0666 AV: every binding is
 * authorised against it, the writer, never the AV's creator.
 */
static int foreign_writer(void *p)
{
	struct writer_arg *w = p;
	struct kav_nic_send out = { 0 };
	struct kav_av_create c;
	struct kav_map m = { 0 };
	int dom, av, nic, kl_dom, kl_av;
	uint64_t fi;

	dom = kav_open_domain();
	CK(dom >= 0);
	CK_EQ(kav_domain_set_key(dom, VNI2), 0);
	av = owned_in(dom, "writers", 0, 0, &c);
	CK(av >= 0);
	CK_EQ(c.result, 0);
	CK(!kav_map_av(av, c.map_size, &m));
	/* Its own key is not in the AV yet: no default, not slot 0's. */
	CK_EQ(kav_insert_one(av, 0x0a000101, 2, KAV_NONE, NULL), -EACCES);
	/* The creator's key by handle: no grant for it. */
	CK_EQ(kav_insert_one(av, 0x0a000102, 2, 0, NULL), -EACCES);
	CK_EQ(m.h->nr_valid, 1);
	/* With its key in, its plain inserts are bound to that slot. */
	CK_EQ(kav_key_insert(av, VNI2, &w->handle), 0);
	CK(w->handle != 0);
	CK_EQ(kav_insert_one(av, 0x0a000103, 2, KAV_NONE, &fi), 0);
	CK_EQ(entry_key(&m, fi), w->handle);
	w->fi = fi;
	/* Its NIC sends under its own key, and not under root's. */
	nic = kav_nic_open();
	CK(nic >= 0);
	CK(!kav_nic_bind(nic, av));
	CK_EQ(kav_nic_send(nic, fi, &out), 0);
	CK_EQ(out.vni, VNI2);
	CK_EQ(kav_nic_send(nic, 0, NULL), -EACCES);
	close(nic);

	/* A keyless domain of the same user gets no key, never slot 0's. */
	kl_dom = kav_open_domain();
	CK(kl_dom >= 0);
	kl_av = owned_in(kl_dom, "writers", 0, 0, NULL);
	CK(kl_av >= 0);
	w->keyless_fi = KAV_NONE;
	if (w->keyless_on) {
		CK_EQ(kav_insert_one(kl_av, 0x0a000104, 2, KAV_NONE, &fi), 0);
		CK_EQ(entry_key(&m, fi), KAV_NONE);
		w->keyless_fi = fi;
	} else {
		CK_EQ(kav_insert_one(kl_av, 0x0a000104, 2, KAV_NONE, NULL),
		      -EACCES);
	}
	close(kl_av);
	close(kl_dom);
	kav_unmap_av(&m);
	close(av);
	close(dom);
	return 0;
}

TEST(a_foreign_writer_binds_only_its_own_key)
{
	struct writer_arg *w = kav_shared(sizeof(*w));
	struct kav_nic_send out = { 0 };
	uint32_t mine, theirs, extra;
	struct kav_av_create c;
	struct kav_map m = { 0 };
	struct kav_nl nl;
	int dom, av, nic;
	uint64_t fi;

	ASSERT_NE(NULL, w);
	w->keyless_on = kav_get_allow_keyless();
	ASSERT_LE(0, w->keyless_on);
	ASSERT_EQ(0, kav_nic_load());
	ASSERT_EQ(0, kav_nl_open(&nl));
	ASSERT_EQ(0, kav_nl_grant_uid(&nl, VNI, 0, &mine));
	ASSERT_EQ(0, kav_nl_grant_uid(&nl, VNI2, OTHER_UID, &theirs));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	ASSERT_EQ(0, kav_domain_set_key(dom, VNI));
	av = named(dom, "writers", KAV_AV_NAMED, 0666, KAV_ADDR_SOCKADDR_IN,
		   &c);
	ASSERT_LE(0, av);
	ASSERT_EQ(0, kav_map_av(av, c.map_size, &m));
	ASSERT_EQ(0, kav_insert_one(av, 0x0a000001, 1, KAV_NONE, &fi));
	EXPECT_EQ(0, entry_key(&m, fi));		/* the domain key */

	EXPECT_EQ(0, kav_run_as(OTHER_UID, foreign_writer, w));
	EXPECT_EQ(w->handle, entry_key(&m, w->fi));
	EXPECT_EQ(w->keyless_on ? 3 : 2, m.h->nr_valid);

	/*
	 * The creator's NIC resolves against the creator's grants: its own
	 * entry, not the writer's (no creator shortcut), until it holds a
	 * grant for that key too.
	 */
	nic = kav_nic_open();
	ASSERT_LE(0, nic);
	ASSERT_EQ(0, kav_nic_bind(nic, av));
	EXPECT_EQ(0, kav_nic_send(nic, fi, &out));
	EXPECT_EQ(VNI, out.vni);
	EXPECT_EQ(-EACCES, kav_nic_send(nic, w->fi, NULL));
	ASSERT_EQ(0, kav_nl_grant_uid(&nl, VNI2, 0, &extra));
	EXPECT_EQ(0, kav_nic_send(nic, w->fi, &out));
	EXPECT_EQ(VNI2, out.vni);
	kav_nl_grant_del(&nl, extra);
	EXPECT_EQ(-EACCES, kav_nic_send(nic, w->fi, NULL));

	close(nic);
	kav_unmap_av(&m);
	close(av);
	close(dom);
	kav_nl_grant_del(&nl, theirs);
	kav_nl_grant_del(&nl, mine);
	kav_nl_close(&nl);
	munmap(w, sizeof(*w));
	EXPECT_EQ(0, kav_nic_unload());
}

TEST_HARNESS_MAIN
