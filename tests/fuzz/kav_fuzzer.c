// SPDX-License-Identifier: GPL-2.0
/*
 * kav_fuzzer: a concurrent, coverage-guided fuzzer for /dev/kav and the
 * "kav" generic netlink family. Runs as root in the test VM.
 *
 * A program (kav_fuzzer.h, fz_prog.c) is a few setup calls, then 2-4
 * threads (in one process, or two: the second forked after the setup,
 * sharing the fds and named AVs, maybe as uid 65534) that each run a few
 * calls, each call repeated up to thousands of times, against the same
 * small pool of fds (slot n is fd 400 + n), fi_addrs buffers that other
 * calls mprotect() and munmap() mid-flight, named AVs and grants.
 *
 * Every program runs in a fresh child process (its own process group),
 * so that whatever it leaves open is closed when it ends. Oracles:
 *   - kernel reports: /dev/kmsg is read after each program; any BUG,
 *     WARNING, Oops, KASAN, UBSAN, KFENCE, lockdep, hung-task or stall
 *     line is blamed on it (the host's lanes/vm/vm.sh also scans the console);
 *   - a program that does not end (a task stuck in kav);
 *   - invariants, when every thread is done, through each AV's mapped
 *     table: generation even, nr_valid == the valid entries (never
 *     "negative"), each key slot's nr_entries == the entries bound to it,
 *     entries bound only to valid keys, cleared entries with KAV_NONE
 *     keys, the fi_addr array matches; through netlink: no grant counts
 *     a "negative" (huge) number of entries or AVs;
 *   - after the program: with its objects gone (and its pins dropped),
 *     STATS_GET counts no domain, AV or entry, every grant counts
 *     0 entries and 0 AVs, and no grant is left but those the campaign
 *     started with: the program's adds are recorded, and deleted, by
 *     the id each reply gave (one whose process was killed inside it,
 *     a straggler once the first process is gone, is swept by dump).
 * Coverage: with /sys/kernel/debug/kcov (the debug kernel built with
 * CONFIG_KCOV), each thread traces its calls' PCs (KCOV_TRACE_PC); PCs
 * inside kav.ko's .text count, and a program that reaches a new one
 * joins the corpus, which later programs are mutated from. Without kcov
 * (Debian's kernels) it is a random concurrent fuzzer.
 *
 * A failing program is minimised (calls dropped while it still fails, for
 * invariant failures; a kernel report is saved as it is, the kernel is
 * no longer trusted) and printed between "# @@KAV-FUZZ-REPRO-BEGIN" and
 * "# @@KAV-FUZZ-REPRO-END" lines; --replay=FILE runs one.
 *
 * Usage: kav_fuzzer [--time=S] [--seed=N] [--pcs] [--no-seeds]
 *                   [--prog-ms=MS] [--keep-going] [--replay=FILE] [--runs=N]
 * --keep-going: after an invariant violation, go on looking for other
 * kinds (a kernel report or a hang still ends the campaign).
 * --ignore=TEXT: a violation whose message holds TEXT ('.': any
 * character, as arguments cannot hold spaces) is counted apart,
 * not as a failure (the canary: 15fc615's cleared entries keep key 0).
 * --stop-on=TEXT: with --keep-going, a violation holding TEXT ends it.
 * Programs carry their own time budget (1-3 s often) and calls that loop
 * for all of it; without kcov, new (op, errno, log2 count) outcomes are
 * the feedback that keeps a program in the corpus.
 * Output: KTAP, one test (the campaign or the replay).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <grp.h>
#include <linux/kcov.h>
#include "kav_test_util.h"
#include "kav_nl_util.h"
#include "kav_collide.h"
#include "kav_fuzzer.h"

#define PAGE		4096UL
#define UID_TENANT	65534
/* A supplementary group of the root process, granted by gid. */
#define GID_EXTRA	4242
/* The child cgroup the second process of a program runs in. */
#define FUZZ_CGROUP	"/sys/fs/cgroup/kav-fuzz"
#define ADDRS_MAX	KAV_BATCH_MAX
#define CHECK_ENTRIES	(1U << 18)
#define COVER_WORDS	(1U << 16)
#define TEXT_MAX	(1U << 20)	/* kav.ko's .text is far smaller */
#define CORPUS_MAX	512
#define VIOL_LEN	1024
#define NR_BASE_GRANTS	6
#define MAX_ADDED	4096	/* grants one program may add */
/*
 * added[n] while GRANT_ADD n is in the kernel: a process killed there
 * (a straggler, once the first process is gone) may have made a grant
 * no one recorded.
 */
#define ADD_IN_FLIGHT	0xffffffffU
/* Grants present when the campaign starts, its own included. */
#define MAX_BASE_IDS	256
#define NR_SKIP		64
/* Outcomes: (op, errno) pairs, errno clipped; hit counts in log2 buckets. */
#define NR_ERRS		64
#define NR_BUCKETS	24

/* --- state shared between the campaign and a program's processes --------- */

struct shared {
	atomic_ulong calls;
	atomic_int nr_viol;
	atomic_int nr_ignored;		/* violations --ignore'd */
	char viol[VIOL_LEN];		/* the first violation */
	atomic_uint pgrant[NR_PGRANTS];	/* grants the program added... */
	atomic_uint added[MAX_ADDED];	/* ...all of them, for the cleanup */
	atomic_uint nr_added;
	/* how often each (op, errno) happened in the program */
	atomic_uint outcome[NR_OPS][NR_ERRS];
	/* which errnos each thread's ops got: a bit per errno */
	atomic_ullong touts[MAX_THREADS][NR_OPS];
	/* kav's .text PCs reached, one bit per byte offset */
	atomic_uchar cover[TEXT_MAX / 8];
	/*
	 * Grants whose limits the program may have lowered below what they
	 * count (GRANT_SET, an idempotent GRANT_ADD): marked before the
	 * call, so a reader that sees the change also sees the mark. The
	 * others must never count more than their limits.
	 */
	atomic_uint skip_id[NR_SKIP], nr_skip_id;
	atomic_uint skip_vni[NR_SKIP], nr_skip_vni;
};

static struct shared *SH;

/* kav.ko's .text, for kcov; 0 when there is no kcov. */
static uint64_t text_start, text_size;
static bool have_kcov;

static uint64_t baseline_grant[NR_BASE_GRANTS];

/* --- a program's process ----------------------------------------------------- */

enum slot_kind { K_NONE, K_DOM, K_AV, K_EP };

struct slot {
	atomic_int kind;
	_Atomic uint64_t map_size;
	atomic_uint av_id;
	atomic_uint fmt;	/* the AV's address format, if known */
};

/* Per process (fork copies them with the fds). */
static struct slot slots[NR_SLOTS];
static uint64_t *bufs[NR_BUFS];		/* fi_addrs buffers */
static uint8_t *addrs_in, *addrs_in6, *addrs_str, *ro_page, *tail_page;
static uint8_t *junk;			/* random bytes for corruptions */
static struct kav_nl proc_nl;
/* Joined to the admin group and never read: notifications get built. */
static struct kav_nl proc_listen;
static pthread_mutex_t nl_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t deadline_ns;
static __thread uint8_t cur_op;		/* the op exec_call() runs */
static __thread uint8_t cur_thread = SETUP_THREAD;	/* and its thread */

/* Count an outcome of the current op: 0 or a negative errno. */
static int outcome(int ret)
{
	unsigned int e = ret < 0 ? (unsigned int)-ret : 0;

	if (e >= NR_ERRS)
		e = NR_ERRS - 1;
	atomic_fetch_add_explicit(&SH->outcome[cur_op][e], 1,
				  memory_order_relaxed);
	if (cur_thread < MAX_THREADS)
		atomic_fetch_or_explicit(&SH->touts[cur_thread][cur_op],
					 1ULL << e, memory_order_relaxed);
	return ret;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* --ignore=TEXT: violations whose message holds TEXT do not count. */
#define MAX_PATS	8
static const char *ignore_pat[MAX_PATS];
static unsigned int nr_ignore;

/* Does @msg hold @pat, where a '.' in @pat stands for any character? */
static bool holds(const char *msg, const char *pat)
{
	size_t i, n = strlen(pat);

	for (; *msg; msg++) {
		for (i = 0; i < n && msg[i]; i++)
			if (pat[i] != '.' && pat[i] != msg[i])
				break;
		if (i == n)
			return true;
	}
	return false;
}

static void violation(const char *fmt, ...)
{
	char msg[VIOL_LEN];
	unsigned int i;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (i = 0; i < nr_ignore; i++) {
		if (holds(msg, ignore_pat[i])) {
			atomic_fetch_add(&SH->nr_ignored, 1);
			return;
		}
	}
	if (atomic_fetch_add(&SH->nr_viol, 1))
		return;
	memcpy(SH->viol, msg, sizeof(msg));
}

static int slot_fd(uint64_t s)
{
	return SLOT_FD0 + (int)(s % NR_SLOTS);
}

/* Move a new fd to slot @s (closing what was there). */
static void slot_set(uint64_t s, int fd, int kind, uint64_t map_size,
		     uint32_t av_id)
{
	struct slot *sl = &slots[s % NR_SLOTS];

	if (fd < 0)
		return;
	if (dup3(fd, slot_fd(s), O_CLOEXEC) < 0) {
		close(fd);
		return;
	}
	close(fd);
	atomic_store(&sl->map_size, map_size);
	atomic_store(&sl->av_id, av_id);
	atomic_store(&sl->kind, kind);
}

/* Corruption of an argument structure (the generator's a[4]-like code). */
static int do_ioctl(int fd, unsigned long cmd, void *arg, size_t size,
		    uint64_t corrupt)
{
	static const uint32_t sizes[] = { 0, 4, 8, 4096 + 8, 1U << 20 };
	__u32 *sz = arg;
	char big[4096 + 64];
	void *p = arg;

	switch (corrupt) {
	case 1: case 2:
		*sz = sizes[corrupt - 1];
		break;
	case 3:			/* larger, with a non-zero tail */
		memset(big, 0, sizeof(big));
		memcpy(big, arg, size);
		big[size + 3] = 1;
		((__u32 *)big)[0] = (__u32)size + 8;
		p = big;
		break;
	case 4:			/* flags */
		sz[1] ^= 1U << (junk[0] % 32);
		break;
	case 5:			/* the last word, often reserved */
		((uint8_t *)arg)[size - 1] ^= 0x80;
		break;
	case 6:
		p = NULL;
		break;
	case 7:
		p = (void *)0xffffffffff600000UL;
		break;
	case 8:			/* the structure ends on an unmapped page */
		p = ro_page + PAGE - size / 2;
		break;
	}
	atomic_fetch_add(&SH->calls, 1);
	return outcome(ioctl(fd, cmd, p) ? -errno : 0);
}

/*
 * Addresses for an AV of @fmt: stride and a base pointer (KAV_ADDR_SOCKADDR
 * takes IPv4 or, with @in6, IPv6 ones).
 */
static const uint8_t *addrs_for(uint32_t fmt, bool in6, uint32_t *stride)
{
	switch (fmt) {
	case KAV_ADDR_SOCKADDR:
		if (!in6)
			break;
		/* fall through */
	case KAV_ADDR_SOCKADDR_IN6:
		*stride = sizeof(struct sockaddr_in6);
		return addrs_in6;
	case KAV_ADDR_STR:
		*stride = 32;
		return addrs_str;
	}
	*stride = sizeof(struct sockaddr_in);
	return addrs_in;
}

/* Bytes of the (valid) address at @addr that an entry stores. */
static uint32_t addr_len_of(uint32_t fmt, const uint8_t *addr, uint32_t stride)
{
	sa_family_t family;

	if (fmt == KAV_ADDR_STR)
		return (uint32_t)strnlen((const char *)addr, stride) + 1;
	memcpy(&family, addr, sizeof(family));
	return family == AF_INET6 ? sizeof(struct sockaddr_in6) :
	       sizeof(struct sockaddr_in);
}

/*
 * Names: 0-3 valid; 4 a NUL inside, 5 one byte too long, 6 an unmapped
 * pointer, 7 KAV_NAME_MAX bytes.
 */
static char long_name[KAV_NAME_MAX + 2];
static const struct { const char *p; uint32_t len; } names[] = {
	{ "fz0", 3 }, { "fz1", 3 }, { "FI_NAMED_AV_0", 13 }, { "fz3", 3 },
	{ "fz\0x", 4 }, { long_name, KAV_NAME_MAX + 1 },
	{ (const char *)0x10, 3 }, { long_name, KAV_NAME_MAX },
};
/* 6 and 7 are refused: execute and set-user-id bits. */
static const uint32_t modes[] = { 0, 0600, 0666, 0644, 0640, 0604, 0777, 04600 };
static const uint64_t hints[] = { 0, 1, 1024, 1ULL << 20, ~0ULL, 0xffffffffULL };
/* 1000: a user with no names; -1: no uid at all. */
static const uint32_t owners[] = { 0, UID_TENANT, 1000, 0xffffffffU };
/* addr_max: 0 is the format's default; 1, 481 and often 16 are refused. */
static const uint32_t addr_maxes[] = { 0, 16, 28, 32, 100, 480, 481, 1 };

static void op_av_create(const uint64_t *a)
{
	struct kav_av_create c = {
		.size = sizeof(c),
		.addr_format = (uint32_t)(a[2] & 0xff),
		.addr_max = addr_maxes[(a[2] >> 8) & 7],
	};
	uint32_t fl = a[3] & 0x1f;
	int dom = slot_fd(a[0]), n = (int)((a[3] >> 8) & 7);

	if (fl & 16)
		fl |= 1U << (a[3] >> 24 & 31);
	c.flags = fl & ~16U;
	if (a[3] & FZ_CREATE_JOB)
		c.flags |= KAV_AV_JOB;
	if (c.flags & KAV_AV_NAMED) {
		c.name = (uintptr_t)names[n].p;
		c.name_len = names[n].len;
	}
	c.mode = modes[((a[3] >> 12) & 0xf) % 8];
	c.count = hints[((a[3] >> 16) & 0xf) % 6];
	if (c.flags & KAV_AV_OWNER)
		c.owner_uid = owners[(a[3] >> 20) & 3];
	if (do_ioctl(dom, KAV_IOC_AV_CREATE, &c, sizeof(c), a[4]) == 0 &&
	    !a[4]) {
		atomic_store(&slots[a[1] % NR_SLOTS].fmt, c.addr_format);
		slot_set(a[1], c.fd, K_AV, c.map_size, c.av_id);
	} else if (a[4] && c.fd > 2 && c.fd < SLOT_FD0) {
		close(c.fd);	/* a corrupted call may still succeed */
	}
}

/*
 * A job table's insert succeeded through @fd: entry out[i] must hold
 * address i of @addrs, whether it was new or already there
 * (find-or-insert). Job tables never remove or change an entry, so this
 * holds whatever other threads do meanwhile.
 */
static void check_job_insert(int fd, uint64_t map_size, uint32_t fmt,
			     const uint8_t *addrs, uint32_t stride,
			     uint32_t count, const uint64_t *out)
{
	const volatile struct kav_table_header *h;
	const volatile struct kav_entry *e;
	const uint8_t *addr;
	uint32_t i, len;
	void *p;

	if (!map_size)
		return;
	p = mmap(NULL, map_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return;
	h = p;
	if (h->magic != KAV_TABLE_MAGIC || !h->index_buckets ||
	    h->map_size != map_size)
		goto out;		/* not the table the slot said */
	for (i = 0; i < count; i++) {
		addr = addrs + (size_t)i * stride;
		len = addr_len_of(fmt, addr, stride);
		if (out[i] >= h->nr_slots) {
			violation("job table: insert gave %" PRIu64 " for "
				  "address %u, beyond nr_slots %" PRIu64,
				  out[i], i, (uint64_t)h->nr_slots);
			break;
		}
		e = (const volatile void *)((const volatile char *)h +
			h->header_size + out[i] * h->entry_size);
		if (!(e->flags & KAV_ENTRY_VALID) || e->seq % 2 ||
		    e->addr_len != len ||
		    memcmp((const void *)e->addr, addr, len)) {
			violation("job table: insert gave entry %" PRIu64
				  " for address %u of %u, which holds another "
				  "(flags 0x%x, addr_len %u, %u expected)",
				  out[i], i, count, e->flags, e->addr_len, len);
			break;
		}
	}
out:
	munmap(p, map_size);
}

/*
 * FZ_ADDR_COLLIDE: @count IPv4 addresses of one public bucket of the job
 * table behind @fd (kav_collide.h), so that programs build long chains
 * and insert into them, as a tenant aiming at one bucket would; the
 * bucket depends on @off. Per thread, the last set is kept. At most
 * 2^24 candidates: beyond what that finds the batch repeats them. NULL
 * if @fd is no job table.
 */
#define COLLIDE_MAX	4096

static const uint8_t *collide_addrs(int fd, uint64_t off, uint32_t count)
{
	static __thread struct sockaddr_in set[COLLIDE_MAX];
	static __thread uint64_t c_seed, c_off;
	static __thread uint32_t c_buckets, c_n;
	const volatile struct kav_table_header *h;
	uint32_t buckets, n, i;
	uint64_t seed;

	if (!count || count > COLLIDE_MAX)
		return NULL;
	h = kav_map_header(fd);
	if (!h)
		return NULL;
	buckets = h->index_buckets;
	seed = kav_collide_seed(h);
	munmap((void *)h, (size_t)sysconf(_SC_PAGESIZE));
	if (!buckets || (buckets & (buckets - 1)))
		return NULL;
	n = (1U << 24) / buckets;
	if (n > count)
		n = count;
	if (!n)
		n = 1;
	if (buckets != c_buckets || seed != c_seed || off != c_off ||
	    n > c_n) {
		/* A job table's addresses are under its one key, handle 0. */
		c_n = kav_collide_in(buckets, 0, seed,
				     0x0a000000u + (uint32_t)off * 65536,
				     (uint16_t)(4000 + off), set, n, NULL);
		c_buckets = buckets;
		c_seed = seed;
		c_off = off;
	}
	if (!c_n)
		return NULL;
	for (i = c_n; i < count; i++)
		set[i] = set[i % c_n];
	return (const uint8_t *)set;
}

static void op_insert(const uint64_t *a)
{
	static __thread uint8_t local[64 * 32];
	static __thread uint64_t own_out[BUF_WORDS];
	struct slot *sl = &slots[a[0] % NR_SLOTS];
	uint32_t fmt = KAV_ADDR_SOCKADDR_IN, stride, count = (uint32_t)a[1];
	uint64_t off = (a[3] >> 16) % 2048, map_size = 0;
	const uint8_t *base;
	uint64_t handles[64], *hp = NULL, *fi = NULL;
	uint32_t flags = a[3] & 3, i;
	struct kav_av_insert in;
	int fd = slot_fd(a[0]), own_fd = -1;

	/* The AV's own format, mostly (the setup's usual one: IPv4). */
	if (atomic_load(&sl->kind) == K_AV && !(a[3] & FZ_ADDR_WRONG) &&
	    atomic_load(&sl->fmt))
		fmt = atomic_load(&sl->fmt);
	base = addrs_for(fmt, a[3] & FZ_ADDR_IN6, &stride);
	if ((uint64_t)count + off > ADDRS_MAX)
		off = 0;
	base += off * stride;
	if ((a[3] & FZ_ADDR_COLLIDE) && fmt == KAV_ADDR_SOCKADDR_IN) {
		const uint8_t *c = collide_addrs(fd, off, count);

		if (c)
			base = c;
	}
	/* Repeats (find-or-insert in one batch), or a bad last address. */
	if ((a[3] & (FZ_ADDR_REPEAT | FZ_ADDR_BAD)) && count &&
	    count <= 64) {
		for (i = 0; i < count; i++)
			memcpy(local + i * stride, base + (size_t)
			       ((a[3] & FZ_ADDR_REPEAT) ? i % 3 : i) * stride,
			       stride);
		if (a[3] & FZ_ADDR_BAD)
			/* a family of none, or a space in a string */
			local[(count - 1) * stride + 1] = ' ';
		base = local;
	}
	switch (a[2]) {
	case 0: case 1: case 2:
		fi = bufs[a[2]];
		if (count > BUF_WORDS)
			fi = NULL;
		break;
	case 4:
		fi = (uint64_t *)0x10;
		break;
	case 5:
		fi = (uint64_t *)ro_page;
		break;
	case 6:			/* the output runs into a guard page */
		fi = (uint64_t *)(tail_page + PAGE - 8);
		break;
	case FZ_OUT_CHECKED:	/* checked below, through an fd of its own */
		if (count > BUF_WORDS)
			break;
		fi = own_out;
		map_size = atomic_load(&sl->map_size);
		own_fd = dup(fd);
		if (own_fd >= 0)
			fd = own_fd;
		break;
	}
	if (flags & KAV_INSERT_AUTH_KEY) {
		for (i = 0; i < 64; i++)
			handles[i] = (a[3] >> 8) & 0xff;
		hp = count <= 64 ? handles : NULL;
	}
	in = (struct kav_av_insert){
		.size = sizeof(in),
		.flags = flags,
		.count = count,
		.addr_stride = stride,
		.addrs = (uintptr_t)base,
		.fi_addrs = (uintptr_t)fi,
		.err_index = KAV_NO_INDEX,
		.auth_keys = (uintptr_t)hp,
		.user_ids = (flags & KAV_INSERT_USER_ID) ?
			    (uintptr_t)addrs_in : 0,
	};
	if (do_ioctl(fd, KAV_IOC_AV_INSERT, &in, sizeof(in), a[4]) == 0 &&
	    own_fd >= 0 && !a[4] && !(a[3] & FZ_ADDR_BAD))
		check_job_insert(own_fd, map_size, fmt, base, stride, count,
				 own_out);
	if (own_fd >= 0)
		close(own_fd);
}

static void op_remove(const uint64_t *a)
{
	uint32_t count = (uint32_t)a[1], i;
	uint64_t local[64], *idx = local;
	struct kav_av_remove rm;

	switch (a[2]) {
	case 0: case 1: case 2:
		idx = bufs[a[2]];	/* what an insert wrote, or garbage */
		if (count > BUF_WORDS)
			count = BUF_WORDS;
		break;
	case 3: case 4:
		if (count > 64)
			count = 64;
		for (i = 0; i < count; i++)
			local[i] = a[2] == 3 ? a[3] + i : a[3];
		break;
	default:
		idx = (uint64_t *)(ro_page + PAGE - 8);
		break;
	}
	rm = (struct kav_av_remove){
		.size = sizeof(rm),
		.count = count,
		.fi_addrs = (uintptr_t)idx,
		.err_index = KAV_NO_INDEX,
	};
	do_ioctl(slot_fd(a[0]), KAV_IOC_AV_REMOVE, &rm, sizeof(rm), a[4]);
}

static void op_key(const uint64_t *a, bool insert)
{
	struct kav_av_key k = {
		.size = sizeof(k),
		.key.vni = (uint32_t)a[1],
		.key.__reserved = (uint32_t)a[3],
		.handle = a[1],
	};

	do_ioctl(slot_fd(a[0]), insert ? KAV_IOC_AV_KEY_INSERT :
		 KAV_IOC_AV_KEY_REMOVE, &k, sizeof(k), a[2]);
}

static void op_map(const uint64_t *a)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_READ | PROT_EXEC, PROT_NONE };
	static const uint64_t offs[] = { 0, PAGE, 1ULL << 40, 123 };
	struct slot *sl = &slots[a[0] % NR_SLOTS];
	uint64_t ms = atomic_load(&sl->map_size);
	size_t len;
	void *p;

	switch (a[1]) {
	case 0: len = PAGE; break;
	case 1: len = ms ? ms : PAGE; break;
	case 2: len = (ms ? ms : PAGE) + PAGE; break;
	case 3: len = 2 * PAGE; break;
	default: len = 0; break;
	}
	atomic_fetch_add(&SH->calls, 1);
	p = mmap(NULL, len, prots[a[2] & 3], MAP_SHARED, slot_fd(a[0]),
		 (off_t)offs[a[3] & 3]);
	outcome(p == MAP_FAILED ? -errno : 0);
	if (p == MAP_FAILED)
		return;
	/*
	 * Read the header page (kav_table_fault()). Only that one: entry
	 * pages the table has not grown into yet raise SIGBUS, by design,
	 * and would kill the program's process.
	 */
	if (!a[3] && len && (prots[a[2] & 3] & PROT_READ))
		(void)*(volatile const uint8_t *)p;
	if (!a[4])
		munmap(p, len);
	/* else: left for the process's exit, after the fds are closed */
}

static void op_mprotect(const uint64_t *a)
{
	void *b = bufs[a[0] % NR_BUFS];

	atomic_fetch_add(&SH->calls, 2);
	mprotect(b, BUF_WORDS * 8, a[1] ? PROT_NONE : PROT_READ);
	sched_yield();
	mprotect(b, BUF_WORDS * 8, PROT_READ | PROT_WRITE);
}

static void op_munmap(const uint64_t *a)
{
	void *b = bufs[a[0] % NR_BUFS];

	atomic_fetch_add(&SH->calls, 2);
	munmap(b, BUF_WORDS * 8);
	sched_yield();
	/* Back where it was, unless something else took the hole. */
	mmap(b, BUF_WORDS * 8, PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}

static void op_fork(const uint64_t *a)
{
	pid_t pid;

	atomic_fetch_add(&SH->calls, 1);
	pid = fork();
	if (pid == 0) {
		struct kav_av_insert in = {
			.size = sizeof(in), .count = 1,
			.addr_stride = sizeof(struct sockaddr_in),
			.addrs = (uintptr_t)addrs_in,
		};

		close(slot_fd(a[1]));
		ioctl(slot_fd(a[0]), KAV_IOC_AV_INSERT, &in);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* --- limits: a grant never counts more than it allows ------------------------ */

static void mark(atomic_uint *set, atomic_uint *nr, uint32_t v)
{
	unsigned int n = atomic_fetch_add(nr, 1);

	if (n < NR_SKIP)
		atomic_store(&set[n], v);
}

static bool marked(atomic_uint *set, atomic_uint *nr, uint32_t v)
{
	unsigned int i, n = atomic_load(nr);

	if (n >= NR_SKIP)
		return true;	/* too many to tell: all are */
	for (i = 0; i < n; i++)
		if (atomic_load(&set[i]) == v)
			return true;
	return false;
}

/*
 * Grant @id (key @vni) counts @nr_e entries and @nr_a AVs, as a reader
 * saw them: never above its limits, unless the program may have lowered
 * them (a limit below what is in use refuses more and takes nothing
 * away). A refused charge must not show, even for a moment.
 */
static void check_limits(const char *who, uint32_t id, uint32_t vni,
			 uint64_t nr_e, uint64_t lim_e, uint32_t nr_a,
			 uint32_t lim_a)
{
	if (!(lim_e && nr_e > lim_e) && !(lim_a && nr_a > lim_a))
		return;
	if (marked(SH->skip_id, &SH->nr_skip_id, id) ||
	    marked(SH->skip_vni, &SH->nr_skip_vni, vni))
		return;
	violation("%s: grant %u (vni %u) counts %" PRIu64 " entries (limit %"
		  PRIu64 "), %u AVs (limit %u): above its limit", who, id,
		  vni, nr_e, lim_e, nr_a, lim_a);
}

/* --- admin calls ------------------------------------------------------------- */

/*
 * Tags: 0 the programs' shared one, 1 the program's own (one per add:
 * such an add never updates a grant), then a control byte, a NUL inside,
 * 64 bytes (one too many), none, 63 bytes, a DEL byte.
 */
static char tag63[KAV_TAG_MAX + 1], tag64[KAV_TAG_MAX + 2];
static const struct { const char *p; size_t len; } tags[NR_TAGS] = {
	{ "kav-fuzz-prog", 14 }, { NULL, 0 }, { "kav-fuzz\x01", 10 },
	{ "kav-fuzz\0x", 11 }, { tag64, sizeof(tag64) }, { "", 1 },
	{ tag63, sizeof(tag63) }, { "kav-fuzz\x7f", 10 },
};

/*
 * Put tag @t as KAV_A_TAG; the program's own is "kav-fuzz-<kind><n>"
 * (adds: 'u' and their number; GRANT_SET: 's' and the grant's id, so
 * that no add ever finds, and updates, a grant a GRANT_SET renamed).
 */
static void put_tag(struct kav_nl_msg *m, uint64_t t, char kind,
		    unsigned int n)
{
	char own[32];

	t %= NR_TAGS;
	if (!tags[t].p) {
		snprintf(own, sizeof(own), "kav-fuzz-%c%u", kind, n);
		kav_nl_put_str(m, KAV_A_TAG, own);
		return;
	}
	kav_nl_put(m, KAV_A_TAG, tags[t].p, tags[t].len);
}

/* Admin calls share the process's netlink socket (and its buffers). */
static int nl_send(struct kav_nl_msg *m, kav_nl_cb cb, void *arg)
{
	int ret;

	atomic_fetch_add(&SH->calls, 1);
	if (proc_nl.fd <= 0)
		return outcome(-ENOTCONN);
	ret = kav_nl_talk(&proc_nl, m, cb, arg);
	return outcome(ret > 0 ? 0 : ret);
}

static int nl_simple(uint8_t cmd, uint32_t attr, uint32_t val)
{
	static struct kav_nl_msg m;
	int ret;

	pthread_mutex_lock(&nl_lock);
	kav_nl_req(&proc_nl, &m, cmd, 0);
	kav_nl_put_u32(&m, (uint16_t)attr, val);
	ret = nl_send(&m, NULL, NULL);
	pthread_mutex_unlock(&nl_lock);
	return ret;
}

static bool is_base_grant(uint32_t id)
{
	unsigned int i;

	for (i = 0; i < NR_BASE_GRANTS; i++)
		if (id == baseline_grant[i])
			return true;
	return false;
}

static void op_pin(const uint64_t *a, bool pin)
{
	uint32_t id = a[1] ? (uint32_t)a[1] :
		      atomic_load(&slots[a[0] % NR_SLOTS].av_id);
	static struct kav_nl_msg m;

	pthread_mutex_lock(&nl_lock);
	kav_nl_req(&proc_nl, &m, pin ? KAV_GENL_CMD_AV_PIN :
		   KAV_GENL_CMD_AV_UNPIN, 0);
	kav_nl_put_u32(&m, KAV_A_AV_ID, id);
	if (a[2])
		put_tag(&m, a[2], 'p', 0);
	nl_send(&m, NULL, NULL);
	pthread_mutex_unlock(&nl_lock);
}

/* The cgroup ids of / and of FUZZ_CGROUP (inode numbers on cgroup2). */
static uint64_t root_cg_id, fuzz_cg_id;

static void op_grant_add(const uint64_t *a)
{
	static struct kav_nl_msg m;
	uint64_t t = (a[4] & 0xff) % NR_TAGS;
	uint32_t vni = (uint32_t)a[0];
	struct kav_nl_grant g = { 0 };
	unsigned int n;
	int ret, nsfd = -1;

	/* Every grant is recorded for the cleanup; none beyond the record. */
	n = atomic_fetch_add(&SH->nr_added, 1);
	if (n >= MAX_ADDED)
		return;
	/*
	 * Never without a tag: an untagged add would update (and the
	 * cleanup then revoke) one of the campaign's grants. Any tag but
	 * the program's own may update a grant of this key: its limits may
	 * drop below what it counts.
	 */
	if (t == 5)
		t = 0;
	if (t != 1)
		mark(SH->skip_vni, &SH->nr_skip_vni, vni);
	atomic_store(&SH->added[n], ADD_IN_FLIGHT);
	pthread_mutex_lock(&nl_lock);
	kav_nl_req(&proc_nl, &m, KAV_GENL_CMD_GRANT_ADD, 0);
	if (a[1] != 13)
		kav_nl_put_u32(&m, KAV_A_VNI, vni);
	switch (a[1]) {
	case 0: case 1: case 2: case 4: case 9: case 10:
		kav_nl_put_u32(&m, KAV_A_SEL_TYPE, a[1] == 2 || a[1] == 4 ?
			       KAV_SEL_GID : KAV_SEL_UID);
		kav_nl_put_u32(&m, KAV_A_SEL_ID, (uint32_t[]){
			0, UID_TENANT, 0, 0, GID_EXTRA, 0, 0, 0, 0,
			0xffffffffU, 0 }[a[1]]);
		if (a[1] == 10)		/* and a second selector value */
			kav_nl_put_str(&m, KAV_A_SEL_CGROUP_PATH, "/");
		break;
	case 3: case 5: case 11:
		kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_CGROUP);
		kav_nl_put_str(&m, KAV_A_SEL_CGROUP_PATH, a[1] == 3 ? "/" :
			       a[1] == 5 ? "/kav-fuzz" : "/kav-fuzz-none");
		break;
	case 7: case 12:
		nsfd = a[1] == 7 ? open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC) : 0;
		kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_NETNS);
		kav_nl_put_u32(&m, KAV_A_SEL_NETNS_FD, (uint32_t)nsfd);
		break;
	case 8:
		kav_nl_put_u32(&m, KAV_A_SEL_TYPE, KAV_SEL_CGROUP);
		kav_nl_put_u64(&m, KAV_A_SEL_CGROUP_ID, fuzz_cg_id);
		break;
	default:		/* 6, 13: no such selector type, no key */
		kav_nl_put_u32(&m, KAV_A_SEL_TYPE, 77);
		kav_nl_put_u32(&m, KAV_A_SEL_ID, 0);
		break;
	}
	if (a[2])
		kav_nl_put_u64(&m, KAV_A_LIMIT_ENTRIES, a[2]);
	if (a[4] >> 8 & 3)
		kav_nl_put_u32(&m, KAV_A_LIMIT_AVS, (uint32_t)(a[4] >> 8 & 3));
	put_tag(&m, t, 'u', n);
	ret = nl_send(&m, kav_nl_grant_reply_cb, &g);
	pthread_mutex_unlock(&nl_lock);
	if (nsfd > 0)
		close(nsfd);
	atomic_store(&SH->added[n], ret ? 0 : g.id);
	if (ret || !g.id)
		return;
	atomic_store(&SH->pgrant[a[3] % NR_PGRANTS], g.id);
}

/* GRANT_SET of one of the program's grants (never the campaign's). */
static void op_grant_set(const uint64_t *a)
{
	static const uint64_t limits[] = { 0, 1, 2, 8, 1024, ~0ULL };
	static struct kav_nl_msg m;
	uint32_t id = a[4] > 1 ? (uint32_t)a[4] :
		      atomic_load(&SH->pgrant[a[0] % NR_PGRANTS]);
	uint64_t lim = limits[a[2] % 6];

	if (is_base_grant(id) || (!id && a[4] != 1))
		return;
	/* Its limits may drop below what it counts: not checked from now. */
	if (a[1] & 3)
		mark(SH->skip_id, &SH->nr_skip_id, id);
	pthread_mutex_lock(&nl_lock);
	kav_nl_req(&proc_nl, &m, KAV_GENL_CMD_GRANT_SET, 0);
	if (a[4] != 1)
		kav_nl_put_u32(&m, KAV_A_GRANT_ID, id);
	if (a[1] & 1)
		kav_nl_put_u64(&m, KAV_A_LIMIT_ENTRIES, lim);
	if (a[1] & 2)
		kav_nl_put_u32(&m, KAV_A_LIMIT_AVS, (uint32_t)lim);
	if (a[1] & 4)
		put_tag(&m, a[3], 's', id);
	nl_send(&m, NULL, NULL);
	pthread_mutex_unlock(&nl_lock);
}

static void op_grant_del(const uint64_t *a)
{
	uint32_t id = a[1] ? (uint32_t)a[1] :
		      atomic_exchange(&SH->pgrant[a[0] % NR_PGRANTS], 0);

	if (is_base_grant(id))
		return;		/* the campaign's own */
	if (id)
		nl_simple(KAV_GENL_CMD_GRANT_DEL, KAV_A_GRANT_ID, id);
}

static int nl_ignore_cb(const struct nlmsghdr *nlh,
			const struct genlmsghdr *gh,
			const struct kav_nl_attrs *at, void *arg)
{
	(void)nlh; (void)gh; (void)at; (void)arg;
	return 0;
}

/* A grant in a GRANT_GET reply or dump, while the program runs. */
static int nl_grant_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		       const struct kav_nl_attrs *at, void *arg)
{
	struct kav_nl_grant g;

	(void)nlh; (void)gh; (void)arg;
	kav_nl_grant_from(&g, at);
	check_limits("GRANT_GET", g.id, g.vni, g.nr_entries, g.limit_entries,
		     g.nr_avs, g.limit_avs);
	return 0;
}

/*
 * 0-7: the dumps as first written (GRANT_GET, DOMAIN_GET, AV_GET,
 * ENTRY_GET twice, STATS_GET, a notification's command, none); then
 * GRANT_GET of one grant, of none, filtered by key, by tag and by both,
 * ENTRY_GET with no AV and with a made-up one, GRANT_GET of a made-up id.
 */
static void op_nl_dump(const uint64_t *a)
{
	static const uint8_t cmds[] = {
		KAV_GENL_CMD_GRANT_GET, KAV_GENL_CMD_DOMAIN_GET,
		KAV_GENL_CMD_AV_GET, KAV_GENL_CMD_ENTRY_GET,
		KAV_GENL_CMD_ENTRY_GET, KAV_GENL_CMD_STATS_GET,
		KAV_GENL_CMD_AV_NEW, 0,
		KAV_GENL_CMD_GRANT_GET, KAV_GENL_CMD_GRANT_GET,
		KAV_GENL_CMD_GRANT_GET, KAV_GENL_CMD_GRANT_GET,
		KAV_GENL_CMD_GRANT_GET, KAV_GENL_CMD_ENTRY_GET,
		KAV_GENL_CMD_ENTRY_GET, KAV_GENL_CMD_GRANT_GET,
	};
	unsigned int k = (unsigned int)(a[0] % 16);
	uint8_t cmd = cmds[k];
	bool doit = cmd == KAV_GENL_CMD_STATS_GET || k == 8 || k == 9 ||
		    k == 15;
	static struct kav_nl_msg m;

	pthread_mutex_lock(&nl_lock);
	kav_nl_req(&proc_nl, &m, cmd, doit ? 0 : NLM_F_DUMP);
	if (k == 3 || k == 4)
		kav_nl_put_u32(&m, KAV_A_AV_ID,
			       atomic_load(&slots[a[1] % NR_SLOTS].av_id));
	if (k == 8)
		kav_nl_put_u32(&m, KAV_A_GRANT_ID, a[1] % 2 ?
			       atomic_load(&SH->pgrant[a[1] / 2 % NR_PGRANTS]) :
			       (uint32_t)baseline_grant[a[1] / 2 % NR_BASE_GRANTS]);
	if (k == 14 || k == 15)
		kav_nl_put_u32(&m, k == 14 ? KAV_A_AV_ID : KAV_A_GRANT_ID,
			       (uint32_t)a[2]);
	if (k == 10 || k == 12)
		kav_nl_put_u32(&m, KAV_A_VNI, (uint32_t)a[2]);
	if (k == 11 || k == 12)
		put_tag(&m, a[3], 'u', 0);
	nl_send(&m, cmd == KAV_GENL_CMD_GRANT_GET ? nl_grant_cb : nl_ignore_cb,
		NULL);
	pthread_mutex_unlock(&nl_lock);
}

/*
 * KAV_IOC_DOMAIN_WHOAMI, while the program runs: the grants it reports
 * are within their limits, and what it writes beyond the first struct
 * kav_grant_info of each element is zero.
 */
static void op_whoami(const uint64_t *a)
{
	static const uint32_t maxes[] = { 0, 1, 4, 64, 256, 0xffffffffU };
	static const uint32_t gsizes[] = {
		sizeof(struct kav_grant_info), 120, 4096, 111, 4097, 0, 128,
	};
	static __thread uint8_t out[65536];
	struct kav_whoami w = {
		.size = sizeof(w),
		.max_grants = maxes[a[1] % 6],
		.grant_size = gsizes[a[2] % 7],
	};
	uint8_t *dst = out;
	uint32_t i, n, room;
	size_t gs;

	switch (a[3] % 4) {
	case 1: dst = NULL; break;
	case 2: dst = ro_page; break;
	case 3: dst = tail_page + PAGE - 64; break;	/* into the guard */
	}
	gs = w.grant_size;
	room = gs ? (uint32_t)(sizeof(out) / gs) : 0;
	/* Our buffer holds what we ask for; others are the kernel's EFAULT. */
	if (dst == out && w.max_grants > room)
		w.max_grants = room;
	w.grants = (uintptr_t)dst;
	if (dst == out)
		memset(out, 0xa5, sizeof(out));
	if (do_ioctl(slot_fd(a[0]), KAV_IOC_DOMAIN_WHOAMI, &w, sizeof(w), a[4]) ||
	    a[4] || dst != out)
		return;
	if ((w.status & KAV_WHOAMI_KEY_REVOKED) && !(w.status & KAV_WHOAMI_KEYED))
		violation("WHOAMI: status 0x%x: a revoked key but no key", w.status);
	n = w.nr_grants < w.max_grants ? w.nr_grants : w.max_grants;
	for (i = 0; i < n; i++) {
		const uint8_t *el = out + i * gs;
		struct kav_grant_info gi;
		size_t j;

		memcpy(&gi, el, sizeof(gi));
		for (j = sizeof(gi); j < gs; j++)
			if (el[j])
				break;
		if (j < gs) {
			violation("WHOAMI: grant %u of %u (nr_grants %u, "
				  "max_grants %u): %s", i, n, w.nr_grants,
				  w.max_grants, el[0] == 0xa5 && el[1] == 0xa5 &&
				  el[2] == 0xa5 && el[3] == 0xa5 ?
				  "not written" : "not zeroed past the struct");
			return;
		}
		if (!memchr(gi.tag, 0, sizeof(gi.tag)) || gi.sel_type < KAV_SEL_UID ||
		    gi.sel_type > KAV_SEL_NETNS || !gi.id) {
			violation("WHOAMI: grant %u of %u: id %u, selector %u, "
				  "tag not terminated or bad", i, n, gi.id,
				  gi.sel_type);
			return;
		}
		check_limits("WHOAMI", gi.id, gi.vni, gi.nr_entries,
			     gi.limit_entries, gi.nr_avs, gi.limit_avs);
	}
}

static void op_raw(const uint64_t *a)
{
	unsigned int dir = (unsigned int)(a[2] & 3);
	unsigned int size = (unsigned int)(a[2] >> 8) & 0x3fff;
	unsigned long cmd = _IOC(dir, KAV_IOCTL_TYPE,
				 0x80 + (a[1] % 12), size);
	static __thread uint8_t buf[1U << 14];

	memcpy(buf, junk + (a[3] % 2048), 2048);
	((__u32 *)buf)[0] = (__u32)(a[3] >> 32) % 128;
	if (a[1] & (1ULL << 40))
		cmd = (unsigned long)(uint32_t)a[1];
	atomic_fetch_add(&SH->calls, 1);
	ioctl(slot_fd(a[0]), cmd, buf);
}

static void exec_call(const struct fz_call *c)
{
	const uint64_t *a = c->a;
	int fd;

	cur_op = c->op < NR_OPS ? c->op : OP_RAW;
	switch (c->op) {
	case OP_DOM_OPEN:
		atomic_fetch_add(&SH->calls, 1);
		fd = kav_open_domain();
		slot_set(a[0], fd, K_DOM, 0, 0);
		break;
	case OP_SET_KEY: {
		struct kav_domain_key k = { .size = sizeof(k),
					    .key.vni = (uint32_t)a[1] };

		do_ioctl(slot_fd(a[0]), KAV_IOC_DOMAIN_SET_KEY, &k, sizeof(k),
			 a[2]);
		break;
	}
	case OP_AV_CREATE:
		op_av_create(a);
		break;
	case OP_INSERT:
		op_insert(a);
		break;
	case OP_REMOVE:
		op_remove(a);
		break;
	case OP_KEY_INSERT:
		op_key(a, true);
		break;
	case OP_KEY_REMOVE:
		op_key(a, false);
		break;
	case OP_USER_ID: {
		struct kav_av_user_id u = { .size = sizeof(u),
					    .flags = (uint32_t)a[2],
					    .index = a[1], .user_id = a[3] };

		do_ioctl(slot_fd(a[0]), KAV_IOC_AV_SET_USER_ID, &u, sizeof(u),
			 a[4]);
		break;
	}
	case OP_EP_OPEN: {
		struct kav_av_ep_open e = { .size = sizeof(e) };

		if (!do_ioctl(slot_fd(a[0]), KAV_IOC_AV_EP_OPEN, &e, sizeof(e),
			      a[2]) && !a[2])
			slot_set(a[1], e.fd, K_EP, 0, 0);
		break;
	}
	case OP_EP_ENABLE: {
		struct kav_ep_enable e = { .size = sizeof(e) };

		do_ioctl(slot_fd(a[0]), KAV_IOC_EP_ENABLE, &e, sizeof(e), a[1]);
		break;
	}
	case OP_CLOSE:
		atomic_fetch_add(&SH->calls, 1);
		atomic_store(&slots[a[0] % NR_SLOTS].kind, K_NONE);
		close(slot_fd(a[0]));
		break;
	case OP_DUP: {
		struct slot *s = &slots[a[0] % NR_SLOTS];

		atomic_fetch_add(&SH->calls, 1);
		fd = dup(slot_fd(a[0]));
		atomic_store(&slots[a[1] % NR_SLOTS].fmt, atomic_load(&s->fmt));
		slot_set(a[1], fd, atomic_load(&s->kind),
			 atomic_load(&s->map_size), atomic_load(&s->av_id));
		break;
	}
	case OP_MAP:
		op_map(a);
		break;
	case OP_MPROTECT:
		op_mprotect(a);
		break;
	case OP_MUNMAP:
		op_munmap(a);
		break;
	case OP_FORK:
		op_fork(a);
		break;
	case OP_PIN:
	case OP_UNPIN:
		op_pin(a, c->op == OP_PIN);
		break;
	case OP_GRANT_ADD:
		op_grant_add(a);
		break;
	case OP_GRANT_DEL:
		op_grant_del(a);
		break;
	case OP_NL_DUMP:
		op_nl_dump(a);
		break;
	case OP_RAW:
		op_raw(a);
		break;
	case OP_WHOAMI:
		op_whoami(a);
		break;
	case OP_GRANT_SET:
		op_grant_set(a);
		break;
	}
}

/* --- kcov ---------------------------------------------------------------------- */

struct kcov {
	int fd;
	uint64_t *area;
};

static void kcov_start(struct kcov *k)
{
	k->fd = -1;
	if (!have_kcov)
		return;
	k->fd = open("/sys/kernel/debug/kcov", O_RDWR | O_CLOEXEC);
	if (k->fd < 0)
		return;
	if (ioctl(k->fd, KCOV_INIT_TRACE, (unsigned long)COVER_WORDS))
		goto fail;
	k->area = mmap(NULL, COVER_WORDS * 8, PROT_READ | PROT_WRITE,
		       MAP_SHARED, k->fd, 0);
	if (k->area == MAP_FAILED)
		goto fail;
	if (ioctl(k->fd, KCOV_ENABLE, KCOV_TRACE_PC)) {
		munmap(k->area, COVER_WORDS * 8);
		goto fail;
	}
	return;
fail:
	close(k->fd);
	k->fd = -1;
}

static void kcov_reset(struct kcov *k)
{
	if (k->fd >= 0)
		__atomic_store_n(&k->area[0], 0, __ATOMIC_RELAXED);
}

static void kcov_collect(struct kcov *k)
{
	uint64_t n, i, off;

	if (k->fd < 0)
		return;
	n = __atomic_load_n(&k->area[0], __ATOMIC_RELAXED);
	if (n >= COVER_WORDS)
		n = COVER_WORDS - 1;
	for (i = 0; i < n; i++) {
		off = k->area[i + 1] - text_start;
		if (off < text_size)
			atomic_fetch_or(&SH->cover[off / 8],
					(unsigned char)(1U << (off % 8)));
	}
}

static void kcov_stop(struct kcov *k)
{
	if (k->fd < 0)
		return;
	ioctl(k->fd, KCOV_DISABLE, 0);
	munmap(k->area, COVER_WORDS * 8);
	close(k->fd);
}

/* --- threads ------------------------------------------------------------------- */

struct thread_arg {
	const struct fz_prog *p;
	unsigned int thread;
	pthread_barrier_t *start;
};

static void *thread_main(void *arg)
{
	struct thread_arg *t = arg;
	struct kcov k;
	uint32_t i;
	unsigned int r;

	cur_thread = (uint8_t)t->thread;
	kcov_start(&k);
	pthread_barrier_wait(t->start);
	for (i = 0; i < t->p->nr_calls; i++) {
		const struct fz_call *c = &t->p->c[i];

		if (c->thread != t->thread)
			continue;
		for (r = 0; r < c->repeat; r++) {
			kcov_reset(&k);
			exec_call(c);
			kcov_collect(&k);
			if (now_ns() > deadline_ns)
				break;
		}
	}
	kcov_stop(&k);
	return NULL;
}

/* Run threads [lo, hi) of @p in this process and wait for them. */
static void run_threads(const struct fz_prog *p, unsigned int lo,
			unsigned int hi)
{
	struct thread_arg args[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	pthread_barrier_t start;
	unsigned int i, n = hi - lo;

	pthread_barrier_init(&start, NULL, n);
	for (i = 0; i < n; i++) {
		args[i] = (struct thread_arg){ p, lo + i, &start };
		if (pthread_create(&th[i], NULL, thread_main, &args[i])) {
			/* cannot happen in practice; run it here instead */
			violation("pthread_create failed");
			_exit(3);
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
}

/* --- invariants ---------------------------------------------------------------- */

struct grant_check {
	bool after;		/* no AV is left: every count must be 0 */
	unsigned long n;
};

static int grant_list_cb(const struct nlmsghdr *nlh,
			 const struct genlmsghdr *gh,
			 const struct kav_nl_attrs *at, void *arg)
{
	struct grant_check *gc = arg;
	bool after = gc->after;
	struct kav_nl_grant g;

	(void)nlh;
	(void)gh;
	gc->n++;
	kav_nl_grant_from(&g, at);
	if (!after)
		check_limits("after the threads", g.id, g.vni, g.nr_entries,
			     g.limit_entries, g.nr_avs, g.limit_avs);
	if (g.nr_entries >= 1ULL << 40 || g.nr_avs >= 1U << 30)
		violation("grant %u (vni %u): nr_entries %" PRIu64
			  ", nr_avs %u (negative)", g.id, g.vni,
			  g.nr_entries, g.nr_avs);
	else if (after && (g.nr_entries || g.nr_avs))
		violation("grant %u (vni %u): nr_entries %" PRIu64
			  ", nr_avs %u with no AV left", g.id, g.vni,
			  g.nr_entries, g.nr_avs);
	return 0;
}

/* Check every grant's counters; the number of grants, or -errno. */
static long check_grants(struct kav_nl *nl, bool after)
{
	struct grant_check gc = { after, 0 };
	static struct kav_nl_msg m;
	int ret;

	kav_nl_req(nl, &m, KAV_GENL_CMD_GRANT_GET, NLM_F_DUMP);
	ret = kav_nl_talk(nl, &m, grant_list_cb, &gc);
	return ret ? ret : (long)gc.n;
}

/*
 * A job table's address index (uapi kav.h, struct kav_table_header),
 * quiescent: every bucket's chain holds valid entries of that bucket,
 * once each, with no cycle; every valid entry is on its bucket's chain;
 * no address is held twice under one key (one address, one entry); the
 * valid entries are [0, nr_valid) (nothing is ever removed).
 */
static void check_index(const volatile struct kav_table_header *h,
			uint64_t ms, unsigned int s)
{
	static uint8_t seen_e[CHECK_ENTRIES / 8];
	static uint64_t chain[64];
	uint64_t nb = h->index_buckets, n = h->nr_slots, b, i, idx, steps;
	const volatile uint32_t *bucket, *next;
	const volatile struct kav_entry *e, *f;
	unsigned int len, j;
	uint32_t link;

#define ENTRY(x) ((const volatile struct kav_entry *)((const volatile char *)h + \
		  h->header_size + (x) * h->entry_size))
	if (!nb || (nb & (nb - 1)) || h->fi_addrs_offset ||
	    h->index_offset + nb * 4 > ms ||
	    h->index_next_offset + n * 4 > ms) {
		violation("slot %u: job table: index of %" PRIu64 " buckets at %"
			  PRIu64 ", chains at %" PRIu64 ", fi_addrs at %" PRIu64
			  ", map %" PRIu64, s, nb, (uint64_t)h->index_offset,
			  (uint64_t)h->index_next_offset,
			  (uint64_t)h->fi_addrs_offset, ms);
		return;
	}
	if (n > CHECK_ENTRIES)
		return;
	bucket = (const volatile void *)((const volatile char *)h + h->index_offset);
	next = (const volatile void *)((const volatile char *)h + h->index_next_offset);
	memset(seen_e, 0, (n + 7) / 8);
	for (b = 0; b < nb; b++) {
		len = 0;
		steps = 0;
		for (link = bucket[b]; link; link = next[idx]) {
			idx = link - 1;
			if (++steps > n || idx >= n) {
				violation("slot %u: job table: bucket %" PRIu64
					  ": link to %" PRIu64 " after %" PRIu64
					  " steps, %" PRIu64 " slots", s, b, idx,
					  steps, n);
				return;
			}
			e = ENTRY(idx);
			if (!(e->flags & KAV_ENTRY_VALID) ||
			    (seen_e[idx / 8] & (1U << (idx % 8))) ||
			    (kav_collide_hash((const void *)e->addr,
					      e->addr_len,
					      e->auth_key == KAV_ENTRY_NO_KEY ?
					      KAV_NONE : e->auth_key,
					      kav_collide_seed(h)) &
			     (nb - 1)) != b) {
				violation("slot %u: job table: bucket %" PRIu64
					  " links entry %" PRIu64 " (flags 0x%x): "
					  "not valid, linked twice or of another "
					  "bucket", s, b, idx, e->flags);
				return;
			}
			seen_e[idx / 8] |= (uint8_t)(1U << (idx % 8));
			/* The same address twice would be in one chain. */
			for (j = 0; j < len; j++) {
				f = ENTRY(chain[j]);
				if (f->addr_len == e->addr_len &&
				    f->auth_key == e->auth_key &&
				    !memcmp((const void *)f->addr,
					    (const void *)e->addr, e->addr_len)) {
					violation("slot %u: job table: entries %"
						  PRIu64 " and %" PRIu64 " hold "
						  "one address", s, chain[j], idx);
					return;
				}
			}
			if (len < 64)
				chain[len++] = idx;
		}
	}
	for (i = 0; i < n; i++) {
		bool valid = ENTRY(i)->flags & KAV_ENTRY_VALID;

		if (valid && !(seen_e[i / 8] & (1U << (i % 8)))) {
			violation("slot %u: job table: valid entry %" PRIu64
				  " is on no chain", s, i);
			return;
		}
		if (valid != (i < h->nr_valid)) {
			violation("slot %u: job table: entry %" PRIu64 " %s, "
				  "nr_valid %" PRIu64 " (entries are never "
				  "removed)", s, i, valid ? "valid" : "not valid",
				  (uint64_t)h->nr_valid);
			return;
		}
	}
#undef ENTRY
}

/* The whole table of the AV in slot @s, quiescent. */
static void check_table(unsigned int s)
{
	const volatile struct kav_table_header *h;
	uint64_t ms, i, slots_n, valid = 0, bound[KAV_MAX_AUTH_KEYS] = { 0 };
	const char *what = NULL, *first_bad = NULL;
	uint64_t bad_idx = 0;
	void *p;

	ms = atomic_load(&slots[s].map_size);
	if (atomic_load(&slots[s].kind) != K_AV || !ms)
		return;
	p = mmap(NULL, ms, PROT_READ, MAP_SHARED, slot_fd(s), 0);
	if (p == MAP_FAILED)
		return;		/* e.g. the slot was closed and reused */
	h = p;
	if (h->magic != KAV_TABLE_MAGIC)
		goto out;
	if (h->generation % 2) {
		violation("slot %u: generation %" PRIu64 " odd when idle", s,
			  (uint64_t)h->generation);
		goto out;
	}
	slots_n = h->nr_slots;
	if (slots_n > h->max_entries ||
	    h->header_size + slots_n * h->entry_size > ms) {
		violation("slot %u: nr_slots %" PRIu64 " beyond the table", s,
			  slots_n);
		goto out;
	}
	/* Underflow ("negative" counters) shows at any table size. */
	if (h->nr_valid > h->nr_slots) {
		violation("slot %u: nr_valid %" PRIu64 " but %" PRIu64
			  " slots (negative)", s, (uint64_t)h->nr_valid,
			  slots_n);
		goto out;
	}
	if (slots_n > CHECK_ENTRIES)
		slots_n = CHECK_ENTRIES;
	for (i = 0; i < slots_n; i++) {
		const volatile struct kav_entry *e = (const volatile void *)
			((const volatile char *)h + h->header_size +
			 i * h->entry_size);
		/* A job table has no fi_addr array: fi_addr i is i. */
		uint64_t fi = !h->fi_addrs_offset ?
			      (e->flags & KAV_ENTRY_VALID ? i : KAV_NONE) :
			      ((const volatile uint64_t *)
			       ((const volatile char *)h + h->fi_addrs_offset))[i];

		if (e->seq % 2) {
			what = "entry seq odd when idle";
		} else if (!(e->flags & KAV_ENTRY_VALID)) {
			if (e->auth_key != KAV_ENTRY_NO_KEY)
				what = "cleared entry bound to a key";
			else if (fi != KAV_NONE)
				what = "fi_addr of a cleared entry";
		} else {
			valid++;
			if (fi != i)
				what = "fi_addr of a valid entry";
			if (e->auth_key != KAV_ENTRY_NO_KEY) {
				if (e->auth_key >= KAV_MAX_AUTH_KEYS)
					what = "entry bound to a bad handle";
				else
					bound[e->auth_key]++;
			}
		}
		if (what && !first_bad) {
			first_bad = what;
			bad_idx = i;
		}
		what = NULL;
	}
	/* The counters first: they are what a double erase breaks. */
	if (h->nr_slots <= CHECK_ENTRIES && h->nr_valid != valid) {
		violation("slot %u: nr_valid %" PRIu64 " but %" PRIu64
			  " valid entries", s, (uint64_t)h->nr_valid, valid);
		goto out;
	}
	for (i = 0; i < KAV_MAX_AUTH_KEYS && i < h->max_keys; i++) {
		const volatile struct kav_key_slot *k = (const volatile void *)
			((const volatile char *)h + h->keys_offset +
			 i * sizeof(struct kav_key_slot));
		uint32_t nr = kav_uses(h, i)->nr_entries;

		if (nr > h->nr_slots) {
			violation("slot %u: key %" PRIu64 " counts %u entries "
				  "of %" PRIu64 " slots (negative)", s, i,
				  nr, (uint64_t)h->nr_slots);
			break;
		}
		if (h->nr_slots > CHECK_ENTRIES)
			break;
		if (nr != bound[i]) {
			violation("slot %u: key %" PRIu64 " (flags 0x%x) counts "
				  "%u entries, %" PRIu64 " are bound to it", s,
				  i, k->flags, nr, bound[i]);
			break;
		}
		if (bound[i] && !(k->flags & KAV_KEY_VALID)) {
			violation("slot %u: %" PRIu64 " entries bound to "
				  "invalid key %" PRIu64, s, bound[i], i);
			break;
		}
	}
	if (first_bad)
		violation("slot %u: entry %" PRIu64 ": %s", s, bad_idx,
			  first_bad);
	else if (h->index_buckets || !h->fi_addrs_offset)
		check_index(h, ms, s);
out:
	munmap(p, ms);
}

static bool get_keyless(void);

/* Did setgroups() give this process GID_EXTRA (proc_init())? */
static bool have_extra_gid;

/*
 * Does grant @g match the identity WHOAMI reported in @w? The programs'
 * identities are known: root with groups 0 and GID_EXTRA, or uid and gid
 * 65534 with none; in FUZZ_CGROUP (or /) and the initial netns. -1: an
 * identity this cannot tell about.
 */
static int grant_matches(const struct kav_nl_grant *g, const struct kav_whoami *w)
{
	switch (g->sel_type) {
	case KAV_SEL_UID:
		return g->sel_id == w->uid;
	case KAV_SEL_GID:
		if (w->uid == 0 && w->gid == 0)
			return g->sel_id == 0 ||
			       (have_extra_gid && g->sel_id == GID_EXTRA);
		if (w->uid == UID_TENANT && w->gid == UID_TENANT)
			return g->sel_id == UID_TENANT;
		return -1;
	case KAV_SEL_CGROUP:
		if (w->cgroup_id != fuzz_cg_id && w->cgroup_id != root_cg_id)
			return -1;
		return g->cgroup_id == w->cgroup_id || g->cgroup_id == root_cg_id;
	case KAV_SEL_NETNS:
		return g->netns_cookie == w->netns_cookie;
	}
	return -1;
}

#define MAX_GRANTS	(MAX_ADDED + 64)

/*
 * Quiescent: each domain's WHOAMI reports exactly the grants that
 * GRANT_GET lists and that match its identity, each as GRANT_GET has
 * it, and allow_keyless as it is; a live domain key is among them.
 */
static void check_whoami(void)
{
	static struct kav_nl_grant all[MAX_GRANTS];
	static struct kav_grant_info gi[256];
	size_t nr_all = 0, i, j, want;
	struct kav_whoami w;
	unsigned int s;
	bool key_seen;
	int m;

	pthread_mutex_lock(&nl_lock);
	m = proc_nl.fd > 0 ? kav_nl_grants(&proc_nl, all, MAX_GRANTS, &nr_all) : -1;
	pthread_mutex_unlock(&nl_lock);
	if (m)
		return;		/* not an administrator (uid 65534) */
	for (s = 0; s < NR_SLOTS; s++) {
		if (atomic_load(&slots[s].kind) != K_DOM)
			continue;
		w = (struct kav_whoami){
			.size = sizeof(w), .max_grants = 256,
			.grant_size = sizeof(gi[0]), .grants = (uintptr_t)gi,
		};
		if (ioctl(slot_fd(s), KAV_IOC_DOMAIN_WHOAMI, &w))
			continue;	/* e.g. the slot now holds an AV */
		if (!(w.status & KAV_WHOAMI_KEYLESS_OK) != !get_keyless()) {
			violation("slot %u: WHOAMI: status 0x%x, allow_keyless %d",
				  s, w.status, get_keyless());
			return;
		}
		for (want = 0, i = 0; i < nr_all; i++) {
			m = grant_matches(&all[i], &w);
			if (m < 0)
				break;
			want += (size_t)m;
		}
		if (i < nr_all)
			continue;
		if (w.nr_grants != want) {
			violation("slot %u: WHOAMI (uid %u gid %u cgroup %" PRIu64
				  ") reports %u grants, GRANT_GET lists %zu that "
				  "match", s, w.uid, w.gid, (uint64_t)w.cgroup_id,
				  w.nr_grants, want);
			return;
		}
		key_seen = false;
		for (j = 0, i = 0; i < nr_all && j < w.nr_grants && j < 256; i++) {
			const struct kav_nl_grant *g = &all[i];
			const struct kav_grant_info *r = &gi[j];

			if (grant_matches(g, &w) != 1)
				continue;
			j++;
			key_seen |= g->vni == w.key_vni;
			if (r->id != g->id || r->vni != g->vni ||
			    r->sel_type != g->sel_type ||
			    r->limit_entries != g->limit_entries ||
			    r->limit_avs != g->limit_avs ||
			    r->nr_entries != g->nr_entries ||
			    r->nr_avs != g->nr_avs ||
			    strncmp(r->tag, g->tag, sizeof(r->tag)) ||
			    (g->sel_type <= KAV_SEL_GID ? r->sel_id != g->sel_id :
			     r->sel_cookie != (g->sel_type == KAV_SEL_CGROUP ?
					       g->cgroup_id : g->netns_cookie))) {
				violation("slot %u: WHOAMI's grant %zu is %u (vni %u, "
					  "%" PRIu64 " entries, %u AVs, tag '%.64s'), "
					  "GRANT_GET's %u (vni %u, %" PRIu64
					  " entries, %u AVs, tag '%s')", s, j - 1,
					  r->id, r->vni, (uint64_t)r->nr_entries,
					  r->nr_avs, r->tag, g->id, g->vni,
					  g->nr_entries, g->nr_avs, g->tag);
				return;
			}
		}
		if ((w.status & KAV_WHOAMI_KEYED) &&
		    !(w.status & KAV_WHOAMI_KEY_REVOKED) && w.nr_grants <= 256 &&
		    !key_seen) {
			violation("slot %u: WHOAMI: key %u not revoked, but no "
				  "grant of it matches", s, w.key_vni);
			return;
		}
	}
}

static void check_process(void)
{
	unsigned int s;

	for (s = 0; s < NR_SLOTS; s++)
		check_table(s);
	pthread_mutex_lock(&nl_lock);
	if (proc_nl.fd > 0)
		check_grants(&proc_nl, false);
	pthread_mutex_unlock(&nl_lock);
	check_whoami();
}

/* --- one program ----------------------------------------------------------------- */

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		_exit(3);
	}
	return p;
}

static void proc_init(void)
{
	uint32_t i;

	for (i = 0; i < NR_BUFS; i++)
		bufs[i] = map_anon(BUF_WORDS * 8);
	addrs_in = map_anon(ADDRS_MAX * sizeof(struct sockaddr_in));
	addrs_in6 = map_anon(ADDRS_MAX * sizeof(struct sockaddr_in6));
	addrs_str = map_anon(ADDRS_MAX * 32);
	for (i = 0; i < ADDRS_MAX; i++) {
		struct sockaddr_in *s = (void *)(addrs_in + i * sizeof(*s));
		struct sockaddr_in6 *s6 = (void *)(addrs_in6 + i * sizeof(*s6));

		*s = kav_sin(0x0a000000 + i, 7000);
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(7000);
		s6->sin6_addr.s6_addr[0] = 0xfd;
		memcpy(&s6->sin6_addr.s6_addr[12], &i, 4);
		snprintf((char *)addrs_str + i * 32, 32, "fz-%u", i);
	}
	/* A read-only page, and a writable one, each before a guard page. */
	ro_page = map_anon(2 * PAGE);
	mprotect(ro_page, PAGE, PROT_READ);
	mprotect(ro_page + PAGE, PAGE, PROT_NONE);
	tail_page = map_anon(2 * PAGE);
	mprotect(tail_page + PAGE, PAGE, PROT_NONE);
	junk = map_anon(4096);
	for (i = 0; i < 4096; i++)
		junk[i] = (uint8_t)(i * 131 + 7);
	memset(slots, 0, sizeof(slots));
	if (kav_nl_open(&proc_nl))
		proc_nl.fd = -1;
	if (kav_nl_open(&proc_listen) || kav_nl_join_admin(&proc_listen))
		proc_listen.fd = -1;
	/* Grants by a supplementary group (kav_identity_in_group()). */
	have_extra_gid = !setgroups(2, (gid_t[]){ 0, GID_EXTRA });
	memset(long_name, 'n', sizeof(long_name) - 1);
	memset(tag63, 't', sizeof(tag63) - 1);
	memset(tag64, 't', sizeof(tag64) - 1);
}

/* The second process of a program: threads [split, nr_threads). */
static void run_second(const struct fz_prog *p, int to_first, int from_first)
{
	char c = 'j';

	/* Its own socket: the first process's would mix replies. */
	kav_nl_close(&proc_nl);
	if (p->drop && (setgroups(0, NULL) || setresgid(UID_TENANT, UID_TENANT, UID_TENANT) ||
			setresuid(UID_TENANT, UID_TENANT, UID_TENANT)))
		_exit(3);
	if (kav_nl_open(&proc_nl))
		proc_nl.fd = -1;
	run_threads(p, p->split, p->nr_threads);
	if (write(to_first, &c, 1) != 1 || read(from_first, &c, 1) != 1)
		_exit(0);
	check_process();
	_exit(0);
}

/* The program's first process: setup, fork, threads, checks. */
static void run_first(const struct fz_prog *p)
{
	int to_first[2], from_first[2];
	unsigned int hi = p->nr_threads;
	pid_t second = -1;
	struct kcov k;
	uint32_t i;
	char c;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/*
	 * Programs run in a child cgroup (grants to "/" cover it): the
	 * identities they capture hold a reference on its css, which the
	 * root cgroup's does not count.
	 */
	kav_write_path(FUZZ_CGROUP "/cgroup.procs", "0");
	proc_init();
	/* The setup's calls count for coverage too. */
	kcov_start(&k);
	for (i = 0; i < p->nr_calls; i++) {
		if (p->c[i].thread != SETUP_THREAD)
			continue;
		kcov_reset(&k);
		exec_call(&p->c[i]);
		kcov_collect(&k);
	}
	kcov_stop(&k);
	if (p->split && pipe(to_first) == 0 && pipe(from_first) == 0) {
		second = fork();
		if (second == 0) {
			close(to_first[0]);
			close(from_first[1]);
			run_second(p, to_first[1], from_first[0]);
		}
		/* If the second process dies, its end closes: no wait forever. */
		close(to_first[1]);
		close(from_first[0]);
		if (second > 0)
			hi = p->split;
	}
	run_threads(p, 0, hi);
	if (second > 0) {
		/* Both processes check once every thread of both is done. */
		if (read(to_first[0], &c, 1) == 1)
			(void)!write(from_first[1], "c", 1);
	}
	check_process();
	if (second > 0)
		waitpid(second, NULL, 0);
	_exit(0);
}

/* --- the campaign -------------------------------------------------------------- */

enum verdict { V_OK, V_VIOLATION, V_KERNEL, V_HANG };
static const char *const verdict_names[] = {
	"ok", "invariant violation", "kernel report", "hang",
};

static struct kav_nl nl;	/* the campaign's own admin socket */
static int kmsg_fd = -1;
static char report[VIOL_LEN];
static unsigned char seen[TEXT_MAX / 8];
static uint64_t nr_seen;

/* Console lines that mean the kernel complained (as in check.sh). */
static const char *const report_pat[] = {
	"BUG:", "kernel BUG at", "WARNING:", "Oops", "general protection",
	"KFENCE", "KASAN", "UBSAN", "possible recursive locking",
	"circular locking", "INFO: task", "detected stalls", "Kernel panic",
	"Call Trace", NULL,
};

/* New kernel messages: print and count those that are reports. */
static int kmsg_scan(void)
{
	char rec[2048], *msg;
	int found = 0, i;
	ssize_t n;

	if (kmsg_fd < 0)
		return 0;
	for (;;) {
		n = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = 0;
		/* A report's trace lines that name kav's functions. */
		if (strstr(msg, "[kav]") || !strncmp(msg, "RIP:", 4) ||
		    strstr(msg, " RIP:")) {
			printf("# kmsg: %s\n", msg);
			continue;
		}
		for (i = 0; report_pat[i]; i++)
			if (strstr(rec, report_pat[i]))
				break;
		if (!report_pat[i])
			continue;
		/*
		 * A KCSAN report counts only if one racing access is kav's
		 * own (lanes/vm/vm.sh judges that from the console):
		 * shown here, but it does not end the campaign.
		 */
		if (strstr(msg, "BUG: KCSAN:")) {
			printf("# kmsg: %s (judged by check.sh)\n", msg);
			continue;
		}
		if (!found++)
			snprintf(report, sizeof(report), "%.1000s", msg);
		printf("# kmsg: %s\n", msg);
	}
	return found;
}

static const char keyless_param[] = "/sys/module/kav/parameters/allow_keyless";

static void set_keyless(bool on)
{
	int fd = open(keyless_param, O_WRONLY);

	if (fd >= 0) {
		(void)!write(fd, on ? "1" : "0", 1);
		close(fd);
	}
}

/* allow_keyless as the campaign found it ('Y' or 'N'), to put it back. */
static bool get_keyless(void)
{
	char c = 'N';
	int fd = open(keyless_param, O_RDONLY);

	if (fd >= 0) {
		(void)!read(fd, &c, 1);
		close(fd);
	}
	return c == 'Y' || c == '1';
}

static int pinned_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
		     const struct kav_nl_attrs *at, void *arg)
{
	uint32_t *ids = arg;
	unsigned int i;

	(void)nlh;
	(void)gh;
	if (!at->a[KAV_A_AV_PINNED])
		return 0;
	for (i = 0; i < 63 && ids[i]; i++)
		;
	ids[i] = kav_nl_u32(at->a[KAV_A_AV_ID]);
	return 0;
}

static uint32_t base_ids[MAX_BASE_IDS];
static unsigned int nr_base_ids;
/* GRANT_ADDs a SIGKILL cut short: the cleanup swept for their grants. */
static unsigned long nr_cut_adds;

static bool is_campaign_start_grant(uint32_t id)
{
	unsigned int i;

	for (i = 0; i < nr_base_ids; i++)
		if (base_ids[i] == id)
			return true;
	return false;
}

/* The grants now (the first MAX_BASE_IDS): ids, keys and tags. */
struct grant_list {
	struct kav_nl_grant g[MAX_BASE_IDS];
	unsigned int n;
};

static int grant_ids_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
			const struct kav_nl_attrs *at, void *arg)
{
	struct grant_list *gl = arg;

	(void)nlh;
	(void)gh;
	if (gl->n < MAX_BASE_IDS)
		kav_nl_grant_from(&gl->g[gl->n++], at);
	return 0;
}

static void list_grants(struct grant_list *gl)
{
	static struct kav_nl_msg m;

	gl->n = 0;
	kav_nl_req(&nl, &m, KAV_GENL_CMD_GRANT_GET, NLM_F_DUMP);
	kav_nl_talk(&nl, &m, grant_ids_cb, gl);
}

/* Drop what a program left to the administrator: pins, grants. */
static void admin_cleanup(void)
{
	static struct kav_nl_msg m;
	static struct grant_list gl;
	uint32_t ids[64] = { 0 };
	unsigned int i, in_flight = 0, n = atomic_exchange(&SH->nr_added, 0);

	/* pgrant[] may have lost ids (two adds into one slot): added[] not. */
	for (i = 0; i < NR_PGRANTS; i++)
		atomic_store(&SH->pgrant[i], 0);
	for (i = 0; i < n && i < MAX_ADDED; i++) {
		uint32_t id = atomic_exchange(&SH->added[i], 0);

		if (id == ADD_IN_FLIGHT)
			in_flight++;
		else if (id)
			kav_nl_grant_del(&nl, id);	/* ENOENT: deleted already */
	}
	/*
	 * An add cut short by SIGKILL may have made its grant: every grant
	 * the campaign did not start with goes. Without such an add, an
	 * unrecorded grant is kav's (check_after() says so).
	 */
	if (in_flight) {
		nr_cut_adds += in_flight;
		list_grants(&gl);
		for (i = 0; i < gl.n; i++)
			if (!is_campaign_start_grant(gl.g[i].id))
				kav_nl_grant_del(&nl, gl.g[i].id);
	}
	kav_nl_dump(&nl, KAV_GENL_CMD_AV_GET, -1, pinned_cb, ids);
	for (i = 0; i < 64 && ids[i]; i++) {
		kav_nl_req(&nl, &m, KAV_GENL_CMD_AV_UNPIN, 0);
		kav_nl_put_u32(&m, KAV_A_AV_ID, ids[i]);
		kav_nl_talk(&nl, &m, NULL, NULL);
	}
}

/* Grants that exist between programs: the campaign's own, and others'. */
static long nr_grants_base = -1;

/* With the program's objects gone, kav holds nothing of it. */
static void check_after(void)
{
	struct kav_nl_stats st;
	long grants;
	int tries;

	/*
	 * Up to 10 s for what the program's exit and RCU free later: 1 s
	 * was all a loaded TCG host might give a grace period.
	 */
	for (tries = 0; tries < 500; tries++) {
		if (kav_nl_stats(&nl, &st))
			return;
		if (!st.domains && !st.avs && !st.entries)
			break;
		usleep(20000);
	}
	if (st.domains || st.avs || st.entries)
		violation("after the program: %" PRIu64 " domains, %" PRIu64
			  " AVs, %" PRIu64 " entries left", st.domains,
			  st.avs, st.entries);
	grants = check_grants(&nl, true);
	if (grants >= 0 && nr_grants_base >= 0 && grants != nr_grants_base) {
		static struct grant_list gl;
		char extra[256] = "";
		unsigned int i;
		size_t len = 0;

		list_grants(&gl);
		for (i = 0; i < gl.n && len < sizeof(extra) - 1; i++) {
			if (is_campaign_start_grant(gl.g[i].id))
				continue;
			len += (size_t)snprintf(extra + len, sizeof(extra) - len,
						" %u (vni %u, tag \"%s\")",
						gl.g[i].id, gl.g[i].vni,
						gl.g[i].tag);
		}
		violation("after the program: %ld grants, %ld before it (the "
			  "program's grants are not all gone):%s", grants,
			  nr_grants_base, extra);
	}
}

static void reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/*
 * Reap every process of the program (we are their subreaper): one killed
 * inside a call finishes that call first, and the cleanup must come
 * after it. False if one is still there after @ms.
 */
static bool reap_all_gone(unsigned int ms)
{
	uint64_t end = now_ns() + ms * 1000000ULL;

	for (;;) {
		pid_t w = waitpid(-1, NULL, WNOHANG);

		if (w > 0)
			continue;
		if (w < 0 && errno == ECHILD)
			return true;
		if (now_ns() > end)
			return false;
		usleep(1000);
	}
}

static unsigned int prog_ms = 300;
/* A kernel report or a hang was seen: no cleanup at the end. */
static bool kernel_broken;

/* Run @p once, in a fresh child process. */
static enum verdict run_prog_once(const struct fz_prog *p)
{
	unsigned long polls;
	uint64_t limit;
	int status;
	pid_t pid;

	atomic_store(&SH->nr_viol, 0);
	SH->viol[0] = 0;
	memset((void *)SH->outcome, 0, sizeof(SH->outcome));
	memset((void *)SH->touts, 0, sizeof(SH->touts));
	memset((void *)SH->cover, 0, text_size / 8 + 1);
	atomic_store(&SH->nr_skip_id, 0);
	atomic_store(&SH->nr_skip_vni, 0);
	set_keyless(p->keyless);
	deadline_ns = now_ns() + (p->ms ? p->ms : prog_ms) * 1000000ULL;
	limit = deadline_ns + 30ULL * 1000000000ULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return V_OK;
	if (pid == 0)
		run_first(p);
	for (polls = 0;; polls++) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		/* An oops can leave the program stuck on a lock: say so now. */
		if (polls % 100 == 99 && kmsg_scan()) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			reap_all();
			return V_KERNEL;
		}
		if (now_ns() > limit) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			usleep(500000);
			reap_all();
			kmsg_scan();
			snprintf(report, sizeof(report),
				 "the program did not end in %u ms + 30 s",
				 p->ms ? p->ms : prog_ms);
			return V_HANG;
		}
		usleep(1000);
	}
	kill(-pid, SIGKILL);	/* stragglers: forked children */
	if (!reap_all_gone(30000)) {
		kmsg_scan();
		snprintf(report, sizeof(report),
			 "a process of the program outlived SIGKILL by 30 s");
		return V_HANG;
	}
	if (kmsg_scan())
		return V_KERNEL;
	admin_cleanup();
	check_after();
	if (kmsg_scan())
		return V_KERNEL;
	return atomic_load(&SH->nr_viol) ? V_VIOLATION : V_OK;
}

/* Programs run and calls made, minimisation and replays included. */
static unsigned long nr_programs, nr_calls;

/* Run @p once: the verdict; SH->viol or report say why. */
static enum verdict run_prog(const struct fz_prog *p)
{
	enum verdict v = run_prog_once(p);

	nr_programs++;
	nr_calls += atomic_exchange(&SH->calls, 0);
	if (v == V_KERNEL || v == V_HANG)
		kernel_broken = true;
	return v;
}

/*
 * Merge the program's outcomes: how many (op, errno, log2 of the count)
 * are new. Without kcov, the feedback: a program where, say, an insert
 * first got EFAULT, or got it a thousand times, joins the corpus.
 */
static uint32_t seen_outcome[NR_OPS][NR_ERRS];
static uint64_t nr_outcomes;

static uint64_t merge_outcomes(void)
{
	uint64_t fresh = 0;
	unsigned int op, e, hits, b;

	for (op = 0; op < NR_OPS; op++) {
		for (e = 0; e < NR_ERRS; e++) {
			hits = atomic_load_explicit(&SH->outcome[op][e],
						    memory_order_relaxed);
			if (!hits)
				continue;
			b = 32 - (unsigned int)__builtin_clz(hits);
			if (b >= NR_BUCKETS)
				b = NR_BUCKETS - 1;
			if (!(seen_outcome[op][e] & (1U << b))) {
				seen_outcome[op][e] |= 1U << b;
				fresh++;
			}
		}
	}
	nr_outcomes += fresh;
	return fresh;
}

/*
 * Merge the program's cross-thread outcome pairs: (op, errno) of one
 * thread with (op, errno) of another, in the same run. A race is two
 * things happening together: the first program where an insert got
 * EFAULT while another thread's remove succeeded joins the corpus,
 * although each outcome alone was seen long before.
 */
#define NR_OUTS		(NR_OPS * NR_ERRS)
static unsigned char seen_pair[(NR_OUTS * NR_OUTS + 7) / 8];
static uint64_t nr_pairs;

static bool pair_fresh(unsigned int x, unsigned int y)
{
	unsigned int lo = x < y ? x : y, hi = x < y ? y : x;
	size_t bit = (size_t)lo * NR_OUTS + hi;

	if (seen_pair[bit / 8] & (1U << (bit % 8)))
		return false;
	seen_pair[bit / 8] |= (unsigned char)(1U << (bit % 8));
	return true;
}

static uint64_t merge_pairs(void)
{
	/* The program's (thread, outcome) items, then every cross-thread pair. */
	static struct { unsigned int thread, out; } it[MAX_THREADS * NR_OUTS];
	unsigned int n = 0, t, op, e, i, j;
	uint64_t fresh = 0, m;

	for (t = 0; t < MAX_THREADS; t++)
		for (op = 0; op < NR_OPS; op++) {
			m = atomic_load_explicit(&SH->touts[t][op],
						 memory_order_relaxed);
			for (e = 0; m; e++, m >>= 1)
				if (m & 1) {
					it[n].thread = t;
					it[n++].out = op * NR_ERRS + e;
				}
		}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (it[i].thread != it[j].thread &&
			    pair_fresh(it[i].out, it[j].out))
				fresh++;
	nr_pairs += fresh;
	return fresh;
}

/* Merge the program's PCs: how many are new. */
static uint64_t merge_cover(void)
{
	uint64_t i, fresh = 0;

	for (i = 0; i <= text_size / 8 && i < TEXT_MAX / 8; i++) {
		unsigned char nb = SH->cover[i] & ~seen[i];

		if (nb) {
			fresh += (uint64_t)__builtin_popcount(nb);
			seen[i] |= nb;
		}
	}
	nr_seen += fresh;
	return fresh;
}

static void print_prog(const char *why, const struct fz_prog *p)
{
	printf("# @@KAV-FUZZ-REPRO-BEGIN %s\n", why);
	fflush(stdout);
	fz_prog_write(stdout, p);
	printf("# @@KAV-FUZZ-REPRO-END\n");
	fflush(stdout);
}

/* Does @p fail (as @v) in one of @runs runs? */
static bool still_fails(const struct fz_prog *p, enum verdict v, int runs,
			enum verdict *got)
{
	while (runs--) {
		*got = run_prog(p);
		if (*got == v)
			return true;
		if (*got != V_OK)
			return false;	/* something worse: stop here */
	}
	return false;
}

/* Drop calls while the program still fails the same way. */
static void minimise(struct fz_prog *p, enum verdict v, double budget)
{
	double end = kav_now() + budget;
	struct fz_prog cand;
	enum verdict got = V_OK;
	uint32_t i;

	for (i = p->nr_calls; i-- > 0 && kav_now() < end;) {
		cand = *p;
		fz_drop_call(&cand, i);
		if (still_fails(&cand, v, 6, &got))
			*p = cand;
		else if (got == V_KERNEL || got == V_HANG)
			return;
	}
	/* Fewer repeats, where that still fails. */
	for (i = 0; i < p->nr_calls && kav_now() < end; i++) {
		if (p->c[i].repeat <= 1)
			continue;
		cand = *p;
		cand.c[i].repeat = 1;
		if (still_fails(&cand, v, 6, &got))
			*p = cand;
		else if (got == V_KERNEL || got == V_HANG)
			return;
	}
}

/* Seeds: the shapes the selftests use (never the known race's). */
static const char *const seeds[] = {
	/* kav_instant_on_test: a launcher fills a named AV, a rank of
	 * another uid opens it read-only and maps it */
	"kav-fuzz-prog 1 threads 2 split 1 drop 1 keyless 1\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x30201 0x0\n"
	"0 insert r20 0x2 0x40 0x0 0x0 0x0\n"
	"1 dom_open r1 0x1 0x0 0x0 0x0 0x0\n"
	"1 av_create r1 0x1 0x3 0x0 0x10020d 0x0\n"
	"1 map r5 0x3 0x1 0x0 0x0 0x0\n",
	/* kav_keys_test: keys, keyed inserts, endpoints, key removal */
	"kav-fuzz-prog 1 threads 3 split 0 drop 0 keyless 0\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S set_key r1 0x0 0xa 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x0 0x0\n"
	"S key_insert r1 0x2 0xb 0x0 0x0 0x0\n"
	"0 insert r100 0x2 0x8 0x0 0x101 0x0\n"
	"1 ep_open r1 0x2 0x4 0x0 0x0 0x0\n"
	"1 ep_enable r1 0x4 0x0 0x0 0x0 0x0\n"
	"2 key_remove r50 0x2 0x1 0x0 0x0 0x0\n",
	/* kav_netlink_test / kav_attack_test: grant and revoke while the
	 * tenant binds keys */
	"kav-fuzz-prog 1 threads 2 split 0 drop 0 keyless 0\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x0 0x0\n"
	"0 grant_add r1 0xe 0x0 0x0 0x0 0x0\n"
	"0 grant_del r1 0x0 0x0 0x0 0x0 0x0\n"
	"1 key_insert r30 0x2 0xe 0x0 0x0 0x0\n"
	"1 insert r30 0x2 0x4 0x1 0x101 0x0\n"
	"0 nl_dump r5 0x3 0x2 0x0 0x0 0x0\n",
	/* kav_concurrency_test: inserts against close, dup and mappings */
	"kav-fuzz-prog 1 threads 3 split 0 drop 0 keyless 1\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x0 0x0\n"
	"0 insert r500 0x2 0x40 0x1 0x0 0x0\n"
	"1 dup r20 0x2 0x3 0x0 0x0 0x0\n"
	"1 close r1 0x2 0x0 0x0 0x0 0x0\n"
	"2 map r50 0x3 0x1 0x0 0x0 0x1\n"
	"2 remove r200 0x3 0x4 0x3 0x0 0x0\n",
	/* kav_named_test: pins, named opens, EXCL, OWNER */
	"kav-fuzz-prog 1 threads 2 split 0 drop 0 keyless 1\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x1 0x0\n"
	"0 pin r1 0x2 0x0 0x0 0x0 0x0\n"
	"0 close r1 0x2 0x0 0x0 0x0 0x0\n"
	"1 av_create r10 0x0 0x3 0x2 0x3 0x0\n"
	"1 unpin r1 0x3 0x0 0x0 0x0 0x0\n",
	/* kav_job_test: two processes of a job share its table, inserting
	 * known and new addresses, repeats among them (find-or-insert), and
	 * check what each insert gave */
	"kav-fuzz-prog 1 threads 3 split 2 drop 0 keyless 0\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S set_key r1 0x0 0xa 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x20 0x0\n"
	"0 insert r200 0x2 0x40 0x7 0x80000000 0x0\n"
	"1 insert r200 0x2 0x8 0x7 0x100000 0x0\n"
	"2 dom_open r1 0x1 0x0 0x0 0x0 0x0\n"
	"2 set_key r1 0x1 0xa 0x0 0x0 0x0\n"
	"2 av_create r1 0x1 0x3 0x2 0x20 0x0\n"
	"2 insert r200 0x3 0x40 0x7 0x0 0x0\n",
	/* kav_netlink_test's limits: a grant of 8 entries and 1 AV for the
	 * domain's key, inserts against it while WHOAMI and GRANT_GET
	 * read its counts, the limits changed and the tag renamed */
	"kav-fuzz-prog 1 threads 3 split 0 drop 0 keyless 0\n"
	"S grant_add r1 0x1e 0x0 0x8 0x0 0x101\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S set_key r1 0x0 0x1e 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x0 0x0\n"
	"0 insert r65535 0x2 0x3 0x3 0x0 0x0\n"
	"1 whoami r65535 0x0 0x3 0x1 0x0 0x0\n"
	"2 nl_dump r500 0xa 0x2 0x1e 0x0 0x0\n"
	"2 remove r500 0x2 0x3 0x3 0x0 0x0\n"
	"2 grant_set r5 0x0 0x5 0x3 0x1 0x0\n",
	/* kavctl's listings and a tenant's endpoints and user ids around
	 * a named AV, which uid 65534 may not open (mode 0600) */
	"kav-fuzz-prog 1 threads 3 split 2 drop 1 keyless 0\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S set_key r1 0x0 0xa 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x1 0x0\n"
	"S insert r1 0x2 0x8 0x3 0x0 0x0\n"
	"S ep_open r1 0x2 0x4 0x0 0x0 0x0\n"
	"0 nl_dump r1 0x1 0x2 0x0 0x0 0x0\n"
	"0 nl_dump r1 0x2 0x2 0x0 0x0 0x0\n"
	"0 nl_dump r1 0x3 0x2 0x0 0x0 0x0\n"
	"0 nl_dump r1 0x5 0x2 0x0 0x0 0x0\n"
	"0 nl_dump r1 0x8 0x0 0x0 0x0 0x0\n"
	"0 nl_dump r1 0x9 0x0 0x0 0x0 0x0\n"
	"0 nl_dump r1 0xc 0x2 0xa 0x0 0x0\n"
	"0 nl_dump r1 0xd 0x2 0x0 0x0 0x0\n"
	"0 nl_dump r1 0xe 0x2 0x7fff 0x0 0x0\n"
	"0 pin r1 0x2 0x0 0x1 0x0 0x0\n"
	"0 unpin r1 0x2 0x0 0x0 0x0 0x0\n"
	"1 user_id r1 0x2 0x0 0x1 0x5 0x0\n"
	"1 user_id r1 0x2 0x0 0x0 0x6 0x0\n"
	"1 ep_enable r1 0x4 0x0 0x0 0x0 0x0\n"
	"1 close r1 0x4 0x0 0x0 0x0 0x0\n"
	"1 key_insert r1 0x2 0xb 0x0 0x0 0x0\n"
	"1 key_remove r1 0x2 0x1 0x0 0x0 0x0\n"
	"2 dom_open r1 0x1 0x0 0x0 0x0 0x0\n"
	"2 av_create r1 0x1 0x3 0x2 0xd 0x0\n",
};

/*
 * Regressions: programs that once broke kav, replayed (REGRESS_RUNS times
 * each) before every campaign that uses the seeds. Never seeds: the
 * canary (--no-seeds) must find its bug without them.
 */
#define REGRESS_RUNS	3
static const char *const regressions[] = {
	/* issue 14's double erase: what make fuzz-canary found by itself in
	 * 15fc615's module (an oops in kav_grant_uncharge, from the EFAULT
	 * undo of kav_av_insert) */
	"kav-fuzz-prog 1 threads 4 split 0 drop 0 keyless 1\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x40201 0x0\n"
	"S av_create r1 0x1 0x3 0x2 0x2300 0x0\n"
	"0 insert r65535 0x2 0x1 0x0 0x2c40000 0x8\n"
	"1 insert r65535 0x2 0x3 0x0 0x6f30200 0x0\n"
	"2 mprotect r65535 0x0 0x1 0x0 0x0 0x0\n"
	"3 remove r65535 0x2 0x1 0x2 0xfff 0x0\n",
	/* the same bug, keyed, in the shape kav_trust_test uses: 1024
	 * addresses whose output goes read-only, and a remove of entry 0 */
	"kav-fuzz-prog 1 threads 3 split 0 drop 0 keyless 0 ms 1000\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S set_key r1 0x0 0xa 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x0 0x0\n"
	"0 insert r65535 0x2 0x400 0x0 0x0 0x0\n"
	"1 mprotect r65535 0x0 0x0 0x0 0x0 0x0\n"
	"2 remove r65535 0x2 0x1 0x3 0x0 0x0\n",
	/* issue 28's item 9, as the campaign found it on 73f9707's module:
	 * a refused charge showed in the grant's counts (WHOAMI saw 1024
	 * entries of a grant limited to 8) */
	"kav-fuzz-prog 1 threads 3 split 0 drop 0 keyless 0\n"
	"S grant_add r1 0x1e 0x0 0x8 0x0 0x101\n"
	"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
	"S set_key r1 0x0 0x1e 0x0 0x0 0x0\n"
	"S av_create r1 0x0 0x2 0x2 0x0 0x0\n"
	"0 insert r65535 0x2 0x400 0x1 0x1aeaa00 0x0\n"
	"1 whoami r65535 0x0 0x3 0x1 0x0 0x0\n",
};

static struct fz_prog corpus[CORPUS_MAX];
static unsigned int corpus_n;		/* entries held, up to CORPUS_MAX */
static unsigned long corpus_added;	/* entries ever added */

/* Add @p; a full corpus is a ring: the oldest entry makes room. */
static void corpus_add(const struct fz_prog *p)
{
	corpus[corpus_added++ % CORPUS_MAX] = *p;
	if (corpus_n < CORPUS_MAX)
		corpus_n++;
}

/*
 * A corpus entry to mutate: half the time one of the 8 newest. A program
 * that just reached something new (a first EFAULT next to a successful
 * remove) is the one most likely to lead further: give it more turns
 * than an old entry gets among hundreds.
 */
static unsigned int corpus_pick(struct fz_rng *r)
{
	unsigned int newest = (unsigned int)((corpus_added - 1) % CORPUS_MAX);

	if (corpus_n > 8 && fz_chance(r, 50))
		return (newest + CORPUS_MAX -
			(unsigned int)fz_below(r, 8)) % CORPUS_MAX;
	return (unsigned int)fz_below(r, corpus_n);
}

/* kav.ko's .text (for kcov): its address and an upper bound of its size. */
static void find_text(void)
{
	char path[512], buf[64];
	uint64_t addr, next = 0;
	struct dirent *d;
	FILE *f;
	DIR *dir;

	f = fopen("/sys/module/kav/sections/.text", "r");
	if (!f)
		return;
	if (fscanf(f, "%" SCNx64, &text_start) != 1)
		text_start = 0;
	fclose(f);
	dir = opendir("/sys/module/kav/sections");
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] != '.' || !strcmp(d->d_name, ".") ||
		    !strcmp(d->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "/sys/module/kav/sections/%s",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) &&
		    sscanf(buf, "%" SCNx64, &addr) == 1 && addr > text_start &&
		    (!next || addr < next))
			next = addr;
		fclose(f);
	}
	if (dir)
		closedir(dir);
	text_size = next && next - text_start < TEXT_MAX ?
		    next - text_start : TEXT_MAX;
}

static void probe_kcov(void)
{
	struct kcov k;

	find_text();
	if (!text_start || access("/sys/kernel/debug/kcov", R_OK | W_OK))
		return;
	have_kcov = true;
	kcov_start(&k);
	if (k.fd < 0)
		have_kcov = false;
	else
		kcov_stop(&k);
}

static const uint32_t base_vni[NR_BASE_GRANTS] = { 10, 11, 12, 13, 20, 11 };

static bool keyless_before;

static int campaign_init(void)
{
	struct stat st;
	unsigned int i;

	keyless_before = get_keyless();
	mkdir(FUZZ_CGROUP, 0755);
	if (!stat("/sys/fs/cgroup", &st))
		root_cg_id = st.st_ino;
	if (!stat(FUZZ_CGROUP, &st))
		fuzz_cg_id = st.st_ino;
	SH = mmap(NULL, sizeof(*SH), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (SH == MAP_FAILED)
		return -1;
	if (kav_nl_open(&nl)) {
		printf("# cannot reach the kav netlink family (kav.ko loaded? root?)\n");
		return -1;
	}
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* Keys 10-13 for root, 20 for the tenant, 11 for root's group. */
	for (i = 0; i < NR_BASE_GRANTS; i++) {
		uint32_t id = 0;

		if (i < 4)
			kav_nl_grant_uid(&nl, base_vni[i], 0, &id);
		else if (i == 4)
			kav_nl_grant_uid(&nl, base_vni[i], UID_TENANT, &id);
		else
			kav_nl_grant_gid(&nl, base_vni[i], 0, &id);
		baseline_grant[i] = id;
	}
	nr_grants_base = check_grants(&nl, false);
	{
		static struct grant_list gl;

		list_grants(&gl);
		for (i = 0; i < gl.n && i < MAX_BASE_IDS; i++)
			base_ids[nr_base_ids++] = gl.g[i].id;
	}
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	probe_kcov();
	text_size = text_size ? text_size : 8;
	return 0;
}

static void campaign_end(void)
{
	unsigned int i;

	for (i = 0; i < NR_BASE_GRANTS; i++)
		if (baseline_grant[i])
			kav_nl_grant_del(&nl, (uint32_t)baseline_grant[i]);
	set_keyless(keyless_before);
}

static void print_pcs(void)
{
	uint64_t i, n = 0;

	for (i = 0; i < text_size && i < TEXT_MAX; i++) {
		if (!(seen[i / 8] & (1U << (i % 8))))
			continue;
		if (n % 12 == 0)
			printf("%s# fuzz-pcs:", n ? "\n" : "");
		printf(" %" PRIx64, i);
		n++;
	}
	if (n)
		printf("\n");
}

static int fail_out(enum verdict v, struct fz_prog *p, double budget)
{
	const char *why = v == V_VIOLATION ? SH->viol : report;

	printf("# fuzz: %s: %s\n", verdict_names[v], why);
	print_prog(verdict_names[v], p);
	if (budget > 0 && v == V_VIOLATION) {
		minimise(p, v, budget);
		printf("# fuzz: minimised to %u calls\n", p->nr_calls);
		print_prog("minimised", p);
	}
	return 1;
}

/* A violation's kind: its message without numbers. */
static void kind_of(const char *msg, char *kind, size_t len)
{
	size_t n = 0;

	for (; *msg && n + 1 < len; msg++)
		if (*msg < '0' || *msg > '9')
			kind[n++] = *msg;
	kind[n] = 0;
}

#define MAX_KINDS	8
static char kinds[MAX_KINDS][VIOL_LEN];
static unsigned int nr_kinds;

/* With --keep-going: is this violation's kind new (then remember it)? */
static bool new_kind(const char *msg)
{
	char k[VIOL_LEN];
	unsigned int i;

	kind_of(msg, k, sizeof(k));
	for (i = 0; i < nr_kinds; i++)
		if (!strcmp(kinds[i], k))
			return false;
	if (nr_kinds < MAX_KINDS)
		strcpy(kinds[nr_kinds++], k);
	return true;
}

/* --stop-on=TEXT: with --keep-going, a violation holding TEXT ends it. */
static const char *stop_pat[MAX_PATS];
static unsigned int nr_stop;

static bool stops(const char *msg)
{
	unsigned int i;

	for (i = 0; i < nr_stop; i++)
		if (holds(msg, stop_pat[i]))
			return true;
	return false;
}

static int campaign(double seconds, uint64_t seed, bool use_seeds, bool pcs,
		    bool keep_going)
{
	unsigned long ignored = 0;
	uint64_t fresh;
	struct fz_rng rng = { seed };
	unsigned long nr_failed = 0;
	double start = kav_now(), last_status = start, el;
	char found[VIOL_LEN + 128] = "was a regression's or a seed's (above)";
	enum verdict v = V_OK;
	struct fz_prog p;
	unsigned int i;
	int failed = 0;

	printf("# fuzz: seed %" PRIu64 ", %.0f s, programs of %u ms, %s\n",
	       seed, seconds, prog_ms,
	       have_kcov ? "kcov coverage of kav.ko" :
	       "no kcov: (call, errno) outcomes as feedback");
	if (have_kcov)
		printf("# fuzz: kav .text at 0x%" PRIx64 ", < %" PRIu64 " bytes\n",
		       text_start, text_size);
	for (i = 0; use_seeds && i < sizeof(regressions) /
		    sizeof(regressions[0]) && !failed; i++) {
		int run;

		if (fz_prog_parse(regressions[i], &p)) {
			printf("# fuzz: bad regression %u\n", i);
			failed = 1;
			break;
		}
		for (run = 0; run < REGRESS_RUNS && v == V_OK; run++)
			v = run_prog(&p);
		printf("# fuzz: regression %u: %s (%d runs)\n", i,
		       verdict_names[v], run);
		if (v != V_OK)
			failed = fail_out(v, &p, 0);
	}
	for (i = 0; !failed && use_seeds &&
		    i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		if (fz_prog_parse(seeds[i], &p)) {
			printf("# fuzz: bad seed %u\n", i);
			continue;
		}
		v = run_prog(&p);
		merge_cover();
		merge_outcomes();
		merge_pairs();
		ignored += (unsigned long)atomic_exchange(&SH->nr_ignored, 0);
		corpus_add(&p);
		if (v != V_OK) {
			failed = fail_out(v, &p, 90);
			break;
		}
	}
	while (!failed && kav_now() - start < seconds) {
		/* A long campaign says how it goes every 10 minutes. */
		if (kav_now() - last_status >= 600) {
			last_status = kav_now();
			printf("# fuzz: at %.0f s: %lu programs, %lu calls, "
			       "corpus %u, outcome pairs %" PRIu64
			       ", kav PCs %" PRIu64 "\n", last_status - start,
			       nr_programs, nr_calls, corpus_n, nr_pairs,
			       nr_seen);
		}
		if (corpus_n && fz_chance(&rng, have_kcov ? 75 : 50)) {
			p = corpus[corpus_pick(&rng)];
			fz_mutate(&rng, &p, &corpus[fz_below(&rng, corpus_n)]);
		} else {
			fz_generate(&rng, &p);
		}
		v = run_prog(&p);
		ignored += (unsigned long)atomic_exchange(&SH->nr_ignored, 0);
		fresh = merge_outcomes();
		fresh += merge_pairs();
		if (merge_cover() || fresh)
			corpus_add(&p);
		if (v == V_OK || (keep_going && v == V_VIOLATION &&
				  !new_kind(SH->viol)))
			continue;
		snprintf(found, sizeof(found),
			 "found after %.1f s, %lu programs, %lu calls: %s: %s",
			 kav_now() - start, nr_programs, nr_calls,
			 verdict_names[v], v == V_VIOLATION ? SH->viol : report);
		printf("# fuzz: %s\n", found);
		fail_out(v, &p, keep_going ? 20 : 90);
		if (!keep_going || v != V_VIOLATION || nr_kinds >= MAX_KINDS ||
		    stops(SH->viol))
			failed = 1;
		else
			nr_failed++;
	}
	failed |= nr_failed > 0;
	el = kav_now() - start;
	printf("# fuzz: %lu programs, %lu calls in %.1f s: %.0f calls/s, "
	       "corpus %u, outcomes %" PRIu64 ", outcome pairs %" PRIu64
	       ", kav PCs %" PRIu64 "%s\n",
	       nr_programs, nr_calls, el, nr_calls / (el > 0 ? el : 1), corpus_n,
	       nr_outcomes, nr_pairs, nr_seen, have_kcov ? "" : " (no kcov)");
	if (nr_ignore)
		printf("# fuzz: %lu violations ignored (--ignore)\n", ignored);
	if (nr_cut_adds)
		printf("# fuzz: %lu grant adds cut short by a program's end "
		       "(SIGKILL); their grants swept\n", nr_cut_adds);
	/* Again last, where a CI log's tail (and vm.sh's summary) has it. */
	if (failed)
		printf("# fuzz: seed %" PRIu64 ": the last failure %s\n", seed,
		       found);
	if (pcs && have_kcov)
		print_pcs();
	return failed;
}

static int replay(const char *file, int runs)
{
	enum verdict v = V_OK;
	struct fz_prog p;
	FILE *f = fopen(file, "r");
	int i;

	if (!f || fz_prog_read(f, &p)) {
		printf("# cannot read the reproducer %s\n", file);
		if (f)
			fclose(f);
		return 2;
	}
	fclose(f);
	printf("# replay: %s, %u calls, up to %d runs\n", file, p.nr_calls, runs);
	for (i = 0; i < runs && v == V_OK; i++)
		v = run_prog(&p);
	printf("# replay: %s after %d runs: %s\n", verdict_names[v], i,
	       v == V_VIOLATION ? SH->viol : v == V_OK ? "" : report);
	return v != V_OK;
}

int main(int argc, char **argv)
{
	const char *replay_file = NULL;
	bool use_seeds = true, pcs = false, keep_going = false;
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	double seconds = 40;
	int i, runs = 50, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--time=", 7))
			seconds = atof(a + 7);
		else if (!strncmp(a, "--seed=", 7))
			seed = strtoull(a + 7, NULL, 0);
		else if (!strncmp(a, "--prog-ms=", 10))
			prog_ms = (unsigned int)atoi(a + 10);
		else if (!strncmp(a, "--replay=", 9))
			replay_file = a + 9;
		else if (!strncmp(a, "--runs=", 7))
			runs = atoi(a + 7);
		else if (!strcmp(a, "--no-seeds"))
			use_seeds = false;
		else if (!strcmp(a, "--pcs"))
			pcs = true;
		else if (!strcmp(a, "--keep-going"))
			keep_going = true;
		else if (!strncmp(a, "--ignore=", 9) && nr_ignore < MAX_PATS)
			ignore_pat[nr_ignore++] = a + 9;
		else if (!strncmp(a, "--stop-on=", 10) && nr_stop < MAX_PATS)
			stop_pat[nr_stop++] = a + 10;
		else {
			fprintf(stderr, "usage: kav_fuzzer [--time=S] [--seed=N] "
				"[--prog-ms=MS] [--no-seeds] [--pcs] [--keep-going] "
				"[--ignore=TEXT] [--stop-on=TEXT] "
				"[--replay=FILE [--runs=N]]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..1\n");
	if (campaign_init()) {
		printf("not ok 1 kav_fuzzer: setup failed\n");
		return 1;
	}
	if (replay_file)
		ret = replay(replay_file, runs);
	else
		ret = campaign(seconds, seed, use_seeds, pcs, keep_going);
	/*
	 * After an oops the kernel is not trusted: a task may hold a table
	 * lock forever, and the cleanup's revokes would wait on it until
	 * the guest's timeout. Leave it to the reboot.
	 */
	if (!kernel_broken)
		campaign_end();
	rmdir(FUZZ_CGROUP);
	printf("%s 1 kav_fuzzer %s\n", ret ? "not ok" : "ok",
	       replay_file ? "replay" : "campaign");
	return ret ? 1 : 0;
}
