// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* kavctl: JSON escaping and layout, value formatting, human tables. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kav.h>

#include "../../tools/kavctl/format.h"
#include "../../tools/kavctl/json.h"

/* A memory stream and what was written to it. */
struct sink {
	FILE *f;
	char *buf;
	size_t len;
};

static void sink_open(struct sink *s)
{
	s->buf = NULL;
	s->len = 0;
	s->f = open_memstream(&s->buf, &s->len);
	assert_non_null(s->f);
}

/* Closes the stream, compares, frees. */
static void sink_expect(struct sink *s, const char *want)
{
	assert_int_equal(fclose(s->f), 0);
	if (strcmp(s->buf, want) != 0)
		fail_msg("got\n%s\nexpected\n%s", s->buf, want);
	free(s->buf);
}

static void expect_escape(const char *in, size_t len, const char *want)
{
	struct sink s;

	sink_open(&s);
	kc_json_escape(s.f, in, len);
	sink_expect(&s, want);
}

#define ESC(lit, want) expect_escape(lit, sizeof(lit) - 1, want)

static void test_escape(void **state)
{
	(void)state;
	ESC("", "\"\"");
	ESC("plain text 123", "\"plain text 123\"");
	ESC("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	ESC("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
	ESC("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	ESC("a\0b", "\"a\\u0000b\"");
	/* Valid UTF-8 passes through: 2, 3 and 4 byte sequences. */
	ESC("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	ESC("\xe2\x82\xac", "\"\xe2\x82\xac\"");
	ESC("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");
	ESC("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"");	/* U+10FFFF */
	/* Invalid bytes become U+FFFD, one per byte that starts nothing. */
	ESC("\x80", "\"\\ufffd\"");
	ESC("a\xffz", "\"a\\ufffdz\"");
	ESC("\xc0\x80", "\"\\ufffd\\ufffd\"");		/* overlong NUL */
	ESC("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");	/* overlong */
	ESC("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");	/* surrogate */
	ESC("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	ESC("\xe2\x82", "\"\\ufffd\\ufffd\"");		/* truncated */
	ESC("\xc3(", "\"\\ufffd(\"");			/* bad continuation */
	/* Only @len bytes are read. */
	expect_escape("abcdef", 3, "\"abc\"");
}

static void write_doc(struct kc_json *j)
{
	kc_json_open_object(j);
	kc_json_kv_u64(j, "id", 1);
	kc_json_kv_string(j, "name", "a\"b");
	kc_json_key(j, "sel");
	kc_json_open_object(j);
	kc_json_kv_string(j, "type", "uid");
	kc_json_close_object(j);
	kc_json_kv_bool(j, "revoked", false);
	kc_json_kv_null(j, "vni");
	kc_json_key(j, "max");
	kc_json_u64(j, 18446744073709551615ULL);
	kc_json_key(j, "neg");
	kc_json_i64(j, -5);
	kc_json_key(j, "t");
	kc_json_bool(j, true);
	kc_json_key(j, "s");
	kc_json_string(j, NULL);
	kc_json_key(j, "empty_o");
	kc_json_open_object(j);
	kc_json_close_object(j);
	kc_json_close_object(j);
	kc_json_end(j);
}

static void test_compact(void **state)
{
	struct kc_json j;
	struct sink s;

	(void)state;
	sink_open(&s);
	kc_json_init(&j, s.f, false);
	write_doc(&j);
	sink_expect(&s,
		    "{\"id\":1,\"name\":\"a\\\"b\",\"sel\":{\"type\":\"uid\"},"
		    "\"revoked\":false,\"vni\":null,"
		    "\"max\":18446744073709551615,\"neg\":-5,\"t\":true,"
		    "\"s\":null,\"empty_o\":{}}\n");
}

/* monitor -p: each event indented. */
static void test_pretty(void **state)
{
	struct kc_json j;
	struct sink s;

	(void)state;
	sink_open(&s);
	kc_json_init(&j, s.f, true);
	write_doc(&j);
	sink_expect(&s,
		    "{\n"
		    "  \"id\": 1,\n"
		    "  \"name\": \"a\\\"b\",\n"
		    "  \"sel\": {\n"
		    "    \"type\": \"uid\"\n"
		    "  },\n"
		    "  \"revoked\": false,\n"
		    "  \"vni\": null,\n"
		    "  \"max\": 18446744073709551615,\n"
		    "  \"neg\": -5,\n"
		    "  \"t\": true,\n"
		    "  \"s\": null,\n"
		    "  \"empty_o\": {}\n"
		    "}\n");
}

/* Arrays (wire show -j): of strings, of objects, empty. */
static void test_arrays(void **state)
{
	struct kc_json j;
	struct sink s;

	(void)state;
	sink_open(&s);
	kc_json_init(&j, s.f, false);
	kc_json_open_object(&j);
	kc_json_key(&j, "scope");
	kc_json_open_array(&j);
	kc_json_string(&j, "10.0.0.0/8");
	kc_json_string(&j, "fd00::/8");
	kc_json_close_array(&j);
	kc_json_key(&j, "exempt");
	kc_json_open_array(&j);
	kc_json_open_object(&j);
	kc_json_kv_u64(&j, "port", 22);
	kc_json_close_object(&j);
	kc_json_close_array(&j);
	kc_json_key(&j, "none");
	kc_json_open_array(&j);
	kc_json_close_array(&j);
	kc_json_close_object(&j);
	kc_json_end(&j);
	sink_expect(&s, "{\"scope\":[\"10.0.0.0/8\",\"fd00::/8\"],"
			"\"exempt\":[{\"port\":22}],\"none\":[]}\n");

	sink_open(&s);
	kc_json_init(&j, s.f, true);
	kc_json_open_object(&j);
	kc_json_key(&j, "a");
	kc_json_open_array(&j);
	kc_json_u64(&j, 1);
	kc_json_u64(&j, 2);
	kc_json_close_array(&j);
	kc_json_key(&j, "b");
	kc_json_open_array(&j);
	kc_json_close_array(&j);
	kc_json_close_object(&j);
	kc_json_end(&j);
	sink_expect(&s, "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": []\n}\n");
}

/* monitor -j: one document per line. */
static void test_lines(void **state)
{
	struct kc_json j;
	struct sink s;
	int i;

	(void)state;
	sink_open(&s);
	for (i = 0; i < 2; i++) {
		kc_json_init(&j, s.f, false);
		kc_json_open_object(&j);
		kc_json_kv_string(&j, "event", "grant_add");
		kc_json_kv_u64(&j, "grant_id", i);
		kc_json_close_object(&j);
		kc_json_end(&j);
	}
	sink_expect(&s, "{\"event\":\"grant_add\",\"grant_id\":0}\n"
			"{\"event\":\"grant_add\",\"grant_id\":1}\n");
}

static void expect_addr(uint32_t fmt, const void *a, size_t len,
			const char *want)
{
	char buf[128];

	kc_format_addr(fmt, a, len, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("format %u: '%s', expected '%s'", fmt, buf, want);
}

static void test_addr(void **state)
{
	struct sockaddr_in sin = { 0 };
	struct sockaddr_in6 sin6 = { 0 };
	unsigned char junk[5] = { 0xde, 0xad, 0xbe, 0xef, 0x01 };
	char small[8];

	(void)state;
	sin.sin_family = AF_INET;
	sin.sin_port = htons(5000);
	assert_int_equal(inet_pton(AF_INET, "10.0.0.1", &sin.sin_addr), 1);
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = htons(7);
	assert_int_equal(inet_pton(AF_INET6, "fe80::1", &sin6.sin6_addr), 1);

	expect_addr(KAV_ADDR_SOCKADDR_IN, &sin, sizeof(sin), "10.0.0.1:5000");
	expect_addr(KAV_ADDR_SOCKADDR, &sin, sizeof(sin), "10.0.0.1:5000");
	expect_addr(0, &sin, sizeof(sin), "10.0.0.1:5000");
	expect_addr(KAV_ADDR_SOCKADDR_IN6, &sin6, sizeof(sin6),
		    "[fe80::1]:7");
	sin6.sin6_scope_id = 3;
	expect_addr(KAV_ADDR_SOCKADDR, &sin6, sizeof(sin6), "[fe80::1%3]:7");
	expect_addr(0, &sin6, sizeof(sin6), "[fe80::1%3]:7");
	/* Too short for its family: hex. */
	expect_addr(KAV_ADDR_SOCKADDR_IN6, &sin6, 20,
		    "0x0a00000700000000fe8000000000000000000000");
	expect_addr(KAV_ADDR_SOCKADDR_IN, junk, sizeof(junk), "0xdeadbeef01");
	expect_addr(0, junk, sizeof(junk), "0xdeadbeef01");

	expect_addr(KAV_ADDR_STR, "fi_sockets://10.0.0.1:5000",
		    sizeof("fi_sockets://10.0.0.1:5000"),
		    "fi_sockets://10.0.0.1:5000");
	expect_addr(0, "node7:42", sizeof("node7:42"), "node7:42");
	/* Not terminated within len: up to len. */
	expect_addr(KAV_ADDR_STR, "abcdef", 3, "abc");
	/* Unprintable bytes and backslashes are escaped. */
	expect_addr(KAV_ADDR_STR, "a\tb\\c\xff", 7, "a\\x09b\\x5cc\\xff");
	expect_addr(KAV_ADDR_STR, "", 1, "");
	expect_addr(KAV_ADDR_STR, NULL, 0, "");

	/* Truncation always leaves a terminated string. */
	kc_format_addr(KAV_ADDR_STR, "0123456789", 11, small, sizeof(small));
	assert_string_equal(small, "0123456");
	kc_format_addr(KAV_ADDR_STR, "\x01\x01\x01", 4, small, sizeof(small));
	assert_string_equal(small, "\\x01");
	kc_format_addr(0, junk, sizeof(junk), small, sizeof(small));
	assert_string_equal(small, "0xdead");
	kc_format_addr(KAV_ADDR_SOCKADDR_IN, &sin, sizeof(sin), small,
		       sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

static void expect_name(const char *name, size_t len, const char *want)
{
	char buf[KC_NAME_TEXT_MAX];

	memset(buf, 'X', sizeof(buf));
	kc_format_name(name, len, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("name '%s', expected '%s'", buf, want);
}

#define NAME(lit, want) expect_name(lit, sizeof(lit) - 1, want)

static void test_av_name(void **state)
{
	char all[KAV_NAME_MAX], want[KC_NAME_TEXT_MAX], small[8];
	size_t i;

	(void)state;
	NAME("job42", "job42");
	/* MPI names end in a newline. */
	NAME("mpich_kvs_42\n", "mpich_kvs_42\\n");
	NAME("a\\b\tc\rd", "a\\\\b\\tc\\rd");
	/* A name is one word: spaces are escaped, quotes are not. */
	NAME("my job", "my\\x20job");
	NAME("\"'$`", "\"'$`");
	NAME("\x01\x1f\x7f\x80\xff", "\\x01\\x1f\\x7f\\x80\\xff");
	NAME("caf\xc3\xa9", "caf\\xc3\\xa9");
	/* Only @len bytes; a NUL (never sent by the kernel) is escaped. */
	expect_name("abcdef", 3, "abc");
	expect_name("a\0b", 3, "a\\x00b");

	/* The longest name of the worst bytes fits KC_NAME_TEXT_MAX. */
	memset(all, 0xff, sizeof(all));
	for (i = 0; i < sizeof(all); i++)
		memcpy(want + 4 * i, "\\xff", 4);
	want[4 * sizeof(all)] = '\0';
	expect_name(all, sizeof(all), want);

	/* Truncation never cuts an escape in half. */
	kc_format_name("abcdefghij", 10, small, sizeof(small));
	assert_string_equal(small, "abcdefg");
	kc_format_name("ab\n\n", 4, small, sizeof(small));
	assert_string_equal(small, "ab\\n\\n");
	kc_format_name("abc\n\n", 5, small, sizeof(small));
	assert_string_equal(small, "abc\\n\\n");	/* exactly full */
	kc_format_name("abcd\n\n", 6, small, sizeof(small));
	assert_string_equal(small, "abcd\\n");
	kc_format_name("abcd\x01", 5, small, sizeof(small));
	assert_string_equal(small, "abcd");
	kc_format_name("abc", 3, small, 1);
	assert_string_equal(small, "");
}

static void test_bytes(void **state)
{
	char buf[32];

	(void)state;
	kc_format_bytes(0, buf, sizeof(buf));
	assert_string_equal(buf, "0 B");
	kc_format_bytes(1023, buf, sizeof(buf));
	assert_string_equal(buf, "1023 B");
	kc_format_bytes(1024, buf, sizeof(buf));
	assert_string_equal(buf, "1.0 KiB");
	kc_format_bytes(1536ULL * 1024, buf, sizeof(buf));
	assert_string_equal(buf, "1.5 MiB");
	kc_format_bytes(5ULL << 30, buf, sizeof(buf));
	assert_string_equal(buf, "5.0 GiB");
	kc_format_bytes(UINT64_MAX, buf, sizeof(buf));
	assert_string_equal(buf, "16.0 EiB");
}

static void test_names(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(kc_addr_format_name(KAV_ADDR_SOCKADDR), "sockaddr");
	assert_string_equal(kc_addr_format_name(KAV_ADDR_SOCKADDR_IN),
			    "sockaddr_in");
	assert_string_equal(kc_addr_format_name(KAV_ADDR_SOCKADDR_IN6),
			    "sockaddr_in6");
	assert_string_equal(kc_addr_format_name(KAV_ADDR_STR), "str");
	assert_null(kc_addr_format_name(0));
	assert_null(kc_addr_format_name(99));
	assert_string_equal(kc_selector_name(KAV_SEL_UID), "uid");
	assert_string_equal(kc_selector_name(KAV_SEL_GID), "gid");
	assert_string_equal(kc_selector_name(KAV_SEL_CGROUP), "cgroup");
	assert_string_equal(kc_selector_name(KAV_SEL_NETNS), "netns");
	assert_null(kc_selector_name(0));
	assert_true(kc_user_name(0, buf, sizeof(buf)));
	assert_string_equal(buf, "root");
	assert_true(kc_group_name(0, buf, sizeof(buf)));
	assert_string_equal(buf, "root");
	assert_false(kc_user_name(0, buf, 4));	/* "root" needs 5 */
	assert_false(kc_user_name(4000000000U, buf, sizeof(buf)));
}

static void expect_sel(const struct kc_sel_view *v, const char *want)
{
	char buf[128];

	kc_format_selector(v, buf, sizeof(buf));
	if (strcmp(buf, want) != 0)
		fail_msg("selector '%s', expected '%s'", buf, want);
}

static void test_selector(void **state)
{
	struct kc_sel_view v;

	(void)state;
	memset(&v, 0, sizeof(v));
	v.type = KAV_SEL_UID;
	v.has_id = true;
	expect_sel(&v, "uid 0 (root)");
	v.id = 4000000000U;
	expect_sel(&v, "uid 4000000000");
	v.type = KAV_SEL_GID;
	v.id = 0;
	expect_sel(&v, "gid 0 (root)");
	v.has_id = false;
	expect_sel(&v, "gid ?");

	memset(&v, 0, sizeof(v));
	v.type = KAV_SEL_CGROUP;
	v.cgroup_path = "/jobs/42";
	expect_sel(&v, "cgroup /jobs/42");
	v.has_cgroup_id = true;
	v.cgroup_id = 1234;
	expect_sel(&v, "cgroup /jobs/42 (id 1234)");
	v.cgroup_path = NULL;
	expect_sel(&v, "cgroup-id 1234");

	memset(&v, 0, sizeof(v));
	v.type = KAV_SEL_NETNS;
	expect_sel(&v, "netns ?");
	v.has_cookie = true;
	v.netns_cookie = 4097;
	expect_sel(&v, "netns cookie 4097");
	v.type = 9;
	expect_sel(&v, "selector 9");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_arrays),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_av_name),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_selector),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
