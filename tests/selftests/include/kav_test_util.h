/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the kav selftests: raw uAPI calls through /dev/kav,
 * with no library in between, so each test sees exactly what the kernel
 * returns.
 */
#ifndef KAV_TEST_UTIL_H
#define KAV_TEST_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/kav.h>

/*
 * These programs test the AV mechanics, mostly with entries bound to no
 * auth key, which kav refuses unless the administrator allows it
 * (allow_keyless, off by default; kav_attack_test tests that default).
 * As root in the test VM, allow it before any test runs.
 */
__attribute__((constructor)) static void kav_test_allow_keyless(void)
{
	int fd = open("/sys/module/kav/parameters/allow_keyless", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror("kav tests: allow_keyless");
		close(fd);
	}
}

static inline const char *kav_test_device(void)
{
	const char *dev = getenv("KAV_DEVICE");

	return dev ? dev : "/dev/kav";
}

/* Unloads kav.ko (without waiting for its users): 0 or -errno. */
static inline int kav_module_unload(void)
{
	return syscall(SYS_delete_module, "kav", O_NONBLOCK) ? -errno : 0;
}

/* Loads kav.ko from $KAV_MODULE (default /kav.ko), no parameters. */
static inline int kav_module_load(void)
{
	const char *path = getenv("KAV_MODULE");
	int fd, ret;

	fd = open(path ? path : "/kav.ko", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* devtmpfs creates the node asynchronously after a load. 0 or -1. */
static inline int kav_wait_for_device(void)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (access(kav_test_device(), F_OK) == 0)
			return 0;
		usleep(10000);
	}
	return -1;
}

static inline int kav_open_domain(void)
{
	return open(kav_test_device(), O_RDWR | O_CLOEXEC);
}

/* Returns the AV fd, or -errno. @out may be NULL. */
static inline int kav_create_av(int dom, uint32_t format,
				struct kav_av_create *out)
{
	struct kav_av_create c = {
		.size = sizeof(c),
		.addr_format = format,
	};

	int ret = ioctl(dom, KAV_IOC_AV_CREATE, &c) ? -errno : 0;

	if (out)		/* the reply, or the request on failure */
		*out = c;
	return ret ? ret : c.fd;
}

static inline struct sockaddr_in kav_sin(uint32_t host, uint16_t port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(host),
	};

	return sin;
}

/* Insert @count sockaddr_in; returns 0 or -errno. */
static inline int kav_insert_in(int av, const struct sockaddr_in *sin,
				uint32_t count, uint64_t *fi_addrs,
				uint32_t *err_index)
{
	struct kav_av_insert in = {
		.size = sizeof(in),
		.count = count,
		.addr_stride = sizeof(*sin),
		.addrs = (uintptr_t)sin,
		.fi_addrs = (uintptr_t)fi_addrs,
		.err_index = KAV_NO_INDEX,
	};
	int ret = ioctl(av, KAV_IOC_AV_INSERT, &in) ? -errno : 0;

	if (err_index)
		*err_index = in.err_index;
	return ret;
}

static inline int kav_remove(int av, const uint64_t *fi_addrs,
			     uint32_t count, uint32_t *err_index)
{
	struct kav_av_remove rm = {
		.size = sizeof(rm),
		.count = count,
		.fi_addrs = (uintptr_t)fi_addrs,
		.err_index = KAV_NO_INDEX,
	};
	int ret = ioctl(av, KAV_IOC_AV_REMOVE, &rm) ? -errno : 0;

	if (err_index)
		*err_index = rm.err_index;
	return ret;
}

static inline const volatile struct kav_table_header *
kav_map_header(int av)
{
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ,
		       MAP_SHARED, av, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Monotonic seconds, for the figures tests print (never for verdicts). */
static inline double kav_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define KAV_PARAM_MAX_ENTRIES	"/sys/module/kav/parameters/max_entries"

/* The max_entries module parameter; 0 if it cannot be read. */
static inline uint64_t kav_param_max_entries(void)
{
	FILE *f = fopen(KAV_PARAM_MAX_ENTRIES, "r");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static inline int kav_set_param_max_entries(uint64_t v)
{
	FILE *f = fopen(KAV_PARAM_MAX_ENTRIES, "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%llu\n", (unsigned long long)v) > 0;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* read() or write() exactly @len bytes (pipes between test processes). */
static inline int kav_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static inline int kav_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Entry @idx and the fi_addr array of a mapped table (no bounds check). */
static inline const struct kav_entry *
kav_table_entry_of(const struct kav_table_header *h, uint64_t idx)
{
	return (const void *)((const char *)h + h->header_size +
			      idx * h->entry_size);
}

/* NULL for a table without one (a job table: fi_addrs_offset 0). */
static inline const __u64 *kav_table_fi_addrs_of(const struct kav_table_header *h)
{
	if (!h->fi_addrs_offset)
		return NULL;
	return (const void *)((const char *)h + h->fi_addrs_offset);
}

/*
 * KAV_IOC_AV_CREATE of the named AV @name (flags KAV_AV_NAMED | @flags),
 * in the names of @owner_uid when @flags has KAV_AV_OWNER: the fd or
 * -errno; @out (may be NULL) gets the reply.
 */
static inline int kav_av_named(int dom, const char *name, uint32_t flags,
			       uint32_t mode, uint32_t owner_uid,
			       uint32_t format, struct kav_av_create *out)
{
	struct kav_av_create c = {
		.size = sizeof(c),
		.flags = KAV_AV_NAMED | flags,
		.addr_format = format,
		.name = (uintptr_t)name,
		.name_len = (uint32_t)strlen(name),
		.mode = mode,
		.owner_uid = owner_uid,
	};

	int ret = ioctl(dom, KAV_IOC_AV_CREATE, &c) ? -errno : 0;

	if (out)		/* the reply, or the request on failure */
		*out = c;
	return ret ? ret : c.fd;
}

/* Write @text to @path in one write(): 0 or -errno. */
static inline int kav_write_path(const char *path, const char *text)
{
	ssize_t len = (ssize_t)strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * What uses key slot @handle of a mapped table: its entry and endpoint
 * counts (struct kav_key_count, apart from the slot since version 3).
 */
static inline const volatile struct kav_key_count *
kav_uses(const volatile struct kav_table_header *h, uint64_t handle)
{
	return (const volatile void *)((const volatile char *)h +
				       h->key_counts_offset +
				       handle * sizeof(struct kav_key_count));
}

/*
 * The errno an executable mapping (mmap with PROT_EXEC) of a kav file
 * must fail with. kav's .mmap refuses it with EACCES; but since Linux 6.16
 * the anon-inode file system that AV fds live on is noexec, and do_mmap()
 * refuses first with EPERM (kav's check is then never reached). Probed,
 * not guessed from the version: do_mmap() checks noexec before it looks
 * for an .mmap, so mapping an eventfd (an anon-inode file without .mmap)
 * executable fails with EPERM on a noexec anon-inode file system and with
 * ENODEV otherwise. Anything else (e.g. an LSM's refusal) gives 0, which
 * no errno equals, so the caller's check fails and says so.
 * mprotect(PROT_EXEC) fails with EACCES either way: without VM_MAYEXEC,
 * which kav and the noexec path both clear.
 */
static inline int kav_exec_map_errno(void)
{
	int fd = eventfd(0, EFD_CLOEXEC), err;
	void *p;

	if (fd < 0)
		return 0;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	err = p == MAP_FAILED ? errno : 0;
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(fd);
	if (err == EPERM)
		return EPERM;
	return err == ENODEV ? EACCES : 0;
}

/*
 * Is the running kernel at least @major.@minor (uname's release)? Only to
 * cross-check a probe on Debian's kernels, whose versions say what they
 * contain (a distribution's backport could make a version lie).
 */
static inline int kav_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return -1;
	return ma > major || (ma == major && mi >= minor);
}

#endif /* KAV_TEST_UTIL_H */
