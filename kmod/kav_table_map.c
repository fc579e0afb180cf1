// SPDX-License-Identifier: GPL-2.0
/*
 * The table's user mapping: read-only for good. Write and execute are
 * refused at mmap() and VM_MAYWRITE and VM_MAYEXEC cleared, so neither
 * mprotect() nor FOLL_FORCE (e.g. /proc/pid/mem) can add them later.
 * Pages are inserted lazily by the fault handler; they never move, so a
 * mapping never goes stale while the table grows.
 */
#include <linux/mm.h>
#include "compat.h"
#include "kav_core.h"

static vm_fault_t kav_table_fault(struct vm_fault *vmf)
{
	struct kav_table *t = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->pgoff == 0)
		page = t->header_page;
	else
		page = xa_load(&t->pages, vmf->pgoff - 1);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct kav_table_vm_ops = {
	.fault = kav_table_fault,
};

int kav_table_mmap(struct kav_table *t, struct vm_area_struct *vma)
{
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EACCES;
	if (vma->vm_pgoff >= t->map_pages ||
	    vma_pages(vma) > t->map_pages - vma->vm_pgoff)
		return -EINVAL;
	vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP,
		     VM_MAYWRITE | VM_MAYEXEC);
	vma->vm_ops = &kav_table_vm_ops;
	vma->vm_private_data = t;
	return 0;
}
