/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kav_fuzzer: the program model shared by the generator, the executor and
 * the reproducer files. See kav_fuzzer.c.
 */
#ifndef KAV_FUZZER_H
#define KAV_FUZZER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_CALLS	24
#define MAX_THREADS	4
#define NR_ARGS		5
#define SETUP_THREAD	0xff	/* runs first, alone, before any fork */
/* A repeat count that means "until the program's deadline". */
#define REPEAT_LOOP	0xffff

/* fd slots: slot n is fd SLOT_FD0 + n in every process of a program. */
#define NR_SLOTS	8
#define SLOT_FD0	400
/* fi_addrs buffers that calls mprotect or munmap under each other. */
#define NR_BUFS		3
#define BUF_WORDS	4096
/* Grants a program may add (the parent revokes them afterwards). */
#define NR_PGRANTS	8

/* OP_AV_CREATE a[3]: KAV_AV_JOB (flags bits 0-3 are the uAPI's). */
#define FZ_CREATE_JOB	0x20ULL
/* OP_INSERT a[3]: how the addresses are chosen. */
#define FZ_ADDR_WRONG	(1ULL << 28)	/* IPv4, whatever the AV's format */
#define FZ_ADDR_IN6	(1ULL << 29)	/* KAV_ADDR_SOCKADDR: IPv6 ones */
#define FZ_ADDR_BAD	(1ULL << 30)	/* the last one invalid */
#define FZ_ADDR_REPEAT	(1ULL << 31)	/* a batch repeating 3 addresses */
/* IPv4 addresses of one public bucket of the job table's index */
#define FZ_ADDR_COLLIDE	(1ULL << 32)
/* OP_INSERT a[2]: a thread's own fi_addrs, checked on a job table. */
#define FZ_OUT_CHECKED	7
/* Tags (grant add and set, pins, dump filters): see kav_fuzzer.c. */
#define NR_TAGS		8

enum fz_op {
	OP_DOM_OPEN,
	OP_SET_KEY,
	OP_AV_CREATE,
	OP_INSERT,
	OP_REMOVE,
	OP_KEY_INSERT,
	OP_KEY_REMOVE,
	OP_USER_ID,
	OP_EP_OPEN,
	OP_EP_ENABLE,
	OP_CLOSE,
	OP_DUP,
	OP_MAP,
	OP_MPROTECT,
	OP_MUNMAP,
	OP_FORK,
	OP_PIN,
	OP_UNPIN,
	OP_GRANT_ADD,
	OP_GRANT_DEL,
	OP_NL_DUMP,
	OP_RAW,
	OP_WHOAMI,
	OP_GRANT_SET,
	NR_OPS,
};

/*
 * One call: @thread runs @op with @a, @repeat times in a row (or until
 * the program's deadline; REPEAT_LOOP: the whole program long).
 */
struct fz_call {
	uint8_t thread;
	uint8_t op;
	uint16_t repeat;
	uint64_t a[NR_ARGS];
};

/*
 * A program: the setup calls (thread SETUP_THREAD) run first, in order;
 * then threads 0..@nr_threads-1 run their calls concurrently. With
 * @split > 0, threads @split.. run in a second process forked after the
 * setup (sharing its fds and named AVs), as uid 65534 if @drop.
 * @keyless is the allow_keyless module parameter during the program.
 * @ms is its time budget (0: the campaign's --prog-ms).
 */
struct fz_prog {
	uint8_t nr_threads, split, drop, keyless;
	uint16_t ms;
	uint32_t nr_calls;
	struct fz_call c[MAX_CALLS];
};

extern const char *const fz_op_names[NR_OPS];

/* Text reproducers: one header line, then one line per call. */
int fz_prog_write(FILE *f, const struct fz_prog *p);
int fz_prog_read(FILE *f, struct fz_prog *p);
/* The same from a string: 0, or -1 if malformed. */
int fz_prog_parse(const char *text, struct fz_prog *p);

/* splitmix64: every choice of a campaign comes from one seeded stream. */
struct fz_rng {
	uint64_t s;
};

uint64_t fz_rnd(struct fz_rng *r);
uint64_t fz_below(struct fz_rng *r, uint64_t n);
bool fz_chance(struct fz_rng *r, unsigned int percent);

/* A fresh random program, and a mutation of @p (using @other to splice). */
void fz_generate(struct fz_rng *r, struct fz_prog *p);
void fz_mutate(struct fz_rng *r, struct fz_prog *p, const struct fz_prog *other);
/* Drop call @i. */
void fz_drop_call(struct fz_prog *p, uint32_t i);

#endif /* KAV_FUZZER_H */
