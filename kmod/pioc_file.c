// SPDX-License-Identifier: GPL-2.0
/*
 * pioc: device files. open() checks who may use the device, release()
 * stops what the file started, ioctl() copies arguments vfio-style and
 * runs every command under the device lock after checking the device is
 * still there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "pioc_drv.h"

static int pioc_open(struct inode *inode, struct file *filp)
{
	struct pioc_dev *pd = container_of(inode->i_cdev, struct pioc_dev, cdev);
	struct pioc_file *pf;
	int ret;

	pf = kzalloc(sizeof(*pf), GFP_KERNEL_ACCOUNT);
	if (!pf)
		return -ENOMEM;
	pf->pd = pd;
	xa_init_flags(&pf->maps, XA_FLAGS_ALLOC1);
	xa_init_flags(&pf->dmas, XA_FLAGS_ALLOC1);
	address_space_init_once(&pf->mapping);
	pf->mapping.host = inode;
	pf->mapping.a_ops = inode->i_mapping->a_ops;

	mutex_lock(&pd->lock);
	if (pd->gone) {
		ret = -ENODEV;
		goto err_unlock;
	}
	if (pd->kind == PIOC_KIND_PCI) {
		ret = pioc_pci_open_locked(pd);
		if (ret)
			goto err_unlock;
	}
	get_device(&pd->dev);
	pd->users++;
	list_add(&pf->node, &pd->files);
	mutex_unlock(&pd->lock);

	filp->f_mapping = &pf->mapping;
	filp->private_data = pf;
	return nonseekable_open(inode, filp);

err_unlock:
	mutex_unlock(&pd->lock);
	kfree(pf);
	return ret;
}

/*
 * Zaps every page mapped from @pf: later faults find no entry or a device
 * that is gone, and get SIGBUS.
 */
static void pioc_file_zap(struct pioc_file *pf)
{
	unmap_mapping_range(&pf->mapping, 0, 0, 1);
}

/*
 * The device is going away: mark it and zap every mapping of every file,
 * so that no user access reaches it from here on (faults see it gone and
 * get SIGBUS). Buffers keep their memory until pioc_dev_revoke_locked().
 */
void pioc_dev_zap_locked(struct pioc_dev *pd)
{
	struct pioc_file *pf;

	pd->gone = true;
	list_for_each_entry(pf, &pd->files, node)
		pioc_file_zap(pf);
}

/*
 * The device is going away: zap every mapping and return every buffer's
 * memory. The caller has stopped the device's DMA.
 */
void pioc_dev_revoke_locked(struct pioc_dev *pd)
{
	pioc_dev_zap_locked(pd);
	pioc_dma_release_all_locked(pd);
}

static int pioc_release(struct inode *inode, struct file *filp)
{
	struct pioc_file *pf = filp->private_data;
	struct pioc_dev *pd = pf->pd;
	struct pioc_mapent *m;
	struct pioc_dma *d;
	unsigned long id;

	/* Every VMA holds the file, so none is left: nothing to zap. */
	mutex_lock(&pd->lock);
	list_del(&pf->node);
	if (pd->kind == PIOC_KIND_PCI)
		pioc_irq_release_file_locked(pf);
	xa_for_each(&pf->maps, id, m)
		pioc_map_release_locked(pf, m);
	xa_destroy(&pf->maps);
	xa_for_each(&pf->dmas, id, d)
		pioc_dma_put_locked(d);
	xa_destroy(&pf->dmas);
	if (--pd->users == 0 && pd->kind == PIOC_KIND_PCI && !pd->gone)
		pioc_pci_last_close_locked(pd);
	mutex_unlock(&pd->lock);

	put_device(&pd->dev);
	kfree(pf);
	return 0;
}

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
	if (v->flags || v->reserved0 ||
	    pioc_check_reserved(v->reserved, ARRAY_SIZE(v->reserved)))
		return -EINVAL;
	if (v->user_version != PIOC_API_VERSION)
		return -EPROTO;
	v->kernel_version = PIOC_API_VERSION;
	v->kind = pd->kind;
	v->dma_max_size = 0;
	v->dma_limit = 0;
	v->dma_used = 0;
	v->dma_mask_bits = 0;
	v->irq_type = PIOC_IRQ_NONE;
	v->num_irqs = 0;
	if (pd->kind == PIOC_KIND_ECI) {
		v->caps = PIOC_CAP_ECI;
		v->caps |= pd->win.flags & PIOC_BAR_ECI_COHERENT ? PIOC_CAP_MEM_WB : 0;
		v->num_bars = 1;
		return 0;
	}
	v->caps = PIOC_CAP_PCI | PIOC_CAP_DMA;
	v->caps |= pd->iommu ? PIOC_CAP_IOMMU : PIOC_CAP_NOIOMMU;
	v->caps |= pd->iommu_strict ? PIOC_CAP_IOMMU_STRICT : 0;
#if defined(CONFIG_X86)
	if (pioc_pat_enabled())
		v->caps |= PIOC_CAP_MEM_WC;
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
	v->dma_mask_bits = pd->dma_bits;
	return 0;
}

static long pioc_ioc_dev_info(struct pioc_dev *pd, struct pioc_dev_info *di)
{
	if (di->flags || di->reserved0 ||
	    pioc_check_reserved(di->reserved, ARRAY_SIZE(di->reserved)))
		return -EINVAL;
	memset(di, 0, sizeof(*di));	/* argsz is set again on the way out */
	di->numa_node = NUMA_NO_NODE;
	return pd->kind == PIOC_KIND_PCI ? pioc_pci_dev_info(pd, di) : 0;
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

/* The version-2 size of each command's struct: the least argsz accepted. */
static const unsigned int pioc_ioc_size[] = {
	[_IOC_NR(PIOC_IOC_VERSION)] = sizeof(struct pioc_version),
	[_IOC_NR(PIOC_IOC_DEV_INFO)] = sizeof(struct pioc_dev_info),
	[_IOC_NR(PIOC_IOC_BAR_INFO)] = sizeof(struct pioc_bar_info),
	[_IOC_NR(PIOC_IOC_MAP)] = sizeof(struct pioc_map),
	[_IOC_NR(PIOC_IOC_UNMAP)] = sizeof(struct pioc_unmap),
	[_IOC_NR(PIOC_IOC_DMA_ALLOC)] = sizeof(struct pioc_dma_alloc),
	[_IOC_NR(PIOC_IOC_DMA_FREE)] = sizeof(struct pioc_dma_free),
	[_IOC_NR(PIOC_IOC_IRQ_SET)] = sizeof(struct pioc_irq_set),
};

static long pioc_ioctl_locked(struct pioc_file *pf, unsigned int cmd, union pioc_ioc_arg *a)
{
	struct pioc_dev *pd = pf->pd;

	switch (cmd) {
	case PIOC_IOC_VERSION:
		return pioc_ioc_version(pd, &a->version);
	case PIOC_IOC_DEV_INFO:
		return pioc_ioc_dev_info(pd, &a->dev_info);
	case PIOC_IOC_BAR_INFO:
		return pioc_ioc_bar_info(pd, &a->bar_info);
	case PIOC_IOC_MAP:
		return pioc_ioc_map(pf, &a->map);
	case PIOC_IOC_UNMAP:
		return pioc_ioc_unmap(pf, &a->unmap);
	case PIOC_IOC_DMA_ALLOC:
		return pioc_ioc_dma_alloc(pf, &a->dma_alloc);
	case PIOC_IOC_DMA_FREE:
		return pioc_ioc_dma_free(pf, &a->dma_free);
	case PIOC_IOC_IRQ_SET:
		return pd->kind == PIOC_KIND_PCI ? pioc_irq_set(pf, &a->irq_set) : -EOPNOTSUPP;
	}
	return -ENOTTY;
}

static long pioc_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct pioc_file *pf = filp->private_data;
	struct pioc_dev *pd = pf->pd;
	void __user *uarg = (void __user *)arg;
	union pioc_ioc_arg a;
	unsigned int nr = _IOC_NR(cmd), ksize;
	u32 argsz;
	long ret;

	if (_IOC_TYPE(cmd) != PIOC_IOC_MAGIC || _IOC_DIR(cmd) != _IOC_NONE ||
	    _IOC_SIZE(cmd) || nr >= ARRAY_SIZE(pioc_ioc_size))
		return -ENOTTY;
	nr = array_index_nospec(nr, ARRAY_SIZE(pioc_ioc_size));
	ksize = pioc_ioc_size[nr];
	BUILD_BUG_ON(sizeof(a) > 128);

	if (get_user(argsz, (u32 __user *)uarg))
		return -EFAULT;
	if (argsz < ksize || argsz > PAGE_SIZE)
		return -EINVAL;
	/*
	 * Zero-fills nothing here (argsz >= ksize); a larger struct from a
	 * newer caller is fine as long as what we do not know is zero.
	 */
	ret = copy_struct_from_user(&a, ksize, uarg, argsz);
	if (ret)
		return ret == -E2BIG ? -EINVAL : ret;

	mutex_lock(&pd->lock);
	ret = pd->gone ? -ENODEV : pioc_ioctl_locked(pf, cmd, &a);
	mutex_unlock(&pd->lock);
	if (ret)
		return ret;
	a.hdr.argsz = argsz;
	if (copy_to_user(uarg, &a, ksize))
		return -EFAULT;
	return 0;
}

const struct file_operations pioc_fops = {
	.owner = THIS_MODULE,
	.open = pioc_open,
	.release = pioc_release,
	.unlocked_ioctl = pioc_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = pioc_mmap,
};
