/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pioc: internal declarations shared by the files of the module.
 */
#ifndef PIOC_H
#define PIOC_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <uapi/linux/pioc.h>

#include "pioc_compat.h"

#define PIOC_NAME		"pioc"
#define PIOC_MAX_MINORS		256
#define PIOC_MAX_IRQS		32
#define PIOC_PCI_BARS		6

struct eventfd_ctx;
struct pioc_dev;

/* One interrupt vector of a PCI function. */
struct pioc_irq {
	struct pioc_dev *pd;
	unsigned int index;
	int irq;			/* Linux IRQ number */
	bool requested;
	spinlock_t lock;		/* trigger, count */
	struct eventfd_ctx *trigger;	/* NULL: nobody listens */
	struct pioc_file *owner;	/* file that registered trigger */
	u64 count;
	char name[32];
};

/* A physical window (ECI), or a BAR described the same way. */
struct pioc_window {
	phys_addr_t base;
	resource_size_t size;
	u32 flags;			/* PIOC_BAR_* */
	struct resource *res;
};

/*
 * A device file: one per bound PCI function, one per ECI window. Lifetime
 * is the refcount of @dev: every open file holds a reference.
 */
struct pioc_dev {
	struct device dev;
	struct cdev cdev;
	int minor;
	u32 kind;			/* PIOC_KIND_* */

	struct mutex lock;		/* everything below */
	bool gone;			/* removed: refuse everything */
	struct list_head files;		/* struct pioc_file.node */

	/* PCI */
	struct pci_dev *pdev;
	u32 irq_type;			/* PIOC_IRQ_* */
	unsigned int num_irqs;
	struct pioc_irq *irqs;
	u64 dma_used;			/* bytes of DMA memory held */

	/* ECI */
	struct pioc_window win;
};

/* A coherent DMA buffer owned by one file. */
struct pioc_dma {
	void *cpu;
	dma_addr_t bus;
	size_t size;
};

/* A prepared mapping: what the mmap offset of its handle stands for. */
struct pioc_mapent {
	u32 target;			/* PIOC_MAP_* */
	u32 index;			/* BAR, window or DMA handle */
	u32 mem_type;			/* granted PIOC_MEM_* */
	u64 size;
	phys_addr_t phys;		/* BARs and windows */
};

/* One open file. */
struct pioc_file {
	struct pioc_dev *pd;
	struct list_head node;		/* in pd->files, under pd->lock */
	struct address_space mapping;	/* private: revocation hits only us */
	struct mutex lock;		/* maps, dmas */
	struct idr maps;		/* handle -> struct pioc_mapent */
	struct idr dmas;		/* handle -> struct pioc_dma */
};

extern struct class *pioc_class;
extern unsigned long pioc_dma_max_size;
extern unsigned long pioc_dma_limit;

/* pioc_main.c */
int pioc_dev_register(struct pioc_dev *pd, struct device *parent, const char *name);
void pioc_dev_unregister(struct pioc_dev *pd);
void pioc_dev_revoke(struct pioc_dev *pd);
void pioc_dev_init(struct pioc_dev *pd, u32 kind);

/* pioc_pci.c */
int pioc_pci_register(void);
void pioc_pci_unregister(void);
long pioc_pci_dev_info(struct pioc_dev *pd, struct pioc_dev_info *di);
int pioc_pci_bar(struct pioc_dev *pd, u32 index, struct pioc_window *w);
long pioc_irq_set(struct pioc_file *pf, struct pioc_irq_set *is);
void pioc_irq_release_file(struct pioc_file *pf);

/* pioc_eci.c */
int pioc_eci_init(void);
void pioc_eci_exit(void);

#endif /* PIOC_H */
