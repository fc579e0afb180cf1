// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Named AVs: fi_av_attr.name, FI_READ and map_addr over the kernel's
 * KAV_AV_NAMED. A name is scoped to the IPC namespace of the process that
 * opened the domain; every process that opens it maps the same kernel
 * pages, so a node holds one copy of a job's table.
 *
 * MPI "instant-on": a launcher creates the AV and inserts every rank's
 * address in rank order; each rank opens it with FI_READ and count = the
 * world size and reads ((fi_addr_t *)attr.map_addr)[rank], which is the
 * kernel's fi_addr array in the read-only mapping (no system call).
 */
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"

int kav_av_mode_parse(const char *s, uint32_t *mode)
{
	uint32_t m = 0;
	const char *p;

	*mode = 0;			/* the kernel's default, 0600 */
	if (!s || !*s)
		return 0;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '7' || p - s >= 4)
			return -FI_EINVAL;
		m = m * 8 + (uint32_t)(*p - '0');
	}
	/* Read and write bits only: an AV has nothing to execute. */
	if (m & ~0666U)
		return -FI_EINVAL;
	*mode = m;
	return 0;
}

int kav_av_named_request(const struct fi_av_attr *attr,
			 struct kav_av_create *req)
{
	size_t len = strlen(attr->name);
	const char *env;
	int ret;

	if (!len || len > KAV_NAME_MAX) {
		kav_debug("fi_av_open: a name is 1..%d bytes, not %zu",
			  KAV_NAME_MAX, len);
		return -FI_EINVAL;
	}
	req->flags = KAV_AV_NAMED;
	req->name = (uintptr_t)attr->name;
	req->name_len = (uint32_t)len;
	if (attr->flags & FI_READ) {
		req->flags |= KAV_AV_RDONLY;
		return 0;
	}
	env = secure_getenv(KAV_AV_MODE_ENV);
	ret = kav_av_mode_parse(env, &req->mode);
	if (ret)
		kav_warn("%s=%s: give octal read/write bits such as 0640",
			 KAV_AV_MODE_ENV, env);
	return ret;
}

int kav_av_named_attach(struct kav_av *av, struct fi_av_attr *attr)
{
	uint64_t slots = kav_table_nr_slots(&av->table);

	/*
	 * A reader of map_addr[0..count) must find pages there: slots never
	 * shrink, so once count are readable they stay readable.
	 */
	if ((attr->flags & FI_READ) && attr->count > slots) {
		kav_info("named AV %s holds %llu entries, fewer than count "
			 "%zu: not filled yet", attr->name,
			 (unsigned long long)slots, attr->count);
		return -FI_EAGAIN;
	}
	/* fi_addr_t values never depend on map_addr: a given one is kept. */
	if (!attr->map_addr)
		attr->map_addr = (void *)kav_table_fi_addrs(&av->table);
	return 0;
}
