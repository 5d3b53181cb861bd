// SPDX-License-Identifier: GPL-2.0
/*
 * pioc: DMA buffers.
 *
 * Memory comes from dma_alloc_pages(), is zeroed, charged to the caller's
 * pinned memory (RLIMIT_MEMLOCK) and memory cgroup, and handed out only for
 * DMA-coherent functions, so user space can share it with the device
 * without dma_sync calls. Mappings insert its pages on fault (pioc_map.c),
 * so revocation cannot miss one.
 *
 * A buffer is referenced by its handle, by each mapping entry and by each
 * VMA; when the last reference goes its memory goes back to the kernel,
 * unless the device could still write to it: without a strict IOMMU the
 * device reaches the pages by their physical address until bus mastering
 * is off, so until then they wait on pd->graveyard, and an allocation of
 * the same size takes one from there instead of new memory (the device
 * could write into it anyway, and any file of the device may make it do
 * so), so that freeing and allocating in a loop does not run into
 * dma_limit. Removal stops the device first and returns every page at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "pioc_drv.h"

/*
 * Charges @pages to the caller's pinned memory (VmPin), checked against
 * RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK, as RDMA's umem does:
 * atomically, so that no mmap_lock is needed (the uncharge can run in
 * munmap, under it).
 */
static int pioc_charge(unsigned long pages, struct mm_struct **out)
{
	struct mm_struct *mm = current->mm;
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 pinned;

	if (!mm)
		return -EINVAL;
	pinned = atomic64_add_return(pages, &mm->pinned_vm);
	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(pages, &mm->pinned_vm);
		return -ENOMEM;
	}
	mmgrab(mm);
	*out = mm;
	return 0;
}

static void pioc_uncharge(struct mm_struct *mm, unsigned long pages)
{
	atomic64_sub(pages, &mm->pinned_vm);
	mmdrop(mm);
}

/* Gives the memory of @d back; the struct stays for its references. */
static void pioc_dma_return(struct pioc_dma *d)
{
	struct pioc_dev *pd = d->pd;

	if (!d->pages)
		return;
	dma_free_pages(&pd->pdev->dev, d->size, d->pages, d->bus, DMA_BIDIRECTIONAL);
	d->pages = NULL;
	pd->dma_used -= d->size;
	pioc_uncharge(d->mm, d->size >> PAGE_SHIFT);
}

static void pioc_dma_last_ref(struct kref *ref)
{
	struct pioc_dma *d = container_of(ref, struct pioc_dma, ref);
	struct pioc_dev *pd = d->pd;

	list_del(&d->node);
	if (d->pages && pd->master && !pd->iommu_strict) {
		/* The device may still write here: keep it until it cannot. */
		list_add(&d->node, &pd->graveyard);
		return;
	}
	pioc_dma_return(d);
	kfree(d);
}

void pioc_dma_put_locked(struct pioc_dma *d)
{
	lockdep_assert_held(&d->pd->lock);
	kref_put(&d->ref, pioc_dma_last_ref);
}

/* Bus mastering is off: nothing can reach the waiting buffers any more. */
void pioc_dma_free_graveyard_locked(struct pioc_dev *pd)
{
	struct pioc_dma *d, *tmp;

	list_for_each_entry_safe(d, tmp, &pd->graveyard, node) {
		list_del(&d->node);
		pioc_dma_return(d);
		kfree(d);
	}
}

/*
 * Removal, with the device stopped: return every page now. Mappings were
 * zapped, and faults see pages == NULL and the device gone.
 */
void pioc_dma_release_all_locked(struct pioc_dev *pd)
{
	struct pioc_dma *d;

	list_for_each_entry(d, &pd->dmas, node)
		pioc_dma_return(d);
	pioc_dma_free_graveyard_locked(pd);
}

/* A waiting buffer of @size bytes, charged to the caller now; or NULL. */
static struct pioc_dma *pioc_dma_recycle(struct pioc_dev *pd, u64 size)
{
	struct mm_struct *mm;
	struct pioc_dma *d;

	list_for_each_entry(d, &pd->graveyard, node) {
		if (d->size != size)
			continue;
		if (pioc_charge(size >> PAGE_SHIFT, &mm))
			return NULL;
		pioc_uncharge(d->mm, size >> PAGE_SHIFT);
		d->mm = mm;
		list_del(&d->node);
		return d;
	}
	return NULL;
}

long pioc_ioc_dma_alloc(struct pioc_file *pf, struct pioc_dma_alloc *a)
{
	struct pioc_dev *pd = pf->pd;
	struct device *dev;
	struct pioc_dma *d;
	u64 size;
	int ret;

	if (a->flags || a->bus_addr || a->handle || a->numa_node ||
	    a->reserved[0] || a->reserved[1])
		return -EINVAL;
	if (pd->kind != PIOC_KIND_PCI)
		return -EOPNOTSUPP;
	if (!a->size)
		return -EINVAL;
	if (a->size > pioc_dma_max_size)
		return -E2BIG;
	size = PAGE_ALIGN(a->size);
	dev = &pd->pdev->dev;

	d = pioc_dma_recycle(pd, size);
	if (d)
		goto got_memory;
	if (pd->dma_used + size > pioc_dma_limit) {
		dev_dbg(&pd->dev, "DMA limit: %llu + %llu > %lu bytes\n",
			pd->dma_used, size, pioc_dma_limit);
		return -ENOSPC;
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	if (!d)
		return -ENOMEM;
	ret = pioc_charge(size >> PAGE_SHIFT, &d->mm);
	if (ret) {
		dev_dbg(&pd->dev, "%llu bytes over RLIMIT_MEMLOCK\n", size);
		goto err_free;
	}
	/* dma-direct and dma-iommu allocate on dev_to_node(): the device's. */
	d->pages = dma_alloc_pages(dev, size, &d->bus, DMA_BIDIRECTIONAL, GFP_KERNEL_ACCOUNT);
	if (!d->pages) {
		dev_err(&pd->dev, "cannot allocate %llu bytes of DMA memory\n", size);
		ret = -ENOMEM;
		goto err_uncharge;
	}
	/*
	 * User space shares the pages with the device without dma_sync calls:
	 * only memory of a DMA-coherent device is handed out (dma_need_sync()
	 * cannot tell: behind dma-iommu older kernels say "yes" for every
	 * device, coherent or not).
	 */
	if (!pioc_dma_coherent(dev)) {
		dev_info(&pd->dev, "DMA to this function is not cache-coherent: no user-space buffers\n");
		ret = -EOPNOTSUPP;
		goto err_pages;
	}
	d->size = size;
	d->pd = pd;
	pd->dma_used += size;
got_memory:
	memset(page_address(d->pages), 0, size);	/* never leak old data */
	kref_init(&d->ref);
	list_add(&d->node, &pd->dmas);
	ret = xa_alloc(&pf->dmas, &a->handle, d, xa_limit_31b, GFP_KERNEL_ACCOUNT);
	if (ret) {
		pioc_dma_put_locked(d);
		return ret == -EBUSY ? -ENOSPC : ret;
	}

	a->size = size;
	a->bus_addr = d->bus;
	a->numa_node = dev_to_node(dev);
	return 0;

err_pages:
	dma_free_pages(dev, size, d->pages, d->bus, DMA_BIDIRECTIONAL);
	d->pages = NULL;
err_uncharge:
	pioc_uncharge(d->mm, size >> PAGE_SHIFT);
err_free:
	kfree(d);
	return ret;
}

long pioc_ioc_dma_free(struct pioc_file *pf, struct pioc_dma_free *f)
{
	struct pioc_dma *d;

	if (f->flags || f->reserved0)
		return -EINVAL;
	if (pf->pd->kind != PIOC_KIND_PCI)
		return -EOPNOTSUPP;
	d = xa_erase(&pf->dmas, f->handle);
	if (!d)
		return -ENOENT;
	/* Mappings of it keep it until they go. */
	pioc_dma_put_locked(d);
	return 0;
}
