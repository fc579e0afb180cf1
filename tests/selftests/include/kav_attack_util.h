/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the tests that play tenants against each other
 * (kav_attack_test, kav_netlink_test, kav_slurm_test): run code in a
 * child process under another identity, synchronise with it, a libkav
 * domain opened with a key, raw key and insert ioctls, the
 * key slots of a mapped table, cgroups, the allow_keyless parameter and
 * the kav_nic test module (tests/doubles/nic), which "sends" through kav's
 * in-kernel consumer API. Also used by kav_trust_test.
 *
 * Children report through their exit status: CK() prints the failed
 * condition with its location and makes the child function return 1.
 */
#ifndef KAV_ATTACK_UTIL_H
#define KAV_ATTACK_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <kav/kav.h>
#include <unistd.h>
#include <linux/kav.h>
#include "kav_nic.h"
#include "kav_test_util.h"

/* ---------------------------------------------------------- children */

/* In a child function: fail (return 1) with a message if @c is false. */
#define CK(c) do {							\
	if (!(c)) {							\
		fprintf(stderr, "# %s:%d: [pid %d uid %d] check failed: %s" \
			" (errno %d: %s)\n", __FILE__, __LINE__,	\
			(int)getpid(), (int)geteuid(), #c, errno,	\
			strerror(errno));				\
		return 1;						\
	}								\
} while (0)

/* The same, showing both values (long long). */
#define CK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
	if (_a != _b) {							\
		fprintf(stderr, "# %s:%d: [pid %d uid %d] check failed: " \
			"%s == %s (%lld != %lld)\n", __FILE__, __LINE__, \
			(int)getpid(), (int)geteuid(), #a, #b, _a, _b);	\
		return 1;						\
	}								\
} while (0)

/* Drop to @uid/@gid with supplementary @groups (may be NULL, 0). */
static inline int kav_become(uid_t uid, gid_t gid, size_t ngroups,
			     const gid_t *groups)
{
	if (setgroups(ngroups, groups) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

/* Fork; the child runs @fn(@arg) and exits with its return value. */
static inline pid_t kav_spawn(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		fflush(stdout);
		_exit(fn(arg) & 0xff);
	}
	return pid;
}

/* Reap @pid: its exit status, or 128 + signal, or -1. */
static inline int kav_reap(pid_t pid)
{
	int status;

	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/* Run @fn(@arg) in a child as uid/gid @id (groups: none) and reap it. */
struct kav_as_arg {
	uid_t uid;
	gid_t gid;
	int (*fn)(void *);
	void *arg;
};

static inline int kav_as_trampoline(void *p)
{
	struct kav_as_arg *a = p;

	if (kav_become(a->uid, a->gid, 0, NULL)) {
		fprintf(stderr, "# cannot become uid %d: %s\n", (int)a->uid,
			strerror(errno));
		return 99;
	}
	return a->fn(a->arg);
}

static inline int kav_run_as(uid_t uid, int (*fn)(void *), void *arg)
{
	struct kav_as_arg a = { uid, uid, fn, arg };

	return kav_reap(kav_spawn(kav_as_trampoline, &a));
}

/* Decode a wait status as kav_reap() does. */
static inline int kav_wait_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/*
 * Reap @pid if it ends within @ms: as kav_reap(), or -ETIMEDOUT (then it
 * is left alone: a task stuck in the kernel cannot be killed anyway).
 */
static inline int kav_reap_timeout(pid_t pid, int ms)
{
	int status, i;
	pid_t r;

	if (pid < 0)
		return -1;
	for (i = 0; i <= ms / 10; i++) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return kav_wait_status(status);
		if (r < 0 && errno != EINTR)
			return -1;
		usleep(10000);
	}
	return -ETIMEDOUT;
}

/* A pair of pipes to step a child and its parent through a script. */
struct kav_sync {
	int to_child[2];
	int to_parent[2];
};

static inline int kav_sync_init(struct kav_sync *s)
{
	if (pipe2(s->to_child, O_CLOEXEC))
		return -errno;
	if (pipe2(s->to_parent, O_CLOEXEC))
		return -errno;
	return 0;
}

static inline void kav_sync_close(struct kav_sync *s)
{
	close(s->to_child[0]);
	close(s->to_child[1]);
	close(s->to_parent[0]);
	close(s->to_parent[1]);
}

/* Send one byte (a step number) the other way; 0 or -1. */
static inline int kav_sync_send(int fd, char step)
{
	return write(fd, &step, 1) == 1 ? 0 : -1;
}

/* The longest a step waits for the other side (TCG is slow). */
#define KAV_SYNC_TIMEOUT_MS	90000

/*
 * Wait for one byte; returns it, or -1: the other side went away or said
 * nothing for KAV_SYNC_TIMEOUT_MS (both ends of each pipe stay open in
 * both processes, so a failed peer shows up as silence, not EOF).
 */
static inline int kav_sync_recv(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;
	char c;
	int r;

	do {
		r = poll(&p, 1, KAV_SYNC_TIMEOUT_MS);
	} while (r < 0 && errno == EINTR);
	if (r != 1)
		return -1;
	do {
		n = read(fd, &c, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? c : -1;
}

#define kav_tell_parent(s, c)	kav_sync_send((s)->to_parent[1], (c))
#define kav_wait_parent(s)	kav_sync_recv((s)->to_child[0])
#define kav_tell_child(s, c)	kav_sync_send((s)->to_child[1], (c))
#define kav_wait_child(s)	kav_sync_recv((s)->to_parent[0])

/*
 * Wait up to @ms for child @pid's next step: the byte it sent, or -1 if
 * it ended first (it is reaped, *@rc as kav_reap()) or said nothing in
 * time (*@rc = -ETIMEDOUT, not reaped). A child that fails a CK() thus
 * costs no KAV_SYNC_TIMEOUT_MS.
 */
static inline int kav_wait_child_step(struct kav_sync *s, pid_t pid, int ms,
				      int *rc)
{
	struct pollfd p = { .fd = s->to_parent[0], .events = POLLIN };
	int status, i;
	char c;

	*rc = -ETIMEDOUT;
	for (i = 0; i <= ms / 100; i++) {
		if (poll(&p, 1, 100) == 1) {
			if (read(p.fd, &c, 1) == 1)
				return c;
			*rc = -EIO;
			return -1;
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			/* It may have said something just before. */
			if (poll(&p, 1, 0) == 1 && read(p.fd, &c, 1) == 1) {
				*rc = kav_wait_status(status);
				return c;
			}
			*rc = kav_wait_status(status);
			return -1;
		}
	}
	return -1;
}

/* Memory shared by a test and the children it forks. */
static inline void *kav_shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* ------------------------------------------------------------ ioctls */

static inline int kav_domain_set_key(int dom, uint32_t vni)
{
	struct kav_domain_key k = { .size = sizeof(k), .key.vni = vni };

	return ioctl(dom, KAV_IOC_DOMAIN_SET_KEY, &k) ? -errno : 0;
}

static inline int kav_key_insert(int av, uint32_t vni, uint64_t *handle)
{
	struct kav_av_key k = { .size = sizeof(k), .key.vni = vni,
				.handle = ~0ULL };
	int ret = ioctl(av, KAV_IOC_AV_KEY_INSERT, &k) ? -errno : 0;

	if (handle)
		*handle = k.handle;
	return ret;
}

static inline int kav_key_remove(int av, uint64_t handle)
{
	struct kav_av_key k = { .size = sizeof(k), .handle = handle };

	return ioctl(av, KAV_IOC_AV_KEY_REMOVE, &k) ? -errno : 0;
}

/* KAV_IOC_AV_EP_OPEN: an endpoint fd or -errno. */
static inline int kav_av_ep_open(int av)
{
	struct kav_av_ep_open e = { .size = sizeof(e), .fd = -1 };

	return ioctl(av, KAV_IOC_AV_EP_OPEN, &e) ? -errno : e.fd;
}

/* KAV_IOC_EP_ENABLE; @keys (may be NULL) gets the key bitmap. */
static inline int kav_av_ep_enable(int ep, uint64_t *keys)
{
	struct kav_ep_enable e = { .size = sizeof(e) };
	int ret = ioctl(ep, KAV_IOC_EP_ENABLE, &e) ? -errno : 0;

	if (keys)
		*keys = e.keys;
	return ret;
}

/* Insert @n addresses of any format, @stride bytes apart, no keys. */
static inline int kav_insert_stride(int av, const void *addrs,
				    uint32_t stride, uint32_t n,
				    uint64_t *fi, uint32_t *err)
{
	struct kav_av_insert in = {
		.size = sizeof(in), .count = n, .addr_stride = stride,
		.addrs = (uintptr_t)addrs, .fi_addrs = (uintptr_t)fi,
		.err_index = KAV_NO_INDEX,
	};
	int ret = ioctl(av, KAV_IOC_AV_INSERT, &in) ? -errno : 0;

	if (err)
		*err = in.err_index;
	return ret;
}

/* Insert @n sockaddr_in, each bound to @keys[i] when @keys is given. */
static inline int kav_insert_keyed(int av, const struct sockaddr_in *s,
				   uint32_t n, const uint64_t *keys,
				   uint64_t *fi, uint32_t *err)
{
	struct kav_av_insert in = {
		.size = sizeof(in), .count = n, .addr_stride = sizeof(*s),
		.addrs = (uintptr_t)s, .fi_addrs = (uintptr_t)fi,
		.err_index = KAV_NO_INDEX,
		.flags = keys ? KAV_INSERT_AUTH_KEY : 0,
		.auth_keys = (uintptr_t)keys,
	};
	int ret = ioctl(av, KAV_IOC_AV_INSERT, &in) ? -errno : 0;

	if (err)
		*err = in.err_index;
	return ret;
}

/* Insert one address under one key handle (KAV_NONE: no handle). */
static inline int kav_insert_one(int av, uint32_t host, uint16_t port,
				 uint64_t key, uint64_t *fi)
{
	struct sockaddr_in s = kav_sin(host, port);

	return kav_insert_keyed(av, &s, 1, key == KAV_NONE ? NULL : &key, fi,
				NULL);
}

/* ------------------------------------------------- the mapped table */

/* A mapping of a whole AV table (kav_av_create's map_size). */
struct kav_map {
	const volatile struct kav_table_header *h;
	size_t size;
};

static inline int kav_map_av(int av, uint64_t map_size, struct kav_map *m)
{
	void *p = mmap(NULL, map_size, PROT_READ, MAP_SHARED, av, 0);

	if (p == MAP_FAILED)
		return -errno;
	m->h = p;
	m->size = map_size;
	return 0;
}

static inline void kav_unmap_av(struct kav_map *m)
{
	if (m->h)
		munmap((void *)m->h, m->size);
	m->h = NULL;
}

static inline const volatile struct kav_key_slot *
kav_slot(const volatile struct kav_table_header *h, uint64_t handle)
{
	return (const volatile void *)((const volatile char *)h +
				       h->keys_offset +
				       handle * sizeof(struct kav_key_slot));
}

static inline const volatile struct kav_entry *
kav_entry_at(const volatile struct kav_table_header *h, uint64_t idx)
{
	return (const volatile void *)((const volatile char *)h +
				       h->header_size + idx * h->entry_size);
}

/* Element @idx of the mapped fi_addr array (idx < nr_slots). */
static inline uint64_t
kav_fi_addr_at(const volatile struct kav_table_header *h, uint64_t idx)
{
	return ((const volatile uint64_t *)((const volatile char *)h +
					    h->fi_addrs_offset))[idx];
}

/* What a table looks like, to compare before and after an attack. */
struct kav_table_state {
	uint64_t generation, nr_valid, nr_slots;
	uint32_t key_flags[KAV_MAX_AUTH_KEYS];
	uint32_t key_vni[KAV_MAX_AUTH_KEYS];
	uint32_t key_entries[KAV_MAX_AUTH_KEYS];
};

static inline void kav_table_state(const volatile struct kav_table_header *h,
				   struct kav_table_state *st)
{
	uint64_t i;

	memset(st, 0, sizeof(*st));
	st->generation = h->generation;
	st->nr_valid = h->nr_valid;
	st->nr_slots = h->nr_slots;
	for (i = 0; i < KAV_MAX_AUTH_KEYS && i < h->max_keys; i++) {
		st->key_flags[i] = kav_slot(h, i)->flags;
		st->key_vni[i] = kav_slot(h, i)->vni;
		st->key_entries[i] = kav_uses(h, i)->nr_entries;
	}
}

static inline bool kav_table_same(const struct kav_table_state *a,
				  const struct kav_table_state *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* ------------------------------------------------------------ cgroups */

#define KAV_CGROUP_ROOT		"/sys/fs/cgroup"

/* Create cgroup @rel below the root (an existing one is fine). */
static inline int kav_cgroup_make(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), KAV_CGROUP_ROOT "/%s", rel);
	return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
}

/* Move @pid into cgroup @rel ("" is the root). */
static inline int kav_cgroup_move(const char *rel, pid_t pid)
{
	char path[256], buf[32];
	int fd, len, ret = 0;

	snprintf(path, sizeof(path), KAV_CGROUP_ROOT "/%s%scgroup.procs", rel,
		 *rel ? "/" : "");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	if (write(fd, buf, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

/* Remove cgroup @rel, waiting for exited members to leave it. */
static inline int kav_cgroup_remove(const char *rel)
{
	char path[256];
	int i;

	snprintf(path, sizeof(path), KAV_CGROUP_ROOT "/%s", rel);
	for (i = 0; i < 200; i++) {
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(10000);
	}
	return -EBUSY;
}

/*
 * Delegate cgroup @rel to @uid as cgroup v2 expects (the directory and
 * its cgroup.procs, cgroup.threads, cgroup.subtree_control): @uid may
 * then move its own processes between @rel's descendants.
 */
static inline int kav_cgroup_delegate(const char *rel, uid_t uid)
{
	static const char * const files[] = {
		"", "/cgroup.procs", "/cgroup.threads", "/cgroup.subtree_control",
	};
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), KAV_CGROUP_ROOT "/%s%s", rel,
			 files[i]);
		if (chown(path, uid, uid))
			return -errno;
	}
	return 0;
}

/* The cgroup v2 id of @rel: the inode number of its directory. */
static inline uint64_t kav_cgroup_id(const char *rel)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), KAV_CGROUP_ROOT "/%s", rel);
	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

/*
 * A job: @as.fn(@as.arg) run in a child that first moves itself into
 * cgroup @cgroup (as root), then drops to @as.uid (kav_as_trampoline).
 */
struct kav_job_arg {
	const char *cgroup;
	struct kav_as_arg as;
};

static inline int kav_job_trampoline(void *p)
{
	struct kav_job_arg *j = p;
	int ret = kav_cgroup_move(j->cgroup, getpid());

	if (ret) {
		fprintf(stderr, "# cannot join cgroup %s: %s\n", j->cgroup,
			strerror(-ret));
		return 98;
	}
	return kav_as_trampoline(&j->as);
}

/* Write @text to file @file of cgroup @rel ("" is the root). */
static inline int kav_cgroup_write(const char *rel, const char *file,
				   const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), KAV_CGROUP_ROOT "/%s%s%s", rel,
		 *rel ? "/" : "", file);
	return kav_write_path(path, text);
}

/* Field @key of a flat-keyed cgroup file (memory.events); -1 if none. */
static inline int64_t kav_cgroup_read_key(const char *rel, const char *file,
					  const char *key)
{
	char path[256], k[64];
	unsigned long long v;
	int64_t ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), KAV_CGROUP_ROOT "/%s/%s", rel, file);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %llu", k, &v) == 2) {
		if (!strcmp(k, key)) {
			ret = (int64_t)v;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * Give the root's children the memory controller: 0, -ENODEV if the
 * kernel has none, or -errno. *@enabled is set if this call added it.
 */
static inline int kav_cgroup_memory_enable(bool *enabled)
{
	char buf[512] = "";
	int fd;
	ssize_t n;

	*enabled = false;
	fd = open(KAV_CGROUP_ROOT "/cgroup.controllers", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0 || !strstr(buf, "memory"))
		return -ENODEV;
	fd = open(KAV_CGROUP_ROOT "/cgroup.subtree_control",
		  O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	if (strstr(buf, "memory"))
		return 0;
	fd = kav_cgroup_write("", "cgroup.subtree_control", "+memory");
	if (fd)
		return fd;
	*enabled = true;
	return 0;
}

/* ------------------------------------------------ module parameters */

#define KAV_PARAM_KEYLESS	"/sys/module/kav/parameters/allow_keyless"

/* allow_keyless: 1, 0, or -errno. */
static inline int kav_get_allow_keyless(void)
{
	char c = 0;
	int fd = open(KAV_PARAM_KEYLESS, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = read(fd, &c, 1) == 1 ? (c == 'Y' || c == '1') : -EIO;
	close(fd);
	return ret;
}

static inline int kav_set_allow_keyless(bool on)
{
	int fd = open(KAV_PARAM_KEYLESS, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1\n" : "0\n", 2) != 2)
		ret = -errno;
	close(fd);
	return ret;
}

/* ------------------------------------------------------------ kav_nic */

#define KAV_NIC_PATH		"/dev/" KAV_NIC_DEVICE_NAME

/* Load kav_nic.ko ($KAV_NIC_MODULE, else /tests/kav_nic.ko) unless it is
 * loaded; wait for its device node. */
static inline int kav_nic_load(void)
{
	const char *path = getenv("KAV_NIC_MODULE");
	int fd, ret = 0, i;

	if (access(KAV_NIC_PATH, F_OK)) {
		fd = open(path && *path ? path : "/tests/kav_nic.ko",
			  O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)
			ret = -errno;
		close(fd);
		if (ret)
			return ret;
	}
	for (i = 0; i < 500; i++) {
		if (!access(KAV_NIC_PATH, F_OK))
			return 0;
		usleep(10000);
	}
	return -ENODEV;
}

/* Unload kav_nic (so that kav can be unloaded later); 0 if not loaded. */
static inline int kav_nic_unload(void)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (!syscall(SYS_delete_module, "kav_nic", O_NONBLOCK) ||
		    errno == ENOENT)
			return 0;
		if (errno != EWOULDBLOCK && errno != EAGAIN)
			return -errno;
		usleep(10000);		/* a file is still being released */
	}
	return -EBUSY;
}

static inline int kav_nic_open(void)
{
	return open(KAV_NIC_PATH, O_RDWR | O_CLOEXEC);
}

static inline int kav_nic_bind(int nic, int av)
{
	return ioctl(nic, KAV_NIC_IOC_BIND, (unsigned long)av) ? -errno : 0;
}

/* "Send" to @fi: the ioctl's -errno, else kav_consumer_resolve()'s. */
static inline int kav_nic_send(int nic, uint64_t fi, struct kav_nic_send *out)
{
	struct kav_nic_send s = { .fi_addr = fi };

	if (ioctl(nic, KAV_NIC_IOC_SEND, &s))
		return -1000 - errno;	/* never a resolve result */
	if (out)
		*out = s;
	return s.result;
}

static inline int kav_nic_scan(int nic, uint64_t first, uint32_t count,
			       uint32_t vni, struct kav_nic_scan *out)
{
	memset(out, 0, sizeof(*out));
	out->first = first;
	out->count = count;
	out->vni = vni;
	return ioctl(nic, KAV_NIC_IOC_SCAN, out) ? -errno : 0;
}

/* A libkav domain (IPv4) whose domain auth key is @vni. */
static inline int kav_lib_open_keyed(uint32_t vni, struct fid_domain **dom)
{
	struct kav_auth_key key = { .vni = vni };
	struct fi_domain_attr dattr = { 0 };
	struct fi_info info = { 0 };

	info.addr_format = FI_SOCKADDR_IN;
	info.domain_attr = &dattr;
	dattr.auth_key = (uint8_t *)&key;
	dattr.auth_key_size = sizeof(key);
	return kav_domain_open(&info, dom, NULL);
}

/*
 * For a program that loads kav_nic: unload it when the main process exits,
 * whatever happens, because kav_module_test unloads kav after it.
 */
#define KAV_NIC_UNLOAD_AT_EXIT()					\
static pid_t kav_nic_main_pid;						\
static void __attribute__((constructor)) kav_nic_remember_main(void)	\
{									\
	kav_nic_main_pid = getpid();					\
}									\
static void __attribute__((destructor)) kav_nic_unload_at_exit(void)	\
{									\
	if (getpid() == kav_nic_main_pid)				\
		kav_nic_unload();					\
}

#endif /* KAV_ATTACK_UTIL_H */
