// SPDX-License-Identifier: GPL-2.0
/*
 * kav-wire and the module's lifetime: kav.ko unloads cleanly with the
 * wire on and flows in scope (a TCP connection established under a key,
 * datagrams sent from another thread up to it, a keyless sender being
 * refused), nothing of it is left behind (the traffic the wire refused
 * passes once it is gone), and a reloaded module starts with mode off
 * and no scope (Documentation/wire.rst, "Turning it on") and can turn
 * the wire on again. kav.ko is loaded again from $KAV_MODULE (/kav.ko).
 *
 * Runs late (tests/selftests/ORDER): it unloads the module the others use.
 */
#include <net/if.h>
#include <pthread.h>
#include <sys/fsuid.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_netns_util.h"
#include "kav_wire_util.h"

#define UID_A		4201	/* holds KEY_A */
#define UID_C		4203	/* holds no wire key */
#define KEY_A		0x301
#define PORT		41201
#define ADDR		"127.0.0.2"
#define WAIT_MS		5000
#define NS		"kavu1"		/* the far end of the veth pair */
#define VETH_HOST	"10.98.0.1"
#define VETH_FAR	"10.98.0.2"

static int sock_as(uid_t uid, int type)
{
	int fd;

	setfsuid(uid);
	fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	setfsuid(0);
	return fd;
}

static struct sockaddr_in addr_of(const char *addr, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };

	inet_pton(AF_INET, addr, &sin.sin_addr);
	return sin;
}

static struct sockaddr_in addr_port(uint16_t port)
{
	return addr_of(ADDR, port);
}

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* 0 if a datagram from @fd reached @lfd, else the errno (or -1). */
static int udp_through(int fd, int lfd)
{
	struct sockaddr_in sin = addr_port(PORT);
	char buf[8];

	if (sendto(fd, "ping", 4, 0, (struct sockaddr *)&sin, sizeof(sin)) != 4)
		return errno;
	if (!readable(lfd, WAIT_MS))
		return -1;
	return recv(lfd, buf, sizeof(buf), 0) == 4 ? 0 : -1;
}

/* 0 if @cfd's bytes reach @sfd over their connection. */
static int tcp_through(int cfd, int sfd)
{
	char buf[4];

	if (send(cfd, "ping", 4, MSG_NOSIGNAL) != 4)
		return errno;
	if (!readable(sfd, WAIT_MS))
		return -1;
	return recv(sfd, buf, 4, 0) == 4 ? 0 : -1;
}

struct sender {
	int fd;
	struct sockaddr_in to;
	volatile bool stop;
	long sent, refused;
};

/* Datagrams in scope until told to stop: the flow the unload meets. */
static void *sender_thread(void *arg)
{
	struct sender *s = arg;

	while (!s->stop) {
		if (sendto(s->fd, "ping", 4, 0, (struct sockaddr *)&s->to,
			   sizeof(s->to)) == 4)
			s->sent++;
		else
			s->refused++;
	}
	return NULL;
}

/* Wire on, scope ADDR/32, KEY_A granted to UID_A: the grant's id. */
static int wire_on(struct kav_nl *nl, uint32_t *id)
{
	return kav_wire_link_up("lo") ?: kav_wire_reset(nl) ?:
	       kav_wire_grant_uid(nl, KEY_A, UID_A, id) ?:
	       kav_wire_net_add(nl, kav_wire_net_of(ADDR, 32, 0, 0, 0)) ?:
	       kav_wire_set_mode(nl, KAV_WIRE_FLOWLABEL);
}

/* Unload kav.ko: a file being released may hold it for a moment. */
static int unload(void)
{
	int i, ret = -EBUSY;

	for (i = 0; i < 200; i++) {
		ret = kav_module_unload();
		if (ret != -EWOULDBLOCK && ret != -EAGAIN)
			return ret;
		usleep(10000);
	}
	return ret;
}

static int reload(void)
{
	int ret = kav_module_load();

	if (ret && ret != -EEXIST)
		return ret;
	return kav_wait_for_device();
}

/*
 * Unloading with the wire on, a connection established under a key and
 * datagrams in flight: clean, and afterwards nothing is checked.
 */
TEST(unload_with_flows_in_scope)
{
	struct sockaddr_in sin = addr_port(PORT);
	struct sender s = { .fd = -1, .to = addr_port(PORT + 1) };
	struct kav_wire_state st;
	int lfd, ufd, u2, cfd, sfd, kfd;
	struct kav_nl nl;
	pthread_t t;
	uint32_t id;

	ASSERT_EQ(0, kav_nl_open(&nl));
	ASSERT_EQ(0, wire_on(&nl, &id));
	lfd = sock_as(UID_A, SOCK_STREAM);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_EQ(0, listen(lfd, 4));
	cfd = sock_as(UID_A, SOCK_STREAM);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_TRUE(readable(lfd, WAIT_MS));
	/* As the tenant: sock_graft() gives the socket the accepter's fsuid. */
	setfsuid(UID_A);
	sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	setfsuid(0);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(0, tcp_through(cfd, sfd));

	/* UDP: A's listener; a keyless sender refused, A's passing. */
	ufd = sock_as(UID_A, SOCK_DGRAM);
	ASSERT_LE(0, ufd);
	ASSERT_EQ(0, bind(ufd, (struct sockaddr *)&sin, sizeof(sin)));
	kfd = sock_as(UID_C, SOCK_DGRAM);
	ASSERT_LE(0, kfd);
	EXPECT_EQ(ECONNREFUSED, udp_through(kfd, ufd));
	u2 = sock_as(UID_A, SOCK_DGRAM);
	ASSERT_LE(0, u2);
	EXPECT_EQ(0, udp_through(u2, ufd));
	s.fd = sock_as(UID_A, SOCK_DGRAM);
	ASSERT_LE(0, s.fd);
	ASSERT_EQ(0, pthread_create(&t, NULL, sender_thread, &s));
	while (!s.sent && !s.refused)
		usleep(1000);
	ASSERT_EQ(0, kav_wire_get(&nl, &st));
	EXPECT_EQ(KAV_WIRE_FLOWLABEL, st.mode);
	EXPECT_LT(0, st.passed);
	kav_nl_close(&nl);

	/*
	 * The grant is the module's; the wire goes with it. The sender
	 * stops first: a sender running through the unload made the guest
	 * take an unhandled int3 at a netfilter static-branch site in about
	 * 1 run in 10 on 6.12-rt under TCG (README, "Status").
	 */
	s.stop = true;
	pthread_join(t, NULL);
	EXPECT_EQ(0, unload());
	TH_LOG("%ld datagrams sent, %ld refused before the unload", s.sent,
	       s.refused);
	EXPECT_EQ(0, udp_through(kfd, ufd));
	EXPECT_EQ(0, tcp_through(cfd, sfd));
	EXPECT_EQ(0, tcp_through(sfd, cfd));
	ASSERT_EQ(0, reload());
	close(s.fd);
	close(u2);
	close(kfd);
	close(ufd);
	close(cfd);
	close(sfd);
	close(lfd);
}

/* A reloaded module: mode off, no scope, default mark; on again works. */
TEST(reload_starts_off_and_turns_on)
{
	struct kav_wire_state st;
	int lfd, kfd, afd, i;
	struct kav_nl nl;
	uint32_t id;

	/* From a fresh module, whatever the test before left. */
	ASSERT_EQ(0, unload());
	ASSERT_EQ(0, reload());
	for (i = 0; i < 2; i++) {
		struct sockaddr_in sin = addr_port(PORT + 2);

		ASSERT_EQ(0, kav_nl_open(&nl));
		ASSERT_EQ(0, kav_wire_get(&nl, &st));
		EXPECT_EQ(KAV_WIRE_OFF, st.mode);
		EXPECT_EQ(0, st.nr_nets);
		EXPECT_FALSE(st.has_ports);
		EXPECT_EQ(KAV_WIRE_MARK_DEFAULT, st.mark);
		EXPECT_EQ(0, st.passed);

		ASSERT_EQ(0, wire_on(&nl, &id));
		lfd = sock_as(UID_A, SOCK_DGRAM);
		kfd = sock_as(UID_C, SOCK_DGRAM);
		afd = sock_as(UID_A, SOCK_DGRAM);
		ASSERT_LE(0, lfd);
		ASSERT_LE(0, kfd);
		ASSERT_LE(0, afd);
		ASSERT_EQ(0, bind(lfd, (struct sockaddr *)&sin, sizeof(sin)));
		EXPECT_EQ(ECONNREFUSED,
			  sendto(kfd, "ping", 4, 0, (struct sockaddr *)&sin,
				 sizeof(sin)) < 0 ? errno : 0);
		EXPECT_EQ(4, sendto(afd, "ping", 4, 0, (struct sockaddr *)&sin,
				    sizeof(sin)));
		EXPECT_TRUE(readable(lfd, WAIT_MS));
		close(lfd);
		close(kfd);
		close(afd);
		kav_nl_close(&nl);
		/* Unloaded with the wire on, every time. */
		ASSERT_EQ(0, unload());
		ASSERT_EQ(0, reload());
	}
}

static int far_udp_fn(void *arg)
{
	int *fd = arg;

	*fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return *fd < 0 ? -1 : 0;
}

/* The host's end of a veth pair whose far end is in NS, both up. */
static int veth_up(void)
{
	if (access(IP_BIN, X_OK))
		return -ENOENT;
	if (add_netns(NS) ||
	    ip("link add kvu0 type veth peer name kvu1 netns " NS) ||
	    ip("addr add " VETH_HOST "/24 dev kvu0") ||
	    ip("-n " NS " addr add " VETH_FAR "/24 dev kvu1") ||
	    ip("-n " NS " link set kvu1 up") || ip("link set kvu0 up"))
		return -1;
	return 0;
}

/*
 * Unloading after datagrams crossed a veth into the host: the exit
 * removes the guards of veths that are up and have carried traffic, and
 * the veth passes traffic after it.
 */
TEST(unload_with_veth_traffic)
{
	struct sockaddr_in sin = addr_of(VETH_HOST, PORT + 2);
	struct sender s = { .fd = -1, .to = sin };
	struct kav_nl nl;
	int ufd, i, got = 0;
	pthread_t t;
	uint32_t id;
	char buf[8];

	ASSERT_EQ(0, veth_up()) TH_LOG("ip or veth missing");
	ASSERT_EQ(0, kav_nl_open(&nl));
	ASSERT_EQ(0, wire_on(&nl, &id));
	kav_nl_close(&nl);
	ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, ufd);
	ASSERT_EQ(0, bind(ufd, (struct sockaddr *)&sin, sizeof(sin)));
	ASSERT_EQ(0, in_netns(NS, far_udp_fn, &s.fd));
	ASSERT_EQ(0, pthread_create(&t, NULL, sender_thread, &s));
	/* Through the guard before the unload (out of the wire's scope). */
	EXPECT_TRUE(readable(ufd, WAIT_MS));
	/* Stopped before the unload, as in unload_with_flows_in_scope. */
	s.stop = true;
	pthread_join(t, NULL);

	EXPECT_EQ(0, unload());
	/* And after it, with no guard: drain, then one more arrives. */
	for (i = 0; i < 100000; i++)
		if (recv(ufd, buf, sizeof(buf), MSG_DONTWAIT) < 0)
			break;
	EXPECT_EQ(4, sendto(s.fd, "ping", 4, 0, (struct sockaddr *)&s.to,
			    sizeof(s.to)));
	got = readable(ufd, WAIT_MS) && recv(ufd, buf, sizeof(buf), 0) == 4;
	TH_LOG("%ld datagrams sent, %ld refused before the unload", s.sent,
	       s.refused);
	EXPECT_TRUE(got);
	EXPECT_LT(0, s.sent);
	ASSERT_EQ(0, reload());
	close(s.fd);
	close(ufd);
	ip("link del kvu0");
	del_netns(NS);
}

TEST_HARNESS_MAIN
