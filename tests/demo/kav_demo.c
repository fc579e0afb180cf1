// SPDX-License-Identifier: GPL-2.0
/*
 * kav demo: an address vector held by the kernel, filled through libkav,
 * and read by a second process from its own read-only mapping of the
 * table, with no system call per lookup. Prints what happens in plain
 * words; exits non-zero if anything does not behave as described.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <kav/kav.h>
#include <linux/kav.h>

#define N 4

static void die(const char *what, int err)
{
	printf("FAILED: %s: %s\n", what, err < 0 ? kav_strerror(err) :
	       strerror(err));
	exit(1);
}

static void send_fd(int sock, int fd)
{
	char byte = 'F', cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		die("sendmsg", errno);
}

static int recv_fd(int sock)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		die("recvmsg", errno);
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		die("no descriptor received", EINVAL);
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* One step of the conversation: a byte each way. */
static char step(int sock, char cmd)
{
	fflush(stdout);
	if (write(sock, &cmd, 1) != 1 || read(sock, &cmd, 1) != 1)
		die("talking to the reader", errno);
	return cmd;
}

/*
 * The reader's side of the table protocol (uapi/linux/kav.h): bound the
 * index by nr_slots, then copy the entry between two equal, even reads
 * of its sequence counter.
 */
static int read_entry(const struct kav_table_header *h, uint64_t idx,
		      struct sockaddr_in *out)
{
	const struct kav_entry *e;
	uint64_t seq;
	uint32_t flags;

	if (idx >= __atomic_load_n(&h->nr_slots, __ATOMIC_ACQUIRE))
		return -1;
	e = (const void *)((const char *)h + h->header_size +
			   idx * h->entry_size);
	do {
		seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
		flags = e->flags;
		memcpy(out, e->addr, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while ((seq & 1) || seq != __atomic_load_n(&e->seq,
						     __ATOMIC_RELAXED));
	return (flags & KAV_ENTRY_VALID) ? 0 : -1;
}

static void show_entry(const struct kav_table_header *h, uint64_t idx)
{
	struct sockaddr_in s;
	char ip[INET_ADDRSTRLEN];

	if (read_entry(h, idx, &s))
		printf("   [reader] fi_addr %llu -> (no address: removed)\n",
		       (unsigned long long)idx);
	else
		printf("   [reader] fi_addr %llu -> %s:%u\n",
		       (unsigned long long)idx,
		       inet_ntop(AF_INET, &s.sin_addr, ip, sizeof(ip)),
		       ntohs(s.sin_port));
}

static int reader(int sock)
{
	const struct kav_table_header *h;
	int fd = recv_fd(sock);
	size_t size;
	char cmd;
	void *w;

	h = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		 fd, 0);
	if (h == MAP_FAILED)
		die("reader: mmap header", errno);
	size = h->map_size;
	munmap((void *)h, (size_t)sysconf(_SC_PAGESIZE));
	h = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		die("reader: mmap table", errno);
	printf("   [reader] pid %d mapped the table read-only: %llu valid entries, %llu KiB of address space reserved, pages appear as the table grows\n",
	       getpid(), (unsigned long long)h->nr_valid,
	       (unsigned long long)size / 1024);
	for (uint64_t i = 0; i < N; i++)
		show_entry(h, i);
	w = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	printf("   [reader] asked for a writable mapping: %s\n",
	       w == MAP_FAILED ? strerror(errno) : "GRANTED (wrong!)");
	if (w != MAP_FAILED)
		return 1;
	if (mprotect((void *)h, size, PROT_READ | PROT_WRITE) == 0) {
		printf("   [reader] mprotect() added write (wrong!)\n");
		return 1;
	}
	printf("   [reader] asked mprotect() to add write: %s\n",
	       strerror(errno));
	fflush(stdout);
	cmd = 'r';
	if (write(sock, &cmd, 1) != 1)
		return 1;
	/* Each further byte asks to show one entry again. */
	while (read(sock, &cmd, 1) == 1) {
		show_entry(h, (uint64_t)(cmd - '0'));
		fflush(stdout);
		if (write(sock, &cmd, 1) != 1)
			return 1;
	}
	return 0;
}

/*
 * kav refuses entries bound to no auth key unless the administrator
 * allows them; the demo (run as root in its VM) does, and says so.
 */
static void allow_keyless(void)
{
	FILE *f = fopen("/sys/module/kav/parameters/allow_keyless", "w");

	if (!f || fputs("1\n", f) < 0 || fclose(f))
		die("enabling keyless entries (run as root)", errno);
	printf("0. As the administrator, allowed entries without an auth key (allow_keyless=1).\n");
}

int main(int argc, char **argv)
{
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { .addr_format = FI_SOCKADDR_IN,
				.domain_attr = &dattr };
	struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 64 };
	struct sockaddr_in s[N], extra;
	struct fid_domain *dom;
	struct fid_av *av;
	fi_addr_t fi[N], one;
	int sv[2], ret, status, i;
	char buf[64], sock_arg[16];
	size_t len;
	pid_t pid;

	if (argc == 3 && !strcmp(argv[1], "--reader"))
		return reader(atoi(argv[2]));

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("kav demo: an address vector kept by the kernel, read by another process\n\n");
	allow_keyless();
	ret = kav_domain_open(&info, &dom, NULL);
	if (ret)
		die("kav_domain_open", ret);
	printf("1. kav_domain_open() opened /dev/kav: a domain; the kernel recorded who we are.\n");
	ret = fi_av_open(dom, &attr, &av, NULL);
	if (ret)
		die("fi_av_open", ret);
	printf("2. fi_av_open() created an FI_AV_TABLE address vector; its table lives in kernel memory.\n");

	for (i = 0; i < N; i++) {
		s[i].sin_family = AF_INET;
		s[i].sin_port = htons(5000 + i);
		s[i].sin_addr.s_addr = htonl(0x0a000001 + i);
	}
	ret = fi_av_insert(av, s, N, fi, 0, NULL);
	if (ret != N)
		die("fi_av_insert", ret < 0 ? ret : EIO);
	printf("3. fi_av_insert() added %d IPv4 addresses in one call (one ioctl):\n", N);
	for (i = 0; i < N; i++) {
		len = sizeof(buf);
		printf("     fi_addr %llu -> %s\n", (unsigned long long)fi[i],
		       fi_av_straddr(av, &s[i], buf, &len));
	}

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("socketpair", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (pid == 0) {
		close(sv[0]);
		snprintf(sock_arg, sizeof(sock_arg), "%d", sv[1]);
		execl("/proc/self/exe", argv[0], "--reader", sock_arg,
		      (char *)NULL);
		die("exec reader", errno);
	}
	close(sv[1]);
	printf("4. Started a second process (pid %d) and passed it the AV's file descriptor:\n",
	       (int)pid);
	fflush(stdout);
	send_fd(sv[0], kav_av_fd(av));
	if (read(sv[0], buf, 1) != 1)
		die("reader did not answer", EIO);

	ret = fi_av_remove(av, &fi[1], 1, 0);
	if (ret)
		die("fi_av_remove", ret);
	printf("5. fi_av_remove() removed fi_addr 1; the reader sees it at once:\n");
	step(sv[0], '1');

	extra = s[0];
	extra.sin_addr.s_addr = htonl(0x0a000063);
	extra.sin_port = htons(6000);
	ret = fi_av_insert(av, &extra, 1, &one, 0, NULL);
	if (ret != 1 || one != 1)
		die("re-insert into the hole", ret < 0 ? ret : EIO);
	printf("6. fi_av_insert() of 10.0.0.99:6000 took the lowest free index, fi_addr %llu:\n",
	       (unsigned long long)one);
	step(sv[0], '1');

	close(sv[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		die("the reader saw something wrong", EIO);
	ret = fi_close(&av->fid);
	if (!ret)
		ret = fi_close(&dom->fid);
	if (ret)
		die("fi_close", ret);
	printf("7. Closed the AV and the domain. The demo worked.\n");
	return 0;
}
