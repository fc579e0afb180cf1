/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The hook's fi_addr translation, kav's to the core's and back: the
 * inline fast paths the data path and the CQs call, and hook_av.c's slow
 * paths under them (mirroring an entry on first use). Apart from
 * kav_hook.h so that the header every file includes calls into no file.
 */
#ifndef KAV_HOOK_AV_H
#define KAV_HOOK_AV_H

#include "kav_hook.h"

/* The table has not changed (entries, keys) while this is unchanged. */
static inline uint64_t kavh_table_stamp(const struct kav_table_header *hdr)
{
	/* Both only grow, so their sum changes whenever either does. */
	return __atomic_load_n(&hdr->generation, __ATOMIC_ACQUIRE) +
	       __atomic_load_n(&hdr->key_gen, __ATOMIC_ACQUIRE);
}

int kavh_xlate_slow(struct kavh_av *av, fi_addr_t addr, fi_addr_t *core);

/*
 * kav fi_addr -> core fi_addr, for the data path. Bits 32..63 (rx
 * context, group) are the caller's and pass through; FI_ADDR_UNSPEC
 * passes through. Returns 0 or a negative fabric error (-FI_EINVAL: no
 * such entry; -FI_EKEYREJECTED: its key was revoked).
 */
static inline int kavh_xlate(struct kavh_av *av, fi_addr_t addr,
			     fi_addr_t *core)
{
	const struct kavh_slot *s;

	if (!av || addr == FI_ADDR_UNSPEC) {
		*core = addr;
		return 0;
	}
	s = kavh_vec_get(&av->slots, addr & KAV_FI_ADDR_LOW_MASK);
	if (kavh_likely(s) &&
	    kavh_likely(__atomic_load_n(&s->stamp, __ATOMIC_ACQUIRE) ==
			kavh_table_stamp(av->hdr))) {
		*core = __atomic_load_n(&s->core, __ATOMIC_RELAXED) |
			(addr & ~KAV_FI_ADDR_LOW_MASK);
		return 0;
	}
	return kavh_xlate_slow(av, addr, core);
}

/* core fi_addr (from the core's CQ) -> kav fi_addr. */
static inline fi_addr_t kavh_src(struct kavh_av *av, fi_addr_t core)
{
	const uint64_t *k;

	if (!av || core == FI_ADDR_NOTAVAIL)
		return core;
	k = kavh_vec_get(&av->kav_of, core & KAV_FI_ADDR_LOW_MASK);
	if (!k)
		return FI_ADDR_NOTAVAIL;
	return __atomic_load_n(k, __ATOMIC_RELAXED);
}

/*
 * A completion's source for the application: kav's fi_addr, or the
 * entry's user id where it has one (FI_AV_USER_ID), or FI_ADDR_NOTAVAIL
 * on an FI_AV_USER_ID AV before fi_av_set_user_id() (fi_av(3)).
 */
fi_addr_t kavh_av_report(struct kavh_av *av, fi_addr_t core);

/*
 * Before a completion's source is read from a CQ of @av: the first time,
 * mirror every entry already inserted, and every later one at insert.
 */
void kavh_av_sources_read_slow(struct kavh_av *av);

static inline void kavh_av_sources_read(struct kavh_av *av)
{
	if (av && av->dom->source &&
	    kavh_unlikely(!__atomic_load_n(&av->eager, __ATOMIC_ACQUIRE)))
		kavh_av_sources_read_slow(av);
}

#endif /* KAV_HOOK_AV_H */
