// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NdisMAllocateSharedMemoryAsync, shared memory that a
 * miniport asks for when it cannot wait (at DISPATCH_LEVEL, typically
 * to grow its receive buffers).
 *
 * Written from the NDIS 5.1 reference: the call returns PENDING and
 * NDIS later calls the miniport's MiniportAllocateComplete with the
 * memory's virtual and physical addresses, its length and the context
 * the miniport passed, or a NULL virtual address when there is none.
 * Here the memory comes from NdisMAllocateSharedMemory's code, on the
 * module's work queue, and MiniportAllocateComplete is called from there
 * at DISPATCH_LEVEL; the memory is the adapter's like the synchronous
 * kind (NdisMFreeSharedMemory frees it, the halt frees what is left).
 */

#include <linux/types.h>

#include "ndis_core.h"
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
