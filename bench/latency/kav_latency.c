// SPDX-License-Identifier: GPL-2.0
/*
 * kav_latency [--seconds S] [--format str|ipv4] [--cpu C]
 *
 * How long a real-time task waits while a tenant hammers kav (issue 28,
 * PREEMPT_RT): a SCHED_FIFO reader thread, cyclictest-style (an absolute
 * 1 ms clock_nanosleep() period; its lateness, now - deadline, is one
 * sample), while a tenant process inserts and removes batches of
 * KAV_BATCH_MAX entries on one AV, as fast as it can, for S seconds
 * (default 10). The tenant is pinned to CPU C (0); the reader to the same
 * CPU, then to another one; a run with no tenant first is the guest's own
 * noise. Entries are KAV_ADDR_STR of 480 bytes (entry_size 512, the
 * largest a tenant can choose: 8 MiB of stores per batch) or, with
 * --format ipv4, 32-byte IPv4 entries.
 *
 * Prints TAP (one line per phase: not ok only when a call fails, never
 * for a time) and the table: samples, maximum and 99.9th percentile
 * lateness in microseconds, and the tenant's batches. Timings are the
 * guest's: under TCG they are inflated; compare rows of one run only.
 * Needs root (SCHED_FIFO, allow_keyless) and kav loaded.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "kav_test_util.h"

#define PERIOD_NS	1000000LL	/* the reader's period: 1 ms */
#define STR_LEN		480		/* KAV_ADDR_MAX_LEN: entry_size 512 */
#define FIFO_PRIO	90

struct phase {
	const char *name;
	bool tenant;		/* the tenant hammers meanwhile */
	bool same_cpu;		/* the reader on the tenant's CPU */
	/* results */
	uint64_t samples, max_ns, p999_ns, batches;
	int err;
};

static int seconds = 10, tenant_cpu, format = KAV_ADDR_STR;

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000LL + t->tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("kav_latency: sched_setaffinity");
}

/* The tenant: insert and remove KAV_BATCH_MAX entries until killed. */
static __attribute__((noreturn)) void tenant_main(int report)
{
	struct kav_av_create c = { .size = sizeof(c) };
	size_t stride = format == KAV_ADDR_STR ? STR_LEN :
			sizeof(struct sockaddr_in);
	uint8_t *addrs = calloc(KAV_BATCH_MAX, stride);
	uint64_t *fi = calloc(KAV_BATCH_MAX, sizeof(*fi));
	struct kav_av_insert in = {
		.size = sizeof(in), .count = KAV_BATCH_MAX,
		.addr_stride = (uint32_t)stride, .addrs = (uintptr_t)addrs,
		.fi_addrs = (uintptr_t)fi, .err_index = KAV_NO_INDEX,
	};
	uint64_t batches = 0;
	int dom, av;
	uint32_t i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pin(tenant_cpu);
	dom = kav_open_domain();
	c.addr_format = (uint32_t)format;
	c.addr_max = format == KAV_ADDR_STR ? STR_LEN : 0;
	c.count = KAV_BATCH_MAX;
	if (!addrs || !fi || dom < 0 || ioctl(dom, KAV_IOC_AV_CREATE, &c)) {
		perror("kav_latency: tenant: AV");
		_exit(1);
	}
	av = c.fd;
	for (i = 0; i < KAV_BATCH_MAX; i++) {
		uint8_t *a = addrs + (size_t)i * stride;

		if (format == KAV_ADDR_STR) {
			memset(a, 'a' + i % 26, STR_LEN - 1);
			a[STR_LEN - 1] = 0;
		} else {
			struct sockaddr_in s = kav_sin(0x0a000000u + i, 5000);

			memcpy(a, &s, sizeof(s));
		}
	}
	for (;;) {
		if (ioctl(av, KAV_IOC_AV_INSERT, &in) ||
		    kav_remove(av, fi, KAV_BATCH_MAX, NULL)) {
			perror("kav_latency: tenant: batch");
			_exit(1);
		}
		batches++;
		/* The count so far, for the parent to read at the end. */
		if (pwrite(report, &batches, sizeof(batches), 0) < 0)
			_exit(1);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One phase: the reader (this thread, SCHED_FIFO) for @seconds. */
static void run_phase(struct phase *p, int other_cpu)
{
	struct sched_param sp = { .sched_priority = FIFO_PRIO };
	uint64_t n = (uint64_t)seconds * 1000, *lat = calloc(n, sizeof(*lat));
	struct timespec next, now;
	char path[] = "/tmp/kav_latency.XXXXXX";
	int report = mkstemp(path), st;
	pid_t tenant = -1;
	uint64_t i;

	if (!lat || report < 0) {
		p->err = ENOMEM;
		free(lat);
		if (report >= 0)
			close(report);
		return;
	}
	unlink(path);
	if (p->tenant) {
		tenant = fork();
		if (tenant == 0)
			tenant_main(report);
		if (tenant < 0) {
			p->err = errno;
			free(lat);
			close(report);
			return;
		}
		usleep(200000);	/* the tenant's AV exists, batches run */
	}
	pin(p->same_cpu ? tenant_cpu : other_cpu);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		p->err = errno;
		perror("kav_latency: SCHED_FIFO");
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < n && !p->err; i++) {
		next.tv_nsec += PERIOD_NS;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		lat[i] = ts_ns(&now) > ts_ns(&next) ?
			 (uint64_t)(ts_ns(&now) - ts_ns(&next)) : 0;
		/* A late wake-up skips the periods it missed. */
		while (ts_ns(&next) + PERIOD_NS < ts_ns(&now)) {
			next.tv_nsec += PERIOD_NS;
			if (next.tv_nsec >= 1000000000L) {
				next.tv_nsec -= 1000000000L;
				next.tv_sec++;
			}
		}
	}
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	if (tenant > 0) {
		if (pread(report, &p->batches, sizeof(p->batches), 0) < 0)
			p->batches = 0;
		kill(tenant, SIGKILL);
		waitpid(tenant, &st, 0);
		if (!p->batches)
			p->err = EIO;
	}
	close(report);
	p->samples = i;
	qsort(lat, i, sizeof(*lat), cmp_u64);
	if (i) {
		p->max_ns = lat[i - 1];
		p->p999_ns = lat[(i * 999) / 1000 < i ? (i * 999) / 1000 : i - 1];
	}
	free(lat);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' },
		{ "cpu", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct phase ph[] = {
		{ .name = "no tenant", .same_cpu = true },
		{ .name = "tenant, reader on its CPU", .tenant = true,
		  .same_cpu = true },
		{ .name = "tenant, reader on another CPU", .tenant = true },
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nph = (int)(sizeof(ph) / sizeof(ph[0])), i, o, fails = 0;
	struct utsname u;
	char cmdline[512] = "";
	FILE *f;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 's':
			seconds = atoi(optarg);
			break;
		case 'f':
			format = !strcmp(optarg, "ipv4") ? KAV_ADDR_SOCKADDR_IN :
				 KAV_ADDR_STR;
			break;
		case 'c':
			tenant_cpu = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: kav_latency [--seconds S] [--format str|ipv4] [--cpu C]\n");
			return 2;
		}
	}
	if (seconds < 1)
		seconds = 1;
	uname(&u);
	f = fopen("/proc/cmdline", "r");
	if (f) {
		if (!fgets(cmdline, sizeof(cmdline), f))
			cmdline[0] = 0;
		cmdline[strcspn(cmdline, "\n")] = 0;
		fclose(f);
	}
	printf("TAP version 13\n1..%d\n", nph);
	printf("# kav_latency: %s %s, %ld CPUs, cmdline: %s\n", u.release,
	       u.version, ncpu, cmdline);
	printf("# %d s per phase, SCHED_FIFO %d reader every 1 ms; tenant on CPU %d: batches of %d %s entries, insert + remove\n",
	       seconds, FIFO_PRIO, tenant_cpu, KAV_BATCH_MAX,
	       format == KAV_ADDR_STR ? "480-byte string" : "IPv4");
	fflush(stdout);
	for (i = 0; i < nph; i++) {
		run_phase(&ph[i], ncpu > 1 ? (tenant_cpu + 1) % (int)ncpu :
			  tenant_cpu);
		fails += !!ph[i].err;
		printf("%sok %d - latency: %s%s%s\n", ph[i].err ? "not " : "",
		       i + 1, ph[i].name, ph[i].err ? ": " : "",
		       ph[i].err ? strerror(ph[i].err) : "");
		fflush(stdout);
	}
	printf("# @@KAV-LATENCY-BEGIN\n");
	printf("# | phase | samples | max us | p99.9 us | tenant batches |\n");
	printf("# |---|---:|---:|---:|---:|\n");
	for (i = 0; i < nph; i++)
		printf("# | %s | %llu | %llu | %llu | %llu |\n", ph[i].name,
		       (unsigned long long)ph[i].samples,
		       (unsigned long long)ph[i].max_ns / 1000,
		       (unsigned long long)ph[i].p999_ns / 1000,
		       (unsigned long long)ph[i].batches);
	printf("# @@KAV-LATENCY-END\n");
	return fails ? 1 : 0;
}
