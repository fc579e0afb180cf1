// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input: a seeded, bounded fuzzer for kav's uAPI.
 *
 * It keeps a pool of domain, AV and endpoint fds (and a few foreign or
 * invalid fds) and throws at them, in a random mix:
 *   - valid argument structures with one field mutated,
 *   - kav's commands with random argument structures,
 *   - random command numbers inside kav's ioctl type and outside it,
 *     with random direction and size bits,
 *   - invalid, unmapped, read-only, kernel, non-canonical and
 *     page-straddling pointers, for the argument and for the pointers in
 *     it,
 *   - mmap() with random prot, flags, offset and length on every fd type,
 *     then reads, writes (which must fault), mprotect, madvise, mremap,
 *     partial munmap and fork with the mapping,
 *   - opens and closes in any order (AVs outliving domains, endpoints
 *     outliving AVs).
 * Every AV's table is checked as it goes: magic, an even generation,
 * nr_valid == the number of valid entries, each key's nr_entries == the
 * entries bound to it, entries bound only to valid keys. A kav ioctl may
 * fail only with a documented errno.
 *
 *   - generic netlink messages to the kav family: any command, dump or
 *     not, random, valid and mutated attributes (ids, VNIs, selectors,
 *     cgroup paths, netns fds that are any of our fds).
 *
 * It runs as root, and as uid/gid 65534 with no capabilities (with fds
 * opened by root and fds of its own); VNIs 0-99 are granted to the uid
 * that fuzzes. Unprivileged, every netlink command must be refused.
 *
 * Reproducible: every choice comes from one PRNG seeded by KAV_FUZZ_SEED
 * (printed; random when unset). Bounded: KAV_FUZZ_ITERS iterations
 * (20000) and KAV_FUZZ_SECONDS seconds (25) per run, whichever ends
 * first; to replay a run cut short by time, pass its seed and its
 * printed iteration count. Prints "# fuzz: N calls made".
 */
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <grp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_nl_util.h"

#define PAGE		4096UL
#define MAX_DOMS	6
#define MAX_AVS		12
#define MAX_EPS		12
#define MAX_MAPS	16
#define SCRATCH_SIZE	(1UL << 20)
#define CHECK_ENTRIES	20000	/* tables bigger than this are not walked */
#define FUZZ_TIMEOUT	300
/* Commands from KAV_CMD_AV_CREATE on (through KAV_CMD_DOMAIN_SET_KEY). */
#define NR_CMDS		(KAV_CMD_DOMAIN_SET_KEY - KAV_CMD_AV_CREATE + 1)

/* --- PRNG: splitmix64, one stream per run -------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int percent)
{
	return below(100) < percent;
}

/* --- what is being fuzzed ------------------------------------------------ */

enum fd_kind { FD_DOMAIN, FD_AV, FD_EP };

struct av_state {
	int fd;
	uint32_t format, addr_max, entry_size;
	uint64_t map_size;
	const volatile struct kav_table_header *h;	/* whole table, RO */
};

struct mapping {
	void *addr;
	size_t len;
};

struct fuzz {
	uint64_t seed;
	int doms[MAX_DOMS], nr_doms;
	struct av_state avs[MAX_AVS];
	int nr_avs;
	int eps[MAX_EPS], nr_eps;
	int foreign[2];			/* a pipe: not kav files */
	struct mapping maps[MAX_MAPS];
	int nr_maps;
	uint8_t *scratch;		/* SCRATCH_SIZE bytes, then a hole */
	uint8_t *hole;			/* PROT_NONE page after scratch */
	const uint8_t *ro;		/* a read-only page */
	struct kav_nl nl;		/* kav family socket, or fd 0 */
	bool unprivileged;
	/* counters */
	unsigned long calls, ioctls, mmaps, opens, closes, mem_ops, forks;
	unsigned long nl_msgs, nl_ok;
	unsigned long ok, failed, faults, checks;
};

static struct fuzz F;

/* errno values kav's ioctls document (Documentation/uapi.rst). */
static bool documented_errno(int e)
{
	switch (e) {
	case ENOTTY: case EFAULT: case EINVAL: case E2BIG: case ENOMEM:
	case ENOSPC: case EEXIST: case EBUSY: case EALREADY: case EMFILE:
	case ENFILE:
	/* Authorisation (auth-key grants). */
	case EPERM: case EACCES: case EKEYREVOKED:
	/* Job tables (KAV_AV_JOB): no key; what a job table never does. */
	case ENOKEY: case EOPNOTSUPP:
		return true;
	}
	return false;
}

/* --- fault-tolerant touches of mappings ----------------------------------- */

static sigjmp_buf touch_env;
static volatile sig_atomic_t touching;

static void on_fault(int sig)
{
	if (touching)
		siglongjmp(touch_env, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read one byte; returns the signal it raised, or 0. */
static int touch_read(const volatile uint8_t *p, uint8_t *out)
{
	int sig;

	touching = 1;
	sig = sigsetjmp(touch_env, 1);
	if (!sig)
		*out = *p;
	touching = 0;
	return sig;
}

static int touch_write(volatile uint8_t *p)
{
	int sig;

	touching = 1;
	sig = sigsetjmp(touch_env, 1);
	if (!sig)
		*p = 0x5a;
	touching = 0;
	return sig;
}

/* --- table invariants ------------------------------------------------------ */

static const volatile struct kav_entry *entry_at(const struct av_state *a,
						 uint64_t idx)
{
	return (const volatile void *)((const volatile char *)a->h +
				       a->h->header_size +
				       idx * a->h->entry_size);
}

static const volatile struct kav_key_slot *slot_at(const struct av_state *a,
						   uint64_t handle)
{
	return (const volatile void *)((const volatile char *)a->h +
				       a->h->keys_offset +
				       handle * sizeof(struct kav_key_slot));
}

/* Only this process mutates its AVs, so a quiet table must add up. */
static void check_av(struct __test_metadata *_metadata,
		     const struct av_state *a)
{
	uint32_t bound[KAV_MAX_AUTH_KEYS] = { 0 };
	uint64_t i, slots = a->h->nr_slots, valid = 0;

	F.checks++;
	ASSERT_EQ(KAV_TABLE_MAGIC, a->h->magic);
	ASSERT_EQ(0, a->h->generation & 1);
	ASSERT_GE(a->h->max_entries, slots);
	ASSERT_GE(slots, a->h->nr_valid);
	if (slots > CHECK_ENTRIES)
		return;
	for (i = 0; i < slots; i++) {
		const volatile struct kav_entry *e = entry_at(a, i);

		ASSERT_EQ(0, e->seq & 1);
		if (!e->flags) {
			/* Never used or cleared: no address, no key, no id. */
			ASSERT_EQ(0, e->addr_len);
			ASSERT_EQ(KAV_ENTRY_NO_KEY, e->auth_key);
			ASSERT_EQ(KAV_NONE, e->user_id);
			continue;
		}
		ASSERT_EQ(KAV_ENTRY_VALID, e->flags);
		ASSERT_GE(a->addr_max, e->addr_len);
		ASSERT_LT(0, e->addr_len);
		valid++;
		if (e->auth_key != KAV_ENTRY_NO_KEY) {
			ASSERT_GT(KAV_MAX_AUTH_KEYS, e->auth_key);
			/* Valid; perhaps revoked or the domain's key. */
			ASSERT_TRUE(slot_at(a, e->auth_key)->flags &
				    KAV_KEY_VALID);
			bound[e->auth_key]++;
		}
	}
	ASSERT_EQ(a->h->nr_valid, valid);
	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++) {
		const volatile struct kav_key_slot *k = slot_at(a, i);
		const volatile struct kav_key_count *c = kav_uses(a->h, i);

		ASSERT_EQ(0, k->seq & 1);
		ASSERT_EQ(bound[i], c->nr_entries) TH_LOG("key %llu",
							  (unsigned long long)i);
		if (!k->flags)
			ASSERT_EQ(0, c->nr_entries + c->nr_endpoints);
	}
}

/* --- pool --------------------------------------------------------------------- */

static int track_av(int fd, const struct kav_av_create *c)
{
	struct av_state *a;
	void *p;

	if (F.nr_avs == MAX_AVS) {
		close(fd);
		return -1;
	}
	p = mmap(NULL, c->map_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return -1;
	}
	a = &F.avs[F.nr_avs++];
	a->fd = fd;
	a->h = p;
	a->map_size = c->map_size;
	a->entry_size = c->entry_size;
	a->format = a->h->addr_format;
	a->addr_max = a->h->addr_max;
	return 0;
}

static void track_fd(int *arr, int *nr, int max, int fd)
{
	if (*nr == max)
		close(fd);
	else
		arr[(*nr)++] = fd;
}

static int pick_dom(void)
{
	return F.nr_doms ? F.doms[below(F.nr_doms)] : -1;
}

static struct av_state *pick_av(void)
{
	return F.nr_avs ? &F.avs[below(F.nr_avs)] : NULL;
}

/* Any fd, of any kind, foreign or invalid: for wrong-type calls. */
static int pick_any_fd(void)
{
	static const int bad[] = { -1, 999, 0x7fffffff };

	switch (below(6)) {
	case 0: return pick_dom();
	case 1: case 2: return F.nr_avs ? pick_av()->fd : -1;
	case 3: return F.nr_eps ? F.eps[below(F.nr_eps)] : -1;
	case 4: return F.foreign[below(2)];
	default: return bad[below(3)];
	}
}

static void open_domain(void)
{
	int fd = kav_open_domain();

	F.calls++;
	F.opens++;
	if (fd >= 0)
		track_fd(F.doms, &F.nr_doms, MAX_DOMS, fd);
}

static void close_one(void)
{
	unsigned int i;

	F.calls++;
	F.closes++;
	switch (below(3)) {
	case 0:
		if (F.nr_doms > 1) {
			i = below(F.nr_doms);
			close(F.doms[i]);
			F.doms[i] = F.doms[--F.nr_doms];
		}
		break;
	case 1:
		if (F.nr_avs) {
			struct av_state *a = &F.avs[below(F.nr_avs)];

			munmap((void *)a->h, a->map_size);
			close(a->fd);
			*a = F.avs[--F.nr_avs];
		}
		break;
	default:
		if (F.nr_eps) {
			i = below(F.nr_eps);
			close(F.eps[i]);
			F.eps[i] = F.eps[--F.nr_eps];
		}
	}
}

/* --- values ------------------------------------------------------------------- */

/* A pointer for the kernel to read or write: mostly the scratch buffer. */
static uint64_t pick_ptr(size_t len)
{
	len = len > SCRATCH_SIZE ? SCRATCH_SIZE : len;
	switch (below(12)) {
	case 0: return 0;
	case 1: return (uintptr_t)F.hole;			/* unmapped */
	case 2: return (uintptr_t)F.hole - (len ? len / 2 : 1);	/* straddles */
	case 3: return (uintptr_t)F.ro;				/* read-only */
	case 4: return 0xffff888000000000ULL + below(1 << 20);	/* kernel */
	case 5: return 0x8000000000000000ULL;			/* non-canonical */
	case 6: return 1 + below(PAGE);				/* NULL page */
	case 7: return F.nr_avs ? (uintptr_t)pick_av()->h : 0;	/* a table */
	default:
		return (uintptr_t)F.scratch + below(SCRATCH_SIZE - len + 1);
	}
}

static uint64_t interesting_u64(void)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 28, 63, 64, 65, 96, 127, 128, 255,
		256, 479, 480, 481, 4095, 4096, 4097, 16383, 16384, 16385,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		KAV_NO_INDEX, KAV_NONE, (uint64_t)INT64_MAX, 1ULL << 24,
	};

	switch (below(4)) {
	case 0: return rnd();
	case 1: return below(64);
	default: return v[below(ARRAY_SIZE(v))];
	}
}

/* Fill @p with @count addresses valid (mostly) for @a's format. */
static uint32_t gen_addrs(const struct av_state *a, uint8_t *p,
			  uint32_t count)
{
	uint32_t stride, i;

	switch (a->format) {
	case KAV_ADDR_SOCKADDR_IN:
		stride = sizeof(struct sockaddr_in);
		break;
	case KAV_ADDR_STR:
		stride = 2 + below(a->addr_max - 1);
		break;
	default:
		stride = sizeof(struct sockaddr_in6);
	}
	memset(p, 0, (size_t)count * stride);
	for (i = 0; i < count; i++) {
		uint8_t *q = p + (size_t)i * stride;

		if (a->format == KAV_ADDR_STR) {
			uint32_t n = 1 + below(stride - 1), j;

			for (j = 0; j < n; j++)
				q[j] = '!' + below(94);
			q[n - (n == stride)] = 0;
		} else if (a->format == KAV_ADDR_SOCKADDR_IN ||
			   (a->format == KAV_ADDR_SOCKADDR && chance(50))) {
			struct sockaddr_in s = kav_sin(rnd(), rnd());

			memcpy(q, &s, sizeof(s));
		} else {
			struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
						   .sin6_port = rnd() };

			memcpy(&s6.sin6_addr, &(uint64_t[2]){ rnd(), rnd() }, 16);
			memcpy(q, &s6, sizeof(s6));
		}
		if (chance(3))	/* an invalid byte somewhere */
			q[below(stride)] = rnd();
	}
	return stride;
}

/* A valid entry index of @a, or a random one. */
static uint64_t pick_index(const struct av_state *a)
{
	uint64_t slots = a->h->nr_slots, i;

	if (slots && chance(80)) {
		for (i = 0; i < 8; i++) {
			uint64_t idx = below(slots);

			if (entry_at(a, idx)->flags)
				return idx;
		}
		return below(slots);
	}
	return interesting_u64();
}

static uint64_t pick_handle(const struct av_state *a)
{
	uint64_t h;

	if (chance(80))
		for (h = below(KAV_MAX_AUTH_KEYS); h < KAV_MAX_AUTH_KEYS; h++)
			if (slot_at(a, h)->flags)
				return h;
	return chance(50) ? below(KAV_MAX_AUTH_KEYS + 2) : interesting_u64();
}

/* --- argument structures ---------------------------------------------- */

/* A field of an argument structure, for single-field mutations. */
struct field {
	uint16_t off, size;
};

#define FLD(type, member) \
	{ offsetof(type, member), sizeof(((type *)0)->member) }

static const struct field create_fields[] = {
	FLD(struct kav_av_create, size), FLD(struct kav_av_create, flags),
	FLD(struct kav_av_create, addr_format),
	FLD(struct kav_av_create, addr_max), FLD(struct kav_av_create, count),
	FLD(struct kav_av_create, fd), FLD(struct kav_av_create, entry_size),
	FLD(struct kav_av_create, max_entries),
	FLD(struct kav_av_create, map_size),
	FLD(struct kav_av_create, owner_uid),
	FLD(struct kav_av_create, __reserved),
};
static const struct field insert_fields[] = {
	FLD(struct kav_av_insert, size), FLD(struct kav_av_insert, flags),
	FLD(struct kav_av_insert, count),
	FLD(struct kav_av_insert, addr_stride),
	FLD(struct kav_av_insert, addrs), FLD(struct kav_av_insert, fi_addrs),
	FLD(struct kav_av_insert, err_index),
	FLD(struct kav_av_insert, __reserved),
	FLD(struct kav_av_insert, auth_keys),
	FLD(struct kav_av_insert, user_ids),
};
static const struct field remove_fields[] = {
	FLD(struct kav_av_remove, size), FLD(struct kav_av_remove, flags),
	FLD(struct kav_av_remove, count),
	FLD(struct kav_av_remove, err_index),
	FLD(struct kav_av_remove, fi_addrs),
};
static const struct field key_fields[] = {
	FLD(struct kav_av_key, size), FLD(struct kav_av_key, flags),
	FLD(struct kav_av_key, key.vni), FLD(struct kav_av_key, key.__reserved),
	FLD(struct kav_av_key, handle),
};
static const struct field user_id_fields[] = {
	FLD(struct kav_av_user_id, size), FLD(struct kav_av_user_id, flags),
	FLD(struct kav_av_user_id, index),
	FLD(struct kav_av_user_id, user_id),
};
static const struct field ep_open_fields[] = {
	FLD(struct kav_av_ep_open, size), FLD(struct kav_av_ep_open, flags),
	FLD(struct kav_av_ep_open, fd),
	FLD(struct kav_av_ep_open, __reserved),
};
static const struct field ep_enable_fields[] = {
	FLD(struct kav_ep_enable, size), FLD(struct kav_ep_enable, flags),
	FLD(struct kav_ep_enable, keys),
};

static const struct field domain_key_fields[] = {
	FLD(struct kav_domain_key, size), FLD(struct kav_domain_key, flags),
	FLD(struct kav_domain_key, key.vni),
	FLD(struct kav_domain_key, key.__reserved),
};

static void mutate_field(void *arg, const struct field *f, size_t nr)
{
	const struct field *m = &f[below(nr)];
	uint8_t *p = (uint8_t *)arg + m->off;
	uint64_t v;

	switch (below(4)) {
	case 0:		/* flip a bit */
		p[below(m->size)] ^= 1 << below(8);
		return;
	case 1:		/* a pointer-ish value */
		v = m->size == 8 ? pick_ptr(below(4 * PAGE)) : interesting_u64();
		break;
	default:
		v = interesting_u64();
	}
	memcpy(p, &v, m->size);	/* little-endian: the low bytes */
}

/* Where the argument structure goes: mostly scratch, sometimes hostile. */
static void *place_arg(const void *arg, size_t len)
{
	uint8_t *p;

	if (chance(90)) {
		/* Any alignment; below the batch arrays at SCRATCH_SIZE / 2. */
		p = F.scratch + below(SCRATCH_SIZE / 2 - 512);
		memcpy(p, arg, len);
		if (chance(20))		/* a larger struct: zero or junk tail */
			memset(p + len, chance(50) ? 0 : rnd(), 64);
		return p;
	}
	if (chance(50)) {		/* straddling the hole */
		p = F.hole - below(len + 1);
		memcpy(p, arg, F.hole - p);
		return p;
	}
	return (void *)(uintptr_t)pick_ptr(len);
}

/* Build a valid (mostly) argument for @nr; returns its size. */
static size_t build_arg(uint32_t nr, void *arg, const struct av_state *a,
			const struct field **fields, size_t *nr_fields)
{
	uint32_t n;

	switch (nr) {
	case KAV_CMD_AV_CREATE: {
		struct kav_av_create *c = arg;

		*c = (struct kav_av_create){ .size = sizeof(*c),
			.addr_format = 1 + below(4),
			.addr_max = chance(70) ? 0 : below(600),
			.count = below(1000) };
		*fields = create_fields;
		*nr_fields = ARRAY_SIZE(create_fields);
		return sizeof(*c);
	}
	case KAV_CMD_AV_INSERT: {
		struct kav_av_insert *in = arg;
		uint64_t *keys = (uint64_t *)(F.scratch + SCRATCH_SIZE / 2);
		uint64_t *ids = keys + 512, *out = ids + 512;
		uint8_t *addrs = (uint8_t *)(out + 512);
		uint32_t i;

		n = chance(90) ? 1 + below(16) : below(512);
		*in = (struct kav_av_insert){ .size = sizeof(*in), .count = n,
			.addrs = (uintptr_t)addrs, .fi_addrs = (uintptr_t)out,
			.err_index = KAV_NO_INDEX };
		in->addr_stride = a ? gen_addrs(a, addrs, n) : 16;
		if (a && chance(40)) {
			in->flags |= KAV_INSERT_AUTH_KEY;
			in->auth_keys = (uintptr_t)keys;
			for (i = 0; i < n; i++)
				keys[i] = pick_handle(a);
		}
		if (chance(40)) {
			in->flags |= KAV_INSERT_USER_ID;
			in->user_ids = (uintptr_t)ids;
			for (i = 0; i < n; i++)
				ids[i] = rnd();
		}
		if (chance(10))
			in->fi_addrs = 0;
		*fields = insert_fields;
		*nr_fields = ARRAY_SIZE(insert_fields);
		return sizeof(*in);
	}
	case KAV_CMD_AV_REMOVE: {
		struct kav_av_remove *rm = arg;
		uint64_t *idx = (uint64_t *)(F.scratch + SCRATCH_SIZE / 2);
		uint32_t i;

		n = chance(90) ? 1 + below(8) : below(600);
		for (i = 0; i < n; i++)
			idx[i] = a ? pick_index(a) : below(100);
		*rm = (struct kav_av_remove){ .size = sizeof(*rm), .count = n,
			.fi_addrs = (uintptr_t)idx, .err_index = KAV_NO_INDEX };
		*fields = remove_fields;
		*nr_fields = ARRAY_SIZE(remove_fields);
		return sizeof(*rm);
	}
	case KAV_CMD_AV_KEY_INSERT:
	case KAV_CMD_AV_KEY_REMOVE: {
		struct kav_av_key *k = arg;

		*k = (struct kav_av_key){ .size = sizeof(*k),
			.key.vni = below(100),
			.handle = a ? pick_handle(a) : below(70) };
		*fields = key_fields;
		*nr_fields = ARRAY_SIZE(key_fields);
		return sizeof(*k);
	}
	case KAV_CMD_AV_SET_USER_ID: {
		struct kav_av_user_id *u = arg;
		bool key = chance(40);

		*u = (struct kav_av_user_id){ .size = sizeof(*u),
			.flags = key ? KAV_USER_ID_AUTH_KEY : 0,
			.index = !a ? below(100) :
				 key ? pick_handle(a) : pick_index(a),
			.user_id = chance(20) ? KAV_NONE : rnd() };
		*fields = user_id_fields;
		*nr_fields = ARRAY_SIZE(user_id_fields);
		return sizeof(*u);
	}
	case KAV_CMD_AV_EP_OPEN: {
		struct kav_av_ep_open *e = arg;

		*e = (struct kav_av_ep_open){ .size = sizeof(*e) };
		*fields = ep_open_fields;
		*nr_fields = ARRAY_SIZE(ep_open_fields);
		return sizeof(*e);
	}
	case KAV_CMD_DOMAIN_SET_KEY: {
		struct kav_domain_key *k = arg;

		*k = (struct kav_domain_key){ .size = sizeof(*k),
			.key.vni = below(100) };
		*fields = domain_key_fields;
		*nr_fields = ARRAY_SIZE(domain_key_fields);
		return sizeof(*k);
	}
	default: {
		struct kav_ep_enable *e = arg;

		*e = (struct kav_ep_enable){ .size = sizeof(*e) };
		*fields = ep_enable_fields;
		*nr_fields = ARRAY_SIZE(ep_enable_fields);
		return sizeof(*e);
	}
	}
}

/* The fd a command belongs on, usually; sometimes any fd at all. */
static int fd_for(uint32_t nr, struct av_state **ap)
{
	*ap = pick_av();
	if (chance(8))
		return pick_any_fd();
	if (nr == KAV_CMD_AV_CREATE || nr == KAV_CMD_DOMAIN_SET_KEY)
		return pick_dom();
	if (nr == KAV_CMD_EP_ENABLE)
		return F.nr_eps ? F.eps[below(F.nr_eps)] : -1;
	return *ap ? (*ap)->fd : -1;
}

static struct av_state *av_of_fd(int fd)
{
	int i;

	for (i = 0; i < F.nr_avs; i++)
		if (F.avs[i].fd == fd)
			return &F.avs[i];
	return NULL;
}

static bool is_kav_fd(int fd)
{
	int i;

	for (i = 0; i < F.nr_doms; i++)
		if (F.doms[i] == fd)
			return true;
	for (i = 0; i < F.nr_eps; i++)
		if (F.eps[i] == fd)
			return true;
	return av_of_fd(fd) != NULL;
}

/* Keep what a successful create or ep_open returned. */
static void adopt(uint32_t nr, const void *arg, size_t len)
{
	const struct kav_av_create *c = arg;
	const struct kav_av_ep_open *e = arg;

	if (nr == KAV_CMD_AV_CREATE && len >= sizeof(*c) &&
	    fcntl(c->fd, F_GETFD) == FD_CLOEXEC)
		track_av(c->fd, c);
	else if (nr == KAV_CMD_AV_EP_OPEN && len >= sizeof(*e) &&
		 fcntl(e->fd, F_GETFD) == FD_CLOEXEC)
		track_fd(F.eps, &F.nr_eps, MAX_EPS, e->fd);
}

static void fuzz_ioctl(struct __test_metadata *_metadata)
{
	uint8_t arg[256] __attribute__((aligned(8))) = { 0 };
	const struct field *fields;
	struct av_state *a, *target;
	size_t nr_fields, len;
	unsigned long cmd;
	uint32_t nr;
	void *uarg;
	int fd, ret, mode = below(100);
	bool ours;

	nr = KAV_CMD_AV_CREATE + below(NR_CMDS);
	fd = fd_for(nr, &a);
	len = build_arg(nr, arg, a, &fields, &nr_fields);
	cmd = _IO(KAV_IOCTL_TYPE, nr);

	if (mode < 45) {
		mutate_field(arg, fields, nr_fields);
	} else if (mode < 55) {
		/* The struct's size field says something else. */
		static const uint32_t sizes[] = { 0, 1, 4, 8, 12, 16, 24,
						  4095, 4096, 4097, ~0U };

		((uint32_t *)arg)[0] = chance(50) ? sizes[below(11)] :
					len + 8 * below(8);
	} else if (mode < 62) {
		/* Random bytes after a plausible size. */
		size_t i;

		for (i = 4; i < len; i++)
			arg[i] = rnd();
	} else if (mode < 80) {
		/* kav's type, any number, any direction and size bits. */
		cmd = _IOC(below(4), KAV_IOCTL_TYPE, below(256), below(1 << 14));
	} else if (mode < 85) {
		/* Not kav's type at all (never fds 0-2: the results port). */
		cmd = (uint32_t)rnd();
		if (_IOC_TYPE(cmd) == 'T' || _IOC_TYPE(cmd) == 0x54)
			cmd ^= 0x100;
	} /* else: the valid structure as built */

	uarg = place_arg(arg, len);
	ours = is_kav_fd(fd);
	target = av_of_fd(fd);
	F.calls++;
	F.ioctls++;
	ret = ioctl(fd, cmd, uarg);
	if (ret == 0) {
		F.ok++;
		/* A new fd comes back only in a readable, writable struct. */
		if (_IOC_TYPE(cmd) == KAV_IOCTL_TYPE &&
		    (uint8_t *)uarg >= F.scratch &&
		    (uint8_t *)uarg + len <= F.hole)
			adopt(_IOC_NR(cmd), uarg, len);
	} else {
		F.failed++;
		if (ours && _IOC_TYPE(cmd) == KAV_IOCTL_TYPE)
			EXPECT_TRUE(documented_errno(errno))
				TH_LOG("ioctl %#lx on a kav fd: undocumented %s",
				       cmd, strerror(errno));
	}
	if (target && chance(25))
		check_av(_metadata, target);
}

/* --- mmap and friends ------------------------------------------------------ */

static void fuzz_mmap(struct __test_metadata *_metadata)
{
	static const int prots[] = { PROT_READ, PROT_READ, PROT_NONE,
				     PROT_WRITE, PROT_READ | PROT_WRITE,
				     PROT_READ | PROT_EXEC };
	static const int flagset[] = { MAP_SHARED, MAP_SHARED, MAP_PRIVATE,
				       MAP_SHARED_VALIDATE };
	struct av_state *a = pick_av();
	int fd = chance(80) && a ? a->fd : pick_any_fd();
	uint64_t map_size = a ? a->map_size : 16 * PAGE;
	size_t len;
	off_t off;
	int prot, flags;
	void *p;

	prot = chance(90) ? prots[below(ARRAY_SIZE(prots))] : (int)below(16);
	flags = flagset[below(ARRAY_SIZE(flagset))];
	if (chance(15))
		flags |= MAP_POPULATE;
	if (chance(10))
		flags |= MAP_LOCKED;
	if (chance(10))
		flags |= MAP_NORESERVE;
	if (chance(5))
		flags |= 1 << below(24);	/* anything, but never... */
	flags &= ~(MAP_FIXED | MAP_ANONYMOUS | MAP_GROWSDOWN);
	switch (below(6)) {
	case 0: len = 0; break;
	case 1: len = 1 + below(PAGE); break;
	case 2: len = map_size; break;
	case 3: len = map_size + PAGE * (1 + below(4)); break;
	case 4: len = interesting_u64(); break;
	default: len = PAGE * (1 + below(64));
	}
	switch (below(5)) {
	case 0: off = 0; break;
	case 1: off = (off_t)(PAGE * below(map_size / PAGE + 3)); break;
	case 2: off = (off_t)(interesting_u64() & ~(PAGE - 1)); break;
	case 3: off = (off_t)below(PAGE); break;	/* unaligned */
	default: off = (off_t)PAGE * below(4);
	}
	if (flags & MAP_POPULATE && len > 64 * PAGE)
		len = 64 * PAGE;	/* populate walks every page */
	F.calls++;
	F.mmaps++;
	p = mmap(NULL, len, prot, flags, fd, off);
	if (p == MAP_FAILED) {
		F.failed++;
		return;
	}
	F.ok++;
	/* A writable or executable mapping of a kav file must never exist. */
	if (av_of_fd(fd) || is_kav_fd(fd))
		ASSERT_EQ(0, prot & (PROT_WRITE | PROT_EXEC))
			TH_LOG("writable or executable kav mapping: prot %#x "
			       "flags %#x", prot, flags);
	if (F.nr_maps == MAX_MAPS) {
		munmap(p, len);
		return;
	}
	F.maps[F.nr_maps++] = (struct mapping){ p, len };
}

static void fuzz_mem(struct __test_metadata *_metadata)
{
	struct mapping *m;
	size_t pages, i, off;
	uint8_t b;
	void *q;

	if (!F.nr_maps)
		return;
	m = &F.maps[below(F.nr_maps)];
	pages = (m->len + PAGE - 1) / PAGE;
	i = below(pages);
	F.calls++;
	F.mem_ops++;
	switch (below(9)) {
	case 0: case 1:		/* read some pages */
		for (off = 0; off < 4; off++)
			if (touch_read((uint8_t *)m->addr +
				       (i + off * below(pages)) % pages * PAGE,
				       &b))
				F.faults++;
		break;
	case 2:			/* writes must fault */
		if (touch_write((uint8_t *)m->addr + i * PAGE))
			F.faults++;
		else
			ASSERT_TRUE(false) TH_LOG("wrote a kav table page");
		break;
	case 3:			/* no write or exec, ever */
		ASSERT_NE(0, mprotect(m->addr, PAGE, PROT_READ | PROT_WRITE));
		ASSERT_NE(0, mprotect(m->addr, PAGE, PROT_READ | PROT_EXEC));
		if (chance(50))
			mprotect(m->addr, PAGE, chance(50) ? PROT_NONE : PROT_READ);
		break;
	case 4: {
		static const int advice[] = { MADV_DONTNEED, MADV_WILLNEED,
			MADV_SEQUENTIAL, MADV_RANDOM, MADV_REMOVE,
			MADV_DONTFORK, MADV_DOFORK, MADV_FREE, MADV_COLD,
			MADV_PAGEOUT, MADV_POPULATE_READ, MADV_POPULATE_WRITE,
			MADV_DONTDUMP, MADV_MERGEABLE, MADV_HUGEPAGE };

		madvise((uint8_t *)m->addr + i * PAGE,
			PAGE * (1 + below(pages - i > 8 ? 8 : pages - i)),
			advice[below(ARRAY_SIZE(advice))]);
		break;
	}
	case 5:			/* grow (refused), shrink, move */
		q = mremap(m->addr, m->len,
			   chance(50) ? m->len + PAGE : (m->len > PAGE ? PAGE : m->len),
			   chance(50) ? MREMAP_MAYMOVE : 0);
		if (q != MAP_FAILED) {
			/* Growing is refused (VM_DONTEXPAND): it shrank. */
			m->addr = q;
			m->len = m->len > PAGE ? PAGE : m->len;
		}
		break;
	case 6:			/* a hole in the middle */
		if (pages > 2) {
			munmap((uint8_t *)m->addr + PAGE, PAGE);
			/* keep the first page only; the tail leaks until exit */
			m->len = PAGE;
		}
		break;
	case 7: {		/* a child reads the mapping, then dies */
		pid_t pid;
		int st;

		F.forks++;
		pid = fork();
		if (pid == 0) {
			touch_read((uint8_t *)m->addr + i * PAGE, &b);
			_exit(0);
		}
		ASSERT_LT(0, pid);
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		break;
	}
	default:
		munmap(m->addr, m->len);
		*m = F.maps[--F.nr_maps];
	}
}

/* --- generic netlink ------------------------------------------------------- */

static void put_random_attr(struct kav_nl_msg *m)
{
	uint16_t type = below(KAV_A_MAX + 4);
	uint8_t junk[80];
	size_t i, len;

	switch (below(6)) {
	case 0:
		kav_nl_put_u32(m, type, interesting_u64());
		break;
	case 1:
		kav_nl_put_u64(m, type, interesting_u64());
		break;
	case 2:		/* a netns fd: any fd of ours */
		kav_nl_put_u32(m, KAV_A_SEL_NETNS_FD, pick_any_fd());
		break;
	case 3: {	/* a cgroup path */
		static const char *const paths[] = { "", "/", "..", "../..",
			"kav", "/sys/fs/cgroup", "a/b/c", "\x01" };

		kav_nl_put_str(m, KAV_A_SEL_CGROUP_PATH, paths[below(8)]);
		break;
	}
	default:	/* any type, any length, any bytes */
		len = below(sizeof(junk));
		for (i = 0; i < len; i++)
			junk[i] = rnd();
		kav_nl_put(m, type, junk, len);
	}
}

/* A plausible scope prefix or exemption: mostly valid, sometimes not. */
static void put_wire_net(struct kav_nl_msg *m)
{
	struct kav_wire_net n = { 0 };
	unsigned int i, max;

	n.family = chance(50) ? AF_INET : AF_INET6;
	max = n.family == AF_INET ? 32 : 128;
	n.prefix_len = chance(90) ? below(max + 1) : below(256);
	n.flags = chance(50) ? KAV_WIRE_NET_EXEMPT : (chance(95) ? 0 : rnd());
	if (n.flags & KAV_WIRE_NET_EXEMPT || chance(5))
		n.port = chance(50) ? 0 : 40000 + below(8);
	for (i = 0; i < (n.family == AF_INET ? 4U : 16U); i++)
		n.addr[i] = chance(70) ? 0 : rnd();
	if (chance(50))		/* host bits cleared: a valid prefix */
		for (i = n.prefix_len; i < max; i++)
			n.addr[i / 8] &= ~(0x80 >> (i % 8));
	kav_nl_put(m, KAV_A_WIRE_NET, &n, chance(95) ? sizeof(n) : below(40));
}

/* The wire's settings and scope: a plausible change of them. */
static void wire_msg(struct kav_nl_msg *m)
{
	switch (below(4)) {
	case 0:
		kav_nl_req(&F.nl, m, KAV_GENL_CMD_WIRE_SET, 0);
		if (chance(70))
			kav_nl_put_u32(m, KAV_A_WIRE_MODE, below(4));
		if (chance(40)) {
			kav_nl_put_u32(m, KAV_A_WIRE_PORT_MIN,
				       chance(20) ? 0 : 40000 + below(10));
			if (chance(80))
				kav_nl_put_u32(m, KAV_A_WIRE_PORT_MAX,
					       40000 + below(1000));
		}
		if (chance(20))
			kav_nl_put_u32(m, KAV_A_WIRE_MARK, chance(50) ?
				       0x4b000000 : (uint32_t)rnd());
		break;
	case 1:
		kav_nl_req(&F.nl, m, KAV_GENL_CMD_WIRE_GET, 0);
		break;
	default:
		kav_nl_req(&F.nl, m, chance(60) ? KAV_GENL_CMD_WIRE_NET_ADD :
			   KAV_GENL_CMD_WIRE_NET_DEL, 0);
		put_wire_net(m);
	}
}

/* WIRE_GET's scope: every KAV_A_WIRE_NET (repeated) of the reply. */
struct wire_nets {
	struct kav_wire_net net[KAV_WIRE_NETS_MAX];
	unsigned int n;
};

static int wire_nets_cb(const struct nlmsghdr *nlh, const struct genlmsghdr *gh,
			const struct kav_nl_attrs *at, void *arg)
{
	const struct nlattr *na = (const void *)((const char *)gh + GENL_HDRLEN);
	size_t len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	struct wire_nets *w = arg;

	(void)at;
	while (len >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= len) {
		if ((na->nla_type & NLA_TYPE_MASK) == KAV_A_WIRE_NET &&
		    na->nla_len == NLA_HDRLEN + sizeof(w->net[0]) &&
		    w->n < KAV_WIRE_NETS_MAX)
			memcpy(&w->net[w->n++], kav_nl_data(na),
			       sizeof(w->net[0]));
		if ((size_t)NLA_ALIGN(na->nla_len) >= len)
			break;
		len -= NLA_ALIGN(na->nla_len);
		na = (const void *)((const char *)na + NLA_ALIGN(na->nla_len));
	}
	return 0;
}

/*
 * The programs after this one find the wire as the module loaded it:
 * mode off, no port range, the default mark, an empty scope.
 */
static void wire_reset(struct __test_metadata *_metadata)
{
	static struct kav_nl_msg m;
	static struct wire_nets w;
	struct kav_nl nl = { 0 };
	unsigned int i;

	ASSERT_EQ(0, kav_nl_open(&nl));
	kav_nl_req(&nl, &m, KAV_GENL_CMD_WIRE_SET, 0);
	kav_nl_put_u32(&m, KAV_A_WIRE_MODE, KAV_WIRE_OFF);
	kav_nl_put_u32(&m, KAV_A_WIRE_PORT_MIN, 0);
	kav_nl_put_u32(&m, KAV_A_WIRE_MARK, 0x4b000000);
	EXPECT_EQ(0, kav_nl_talk(&nl, &m, NULL, NULL)) TH_LOG("%s", nl.ext_msg);
	w.n = 0;
	kav_nl_req(&nl, &m, KAV_GENL_CMD_WIRE_GET, 0);
	ASSERT_EQ(0, kav_nl_talk(&nl, &m, wire_nets_cb, &w));
	for (i = 0; i < w.n; i++) {
		kav_nl_req(&nl, &m, KAV_GENL_CMD_WIRE_NET_DEL, 0);
		kav_nl_put(&m, KAV_A_WIRE_NET, &w.net[i], sizeof(w.net[i]));
		EXPECT_EQ(0, kav_nl_talk(&nl, &m, NULL, NULL))
			TH_LOG("%s", nl.ext_msg);
	}
	if (w.n)
		printf("# fuzz: the wire's scope had %u nets: removed\n", w.n);
	kav_nl_close(&nl);
}

static void fuzz_netlink(struct __test_metadata *_metadata)
{
	static struct kav_nl_msg m;
	uint32_t grant;
	int ret, n, i;

	if (!F.nl.fd)
		return;
	F.calls++;
	F.nl_msgs++;
	if (chance(20)) {	/* the wire: settings and scope */
		wire_msg(&m);
		ret = kav_nl_talk(&F.nl, &m, NULL, NULL);
	} else if (chance(30)) {	/* a plausible grant, or its removal */
		if (chance(50))
			ret = kav_nl_grant_sel(&F.nl, below(120), 1 + below(5),
					       chance(50) ? below(3) : rnd(),
					       &grant);
		else
			ret = kav_nl_grant_del(&F.nl, chance(50) ? below(300) :
					       (uint32_t)rnd());
	} else {
		kav_nl_req(&F.nl, &m, below(KAV_GENL_CMD_MAX + 3),
			   chance(30) ? NLM_F_DUMP : 0);
		n = below(6);
		for (i = 0; i < n; i++)
			put_random_attr(&m);
		ret = kav_nl_talk(&F.nl, &m, NULL, NULL);
	}
	if (!ret)
		F.nl_ok++;
	/* Every command needs CAP_NET_ADMIN in the initial user namespace. */
	if (F.unprivileged)
		ASSERT_NE(0, ret) TH_LOG("uid 65534: a netlink command succeeded");
}

/* Root grants VNIs 0-99 to @uid, and opens the socket the fuzzer uses. */
static void setup_netlink(struct __test_metadata *_metadata, uid_t uid)
{
	struct timeval tv = { .tv_sec = 2 };
	uint32_t v, id;

	ASSERT_EQ(0, kav_nl_open(&F.nl));
	/* A malformed request may get no answer: do not wait forever. */
	setsockopt(F.nl.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (v = 0; v < 100; v++) {
		int ret = kav_nl_grant_uid(&F.nl, v, uid, &id);

		ASSERT_TRUE(ret == 0 || ret == -EEXIST)
			TH_LOG("grant vni %u: %s (%s)", v, strerror(-ret),
			       F.nl.ext_msg);
	}
}

/* --- one run ------------------------------------------------------------------ */

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

static uint64_t run_seed(void)
{
	static uint64_t seed;

	if (!seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = env_u64("KAV_FUZZ_SEED",
			       (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
			       ((uint64_t)getpid() << 40));
		if (!seed)
			seed = 1;
	}
	return seed;
}

static void setup_memory(struct __test_metadata *_metadata)
{
	uint8_t *p = mmap(NULL, SCRATCH_SIZE + 2 * PAGE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	F.scratch = p;
	F.hole = p + SCRATCH_SIZE;
	ASSERT_EQ(0, mprotect(F.hole, PAGE, PROT_NONE));
	F.ro = F.hole + PAGE;
	ASSERT_EQ(0, mprotect((void *)F.ro, PAGE, PROT_READ));
	signal(SIGSEGV, on_fault);
	signal(SIGBUS, on_fault);
}

static void fuzz_run(struct __test_metadata *_metadata, const char *who,
		     uint64_t stream, bool drop)
{
	uint64_t iters = env_u64("KAV_FUZZ_ITERS", 20000), it;
	double limit = (double)env_u64("KAV_FUZZ_SECONDS", 25), start;
	int i;

	memset(&F, 0, sizeof(F));
	F.seed = run_seed();
	rng_state = F.seed ^ stream;
	setup_memory(_metadata);
	ASSERT_EQ(0, pipe(F.foreign));
	setup_netlink(_metadata, drop ? 65534 : 0);
	open_domain();
	ASSERT_EQ(1, F.nr_doms) TH_LOG("open %s: %s", kav_test_device(),
				       strerror(errno));
	for (i = 0; i < 3; i++) {
		struct kav_av_create c;
		int fd = kav_create_av(F.doms[0], 1 + i, &c);

		ASSERT_LE(0, fd) TH_LOG("create: %s", strerror(-fd));
		track_av(fd, &c);
	}
	if (drop) {
		/* Root's fds stay; everything from here on is uid 65534. */
		ASSERT_EQ(0, setgroups(0, NULL));
		ASSERT_EQ(0, setresgid(65534, 65534, 65534));
		ASSERT_EQ(0, setresuid(65534, 65534, 65534));
		ASSERT_NE(0, geteuid());
		F.unprivileged = true;
		/* Root's socket is refused too; half the time, use our own. */
		if (chance(50)) {
			struct timeval tv = { .tv_sec = 2 };

			kav_nl_close(&F.nl);
			ASSERT_EQ(0, kav_nl_open(&F.nl));
			setsockopt(F.nl.fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				   sizeof(tv));
		}
	}

	start = kav_now();
	for (it = 0; it < iters; it++) {
		unsigned int r = below(100);

		if (!(it & 63) && kav_now() - start > limit)
			break;
		if (r < 65)
			fuzz_ioctl(_metadata);
		else if (r < 70)
			fuzz_netlink(_metadata);
		else if (r < 80)
			fuzz_mmap(_metadata);
		else if (r < 92)
			fuzz_mem(_metadata);
		else if (r < 96)
			open_domain();
		else
			close_one();
		if (!F.nr_doms)
			open_domain();
		if (_metadata->exit_code)
			break;
	}
	for (i = 0; i < F.nr_avs; i++)
		check_av(_metadata, &F.avs[i]);
	printf("# fuzz: %s: seed=%#llx iterations=%llu in %.1f s\n", who,
	       (unsigned long long)F.seed, (unsigned long long)it,
	       kav_now() - start);
	printf("# fuzz: %s: %lu calls made (ioctl %lu, netlink %lu, mmap %lu, memory %lu, open %lu, close %lu; %lu ok, %lu failed, %lu netlink ok, %lu faults caught, %lu forks, %lu table checks)\n",
	       who, F.calls, F.ioctls, F.nl_msgs, F.mmaps, F.mem_ops, F.opens,
	       F.closes, F.ok, F.failed, F.nl_ok, F.faults, F.forks, F.checks);
	if (_metadata->exit_code)
		printf("# fuzz: replay: KAV_FUZZ_SEED=%#llx KAV_FUZZ_ITERS=%llu ./kav_fuzz_test -t %s\n",
		       (unsigned long long)F.seed,
		       (unsigned long long)it + 1, _metadata->name);
	fflush(stdout);
}

FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
}

FIXTURE_TEARDOWN(fuzz)
{
}

TEST_F_TIMEOUT(fuzz, root, FUZZ_TIMEOUT)
{
	if (geteuid())
		SKIP(return, "needs root");
	fuzz_run(_metadata, "root", 0x726f6f74ULL, false);
	wire_reset(_metadata);
}

TEST_F_TIMEOUT(fuzz, unprivileged, FUZZ_TIMEOUT)
{
	if (geteuid())
		SKIP(return, "needs root to drop to uid 65534");
	fuzz_run(_metadata, "uid 65534", 0x6e6f626f6479ULL, true);
}

TEST_HARNESS_MAIN
