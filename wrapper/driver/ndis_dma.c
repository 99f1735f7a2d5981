// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NdisMAllocateSharedMemoryAsync, shared memory that a
 * miniport asks for when it cannot wait (at DISPATCH_LEVEL, typically
 * to grow its receive buffers), and the buffer mappings of a bus master
 * that uses map registers (below).
 *
 * Written from the NDIS 5.1 reference: the call returns PENDING and
 * NDIS later calls the miniport's MiniportAllocateComplete with the
 * memory's virtual and physical addresses, its length and the context
 * the miniport passed, or a NULL virtual address when there is none.
 * Here the memory comes from NdisMAllocateSharedMemory's code, on the
 * module's work queue, and MiniportAllocateComplete is called from there
 * at DISPATCH_LEVEL, unless the adapter's halt has begun; the memory is
 * the adapter's like the synchronous kind (NdisMFreeSharedMemory frees
 * it, the halt frees what is left).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/types.h>

#include "ndis_core.h"
#include "wintypes.h"
#include "winexport.h"

extern const struct win_export win_export_NdisMAllocateSharedMemory;

typedef WIN_ABI void (*ndis_alloc_shared_fn)(void *handle, u32 len,
					     u8 cached, void **va, u64 *pa);

struct ndis_alloc_request {
	void *handle;
	u32 len;
	u8 cached;
	void *ctx;
};

static void ndis_alloc_async_run(void *arg)
{
	ndis_alloc_shared_fn alloc = win_export_NdisMAllocateSharedMemory.func;
	struct ndis_alloc_request *r = arg;
	void *va = NULL;
	u64 pa = 0;

	alloc(r->handle, r->len, r->cached, &va, &pa);
	if (!va)
		pa = 0;
	ndis_allocate_complete(r->handle, va, &pa, r->len, r->ctx);
	win_free(r);
}

/*
 * FAILURE when the miniport registered no MiniportAllocateComplete (no
 * one to give the memory to) or asks for nothing.
 */
static WIN_ABI ndis_status NdisMAllocateSharedMemoryAsync(void *handle,
							  u32 len, u8 cached,
							  void *ctx)
{
	struct ndis_driver *drv;
	struct ndis_alloc_request *r;

	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	if (!drv || !handle || !len || !ndis_allocate_complete_set(handle))
		return NDIS_STATUS_FAILURE;
	r = win_alloc(drv, sizeof(*r));
	if (!r)
		return NDIS_STATUS_RESOURCES;
	r->handle = handle;
	r->len = len;
	r->cached = cached;
	r->ctx = ctx;
	if (ndis_defer(ndis_alloc_async_run, r)) {
		win_free(r);
		return NDIS_STATUS_RESOURCES;
	}
	return NDIS_STATUS_PENDING;
}
WIN_FUNC(NdisMAllocateSharedMemoryAsync);

/*
 * NdisMStartBufferPhysicalMapping / NdisMCompleteBufferPhysicalMapping:
 * the bus addresses of a buffer's bytes for a bus-master transfer,
 * through the map register the miniport names (one of those
 * NdisMAllocateMapRegisters gave it). Each page of the buffer is one
 * DMA-API mapping and one NDIS_PHYSICAL_ADDRESS_UNIT (so the array needs
 * NDIS_BUFFER_TO_SPAN_PAGES entries, as the DDK sizes it); the register
 * holds them until the completion unmaps them. A register still mapped
 * is unmapped first; a bad register, or more pages than a register
 * holds, maps nothing (ArraySize 0).
 */
#define NDIS_MAP_PIECES		32	/* pages per register: 128 KiB */

struct ndis_map_piece {
	u64 addr;
	u32 len;
};

struct ndis_map_register {
	u32 count;			/* mapped pieces; 0: free */
	bool to_device;
	struct ndis_map_piece piece[NDIS_MAP_PIECES];
};

/* NDIS_PHYSICAL_ADDRESS_UNIT: MSVC aligns its LARGE_INTEGER to 8 on i386 too */
struct ndis_physical_unit {
	u64 address;
	u32 length;
} __aligned(8);
static_assert(sizeof(struct ndis_physical_unit) == 16);

static struct ndis_map_register *ndis_map_register(void *handle, u32 index)
{
	struct ndis_map_register **regs;
	u32 count = ndis_map_register_count(handle);

	if (index >= count)
		return NULL;
	regs = (struct ndis_map_register **)ndis_map_register_slot(handle);
	if (!*regs) {
		struct ndis_driver *drv = ndis_map_register_driver(handle);

		*regs = win_alloc(drv, count * sizeof(**regs));
		if (!*regs)
			return NULL;
	}
	return *regs + index;
}

static void ndis_map_register_unmap(void *handle,
				    struct ndis_map_register *reg)
{
	u32 i;

	for (i = 0; i < reg->count; i++)
		ndis_dma_unmap(handle, reg->piece[i].addr, reg->piece[i].len,
			       reg->to_device);
	reg->count = 0;
}

static WIN_ABI void
NdisMStartBufferPhysicalMapping(void *handle, struct win_mdl *mdl,
				u32 index, u8 to_device,
				struct ndis_physical_unit *units, u32 *size)
{
	struct ndis_map_register *reg;
	u8 *va, *end;
	u32 n = 0;

	if (!size)
		return;
	*size = 0;
	if (!handle || !mdl || !units)
		return;
	reg = ndis_map_register(handle, index);
	if (!reg) {
		pr_warn_ratelimited("NdisMStartBufferPhysicalMapping: map register %u not allocated\n",
				    index);
		return;
	}
	ndis_map_register_unmap(handle, reg);
	va = (u8 *)mdl->start_va + mdl->byte_offset;
	end = va + mdl->byte_count;
	reg->to_device = to_device;
	while (va < end) {
		u32 len = min_t(unsigned long, end - va,
				PAGE_SIZE - offset_in_page(va));
		u64 addr;

		if (n == NDIS_MAP_PIECES ||
		    ndis_dma_map(handle, va, len, to_device, &addr)) {
			reg->count = n;
			ndis_map_register_unmap(handle, reg);
			pr_warn_ratelimited("NdisMStartBufferPhysicalMapping: buffer of %u bytes not mapped\n",
					    mdl->byte_count);
			return;
		}
		reg->piece[n].addr = addr;
		reg->piece[n].len = len;
		units[n].address = addr;
		units[n].length = len;
		n++;
		va += len;
	}
	reg->count = n;
	*size = n;
}
WIN_FUNC(NdisMStartBufferPhysicalMapping);

static WIN_ABI void NdisMCompleteBufferPhysicalMapping(void *handle,
							struct win_mdl *mdl,
							u32 index)
{
	struct ndis_map_register *reg;

	if (!handle)
		return;
	reg = ndis_map_register(handle, index);
	if (reg)
		ndis_map_register_unmap(handle, reg);
}
WIN_FUNC(NdisMCompleteBufferPhysicalMapping);

void ndis_map_registers_release(void *handle)
{
	struct ndis_map_register **regs =
		(struct ndis_map_register **)ndis_map_register_slot(handle);
	u32 i, count = ndis_map_register_count(handle);

	if (!*regs)
		return;
	for (i = 0; i < count; i++)
		ndis_map_register_unmap(handle, *regs + i);
	win_free(*regs);
	*regs = NULL;
}
