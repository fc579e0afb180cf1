// SPDX-License-Identifier: GPL-2.0
/*
 * What every figure shares: the addresses inserted, the clock, the random
 * index sequence, the samples and their medians, and the markdown.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include "bench.h"

size_t bench_addr_size(int family)
{
	return family == AF_INET6 ? sizeof(struct sockaddr_in6) :
				    sizeof(struct sockaddr_in);
}

/* 10.0.0.0/8 + i, or fd00::i; the port varies too, as ranks' would. */
void bench_addr(int family, uint64_t i, void *out)
{
	uint16_t port = htons((uint16_t)(1024 + i % 60000));

	if (family == AF_INET6) {
		struct sockaddr_in6 *s6 = out;
		uint32_t low = htonl((uint32_t)i);

		memset(s6, 0, sizeof(*s6));
		s6->sin6_family = AF_INET6;
		s6->sin6_port = port;
		s6->sin6_addr.s6_addr[0] = 0xfd;
		memcpy(&s6->sin6_addr.s6_addr[12], &low, sizeof(low));
	} else {
		struct sockaddr_in *s4 = out;

		memset(s4, 0, sizeof(*s4));
		s4->sin_family = AF_INET;
		s4->sin_port = port;
		s4->sin_addr.s_addr = htonl(0x0a000000u + (uint32_t)i);
	}
}

void *bench_addrs(int family, uint64_t first, size_t n)
{
	size_t size = bench_addr_size(family), i;
	char *buf = malloc(n ? n * size : 1);

	if (!buf) {
		perror("kav_bench: addresses");
		exit(2);
	}
	for (i = 0; i < n; i++)
		bench_addr(family, first + i, buf + i * size);
	return buf;
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t bench_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* ------------------------------------------------------------ samples */

void bench_cell_add(struct bench_cell *c, double v)
{
	if (c->n < BENCH_MAX_REPS)
		c->v[c->n++] = v;
}

void bench_cell_fail(struct bench_cell *c, int err, const char *what)
{
	if (!c->err)
		c->err = err ? err : -1;
	fprintf(stderr, "kav_bench: %s: error %d\n", what, err);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_cell_median(const struct bench_cell *c)
{
	double v[BENCH_MAX_REPS];

	if (!c->n || c->err)
		return 0;
	memcpy(v, c->v, sizeof(double) * (size_t)c->n);
	qsort(v, (size_t)c->n, sizeof(v[0]), cmp_double);
	return c->n & 1 ? v[c->n / 2] : (v[c->n / 2 - 1] + v[c->n / 2]) / 2;
}

/* ------------------------------------------------------------ markdown */

void bench_md_ratio(FILE *out, double kav, double peer)
{
	if (kav > 0 && peer > 0)
		fprintf(out, " %.2f |", kav / peer);
	else
		fprintf(out, " - |");
}

void bench_md_value(FILE *out, const struct bench_cell *c, double scale,
		    const char *fmt)
{
	if (c->err) {
		fprintf(out, " error %d |", c->err);
		return;
	}
	if (!c->n) {
		fprintf(out, " - |");
		return;
	}
	fputc(' ', out);
	fprintf(out, fmt, bench_cell_median(c) * scale);
	fprintf(out, " |");
}

/* ------------------------------------------------------------ targets */

#define MAX_TARGETS 64

static struct {
	char what[96], measured[96];
	bool met;
} targets[MAX_TARGETS];
static int nr_targets;

void bench_target(const char *what, const char *measured, bool met)
{
	if (nr_targets == MAX_TARGETS)
		return;
	snprintf(targets[nr_targets].what, sizeof(targets[0].what), "%s",
		 what);
	snprintf(targets[nr_targets].measured,
		 sizeof(targets[0].measured), "%s", measured);
	targets[nr_targets++].met = met;
}

void bench_targets_print(FILE *out)
{
	int i;

	fprintf(out, "\n## Targets (issues 7 and 27)\n\n| target | measured | met |\n|---|---|---|\n");
	for (i = 0; i < nr_targets; i++)
		fprintf(out, "| %s | %s | %s |\n", targets[i].what,
			targets[i].measured, targets[i].met ? "yes" : "**no**");
}

/* ------------------------------------------------------------ cases */

int bench_cases(struct bench_case *cases)
{
	int i;

	for (i = 0; i < bench_cfg.nr_sizes; i++)
		cases[i] = (struct bench_case){ AF_INET, bench_cfg.sizes[i] };
	cases[i] = (struct bench_case){ AF_INET6,
					bench_cfg.sizes[bench_cfg.nr_sizes - 1] };
	return i + 1;
}

const char *bench_family_name(int family)
{
	return family == AF_INET6 ? "IPv6" : "IPv4";
}
