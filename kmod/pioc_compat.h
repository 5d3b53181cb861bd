/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pioc: the kernel APIs that changed between 5.10 and the newest kernel we
 * build for, each behind one helper. Which form a kernel has is decided by
 * the probes in probes/ (compiled by Kbuild with this kernel's flags, result
 * in the generated pioc_probed.h), by a macro or Kconfig symbol the kernel
 * itself defines, never by LINUX_VERSION_CODE: distributions backport APIs
 * without changing the version.
 */
#ifndef PIOC_COMPAT_H
#define PIOC_COMPAT_H

#include <linux/device.h>
#include <linux/eventfd.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/property.h>

#include "pioc_probed.h"

#ifndef PIOC_HAVE_VMF_INSERT_PFN_PMD_ULONG
#include <linux/pfn_t.h>
#endif

/* eventfd_signal(): the count argument went away (6.8); it always adds 1. */
static inline void pioc_eventfd_signal(struct eventfd_ctx *ctx)
{
#ifdef PIOC_HAVE_EVENTFD_SIGNAL_CTX
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/* class_create(): the owner argument went away (6.4). */
static inline struct class *pioc_class_create(const char *name)
{
#ifdef PIOC_HAVE_CLASS_CREATE_NAME
	return class_create(name);
#else
	return class_create(THIS_MODULE, name);
#endif
}

/*
 * class->devnode takes a const struct device since 6.2. Declare the callback
 * as  char *fn(PIOC_DEVNODE_CONST struct device *dev, umode_t *mode).
 */
#ifdef PIOC_HAVE_DEVNODE_CONST
#define PIOC_DEVNODE_CONST const
#else
#define PIOC_DEVNODE_CONST
#endif

/* vma->vm_flags is const since 6.3: only vm_flags_set/clear may write it. */
static inline void pioc_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef PIOC_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void pioc_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef PIOC_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/* PCI_IRQ_LEGACY was renamed PCI_IRQ_INTX (6.8) and later removed. */
#ifndef PCI_IRQ_INTX
#define PCI_IRQ_INTX PCI_IRQ_LEGACY
#endif

/*
 * vm_operations_struct.huge_fault: its second argument is the order of the
 * entry (6.6); before, an enum page_entry_size. Declare the handler as
 *   vm_fault_t fn(struct vm_fault *vmf, PIOC_HUGE_FAULT_ARG arg)
 * and read the order with pioc_huge_fault_order(arg): PIOC_PMD_ORDER,
 * PIOC_PUD_ORDER or something else to refuse with VM_FAULT_FALLBACK.
 */
#define PIOC_PMD_ORDER	(PMD_SHIFT - PAGE_SHIFT)
#define PIOC_PUD_ORDER	(PUD_SHIFT - PAGE_SHIFT)

#ifdef PIOC_HAVE_HUGE_FAULT_ORDER
#define PIOC_HUGE_FAULT_ARG unsigned int

static inline unsigned int pioc_huge_fault_order(unsigned int order)
{
	return order;
}
#else
#define PIOC_HUGE_FAULT_ARG enum page_entry_size

static inline unsigned int pioc_huge_fault_order(enum page_entry_size pe)
{
	switch (pe) {
	case PE_SIZE_PMD:
		return PIOC_PMD_ORDER;
	case PE_SIZE_PUD:
		return PIOC_PUD_ORDER;
	default:
		return 0;
	}
}
#endif

/*
 * One page-table entry of 2^@order pages for a fault in a VM_PFNMAP mapping
 * of I/O memory: 0 (a page), PIOC_PMD_ORDER or PIOC_PUD_ORDER. @pfn is the
 * first pfn of the entry, i.e. the one for vmf->address aligned down to the
 * entry's size. Huge entries need an architecture that marks them special
 * (CONFIG_ARCH_SUPPORTS_{PMD,PUD}_PFNMAP, from 6.12: PMD and PUD on x86-64,
 * PMD on arm64) so that GUP and the rest of mm leave them alone; elsewhere,
 * and for any other order, the answer is VM_FAULT_FALLBACK and the kernel
 * retries with a smaller entry, as vfio-pci does. The huge inserts took a
 * pfn_t until pfn_t was removed after 6.12.
 */
#ifndef PIOC_HAVE_VMF_INSERT_PFN_PMD_ULONG
#define pioc_huge_pfn(pfn) __pfn_to_pfn_t(pfn, PFN_DEV)
#else
#define pioc_huge_pfn(pfn) (pfn)
#endif

static inline vm_fault_t pioc_vmf_insert_pfn_order(struct vm_fault *vmf, unsigned long pfn,
						   unsigned int order, bool write)
{
	if (order == 0)
		return vmf_insert_pfn(vmf->vma, vmf->address, pfn);
#if defined(CONFIG_ARCH_SUPPORTS_PMD_PFNMAP) && defined(CONFIG_TRANSPARENT_HUGEPAGE)
	if (order == PIOC_PMD_ORDER)
		return vmf_insert_pfn_pmd(vmf, pioc_huge_pfn(pfn), write);
#endif
#if defined(CONFIG_ARCH_SUPPORTS_PUD_PFNMAP) && defined(CONFIG_TRANSPARENT_HUGEPAGE)
	if (order == PIOC_PUD_ORDER)
		return vmf_insert_pfn_pud(vmf, pioc_huge_pfn(pfn), write);
#endif
	return VM_FAULT_FALLBACK;
}

/*
 * Whether dma_alloc_coherent() memory of @dev is normal cacheable memory to
 * the CPU (the device snoops), without <linux/dma-map-ops.h>, which is for
 * DMA API implementations, not drivers. Architectures with no cache
 * maintenance for DMA (x86) are coherent for every device. Elsewhere the
 * answer is the firmware's (DT "dma-coherent", ACPI _CCA / IORT), the same
 * statement the PCI core hands to the DMA layer when it configures the
 * function: for a PCI function it is made about the host bridge's parent,
 * so ask there. No statement means not coherent.
 */
static inline bool pioc_dma_coherent(struct device *dev)
{
#if defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_DEVICE) || defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU_ALL)
	struct device *fw = dev;

	if (dev_is_pci(dev)) {
		struct pci_bus *bus = to_pci_dev(dev)->bus;

		while (!pci_is_root_bus(bus))
			bus = bus->parent;
		fw = bus->bridge ? bus->bridge->parent : NULL;
	}
	return fw && device_get_dma_attr(fw) == DEV_DMA_COHERENT;
#else
	return true;
#endif
}

/* x86 PAT: a fault-mapped range gets the memory type reserved for it. */
#ifdef CONFIG_X86
#include <asm/memtype.h>
static inline bool pioc_pat_enabled(void)
{
	return pat_enabled();
}
#else
static inline bool pioc_pat_enabled(void)
{
	return false;
}
#endif

#endif /* PIOC_COMPAT_H */
