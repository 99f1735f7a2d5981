// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NdisAllocateMemory, the older allocator with placement
 * flags (NdisFreeMemory, ndis.c, frees both kinds).
 */

#include <linux/types.h>
#include <asm/io.h>

#include "ndis_core.h"
#include "winexport.h"

#define NDIS_MEMORY_CONTIGUOUS	0x00000001
#define NDIS_MEMORY_NONCACHED	0x00000002

/*
 * Every Windows allocation is already physically contiguous (kzalloc),
 * and x86 DMA is cache coherent, so neither flag changes where it comes
 * from; the highest acceptable physical address is checked, and an
 * allocation above it fails rather than hand the device memory it cannot
 * reach.
 */
static WIN_ABI ndis_status NdisAllocateMemory(void **addr, u32 len, u32 flags,
					      s64 highest)
{
	struct ndis_driver *drv;
	void *p;

	*addr = NULL;
	drv = ndis_driver_at((unsigned long)__builtin_return_address(0));
	if (!drv)
		return NDIS_STATUS_FAILURE;
	p = win_alloc(drv, len);
	if (!p)
		return NDIS_STATUS_FAILURE;
	if (highest != -1 && len &&
	    (u64)virt_to_phys(p) + len - 1 > (u64)highest) {
		win_free(p);
		return NDIS_STATUS_FAILURE;
	}
	*addr = p;
	return NDIS_STATUS_SUCCESS;
}
WIN_FUNC(NdisAllocateMemory);
