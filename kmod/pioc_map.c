// SPDX-License-Identifier: GPL-2.0
/*
 * pioc: mappings of BARs, ECI windows and DMA buffers.
 *
 * PIOC_IOC_MAP records what a range of mmap offsets stands for; ->mmap()
 * only checks a VMA against that record; pages are inserted by the fault
 * handler, under the device lock, after it has checked that the record and
 * the device still exist. Revocation (PIOC_IOC_UNMAP, removal) changes the
 * state under the same lock and then zaps the file's private address_space,
 * so a VMA that joins the address_space after the zap has no pages and its
 * first touch finds the record gone: SIGBUS. Nothing is mapped that was
 * not checked at the moment it was mapped (the model is vfio-pci's).
 *
 * A terabyte window costs nothing to mmap: page tables grow only with what
 * is touched, and where the kernel allows huge PFN maps (pioc_compat.h) a
 * touch maps 2 MiB or 1 GiB at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/nospec.h>
#include <linux/slab.h>

#include "pioc_drv.h"

/* Offsets stay far below what loff_t and vm_pgoff can hold. */
#define PIOC_OFFSET_LIMIT	BIT_ULL(62)

int pioc_window_of(struct pioc_dev *pd, u32 index, struct pioc_window *w)
{
	if (pd->kind == PIOC_KIND_ECI) {
		if (index != 0)
			return -EINVAL;
		*w = pd->win;
		return 0;
	}
	return pioc_pci_bar(pd, index, w);
}

/*
 * The memory type granted for @want on BAR/window @w. A weaker type is
 * granted where the stronger one would be wrong: WC only on prefetchable
 * BARs (reads have no side effects there) and, on x86, only with PAT;
 * never WT (uapi.md); never a cacheable BAR.
 */
static int pioc_grant(const struct pioc_window *w, u32 want, u32 *granted)
{
	if (w->flags & PIOC_BAR_ECI_COHERENT) {
		*granted = PIOC_MEM_WB;
		return 0;
	}
	if (w->flags & PIOC_BAR_ECI_IO) {
		*granted = PIOC_MEM_UC;
		return 0;
	}
	switch (want) {
	case PIOC_MEM_UC:
	case PIOC_MEM_WT:
		*granted = PIOC_MEM_UC;
		return 0;
	case PIOC_MEM_WC:
		*granted = PIOC_MEM_UC;
		if (!(w->flags & PIOC_BAR_PREFETCH))
			return 0;
		if (IS_ENABLED(CONFIG_ARM64) || (IS_ENABLED(CONFIG_X86) && pioc_pat_enabled()))
			*granted = PIOC_MEM_WC;
		return 0;
	default:
		/* A cacheable mapping of a BAR would serve stale data. */
		return -EOPNOTSUPP;
	}
}

/*
 * x86 PAT gives every physical page one memory type, and a page inserted by
 * a fault gets the type reserved for its range (UC- when none is). WC is
 * therefore reserved for the life of a WC entry, and the reserved ranges
 * are the entries themselves: a WC request is granted where no UC entry of
 * any file overlaps it, a UC request refused only where it overlaps a WC
 * reservation. Disjoint pages of one BAR may hold different types.
 */
static bool pioc_pat_applies(const struct pioc_dev *pd)
{
	return IS_ENABLED(CONFIG_X86) && pioc_pat_enabled() && pd->kind == PIOC_KIND_PCI;
}

/* A BAR entry of @pd holding WC (@wc) or UC that overlaps @m, if any. */
static struct pioc_mapent *pioc_pat_overlap(struct pioc_dev *pd, const struct pioc_mapent *m,
					    bool wc)
{
	struct pioc_file *pf;
	struct pioc_mapent *o;
	unsigned long id;

	list_for_each_entry(pf, &pd->files, node) {
		xa_for_each(&pf->maps, id, o) {
			if (o->target != PIOC_MAP_BAR || o->wc_reserved != wc)
				continue;
			if (o->phys < m->phys + m->size && m->phys < o->phys + o->size)
				return o;
		}
	}
	return NULL;
}

/* Names the BAR, the range asked, the entry in the way and the rule. */
static void pioc_pat_dbg(struct pioc_dev *pd, const struct pioc_mapent *m,
			 const struct pioc_mapent *o, const char *rule)
{
	dev_dbg(&pd->dev, "BAR %u [%#llx, %#llx) overlaps [%#llx, %#llx): %s\n", m->index,
		m->start, m->start + m->size, o->start, o->start + o->size, rule);
}

static int pioc_pat_claim(struct pioc_dev *pd, struct pioc_mapent *m)
{
	struct pioc_mapent *o;

	if (!pioc_pat_applies(pd))
		return 0;
	if (m->mem_type == PIOC_MEM_WC) {
		o = pioc_pat_overlap(pd, m, false);
		if (!o && !arch_io_reserve_memtype_wc(m->phys, m->size)) {
			m->wc_reserved = true;
			return 0;
		}
		if (o)
			pioc_pat_dbg(pd, m, o, "WC asked over a UC mapping: granted UC");
		m->mem_type = PIOC_MEM_UC;	/* the other type holds */
	}
	o = pioc_pat_overlap(pd, m, true);
	if (o) {
		pioc_pat_dbg(pd, m, o, "UC refused over a WC mapping (PAT: one type per page)");
		return -EBUSY;
	}
	return 0;
}

static void pioc_pat_release(struct pioc_mapent *m)
{
	if (m->wc_reserved)
		arch_io_free_memtype_wc(m->phys, m->size);
}

/* Finds the range [start, start + length) of a target of @size bytes. */
static int pioc_subrange(u64 size, u64 start, u64 length, u64 *out)
{
	if (!PAGE_ALIGNED(start) || !PAGE_ALIGNED(length) || start >= size)
		return -EINVAL;
	if (!length)
		length = size - start;
	if (length > size - start)
		return -EINVAL;
	*out = length;
	return 0;
}

static int pioc_map_target(struct pioc_file *pf, struct pioc_map *mp, struct pioc_mapent *m)
{
	struct pioc_dev *pd = pf->pd;
	struct pioc_window w;
	struct pioc_dma *d;
	int ret;

	switch (mp->target) {
	case PIOC_MAP_BAR:
		ret = pioc_window_of(pd, mp->index, &w);
		if (ret)
			return ret;
		if (!w.size || !(w.flags & (PIOC_BAR_MEM | PIOC_BAR_ECI_COHERENT |
					     PIOC_BAR_ECI_IO)))
			return -ENXIO;
		/*
		 * A mapping is whole pages: a BAR smaller than a page or not
		 * page aligned would expose its neighbours.
		 */
		if (!PAGE_ALIGNED(w.base) || !PAGE_ALIGNED(w.size))
			return -EINVAL;
		ret = pioc_subrange(w.size, mp->start, mp->length, &m->size);
		if (ret)
			return ret;
		m->phys = w.base + mp->start;
		ret = pioc_grant(&w, mp->mem_type, &m->mem_type);
		if (ret)
			return ret;
		return pioc_pat_claim(pd, m);
	case PIOC_MAP_DMA:
		if (pd->kind != PIOC_KIND_PCI)
			return -EINVAL;
		d = xa_load(&pf->dmas, mp->index);
		if (!d)
			return -ENOENT;
		ret = pioc_subrange(d->size, mp->start, mp->length, &m->size);
		if (ret)
			return ret;
		/* Only DMA-coherent memory is handed out (pioc_dma.c). */
		m->mem_type = PIOC_MEM_WB;
		kref_get(&d->ref);
		m->dma = d;
		return 0;
	}
	return -EINVAL;
}

long pioc_ioc_map(struct pioc_file *pf, struct pioc_map *mp)
{
	struct pioc_mapent *m;
	int ret;

	if (mp->flags || mp->reserved0 || mp->handle || mp->granted || mp->size ||
	    mp->offset || mp->reserved[0] || mp->reserved[1] || mp->mem_type >= PIOC_MEM_COUNT)
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m)
		return -ENOMEM;
	m->target = mp->target;
	m->index = mp->index;
	m->start = mp->start;
	ret = pioc_map_target(pf, mp, m);
	if (ret) {
		kfree(m);
		return ret;
	}
	if (pf->next_offset + m->size > PIOC_OFFSET_LIMIT) {
		ret = -ENOSPC;
		goto err;
	}
	ret = xa_alloc(&pf->maps, &m->handle, m, xa_limit_31b, GFP_KERNEL_ACCOUNT);
	if (ret) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto err;
	}
	m->offset = pf->next_offset;
	pf->next_offset += m->size;

	mp->handle = m->handle;
	mp->granted = m->mem_type;
	mp->size = m->size;
	mp->offset = m->offset;
	return 0;

err:
	pioc_pat_release(m);
	if (m->dma)
		pioc_dma_put_locked(m->dma);
	kfree(m);
	return ret;
}

/* Zaps the pages of @m, forgets it and what it holds. */
void pioc_map_release_locked(struct pioc_file *pf, struct pioc_mapent *m)
{
	xa_erase(&pf->maps, m->handle);
	unmap_mapping_range(&pf->mapping, m->offset, m->size, 1);
	pioc_pat_release(m);
	if (m->dma)
		pioc_dma_put_locked(m->dma);
	kfree(m);
}

long pioc_ioc_unmap(struct pioc_file *pf, struct pioc_unmap *u)
{
	struct pioc_mapent *m;

	if (u->flags || u->reserved0)
		return -EINVAL;
	m = xa_load(&pf->maps, u->handle);
	if (!m)
		return -ENOENT;
	pioc_map_release_locked(pf, m);
	return 0;
}

/* The entry holding mmap page offsets [pgoff, pgoff + pages), if any. */
static struct pioc_mapent *pioc_find_map(struct pioc_file *pf, unsigned long pgoff,
					 unsigned long pages)
{
	struct pioc_mapent *m;
	unsigned long id;

	xa_for_each(&pf->maps, id, m) {
		u64 first = m->offset >> PAGE_SHIFT, n = m->size >> PAGE_SHIFT;

		if (pgoff >= first && pgoff - first < n && pages <= n - (pgoff - first))
			return m;
	}
	return NULL;
}

/*
 * Inserts the 2^@order pages around the faulting address, or tells the core
 * to fall back to smaller ones. Under pd->lock: the entry and the device
 * are checked in the same critical section that maps.
 */
static vm_fault_t pioc_fault(struct vm_fault *vmf, unsigned int order)
{
	struct vm_area_struct *vma = vmf->vma;
	struct pioc_file *pf = vma->vm_file->private_data;
	struct pioc_dev *pd = pf->pd;
	unsigned long len = PAGE_SIZE << order;
	unsigned long addr = ALIGN_DOWN(vmf->address, len);
	unsigned long pgoff, pfn;
	struct pioc_mapent *m;
	vm_fault_t ret;

	if (addr < vma->vm_start || addr + len > vma->vm_end)
		return VM_FAULT_FALLBACK;
	pgoff = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);

	mutex_lock(&pd->lock);
	m = pd->gone ? NULL : pioc_find_map(pf, pgoff, 1);
	if (!m || (m->dma && !m->dma->pages)) {
		ret = VM_FAULT_SIGBUS;
		goto out;
	}
	if (order && (m->dma || !pioc_find_map(pf, pgoff, 1UL << order))) {
		ret = VM_FAULT_FALLBACK;
		goto out;
	}
	pgoff -= m->offset >> PAGE_SHIFT;
	if (m->dma)
		pfn = page_to_pfn(m->dma->pages) + (m->start >> PAGE_SHIFT) + pgoff;
	else
		pfn = PHYS_PFN(m->phys) + pgoff;
	if (pfn & ((1UL << order) - 1)) {
		ret = VM_FAULT_FALLBACK;
		goto out;
	}
	ret = pioc_vmf_insert_pfn_order(vmf, pfn, order, vmf->flags & FAULT_FLAG_WRITE);
out:
	mutex_unlock(&pd->lock);
	return ret;
}

static vm_fault_t pioc_vm_fault(struct vm_fault *vmf)
{
	return pioc_fault(vmf, 0);
}

static vm_fault_t pioc_vm_huge_fault(struct vm_fault *vmf, PIOC_HUGE_FAULT_ARG arg)
{
	return pioc_fault(vmf, pioc_huge_fault_order(arg));
}

/*
 * A VMA of a DMA buffer holds the buffer: its memory outlives no VMA and
 * no VMA outlives its memory unmapped.
 */
static void pioc_vm_open(struct vm_area_struct *vma)
{
	struct pioc_dma *d = vma->vm_private_data;

	if (d)
		kref_get(&d->ref);
}

static void pioc_vm_close(struct vm_area_struct *vma)
{
	struct pioc_dma *d = vma->vm_private_data;
	struct pioc_dev *pd;

	if (!d)
		return;
	pd = d->pd;
	mutex_lock(&pd->lock);
	pioc_dma_put_locked(d);
	mutex_unlock(&pd->lock);
}

static const struct vm_operations_struct pioc_vm_ops = {
	.open = pioc_vm_open,
	.close = pioc_vm_close,
	.fault = pioc_vm_fault,
	.huge_fault = pioc_vm_huge_fault,
};

static pgprot_t pioc_pgprot(pgprot_t prot, const struct pioc_dev *pd,
			    const struct pioc_mapent *m)
{
	if (m->dma || m->mem_type == PIOC_MEM_WB)
		return prot;	/* normal cacheable memory */
	if (pd->kind == PIOC_KIND_ECI)
		return pgprot_device(prot);
	if (m->mem_type == PIOC_MEM_WC)
		return pgprot_writecombine(prot);
	return pgprot_noncached(prot);
}

int pioc_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct pioc_file *pf = filp->private_data;
	struct pioc_dev *pd = pf->pd;
	struct pioc_mapent *m;
	int ret = 0;

	/*
	 * Shared only: a private (copy-on-write) mapping of MMIO is
	 * meaningless. Never executable.
	 */
	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;

	mutex_lock(&pd->lock);
	if (pd->gone) {
		ret = -ENODEV;
		goto out;
	}
	m = pioc_find_map(pf, vma->vm_pgoff, vma_pages(vma));
	if (!m) {
		ret = -EINVAL;
		goto out;
	}
	if (m->dma && !m->dma->pages) {
		ret = -ENODEV;
		goto out;
	}
	pioc_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	/* With THP in madvise mode, huge faults come only to VM_HUGEPAGE. */
	if (!m->dma)
		pioc_vm_flags_set(vma, VM_HUGEPAGE);
	pioc_vm_flags_clear(vma, VM_MAYEXEC);
	vma->vm_page_prot = pioc_pgprot(vma->vm_page_prot, pd, m);
	vma->vm_ops = &pioc_vm_ops;
	if (m->dma) {
		kref_get(&m->dma->ref);
		vma->vm_private_data = m->dma;
	}
out:
	mutex_unlock(&pd->lock);
	return ret;
}
