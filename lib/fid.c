// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The struct fi_ops entries kav's objects do not provide, each returning
 * -FI_ENOSYS (never NULL: libfabric's inline fi_* calls jump through the
 * tables without checking). Shared by the domain, AVs, AV sets, EQs and
 * peer AVs, so it stands below them all: the domain, whose ops open AVs,
 * and the AV need not name each other's file for them.
 */
#include "kav_priv.h"

int kav_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid; (void)bfid; (void)flags;
	return -FI_ENOSYS;
}

int kav_no_control(struct fid *fid, int command, void *arg)
{
	(void)fid; (void)command; (void)arg;
	return -FI_ENOSYS;
}

int kav_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		    void **ops, void *context)
{
	(void)fid; (void)name; (void)flags; (void)ops; (void)context;
	return -FI_ENOSYS;
}

int kav_no_tostr(const struct fid *fid, char *buf, size_t len)
{
	(void)fid; (void)buf; (void)len;
	return -FI_ENOSYS;
}

int kav_no_ops_set(struct fid *fid, const char *name, uint64_t flags,
		   void *ops, void *context)
{
	(void)fid; (void)name; (void)flags; (void)ops; (void)context;
	return -FI_ENOSYS;
}
