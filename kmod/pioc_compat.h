/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pioc: kernel API differences between 5.10 and the newest kernels, each
 * decided by a feature probe, never by a version number. Probes are
 * macros the API itself defines (#ifdef), __has_include, or the type of
 * a structure member (_Generic); where none of those can tell, Kbuild
 * greps the kernel's own header once (PIOC_PROBE_* in Kbuild).
 */
#ifndef PIOC_COMPAT_H
#define PIOC_COMPAT_H

#include <linux/eventfd.h>
#include <linux/mm.h>
#include <linux/pci.h>

/* 6.8 renamed PCI_IRQ_LEGACY (a macro) to PCI_IRQ_INTX. */
#ifndef PCI_IRQ_INTX
#define PCI_IRQ_INTX PCI_IRQ_LEGACY
#endif

/* 6.8: eventfd_signal() lost its count argument. */
static inline void pioc_eventfd_signal(struct eventfd_ctx *ctx)
{
#ifdef PIOC_PROBE_EVENTFD_SIGNAL_1
	eventfd_signal(ctx);
#else
	eventfd_signal(ctx, 1);
#endif
}

/* 6.3: vm_flags became read-only outside vm_flags_set()/_clear(), which
 * are macros-free inlines: Kbuild probes for them. */
static inline void pioc_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef PIOC_PROBE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void pioc_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef PIOC_PROBE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/* 6.4: class_create() lost its owner argument and stopped being a macro. */
#ifdef class_create
#define pioc_class_create(name) class_create(THIS_MODULE, name)
#else
#define pioc_class_create(name) class_create(name)
#endif

/*
 * Huge PFN mappings of BARs and windows: the core lets ->huge_fault() map
 * PMD/PUD entries in a VM_PFNMAP area only where the architecture says so
 * (CONFIG_ARCH_SUPPORTS_{PMD,PUD}_PFNMAP, 6.12); elsewhere faults map
 * pages, which still costs page tables only for what is touched.
 * Every kernel with that symbol passes ->huge_fault() an order (6.6);
 * pfn_t went away later (6.17).
 */
#ifdef CONFIG_ARCH_SUPPORTS_PMD_PFNMAP
#define PIOC_HUGE_PFNMAP 1
#if __has_include(<linux/pfn_t.h>)
#include <linux/pfn_t.h>
#define pioc_pfn_arg(pfn) __pfn_to_pfn_t((pfn), PFN_DEV)
#else
#define pioc_pfn_arg(pfn) (pfn)
#endif
#endif

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
