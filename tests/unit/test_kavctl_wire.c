// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kavctl wire: its values (modes, ports, marks, prefixes: args.c,
 * format.c), the file of wire apply and the plan that makes the kernel's
 * state the file's (wire_conf.c), and wire show and stats of replies
 * built with libnl as the kernel would send them (wire.c, stats.c). No
 * kernel is needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "../../tools/kavctl/args.h"
#include "../../tools/kavctl/stats.h"
#include "../../tools/kavctl/wire.h"
#include "../../tools/kavctl/wire_conf.h"

/* ------------------------------------------------------------ capture */

/* What is written to @fd (stdout, stderr) between start and end. */
struct capture {
	int fd;
	int saved;
	FILE *file;
	char buf[16384];
};

static void capture_start(struct capture *c, int fd)
{
	fflush(stdout);
	fflush(stderr);
	c->fd = fd;
	c->file = tmpfile();
	assert_non_null(c->file);
	c->saved = dup(fd);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->file), fd) >= 0);
}

static const char *capture_end(struct capture *c)
{
	size_t n;

	fflush(stdout);
	fflush(stderr);
	assert_true(dup2(c->saved, c->fd) >= 0);
	close(c->saved);
	rewind(c->file);
	n = fread(c->buf, 1, sizeof(c->buf) - 1, c->file);
	c->buf[n] = '\0';
	fclose(c->file);
	return c->buf;
}

static void expect_in(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("'%s' not in:\n%s", want, text);
}

/* ------------------------------------------------------------- values */

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(kc_wire_mode_name(KAV_WIRE_OFF), "off");
	assert_string_equal(kc_wire_mode_name(KAV_WIRE_FLOWLABEL), "flowlabel");
	assert_string_equal(kc_wire_mode_name(KAV_WIRE_ESP), "esp");
	assert_null(kc_wire_mode_name(__KAV_WIRE_MODE_MAX));
	assert_string_equal(kc_wire_drop_name(KAV_WIRE_DROP_SENDER_NO_KEY,
					      false), "sender-no-key");
	assert_string_equal(kc_wire_drop_name(KAV_WIRE_DROP_SENDER_NO_KEY,
					      true), "sender_no_key");
	assert_string_equal(kc_wire_drop_name(KAV_WIRE_DROP_RECEIVER_NO_KEY,
					      false), "receiver-no-key");
	assert_string_equal(kc_wire_drop_name(KAV_WIRE_DROP_MISMATCH, false),
			    "mismatch");
	assert_string_equal(kc_wire_drop_name(KAV_WIRE_DROP_NO_CARRIER, false),
			    "no-carrier");
	assert_string_equal(kc_wire_drop_name(KAV_WIRE_DROP_NO_CARRIER, true),
			    "no_carrier");
	assert_string_equal(kc_wire_drop_name(KAV_WIRE_DROP_NETNS, false),
			    "netns");
	assert_string_equal(kc_wire_drop_name(KAV_WIRE_DROP_FRAGMENT, false),
			    "fragment");
	assert_string_equal(kc_wire_drop_name(KAV_WIRE_DROP_CONFLICT, false),
			    "conflict");
	assert_string_equal(kc_wire_drop_name(KAV_WIRE_DROP_CONFLICT, true),
			    "conflict");
	assert_null(kc_wire_drop_name(KAV_WIRE_DROP_NR, false));
	/* An exemption's protocol. */
	assert_string_equal(kc_wire_proto_name(0), "any");
	assert_string_equal(kc_wire_proto_name(IPPROTO_TCP), "tcp");
	assert_string_equal(kc_wire_proto_name(IPPROTO_UDP), "udp");
	assert_null(kc_wire_proto_name(IPPROTO_SCTP));
}

static void test_mode_ports_mark(void **state)
{
	uint32_t mode = 9, lo = 9, hi = 9, mark = 9;
	uint16_t port = 9;
	uint8_t proto = 9;
	char err[256];

	(void)state;
	assert_int_equal(kc_wire_parse_mode("esp", &mode, err, sizeof(err)), 0);
	assert_int_equal(mode, KAV_WIRE_ESP);
	assert_int_equal(kc_wire_parse_mode("flowlabel", &mode, err,
					    sizeof(err)), 0);
	assert_int_equal(mode, KAV_WIRE_FLOWLABEL);
	assert_int_equal(kc_wire_parse_mode("off", &mode, err, sizeof(err)), 0);
	assert_int_equal(mode, KAV_WIRE_OFF);
	assert_int_equal(kc_wire_parse_mode("ESP", &mode, err, sizeof(err)), -1);
	expect_in(err, "off, flowlabel or esp");
	assert_int_equal(kc_wire_parse_mode("fl", &mode, err, sizeof(err)), -1);

	assert_int_equal(kc_wire_parse_ports("5000-5999", &lo, &hi, err,
					     sizeof(err)), 0);
	assert_int_equal(lo, 5000);
	assert_int_equal(hi, 5999);
	assert_int_equal(kc_wire_parse_ports("1-65535", &lo, &hi, err,
					     sizeof(err)), 0);
	assert_int_equal(lo, 1);
	assert_int_equal(hi, 65535);
	assert_int_equal(kc_wire_parse_ports("7000", &lo, &hi, err,
					     sizeof(err)), 0);
	assert_int_equal(lo, 7000);
	assert_int_equal(hi, 7000);
	assert_int_equal(kc_wire_parse_ports("none", &lo, &hi, err,
					     sizeof(err)), 0);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 0);
	assert_int_equal(kc_wire_parse_ports("6000-5000", &lo, &hi, err,
					     sizeof(err)), -1);
	expect_in(err, "the first (6000) is above the last (5000)");
	assert_int_equal(kc_wire_parse_ports("0-10", &lo, &hi, err,
					     sizeof(err)), -1);
	expect_in(err, "invalid port '0' (1 to 65535)");
	assert_int_equal(kc_wire_parse_ports("1-65536", &lo, &hi, err,
					     sizeof(err)), -1);
	expect_in(err, "invalid port '65536'");
	assert_int_equal(kc_wire_parse_ports("-5", &lo, &hi, err,
					     sizeof(err)), -1);
	assert_int_equal(kc_wire_parse_ports("5-", &lo, &hi, err,
					     sizeof(err)), -1);
	assert_int_equal(kc_wire_parse_ports("5-6-7", &lo, &hi, err,
					     sizeof(err)), -1);
	assert_int_equal(kc_wire_parse_ports("", &lo, &hi, err,
					     sizeof(err)), -1);
	assert_int_equal(kc_wire_parse_port("6818", &port, err, sizeof(err)), 0);
	assert_int_equal(port, 6818);
	assert_int_equal(kc_wire_parse_port("0", &port, err, sizeof(err)), -1);
	assert_int_equal(kc_wire_parse_proto("tcp", &proto, err, sizeof(err)),
			 0);
	assert_int_equal(proto, IPPROTO_TCP);
	assert_int_equal(kc_wire_parse_proto("udp", &proto, err, sizeof(err)),
			 0);
	assert_int_equal(proto, IPPROTO_UDP);
	assert_int_equal(kc_wire_parse_proto("any", &proto, err, sizeof(err)),
			 0);
	assert_int_equal(proto, 0);
	assert_int_equal(kc_wire_parse_proto("Udp", &proto, err, sizeof(err)),
			 -1);
	expect_in(err, "unknown protocol 'Udp' (tcp or udp");
	assert_int_equal(kc_wire_parse_proto("", &proto, err, sizeof(err)), -1);
	assert_int_equal(kc_wire_parse_proto("17", &proto, err, sizeof(err)),
			 -1);

	assert_int_equal(kc_wire_parse_mark("0x4b000000", &mark, err,
					    sizeof(err)), 0);
	assert_int_equal(mark, 0x4b000000);
	assert_int_equal(kc_wire_parse_mark("0", &mark, err, sizeof(err)), 0);
	assert_int_equal(mark, 0);
	assert_int_equal(kc_wire_parse_mark("0xfff00000", &mark, err,
					    sizeof(err)), 0);
	assert_int_equal(kc_wire_parse_mark("0x4b000001", &mark, err,
					    sizeof(err)), -1);
	expect_in(err, "low 20 bits must be 0");
	expect_in(err, "0x4b000000?");
	assert_int_equal(kc_wire_parse_mark("0x80000", &mark, err,
					    sizeof(err)), -1);
	assert_int_equal(kc_wire_parse_mark("x", &mark, err, sizeof(err)), -1);
	expect_in(err, "invalid mark 'x'");
	assert_int_equal(mark, 0xfff00000);
}

static void expect_prefix(const char *s, int family, unsigned int len,
			  const char *text)
{
	struct kav_wire_net n;
	char err[256], buf[KC_WIRE_NET_TEXT];

	memset(&n, 0xaa, sizeof(n));
	if (kc_wire_parse_prefix(s, &n, err, sizeof(err)))
		fail_msg("'%s': %s", s, err);
	assert_int_equal(n.family, family);
	assert_int_equal(n.prefix_len, len);
	assert_int_equal(n.flags, 0);
	assert_int_equal(n.port, 0);
	assert_int_equal(n.protocol, 0);
	assert_int_equal(n.__reserved, 0);
	kc_wire_format_prefix(&n, buf, sizeof(buf));
	assert_string_equal(buf, text);
}

static void expect_bad_prefix(const char *s, const char *msg)
{
	struct kav_wire_net n;
	char err[256];

	if (kc_wire_parse_prefix(s, &n, err, sizeof(err)) == 0)
		fail_msg("'%s' parsed", s);
	expect_in(err, msg);
}

static void test_prefixes(void **state)
{
	struct kav_wire_net n;
	char err[256];
	int i;

	(void)state;
	expect_prefix("10.0.0.0/8", AF_INET, 8, "10.0.0.0/8");
	expect_prefix("10.1.2.3", AF_INET, 32, "10.1.2.3/32");
	expect_prefix("0.0.0.0/0", AF_INET, 0, "0.0.0.0/0");
	expect_prefix("192.168.4.0/22", AF_INET, 22, "192.168.4.0/22");
	expect_prefix("fd00::/8", AF_INET6, 8, "fd00::/8");
	expect_prefix("fd00:1:2::/48", AF_INET6, 48, "fd00:1:2::/48");
	expect_prefix("fd00::5", AF_INET6, 128, "fd00::5/128");
	expect_prefix("::/0", AF_INET6, 0, "::/0");
	expect_prefix("::ffff:10.0.0.1", AF_INET6, 128, "::ffff:10.0.0.1/128");
	/* An IPv4 address: 4 bytes, the other 12 are 0. */
	assert_int_equal(kc_wire_parse_prefix("10.1.2.3", &n, err, sizeof(err)),
			 0);
	assert_int_equal(n.addr[0], 10);
	assert_int_equal(n.addr[3], 3);
	for (i = 4; i < 16; i++)
		assert_int_equal(n.addr[i], 0);

	/* Host bits: refused, with the network that was probably meant. */
	expect_bad_prefix("10.1.2.3/8", "the network is 10.0.0.0/8");
	expect_bad_prefix("192.168.5.0/22", "the network is 192.168.4.0/22");
	expect_bad_prefix("fd00::1/64", "the network is fd00::/64");
	expect_bad_prefix("fd00:ff::/9", "the network is fd00::/9");
	expect_bad_prefix("10.0.0.1/31", "host bits");
	expect_bad_prefix("10.0.0.0/33", "0 to 32 for IPv4");
	expect_bad_prefix("fd00::/129", "0 to 128 for IPv6");
	expect_bad_prefix("10.0.0.0/08", "invalid prefix length");
	expect_bad_prefix("10.0.0.0/", "invalid prefix length");
	expect_bad_prefix("10.0.0.0/+8", "invalid prefix length");
	expect_bad_prefix("10.0.0.0/8/8", "invalid prefix length");
	expect_bad_prefix("/8", "invalid prefix");
	expect_bad_prefix("", "invalid prefix");
	expect_bad_prefix("10.0.0", "is not an IPv4 address");
	expect_bad_prefix("10.0.0.256", "is not an IPv4 address");
	expect_bad_prefix("host.example", "is not an IPv4 address");
	expect_bad_prefix("fd00:::1", "is not an IPv6 address");
	expect_bad_prefix("fe80::1%eth0", "is not an IPv6 address");
}

static void test_describe(void **state)
{
	struct kav_wire_net n;
	char err[256], buf[KC_WIRE_NET_TEXT + 16];

	(void)state;
	assert_int_equal(kc_wire_parse_prefix("10.0.0.5", &n, err, sizeof(err)),
			 0);
	kc_wire_describe_net(&n, buf, sizeof(buf));
	assert_string_equal(buf, "scope 10.0.0.5/32");
	n.flags = KAV_WIRE_NET_EXEMPT;
	kc_wire_describe_net(&n, buf, sizeof(buf));
	assert_string_equal(buf, "exempt 10.0.0.5/32");
	n.port = 6818;
	kc_wire_describe_net(&n, buf, sizeof(buf));
	assert_string_equal(buf, "exempt 10.0.0.5/32 port 6818");
	n.protocol = IPPROTO_TCP;
	kc_wire_describe_net(&n, buf, sizeof(buf));
	assert_string_equal(buf, "exempt 10.0.0.5/32 port 6818 proto tcp");
	kc_wire_format_exempt(&n, buf, sizeof(buf));
	assert_string_equal(buf, "10.0.0.5/32 port 6818 proto tcp");
	n.port = 0;
	n.protocol = IPPROTO_UDP;
	kc_wire_describe_net(&n, buf, sizeof(buf));
	assert_string_equal(buf, "exempt 10.0.0.5/32 proto udp");
	/* A protocol kavctl does not know (a newer module's): its number. */
	n.protocol = IPPROTO_SCTP;
	kc_wire_format_exempt(&n, buf, sizeof(buf));
	assert_string_equal(buf, "10.0.0.5/32 proto 132");
	n.protocol = 0;
	kc_wire_format_exempt(&n, buf, sizeof(buf));
	assert_string_equal(buf, "10.0.0.5/32");
	/* A long one: an IPv6 address, a port and a protocol. */
	assert_int_equal(kc_wire_parse_prefix(
		"fd00:1111:2222:3333:4444:5555:6666:7777", &n, err,
		sizeof(err)), 0);
	n.flags = KAV_WIRE_NET_EXEMPT;
	n.port = 65535;
	n.protocol = IPPROTO_UDP;
	kc_wire_describe_net(&n, buf, sizeof(buf));
	assert_string_equal(buf,
			    "exempt fd00:1111:2222:3333:4444:5555:6666:7777/128 port 65535 proto udp");
	kc_wire_format_ports(0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	kc_wire_format_ports(5000, 5999, buf, sizeof(buf));
	assert_string_equal(buf, "5000-5999");
	kc_wire_format_ports(7, 7, buf, sizeof(buf));
	assert_string_equal(buf, "7");
}

/* --------------------------------------------------------------- file */

static int line(struct kc_wire_state *st, unsigned int no, const char *text,
		char *err, size_t errlen)
{
	char *copy = strdup(text);
	int ret;

	assert_non_null(copy);
	err[0] = '\0';
	ret = kc_wire_conf_parse_line(copy, no, st, err, errlen);
	free(copy);
	return ret;
}

static void line_ok(struct kc_wire_state *st, unsigned int no,
		    const char *text)
{
	char err[256];

	if (line(st, no, text, err, sizeof(err)))
		fail_msg("line '%s': %s", text, err);
}

static void line_err(struct kc_wire_state *st, unsigned int no,
		     const char *text, const char *msg)
{
	struct kc_wire_state before = *st;
	char err[256];

	if (line(st, no, text, err, sizeof(err)) == 0)
		fail_msg("line '%s' parsed", text);
	expect_in(err, msg);
	/* A bad line changes nothing. */
	assert_memory_equal(&before, st, sizeof(before));
}

static void test_conf_lines(void **state)
{
	static struct kc_wire_state st;
	char buf[64];

	(void)state;
	kc_wire_state_init(&st);
	assert_int_equal(st.mode, KAV_WIRE_OFF);
	assert_int_equal(st.port_min, 0);
	assert_true(st.has_mark);
	assert_int_equal(st.mark, KC_WIRE_MARK_DEFAULT);
	assert_int_equal(st.mark, 0x4b000000);

	line_ok(&st, 1, "");
	line_ok(&st, 2, "   \t  \n");
	line_ok(&st, 3, "# mode esp");
	line_ok(&st, 4, "  #mode esp");
	assert_int_equal(st.line_mode, 0);
	line_ok(&st, 5, "mode esp   # the cluster's");
	assert_int_equal(st.mode, KAV_WIRE_ESP);
	assert_int_equal(st.line_mode, 5);
	line_ok(&st, 6, "ports 5000-5999\n");
	assert_int_equal(st.port_min, 5000);
	assert_int_equal(st.port_max, 5999);
	line_ok(&st, 7, "mark 0x4c000000");
	assert_int_equal(st.mark, 0x4c000000);
	line_ok(&st, 8, "scope 10.0.0.0/8 fd00::/8");
	line_ok(&st, 9, "exempt 10.0.0.5 port 6818");
	line_ok(&st, 10, "exempt 10.9.0.0/16");
	/* The same prefix as a scope and as an exemption: two nets. */
	line_ok(&st, 11, "exempt 10.0.0.0/8");
	/* Another port of the same address: another net. */
	line_ok(&st, 12, "exempt 10.0.0.5 port 6817");
	/* A protocol: the same endpoint by another is another net. */
	line_ok(&st, 13, "exempt 10.0.0.2 port 2049 proto tcp");
	line_ok(&st, 14, "exempt 10.0.0.2 proto udp port 2049  # NFS");
	line_ok(&st, 15, "exempt 10.0.0.2 port 2049");
	line_ok(&st, 16, "exempt 10.0.0.3 proto udp");
	assert_int_equal(st.nr_nets, 10);
	assert_int_equal(st.nets[6].port, 2049);
	assert_int_equal(st.nets[6].protocol, IPPROTO_TCP);
	assert_int_equal(st.nets[7].port, 2049);
	assert_int_equal(st.nets[7].protocol, IPPROTO_UDP);
	assert_int_equal(st.nets[8].protocol, 0);
	assert_int_equal(st.nets[9].port, 0);
	assert_int_equal(st.nets[9].protocol, IPPROTO_UDP);
	assert_int_equal(st.line_net[7], 14);
	kc_wire_describe_net(&st.nets[7], buf, sizeof(buf));
	assert_string_equal(buf, "exempt 10.0.0.2/32 port 2049 proto udp");
	/* "proto any" is no protocol: both. */
	line_err(&st, 20, "exempt 10.0.0.2 port 2049 proto any",
		 "exempt 10.0.0.2/32 port 2049 given twice (first on line 15)");
	line_err(&st, 20, "exempt 10.0.0.2 proto tcp port 2049",
		 "exempt 10.0.0.2/32 port 2049 proto tcp given twice (first on line 13)");
	assert_int_equal(st.line_net[0], 8);
	assert_int_equal(st.line_net[1], 8);
	assert_int_equal(st.line_net[2], 9);
	kc_wire_describe_net(&st.nets[1], buf, sizeof(buf));
	assert_string_equal(buf, "scope fd00::/8");
	kc_wire_describe_net(&st.nets[2], buf, sizeof(buf));
	assert_string_equal(buf, "exempt 10.0.0.5/32 port 6818");
	kc_wire_describe_net(&st.nets[3], buf, sizeof(buf));
	assert_string_equal(buf, "exempt 10.9.0.0/16");

	line_err(&st, 20, "mode off", "mode given twice (first on line 5)");
	line_err(&st, 20, "ports none", "ports given twice (first on line 6)");
	line_err(&st, 20, "mark 0", "mark given twice (first on line 7)");
	line_err(&st, 20, "scope 10.0.0.0/8",
		 "scope 10.0.0.0/8 given twice (first on line 8)");
	line_err(&st, 20, "scope 10.1.0.0/16 fd00::/8",
		 "scope fd00::/8 given twice (first on line 8)");
	line_err(&st, 20, "scope 10.1.0.0/16 10.1.0.0/16",
		 "given twice on the line");
	line_err(&st, 20, "exempt 10.0.0.5/32 port 6818",
		 "exempt 10.0.0.5/32 port 6818 given twice (first on line 9)");
	line_err(&st, 20, "scope 10.1.2.3/16", "the network is 10.1.0.0/16");
	line_err(&st, 20, "scope", "takes one or more prefixes");
	line_err(&st, 20, "exempt", "takes a prefix");
	line_err(&st, 20, "exempt 10.1.0.0/16 6818", "an optional port");
	line_err(&st, 20, "exempt 10.1.0.0/16 port", "an optional port");
	line_err(&st, 20, "exempt 10.1.0.0/16 port 0", "invalid port '0'");
	line_err(&st, 20, "exempt 10.1.0.0/16 ports 22", "an optional port");
	line_err(&st, 20, "exempt 10.1.0.0/16 10.2.0.0/16", "an optional port");
	line_err(&st, 20, "scope port 22", "a scope prefix has no port");
	line_err(&st, 20, "scope 10.1.0.0/16 port 22",
		 "a scope prefix has no port");
	line_err(&st, 20, "scope 10.1.0.0/16 proto tcp",
		 "a scope prefix has no protocol");
	line_err(&st, 20, "exempt 10.1.0.0/16 proto", "an optional port");
	line_err(&st, 20, "exempt 10.1.0.0/16 proto sctp",
		 "unknown protocol 'sctp'");
	line_err(&st, 20, "exempt 10.1.0.0/16 port 22 proto tcp proto udp",
		 "'proto' given twice on the line");
	line_err(&st, 20, "exempt 10.1.0.0/16 port 22 port 23",
		 "'port' given twice on the line");
	line_err(&st, 20, "exempt 10.1.0.0/16 protocol tcp", "an optional port");
	line_err(&st, 20, "exempt 10.1.0.0/16 port 22 tcp", "an optional port");
	line_err(&st, 20, "exempt 10.1.0.0/16 pr tcp", "an optional port");
	line_err(&st, 20, "modes esp", "unknown setting 'modes'");
	line_err(&st, 20, "Mode esp", "unknown setting 'Mode'");
	line_err(&st, 20, "vni 5 uid 1", "unknown setting 'vni'");
	line_err(&st, 20, "mode", "'mode' takes one value: none given");
	line_err(&st, 20, "mode esp flowlabel", "'mode' takes one value");
	line_err(&st, 20, "ports", "'ports' takes one value");
}

static void test_conf_fresh(void **state)
{
	static struct kc_wire_state st;
	char err[256];

	(void)state;
	/* Each value checked as wire set checks it. */
	kc_wire_state_init(&st);
	line_err(&st, 1, "mode ESP", "unknown wire mode 'ESP'");
	line_err(&st, 1, "ports 9-8", "above the last");
	line_err(&st, 1, "ports 0", "invalid port '0'");
	line_err(&st, 1, "mark 0x4b000001", "low 20 bits must be 0");
	line_ok(&st, 1, "ports none");
	assert_int_equal(st.line_ports, 1);
	assert_int_equal(st.port_min, 0);
	line_ok(&st, 2, "mode off");
	assert_int_equal(st.line_mode, 2);

	/* KAV_WIRE_NETS_MAX nets at most, over all lines. */
	kc_wire_state_init(&st);
	for (int i = 0; i < KAV_WIRE_NETS_MAX; i++) {
		char text[64];

		snprintf(text, sizeof(text), "scope 10.%d.0.0/16", i);
		line_ok(&st, (unsigned int)i + 1, text);
	}
	assert_int_equal(st.nr_nets, KAV_WIRE_NETS_MAX);
	line_err(&st, 99, "exempt 10.200.0.1", "more than 64");
	/* Too many words for a line. */
	{
		char big[4096] = "scope";
		int i;

		for (i = 0; i < KAV_WIRE_NETS_MAX + 4; i++)
			strcat(big, " 10.0.0.1");
		assert_int_equal(line(&st, 100, big, err, sizeof(err)), -1);
		expect_in(err, "too many words");
	}
}

static unsigned int read_text(const char *text, struct kc_wire_state *st,
			      const char **out)
{
	static struct capture cap;
	unsigned int nr;
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	kc_wire_state_init(st);
	capture_start(&cap, STDERR_FILENO);
	nr = kc_wire_conf_read(f, "wire.conf", st);
	*out = capture_end(&cap);
	fclose(f);
	return nr;
}

static void test_conf_read(void **state)
{
	static struct kc_wire_state st;
	const char *err;

	(void)state;
	assert_int_equal(read_text("# the wire of the cluster\n"
				   "mode flowlabel\n"
				   "\n"
				   "scope fd00:10::/32\n"
				   "exempt fd00:10::1 port 6818\n"
				   "exempt fd00:10::2 port 2049 proto tcp\n",
				   &st, &err), 0);
	assert_string_equal(err, "");
	assert_int_equal(st.mode, KAV_WIRE_FLOWLABEL);
	assert_int_equal(st.nr_nets, 3);
	assert_int_equal(st.line_net[1], 5);
	assert_int_equal(st.nets[1].protocol, 0);
	assert_int_equal(st.nets[2].protocol, IPPROTO_TCP);
	assert_int_equal(st.line_net[2], 6);
	/* Absent: mode off, no ports, the default mark. */
	assert_int_equal(read_text("", &st, &err), 0);
	assert_int_equal(st.mode, KAV_WIRE_OFF);
	assert_int_equal(st.mark, KC_WIRE_MARK_DEFAULT);
	assert_int_equal(st.nr_nets, 0);
	/* Every bad line is said with its number. */
	assert_int_equal(read_text("mode esp\n"
				   "scope 10.0.0.1/8\n"
				   "ports 1-2\n"
				   "mode off\n"
				   "frob\n", &st, &err), 3);
	expect_in(err, "kavctl: wire.conf:2: prefix '10.0.0.1/8' has bits set");
	expect_in(err, "kavctl: wire.conf:4: mode given twice (first on line 1)");
	expect_in(err, "kavctl: wire.conf:5: unknown setting 'frob'");
	/* No newline at the end; a NUL byte. */
	assert_int_equal(read_text("mode esp", &st, &err), 0);
	assert_int_equal(st.mode, KAV_WIRE_ESP);
	{
		static const char nul[] = "mode esp\nscope 10.0.0.0/8\0x\n";
		FILE *f = fmemopen((void *)nul, sizeof(nul) - 1, "r");
		static struct capture cap;
		const char *e;

		assert_non_null(f);
		kc_wire_state_init(&st);
		capture_start(&cap, STDERR_FILENO);
		assert_int_equal(kc_wire_conf_read(f, "w", &st), 1);
		e = capture_end(&cap);
		fclose(f);
		expect_in(e, "kavctl: w:2: NUL byte in the line");
	}
}

/* --------------------------------------------------------------- plan */

static void add(struct kc_wire_state *st, const char *prefix, bool exempt,
		uint16_t port)
{
	char err[256];

	assert_true(st->nr_nets < KAV_WIRE_NETS_MAX);
	if (kc_wire_parse_prefix(prefix, &st->nets[st->nr_nets], err,
				 sizeof(err)))
		fail_msg("%s: %s", prefix, err);
	if (exempt)
		st->nets[st->nr_nets].flags = KAV_WIRE_NET_EXEMPT;
	st->nets[st->nr_nets].port = port;
	st->line_net[st->nr_nets] = (unsigned int)st->nr_nets + 10;
	st->nr_nets++;
}

/* The steps as "add scope X", "del exempt Y", "set mode off -> esp". */
static void expect_plan(const struct kc_wire_state *want,
			const struct kc_wire_state *have, const char *text)
{
	static struct kc_wire_step steps[KC_WIRE_STEPS_MAX];
	char got[8192] = "", d[256];
	size_t n, i, o = 0;

	n = kc_wire_plan(want, have, steps);
	assert_true(n <= KC_WIRE_STEPS_MAX);
	for (i = 0; i < n; i++) {
		kc_wire_describe_step(&steps[i], have, d, sizeof(d));
		o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s %s",
				      i ? "; " : "",
				      steps[i].op == KC_WIRE_STEP_ADD ? "add" :
				      steps[i].op == KC_WIRE_STEP_DEL ? "del" :
				      "set", d);
	}
	if (strcmp(got, text) != 0)
		fail_msg("plan\n%s\nexpected\n%s", got, text);
}

static void test_plan(void **state)
{
	static struct kc_wire_state want, have;
	static struct kc_wire_step steps[KC_WIRE_STEPS_MAX];
	size_t n;

	(void)state;
	/* The same: nothing. */
	kc_wire_state_init(&want);
	kc_wire_state_init(&have);
	expect_plan(&want, &have, "");
	add(&want, "10.0.0.0/8", false, 0);
	add(&have, "10.0.0.0/8", false, 0);
	want.mode = have.mode = KAV_WIRE_ESP;
	expect_plan(&want, &have, "");

	/*
	 * Off to esp: exemptions in and stale scope out, then ports, new
	 * scope, stale exemptions out, and the mode last.
	 */
	kc_wire_state_init(&want);
	kc_wire_state_init(&have);
	add(&have, "10.0.0.0/8", false, 0);
	add(&have, "10.0.0.9", true, 22);
	add(&have, "10.0.0.7", true, 0);
	want.mode = KAV_WIRE_ESP;
	want.port_min = 5000;
	want.port_max = 5999;
	add(&want, "fd00::/8", false, 0);
	add(&want, "10.0.0.5", true, 6818);
	add(&want, "10.0.0.7", true, 0);
	expect_plan(&want, &have,
		    "add exempt 10.0.0.5/32 port 6818; "
		    "del scope 10.0.0.0/8; "
		    "set ports none -> 5000-5999; "
		    "add scope fd00::/8; "
		    "del exempt 10.0.0.9/32 port 22; "
		    "set mode off -> esp");
	n = kc_wire_plan(&want, &have, steps);
	assert_int_equal(n, 6);
	/* Each step says the line of the file it comes from. */
	assert_int_equal(steps[0].line, want.line_net[1]);
	assert_int_equal(steps[1].line, 0);
	assert_true(steps[5].set.has_mode);
	assert_false(steps[5].set.has_ports || steps[5].set.has_mark);
	assert_true(steps[2].set.has_ports);
	assert_int_equal(steps[2].set.port_min, 5000);
	assert_int_equal(steps[2].set.port_max, 5999);

	/* Esp to off: off first, then the rest. */
	{
		struct kc_wire_state w2, h2;

		kc_wire_state_init(&w2);
		kc_wire_state_init(&h2);
		h2.mode = KAV_WIRE_ESP;
		h2.port_min = 1;
		h2.port_max = 2;
		h2.mark = 0x10000000;
		add(&h2, "10.0.0.0/8", false, 0);
		expect_plan(&w2, &h2,
			    "set mode esp -> off; "
			    "del scope 10.0.0.0/8; "
			    "set ports 1-2 -> none, mark 0x10000000 -> 0x4b000000");
		/* From one carrier to the other: the mode last. */
		kc_wire_state_init(&w2);
		w2.mode = KAV_WIRE_FLOWLABEL;
		add(&w2, "10.0.0.0/8", false, 0);
		add(&w2, "10.1.0.0/16", false, 0);
		h2.port_min = h2.port_max = 0;
		h2.mark = KC_WIRE_MARK_DEFAULT;
		expect_plan(&w2, &h2,
			    "add scope 10.1.0.0/16; set mode esp -> flowlabel");
		/* A kernel that reported no mark: it is set. */
		h2.has_mark = false;
		h2.mode = KAV_WIRE_FLOWLABEL;
		expect_plan(&w2, &h2,
			    "set mark unknown -> 0x4b000000; add scope 10.1.0.0/16");
		/* Ports: only the range counts, a port range of none is 0, 0. */
		h2.has_mark = true;
		w2.port_min = 7;
		w2.port_max = 7;
		h2.port_min = 7;
		h2.port_max = 8;
		expect_plan(&w2, &h2,
			    "set ports 7-8 -> 7; add scope 10.1.0.0/16");
	}

	/*
	 * An exemption narrowed to one protocol: another net, the new one
	 * in before the old one goes (what lets more through first).
	 */
	kc_wire_state_init(&want);
	kc_wire_state_init(&have);
	want.mode = have.mode = KAV_WIRE_ESP;
	add(&have, "10.0.0.2", true, 2049);
	add(&want, "10.0.0.2", true, 2049);
	want.nets[0].protocol = IPPROTO_TCP;
	expect_plan(&want, &have,
		    "add exempt 10.0.0.2/32 port 2049 proto tcp; "
		    "del exempt 10.0.0.2/32 port 2049");
	/* The same protocol: nothing. */
	have.nets[0].protocol = IPPROTO_TCP;
	expect_plan(&want, &have, "");
}

/* Never more than KAV_WIRE_NETS_MAX nets in the kernel on the way. */
static void test_plan_room(void **state)
{
	static struct kc_wire_state want, have;
	static struct kc_wire_step steps[KC_WIRE_STEPS_MAX];
	size_t n, i, nets, adds = 0, dels = 0;
	char p[32];

	(void)state;
	kc_wire_state_init(&want);
	kc_wire_state_init(&have);
	for (i = 0; i < KAV_WIRE_NETS_MAX; i++) {
		snprintf(p, sizeof(p), "10.1.0.%zu", i);
		add(&have, p, true, 0);
		snprintf(p, sizeof(p), "10.2.0.%zu", i);
		add(&want, p, i % 2, 0);
	}
	n = kc_wire_plan(&want, &have, steps);
	nets = have.nr_nets;
	for (i = 0; i < n; i++) {
		if (steps[i].op == KC_WIRE_STEP_ADD) {
			nets++;
			adds++;
		} else if (steps[i].op == KC_WIRE_STEP_DEL) {
			nets--;
			dels++;
		}
		assert_true(nets <= KAV_WIRE_NETS_MAX);
	}
	assert_int_equal(adds, KAV_WIRE_NETS_MAX);
	assert_int_equal(dels, KAV_WIRE_NETS_MAX);
	assert_int_equal(nets, KAV_WIRE_NETS_MAX);
	assert_int_equal(n, 2 * KAV_WIRE_NETS_MAX);
}

/* ------------------------------------------------- wire show of replies */

#define FAMILY 0x42

static struct nl_msg *wire_reply(bool full)
{
	struct nl_msg *msg = nlmsg_alloc();
	uint64_t drops[KAV_WIRE_DROP_NR] = { 1, 2, 3, 4, 5, 6, 7 };
	struct kav_wire_net n;
	char err[256];

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 0, 0, FAMILY, 0, 0,
				    KAV_GENL_CMD_WIRE_GET, KAV_GENL_VERSION));
	assert_int_equal(nla_put_u32(msg, KAV_A_WIRE_MODE, full ?
				     KAV_WIRE_ESP : KAV_WIRE_OFF), 0);
	assert_int_equal(nla_put_u32(msg, KAV_A_WIRE_PORT_MIN,
				     full ? 5000 : 0), 0);
	assert_int_equal(nla_put_u32(msg, KAV_A_WIRE_PORT_MAX,
				     full ? 5999 : 0), 0);
	assert_int_equal(nla_put_u32(msg, KAV_A_WIRE_MARK, 0x4b000000), 0);
	if (full) {
		assert_int_equal(kc_wire_parse_prefix("10.0.0.0/8", &n, err,
						      sizeof(err)), 0);
		assert_int_equal(nla_put(msg, KAV_A_WIRE_NET, sizeof(n), &n), 0);
		assert_int_equal(kc_wire_parse_prefix("10.0.0.5", &n, err,
						      sizeof(err)), 0);
		n.flags = KAV_WIRE_NET_EXEMPT;
		n.port = 6818;
		assert_int_equal(nla_put(msg, KAV_A_WIRE_NET, sizeof(n), &n), 0);
		assert_int_equal(kc_wire_parse_prefix("10.0.0.2", &n, err,
						      sizeof(err)), 0);
		n.flags = KAV_WIRE_NET_EXEMPT;
		n.port = 2049;
		n.protocol = IPPROTO_TCP;
		assert_int_equal(nla_put(msg, KAV_A_WIRE_NET, sizeof(n), &n), 0);
		assert_int_equal(kc_wire_parse_prefix("fd00::53", &n, err,
						      sizeof(err)), 0);
		n.flags = KAV_WIRE_NET_EXEMPT;
		n.protocol = IPPROTO_UDP;
		assert_int_equal(nla_put(msg, KAV_A_WIRE_NET, sizeof(n), &n), 0);
		assert_int_equal(kc_wire_parse_prefix("fd00::/8", &n, err,
						      sizeof(err)), 0);
		assert_int_equal(nla_put(msg, KAV_A_WIRE_NET, sizeof(n), &n), 0);
	}
	assert_int_equal(nla_put_u64(msg, KAV_A_WIRE_PASSED, 77), 0);
	assert_int_equal(nla_put(msg, KAV_A_WIRE_DROP_COUNTS, sizeof(drops),
				 drops), 0);
	assert_int_equal(nla_put_u64(msg, KAV_A_WIRE_ABORTS, 9), 0);
	return msg;
}

static const char *show(struct nl_msg *msg, bool json)
{
	static struct capture cap;
	static struct kc_cmd cmd;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.json = json;
	cmd.op = KC_OP_WIRE_SHOW;
	capture_start(&cap, STDOUT_FILENO);
	ret = kc_wire_show_reply(&cmd, msg);
	capture_end(&cap);
	assert_int_equal(ret, 0);
	return cap.buf;
}

static void test_show(void **state)
{
	struct nl_msg *msg;
	const char *out;

	(void)state;
	msg = wire_reply(true);
	out = show(msg, true);
	assert_string_equal(out,
			    "{\n"
			    "  \"wire\": {\n"
			    "    \"mode\": \"esp\",\n"
			    "    \"port_min\": 5000,\n"
			    "    \"port_max\": 5999,\n"
			    "    \"mark\": 1258291200,\n"
			    "    \"scope\": [\n"
			    "      \"10.0.0.0/8\",\n"
			    "      \"fd00::/8\"\n"
			    "    ],\n"
			    "    \"exempt\": [\n"
			    "      {\n"
			    "        \"prefix\": \"10.0.0.5/32\",\n"
			    "        \"port\": 6818,\n"
			    "        \"protocol\": \"any\"\n"
			    "      },\n"
			    "      {\n"
			    "        \"prefix\": \"10.0.0.2/32\",\n"
			    "        \"port\": 2049,\n"
			    "        \"protocol\": \"tcp\"\n"
			    "      },\n"
			    "      {\n"
			    "        \"prefix\": \"fd00::53/128\",\n"
			    "        \"port\": 0,\n"
			    "        \"protocol\": \"udp\"\n"
			    "      }\n"
			    "    ],\n"
			    "    \"passed\": 77,\n"
			    "    \"drops\": {\n"
			    "      \"sender_no_key\": 1,\n"
			    "      \"receiver_no_key\": 2,\n"
			    "      \"mismatch\": 3,\n"
			    "      \"no_carrier\": 4,\n"
			    "      \"netns\": 5,\n"
			    "      \"fragment\": 6,\n"
			    "      \"conflict\": 7\n"
			    "    },\n"
			    "    \"aborts\": 9\n"
			    "  }\n"
			    "}\n");
	out = show(msg, false);
	expect_in(out, "mode ");
	expect_in(out, "esp\n");
	expect_in(out, "5000-5999\n");
	expect_in(out, "0x4b000000\n");
	expect_in(out, "10.0.0.0/8\n");
	expect_in(out, "fd00::/8\n");
	expect_in(out, "10.0.0.5/32 port 6818\n");
	expect_in(out, "10.0.0.2/32 port 2049 proto tcp\n");
	expect_in(out, "fd00::53/128 proto udp\n");
	expect_in(out, "dropped, sender-no-key");
	expect_in(out, "dropped, receiver-no-key");
	expect_in(out, "dropped, no-carrier");
	expect_in(out, "dropped, fragment");
	expect_in(out, "dropped, conflict");
	expect_in(out, "aborts");
	nlmsg_free(msg);

	/* Off, no ports, no nets. */
	msg = wire_reply(false);
	out = show(msg, true);
	expect_in(out, "\"mode\": \"off\"");
	expect_in(out, "\"port_min\": null");
	expect_in(out, "\"scope\": []");
	expect_in(out, "\"exempt\": []");
	out = show(msg, false);
	expect_in(out, "off (nothing is checked)");
	expect_in(out, "none (every port)");
	expect_in(out, "none (nothing is checked)");
	nlmsg_free(msg);
}

/* ------------------------------------------------ stats: the wire's */

static struct nl_msg *stats_reply(bool wire)
{
	struct nl_msg *msg = nlmsg_alloc();
	uint64_t drops[KAV_WIRE_DROP_NR] = { 11, 12, 13, 14, 15, 16, 17 };

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 0, 0, FAMILY, 0, 0,
				    KAV_GENL_CMD_STATS_GET, KAV_GENL_VERSION));
	nla_put_u64(msg, KAV_A_STAT_DOMAINS, 1);
	nla_put_u64(msg, KAV_A_STAT_GRANTS, 2);
	nla_put_u64(msg, KAV_A_STAT_DENY_MODE, 3);
	if (wire) {
		nla_put_u64(msg, KAV_A_WIRE_PASSED, 99);
		nla_put(msg, KAV_A_WIRE_DROP_COUNTS, sizeof(drops), drops);
		nla_put_u64(msg, KAV_A_WIRE_ABORTS, 4);
	}
	return msg;
}

static const char *stats(struct nl_msg *msg, bool json, const char *cols)
{
	static struct capture cap;
	static struct kc_cmd cmd;
	int ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.json = json;
	cmd.columns = cols;
	cmd.op = KC_OP_STATS;
	capture_start(&cap, STDOUT_FILENO);
	ret = kc_stats_show_reply(&cmd, msg);
	capture_end(&cap);
	assert_int_equal(ret, 0);
	return cap.buf;
}

static void test_stats(void **state)
{
	struct nl_msg *msg;
	const char *out;

	(void)state;
	/* A module without the wire: nothing of it. */
	msg = stats_reply(false);
	out = stats(msg, false, NULL);
	expect_in(out, "domains");
	expect_in(out, "denied, named AV mode bits");
	assert_null(strstr(out, "wire"));
	out = stats(msg, true, NULL);
	expect_in(out, "\"deny_mode\": 3");
	assert_null(strstr(out, "wire"));
	/* Unless -o names them. */
	out = stats(msg, true, "DOMAINS,WIRE-PASSED");
	expect_in(out, "\"wire_passed\": null");
	nlmsg_free(msg);

	msg = stats_reply(true);
	out = stats(msg, false, NULL);
	expect_in(out, "wire, passed (in scope, keys equal)");
	expect_in(out, "99\n");
	expect_in(out, "wire, dropped: the sender holds no key");
	expect_in(out, "11\n");
	expect_in(out, "wire, dropped: a fragment not reassembled");
	expect_in(out, "wire, dropped: an owner with two keys");
	expect_in(out, "16\n");
	expect_in(out, "wire, sockets aborted (key revoked)");
	out = stats(msg, true, NULL);
	expect_in(out, "\"wire_passed\": 99");
	expect_in(out, "\"wire_drop_sender_no_key\": 11");
	expect_in(out, "\"wire_drop_receiver_no_key\": 12");
	expect_in(out, "\"wire_drop_mismatch\": 13");
	expect_in(out, "\"wire_drop_no_carrier\": 14");
	expect_in(out, "\"wire_drop_netns\": 15");
	expect_in(out, "\"wire_drop_fragment\": 16");
	expect_in(out, "\"wire_drop_conflict\": 17");
	expect_in(out, "\"wire_aborts\": 4");
	/* Absent in the reply, present as a column: null. */
	expect_in(out, "\"avs\": null");
	nlmsg_free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_mode_ports_mark),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_conf_lines),
		cmocka_unit_test(test_conf_fresh),
		cmocka_unit_test(test_conf_read),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_room),
		cmocka_unit_test(test_show),
		cmocka_unit_test(test_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
