/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: what the ntoskrnl.exe export files by concern (ntoskrnl.c,
 * ntos_*.c) share with the rest of the module, kept free of kernel
 * headers beyond wintypes.h and wdm.h so the host unit tests build them
 * as they are (kmock).
 */

#ifndef NDIS_NTOS_H
#define NDIS_NTOS_H

#include "wdm.h"
#include "wintypes.h"
#include "ntos_firmware.h"

#define STATUS_BUFFER_OVERFLOW		0x80000005
#define STATUS_ACCESS_VIOLATION		0xC0000005
#define STATUS_NO_MEMORY		0xC0000017
#define STATUS_BUFFER_TOO_SMALL		0xC0000023
#define STATUS_OBJECT_NAME_COLLISION	0xC0000035
#define STATUS_INVALID_PARAMETER_2	0xC00000F0

struct win_guid {
	u32 data1;
	u16 data2;
	u16 data3;
	u8 data4[8];
};
static_assert(sizeof(struct win_guid) == 16);

/*
 * Pool memory for a Windows caller, charged to the driver whose code is
 * at caller (a return address), as ExAllocatePoolWithTag's; NULL when
 * no driver is there or memory is short. ntos_free() takes it back.
 * ntoskrnl.c has them in the module, the unit tests their own.
 */
void *ntos_alloc(unsigned long caller, size_t size);
void ntos_free(void *ptr);

/* The page frame number of the page at va; 0: no memory there. */
unsigned long ntos_page_pfn(const void *va);

/* A line in the kernel log, under the name of the driver at caller. */
void ntos_log(unsigned long caller, const char *text);

/* Where caller is in its driver's image (0: in no driver). */
unsigned long ntos_image_offset(unsigned long caller);

/* The ntoskrnl.exe or HAL.dll export of that name, or NULL. */
void *ntos_system_routine(const char *name);

/* Device memory mapped (uncached unless cached), and unmapped. */
void *ntos_map_io(u64 phys, size_t size, bool cached);
void ntos_unmap_io(void *va);

/* Zeroed, physically contiguous memory below highest; and its free. */
void *ntos_alloc_contiguous(size_t size, u64 highest);
void ntos_free_contiguous(void *va, size_t size);

/*
 * An IO_WORKITEM (opaque to drivers), and the kernel's part of it:
 * ntos_work_new() makes it, ntos_work_queue() runs routine(dev, context)
 * at PASSIVE_LEVEL once, ntos_work_free() lets it go (from the routine
 * too).
 */
struct ntos_work_item {
	struct win_device_object *dev;
	void *routine;
	void *context;
	void *work;
};

void *ntos_work_new(struct ntos_work_item *item);
void ntos_work_queue(void *work);
void ntos_work_free(void *work);

/* ntos_io.c: an IRP's initial state, stack_count locations free. */
void ntos_init_irp(struct win_irp *irp, u16 size, s8 stack_count);

/*
 * What the I/O manager does when an IRP is completed past its top
 * location, before the caller's event is set: the output of a buffered
 * request copied to the caller's buffer, the I/O status block written,
 * and an IRP IoBuild*Request made for the I/O manager to free (and its
 * buffers) freed. True when the IRP is gone.
 */
bool ntos_irp_complete_top(struct win_irp *irp);

/*
 * IoCallDriver (ntoskrnl.c): the IRP's next location given to dev, and
 * dev's dispatch (the wrapper's own device objects only) called.
 */
s32 ntos_call_driver(struct win_device_object *dev, struct win_irp *irp);

/*
 * ntos_irp.c: an IRP_MJ_POWER request at the bottom of one of the
 * wrapper's device stacks, completed as a bus driver does.
 */
s32 ntos_power_dispatch(struct win_irp *irp);

/*
 * ntos_devobj.c's questions to the rest of the module (ntoskrnl.c):
 * the driver object of the driver whose code is at caller (NULL: none),
 * the bus identity behind one of the wrapper's device objects (false:
 * not one of them), the current kernel stack's bounds.
 */
#define NTOS_BUS_PCI	1
#define NTOS_BUS_USB	2

struct ntos_device_identity {
	u32 bus;		/* NTOS_BUS_* */
	u32 bus_number;
	u32 address;		/* PCI: device << 16 | function; USB: port */
	u16 vendor;
	u16 device;
	u32 subsystem;		/* PCI: subsystem id << 16 | its vendor */
	u16 revision;		/* PCI: the revision; USB: bcdDevice */
};

void *ntos_driver_object_at(unsigned long caller);
bool ntos_device_identity(struct win_device_object *dev,
			  struct ntos_device_identity *id);
void ntos_stack_limits(unsigned long *low, unsigned long *high);

/* The driver is unloading: its names and driver object extensions go. */
void ntos_devobj_forget(void *driver_object);

/* The cancel spin lock taken (IoCancelIrp); the IRQL to give back. */
u8 ntos_cancel_lock_acquire(void);

/* ntos_sync.c: waits for ev without a timeout (who: for the log). */
s32 ntos_wait_event(const char *who, struct win_kevent *ev);


/* ndis.c: an MDL NdisAllocateBuffer made, back to its pool. */
void ndis_free_mdl(struct win_mdl *mdl);

/* 100 ns units since 1601 (Windows system time) at the Unix epoch. */
#define WIN_EPOCH_OFFSET	116444736000000000LL

/* ntoskrnl.c: InterruptTime, 100 ns units since boot at the clock tick */
u64 win_interrupt_time(void);
/*
 * ntoskrnl.c: sleep(arg, timeout) run outside the FPU section of the
 * Windows call chain (its IRQL and depth given back and taken along):
 * what sleep returns.
 */
long win_sleep_outside_fpu(long (*sleep)(void *arg, long timeout),
			   void *arg, long timeout);

/* ntos_sync.c: SystemTime, 100 ns units since 1601 */
u64 win_system_time(void);

/*
 * ntos_sync.c: a Windows timeout (100 ns units; negative: relative,
 * positive: absolute system time; NULL: none) as jiffies for
 * wait_event_timeout(): false when it has already passed.
 */
bool win_timeout_jiffies(const s64 *timeout, long *jiffies);

/* ntos_timer.c: a driver's unload stops and frees its KTIMERs' timers */
struct ndis_driver;
void win_timers_release(struct ndis_driver *drv);

/* ntos_thread.c: ZwClose of a handle PsCreateSystemThread gave (false:
 * not one of those) */
bool win_object_close(void *handle);

#endif /* NDIS_NTOS_H */
