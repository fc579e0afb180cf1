// SPDX-License-Identifier: GPL-2.0
/*
 * Size-first ioctl arguments, shared by every kav file type.
 *
 * Each command's structure starts with a __u32 size. Older (smaller)
 * structures are accepted down to the end of the first version's fields;
 * newer (larger) ones only if the bytes the kernel does not know are zero.
 *
 * Output arrays that a command fills after changing a table are pinned
 * first (kav_user_out_pin()): a reply that could fail after the change
 * would need an undo, and an undo after the table lock was dropped can
 * hit entries another writer changed in between.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "kav_objects.h"

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

/*
 * Pin the @bytes of user memory at @uptr for writing. EFAULT if any of it
 * is not mapped writable now; afterwards kav_user_out_write() cannot fail
 * (a page unmapped meanwhile is written all the same, then let go).
 */
int kav_user_out_pin(struct kav_user_out *out, u64 uptr, size_t bytes)
{
	unsigned long start = (unsigned long)uptr;
	int ret;

	out->bytes = bytes;
	out->offset = offset_in_page(start);
	out->nr_pages = DIV_ROUND_UP(out->offset + bytes, PAGE_SIZE);
	out->pages = kvmalloc_array(out->nr_pages, sizeof(*out->pages),
				    KAV_TENANT_GFP);
	if (!out->pages)
		return -ENOMEM;
	ret = pin_user_pages_fast(start & PAGE_MASK, out->nr_pages, FOLL_WRITE,
				  out->pages);
	if (ret == out->nr_pages)
		return 0;
	if (ret > 0)
		unpin_user_pages(out->pages, ret);
	kvfree(out->pages);
	out->pages = NULL;
	/* A short pin, or any bad range (EOVERFLOW too), is the caller's. */
	return ret == -ENOMEM || ret == -EINTR ? ret : -EFAULT;
}

/* Copy out->bytes from @src into the pinned pages. */
void kav_user_out_write(struct kav_user_out *out, const void *src)
{
	size_t done = 0, n;
	unsigned int i, off = out->offset;

	for (i = 0; done < out->bytes; i++, off = 0) {
		n = min_t(size_t, out->bytes - done, PAGE_SIZE - off);
		memcpy_to_page(out->pages[i], off, src + done, n);
		done += n;
	}
}

void kav_user_out_release(struct kav_user_out *out)
{
	if (!out->pages)
		return;
	unpin_user_pages_dirty_lock(out->pages, out->nr_pages, true);
	kvfree(out->pages);
	out->pages = NULL;
}
