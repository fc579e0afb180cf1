// SPDX-License-Identifier: GPL-2.0
/*
 * kav_wire_bench: what kav-wire costs on the wire (make bench-wire;
 * Documentation/benchmarks.rst, "kav-wire"). In the guest, two network
 * namespaces each hold one of the fabric NICs (eth1, eth2 on one QEMU
 * hub: KAV_VM_FABRIC_NICS), fd79::1 and fd79::2, and one wire key
 * granted to each namespace. Four modes, in the same run:
 *
 *   off        kav-wire mode off (its hooks registered, returning at once)
 *   flowlabel  the closed-fabric carrier (the key in the flow label)
 *   esp        the authenticated carrier: ESP transport SAs of the key
 *              (kav-wire-sa up), selected by kav's mark
 *   floor      the crypto floor: mode off, the same SAs selected by a
 *              plain address policy, no kav: what ESP alone costs
 *
 * Three workloads, each D seconds: 64-byte UDP datagrams a second (what
 * the receiver got), TCP request/response (1 byte each way) a second,
 * TCP bulk (64 KiB writes) MB a second. Each repetition runs every mode
 * once, the order rotating between repetitions, so that the modes of a
 * pair ran side by side; the table gives medians and the ratios
 * flowlabel/off, esp/floor and esp/off. Then, with the module's
 * wire_timing on, one more UDP run in flowlabel and in esp mode gives the
 * hooks' own ns per packet (wire_hook_ns, less the timer's own cost).
 *
 *   kav_wire_bench [--seconds D] [--reps R]
 *
 * Needs root, /usr/bin/ip, and kavctl, kav-wire-sa and openssl in
 * KAV_WIRE_SA_TOOLS (default /tests, as lanes/vm/vm.sh ships them).
 * Prints the table between @@KAV-WIRE-BENCH-BEGIN and -END. Under TCG
 * only the ratios and the in-hook cost mean anything. Never judged: exit
 * 0 once the table is printed, 1 when a setup step failed, 2 on usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "kav_wire_tools.h"

#define IP	"/usr/bin/ip"
#define NS1	"kwb1"
#define NS2	"kwb2"
#define A1	"fd79::1"
#define A2	"fd79::2"
#define KEY	257
#define PORT	42101
#define SECRET	"/tmp/kav-wire-bench.key"
#define MAX_REPS 31

enum { M_OFF, M_FLOWLABEL, M_ESP, M_FLOOR, M_NR };
enum { W_UDP, W_RR, W_BULK, W_NR };

static const char *const mode_name[M_NR] = { "off", "flowlabel", "esp", "floor" };
static const char *const work_name[W_NR] = {
	"UDP 64 B (datagrams/s)", "TCP request/response (/s)", "TCP bulk (MB/s)",
};

static char tools[256];
static char out[16384];
static int seconds = 2, reps = 5;

#define run(...)	kav_sh(out, sizeof(out), __VA_ARGS__)

#define MUST(...) do {							\
		if (run(__VA_ARGS__)) {					\
			fprintf(stderr, "kav_wire_bench: failed: %s\n", out); \
			exit(1);					\
		}							\
	} while (0)

static int host_ns = -1;

static int enter(const char *ns)
{
	return kav_netns_enter(host_ns, ns);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct sockaddr_in6 addr(const char *a)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6,
				  .sin6_port = htons(PORT) };

	inet_pton(AF_INET6, a, &s.sin6_addr);
	return s;
}

/*
 * The receiving side, in NS2, in a child: for UDP it counts datagrams and
 * bytes for D seconds from the first one and writes the count to @fd;
 * for TCP it echoes (rr) or drains (bulk) one connection, counting.
 */
static void receiver(int w, int fd)
{
	struct sockaddr_in6 a = addr(A2);
	int one = 1, s, c;
	double count = 0, end = 0;
	char buf[65536];
	ssize_t n;

	if (enter(NS2))
		_exit(1);
	s = socket(AF_INET6, w == W_UDP ? SOCK_DGRAM : SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)))
		_exit(1);
	if (w != W_UDP && listen(s, 1))
		_exit(1);
	if (write(fd, "r", 1) != 1)	/* ready */
		_exit(1);
	if (w == W_UDP) {
		struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };

		setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		for (;;) {
			n = recv(s, buf, sizeof(buf), 0);
			if (n > 0) {
				if (!end)
					end = now() + seconds;
				if (now() < end)
					count++;
			} else if (end ? now() >= end :
				   n < 0 && errno != EAGAIN) {
				break;	/* counted D seconds, or an error */
			}
		}
	} else {
		c = accept(s, NULL, NULL);
		if (c < 0)
			_exit(1);
		while ((n = read(c, buf, w == W_RR ? 1 : sizeof(buf))) > 0) {
			count += w == W_RR ? 1 : (double)n;
			if (w == W_RR && write(c, buf, 1) != 1)
				break;
		}
		close(c);
	}
	if (write(fd, &count, sizeof(count)) != sizeof(count))
		_exit(1);
	_exit(0);
}

/* One workload, one mode: what the receiver counted a second (bulk: MB). */
static double measure(int w)
{
	struct sockaddr_in6 a = addr(A2);
	static char buf[65536];
	double count = -1, t0;
	int p[2], s, one = 1;
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		receiver(w, p[1]);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		goto out;
	if (enter(NS1))
		goto out;
	s = socket(AF_INET6, w == W_UDP ? SOCK_DGRAM : SOCK_STREAM, 0);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "kav_wire_bench: connect: %s\n", strerror(errno));
		if (s >= 0)
			close(s);
		goto out;
	}
	if (w == W_RR)
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	t0 = now();
	/* The sender runs a little longer than the receiver counts. */
	while (now() < t0 + seconds + (w == W_UDP ? 0.5 : 0)) {
		if (w == W_UDP) {
			if (send(s, buf, 64, 0) < 0 && errno != ENOBUFS &&
			    errno != EAGAIN)
				break;
		} else if (w == W_RR) {
			if (write(s, buf, 1) != 1 || read(s, buf, 1) != 1)
				break;
		} else if (write(s, buf, sizeof(buf)) < 0) {
			break;
		}
	}
	close(s);
	if (read(p[0], &count, sizeof(count)) != sizeof(count))
		count = -1;
	else
		count /= seconds * (w == W_BULK ? 1e6 : 1);
out:
	close(p[0]);
	waitpid(pid, NULL, 0);
	return count;
}

static void home(void)
{
	if (kav_netns_enter(host_ns, NULL))
		exit(1);
}

static void floor_policy(bool on)
{
	const char *verb = on ? "add" : "delete";

	run(IP " -n " NS1 " xfrm policy %s src " A1 "/128 dst " A2 "/128 dir out%s",
	    verb, on ? " tmpl proto esp reqid 257 mode transport" : "");
	run(IP " -n " NS2 " xfrm policy %s src " A2 "/128 dst " A1 "/128 dir out%s",
	    verb, on ? " tmpl proto esp reqid 257 mode transport" : "");
}

static void set_mode(int m)
{
	floor_policy(false);
	MUST("%s/kavctl wire set mode %s", tools,
	     m == M_FLOWLABEL ? "flowlabel" : m == M_ESP ? "esp" : "off");
	if (m == M_FLOOR)
		floor_policy(true);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* wire_hook_ns: per hook, packets and ns; and the timer's cost. */
struct hook_ns {
	double clock, pkts[4], ns[4];
};

static int read_hook_ns(struct hook_ns *h)
{
	FILE *f = fopen("/sys/module/kav/parameters/wire_hook_ns", "r");
	char name[32];
	double p, n;
	int i = 0;

	memset(h, 0, sizeof(*h));
	if (!f)
		return -1;
	if (fscanf(f, "clock %lf\n", &h->clock) != 1) {
		fclose(f);
		return -1;
	}
	while (i < 4 && fscanf(f, "%31s %lf packets %lf ns\n", name, &p, &n) == 3) {
		h->pkts[i] = p;
		h->ns[i] = n;
		i++;
	}
	fclose(f);
	return 0;
}

static void hook_cost(int m, const char *label)
{
	static const char *const hook[4] = { "out", "in", "forward", "guard" };
	struct hook_ns a, b;
	int i;

	set_mode(m);
	if (run("echo 1 > /sys/module/kav/parameters/wire_timing") ||
	    read_hook_ns(&a)) {
		printf("| %s | (wire_timing unavailable) | | |\n", label);
		return;
	}
	measure(W_UDP);
	home();
	read_hook_ns(&b);
	run("echo 0 > /sys/module/kav/parameters/wire_timing");
	for (i = 0; i < 4; i++) {
		double dp = b.pkts[i] - a.pkts[i], dn = b.ns[i] - a.ns[i];

		if (dp <= 0)
			continue;
		printf("| %s | %s | %.0f | %.0f |\n", label, hook[i], dp,
		       dn / dp - b.clock);
	}
}

static void setup(void)
{
	int i;

	run(IP " netns del " NS1);
	run(IP " netns del " NS2);
	if (access("/sys/class/net/eth1", F_OK) ||
	    access("/sys/class/net/eth2", F_OK)) {
		fprintf(stderr, "kav_wire_bench: no fabric NICs eth1, eth2 (KAV_VM_FABRIC_NICS)\n");
		exit(1);
	}
	for (i = 0; i < 2; i++) {
		const char *ns = i ? NS2 : NS1, *dev = i ? "eth2" : "eth1";

		MUST(IP " netns add %s", ns);
		MUST(IP " link set %s netns %s", dev, ns);
		MUST(IP " -n %s link set lo up", ns);
		MUST(IP " -n %s addr add %s/64 dev %s nodad", ns, i ? A2 : A1, dev);
		MUST(IP " -n %s link set %s up", ns, dev);
	}
	MUST("%s/kavctl wire set mode off", tools);
	MUST("%s/kavctl wire scope add fd79::/64", tools);
	MUST("%s/kavctl grant add vni %d netns " NS1 " tag kavbench wire", tools, KEY);
	MUST("%s/kavctl grant add vni %d netns " NS2 " tag kavbench wire", tools, KEY);
	MUST("rm -f " SECRET "; %s/kav-wire-sa genkey " SECRET, tools);
	MUST(IP " netns exec " NS1 " %s/kav-wire-sa --mark 0x4b000000 --secret " SECRET
	     " up %d " A2, tools, KEY);
	MUST(IP " netns exec " NS2 " %s/kav-wire-sa --mark 0x4b000000 --secret " SECRET
	     " up %d " A1, tools, KEY);
	/* The neighbours, once, outside what is timed. */
	run(IP " netns exec " NS1 " ping -6 -c 1 -W 5 " A2);
}

static void teardown(void)
{
	int ids[64], n = 0, i, off;
	char *p;

	floor_policy(false);
	run("%s/kavctl wire set mode off", tools);
	run("%s/kavctl wire scope del fd79::/64", tools);
	if (!run("%s/kavctl -n -o ID grant list tag kavbench", tools))
		for (p = out; n < 64 && sscanf(p, "%d%n", &ids[n], &off) == 1;
		     p += off)
			n++;
	for (i = 0; i < n; i++)
		run("%s/kavctl grant del %d", tools, ids[i]);
	run(IP " netns del " NS1);
	run(IP " netns del " NS2);
}

int main(int argc, char **argv)
{
	static double v[W_NR][M_NR][MAX_REPS];
	double med[W_NR][M_NR];
	int i, r, w, m;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else
			break;
	}
	if (i < argc || seconds < 1 || reps < 1 || reps > MAX_REPS) {
		fprintf(stderr, "usage: kav_wire_bench [--seconds D] [--reps R (1-%d)]\n",
			MAX_REPS);
		return 2;
	}
	kav_wire_tools(tools, sizeof(tools));
	host_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	setup();

	for (r = 0; r < reps; r++)
		for (w = 0; w < W_NR; w++)
			for (i = 0; i < M_NR; i++) {
				m = (i + r) % M_NR;	/* the order rotates */
				set_mode(m);
				v[w][m][r] = measure(w);
				home();
			}

	printf("@@KAV-WIRE-BENCH-BEGIN\n");
	printf("## kav-wire (%d repetitions of %d s, medians; fabric NICs on one QEMU hub)\n\n",
	       reps, seconds);
	printf("| workload | off | flowlabel | esp | floor | flowlabel/off | esp/floor | esp/off |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (w = 0; w < W_NR; w++) {
		for (m = 0; m < M_NR; m++)
			med[w][m] = median(v[w][m], reps);
		printf("| %s | %.1f | %.1f | %.1f | %.1f | %.3f | %.3f | %.3f |\n",
		       work_name[w], med[w][M_OFF], med[w][M_FLOWLABEL],
		       med[w][M_ESP], med[w][M_FLOOR],
		       med[w][M_OFF] > 0 ? med[w][M_FLOWLABEL] / med[w][M_OFF] : 0,
		       med[w][M_FLOOR] > 0 ? med[w][M_ESP] / med[w][M_FLOOR] : 0,
		       med[w][M_OFF] > 0 ? med[w][M_ESP] / med[w][M_OFF] : 0);
	}
	printf("\nThe hooks' own cost (wire_timing; one UDP run each; ns a packet, less the timer's own):\n\n");
	printf("| mode | hook | packets | ns/packet |\n|---|---|---|---|\n");
	hook_cost(M_FLOWLABEL, "flowlabel");
	hook_cost(M_ESP, "esp");
	printf("\nUnder TCG only the ratios and the in-hook cost mean anything.\n");
	for (m = 0; m < M_NR; m++)
		for (w = 0; w < W_NR; w++) {
			printf("%s %s:", mode_name[m], work_name[w]);
			for (r = 0; r < reps; r++)
				printf(" %.1f", v[w][m][r]);
			printf("\n");
		}
	printf("@@KAV-WIRE-BENCH-END\n");
	teardown();
	return 0;
}
