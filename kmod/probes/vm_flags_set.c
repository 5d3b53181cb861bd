// SPDX-License-Identifier: GPL-2.0
/* vm_flags_set()/vm_flags_clear() (6.3), which made vma->vm_flags const. */
#include <linux/mm.h>

void pioc_probe(struct vm_area_struct *vma);
void pioc_probe(struct vm_area_struct *vma)
{
#ifndef PIOC_PROBE_OLD
	vm_flags_set(vma, VM_IO);
	vm_flags_clear(vma, VM_MAYEXEC);
#else
	vma->vm_flags |= VM_IO;
	vma->vm_flags &= ~VM_MAYEXEC;
#endif
}
