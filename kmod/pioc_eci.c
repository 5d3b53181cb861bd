// SPDX-License-Identifier: GPL-2.0
/*
 * pioc: ECI windows. On Enzian the FPGA homes a range of physical memory
 * that the CPU caches coherently (mapped write-back) and an I/O window
 * (mapped as device memory). Neither is RAM the kernel manages, and no
 * firmware table describes them to a driver: the administrator names them
 * with the eci= parameter and each becomes /dev/pioc/eci<N>.
 *
 *   eci=<base>:<size>:coherent|io[,...]     e.g. eci=0x10000000000:1T:coherent
 *
 * A window that overlaps any iomem resource (RAM, firmware-reserved ranges,
 * PCI windows, another driver's registers) or any page the kernel has a
 * struct page for is refused, and so is the whole module load: a mistyped
 * address must not hand out memory the kernel or firmware owns. eci= is a
 * hardware-address parameter (module_param_hw), so a locked-down kernel
 * refuses it. A coherent window is memremap()ed write-back for the life of
 * the module: on x86 that reservation is what gives its fault-mapped pages
 * the WB type under PAT; on arm64 the FPGA's memory is simply normal memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pioc_drv.h"

#define PIOC_MAX_ECI	8

static char *eci[PIOC_MAX_ECI];
static int eci_count;
module_param_hw_array(eci, charp, iomem, &eci_count, 0444);
MODULE_PARM_DESC(eci, "ECI windows: <base>:<size>:coherent|io, comma separated");

static struct pioc_dev *eci_devs[PIOC_MAX_ECI];

static int pioc_eci_parse(const char *spec, struct pioc_window *w)
{
	const char *p = spec;
	char *end;
	u64 base, size;

	base = memparse(p, &end);
	if (end == p || *end != ':')
		return -EINVAL;
	p = end + 1;
	size = memparse(p, &end);
	if (end == p || *end != ':')
		return -EINVAL;
	p = end + 1;
	if (!strcmp(p, "coherent"))
		w->flags = PIOC_BAR_ECI_COHERENT;
	else if (!strcmp(p, "io"))
		w->flags = PIOC_BAR_ECI_IO;
	else
		return -EINVAL;
	if (!size || !PAGE_ALIGNED(base) || !PAGE_ALIGNED(size) || base + size < base ||
	    base + size - 1 > (u64)(phys_addr_t)~0ULL)
		return -EINVAL;
	w->base = base;
	w->size = size;
	return 0;
}

/*
 * -EBUSY if [base, base + size) touches any iomem resource, -EEXIST if any
 * of it has a struct page. pfn_valid() is exact per memory section or
 * subsection (2 MiB at least), so one probe per 2 MiB and the last page
 * find every one.
 */
static int pioc_eci_check_free(const struct pioc_window *w)
{
	const unsigned long step = SZ_2M >> PAGE_SHIFT;
	unsigned long pfn = PHYS_PFN(w->base), last = PHYS_PFN(w->base + w->size - 1);

	if (region_intersects(w->base, w->size, IORESOURCE_MEM, IORES_DESC_NONE) !=
	    REGION_DISJOINT)
		return -EBUSY;
	for (; pfn <= last; pfn += step) {
		if (pfn_valid(pfn))
			return -EEXIST;
		cond_resched();
	}
	return pfn_valid(last) ? -EEXIST : 0;
}

static int pioc_eci_add(int n, const char *spec)
{
	struct pioc_window w = {};
	struct pioc_dev *pd;
	char name[16];
	int ret;

	ret = pioc_eci_parse(spec, &w);
	if (ret) {
		pr_err("eci window %d \"%s\": expected <base>:<size>:coherent|io, page aligned\n",
		       n, spec);
		return ret;
	}
	ret = pioc_eci_check_free(&w);
	if (ret) {
		pr_err("eci window %d [%pa + %pa] overlaps %s: refused\n", n, &w.base, &w.size,
		       ret == -EBUSY ? "an iomem resource (see /proc/iomem)" :
		       "memory the kernel manages (pfn_valid)");
		return -EBUSY;
	}
	snprintf(name, sizeof(name), "eci%d", n);
	w.res = request_mem_region(w.base, w.size, "pioc-eci");
	if (!w.res) {
		pr_err("eci window %d [%pa + %pa] was claimed meanwhile: refused\n",
		       n, &w.base, &w.size);
		return -EBUSY;
	}
	if (w.flags & PIOC_BAR_ECI_COHERENT) {
		w.wb = memremap(w.base, w.size, MEMREMAP_WB);
		if (!w.wb) {
			pr_err("eci window %d [%pa + %pa]: cannot map it write-back\n",
			       n, &w.base, &w.size);
			ret = -ENOMEM;
			goto err_region;
		}
	}

	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd) {
		ret = -ENOMEM;
		goto err_region;
	}
	pioc_dev_init(pd, PIOC_KIND_ECI);
	pd->win = w;
	ret = pioc_dev_register(pd, NULL, name);
	if (ret) {
		put_device(&pd->dev);
		goto err_region;
	}
	eci_devs[n] = pd;
	pr_info("%s: %s window [%pa + %pa]\n", name,
		w.flags & PIOC_BAR_ECI_COHERENT ? "coherent" : "I/O", &w.base, &w.size);
	return 0;

err_region:
	if (w.wb)
		memunmap(w.wb);
	release_mem_region(w.base, w.size);
	return ret;
}

void pioc_eci_exit(void)
{
	int i;

	for (i = 0; i < PIOC_MAX_ECI; i++) {
		struct pioc_dev *pd = eci_devs[i];

		if (!pd)
			continue;
		pioc_dev_unregister(pd);
		mutex_lock(&pd->lock);
		pioc_dev_revoke_locked(pd);
		mutex_unlock(&pd->lock);
		if (pd->win.wb)
			memunmap(pd->win.wb);
		release_mem_region(pd->win.base, pd->win.size);
		eci_devs[i] = NULL;
		put_device(&pd->dev);
	}
}

int pioc_eci_init(void)
{
	int i, ret;

	for (i = 0; i < eci_count; i++) {
		ret = pioc_eci_add(i, eci[i]);
		if (ret) {
			pioc_eci_exit();
			return ret;
		}
	}
	return 0;
}
