/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ndiswrapper: what the export files by concern (ndis_string.c,
 * ndis_mem.c, ndis_log.c, ...) ask of the wrapper's core, kept apart from
 * ndis.h so those files build without the rest of the kernel (and on the
 * host, against kmock: tests/unit/c/test_exports.c).
 */

#ifndef NDIS_CORE_H
#define NDIS_CORE_H

#include <linux/types.h>

#include "wintypes.h"

struct ndis_driver;

/* pe_image.c: the loaded driver whose image holds addr (a return
 * address), or NULL. */
struct ndis_driver *ndis_driver_at(unsigned long addr);

/* ntoskrnl.c: zeroed, physically contiguous, counted on the driver until
 * freed. */
void *win_alloc(struct ndis_driver *drv, size_t size);
void win_free(void *ptr);

/* ndis.c: the device of an adapter a driver names by its
 * MiniportAdapterHandle, for messages. */
const char *ndis_handle_name(void *handle);

/*
 * ndis.c: a packet pool charged to the driver caller (a return address)
 * lies in, as NdisAllocatePacketPoolEx makes it; the descriptors of one
 * now allocated.
 */
void ndis_packet_pool_alloc(void *caller, ndis_status *status, void **handle,
			    u32 num, u32 overflow, u32 proto_reserved);
u32 ndis_packet_pool_in_use(void *handle);

/*
 * hal.c: the IRQL the Windows code on this CPU runs at, and setting it;
 * misuse names the call that went the wrong way (logged, the level set
 * all the same), NULL when the move is the right way.
 */
u8 hal_irql(void);
void hal_set_irql(u8 irql, const char *wrong_way);

/*
 * ntos_timer.c: KeInitializeTimer's work on @ktimer for the driver @drv
 * (NdisInitializeTimer's caller, whose unload frees it); whether @ktimer
 * is a KTIMER set up so; forgetting one whose storage now holds
 * something else (an NDIS_MINIPORT_TIMER).
 */
void win_timer_init_for(void *ktimer, struct ndis_driver *drv);
bool win_timer_known(const void *ktimer);
void win_timer_forget(void *ktimer);

/* ndis.c: NdisSetTimer on an NDIS_MINIPORT_TIMER */
void ndis_miniport_timer_set(void *storage, u32 msecs);

/*
 * ndis.c: where an adapter (by its MiniportAdapterHandle) keeps its
 * NdisMCreateLog log, NULL when it has none.
 * ndis_log.c: the bytes that log holds, oldest first, into buf (len at
 * most; what IOCTL_NDIS_GET_LOG_DATA would give an application: nothing
 * asks on Linux, the unit tests do); and the log closed if it is still
 * open (at the adapter's halt).
 */
void **ndis_log_slot(void *handle);
u32 ndis_log_read(void *log_handle, void *buf, u32 len);
void ndis_log_release(void **slot);

/*
 * ntos_devobj.c: IoCreateDevice, IoDeleteDevice, IoCreateSymbolicLink and
 * IoDeleteSymbolicLink on behalf of the driver at caller (a return
 * address: what it allocates is charged to that driver), with NT status
 * codes; a device object is a struct win_device_object (wdm.h).
 * ndis.c: the DRIVER_OBJECT of NdisInitializeWrapper's handle.
 */
s32 ntos_create_device(unsigned long caller, void *driver_object,
		       u32 ext_size, const struct win_unicode_string *name,
		       u32 type, u32 characteristics, void **device);
void ntos_delete_device(unsigned long caller, void *device);
s32 ntos_create_link(unsigned long caller,
		     const struct win_unicode_string *link,
		     const struct win_unicode_string *target);
s32 ntos_delete_link(const struct win_unicode_string *link);
void *ndis_wrapper_driver_object(void *wrapper_handle);

/*
 * ndis.c: fn(arg) called later from the module's work queue (process
 * context, PASSIVE_LEVEL), which the adapter's halt flushes; 0 or
 * -ENOMEM.
 * ndis_hw.c: whether the miniport of an adapter (MiniportAdapterHandle)
 * has a MiniportAllocateComplete; calling it (at DISPATCH_LEVEL).
 */
int ndis_defer(void (*fn)(void *arg), void *arg);
bool ndis_allocate_complete_set(void *handle);
void ndis_allocate_complete(void *handle, void *va, u64 *pa, u32 len,
			    void *ctx);

/*
 * ndis_hw.c, for ndis_dma.c's NdisM*BufferPhysicalMapping: how many map
 * registers NdisMAllocateMapRegisters gave the adapter (by its
 * MiniportAdapterHandle), where it keeps their state (NULL to start),
 * the driver charged for it; a piece of memory (within one page) mapped
 * for the device, 0 or a negative errno, and unmapped.
 * ndis_dma.c: the registers' mappings undone and their state freed
 * (NdisMFreeMapRegisters, the halt).
 */
u32 ndis_map_register_count(void *handle);
void **ndis_map_register_slot(void *handle);
struct ndis_driver *ndis_map_register_driver(void *handle);
int ndis_dma_map(void *handle, void *va, u32 len, bool to_device, u64 *addr);
void ndis_dma_unmap(void *handle, u64 addr, u32 len, bool to_device);
void ndis_map_registers_release(void *handle);

/*
 * ndis.c: the processor this runs on, its idle time and its whole time
 * (busy and idle) since boot, in nanoseconds.
 */
void ndis_cpu_times(unsigned int *cpu, u64 *idle_ns, u64 *total_ns);

/* pe_image.c: the handler NdisMRegisterUnloadHandler names, called with
 * the DRIVER_OBJECT when the driver unloads */
void ndis_driver_set_unload(void *wrapper_handle, void *func);

/*
 * ndis_config.c: what the configuration calls keep per adapter
 * (struct ndis_adapter.config, zeroed to start): the parameters
 * NdisReadConfiguration returned, which NdisCloseConfiguration frees, and
 * NdisWriteConfiguration's values, freed with the adapter.
 */
struct ndis_config_param_node;
struct ndis_config_written;
struct ndis_config_store {
	struct ndis_config_param_node *params;
	struct ndis_config_written *written;
};
void ndis_config_free_params(struct ndis_config_store *cs);
void ndis_config_free_written(struct ndis_config_store *cs);

/*
 * ndis.c: for ndis_config.c, the adapter a configuration handle is (its
 * WrapperConfigurationContext): its store, the driver its allocations are
 * charged to, and the value of its .conf setting name (NULL: none).
 */
struct ndis_config_store *ndis_config_store(void *adapter);
struct ndis_driver *ndis_config_driver(void *adapter);
const char *ndis_config_setting(void *adapter, const char *name);

#endif /* NDIS_CORE_H */
