// SPDX-License-Identifier: GPL-2.0
/*
 * The fake kernel's table is kav.ko's table. The unit tests and the native
 * benchmark (bench/native) run libkav over tables built by the fake kernel
 * (tests/doubles/kernel/fake_table.c); what they show holds for the module only if
 * those tables are the module's. Here the same operations go through
 * /dev/kav and through fake_ktable_*(): a domain key, key inserts, batches
 * with and without keys, removes, re-inserts into the holes, user ids, an
 * enabled endpoint, a key removed, a revocation, batches that cross entry
 * and fi_addr pages. After each step the indices the kernel returned must
 * be the fake's; at checkpoints the mapped table and the fake image are
 * compared byte for byte: the header page, every entry page up to
 * nr_slots and the fi_addr array up to nr_slots. A difference is reported
 * with its offset and the field it falls in.
 */
#include <stddef.h>
#include <stdio.h>
#include "kselftest_harness.h"
#include "kav_test_util.h"
#include "kav_test_grants.h"
#include "fake_table.h"
#include "fake_index.h"

/* Keys granted to the test: the domain's, one inserted, one removed. */
#define VNI_DOMAIN	7101
#define VNI_B		7102
#define VNI_C		7103
/* The most addresses one step inserts. */
#define STEP_MAX	600

/* One AV twice: in the kernel and in the fake. */
struct pair {
	int av;
	struct kav_av_create c;
	const uint8_t *kmap;		/* the kernel's table, read-only */
	uint8_t *fmem;			/* the fake's image */
	struct fake_ktable ft;
	uint32_t format;
	bool keyed;			/* the domain has VNI_DOMAIN */
	char where[160];		/* the first difference found */
};

/* ------------------------------------------------------------ addresses */

static uint32_t addr_max_of(uint32_t format)
{
	return format == KAV_ADDR_SOCKADDR_IN ? 16 :
	       format == KAV_ADDR_STR ? 96 : 28;
}

/* Address number @n of @format at @out (stride addr_max); its length. */
static uint32_t make_addr(uint32_t format, uint32_t n, uint8_t *out)
{
	struct sockaddr_in6 s6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons((uint16_t)(2000 + n)),
		.sin6_addr.s6_addr = { 0xfd, [12] = (uint8_t)(n >> 24),
				       (uint8_t)(n >> 16), (uint8_t)(n >> 8),
				       (uint8_t)n },
	};
	struct sockaddr_in s4 = kav_sin(0x0a010000u + n,
					(uint16_t)(2000 + n));

	memset(out, 0, addr_max_of(format));
	switch (format) {
	case KAV_ADDR_SOCKADDR_IN:
		memcpy(out, &s4, sizeof(s4));
		return sizeof(s4);
	case KAV_ADDR_STR:
		return (uint32_t)snprintf((char *)out, 96, "host-%u:%u", n,
					  2000 + n) + 1;
	default:
		memcpy(out, &s6, sizeof(s6));
		return sizeof(s6);
	}
}

/* ------------------------------------------------------------ where */

struct field {
	size_t off, size;
	const char *name;
};

#define F(type, member) { offsetof(type, member), \
			  sizeof(((type *)0)->member), #member }

static const struct field header_fields[] = {
	F(struct kav_table_header, magic),
	F(struct kav_table_header, version),
	F(struct kav_table_header, header_size),
	F(struct kav_table_header, entry_size),
	F(struct kav_table_header, addr_format),
	F(struct kav_table_header, addr_max),
	F(struct kav_table_header, max_entries),
	F(struct kav_table_header, map_size),
	F(struct kav_table_header, nr_slots),
	F(struct kav_table_header, key_gen),
	F(struct kav_table_header, keys_offset),
	F(struct kav_table_header, max_keys),
	F(struct kav_table_header, fi_addrs_offset),
	F(struct kav_table_header, key_counts_offset),
	F(struct kav_table_header, __reserved),
	F(struct kav_table_header, generation),
	F(struct kav_table_header, nr_valid),
};

static const struct field slot_fields[] = {
	F(struct kav_key_slot, seq),
	F(struct kav_key_slot, flags),
	F(struct kav_key_slot, vni),
	F(struct kav_key_slot, user_id),
	F(struct kav_key_slot, __reserved),
};

static const struct field count_fields[] = {
	F(struct kav_key_count, nr_entries),
	F(struct kav_key_count, nr_endpoints),
};

static const struct field entry_fields[] = {
	F(struct kav_entry, seq),
	F(struct kav_entry, flags),
	F(struct kav_entry, addr_len),
	F(struct kav_entry, auth_key),
	F(struct kav_entry, user_id),
};

static const char *field_at(const struct field *f, size_t n, size_t off)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (off >= f[i].off && off < f[i].off + f[i].size)
			return f[i].name;
	return NULL;
}

#define FIELD_AT(table, off) \
	field_at(table, sizeof(table) / sizeof(table[0]), off)

/* Name the byte at @off of the mapping of @h. */
static void describe(const struct kav_table_header *h, size_t off, char *buf,
		     size_t len)
{
	size_t slot_end = h->keys_offset +
			  (size_t)h->max_keys * sizeof(struct kav_key_slot);
	size_t count_end = h->key_counts_offset +
			   (size_t)h->max_keys * sizeof(struct kav_key_count);
	const char *name;
	size_t rel;

	if (off < sizeof(*h)) {
		snprintf(buf, len, "header.%s",
			 FIELD_AT(header_fields, off));
	} else if (off < h->header_size && off >= h->keys_offset &&
		   off < slot_end) {
		rel = off - h->keys_offset;
		snprintf(buf, len, "key_slot[%zu].%s",
			 rel / sizeof(struct kav_key_slot),
			 FIELD_AT(slot_fields,
				  rel % sizeof(struct kav_key_slot)));
	} else if (off < h->header_size && off >= h->key_counts_offset &&
		   off < count_end) {
		rel = off - h->key_counts_offset;
		snprintf(buf, len, "key_count[%zu].%s",
			 rel / sizeof(struct kav_key_count),
			 FIELD_AT(count_fields,
				  rel % sizeof(struct kav_key_count)));
	} else if (off < h->header_size) {
		snprintf(buf, len, "header page, outside every field");
	} else if (off < (h->fi_addrs_offset ? h->fi_addrs_offset :
			  h->index_offset ? h->index_offset : h->map_size)) {
		rel = off - h->header_size;
		name = FIELD_AT(entry_fields, rel % h->entry_size);
		if (name)
			snprintf(buf, len, "entry[%zu].%s",
				 rel / h->entry_size, name);
		else
			snprintf(buf, len, "entry[%zu].addr[%zu]",
				 rel / h->entry_size,
				 rel % h->entry_size - KAV_ENTRY_HDR_SIZE);
	} else if (h->fi_addrs_offset &&
		   (!h->index_offset || off < h->index_offset)) {
		rel = off - h->fi_addrs_offset;
		snprintf(buf, len, "fi_addr[%zu]", rel / sizeof(uint64_t));
	} else if (off < h->index_next_offset) {
		rel = off - h->index_offset;
		snprintf(buf, len, "bucket[%zu]", rel / sizeof(uint32_t));
	} else {
		rel = off - h->index_next_offset;
		snprintf(buf, len, "link[%zu]", rel / sizeof(uint32_t));
	}
}

/* ------------------------------------------------------------ compare */

/* Compare [@off, @off + @len): 0, or -1 with p->where set. */
static int compare_range(struct pair *p, size_t off, size_t len)
{
	const uint8_t *k = p->kmap + off, *f = p->fmem + off;
	char name[96];
	size_t i;

	if (!memcmp(k, f, len))
		return 0;
	for (i = 0; k[i] == f[i]; i++)
		;
	describe((const struct kav_table_header *)p->fmem, off + i, name,
		 sizeof(name));
	snprintf(p->where, sizeof(p->where),
		 "offset %zu (%s): kernel byte 0x%02x, fake 0x%02x", off + i,
		 name, k[i], f[i]);
	return -1;
}

static size_t pages_for(uint64_t n, uint64_t per_page)
{
	return (size_t)((n + per_page - 1) / per_page) * FAKE_PAGE;
}

/*
 * The header page, then the entry and fi_addr pages that hold slots
 * [0, nr_slots): everything a reader may touch (a job table has no
 * fi_addr array: fi_addrs_offset 0).
 */
static int compare(struct pair *p)
{
	const struct kav_table_header *h = (const void *)p->fmem;
	uint64_t nr_slots = p->ft.nr_slots;

	p->where[0] = '\0';
	if (compare_range(p, 0, FAKE_PAGE))
		return -1;
	if (compare_range(p, h->header_size,
			  pages_for(nr_slots, FAKE_PAGE / h->entry_size)))
		return -1;
	if (!h->fi_addrs_offset)
		return 0;
	return compare_range(p, h->fi_addrs_offset,
			     pages_for(nr_slots, FAKE_PAGE / sizeof(uint64_t)));
}

/* ------------------------------------------------------------ operations */

/* Grant-free ioctls of this test: 0 or -errno. */
static int av_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static int pair_open(struct pair *p, int dom, uint32_t format, bool keyed)
{
	uint64_t max = kav_param_max_entries(), handle;
	size_t size;

	memset(p, 0, sizeof(*p));
	p->format = format;
	p->keyed = keyed;
	/* kav_av_new(): the parameter clamped to [1, U32_MAX]. */
	if (!max)
		return -EIO;
	if (max > UINT32_MAX)
		max = UINT32_MAX;
	p->av = kav_create_av(dom, format, &p->c);
	if (p->av < 0)
		return p->av;
	p->kmap = mmap(NULL, p->c.map_size, PROT_READ, MAP_SHARED, p->av, 0);
	if (p->kmap == MAP_FAILED)
		return -errno;
	/* Sparse: only what the table grows into is ever written. */
	size = fake_table_size(fake_entry_size(addr_max_of(format)), max);
	p->fmem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p->fmem == MAP_FAILED)
		return -errno;
	fake_ktable_init(&p->ft, p->fmem, format, addr_max_of(format), max,
			 true);
	if (keyed)
		fake_ktable_key_insert(&p->ft, VNI_DOMAIN, KAV_KEY_DOMAIN,
				       &handle);
	return 0;
}

static void pair_close(struct pair *p)
{
	const struct kav_table_header *h = (const void *)p->fmem;

	if (p->fmem && p->fmem != MAP_FAILED)
		munmap(p->fmem, h->map_size);
	if (p->kmap && p->kmap != MAP_FAILED)
		munmap((void *)p->kmap, p->c.map_size);
	if (p->av > 0)
		close(p->av);
}

static int pair_key_insert(struct pair *p, uint32_t vni, uint64_t *handle)
{
	struct kav_av_key k = { .size = sizeof(k), .key.vni = vni };
	uint64_t fh;
	int ret = av_ioctl(p->av, KAV_IOC_AV_KEY_INSERT, &k);

	if (ret)
		return ret;
	ret = fake_ktable_key_insert(&p->ft, vni, 0, &fh);
	*handle = k.handle;
	return ret || fh != k.handle ? -EPROTO : 0;
}

static int pair_key_remove(struct pair *p, uint64_t handle)
{
	struct kav_av_key k = { .size = sizeof(k), .handle = handle };
	int ret = av_ioctl(p->av, KAV_IOC_AV_KEY_REMOVE, &k);

	return ret ? ret : fake_ktable_key_remove(&p->ft, handle);
}

/*
 * Insert addresses @first.. (@count of them) in one batch, bound to the
 * domain's key (@keys NULL) or to @keys[i], with @uids[i] if given; the
 * kernel's indices must be the fake's.
 */
static int pair_insert(struct pair *p, uint32_t first, uint32_t count,
		       const uint64_t *keys, const uint64_t *uids)
{
	static uint8_t addrs[STEP_MAX * 96];
	static uint64_t kidx[STEP_MAX], fidx[STEP_MAX];
	static uint32_t lens[STEP_MAX];
	uint32_t i, stride = addr_max_of(p->format);
	struct kav_av_insert in = {
		.size = sizeof(in), .count = count, .addr_stride = stride,
		.addrs = (uintptr_t)addrs, .fi_addrs = (uintptr_t)kidx,
		.flags = (keys ? KAV_INSERT_AUTH_KEY : 0) |
			 (uids ? KAV_INSERT_USER_ID : 0),
		.auth_keys = (uintptr_t)keys, .user_ids = (uintptr_t)uids,
	};
	int ret;

	if (count > STEP_MAX)
		return -E2BIG;
	for (i = 0; i < count; i++)
		lens[i] = make_addr(p->format, first + i, addrs + i * stride);
	ret = av_ioctl(p->av, KAV_IOC_AV_INSERT, &in);
	if (ret)
		return ret;
	fake_ktable_insert(&p->ft, addrs, stride, lens, count, keys,
			   p->keyed ? fake_ktable_key_find(&p->ft, VNI_DOMAIN) :
				      KAV_NONE, uids, fidx);
	for (i = 0; i < count; i++) {
		if (kidx[i] != fidx[i]) {
			snprintf(p->where, sizeof(p->where),
				 "insert of %u: address %u at index %llu in the kernel, %llu in the fake",
				 count, i, (unsigned long long)kidx[i],
				 (unsigned long long)fidx[i]);
			return -EPROTO;
		}
	}
	return 0;
}

static int pair_remove(struct pair *p, const uint64_t *idx, uint32_t count)
{
	int ret = kav_remove(p->av, idx, count, NULL);

	if (!ret)
		fake_ktable_remove(&p->ft, idx, count);
	return ret;
}

static int pair_set_user_id(struct pair *p, bool key, uint64_t index,
			    uint64_t id)
{
	struct kav_av_user_id u = {
		.size = sizeof(u), .index = index, .user_id = id,
		.flags = key ? KAV_USER_ID_AUTH_KEY : 0,
	};
	int ret = av_ioctl(p->av, KAV_IOC_AV_SET_USER_ID, &u);

	if (ret)
		return ret;
	return key ? fake_ktable_key_set_user_id(&p->ft, index, id) :
		     fake_ktable_set_user_id(&p->ft, index, id);
}

/* An endpoint enabled on the AV; its fd (kept open) or -errno. */
static int pair_ep_enable(struct pair *p)
{
	struct kav_av_ep_open o = { .size = sizeof(o) };
	struct kav_ep_enable e = { .size = sizeof(e) };
	int ret = av_ioctl(p->av, KAV_IOC_AV_EP_OPEN, &o);

	if (ret)
		return ret;
	ret = av_ioctl(o.fd, KAV_IOC_EP_ENABLE, &e);
	if (ret) {
		close(o.fd);
		return ret;
	}
	if (fake_ktable_keys_enable(&p->ft) != e.keys) {
		close(o.fd);
		return -EPROTO;
	}
	return o.fd;
}

/* ------------------------------------------------------------ the test */

FIXTURE(layout) {
	int dom, ep;
	struct kav_test_grants grants;
	struct pair p;
};

FIXTURE_VARIANT(layout) {
	uint32_t format;
	bool keyed;
};

FIXTURE_VARIANT_ADD(layout, ipv4_keyed) {
	.format = KAV_ADDR_SOCKADDR_IN, .keyed = true,
};

FIXTURE_VARIANT_ADD(layout, ipv6_keyed) {
	.format = KAV_ADDR_SOCKADDR_IN6, .keyed = true,
};

FIXTURE_VARIANT_ADD(layout, str_keyed) {
	.format = KAV_ADDR_STR, .keyed = true,
};

FIXTURE_VARIANT_ADD(layout, ipv4_keyless) {
	.format = KAV_ADDR_SOCKADDR_IN, .keyed = false,
};

FIXTURE_SETUP(layout)
{
	struct kav_domain_key dk = { .size = sizeof(dk),
				     .key.vni = VNI_DOMAIN };

	self->ep = -1;
	memset(&self->grants, 0, sizeof(self->grants));
	/* One grant each, so that VNI_B's can be revoked alone (ids[1]). */
	ASSERT_EQ(0, kav_test_grant(&self->grants, VNI_DOMAIN, 1));
	ASSERT_EQ(0, kav_test_grant(&self->grants, VNI_B, 1));
	ASSERT_EQ(0, kav_test_grant(&self->grants, VNI_C, 1));
	self->dom = kav_open_domain();
	ASSERT_LE(0, self->dom);
	if (variant->keyed)
		ASSERT_EQ(0, av_ioctl(self->dom, KAV_IOC_DOMAIN_SET_KEY, &dk));
	ASSERT_EQ(0, pair_open(&self->p, self->dom, variant->format,
			       variant->keyed));
}

FIXTURE_TEARDOWN(layout)
{
	if (self->ep >= 0)
		close(self->ep);
	pair_close(&self->p);
	close(self->dom);
	kav_test_revoke_all(&self->grants);
}

/* Compare now; on a difference, say where and after which step. */
#define EXPECT_SAME(p, step)						\
	do {								\
		int __r = compare(p);					\
		if (__r)						\
			TH_LOG("after %s: %s", step, (p)->where);	\
		ASSERT_EQ(0, __r);					\
	} while (0)

/* Run a step on both; a refusal or an index mismatch ends the test. */
#define STEP(p, call)							\
	do {								\
		int __r = (call);					\
		if (__r)						\
			TH_LOG("%s: %d %s", #call, __r, (p)->where);	\
		ASSERT_EQ(0, __r);					\
	} while (0)

TEST_F(layout, same_bytes)
{
	struct pair *p = &self->p;
	uint64_t hb, hc, keys[3], uids[3] = { 100, 101, 102 };
	uint64_t rm[40], gone[3] = { 1, 3, 6 };
	uint32_t i;

	EXPECT_SAME(p, "create");
	STEP(p, pair_key_insert(p, VNI_B, &hb));
	keys[0] = keys[1] = keys[2] = hb;
	STEP(p, pair_insert(p, 0, 5, NULL, NULL));
	STEP(p, pair_insert(p, 5, 3, keys, uids));
	EXPECT_SAME(p, "inserts");
	STEP(p, pair_remove(p, gone, 3));
	EXPECT_SAME(p, "remove");
	STEP(p, pair_insert(p, 1, 1, NULL, NULL));	/* back into index 1 */
	STEP(p, pair_key_insert(p, VNI_C, &hc));
	STEP(p, pair_key_remove(p, hc));
	STEP(p, pair_set_user_id(p, false, 2, 555));
	STEP(p, pair_set_user_id(p, true, hb, 777));
	self->ep = pair_ep_enable(p);
	ASSERT_LE(0, self->ep);
	EXPECT_SAME(p, "keys, user ids, endpoint");
	/* Across entry pages and the first fi_addr page. */
	STEP(p, pair_insert(p, 8, STEP_MAX, NULL, NULL));
	EXPECT_SAME(p, "a batch across pages");
	for (i = 0; i < 40; i++)
		rm[i] = 10 + 15 * i;
	STEP(p, pair_remove(p, rm, 40));
	STEP(p, pair_insert(p, 1000, 20, NULL, NULL));	/* fills holes */
	EXPECT_SAME(p, "holes refilled");
	/* The grant behind VNI_B goes: its slot is revoked in place. */
	ASSERT_EQ(0, kav_nl_grant_del(&self->grants.nl, self->grants.ids[1]));
	fake_ktable_key_revoke(&p->ft, hb);
	EXPECT_SAME(p, "revocation");

	/* The comparison does see a one-bit difference, and names it. */
	p->fmem[FAKE_PAGE + 2 * p->c.entry_size +
		offsetof(struct kav_entry, user_id)] ^= 1;
	ASSERT_EQ(-1, compare(p));
	ASSERT_NE(NULL, strstr(p->where, "(entry[2].user_id)"));
}

/*
 * A job table (KAV_AV_JOB): the same bytes again, with no fi_addr array
 * and the address index (buckets and chain links right after the
 * entries, fake_index.c) and find-or-insert: batches of new, known and
 * repeated addresses, across entry and link pages.
 */

/* One job batch on both: addresses @first + (i * @step) % @mod. */
static int job_insert(struct pair *p, uint32_t first, uint32_t count,
		      uint32_t step, uint32_t mod)
{
	static uint8_t addrs[STEP_MAX * 16];
	static uint64_t kidx[STEP_MAX], fidx[STEP_MAX];
	static uint32_t lens[STEP_MAX];
	struct kav_av_insert in = {
		.size = sizeof(in), .count = count, .addr_stride = 16,
		.addrs = (uintptr_t)addrs, .fi_addrs = (uintptr_t)kidx,
	};
	uint32_t i, nr_new;
	int ret;

	for (i = 0; i < count; i++)
		lens[i] = make_addr(KAV_ADDR_SOCKADDR_IN,
				    first + (i * step) % mod, addrs + i * 16);
	ret = av_ioctl(p->av, KAV_IOC_AV_INSERT, &in);
	if (ret)
		return ret;
	nr_new = fake_index_resolve(&p->ft, addrs, 16, lens, count, 0, fidx);
	(void)nr_new;
	fake_index_insert(&p->ft, addrs, 16, lens, count, 0, fidx);
	for (i = 0; i < count; i++) {
		if (kidx[i] != fidx[i]) {
			snprintf(p->where, sizeof(p->where),
				 "job insert of %u: address %u at index %llu in the kernel, %llu in the fake",
				 count, i, (unsigned long long)kidx[i],
				 (unsigned long long)fidx[i]);
			return -EPROTO;
		}
	}
	return 0;
}

/* compare(), then every bucket and the links of slots [0, nr_slots). */
static int job_compare(struct pair *p)
{
	const struct kav_table_header *h = (const void *)p->fmem;

	if (compare(p))
		return -1;
	if (compare_range(p, h->index_offset,
			  (size_t)h->index_buckets * sizeof(uint32_t))) {
		strncat(p->where, " [index buckets]",
			sizeof(p->where) - strlen(p->where) - 1);
		return -1;
	}
	if (compare_range(p, h->index_next_offset,
			  pages_for(p->ft.nr_slots,
				    FAKE_PAGE / sizeof(uint32_t)))) {
		strncat(p->where, " [index links]",
			sizeof(p->where) - strlen(p->where) - 1);
		return -1;
	}
	return 0;
}

TEST(job_table_same_bytes)
{
	struct kav_domain_key dk = { .size = sizeof(dk),
				     .key.vni = VNI_DOMAIN };
	struct kav_test_grants grants = { 0 };
	uint64_t max = kav_param_max_entries(), handle;
	const struct kav_table_header *kh;
	struct pair pr, *p = &pr;
	const uint64_t count = 9000;	/* 16384 buckets: 16 pages */
	uint8_t a[16];
	size_t size;
	uint32_t i;
	int dom, r;

	ASSERT_EQ(0, kav_test_grant(&grants, VNI_DOMAIN, 1));
	dom = kav_open_domain();
	ASSERT_LE(0, dom);
	ASSERT_EQ(0, av_ioctl(dom, KAV_IOC_DOMAIN_SET_KEY, &dk));
	ASSERT_NE(0, max);
	if (max > UINT32_MAX)
		max = UINT32_MAX;
	memset(p, 0, sizeof(*p));
	p->format = KAV_ADDR_SOCKADDR_IN;
	p->keyed = true;
	p->c.size = sizeof(p->c);
	p->c.flags = KAV_AV_JOB;
	p->c.addr_format = KAV_ADDR_SOCKADDR_IN;
	p->c.count = count;
	ASSERT_EQ(0, av_ioctl(dom, KAV_IOC_AV_CREATE, &p->c));
	p->av = p->c.fd;
	p->kmap = mmap(NULL, p->c.map_size, PROT_READ, MAP_SHARED, p->av, 0);
	ASSERT_NE(MAP_FAILED, p->kmap);
	size = fake_index_table_size(fake_entry_size(16), max, count);
	ASSERT_EQ(size, p->c.map_size);
	p->fmem = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, p->fmem);
	fake_ktable_init(&p->ft, p->fmem, KAV_ADDR_SOCKADDR_IN, 16, max,
			 false);
	fake_index_init(&p->ft, count);
	/* The kernel's seed is random per table: the fake takes it. */
	((struct kav_table_header *)p->fmem)->index_seed =
		((const struct kav_table_header *)p->kmap)->index_seed;
	fake_ktable_key_insert(&p->ft, VNI_DOMAIN, KAV_KEY_DOMAIN, &handle);

	r = job_compare(p);
	if (r)
		TH_LOG("after create: %s", p->where);
	ASSERT_EQ(0, r);
	/* No fi_addr array: the index follows the entries. */
	kh = (const struct kav_table_header *)p->kmap;
	EXPECT_EQ(0, kh->fi_addrs_offset);
	EXPECT_EQ(fake_table_entries_end(fake_entry_size(16), max),
		  kh->index_offset);
	/* New ones, then known and repeated ones mixed with new ones. */
	STEP(p, job_insert(p, 0, 5, 1, 5));
	STEP(p, job_insert(p, 3, 8, 1, 4));		/* 3..6 twice */
	STEP(p, job_insert(p, 0, 5, 1, 5));		/* nothing new */
	r = job_compare(p);
	if (r)
		TH_LOG("after small batches: %s", p->where);
	ASSERT_EQ(0, r);
	/* Across entry and link pages (1024 links a page). */
	STEP(p, job_insert(p, 100, STEP_MAX, 7, STEP_MAX));
	STEP(p, job_insert(p, 400, STEP_MAX, 1, STEP_MAX));
	STEP(p, job_insert(p, 1000, STEP_MAX, 3, 400));
	r = job_compare(p);
	if (r)
		TH_LOG("after large batches: %s", p->where);
	ASSERT_EQ(0, r);
	EXPECT_LT(1024, p->ft.nr_slots);
	/* The fake's reader finds addresses in the kernel's mapping where
	 * it finds them in the fake's image.
	 */
	for (i = 100; i < 1400; i += 37) {
		make_addr(KAV_ADDR_SOCKADDR_IN, i, a);
		EXPECT_EQ(fake_index_find(p->fmem, a, 16, 0),
			  fake_index_find(p->kmap, a, 16, 0));
		EXPECT_LE(0, fake_index_find(p->kmap, a, 16, 0));
	}
	make_addr(KAV_ADDR_SOCKADDR_IN, 5000, a);
	EXPECT_EQ(-1, fake_index_find(p->kmap, a, 16, 0));

	pair_close(p);
	close(dom);
	kav_test_revoke_all(&grants);
}

TEST_HARNESS_MAIN
