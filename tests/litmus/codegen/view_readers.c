// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The inline readers of the installed <kav/kav_view.h>, each in a function
 * of its own, for lanes/lint/aarch64-codegen.sh to disassemble as a
 * provider's data path inlines them. Compiled only, never linked or run.
 */
#include <string.h>

#include <kav/kav.h>
#include <kav/kav_view.h>

#define CG __attribute__((noinline, used))

/* <kav/kav_view.h>: the inline resolve. */
CG int cg_view_resolve(struct kav_view *view, fi_addr_t fi_addr,
		       struct kav_view_entry *out)
{
	return kav_view_resolve(view, fi_addr, out);
}

/*
 * <kav/kav_view.h>: a provider copies the address a resolve pointed at,
 * then asks whether the entry is unchanged (prov/hook_av.c does).
 */
CG int cg_view_entry_seq(const struct kav_view *view,
			 const struct kav_view_entry *ent, uint8_t *buf)
{
	memcpy(buf, ent->addr, 16);
	return kav_view_entry_seq(view, ent) == ent->seq;
}
