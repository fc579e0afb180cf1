// SPDX-License-Identifier: GPL-2.0
/*
 * kav_wire_forge: Ethernet frames written below the IP stack (AF_PACKET),
 * for the cluster test's kav-wire phase (lanes/cluster/node/wire.sh).
 * kav's hooks are IP hooks: a frame sent this way leaves the node as a
 * host without kav, an SR-IOV VF or a macvlan container would send it,
 * with any source address. What the receiving node does with it is the
 * authenticated mode's claim.
 *
 *   kav_wire_forge udp IFACE DSTMAC SRC DST DPORT COUNT
 *       COUNT UDP datagrams "kav-forged" from SRC (port 40000 up)
 *   kav_wire_forge udp6 IFACE DSTMAC SRC DST DPORT LABEL COUNT
 *       the same over IPv6, flow label LABEL (a flowlabel-mode key)
 *   kav_wire_forge syn IFACE DSTMAC SRC DST DPORT COUNT
 *       COUNT TCP SYNs from SRC (port 40000 up)
 *   kav_wire_forge esp IFACE DSTMAC SRC DST SPI COUNT
 *       COUNT ESP packets of SPI (hex with 0x) with a made-up payload
 *       and integrity check value
 *   kav_wire_forge replay IFACE DST COUNT
 *       the first ESP frame to DST that the node sends or sees on the
 *       segment (IFACE promiscuous meanwhile), captured, sent again COUNT
 *       times
 *
 * Prints "@@forge MODE sent N" (replay: "@@forge replay none" when no
 * ESP frame to DST went out within 10 s). Exit status 0 when the frames
 * were sent, 1 when not, 2 on bad usage. Needs CAP_NET_RAW.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAME_MAX	2048
#define SPORT_BASE	40000

struct link {
	int fd;
	struct sockaddr_ll to;
	uint8_t mac[ETH_ALEN];
};

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	return sum;
}

/* The TCP or UDP checksum over the IPv4 pseudo-header and @len bytes. */
static uint16_t l4_csum(const struct iphdr *ip, const void *l4, size_t len)
{
	uint32_t sum = 0;
	uint8_t pseudo[12];

	memcpy(pseudo, &ip->saddr, 4);
	memcpy(pseudo + 4, &ip->daddr, 4);
	pseudo[8] = 0;
	pseudo[9] = ip->protocol;
	pseudo[10] = (uint8_t)(len >> 8);
	pseudo[11] = (uint8_t)len;
	sum = csum_add(sum, pseudo, sizeof(pseudo));
	sum = csum_add(sum, l4, len);
	return htons(csum_fold(sum));
}

static int link_open(struct link *l, const char *iface, const char *dstmac)
{
	struct ifreq ifr = { 0 };
	unsigned int m[ETH_ALEN];
	int i;

	l->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_IP));
	if (l->fd < 0) {
		perror("kav_wire_forge: socket(AF_PACKET)");
		return -1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (ioctl(l->fd, SIOCGIFHWADDR, &ifr) < 0) {
		perror("kav_wire_forge: SIOCGIFHWADDR");
		return -1;
	}
	memcpy(l->mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	memset(&l->to, 0, sizeof(l->to));
	l->to.sll_family = AF_PACKET;
	l->to.sll_protocol = htons(ETH_P_IP);
	l->to.sll_ifindex = (int)if_nametoindex(iface);
	l->to.sll_halen = ETH_ALEN;
	if (!l->to.sll_ifindex) {
		perror("kav_wire_forge: if_nametoindex");
		return -1;
	}
	if (dstmac) {
		if (sscanf(dstmac, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2],
			   &m[3], &m[4], &m[5]) != ETH_ALEN) {
			fprintf(stderr, "kav_wire_forge: bad MAC %s\n", dstmac);
			return -1;
		}
		for (i = 0; i < ETH_ALEN; i++)
			l->to.sll_addr[i] = (uint8_t)m[i];
	}
	if (bind(l->fd, (struct sockaddr *)&l->to, sizeof(l->to)) < 0) {
		perror("kav_wire_forge: bind");
		return -1;
	}
	return 0;
}

static int link_send(struct link *l, const void *frame, size_t len)
{
	if (sendto(l->fd, frame, len, 0, (struct sockaddr *)&l->to,
		   sizeof(l->to)) != (ssize_t)len) {
		perror("kav_wire_forge: sendto");
		return -1;
	}
	return 0;
}

/* Ethernet and IPv4 headers at @f; the IPv4 header. */
static struct iphdr *frame_ip(uint8_t *f, const struct link *l,
			      const char *src, const char *dst, int proto,
			      size_t l4len)
{
	struct ether_header *eth = (void *)f;
	struct iphdr *ip = (void *)(f + sizeof(*eth));

	memcpy(eth->ether_dhost, l->to.sll_addr, ETH_ALEN);
	memcpy(eth->ether_shost, l->mac, ETH_ALEN);
	eth->ether_type = htons(ETH_P_IP);
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = htons((uint16_t)(sizeof(*ip) + l4len));
	ip->id = htons((uint16_t)rand());
	ip->ttl = 64;
	ip->protocol = (uint8_t)proto;
	if (inet_pton(AF_INET, src, &ip->saddr) != 1 ||
	    inet_pton(AF_INET, dst, &ip->daddr) != 1) {
		fprintf(stderr, "kav_wire_forge: bad IPv4 address\n");
		return NULL;
	}
	ip->check = htons(csum_fold(csum_add(0, ip, sizeof(*ip))));
	return ip;
}

#define L4_OFF	(sizeof(struct ether_header) + sizeof(struct iphdr))

/* What every forged datagram carries; the server reports it if it lands. */
static const char udp_payload[] = "kav-forged\n";
#define UDP_LEN	(sizeof(struct udphdr) + sizeof(udp_payload) - 1)

/* Datagram @i of a run to @dport, its checksum still to compute. */
static void udp_fill(struct udphdr *u, int i, int dport)
{
	u->source = htons((uint16_t)(SPORT_BASE + i));
	u->dest = htons((uint16_t)dport);
	u->len = htons((uint16_t)UDP_LEN);
	u->check = 0;
	memcpy(u + 1, udp_payload, sizeof(udp_payload) - 1);
}

static int forge_udp(struct link *l, const char *src, const char *dst,
		     int dport, int count)
{
	uint8_t f[FRAME_MAX] = { 0 };
	size_t len = UDP_LEN;
	struct udphdr *u = (void *)(f + L4_OFF);
	struct iphdr *ip;
	int i;

	for (i = 0; i < count; i++) {
		ip = frame_ip(f, l, src, dst, IPPROTO_UDP, len);
		if (!ip)
			return -1;
		udp_fill(u, i, dport);
		u->check = l4_csum(ip, u, len);
		if (link_send(l, f, L4_OFF + len))
			return -1;
		usleep(100000);
	}
	return 0;
}

/* The UDP checksum over the IPv6 pseudo-header and @len bytes. */
static uint16_t udp6_csum(const struct ip6_hdr *ip6, const void *l4,
			  size_t len)
{
	uint8_t pseudo[40] = { 0 };
	uint16_t c;

	memcpy(pseudo, &ip6->ip6_src, 16);
	memcpy(pseudo + 16, &ip6->ip6_dst, 16);
	pseudo[34] = (uint8_t)(len >> 8);
	pseudo[35] = (uint8_t)len;
	pseudo[39] = IPPROTO_UDP;
	c = csum_fold(csum_add(csum_add(0, pseudo, sizeof(pseudo)), l4, len));
	return htons(c ? c : 0xffff);	/* 0 means none, not allowed in IPv6 */
}

static int forge_udp6(struct link *l, const char *src, const char *dst,
		      int dport, uint32_t label, int count)
{
	uint8_t f[FRAME_MAX] = { 0 };
	size_t len = UDP_LEN;
	struct ether_header *eth = (void *)f;
	struct ip6_hdr *ip6 = (void *)(f + sizeof(*eth));
	struct udphdr *u = (void *)(ip6 + 1);
	size_t off = sizeof(*eth) + sizeof(*ip6);
	int i;

	memcpy(eth->ether_dhost, l->to.sll_addr, ETH_ALEN);
	memcpy(eth->ether_shost, l->mac, ETH_ALEN);
	eth->ether_type = htons(ETH_P_IPV6);
	l->to.sll_protocol = htons(ETH_P_IPV6);
	ip6->ip6_flow = htonl(6u << 28 | (label & 0xfffff));
	ip6->ip6_plen = htons((uint16_t)len);
	ip6->ip6_nxt = IPPROTO_UDP;
	ip6->ip6_hlim = 64;
	if (inet_pton(AF_INET6, src, &ip6->ip6_src) != 1 ||
	    inet_pton(AF_INET6, dst, &ip6->ip6_dst) != 1) {
		fprintf(stderr, "kav_wire_forge: bad IPv6 address\n");
		return -1;
	}
	for (i = 0; i < count; i++) {
		udp_fill(u, i, dport);
		u->check = udp6_csum(ip6, u, len);
		if (link_send(l, f, off + len))
			return -1;
		usleep(100000);
	}
	return 0;
}

static int forge_syn(struct link *l, const char *src, const char *dst,
		     int dport, int count)
{
	uint8_t f[FRAME_MAX] = { 0 };
	struct tcphdr *t = (void *)(f + L4_OFF);
	struct iphdr *ip;
	int i;

	for (i = 0; i < count; i++) {
		ip = frame_ip(f, l, src, dst, IPPROTO_TCP, sizeof(*t));
		if (!ip)
			return -1;
		memset(t, 0, sizeof(*t));
		t->source = htons((uint16_t)(SPORT_BASE + i));
		t->dest = htons((uint16_t)dport);
		t->seq = htonl((uint32_t)rand());
		t->doff = sizeof(*t) / 4;
		t->syn = 1;
		t->window = htons(64240);
		t->check = l4_csum(ip, t, sizeof(*t));
		if (link_send(l, f, L4_OFF + sizeof(*t)))
			return -1;
		usleep(100000);
	}
	return 0;
}

/* ESP: SPI, sequence number, 64 bytes as if encrypted, a 16-byte ICV. */
static int forge_esp(struct link *l, const char *src, const char *dst,
		     uint32_t spi, int count)
{
	uint8_t f[FRAME_MAX] = { 0 };
	uint8_t *esp = f + L4_OFF;
	size_t len = 8 + 8 + 64 + 16, k;
	uint32_t v;
	int i;

	for (i = 0; i < count; i++) {
		if (!frame_ip(f, l, src, dst, IPPROTO_ESP, len))
			return -1;
		v = htonl(spi);
		memcpy(esp, &v, 4);
		v = htonl(1000000u + (uint32_t)i);
		memcpy(esp + 4, &v, 4);
		for (k = 8; k < len; k++)
			esp[k] = (uint8_t)rand();
		if (link_send(l, f, L4_OFF + len))
			return -1;
		usleep(100000);
	}
	return 0;
}

/*
 * The first ESP frame to @dst (10 s at most) that this node sends or, as
 * a host on the segment, overhears, @count times. Outgoing frames reach
 * only ETH_P_ALL taps (dev_queue_xmit_nit()), so they are captured on a
 * socket of their own; others' frames reach it only while the device is
 * promiscuous (the membership ends with the socket).
 */
static int replay(struct link *l, const char *dst, int count)
{
	uint8_t f[FRAME_MAX];
	struct sockaddr_ll from, at = { .sll_family = AF_PACKET,
					.sll_protocol = htons(ETH_P_ALL),
					.sll_ifindex = l->to.sll_ifindex };
	struct packet_mreq promisc = { .mr_ifindex = l->to.sll_ifindex,
				       .mr_type = PACKET_MR_PROMISC };
	socklen_t fl;
	struct ether_header *eth = (void *)f;
	struct iphdr *ip = (void *)(f + sizeof(struct ether_header));
	time_t end = time(NULL) + 10;
	struct pollfd p;
	uint32_t want;
	ssize_t n;
	int i, cap;

	if (inet_pton(AF_INET, dst, &want) != 1) {
		fprintf(stderr, "kav_wire_forge: bad IPv4 address %s\n", dst);
		return -1;
	}
	cap = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (cap < 0 || bind(cap, (struct sockaddr *)&at, sizeof(at)) < 0 ||
	    setsockopt(cap, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &promisc,
		       sizeof(promisc)) < 0) {
		perror("kav_wire_forge: capture socket");
		if (cap >= 0)
			close(cap);
		return -1;
	}
	p = (struct pollfd){ .fd = cap, .events = POLLIN };
	while (time(NULL) < end) {
		if (poll(&p, 1, 1000) != 1)
			continue;
		fl = sizeof(from);
		n = recvfrom(cap, f, sizeof(f), 0, (struct sockaddr *)&from,
			     &fl);
		if (n < (ssize_t)L4_OFF + 8 ||
		    (from.sll_pkttype != PACKET_OUTGOING &&
		     from.sll_pkttype != PACKET_OTHERHOST) ||
		    eth->ether_type != htons(ETH_P_IP) ||
		    ip->protocol != IPPROTO_ESP || ip->daddr != want)
			continue;
		close(cap);
		for (i = 0; i < count; i++) {
			if (link_send(l, f, (size_t)n))
				return -1;
			usleep(100000);
		}
		return 0;
	}
	close(cap);
	printf("@@forge replay none\n");
	return 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: kav_wire_forge udp|syn IFACE DSTMAC SRC DST DPORT COUNT\n"
		"       kav_wire_forge udp6 IFACE DSTMAC SRC DST DPORT LABEL COUNT\n"
		"       kav_wire_forge esp IFACE DSTMAC SRC DST SPI COUNT\n"
		"       kav_wire_forge replay IFACE DST COUNT\n");
}

int main(int argc, char **argv)
{
	struct link l;
	int count, ret;

	srand((unsigned int)(time(NULL) ^ getpid()));
	if (argc == 5 && !strcmp(argv[1], "replay")) {
		count = atoi(argv[4]);
		if (link_open(&l, argv[2], NULL))
			return 1;
		ret = replay(&l, argv[3], count);
	} else if (argc == 9 && !strcmp(argv[1], "udp6")) {
		count = atoi(argv[8]);
		if (link_open(&l, argv[2], argv[3]))
			return 1;
		ret = forge_udp6(&l, argv[4], argv[5], atoi(argv[6]),
				 (uint32_t)strtoul(argv[7], NULL, 0), count);
	} else if (argc == 8) {
		count = atoi(argv[7]);
		if (link_open(&l, argv[2], argv[3]))
			return 1;
		if (!strcmp(argv[1], "udp"))
			ret = forge_udp(&l, argv[4], argv[5], atoi(argv[6]), count);
		else if (!strcmp(argv[1], "syn"))
			ret = forge_syn(&l, argv[4], argv[5], atoi(argv[6]), count);
		else if (!strcmp(argv[1], "esp"))
			ret = forge_esp(&l, argv[4], argv[5],
					(uint32_t)strtoul(argv[6], NULL, 0), count);
		else
			ret = -2;
	} else {
		ret = -2;
	}
	if (ret == -2) {
		usage();
		return 2;
	}
	if (!ret)
		printf("@@forge %s sent %d\n", argv[1], count);
	return ret ? 1 : 0;
}
