// SPDX-License-Identifier: GPL-2.0
/*
 * pioc: character devices, mappings and DMA buffers.
 *
 * Every open file has a private address_space, so that revoking a mapping
 * (PIOC_IOC_UNMAP, PIOC_IOC_DMA_FREE, device removal) zaps exactly the
 * page tables made from that file and handle; a later access faults with
 * SIGBUS in pioc_vm_fault(). mmap offsets are handles shifted left by
 * PIOC_MMAP_SHIFT, so the ranges of two handles never overlap.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "pioc.h"

unsigned long pioc_dma_max_size = 4UL << 20;
module_param_named(dma_max_size, pioc_dma_max_size, ulong, 0444);
MODULE_PARM_DESC(dma_max_size, "Largest single DMA buffer in bytes (default 4 MiB)");

unsigned long pioc_dma_limit = 64UL << 20;
module_param_named(dma_limit, pioc_dma_limit, ulong, 0444);
MODULE_PARM_DESC(dma_limit, "Most DMA memory one device may hold, in bytes (default 64 MiB)");

struct class *pioc_class;
static dev_t pioc_devt;
static DEFINE_IDA(pioc_minors);

#define PIOC_PGOFF_SHIFT	(PIOC_MMAP_SHIFT - PAGE_SHIFT)
#define PIOC_PGOFF_MASK		((1UL << PIOC_PGOFF_SHIFT) - 1)

static void pioc_dev_release(struct device *dev)
{
	struct pioc_dev *pd = container_of(dev, struct pioc_dev, dev);

	if (pd->minor >= 0)
		ida_free(&pioc_minors, pd->minor);
	kfree(pd->irqs);
	kfree(pd);
}

void pioc_dev_init(struct pioc_dev *pd, u32 kind)
{
	pd->kind = kind;
	pd->minor = -1;
	mutex_init(&pd->lock);
	INIT_LIST_HEAD(&pd->files);
	device_initialize(&pd->dev);
	pd->dev.class = pioc_class;
	pd->dev.release = pioc_dev_release;
}

static const struct file_operations pioc_fops;

/* Makes /dev/pioc/@name. On failure the caller drops its reference. */
int pioc_dev_register(struct pioc_dev *pd, struct device *parent, const char *name)
{
	int ret;

	ret = ida_alloc_max(&pioc_minors, PIOC_MAX_MINORS - 1, GFP_KERNEL);
	if (ret < 0) {
		pr_err("%s: no free minor: %d\n", name, ret);
		return ret;
	}
	pd->minor = ret;
	pd->dev.parent = parent;
	pd->dev.devt = MKDEV(MAJOR(pioc_devt), pd->minor);
	ret = dev_set_name(&pd->dev, "%s", name);
	if (ret) {
		pr_err("%s: cannot name device: %d\n", name, ret);
		return ret;
	}
	cdev_init(&pd->cdev, &pioc_fops);
	pd->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&pd->cdev, &pd->dev);
	if (ret)
		dev_err(&pd->dev, "cannot add character device: %d\n", ret);
	return ret;
}

/* Revokes everything every file holds; caller holds pd->lock. */
static void pioc_file_revoke_all(struct pioc_file *pf);

void pioc_dev_revoke(struct pioc_dev *pd)
{
	struct pioc_file *pf;

	mutex_lock(&pd->lock);
	pd->gone = true;
	list_for_each_entry(pf, &pd->files, node)
		pioc_file_revoke_all(pf);
	mutex_unlock(&pd->lock);
}

void pioc_dev_unregister(struct pioc_dev *pd)
{
	cdev_device_del(&pd->cdev, &pd->dev);
}

/* ---------------------------------------------------------------- files */

static int pioc_open(struct inode *inode, struct file *filp)
{
	struct pioc_dev *pd = container_of(inode->i_cdev, struct pioc_dev, cdev);
	struct pioc_file *pf;

	pf = kzalloc(sizeof(*pf), GFP_KERNEL);
	if (!pf)
		return -ENOMEM;
	pf->pd = pd;
	mutex_init(&pf->lock);
	idr_init(&pf->maps);
	idr_init(&pf->dmas);
	address_space_init_once(&pf->mapping);
	pf->mapping.host = inode;
	pf->mapping.a_ops = inode->i_mapping->a_ops;

	mutex_lock(&pd->lock);
	if (pd->gone) {
		mutex_unlock(&pd->lock);
		kfree(pf);
		return -ENODEV;
	}
	get_device(&pd->dev);
	list_add(&pf->node, &pd->files);
	mutex_unlock(&pd->lock);

	filp->f_mapping = &pf->mapping;
	filp->private_data = pf;
	return nonseekable_open(inode, filp);
}

static struct device *pioc_dma_dev(struct pioc_dev *pd)
{
	return &pd->pdev->dev;
}

static void pioc_dma_release(struct pioc_dev *pd, struct pioc_dma *d)
{
	dma_free_coherent(pioc_dma_dev(pd), d->size, d->cpu, d->bus);
	pd->dma_used -= d->size;
	kfree(d);
}

/* Zaps every mapping of @pf, frees its handles and buffers. Caller holds
 * pd->lock (DMA accounting). */
static void pioc_file_revoke_all(struct pioc_file *pf)
{
	struct pioc_mapent *m;
	struct pioc_dma *d;
	int id;

	mutex_lock(&pf->lock);
	unmap_mapping_range(&pf->mapping, 0, 0, 1);
	idr_for_each_entry(&pf->maps, m, id)
		kfree(m);
	idr_destroy(&pf->maps);
	idr_for_each_entry(&pf->dmas, d, id)
		pioc_dma_release(pf->pd, d);
	idr_destroy(&pf->dmas);
	mutex_unlock(&pf->lock);
}

static int pioc_release(struct inode *inode, struct file *filp)
{
	struct pioc_file *pf = filp->private_data;
	struct pioc_dev *pd = pf->pd;

	mutex_lock(&pd->lock);
	list_del(&pf->node);
	if (pd->kind == PIOC_KIND_PCI && !pd->gone)
		pioc_irq_release_file(pf);
	pioc_file_revoke_all(pf);
	mutex_unlock(&pd->lock);

	put_device(&pd->dev);
	kfree(pf);
	return 0;
}

/* --------------------------------------------------------------- ioctls */

static int pioc_check_reserved(const __u64 *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i])
			return -EINVAL;
	return 0;
}

static long pioc_ioc_version(struct pioc_dev *pd, struct pioc_version *v)
{
	if (pioc_check_reserved(v->reserved, ARRAY_SIZE(v->reserved)))
		return -EINVAL;
	if (v->user_version > PIOC_API_VERSION)
		return -EPROTO;
	v->kernel_version = PIOC_API_VERSION;
	v->kind = pd->kind;
	v->dma_max_size = 0;
	v->dma_limit = 0;
	v->dma_used = 0;
	v->irq_type = PIOC_IRQ_NONE;
	v->num_irqs = 0;
	if (pd->kind == PIOC_KIND_ECI) {
		v->caps = PIOC_CAP_ECI;
		v->caps |= pd->win.flags & PIOC_BAR_ECI_COHERENT ? PIOC_CAP_MEM_WB : 0;
		v->num_bars = 1;
		return 0;
	}
	v->caps = PIOC_CAP_PCI | PIOC_CAP_DMA;
#if defined(CONFIG_X86)
	v->caps |= PIOC_CAP_MEM_WC | PIOC_CAP_MEM_WT;
#elif defined(CONFIG_ARM64)
	v->caps |= PIOC_CAP_MEM_WC;
#endif
	v->num_bars = PIOC_PCI_BARS;
	v->irq_type = pd->irq_type;
	v->num_irqs = pd->num_irqs;
	if (pd->num_irqs)
		v->caps |= PIOC_CAP_IRQ;
	v->dma_max_size = pioc_dma_max_size;
	v->dma_limit = pioc_dma_limit;
	v->dma_used = pd->dma_used;
	return 0;
}

static int pioc_window_of(struct pioc_dev *pd, u32 index, struct pioc_window *w)
{
	if (pd->kind == PIOC_KIND_ECI) {
		if (index != 0)
			return -EINVAL;
		*w = pd->win;
		return 0;
	}
	return pioc_pci_bar(pd, index, w);
}

static long pioc_ioc_bar_info(struct pioc_dev *pd, struct pioc_bar_info *b)
{
	struct pioc_window w;
	int ret;

	if (b->flags || b->reserved0 ||
	    pioc_check_reserved(b->reserved, ARRAY_SIZE(b->reserved)))
		return -EINVAL;
	ret = pioc_window_of(pd, b->index, &w);
	if (ret)
		return ret;
	b->flags = w.flags;
	b->size = w.size;
	b->phys = w.base;
	return 0;
}

/* The memory type granted for @want on window @w. */
static int pioc_grant(struct pioc_dev *pd, const struct pioc_window *w, u32 target,
		      u32 want, u32 *granted)
{
	if (want >= PIOC_MEM_COUNT)
		return -EINVAL;
	if (target == PIOC_MAP_DMA) {
		/* Coherent DMA memory is normal cacheable memory where the
		 * device snoops; elsewhere the DMA API picks the attribute. */
		*granted = pioc_dma_coherent(pioc_dma_dev(pd)) ? PIOC_MEM_WB : PIOC_MEM_UC;
		return 0;
	}
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
		*granted = PIOC_MEM_UC;
		return 0;
	case PIOC_MEM_WC:
#if defined(CONFIG_X86) || defined(CONFIG_ARM64)
		*granted = PIOC_MEM_WC;
#else
		*granted = PIOC_MEM_UC;
#endif
		return 0;
	case PIOC_MEM_WT:
#if defined(CONFIG_X86)
		*granted = PIOC_MEM_WT;
#else
		*granted = PIOC_MEM_UC;
#endif
		return 0;
	default:
		/* A cacheable mapping of a BAR would serve stale data. */
		return -EOPNOTSUPP;
	}
}

static long pioc_ioc_map(struct pioc_file *pf, struct pioc_map *mp)
{
	struct pioc_dev *pd = pf->pd;
	struct pioc_mapent *m;
	struct pioc_window w = {};
	struct pioc_dma *d;
	int ret;

	if (mp->flags || mp->reserved0 || mp->handle || mp->granted ||
	    mp->size || mp->offset ||
	    pioc_check_reserved(mp->reserved, ARRAY_SIZE(mp->reserved)))
		return -EINVAL;
	if (mp->mem_type >= PIOC_MEM_COUNT)
		return -EINVAL;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->target = mp->target;
	m->index = mp->index;

	mutex_lock(&pf->lock);
	switch (mp->target) {
	case PIOC_MAP_BAR:
		ret = pioc_window_of(pd, mp->index, &w);
		if (ret)
			goto err_unlock;
		if (!(w.flags & (PIOC_BAR_MEM | PIOC_BAR_ECI_COHERENT | PIOC_BAR_ECI_IO)) ||
		    !w.size) {
			ret = -ENXIO;
			goto err_unlock;
		}
		/* A mapping is whole pages: a BAR smaller than a page or not
		 * page aligned would expose its neighbours. */
		if (!PAGE_ALIGNED(w.base) || !PAGE_ALIGNED(w.size)) {
			ret = -EINVAL;
			goto err_unlock;
		}
		m->phys = w.base;
		m->size = w.size;
		break;
	case PIOC_MAP_DMA:
		if (pd->kind != PIOC_KIND_PCI) {
			ret = -EINVAL;
			goto err_unlock;
		}
		d = idr_find(&pf->dmas, mp->index);
		if (!d) {
			ret = -ENOENT;
			goto err_unlock;
		}
		m->size = d->size;
		break;
	default:
		ret = -EINVAL;
		goto err_unlock;
	}
	ret = pioc_grant(pd, &w, mp->target, mp->mem_type, &m->mem_type);
	if (ret)
		goto err_unlock;
	ret = idr_alloc(&pf->maps, m, 1, PIOC_MMAP_MAX_HANDLE + 1, GFP_KERNEL);
	if (ret < 0)
		goto err_unlock;
	mutex_unlock(&pf->lock);

	mp->handle = ret;
	mp->granted = m->mem_type;
	mp->size = m->size;
	mp->offset = (u64)ret << PIOC_MMAP_SHIFT;
	return 0;

err_unlock:
	mutex_unlock(&pf->lock);
	kfree(m);
	return ret;
}

/* Zaps the mappings of handle @h and forgets it. Caller holds pf->lock. */
static void pioc_unmap_locked(struct pioc_file *pf, u32 h)
{
	struct pioc_mapent *m = idr_remove(&pf->maps, h);

	unmap_mapping_range(&pf->mapping, (loff_t)h << PIOC_MMAP_SHIFT,
			    1ULL << PIOC_MMAP_SHIFT, 1);
	kfree(m);
}

static long pioc_ioc_unmap(struct pioc_file *pf, struct pioc_unmap *u)
{
	long ret = 0;

	if (u->flags || u->reserved0)
		return -EINVAL;
	mutex_lock(&pf->lock);
	if (u->handle > PIOC_MMAP_MAX_HANDLE || !idr_find(&pf->maps, u->handle))
		ret = -ENOENT;
	else
		pioc_unmap_locked(pf, u->handle);
	mutex_unlock(&pf->lock);
	return ret;
}

static long pioc_ioc_dma_alloc(struct pioc_file *pf, struct pioc_dma_alloc *a)
{
	struct pioc_dev *pd = pf->pd;
	struct pioc_dma *d;
	u64 size;
	int ret;

	if (a->flags || a->bus_addr || a->handle || a->numa_node ||
	    pioc_check_reserved(a->reserved, ARRAY_SIZE(a->reserved)))
		return -EINVAL;
	if (pd->kind != PIOC_KIND_PCI)
		return -EOPNOTSUPP;
	if (!a->size)
		return -EINVAL;
	if (a->size > pioc_dma_max_size)
		return -E2BIG;
	size = PAGE_ALIGN(a->size);

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;

	mutex_lock(&pd->lock);
	if (pd->gone) {
		ret = -ENODEV;
		goto err_unlock;
	}
	if (pd->dma_used + size > pioc_dma_limit) {
		dev_dbg(&pd->dev, "DMA limit: %llu + %llu > %lu bytes\n",
			pd->dma_used, size, pioc_dma_limit);
		ret = -ENOSPC;
		goto err_unlock;
	}
	/* dma-direct allocates on dev_to_node(): the device's NUMA node. */
	d->cpu = dma_alloc_coherent(pioc_dma_dev(pd), size, &d->bus, GFP_KERNEL);
	if (!d->cpu) {
		dev_err(&pd->dev, "cannot allocate %llu bytes of DMA memory\n", size);
		ret = -ENOMEM;
		goto err_unlock;
	}
	d->size = size;
	mutex_lock(&pf->lock);
	ret = idr_alloc(&pf->dmas, d, 1, INT_MAX, GFP_KERNEL);
	mutex_unlock(&pf->lock);
	if (ret < 0) {
		dev_err(&pd->dev, "cannot allocate a DMA handle: %d\n", ret);
		goto err_free;
	}
	pd->dma_used += size;
	mutex_unlock(&pd->lock);

	a->handle = ret;
	a->size = size;
	a->bus_addr = d->bus;
	a->numa_node = dev_to_node(pioc_dma_dev(pd));
	return 0;

err_free:
	dma_free_coherent(pioc_dma_dev(pd), size, d->cpu, d->bus);
err_unlock:
	mutex_unlock(&pd->lock);
	kfree(d);
	return ret;
}

static long pioc_ioc_dma_free(struct pioc_file *pf, struct pioc_dma_free *f)
{
	struct pioc_dev *pd = pf->pd;
	struct pioc_mapent *m;
	struct pioc_dma *d;
	long ret = 0;
	int id;

	if (f->flags || f->reserved0)
		return -EINVAL;
	if (pd->kind != PIOC_KIND_PCI)
		return -EOPNOTSUPP;
	mutex_lock(&pd->lock);
	mutex_lock(&pf->lock);
	d = f->handle <= INT_MAX ? idr_find(&pf->dmas, f->handle) : NULL;
	if (!d) {
		ret = -ENOENT;
		goto out;
	}
	/* Revoke before freeing: no user page may outlive the memory. */
	idr_for_each_entry(&pf->maps, m, id)
		if (m->target == PIOC_MAP_DMA && m->index == f->handle)
			pioc_unmap_locked(pf, id);
	idr_remove(&pf->dmas, f->handle);
	pioc_dma_release(pd, d);
out:
	mutex_unlock(&pf->lock);
	mutex_unlock(&pd->lock);
	return ret;
}

union pioc_ioc_arg {
	struct {
		__u32 argsz;
		__u32 flags;
	} hdr;
	struct pioc_version version;
	struct pioc_dev_info dev_info;
	struct pioc_bar_info bar_info;
	struct pioc_map map;
	struct pioc_unmap unmap;
	struct pioc_dma_alloc dma_alloc;
	struct pioc_dma_free dma_free;
	struct pioc_irq_set irq_set;
};

static long pioc_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct pioc_file *pf = filp->private_data;
	struct pioc_dev *pd = pf->pd;
	void __user *uarg = (void __user *)arg;
	union pioc_ioc_arg a;
	unsigned int size = _IOC_SIZE(cmd);
	long ret;

	switch (cmd) {
	case PIOC_IOC_VERSION:
	case PIOC_IOC_DEV_INFO:
	case PIOC_IOC_BAR_INFO:
	case PIOC_IOC_MAP:
	case PIOC_IOC_UNMAP:
	case PIOC_IOC_DMA_ALLOC:
	case PIOC_IOC_DMA_FREE:
	case PIOC_IOC_IRQ_SET:
		break;
	default:
		return -ENOTTY;
	}
	BUILD_BUG_ON(sizeof(a) > 128);
	if (copy_from_user(&a, uarg, size))
		return -EFAULT;
	if (a.hdr.argsz != size)
		return -EINVAL;

	mutex_lock(&pd->lock);
	ret = pd->gone ? -ENODEV : 0;
	mutex_unlock(&pd->lock);
	if (ret)
		return ret;

	switch (cmd) {
	case PIOC_IOC_VERSION:
		if (a.version.flags)
			return -EINVAL;
		mutex_lock(&pd->lock);
		ret = pioc_ioc_version(pd, &a.version);
		mutex_unlock(&pd->lock);
		break;
	case PIOC_IOC_DEV_INFO:
		if (a.dev_info.flags || a.dev_info.reserved0 ||
		    pioc_check_reserved(a.dev_info.reserved, ARRAY_SIZE(a.dev_info.reserved)))
			return -EINVAL;
		memset(&a.dev_info, 0, sizeof(a.dev_info));
		a.dev_info.argsz = size;
		a.dev_info.numa_node = NUMA_NO_NODE;
		ret = pd->kind == PIOC_KIND_PCI ? pioc_pci_dev_info(pd, &a.dev_info) : 0;
		break;
	case PIOC_IOC_BAR_INFO:
		ret = pioc_ioc_bar_info(pd, &a.bar_info);
		break;
	case PIOC_IOC_MAP:
		ret = pioc_ioc_map(pf, &a.map);
		break;
	case PIOC_IOC_UNMAP:
		ret = pioc_ioc_unmap(pf, &a.unmap);
		break;
	case PIOC_IOC_DMA_ALLOC:
		ret = pioc_ioc_dma_alloc(pf, &a.dma_alloc);
		break;
	case PIOC_IOC_DMA_FREE:
		ret = pioc_ioc_dma_free(pf, &a.dma_free);
		break;
	case PIOC_IOC_IRQ_SET:
		if (pd->kind != PIOC_KIND_PCI)
			return -EOPNOTSUPP;
		ret = pioc_irq_set(pf, &a.irq_set);
		break;
	}
	if (ret)
		return ret;
	if (copy_to_user(uarg, &a, size))
		return -EFAULT;
	return 0;
}

/* ----------------------------------------------------------------- mmap */

static vm_fault_t pioc_vm_fault(struct vm_fault *vmf)
{
	/* Every page is mapped at mmap time: a fault means revoked. */
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct pioc_vm_ops = {
	.fault = pioc_vm_fault,
};

static pgprot_t pioc_pgprot(pgprot_t prot, u32 mem_type, u32 win_flags)
{
	if (win_flags & PIOC_BAR_ECI_COHERENT)
		return prot;	/* normal cacheable memory */
	if (win_flags & PIOC_BAR_ECI_IO)
		return pgprot_device(prot);
	switch (mem_type) {
	case PIOC_MEM_WC:
		return pgprot_writecombine(prot);
	case PIOC_MEM_WT:
		return pgprot_writethrough(prot);
	default:
		return pgprot_noncached(prot);
	}
}

static int pioc_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct pioc_file *pf = filp->private_data;
	struct pioc_dev *pd = pf->pd;
	unsigned long pages = vma_pages(vma);
	unsigned long handle = vma->vm_pgoff >> PIOC_PGOFF_SHIFT;
	unsigned long first = vma->vm_pgoff & PIOC_PGOFF_MASK;
	unsigned long pgoff = vma->vm_pgoff;
	struct pioc_window w;
	struct pioc_mapent *m;
	struct pioc_dma *d;
	int ret;

	/* Shared only: a private (copy-on-write) mapping of MMIO is
	 * meaningless. Never executable. */
	if (!(vma->vm_flags & VM_SHARED) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;

	mutex_lock(&pd->lock);
	mutex_lock(&pf->lock);
	if (pd->gone) {
		ret = -ENODEV;
		goto out;
	}
	m = handle <= PIOC_MMAP_MAX_HANDLE ? idr_find(&pf->maps, handle) : NULL;
	if (!m) {
		ret = -EINVAL;
		goto out;
	}
	if (first >= m->size >> PAGE_SHIFT || pages > (m->size >> PAGE_SHIFT) - first) {
		ret = -ENXIO;
		goto out;
	}

	pioc_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	pioc_vm_flags_clear(vma, VM_MAYEXEC);
	vma->vm_ops = &pioc_vm_ops;

	if (m->target == PIOC_MAP_DMA) {
		d = idr_find(&pf->dmas, m->index);
		if (!d) {
			ret = -ENOENT;
			goto out;
		}
		/* dma_mmap_coherent() reads the offset into the buffer from
		 * vm_pgoff; the address_space needs the handle offset back
		 * to find this VMA on revocation. */
		vma->vm_pgoff = first;
		ret = dma_mmap_coherent(pioc_dma_dev(pd), vma, d->cpu, d->bus, d->size);
		vma->vm_pgoff = pgoff;
		goto out;
	}

	ret = pioc_window_of(pd, m->index, &w);
	if (ret)
		goto out;
	/*
	 * Known window: the VMA joins pf->mapping only after we return, so a
	 * removal that runs between our unlock and that moment cannot zap
	 * it. The device is then gone and the stale mapping reaches an
	 * unclaimed bus range, as with any PFN map made during hot removal.
	 */
	vma->vm_page_prot = pioc_pgprot(vma->vm_page_prot, m->mem_type, w.flags);
	/* One remap of the whole VMA: x86 PAT refuses partial ones. */
	ret = io_remap_pfn_range(vma, vma->vm_start, PHYS_PFN(m->phys) + first,
				 pages << PAGE_SHIFT, vma->vm_page_prot);
out:
	mutex_unlock(&pf->lock);
	mutex_unlock(&pd->lock);
	return ret;
}

static const struct file_operations pioc_fops = {
	.owner = THIS_MODULE,
	.open = pioc_open,
	.release = pioc_release,
	.unlocked_ioctl = pioc_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pioc_mmap,
};

/* ---------------------------------------------------------------- module */

static char *pioc_devnode(PIOC_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	/* root only until udev applies 99-pioc.rules (group pioc, 0660) */
	if (mode)
		*mode = 0600;
	return kasprintf(GFP_KERNEL, PIOC_NAME "/%s", dev_name(dev));
}

static int __init pioc_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&pioc_devt, 0, PIOC_MAX_MINORS, PIOC_NAME);
	if (ret) {
		pr_err("cannot allocate character device numbers: %d\n", ret);
		return ret;
	}
	pioc_class = pioc_class_create(PIOC_NAME);
	if (IS_ERR(pioc_class)) {
		ret = PTR_ERR(pioc_class);
		pr_err("cannot create device class: %d\n", ret);
		goto err_chrdev;
	}
	pioc_class->devnode = pioc_devnode;

	ret = pioc_eci_init();
	if (ret)
		goto err_class;
	ret = pioc_pci_register();
	if (ret)
		goto err_eci;
	pr_info("loaded, API version %d\n", PIOC_API_VERSION);
	return 0;

err_eci:
	pioc_eci_exit();
err_class:
	class_destroy(pioc_class);
err_chrdev:
	unregister_chrdev_region(pioc_devt, PIOC_MAX_MINORS);
	return ret;
}

static void __exit pioc_exit(void)
{
	pioc_pci_unregister();
	pioc_eci_exit();
	class_destroy(pioc_class);
	unregister_chrdev_region(pioc_devt, PIOC_MAX_MINORS);
}

module_init(pioc_init);
module_exit(pioc_exit);

MODULE_DESCRIPTION("pioc: low-latency PIO, DMA and ECI access to FPGAs");
MODULE_AUTHOR("pioc developers");
MODULE_LICENSE("GPL");
