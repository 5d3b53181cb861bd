// SPDX-License-Identifier: GPL-2.0
/*
 * pioc: the module, its device class and character device numbers.
 *
 * pioc gives user space the lowest-latency path to an FPGA: BARs and ECI
 * windows mapped with a chosen memory type, DMA buffers and interrupts on
 * eventfds. Documentation/kmod.md has the security model and the lifetime
 * rules this code keeps; pioc_file.c, pioc_map.c and pioc_dma.c hold them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

#include "pioc_drv.h"

unsigned long pioc_dma_max_size = 4UL << 20;
module_param_named(dma_max_size, pioc_dma_max_size, ulong, 0444);
MODULE_PARM_DESC(dma_max_size, "Largest single DMA buffer in bytes (default 4 MiB)");

unsigned long pioc_dma_limit = 64UL << 20;
module_param_named(dma_limit, pioc_dma_limit, ulong, 0444);
MODULE_PARM_DESC(dma_limit, "Most DMA memory one device may hold, in bytes (default 64 MiB)");

bool pioc_allow_unsafe_noiommu;
module_param_named(allow_unsafe_noiommu, pioc_allow_unsafe_noiommu, bool, 0444);
MODULE_PARM_DESC(allow_unsafe_noiommu,
		 "Let users without CAP_SYS_RAWIO use PCI functions whose DMA no IOMMU confines: they can then read and write all memory. Taints the kernel. (default: off)");

struct class *pioc_class;
static dev_t pioc_devt;
static DEFINE_IDA(pioc_minors);

static void pioc_dev_release(struct device *dev)
{
	struct pioc_dev *pd = container_of(dev, struct pioc_dev, dev);

	if (pd->minor >= 0)
		ida_free(&pioc_minors, pd->minor);
	pci_dev_put(pd->pdev);
	kfree(pd->irqs);
	kfree(pd);
}

void pioc_dev_init(struct pioc_dev *pd, u32 kind)
{
	pd->kind = kind;
	pd->minor = -1;
	mutex_init(&pd->lock);
	INIT_LIST_HEAD(&pd->files);
	INIT_LIST_HEAD(&pd->dmas);
	INIT_LIST_HEAD(&pd->graveyard);
	device_initialize(&pd->dev);
	pd->dev.class = pioc_class;
	pd->dev.release = pioc_dev_release;
}

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

/* No new opens after this; files already open keep their reference. */
void pioc_dev_unregister(struct pioc_dev *pd)
{
	cdev_device_del(&pd->cdev, &pd->dev);
}

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

	if (pioc_allow_unsafe_noiommu) {
		pr_warn("allow_unsafe_noiommu: users of pioc devices without an IOMMU can reach all memory; tainting the kernel\n");
		add_taint(TAINT_USER, LOCKDEP_STILL_OK);
	}
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
