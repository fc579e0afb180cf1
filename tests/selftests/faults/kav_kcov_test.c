// SPDX-License-Identifier: GPL-2.0
/*
 * kcov reaches kav's code: the debug kernel is built with CONFIG_KCOV and
 * kav.ko with KCOV_INSTRUMENT (kmod/Kbuild), which is what a
 * coverage-guided fuzzer relies on. A thread that enables kcov and then
 * calls kav (an ioctl, a netlink command) must find PCs inside kav.ko's
 * .text in its buffer. Skipped on kernels without kcov (Debian's).
 */
#include <stdlib.h>
#include <dirent.h>
#include <linux/kcov.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_nl_util.h"

#define KCOV_PATH	"/sys/kernel/debug/kcov"
#define KCOV_WORDS	(64 * 1024)
#define SECTIONS	"/sys/module/kav/sections"

/* A section's load address from /sys/module/kav/sections, or 0. */
static unsigned long section_addr(const char *name)
{
	char path[512];
	unsigned long a = 0;
	FILE *f;

	snprintf(path, sizeof(path), SECTIONS "/%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lx", &a) != 1)
		a = 0;
	fclose(f);
	return a;
}

/*
 * [*lo, *hi): kav's .text, ending where the next section (of those listed
 * in sysfs) starts. 0 or -1.
 */
static int kav_text_range(unsigned long *lo, unsigned long *hi)
{
	struct dirent *d;
	unsigned long a;
	DIR *dir;

	*lo = section_addr(".text");
	*hi = ~0UL;
	if (!*lo)
		return -1;
	dir = opendir(SECTIONS);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] != '.' || !strcmp(d->d_name, ".") ||
		    !strcmp(d->d_name, ".."))
			continue;
		a = section_addr(d->d_name);
		if (a > *lo && a < *hi)
			*hi = a;
	}
	closedir(dir);
	return 0;
}

FIXTURE(kcov)
{
	int fd;
	unsigned long *cover;
};

FIXTURE_SETUP(kcov)
{
	self->cover = MAP_FAILED;
	self->fd = open(KCOV_PATH, O_RDWR | O_CLOEXEC);
	if (self->fd < 0)
		SKIP(return, "no " KCOV_PATH " (a kernel without CONFIG_KCOV)");
	ASSERT_EQ(0, ioctl(self->fd, KCOV_INIT_TRACE, KCOV_WORDS));
	self->cover = mmap(NULL, KCOV_WORDS * sizeof(unsigned long),
			   PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, self->cover);
	ASSERT_EQ(0, ioctl(self->fd, KCOV_ENABLE, KCOV_TRACE_PC));
	__atomic_store_n(&self->cover[0], 0, __ATOMIC_RELAXED);
}

FIXTURE_TEARDOWN(kcov)
{
	if (self->cover != MAP_FAILED)
		munmap(self->cover, KCOV_WORDS * sizeof(unsigned long));
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Stop collecting; then every PC must be kav's (nothing else in the
 * kernel is instrumented) and some of them in kav's .text.
 */
static void check_pcs(struct __test_metadata *_metadata,
		      FIXTURE_DATA(kcov) *self, const char *what)
{
	unsigned long n, i, lo, hi, in_text = 0;

	n = __atomic_load_n(&self->cover[0], __ATOMIC_RELAXED);
	ASSERT_EQ(0, ioctl(self->fd, KCOV_DISABLE, 0));
	ASSERT_EQ(0, kav_text_range(&lo, &hi));
	ASSERT_LT(n, KCOV_WORDS);
	for (i = 1; i <= n; i++)
		if (self->cover[i] >= lo && self->cover[i] < hi)
			in_text++;
	TH_LOG("%s: %lu PCs, %lu in kav's .text [%#lx, %#lx)",
	       what, n, in_text, lo, hi);
	EXPECT_LT(0, in_text);
}

TEST_F(kcov, ioctl_pcs_are_kavs)
{
	struct sockaddr_in sin = kav_sin(0x0a000001, 7);
	uint64_t fi_addr;
	int dom, av;

	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	av = kav_create_av(dom, KAV_ADDR_SOCKADDR_IN, NULL);
	ASSERT_LE(0, av);
	EXPECT_EQ(0, kav_insert_in(av, &sin, 1, &fi_addr, NULL));
	check_pcs(_metadata, self, "open, AV_CREATE, AV_INSERT");
	close(av);
	close(dom);
}

TEST_F(kcov, netlink_pcs_are_kavs)
{
	static struct kav_nl_msg m;
	struct kav_nl nl;

	/* The generic netlink handler runs in the sender's context. */
	ASSERT_EQ(0, kav_nl_open(&nl));
	__atomic_store_n(&self->cover[0], 0, __ATOMIC_RELAXED);
	kav_nl_msg_init(&m, nl.family, 0, KAV_GENL_CMD_STATS_GET,
			KAV_GENL_VERSION);
	kav_nl_talk(&nl, &m, NULL, NULL);
	check_pcs(_metadata, self, "KAV_GENL_CMD_STATS_GET");
	kav_nl_close(&nl);
}

TEST_HARNESS_MAIN
