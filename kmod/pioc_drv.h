/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pioc: internal declarations shared by the files of the module.
 *
 * Locking: one mutex per device, pd->lock, guards the device's state, its
 * files, their mapping entries and DMA handles, and every buffer. It may be
 * taken with a process's mmap_lock held (page faults, munmap), so nothing
 * under it may take an mmap_lock or touch user memory.
 */
#ifndef PIOC_DRV_H
#define PIOC_DRV_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include <uapi/linux/pioc.h>

#include "pioc_compat.h"

#define PIOC_NAME		"pioc"
#define PIOC_MAX_MINORS		256
#define PIOC_MAX_IRQS		32
#define PIOC_PCI_BARS		6

struct eventfd_ctx;
struct pioc_dev;
struct pioc_file;

/* One interrupt vector of a PCI function. */
struct pioc_irq {
	struct pioc_dev *pd;
	unsigned int index;
	int irq;			/* Linux IRQ number */
	bool requested;
	spinlock_t lock;		/* trigger, owner, count */
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
	void *wb;			/* coherent: memremap(WB), also its PAT type */
};

/*
 * DMA memory. References: the owner's handle, each mapping entry made from
 * it and each VMA mapping it. The memory goes back to the kernel when the
 * last reference goes (or into pd->graveyard while DMA may still be in
 * flight without a strict IOMMU), or at once when the device is removed.
 */
struct pioc_dma {
	struct kref ref;
	struct pioc_dev *pd;
	struct list_head node;		/* pd->dmas or pd->graveyard */
	struct page *pages;		/* NULL once returned */
	dma_addr_t bus;
	size_t size;
	struct mm_struct *mm;		/* charged: pinned_vm (a grab) */
};

/* A prepared mapping: what mmap offsets [offset, offset + size) stand for. */
struct pioc_mapent {
	u32 handle;
	u32 target;			/* PIOC_MAP_* */
	u32 index;			/* BAR, window or DMA handle */
	u32 mem_type;			/* granted PIOC_MEM_* */
	u64 start;			/* byte offset into the target */
	u64 size;
	u64 offset;			/* mmap offset, bytes */
	phys_addr_t phys;		/* BARs and windows: address of start */
	struct pioc_dma *dma;		/* DMA buffers (a reference) */
	bool wc_reserved;		/* x86 PAT: WC reserved for the range */
};

/* One open file: a session with its own handles and mappings. */
struct pioc_file {
	struct pioc_dev *pd;
	struct list_head node;		/* pd->files */
	struct address_space mapping;	/* private: revocation hits only us */
	struct xarray maps;		/* handle -> struct pioc_mapent */
	struct xarray dmas;		/* handle -> struct pioc_dma */
	u64 next_offset;		/* next free mmap offset, bytes */
};

/*
 * A device file: one per bound PCI function, one per ECI window. Lifetime
 * is the refcount of @dev: every open file holds a reference, and so does
 * the PCI driver from probe to the end of remove.
 */
struct pioc_dev {
	struct device dev;
	struct cdev cdev;
	int minor;
	u32 kind;			/* PIOC_KIND_* */

	struct mutex lock;		/* everything below */
	bool gone;			/* removed: refuse everything */
	struct list_head files;		/* struct pioc_file.node */
	unsigned int users;		/* open files */

	/* PCI */
	struct pci_dev *pdev;		/* a reference, dropped on release */
	u32 irq_type;			/* PIOC_IRQ_* */
	unsigned int num_irqs;
	struct pioc_irq *irqs;
	u32 dma_bits;			/* DMA mask set at probe */
	bool iommu;			/* DMA is translated by an IOMMU */
	bool iommu_strict;		/* ... and an unmap is final at once */
	bool master;			/* bus mastering on */
	u64 dma_used;			/* bytes of DMA memory held */
	struct list_head dmas;		/* live buffers, struct pioc_dma.node */
	struct list_head graveyard;	/* freed, waiting for bus master off */

	/* ECI */
	struct pioc_window win;
};

extern struct class *pioc_class;
extern unsigned long pioc_dma_max_size;
extern unsigned long pioc_dma_limit;
extern bool pioc_allow_unsafe_noiommu;

/* pioc_main.c */
int pioc_dev_register(struct pioc_dev *pd, struct device *parent, const char *name);
void pioc_dev_unregister(struct pioc_dev *pd);
void pioc_dev_init(struct pioc_dev *pd, u32 kind);
extern const struct file_operations pioc_fops;

/* pioc_file.c */
void pioc_dev_zap_locked(struct pioc_dev *pd);
void pioc_dev_revoke_locked(struct pioc_dev *pd);

/* pioc_map.c */
long pioc_ioc_map(struct pioc_file *pf, struct pioc_map *mp);
long pioc_ioc_unmap(struct pioc_file *pf, struct pioc_unmap *u);
void pioc_map_release_locked(struct pioc_file *pf, struct pioc_mapent *m);
int pioc_mmap(struct file *filp, struct vm_area_struct *vma);
int pioc_window_of(struct pioc_dev *pd, u32 index, struct pioc_window *w);

/* pioc_dma.c */
long pioc_ioc_dma_alloc(struct pioc_file *pf, struct pioc_dma_alloc *a);
long pioc_ioc_dma_free(struct pioc_file *pf, struct pioc_dma_free *f);
void pioc_dma_put_locked(struct pioc_dma *d);
void pioc_dma_release_all_locked(struct pioc_dev *pd);
void pioc_dma_free_graveyard_locked(struct pioc_dev *pd);

/* pioc_pci.c */
int pioc_pci_register(void);
void pioc_pci_unregister(void);
long pioc_pci_dev_info(struct pioc_dev *pd, struct pioc_dev_info *di);
int pioc_pci_bar(struct pioc_dev *pd, u32 index, struct pioc_window *w);
int pioc_pci_open_locked(struct pioc_dev *pd);
void pioc_pci_last_close_locked(struct pioc_dev *pd);
long pioc_irq_set(struct pioc_file *pf, struct pioc_irq_set *is);
void pioc_irq_release_file_locked(struct pioc_file *pf);

/* pioc_eci.c */
int pioc_eci_init(void);
void pioc_eci_exit(void);

#endif /* PIOC_DRV_H */
