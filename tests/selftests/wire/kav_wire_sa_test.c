// SPDX-License-Identifier: GPL-2.0
/*
 * tools/wire/kav-wire-sa (kav-wire-sa(8); Documentation/wire.rst "esp",
 * Documentation/admin-guide.rst "esp: the cluster secret and the SAs")
 * in the guest, against kav.ko in esp mode: two network namespaces, each
 * with one of the fabric NICs (eth1, eth2 on one hub: kav re-routes to a
 * NIC, not to a veth), the wire's scope on their prefixes, a wire grant
 * of KEY_A to each namespace, one cluster secret; `kav-wire-sa up` in
 * each namespace, then UDP and TCP pass through the SAs (their counters
 * move), both ends derived the same SPIs and keys, a second key's SAs
 * differ, `down` removes them (traffic under the key is then plaintext,
 * refused as no-carrier), `flush` spares the administrator's SAs, an
 * SPI collision is exit 3, and bad input is refused.
 *
 * kav-wire-sa, kavctl and openssl come from the guest's /tests
 * (lanes/vm/vm.sh's EXTRAS; $KAV_WIRE_SA_TOOLS names another directory),
 * /usr/bin/ip is iproute2's (busybox's applet knows no xfrm). The cases
 * run in order on one setup: each depends on the ones before it.
 */

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "kav_wire_tools.h"

#define IP_BIN	"/usr/bin/ip"
#define NS1	"kws1"
#define NS2	"kws2"
#define A1	"10.79.0.1"
#define A2	"10.79.0.2"
#define B1	"fd79::1"
#define B2	"fd79::2"
#define DIR	"/tmp/kav-wire-sa"
#define SECRET	DIR "/wire.key"
#define KEY_A	257
#define KEY_B	514
#define KEY_C	771
#define PORT	42001
#define SLOW	120

static char out[65536];
static char tools[256];

#define run(...)	kav_sh(out, sizeof(out), __VA_ARGS__)

/* kav-wire-sa in namespace @ns with @args. */
#define SA(ns, ...)	run(IP_BIN " netns exec " ns " %s/kav-wire-sa " \
			    __VA_ARGS__)

static int host_ns = -1;

static int enter(const char *ns)
{
	if (host_ns < 0)
		host_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	return kav_netns_enter(host_ns, ns);
}

static socklen_t sa_of(const char *a, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (strchr(a, ':')) {
		struct sockaddr_in6 *s = (void *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		inet_pton(AF_INET6, a, &s->sin6_addr);
		return sizeof(*s);
	}
	struct sockaddr_in *s = (void *)ss;

	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	inet_pton(AF_INET, a, &s->sin_addr);
	return sizeof(*s);
}

/* A socket in @ns, bound to @a:@port (listening, for a stream) if @port. */
static int ns_socket(const char *ns, int type, const char *a, int port)
{
	struct sockaddr_storage ss;
	socklen_t l = sa_of(a, port, &ss);
	int fd, one = 1;

	if (enter(ns))
		return -1;
	fd = socket(ss.ss_family, type | SOCK_CLOEXEC, 0);
	enter(NULL);
	if (fd < 0 || !port)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, l) ||
	    (type == SOCK_STREAM && listen(fd, 4))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms);
}

/* A datagram from NS1 to @dst in NS2: 1 if it arrived, 0 if not. */
static int udp_passes(const char *src, const char *dst, int ms)
{
	struct sockaddr_storage ss;
	socklen_t l = sa_of(dst, PORT, &ss);
	int lfd = ns_socket(NS2, SOCK_DGRAM, dst, PORT);
	int fd = ns_socket(NS1, SOCK_DGRAM, src, 0);
	char buf[16];
	int ok = -1, i;

	if (lfd >= 0 && fd >= 0) {
		ok = 0;
		/* The first may wait for neighbour resolution: a few. */
		for (i = 0; i < 3 && !ok; i++) {
			sendto(fd, "kavsa", 5, 0, (struct sockaddr *)&ss, l);
			if (readable(lfd, ms / 3) == 1 &&
			    recv(lfd, buf, sizeof(buf), 0) == 5)
				ok = 1;
		}
	}
	if (lfd >= 0)
		close(lfd);
	if (fd >= 0)
		close(fd);
	return ok;
}

/* A TCP connection from NS1 to @dst in NS2 carrying 64 KiB. */
static int tcp_passes(const char *dst)
{
	static char buf[65536];
	struct sockaddr_storage ss;
	socklen_t l = sa_of(dst, PORT + 1, &ss);
	struct timeval tv = { .tv_sec = 20 };
	int lfd = ns_socket(NS2, SOCK_STREAM, dst, PORT + 1);
	int fd = ns_socket(NS1, SOCK_STREAM, dst, 0), afd = -1, ok = 0;
	size_t got = 0;
	ssize_t n;

	if (lfd < 0 || fd < 0)
		goto out;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&ss, l))
		goto out;
	if (readable(lfd, 10000) != 1)
		goto out;
	afd = accept(lfd, NULL, NULL);
	if (afd < 0)
		goto out;
	memset(buf, 0x5a, sizeof(buf));
	if (send(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		goto out;
	while (got < sizeof(buf) && readable(afd, 10000) == 1) {
		n = recv(afd, buf, sizeof(buf), 0);
		if (n <= 0)
			break;
		got += n;
	}
	ok = got == sizeof(buf);
out:
	if (afd >= 0)
		close(afd);
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
	return ok;
}

/*
 * The SAs of @key in @ns as sorted "src dst spi aead-key" lines in @buf;
 * their number.
 */
static int sa_lines(const char *ns, int key, char *buf, size_t len)
{
	char lines[16][256], *p, *q, src[64], dst[64], *tmp;
	int n = 0, i, j;

	buf[0] = 0;
	if (run(IP_BIN " -n %s xfrm state list reqid %d", ns, key))
		return -1;
	for (p = out; (p = strstr(p, "src ")) && n < 16; p++) {
		if (p != out && p[-1] != '\n')
			continue;
		char spi[32] = "", k[160] = "";

		if (sscanf(p, "src %63s dst %63s", src, dst) != 2)
			continue;
		q = strstr(p, " spi ");
		if (q)
			sscanf(q, " spi %31s", spi);
		q = strstr(p, "aead ");
		if (q)
			sscanf(q, "aead %*s %159s", k);
		snprintf(lines[n++], 256, "%s %s %s %s", src, dst, spi, k);
	}
	for (i = 0; i < n; i++)	/* sort */
		for (j = i + 1; j < n; j++)
			if (strcmp(lines[i], lines[j]) > 0) {
				char t[256];

				strcpy(t, lines[i]);
				strcpy(lines[i], lines[j]);
				strcpy(lines[j], t);
			}
	for (i = 0; i < n; i++) {
		tmp = buf + strlen(buf);
		snprintf(tmp, len - (tmp - buf), "%s\n", lines[i]);
	}
	return n;
}

/* Packets the SAs of @key from @src in @ns have carried (ip -s). */
static long sa_packets(const char *ns, int key, const char *src)
{
	long sum = 0;
	char *p, *q;

	if (run(IP_BIN " -s -n %s xfrm state list src %s reqid %d", ns, src,
		key))
		return -1;
	for (p = out; (p = strstr(p, "(packets)")); p++) {
		q = p;
		while (q > out && q[-1] >= '0' && q[-1] <= '9')
			q--;
		sum += strtol(q, NULL, 10);
	}
	return sum;
}

static unsigned long long no_carrier(void)
{
	char *p;

	if (run("%s/kavctl -j wire show", tools))
		return 0;
	p = strstr(out, "\"no_carrier\"");
	if (!p || !(p = strchr(p, ':')))
		return 0;
	return strtoull(p + 1, NULL, 10);
}

FIXTURE(sa) {
	int unused;
};

FIXTURE_SETUP(sa)
{
	kav_wire_tools(tools, sizeof(tools));
}

FIXTURE_TEARDOWN(sa)
{
}

TEST_F_TIMEOUT(sa, prepare, SLOW)
{
	int i;

	if (access("/sys/class/net/eth1", F_OK) ||
	    access("/sys/class/net/eth2", F_OK))
		SKIP(return, "no fabric NICs eth1, eth2 (KAV_VM_FABRIC_NICS)");
	ASSERT_EQ(0, access(IP_BIN, X_OK));
	ASSERT_EQ(0, run("test -x %s/kav-wire-sa && test -x %s/kavctl && "
			 "test -x \"$KAV_WIRE_SA_OPENSSL\"", tools, tools))
		TH_LOG("kav-wire-sa, kavctl or openssl missing in %s", tools);
	run("rm -rf " DIR "; mkdir -p " DIR);
	for (i = 0; i < 2; i++) {
		const char *ns = i ? NS2 : NS1, *dev = i ? "eth2" : "eth1";

		run(IP_BIN " netns del %s", ns);
		ASSERT_EQ(0, run(IP_BIN " netns add %s", ns)) TH_LOG("%s", out);
		ASSERT_EQ(0, run(IP_BIN " link set %s netns %s", dev, ns))
			TH_LOG("%s", out);
		ASSERT_EQ(0, run(IP_BIN " -n %s link set lo up", ns));
		ASSERT_EQ(0, run(IP_BIN " -n %s addr add %s/24 dev %s", ns,
				 i ? A2 : A1, dev)) TH_LOG("%s", out);
		ASSERT_EQ(0, run(IP_BIN " -n %s addr add %s/64 dev %s nodad",
				 ns, i ? B2 : B1, dev)) TH_LOG("%s", out);
		ASSERT_EQ(0, run(IP_BIN " -n %s link set %s up", ns, dev));
	}
	ASSERT_EQ(0, run("%s/kavctl wire set mode esp", tools)) TH_LOG("%s", out);
	ASSERT_EQ(0, run("%s/kavctl wire scope add 10.79.0.0/24 fd79::/64",
			 tools)) TH_LOG("%s", out);
	ASSERT_EQ(0, run("%s/kavctl grant add vni %d netns " NS1 " tag kavsa wire",
			 tools, KEY_A)) TH_LOG("%s", out);
	ASSERT_EQ(0, run("%s/kavctl grant add vni %d netns " NS2 " tag kavsa wire",
			 tools, KEY_A)) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(sa, genkey, SLOW)
{
	struct stat st;
	char first[80];

	ASSERT_EQ(0, SA(NS1, "genkey " SECRET, tools)) TH_LOG("%s", out);
	ASSERT_EQ(0, stat(SECRET, &st));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(65, st.st_size);	/* 64 hex digits and a newline */
	ASSERT_EQ(0, run("cat " SECRET));
	snprintf(first, sizeof(first), "%.70s", out);
	/* It refuses to overwrite it, --force replaces it. */
	EXPECT_NE(0, SA(NS1, "genkey " SECRET, tools));
	EXPECT_NE(NULL, strstr(out, "exists")) TH_LOG("%s", out);
	run("cat " SECRET);
	EXPECT_EQ(0, strncmp(first, out, 70));
	EXPECT_EQ(0, SA(NS1, "genkey --force " SECRET, tools)) TH_LOG("%s", out);
	run("cat " SECRET);
	EXPECT_NE(0, strncmp(first, out, 70));
}

TEST_F_TIMEOUT(sa, up, SLOW)
{
	char l1[4096], l2[4096];

	ASSERT_EQ(0, SA(NS1, "--mark 0x4b000000 --secret " SECRET " up %d " A2 " " B2, tools,
			KEY_A)) TH_LOG("%s", out);
	ASSERT_EQ(0, SA(NS2, "--mark 0x4b000000 --secret " SECRET " up %d " A1 " " B1, tools,
			KEY_A)) TH_LOG("%s", out);
	ASSERT_EQ(4, sa_lines(NS1, KEY_A, l1, sizeof(l1))) TH_LOG("%s", out);
	/* Idempotent. */
	ASSERT_EQ(0, SA(NS1, "--mark 0x4b000000 --secret " SECRET " up %d " A2 " " B2, tools,
			KEY_A)) TH_LOG("%s", out);
	EXPECT_EQ(4, sa_lines(NS1, KEY_A, l2, sizeof(l2)));
	EXPECT_STREQ(l1, l2);
	ASSERT_EQ(0, run(IP_BIN " -n " NS1 " xfrm policy list dir out"));
	EXPECT_NE(NULL, strstr(out, "mark 0x4b000101/0xffffffff"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "reqid 257 mode transport"));
}

TEST_F_TIMEOUT(sa, both_ends_derive_the_same, SLOW)
{
	char l1[4096], l2[4096], *p;
	unsigned long spi;

	ASSERT_EQ(4, sa_lines(NS1, KEY_A, l1, sizeof(l1)));
	ASSERT_EQ(4, sa_lines(NS2, KEY_A, l2, sizeof(l2)));
	EXPECT_STREQ(l1, l2);
	TH_LOG("%s", l1);
	for (p = l1; (p = strstr(p, " 0x")); p += 3) {
		spi = strtoul(p + 1, NULL, 16);
		if (strlen(p) > 20 && p[11] == ' ')	/* an SPI, not a key */
			EXPECT_LE(256, spi);
	}
	ASSERT_EQ(0, run(IP_BIN " -n " NS1 " xfrm state list reqid %d", KEY_A));
	EXPECT_NE(NULL, strstr(out, "rfc4106(gcm(aes))")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "mode transport"));
	EXPECT_NE(NULL, strstr(out, "esn")) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(sa, udp_and_tcp_pass, SLOW)
{
	EXPECT_EQ(1, udp_passes(A1, A2, 6000));
	EXPECT_EQ(1, udp_passes(B1, B2, 6000));
	EXPECT_EQ(1, tcp_passes(A2));
	EXPECT_EQ(1, tcp_passes(B2));
}

TEST_F_TIMEOUT(sa, counters_show_esp, SLOW)
{
	EXPECT_LT(0, sa_packets(NS2, KEY_A, A1)) TH_LOG("%s", out);
	EXPECT_LT(0, sa_packets(NS2, KEY_A, B1)) TH_LOG("%s", out);
	EXPECT_LT(0, sa_packets(NS1, KEY_A, A2)) TH_LOG("%s", out);
	EXPECT_LT(0, sa_packets(NS1, KEY_A, A1)) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(sa, second_key_differs, SLOW)
{
	char la[4096], lb[4096], lb2[4096], *p, *q;

	ASSERT_EQ(0, SA(NS1, "--mark 0x4b000000 --secret " SECRET " up %d " A2 " " B2, tools,
			KEY_B)) TH_LOG("%s", out);
	ASSERT_EQ(0, SA(NS2, "--mark 0x4b000000 --secret " SECRET " up %d " A1 " " B1, tools,
			KEY_B)) TH_LOG("%s", out);
	ASSERT_EQ(4, sa_lines(NS1, KEY_A, la, sizeof(la)));
	ASSERT_EQ(4, sa_lines(NS1, KEY_B, lb, sizeof(lb)));
	ASSERT_EQ(4, sa_lines(NS2, KEY_B, lb2, sizeof(lb2)));
	EXPECT_STREQ(lb, lb2);
	/* No SPI or key of B is one of A's. */
	for (p = lb; (p = strstr(p, " 0x")); p++) {
		q = strchr(p + 1, ' ');
		char w[200];

		snprintf(w, sizeof(w), "%.*s", (int)((q ? q : p + strlen(p)) -
						     p), p);
		if (strchr(w, '\n'))
			*strchr(w, '\n') = 0;
		EXPECT_EQ(NULL, strstr(la, w)) TH_LOG("%s in both", w);
	}
	ASSERT_EQ(0, SA(NS1, "list", tools));
	EXPECT_NE(NULL, strstr(out, "key 257")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "key 514")) TH_LOG("%s", out);
	/* --integrity: GMAC. */
	ASSERT_EQ(0, SA(NS1, "--mark 0x4b000000 --secret " SECRET " --integrity up %d " A2, tools,
			KEY_C)) TH_LOG("%s", out);
	ASSERT_EQ(0, run(IP_BIN " -n " NS1 " xfrm state list reqid %d", KEY_C));
	EXPECT_NE(NULL, strstr(out, "rfc4543(gcm(aes))")) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(sa, down_removes_and_refuses, SLOW)
{
	char l[4096];
	unsigned long long nc;

	/* One peer only: the IPv6 ones go, IPv4 stays. */
	ASSERT_EQ(0, SA(NS1, "down %d " B2, tools, KEY_B)) TH_LOG("%s", out);
	EXPECT_EQ(2, sa_lines(NS1, KEY_B, l, sizeof(l))) TH_LOG("%s", l);
	ASSERT_EQ(0, SA(NS1, "down %d", tools, KEY_A)) TH_LOG("%s", out);
	ASSERT_EQ(0, SA(NS2, "down %d", tools, KEY_A)) TH_LOG("%s", out);
	EXPECT_EQ(0, sa_lines(NS1, KEY_A, l, sizeof(l)));
	EXPECT_EQ(0, sa_lines(NS2, KEY_A, l, sizeof(l)));
	EXPECT_EQ(2, sa_lines(NS1, KEY_B, l, sizeof(l)));
	EXPECT_EQ(4, sa_lines(NS2, KEY_B, l, sizeof(l)));
	ASSERT_EQ(0, run(IP_BIN " -n " NS1 " xfrm policy list dir out"));
	EXPECT_EQ(NULL, strstr(out, "0x4b000101")) TH_LOG("%s", out);
	/* Key A without SAs: plaintext, refused at NS2 (no carrier). */
	nc = no_carrier();
	EXPECT_EQ(0, udp_passes(A1, A2, 1500));
	EXPECT_LT(nc, no_carrier());
	/* Down again: nothing to remove, no error. */
	EXPECT_EQ(0, SA(NS1, "down %d", tools, KEY_A)) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(sa, collision_is_exit_3, SLOW)
{
	char spi[32] = "", *p;

	/* KEY_A's SPI into NS1, with another reqid: up must not take it. */
	ASSERT_EQ(0, SA(NS1, "--mark 0x4b000000 --secret " SECRET " up %d " A2, tools, KEY_A));
	ASSERT_EQ(0, run(IP_BIN " -n " NS1 " xfrm state list src " A2
			 " reqid %d", KEY_A));
	p = strstr(out, " spi ");
	ASSERT_NE(NULL, p);
	sscanf(p, " spi %31s", spi);
	ASSERT_EQ(0, SA(NS1, "down %d", tools, KEY_A));
	ASSERT_EQ(0, run(IP_BIN " -n " NS1 " xfrm state add src " A2 " dst "
			 A1 " proto esp spi %s reqid 1048581 mode transport "
			 "aead 'rfc4106(gcm(aes))' "
			 "0x0123456789abcdef0123456789abcdef01234567 128", spi))
		TH_LOG("%s", out);
	EXPECT_EQ(3, SA(NS1, "--mark 0x4b000000 --secret " SECRET " up %d " A2, tools, KEY_A))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "collides")) TH_LOG("%s", out);
	/* The administrator's SA is left alone by flush too. */
	ASSERT_EQ(0, SA(NS1, "flush", tools)) TH_LOG("%s", out);
	ASSERT_EQ(0, run(IP_BIN " -n " NS1 " xfrm state list"));
	EXPECT_NE(NULL, strstr(out, "reqid 1048581")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "reqid 514 ")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "reqid 771 ")) TH_LOG("%s", out);
	ASSERT_EQ(0, run(IP_BIN " -n " NS1 " xfrm policy list"));
	EXPECT_EQ(NULL, strstr(out, "0x4b000")) TH_LOG("%s", out);
	run(IP_BIN " -n " NS1 " xfrm state flush");
}

TEST_F_TIMEOUT(sa, bad_input, SLOW)
{
	static const char *const bad[] = {
		"up 0 " A2, "up 1048576 " A2, "up 0x100000 " A2, "up -1 " A2,
		"up 12x " A2, "up 257 10.79.0.300", "up 257 fd79::g",
		"up 257 10.79.0.0/24", "up 257 1:2:3:4:5:6:7:8:9", "up 257",
		"down 0", "down 1048576", "frob", "--mark 0x4b000001 up 257 " A2,
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(2, SA(NS1, "--mark 0x4b000000 --secret " SECRET " %s",
				tools, bad[i])) TH_LOG("%s: %s", bad[i], out);
		EXPECT_LT(10, (int)strlen(out)) TH_LOG("%s: no message", bad[i]);
	}
	/* The secret: missing, not 0600, not root's, not 32 bytes. */
	EXPECT_EQ(1, SA(NS1, "--mark 0x4b000000 --secret " DIR "/none up 257 "
			A2, tools));
	EXPECT_NE(NULL, strstr(out, "no cluster secret")) TH_LOG("%s", out);
	run("cp " SECRET " " DIR "/k2 && chmod 0644 " DIR "/k2");
	EXPECT_EQ(1, SA(NS1, "--mark 0x4b000000 --secret " DIR "/k2 up 257 "
			A2, tools));
	EXPECT_NE(NULL, strstr(out, "mode 644")) TH_LOG("%s", out);
	run("chmod 0600 " DIR "/k2 && chown 1000 " DIR "/k2");
	EXPECT_EQ(1, SA(NS1, "--mark 0x4b000000 --secret " DIR "/k2 up 257 "
			A2, tools));
	EXPECT_NE(NULL, strstr(out, "not root")) TH_LOG("%s", out);
	run("echo abc >" DIR "/k3 && chmod 0600 " DIR "/k3");
	EXPECT_EQ(1, SA(NS1, "--mark 0x4b000000 --secret " DIR "/k3 up 257 "
			A2, tools));
	EXPECT_NE(NULL, strstr(out, "32 bytes")) TH_LOG("%s", out);
	/* Nothing was installed by any of them. */
	ASSERT_EQ(0, run(IP_BIN " -n " NS1 " xfrm state list reqid 257"));
	EXPECT_EQ(0, (int)strlen(out)) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(sa, finish, SLOW)
{
	run("%s/kavctl -n -o ID grant list tag kavsa | "
	    "while read -r id; do %s/kavctl grant del \"$id\"; done", tools,
	    tools);
	run("%s/kavctl wire scope del 10.79.0.0/24 fd79::/64", tools);
	EXPECT_EQ(0, run("%s/kavctl wire set mode off", tools)) TH_LOG("%s", out);
	run(IP_BIN " -n " NS1 " link set eth1 netns 1");
	run(IP_BIN " -n " NS2 " link set eth2 netns 1");
	run(IP_BIN " netns del " NS1);
	run(IP_BIN " netns del " NS2);
	run("rm -rf " DIR);
}

TEST_HARNESS_MAIN
