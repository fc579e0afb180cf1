// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * kav_ep_*(): endpoint objects (<kav/kav.h>). A kav_ep is a kernel file
 * opened on an AV. Enabling it snapshots the AV's auth keys and pins them
 * (removing one fails with -FI_EBUSY) until the file is closed, by
 * kav_ep_close() or the death of the process. Each kav_ep holds its AV
 * open (kav_av_hold()).
 */
#include <stdlib.h>
#include <string.h>

#include "kav_priv.h"

struct kav_ep {
	struct kav_fid_av *av;
	int fd;
	bool enabled;
	uint64_t keys;			/* KAV_IOC_EP_ENABLE's snapshot */
};

KAV_API int kav_ep_open(struct fid_av *av_fid, struct kav_ep **out)
{
	struct kav_fid_av *av = kav_av_from_fid(av_fid);
	struct kav_av_ep_open req;
	struct kav_ep *ep;
	int ret;

	if (!av || !out)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.fd = -1;
	ret = kav_sys_ioctl(av->fd, KAV_IOC_AV_EP_OPEN, &req);
	if (ret < 0 || req.fd < 0) {
		free(ep);
		ret = ret < 0 ? kav_err_from_errno(-ret) : -FI_EIO;
		kav_info("kav_ep_open: %s", kav_av_strerror(av, ret));
		return ret;
	}
	ep->av = av;
	ep->fd = req.fd;
	kav_av_hold(av);
	*out = ep;
	return 0;
}

KAV_API int kav_ep_enable(struct kav_ep *ep)
{
	struct kav_ep_enable req;
	int ret;

	if (!ep)
		return -FI_EINVAL;
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	ret = kav_sys_ioctl(ep->fd, KAV_IOC_EP_ENABLE, &req);
	if (ret < 0)
		return kav_err_from_errno(-ret);
	ep->keys = req.keys;
	ep->enabled = true;
	return 0;
}

KAV_API uint64_t kav_ep_keys(const struct kav_ep *ep)
{
	return ep ? ep->keys : 0;
}

KAV_API int kav_ep_close(struct kav_ep *ep)
{
	if (!ep)
		return -FI_EINVAL;
	kav_sys_close(ep->fd);
	kav_av_unhold(ep->av);
	free(ep);
	return 0;
}
