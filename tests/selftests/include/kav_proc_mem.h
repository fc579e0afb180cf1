/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's memory as /proc reports it, for the memory test and the
 * memory benchmark: one mapping's smaps entry, and "Key: N kB" fields of
 * /proc/self/status and /proc/self/smaps_rollup.
 */
#ifndef KAV_PROC_MEM_H
#define KAV_PROC_MEM_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* One mapping's smaps fields, kB. */
struct kav_vma_mem {
	long size, rss, pss, shared, private, anon;
};

/* The smaps entry of this process's mapping that contains @addr. */
static inline int kav_smaps_vma(const void *addr, struct kav_vma_mem *m)
{
	unsigned long a = (unsigned long)addr, start, end;
	char line[512];
	bool in = false;
	int found = 0;
	long v;
	FILE *f;

	memset(m, 0, sizeof(*m));
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!in) {
			in = sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
			     start <= a && a < end;
			continue;
		}
		/* VmFlags is the last line of a mapping's entry. */
		if (!strncmp(line, "VmFlags:", 8))
			break;
		if (sscanf(line, "Size: %ld kB", &v) == 1)
			m->size = v, found++;
		else if (sscanf(line, "Rss: %ld kB", &v) == 1)
			m->rss = v, found++;
		else if (sscanf(line, "Pss: %ld kB", &v) == 1)
			m->pss = v, found++;
		else if (sscanf(line, "Shared_Clean: %ld kB", &v) == 1 ||
			 sscanf(line, "Shared_Dirty: %ld kB", &v) == 1)
			m->shared += v, found++;
		else if (sscanf(line, "Private_Clean: %ld kB", &v) == 1 ||
			 sscanf(line, "Private_Dirty: %ld kB", &v) == 1)
			m->private += v, found++;
		else if (sscanf(line, "Anonymous: %ld kB", &v) == 1)
			m->anon = v, found++;
	}
	fclose(f);
	return found == 8 ? 0 : -1;
}

/* "Key: N kB" from a /proc/self file; -1 if absent. */
static inline long kav_proc_kb(const char *file, const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long v = -1;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			if (sscanf(line + klen + 1, "%ld", &v) != 1)
				v = -1;
			break;
		}
	}
	fclose(f);
	return v;
}

#endif /* KAV_PROC_MEM_H */
