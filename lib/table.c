// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Attaching to a kav AV table: the kernel's read-only shared mapping of an
 * AV (uapi/linux/kav.h, "The table mapping"). The header is validated
 * once here; the reads themselves are inline in table.h.
 *
 * Nothing here makes a system call except kav_table_map/unmap, so the
 * reader works on any memory holding a table image; the unit tests build
 * fake tables in malloc'd memory.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "table.h"
#include "kav_base.h"		/* kav_warn(), kav_sys_pause(), errors */

_Static_assert(offsetof(struct kav_entry, addr) == KAV_ENTRY_HDR_SIZE,
	       "struct kav_entry header size");
_Static_assert(KAV_MAX_AUTH_KEYS <= KAV_ENTRY_NO_KEY,
	       "a key slot fits struct kav_entry.auth_key");
_Static_assert(sizeof(((struct kav_entry_snap *)0)->addr) >= KAV_ADDR_MAX_LEN,
	       "snapshot holds the largest address");

#ifdef KAV_TESTING
void (*kav_table_read_hook)(const struct kav_entry *e, unsigned int attempt);
void (*kav_table_key_read_hook)(const struct kav_key_slot *k,
				unsigned int attempt);
#endif

/*
 * A seq read that keeps failing after KAV_READ_SPINS attempts: yield the
 * CPU KAV_READ_YIELDS times, then sleep between attempts (table.h).
 */
void kav_table_backoff(unsigned int attempt)
{
	kav_sys_pause(attempt >= KAV_READ_SPINS + KAV_READ_YIELDS ?
		      KAV_READ_NAP_US : 0);
}

static bool kav_is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/*
 * Entries [0, bound) may be read. nr_slots never decreases, so a bound
 * seen once stays true and is cached in t->bound; this reloads it. The
 * cache is shared by every thread using the table: acquire/release keeps
 * the kernel's "page exists" (its release of nr_slots) ordered before any
 * thread's read through a cached bound. A racing store of a smaller value
 * only costs another trip here. Clamped to max_entries, and below
 * KAV_FI_ADDR_KEY so that one comparison refuses key handles and
 * FI_ADDR_NOTAVAIL too.
 */
bool kav_table_reach(const struct kav_map *t, uint64_t index)
{
	uint64_t n = kav_table_nr_slots(t);

	n = KAV_MIN(n, KAV_FI_ADDR_KEY);
	/* A cache, not the table: written through a const table. */
	__atomic_store_n((uint64_t *)&t->bound, n, __ATOMIC_RELEASE);
	return index < n;
}

int kav_table_lookup_slow(const struct kav_map *t, uint64_t index,
			  void *addr, size_t *addrlen)
{
	struct kav_entry_meta m;
	int ret;

	/*
	 * Bound (reloaded), then retries with the backoff: kav_table_read.
	 * A short buffer gets what fits; *addrlen says what is needed.
	 */
	ret = kav_table_read(t, index, &m, addr, *addrlen, false);
	if (ret)
		return ret;
	if (!(m.flags & KAV_ENTRY_VALID))
		return -FI_EINVAL;
	*addrlen = m.addr_len;
	return 0;
}

int kav_table_attach(struct kav_map *t, const void *base, size_t map_size,
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
	    !h->addr_max || h->addr_max > KAV_ADDR_MAX_LEN ||
	    /* The kernel's size: the smallest power of two that fits. */
	    h->entry_size < KAV_ENTRY_HDR_SIZE + h->addr_max ||
	    h->entry_size / 2 >= KAV_ENTRY_HDR_SIZE + h->addr_max ||
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
	if (h->max_keys || h->keys_offset || h->key_counts_offset) {
		if (h->keys_offset < sizeof(*h) || h->keys_offset % 8 ||
		    h->max_keys > KAV_MAX_AUTH_KEYS ||
		    h->keys_offset + (uint64_t)h->max_keys *
		    sizeof(struct kav_key_slot) > h->header_size ||
		    h->key_counts_offset < sizeof(*h) ||
		    h->key_counts_offset % 8 ||
		    h->key_counts_offset + (uint64_t)h->max_keys *
		    sizeof(struct kav_key_count) > h->header_size) {
			kav_warn("AV table key slots are inconsistent "
				 "(keys_offset %u, key_counts_offset %u, "
				 "max_keys %u, header_size %u)",
				 h->keys_offset, h->key_counts_offset,
				 h->max_keys, h->header_size);
			return -FI_EIO;
		}
	}
	/*
	 * The fi_addr array: after the entries, inside the mapping; 0: none
	 * (a job table, whose fi_addr i would be i for every slot).
	 */
	if (h->fi_addrs_offset && (h->fi_addrs_offset % 8 ||
	    h->fi_addrs_offset < h->header_size +
				 h->max_entries * h->entry_size ||
	    h->fi_addrs_offset > map_size ||
	    h->max_entries > (map_size - h->fi_addrs_offset) / 8)) {
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
	t->entries = (const uint8_t *)base + h->header_size;
	t->bound = 0;			/* the first read loads nr_slots */
	t->entry_shift = (uint32_t)__builtin_ctz(h->entry_size);
	t->map_size = map_size;
	t->header_size = h->header_size;
	t->entry_size = h->entry_size;
	t->addr_format = h->addr_format;
	t->addr_max = h->addr_max;
	t->max_entries = h->max_entries;
	t->keys_offset = h->keys_offset;
	t->keys = (const uint8_t *)base + h->keys_offset;
	t->max_keys = h->max_keys;
	t->key_counts_offset = h->key_counts_offset;
	t->fi_addrs_offset = h->fi_addrs_offset;
	return 0;
}

int kav_table_map(struct kav_map *t, int fd, size_t map_size,
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

void kav_table_unmap(struct kav_map *t)
{
	if (t->mapped && t->base)
		munmap((void *)t->base, t->map_size);
	memset(t, 0, sizeof(*t));
}
