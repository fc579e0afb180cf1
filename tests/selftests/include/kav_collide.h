/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Addresses that land in one bucket of a job table's mapped address index
 * (struct kav_table_header.index_buckets, kav_index_hash() in the uAPI).
 * The hash is public and so is the bucket count: anyone can aim addresses
 * at one chain, about one in index_buckets tries (kav_flood_test, the
 * fuzzer's colliding inserts).
 *
 * Only sin_addr and sin_port vary: sin_zero stays 0, since the kernel
 * clears it before it stores or hashes an address (issue 34), so padding
 * is no source of distinct addresses.
 *
 * kav_collide_hash() is the one place that knows the hash's signature:
 * the 3-argument kav_index_hash() of the first index, or, when the header
 * has index_hash and index_seed (KAV_INDEX_HASH_FNV1A), the seeded one.
 */
#ifndef KAV_COLLIDE_H
#define KAV_COLLIDE_H

#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/kav.h>

#define KAV_FNV_BASIS	0xcbf29ce484222325ULL
#define KAV_FNV_PRIME	0x100000001b3ULL

/* The table's public seed (0 before the header had one). */
static inline uint64_t
kav_collide_seed(const volatile struct kav_table_header *h)
{
#ifdef KAV_INDEX_HASH_FNV1A
	return h->index_seed;
#else
	(void)h;
	return 0;
#endif
}

/* The mapped index's hash of @a, whichever uAPI this is built against. */
static inline uint32_t kav_collide_hash(const void *a, uint32_t len,
					uint64_t key, uint64_t seed)
{
#ifdef KAV_INDEX_HASH_FNV1A
	return kav_index_hash(a, len, key, seed);
#else
	(void)seed;
	return kav_index_hash(a, len, key);
#endif
}

/* FNV-1a's offset basis as kav_index_hash() mixes key and seed into it. */
static inline uint64_t kav_collide_basis(uint64_t key, uint64_t seed)
{
#ifdef KAV_INDEX_HASH_FNV1A
	return KAV_FNV_BASIS ^ key ^ seed;
#else
	(void)seed;
	return KAV_FNV_BASIS ^ key;
#endif
}

static inline uint64_t kav_collide_step(uint64_t h, uint8_t b)
{
	return (h ^ b) * KAV_FNV_PRIME;
}

static inline uint32_t kav_collide_fold(uint64_t h)
{
	return (uint32_t)(h ^ (h >> 32));
}

/* The bytes of sockaddr_in @s, as the kernel hashes them (zero padding). */
static inline void kav_collide_sin(struct sockaddr_in *s, uint32_t host,
				   uint16_t port)
{
	memset(s, 0, sizeof(*s));
	s->sin_family = AF_INET;
	s->sin_port = htons(port);
	s->sin_addr.s_addr = htonl(host);
}

/*
 * Fill @out with @n sockaddr_in (port @port, addresses from @base up)
 * that share one bucket of an index of @buckets (a power of two) under key
 * handle @key and seed @seed: the bucket of the first candidate, which
 * goes to *@bucket (may be NULL). Returns how many were found, @n unless
 * the 2^32 addresses above @base ran out. About @n * @buckets candidates;
 * each costs one multiplication: FNV-1a's state is kept for the first 7
 * bytes, and the 8 zero bytes of sin_zero only multiply by the prime.
 * Each address found is checked against kav_collide_hash() itself, so a
 * wrong shortcut gives fewer addresses, never wrong ones.
 */
static inline uint32_t kav_collide_in(uint32_t buckets, uint64_t key,
				      uint64_t seed, uint32_t base,
				      uint16_t port, struct sockaddr_in *out,
				      uint32_t n, uint32_t *bucket)
{
	uint64_t p9 = KAV_FNV_PRIME, hi, s;
	uint32_t mask = buckets - 1, target = 0, found = 0, h, lo, i;
	struct sockaddr_in sin;
	uint8_t b[8];
	int have_target = 0;

	/* sin_zero's 8 zero bytes and the last address byte's prime. */
	for (i = 0; i < 8; i++)
		p9 *= KAV_FNV_PRIME;
	for (hi = base >> 8; hi < (1ULL << 24) && found < n; hi++) {
		kav_collide_sin(&sin, (uint32_t)(hi << 8), port);
		memcpy(b, &sin, sizeof(b));
		s = kav_collide_basis(key, seed);
		for (i = 0; i < 7; i++)
			s = kav_collide_step(s, b[i]);
		for (lo = hi == base >> 8 ? (base & 0xff) : 0;
		     lo < 256 && found < n; lo++) {
			h = kav_collide_fold((s ^ lo) * p9);
			if (!have_target) {
				target = h & mask;
				have_target = 1;
			}
			if ((h & mask) != target)
				continue;
			kav_collide_sin(&sin, (uint32_t)(hi << 8 | lo), port);
			if ((kav_collide_hash(&sin, sizeof(sin), key, seed) &
			     mask) != target)
				continue;	/* the shortcut is wrong */
			out[found++] = sin;
		}
	}
	if (bucket)
		*bucket = target;
	return found;
}

/*
 * The same for table @h, whose entries are under key handle @key: its
 * bucket count and seed from its header.
 */
static inline uint32_t
kav_collide_in_table(const volatile struct kav_table_header *h, uint64_t key,
		     uint32_t base, uint16_t port, struct sockaddr_in *out,
		     uint32_t n, uint32_t *bucket)
{
	if (!h->index_buckets)
		return 0;
	return kav_collide_in(h->index_buckets, key, kav_collide_seed(h),
			      base, port, out, n, bucket);
}

/* Characters a KAV_ADDR_STR address may hold: 0x21..0x7e. */
#define KAV_COLLIDE_CH0		0x21
#define KAV_COLLIDE_NCH		94

/*
 * The same for KAV_ADDR_STR: @n strings of @len bytes (the NUL
 * included, 6..KAV_ADDR_MAX_LEN), @stride bytes apart in @out, made of
 * @tag (a printable character) and then 'a's, with the last 4 characters
 * varied (94^4 candidates). Long strings make every comparison of the
 * chain walk, and every hash of the kernel's own index, cost their
 * length; only the 4 varied characters are hashed per candidate.
 */
static inline uint32_t kav_collide_str(uint32_t buckets, uint64_t key,
				       uint64_t seed, uint32_t len, char tag,
				       char *out, uint32_t stride, uint32_t n,
				       uint32_t *bucket)
{
	uint32_t mask = buckets - 1, target = 0, found = 0, i, h;
	uint32_t c[4], v = len - 5;	/* first varied position */
	uint64_t s[5];
	char buf[KAV_ADDR_MAX_LEN];
	int have_target = 0;

	if (len < 6 || len > sizeof(buf))
		return 0;
	memset(buf, 'a', len - 1);
	buf[0] = tag;
	buf[len - 1] = '\0';
	s[0] = kav_collide_basis(key, seed);
	for (i = 0; i < v; i++)
		s[0] = kav_collide_step(s[0], (uint8_t)buf[i]);
	for (c[0] = 0; c[0] < KAV_COLLIDE_NCH && found < n; c[0]++) {
		s[1] = kav_collide_step(s[0], KAV_COLLIDE_CH0 + c[0]);
		for (c[1] = 0; c[1] < KAV_COLLIDE_NCH && found < n; c[1]++) {
			s[2] = kav_collide_step(s[1], KAV_COLLIDE_CH0 + c[1]);
			for (c[2] = 0; c[2] < KAV_COLLIDE_NCH && found < n;
			     c[2]++) {
				s[3] = kav_collide_step(s[2],
							KAV_COLLIDE_CH0 + c[2]);
				for (c[3] = 0; c[3] < KAV_COLLIDE_NCH &&
				     found < n; c[3]++) {
					/* The 4th character, then the NUL. */
					s[4] = kav_collide_step(s[3],
							KAV_COLLIDE_CH0 + c[3]);
					h = kav_collide_fold(s[4] *
							     KAV_FNV_PRIME);
					if (!have_target) {
						target = h & mask;
						have_target = 1;
					}
					if ((h & mask) != target)
						continue;
					for (i = 0; i < 4; i++)
						buf[v + i] = (char)
							(KAV_COLLIDE_CH0 + c[i]);
					if ((kav_collide_hash(buf, len, key,
							      seed) & mask) !=
					    target)
						continue;
					memset(out + (size_t)found * stride, 0,
					       stride);
					memcpy(out + (size_t)found * stride,
					       buf, len);
					found++;
				}
			}
		}
	}
	if (bucket)
		*bucket = target;
	return found;
}

/*
 * Length of the mapped chain of bucket @bucket (at most nr_slots steps),
 * read as a reader would; for checking that a chain was built.
 */
static inline uint64_t
kav_collide_chain_len(const volatile struct kav_table_header *h,
		      uint32_t bucket)
{
	const volatile char *base = (const volatile char *)h;
	const volatile uint32_t *heads =
		(const volatile uint32_t *)(base + h->index_offset);
	const volatile uint32_t *next =
		(const volatile uint32_t *)(base + h->index_next_offset);
	uint64_t nr = __atomic_load_n(&h->nr_slots, __ATOMIC_ACQUIRE), n = 0;
	uint32_t link = __atomic_load_n(&heads[bucket], __ATOMIC_ACQUIRE);

	while (link && link - 1 < nr && n < nr) {
		n++;
		link = __atomic_load_n(&next[link - 1], __ATOMIC_ACQUIRE);
	}
	return n;
}

#endif /* KAV_COLLIDE_H */
