/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A kav AV table as libkav holds it (uapi/linux/kav.h, "The table
 * mapping"): the validated layout values, the snapshots reads return,
 * table.c's functions, and the read side itself: bounds, entry and
 * key-slot reads under their sequence counters. The reads are inline
 * because they are the data path (fi_av_lookup(), kav_av_resolve()): a
 * lookup is a few loads and a copy, and a call per step would cost more
 * than the steps. Self-contained: table.c and kav_priv.h include it, and
 * it includes nothing of libkav's.
 */
#ifndef KAV_TABLE_H
#define KAV_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include <linux/kav.h>
#include <kav/kav.h>

#define KAV_MIN(a, b) ((a) < (b) ? (a) : (b))

/*
 * A read-only view of a kernel AV table: the mapping plus the layout values
 * validated once at attach time. Reads use only these cached values for
 * pointer arithmetic, never header fields re-read from shared memory, so a
 * bad header cannot steer a reader outside the mapping.
 */
struct kav_map {
	/* What every lookup reads, together. */
	const uint8_t *entries;		/* entry 0: base + header_size */
	uint64_t bound;			/* cached nr_slots (atomic; table.c) */
	uint32_t entry_shift;		/* log2(entry_size) */
	uint32_t addr_max;
	const uint8_t *keys;		/* key slot 0: base + keys_offset */
	uint32_t max_keys;		/* 0: the kernel has no key slots */
	const uint8_t *base;
	size_t map_size;
	bool mapped;			/* base came from mmap(): unmap it */
	uint32_t header_size;
	uint32_t entry_size;
	uint32_t addr_format;		/* enum kav_addr_format */
	uint64_t max_entries;
	uint32_t keys_offset;		/* auth-key slots in the header page */
	uint32_t key_counts_offset;	/* their struct kav_key_count */
	uint64_t fi_addrs_offset;	/* the fi_addr array; 0: none (job) */
};

/*
 * A consistent copy of one entry. The table stores a one-byte key slot
 * (KAV_ENTRY_NO_KEY for none) and a 32-bit seq; copies widen them: the
 * key to a handle or KAV_NONE, as every caller compares.
 */
struct kav_entry_snap {
	uint64_t seq;
	uint32_t flags;
	uint32_t addr_len;		/* clamped to the table's addr_max */
	uint64_t auth_key;		/* key handle, or KAV_NONE */
	uint64_t user_id;
	uint8_t addr[KAV_ADDR_MAX_LEN];
};

/* An entry without its address (kav_table_read_meta()). */
struct kav_entry_meta {
	uint64_t seq;
	uint32_t flags;
	uint32_t addr_len;		/* clamped to the table's addr_max */
	uint64_t auth_key;		/* key handle, or KAV_NONE */
	uint64_t user_id;
};

/* A consistent copy of one auth-key slot. */
struct kav_key_snap {
	uint64_t seq;
	uint32_t flags;			/* KAV_KEY_* */
	uint32_t vni;
	uint64_t user_id;
	uint32_t nr_entries;
	uint32_t nr_endpoints;
};

/*
 * Check the header of a table image at @base (any memory: a mapping or, in
 * tests, a malloc'd buffer) and fill @t. @expect_format 0 accepts any.
 */
int kav_table_attach(struct kav_map *t, const void *base, size_t map_size,
		     uint32_t expect_format);
/*
 * Out of line, for an index at or past the cached bound: load nr_slots
 * again and cache it. True when @index may now be read.
 */
bool kav_table_reach(const struct kav_map *t, uint64_t index);
/* mmap() @fd read-only and attach. */
int kav_table_map(struct kav_map *t, int fd, size_t map_size,
		  uint32_t expect_format);
/* Undo kav_table_map() (or forget an attached buffer). */
void kav_table_unmap(struct kav_map *t);

/* Out of line and cold: for attempt >= KAV_READ_SPINS (below). */
void kav_table_backoff(unsigned int attempt) __attribute__((cold));

/*
 * fi_av_lookup() semantics on a valid entry, with bounded retries: what
 * kav_table_lookup() (below) does not answer at once.
 */
int kav_table_lookup_slow(const struct kav_map *t, uint64_t index,
			  void *addr, size_t *addrlen) __attribute__((cold));

#ifdef KAV_TESTING
/* Called after each seq load of a read attempt (attempt = 0, 1, ...). */
extern void (*kav_table_read_hook)(const struct kav_entry *e,
				   unsigned int attempt);
extern void (*kav_table_key_read_hook)(const struct kav_key_slot *k,
				       unsigned int attempt);
#endif

/* ------------------------------------------------------------ the reads */

#ifdef KAV_TESTING
#define KAV_READ_HOOK(e, attempt)					\
	do {								\
		if (kav_table_read_hook)				\
			kav_table_read_hook((e), (attempt));		\
	} while (0)
#define KAV_KEY_READ_HOOK(k, attempt)					\
	do {								\
		if (kav_table_key_read_hook)				\
			kav_table_key_read_hook((k), (attempt));	\
	} while (0)
#else
#define KAV_READ_HOOK(e, attempt) do { } while (0)
#define KAV_KEY_READ_HOOK(k, attempt) do { } while (0)
#endif

static inline void kav_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/*
 * Bounded spinning. A reader that finds a seq odd (a write in progress) or
 * changed under its copy retries at once with a CPU pause, up to
 * KAV_READ_SPINS attempts; after that it gives the CPU away before each
 * further attempt (kav_table_backoff(), table.c: sched_yield(), then short
 * sleeps). A writer's odd window is short, so spinning covers the common
 * case; giving the CPU away keeps a reader that shares the writer's CPU
 * from spinning forever (Documentation/locking/seqlock.rst), even as a
 * SCHED_FIFO thread above the writer: sched_yield() alone only lets
 * threads of its own priority run, a sleep lets the writer run.
 */
#define KAV_READ_SPINS		64
/* sched_yield() attempts after the spins, before sleeping between attempts. */
#define KAV_READ_YIELDS		16
/* Microseconds slept between attempts after the yields. */
#define KAV_READ_NAP_US		50

/*
 * Wait before retry @attempt (1, 2, ...) of a seq read. Only retries get
 * here: the first attempt of a read never does, so none of this is on the
 * path of a read that succeeds at once.
 */
static inline void kav_table_retry_wait(unsigned int attempt)
{
	if (__builtin_expect(attempt < KAV_READ_SPINS, 1))
		kav_cpu_relax();
	else
		kav_table_backoff(attempt);
}

static inline const struct kav_table_header *
kav_table_header(const struct kav_map *t)
{
	return (const struct kav_table_header *)t->base;
}

/* Entries [0, nr_slots) may be read (acquire load, clamped to max_entries). */
static inline uint64_t kav_table_nr_slots(const struct kav_map *t)
{
	/* Acquire pairs with the kernel's release after backing the pages. */
	uint64_t n = __atomic_load_n(&kav_table_header(t)->nr_slots,
				     __ATOMIC_ACQUIRE);

	return KAV_MIN(n, t->max_entries);
}

/*
 * The fi_addr array (fi_av_attr.map_addr of a named AV): element n is n
 * while entry n is valid, FI_ADDR_NOTAVAIL otherwise; n < nr_slots. NULL
 * for a table without one (a job table: fi_addrs_offset 0).
 */
static inline const uint64_t *kav_table_fi_addrs(const struct kav_map *t)
{
	if (!t->fi_addrs_offset)
		return NULL;
	return (const uint64_t *)(t->base + t->fi_addrs_offset);
}

/* Address of entry @index; no bounds check (callers check nr_slots). */
static inline const struct kav_entry *
kav_table_entry(const struct kav_map *t, uint64_t index)
{
	return (const struct kav_entry *)(t->entries +
					  (index << t->entry_shift));
}

/*
 * May entry @index be read (index < nr_slots)? One comparison with the
 * cached bound; the first read past it reloads nr_slots (table.c). Key
 * handles and FI_ADDR_NOTAVAIL's low bits are never below the bound.
 */
static inline bool kav_table_has(const struct kav_map *t, uint64_t index)
{
	if (__builtin_expect(index < __atomic_load_n(&t->bound,
						     __ATOMIC_ACQUIRE), 1))
		return true;
	return kav_table_reach(t, index);
}

/*
 * Copy @n (<= KAV_ADDR_MAX_LEN) address bytes inline: a sockaddr_in or
 * _in6 in one or two fixed moves, anything else in 16-byte moves and a
 * last one that may overlap the one before (smaller sizes the same way
 * with 8 and 4 bytes). No call to memcpy() means a lookup needs no stack
 * frame.
 */
static inline void kav_addr_copy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	size_t i;

	/*
	 * The two sockaddr sizes first, each with constant offsets: the
	 * loads' addresses then do not wait for @n's own load from the
	 * entry (a reader that follows addresses would pay two misses).
	 */
	if (n == 16) {
		__builtin_memcpy(d, s, 16);
		return;
	}
	if (n == 28) {
		__builtin_memcpy(d, s, 16);
		__builtin_memcpy(d + 12, s + 12, 16);
		return;
	}
	if (n >= 16) {
		/* Past 32 bytes (strings), a loop; a sockaddr needs none. */
		for (i = 16; __builtin_expect(i + 16 < n, 0); i += 16)
			__builtin_memcpy(d + i, s + i, 16);
		__builtin_memcpy(d, s, 16);
		__builtin_memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		__builtin_memcpy(d, s, 8);
		__builtin_memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		__builtin_memcpy(d, s, 4);
		__builtin_memcpy(d + n - 4, s + n - 4, 4);
	} else {
		while (n--)
			*d++ = *s++;
	}
}

/*
 * An entry's first 8 bytes: seq (loaded with acquire, the protocol's
 * first load) and the fields beside it (relaxed). Separate loads, not
 * one 64-bit word: x86 folds each into the instruction that uses it.
 */
struct kav_entry_head {
	uint32_t seq;
	uint16_t addr_len;
	uint8_t flags;
	uint8_t auth_key;
};

static inline struct kav_entry_head kav_entry_head(const struct kav_entry *e)
{
	struct kav_entry_head h;

	h.seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	h.addr_len = __atomic_load_n(&e->addr_len, __ATOMIC_RELAXED);
	h.flags = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
	h.auth_key = __atomic_load_n(&e->auth_key, __ATOMIC_RELAXED);
	return h;
}

/*
 * Was the copy taken since head @h consistent? The copy's loads are
 * ordered before the second load of seq (acquire fence: on weak memory
 * an acquire load alone would not order the earlier plain loads), and
 * seq must be even and unchanged.
 */
static inline bool kav_entry_head_still(const struct kav_entry *e,
					struct kav_entry_head h)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return !(h.seq & 1) &&
	       __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == h.seq;
}

/* A stored key slot as a key handle: KAV_ENTRY_NO_KEY -> KAV_NONE. */
static inline uint64_t kav_entry_key_handle(uint8_t key)
{
	return key == KAV_ENTRY_NO_KEY ? KAV_NONE : key;
}

/*
 * One attempt at copying entry @e (attempt number @attempt, for the test
 * hook): true when the copy is consistent, that is taken between two equal
 * even loads of seq. Seqcount read side, as in the vDSO: the kernel makes
 * seq odd, writes the entry, then makes it even again.
 */
static inline bool kav_table_try_read(const struct kav_map *t,
				      const struct kav_entry *e,
				      unsigned int attempt,
				      struct kav_entry_meta *m, void *addr,
				      size_t cap, bool ids)
{
	struct kav_entry_head h;
	uint32_t len;

	(void)attempt;			/* the test hook's only */
	h = kav_entry_head(e);
	KAV_READ_HOOK(e, attempt);
	if (h.seq & 1)
		return false;
	m->flags = h.flags;
	m->auth_key = ids ? kav_entry_key_handle(h.auth_key) : KAV_NONE;
	m->user_id = ids ? __atomic_load_n(&e->user_id, __ATOMIC_RELAXED) :
			   KAV_NONE;
	/* A bad addr_len must not make us copy past the entry. */
	len = KAV_MIN((uint32_t)h.addr_len, t->addr_max);
	if (cap)
		kav_addr_copy(addr, e->addr, KAV_MIN((size_t)len, cap));
	if (!kav_entry_head_still(e, h))
		return false;
	m->seq = h.seq;
	m->addr_len = len;
	return true;
}

/*
 * Read entry @index: its metadata into @m and up to @cap bytes of its
 * address into @addr (which may be the caller's own buffer: only the last,
 * consistent copy counts). Without @ids the key and user id are not read
 * (KAV_NONE in @m): fi_av_lookup() needs neither. -FI_EINVAL when
 * index >= nr_slots; does not look at KAV_ENTRY_VALID. Retries are
 * bounded spins, then waits (KAV_READ_SPINS).
 */
static inline int kav_table_read(const struct kav_map *t, uint64_t index,
				 struct kav_entry_meta *m, void *addr,
				 size_t cap, bool ids)
{
	const struct kav_entry *e;
	unsigned int attempt;

	/* Check before touching: a page past nr_slots may not exist. */
	if (!kav_table_has(t, index))
		return -FI_EINVAL;
	e = kav_table_entry(t, index);
	if (__builtin_expect(kav_table_try_read(t, e, 0, m, addr, cap, ids),
			     1))
		return 0;
	/* The retry path: no part of a read that succeeds at once. */
	for (attempt = 1;; attempt++) {
		kav_table_retry_wait(attempt);
		if (kav_table_try_read(t, e, attempt, m, addr, cap, ids))
			return 0;
	}
}

/* Copy entry @index consistently, address included (kav_table_read()). */
static inline int kav_table_read_entry(const struct kav_map *t,
				       uint64_t index,
				       struct kav_entry_snap *snap)
{
	struct kav_entry_meta m;
	int ret;

	ret = kav_table_read(t, index, &m, snap->addr, sizeof(snap->addr),
			     true);
	if (ret)
		return ret;
	snap->seq = m.seq;
	snap->flags = m.flags;
	snap->addr_len = m.addr_len;
	snap->auth_key = m.auth_key;
	snap->user_id = m.user_id;
	return 0;
}

/* As kav_table_read_entry() without copying the address. */
static inline int kav_table_read_meta(const struct kav_map *t,
				      uint64_t index,
				      struct kav_entry_meta *meta)
{
	return kav_table_read(t, index, meta, NULL, 0, true);
}

/*
 * fi_av_lookup()'s read, lean: one attempt inline, straight into the
 * caller's buffer, with only tail calls out (a past-the-bound index, a
 * retry or an entry that is not valid go to kav_table_lookup_slow(),
 * which answers them), so it needs no stack frame. Everything unusual
 * is one branch, taken before any byte moves.
 */
static inline int kav_table_lookup(const struct kav_map *t, uint64_t index,
				   void *addr, size_t *addrlen)
{
	const struct kav_entry *e;
	struct kav_entry_head h;
	size_t len;

	if (__builtin_expect(index >= __atomic_load_n(&t->bound,
						      __ATOMIC_ACQUIRE), 0))
		return kav_table_lookup_slow(t, index, addr, addrlen);
	e = kav_table_entry(t, index);
	h = kav_entry_head(e);
	len = h.addr_len;
	/*
	 * Odd seq, not valid, a length past addr_max (never from a sound
	 * kernel) or a short buffer: the slow path, before any byte moves.
	 */
	if (__builtin_expect(((h.seq & 1) | (h.flags ^ KAV_ENTRY_VALID)) ||
			     len > *addrlen || len > t->addr_max, 0))
		return kav_table_lookup_slow(t, index, addr, addrlen);
	kav_addr_copy(addr, e->addr, len);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__builtin_expect(__atomic_load_n(&e->seq, __ATOMIC_RELAXED) !=
			     h.seq, 0))
		return kav_table_lookup_slow(t, index, addr, addrlen);
	*addrlen = len;
	return 0;
}

/* Address of key slot @slot; no bounds check (callers check max_keys). */
static inline const struct kav_key_slot *
kav_table_key(const struct kav_map *t, uint32_t slot)
{
	return (const struct kav_key_slot *)(t->keys + slot *
					     sizeof(struct kav_key_slot));
}

/* One attempt at copying key slot @k: as kav_table_try_read(). */
static inline bool kav_table_try_read_key(const struct kav_key_slot *k,
					  unsigned int attempt,
					  struct kav_key_snap *snap,
					  bool all)
{
	uint64_t seq;

	(void)attempt;			/* the test hook's only */
	/* The same seqcount read side as entries. */
	seq = __atomic_load_n(&k->seq, __ATOMIC_ACQUIRE);
	KAV_KEY_READ_HOOK(k, attempt);
	if (seq & 1)
		return false;
	snap->flags = __atomic_load_n(&k->flags, __ATOMIC_RELAXED);
	snap->vni = __atomic_load_n(&k->vni, __ATOMIC_RELAXED);
	snap->user_id = all ? __atomic_load_n(&k->user_id, __ATOMIC_RELAXED) :
			      0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&k->seq, __ATOMIC_RELAXED) != seq)
		return false;
	snap->seq = seq;
	return true;
}

/* What uses key slot @slot (< max_keys). */
static inline const struct kav_key_count *
kav_table_key_count(const struct kav_map *t, uint32_t slot)
{
	return (const struct kav_key_count *)(t->base + t->key_counts_offset +
					      slot *
					      sizeof(struct kav_key_count));
}

/*
 * Copy key slot @slot consistently (seq protocol); without @all only its
 * flags and VNI (the data path's question: valid? revoked? which VNI?),
 * the rest 0; with it also the user id and, as a report read beside the
 * slot (the kernel writes them without the slot's seq), its counts.
 * -FI_EINVAL when slot >= max_keys; does not look at KAV_KEY_VALID.
 */
static inline int kav_table_read_key_part(const struct kav_map *t,
					  uint32_t slot,
					  struct kav_key_snap *snap,
					  bool all)
{
	const struct kav_key_slot *k;
	unsigned int attempt;

	if (slot >= t->max_keys)
		return -FI_EINVAL;
	k = kav_table_key(t, slot);
	snap->nr_entries = 0;
	snap->nr_endpoints = 0;
	if (all) {
		const struct kav_key_count *c = kav_table_key_count(t, slot);

		snap->nr_entries = __atomic_load_n(&c->nr_entries,
						   __ATOMIC_RELAXED);
		snap->nr_endpoints = __atomic_load_n(&c->nr_endpoints,
						     __ATOMIC_RELAXED);
	}
	if (__builtin_expect(kav_table_try_read_key(k, 0, snap, all), 1))
		return 0;
	/* Bounded spins, then waits, as for entries. */
	for (attempt = 1;; attempt++) {
		kav_table_retry_wait(attempt);
		if (kav_table_try_read_key(k, attempt, snap, all))
			return 0;
	}
}

/* Copy all of key slot @slot (kav_table_read_key_part()). */
static inline int kav_table_read_key(const struct kav_map *t, uint32_t slot,
				     struct kav_key_snap *snap)
{
	return kav_table_read_key_part(t, slot, snap, true);
}

/*
 * Current seq of entry @index; index < nr_slots is the caller's. The
 * caller's reads of the entry's bytes come before it: an acquire fence,
 * then the load (on weak memory an acquire load would not order them).
 */
static inline uint64_t kav_table_entry_seq(const struct kav_map *t,
					   uint64_t index)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&kav_table_entry(t, index)->seq,
			       __ATOMIC_RELAXED);
}

#endif /* KAV_TABLE_H */
