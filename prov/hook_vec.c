// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * struct kavh_vec: the arrays the data path indexes with no lock (kav
 * index -> core fi_addr, core index -> kav fi_addr). Memory follows use:
 * a chunk of KAVH_CHUNK elements is made when an index in it is first
 * written, so a rank that joins a million-entry named AV and talks to
 * ten peers holds ten chunks at most.
 */
#include <stdlib.h>
#include <string.h>

#include "kav_hook.h"

void kavh_vec_init(struct kavh_vec *v, size_t elem_size, uint8_t fill)
{
	v->dir = NULL;
	v->elem_size = elem_size;
	v->fill = fill;
}

/* A directory with room for chunk @c, the old one's chunks in it. */
static struct kavh_dir *kavh_dir_grow(struct kavh_dir *old, uint64_t c)
{
	size_t n = old ? old->nr_chunks : 0, want = n ? n : 16;
	struct kavh_dir *dir;

	while (want <= c)
		want *= 2;
	dir = calloc(1, sizeof(*dir) + want * sizeof(dir->chunk[0]));
	if (!dir)
		return NULL;
	dir->nr_chunks = want;
	if (old)
		memcpy(dir->chunk, old->chunk, n * sizeof(old->chunk[0]));
	/* Readers may still be in @old: it goes with the vector. */
	dir->retired = old;
	return dir;
}

/* Element @index, its chunk made if needed; caller holds the writers' lock. */
void *kavh_vec_make(struct kavh_vec *v, uint64_t index)
{
	uint64_t c = index >> KAVH_CHUNK_SHIFT;
	struct kavh_dir *dir = v->dir;
	char *chunk;

	if (index > KAV_FI_ADDR_LOW_MASK)
		return NULL;
	if (!dir || c >= dir->nr_chunks) {
		dir = kavh_dir_grow(dir, c);
		if (!dir)
			return NULL;
		__atomic_store_n(&v->dir, dir, __ATOMIC_RELEASE);
	}
	chunk = dir->chunk[c];
	if (!chunk) {
		chunk = malloc(KAVH_CHUNK * v->elem_size);
		if (!chunk)
			return NULL;
		memset(chunk, v->fill, KAVH_CHUNK * v->elem_size);
		__atomic_store_n(&dir->chunk[c], chunk, __ATOMIC_RELEASE);
	}
	return chunk + (index & (KAVH_CHUNK - 1)) * v->elem_size;
}

void kavh_vec_free(struct kavh_vec *v)
{
	struct kavh_dir *dir = v->dir, *next;
	size_t i;

	if (dir)
		for (i = 0; i < dir->nr_chunks; i++)
			free(dir->chunk[i]);
	for (; dir; dir = next) {
		next = dir->retired;
		free(dir);
	}
	v->dir = NULL;
}
