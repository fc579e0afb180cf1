// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Fake kav kernel for unit tests; see fake_kav.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kav_priv.h"
#include "fake_kav.h"

struct fake_kav_stats fake_kav_stats;
uint64_t fake_kav_max_entries = 1024;
int fake_kav_reject_port = -1;
uint64_t fake_kav_index_offset;
uint32_t fake_kav_max_keys = KAV_MAX_AUTH_KEYS;
bool fake_kav_allow_keyless = true;
int (*fake_kav_grant_check)(uint32_t vni);

/* ------------------------------------------------------------ table image */

static size_t fake_page_align(size_t n)
{
	return (n + FAKE_PAGE - 1) / FAKE_PAGE * FAKE_PAGE;
}

/* Header page, entries, fi_addr array: the kernel's layout. */
size_t fake_table_size(uint32_t entry_size, uint64_t max_entries)
{
	return FAKE_PAGE + fake_page_align((size_t)(entry_size * max_entries)) +
	       fake_page_align((size_t)(8 * max_entries));
}

static uint64_t *fake_fi_addrs(void *mem)
{
	struct kav_table_header *h = mem;

	return (uint64_t *)((uint8_t *)mem + h->fi_addrs_offset);
}

void fake_table_init(void *mem, uint32_t format, uint32_t addr_max,
		     uint32_t entry_size, uint64_t max_entries)
{
	struct kav_table_header *h = mem;
	size_t size = fake_table_size(entry_size, max_entries);
	uint64_t i;

	memset(mem, 0, size);
	h->magic = KAV_TABLE_MAGIC;
	h->version = KAV_TABLE_VERSION;
	h->header_size = FAKE_PAGE;
	h->entry_size = entry_size;
	h->addr_format = format;
	h->addr_max = addr_max;
	h->max_entries = max_entries;
	h->map_size = size;
	h->keys_offset = FAKE_KEYS_OFFSET;
	h->max_keys = KAV_MAX_AUTH_KEYS;
	h->fi_addrs_offset = FAKE_PAGE +
			     fake_page_align((size_t)(entry_size * max_entries));
	memset(fake_fi_addrs(mem), 0xff, 8 * max_entries);
	for (i = 0; i < KAV_MAX_AUTH_KEYS; i++)
		fake_table_key(mem, (uint32_t)i)->user_id = KAV_NONE;
	for (i = 0; i < max_entries; i++) {
		struct kav_entry *e = fake_table_entry(mem, i);

		e->auth_key = KAV_NONE;
		e->user_id = KAV_NONE;
	}
}

struct kav_entry *fake_table_entry(void *mem, uint64_t index)
{
	struct kav_table_header *h = mem;

	return (struct kav_entry *)((uint8_t *)mem + h->header_size +
				    index * h->entry_size);
}

static void fake_entry_write(void *mem, uint64_t index, uint32_t flags,
			     const void *addr, uint32_t addr_len,
			     bool ids, uint64_t auth_key, uint64_t user_id)
{
	struct kav_entry *e = fake_table_entry(mem, index);
	struct kav_table_header *h = mem;

	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	e->flags = flags;
	e->addr_len = addr_len;
	memset(e->addr, 0, h->addr_max);
	if (addr_len)
		memcpy(e->addr, addr, addr_len);
	if (ids) {
		e->auth_key = auth_key;
		e->user_id = user_id;
	}
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&fake_fi_addrs(mem)[index],
			 flags & KAV_ENTRY_VALID ? index : KAV_NONE,
			 __ATOMIC_RELEASE);
}

void fake_table_write(void *mem, uint64_t index, uint32_t flags,
		      const void *addr, uint32_t addr_len)
{
	fake_entry_write(mem, index, flags, addr, addr_len, false, 0, 0);
}

void fake_table_write_full(void *mem, uint64_t index, uint32_t flags,
			   const void *addr, uint32_t addr_len,
			   uint64_t auth_key, uint64_t user_id)
{
	fake_entry_write(mem, index, flags, addr, addr_len, true, auth_key,
			 user_id);
}

struct kav_key_slot *fake_table_key(void *mem, uint32_t slot)
{
	struct kav_table_header *h = mem;

	return (struct kav_key_slot *)((uint8_t *)mem + h->keys_offset) + slot;
}

void fake_table_write_key(void *mem, uint32_t slot, uint32_t flags,
			  uint32_t vni, uint64_t user_id, uint32_t nr_entries,
			  uint32_t nr_endpoints)
{
	struct kav_key_slot *k = fake_table_key(mem, slot);

	__atomic_store_n(&k->seq, k->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	k->flags = flags;
	k->vni = vni;
	k->user_id = user_id;
	k->nr_entries = nr_entries;
	k->nr_endpoints = nr_endpoints;
	__atomic_store_n(&k->seq, k->seq + 1, __ATOMIC_RELEASE);
}

void fake_table_set_nr_slots(void *mem, uint64_t nr_slots)
{
	struct kav_table_header *h = mem;

	__atomic_store_n(&h->nr_slots, nr_slots, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ fake kernel */

#define FAKE_MAX_AVS 16
#define FAKE_MAX_EPS 16

/*
 * One kernel AV: its table and, for a named AV, its name and owner. Every
 * AV fd opened on it is a dup() of @memfd, so libkav's mmap() of any of
 * them shows the same pages.
 */
struct fake_table {
	int memfd;			/* private: -1 when unused */
	uint8_t *mem;			/* our writable mapping */
	size_t size;
	uint64_t next_free;		/* no free slot below this */
	unsigned int refs;		/* fake_avs pointing here */
	unsigned int nr_open;		/* of them, fds not closed yet */
	bool named;
	char name[KAV_NAME_MAX];
	uint32_t name_len;
	uint32_t owner_uid, owner_gid, mode;
};

/* One AV fd: a table, opened by one domain (the writer), maybe read-only. */
struct fake_av {
	int fd;				/* a dup of the table's memfd */
	uint8_t *mem;			/* tab->mem */
	size_t size;
	struct fake_table *tab;
	bool open;			/* not closed yet */
	bool rdonly;			/* KAV_AV_RDONLY */
	bool has_key;			/* the writer's domain key, if any */
	uint32_t vni;
};

/* A domain fd the fake has seen: its identity and key. */
struct fake_domain {
	int fd;				/* -1: unused */
	uint32_t uid, gid;
	bool has_key;
	uint32_t vni;
};

uint32_t fake_kav_uid, fake_kav_gid;

#define FAKE_MAX_DOMAINS 16
static struct fake_domain fake_domains[FAKE_MAX_DOMAINS];
static struct fake_table fake_tables[FAKE_MAX_AVS];

/* An endpoint fd (KAV_IOC_AV_EP_OPEN): a memfd the fake tracks. */
struct fake_ep {
	int fd;				/* -1: unused */
	struct fake_av *av;
	bool enabled;
	uint64_t keys;
};

static struct fake_av fake_avs[FAKE_MAX_AVS];
static struct fake_ep fake_eps[FAKE_MAX_EPS];

static struct kav_table_header *fake_hdr(struct fake_av *av)
{
	return (struct kav_table_header *)av->mem;
}

/* Adjust one counter of key slot @slot, keeping the seq protocol. */
static void fake_key_count(struct fake_av *av, uint64_t slot, int entries,
			   int endpoints)
{
	struct kav_key_slot *k = fake_table_key(av->mem, (uint32_t)slot);

	fake_table_write_key(av->mem, (uint32_t)slot, k->flags, k->vni,
			     k->user_id, k->nr_entries + entries,
			     k->nr_endpoints + endpoints);
}

static bool fake_key_valid(struct fake_av *av, uint64_t slot)
{
	return slot < fake_hdr(av)->max_keys &&
	       (fake_table_key(av->mem, (uint32_t)slot)->flags &
		KAV_KEY_VALID);
}

static struct fake_av *fake_av_find(int fd)
{
	int i;

	for (i = 0; i < FAKE_MAX_AVS; i++)
		if (fake_avs[i].mem && fake_avs[i].fd == fd)
			return &fake_avs[i];
	return NULL;
}

static void fake_table_put(struct fake_table *tab)
{
	if (--tab->refs)
		return;
	munmap(tab->mem, tab->size);
	close(tab->memfd);
	memset(tab, 0, sizeof(*tab));
	tab->memfd = -1;
}

static void fake_av_forget(struct fake_av *av)
{
	if (av->open && av->tab->nr_open)
		av->tab->nr_open--;
	fake_table_put(av->tab);
	memset(av, 0, sizeof(*av));
}

static uint32_t fake_default_addr_max(uint32_t format)
{
	switch (format) {
	case KAV_ADDR_SOCKADDR_IN:	return 16;
	case KAV_ADDR_SOCKADDR:
	case KAV_ADDR_SOCKADDR_IN6:	return 28;
	case KAV_ADDR_STR:		return 96;
	default:			return 0;
	}
}

static struct fake_domain *fake_domain_find(int fd)
{
	int i;

	for (i = 0; i < FAKE_MAX_DOMAINS; i++)
		if (fake_domains[i].fd >= 0 && fake_domains[i].fd == fd)
			return &fake_domains[i];
	return NULL;
}

/*
 * The domain behind @fd, met for the first time if need be: the identity
 * is fake_kav_uid and fake_kav_gid now, unless fake_kav_domain_identity()
 * set it. NULL when the fake keeps too many domains.
 */
static struct fake_domain *fake_domain_get(int fd)
{
	struct fake_domain *dom = fake_domain_find(fd);
	int i;

	for (i = 0; i < FAKE_MAX_DOMAINS && !dom; i++) {
		if (fake_domains[i].fd >= 0)
			continue;
		dom = &fake_domains[i];
		memset(dom, 0, sizeof(*dom));
		dom->fd = fd;
		dom->uid = fake_kav_uid;
		dom->gid = fake_kav_gid;
	}
	return dom;
}

void fake_kav_domain_identity(int fd, uint32_t uid, uint32_t gid)
{
	struct fake_domain *dom = fake_domain_get(fd);

	if (dom) {
		dom->uid = uid;
		dom->gid = gid;
	}
}

/* A new table as AV_CREATE asks; NULL with *@err set on failure. */
static struct fake_table *fake_table_new(const struct fake_domain *dom,
					 const struct kav_av_create *req,
					 int *err)
{
	uint32_t addr_max, entry_size = KAV_ENTRY_HDR_SIZE;
	struct fake_table *tab = NULL;
	size_t size;
	int i;

	addr_max = req->addr_max ? req->addr_max :
		   fake_default_addr_max(req->addr_format);
	*err = -EINVAL;
	if (!addr_max || !fake_default_addr_max(req->addr_format))
		return NULL;
	while (entry_size < KAV_ENTRY_HDR_SIZE + addr_max)
		entry_size *= 2;
	for (i = 0; i < FAKE_MAX_AVS && !tab; i++)
		if (!fake_tables[i].mem)
			tab = &fake_tables[i];
	*err = -EMFILE;
	if (!tab)
		return NULL;
	size = fake_table_size(entry_size, fake_kav_max_entries);
	tab->memfd = memfd_create("fake-kav-av", MFD_CLOEXEC);
	*err = -ENOMEM;
	if (tab->memfd < 0)
		return NULL;
	if (ftruncate(tab->memfd, (off_t)size))
		goto err;
	tab->mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
			tab->memfd, 0);
	if (tab->mem == MAP_FAILED)
		goto err;
	tab->size = size;
	fake_table_init(tab->mem, req->addr_format, addr_max, entry_size,
			fake_kav_max_entries);
	((struct kav_table_header *)tab->mem)->max_keys = fake_kav_max_keys;
	if (!fake_kav_max_keys)
		((struct kav_table_header *)tab->mem)->keys_offset = 0;
	if (dom->has_key && fake_kav_max_keys)
		/* The domain's key is slot 0 of each AV it creates. */
		fake_table_write_key(tab->mem, 0,
				     KAV_KEY_VALID | KAV_KEY_DOMAIN, dom->vni,
				     KAV_NONE, 0, 0);
	if (req->flags & KAV_AV_NAMED) {
		tab->named = true;
		memcpy(tab->name, (const void *)(uintptr_t)req->name,
		       req->name_len);
		tab->name_len = req->name_len;
		tab->owner_uid = dom->uid;
		tab->owner_gid = dom->gid;
		tab->mode = req->mode ? req->mode : KAV_AV_MODE_DEFAULT;
	}
	*err = 0;
	return tab;
err:
	close(tab->memfd);
	memset(tab, 0, sizeof(*tab));
	tab->memfd = -1;
	return NULL;
}

/* The named AV @req names among @owner's names that is still open. */
static struct fake_table *fake_name_find(const struct kav_av_create *req,
					 uint32_t owner)
{
	struct fake_table *tab;
	int i;

	for (i = 0; i < FAKE_MAX_AVS; i++) {
		tab = &fake_tables[i];
		if (tab->mem && tab->named && tab->nr_open &&
		    tab->owner_uid == owner && tab->name_len == req->name_len &&
		    !memcmp(tab->name, (const void *)(uintptr_t)req->name,
			    req->name_len))
			return tab;
	}
	return NULL;
}

/* The kernel's check of an existing named AV's mode bits. */
static int fake_name_permission(const struct fake_table *tab,
				const struct fake_domain *dom, bool write)
{
	uint32_t need = write ? 06 : 04, mode = tab->mode;

	if (dom->uid == tab->owner_uid)
		mode >>= 6;
	else if (dom->gid == tab->owner_gid)
		mode >>= 3;
	return (mode & need) == need ? 0 : -EACCES;
}

#define FAKE_NAMED_FLAGS (KAV_AV_EXCL | KAV_AV_RDONLY | KAV_AV_OWNER)

static bool fake_create_valid(const struct kav_av_create *req)
{
	uint32_t flags = req->flags;

	if (req->size != sizeof(*req) ||
	    (flags & ~(KAV_AV_NAMED | FAKE_NAMED_FLAGS)) ||
	    ((flags & FAKE_NAMED_FLAGS) && !(flags & KAV_AV_NAMED)) ||
	    ((flags & KAV_AV_EXCL) && (flags & KAV_AV_RDONLY)) ||
	    req->__reserved || (req->owner_uid && !(flags & KAV_AV_OWNER)))
		return false;
	if (!(flags & KAV_AV_NAMED))
		return !req->name && !req->name_len && !req->mode;
	return req->name && req->name_len && req->name_len <= KAV_NAME_MAX &&
	       !(req->mode & ~0666U) &&
	       !memchr((const void *)(uintptr_t)req->name, '\0',
		       req->name_len);
}

/*
 * KAV_IOC_AV_CREATE as the kernel does it: names per (owner uid, name),
 * created only among the caller's own, KAV_AV_OWNER opens another user's
 * (never creates), mode bits and format checked on an existing AV.
 */
static int fake_create(int dom_fd, struct kav_av_create *req)
{
	struct fake_domain *dom = fake_domain_get(dom_fd);
	bool named = req->flags & KAV_AV_NAMED;
	struct fake_table *tab = NULL;
	struct fake_av *av = NULL, *stale;
	bool created = false;
	uint32_t owner;
	int fd, i, ret;

	fake_kav_stats.creates++;
	fake_kav_stats.last_create_count = req->count;
	fake_kav_stats.last_create = *req;
	memset(fake_kav_stats.last_name, 0, sizeof(fake_kav_stats.last_name));
	if (req->name && req->name_len <= KAV_NAME_MAX)
		memcpy(fake_kav_stats.last_name,
		       (const void *)(uintptr_t)req->name, req->name_len);
	if (!dom)
		return -ENOMEM;
	if (!fake_create_valid(req))
		return -EINVAL;
	owner = req->flags & KAV_AV_OWNER ? req->owner_uid : dom->uid;
	if (named)
		tab = fake_name_find(req, owner);
	if (tab) {
		if (req->flags & KAV_AV_EXCL)
			return -EEXIST;
		if (req->addr_format &&
		    (req->addr_format !=
		     ((struct kav_table_header *)tab->mem)->addr_format ||
		     (req->addr_max ? req->addr_max :
		      fake_default_addr_max(req->addr_format)) !=
		     ((struct kav_table_header *)tab->mem)->addr_max))
			return -EINVAL;
		ret = fake_name_permission(tab, dom,
					   !(req->flags & KAV_AV_RDONLY));
		if (ret)
			return ret;
	} else if ((req->flags & KAV_AV_RDONLY) || owner != dom->uid) {
		/* Nobody creates in another user's names. */
		return -ENOENT;
	} else {
		tab = fake_table_new(dom, req, &ret);
		if (!tab)
			return ret;
		created = true;
	}
	fd = fcntl(tab->memfd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		goto err;
	}
	/* A closed fd number can come back: drop the AV that had it. */
	stale = fake_av_find(fd);
	if (stale)
		fake_av_forget(stale);
	for (i = 0; i < FAKE_MAX_AVS && !av; i++)
		if (!fake_avs[i].mem)
			av = &fake_avs[i];
	if (!av) {
		close(fd);
		ret = -EMFILE;
		goto err;
	}
	tab->refs++;
	tab->nr_open++;
	av->fd = fd;
	av->tab = tab;
	av->mem = tab->mem;
	av->size = tab->size;
	av->open = true;
	av->rdonly = req->flags & KAV_AV_RDONLY;
	av->has_key = dom->has_key;
	av->vni = dom->vni;
	req->fd = fd;
	req->entry_size = ((struct kav_table_header *)tab->mem)->entry_size;
	req->max_entries = ((struct kav_table_header *)tab->mem)->max_entries;
	req->map_size = tab->size;
	req->result = created ? KAV_AV_CREATED : 0;
	return 0;
err:
	if (created) {
		tab->refs = 1;
		fake_table_put(tab);
	}
	return ret;
}

/* The kernel's per-address check: length of a valid address, else 0. */
static uint32_t fake_addr_len(const struct kav_table_header *h,
			      const uint8_t *a, uint32_t stride)
{
	sa_family_t family;
	uint16_t port;
	size_t n;

	if (h->addr_format == KAV_ADDR_STR) {
		n = strnlen((const char *)a, stride);
		return n && n < stride && n < h->addr_max ? (uint32_t)n + 1 : 0;
	}
	memcpy(&family, a, sizeof(family));
	memcpy(&port, a + 2, sizeof(port));
	if (fake_kav_reject_port >= 0 && ntohs(port) == fake_kav_reject_port)
		return 0;
	if (family == AF_INET && h->addr_format != KAV_ADDR_SOCKADDR_IN6)
		return 16;
	if (family == AF_INET6 && h->addr_format != KAV_ADDR_SOCKADDR_IN &&
	    stride >= 28)
		return 28;
	return 0;
}

static uint64_t fake_find_free(struct fake_av *av)
{
	struct kav_table_header *h = (void *)av->mem;

	while (av->tab->next_free < h->max_entries &&
	       (fake_table_entry(av->mem, av->tab->next_free)->flags &
		KAV_ENTRY_VALID))
		av->tab->next_free++;
	return av->tab->next_free;
}

/*
 * The slot an address without a key handle is bound to: the one holding
 * the writer's own domain key (-EACCES if none), never the creator's; a
 * writer without a key inserts keyless entries (allow_keyless).
 */
static int fake_writer_slot(struct fake_av *av, uint64_t *slot)
{
	struct kav_key_slot *k;
	uint32_t i;

	*slot = KAV_NONE;
	if (!av->has_key)
		return fake_kav_allow_keyless ? 0 : -EACCES;
	for (i = 0; i < fake_hdr(av)->max_keys; i++) {
		k = fake_table_key(av->mem, i);
		if ((k->flags & KAV_KEY_VALID) && k->vni == av->vni) {
			*slot = i;
			return 0;
		}
	}
	return -EACCES;
}

static int fake_insert(struct fake_av *av, struct kav_av_insert *req)
{
	struct kav_table_header *h = (void *)av->mem;
	const uint8_t *addrs = (const uint8_t *)(uintptr_t)req->addrs;
	uint64_t *out = (uint64_t *)(uintptr_t)req->fi_addrs;
	uint64_t per_page = FAKE_PAGE / h->entry_size, idx;
	uint32_t i, len;

	fake_kav_stats.inserts++;
	if (req->count > fake_kav_stats.max_batch)
		fake_kav_stats.max_batch = req->count;
	const uint64_t *keys = (const uint64_t *)(uintptr_t)req->auth_keys;
	const uint64_t *uids = (const uint64_t *)(uintptr_t)req->user_ids;
	uint64_t key, uid, own_slot;
	int ret;

	fake_kav_stats.last_insert_flags = req->flags;
	req->err_index = KAV_NO_INDEX;
	if (av->rdonly)
		return -EPERM;
	if (req->size != sizeof(*req) ||
	    (req->flags & ~(KAV_INSERT_AUTH_KEY | KAV_INSERT_USER_ID)) ||
	    req->__reserved ||
	    req->count > KAV_BATCH_MAX || !req->addr_stride ||
	    req->addr_stride > KAV_ADDR_MAX_LEN ||
	    !(req->flags & KAV_INSERT_AUTH_KEY) != !keys ||
	    !(req->flags & KAV_INSERT_USER_ID) != !uids)
		return -EINVAL;
	ret = keys || !req->count ? 0 : fake_writer_slot(av, &own_slot);
	if (ret)
		return ret;
	/* Validate everything first: the batch is all or nothing. */
	for (i = 0; i < req->count; i++) {
		if (!fake_addr_len(h, addrs + (size_t)i * req->addr_stride,
				   req->addr_stride) ||
		    (keys && !fake_key_valid(av, keys[i]))) {
			req->err_index = i;
			return -EINVAL;
		}
		key = keys ? keys[i] : own_slot;
		if (key != KAV_NONE &&
		    (fake_table_key(av->mem, (uint32_t)key)->flags &
		     KAV_KEY_REVOKED))
			return -EKEYREVOKED;
		/* An explicit key needs the writer's grant. */
		if (keys && fake_kav_grant_check &&
		    fake_kav_grant_check(fake_table_key(av->mem,
						(uint32_t)key)->vni)) {
			req->err_index = i;
			return -EACCES;
		}
	}
	if (req->count > h->max_entries - h->nr_valid)
		return -ENOSPC;
	h->generation++;
	for (i = 0; i < req->count; i++) {
		const uint8_t *a = addrs + (size_t)i * req->addr_stride;

		idx = fake_find_free(av);
		len = fake_addr_len(h, a, req->addr_stride);
		if (idx >= h->nr_slots) {
			uint64_t n = (idx / per_page + 1) * per_page;

			fake_table_set_nr_slots(av->mem, n < h->max_entries ?
						n : h->max_entries);
		}
		key = keys ? keys[i] : own_slot;
		uid = uids ? uids[i] : KAV_NONE;
		fake_table_write_full(av->mem, idx, KAV_ENTRY_VALID, a, len,
				      key, uid);
		if (key != KAV_NONE)
			fake_key_count(av, key, 1, 0);
		h->nr_valid++;
		if (out)
			out[i] = idx + fake_kav_index_offset;
	}
	h->generation++;
	return 0;
}

static int fake_remove(struct fake_av *av, struct kav_av_remove *req)
{
	struct kav_table_header *h = (void *)av->mem;
	const uint64_t *idx = (const uint64_t *)(uintptr_t)req->fi_addrs;
	uint32_t i, j;

	fake_kav_stats.removes++;
	if (av->rdonly)
		return -EPERM;
	req->err_index = KAV_NO_INDEX;
	if (req->size != sizeof(*req) || req->flags ||
	    req->count > KAV_BATCH_MAX)
		return -EINVAL;
	for (i = 0; i < req->count; i++) {
		bool bad = idx[i] >= h->nr_slots ||
			   !(fake_table_entry(av->mem, idx[i])->flags &
			     KAV_ENTRY_VALID);

		for (j = 0; j < i && !bad; j++)
			bad = idx[j] == idx[i];
		if (bad) {
			req->err_index = i;
			return -EINVAL;
		}
	}
	h->generation++;
	for (i = 0; i < req->count; i++) {
		uint64_t key = fake_table_entry(av->mem, idx[i])->auth_key;

		if (key != KAV_NONE)
			fake_key_count(av, key, -1, 0);
		fake_table_write_full(av->mem, idx[i], 0, NULL, 0, KAV_NONE,
				      KAV_NONE);
		h->nr_valid--;
		if (idx[i] < av->tab->next_free)
			av->tab->next_free = idx[i];
	}
	h->generation++;
	return 0;
}

static int fake_key_insert(struct fake_av *av, struct kav_av_key *req)
{
	struct kav_table_header *h = fake_hdr(av);
	uint32_t slot, free_slot = UINT32_MAX;

	fake_kav_stats.key_inserts++;
	if (av->rdonly)
		return -EPERM;
	if (req->size != sizeof(*req) || req->flags || req->key.__reserved)
		return -EINVAL;
	if (fake_kav_grant_check) {
		int ret = fake_kav_grant_check(req->key.vni);

		if (ret)
			return ret;
	}
	for (slot = 0; slot < h->max_keys; slot++) {
		if (!fake_key_valid(av, slot)) {
			if (free_slot == UINT32_MAX)
				free_slot = slot;
			continue;
		}
		if (fake_table_key(av->mem, slot)->vni == req->key.vni) {
			req->handle = slot;
			return -EEXIST;
		}
	}
	if (free_slot == UINT32_MAX)
		return -ENOSPC;
	fake_table_write_key(av->mem, free_slot, KAV_KEY_VALID, req->key.vni,
			     KAV_NONE, 0, 0);
	req->handle = free_slot;
	return 0;
}

static int fake_key_remove(struct fake_av *av, struct kav_av_key *req)
{
	struct kav_key_slot *k;

	fake_kav_stats.key_removes++;
	if (av->rdonly)
		return -EPERM;
	if (req->size != sizeof(*req) || req->flags ||
	    !fake_key_valid(av, req->handle))
		return -EINVAL;
	k = fake_table_key(av->mem, (uint32_t)req->handle);
	if (k->nr_entries || k->nr_endpoints)
		return -EBUSY;
	fake_table_write_key(av->mem, (uint32_t)req->handle, 0, 0, KAV_NONE,
			     0, 0);
	return 0;
}

static int fake_set_user_id(struct fake_av *av, struct kav_av_user_id *req)
{
	uint8_t addr[KAV_ADDR_MAX_LEN];
	struct kav_key_slot *k;
	struct kav_entry *e;

	fake_kav_stats.set_user_ids++;
	if (av->rdonly)
		return -EPERM;
	if (req->size != sizeof(*req) || (req->flags & ~KAV_USER_ID_AUTH_KEY))
		return -EINVAL;
	if (req->flags & KAV_USER_ID_AUTH_KEY) {
		if (!fake_key_valid(av, req->index))
			return -EINVAL;
		k = fake_table_key(av->mem, (uint32_t)req->index);
		fake_table_write_key(av->mem, (uint32_t)req->index, k->flags,
				     k->vni, req->user_id, k->nr_entries,
				     k->nr_endpoints);
		return 0;
	}
	if (req->index >= fake_hdr(av)->nr_slots)
		return -EINVAL;
	e = fake_table_entry(av->mem, req->index);
	if (!(e->flags & KAV_ENTRY_VALID))
		return -EINVAL;
	memcpy(addr, e->addr, e->addr_len);	/* the write clears e->addr */
	fake_table_write_full(av->mem, req->index, e->flags, addr,
			      e->addr_len, e->auth_key, req->user_id);
	return 0;
}

static struct fake_ep *fake_ep_find(int fd)
{
	int i;

	for (i = 0; i < FAKE_MAX_EPS; i++)
		if (fake_eps[i].av && fake_eps[i].fd == fd)
			return &fake_eps[i];
	return NULL;
}

static int fake_ep_open(struct fake_av *av, struct kav_av_ep_open *req)
{
	struct fake_ep *ep = NULL;
	int fd, i;

	fake_kav_stats.ep_opens++;
	if (av->rdonly)
		return -EPERM;
	if (req->size != sizeof(*req) || req->flags || req->__reserved)
		return -EINVAL;
	for (i = 0; i < FAKE_MAX_EPS && !ep; i++)
		if (!fake_eps[i].av)
			ep = &fake_eps[i];
	if (!ep)
		return -EMFILE;
	fd = memfd_create("fake-kav-ep", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ep->fd = fd;
	ep->av = av;
	ep->enabled = false;
	ep->keys = 0;
	req->fd = fd;
	return 0;
}

static int fake_ep_enable(struct fake_ep *ep, struct kav_ep_enable *req)
{
	uint32_t slot;

	fake_kav_stats.ep_enables++;
	if (req->size != sizeof(*req) || req->flags)
		return -EINVAL;
	if (ep->enabled)
		return -EALREADY;
	for (slot = 0; slot < fake_hdr(ep->av)->max_keys; slot++) {
		if (!fake_key_valid(ep->av, slot))
			continue;
		ep->keys |= 1ULL << slot;
		fake_key_count(ep->av, slot, 0, 1);
	}
	ep->enabled = true;
	req->keys = ep->keys;
	return 0;
}

static void fake_ep_release(struct fake_ep *ep)
{
	uint32_t slot;

	for (slot = 0; slot < 64; slot++)
		if (ep->enabled && (ep->keys & (1ULL << slot)))
			fake_key_count(ep->av, slot, 0, -1);
	memset(ep, 0, sizeof(*ep));
	ep->fd = -1;
}

/* KAV_IOC_DOMAIN_SET_KEY on any fd that is not an AV or endpoint. */
static int fake_set_key(int fd, struct kav_domain_key *req)
{
	struct fake_domain *dom;
	int ret;

	fake_kav_stats.set_keys++;
	if (req->size != sizeof(*req) || req->flags || req->key.__reserved)
		return -EINVAL;
	dom = fake_domain_get(fd);
	if (!dom)
		return -ENOMEM;
	if (dom->has_key)
		return -EALREADY;
	if (fake_kav_grant_check) {
		ret = fake_kav_grant_check(req->key.vni);
		if (ret)
			return ret;
	}
	dom->has_key = true;
	dom->vni = req->key.vni;
	return 0;
}

void fake_kav_revoke(uint32_t vni)
{
	struct kav_key_slot *k;
	uint32_t slot;
	int i;

	for (i = 0; i < FAKE_MAX_AVS; i++) {
		uint8_t *mem = fake_tables[i].mem;

		if (!mem)
			continue;
		for (slot = 0;
		     slot < ((struct kav_table_header *)mem)->max_keys;
		     slot++) {
			k = fake_table_key(mem, slot);
			if ((k->flags & KAV_KEY_VALID) && k->vni == vni)
				fake_table_write_key(mem, slot,
						     k->flags | KAV_KEY_REVOKED,
						     k->vni, k->user_id,
						     k->nr_entries,
						     k->nr_endpoints);
		}
	}
}

void fake_kav_forget_domain(int fd)
{
	struct fake_domain *dom = fake_domain_find(fd);

	if (dom)
		dom->fd = -1;
}

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	struct fake_ep *ep;
	struct fake_av *av;

	if (req == KAV_IOC_AV_CREATE) {
		int ret = fake_create(fd, arg);

		/* With what the kernel wrote back (fd, result, ...). */
		fake_kav_stats.last_create = *(struct kav_av_create *)arg;
		return ret;
	}
	ep = fake_ep_find(fd);
	if (ep)
		return req == KAV_IOC_EP_ENABLE ? fake_ep_enable(ep, arg) :
						  -ENOTTY;
	av = fake_av_find(fd);
	if (!av || !av->open)
		return req == KAV_IOC_DOMAIN_SET_KEY ? fake_set_key(fd, arg) :
						       -ENOTTY;
	switch (req) {
	case KAV_IOC_AV_INSERT:
		return fake_insert(av, arg);
	case KAV_IOC_AV_REMOVE:
		return fake_remove(av, arg);
	case KAV_IOC_AV_KEY_INSERT:
		return fake_key_insert(av, arg);
	case KAV_IOC_AV_KEY_REMOVE:
		return fake_key_remove(av, arg);
	case KAV_IOC_AV_SET_USER_ID:
		return fake_set_user_id(av, arg);
	case KAV_IOC_AV_EP_OPEN:
		return fake_ep_open(av, arg);
	default:
		return -ENOTTY;
	}
}

static void fake_close(int fd)
{
	struct fake_ep *ep = fake_ep_find(fd);
	struct fake_av *av = fake_av_find(fd);

	fake_kav_stats.closes++;
	if (ep)
		fake_ep_release(ep);
	fake_kav_forget_domain(fd);
	/*
	 * A closed AV's table stays until its fd number comes back, but a
	 * named AV with no fd open any more has lost its name.
	 */
	if (av && av->open) {
		av->open = false;
		av->tab->nr_open--;
	}
}

void *fake_kav_table(int av_fd)
{
	struct fake_av *av = fake_av_find(av_fd);

	return av ? av->mem : NULL;
}

void fake_kav_reset(void)
{
	int i;

	kav_sys_ioctl_hook = NULL;
	kav_sys_close_hook = NULL;
	for (i = 0; i < FAKE_MAX_EPS; i++) {
		if (fake_eps[i].av)
			close(fake_eps[i].fd);	/* leaked by a test */
		memset(&fake_eps[i], 0, sizeof(fake_eps[i]));
		fake_eps[i].fd = -1;
	}
	for (i = 0; i < FAKE_MAX_AVS; i++)
		if (fake_avs[i].mem)
			fake_av_forget(&fake_avs[i]);
	for (i = 0; i < FAKE_MAX_AVS; i++)
		fake_tables[i].memfd = -1;
	for (i = 0; i < FAKE_MAX_DOMAINS; i++)
		fake_domains[i].fd = -1;
	fake_kav_uid = (uint32_t)geteuid();
	fake_kav_gid = (uint32_t)getegid();
	memset(&fake_kav_stats, 0, sizeof(fake_kav_stats));
	fake_kav_allow_keyless = true;
	fake_kav_grant_check = NULL;
	fake_kav_max_entries = 1024;
	fake_kav_reject_port = -1;
	fake_kav_index_offset = 0;
	fake_kav_max_keys = KAV_MAX_AUTH_KEYS;
}

void fake_kav_install(void)
{
	fake_kav_reset();
	kav_sys_ioctl_hook = fake_ioctl;
	kav_sys_close_hook = fake_close;
}
