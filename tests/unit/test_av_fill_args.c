// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kav-av-fill's input parsing (tools/instant/fill_args.c): numbers, the
 * appnum, mode bits, host lists, Slurm's SLURM_TASKS_PER_NODE syntax and
 * the rank of --rank-exec. The program itself runs in the VM
 * (tests/selftests/userland/kav_av_fill_test.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/instant/fill_args.h"

static char err[512];

/* Expects the parser call @call to fail with @msg in its reason. */
#define assert_fails(call, msg) do {					\
		err[0] = '\0';						\
		assert_int_equal(-1, (call));				\
		if (!strstr(err, (msg)))				\
			fail_msg("'%s' does not say '%s'", err, (msg));	\
	} while (0)

static void test_numbers(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(0, kaf_parse_u64("1234", 0, UINT32_MAX, 1, &v, "VNI",
					  err, sizeof(err)));
	assert_int_equal(1234, v);
	assert_int_equal(0, kaf_parse_u64("0x4b01", 0, UINT32_MAX, 1, &v,
					  "VNI", err, sizeof(err)));
	assert_int_equal(0x4b01, v);
	assert_int_equal(0, kaf_parse_u64("4294967295", 0, UINT32_MAX, 1, &v,
					  "VNI", err, sizeof(err)));
	assert_int_equal(UINT32_MAX, v);
	assert_fails(kaf_parse_u64("4294967296", 0, UINT32_MAX, 1, &v, "VNI",
				   err, sizeof(err)), "bad VNI '4294967296'");
	assert_fails(kaf_parse_u64("0x", 0, UINT32_MAX, 1, &v, "VNI", err,
				   sizeof(err)), "bad VNI");
	assert_fails(kaf_parse_u64("12a", 0, UINT32_MAX, 1, &v, "VNI", err,
				   sizeof(err)), "bad VNI");
	assert_fails(kaf_parse_u64("-1", 0, UINT32_MAX, 1, &v, "VNI", err,
				   sizeof(err)), "bad VNI");
	assert_fails(kaf_parse_u64(" 1", 0, UINT32_MAX, 1, &v, "VNI", err,
				   sizeof(err)), "bad VNI");
	assert_fails(kaf_parse_u64("", 0, UINT32_MAX, 1, &v, "VNI", err,
				   sizeof(err)), "bad VNI");
	assert_fails(kaf_parse_u64("99999999999999999999999", 0, UINT32_MAX,
				   1, &v, "VNI", err, sizeof(err)), "bad VNI");
	/* Decimal only where hex is not allowed; the range holds. */
	assert_fails(kaf_parse_u64("0x10", 1, 65535, 0, &v, "--port-base",
				   err, sizeof(err)), "decimal number from 1");
	assert_fails(kaf_parse_u64("0", 1, 65535, 0, &v, "--port-base", err,
				   sizeof(err)), "from 1 to 65535");
	assert_fails(kaf_parse_u64("65536", 1, 65535, 0, &v, "--port-base",
				   err, sizeof(err)), "bad --port-base");
}

static void test_appnum(void **state)
{
	int a = 7;

	(void)state;
	assert_int_equal(0, kaf_parse_appnum("0", &a, err, sizeof(err)));
	assert_int_equal(0, a);
	assert_int_equal(0, kaf_parse_appnum("-1", &a, err, sizeof(err)));
	assert_int_equal(-1, a);
	assert_int_equal(0, kaf_parse_appnum("2147483647", &a, err,
					     sizeof(err)));
	assert_int_equal(2147483647, a);
	assert_fails(kaf_parse_appnum("-2", &a, err, sizeof(err)),
		     "bad appnum '-2'");
	assert_fails(kaf_parse_appnum("2147483648", &a, err, sizeof(err)),
		     "bad appnum");
	assert_fails(kaf_parse_appnum("", &a, err, sizeof(err)), "bad appnum");
	assert_fails(kaf_parse_appnum("1x", &a, err, sizeof(err)),
		     "bad appnum");
}

static void test_mode(void **state)
{
	unsigned int m;

	(void)state;
	assert_int_equal(0, kaf_parse_mode("0600", &m, err, sizeof(err)));
	assert_int_equal(0600, m);
	assert_int_equal(0, kaf_parse_mode("640", &m, err, sizeof(err)));
	assert_int_equal(0640, m);
	assert_int_equal(0, kaf_parse_mode("0666", &m, err, sizeof(err)));
	/* Execute bits, no owner read, not octal, too long. */
	assert_fails(kaf_parse_mode("0700", &m, err, sizeof(err)),
		     "bad mode '0700'");
	assert_fails(kaf_parse_mode("0", &m, err, sizeof(err)), "owner read");
	assert_fails(kaf_parse_mode("0066", &m, err, sizeof(err)),
		     "bad mode");
	assert_fails(kaf_parse_mode("0608", &m, err, sizeof(err)),
		     "bad mode");
	assert_fails(kaf_parse_mode("00600", &m, err, sizeof(err)),
		     "bad mode");
	assert_fails(kaf_parse_mode("", &m, err, sizeof(err)), "bad mode");
}

static void test_hosts(void **state)
{
	char list[] = "node1,10.0.0.2,node3", one[] = "solo";
	char empty[] = "a,,b", trail[] = "a,", slurm[] = "node[1-4]";
	char many[] = "a,b,c", none[] = "";
	char *h[4];
	size_t n;

	(void)state;
	assert_int_equal(0, kaf_split_hosts(list, h, 4, &n, err, sizeof(err)));
	assert_int_equal(3, n);
	assert_string_equal("node1", h[0]);
	assert_string_equal("10.0.0.2", h[1]);
	assert_string_equal("node3", h[2]);
	assert_int_equal(0, kaf_split_hosts(one, h, 4, &n, err, sizeof(err)));
	assert_int_equal(1, n);
	assert_string_equal("solo", h[0]);
	assert_fails(kaf_split_hosts(empty, h, 4, &n, err, sizeof(err)),
		     "empty host name in --hosts (host 2)");
	assert_fails(kaf_split_hosts(trail, h, 4, &n, err, sizeof(err)),
		     "empty host name");
	assert_fails(kaf_split_hosts(slurm, h, 4, &n, err, sizeof(err)),
		     "scontrol show hostnames");
	assert_fails(kaf_split_hosts(many, h, 2, &n, err, sizeof(err)),
		     "more than 2 hosts");
	assert_fails(kaf_split_hosts(none, h, 4, &n, err, sizeof(err)),
		     "no hosts");
}

/* @spec for @nhosts hosts gives @want (a comma list of counts). */
static void tasks_ok(const char *spec, size_t nhosts, const char *want,
		     unsigned int want_total)
{
	unsigned int counts[16], total = 0;
	char got[256] = "";
	size_t i, len = 0;

	if (kaf_parse_tasks(spec, nhosts, counts, &total, err, sizeof(err)))
		fail_msg("'%s' (%zu hosts) failed: %s", spec, nhosts, err);
	for (i = 0; i < nhosts; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%u",
					i ? "," : "", counts[i]);
	assert_string_equal(want, got);
	assert_int_equal(want_total, total);
}

static void test_tasks(void **state)
{
	unsigned int counts[16], total;

	(void)state;
	/* One number: every host. */
	tasks_ok("4", 3, "4,4,4", 12);
	tasks_ok("1", 1, "1", 1);
	/* Slurm's SLURM_TASKS_PER_NODE. */
	tasks_ok("2(x2)", 2, "2,2", 4);
	tasks_ok("3,2(x2)", 3, "3,2,2", 7);
	tasks_ok("2(x3),1", 4, "2,2,2,1", 7);
	tasks_ok("1,2,3", 3, "1,2,3", 6);
	tasks_ok("5(x1)", 1, "5", 5);
	/* The host count must match the list's. */
	assert_fails(kaf_parse_tasks("2(x2)", 3, counts, &total, err,
				     sizeof(err)), "names 2 hosts, --hosts 3");
	assert_fails(kaf_parse_tasks("3,2(x2)", 2, counts, &total, err,
				     sizeof(err)), "more hosts than the 2");
	assert_fails(kaf_parse_tasks("1,1", 1, counts, &total, err,
				     sizeof(err)), "more hosts than the 1");
	/* Syntax. */
	static const char *const bad[] = {
		"0", "2(x0)", "0(x2)", "2(2)", "2(x2", "2(x)", "(x2)", "2x2",
		"2,", ",2", "2,,3", "2(x2)3", "-1", "a", " 2", "2 ", "2(x2),",
		"2(y2)",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (kaf_parse_tasks(bad[i], 4, counts, &total, err,
				    sizeof(err)) != -1)
			fail_msg("'%s' was accepted", bad[i]);
		assert_non_null(strstr(err, "--tasks-per-node"));
	}
	assert_fails(kaf_parse_tasks("", 2, counts, &total, err, sizeof(err)),
		     "no --tasks-per-node");
	/* At most 65535 ranks: one port each. */
	tasks_ok("65535", 1, "65535", 65535);
	assert_fails(kaf_parse_tasks("65535", 2, counts, &total, err,
				     sizeof(err)), "must be 1 to 65535 ranks");
	assert_fails(kaf_parse_tasks("65535,1", 2, counts, &total, err,
				     sizeof(err)), "more than 65535 ranks");
	assert_fails(kaf_parse_tasks("40000(x2)", 2, counts, &total, err,
				     sizeof(err)), "more than 65535 ranks");
	assert_fails(kaf_parse_tasks("99999999999999999999", 2, counts,
				     &total, err, sizeof(err)),
		     "--tasks-per-node");
}

/* A stand-in environment for kaf_rank_from_env(). */
static const char *const *fake_env;

static char *fake_getenv(const char *name)
{
	const char *const *e;
	size_t len = strlen(name);

	for (e = fake_env; e && *e; e++)
		if (!strncmp(*e, name, len) && (*e)[len] == '=')
			return (char *)(*e + len + 1);
	return NULL;
}

static int rank_of(const char *const *env, unsigned int *rank,
		   const char **var)
{
	fake_env = env;
	err[0] = '\0';
	return kaf_rank_from_env(fake_getenv, rank, var, err, sizeof(err));
}

#define ENV(...) ((const char *const []){ __VA_ARGS__, NULL })

static void test_rank(void **state)
{
	unsigned int rank = 99;
	const char *var = NULL;

	(void)state;
	assert_int_equal(0, rank_of(ENV("SLURM_PROCID=3"), &rank, &var));
	assert_int_equal(3, rank);
	assert_string_equal("SLURM_PROCID", var);
	/* The launcher's variable before the step's SLURM_PROCID. */
	assert_int_equal(0, rank_of(ENV("SLURM_PROCID=0", "PMI_RANK=5"),
				    &rank, &var));
	assert_int_equal(5, rank);
	assert_string_equal("PMI_RANK", var);
	assert_int_equal(0, rank_of(ENV("SLURM_PROCID=1",
					"OMPI_COMM_WORLD_RANK=6"), &rank,
				    &var));
	assert_int_equal(6, rank);
	assert_int_equal(0, rank_of(ENV("OMPI_COMM_WORLD_RANK=6",
					"PMIX_RANK=7"), &rank, &var));
	assert_int_equal(7, rank);
	assert_string_equal("PMIX_RANK", var);
	assert_int_equal(0, rank_of(ENV("PMI_RANK=0"), &rank, &var));
	assert_int_equal(0, rank);
	/* Set but malformed: an error, not the next variable. */
	assert_int_equal(-1, rank_of(ENV("PMI_RANK=x", "SLURM_PROCID=2"),
				     &rank, &var));
	assert_non_null(strstr(err, "PMI_RANK='x' is not a rank"));
	assert_int_equal(-1, rank_of(ENV("PMI_RANK="), &rank, &var));
	assert_int_equal(-1, rank_of(ENV("SLURM_PROCID=65535"), &rank, &var));
	assert_int_equal(-1, rank_of(ENV("SLURM_PROCID=-1"), &rank, &var));
	/* None. */
	assert_int_equal(-1, rank_of(ENV("PATH=/bin"), &rank, &var));
	assert_null(var);
	assert_non_null(strstr(err, "no rank: none of PMI_RANK"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_appnum),
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_rank),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
