/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command-line tools of kav-wire from a guest program (the selftest
 * kav_wire_sa_test, the benchmark kav_wire_bench): where they are, and
 * one shell command run with its output kept.
 *
 *   kav_wire_tools(tools, sizeof(tools));  KAV_WIRE_SA_TOOLS, else /tests;
 *                                          kav-wire-sa told which kavctl
 *                                          and openssl to use
 *   rc = kav_sh(out, sizeof(out), "%s/kavctl wire show", tools);
 *   kav_netns_enter(host_ns, "ns1");       NULL: back to host_ns
 */
#ifndef KAV_WIRE_TOOLS_H
#define KAV_WIRE_TOOLS_H

#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Run a shell command (printf-style); its output and error output, up to
 * @size - 1 bytes, in @out; returns its exit status, 128 if a signal
 * ended it, -1 if it could not start.
 */
static inline int __attribute__((format(printf, 3, 4)))
kav_sh(char *out, size_t size, const char *fmt, ...)
{
	char cmd[2048];
	size_t n = 0, r;
	va_list ap;
	FILE *f;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	strcat(cmd, " 2>&1");
	out[0] = 0;
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (n < size - 1 && (r = fread(out + n, 1, size - 1 - n, f)) > 0)
		n += r;
	out[n] = 0;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * The tools' directory (KAV_WIRE_SA_TOOLS, else /tests: lanes/vm/vm.sh
 * ships kavctl, kav-wire-sa and openssl there) in @tools, and the
 * kavctl and openssl kav-wire-sa is to run (the guest's /usr/bin has
 * neither, or the host's 9p mount's openssl).
 */
static inline void kav_wire_tools(char *tools, size_t size)
{
	const char *d = getenv("KAV_WIRE_SA_TOOLS");
	char p[300];

	snprintf(tools, size, "%s", d && *d ? d : "/tests");
	snprintf(p, sizeof(p), "%s/kavctl", tools);
	setenv("KAV_WIRE_SA_KAVCTL", p, 1);
	snprintf(p, sizeof(p), "%s/openssl", tools);
	if (access(p, X_OK))
		snprintf(p, sizeof(p), "/usr/bin/openssl");
	setenv("KAV_WIRE_SA_OPENSSL", p, 1);
}

/* Enter the named network namespace @ns (ip netns), or @host_ns if NULL. */
static inline int kav_netns_enter(int host_ns, const char *ns)
{
	char p[128];
	int fd, rc;

	if (!ns)
		return setns(host_ns, CLONE_NEWNET);
	snprintf(p, sizeof(p), "/run/netns/%s", ns);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = setns(fd, CLONE_NEWNET);
	close(fd);
	return rc;
}

#endif /* KAV_WIRE_TOOLS_H */
