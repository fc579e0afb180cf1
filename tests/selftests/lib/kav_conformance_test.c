// SPDX-License-Identifier: GPL-2.0
/*
 * fi_av(3) conformance through libkav and the real device. Each test is
 * named after the man page statement it proves; Documentation/
 * conformance.rst maps every statement to its test or decision.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <kav/kav.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_fi_compat.h"
#include "mock_peer.h"
#include "kav_test_grants.h"

static int domain_open(uint32_t fmt, bool av_auth_key, struct fid_domain **d)
{
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };

	info.addr_format = fmt;
	info.domain_attr = &dattr;
	if (av_auth_key)
		dattr.auth_key_size = FI_AV_AUTH_KEY;
	return kav_domain_open(&info, d, NULL);
}

static int av_open(struct fid_domain *d, uint64_t flags, struct fid_av **av)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = flags };

	return fi_av_open(d, &attr, av, NULL);
}

static struct sockaddr_in sin4(uint32_t host, uint16_t port)
{
	return kav_sin(host, port);
}

static void fill(struct sockaddr_in *s, int n, uint32_t first)
{
	for (int i = 0; i < n; i++)
		s[i] = sin4(first + i, 5000);
}

FIXTURE(av) {
	struct fid_domain *dom;
	struct fid_av *av;
};

FIXTURE_SETUP(av)
{
	setenv("KAV_LOG", "none", 1);
	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN, false, &self->dom));
	ASSERT_EQ(0, av_open(self->dom, 0, &self->av));
}

FIXTURE_TEARDOWN(av)
{
	if (self->av)
		EXPECT_EQ(0, fi_close(&self->av->fid));
	EXPECT_EQ(0, fi_close(&self->dom->fid));
}

/* "The index of the first address inserted into an FI_AV_TABLE will be
 * 0, and successive insertions will be given sequential indices ...
 * across insertion calls." */
TEST_F(av, table_indices_sequential_across_calls)
{
	struct sockaddr_in s[6];
	fi_addr_t fi[6];

	fill(s, 6, 0x0a000001);
	ASSERT_EQ(2, fi_av_insert(self->av, s, 2, fi, 0, NULL));
	ASSERT_EQ(3, fi_av_insert(self->av, s + 2, 3, fi + 2, 0, NULL));
	ASSERT_EQ(1, fi_av_insert(self->av, s + 5, 1, fi + 5, 0, NULL));
	for (int i = 0; i < 6; i++)
		EXPECT_EQ((fi_addr_t)i, fi[i]);
}

/* "An address is inserted at the lowest index that corresponds to an
 * unused table location." */
TEST_F(av, table_insert_takes_lowest_unused_index)
{
	struct sockaddr_in s[6];
	fi_addr_t fi[6], gone[2] = { 4, 1 }, again[3];

	fill(s, 6, 0x0a000001);
	ASSERT_EQ(6, fi_av_insert(self->av, s, 6, fi, 0, NULL));
	ASSERT_EQ(0, fi_av_remove(self->av, gone, 2, 0));
	ASSERT_EQ(3, fi_av_insert(self->av, s, 3, again, 0, NULL));
	EXPECT_EQ(1, again[0]);
	EXPECT_EQ(4, again[1]);
	EXPECT_EQ(6, again[2]);
}

/* "the fi_addr parameter may be NULL" */
TEST_F(av, insert_fi_addr_may_be_null)
{
	struct sockaddr_in s[2], out;
	size_t len = sizeof(out);

	fill(s, 2, 0x0a000001);
	ASSERT_EQ(2, fi_av_insert(self->av, s, 2, NULL, 0, NULL));
	ASSERT_EQ(0, fi_av_lookup(self->av, 1, &out, &len));
	EXPECT_EQ(0, memcmp(&out, &s[1], sizeof(out)));
}

/* "return the number of addresses that were successfully inserted ...
 * the fi_addr buffer associated with a failed ... insertion will be set
 * to FI_ADDR_NOTAVAIL." */
TEST_F(av, insert_failure_notavail_and_count)
{
	struct sockaddr_in s[4];
	fi_addr_t fi[4];

	fill(s, 4, 0x0a000001);
	s[0].sin_family = AF_INET6;
	s[3].sin_family = 0;
	EXPECT_EQ(2, fi_av_insert(self->av, s, 4, fi, 0, NULL));
	EXPECT_EQ(FI_ADDR_NOTAVAIL, fi[0]);
	EXPECT_EQ(0, fi[1]);
	EXPECT_EQ(1, fi[2]);
	EXPECT_EQ(FI_ADDR_NOTAVAIL, fi[3]);
}

/* "FI_SYNC_ERR ... The resulting status of attempting to insert each
 * address will be written to the corresponding array location.
 * Successful insertions will be updated to 0." */
TEST_F(av, insert_sync_err_per_address_status)
{
	struct sockaddr_in s[3];
	fi_addr_t fi[3];
	int status[3] = { -7, -7, -7 };

	fill(s, 3, 0x0a000001);
	s[1].sin_family = AF_UNIX;
	EXPECT_EQ(2, fi_av_insert(self->av, s, 3, fi, FI_SYNC_ERR, status));
	EXPECT_EQ(0, status[0]);
	EXPECT_NE(0, status[1]);
	EXPECT_EQ(0, status[2]);
	EXPECT_EQ(FI_ADDR_NOTAVAIL, fi[1]);
}

/* "FI_MORE ... Providers are free to ignore FI_MORE": results are the
 * same as without it. */
TEST_F(av, insert_fi_more_same_result)
{
	struct sockaddr_in s[4], out;
	fi_addr_t fi[4];
	size_t len;

	fill(s, 4, 0x0a000001);
	ASSERT_EQ(2, fi_av_insert(self->av, s, 2, fi, FI_MORE, NULL));
	ASSERT_EQ(2, fi_av_insert(self->av, s + 2, 2, fi + 2, 0, NULL));
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ((fi_addr_t)i, fi[i]);
		len = sizeof(out);
		ASSERT_EQ(0, fi_av_lookup(self->av, fi[i], &out, &len));
		EXPECT_EQ(0, memcmp(&out, &s[i], sizeof(out)));
	}
}

/* Every flag the man page does not list for insert is rejected. */
TEST_F(av, insert_unknown_flag_rejected)
{
	struct sockaddr_in s = sin4(0x0a000001, 1);
	fi_addr_t fi;

	EXPECT_EQ(-FI_EINVAL, fi_av_insert(self->av, &s, 1, &fi, FI_READ,
					   NULL));
	EXPECT_EQ(-FI_EINVAL, fi_av_insert(self->av, &s, 1, &fi, 1ULL << 63,
					   NULL));
	/* FI_AUTH_KEY needs a domain opened with FI_AV_AUTH_KEY. */
	fi = 0;
	EXPECT_EQ(-FI_EINVAL, fi_av_insert(self->av, &s, 1, &fi, FI_AUTH_KEY,
					   NULL));
	EXPECT_EQ(-FI_EINVAL, fi_av_insert(self->av, NULL, 1, &fi, 0, NULL));
}

/* "providers are required to support the removal, followed by the
 * re-insertion of an address." */
TEST_F(av, remove_then_reinsert)
{
	struct sockaddr_in s = sin4(0x0a000009, 9), out;
	fi_addr_t fi;
	size_t len = sizeof(out);

	ASSERT_EQ(1, fi_av_insert(self->av, &s, 1, &fi, 0, NULL));
	ASSERT_EQ(0, fi_av_remove(self->av, &fi, 1, 0));
	ASSERT_EQ(1, fi_av_insert(self->av, &s, 1, &fi, 0, NULL));
	ASSERT_EQ(0, fi_av_lookup(self->av, fi, &out, &len));
	EXPECT_EQ(0, memcmp(&out, &s, sizeof(s)));
}

/* Duplicates are allowed to be undefined by the man page; kav defines
 * them: a duplicate is a new entry with its own index. */
TEST_F(av, duplicate_insert_gets_own_index)
{
	struct sockaddr_in s = sin4(0x0a000005, 5), out;
	fi_addr_t a, b;
	size_t len = sizeof(out);

	ASSERT_EQ(1, fi_av_insert(self->av, &s, 1, &a, 0, NULL));
	ASSERT_EQ(1, fi_av_insert(self->av, &s, 1, &b, 0, NULL));
	EXPECT_NE(a, b);
	ASSERT_EQ(0, fi_av_remove(self->av, &a, 1, 0));
	ASSERT_EQ(0, fi_av_lookup(self->av, b, &out, &len));
	EXPECT_EQ(0, memcmp(&out, &s, sizeof(s)));
}

/* Lookup/remove of an index never inserted, removed, past the end or
 * UINT64_MAX is -FI_EINVAL and changes nothing; a batch is atomic. */
TEST_F(av, remove_invalid_changes_nothing)
{
	struct sockaddr_in s[3], out;
	fi_addr_t fi[3], batch[2];
	size_t len;
	static const fi_addr_t bad[] = { 2, 3, 1000, UINT64_MAX - 1,
					 UINT64_MAX };

	fill(s, 3, 0x0a000001);
	ASSERT_EQ(3, fi_av_insert(self->av, s, 3, fi, 0, NULL));
	ASSERT_EQ(0, fi_av_remove(self->av, &fi[2], 1, 0));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		batch[0] = fi[0];
		batch[1] = bad[i];
		EXPECT_EQ(-FI_EINVAL, fi_av_remove(self->av, batch, 2, 0));
		len = sizeof(out);
		EXPECT_EQ(-FI_EINVAL, fi_av_lookup(self->av, bad[i], &out,
						   &len));
	}
	len = sizeof(out);
	EXPECT_EQ(0, fi_av_lookup(self->av, fi[0], &out, &len));
	EXPECT_EQ(-FI_EINVAL, fi_av_remove(self->av, fi, 1, FI_MORE));
}

/* "If the actual address is larger than what can fit into the buffer,
 * it will be truncated. On output, addrlen is set to the size of the
 * buffer needed" */
TEST_F(av, lookup_truncates_reports_needed)
{
	struct sockaddr_in s = sin4(0x0a000001, 5000);
	unsigned char out[8];
	fi_addr_t fi;
	size_t len = 6;

	memset(out, 0xaa, sizeof(out));
	ASSERT_EQ(1, fi_av_insert(self->av, &s, 1, &fi, 0, NULL));
	ASSERT_EQ(0, fi_av_lookup(self->av, fi, out, &len));
	EXPECT_EQ(sizeof(s), len);
	EXPECT_EQ(0, memcmp(out, &s, 6));
	EXPECT_EQ(0xaa, out[6]);
	len = 0;
	EXPECT_EQ(0, fi_av_lookup(self->av, fi, NULL, &len));
	EXPECT_EQ(sizeof(s), len);
}

/* "fi_av_straddr ... If the provided buffer is too small, the results
 * will be truncated ... addrlen is set to the size of the buffer needed"
 * and kav: NULL buffer returns NULL and sets the length. */
TEST_F(av, straddr_truncates_reports_needed)
{
	struct sockaddr_in s = sin4(0x0a000001, 5000);
	const char *want = "fi_sockaddr_in://10.0.0.1:5000";
	char buf[64], small[8];
	size_t len = sizeof(buf);

	EXPECT_EQ((const char *)buf, fi_av_straddr(self->av, &s, buf, &len));
	EXPECT_STREQ(want, buf);
	EXPECT_EQ(strlen(want) + 1, len);
	len = sizeof(small);
	EXPECT_EQ((const char *)small,
		  fi_av_straddr(self->av, &s, small, &len));
	EXPECT_EQ(strlen(want) + 1, len);
	EXPECT_EQ(0, strncmp(small, want, sizeof(small) - 1));
	EXPECT_EQ('\0', small[sizeof(small) - 1]);
	len = 0;
	EXPECT_EQ(NULL, fi_av_straddr(self->av, &s, NULL, &len));
	EXPECT_EQ(strlen(want) + 1, len);
}

/* "count: the expected number of addresses": a hint only. */
TEST(count_is_a_hint)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 4 };
	struct fid_domain *d;
	struct fid_av *av;
	enum { N = 5000 };
	static struct sockaddr_in s[N];
	static fi_addr_t fi[N];

	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN, false, &d));
	ASSERT_EQ(0, fi_av_open(d, &attr, &av, NULL));
	fill(s, N, 0x0a000000);
	EXPECT_EQ(N, fi_av_insert(av, s, N, fi, 0, NULL));
	EXPECT_EQ(N - 1, fi[N - 1]);
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&d->fid));
}

/* type: TABLE; MAP (deprecated) behaves as TABLE; UNSPEC returns the
 * chosen type; anything else -FI_EINVAL. Unknown open flags too. */
TEST(av_open_type_and_flags)
{
	struct fi_av_attr attr = { .type = FI_AV_MAP };
	struct sockaddr_in s[2];
	struct fid_domain *d;
	struct fid_av *av;
	fi_addr_t fi[2];

	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN, false, &d));
	ASSERT_EQ(0, fi_av_open(d, &attr, &av, NULL));
	fill(s, 2, 0x0a000001);
	ASSERT_EQ(2, fi_av_insert(av, s, 2, fi, 0, NULL));
	EXPECT_EQ(0, fi[0]);
	EXPECT_EQ(1, fi[1]);
	EXPECT_EQ(0, fi_close(&av->fid));
	attr.type = FI_AV_UNSPEC;
	ASSERT_EQ(0, fi_av_open(d, &attr, &av, NULL));
	EXPECT_EQ(FI_AV_TABLE, attr.type);
	EXPECT_EQ(0, fi_close(&av->fid));
	attr.type = (enum fi_av_type)7;
	EXPECT_EQ(-FI_EINVAL, fi_av_open(d, &attr, &av, NULL));
	attr.type = FI_AV_TABLE;
	attr.flags = FI_SYMMETRIC;
	ASSERT_EQ(0, fi_av_open(d, &attr, &av, NULL));
	EXPECT_EQ(0, fi_close(&av->fid));
	attr.flags = FI_SEND;
	EXPECT_EQ(-FI_EINVAL, fi_av_open(d, &attr, &av, NULL));
	/* "An AV opened for read-only access must be named" */
	attr.flags = FI_READ;
	EXPECT_EQ(-FI_EINVAL, fi_av_open(d, &attr, &av, NULL));
	attr.flags = 0;
	attr.ep_per_node = 8;
	ASSERT_EQ(0, fi_av_open(d, &attr, &av, NULL));
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&d->fid));
}

/* rx_ctx_bits: fi_rx_addr() results and fi_group_addr() bits name the
 * same entry in every call that takes an fi_addr. */
TEST(rx_ctx_and_group_bits_preserved)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .rx_ctx_bits = 4 };
	struct sockaddr_in s[2], out;
	struct fid_domain *d;
	struct fid_av *av;
	fi_addr_t fi[2], rx, grp;
	size_t len;

	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN, false, &d));
	ASSERT_EQ(0, fi_av_open(d, &attr, &av, NULL));
	fill(s, 2, 0x0a000001);
	ASSERT_EQ(2, fi_av_insert(av, s, 2, fi, 0, NULL));
	rx = fi_rx_addr(fi[1], 3, 4);
	EXPECT_NE(fi[1], rx);
	len = sizeof(out);
	ASSERT_EQ(0, fi_av_lookup(av, rx, &out, &len));
	EXPECT_EQ(0, memcmp(&out, &s[1], sizeof(out)));
	grp = fi_group_addr(fi[0], 5);
	EXPECT_NE(fi[0], grp);
	len = sizeof(out);
	ASSERT_EQ(0, fi_av_lookup(av, grp, &out, &len));
	EXPECT_EQ(0, memcmp(&out, &s[0], sizeof(out)));
	ASSERT_EQ(0, fi_av_remove(av, &grp, 1, 0));
	len = sizeof(out);
	EXPECT_EQ(-FI_EINVAL, fi_av_lookup(av, fi[0], &out, &len));
	EXPECT_EQ(0, fi_close(&av->fid));
	attr.rx_ctx_bits = -1;
	EXPECT_EQ(-FI_EINVAL, fi_av_open(d, &attr, &av, NULL));
	attr.rx_ctx_bits = KAV_RX_CTX_BITS_MAX + 1;
	EXPECT_EQ(-FI_EINVAL, fi_av_open(d, &attr, &av, NULL));
	EXPECT_EQ(0, fi_close(&d->fid));
}

/* Address formats: FI_SOCKADDR_IN6 and FI_ADDR_STR (an array of char *). */
TEST(format_in6_and_addr_str)
{
	const char *strs[2] = { "fi_sockaddr_in://10.0.0.1:5000",
				"fi_sockaddr_in6://[fd00::7]:7000" };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(7000) };
	struct sockaddr_in6 o6;
	struct fid_domain *d;
	struct fid_av *av;
	fi_addr_t fi[2];
	char out[128];
	size_t len;

	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN6, false, &d));
	ASSERT_EQ(0, av_open(d, 0, &av));
	inet_pton(AF_INET6, "fd00::7", &s6.sin6_addr);
	ASSERT_EQ(1, fi_av_insert(av, &s6, 1, fi, 0, NULL));
	len = sizeof(o6);
	ASSERT_EQ(0, fi_av_lookup(av, fi[0], &o6, &len));
	EXPECT_EQ(sizeof(s6), len);
	EXPECT_EQ(0, memcmp(&o6, &s6, sizeof(s6)));
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&d->fid));

	ASSERT_EQ(0, domain_open(FI_ADDR_STR, false, &d));
	ASSERT_EQ(0, av_open(d, 0, &av));
	ASSERT_EQ(2, fi_av_insert(av, strs, 2, fi, 0, NULL));
	for (int i = 0; i < 2; i++) {
		len = sizeof(out);
		ASSERT_EQ(0, fi_av_lookup(av, fi[i], out, &len));
		EXPECT_STREQ(strs[i], out);
		EXPECT_EQ(strlen(strs[i]) + 1, len);
	}
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&d->fid));
}

/* insertsym on an FI_ADDR_STR AV stores each expanded address as the
 * string fi_av_straddr() prints for it. */
TEST(insertsym_addr_str_man_page_example)
{
	static const char *want[] = { "fi_sockaddr_in://10.1.1.1:5000",
				      "fi_sockaddr_in://10.1.1.1:5001",
				      "fi_sockaddr_in://10.1.1.2:5000",
				      "fi_sockaddr_in://10.1.1.2:5001" };
	struct fid_domain *d;
	struct fid_av *av;
	fi_addr_t fi[4];
	char out[128];
	size_t len;

	ASSERT_EQ(0, domain_open(FI_ADDR_STR, false, &d));
	ASSERT_EQ(0, av_open(d, 0, &av));
	ASSERT_EQ(4, fi_av_insertsym(av, "10.1.1.1", 2, "5000", 2, fi, 0,
				     NULL));
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ((fi_addr_t)i, fi[i]);
		len = sizeof(out);
		ASSERT_EQ(0, fi_av_lookup(av, fi[i], out, &len));
		EXPECT_STREQ(want[i], out);
	}
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&d->fid));
}

/* insertsvc: numeric host + service; FI_ADDR_STR node with NULL service;
 * NULL node or service where not allowed is -FI_EINVAL. */
TEST_F(av, insertsvc_numeric_and_str)
{
	struct sockaddr_in out;
	fi_addr_t fi;
	size_t len = sizeof(out);

	ASSERT_EQ(1, fi_av_insertsvc(self->av, "10.1.2.3", "4444", &fi, 0,
				     NULL));
	ASSERT_EQ(0, fi_av_lookup(self->av, fi, &out, &len));
	EXPECT_EQ(htonl(0x0a010203), out.sin_addr.s_addr);
	EXPECT_EQ(htons(4444), out.sin_port);
	ASSERT_EQ(1, fi_av_insertsvc(self->av,
				     "fi_sockaddr_in://10.9.9.9:1234", NULL,
				     &fi, 0, NULL));
	len = sizeof(out);
	ASSERT_EQ(0, fi_av_lookup(self->av, fi, &out, &len));
	EXPECT_EQ(htons(1234), out.sin_port);
	EXPECT_EQ(-FI_EINVAL, fi_av_insertsvc(self->av, NULL, "1", &fi, 0,
					      NULL));
	EXPECT_EQ(-FI_EINVAL, fi_av_insertsvc(self->av, "10.0.0.1", NULL,
					      &fi, 0, NULL));
}

/* The man page's own insertsym example, in node-major order. */
TEST_F(av, insertsym_man_page_example)
{
	static const char *want[] = { "10.1.1.1:5000", "10.1.1.1:5001",
				      "10.1.1.2:5000", "10.1.1.2:5001" };
	struct sockaddr_in out;
	char ip[INET_ADDRSTRLEN], got[32];
	fi_addr_t fi[4];
	size_t len;

	ASSERT_EQ(4, fi_av_insertsym(self->av, "10.1.1.1", 2, "5000", 2, fi,
				     0, NULL));
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ((fi_addr_t)i, fi[i]);
		len = sizeof(out);
		ASSERT_EQ(0, fi_av_lookup(self->av, fi[i], &out, &len));
		snprintf(got, sizeof(got), "%s:%u",
			 inet_ntop(AF_INET, &out.sin_addr, ip, sizeof(ip)),
			 ntohs(out.sin_port));
		EXPECT_STREQ(want[i], got);
	}
	EXPECT_EQ(-FI_EINVAL, fi_av_insertsym(self->av, NULL, 1, "5000", 1,
					      fi, 0, NULL));
	EXPECT_EQ(-FI_EINVAL, fi_av_insertsym(self->av, "10.0.0.1", 1, NULL,
					      1, fi, 0, NULL));
}

/* Host names with numeric suffixes: host10, host11 (from /etc/hosts). */
TEST_F(av, insertsym_hostnames_numeric_suffix)
{
	static const char hosts[] =
		"10.7.0.10 kavhost10\n10.7.0.11 kavhost11\n";
	struct sockaddr_in out;
	fi_addr_t fi[4];
	size_t len;
	FILE *f;

	mkdir("/etc", 0755);	/* the test VM's initramfs may have none */
	f = fopen("/etc/hosts", "a");
	if (!f)
		SKIP(return, "cannot add test names to /etc/hosts");
	fputs(hosts, f);
	fclose(f);
	ASSERT_EQ(4, fi_av_insertsym(self->av, "kavhost10", 2, "6000", 2, fi,
				     0, NULL));
	len = sizeof(out);
	ASSERT_EQ(0, fi_av_lookup(self->av, fi[1], &out, &len));
	EXPECT_EQ(htonl(0x0a07000a), out.sin_addr.s_addr);
	EXPECT_EQ(htons(6001), out.sin_port);
	len = sizeof(out);
	ASSERT_EQ(0, fi_av_lookup(self->av, fi[2], &out, &len));
	EXPECT_EQ(htonl(0x0a07000b), out.sin_addr.s_addr);
	EXPECT_EQ(htons(6000), out.sin_port);
	/* "it must contain a numeric suffix if nodecnt > 1" */
	EXPECT_EQ(-FI_EINVAL, fi_av_insertsym(self->av, "localhost", 2,
					      "6000", 1, fi, 0, NULL));
}

/* FI_AV_USER_ID per insert (AV opened without it): fi_addr is input. */
TEST_F(av, insert_user_id_flag_per_insert)
{
	struct sockaddr_in s[2];
	struct kav_resolved r;
	fi_addr_t io[2] = { 0x1000, 0x2000 };

	fill(s, 2, 0x0a000001);
	ASSERT_EQ(2, fi_av_insert(self->av, s, 2, io, FI_AV_USER_ID, NULL));
	EXPECT_EQ(0, io[0]);
	EXPECT_EQ(1, io[1]);
	ASSERT_EQ(0, kav_av_resolve(self->av, io[1], &r));
	EXPECT_EQ(0x2000, r.user_id);
	/* set_user_id needs an AV opened with FI_AV_USER_ID. */
	EXPECT_EQ(-FI_EINVAL, fi_av_set_user_id(self->av, io[0], 5, 0));
}

/* FI_AV_USER_ID at open: ids default to FI_ADDR_NOTAVAIL until set;
 * the per-insert flag is then invalid. */
TEST(user_id_av_set_user_id)
{
	struct sockaddr_in s = sin4(0x0a000001, 1);
	struct kav_resolved r;
	struct fid_domain *d;
	struct fid_av *av;
	fi_addr_t fi;

	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN, false, &d));
	ASSERT_EQ(0, av_open(d, FI_AV_USER_ID, &av));
	ASSERT_EQ(1, fi_av_insert(av, &s, 1, &fi, 0, NULL));
	ASSERT_EQ(0, kav_av_resolve(av, fi, &r));
	EXPECT_EQ(FI_ADDR_NOTAVAIL, r.user_id);
	ASSERT_EQ(0, fi_av_set_user_id(av, fi, 0xbeef, 0));
	ASSERT_EQ(0, kav_av_resolve(av, fi, &r));
	EXPECT_EQ(0xbeef, r.user_id);
	EXPECT_EQ(-FI_EINVAL, fi_av_set_user_id(av, fi + 1, 1, 0));
	fi = 0x77;
	EXPECT_EQ(-FI_EINVAL, fi_av_insert(av, &s, 1, &fi, FI_AV_USER_ID,
					   NULL));
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&d->fid));
}

FIXTURE(keyed) {
	struct fid_domain *dom;
	struct fid_av *av;
	struct kav_test_grants grants;
};

/* The keys these tests insert are granted to the test's uid. */
FIXTURE_SETUP(keyed)
{
	memset(&self->grants, 0, sizeof(self->grants));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 1, 12));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 42, 1));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 100, KAV_MAX_AUTH_KEYS));
	ASSERT_EQ(0, kav_test_grant(&self->grants, 9999, 1));
	setenv("KAV_LOG", "none", 1);
	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN, true, &self->dom));
	ASSERT_EQ(0, av_open(self->dom, FI_AV_USER_ID, &self->av));
}

FIXTURE_TEARDOWN(keyed)
{
	if (self->av)
		EXPECT_EQ(0, fi_close(&self->av->fid));
	EXPECT_EQ(0, fi_close(&self->dom->fid));
	kav_test_revoke_all(&self->grants);
}

/* fi_av_insert_auth_key: size must match the provider's structure, NULL
 * arguments and flags are -FI_EINVAL, the per-AV cap is -FI_ENOSPC. */
TEST_F(keyed, insert_auth_key_arguments_and_cap)
{
	struct kav_auth_key k = { .vni = 42 };
	fi_addr_t h;
	int i;

	EXPECT_EQ(-FI_EINVAL, fi_av_insert_auth_key(self->av, &k,
						    sizeof(k) - 1, &h, 0));
	EXPECT_EQ(-FI_EINVAL, fi_av_insert_auth_key(self->av, NULL,
						    sizeof(k), &h, 0));
	EXPECT_EQ(-FI_EINVAL, fi_av_insert_auth_key(self->av, &k, sizeof(k),
						    NULL, 0));
	EXPECT_EQ(-FI_EINVAL, fi_av_insert_auth_key(self->av, &k, sizeof(k),
						    &h, 1));
	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++) {
		k.vni = 100 + i;
		ASSERT_EQ(0, fi_av_insert_auth_key(self->av, &k, sizeof(k),
						   &h, 0));
	}
	k.vni = 9999;
	EXPECT_EQ(-FI_ENOSPC, fi_av_insert_auth_key(self->av, &k, sizeof(k),
						    &h, 0));
}

/* Insert against key handles with FI_AUTH_KEY; fi_av_lookup_auth_key on
 * the handle and on the address; truncation like lookup. */
TEST_F(keyed, insert_with_auth_key_and_lookup)
{
	struct kav_auth_key k = { .vni = 7 }, got;
	struct sockaddr_in s[2];
	fi_addr_t h, io[2], plain;
	size_t size;

	ASSERT_EQ(0, fi_av_insert_auth_key(self->av, &k, sizeof(k), &h, 0));
	fill(s, 2, 0x0a000001);
	io[0] = h;
	io[1] = h;
	ASSERT_EQ(2, fi_av_insert(self->av, s, 2, io, FI_AUTH_KEY, NULL));
	EXPECT_NE(h, io[0]);

	size = sizeof(got);
	memset(&got, 0, sizeof(got));
	ASSERT_EQ(0, fi_av_lookup_auth_key(self->av, io[1], &got, &size));
	EXPECT_EQ(sizeof(k), size);
	EXPECT_EQ(7, got.vni);
	size = sizeof(got);
	ASSERT_EQ(0, fi_av_lookup_auth_key(self->av, h, &got, &size));
	EXPECT_EQ(7, got.vni);
	size = 2;
	memset(&got, 0xff, sizeof(got));
	ASSERT_EQ(0, fi_av_lookup_auth_key(self->av, h, &got, &size));
	EXPECT_EQ(sizeof(k), size);
	EXPECT_EQ(7, got.vni & 0xffff);

	/* Inserted without FI_AUTH_KEY: bound to no key. */
	ASSERT_EQ(1, fi_av_insert(self->av, s, 1, &plain, 0, NULL));
	size = sizeof(got);
	EXPECT_EQ(-FI_ENOKEY, fi_av_lookup_auth_key(self->av, plain, &got,
						    &size));
	/* A forged handle is refused and inserts nothing. */
	io[0] = h + 1;
	EXPECT_EQ(0, fi_av_insert(self->av, s, 1, io, FI_AUTH_KEY, NULL));
	EXPECT_EQ(FI_ADDR_NOTAVAIL, io[0]);
}

/* "the FI_AUTH_KEY flag must be set when removing an authorization key
 * fi_addr_t" and -FI_EBUSY while endpoints enabled against it. */
TEST_F(keyed, remove_auth_key_busy_while_endpoint_enabled)
{
	struct kav_auth_key k = { .vni = 3 };
	struct kav_ep *ep;
	fi_addr_t h;

	ASSERT_EQ(0, fi_av_insert_auth_key(self->av, &k, sizeof(k), &h, 0));
	ASSERT_EQ(0, kav_ep_open(self->av, &ep));
	ASSERT_EQ(0, kav_ep_enable(ep));
	EXPECT_EQ(-FI_EBUSY, fi_av_remove(self->av, &h, 1, FI_AUTH_KEY));
	/* Without FI_AUTH_KEY the handle is not an address. */
	EXPECT_EQ(-FI_EINVAL, fi_av_remove(self->av, &h, 1, 0));
	/* "there must be no opened endpoints associated with the AV" */
	EXPECT_EQ(-FI_EBUSY, fi_close(&self->av->fid));
	ASSERT_EQ(0, kav_ep_close(ep));
	EXPECT_EQ(0, fi_av_remove(self->av, &h, 1, FI_AUTH_KEY));
}

/* fi_av_set_user_id with FI_AUTH_KEY targets a key handle. */
TEST_F(keyed, set_user_id_on_auth_key)
{
	struct kav_auth_key k = { .vni = 11 };
	fi_addr_t h;

	ASSERT_EQ(0, fi_av_insert_auth_key(self->av, &k, sizeof(k), &h, 0));
	EXPECT_EQ(0, fi_av_set_user_id(self->av, h, 0x55, FI_AUTH_KEY));
	EXPECT_EQ(-FI_EINVAL, fi_av_set_user_id(self->av, h, 0x55,
						FI_AUTH_KEY | FI_MORE));
}

/* fi_av_insert_auth_key needs a domain opened with FI_AV_AUTH_KEY. */
TEST_F(av, insert_auth_key_needs_av_auth_key_domain)
{
	struct kav_auth_key k = { .vni = 1 };
	fi_addr_t h;

	EXPECT_EQ(-FI_EINVAL, fi_av_insert_auth_key(self->av, &k, sizeof(k),
						    &h, 0));
}

/* FI_EVENT: -FI_ENOEQ before a bind; then one error entry per failed
 * address (index in data) before one FI_AV_COMPLETE with the count. */
TEST(event_queue_reports_inserts)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = FI_EVENT };
	struct fi_eq_err_entry err;
	struct fi_eq_entry ev;
	struct sockaddr_in s[3];
	struct fid_domain *d;
	struct fid_eq *eq;
	struct fid_av *av;
	uint32_t event;
	fi_addr_t fi[3];
	int ctx;

	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN, false, &d));
	ASSERT_EQ(0, fi_av_open(d, &attr, &av, NULL));
	ASSERT_EQ(0, kav_eq_open(d, NULL, &eq, NULL));
	fill(s, 3, 0x0a000001);
	EXPECT_EQ(-FI_ENOEQ, fi_av_insert(av, s, 3, fi, 0, &ctx));
	EXPECT_EQ(-FI_EINVAL, kav_test_av_bind(av, &eq->fid, 1));
	ASSERT_EQ(0, kav_test_av_bind(av, &eq->fid, 0));
	EXPECT_EQ(-FI_EBUSY, fi_close(&eq->fid));

	s[1].sin_family = AF_INET6;
	EXPECT_EQ(0, fi_av_insert(av, s, 3, fi, 0, &ctx));
	EXPECT_EQ(-FI_EAVAIL, fi_eq_read(eq, &event, &ev, sizeof(ev), 0));
	/* fi_eq(3): "returns the number of bytes read" */
	ASSERT_EQ((ssize_t)sizeof(err), fi_eq_readerr(eq, &err, 0));
	EXPECT_EQ(&ctx, err.context);
	EXPECT_EQ(1, err.data);
	EXPECT_NE(0, err.err);
	ASSERT_EQ((ssize_t)sizeof(ev), fi_eq_read(eq, &event, &ev, sizeof(ev),
						  0));
	EXPECT_EQ(FI_AV_COMPLETE, event);
	EXPECT_EQ(&ctx, ev.context);
	EXPECT_EQ(2, ev.data);
	EXPECT_EQ(FI_ADDR_NOTAVAIL, fi[1]);
	EXPECT_EQ(-FI_EAGAIN, fi_eq_read(eq, &event, &ev, sizeof(ev), 0));
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&eq->fid));
	EXPECT_EQ(0, fi_close(&d->fid));
}

/* "There will always be one non-error completion event for each insert
 * operation, even if all addresses fail" and "any events queued on an
 * event queue referencing the AV are left untouched" by fi_close. */
TEST(event_queue_all_fail_and_close_keeps_events)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .flags = FI_EVENT };
	struct fi_eq_err_entry err;
	struct fi_eq_entry ev;
	struct sockaddr_in s[2];
	struct fid_domain *d;
	struct fid_eq *eq;
	struct fid_av *av;
	uint32_t event;
	int ctx, i;

	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN, false, &d));
	ASSERT_EQ(0, fi_av_open(d, &attr, &av, NULL));
	ASSERT_EQ(0, kav_eq_open(d, NULL, &eq, NULL));
	ASSERT_EQ(0, kav_test_av_bind(av, &eq->fid, 0));
	fill(s, 2, 0x0a000001);
	s[0].sin_family = s[1].sin_family = AF_INET6;
	EXPECT_EQ(0, fi_av_insert(av, s, 2, NULL, 0, &ctx));
	ASSERT_EQ(0, fi_close(&av->fid));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ((ssize_t)sizeof(err), fi_eq_readerr(eq, &err, 0));
		EXPECT_EQ((uint64_t)i, err.data);
	}
	ASSERT_EQ((ssize_t)sizeof(ev), fi_eq_read(eq, &event, &ev, sizeof(ev),
						  0));
	EXPECT_EQ(FI_AV_COMPLETE, event);
	EXPECT_EQ(0, ev.data);
	EXPECT_EQ(0, fi_close(&eq->fid));
	EXPECT_EQ(0, fi_close(&d->fid));
}

/* "If name is NULL ... The map_addr field is ignored". */
TEST(map_addr_ignored_without_name)
{
	struct fi_av_attr attr = { .type = FI_AV_TABLE,
				   .map_addr = (void *)0x1234 };
	struct fid_domain *d;
	struct fid_av *av;

	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN, false, &d));
	ASSERT_EQ(0, fi_av_open(d, &attr, &av, NULL));
	EXPECT_EQ((void *)0x1234, attr.map_addr);
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&d->fid));
}

/* "Using the FI_AV_USER_ID flag per insert is invalid if ... the
 * corresponding domain was configured with FI_AV_AUTH_KEY." */
TEST(user_id_per_insert_invalid_on_av_auth_key_domain)
{
	struct sockaddr_in s = sin4(0x0a000001, 1);
	struct fid_domain *d;
	struct fid_av *av;
	fi_addr_t io = 5;

	ASSERT_EQ(0, domain_open(FI_SOCKADDR_IN, true, &d));
	ASSERT_EQ(0, av_open(d, 0, &av));
	EXPECT_EQ(-FI_EINVAL, fi_av_insert(av, &s, 1, &io, FI_AV_USER_ID,
					   NULL));
	EXPECT_EQ(0, fi_close(&av->fid));
	EXPECT_EQ(0, fi_close(&d->fid));
}

/* The AV set op exists and builds sets from the AV's addresses. */
TEST_F(av, av_set_from_range)
{
	struct fi_av_set_attr attr = { .count = 8, .start_addr = 0,
				       .end_addr = 3, .stride = 1 };
	struct sockaddr_in s[4];
	struct fid_av_set *set;
	struct fid_peer_av_set *peer;
	fi_addr_t members[4];
	size_t n = 2;

	fill(s, 4, 0x0a000001);
	ASSERT_EQ(4, fi_av_insert(self->av, s, 4, NULL, 0, NULL));
	ASSERT_EQ(0, fi_av_set(self->av, &attr, &set, NULL));
	ASSERT_EQ(0, fi_av_set_remove(set, 2));
	ASSERT_EQ(0, kav_av_set_peer_open(set, &peer));
	/* fi_peer(3): a short array gets -FI_ETOOSMALL and the count. */
	EXPECT_EQ(-FI_ETOOSMALL, peer->owner_ops->members(peer, members, &n));
	EXPECT_EQ(3, n);
	ASSERT_EQ(0, peer->owner_ops->members(peer, members, &n));
	EXPECT_EQ(0, members[0]);
	EXPECT_EQ(1, members[1]);
	EXPECT_EQ(3, members[2]);
	EXPECT_EQ(0, fi_close(&peer->fid));
	EXPECT_EQ(0, fi_close(&set->fid));
}

/* fi_peer(3) peer AV: query reports the attributes, ep_addr maps an
 * endpoint's own address to its fi_addr. */
TEST_F(av, peer_av_query_and_ep_addr)
{
	struct sockaddr_in s[3];
	struct fid_peer_av *peer;
	struct fi_av_attr attr;

	fill(s, 3, 0x0a000001);
	ASSERT_EQ(3, fi_av_insert(self->av, s, 3, NULL, 0, NULL));
	ASSERT_EQ(0, kav_av_peer_open(self->av, &peer));
	ASSERT_EQ(0, peer->owner_ops->query(peer, &attr));
	EXPECT_EQ(FI_AV_TABLE, attr.type);
	EXPECT_LE(3, attr.count);
	EXPECT_EQ(-FI_EBUSY, fi_close(&self->av->fid));
	EXPECT_EQ(0, fi_close(&peer->fid));
}

/* The same through a mock offload provider importing the peer AV the way
 * fi_peer(3) describes (FI_PEER + struct fi_peer_av_context). */
TEST_F(av, peer_av_imported_by_mock_provider)
{
	struct sockaddr_in s[3];
	struct fi_peer_av_context ctx = { .size = sizeof(ctx) };
	struct mock_peer_av_report rep;
	struct mock_ep ep;

	fill(s, 3, 0x0a000001);
	ASSERT_EQ(3, fi_av_insert(self->av, s, 3, NULL, 0, NULL));
	ASSERT_EQ(0, kav_av_peer_open(self->av, &ctx.av));
	mock_ep_init(&ep, &s[2], sizeof(s[2]));
	ASSERT_EQ(0, mock_peer_import_av(&ctx, &ep.ep, &rep));
	EXPECT_EQ(0, rep.open_ret);
	EXPECT_EQ(0, rep.query_ret);
	EXPECT_EQ(FI_AV_TABLE, rep.attr.type);
	EXPECT_EQ(2, rep.ep_addr);
	EXPECT_EQ(0, rep.close_ret);
	/* An endpoint whose address is not in the AV has no fi_addr. */
	s[0].sin_port = htons(1);
	mock_ep_init(&ep, &s[0], sizeof(s[0]));
	EXPECT_EQ(FI_ADDR_NOTAVAIL, ctx.av->owner_ops->ep_addr(ctx.av,
							       &ep.ep));
	EXPECT_EQ(0, fi_close(&ctx.av->fid));
}

TEST_HARNESS_MAIN
