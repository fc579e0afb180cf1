// SPDX-License-Identifier: GPL-2.0
/*
 * Auth keys, user ids and endpoints through the raw uAPI: key slots in
 * the header page, entries bound to keys, the EBUSY rules that endpoint
 * objects make real, and that nothing leaks when a process dies.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_test_grants.h"

static int key_insert(int av, uint32_t vni, uint64_t *handle)
{
	struct kav_av_key k = { .size = sizeof(k), .key.vni = vni };
	int ret = ioctl(av, KAV_IOC_AV_KEY_INSERT, &k) ? -errno : 0;

	if (handle)
		*handle = k.handle;
	return ret;
}

static int key_remove(int av, uint64_t handle)
{
	struct kav_av_key k = { .size = sizeof(k), .handle = handle };

	return ioctl(av, KAV_IOC_AV_KEY_REMOVE, &k) ? -errno : 0;
}

static int set_user_id(int av, uint32_t flags, uint64_t idx, uint64_t id)
{
	struct kav_av_user_id u = { .size = sizeof(u), .flags = flags,
				    .index = idx, .user_id = id };

	return ioctl(av, KAV_IOC_AV_SET_USER_ID, &u) ? -errno : 0;
}

static int ep_open(int av)
{
	struct kav_av_ep_open e = { .size = sizeof(e) };

	return ioctl(av, KAV_IOC_AV_EP_OPEN, &e) ? -errno : e.fd;
}

static int ep_enable(int ep, uint64_t *keys)
{
	struct kav_ep_enable e = { .size = sizeof(e) };
	int ret = ioctl(ep, KAV_IOC_EP_ENABLE, &e) ? -errno : 0;

	if (keys)
		*keys = e.keys;
	return ret;
}

static int insert_keyed(int av, const struct sockaddr_in *s, uint32_t n,
			const uint64_t *keys, const uint64_t *ids,
			uint64_t *fi, uint32_t *err)
{
	struct kav_av_insert in = {
		.size = sizeof(in), .count = n, .addr_stride = sizeof(*s),
		.addrs = (uintptr_t)s, .fi_addrs = (uintptr_t)fi,
		.err_index = KAV_NO_INDEX,
		.flags = (keys ? KAV_INSERT_AUTH_KEY : 0) |
			 (ids ? KAV_INSERT_USER_ID : 0),
		.auth_keys = (uintptr_t)keys, .user_ids = (uintptr_t)ids,
	};
	int ret = ioctl(av, KAV_IOC_AV_INSERT, &in) ? -errno : 0;

	if (err)
		*err = in.err_index;
	return ret;
}

FIXTURE(keys) {
	int dom, av;
	struct kav_av_create c;
	const volatile struct kav_table_header *h;
	struct kav_test_grants grants;
};

/* The vnis these tests insert: 1..20, 100..400 in steps, 1000..1063, 5000. */
FIXTURE_SETUP(keys)
{
	memset(&self->grants, 0, sizeof(self->grants));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 1, 20));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 100, 1));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 200, 1));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 300, 1));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 1000, KAV_MAX_AUTH_KEYS));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 5000, 1));
	self->dom = kav_open_domain();
	ASSERT_LE(0, self->dom);
	self->av = kav_create_av(self->dom, KAV_ADDR_SOCKADDR_IN, &self->c);
	ASSERT_LE(0, self->av);
	self->h = mmap(NULL, self->c.map_size, PROT_READ, MAP_SHARED,
		       self->av, 0);
	ASSERT_NE(MAP_FAILED, self->h);
}

FIXTURE_TEARDOWN(keys)
{
	munmap((void *)self->h, self->c.map_size);
	close(self->av);
	close(self->dom);
	kav_test_revoke_all(&self->grants);
}

static const volatile struct kav_key_slot *
slot(const volatile struct kav_table_header *h, uint64_t handle)
{
	return (const volatile void *)((const volatile char *)h +
				       h->keys_offset +
				       handle * sizeof(struct kav_key_slot));
}

static const volatile struct kav_entry *
entry(const volatile struct kav_table_header *h, uint64_t idx)
{
	return (const volatile void *)((const volatile char *)h +
				       h->header_size + idx * h->entry_size);
}

TEST_F(keys, header_describes_key_slots)
{
	EXPECT_EQ(KAV_MAX_AUTH_KEYS, self->h->max_keys);
	EXPECT_LE(sizeof(struct kav_table_header), self->h->keys_offset);
	EXPECT_GE(self->h->header_size, self->h->keys_offset +
		  KAV_MAX_AUTH_KEYS * sizeof(struct kav_key_slot));
}

TEST_F(keys, key_insert_fills_lowest_slot)
{
	uint64_t h0, h1, h2;

	ASSERT_EQ(0, key_insert(self->av, 100, &h0));
	ASSERT_EQ(0, key_insert(self->av, 200, &h1));
	EXPECT_EQ(0, h0);
	EXPECT_EQ(1, h1);
	EXPECT_EQ(KAV_KEY_VALID, slot(self->h, h1)->flags);
	EXPECT_EQ(200, slot(self->h, h1)->vni);
	EXPECT_EQ(KAV_NONE, slot(self->h, h1)->user_id);
	EXPECT_EQ(0, slot(self->h, h1)->seq & 1);
	ASSERT_EQ(0, key_remove(self->av, h0));
	EXPECT_EQ(0, slot(self->h, h0)->flags);
	ASSERT_EQ(0, key_insert(self->av, 300, &h2));
	EXPECT_EQ(0, h2);
}

TEST_F(keys, key_insert_duplicate_eexist)
{
	uint64_t h, again = 99;

	ASSERT_EQ(0, key_insert(self->av, 7, &h));
	EXPECT_EQ(-EEXIST, key_insert(self->av, 7, &again));
	EXPECT_EQ(h, again);
}

TEST_F(keys, key_insert_past_cap_enospc)
{
	uint64_t h;
	int i;

	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++)
		ASSERT_EQ(0, key_insert(self->av, 1000 + i, &h));
	EXPECT_EQ(-ENOSPC, key_insert(self->av, 5000, &h));
	ASSERT_EQ(0, key_remove(self->av, 10));
	EXPECT_EQ(0, key_insert(self->av, 5000, &h));
	EXPECT_EQ(10, h);
}

TEST_F(keys, key_bad_arguments)
{
	struct kav_av_key k = { .size = sizeof(k), .key.vni = 1, .flags = 1 };
	uint64_t h;

	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_KEY_INSERT, &k));
	EXPECT_EQ(EINVAL, errno);
	k.flags = 0;
	k.key.__reserved = 1;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_KEY_INSERT, &k));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(KAV_KEY_VALID & slot(self->h, 0)->flags, 0);

	ASSERT_EQ(0, key_insert(self->av, 1, &h));
	EXPECT_EQ(-EINVAL, key_remove(self->av, h + 1));
	EXPECT_EQ(-EINVAL, key_remove(self->av, KAV_MAX_AUTH_KEYS));
	EXPECT_EQ(-EINVAL, key_remove(self->av, UINT64_MAX));
	k.flags = 1;
	k.key.__reserved = 0;
	k.handle = h;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_KEY_REMOVE, &k));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(KAV_KEY_VALID, slot(self->h, h)->flags);
}

/*
 * The handle cannot be written back (the argument is in a read-only
 * page): the call fails with EFAULT but the key stays inserted, and
 * asking again gives EEXIST with the handle. Nothing is undone.
 */
TEST_F(keys, key_insert_reply_unwritable_keeps_key)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct kav_av_key *k;
	uint64_t h = 99;

	k = mmap(NULL, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, k);
	*k = (struct kav_av_key){ .size = sizeof(*k), .key.vni = 7,
				  .handle = 1234 };
	ASSERT_EQ(0, mprotect(k, page, PROT_READ));
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_KEY_INSERT, k));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1234, k->handle);
	EXPECT_EQ(KAV_KEY_VALID, slot(self->h, 0)->flags);
	EXPECT_EQ(7, slot(self->h, 0)->vni);
	EXPECT_EQ(-EEXIST, key_insert(self->av, 7, &h));
	EXPECT_EQ(0, h);
	/* It is an ordinary key: removable once, then gone. */
	EXPECT_EQ(0, key_remove(self->av, 0));
	EXPECT_EQ(0, slot(self->h, 0)->flags);
	munmap(k, page);
}

TEST_F(keys, insert_binds_entries_to_keys)
{
	struct sockaddr_in s[2] = { kav_sin(1, 1), kav_sin(2, 2) };
	uint64_t k0, k1, keys[2], fi[2];

	ASSERT_EQ(0, key_insert(self->av, 10, &k0));
	ASSERT_EQ(0, key_insert(self->av, 11, &k1));
	keys[0] = k1;
	keys[1] = k0;
	ASSERT_EQ(0, insert_keyed(self->av, s, 2, keys, NULL, fi, NULL));
	EXPECT_EQ(k1, entry(self->h, fi[0])->auth_key);
	EXPECT_EQ(k0, entry(self->h, fi[1])->auth_key);
	EXPECT_EQ(1, kav_uses(self->h, k0)->nr_entries);
	EXPECT_EQ(1, kav_uses(self->h, k1)->nr_entries);

	/* A key with entries bound cannot go; once they are gone it can. */
	EXPECT_EQ(-EBUSY, key_remove(self->av, k0));
	ASSERT_EQ(0, kav_remove(self->av, &fi[1], 1, NULL));
	EXPECT_EQ(0, kav_uses(self->h, k0)->nr_entries);
	EXPECT_EQ(0, key_remove(self->av, k0));
}

TEST_F(keys, insert_bad_key_handle_changes_nothing)
{
	struct sockaddr_in s[3] = { kav_sin(1, 1), kav_sin(2, 2),
				    kav_sin(3, 3) };
	uint64_t k, keys[3], fi[3];
	uint32_t err;

	ASSERT_EQ(0, key_insert(self->av, 10, &k));
	keys[0] = k;
	keys[1] = k;
	keys[2] = k + 1;
	EXPECT_EQ(-EINVAL, insert_keyed(self->av, s, 3, keys, NULL, fi, &err));
	EXPECT_EQ(2, err);
	keys[2] = UINT64_MAX;
	EXPECT_EQ(-EINVAL, insert_keyed(self->av, s, 3, keys, NULL, fi, &err));
	EXPECT_EQ(2, err);
	EXPECT_EQ(0, self->h->nr_valid);
	EXPECT_EQ(0, kav_uses(self->h, k)->nr_entries);
}

TEST_F(keys, insert_flag_and_pointer_must_match)
{
	struct sockaddr_in s = kav_sin(1, 1);
	uint64_t one = 0;
	struct kav_av_insert in = {
		.size = sizeof(in), .count = 1, .addr_stride = sizeof(s),
		.addrs = (uintptr_t)&s,
	};

	in.flags = KAV_INSERT_AUTH_KEY;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	in.flags = 0;
	in.auth_keys = (uintptr_t)&one;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	in.auth_keys = 0;
	in.user_ids = (uintptr_t)&one;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	in.user_ids = 0;
	in.flags = KAV_INSERT_USER_ID;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	in.flags = 0x4;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	/* Unreadable key or id arrays. */
	in.flags = KAV_INSERT_USER_ID;
	in.user_ids = 8;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, self->h->nr_valid);
}

TEST_F(keys, user_ids_default_insert_and_set)
{
	struct sockaddr_in s[2] = { kav_sin(1, 1), kav_sin(2, 2) };
	uint64_t ids[2] = { 0x1111, 0x2222 }, fi[2], k, gen;

	ASSERT_EQ(0, insert_keyed(self->av, s, 1, NULL, NULL, fi, NULL));
	EXPECT_EQ(KAV_NONE, entry(self->h, fi[0])->user_id);
	ASSERT_EQ(0, insert_keyed(self->av, s + 1, 1, NULL, ids + 1, fi + 1,
				  NULL));
	EXPECT_EQ(0x2222, entry(self->h, fi[1])->user_id);

	/* A change like a batch: generation snapshots notice it. */
	gen = self->h->generation;
	ASSERT_EQ(0, set_user_id(self->av, 0, fi[0], 0xabc));
	EXPECT_EQ(0xabc, entry(self->h, fi[0])->user_id);
	EXPECT_EQ(gen + 2, self->h->generation);
	ASSERT_EQ(0, set_user_id(self->av, 0, fi[0], KAV_NONE));
	EXPECT_EQ(KAV_NONE, entry(self->h, fi[0])->user_id);

	ASSERT_EQ(0, key_insert(self->av, 5, &k));
	ASSERT_EQ(0, set_user_id(self->av, KAV_USER_ID_AUTH_KEY, k, 77));
	EXPECT_EQ(77, slot(self->h, k)->user_id);
}

TEST_F(keys, set_user_id_bad_arguments)
{
	struct sockaddr_in s = kav_sin(1, 1);
	uint64_t fi;

	ASSERT_EQ(0, insert_keyed(self->av, &s, 1, NULL, NULL, &fi, NULL));
	EXPECT_EQ(-EINVAL, set_user_id(self->av, 0, fi + 1, 1));
	EXPECT_EQ(-EINVAL, set_user_id(self->av, 0, UINT64_MAX, 1));
	EXPECT_EQ(-EINVAL, set_user_id(self->av, 0x2, fi, 1));
	EXPECT_EQ(-EINVAL, set_user_id(self->av, KAV_USER_ID_AUTH_KEY, 0, 1));
	EXPECT_EQ(KAV_NONE, entry(self->h, fi)->user_id);
}

TEST_F(keys, endpoint_enable_snapshots_keys)
{
	uint64_t k0, k1, k2, used;
	int ep;

	ASSERT_EQ(0, key_insert(self->av, 1, &k0));
	ASSERT_EQ(0, key_insert(self->av, 2, &k1));
	ep = ep_open(self->av);
	ASSERT_LE(0, ep);
	EXPECT_EQ(FD_CLOEXEC, fcntl(ep, F_GETFD) & FD_CLOEXEC);
	/* Bound but not enabled: keys are still removable. */
	ASSERT_EQ(0, key_remove(self->av, k1));
	ASSERT_EQ(0, key_insert(self->av, 2, &k1));

	ASSERT_EQ(0, ep_enable(ep, &used));
	EXPECT_EQ((1ULL << k0) | (1ULL << k1), used);
	EXPECT_EQ(1, kav_uses(self->h, k0)->nr_endpoints);
	EXPECT_EQ(-EALREADY, ep_enable(ep, NULL));

	/* Keys inserted after enabling do not apply to the endpoint. */
	ASSERT_EQ(0, key_insert(self->av, 3, &k2));
	EXPECT_EQ(0, kav_uses(self->h, k2)->nr_endpoints);
	EXPECT_EQ(0, key_remove(self->av, k2));

	EXPECT_EQ(-EBUSY, key_remove(self->av, k0));
	EXPECT_EQ(-EBUSY, key_remove(self->av, k1));
	ASSERT_EQ(0, close(ep));
	EXPECT_EQ(0, kav_uses(self->h, k0)->nr_endpoints);
	EXPECT_EQ(0, key_remove(self->av, k0));
	EXPECT_EQ(0, key_remove(self->av, k1));
}

TEST_F(keys, endpoint_bad_arguments)
{
	struct kav_av_ep_open o = { .size = sizeof(o), .flags = 1 };
	struct kav_ep_enable e = { .size = sizeof(e), .flags = 1 };
	int ep;

	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_EP_OPEN, &o));
	EXPECT_EQ(EINVAL, errno);
	o.flags = 0;
	o.__reserved = 1;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_EP_OPEN, &o));
	EXPECT_EQ(EINVAL, errno);
	ep = ep_open(self->av);
	ASSERT_LE(0, ep);
	EXPECT_EQ(-1, ioctl(ep, KAV_IOC_EP_ENABLE, &e));
	EXPECT_EQ(EINVAL, errno);
	/* Endpoint commands only on endpoints, AV commands only on AVs. */
	EXPECT_EQ(-1, ioctl(ep, KAV_IOC_AV_EP_OPEN, &o));
	EXPECT_EQ(ENOTTY, errno);
	e.flags = 0;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_EP_ENABLE, &e));
	EXPECT_EQ(ENOTTY, errno);
	close(ep);
}

TEST_F(keys, endpoint_pins_av)
{
	struct sockaddr_in s = kav_sin(9, 9);
	uint64_t k;
	int ep = ep_open(self->av);

	ASSERT_LE(0, ep);
	ASSERT_EQ(0, key_insert(self->av, 4, &k));
	ASSERT_EQ(0, ep_enable(ep, NULL));
	ASSERT_EQ(0, close(self->av));
	ASSERT_EQ(0, close(self->dom));
	self->av = self->dom = -1;
	/* The table (still mapped) shows the endpoint holds the key. */
	EXPECT_EQ(1, kav_uses(self->h, k)->nr_endpoints);
	EXPECT_EQ(0, close(ep));
	EXPECT_EQ(0, kav_uses(self->h, k)->nr_endpoints);
	(void)s;
}

/* A process that dies with an enabled endpoint leaves no count behind. */
TEST_F(keys, endpoint_released_when_holder_killed)
{
	int status, pipefd[2];
	uint64_t k;
	char c;
	pid_t pid;

	ASSERT_EQ(0, key_insert(self->av, 8, &k));
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int ep = ep_open(self->av);

		if (ep < 0 || ep_enable(ep, NULL))
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	EXPECT_EQ(-EBUSY, key_remove(self->av, k));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(0, kav_uses(self->h, k)->nr_endpoints);
	EXPECT_EQ(0, key_remove(self->av, k));
	close(pipefd[0]);
	close(pipefd[1]);
}

TEST_HARNESS_MAIN
