/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels kav supports (Debian's 6.1 and 6.12).
 * Kbuild probes each feature; nothing else in kav tests kernel versions.
 */
#ifndef KAV_COMPAT_H
#define KAV_COMPAT_H

#include <linux/mm.h>

#ifndef KAV_HAVE_VM_FLAGS_SET
/* Before 6.3 vm_flags was written directly under the mmap lock. */
static inline void vm_flags_mod(struct vm_area_struct *vma,
				unsigned long set, unsigned long clear)
{
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
}
#endif

#endif /* KAV_COMPAT_H */
