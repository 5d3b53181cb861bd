// SPDX-License-Identifier: GPL-2.0
/* vmf_insert_pfn_pmd/pud take an unsigned long pfn (pfn_t removed, 6.17?);
 * before, a pfn_t from <linux/pfn_t.h>.
 */
#include <linux/mm.h>
#ifdef PIOC_PROBE_OLD
#include <linux/pfn_t.h>
#endif

vm_fault_t pioc_probe(struct vm_fault *vmf, unsigned long pfn);
vm_fault_t pioc_probe(struct vm_fault *vmf, unsigned long pfn)
{
#ifndef PIOC_PROBE_OLD
	return vmf_insert_pfn_pmd(vmf, pfn, true) | vmf_insert_pfn_pud(vmf, pfn, true);
#else
	return vmf_insert_pfn_pmd(vmf, __pfn_to_pfn_t(pfn, PFN_DEV), true) |
	       vmf_insert_pfn_pud(vmf, __pfn_to_pfn_t(pfn, PFN_DEV), true);
#endif
}
