// SPDX-License-Identifier: GPL-2.0
/*
 * pioc: the PCI driver. Binds the XDMA-based functions of our FPGA images
 * (and anything else through new_id), exposes each as /dev/pioc/<BDF> and
 * delivers its interrupts to eventfds.
 *
 * Who may use a function (Documentation/kmod.md, "Security model"): with an
 * IOMMU translating its DMA, anyone who may open the node (group pioc); the
 * device reaches only the buffers allocated for it. Without one, the device
 * can read and write all memory, so opening needs CAP_SYS_RAWIO (or the
 * tainting allow_unsafe_noiommu parameter) and a kernel not locked down.
 * Bus mastering is on only while a file is open; the last close and
 * removal turn it off, flush, and reset the function before any buffer is
 * returned.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/eventfd.h>
#include <linux/interrupt.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/security.h>
#include <linux/slab.h>

#include "pioc_drv.h"

static unsigned int pioc_dma_bits;
module_param_named(dma_bits, pioc_dma_bits, uint, 0444);
MODULE_PARM_DESC(dma_bits, "DMA address bits for every function (32..64; default 0: 64 for the XDMA IDs below, 32 for functions bound with new_id)");

#define PIOC_XDMA(dev) { PCI_DEVICE(PCI_VENDOR_ID_XILINX, (dev)) }

/*
 * The XDMA IP's default device IDs (Gen1..Gen4, x1..x16), which our images
 * keep. Anything else binds through /sys/bus/pci/drivers/pioc/new_id.
 */
static const struct pci_device_id pioc_pci_ids[] = {
	PIOC_XDMA(0x9011), PIOC_XDMA(0x9012), PIOC_XDMA(0x9014), PIOC_XDMA(0x9018),
	PIOC_XDMA(0x901f), PIOC_XDMA(0x9021), PIOC_XDMA(0x9022), PIOC_XDMA(0x9024),
	PIOC_XDMA(0x9028), PIOC_XDMA(0x902f), PIOC_XDMA(0x9031), PIOC_XDMA(0x9032),
	PIOC_XDMA(0x9034), PIOC_XDMA(0x9038), PIOC_XDMA(0x903f), PIOC_XDMA(0x9041),
	PIOC_XDMA(0x9042), PIOC_XDMA(0x9044), PIOC_XDMA(0x9048), PIOC_XDMA(0x904f),
	{ }
};
MODULE_DEVICE_TABLE(pci, pioc_pci_ids);

int pioc_pci_bar(struct pioc_dev *pd, u32 index, struct pioc_window *w)
{
	struct pci_dev *pdev = pd->pdev;
	unsigned long f;

	if (index >= PIOC_PCI_BARS)
		return -EINVAL;
	index = array_index_nospec(index, PIOC_PCI_BARS);
	memset(w, 0, sizeof(*w));
	f = pci_resource_flags(pdev, index);
	if (!pci_resource_len(pdev, index))
		return 0;
	w->base = pci_resource_start(pdev, index);
	w->size = pci_resource_len(pdev, index);
	if (f & IORESOURCE_MEM)
		w->flags |= PIOC_BAR_MEM;
	if (f & IORESOURCE_IO)
		w->flags |= PIOC_BAR_IO;
	if (f & IORESOURCE_MEM_64)
		w->flags |= PIOC_BAR_64;
	if (f & IORESOURCE_PREFETCH)
		w->flags |= PIOC_BAR_PREFETCH;
	return 0;
}

static u8 pioc_speed_gen(u16 v)
{
	/* PCI_EXP_LNKSTA_CLS / PCI_EXP_LNKCAP_SLS: 1 = 2.5 GT/s (Gen1) ... */
	return v & PCI_EXP_LNKSTA_CLS;
}

long pioc_pci_dev_info(struct pioc_dev *pd, struct pioc_dev_info *di)
{
	struct pci_dev *pdev = pd->pdev;
	u16 lnksta = 0;
	u32 lnkcap = 0;

	di->vendor = pdev->vendor;
	di->device = pdev->device;
	di->subsys_vendor = pdev->subsystem_vendor;
	di->subsys_device = pdev->subsystem_device;
	di->domain = pci_domain_nr(pdev->bus);
	di->bus = pdev->bus->number;
	di->devfn = pdev->devfn;
	di->numa_node = dev_to_node(&pdev->dev);
	if (pci_is_pcie(pdev)) {
		pcie_capability_read_word(pdev, PCI_EXP_LNKSTA, &lnksta);
		pcie_capability_read_dword(pdev, PCI_EXP_LNKCAP, &lnkcap);
		di->link_speed = pioc_speed_gen(lnksta);
		di->link_width = (lnksta & PCI_EXP_LNKSTA_NLW) >> PCI_EXP_LNKSTA_NLW_SHIFT;
		di->max_link_speed = pioc_speed_gen(lnkcap & PCI_EXP_LNKCAP_SLS);
		di->max_link_width = (lnkcap & PCI_EXP_LNKCAP_MLW) >> 4;
		di->mps = pcie_get_mps(pdev);
		di->mrrs = pcie_get_readrq(pdev);
	}
	return 0;
}

/* ----------------------------------------------------------- interrupts */

static irqreturn_t pioc_irq_handler(int irq, void *arg)
{
	struct pioc_irq *vi = arg;
	struct pioc_dev *pd = vi->pd;

	/*
	 * A shared INTx line: only claim it if our function asserted it,
	 * and mask it until user space has acknowledged the device.
	 */
	if (pd->irq_type == PIOC_IRQ_INTX && !pci_check_and_mask_intx(pd->pdev))
		return IRQ_NONE;

	spin_lock(&vi->lock);
	vi->count++;
	if (vi->trigger)
		pioc_eventfd_signal(vi->trigger);
	spin_unlock(&vi->lock);
	return IRQ_HANDLED;
}

/* Detaches the eventfd of @vi, if any. */
static void pioc_irq_detach(struct pioc_irq *vi)
{
	struct eventfd_ctx *old;

	spin_lock_irq(&vi->lock);
	old = vi->trigger;
	vi->trigger = NULL;
	vi->owner = NULL;
	spin_unlock_irq(&vi->lock);
	if (old)
		eventfd_ctx_put(old);
}

void pioc_irq_release_file_locked(struct pioc_file *pf)
{
	struct pioc_dev *pd = pf->pd;
	unsigned int i;

	for (i = 0; i < pd->num_irqs; i++)
		if (pd->irqs[i].owner == pf)
			pioc_irq_detach(&pd->irqs[i]);
}

/* Caller holds pd->lock; the eventfd is looked up before (it may sleep). */
static long pioc_irq_set_locked(struct pioc_file *pf, struct pioc_irq_set *is,
				struct eventfd_ctx **ctx)
{
	struct pioc_dev *pd = pf->pd;
	struct pioc_irq *vi;

	if (is->vector >= pd->num_irqs)
		return -EINVAL;
	vi = &pd->irqs[array_index_nospec(is->vector, pd->num_irqs)];
	if (vi->owner && vi->owner != pf)
		return -EBUSY;
	if (is->flags & PIOC_IRQ_FLAG_UNMASK) {
		if (pd->irq_type == PIOC_IRQ_INTX)
			pci_check_and_unmask_intx(pd->pdev);
	} else {
		pioc_irq_detach(vi);
		if (*ctx) {
			spin_lock_irq(&vi->lock);
			vi->trigger = *ctx;
			vi->owner = pf;
			spin_unlock_irq(&vi->lock);
			*ctx = NULL;
		}
	}
	spin_lock_irq(&vi->lock);
	is->count = vi->count;
	spin_unlock_irq(&vi->lock);
	return 0;
}

/* Called with pd->lock held by the ioctl path. */
long pioc_irq_set(struct pioc_file *pf, struct pioc_irq_set *is)
{
	struct eventfd_ctx *ctx = NULL;
	long ret;

	if ((is->flags & ~PIOC_IRQ_FLAG_UNMASK) || is->reserved[0] || is->reserved[1] ||
	    is->count)
		return -EINVAL;
	if (!(is->flags & PIOC_IRQ_FLAG_UNMASK)) {
		if (is->fd < -1)
			return -EINVAL;
		if (is->fd >= 0) {
			ctx = eventfd_ctx_fdget(is->fd);
			if (IS_ERR(ctx))
				return PTR_ERR(ctx);
		}
	}
	ret = pioc_irq_set_locked(pf, is, &ctx);
	if (ctx)
		eventfd_ctx_put(ctx);
	return ret;
}

static void pioc_irqs_free(struct pioc_dev *pd)
{
	unsigned int i;

	for (i = 0; i < pd->num_irqs; i++) {
		struct pioc_irq *vi = &pd->irqs[i];

		if (vi->requested)
			free_irq(vi->irq, vi);
		vi->requested = false;
		pioc_irq_detach(vi);
	}
	pd->num_irqs = 0;
	pci_free_irq_vectors(pd->pdev);
}

/*
 * MSI-X, then MSI, then INTx (if the function can mask it). A function
 * without interrupts is still usable for PIO and DMA.
 */
static int pioc_irqs_init(struct pioc_dev *pd)
{
	struct pci_dev *pdev = pd->pdev;
	unsigned int flags = PCI_IRQ_MSIX | PCI_IRQ_MSI;
	unsigned int i;
	int nvec, ret;

	if (pdev->pin && pci_intx_mask_supported(pdev))
		flags |= PCI_IRQ_INTX;
	nvec = pci_alloc_irq_vectors(pdev, 1, PIOC_MAX_IRQS, flags);
	if (nvec < 0) {
		dev_info(&pdev->dev, "no usable interrupt (%d): PIO and DMA only\n", nvec);
		pd->irq_type = PIOC_IRQ_NONE;
		return 0;
	}
	if (pdev->msix_enabled)
		pd->irq_type = PIOC_IRQ_MSIX;
	else if (pdev->msi_enabled)
		pd->irq_type = PIOC_IRQ_MSI;
	else
		pd->irq_type = PIOC_IRQ_INTX;

	pd->irqs = kcalloc(nvec, sizeof(*pd->irqs), GFP_KERNEL);
	if (!pd->irqs) {
		ret = -ENOMEM;
		goto err_vectors;
	}
	pd->num_irqs = nvec;
	for (i = 0; i < pd->num_irqs; i++) {
		struct pioc_irq *vi = &pd->irqs[i];

		vi->pd = pd;
		vi->index = i;
		spin_lock_init(&vi->lock);
		snprintf(vi->name, sizeof(vi->name), "pioc[%s]:%u", pci_name(pdev), i);
		vi->irq = pci_irq_vector(pdev, i);
		ret = request_irq(vi->irq, pioc_irq_handler,
				  pd->irq_type == PIOC_IRQ_INTX ? IRQF_SHARED : 0,
				  vi->name, vi);
		if (ret) {
			dev_err(&pdev->dev, "cannot request IRQ %d (vector %u): %d\n",
				vi->irq, i, ret);
			goto err_irqs;
		}
		vi->requested = true;
	}
	return 0;

err_irqs:
	pioc_irqs_free(pd);
	return ret;
err_vectors:
	dev_err(&pdev->dev, "cannot allocate interrupt state\n");
	pci_free_irq_vectors(pdev);
	return ret;
}

/* ------------------------------------------------------- use and stop */

/*
 * Is DMA confined by an IOMMU, and is an unmap final at once? A lazily
 * flushed domain (IOMMU_DOMAIN_DMA_FQ, 5.15) keeps stale IOTLB entries for
 * a while, so freed pages wait there as they do without an IOMMU; kernels
 * that cannot say are treated the same way.
 */
static void pioc_iommu_probe(struct pioc_dev *pd)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(&pd->pdev->dev);

	pd->iommu = dom && (dom->type & __IOMMU_DOMAIN_PAGING);
#ifdef IOMMU_DOMAIN_DMA_FQ
	pd->iommu_strict = pd->iommu && dom->type != IOMMU_DOMAIN_DMA_FQ;
#else
	pd->iommu_strict = false;
#endif
}

int pioc_pci_open_locked(struct pioc_dev *pd)
{
	if (!pd->iommu) {
		/* Without an IOMMU the device can write anywhere. */
		if (security_locked_down(LOCKDOWN_PCI_ACCESS))
			return -EPERM;
		if (!pioc_allow_unsafe_noiommu && !capable(CAP_SYS_RAWIO))
			return -EPERM;
	}
	if (!pd->master) {
		pci_set_master(pd->pdev);
		pd->master = true;
	}
	return 0;
}

/*
 * Stops the function's DMA: bus mastering off, then a config read, whose
 * completion cannot pass the function's earlier posted writes, so every
 * write it issued has landed when the read returns. A function that has
 * left the bus is not touched.
 */
static void pioc_stop_dma_locked(struct pioc_dev *pd)
{
	u16 cmd;

	pd->master = false;
	if (!pci_device_is_present(pd->pdev))
		return;
	pci_clear_master(pd->pdev);
	pci_read_config_word(pd->pdev, PCI_COMMAND, &cmd);
}

/* The last file is gone: nobody may start DMA any more. */
void pioc_pci_last_close_locked(struct pioc_dev *pd)
{
	int ret;

	pioc_stop_dma_locked(pd);
	/* A trylock reset: a removal holding the device lock resets itself. */
	ret = pci_try_reset_function(pd->pdev);
	if (ret && ret != -ENOTTY)
		dev_dbg(&pd->pdev->dev, "no reset after last close: %d\n", ret);
	pioc_dma_free_graveyard_locked(pd);
}

/* ---------------------------------------------------------------- probe */

/*
 * The DMA address bits: the parameter, else 64 for the XDMA IDs (the IP
 * drives 64-bit descriptor and buffer addresses, PG195), else 32, which
 * every PCI function can do. (Not driver_data: new_id accepts only values
 * the static table already has.)
 */
static int pioc_dma_mask(struct pioc_dev *pd)
{
	struct pci_dev *pdev = pd->pdev;
	unsigned int bits = pioc_dma_bits ? pioc_dma_bits :
			    pci_match_id(pioc_pci_ids, pdev) ? 64 : 32;
	int ret;

	if (bits < 32 || bits > 64) {
		dev_err(&pdev->dev, "dma_bits=%u: must be 32..64\n", bits);
		return -EINVAL;
	}
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(bits));
	if (ret) {
		dev_err(&pdev->dev, "the platform cannot do %u-bit DMA: %d\n", bits, ret);
		return ret;
	}
	pd->dma_bits = bits;
	return 0;
}

static int pioc_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct pioc_dev *pd;
	u32 id_reg;
	int ret;

	/* A function that reads all-ones has fallen off the bus. */
	ret = pci_read_config_dword(pdev, PCI_VENDOR_ID, &id_reg);
	if (ret || id_reg == ~0U) {
		dev_err(&pdev->dev, "does not answer config reads (0x%08x)\n", id_reg);
		return -ENODEV;
	}

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return -ENOMEM;
	pioc_dev_init(pd, PIOC_KIND_PCI);
	pd->pdev = pci_dev_get(pdev);

	ret = pci_enable_device(pdev);
	if (ret) {
		dev_err(&pdev->dev, "cannot enable device: %d\n", ret);
		goto err_put;
	}
	/* Firmware or a previous driver may have left DMA on. */
	pci_clear_master(pdev);
	ret = pioc_dma_mask(pd);
	if (ret)
		goto err_disable;
	ret = pci_request_regions(pdev, PIOC_NAME);
	if (ret) {
		dev_err(&pdev->dev, "cannot request BARs: %d\n", ret);
		goto err_disable;
	}
	pioc_iommu_probe(pd);

	ret = pioc_irqs_init(pd);
	if (ret)
		goto err_regions;

	pci_set_drvdata(pdev, pd);
	ret = pioc_dev_register(pd, &pdev->dev, pci_name(pdev));
	if (ret)
		goto err_irqs;

	dev_info(&pdev->dev, "bound as /dev/" PIOC_NAME "/%s (%u %s vector%s, %u-bit DMA, %s)\n",
		 pci_name(pdev), pd->num_irqs,
		 pd->irq_type == PIOC_IRQ_MSIX ? "MSI-X" :
		 pd->irq_type == PIOC_IRQ_MSI ? "MSI" :
		 pd->irq_type == PIOC_IRQ_INTX ? "INTx" : "interrupt",
		 pd->num_irqs == 1 ? "" : "s", pd->dma_bits,
		 pd->iommu ? (pd->iommu_strict ? "IOMMU, strict" : "IOMMU, lazy") :
		 "no IOMMU: CAP_SYS_RAWIO needed");
	return 0;

err_irqs:
	pci_set_drvdata(pdev, NULL);
	pioc_irqs_free(pd);
err_regions:
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
err_put:
	put_device(&pd->dev);
	return ret;
}

static void pioc_remove(struct pci_dev *pdev)
{
	struct pioc_dev *pd = pci_get_drvdata(pdev);

	/*
	 * No new opens; then, under the lock every file's path takes, stop
	 * the device's DMA and zap every mapping before the reset: the reset
	 * turns memory decoding off while it runs (a bus reset takes over a
	 * second), and a mapping still live would read zeros or all-ones
	 * instead of SIGBUS. Reset it (we hold the device lock: the _locked
	 * reset), then return every buffer: nothing can reach them any more.
	 */
	pioc_dev_unregister(pd);

	mutex_lock(&pd->lock);
	pioc_stop_dma_locked(pd);
	pioc_dev_zap_locked(pd);
	if (pci_device_is_present(pdev))
		pci_reset_function_locked(pdev);
	pioc_dev_revoke_locked(pd);
	pioc_irqs_free(pd);
	mutex_unlock(&pd->lock);

	pci_release_regions(pdev);
	pci_disable_device(pdev);
	pci_set_drvdata(pdev, NULL);
	dev_info(&pdev->dev, "unbound\n");
	put_device(&pd->dev);
}

static struct pci_driver pioc_pci_driver = {
	.name = PIOC_NAME,
	.id_table = pioc_pci_ids,
	.probe = pioc_probe,
	.remove = pioc_remove,
};

int pioc_pci_register(void)
{
	int ret = pci_register_driver(&pioc_pci_driver);

	if (ret)
		pr_err("cannot register PCI driver: %d\n", ret);
	return ret;
}

void pioc_pci_unregister(void)
{
	pci_unregister_driver(&pioc_pci_driver);
}
