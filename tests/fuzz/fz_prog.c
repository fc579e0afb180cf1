// SPDX-License-Identifier: GPL-2.0
/*
 * kav_fuzzer's programs: generation, mutation and the reproducer format.
 *
 * The arguments of a call are five numbers whose meaning depends on the
 * operation (kav_fuzzer.c's executor decodes them); the generator draws
 * each from valid values (the resources a program really has), boundary
 * values (0, 1, KAV_BATCH_MAX, KAV_MAX_AUTH_KEYS...) and corrupted ones
 * (sizes, flags, reserved fields, pointers).
 *
 * Reproducer file (lines starting with '#' are comments):
 *   kav-fuzz-prog 1 threads T split S drop D keyless K [ms MS]
 *   <thread|S> <op> r<repeat> <a0> <a1> <a2> <a3> <a4>
 * (r65535: the call loops until the program's deadline, MS ms.)
 *   ...
 */
#include <inttypes.h>
#include <string.h>
#include "kav_fuzzer.h"

const char *const fz_op_names[NR_OPS] = {
	[OP_DOM_OPEN] = "dom_open",	[OP_SET_KEY] = "set_key",
	[OP_AV_CREATE] = "av_create",	[OP_INSERT] = "insert",
	[OP_REMOVE] = "remove",		[OP_KEY_INSERT] = "key_insert",
	[OP_KEY_REMOVE] = "key_remove",	[OP_USER_ID] = "user_id",
	[OP_EP_OPEN] = "ep_open",	[OP_EP_ENABLE] = "ep_enable",
	[OP_CLOSE] = "close",		[OP_DUP] = "dup",
	[OP_MAP] = "map",		[OP_MPROTECT] = "mprotect",
	[OP_MUNMAP] = "munmap",		[OP_FORK] = "fork",
	[OP_PIN] = "pin",		[OP_UNPIN] = "unpin",
	[OP_GRANT_ADD] = "grant_add",	[OP_GRANT_DEL] = "grant_del",
	[OP_NL_DUMP] = "nl_dump",	[OP_RAW] = "raw",
	[OP_WHOAMI] = "whoami",		[OP_GRANT_SET] = "grant_set",
};

uint64_t fz_rnd(struct fz_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t fz_below(struct fz_rng *r, uint64_t n)
{
	return n ? fz_rnd(r) % n : 0;
}

bool fz_chance(struct fz_rng *r, unsigned int percent)
{
	return fz_below(r, 100) < percent;
}

/* --- argument values ------------------------------------------------------ */

enum slot_kind { S_DOM, S_AV, S_EP, S_ANY };

/* Setup puts domains in slots 0-1, AVs in 2-3, endpoints in 4-5. */
static uint64_t gen_slot(struct fz_rng *r, enum slot_kind k)
{
	/*
	 * Races need two calls on the same object: prefer the first slot
	 * of each kind, which the setup always fills.
	 */
	if (k != S_ANY && fz_chance(r, 85))
		return 2 * k + (fz_chance(r, 70) ? 0 : 1);
	return fz_below(r, NR_SLOTS);
}

/* A fi_addrs buffer: the first one mostly, for the same reason. */
static uint64_t gen_buf(struct fz_rng *r)
{
	return fz_chance(r, 60) ? 0 : fz_below(r, NR_BUFS);
}

/* Keys: 10-13 are granted to root, 20 to uid 65534, 30 to nobody. */
static uint64_t gen_vni(struct fz_rng *r)
{
	static const uint32_t vnis[] = { 10, 10, 11, 12, 13, 20, 30, 0 };

	if (fz_chance(r, 90))
		return vnis[fz_below(r, sizeof(vnis) / sizeof(vnis[0]))];
	return (uint32_t)fz_rnd(r);
}

static uint64_t gen_count(struct fz_rng *r)
{
	static const uint64_t counts[] = {
		1, 1, 1, 2, 3, 8, 8, 64, 256, 1024, 1024, 4096,
		0, 16384, 16385, 0xffffffffULL,
	};

	if (fz_chance(r, 95))
		return counts[fz_below(r, sizeof(counts) / sizeof(counts[0]))];
	return fz_rnd(r);
}

/* An index: mostly the first few entries, which every insert refills. */
static uint64_t gen_index(struct fz_rng *r)
{
	static const uint64_t idx[] = {
		0, 0, 0, 1, 2, 3, 7, 1023, 4095, 65536, ~0ULL, 1ULL << 32,
	};

	if (fz_chance(r, 90))
		return idx[fz_below(r, sizeof(idx) / sizeof(idx[0]))];
	return fz_rnd(r);
}

/* How to corrupt the argument structure: 0 (mostly) leaves it valid. */
#define NR_CORRUPT	9
static uint64_t gen_corrupt(struct fz_rng *r)
{
	return fz_chance(r, 85) ? 0 : 1 + fz_below(r, NR_CORRUPT - 1);
}

/*
 * A tag (kav_fuzzer.c's tags[]): 0 the programs' shared one, 1 one of
 * the program's own, mostly; else the boundaries (control and NUL bytes,
 * 63 and 64 bytes, none).
 */
static uint64_t gen_tag(struct fz_rng *r)
{
	if (fz_chance(r, 80))
		return fz_below(r, 2);
	return fz_below(r, NR_TAGS);
}

/* Calls cheap enough to hammer for a whole program. */
static bool cheap_op(uint8_t op)
{
	switch (op) {
	case OP_INSERT: case OP_REMOVE: case OP_KEY_INSERT:
	case OP_KEY_REMOVE: case OP_USER_ID: case OP_EP_ENABLE:
	case OP_DUP: case OP_MAP: case OP_MPROTECT: case OP_MUNMAP:
	case OP_NL_DUMP: case OP_RAW: case OP_WHOAMI:
		return true;
	default:
		return false;
	}
}

/*
 * How many times in a row: a race needs both sides running for a while,
 * so cheap calls often loop for the whole program (REPEAT_LOOP).
 */
static uint16_t gen_repeat(struct fz_rng *r, uint8_t op)
{
	unsigned int x = (unsigned int)fz_below(r, 10);

	if (cheap_op(op) && x >= 6)
		return REPEAT_LOOP;
	if (x < 3)
		return 1;
	if (x < 6)
		return (uint16_t)(2 + fz_below(r, 15));
	return (uint16_t)(64 + fz_below(r, 4000));
}

/* A program's time budget: the default (short), or 1-3 s. */
static uint16_t gen_ms(struct fz_rng *r)
{
	return fz_chance(r, 50) ? 0 : (uint16_t)(1000 + fz_below(r, 2001));
}

/* Fill @c's arguments for its op. */
static void gen_args(struct fz_rng *r, struct fz_call *c)
{
	uint64_t *a = c->a;

	memset(a, 0, sizeof(c->a));
	switch (c->op) {
	case OP_DOM_OPEN:
		a[0] = gen_slot(r, S_DOM);
		break;
	case OP_SET_KEY:
		a[0] = gen_slot(r, S_DOM);
		a[1] = gen_vni(r);
		a[2] = gen_corrupt(r);
		break;
	case OP_AV_CREATE:
		a[0] = gen_slot(r, S_DOM);
		a[1] = gen_slot(r, S_AV);
		/* format: mostly sockaddr_in; 0 and 5 are invalid; addr_max */
		a[2] = (fz_chance(r, 70) ? 2 : fz_below(r, 6)) |
		       (fz_chance(r, 85) ? 0 : fz_below(r, 8)) << 8;
		if (fz_chance(r, 20)) {
			/* a job's table: JOB alone, mostly; small indices */
			a[3] = FZ_CREATE_JOB |
			       (fz_chance(r, 90) ? 0 : fz_below(r, 16)) |
			       (fz_chance(r, 90) ? fz_below(r, 3) :
				fz_below(r, 6)) << 16 |
			       (fz_chance(r, 95) ? 0 : fz_below(r, 8)) << 12;
			a[4] = gen_corrupt(r);
			break;
		}
		/* flags (NAMED 1, EXCL 2, RDONLY 4, OWNER 8, bad 16), name
		 * (4-7: bad ones), mode (6-7: bad), count hint, owner */
		a[3] = (fz_chance(r, 50) ? 1 : 0) |
		       (fz_chance(r, 15) ? 2 : 0) |
		       (fz_chance(r, 25) ? 4 : 0) |
		       (fz_chance(r, 10) ? 8 : 0) |
		       (fz_chance(r, 3) ? 16 : 0) |
		       (fz_chance(r, 85) ? fz_below(r, 4) : fz_below(r, 8)) << 8 |
		       (fz_chance(r, 90) ? fz_below(r, 6) : fz_below(r, 8)) << 12 |
		       fz_below(r, 6) << 16 | fz_below(r, 4) << 20;
		a[4] = gen_corrupt(r);
		break;
	case OP_INSERT:
		a[0] = gen_slot(r, S_AV);
		a[1] = gen_count(r);
		/* fi_addrs: buffers 0-2, 3 none, 4 bad, 5 read-only, 6 tail,
		 * 7 the thread's own (FZ_OUT_CHECKED) */
		a[2] = fz_chance(r, 75) ? gen_buf(r) : fz_below(r, 8);
		/* flags, key handle, address offset, address choice */
		a[3] = (fz_chance(r, 20) ? 1 + fz_below(r, 3) : 0) |
		       (fz_chance(r, 90) ? fz_below(r, 4) : fz_below(r, 256))
		       << 8 | fz_below(r, 2048) << 16 |
		       (fz_chance(r, 4) ? FZ_ADDR_WRONG : 0) |
		       (fz_chance(r, 50) ? FZ_ADDR_IN6 : 0) |
		       (fz_chance(r, 5) ? FZ_ADDR_BAD : 0) |
		       (fz_chance(r, 20) ? FZ_ADDR_REPEAT : 0) |
		       (fz_chance(r, 10) ? FZ_ADDR_COLLIDE : 0);
		a[4] = gen_corrupt(r);
		break;
	case OP_REMOVE:
		a[0] = gen_slot(r, S_AV);
		a[1] = fz_chance(r, 60) ? 1 : gen_count(r);
		/* indices: 0-2 what an insert wrote to buffer n, 3 a run
		 * from a[3], 4 a[3] repeated, 5 a bad pointer */
		a[2] = fz_chance(r, 50) ? gen_buf(r) : fz_below(r, 6);
		a[3] = gen_index(r);
		a[4] = gen_corrupt(r);
		break;
	case OP_KEY_INSERT:
		a[0] = gen_slot(r, S_AV);
		a[1] = gen_vni(r);
		a[2] = gen_corrupt(r);
		a[3] = fz_chance(r, 5);		/* key.__reserved */
		break;
	case OP_KEY_REMOVE:
		a[0] = gen_slot(r, S_AV);
		a[1] = fz_chance(r, 90) ? fz_below(r, 4) : gen_index(r);
		a[2] = gen_corrupt(r);
		a[3] = fz_chance(r, 5);
		break;
	case OP_USER_ID:
		a[0] = gen_slot(r, S_AV);
		a[1] = gen_index(r);
		a[2] = fz_chance(r, 70) ? 0 : fz_below(r, 4);
		a[3] = fz_chance(r, 30) ? ~0ULL : fz_rnd(r);
		a[4] = gen_corrupt(r);
		break;
	case OP_EP_OPEN:
		a[0] = gen_slot(r, S_AV);
		a[1] = gen_slot(r, S_EP);
		a[2] = gen_corrupt(r);
		break;
	case OP_EP_ENABLE:
		a[0] = gen_slot(r, S_EP);
		a[1] = gen_corrupt(r);
		break;
	case OP_CLOSE:
		a[0] = gen_slot(r, S_ANY);
		break;
	case OP_DUP:
		a[0] = gen_slot(r, S_ANY);
		a[1] = gen_slot(r, S_ANY);
		break;
	case OP_MAP:
		a[0] = gen_slot(r, fz_chance(r, 80) ? S_AV : S_ANY);
		a[1] = fz_below(r, 5);		/* length */
		a[2] = fz_chance(r, 80) ? 0 : fz_below(r, 4);	/* prot */
		a[3] = fz_chance(r, 85) ? 0 : fz_below(r, 4);	/* offset */
		a[4] = fz_chance(r, 30);	/* keep it mapped */
		break;
	case OP_MPROTECT:
		a[0] = gen_buf(r);
		a[1] = fz_below(r, 2);
		break;
	case OP_MUNMAP:
		a[0] = gen_buf(r);
		break;
	case OP_FORK:
		a[0] = gen_slot(r, S_AV);
		a[1] = gen_slot(r, S_ANY);
		break;
	case OP_PIN:
	case OP_UNPIN:
		a[0] = gen_slot(r, S_AV);
		a[1] = fz_chance(r, 90) ? 0 : fz_rnd(r) & 0xffff;
		/* the pin's tag: none (0) mostly */
		a[2] = fz_chance(r, 60) ? 0 : gen_tag(r);
		break;
	case OP_GRANT_ADD:
		a[0] = gen_vni(r);
		/* selector: 0-5, 7-8 valid; 6, 9-13 malformed */
		a[1] = fz_chance(r, 85) ? fz_below(r, 6) :
		       fz_chance(r, 40) ? 7 + fz_below(r, 2) : fz_below(r, 14);
		a[2] = fz_chance(r, 70) ? 0 : fz_below(r, 2000);
		a[3] = fz_below(r, NR_PGRANTS);
		/* tag; limit_avs (0: none, mostly) */
		a[4] = gen_tag(r) | (fz_chance(r, 80) ? 0 : fz_below(r, 4)) << 8;
		break;
	case OP_GRANT_SET:
		a[0] = fz_below(r, NR_PGRANTS);
		/* what to set: limit_entries 1, limit_avs 2, tag 4 */
		a[1] = fz_chance(r, 95) ? 1 + fz_below(r, 7) : 0;
		a[2] = fz_below(r, 6);		/* limit value */
		a[3] = gen_tag(r);
		/* 0: the program's grant; 1: no id; else an id */
		a[4] = fz_chance(r, 90) ? 0 : fz_chance(r, 50) ? 1 :
		       fz_rnd(r) & 0xffff;
		break;
	case OP_WHOAMI:
		a[0] = gen_slot(r, S_DOM);
		a[1] = fz_chance(r, 80) ? fz_below(r, 4) : fz_below(r, 6);
		a[2] = fz_chance(r, 80) ? fz_below(r, 3) : fz_below(r, 7);
		a[3] = fz_chance(r, 90) ? 0 : fz_below(r, 4);
		a[4] = gen_corrupt(r);
		break;
	case OP_GRANT_DEL:
		a[0] = fz_below(r, NR_PGRANTS);
		a[1] = fz_chance(r, 90) ? 0 : fz_rnd(r) & 0xffff;
		break;
	case OP_NL_DUMP:
		/* 0-7 the dumps; 8-15 one grant, filters, bad requests */
		a[0] = fz_below(r, 16);
		a[1] = gen_slot(r, S_AV);
		a[2] = gen_vni(r);
		a[3] = gen_tag(r);
		break;
	case OP_RAW:
		a[0] = gen_slot(r, S_ANY);
		a[1] = fz_rnd(r);
		a[2] = fz_rnd(r);
		a[3] = fz_rnd(r);
		break;
	}
}

/* Weights of the concurrent calls. */
static const uint8_t op_weight[NR_OPS] = {
	[OP_DOM_OPEN] = 2,	[OP_SET_KEY] = 2,	[OP_AV_CREATE] = 5,
	[OP_INSERT] = 22,	[OP_REMOVE] = 16,	[OP_KEY_INSERT] = 6,
	[OP_KEY_REMOVE] = 5,	[OP_USER_ID] = 4,	[OP_EP_OPEN] = 4,
	[OP_EP_ENABLE] = 4,	[OP_CLOSE] = 4,		[OP_DUP] = 3,
	[OP_MAP] = 5,		[OP_MPROTECT] = 9,	[OP_MUNMAP] = 4,
	[OP_FORK] = 2,		[OP_PIN] = 2,		[OP_UNPIN] = 2,
	[OP_GRANT_ADD] = 3,	[OP_GRANT_DEL] = 3,	[OP_NL_DUMP] = 4,
	[OP_RAW] = 3,		[OP_WHOAMI] = 3,	[OP_GRANT_SET] = 2,
};

static bool cheap_op(uint8_t op);

/* An op by weight; @cheap: only among the calls cheap enough to loop. */
static uint8_t gen_op_among(struct fz_rng *r, bool cheap)
{
	unsigned int total = 0, x, i;

	for (i = 0; i < NR_OPS; i++)
		if (!cheap || cheap_op((uint8_t)i))
			total += op_weight[i];
	x = (unsigned int)fz_below(r, total);
	for (i = 0; i < NR_OPS; i++) {
		if (cheap && !cheap_op((uint8_t)i))
			continue;
		if (x < op_weight[i])
			return (uint8_t)i;
		x -= op_weight[i];
	}
	return OP_INSERT;
}

static uint8_t gen_op(struct fz_rng *r)
{
	return gen_op_among(r, false);
}

static void add_call(struct fz_rng *r, struct fz_prog *p, uint8_t thread,
		     uint8_t op)
{
	struct fz_call *c;

	if (p->nr_calls >= MAX_CALLS)
		return;
	c = &p->c[p->nr_calls++];
	c->thread = thread;
	c->op = op;
	c->repeat = thread == SETUP_THREAD ? 1 : gen_repeat(r, op);
	gen_args(r, c);
}

/* The user buffer (0..NR_BUFS-1) that @c passes to the kernel, or -1. */
static int call_buf(const struct fz_call *c)
{
	if ((c->op == OP_INSERT || c->op == OP_REMOVE) && c->a[2] < NR_BUFS)
		return (int)c->a[2];
	return -1;
}

/*
 * Make @c use the AV in slot @av and the fi_addrs buffer @buf: races
 * need several threads on one object and one buffer.
 */
static void focus_call(struct fz_call *c, uint64_t av, uint64_t buf)
{
	if (c->thread == SETUP_THREAD)
		return;
	switch (c->op) {
	case OP_INSERT: case OP_REMOVE:
		if (c->a[2] < NR_BUFS)
			c->a[2] = buf;
		/* fall through */
	case OP_KEY_INSERT: case OP_KEY_REMOVE: case OP_USER_ID:
	case OP_EP_OPEN: case OP_FORK: case OP_PIN: case OP_UNPIN:
		c->a[0] = av;
		break;
	case OP_MAP:
		if (c->a[0] % NR_SLOTS / 2 == S_AV)
			c->a[0] = av;
		break;
	case OP_MPROTECT: case OP_MUNMAP:
		c->a[0] = buf;
		break;
	}
}

static void focus_prog(struct fz_rng *r, struct fz_prog *p)
{
	uint64_t av = gen_slot(r, S_AV), buf = gen_buf(r);
	uint32_t i;

	for (i = 0; i < p->nr_calls; i++)
		focus_call(&p->c[i], av, buf);
}

/*
 * A looper for thread @t: one call (a cheap one for the whole program,
 * others a random number of times). It may be an interferer that takes
 * away (mprotect, munmap) the buffer an earlier thread's call writes to
 * or reads from. Writers (insert, remove: they pass such a buffer) are
 * favoured, the first thread's call most.
 */
static void add_looper(struct fz_rng *r, struct fz_prog *p, uint8_t t)
{
	struct fz_call *c;
	int buf = -1;
	uint32_t i;

	if (p->nr_calls >= MAX_CALLS)
		return;
	for (i = 0; i < p->nr_calls; i++)
		if (p->c[i].thread != SETUP_THREAD && call_buf(&p->c[i]) >= 0)
			buf = call_buf(&p->c[i]);
	if (buf >= 0 && fz_chance(r, 50)) {
		add_call(r, p, t, fz_chance(r, 75) ? OP_MPROTECT : OP_MUNMAP);
		p->c[p->nr_calls - 1].a[0] = (uint64_t)buf;
	} else if (fz_chance(r, buf < 0 ? 50 : 35)) {
		add_call(r, p, t, fz_chance(r, 60) ? OP_INSERT : OP_REMOVE);
		c = &p->c[p->nr_calls - 1];
		if (c->a[2] >= NR_BUFS)
			c->a[2] = gen_buf(r);
	} else {
		add_call(r, p, t, gen_op_among(r, fz_chance(r, 80)));
	}
	c = &p->c[p->nr_calls - 1];
	if (cheap_op(c->op))
		c->repeat = REPEAT_LOOP;
}

static void gen_loopers(struct fz_rng *r, struct fz_prog *p)
{
	uint8_t t;

	for (t = 0; t < p->nr_threads; t++)
		add_looper(r, p, t);
}

/*
 * One more thread, looping on the object and buffer the program's first
 * insert or remove uses: a race the program came close to may need a
 * third party (insert, mprotect of its output, and a remove).
 */
static void add_thread(struct fz_rng *r, struct fz_prog *p)
{
	uint64_t av = 2, buf = 0;
	uint32_t i;

	if (p->nr_threads >= MAX_THREADS || p->nr_calls >= MAX_CALLS)
		return;
	for (i = 0; i < p->nr_calls; i++)
		if (p->c[i].thread != SETUP_THREAD && call_buf(&p->c[i]) >= 0) {
			av = p->c[i].a[0];
			buf = p->c[i].a[2];
			break;
		}
	add_looper(r, p, p->nr_threads++);
	focus_call(&p->c[p->nr_calls - 1], av, buf);
}

/* Setup: domains in slots 0-1, AVs in 2-3 (often the same named one). */
static void gen_setup(struct fz_rng *r, struct fz_prog *p)
{
	unsigned int i, nr_avs = 1 + fz_below(r, 2);
	bool job = fz_chance(r, 20), limited = fz_chance(r, 15);
	struct fz_call *c;

	if (limited) {
		/* A grant of the program's own, with limits, for the key. */
		add_call(r, p, SETUP_THREAD, OP_GRANT_ADD);
		c = &p->c[p->nr_calls - 1];
		c->a[0] = 30 + fz_below(r, 2);
		c->a[1] = 0;
		c->a[2] = (uint64_t[]){ 1, 8, 64, 1024 }[fz_below(r, 4)];
		c->a[4] = 1 | (fz_chance(r, 50) ? 0 : 1 + fz_below(r, 2)) << 8;
	}
	add_call(r, p, SETUP_THREAD, OP_DOM_OPEN);
	p->c[p->nr_calls - 1].a[0] = 0;
	if (job || limited || fz_chance(r, 30)) {
		add_call(r, p, SETUP_THREAD, OP_SET_KEY);
		c = &p->c[p->nr_calls - 1];
		c->a[0] = 0;
		c->a[2] = 0;
		if (limited)
			c->a[1] = p->c[0].a[0];
		else if (job)
			c->a[1] = 10 + fz_below(r, 4);
	}
	if (fz_chance(r, 40)) {
		add_call(r, p, SETUP_THREAD, OP_DOM_OPEN);
		p->c[p->nr_calls - 1].a[0] = 1;
	}
	for (i = 0; i < nr_avs; i++) {
		add_call(r, p, SETUP_THREAD, OP_AV_CREATE);
		c = &p->c[p->nr_calls - 1];
		c->a[0] = (i == 0 || fz_chance(r, 70)) ? 0 : 1;
		c->a[1] = 2 + i;
		if (job && (i == 0 || fz_chance(r, 50))) {
			/* the job's table (a second one: the same, mostly) */
			c->a[0] = 0;
			c->a[2] = fz_chance(r, 80) ? 2 : 1 + fz_below(r, 4);
			c->a[3] = FZ_CREATE_JOB | fz_below(r, 3) << 16;
			c->a[4] = 0;
		} else if (i == 0 || fz_chance(r, 60)) {
			/* a valid create: sockaddr_in, maybe named */
			c->a[2] = 2;
			c->a[3] &= ~0x3fULL;
			if (fz_chance(r, 40))
				c->a[3] |= 1;
			c->a[4] = 0;
		}
	}
	if (fz_chance(r, 30)) {
		add_call(r, p, SETUP_THREAD, OP_KEY_INSERT);
		p->c[p->nr_calls - 1].a[0] = 2;
		p->c[p->nr_calls - 1].a[2] = 0;
	}
}

void fz_generate(struct fz_rng *r, struct fz_prog *p)
{
	unsigned int t, n;

	memset(p, 0, sizeof(*p));
	p->nr_threads = 2 + fz_below(r, MAX_THREADS - 1);
	if (fz_chance(r, 25)) {
		p->split = 1 + fz_below(r, p->nr_threads - 1);
		p->drop = fz_chance(r, 40);
	}
	p->keyless = fz_chance(r, 75);
	p->ms = gen_ms(r);
	gen_setup(r, p);
	if (fz_chance(r, 50)) {
		gen_loopers(r, p);
		if (fz_chance(r, 85))
			focus_prog(r, p);
	} else {
		for (t = 0; t < p->nr_threads; t++)
			for (n = 1 + fz_below(r, 3); n; n--)
				add_call(r, p, (uint8_t)t, gen_op(r));
		if (fz_chance(r, 40))
			focus_prog(r, p);
	}
}

void fz_drop_call(struct fz_prog *p, uint32_t i)
{
	if (i >= p->nr_calls)
		return;
	memmove(&p->c[i], &p->c[i + 1], (p->nr_calls - i - 1) * sizeof(p->c[0]));
	p->nr_calls--;
}

void fz_mutate(struct fz_rng *r, struct fz_prog *p, const struct fz_prog *other)
{
	unsigned int n = 1 + fz_below(r, 3);
	struct fz_call *c;

	while (n--) {
		c = p->nr_calls ? &p->c[fz_below(r, p->nr_calls)] : NULL;
		switch (fz_below(r, 11)) {
		case 0:		/* new arguments */
			if (c)
				gen_args(r, c);
			break;
		case 1:		/* one argument */
			if (c)
				c->a[fz_below(r, NR_ARGS)] ^= 1ULL << fz_below(r, 64);
			break;
		case 2:		/* another call */
			add_call(r, p, (uint8_t)fz_below(r, p->nr_threads),
				 gen_op(r));
			break;
		case 3:
			if (p->nr_calls > 1)
				fz_drop_call(p, (uint32_t)fz_below(r, p->nr_calls));
			break;
		case 4:		/* another thread, repeat count */
			if (c && c->thread != SETUP_THREAD) {
				c->thread = (uint8_t)fz_below(r, p->nr_threads);
				c->repeat = gen_repeat(r, c->op);
			}
			break;
		case 8:		/* time budget; loop the call */
			p->ms = gen_ms(r);
			if (c && c->thread != SETUP_THREAD && cheap_op(c->op))
				c->repeat = REPEAT_LOOP;
			break;
		case 9:		/* one AV, one buffer */
			focus_prog(r, p);
			break;
		case 10:	/* a third (or fourth) party */
			add_thread(r, p);
			break;
		case 5:		/* a call from another program */
			if (other && other->nr_calls &&
			    p->nr_calls < MAX_CALLS) {
				p->c[p->nr_calls] =
					other->c[fz_below(r, other->nr_calls)];
				if (p->c[p->nr_calls].thread != SETUP_THREAD)
					p->c[p->nr_calls].thread = (uint8_t)
						fz_below(r, p->nr_threads);
				p->nr_calls++;
			}
			break;
		case 6:		/* processes */
			p->split = fz_chance(r, 50) ? 0 :
				   1 + fz_below(r, p->nr_threads - 1);
			p->drop = fz_chance(r, 40);
			break;
		default:	/* the same call with a different op */
			if (c && c->thread != SETUP_THREAD) {
				c->op = gen_op(r);
				gen_args(r, c);
			}
			break;
		}
	}
}

/* --- reproducer files ----------------------------------------------------- */

int fz_prog_write(FILE *f, const struct fz_prog *p)
{
	uint32_t i;

	fprintf(f, "kav-fuzz-prog 1 threads %u split %u drop %u keyless %u",
		p->nr_threads, p->split, p->drop, p->keyless);
	if (p->ms)
		fprintf(f, " ms %u", p->ms);
	fprintf(f, "\n");
	for (i = 0; i < p->nr_calls; i++) {
		const struct fz_call *c = &p->c[i];

		if (c->thread == SETUP_THREAD)
			fprintf(f, "S");
		else
			fprintf(f, "%u", c->thread);
		fprintf(f, " %s r%u 0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64
			" 0x%" PRIx64 " 0x%" PRIx64 "\n", fz_op_names[c->op],
			c->repeat, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4]);
	}
	return ferror(f) ? -1 : 0;
}

int fz_prog_read(FILE *f, struct fz_prog *p)
{
	unsigned int t, s, d, k, rep, op, ms = 0;
	char line[512], th[8], name[32], *msp;
	uint64_t a[NR_ARGS];

	memset(p, 0, sizeof(*p));
	/* Comments may come first: run.sh names the kernel and the finding. */
	do {
		if (!fgets(line, sizeof(line), f))
			return -1;
	} while (line[0] == '#' || line[0] == '\n');
	if (sscanf(line, "kav-fuzz-prog 1 threads %u split %u drop %u keyless %u",
		   &t, &s, &d, &k) != 4 || t < 1 || t > MAX_THREADS ||
	    s >= t)
		return -1;
	p->nr_threads = (uint8_t)t;
	p->split = (uint8_t)s;
	p->drop = !!d;
	p->keyless = !!k;
	msp = strstr(line, " ms ");
	if (msp && sscanf(msp, " ms %u", &ms) == 1 && ms <= 60000)
		p->ms = (uint16_t)ms;
	while (fgets(line, sizeof(line), f)) {
		struct fz_call *c;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%7s %31s r%u %" SCNx64 " %" SCNx64 " %" SCNx64
			   " %" SCNx64 " %" SCNx64, th, name, &rep, &a[0],
			   &a[1], &a[2], &a[3], &a[4]) != 8 ||
		    p->nr_calls >= MAX_CALLS)
			return -1;
		for (op = 0; op < NR_OPS; op++)
			if (!strcmp(name, fz_op_names[op]))
				break;
		if (op == NR_OPS)
			return -1;
		c = &p->c[p->nr_calls++];
		c->op = (uint8_t)op;
		c->repeat = (uint16_t)(rep ? rep : 1);
		memcpy(c->a, a, sizeof(a));
		if (th[0] == 'S') {
			c->thread = SETUP_THREAD;
		} else {
			c->thread = (uint8_t)(th[0] - '0');
			if (c->thread >= p->nr_threads)
				return -1;
		}
	}
	return 0;
}

int fz_prog_parse(const char *text, struct fz_prog *p)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f)
		return -1;
	ret = fz_prog_read(f, p);
	fclose(f);
	return ret;
}
