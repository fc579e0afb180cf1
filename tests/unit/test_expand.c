// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* fi_av_insertsym() range expansion (lib/addr_expand.c). */
#include <limits.h>
#include <stdio.h>

#include "test_common.h"

/* All node:port pairs in insertion order, joined by spaces. */
static void expand(const char *node, size_t nodecnt, const char *service,
		   size_t svccnt, char *out, size_t outlen)
{
	char name[KAV_SYM_NODE_MAX];
	struct kav_sym s;
	size_t i, j, used = 0;

	assert_int_equal(kav_sym_init(&s, node, nodecnt, service, svccnt), 0);
	out[0] = '\0';
	for (i = 0; i < nodecnt; i++) {
		assert_int_equal(kav_sym_node(&s, i, name, sizeof(name)), 0);
		for (j = 0; j < svccnt; j++)
			used += (size_t)snprintf(out + used, outlen - used,
						 "%s%s:%u", used ? " " : "",
						 name,
						 (unsigned)kav_sym_port(&s, j));
	}
	assert_true(used < outlen);
}

static void test_man_page_example(void **state)
{
	char out[256];

	(void)state;
	expand("10.1.1.1", 2, "5000", 2, out, sizeof(out));
	assert_string_equal(out, "10.1.1.1:5000 10.1.1.1:5001 "
				 "10.1.1.2:5000 10.1.1.2:5001");
	expand("host10", 2, "5000", 2, out, sizeof(out));
	assert_string_equal(out, "host10:5000 host10:5001 "
				 "host11:5000 host11:5001");
}

static void test_ipv4_carry_and_overflow(void **state)
{
	struct kav_sym s;
	char out[256];

	(void)state;
	expand("10.0.0.255", 2, "1", 1, out, sizeof(out));
	assert_string_equal(out, "10.0.0.255:1 10.0.1.0:1");
	expand("10.0.255.255", 2, "1", 1, out, sizeof(out));
	assert_string_equal(out, "10.0.255.255:1 10.1.0.0:1");
	expand("255.255.255.254", 2, "1", 1, out, sizeof(out));
	assert_string_equal(out, "255.255.255.254:1 255.255.255.255:1");
	assert_int_equal(kav_sym_init(&s, "255.255.255.255", 2, "1", 1),
			 -FI_EINVAL);
	assert_int_equal(kav_sym_init(&s, "255.255.255.255", 1, "1", 1), 0);
	assert_int_equal(s.kind, KAV_SYM_IPV4);
}

static void test_ipv6(void **state)
{
	struct kav_sym s;
	char out[512];

	(void)state;
	expand("fe80::1", 3, "7000", 1, out, sizeof(out));
	assert_string_equal(out, "fe80::1:7000 fe80::2:7000 fe80::3:7000");
	/* Carry across a 16-bit group. */
	expand("2001:db8::ffff", 2, "1", 1, out, sizeof(out));
	assert_string_equal(out, "2001:db8::ffff:1 2001:db8::1:0:1");
	expand("fe80::1%eth0", 2, "9", 1, out, sizeof(out));
	assert_string_equal(out, "fe80::1%eth0:9 fe80::2%eth0:9");
	assert_int_equal(kav_sym_init(&s,
			 "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 2, "1", 1),
			 -FI_EINVAL);
	assert_int_equal(kav_sym_init(&s,
			 "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 1, "1", 1),
			 0);
	assert_int_equal(s.kind, KAV_SYM_IPV6);
}

static void test_names(void **state)
{
	struct kav_sym s;
	char out[512];

	(void)state;
	expand("host09", 3, "1", 1, out, sizeof(out));
	assert_string_equal(out, "host09:1 host10:1 host11:1");
	expand("n0001", 2, "1", 1, out, sizeof(out));
	assert_string_equal(out, "n0001:1 n0002:1");
	expand("rack2-node99", 2, "1", 1, out, sizeof(out));
	assert_string_equal(out, "rack2-node99:1 rack2-node100:1");
	/* A single node needs no suffix and is used as given. */
	expand("login.example", 1, "22", 2, out, sizeof(out));
	assert_string_equal(out, "login.example:22 login.example:23");
	/* More than one node needs a numeric suffix. */
	assert_int_equal(kav_sym_init(&s, "node", 2, "1", 1), -FI_EINVAL);
	assert_int_equal(kav_sym_init(&s, "node1.example", 2, "1", 1),
			 -FI_EINVAL);
	/* Suffix overflow. */
	assert_int_equal(kav_sym_init(&s, "h18446744073709551615", 2, "1", 1),
			 -FI_EINVAL);
	assert_int_equal(kav_sym_init(&s, "h9999999999999999999", 2, "1", 1),
			 0);
	assert_int_equal(s.kind, KAV_SYM_NAME);
}

static void test_ports(void **state)
{
	struct kav_sym s;
	char out[256];

	(void)state;
	expand("10.0.0.1", 1, "65534", 2, out, sizeof(out));
	assert_string_equal(out, "10.0.0.1:65534 10.0.0.1:65535");
	assert_int_equal(kav_sym_init(&s, "10.0.0.1", 1, "65535", 1), 0);
	assert_int_equal(kav_sym_init(&s, "10.0.0.1", 1, "65535", 2),
			 -FI_EINVAL);
	assert_int_equal(kav_sym_init(&s, "10.0.0.1", 1, "http", 1),
			 -FI_EINVAL);
}

static void test_bad_arguments(void **state)
{
	struct kav_sym s;
	char buf[4];

	(void)state;
	assert_int_equal(kav_sym_init(&s, NULL, 1, "1", 1), -FI_EINVAL);
	assert_int_equal(kav_sym_init(&s, "10.0.0.1", 1, NULL, 1), -FI_EINVAL);
	assert_int_equal(kav_sym_init(&s, "", 1, "1", 1), -FI_EINVAL);
	assert_int_equal(kav_sym_init(&s, "10.0.0.1", 0, "1", 1), -FI_EINVAL);
	assert_int_equal(kav_sym_init(&s, "10.0.0.1", 1, "1", 0), -FI_EINVAL);
	/* nodecnt * svccnt must fit the int that insert returns. */
	assert_int_equal(kav_sym_init(&s, "host1", 65536, "0", 65536),
			 -FI_EINVAL);
	assert_int_equal(kav_sym_init(&s, "host1", (size_t)INT_MAX + 1, "0",
				      1), -FI_EINVAL);
	/* Index past the range; buffer too small. */
	assert_int_equal(kav_sym_init(&s, "10.0.0.1", 2, "1", 1), 0);
	assert_int_equal(kav_sym_node(&s, 2, buf, sizeof(buf)), -FI_EINVAL);
	assert_int_equal(kav_sym_node(&s, 0, buf, sizeof(buf)),
			 -FI_ETOOSMALL);
	assert_int_equal(kav_sym_init(&s, "host1", 2, "1", 1), 0);
	assert_int_equal(kav_sym_node(&s, 1, buf, sizeof(buf)),
			 -FI_ETOOSMALL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_man_page_example),
		cmocka_unit_test(test_ipv4_carry_and_overflow),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_bad_arguments),
	};

	return cmocka_run_group_tests_name("expand", tests, NULL, NULL);
}
