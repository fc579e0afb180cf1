// SPDX-License-Identifier: GPL-2.0
/*
 * What a shared AV costs when many processes use it: one creator fills a
 * named AV of 2^20 IPv4 entries, then N processes (64; env
 * KAV_MEMORY_PROCS) open it by name read-only, map all of it and read
 * every page of entries and of the fi_addr array. While all of them are
 * alive, each reports the Rss and Pss of that mapping (/proc/self/smaps)
 * and its total Pss (/proc/self/smaps_rollup); the kernel reports the
 * table's memory (netlink AV_GET, KAV_A_MEM_BYTES).
 *
 * Asserted, all about sharing and none about time: each process's mapping
 * is resident exactly for the pages it touched, all of them shared and
 * none anonymous (no copies); the mappings' Pss adds up to one copy of the
 * table (within 10%); the table plus everything else the N processes use
 * is less than two copies of the table.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_nl_util.h"
#include "kav_proc_mem.h"

#define PAGE		((uint64_t)sysconf(_SC_PAGESIZE))
#define MIB		(1024.0 * 1024.0)
#define ENTRIES		(1ULL << 20)
#define PROCS_DEFAULT	64
#define PROCS_MAX	1024
#define AV_NAME		"kav_memory_shared"

static unsigned int nr_procs(void)
{
	const char *env = getenv("KAV_MEMORY_PROCS");
	unsigned long n = env && *env ? strtoul(env, NULL, 0) : PROCS_DEFAULT;

	return n < 1 ? 1 : n > PROCS_MAX ? PROCS_MAX : (unsigned int)n;
}

static struct sockaddr_in addr4(uint64_t i)
{
	return kav_sin(0x0a000000u + (uint32_t)i, (uint16_t)(1 + i % 65521));
}

/* Is entry @idx valid and address @idx (the uAPI's sequence protocol)? */
static bool entry_ok(const struct kav_table_header *h, uint64_t idx)
{
	const struct kav_entry *e = kav_table_entry_of(h, idx);
	struct sockaddr_in want = addr4(idx), got;
	uint32_t flags, len;
	uint64_t s1, s2;
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
		flags = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
		len = __atomic_load_n(&e->addr_len, __ATOMIC_RELAXED);
		memcpy(&got, (const void *)e->addr, sizeof(got));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
		if (s1 == s2 && !(s1 & 1))
			return flags == KAV_ENTRY_VALID && len == sizeof(got) &&
			       !memcmp(&got, &want, sizeof(got));
	}
	return false;
}

/* ------------------------------------------------------------ netlink */

/* AV_GET for one AV: 0 or -errno (-ENOENT when it is not listed). */
static int av_info(uint32_t av_id, struct kav_nl_av_info *ai)
{
	memset(ai, 0, sizeof(*ai));
	ai->av_id = av_id;
	return kav_nl_av_info(ai);
}

/* ------------------------------------------------------------ readers */

/* One reader's report (smaller than PIPE_BUF: written at once). */
struct report {
	int err;			/* 0, or the step that failed */
	unsigned int id;
	uint64_t nr_slots, touched, bad, map_size;
	struct kav_vma_mem kav;		/* its kav mapping, kB */
	long total_pss;			/* smaps_rollup Pss, kB */
	long pte;			/* VmPTE, kB */
};

struct pipes {
	int touched[2];		/* reader -> parent: one byte, touched all */
	int barrier[2];		/* parent -> readers: one byte each, report */
	int reports[2];		/* reader -> parent: struct report */
	int done[2];		/* parent closes it: exit */
};

/*
 * A reader: open the AV by name read-only, map all of it, read one entry
 * of every entry page and one fi_addr of every fi_addr page; once all
 * readers have, report the mapping's memory; stay mapped until all have
 * reported.
 */
static void reader(unsigned int id, const struct pipes *p)
{
	const struct kav_table_header *h = NULL;
	struct report r = { .id = id };
	struct kav_av_create c = {
		.size = sizeof(c),
		.flags = KAV_AV_NAMED | KAV_AV_RDONLY,
		.name = (uintptr_t)AV_NAME,
		.name_len = sizeof(AV_NAME) - 1,
	};
	uint64_t epp, pages, pg, idx;
	const __u64 *fi;
	void *map;
	char x;
	int dom;

	close(p->touched[0]);
	close(p->barrier[1]);
	close(p->reports[0]);
	close(p->done[1]);

	dom = kav_open_domain();
	if (dom < 0 || ioctl(dom, KAV_IOC_AV_CREATE, &c)) {
		r.err = 1;
		goto touched;
	}
	map = mmap(NULL, c.map_size, PROT_READ, MAP_SHARED, c.fd, 0);
	if (map == MAP_FAILED) {
		r.err = 2;
		goto touched;
	}
	h = map;
	r.map_size = c.map_size;
	r.nr_slots = __atomic_load_n(&h->nr_slots, __ATOMIC_ACQUIRE);
	if (h->magic != KAV_TABLE_MAGIC || !h->entry_size) {
		r.err = 3;
		goto touched;
	}
	r.touched = 1;				/* the header page */
	epp = PAGE / h->entry_size;
	pages = (r.nr_slots + epp - 1) / epp;
	for (pg = 0; pg < pages; pg++) {	/* every entry page */
		idx = pg * epp + pg % epp;
		if (idx >= r.nr_slots)
			idx = r.nr_slots - 1;
		r.bad += !entry_ok(h, idx);
		r.touched++;
	}
	fi = kav_table_fi_addrs_of(h);
	epp = PAGE / sizeof(*fi);
	pages = (r.nr_slots + epp - 1) / epp;
	for (pg = 0; pg < pages; pg++) {	/* every fi_addr page */
		idx = pg * epp + pg % epp;
		if (idx >= r.nr_slots)
			idx = r.nr_slots - 1;
		r.bad += __atomic_load_n(&fi[idx], __ATOMIC_ACQUIRE) != idx;
		r.touched++;
	}
touched:
	if (kav_write_full(p->touched[1], "t", 1) ||
	    kav_read_full(p->barrier[0], &x, 1))
		_exit(1);
	/* Every reader has touched everything: the sharing is complete. */
	if (!r.err && kav_smaps_vma(h, &r.kav))
		r.err = 4;
	r.total_pss = kav_proc_kb("/proc/self/smaps_rollup", "Pss");
	r.pte = kav_proc_kb("/proc/self/status", "VmPTE");
	if (!r.err && r.total_pss < 0)
		r.err = 5;
	if (kav_write_full(p->reports[1], &r, sizeof(r)))
		_exit(1);
	kav_read_full(p->done[0], &x, 1);		/* EOF: all have reported */
	_exit(0);
}

/* ------------------------------------------------------------ the test */

FIXTURE(mem) {
	uint64_t saved_max_entries;
	pid_t *kids;
	unsigned int nr_kids;
};

FIXTURE_SETUP(mem)
{
	self->saved_max_entries = kav_param_max_entries();
	ASSERT_NE(0, self->saved_max_entries)
		TH_LOG("kav.ko not loaded (no max_entries parameter)");
	self->nr_kids = 0;
	self->kids = calloc(PROCS_MAX, sizeof(*self->kids));
	ASSERT_NE(NULL, self->kids);
}

FIXTURE_TEARDOWN(mem)
{
	unsigned int i;

	for (i = 0; i < self->nr_kids; i++) {
		if (self->kids[i] > 0 &&
		    waitpid(self->kids[i], NULL, WNOHANG) == 0) {
			kill(self->kids[i], SIGKILL);
			waitpid(self->kids[i], NULL, 0);
		}
	}
	free(self->kids);
	if (self->saved_max_entries &&
	    kav_param_max_entries() != self->saved_max_entries)
		EXPECT_EQ(0, kav_set_param_max_entries(self->saved_max_entries));
}

TEST_F_TIMEOUT(mem, shared_by_many_processes, 280)
{
	static struct sockaddr_in addrs[KAV_BATCH_MAX];
	static struct report rep[PROCS_MAX];
	unsigned int n = nr_procs(), i, got = 0, failed = 0;
	long pss_min = -1, pss_max = 0, page_kb = (long)(PAGE / 1024);
	uint64_t base, j, table, sum_kav = 0, sum_other = 0, sum_pte = 0;
	uint64_t total, copies;
	struct kav_av_create c = {
		.size = sizeof(c),
		.flags = KAV_AV_NAMED | KAV_AV_EXCL,
		.addr_format = KAV_ADDR_SOCKADDR_IN,
		.name = (uintptr_t)AV_NAME,
		.name_len = sizeof(AV_NAME) - 1,
	};
	struct pipes p;
	struct kav_nl_av_info ai;
	double t0, t_touch;
	int dom, status;
	char x;

	/* The creator: 2^20 entries, max_entries 2^20, never mapped here. */
	ASSERT_EQ(0, kav_set_param_max_entries(ENTRIES));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	ASSERT_EQ(0, ioctl(dom, KAV_IOC_AV_CREATE, &c))
		TH_LOG("create: %s", strerror(errno));
	ASSERT_EQ(0, kav_set_param_max_entries(self->saved_max_entries));
	ASSERT_EQ(ENTRIES, c.max_entries);
	for (base = 0; base < ENTRIES; base += KAV_BATCH_MAX) {
		for (j = 0; j < KAV_BATCH_MAX; j++)
			addrs[j] = addr4(base + j);
		ASSERT_EQ(0, kav_insert_in(c.fd, addrs, KAV_BATCH_MAX, NULL,
					   NULL));
	}

	ASSERT_EQ(0, pipe(p.touched));
	ASSERT_EQ(0, pipe(p.barrier));
	ASSERT_EQ(0, pipe(p.reports));
	ASSERT_EQ(0, pipe(p.done));
	fflush(stdout);
	fflush(stderr);
	t0 = kav_now();
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid)
			reader(i, &p);
		self->kids[self->nr_kids++] = pid;
	}
	close(p.touched[1]);
	close(p.barrier[0]);
	close(p.reports[1]);
	close(p.done[0]);

	/* All have touched everything; then all report, still mapped. */
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, kav_read_full(p.touched[0], &x, 1));
	t_touch = kav_now() - t0;
	for (i = 0; i < n; i++)
		ASSERT_EQ(0, kav_write_full(p.barrier[1], "r", 1));
	for (i = 0; i < n; i++) {
		struct report r;

		ASSERT_EQ(0, kav_read_full(p.reports[0], &r, sizeof(r)));
		ASSERT_GT(n, r.id);
		rep[r.id] = r;
		got++;
	}
	ASSERT_EQ(0, av_info(c.av_id, &ai));
	close(p.done[1]);			/* now they may go */
	for (i = 0; i < self->nr_kids; i++) {
		ASSERT_EQ(self->kids[i], waitpid(self->kids[i], &status, 0));
		failed += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	self->nr_kids = 0;
	EXPECT_EQ(0, failed);
	EXPECT_EQ(n, got);
	EXPECT_EQ(ENTRIES, ai.nr_entries);
	EXPECT_EQ(1 + n, ai.nr_open);

	/* Each reader: resident exactly what it touched, all of it shared. */
	table = ai.mem;
	for (i = 0; i < n; i++) {
		const struct report *r = &rep[i];

		ASSERT_EQ(0, r->err) TH_LOG("reader %u: step %d", i, r->err);
		EXPECT_EQ(ENTRIES, r->nr_slots);
		EXPECT_EQ(0, r->bad) TH_LOG("reader %u", i);
		EXPECT_EQ(c.map_size, r->map_size);
		EXPECT_EQ((long)(r->map_size / 1024), r->kav.size);
		EXPECT_EQ((long)r->touched * page_kb, r->kav.rss)
			TH_LOG("reader %u", i);
		EXPECT_EQ(0, r->kav.anon);
		if (n > 1) {
			EXPECT_EQ(r->kav.rss, r->kav.shared);
			EXPECT_EQ(0, r->kav.private);
		}
		/* Its share: 1/n of the mapping, give or take rounding. */
		EXPECT_GE(r->kav.rss / n + page_kb, r->kav.pss)
			TH_LOG("reader %u: Pss %ld kB of Rss %ld kB", i,
			       r->kav.pss, r->kav.rss);
		EXPECT_LE(r->kav.pss, r->total_pss);
		sum_kav += (uint64_t)r->kav.pss * 1024;
		sum_other += (uint64_t)(r->total_pss - r->kav.pss) * 1024;
		sum_pte += r->pte > 0 ? (uint64_t)r->pte * 1024 : 0;
		pss_min = pss_min < 0 || r->kav.pss < pss_min ? r->kav.pss :
			  pss_min;
		pss_max = r->kav.pss > pss_max ? r->kav.pss : pss_max;
	}
	/*
	 * The mapping is the table: every page of it, and besides it only
	 * the kernel's unmapped used-slot bitmap (a bit per slot).
	 */
	EXPECT_EQ(rep[0].touched * PAGE +
		  (ENTRIES + PAGE * 8 - 1) / (PAGE * 8) * PAGE, table);
	total = table + sum_other;
	copies = (uint64_t)n * table;

	ksft_print_msg("%u processes map one named AV of %llu IPv4 entries "
		       "(map_size %.1f MiB) and read every page of it; touched "
		       "after %.1f s\n", n, (unsigned long long)ENTRIES,
		       c.map_size / MIB, t_touch);
	ksft_print_msg("  table, kernel memory (AV_GET KAV_A_MEM_BYTES) "
		       "%12llu B %9.2f MiB  (%u B per entry slot)\n",
		       (unsigned long long)table, table / MIB, ai.entry_bytes);
	ksft_print_msg("  kav mapping per process: Rss %ld kB, "
		       "Pss %ld..%ld kB\n",
		       rep[0].kav.rss, pss_min, pss_max);
	ksft_print_msg("  sum of kav-mapping PSS, %4u processes  "
		       "%12llu B %9.2f MiB  %.3f x the table\n", n,
		       (unsigned long long)sum_kav, sum_kav / MIB,
		       (double)sum_kav / table);
	ksft_print_msg("  sum of the processes' other PSS         "
		       "%12llu B %9.2f MiB\n", (unsigned long long)sum_other,
		       sum_other / MIB);
	ksft_print_msg("  total = table + other PSS               "
		       "%12llu B %9.2f MiB\n", (unsigned long long)total,
		       total / MIB);
	ksft_print_msg("  page tables (VmPTE, kernel, not in PSS) "
		       "%12llu B %9.2f MiB\n", (unsigned long long)sum_pte,
		       sum_pte / MIB);
	ksft_print_msg("  total vs one copy of the table: %.3f x; vs %u "
		       "private copies (%.1f MiB): %.4f x\n",
		       (double)total / table, n, copies / MIB,
		       (double)total / copies);

	/* One copy, split n ways. */
	EXPECT_GE(table / 10, sum_kav > table ? sum_kav - table :
			      table - sum_kav)
		TH_LOG("sum of Pss %llu B, table %llu B",
		       (unsigned long long)sum_kav, (unsigned long long)table);
	/* The table and all else the processes use: less than two copies. */
	EXPECT_GT(2 * table, total);

	close(p.touched[0]);
	close(p.barrier[1]);
	close(p.reports[0]);
	close(c.fd);
	close(dom);
}

TEST_HARNESS_MAIN
