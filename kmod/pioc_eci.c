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
 * A window that overlaps system RAM or a resource another driver holds is
 * refused, and so is the whole module load: a mistyped address must not
 * hand out the kernel's own memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ioport.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pioc.h"

#define PIOC_MAX_ECI	8

static char *eci[PIOC_MAX_ECI];
static int eci_count;
module_param_array(eci, charp, &eci_count, 0444);
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
	if (region_intersects(w.base, w.size, IORESOURCE_SYSTEM_RAM, IORES_DESC_NONE) !=
	    REGION_DISJOINT) {
		pr_err("eci window %d [%pa + %pa] overlaps system RAM: refused\n",
		       n, &w.base, &w.size);
		return -EBUSY;
	}
	snprintf(name, sizeof(name), "eci%d", n);
	w.res = request_mem_region(w.base, w.size, "pioc-eci");
	if (!w.res) {
		pr_err("eci window %d [%pa + %pa] is held by another driver: refused\n",
		       n, &w.base, &w.size);
		return -EBUSY;
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
		pioc_dev_revoke(pd);
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
