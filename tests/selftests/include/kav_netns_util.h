/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Named network namespaces for the wire selftests, as `ip netns` keeps
 * them (/run/netns/NAME), and /usr/bin/ip run on them.
 */
#ifndef KAV_NETNS_UTIL_H
#define KAV_NETNS_UTIL_H

#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kav_attack_util.h"

#define IP_BIN		"/usr/bin/ip"

/* Run /usr/bin/ip with the words of @fmt: its exit status. */
static inline int ip(const char *fmt, ...)
{
	char line[512], *argv[48], *save = NULL, *w;
	int argc = 0;
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	argv[argc++] = IP_BIN;
	for (w = strtok_r(line, " ", &save); w && argc < 47;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execv(IP_BIN, argv);
		_exit(127);
	}
	return kav_reap(pid);
}

/* Remove /run/netns/@name (the namespace goes with its last user). */
static inline void del_netns(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	umount2(path, MNT_DETACH);
	unlink(path);
}

/* /run/netns/@name, as `ip netns add` makes it (ip may then use -n). */
static inline int add_netns(const char *name)
{
	char path[64];
	int self_ns, fd, ret;

	mkdir("/run", 0755);
	mkdir("/run/netns", 0755);
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	del_netns(name);
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0)
		return -errno;
	close(fd);
	self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_ns < 0)
		return -errno;
	ret = unshare(CLONE_NEWNET) ? -errno : 0;
	if (!ret && mount("/proc/self/ns/net", path, NULL, MS_BIND, NULL))
		ret = -errno;
	if (setns(self_ns, CLONE_NEWNET))
		ret = -errno;
	close(self_ns);
	return ret;
}

/* Run @fn in namespace @ns (NULL: this one), as this thread. */
static inline int in_netns(const char *ns, int (*fn)(void *), void *arg)
{
	char path[64];
	int self_ns, fd, ret;

	if (!ns)
		return fn(arg);
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (self_ns < 0 || fd < 0 || setns(fd, CLONE_NEWNET)) {
		ret = -1;
	} else {
		ret = fn(arg);
		if (setns(self_ns, CLONE_NEWNET))
			ret = -1;
	}
	if (fd >= 0)
		close(fd);
	if (self_ns >= 0)
		close(self_ns);
	return ret;
}

#endif /* KAV_NETNS_UTIL_H */
