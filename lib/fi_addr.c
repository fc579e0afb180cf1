// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kav's fi_addr_t encoding (<kav/kav.h>): bits 32..63 (group id, rx
 * context) are ignored; below them, bit 31 tells an auth-key handle
 * (KAV_FI_ADDR_KEY | slot) from a table index.
 */
#include "kav_priv.h"

_Static_assert(sizeof(fi_addr_t) == sizeof(__u64),
	       "fi_addr_t is the ABI's u64");
_Static_assert(KAV_NONE == FI_ADDR_NOTAVAIL, "no user id is FI_ADDR_NOTAVAIL");

int kav_fi_addr_index(fi_addr_t fi_addr, uint64_t *index)
{
	uint64_t low = fi_addr & KAV_FI_ADDR_LOW_MASK;

	if (fi_addr == FI_ADDR_NOTAVAIL || (low & KAV_FI_ADDR_KEY))
		return -FI_EINVAL;
	*index = low;
	return 0;
}

int kav_fi_addr_key(fi_addr_t fi_addr, uint32_t *slot)
{
	uint64_t low = fi_addr & KAV_FI_ADDR_LOW_MASK;

	if (fi_addr == FI_ADDR_NOTAVAIL || !(low & KAV_FI_ADDR_KEY) ||
	    (low & ~KAV_FI_ADDR_KEY) >= KAV_MAX_AUTH_KEYS)
		return -FI_EINVAL;
	*slot = (uint32_t)(low & ~KAV_FI_ADDR_KEY);
	return 0;
}

fi_addr_t kav_key_fi_addr(uint32_t slot)
{
	return KAV_FI_ADDR_KEY | slot;
}
