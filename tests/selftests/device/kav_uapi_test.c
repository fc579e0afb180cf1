// SPDX-License-Identifier: GPL-2.0
/*
 * kav uAPI selftests: every ioctl's good and bad inputs, the table layout,
 * and the read-only mapping, through /dev/kav with raw system calls.
 * Every rejected call must also leave the table unchanged.
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_test_grants.h"

#define PAGE	((size_t)sysconf(_SC_PAGESIZE))

static const volatile struct kav_entry *
entry_at(const volatile struct kav_table_header *h, uint64_t idx)
{
	return (const volatile void *)((const volatile char *)h +
				       h->header_size + idx * h->entry_size);
}

static int count_open_fds(void)
{
	int n = 0, fd;

	for (fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			n++;
	return n;
}

TEST(device_open_close)
{
	int a = kav_open_domain();
	int b = kav_open_domain();

	ASSERT_LE(0, a) TH_LOG("open %s: %s", kav_test_device(), strerror(errno));
	ASSERT_LE(0, b);
	EXPECT_NE(a, b);
	EXPECT_EQ(0, close(a));
	EXPECT_EQ(0, close(b));
}

TEST(create_defaults_per_format)
{
	static const struct { uint32_t fmt, entry; } want[] = {
		{ KAV_ADDR_SOCKADDR, 64 }, { KAV_ADDR_SOCKADDR_IN, 32 },
		{ KAV_ADDR_SOCKADDR_IN6, 64 }, { KAV_ADDR_STR, 128 },
	};
	uint64_t max = kav_param_max_entries();
	int dom = kav_open_domain();
	size_t i;

	ASSERT_LE(0, dom);
	ASSERT_NE(0, max);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const volatile struct kav_table_header *h;
		struct kav_av_create c;
		int av = kav_create_av(dom, want[i].fmt, &c);
		uint64_t entries_bytes = max * want[i].entry;
		/* Header page, entries, then one fi_addr per entry. */
		uint64_t fi_off = PAGE + ((entries_bytes + PAGE - 1) &
					  ~(PAGE - 1));

		ASSERT_LE(0, av);
		EXPECT_EQ(av, c.fd);
		EXPECT_EQ(want[i].entry, c.entry_size);
		EXPECT_EQ(max, c.max_entries);
		EXPECT_EQ(fi_off + ((max * 8 + PAGE - 1) & ~(PAGE - 1)),
			  c.map_size);
		EXPECT_EQ(KAV_AV_CREATED, c.result);
		EXPECT_NE(0, c.av_id);
		h = kav_map_header(av);
		ASSERT_NE(NULL, h);
		EXPECT_EQ(fi_off, h->fi_addrs_offset);
		EXPECT_EQ(c.map_size, h->map_size);
		munmap((void *)h, PAGE);
		EXPECT_EQ(FD_CLOEXEC, fcntl(av, F_GETFD) & FD_CLOEXEC);
		close(av);
	}
	close(dom);
}

TEST(create_addr_max_limits)
{
	static const struct { uint32_t fmt, max; int err; uint32_t entry; } t[] = {
		{ KAV_ADDR_STR, KAV_ADDR_MAX_LEN, 0, 512 },
		{ KAV_ADDR_STR, KAV_ADDR_MAX_LEN + 1, EINVAL, 0 },
		{ KAV_ADDR_STR, 1, EINVAL, 0 },
		{ KAV_ADDR_SOCKADDR_IN, 15, EINVAL, 0 },
		{ KAV_ADDR_SOCKADDR_IN6, 27, EINVAL, 0 },
		{ KAV_ADDR_SOCKADDR, 16, EINVAL, 0 },
		{ KAV_ADDR_SOCKADDR_IN, 112, 0, 128 },	/* 16 + 112 */
		{ KAV_ADDR_SOCKADDR_IN, 113, 0, 256 },
	};
	int dom = kav_open_domain();
	size_t i;

	ASSERT_LE(0, dom);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct kav_av_create c = {
			.size = sizeof(c),
			.addr_format = t[i].fmt,
			.addr_max = t[i].max,
		};
		int ret = ioctl(dom, KAV_IOC_AV_CREATE, &c);

		if (t[i].err) {
			EXPECT_EQ(-1, ret) TH_LOG("case %zu", i);
			EXPECT_EQ(t[i].err, errno);
		} else {
			ASSERT_EQ(0, ret) TH_LOG("case %zu: %s", i, strerror(errno));
			EXPECT_EQ(t[i].entry, c.entry_size);
			close(c.fd);
		}
	}
	close(dom);
}

TEST(create_bad_format)
{
	static const uint32_t bad[] = { 0, KAV_ADDR_STR + 1, 0xffffffffu };
	int dom = kav_open_domain();
	size_t i;

	ASSERT_LE(0, dom);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, kav_create_av(dom, bad[i], NULL));
	close(dom);
}

TEST(create_bad_flags)
{
	/* Unknown flags; the named-AV flags are kav_named_test's. */
	static const uint32_t bad[] = { 0x8, 0x80000000u, 0xffffffffu };
	int dom = kav_open_domain();
	size_t i;

	ASSERT_LE(0, dom);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kav_av_create c = {
			.size = sizeof(c),
			.flags = bad[i],
			.addr_format = KAV_ADDR_SOCKADDR_IN,
		};

		EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, &c));
		EXPECT_EQ(EINVAL, errno);
	}
	close(dom);
}

/*
 * count is a hint (a job table sizes its index from it), but no table
 * holds 2^32 entries: a count above 2^32 - 1 is refused, not clamped.
 */
TEST(create_count_limits)
{
	static const uint64_t bad[] = { 1ULL << 32, ~0ULL };
	struct kav_av_create c;
	int dom = kav_open_domain(), av;
	uint64_t map0;
	size_t i;

	ASSERT_LE(0, dom);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		c = (struct kav_av_create){
			.size = sizeof(c),
			.addr_format = KAV_ADDR_SOCKADDR_IN,
			.count = bad[i],
		};
		EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, &c));
		EXPECT_EQ(EINVAL, errno);
	}
	/*
	 * The largest count is a hint like any other: a private AV maps
	 * what one created with count 0 maps.
	 */
	c = (struct kav_av_create){
		.size = sizeof(c),
		.addr_format = KAV_ADDR_SOCKADDR_IN,
	};
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, &c);
	ASSERT_LE(0, av);
	map0 = c.map_size;
	close(av);
	c = (struct kav_av_create){
		.size = sizeof(c),
		.addr_format = KAV_ADDR_SOCKADDR_IN,
		.count = 0xffffffffULL,
	};
	av = ioctl(dom, KAV_IOC_AV_CREATE, &c) ? -errno : c.fd;
	EXPECT_LE(0, av);
	if (av >= 0) {
		EXPECT_EQ(map0, c.map_size);
		close(av);
	}
	close(dom);
}

TEST(ioctl_unknown_command)
{
	struct kav_av_create c = { .size = sizeof(c),
				   .addr_format = KAV_ADDR_SOCKADDR_IN };
	int dom = kav_open_domain();
	int av;

	ASSERT_LE(0, dom);
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	ASSERT_LE(0, av);

	EXPECT_EQ(-1, ioctl(dom, _IO(KAV_IOCTL_TYPE, 0x7f), &c));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(dom, _IO(KAV_IOCTL_TYPE, 0xff), &c));
	EXPECT_EQ(ENOTTY, errno);
	/* Commands belong to one object type. */
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_INSERT, &c));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(av, KAV_IOC_AV_CREATE, &c));
	EXPECT_EQ(ENOTTY, errno);
	/* The same number with size bits encoded is a different command. */
	EXPECT_EQ(-1, ioctl(dom, _IOWR(KAV_IOCTL_TYPE, KAV_CMD_AV_CREATE,
				       struct kav_av_create), &c));
	EXPECT_EQ(ENOTTY, errno);
	close(av);
	close(dom);
}

TEST(ioctl_short_struct)
{
	static const uint32_t sizes[] = { 0, 4, 8, 16,
		offsetof(struct kav_av_create, map_size) };
	int dom = kav_open_domain();
	size_t i;

	ASSERT_LE(0, dom);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct kav_av_create c = { .size = sizes[i],
					   .addr_format = KAV_ADDR_SOCKADDR_IN };

		EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, &c));
		EXPECT_EQ(EINVAL, errno);
	}
	close(dom);
}

TEST(ioctl_oversized_struct)
{
	struct {
		struct kav_av_create c;
		uint64_t tail[2];
	} big = { .c = { .size = sizeof(big),
			 .addr_format = KAV_ADDR_SOCKADDR_IN } };
	char *page;
	int dom = kav_open_domain();

	ASSERT_LE(0, dom);
	/* A newer, larger struct whose extra bytes are zero is fine. */
	ASSERT_EQ(0, ioctl(dom, KAV_IOC_AV_CREATE, &big));
	close(big.c.fd);
	EXPECT_EQ(0, big.tail[0]);
	EXPECT_EQ(0, big.tail[1]);

	/* Unknown non-zero bytes are a feature the kernel lacks. */
	big.tail[1] = 1;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, &big));
	EXPECT_EQ(E2BIG, errno);

	/* Larger than a page: refused outright. */
	page = calloc(1, 2 * PAGE);
	ASSERT_NE(NULL, page);
	((struct kav_av_create *)page)->size = PAGE + 8;
	((struct kav_av_create *)page)->addr_format = KAV_ADDR_SOCKADDR_IN;
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, page));
	EXPECT_EQ(E2BIG, errno);
	free(page);
	close(dom);
}

TEST(ioctl_bad_pointer)
{
	int dom = kav_open_domain();
	int av;

	ASSERT_LE(0, dom);
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	ASSERT_LE(0, av);
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(av, KAV_IOC_AV_INSERT, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(av, KAV_IOC_AV_REMOVE, (void *)-4096L));
	EXPECT_EQ(EFAULT, errno);
	close(av);
	close(dom);
}

/* The reply cannot be written: no fd may be left behind. */
TEST(create_reply_unwritable_leaks_no_fd)
{
	struct kav_av_create c = { .size = sizeof(c),
				   .addr_format = KAV_ADDR_SOCKADDR_IN };
	int dom = kav_open_domain();
	int before;
	void *ro;

	ASSERT_LE(0, dom);
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	memcpy(ro, &c, sizeof(c));
	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ));
	before = count_open_fds();
	EXPECT_EQ(-1, ioctl(dom, KAV_IOC_AV_CREATE, ro));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(before, count_open_fds());
	munmap(ro, PAGE);
	close(dom);
}

FIXTURE(av) {
	int dom;
	int av;
	struct kav_av_create c;
	const volatile struct kav_table_header *hdr;
};

FIXTURE_SETUP(av)
{
	self->dom = kav_open_domain();
	ASSERT_LE(0, self->dom);
	self->av = kav_create_av(self->dom, KAV_ADDR_SOCKADDR_IN, &self->c);
	ASSERT_LE(0, self->av);
	self->hdr = mmap(NULL, self->c.map_size, PROT_READ, MAP_SHARED,
			 self->av, 0);
	ASSERT_NE(MAP_FAILED, self->hdr);
}

FIXTURE_TEARDOWN(av)
{
	munmap((void *)self->hdr, self->c.map_size);
	close(self->av);
	close(self->dom);
}

static void fill_in(struct sockaddr_in *s, uint32_t n, uint32_t first)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		s[i] = kav_sin(0x0a000000u + first + i, 5000);
}

TEST_F(av, table_header_layout)
{
	const volatile struct kav_table_header *h = self->hdr;

	EXPECT_EQ(KAV_TABLE_MAGIC, h->magic);
	EXPECT_EQ(KAV_TABLE_VERSION, h->version);
	EXPECT_EQ(PAGE, h->header_size);
	EXPECT_EQ(self->c.entry_size, h->entry_size);
	EXPECT_EQ(KAV_ADDR_SOCKADDR_IN, h->addr_format);
	EXPECT_EQ(sizeof(struct sockaddr_in), h->addr_max);
	EXPECT_EQ(self->c.max_entries, h->max_entries);
	EXPECT_EQ(self->c.map_size, h->map_size);
	EXPECT_EQ(0, h->nr_slots);
	EXPECT_EQ(0, h->nr_valid);
	EXPECT_EQ(0, h->generation);
}

TEST_F(av, insert_indices_sequential_from_zero)
{
	struct sockaddr_in s[5];
	uint64_t fi[5];

	fill_in(s, 5, 1);
	ASSERT_EQ(0, kav_insert_in(self->av, s, 3, fi, NULL));
	EXPECT_EQ(0, fi[0]);
	EXPECT_EQ(1, fi[1]);
	EXPECT_EQ(2, fi[2]);
	ASSERT_EQ(0, kav_insert_in(self->av, s + 3, 2, fi + 3, NULL));
	EXPECT_EQ(3, fi[3]);
	EXPECT_EQ(4, fi[4]);
	EXPECT_EQ(5, self->hdr->nr_slots);
	EXPECT_EQ(5, self->hdr->nr_valid);
	EXPECT_EQ(4, self->hdr->generation);
}

TEST_F(av, insert_entry_contents)
{
	struct sockaddr_in s = kav_sin(0x0a010203, 4242);
	const volatile struct kav_entry *e;
	uint64_t fi, seq;

	ASSERT_EQ(0, kav_insert_in(self->av, &s, 1, &fi, NULL));
	e = entry_at(self->hdr, fi);
	EXPECT_EQ(KAV_ENTRY_VALID, e->flags);
	EXPECT_EQ(sizeof(s), e->addr_len);
	EXPECT_EQ(KAV_ENTRY_NO_KEY, e->auth_key);
	EXPECT_EQ(KAV_NONE, e->user_id);
	EXPECT_EQ(0, memcmp((const void *)e->addr, &s, sizeof(s)));
	seq = e->seq;
	EXPECT_EQ(0, seq & 1);
	EXPECT_NE(0, seq);

	ASSERT_EQ(0, kav_remove(self->av, &fi, 1, NULL));
	EXPECT_EQ(0, e->flags);
	EXPECT_EQ(0, e->addr_len);
	EXPECT_EQ(seq + 2, e->seq);
	EXPECT_EQ(0, ((const volatile uint32_t *)e->addr)[1]);
}

TEST_F(av, insert_refills_lowest_hole)
{
	struct sockaddr_in s[8];
	uint64_t fi[8], gone[2] = { 3, 1 };

	fill_in(s, 8, 1);
	ASSERT_EQ(0, kav_insert_in(self->av, s, 5, fi, NULL));
	ASSERT_EQ(0, kav_remove(self->av, gone, 2, NULL));
	EXPECT_EQ(3, self->hdr->nr_valid);
	ASSERT_EQ(0, kav_insert_in(self->av, s + 5, 3, fi, NULL));
	EXPECT_EQ(1, fi[0]);
	EXPECT_EQ(3, fi[1]);
	EXPECT_EQ(5, fi[2]);
}

/*
 * Holes on both sides of the kernel's used-bitmap page boundaries (32768
 * slots a page) and a whole empty bitmap word are refilled lowest first.
 */
TEST_F(av, insert_refills_holes_across_bitmap_pages)
{
	const uint64_t gone[] = { 69999, 40000, 32768, 32767, 130, 5 };
	const uint32_t n = 70000, ngone = ARRAY_SIZE(gone);
	uint64_t fi[ARRAY_SIZE(gone) + 1], word[64], i;
	struct sockaddr_in *s;
	uint32_t done, step;

	s = calloc(n, sizeof(*s));
	ASSERT_NE(NULL, s);
	fill_in(s, n, 1);
	for (done = 0; done < n; done += step) {
		step = n - done < KAV_BATCH_MAX ? n - done : KAV_BATCH_MAX;
		ASSERT_EQ(0, kav_insert_in(self->av, s + done, step, NULL,
					   NULL));
	}
	ASSERT_EQ(0, kav_remove(self->av, gone, ngone, NULL));
	ASSERT_EQ(0, kav_insert_in(self->av, s, ngone + 1, fi, NULL));
	for (i = 0; i < ngone; i++)
		EXPECT_EQ(gone[ngone - 1 - i], fi[i]);
	EXPECT_EQ(n, fi[ngone]);

	/* A whole bitmap word (slots 64..127) free: refilled in order. */
	for (i = 0; i < 64; i++)
		word[i] = 127 - i;
	ASSERT_EQ(0, kav_remove(self->av, word, 64, NULL));
	ASSERT_EQ(0, kav_insert_in(self->av, s, 64, word, NULL));
	for (i = 0; i < 64; i++)
		EXPECT_EQ(64 + i, word[i]);
	EXPECT_EQ(n + 1, self->hdr->nr_valid);
	free(s);
}

TEST_F(av, insert_count_zero_is_noop)
{
	EXPECT_EQ(0, kav_insert_in(self->av, NULL, 0, NULL, NULL));
	EXPECT_EQ(0, self->hdr->generation);
	EXPECT_EQ(0, self->hdr->nr_valid);
}

TEST_F(av, insert_fi_addrs_optional)
{
	struct sockaddr_in s[2];

	fill_in(s, 2, 1);
	EXPECT_EQ(0, kav_insert_in(self->av, s, 2, NULL, NULL));
	EXPECT_EQ(2, self->hdr->nr_valid);
}

TEST_F(av, insert_bad_flags_and_reserved)
{
	struct sockaddr_in s = kav_sin(1, 1);
	struct kav_av_insert in = {
		.size = sizeof(in), .count = 1, .addr_stride = sizeof(s),
		.addrs = (uintptr_t)&s,
	};

	in.flags = 1;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	in.flags = 0x80000000u;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	in.flags = 0;
	in.__reserved = 1;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, self->hdr->nr_valid);
	EXPECT_EQ(0, self->hdr->generation);
}

TEST_F(av, insert_count_past_limit)
{
	struct kav_av_insert in = {
		.size = sizeof(in), .count = KAV_BATCH_MAX + 1,
		.addr_stride = sizeof(struct sockaddr_in),
	};
	struct sockaddr_in *s;

	s = calloc(KAV_BATCH_MAX + 1, sizeof(*s));
	ASSERT_NE(NULL, s);
	fill_in(s, KAV_BATCH_MAX + 1, 1);
	in.addrs = (uintptr_t)s;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(0, self->hdr->nr_valid);
	/* The limit itself is allowed. */
	in.count = KAV_BATCH_MAX;
	EXPECT_EQ(0, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(KAV_BATCH_MAX, self->hdr->nr_valid);
	free(s);
}

TEST_F(av, insert_bad_stride)
{
	struct sockaddr_in s[2];
	struct kav_av_insert in = {
		.size = sizeof(in), .count = 1, .addrs = (uintptr_t)s,
		.err_index = KAV_NO_INDEX,
	};

	fill_in(s, 2, 1);
	in.addr_stride = 0;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	in.addr_stride = KAV_ADDR_MAX_LEN + 1;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	/* Shorter than the address it should hold. */
	in.addr_stride = sizeof(s[0]) - 1;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_INSERT, &in));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, in.err_index);
	EXPECT_EQ(0, self->hdr->nr_valid);
}

TEST_F(av, insert_bad_address_rejects_whole_batch)
{
	struct sockaddr_in s[3];
	uint64_t fi[3] = { 7, 7, 7 };
	uint32_t err;

	fill_in(s, 3, 1);
	s[2].sin_family = AF_INET6;
	EXPECT_EQ(-EINVAL, kav_insert_in(self->av, s, 3, fi, &err));
	EXPECT_EQ(2, err);
	s[2].sin_family = AF_UNIX;
	EXPECT_EQ(-EINVAL, kav_insert_in(self->av, s, 3, fi, &err));
	EXPECT_EQ(2, err);
	EXPECT_EQ(0, self->hdr->nr_valid);
	EXPECT_EQ(0, self->hdr->nr_slots);
	EXPECT_EQ(0, self->hdr->generation);
	EXPECT_EQ(7, fi[0]);
}

TEST_F(av, insert_bad_pointers_change_nothing)
{
	struct sockaddr_in s[2];
	uint64_t *ro;
	uint32_t err;

	fill_in(s, 2, 1);
	EXPECT_EQ(-EFAULT, kav_insert_in(self->av, (void *)8, 2, NULL, &err));
	EXPECT_EQ(KAV_NO_INDEX, err);
	EXPECT_EQ(-EFAULT, kav_insert_in(self->av, s, 2, (void *)8, &err));
	EXPECT_EQ(-EFAULT, kav_insert_in(self->av, s, 2,
					 (void *)self->hdr, &err));
	/*
	 * Output memory that is mapped but not writable: the kernel pins
	 * the fi_addrs pages before it changes the table, so the call fails
	 * first and readers never saw a thing (no undo, no generation).
	 */
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro[0] = 77;
	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, kav_insert_in(self->av, s, 2, ro, &err));
	EXPECT_EQ(77, ro[0]);
	/* Straddling into it from a writable page: the same. */
	ASSERT_EQ(0, munmap(ro, PAGE));
	ro = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, mprotect((char *)ro + PAGE, PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, kav_insert_in(self->av, s, 2,
					 (uint64_t *)((char *)ro + PAGE) - 1,
					 &err));
	ASSERT_EQ(0, munmap(ro, 2 * PAGE));
	EXPECT_EQ(0, self->hdr->nr_valid);
	EXPECT_EQ(0, self->hdr->nr_slots);
	EXPECT_EQ(0, self->hdr->generation);
	/* And the next insert starts at index 0, as if none of it happened. */
	EXPECT_EQ(0, kav_insert_in(self->av, s, 2, NULL, NULL));
	EXPECT_EQ(2, self->hdr->generation);
	EXPECT_EQ(KAV_ENTRY_VALID, entry_at(self->hdr, 0)->flags);
}

/* Insert @n strings of @stride bytes each: 0 or -errno, *@err_index. */
static int insert_str(int av, const char *strs, uint32_t n, uint32_t stride,
		      uint32_t *err_index)
{
	struct kav_av_insert in = {
		.size = sizeof(in), .count = n, .addr_stride = stride,
		.addrs = (uintptr_t)strs, .err_index = KAV_NO_INDEX,
	};
	int ret = ioctl(av, KAV_IOC_AV_INSERT, &in) ? -errno : 0;

	*err_index = in.err_index;
	return ret;
}

/* KAV_ADDR_STR: printable ASCII without space, 0x21..0x7e, then a NUL. */
TEST(insert_str_is_printable_ascii)
{
	static const char *const bad[] = {
		"a b", "tab\there", "del\x7f", "nbsp\xa0", "\xa1\xa2",
		"caf\xc3\xa9", "\xff", "\x01",
	};
	char strs[3][16];
	struct kav_av_create c = { 0 };
	const volatile struct kav_table_header *h;
	uint32_t err;
	size_t i;
	int dom = kav_open_domain(), av;

	ASSERT_LE(0, dom);
	av = kav_create_av(dom, KAV_ADDR_STR, &c);
	ASSERT_LE(0, av);
	h = mmap(NULL, c.map_size, PROT_READ, MAP_SHARED, av, 0);
	ASSERT_NE(MAP_FAILED, h);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(strs, 0, sizeof(strs));
		strcpy(strs[0], "!ok~");		/* 0x21 and 0x7e */
		strcpy(strs[1], bad[i]);
		strcpy(strs[2], "fine");
		EXPECT_EQ(-EINVAL, insert_str(av, strs[0], 3, sizeof(strs[0]),
					      &err)) TH_LOG("string %zu", i);
		EXPECT_EQ(1, err) TH_LOG("string %zu", i);
	}
	EXPECT_EQ(0, h->nr_valid);
	EXPECT_EQ(0, h->generation);
	memset(strs, 0, sizeof(strs));
	strcpy(strs[0], "!ok~");
	strcpy(strs[1], "[fe80::1]:5000");
	EXPECT_EQ(0, insert_str(av, strs[0], 2, sizeof(strs[0]), &err));
	EXPECT_EQ(2, h->nr_valid);
	munmap((void *)h, c.map_size);
	close(av);
	close(dom);
}

TEST_F(av, remove_bad_flags)
{
	struct sockaddr_in s = kav_sin(1, 1);
	uint64_t fi;
	struct kav_av_remove rm = {
		.size = sizeof(rm), .flags = 1, .count = 1,
		.fi_addrs = (uintptr_t)&fi,
	};

	ASSERT_EQ(0, kav_insert_in(self->av, &s, 1, &fi, NULL));
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_REMOVE, &rm));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, self->hdr->nr_valid);
}

/*
 * KEY_REMOVE reads only the handle of struct kav_av_key, but its
 * key.__reserved is reserved like every other: non-zero is EINVAL, and
 * the key stays.
 */
#define VNI_KEY_RM	4711

TEST_F(av, key_remove_reserved)
{
	struct kav_test_grants g = { 0 };
	struct kav_av_key k = { .size = sizeof(k), .key.vni = VNI_KEY_RM };
	const volatile struct kav_key_slot *slot;

	ASSERT_EQ(0, kav_test_grant(&g, VNI_KEY_RM, 1));
	ASSERT_EQ(0, ioctl(self->av, KAV_IOC_AV_KEY_INSERT, &k));
	slot = (const volatile void *)((const volatile char *)self->hdr +
				       self->hdr->keys_offset +
				       k.handle * sizeof(*slot));
	EXPECT_EQ(KAV_KEY_VALID, slot->flags & KAV_KEY_VALID);
	k.key.__reserved = 1;
	EXPECT_EQ(-1, ioctl(self->av, KAV_IOC_AV_KEY_REMOVE, &k));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(KAV_KEY_VALID, slot->flags & KAV_KEY_VALID);
	/* The vni is not looked at: the handle names the key. */
	k.key.__reserved = 0;
	k.key.vni = VNI_KEY_RM + 1;
	EXPECT_EQ(0, ioctl(self->av, KAV_IOC_AV_KEY_REMOVE, &k));
	EXPECT_EQ(0, slot->flags & KAV_KEY_VALID);
	kav_test_revoke_all(&g);
}

TEST_F(av, remove_invalid_index_changes_nothing)
{
	static const uint64_t bad[] = { 3, 4, 1000, 1ULL << 40, UINT64_MAX };
	struct sockaddr_in s[4];
	uint64_t fi[4], gen, victim[2];
	uint32_t err;
	size_t i;

	fill_in(s, 4, 1);
	ASSERT_EQ(0, kav_insert_in(self->av, s, 4, fi, NULL));
	ASSERT_EQ(0, kav_remove(self->av, &fi[3], 1, NULL));
	gen = self->hdr->generation;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		victim[0] = 0;
		victim[1] = bad[i];
		EXPECT_EQ(-EINVAL, kav_remove(self->av, victim, 2, &err))
			TH_LOG("index %llu", (unsigned long long)bad[i]);
		EXPECT_EQ(1, err);
	}
	EXPECT_EQ(3, self->hdr->nr_valid);
	EXPECT_EQ(gen, self->hdr->generation);
	EXPECT_EQ(KAV_ENTRY_VALID, entry_at(self->hdr, 0)->flags);
}

TEST_F(av, remove_repeated_index_changes_nothing)
{
	struct sockaddr_in s[3];
	uint64_t fi[3], victim[3] = { 2, 0, 2 };
	uint32_t err;

	fill_in(s, 3, 1);
	ASSERT_EQ(0, kav_insert_in(self->av, s, 3, fi, NULL));
	EXPECT_EQ(-EINVAL, kav_remove(self->av, victim, 3, &err));
	EXPECT_EQ(2, err);
	EXPECT_EQ(3, self->hdr->nr_valid);
}

TEST_F(av, remove_count_limits_and_pointer)
{
	uint64_t *many = calloc(KAV_BATCH_MAX + 1, sizeof(*many));

	ASSERT_NE(NULL, many);
	EXPECT_EQ(-E2BIG, kav_remove(self->av, many, KAV_BATCH_MAX + 1, NULL));
	EXPECT_EQ(0, kav_remove(self->av, NULL, 0, NULL));
	EXPECT_EQ(-EFAULT, kav_remove(self->av, (void *)8, 1, NULL));
	free(many);
}

TEST_F(av, remove_then_reinsert_same_address)
{
	struct sockaddr_in s = kav_sin(0x0a0b0c0d, 77);
	uint64_t fi, fi2;

	ASSERT_EQ(0, kav_insert_in(self->av, &s, 1, &fi, NULL));
	ASSERT_EQ(0, kav_remove(self->av, &fi, 1, NULL));
	ASSERT_EQ(0, kav_insert_in(self->av, &s, 1, &fi2, NULL));
	EXPECT_EQ(fi, fi2);
	EXPECT_EQ(0, memcmp((const void *)entry_at(self->hdr, fi2)->addr,
			    &s, sizeof(s)));
}

TEST_F(av, av_outlives_domain_fd)
{
	struct sockaddr_in s = kav_sin(1, 2);

	ASSERT_EQ(0, close(self->dom));
	self->dom = -1;
	EXPECT_EQ(0, kav_insert_in(self->av, &s, 1, NULL, NULL));
	EXPECT_EQ(1, self->hdr->nr_valid);
}

TEST_F(av, mapping_outlives_fds)
{
	struct sockaddr_in s = kav_sin(3, 4);

	ASSERT_EQ(0, kav_insert_in(self->av, &s, 1, NULL, NULL));
	ASSERT_EQ(0, close(self->av));
	ASSERT_EQ(0, close(self->dom));
	self->av = self->dom = -1;
	EXPECT_EQ(KAV_TABLE_MAGIC, self->hdr->magic);
	EXPECT_EQ(KAV_ENTRY_VALID, entry_at(self->hdr, 0)->flags);
}

TEST(table_full_enospc)
{
	uint64_t saved = kav_param_max_entries();
	struct sockaddr_in s[6];
	struct kav_av_create c = { 0 };
	uint64_t fi[6], gen;
	int dom, av;
	const volatile struct kav_table_header *h;

	ASSERT_EQ(0, kav_set_param_max_entries(4));
	dom = kav_open_domain();
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, &c);
	ASSERT_EQ(0, kav_set_param_max_entries(saved));
	ASSERT_LE(0, av);
	EXPECT_EQ(4, c.max_entries);
	h = kav_map_header(av);
	ASSERT_NE(NULL, h);

	fill_in(s, 6, 1);
	ASSERT_EQ(0, kav_insert_in(av, s, 3, fi, NULL));
	gen = h->generation;
	/* Two do not fit in the one free slot: neither goes in. */
	EXPECT_EQ(-ENOSPC, kav_insert_in(av, s + 3, 2, fi, NULL));
	EXPECT_EQ(3, h->nr_valid);
	EXPECT_EQ(gen, h->generation);
	EXPECT_EQ(0, kav_insert_in(av, s + 3, 1, fi, NULL));
	EXPECT_EQ(-ENOSPC, kav_insert_in(av, s + 4, 1, fi, NULL));
	/* Room made by a remove can be used again. */
	fi[0] = 1;
	ASSERT_EQ(0, kav_remove(av, fi, 1, NULL));
	EXPECT_EQ(0, kav_insert_in(av, s + 4, 1, fi, NULL));
	EXPECT_EQ(1, fi[0]);
	munmap((void *)h, PAGE);
	close(av);
	close(dom);
}

TEST_F(av, mmap_write_refused)
{
	void *p;

	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->av, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->av, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, self->av, 0);
	EXPECT_EQ(MAP_FAILED, p);
}

/* EACCES from kav, or EPERM where the VFS refuses first (6.16+). */
TEST_F(av, mmap_exec_refused)
{
	int want = kav_exec_map_errno();
	void *p;

	TH_LOG("exec mappings refused with %s", strerror(want));
	p = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, self->av, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(want, errno);
	p = mmap(NULL, PAGE, PROT_EXEC, MAP_SHARED, self->av, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(want, errno);
	p = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE, self->av, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(want, errno);
}

/*
 * The probe behind kav_exec_map_errno() against the kernel's version:
 * Linux 6.16 made the anon-inode file system noexec, so EPERM from 6.16
 * on and EACCES (kav's own refusal) before. A probe that always said
 * EPERM would let kav stop refusing exec mappings unnoticed on the older
 * kernels; this catches it.
 */
TEST(exec_map_errno_probe)
{
	int newer = kav_kernel_at_least(6, 16);

	ASSERT_LE(0, newer);
	EXPECT_EQ(newer ? EPERM : EACCES, kav_exec_map_errno());
}

TEST_F(av, mprotect_cannot_add_exec)
{
	EXPECT_EQ(-1, mprotect((void *)self->hdr, PAGE, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect((void *)self->hdr, PAGE, PROT_EXEC));
	EXPECT_EQ(KAV_TABLE_MAGIC, self->hdr->magic);
}

TEST_F(av, mprotect_cannot_add_write)
{
	EXPECT_EQ(-1, mprotect((void *)self->hdr, PAGE, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect((void *)self->hdr, PAGE, PROT_WRITE));
	EXPECT_EQ(KAV_TABLE_MAGIC, self->hdr->magic);
}

TEST_F(av, proc_self_mem_write_refused)
{
	struct sockaddr_in s = kav_sin(5, 6);
	uint32_t evil = 0xdeadbeef;
	const volatile struct kav_entry *e;
	int mem;

	ASSERT_EQ(0, kav_insert_in(self->av, &s, 1, NULL, NULL));
	e = entry_at(self->hdr, 0);
	mem = open("/proc/self/mem", O_RDWR);
	ASSERT_LE(0, mem);
	EXPECT_EQ(-1, pwrite(mem, &evil, sizeof(evil),
			     (off_t)(uintptr_t)&self->hdr->magic));
	EXPECT_EQ(-1, pwrite(mem, &evil, sizeof(evil),
			     (off_t)(uintptr_t)e->addr));
	close(mem);
	EXPECT_EQ(KAV_TABLE_MAGIC, self->hdr->magic);
	EXPECT_EQ(0, memcmp((const void *)e->addr, &s, sizeof(s)));
}

TEST_F(av, mmap_past_end_refused)
{
	void *p;

	p = mmap(NULL, self->c.map_size + PAGE, PROT_READ, MAP_SHARED,
		 self->av, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->av,
		 (off_t)self->c.map_size);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* A window inside the table is fine. */
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->av, (off_t)PAGE);
	EXPECT_NE(MAP_FAILED, p);
	munmap(p, PAGE);
}

TEST_F(av, mremap_cannot_grow)
{
	void *p = mremap((void *)self->hdr, self->c.map_size,
			 self->c.map_size + PAGE, MREMAP_MAYMOVE);

	EXPECT_EQ(MAP_FAILED, p);
}

/* Slots past nr_slots have no page yet: touching one is SIGBUS. */
TEST_F(av, unbacked_page_sigbus)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		volatile uint32_t x = entry_at(self->hdr, 0)->flags;

		(void)x;
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGBUS, WTERMSIG(status));
}

TEST_F(av, table_grows_across_pages)
{
	uint32_t n = 3 * (uint32_t)(PAGE / self->c.entry_size) + 5;
	struct sockaddr_in *s = calloc(n, sizeof(*s));
	uint64_t *fi = calloc(n, sizeof(*fi));
	uint32_t i;

	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, fi);
	fill_in(s, n, 100);
	for (i = 0; i < n; i += 7)
		ASSERT_EQ(0, kav_insert_in(self->av, s + i,
					   n - i < 7 ? n - i : 7, fi + i, NULL));
	EXPECT_EQ(n, self->hdr->nr_slots);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(i, fi[i]);
		EXPECT_EQ(0, memcmp((const void *)entry_at(self->hdr, i)->addr,
				    &s[i], sizeof(s[i])));
	}
	free(s);
	free(fi);
}

TEST_HARNESS_MAIN
