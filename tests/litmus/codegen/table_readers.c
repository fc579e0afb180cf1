// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The inline reads of lib/table.h, each in a function of its own, for
 * lanes/lint/aarch64-codegen.sh to disassemble as libkav inlines them
 * (lib/av_lookup.c, lib/view.c and lib/av_job.c are compiled as they
 * are). Compiled only, never linked or run.
 */
#include <string.h>

#include "table.h"

#define CG __attribute__((noinline, used))

/* lib/table.h: the consistent copy of an entry (kav_table_try_read()). */
CG int cg_table_read(const struct kav_map *t, uint64_t index,
		     struct kav_entry_meta *m, void *addr, size_t cap)
{
	return kav_table_read(t, index, m, addr, cap, true);
}

/* lib/table.h: fi_av_lookup()'s one inline attempt. */
CG int cg_table_lookup(const struct kav_map *t, uint64_t index, void *addr,
		       size_t *addrlen)
{
	return kav_table_lookup(t, index, addr, addrlen);
}

/* lib/table.h: a key slot (kav_table_try_read_key()). */
CG int cg_table_read_key(const struct kav_map *t, uint32_t slot,
			 struct kav_key_snap *snap)
{
	return kav_table_read_key_part(t, slot, snap, true);
}

/* lib/table.h: the caller copies entry bytes, then re-reads seq. */
CG int cg_table_entry_seq(const struct kav_map *t, uint64_t index,
			  uint64_t seq, uint8_t *buf)
{
	memcpy(buf, kav_table_entry(t, index)->addr, 16);
	return kav_table_entry_seq(t, index) == seq;
}
