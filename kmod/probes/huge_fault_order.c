// SPDX-License-Identifier: GPL-2.0
/* vm_operations_struct.huge_fault takes the order of the entry (6.6), and
 * enum page_entry_size is gone; before, it took that enum. The two function
 * types are compatible to the compiler (the enum is an unsigned int), so the
 * newer form proves that the enum's name is free and the older one uses it.
 */
#include <linux/mm.h>

#ifndef PIOC_PROBE_OLD
enum page_entry_size { PIOC_PROBE_NO_PE_SIZE };

static vm_fault_t pioc_probe_fault(struct vm_fault *vmf, unsigned int order)
{
	return order ? VM_FAULT_FALLBACK : 0;
}
#else
static vm_fault_t pioc_probe_fault(struct vm_fault *vmf, enum page_entry_size pe)
{
	return pe == PE_SIZE_PMD ? VM_FAULT_FALLBACK : 0;
}
#endif

const struct vm_operations_struct pioc_probe = { .huge_fault = pioc_probe_fault };
