// SPDX-License-Identifier: GPL-2.0
/*
 * ndiswrapper: NDIS.SYS's older packet pool calls, over the ones ndis.c
 * implements: the pool without overflow descriptors, the allocation a
 * driver makes at DISPATCH_LEVEL, and a pool's usage.
 */

#include <linux/types.h>

#include "ndis_core.h"
#include "winexport.h"

extern const struct win_export win_export_NdisAllocatePacket;

typedef WIN_ABI void (*ndis_alloc_packet_fn)(ndis_status *status,
					     struct ndis_packet **packet,
					     void *pool);

/* NdisAllocatePacketPoolEx with no overflow, charged to the caller. */
static WIN_ABI void NdisAllocatePacketPool(ndis_status *status, void **handle,
					   u32 num, u32 proto_reserved)
{
	ndis_packet_pool_alloc(__builtin_return_address(0), status, handle,
			       num, 0, proto_reserved);
}
WIN_FUNC(NdisAllocatePacketPool);

/*
 * The caller promises DISPATCH_LEVEL so Windows can skip raising; the
 * wrapper's allocation is the same at any level.
 */
static WIN_ABI void NdisDprAllocatePacket(ndis_status *status,
					  struct ndis_packet **packet,
					  void *pool)
{
	ndis_alloc_packet_fn alloc = win_export_NdisAllocatePacket.func;

	alloc(status, packet, pool);
}
WIN_FUNC(NdisDprAllocatePacket);

static WIN_ABI u32 NdisPacketPoolUsage(void *handle)
{
	return ndis_packet_pool_in_use(handle);
}
WIN_FUNC(NdisPacketPoolUsage);
