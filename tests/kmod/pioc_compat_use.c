// SPDX-License-Identifier: GPL-2.0
/*
 * Uses every helper of kmod/pioc_compat.h the way the driver does, so that
 * scripts/kmod-matrix proves on each kernel that they compile warning-free
 * and that modpost finds every symbol they need exported. Built, never
 * loaded.
 */
#include <linux/module.h>

#include "pioc_compat.h"

static char *use_devnode(PIOC_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	return kasprintf(GFP_KERNEL, "pioc/%s", dev_name(dev));
}

static vm_fault_t use_huge_fault(struct vm_fault *vmf, PIOC_HUGE_FAULT_ARG arg)
{
	unsigned int order = pioc_huge_fault_order(arg);
	unsigned long pfn = vmf->pgoff & ~((1UL << order) - 1);

	return pioc_vmf_insert_pfn_order(vmf, pfn, order, vmf->flags & FAULT_FLAG_WRITE);
}

static vm_fault_t use_fault(struct vm_fault *vmf)
{
	return pioc_vmf_insert_pfn_order(vmf, vmf->pgoff, 0, false);
}

static const struct vm_operations_struct use_vm_ops = {
	.fault = use_fault,
	.huge_fault = use_huge_fault,
};

static int use_mmap(struct file *filp, struct vm_area_struct *vma)
{
	pioc_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	pioc_vm_flags_clear(vma, VM_MAYEXEC);
	vma->vm_ops = &use_vm_ops;
	return 0;
}

static const struct file_operations use_fops = {
	.owner = THIS_MODULE,
	.mmap = use_mmap,
};

static int use_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int n = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX | PCI_IRQ_MSI | PCI_IRQ_INTX);

	if (n < 0)
		return n;
	dev_info(&pdev->dev, "coherent DMA: %d, fops %p\n",
		 pioc_dma_coherent(&pdev->dev), &use_fops);
	pci_free_irq_vectors(pdev);
	return 0;
}

static struct pci_driver use_driver = {
	.name = "pioc_compat_use",
	.probe = use_probe,
};

static struct class *use_class;

static int __init use_init(void)
{
	use_class = pioc_class_create("pioc_compat_use");
	if (IS_ERR(use_class))
		return PTR_ERR(use_class);
	use_class->devnode = use_devnode;
	return pci_register_driver(&use_driver);
}

static void __exit use_exit(void)
{
	pci_unregister_driver(&use_driver);
	class_destroy(use_class);
}

/* Referenced so that it is compiled and its symbols reach modpost. */
void pioc_compat_use_signal(struct eventfd_ctx *ctx);
void pioc_compat_use_signal(struct eventfd_ctx *ctx)
{
	pioc_eventfd_signal(ctx);
}
EXPORT_SYMBOL_GPL(pioc_compat_use_signal);

module_init(use_init);
module_exit(use_exit);
MODULE_DESCRIPTION("pioc: every compat helper, for the build matrix");
MODULE_LICENSE("GPL");
