// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The whole fi_av API through libfabric's own inline calls, against the
 * fake kernel of fake_kav.c (a memfd-backed table, real mmap and lookup).
 */
#include <stdlib.h>

#include "test_fixture.h"
#include "fake_kav.h"

static int open_domain_av(void **state, uint32_t format)
{
	struct fi_domain_attr dattr = { 0 };
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 16 };

	av_fixture_open(state, format, &dattr, &attr);
	return 0;
}

static int setup_in(void **state)
{
	return open_domain_av(state, FI_SOCKADDR_IN);
}

static int setup_in6(void **state)
{
	return open_domain_av(state, FI_SOCKADDR_IN6);
}

static int setup_sockaddr(void **state)
{
	return open_domain_av(state, FI_SOCKADDR);
}

static int setup_str(void **state)
{
	return open_domain_av(state, FI_ADDR_STR);
}

/* fi_av_straddr() of the entry at @idx. */
static const char *entry_str(struct fid_av *av, fi_addr_t idx, char *buf,
			     size_t len)
{
	uint8_t addr[KAV_ADDR_MAX_LEN];
	size_t alen = sizeof(addr);

	assert_int_equal(fi_av_lookup(av, idx, addr, &alen), 0);
	return fi_av_straddr(av, addr, buf, &len);
}

static void test_open_close(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_attr attr = { .type = FI_AV_UNSPEC };
	struct fid_av *av2;
	int ctx;

	assert_int_equal(f->av->fid.fclass, FI_CLASS_AV);
	assert_int_equal(fi_av_open(f->dom, &attr, &av2, &ctx), 0);
	assert_int_equal(attr.type, FI_AV_TABLE);	/* chosen for UNSPEC */
	assert_ptr_equal(av2->fid.context, &ctx);
	attr.type = FI_AV_MAP;				/* behaves as TABLE */
	attr.flags = FI_SYMMETRIC;			/* a hint */
	assert_int_equal(fi_close(&av2->fid), 0);
	assert_int_equal(fi_av_open(f->dom, &attr, &av2, NULL), 0);
	assert_int_equal(attr.type, FI_AV_MAP);
	assert_int_equal(fake_kav_stats.creates, 3);

	/* The domain stays while AVs are open. */
	assert_int_equal(fi_close(&f->dom->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&av2->fid), 0);
	assert_int_equal(fi_close(&f->dom->fid), -FI_EBUSY);
	assert_int_equal(fi_close(&f->av->fid), 0);
	f->av = NULL;
	/* The teardown closes the domain: now allowed. */
}

static void test_insert_lookup(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in[3], out;
	fi_addr_t fa[3] = { 7, 7, 7 };
	size_t len;
	char buf[64];
	int i;

	in[0] = test_sin("10.0.0.1", 5000);
	in[1] = test_sin("10.0.0.2", 5001);
	in[2] = test_sin("10.0.0.3", 5002);
	assert_int_equal(fi_av_insert(f->av, in, 3, fa, 0, NULL), 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(fa[i], i);
		len = sizeof(out);
		assert_int_equal(fi_av_lookup(f->av, fa[i], &out, &len), 0);
		assert_int_equal(len, sizeof(out));
		assert_memory_equal(&out, &in[i], sizeof(out));
	}
	assert_string_equal(entry_str(f->av, 1, buf, sizeof(buf)),
			    "fi_sockaddr_in://10.0.0.2:5001");
	/* Sequential across calls; fi_addr may be NULL. */
	assert_int_equal(fi_av_insert(f->av, in, 1, NULL, FI_MORE, NULL), 1);
	assert_string_equal(entry_str(f->av, 3, buf, sizeof(buf)),
			    "fi_sockaddr_in://10.0.0.1:5000");

	/* Lookup errors and truncation. */
	len = sizeof(out);
	assert_int_equal(fi_av_lookup(f->av, FI_ADDR_NOTAVAIL, &out, &len),
			 -FI_EINVAL);
	assert_int_equal(fi_av_lookup(f->av, 4, &out, &len), -FI_EINVAL);
	assert_int_equal(fi_av_lookup(f->av, 1ULL << 30, &out, &len),
			 -FI_EINVAL);
	/* Bits 32..63 are the caller's (group id, rx context). */
	assert_int_equal(fi_av_lookup(f->av, (1ULL << 40) | 2, &out, &len),
			 0);
	assert_memory_equal(&out, &in[2], sizeof(out));
	assert_int_equal(fi_av_lookup(f->av, 0, &out, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_lookup(f->av, 0, NULL, &len), -FI_EINVAL);
	len = 0;
	assert_int_equal(fi_av_lookup(f->av, 0, NULL, &len), 0);
	assert_int_equal(len, sizeof(struct sockaddr_in));
	len = 2;
	memset(&out, 0, sizeof(out));
	assert_int_equal(fi_av_lookup(f->av, 2, &out, &len), 0);
	assert_int_equal(len, sizeof(struct sockaddr_in));
	assert_int_equal(out.sin_family, AF_INET);
	assert_int_equal(out.sin_port, 0);		/* not copied */
}

static void test_insert_flags_and_args(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in = test_sin("10.0.0.1", 1);
	int errs[1];

	assert_int_equal(fi_av_insert(f->av, &in, 1, NULL, FI_AV_USER_ID,
				      NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insert(f->av, &in, 1, NULL, FI_SYNC_ERR, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_av_insert(f->av, NULL, 1, NULL, 0, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_av_insert(f->av, NULL, 0, NULL, 0, NULL), 0);
	assert_int_equal(fi_av_insert(f->av, &in, 1, NULL, FI_SYNC_ERR, errs),
			 1);
	assert_int_equal(errs[0], 0);
	assert_int_equal(fake_kav_stats.inserts, 1);
}

static void test_insert_invalid_skipped(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in[3];
	fi_addr_t fa[3];
	int errs[3] = { -1, -1, -1 };

	in[0] = test_sin("10.0.0.1", 1);
	in[1] = test_sin("10.0.0.2", 2);
	in[1].sin_family = AF_INET6;		/* wrong for FI_SOCKADDR_IN */
	in[2] = test_sin("10.0.0.3", 3);
	assert_int_equal(fi_av_insert(f->av, in, 3, fa, FI_SYNC_ERR, errs), 2);
	assert_int_equal(fa[0], 0);
	assert_true(fa[1] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[2], 1);
	assert_int_equal(errs[0], 0);
	assert_int_equal(errs[1], FI_EINVAL);
	assert_int_equal(errs[2], 0);
	/* The bad one never reached the kernel. */
	assert_int_equal(fake_kav_stats.inserts, 1);
	assert_int_equal(fake_kav_stats.max_batch, 2);
}

static void test_kernel_refusal_resends(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in[5];
	fi_addr_t fa[5];
	int errs[5], i;

	for (i = 0; i < 5; i++)
		in[i] = test_sin("10.0.0.9", i % 2 ? 666 : 1000 + i);
	fake_kav_reject_port = 666;
	assert_int_equal(fi_av_insert(f->av, in, 5, fa, FI_SYNC_ERR, errs), 3);
	assert_int_equal(fa[0], 0);
	assert_true(fa[1] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[2], 1);
	assert_true(fa[3] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[4], 2);
	assert_int_equal(errs[1], FI_EINVAL);
	assert_int_equal(errs[3], FI_EINVAL);
	assert_int_equal(errs[4], 0);
	/* Refused twice (atomically: nothing inserted), then accepted. */
	assert_int_equal(fake_kav_stats.inserts, 3);
}

static void test_batches(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	size_t n = KAV_BATCH_MAX + 10, i;
	struct sockaddr_in *in = calloc(n, sizeof(*in)), out;
	fi_addr_t *fa = calloc(n, sizeof(*fa));
	struct fid_av *big;
	size_t len = sizeof(out);

	fake_kav_max_entries = n + 100;
	assert_int_equal(fi_av_open(f->dom, &attr, &big, NULL), 0);
	for (i = 0; i < n; i++) {
		in[i].sin_family = AF_INET;
		in[i].sin_addr.s_addr = htonl(0x0a000000u + (uint32_t)i);
		in[i].sin_port = htons(1);
	}
	assert_int_equal(fi_av_insert(big, in, n, fa, 0, NULL), (int)n);
	assert_int_equal(fake_kav_stats.inserts, 2);
	assert_int_equal(fake_kav_stats.max_batch, KAV_BATCH_MAX);
	assert_true(fa[n - 1] == n - 1);
	assert_int_equal(fi_av_lookup(big, n - 1, &out, &len), 0);
	assert_memory_equal(&out, &in[n - 1], sizeof(out));

	/* A removal larger than a batch: checked first, then applied. */
	fa[5] = fa[6];				/* a duplicate */
	assert_int_equal(fi_av_remove(big, fa, n, 0), -FI_EINVAL);
	assert_int_equal(fake_kav_stats.removes, 0);
	fa[5] = 5;
	assert_int_equal(fi_av_remove(big, fa, n, 0), 0);
	assert_int_equal(fake_kav_stats.removes, 2);
	assert_int_equal(fi_av_lookup(big, 0, &out, &len), -FI_EINVAL);
	assert_int_equal(fi_close(&big->fid), 0);
	free(in);
	free(fa);
}

static void test_full(void **state)
{
	struct av_fixture *f = *state;
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct sockaddr_in in[6];
	struct fid_av *small;
	int errs[6], i;

	fake_kav_max_entries = 4;
	assert_int_equal(fi_av_open(f->dom, &attr, &small, NULL), 0);
	for (i = 0; i < 6; i++)
		in[i] = test_sin("10.0.0.1", (uint16_t)i);
	/* One kernel batch is all or nothing. */
	assert_int_equal(fi_av_insert(small, in, 6, NULL, FI_SYNC_ERR, errs),
			 0);
	for (i = 0; i < 6; i++)
		assert_int_equal(errs[i], FI_ENOSPC);
	assert_int_equal(fi_av_insert(small, in, 4, NULL, 0, NULL), 4);
	assert_int_equal(fi_close(&small->fid), 0);
}

static void test_remove(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in[3], out;
	fi_addr_t fa[3], rm[2], again;
	size_t len = sizeof(out);

	in[0] = test_sin("10.0.0.1", 1);
	in[1] = test_sin("10.0.0.2", 2);
	in[2] = test_sin("10.0.0.3", 3);
	assert_int_equal(fi_av_insert(f->av, in, 3, fa, 0, NULL), 3);
	rm[0] = 1;
	assert_int_equal(fi_av_remove(f->av, rm, 1, 0), 0);
	assert_int_equal(fi_av_lookup(f->av, 1, &out, &len), -FI_EINVAL);
	/* The lowest free index is reused. */
	assert_int_equal(fi_av_insert(f->av, &in[1], 1, &again, 0, NULL), 1);
	assert_int_equal(again, 1);

	/* Atomic: a bad index (or a repeat) removes nothing. */
	rm[0] = 0;
	rm[1] = 99;
	assert_int_equal(fi_av_remove(f->av, rm, 2, 0), -FI_EINVAL);
	rm[1] = 0;
	assert_int_equal(fi_av_remove(f->av, rm, 2, 0), -FI_EINVAL);
	len = sizeof(out);
	assert_int_equal(fi_av_lookup(f->av, 0, &out, &len), 0);

	assert_int_equal(fi_av_remove(f->av, rm, 1, FI_MORE), -FI_EINVAL);
	assert_int_equal(fi_av_remove(f->av, NULL, 1, 0), -FI_EINVAL);
	assert_int_equal(fi_av_remove(f->av, NULL, 0, 0), 0);
}

static void test_insertsvc(void **state)
{
	struct av_fixture *f = *state;
	char buf[64];
	fi_addr_t fa;

	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.1", "5000", &fa, 0,
					 NULL), 1);
	assert_string_equal(entry_str(f->av, fa, buf, sizeof(buf)),
			    "fi_sockaddr_in://10.0.0.1:5000");
	/* An FI_ADDR_STR node, with no service. */
	assert_int_equal(fi_av_insertsvc(f->av,
					 "fi_sockaddr_in://10.0.0.2:6000",
					 NULL, &fa, 0, NULL), 1);
	assert_string_equal(entry_str(f->av, fa, buf, sizeof(buf)),
			    "fi_sockaddr_in://10.0.0.2:6000");
	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.1", NULL, &fa, 0,
					 NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsvc(f->av, NULL, "5000", &fa, 0, NULL),
			 -FI_EINVAL);
	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.1", "http", &fa, 0,
					 NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.1", "1", &fa,
					 FI_PEEK, NULL), -FI_EINVAL);
}

static void test_insertsym_man_page(void **state)
{
	struct av_fixture *f = *state;
	fi_addr_t fa[4];
	char buf[64];

	assert_int_equal(fi_av_insertsym(f->av, "10.1.1.1", 2, "5000", 2, fa,
					 0, NULL), 4);
	assert_int_equal(fake_kav_stats.inserts, 1);	/* one batch */
	assert_string_equal(entry_str(f->av, fa[0], buf, sizeof(buf)),
			    "fi_sockaddr_in://10.1.1.1:5000");
	assert_string_equal(entry_str(f->av, fa[1], buf, sizeof(buf)),
			    "fi_sockaddr_in://10.1.1.1:5001");
	assert_string_equal(entry_str(f->av, fa[2], buf, sizeof(buf)),
			    "fi_sockaddr_in://10.1.1.2:5000");
	assert_string_equal(entry_str(f->av, fa[3], buf, sizeof(buf)),
			    "fi_sockaddr_in://10.1.1.2:5001");
	assert_int_equal(fi_av_insertsym(f->av, "10.1.1.1", 0, "5000", 2, fa,
					 0, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsym(f->av, "node", 2, "5000", 1, fa,
					 0, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsym(f->av, NULL, 1, "5000", 1, fa,
					 0, NULL), -FI_EINVAL);
}

static void test_in6(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in6 in6 = test_sin6("fe80::1", 9), out;
	fi_addr_t fa[2];
	int errs[2];
	size_t len = sizeof(out);
	char buf[80];

	assert_int_equal(fi_av_insert(f->av, &in6, 1, fa, 0, NULL), 1);
	assert_int_equal(fi_av_lookup(f->av, fa[0], &out, &len), 0);
	assert_int_equal(len, sizeof(out));
	assert_memory_equal(&out, &in6, sizeof(out));
	assert_int_equal(fi_av_insertsym(f->av, "fe80::10", 2, "7000", 1, fa,
					 0, NULL), 2);
	assert_string_equal(entry_str(f->av, fa[1], buf, sizeof(buf)),
			    "fi_sockaddr_in6://[fe80::11]:7000");
	/* A node with no IPv6 address fails alone (no DNS involved). */
	assert_int_equal(fi_av_insertsvc(f->av, "10.0.0.1", "1", fa,
					 FI_SYNC_ERR, errs), 0);
	assert_true(fa[0] == FI_ADDR_NOTAVAIL);
	assert_int_equal(errs[0], FI_EADDRNOTAVAIL);
}

static void test_sockaddr_mixed(void **state)
{
	struct av_fixture *f = *state;
	uint8_t slots[2][28], out[28];
	struct sockaddr_in in = test_sin("10.0.0.1", 1);
	struct sockaddr_in6 in6 = test_sin6("::1", 2);
	size_t len;

	/* FI_SOCKADDR arrays use sockaddr_in6-sized slots. */
	memset(slots, 0xcc, sizeof(slots));
	memcpy(slots[0], &in, sizeof(in));
	memcpy(slots[1], &in6, sizeof(in6));
	assert_int_equal(fi_av_insert(f->av, slots, 2, NULL, 0, NULL), 2);
	len = sizeof(out);
	assert_int_equal(fi_av_lookup(f->av, 0, out, &len), 0);
	assert_int_equal(len, sizeof(in));
	assert_memory_equal(out, &in, sizeof(in));
	len = sizeof(out);
	assert_int_equal(fi_av_lookup(f->av, 1, out, &len), 0);
	assert_int_equal(len, sizeof(in6));
	assert_memory_equal(out, &in6, sizeof(in6));
}

static void test_str(void **state)
{
	struct av_fixture *f = *state;
	const char *addrs[3] = { "fi_sockaddr_in://1.2.3.4:5", NULL, "abc" };
	fi_addr_t fa[3];
	char out[96], buf[8];
	size_t len = sizeof(out);

	assert_int_equal(fi_av_insert(f->av, addrs, 3, fa, 0, NULL), 2);
	assert_true(fa[1] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fi_av_lookup(f->av, fa[0], out, &len), 0);
	assert_int_equal(len, strlen(addrs[0]) + 1);
	assert_string_equal(out, addrs[0]);
	len = sizeof(buf);
	assert_string_equal(fi_av_straddr(f->av, "abcdefghij", buf, &len),
			    "abcdefg");
	assert_int_equal(len, 11);
	assert_int_equal(fi_av_insertsvc(f->av, "node-a", NULL, fa, 0, NULL),
			 1);
	assert_int_equal(fi_av_insertsvc(f->av, "node-a", "1", fa, 0, NULL),
			 -FI_EINVAL);
}

/* The string stored at @idx of an FI_ADDR_STR AV, checked for its length. */
static const char *str_entry(struct fid_av *av, fi_addr_t idx, char *buf,
			     size_t len)
{
	size_t alen = len;

	assert_int_equal(fi_av_lookup(av, idx, buf, &alen), 0);
	assert_true(alen <= len);
	assert_int_equal(alen, strlen(buf) + 1);
	return buf;
}

/*
 * insertsym on FI_ADDR_STR: the man page's example gives the four
 * addresses node-major, each stored as its fi_av_straddr() string: the
 * very strings an IP AV's fi_av_straddr() gives for the same call.
 */
static void test_insertsym_str_man_page(void **state)
{
	static const char *const want[4] = {
		"fi_sockaddr_in://10.1.1.1:5000",
		"fi_sockaddr_in://10.1.1.1:5001",
		"fi_sockaddr_in://10.1.1.2:5000",
		"fi_sockaddr_in://10.1.1.2:5001",
	};
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct av_fixture *f = *state;
	struct fid_domain *dom_in;
	struct fid_av *av_in;
	fi_addr_t fa[4], fa_in[4];
	char buf[96], ip_str[96];
	int errs[4] = { -1, -1, -1, -1 };
	int i;

	assert_int_equal(fi_av_insertsym(f->av, "10.1.1.1", 2, "5000", 2, fa,
					 FI_SYNC_ERR, errs), 4);
	assert_int_equal(fake_kav_stats.inserts, 1);	/* one batch */
	for (i = 0; i < 4; i++) {
		assert_int_equal(fa[i], i);
		assert_int_equal(errs[i], 0);
		assert_string_equal(str_entry(f->av, fa[i], buf, sizeof(buf)),
				    want[i]);
		/* fi_av_straddr() of an FI_ADDR_STR address is itself. */
		assert_string_equal(entry_str(f->av, fa[i], buf,
					      sizeof(buf)), want[i]);
	}

	/* The same call on an FI_SOCKADDR_IN AV, printed by straddr. */
	dom_in = test_open_domain(FI_SOCKADDR_IN, 0);
	assert_int_equal(fi_av_open(dom_in, &attr, &av_in, NULL), 0);
	assert_int_equal(fi_av_insertsym(av_in, "10.1.1.1", 2, "5000", 2,
					 fa_in, 0, NULL), 4);
	for (i = 0; i < 4; i++)
		assert_string_equal(str_entry(f->av, fa[i], buf, sizeof(buf)),
				    entry_str(av_in, fa_in[i], ip_str,
					      sizeof(ip_str)));
	assert_int_equal(fi_close(&av_in->fid), 0);
	assert_int_equal(fi_close(&dom_in->fid), 0);
}

/* IPv6 nodes, and IPv4 nodes and ports counting across a boundary. */
static void test_insertsym_str_in6_and_carry(void **state)
{
	static const char *const want[6] = {
		"fi_sockaddr_in6://[fd00::1]:5000",
		"fi_sockaddr_in6://[fd00::2]:5000",
		"fi_sockaddr_in://10.0.0.255:65534",
		"fi_sockaddr_in://10.0.0.255:65535",
		"fi_sockaddr_in://10.0.1.0:65534",
		"fi_sockaddr_in://10.0.1.0:65535",
	};
	struct av_fixture *f = *state;
	fi_addr_t fa[6];
	char buf[96];
	int i;

	assert_int_equal(fi_av_insertsym(f->av, "fd00::1", 2, "5000", 1, fa,
					 0, NULL), 2);
	assert_int_equal(fi_av_insertsym(f->av, "10.0.0.255", 2, "65534", 2,
					 fa + 2, 0, NULL), 4);
	for (i = 0; i < 6; i++) {
		assert_int_equal(fa[i], i);
		assert_string_equal(str_entry(f->av, fa[i], buf, sizeof(buf)),
				    want[i]);
	}
}

/* Bad ranges fail the call as on IP AVs, before anything is inserted. */
static void test_insertsym_str_bad_range(void **state)
{
	struct av_fixture *f = *state;
	fi_addr_t fa[4];

	assert_int_equal(fi_av_insertsym(f->av, "10.1.1.1", 0, "5000", 2, fa,
					 0, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsym(f->av, "10.1.1.1", 1, "5000", 0, fa,
					 0, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsym(f->av, NULL, 1, "5000", 1, fa, 0,
					 NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsym(f->av, "10.1.1.1", 1, NULL, 1, fa,
					 0, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsym(f->av, "10.1.1.1", 1, "http", 1, fa,
					 0, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsym(f->av, "10.1.1.1", 1, "65535", 2, fa,
					 0, NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsym(f->av, "255.255.255.255", 2, "1", 1,
					 fa, 0, NULL), -FI_EINVAL);
	/* A name needs a numeric suffix to count up (no lookup is made). */
	assert_int_equal(fi_av_insertsym(f->av, "node", 2, "5000", 1, fa, 0,
					 NULL), -FI_EINVAL);
	assert_int_equal(fi_av_insertsym(f->av, "10.1.1.1", 1, "1", 1, fa,
					 FI_PEEK, NULL), -FI_EINVAL);
	assert_int_equal(fake_kav_stats.inserts, 0);
}

/*
 * One address of the range failing (here a bad FI_AUTH_KEY handle) fails
 * alone, in range order, as on IP AVs.
 */
static void test_insertsym_str_one_fails(void **state)
{
	struct kav_auth_key key = { .vni = 7 };
	struct fi_av_attr attr = { .type = FI_AV_TABLE };
	struct fid_domain *dom;
	struct fid_av *av;
	fi_addr_t h, fa[4];
	int errs[4];
	char buf[96];

	(void)state;
	fake_kav_install();
	dom = test_open_domain(FI_ADDR_STR, FI_AV_AUTH_KEY);
	assert_int_equal(fi_av_open(dom, &attr, &av, NULL), 0);
	assert_int_equal(fi_av_insert_auth_key(av, &key, sizeof(key), &h, 0),
			 0);
	fa[0] = fa[1] = fa[3] = h;
	fa[2] = KAV_FI_ADDR_KEY | 9;		/* no such key */
	assert_int_equal(fi_av_insertsym(av, "10.1.1.1", 2, "5000", 2, fa,
					 FI_AUTH_KEY | FI_SYNC_ERR, errs), 3);
	assert_int_equal(fa[0], 0);
	assert_int_equal(fa[1], 1);
	assert_true(fa[2] == FI_ADDR_NOTAVAIL);
	assert_int_equal(fa[3], 2);
	assert_int_equal(errs[0], 0);
	assert_int_equal(errs[1], 0);
	assert_int_equal(errs[2], FI_EINVAL);
	assert_int_equal(errs[3], 0);
	assert_string_equal(str_entry(av, 1, buf, sizeof(buf)),
			    "fi_sockaddr_in://10.1.1.1:5001");
	assert_string_equal(str_entry(av, 2, buf, sizeof(buf)),
			    "fi_sockaddr_in://10.1.1.2:5001");
	assert_int_equal(fi_close(&av->fid), 0);
	assert_int_equal(fi_close(&dom->fid), 0);
	fake_kav_reset();
}

static void test_av_fd(void **state)
{
	struct av_fixture *f = *state;
	struct fid_av other;
	int fd = kav_av_fd(f->av);
	struct sockaddr_in in = test_sin("10.0.0.7", 7), out;
	struct kav_map t;
	size_t len = sizeof(out);

	assert_true(fd >= 0);
	assert_int_equal(fd, ((struct kav_fid_av *)f->av)->fd);
	/* The fd is the AV's own table: mapping it shows what we insert. */
	assert_int_equal(fi_av_insert(f->av, &in, 1, NULL, 0, NULL), 1);
	assert_int_equal(kav_table_map(&t, fd, ((struct kav_fid_av *)
						f->av)->table.map_size, 0), 0);
	assert_int_equal(kav_table_lookup(&t, 0, &out, &len), 0);
	assert_memory_equal(&out, &in, sizeof(in));
	kav_table_unmap(&t);

	assert_int_equal(kav_av_fd(NULL), -FI_EINVAL);
	memset(&other, 0, sizeof(other));
	other.fid.ops = f->dom->fid.ops;	/* not an AV's ops */
	assert_int_equal(kav_av_fd(&other), -FI_EINVAL);
}

static void test_av_stubs(void **state)
{
	struct av_fixture *f = *state;

	/* Only a kav EQ binds (test_av_event covers the real one). */
	assert_int_equal(kav_test_av_bind(f->av, &f->dom->fid, 0), -FI_EINVAL);
	assert_int_equal(kav_test_av_bind(f->av, NULL, 0), -FI_EINVAL);
	assert_int_equal(fi_control(&f->av->fid, FI_GETWAIT, NULL),
			 -FI_ENOSYS);
	/*
	 * The 2.x ops table: size covers the three added members, beyond
	 * 1.17's table (test_av_attr: with 1.20+ headers, their whole one).
	 */
	assert_int_equal(f->av->ops->size, sizeof(struct kav_fi_ops_av));
	assert_true(f->av->ops->size >
		    offsetof(struct kav_fi_ops_av, insert_auth_key));
	assert_non_null(f->av->ops->av_set);
}

/* The symbol programs built against the layout-3 <kav/kav_view.h> call. */
int kav_view_init_layout3(struct fid_av *av, struct kav_view *view)
	__asm__("kav_view_init");

/*
 * The inline reader (kav_view_init is kav_view_init2) on the new entry
 * layout; the old header's symbol refused, and the view it leaves
 * resolves nothing.
 */
static void test_view_abi(void **state)
{
	struct av_fixture *f = *state;
	struct sockaddr_in in = test_sin("10.0.0.9", 7000);
	struct kav_view_entry ent;
	struct kav_view view;
	fi_addr_t fa;

	assert_int_equal(fi_av_insert(f->av, &in, 1, &fa, 0, NULL), 1);
	assert_int_equal(kav_view_init(f->av, &view), 0);
	assert_int_equal(kav_view_resolve(&view, fa, &ent), 0);
	assert_int_equal(ent.addr_len, sizeof(in));
	assert_memory_equal(ent.addr, &in, sizeof(in));
	assert_true(ent.key == KAV_NONE);
	assert_int_equal(ent.vni, 0);
	assert_true(ent.user_id == KAV_NONE);
	assert_true(kav_view_entry_seq(&view, &ent) == ent.seq);

	memset(&view, 0xa5, sizeof(view));
	assert_int_equal(kav_view_init_layout3(f->av, &view), -FI_EOPNOTSUPP);
	assert_non_null(strstr(kav_last_error(), "rebuild"));
	assert_int_equal(view.bound, 0);
	assert_null(view.av);
	assert_int_equal(kav_view_resolve(&view, fa, &ent), -FI_EINVAL);
	assert_int_equal(kav_view_init_layout3(f->av, NULL), -FI_EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_close, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_insert_lookup, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_insert_flags_and_args,
						setup_in, av_teardown),
		cmocka_unit_test_setup_teardown(test_insert_invalid_skipped,
						setup_in, av_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_refusal_resends,
						setup_in, av_teardown),
		cmocka_unit_test_setup_teardown(test_batches, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_full, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_remove, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_insertsvc, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_insertsym_man_page,
						setup_in, av_teardown),
		cmocka_unit_test_setup_teardown(test_in6, setup_in6,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_sockaddr_mixed,
						setup_sockaddr, av_teardown),
		cmocka_unit_test_setup_teardown(test_str, setup_str,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_insertsym_str_man_page,
						setup_str, av_teardown),
		cmocka_unit_test_setup_teardown(test_insertsym_str_in6_and_carry,
						setup_str, av_teardown),
		cmocka_unit_test_setup_teardown(test_insertsym_str_bad_range,
						setup_str, av_teardown),
		cmocka_unit_test(test_insertsym_str_one_fails),
		cmocka_unit_test_setup_teardown(test_av_fd, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_av_stubs, setup_in,
						av_teardown),
		cmocka_unit_test_setup_teardown(test_view_abi, setup_in,
						av_teardown),
	};

	return cmocka_run_group_tests_name("av", tests, NULL, NULL);
}
