// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The table reader (lib/table.c) on fake tables in ordinary memory. */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_common.h"
#include "fake_kav.h"

#define T_ENTRY_SIZE	64
#define T_MAX		8
#define T_SLOTS		4

struct fixture {
	uint8_t *mem;
	size_t size;
	struct sockaddr_in a, b;
	struct kav_map t;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->size = fake_table_size(T_ENTRY_SIZE, T_MAX);
	f->mem = aligned_alloc(FAKE_PAGE, f->size);
	fake_table_init(f->mem, KAV_ADDR_SOCKADDR, 28, T_ENTRY_SIZE, T_MAX);
	f->a = test_sin("10.0.0.1", 5000);
	f->b = test_sin("10.0.0.2", 6000);
	fake_table_write(f->mem, 0, KAV_ENTRY_VALID, &f->a, sizeof(f->a));
	fake_table_write(f->mem, 1, 0, NULL, 0);	/* removed */
	fake_table_write(f->mem, 2, KAV_ENTRY_VALID, &f->b, sizeof(f->b));
	fake_table_set_nr_slots(f->mem, T_SLOTS);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	kav_table_read_hook = NULL;
	kav_table_key_read_hook = NULL;
	kav_sys_pause_hook = NULL;
	free(f->mem);
	free(f);
	return 0;
}

static struct kav_table_header *hdr(struct fixture *f)
{
	return (struct kav_table_header *)f->mem;
}

static void test_attach(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size,
					  KAV_ADDR_SOCKADDR), 0);
	assert_int_equal(f->t.entry_size, T_ENTRY_SIZE);
	assert_int_equal(f->t.addr_max, 28);
	assert_int_equal(f->t.max_entries, T_MAX);
	assert_int_equal(f->t.header_size, FAKE_PAGE);
	assert_int_equal(kav_table_nr_slots(&f->t), T_SLOTS);
	assert_ptr_equal(kav_table_entry(&f->t, 2),
			 fake_table_entry(f->mem, 2));
	/* Format 0 accepts any. */
	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
}

/* Corrupt one header field, expect rejection, restore. */
#define EXPECT_REJECT(f, field, value)					\
	do {								\
		__typeof__(hdr(f)->field) saved = hdr(f)->field;	\
		hdr(f)->field = (value);				\
		assert_int_equal(kav_table_attach(&(f)->t, (f)->mem,	\
						  (f)->size, 0), -FI_EIO); \
		hdr(f)->field = saved;					\
	} while (0)

static void test_attach_rejects(void **state)
{
	struct fixture *f = *state;

	EXPECT_REJECT(f, magic, 0x12345678);
	EXPECT_REJECT(f, version, KAV_TABLE_VERSION + 1);
	EXPECT_REJECT(f, entry_size, 48);		/* not a power of 2 */
	EXPECT_REJECT(f, entry_size, 32);		/* < 16 + addr_max */
	/* Room enough, but not the kernel's (smallest) power of two. */
	EXPECT_REJECT(f, entry_size, 128);
	EXPECT_REJECT(f, entry_size, 1024);
	EXPECT_REJECT(f, addr_max, 0);
	EXPECT_REJECT(f, addr_max, KAV_ADDR_MAX_LEN + 1);
	EXPECT_REJECT(f, header_size, 8);		/* < header */
	EXPECT_REJECT(f, header_size, 4097);		/* misaligned */
	EXPECT_REJECT(f, header_size, (uint32_t)f->size + 8);
	EXPECT_REJECT(f, map_size, f->size - FAKE_PAGE);
	/* More entries than the mapping holds. */
	EXPECT_REJECT(f, max_entries, (f->size - FAKE_PAGE) / T_ENTRY_SIZE + 1);
	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size,
					  KAV_ADDR_SOCKADDR_IN6), -FI_EIO);
	assert_int_equal(kav_table_attach(&f->t, f->mem, 16, 0), -FI_EINVAL);
	assert_int_equal(kav_table_attach(&f->t, NULL, f->size, 0),
			 -FI_EINVAL);
	/* Key slots must sit inside the header page, aligned, at most 64. */
	EXPECT_REJECT(f, keys_offset, 8);		/* inside the header */
	EXPECT_REJECT(f, keys_offset, FAKE_KEYS_OFFSET + 4);
	EXPECT_REJECT(f, keys_offset, FAKE_PAGE - 32);	/* runs past it */
	EXPECT_REJECT(f, max_keys, KAV_MAX_AUTH_KEYS + 1);
	/* And the intact header still attaches. */
	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	assert_int_equal(f->t.keys_offset, FAKE_KEYS_OFFSET);
	assert_int_equal(f->t.max_keys, KAV_MAX_AUTH_KEYS);
	/* A header without key slots (older kernel): no keys, still fine. */
	hdr(f)->keys_offset = 0;
	hdr(f)->max_keys = 0;
	hdr(f)->key_counts_offset = 0;
	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	assert_int_equal(f->t.max_keys, 0);
}

static void test_read_key(void **state)
{
	struct fixture *f = *state;
	struct kav_key_snap k;

	fake_table_write_key(f->mem, 3, KAV_KEY_VALID, 4242, 17);
	fake_table_key_count(f->mem, 3)->nr_entries = 2;
	fake_table_key_count(f->mem, 3)->nr_endpoints = 1;
	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	assert_int_equal(kav_table_read_key(&f->t, 3, &k), 0);
	assert_int_equal(k.flags, KAV_KEY_VALID);
	assert_int_equal(k.vni, 4242);
	assert_int_equal(k.user_id, 17);
	assert_int_equal(k.nr_entries, 2);
	assert_int_equal(k.nr_endpoints, 1);
	assert_int_equal(k.seq % 2, 0);
	assert_ptr_equal(kav_table_key(&f->t, 3), fake_table_key(f->mem, 3));
	/* Unused slot: read, not valid, all zero as the kernel leaves it. */
	assert_int_equal(kav_table_read_key(&f->t, 0, &k), 0);
	assert_int_equal(k.flags, 0);
	assert_int_equal(k.user_id, 0);
	assert_int_equal(kav_table_read_key(&f->t, KAV_MAX_AUTH_KEYS, &k),
			 -FI_EINVAL);
}

static void test_read_meta(void **state)
{
	struct fixture *f = *state;
	struct kav_entry_meta m;

	fake_table_write_full(f->mem, 2, KAV_ENTRY_VALID, &f->b, sizeof(f->b),
			      5, 77);
	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	assert_int_equal(kav_table_read_meta(&f->t, 2, &m), 0);
	assert_int_equal(m.flags, KAV_ENTRY_VALID);
	assert_int_equal(m.addr_len, sizeof(f->b));
	assert_int_equal(m.auth_key, 5);
	assert_int_equal(m.user_id, 77);
	assert_true(m.seq == kav_table_entry_seq(&f->t, 2));
	assert_int_equal(kav_table_read_meta(&f->t, T_SLOTS, &m), -FI_EINVAL);
}

static void test_read_entry(void **state)
{
	struct fixture *f = *state;
	struct kav_entry_snap snap;

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	assert_int_equal(kav_table_read_entry(&f->t, 0, &snap), 0);
	assert_true(snap.flags & KAV_ENTRY_VALID);
	assert_int_equal(snap.addr_len, sizeof(f->a));
	assert_memory_equal(snap.addr, &f->a, sizeof(f->a));
	assert_true(snap.auth_key == KAV_NONE);
	assert_true(snap.user_id == KAV_NONE);
	assert_int_equal(snap.seq % 2, 0);

	assert_int_equal(kav_table_read_entry(&f->t, 1, &snap), 0);
	assert_false(snap.flags & KAV_ENTRY_VALID);

	/* A torn/garbage addr_len never makes the copy overrun an entry. */
	fake_table_entry(f->mem, 3)->addr_len = 1000;
	assert_int_equal(kav_table_read_entry(&f->t, 3, &snap), 0);
	assert_int_equal(snap.addr_len, 28);

	/* The one-byte key slot reads back as a key handle. */
	fake_table_write_full(f->mem, 3, KAV_ENTRY_VALID, &f->a, sizeof(f->a),
			      5, 77);
	assert_int_equal(kav_table_read_entry(&f->t, 3, &snap), 0);
	assert_true(snap.auth_key == 5);
	assert_true(snap.user_id == 77);
	assert_int_equal(fake_table_entry(f->mem, 3)->auth_key, 5);
}

/*
 * The inline address copy (table.h) at every length an entry can
 * hold: exactly n bytes, in order, nothing before or after the buffer.
 */
static void test_addr_copy_lengths(void **state)
{
	uint8_t src[KAV_ADDR_MAX_LEN], dst[KAV_ADDR_MAX_LEN + 32];
	size_t n, i;

	(void)state;
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7 + 1);
	for (n = 0; n <= KAV_ADDR_MAX_LEN; n++) {
		memset(dst, 0xee, sizeof(dst));
		kav_addr_copy(dst + 16, src, n);
		for (i = 0; i < 16; i++)
			assert_int_equal(dst[i], 0xee);
		assert_memory_equal(dst + 16, src, n);
		for (i = 16 + n; i < sizeof(dst); i++)
			assert_int_equal(dst[i], 0xee);
	}
}

static void test_lookup(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_in out;
	size_t len;

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	len = sizeof(out);
	memset(&out, 0, sizeof(out));
	assert_int_equal(kav_table_lookup(&f->t, 2, &out, &len), 0);
	assert_int_equal(len, sizeof(f->b));
	assert_memory_equal(&out, &f->b, sizeof(f->b));

	/* Not valid (removed, never written). */
	len = sizeof(out);
	assert_int_equal(kav_table_lookup(&f->t, 1, &out, &len), -FI_EINVAL);
	assert_int_equal(kav_table_lookup(&f->t, 3, &out, &len), -FI_EINVAL);
	/* Beyond nr_slots (even though the memory exists here). */
	fake_table_write(f->mem, 5, KAV_ENTRY_VALID, &f->a, sizeof(f->a));
	assert_int_equal(kav_table_lookup(&f->t, 5, &out, &len), -FI_EINVAL);
	assert_int_equal(kav_table_lookup(&f->t, T_SLOTS, &out, &len),
			 -FI_EINVAL);
	assert_int_equal(kav_table_lookup(&f->t, UINT64_MAX, &out, &len),
			 -FI_EINVAL);
	/* Once published, readable. */
	fake_table_set_nr_slots(f->mem, 6);
	assert_int_equal(kav_table_lookup(&f->t, 5, &out, &len), 0);
	/* nr_slots is clamped to max_entries. */
	fake_table_set_nr_slots(f->mem, 1000);
	assert_int_equal(kav_table_nr_slots(&f->t), T_MAX);
	assert_int_equal(kav_table_lookup(&f->t, T_MAX, &out, &len),
			 -FI_EINVAL);
}

/*
 * A valid entry whose addr_len is past addr_max (no sound kernel writes
 * one): the lookup's fast path leaves it to the slow one, which clamps;
 * nothing is copied past addr_max.
 */
static void test_lookup_bad_len(void **state)
{
	struct fixture *f = *state;
	uint8_t out[64];
	size_t len = sizeof(out);

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	fake_table_write(f->mem, 3, KAV_ENTRY_VALID, &f->a, sizeof(f->a));
	fake_table_entry(f->mem, 3)->addr_len = 1000;
	memset(out, 0xee, sizeof(out));
	assert_int_equal(kav_table_lookup(&f->t, 3, out, &len), 0);
	assert_int_equal(len, 28);
	assert_memory_equal(out, &f->a, sizeof(f->a));
	assert_int_equal(out[28], 0xee);
}

static void test_lookup_truncates(void **state)
{
	struct fixture *f = *state;
	uint8_t out[8];
	size_t len;

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	memset(out, 0xee, sizeof(out));
	len = 4;
	assert_int_equal(kav_table_lookup(&f->t, 0, out, &len), 0);
	assert_int_equal(len, sizeof(struct sockaddr_in));
	assert_memory_equal(out, &f->a, 4);
	assert_int_equal(out[4], 0xee);		/* nothing past the buffer */

	/* Size query: no buffer. */
	len = 0;
	assert_int_equal(kav_table_lookup(&f->t, 0, NULL, &len), 0);
	assert_int_equal(len, sizeof(struct sockaddr_in));
}

/* String entries come back NUL-terminated, NUL counted or not. */
static void test_lookup_str(void **state)
{
	struct fixture *f = *state;
	struct kav_map t;
	size_t size = fake_table_size(128, 4), len;
	uint8_t *mem = aligned_alloc(FAKE_PAGE, size);
	char out[16];

	(void)f;
	fake_table_init(mem, KAV_ADDR_STR, 96, 128, 4);
	/* addr_len of a string counts its NUL (uapi/linux/kav.h). */
	fake_table_write(mem, 0, KAV_ENTRY_VALID, "abc", 4);
	fake_table_write(mem, 1, KAV_ENTRY_VALID, "xyz", 4);
	fake_table_set_nr_slots(mem, 4);
	assert_int_equal(kav_table_attach(&t, mem, size, KAV_ADDR_STR), 0);
	memset(out, 'X', sizeof(out));
	len = sizeof(out);
	assert_int_equal(kav_table_lookup(&t, 0, out, &len), 0);
	assert_int_equal(len, 4);
	assert_string_equal(out, "abc");
	memset(out, 'X', sizeof(out));
	len = sizeof(out);
	assert_int_equal(kav_table_lookup(&t, 1, out, &len), 0);
	assert_int_equal(len, 4);
	assert_string_equal(out, "xyz");
	free(mem);
}

/* --- seq protocol: a hook plays the writer between reader steps --- */

static unsigned int hook_calls;
static struct fixture *hook_fixture;

/* A writer completes an update while the reader copies: must retry. */
static void hook_concurrent_write(const struct kav_entry *e,
				  unsigned int attempt)
{
	struct kav_entry *w = (struct kav_entry *)e;

	hook_calls++;
	if (attempt == 0) {
		memcpy(w->addr, &hook_fixture->b, sizeof(hook_fixture->b));
		w->seq += 2;
	}
}

static void test_seq_change_retries(void **state)
{
	struct fixture *f = *state;
	struct kav_entry_snap snap;
	uint64_t seq0 = fake_table_entry(f->mem, 0)->seq;

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	hook_calls = 0;
	hook_fixture = f;
	kav_table_read_hook = hook_concurrent_write;
	assert_int_equal(kav_table_read_entry(&f->t, 0, &snap), 0);
	kav_table_read_hook = NULL;
	/* First copy was discarded; the second saw the new contents. */
	assert_int_equal(hook_calls, 2);
	assert_true(snap.seq == seq0 + 2);
	assert_memory_equal(snap.addr, &f->b, sizeof(f->b));
}

/* The entry is mid-write (odd seq) until the fourth look. */
static void hook_finish_write(const struct kav_entry *e,
			      unsigned int attempt)
{
	struct kav_entry *w = (struct kav_entry *)e;

	hook_calls++;
	if (attempt == 3)
		w->seq += 1;
}

static void test_seq_odd_waits(void **state)
{
	struct fixture *f = *state;
	struct kav_entry_snap snap;
	struct kav_entry *e = fake_table_entry(f->mem, 2);

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	e->seq += 1;				/* writer in progress */
	hook_calls = 0;
	kav_table_read_hook = hook_finish_write;
	assert_int_equal(kav_table_read_entry(&f->t, 2, &snap), 0);
	kav_table_read_hook = NULL;
	/* Attempts 0..3 saw an odd seq; attempt 4 read the entry. */
	assert_int_equal(hook_calls, 5);
	assert_int_equal(snap.seq % 2, 0);
	assert_true(snap.seq == e->seq);
	assert_memory_equal(snap.addr, &f->b, sizeof(f->b));
}

/* Key slots use the same protocol: odd waits, a change retries. */
static void hook_key_write(const struct kav_key_slot *k, unsigned int attempt)
{
	struct kav_key_slot *w = (struct kav_key_slot *)k;

	hook_calls++;
	if (attempt == 0) {
		w->seq += 1;			/* writer begins ... */
	} else if (attempt == 2) {
		w->vni = 99;			/* ... and finishes */
		w->seq += 1;
	}
}

static void test_key_seq(void **state)
{
	struct fixture *f = *state;
	struct kav_key_slot *slot = fake_table_key(f->mem, 1);
	struct kav_key_snap k;
	uint64_t seq0;

	fake_table_write_key(f->mem, 1, KAV_KEY_VALID, 1, KAV_NONE);
	seq0 = slot->seq;
	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	hook_calls = 0;
	kav_table_key_read_hook = hook_key_write;
	assert_int_equal(kav_table_read_key(&f->t, 1, &k), 0);
	kav_table_key_read_hook = NULL;
	/* 0: copy spoilt by the writer starting; 1, 2: odd (the writer
	 * finishes during 2); 3: a clean copy of the new key. */
	assert_int_equal(hook_calls, 4);
	assert_int_equal(k.vni, 99);
	assert_true(k.seq == seq0 + 2);
}

/*
 * --- bounded spinning: a reader that keeps failing gives the CPU away ---
 *
 * The read hooks record each attempt; kav_sys_pause_hook stands for
 * sched_yield() and the sleep, and records which attempt each pause came
 * before.
 */
struct spin_log {
	unsigned int attempts;		/* read-hook calls */
	unsigned int last_attempt;	/* attempt of the last hook call */
	unsigned int yields, naps;
	unsigned int first_pause_after;	/* attempt before the first pause */
	unsigned int finish_at;		/* the writer finishes at this attempt */
	bool finish_on_nap;		/* or only when the reader sleeps */
	bool change;			/* seq even but changing, not odd */
	__u64 *seq;			/* the key seq the writer holds, */
	__u32 *seq32;			/* or the entry seq */
	uint32_t *vni;			/* a key's vni, written on finish */
};

static struct spin_log spin;

/* The seq the writer holds, whichever width it is. */
static uint64_t spin_seq(void)
{
	return spin.seq32 ? *spin.seq32 : *spin.seq;
}

static void spin_seq_add(unsigned int n)
{
	if (spin.seq32)
		*spin.seq32 += n;
	else
		*spin.seq += n;
}

static void spin_writer_step(unsigned int attempt)
{
	bool done = spin_seq() % 2 == 0 && !spin.change;

	spin.attempts++;
	spin.last_attempt = attempt;
	if (done)
		return;
	if (!spin.finish_on_nap && attempt + 1 == spin.finish_at) {
		/* Finish after this look: the next attempt succeeds. */
		if (spin.vni)
			*spin.vni = 77;
		spin_seq_add(spin.change ? 2 : 1);
		spin.change = false;
		return;
	}
	if (spin.change)
		spin_seq_add(2);	/* another completed write */
}

static void spin_entry_hook(const struct kav_entry *e, unsigned int attempt)
{
	(void)e;
	spin_writer_step(attempt);
}

static void spin_key_hook(const struct kav_key_slot *k, unsigned int attempt)
{
	(void)k;
	spin_writer_step(attempt);
}

static void spin_pause_hook(bool nap)
{
	if (!spin.yields && !spin.naps)
		spin.first_pause_after = spin.last_attempt;
	if (nap) {
		spin.naps++;
		/* A writer below a SCHED_FIFO reader runs only now. */
		if (spin.finish_on_nap && spin_seq() % 2) {
			if (spin.vni)
				*spin.vni = 77;
			spin_seq_add(1);
		}
	} else {
		spin.yields++;
	}
}

static void spin_start(__u64 *seq, unsigned int finish_at)
{
	memset(&spin, 0, sizeof(spin));
	spin.seq = seq;
	spin.finish_at = finish_at;
	spin.first_pause_after = UINT32_MAX;
	kav_sys_pause_hook = spin_pause_hook;
}

/* As spin_start(), for an entry's 32-bit seq. */
static void spin_start_entry(__u32 *seq, unsigned int finish_at)
{
	spin_start(NULL, finish_at);
	spin.seq32 = seq;
}

/* Attempts 1..n are each preceded by a wait: which kinds, how many. */
static void assert_waits(unsigned int n)
{
	unsigned int spins = KAV_READ_SPINS, yields = KAV_READ_YIELDS;

	assert_int_equal(spin.attempts, n + 1);
	assert_int_equal(spin.yields, n < spins ? 0 :
			 KAV_MIN(n - spins + 1, yields));
	assert_int_equal(spin.naps, n < spins + yields ? 0 :
			 n - spins - yields + 1);
	if (n >= spins)		/* attempts 1..spins-1 only spun */
		assert_int_equal(spin.first_pause_after, spins - 1);
}

/* A short odd window is waited out by spinning alone: no system call. */
static void test_spin_short(void **state)
{
	struct fixture *f = *state;
	struct kav_entry *e = fake_table_entry(f->mem, 0);
	struct kav_entry_snap snap;

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	e->seq += 1;
	spin_start_entry(&e->seq, KAV_READ_SPINS - 1);
	kav_table_read_hook = spin_entry_hook;
	assert_int_equal(kav_table_read_entry(&f->t, 0, &snap), 0);
	assert_waits(KAV_READ_SPINS - 1);
	assert_int_equal(spin.yields + spin.naps, 0);
	assert_memory_equal(snap.addr, &f->a, sizeof(f->a));
}

/* An odd seq that stays: yields, then sleeps, until the writer is done. */
static void test_spin_odd_yields(void **state)
{
	struct fixture *f = *state;
	struct kav_entry *e = fake_table_entry(f->mem, 2);
	unsigned int n = KAV_READ_SPINS + KAV_READ_YIELDS + 3;
	struct kav_entry_snap snap;

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	e->seq += 1;
	spin_start_entry(&e->seq, n);
	kav_table_read_hook = spin_entry_hook;
	assert_int_equal(kav_table_read_entry(&f->t, 2, &snap), 0);
	assert_waits(n);
	assert_int_equal(spin.yields, KAV_READ_YIELDS);
	assert_int_equal(spin.naps, 4);
	assert_true(snap.seq == e->seq);
	assert_memory_equal(snap.addr, &f->b, sizeof(f->b));
}

/* A seq that changes under every copy backs off the same way. */
static void test_spin_change_yields(void **state)
{
	struct fixture *f = *state;
	struct kav_entry *e = fake_table_entry(f->mem, 0);
	unsigned int n = KAV_READ_SPINS + 5;
	struct sockaddr_in out;
	size_t len = sizeof(out);

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	spin_start_entry(&e->seq, n);
	spin.change = true;
	kav_table_read_hook = spin_entry_hook;
	assert_int_equal(kav_table_lookup(&f->t, 0, &out, &len), 0);
	assert_waits(n);
	assert_int_equal(spin.yields, 6);
	assert_int_equal(spin.naps, 0);
	assert_memory_equal(&out, &f->a, sizeof(f->a));
}

/*
 * The livelock the bound is for: the writer shares the reader's CPU below
 * it (a SCHED_FIFO reader) and makes progress only while the reader
 * sleeps. Spinning and yielding never end the write; the read still ends.
 */
static void test_spin_writer_needs_cpu(void **state)
{
	struct fixture *f = *state;
	struct kav_entry *e = fake_table_entry(f->mem, 2);
	struct kav_entry_meta m;

	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	e->seq += 1;
	spin_start_entry(&e->seq, 0);
	spin.finish_on_nap = true;
	kav_table_read_hook = spin_entry_hook;
	assert_int_equal(kav_table_read_meta(&f->t, 2, &m), 0);
	assert_waits(KAV_READ_SPINS + KAV_READ_YIELDS);
	assert_int_equal(spin.naps, 1);
	assert_int_equal(m.flags, KAV_ENTRY_VALID);
	assert_true(m.seq == e->seq);
}

/* Key slots: the same bound, odd and changing. */
static void test_spin_key(void **state)
{
	struct fixture *f = *state;
	struct kav_key_slot *slot = fake_table_key(f->mem, 3);
	unsigned int n = KAV_READ_SPINS + KAV_READ_YIELDS + 1;
	struct kav_key_snap k;

	fake_table_write_key(f->mem, 3, KAV_KEY_VALID, 5, KAV_NONE);
	assert_int_equal(kav_table_attach(&f->t, f->mem, f->size, 0), 0);
	slot->seq += 1;
	spin_start(&slot->seq, n);
	spin.vni = &slot->vni;
	kav_table_key_read_hook = spin_key_hook;
	assert_int_equal(kav_table_read_key(&f->t, 3, &k), 0);
	assert_waits(n);
	assert_int_equal(spin.naps, 2);
	assert_int_equal(k.vni, 77);

	spin_start(&slot->seq, KAV_READ_SPINS);
	spin.change = true;
	assert_int_equal(kav_table_read_key_part(&f->t, 3, &k, false), 0);
	assert_waits(KAV_READ_SPINS);
	assert_int_equal(spin.yields, 1);
	assert_int_equal(k.vni, 77);
}

/* kav_table_map() on a real shared mapping (a memfd stands in). */
static void test_map_memfd(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_in out;
	struct kav_map t;
	size_t len = sizeof(out);
	int fd = memfd_create("kav-table", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, f->mem, f->size), (ssize_t)f->size);
	assert_int_equal(kav_table_map(&t, fd, f->size, KAV_ADDR_SOCKADDR), 0);
	assert_true(t.mapped);
	assert_int_equal(kav_table_lookup(&t, 0, &out, &len), 0);
	assert_memory_equal(&out, &f->a, sizeof(f->a));
	kav_table_unmap(&t);
	assert_null(t.base);
	/* A bad header is refused and nothing stays mapped. */
	hdr(f)->magic = 0;
	assert_int_equal(pwrite(fd, f->mem, FAKE_PAGE, 0), FAKE_PAGE);
	assert_int_equal(kav_table_map(&t, fd, f->size, 0), -FI_EIO);
	assert_null(t.base);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_attach, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attach_rejects, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_entry, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lookup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lookup_bad_len, setup,
						teardown),
		cmocka_unit_test(test_addr_copy_lengths),
		cmocka_unit_test_setup_teardown(test_lookup_truncates, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lookup_str, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_seq_change_retries, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_seq_odd_waits, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_map_memfd, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_key, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_read_meta, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_key_seq, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spin_short, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_spin_odd_yields, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_spin_change_yields, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_spin_writer_needs_cpu,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_spin_key, setup, teardown),
	};

	return cmocka_run_group_tests_name("table", tests, NULL, NULL);
}
