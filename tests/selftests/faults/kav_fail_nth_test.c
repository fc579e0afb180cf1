// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation failed, one at a time (model: the kernel's
 * tools/testing/selftests/iommu/iommufd_fail_nth.c).
 *
 * For each kav entry point (opening /dev/kav, every ioctl, mmap and page
 * faults on the table, every generic netlink command), a case prepares
 * its objects, then runs the call
 * with /proc/self/task/<tid>/fail-nth set to N = 1, 2, ...: the N-th fault
 * injection point the call reaches (slab, page allocator) fails. The sweep
 * ends when the call completes without reaching the N-th point. After
 * every injected failure the call must have failed cleanly (ENOMEM) or
 * succeeded in full, and when it failed:
 *   - the table is what it was (valid entries, key slots, nr_valid, an
 *     even generation: no half-applied batch),
 *   - no file descriptor appeared,
 *   - the module's reference count is what it was (no file or object
 *     leaked a reference),
 *   - the grants are what they were (netlink), the domain has no key
 *     (KAV_IOC_DOMAIN_SET_KEY).
 * A netlink call that fails at the socket level (ENOBUFS: the ack or a
 * reply could not be allocated) may have done its work; only the kernel's
 * own error must mean "nothing changed".
 * Leaks of memory are left to kmemleak, which the harness checks at the
 * end of the run on the debug kernel.
 *
 * Needs CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC and
 * FAULT_INJECTION_DEBUG_FS (the debug kernel); skips elsewhere. Prints
 * "# fail-nth: N points exercised" over all cases.
 */
#include <dirent.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_test_grants.h"

#define DEBUGFS		"/sys/kernel/debug"
#define MAX_NTH		5000	/* a sweep longer than this is a bug */
#define PREFILL		62	/* entries before the call: 2 short of a page */
#define BATCH		4	/* a batch that needs a new entry page */
#define BIG_BATCH	300	/* addresses > PAGE_SIZE: kvmalloc's vmalloc side */
#define NTH_TIMEOUT	600	/* seconds per case: TCG + KASAN is slow */

/* Shared with the forked test processes: totals for the summary. */
static unsigned long *total_points;
static unsigned long *cases_swept;

/* Debugfs knobs this test changes, restored at exit. */
static const char *const knobs[][2] = {
	{ "failslab/ignore-gfp-wait", "N" },
	{ "fail_page_alloc/ignore-gfp-wait", "N" },
	{ "fail_page_alloc/ignore-gfp-highmem", "N" },
	{ "fail_page_alloc/min-order", "0" },
	{ "failslab/verbose", "0" },
	{ "fail_page_alloc/verbose", "0" },
};
static char saved[ARRAY_SIZE(knobs)][32];
static bool have_fault_injection;
static pid_t main_pid;

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

static __attribute__((constructor)) void setup_fault_injection(void)
{
	char path[128];
	size_t i;

	main_pid = getpid();
	total_points = mmap(NULL, 2 * sizeof(*total_points),
			    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			    -1, 0);
	if (total_points == MAP_FAILED)
		abort();
	cases_swept = total_points + 1;

	if (access("/proc/self/fail-nth", F_OK))
		return;
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), DEBUGFS "/%s", knobs[i][0]);
		if (read_file(path, saved[i], sizeof(saved[i])))
			return;
	}
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), DEBUGFS "/%s", knobs[i][0]);
		if (write_file(path, knobs[i][1]))
			return;
	}
	have_fault_injection = true;
}

static __attribute__((destructor)) void restore_fault_injection(void)
{
	char path[128];
	size_t i;

	if (!have_fault_injection || getpid() != main_pid)
		return;
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), DEBUGFS "/%s", knobs[i][0]);
		write_file(path, saved[i]);
	}
}

/* --- what a failed call must leave unchanged ------------------------------ */

#define SNAP_ENTRIES	(PREFILL + BIG_BATCH + 64)

struct entry_view {
	uint32_t flags, addr_len;
	uint64_t auth_key, user_id;
	uint8_t addr[16];
};

struct key_view {
	uint32_t flags, vni;
	uint64_t user_id;
	uint32_t nr_entries, nr_endpoints;
};

struct snapshot {
	int fds;
	long refcnt;
	long grants;		/* -1: not looked at */
	bool have_table;
	uint64_t nr_valid;
	struct entry_view e[SNAP_ENTRIES];
	struct key_view k[KAV_MAX_AUTH_KEYS];
};

static int count_open_fds(void)
{
	int n = 0, fd;

	for (fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			n++;
	return n;
}

static long module_refcnt(void)
{
	char buf[32];

	if (read_file("/sys/module/kav/refcnt", buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

/* --- the objects a case works on ------------------------------------------ */

struct ctx {
	struct kav_nl nl;	/* open for the netlink cases */
	uint32_t grant;		/* a grant made by prepare or the call */
	uint32_t av_id;		/* from an AV_GET dump */
	int dom, av, ep;
	int pipe[2];
	struct kav_av_create c;
	const volatile struct kav_table_header *h;	/* whole table */
	uint64_t key;		/* a key handle present in the AV */
	uint64_t fi[BIG_BATCH];	/* indices from the prefill / the call */
	struct sockaddr_in sin[BIG_BATCH];
	uint64_t keys[BIG_BATCH], ids[BIG_BATCH];
	int new_fd;		/* fd a successful call created */
	void *new_map;		/* mapping a successful call created */
	volatile uint32_t sink;
};

static const volatile struct kav_entry *
entry_at(const struct ctx *x, uint64_t idx)
{
	return (const volatile void *)((const volatile char *)x->h +
				       x->h->header_size +
				       idx * x->h->entry_size);
}

static const volatile struct kav_key_slot *
slot_at(const struct ctx *x, uint64_t handle)
{
	return (const volatile void *)((const volatile char *)x->h +
				       x->h->keys_offset +
				       handle * sizeof(struct kav_key_slot));
}

static void take_snapshot(const struct ctx *x, struct snapshot *s)
{
	uint64_t i, n;

	memset(s, 0, sizeof(*s));
	s->fds = count_open_fds();
	s->refcnt = module_refcnt();
	s->grants = -1;
	if (x->nl.fd > 0) {
		static struct kav_nl_grant g[256];
		size_t n;

		if (!kav_nl_grants((struct kav_nl *)&x->nl, g, 256, &n))
			s->grants = (long)n;
	}
	s->have_table = x->h != NULL;
	if (!x->h)
		return;
	s->nr_valid = x->h->nr_valid;
	n = x->h->nr_slots < SNAP_ENTRIES ? x->h->nr_slots : SNAP_ENTRIES;
	for (i = 0; i < n; i++) {
		const volatile struct kav_entry *e = entry_at(x, i);
		size_t b;

		s->e[i].flags = e->flags;
		s->e[i].addr_len = e->addr_len;
		s->e[i].auth_key = e->auth_key;
		s->e[i].user_id = e->user_id;
		for (b = 0; b < sizeof(s->e[i].addr); b++)
			s->e[i].addr[b] = e->addr[b];
	}
	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++) {
		const volatile struct kav_key_slot *k = slot_at(x, i);

		s->k[i].flags = k->flags;
		s->k[i].vni = k->vni;
		s->k[i].user_id = k->user_id;
		s->k[i].nr_entries = kav_uses(x->h, i)->nr_entries;
		s->k[i].nr_endpoints = kav_uses(x->h, i)->nr_endpoints;
	}
}

/* --- the cases --------------------------------------------------------- */

struct nth_case {
	const char *name;
	/* Without injection: build the objects the call needs. */
	int (*prepare)(struct ctx *x);
	/* Under injection: returns 0 or -errno. */
	int (*call)(struct ctx *x);
	/* After a successful call: 0 if it did all it should have. */
	int (*check)(struct ctx *x);
	/* After a failed call, beyond the snapshot (may be NULL). */
	int (*check_failed)(struct ctx *x);
};

static int open_av(struct ctx *x, uint32_t format)
{
	x->dom = kav_open_domain();
	if (x->dom < 0)
		return -errno;
	x->av = kav_create_av(x->dom, format, &x->c);
	if (x->av < 0)
		return x->av;
	x->h = mmap(NULL, x->c.map_size, PROT_READ, MAP_SHARED, x->av, 0);
	if (x->h == MAP_FAILED) {
		x->h = NULL;
		return -errno;
	}
	return 0;
}

static int key_insert(int av, uint32_t vni, uint64_t *handle)
{
	struct kav_av_key k = { .size = sizeof(k), .key.vni = vni };
	int ret = ioctl(av, KAV_IOC_AV_KEY_INSERT, &k) ? -errno : 0;

	*handle = k.handle;
	return ret;
}

static int insert(struct ctx *x, uint32_t n, bool keyed)
{
	struct kav_av_insert in = {
		.size = sizeof(in), .count = n,
		.addr_stride = sizeof(x->sin[0]),
		.addrs = (uintptr_t)x->sin, .fi_addrs = (uintptr_t)x->fi,
		.err_index = KAV_NO_INDEX,
	};

	if (keyed) {
		in.flags = KAV_INSERT_AUTH_KEY | KAV_INSERT_USER_ID;
		in.auth_keys = (uintptr_t)x->keys;
		in.user_ids = (uintptr_t)x->ids;
	}
	return ioctl(x->av, KAV_IOC_AV_INSERT, &in) ? -errno : 0;
}

static void fill_addrs(struct ctx *x, uint32_t base)
{
	uint32_t i;

	for (i = 0; i < BIG_BATCH; i++) {
		x->sin[i] = kav_sin(0x0a000000 + base + i, 1000 + i);
		x->keys[i] = x->key;
		x->ids[i] = 5000 + base + i;
	}
}

/* An AV with a key and PREFILL entries bound to it. */
static int prep_filled(struct ctx *x)
{
	int ret = open_av(x, KAV_ADDR_SOCKADDR_IN);

	if (ret)
		return ret;
	ret = key_insert(x->av, 77, &x->key);
	if (ret)
		return ret;
	fill_addrs(x, 0);
	ret = insert(x, PREFILL, true);
	fill_addrs(x, PREFILL);
	memset(x->fi, 0xff, sizeof(x->fi));
	return ret;
}

static int prep_none(struct ctx *x)
{
	return 0;
}

static int prep_domain(struct ctx *x)
{
	x->dom = kav_open_domain();
	return x->dom < 0 ? -errno : 0;
}

/* open("/dev/kav") */
static int call_open(struct ctx *x)
{
	x->new_fd = kav_open_domain();
	return x->new_fd < 0 ? -errno : 0;
}

static int check_fd(struct ctx *x)
{
	return fcntl(x->new_fd, F_GETFD) == FD_CLOEXEC ? 0 : -1;
}

/* KAV_IOC_AV_CREATE */
static int create(struct ctx *x, uint32_t format)
{
	struct kav_av_create c = { .size = sizeof(c), .addr_format = format };

	if (ioctl(x->dom, KAV_IOC_AV_CREATE, &c))
		return -errno;
	x->new_fd = c.fd;
	x->c = c;
	return 0;
}

static int call_create_in(struct ctx *x)
{
	return create(x, KAV_ADDR_SOCKADDR_IN);
}

static int call_create_str(struct ctx *x)
{
	return create(x, KAV_ADDR_STR);
}

/*
 * KAV_IOC_AV_CREATE of a named AV: creating it (by a keyless domain, and
 * by a keyed one, whose AV takes its key under the names lock: a failure
 * there drops the half-made AV only after the locks, or kav_av_free()'s
 * lockdep assertion fires on the debug kernel), opening it.
 */
#define NTH_NAME	"nth\n"

static int named(struct ctx *x, int dom, uint32_t flags)
{
	struct kav_av_create c = {
		.size = sizeof(c), .flags = flags,
		.addr_format = KAV_ADDR_SOCKADDR_IN,
		.name = (uintptr_t)NTH_NAME, .name_len = strlen(NTH_NAME),
	};

	if (ioctl(dom, KAV_IOC_AV_CREATE, &c))
		return -errno;
	x->c = c;
	return c.fd;
}

static int call_create_named(struct ctx *x)
{
	x->new_fd = named(x, x->dom, KAV_AV_NAMED);
	return x->new_fd < 0 ? x->new_fd : 0;
}

/* A failed create leaves no name behind. */
static int check_no_name(struct ctx *x)
{
	int fd = named(x, x->dom, KAV_AV_NAMED | KAV_AV_RDONLY);

	if (fd >= 0)
		close(fd);
	return fd == -ENOENT ? 0 : -1;
}

static int prep_named(struct ctx *x)
{
	int ret = prep_domain(x);

	if (ret)
		return ret;
	x->av = named(x, x->dom, KAV_AV_NAMED);
	return x->av < 0 ? x->av : 0;
}

static int call_open_named(struct ctx *x)
{
	x->new_fd = named(x, x->dom, KAV_AV_NAMED | KAV_AV_RDONLY);
	return x->new_fd < 0 ? x->new_fd : 0;
}

static int check_opened(struct ctx *x)
{
	return !check_fd(x) && !x->c.result ? 0 : -1;
}

static int check_create(struct ctx *x)
{
	const struct kav_table_header *h;
	int ok;

	if (check_fd(x))
		return -1;
	h = mmap(NULL, 4096, PROT_READ, MAP_SHARED, x->new_fd, 0);
	if (h == MAP_FAILED)
		return -1;
	ok = h->magic == KAV_TABLE_MAGIC && h->nr_valid == 0 &&
	     h->entry_size == x->c.entry_size;
	munmap((void *)h, 4096);
	return ok ? 0 : -1;
}

/* KAV_IOC_AV_INSERT */
static int call_insert(struct ctx *x)
{
	return insert(x, BATCH, false);
}

static int call_insert_keyed(struct ctx *x)
{
	return insert(x, BATCH, true);
}

static int call_insert_big(struct ctx *x)
{
	return insert(x, BIG_BATCH, true);
}

static int check_inserted(struct ctx *x, uint32_t n, bool keyed)
{
	uint32_t i;

	if (x->h->nr_valid != PREFILL + n || (x->h->generation & 1))
		return -1;
	for (i = 0; i < n; i++) {
		const volatile struct kav_entry *e = entry_at(x, x->fi[i]);

		if (x->fi[i] != PREFILL + i || e->flags != KAV_ENTRY_VALID ||
		    memcmp((const void *)e->addr, &x->sin[i], sizeof(x->sin[i])))
			return -1;
		if (keyed && (e->auth_key != x->key || e->user_id != x->ids[i]))
			return -1;
		if (!keyed && (e->auth_key != KAV_ENTRY_NO_KEY ||
			       e->user_id != KAV_NONE))
			return -1;
	}
	return kav_uses(x->h, x->key)->nr_entries ==
	       PREFILL + (keyed ? n : 0) ? 0 : -1;
}

static int check_insert(struct ctx *x)
{
	return check_inserted(x, BATCH, false);
}

static int check_insert_keyed(struct ctx *x)
{
	return check_inserted(x, BATCH, true);
}

static int check_insert_big(struct ctx *x)
{
	return check_inserted(x, BIG_BATCH, true);
}

/* KAV_IOC_AV_REMOVE: three entries from the middle. */
static int call_remove(struct ctx *x)
{
	static const uint64_t idx[] = { 7, 3, 40 };

	return kav_remove(x->av, idx, ARRAY_SIZE(idx), NULL);
}

static int check_remove(struct ctx *x)
{
	return x->h->nr_valid == PREFILL - 3 && !entry_at(x, 7)->flags &&
	       !entry_at(x, 3)->flags && !entry_at(x, 40)->flags &&
	       kav_uses(x->h, x->key)->nr_entries == PREFILL - 3 ? 0 : -1;
}

/* A batch larger than a page of indices. */
static int call_remove_big(struct ctx *x)
{
	uint64_t idx[PREFILL * 10];
	uint32_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(idx); i++)
		idx[i] = i % PREFILL;
	/* Repeats: the call fails with EINVAL after its allocations. */
	ret = kav_remove(x->av, idx, ARRAY_SIZE(idx), NULL);
	return ret == -EINVAL ? 0 : ret ? ret : -EIO;
}

static int check_unchanged(struct ctx *x)
{
	return x->h->nr_valid == PREFILL ? 0 : -1;
}

/* KAV_IOC_AV_KEY_INSERT, _KEY_REMOVE */
static int call_key_insert(struct ctx *x)
{
	uint64_t h;
	int ret = key_insert(x->av, 4242, &h);

	x->fi[0] = h;
	return ret;
}

static int check_key_insert(struct ctx *x)
{
	return slot_at(x, x->fi[0])->vni == 4242 &&
	       slot_at(x, x->fi[0])->flags == KAV_KEY_VALID ? 0 : -1;
}

static int prep_spare_key(struct ctx *x)
{
	int ret = prep_filled(x);

	return ret ? ret : key_insert(x->av, 99, &x->fi[0]);
}

static int call_key_remove(struct ctx *x)
{
	struct kav_av_key k = { .size = sizeof(k), .handle = x->fi[0] };

	return ioctl(x->av, KAV_IOC_AV_KEY_REMOVE, &k) ? -errno : 0;
}

static int check_key_remove(struct ctx *x)
{
	return slot_at(x, x->fi[0])->flags ? -1 : 0;
}

/* KAV_IOC_AV_SET_USER_ID, on an entry and on a key */
static int set_user_id(struct ctx *x, uint32_t flags, uint64_t idx)
{
	struct kav_av_user_id u = { .size = sizeof(u), .flags = flags,
				    .index = idx, .user_id = 31337 };

	return ioctl(x->av, KAV_IOC_AV_SET_USER_ID, &u) ? -errno : 0;
}

static int call_set_user_id(struct ctx *x)
{
	return set_user_id(x, 0, 5);
}

static int check_set_user_id(struct ctx *x)
{
	return entry_at(x, 5)->user_id == 31337 ? 0 : -1;
}

static int call_set_key_user_id(struct ctx *x)
{
	return set_user_id(x, KAV_USER_ID_AUTH_KEY, x->key);
}

static int check_set_key_user_id(struct ctx *x)
{
	return slot_at(x, x->key)->user_id == 31337 ? 0 : -1;
}

/* KAV_IOC_AV_EP_OPEN, KAV_IOC_EP_ENABLE */
static int call_ep_open(struct ctx *x)
{
	struct kav_av_ep_open e = { .size = sizeof(e) };

	if (ioctl(x->av, KAV_IOC_AV_EP_OPEN, &e))
		return -errno;
	x->new_fd = e.fd;
	return 0;
}

static int prep_ep(struct ctx *x)
{
	int ret = prep_filled(x);

	if (ret)
		return ret;
	ret = call_ep_open(x);
	x->ep = x->new_fd;
	x->new_fd = -1;
	return ret;
}

static int call_ep_enable(struct ctx *x)
{
	struct kav_ep_enable e = { .size = sizeof(e) };

	if (ioctl(x->ep, KAV_IOC_EP_ENABLE, &e))
		return -errno;
	x->fi[0] = e.keys;
	return 0;
}

static int check_ep_enable(struct ctx *x)
{
	return x->fi[0] == 1ULL << x->key &&
	       kav_uses(x->h, x->key)->nr_endpoints == 1 ? 0 : -1;
}

/* mmap() of the whole table */
static int call_mmap(struct ctx *x)
{
	void *p = mmap(NULL, x->c.map_size, PROT_READ, MAP_SHARED, x->av, 0);

	if (p == MAP_FAILED)
		return -errno;
	x->new_map = p;
	return 0;
}

static int check_mmap(struct ctx *x)
{
	return ((const struct kav_table_header *)x->new_map)->magic ==
	       KAV_TABLE_MAGIC ? 0 : -1;
}

/* First touch of a table page from user mode: a failed fault is retried. */
static int prep_fresh_map(struct ctx *x)
{
	int ret = prep_filled(x);

	if (ret)
		return ret;
	ret = call_mmap(x);
	if (!ret && pipe(x->pipe))
		ret = -errno;
	return ret;
}

static int call_fault_user(struct ctx *x)
{
	const volatile struct kav_table_header *h = x->new_map;

	x->sink = h->magic;
	x->sink += ((const volatile struct kav_entry *)
		    ((const volatile char *)h + h->header_size))->flags;
	return 0;
}

static int check_fault_user(struct ctx *x)
{
	return x->sink == KAV_TABLE_MAGIC + KAV_ENTRY_VALID ? 0 : -1;
}

/* ... and from the kernel (copy_from_user), where a failed fault is EFAULT. */
static int call_fault_kernel(struct ctx *x)
{
	const char *p = x->new_map;
	ssize_t n = write(x->pipe[1], p + x->h->header_size, 64);

	if (n < 0)
		return -errno;
	return n == 64 ? 0 : -EIO;
}

static int check_fault_kernel(struct ctx *x)
{
	uint8_t flags;
	char buf[64];

	if (read(x->pipe[0], buf, sizeof(buf)) != sizeof(buf))
		return -1;
	memcpy(&flags, buf + offsetof(struct kav_entry, flags), sizeof(flags));
	return flags == KAV_ENTRY_VALID ? 0 : -1;
}

/* KAV_IOC_DOMAIN_SET_KEY: the domain's key (granted vni 77). */
static int domain_key(struct ctx *x)
{
	struct kav_domain_key k = { .size = sizeof(k), .key.vni = 77 };

	return ioctl(x->dom, KAV_IOC_DOMAIN_SET_KEY, &k) ? -errno : 0;
}

static int check_domain_key(struct ctx *x)
{
	int av = kav_create_av(x->dom, KAV_ADDR_SOCKADDR_IN, &x->c);
	int ok;

	if (av < 0)
		return -1;
	x->h = mmap(NULL, x->c.map_size, PROT_READ, MAP_SHARED, av, 0);
	if (x->h == MAP_FAILED) {
		x->h = NULL;
		close(av);
		return -1;
	}
	ok = (slot_at(x, 0)->flags & KAV_KEY_DOMAIN) && slot_at(x, 0)->vni == 77;
	x->av = av;
	return ok ? 0 : -1;
}

/* A failed call left the domain without a key: setting it works now. */
static int check_domain_key_failed(struct ctx *x)
{
	return domain_key(x) ? -1 : check_domain_key(x);
}

/* Generic netlink: GRANT_ADD, GRANT_DEL and the dumps. */
static int prep_nl(struct ctx *x)
{
	return kav_nl_open(&x->nl) ? -EIO : 0;
}

static int call_grant_add(struct ctx *x)
{
	return kav_nl_grant_uid(&x->nl, 5555, 4321, &x->grant);
}

static int check_grant_add(struct ctx *x)
{
	int ret = kav_nl_grant_exists(&x->nl, x->grant);

	kav_nl_grant_del(&x->nl, x->grant);
	return ret == 1 ? 0 : -1;
}

static int prep_grant(struct ctx *x)
{
	int ret = prep_nl(x);

	return ret ? ret : kav_nl_grant_uid(&x->nl, 5556, 4321, &x->grant);
}

static int call_grant_del(struct ctx *x)
{
	return kav_nl_grant_del(&x->nl, x->grant);
}

static int check_grant_del(struct ctx *x)
{
	return kav_nl_grant_exists(&x->nl, x->grant) == 0 ? 0 : -1;
}

static int check_grant_del_failed(struct ctx *x)
{
	int ret = kav_nl_grant_exists(&x->nl, x->grant);

	kav_nl_grant_del(&x->nl, x->grant);
	return ret == 1 ? 0 : -1;
}

static int call_grant_get(struct ctx *x)
{
	static struct kav_nl_grant g[256];
	size_t n;
	int ret = kav_nl_grants(&x->nl, g, 256, &n);

	x->fi[0] = n;
	return ret;
}

static int check_grant_get(struct ctx *x)
{
	return x->fi[0] >= 3 ? 0 : -1;	/* the fixture's three */
}

static int count_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		    const struct kav_nl_attrs *at, void *arg)
{
	struct ctx *x = arg;

	if (at->a[KAV_A_AV_ID] && !x->fi[1])
		x->av_id = kav_nl_u32(at->a[KAV_A_AV_ID]);
	x->fi[1]++;
	return 0;
}

static int dump(struct ctx *x, uint8_t cmd, int64_t av_id)
{
	x->fi[1] = 0;
	return kav_nl_dump(&x->nl, cmd, av_id, count_cb, x);
}

static int prep_nl_av(struct ctx *x)
{
	int ret = prep_filled(x);

	return ret ? ret : prep_nl(x);
}

static int call_domain_get(struct ctx *x)
{
	return dump(x, KAV_GENL_CMD_DOMAIN_GET, -1);
}

static int call_av_get(struct ctx *x)
{
	return dump(x, KAV_GENL_CMD_AV_GET, -1);
}

static int check_dumped(struct ctx *x)
{
	return x->fi[1] >= 1 ? 0 : -1;
}

static int prep_nl_av_id(struct ctx *x)
{
	int ret = prep_nl_av(x);

	if (ret)
		return ret;
	ret = dump(x, KAV_GENL_CMD_AV_GET, -1);
	return ret ? ret : x->fi[1] ? 0 : -ENOENT;
}

static int call_entry_get(struct ctx *x)
{
	return dump(x, KAV_GENL_CMD_ENTRY_GET, x->av_id);
}

static int call_stats_get(struct ctx *x)
{
	struct kav_nl_stats st;

	return kav_nl_stats(&x->nl, &st);
}

static int check_none(struct ctx *x)
{
	return 0;
}

/* AV_PIN: the pin is there if unpinning it works (which also undoes it). */
static int prep_nl_named(struct ctx *x)
{
	int ret = prep_named(x);

	return ret ? ret : prep_nl(x);
}

static int pin(struct ctx *x, uint8_t cmd)
{
	struct kav_nl_msg m;

	kav_nl_req(&x->nl, &m, cmd, 0);
	kav_nl_put_u32(&m, KAV_A_AV_ID, x->c.av_id);
	return kav_nl_talk(&x->nl, &m, NULL, NULL);
}

static int call_av_pin(struct ctx *x)
{
	return pin(x, KAV_GENL_CMD_AV_PIN);
}

static int check_pinned(struct ctx *x)
{
	return pin(x, KAV_GENL_CMD_AV_UNPIN) ? -1 : 0;
}

/*
 * The named AV, unpinned: a point whose ack was lost (ENOBUFS, state
 * unknown) may have pinned it, and a pin keeps it, and its name, alive
 * into the next point's prepare, whose pin would then fail with EALREADY.
 */
static int prep_nl_pin(struct ctx *x)
{
	int ret = prep_nl_named(x);

	if (ret)
		return ret;
	ret = pin(x, KAV_GENL_CMD_AV_UNPIN);
	return ret == -EALREADY ? 0 : ret;
}

/* A job table (KAV_AV_JOB) of a domain keyed with 4242. */
static int prep_domain_keyed(struct ctx *x)
{
	struct kav_domain_key k = { .size = sizeof(k), .key.vni = 4242 };
	int ret = prep_domain(x);

	if (ret)
		return ret;
	return ioctl(x->dom, KAV_IOC_DOMAIN_SET_KEY, &k) ? -errno : 0;
}

static int job(struct ctx *x)
{
	struct kav_av_create c = { .size = sizeof(c), .flags = KAV_AV_JOB,
				   .addr_format = KAV_ADDR_SOCKADDR_IN };

	if (ioctl(x->dom, KAV_IOC_AV_CREATE, &c))
		return -errno;
	x->c = c;
	return c.fd;
}

static int call_create_job(struct ctx *x)
{
	x->new_fd = job(x);
	return x->new_fd < 0 ? x->new_fd : 0;
}

/* A failed create leaves no job table behind: the next one creates. */
static int check_no_job(struct ctx *x)
{
	int fd = job(x);

	if (fd < 0)
		return -1;
	close(fd);
	return x->c.result == KAV_AV_CREATED ? 0 : -1;
}

/* A job table with PREFILL entries. */
static int prep_job(struct ctx *x)
{
	int ret = prep_domain_keyed(x);
	uint32_t i;

	if (ret)
		return ret;
	x->av = job(x);
	if (x->av < 0)
		return x->av;
	x->h = mmap(NULL, x->c.map_size, PROT_READ, MAP_SHARED, x->av, 0);
	if (x->h == MAP_FAILED) {
		x->h = NULL;
		return -errno;
	}
	fill_addrs(x, 0);
	ret = insert(x, PREFILL, false);
	/* The call's batch: the last two known addresses, then new ones. */
	for (i = 0; i < BATCH; i++)
		x->sin[i] = x->sin[PREFILL - 2 + i];
	for (i = 2; i < BATCH; i++)
		x->sin[i] = kav_sin(0x0a100000 + i, 3000 + i);
	memset(x->fi, 0xff, sizeof(x->fi));
	return ret;
}

static int call_insert_job(struct ctx *x)
{
	return insert(x, BATCH, false);
}

static int check_insert_job(struct ctx *x)
{
	uint32_t i;

	if (x->h->nr_valid != PREFILL + BATCH - 2 || (x->h->generation & 1))
		return -1;
	for (i = 0; i < BATCH; i++)
		if (x->fi[i] != PREFILL - 2 + i ||
		    memcmp((const void *)entry_at(x, x->fi[i])->addr,
			   &x->sin[i], sizeof(x->sin[i])))
			return -1;
	return kav_uses(x->h, 0)->nr_entries == PREFILL + BATCH - 2 ? 0 : -1;
}

/*
 * Every case: its name (the variant's, and the one its messages give),
 * prepare, call, check, check_failed. cases[], the nth_<name> indices and
 * the test variants are all made from this one list, so each case runs
 * once, under its own name.
 */
#define NTH_CASES(X)							\
	X(open, prep_none, call_open, check_fd, NULL) \
	X(av_create_in, prep_domain, call_create_in, check_create, NULL) \
	X(av_create_str, prep_domain, call_create_str, check_create, NULL) \
	X(av_create_named, prep_domain, call_create_named, \
	  check_create, check_no_name) \
	X(av_create_named_keyed, prep_domain_keyed, call_create_named, \
	  check_create, check_no_name) \
	X(av_open_named, prep_named, call_open_named, check_opened, NULL) \
	X(insert, prep_filled, call_insert, check_insert, NULL) \
	X(insert_keys_user_ids, prep_filled, call_insert_keyed, \
	  check_insert_keyed, NULL) \
	X(insert_big, prep_filled, call_insert_big, check_insert_big, NULL) \
	X(remove, prep_filled, call_remove, check_remove, NULL) \
	X(remove_big_repeats, prep_filled, call_remove_big, \
	  check_unchanged, NULL) \
	X(key_insert, prep_filled, call_key_insert, check_key_insert, NULL) \
	X(key_remove, prep_spare_key, call_key_remove, check_key_remove, NULL) \
	X(set_user_id, prep_filled, call_set_user_id, check_set_user_id, NULL) \
	X(set_key_user_id, prep_filled, call_set_key_user_id, \
	  check_set_key_user_id, NULL) \
	X(ep_open, prep_filled, call_ep_open, check_fd, NULL) \
	X(ep_enable, prep_ep, call_ep_enable, check_ep_enable, NULL) \
	X(mmap, prep_filled, call_mmap, check_mmap, NULL) \
	X(fault_user, prep_fresh_map, call_fault_user, check_fault_user, NULL) \
	X(fault_kernel, prep_fresh_map, call_fault_kernel, \
	  check_fault_kernel, NULL) \
	X(domain_set_key, prep_domain, domain_key, \
	  check_domain_key, check_domain_key_failed) \
	X(nl_grant_add, prep_nl, call_grant_add, check_grant_add, NULL) \
	X(nl_grant_del, prep_grant, call_grant_del, \
	  check_grant_del, check_grant_del_failed) \
	X(nl_grant_get, prep_nl, call_grant_get, check_grant_get, NULL) \
	X(nl_domain_get, prep_nl_av, call_domain_get, check_dumped, NULL) \
	X(nl_av_get, prep_nl_av, call_av_get, check_dumped, NULL) \
	X(nl_entry_get, prep_nl_av_id, call_entry_get, check_dumped, NULL) \
	X(nl_stats_get, prep_nl, call_stats_get, check_none, NULL) \
	X(nl_av_pin, prep_nl_pin, call_av_pin, check_pinned, NULL) \
	X(av_create_job, prep_domain_keyed, call_create_job, \
	  check_create, check_no_job) \
	X(insert_job, prep_job, call_insert_job, check_insert_job, NULL)

#define NTH_CASE(_name, _prep, _call, _check, _failed)			\
	[nth_##_name] = { #_name, _prep, _call, _check, _failed },
#define NTH_INDEX(_name, ...) nth_##_name,

enum { NTH_CASES(NTH_INDEX) NR_NTH_CASES };

static const struct nth_case cases[] = {
	NTH_CASES(NTH_CASE)
};

static void ctx_init(struct ctx *x)
{
	memset(x, 0, sizeof(*x));
	x->dom = x->av = x->ep = x->new_fd = -1;
	x->pipe[0] = x->pipe[1] = -1;
}

static void ctx_close(struct ctx *x)
{
	int *fds[] = { &x->new_fd, &x->ep, &x->pipe[0], &x->pipe[1],
		       &x->av, &x->dom };
	size_t i;

	if (x->nl.fd > 0)
		kav_nl_close(&x->nl);
	if (x->new_map)
		munmap(x->new_map, x->c.map_size);
	if (x->h)
		munmap((void *)x->h, x->c.map_size);
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		if (*fds[i] >= 0)
			close(*fds[i]);
	ctx_init(x);
}

/* --- the sweep ------------------------------------------------------------- */

FIXTURE(nth) {
	struct kav_test_grants grants;
	int nth_fd;
	struct ctx x;
	struct snapshot before, after;
};

FIXTURE_VARIANT(nth) {
	const struct nth_case *c;
};

/* One variant per case, named as the case: cases[nth_<name>]. */
#define NTH_VARIANT(_name, ...)						\
	FIXTURE_VARIANT_ADD(nth, _name) { .c = &cases[nth_##_name] };
#define NTH_ONE(...) + 1

NTH_CASES(NTH_VARIANT)

/* As many variants as cases, each at its own index: none shifted, none left. */
enum { NR_NTH_VARIANTS = 0 NTH_CASES(NTH_ONE) };
_Static_assert(NR_NTH_VARIANTS == ARRAY_SIZE(cases) &&
	       NR_NTH_CASES == ARRAY_SIZE(cases),
	       "one variant per case of cases[]");

/*
 * A page fault of our own while fail-nth is armed would take the injected
 * failure instead of the call: have the stack and everything mapped so far
 * resident and locked.
 */
static void __attribute__((noinline)) prefault(void)
{
	volatile char stack[64 * 1024];
	size_t i;

	for (i = 0; i < sizeof(stack); i += 1024)
		stack[i] = 0;
	mlockall(MCL_CURRENT);
}

FIXTURE_SETUP(nth)
{
	char path[64];

	ctx_init(&self->x);
	self->nth_fd = -1;
	if (!have_fault_injection)
		SKIP(return, "no fault injection (needs CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS)");
	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	self->nth_fd = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth_fd);
	/* The keys the cases use, granted to root as an admin would. */
	memset(&self->grants, 0, sizeof(self->grants));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 77, 1));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 99, 1));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 4242, 1));
	prefault();
}

FIXTURE_TEARDOWN(nth)
{
	ctx_close(&self->x);
	kav_test_revoke_all(&self->grants);
	if (self->nth_fd >= 0)
		close(self->nth_fd);
}

static void set_nth(struct __test_metadata *_metadata, int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	ASSERT_EQ(len, pwrite(fd, buf, len, 0));
}

/* Fail-nth left after the call: 0 means the N-th point was reached. */
static unsigned int get_nth(struct __test_metadata *_metadata, int fd)
{
	char buf[16] = "";

	ASSERT_LT(1, pread(fd, buf, sizeof(buf) - 1, 0));
	return strtoul(buf, NULL, 10);
}

static bool same_state(struct __test_metadata *_metadata,
		       const struct snapshot *a, const struct snapshot *b)
{
	uint64_t i;

	EXPECT_EQ(a->grants, b->grants) TH_LOG("the grants changed");
	EXPECT_EQ(a->fds, b->fds) TH_LOG("a file descriptor leaked");
	EXPECT_EQ(a->refcnt, b->refcnt) TH_LOG("module reference leaked");
	EXPECT_EQ(a->nr_valid, b->nr_valid);
	for (i = 0; i < SNAP_ENTRIES; i++)
		if (memcmp(&a->e[i], &b->e[i], sizeof(a->e[i]))) {
			TH_LOG("entry %llu changed", (unsigned long long)i);
			return false;
		}
	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++)
		if (memcmp(&a->k[i], &b->k[i], sizeof(a->k[i]))) {
			TH_LOG("key slot %llu changed", (unsigned long long)i);
			return false;
		}
	return a->fds == b->fds && a->refcnt == b->refcnt &&
	       a->nr_valid == b->nr_valid && a->grants == b->grants;
}

TEST_F_TIMEOUT(nth, sweep, NTH_TIMEOUT)
{
	const struct nth_case *c = variant->c;
	unsigned int n, left, failed = 0, absorbed = 0;
	int ret;

	for (n = 1; n <= MAX_NTH; n++) {
		ret = c->prepare(&self->x);
		if (ret == -EACCES || ret == -EPERM)
			SKIP(return, "%s: not authorised: needs a grant (issue 4)",
			     c->name);
		ASSERT_EQ(0, ret) TH_LOG("%s: prepare: %s", c->name,
					 strerror(-ret));
		take_snapshot(&self->x, &self->before);

		set_nth(_metadata, self->nth_fd, n);
		ret = c->call(&self->x);
		left = get_nth(_metadata, self->nth_fd);
		set_nth(_metadata, self->nth_fd, 0);

		if (left) {
			/* The call ran to the end without reaching point n. */
			if (n == 1 && (ret == -EACCES || ret == -EPERM))
				SKIP(return, "%s: not authorised: needs a grant (issue 4)",
				     c->name);
			ASSERT_EQ(0, ret) TH_LOG("%s: fails without injection: %s",
						 c->name, strerror(-ret));
			ASSERT_EQ(0, c->check(&self->x))
				TH_LOG("%s: wrong result", c->name);
			ctx_close(&self->x);
			break;
		}
		if (ret == 0) {
			/* The failure was absorbed (a fallback, a retry). */
			absorbed++;
			ASSERT_EQ(0, c->check(&self->x))
				TH_LOG("%s: point %u absorbed, wrong result",
				       c->name, n);
		} else {
			failed++;
			EXPECT_TRUE(ret == -ENOMEM || ret == -EFAULT ||
				    ret == -ENOBUFS)
				TH_LOG("%s: point %u: unexpected error %s",
				       c->name, n, strerror(-ret));
			if (ret == -ENOBUFS) {
				/* Lost ack or reply: the state is unknown. */
				ctx_close(&self->x);
				continue;
			}
			take_snapshot(&self->x, &self->after);
			ASSERT_TRUE(same_state(_metadata, &self->before,
					       &self->after))
				TH_LOG("%s: point %u failed with %s, not cleanly",
				       c->name, n, strerror(-ret));
			ASSERT_EQ(0, self->x.h ? self->x.h->generation & 1 : 0);
			if (c->check_failed)
				ASSERT_EQ(0, c->check_failed(&self->x))
					TH_LOG("%s: point %u: left a half-done change",
					       c->name, n);
		}
		ctx_close(&self->x);
	}
	ASSERT_GE(MAX_NTH, n) TH_LOG("%s: no end after %u points", c->name, n);
	printf("# fail-nth: %s: %u points (%u failed the call, %u absorbed)\n",
	       c->name, n - 1, failed, absorbed);
	fflush(stdout);
	__atomic_fetch_add(total_points, n - 1, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(cases_swept, 1, __ATOMIC_SEQ_CST);
}

/*
 * Last (a fixture registered after "nth"; global TESTs would run first):
 * the total over every case above.
 */
FIXTURE(total) {
	int unused;
};

FIXTURE_SETUP(total)
{
}

FIXTURE_TEARDOWN(total)
{
}

TEST_F(total, summary)
{
	if (!have_fault_injection)
		SKIP(return, "no fault injection in this kernel");
	printf("# fail-nth: %lu points exercised in %lu calls\n",
	       *total_points, *cases_swept);
	fflush(stdout);
	EXPECT_LT(0, *cases_swept);
	EXPECT_LT(0, *total_points);
}

/* Without fault injection (Debian's kernels) the whole program is one SKIP. */
int main(int argc, char **argv)
{
	if (!have_fault_injection) {
		printf("TAP version 13\n1..1\n");
		printf("ok 1 fail_nth # SKIP no fault injection in this kernel (needs FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS)\n");
		return 0;
	}
	return test_harness_run(argc, argv);
}
