// SPDX-License-Identifier: GPL-2.0
/* kav-av-fill's input parsing: see fill_args.h. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fill_args.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Digits of base @base at @s up to @end (NULL: the NUL): 0, or -1 on a
 * bad digit, none at all, or more than UINT64_MAX. */
static int digits(const char *s, const char *end, unsigned int base,
		  uint64_t *out)
{
	uint64_t v = 0;
	const char *p;

	if (!end)
		end = s + strlen(s);
	if (s == end)
		return -1;
	for (p = s; p < end; p++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned int)(*p - 'A' + 10);
		else
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int kaf_parse_u64(const char *s, uint64_t min, uint64_t max, int hex,
		  uint64_t *out, const char *what, char *err, size_t errlen)
{
	uint64_t v;
	int bad;

	if (!s)
		s = "";
	if (hex && (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)))
		bad = digits(s + 2, NULL, 16, &v);
	else
		bad = digits(s, NULL, 10, &v);
	if (bad || v < min || v > max)
		return fail(err, errlen,
			    "bad %s '%s': give a %snumber from %llu to %llu",
			    what, s, hex ? "decimal or 0x-hexadecimal " :
			    "decimal ", (unsigned long long)min,
			    (unsigned long long)max);
	*out = v;
	return 0;
}

int kaf_parse_appnum(const char *s, int *out, char *err, size_t errlen)
{
	uint64_t v;

	if (s && !strcmp(s, "-1")) {
		*out = -1;
		return 0;
	}
	if (!s || digits(s, NULL, 10, &v) || v > INT_MAX)
		return fail(err, errlen,
			    "bad appnum '%s': give MPICH's application number, -1 (Slurm's PMI) or 0 to %d",
			    s ? s : "", INT_MAX);
	*out = (int)v;
	return 0;
}

int kaf_parse_mode(const char *s, unsigned int *out, char *err,
		   size_t errlen)
{
	unsigned int m = 0;
	const char *p;

	if (!s || !*s || strlen(s) > 4)
		goto bad;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '7')
			goto bad;
		m = m * 8 + (unsigned int)(*p - '0');
	}
	/* Read and write bits only: an AV has nothing to execute; and the
	 * ranks, its owner's, must read it. */
	if ((m & ~0666U) || !(m & 0400U))
		goto bad;
	*out = m;
	return 0;
bad:
	return fail(err, errlen,
		    "bad mode '%s': give octal read/write bits with owner read, such as 0600 (you only) or 0640 (your group may read)",
		    s ? s : "");
}

int kaf_split_hosts(char *list, char **hosts, size_t max, size_t *n,
		    char *err, size_t errlen)
{
	char *p = list, *comma;
	size_t count = 0;

	*n = 0;
	if (!list || !*list)
		return fail(err, errlen,
			    "no hosts: give --hosts h1,h2,... (names or IPv4 addresses, in the job's node order)");
	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!*p)
			return fail(err, errlen,
				    "empty host name in --hosts (host %zu): give h1,h2,... without empty names",
				    count + 1);
		if (strpbrk(p, "[]"))
			return fail(err, errlen,
				    "host '%s' is a Slurm host list: expand it first (scontrol show hostnames \"$SLURM_JOB_NODELIST\" | paste -sd,)",
				    p);
		if (count == max)
			return fail(err, errlen,
				    "more than %zu hosts in --hosts", max);
		hosts[count++] = p;
		if (!comma)
			break;
		p = comma + 1;
	}
	*n = count;
	return 0;
}

int kaf_parse_tasks(const char *spec, size_t nhosts, unsigned int *counts,
		    unsigned int *total, char *err, size_t errlen)
{
	const char *p = spec, *end;
	uint64_t sum = 0, c, r;
	size_t n = 0, i;

	*total = 0;
	if (!nhosts)
		return fail(err, errlen, "no hosts for --tasks-per-node");
	if (!spec || !*spec)
		return fail(err, errlen,
			    "no --tasks-per-node: give ranks per host, one number or Slurm's SLURM_TASKS_PER_NODE such as 2(x3),1");
	/* One plain number: that many ranks on every host. */
	if (!digits(spec, NULL, 10, &c)) {
		if (c < 1 || c > KAF_RANKS_MAX || c * nhosts > KAF_RANKS_MAX)
			return fail(err, errlen,
				    "bad --tasks-per-node '%s': %zu hosts times %s ranks must be 1 to %u ranks",
				    spec, nhosts, spec, KAF_RANKS_MAX);
		for (i = 0; i < nhosts; i++)
			counts[i] = (unsigned int)c;
		*total = (unsigned int)(c * nhosts);
		return 0;
	}
	for (;;) {
		end = p + strcspn(p, "(,");
		if (digits(p, end, 10, &c) || c < 1 || c > KAF_RANKS_MAX)
			goto bad;
		r = 1;
		p = end;
		if (*p == '(') {
			if (p[1] != 'x')
				goto bad;
			end = strchr(p, ')');
			if (!end || digits(p + 2, end, 10, &r) || r < 1 ||
			    r > KAF_RANKS_MAX)
				goto bad;
			p = end + 1;
		}
		if (n + r > nhosts)
			return fail(err, errlen,
				    "--tasks-per-node '%s' names more hosts than the %zu of --hosts",
				    spec, nhosts);
		sum += c * r;
		if (sum > KAF_RANKS_MAX)
			return fail(err, errlen,
				    "--tasks-per-node '%s': more than %u ranks (each needs its own port)",
				    spec, KAF_RANKS_MAX);
		while (r--)
			counts[n++] = (unsigned int)c;
		if (!*p)
			break;
		if (*p != ',')
			goto bad;
		p++;
	}
	if (n != nhosts)
		return fail(err, errlen,
			    "--tasks-per-node '%s' names %zu hosts, --hosts %zu",
			    spec, n, nhosts);
	*total = (unsigned int)sum;
	return 0;
bad:
	return fail(err, errlen,
		    "bad --tasks-per-node '%s': give one number of ranks per host, or Slurm's list of counts, each optionally repeated, such as 3,2(x2)",
		    spec);
}

int kaf_rank_from_env(char *(*get)(const char *name), unsigned int *rank,
		      const char **var, char *err, size_t errlen)
{
	/*
	 * A launcher's own variable first: an mpiexec (hydra) or mpirun
	 * (PRRTE) inside a Slurm step hands its ranks the step's SLURM_PROCID
	 * unchanged, which is the launcher daemon's, not the rank's.
	 */
	static const char *const names[] = {
		"PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID",
	};
	const char *v;
	uint64_t r;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		v = get(names[i]);
		if (!v)
			continue;
		*var = names[i];
		if (digits(v, NULL, 10, &r) || r >= KAF_RANKS_MAX)
			return fail(err, errlen,
				    "%s='%s' is not a rank (0 to %u)", names[i],
				    v, KAF_RANKS_MAX - 1);
		*rank = (unsigned int)r;
		return 0;
	}
	*var = NULL;
	return fail(err, errlen,
		    "no rank: none of PMI_RANK, PMIX_RANK, OMPI_COMM_WORLD_RANK and SLURM_PROCID is set (run it as the MPI launcher's command)");
}
