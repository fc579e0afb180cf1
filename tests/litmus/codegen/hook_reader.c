// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The hook's inline translation (prov/kav_hook.h kavh_xlate()) in a
 * function of its own, for lanes/lint/aarch64-codegen.sh. Compiled
 * only, never linked or run.
 */
#include "hook_av.h"

__attribute__((noinline, used))
int cg_hook_xlate(struct kavh_av *av, fi_addr_t addr, fi_addr_t *core)
{
	return kavh_xlate(av, addr, core);
}
