// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency on shared named AVs, through the real device, with processes
 * (each its own /dev/kav open unless the case is about inheritance):
 *
 * 1. stress: writer processes open one named IPv6 AV by name (racing to
 *    create it: exactly one gets KAV_AV_CREATED) and insert batches of 1 to
 *    256 self-checking addresses, removing their own older entries; reader
 *    processes open it by name read-only, map it and read every entry with
 *    the sequence protocol, and whole-table snapshots with the generation.
 *    Readers must never accept a torn entry, an fi_addr naming another
 *    index, or a stable snapshot that does not add up; a writer must find
 *    each address it inserted at the index the kernel returned (and no
 *    index is ever handed to two writers at once). At the end the table is
 *    exactly the union of what each writer says it holds.
 * 2. readers_never_block_writers: readers are stopped (SIGSTOP), two of
 *    them inside a read section (between their two loads of seq, and of
 *    generation); writers still complete a fixed number of batches (each
 *    bounded by alarm()), the generation advances by exactly 2 per window
 *    of a batch (BATCH_WINDOW entries: a batch is published in bounded
 *    windows, so that preemption is never off for a whole batch);
 *    resumed readers discard what they read across the change and finish.
 * 3. sigkill_mid_batch: a writer inserting and removing batches of
 *    KAV_BATCH_MAX addresses is SIGKILLed at random moments (seeded). Each
 *    time: generation even, nr_valid a multiple of the batch (a batch
 *    once started is applied whole, window by window), equal to the
 *    valid entries in [0, nr_slots), every batch complete, fi_addr[i] == i
 *    iff entry i is valid; the table holds exactly the batches the writer
 *    had completed, plus the one in flight if (and only if) the kernel
 *    applied it; and another process that opens the AV by name sees the
 *    same table.
 * 4. fork_*: the fork() and exec() semantics below.
 *
 * fork() and exec() semantics of kav objects, as these tests check them:
 *
 *  - fork() duplicates descriptors, so a child shares each kav file (the
 *    /dev/kav domain and every AV fd) with its parent: the same open file
 *    description (F_SETFL in one is seen by F_GETFL in the other), the
 *    same AV, the same identity. A MAP_SHARED mapping of the table is
 *    inherited as the same read-only pages: inserts and removes made by
 *    either process, through either fd, are seen by both mappings at once.
 *  - Mutations through an inherited fd opened read-write work from the
 *    child; the kernel serialises them with the parent's (one table lock:
 *    indices are never handed out twice, the generation counts every
 *    batch). Through an fd opened with KAV_AV_RDONLY they fail with EPERM
 *    in the child as in the parent, and so does KAV_IOC_AV_EP_OPEN (a
 *    read-only fd only maps: an endpoint would pin the owner's keys).
 *  - The table mapping stays read-only in the child: mprotect() cannot add
 *    PROT_WRITE (EACCES, VM_MAYWRITE is gone), a writable mmap() of the
 *    inherited fd is refused (EACCES), a store faults (SIGSEGV), and
 *    neither can /proc/self/mem write it.
 *  - Closing the inherited fds and unmapping in the child changes nothing
 *    for the parent: the AV lives while any fd, mapping or pin holds it.
 *  - Every fd the kernel returns (AV fds, endpoint fds) is O_CLOEXEC, and
 *    fork() keeps FD_CLOEXEC: after exec() none is open, the mapping is
 *    gone with the old address space, and the new program reaches the AV
 *    only by opening /dev/kav and the AV by name again (same av_id, same
 *    entries; not KAV_AV_CREATED).
 *  - The kernel acts with the identity snapshot of whoever opened
 *    /dev/kav (file->f_cred), never with the caller's current credentials:
 *    a child that becomes uid 65534 after fork() still inserts through the
 *    inherited AV fd and opens the root-only (0600) AV by name through the
 *    inherited domain fd, while its own new open of /dev/kav looks among
 *    uid 65534's names (the name is a new AV there) and gets EACCES for
 *    root's AV (KAV_AV_OWNER 0).
 *
 * Runs as root (setuid, SIGSTOP). Every wait is bounded: worker processes
 * call alarm() and die with their parent (PR_SET_PDEATHSIG); the parent
 * polls with a deadline. No assertion depends on timing. Env:
 * KAV_STRESS_SECONDS (3), KAV_KILL_ROUNDS (10), KAV_CONC_SEED (printed;
 * random when unset).
 */
#include <dirent.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"

#define KAV_STRESS_SECONDS	3	/* case 1, KAV_STRESS_SECONDS overrides */
#define KAV_KILL_ROUNDS		10	/* case 3, KAV_KILL_ROUNDS overrides */
#define NR_WRITERS		3
#define NR_READERS		3
#define MAX_BATCH		256	/* cases 1 and 2: batches of 1..256 */
/* kmod/kav_core.h's KAV_BATCH_WINDOW: entries per generation bracket. */
#define BATCH_WINDOW		64
#define LIVE_CAP		1024	/* entries one writer holds at most */
#define PREFILL			512	/* case 2: entries before the writers */
#define FIXED_OPS		30	/* case 2: batches per writer */
#define IDX_MAX			(NR_WRITERS * LIVE_CAP + PREFILL)
#define KILL_CAP		4	/* case 3: batches the table holds at most */
#define MAX_KB			(KILL_CAP + 2)
#define KILL_DELAY_US		400000	/* case 3: kill within this after ready */
#define HANG_SECONDS		120	/* alarm(): a process this old is stuck */
#define BLOCK_SECONDS		60	/* case 2: a writer this slow is blocked */
#define SPIN_MAX		10000000UL	/* seq retries before "never stable" */
#define CASE_TIMEOUT		240
#define UID_NOBODY		65534

#define TAG_W		0x4b430000U	/* case 1, 2: writer tags, | writer id */
#define TAG_PARENT	NR_WRITERS	/* case 2: the prefill's writer id */
#define TAG_EXEC	0xe0U		/* case 4: the exec'd process's entry */
#define EXEC_ARG	"--kav-exec-child"

/* --- addresses that check themselves ------------------------------------- */

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rng_state;

static uint64_t rnd(void)
{
	return mix64(rng_state += 0x9e3779b97f4a7c15ULL);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* Generation brackets (+2 each) of a batch of @n: at least one. */
static uint64_t windows(uint64_t n)
{
	return n ? (n + BATCH_WINDOW - 1) / BATCH_WINDOW : 1;
}

/*
 * What an address encodes: @a and @b (writer tag and test nonce, or round
 * and batch) and @c (a counter, or nonce and position), with a 16-bit
 * checksum over them in sin6_port (the kernel clears sin6_flowinfo: it is
 * no part of an endpoint, uapi kav_sockaddr_normalize()). A torn read
 * mixes two addresses' bytes: each one escapes the check with odds of
 * 1 in 65536, and the stress runs make hundreds of thousands of reads.
 */
struct tag {
	uint32_t a, b;
	uint64_t c;
};

static uint64_t tag_sum(uint32_t a, uint32_t b, uint64_t c)
{
	return mix64(mix64(((uint64_t)a << 32 | b) ^ 0x6b61762d636f6e63ULL) ^ c);
}

static struct sockaddr_in6 tag_addr(uint32_t a, uint32_t b, uint64_t c)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6 };
	uint64_t sum = tag_sum(a, b, c);

	memcpy(&s.sin6_addr.s6_addr[0], &a, sizeof(a));
	memcpy(&s.sin6_addr.s6_addr[4], &b, sizeof(b));
	memcpy(&s.sin6_addr.s6_addr[8], &c, sizeof(c));
	s.sin6_port = (uint16_t)(sum ^ sum >> 16 ^ sum >> 32 ^ sum >> 48);
	return s;
}

/* Writer @who's address number @ctr in a test run with @nonce. */
static struct sockaddr_in6 w_addr(uint32_t nonce, uint32_t who, uint64_t ctr)
{
	return tag_addr(TAG_W | who, nonce, ctr);
}

/* --- the table, read as the uAPI documents ------------------------------- */

#define ENTRY_SIZE	64	/* 16 + sizeof(struct sockaddr_in6), rounded */

/* A copy of one entry of an IPv6 AV (struct kav_entry's header). */
struct ecopy {
	uint32_t seq;
	uint16_t addr_len;
	uint8_t flags, auth_key;
	uint64_t user_id;
	struct sockaddr_in6 sin6;
	uint8_t pad[20];	/* past addr_len: zero */
};

_Static_assert(sizeof(struct ecopy) == ENTRY_SIZE, "entry copy layout");
_Static_assert(sizeof(struct sockaddr_in6) == 28, "sockaddr_in6 size");

static const volatile struct kav_entry *
entry_at(const volatile struct kav_table_header *h, uint64_t idx)
{
	return (const volatile void *)((const volatile char *)h +
				       h->header_size + idx * h->entry_size);
}

static const volatile uint64_t *
fi_at(const volatile struct kav_table_header *h, uint64_t idx)
{
	return (const volatile uint64_t *)((const volatile char *)h +
					   h->fi_addrs_offset) + idx;
}

/* A load-acquire of a header field or an fi_addr element. */
#define ld_acq(p)	((uint64_t)__atomic_load_n((p), __ATOMIC_ACQUIRE))

/*
 * One try of the read protocol on entry @idx (< nr_slots): load seq with
 * acquire, copy, fence, load seq again. 0: @out is a consistent copy; -1:
 * a write was in progress or happened meanwhile (@out is what was copied).
 */
static int entry_try(const volatile struct kav_table_header *h, uint64_t idx,
		     struct ecopy *out)
{
	const volatile uint32_t *w = (const volatile uint32_t *)entry_at(h, idx);
	uint32_t buf[ENTRY_SIZE / 4], s1, s2;
	size_t k;

	/* seq is the first 32-bit word of the entry. */
	s1 = __atomic_load_n(&w[0], __ATOMIC_ACQUIRE);
	for (k = 1; k < ENTRY_SIZE / 4; k++)
		buf[k] = w[k];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s2 = __atomic_load_n(&w[0], __ATOMIC_RELAXED);
	buf[0] = s1;
	memcpy(out, buf, sizeof(*out));
	return (s1 & 1) || s1 != s2 ? -1 : 0;
}

/* Read entry @idx until a copy is consistent; -1 if it never is. */
static int entry_get(const volatile struct kav_table_header *h, uint64_t idx,
		     struct ecopy *out, unsigned long *retries)
{
	unsigned long spins = 0;

	while (entry_try(h, idx, out)) {
		if (retries)
			(*retries)++;
		if (++spins > SPIN_MAX)
			return -1;
	}
	return 0;
}

/*
 * NULL if @c is well formed: an empty entry (never used or cleared: flags,
 * addr_len and address zero, auth_key KAV_ENTRY_NO_KEY and user_id
 * KAV_NONE), or a valid
 * IPv6 entry with no key or user id whose address carries a correct
 * checksum (decoded into @t). Else what is wrong.
 */
static const char *entry_problem(const struct ecopy *c, struct tag *t)
{
	struct sockaddr_in6 want;
	struct tag d;

	if (!(c->flags & KAV_ENTRY_VALID)) {
		static const struct ecopy empty = {
			.auth_key = KAV_ENTRY_NO_KEY, .user_id = KAV_NONE,
		};

		if (memcmp((const char *)c + sizeof(c->seq),
			   (const char *)&empty + sizeof(c->seq),
			   sizeof(*c) - sizeof(c->seq)))
			return "an invalid entry is not empty (zero, with "
			       "no key and no user id)";
		return NULL;
	}
	if (c->flags != KAV_ENTRY_VALID)
		return "unknown flags";
	if (c->addr_len != sizeof(c->sin6))
		return "addr_len is not sizeof(struct sockaddr_in6)";
	if (c->auth_key != KAV_ENTRY_NO_KEY || c->user_id != KAV_NONE)
		return "auth_key or user_id set";
	if (memcmp(c->pad, (const uint8_t[sizeof(c->pad)]){ 0 },
		   sizeof(c->pad)))
		return "bytes past addr_len not zero";
	if (c->sin6.sin6_family != AF_INET6 || c->sin6.sin6_scope_id)
		return "family or scope id changed";
	memcpy(&d.a, &c->sin6.sin6_addr.s6_addr[0], sizeof(d.a));
	memcpy(&d.b, &c->sin6.sin6_addr.s6_addr[4], sizeof(d.b));
	memcpy(&d.c, &c->sin6.sin6_addr.s6_addr[8], sizeof(d.c));
	want = tag_addr(d.a, d.b, d.c);
	if (memcmp(&want, &c->sin6, sizeof(want)))
		return "checksum mismatch (torn address)";
	if (t)
		*t = d;
	return NULL;
}

/* Is entry @idx, read consistently, valid and exactly @want? */
static bool entry_is(const volatile struct kav_table_header *h, uint64_t idx,
		     const struct sockaddr_in6 *want)
{
	struct ecopy c;

	return idx < ld_acq(&h->nr_slots) && !entry_get(h, idx, &c, NULL) &&
	       !entry_problem(&c, NULL) && c.flags == KAV_ENTRY_VALID &&
	       !memcmp(&c.sin6, want, sizeof(*want));
}

/* Is entry @idx empty, with KAV_NONE in the fi_addr array? */
static bool entry_is_empty(const volatile struct kav_table_header *h,
			   uint64_t idx)
{
	struct ecopy c;

	return idx < ld_acq(&h->nr_slots) && !entry_get(h, idx, &c, NULL) &&
	       !entry_problem(&c, NULL) && !c.flags &&
	       ld_acq(fi_at(h, idx)) == KAV_NONE;
}

/*
 * A generation-bracketed look at the whole table: -1 when a batch ran
 * meanwhile (or one was running), 0 when the table adds up (nr_valid
 * valid entries, every seq even, fi_addr[i] == i iff entry i is valid),
 * 1 and @why when it does not.
 */
static int snapshot(const volatile struct kav_table_header *h,
		    uint64_t *nr_valid, const char **why)
{
	uint64_t g1, g2, nv, slots, i, valid = 0, odd = 0, fi_bad = 0;

	g1 = ld_acq(&h->generation);
	if (g1 & 1)
		return -1;
	nv = h->nr_valid;
	slots = ld_acq(&h->nr_slots);
	for (i = 0; i < slots; i++) {
		const volatile struct kav_entry *e = entry_at(h, i);
		bool v = e->flags & KAV_ENTRY_VALID;

		odd += e->seq & 1;
		valid += v;
		fi_bad += *fi_at(h, i) != (v ? i : KAV_NONE);
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	g2 = __atomic_load_n(&h->generation, __ATOMIC_RELAXED);
	if (g1 != g2)
		return -1;
	if (nr_valid)
		*nr_valid = nv;
	*why = odd ? "an entry's seq is odd in a stable generation" :
	       valid != nv ? "nr_valid is not the number of valid entries" :
	       fi_bad ? "the fi_addr array disagrees with the entries" : NULL;
	return *why ? 1 : 0;
}

/* --- shared state and processes ------------------------------------------ */

struct wstat {
	unsigned long batches, windows, inserted, removed, verified;
	uint32_t live, created, av_id, done;
};

struct rstat {
	unsigned long passes, reads, valid, torn, retries, racy_torn, fi_bad;
	unsigned long snapshots, snap_bad;
	uint32_t av_id, stopped_mid;
	/* case 2: stopped between the two loads of entry 0's seq */
	uint64_t mid_s1, mid_s2;
	uint32_t mid_rejected, mid_retry_ok, mid_changed;
	/* case 2: stopped inside a generation snapshot */
	uint64_t mid_g1, mid_g2;
	uint32_t snap_rejected, snap_after_ok;
	uint64_t snap_after_valid;
};

struct owner {
	uint32_t who;		/* writer id + 1, 0: nobody */
	uint32_t pad;
	uint64_t ctr;
};

/* Case 3: one quiescent look at the table. */
struct scan {
	uint64_t gen, nr_valid, nr_slots, found, hash;
	uint64_t odd, bad, fi_bad, foreign, dup;
	uint32_t nb, incomplete, overflow, av_id;
	uint64_t ids[MAX_KB];
	uint32_t count[MAX_KB];
	char why[160];
};

struct klist {
	uint32_t nb;
	uint64_t ids[MAX_KB];
};

/* The killed writer's word: phase | list << 2. */
#define PH_IDLE		0	/* table == lists[list] */
#define PH_CALL		1	/* op on id in flight: applied or not */
#define PH_DONE		2	/* op on id returned 0: applied */
#define OP_INSERT	1
#define OP_REMOVE	2

struct kboard {
	uint32_t word, op;
	uint64_t id;
	struct klist lists[2];
	uint32_t ready;
	struct scan checker;
};

struct board {
	unsigned long anomalies;
	char anomaly[256];
	uint32_t stop, nonce;
	uint64_t idx_bound, seed;
	struct wstat w[NR_WRITERS];
	struct rstat r[NR_READERS];
	struct kboard k;
	uint64_t vals[2048];	/* case 4: what a child reports */
	uint32_t nvals;
	struct owner own[IDX_MAX];
};

static __attribute__((format(printf, 2, 3)))
void anomaly(struct board *b, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&b->anomalies, 1, __ATOMIC_SEQ_CST))
		return;
	va_start(ap, fmt);
	vsnprintf(b->anomaly, sizeof(b->anomaly), fmt, ap);
	va_end(ap);
}

/* In a child: note what failed and exit. */
#define CK(b, cond) do {						\
	if (!(cond)) {							\
		anomaly(b, "%s:%d: %s (errno %d: %s)", __func__,	\
			__LINE__, #cond, errno, strerror(errno));	\
		_exit(1);						\
	}								\
} while (0)

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

/* fork() a worker: dies with the test, and by itself if it hangs. */
static pid_t spawn(unsigned int hang_seconds)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(hang_seconds);
	}
	return pid;
}

/* Reap @pid within @secs; past that, SIGKILL it. Status, or -1. */
static int reap(pid_t pid, double secs)
{
	double end = kav_now() + secs;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR)
			return -1;
		if (kav_now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		usleep(5000);
	}
}

/* Wait (bounded) until @pid is stopped. */
static bool wait_stopped(pid_t pid, double secs)
{
	double end = kav_now() + secs;
	int st;

	while (kav_now() < end) {
		pid_t r = waitpid(pid, &st, WUNTRACED | WNOHANG);

		if (r == pid)
			return WIFSTOPPED(st);
		if (r < 0)
			return false;
		usleep(5000);
	}
	return false;
}

/* State letter of @pid in /proc/PID/stat ('T': stopped), or '?'. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Block until the parent closes the gate's write end. */
static void gate_wait(int gate[2])
{
	char c;

	close(gate[1]);
	while (read(gate[0], &c, 1) < 0 && errno == EINTR)
		;
	close(gate[0]);
}

static int put_u64(int fd, uint64_t v)
{
	return write(fd, &v, sizeof(v)) == sizeof(v) ? 0 : -1;
}

static int get_u64(int fd, uint64_t *v)
{
	return read(fd, v, sizeof(*v)) == sizeof(*v) ? 0 : -1;
}

/* --- opening the AV ------------------------------------------------------ */

struct av {
	int dom, fd;
	struct kav_av_create c;
	const volatile struct kav_table_header *h;
};

/* Open (or create) the IPv6 AV @name on @dom: the fd, or -errno. */
static int open_named(int dom, const char *name, uint32_t flags,
		      struct kav_av_create *out)
{
	struct kav_av_create c = {
		.size = sizeof(c),
		.flags = KAV_AV_NAMED | flags,
		.addr_format = flags & KAV_AV_RDONLY ? 0 :
			       KAV_ADDR_SOCKADDR_IN6,
		.name = (uintptr_t)name,
		.name_len = strlen(name),
	};

	if (ioctl(dom, KAV_IOC_AV_CREATE, &c))
		return -errno;
	if (out)
		*out = c;
	return c.fd;
}

/* open_named() among @owner's names (KAV_AV_OWNER): the fd or -errno. */
static int open_owned(int dom, const char *name, uint32_t flags,
		      uint32_t owner)
{
	struct kav_av_create c = {
		.size = sizeof(c),
		.flags = KAV_AV_NAMED | KAV_AV_OWNER | flags,
		.addr_format = flags & KAV_AV_RDONLY ? 0 :
			       KAV_ADDR_SOCKADDR_IN6,
		.name = (uintptr_t)name,
		.name_len = strlen(name),
		.owner_uid = owner,
	};

	return ioctl(dom, KAV_IOC_AV_CREATE, &c) ? -errno : c.fd;
}

static const volatile struct kav_table_header *
map_table(int fd, uint64_t map_size)
{
	void *p = mmap(NULL, map_size, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Open /dev/kav, open @name on it and map the table: 0 or -errno. */
static int av_attach(struct av *a, const char *name, uint32_t flags)
{
	int ret;

	a->dom = kav_open_domain();
	if (a->dom < 0)
		return -errno;
	a->fd = open_named(a->dom, name, flags, &a->c);
	if (a->fd < 0) {
		ret = a->fd;
		close(a->dom);
		return ret;
	}
	a->h = map_table(a->fd, a->c.map_size);
	if (!a->h) {
		ret = -errno;
		close(a->fd);
		close(a->dom);
		return ret;
	}
	return 0;
}

static void av_detach(struct av *a)
{
	munmap((void *)a->h, a->c.map_size);
	close(a->fd);
	close(a->dom);
}

/* The header of an IPv6 table, as mapped: NULL if right. */
static const char *header_problem(const struct av *a)
{
	const volatile struct kav_table_header *h = a->h;

	if (h->magic != KAV_TABLE_MAGIC || h->version != KAV_TABLE_VERSION)
		return "magic or version";
	if (h->entry_size != ENTRY_SIZE || a->c.entry_size != ENTRY_SIZE)
		return "entry_size";
	if (h->addr_format != KAV_ADDR_SOCKADDR_IN6 ||
	    h->addr_max != sizeof(struct sockaddr_in6))
		return "addr_format or addr_max";
	if (h->map_size != a->c.map_size || h->max_entries != a->c.max_entries)
		return "map_size or max_entries";
	if (h->fi_addrs_offset >= h->map_size ||
	    h->fi_addrs_offset + h->max_entries * 8 > h->map_size)
		return "fi_addrs_offset";
	return NULL;
}

static int insert6(int fd, const struct sockaddr_in6 *s, uint32_t n,
		   uint64_t *fi)
{
	struct kav_av_insert in = {
		.size = sizeof(in),
		.count = n,
		.addr_stride = sizeof(*s),
		.addrs = (uintptr_t)s,
		.fi_addrs = (uintptr_t)fi,
	};

	return ioctl(fd, KAV_IOC_AV_INSERT, &in) ? -errno : 0;
}

static void name_for(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "kav-conc-%s-%d", what, getpid());
}

/* --- writers (cases 1 and 2) --------------------------------------------- */

struct writer {
	struct board *b;
	struct av a;
	uint32_t id;
	uint64_t ctr;
	uint64_t ring_idx[LIVE_CAP], ring_ctr[LIVE_CAP];
	uint32_t head, live;
	struct sockaddr_in6 addrs[MAX_BATCH];
	uint64_t fi[MAX_BATCH];
};

/* Entry @idx still holds writer @who's address @ctr. */
static bool w_holds(struct board *b, const volatile struct kav_table_header *h,
		    uint64_t idx, uint32_t who, uint64_t ctr)
{
	struct sockaddr_in6 want = w_addr(b->nonce, who, ctr);

	if (!entry_is(h, idx, &want)) {
		anomaly(b, "entry %llu does not hold writer %u's address %llu",
			(unsigned long long)idx, who, (unsigned long long)ctr);
		return false;
	}
	if (ld_acq(fi_at(h, idx)) != idx) {
		anomaly(b, "fi_addr[%llu] of a valid entry is not its index",
			(unsigned long long)idx);
		return false;
	}
	return true;
}

/* Insert @n new addresses; own and check each index the kernel gave. */
static int w_insert(struct writer *w, uint32_t n)
{
	struct board *b = w->b;
	uint64_t first = w->ctr;
	uint32_t k;
	int ret;

	for (k = 0; k < n; k++)
		w->addrs[k] = w_addr(b->nonce, w->id, w->ctr++);
	ret = insert6(w->a.fd, w->addrs, n, w->fi);
	if (ret) {
		anomaly(b, "writer %u: insert of %u: %s", w->id, n,
			strerror(-ret));
		return -1;
	}
	b->w[w->id].batches++;
	b->w[w->id].windows += windows(n);
	b->w[w->id].inserted += n;
	for (k = 0; k < n; k++) {
		uint64_t idx = w->fi[k];
		uint32_t holder = 0;

		/* Lowest free index: below the entries that exist. */
		if (idx >= b->idx_bound) {
			anomaly(b, "writer %u got index %llu, beyond %llu entries",
				w->id, (unsigned long long)idx,
				(unsigned long long)b->idx_bound);
			return -1;
		}
		if (!__atomic_compare_exchange_n(&b->own[idx].who, &holder,
						 w->id + 1, false,
						 __ATOMIC_SEQ_CST,
						 __ATOMIC_SEQ_CST)) {
			anomaly(b, "index %llu given to writer %u while writer %u holds it",
				(unsigned long long)idx, w->id, holder - 1);
			return -1;
		}
		b->own[idx].ctr = first + k;
		if (!w_holds(b, w->a.h, idx, w->id, first + k))
			return -1;
		w->ring_idx[(w->head + w->live) % LIVE_CAP] = idx;
		w->ring_ctr[(w->head + w->live) % LIVE_CAP] = first + k;
		w->live++;
	}
	return 0;
}

/*
 * Remove @n entries at @idx (held by writers @who, addresses @ctr): check
 * them, give up ownership (before: once removed, the kernel may hand the
 * index to anyone), remove, and check they are gone.
 */
static int remove_checked(struct board *b, struct av *a, uint32_t me,
			  const uint64_t *idx, const uint32_t *who,
			  const uint64_t *ctr, uint32_t n)
{
	uint32_t k, err;
	int ret;

	for (k = 0; k < n; k++) {
		if (!w_holds(b, a->h, idx[k], who[k], ctr[k]))
			return -1;
		if (__atomic_load_n(&b->own[idx[k]].who, __ATOMIC_SEQ_CST) !=
		    who[k] + 1) {
			anomaly(b, "index %llu: ownership lost",
				(unsigned long long)idx[k]);
			return -1;
		}
		__atomic_store_n(&b->own[idx[k]].who, 0, __ATOMIC_SEQ_CST);
	}
	ret = kav_remove(a->fd, idx, n, &err);
	if (ret) {
		anomaly(b, "writer %u: remove of %u: %s (err_index %u)", me, n,
			strerror(-ret), err);
		return -1;
	}
	b->w[me].batches++;
	b->w[me].windows += windows(n);
	b->w[me].removed += n;
	for (k = 0; k < n; k++) {
		struct sockaddr_in6 old = w_addr(b->nonce, who[k], ctr[k]);

		/* Empty, or already someone else's: never still ours. */
		if (entry_is(a->h, idx[k], &old)) {
			anomaly(b, "entry %llu still there after its removal",
				(unsigned long long)idx[k]);
			return -1;
		}
	}
	return 0;
}

/* Remove the writer's @n oldest entries. */
static int w_remove(struct writer *w, uint32_t n)
{
	uint64_t idx[MAX_BATCH], ctr[MAX_BATCH];
	uint32_t who[MAX_BATCH], k;

	for (k = 0; k < n; k++) {
		idx[k] = w->ring_idx[(w->head + k) % LIVE_CAP];
		ctr[k] = w->ring_ctr[(w->head + k) % LIVE_CAP];
		who[k] = w->id;
	}
	w->head = (w->head + n) % LIVE_CAP;
	w->live -= n;
	return remove_checked(w->b, &w->a, w->id, idx, who, ctr, n);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * A writer: opens /dev/kav and the AV by name (creating it if it is
 * first), then inserts batches of 1..MAX_BATCH and removes its older
 * entries, @ops batches or until told to stop. With @take_first, its first
 * batch removes entry 0 (the parent's, case 2).
 */
static __attribute__((noreturn)) void
writer_main(struct board *b, const char *name, uint32_t id, int gate[2],
	    unsigned long ops, bool take_first)
{
	static struct writer w;
	const char *why;
	unsigned long done;
	uint32_t k;
	int ret;

	rng_state = b->seed ^ mix64(id + 1);
	w.b = b;
	w.id = id;
	gate_wait(gate);
	ret = av_attach(&w.a, name, 0);
	if (ret) {
		anomaly(b, "writer %u: open %s: %s", id, name, strerror(-ret));
		_exit(1);
	}
	b->w[id].created = !!(w.a.c.result & KAV_AV_CREATED);
	b->w[id].av_id = w.a.c.av_id;
	why = header_problem(&w.a);
	if (why) {
		anomaly(b, "writer %u: header: %s", id, why);
		_exit(1);
	}
	if (take_first) {
		uint32_t who = TAG_PARENT;
		uint64_t idx = 0, ctr = b->own[0].ctr;

		if (remove_checked(b, &w.a, id, &idx, &who, &ctr, 1))
			_exit(1);
	}
	for (done = take_first; ops ? done < ops :
	     !__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE); done++) {
		if (w.live && !below(3)) {
			ret = w_remove(&w, 1 + below(min_u32(w.live,
							     MAX_BATCH)));
		} else {
			uint32_t n = 1 + below(MAX_BATCH);

			/* Room first: a writer never holds more than LIVE_CAP. */
			if (w.live + n > LIVE_CAP) {
				ret = w_remove(&w, w.live + n - LIVE_CAP);
				if (ret)
					_exit(1);
				if (ops && ++done == ops)
					break;
			}
			ret = w_insert(&w, n);
		}
		if (ret)
			_exit(1);
	}
	for (k = 0; k < w.live; k++)
		if (!w_holds(b, w.a.h, w.ring_idx[(w.head + k) % LIVE_CAP],
			     id, w.ring_ctr[(w.head + k) % LIVE_CAP]))
			_exit(1);
	b->w[id].verified = w.live;
	b->w[id].live = w.live;
	b->w[id].done = 1;
	av_detach(&w.a);
	_exit(0);
}

/* --- readers (cases 1 and 2) --------------------------------------------- */

/* NULL if a consistent copy is right for cases 1 and 2. */
static const char *w_entry_problem(const struct board *b, const struct ecopy *c)
{
	const char *why;
	struct tag t;

	why = entry_problem(c, &t);
	if (why || !(c->flags & KAV_ENTRY_VALID))
		return why;
	if (t.b != b->nonce || (t.a & 0xffff0000U) != TAG_W ||
	    (t.a & 0xffffU) > TAG_PARENT)
		return "an address no writer inserted";
	return NULL;
}

/* Every entry with the read protocol, then one snapshot. */
static int read_pass(struct board *b, uint32_t id,
		     const volatile struct kav_table_header *h)
{
	struct rstat *st = &b->r[id];
	uint64_t slots = ld_acq(&h->nr_slots), i, fi;
	const char *why;
	int ret;

	if (slots > b->idx_bound) {
		anomaly(b, "nr_slots %llu beyond the entries that ever existed",
			(unsigned long long)slots);
		return -1;
	}
	for (i = 0; i < slots; i++) {
		unsigned long spins = 0;
		struct ecopy c;

		while (entry_try(h, i, &c)) {
			/* What a reader without the protocol would take. */
			st->retries++;
			if (w_entry_problem(b, &c))
				st->racy_torn++;
			if (++spins > SPIN_MAX) {
				anomaly(b, "entry %llu: seq never stable",
					(unsigned long long)i);
				return -1;
			}
		}
		st->reads++;
		why = w_entry_problem(b, &c);
		if (why) {
			st->torn++;
			anomaly(b, "reader %u: entry %llu seq %llu: %s", id,
				(unsigned long long)i,
				(unsigned long long)c.seq, why);
		}
		if (c.flags & KAV_ENTRY_VALID)
			st->valid++;
		/* Its own index or KAV_NONE (removed since), never another. */
		fi = ld_acq(fi_at(h, i));
		if (fi != i && fi != KAV_NONE) {
			st->fi_bad++;
			anomaly(b, "reader %u: fi_addr[%llu] = %llu", id,
				(unsigned long long)i, (unsigned long long)fi);
		}
	}
	ret = snapshot(h, NULL, &why);
	if (ret == 0)
		st->snapshots++;
	if (ret == 1) {
		st->snap_bad++;
		anomaly(b, "reader %u: stable snapshot: %s", id, why);
	}
	__atomic_store_n(&st->passes, st->passes + 1, __ATOMIC_RELEASE);
	return 0;
}

#define RD_PLAIN	0
#define RD_STOP_ENTRY	1	/* SIGSTOP itself inside a read of entry 0 */
#define RD_STOP_SNAP	2	/* SIGSTOP itself inside a snapshot */

/* Case 2: stop between the two loads of entry 0's seq. */
static void reader_stop_in_entry(struct board *b, uint32_t id,
				 const volatile struct kav_table_header *h)
{
	struct rstat *st = &b->r[id];
	struct ecopy old, now_;
	int ret;

	/* The parent's prefill is quiescent: entry 0 is valid and stable. */
	const volatile uint64_t *w = (const volatile uint64_t *)entry_at(h, 0);
	uint64_t buf[ENTRY_SIZE / 8];
	size_t k;

	CK(b, ld_acq(&h->nr_slots) > 0);
	st->mid_s1 = __atomic_load_n(&w[0], __ATOMIC_ACQUIRE);
	for (k = 1; k < ENTRY_SIZE / 8; k++)
		buf[k] = w[k];
	buf[0] = st->mid_s1;
	memcpy(&old, buf, sizeof(old));
	st->stopped_mid = 1;
	raise(SIGSTOP);		/* a reader "holding" entry 0 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	st->mid_s2 = __atomic_load_n(&w[0], __ATOMIC_RELAXED);
	st->mid_rejected = (st->mid_s1 & 1) || st->mid_s1 != st->mid_s2;
	CK(b, !(old.flags & KAV_ENTRY_VALID) || !w_entry_problem(b, &old));
	ret = entry_get(h, 0, &now_, &st->retries);
	st->mid_retry_ok = !ret && !w_entry_problem(b, &now_);
	st->mid_changed = memcmp(&old.flags, &now_.flags,
				 sizeof(old) - sizeof(old.seq)) != 0;
}

/* Case 2: stop half-way through a generation snapshot. */
static void reader_stop_in_snapshot(struct board *b, uint32_t id,
				    const volatile struct kav_table_header *h)
{
	struct rstat *st = &b->r[id];
	uint64_t slots, i, valid = 0;
	const char *why = NULL;
	int ret;

	st->mid_g1 = ld_acq(&h->generation);
	CK(b, !(st->mid_g1 & 1));
	slots = ld_acq(&h->nr_slots);
	for (i = 0; i < slots; i++) {
		if (i == slots / 2) {
			st->stopped_mid = 1;
			raise(SIGSTOP);
		}
		valid += entry_at(h, i)->flags & KAV_ENTRY_VALID;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	st->mid_g2 = __atomic_load_n(&h->generation, __ATOMIC_RELAXED);
	st->snap_rejected = st->mid_g1 != st->mid_g2;
	/* The writers are done: a snapshot now is stable and adds up. */
	ret = snapshot(h, &st->snap_after_valid, &why);
	st->snap_after_ok = ret == 0;
	if (ret == 1)
		anomaly(b, "reader %u: %s", id, why);
	(void)valid;
}

static __attribute__((noreturn)) void
reader_main(struct board *b, const char *name, uint32_t id, int gate[2],
	    int mode)
{
	const char *why;
	struct av a;
	int ret, tries;

	gate_wait(gate);
	/* Read-only opens never create: wait for a writer to. */
	for (tries = 0;; tries++) {
		ret = av_attach(&a, name, KAV_AV_RDONLY);
		if (ret != -ENOENT || tries > 20000)
			break;
		usleep(1000);
	}
	if (ret) {
		anomaly(b, "reader %u: open %s read-only: %s", id, name,
			strerror(-ret));
		_exit(1);
	}
	CK(b, !(a.c.result & KAV_AV_CREATED));
	b->r[id].av_id = a.c.av_id;
	why = header_problem(&a);
	if (why) {
		anomaly(b, "reader %u: header: %s", id, why);
		_exit(1);
	}
	if (mode == RD_STOP_ENTRY)
		reader_stop_in_entry(b, id, a.h);
	else if (mode == RD_STOP_SNAP)
		reader_stop_in_snapshot(b, id, a.h);
	do {
		if (read_pass(b, id, a.h))
			_exit(1);
	} while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE));
	av_detach(&a);
	_exit(0);
}

/* --- case 3: the killed batch writer ------------------------------------- */

static uint64_t batch_id(const struct tag *t)
{
	return (uint64_t)t->a << 32 | t->b;
}

/* Batch @id's address at @pos, in a test run with @nonce. */
static struct sockaddr_in6 k_addr(uint32_t nonce, uint64_t id, uint32_t pos)
{
	return tag_addr(id >> 32, (uint32_t)id, (uint64_t)nonce << 32 | pos);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * Look at the whole (quiescent) table: header, every entry in
 * [0, nr_slots), the fi_addr array, and which batches are there (ids
 * sorted) with how many entries each.
 */
static void scan_table(const struct board *b,
		       const volatile struct kav_table_header *h, struct scan *s)
{
	static uint8_t seen[MAX_KB][KAV_BATCH_MAX / 8];
	uint64_t g2, i, slots;
	uint32_t j;

	memset(s, 0, sizeof(*s));
	memset(seen, 0, sizeof(seen));
	s->gen = ld_acq(&h->generation);
	s->nr_valid = h->nr_valid;
	s->nr_slots = slots = ld_acq(&h->nr_slots);
	s->hash = 0xcbf29ce484222325ULL;
	for (i = 0; i < slots; i++) {
		const char *why;
		uint64_t fi = ld_acq(fi_at(h, i)), id;
		struct ecopy c;
		struct tag t;
		uint32_t pos;

		if (entry_get(h, i, &c, NULL)) {
			s->odd++;
			continue;
		}
		why = entry_problem(&c, &t);
		if (why) {
			if (!s->bad++)
				snprintf(s->why, sizeof(s->why),
					 "entry %llu: %s",
					 (unsigned long long)i, why);
			continue;
		}
		if (fi != (c.flags & KAV_ENTRY_VALID ? i : KAV_NONE))
			s->fi_bad++;
		if (!(c.flags & KAV_ENTRY_VALID))
			continue;
		s->found++;
		s->hash = mix64(s->hash ^ i);
		s->hash = mix64(s->hash ^ tag_sum(t.a, t.b, t.c));
		pos = (uint32_t)t.c;
		if (t.c >> 32 != b->nonce || pos >= KAV_BATCH_MAX) {
			s->foreign++;
			continue;
		}
		id = batch_id(&t);
		for (j = 0; j < s->nb && s->ids[j] != id; j++)
			;
		if (j == s->nb) {
			if (s->nb == MAX_KB) {
				s->overflow++;
				continue;
			}
			s->ids[s->nb++] = id;
		}
		if (seen[j][pos / 8] & (1U << (pos % 8)))
			s->dup++;
		seen[j][pos / 8] |= 1U << (pos % 8);
		s->count[j]++;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	g2 = __atomic_load_n(&h->generation, __ATOMIC_RELAXED);
	if (g2 != s->gen && !s->why[0])
		snprintf(s->why, sizeof(s->why),
			 "the generation moved during a quiescent scan");
	for (j = 0; j < s->nb; j++)
		s->incomplete += s->count[j] != KAV_BATCH_MAX;
	/* Batches in id order (counts are all KAV_BATCH_MAX if complete). */
	qsort(s->ids, s->nb, sizeof(s->ids[0]), cmp_u64);
}

static bool klist_eq(const uint64_t *a, uint32_t na, const uint64_t *b,
		     uint32_t nb)
{
	return na == nb && !memcmp(a, b, na * sizeof(*a));
}

/* @l with @id added (insert) or taken out (remove), sorted. */
static void klist_apply(const struct klist *l, uint32_t op, uint64_t id,
			struct klist *out)
{
	uint32_t i;

	*out = *l;
	if (op == OP_INSERT) {
		if (out->nb < MAX_KB)
			out->ids[out->nb++] = id;
		qsort(out->ids, out->nb, sizeof(out->ids[0]), cmp_u64);
		return;
	}
	out->nb = 0;
	for (i = 0; i < l->nb; i++)
		if (l->ids[i] != id)
			out->ids[out->nb++] = l->ids[i];
}

/*
 * Inserts and removes batches of KAV_BATCH_MAX until killed. The batches
 * in the table (lists[list] of the board) are the parent's word; the
 * writer publishes each operation before the call (PH_CALL), once it
 * returned (PH_DONE), and the new list after (PH_IDLE, other list).
 */
static __attribute__((noreturn)) void
kill_writer_main(struct board *b, const char *name, uint32_t round)
{
	struct kboard *k = &b->k;
	uint32_t cur = k->word >> 2, nb, j, seq = 0, cnt[MAX_KB] = { 0 };
	struct sockaddr_in6 *addrs;
	uint64_t *bidx[MAX_KB], *fi, i, slots;
	struct klist l = k->lists[cur], next;
	struct av a;
	int ret;

	rng_state = b->seed ^ mix64(round);
	addrs = calloc(KAV_BATCH_MAX, sizeof(*addrs));
	fi = calloc(KAV_BATCH_MAX, sizeof(*fi));
	CK(b, addrs && fi);
	for (j = 0; j < MAX_KB; j++) {
		bidx[j] = calloc(KAV_BATCH_MAX, sizeof(uint64_t));
		CK(b, bidx[j]);
	}
	ret = av_attach(&a, name, 0);
	CK(b, !ret);
	CK(b, !(a.c.result & KAV_AV_CREATED));
	/* Where the batches of earlier rounds are. */
	slots = ld_acq(&a.h->nr_slots);
	for (i = 0; i < slots; i++) {
		struct ecopy c;
		struct tag t;

		CK(b, !entry_get(a.h, i, &c, NULL) && !entry_problem(&c, &t));
		if (!(c.flags & KAV_ENTRY_VALID))
			continue;
		for (j = 0; j < l.nb && l.ids[j] != batch_id(&t); j++)
			;
		CK(b, j < l.nb && (uint32_t)t.c < KAV_BATCH_MAX);
		bidx[j][(uint32_t)t.c] = i;
		cnt[j]++;
	}
	for (j = 0; j < l.nb; j++)
		CK(b, cnt[j] == KAV_BATCH_MAX);
	__atomic_store_n(&k->ready, 1, __ATOMIC_SEQ_CST);

	for (;;) {
		uint32_t op;
		uint64_t id;

		nb = l.nb;
		if (nb >= KILL_CAP || (nb >= 2 && !below(3))) {
			op = OP_REMOVE;
			id = l.ids[0];		/* the oldest */
		} else {
			op = OP_INSERT;
			id = (uint64_t)round << 32 | seq++;
			for (j = 0; j < KAV_BATCH_MAX; j++)
				addrs[j] = k_addr(b->nonce, id, j);
		}
		k->op = op;
		k->id = id;
		__atomic_store_n(&k->word, cur << 2 | PH_CALL, __ATOMIC_SEQ_CST);
		if (op == OP_INSERT)
			ret = insert6(a.fd, addrs, KAV_BATCH_MAX, fi);
		else
			ret = kav_remove(a.fd, bidx[0], KAV_BATCH_MAX, NULL);
		if (ret) {
			anomaly(b, "killed writer: %s of batch %#llx: %s",
				op == OP_INSERT ? "insert" : "remove",
				(unsigned long long)id, strerror(-ret));
			_exit(1);
		}
		__atomic_store_n(&k->word, cur << 2 | PH_DONE, __ATOMIC_SEQ_CST);
		if (op == OP_INSERT) {
			for (j = 0; j < KAV_BATCH_MAX; j++)
				CK(b, entry_is(a.h, fi[j], &addrs[j]) &&
				      ld_acq(fi_at(a.h, fi[j])) == fi[j]);
			memcpy(bidx[nb], fi, KAV_BATCH_MAX * sizeof(*fi));
		} else {
			uint64_t *done = bidx[0];

			for (j = 0; j < KAV_BATCH_MAX; j++)
				CK(b, entry_is_empty(a.h, done[j]));
			memmove(bidx, bidx + 1, (MAX_KB - 1) * sizeof(bidx[0]));
			bidx[MAX_KB - 1] = done;
		}
		klist_apply(&l, op, id, &next);
		l = next;
		k->lists[!cur] = l;
		cur = !cur;
		__atomic_store_n(&k->word, cur << 2 | PH_IDLE, __ATOMIC_SEQ_CST);
	}
}

/* Another process opens the AV by name, read-only, and looks. */
static __attribute__((noreturn)) void checker_main(struct board *b,
						   const char *name)
{
	struct av a;

	CK(b, !av_attach(&a, name, KAV_AV_RDONLY));
	CK(b, !(a.c.result & KAV_AV_CREATED));
	scan_table(b, a.h, &b->k.checker);
	b->k.checker.av_id = a.c.av_id;
	av_detach(&a);
	_exit(0);
}

/* --- the exec'd process (case 4) ----------------------------------------- */

static bool proc_self_mentions(const char *what)
{
	char buf[4096], link[256], path[300];
	struct dirent *d;
	bool found = false;
	FILE *f;
	DIR *dir;

	f = fopen("/proc/self/maps", "re");
	if (!f)
		return true;
	while (fgets(buf, sizeof(buf), f))
		found |= strstr(buf, what) != NULL;
	fclose(f);
	dir = opendir("/proc/self/fd");
	if (!dir)
		return true;
	while ((d = readdir(dir))) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		found |= strstr(link, what) != NULL;
	}
	closedir(dir);
	return found;
}

#define XCK(cond) do {							\
	if (!(cond)) {							\
		printf("# exec'd child: line %d: %s (errno %d: %s)\n",	\
		       __LINE__, #cond, errno, strerror(errno));	\
		fflush(stdout);						\
		return 1;						\
	}								\
} while (0)

/*
 * After exec: argv = EXEC_ARG name fds idx av_id nonce. None of the fds
 * the parent had is open, nothing of kav is mapped; reopening the AV by
 * name works and shows the parent's entry; insert one of our own.
 */
static int exec_child_main(int argc, char **argv)
{
	struct sockaddr_in6 want, mine;
	uint64_t idx, fi;
	uint32_t av_id, nonce;
	char *p, *end;
	struct av a;

	XCK(argc == 7);
	idx = strtoull(argv[4], NULL, 0);
	av_id = strtoul(argv[5], NULL, 0);
	nonce = strtoul(argv[6], NULL, 0);
	for (p = argv[3]; *p; p = end + (*end == ',')) {
		int fd = strtol(p, &end, 10);

		XCK(end != p);
		errno = 0;
		XCK(fcntl(fd, F_GETFD) == -1 && errno == EBADF);
	}
	XCK(!proc_self_mentions("kav-av"));
	XCK(!proc_self_mentions("kav-ep"));
	XCK(!proc_self_mentions("/dev/kav"));

	XCK(!av_attach(&a, argv[2], 0));
	XCK(!(a.c.result & KAV_AV_CREATED));
	XCK(a.c.av_id == av_id);
	want = w_addr(nonce, 0, 1);
	XCK(entry_is(a.h, idx, &want));
	XCK(a.h->nr_valid == 1);
	mine = w_addr(nonce, TAG_EXEC, 1);
	XCK(!insert6(a.fd, &mine, 1, &fi));
	XCK(entry_is(a.h, fi, &mine));
	av_detach(&a);
	return 0;
}

/* --- the tests ----------------------------------------------------------- */

FIXTURE(conc) {
	struct board *b;
	uint64_t seed;
};

FIXTURE_SETUP(conc)
{
	struct timespec ts;
	int dom;

	if (geteuid())
		SKIP(return, "needs root (setuid, signals to other processes)");
	dom = kav_open_domain();
	if (dom < 0)
		SKIP(return, "no %s: %s", kav_test_device(), strerror(errno));
	close(dom);
	self->b = mmap(NULL, sizeof(*self->b), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->b);
	clock_gettime(CLOCK_REALTIME, &ts);
	self->seed = env_u64("KAV_CONC_SEED", ((uint64_t)ts.tv_sec << 24) ^
			     (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40));
	rng_state = self->seed;
	self->b->seed = self->seed;
	self->b->nonce = (uint32_t)rnd() | 1;
	self->b->idx_bound = IDX_MAX;
}

FIXTURE_TEARDOWN(conc)
{
	if (self->b && self->b != MAP_FAILED)
		munmap(self->b, sizeof(*self->b));
}

/* Reap every pid within @secs; anything still running is stuck. */
static bool reap_all(const pid_t *pids, int n, double secs, int *status)
{
	double end = kav_now() + secs;
	bool ok = true;
	int i;

	for (i = 0; i < n; i++) {
		double left = end - kav_now();

		status[i] = reap(pids[i], left > 0 ? left : 0);
		ok &= status[i] != -1;
	}
	return ok;
}

static const char *describe(int st)
{
	static char buf[64];

	if (st == -1)
		return "still running (stuck), killed";
	if (WIFEXITED(st))
		snprintf(buf, sizeof(buf), "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, sizeof(buf), "killed by signal %d%s",
			 WTERMSIG(st),
			 WTERMSIG(st) == SIGALRM ? " (alarm: it hung)" : "");
	else
		snprintf(buf, sizeof(buf), "status %#x", st);
	return buf;
}

/*
 * Case 1: 3 writers x 3 lock-free readers on one named AV for
 * KAV_STRESS_SECONDS; then the table must be exactly what the writers say.
 */
TEST_F_TIMEOUT(conc, stress_writers_readers, CASE_TIMEOUT)
{
	struct board *b = self->b;
	uint64_t secs = env_u64("KAV_STRESS_SECONDS", KAV_STRESS_SECONDS);
	unsigned long reads = 0, valid = 0, torn = 0, retries = 0, racy = 0;
	unsigned long fi_bad = 0, snaps = 0, snap_bad = 0, batches = 0;
	unsigned long inserted = 0, removed = 0;
	pid_t pids[NR_WRITERS + NR_READERS];
	int st[NR_WRITERS + NR_READERS], gate[2], i, created = 0, tries;
	uint64_t idx, live = 0, slots;
	struct av mine;
	double start;
	char name[64];
	int ret;

	name_for(name, sizeof(name), "stress");
	ASSERT_EQ(0, pipe(gate));
	for (i = 0; i < NR_WRITERS + NR_READERS; i++) {
		pids[i] = spawn(secs + HANG_SECONDS);
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0) {
			if (i < NR_WRITERS)
				writer_main(b, name, i, gate, 0, false);
			reader_main(b, name, i - NR_WRITERS, gate, RD_PLAIN);
		}
	}
	/* Go: the writers race to create the AV. */
	close(gate[0]);
	close(gate[1]);
	start = kav_now();
	/* Hold the AV too, so that it outlives the workers for the check. */
	for (tries = 0;; tries++) {
		ret = av_attach(&mine, name, KAV_AV_RDONLY);
		if (ret != -ENOENT || tries > 20000)
			break;
		usleep(1000);
	}
	ASSERT_EQ(0, ret) TH_LOG("open %s: %s", name, strerror(-ret));
	while (kav_now() - start < secs && !b->anomalies) {
		for (i = 0; i < NR_WRITERS + NR_READERS; i++) {
			siginfo_t si = { 0 };

			/* An early exit (left to reap): the checks below fail. */
			if (waitid(P_PID, pids[i], &si,
				   WEXITED | WNOHANG | WNOWAIT) || si.si_pid)
				break;
		}
		if (i < NR_WRITERS + NR_READERS)
			break;
		usleep(50000);
	}
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
	reap_all(pids, NR_WRITERS + NR_READERS, HANG_SECONDS, st);
	ASSERT_EQ(0, b->anomalies) TH_LOG("%lu anomalies, first: %s",
					  b->anomalies, b->anomaly);
	for (i = 0; i < NR_WRITERS + NR_READERS; i++) {
		int status = st[i];

		ASSERT_TRUE(status != -1 && WIFEXITED(status) &&
			    WEXITSTATUS(status) == 0)
			TH_LOG("%s %d: %s", i < NR_WRITERS ? "writer" : "reader",
			       i < NR_WRITERS ? i : i - NR_WRITERS,
			       describe(status));
	}

	for (i = 0; i < NR_WRITERS; i++) {
		struct wstat *w = &b->w[i];

		ASSERT_EQ(1, w->done);
		ASSERT_LT(0, w->batches) TH_LOG("writer %d made no progress", i);
		ASSERT_EQ(mine.c.av_id, w->av_id);
		created += w->created;
		batches += w->batches;
		inserted += w->inserted;
		removed += w->removed;
		live += w->live;
	}
	/* Create-or-open raced: exactly one creator, one AV. */
	ASSERT_EQ(1, created);
	ASSERT_EQ(live, inserted - removed);
	for (i = 0; i < NR_READERS; i++) {
		struct rstat *r = &b->r[i];

		ASSERT_EQ(mine.c.av_id, r->av_id);
		ASSERT_LT(0, r->passes);
		reads += r->reads;
		valid += r->valid;
		torn += r->torn;
		retries += r->retries;
		racy += r->racy_torn;
		fi_bad += r->fi_bad;
		snaps += r->snapshots;
		snap_bad += r->snap_bad;
	}
	printf("# stress: %llu s, %d writers: %lu batches (%lu inserted, %lu removed, %llu left); %d readers: %lu consistent reads (%lu valid), torn=%lu, fi_addr mismatches=%lu; %lu retries (%lu of those copies were torn), %lu stable snapshots (%lu wrong)\n",
	       (unsigned long long)secs, NR_WRITERS, batches, inserted,
	       removed, (unsigned long long)live, NR_READERS, reads, valid,
	       torn, fi_bad, retries, racy, snaps, snap_bad);
	fflush(stdout);
	ASSERT_EQ(0, torn);
	ASSERT_EQ(0, fi_bad);
	ASSERT_EQ(0, snap_bad);
	ASSERT_LT(0, reads);
	ASSERT_LT(0, valid);

	/* Quiescent: the table is exactly the writers' entries. */
	ASSERT_EQ(0, mine.h->generation & 1);
	ASSERT_EQ(live, mine.h->nr_valid);
	slots = mine.h->nr_slots;
	ASSERT_GE(IDX_MAX, slots);
	for (idx = 0; idx < slots; idx++) {
		struct owner *o = &b->own[idx];
		struct sockaddr_in6 want;

		if (!o->who) {
			ASSERT_TRUE(entry_is_empty(mine.h, idx))
				TH_LOG("entry %llu: nobody's, yet not empty",
				       (unsigned long long)idx);
			continue;
		}
		ASSERT_GE(NR_WRITERS, o->who);
		want = w_addr(b->nonce, o->who - 1, o->ctr);

		ASSERT_TRUE(entry_is(mine.h, idx, &want))
			TH_LOG("entry %llu: not writer %u's address %llu",
			       (unsigned long long)idx, o->who - 1,
			       (unsigned long long)o->ctr);
		ASSERT_EQ(idx, *fi_at(mine.h, idx));
	}
	av_detach(&mine);
	/* The last holder gone, the AV and its name are gone. */
	i = kav_open_domain();
	ASSERT_LE(0, i);
	ASSERT_EQ(-ENOENT, open_named(i, name, KAV_AV_RDONLY, NULL));
	close(i);
}

/*
 * Case 2: readers stopped (two of them inside a read section) do not hold
 * up writers; resumed, they throw away what the writers changed.
 */
TEST_F_TIMEOUT(conc, readers_never_block_writers, CASE_TIMEOUT)
{
	struct board *b = self->b;
	pid_t readers[NR_READERS], writers[NR_WRITERS];
	int rst[NR_READERS], wst[NR_WRITERS], gate[2], wgate[2], i;
	uint64_t gen0, gen1, ops = 0, nwin = 0, live = 0, fi[256];
	struct sockaddr_in6 s[256];
	struct av mine;
	unsigned long passes, at_cont[NR_READERS];
	char name[64];
	uint32_t k;
	double end;

	name_for(name, sizeof(name), "stop");
	/* The parent creates the AV and fills it: entries 0..PREFILL-1. */
	ASSERT_EQ(0, av_attach(&mine, name, KAV_AV_EXCL));
	ASSERT_TRUE(mine.c.result & KAV_AV_CREATED);
	for (i = 0; i < PREFILL / 256; i++) {
		for (k = 0; k < 256; k++)
			s[k] = w_addr(b->nonce, TAG_PARENT, i * 256 + k);
		ASSERT_EQ(0, insert6(mine.fd, s, 256, fi));
		for (k = 0; k < 256; k++) {
			ASSERT_EQ(i * 256 + k, fi[k]);
			b->own[fi[k]].who = TAG_PARENT + 1;
			b->own[fi[k]].ctr = i * 256 + k;
		}
	}

	ASSERT_EQ(0, pipe(gate));
	for (i = 0; i < NR_READERS; i++) {
		readers[i] = spawn(HANG_SECONDS);
		ASSERT_LE(0, readers[i]);
		if (readers[i] == 0)
			reader_main(b, name, i, gate, i == 0 ? RD_STOP_ENTRY :
				    i == 1 ? RD_STOP_SNAP : RD_PLAIN);
	}
	close(gate[0]);
	close(gate[1]);
	/* Readers 0 and 1 stop themselves mid-read; stop 2 mid-loop. */
	ASSERT_TRUE(wait_stopped(readers[0], HANG_SECONDS));
	ASSERT_TRUE(wait_stopped(readers[1], HANG_SECONDS));
	for (end = kav_now() + HANG_SECONDS;
	     !__atomic_load_n(&b->r[2].passes, __ATOMIC_ACQUIRE) &&
	     kav_now() < end;)
		usleep(1000);
	ASSERT_LT(0, b->r[2].passes);
	usleep(below(20000));
	ASSERT_EQ(0, kill(readers[2], SIGSTOP));
	ASSERT_TRUE(wait_stopped(readers[2], HANG_SECONDS));
	passes = b->r[2].passes;
	ASSERT_EQ(1, b->r[0].stopped_mid);
	ASSERT_EQ(1, b->r[1].stopped_mid);

	/* With every reader stopped, writers do a fixed amount of work. */
	gen0 = mine.h->generation;
	ASSERT_EQ(0, gen0 & 1);
	ASSERT_EQ(0, pipe(wgate));
	for (i = 0; i < NR_WRITERS; i++) {
		writers[i] = spawn(BLOCK_SECONDS);
		ASSERT_LE(0, writers[i]);
		if (writers[i] == 0)
			writer_main(b, name, i, wgate, FIXED_OPS, i == 0);
	}
	close(wgate[0]);
	close(wgate[1]);
	reap_all(writers, NR_WRITERS, BLOCK_SECONDS + 10, wst);
	ASSERT_EQ(0, b->anomalies) TH_LOG("%lu anomalies, first: %s",
					  b->anomalies, b->anomaly);
	for (i = 0; i < NR_WRITERS; i++) {
		ASSERT_TRUE(wst[i] != -1 && WIFEXITED(wst[i]) &&
			    WEXITSTATUS(wst[i]) == 0)
			TH_LOG("writer %d: %s", i, describe(wst[i]));
		ASSERT_EQ(FIXED_OPS, b->w[i].batches);
		ASSERT_EQ(0, b->w[i].created);
		ops += b->w[i].batches;
		nwin += b->w[i].windows;
		live += b->w[i].live;
	}
	/* The readers stayed stopped the whole time. */
	for (i = 0; i < NR_READERS; i++)
		ASSERT_EQ('T', proc_state(readers[i]))
			TH_LOG("reader %d is no longer stopped", i);
	ASSERT_EQ(passes, b->r[2].passes);
	/*
	 * Every window of every batch counted once, nothing else changed
	 * the table: a batch of more than BATCH_WINDOW entries is published
	 * in several brackets, never with preemption off throughout.
	 */
	gen1 = mine.h->generation;
	ASSERT_EQ(gen0 + 2 * nwin, gen1)
		TH_LOG("%llu batches in %llu windows of %d", (unsigned long long)ops,
		       (unsigned long long)nwin, BATCH_WINDOW);
	ASSERT_EQ(PREFILL - 1 + live, mine.h->nr_valid);

	for (i = 0; i < NR_READERS; i++) {
		at_cont[i] = b->r[i].passes;
		ASSERT_EQ(0, kill(readers[i], SIGCONT));
	}
	/* Let each do a full pass over the new table, then stop them. */
	for (end = kav_now() + HANG_SECONDS; kav_now() < end; usleep(1000)) {
		for (i = 0; i < NR_READERS; i++)
			if (__atomic_load_n(&b->r[i].passes,
					    __ATOMIC_ACQUIRE) <= at_cont[i])
				break;
		if (i == NR_READERS)
			break;
	}
	__atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
	reap_all(readers, NR_READERS, HANG_SECONDS, rst);
	ASSERT_EQ(0, b->anomalies) TH_LOG("%lu anomalies, first: %s",
					  b->anomalies, b->anomaly);
	for (i = 0; i < NR_READERS; i++) {
		ASSERT_TRUE(rst[i] != -1 && WIFEXITED(rst[i]) &&
			    WEXITSTATUS(rst[i]) == 0)
			TH_LOG("reader %d: %s", i, describe(rst[i]));
		ASSERT_EQ(0, b->r[i].torn);
		ASSERT_EQ(0, b->r[i].fi_bad);
		ASSERT_EQ(0, b->r[i].snap_bad);
		ASSERT_LT(0, b->r[i].passes);
	}
	/* Reader 0's copy of entry 0 spanned its removal: rejected. */
	ASSERT_NE(b->r[0].mid_s1, b->r[0].mid_s2);
	ASSERT_EQ(1, b->r[0].mid_rejected);
	ASSERT_EQ(1, b->r[0].mid_changed);
	ASSERT_EQ(1, b->r[0].mid_retry_ok);
	/* Reader 1's snapshot spanned the batches: rejected; a new one adds up. */
	ASSERT_EQ(gen0, b->r[1].mid_g1);
	ASSERT_EQ(gen1, b->r[1].mid_g2);
	ASSERT_EQ(1, b->r[1].snap_rejected);
	ASSERT_EQ(1, b->r[1].snap_after_ok);
	ASSERT_EQ(PREFILL - 1 + live, b->r[1].snap_after_valid);
	printf("# readers stopped: %d (2 inside a read section); %d writers completed %llu batches meanwhile (generation %llu -> %llu); entry 0 seq %llu -> %llu, stale copy rejected; readers resumed: %lu reads, torn=%lu\n",
	       NR_READERS, NR_WRITERS, (unsigned long long)ops,
	       (unsigned long long)gen0, (unsigned long long)gen1,
	       (unsigned long long)b->r[0].mid_s1,
	       (unsigned long long)b->r[0].mid_s2,
	       b->r[0].reads + b->r[1].reads + b->r[2].reads,
	       b->r[0].torn + b->r[1].torn + b->r[2].torn);
	fflush(stdout);
	av_detach(&mine);
}

/* Case 3: the table after each SIGKILL (checks shared by parent rounds). */
static void check_kill_scan(struct __test_metadata *_metadata,
			    const struct scan *s, int round)
{
	ASSERT_EQ(0, s->why[0]) TH_LOG("round %d: %s", round, s->why);
	ASSERT_EQ(0, s->gen & 1) TH_LOG("round %d: generation odd", round);
	ASSERT_EQ(0, s->nr_valid % KAV_BATCH_MAX)
		TH_LOG("round %d: nr_valid %llu: part of a batch", round,
		       (unsigned long long)s->nr_valid);
	ASSERT_EQ(s->nr_valid, s->found);
	ASSERT_EQ(0, s->odd);
	ASSERT_EQ(0, s->bad);
	ASSERT_EQ(0, s->fi_bad);
	ASSERT_EQ(0, s->foreign);
	ASSERT_EQ(0, s->dup);
	ASSERT_EQ(0, s->overflow);
	ASSERT_EQ(0, s->incomplete)
		TH_LOG("round %d: a batch is in the table in part", round);
	ASSERT_EQ(s->found, (uint64_t)s->nb * KAV_BATCH_MAX);
}

TEST_F_TIMEOUT(conc, sigkill_mid_batch, CASE_TIMEOUT)
{
	struct board *b = self->b;
	struct kboard *k = &b->k;
	uint64_t rounds = env_u64("KAV_KILL_ROUNDS", KAV_KILL_ROUNDS), r;
	unsigned long in_insert = 0, ins_applied = 0, in_remove = 0;
	unsigned long rm_applied = 0, done_phase = 0, idle = 0;
	struct sockaddr_in6 *addrs;
	struct scan s, s2;
	uint64_t *fi, gen;
	struct av mine;
	char name[64];
	uint32_t j;
	int st;

	printf("# sigkill: seed=%#llx (replay: KAV_CONC_SEED=%#llx), %llu rounds, batches of %d\n",
	       (unsigned long long)self->seed, (unsigned long long)self->seed,
	       (unsigned long long)rounds, KAV_BATCH_MAX);
	fflush(stdout);
	name_for(name, sizeof(name), "kill");
	ASSERT_EQ(0, av_attach(&mine, name, KAV_AV_EXCL));
	ASSERT_TRUE(mine.c.result & KAV_AV_CREATED);
	memset(k, 0, sizeof(*k));
	scan_table(b, mine.h, &s);
	ASSERT_EQ(0, s.nr_valid);

	for (r = 1; r <= rounds; r++) {
		struct klist *l, applied;
		uint32_t word, phase;
		pid_t pid;
		double end;

		__atomic_store_n(&k->ready, 0, __ATOMIC_SEQ_CST);
		pid = spawn(HANG_SECONDS);
		ASSERT_LE(0, pid);
		if (pid == 0)
			kill_writer_main(b, name, r);
		for (end = kav_now() + HANG_SECONDS;
		     !__atomic_load_n(&k->ready, __ATOMIC_SEQ_CST) &&
		     kav_now() < end && !waitpid(pid, &st, WNOHANG);)
			usleep(1000);
		ASSERT_EQ(1, k->ready) TH_LOG("round %llu: writer never ready: %s",
					      (unsigned long long)r,
					      b->anomaly);
		usleep(below(KILL_DELAY_US));
		ASSERT_EQ(0, kill(pid, SIGKILL));
		st = reap(pid, HANG_SECONDS);
		ASSERT_EQ(0, b->anomalies) TH_LOG("round %llu: %s",
						  (unsigned long long)r,
						  b->anomaly);
		ASSERT_TRUE(st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
			TH_LOG("round %llu: writer: %s", (unsigned long long)r,
			       describe(st));

		scan_table(b, mine.h, &s);
		check_kill_scan(_metadata, &s, r);

		/* Exactly what was applied: the list, +/- the batch in flight. */
		word = k->word;
		phase = word & 3;
		l = &k->lists[word >> 2];
		klist_apply(l, k->op, k->id, &applied);
		if (phase == PH_IDLE) {
			idle++;
			ASSERT_TRUE(klist_eq(s.ids, s.nb, l->ids, l->nb))
				TH_LOG("round %llu: the table is not the writer's last state",
				       (unsigned long long)r);
		} else if (phase == PH_DONE) {
			done_phase++;
			ASSERT_TRUE(klist_eq(s.ids, s.nb, applied.ids, applied.nb))
				TH_LOG("round %llu: a batch that returned 0 is not applied",
				       (unsigned long long)r);
		} else {
			bool was = klist_eq(s.ids, s.nb, applied.ids, applied.nb);

			ASSERT_TRUE(was || klist_eq(s.ids, s.nb, l->ids, l->nb))
				TH_LOG("round %llu: the table is neither before nor after the batch in flight",
				       (unsigned long long)r);
			if (k->op == OP_INSERT) {
				in_insert++;
				ins_applied += was;
			} else {
				in_remove++;
				rm_applied += was;
			}
		}

		/* Another process, opening the AV by name, sees the same. */
		pid = spawn(HANG_SECONDS);
		ASSERT_LE(0, pid);
		if (pid == 0)
			checker_main(b, name);
		st = reap(pid, HANG_SECONDS);
		ASSERT_EQ(0, b->anomalies) TH_LOG("checker: %s", b->anomaly);
		ASSERT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
			TH_LOG("checker: %s", describe(st));
		ASSERT_EQ(mine.c.av_id, k->checker.av_id);
		k->checker.av_id = 0;
		ASSERT_EQ(0, memcmp(&s, &k->checker, sizeof(s)))
			TH_LOG("round %llu: another process sees another table (nr_valid %llu vs %llu, generation %llu vs %llu)",
			       (unsigned long long)r,
			       (unsigned long long)s.nr_valid,
			       (unsigned long long)k->checker.nr_valid,
			       (unsigned long long)s.gen,
			       (unsigned long long)k->checker.gen);

		/* The next writer starts from what is there. */
		k->lists[0].nb = s.nb;
		memcpy(k->lists[0].ids, s.ids, sizeof(s.ids));
		__atomic_store_n(&k->word, PH_IDLE, __ATOMIC_SEQ_CST);
	}
	printf("# sigkill: %llu writers killed: %lu inside an insert call (%lu applied), %lu inside a remove call (%lu applied), %lu after a call returned, %lu between calls; generation %llu, nr_valid %llu (%u batches of %d)\n",
	       (unsigned long long)rounds, in_insert, ins_applied, in_remove,
	       rm_applied, done_phase, idle, (unsigned long long)s.gen,
	       (unsigned long long)s.nr_valid,
	       s.nb, KAV_BATCH_MAX);
	fflush(stdout);

	/* The table still takes (and gives back) a full batch. */
	addrs = calloc(KAV_BATCH_MAX, sizeof(*addrs));
	fi = calloc(KAV_BATCH_MAX, sizeof(*fi));
	ASSERT_TRUE(addrs && fi);
	for (j = 0; j < KAV_BATCH_MAX; j++)
		addrs[j] = k_addr(b->nonce, ~0ULL, j);
	gen = mine.h->generation;
	ASSERT_EQ(0, insert6(mine.fd, addrs, KAV_BATCH_MAX, fi));
	scan_table(b, mine.h, &s2);
	check_kill_scan(_metadata, &s2, -1);
	ASSERT_EQ(s.nr_valid + KAV_BATCH_MAX, s2.nr_valid);
	ASSERT_EQ(0, kav_remove(mine.fd, fi, KAV_BATCH_MAX, NULL));
	/* Two batches of KAV_BATCH_MAX, each in bounded windows. */
	ASSERT_EQ(gen + 2 * 2 * windows(KAV_BATCH_MAX), mine.h->generation);
	ASSERT_EQ(s.nr_valid, mine.h->nr_valid);
	free(addrs);
	free(fi);
	av_detach(&mine);
}

/* --- case 4: fork() ------------------------------------------------------ */

/* Parent's side of a fork test: the AV, read-write and read-only. */
struct forked {
	struct av a;		/* domain, read-write fd, mapping */
	int ro;			/* the same AV, KAV_AV_RDONLY */
	char name[64];
};

static int forked_setup(struct forked *f, const char *what)
{
	struct kav_av_create c;

	name_for(f->name, sizeof(f->name), what);
	if (av_attach(&f->a, f->name, KAV_AV_EXCL))
		return -1;
	f->ro = open_named(f->a.dom, f->name, KAV_AV_RDONLY, &c);
	if (f->ro < 0 || c.av_id != f->a.c.av_id)
		return -1;
	return 0;
}

static void forked_teardown(struct forked *f)
{
	close(f->ro);
	av_detach(&f->a);
}

/* Reap a fork-test child; 0 if it exited 0 and reported nothing. */
#define ASSERT_CHILD_OK(b, pid) do {					\
	int __st = reap(pid, HANG_SECONDS);				\
	ASSERT_EQ(0, (b)->anomalies) TH_LOG("child: %s", (b)->anomaly);	\
	ASSERT_TRUE(__st != -1 && WIFEXITED(__st) &&			\
		    WEXITSTATUS(__st) == 0)				\
		TH_LOG("child: %s", describe(__st));			\
} while (0)

/*
 * The child shares the open file description and the mapping: each side
 * sees the other's inserts and removes at once.
 */
TEST_F_TIMEOUT(conc, fork_shares_fd_and_mapping, CASE_TIMEOUT)
{
	struct board *b = self->b;
	struct sockaddr_in6 A = w_addr(b->nonce, 0, 1);
	struct sockaddr_in6 B = w_addr(b->nonce, 1, 1);
	const volatile struct kav_table_header *h;
	int p2c[2], c2p[2];
	uint64_t idx, idx_b, v;
	struct forked f;
	pid_t pid;

	ASSERT_EQ(0, forked_setup(&f, "fork-share"));
	h = f.a.h;
	ASSERT_EQ(0, pipe(p2c));
	ASSERT_EQ(0, pipe(c2p));
	ASSERT_EQ(0, fcntl(f.a.fd, F_GETFL) & O_NONBLOCK);
	pid = spawn(HANG_SECONDS);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint64_t x, mine;

		close(p2c[1]);
		close(c2p[0]);
		CK(b, fcntl(f.a.fd, F_GETFD) & FD_CLOEXEC);
		CK(b, h->magic == KAV_TABLE_MAGIC);
		/* File status flags live in the open file description. */
		CK(b, !fcntl(f.a.fd, F_SETFL, O_NONBLOCK));
		CK(b, !put_u64(c2p[1], 1));
		/* The parent's insert, through the inherited mapping. */
		CK(b, !get_u64(p2c[0], &x));
		CK(b, entry_is(h, x, &A) && ld_acq(fi_at(h, x)) == x);
		CK(b, h->nr_valid == 1);
		CK(b, !insert6(f.a.fd, &B, 1, &mine));
		CK(b, mine != x && entry_is(h, mine, &B));
		CK(b, !put_u64(c2p[1], mine));
		/* The parent's remove. */
		CK(b, !get_u64(p2c[0], &x));
		CK(b, entry_is_empty(h, x) && h->nr_valid == 1);
		CK(b, !kav_remove(f.a.fd, &mine, 1, NULL));
		CK(b, !put_u64(c2p[1], 0));
		CK(b, !get_u64(p2c[0], &x));
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	ASSERT_EQ(0, get_u64(c2p[0], &v));
	ASSERT_EQ(O_NONBLOCK, fcntl(f.a.fd, F_GETFL) & O_NONBLOCK)
		TH_LOG("the child's fd is another open file description");
	ASSERT_EQ(0, insert6(f.a.fd, &A, 1, &idx));
	ASSERT_EQ(0, put_u64(p2c[1], idx));
	/* The child's insert, through the parent's mapping. */
	ASSERT_EQ(0, get_u64(c2p[0], &idx_b)) TH_LOG("child: %s", b->anomaly);
	ASSERT_TRUE(entry_is(h, idx_b, &B));
	ASSERT_EQ(idx_b, *fi_at(h, idx_b));
	ASSERT_EQ(2, h->nr_valid);
	ASSERT_EQ(0, kav_remove(f.a.fd, &idx, 1, NULL));
	ASSERT_EQ(0, put_u64(p2c[1], idx));
	/* The child's remove. */
	ASSERT_EQ(0, get_u64(c2p[0], &v)) TH_LOG("child: %s", b->anomaly);
	ASSERT_TRUE(entry_is_empty(h, idx_b));
	ASSERT_EQ(0, h->nr_valid);
	ASSERT_EQ(8, h->generation);	/* four batches, both processes */
	ASSERT_EQ(0, put_u64(p2c[1], 0));
	ASSERT_CHILD_OK(b, pid);
	close(p2c[1]);
	close(c2p[0]);
	forked_teardown(&f);
}

/*
 * Inherited fds keep their access: EPERM for mutations on the read-only
 * one (endpoints open); through the read-write one, parent and child
 * insert at the same time and the kernel serialises them.
 */
TEST_F_TIMEOUT(conc, fork_rw_fd_mutates_rdonly_eperm, CASE_TIMEOUT)
{
	struct board *b = self->b;
	enum { ROUNDS = 64, PER = 16 };
	const volatile struct kav_table_header *h;
	uint64_t idx[ROUNDS * PER], gen0, i, j;
	struct sockaddr_in6 s[PER];
	int gate[2];
	struct forked f;
	pid_t pid;

	ASSERT_EQ(0, forked_setup(&f, "fork-rw"));
	h = f.a.h;
	gen0 = h->generation;
	ASSERT_EQ(0, pipe(gate));
	pid = spawn(HANG_SECONDS);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct kav_av_key key = { .size = sizeof(key) };
		struct kav_av_user_id uid = { .size = sizeof(uid) };
		struct kav_av_ep_open ep = { .size = sizeof(ep) };
		struct sockaddr_in6 one = w_addr(b->nonce, 2, 0);
		uint64_t x = 0;

		gate_wait(gate);
		errno = 0;
		CK(b, insert6(f.ro, &one, 1, &x) == -EPERM);
		CK(b, kav_remove(f.ro, &x, 1, NULL) == -EPERM);
		CK(b, ioctl(f.ro, KAV_IOC_AV_KEY_INSERT, &key) == -1 &&
		      errno == EPERM);
		CK(b, ioctl(f.ro, KAV_IOC_AV_KEY_REMOVE, &key) == -1 &&
		      errno == EPERM);
		CK(b, ioctl(f.ro, KAV_IOC_AV_SET_USER_ID, &uid) == -1 &&
		      errno == EPERM);
		CK(b, ioctl(f.ro, KAV_IOC_AV_EP_OPEN, &ep) == -1 &&
		      errno == EPERM);
		/* Endpoint fds are O_CLOEXEC (opened on the read-write fd). */
		CK(b, !ioctl(f.a.fd, KAV_IOC_AV_EP_OPEN, &ep) && ep.fd >= 0);
		CK(b, fcntl(ep.fd, F_GETFD) & FD_CLOEXEC);
		close(ep.fd);
		for (i = 0; i < ROUNDS; i++) {
			for (j = 0; j < PER; j++)
				s[j] = w_addr(b->nonce, 1, i * PER + j);
			CK(b, !insert6(f.a.fd, s, PER, &b->vals[i * PER]));
		}
		b->nvals = ROUNDS * PER;
		_exit(0);
	}
	close(gate[0]);
	close(gate[1]);
	for (i = 0; i < ROUNDS; i++) {
		for (j = 0; j < PER; j++)
			s[j] = w_addr(b->nonce, 0, i * PER + j);
		ASSERT_EQ(0, insert6(f.a.fd, s, PER, &idx[i * PER]));
	}
	ASSERT_CHILD_OK(b, pid);
	ASSERT_EQ(ROUNDS * PER, b->nvals);
	/* Both sides' entries, each at the index it was told, none shared. */
	ASSERT_EQ(2 * ROUNDS * PER, h->nr_valid);
	ASSERT_EQ(gen0 + 2 * 2 * ROUNDS, h->generation);
	for (i = 0; i < ROUNDS * PER; i++) {
		struct sockaddr_in6 mine = w_addr(b->nonce, 0, i);
		struct sockaddr_in6 theirs = w_addr(b->nonce, 1, i);

		ASSERT_TRUE(entry_is(h, idx[i], &mine));
		ASSERT_TRUE(entry_is(h, b->vals[i], &theirs));
		ASSERT_GT(2 * ROUNDS * PER, idx[i]);
		ASSERT_GT(2 * ROUNDS * PER, b->vals[i]);
	}
	/* And the parent's read-only fd is just as read-only. */
	ASSERT_EQ(-EPERM, kav_remove(f.ro, idx, 1, NULL));
	forked_teardown(&f);
}

/* The inherited mapping cannot be made writable, nor written. */
TEST_F_TIMEOUT(conc, fork_child_cannot_write_mapping, CASE_TIMEOUT)
{
	struct board *b = self->b;
	struct sockaddr_in6 A = w_addr(b->nonce, 0, 7);
	uint64_t idx, gen;
	struct forked f;
	pid_t pid;

	ASSERT_EQ(0, forked_setup(&f, "fork-wr"));
	ASSERT_EQ(0, insert6(f.a.fd, &A, 1, &idx));
	gen = f.a.h->generation;
	pid = spawn(HANG_SECONDS);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		void *base = (void *)f.a.h;
		size_t page = sysconf(_SC_PAGESIZE);
		char byte = 0x5a;
		pid_t g;
		int st, mem;

		errno = 0;
		CK(b, mprotect(base, f.a.c.map_size, PROT_READ | PROT_WRITE) == -1 &&
		      errno == EACCES);
		CK(b, mprotect(base, page, PROT_WRITE) == -1 && errno == EACCES);
		CK(b, mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED,
			   f.a.fd, 0) == MAP_FAILED && errno == EACCES);
		CK(b, mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED,
			   f.ro, 0) == MAP_FAILED && errno == EACCES);
		/* Nor through /proc/self/mem (FOLL_FORCE). */
		mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
		CK(b, mem >= 0);
		CK(b, pwrite(mem, &byte, 1, (off_t)(uintptr_t)base) != 1);
		close(mem);
		/* A store faults. */
		g = fork();
		CK(b, g >= 0);
		if (g == 0) {
			*(volatile char *)base = byte;
			_exit(0);
		}
		CK(b, waitpid(g, &st, 0) == g);
		CK(b, WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
		CK(b, f.a.h->magic == KAV_TABLE_MAGIC);
		CK(b, entry_is(f.a.h, idx, &A));
		_exit(0);
	}
	ASSERT_CHILD_OK(b, pid);
	ASSERT_EQ(KAV_TABLE_MAGIC, f.a.h->magic);
	ASSERT_EQ(gen, f.a.h->generation);
	ASSERT_TRUE(entry_is(f.a.h, idx, &A));
	forked_teardown(&f);
}

/* A child closing and unmapping everything leaves the parent's alone. */
TEST_F_TIMEOUT(conc, fork_child_close_unmap_leaves_parent, CASE_TIMEOUT)
{
	struct board *b = self->b;
	struct sockaddr_in6 A = w_addr(b->nonce, 0, 1);
	struct sockaddr_in6 B = w_addr(b->nonce, 0, 2);
	struct kav_av_ep_open ep = { .size = sizeof(ep) };
	struct kav_av_create c;
	uint64_t ia, ib;
	struct forked f;
	pid_t pid;
	int dom, fd;

	ASSERT_EQ(0, forked_setup(&f, "fork-close"));
	ASSERT_EQ(0, insert6(f.a.fd, &A, 1, &ia));
	pid = spawn(HANG_SECONDS);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		CK(b, !munmap((void *)f.a.h, f.a.c.map_size));
		CK(b, !close(f.a.fd));
		CK(b, !close(f.ro));
		CK(b, !close(f.a.dom));
		_exit(0);
	}
	ASSERT_CHILD_OK(b, pid);
	/* Everything of the parent's still works. */
	ASSERT_LE(0, fcntl(f.a.fd, F_GETFD));
	ASSERT_LE(0, fcntl(f.ro, F_GETFD));
	ASSERT_TRUE(entry_is(f.a.h, ia, &A));
	ASSERT_EQ(0, insert6(f.a.fd, &B, 1, &ib));
	ASSERT_TRUE(entry_is(f.a.h, ib, &B));
	ASSERT_EQ(2, f.a.h->nr_valid);
	ASSERT_EQ(-EPERM, insert6(f.ro, &B, 1, &ib));
	ASSERT_EQ(-1, ioctl(f.ro, KAV_IOC_AV_EP_OPEN, &ep));
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(0, ioctl(f.a.fd, KAV_IOC_AV_EP_OPEN, &ep));
	close(ep.fd);
	/* The AV, by name, is the same one. */
	ASSERT_LE(0, (dom = kav_open_domain()));
	ASSERT_LE(0, (fd = open_named(dom, f.name, 0, &c)));
	ASSERT_EQ(0, c.result & KAV_AV_CREATED);
	ASSERT_EQ(f.a.c.av_id, c.av_id);
	close(fd);
	close(dom);
	forked_teardown(&f);
}

/*
 * Every kav fd is O_CLOEXEC and stays so across fork(): after exec() they
 * are gone, and the new program reopens the AV by name.
 */
TEST_F_TIMEOUT(conc, fork_exec_closes_av_fds, CASE_TIMEOUT)
{
	struct board *b = self->b;
	struct sockaddr_in6 A = w_addr(b->nonce, 0, 1);
	struct sockaddr_in6 E = w_addr(b->nonce, TAG_EXEC, 1);
	struct kav_av_ep_open ep = { .size = sizeof(ep) };
	uint64_t ia, i, found = 0;
	char fds[64], sidx[32], sid[32], snonce[32];
	struct forked f;
	pid_t pid;

	ASSERT_EQ(0, forked_setup(&f, "fork-exec"));
	ASSERT_EQ(0, ioctl(f.a.fd, KAV_IOC_AV_EP_OPEN, &ep));
	ASSERT_EQ(FD_CLOEXEC, fcntl(f.a.fd, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(FD_CLOEXEC, fcntl(f.ro, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(FD_CLOEXEC, fcntl(ep.fd, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(0, insert6(f.a.fd, &A, 1, &ia));
	snprintf(fds, sizeof(fds), "%d,%d,%d,%d", f.a.fd, f.ro, ep.fd,
		 f.a.dom);
	snprintf(sidx, sizeof(sidx), "%llu", (unsigned long long)ia);
	snprintf(sid, sizeof(sid), "%u", f.a.c.av_id);
	snprintf(snonce, sizeof(snonce), "%u", b->nonce);
	pid = spawn(HANG_SECONDS);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* fork() kept the flag, the fds and the mapping. */
		CK(b, fcntl(f.a.fd, F_GETFD) == FD_CLOEXEC);
		CK(b, fcntl(f.ro, F_GETFD) == FD_CLOEXEC);
		CK(b, fcntl(ep.fd, F_GETFD) == FD_CLOEXEC);
		CK(b, proc_self_mentions("kav-av"));
		CK(b, entry_is(f.a.h, ia, &A));
		execl("/proc/self/exe", "kav_concurrency_test", EXEC_ARG,
		      f.name, fds, sidx, sid, snonce, (char *)NULL);
		anomaly(b, "exec /proc/self/exe: %s", strerror(errno));
		_exit(127);
	}
	ASSERT_CHILD_OK(b, pid);
	/* The exec'd program's entry is in the parent's mapping. */
	ASSERT_EQ(2, f.a.h->nr_valid);
	for (i = 0; i < f.a.h->nr_slots; i++)
		found += entry_is(f.a.h, i, &E);
	ASSERT_EQ(1, found);
	close(ep.fd);
	forked_teardown(&f);
}

/*
 * The kernel acts with the identity of whoever opened /dev/kav: a child
 * that gives up root keeps acting as root through what it inherited, and
 * only there.
 */
TEST_F_TIMEOUT(conc, fork_setuid_child_acts_as_opener, CASE_TIMEOUT)
{
	struct board *b = self->b;
	struct sockaddr_in6 C = w_addr(b->nonce, 5, 5);
	struct forked f;
	pid_t pid;

	ASSERT_EQ(0, forked_setup(&f, "fork-uid"));
	/* Created with mode 0 (KAV_AV_MODE_DEFAULT, 0600): the owner only. */
	ASSERT_EQ(0600, KAV_AV_MODE_DEFAULT);
	pid = spawn(HANG_SECONDS);
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct kav_av_create c;
		int fresh, fd;

		CK(b, !setgroups(0, NULL));
		CK(b, !setresgid(UID_NOBODY, UID_NOBODY, UID_NOBODY));
		CK(b, !setresuid(UID_NOBODY, UID_NOBODY, UID_NOBODY));
		CK(b, geteuid() == UID_NOBODY && getegid() == UID_NOBODY);
		/* Through the inherited read-write fd: acts as the opener. */
		CK(b, !insert6(f.a.fd, &C, 1, &b->vals[0]));
		CK(b, entry_is(f.a.h, b->vals[0], &C));
		b->nvals = 1;
		/* The read-only fd stays read-only. */
		CK(b, insert6(f.ro, &C, 1, &b->vals[1]) == -EPERM);
		/* The inherited domain opens the root-only AV by name... */
		fd = open_named(f.a.dom, f.name, 0, &c);
		CK(b, fd >= 0 && c.av_id == f.a.c.av_id &&
		      !(c.result & KAV_AV_CREATED));
		close(fd);
		/*
		 * ...a domain this uid opens looks among its own names, where
		 * the name is another (new) AV, and may not open root's.
		 */
		fresh = kav_open_domain();
		CK(b, fresh >= 0);
		CK(b, open_named(fresh, f.name, KAV_AV_RDONLY, NULL) ==
		      -ENOENT);
		fd = open_named(fresh, f.name, 0, &c);
		CK(b, fd >= 0 && c.av_id != f.a.c.av_id &&
		      (c.result & KAV_AV_CREATED));
		close(fd);
		CK(b, open_owned(fresh, f.name, 0, 0) == -EACCES);
		CK(b, open_owned(fresh, f.name, KAV_AV_RDONLY, 0) == -EACCES);
		close(fresh);
		_exit(0);
	}
	ASSERT_CHILD_OK(b, pid);
	ASSERT_EQ(1, b->nvals);
	ASSERT_TRUE(entry_is(f.a.h, b->vals[0], &C));
	ASSERT_EQ(1, f.a.h->nr_valid);
	forked_teardown(&f);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], EXEC_ARG))
		return exec_child_main(argc, argv);
	return test_harness_run(argc, argv);
}
