// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Fake kav kernel for unit tests; see fake_kav.h. */
#include <arpa/inet.h>
#include <errno.h>
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

/* ------------------------------------------------------------ table image */

size_t fake_table_size(uint32_t entry_size, uint64_t max_entries)
{
	size_t body = (size_t)(entry_size * max_entries);

	return FAKE_PAGE + (body + FAKE_PAGE - 1) / FAKE_PAGE * FAKE_PAGE;
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

void fake_table_write(void *mem, uint64_t index, uint32_t flags,
		      const void *addr, uint32_t addr_len)
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
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
}

void fake_table_set_nr_slots(void *mem, uint64_t nr_slots)
{
	struct kav_table_header *h = mem;

	__atomic_store_n(&h->nr_slots, nr_slots, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ fake kernel */

#define FAKE_MAX_AVS 16

struct fake_av {
	int fd;				/* the memfd handed out as AV fd */
	uint8_t *mem;			/* our writable mapping */
	size_t size;
	uint64_t next_free;		/* no free slot below this */
};

static struct fake_av fake_avs[FAKE_MAX_AVS];

static struct fake_av *fake_av_find(int fd)
{
	int i;

	for (i = 0; i < FAKE_MAX_AVS; i++)
		if (fake_avs[i].mem && fake_avs[i].fd == fd)
			return &fake_avs[i];
	return NULL;
}

static void fake_av_forget(struct fake_av *av)
{
	munmap(av->mem, av->size);
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

static int fake_create(struct kav_av_create *req)
{
	uint32_t addr_max, entry_size = KAV_ENTRY_HDR_SIZE;
	struct fake_av *av = NULL, *stale;
	size_t size;
	int fd, i;

	fake_kav_stats.creates++;
	if (req->size != sizeof(*req) || req->flags)
		return -EINVAL;
	addr_max = req->addr_max ? req->addr_max :
		   fake_default_addr_max(req->addr_format);
	if (!addr_max || !fake_default_addr_max(req->addr_format))
		return -EINVAL;
	while (entry_size < KAV_ENTRY_HDR_SIZE + addr_max)
		entry_size *= 2;
	size = fake_table_size(entry_size, fake_kav_max_entries);
	fd = memfd_create("fake-kav-av", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size)) {
		close(fd);
		return -ENOMEM;
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
		return -EMFILE;
	}
	av->mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (av->mem == MAP_FAILED) {
		av->mem = NULL;
		close(fd);
		return -ENOMEM;
	}
	av->fd = fd;
	av->size = size;
	fake_table_init(av->mem, req->addr_format, addr_max, entry_size,
			fake_kav_max_entries);
	req->fd = fd;
	req->entry_size = entry_size;
	req->max_entries = fake_kav_max_entries;
	req->map_size = size;
	return 0;
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

	while (av->next_free < h->max_entries &&
	       (fake_table_entry(av->mem, av->next_free)->flags &
		KAV_ENTRY_VALID))
		av->next_free++;
	return av->next_free;
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
	req->err_index = KAV_NO_INDEX;
	if (req->size != sizeof(*req) || req->flags || req->__reserved ||
	    req->count > KAV_BATCH_MAX || !req->addr_stride ||
	    req->addr_stride > KAV_ADDR_MAX_LEN)
		return -EINVAL;
	/* Validate everything first: the batch is all or nothing. */
	for (i = 0; i < req->count; i++) {
		if (!fake_addr_len(h, addrs + (size_t)i * req->addr_stride,
				   req->addr_stride)) {
			req->err_index = i;
			return -EINVAL;
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
		fake_table_write(av->mem, idx, KAV_ENTRY_VALID, a, len);
		h->nr_valid++;
		if (out)
			out[i] = idx;
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
		fake_table_write(av->mem, idx[i], 0, NULL, 0);
		h->nr_valid--;
		if (idx[i] < av->next_free)
			av->next_free = idx[i];
	}
	h->generation++;
	return 0;
}

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	struct fake_av *av;

	if (req == KAV_IOC_AV_CREATE)
		return fake_create(arg);
	av = fake_av_find(fd);
	if (!av)
		return -ENOTTY;
	switch (req) {
	case KAV_IOC_AV_INSERT:
		return fake_insert(av, arg);
	case KAV_IOC_AV_REMOVE:
		return fake_remove(av, arg);
	default:
		return -ENOTTY;
	}
}

void fake_kav_reset(void)
{
	int i;

	kav_sys_ioctl_hook = NULL;
	for (i = 0; i < FAKE_MAX_AVS; i++)
		if (fake_avs[i].mem)
			fake_av_forget(&fake_avs[i]);
	memset(&fake_kav_stats, 0, sizeof(fake_kav_stats));
	fake_kav_max_entries = 1024;
	fake_kav_reject_port = -1;
}

void fake_kav_install(void)
{
	fake_kav_reset();
	kav_sys_ioctl_hook = fake_ioctl;
}
