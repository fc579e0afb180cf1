// SPDX-License-Identifier: GPL-2.0
/*
 * kav at scale: what a table of max_entries entries costs, who pays for
 * it, and that opening or mapping a big one costs no more than a small one.
 *
 *   a_16m_ipv6_entries      2^24 IPv6 entries in one AV, seen by a reader
 *                           that mapped the table before it grew; one more
 *                           is ENOSPC and changes nothing; the kernel's
 *                           memory per entry (netlink AV_GET)
 *   b_open_cost_flat        opening and mapping a 1M-entry named AV
 *                           read-only faults as few pages as a 1k-entry
 *                           one; touching a page faults that page only
 *   c_writer_not_charged    inserts from a process in a cgroup limited to
 *                           32 MiB into an AV created in the root cgroup
 *                           go past 32 MiB: the writer does not pay
 *   d_creator_pays          an AV created in that limited cgroup, filled
 *                           by a process outside it: the creator's cgroup
 *                           is charged, the writer's is not, the batch
 *                           that hits the limit fails with ENOMEM and
 *                           changes nothing, the table stays consistent
 *                           and the creator is not killed for it
 *
 * Grant limits (KAV_A_LIMIT_ENTRIES, EDQUOT) are kav_netlink_test's;
 * max_entries on a small table is kav_uapi_test's (table_full_enospc).
 *
 * Env: KAV_SCALE_ENTRIES  entries of the big AV of a_ (default 2^24; on a
 *                         kernel with KASAN, KAV_SCALE_KASAN_DEFAULT, 2^21,
 *                         and the program says so)
 *
 * Runs as root in the test VM (cgroup2 at /sys/fs/cgroup). No assertion
 * is about time; the timings printed are for the reader.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_nl_util.h"

#define PAGE		((uint64_t)sysconf(_SC_PAGESIZE))
#define MIB		(1024.0 * 1024.0)
#define BIG_DEFAULT	(1ULL << 24)
/*
 * The big AV on a KASAN kernel (the debug kernel): there, under TCG, 2^22
 * IPv6 inserts took 126 s, so 2^24 cannot fit in the 300 s a program
 * gets in the guest (KAV_TEST_TIMEOUT).
 */
#define KAV_SCALE_KASAN_DEFAULT	(1ULL << 21)
#define ENTRY6		64	/* bytes per IPv6 entry */
#define ENTRY4		32	/* bytes per IPv4 entry */
#define FI_ADDR		8	/* bytes per fi_addr element */
/* Faults that opening and mapping an AV may take, whatever its size. */
#define OPEN_FAULTS_MAX	16

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_LIMITED	"kav_scale_limited"
#define CG_FREE		"kav_scale_free"
#define CG_LIMIT	(32ULL << 20)

/* ------------------------------------------------------------ helpers */

/*
 * A KASAN kernel (the debug kernel): kasan_report is in kallsyms, whose
 * names are listed even where addresses are hidden.
 */
static bool kasan_kernel(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " kasan_report\n") != NULL;
	fclose(f);
	return found;
}

/* Entries of the big AV: $KAV_SCALE_ENTRIES, else 2^24. */
static uint64_t big_entries(void)
{
	const char *env = getenv("KAV_SCALE_ENTRIES");
	uint64_t n;

	if (env && *env) {
		n = strtoull(env, NULL, 0);
		ksft_print_msg("KAV_SCALE_ENTRIES=%llu\n",
			       (unsigned long long)n);
		return n;
	}
	if (KAV_SCALE_KASAN_DEFAULT != BIG_DEFAULT && kasan_kernel()) {
		ksft_print_msg("KASAN kernel: %llu entries instead of %llu\n",
			       (unsigned long long)KAV_SCALE_KASAN_DEFAULT,
			       (unsigned long long)BIG_DEFAULT);
		return KAV_SCALE_KASAN_DEFAULT;
	}
	return BIG_DEFAULT;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* Pages a full table of @n entries of @entry bytes holds (header too). */
static uint64_t table_pages(uint64_t n, uint64_t entry)
{
	return 1 + div_up(n * entry, PAGE) + div_up(n * FI_ADDR, PAGE);
}

/* Kernel memory of such a table: its pages and the used-slot bitmap. */
static uint64_t table_bytes(uint64_t n, uint64_t entry)
{
	return (table_pages(n, entry) + div_up(n, PAGE * 8)) * PAGE;
}

/* Entry @i's IPv6 address: the index in two forms, and in the port. */
static void addr6(uint64_t i, struct sockaddr_in6 *s)
{
	uint32_t lo = htonl((uint32_t)i), inv = htonl(~(uint32_t)i);

	memset(s, 0, sizeof(*s));
	s->sin6_family = AF_INET6;
	s->sin6_port = htons((uint16_t)(1 + i % 65521));
	s->sin6_addr.s6_addr[0] = 0xfd;
	s->sin6_addr.s6_addr[1] = 'k';
	s->sin6_addr.s6_addr[2] = 'a';
	s->sin6_addr.s6_addr[3] = 'v';
	memcpy(&s->sin6_addr.s6_addr[8], &inv, 4);
	memcpy(&s->sin6_addr.s6_addr[12], &lo, 4);
}

/* Entry @i's IPv4 address. */
static void addr4(uint64_t i, struct sockaddr_in *s)
{
	*s = kav_sin(0x0a000000u + (uint32_t)i, (uint16_t)(1 + i % 65521));
}

/* Insert @count addresses of @stride bytes; 0 or -errno. */
static int insert_raw(int av, const void *addrs, uint32_t stride,
		      uint32_t count, uint64_t *fi)
{
	struct kav_av_insert in = {
		.size = sizeof(in),
		.count = count,
		.addr_stride = stride,
		.addrs = (uintptr_t)addrs,
		.fi_addrs = (uintptr_t)fi,
		.err_index = KAV_NO_INDEX,
	};

	return ioctl(av, KAV_IOC_AV_INSERT, &in) ? -errno : 0;
}

static const struct kav_table_header *map_table(int av, uint64_t size)
{
	void *p = mmap(NULL, size, PROT_READ, MAP_SHARED, av, 0);

	return p == MAP_FAILED ? NULL : p;
}

static uint64_t load_acq(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* A consistent copy of entry @idx (the uAPI's sequence protocol). */
struct entry_copy {
	uint32_t flags, addr_len;
	uint64_t auth_key, user_id;
	uint8_t addr[32];
};

static int read_entry(const struct kav_table_header *h, uint64_t idx,
		      struct entry_copy *out)
{
	const struct kav_entry *e = kav_table_entry_of(h, idx);
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		uint32_t s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE), s2;

		out->flags = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
		out->addr_len = __atomic_load_n(&e->addr_len, __ATOMIC_RELAXED);
		out->auth_key = __atomic_load_n(&e->auth_key, __ATOMIC_RELAXED);
		out->user_id = __atomic_load_n(&e->user_id, __ATOMIC_RELAXED);
		memcpy(out->addr, (const void *)e->addr, sizeof(out->addr));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
		if (s1 == s2 && !(s1 & 1))
			return 0;
	}
	return -1;
}

/* Does entry @idx hold address @i (IPv6 when @v6, else IPv4)? */
static bool entry_is(const struct kav_table_header *h, uint64_t idx,
		     uint64_t i, bool v6)
{
	struct entry_copy e;
	struct sockaddr_in6 s6;
	struct sockaddr_in s4;
	const void *want = v6 ? (const void *)&s6 : (const void *)&s4;
	uint32_t len = v6 ? sizeof(s6) : sizeof(s4);

	if (v6)
		addr6(i, &s6);
	else
		addr4(i, &s4);
	return !read_entry(h, idx, &e) && e.flags == KAV_ENTRY_VALID &&
	       e.addr_len == len && e.auth_key == KAV_ENTRY_NO_KEY &&
	       e.user_id == KAV_NONE && !memcmp(e.addr, want, len) &&
	       load_acq(&kav_table_fi_addrs_of(h)[idx]) == idx;
}

/* ------------------------------------------------------------ netlink */

/* AV_GET for one AV: 0 or -errno (-ENOENT when it is not listed). */
static int av_info(uint32_t av_id, struct kav_nl_av_info *ai)
{
	memset(ai, 0, sizeof(*ai));
	ai->av_id = av_id;
	return kav_nl_av_info(ai);
}

/* ------------------------------------------------------------ cgroups */

static int cg_write(const char *cg, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), CG_ROOT "/%s%s%s", cg, *cg ? "/" : "",
		 file);
	return kav_write_path(path, val);
}

/* A number from a cgroup file; UINT64_MAX if unreadable. */
static uint64_t cg_read_u64(const char *cg, const char *file)
{
	char path[256];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), CG_ROOT "/%s/%s", cg, file);
	f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	if (fscanf(f, "%llu", &v) != 1)
		v = UINT64_MAX;
	fclose(f);
	return v;
}

/* Field @key of a flat-keyed file (memory.stat, memory.events). */
static uint64_t cg_read_key(const char *cg, const char *file, const char *key)
{
	char path[256], k[64];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), CG_ROOT "/%s/%s", cg, file);
	f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	while (fscanf(f, "%63s %llu", k, &v) == 2) {
		if (!strcmp(k, key)) {
			fclose(f);
			return v;
		}
	}
	fclose(f);
	return UINT64_MAX;
}

static int cg_move(const char *cg, pid_t pid)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	return cg_write(cg, "cgroup.procs", buf);
}

static int cg_remove(const char *cg)
{
	char path[256];
	int i;

	snprintf(path, sizeof(path), CG_ROOT "/%s", cg);
	for (i = 0; i < 300; i++) {
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(10000);
	}
	return -EBUSY;
}

/* The first line of a file of the cgroup root, or "". */
static void cg_root_line(const char *file, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), CG_ROOT "/%s", file);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
}

/*
 * The memory controller for the root's children: NULL, or a SKIP reason.
 * *@enabled tells whether this call enabled it (the teardown undoes it).
 */
static const char *cg_memory_ready(bool *enabled)
{
	char buf[512];

	cg_root_line("cgroup.controllers", buf, sizeof(buf));
	if (!strstr(buf, "memory"))
		return "no cgroup2 memory controller at " CG_ROOT;
	cg_root_line("cgroup.subtree_control", buf, sizeof(buf));
	if (strstr(buf, "memory"))
		return NULL;
	if (cg_write("", "cgroup.subtree_control", "+memory"))
		return "cannot enable +memory";
	*enabled = true;
	return NULL;
}

/* A new cgroup (an old one of ours is removed first) with memory.max. */
static int cg_make(const char *cg, uint64_t max)
{
	char path[256], val[32];
	int ret;

	snprintf(path, sizeof(path), CG_ROOT "/%s", cg);
	cg_remove(cg);
	if (mkdir(path, 0755))
		return -errno;
	if (!max)
		return 0;
	snprintf(val, sizeof(val), "%llu\n", (unsigned long long)max);
	ret = cg_write(cg, "memory.max", val);
	/* No swap for the table, should the guest ever get some. */
	cg_write(cg, "memory.swap.max", "0\n");
	return ret;
}

/* ------------------------------------------------------------ fixture */

FIXTURE(scale) {
	uint64_t saved_max_entries;
	bool made_cgroups;
	bool enabled_memory;	/* +memory in the root's subtree_control */
	pid_t kids[4];		/* killed by the teardown if still there */
};

static void add_kid(FIXTURE_DATA(scale) *self, pid_t pid)
{
	unsigned int i;

	for (i = 0; i < sizeof(self->kids) / sizeof(self->kids[0]); i++) {
		if (!self->kids[i]) {
			self->kids[i] = pid;
			return;
		}
	}
}

FIXTURE_SETUP(scale)
{
	self->saved_max_entries = kav_param_max_entries();
	ASSERT_NE(0, self->saved_max_entries)
		TH_LOG("kav.ko not loaded (no max_entries parameter)");
	self->made_cgroups = false;
	self->enabled_memory = false;
	memset(self->kids, 0, sizeof(self->kids));
}

FIXTURE_TEARDOWN(scale)
{
	unsigned int i;

	/* A failed assertion may leave children waiting for us. */
	for (i = 0; i < sizeof(self->kids) / sizeof(self->kids[0]); i++) {
		if (self->kids[i] > 0 &&
		    waitpid(self->kids[i], NULL, WNOHANG) == 0) {
			kill(self->kids[i], SIGKILL);
			waitpid(self->kids[i], NULL, 0);
		}
	}
	if (self->saved_max_entries &&
	    kav_param_max_entries() != self->saved_max_entries)
		EXPECT_EQ(0, kav_set_param_max_entries(self->saved_max_entries));
	if (self->made_cgroups) {
		EXPECT_EQ(0, cg_remove(CG_LIMITED));
		EXPECT_EQ(0, cg_remove(CG_FREE));
	}
	if (self->enabled_memory)
		cg_write("", "cgroup.subtree_control", "-memory");
}

/* ------------------------------------------------ open and map cost */

/*
 * What one read-only open and mapping of a named AV cost its process:
 * minor faults (getrusage), resident pages of the process (statm) and
 * of the mapping (its smaps Rss, kB), after open + mmap and after each
 * touch. Before 6.2, statm lags (per-task RSS caches, synced every 64
 * events), so the touches are checked against the mapping's Rss, which
 * smaps counts from the page tables.
 */
struct open_cost {
	int err;			/* 0, or the step that failed */
	long open_faults;		/* open + mmap */
	long open_rss;
	long vma_rss_kb;
	long hdr_faults, hdr_rss;	/* touching the header page */
	long hdr_vma_rss_kb;
	long entry_faults, entry_rss;	/* then one entry page */
	long entry_vma_rss_kb;
	long fi_faults, fi_rss;		/* then one fi_addr page */
	long fi_vma_rss_kb;
	uint64_t map_size, nr_slots;
};

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static char proc_buf[1 << 16];

/* Resident pages, from /proc/self/statm. */
static long statm_resident(void)
{
	long size = 0, res = -1;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, proc_buf, sizeof(proc_buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	proc_buf[n] = '\0';
	if (sscanf(proc_buf, "%ld %ld", &size, &res) != 2)
		return -1;
	return res;
}

/* Rss (kB) of the mapping that starts at @start, from /proc/self/smaps. */
static long smaps_rss_kb(const void *start)
{
	char want[32];
	long rss = -1;
	bool in = false;
	FILE *f;
	char *line = proc_buf;

	snprintf(want, sizeof(want), "%lx-", (unsigned long)start);
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (fgets(line, 512, f)) {
		if (!strncmp(line, want, strlen(want)))
			in = true;
		else if (in && sscanf(line, "Rss: %ld kB", &rss) == 1)
			break;
	}
	fclose(f);
	return rss;
}

/*
 * In a new process: open the named AV @name read-only, map all of it,
 * touch the header page, one entry page and one fi_addr page, counting
 * minor faults and resident pages at each step.
 */
static int measure_open(const char *name, struct open_cost *oc)
{
	int p[2], status = 0;
	pid_t pid;

	memset(oc, 0, sizeof(*oc));
	if (pipe(p))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		struct open_cost r = { 0 };
		const struct kav_table_header *h;
		struct kav_av_create c;
		long f0, r0, f1, r1;
		volatile uint64_t sink;
		int dom, av;
		void *warm;

		close(p[0]);
		/* Warm up every call below (lazy binding, stack, buffers). */
		dom = kav_open_domain();
		av = kav_av_named(dom, name, KAV_AV_RDONLY, 0, 0, 0, &c);
		warm = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
		munmap(warm, PAGE);
		if (av >= 0)
			close(av);
		close(dom);
		smaps_rss_kb(NULL);
		statm_resident();
		minflt();

		r0 = statm_resident();
		f0 = minflt();
		dom = kav_open_domain();
		av = dom < 0 ? -1 : kav_av_named(dom, name, KAV_AV_RDONLY, 0, 0, 0, &c);
		h = av < 0 ? NULL : map_table(av, c.map_size);
		f1 = minflt();
		r1 = statm_resident();
		if (!h) {
			r.err = dom < 0 ? 1 : av < 0 ? 2 : 3;
			goto out;
		}
		r.open_faults = f1 - f0;
		r.open_rss = r1 - r0;
		r.map_size = c.map_size;
		r.vma_rss_kb = smaps_rss_kb(h);

		r0 = statm_resident();
		f0 = minflt();
		sink = h->nr_slots;		/* the header page */
		f1 = minflt();
		r1 = statm_resident();
		r.hdr_faults = f1 - f0;
		r.hdr_rss = r1 - r0;
		r.hdr_vma_rss_kb = smaps_rss_kb(h);
		r.nr_slots = sink;
		if (!r.nr_slots || h->magic != KAV_TABLE_MAGIC) {
			r.err = 4;
			goto out;
		}

		r0 = statm_resident();
		f0 = minflt();
		sink = kav_table_entry_of(h, r.nr_slots / 2)->flags;
		f1 = minflt();
		r1 = statm_resident();
		r.entry_faults = f1 - f0;
		r.entry_rss = r1 - r0;
		r.entry_vma_rss_kb = smaps_rss_kb(h);
		if (!(sink & KAV_ENTRY_VALID))
			r.err = 5;

		r0 = statm_resident();
		f0 = minflt();
		sink = kav_table_fi_addrs_of(h)[r.nr_slots / 2];
		f1 = minflt();
		r1 = statm_resident();
		r.fi_faults = f1 - f0;
		r.fi_rss = r1 - r0;
		if (sink != r.nr_slots / 2)
			r.err = 6;
		r.fi_vma_rss_kb = smaps_rss_kb(h);
out:
		_exit(kav_write_full(p[1], &r, sizeof(r)) ? 1 : 0);
	}
	close(p[1]);
	if (kav_read_full(p[0], oc, sizeof(*oc)))
		oc->err = -1;
	close(p[0]);
	waitpid(pid, &status, 0);
	return oc->err || !WIFEXITED(status) || WEXITSTATUS(status) ? -1 : 0;
}

static void print_open_cost(const char *what, const struct open_cost *oc)
{
	ksft_print_msg("%s (map_size %.1f MiB, %llu slots): open+mmap: %ld "
		       "minor faults, statm resident %+ld pages, mapping Rss "
		       "%ld kB; touch header: %ld fault(s), statm %+ld, Rss "
		       "%ld kB; + one entry page: %ld, %+ld, %ld kB; + one "
		       "fi_addr page: %ld, %+ld, %ld kB\n",
		       what, oc->map_size / MIB,
		       (unsigned long long)oc->nr_slots, oc->open_faults,
		       oc->open_rss, oc->vma_rss_kb, oc->hdr_faults,
		       oc->hdr_rss, oc->hdr_vma_rss_kb, oc->entry_faults,
		       oc->entry_rss, oc->entry_vma_rss_kb, oc->fi_faults,
		       oc->fi_rss, oc->fi_vma_rss_kb);
}

/* What every open, of a small AV or a huge one, must cost. */
static void check_open_cost(struct __test_metadata *_metadata,
			    const struct open_cost *oc)
{
	long page_kb = (long)(PAGE / 1024);

	ASSERT_EQ(0, oc->err);
	EXPECT_GT(OPEN_FAULTS_MAX, oc->open_faults);
	EXPECT_GT(OPEN_FAULTS_MAX, oc->open_rss);
	EXPECT_LE(0, oc->open_rss);
	EXPECT_EQ(0, oc->vma_rss_kb);
	/* Each touch: one fault, one more resident page, no neighbours. */
	EXPECT_EQ(1, oc->hdr_faults);
	EXPECT_EQ(page_kb, oc->hdr_vma_rss_kb);
	EXPECT_EQ(1, oc->entry_faults);
	EXPECT_EQ(2 * page_kb, oc->entry_vma_rss_kb);
	EXPECT_EQ(1, oc->fi_faults);
	EXPECT_EQ(3 * page_kb, oc->fi_vma_rss_kb);
}

/* ------------------------------------------------------------ a: 16M */

/* What the reader found, without remapping, after the table grew. */
struct reader_report {
	int err;		/* 0, or the step that failed */
	uint64_t nr_slots_before;
	uint64_t nr_slots, nr_valid, generation, max_entries, map_size;
	uint64_t checked, bad, first_bad;
	uint64_t last_fi_addr;
};

/*
 * The reader: opens the AV by name, maps all of it while it is empty,
 * says so, waits for the writer's "done" (the number of entries), then
 * checks a sample of the entries through that same mapping.
 */
static void reader(const char *name, int ready, int go)
{
	struct reader_report r = { 0 };
	const struct kav_table_header *h;
	struct kav_av_create c;
	uint64_t n = 0, step, k, idx;
	int dom, av;

	dom = kav_open_domain();
	av = dom < 0 ? -1 : kav_av_named(dom, name, KAV_AV_RDONLY, 0, 0, 0, &c);
	h = av < 0 ? NULL : map_table(av, c.map_size);
	if (!h) {
		r.err = 1;
		kav_write_full(ready, &r, sizeof(r));
		_exit(1);
	}
	r.nr_slots_before = load_acq(&h->nr_slots);
	if (kav_write_full(ready, &r, sizeof(r)) || kav_read_full(go, &n, sizeof(n)))
		_exit(1);

	r.nr_slots = load_acq(&h->nr_slots);
	r.nr_valid = h->nr_valid;
	r.generation = h->generation;
	r.max_entries = h->max_entries;
	r.map_size = h->map_size;
	if (r.nr_slots < n) {
		r.err = 2;
		goto out;
	}
	/* 64k samples spread over the table, at varying slots of a page. */
	step = n / 65536 ? n / 65536 : 1;
	for (k = 0; k * step < n; k++) {
		idx = k * step + k % 61;
		if (idx >= n)
			idx = n - 1;
		r.checked++;
		if (!entry_is(h, idx, idx, true) && !r.bad++)
			r.first_bad = idx;
	}
	for (idx = n > 64 ? n - 64 : 0; idx < n; idx++) {
		r.checked++;
		if (!entry_is(h, idx, idx, true) && !r.bad++)
			r.first_bad = idx;
	}
	r.last_fi_addr = load_acq(&kav_table_fi_addrs_of(h)[n - 1]);
out:
	_exit(kav_write_full(ready, &r, sizeof(r)) ? 1 : 0);
}

TEST_F_TIMEOUT(scale, a_16m_ipv6_entries, 290)
{
	static const char name[] = "kav_scale_16m";
	static struct sockaddr_in6 addrs[KAV_BATCH_MAX];
	static uint64_t fi[KAV_BATCH_MAX];
	uint64_t n = big_entries(), i, base, bad_fi = 0, gen, valid, pages;
	const struct kav_table_header *hdr;
	int to_reader[2], from_reader[2], dom, av, ret = 0, status;
	struct reader_report rr;
	struct kav_av_create c;
	struct open_cost oc;
	struct kav_nl_av_info ai;
	double t0, t_ins;
	pid_t pid;

	ASSERT_LT(0, n);
	ASSERT_GE(1ULL << 32, n);
	ASSERT_EQ(0, kav_set_param_max_entries(n));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	av = kav_av_named(dom, name, KAV_AV_EXCL, 0, 0, KAV_ADDR_SOCKADDR_IN6, &c);
	ASSERT_LE(0, av) TH_LOG("create %s: %s", name, strerror(-av));
	EXPECT_EQ(0, kav_set_param_max_entries(self->saved_max_entries));
	ASSERT_EQ(n, c.max_entries);
	ASSERT_EQ(ENTRY6, c.entry_size);
	pages = table_pages(n, ENTRY6);
	ASSERT_EQ(pages * PAGE, c.map_size);
	hdr = map_table(av, PAGE);		/* the header: generation */
	ASSERT_NE(NULL, hdr);

	/* The reader maps all of it while it is still empty. */
	ASSERT_EQ(0, pipe(to_reader));
	ASSERT_EQ(0, pipe(from_reader));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(to_reader[1]);
		close(from_reader[0]);
		reader(name, from_reader[1], to_reader[0]);
	}
	add_kid(self, pid);
	close(to_reader[0]);
	close(from_reader[1]);
	ASSERT_EQ(0, kav_read_full(from_reader[0], &rr, sizeof(rr)));
	ASSERT_EQ(0, rr.err);
	EXPECT_EQ(0, rr.nr_slots_before);

	/* 2^24 distinct addresses, KAV_BATCH_MAX at a time. */
	t0 = kav_now();
	for (base = 0; base < n; base += KAV_BATCH_MAX) {
		uint32_t cnt = n - base < KAV_BATCH_MAX ? (uint32_t)(n - base) :
			       KAV_BATCH_MAX;

		for (i = 0; i < cnt; i++)
			addr6(base + i, &addrs[i]);
		ret = insert_raw(av, addrs, sizeof(addrs[0]), cnt, fi);
		if (ret)
			break;
		for (i = 0; i < cnt; i++)
			bad_fi += fi[i] != base + i;
	}
	t_ins = kav_now() - t0;
	ASSERT_EQ(0, ret) TH_LOG("insert at %llu: %s",
				 (unsigned long long)base, strerror(-ret));
	EXPECT_EQ(0, bad_fi);
	ksft_print_msg("inserted %llu IPv6 entries in %llu batches: %.1f s, "
		       "%.0f entries/s\n", (unsigned long long)n,
		       (unsigned long long)div_up(n, KAV_BATCH_MAX), t_ins,
		       n / t_ins);
	EXPECT_EQ(n, hdr->nr_valid);
	EXPECT_EQ(n, hdr->nr_slots);

	/* Full: one more, alone or in a batch, is ENOSPC; nothing changes. */
	gen = hdr->generation;
	valid = hdr->nr_valid;
	addr6(n, &addrs[0]);
	EXPECT_EQ(-ENOSPC, insert_raw(av, addrs, sizeof(addrs[0]), 1, fi));
	for (i = 0; i < KAV_BATCH_MAX; i++)
		addr6(n + i, &addrs[i]);
	EXPECT_EQ(-ENOSPC, insert_raw(av, addrs, sizeof(addrs[0]),
				      KAV_BATCH_MAX, fi));
	EXPECT_EQ(gen, hdr->generation);
	EXPECT_EQ(valid, hdr->nr_valid);
	EXPECT_EQ(n, hdr->nr_slots);

	/* The reader, through the mapping it made before all this. */
	ASSERT_EQ(0, kav_write_full(to_reader[1], &n, sizeof(n)));
	ASSERT_EQ(0, kav_read_full(from_reader[0], &rr, sizeof(rr)));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_EQ(0, rr.err);
	EXPECT_EQ(n, rr.nr_slots);
	EXPECT_EQ(n, rr.nr_valid);
	EXPECT_EQ(gen, rr.generation);
	EXPECT_EQ(n, rr.max_entries);
	EXPECT_EQ(c.map_size, rr.map_size);
	EXPECT_LE(n < 65536 ? n : 65536, rr.checked);
	EXPECT_EQ(0, rr.bad) TH_LOG("first bad entry: %llu",
				    (unsigned long long)rr.first_bad);
	EXPECT_EQ(n - 1, rr.last_fi_addr);
	ksft_print_msg("reader (mapped before the first insert, never "
		       "remapped): %llu entries checked, %llu bad, "
		       "fi_addr[%llu] = %llu\n", (unsigned long long)rr.checked,
		       (unsigned long long)rr.bad, (unsigned long long)(n - 1),
		       (unsigned long long)rr.last_fi_addr);

	/* What the kernel says the table costs. */
	ASSERT_EQ(0, av_info(c.av_id, &ai));
	EXPECT_EQ(n, ai.nr_entries);
	EXPECT_EQ(ENTRY6 + FI_ADDR, ai.entry_bytes);
	EXPECT_EQ(table_bytes(n, ENTRY6), ai.mem);
	ksft_print_msg("AV_GET: KAV_A_MEM_BYTES %llu (%.1f MiB), "
		       "KAV_A_ENTRY_BYTES %u, %llu entries: %.2f bytes per "
		       "entry\n", (unsigned long long)ai.mem, ai.mem / MIB,
		       ai.entry_bytes, (unsigned long long)ai.nr_entries,
		       (double)ai.mem / ai.nr_entries);

	/* Opening it costs what opening a small one does. */
	ASSERT_EQ(0, measure_open(name, &oc)) TH_LOG("step %d", oc.err);
	print_open_cost(name, &oc);
	check_open_cost(_metadata, &oc);
	EXPECT_EQ(c.map_size, oc.map_size);

	close(to_reader[1]);
	close(from_reader[0]);
	munmap((void *)hdr, PAGE);
	close(av);
	close(dom);
}

/* ---------------------------------------------------- b: open cost */

/* A named IPv4 AV of @n entries (max_entries @n); its fd, or -errno. */
static int make_named4(int dom, const char *name, uint64_t n,
		       struct kav_av_create *c)
{
	static struct sockaddr_in addrs[KAV_BATCH_MAX];
	uint64_t base, i;
	int av, ret = 0;

	if (kav_set_param_max_entries(n))
		return -EIO;
	av = kav_av_named(dom, name, KAV_AV_EXCL, 0, 0, KAV_ADDR_SOCKADDR_IN, c);
	if (av < 0)
		return av;
	for (base = 0; base < n && !ret; base += KAV_BATCH_MAX) {
		uint32_t cnt = n - base < KAV_BATCH_MAX ? (uint32_t)(n - base) :
			       KAV_BATCH_MAX;

		for (i = 0; i < cnt; i++)
			addr4(base + i, &addrs[i]);
		ret = insert_raw(av, addrs, sizeof(addrs[0]), cnt, NULL);
	}
	if (ret) {
		close(av);
		return ret;
	}
	return av;
}

TEST_F_TIMEOUT(scale, b_open_cost_flat, 120)
{
	struct kav_av_create cs, cb;
	struct open_cost small, big;
	int dom, avs, avb;

	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	avs = make_named4(dom, "kav_scale_1k", 1024, &cs);
	ASSERT_LE(0, avs) TH_LOG("%s", strerror(-avs));
	avb = make_named4(dom, "kav_scale_1m", 1 << 20, &cb);
	ASSERT_LE(0, avb) TH_LOG("%s", strerror(-avb));
	ASSERT_EQ(0, kav_set_param_max_entries(self->saved_max_entries));
	ASSERT_LT(256 * cs.map_size, cb.map_size);

	ASSERT_EQ(0, measure_open("kav_scale_1k", &small))
		TH_LOG("step %d", small.err);
	ASSERT_EQ(0, measure_open("kav_scale_1m", &big))
		TH_LOG("step %d", big.err);
	print_open_cost("kav_scale_1k", &small);
	print_open_cost("kav_scale_1m", &big);
	check_open_cost(_metadata, &small);
	check_open_cost(_metadata, &big);
	EXPECT_EQ(cs.map_size, small.map_size);
	EXPECT_EQ(cb.map_size, big.map_size);
	EXPECT_EQ(1024, small.nr_slots);
	EXPECT_EQ(1 << 20, big.nr_slots);
	close(avs);
	close(avb);
	close(dom);
}

/* ----------------------------------------- c, d: who pays for pages */

#define PAID_ENTRIES	(1ULL << 20)	/* 40 MiB of table: > CG_LIMIT */

/* What a writer saw inserting into a named AV until an insert failed. */
struct fill_report {
	int err;		/* the insert that stopped it: -errno */
	int setup;		/* 0, or the setup step that failed */
	uint64_t inserted, bad_fi;
	uint64_t gen_before, gen_after;		/* around the failed insert */
	uint64_t valid_before, valid_after;
	uint64_t slots_after;
	uint64_t own_before, own_after;	/* its cgroup's memory.current */
	int reuse;		/* remove + insert again after the failure */
};

/*
 * The writer, in cgroup @cg: opens the AV @name read-write and inserts
 * IPv4 addresses KAV_BATCH_MAX at a time until an insert fails, then
 * checks that removing and inserting again still works.
 */
static void fill(const char *name, const char *cg, int go, int out)
{
	static struct sockaddr_in addrs[KAV_BATCH_MAX];
	static uint64_t fi[KAV_BATCH_MAX];
	const struct kav_table_header *h = NULL;
	struct fill_report r = { 0 };
	struct kav_av_create c;
	uint64_t base = 0, i;
	int dom, av = -1, ret = 0;
	char x;

	if (kav_read_full(go, &x, 1))	/* moved into @cg by the parent */
		_exit(1);
	dom = kav_open_domain();
	if (dom < 0)
		r.setup = 1;
	else if ((av = kav_av_named(dom, name, 0, 0, 0, KAV_ADDR_SOCKADDR_IN, &c)) < 0)
		r.setup = 2;
	else if (!(h = map_table(av, PAGE)))
		r.setup = 3;
	if (r.setup)
		goto out;
	memset(addrs, 0, sizeof(addrs));
	memset(fi, 0, sizeof(fi));
	r.own_before = cg_read_u64(cg, "memory.current");
	while (!ret) {
		for (i = 0; i < KAV_BATCH_MAX; i++)
			addr4(base + i, &addrs[i]);
		r.gen_before = h->generation;
		r.valid_before = h->nr_valid;
		ret = insert_raw(av, addrs, sizeof(addrs[0]), KAV_BATCH_MAX,
				 fi);
		if (ret)
			break;
		for (i = 0; i < KAV_BATCH_MAX; i++)
			r.bad_fi += fi[i] != base + i;
		base += KAV_BATCH_MAX;
	}
	r.own_after = cg_read_u64(cg, "memory.current");
	r.err = ret;
	r.inserted = base;
	r.gen_after = h->generation;
	r.valid_after = h->nr_valid;
	r.slots_after = h->nr_slots;
	/* Pages that exist can be used again: remove 16, insert them back. */
	if (base >= 16) {
		for (i = 0; i < 16; i++) {
			fi[i] = base - 16 + i;
			addr4(base - 16 + i, &addrs[i]);
		}
		r.reuse = kav_remove(av, fi, 16, NULL) ?:
			  insert_raw(av, addrs, sizeof(addrs[0]), 16, fi);
		for (i = 0; !r.reuse && i < 16; i++)
			if (fi[i] != base - 16 + i)
				r.reuse = -EBADSLT;
	}
out:
	kav_write_full(out, &r, sizeof(r));
	/* Stay (holding the AV open) until the parent has looked. */
	kav_read_full(go, &x, 1);
	_exit(0);
}

/* Fork fill() into @cg; its pid, or -1. */
static pid_t start_fill(const char *name, const char *cg, int *go, int *out)
{
	int g[2], o[2];
	pid_t pid;

	if (pipe(g) || pipe(o))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(g[1]);
		close(o[0]);
		fill(name, cg, g[0], o[1]);
	}
	close(g[0]);
	close(o[1]);
	*go = g[1];
	*out = o[0];
	if (cg_move(cg, pid) || kav_write_full(*go, "g", 1)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* Every entry of a table that @r's writer filled is what it inserted. */
static uint64_t check_filled(const struct kav_table_header *h,
			     const struct fill_report *r)
{
	const __u64 *fi = kav_table_fi_addrs_of(h);
	uint64_t idx, bad = 0;

	for (idx = 0; idx < r->valid_after; idx++)
		bad += !entry_is(h, idx, idx, false);
	for (; idx < load_acq(&h->nr_slots); idx++)
		bad += kav_table_entry_of(h, idx)->flags != 0 ||
		       load_acq(&fi[idx]) != KAV_NONE;
	return bad;
}

TEST_F_TIMEOUT(scale, c_writer_not_charged, 200)
{
	static const char name[] = "kav_scale_rootpaid";
	const char *why = cg_memory_ready(&self->enabled_memory);
	struct kav_av_create c;
	struct fill_report r;
	struct kav_nl_av_info ai;
	int dom, av, go, out, status;
	pid_t pid;

	if (why)
		SKIP(return, "%s", why);
	self->made_cgroups = true;
	ASSERT_EQ(0, cg_make(CG_LIMITED, CG_LIMIT));

	/* Created here, in the root cgroup. */
	ASSERT_EQ(0, kav_set_param_max_entries(PAID_ENTRIES));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	av = kav_av_named(dom, name, KAV_AV_EXCL, 0, 0, KAV_ADDR_SOCKADDR_IN, &c);
	ASSERT_LE(0, av) TH_LOG("%s", strerror(-av));
	ASSERT_EQ(0, kav_set_param_max_entries(self->saved_max_entries));

	/* Filled from the limited cgroup: up to max_entries, 40 MiB. */
	pid = start_fill(name, CG_LIMITED, &go, &out);
	ASSERT_LT(0, pid);
	add_kid(self, pid);
	ASSERT_EQ(0, kav_read_full(out, &r, sizeof(r)));
	EXPECT_EQ(0, r.setup);
	EXPECT_EQ(-ENOSPC, r.err) TH_LOG("insert after %llu entries: %s",
					 (unsigned long long)r.inserted,
					 strerror(-r.err));
	EXPECT_EQ(PAID_ENTRIES, r.inserted);
	EXPECT_EQ(0, r.bad_fi);
	EXPECT_EQ(r.gen_before, r.gen_after);
	EXPECT_EQ(r.valid_before, r.valid_after);
	EXPECT_EQ(0, r.reuse);
	ASSERT_EQ(0, av_info(c.av_id, &ai));
	EXPECT_EQ(table_bytes(PAID_ENTRIES, ENTRY4), ai.mem);
	EXPECT_LT(CG_LIMIT, ai.mem);
	/* The writer's cgroup paid for none of it. */
	EXPECT_GT((int64_t)(CG_LIMIT / 8),
		  (int64_t)(r.own_after - r.own_before));
	ksft_print_msg("writer in a %llu MiB cgroup, AV created in the root "
		       "cgroup: %llu entries, table %.1f MiB "
		       "(KAV_A_MEM_BYTES), "
		       "writer's memory.current %+.2f MiB, stopped by %s\n",
		       CG_LIMIT >> 20, (unsigned long long)r.inserted,
		       ai.mem / MIB,
		       ((double)r.own_after - (double)r.own_before) / MIB,
		       strerror(-r.err));
	ksft_print_msg("limited cgroup memory.events: max %llu, oom %llu, "
		       "oom_kill %llu\n",
		       (unsigned long long)cg_read_key(CG_LIMITED,
						       "memory.events", "max"),
		       (unsigned long long)cg_read_key(CG_LIMITED,
						       "memory.events", "oom"),
		       (unsigned long long)cg_read_key(CG_LIMITED,
						       "memory.events",
						       "oom_kill"));
	EXPECT_EQ(0, cg_read_key(CG_LIMITED, "memory.events", "oom_kill"));

	close(go);
	close(out);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	close(av);
	close(dom);
}

/* The creator, in the limited cgroup: creates @name, reports its id. */
static void creator(const char *name, int go, int out)
{
	struct kav_av_create c = { 0 };
	int dom, av;
	char x;

	if (kav_read_full(go, &x, 1))
		_exit(1);
	if (kav_set_param_max_entries(PAID_ENTRIES))
		_exit(2);
	dom = kav_open_domain();
	av = dom < 0 ? dom : kav_av_named(dom, name, KAV_AV_EXCL, 0, 0,
				      KAV_ADDR_SOCKADDR_IN, &c);
	kav_write_full(out, &av, sizeof(av));
	kav_write_full(out, &c, sizeof(c));
	/* Keep the AV and stay in the cgroup until told to go. */
	kav_read_full(go, &x, 1);
	_exit(av < 0);
}

/* Fork creator() into @cg; its pid, or -1. */
static pid_t start_creator(const char *name, const char *cg, int *go,
			   int *out)
{
	int g[2], o[2];
	pid_t pid;

	if (pipe(g) || pipe(o))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(g[1]);
		close(o[0]);
		creator(name, g[0], o[1]);
	}
	close(g[0]);
	close(o[1]);
	*go = g[1];
	*out = o[0];
	if (cg_move(cg, pid) || kav_write_full(*go, "g", 1)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

TEST_F_TIMEOUT(scale, d_creator_pays, 200)
{
	static const char name[] = "kav_scale_creatorpaid";
	const char *why = cg_memory_ready(&self->enabled_memory);
	uint64_t cur0, cur1, kern0, kern1, ev_oom_kill, ev_oom, bad;
	const struct kav_table_header *h;
	int cgo, cout, fgo, fout, dom, av, status, cav = -1;
	struct kav_nl_av_info a0, a1;
	struct kav_av_create c;
	struct fill_report r;
	pid_t cpid, fpid;
	int64_t grew, paid;

	if (why)
		SKIP(return, "%s", why);
	self->made_cgroups = true;
	ASSERT_EQ(0, cg_make(CG_LIMITED, CG_LIMIT));
	ASSERT_EQ(0, cg_make(CG_FREE, 0));

	/* The creator, alone in the limited cgroup. */
	cpid = start_creator(name, CG_LIMITED, &cgo, &cout);
	ASSERT_LT(0, cpid);
	add_kid(self, cpid);
	ASSERT_EQ(0, kav_read_full(cout, &cav, sizeof(cav)));
	ASSERT_EQ(0, kav_read_full(cout, &c, sizeof(c)));
	EXPECT_EQ(0, kav_set_param_max_entries(self->saved_max_entries));
	ASSERT_LE(0, cav) TH_LOG("creator: %s", strerror(-cav));
	ASSERT_EQ(KAV_AV_CREATED, c.result);
	ASSERT_EQ(PAID_ENTRIES, c.max_entries);

	/* We hold it too, read-only, in the root cgroup, to look at it. */
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	av = kav_av_named(dom, name, KAV_AV_RDONLY, 0, 0, 0, NULL);
	ASSERT_LE(0, av);
	h = map_table(av, c.map_size);
	ASSERT_NE(NULL, h);

	ASSERT_EQ(0, av_info(c.av_id, &a0));
	cur0 = cg_read_u64(CG_LIMITED, "memory.current");
	kern0 = cg_read_key(CG_LIMITED, "memory.stat", "kernel");
	ASSERT_NE(UINT64_MAX, cur0);

	/* A writer outside the limited cgroup fills it until it fails. */
	fpid = start_fill(name, CG_FREE, &fgo, &fout);
	ASSERT_LT(0, fpid);
	add_kid(self, fpid);
	ASSERT_EQ(0, kav_read_full(fout, &r, sizeof(r)));
	ASSERT_EQ(0, r.setup);
	ASSERT_EQ(0, av_info(c.av_id, &a1));
	cur1 = cg_read_u64(CG_LIMITED, "memory.current");
	kern1 = cg_read_key(CG_LIMITED, "memory.stat", "kernel");
	ev_oom = cg_read_key(CG_LIMITED, "memory.events", "oom");
	ev_oom_kill = cg_read_key(CG_LIMITED, "memory.events", "oom_kill");
	grew = (int64_t)(cur1 - cur0);
	paid = (int64_t)(a1.mem - a0.mem);

	ksft_print_msg("AV created in a %llu MiB cgroup, filled from "
		       "another: %llu entries, then %s; table %.2f -> %.2f MiB "
		       "(KAV_A_MEM_BYTES); creator's memory.current %.2f -> "
		       "%.2f MiB (%+.2f), memory.stat kernel %+.2f MiB; "
		       "writer's memory.current %+.2f MiB\n",
		       CG_LIMIT >> 20, (unsigned long long)r.inserted,
		       strerror(-r.err), a0.mem / MIB, a1.mem / MIB,
		       cur0 / MIB, cur1 / MIB, grew / MIB,
		       kern0 == UINT64_MAX || kern1 == UINT64_MAX ? 0.0 :
		       ((double)kern1 - (double)kern0) / MIB,
		       ((double)r.own_after - (double)r.own_before) / MIB);
	ksft_print_msg("creator's memory.events: oom %llu, oom_kill %llu\n",
		       (unsigned long long)ev_oom,
		       (unsigned long long)ev_oom_kill);

	/*
	 * The batch that hit the limit failed whole: "on error nothing was
	 * inserted", and the generation only moves for completed batches
	 * (uapi/linux/kav.h), so readers see no change at all.
	 */
	EXPECT_EQ(-ENOMEM, r.err) TH_LOG("after %llu entries: %s",
					 (unsigned long long)r.inserted,
					 strerror(-r.err));
	EXPECT_LT(0, r.inserted);
	EXPECT_GT(PAID_ENTRIES, r.inserted);
	EXPECT_EQ(0, r.bad_fi);
	EXPECT_EQ(r.valid_before, r.valid_after);
	EXPECT_EQ(r.inserted, r.valid_after);
	EXPECT_EQ(r.gen_before, r.gen_after)
		TH_LOG("a failed batch moved the generation");
	EXPECT_EQ(r.inserted, a1.nr_entries);

	/* The creator's cgroup paid for the table's pages... */
	EXPECT_LT((int64_t)(CG_LIMIT / 2), paid);
	EXPECT_GT(2 << 20, llabs(grew - paid))
		TH_LOG("memory.current grew %lld, the table %lld",
		       (long long)grew, (long long)paid);
	/* ...the writer's did not. */
	EXPECT_GT((int64_t)(CG_LIMIT / 8),
		  (int64_t)(r.own_after - r.own_before));
	/*
	 * And nobody in the creator's cgroup was killed for it: the writer's
	 * insert fails, the creator's processes, which did not ask for the
	 * memory, live on (no memcg OOM kill on a writer's behalf).
	 */
	EXPECT_EQ(0, waitpid(cpid, &status, WNOHANG))
		TH_LOG("the creator died: %s", WIFSIGNALED(status) ?
		       strsignal(WTERMSIG(status)) : "exited");
	EXPECT_EQ(0, ev_oom_kill);

	/* Consistent, and usable in the pages it has. */
	EXPECT_EQ(r.inserted, h->nr_valid);
	EXPECT_EQ(0, h->generation & 1);
	bad = check_filled(h, &r);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, r.reuse);

	/* Done: the writer, the creator, then our own open. */
	close(fgo);
	close(fout);
	ASSERT_EQ(fpid, waitpid(fpid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	close(cgo);
	close(cout);
	waitpid(cpid, &status, 0);
	munmap((void *)h, c.map_size);
	close(av);
	close(dom);
}

TEST_HARNESS_MAIN
