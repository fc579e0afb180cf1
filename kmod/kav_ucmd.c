// SPDX-License-Identifier: GPL-2.0
/*
 * Size-first ioctl arguments, shared by every kav file type.
 *
 * Each command's structure starts with a __u32 size. Older (smaller)
 * structures are accepted down to the end of the first version's fields;
 * newer (larger) ones only if the bytes the kernel does not know are zero.
 */
#include <linux/uaccess.h>
#include "kav.h"

/* Large enough for any command's argument structure. */
union kav_ucmd_buffer {
	struct kav_av_create av_create;
	struct kav_av_insert av_insert;
	struct kav_av_remove av_remove;
	struct kav_av_key av_key;
	struct kav_av_user_id av_user_id;
	struct kav_av_ep_open av_ep_open;
	struct kav_ep_enable ep_enable;
	struct kav_domain_key domain_key;
};

long kav_ucmd_dispatch(void *obj, const struct kav_ioctl_op *ops,
		       size_t nr_ops, unsigned int cmd, unsigned long arg)
{
	union kav_ucmd_buffer buf;
	const struct kav_ioctl_op *op = NULL;
	struct kav_ucmd ucmd = {
		.ubuf = (void __user *)arg,
		.cmd = &buf,
	};
	size_t i;
	int ret;

	for (i = 0; i < nr_ops; i++) {
		if (ops[i].cmd == cmd) {
			op = &ops[i];
			break;
		}
	}
	if (!op)
		return -ENOTTY;

	if (get_user(ucmd.user_size, (u32 __user *)ucmd.ubuf))
		return -EFAULT;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;
	if (ucmd.user_size > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(&buf, op->size, ucmd.ubuf,
				    ucmd.user_size);
	if (ret)
		return ret;
	/* Never copy back more than both sides know about. */
	ucmd.user_size = min_t(u32, ucmd.user_size, op->size);
	return op->execute(obj, &ucmd);
}

/* Copy the (updated) argument structure back, no more than user gave. */
int kav_ucmd_respond(struct kav_ucmd *ucmd, size_t len)
{
	u32 size = ucmd->user_size;

	if (copy_to_user(ucmd->ubuf + sizeof(u32), ucmd->cmd + sizeof(u32),
			 min_t(size_t, size, len) - sizeof(u32)))
		return -EFAULT;
	return 0;
}
