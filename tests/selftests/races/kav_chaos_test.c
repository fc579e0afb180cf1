// SPDX-License-Identifier: GPL-2.0
/*
 * Chaos: worker processes hammer shared and private AVs (insert with and
 * without keys and user ids, remove, key insert/remove, set user id,
 * endpoints opened, enabled and closed, tables mapped and read with the
 * sequence protocol, domains and AVs opened and closed) and are killed
 * with SIGKILL at random points, then replaced. After each round, with
 * every worker dead:
 *   - each shared table adds up: nr_valid == the number of valid entries,
 *     each key's nr_entries == the entries bound to it, nr_endpoints == 0
 *     (every endpoint died with its process), the generation is even;
 *   - the tables still work (insert, remove);
 *   - once the test closes its own fds, kav.ko unloads (delete_module):
 *     every file, mapping and module reference was released; it is then
 *     loaded again from $KAV_MODULE for the next round.
 * Memory leaks are kmemleak's to find (the harness scans at the end of the
 * run on the debug kernel).
 *
 * One more worker grants and revokes the AVs' keys (VNIs 0-7) over generic
 * netlink, as an administrator would, while the others use them: entries
 * and endpoints stay counted whether their key is revoked or not.
 *
 * Seeded and bounded: KAV_CHAOS_SEED (printed; random when unset),
 * KAV_CHAOS_ROUNDS (8), KAV_CHAOS_SECONDS (90: no round starts after
 * that). Runs as root; kav_module_test runs after it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_nl_util.h"

#define WORKERS		5	/* the last one grants and revokes */
#define NR_VNIS		8
#define KILLS		16	/* per round */
#define NR_SHARED	2
#define CHAOS_TIMEOUT	600

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* Shared with the workers. */
struct board {
	unsigned long ops[WORKERS];
	unsigned long anomalies;
	char anomaly[160];
};

struct shared_av {
	int fd;
	struct kav_av_create c;
	const volatile struct kav_table_header *h;
};

static const volatile struct kav_entry *
entry_at(const volatile struct kav_table_header *h, uint64_t idx)
{
	return (const volatile void *)((const volatile char *)h +
				       h->header_size + idx * h->entry_size);
}

static const volatile struct kav_key_slot *
slot_at(const volatile struct kav_table_header *h, uint64_t handle)
{
	return (const volatile void *)((const volatile char *)h +
				       h->keys_offset +
				       handle * sizeof(struct kav_key_slot));
}

static void anomaly(struct board *b, const char *what, int err)
{
	if (__atomic_fetch_add(&b->anomalies, 1, __ATOMIC_SEQ_CST) == 0)
		snprintf(b->anomaly, sizeof(b->anomaly), "%s: %s", what,
			 strerror(err));
}

/*
 * Errors a racing worker may legitimately see; EACCES and EPERM once keys
 * need grants (issue 4).
 */
static bool expected_errno(int e)
{
	return e == EINVAL || e == EEXIST || e == ENOSPC || e == EBUSY ||
	       e == EALREADY || e == ENOMEM || e == EMFILE || e == EACCES ||
	       e == EPERM || e == EKEYREVOKED;
}

/* --- worker ------------------------------------------------------------------ */

struct worker {
	struct board *b;
	int slot;
	int doms[2], nr_doms;
	struct shared_av avs[NR_SHARED + 2];
	int nr_avs, nr_shared;
	int eps[8], nr_eps;
};

static uint64_t key_of(const volatile struct kav_table_header *h)
{
	uint64_t k = below(KAV_MAX_AUTH_KEYS), i;

	for (i = 0; i < 8; i++, k = (k + 1) % KAV_MAX_AUTH_KEYS)
		if (slot_at(h, k)->flags)
			return k;
	return below(4);
}

static void w_insert(struct worker *w, struct shared_av *a)
{
	struct sockaddr_in s[16];
	uint64_t keys[16], ids[16], fi[16];
	uint32_t n = 1 + below(16), i;
	bool keyed = below(2), with_ids = below(2);
	struct kav_av_insert in = {
		.size = sizeof(in), .count = n, .addr_stride = sizeof(s[0]),
		.addrs = (uintptr_t)s, .fi_addrs = (uintptr_t)fi,
		.flags = (keyed ? KAV_INSERT_AUTH_KEY : 0) |
			 (with_ids ? KAV_INSERT_USER_ID : 0),
		.auth_keys = keyed ? (uintptr_t)keys : 0,
		.user_ids = with_ids ? (uintptr_t)ids : 0,
	};

	if (a->c.entry_size != 32 || a->h->addr_format != KAV_ADDR_SOCKADDR_IN)
		return;
	for (i = 0; i < n; i++) {
		s[i] = kav_sin(rnd(), rnd());
		keys[i] = key_of(a->h);
		ids[i] = rnd();
	}
	if (ioctl(a->fd, KAV_IOC_AV_INSERT, &in) && !expected_errno(errno))
		anomaly(w->b, "insert", errno);
}

static void w_remove(struct worker *w, struct shared_av *a)
{
	uint64_t idx[8], slots = a->h->nr_slots;
	uint32_t n = 0, i;

	for (i = 0; i < 32 && n < 1 + below(8) && slots; i++) {
		uint64_t j = below(slots);

		if (entry_at(a->h, j)->flags)
			idx[n++] = j;
	}
	if (n && kav_remove(a->fd, idx, n, NULL) < 0 && !expected_errno(errno))
		anomaly(w->b, "remove", errno);
}

static void w_key(struct worker *w, struct shared_av *a)
{
	struct kav_av_key k = { .size = sizeof(k), .key.vni = below(NR_VNIS),
				.handle = below(10) };
	unsigned long cmd = below(2) ? KAV_IOC_AV_KEY_INSERT :
				       KAV_IOC_AV_KEY_REMOVE;

	if (ioctl(a->fd, cmd, &k) && !expected_errno(errno))
		anomaly(w->b, "key", errno);
}

static void w_user_id(struct worker *w, struct shared_av *a)
{
	bool key = below(2);
	struct kav_av_user_id u = {
		.size = sizeof(u), .flags = key ? KAV_USER_ID_AUTH_KEY : 0,
		.index = key ? below(10) : below(a->h->nr_slots + 1),
		.user_id = rnd(),
	};

	if (ioctl(a->fd, KAV_IOC_AV_SET_USER_ID, &u) && !expected_errno(errno))
		anomaly(w->b, "set user id", errno);
}

static void w_ep(struct worker *w, struct shared_av *a)
{
	struct kav_av_ep_open o = { .size = sizeof(o) };
	struct kav_ep_enable e = { .size = sizeof(e) };

	if (w->nr_eps && below(2)) {
		close(w->eps[--w->nr_eps]);
		return;
	}
	if (w->nr_eps == 8)
		return;
	if (ioctl(a->fd, KAV_IOC_AV_EP_OPEN, &o)) {
		if (!expected_errno(errno))
			anomaly(w->b, "ep open", errno);
		return;
	}
	w->eps[w->nr_eps++] = o.fd;
	if (below(3) && ioctl(o.fd, KAV_IOC_EP_ENABLE, &e))
		anomaly(w->b, "ep enable", errno);
}

/* Map the table and read entries with the sequence protocol. */
static void w_read(struct worker *w, struct shared_av *a)
{
	const volatile struct kav_table_header *h;
	uint64_t i, slots;

	h = mmap(NULL, a->c.map_size, PROT_READ, MAP_SHARED, a->fd, 0);
	if (h == MAP_FAILED) {
		anomaly(w->b, "mmap", errno);
		return;
	}
	slots = __atomic_load_n(&h->nr_slots, __ATOMIC_ACQUIRE);
	for (i = 0; i < 16 && slots; i++) {
		const volatile struct kav_entry *e = entry_at(h, below(slots));
		uint64_t s1, s2;
		uint32_t flags, len;

		s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
		flags = e->flags;
		len = e->addr_len;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = e->seq;
		if (s1 != s2 || (s1 & 1))
			continue;	/* a writer was there: retry later */
		if (flags & KAV_ENTRY_VALID && (len == 0 || len > h->addr_max))
			anomaly(w->b, "torn entry read", EIO);
	}
	munmap((void *)h, a->c.map_size);
}

/* Private domains and AVs come and go. */
static void w_churn(struct worker *w)
{
	struct shared_av *a;
	int fd;

	if (w->nr_avs > w->nr_shared && below(2)) {
		a = &w->avs[--w->nr_avs];
		close(a->fd);
		return;
	}
	if (w->nr_doms < 2) {
		fd = kav_open_domain();
		if (fd < 0) {
			anomaly(w->b, "open", errno);
			return;
		}
		w->doms[w->nr_doms++] = fd;
	}
	if (w->nr_avs == NR_SHARED + 2) {
		close(w->doms[--w->nr_doms]);	/* AVs outlive it */
		return;
	}
	a = &w->avs[w->nr_avs];
	a->fd = kav_create_av(w->doms[below(w->nr_doms)], KAV_ADDR_SOCKADDR_IN,
			      &a->c);
	if (a->fd < 0) {
		anomaly(w->b, "create", -a->fd);
		return;
	}
	/* A private table is read through a private mapping. */
	a->h = mmap(NULL, a->c.map_size, PROT_READ, MAP_SHARED, a->fd, 0);
	if (a->h == MAP_FAILED) {
		close(a->fd);
		return;
	}
	w->nr_avs++;
}

/* The administrator: grants VNIs to root and revokes them, at random. */
static __attribute__((noreturn)) void grant_worker(struct board *b, int slot)
{
	struct kav_nl nl = { 0 };
	uint32_t ids[64];
	int n = 0, ret;

	if (kav_nl_open(&nl)) {
		anomaly(b, "netlink open", errno);
		for (;;)
			pause();
	}
	for (;;) {
		if (n < 64 && (n == 0 || below(2))) {
			ret = kav_nl_grant_uid(&nl, below(NR_VNIS), 0, &ids[n]);
			if (!ret)
				n++;
			else if (ret != -EEXIST && ret != -ENOSPC)
				anomaly(b, "grant add", -ret);
		} else {
			uint32_t i = below(n);

			ret = kav_nl_grant_del(&nl, ids[i]);
			if (ret && ret != -ENOENT)
				anomaly(b, "grant del", -ret);
			ids[i] = ids[--n];
		}
		b->ops[slot]++;
		usleep(below(2000));
	}
}

static __attribute__((noreturn)) void
worker_main(struct board *b, int slot, uint64_t seed,
	    const struct shared_av *shared)
{
	struct worker w = { .b = b, .slot = slot, .nr_shared = NR_SHARED };
	int i;

	rng_state = seed;
	for (i = 0; i < NR_SHARED; i++)
		w.avs[i] = shared[i];
	w.nr_avs = NR_SHARED;
	for (;;) {
		struct shared_av *a = &w.avs[below(w.nr_avs)];
		unsigned int r = below(100);

		if (r < 35)
			w_insert(&w, a);
		else if (r < 60)
			w_remove(&w, a);
		else if (r < 70)
			w_key(&w, a);
		else if (r < 75)
			w_user_id(&w, a);
		else if (r < 85)
			w_ep(&w, a);
		else if (r < 95)
			w_read(&w, a);
		else
			w_churn(&w);
		b->ops[slot]++;
	}
}

/* --- parent ------------------------------------------------------------------ */

static long refcnt(void)
{
	char buf[32] = "";
	int fd = open("/sys/module/kav/refcnt", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(fd);
	return strtol(buf, NULL, 10);
}

/* With nobody else touching it, a table must add up. */
static void check_table(struct __test_metadata *_metadata,
		        const volatile struct kav_table_header *h)
{
	uint32_t bound[KAV_MAX_AUTH_KEYS] = { 0 };
	uint64_t i, valid = 0;

	ASSERT_EQ(KAV_TABLE_MAGIC, h->magic);
	ASSERT_EQ(0, h->generation & 1);
	ASSERT_GE(h->nr_slots, h->nr_valid);
	for (i = 0; i < h->nr_slots; i++) {
		const volatile struct kav_entry *e = entry_at(h, i);

		ASSERT_EQ(0, e->seq & 1);
		if (!(e->flags & KAV_ENTRY_VALID)) {
			/* Never used or cleared: bound to nothing. */
			ASSERT_EQ(KAV_ENTRY_NO_KEY, e->auth_key);
			ASSERT_EQ(KAV_NONE, e->user_id);
			continue;
		}
		valid++;
		ASSERT_EQ(sizeof(struct sockaddr_in), e->addr_len);
		if (e->auth_key != KAV_ENTRY_NO_KEY) {
			ASSERT_GT(KAV_MAX_AUTH_KEYS, e->auth_key);
			/* Valid; perhaps revoked (KAV_KEY_REVOKED), never gone. */
			ASSERT_TRUE(slot_at(h, e->auth_key)->flags & KAV_KEY_VALID)
				TH_LOG("entry %llu bound to a removed key",
				       (unsigned long long)i);
			bound[e->auth_key]++;
		}
	}
	ASSERT_EQ(h->nr_valid, valid);
	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++) {
		ASSERT_EQ(0, slot_at(h, i)->seq & 1);
		ASSERT_EQ(bound[i], kav_uses(h, i)->nr_entries)
			TH_LOG("key %llu", (unsigned long long)i);
		ASSERT_EQ(0, kav_uses(h, i)->nr_endpoints)
			TH_LOG("key %llu: endpoints outlived their processes",
			       (unsigned long long)i);
	}
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

FIXTURE(chaos) {
	struct board *b;
};

FIXTURE_SETUP(chaos)
{
	const char *path = getenv("KAV_MODULE");

	if (geteuid())
		SKIP(return, "needs root (kills, module unload and load)");
	if (access(path ? path : "/kav.ko", R_OK) ||
	    access("/sys/module/kav", F_OK))
		SKIP(return, "needs kav.ko loaded and $KAV_MODULE to reload it");
	self->b = mmap(NULL, sizeof(*self->b), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->b);
}

FIXTURE_TEARDOWN(chaos)
{
	/* Whatever happened, leave the module loaded for the next test. */
	if (access("/sys/module/kav", F_OK) && !kav_module_load())
		kav_wait_for_device();
}

/* Grant every VNI the workers use to root (the family is new per load). */
static int grant_all(struct kav_nl *nl)
{
	uint32_t v, id;
	int ret;

	ret = kav_nl_open(nl);
	for (v = 0; !ret && v < NR_VNIS; v++)
		ret = kav_nl_grant_uid(nl, v, 0, &id);
	return ret;
}

/* Spawn worker @slot, its own seed drawn from the round's stream. */
static pid_t spawn(struct board *b, int slot, const struct shared_av *avs)
{
	uint64_t seed = rnd();
	pid_t pid = fork();

	if (pid == 0) {
		/* Never outlive the test, even if it fails half-way. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		rng_state = seed;
		if (slot == WORKERS - 1)
			grant_worker(b, slot);
		worker_main(b, slot, seed, avs);
	}
	return pid;
}

TEST_F_TIMEOUT(chaos, kill_and_reload, CHAOS_TIMEOUT)
{
	struct timespec ts;
	uint64_t seed, rounds = env_u64("KAV_CHAOS_ROUNDS", 8), r;
	double limit = (double)env_u64("KAV_CHAOS_SECONDS", 90), start = kav_now();
	unsigned long kills = 0, ops = 0, retries = 0;
	int i;

	clock_gettime(CLOCK_REALTIME, &ts);
	seed = env_u64("KAV_CHAOS_SEED", (uint64_t)ts.tv_nsec ^
		       ((uint64_t)ts.tv_sec << 24) ^ 1);
	rng_state = seed;
	printf("# chaos: seed=%#llx (replay: KAV_CHAOS_SEED=%#llx), %d workers (one granting and revoking), %d kills per round\n",
	       (unsigned long long)seed, (unsigned long long)seed, WORKERS,
	       KILLS);
	fflush(stdout);

	for (r = 0; r < rounds; r++) {
		struct shared_av avs[NR_SHARED];
		struct kav_nl nl = { 0 };
		pid_t pids[WORKERS];
		int dom, k, st;
		long rc;

		if (r > 0 && kav_now() - start > limit)
			break;
		/* A fresh module: keyless entries allowed, VNIs 0-7 granted. */
		kav_test_allow_keyless();
		ASSERT_EQ(0, grant_all(&nl));
		dom = kav_open_domain();
		ASSERT_LE(0, dom);
		for (i = 0; i < NR_SHARED; i++) {
			uint64_t h;
			struct kav_av_key key = { .size = sizeof(key) };

			avs[i].fd = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN,
						  &avs[i].c);
			ASSERT_LE(0, avs[i].fd);
			avs[i].h = mmap(NULL, avs[i].c.map_size, PROT_READ,
					MAP_SHARED, avs[i].fd, 0);
			ASSERT_NE(MAP_FAILED, avs[i].h);
			for (h = 0; h < 3; h++) {
				key.key.vni = h;
				ASSERT_EQ(0, ioctl(avs[i].fd,
						   KAV_IOC_AV_KEY_INSERT, &key))
					TH_LOG("key insert: %s", strerror(errno));
			}
		}
		memset(self->b->ops, 0, sizeof(self->b->ops));
		for (i = 0; i < WORKERS; i++) {
			pids[i] = spawn(self->b, i, avs);
			ASSERT_LT(0, pids[i]);
		}
		for (k = 0; k < KILLS; k++) {
			usleep(1000 + below(40000));
			i = below(WORKERS);
			ASSERT_EQ(0, kill(pids[i], SIGKILL));
			ASSERT_EQ(pids[i], waitpid(pids[i], &st, 0));
			ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
				TH_LOG("worker ended by itself: status %#x", st);
			kills++;
			pids[i] = spawn(self->b, i, avs);
			ASSERT_LT(0, pids[i]);
		}
		usleep(below(20000));
		for (i = 0; i < WORKERS; i++) {
			kill(pids[i], SIGKILL);
			ASSERT_EQ(pids[i], waitpid(pids[i], &st, 0));
			kills++;
			ops += self->b->ops[i];
		}
		ASSERT_EQ(0, self->b->anomalies)
			TH_LOG("round %llu: %lu anomalies, first: %s",
			       (unsigned long long)r, self->b->anomalies,
			       self->b->anomaly);

		for (i = 0; i < NR_SHARED; i++) {
			struct sockaddr_in s = kav_sin(0x7f000001, 1);
			uint64_t fi;

			check_table(_metadata, avs[i].h);
			/* Still usable. */
			ASSERT_EQ(0, kav_insert_in(avs[i].fd, &s, 1, &fi, NULL));
			ASSERT_EQ(0, kav_remove(avs[i].fd, &fi, 1, NULL));
			check_table(_metadata, avs[i].h);
			munmap((void *)avs[i].h, avs[i].c.map_size);
			close(avs[i].fd);
		}
		close(dom);
		kav_nl_close(&nl);

		/* Every file and mapping is gone: the module must go too. */
		for (i = 0; i < 200 &&
			    (rc = kav_module_unload()) == -EWOULDBLOCK; i++) {
			usleep(10000);
			retries++;
		}
		ASSERT_EQ(0, rc) TH_LOG("round %llu: unload: %s (refcnt %ld)",
					(unsigned long long)r, strerror(-rc),
					refcnt());
		ASSERT_EQ(0, kav_module_load());
		ASSERT_EQ(0, kav_wait_for_device());
	}
	printf("# chaos: %llu rounds survived in %.1f s: %lu workers killed, %lu operations, unload retried %lu times\n",
	       (unsigned long long)r, kav_now() - start, kills, ops, retries);
	fflush(stdout);
	ASSERT_LT(0, r);
}

TEST_HARNESS_MAIN
