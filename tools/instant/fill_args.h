/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav-av-fill's input parsing (kav-av-fill(1)), apart from the program so
 * that the unit tests (tests/unit/test_av_fill_args.c) check it on the
 * host. No libkav, no kernel: strings in, numbers or a reason out.
 *
 * Every parser returns 0, or -1 with one sentence in @err saying what is
 * wrong with the input and what is expected.
 */
#ifndef KAV_FILL_ARGS_H
#define KAV_FILL_ARGS_H

#include <stddef.h>
#include <stdint.h>

/* At most this many ranks: each needs its own TCP port (P + rank). */
#define KAF_RANKS_MAX	65535U

/*
 * A whole decimal number in [@min, @max]; with @hex, a 0x-prefixed
 * hexadecimal one too. No sign, space or empty string.
 */
int kaf_parse_u64(const char *s, uint64_t min, uint64_t max, int hex,
		  uint64_t *out, const char *what, char *err, size_t errlen);

/* MPICH's appnum: a decimal int, -1 (what Slurm's PMI reports) or more. */
int kaf_parse_appnum(const char *s, int *out, char *err, size_t errlen);

/* A named AV's mode: octal read/write bits (0600, 640, 0660 ...). */
int kaf_parse_mode(const char *s, unsigned int *out, char *err,
		   size_t errlen);

/*
 * Split @list ("h1,h2,...", modified in place) into @hosts (at most
 * @max); *@n is the count. Empty names and Slurm host-list expressions
 * ("node[1-4]") are refused.
 */
int kaf_split_hosts(char *list, char **hosts, size_t max, size_t *n,
		    char *err, size_t errlen);

/*
 * Ranks per host from @spec: one number for every host ("4"), or Slurm's
 * SLURM_TASKS_PER_NODE list ("2(x3),1": counts, each optionally repeated
 * with "(xR)"), which must name exactly @nhosts hosts. Fills
 * @counts[0..@nhosts) and *@total (at most KAF_RANKS_MAX).
 */
int kaf_parse_tasks(const char *spec, size_t nhosts, unsigned int *counts,
		    unsigned int *total, char *err, size_t errlen);

/*
 * The calling rank's number, from the first of PMI_RANK, PMIX_RANK,
 * OMPI_COMM_WORLD_RANK and SLURM_PROCID that is set (@get: getenv or a
 * test's stand-in); *@var names it. A set but malformed one is an error.
 */
int kaf_rank_from_env(char *(*get)(const char *name),
		      unsigned int *rank, const char **var, char *err,
		      size_t errlen);

#endif
