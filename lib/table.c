// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Reader of a kav AV table: the kernel's read-only shared mapping of an AV
 * (uapi/linux/kav.h, "The table mapping"). Lookups are served from here
 * with no system call.
 *
 * Nothing in this file makes a system call except kav_table_map/unmap, so
 * the reader works on any memory holding a table image; the unit tests
 * build fake tables in malloc'd memory.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "kav_priv.h"

_Static_assert(offsetof(struct kav_entry, addr) == KAV_ENTRY_HDR_SIZE,
	       "struct kav_entry header size");
_Static_assert(sizeof(((struct kav_entry_snap *)0)->addr) >= KAV_ADDR_MAX_LEN,
	       "snapshot holds the largest address");

#ifdef KAV_TESTING
void (*kav_table_read_hook)(const struct kav_entry *e, unsigned int attempt);
#define KAV_READ_HOOK(e, attempt)					\
	do {								\
		if (kav_table_read_hook)				\
			kav_table_read_hook((e), (attempt));		\
	} while (0)
void (*kav_table_key_read_hook)(const struct kav_key_slot *k,
				unsigned int attempt);
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

static bool kav_is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

int kav_table_attach(struct kav_table *t, const void *base, size_t map_size,
		     uint32_t expect_format)
{
	const struct kav_table_header *h = base;
	uint64_t capacity;

	memset(t, 0, sizeof(*t));
	if (!base || map_size < sizeof(*h))
		return -FI_EINVAL;
	if (h->magic != KAV_TABLE_MAGIC || h->version != KAV_TABLE_VERSION) {
		kav_warn("AV table has magic %#x version %u, expected %#x "
			 "version %u", h->magic, h->version, KAV_TABLE_MAGIC,
			 KAV_TABLE_VERSION);
		return -FI_EIO;
	}
	/*
	 * Every value used for pointer arithmetic later is checked here, so a
	 * reader can never be sent outside [base, base + map_size).
	 */
	if (h->header_size < sizeof(*h) || h->header_size % 8 ||
	    h->header_size > map_size ||
	    !kav_is_pow2(h->entry_size) ||
	    h->entry_size > KAV_ENTRY_HDR_SIZE + KAV_ADDR_MAX_LEN ||
	    !h->addr_max || h->addr_max > KAV_ADDR_MAX_LEN ||
	    h->entry_size < KAV_ENTRY_HDR_SIZE + h->addr_max ||
	    h->map_size != map_size) {
		kav_warn("AV table header is inconsistent (header_size %u, "
			 "entry_size %u, addr_max %u, map_size %llu of %zu)",
			 h->header_size, h->entry_size, h->addr_max,
			 (unsigned long long)h->map_size, map_size);
		return -FI_EIO;
	}
	capacity = (map_size - h->header_size) / h->entry_size;
	if (h->max_entries > capacity) {
		kav_warn("AV table claims %llu entries, its mapping holds %llu",
			 (unsigned long long)h->max_entries,
			 (unsigned long long)capacity);
		return -FI_EIO;
	}
	/*
	 * Auth-key slots live in the header page. A header without them
	 * (keys_offset and max_keys 0) is a table with no key support.
	 */
	if (h->max_keys || h->keys_offset) {
		if (h->keys_offset < sizeof(*h) || h->keys_offset % 8 ||
		    h->max_keys > KAV_MAX_AUTH_KEYS ||
		    h->keys_offset + (uint64_t)h->max_keys *
		    sizeof(struct kav_key_slot) > h->header_size) {
			kav_warn("AV table key slots are inconsistent "
				 "(keys_offset %u, max_keys %u, header_size "
				 "%u)", h->keys_offset, h->max_keys,
				 h->header_size);
			return -FI_EIO;
		}
	}
	/* The fi_addr array: after the entries, inside the mapping. */
	if (h->fi_addrs_offset % 8 ||
	    h->fi_addrs_offset < h->header_size +
				 h->max_entries * h->entry_size ||
	    h->fi_addrs_offset > map_size ||
	    h->max_entries > (map_size - h->fi_addrs_offset) / 8) {
		kav_warn("AV table fi_addr array is inconsistent "
			 "(fi_addrs_offset %llu, max_entries %llu, map_size "
			 "%zu)", (unsigned long long)h->fi_addrs_offset,
			 (unsigned long long)h->max_entries, map_size);
		return -FI_EIO;
	}
	if (expect_format && h->addr_format != expect_format) {
		kav_warn("AV table stores format %u, expected %u",
			 h->addr_format, expect_format);
		return -FI_EIO;
	}
	t->base = base;
	t->map_size = map_size;
	t->header_size = h->header_size;
	t->entry_size = h->entry_size;
	t->addr_format = h->addr_format;
	t->addr_max = h->addr_max;
	t->max_entries = h->max_entries;
	t->keys_offset = h->keys_offset;
	t->max_keys = h->max_keys;
	t->fi_addrs_offset = h->fi_addrs_offset;
	return 0;
}

int kav_table_map(struct kav_table *t, int fd, size_t map_size,
		  uint32_t expect_format)
{
	void *base;
	int ret;

	memset(t, 0, sizeof(*t));
	if (map_size < sizeof(struct kav_table_header))
		return -FI_EIO;
	/* The kernel refuses writable mappings; ask for exactly read. */
	base = mmap(NULL, map_size, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		ret = kav_err_from_errno(errno);
		kav_warn("mmap of the AV table (%zu bytes) failed: %s",
			 map_size, kav_strerror(ret));
		return ret;
	}
	ret = kav_table_attach(t, base, map_size, expect_format);
	if (ret) {
		munmap(base, map_size);
		return ret;
	}
	t->mapped = true;
	return 0;
}

void kav_table_unmap(struct kav_table *t)
{
	if (t->mapped && t->base)
		munmap((void *)t->base, t->map_size);
	memset(t, 0, sizeof(*t));
}

const struct kav_table_header *kav_table_header(const struct kav_table *t)
{
	return (const struct kav_table_header *)t->base;
}

uint64_t kav_table_nr_slots(const struct kav_table *t)
{
	/* Acquire pairs with the kernel's release after backing the pages. */
	uint64_t n = __atomic_load_n(&kav_table_header(t)->nr_slots,
				     __ATOMIC_ACQUIRE);

	return KAV_MIN(n, t->max_entries);
}

const uint64_t *kav_table_fi_addrs(const struct kav_table *t)
{
	return (const uint64_t *)(t->base + t->fi_addrs_offset);
}

const struct kav_entry *kav_table_entry(const struct kav_table *t,
					uint64_t index)
{
	return (const struct kav_entry *)(t->base + t->header_size +
					  index * t->entry_size);
}

/*
 * Read entry @index: its metadata into @m and up to @cap bytes of its
 * address into @addr (which may be the caller's own buffer: only the last,
 * consistent copy counts).
 */
static int kav_table_read(const struct kav_table *t, uint64_t index,
			  struct kav_entry_meta *m, void *addr, size_t cap)
{
	const struct kav_entry *e;
	unsigned int attempt;
	uint64_t seq;
	uint32_t len;

	/* Check before touching: a page past nr_slots may not exist. */
	if (index >= kav_table_nr_slots(t))
		return -FI_EINVAL;
	e = kav_table_entry(t, index);

	/*
	 * Seqcount read side, as in the vDSO: the kernel makes seq odd, writes
	 * the entry, then makes it even again (release). A copy taken between
	 * two equal even loads of seq is consistent.
	 */
	for (attempt = 0;; attempt++) {
		seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
		KAV_READ_HOOK(e, attempt);
		if (seq & 1) {
			kav_cpu_relax();
			continue;
		}
		m->flags = __atomic_load_n(&e->flags, __ATOMIC_RELAXED);
		len = __atomic_load_n(&e->addr_len, __ATOMIC_RELAXED);
		m->auth_key = __atomic_load_n(&e->auth_key, __ATOMIC_RELAXED);
		m->user_id = __atomic_load_n(&e->user_id, __ATOMIC_RELAXED);
		/* A torn addr_len must not make us copy past the entry. */
		len = KAV_MIN(len, t->addr_max);
		if (cap)
			memcpy(addr, e->addr, KAV_MIN((size_t)len, cap));
		/* Order the copy before the second load of seq. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) == seq)
			break;
	}
	m->seq = seq;
	m->addr_len = len;
	return 0;
}

int kav_table_read_entry(const struct kav_table *t, uint64_t index,
			 struct kav_entry_snap *snap)
{
	struct kav_entry_meta m;
	int ret;

	ret = kav_table_read(t, index, &m, snap->addr, sizeof(snap->addr));
	if (ret)
		return ret;
	snap->seq = m.seq;
	snap->flags = m.flags;
	snap->addr_len = m.addr_len;
	snap->auth_key = m.auth_key;
	snap->user_id = m.user_id;
	return 0;
}

int kav_table_read_meta(const struct kav_table *t, uint64_t index,
			struct kav_entry_meta *meta)
{
	return kav_table_read(t, index, meta, NULL, 0);
}

int kav_table_lookup(const struct kav_table *t, uint64_t index, void *addr,
		     size_t *addrlen)
{
	struct kav_entry_meta m;
	int ret;

	/* Straight into the caller's buffer: no copy in between. */
	ret = kav_table_read(t, index, &m, addr, *addrlen);
	if (ret)
		return ret;
	if (!(m.flags & KAV_ENTRY_VALID))
		return -FI_EINVAL;
	*addrlen = m.addr_len;
	return 0;
}

const struct kav_key_slot *kav_table_key(const struct kav_table *t,
					 uint32_t slot)
{
	return (const struct kav_key_slot *)(t->base + t->keys_offset +
					     slot * sizeof(struct kav_key_slot));
}

int kav_table_read_key(const struct kav_table *t, uint32_t slot,
		       struct kav_key_snap *snap)
{
	const struct kav_key_slot *k;
	unsigned int attempt;
	uint64_t seq;

	if (slot >= t->max_keys)
		return -FI_EINVAL;
	k = kav_table_key(t, slot);
	/* The same seqcount read side as entries. */
	for (attempt = 0;; attempt++) {
		seq = __atomic_load_n(&k->seq, __ATOMIC_ACQUIRE);
		KAV_KEY_READ_HOOK(k, attempt);
		if (seq & 1) {
			kav_cpu_relax();
			continue;
		}
		snap->flags = __atomic_load_n(&k->flags, __ATOMIC_RELAXED);
		snap->vni = __atomic_load_n(&k->vni, __ATOMIC_RELAXED);
		snap->user_id = __atomic_load_n(&k->user_id, __ATOMIC_RELAXED);
		snap->nr_entries = __atomic_load_n(&k->nr_entries,
						   __ATOMIC_RELAXED);
		snap->nr_endpoints = __atomic_load_n(&k->nr_endpoints,
						     __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&k->seq, __ATOMIC_RELAXED) == seq)
			break;
	}
	snap->seq = seq;
	return 0;
}

uint64_t kav_table_entry_seq(const struct kav_table *t, uint64_t index)
{
	return __atomic_load_n(&kav_table_entry(t, index)->seq,
			       __ATOMIC_ACQUIRE);
}
