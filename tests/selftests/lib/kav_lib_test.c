// SPDX-License-Identifier: GPL-2.0
/*
 * libkav end to end through the real device: kav_domain_open(), then
 * libfabric's own inline fi_av_* calls dispatching into libkav.
 */
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <kav/kav.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_test_seccomp.h"

static int open_domain(uint32_t fmt, struct fid_domain **dom)
{
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };

	info.addr_format = fmt;
	info.domain_attr = &dattr;
	return kav_domain_open(&info, dom, NULL);
}

static int open_av(struct fid_domain *dom, struct fid_av **av)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE };

	return fi_av_open(dom, &attr, av, NULL);
}

static struct sockaddr_in6 sin6(uint16_t last, uint16_t port)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6,
				  .sin6_port = htons(port) };

	s.sin6_addr.s6_addr[0] = 0xfd;
	s.sin6_addr.s6_addr[14] = last >> 8;
	s.sin6_addr.s6_addr[15] = last & 0xff;
	return s;
}

TEST(domain_open_missing_device)
{
	struct fid_domain *dom = NULL;
	const char *why;

	setenv("KAV_DEVICE", "/dev/kav-does-not-exist", 1);
	setenv("KAV_LOG", "none", 1);
	EXPECT_EQ(-FI_ENODEV, open_domain(FI_SOCKADDR_IN, &dom));
	EXPECT_EQ(NULL, dom);
	why = kav_strerror(-FI_ENODEV);
	ASSERT_NE(NULL, why);
	EXPECT_NE(NULL, strstr(why, "not loaded"));
	EXPECT_NE(NULL, strstr(why, "modprobe kav"));
	unsetenv("KAV_DEVICE");
}

TEST(domain_open_bad_arguments)
{
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };
	struct fid_domain *dom;

	info.domain_attr = &dattr;
	EXPECT_EQ(-FI_EINVAL, kav_domain_open(NULL, &dom, NULL));
	info.addr_format = FI_SOCKADDR_IN;
	EXPECT_EQ(-FI_EINVAL, kav_domain_open(&info, NULL, NULL));
	info.addr_format = FI_SOCKADDR_IB;
	EXPECT_EQ(-FI_EINVAL, kav_domain_open(&info, &dom, NULL));
}

TEST(av_types)
{
	struct fi_av_attr attr = { .type = FI_AV_UNSPEC };
	struct fid_domain *dom;
	struct fid_av *av;

	ASSERT_EQ(0, open_domain(FI_SOCKADDR_IN, &dom));
	ASSERT_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	EXPECT_EQ(FI_AV_TABLE, attr.type);
	EXPECT_EQ(0, fi_close(&av->fid));
	attr.type = FI_AV_MAP;
	ASSERT_EQ(0, fi_av_open(dom, &attr, &av, NULL));
	EXPECT_EQ(0, fi_close(&av->fid));
	attr.type = (enum fi_av_type)42;
	EXPECT_EQ(-FI_EINVAL, fi_av_open(dom, &attr, &av, NULL));
	EXPECT_EQ(-FI_EINVAL, fi_av_open(dom, NULL, &av, NULL));
	EXPECT_EQ(0, fi_close(&dom->fid));
}

TEST(domain_close_busy_while_av_open)
{
	struct fid_domain *dom;
	struct fid_av *av;

	ASSERT_EQ(0, open_domain(FI_SOCKADDR_IN, &dom));
	ASSERT_EQ(0, open_av(dom, &av));
	EXPECT_EQ(-FI_EBUSY, fi_close(&dom->fid));
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&dom->fid));
}

FIXTURE(in4) {
	struct fid_domain *dom;
	struct fid_av *av;
};

FIXTURE_SETUP(in4)
{
	ASSERT_EQ(0, open_domain(FI_SOCKADDR_IN, &self->dom));
	ASSERT_EQ(0, open_av(self->dom, &self->av));
}

FIXTURE_TEARDOWN(in4)
{
	EXPECT_EQ(0, fi_close(&self->av->fid));
	EXPECT_EQ(0, fi_close(&self->dom->fid));
}

TEST_F(in4, insert_lookup_remove_round_trip)
{
	struct sockaddr_in s[3], out;
	fi_addr_t fi[3];
	size_t len;
	int i;

	for (i = 0; i < 3; i++)
		s[i] = kav_sin(0x0a000001 + i, 5000 + i);
	ASSERT_EQ(3, fi_av_insert(self->av, s, 3, fi, 0, NULL));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ((fi_addr_t)i, fi[i]);
		len = sizeof(out);
		memset(&out, 0, sizeof(out));
		ASSERT_EQ(0, fi_av_lookup(self->av, fi[i], &out, &len));
		EXPECT_EQ(sizeof(out), len);
		EXPECT_EQ(0, memcmp(&out, &s[i], sizeof(out)));
	}
	ASSERT_EQ(0, fi_av_remove(self->av, &fi[1], 1, 0));
	len = sizeof(out);
	EXPECT_EQ(-FI_EINVAL, fi_av_lookup(self->av, fi[1], &out, &len));
	/* The hole is refilled first, with the same address or another. */
	ASSERT_EQ(1, fi_av_insert(self->av, &s[1], 1, &fi[1], 0, NULL));
	EXPECT_EQ(1, fi[1]);
	len = sizeof(out);
	ASSERT_EQ(0, fi_av_lookup(self->av, fi[1], &out, &len));
	EXPECT_EQ(0, memcmp(&out, &s[1], sizeof(out)));
}

TEST_F(in4, lookup_truncates_and_reports_size)
{
	struct sockaddr_in s = kav_sin(0x0a000001, 5000);
	unsigned char out[16];
	fi_addr_t fi;
	size_t len = 4;

	memset(out, 0xee, sizeof(out));
	ASSERT_EQ(1, fi_av_insert(self->av, &s, 1, &fi, 0, NULL));
	ASSERT_EQ(0, fi_av_lookup(self->av, fi, out, &len));
	EXPECT_EQ(sizeof(s), len);
	EXPECT_EQ(0, memcmp(out, &s, 4));
	EXPECT_EQ(0xee, out[4]);
}

TEST_F(in4, lookup_invalid_addresses)
{
	struct sockaddr_in s = kav_sin(0x0a000001, 5000), out;
	fi_addr_t fi;
	size_t len = sizeof(out);

	EXPECT_EQ(-FI_EINVAL, fi_av_lookup(self->av, 0, &out, &len));
	ASSERT_EQ(1, fi_av_insert(self->av, &s, 1, &fi, 0, NULL));
	EXPECT_EQ(-FI_EINVAL, fi_av_lookup(self->av, 1, &out, &len));
	/* Bits 32-63 are the caller's (group, rx): index 1 still. */
	EXPECT_EQ(-FI_EINVAL, fi_av_lookup(self->av, 1ULL << 40 | 1, &out,
					   &len));
	/* Bit 31 tags auth-key handles, which are not addresses. */
	EXPECT_EQ(-FI_EINVAL, fi_av_lookup(self->av, KAV_FI_ADDR_KEY, &out,
					   &len));
	EXPECT_EQ(-FI_EINVAL, fi_av_lookup(self->av, FI_ADDR_NOTAVAIL,
					   &out, &len));
}

TEST_F(in4, insert_failed_address_gets_notavail)
{
	struct sockaddr_in s[3];
	fi_addr_t fi[3];
	int i;

	for (i = 0; i < 3; i++)
		s[i] = kav_sin(0x0a000001 + i, 5000);
	s[1].sin_family = AF_INET6;
	EXPECT_EQ(2, fi_av_insert(self->av, s, 3, fi, 0, NULL));
	EXPECT_EQ(0, fi[0]);
	EXPECT_EQ(FI_ADDR_NOTAVAIL, fi[1]);
	EXPECT_EQ(1, fi[2]);
	/* fi_addr may be NULL. */
	EXPECT_EQ(1, fi_av_insert(self->av, &s[2], 1, NULL, 0, NULL));
}

TEST_F(in4, remove_invalid_changes_nothing)
{
	struct sockaddr_in s[2] = { kav_sin(1, 1), kav_sin(2, 2) }, out;
	fi_addr_t fi[2], bad[2];
	size_t len = sizeof(out);

	ASSERT_EQ(2, fi_av_insert(self->av, s, 2, fi, 0, NULL));
	bad[0] = fi[0];
	bad[1] = 7;
	EXPECT_EQ(-FI_EINVAL, fi_av_remove(self->av, bad, 2, 0));
	EXPECT_EQ(0, fi_av_lookup(self->av, fi[0], &out, &len));
	bad[1] = UINT64_MAX;
	EXPECT_EQ(-FI_EINVAL, fi_av_remove(self->av, bad, 2, 0));
	EXPECT_EQ(0, fi_av_lookup(self->av, fi[0], &out, &len));
}

TEST_F(in4, straddr_format)
{
	struct sockaddr_in s = kav_sin(0x0a000001, 5000);
	char buf[64];
	size_t len = sizeof(buf);

	EXPECT_EQ((const char *)buf,
		  fi_av_straddr(self->av, &s, buf, &len));
	EXPECT_STREQ("fi_sockaddr_in://10.0.0.1:5000", buf);
	EXPECT_EQ(strlen(buf) + 1, len);
}

/*
 * fi_av_lookup reads the mapped pages only: a child that may make no
 * system call at all (seccomp kills it otherwise) looks every entry up.
 */
TEST_F(in4, lookup_makes_no_system_call)
{
	enum { N = 300 };
	static struct sockaddr_in s[N];
	fi_addr_t fi[N];
	int status, i;
	pid_t pid;

	for (i = 0; i < N; i++)
		s[i] = kav_sin(0x0a000000 + i, 1000 + i);
	ASSERT_EQ(N, fi_av_insert(self->av, s, N, fi, 0, NULL));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct sockaddr_in out;
		size_t len;
		int bad = 0;

		if (forbid_syscalls())
			_exit(3);
		for (i = 0; i < N; i++) {
			len = sizeof(out);
			bad |= fi_av_lookup(self->av, fi[i], &out, &len) != 0;
			bad |= memcmp(&out, &s[i], sizeof(out)) != 0;
		}
		_exit(bad ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("child killed by signal %d",
					      WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* The control: the same filter does kill a child that makes a call. */
TEST(seccomp_filter_kills_a_system_call)
{
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (forbid_syscalls())
			_exit(3);
		syscall(SYS_getpid);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGSYS, WTERMSIG(status));
}

TEST(ipv6_round_trip)
{
	struct sockaddr_in6 s[2] = { sin6(1, 7000), sin6(0x1234, 7001) }, out;
	struct fid_domain *dom;
	struct fid_av *av;
	fi_addr_t fi[2];
	size_t len;
	char buf[80];

	ASSERT_EQ(0, open_domain(FI_SOCKADDR_IN6, &dom));
	ASSERT_EQ(0, open_av(dom, &av));
	ASSERT_EQ(2, fi_av_insert(av, s, 2, fi, 0, NULL));
	len = sizeof(out);
	ASSERT_EQ(0, fi_av_lookup(av, fi[1], &out, &len));
	EXPECT_EQ(sizeof(out), len);
	EXPECT_EQ(0, memcmp(&out, &s[1], sizeof(out)));
	len = sizeof(buf);
	fi_av_straddr(av, &s[1], buf, &len);
	EXPECT_STREQ("fi_sockaddr_in6://[fd00::1234]:7001", buf);
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&dom->fid));
}

/* FI_SOCKADDR holds either family; each keeps its own length. */
TEST(sockaddr_mixed_families)
{
	struct sockaddr_in6 s6 = sin6(9, 9000);
	struct sockaddr_in s4 = kav_sin(0x0a000009, 9000);
	struct sockaddr_storage out;
	struct fid_domain *dom;
	struct fid_av *av;
	fi_addr_t f4, f6;
	size_t len;

	ASSERT_EQ(0, open_domain(FI_SOCKADDR, &dom));
	ASSERT_EQ(0, open_av(dom, &av));
	ASSERT_EQ(1, fi_av_insert(av, &s4, 1, &f4, 0, NULL));
	ASSERT_EQ(1, fi_av_insert(av, &s6, 1, &f6, 0, NULL));
	len = sizeof(out);
	ASSERT_EQ(0, fi_av_lookup(av, f4, &out, &len));
	EXPECT_EQ(sizeof(s4), len);
	EXPECT_EQ(0, memcmp(&out, &s4, sizeof(s4)));
	len = sizeof(out);
	ASSERT_EQ(0, fi_av_lookup(av, f6, &out, &len));
	EXPECT_EQ(sizeof(s6), len);
	EXPECT_EQ(0, memcmp(&out, &s6, sizeof(s6)));
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&dom->fid));
}

TEST_HARNESS_MAIN
