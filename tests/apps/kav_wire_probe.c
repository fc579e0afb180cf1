// SPDX-License-Identifier: GPL-2.0
/*
 * kav_wire_probe: plain TCP and UDP between the cluster's nodes, as a
 * program that skips libfabric would send it, for the cluster test's
 * kav-wire phase (lanes/cluster/node/wire.sh). No libkav: whether a
 * packet passes is kav-wire's decision alone.
 *
 *   kav_wire_probe serve PORT SECONDS   TCP and UDP on PORT (any address)
 *   kav_wire_probe tcp HOST PORT        connect, one line echoed
 *   kav_wire_probe udp HOST PORT        one datagram echoed
 *   kav_wire_probe stream HOST PORT SECONDS
 *                                       connect and send until an error
 *
 * serve prints "@@serving PORT" once it listens, "@@forged-delivered" for
 * each datagram of kav_wire_forge it receives, echoes each datagram and
 * each connection's bytes (a connection whose first byte is 'S' is a
 * stream: read and dropped), and prints "@@serve-error ERRNO-NAME T" when
 * a stream's read fails, T the CLOCK_REALTIME of the failure (seconds
 * with nanoseconds), for the revocation's timing. stream prints
 * "@@streaming" after its first MiB and "@@stream-error ERRNO-NAME T" when
 * a send fails. tcp and udp print "@@tcp ok" or "@@tcp refused ERRNO-NAME"
 * (udp: "@@udp ...", "no-answer" after 3 tries of 1 s). Exit status 0
 * when the probe got through (stream: when it was stopped by an error),
 * 1 when it did not, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void stamp(const char *what, int err)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	printf("@@%s %s %lld.%09ld\n", what, strerrorname_np(err) ?: "?",
	       (long long)ts.tv_sec, ts.tv_nsec);
	fflush(stdout);
}

static int resolve(const char *host, const char *port, int type,
		   struct addrinfo **res)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = type };
	int ret = getaddrinfo(host, port, &hints, res);

	if (ret)
		fprintf(stderr, "kav_wire_probe: %s: %s\n", host, gai_strerror(ret));
	return ret ? -1 : 0;
}

/* A TCP connection to HOST:PORT within 5 s: the socket, or -errno. */
static int tcp_connect(const char *host, const char *port)
{
	struct pollfd p = { .events = POLLOUT };
	struct addrinfo *ai;
	socklen_t len = sizeof(int);
	int fd, err = 0;

	if (resolve(host, port, SOCK_STREAM, &ai))
		return -EHOSTUNREACH;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		err = errno;
		freeaddrinfo(ai);
		return -err;
	}
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS)
		err = errno;
	freeaddrinfo(ai);
	p.fd = fd;
	if (!err && poll(&p, 1, 5000) != 1)
		err = ETIMEDOUT;
	if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	if (err) {
		close(fd);
		return -err;
	}
	fcntl(fd, F_SETFL, 0);
	return fd;
}

static int probe_tcp(const char *host, const char *port)
{
	struct timeval tv = { .tv_sec = 5 };
	char buf[16];
	int fd = tcp_connect(host, port), err = 0;
	ssize_t n;

	if (fd < 0) {
		err = -fd;
	} else {
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (write(fd, "kav-wire\n", 9) != 9)
			err = errno;
		else if ((n = read(fd, buf, sizeof(buf))) != 9)
			err = n < 0 ? errno : ECONNRESET;
		close(fd);
	}
	if (!err) {
		printf("@@tcp ok\n");
		return 0;
	}
	printf("@@tcp refused %s\n", strerrorname_np(err) ?: "?");
	return 1;
}

static int probe_udp(const char *host, const char *port)
{
	struct timeval tv = { .tv_sec = 1 };
	struct addrinfo *ai;
	char buf[16];
	int fd, i, err = ETIMEDOUT;

	if (resolve(host, port, SOCK_DGRAM, &ai))
		return 1;
	fd = socket(ai->ai_family, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		perror("kav_wire_probe: udp socket");
		freeaddrinfo(ai);
		return 1;
	}
	freeaddrinfo(ai);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (i = 0; i < 3; i++) {
		if (send(fd, "kav-wire", 8, 0) != 8) {
			err = errno;
			continue;
		}
		if (recv(fd, buf, sizeof(buf), 0) == 8) {
			printf("@@udp ok\n");
			close(fd);
			return 0;
		}
		err = errno == EAGAIN ? ETIMEDOUT : errno;
	}
	close(fd);
	if (err == ETIMEDOUT)
		printf("@@udp refused no-answer\n");
	else
		printf("@@udp refused %s\n", strerrorname_np(err) ?: "?");
	return 1;
}

static int probe_stream(const char *host, const char *port, int secs)
{
	static char chunk[65536];
	time_t end = time(NULL) + secs;
	size_t sent = 0;
	bool said = false;
	int fd = tcp_connect(host, port);

	if (fd < 0) {
		stamp("stream-error", -fd);
		return 1;
	}
	chunk[0] = 'S';
	signal(SIGPIPE, SIG_IGN);
	while (time(NULL) < end) {
		ssize_t n = write(fd, chunk, sizeof(chunk));

		if (n < 0) {
			stamp("stream-error", errno);
			close(fd);
			return 0;
		}
		sent += (size_t)n;
		chunk[0] = 0;
		if (!said && sent >= 1 << 20) {
			printf("@@streaming\n");
			fflush(stdout);
			said = true;
		}
	}
	printf("@@stream-end %zu bytes, no error\n", sent);
	close(fd);
	return 1;
}

/* One accepted connection, in a child of serve. */
static void serve_conn(int fd)
{
	char buf[65536];
	bool sink = false, first = true;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (sink)
				stamp("serve-error", errno);
			_exit(0);
		}
		if (!n)
			_exit(0);
		if (first && buf[0] == 'S')
			sink = true;
		first = false;
		if (!sink && write(fd, buf, (size_t)n) != n)
			_exit(0);
	}
}

static int serve(const char *port, int secs)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6,
				  .sin6_port = htons((uint16_t)atoi(port)) };
	struct pollfd p[2];
	time_t end = time(NULL) + secs;
	int one = 1, l, u;

	l = socket(AF_INET6, SOCK_STREAM, 0);
	u = socket(AF_INET6, SOCK_DGRAM, 0);
	if (l < 0 || u < 0 ||
	    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 16) ||
	    bind(u, (struct sockaddr *)&a, sizeof(a))) {
		perror("kav_wire_probe: serve");
		return 1;
	}
	signal(SIGCHLD, SIG_IGN);
	printf("@@serving %s\n", port);
	fflush(stdout);
	p[0] = (struct pollfd){ .fd = l, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = u, .events = POLLIN };
	while (time(NULL) < end) {
		if (poll(p, 2, 1000) <= 0)
			continue;
		if (p[0].revents & POLLIN) {
			int c = accept(l, NULL, NULL);

			if (c >= 0 && fork() == 0) {
				close(l);
				close(u);
				serve_conn(c);
			}
			if (c >= 0)
				close(c);
		}
		if (p[1].revents & POLLIN) {
			struct sockaddr_storage from;
			socklen_t flen = sizeof(from);
			char buf[2048];
			ssize_t n = recvfrom(u, buf, sizeof(buf), 0,
					     (struct sockaddr *)&from, &flen);

			/* kav_wire_forge's datagrams must never get here */
			if (n >= 10 && !memcmp(buf, "kav-forged", 10)) {
				printf("@@forged-delivered\n");
				fflush(stdout);
			}
			if (n > 0)
				sendto(u, buf, (size_t)n, 0,
				       (struct sockaddr *)&from, flen);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "serve"))
		return serve(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "tcp"))
		return probe_tcp(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "udp"))
		return probe_udp(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "stream"))
		return probe_stream(argv[2], argv[3], atoi(argv[4]));
	fprintf(stderr, "usage: kav_wire_probe serve PORT SECONDS | tcp HOST PORT | udp HOST PORT | stream HOST PORT SECONDS\n");
	return 2;
}
