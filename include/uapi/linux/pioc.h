/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pioc: user-space interface of the pioc kernel module, version 2.
 *
 * One header for the module and for libpioc. The conventions are vfio's:
 * every command is _IO(PIOC_IOC_MAGIC, nr) and takes a struct that begins
 * with argsz and flags. argsz is the size of the struct the caller was
 * built with; it must be at least the size of the version-2 struct. A
 * larger argsz (a caller built against a newer header) is accepted when
 * every byte past what the module knows is zero, so new fields can be
 * appended with zero meaning "not used"; the module writes back at most
 * argsz bytes. Unknown flags and non-zero reserved fields are -EINVAL,
 * unknown commands -ENOTTY. Documentation/uapi.md lists the errors of
 * every command.
 *
 * Character devices: /dev/pioc/<BDF> for each bound PCI function,
 * /dev/pioc/eci<N> for each ECI window.
 */
#ifndef _UAPI_LINUX_PIOC_H
#define _UAPI_LINUX_PIOC_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Interface version: bumped on any incompatible change (1: magic 0xB7,
 * sized commands, handle-shifted offsets; 2: this header). */
#define PIOC_API_VERSION	2

/* Memory types of a mapping (equal to pioc::mem_type). */
#define PIOC_MEM_UC		0	/* uncached */
#define PIOC_MEM_WC		1	/* write-combining */
#define PIOC_MEM_WT		2	/* write-through: never granted (uapi.md) */
#define PIOC_MEM_WB		3	/* write-back (ECI coherent windows only) */
#define PIOC_MEM_COUNT		4

/* Capabilities (struct pioc_version.caps). */
#define PIOC_CAP_PCI		(1ULL << 0)	/* a PCI function */
#define PIOC_CAP_ECI		(1ULL << 1)	/* an ECI window */
#define PIOC_CAP_DMA		(1ULL << 2)	/* PIOC_IOC_DMA_ALLOC works */
#define PIOC_CAP_IRQ		(1ULL << 3)	/* PIOC_IOC_IRQ_SET works */
#define PIOC_CAP_MEM_WC		(1ULL << 4)	/* WC is granted as asked */
/* bit 5 was PIOC_CAP_MEM_WT in version 1 */
#define PIOC_CAP_MEM_WB		(1ULL << 6)	/* WB (coherent ECI window) */
#define PIOC_CAP_IOMMU		(1ULL << 7)	/* device DMA is confined by an IOMMU */
#define PIOC_CAP_NOIOMMU	(1ULL << 8)	/* no IOMMU: DMA reaches all memory */
#define PIOC_CAP_IOMMU_STRICT	(1ULL << 9)	/* an IOMMU unmap is final at once */

/* Interrupt kinds (struct pioc_version.irq_type). */
#define PIOC_IRQ_NONE		0
#define PIOC_IRQ_INTX		1
#define PIOC_IRQ_MSI		2
#define PIOC_IRQ_MSIX		3

/* Kinds of device file (struct pioc_version.kind). */
#define PIOC_KIND_PCI		1
#define PIOC_KIND_ECI		2

/*
 * PIOC_IOC_VERSION: handshake. In: user_version. Out: everything else.
 * The module refuses a user_version other than its own with -EPROTO; the
 * library refuses a module of another version.
 */
struct pioc_version {
	__u32 argsz;
	__u32 flags;		/* in: 0 */
	__u32 user_version;	/* in: PIOC_API_VERSION of the caller */
	__u32 kernel_version;	/* out: PIOC_API_VERSION of the module */
	__u64 caps;		/* out: PIOC_CAP_* */
	__u32 kind;		/* out: PIOC_KIND_* */
	__u32 num_bars;		/* out: BARs (6) or windows (1) */
	__u32 irq_type;		/* out: PIOC_IRQ_* */
	__u32 num_irqs;		/* out: vectors that PIOC_IOC_IRQ_SET accepts */
	__u64 dma_max_size;	/* out: largest single DMA buffer, bytes */
	__u64 dma_limit;	/* out: most DMA memory one device may hold */
	__u64 dma_used;		/* out: DMA memory the device holds now */
	__u32 dma_mask_bits;	/* out: address bits the device's DMA may use */
	__u32 reserved0;	/* in: 0 */
	__u64 reserved[3];	/* in: 0 */
};

/* Device identity and placement (PCI) or window identity (ECI). */
struct pioc_dev_info {
	__u32 argsz;
	__u32 flags;		/* in: 0 */
	__u16 vendor, device;	/* out: PCI IDs (0 for ECI) */
	__u16 subsys_vendor, subsys_device;
	__u32 domain;		/* out: PCI domain */
	__u8 bus, devfn;	/* out: PCI bus, device/function */
	__u8 link_speed;	/* out: negotiated PCIe generation, 0 unknown */
	__u8 link_width;	/* out: negotiated lanes, 0 unknown */
	__u8 max_link_speed;	/* out: capability */
	__u8 max_link_width;
	__u16 mps;		/* out: max payload size, bytes */
	__u16 mrrs;		/* out: max read request size, bytes */
	__u16 pad;		/* out: 0 */
	__s32 numa_node;	/* out: -1 when not NUMA */
	__u32 reserved0;	/* in: 0 */
	__u64 reserved[4];	/* in: 0 */
};

/* BAR flags (struct pioc_bar_info.flags). */
#define PIOC_BAR_MEM		(1U << 0)	/* memory BAR (mappable) */
#define PIOC_BAR_IO		(1U << 1)	/* I/O-port BAR (not mappable) */
#define PIOC_BAR_64		(1U << 2)	/* 64-bit BAR */
#define PIOC_BAR_PREFETCH	(1U << 3)	/* prefetchable */
#define PIOC_BAR_ECI_COHERENT	(1U << 4)	/* ECI coherent memory window */
#define PIOC_BAR_ECI_IO		(1U << 5)	/* ECI device I/O window */

/*
 * PIOC_IOC_BAR_INFO: one BAR of a PCI function (index 0..5) or the window
 * of an ECI device (index 0). size 0 means the BAR is not implemented.
 */
struct pioc_bar_info {
	__u32 argsz;
	__u32 flags;		/* in: 0; out: PIOC_BAR_* */
	__u32 index;		/* in */
	__u32 reserved0;	/* in: 0 */
	__u64 size;		/* out: bytes */
	__u64 phys;		/* out: bus/physical address */
	__u64 reserved[2];	/* in: 0 */
};

/* What a mapping handle refers to (struct pioc_map.target). */
#define PIOC_MAP_BAR		1	/* index = BAR or window number */
#define PIOC_MAP_DMA		2	/* index = DMA buffer handle */

/*
 * PIOC_IOC_MAP: prepare an mmap of [start, start + length) of a BAR, a
 * window or a DMA buffer (length 0: to its end; both page aligned) with a
 * memory type. Out: the memory type granted (a weaker one where the BAR,
 * the platform or another mapping does not allow the one asked), the size
 * and the mmap offset to pass to mmap(2). Offsets are handed out once per
 * open file and stay below 2^44 as long as the file has mapped less than
 * 16 TiB in total, so a 32-bit process can always use mmap2. The mapping
 * must be MAP_SHARED and lie inside [offset, offset + size). Pages are
 * inserted on first touch. PIOC_IOC_UNMAP with the handle revokes every
 * mapping made from it: later accesses get SIGBUS.
 */
struct pioc_map {
	__u32 argsz;
	__u32 flags;		/* in: 0 */
	__u32 target;		/* in: PIOC_MAP_* */
	__u32 index;		/* in */
	__u32 mem_type;		/* in: PIOC_MEM_* asked */
	__u32 granted;		/* out: PIOC_MEM_* granted */
	__u32 handle;		/* out: for PIOC_IOC_UNMAP */
	__u32 reserved0;	/* in: 0 */
	__u64 start;		/* in: byte offset into the target */
	__u64 length;		/* in: bytes, 0 = to the end */
	__u64 size;		/* out: bytes */
	__u64 offset;		/* out: mmap offset */
	__u64 reserved[2];	/* in: 0 */
};

/* PIOC_IOC_UNMAP: revoke and forget a mapping handle. */
struct pioc_unmap {
	__u32 argsz;
	__u32 flags;		/* in: 0 */
	__u32 handle;		/* in */
	__u32 reserved0;	/* in: 0 */
};

/*
 * PIOC_IOC_DMA_ALLOC: DMA memory on the device's NUMA node, allocated
 * through the DMA API, charged to the caller's RLIMIT_MEMLOCK (unless it
 * has CAP_IPC_LOCK) and memory cgroup. size is rounded up to pages. Map it
 * with PIOC_IOC_MAP (target PIOC_MAP_DMA, index = handle). The memory lives
 * until the handle is freed (PIOC_IOC_DMA_FREE or close) and the last
 * mapping of it is gone; when the device is removed it is freed at once
 * and its mappings get SIGBUS. Without a strict IOMMU, memory is returned
 * to the kernel only after the device's bus mastering is off (Documentation/
 * kmod.md, "Lifetimes").
 */
struct pioc_dma_alloc {
	__u32 argsz;
	__u32 flags;		/* in: 0 */
	__u64 size;		/* in: bytes, 1..dma_max_size; out: rounded */
	__u64 bus_addr;		/* out: address the device uses */
	__u32 handle;		/* out */
	__s32 numa_node;	/* out: node of the memory */
	__u64 reserved[2];	/* in: 0 */
};

/* PIOC_IOC_DMA_FREE: forget a DMA buffer's handle; its memory goes when its
 * last mapping does. */
struct pioc_dma_free {
	__u32 argsz;
	__u32 flags;		/* in: 0 */
	__u32 handle;		/* in */
	__u32 reserved0;	/* in: 0 */
};

/*
 * PIOC_IOC_IRQ_SET: deliver interrupt vector @vector to eventfd @fd (a
 * counter of interrupts), or stop (fd = -1). One file at a time owns a
 * vector; the registration ends on close. With INTx the module masks the
 * line when it fires; PIOC_IRQ_FLAG_UNMASK re-enables it after the caller
 * has acknowledged the device (fd is then ignored).
 */
#define PIOC_IRQ_FLAG_UNMASK	(1U << 0)
struct pioc_irq_set {
	__u32 argsz;
	__u32 flags;		/* in: 0 or PIOC_IRQ_FLAG_UNMASK */
	__u32 vector;		/* in: 0..num_irqs-1 */
	__s32 fd;		/* in: eventfd, or -1 */
	__u64 count;		/* out: interrupts seen on this vector so far */
	__u64 reserved[2];	/* in: 0 */
};

/* Unused in Documentation/userspace-api/ioctl/ioctl-number.rst. */
#define PIOC_IOC_MAGIC		0xC7

#define PIOC_IOC_VERSION	_IO(PIOC_IOC_MAGIC, 0x00)	/* struct pioc_version */
#define PIOC_IOC_DEV_INFO	_IO(PIOC_IOC_MAGIC, 0x01)	/* struct pioc_dev_info */
#define PIOC_IOC_BAR_INFO	_IO(PIOC_IOC_MAGIC, 0x02)	/* struct pioc_bar_info */
#define PIOC_IOC_MAP		_IO(PIOC_IOC_MAGIC, 0x03)	/* struct pioc_map */
#define PIOC_IOC_UNMAP		_IO(PIOC_IOC_MAGIC, 0x04)	/* struct pioc_unmap */
#define PIOC_IOC_DMA_ALLOC	_IO(PIOC_IOC_MAGIC, 0x05)	/* struct pioc_dma_alloc */
#define PIOC_IOC_DMA_FREE	_IO(PIOC_IOC_MAGIC, 0x06)	/* struct pioc_dma_free */
#define PIOC_IOC_IRQ_SET	_IO(PIOC_IOC_MAGIC, 0x07)	/* struct pioc_irq_set */

#endif /* _UAPI_LINUX_PIOC_H */
