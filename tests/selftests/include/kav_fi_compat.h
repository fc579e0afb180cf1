/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The tests' one call of an API that libfabric 2.x marks deprecated:
 * fi_av_bind(), which fi_av(3) still specifies for FI_EVENT AVs and kav
 * still supports, so its tests must keep calling it. The warning is
 * silenced for this wrapper only; anything else deprecated still warns.
 * Shared by the selftests and the unit tests (tests/unit/test_common.h).
 */
#ifndef KAV_FI_COMPAT_H
#define KAV_FI_COMPAT_H

#include <rdma/fi_domain.h>

static inline int kav_test_av_bind(struct fid_av *av, struct fid *eq,
				   uint64_t flags)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	return fi_av_bind(av, eq, flags);
#pragma GCC diagnostic pop
}

#endif /* KAV_FI_COMPAT_H */
