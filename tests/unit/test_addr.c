// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Address validation, staging, straddr and FI_ADDR_STR parsing. */
#include "test_common.h"

static void test_formats(void **state)
{
	(void)state;
	assert_int_equal(kav_addr_kav_format(FI_SOCKADDR), KAV_ADDR_SOCKADDR);
	assert_int_equal(kav_addr_kav_format(FI_SOCKADDR_IN),
			 KAV_ADDR_SOCKADDR_IN);
	assert_int_equal(kav_addr_kav_format(FI_SOCKADDR_IN6),
			 KAV_ADDR_SOCKADDR_IN6);
	assert_int_equal(kav_addr_kav_format(FI_ADDR_STR), KAV_ADDR_STR);
	assert_int_equal(kav_addr_kav_format(FI_SOCKADDR_IB), 0);
	assert_int_equal(kav_addr_kav_format(FI_FORMAT_UNSPEC), 0);
	assert_int_equal(kav_addr_user_stride(FI_SOCKADDR_IN), 16);
	assert_int_equal(kav_addr_user_stride(FI_SOCKADDR_IN6), 28);
	assert_int_equal(kav_addr_user_stride(FI_SOCKADDR), 28);
	assert_int_equal(kav_addr_user_stride(FI_ADDR_STR), 0);
}

static void test_check_in(void **state)
{
	struct sockaddr_in sin = test_sin("10.0.0.1", 5000);
	struct sockaddr_in6 sin6 = test_sin6("::1", 1);
	size_t len = 0;

	(void)state;
	assert_int_equal(kav_addr_check(FI_SOCKADDR_IN, &sin, 16, &len), 0);
	assert_int_equal(len, 16);
	assert_int_equal(kav_addr_check(FI_SOCKADDR_IN, &sin6, 16, &len),
			 -FI_EINVAL);
	/* The table's slot must hold it. */
	assert_int_equal(kav_addr_check(FI_SOCKADDR_IN, &sin, 15, &len),
			 -FI_EINVAL);
	assert_int_equal(kav_addr_check(FI_SOCKADDR_IN, NULL, 16, &len),
			 -FI_EINVAL);
}

static void test_check_in6(void **state)
{
	struct sockaddr_in6 sin6 = test_sin6("fe80::1", 5000);
	struct sockaddr_in sin = test_sin("10.0.0.1", 5000);
	size_t len = 0;

	(void)state;
	assert_int_equal(kav_addr_check(FI_SOCKADDR_IN6, &sin6, 28, &len), 0);
	assert_int_equal(len, 28);
	assert_int_equal(kav_addr_check(FI_SOCKADDR_IN6, &sin, 28, &len),
			 -FI_EINVAL);
}

static void test_check_sockaddr(void **state)
{
	struct sockaddr_in6 sin6 = test_sin6("fe80::1", 5000);
	struct sockaddr_in sin = test_sin("10.0.0.1", 5000);
	struct sockaddr_storage ss;
	size_t len = 0;

	(void)state;
	assert_int_equal(kav_addr_check(FI_SOCKADDR, &sin, 28, &len), 0);
	assert_int_equal(len, 16);
	assert_int_equal(kav_addr_check(FI_SOCKADDR, &sin6, 28, &len), 0);
	assert_int_equal(len, 28);
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	assert_int_equal(kav_addr_check(FI_SOCKADDR, &ss, 28, &len),
			 -FI_EINVAL);
	ss.ss_family = AF_UNSPEC;
	assert_int_equal(kav_addr_check(FI_SOCKADDR, &ss, 28, &len),
			 -FI_EINVAL);
	/* Formats kav does not store. */
	assert_int_equal(kav_addr_check(FI_SOCKADDR_IB, &sin, 28, &len),
			 -FI_EINVAL);
}

static void test_check_str(void **state)
{
	size_t len = 0;

	(void)state;
	assert_int_equal(kav_addr_check(FI_ADDR_STR, "abc", 96, &len), 0);
	assert_int_equal(len, 4);
	assert_int_equal(kav_addr_check(FI_ADDR_STR, "", 96, &len),
			 -FI_EINVAL);
	/* 7 characters + NUL fit 8 bytes, 8 do not. */
	assert_int_equal(kav_addr_check(FI_ADDR_STR, "1234567", 8, &len), 0);
	assert_int_equal(len, 8);
	assert_int_equal(kav_addr_check(FI_ADDR_STR, "12345678", 8, &len),
			 -FI_EINVAL);
	assert_int_equal(kav_addr_check(FI_ADDR_STR, "a\nb", 96, &len),
			 -FI_EINVAL);
	/* The kernel takes printable, non-space ASCII only. */
	assert_int_equal(kav_addr_check(FI_ADDR_STR, "a b", 96, &len),
			 -FI_EINVAL);
	assert_int_equal(kav_addr_check(FI_ADDR_STR, "!~", 96, &len), 0);
	assert_int_equal(kav_addr_check(FI_ADDR_STR, "caf\xc3\xa9", 96, &len),
			 -FI_EINVAL);
}

static void test_stage(void **state)
{
	struct sockaddr_in sin = test_sin("10.0.0.1", 5000), out;
	struct sockaddr_in6 sin6 = test_sin6("fe80::1", 7);
	uint8_t slot[28], zero[28] = { 0 };

	(void)state;
	memset(sin.sin_zero, 0x5a, sizeof(sin.sin_zero));
	memset(slot, 0xaa, sizeof(slot));
	assert_int_equal(kav_addr_stage(FI_SOCKADDR, &sin, slot, 28), 0);
	memcpy(&out, slot, sizeof(out));
	assert_int_equal(out.sin_family, AF_INET);
	assert_int_equal(out.sin_port, htons(5000));
	assert_int_equal(out.sin_addr.s_addr, sin.sin_addr.s_addr);
	/* sin_zero and the rest of the slot are zeros. */
	assert_memory_equal(slot + 8, zero, 20);

	memset(slot, 0xaa, sizeof(slot));
	assert_int_equal(kav_addr_stage(FI_SOCKADDR_IN6, &sin6, slot, 28), 0);
	assert_memory_equal(slot, &sin6, 28);

	memset(slot, 0xaa, sizeof(slot));
	assert_int_equal(kav_addr_stage(FI_ADDR_STR, "xyz", slot, 28), 0);
	assert_string_equal((char *)slot, "xyz");
	assert_memory_equal(slot + 4, zero, 24);

	assert_int_equal(kav_addr_stage(FI_SOCKADDR_IN6, &sin, slot, 28),
			 -FI_EINVAL);
}

static void test_straddr_in(void **state)
{
	struct sockaddr_in sin = test_sin("10.0.0.1", 5000);
	const char *want = "fi_sockaddr_in://10.0.0.1:5000";
	size_t need = strlen(want) + 1, len;
	char buf[64];

	(void)state;
	len = sizeof(buf);
	assert_ptr_equal(kav_addr_straddr(FI_SOCKADDR_IN, &sin, buf, &len),
			 buf);
	assert_string_equal(buf, want);
	assert_int_equal(len, need);

	/* Exactly enough. */
	len = need;
	assert_ptr_equal(kav_addr_straddr(FI_SOCKADDR_IN, &sin, buf, &len),
			 buf);
	assert_string_equal(buf, want);
	assert_int_equal(len, need);

	/* One byte short: last character dropped, still terminated. */
	memset(buf, 'X', sizeof(buf));
	len = need - 1;
	assert_ptr_equal(kav_addr_straddr(FI_SOCKADDR_IN, &sin, buf, &len),
			 buf);
	assert_int_equal(strlen(buf), need - 2);
	assert_memory_equal(buf, want, need - 2);
	assert_int_equal(buf[need - 1], 'X');	/* nothing past *len */
	assert_int_equal(len, need);

	memset(buf, 'X', sizeof(buf));
	len = 10;
	kav_addr_straddr(FI_SOCKADDR_IN, &sin, buf, &len);
	assert_string_equal(buf, "fi_sockad");
	assert_int_equal(len, need);

	len = 1;
	kav_addr_straddr(FI_SOCKADDR_IN, &sin, buf, &len);
	assert_string_equal(buf, "");
	assert_int_equal(len, need);

	/* No buffer: NULL, and the size needed. */
	len = 0;
	memset(buf, 'X', sizeof(buf));
	assert_null(kav_addr_straddr(FI_SOCKADDR_IN, &sin, buf, &len));
	assert_int_equal(len, need);
	assert_int_equal(buf[0], 'X');
	len = 64;
	assert_null(kav_addr_straddr(FI_SOCKADDR_IN, &sin, NULL, &len));
	assert_int_equal(len, need);

	assert_null(kav_addr_straddr(FI_SOCKADDR_IN, &sin, buf, NULL));
	assert_null(kav_addr_straddr(FI_SOCKADDR_IN, NULL, buf, &len));
}

static void test_straddr_in6_and_sockaddr(void **state)
{
	struct sockaddr_in6 sin6 = test_sin6("fe80::1", 5000);
	struct sockaddr_in sin = test_sin("192.168.1.20", 0);
	struct sockaddr_storage ss;
	char buf[80];
	size_t len;

	(void)state;
	len = sizeof(buf);
	kav_addr_straddr(FI_SOCKADDR_IN6, &sin6, buf, &len);
	assert_string_equal(buf, "fi_sockaddr_in6://[fe80::1]:5000");
	assert_int_equal(len, strlen("fi_sockaddr_in6://[fe80::1]:5000") + 1);

	len = sizeof(buf);
	kav_addr_straddr(FI_SOCKADDR, &sin6, buf, &len);
	assert_string_equal(buf, "fi_sockaddr_in6://[fe80::1]:5000");
	len = sizeof(buf);
	kav_addr_straddr(FI_SOCKADDR, &sin, buf, &len);
	assert_string_equal(buf, "fi_sockaddr_in://192.168.1.20:0");

	/* Not an address of the format: NULL, *len untouched. */
	len = sizeof(buf);
	assert_null(kav_addr_straddr(FI_SOCKADDR_IN, &sin6, buf, &len));
	assert_int_equal(len, sizeof(buf));
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNIX;
	assert_null(kav_addr_straddr(FI_SOCKADDR, &ss, buf, &len));
	assert_int_equal(len, sizeof(buf));
}

/* A scope id survives the round trip string -> sockaddr -> string. */
static void test_straddr_in6_scope_round_trip(void **state)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
				     .sin6_port = htons(7000),
				     .sin6_scope_id = 3 };
	struct sockaddr_in6 back = { 0 };
	char buf[96];
	size_t len = sizeof(buf);

	(void)state;
	assert_int_equal(inet_pton(AF_INET6, "fe80::1", &sin6.sin6_addr), 1);
	assert_ptr_equal(kav_addr_straddr(FI_SOCKADDR_IN6, &sin6, buf, &len),
			 buf);
	assert_string_equal(buf, "fi_sockaddr_in6://[fe80::1%3]:7000");
	assert_int_equal(len, strlen(buf) + 1);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR_IN6, buf, &back), 0);
	assert_int_equal(back.sin6_scope_id, 3);
	assert_memory_equal(&back.sin6_addr, &sin6.sin6_addr,
			    sizeof(back.sin6_addr));
	assert_int_equal(back.sin6_port, htons(7000));
}

static void test_straddr_str(void **state)
{
	char buf[8];
	size_t len = sizeof(buf);

	(void)state;
	assert_ptr_equal(kav_addr_straddr(FI_ADDR_STR, "hello", buf, &len),
			 buf);
	assert_string_equal(buf, "hello");
	assert_int_equal(len, 6);
	len = sizeof(buf);
	kav_addr_straddr(FI_ADDR_STR, "hello world", buf, &len);
	assert_string_equal(buf, "hello w");
	assert_int_equal(len, 12);
}

static void test_parse_str(void **state)
{
	struct sockaddr_in sin = test_sin("10.0.0.1", 5000), sin_out;
	struct sockaddr_in6 sin6 = test_sin6("fe80::1", 5000), sin6_out;
	uint8_t out[KAV_SOCKADDR_MAX];
	char buf[80];
	size_t len;

	(void)state;
	/* straddr output parses back to the same address. */
	len = sizeof(buf);
	kav_addr_straddr(FI_SOCKADDR_IN, &sin, buf, &len);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR_IN, buf, out), 0);
	memcpy(&sin_out, out, sizeof(sin_out));
	assert_memory_equal(&sin_out, &sin, sizeof(sin));

	len = sizeof(buf);
	kav_addr_straddr(FI_SOCKADDR_IN6, &sin6, buf, &len);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR, buf, out), 0);
	memcpy(&sin6_out, out, sizeof(sin6_out));
	assert_memory_equal(&sin6_out, &sin6, sizeof(sin6));

	/* The port may be omitted; a numeric scope is kept. */
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR,
					    "fi_sockaddr_in6://[fe80::2%3]",
					    out), 0);
	memcpy(&sin6_out, out, sizeof(sin6_out));
	assert_int_equal(sin6_out.sin6_port, 0);
	assert_int_equal(sin6_out.sin6_scope_id, 3);

	/* Wrong family for the format, and malformed strings. */
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR_IN6,
			 "fi_sockaddr_in://10.0.0.1:1", out), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR_IN,
			 "fi_sockaddr_in6://[::1]:1", out), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR_IN,
			 "fi_sockaddr_in://300.0.0.1:1", out), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR_IN,
			 "fi_sockaddr_in://10.0.0.1:65536", out), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR_IN,
			 "fi_sockaddr_in://10.0.0.1:", out), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR_IN6,
			 "fi_sockaddr_in6://[::1:1", out), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR_IN6,
			 "fi_sockaddr_in6://::1", out), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR, "10.0.0.1", out),
			 -FI_EINVAL);
	assert_int_equal(kav_addr_parse_str(FI_ADDR_STR,
			 "fi_sockaddr_in://10.0.0.1:1", out), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_str(FI_SOCKADDR, NULL, out),
			 -FI_EINVAL);
}

static void test_parse_port(void **state)
{
	uint16_t port = 1;

	(void)state;
	assert_int_equal(kav_addr_parse_port("0", &port), 0);
	assert_int_equal(port, 0);
	assert_int_equal(kav_addr_parse_port("65535", &port), 0);
	assert_int_equal(port, 65535);
	assert_int_equal(kav_addr_parse_port("65536", &port), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_port("", &port), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_port("-1", &port), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_port("12a", &port), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_port("000001", &port), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_port("http", &port), -FI_EINVAL);
	assert_int_equal(kav_addr_parse_port(NULL, &port), -FI_EINVAL);
}

static void test_resolve_numeric(void **state)
{
	struct sockaddr_in want = test_sin("10.1.2.3", 77), got;
	uint8_t out[KAV_SOCKADDR_MAX];

	(void)state;
	assert_int_equal(kav_addr_resolve(FI_SOCKADDR_IN, "10.1.2.3", NULL,
					  77, out), 0);
	memcpy(&got, out, sizeof(got));
	assert_memory_equal(&got, &want, sizeof(want));
	assert_int_equal(kav_addr_resolve(FI_SOCKADDR, "10.1.2.3", "77", 0,
					  out), 0);
	memcpy(&got, out, sizeof(got));
	assert_memory_equal(&got, &want, sizeof(want));
	/* An IPv4 literal has no IPv6 address (no DNS query involved). */
	assert_int_equal(kav_addr_resolve(FI_SOCKADDR_IN6, "10.1.2.3", NULL,
					  1, out), -FI_EADDRNOTAVAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_check_in),
		cmocka_unit_test(test_check_in6),
		cmocka_unit_test(test_check_sockaddr),
		cmocka_unit_test(test_check_str),
		cmocka_unit_test(test_stage),
		cmocka_unit_test(test_straddr_in),
		cmocka_unit_test(test_straddr_in6_and_sockaddr),
		cmocka_unit_test(test_straddr_in6_scope_round_trip),
		cmocka_unit_test(test_straddr_str),
		cmocka_unit_test(test_parse_str),
		cmocka_unit_test(test_parse_port),
		cmocka_unit_test(test_resolve_numeric),
	};

	return cmocka_run_group_tests_name("addr", tests, NULL, NULL);
}
