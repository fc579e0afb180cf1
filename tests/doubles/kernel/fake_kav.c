// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Fake kav kernel for unit tests and the native benchmark; see fake_kav.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef KAV_TESTING
#include "kav_priv.h"		/* kav_sys_ioctl_hook, kav_sys_close_hook */
#endif
#include "fake_kav.h"
#include "fake_index.h"

struct fake_kav_stats fake_kav_stats;
uint64_t fake_kav_max_entries = 1024;
int fake_kav_reject_port = -1;
uint64_t fake_kav_index_offset;
uint32_t fake_kav_max_keys = KAV_MAX_AUTH_KEYS;
bool fake_kav_allow_keyless = true;
int (*fake_kav_grant_check)(uint32_t vni);

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
	uint8_t *mem;			/* our writable mapping (kt.mem) */
	size_t size;
	struct fake_ktable kt;		/* the kernel's table in @mem */
	unsigned int refs;		/* fake_avs pointing here */
	unsigned int nr_open;		/* of them, fds not closed yet */
	bool named;
	bool job;			/* KAV_AV_JOB: owner_uid's, job_vni's */
	uint32_t job_vni;
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

/* kav_addr_check_format(): the AV's addr_max, or 0 for EINVAL. */
static uint32_t fake_addr_max(uint32_t format, uint32_t addr_max)
{
	uint32_t min = format == KAV_ADDR_STR ? 2 :
		       fake_default_addr_max(format);

	if (!min)
		return 0;
	if (!addr_max)
		addr_max = fake_default_addr_max(format);
	return addr_max < min || addr_max > KAV_ADDR_MAX_LEN ? 0 : addr_max;
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
	uint32_t addr_max = fake_addr_max(req->addr_format, req->addr_max);
	struct fake_table *tab = NULL;
	struct kav_table_header *h;
	uint64_t handle;
	size_t size;
	int i;

	*err = -EINVAL;
	if (!addr_max)
		return NULL;
	for (i = 0; i < FAKE_MAX_AVS && !tab; i++)
		if (!fake_tables[i].mem)
			tab = &fake_tables[i];
	*err = -EMFILE;
	if (!tab)
		return NULL;
	size = req->flags & KAV_AV_JOB ?
	       fake_index_table_size(fake_entry_size(addr_max),
				     fake_kav_max_entries, req->count) :
	       fake_table_size(fake_entry_size(addr_max),
			       fake_kav_max_entries);
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
	/* A job table has no fi_addr array (kav_av_new()). */
	fake_ktable_init(&tab->kt, tab->mem, req->addr_format, addr_max,
			 fake_kav_max_entries, !(req->flags & KAV_AV_JOB));
	if (req->flags & KAV_AV_JOB) {
		/* kav_av_new(): the index, then the domain's key. */
		fake_index_init(&tab->kt, req->count);
		tab->job = true;
		tab->job_vni = dom->vni;
		tab->owner_uid = dom->uid;
		tab->owner_gid = dom->gid;
		tab->mode = 0600;
	}
	h = (struct kav_table_header *)tab->mem;
	/* Tests of libkav against other kernels' key slots. */
	h->max_keys = fake_kav_max_keys;
	if (!fake_kav_max_keys) {
		h->keys_offset = 0;
		h->key_counts_offset = 0;
	}
	if (dom->has_key && fake_kav_max_keys)
		/* The domain's key is slot 0 of each AV it creates. */
		fake_ktable_key_insert(&tab->kt, dom->vni, KAV_KEY_DOMAIN,
				       &handle);
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

/*
 * The job table of @dom for @req's format, still open: the fake's jobs
 * are (uid, domain key, format), as the kernel's are (grant, euid,
 * namespaces, format) for one process.
 */
static struct fake_table *fake_job_find(const struct fake_domain *dom,
					const struct kav_av_create *req)
{
	uint32_t addr_max = fake_addr_max(req->addr_format, req->addr_max);
	struct kav_table_header *h;
	struct fake_table *tab;
	int i;

	for (i = 0; i < FAKE_MAX_AVS; i++) {
		tab = &fake_tables[i];
		h = (struct kav_table_header *)tab->mem;
		if (tab->mem && tab->job && tab->nr_open &&
		    tab->owner_uid == dom->uid && tab->job_vni == dom->vni &&
		    h->addr_format == req->addr_format &&
		    h->addr_max == addr_max)
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

	if (flags & KAV_AV_JOB)
		return req->size == sizeof(*req) && flags == KAV_AV_JOB &&
		       !req->name && !req->name_len && !req->mode &&
		       !req->owner_uid && !req->__reserved;
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
	if (req->flags & KAV_AV_JOB) {
		if (!fake_addr_max(req->addr_format, req->addr_max))
			return -EINVAL;
		if (!dom->has_key)
			return -ENOKEY;
		tab = fake_job_find(dom, req);
		/* Joining needs the key live, as creating does. */
		if (tab && (fake_table_key(tab->mem, 0)->flags &
			    KAV_KEY_REVOKED))
			return -EKEYREVOKED;
	} else if (named) {
		tab = fake_name_find(req, owner);
	}
	if (tab) {
		if (req->flags & KAV_AV_EXCL)
			return -EEXIST;
		if (req->addr_format &&
		    (req->addr_format !=
		     ((struct kav_table_header *)tab->mem)->addr_format ||
		     fake_addr_max(req->addr_format, req->addr_max) !=
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
	/* The kernel settles addr_max in the request it writes back. */
	if (req->addr_format)
		req->addr_max = fake_addr_max(req->addr_format, req->addr_max);
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

/*
 * kav_addr_validate(): bytes to store for the address at @a (@stride
 * bytes), or 0 when the kernel refuses it (EINVAL).
 */
static uint32_t fake_addr_len(const struct kav_table_header *h,
			      const uint8_t *a, uint32_t stride)
{
	uint32_t limit, len, i;
	sa_family_t family;
	uint16_t port;

	if (h->addr_format == KAV_ADDR_STR) {
		limit = stride < h->addr_max ? stride : h->addr_max;
		len = (uint32_t)strnlen((const char *)a, limit);
		if (!len || len == limit)
			return 0;
		for (i = 0; i < len; i++)
			if (a[i] < 0x21 || a[i] > 0x7e)
				return 0;
		return len + 1;
	}
	if (stride < 4)
		return 0;
	memcpy(&family, a, sizeof(family));
	memcpy(&port, a + 2, sizeof(port));
	if (fake_kav_reject_port >= 0 && ntohs(port) == fake_kav_reject_port)
		return 0;
	if (family == AF_INET && h->addr_format != KAV_ADDR_SOCKADDR_IN6)
		len = sizeof(struct sockaddr_in);
	else if (family == AF_INET6 && h->addr_format != KAV_ADDR_SOCKADDR_IN)
		len = sizeof(struct sockaddr_in6);
	else
		return 0;
	return stride < len ? 0 : len;
}

/*
 * The slot an address without a key handle is bound to: the one holding
 * the writer's own domain key (-EACCES if none), never the creator's; a
 * writer without a key inserts keyless entries (allow_keyless).
 */
static int fake_writer_slot(struct fake_av *av, uint64_t *slot)
{
	*slot = KAV_NONE;
	if (!av->has_key)
		return fake_kav_allow_keyless ? 0 : -EACCES;
	*slot = fake_ktable_key_find(&av->tab->kt, av->vni);
	return *slot == KAV_NONE ? -EACCES : 0;
}

/* One batch's lengths and indices: the fake allocates nothing per call. */
static uint32_t fake_lens[KAV_BATCH_MAX];
static uint64_t fake_idx[KAV_BATCH_MAX];

/* kav_ioctl_av_insert(), in the kernel's order of checks. */
static int fake_insert(struct fake_av *av, struct kav_av_insert *req)
{
	struct kav_table_header *h = fake_hdr(av);
	const uint8_t *addrs = (const uint8_t *)(uintptr_t)req->addrs;
	const uint64_t *keys = (const uint64_t *)(uintptr_t)req->auth_keys;
	const uint64_t *uids = (const uint64_t *)(uintptr_t)req->user_ids;
	uint64_t *out = (uint64_t *)(uintptr_t)req->fi_addrs;
	uint64_t key, own_slot = KAV_NONE;
	uint32_t i;
	int ret;

	fake_kav_stats.inserts++;
	if (req->count > fake_kav_stats.max_batch)
		fake_kav_stats.max_batch = req->count;
	fake_kav_stats.last_insert_flags = req->flags;
	req->err_index = KAV_NO_INDEX;
	if (av->rdonly)
		return -EPERM;
	if (req->size != sizeof(*req) ||
	    (req->flags & ~(KAV_INSERT_AUTH_KEY | KAV_INSERT_USER_ID)) ||
	    req->__reserved ||
	    !(req->flags & KAV_INSERT_AUTH_KEY) != !keys ||
	    !(req->flags & KAV_INSERT_USER_ID) != !uids)
		return -EINVAL;
	/* A job table: the job's key, no user ids. */
	if (av->tab->job && req->flags)
		return -EINVAL;
	if (req->count > KAV_BATCH_MAX)
		return -E2BIG;
	if (!req->count)
		return 0;
	if (!req->addr_stride || req->addr_stride > KAV_ADDR_MAX_LEN)
		return -EINVAL;
	for (i = 0; i < req->count; i++) {
		fake_lens[i] = fake_addr_len(h, addrs +
					     (size_t)i * req->addr_stride,
					     req->addr_stride);
		if (!fake_lens[i]) {
			req->err_index = i;
			return -EINVAL;
		}
	}
	if (!av->tab->job && req->count > h->max_entries - av->tab->kt.nr_valid)
		return -ENOSPC;
	/* kav_batch_authorize() */
	ret = keys ? 0 : fake_writer_slot(av, &own_slot);
	if (ret)
		return ret;
	for (i = 0; i < req->count; i++) {
		key = keys ? keys[i] : own_slot;
		if (key == KAV_NONE && !keys)
			continue;
		if (!fake_key_valid(av, key)) {
			req->err_index = i;
			return -EINVAL;
		}
		if (fake_table_key(av->mem, (uint32_t)key)->flags &
		    KAV_KEY_REVOKED) {
			req->err_index = i;
			return -EKEYREVOKED;
		}
		/* An explicit key needs the writer's grant. */
		if (keys && fake_kav_grant_check &&
		    fake_kav_grant_check(fake_table_key(av->mem,
						(uint32_t)key)->vni)) {
			req->err_index = i;
			return -EACCES;
		}
	}
	if (av->tab->job) {
		/* Find-or-insert: only new addresses need room. */
		if (fake_index_resolve(&av->tab->kt, addrs, req->addr_stride,
				       fake_lens, req->count, own_slot,
				       fake_idx) >
		    h->max_entries - av->tab->kt.nr_valid)
			return -ENOSPC;
		fake_index_insert(&av->tab->kt, addrs, req->addr_stride,
				  fake_lens, req->count, own_slot, fake_idx);
	} else {
		fake_ktable_insert(&av->tab->kt, addrs, req->addr_stride,
				   fake_lens, req->count, keys, own_slot, uids,
				   fake_idx);
	}
	for (i = 0; out && i < req->count; i++)
		out[i] = fake_idx[i] + fake_kav_index_offset;
	return 0;
}

static int fake_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* kav_find_repeat(): the second position of the lowest repeated index. */
static bool fake_find_repeat(const uint64_t *idx, uint32_t count,
			     uint32_t *err_index)
{
	uint32_t i, seen = 0;
	uint64_t repeat = 0;
	bool found = false;

	memcpy(fake_idx, idx, count * sizeof(*idx));
	qsort(fake_idx, count, sizeof(*idx), fake_cmp_u64);
	for (i = 1; i < count && !found; i++) {
		found = fake_idx[i] == fake_idx[i - 1];
		repeat = fake_idx[i];
	}
	if (!found)
		return false;
	for (i = 0; i < count; i++)
		if (idx[i] == repeat && seen++)
			break;
	*err_index = i;
	return true;
}

/* kav_av_remove() with kav_table_check_remove()'s order of checks. */
static int fake_remove(struct fake_av *av, struct kav_av_remove *req)
{
	const uint64_t *idx = (const uint64_t *)(uintptr_t)req->fi_addrs;
	uint32_t i;

	fake_kav_stats.removes++;
	if (av->rdonly)
		return -EPERM;
	req->err_index = KAV_NO_INDEX;
	if (av->tab->job)
		return -EOPNOTSUPP;
	if (req->size != sizeof(*req) || req->flags)
		return -EINVAL;
	if (req->count > KAV_BATCH_MAX)
		return -E2BIG;
	if (!req->count)
		return 0;
	if (fake_find_repeat(idx, req->count, &req->err_index))
		return -EINVAL;
	for (i = 0; i < req->count; i++) {
		if (!fake_ktable_valid(&av->tab->kt, idx[i])) {
			req->err_index = i;
			return -EINVAL;
		}
	}
	fake_ktable_remove(&av->tab->kt, idx, req->count);
	return 0;
}

static int fake_key_insert(struct fake_av *av, struct kav_av_key *req)
{
	struct kav_table_header *h = fake_hdr(av);
	uint32_t slot, free_slot = UINT32_MAX;
	uint64_t handle;
	int ret;

	fake_kav_stats.key_inserts++;
	if (av->rdonly)
		return -EPERM;
	if (req->size != sizeof(*req) || req->flags || req->key.__reserved)
		return -EINVAL;
	if (av->tab->job)
		return -EOPNOTSUPP;
	if (fake_kav_grant_check) {
		ret = fake_kav_grant_check(req->key.vni);
		if (ret)
			return ret;
	}
	/* Within max_keys, which a test may lower. */
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
	ret = fake_ktable_key_insert(&av->tab->kt, req->key.vni, 0, &handle);
	req->handle = handle;
	return ret;
}

static int fake_key_remove(struct fake_av *av, struct kav_av_key *req)
{
	fake_kav_stats.key_removes++;
	if (av->rdonly)
		return -EPERM;
	if (req->size != sizeof(*req) || req->flags ||
	    !fake_key_valid(av, req->handle))
		return -EINVAL;
	return fake_ktable_key_remove(&av->tab->kt, req->handle);
}

static int fake_set_user_id(struct fake_av *av, struct kav_av_user_id *req)
{
	fake_kav_stats.set_user_ids++;
	if (av->rdonly)
		return -EPERM;
	if (req->size != sizeof(*req) || (req->flags & ~KAV_USER_ID_AUTH_KEY))
		return -EINVAL;
	if (av->tab->job)
		return -EOPNOTSUPP;
	if (req->flags & KAV_USER_ID_AUTH_KEY)
		return fake_key_valid(av, req->index) ?
		       fake_ktable_key_set_user_id(&av->tab->kt, req->index,
						   req->user_id) : -EINVAL;
	return fake_ktable_set_user_id(&av->tab->kt, req->index,
				       req->user_id);
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
	fake_kav_stats.ep_enables++;
	if (req->size != sizeof(*req) || req->flags)
		return -EINVAL;
	if (ep->enabled)
		return -EALREADY;
	ep->keys = fake_ktable_keys_enable(&ep->av->tab->kt);
	ep->enabled = true;
	req->keys = ep->keys;
	return 0;
}

static void fake_ep_release(struct fake_ep *ep)
{
	if (ep->enabled)
		fake_ktable_keys_disable(&ep->av->tab->kt, ep->keys);
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
				fake_ktable_key_revoke(&fake_tables[i].kt,
						       slot);
		}
	}
}

void fake_kav_forget_domain(int fd)
{
	struct fake_domain *dom = fake_domain_find(fd);

	if (dom)
		dom->fd = -1;
}

int fake_kav_ioctl(int fd, unsigned long req, void *arg)
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

void fake_kav_close(int fd)
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

#ifdef KAV_TESTING
	kav_sys_ioctl_hook = NULL;
	kav_sys_close_hook = NULL;
#endif
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
#ifdef KAV_TESTING
	kav_sys_ioctl_hook = fake_kav_ioctl;
	kav_sys_close_hook = fake_kav_close;
#endif
}
