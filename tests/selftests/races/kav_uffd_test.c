// SPDX-License-Identifier: GPL-2.0
/*
 * kav_uffd_test: deterministic interleavings. A userfaultfd handler runs
 * another kav call, on another fd of the same AV, while the kernel is
 * paused in the middle of an ioctl on a fault in user memory: the pin of
 * an insert's fi_addrs, the copy of a KEY_INSERT reply. What a race test
 * hits now and then, these hit every time, on every kernel.
 *
 * Each test then checks that the paused call neither undid nor mixed up
 * what the handler did: the rule of issue "Trust" that nothing is undone
 * after the table lock is dropped (Documentation/design.rst, Batches).
 *
 * Needs userfaultfd with kernel-mode faults (root) and, for the
 * write-protect cases, UFFD_FEATURE_PAGEFAULT_FLAG_WP; skips otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_nl_util.h"

#define VNI_A		4101	/* the domain's key, slot 0 */
#define VNI_B		4102
#define VNI_C		4103
#define FMT_IN		KAV_ADDR_SOCKADDR_IN
#define NR_INSERT	4

/* ------------------------------------------------------ userfaultfd */

/* What the handler does when the paused call faults. */
enum uffd_action {
	UFFD_RESOLVE,		/* fill the page, let the call go on */
	UFFD_READONLY,		/* make the page read-only, then wake */
};

struct uffd {
	int fd;
	char *page;		/* one registered page */
	long psize;
	bool wp;		/* registered for write-protect faults */
	enum uffd_action action;
	/* The interleaved call; 0 or -errno, kept for the test. */
	int (*interleave)(void *arg);
	void *arg;
	int interleave_ret;
	int faults;
	pthread_t thread;
};

/*
 * A userfaultfd for one page of anonymous memory: MISSING faults, or, with
 * @wp, write-protect faults on a page that is present (fill it, then
 * uffd_protect()). 0, -errno, or 1 when this kernel cannot do it (skip).
 */
static int uffd_open(struct uffd *u, bool wp)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };

	memset(u, 0, sizeof(*u));
	u->psize = sysconf(_SC_PAGESIZE);
	u->wp = wp;
	u->fd = (int)syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (u->fd < 0)
		return errno == ENOSYS || errno == EPERM ? 1 : -errno;
	if (wp)
		api.features = UFFD_FEATURE_PAGEFAULT_FLAG_WP;
	if (ioctl(u->fd, UFFDIO_API, &api))
		return errno == EINVAL ? 1 : -errno;
	u->page = mmap(NULL, u->psize, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (u->page == MAP_FAILED)
		return -errno;
	if (wp)
		memset(u->page, 0x5a, u->psize);	/* present first */
	reg.range.start = (uintptr_t)u->page;
	reg.range.len = u->psize;
	reg.mode = wp ? UFFDIO_REGISTER_MODE_WP : UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(u->fd, UFFDIO_REGISTER, &reg))
		return errno == EINVAL ? 1 : -errno;
	return 0;
}

/* Write-protect the (filled) page: the next write to it faults. */
static int uffd_protect(struct uffd *u)
{
	struct uffdio_writeprotect wpr = {
		.range = { (uintptr_t)u->page, u->psize },
		.mode = UFFDIO_WRITEPROTECT_MODE_WP,
	};

	return ioctl(u->fd, UFFDIO_WRITEPROTECT, &wpr) ? -errno : 0;
}

/* Let the faulting thread go on: fill or unprotect the page, or refuse. */
static int uffd_release(struct uffd *u)
{
	struct uffdio_range range = { (uintptr_t)u->page, u->psize };
	struct uffdio_writeprotect wpr = { .range = range };
	struct uffdio_copy copy = { 0 };
	static char fill[1 << 16];

	if (u->action == UFFD_READONLY) {
		/* The retried access finds no write permission: EFAULT. */
		if (mprotect(u->page, u->psize, PROT_READ))
			return -errno;
		if (u->wp) {
			/* Clearing write-protect wakes the faulting thread. */
			return ioctl(u->fd, UFFDIO_WRITEPROTECT, &wpr) ? -errno : 0;
		}
		return ioctl(u->fd, UFFDIO_WAKE, &range) ? -errno : 0;
	}
	if (u->wp)
		return ioctl(u->fd, UFFDIO_WRITEPROTECT, &wpr) ? -errno : 0;
	copy.dst = (uintptr_t)u->page;
	copy.src = (uintptr_t)fill;
	copy.len = u->psize;
	return ioctl(u->fd, UFFDIO_COPY, &copy) ? -errno : 0;
}

/* The handler: on the first fault, run the interleaved call, release. */
static void *uffd_handler(void *arg)
{
	struct uffd *u = arg;
	struct pollfd pfd = { .fd = u->fd, .events = POLLIN };
	struct uffd_msg msg;

	while (poll(&pfd, 1, 20000) == 1) {
		if (read(u->fd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		if (!u->faults++ && u->interleave)
			u->interleave_ret = u->interleave(u->arg);
		if (uffd_release(u))
			break;
		if (u->action == UFFD_READONLY || !u->wp)
			break;	/* one fault is all these tests make */
	}
	return NULL;
}

static int uffd_start(struct uffd *u, enum uffd_action action,
		      int (*interleave)(void *), void *arg)
{
	u->action = action;
	u->interleave = interleave;
	u->arg = arg;
	u->interleave_ret = -EINPROGRESS;
	return -pthread_create(&u->thread, NULL, uffd_handler, u);
}

static void uffd_close(struct uffd *u)
{
	pthread_join(u->thread, NULL);
	if (u->page && u->page != MAP_FAILED)
		munmap(u->page, u->psize);
	close(u->fd);
}

/* ------------------------------------------------------------ fixture */

FIXTURE(uffd) {
	struct kav_nl nl;
	uint32_t grants[3];
	int dom, av, av2;	/* one AV, two writable files of it */
	struct kav_map map;
	const char *skip;
};

FIXTURE_SETUP(uffd)
{
	struct kav_av_create c = { 0 };

	self->dom = self->av = self->av2 = -1;
	ASSERT_EQ(0, kav_nl_open(&self->nl));
	/* Root's own grants: the rule holds root to grants like anyone. */
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, VNI_A, 0, &self->grants[0]));
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, VNI_B, 0, &self->grants[1]));
	ASSERT_EQ(0, kav_nl_grant_uid(&self->nl, VNI_C, 0, &self->grants[2]));
	self->dom = kav_open_domain();
	ASSERT_LE(0, self->dom);
	ASSERT_EQ(0, kav_domain_set_key(self->dom, VNI_A));
	self->av = kav_av_named(self->dom, "kav_uffd_test", KAV_AV_EXCL, 0, 0,
				FMT_IN, &c);
	ASSERT_LE(0, self->av);
	self->av2 = kav_av_named(self->dom, "kav_uffd_test", 0, 0, 0, FMT_IN,
				 NULL);
	ASSERT_LE(0, self->av2);
	ASSERT_EQ(0, kav_map_av(self->av, c.map_size, &self->map));
}

FIXTURE_TEARDOWN(uffd)
{
	kav_unmap_av(&self->map);
	if (self->av2 >= 0)
		close(self->av2);
	if (self->av >= 0)
		close(self->av);
	if (self->dom >= 0)
		close(self->dom);
	kav_nl_grant_del(&self->nl, self->grants[0]);
	kav_nl_grant_del(&self->nl, self->grants[1]);
	kav_nl_grant_del(&self->nl, self->grants[2]);
	kav_nl_close(&self->nl);
}

static struct sockaddr_in sin4(uint32_t host, uint16_t port)
{
	struct sockaddr_in s = { .sin_family = AF_INET };

	s.sin_addr.s_addr = htonl(host);
	s.sin_port = htons(port);
	return s;
}

/* Insert NR_INSERT addresses from @host on @av; fi_addrs into @out. */
static int insert_batch(int av, uint32_t host, uint64_t *out)
{
	struct sockaddr_in a[NR_INSERT];
	int i;

	for (i = 0; i < NR_INSERT; i++)
		a[i] = sin4(host + i, 7000);
	return kav_insert_stride(av, a, sizeof(a[0]), NR_INSERT, out, NULL);
}

/* Every valid entry, counted through the mapping, against nr_valid. */
static uint64_t valid_entries(const volatile struct kav_table_header *h)
{
	uint64_t i, n = 0;

	for (i = 0; i < h->nr_slots; i++)
		n += !!(kav_entry_at(h, i)->flags & KAV_ENTRY_VALID);
	return n;
}

static uint32_t entry_host(const volatile struct kav_table_header *h,
			   uint64_t idx)
{
	struct sockaddr_in s;

	memcpy(&s, (const void *)kav_entry_at(h, idx)->addr, sizeof(s));
	return ntohl(s.sin_addr.s_addr);
}

/* The slot holding key @vni, or KAV_NONE. */
static uint64_t find_vni(const volatile struct kav_table_header *h,
			 uint32_t vni)
{
	uint64_t k;

	for (k = 0; k < KAV_MAX_AUTH_KEYS; k++)
		if ((kav_slot(h, k)->flags & KAV_KEY_VALID) &&
		    kav_slot(h, k)->vni == vni)
			return k;
	return KAV_NONE;
}

/* --------------------------------------------------------------- tests */

struct churn {
	int av;
	uint64_t removed;	/* index the handler removed */
	uint64_t added[NR_INSERT];
};

/* While the insert is paused: remove index 0 and insert elsewhere. */
static int churn_while_paused(void *arg)
{
	struct churn *c = arg;

	int ret = kav_remove(c->av, &c->removed, 1, NULL);

	if (ret)
		return ret;
	return insert_batch(c->av, 0x0a000100, c->added);
}

/*
 * An insert paused while its output is pinned (first touch of fi_addrs):
 * the handler removes an entry and inserts a batch on the other fd. The
 * paused insert then takes the lowest free slots as they are after the
 * handler's batch, and every index it reports holds its own address.
 */
TEST_F_TIMEOUT(uffd, insert_paused_in_pin_sees_the_table_after, 60)
{
	const volatile struct kav_table_header *h = self->map.h;
	struct churn c = { .av = self->av2, .removed = 1 };
	uint64_t first[NR_INSERT], out[NR_INSERT];
	struct uffd u;
	int ret, i;

	ret = uffd_open(&u, false);
	if (ret == 1)
		SKIP(return, "userfaultfd with kernel faults unavailable");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, insert_batch(self->av, 0x0a000000, first));
	ASSERT_EQ(0, uffd_start(&u, UFFD_RESOLVE, churn_while_paused, &c));
	ret = insert_batch(self->av, 0x0a000200, (uint64_t *)u.page);
	memcpy(out, u.page, sizeof(out));	/* before the page goes */
	uffd_close(&u);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(1, u.faults);
	ASSERT_EQ(0, u.interleave_ret);

	/* Handler: slot 1 freed then refilled, slots 4..6 new. */
	EXPECT_EQ(1, c.added[0]);
	for (i = 1; i < NR_INSERT; i++)
		EXPECT_EQ(NR_INSERT + i - 1, c.added[i]);
	/* The paused insert came after: slots 7..10, its own addresses. */
	for (i = 0; i < NR_INSERT; i++) {
		EXPECT_EQ(2 * NR_INSERT - 1 + i, out[i]);
		EXPECT_EQ(0x0a000200u + i, entry_host(h, out[i]));
	}
	EXPECT_EQ(3 * NR_INSERT - 1, h->nr_valid);
	EXPECT_EQ(h->nr_valid, valid_entries(h));
	EXPECT_EQ(h->nr_valid, kav_uses(h, 0)->nr_entries);
	EXPECT_EQ(0, h->generation & 1);
}

struct frozen {
	int av;
	struct kav_table_state before;	/* after the handler's change */
	const volatile struct kav_table_header *h;
	uint64_t added[NR_INSERT];
};

static int insert_then_snapshot(void *arg)
{
	struct frozen *f = arg;
	int ret = insert_batch(f->av, 0x0a000300, f->added);

	kav_table_state(f->h, &f->before);
	return ret;
}

/*
 * An insert whose fi_addrs page goes read-only while the kernel pins it:
 * EFAULT, and the table is exactly as the handler left it: nothing of
 * the failed call is visible, nothing of the handler's is undone.
 */
TEST_F_TIMEOUT(uffd, insert_output_goes_readonly_during_pin, 60)
{
	struct frozen f = { .av = self->av2, .h = self->map.h };
	struct kav_table_state after;
	struct uffd u;
	int ret, i;

	ret = uffd_open(&u, true);
	if (ret == 1)
		SKIP(return, "userfaultfd write-protect unavailable");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, uffd_protect(&u));
	ASSERT_EQ(0, uffd_start(&u, UFFD_READONLY, insert_then_snapshot, &f));
	EXPECT_EQ(-EFAULT, insert_batch(self->av, 0x0a000400,
					(uint64_t *)u.page));
	uffd_close(&u);
	ASSERT_EQ(1, u.faults);
	ASSERT_EQ(0, u.interleave_ret);
	kav_table_state(self->map.h, &after);
	EXPECT_TRUE(kav_table_same(&f.before, &after));
	EXPECT_EQ(NR_INSERT, self->map.h->nr_valid);
	for (i = 0; i < NR_INSERT; i++)
		EXPECT_EQ(0x0a000300u + i, entry_host(self->map.h, f.added[i]));
}

struct swap {
	int av;
	const volatile struct kav_table_header *h;
	uint64_t handle;	/* the key the paused call inserted */
	uint64_t other;		/* the key the handler put in its slot */
};

/* The paused KEY_INSERT's key is in: take it out, put VNI_B there. */
static int swap_key(void *arg)
{
	struct swap *s = arg;
	int ret;

	s->handle = find_vni(s->h, VNI_C);
	if (s->handle == KAV_NONE)
		return -ENOENT;		/* not in before the reply: wrong */
	ret = kav_key_remove(s->av, s->handle);
	if (ret)
		return ret;
	return kav_key_insert(s->av, VNI_B, &s->other);
}

/*
 * KEY_INSERT of VNI_C paused on its reply (a write-protected page); the
 * handler, another writer, removes the new key and inserts VNI_B, which
 * takes the same slot; the reply then fails. An undo would now remove
 * whatever holds that slot: the other writer's key. The call must fail
 * with EFAULT and leave the table as the handler made it. (15fc615 wrote
 * the reply once before inserting too, so there the fault comes before
 * the key exists and this test fails at the handler, -ENOENT; its undo is
 * reached only by racing, kav_trust_test: small_key_insert_reply_efault.)
 */
TEST_F_TIMEOUT(uffd, key_insert_reply_fault_undoes_nothing, 60)
{
	struct swap s = { .av = self->av2, .h = self->map.h };
	const volatile struct kav_key_slot *k;
	struct kav_av_key *req;
	struct uffd u;
	int ret;

	ret = uffd_open(&u, true);
	if (ret == 1)
		SKIP(return, "userfaultfd write-protect unavailable");
	ASSERT_EQ(0, ret);
	/* The request is read from the page (no fault), the reply faults. */
	req = (struct kav_av_key *)u.page;
	memset(req, 0, sizeof(*req));
	req->size = sizeof(*req);
	req->key.vni = VNI_C;
	ASSERT_EQ(0, uffd_protect(&u));
	ASSERT_EQ(0, uffd_start(&u, UFFD_READONLY, swap_key, &s));
	ret = ioctl(self->av, KAV_IOC_AV_KEY_INSERT, req) ? -errno : 0;
	uffd_close(&u);
	EXPECT_EQ(-EFAULT, ret);
	ASSERT_EQ(1, u.faults);
	ASSERT_EQ(0, u.interleave_ret);
	EXPECT_EQ(s.handle, s.other);		/* VNI_B took the slot */
	k = kav_slot(self->map.h, s.other);
	EXPECT_EQ(KAV_KEY_VALID, k->flags);
	EXPECT_EQ(VNI_B, k->vni);
	/* VNI_C is nowhere: the handler removed it, nobody put it back. */
	EXPECT_EQ(KAV_NONE, find_vni(self->map.h, VNI_C));
}

TEST_HARNESS_MAIN
