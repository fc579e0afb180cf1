// SPDX-License-Identifier: GPL-2.0
/*
 * kav_fuzzer's program model (tests/fuzz/fz_prog.c), which needs no
 * kernel: reproducer files round-trip and reject what the executor could
 * not run, generated and mutated programs stay well formed, and the
 * generator does make the shape races need (several threads on one AV
 * and one buffer, one of them taking the buffer away).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../fuzz/kav_fuzzer.h"

static void assert_same(const struct fz_prog *a, const struct fz_prog *b)
{
	uint32_t i;

	assert_int_equal(a->nr_threads, b->nr_threads);
	assert_int_equal(a->split, b->split);
	assert_int_equal(a->drop, b->drop);
	assert_int_equal(a->keyless, b->keyless);
	assert_int_equal(a->ms, b->ms);
	assert_int_equal(a->nr_calls, b->nr_calls);
	for (i = 0; i < a->nr_calls; i++) {
		assert_int_equal(a->c[i].thread, b->c[i].thread);
		assert_int_equal(a->c[i].op, b->c[i].op);
		assert_int_equal(a->c[i].repeat, b->c[i].repeat);
		assert_memory_equal(a->c[i].a, b->c[i].a, sizeof(a->c[i].a));
	}
}

/* What the executor relies on: threads, split, ops and calls in range. */
static void assert_well_formed(const struct fz_prog *p)
{
	uint32_t i;

	assert_in_range(p->nr_threads, 1, MAX_THREADS);
	assert_true(p->split < p->nr_threads);
	assert_in_range(p->nr_calls, 0, MAX_CALLS);
	for (i = 0; i < p->nr_calls; i++) {
		assert_true(p->c[i].op < NR_OPS);
		assert_true(p->c[i].repeat >= 1);
		if (p->c[i].thread != SETUP_THREAD)
			assert_true(p->c[i].thread < p->nr_threads);
	}
}

static void written_programs_read_back(void **state)
{
	struct fz_rng r = { 42 };
	struct fz_prog p, q;
	char buf[8192];
	int n;

	(void)state;
	for (n = 0; n < 2000; n++) {
		FILE *f = fmemopen(buf, sizeof(buf), "w");

		fz_generate(&r, &p);
		if (n % 2)
			fz_mutate(&r, &p, &p);
		assert_non_null(f);
		assert_int_equal(0, fz_prog_write(f, &p));
		fclose(f);
		assert_int_equal(0, fz_prog_parse(buf, &q));
		assert_same(&p, &q);
	}
}

/* run.sh saves a reproducer with comment lines before the header. */
static void comments_before_the_header(void **state)
{
	struct fz_prog p;

	(void)state;
	assert_int_equal(0, fz_prog_parse(
		"# 6.12.117+deb12-amd64: kernel report\n"
		"\n"
		"kav-fuzz-prog 1 threads 2 split 1 drop 1 keyless 0 ms 1500\n"
		"S dom_open r1 0x0 0x0 0x0 0x0 0x0\n"
		"# a comment between calls\n"
		"1 insert r65535 0x2 0x400 0x0 0x0 0x0\n", &p));
	assert_int_equal(2, p.nr_threads);
	assert_int_equal(1, p.split);
	assert_int_equal(1, p.drop);
	assert_int_equal(0, p.keyless);
	assert_int_equal(1500, p.ms);
	assert_int_equal(2, p.nr_calls);
	assert_int_equal(SETUP_THREAD, p.c[0].thread);
	assert_int_equal(OP_INSERT, p.c[1].op);
	assert_int_equal(REPEAT_LOOP, p.c[1].repeat);
	assert_int_equal(0x400, p.c[1].a[1]);
}

static void bad_files_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"# only a comment\n",
		"kav-fuzz-prog 2 threads 2 split 0 drop 0 keyless 0\n",
		"kav-fuzz-prog 1 threads 0 split 0 drop 0 keyless 0\n",
		"kav-fuzz-prog 1 threads 5 split 0 drop 0 keyless 0\n",
		"kav-fuzz-prog 1 threads 2 split 2 drop 0 keyless 0\n",
		"kav-fuzz-prog 1 threads 2 split 0 drop 0 keyless 0\n"
		"0 no_such_op r1 0x0 0x0 0x0 0x0 0x0\n",
		"kav-fuzz-prog 1 threads 2 split 0 drop 0 keyless 0\n"
		"2 insert r1 0x0 0x0 0x0 0x0 0x0\n",
		"kav-fuzz-prog 1 threads 2 split 0 drop 0 keyless 0\n"
		"0 insert r1 0x0 0x0\n",
	};
	char many[4096];
	struct fz_prog p;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(-1, fz_prog_parse(bad[i], &p));
	/* One call more than a program holds. */
	len = (size_t)snprintf(many, sizeof(many),
			       "kav-fuzz-prog 1 threads 1 split 0 drop 0 keyless 0\n");
	for (i = 0; i <= MAX_CALLS; i++)
		len += (size_t)snprintf(many + len, sizeof(many) - len,
					"0 dup r1 0x0 0x1 0x0 0x0 0x0\n");
	assert_int_equal(-1, fz_prog_parse(many, &p));
}

static void generated_and_mutated_stay_well_formed(void **state)
{
	struct fz_rng r = { 7 };
	struct fz_prog p, other;
	bool grew = false;
	int n, m;

	(void)state;
	fz_generate(&r, &other);
	for (n = 0; n < 2000; n++) {
		uint8_t threads;

		fz_generate(&r, &p);
		assert_well_formed(&p);
		for (m = 0; m < 50; m++) {
			threads = p.nr_threads;
			fz_mutate(&r, &p, &other);
			assert_well_formed(&p);
			grew |= p.nr_threads > threads;
		}
		other = p;
	}
	/* The thread-adding mutation happens. */
	assert_true(grew);
}

/*
 * The shape of issue 14's double erase, with no knowledge of it in the
 * generator: one thread looping an insert that writes to buffer B, one
 * looping mprotect or munmap of B, one looping a remove on the same AV.
 */
static bool race_shape(const struct fz_prog *p)
{
	bool ins = false, intf = false, rm = false;
	uint64_t av = ~0ULL, buf = ~0ULL;
	uint32_t i;

	for (i = 0; i < p->nr_calls; i++)
		if (p->c[i].thread != SETUP_THREAD && p->c[i].op == OP_INSERT &&
		    p->c[i].repeat == REPEAT_LOOP && p->c[i].a[2] < NR_BUFS) {
			av = p->c[i].a[0];
			buf = p->c[i].a[2];
			ins = true;
			break;
		}
	for (i = 0; ins && i < p->nr_calls; i++) {
		const struct fz_call *c = &p->c[i];

		if (c->thread == SETUP_THREAD || c->repeat != REPEAT_LOOP)
			continue;
		if ((c->op == OP_MPROTECT || c->op == OP_MUNMAP) &&
		    c->a[0] == buf)
			intf = true;
		if (c->op == OP_REMOVE && c->a[0] == av)
			rm = true;
	}
	return ins && intf && rm;
}

static void the_race_shape_is_generated(void **state)
{
	struct fz_rng r = { 2026 };
	unsigned int n, fresh = 0, mutated = 0;
	struct fz_prog p;
	enum { N = 20000 };

	(void)state;
	for (n = 0; n < N; n++) {
		fz_generate(&r, &p);
		fresh += race_shape(&p);
		fz_mutate(&r, &p, &p);
		mutated += race_shape(&p);
	}
	print_message("race shape: %.2f %% of fresh programs, %.2f %% after one mutation\n",
		      100.0 * fresh / N, 100.0 * mutated / N);
	assert_true(fresh > 0);
	assert_true(mutated > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(written_programs_read_back),
		cmocka_unit_test(comments_before_the_header),
		cmocka_unit_test(bad_files_refused),
		cmocka_unit_test(generated_and_mutated_stay_well_formed),
		cmocka_unit_test(the_race_shape_is_generated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
