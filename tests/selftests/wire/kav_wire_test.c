// SPDX-License-Identifier: GPL-2.0
/*
 * kav-wire (Documentation/wire.rst): in the fabric scope a TCP segment or
 * UDP datagram is delivered only if the sender's wire key equals the
 * receiver's and neither is 0.
 *
 * The uAPI first (each EINVAL, ERANGE, EEXIST, ENOENT and ENOSPC that
 * Documentation/uapi.rst lists, and EPERM for non-admins), then traffic:
 * on this node over the loopback device (IPv4 and IPv6, TCP, UDP and raw
 * sockets, exemptions, conflicts, counters and the WIRE_DROP event),
 * between network namespaces over a veth pair (flowlabel, the veth
 * guard, fragments, esp with SAs of `ip xfrm`), over the guest's fabric
 * NICs when it has them, revocation of an established flow, and races.
 * Every refusal is paired with a pass of the same traffic, so that a
 * kernel without kav-wire fails both ways.
 *
 * A socket's wire key is its owner's at socket() (sk_uid is the fsuid
 * then, Documentation/wire.rst "Socket keys"): listeners are made here
 * under setfsuid(), the connecting and sending tenants are children that
 * setuid() to their uid. The VM lane provides /usr/bin/ip (called by its
 * path: busybox has an applet of the name), veth, xfrm and esp modules.
 * Each test resets the wire, deletes its grants and namespaces.
 */
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <linux/capability.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include "kselftest_harness.h"
#include "kav_attack_util.h"
#include "kav_netns_util.h"
#include "kav_wire_util.h"

#define UID_A		4101	/* holds KEY_A */
#define UID_B		4102	/* holds KEY_B */
#define UID_C		4103	/* holds no wire key */
#define KEY_A		0x101
#define KEY_B		0x202
#define PORT		41001
#define PORT_EXEMPT	41500
#define NS1		"kavw1"
#define NS2		"kavw2"
#define CG_OUTER	"kavwire"
#define CG_INNER	"kavwire/inner"
#define WAIT_MS		5000	/* a datagram that passes arrives by then */
#define NONE_MS		300	/* one that was refused would have by then */
/* The harness's 30 s is short for forks, namespaces and SAs under TCG. */
#define SLOW		120

FIXTURE(wire) {
	struct kav_nl nl;
	uint32_t grants[16];
	int nr_grants;
	bool netns;
};


FIXTURE_SETUP(wire)
{
	/* The guest's init leaves lo down; 127.0.0.0/8 and ::1 need it. */
	ASSERT_EQ(0, kav_wire_link_up("lo"));
	ASSERT_EQ(0, kav_nl_open(&self->nl));
	ASSERT_EQ(0, kav_wire_reset(&self->nl));
}


FIXTURE_TEARDOWN(wire)
{
	while (self->nr_grants > 0)
		kav_nl_grant_del(&self->nl, self->grants[--self->nr_grants]);
	EXPECT_EQ(0, kav_wire_reset(&self->nl));
	if (self->netns) {
		del_netns(NS1);
		del_netns(NS2);
	}
	kav_cgroup_remove(CG_INNER);
	kav_cgroup_remove(CG_OUTER);
	kav_nl_close(&self->nl);
}

/* ------------------------------------------------------------- helpers */

/* A grant the teardown deletes. */
static uint32_t keep(FIXTURE_DATA(wire) *self, uint32_t id)
{
	if (id && self->nr_grants < 16)
		self->grants[self->nr_grants++] = id;
	return id;
}

static uint32_t grant_uid(struct __test_metadata *_metadata,
			  FIXTURE_DATA(wire) *self, uint32_t vni, uint32_t uid)
{
	uint32_t id = 0;

	EXPECT_EQ(0, kav_wire_grant_uid(&self->nl, vni, uid, &id));
	return keep(self, id);
}

static uint32_t grant_netns(struct __test_metadata *_metadata,
			    FIXTURE_DATA(wire) *self, uint32_t vni,
			    const char *ns)
{
	char path[64];
	uint32_t id = 0;
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	EXPECT_LE(0, fd);
	EXPECT_EQ(0, kav_wire_grant_netns(&self->nl, vni, fd, &id));
	close(fd);
	return keep(self, id);
}

static void ungrant(FIXTURE_DATA(wire) *self, uint32_t id)
{
	int i;

	kav_nl_grant_del(&self->nl, id);
	for (i = 0; i < self->nr_grants; i++)
		if (self->grants[i] == id)
			self->grants[i] = self->grants[--self->nr_grants];
}

/* Scope @addr/@len, and turn the mode on. */
static int scope_on(struct kav_nl *nl, uint32_t mode, const char *addr,
		    uint8_t len)
{
	return kav_wire_net_add(nl, kav_wire_net_of(addr, len, 0, 0, 0)) ?:
	       kav_wire_set_mode(nl, mode);
}

static uint64_t drops(struct kav_nl *nl, int reason)
{
	struct kav_wire_state st;

	return kav_wire_get(nl, &st) ? ~0ULL : st.drops[reason];
}

static uint64_t grant_drops(struct kav_nl *nl, uint32_t id)
{
	struct kav_wire_grant_info wi;

	return kav_wire_grant_info(nl, id, &wi) ? ~0ULL : wi.drops;
}

/* A socket whose owner is @uid: made with that fsuid. */
static int sock_as(uid_t uid, int family, int type, int proto)
{
	int fd;

	setfsuid(uid);
	fd = socket(family, type | SOCK_CLOEXEC, proto);
	setfsuid(0);
	return fd;
}

/*
 * accept() as @uid: the accepted socket's owner is the accepter's fsuid
 * (sock_graft() sets sk_uid from the new file), not the listener's.
 */
static int accept_as(uid_t uid, int lfd)
{
	int fd;

	setfsuid(uid);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	setfsuid(0);
	return fd;
}

/* The socket address of @addr (IPv4 or IPv6 text) and @port. */
static socklen_t sa_of(const char *addr, uint16_t port,
		       struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (void *)ss;
	struct sockaddr_in *s4 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		return sizeof(*s4);
	}
	inet_pton(AF_INET6, addr, &s6->sin6_addr);
	s6->sin6_family = AF_INET6;
	s6->sin6_port = htons(port);
	return sizeof(*s6);
}

static int family_of(const char *addr)
{
	return strchr(addr, ':') ? AF_INET6 : AF_INET;
}

/* A listener of @uid on @addr:@port (SOCK_STREAM or SOCK_DGRAM). */
static int listener(uid_t uid, int type, const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len = sa_of(addr, port, &ss);
	int fd = sock_as(uid, ss.ss_family, type, 0), one = 1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) ||
	    (type == SOCK_STREAM && listen(fd, 16))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait up to @ms for @fd to be readable: 1, 0 (not), -1. */
static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;

	do {
		r = poll(&p, 1, ms);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -1 : r > 0 && (p.revents & POLLIN);
}

/* What a tenant child does: connect or send to @addr:@port. */
struct probe {
	int type;			/* SOCK_STREAM, SOCK_DGRAM */
	const char *addr;
	uint16_t port;
	uint16_t bind_port;		/* UDP: its own port, or 0 */
};

/* In the child: 0 if it connected (and sent) or sent; else the errno. */
static int probe_child(void *arg)
{
	const struct probe *p = arg;
	struct sockaddr_storage ss, me;
	socklen_t len = sa_of(p->addr, p->port, &ss);
	int fd = socket(ss.ss_family, p->type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 200;
	if (p->bind_port) {
		socklen_t ml = sa_of(p->addr, p->bind_port, &me);

		if (bind(fd, (struct sockaddr *)&me, ml))
			return 201;
	}
	if (p->type == SOCK_STREAM) {
		struct timeval tv = { .tv_sec = 10 };

		/* A refusal is at once; a lost SYN would retry for minutes. */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(fd, (struct sockaddr *)&ss, len))
			return errno;
		if (send(fd, "ping", 4, 0) != 4)
			return errno;
	} else {
		if (sendto(fd, "ping", 4, 0, (struct sockaddr *)&ss, len) != 4)
			return errno;
		/* An exempted service's reply reaches its requester. */
		if (p->bind_port && readable(fd, WAIT_MS) != 1)
			return 202;
	}
	close(fd);
	return 0;
}

/* Run a probe as @uid: the child's result. */
static int probe_as(uid_t uid, int type, const char *addr, uint16_t port)
{
	struct probe p = { .type = type, .addr = addr, .port = port };

	return kav_run_as(uid, probe_child, &p);
}

/* Did @lfd (a listener) get what a probe sent? 1 yes, 0 no. */
static int got(int lfd, int type, int ms)
{
	char buf[8] = "";
	int c, n;

	if (readable(lfd, ms) != 1)
		return 0;
	if (type == SOCK_DGRAM)
		return recv(lfd, buf, sizeof(buf), MSG_DONTWAIT) == 4 &&
		       !memcmp(buf, "ping", 4);
	c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (c < 0)
		return 0;
	n = readable(c, ms) == 1 ? (int)recv(c, buf, sizeof(buf), 0) : 0;
	close(c);
	return n == 4 && !memcmp(buf, "ping", 4);
}

struct sock_req {
	uid_t uid;
	int type;
	const char *addr;	/* bind here; NULL: unbound */
	uint16_t port;
	int fd;
};

static int sock_req_fn(void *arg)
{
	struct sock_req *r = arg;

	if (r->addr)
		r->fd = listener(r->uid, r->type, r->addr, r->port);
	else
		r->fd = sock_as(r->uid, family_of("::"), r->type, 0);
	return r->fd < 0 ? -1 : 0;
}

/* A socket of namespace @ns (it stays there wherever it is used). */
static int ns_socket(const char *ns, int type, const char *addr,
		     uint16_t port)
{
	struct sock_req r = { .uid = 0, .type = type, .addr = addr,
			      .port = port, .fd = -1 };

	return in_netns(ns, sock_req_fn, &r) ? -1 : r.fd;
}

/*
 * Namespaces NS1 (kwa, @a1) and NS2 (kwb, @a2) joined by a veth pair,
 * @plen the prefix of both addresses. The pair comes up after the far
 * ends are in place, as container runtimes do it.
 */
static int veth_pair(const char *a1, const char *a2, int plen)
{
	const char *nodad = family_of(a1) == AF_INET6 ? "nodad" : "";

	if (access(IP_BIN, X_OK))
		return -ENOENT;
	if (add_netns(NS1) || add_netns(NS2))
		return -1;
	if (ip("-n " NS1 " link add kwa type veth peer name kwb netns " NS2) ||
	    ip("-n " NS1 " addr add %s/%d dev kwa %s", a1, plen, nodad) ||
	    ip("-n " NS2 " addr add %s/%d dev kwb %s", a2, plen, nodad) ||
	    ip("-n " NS1 " link set kwa up") || ip("-n " NS2 " link set kwb up") ||
	    in_netns(NS1, kav_wire_link_up, "lo") || in_netns(NS2, kav_wire_link_up, "lo"))
		return -1;
	return 0;
}

#define V6_1	"fd00:77::1"
#define V6_2	"fd00:77::2"
#define V6_NET	"fd00:77::"

/* Send @len bytes from @fd to @addr:@port: 0 or the errno. */
static int send_to(int fd, const char *addr, uint16_t port, size_t len)
{
	static char buf[4096] = "ping";
	struct sockaddr_storage ss;
	socklen_t sl = sa_of(addr, port, &ss);

	if (len > sizeof(buf))
		return EMSGSIZE;
	return sendto(fd, buf, len, 0, (struct sockaddr *)&ss, sl) ==
	       (ssize_t)len ? 0 : errno;
}

/* Wait up to @ms for a datagram of @len bytes on @fd: 1, or 0. */
static int got_len(int fd, size_t len, int ms)
{
	static char buf[4096];

	return readable(fd, ms) == 1 &&
	       recv(fd, buf, sizeof(buf), MSG_DONTWAIT) == (ssize_t)len;
}

/*
 * got_len() past the ECONNABORTED a revocation's sweep leaves on a UDP
 * socket in scope whose owner lost its key (wire.rst, "Revocation").
 */
static int got_len_past_abort(int fd, size_t len, int ms)
{
	static char buf[4096];
	ssize_t n;

	while (readable(fd, ms) == 1) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n >= 0 || errno != ECONNABORTED)
			return n == (ssize_t)len;
	}
	return 0;
}

/* --------------------------------------------------------------- uAPI */

/* Each EINVAL of WIRE_SET (uapi.rst), and nothing changed by any. */
TEST_F(wire, set_einval)
{
	struct kav_wire_req bad[] = {
		{ 0 },						/* nothing */
		{ .has_port_min = 1, .port_min = 100 },		/* no max */
		{ .has_port_max = 1, .port_max = 100 },		/* no min */
		{ .has_port_min = 1, .has_port_max = 1, .port_max = 10 },
		{ .has_port_min = 1, .port_min = 200, .has_port_max = 1,
		  .port_max = 100 },				/* min > max */
		{ .has_mark = 1, .mark = 0x4b000001 },		/* low bits */
		{ .has_mark = 1, .mark = 0x000fffff },
	};
	struct kav_wire_state st;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, kav_wire_set(&self->nl, &bad[i]))
			TH_LOG("request %zu", i);
		EXPECT_TRUE(self->nl.has_ext_msg) TH_LOG("request %zu", i);
	}
	ASSERT_EQ(0, kav_wire_get(&self->nl, &st));
	EXPECT_EQ(KAV_WIRE_OFF, st.mode);
	EXPECT_EQ(KAV_WIRE_MARK_DEFAULT, st.mark);
	EXPECT_FALSE(st.has_ports);
}

/* A mode or a port outside the policy's range: ERANGE. */
TEST_F(wire, set_erange)
{
	struct kav_wire_req bad[] = {
		{ .has_mode = 1, .mode = __KAV_WIRE_MODE_MAX },
		{ .has_mode = 1, .mode = 0xffffffff },
		{ .has_port_min = 1, .port_min = 65536, .has_port_max = 1,
		  .port_max = 65536 },
		{ .has_port_min = 1, .port_min = 1, .has_port_max = 1,
		  .port_max = 65536 },
	};
	struct kav_wire_state st;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-ERANGE, kav_wire_set(&self->nl, &bad[i]))
			TH_LOG("request %zu", i);
	ASSERT_EQ(0, kav_wire_get(&self->nl, &st));
	EXPECT_EQ(KAV_WIRE_OFF, st.mode);
	EXPECT_FALSE(st.has_ports);
}

/* What WIRE_SET sets, WIRE_GET reports; PORT_MIN 0 alone clears. */
TEST_F(wire, set_get_round_trip)
{
	struct kav_wire_req r = {
		.has_port_min = 1, .port_min = 40000,
		.has_port_max = 1, .port_max = 65535,
		.has_mark = 1, .mark = 0x7a100000,
	};
	struct kav_wire_net n = kav_wire_net_of("10.9.0.0", 16, 0, 0, 0);
	struct kav_wire_net e = kav_wire_net_of("10.9.0.5", 32,
						KAV_WIRE_NET_EXEMPT, 6818,
						IPPROTO_TCP);
	struct kav_wire_state st;

	ASSERT_EQ(0, kav_wire_set(&self->nl, &r));
	ASSERT_EQ(0, kav_wire_net_add(&self->nl, n));
	ASSERT_EQ(0, kav_wire_net_add(&self->nl, e));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &st));
	EXPECT_TRUE(st.has_ports);
	EXPECT_EQ(40000, st.port_min);
	EXPECT_EQ(65535, st.port_max);
	EXPECT_EQ(0x7a100000, st.mark);
	EXPECT_EQ(2, st.nr_nets);
	EXPECT_TRUE(kav_wire_has_net(&st, &n));
	EXPECT_TRUE(kav_wire_has_net(&st, &e));
	EXPECT_EQ(KAV_WIRE_DROP_NR, st.nr_drops);
	ASSERT_EQ(0, kav_wire_set_ports(&self->nl, 0, 0));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &st));
	EXPECT_FALSE(st.has_ports);
}

/* Each EINVAL and ERANGE of WIRE_NET_ADD and _DEL (uapi.rst). */
TEST_F(wire, net_einval_erange)
{
	struct kav_wire_net ok = kav_wire_net_of("10.1.0.0", 16, 0, 0, 0);
	struct kav_wire_net bad[12];
	struct kav_wire_state st;
	char raw[sizeof(ok) + 1] = { 0 };
	size_t i, nb = 0;

	bad[nb] = ok;
	bad[nb++].family = AF_UNIX;
	bad[nb] = ok;
	bad[nb++].addr[4] = 1;				/* IPv4: 4 bytes */
	bad[nb] = ok;
	bad[nb++].prefix_len = 33;
	bad[nb] = kav_wire_net_of("fd00::", 129, 0, 0, 0);
	nb++;
	bad[nb++] = kav_wire_net_of("10.1.0.1", 16, 0, 0, 0); /* host bits */
	bad[nb] = ok;
	bad[nb++].flags = 0x2;
	bad[nb] = ok;
	bad[nb++].__reserved = 1;
	bad[nb] = ok;
	bad[nb++].port = 22;				/* scope: no port */
	bad[nb] = ok;
	bad[nb++].protocol = IPPROTO_TCP;		/* nor protocol */
	bad[nb++] = kav_wire_net_of("10.1.0.0", 16, KAV_WIRE_NET_EXEMPT, 0,
				    IPPROTO_ICMP);
	for (i = 0; i < nb; i++) {
		EXPECT_EQ(-EINVAL, kav_wire_net_add(&self->nl, bad[i]))
			TH_LOG("net %zu", i);
		EXPECT_EQ(-EINVAL, kav_wire_net_del(&self->nl, bad[i]))
			TH_LOG("net %zu", i);
	}
	EXPECT_EQ(-EINVAL, kav_wire_net_raw(&self->nl,
					    KAV_GENL_CMD_WIRE_NET_ADD, NULL, 0));
	memcpy(raw, &ok, sizeof(ok));
	EXPECT_EQ(-ERANGE, kav_wire_net_raw(&self->nl,
					    KAV_GENL_CMD_WIRE_NET_ADD, raw,
					    sizeof(ok) - 1));
	EXPECT_EQ(-ERANGE, kav_wire_net_raw(&self->nl,
					    KAV_GENL_CMD_WIRE_NET_ADD, raw,
					    sizeof(ok) + 1));
	EXPECT_EQ(-ERANGE, kav_wire_net_raw(&self->nl,
					    KAV_GENL_CMD_WIRE_NET_DEL, raw,
					    sizeof(ok) - 1));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &st));
	EXPECT_EQ(0, st.nr_nets);
}

/* EEXIST, ENOENT, and ENOSPC past KAV_WIRE_NETS_MAX. */
TEST_F(wire, net_exists_absent_full)
{
	struct kav_wire_net e = kav_wire_net_of("10.2.0.5", 32,
						KAV_WIRE_NET_EXEMPT, 22,
						IPPROTO_TCP);
	struct kav_wire_net n;
	struct kav_wire_state st;
	int i;

	ASSERT_EQ(0, kav_wire_net_add(&self->nl, e));
	EXPECT_EQ(-EEXIST, kav_wire_net_add(&self->nl, e));
	/* Another port or protocol is another net. */
	e.port = 23;
	EXPECT_EQ(0, kav_wire_net_add(&self->nl, e));
	e.protocol = IPPROTO_UDP;
	EXPECT_EQ(0, kav_wire_net_add(&self->nl, e));
	e.port = 24;
	EXPECT_EQ(-ENOENT, kav_wire_net_del(&self->nl, e));
	for (i = 3; i < KAV_WIRE_NETS_MAX; i++) {
		n = kav_wire_net_of("10.3.0.0", 24, 0, 0, 0);
		n.addr[2] = (uint8_t)i;
		ASSERT_EQ(0, kav_wire_net_add(&self->nl, n)) TH_LOG("net %d", i);
	}
	n.addr[1] = 4;
	EXPECT_EQ(-ENOSPC, kav_wire_net_add(&self->nl, n));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &st));
	EXPECT_EQ(KAV_WIRE_NETS_MAX, st.nr_nets);
	/* A free slot takes one again. */
	ASSERT_EQ(0, kav_wire_net_del(&self->nl, e = st.nets[0]));
	EXPECT_EQ(0, kav_wire_net_add(&self->nl, n));
}

/*
 * GRANT_ADD with the wire flag: a gid is EINVAL, a VNI of 2^20 or more
 * EINVAL, another VNI for a selector that has a wire grant EEXIST; the
 * same one again updates it, and without the flag clears it.
 */
TEST_F(wire, grant_wire_validation)
{
	struct kav_grant_spec gid = { .vni = KEY_A, .sel_type = KAV_SEL_GID,
				      .sel_id = UID_A };
	struct kav_grant_spec s = { .vni = KAV_WIRE_KEY_LIMIT,
				    .sel_type = KAV_SEL_UID, .sel_id = UID_A };
	struct kav_wire_grant_info wi;
	struct kav_nl_grant g, g2;
	uint32_t id = 0;

	EXPECT_EQ(-EINVAL, kav_wire_grant(&self->nl, &gid, NULL));
	EXPECT_TRUE(self->nl.has_ext_msg);
	EXPECT_EQ(-EINVAL, kav_wire_grant(&self->nl, &s, NULL));
	s.vni = 0xffffffff;
	EXPECT_EQ(-EINVAL, kav_wire_grant(&self->nl, &s, NULL));
	s.vni = KAV_WIRE_KEY_LIMIT - 1;
	ASSERT_EQ(0, kav_wire_grant(&self->nl, &s, &g));
	keep(self, g.id);
	ASSERT_EQ(0, kav_wire_grant_info(&self->nl, g.id, &wi));
	EXPECT_TRUE(wi.wire);
	EXPECT_TRUE(wi.has_drops);
	EXPECT_EQ(0, wi.drops);
	/* One identity, one wire key. */
	s.vni = KEY_A;
	EXPECT_EQ(-EEXIST, kav_wire_grant(&self->nl, &s, NULL));
	/* A grant of another key that is not a wire grant is fine. */
	EXPECT_EQ(0, kav_nl_grant_uid(&self->nl, KEY_A, UID_A, &id));
	keep(self, id);
	/* Idempotent: the same grant again is that grant. */
	s.vni = KAV_WIRE_KEY_LIMIT - 1;
	ASSERT_EQ(0, kav_wire_grant(&self->nl, &s, &g2));
	EXPECT_EQ(g.id, g2.id);
	EXPECT_TRUE(g2.updated);
	/* Without the flag, the update clears it. */
	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &g2));
	EXPECT_EQ(g.id, g2.id);
	ASSERT_EQ(0, kav_wire_grant_info(&self->nl, g.id, &wi));
	EXPECT_FALSE(wi.wire);
	/* Then the selector may take another wire key. */
	s.vni = KEY_B;
	ASSERT_EQ(0, kav_wire_grant(&self->nl, &s, &g2));
	keep(self, g2.id);
}

/* In a child: the wire commands are EPERM, and so is the admin group. */
static int unprivileged_child(void *arg)
{
	struct kav_wire_net n = kav_wire_net_of("10.5.0.0", 16, 0, 0, 0);
	struct kav_wire_state st;
	struct kav_nl nl;
	uint32_t id;

	(void)arg;
	CK_EQ(0, kav_nl_open(&nl));
	CK_EQ(-EPERM, kav_wire_set_mode(&nl, KAV_WIRE_FLOWLABEL));
	CK_EQ(-EPERM, kav_wire_set_ports(&nl, 1000, 2000));
	CK_EQ(-EPERM, kav_wire_net_add(&nl, n));
	CK_EQ(-EPERM, kav_wire_net_del(&nl, n));
	CK_EQ(-EPERM, kav_wire_get(&nl, &st));
	CK_EQ(-EPERM, kav_wire_grant_uid(&nl, KEY_A, getuid(), &id));
	CK_EQ(-EPERM, kav_nl_join_admin(&nl));
	kav_nl_close(&nl);
	return 0;
}

/* As root without CAP_NET_ADMIN (and the rest of its capabilities). */
static int no_cap_child(void *arg)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { 0 };

	CK_EQ(0, syscall(SYS_capset, &h, d));
	return unprivileged_child(arg);
}

TEST_F(wire, unprivileged_refused)
{
	struct kav_wire_state st;

	EXPECT_EQ(0, kav_run_as(65534, unprivileged_child, NULL));
	EXPECT_EQ(0, kav_reap(kav_spawn(no_cap_child, NULL)));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &st));
	EXPECT_EQ(KAV_WIRE_OFF, st.mode);
	EXPECT_EQ(0, st.nr_nets);
}

/* ------------------------------------------------------ this node */

/*
 * To B's listener in scope: no key and another key are refused at once
 * (ECONNREFUSED at connect or sendto) and counted by reason and against
 * the sender's grant; B's own traffic passes.
 */
static void same_node(struct __test_metadata *_metadata,
		      FIXTURE_DATA(wire) *self, int type, const char *addr)
{
	uint64_t no_key, mismatch;
	uint32_t ga;
	int lfd;

	ga = grant_uid(_metadata, self, KEY_A, UID_A);
	grant_uid(_metadata, self, KEY_B, UID_B);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, addr,
			      family_of(addr) == AF_INET ? 32 : 128));
	lfd = listener(UID_B, type, addr, PORT);
	ASSERT_LE(0, lfd);
	no_key = drops(&self->nl, KAV_WIRE_DROP_SENDER_NO_KEY);
	mismatch = drops(&self->nl, KAV_WIRE_DROP_MISMATCH);

	EXPECT_EQ(ECONNREFUSED, probe_as(UID_C, type, addr, PORT));
	EXPECT_EQ(0, got(lfd, type, NONE_MS));
	EXPECT_LT(no_key, drops(&self->nl, KAV_WIRE_DROP_SENDER_NO_KEY));

	EXPECT_EQ(ECONNREFUSED, probe_as(UID_A, type, addr, PORT));
	EXPECT_EQ(0, got(lfd, type, NONE_MS));
	EXPECT_LT(mismatch, drops(&self->nl, KAV_WIRE_DROP_MISMATCH));
	EXPECT_LT(0, grant_drops(&self->nl, ga));

	EXPECT_EQ(0, probe_as(UID_B, type, addr, PORT));
	EXPECT_EQ(1, got(lfd, type, WAIT_MS));
	close(lfd);

	/* A listener without a key receives from nobody. */
	lfd = listener(UID_C, type, addr, PORT);
	ASSERT_LE(0, lfd);
	no_key = drops(&self->nl, KAV_WIRE_DROP_RECEIVER_NO_KEY);
	EXPECT_EQ(ECONNREFUSED, probe_as(UID_B, type, addr, PORT));
	EXPECT_EQ(0, got(lfd, type, NONE_MS));
	EXPECT_LT(no_key, drops(&self->nl, KAV_WIRE_DROP_RECEIVER_NO_KEY));
	close(lfd);
}

TEST_F_TIMEOUT(wire, same_node_tcp4, SLOW)
{
	same_node(_metadata, self, SOCK_STREAM, "127.0.0.2");
}

TEST_F_TIMEOUT(wire, same_node_tcp6, SLOW)
{
	same_node(_metadata, self, SOCK_STREAM, "::1");
}

TEST_F_TIMEOUT(wire, same_node_udp4, SLOW)
{
	same_node(_metadata, self, SOCK_DGRAM, "127.0.0.2");
}

TEST_F_TIMEOUT(wire, same_node_udp6, SLOW)
{
	same_node(_metadata, self, SOCK_DGRAM, "::1");
}

/* A UDP datagram written whole on a raw socket of @uid: sendto's errno. */
static int raw_udp4(uid_t uid, const char *src, uint16_t sport,
		    const char *dst, uint16_t dport)
{
	struct sockaddr_storage ss;
	socklen_t sl = sa_of(dst, 0, &ss);
	struct {
		struct udphdr uh;
		char data[4];
	} pkt = {
		.uh = { .source = htons(sport), .dest = htons(dport),
			.len = htons(sizeof(pkt)), .check = 0 },
		.data = "ping",
	};
	struct sockaddr_storage me;
	socklen_t ml = sa_of(src, 0, &me);
	int fd = sock_as(uid, AF_INET, SOCK_RAW, IPPROTO_UDP), ret = 0;

	if (fd < 0)
		return 200;
	/* The source address the exempted service has. */
	if (bind(fd, (struct sockaddr *)&me, ml))
		ret = 201;
	else if (sendto(fd, &pkt, sizeof(pkt), 0, (struct sockaddr *)&ss,
			sl) != sizeof(pkt))
		ret = errno;
	close(fd);
	return ret;
}

/*
 * A raw socket writes its own UDP header: the rule holds it too. Its
 * datagram passes when its owner holds the listener's key (so it is a
 * datagram the listener takes), and is refused when not.
 */
TEST_F(wire, raw_socket)
{
	int lfd;

	grant_uid(_metadata, self, KEY_B, UID_B);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	lfd = listener(UID_B, SOCK_DGRAM, "127.0.0.2", PORT);
	ASSERT_LE(0, lfd);
	EXPECT_EQ(ECONNREFUSED, raw_udp4(0, "127.0.0.2", 40999, "127.0.0.2",
					 PORT));
	EXPECT_EQ(0, got(lfd, SOCK_DGRAM, NONE_MS));
	EXPECT_EQ(ECONNREFUSED, raw_udp4(UID_C, "127.0.0.2", 40999,
					 "127.0.0.2", PORT));
	EXPECT_EQ(0, got(lfd, SOCK_DGRAM, NONE_MS));
	EXPECT_EQ(0, raw_udp4(UID_B, "127.0.0.2", 40999, "127.0.0.2", PORT));
	EXPECT_EQ(1, got(lfd, SOCK_DGRAM, WAIT_MS));
	close(lfd);
}

/*
 * Outside the scope (another address; with a port range, a port out of
 * it) nothing changes, and with mode off nothing at all.
 */
TEST_F_TIMEOUT(wire, out_of_scope_and_off, SLOW)
{
	int l2, l3, l6;

	grant_uid(_metadata, self, KEY_B, UID_B);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	ASSERT_EQ(0, kav_wire_net_add(&self->nl,
				      kav_wire_net_of("::1", 128, 0, 0, 0)));
	ASSERT_EQ(0, kav_wire_set_ports(&self->nl, PORT, PORT + 9));
	l2 = listener(UID_B, SOCK_STREAM, "127.0.0.2", PORT);
	l3 = listener(UID_B, SOCK_STREAM, "127.0.0.3", PORT);
	ASSERT_LE(0, l3);
	EXPECT_EQ(ECONNREFUSED, probe_as(UID_C, SOCK_STREAM, "127.0.0.3", PORT));
	EXPECT_EQ(0, got(l3, SOCK_STREAM, NONE_MS));
	close(l3);
	l3 = listener(UID_B, SOCK_STREAM, "127.0.0.3", PORT + 100);
	l6 = listener(UID_B, SOCK_DGRAM, "::1", PORT + 100);
	ASSERT_LE(0, l2);
	ASSERT_LE(0, l3);
	ASSERT_LE(0, l6);

	/*
	 * With a port range the loopback device is in scope whatever the
	 * address: 127.0.0.3 in the range is checked, out of it is not.
	 */
	EXPECT_EQ(ECONNREFUSED, probe_as(UID_C, SOCK_STREAM, "127.0.0.2", PORT));
	EXPECT_EQ(0, got(l2, SOCK_STREAM, NONE_MS));
	EXPECT_EQ(0, probe_as(UID_C, SOCK_STREAM, "127.0.0.3", PORT + 100));
	EXPECT_EQ(1, got(l3, SOCK_STREAM, WAIT_MS));
	EXPECT_EQ(0, probe_as(UID_C, SOCK_DGRAM, "::1", PORT + 100));
	EXPECT_EQ(1, got(l6, SOCK_DGRAM, WAIT_MS));

	/* No range: only the scope prefix; 127.0.0.3 is outside. */
	ASSERT_EQ(0, kav_wire_set_ports(&self->nl, 0, 0));
	close(l3);
	l3 = listener(UID_B, SOCK_STREAM, "127.0.0.3", PORT);
	ASSERT_LE(0, l3);
	EXPECT_EQ(0, probe_as(UID_C, SOCK_STREAM, "127.0.0.3", PORT));
	EXPECT_EQ(1, got(l3, SOCK_STREAM, WAIT_MS));

	ASSERT_EQ(0, kav_wire_set_mode(&self->nl, KAV_WIRE_OFF));
	EXPECT_EQ(0, probe_as(UID_C, SOCK_STREAM, "127.0.0.2", PORT));
	EXPECT_EQ(1, got(l2, SOCK_STREAM, WAIT_MS));
	close(l2);
	close(l3);
	close(l6);
}

/*
 * An exempted endpoint is reachable without a key and its reply reaches
 * the requester; a datagram that only claims the exempted source port
 * (a raw socket) is checked as any, and refused.
 */
TEST_F_TIMEOUT(wire, exemptions, SLOW)
{
	struct probe p = { .type = SOCK_DGRAM, .addr = "127.0.0.2",
			   .port = PORT_EXEMPT, .bind_port = PORT + 5 };
	struct kav_as_arg as = { UID_C, UID_C, probe_child, &p };
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	char buf[8];
	int svc, lfd;
	pid_t pid;

	grant_uid(_metadata, self, KEY_B, UID_B);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	ASSERT_EQ(0, kav_wire_net_add(&self->nl,
				      kav_wire_net_of("127.0.0.2", 32,
						      KAV_WIRE_NET_EXEMPT,
						      PORT_EXEMPT,
						      IPPROTO_UDP)));
	/* The service (uid B) answers whoever asks: the keyless C. */
	svc = listener(UID_B, SOCK_DGRAM, "127.0.0.2", PORT_EXEMPT);
	ASSERT_LE(0, svc);
	pid = kav_spawn(kav_as_trampoline, &as);
	ASSERT_EQ(1, readable(svc, WAIT_MS));
	ASSERT_EQ(4, recvfrom(svc, buf, sizeof(buf), 0,
			      (struct sockaddr *)&from, &fl));
	EXPECT_EQ(4, sendto(svc, "pong", 4, 0, (struct sockaddr *)&from, fl));
	EXPECT_EQ(0, kav_reap(pid));

	/* The exempted port is no pass for a forged datagram from it. */
	lfd = listener(UID_B, SOCK_DGRAM, "127.0.0.2", PORT);
	ASSERT_LE(0, lfd);
	EXPECT_EQ(ECONNREFUSED, raw_udp4(0, "127.0.0.2", PORT_EXEMPT,
					 "127.0.0.2", PORT));
	EXPECT_EQ(0, got(lfd, SOCK_DGRAM, NONE_MS));
	/* Nor is the exemption's port under the other protocol. */
	close(svc);
	svc = listener(UID_B, SOCK_STREAM, "127.0.0.2", PORT_EXEMPT);
	ASSERT_LE(0, svc);
	EXPECT_EQ(ECONNREFUSED, probe_as(UID_C, SOCK_STREAM, "127.0.0.2",
					 PORT_EXEMPT));
	EXPECT_EQ(0, got(svc, SOCK_STREAM, NONE_MS));
	close(svc);
	close(lfd);
}

/*
 * Two wire keys for one identity through cgroup nesting (KEY_A on the
 * outer cgroup, KEY_B on the inner): the socket has none, fails closed,
 * counted as a conflict. Either key's listener refuses it.
 */
TEST_F_TIMEOUT(wire, conflict_fails_closed, SLOW)
{
	struct kav_grant_spec s = { .sel_type = KAV_SEL_CGROUP };
	struct probe p = { .type = SOCK_STREAM, .addr = "127.0.0.2",
			   .port = PORT };
	struct kav_job_arg j = { CG_INNER, { UID_C, UID_C, probe_child, &p } };
	struct kav_nl_grant g;
	uint64_t conflict;
	int la, lb;

	ASSERT_EQ(0, kav_cgroup_make(CG_OUTER));
	ASSERT_EQ(0, kav_cgroup_make(CG_INNER));
	s.vni = KEY_A;
	s.cgroup_path = CG_OUTER;
	ASSERT_EQ(0, kav_wire_grant(&self->nl, &s, &g));
	keep(self, g.id);
	s.vni = KEY_B;
	s.cgroup_path = CG_INNER;
	ASSERT_EQ(0, kav_wire_grant(&self->nl, &s, &g));
	keep(self, g.id);
	grant_uid(_metadata, self, KEY_A, UID_A);
	grant_uid(_metadata, self, KEY_B, UID_B);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	la = listener(UID_A, SOCK_STREAM, "127.0.0.2", PORT);
	lb = listener(UID_B, SOCK_STREAM, "127.0.0.2", PORT + 1);
	ASSERT_LE(0, la);
	ASSERT_LE(0, lb);
	conflict = drops(&self->nl, KAV_WIRE_DROP_CONFLICT);

	EXPECT_EQ(ECONNREFUSED, kav_reap(kav_spawn(kav_job_trampoline, &j)));
	EXPECT_EQ(0, got(la, SOCK_STREAM, NONE_MS));
	p.port = PORT + 1;
	EXPECT_EQ(ECONNREFUSED, kav_reap(kav_spawn(kav_job_trampoline, &j)));
	EXPECT_EQ(0, got(lb, SOCK_STREAM, NONE_MS));
	EXPECT_LE(conflict + 2, drops(&self->nl, KAV_WIRE_DROP_CONFLICT));
	/* The outer cgroup alone is one key: A's listener takes it. */
	j.cgroup = CG_OUTER;
	p.port = PORT;
	EXPECT_EQ(0, kav_reap(kav_spawn(kav_job_trampoline, &j)));
	EXPECT_EQ(1, got(la, SOCK_STREAM, WAIT_MS));
	close(la);
	close(lb);
}

struct drop_event {
	bool seen;
	uint32_t reason, vni, uid;
	bool has_uid, has_cookie;
	uint64_t drops;
};

static int drop_event_cb(const struct nlmsghdr *nlh,
			 const struct genlmsghdr *gh,
			 const struct kav_nl_attrs *at, void *arg)
{
	struct drop_event *ev = arg;

	(void)nlh;
	if (gh->cmd != KAV_GENL_CMD_WIRE_DROP || ev->seen)
		return 0;
	ev->seen = true;
	ev->reason = kav_nl_u32(at->a[KAV_A_WIRE_DROP_REASON]);
	ev->vni = kav_nl_u32(at->a[KAV_A_VNI]);
	ev->has_uid = at->a[KAV_A_UID] != NULL;
	ev->uid = kav_nl_u32(at->a[KAV_A_UID]);
	ev->has_cookie = at->a[KAV_A_NETNS_COOKIE] != NULL;
	ev->drops = kav_nl_u64(at->a[KAV_A_WIRE_DROPS]);
	return 0;
}

/*
 * Drops are counted by reason and against the local socket's grant, and
 * KAV_GENL_CMD_WIRE_DROP reaches the admin group: at once after a quiet
 * second, then once a second while drops go on (so a few seconds of
 * drops always raise one).
 */
TEST_F_TIMEOUT(wire, counters_and_event, SLOW)
{
	struct drop_event ev = { 0 };
	struct kav_wire_state before, after;
	struct kav_nl mon;
	uint32_t gb;
	int lfd, fd, i;

	grant_uid(_metadata, self, KEY_A, UID_A);
	gb = grant_uid(_metadata, self, KEY_B, UID_B);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	lfd = listener(UID_A, SOCK_DGRAM, "127.0.0.2", PORT);
	fd = sock_as(UID_B, AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, lfd);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kav_nl_open(&mon));
	ASSERT_EQ(0, kav_nl_join_admin(&mon));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &before));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(ECONNREFUSED, send_to(fd, "127.0.0.2", PORT, 4));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &after));
	EXPECT_EQ(before.drops[KAV_WIRE_DROP_MISMATCH] + 5,
		  after.drops[KAV_WIRE_DROP_MISMATCH]);
	EXPECT_EQ(before.passed, after.passed);
	EXPECT_EQ(5, grant_drops(&self->nl, gb));
	for (i = 0; i < 12 && !ev.seen; i++) {
		send_to(fd, "127.0.0.2", PORT, 4);
		kav_nl_recv_notifs(&mon, 500, drop_event_cb, &ev);
	}
	ASSERT_TRUE(ev.seen);
	EXPECT_EQ(KAV_WIRE_DROP_MISMATCH, ev.reason);
	EXPECT_EQ(KEY_B, ev.vni);
	EXPECT_TRUE(ev.has_uid);
	EXPECT_EQ(UID_B, ev.uid);
	EXPECT_TRUE(ev.has_cookie);
	EXPECT_LE(1, ev.drops);
	/* What passes is counted as passed: sender and key match here. */
	close(fd);
	fd = sock_as(UID_A, AF_INET, SOCK_DGRAM, 0);
	ASSERT_EQ(0, kav_wire_get(&self->nl, &before));
	EXPECT_EQ(0, send_to(fd, "127.0.0.2", PORT, 4));
	EXPECT_EQ(1, got(lfd, SOCK_DGRAM, WAIT_MS));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &after));
	EXPECT_LE(before.passed + 1, after.passed);
	kav_nl_close(&mon);
	close(fd);
	close(lfd);
}

/* ------------------------------------------------------ namespaces */

struct ns_probe {
	uid_t uid;
	int ret;
};

/* In a new namespace's loopback: keyless refused, a keyed pair passes. */
static int new_netns_fn(void *arg)
{
	struct ns_probe *np = arg;
	int lfd, fd;

	np->ret = 1;
	lfd = listener(UID_B, SOCK_DGRAM, "::1", PORT);
	fd = sock_as(np->uid, AF_INET6, SOCK_DGRAM, 0);
	if (lfd < 0 || fd < 0)
		return -1;
	np->ret = send_to(fd, "::1", PORT, 4);
	if (!np->ret && !got(lfd, SOCK_DGRAM, WAIT_MS))
		np->ret = 203;
	close(fd);
	close(lfd);
	return 0;
}

/* The hooks are pernet: a namespace made after the mode was set has them. */
TEST_F_TIMEOUT(wire, new_netns_covered, SLOW)
{
	struct ns_probe np = { .uid = UID_C };

	grant_uid(_metadata, self, KEY_B, UID_B);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "::1", 128));
	self->netns = true;
	ASSERT_EQ(0, add_netns(NS1));
	ASSERT_EQ(0, in_netns(NS1, kav_wire_link_up, "lo"));
	ASSERT_EQ(0, in_netns(NS1, new_netns_fn, &np));
	EXPECT_EQ(ECONNREFUSED, np.ret);
	np.uid = UID_B;
	ASSERT_EQ(0, in_netns(NS1, new_netns_fn, &np));
	EXPECT_EQ(0, np.ret);
}

/*
 * Two namespaces over a veth pair, each with a netns wire grant:
 * flowlabel carries the sender's key; the same key passes, another is
 * dropped at the receiver (MISMATCH), and IPv4 has no carrier.
 */
TEST_F_TIMEOUT(wire, veth_flowlabel, SLOW)
{
	uint64_t mismatch, no_carrier;
	uint32_t g2;
	int lfd, fd, l4, f4;

	self->netns = true;
	ASSERT_EQ(0, kav_wire_set_mode(&self->nl, KAV_WIRE_FLOWLABEL));
	ASSERT_EQ(0, veth_pair(V6_1, V6_2, 64)) TH_LOG("ip or veth missing");
	ASSERT_EQ(0, ip("-n " NS1 " addr add 10.77.0.1/24 dev kwa"));
	ASSERT_EQ(0, ip("-n " NS2 " addr add 10.77.0.2/24 dev kwb"));
	ASSERT_EQ(0, kav_wire_net_add(&self->nl,
				      kav_wire_net_of(V6_NET, 64, 0, 0, 0)));
	ASSERT_EQ(0, kav_wire_net_add(&self->nl,
				      kav_wire_net_of("10.77.0.0", 24, 0, 0,
						      0)));
	grant_netns(_metadata, self, KEY_A, NS1);
	g2 = grant_netns(_metadata, self, KEY_A, NS2);
	lfd = ns_socket(NS2, SOCK_DGRAM, V6_2, PORT);
	fd = ns_socket(NS1, SOCK_DGRAM, V6_1, 0);
	l4 = ns_socket(NS2, SOCK_DGRAM, "10.77.0.2", PORT);
	f4 = ns_socket(NS1, SOCK_DGRAM, "10.77.0.1", 0);
	ASSERT_LE(0, lfd);
	ASSERT_LE(0, fd);
	ASSERT_LE(0, l4);
	ASSERT_LE(0, f4);

	EXPECT_EQ(0, send_to(fd, V6_2, PORT, 4));
	EXPECT_EQ(1, got_len(lfd, 4, WAIT_MS));

	no_carrier = drops(&self->nl, KAV_WIRE_DROP_NO_CARRIER);
	EXPECT_EQ(0, send_to(f4, "10.77.0.2", PORT, 4));
	EXPECT_EQ(0, got_len(l4, 4, NONE_MS));
	EXPECT_LT(no_carrier, drops(&self->nl, KAV_WIRE_DROP_NO_CARRIER));

	ungrant(self, g2);
	grant_netns(_metadata, self, KEY_B, NS2);
	mismatch = drops(&self->nl, KAV_WIRE_DROP_MISMATCH);
	EXPECT_EQ(0, send_to(fd, V6_2, PORT, 4));
	EXPECT_EQ(0, got_len(lfd, 4, NONE_MS));
	EXPECT_LT(mismatch, drops(&self->nl, KAV_WIRE_DROP_MISMATCH));
	close(lfd);
	close(fd);
	close(l4);
	close(f4);
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		sum += (uint32_t)b[len - 1] << 8;
	return sum;
}

struct forge {
	int fd, ifindex;
	uint8_t src_mac[6], dst_mac[6];
};

static int forge_fn(void *arg)
{
	struct forge *f = arg;
	struct ifreq ifr = { 0 };

	f->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "kwa");
	if (f->fd < 0 || ioctl(f->fd, SIOCGIFINDEX, &ifr))
		return -1;
	f->ifindex = ifr.ifr_ifindex;
	if (ioctl(f->fd, SIOCGIFHWADDR, &ifr))
		return -1;
	memcpy(f->src_mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

static int peer_mac_fn(void *arg)
{
	struct forge *f = arg;
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "kwb");
	ret = fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr) ? -1 : 0;
	memcpy(f->dst_mac, ifr.ifr_hwaddr.sa_data, 6);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Write one Ethernet frame: IPv6 UDP V6_1 -> V6_2:@dport, label @label. */
static int forge_send(const struct forge *f, uint32_t label, uint16_t dport)
{
	struct __attribute__((packed)) {
		uint8_t dst[6], src[6];
		uint16_t proto;
		struct ip6_hdr ip6;
		struct udphdr uh;
		char data[4];
	} fr = { 0 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_ifindex = f->ifindex, .sll_halen = 6 };
	uint32_t sum = 0;

	memcpy(fr.dst, f->dst_mac, 6);
	memcpy(fr.src, f->src_mac, 6);
	fr.proto = htons(ETH_P_IPV6);
	fr.ip6.ip6_flow = htonl(6U << 28 | (label & 0xfffff));
	fr.ip6.ip6_plen = htons(sizeof(fr.uh) + sizeof(fr.data));
	fr.ip6.ip6_nxt = IPPROTO_UDP;
	fr.ip6.ip6_hlim = 64;
	inet_pton(AF_INET6, V6_1, &fr.ip6.ip6_src);
	inet_pton(AF_INET6, V6_2, &fr.ip6.ip6_dst);
	fr.uh.source = htons(40999);
	fr.uh.dest = htons(dport);
	fr.uh.len = fr.ip6.ip6_plen;
	memcpy(fr.data, "ping", 4);
	/* The pseudo-header (addresses, length, next header), then UDP. */
	sum = csum_add(sum, &fr.ip6.ip6_src, 32);
	sum += sizeof(fr.uh) + sizeof(fr.data) + IPPROTO_UDP;
	sum = csum_add(sum, &fr.uh, sizeof(fr.uh) + sizeof(fr.data));
	fr.uh.check = htons(csum_fold(sum) ?: 0xffff);
	memcpy(sll.sll_addr, f->dst_mac, 6);
	return sendto(f->fd, &fr, sizeof(fr), 0, (struct sockaddr *)&sll,
		      sizeof(sll)) == sizeof(fr) ? 0 : -errno;
}

/*
 * Root in a container's namespace writes a frame with AF_PACKET (past
 * its own LOCAL_OUT) carrying another key's label, the receiver's: the
 * guard on the far end drops it (NETNS). The same frame with mode off is
 * delivered, so it is one the receiver would take.
 */
TEST_F_TIMEOUT(wire, veth_guard_forged_label, SLOW)
{
	struct forge f = { .fd = -1 };
	uint64_t netns;
	int lfd;

	self->netns = true;
	ASSERT_EQ(0, kav_wire_set_mode(&self->nl, KAV_WIRE_FLOWLABEL));
	ASSERT_EQ(0, veth_pair(V6_1, V6_2, 64)) TH_LOG("ip or veth missing");
	ASSERT_EQ(0, kav_wire_net_add(&self->nl,
				      kav_wire_net_of(V6_NET, 64, 0, 0, 0)));
	grant_netns(_metadata, self, KEY_A, NS1);
	grant_netns(_metadata, self, KEY_B, NS2);
	lfd = ns_socket(NS2, SOCK_DGRAM, V6_2, PORT);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, in_netns(NS1, forge_fn, &f));
	ASSERT_EQ(0, in_netns(NS2, peer_mac_fn, &f));

	netns = drops(&self->nl, KAV_WIRE_DROP_NETNS);
	ASSERT_EQ(0, forge_send(&f, KEY_B, PORT));
	EXPECT_EQ(0, got_len(lfd, 4, NONE_MS));
	EXPECT_LT(netns, drops(&self->nl, KAV_WIRE_DROP_NETNS));

	ASSERT_EQ(0, kav_wire_set_mode(&self->nl, KAV_WIRE_OFF));
	ASSERT_EQ(0, forge_send(&f, KEY_B, PORT));
	EXPECT_EQ(1, got_len(lfd, 4, WAIT_MS));
	close(f.fd);
	close(lfd);
}

/*
 * A UDP datagram larger than the veth's MTU leaves as IPv6 fragments;
 * wire.rst: defragmentation is on in every namespace, so they are
 * reassembled and the whole datagram judged by its ports and keys
 * (never dropped as FRAGMENT where reassembly is available).
 */
TEST_F_TIMEOUT(wire, ipv6_fragments, SLOW)
{
	uint64_t frag, mismatch;
	uint32_t g2;
	int lfd, fd;

	self->netns = true;
	ASSERT_EQ(0, kav_wire_set_mode(&self->nl, KAV_WIRE_FLOWLABEL));
	ASSERT_EQ(0, veth_pair(V6_1, V6_2, 64)) TH_LOG("ip or veth missing");
	ASSERT_EQ(0, kav_wire_net_add(&self->nl,
				      kav_wire_net_of(V6_NET, 64, 0, 0, 0)));
	/* Fragments are in scope whatever the port range. */
	ASSERT_EQ(0, kav_wire_set_ports(&self->nl, PORT, PORT));
	grant_netns(_metadata, self, KEY_A, NS1);
	g2 = grant_netns(_metadata, self, KEY_A, NS2);
	lfd = ns_socket(NS2, SOCK_DGRAM, V6_2, PORT);
	fd = ns_socket(NS1, SOCK_DGRAM, V6_1, 0);
	ASSERT_LE(0, lfd);
	ASSERT_LE(0, fd);
	frag = drops(&self->nl, KAV_WIRE_DROP_FRAGMENT);

	EXPECT_EQ(0, send_to(fd, V6_2, PORT, 3000));
	EXPECT_EQ(1, got_len(lfd, 3000, WAIT_MS));

	ungrant(self, g2);
	grant_netns(_metadata, self, KEY_B, NS2);
	mismatch = drops(&self->nl, KAV_WIRE_DROP_MISMATCH);
	EXPECT_EQ(0, send_to(fd, V6_2, PORT, 3000));
	EXPECT_EQ(0, got_len(lfd, 3000, NONE_MS));
	EXPECT_LT(mismatch, drops(&self->nl, KAV_WIRE_DROP_MISMATCH));
	EXPECT_EQ(frag, drops(&self->nl, KAV_WIRE_DROP_FRAGMENT));
	close(lfd);
	close(fd);
}

#define SA_KEY	"0x0123456789abcdef0123456789abcdef01234567"

/*
 * ESP transport SAs from @a1 (in @ns1) to @a2 (in @ns2) with reqid @key,
 * and an out policy in @ns1: on @mark (esp mode's mark base | key), or on
 * the addresses alone when @mark is 0 (over a veth kav sets no mark).
 */
static int esp_up(const char *ns1, const char *ns2, const char *a1,
		  const char *a2, uint32_t key, uint32_t mark)
{
	const char *ns[2] = { ns1, ns2 };
	int plen = family_of(a1) == AF_INET ? 32 : 128, i;
	char m[64] = "";

	for (i = 0; i < 2; i++) {
		ip("-n %s xfrm state flush", ns[i]);
		ip("-n %s xfrm policy flush", ns[i]);
		if (ip("-n %s xfrm state add src %s dst %s proto esp "
		       "spi 0x%x reqid %u mode transport "
		       "aead rfc4106(gcm(aes)) " SA_KEY " 128",
		       ns[i], a1, a2, 0x1000 + key, key))
			return -1;
	}
	if (mark)
		snprintf(m, sizeof(m), "mark 0x%x mask 0xffffffff", mark);
	return ip("-n %s xfrm policy add src %s/%d dst %s/%d dir out %s "
		  "tmpl src %s dst %s proto esp reqid %u mode transport",
		  ns1, a1, plen, a2, plen, m, a1, a2, key) ? -1 : 0;
}

/*
 * esp between @ns1 (@a1, key A) and @ns2 (@a2): the key is the reqid of
 * the SA that authenticated the packet. Same key passes; an SA of
 * another key is another key, whatever the label says.
 */
static void esp_case(struct __test_metadata *_metadata,
		     FIXTURE_DATA(wire) *self, const char *a1, const char *a2,
		     bool marked)
{
	uint32_t mark_a = marked ? KAV_WIRE_MARK_DEFAULT | KEY_A : 0;
	uint64_t mismatch, no_carrier;
	uint32_t g1;
	int lfd, fd;

	grant_netns(_metadata, self, KEY_A, NS2);
	g1 = grant_netns(_metadata, self, KEY_A, NS1);
	lfd = ns_socket(NS2, SOCK_DGRAM, a2, PORT);
	fd = ns_socket(NS1, SOCK_DGRAM, a1, 0);
	ASSERT_LE(0, lfd);
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, esp_up(NS1, NS2, a1, a2, KEY_A, mark_a));
	EXPECT_EQ(0, send_to(fd, a2, PORT, 4));
	EXPECT_EQ(1, got_len(lfd, 4, WAIT_MS));

	/* The sender keeps key A; its packets go on key B's SA. */
	ASSERT_EQ(0, esp_up(NS1, NS2, a1, a2, KEY_B, marked ? mark_a : 0));
	mismatch = drops(&self->nl, KAV_WIRE_DROP_MISMATCH);
	EXPECT_EQ(0, send_to(fd, a2, PORT, 4));
	EXPECT_EQ(0, got_len(lfd, 4, NONE_MS));
	EXPECT_LT(mismatch, drops(&self->nl, KAV_WIRE_DROP_MISMATCH));

	if (marked) {
		/* The sender's key B has no SA: plaintext, no carrier. */
		ASSERT_EQ(0, esp_up(NS1, NS2, a1, a2, KEY_A, mark_a));
		ungrant(self, g1);
		grant_netns(_metadata, self, KEY_B, NS1);
		no_carrier = drops(&self->nl, KAV_WIRE_DROP_NO_CARRIER);
		/* Key A's revocation aborted the socket: one ECONNABORTED. */
		EXPECT_EQ(ECONNABORTED, send_to(fd, a2, PORT, 4));
		EXPECT_EQ(0, send_to(fd, a2, PORT, 4));
		EXPECT_EQ(0, got_len(lfd, 4, NONE_MS));
		EXPECT_LT(no_carrier,
			  drops(&self->nl, KAV_WIRE_DROP_NO_CARRIER));
	}
	close(lfd);
	close(fd);
}

TEST_F_TIMEOUT(wire, esp_veth, SLOW)
{
	self->netns = true;
	ASSERT_EQ(0, kav_wire_set_mode(&self->nl, KAV_WIRE_ESP));
	ASSERT_EQ(0, veth_pair(V6_1, V6_2, 64)) TH_LOG("ip or veth missing");
	ASSERT_EQ(0, kav_wire_net_add(&self->nl,
				      kav_wire_net_of(V6_NET, 64, 0, 0, 0)));
	esp_case(_metadata, self, V6_1, V6_2, false);
}

/*
 * Key @key's SAs both ways between @a1 (in NS1) and @a2 (in NS2), each
 * namespace's out policy on kav's mark for the key: what TCP needs.
 */
static int esp_duplex_up(const char *a1, const char *a2, uint32_t key)
{
	const char *ns[2] = { NS1, NS2 }, *addr[2] = { a1, a2 };
	int plen = family_of(a1) == AF_INET ? 32 : 128, i, d;
	uint32_t mark = KAV_WIRE_MARK_DEFAULT | key;

	for (i = 0; i < 2; i++) {
		ip("-n %s xfrm state flush", ns[i]);
		ip("-n %s xfrm policy flush", ns[i]);
	}
	for (d = 0; d < 2; d++) {	/* d: the sending end */
		for (i = 0; i < 2; i++)
			if (ip("-n %s xfrm state add src %s dst %s proto esp "
			       "spi 0x%x reqid %u mode transport "
			       "aead rfc4106(gcm(aes)) " SA_KEY " 128",
			       ns[i], addr[d], addr[!d], 0x2000 + 2 * key + d,
			       key))
				return -1;
		if (ip("-n %s xfrm policy add src %s/%d dst %s/%d dir out "
		       "mark 0x%x mask 0xffffffff tmpl src %s dst %s "
		       "proto esp reqid %u mode transport", ns[d], addr[d],
		       plen, addr[!d], plen, mark, addr[d], addr[!d], key))
			return -1;
	}
	return 0;
}

static int stream_fn(void *arg)
{
	int *fd = arg;

	*fd = socket(*fd, SOCK_STREAM | SOCK_CLOEXEC, 0);
	return *fd < 0 ? -1 : 0;
}

#define BULK	(1 << 20)

/*
 * A megabyte of TCP from NS1 to NS2 through key A's SAs arrives whole.
 * The sockets' own routes have no mark, so TCP would size segments for
 * the plain NIC; unless kav clamps the MSS of the SYNs it sends through
 * an SA, each segment plus ESP is too big for the path and the flow
 * stalls (IPv6 and IPv4 with DF do not fragment it).
 */
static void esp_bulk(struct __test_metadata *_metadata,
		     FIXTURE_DATA(wire) *self, const char *a1, const char *a2)
{
	static char buf[64 << 10];
	struct sockaddr_storage ss;
	socklen_t len = sa_of(a2, PORT + 1, &ss);
	size_t sent = 0, got = 0;
	int lfd, fd = family_of(a1), afd = -1, mss = 0;
	struct timeval tv = { .tv_sec = 20 };
	socklen_t ml = sizeof(mss);
	double end;
	ssize_t n;

	grant_netns(_metadata, self, KEY_A, NS1);
	grant_netns(_metadata, self, KEY_A, NS2);
	ASSERT_EQ(0, esp_duplex_up(a1, a2, KEY_A));
	lfd = ns_socket(NS2, SOCK_STREAM, a2, PORT + 1);
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, in_netns(NS1, stream_fn, &fd));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	ASSERT_EQ(0, connect(fd, (struct sockaddr *)&ss, len))
		TH_LOG("connect %s: %s", a2, strerror(errno));
	ASSERT_EQ(1, readable(lfd, WAIT_MS));
	afd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	ASSERT_LE(0, afd);
	ASSERT_EQ(0, getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &ml));
	memset(buf, 0x5a, sizeof(buf));
	end = kav_now() + 60;
	while (got < BULK && kav_now() < end) {
		if (sent < BULK) {
			n = send(fd, buf, sizeof(buf) < BULK - sent ?
				 sizeof(buf) : BULK - sent, MSG_DONTWAIT);
			if (n > 0)
				sent += (size_t)n;
		}
		if (readable(afd, 100) == 1) {
			n = read(afd, buf, sizeof(buf));
			if (n <= 0)
				break;
			got += (size_t)n;
		}
	}
	EXPECT_EQ((size_t)BULK, got)
		TH_LOG("%s: %zu of %d bytes in 60 s (MSS %d)", a2, got, BULK,
		       mss);
	close(afd);
	close(fd);
	close(lfd);
}

/*
 * esp over the guest's fabric NICs (eth1 and eth2 on one hub, when the
 * VM lane gives them: KAV_VM_FABRIC_NICS), one in each namespace: kav
 * sets the mark and routes again, the policy on that mark applies the
 * key's SA, real NIC drivers carry it. Skipped without them.
 */
TEST_F_TIMEOUT(wire, esp_fabric_nics, SLOW)
{
	if (access("/sys/class/net/eth1", F_OK) ||
	    access("/sys/class/net/eth2", F_OK))
		SKIP(return, "no fabric NICs eth1, eth2 (KAV_VM_FABRIC_NICS)");
	ASSERT_EQ(0, access(IP_BIN, X_OK));
	self->netns = true;
	ASSERT_EQ(0, kav_wire_set_mode(&self->nl, KAV_WIRE_ESP));
	ASSERT_EQ(0, add_netns(NS1));
	ASSERT_EQ(0, add_netns(NS2));
	ASSERT_EQ(0, ip("link set eth1 netns " NS1));
	ASSERT_EQ(0, ip("link set eth2 netns " NS2));
	ASSERT_EQ(0, ip("-n " NS1 " addr add 10.78.0.1/24 dev eth1"));
	ASSERT_EQ(0, ip("-n " NS2 " addr add 10.78.0.2/24 dev eth2"));
	ASSERT_EQ(0, ip("-n " NS1 " link set eth1 up"));
	ASSERT_EQ(0, ip("-n " NS2 " link set eth2 up"));
	ASSERT_EQ(0, kav_wire_net_add(&self->nl,
				      kav_wire_net_of("10.78.0.0", 24, 0, 0,
						      0)));
	ASSERT_EQ(0, ip("-n " NS1 " addr add fd78::1/64 dev eth1 nodad"));
	ASSERT_EQ(0, ip("-n " NS2 " addr add fd78::2/64 dev eth2 nodad"));
	ASSERT_EQ(0, kav_wire_net_add(&self->nl,
				      kav_wire_net_of("fd78::", 64, 0, 0, 0)));
	esp_bulk(_metadata, self, "10.78.0.1", "10.78.0.2");
	esp_bulk(_metadata, self, "fd78::1", "fd78::2");
	esp_case(_metadata, self, "10.78.0.1", "10.78.0.2", true);
	/* Back to the host: the namespaces' end would do it, later. */
	ip("-n " NS1 " link set eth1 netns 1");
	ip("-n " NS2 " link set eth2 netns 1");
}

/* ------------------------------------------------------ revocation */

/* Wait up to @ms for @fd's pending error: the errno, or 0. */
static int sock_error_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	double end = kav_now() + ms / 1000.0;
	socklen_t l = sizeof(int);
	char c;
	int err;

	while (kav_now() < end) {
		if (poll(&p, 1, 10) == 1 && (p.revents & (POLLERR | POLLHUP |
							 POLLIN))) {
			if (recv(fd, &c, 1, MSG_DONTWAIT) < 0 &&
			    errno != EAGAIN)
				return errno;
			err = 0;
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * An established TCP flow of key A on this node; GRANT_DEL revokes A: the
 * sender is aborted (ECONNABORTED at once: within 1 s here), by the
 * revocation's sweep or at its next segment, and its local peer hears
 * the reset (ECONNRESET) or its own abort.
 */
TEST_F_TIMEOUT(wire, revocation_aborts_tcp, SLOW)
{
	struct sockaddr_storage ss;
	socklen_t sl = sa_of("127.0.0.2", PORT, &ss);
	struct kav_wire_state before, after;
	uint32_t ga;
	int lfd, cfd, sfd, err;
	char buf[4];

	ga = grant_uid(_metadata, self, KEY_A, UID_A);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	lfd = listener(UID_A, SOCK_STREAM, "127.0.0.2", PORT);
	cfd = sock_as(UID_A, AF_INET, SOCK_STREAM, 0);
	ASSERT_LE(0, lfd);
	ASSERT_LE(0, cfd);
	ASSERT_EQ(0, connect(cfd, (struct sockaddr *)&ss, sl));
	ASSERT_EQ(1, readable(lfd, WAIT_MS));
	sfd = accept_as(UID_A, lfd);
	ASSERT_LE(0, sfd);
	ASSERT_EQ(4, send(cfd, "ping", 4, 0));
	ASSERT_EQ(1, readable(sfd, WAIT_MS));
	ASSERT_EQ(4, recv(sfd, buf, 4, 0));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &before));

	ungrant(self, ga);
	/*
	 * The next segment: refused at LOCAL_OUT, the sender aborted. The
	 * revocation's own sweep may have aborted both ends first: then
	 * the send itself returns the error (and sends nothing), and the
	 * peer hears its own abort rather than the reset.
	 */
	if (send(cfd, "pong", 4, MSG_NOSIGNAL) < 0)
		err = errno;
	else
		err = sock_error_within(cfd, 1000);
	EXPECT_EQ(ECONNABORTED, err);
	err = sock_error_within(sfd, 1000);
	EXPECT_TRUE(err == ECONNRESET || err == ECONNABORTED);
	ASSERT_EQ(0, kav_wire_get(&self->nl, &after));
	EXPECT_LE(before.aborts + 1, after.aborts);
	close(cfd);
	close(sfd);
	close(lfd);
}

/* A connected pair of UID @uid on 127.0.0.2:@port: *cfd, *sfd. */
static int tcp_pair(int uid, int port, int *cfd, int *sfd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sa_of("127.0.0.2", port, &ss);
	int lfd = listener(uid, SOCK_STREAM, "127.0.0.2", port);

	*cfd = sock_as(uid, AF_INET, SOCK_STREAM, 0);
	*sfd = -1;
	if (lfd >= 0 && *cfd >= 0 &&
	    !connect(*cfd, (struct sockaddr *)&ss, sl) &&
	    readable(lfd, WAIT_MS) == 1)
		*sfd = accept_as(uid, lfd);
	if (lfd >= 0)
		close(lfd);
	return *sfd >= 0 ? 0 : -1;
}

/*
 * Both ends of an aborted connection hear an error within 1 s, one of
 * them its own abort (the first abort's reset may reach the other end
 * before its own): true if so.
 */
static bool both_ends_aborted(int ca, int sa)
{
	int ea = sock_error_within(ca, 1000);
	int eb = sock_error_within(sa, 1000);

	return (ea == ECONNABORTED || ea == ECONNRESET) &&
	       (eb == ECONNABORTED || eb == ECONNRESET) &&
	       (ea == ECONNABORTED || eb == ECONNABORTED);
}

/*
 * Two idle flows, of key A and of key B; GRANT_DEL revokes A and nothing
 * is sent: both ends of A's flow hear an error within 1 s (the
 * revocation's sweep; the hooks alone abort only at a next packet, which
 * an idle receiver never sends), and B's flow still carries data.
 */
TEST_F_TIMEOUT(wire, revocation_aborts_idle_tcp, SLOW)
{
	struct kav_wire_state before, after;
	int ca, sa, cb, sb;
	uint32_t ga;
	char buf[4];

	ga = grant_uid(_metadata, self, KEY_A, UID_A);
	grant_uid(_metadata, self, KEY_B, UID_B);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	ASSERT_EQ(0, tcp_pair(UID_A, PORT, &ca, &sa));
	ASSERT_EQ(0, tcp_pair(UID_B, PORT + 1, &cb, &sb));
	ASSERT_EQ(4, send(ca, "ping", 4, 0));
	ASSERT_EQ(1, readable(sa, WAIT_MS));
	ASSERT_EQ(4, recv(sa, buf, 4, 0));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &before));

	ungrant(self, ga);
	EXPECT_TRUE(both_ends_aborted(ca, sa));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &after));
	EXPECT_LE(before.aborts + 1, after.aborts);
	/* Key B's flow is not touched. */
	EXPECT_EQ(0, sock_error_within(sb, 200));
	ASSERT_EQ(4, send(cb, "pong", 4, 0));
	ASSERT_EQ(1, readable(sb, WAIT_MS));
	EXPECT_EQ(4, recv(sb, buf, 4, 0));
	close(ca);
	close(sa);
	close(cb);
	close(sb);
}

/*
 * UDP, idle: key A's socket bound in scope waits for datagrams, and key
 * A's client is connected to it; key B's socket is bound in scope too.
 * GRANT_DEL revokes A and nothing is sent: both of A's sockets get
 * ECONNABORTED within 1 s (the revocation's sweep; without it a receiver
 * would wait for ever), counted as aborts; B's still receives.
 */
TEST_F_TIMEOUT(wire, revocation_aborts_udp, SLOW)
{
	struct sockaddr_storage ss;
	socklen_t sl = sa_of("127.0.0.2", PORT, &ss);
	struct kav_wire_state before, after;
	int ca, sa, cb, sb;
	uint32_t ga;
	char buf[4];

	ga = grant_uid(_metadata, self, KEY_A, UID_A);
	grant_uid(_metadata, self, KEY_B, UID_B);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	sa = listener(UID_A, SOCK_DGRAM, "127.0.0.2", PORT);
	ASSERT_LE(0, sa);
	ca = sock_as(UID_A, AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, ca);
	ASSERT_EQ(0, connect(ca, (struct sockaddr *)&ss, sl));
	sb = listener(UID_B, SOCK_DGRAM, "127.0.0.2", PORT + 1);
	ASSERT_LE(0, sb);
	ASSERT_EQ(4, send(ca, "ping", 4, 0));
	ASSERT_EQ(1, readable(sa, WAIT_MS));
	ASSERT_EQ(4, recv(sa, buf, 4, 0));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &before));

	ungrant(self, ga);
	EXPECT_EQ(ECONNABORTED, sock_error_within(sa, 1000));
	EXPECT_EQ(ECONNABORTED, sock_error_within(ca, 1000));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &after));
	EXPECT_LE(before.aborts + 2, after.aborts);
	/* Key B's socket is not touched, and still receives B's datagrams. */
	EXPECT_EQ(0, sock_error_within(sb, 200));
	cb = sock_as(UID_B, AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, cb);
	sl = sa_of("127.0.0.2", PORT + 1, &ss);
	ASSERT_EQ(4, sendto(cb, "pong", 4, 0, (struct sockaddr *)&ss, sl));
	ASSERT_EQ(1, readable(sb, WAIT_MS));
	EXPECT_EQ(4, recv(sb, buf, 4, 0));
	close(ca);
	close(sa);
	close(cb);
	close(sb);
}

/* An error pending on @fd (ECONNABORTED, ECONNRESET, ...), or 0. */
static int sock_pending_error(int fd)
{
	socklen_t l = sizeof(int);
	int err = 0;
	char c;

	if (recv(fd, &c, 1, MSG_DONTWAIT) < 0 && errno != EAGAIN)
		return errno;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l);
	return err;
}

#define MANY	300

/*
 * More idle connections of key A (300, 600 ends) than the hooks' abort
 * queue holds (256): GRANT_DEL's sweep aborts every one before it
 * returns, so each client end has its error (its own abort, or the
 * reset of its peer's).
 */
TEST_F_TIMEOUT(wire, revocation_aborts_many_tcp, SLOW)
{
	struct rlimit rl = { .rlim_cur = 4096, .rlim_max = 4096 };
	struct sockaddr_storage ss;
	socklen_t sl = sa_of("127.0.0.2", PORT, &ss);
	struct kav_wire_state before, after;
	static int c[MANY], a[MANY];
	int lfd, i, errs = 0, e;
	uint32_t ga;

	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	ga = grant_uid(_metadata, self, KEY_A, UID_A);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	lfd = listener(UID_A, SOCK_STREAM, "127.0.0.2", PORT);
	ASSERT_LE(0, lfd);
	for (i = 0; i < MANY; i++) {
		c[i] = sock_as(UID_A, AF_INET, SOCK_STREAM, 0);
		ASSERT_LE(0, c[i]);
		ASSERT_EQ(0, connect(c[i], (struct sockaddr *)&ss, sl));
		ASSERT_EQ(1, readable(lfd, WAIT_MS));
		a[i] = accept_as(UID_A, lfd);
		ASSERT_LE(0, a[i]);
	}
	close(lfd);
	ASSERT_EQ(0, kav_wire_get(&self->nl, &before));

	ungrant(self, ga);
	usleep(200000);		/* the resets, through the loopback */
	for (i = 0; i < MANY; i++) {
		e = sock_pending_error(c[i]);
		errs += e == ECONNABORTED || e == ECONNRESET;
	}
	EXPECT_EQ(MANY, errs);
	ASSERT_EQ(0, kav_wire_get(&self->nl, &after));
	EXPECT_LE(before.aborts + MANY, after.aborts);
	for (i = 0; i < MANY; i++) {
		close(c[i]);
		close(a[i]);
	}
}

/*
 * Key A's grant added again without the wire flag (GRANT_ADD of its key,
 * selector and tag updates it in place): the key leaves the wire as at
 * GRANT_DEL, and A's idle flow is swept at once; the grant stays.
 */
TEST_F_TIMEOUT(wire, unwired_grant_sweeps, SLOW)
{
	struct kav_grant_spec s = { .vni = KEY_A, .sel_type = KAV_SEL_UID,
				    .sel_id = UID_A };
	struct kav_wire_state before, after;
	struct kav_nl_grant g = { 0 };
	int ca, sa;
	uint32_t ga;

	ga = grant_uid(_metadata, self, KEY_A, UID_A);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	ASSERT_EQ(0, tcp_pair(UID_A, PORT, &ca, &sa));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &before));

	ASSERT_EQ(0, kav_nl_grant_add(&self->nl, &s, &g));
	EXPECT_EQ(ga, g.id);	/* the same grant, updated */
	EXPECT_TRUE(both_ends_aborted(ca, sa));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &after));
	EXPECT_LE(before.aborts + 1, after.aborts);
	close(ca);
	close(sa);
}

struct own_hash_pair {
	int ca, sa;
	long buckets;	/* the namespace's tcp_ehash_entries */
};

/* In the namespace: lo up, its hash's size, key A's idle pair. */
static int own_hash_pair_fn(void *arg)
{
	struct own_hash_pair *p = arg;
	FILE *f = fopen("/proc/sys/net/ipv4/tcp_ehash_entries", "r");

	if (!f || fscanf(f, "%ld", &p->buckets) != 1)
		p->buckets = 0;
	if (f)
		fclose(f);
	if (kav_wire_link_up("lo"))
		return -1;
	return tcp_pair(UID_A, PORT, &p->ca, &p->sa);
}

/*
 * A namespace with an established hash of its own (made while
 * net.ipv4.tcp_child_ehash_entries is set, 6.1 and later): the
 * revocation's sweep walks that hash too, batch by batch, and both ends
 * of key A's idle flow in it hear an error within 1 s.
 */
TEST_F_TIMEOUT(wire, revocation_sweeps_own_hash, SLOW)
{
	static const char child[] = "/proc/sys/net/ipv4/tcp_child_ehash_entries";
	struct own_hash_pair p = { .ca = -1, .sa = -1 };
	int ret;
	uint32_t ga;

	ga = grant_uid(_metadata, self, KEY_A, UID_A);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	ASSERT_EQ(0, kav_write_path(child, "4096"));
	self->netns = true;
	ret = add_netns(NS1);
	ASSERT_EQ(0, kav_write_path(child, "0"));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, in_netns(NS1, own_hash_pair_fn, &p));
	/* Positive: its own hash (negative: it shares init_net's). */
	ASSERT_EQ(4096, p.buckets);

	ungrant(self, ga);
	EXPECT_TRUE(both_ends_aborted(p.ca, p.sa));
	close(p.ca);
	close(p.sa);
}

/* In the namespace: lo up, its UDP table's size, key A's bound socket. */
static int own_udp_fn(void *arg)
{
	struct own_hash_pair *p = arg;
	FILE *f = fopen("/proc/sys/net/ipv4/udp_hash_entries", "r");

	if (!f || fscanf(f, "%ld", &p->buckets) != 1)
		p->buckets = 0;
	if (f)
		fclose(f);
	if (kav_wire_link_up("lo"))
		return -1;
	p->sa = listener(UID_A, SOCK_DGRAM, "127.0.0.2", PORT);
	return p->sa < 0 ? -1 : 0;
}

/*
 * The same for UDP: a namespace with a UDP table of its own (made while
 * net.ipv4.udp_child_hash_entries is set, 6.2 and later): the sweep
 * walks it too, and key A's socket bound in scope there gets
 * ECONNABORTED within 1 s.
 */
TEST_F_TIMEOUT(wire, revocation_sweeps_own_udp_table, SLOW)
{
	static const char child[] = "/proc/sys/net/ipv4/udp_child_hash_entries";
	struct own_hash_pair p = { .ca = -1, .sa = -1 };
	int ret;
	uint32_t ga;

	if (access(child, F_OK))
		SKIP(return, "no %s (before 6.2: one UDP table)", child);
	ga = grant_uid(_metadata, self, KEY_A, UID_A);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	ASSERT_EQ(0, kav_write_path(child, "256"));
	self->netns = true;
	ret = add_netns(NS1);
	ASSERT_EQ(0, kav_write_path(child, "0"));
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, in_netns(NS1, own_udp_fn, &p));
	/* Positive: its own table (negative: it shares init_net's). */
	ASSERT_EQ(256, p.buckets);

	ungrant(self, ga);
	EXPECT_EQ(ECONNABORTED, sock_error_within(p.sa, 1000));
	close(p.sa);
}

/*
 * The hooks' own abort, at a flow's next packet: key A's flow is out of
 * scope when A is revoked (the sweep leaves it), then the scope takes
 * it in. Its next segment is refused at LOCAL_OUT (a keyless sender),
 * the sender aborted, and the local peer hears the reset.
 */
TEST_F_TIMEOUT(wire, next_packet_aborts_tcp, SLOW)
{
	struct kav_wire_state before, after;
	int cfd, sfd, err;
	uint32_t ga;

	ga = grant_uid(_metadata, self, KEY_A, UID_A);
	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.9", 32));
	ASSERT_EQ(0, tcp_pair(UID_A, PORT, &cfd, &sfd));
	ungrant(self, ga);
	EXPECT_EQ(0, sock_error_within(cfd, 200));
	EXPECT_EQ(0, sock_error_within(sfd, 200));
	ASSERT_EQ(0, kav_wire_net_add(&self->nl,
				      kav_wire_net_of("127.0.0.2", 32, 0, 0, 0)));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &before));

	if (send(cfd, "pong", 4, MSG_NOSIGNAL) < 0)
		err = errno;
	else
		err = sock_error_within(cfd, 1000);
	EXPECT_EQ(ECONNABORTED, err);
	EXPECT_EQ(ECONNRESET, sock_error_within(sfd, 1000));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &after));
	EXPECT_LE(before.aborts + 1, after.aborts);
	EXPECT_LT(before.drops[KAV_WIRE_DROP_SENDER_NO_KEY],
		  after.drops[KAV_WIRE_DROP_SENDER_NO_KEY]);
	close(cfd);
	close(sfd);
}

/* ------------------------------------------------------------ races */

struct genl_racer {
	int fd;
	uint16_t family;
	int id, n, sent;
};

/* Requests on the one shared socket; replies are the reader's. */
static void *genl_racer(void *arg)
{
	struct genl_racer *r = arg;
	struct kav_nl_msg *m = malloc(sizeof(*m));
	struct kav_wire_net net = kav_wire_net_of("10.99.0.0", 24, 0, 0, 0);
	int i;

	if (!m)
		return NULL;
	net.addr[2] = (uint8_t)r->id;
	for (i = 0; i < r->n; i++) {
		switch (i % 4) {
		case 0:
			kav_nl_msg_init(m, r->family, NLM_F_ACK,
					KAV_GENL_CMD_WIRE_NET_ADD,
					KAV_GENL_VERSION);
			kav_nl_put(m, KAV_A_WIRE_NET, &net, sizeof(net));
			break;
		case 1:
			kav_nl_msg_init(m, r->family, NLM_F_ACK,
					KAV_GENL_CMD_WIRE_SET,
					KAV_GENL_VERSION);
			kav_nl_put_u32(m, KAV_A_WIRE_MODE, i % 8 == 1 ?
				       KAV_WIRE_FLOWLABEL : KAV_WIRE_OFF);
			break;
		case 2:
			kav_nl_msg_init(m, r->family, NLM_F_ACK,
					KAV_GENL_CMD_WIRE_GET,
					KAV_GENL_VERSION);
			break;
		default:
			kav_nl_msg_init(m, r->family, NLM_F_ACK,
					KAV_GENL_CMD_WIRE_NET_DEL,
					KAV_GENL_VERSION);
			kav_nl_put(m, KAV_A_WIRE_NET, &net, sizeof(net));
			break;
		}
		m->nlh.nlmsg_seq = (uint32_t)(r->id << 16 | i);
		if (send(r->fd, m->buf, m->nlh.nlmsg_len, 0) ==
		    (ssize_t)m->nlh.nlmsg_len)
			r->sent++;
	}
	free(m);
	return NULL;
}

#define RACERS		4
#define RACE_N		400

/*
 * Several threads on one genl socket: every request gets its one answer
 * (ack, error or WIRE_GET's reply then its ack), nothing crashes, and
 * the settings end consistent: each thread's net added and deleted.
 */
TEST_F_TIMEOUT(wire, race_genl_threads, SLOW)
{
	struct genl_racer r[RACERS];
	pthread_t t[RACERS];
	static char buf[KAV_NL_BUF];
	struct kav_wire_state st;
	int i, acks = 0, errors = 0, sent = 0, big = 1 << 22;

	ASSERT_EQ(0, setsockopt(self->nl.fd, SOL_SOCKET, SO_RCVBUFFORCE, &big,
				sizeof(big)));
	for (i = 0; i < RACERS; i++) {
		r[i] = (struct genl_racer){ .fd = self->nl.fd,
					    .family = self->nl.family,
					    .id = i + 1, .n = RACE_N };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, genl_racer, &r[i]));
	}
	for (i = 0; i < RACERS; i++) {
		pthread_join(t[i], NULL);
		sent += r[i].sent;
	}
	EXPECT_EQ(RACERS * RACE_N, sent);
	while (readable(self->nl.fd, 1000) == 1) {
		ssize_t n = recv(self->nl.fd, buf, sizeof(buf), MSG_DONTWAIT);
		const struct nlmsghdr *h = (const void *)buf;
		size_t left = n > 0 ? (size_t)n : 0;

		for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
			const struct nlmsgerr *e = NLMSG_DATA(h);

			if (h->nlmsg_type != NLMSG_ERROR)
				continue;
			acks++;
			/* Only a WIRE_NET_DEL that came first may fail. */
			if (e->error && e->error != -ENOENT &&
			    e->error != -EEXIST)
				errors++;
		}
	}
	EXPECT_EQ(sent, acks);
	EXPECT_EQ(0, errors);
	ASSERT_EQ(0, kav_wire_get(&self->nl, &st));
	EXPECT_EQ(0, st.nr_nets);
}

struct churn {
	struct kav_nl nl;
	uint32_t vni, uid;
	volatile bool stop;
	volatile int rounds;
};

/* Grant and revoke over and over while the traffic flows. */
static void *churn_thread(void *arg)
{
	struct churn *c = arg;
	uint32_t id;

	while (!c->stop) {
		if (kav_wire_grant_uid(&c->nl, c->vni, c->uid, &id))
			break;
		kav_nl_grant_del(&c->nl, id);
		c->rounds++;
	}
	return NULL;
}

/*
 * Grant add/del of the sender's and receiver's key while datagrams
 * flow: each send either passes (and arrives), is refused, or reports
 * the abort a revocation's sweep left on the socket (ECONNABORTED, once
 * per sweep); the counters move by no more than was sent, and nothing
 * crashes.
 */
TEST_F_TIMEOUT(wire, race_grant_churn_traffic, SLOW)
{
	struct churn c = { .vni = KEY_A, .uid = UID_A };
	struct kav_wire_state before, after;
	int lfd, fd, i, n, ok = 0, refused = 0, aborted = 0, arrived = 0;
	int big = 1 << 22, r;
	uint64_t drop_sum = 0;
	pthread_t t;

	ASSERT_EQ(0, scope_on(&self->nl, KAV_WIRE_FLOWLABEL, "127.0.0.2", 32));
	lfd = listener(UID_A, SOCK_DGRAM, "127.0.0.2", PORT);
	fd = sock_as(UID_A, AF_INET, SOCK_DGRAM, 0);
	ASSERT_LE(0, lfd);
	ASSERT_LE(0, fd);
	setsockopt(lfd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	ASSERT_EQ(0, kav_nl_open(&c.nl));
	ASSERT_EQ(0, kav_wire_get(&self->nl, &before));
	ASSERT_EQ(0, pthread_create(&t, NULL, churn_thread, &c));
	/* At least 2000 sends, and across 20 rounds of churn (bounded). */
	for (i = 0; i < 2000 || (c.rounds < 20 && i < 50000); i++) {
		r = send_to(fd, "127.0.0.2", PORT, 4);

		if (!r)
			ok++;
		else if (r == ECONNREFUSED)
			refused++;
		else if (r == ECONNABORTED)
			aborted++;
		while (got_len_past_abort(lfd, 4, 0))
			arrived++;
	}
	n = i;
	c.stop = true;
	pthread_join(t, NULL);
	while (got_len_past_abort(lfd, 4, NONE_MS))
		arrived++;
	kav_nl_close(&c.nl);
	ASSERT_EQ(0, kav_wire_get(&self->nl, &after));
	TH_LOG("%d rounds of grant churn; %d sent, %d refused, %d aborted",
	       c.rounds, ok, refused, aborted);
	EXPECT_EQ(n, ok + refused + aborted);
	EXPECT_EQ(ok, arrived);
	EXPECT_LT(0, c.rounds);
	for (i = 0; i < KAV_WIRE_DROP_NR; i++)
		drop_sum += after.drops[i] - before.drops[i];
	EXPECT_EQ((uint64_t)refused, drop_sum);
	EXPECT_EQ((uint64_t)ok, after.passed - before.passed);
	/* Granted again, it passes (past an abort the last sweep left). */
	grant_uid(_metadata, self, KEY_A, UID_A);
	r = send_to(fd, "127.0.0.2", PORT, 4);
	if (r == ECONNABORTED)
		r = send_to(fd, "127.0.0.2", PORT, 4);
	EXPECT_EQ(0, r);
	EXPECT_EQ(1, got_len_past_abort(lfd, 4, WAIT_MS));
	close(fd);
	close(lfd);
}

TEST_HARNESS_MAIN
